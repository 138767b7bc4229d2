#!/bin/sh
# The build as a newcomer meets it, in a copy of the source tree (the files git would commit):
# `make` without the libraries names the packages to install instead of failing in the
# compiler; `make install` puts the binary, the man page and every rule's page under PREFIX,
# and --help names that directory; another PREFIX rebuilds what names it; `make uninstall`
# leaves nothing behind; `make dist` makes a tarball that builds on its own. Usage: run-build.sh
# Last line: build: N passed, M failed
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
. "$root/tests/lib.sh"
src=$tmp/src
sh "$root/tests/snapshot.sh" "$src"
[ -f "$src/Makefile" ] && ok || bad "copy the source tree"
# make's own flags (-j, the jobserver of `make check`) are not the copy's business
unset MAKEFLAGS MFLAGS MAKELEVEL
mk() { make --no-print-directory -C "$src" CFLAGS=-O0 "$@" >"$tmp/log" 2>&1; }

echo "progress: build: make without the libraries"
mkdir -p "$tmp/no-pc"
PKG_CONFIG_LIBDIR=$tmp/no-pc mk && bad "make without the libraries succeeded" "$tmp/log"
for w in libyaml-dev libpcre2-dev libcjson-dev 'make deps' 'apt-get install'; do
	grep -q -F "$w" "$tmp/log" && ok || bad "make without the libraries: '$w' not said" "$tmp/log"
done
if grep -q -e ' -c -o ' -e 'fatal error' -e 'No such file' "$tmp/log"; then
	bad "make without the libraries ran the compiler" "$tmp/log"
else ok; fi

echo "progress: build: make install (compiling the copy)"
dest=$tmp/dest
mk -j2 install PREFIX=/opt/sl DESTDIR="$dest" || bad "make install" "$tmp/log"
[ -x "$dest/opt/sl/bin/schedlint" ] && ok || bad "make install: the binary" "$tmp/log"
[ -f "$dest/opt/sl/share/man/man1/schedlint.1" ] && ok || bad "make install: the man page"
"$dest/opt/sl/bin/schedlint" --list-rules >"$tmp/rules" 2>&1
for id in $(awk '{print $1}' "$tmp/rules"); do
	if cmp -s "$root/docs/rules/$id.md" "$dest/opt/sl/share/doc/schedlint/rules/$id.md"; then ok; else
		bad "make install: the page of $id"
	fi
done
"$dest/opt/sl/bin/schedlint" --help >"$tmp/help" 2>&1
grep -q -F '/opt/sl/share/doc/schedlint/rules/<id>.md' "$tmp/help" && ok || bad "--help names the installed docs" "$tmp/help"
mk install PREFIX=/opt/sl DESTDIR="$dest"
grep -q ' -c -o ' "$tmp/log" && bad "a second make install compiled again" "$tmp/log" || ok
mk install PREFIX=/usr DESTDIR="$dest"
[ "$(grep -c ' -c -o ' "$tmp/log")" = 1 ] && grep -q -F 'SL_DOCDIR=' "$tmp/log" && ok ||
	bad "another PREFIX rebuilds options.o (--help's text), and only it" "$tmp/log"
"$dest/usr/bin/schedlint" --help 2>&1 | grep -q -F '/usr/share/doc/schedlint/rules/<id>.md' && ok ||
	bad "--help after another PREFIX"
mk uninstall PREFIX=/opt/sl DESTDIR="$dest"
mk uninstall PREFIX=/usr DESTDIR="$dest"
find "$dest" -type f >"$tmp/left"
[ -s "$tmp/left" ] && bad "make uninstall left files" "$tmp/left" || ok
[ -d "$dest/usr/share/doc/schedlint" ] && bad "make uninstall left the docs directory" || ok

# make dist in the copy (no .git: the tree less what a build writes), and the tarball built on its
# own in another directory: its --version is VERSION's alone (no git describe), and the Debian
# changelog is at the same version (make deb refuses otherwise).
echo "progress: build: make dist, and make in the unpacked tarball"
ver=$(cat "$root/VERSION")
mk dist || bad "make dist" "$tmp/log"
tarball=$src/build/schedlint-$ver.tar.gz
[ -f "$tarball" ] && ok || bad "make dist: no build/schedlint-$ver.tar.gz" "$tmp/log"
mkdir -p "$tmp/unpacked"
tar -xzf "$tarball" -C "$tmp/unpacked" 2>"$tmp/log" || bad "the tarball unpacks" "$tmp/log"
[ "$(ls "$tmp/unpacked")" = "schedlint-$ver" ] && ok || bad "the tarball's one directory is schedlint-$ver"
for f in build schedlint; do
	[ -e "$tmp/unpacked/schedlint-$ver/$f" ] && bad "the tarball holds $f, a build output" || ok
done
make --no-print-directory -C "$tmp/unpacked/schedlint-$ver" -j2 CFLAGS=-O0 >"$tmp/log" 2>&1 ||
	bad "make in the unpacked tarball" "$tmp/log"
"$tmp/unpacked/schedlint-$ver/schedlint" --version >"$tmp/version" 2>&1
[ "$(cat "$tmp/version")" = "schedlint $ver" ] && ok || bad "the tarball's build: --version is not 'schedlint $ver'" "$tmp/version"
head -n 1 "$root/debian/changelog" | grep -q -F "schedlint ($ver) " && ok ||
	bad "debian/changelog's first entry is not version $ver (VERSION)"
finish build
