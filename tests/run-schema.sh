#!/bin/sh
# docs/schedlint.schema.json, the JSON Schema of .schedlint.yaml, against the config reader, which
# decides: every config fixture, docs/configuration.md's example of the whole file, and a table of
# configs written here, each read by schedlint (`--config FILE --list-rules`: exit status 0 for a
# config it takes, 2 for one it rejects) and validated against the schema by Ajv after a YAML 1.2
# parse, as an editor's YAML language server does (tests/schema-check.js; ajv and yaml from npm,
# installed under build/npm-schema on first use). The two verdicts must agree, but for the
# configs listed as beyond a schema (a PCRE2 pattern that does not compile, ...). The invalid
# table has a case of every key kind, each with why it is invalid. Then: the schema's built-in
# rule ids are --list-rules's, and docs/configuration.md names the schema where it is.
# Skipped when node is missing. Usage: run-schema.sh SCHEDLINT
# Last line: schema: N passed, M failed, S skipped
set -u
[ $# -eq 1 ] && [ -x "$1" ] || { echo "usage: $0 SCHEDLINT" >&2; exit 2; }
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root" || exit 2
. "$root/tests/lib.sh"
schema=docs/schedlint.schema.json

# The schema's place in the docs holds without node.
grep -q -F '# yaml-language-server: $schema=' docs/configuration.md && [ -f "$schema" ] && ok ||
	bad "docs/configuration.md: no yaml-language-server line, or no $schema"

if ! command -v node >/dev/null 2>&1; then
	skip "schema: the config fixtures, the tables and the rule ids against $schema" "no node"
	finish schema
	exit $?
fi
mods=build/npm-schema/node_modules
if [ ! -d "$mods/ajv" ] || [ ! -d "$mods/yaml" ]; then
	echo "installing ajv and yaml under build/npm-schema"
	npm install --prefix build/npm-schema --no-audit --no-fund --loglevel=error ajv@8.17.1 yaml@2.8.1 \
		>"$tmp/npm.log" 2>&1 || { bad "npm install ajv yaml" "$tmp/npm.log"; finish schema; exit 1; }
fi

# schedlint's verdict on a config: valid or invalid (and why, its first error).
reader() { # file
	(cd "$(dirname "$1")" && "$bin" --config "$(basename "$1")" --list-rules) >/dev/null 2>"$tmp/reader.err"
	case $? in
	0) echo valid ;;
	2) echo "invalid: $(head -n 1 "$tmp/reader.err")" ;;
	*) echo "crashed: $(tail -n 3 "$tmp/reader.err")" ;;
	esac
}

# Configs written here, one a line: what it shows|the YAML (with \n, as printf %b writes it). Each must be taken
# by both, or refused by both.
mkdir -p "$tmp/valid" "$tmp/invalid"
table() { # directory: each line of stdin into N.yaml and N.why there; prints how many
	j=0
	while IFS='|' read -r why text; do
		j=$((j + 1))
		printf '%b' "$text" >"$1/$j.yaml"
		echo "$why" >"$1/$j.why"
	done
	echo $j
}
n_valid=$(table "$tmp/valid" <<'EOF'
an empty file|
an empty mapping|{}\n
rules: a level per built-in rule, off included|rules:\n  rollout-deadlock: off\n  unschedulable: warning\n
exclude: a single pattern, not a list|exclude: '^charts/'\n
exclude: a number is a pattern too|exclude: [2024]\n
ignore: rules all and a reason|ignore:\n  - rules: [all]\n    path: legacy\n    reason: drained by hand\n
ignore: one rule id as a string|ignore:\n  - rules: rollout-deadlock\n
rules and ignore: a policy's id|policies:\n  - id: team-label\n    message: a team\n    field: metadata.labels.team\n    match: '^[a-z]+$'\nrules:\n  team-label: error\nignore:\n  - rules: [team-label]\n    kind: Job\n
policies: a field with indexes and a quoted key|policies:\n  - id: p1\n    message: m\n    level: note\n    kinds: Deployment\n    field: spec.template.metadata.labels["app.kubernetes.io/name"]\n    match: x\n  - id: p2\n    message: m\n    field: podspec.containers[0].ports[*].name\n    forbid: x\n
kubernetesVersion: a bare number|kubernetesVersion: 1.30\n
kubernetesVersion: a patch release and a provider suffix|kubernetesVersion: "v1.30.4-eks-4f2c"\n
featureGates: 1 and f, as kube-scheduler takes them|featureGates:\n  GangScheduling: 1\n  PodLevelResources: f\n
featureGates: a gate schedlint does not model (a warning)|featureGates:\n  SchedulerQueueingHints: true\n
nodes and pods: strings or lists|nodes: inventory/nodes.yaml\npods: [a.yaml, b.yaml]\n
render: kustomize off, and a command|render:\n  kustomize: off\n
render: a command to run|render: {kustomize: /opt/kustomize/kustomize build}\n
nodePools: labels with numbers, max as a string, fromNode alone|nodePools:\n  - name: gpu\n    template:\n      labels: {node-group: gpu, generation: 5}\n      taints: [{key: gpu, effect: NoSchedule}]\n      allocatable: {cpu: 8, memory: 60Gi, nvidia.com/gpu: "1"}\n    max: "4"\n  - name: batch\n    template: {fromNode: batch-1}\n
targets: every key|targets:\n  - name: prod\n    paths: '^clusters/prod/'\n    nodes: [prod.yaml]\n    pods: prod-pods.yaml\n    kubernetesVersion: "1.31"\n    featureGates: {GenericWorkload: true}\n    nodePools: [{name: p, template: {labels: {a: b}}, max: 2}]\n
EOF
)
n_invalid=$(table "$tmp/invalid" <<'EOF'
the config: a list, not a mapping|- rules\n
the config: two documents|rules: {}\n---\nexclude: []\n
the config: an unknown key|exlude: ['^a/']\n
rules: a list, not a mapping|rules: [rollout-deadlock]\n
rules: a level that is not one|rules:\n  rollout-deadlock: fatal\n
rules: none is not a config level|rules:\n  rollout-deadlock: none\n
rules: an unknown rule id|rules:\n  rollout-deadlok: error\n
exclude: a mapping|exclude: {a: b}\n
exclude: an empty item|exclude: ['^a/', ]\nnodes: [~]\n
ignore: a mapping, not a list|ignore: {path: a}\n
ignore: an item that is not a mapping|ignore: [legacy]\n
ignore: an unknown key|ignore:\n  - names: '^a'\n
ignore: a reason alone would silence everything|ignore:\n  - reason: all of it\n
ignore: an unknown rule id|ignore:\n  - rules: [rollout-deadlok]\n
ignore: a pattern that is a list|ignore:\n  - path: [a, b]\n
policies: no id|policies:\n  - message: m\n    field: a\n    match: x\n
policies: an id with capitals|policies:\n  - id: TeamLabel\n    message: m\n    field: a\n    match: x\n
policies: a built-in rule's id|policies:\n  - id: rollout-deadlock\n    message: m\n    field: a\n    match: x\n
policies: both forbid and match|policies:\n  - id: p\n    message: m\n    field: a\n    match: x\n    forbid: y\n
policies: neither forbid nor match|policies:\n  - id: p\n    message: m\n    field: a\n
policies: no message|policies:\n  - id: p\n    field: a\n    match: x\n
policies: a level that is not one|policies:\n  - id: p\n    message: m\n    level: high\n    field: a\n    match: x\n
policies: a field that is not a path|policies:\n  - id: p\n    message: m\n    field: a..b\n    match: x\n
policies: a field index that is not a number|policies:\n  - id: p\n    message: m\n    field: a[x]\n    match: x\n
policies: an unknown key|policies:\n  - id: p\n    message: m\n    field: a\n    match: x\n    severity: error\n
nodes: a mapping|nodes: {file: a.yaml}\n
pods: an item that is a mapping|pods: [a.yaml, {b: c}]\n
nodePools: no name|nodePools:\n  - template: {labels: {a: b}}\n
nodePools: no template|nodePools:\n  - name: p\n    max: 3\n
nodePools: a taint effect that is not one|nodePools:\n  - name: p\n    template:\n      taints: [{key: a, effect: NoScheduling}]\n
nodePools: max that is not a whole number|nodePools:\n  - name: p\n    template: {labels: {a: b}}\n    max: many\n
nodePools: a negative max|nodePools:\n  - name: p\n    template: {labels: {a: b}}\n    max: -1\n
nodePools: a quantity that is not one|nodePools:\n  - name: p\n    template:\n      allocatable: {nvidia.com/gpu: one}\n
nodePools: a negative quantity|nodePools:\n  - name: p\n    template:\n      allocatable: {cpu: -2}\n
nodePools: fromNode with labels|nodePools:\n  - name: p\n    template: {fromNode: n1, labels: {a: b}}\n
nodePools: an unknown key in the template|nodePools:\n  - name: p\n    template: {label: {a: b}}\n
nodePools: an unknown key|nodePools:\n  - name: p\n    template: {labels: {a: b}}\n    maximum: 3\n
nodePools: a label key the API server rejects|nodePools:\n  - name: p\n    template:\n      labels: {-gpu: "yes"}\n
nodePools: a label value the API server rejects|nodePools:\n  - name: p\n    template:\n      labels: {gpu: "yes please"}\n
kubernetesVersion: before 1.20|kubernetesVersion: "1.19"\n
kubernetesVersion: not a release|kubernetesVersion: "2.1"\n
kubernetesVersion: a mapping|kubernetesVersion: {major: 1}\n
featureGates: a list|featureGates: [GangScheduling]\n
render: a key that is not kustomize|render: {kustomise: off}\n
render: kustomize empty|render: {kustomize: ""}\n
render: a list|render: [kustomize]\n
featureGates: a value that is not a boolean|featureGates:\n  GangScheduling: maybe\n
targets: a mapping, not a list|targets: {name: prod}\n
targets: no paths|targets:\n  - name: prod\n    nodes: [prod.yaml]\n
targets: no name|targets:\n  - paths: '^prod/'\n
targets: the reserved name default|targets:\n  - name: default\n    paths: '^prod/'\n
targets: an unknown key|targets:\n  - name: prod\n    paths: '^prod/'\n    inventory: prod.yaml\n
targets: a kubernetesVersion that is not a release|targets:\n  - name: prod\n    paths: '^prod/'\n    kubernetesVersion: latest\n
EOF
)

# What the reader rejects and no schema can: the configs (fixtures or here) and why.
beyond='fixtures/config/error-bad-pattern/.schedlint.yaml|a PCRE2 pattern that does not compile (JSON Schema has no PCRE2)'

# The whole file's example in docs/configuration.md.
awk '/^## The file/ { c = 1 } c && /^```yaml/ { b = 1; next } b && /^```/ { exit } b' docs/configuration.md \
	>"$tmp/valid/docs-the-file.yaml"
echo "docs/configuration.md's example of the file" >"$tmp/valid/docs-the-file.why"

fixtures=$(ls fixtures/*/*/.schedlint.yaml fixtures/*/*/.schedlint.yml 2>/dev/null)
NODE_PATH=$root/$mods node tests/schema-check.js "$schema" $fixtures "$tmp"/valid/*.yaml "$tmp"/invalid/*.yaml \
	>"$tmp/schema.out" 2>&1
if ! grep -q -x 'schema: ok' "$tmp/schema.out"; then
	bad "$schema is not a usable draft-07 schema" "$tmp/schema.out"
	finish schema
	exit 1
fi
ok
said() { # file: the schema's verdict
	grep -F -e "valid $1" "$tmp/schema.out" | awk -v f="$1" '$2 == f || $2 == f ":" { print; exit }'
}
nfix=0
for f in $fixtures "$tmp"/valid/*.yaml "$tmp"/invalid/*.yaml; do
	r=$(reader "$f")
	s=$(said "$f")
	case $f in
	"$tmp"/valid/*) what="$(cat "${f%.yaml}.why") (valid)"; want=valid ;;
	"$tmp"/invalid/*) what="$(cat "${f%.yaml}.why") (invalid)"; want=invalid ;;
	*) what=$f; want=${r%%:*}; nfix=$((nfix + 1)) ;;
	esac
	case $r in crashed*) bad "$what: schedlint $r"; continue ;; esac
	if [ "${r%%:*}" != "$want" ]; then
		bad "$what: schedlint says $r"
		continue
	fi
	b=$(echo "$beyond" | awk -F'|' -v f="$f" '$1 == f { print $2 }')
	if [ -n "$b" ]; then
		# the reader rejects it, the schema cannot: the list must stay true
		[ "$want" = invalid ] && case $s in valid*) true ;; *) false ;; esac && ok ||
			bad "$what: listed as beyond a schema ($b), but schedlint says $r and the schema: $s"
		continue
	fi
	case $s in
	"$want "*) ok ;;
	*) bad "$what: schedlint says $r; the schema says: ${s:-nothing}" ;;
	esac
done
[ "$nfix" -ge 40 ] && ok || bad "only $nfix config fixtures found"

# The schema's built-in rules are the registry's.
"$bin" --no-config --list-rules | awk '{ print $1 }' | sort >"$tmp/ids"
node -e 'const s = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
	console.log(s.definitions.builtinRules.enum.sort().join("\n"))' "$schema" >"$tmp/schema-ids"
diff -u "$tmp/ids" "$tmp/schema-ids" >"$tmp/diff" && ok || bad "$schema: the built-in rule ids are not --list-rules's" "$tmp/diff"
finish schema " ($nfix fixtures, $n_valid valid and $n_invalid invalid configs of the tables)"
