#!/bin/sh
# The console examples of the docs, run for real: in README.md and docs/**/*.md, every fenced
# ```console block whose lines start with `$ ` is run in the fixture directory named by a marker
# comment just above the fence,
#   <!-- in: fixtures/<rule>/<case> -->
# and the lines after each `$ ` command, up to the next `$ ` line or the end of the block, must be
# what the command prints (stdout and stderr together; never a terminal, NO_COLOR=1).
# `$ echo $?` prints the status of the command before it. Commands run with `sh -c` in a scratch
# copy of the directory, one copy per block, so --fix, cp and redirections leave the repository
# alone; `schedlint` is the binary given as the argument. A block without a marker fails, and so
# does any other fenced block whose first line starts with `$ ` (write it as ```console with a
# marker): an example that is not run is not known to be true. One that cannot be run here (it
# needs a cluster, helm, the network) says so deliberately with
#   <!-- unchecked: why -->
# just above its fence: it is not run, and its commands are listed as skipped, with the reason.
# A fenced block just below a marker comment
#   <!-- file: fixtures/<dir>/<file> -->
# (README's example .schedlint.yaml, for one) must be that file byte for byte, the fence's
# indentation removed; each counts as one example, and a marker with no block below it fails.
# Usage: run-docs.sh SCHEDLINT      Last line: docs: N examples, M failed, S skipped
set -u
[ $# -eq 1 ] && [ -x "$1" ] || { echo "usage: $0 SCHEDLINT" >&2; exit 2; }
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
root=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/bin" "$tmp/blocks" "$tmp/files"
ln -s "$bin" "$tmp/bin/schedlint"
PATH=$tmp/bin:$PATH
NO_COLOR=1
export PATH NO_COLOR
cd "$root" || exit 2

# Split the docs into blocks: $tmp/blocks/NNNN holds a header line "doc<TAB>line<TAB>dir<TAB>why"
# (dir "!" without a marker, "-" for a block that is not ```console; why the reason of an
# unchecked marker, or empty), then the block's lines with the fence's indentation removed. A block under a file marker goes to $tmp/files/NNNN the same
# way, with "doc<TAB>line<TAB>path<TAB>found" as its header (found is 0 for a marker with no
# block below it).
{ echo README.md; find docs -name '*.md' | sort; } | while IFS= read -r doc; do
	awk -v doc="$doc" -v out="$tmp/blocks" -v start="$(ls "$tmp/blocks" | wc -l)" \
		-v fout="$tmp/files" -v fstart="$(ls "$tmp/files" | wc -l)" '
	function flush() {
		if (dollar && (console || first ~ /^\$ /)) {
			f = sprintf("%s/%05d", out, start + (++k))
			printf "%s\t%d\t%s\t%s\n", doc, at, console ? (dir == "" ? "!" : dir) : "-", why > f
			for (i = 1; i <= n; i++) print body[i] > f
			close(f)
		}
		n = 0; dollar = 0
	}
	function quoted(path, line, found) {
		f = sprintf("%s/%05d", fout, fstart + (++fk))
		printf "%s\t%d\t%s\t%d\n", doc, line, path, found > f
		for (i = 1; found && i <= n; i++) print body[i] > f
		close(f)
	}
	/^[ \t]*<!-- in: [^ ]+ -->[ \t]*$/ { mark = $3; markline = NR; next }
	/^[ \t]*<!-- unchecked: .* -->[ \t]*$/ {
		umark = $0; sub(/^[ \t]*<!-- unchecked: /, "", umark); sub(/ -->[ \t]*$/, "", umark)
		umarkline = NR; next
	}
	/^[ \t]*<!-- file: [^ ]+ -->[ \t]*$/ {
		if (fmark != "") quoted(fmark, fmarkline, 0)
		fmark = $3; fmarkline = NR; next
	}
	!inb && /^[ \t]*```/ {
		inb = 1; ind = $0; sub(/```.*/, "", ind)
		info = $0; sub(/^[ \t]*```[ \t]*/, "", info); sub(/[ \t]+$/, "", info)
		console = (info == "console"); at = NR; n = 0; first = ""
		dir = (NR - markline <= 3) ? mark : ""; mark = ""
		why = (NR - umarkline <= 3) ? umark : ""; umark = ""
		if (fmark != "" && NR - fmarkline > 3) quoted(fmark, fmarkline, 0)
		fpath = (NR - fmarkline <= 3) ? fmark : ""; fmark = ""
		next
	}
	inb && /^[ \t]*```[ \t]*$/ { if (fpath != "") quoted(fpath, at, 1); flush(); inb = 0; next }
	inb {
		line = $0
		if (substr(line, 1, length(ind)) == ind) line = substr(line, length(ind) + 1)
		body[++n] = line
		if (n == 1) first = line
		if (line ~ /^\$ /) dollar = 1
	}
	END { if (fmark != "") quoted(fmark, fmarkline, 0) }' "$doc"
done

total=0
failed=0
skipped=0
report() { # doc line cmd expected got
	total=$((total + 1))
	if ! diff -u "$4" "$5" >"$tmp/diff"; then
		failed=$((failed + 1))
		echo "FAIL $1:$2: \$ $3"
		sed -e "1s|.*|--- expected|" -e "2s|.*|+++ got|" "$tmp/diff"
	fi
}
# The files the docs quote; README's example config must be one of them.
if ! grep -q -x -F '<!-- file: fixtures/config/readme/.schedlint.yaml -->' README.md; then
	total=$((total + 1))
	failed=$((failed + 1))
	echo "FAIL README.md: the example .schedlint.yaml is not marked <!-- file: fixtures/config/readme/.schedlint.yaml -->"
fi
for block in "$tmp"/files/*; do
	[ -f "$block" ] || continue
	IFS='	' read -r doc at path found <"$block"
	sed 1d "$block" >"$tmp/quoted"
	total=$((total + 1))
	if [ "$found" = 0 ]; then
		failed=$((failed + 1))
		echo "FAIL $doc:$at: no fenced block below <!-- file: $path -->"
	elif [ ! -f "$root/$path" ]; then
		failed=$((failed + 1))
		echo "FAIL $doc:$at: no file $path"
	elif ! cmp -s "$root/$path" "$tmp/quoted"; then
		failed=$((failed + 1))
		echo "FAIL $doc:$at: the block is not $path, byte for byte"
		diff -u "$root/$path" "$tmp/quoted" | sed -e "1s|.*|--- $path|" -e "2s|.*|+++ $doc:$at|"
	fi
done
for block in "$tmp"/blocks/*; do
	[ -f "$block" ] || continue
	IFS='	' read -r doc at dir why <"$block"
	if [ "$dir" = ! ] || [ "$dir" = - ]; then
		c=$(grep -c '^\$ ' "$block")
		if [ -n "$why" ]; then
			skipped=$((skipped + c))
			echo "skip: $doc:$at: $c command(s): $why"
		else
			total=$((total + c))
			failed=$((failed + c))
			echo "FAIL $doc:$at: $c command(s) not run: without a <!-- in: DIR --> marker or not \`\`\`console (one that cannot run here is marked <!-- unchecked: why -->)"
		fi
		continue
	fi
	if [ ! -d "$root/$dir" ]; then
		failed=$((failed + 1))
		total=$((total + 1))
		echo "FAIL $doc:$at: no directory $dir"
		continue
	fi
	rm -rf "$tmp/work"
	cp -R "$root/$dir" "$tmp/work"
	rc=0
	cmd=
	prev=
	lineno=$at
	sed 1d "$block" >"$tmp/body"
	while IFS= read -r line; do
		lineno=$((lineno + 1))
		case $line in
		'$ '*)
			[ -n "$cmd" ] && report "$doc" "$cmdline" "$cmd" "$tmp/exp" "$tmp/got"
			cmd=${line#'$ '}
			cmdline=$lineno
			: >"$tmp/exp"
			if [ "$cmd" = 'echo $?' ]; then
				echo "$rc" >"$tmp/got"
				cmd="echo \$? (the status of: $prev)"
			else
				(cd "$tmp/work" && sh -c "$cmd") </dev/null >"$tmp/got" 2>&1
				rc=$?
				prev=$cmd
				# output without a final newline compares as if it had one
				[ -n "$(tail -c 1 "$tmp/got")" ] && echo >>"$tmp/got"
			fi
			;;
		*) [ -n "$cmd" ] && printf '%s\n' "$line" >>"$tmp/exp" ;;
		esac
	done <"$tmp/body"
	[ -n "$cmd" ] && report "$doc" "$cmdline" "$cmd" "$tmp/exp" "$tmp/got"
done
if [ $total -eq 0 ]; then
	failed=1
	echo "FAIL docs: no example found"
fi
echo "docs: $total examples, $failed failed, $skipped skipped"
[ $failed -eq 0 ]
