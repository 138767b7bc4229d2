#!/bin/sh
# `make bench`: how long schedlint takes, and how much memory it holds, to check a cluster-sized
# input: 5,000 nodes, 20,000 running pods and 10,000 workloads (about 40 MB of YAML), generated
# deterministically by tests/bench.c. Reports the best wall time of 3 runs and the peak RSS.
# The targets it prints (under 1 s and 500 MB on 2 cores) are not enforced: a slow run still
# exits 0. It exits non-zero only when the benchmark itself cannot run, e.g. when schedlint
# rejects the generated input (exit 2), which would make the timing meaningless.
set -u
cd "$(dirname "$0")/.." || exit 1

bin=build/bench
data=build/bench-data
mkdir -p build || exit 1

# find -newer rather than test -nt, which POSIX sh need not have.
if [ ! -x "$bin" ] || [ -n "$(find tests/bench.c -newer "$bin")" ]; then
	flags="-std=c11 -Wall -Wextra -Werror -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE -O2"
	echo "${CC:-cc} $flags -o $bin tests/bench.c"
	# Unquoted: CC may carry words of its own ("ccache gcc"), as it may for make.
	# shellcheck disable=SC2086
	${CC:-cc} $flags -o "$bin" tests/bench.c || exit 1
fi

stale=
for f in nodes pods workloads; do
	if [ ! -f "$data/$f.yaml" ] || [ -n "$(find tests/bench.c -newer "$data/$f.yaml")" ]; then
		stale=1
	fi
done
if [ -n "$stale" ]; then
	"$bin" gen "$data" || exit 1
fi

"$bin" run ./schedlint "$data"
