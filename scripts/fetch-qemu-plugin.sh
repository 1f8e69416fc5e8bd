#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The QEMU plugin API header of the installed QEMU, for make bench's
# instruction counter (bench/plugin/nsinsn.c): Debian ships the plugin
# loader in qemu-system-x86 but neither plugins nor qemu-plugin.h, which
# comes from the source package of the same version (a plugin states the
# API version it was built for, and QEMU refuses others).
#
#   scripts/fetch-qemu-plugin.sh     prints the directory holding qemu-plugin.h
#
# Cached in ~/.cache/netslice/qemu-plugin/VERSION/ (NETSLICE_CACHE): only
# the header is kept from the 40 MB source tarball, whose checksum apt's
# signed index vouches for. Never touches the machine's apt sources.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cache=${NETSLICE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/netslice}
log() { printf 'fetch-qemu-plugin: %s\n' "$*" >&2; }

ver=$(dpkg-query -W -f='${Version}' qemu-system-x86 2>/dev/null) ||
	{ log "qemu-system-x86 is not installed (scripts/deps.sh)"; exit 1; }
dir=$cache/qemu-plugin/${ver//[:~]/_}
if [ -e "$dir/qemu-plugin.h" ]; then
	echo "$dir"
	exit 0
fi
mkdir -p "$cache"
exec 9>"$cache/.lock"
flock 9

apt_cache=$cache/qemu-plugin
# shellcheck source=scripts/apt-private.sh
. "$top/scripts/apt-private.sh"
codename=$(. /etc/os-release 2>/dev/null && echo "${VERSION_CODENAME:-}")
uri= sum=
# The backport first: scripts/deps.sh installs QEMU from there on bookworm.
for suite in "$codename-backports" "$codename"; do
	apt_index "$suite" deb-src || { cat "$apt_cache/apt-$suite/update.log" >&2; continue; }
	# 'URI' NAME SIZE SHA256:HEX, one line per file of the source package.
	# shellcheck disable=SC2046
	read -r uri _ _ sum < <(apt-get $(apt_opts "$suite") source --print-uris "qemu=$ver" 2>/dev/null |
		grep -E "\.orig\.tar\.xz' " || true) || true
	[ -z "$uri" ] || break
done
[ -n "$uri" ] || { log "no source package qemu=$ver in $codename or $codename-backports"; exit 1; }
uri=${uri//\'/} sum=${sum#SHA256:}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
log "fetching $uri"
curl -fsSL -o "$tmp/orig.tar.xz" "$uri"
echo "$sum  $tmp/orig.tar.xz" | sha256sum -c --quiet - ||
	{ log "checksum mismatch for $uri"; exit 1; }
tar -xJf "$tmp/orig.tar.xz" -C "$tmp" --wildcards '*/include/qemu/qemu-plugin.h'
mkdir -p "$dir"
mv "$tmp"/*/include/qemu/qemu-plugin.h "$dir/"
echo "$dir"
