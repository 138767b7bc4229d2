#!/bin/sh
# The build dependencies: a C compiler ($CC, default cc), make, pkg-config and what pkg-config
# must find (yaml-0.1, libpcre2-8, libcjson). Does nothing when everything is present.
#   deps.sh           install the missing ones (Debian/Ubuntu), with sudo when not root
#   deps.sh --check   say which are missing and how to get them, exit 1: the Makefile runs it
#                     before compiling and the pre-commit build hook before building, so a
#                     missing library is a sentence, not a compiler error
cc=${CC:-cc}
cc=${cc%% *}
missing=
modules=
command -v pkg-config >/dev/null 2>&1 || missing="pkg-config"
command -v "$cc" >/dev/null 2>&1 || { [ "$cc" = cc ] && missing="$missing gcc" || missing="$missing $cc"; }
command -v make >/dev/null 2>&1 || missing="$missing make"
for m in yaml-0.1:libyaml-dev libpcre2-8:libpcre2-dev libcjson:libcjson-dev; do
	if ! command -v pkg-config >/dev/null 2>&1 || ! pkg-config --exists "${m%%:*}"; then
		missing="$missing ${m#*:}"
		modules="$modules ${m%%:*}"
	fi
done
[ -z "$missing" ] && exit 0
if [ "${1:-}" = --check ]; then
	{
		echo "schedlint: cannot build, missing:$missing${modules:+ (pkg-config finds no$modules)}"
		echo "  install them (Debian/Ubuntu): sudo apt-get install$missing"
		echo "  or run: make deps (installs them with apt-get)"
		echo "  elsewhere: a C11 compiler, make, pkg-config, and the development files of libyaml, PCRE2 (8-bit) and cJSON"
	} >&2
	exit 1
fi
echo "schedlint: installing build dependencies:$missing"
if ! command -v apt-get >/dev/null 2>&1; then
	echo "schedlint: no apt-get here; install$missing (or your system's equivalents) and retry" >&2
	exit 1
fi
sudo=
[ "$(id -u)" -eq 0 ] || sudo=sudo
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get install -y $missing || { $sudo apt-get update && $sudo apt-get install -y $missing; }
