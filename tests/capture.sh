#!/bin/sh
# Everything the tool prints, for a refactoring that must change none of it: every fixture case
# in the text, SARIF, JSON and GitHub formats, with --explain and with --fix --diff (each file
# ending with the exit status), and, when a corpus directory is given, that directory linted as
# one run in the text, SARIF and JSON formats and with --explain. SARIF's one machine-dependent
# line (the repository's absolute URI) is written as file:///SRCROOT/. Capture before and after,
# then compare:
#   sh tests/capture.sh ./schedlint /tmp/before ../shared/corpus    (on the old tree)
#   sh tests/capture.sh ./schedlint /tmp/after ../shared/corpus     (on the new tree)
#   diff -r /tmp/before /tmp/after
# Usage: capture.sh SCHEDLINT OUTDIR [CORPUS]
set -u
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
mkdir -p "$2" || exit 2
out=$(cd "$2" && pwd)
corpus=
[ -n "${3:-}" ] && corpus=$(cd "$3" && pwd)
root=$(cd "$(dirname "$0")/.." && pwd)
srcroot() { sed '/"SRCROOT":/{n;s|"file://[^"]*"|"file:///SRCROOT/"|;}' "$1" >"$1.tmp" && mv "$1.tmp" "$1"; }
for exitfile in $(find "$root/fixtures" -name expected.exit | sort); do
	dir=$(dirname "$exitfile")
	name=$(echo "${dir#"$root/fixtures/"}" | tr / _)
	cd "$dir" || exit 2
	if [ -f args ]; then
		set -- $(cat args)
	else
		set --
		[ -f nodes.yaml ] && set -- "$@" --nodes nodes.yaml
		[ -f pods.yaml ] && set -- "$@" --pods pods.yaml
		for m in manifest.yaml manifest.json; do [ -f "$m" ] && set -- "$@" "$m"; done
	fi
	for fmt in text sarif json github; do
		"$bin" --color never --format $fmt "$@" >"$out/$name.$fmt" 2>"$out/$name.$fmt.err"
		echo $? >>"$out/$name.$fmt"
	done
	srcroot "$out/$name.sarif"
	"$bin" --color never --explain "$@" >"$out/$name.explain" 2>&1
	echo $? >>"$out/$name.explain"
	if [ ! -f args ]; then # --diff writes nothing
		"$bin" --color never --fix --diff "$@" >"$out/$name.diff" 2>&1
		echo $? >>"$out/$name.diff"
	fi
done
if [ -n "$corpus" ]; then
	cd "$corpus" || exit 2
	for fmt in text sarif json; do
		"$bin" --color never --format $fmt . >"$out/corpus.$fmt" 2>"$out/corpus.$fmt.err"
		echo $? >>"$out/corpus.$fmt"
	done
	srcroot "$out/corpus.sarif"
	"$bin" --color never --explain . >"$out/corpus.explain" 2>&1
	echo $? >>"$out/corpus.explain"
fi
echo "capture: $(ls "$out" | wc -l) files in $out"
