#!/bin/sh
# The GitHub Action and the workflows. action.yml, .github/workflows/*.yml and
# docs/github-actions-example.yml are validated against GitHub's schemas by @action-validator/cli
# (from npm, installed under build/npm on first use), and deliberately broken copies must be
# rejected, so a validator that passes everything fails here. Then the action's own bash steps
# are run as the runner would run them (GITHUB_ACTION_PATH, GITHUB_OUTPUT, the inputs as its env
# maps them) on fixtures: the annotations printed, the outputs set, the step's status.
# Needs npm and bash. Usage: run-actions.sh SCHEDLINT    Last line: actions: N passed, M failed
set -u
[ $# -eq 1 ] && [ -x "$1" ] || { echo "usage: $0 SCHEDLINT" >&2; exit 2; }
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root" || exit 2
. "$root/tests/lib.sh"

validator=build/npm/node_modules/.bin/action-validator
if [ ! -x "$validator" ]; then
	echo "installing @action-validator/cli under build/npm"
	npm install --prefix build/npm --no-audit --no-fund --loglevel=error @action-validator/cli@0.6.0 \
		>"$tmp/npm.log" 2>&1 || { cat "$tmp/npm.log"; echo "actions: 0 passed, 1 failed"; exit 1; }
fi
# The validator tells an action from a workflow by the file's name (action.yml or not).
valid() { "$validator" "$1" >"$tmp/v.log" 2>&1; }
for f in action.yml .github/workflows/*.yml docs/github-actions-example.yml; do
	if valid "$f"; then ok; else bad "$f does not validate" "$tmp/v.log"; fi
done
mkdir -p "$tmp/broken"
rejects() { # description; the broken file is $tmp/broken/$2
	if valid "$tmp/broken/$2"; then bad "the validator accepts $1"; else ok; fi
}
sed 's/using: composite/using: compositee/' action.yml >"$tmp/broken/action.yml"
rejects "an action with an unknown runs.using" action.yml
sed 's/security-events: write/security-events: writ/' docs/github-actions-example.yml >"$tmp/broken/perm.yml"
rejects "a workflow with a bad permission" perm.yml
sed '/runs-on:/d' docs/github-actions-example.yml >"$tmp/broken/no-runner.yml"
rejects "a workflow job without runs-on" no-runner.yml

# What the action and the example promise, read from the files.
grep -q -F 'uses: github/codeql-action/upload-sarif@v4' action.yml && ok || bad "action.yml: upload-sarif@v4"
awk '/- name: Upload SARIF/ { s = 1 } s && /continue-on-error: true/ { f = 1 } s && /uses:/ { exit } END { exit !f }' \
	action.yml && ok || bad "action.yml: the upload step continues on error"
for p in 'security-events: write' 'actions: read' 'contents: read'; do
	grep -q "^  $p" docs/github-actions-example.yml && ok || bad "the example's permissions: $p"
done

# The body of the `run: |` of the step named $1 in action.yml, indentation removed.
step() {
	awk -v name="$1" '
	$0 ~ "^ *- name: " name "$" { in_step = 1; next }
	in_step && /^ *- name: / { exit }
	in_step && !body && /^ *run: \|/ { body = 1; ind = -1; next }
	body && /^ *$/ { print ""; next }
	body { match($0, /^ */); if (ind < 0) ind = RLENGTH; if (RLENGTH < ind) exit; print substr($0, ind + 1) }
	' action.yml
}
step "Run schedlint" >"$tmp/run.sh"
step "Exit with schedlint's status" >"$tmp/exit.sh"
[ -s "$tmp/run.sh" ] && [ -s "$tmp/exit.sh" ] && ok || bad "action.yml: the run and exit steps not found"
mkdir -p "$tmp/action"
ln -s "$bin" "$tmp/action/schedlint"

# Run the action's steps in a workspace made from a fixture directory: run-action DIR PATHS NODES
# [ANNOTATIONS]; stdout in $tmp/log, the outputs in $tmp/outputs, the exit step's status in $st.
run_action() {
	rm -rf "$tmp/ws"
	cp -R "$1" "$tmp/ws"
	mkdir -p "$tmp/ws/.git"
	: >"$tmp/outputs"
	(cd "$tmp/ws" && GITHUB_ACTION_PATH=$tmp/action GITHUB_OUTPUT=$tmp/outputs SL_PATHS=$2 SL_NODES=$3 \
		SL_PODS= SL_FAIL_ON=error SL_SARIF=reports/schedlint.sarif SL_ANNOTATIONS=${4:-true} \
		bash -e "$tmp/run.sh") >"$tmp/log" 2>&1
	rc=$(sed -n 's/^exit-code=//p' "$tmp/outputs")
	RC=$rc SL_FAIL_ON=error bash -e "$tmp/exit.sh" >>"$tmp/log" 2>&1
	st=$?
}
seed=fixtures/rollout-deadlock/seed-gpu-tracker
run_action $seed manifest.yaml nodes.yaml
grep -q -F '::error file=manifest.yaml,line=11,col=1,endLine=11,endColumn=5,title=rollout-deadlock::rollout of Deployment' \
	"$tmp/log" && ok || bad "action: the finding as an annotation" "$tmp/log"
grep -q -x 'exit-code=1' "$tmp/outputs" && ok || bad "action: exit-code=1" "$tmp/outputs"
grep -q -x 'sarif-file=reports/schedlint.sarif' "$tmp/outputs" && grep -q '"ruleId":	"rollout-deadlock"' \
	"$tmp/ws/reports/schedlint.sarif" && ok || bad "action: the SARIF report" "$tmp/outputs"
[ "$st" = 1 ] && grep -q -F "::error title=schedlint::findings at or above 'error'" "$tmp/log" && ok ||
	bad "action: the last step fails on the findings (status $st)" "$tmp/log"
run_action $seed manifest.yaml nodes.yaml false
esc=$(printf '\033')
sed "s/$esc\[[0-9;]*m//g" "$tmp/log" >"$tmp/plain" # the text is coloured for the log
grep -q -F 'manifest.yaml:11:1: error: rollout of Deployment' "$tmp/plain" && ! grep -q '^::error file=' "$tmp/log" &&
	ok || bad "action: annotations 'false' prints text" "$tmp/log"
# the fixed manifest is clean
cp $seed/fixed.yaml "$tmp/fixed.yaml"
mkdir -p "$tmp/clean"
cp $seed/nodes.yaml "$tmp/fixed.yaml" "$tmp/clean/"
run_action "$tmp/clean" fixed.yaml nodes.yaml
[ "$st" = 0 ] && grep -q -x 'exit-code=0' "$tmp/outputs" && ! grep -q '^::' "$tmp/log" && ok ||
	bad "action: a clean manifest passes (status $st)" "$tmp/log"
# a repository with a chart, a workflow and tsconfig.json, paths '.': the deadlock, not an input error
run_action fixtures/repository/ordinary-repo . cluster/nodes.yaml
grep -q -x 'exit-code=1' "$tmp/outputs" && grep -q -F '::notice file=charts/web/Chart.yaml,line=1,' "$tmp/log" &&
	grep -q -F '::error file=deploy/tracker/deployment.yaml,line=11,' "$tmp/log" && ok ||
	bad "action: an ordinary repository with paths '.'" "$tmp/log"
# an input error: exit-code 2, the step fails with it
printf 'apiVersion: v1\nkind: Pod\nmetadata: {name: [x\n' >"$tmp/clean/broken.yaml"
run_action "$tmp/clean" broken.yaml ''
[ "$st" = 2 ] && grep -q -F '::error file=broken.yaml,line=4,col=1' "$tmp/log" && ok ||
	bad "action: an input error fails the step with status 2 (status $st)" "$tmp/log"
run_action "$tmp/clean" '' ''
[ "$st" = 2 ] && grep -q -F "::error title=schedlint::input 'paths' is empty" "$tmp/log" && ok ||
	bad "action: empty paths (status $st)" "$tmp/log"
finish actions
