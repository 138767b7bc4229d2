#!/bin/sh
# PCRE2 in the config, under load: a pattern that backtracks without end (`(a+)+$` against a
# 100 kB value) must stop at its match limit (a count of steps, not a clock) with an error that
# names the pattern, the file and the object, within a second of CPU time; and a config of 1,000
# patterns (excludes, ignore entries, policies) must work over the project's fixtures and add
# less than a second of CPU time to the run, a bound twenty times the 50 ms target that
# `make bench` measures (time on a clock is the machine's load as much as schedlint's, so no
# check here reads one). Usage: run-patterns.sh SCHEDLINT RELEASE_SCHEDLINT
# Last line: patterns: N passed, M failed, S skipped
set -u
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
rel=$(cd "$(dirname "$2")" && pwd)/$(basename "$2")
root=$(cd "$(dirname "$0")/.." && pwd)
. "$root/tests/lib.sh"
ko() { bad "$*"; }
# The CPU time of a run, user + system (tests/rusage.c prints "EXIT CPU_MS KB"): the least of
# three runs, since a busy machine adds some (caches, migrations) though far less than to a clock
rusage=$root/build/rusage
cpu_ms() { # command...: sets rc (the last run's exit status) and ms
	ms=999999
	for _ in 1 2 3; do
		r=$(limited 60 "$rusage" "$@" 2>/dev/null | tail -n 1)
		rc=${r%% *} t=${r#* }
		t=${t%% *}
		case $t in '' | *[!0-9]*) rc=? t=999999 ;; esac
		[ "$t" -lt $ms ] && ms=$t
	done
}

# --- ReDoS ---------------------------------------------------------------------------------
mkdir -p "$tmp/redos"
cd "$tmp/redos" || exit 1
: >.git # the walk up for a config ends here
cat >.schedlint.yaml <<'CFG'
policies:
  - id: catastrophic
    message: a pattern that backtracks exponentially on a long run of a's
    field: metadata.annotations.blob
    forbid: '(a+)+$'
CFG
{
	printf 'apiVersion: v1\nkind: Pod\nmetadata:\n  name: victim\n  annotations:\n    blob: "'
	awk 'BEGIN { s = "a"; while (length(s) < 100000) s = s s; printf "%sb", substr(s, 1, 100000) }'
	printf '"\nspec:\n  containers:\n  - name: c\n    image: busybox:1.36\n'
} >pod.yaml
limited 10 "$bin" pod.yaml >out 2>err
rc=$?
[ $rc -eq 2 ] && ok || ko "ReDoS: exit $rc, expected 2 (an input error)"
grep -q "pattern '(a+)+\$'" err && grep -q 'pod.yaml:6:11: error:' err && grep -q 'Pod default/victim' err &&
	grep -q 'match limit' err && ok || {
	ko "ReDoS: the error does not name the pattern, the file and the object"
	cat err
}
grep -q -e Sanitizer -e 'runtime error' err && ko "ReDoS: sanitizer report" || ok
if [ -x "$rusage" ]; then
	cpu_ms "$rel" pod.yaml
	[ "$rc" = 2 ] && [ "$ms" -lt 1000 ] && ok || ko "ReDoS: exit $rc and $ms ms of CPU time, expected 2 within 1000 ms"
	echo "redos: $ms ms of CPU time (the release build), exit $rc"
else
	skip "ReDoS: within a second of CPU time" "no build/rusage (make build/rusage)"
fi

# --- 1,000 patterns --------------------------------------------------------------------------
sh "$root/tests/gen-patterns.sh" >"$tmp/many.yaml"
n=$(grep -c "'" "$tmp/many.yaml")
[ "$n" = 1000 ] && ok || ko "the generated config holds $n patterns, not 1000"
cd "$root" || exit 1
"$rel" --config "$tmp/many.yaml" fixtures >"$tmp/many.out" 2>&1
rc=$?
[ $rc -le 2 ] && ok || { # the fixtures hold input errors on purpose
	ko "1,000 patterns: exit $rc"
	head -5 "$tmp/many.out"
}
if [ -x "$rusage" ]; then
	cpu_ms "$rel" --no-config fixtures
	base=$ms
	cpu_ms "$rel" --config "$tmp/many.yaml" fixtures
	with=$ms
	[ $((with - base)) -lt 1000 ] && ok ||
		ko "1,000 patterns add $((with - base)) ms of CPU time to a run (${base} ms → ${with} ms), a second or more"
	echo "1,000 patterns: ${base} ms of CPU time without, ${with} ms with (make bench measures the wall time)"
else
	skip "1,000 patterns: under a second of CPU time added" "no build/rusage (make build/rusage)"
fi
finish patterns
