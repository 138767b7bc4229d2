#!/bin/sh
# What leaves the program, checked from outside: values that would act on a terminal or a CI log
# (ESC sequences, CR, BS, DEL, C1, bidi controls, a newline then "::error", "##[") come out
# escaped in every format, on stdout and stderr, with colour and without; writes that fail (a full
# disk, a closed pipe, a closed descriptor) are errors with exit 2; --output is replaced whole or
# left alone and never names an input; every report is UTF-8 and JSON and SARIF parse, whatever
# bytes a file name holds; every fixture's JUnit is read back by junitparser.
# Usage: run-output.sh SCHEDLINT LSPCLIENT [SARIF_OUT] (LSPCLIENT's json mode parses the reports;
# SARIF logs are copied to SARIF_OUT for the validator)
set -u
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
lspclient=$(cd "$(dirname "$2")" && pwd)/$(basename "$2")
sarif_out=${3:+$(cd "$3" && pwd)}
cd "$(dirname "$0")/.." || exit 1
. tests/lib.sh
seed=$(pwd)/fixtures/rollout-deadlock/seed-gpu-tracker
esc=$(printf '\033')

expect() { # description, expected exit, command... (stdout in $tmp/out, stderr in $tmp/err)
	d=$1 want=$2
	shift 2
	"$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	if [ "$rc" != "$want" ] || grep -q -e Sanitizer -e 'runtime error' "$tmp/err"; then
		bad "$d: exit $rc, expected $want" "$tmp/err"
	else ok; fi
}
has() { # description, file, fixed string
	if grep -q -F -- "$3" "$2"; then ok; else bad "$1: '$3' not in output" "$2"; fi
}
hasnt() {
	if grep -q -F -- "$3" "$2"; then bad "$1: '$3' in output" "$2"; else ok; fi
}

# safe: description, file, [github] — nothing in the file acts on a terminal or a log: no control
# byte but LF and tab (JSON's indentation) and no ESC but the colour codes the program writes; no C1
# control or bidi control as UTF-8; no "##["; valid UTF-8; and no line that begins (after white
# space) with "::", or, for the github format, every line one of its commands.
c0=$(printf '[\001-\010\013-\037\177]')
c1=$(printf '\302[\200-\237]')
bidi1=$(printf '\342\200[\216\217\250-\256]')
bidi2=$(printf '\342\201[\246-\251]')
alm=$(printf '\330\234')
safe() {
	d=$1 f=$2 kind=${3:-}
	sed "s/${esc}\[[0-9;]*m//g" "$f" >"$tmp/plain"
	if [ "$(tr -d '\000' <"$f" | wc -c)" != "$(wc -c <"$f")" ] || LC_ALL=C grep -q -- "$c0" "$tmp/plain"; then
		bad "$d: a control character" "$f"
	elif LC_ALL=C grep -q -e "$c1" -e "$bidi1" -e "$bidi2" -e "$alm" "$f"; then
		bad "$d: a C1 or bidirectional control" "$f"
	elif grep -q -F '##[' "$f"; then
		bad "$d: '##[' (a legacy workflow command)" "$f"
	elif ! iconv -f UTF-8 -t UTF-8 "$f" >/dev/null 2>&1; then
		bad "$d: not UTF-8" "$f"
	elif [ "$kind" = github ] && grep -q -v -E '^::(error|warning|notice) ' "$tmp/plain"; then
		bad "$d: a line that is not a workflow command" "$f"
	elif [ "$kind" != github ] && grep -q -E '^[[:space:]]*::' "$tmp/plain"; then
		bad "$d: a line that begins with '::'" "$f"
	else ok; fi
}
# xml: description, files...: each well-formed (xmllint, Debian's libxml2-utils), else skipped.
xml() {
	d=$1
	shift
	if ! command -v xmllint >/dev/null 2>&1; then
		skip "$d" "no xmllint (Debian: libxml2-utils)"
	elif xmllint --noout "$@" >"$tmp/xml.log" 2>&1; then ok; else bad "$d: not well-formed XML" "$tmp/xml.log"; fi
}
json() { # description, files...: each parses as JSON and is UTF-8
	d=$1
	shift
	if "$lspclient" - json "$@" >"$tmp/json.log" 2>&1; then ok; else bad "$d" "$tmp/json.log"; fi
}

# The payload: each class of character that acts rather than shows, as YAML escapes (\e ESC, \a
# BEL, \b BS, \x7f DEL, \x9b 8-bit CSI, \N U+0085, \L and \P the line and paragraph separators).
P='\e]52;c;SGk=\a\e]8;;http://evil/\a\r\b\x7f\x9b\N\u202e\u2066\L\P\n::error file=a,line=1::injected\n  ::add-mask::s\n##[error]legacy'
w=$tmp/w
mkdir -p "$w"
cat >"$w/inj.yaml" <<EOF
apiVersion: apps/v1
kind: Deployment
metadata:
  name: "web$P"
  namespace: "ns$P"
spec:
  replicas: 1
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      nodeSelector: {disk: ssd}
      containers: [{name: c, image: "nginx$P"}]
EOF
cat >"$w/nodes.yaml" <<EOF
apiVersion: v1
kind: Node
metadata:
  name: "n1$P"
  labels: {disk: hdd}
status:
  allocatable: {cpu: "4", memory: 8Gi, pods: "110"}
  nodeInfo: {kubeletVersion: v1.30.2}
EOF
cat >"$w/errs.yaml" <<EOF
apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  nodeSelector: {"disk$P": ssd}
  containers: [{name: c, image: x, resources: {requests: {cpu: "1$P"}}}]
EOF
cat >"$w/.schedlint.yaml" <<EOF
policies:
  - {id: no-nginx, message: "m$P", field: "podspec.containers[*].image", forbid: "^nginx"}
EOF

# Names, namespaces, node names and a policy's message, in every format.
for fmt in text json sarif github codeclimate junit; do
	for color in never always; do
		[ $fmt != text ] && [ $color = always ] && continue
		expect "$fmt ($color): names" 1 sh -c "cd '$w' && '$bin' -f $fmt --color $color --nodes nodes.yaml inj.yaml"
		safe "$fmt ($color): names, stdout" "$tmp/out" $([ $fmt = github ] && echo github)
		safe "$fmt ($color): names, stderr" "$tmp/err"
		cp "$tmp/out" "$tmp/names.$fmt.$color"
	done
done
# The payload reached the report, escaped (or exact, in JSON), with colour where asked for.
has "text: ESC escaped" "$tmp/names.text.never" 'Deployment ns\x1b]52;c;SGk=\x07\x1b]8;;http://evil/\x07\r\x08\x7f\u009b\u0085\u202e\u2066\u2028\u2029\n::error file=a,line=1::injected\n  ::add-mask::s\n##\x5berror]legacy/web'
has "text: the node's name" "$tmp/names.text.never" 'note: node n1\x1b]52'
has "text: the policy's message" "$tmp/names.text.never" 'warning: m\x1b]52;c;SGk='
has "text: colour still" "$tmp/names.text.always" "${esc}[1;31merror:${esc}[0m"
has "github: CR and LF as GitHub's escapes" "$tmp/names.github.never" '\x08\x7f\u009b\u0085\u202e\u2066\u2028\u2029%0A::error file=a,line=1::injected'
has "json: the name exact" "$tmp/names.json.never" '"object":	"Deployment ns\u001b]52;c;SGk=\u0007\u001b]8;;http://evil/\u0007\r\b'
json "json, sarif and codeclimate parse" "$tmp/names.json.never" "$tmp/names.sarif.never" "$tmp/names.codeclimate.never"
xml "junit: names" "$tmp/names.junit.never"
[ -n "$sarif_out" ] && cp "$tmp/names.sarif.never" "$sarif_out/output-names.sarif"

# --explain: the node's name begins a line after white space.
expect "explain" 0 sh -c "cd '$w' && '$bin' --explain --nodes nodes.yaml inj.yaml"
safe "explain" "$tmp/out"
has "explain: the node's name" "$tmp/out" '  n1\x1b]52;c;SGk=\x07'
expect "explain json" 0 sh -c "cd '$w' && '$bin' --explain -f json --nodes nodes.yaml inj.yaml"
json "explain json parses" "$tmp/out"

# Input errors quote the value, on stderr, beside every format.
for fmt in text json sarif github codeclimate junit; do
	expect "$fmt: input errors" 2 sh -c "cd '$w' && '$bin' -f $fmt --color always errs.yaml"
	safe "$fmt: input errors, stderr" "$tmp/err"
	safe "$fmt: input errors, stdout" "$tmp/out" $([ $fmt = github ] && echo github)
	has "$fmt: the quantity quoted" "$tmp/err" 'invalid quantity "1\x1b]52;c;SGk='
	has "$fmt: the label key quoted" "$tmp/err" "label key 'disk\\x1b]52"
done
expect "a bad --format value" 2 "$bin" -f "$(printf 'x\033]52;c;SGk=\007\n::error::y')" "$seed/manifest.yaml"
safe "a bad --format value" "$tmp/err"
has "a bad --format value" "$tmp/err" "unknown format 'x\\x1b]52;c;SGk=\\x07\\n::error::y'"
expect "a bad option" 2 "$bin" "$(printf -- '--x\033]52;c;SGk=\007\n::error::y')" "$seed/manifest.yaml"
safe "a bad option" "$tmp/err"
has "a bad option" "$tmp/err" "unrecognized option '--x\\x1b]52;c;SGk'" # the name ends at =

# The config's policy in --list-rules.
expect "--list-rules" 0 sh -c "cd '$w' && '$bin' --list-rules"
safe "--list-rules" "$tmp/out"
has "--list-rules: the policy's message" "$tmp/out" 'm\x1b]52;c;SGk='

# File names: one that begins a line with "::", one holding ESC, CR, LF and U+202E.
evil=$(printf 'x\033]52;c;SGk=\007\r\n::error file=a::f\342\200\256.yaml')
mkdir -p "$tmp/f"
cp "$seed/manifest.yaml" "$tmp/f/::warning::p.yaml"
cp "$seed/manifest.yaml" "$tmp/f/$evil"
cp "$seed/nodes.yaml" "$tmp/f/nodes.yaml"
for fmt in text json sarif github codeclimate junit; do
	expect "$fmt: file names" 1 sh -c "cd '$tmp/f' && '$bin' --no-config -f $fmt --color always --nodes nodes.yaml ::warning::p.yaml x*"
	safe "$fmt: file names, stdout" "$tmp/out" $([ $fmt = github ] && echo github)
	cp "$tmp/out" "$tmp/files.$fmt"
done
has "text: a path that begins a line" "$tmp/files.text" '\x3a:warning::p.yaml:'
has "text: a path with ESC and LF" "$tmp/files.text" 'x\x1b]52;c;SGk=\x07\r\n::error file=a::f\u202e.yaml:'
json "file names: json, sarif and codeclimate parse" "$tmp/files.json" "$tmp/files.sarif" "$tmp/files.codeclimate"
xml "junit: file names" "$tmp/files.junit"
expect "--fix: its messages" 0 sh -c "cd '$tmp/f' && '$bin' --no-config --fix --nodes nodes.yaml x*"
safe "--fix: its messages" "$tmp/err"
has "--fix: its messages" "$tmp/err" 'schedlint: fixed 1 finding in x\x1b]52'

# Writes that fail: exit 2 and the reason, in every format and for every kind of output.
for fmt in text json sarif github codeclimate junit; do
	expect "$fmt >/dev/full" 2 sh -c "'$bin' -f $fmt --nodes $seed/nodes.yaml $seed/manifest.yaml >/dev/full"
	has "$fmt >/dev/full" "$tmp/err" "schedlint: error: cannot write the report: No space left on device"
done
expect "--explain >/dev/full" 2 sh -c "'$bin' --explain --nodes $seed/nodes.yaml $seed/manifest.yaml >/dev/full"
expect "--diff >/dev/full" 2 sh -c "'$bin' --diff --nodes $seed/nodes.yaml $seed/manifest.yaml >/dev/full"
has "--diff >/dev/full" "$tmp/err" "cannot write the diff: No space left on device"
for opt in --list-rules --help --version; do
	expect "$opt >/dev/full" 2 sh -c "'$bin' $opt >/dev/full"
	has "$opt >/dev/full" "$tmp/err" ": No space left on device"
done
expect "-o /dev/full" 2 "$bin" -f sarif -o /dev/full --nodes $seed/nodes.yaml $seed/manifest.yaml
has "-o /dev/full" "$tmp/err" "cannot write the report to /dev/full: No space left on device"
expect "stdout closed" 2 sh -c "'$bin' --nodes $seed/nodes.yaml $seed/manifest.yaml >&-"
has "stdout closed" "$tmp/err" "cannot write the report: Bad file descriptor"
expect "input errors, stderr full" 2 sh -c "'$bin' '$w/errs.yaml' 2>/dev/full"
# A reader that is gone: the FIFO's reader opens it and leaves before anything is written.
mkfifo "$tmp/fifo"
(exec 3<"$tmp/fifo") &
exec 4>"$tmp/fifo"
wait
expect "a closed pipe" 2 sh -c "'$bin' --nodes $seed/nodes.yaml $seed/manifest.yaml >&4"
has "a closed pipe" "$tmp/err" "cannot write the report: Broken pipe"
exec 4>&-
# The language server whose output fails ends (status 1: its client is gone) though its input
# stays open; the timeout only guards against a hang.
mkfifo "$tmp/lspin"
body='{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"processId":null,"rootUri":null,"capabilities":{}}}'
timeout 120 "$bin" lsp <"$tmp/lspin" >/dev/full 2>"$tmp/err" &
pid=$!
exec 5>"$tmp/lspin"
printf 'Content-Length: %d\r\n\r\n%s' ${#body} "$body" >&5
wait $pid
rc=$?
exec 5>&-
[ $rc = 1 ] && ok || bad "lsp >/dev/full: exit $rc, expected 1 (124: it did not end)" "$tmp/err"

# --output: replaced whole or not at all.
o=$tmp/o
mkdir -p "$o"
expect "-o into a directory that is not there" 2 "$bin" -f sarif -o "$o/no/such/r.sarif" --nodes $seed/nodes.yaml $seed/manifest.yaml
has "-o into a directory that is not there" "$tmp/err" "cannot write the report to $o/no/such/r.sarif: No such file or directory"
echo old >"$o/r.sarif"
# A file size limit: the write fails part-way (EFBIG), as on a full disk.
expect "-o, the write fails part-way" 2 sh -c "trap '' XFSZ; ulimit -f 8; exec '$bin' -f sarif -o '$o/r.sarif' --nodes $seed/nodes.yaml $seed/manifest.yaml"
has "-o, the write fails part-way" "$tmp/err" "cannot write the report to $o/r.sarif: File too large"
[ "$(cat "$o/r.sarif")" = old ] && ok || bad "-o, the write fails part-way: the old report is not kept" "$o/r.sarif"
[ "$(ls -A "$o")" = r.sarif ] && ok || bad "-o, the write fails part-way: a file is left behind: $(ls -A "$o")"
expect "-o" 1 sh -c "umask 022 && '$bin' -f sarif -o '$o/new.sarif' --nodes $seed/nodes.yaml $seed/manifest.yaml"
json "-o: the report parses" "$o/new.sarif"
[ "$(ls -l "$o/new.sarif" | cut -c1-10)" = "-rw-r--r--" ] && ok || bad "-o: mode $(ls -l "$o/new.sarif" | cut -c1-10)"
[ "$(ls -A "$o" | tr '\n' ' ')" = "new.sarif r.sarif " ] && ok || bad "-o: files left behind: $(ls -A "$o")"
expect "-o /dev/null" 1 "$bin" -o /dev/null --nodes $seed/nodes.yaml $seed/manifest.yaml
[ -c /dev/null ] && ok || bad "-o /dev/null: it is no longer a device"

# --output naming an input is refused before anything runs, and the input is left as it was.
i=$tmp/i
mkdir -p "$i/cfg"
cp "$seed/manifest.yaml" "$seed/nodes.yaml" "$i/"
printf 'apiVersion: v1\nkind: List\nitems: []\n' >"$i/pods.yaml"
printf 'nodes: [../nodes.yaml]\n' >"$i/cfg/.schedlint.yaml"
printf 'rules: [\n' >"$i/bad-config.yaml"
ln -s manifest.yaml "$i/link.yaml"
cp -R "$i" "$tmp/i.orig"
unchanged() { # description
	if diff -r "$tmp/i.orig" "$i" >"$tmp/diff" 2>&1; then ok; else bad "$1: an input changed" "$tmp/diff"; fi
}
refused() { # description, the input named, schedlint's arguments...
	d=$1 named=$2
	shift 2
	expect "$d" 2 sh -c 'cd "$0" && exec "$@"' "$i" "$bin" "$@"
	has "$d" "$tmp/err" "is the input $named: the report would replace it"
	unchanged "$d"
}
refused "-o the manifest" manifest.yaml --no-config -o manifest.yaml --nodes nodes.yaml manifest.yaml
refused "-o the manifest, through a link" manifest.yaml --no-config -o link.yaml --nodes nodes.yaml manifest.yaml
refused "-o a link to the manifest" link.yaml --no-config -o manifest.yaml link.yaml
refused "-o the nodes" nodes.yaml --no-config -f json -o nodes.yaml --nodes nodes.yaml manifest.yaml
refused "-o the pods" pods.yaml --no-config -o pods.yaml --pods pods.yaml manifest.yaml
refused "-o the config" cfg/.schedlint.yaml --config cfg/.schedlint.yaml -o cfg/.schedlint.yaml manifest.yaml
refused "-o the config's nodes" "$i/nodes.yaml" --config cfg/.schedlint.yaml -f sarif -o nodes.yaml manifest.yaml
refused "-o a config with errors" bad-config.yaml --config bad-config.yaml -f sarif -o bad-config.yaml manifest.yaml
# Near misses: a report there already (a regular file, no input) is replaced; /dev/null is written
# to, not replaced: named as an input too, it is that input's error (a device), not a refusal.
printf 'old report\n' >"$tmp/old-report.txt"
expect "-o a report there already" 1 sh -c "cd '$i' && exec '$bin' --no-config -o '$tmp/old-report.txt' --nodes nodes.yaml manifest.yaml"
has "-o a report there already" "$tmp/old-report.txt" "rollout-deadlock"
expect "-o /dev/null, an input too" 2 sh -c "cd '$i' && exec '$bin' --no-config -o /dev/null --nodes nodes.yaml manifest.yaml /dev/null"
has "-o /dev/null, an input too" "$tmp/err" "/dev/null:1:1: error: a device, not a regular file"
unchanged "-o /dev/null, an input too"
expect "-o the config found" 2 sh -c "cd '$i/cfg' && '$bin' -o .schedlint.yaml ../manifest.yaml"
has "-o the config found" "$tmp/err" "the report would replace it"
unchanged "-o the config found"

# Bytes that are not UTF-8: in a file name, and in its content (an input error).
u=$tmp/u
mkdir -p "$u"
cp "$seed/manifest.yaml" "$u/$(printf 'seed\377\376.yaml')"
cp "$seed/nodes.yaml" "$u/nodes.yaml"
printf 'apiVersion: v1\nkind: Pod\nmetadata:\n  name: "a\377\376b"\nspec:\n  containers: [{name: c, image: x}]\n' \
	>"$u/$(printf 'bad\377\376.yaml')"
for fmt in text json sarif github codeclimate junit; do
	expect "$fmt: a name that is not UTF-8" 1 sh -c "cd '$u' && '$bin' --no-config -f $fmt --nodes nodes.yaml seed*"
	safe "$fmt: a name that is not UTF-8, stdout" "$tmp/out" $([ $fmt = github ] && echo github)
	cp "$tmp/out" "$tmp/utf8-name.$fmt"
	expect "$fmt: content that is not UTF-8" 2 sh -c "cd '$u' && '$bin' --no-config -f $fmt bad*"
	safe "$fmt: content that is not UTF-8, stdout" "$tmp/out" $([ $fmt = github ] && echo github)
	safe "$fmt: content that is not UTF-8, stderr" "$tmp/err"
	cp "$tmp/out" "$tmp/utf8-content.$fmt"
done
json "not UTF-8: json, sarif and codeclimate parse" "$tmp/utf8-name.json" "$tmp/utf8-name.sarif" \
	"$tmp/utf8-content.json" "$tmp/utf8-content.sarif" "$tmp/utf8-name.codeclimate" "$tmp/utf8-content.codeclimate"
xml "junit: not UTF-8" "$tmp/utf8-name.junit" "$tmp/utf8-content.junit"
[ -n "$sarif_out" ] && cp "$tmp/utf8-name.sarif" "$sarif_out/output-utf8-name.sarif"
has "json: the exact bytes in fileUri" "$tmp/utf8-name.json" '"fileUri":	"seed%FF%FE.yaml"'
has "text: the bytes escaped" "$tmp/utf8-name.text" 'seed\xff\xfe.yaml:'
# A policy quotes at most 80 bytes of a value: not half of a character.
printf 'policies: [{id: long, message: m, field: "metadata.name", forbid: "^a"}]\n' >"$u/.schedlint.yaml"
printf 'apiVersion: v1\nkind: Pod\nmetadata: {name: "%s\303\251z"}\nspec:\n  containers: [{name: c, image: x}]\n' \
	"$(printf '%079d' 0 | tr 0 a)" >"$u/long.yaml"
expect "a long value quoted" 0 sh -c "cd '$u' && '$bin' long.yaml"
hasnt "a long value quoted: cut between characters" "$tmp/out" '\xc3'
has "a long value quoted: cut before the character" "$tmp/out" "a…' matches"

# The formats CI systems read, on the seed's deadlock, an input error and a clean run: JUnit
# well-formed, Code Climate with GitLab's keys and SARIF's fingerprints.
c=$tmp/ci
mkdir -p "$c"
cp "$seed/manifest.yaml" "$seed/nodes.yaml" "$c/"
cp fixtures/input-errors/bad-gpu-quantity/manifest.yaml "$c/bad.yaml"
printf 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: quiet}\ndata: {a: "<&>"}\n' >"$c/clean.yaml"
for case in "seed:1:--nodes nodes.yaml manifest.yaml" "error:2:bad.yaml" "clean:0:clean.yaml"; do
	name=${case%%:*} rest=${case#*:}
	want=${rest%%:*} args=${rest#*:}
	for fmt in junit codeclimate sarif; do
		expect "$fmt: $name" "$want" sh -c "cd '$c' && exec '$bin' --no-config -f $fmt $args"
		safe "$fmt: $name" "$tmp/out"
		cp "$tmp/out" "$tmp/ci.$name.$fmt"
	done
	xml "junit: $name" "$tmp/ci.$name.junit"
done
has "junit: a suite per file" "$tmp/ci.seed.junit" '<testsuite name="manifest.yaml" tests="'
has "junit: a failed testcase" "$tmp/ci.seed.junit" '<failure type="error" message="'
has "junit: the proof in the failure" "$tmp/ci.seed.junit" 'manifest.yaml:'
has "junit: an input error" "$tmp/ci.error.junit" '<testcase classname="bad.yaml" name="input">'
has "junit: an input error is an error" "$tmp/ci.error.junit" '<error type="error" message="'
has "junit: a clean run passes" "$tmp/ci.clean.junit" '<testcase classname="schedlint" name="no findings"/>'
has "junit: a clean run counts one test" "$tmp/ci.clean.junit" '<testsuites name="schedlint" tests="1" failures="0" errors="0">'
# Every fixture's JUnit read back by a JUnit consumer that is not ours (junitparser, Debian's
# python3-junitparser): its suites, testcases, failures and errors against counts made from the
# same run's JSON (tests/junit-consumer.py). Debian's module is in its own python3, which a
# python3 earlier on PATH (pyenv, a venv) may not see: each is tried.
junit_rc=77
for py in python3 /usr/bin/python3; do
	command -v "$py" >/dev/null 2>&1 || continue
	TMPDIR=$tmp "$py" tests/junit-consumer.py "$bin" fixtures >"$tmp/junit-consumer.log" 2>&1
	junit_rc=$?
	[ "$junit_rc" = 77 ] || break
done
if [ "$junit_rc" = 77 ]; then
	skip "junit: every fixture read by junitparser" "no python3 with junitparser (Debian: python3-junitparser)"
elif [ "$junit_rc" = 0 ]; then ok; else bad "junit: a fixture's JUnit as junitparser reads it" "$tmp/junit-consumer.log"; fi
has "codeclimate: an input error" "$tmp/ci.error.codeclimate" '"check_name":	"input-error"'
has "codeclimate: a clean run is an empty array" "$tmp/ci.clean.codeclimate" '[]'
json "codeclimate: parses" "$tmp/ci.seed.codeclimate" "$tmp/ci.error.codeclimate" "$tmp/ci.clean.codeclimate"
if command -v node >/dev/null 2>&1; then
	# GitLab's required keys, its severities, and each fingerprint the one SARIF gives the finding
	# at the same place.
	check='const fs = require("fs");
const cc = JSON.parse(fs.readFileSync(process.argv[1], "utf8"));
const sarif = process.argv[2] ? JSON.parse(fs.readFileSync(process.argv[2], "utf8")) : null;
if (!Array.isArray(cc)) throw new Error("not an array");
const sev = ["info", "minor", "major", "critical", "blocker"];
const fps = new Map();
for (const r of sarif ? sarif.runs[0].results : []) {
	const l = r.locations[0].physicalLocation;
	fps.set(r.ruleId + " " + l.artifactLocation.uri + ":" + l.region.startLine, r.partialFingerprints["schedlintFingerprint/v1"]);
}
let matched = 0;
for (const i of cc) {
	for (const k of ["description", "check_name", "fingerprint", "severity"])
		if (typeof i[k] !== "string" || !i[k]) throw new Error("no " + k + ": " + JSON.stringify(i));
	if (!sev.includes(i.severity)) throw new Error("severity " + i.severity);
	if (typeof i.location.path !== "string" || !Number.isInteger(i.location.lines.begin)) throw new Error("location");
	const want = fps.get(i.check_name + " " + i.location.path + ":" + i.location.lines.begin);
	if (sarif && !i.check_name.startsWith("input-") && want !== i.fingerprint)
		throw new Error("fingerprint " + i.fingerprint + ", SARIF " + want);
	if (want) matched++;
}
if (sarif && matched !== sarif.runs[0].results.length) throw new Error("matched " + matched);
if (new Set(cc.map((i) => i.fingerprint)).size !== cc.length) throw new Error("fingerprints repeat");'
	for name in seed error clean; do
		if node -e "$check" "$tmp/ci.$name.codeclimate" "$tmp/ci.$name.sarif" >"$tmp/node.log" 2>&1; then ok; else
			bad "codeclimate: $name: keys and fingerprints" "$tmp/node.log"
		fi
	done
	node -e 'const a = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
if (!a.length || !a.some((i) => i.severity === "critical")) process.exit(1);' "$tmp/ci.seed.codeclimate" && ok ||
		bad "codeclimate: the seed's deadlock is critical" "$tmp/ci.seed.codeclimate"
else
	skip "codeclimate: keys and fingerprints" "no node" 4
fi

finish output
