# tests/lib.sh — sourced by the suites that count checks: a scratch directory $tmp removed at
# exit, the pass, fail and skip counts, ok, bad (a failure, with the end of a file that shows why),
# skip (a check that cannot run here: counted and shown as skipped, never as passed) and the
# closing line, "SUITE: N passed, M failed, S skipped", whose status is the suite's.
# A suite in which no check ran fails: a runner that finds nothing to check has checked nothing.
# run-all.sh collects the "skip: CHECK: WHY" lines of every suite and lists them at the end of
# `make check`.
pass=0
fail=0
skips=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
ok() { pass=$((pass + 1)); }
bad() { # message, [file to show]
	echo "FAIL $1"
	[ -n "${2:-}" ] && sed 's/^/  | /' "$2" | tail -n 25
	fail=$((fail + 1))
}
skip() { # check, why, [how many checks it stands for, 1 by default]
	echo "skip: $1: $2"
	skips=$((skips + ${3:-1}))
}
# A hang guard that no load can trip: the command is ended by SIGXCPU once it has used that much
# CPU time (a runaway loop; SIGKILL 5 s later if it ignores that), and after 10 minutes of wall
# time only if it blocks instead (a FIFO opened), a wait no run comes near. Its exit status is
# the command's (152 for SIGXCPU).
limited() { # CPU seconds, command...
	(
		ulimit -S -t "$1" || exit 125
		ulimit -H -t $(($1 + 5)) 2>/dev/null
		shift
		exec timeout 600 "$@"
	)
}
finish() { # suite name, [text after the counts]
	[ $((pass + fail)) -eq 0 ] && bad "$1: no check ran"
	echo "$1: $pass passed, $fail failed, $skips skipped${2:-}"
	[ $fail -eq 0 ]
}
