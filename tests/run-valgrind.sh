#!/bin/sh
# make check-valgrind: the whole fixture suite with the release build under valgrind's memcheck
# (leak check full). Any error or definite leak makes valgrind exit 99, which the fixture runner
# counts as a crash. Usage: run-valgrind.sh SCHEDLINT
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
if sh "$root/tests/run-fixtures.sh" "$tmp/schedlint" "$tmp/sarif" >"$tmp/log" 2>&1; then
	echo "valgrind: $(tail -n 1 "$tmp/log"), no memcheck error or leak"
else
	grep -v '^ok' "$tmp/log" | head -n 60
	echo "valgrind: memcheck errors or leaks ($(tail -n 1 "$tmp/log"))"
	exit 1
fi
