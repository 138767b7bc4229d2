#!/bin/sh
# make check: every suite, the binaries built with AddressSanitizer + UndefinedBehaviorSanitizer.
# Suites that read ../shared (conformance, corpus, SARIF validation) or need a tool (npm, pre-commit,
# vim, nvim) run when it is there and say they were skipped when it is not. Each suite prints its last
# line and how long it took; a slow one prints "progress: …" lines as it goes, shown at once, so
# no stage is silent for minutes. Every skip, a whole suite's or a check's (the "skip: CHECK: WHY"
# lines of tests/lib.sh), is listed before the summary, as "skip: SUITE: CHECK: WHY", and counted
# in it. The last line is the summary CI looks for:
#   schedlint check: PASS|FAIL (…; N skipped, listed above)
set -u
cd "$(dirname "$0")/.."
SHARED=${SHARED:-../shared}
export ASAN_OPTIONS="exitcode=86:detect_leaks=1:${ASAN_OPTIONS:-}"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:exitcode=87"
out=build/check
rm -rf "$out"
mkdir -p "$out/sarif"
failed=
summary=
: >"$out/skips"

# A suite's "progress: " lines as they come: the shell writes each at once, where sed and grep
# would hold them in a buffer until the suite ends whenever the output is not a terminal (CI).
progress() {
	while IFS= read -r line; do
		case $line in 'progress: '*) echo "${line#progress: }" ;; esac
	done
}
run() { # name, command...
	name=$1
	shift
	echo "== $name"
	start=$(date +%s)
	{
		"$@"
		echo $? >"$out/$name.rc"
	} 2>&1 | tee "$out/$name.log" | progress
	if [ "$(cat "$out/$name.rc")" = 0 ]; then
		echo "$(tail -n 1 "$out/$name.log") ($(($(date +%s) - start)) s)"
	else
		grep -v '^progress: ' "$out/$name.log"
		failed="$failed $name"
	fi
	summary="$summary; $(tail -n 1 "$out/$name.log")"
	sed -n "s/^skip: /skip: $name: /p" "$out/$name.log" >>"$out/skips"
}
skip() { # name, why
	echo "== $1: skipped ($2)"
	summary="$summary; $1 skipped"
	echo "skip: $1: the whole suite: $2" >>"$out/skips"
}

# The SARIF validator takes about two seconds a file, nearly all of it starting its tools, so the
# fixtures' one-run logs are first gathered into logs of 20 runs (tests/sarif-merge.js says why
# that checks the same thing). The first log goes alone, because the validator installs its npm
# tools on first use and two installs at once would race; then 4 logs to a call, as many calls at
# once as there are cores (up to 4). A log that fails is validated again file by file, so the
# report names the fixture's own file.
sarif_validate() { # files...
	total=$#
	jobs=$(nproc 2>/dev/null || echo 1)
	[ "$jobs" -gt 4 ] && jobs=4
	rm -rf "$out"/sarif-bad.* "$out/sarif-merged"
	node tests/sarif-merge.js "$out/sarif-merged" 20 "$@" >"$out/sarif-logs" || return 1
	set -- $(cat "$out/sarif-logs")
	"$SHARED/tools/sarif-validate" "$1" >"$out/sarif-first.log" 2>&1 || {
		cat "$out/sarif-first.log"
		echo "$1" >"$out/sarif-bad.first"
	}
	echo "progress: sarif-validate: $1 checked; $(($# - 1)) more logs, $jobs calls at a time"
	shift
	# the fixtures' names have no spaces or quotes: xargs splits the list into the files
	[ $# -eq 0 ] || printf '%s\n' "$@" | xargs -n 4 -P "$jobs" sh -c '
		validate=$1
		shift
		log=$0/sarif-batch.$$.log
		if "$validate" "$@" >"$log" 2>&1; then :; else cat "$log"; printf "%s\n" "$@" >"$0/sarif-bad.$$"; fi
		echo "progress: sarif-validate: $# logs checked, from $1"' "$out" "$SHARED/tools/sarif-validate"
	bad=$(cat "$out"/sarif-bad.* 2>/dev/null)
	if [ -z "$bad" ]; then
		echo "sarif-validate: $total files valid"
		return 0
	fi
	for log in $bad; do
		members=${log%.sarif}.members
		[ -f "$members" ] || continue
		echo "sarif-validate: the files of $log (validated in a call that failed), one by one:"
		"$SHARED/tools/sarif-validate" $(cat "$members") || :
	done
	echo "sarif-validate: $total files, invalid ones above"
	return 1
}

run unit build/asan/unit
run layout sh tests/run-layout.sh build/asan
run fixtures sh tests/run-fixtures.sh build/asan/schedlint "$out/sarif"
run cli sh tests/run-cli.sh build/asan/schedlint "$out/sarif"
run fix sh tests/run-fix.sh build/asan/schedlint
run kustomize sh tests/run-kustomize.sh build/asan/schedlint
run output sh tests/run-output.sh build/asan/schedlint build/asan/lspclient "$out/sarif"
run docs sh tests/run-docs.sh build/asan/schedlint
# The JSON Schema of .schedlint.yaml against the config reader (node; ajv and yaml from npm).
run schema sh tests/run-schema.sh build/asan/schedlint
run patterns sh tests/run-patterns.sh build/asan/schedlint ./schedlint
run fuzz-regressions sh tests/run-fuzz-regressions.sh build/asan
if [ -e .git ] && command -v git >/dev/null 2>&1; then
	run build sh tests/run-build.sh
else
	skip build "not a git checkout: the test builds a copy of what git would commit"
fi
if command -v npm >/dev/null 2>&1 && command -v bash >/dev/null 2>&1; then
	run actions sh tests/run-actions.sh build/asan/schedlint
else
	skip actions "needs npm for @action-validator/cli, and bash"
fi
run editors sh tests/run-editors.sh build/asan/schedlint
# The language server: the scripted client, 10,000 edits, the latency over the corpus when it is
# there, and Neovim's client when nvim is.
run lsp sh tests/run-lsp.sh build/asan/schedlint ./schedlint build/asan/lspclient "$SHARED/corpus"
if command -v pre-commit >/dev/null 2>&1 && [ -e .git ] && command -v git >/dev/null 2>&1; then
	run precommit sh tests/run-precommit.sh build/asan/schedlint
else
	skip precommit "needs pre-commit (Debian's package) and a git checkout"
fi
if [ -d "$SHARED/conformance/cases" ]; then
	run conformance build/asan/conformance "$SHARED/conformance/cases" -v
else
	skip conformance "$SHARED/conformance not found"
fi
# Preemption: the PostFilter's victims, nominations and whole FailedScheduling texts.
if [ -d "$SHARED/conformance-preempt/cases" ]; then
	run conformance-preempt build/asan/conformance "$SHARED/conformance-preempt/cases" -v
else
	skip conformance-preempt "$SHARED/conformance-preempt not found"
fi
# Releases: several workloads placed pod by pod as the scheduler would, in both orders, and the
# release view's findings against an exhaustive search (tests/conformance_release.c).
if [ -d "$SHARED/conformance-release/cases" ]; then
	run conformance-release build/asan/conformance "$SHARED/conformance-release/cases" -v
else
	skip conformance-release "$SHARED/conformance-release not found"
fi
if [ -d "$SHARED/corpus" ]; then
	run corpus sh tests/run-corpus.sh build/asan/schedlint "$SHARED/corpus"
else
	skip corpus "$SHARED/corpus not found"
fi
# Instructions, counted by callgrind (the same whatever the load): the release build over the
# corpus against a bare libyaml parse of the same files.
if [ -d "$SHARED/corpus" ] && command -v valgrind >/dev/null 2>&1; then
	run instructions sh tests/run-instructions.sh --limit 1.5 ./schedlint build/bareparse "$SHARED/corpus"
else
	skip instructions "needs valgrind and $SHARED/corpus"
fi
if [ -x "$SHARED/tools/sarif-validate" ] && command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1; then
	run sarif-validate sarif_validate "$out"/sarif/*.sarif
else
	skip sarif-validate "needs $SHARED/tools/sarif-validate, node and npm"
fi
skips=$(($(wc -l <"$out/skips")))
if [ $skips -gt 0 ]; then
	echo "== skipped: $skips"
	cat "$out/skips"
	summary="${summary#; }; $skips skipped, listed above"
else
	summary="${summary#; }; nothing skipped"
fi
if [ -n "$failed" ]; then
	echo "schedlint check: FAIL (failed:$failed) ($summary)"
	exit 1
fi
echo "schedlint check: PASS ($summary)"
