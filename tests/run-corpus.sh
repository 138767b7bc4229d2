#!/bin/sh
# Robustness over the real-world corpus: every file alone (its own Nodes, if any, are its
# inventory), under the sanitizers. No crash, no sanitizer report, and the diagnostics must be
# exactly those judged true in tests/corpus-expected.txt (file: message, paths relative to the
# corpus). A file that holds no Kubernetes object (a values.yaml, a workflow) is the run's
# warning [no-manifest], about the run and not the file: not a diagnostic judged here.
# Usage: run-corpus.sh SCHEDLINT CORPUS_DIR
set -u
bin=$1
corpus=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
here=$(cd "$(dirname "$0")" && pwd)
find "$corpus" -type f \( -name '*.yaml' -o -name '*.yml' -o -name '*.json' \) | sort >"$tmp/files"
n=$(($(wc -l <"$tmp/files")))
if [ $n -eq 0 ]; then
	echo "corpus: no file found under $corpus: nothing checked"
	exit 1
fi
# Two at a time: the sanitizer build is slow to start.
xargs -P 2 -n 20 sh -c '
	bin=$0; tmp=$(mktemp -d)
	for f in "$@"; do
		"$bin" --color never "$f" >"$tmp/o" 2>"$tmp/e"; rc=$?
		if [ $rc -ge 3 ] || grep -q -e Sanitizer -e "runtime error" "$tmp/e"; then echo "CRASH $rc $f"; cat "$tmp/e"; fi
		grep -h -E ": (error|warning): " "$tmp/o" "$tmp/e" | grep -v -E "^schedlint: warning: .* \[no-manifest\]\$"
	done
	rm -rf "$tmp"' "$bin" <"$tmp/files" | sed "s|^$corpus/||" | sort >"$tmp/got"
if grep -q '^CRASH' "$tmp/got"; then
	grep -A20 '^CRASH' "$tmp/got"
	echo "corpus: $n files, CRASHED"
	exit 1
fi
grep -v '^#' "$here/corpus-expected.txt" | sed '/^$/d' | sort >"$tmp/want"
if ! diff -u "$tmp/want" "$tmp/got"; then
	echo "corpus: $n files, diagnostics differ from tests/corpus-expected.txt"
	exit 1
fi
# The whole corpus at once under --explain: every workload against all of the corpus's Node
# objects. Only the input errors and warnings judged above (the lines without a [rule-id]) may
# appear on stderr, and nothing may crash.
# The release is fixed: among the corpus's Nodes is a 1.11 kubelet, which would judge every file
# as 1.20 (the oldest release known) and warn at the fields 1.20 drops.
"$bin" --explain --kube-version 1.35 --color never "$corpus" >"$tmp/explain" 2>"$tmp/explain.err"
rc=$?
if [ $rc -ge 3 ] || grep -q -e Sanitizer -e "runtime error" "$tmp/explain.err" ||
	[ "$(grep -c -E ': (error|warning): ' "$tmp/explain.err")" != "$(grep -c -v -E ' \[[a-z0-9-]+\]$' "$tmp/want")" ]; then
	head -20 "$tmp/explain.err"
	echo "corpus: --explain over the whole corpus failed (exit $rc)"
	exit 1
fi
echo "corpus: $n files, no crash, $(wc -l <"$tmp/got") diagnostics, all judged true; --explain over all of it: $(grep -c '^  Kubernetes ' "$tmp/explain") workloads on $(sed -n 's/^  one pod: [0-9]* of \([0-9]*\) node.*/\1/p' "$tmp/explain" | head -1) nodes"
