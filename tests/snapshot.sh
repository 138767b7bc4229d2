#!/bin/sh
# Copy the source tree as git would commit it, uncommitted changes included (tracked and
# untracked files that .gitignore does not exclude), into DIR: what the build and pre-commit
# tests work on, so they test the working tree without touching it. Usage: snapshot.sh DIR
set -u
[ $# -eq 1 ] || { echo "usage: $0 DIR" >&2; exit 2; }
mkdir -p "$1" || exit 2
dest=$(cd "$1" && pwd)
cd "$(dirname "$0")/.." || exit 2
git ls-files -co --exclude-standard | while IFS= read -r f; do [ -f "$f" ] && echo "$f"; done |
	tar -cf - -T - | (cd "$dest" && tar -xf -)
