#!/bin/sh
# --fix never damages a file, and --diff shows what it would do. --fix keeps the file's mode,
# owner and group; writes through a symlink to its target and leaves the link a link; keeps CRLF
# and a byte order mark; refuses a file it cannot write (exit 2, the file untouched, the other
# files still fixed), and fixes whose result would not parse; leaves no temporary file behind, not
# even when SIGTERM, SIGINT or SIGHUP ends it midway (the one SIGKILL leaves, the next run
# removes); syncs the new file before the rename; replaces the file, so another hard link keeps
# the old text. (That it writes only the file it read, and only unchanged, tests/unit_fix.c tests.)
# --diff and --fix --dry-run print what diff -u prints, write nothing, exit as a plain run, and
# their diff applies with patch (git apply where patch is missing) to exactly what --fix writes.
#
# Unwritable files when the suite runs as root (as CI does): root may write any file whatever its
# mode, so three kinds of refusal are tested, each of which holds for root:
#   - a file or directory whose mode lets no one write it (chmod a-w) is refused by schedlint
#     itself, whoever runs it: that is what the user said by making it read-only;
#   - a refusal by the system (the owner, who is the caller, has no write bit while others do)
#     runs the binary with every capability dropped (setpriv) when the suite runs as root, so
#     root is refused like anyone; without setpriv those two checks say they were skipped;
#   - a write that fails halfway (a file size limit of 0: ulimit -f binds root too).
# Usage: run-fix.sh SCHEDLINT        Each check prints ok, FAIL or skip (tests/lib.sh);
# last line: fix: N passed, M failed, S skipped
set -u
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
root=$(cd "$(dirname "$0")/.." && pwd)
seed=$root/fixtures/rollout-deadlock/seed-gpu-tracker
nodes=$seed/nodes.yaml
. "$root/tests/lib.sh"
trap 'chmod -R u+w "$tmp"; rm -rf "$tmp"' EXIT
cd "$tmp" || exit 2
# As root, "$drop" runs a command with every capability dropped: root is then refused, and its
# writes clear set-id bits, like anyone's. Empty for other users; "none" where setpriv cannot.
drop=
if [ "$(id -u)" = 0 ]; then
	drop="setpriv --inh-caps=-all --bounding-set=-all --"
	$drop true 2>/dev/null || drop=none
fi

ok() { # description, condition...
	d=$1
	shift
	if "$@"; then
		echo "ok $d"
		pass=$((pass + 1))
	else
		echo "FAIL $d"
		[ -s err ] && sed 's/^/  | /' err | head -20
		fail=$((fail + 1))
	fi
}
run() { # exit status of schedlint with the arguments, stdout in out, stderr in err
	"$bin" --color never "$@" >out 2>err
	echo $? >rc
}
rc_is() { [ "$(cat rc)" = "$1" ] && ! grep -q -e Sanitizer -e 'runtime error' err; }
has() { grep -q -F -- "$2" "$1"; }
lacks() { ! grep -q -F -- "$2" "$1"; }
same() { cmp -s "$1" "$2"; }
stamp() { stat -c '%s %y %a %u:%g' "$1"; }
no_temp() { [ -z "$(find "$@" -name '*.schedlint-*')" ]; }
# a diff on stdin applied in the working directory: patch, or git apply where patch is missing
if command -v patch >/dev/null 2>&1; then
	apply() { patch -s -p1; }
else
	apply() { git apply -p1 -; }
fi
fresh() { # path, mode: a copy of the seed's manifest
	mkdir -p "$(dirname "$1")"
	rm -f "$1"
	cp "$seed/manifest.yaml" "$1"
	chmod "$2" "$1"
}

# The file's mode, owner and group stay what they were (mkstemp alone would make 0600 of them).
for mode in 644 640 664 705 2775; do
	fresh mode/m.yaml $mode
	run --fix --nodes "$nodes" mode/m.yaml
	ok "mode $mode: exit 0, nothing remains" rc_is 0
	ok "mode $mode: fixed" same mode/m.yaml "$seed/fixed.yaml"
	ok "mode $mode: kept" [ "$(stat -c %a mode/m.yaml)" = $mode ]
done
# a write by anyone but root clears the set-group-ID bit: the mode is set after the content
if [ "$drop" = none ]; then
	skip "mode 2775 written without privileges" "root, and setpriv cannot drop capabilities here"
else
	fresh mode/m.yaml 2775
	$drop "$bin" --fix --nodes "$nodes" mode/m.yaml >/dev/null 2>err
	ok "mode 2775 written without privileges: kept" [ "$(stat -c %a mode/m.yaml)" = 2775 ]
fi
fresh owner/m.yaml 644
[ "$(id -u)" = 0 ] && chown 65534:65534 owner/m.yaml # where permitted: another user's file
before=$(stat -c %u:%g owner/m.yaml)
run --fix --nodes "$nodes" owner/m.yaml
ok "owner and group kept ($before)" [ "$(stat -c %u:%g owner/m.yaml)" = "$before" ]
ok "owner: fixed" same owner/m.yaml "$seed/fixed.yaml"

# After --fix the report and the exit status are what remains, as ruff's are: the files are
# checked again once fixed. A finding fixed is not reported (stderr says how many were fixed in
# each file); one without a fix stays, with the exit status it decides.
mkdir -p remains
cp "$seed/manifest.yaml" remains/a.yaml
cp "$root/fixtures/affinity-contradiction/daemonset-self/manifest.yaml" remains/b.yaml
run --fix --nodes "$nodes" remains
ok "what remains: exit 1, for the finding --fix cannot fix" rc_is 1
ok "what remains: a.yaml fixed" same remains/a.yaml "$seed/fixed.yaml"
ok "what remains: the fix said" has err "schedlint: fixed 1 finding in remains/a.yaml"
ok "what remains: the fixed finding not reported" lacks out "[rollout-deadlock]"
ok "what remains: the other reported" has out "remains/b.yaml:23:11: error:"
run --fix --nodes "$nodes" remains/a.yaml
ok "nothing remains after a second --fix: exit 0" rc_is 0
ok "nothing remains after a second --fix: no report" [ ! -s out ]
fresh remains/c.yaml 644
run --fix -f json --nodes "$nodes" remains/c.yaml
ok "what remains, json: exit 0" rc_is 0
ok "what remains, json: no finding" has out '"findings":	[]'

# A symlink is written through: its target is fixed, the link stays a link to it.
fresh real/target.yaml 644
mkdir -p links
ln -s ../real/target.yaml links/app.yaml
ln -s app.yaml links/chain.yaml
run --fix --nodes "$nodes" links/app.yaml
ok "symlink: exit 0, nothing remains" rc_is 0
ok "symlink: still a link" test -L links/app.yaml
ok "symlink: same target" [ "$(readlink links/app.yaml)" = ../real/target.yaml ]
ok "symlink: the target fixed" same real/target.yaml "$seed/fixed.yaml"
ok "symlink: the target's mode kept" [ "$(stat -c %a real/target.yaml)" = 644 ]
ok "symlink: no temporary file" no_temp real links
ok "symlink: nothing beside the link" [ "$(ls links | tr '\n' ' ')" = "app.yaml chain.yaml " ]
fresh real/target.yaml 644
run --fix --nodes "$nodes" links/chain.yaml
ok "a chain of links: the last target fixed" same real/target.yaml "$seed/fixed.yaml"
ok "a chain of links: both still links" test -L links/chain.yaml -a -L links/app.yaml

# CRLF and a byte order mark (the fixtures compare the whole files; here the bytes themselves)
cr=$(printf '\r')
cp "$root/fixtures/rollout-deadlock/seed-gpu-tracker-crlf/manifest.yaml" crlf.yaml
{ printf '\357\273\277'; cat "$seed/manifest.yaml"; } >bom.yaml
run --fix --nodes "$nodes" crlf.yaml bom.yaml
ok "CRLF: every line ends in CR LF" [ "$(grep -c "$cr\$" crlf.yaml)" = "$(wc -l <crlf.yaml)" ]
ok "CRLF: the inserted lines too" has crlf.yaml "$(printf '      maxUnavailable: 1\r')"
hex() { od -An -tx1 "$1" | tr -d ' \n'; }
hex_has() { hex "$1" | grep -q "$2"; }
ok "CRLF: od shows 'maxUnavailable: 1' then 0d 0a" hex_has crlf.yaml 6d6178556e617661696c61626c653a20310d0a
ok "BOM: still first" [ "$(hex bom.yaml | cut -c 1-6)" = efbbbf ]
tail -c +4 bom.yaml >bom.rest
ok "BOM: the rest is the LF fix" same bom.rest "$seed/fixed.yaml"
# inserted before the last line, which has no line ending: the lines take the file's CRLF
lastline() { # the Deployment with its keys reordered so that the fix goes before the last line
	printf 'apiVersion: apps/v1\r\nkind: Deployment\r\nmetadata: {name: vision-object-tracker, namespace: vision}\r\n'
	printf 'spec:\r\n  template:\r\n    metadata: {labels: {app: t}}\r\n    spec:\r\n'
	printf '      nodeSelector: {kubernetes.io/hostname: tracker-node}\r\n'
	printf '      containers: [{name: t, image: t:1, resources: {limits: {nvidia.com/gpu: 1}}}]\r\n'
	printf '  replicas: 1\r\n'
	[ "${1:-}" = fixed ] && printf '  strategy:\r\n    type: RollingUpdate\r\n    rollingUpdate:\r\n      maxSurge: 0\r\n      maxUnavailable: 1\r\n'
	printf '  selector: {matchLabels: {app: t}}'
}
lastline >last.yaml
lastline fixed >last.want
cp last.yaml last.orig
run --diff --nodes "$nodes" last.yaml
diff -u --label a/last.yaml --label b/last.yaml last.orig last.want >last.diff
ok "no line ending at the end: --diff is diff -u's" same out last.diff
run --fix --nodes "$nodes" last.yaml
ok "no line ending at the end: CRLF lines inserted, none added at the end" same last.yaml last.want

# A file that cannot be written is refused and left as it was; the others are still fixed.
refused() { # description, path that is refused, expected words
	ok "$1: exit 2" rc_is 2
	ok "$1: says so" has err "$2:1:1: error: cannot write the fixed file: $3"
	ok "$1: bytes unchanged" same "$2" "$seed/manifest.yaml"
	ok "$1: mode and mtime unchanged" [ "$(stamp "$2")" = "$saved" ]
	ok "$1: the other file fixed" same other.yaml "$seed/fixed.yaml"
	ok "$1: no temporary file" no_temp "$(dirname "$2")" .
}
fresh ro/m.yaml 444
fresh other.yaml 644
saved=$(stamp ro/m.yaml)
run --fix --nodes "$nodes" ro/m.yaml other.yaml
refused "read-only file" ro/m.yaml "it is read-only (mode 0444); left unchanged"
fresh rodir/m.yaml 644
fresh other.yaml 644
chmod 555 rodir
saved=$(stamp rodir/m.yaml)
run --fix --nodes "$nodes" rodir/m.yaml other.yaml
refused "read-only directory" rodir/m.yaml "its directory $(pwd -P)/rodir is read-only (mode 0555)"
chmod 755 rodir
# the system's refusal: the owner (the caller) may not write, others may
if [ "$drop" = none ]; then
	skip "a file the system refuses" "root, and setpriv cannot drop capabilities here" 6
	skip "a directory the system refuses" "root, and setpriv cannot drop capabilities here" 6
else
	fresh sys/m.yaml 466
	fresh other.yaml 644
	saved=$(stamp sys/m.yaml)
	$drop "$bin" --color never --fix --nodes "$nodes" sys/m.yaml other.yaml >out 2>err
	echo $? >rc
	refused "a file the system refuses" sys/m.yaml "Permission denied; left unchanged"
	fresh sysdir/m.yaml 644
	fresh other.yaml 644
	chmod 577 sysdir
	saved=$(stamp sysdir/m.yaml)
	$drop "$bin" --color never --fix --nodes "$nodes" sysdir/m.yaml other.yaml >out 2>err
	echo $? >rc
	refused "a directory the system refuses" sysdir/m.yaml "cannot create a file in $(pwd -P)/sysdir: Permission denied"
	chmod 755 sysdir
fi
# a write that fails halfway: the temporary file goes, the file stays; stderr through a pipe,
# since the size limit holds for every regular file the process writes
fresh big/m.yaml 644
saved=$(stamp big/m.yaml)
sh -c "trap '' XFSZ; ulimit -f 0; '$bin' --fix --nodes '$nodes' big/m.yaml 2>&1 >/dev/null; echo exit \$?" | cat >err
ok "a failed write: exit 2" has err "exit 2"
ok "a failed write: says why" has err "big/m.yaml:1:1: error: cannot write the fixed file: File too large; left unchanged"
ok "a failed write: bytes unchanged" same big/m.yaml "$seed/manifest.yaml"
ok "a failed write: mode and mtime unchanged" [ "$(stamp big/m.yaml)" = "$saved" ]
ok "a failed write: no temporary file" no_temp big

# A fix a rule gets wrong must not break the file: the fixed text is parsed again first, and a
# file whose fixes would not parse is refused (exit 2). selector-mismatch once wrote a flow
# mapping in place of the block sequence under 'metadata:'; it now offers no edit there, so the
# file stays as it is and the run reports only the finding (exit 1).
cat >broken.yaml <<'EOF'
apiVersion: apps/v1
kind: Deployment
metadata: {name: postgres, namespace: shop}
spec:
  replicas: 1
  selector:
    matchLabels:
      app: postgres
  template:
    metadata:
    -  labels:
        app: postgres
    spec:
      containers:
      - name: main
        image: postgres:16
EOF
cp broken.yaml broken.orig
run --fix broken.yaml
"$bin" broken.yaml >/dev/null 2>lint.err
ok "a fix that would break the file: it still parses" lacks lint.err "invalid YAML"
ok "a fix that would break the file: the file is left as it was" same broken.yaml broken.orig
ok "a fix that would break the file: exit 1, the finding" rc_is 1
run --diff broken.yaml
ok "a fix that would break the file: no diff, exit 1" sh -c '[ "$(cat rc)" = 1 ] && [ ! -s out ]'

# The new file is on disk before it replaces the old one (and the directory after, best effort).
fresh sync/m.yaml 644
: >trace
command -v strace >/dev/null 2>&1 &&
	ASAN_OPTIONS=detect_leaks=0 strace -f -o trace -e trace=fsync,rename,renameat,renameat2 \
		"$bin" --fix --nodes "$nodes" sync/m.yaml >/dev/null 2>&1
if grep -q rename trace; then
	# renameat in the file's directory (renameat2 where the C library makes it so): a rename
	syscalls=$(grep -E '^[0-9]+ +(fsync|rename)' trace | sed -E 's/^[0-9]+ +//; s/[(].*//; s/^rename(at2?)?$/rename/' |
		tr '\n' ' ')
	ok "fsync before the rename, and after it ($syscalls)" [ "$syscalls" = "fsync rename fsync " ]
	ok "the traced run fixed the file" same sync/m.yaml "$seed/fixed.yaml"
else
	skip "fsync before the rename, and the traced run" "strace is missing or cannot trace here" 2
fi

# The temporary file (.NAME.schedlint-fix-PID-XXXXXX beside the file) never outlives its run:
# SIGTERM, SIGINT or SIGHUP during a --fix removes the one being written, then ends the run as
# the signal would; SIGKILL leaves that one only, and the next run writing in the directory
# removes it once its writer is gone, not a live run's.
# To signal while a temporary file is half written, every time and on any machine: the run is
# stopped (SIGSTOP) until it is seen stopped with one there, then signalled, then let go on, so
# the signal arrives before it writes another byte.
many_reset() { # 1,000 copies of the seed's manifest in many/
	rm -rf many
	mkdir many
	set -- $(seq -f 'many/m%04g.yaml' 1 1000)
	tee "$@" <"$seed/manifest.yaml" >/dev/null
}
proc_state() { sed -n 's/^State:[[:space:]]*\(.\).*/\1/p' "/proc/$1/status" 2>/dev/null; }
temps() { find many -name '*.schedlint-*' | wc -l; }
# Signals are set back to their defaults for the run: a background job of a shell script starts
# with SIGINT ignored, and a suite started under nohup (or by a runner that ignores SIGHUP) hands
# SIGHUP on ignored; schedlint rightly leaves an ignored signal ignored, and the run would then
# end as if never signalled.
sigdfl=
env --default-signal=INT,TERM,HUP true 2>/dev/null && sigdfl="env --default-signal=INT,TERM,HUP"
signal_midway() { # signal: sets caught (empty when the run ended first), status, left (temp files)
	many_reset
	$sigdfl "$bin" --fix --nodes "$nodes" many >/dev/null 2>many.err &
	pid=$!
	caught=
	while [ ! -s many.err ] && [ -n "$(proc_state $pid)" ] && [ "$(proc_state $pid)" != Z ]; do
		sleep 0.05 2>/dev/null || : # reading and checking: let it be until it has fixed a file
	done
	while [ -z "$caught" ] && [ -n "$(proc_state $pid)" ] && [ "$(proc_state $pid)" != Z ]; do
		kill -STOP $pid 2>/dev/null
		w=0
		while [ $w -lt 1000 ] && state=$(proc_state $pid) && [ "$state" = R -o "$state" = S -o "$state" = D ]; do
			w=$((w + 1))
		done
		if [ "$state" = T -o "$state" = t ] && [ "$(temps)" -gt 0 ]; then
			caught=yes
			kill -"$1" $pid
		fi
		kill -CONT $pid 2>/dev/null
	done
	{ wait $pid; } 2>/dev/null
	status=$?
	left=$(temps)
}
sum() { md5sum "$@" | cut -d' ' -f1; }
untorn() { # every file in many/ is the manifest or its fixed text, no other
	[ -z "$(sum many/*.yaml | sort -u | grep -v -x -e "$(sum <"$seed/manifest.yaml")" -e "$(sum <"$seed/fixed.yaml")")" ]
}
if [ ! -r /proc/self/status ]; then
	skip "a signal during --fix" "no /proc to see the run stopped"
else
	for sig in TERM INT HUP; do
		[ $sig = INT ] && [ -z "$sigdfl" ] && { skip "SIGINT during --fix" "env cannot set SIGINT back to its default"; continue; }
		signal_midway $sig
		if [ -z "$caught" ]; then
			skip "SIG$sig during --fix" "the run never stopped with a temporary file there"
			continue
		fi
		case $sig in TERM) num=15 ;; INT) num=2 ;; HUP) num=1 ;; esac
		ok "SIG$sig with a temporary file half written: the run ends by the signal ($status)" [ $status = $((128 + num)) ]
		ok "SIG$sig with a temporary file half written: none left" [ "$left" = 0 ]
		ok "SIG$sig: every file is as it was or wholly fixed" untorn
	done
	signal_midway KILL
	if [ -z "$caught" ]; then
		skip "SIGKILL during --fix" "the run never stopped with a temporary file there"
	else
		ok "SIGKILL: one temporary file left, named as schedlint's" \
			[ "$left $(find many -name '.m*.yaml.schedlint-fix-*-??????' | wc -l)" = "1 1" ]
		ok "SIGKILL: every file is as it was or wholly fixed" untorn
		cp "$seed/manifest.yaml" many/next.yaml
		run --fix --nodes "$nodes" many/next.yaml
		ok "SIGKILL: the next run in the directory removes it (its writer is gone)" [ "$(temps)" = 0 ]
		ok "SIGKILL: the next run fixes its file" same many/next.yaml "$seed/fixed.yaml"
	fi
fi
rm -rf many
# Planted: what the next run removes, and what it leaves.
if [ -r /proc/sys/kernel/pid_max ]; then
	gone=$(($(cat /proc/sys/kernel/pid_max) + 1)) # no process has a pid above pid_max
	fresh stale/m.yaml 644
	for f in ".m.yaml.schedlint-fix-$gone-AbC123" ".x.yaml.schedlint-fix-$$-XyZ789" \
		".m.yaml.schedlint-fix-$gone-short" "m.yaml.schedlint-fix-$gone-AbC123" ".m.yaml.schedlint-$gone-AbC123"; do
		echo half >"stale/$f"
	done
	run --fix --nodes "$nodes" stale/m.yaml
	ok "a temporary file whose writer is gone: removed by the next run there" [ ! -e "stale/.m.yaml.schedlint-fix-$gone-AbC123" ]
	ok "a temporary file whose writer is alive (a run at work there): left" [ -e "stale/.x.yaml.schedlint-fix-$$-XyZ789" ]
	ok "names not quite schedlint's: left" test -e "stale/.m.yaml.schedlint-fix-$gone-short" \
		-a -e "stale/m.yaml.schedlint-fix-$gone-AbC123" -a -e "stale/.m.yaml.schedlint-$gone-AbC123"
	ok "the planted files: the file fixed all the same" same stale/m.yaml "$seed/fixed.yaml"
else
	skip "a temporary file whose writer is gone" "no /proc/sys/kernel/pid_max to name a pid no process has"
fi

# --fix replaces the file (README, the man page): another hard link to it keeps the old text.
fresh hard/m.yaml 644
ln hard/m.yaml hard/also.yaml
run --fix --nodes "$nodes" hard/m.yaml
ok "hard link: the file given is fixed" same hard/m.yaml "$seed/fixed.yaml"
ok "hard link: the other link keeps the text it had" same hard/also.yaml "$seed/manifest.yaml"
ok "hard link: they are two files now" [ "$(stat -c %h hard/m.yaml) $(stat -c %h hard/also.yaml)" = "1 1" ]

# Nothing is held open from a file's reading to its writing: 100 files fixed with 16 descriptors.
rm -rf fds
mkdir fds
set -- $(seq -f 'fds/m%03g.yaml' 1 100)
tee "$@" <"$seed/manifest.yaml" >/dev/null
(ulimit -n 16 && exec "$bin" --color never --fix --nodes "$nodes" fds) >out 2>err
echo $? >rc
ok "100 files under a limit of 16 descriptors: exit 1, the findings" rc_is 1
ok "100 files under a limit of 16 descriptors: all fixed" [ "$(grep -c '^schedlint: fixed 1 finding in fds/' err)" = 100 ]
set --

# --diff and --fix --dry-run: diff -u's diff of what --fix writes; nothing written
fresh d/m.yaml 644
saved=$(stamp d/m.yaml)
diff -u --label a/d/m.yaml --label b/d/m.yaml d/m.yaml "$seed/fixed.yaml" >want.diff
for how in --diff "--fix --dry-run" "--dry-run --fix"; do
	run $how --nodes "$nodes" d/m.yaml
	ok "$how: exit 1, as without it" rc_is 1
	ok "$how: diff -u's diff on stdout" same out want.diff
	ok "$how: the report on stderr" has err "d/m.yaml:11:1: error: rollout of Deployment vision/vision-object-tracker"
	ok "$how: nothing written" [ "$(stamp d/m.yaml)" = "$saved" ]
	ok "$how: no temporary file" no_temp d
done
run --diff -o report.txt --nodes "$nodes" ./d/m.yaml
ok "--diff -o: the report in the file" has report.txt "error: rollout of Deployment"
ok "--diff -o: only the diff on stdout (./ left out of its names)" same out want.diff
mkdir -p p/d
cp d/m.yaml p/d/m.yaml
(cd p && apply) <want.diff
fresh f/d/m.yaml 644
(cd f && "$bin" --fix --nodes "$nodes" d/m.yaml >/dev/null 2>&1)
ok "--diff applies (patch -p1) to what --fix writes" same p/d/m.yaml f/d/m.yaml
# two fixes in one file, far apart: two hunks, as diff -u has them
{
	cat "$seed/manifest.yaml"
	seq 1 20 | sed 's/^/# filler /'
	echo ---
	sed 's/vision-object-tracker$/second-tracker/' "$seed/manifest.yaml"
} >two.yaml
cp two.yaml two.orig
run --diff --nodes "$nodes" two.yaml
cp out two.diff
run --fix --nodes "$nodes" two.yaml
ok "two fixes: both applied" [ "$(grep -c 'maxUnavailable: 1' two.yaml)" = 2 ]
diff -u --label a/two.yaml --label b/two.yaml two.orig two.yaml >two.want
ok "two fixes: --diff is diff -u's diff of the result" same two.diff two.want
ok "two fixes: two hunks" [ "$(grep -c '^@@' two.diff)" = 2 ]
# a document nothing checks (a ConfigMap of several pages) before the fixed one: --diff alone
# diffs the file as it is, not with the bytes of the unchecked document forgotten
{
	printf 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: big}\ndata:\n'
	seq 1 400 | sed 's/.*/  k&: "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"/'
	echo ---
	cat "$seed/manifest.yaml"
} >big.yaml
cp big.yaml big.orig
run --diff --nodes "$nodes" big.yaml
cp out big.diff
run --fix --nodes "$nodes" big.yaml
diff -u --label a/big.yaml --label b/big.yaml big.orig big.yaml >big.want
ok "a page-sized document before the fix: --diff is diff -u's diff of the result" same big.diff big.want
# standard input is never written back: no diff either
"$bin" --diff --nodes "$nodes" - <"$seed/manifest.yaml" >out 2>err
echo $? >rc
ok "--diff on stdin: exit 1, no diff" sh -c '[ "$(cat rc)" = 1 ] && [ ! -s out ]'
# a finding that is suppressed is not fixed
mkdir -p supp/.git
fresh supp/m.yaml 644
printf 'ignore:\n  - rules: [rollout-deadlock]\n    reason: drained by hand\n' >supp/.schedlint.yaml
(cd supp && "$bin" --diff --nodes "$nodes" m.yaml >../out 2>../err)
echo $? >rc
ok "suppressed: exit 0 and no diff" sh -c '[ "$(cat rc)" = 0 ] && [ ! -s out ]'
run --dry-run --nodes "$nodes" d/m.yaml
ok "--dry-run alone: a usage error" rc_is 2
ok "--dry-run alone: says so" has err "--dry-run goes with --fix"

# Every fixture's fix: --diff is diff -u's diff from the manifest to its fixed file.
for fixed in $(find "$root/fixtures" -name 'fixed.yaml' -o -name 'fixed.json' | sort); do
	dir=$(dirname "$fixed")
	name=${dir#"$root/fixtures/"}
	input=manifest.${fixed##*.}
	set --
	[ -f "$dir/nodes.yaml" ] && set -- "$@" --nodes "$dir/nodes.yaml"
	[ -f "$dir/pods.yaml" ] && set -- "$@" --pods "$dir/pods.yaml"
	rm -rf fx
	mkdir fx
	cp "$dir/$input" fx/
	(cd fx && "$bin" --diff "$@" "$input" >../out 2>/dev/null)
	diff -u --label "a/$input" --label "b/$input" "$dir/$input" "$fixed" >want
	ok "--diff of $name" same out want
	(cd fx && apply <../out)
	ok "--diff of $name applies to $(basename "$fixed")" same "fx/$input" "$fixed"
done

finish fix
