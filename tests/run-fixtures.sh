#!/bin/sh
# Golden tests: every directory under fixtures/ that holds an `expected.exit` is one case.
#   manifest.yaml | manifest.json   the input (or every input listed in `args`)
#   nodes.yaml, pods.yaml           passed as --nodes / --pods when present
#   args                            extra arguments, one line (replaces the defaults above)
#   expected.txt                    stdout of the text format (no colour)
#   expected.err                    stderr, when the case is about input errors
#   expected.sarif                  stdout of --format sarif (kept for the SARIF validator)
#   expected.github                 stdout of --format github (workflow commands), when present
#   expected.codeclimate            stdout of --format codeclimate (GitLab Code Quality), when present
#   expected.junit                  stdout of --format junit (JUnit XML), when present
#   expected.exit                   the exit status
#   fixed.yaml                      what --fix makes of manifest.yaml; the fixed file must lint clean
# UPDATE=1 rewrites the expected files from the current output; ONLY=<prefix> runs only the cases
# whose name (rule/case) starts with it; SHARD=k/n only every n-th case from the k-th (k < n), so
# that slow runs (valgrind) can split the suite; no case found is a failure. ONE_RUN=1 runs each case
# once, every report written by that run (-o), and --fix once, where the default runs each format on
# its own and checks the fixed file twice more: for valgrind, whose start costs a second a run. A
# failure prints a unified diff. Usage: run-fixtures.sh SCHEDLINT SARIF_OUT_DIR    Last line: fixtures: N passed, M failed, S skipped
set -u
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
mkdir -p "$2"
sarif_out=$(cd "$2" && pwd)
root=$(cd "$(dirname "$0")/.." && pwd)
. "$root/tests/lib.sh"
# The SARIF and GitHub goldens' paths are relative to the repository root, the directory holding
# .git; in a copy without it the tool anchors them to each case's directory, so they are not
# compared: each is a skipped check, listed at the end.
git=
[ -e "$root/.git" ] && git=1
unanchored=0
shard=${SHARD:-0/1} index=-1
one=${ONE_RUN:-}
[ -n "$one" ] && [ "${UPDATE:-}" = 1 ] && { echo "run-fixtures.sh: ONE_RUN and UPDATE together: UPDATE needs the separate runs" >&2; exit 2; }
shard_k=${shard%/*} shard_n=${shard#*/}
for exitfile in $(find "$root/fixtures" -name expected.exit | sort); do
	dir=$(dirname "$exitfile")
	name=${dir#"$root/fixtures/"}
	case $name in "${ONLY:-}"*) ;; *) continue ;; esac
	index=$((index + 1))
	[ $((index % shard_n)) -eq "$shard_k" ] || continue
	cd "$dir" || continue
	if [ -f args ]; then
		set -- $(cat args)
	else
		set --
		[ -f nodes.yaml ] && set -- "$@" --nodes nodes.yaml
		[ -f pods.yaml ] && set -- "$@" --pods pods.yaml
		for m in manifest.yaml manifest.json; do [ -f "$m" ] && set -- "$@" "$m"; done
	fi
	ok=1
	if [ -n "$one" ]; then
		# Every report of the case from one run (-o per --format), as the same run writes them.
		set -- "$@" --format text -o "$tmp/out" --format sarif -o "$tmp/sarif.raw" --format json -o /dev/null
		for fmt in github codeclimate junit; do
			[ -f expected.$fmt ] && set -- "$@" --format $fmt -o "$tmp/$fmt"
		done
		rm -f "$tmp/out" "$tmp/sarif.raw" "$tmp/github" "$tmp/codeclimate" "$tmp/junit"
		"$bin" --color never "$@" 2>"$tmp/err"
		rc=$?
		touch "$tmp/out" "$tmp/sarif.raw" # a report not written is an empty one
	else
		"$bin" --color never "$@" >"$tmp/out" 2>"$tmp/err"
		rc=$?
		"$bin" --color never --format sarif "$@" >"$tmp/sarif.raw" 2>/dev/null
		for fmt in github codeclimate junit; do
			[ -f expected.$fmt ] && "$bin" --format $fmt "$@" >"$tmp/$fmt" 2>/dev/null
		done
		"$bin" --color never --format json "$@" >/dev/null 2>"$tmp/jerr"
		[ -s "$tmp/jerr" ] && grep -q -e 'Sanitizer' -e 'runtime error' "$tmp/jerr" && { echo "FAIL $name: sanitizer report in --format json"; ok=0; }
	fi
	if [ $rc -ge 3 ] || grep -q -e 'Sanitizer' -e 'runtime error' "$tmp/err"; then
		echo "FAIL $name: crashed or sanitizer report (exit $rc)"
		cat "$tmp/err"
		ok=0
	fi
	# SARIF locations are relative to the repository root (SRCROOT), whose absolute URI is the
	# one machine-dependent line: it is compared as file:///SRCROOT/.
	sed '/"SRCROOT":/{n;s|"file://[^"]*"|"file:///SRCROOT/"|;}' "$tmp/sarif.raw" >"$tmp/sarif"
	safe=$(echo "$name" | tr '/' '_')
	cp "$tmp/sarif" "$sarif_out/$safe.sarif"
	# Every run writes a SARIF log, input errors included; none means the arguments cannot be
	# given with --format sarif (--explain, say), and the validator would get an empty file.
	[ -s "$tmp/sarif" ] || { echo "FAIL $name: --format sarif wrote nothing (args that exclude it?)"; ok=0; }
	if [ "${UPDATE:-}" = 1 ]; then
		cp "$tmp/out" expected.txt
		echo $rc >expected.exit
		[ -f expected.err ] || [ -s "$tmp/err" ] && cp "$tmp/err" expected.err
		cp "$tmp/sarif" expected.sarif
		for fmt in github codeclimate junit; do
			[ -f expected.$fmt ] && cp "$tmp/$fmt" expected.$fmt
		done
	fi
	for f in txt:out err:err sarif:sarif github:github codeclimate:codeclimate junit:junit; do
		exp=expected.${f%%:*}
		got=$tmp/${f#*:}
		[ -f "$exp" ] || continue
		case $exp in expected.sarif | expected.github | expected.codeclimate | expected.junit) [ -z "$git" ] && unanchored=$((unanchored + 1)) && continue ;; esac
		if ! diff -u "$exp" "$got" >"$tmp/diff"; then
			echo "FAIL $name: $exp differs"
			cat "$tmp/diff"
			ok=0
		fi
	done
	if [ "$(cat expected.exit)" != "$rc" ]; then
		echo "FAIL $name: exit status $rc, expected $(cat expected.exit)"
		ok=0
	fi
	for fixed in fixed.yaml fixed.json; do
		[ -f "$fixed" ] || continue
		input=manifest.${fixed#fixed.}
		mkdir -p "$tmp/fix"
		cp "$input" "$tmp/fix/$input"
		# the case's own arguments, with the input swapped for the copy
		set --
		[ -f nodes.yaml ] && set -- "$@" --nodes "$dir/nodes.yaml"
		[ -f pods.yaml ] && set -- "$@" --pods "$dir/pods.yaml"
		(cd "$tmp/fix" && "$bin" --color never --fix "$@" "$input" >/dev/null 2>&1)
		[ "${UPDATE:-}" = 1 ] && cp "$tmp/fix/$input" "$fixed"
		if ! diff -u "$fixed" "$tmp/fix/$input" >"$tmp/diff"; then
			echo "FAIL $name: --fix result differs from $fixed"
			cat "$tmp/diff"
			ok=0
		fi
		# One run per case: that the fixed file lints clean and a second --fix keeps it is the
		# fast suite's to check.
		[ -n "$one" ] && { rm -rf "$tmp/fix"; continue; }
		if ! (cd "$tmp/fix" && "$bin" --color never "$@" "$input" >"$tmp/refix" 2>&1); then
			echo "FAIL $name: the fixed manifest does not lint clean"
			cat "$tmp/refix"
			ok=0
		fi
		(cd "$tmp/fix" && "$bin" --color never --fix "$@" "$input" >/dev/null 2>&1)
		if ! cmp -s "$fixed" "$tmp/fix/$input"; then
			echo "FAIL $name: a second --fix changed the file again"
			ok=0
		fi
		rm -rf "$tmp/fix"
	done
	if [ $ok = 1 ]; then pass=$((pass + 1)); else fail=$((fail + 1)); fi
done
[ $unanchored -eq 0 ] || skip "expected.sarif and expected.github ($unanchored files)" \
	"not a git checkout: their paths are relative to the repository root" $unanchored
finish fixtures
