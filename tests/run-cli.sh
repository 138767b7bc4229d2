#!/bin/sh
# The command line as a user meets it: help, version, rule list, usage errors, stdin, directories,
# --output, --fail-on, colour only on request, exit statuses. Usage: run-cli.sh SCHEDLINT
set -u
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
cd "$(dirname "$0")/../fixtures" || exit 1
pass=0
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
seed=rollout-deadlock/seed-gpu-tracker

expect() { # description, expected exit, command...
	d=$1 want=$2
	shift 2
	"$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	if [ "$rc" != "$want" ] || grep -q -e Sanitizer -e 'runtime error' "$tmp/err"; then
		echo "FAIL $d: exit $rc, expected $want"
		sed 's/^/  | /' "$tmp/err" | head -20
		fail=$((fail + 1))
	else
		pass=$((pass + 1))
	fi
}
has() { # description, file, fixed string
	if grep -q -F -- "$3" "$2"; then pass=$((pass + 1)); else
		echo "FAIL $1: '$3' not in output"
		sed 's/^/  | /' "$2" | head -20
		fail=$((fail + 1))
	fi
}
hasnt() {
	if grep -q -F -- "$3" "$2"; then
		echo "FAIL $1: '$3' in output"
		fail=$((fail + 1))
	else pass=$((pass + 1)); fi
}

expect "--help" 0 "$bin" --help
has "--help lists --nodes" "$tmp/out" "--nodes FILE"
expect "--version" 0 "$bin" --version
has "--version" "$tmp/out" "schedlint "
expect "--list-rules" 0 "$bin" --list-rules
has "--list-rules" "$tmp/out" "rollout-deadlock"
has "--list-rules" "$tmp/out" "unschedulable"
# Every rule the binary lists is documented where a user looks (its page, README's table, the man
# page) and has fixtures.
sed 's/\\-/-/g' ../docs/schedlint.1 >"$tmp/man" # roff writes a hyphen as \-
for id in $(awk '{print $1}' "$tmp/out"); do
	if [ -f "../docs/rules/$id.md" ] && grep -q -F "[\`$id\`]" ../README.md &&
		grep -q -x -F ".B $id" "$tmp/man" && [ -d "$id" ]; then
		pass=$((pass + 1))
	else
		echo "FAIL rule $id: needs docs/rules/$id.md, a README row, a man page entry and fixtures/$id/"
		fail=$((fail + 1))
	fi
done
expect "no arguments" 2 "$bin"
has "no arguments" "$tmp/err" "no manifests given"
expect "unknown option" 2 "$bin" --frobnicate x.yaml
expect "bad --format" 2 "$bin" --format xml $seed/manifest.yaml
expect "bad --fail-on" 2 "$bin" --fail-on panic $seed/manifest.yaml
expect "missing --nodes file" 2 "$bin" --nodes nope.yaml $seed/manifest.yaml
has "missing --nodes file" "$tmp/err" "nope.yaml:1:1: error: cannot open file"

# stdin, and the same verdict as from the file
expect "stdin" 1 sh -c "'$bin' --nodes $seed/nodes.yaml - < $seed/manifest.yaml"
has "stdin" "$tmp/out" "<stdin>:11:1: error:"
# without nodes the node-dependent rules stay silent
expect "no inventory" 0 "$bin" $seed/manifest.yaml
# a directory is searched recursively; only *.yaml/*.yml/*.json are read
mkdir -p "$tmp/tree/a/b"
cp $seed/manifest.yaml "$tmp/tree/a/b/deploy.yml"
echo "not: [yaml" >"$tmp/tree/a/notes.txt"
expect "directory" 1 "$bin" --nodes $seed/nodes.yaml "$tmp/tree"
has "directory" "$tmp/out" "tree/a/b/deploy.yml:11:1: error:"
# Nodes among the manifests are an inventory too
expect "nodes among manifests" 1 "$bin" $seed/nodes.yaml $seed/manifest.yaml
# --output
expect "--output" 1 "$bin" --format sarif --output "$tmp/r.sarif" --nodes $seed/nodes.yaml $seed/manifest.yaml
has "--output" "$tmp/r.sarif" '"ruleId":	"rollout-deadlock"'
expect "--output to a bad path" 2 "$bin" --output /nonexistent/dir/r.txt $seed/manifest.yaml
# --fail-on: errors are at or above every level
expect "--fail-on note" 1 "$bin" --fail-on note --nodes $seed/nodes.yaml $seed/manifest.yaml
expect "clean with --fail-on note" 0 "$bin" --fail-on note --nodes $seed/nodes.yaml rollout-deadlock/seed-recreate/manifest.yaml
# colour only on request (stdout is not a terminal here)
expect "no colour on a pipe" 1 "$bin" --nodes $seed/nodes.yaml $seed/manifest.yaml
hasnt "no colour on a pipe" "$tmp/out" "$(printf '\033')"
expect "--color always" 1 "$bin" --color always --nodes $seed/nodes.yaml $seed/manifest.yaml
has "--color always" "$tmp/out" "$(printf '\033[1;31m')"
# json carries the finding, its notes and its fixes
expect "json" 1 "$bin" --format json --nodes $seed/nodes.yaml $seed/manifest.yaml
has "json" "$tmp/out" '"rule":	"rollout-deadlock"'
has "json" "$tmp/out" 'maxSurge: 0\n'
# --fix on stdin is refused quietly: nothing to write back
expect "--fix keeps stdin alone" 1 sh -c "'$bin' --fix --nodes $seed/nodes.yaml - < $seed/manifest.yaml"
# an empty file and a file of comments are fine
: >"$tmp/empty.yaml"
printf '# nothing here\n---\n...\n' >"$tmp/comments.yaml"
expect "empty files" 0 "$bin" "$tmp/empty.yaml" "$tmp/comments.yaml"
# a megabyte scalar is just a long string
awk 'BEGIN { printf "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: big}\ndata:\n  blob: "; for (i = 0; i < 1048576; i++) printf "x"; printf "\n" }' >"$tmp/big.yaml"
expect "megabyte scalar" 0 "$bin" "$tmp/big.yaml"

# --explain: the per-node table and totals, in text and JSON, exit 0 even where rules would fire
expect "--explain text" 0 "$bin" --explain --nodes $seed/nodes.yaml $seed/manifest.yaml
has "--explain verdict" "$tmp/out" "tracker-node        1      -  pass"
has "--explain filter" "$tmp/out" "NodeAffinity: node(s) didn't match Pod's node affinity/selector"
has "--explain surge" "$tmp/out" "with the surge: 0 of 1 new pod fit beside them (1 at once); the rollout can never finish"
aa=anti-affinity-vs-node-affinity/three-replicas-two-web-nodes
expect "--explain sequential" 0 "$bin" --explain --nodes $aa/nodes.yaml $aa/manifest.yaml
has "--explain placed" "$tmp/out" "at once: 2 of 3 replicas, placed one after another as the scheduler would"
expect "--explain json" 0 "$bin" --explain --format json --nodes $seed/nodes.yaml $seed/manifest.yaml
has "--explain json deadlock" "$tmp/out" '"rollout_deadlock":	true'
has "--explain json reasons" "$tmp/out" '"limited_by":	"nvidia.com/gpu"'
expect "--explain without nodes" 0 "$bin" --explain $seed/manifest.yaml
has "--explain no nodes" "$tmp/out" "no nodes known"

# the config: found upward from the working directory up to the repository root, or given, or not
for o in --config --no-config --exclude --disable --show-suppressed; do
	"$bin" --help >"$tmp/out" 2>&1
	has "--help lists $o" "$tmp/out" "$o"
done
expect "--disable an unknown rule" 2 "$bin" --disable no-such-rule $seed/manifest.yaml
has "--disable an unknown rule" "$tmp/err" "unknown rule 'no-such-rule'"
expect "--disable" 0 "$bin" --disable rollout-deadlock --nodes $seed/nodes.yaml $seed/manifest.yaml
expect "--config missing" 2 "$bin" --config nope.schedlint.yaml $seed/manifest.yaml
has "--config missing" "$tmp/err" "nope.schedlint.yaml:1:1: error: cannot read the config file"
expect "--exclude bad pattern" 2 "$bin" --exclude '(' $seed/manifest.yaml
has "--exclude bad pattern" "$tmp/err" "invalid pattern '('"
expect "--exclude" 0 "$bin" --exclude 'seed-gpu-tracker/manifest' --nodes $seed/nodes.yaml $seed/manifest.yaml
mkdir -p "$tmp/repo/.git" "$tmp/repo/deploy/sub"
cp $seed/manifest.yaml "$tmp/repo/deploy/sub/app.yaml"
cp $seed/nodes.yaml "$tmp/repo/nodes.yaml"
printf 'nodes: [nodes.yaml]\nrules: {rollout-deadlock: warning}\n' >"$tmp/repo/.schedlint.yaml"
expect "config found upward" 0 sh -c "cd '$tmp/repo/deploy' && '$bin' sub"
has "config found upward: its level" "$tmp/out" "sub/app.yaml:11:1: warning:"
expect "--no-config" 0 sh -c "cd '$tmp/repo/deploy' && '$bin' --no-config sub"
hasnt "--no-config: no inventory from the config" "$tmp/out" "rollout-deadlock"
printf 'rules: {rollout-deadlock: warning}\n' >"$tmp/above.yaml"
cp "$tmp/above.yaml" "$tmp/repo/../.schedlint.yaml" # above the repository root: not read
rm "$tmp/repo/.schedlint.yaml"
expect "the walk stops at the repository root" 1 sh -c "cd '$tmp/repo/deploy' && '$bin' --nodes ../nodes.yaml sub"
rm "$tmp/.schedlint.yaml"
# --fix leaves suppressed findings alone
printf 'ignore:\n  - rules: [rollout-deadlock]\n    reason: drained by hand\n' >"$tmp/repo/.schedlint.yaml"
expect "suppressed: exit 0" 0 sh -c "cd '$tmp/repo' && '$bin' --fix --nodes nodes.yaml deploy"
cmp -s $seed/manifest.yaml "$tmp/repo/deploy/sub/app.yaml" && pass=$((pass + 1)) || {
	echo "FAIL --fix changed a file whose only finding is suppressed"
	fail=$((fail + 1))
}
expect "--show-suppressed" 0 sh -c "cd '$tmp/repo' && '$bin' --show-suppressed --nodes nodes.yaml deploy"
has "--show-suppressed" "$tmp/out" "[rollout-deadlock] (suppressed: drained by hand)"
expect "json: suppressed" 0 sh -c "cd '$tmp/repo' && '$bin' --format json --nodes nodes.yaml deploy"
has "json: suppressed" "$tmp/out" '"suppressed":	true'
printf 'policies:\n  - {id: no-latest, message: pin images, field: "podspec.containers[*].image", forbid: ":latest$"}\n' \
	>"$tmp/repo/.schedlint.yaml"
expect "--list-rules with policies" 0 sh -c "cd '$tmp/repo' && '$bin' --list-rules"
has "--list-rules with policies" "$tmp/out" "(policy from the config)"
echo "cli: $pass passed, $fail failed"
[ $fail -eq 0 ]
