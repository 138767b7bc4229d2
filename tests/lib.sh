# tests/lib.sh — sourced by the suites that count checks: a scratch directory $tmp removed at
# exit, the pass and fail counts, ok, bad (a failure, with the end of a file that shows why) and
# the closing line, "SUITE: N passed, M failed", whose status is the suite's.
pass=0
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
ok() { pass=$((pass + 1)); }
bad() { # message, [file to show]
	echo "FAIL $1"
	[ -n "${2:-}" ] && sed 's/^/  | /' "$2" | tail -n 25
	fail=$((fail + 1))
}
finish() { # suite name, [text after the counts]
	echo "$1: $pass passed, $fail failed${2:-}"
	[ $fail -eq 0 ]
}
