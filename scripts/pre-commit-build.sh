#!/bin/sh
# The pre-commit hook `schedlint-build` (.pre-commit-hooks.yaml), for users who have not run
# `make install`. pre-commit runs it from its own clone of this repository, in the user's
# repository, with the hook's args and the staged files. The first run builds ./schedlint in that
# clone; every later run, and every repository that uses the same rev, reuses it.
set -u
here=$(cd "$(dirname "$0")/.." && pwd)
bin=$here/schedlint
ready=$here/build/pre-commit-ready # written once the binary is complete
lock=$here/build/pre-commit-lock

# Two repositories committing at once share the clone: one builds while the other waits for the
# lock, then finds the build done.
build() {
	mkdir -p "$here/build" || return 1
	waited=0
	until mkdir "$lock" 2>/dev/null; do
		waited=$((waited + 1))
		if [ "$waited" -gt 600 ]; then
			echo "schedlint-build: another build has held $lock for 10 minutes; remove it if none is running" >&2
			return 1
		fi
		sleep 1
	done
	trap 'rmdir "$lock" 2>/dev/null; exit 1' HUP INT TERM
	rc=0
	[ -f "$ready" ] || compile || rc=1
	rmdir "$lock"
	trap - HUP INT TERM
	return $rc
}

compile() {
	# Missing libraries are named, with the packages to install, before anything compiles.
	sh "$here/tests/deps.sh" --check || {
		echo "schedlint-build: install them and commit again: the hook builds schedlint on first use" >&2
		return 1
	}
	echo "schedlint-build: building schedlint in $here (once)" >&2
	jobs=$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 2)
	if ! make --no-print-directory -C "$here" -j"$jobs" schedlint >"$here/build/pre-commit.log" 2>&1; then
		cat "$here/build/pre-commit.log" >&2
		echo "schedlint-build: the build failed (log above, in $here/build/pre-commit.log)" >&2
		return 1
	fi
	: >"$ready"
}

[ -f "$ready" ] || build || exit 1
exec "$bin" "$@"
