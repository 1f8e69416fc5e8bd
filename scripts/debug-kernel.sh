#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Build the sanitizer kernel of make check-debug from Debian's
# linux-source-6.12 with tests/debug/kernel.config, once: the result is
# cached under ~/.cache/netslice/debug-kernel/KEY, where KEY is the source
# package's version and a hash of the config fragment and of this script.
# An interrupted build resumes on the next run. Prints the KEY directory, which holds:
#   bzImage      the kernel
#   build/       the object tree (kernel headers for out-of-tree modules)
#   release      its uname -r
set -euo pipefail
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cache=${NETSLICE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/netslice}/debug-kernel
tarball=/usr/src/linux-source-6.12.tar.xz
fragment=$top/tests/debug/kernel.config
configkernel=${NETSLICE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/netslice}/venv/bin/virtme-configkernel

[ -f "$tarball" ] || { echo "debug-kernel: $tarball missing (run scripts/deps.sh)" >&2; exit 1; }
[ -x "$configkernel" ] || { echo "debug-kernel: virtme-ng missing (run scripts/deps.sh)" >&2; exit 1; }
ver=$(dpkg-query -W -f='${Version}' linux-source-6.12)
key=$ver-$(cat "$fragment" "${BASH_SOURCE[0]}" | sha256sum | cut -c1-12)
dest=$cache/$key
if [ -f "$dest/bzImage" ]; then
	echo "$dest"
	exit 0
fi

src=$cache/linux-source-$ver
mkdir -p "$cache"
if [ ! -d "$src" ]; then
	echo "debug-kernel: extracting linux-source $ver" >&2
	tmp=$(mktemp -d "$cache/extract.XXXXXX")
	tar -C "$tmp" -xJf "$tarball"
	mv "$tmp/linux-source-6.12" "$src"
	rmdir "$tmp"
fi

# An interrupted build resumes where it stopped: bzImage is copied last.
start=$(date +%s)
mkdir -p "$dest/build"
if [ ! -f "$dest/build/.config" ]; then
	echo "debug-kernel: configuring $key" >&2
	# virtme-ng's defconfig (virtio, 9p, overlayfs: what vng needs to
	# boot), then the fragment merged on top (virtme's own items would
	# override a --custom fragment).
	(cd "$src" && "$configkernel" --defconfig O="$dest/build" &&
		scripts/kconfig/merge_config.sh -O "$dest/build" "$dest/build/.config" "$fragment") \
		>"$dest/config.log" 2>&1 || { cat "$dest/config.log" >&2; exit 1; }
fi
bad=0
while read -r want; do
	if ! grep -qx "$want" "$dest/build/.config"; then
		echo "debug-kernel: $want did not stick (a dependency is missing)" >&2
		bad=1
	fi
done < <(grep -E '^CONFIG_[A-Z0-9_]+=y$' "$fragment")
[ "$bad" = 0 ] || { rm -f "$dest/build/.config"; exit 1; }

echo "debug-kernel: building in $dest (about 20 minutes on 2 cores)" >&2
make -C "$src" O="$dest/build" -j"$(nproc)" -s bzImage modules >&2
make -C "$src" O="$dest/build" -s kernelrelease >"$dest/release"
cp "$dest/build/arch/x86/boot/bzImage" "$dest/bzImage.tmp"
mv "$dest/bzImage.tmp" "$dest/bzImage"
echo "debug-kernel: built $(cat "$dest/release") in $(($(date +%s) - start)) s" >&2
echo "$dest"
