#!/bin/sh
# The command line as a user meets it: help, version, rule list, usage errors, stdin, directories,
# --output, --fail-on, colour only on request, exit statuses. Usage: run-cli.sh SCHEDLINT [SARIF_OUT]
# SARIF logs that only the command line can produce (standard input) are copied to SARIF_OUT for
# the validator.
set -u
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
sarif_out=${2:+$(cd "$2" && pwd)}
. "$(dirname "$0")/lib.sh"
cd "$(dirname "$0")/../fixtures" || exit 1
seed=rollout-deadlock/seed-gpu-tracker
# The release build and tests/rusage.c, for the bounds on hostile input (sanitizers would measure
# themselves); those checks are skipped when either is missing.
rel=$(pwd)/../schedlint
rusage=$(pwd)/../build/rusage

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
# bounded: description, seconds, schedlint's arguments — the release build on hostile input must
# end within the seconds of CPU time given (user + system, measured by tests/rusage.c: a hang
# guard with a wide margin, which a loaded machine does not trip as it would a wall-clock one),
# under 200 MB of resident memory, with an exit status of 0, 1 or 2.
bounded() {
	d=$1 secs=$2
	shift 2
	if [ ! -x "$rel" ] || [ ! -x "$rusage" ]; then
		skip "$d: bounded" "no release build ./schedlint or build/rusage (make schedlint build/rusage)"
		return
	fi
	set -- $(limited 60 "$rusage" "$rel" "$@" 2>/dev/null | tail -n 1)
	if [ $# -eq 3 ] && [ "$1" -le 2 ] && [ "$2" -lt $((secs * 1000)) ] && [ "$3" -lt 204800 ]; then
		pass=$((pass + 1))
	else
		echo "FAIL $d: bounded by ${secs} s of CPU time and 200 MB, measured: exit ${1:-?}, ${2:-?} ms of CPU, ${3:-?} KB"
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
has "--help names the language server" "$tmp/out" "schedlint lsp"
# `schedlint lsp` is a subcommand (tests/run-lsp.sh drives the server): what it takes, and the exit
# status 1 of a server whose client left without shutdown.
expect "lsp with an argument" 2 "$bin" lsp --frobnicate
has "lsp with an argument" "$tmp/err" "lsp takes no arguments but --stdio"
expect "lsp, the input ends at once" 1 "$bin" lsp --stdio </dev/null
expect "--version" 0 "$bin" --version
has "--version" "$tmp/out" "schedlint "
# The VERSION file is the version wherever one is said (docs/releasing.md): --version (a build from
# a git checkout adds `git describe` in parentheses), the man page's title line, SARIF's driver and
# the rules' pages at the release's tag. A semantic version, as SARIF's semanticVersion must be.
ver=$(cat ../VERSION)
if printf '%s\n' "$ver" | grep -E -q -x '[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.-]+)?'; then
	pass=$((pass + 1))
else
	echo "FAIL VERSION: '$ver' is not a semantic version (X.Y.Z)"
	fail=$((fail + 1))
fi
if head -n 1 "$tmp/out" | grep -E -q -x "schedlint $(printf '%s' "$ver" | sed 's/\./\\./g')( \(git [^ ]+\))?"; then
	pass=$((pass + 1))
else
	echo "FAIL --version: not 'schedlint $ver' or 'schedlint $ver (git DESCRIBE)'"
	sed 's/^/  | /' "$tmp/out"
	fail=$((fail + 1))
fi
has "the man page's version" ../docs/schedlint.1 ".TH SCHEDLINT 1 \"\" \"schedlint $ver\" \"User Commands\""
expect "SARIF of the seed" 1 "$bin" -f sarif --nodes $seed/nodes.yaml $seed/manifest.yaml
tab=$(printf '\t') # cJSON's pretty print puts a tab after the colon
has "SARIF's tool version" "$tmp/out" "\"version\":$tab\"$ver\""
has "SARIF's semanticVersion" "$tmp/out" "\"semanticVersion\":$tab\"$ver\""
has "SARIF's helpUri at the release's tag" "$tmp/out" \
	"\"helpUri\":$tab\"https://github.com/schedlint/schedlint/blob/v$ver/docs/rules/rollout-deadlock.md\""
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
has "missing --nodes file: its role said" "$tmp/err" "nope.yaml:1:1: error: cannot open the --nodes inventory: No such file"
expect "missing --pods file" 2 "$bin" --pods nope.yaml $seed/manifest.yaml
has "missing --pods file: its role said" "$tmp/err" "nope.yaml:1:1: error: cannot open the --pods inventory: No such file"
expect "missing manifest" 2 "$bin" nope.yaml
has "missing manifest: a file" "$tmp/err" "nope.yaml:1:1: error: cannot open file: No such file"
printf 'nodes: [nope-nodes.yaml]\n' >"$tmp/inv.schedlint.yaml"
expect "missing config inventory" 2 "$bin" --config "$tmp/inv.schedlint.yaml" $seed/manifest.yaml
has "missing config inventory: its role said" "$tmp/err" "cannot open the config's nodes inventory"

# Long options are matched whole: getopt_long's prefixes would take --node for --nodes, a typo
# that works until an option named --node-... is added. An unknown option names the nearest one.
expect "--node is not --nodes" 2 "$bin" --node $seed/nodes.yaml $seed/manifest.yaml
has "--node is not --nodes" "$tmp/err" "schedlint: error: unrecognized option '--node'; did you mean '--nodes'?"
has "--node: the usage hint" "$tmp/err" "Try 'schedlint --help'."
expect "--node=FILE is not --nodes" 2 "$bin" --node=$seed/nodes.yaml $seed/manifest.yaml
has "--node=FILE is not --nodes" "$tmp/err" "unrecognized option '--node'; did you mean '--nodes'?"
expect "--colour" 2 "$bin" --colour never $seed/manifest.yaml
has "--colour" "$tmp/err" "schedlint: error: unrecognized option '--colour'; did you mean '--color'?"
expect "--expl, an abbreviation" 2 "$bin" --expl $seed/manifest.yaml
has "--expl, an abbreviation" "$tmp/err" "did you mean '--explain'?"
expect "an unknown option, nothing near" 2 "$bin" --frobnicate $seed/manifest.yaml
has "an unknown option, nothing near" "$tmp/err" "schedlint: error: unrecognized option '--frobnicate'"
hasnt "an unknown option, nothing near" "$tmp/err" "did you mean"
expect "an unknown short option" 2 "$bin" -z $seed/manifest.yaml
has "an unknown short option" "$tmp/err" "schedlint: error: unrecognized option '-z'"
expect "a flag given a value" 2 "$bin" --fix=yes $seed/manifest.yaml
has "a flag given a value" "$tmp/err" "option '--fix' takes no argument"
expect "an option without its argument" 2 "$bin" $seed/manifest.yaml --nodes
has "an option without its argument" "$tmp/err" "option '--nodes' needs an argument"
expect "a short option without its argument" 2 "$bin" $seed/manifest.yaml -n
has "a short option without its argument" "$tmp/err" "option '-n' needs an argument"
# an option's argument that looks like an option is its argument, as getopt reads it
expect "--nodes FILE named like an option" 2 "$bin" --nodes --node $seed/manifest.yaml
has "--nodes FILE named like an option" "$tmp/err" "cannot open the --nodes inventory"
expect "after --, a file" 2 "$bin" -- --node
has "after --, a file" "$tmp/err" "--node:1:1: error: cannot open file"
expect "-nFILE" 1 "$bin" -n$seed/nodes.yaml $seed/manifest.yaml
# Unknown values name the one meant.
expect "--format sarfi" 2 "$bin" --format sarfi $seed/manifest.yaml
has "--format sarfi" "$tmp/err" "unknown format 'sarfi'; did you mean 'sarif'?"
expect "--color alwyas" 2 "$bin" --color alwyas $seed/manifest.yaml
has "--color alwyas" "$tmp/err" "did you mean 'always'?"
expect "--disable, a typo" 2 "$bin" --disable rollout-deadlok $seed/manifest.yaml
has "--disable, a typo" "$tmp/err" "unknown rule 'rollout-deadlok'; did you mean 'rollout-deadlock'?"
# Words that read as commands, where no file has the name: version and help do what the options
# do; the others are refused, not reported as a file that cannot be opened. A file of that name
# is a file.
expect "schedlint version" 0 "$bin" version
has "schedlint version" "$tmp/out" "schedlint "
expect "schedlint help" 0 "$bin" help
has "schedlint help" "$tmp/out" "usage: schedlint"
for w in check init lint fix; do
	expect "schedlint $w" 2 "$bin" $w
	has "schedlint $w" "$tmp/err" "schedlint: error: '$w' is not a command, and no file has that name; schedlint takes files and directories"
	hasnt "schedlint $w" "$tmp/err" "cannot open"
done
expect "lsp after an option" 2 "$bin" --nodes $seed/nodes.yaml lsp
has "lsp after an option" "$tmp/err" "lsp is a command only as the first word"
mkdir -p "$tmp/words"
cp $seed/manifest.yaml "$tmp/words/check"
expect "a file named check" 1 sh -c "cd '$tmp/words' && '$bin' --nodes '$(pwd)/$seed/nodes.yaml' check"
has "a file named check" "$tmp/out" "check:"

# stdin, and the same verdict as from the file
expect "stdin" 1 sh -c "'$bin' --nodes $seed/nodes.yaml - < $seed/manifest.yaml"
has "stdin" "$tmp/out" "-:11:1: error:"
expect "--stdin-filename" 1 sh -c "'$bin' --stdin-filename k8s/tracker.yaml --nodes $seed/nodes.yaml - < $seed/manifest.yaml"
has "--stdin-filename" "$tmp/out" "k8s/tracker.yaml:11:1: error:"
expect "--stdin-filename json" 1 sh -c "'$bin' -f json --stdin-filename k8s/tracker.yaml --nodes $seed/nodes.yaml - < $seed/manifest.yaml"
has "--stdin-filename json" "$tmp/out" '"file":	"k8s/tracker.yaml"'
# unnamed stdin is no file: SARIF gives its results no artifact location (and no %3Cstdin%3E)
expect "stdin sarif" 1 sh -c "'$bin' -f sarif --nodes $seed/nodes.yaml - < $seed/manifest.yaml"
hasnt "stdin sarif: no location" "$tmp/out" '"uri":	"manifest.yaml"'
hasnt "stdin sarif: no %3C" "$tmp/out" '%3C'
has "stdin sarif: the nodes file still has one" "$tmp/out" '"uri":	"fixtures/rollout-deadlock/seed-gpu-tracker/nodes.yaml"'
has "stdin sarif: the object instead" "$tmp/out" '"fullyQualifiedName":	"Deployment vision/vision-object-tracker"'
[ -n "$sarif_out" ] && cp "$tmp/out" "$sarif_out/cli_stdin.sarif"

# without nodes the node-dependent rules stay silent
expect "no inventory" 0 "$bin" $seed/manifest.yaml
# a directory is searched recursively; only *.yaml/*.yml/*.json are read
mkdir -p "$tmp/tree/a/b"
cp $seed/manifest.yaml "$tmp/tree/a/b/deploy.yml"
echo "not: [yaml" >"$tmp/tree/a/notes.txt"
expect "directory" 1 "$bin" --nodes $seed/nodes.yaml "$tmp/tree"
has "directory" "$tmp/out" "tree/a/b/deploy.yml:11:1: error:"
# an empty directory, and one holding only hidden entries, are nothing to check
mkdir -p "$tmp/tree/empty" "$tmp/tree/hidden-only/.cache"
expect "empty directories" 0 "$bin" "$tmp/tree/empty" "$tmp/tree/hidden-only"
expect "an empty directory inside a tree" 1 "$bin" --nodes $seed/nodes.yaml "$tmp/tree"
# What did not run is said (the run's notices): rules without an inventory, no manifest at all
expect "no inventory: a note" 0 "$bin" $seed/manifest.yaml
has "no inventory: a note" "$tmp/out" "schedlint: note: 7 rules did not run without a node inventory: rollout-deadlock,"
has "no inventory: how to give one" "$tmp/out" "--nodes FILE (kubectl get nodes -o yaml > FILE)"
expect "no inventory: json" 0 "$bin" --format json $seed/manifest.yaml
has "no inventory: json" "$tmp/out" '"id":	"rules-not-run"'
expect "no inventory, those rules disabled" 0 "$bin" --no-config --disable rollout-deadlock --disable unschedulable \
	--disable insufficient-capacity --disable release-capacity --disable preemption-required \
	--disable daemonset-no-nodes --disable topology-spread-unsatisfiable $seed/manifest.yaml
hasnt "no inventory, those rules disabled" "$tmp/out" "did not run"
expect "Node objects among the manifests: no note" 1 "$bin" $seed/nodes.yaml $seed/manifest.yaml
hasnt "Node objects among the manifests: no note" "$tmp/out" "did not run"
expect "no manifest: a warning" 0 "$bin" "$tmp/tree/empty"
has "no manifest: a warning" "$tmp/out" "schedlint: warning: no Kubernetes object"
expect "no manifest, --fail-on warning" 1 "$bin" --fail-on warning "$tmp/tree/empty"
expect "no manifest, but an input error: the error says it" 2 "$bin" /nonexistent.yaml
hasnt "no manifest, but an input error: the error says it" "$tmp/out" "no Kubernetes object"
# Nodes among the manifests are an inventory too
expect "nodes among manifests" 1 "$bin" $seed/nodes.yaml $seed/manifest.yaml
# --output
expect "--output" 1 "$bin" --format sarif --output "$tmp/r.sarif" --nodes $seed/nodes.yaml $seed/manifest.yaml
has "--output" "$tmp/r.sarif" '"ruleId":	"rollout-deadlock"'
expect "--output to a bad path" 2 "$bin" --output /nonexistent/dir/r.txt $seed/manifest.yaml
# One run, several reports: each --format one, an --output for the --format before it (before any:
# the first). Each report is byte for byte what its own run writes.
same() { # description, file, file
	if cmp -s "$2" "$3"; then pass=$((pass + 1)); else
		echo "FAIL $1: $2 and $3 differ"
		diff "$2" "$3" | head -10 | sed 's/^/  | /'
		fail=$((fail + 1))
	fi
}
expect "one report: text" 1 "$bin" --nodes $seed/nodes.yaml $seed/manifest.yaml
cp "$tmp/out" "$tmp/alone.txt"
expect "one report: sarif" 1 "$bin" --format sarif --output "$tmp/alone.sarif" --nodes $seed/nodes.yaml $seed/manifest.yaml
expect "two reports" 1 "$bin" --format sarif --output "$tmp/two.sarif" --format text --nodes $seed/nodes.yaml $seed/manifest.yaml
same "two reports: the text on stdout" "$tmp/alone.txt" "$tmp/out"
same "two reports: the SARIF file" "$tmp/alone.sarif" "$tmp/two.sarif"
expect "two reports, --output first" 1 "$bin" -o "$tmp/first.sarif" -f sarif -f text --nodes $seed/nodes.yaml $seed/manifest.yaml
same "--output before any --format: the first report's" "$tmp/alone.sarif" "$tmp/first.sarif"
same "--output before any --format: text on stdout" "$tmp/alone.txt" "$tmp/out"
expect "three reports" 1 "$bin" -f json -o "$tmp/three.json" -f junit -o "$tmp/three.xml" -f text --nodes $seed/nodes.yaml $seed/manifest.yaml
same "three reports: text on stdout" "$tmp/alone.txt" "$tmp/out"
has "three reports: json" "$tmp/three.json" '"rule":	"rollout-deadlock"'
has "three reports: junit" "$tmp/three.xml" '<failure type="error"'
expect "two reports to stdout" 2 "$bin" -f sarif -f text $seed/manifest.yaml
has "two reports to stdout" "$tmp/err" "schedlint: error: --format sarif and --format text both write to standard output"
expect "two reports to one file" 2 "$bin" -f sarif -o "$tmp/one" -f json -o "$tmp/one" $seed/manifest.yaml
has "two reports to one file" "$tmp/err" "schedlint: error: --output $tmp/one is given to two reports (--format sarif and --format json)"
expect "two --output for one report" 2 "$bin" -f sarif -o "$tmp/x1" -o "$tmp/x2" $seed/manifest.yaml
has "two --output for one report" "$tmp/err" "schedlint: error: --output $tmp/x1 and --output $tmp/x2 both for the --format sarif report"
expect "the second report's --output is an input" 2 "$bin" -f sarif -o "$tmp/ok.sarif" -f text -o $seed/manifest.yaml $seed/manifest.yaml
has "the second report's --output is an input" "$tmp/err" "is the input"
[ -e "$tmp/ok.sarif" ] && { echo "FAIL a refused run wrote a report"; fail=$((fail + 1)); } || pass=$((pass + 1))
expect "--explain with two reports" 2 "$bin" --explain -f text -f json -o "$tmp/e.json" --nodes $seed/nodes.yaml $seed/manifest.yaml
has "--explain with two reports" "$tmp/err" "schedlint: error: --explain makes one report"
expect "--diff with two reports" 1 "$bin" --diff -f sarif -o "$tmp/d.sarif" -f text --nodes $seed/nodes.yaml $seed/manifest.yaml
# stderr: the text report, after the input notes that always go there
tail -n "$(wc -l <"$tmp/alone.txt")" "$tmp/err" >"$tmp/err.tail"
same "--diff with two reports: the report on stderr" "$tmp/alone.txt" "$tmp/err.tail"
same "--diff with two reports: the SARIF file" "$tmp/alone.sarif" "$tmp/d.sarif"
has "--diff with two reports: the diff on stdout" "$tmp/out" "+++ "
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
# github: workflow commands, one line per finding, escaped as the runner reads them back
gh_seed=fixtures/rollout-deadlock/seed-gpu-tracker
expect "github" 1 "$bin" --format github --nodes $seed/nodes.yaml $seed/manifest.yaml
has "github: the command" "$tmp/out" "::error file=$gh_seed/manifest.yaml,line=11,col=1,endLine=11,endColumn=5,title=rollout-deadlock::rollout of Deployment vision/vision-object-tracker can never finish"
has "github: % escaped in the message" "$tmp/out" "maxUnavailable 25%25 resolves to 0"
has "github: the notes on lines of their own" "$tmp/out" "is Ready%0Areplicas 1; strategy RollingUpdate (defaulted)%0A"
has "github: related locations" "$tmp/out" "%0A$gh_seed/nodes.yaml:12:11: node tracker-node has room for 1 pod"
# one line per finding, and one for the note that the node set (no pool known) is taken as fixed
has "github: the fixed node set is a notice" "$tmp/out" "::notice file=$gh_seed/nodes.yaml,line=12,col=11,endLine=12,endColumn=23,title=schedlint::the node set is taken as fixed"
[ "$(wc -l <"$tmp/out")" -eq 2 ] && pass=$((pass + 1)) || {
	echo "FAIL github: one line per finding"
	fail=$((fail + 1))
}
expect "github: unnamed stdin has no file" 1 sh -c "'$bin' -f github --nodes $seed/nodes.yaml - < $seed/manifest.yaml"
has "github: unnamed stdin" "$tmp/out" "::error title=rollout-deadlock::rollout of Deployment"
printf 'apiVersion: v1\nkind: Pod\nmetadata: {name: [x\n' >"$tmp/gh-broken.yaml"
expect "github: input errors too" 2 "$bin" -f github "$tmp/gh-broken.yaml"
has "github: an input error" "$tmp/out" "::error file=$(cd "$tmp" && pwd)/gh-broken.yaml,line=4,col=1"
has "github: an input error's title" "$tmp/out" ",title=schedlint::invalid YAML"
expect "github: a chart's note" 0 "$bin" -f github repository/ordinary-repo/charts/web/templates/deployment.yaml
has "github: a note is a notice" "$tmp/out" "::notice file=fixtures/repository/ordinary-repo/charts/web/Chart.yaml,line=1,col=1,endLine=1,endColumn=1,title=schedlint::a Helm chart"
# properties escape ':' and ',' as well; the message keeps them and escapes CR and LF
mkdir -p "$tmp/gh/.git"
cp $seed/manifest.yaml "$tmp/gh/a,b:c.yaml"
cp $seed/nodes.yaml "$tmp/gh/nodes.yaml"
expect "github: a path with , and :" 1 sh -c "cd '$tmp/gh' && '$bin' -f github --nodes nodes.yaml 'a,b:c.yaml'"
has "github: property escapes" "$tmp/out" "::error file=a%2Cb%3Ac.yaml,line=11,"
has "github: the message keeps , and :" "$tmp/out" "no old pod goes before a new one is Ready%0Areplicas 1; strategy"
printf 'policies:\n  - {id: "no-latest", message: "pin images,\\r\\nplease: 100%%", field: "podspec.containers[*].image", forbid: "^nginx$"}\n' \
	>"$tmp/gh/.schedlint.yaml"
printf 'apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers: [{name: c, image: nginx}]\n' >"$tmp/gh/pod.yaml"
expect "github: CR and LF in a message" 0 sh -c "cd '$tmp/gh' && '$bin' -f github pod.yaml"
has "github: data escapes" "$tmp/out" "::warning file=pod.yaml,line=5,col=33,endLine=5,endColumn=38,title=no-latest::pin images,%0D%0Aplease: 100%25: spec"
printf 'rules: {rollout-deadlock: warning}\n' >"$tmp/gh/.schedlint.yaml"
expect "github: warning" 0 sh -c "cd '$tmp/gh' && '$bin' -f github --nodes nodes.yaml 'a,b:c.yaml'"
has "github: warning" "$tmp/out" "::warning file=a%2Cb%3Ac.yaml,line=11,"
printf 'ignore:\n  - {rules: [rollout-deadlock], reason: "drained, by hand"}\n' >"$tmp/gh/.schedlint.yaml"
expect "github: suppressed left out" 0 sh -c "cd '$tmp/gh' && '$bin' -f github --nodes nodes.yaml 'a,b:c.yaml'"
[ -s "$tmp/out" ] && { echo "FAIL github: a suppressed finding printed"; fail=$((fail + 1)); } || pass=$((pass + 1))
expect "github: --show-suppressed" 0 sh -c "cd '$tmp/gh' && '$bin' -f github --show-suppressed --nodes nodes.yaml 'a,b:c.yaml'"
has "github: suppressed as a notice" "$tmp/out" "::notice file=a%2Cb%3Ac.yaml,line=11,"
has "github: suppressed, marked" "$tmp/out" "is Ready (suppressed: drained, by hand)%0A"
printf 'rules: {no-such-rule: warning}\n' >"$tmp/gh/.schedlint.yaml"
expect "github: a config error" 2 sh -c "cd '$tmp/gh' && '$bin' -f github pod.yaml"
has "github: a config error" "$tmp/out" "::error file=.schedlint.yaml,line=1,"
expect "github: --explain" 2 "$bin" --explain -f github --nodes $seed/nodes.yaml $seed/manifest.yaml
has "github: --explain" "$tmp/err" "--explain prints text or json, not github"
"$bin" --help >"$tmp/out" 2>&1
has "--help lists github" "$tmp/out" "github (workflow commands)"
has "--help lists codeclimate and junit" "$tmp/out" "codeclimate (GitLab Code Quality) or junit (JUnit XML)"
# codeclimate and junit: suppressed findings left out, or shown as info and passing; a config
# error is a report too; --explain refused.
printf 'ignore:\n  - {rules: [rollout-deadlock], reason: "drained, <by> hand"}\n' >"$tmp/gh/.schedlint.yaml"
expect "codeclimate: suppressed left out" 0 sh -c "cd '$tmp/gh' && '$bin' -f codeclimate --nodes nodes.yaml 'a,b:c.yaml'"
hasnt "codeclimate: suppressed left out" "$tmp/out" "rollout-deadlock"
expect "codeclimate: --show-suppressed" 0 sh -c "cd '$tmp/gh' && '$bin' -f codeclimate --show-suppressed --nodes nodes.yaml 'a,b:c.yaml'"
has "codeclimate: suppressed as info" "$tmp/out" '"severity":	"info",'
has "codeclimate: suppressed, marked" "$tmp/out" '(suppressed: drained, <by> hand)'
expect "junit: suppressed left out" 0 sh -c "cd '$tmp/gh' && '$bin' -f junit --nodes nodes.yaml 'a,b:c.yaml'"
hasnt "junit: suppressed left out" "$tmp/out" "rollout-deadlock"
expect "junit: --show-suppressed" 0 sh -c "cd '$tmp/gh' && '$bin' -f junit --show-suppressed --nodes nodes.yaml 'a,b:c.yaml'"
has "junit: suppressed passes" "$tmp/out" '(suppressed: drained, &lt;by&gt; hand)'
hasnt "junit: suppressed passes" "$tmp/out" '<failure'
printf 'rules: {rollout-deadlock: warning}\n' >"$tmp/gh/.schedlint.yaml"
expect "junit: a warning" 0 sh -c "cd '$tmp/gh' && '$bin' -f junit --nodes nodes.yaml 'a,b:c.yaml'"
has "junit: a warning fails its testcase" "$tmp/out" '<failure type="warning" message="rollout of Deployment'
expect "codeclimate: a warning" 0 sh -c "cd '$tmp/gh' && '$bin' -f codeclimate --nodes nodes.yaml 'a,b:c.yaml'"
has "codeclimate: a warning is minor" "$tmp/out" '"severity":	"minor",'
printf 'rules: {no-such-rule: warning}\n' >"$tmp/gh/.schedlint.yaml"
for fmt in codeclimate junit; do
	expect "$fmt: a config error" 2 sh -c "cd '$tmp/gh' && '$bin' -f $fmt pod.yaml"
	has "$fmt: a config error" "$tmp/out" ".schedlint.yaml"
	expect "$fmt: --explain" 2 "$bin" --explain -f $fmt --nodes $seed/nodes.yaml $seed/manifest.yaml
	has "$fmt: --explain" "$tmp/err" "--explain prints text or json, not $fmt"
done
# --fix on stdin is refused: there is no file to write back to
expect "--fix refuses stdin" 2 sh -c "'$bin' --fix --nodes $seed/nodes.yaml - < $seed/manifest.yaml"
has "--fix refuses stdin" "$tmp/err" "schedlint: error: --fix cannot write back to standard input (-)"
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
# maxSurge 2 with room for one surge pod: the next one does not fit, and the rollout goes on
ms=rollout-deadlock/max-surge-2-one-fits-alone
expect "--explain one of two surge pods" 0 "$bin" --explain --nodes $ms/nodes.yaml $ms/manifest.yaml
has "--explain one of two surge pods" "$tmp/out" "with the surge: 1 of 2 new pods fit beside them (3 at once)"
has "--explain the next surge pod" "$tmp/out" "  the next surge pod: 0/1 nodes are available: 1 Insufficient cpu."
has "--explain the rollout goes on" "$tmp/out" "  the rollout goes on: each new pod that is Ready lets an old one go"
hasnt "--explain one of two surge pods" "$tmp/out" "the rollout can never finish"
# a request a LimitRange of the inventory gives containers that state none: where it comes from
lr=insufficient-capacity/limitrange-default-request-near-miss
expect "--explain LimitRange default" 0 "$bin" --explain --nodes $lr/nodes.yaml $lr/manifest.yaml
has "--explain LimitRange default" "$tmp/out" "  request cpu 2 for each container without one: the default of LimitRange tools/defaults"
aa=anti-affinity-vs-node-affinity/three-replicas-two-web-nodes
expect "--explain sequential" 0 "$bin" --explain --nodes $aa/nodes.yaml $aa/manifest.yaml
has "--explain placed" "$tmp/out" "at once: 2 of 3 replicas, placed one after another as the scheduler would"
expect "--explain json" 0 "$bin" --explain --format json --nodes $seed/nodes.yaml $seed/manifest.yaml
has "--explain json deadlock" "$tmp/out" '"rollout_deadlock":	true'
has "--explain json reasons" "$tmp/out" '"limited_by":	"nvidia.com/gpu"'
# --explain names each claim and what it resolved to, under the table and in JSON
zv=rollout-deadlock/zonal-volume-holds-the-room
expect "--explain volumes" 0 "$bin" --explain --nodes $zv/nodes.yaml $zv/manifest.yaml
has "--explain volume verdict" "$tmp/out" "  b-1        0      -  VolumeBinding: node(s) had volume node affinity conflict"
has "--explain bound claim" "$tmp/out" "    claim tracker-data: bound to PersistentVolume pvc-77aa, its nodeAffinity admits 1 of 3 nodes"
sv=insufficient-capacity/statefulset-local-volumes-ordinal-0-bound
expect "--explain ordinals" 0 "$bin" --explain --nodes $sv/nodes.yaml $sv/manifest.yaml
has "--explain ordinal 0 bound" "$tmp/out" "  claims of pod kafka-0:"
has "--explain ordinals alike" "$tmp/out" "  claims of pod kafka-1 (and 1 more pod alike):"
has "--explain delayed claim" "$tmp/out" "    claim data-kafka-1: unbound, StorageClass local-ssd (WaitForFirstConsumer): 1 available volume matches; kubernetes.io/no-provisioner makes none"
expect "--explain volumes json" 0 "$bin" --explain --format json --nodes $sv/nodes.yaml $sv/manifest.yaml
has "--explain json bound volume" "$tmp/out" '"volume":	"local-pv-n-1"'
has "--explain json candidates" "$tmp/out" '"candidates":	["local-pv-n-2"]'
nf=unschedulable/volume-claim-not-found
expect "--explain prefilter" 0 "$bin" --explain --nodes $nf/nodes.yaml $nf/manifest.yaml
has "--explain prefilter line" "$tmp/out" "    VolumeBinding's PreFilter: persistentvolumeclaim \"cache\" not found (every node)"
# --explain where no node passes: the whole message, and each node's preemption verdict
pm=preemption-required/preemption-makes-room
expect "--explain preemption" 0 "$bin" --explain --nodes $pm/nodes.yaml --pods $pm/pods.yaml $pm/manifest.yaml
has "--explain victims" "$tmp/out" "    preemption on gpu-node-1  victims: batch/nightly-batch-5d8f7 (priority 0); nominated"
has "--explain not helpful" "$tmp/out" "    preemption on cpu-node-1  not helpful: NodeAffinity fails, which evicting pods does not change"
has "--explain placed by preemption" "$tmp/out" "  placed by preemption: replica pod 1 on gpu-node-1, evicting batch/nightly-batch-5d8f7 (priority 0)"
expect "--explain preemption json" 0 "$bin" --explain --format json --nodes $pm/nodes.yaml --pods $pm/pods.yaml $pm/manifest.yaml
has "--explain json victims" "$tmp/out" '"verdict":	"victims"'
has "--explain json nominated" "$tmp/out" '"nominated":	true'
# --explain with a pool: each pool's verdict for the first pod, a NodePool given in the manifests
# and in the inventory listed once
np=node-pools/pool-in-manifest-and-inventory
expect "--explain pools" 0 "$bin" --explain --nodes $np/nodes.yaml $np/manifest.yaml
has "--explain a pool's verdict" "$tmp/out" "    NodePool gpu: admits (what a new node holds is not known: assumed to have room)"
if [ "$(grep -c 'NodePool gpu:' "$tmp/out")" = 1 ]; then ok; else bad "--explain pools: NodePool gpu listed other than once" "$tmp/out"; fi
expect "--explain pools json" 0 "$bin" --explain --format json --nodes $np/nodes.yaml $np/manifest.yaml
has "--explain json pool" "$tmp/out" '"kind":	"NodePool"'
# --explain for a DaemonSet: one pod pinned to each node the controller selects, not replicas
ds=unschedulable/daemonset-full-node
expect "--explain daemonset" 0 "$bin" --explain --nodes $ds/nodes.yaml --pods $ds/pods.yaml $ds/manifest.yaml
has "--explain daemonset header" "$tmp/out" "manifest.yaml:6): one pod on each node it selects"
has "--explain daemonset runs" "$tmp/out" "  node-1  runs   a pod of it runs here"
has "--explain daemonset never" "$tmp/out" "  node-2  never  NodeResourcesFit: Insufficient cpu (stays Pending)"
has "--explain daemonset totals" "$tmp/out" "  on 3 of 3 nodes: 2 run a pod of it, 0 more fit, 1 never fits"
hasnt "--explain daemonset replicas" "$tmp/out" "replicas"
expect "--explain daemonset json" 0 "$bin" --explain --format json --nodes $ds/nodes.yaml --pods $ds/pods.yaml $ds/manifest.yaml
has "--explain json daemonset" "$tmp/out" '"pod":	"never_fits"'
dn=daemonset-no-nodes/gpu-label-key-typo
expect "--explain daemonset nowhere" 0 "$bin" --explain --nodes $dn/nodes.yaml $dn/manifest.yaml
has "--explain daemonset nowhere" "$tmp/out" "  on no node: 0/3 nodes are available: 3 node(s) didn't match Pod's node affinity/selector."
# --explain for a pod that claims devices (DRA): per node, the matching devices it reaches
dr=rollout-deadlock/dra-seed
expect "--explain devices" 0 "$bin" --explain --nodes $dr/nodes.yaml $dr/manifest.yaml
has "--explain devices header" "$tmp/out" "  devices of its pods (1 in 1 ResourceSlice):"
has "--explain devices request" "$tmp/out" "    claim template single-gpu, request gpu: 1 device of class gpu.nvidia.com"
has "--explain devices node" "$tmp/out" "      tracker-node: 1 matching, 0 held by claims"
expect "--explain devices json" 0 "$bin" --explain --format json --nodes $dr/nodes.yaml $dr/manifest.yaml
has "--explain json devices" "$tmp/out" '"deviceClassName":	"gpu.nvidia.com"'
# --explain for a Job: its counts beside the pods at once
jw=insufficient-capacity/job-parallelism-in-waves
expect "--explain job json" 0 "$bin" --explain --format json --nodes $jw/nodes.yaml $jw/manifest.yaml
has "--explain json batch" "$tmp/out" '"pods_in_all":'
pv=preemption-required/pdb-protected-victim
expect "--explain budget" 0 "$bin" --explain --nodes $pv/nodes.yaml --pods $pv/pods.yaml $pv/manifest.yaml $pv/pdbs.yaml
has "--explain budget" "$tmp/out" "    preemption on gpu-node-1  victims: batch/nightly-batch-5d8f7 (priority 0; breaks PodDisruptionBudget batch/nightly-batch)"
has "--explain budget nominated" "$tmp/out" "    preemption on gpu-node-2  victims: research/sweep-2c4x9 (priority 0); nominated"
ep=preemption-required/equal-priority-near-miss
expect "--explain no victims" 0 "$bin" --explain --nodes $ep/nodes.yaml --pods $ep/pods.yaml $ep/manifest.yaml
has "--explain whole message" "$tmp/out" "Pod's node affinity/selector. no new claims to deallocate, preemption: 0/2 nodes are available: 1 No preemption victims found for incoming pod, 1 Preemption is not helpful for scheduling."
has "--explain no victims" "$tmp/out" "    preemption: no victims on any node: no running pod's priority is below the pod's (1000000)"
# The PostFilter's part by release: 1.26 to 1.29 double the period, DynamicResources not in the profile.
expect "--explain 1.28" 0 "$bin" --explain --kube-version 1.28 --nodes $ep/nodes.yaml --pods $ep/pods.yaml $ep/manifest.yaml
has "--explain 1.28 message" "$tmp/out" "Pod's node affinity/selector. preemption: 0/2 nodes are available: 1 No preemption victims found for incoming pod, 1 Preemption is not helpful for scheduling.."
np=preemption-required/preemption-policy-never-near-miss
expect "--explain Never" 0 "$bin" --explain --nodes $np/nodes.yaml --pods $np/pods.yaml $np/manifest.yaml
has "--explain Never" "$tmp/out" "    preemption: none, the pod's preemptionPolicy is Never"
expect "--explain without nodes" 0 "$bin" --explain $seed/manifest.yaml
has "--explain no nodes" "$tmp/out" "no nodes known"

# the config: found upward from the working directory up to the repository root, or given, or not
for o in --config --no-config --exclude --disable --show-suppressed --diff --dry-run; do
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
hasnt "--no-config: no inventory from the config" "$tmp/out" "[rollout-deadlock]"
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

# Files that are not manifests never fail a run; a chart's files are left for `helm template`
repo=repository/ordinary-repo
expect "tsconfig.json given by name" 0 "$bin" $repo/tsconfig.json
expect "a workflow given by name" 0 "$bin" $repo/.github/workflows/deploy.yml
expect "compose and package.json" 0 "$bin" $repo/docker-compose.yml $repo/web/package.json
printf 'a: [b\n' >"$tmp/broken-notes.yaml"
expect "broken YAML that is no manifest" 0 "$bin" "$tmp/broken-notes.yaml"
printf 'apiVersion: v1\nkind: Pod\nmetadata: {name: [x\n' >"$tmp/broken-pod.yaml"
expect "broken YAML that looks like a manifest" 2 "$bin" "$tmp/broken-pod.yaml"
has "broken manifest" "$tmp/err" "broken-pod.yaml:4:1: error: invalid YAML"
printf '{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}\n' >"$tmp/broken-pod.json"
expect "broken JSON that looks like a manifest" 2 "$bin" "$tmp/broken-pod.json"
expect "a chart's template by name" 0 "$bin" $repo/charts/web/templates/deployment.yaml $repo/charts/web/values.yaml
has "a chart's note" "$tmp/err" "$repo/charts/web/Chart.yaml:1:1: note: a Helm chart"
has "how to render it" "$tmp/err" "helm template $repo/charts/web | schedlint --stdin-filename $repo/charts/web/rendered.yaml -"
[ "$(grep -c 'note: a Helm chart' "$tmp/err")" = 1 ] && pass=$((pass + 1)) || {
	echo "FAIL one note per chart"
	fail=$((fail + 1))
}
expect "a chart's templates directory" 0 sh -c "cd $repo/charts/web && '$bin' templates"
has "a chart from inside" "$tmp/err" "Chart.yaml:1:1: note: a Helm chart: its templates are not YAML until rendered, so its files are not checked; check what it renders: helm template . | schedlint --stdin-filename rendered.yaml -"
cp $repo/charts/web/templates/deployment.yaml "$tmp/loose-template.yaml"
expect "a template outside a chart" 2 "$bin" "$tmp/loose-template.yaml"
has "a template outside a chart" "$tmp/err" "loose-template.yaml:4:9: error: this is a Go template (Helm?), not YAML: render it first"
printf 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: alerts}\ndata:\n  text: "{{ $labels.instance }} is down"\n' >"$tmp/cm.yaml"
expect "a template inside a string is data" 0 "$bin" "$tmp/cm.yaml"
# the same beside a workload, in a document the loader otherwise drops unread
{ cat "$tmp/cm.yaml"; echo ---; cat $seed/manifest.yaml; } >"$tmp/cm-and-deploy.yaml"
expect "a template inside a string, beside a workload" 1 "$bin" --nodes $seed/nodes.yaml "$tmp/cm-and-deploy.yaml"
hasnt "a template inside a string, beside a workload" "$tmp/err" "Go template"
expect "rendered chart on stdin, named inside the chart" 1 sh -c "'$bin' --nodes $seed/nodes.yaml --stdin-filename $repo/charts/web/rendered.yaml - < $seed/manifest.yaml"
has "rendered chart on stdin" "$tmp/out" "$repo/charts/web/rendered.yaml:11:1: error:"
printf 'a: &a [x, x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\nc: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\nd: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]\ne: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d, *d]\nf: &f [*e, *e, *e, *e, *e, *e, *e, *e, *e, *e]\ng: &g [*f, *f, *f, *f, *f, *f, *f, *f, *f, *f]\n' >"$tmp/bomb.yaml"
expect "an alias bomb is an error, manifest or not" 2 "$bin" "$tmp/bomb.yaml"

# 20,000 nested flow mappings in each reader, under a key it keeps or one it drops: a depth error,
# promptly (a hang guard, not a benchmark: libyaml's time grows with the square of the depth)
awk 'BEGIN { printf "apiVersion: v1\nkind: Node\nmetadata: {name: deep}\nextra: "
	for (i = 0; i < 20000; i++) printf "{a: "; printf "1"; for (i = 0; i < 20000; i++) printf "}"; print "" }' >"$tmp/deep.yaml"
for how in "--nodes:$tmp/deep.yaml $seed/manifest.yaml" "--pods:$tmp/deep.yaml $seed/manifest.yaml" \
	"manifest:$tmp/deep.yaml" "--config:$tmp/deep.yaml $seed/manifest.yaml"; do
	opt=${how%%:*} args=${how#*:}
	[ "$opt" = manifest ] && opt=
	expect "20,000 levels deep ($how)" 2 limited 10 "$bin" $opt $args
	has "20,000 levels deep ($how)" "$tmp/err" "deep.yaml:4:"
	has "20,000 levels deep ($how)" "$tmp/err" "error: document nests deeper than 256 levels"
	bounded "20,000 levels deep ($how)" 1 $opt $args
done

# Hostile input in every reader ends promptly with a clear error: a billion laughs, a file past
# 64 MiB (a 100 MB scalar), more documents than --max-documents
# (the inventory readers drop what is not a Node or a Pod unexpanded: a result, not an error)
for opt in --config manifest; do
	o=$opt
	[ "$o" = manifest ] && o=
	expect "a billion laughs ($opt)" 2 limited 10 "$bin" $o "$tmp/bomb.yaml" $seed/manifest.yaml
	has "a billion laughs ($opt)" "$tmp/err" "(an alias bomb?)"
	bounded "a billion laughs ($opt)" 2 $o "$tmp/bomb.yaml" $seed/manifest.yaml
done
for opt in --nodes --pods; do
	expect "a billion laughs ($opt), dropped unexpanded" 0 limited 10 "$bin" $opt "$tmp/bomb.yaml" $seed/manifest.yaml
	bounded "a billion laughs ($opt)" 2 $opt "$tmp/bomb.yaml" $seed/manifest.yaml
done
sed 's/^a: /items: [{apiVersion: v1, kind: Node, metadata: {name: n, labels: {x: *g}}}]\na: /' "$tmp/bomb.yaml" |
	awk '/^items:/ { keep = $0; next } { print } END { print keep }' >"$tmp/bomb-node.yaml"
expect "a billion laughs in a Node's labels (--nodes)" 2 limited 10 "$bin" --nodes "$tmp/bomb-node.yaml" $seed/manifest.yaml
has "a billion laughs in a Node's labels (--nodes)" "$tmp/err" "(an alias bomb?)"
bounded "a billion laughs in a Node's labels (--nodes)" 2 --nodes "$tmp/bomb-node.yaml" $seed/manifest.yaml
awk 'BEGIN { printf "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: big}\ndata: {a: \""
	s = "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
	for (i = 0; i < 1000000; i++) printf "%s", s; print "\"}" }' >"$tmp/huge.yaml"
expect "a 100 MB scalar" 2 limited 10 "$bin" "$tmp/huge.yaml" $seed/manifest.yaml
has "a 100 MB scalar" "$tmp/err" "huge.yaml:1:1: error: file is larger than 64 MiB (--max-file-size)"
bounded "a 100 MB scalar" 2 "$tmp/huge.yaml" $seed/manifest.yaml
bounded "a 100 MB scalar on stdin" 2 - <"$tmp/huge.yaml"
expect "a 100 MB scalar on stdin" 2 sh -c "'$bin' - <'$tmp/huge.yaml'"
has "a 100 MB scalar on stdin" "$tmp/err" "-:1:1: error: input is larger than 64 MiB (--max-file-size)"
rm -f "$tmp/huge.yaml"
awk 'BEGIN { for (i = 0; i < 100000; i++) printf "---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: c%d}\n", i }' >"$tmp/many.yaml"
expect "100,000 documents" 2 limited 10 "$bin" "$tmp/many.yaml"
has "100,000 documents" "$tmp/err" "error: more than 10000 documents in one file (--max-documents)"
bounded "100,000 documents" 2 "$tmp/many.yaml"
expect "--max-documents" 0 limited 20 "$bin" --max-documents 100000 "$tmp/many.yaml"
expect "--max-documents 0" 2 "$bin" --max-documents 0 "$tmp/many.yaml"
# Every limit can be set: lower ones stop ordinary files with their error, absurd values are
# usage errors
expect "--max-depth 4" 2 "$bin" --max-depth 4 $seed/manifest.yaml
has "--max-depth 4" "$tmp/err" "error: document nests deeper than 4 levels (--max-depth)"
expect "--max-depth 2000" 2 "$bin" --max-depth 2000 $seed/manifest.yaml
has "--max-depth 2000" "$tmp/err" "schedlint: error: --max-depth is at most 1024, not '2000'"
expect "--max-nodes 50" 2 "$bin" --max-nodes 50 $seed/manifest.yaml
has "--max-nodes 50" "$tmp/err" "error: document holds more than 50 nodes (--max-nodes)"
expect "--max-alias-nodes 1000" 2 "$bin" --max-alias-nodes 1000 "$tmp/bomb.yaml"
has "--max-alias-nodes 1000" "$tmp/err" "more than 1000 nodes through aliases (an alias bomb?); --max-alias-nodes sets the limit"
expect "--max-file-size 1K" 2 "$bin" --max-file-size 1K $seed/manifest.yaml
has "--max-file-size 1K" "$tmp/err" "manifest.yaml:1:1: error: file is larger than 1024 bytes (--max-file-size)"
expect "--max-file-size 1M" 1 "$bin" --max-file-size 1M --nodes $seed/nodes.yaml $seed/manifest.yaml
expect "--max-file-size 2G" 2 "$bin" --max-file-size 2G $seed/manifest.yaml
has "--max-file-size 2G" "$tmp/err" "--max-file-size is at most 1073741824 bytes, not '2G'"
expect "--max-file-size 10X" 2 "$bin" --max-file-size 10X $seed/manifest.yaml
has "--max-file-size 10X" "$tmp/err" "--max-file-size takes a positive number (with K, M or G), not '10X'"

# The Kubernetes release: --kube-version takes 1.X (v1.X, 1.X.Y); below 1.20 or not a release is a
# usage error; above what schedlint knows it is judged as the newest, and --explain says so, as it
# says where the release came from
expect "--kube-version 1.19" 2 "$bin" --kube-version 1.19 $seed/manifest.yaml
has "--kube-version 1.19" "$tmp/err" "schedlint: error: --kube-version takes a Kubernetes release from 1.20, such as 1.35, not '1.19'"
expect "--kube-version banana" 2 "$bin" --kube-version banana $seed/manifest.yaml
expect "--kube-version v1.29.4" 1 "$bin" --kube-version v1.29.4 --nodes $seed/nodes.yaml $seed/manifest.yaml
expect "--kube-version 1.40 --explain" 0 "$bin" --kube-version 1.40 --explain --nodes $seed/nodes.yaml $seed/manifest.yaml
has "--kube-version 1.40 --explain" "$tmp/out" "  Kubernetes 1.40 (--kube-version 1.40; judged as 1.35, the newest release schedlint knows)"
expect "the default release in --explain" 0 "$bin" --explain --nodes $seed/nodes.yaml $seed/manifest.yaml
has "the default release in --explain" "$tmp/out" "  Kubernetes 1.35 (the default: no --kube-version, kubernetesVersion or kubeletVersion)"
expect "the release in --explain JSON" 0 "$bin" --explain --format json --kube-version 1.28 --nodes $seed/nodes.yaml $seed/manifest.yaml
has "the release in --explain JSON" "$tmp/out" '"version":	"1.28"'

# --feature-gates NAME=BOOL,... as kube-scheduler takes it: the Workload API's gates turn
# Kubernetes' own gangs on; a gate schedlint does not model is a warning naming the nearest one, the
# run goes on; a pair without a boolean is a usage error
wg=insufficient-capacity/workload-gang-runs-nothing
expect "--feature-gates on" 1 "$bin" --feature-gates GenericWorkload=true,GangScheduling=true --nodes $wg/nodes.yaml $wg/manifest.yaml
has "--feature-gates on" "$tmp/out" "runs nothing: a gang of minCount 3 (Workload trainer, pod group workers)"
expect "--feature-gates repeated, spaces, 1 and T" 1 "$bin" --feature-gates "GenericWorkload = 1," --feature-gates GangScheduling=T --nodes $wg/nodes.yaml $wg/manifest.yaml
has "--feature-gates repeated, spaces, 1 and T" "$tmp/out" "runs nothing: a gang of minCount 3"
expect "--feature-gates later wins" 1 "$bin" --feature-gates GenericWorkload=true,GangScheduling=true --feature-gates GangScheduling=false --nodes $wg/nodes.yaml $wg/manifest.yaml
has "--feature-gates later wins" "$tmp/err" "GangScheduling=false (--feature-gates), so the scheduler places these pods one by one"
hasnt "--feature-gates later wins" "$tmp/out" "runs nothing"
expect "--feature-gates typo" 1 "$bin" --feature-gates GenericWorkload=true,GangSchedulng=true --nodes $wg/nodes.yaml $wg/manifest.yaml
has "--feature-gates typo" "$tmp/err" "schedlint: warning: --feature-gates: GangSchedulng is not a feature gate schedlint models (did you mean GangScheduling?); it is ignored"
expect "--feature-gates unknown, nothing near" 1 "$bin" --feature-gates SidecarContainers=true --nodes $wg/nodes.yaml $wg/manifest.yaml
has "--feature-gates unknown, nothing near" "$tmp/err" "schedlint: warning: --feature-gates: SidecarContainers is not a feature gate schedlint models; it is ignored"
expect "--feature-gates no value" 2 "$bin" --feature-gates GangScheduling $wg/manifest.yaml
has "--feature-gates no value" "$tmp/err" "schedlint: error: --feature-gates takes NAME=BOOL pairs separated by commas: missing bool value for GangScheduling"
expect "--feature-gates not a bool" 2 "$bin" --feature-gates GenericWorkload=yes $wg/manifest.yaml
has "--feature-gates not a bool" "$tmp/err" "invalid value of GenericWorkload=yes: a feature gate is true or false"
expect "--feature-gates typo before a bad pair: the usage error only" 2 "$bin" --feature-gates GangSchedulng=true,GenericWorkload=maybe $wg/manifest.yaml
hasnt "--feature-gates typo before a bad pair: the usage error only" "$tmp/err" "warning"
printf 'featureGates:\n  GenericWorkload: "yes"\n  GangScheduling: [true]\n' >"$tmp/gates.yaml"
expect "featureGates not booleans" 2 "$bin" --config "$tmp/gates.yaml" $wg/manifest.yaml
has "featureGates not booleans" "$tmp/err" "gates.yaml:2:20: error: featureGates: GenericWorkload is true or false, not 'yes'"
has "featureGates not booleans" "$tmp/err" "gates.yaml:3:19: error: featureGates: GangScheduling is true or false, not a list"
printf 'featureGates: [GangScheduling]\n' >"$tmp/gates.yaml"
expect "featureGates not a mapping" 2 "$bin" --config "$tmp/gates.yaml" $wg/manifest.yaml
has "featureGates not a mapping" "$tmp/err" "featureGates of the config is a mapping of gate names to true or false, not a list"
printf 'featureGates: {GenericWorkload: true, GangScheduling: true}\n' >"$tmp/gates.yaml"
expect "--feature-gates over featureGates" 1 "$bin" --config "$tmp/gates.yaml" --feature-gates GenericWorkload=false --nodes $wg/nodes.yaml $wg/manifest.yaml
has "--feature-gates over featureGates" "$tmp/err" "GenericWorkload=false (--feature-gates)"

# --explain ends a target with the release view, in text and in JSON
rc3=release-capacity/three-cpu
expect "release view" 0 "$bin" --explain --nodes $rc3/nodes.yaml $rc3/manifest.yaml
has "release view" "$tmp/out" "  cpu: the workloads ask 18, at most 12 fits (see release-capacity)"
expect "release view JSON" 0 "$bin" --explain --format json --nodes $rc3/nodes.yaml $rc3/manifest.yaml
has "release view JSON" "$tmp/out" '"resource":	"cpu",'

# A directory walk visits each directory once: two symlinks to the tree itself end with a note
# each; a FIFO, found or given, is refused without being opened (limited's wall-clock guard ends
# a run that opens one and blocks)
mkdir -p "$tmp/loop/sub"
cp $seed/manifest.yaml "$tmp/loop/sub/app.yaml"
ln -s . "$tmp/loop/a"
ln -s . "$tmp/loop/b"
expect "symlink loops end" 1 limited 10 "$bin" --nodes $seed/nodes.yaml "$tmp/loop"
bounded "symlink loops end" 1 --nodes $seed/nodes.yaml "$tmp/loop"
has "symlink loops end: a note" "$tmp/err" "loop/a:1:1: note: a directory already read"
has "symlink loops end: the finding once" "$tmp/out" "loop/sub/app.yaml:11:1: error:"
[ "$(grep -c ': error:' "$tmp/out")" = 1 ] && pass=$((pass + 1)) || {
	echo "FAIL symlink loops: the finding more than once"
	fail=$((fail + 1))
}
mkfifo "$tmp/loop/sub/pipe.yaml"
expect "a FIFO found in a walk" 2 limited 10 "$bin" "$tmp/loop"
has "a FIFO found in a walk" "$tmp/err" "pipe.yaml:1:1: error: a FIFO, not a regular file: not read"
expect "a FIFO given" 2 limited 10 "$bin" "$tmp/loop/sub/pipe.yaml" $seed/manifest.yaml
rm "$tmp/loop/sub/pipe.yaml"
# the same file given twice (or by two names) is read once: one finding, not two
expect "a file given twice" 1 "$bin" --nodes $seed/nodes.yaml $seed/manifest.yaml ./$seed/manifest.yaml
[ "$(grep -c ': error:' "$tmp/out")" = 1 ] && pass=$((pass + 1)) || {
	echo "FAIL a file given twice: its finding reported twice"
	fail=$((fail + 1))
}

# SARIF is written as it is built, a result at a time: its peak memory is the text report's, give
# or take, not the whole log held as a tree and again as text. 2,000 findings with their proofs,
# related locations and fixes; the release build, measured by tests/rusage.c (skipped without).
if [ -x "$rel" ] && [ -x "$rusage" ]; then
	mkdir -p "$tmp/many"
	awk -v dir="$tmp/many" '{ line[NR] = $0 } END { for (i = 0; i < 2000; i++) { f = dir "/m" i ".yaml"
		for (j = 1; j <= NR; j++) { l = line[j]; gsub(/vision-object-tracker/, "t" i, l); print l > f }
		close(f) } }' $seed/manifest.yaml
	peak_kb() { # schedlint's arguments: its peak RSS on the 2,000 files
		"$rusage" "$rel" --no-config --nodes $seed/nodes.yaml -o "$tmp/many.out" "$@" "$tmp/many" 2>/dev/null |
			tail -n 1 | awk '{ print $3 }'
	}
	text_kb=$(peak_kb -f text)
	sarif_kb=$(peak_kb -f sarif)
	[ -n "$text_kb" ] && [ -n "$sarif_kb" ] && [ $((sarif_kb * 4)) -le $((text_kb * 5)) ] && ok ||
		bad "SARIF's peak RSS ${sarif_kb:-?} KB against text's ${text_kb:-?} KB: more than 1.25 times"
else
	skip "SARIF's peak RSS within 1.25 times text's" "no release build ./schedlint or build/rusage (make schedlint build/rusage)"
fi

# No filesystem storm: files given one by one (as a pre-commit hook or `git ls-files | xargs`
# gives them) cost their own stat, open and fstat, not a walk up to the repository root per file
# looking for a chart, nor a getcwd per file, in the text, SARIF (whose every location is
# anchored) and --fix runs. Counted as the slope between 1 and 41 files of one directory, so what
# the start costs (the sanitizers' included) does not count; skipped without strace.
if command -v strace >/dev/null 2>&1; then
	mkdir -p "$tmp/storm/a/b/c"
	i=0 files=
	while [ $i -le 40 ]; do
		files="$files a/b/c/m$i.yaml"
		printf 'apiVersion: v1\nkind: Pod\nmetadata: {name: p%s, name: q}\nspec: {containers: [{name: c, image: i}]}\n' \
			$i >"$tmp/storm/a/b/c/m$i.yaml"
		i=$((i + 1))
	done
	syscalls() { # what to count (a grep -E pattern), schedlint's arguments...
		what=$1
		shift
		(cd "$tmp/storm" && strace -f -qq -o "$tmp/trace" -e trace=%stat,%file,getcwd "$bin" "$@" >/dev/null 2>&1)
		grep -c -E "^[0-9]+ +($what)\(" "$tmp/trace"
	}
	for how in "text:" "sarif:-f sarif" "fix:--fix"; do
		opts=${how#*:}
		one=$(syscalls 'getcwd' $opts a/b/c/m0.yaml)
		all=$(syscalls 'getcwd' $opts $files)
		[ "$one" = "$all" ] && ok || bad "${how%%:*}: getcwd $one times for 1 file, $all for 41"
		one=$(syscalls '[a-z]*stat[a-z0-9]*|readlink[a-z]*' $opts a/b/c/m0.yaml)
		all=$(syscalls '[a-z]*stat[a-z0-9]*|readlink[a-z]*' $opts $files)
		[ $((all - one)) -le 80 ] && ok ||
			bad "${how%%:*}: $one stat and readlink calls for 1 file, $all for 41 (at most 2 a file)"
	done
else
	skip "no filesystem storm: stat, readlink and getcwd per file given" "no strace" 6
fi

# SARIF locations are relative to the repository root (SRCROOT), whatever path was typed
# The tree filter (treeneed.c): an anchor in an entry left out (a container's env) after a document
# nothing reads, pages long, parses the file again whole, its bytes still there; a document's kind
# written again after entries were left out for the first parses it again too, the key warned of once.
{ printf 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: big}\ndata:\n'
	i=0; while [ $i -lt 400 ]; do printf '  k%d: value-%d-xxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\n' $i $i; i=$((i + 1)); done
	printf -- '---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec:\n  selector: {matchLabels: {app: web}}\n'
	printf '  template:\n    metadata: {labels: {app: web}}\n    spec:\n      containers:\n'
	printf '      - {name: a, image: x, env: &e [{name: v}]}\n      - {name: b, image: x, env: *e}\n'; } >"$tmp/forgot.yaml"
expect "an anchor left out after a document not kept" 0 "$bin" --no-config "$tmp/forgot.yaml"
hasnt "an anchor left out after a document not kept" "$tmp/err" "control characters"
printf 'apiVersion: apps/v1\nkind: ConfigMap\nmetadata: {name: web}\nspec: {replicas: 1}\nkind: Deployment\n' >"$tmp/rekind.yaml"
expect "a kind written again" 0 "$bin" --no-config "$tmp/rekind.yaml"
has "a kind written again" "$tmp/err" "duplicate key 'kind'"
[ "$(grep -c "duplicate key" "$tmp/err")" = 1 ] && pass=$((pass + 1)) || {
	echo "FAIL a kind written again: warned of $(grep -c "duplicate key" "$tmp/err") times"
	fail=$((fail + 1))
}

# A large inventory List is parsed in two pieces at once (linter/load/ysplit.c) unless its `items:`
# line carries a comment: the same pods, the same bytes and lines, must give the same report,
# running pods charged to the nodes and the bad quantities of both halves in order, the second's at its
# line and column.
for how in split:'items:  ' whole:'items: #'; do
	mkdir -p "$tmp/${how%%:*}"
	awk -v items="${how#*:}" 'BEGIN { print "apiVersion: v1"; print items
		for (i = 0; i < 8000; i++)
			printf "- apiVersion: v1\n  kind: Pod\n  metadata:\n    name: p%05d\n    namespace: default\n  spec:\n    containers:\n    - name: c\n      resources:\n        requests:\n          cpu: %s\n    nodeName: tracker-node\n  status:\n    phase: Running\n", i, i == 6000 ? "lots" : i == 100 ? "much" : "1m"
		print "kind: List"; print "metadata:"; print "  resourceVersion: \"\"" }' >"$tmp/${how%%:*}/pods.yaml"
	cp $seed/nodes.yaml $seed/manifest.yaml "$tmp/${how%%:*}/"
	expect "a large pods List ($how)" 2 sh -c "cd '$tmp/${how%%:*}' && '$bin' -f text -f sarif -o report.sarif --nodes nodes.yaml --pods pods.yaml manifest.yaml"
	mv "$tmp/out" "$tmp/${how%%:*}/report.txt"
	mv "$tmp/err" "$tmp/${how%%:*}/report.err"
	sed "s|$tmp/${how%%:*}/|DIR/|" "$tmp/${how%%:*}/report.sarif" >"$tmp/${how%%:*}/report.sarif.dir"
done
same "a large pods List: the text report" "$tmp/split/report.txt" "$tmp/whole/report.txt"
same "a large pods List: the SARIF report" "$tmp/split/report.sarif.dir" "$tmp/whole/report.sarif.dir"
same "a large pods List: the errors" "$tmp/split/report.err" "$tmp/whole/report.err"
has "a large pods List: the first half's bad quantity" "$tmp/split/report.err" "pods.yaml:1413:16: error:"
has "a large pods List: the bad quantity" "$tmp/split/report.err" "pods.yaml:84013:16: error:"
has "a large pods List: every other pod charged" "$tmp/split/report.txt" "tracker-node: 0 (pod count 7998 of 110 used)"

mkdir -p "$tmp/anchor/.git" "$tmp/anchor/k8s"
cp $seed/manifest.yaml "$tmp/anchor/k8s/app.yaml"
cp $seed/nodes.yaml "$tmp/anchor/nodes.yaml"
for how in "k8s/app.yaml:." "./k8s/app.yaml:." "app.yaml:k8s" "../k8s/app.yaml:k8s" "$tmp/anchor/k8s/app.yaml:k8s"; do
	path=${how%:*} dir=${how##*:}
	expect "SARIF anchored ($path from $dir)" 1 sh -c "cd '$tmp/anchor' && cd '$dir' && '$bin' -f sarif --nodes '$tmp/anchor/nodes.yaml' '$path'"
	has "SARIF anchored ($path from $dir)" "$tmp/out" '"uri":	"k8s/app.yaml",'
	has "SARIF anchored ($path from $dir): base" "$tmp/out" '"uriBaseId":	"SRCROOT"'
	has "SARIF anchored ($path from $dir): SRCROOT" "$tmp/out" "\"uri\":	\"file://$(cd "$tmp/anchor" && pwd -P)/\""
done
# a file outside the repository keeps an absolute file: URI, without a base
cp $seed/manifest.yaml "$tmp/outside.yaml"
expect "SARIF outside the repository" 1 sh -c "cd '$tmp/anchor' && '$bin' -f sarif --nodes nodes.yaml ../outside.yaml"
has "SARIF outside the repository" "$tmp/out" "\"uri\":	\"file://$(cd "$tmp" && pwd -P)/outside.yaml\""
finish cli
