#!/bin/sh
# make check: every suite, the binaries built with AddressSanitizer + UndefinedBehaviorSanitizer.
# Suites that read ../shared (conformance, corpus, SARIF validation) run when it is there and say
# so when it is not. The last line is the summary CI looks for:
#   schedlint check: PASS|FAIL (…)
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

run() { # name, command...
	name=$1
	shift
	echo "== $name"
	if "$@" >"$out/$name.log" 2>&1; then
		tail -n 1 "$out/$name.log"
	else
		cat "$out/$name.log"
		failed="$failed $name"
	fi
	summary="$summary; $(tail -n 1 "$out/$name.log")"
}

run unit build/asan/unit
run fixtures sh tests/run-fixtures.sh build/asan/schedlint "$out/sarif"
run cli sh tests/run-cli.sh build/asan/schedlint "$out/sarif"
run fix sh tests/run-fix.sh build/asan/schedlint
run docs sh tests/run-docs.sh build/asan/schedlint
run patterns sh tests/run-patterns.sh build/asan/schedlint ./schedlint
if [ -d "$SHARED/conformance/cases" ]; then
	run conformance build/asan/conformance "$SHARED/conformance/cases" -v
else
	echo "== conformance: skipped ($SHARED/conformance not found)"
	summary="$summary; conformance skipped"
fi
if [ -d "$SHARED/corpus" ]; then
	run corpus sh tests/run-corpus.sh build/asan/schedlint "$SHARED/corpus"
else
	echo "== corpus: skipped ($SHARED/corpus not found)"
	summary="$summary; corpus skipped"
fi
if [ -x "$SHARED/tools/sarif-validate" ] && command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1; then
	run sarif-validate "$SHARED/tools/sarif-validate" "$out"/sarif/*.sarif
else
	echo "== sarif-validate: skipped (needs $SHARED/tools/sarif-validate, node and npm)"
	summary="$summary; sarif-validate skipped"
fi
summary=${summary#; }
if [ -n "$failed" ]; then
	echo "schedlint check: FAIL (failed:$failed) ($summary)"
	exit 1
fi
echo "schedlint check: PASS ($summary)"
