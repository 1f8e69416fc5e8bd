#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Build netslice.ko against one kernel, in build/kmod/VERSION, with W=1:
# a series (6.1, 6.12, 7.2: the newest here, and for a series the machine's
# suite does not ship, fetched and prepared by scripts/fetch-kernel.sh; "newest"
# for the highest series Debian has, a release candidate often), a full
# VERSION (as in /lib/modules/VERSION) or a kernel build tree (a directory).
# Any compiler warning fails the build.
# Prints the path of the module. With NETSLICE_KUNIT=1 (a kernel with
# CONFIG_KUNIT) netslice_kunit.ko is built beside it.
set -euo pipefail
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
kver=${1:?usage: kbuild.sh SERIES|KERNEL-VERSION|KERNEL-BUILD-DIR}
if [ -d "$kver" ]; then
	kdir=$kver
	kver=$(make -s -C "$kdir" kernelrelease)
elif [ -d "/lib/modules/$kver/build" ]; then
	kdir=/lib/modules/$kver/build
else
	# shellcheck source=tests/vm/kernels.sh
	. "$top/tests/vm/kernels.sh"
	v=$(tst_kernel_version "$kver")
	if [ -z "$v" ] && [[ $kver =~ ^([0-9]+\.[0-9]+|newest)$ ]]; then
		v=$("$top/scripts/fetch-kernel.sh" "$kver") || exit 1
	fi
	kver=${v:-$kver}
	kdir=$(tst_kernel_build_dir "$kver") || exit 1
fi
out=$top/build/kmod/$kver

[ -d "$kdir" ] || { echo "kbuild: no headers for $kver at $kdir" >&2; exit 1; }
mkdir -p "$out"
cp -a -u "$top/Kbuild" "$top/kmod" "$top/uapi" "$out/"
log=$out/build.log
if ! make -s -C "$kdir" M="$out" W=1 NETSLICE_KUNIT="${NETSLICE_KUNIT:-0}" modules >"$log" 2>&1; then
	cat "$log" >&2
	exit 1
fi
if grep -E 'warning:|error:' "$log" >&2; then
	echo "kbuild: warnings building against $kver" >&2
	exit 1
fi
echo "$out/kmod/netslice.ko"
