#!/bin/sh
# The Debian package (make deb) against `make install`: the .deb holds what `make install
# PREFIX=/usr` installs (the binary, the man page, which dh_compress gzips, and every rule's page)
# and, beside it, only Debian's copyright and changelog; its --help names the rule pages where
# the package puts them; lintian, when installed, reports no error or warning on the .deb and
# the .changes. .ci/run runs it after `make deb`, before installing the package.
# Usage: run-package.sh DEB        Last line: package: N passed, M failed, S skipped
set -u
[ $# -eq 1 ] && [ -f "$1" ] || { echo "usage: $0 DEB" >&2; exit 2; }
deb=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
root=$(cd "$(dirname "$0")/.." && pwd)
. "$root/tests/lib.sh"
unset MAKEFLAGS MFLAGS MAKELEVEL

# What make install puts under DESTDIR (in a copy of the tree, whose build is left alone), as
# paths; the package's, with the man page's .gz and Debian's own two files taken off. The same
# list, file for file.
sh "$root/tests/snapshot.sh" "$tmp/src"
make --no-print-directory -C "$tmp/src" -j2 CFLAGS=-O0 install PREFIX=/usr DESTDIR="$tmp/dest" >"$tmp/log" 2>&1 ||
	bad "make install PREFIX=/usr" "$tmp/log"
(cd "$tmp/dest" && find . -type f | sed 's|^\./|/|' | sort) >"$tmp/install"
dpkg-deb -c "$deb" >"$tmp/contents" || bad "dpkg-deb -c $deb"
awk '$1 !~ /^d/ { print $NF }' "$tmp/contents" | sed 's|^\./|/|' |
	grep -v -x -e /usr/share/doc/schedlint/copyright -e /usr/share/doc/schedlint/changelog.gz |
	sed 's|^\(/usr/share/man/.*\)\.gz$|\1|' | sort >"$tmp/package"
[ -s "$tmp/install" ] && ok || bad "make install installed nothing" "$tmp/log"
if cmp -s "$tmp/install" "$tmp/package"; then ok; else
	diff "$tmp/install" "$tmp/package" >"$tmp/diff"
	bad "make install and the package differ (< make install, > the package)" "$tmp/diff"
fi
for f in /usr/share/doc/schedlint/copyright /usr/share/doc/schedlint/changelog.gz; do
	grep -q -F ".$f" "$tmp/contents" && ok || bad "the package has no $f"
done
# The rule pages are the tree's, uncompressed where --help says they are.
mkdir -p "$tmp/x"
dpkg-deb -x "$deb" "$tmp/x"
for page in "$root"/docs/rules/*.md; do
	cmp -s "$page" "$tmp/x/usr/share/doc/schedlint/rules/$(basename "$page")" && ok ||
		bad "the package's page of $(basename "$page" .md)"
done
"$tmp/x/usr/bin/schedlint" --help >"$tmp/help" 2>&1
grep -q -F '/usr/share/doc/schedlint/rules/<id>.md' "$tmp/help" && ok || bad "the package's --help" "$tmp/help"
"$tmp/x/usr/bin/schedlint" --version >"$tmp/version" 2>&1
grep -q "^schedlint $(cat "$root/VERSION")\$" "$tmp/version" && ok ||
	bad "the package's --version is not VERSION's (built from the tarball, no git describe)" "$tmp/version"

if command -v lintian >/dev/null 2>&1; then
	changes=$(ls "$(dirname "$deb")"/deb/schedlint_*.changes 2>/dev/null | head -n 1)
	lintian --fail-on error,warning "$deb" ${changes:+"$changes"} >"$tmp/lintian" 2>&1 && ok ||
		bad "lintian" "$tmp/lintian"
else
	skip "lintian" "not installed (apt-get install lintian)"
fi
finish package
