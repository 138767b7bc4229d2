#!/bin/sh
# PCRE2 in the config, under load: a pattern that backtracks without end (`(a+)+$` against a
# 100 kB value) must stop at its match limit with an error that names the pattern, the file and
# the object, within a second; and a config of 1,000 patterns (excludes, ignore entries, policies)
# must add less than 50 ms to a run over the project's fixtures (best of 7 runs each, so that a
# busy machine does not decide). Usage: run-patterns.sh SCHEDLINT RELEASE_SCHEDLINT
set -u
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
rel=$(cd "$(dirname "$2")" && pwd)/$(basename "$2")
root=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0
fail=0
ok() { pass=$((pass + 1)); }
ko() {
	echo "FAIL $*"
	fail=$((fail + 1))
}
now_ms() { echo $(($(date +%s%N) / 1000000)); }

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
start=$(now_ms)
timeout 10 "$bin" pod.yaml >out 2>err
rc=$?
took=$(($(now_ms) - start))
[ $rc -eq 2 ] && ok || ko "ReDoS: exit $rc, expected 2 (an input error)"
[ $took -lt 1000 ] && ok || ko "ReDoS: took ${took} ms, more than a second"
grep -q "pattern '(a+)+\$'" err && grep -q 'pod.yaml:6:11: error:' err && grep -q 'Pod default/victim' err &&
	grep -q 'match limit' err && ok || {
	ko "ReDoS: the error does not name the pattern, the file and the object"
	cat err
}
grep -q -e Sanitizer -e 'runtime error' err && ko "ReDoS: sanitizer report" || ok
echo "redos: ${took} ms, exit $rc"

# --- 1,000 patterns --------------------------------------------------------------------------
awk 'BEGIN {
	print "exclude:"
	for (i = 0; i < 300; i++) printf "  - '\''^vendor%d/.*\\.ya?ml$'\''\n", i
	print "ignore:"
	for (i = 0; i < 300; i++) printf "  - rules: [rollout-deadlock]\n    path: '\''^legacy%d/'\''\n    name: '\''^tracker-%d-[a-z]+$'\''\n", i, i
	print "policies:"
	for (i = 0; i < 100; i++) printf "  - id: p%d\n    message: m%d\n    field: metadata.labels.l%d\n    forbid: '\''^bad%d(-[a-z]+)*$'\''\n", i, i, i, i
}' >"$tmp/many.yaml"
n=$(grep -c "'" "$tmp/many.yaml")
[ "$n" = 1000 ] && ok || ko "the generated config holds $n patterns, not 1000"
cd "$root" || exit 1
best() { # the fastest of 7 runs, in microseconds
	b=999999999
	for _ in 1 2 3 4 5 6 7; do
		s=$(date +%s%N)
		"$@" >/dev/null 2>&1
		e=$((($(date +%s%N) - s) / 1000))
		[ $e -lt $b ] && b=$e
	done
	echo $b
}
"$rel" --config "$tmp/many.yaml" fixtures >"$tmp/many.out" 2>&1
rc=$?
[ $rc -le 2 ] && ok || { # the fixtures hold input errors on purpose
	ko "1,000 patterns: exit $rc"
	head -5 "$tmp/many.out"
}
base=$(best "$rel" --no-config fixtures)
with=$(best "$rel" --config "$tmp/many.yaml" fixtures)
added=$(((with - base) / 1000))
[ $added -lt 50 ] && ok || ko "1,000 patterns add ${added} ms to a run (${base} us → ${with} us), more than 50 ms"
echo "1,000 patterns: ${base} us without, ${with} us with (+${added} ms)"
echo "patterns: $pass passed, $fail failed"
[ $fail -eq 0 ]
