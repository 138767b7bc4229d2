#!/bin/sh
# Install the build dependencies when pkg-config cannot find them (Debian/Ubuntu), with sudo
# when not root. Does nothing when everything is present.
missing=
command -v pkg-config >/dev/null 2>&1 || missing="pkg-config"
command -v cc >/dev/null 2>&1 || missing="$missing gcc"
command -v make >/dev/null 2>&1 || missing="$missing make"
if command -v pkg-config >/dev/null 2>&1; then
	pkg-config --exists yaml-0.1 || missing="$missing libyaml-dev"
	pkg-config --exists libpcre2-8 || missing="$missing libpcre2-dev"
	pkg-config --exists libcjson || missing="$missing libcjson-dev"
else
	missing="$missing libyaml-dev libpcre2-dev libcjson-dev"
fi
[ -z "$missing" ] && exit 0
echo "schedlint: installing build dependencies:$missing"
if ! command -v apt-get >/dev/null 2>&1; then
	echo "schedlint: no apt-get here; install$missing (or your system's equivalents) and retry" >&2
	exit 1
fi
sudo=
[ "$(id -u)" -eq 0 ] || sudo=sudo
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get install -y $missing || { $sudo apt-get update && $sudo apt-get install -y $missing; }
