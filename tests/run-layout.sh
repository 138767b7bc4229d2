#!/bin/sh
# The layout holds (docs/architecture.md): a stage includes and calls only the stages below it, no
# two files call each other round a circle, no function is over 80 lines and no file over 800. Calls are read from the objects' symbol tables
# (nm), so a call made through a declaration written by hand counts as much as one through a
# header. Usage: run-layout.sh OBJDIR (the objects of linter/ and rules/, e.g. build/asan)
# Last line: layout: N passed, M failed, S skipped
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
objdir=$(cd "$1" && pwd)
. "$root/tests/lib.sh"
cd "$root" || exit 1

# The stages from the bottom up; a file's stage is its folder (run.c, and main.c with options.c, are their own).
ranks='linter/base/ 1
linter/load/ 2
linter/model/ 3
linter/sched/ 4
rules/ 5
linter/config/ 6
linter/report/ 7
linter/fix/ 8
linter/run. 9
linter/lsp/ 10
linter/options. 11
linter/main. 11'
echo "$ranks" >"$tmp/ranks"
# awk's rank(path): the rank of the longest prefix listed above, 0 for none.
RANK='function rank(p,    k, r, best) { r = 0; best = 0
	for (k in pre) if (index(p, k) == 1 && length(k) > best) { best = length(k); r = pre[k] }
	return r }
FILENAME == ranksfile { pre[$1] = $2; next }'
sources=$(find linter rules -name '*.[ch]' | sort)

# Every source in a stage the list above knows (a new folder must be placed in the order).
echo "$sources" | awk -v ranksfile="$tmp/ranks" "$RANK"' { if (!rank($0)) print $0 " is in no stage of tests/run-layout.sh" }' \
	"$tmp/ranks" - >"$tmp/unplaced"
if [ -s "$tmp/unplaced" ]; then
	bad "files in no stage:" "$tmp/unplaced"
else
	ok
fi

# Includes: the included file's path, resolved from the including file's folder.
awk '/^[[:space:]]*#[[:space:]]*include[[:space:]]*"/ {
		split($0, w, "\""); dir = FILENAME; sub(/\/[^\/]*$/, "", dir)
		n = split(dir "/" w[2], p, "/"); k = 0
		for (i = 1; i <= n; i++) { if (p[i] == "..") k--; else if (p[i] != ".") q[++k] = p[i] }
		s = q[1]; for (i = 2; i <= k; i++) s = s "/" q[i]; print FILENAME, s }' $sources >"$tmp/includes"
upward() { # file of "from to" lines -> the lines that go up a stage
	awk -v ranksfile="$tmp/ranks" "$RANK"' { if (rank($2) > rank($1)) print $1 " -> " $2 }' "$tmp/ranks" "$1"
}
upward "$tmp/includes" >"$tmp/up-includes"
if [ -s "$tmp/up-includes" ]; then
	bad "includes from a lower stage to a higher one:" "$tmp/up-includes"
else
	ok
fi

# Calls: file A -> file B when A's object needs a symbol B's object defines.
objects=$(find "$objdir/linter" "$objdir/rules" -name '*.o' 2>/dev/null | sort)
if [ -z "$objects" ]; then
	bad "no objects under $objdir/linter and $objdir/rules (build them first)"
else
	for o in $objects; do
		src=${o#"$objdir/"}
		src=${src%.o}.c
		[ -f "$src" ] || continue # left behind by a file since moved or removed
		nm "$o" | awk -v f="$src" '$1 == "U" { print "U", f, $2 } NF == 3 && $2 ~ /^[TDBR]$/ { print "D", f, $3 }'
	done >"$tmp/symbols"
	awk '$1 == "D" { def[$3] = $2 } $1 == "U" { use[++n] = $2 " " $3 }
		END { for (i = 1; i <= n; i++) { split(use[i], u, " "); if ((u[2] in def) && def[u[2]] != u[1]) print u[1], def[u[2]] } }' \
		"$tmp/symbols" | sort -u >"$tmp/calls"
	[ -s "$tmp/calls" ] && ok || bad "no call read between the objects (nm?)"
	upward "$tmp/calls" >"$tmp/up-calls"
	if [ -s "$tmp/up-calls" ]; then
		bad "calls from a lower stage to a higher one:" "$tmp/up-calls"
	else
		ok
	fi
	# A circle: a file that reaches itself through the calls (depth-first search, each file once).
	awk '{ out[$1] = out[$1] " " $2; files[$1]; files[$2] }
		function visit(f,    n, i, next_) {
			state[f] = 1; path[++depth] = f
			n = split(out[f], next_, " ")
			for (i = 1; i <= n; i++) {
				if (state[next_[i]] == 1) { circle(next_[i]); continue }
				if (!state[next_[i]]) visit(next_[i])
			}
			state[f] = 2; depth--
		}
		function circle(to,    i, s) {
			for (i = depth; i > 0 && path[i] != to; i--) s = " -> " path[i] s
			print to s " -> " to
		}
		END { for (f in files) if (!state[f]) visit(f) }' "$tmp/calls" | sort -u >"$tmp/circles"
	if [ -s "$tmp/circles" ]; then
		bad "files that call each other round a circle:" "$tmp/circles"
	else
		ok
	fi
fi

# Functions: from the first line of the definition to its closing brace (clang-format's Linux
# braces: a definition's body opens and closes at the start of a line).
for f in $(echo "$sources" | grep '\.c$'); do
	awk -v f="$f" '
		/^\{/ { if (start == 0) start = NR; body = NR; next }
		/^\}/ && body { n = NR - start + 1; if (n > 80) print f ":" start ": " n " lines: " name; body = 0; start = 0; next }
		body { next }
		/^$/ || /;[[:space:]]*$/ || /\*\/[[:space:]]*$/ || /^#/ || /^\}/ { start = 0; next }
		{ if (start == 0) { start = NR; name = $0 } }' "$f"
done >"$tmp/long"
if [ -s "$tmp/long" ]; then
	bad "functions over 80 lines:" "$tmp/long"
else
	ok
fi

for f in $sources; do
	n=$(wc -l <"$f")
	[ "$n" -gt 800 ] && echo "$f: $n lines"
done >"$tmp/large"
if [ -s "$tmp/large" ]; then
	bad "files over 800 lines:" "$tmp/large"
else
	ok
fi
finish layout
