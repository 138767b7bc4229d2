#!/bin/sh
# The inputs that once crashed a fuzz harness, tests/fuzz/regressions/<harness>/*, replayed by
# make check through the harness itself, linked without libFuzzer (tests/fuzz/replay.c) against
# the sanitizer build: BUILD_DIR/replay-<harness>, built by make with gcc (make fuzz replays them
# too, with clang's libFuzzer, before fuzzing). Each input is one check, in a process of its own,
# so that a report names it; a harness directory without its replay binary fails, as does finding
# no input at all. Usage: run-fuzz-regressions.sh BUILD_DIR
# Last line: fuzz-regressions: N passed, M failed, S skipped
set -u
[ $# -eq 1 ] && [ -d "$1" ] || { echo "usage: $0 BUILD_DIR" >&2; exit 2; }
build=$(cd "$1" && pwd)
root=$(cd "$(dirname "$0")/.." && pwd)
. "$root/tests/lib.sh"
for dir in "$root"/tests/fuzz/regressions/*/; do
	[ -d "$dir" ] || continue
	dir=${dir%/}
	harness=${dir##*/}
	bin=$build/replay-$harness
	if [ ! -x "$bin" ]; then
		bad "$harness: no $bin to replay its inputs with (make $1/replay-$harness)"
		continue
	fi
	for input in "$dir"/*; do
		[ -f "$input" ] || continue
		"$bin" "$input" >"$tmp/out" 2>&1
		rc=$?
		if [ $rc -ne 0 ] || grep -q -e Sanitizer -e 'runtime error' "$tmp/out"; then
			bad "$harness/${input##*/}: exit $rc" "$tmp/out"
		else ok; fi
	done
done
finish fuzz-regressions
