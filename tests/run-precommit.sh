#!/bin/sh
# The pre-commit hooks as a user meets them: a throwaway repository whose .pre-commit-config.yaml
# takes this repository as its hook repository (a snapshot of the working tree committed in a
# temporary clone, so uncommitted changes are tested too), pre-commit's cache in a temporary
# directory, and real `git commit`s through the installed hook:
#   schedlint        (schedlint on PATH: the binary under test) the seed's deadlock is blocked
#                    with its diagnostic; tsconfig.json with comments and the fixed manifest pass;
#                    a commit of only the inventory checks only the staged files, and the
#                    always_run / pass_filenames: false pattern of docs/pre-commit.md lints the
#                    whole tree;
#   schedlint-tree   (pass_filenames: false, files: the inventory and config) a commit of only
#                    the inventory (a GPU node going from 1 to 0) is blocked by the manifest already
#                    committed, and a commit of other files does not run it;
#   schedlint-build  builds schedlint in pre-commit's cache on first use, names the missing
#                    packages when the libraries are absent, blocks the seed, reuses the build.
# Usage: run-precommit.sh SCHEDLINT    Last line: precommit: N passed, M failed
set -u
[ $# -eq 1 ] && [ -x "$1" ] || { echo "usage: $0 SCHEDLINT" >&2; exit 2; }
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
root=$(cd "$(dirname "$0")/.." && pwd)
if ! command -v pre-commit >/dev/null 2>&1; then
	echo "skip: every check: pre-commit is not installed"
	echo "precommit: 0 passed, 0 failed, all skipped"
	exit 0
fi
. "$root/tests/lib.sh"
# Nothing of the user's: no global or system git config, pre-commit's cache here, the binary
# under test as `schedlint`, no make flags from `make check`.
: >"$tmp/gitconfig"
GIT_CONFIG_GLOBAL=$tmp/gitconfig
GIT_CONFIG_NOSYSTEM=1
PRE_COMMIT_HOME=$tmp/cache
mkdir -p "$tmp/bin"
ln -s "$bin" "$tmp/bin/schedlint"
PATH=$tmp/bin:$PATH
export GIT_CONFIG_GLOBAL GIT_CONFIG_NOSYSTEM PRE_COMMIT_HOME PATH
unset MAKEFLAGS MFLAGS MAKELEVEL
seed=$root/fixtures/rollout-deadlock/seed-gpu-tracker

newrepo() { # dir
	git init -q "$1" && git -C "$1" config user.name "schedlint test" &&
		git -C "$1" config user.email "test@schedlint.invalid"
}
# The hook repository: this tree as it is, committed.
sh "$root/tests/snapshot.sh" "$tmp/hooks"
newrepo "$tmp/hooks" && git -C "$tmp/hooks" add -A && git -C "$tmp/hooks" commit -q -m snapshot
rev=$(git -C "$tmp/hooks" rev-parse HEAD)

config() { # hook id, then extra YAML lines for the hook list
	printf 'repos:\n  - repo: %s\n    rev: %s\n    hooks:\n      - id: %s\n        args: [--nodes, nodes.yaml]\n' \
		"$tmp/hooks" "$rev" "$1"
	shift
	for l in "$@"; do printf '%s\n' "$l"; done
}
# commit REPO MESSAGE FILE...: stage the files and commit; the status in $st, the output in $tmp/log
commit() {
	r=$1 m=$2
	shift 2
	git -C "$r" add -- "$@" && git -C "$r" commit -q -m "$m" </dev/null >"$tmp/log" 2>&1
	st=$?
}
commits() { git -C "$1" rev-list --count HEAD 2>/dev/null || echo 0; }
unstage() { # repo file: drop a blocked file
	git -C "$1" rm -q --cached -- "$2" && rm -f "$1/$2"
}
diag='manifest.yaml:11:1: error: rollout of Deployment vision/vision-object-tracker can never finish'

echo "progress: precommit: hook schedlint (on PATH)"
u=$tmp/user
newrepo "$u"
config schedlint >"$u/.pre-commit-config.yaml"
cp "$seed/nodes.yaml" "$u/"
(cd "$u" && pre-commit install >"$tmp/log" 2>&1) && ok || bad "pre-commit install" "$tmp/log"
commit "$u" "config and inventory" .pre-commit-config.yaml nodes.yaml
[ "$st" = 0 ] && ok || bad "schedlint: the config and the inventory pass" "$tmp/log"
cp "$seed/manifest.yaml" "$u/"
commit "$u" "the seed" manifest.yaml
[ "$st" != 0 ] && [ "$(commits "$u")" = 1 ] && ok || bad "schedlint: the seed's commit is blocked" "$tmp/log"
grep -q -F "$diag" "$tmp/log" && grep -q -F '[rollout-deadlock]' "$tmp/log" && ok ||
	bad "schedlint: the rollout-deadlock diagnostic" "$tmp/log"
unstage "$u" manifest.yaml
cp "$root/fixtures/repository/ordinary-repo/tsconfig.json" "$u/"
commit "$u" "tsconfig.json with comments and trailing commas" tsconfig.json
[ "$st" = 0 ] && ok || bad "schedlint: tsconfig.json passes" "$tmp/log"
cp "$seed/fixed.yaml" "$u/manifest.yaml"
commit "$u" "the fixed manifest" manifest.yaml
[ "$st" = 0 ] && [ "$(commits "$u")" = 3 ] && ok || bad "schedlint: the fixed manifest passes" "$tmp/log"
# The inventory loses its GPU: a commit of nodes.yaml alone checks nodes.yaml alone.
sed 's/nvidia.com\/gpu: "1"/nvidia.com\/gpu: "0"/' "$seed/nodes.yaml" >"$u/nodes.yaml"
commit "$u" "the inventory alone" nodes.yaml
[ "$st" = 0 ] && ok || bad "schedlint: an inventory-only commit checks only the staged files" "$tmp/log"
# docs/pre-commit.md's whole-tree hook sees what that did to manifest.yaml.
config schedlint '      - id: schedlint' '        name: schedlint (the whole tree)' '        always_run: true' \
	'        pass_filenames: false' '        args: [--nodes, nodes.yaml, .]' >"$u/.pre-commit-config.yaml"
commit "$u" "lint the whole tree" .pre-commit-config.yaml
[ "$st" != 0 ] && grep -q -F './manifest.yaml:45:9: error: no node can run a pod of Deployment vision/vision-object-tracker' "$tmp/log" &&
	ok || bad "schedlint: always_run and pass_filenames: false lint the whole tree" "$tmp/log"

echo "progress: precommit: hook schedlint-tree (the whole tree when the inventory changes)"
u=$tmp/user3
newrepo "$u"
config schedlint '      - id: schedlint-tree' '        args: [--nodes, nodes.yaml]' >"$u/.pre-commit-config.yaml"
cp "$seed/nodes.yaml" "$u/"
cp "$seed/fixed.yaml" "$u/manifest.yaml"
(cd "$u" && pre-commit install >"$tmp/log" 2>&1) || bad "pre-commit install" "$tmp/log"
commit "$u" "config, inventory and the fixed manifest" .pre-commit-config.yaml nodes.yaml manifest.yaml
[ "$st" = 0 ] && [ "$(commits "$u")" = 1 ] && ok || bad "schedlint-tree: the tree that fits passes" "$tmp/log"
# The GPU node goes from 1 GPU to 0: a commit of the inventory alone is blocked by what it does
# to the manifest already committed.
sed 's/nvidia.com\/gpu: "1"/nvidia.com\/gpu: "0"/' "$seed/nodes.yaml" >"$u/nodes.yaml"
commit "$u" "the inventory alone" nodes.yaml
[ "$st" != 0 ] && [ "$(commits "$u")" = 1 ] &&
	grep -q -F './manifest.yaml:45:9: error: no node can run a pod of Deployment vision/vision-object-tracker' "$tmp/log" &&
	grep -q -F '[unschedulable]' "$tmp/log" && ok ||
	bad "schedlint-tree: an inventory-only commit that leaves a manifest unschedulable is blocked" "$tmp/log"
git -C "$u" reset -q -- nodes.yaml && git -C "$u" checkout -q -- nodes.yaml # back to the GPU
# A commit that touches no inventory or config: the tree hook does not run.
cp "$root/fixtures/repository/ordinary-repo/tsconfig.json" "$u/"
commit "$u" "tsconfig.json" tsconfig.json
[ "$st" = 0 ] && grep -q 'schedlint (the whole tree.*Skipped' "$tmp/log" && ok ||
	bad "schedlint-tree: skipped when no inventory or config is staged" "$tmp/log"

echo "progress: precommit: hook schedlint-build (builds schedlint in pre-commit's cache)"
u=$tmp/user2
newrepo "$u"
config schedlint-build >"$u/.pre-commit-config.yaml"
cp "$seed/nodes.yaml" "$seed/manifest.yaml" "$u/"
(cd "$u" && pre-commit install >"$tmp/log" 2>&1) || bad "pre-commit install" "$tmp/log"
mkdir -p "$tmp/no-pc"
PKG_CONFIG_LIBDIR=$tmp/no-pc commit "$u" "the seed, no libraries" .pre-commit-config.yaml nodes.yaml manifest.yaml
[ "$st" != 0 ] && [ "$(commits "$u")" = 0 ] &&
	grep -q -F 'sudo apt-get install libyaml-dev libpcre2-dev libcjson-dev' "$tmp/log" && ok ||
	bad "schedlint-build: the missing packages named" "$tmp/log"
grep -q -e ' -c -o ' -e 'fatal error' "$tmp/log" && bad "schedlint-build: compiled without the libraries" "$tmp/log" || ok
commit "$u" "the seed" .pre-commit-config.yaml nodes.yaml manifest.yaml
[ "$st" != 0 ] && [ "$(commits "$u")" = 0 ] && grep -q -F "$diag" "$tmp/log" && ok ||
	bad "schedlint-build: builds, then blocks the seed with its diagnostic" "$tmp/log"
ready=$(find "$PRE_COMMIT_HOME" -path '*/build/pre-commit-ready' | head -n 1)
[ -n "$ready" ] && [ -x "$(dirname "$(dirname "$ready")")/schedlint" ] && ok ||
	bad "schedlint-build: the binary in pre-commit's cache" "$tmp/log"
: >"$tmp/after-build"
cp "$seed/fixed.yaml" "$u/manifest.yaml"
commit "$u" "the fixed manifest" .pre-commit-config.yaml nodes.yaml manifest.yaml
[ "$st" = 0 ] && [ "$(commits "$u")" = 1 ] && ok || bad "schedlint-build: the fixed manifest passes" "$tmp/log"
[ -n "$ready" ] && [ -z "$(find "$(dirname "$(dirname "$ready")")" -newer "$tmp/after-build" -name schedlint)" ] &&
	ok || bad "schedlint-build: built once, then reused"
finish precommit
