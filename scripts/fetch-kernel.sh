#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Fetch and prepare the newest Debian kernel of a series the machine's own
# suite does not ship: 7.2 from Debian's unstable suite (sid), a release
# candidate such as 7.3 from experimental, without touching the machine's
# apt sources or installed packages:
#
#   scripts/fetch-kernel.sh SERIES    prints the kernel's version (7.2.13+deb14-amd64)
#   scripts/fetch-kernel.sh newest    the same for the highest series either suite
#                                   has (make check-newest, before a release)
#
# sid is asked first, experimental when sid has no such series.
# Everything lands in ~/.cache/netslice/kernels/VERSION/ (NETSLICE_CACHE):
#   root/usr/lib/modules/VERSION/{vmlinuz,kernel/}  Debian's own image and modules,
#                                  booted by tests/vm/run (virtme-ng finds the
#                                  modules beside the image)
#   build/                         linux-source-SERIES, configured with the
#                                  image's config and modules_prepare'd with
#                                  this machine's gcc, carrying the image's
#                                  Module.symvers and release string: the tree
#                                  scripts/kbuild.sh builds the module against
#   linux-source-SERIES.tar.xz     the source KUnit (scripts/kunit.sh) builds
#   config.diff                    what the host's toolchain changed in the config
#
# Why not Debian's headers package as it is: it names gcc-16, whose flags
# (-fmin-function-alignment=16) this machine's gcc-12 rejects. The prepared
# tree is the same source with the same config, so the module's vermagic,
# symbol versions and structure layouts match the image; config.diff lists
# what the host's toolchain changes (7.2.13: compiler-capability options,
# CC_HAS_*, and Rust with the Rust-only drivers, as there is no rustc here).
# A second run finds the stamp and prints at once; the suites' indexes are
# read again once a day, and a newer version of the series replaces the
# older one.
set -euo pipefail
series=${1:?usage: fetch-kernel.sh SERIES|newest (e.g. 7.2)}
[[ $series =~ ^([0-9]+\.[0-9]+|newest)$ ]] ||
	{ echo "fetch-kernel: '$series' is not a series like 7.2, nor newest" >&2; exit 2; }
cache=${NETSLICE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/netslice}/kernels
flavour=amd64

log() { printf 'fetch-kernel: %s\n' "$*" >&2; }

# One fetch at a time: two checkouts' make check may start together.
mkdir -p "$cache"
exec 9>"$cache/.lock"
flock 9

apt_cache=$cache
# shellcheck source=scripts/apt-private.sh
. "$(dirname "$0")/apt-private.sh"

# pick SUITE: the newest VERSION of the series with headers in the suite.
pick() {
	# shellcheck disable=SC2046
	apt-cache $(apt_opts "$1") search --names-only "^linux-headers-$series" 2>/dev/null |
		awk '{print $1}' | sed 's/^linux-headers-//' | { grep -E "$version_re" || true; } | sort -V | tail -n 1
}

# The version already prepared, for when the suites cannot be read.
ready_version() {
	local f
	for f in "$cache"/*/ready; do
		if [ -e "$f" ]; then basename "${f%/ready}"; fi
	done | { grep -E "$version_re" || true; } | sort -V | tail -n 1
}

if [ "$series" = newest ]; then
	for suite in sid experimental; do
		apt_index "$suite" || { cat "$cache/apt-$suite/update.log" >&2; exit 1; }
		# shellcheck disable=SC2046
		apt-cache $(apt_opts "$suite") search --names-only '^linux-source-[0-9]+\.[0-9]+$' 2>/dev/null
	done | sed -nE 's/^linux-source-([0-9]+\.[0-9]+) .*/\1/p' | sort -V | tail -n 1 >"$cache/newest"
	series=$(cat "$cache/newest")
	[ -n "$series" ] || { log "no linux-source-* in Debian's sid or experimental"; exit 1; }
fi
# A version of the series: 7.2.13+deb14-amd64, or 7.3-amd64 for a release candidate.
version_re="^${series//./\\.}(\\.[0-9]+)?(\\+deb[0-9]+)?-$flavour\$"

ver= suite=
for suite in sid experimental; do
	if ! apt_index "$suite"; then
		v=$(ready_version)
		# Offline with a prepared kernel: keep using it.
		[ -n "$v" ] && { log "cannot read Debian's $suite; using $v"; echo "$v"; exit 0; }
		cat "$cache/apt-$suite/update.log" >&2
		log "cannot read Debian's $suite suite"
		exit 1
	fi
	ver=$(pick "$suite")
	[ -z "$ver" ] || break
done
[ -n "$ver" ] || { log "no linux-headers-$series*-$flavour in Debian's sid or experimental"; exit 1; }
dir=$cache/$ver
if [ -e "$dir/ready" ]; then
	echo "$ver"
	exit 0
fi

log "preparing Linux $ver from Debian's $suite in $dir"
rm -rf "$dir"
mkdir -p "$dir/debs" "$dir/root"
# The arch headers package has the config, symbol versions and release
# string; its -common sibling (the headers themselves) is not needed.
pkgs=("linux-source-$series" "linux-headers-$ver" "linux-binary-$ver" "linux-modules-$ver")
# shellcheck disable=SC2046
(cd "$dir/debs" && apt-get $(apt_opts "$suite") download "${pkgs[@]}" >"$dir/download.log" 2>&1) || {
	cat "$dir/download.log" >&2
	exit 1
}
for deb in "$dir"/debs/linux-{headers,binary,modules}-*.deb; do
	dpkg-deb -x "$deb" "$dir/root"
done
dpkg-deb --fsys-tarfile "$dir"/debs/linux-source-"$series"_*.deb |
	tar -xO --wildcards "./usr/src/linux-source-$series.tar.xz" >"$dir/linux-source-$series.tar.xz"
rm -rf "$dir/debs"

headers=$dir/root/usr/src/linux-headers-$ver
moddir=$dir/root/usr/lib/modules/$ver
[ -f "$moddir/vmlinuz" ] && [ -f "$headers/.config" ] || { log "unexpected package layout"; exit 1; }

# The modules package ships no index (nor the lists of built-in modules,
# which no Debian package of this kernel carries): build it once here.
touch "$moddir/modules.order" "$moddir/modules.builtin" "$moddir/modules.builtin.modinfo"
depmod -b "$dir/root/usr" "$ver"

tmp=$(mktemp -d "$dir/extract.XXXXXX")
tar -C "$tmp" -xJf "$dir/linux-source-$series.tar.xz"
mv "$tmp/linux-source-$series" "$dir/build"
rmdir "$tmp"
cp "$headers/.config" "$dir/build/.config"
make -s -C "$dir/build" olddefconfig >"$dir/prepare.log" 2>&1 &&
	"$dir/build/scripts/diffconfig" "$headers/.config" "$dir/build/.config" >"$dir/config.diff" &&
	make -s -C "$dir/build" -j"$(nproc)" modules_prepare >>"$dir/prepare.log" 2>&1 || {
	cat "$dir/prepare.log" >&2
	exit 1
}
# The image's symbol versions and release string, so the module's
# vermagic and CRCs are the image's.
cp "$headers/Module.symvers" "$dir/build/"
cp "$headers/include/config/kernel.release" "$dir/build/include/config/"
cp "$headers/include/generated/utsrelease.h" "$dir/build/include/generated/"
grep -qF "\"$ver\"" "$dir/build/include/generated/utsrelease.h" || { log "release string mismatch"; exit 1; }
: >"$dir/ready"
# Older versions of the series go: their trees take gigabytes.
for old in "$cache"/*/ready; do
	old=${old%/ready}
	[ "$old" = "$dir" ] || ! basename "$old" | grep -qE "$version_re" || rm -rf "$old"
done
log "ready: image $moddir/vmlinuz, build tree $dir/build"
echo "$ver"
