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
step "Cache key" >"$tmp/key.sh"
step "Build schedlint" >"$tmp/build.sh"
step "Run schedlint" >"$tmp/run.sh"
step "Exit with schedlint's status" >"$tmp/exit.sh"
[ -s "$tmp/key.sh" ] && [ -s "$tmp/build.sh" ] && [ -s "$tmp/run.sh" ] && [ -s "$tmp/exit.sh" ] && ok ||
	bad "action.yml: the key, build, run and exit steps not found"
mkdir -p "$tmp/action/scripts"
# schedlint as the action runs it, each run counted: the action must run it once.
printf '#!/bin/sh\necho run >>"%s"\nexec "%s" "$@"\n' "$tmp/runs" "$bin" >"$tmp/action/schedlint"
chmod +x "$tmp/action/schedlint"
ln -s "$root/scripts/action-report.js" "$tmp/action/scripts/action-report.js"

# Run the action's steps in a workspace made from a fixture directory: run-action DIR PATHS NODES
# [ANNOTATIONS]; stdout in $tmp/log, the outputs in $tmp/outputs, the exit step's status in $st.
run_action() {
	rm -rf "$tmp/ws"
	cp -R "$1" "$tmp/ws"
	mkdir -p "$tmp/ws/.git"
	: >"$tmp/outputs"
	: >"$tmp/summary.md"
	: >"$tmp/runs"
	(cd "$tmp/ws" && GITHUB_ACTION_PATH=$tmp/action GITHUB_OUTPUT=$tmp/outputs SL_PATHS=$2 SL_NODES=$3 \
		SL_PODS= SL_FAIL_ON=error SL_SARIF=reports/schedlint.sarif SL_ANNOTATIONS=${4:-true} \
		SL_SUMMARY=true GITHUB_STEP_SUMMARY=$tmp/summary.md bash -e "$tmp/run.sh") >"$tmp/log" 2>&1
	rc=$(sed -n 's/^exit-code=//p' "$tmp/outputs")
	RC=$rc SL_FAIL_ON=error bash -e "$tmp/exit.sh" >>"$tmp/log" 2>&1
	st=$?
	runs=$(($(wc -l <"$tmp/runs")))
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
[ "$runs" = 1 ] && ok || bad "action: schedlint ran $runs times, not once"
# the job summary: the counts, the status, a row per finding (notes about the input too)
grep -q -x -F '1 error, 0 warnings, 1 note; exit status 1 (findings at or above `error`)' "$tmp/summary.md" &&
	grep -q -x -F '| Location | Level | Rule | Message |' "$tmp/summary.md" &&
	grep -q -F '| manifest.yaml:11 | error | [rollout-deadlock](https://github.com/schedlint/schedlint/blob/v'"$(cat "$root/VERSION")"'/docs/rules/rollout-deadlock.md) | rollout of Deployment vision/vision-object-tracker can never finish: ' \
		"$tmp/summary.md" && grep -q -F '| nodes.yaml:12 | note | schedlint | the node set is taken as fixed' "$tmp/summary.md" &&
	ok || bad "action: the job summary" "$tmp/summary.md"
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
grep -q -x 'No findings.' "$tmp/summary.md" && grep -q -F 'exit status 0 (nothing at or above `error`)' "$tmp/summary.md" &&
	[ "$runs" = 1 ] && ok || bad "action: the clean run's summary" "$tmp/summary.md"
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

# The summary and the annotations of values that are markdown, HTML, workflow-command and terminal
# syntax (a policy's message over two lines with '|', an annotation with <i>, '%', "##[", a
# right-to-left override): escaped in the table cell (\| and <br>, entities) and in the log.
mkdir -p "$tmp/hostile"
cat >"$tmp/hostile/.schedlint.yaml" <<'YAML'
policies:
  - id: note-free
    message: "a | b\nsecond *line* of_it"
    kinds: [ConfigMap]
    field: metadata.annotations.note
    forbid: '.'
YAML
printf 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n  annotations:\n    note: "<i>x</i> 50%% ##[group] \\u202e|"\n' \
	>"$tmp/hostile/manifest.yaml"
run_action "$tmp/hostile" manifest.yaml ''
grep -q -F '| manifest.yaml:6 | warning | note-free | a \| b<br>second \*line\* of\_it: metadata.annotations.note ' "$tmp/summary.md" &&
	grep -q -F "'&lt;i&gt;x&lt;/i&gt; 50% ##\\\\x5bgroup\\] \\\\u202e\\|' matches" "$tmp/summary.md" && ok ||
	bad "action: markdown, HTML and controls escaped in the summary" "$tmp/summary.md"
grep -q -F '::warning file=manifest.yaml,line=6,col=11,endLine=6,endColumn=43,title=note-free::a | b%0Asecond *line* of_it: metadata.annotations.note ' \
	"$tmp/log" && grep -q -F "'<i>x</i> 50%25 ##\\x5bgroup] \\u202e|'" "$tmp/log" && ok ||
	bad "action: the hostile values' annotation" "$tmp/log"

# The annotations from the SARIF report are the lines `schedlint --format github` prints, for
# runs with errors, warnings, notes, related locations, suppressed findings, input errors,
# config errors and the values above (in any order: the report keeps notifications apart); none
# at all where every finding is suppressed (docs-suppress).
while IFS='|' read -r dir args; do
	(cd "$dir" && "$bin" --format github $args >"$tmp/gh" 2>/dev/null
		"$bin" --format sarif --output "$tmp/cmp.sarif" $args 2>/dev/null
		node "$root/scripts/action-report.js" "$tmp/cmp.sarif" >"$tmp/conv" 2>&1)
	sort "$tmp/gh" >"$tmp/gh.sorted"
	sort "$tmp/conv" >"$tmp/conv.sorted"
	if diff -u "$tmp/gh.sorted" "$tmp/conv.sorted" >"$tmp/diff"; then ok; else
		bad "action: annotations from SARIF differ from --format github in $dir" "$tmp/diff"
	fi
done <<CASES
$root/$seed|--nodes nodes.yaml manifest.yaml
$root/fixtures/config/rule-level-warning|--nodes nodes.yaml manifest.yaml
$root/fixtures/config/docs-suppress|manifest.yaml
$root/fixtures/config/docs-errors|manifest.yaml
$root/fixtures/unused-suppression/doc-example|--fail-on note --nodes nodes.yaml manifest.yaml
$root/fixtures/repository/ordinary-repo|. .github/workflows/deploy.yml
$root/fixtures/input-errors/bad-gpu-quantity|manifest.yaml
$root/fixtures/config/ignore-match-limit-kind|manifest.yaml
$tmp/hostile|manifest.yaml
CASES
# text instead of annotations; a summary cut short (its two rows: the run's rules-not-run notice and the warning)
node scripts/action-report.js "$tmp/cmp.sarif" --log text --summary "$tmp/short.md" --max-rows 0 >"$tmp/text" 2>&1
grep -q -F 'manifest.yaml:6:11: warning: a | b\nsecond *line* of_it: ' "$tmp/text" && ! grep -q '^::' "$tmp/text" &&
	grep -q -x '2 more in the job log and the SARIF report.' "$tmp/short.md" && ok ||
	bad "action-report.js: --log text and --max-rows" "$tmp/text"
# links to the commit's files when the runner says where it is
GITHUB_SERVER_URL=https://github.com GITHUB_REPOSITORY=o/r GITHUB_SHA=abc node scripts/action-report.js \
	"$tmp/cmp.sarif" --log none --summary "$tmp/links.md"
grep -q -F '| [manifest.yaml:6](https://github.com/o/r/blob/abc/manifest.yaml#L6) | warning |' "$tmp/links.md" && ok ||
	bad "action-report.js: the location links" "$tmp/links.md"
node scripts/action-report.js "$tmp/nothing.sarif" >"$tmp/err" 2>&1
[ $? = 2 ] && grep -q 'cannot read' "$tmp/err" && ok || bad "action-report.js: a missing report" "$tmp/err"

# The build: a cached binary that runs is taken without building; a miss builds with make and
# keeps the binary for the cache; a cached binary that does not run even with the runtime
# libraries installed is built again. make, apt-get and sudo are stand-ins that record their
# arguments (make writes a script).
mkdir -p "$tmp/fake"
cat >"$tmp/fake/make" <<'SH'
#!/bin/sh
echo make "$@" >>"$FAKE/made"
printf '#!/bin/sh\necho built\n' >"$FAKE/action/schedlint"
chmod +x "$FAKE/action/schedlint"
SH
printf '#!/bin/sh\nexit 0\n' >"$tmp/fake/pkg-config"
printf '#!/bin/sh\necho apt-get "$@" >>"$FAKE/apt"\n' >"$tmp/fake/apt-get"
printf '#!/bin/sh\nexec "$@"\n' >"$tmp/fake/sudo"
chmod +x "$tmp/fake/make" "$tmp/fake/pkg-config" "$tmp/fake/apt-get" "$tmp/fake/sudo"
build_step() { # cache-hit, the cached binary's text (none when empty)
	b=$tmp/b
	rm -rf "$b"
	mkdir -p "$b/action" "$b/cache"
	if [ -n "$2" ]; then
		printf '%s\n' "$2" >"$b/cache/schedlint"
		chmod +x "$b/cache/schedlint"
	fi
	: >"$b/outputs"
	PATH=$tmp/fake:$PATH FAKE=$b GITHUB_ACTION_PATH=$b/action GITHUB_OUTPUT=$b/outputs SL_CACHE_HIT=$1 \
		SL_CACHE_DIR=$b/cache bash -e "$tmp/build.sh" >"$b/log" 2>&1
}
build_step true '#!/bin/sh'
[ ! -f "$tmp/b/made" ] && grep -q -x 'built=cached' "$tmp/b/outputs" &&
	cmp -s "$tmp/b/cache/schedlint" "$tmp/b/action/schedlint" && ok || bad "action: a cache hit builds nothing" "$tmp/b/log"
build_step true '#!/bin/sh
[ -f "$FAKE/apt" ]' # runs once the runtime libraries are installed
[ ! -f "$tmp/b/made" ] && grep -q -x 'built=cached' "$tmp/b/outputs" && grep -q libcjson1 "$tmp/b/apt" && ok ||
	bad "action: a cache hit that needs the runtime libraries installs them and builds nothing" "$tmp/b/log"
build_step '' ''
grep -q -x "make -C $tmp/b/action -j$(nproc) schedlint" "$tmp/b/made" && grep -q -x 'built=fresh' "$tmp/b/outputs" &&
	grep -q built "$tmp/b/cache/schedlint" && ok || bad "action: a miss builds with make -j\$(nproc) and keeps the binary" "$tmp/b/log"
build_step true '#!/bin/sh
exit 127'
[ -f "$tmp/b/made" ] && grep -q -x 'built=fresh' "$tmp/b/outputs" &&
	grep -q -x 'apt-get install -y -qq --no-install-recommends libyaml-0-2 libpcre2-8-0 libcjson1' "$tmp/b/apt" && ok ||
	bad "action: a cached binary that does not run, with the runtime libraries installed, is built again" "$tmp/b/log"
grep -q -F "if: steps.build.outputs.built == 'fresh'" action.yml && grep -q -F 'uses: actions/cache/restore@v4' action.yml &&
	grep -q -F 'uses: actions/cache/save@v4' action.yml && ok || bad "action.yml: the cache restored, and saved after a build"
# The key: the same for the same sources, another when one of them changes.
key() {
	: >"$tmp/k.out"
	(GITHUB_ACTION_PATH=$1 GITHUB_OUTPUT=$tmp/k.out RUNNER_OS=Linux RUNNER_ARCH=X64 bash -e "$tmp/key.sh") &&
		sed -n 's/^key=//p' "$tmp/k.out"
}
mkdir -p "$tmp/src/tests"
cp -R Makefile linter rules "$tmp/src/"
[ -f VERSION ] && cp VERSION "$tmp/src/"
cp tests/deps.sh "$tmp/src/tests/"
k1=$(key "$root")
k2=$(key "$tmp/src")
echo '/* changed */' >>"$tmp/src/linter/main.c"
k3=$(key "$tmp/src")
case $k1 in schedlint-bin-v1-Linux-X64-*) ok ;; *) bad "action: the cache key '$k1'" ;; esac
[ "$k1" = "$k2" ] && [ "$k2" != "$k3" ] && ok || bad "action: the cache key follows the sources ($k1, $k2, $k3)"
finish actions
