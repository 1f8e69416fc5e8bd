#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Fetch and prepare the newest Debian kernel of a series (7.2) that the
# machine's own suite does not ship, from Debian's unstable suite, without
# touching the machine's apt sources or installed packages:
#
#   tools/sid-kernel.sh SERIES      prints the kernel's version (7.2.13+deb14-amd64)
#
# Everything lands in ~/.cache/netslice/sid-kernel/VERSION/ (NETSLICE_CACHE):
#   root/usr/lib/modules/VERSION/{vmlinuz,kernel/}  Debian's own image and modules,
#                                  booted by tests/vm/run (virtme-ng finds the
#                                  modules beside the image)
#   build/                         linux-source-SERIES, configured with the
#                                  image's config and modules_prepare'd with
#                                  this machine's gcc, carrying the image's
#                                  Module.symvers and release string: the tree
#                                  tools/kbuild.sh builds the module against
#   linux-source-SERIES.tar.xz     the source KUnit (tools/kunit.sh) builds
#   config.diff                    what the host's toolchain changed in the config
#
# Why not Debian's headers package as it is: it names gcc-16, whose flags
# (-fmin-function-alignment=16) this machine's gcc-12 rejects. The prepared
# tree is the same source with the same config, so the module's vermagic,
# symbol versions and structure layouts match the image; config.diff lists
# what the host's toolchain changes (7.2.13: compiler-capability options,
# CC_HAS_*, and Rust with the Rust-only drivers, as there is no rustc here).
# A second run with the same version finds the stamp and prints at once.
set -euo pipefail
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
series=${1:?usage: sid-kernel.sh SERIES (e.g. 7.2)}
[[ $series =~ ^[0-9]+\.[0-9]+$ ]] || { echo "sid-kernel: '$series' is not a series like 7.2" >&2; exit 2; }
cache=${NETSLICE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/netslice}/sid-kernel
flavour=amd64

log() { printf 'sid-kernel: %s\n' "$*" >&2; }

# The machine's own Debian mirror (one-line or deb822 sources), so the
# unstable suite comes from where everything else does.
mirror() {
	local uri
	[ -n "${NETSLICE_DEBIAN_MIRROR:-}" ] && { echo "$NETSLICE_DEBIAN_MIRROR"; return; }
	uri=$(cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources 2>/dev/null |
		grep -oE 'https?://[^ ]+/debian/?( |$)' | grep -v security | head -n 1 | tr -d ' ' || true)
	echo "${uri:-http://deb.debian.org/debian}"
}

apt_dir=$cache/apt
apt_opts=(-o "Dir::Etc::SourceList=$apt_dir/sources.list" -o Dir::Etc::SourceParts=/dev/null
	-o "Dir::State::Lists=$apt_dir/lists" -o "Dir::Cache=$apt_dir/cache"
	-o APT::Sandbox::User=root -q)

# Newest VERSION of the series with headers in the suite's index.
pick() {
	apt-cache "${apt_opts[@]}" search --names-only "^linux-headers-${series//./\\.}\\.[0-9]+\\+deb[0-9]+-$flavour\$" 2>/dev/null |
		awk '{print $1}' | sed 's/^linux-headers-//' | sort -V | tail -n 1
}

# A version already prepared, when the index is not to be refreshed.
ready_version() {
	local v
	for v in $(ls -1 "$cache" 2>/dev/null | grep -E "^${series//./\\.}\\.[0-9]+\\+" | sort -rV); do
		[ -e "$cache/$v/ready" ] && { echo "$v"; return; }
	done
	return 0
}

mkdir -p "$apt_dir/lists/partial" "$apt_dir/cache/archives/partial"
if [ -z "$(find "$apt_dir/lists" -name '*Packages*' -mmin -1440 2>/dev/null | head -n 1)" ]; then
	printf 'deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] %s sid main\n' \
		"$(mirror)" >"$apt_dir/sources.list"
	if ! apt-get "${apt_opts[@]}" update >"$apt_dir/update.log" 2>&1; then
		v=$(ready_version)
		# Offline with a prepared kernel: keep using it.
		[ -n "$v" ] && { log "index update failed; using $v"; echo "$v"; exit 0; }
		cat "$apt_dir/update.log" >&2
		log "cannot read Debian's unstable suite"
		exit 1
	fi
fi
ver=$(pick)
[ -n "$ver" ] || { log "no linux-headers-$series.*-$flavour in Debian's unstable suite"; exit 1; }
dir=$cache/$ver
if [ -e "$dir/ready" ]; then
	echo "$ver"
	exit 0
fi

log "preparing Linux $ver from Debian's unstable suite in $dir"
rm -rf "$dir"
mkdir -p "$dir/debs" "$dir/root"
pkgs=("linux-source-$series" "linux-headers-$ver" "linux-headers-${ver%-"$flavour"}-common"
	"linux-binary-$ver" "linux-modules-$ver")
(cd "$dir/debs" && apt-get "${apt_opts[@]}" download "${pkgs[@]}" >"$dir/download.log" 2>&1) || {
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
for old in "$cache/$series".*; do
	[ "$old" = "$dir" ] || rm -rf "$old"
done
log "ready: image $moddir/vmlinuz, build tree $dir/build"
echo "$ver"
