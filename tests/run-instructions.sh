#!/bin/sh
# Instructions, not time: schedlint's and a bare libyaml event parse's (tests/bareparse.c) over the
# same files, counted by valgrind's callgrind (Ir). The count is the same on every run whatever
# the load on the machine, so it can hold a line that a timed test could not: schedlint over the
# shared corpus must stay under LIMIT times the bare parse (the floor: every byte parsed once).
# Over it, the functions that cost the most are printed (callgrind_annotate).
#   run-instructions.sh [--limit LIMIT] SCHEDLINT BAREPARSE DIR [ARG...]
# The bare parse reads DIR's manifests (*.yaml, *.yml, *.json, outside hidden folders) as one file
# list; schedlint is given ARG... when there are any (a config, inventories, the paths), else
# --no-config and that same file list (a config found above DIR must not change what is counted),
# as make bench gives them. Without --limit it only prints the figures (make bench).
# Last line: instructions: N passed, M failed, S skipped
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
. "$root/tests/lib.sh"
limit=
if [ "${1:-}" = --limit ]; then
	limit=$2
	shift 2
fi
bin=$1
bare=$2
dir=$3
shift 3
command -v valgrind >/dev/null 2>&1 || {
	echo "instructions: needs valgrind (run-all.sh skips the suite without it)"
	exit 2
}
find "$dir" -type f \( -name '*.yaml' -o -name '*.yml' -o -name '*.json' \) ! -path '*/.*' | sort >"$tmp/list"
n=$(wc -l <"$tmp/list")
ir() { # out-file, command... -> the program's instructions (callgrind's summary line)
	out=$1
	shift
	valgrind --tool=callgrind --callgrind-out-file="$out" "$@" >/dev/null 2>"$out.err"
	sed -n 's/^summary: *//p' "$out"
}
[ $# -eq 0 ] && set -- --no-config $(cat "$tmp/list")
s=$(ir "$tmp/cg.schedlint" "$bin" "$@")
b=$(ir "$tmp/cg.bare" "$bare" "@$tmp/list")
if [ -z "$s" ] || [ -z "$b" ] || [ "$b" -eq 0 ]; then
	bad "no count from callgrind" "$tmp/cg.schedlint.err"
	finish instructions
	exit 1
fi
ratio=$(awk -v s="$s" -v b="$b" 'BEGIN { printf "%.2f", s / b }')
echo "instructions over $n files of $dir: schedlint $((s / 1000000)) M, bare parse $((b / 1000000)) M: ${ratio}x"
if [ -n "$limit" ]; then
	if awk -v r="$ratio" -v l="$limit" 'BEGIN { exit !(r <= l) }'; then
		ok
	else
		callgrind_annotate "$tmp/cg.schedlint" 2>/dev/null | sed -n '/^Ir/,$p' | head -n 25 >"$tmp/top"
		bad "schedlint takes ${ratio}x the bare parse's instructions, over the limit of ${limit}x; where they go:" "$tmp/top"
	fi
else
	ok
fi
finish instructions " (${ratio}x the bare parse${limit:+, limit ${limit}x})"
