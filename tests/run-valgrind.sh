#!/bin/sh
# make check-valgrind: the whole fixture suite with the release build under valgrind's memcheck
# (leak check full). Any error or definite leak makes valgrind exit 99, which the fixture runner
# counts as a crash. Each case runs once with all its reports (ONE_RUN=1): valgrind takes about a
# second to start, which separate runs per format paid three times and more per case; the fast
# suite runs them one by one. Usage: run-valgrind.sh SCHEDLINT
set -u
command -v valgrind >/dev/null 2>&1 || { echo "valgrind: skipped (valgrind not installed)"; exit 0; }
root=$(cd "$(dirname "$0")/.." && pwd)
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat >"$tmp/schedlint" <<WRAP
#!/bin/sh
exec valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite \\
	--show-leak-kinds=definite "$bin" "\$@"
WRAP
chmod +x "$tmp/schedlint"
# Two shards at once: memcheck runs one process on one core, and the suite is most of CI's time.
SHARD=0/2 ONE_RUN=1 sh "$root/tests/run-fixtures.sh" "$tmp/schedlint" "$tmp/sarif0" >"$tmp/log0" 2>&1 &
pid0=$!
SHARD=1/2 ONE_RUN=1 sh "$root/tests/run-fixtures.sh" "$tmp/schedlint" "$tmp/sarif1" >"$tmp/log1" 2>&1 &
pid1=$!
failed=0
wait $pid0 || failed=1
wait $pid1 || failed=1
summary() { tail -n 1 "$tmp/log0"; tail -n 1 "$tmp/log1"; }
if [ $failed = 0 ]; then
	echo "valgrind: $(summary | tr '\n' ';' | sed 's/;$//; s/;/; /'), no memcheck error or leak"
else
	cat "$tmp/log0" "$tmp/log1" | grep -v '^ok' | head -n 60
	echo "valgrind: memcheck errors or leaks ($(summary | tr '\n' ' '))"
	exit 1
fi
