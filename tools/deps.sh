#!/bin/sh
# deps.sh - installs the Debian packages git-session needs to build and
# test, when they are missing. Uses sudo only when not root.
set -e
pkgs="libgit2-dev libyaml-dev libcjson-dev libcmocka-dev pkg-config git make gcc python3 python3-yaml clang libclang-rt-14-dev"
missing=
for p in $pkgs
do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
		missing="$missing $p"
done
if test -z "$missing"
then
	echo "deps: all present"
	exit 0
fi
if test "$(id -u)" = 0
then
	SUDO=
else
	SUDO=sudo
fi
echo "deps: installing$missing"
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq $missing
