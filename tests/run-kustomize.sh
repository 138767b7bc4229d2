#!/bin/sh
# Kustomizations rendered, and findings on the files that wrote them (docs/kustomize.md), with the
# fixtures of fixtures/kustomize/. The rendering checks use the kustomize or kubectl on PATH and
# are skipped without one; the checks of a run without a renderer and of the config key always run.
# Usage: run-kustomize.sh SCHEDLINT    Last line: kustomize: N passed, M failed, S skipped
set -u
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
. "$(dirname "$0")/lib.sh"
cd "$(dirname "$0")/../fixtures/kustomize" || exit 1

run() { # expected exit, command...: output in $tmp/out, errors in $tmp/err
	want=$1
	shift
	"$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	if [ "$rc" != "$want" ] || grep -q -e Sanitizer -e 'runtime error' "$tmp/err"; then
		bad "$*: exit $rc, expected $want" "$tmp/err"
		return 1
	fi
	ok
}
has() { # description, file, fixed string
	if grep -qF -- "$3" "$2"; then ok; else bad "$1: no '$3'" "$2"; fi
}
hasnt() {
	if grep -qF -- "$3" "$2"; then bad "$1: '$3' is there" "$2"; else ok; fi
}

# Without a renderer: a note per kustomization that none other uses, with how to check it; the
# patches are not read as manifests; the other files are, as before.
run 1 env PATH=/nonexistent "$bin" --color never --nodes nodes.yaml tree
for k in overlay-made base-made near-miss; do
	has "no renderer: $k" "$tmp/err" "tree/$k/prod/kustomization.yaml:1:1: note: a kustomization, not rendered (neither kustomize nor kubectl is on PATH)"
	has "no renderer: $k pipe" "$tmp/err" "kubectl kustomize tree/$k/prod | schedlint -"
	hasnt "no renderer: $k base noted" "$tmp/err" "tree/$k/base/kustomization.yaml"
done
hasnt "no renderer: a patch read as a manifest" "$tmp/out" "rolling.yaml"
hasnt "no renderer: a patch read as a manifest" "$tmp/out" "surge.yaml"
has "no renderer: a base still read" "$tmp/out" "tree/base-made/base/deploy.yaml:5:1: error: rollout of Deployment default/tracker"

# render.kustomize in the config: off, a slip, an unknown key, a wrong type.
mkdir -p "$tmp/cfg"
printf 'render:\n  kustomize: off\n' >"$tmp/cfg/off.yaml"
run 1 "$bin" --color never --config "$tmp/cfg/off.yaml" --nodes nodes.yaml tree
has "render.kustomize: off" "$tmp/err" "tree/overlay-made/prod/kustomization.yaml:1:1: note: a kustomization, not rendered (render.kustomize is off)"
printf 'render:\n  kustomize: of\n' >"$tmp/cfg/slip.yaml"
run 2 "$bin" --color never --config "$tmp/cfg/slip.yaml" --nodes nodes.yaml tree
has "render.kustomize: a slip" "$tmp/err" "render.kustomize is auto, off or a command, not 'of' (did you mean 'off'?)"
printf 'render:\n  kustomise: auto\n' >"$tmp/cfg/key.yaml"
run 2 "$bin" --color never --config "$tmp/cfg/key.yaml" --nodes nodes.yaml tree
has "render: an unknown key" "$tmp/err" "unknown key 'kustomise' in render (known: kustomize)"
printf 'render: kustomize\n' >"$tmp/cfg/type.yaml"
run 2 "$bin" --color never --config "$tmp/cfg/type.yaml" --nodes nodes.yaml tree
has "render: not a mapping" "$tmp/err" "render is a mapping (kustomize), not a scalar"
# A renderer that cannot be run: the render fails, as an error at the kustomization.
printf 'render:\n  kustomize: schedlint-no-such-renderer build\n' >"$tmp/cfg/none.yaml"
run 2 "$bin" --color never --config "$tmp/cfg/none.yaml" --nodes nodes.yaml tree/base-made
has "render.kustomize: a command not there" "$tmp/err" "tree/base-made/prod/kustomization.yaml:1:1: error: kustomize build failed: cannot run the renderer: No such file or directory"

# A renderer whose output passes --max-file-size is stopped: an error, the run goes on.
printf 'render:\n  kustomize: yes\n' >"$tmp/cfg/yes.yaml"
run 2 "$bin" --color never --config "$tmp/cfg/yes.yaml" --max-file-size 1M --nodes nodes.yaml transformed broken/plain.yaml
has "output capped" "$tmp/err" "transformed/kustomization.yaml:1:1: error: kustomize build failed: its output is larger than --max-file-size"
has "output capped: the other file" "$tmp/out" "broken/plain.yaml:5:1: error: rollout of Deployment default/plain"

if ! command -v kustomize >/dev/null && ! command -v kubectl >/dev/null; then
	skip "rendering" "neither kustomize nor kubectl is on PATH" 35
	finish kustomize
	exit
fi

# The tree: (a) a deadlock only the overlay makes, at the patch's line; (b) one the base makes, at
# the base's line; (c) a near miss, silent. Nothing points into what kustomize rendered.
find tree -type f | sort >"$tmp/before"
run 1 "$bin" --color never --nodes nodes.yaml tree
has "overlay's deadlock at the patch" "$tmp/out" "tree/overlay-made/prod/rolling.yaml:7:3: error: rollout of Deployment default/prod-trainer can never finish"
has "overlay's nodeSelector in the base" "$tmp/out" "tree/overlay-made/base/deploy.yaml:18:9: note: the nodeSelector that narrows the candidate nodes"
has "base's deadlock at the base" "$tmp/out" "tree/base-made/base/deploy.yaml:5:1: error: rollout of Deployment vision/tracker can never finish"
has "no fix on the rendered text" "$tmp/out" "no fix is offered: it would edit what kustomize rendered"
hasnt "near miss" "$tmp/out" "detector"
hasnt "the rendered text" "$tmp/out" "rendered by kustomize"
hasnt "a base read twice" "$tmp/out" "default/tracker"
[ "$(grep -c ': error: ' "$tmp/out")" = 2 ] && ok || bad "two errors" "$tmp/out"
find tree -type f | sort >"$tmp/after"
cmp -s "$tmp/before" "$tmp/after" && ok || bad "the user's directories were written" "$tmp/after"
run 1 "$bin" --color never --format sarif --nodes nodes.yaml tree
has "SARIF: the patch" "$tmp/out" "\"fixtures/kustomize/tree/overlay-made/prod/rolling.yaml\""
hasnt "SARIF: the rendered text" "$tmp/out" "rendered by kustomize"

# The config's ignore entries match the file a finding is reported at.
cat >"$tmp/cfg/ignore.yaml" <<'EOF'
ignore:
  - {rules: [rollout-deadlock], path: '^tree/overlay-made/prod/rolling\.yaml$', reason: drained by hand}
EOF
run 1 "$bin" --color never --config "$tmp/cfg/ignore.yaml" --nodes nodes.yaml tree
hasnt "ignore: the patch's finding" "$tmp/out" "prod-trainer"
has "ignore: the other" "$tmp/out" "vision/tracker"

# A suppression comment in the patch, at the line the finding is moved to; one in the base that
# matches nothing is reported as unused.
cp -R tree/overlay-made "$tmp/supp"
sed -i 's/^  strategy:$/  strategy: # schedlint-ignore: rollout-deadlock drained by hand/' "$tmp/supp/prod/rolling.yaml"
sed -i 's/^  replicas: 1$/  replicas: 1 # schedlint-ignore: insufficient-capacity not here/' "$tmp/supp/base/deploy.yaml"
cp nodes.yaml "$tmp/nodes.yaml"
(cd "$tmp" && run 0 "$bin" --color never --nodes nodes.yaml supp)
hasnt "a comment in the patch" "$tmp/out" "error: rollout of Deployment"
has "a comment in the base that matches nothing" "$tmp/out" "supp/base/deploy.yaml:6:15: note: schedlint-ignore of insufficient-capacity matched no finding [unused-suppression]"

# A file of a kustomization given by name (pre-commit's way): its kustomization is rendered.
run 1 "$bin" --color never --nodes nodes.yaml tree/overlay-made/prod/rolling.yaml
has "a patch given by name" "$tmp/out" "tree/overlay-made/prod/rolling.yaml:7:3: error: rollout of Deployment default/prod-trainer"
# The base given alone is rendered alone: its Recreate strategy finishes.
run 0 "$bin" --color never --nodes nodes.yaml tree/overlay-made/base

# A value a transformer set (`replicas:` in the kustomization): at its entry.
run 1 "$bin" --color never --nodes nodes.yaml transformed
has "replicas: at the kustomization's entry" "$tmp/out" "transformed/kustomization.yaml:8:10: error: only 1 of the 3 replicas of Deployment default/web can run at once"

# A failed render: an error at the kustomization, exit 2, the other file still checked.
run 2 "$bin" --color never --nodes nodes.yaml broken
has "failed render" "$tmp/err" "broken/bad/kustomization.yaml:1:1: error: kustomize build failed: "
has "failed render: the other file" "$tmp/out" "broken/plain.yaml:5:1: error: rollout of Deployment default/plain"

# --fix where the value is written whole in a patch: the patch is fixed, and the overlay then
# renders clean.
cp -R tree/overlay-made "$tmp/fix"
cp nodes.yaml "$tmp/nodes.yaml"
printf 'apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: trainer\nspec:\n  strategy:\n    type: RollingUpdate\n    rollingUpdate:\n      maxSurge: 1\n      maxUnavailable: 0\n' >"$tmp/fix/prod/rolling.yaml"
(cd "$tmp" && run 1 "$bin" --color never --nodes nodes.yaml fix)
has "a value in a patch" "$tmp/out" "fix/prod/rolling.yaml:10:23: error: rollout of Deployment default/prod-trainer"
(cd "$tmp" && run 0 "$bin" --color never --fix --nodes nodes.yaml fix)
has "--fix: the patch" "$tmp/fix/prod/rolling.yaml" "maxUnavailable: 1"
(cd "$tmp" && run 0 "$bin" --color never --nodes nodes.yaml fix)
has "--fix: the base untouched" "$tmp/fix/base/deploy.yaml" "type: Recreate"

# Many patches of one object: each file is read once, and the mapping keeps its place in all.
cp -R tree/overlay-made "$tmp/many"
for i in 1 2 3 4 5 6 7 8 9 10 11 12; do
	printf 'apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: trainer\n  labels:\n    l%s: "x"\n' $i >"$tmp/many/prod/p$i.yaml"
	echo "- path: p$i.yaml" >>"$tmp/many/prod/kustomization.yaml"
done
(cd "$tmp" && run 1 "$bin" --color never --nodes nodes.yaml many)
has "many patches" "$tmp/out" "many/prod/rolling.yaml:7:3: error: rollout of Deployment default/prod-trainer"

# The renderer the config names: kubectl's, when there.
if command -v kubectl >/dev/null; then
	printf 'render:\n  kustomize: kubectl kustomize\n' >"$tmp/cfg/kubectl.yaml"
	run 1 "$bin" --color never --config "$tmp/cfg/kubectl.yaml" --nodes nodes.yaml tree
	has "render.kustomize: kubectl kustomize" "$tmp/out" "tree/overlay-made/prod/rolling.yaml:7:3: error:"
else
	skip "render.kustomize: kubectl kustomize" "no kubectl on PATH" 2
fi
finish kustomize
