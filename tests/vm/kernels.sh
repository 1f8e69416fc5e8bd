# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# Map a kernel name to what is here: "6.1", "6.12" and "7.2" are the newest
# Debian kernels of that series, installed (/boot) or fetched by
# scripts/fetch-kernel.sh into the cache; a full version names one of those,
# and a path is a bzImage. "default" is the newest installed.

tst_fetched_kernels=${NETSLICE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/netslice}/kernels

# tst_kernel_version SERIES|VERSION|default -> full version (e.g. 6.12.117+deb12-amd64)
tst_kernel_version() {
	local pats p f
	case $1 in
	default) pats=('*') ;;
	*[0-9]-*) pats=("$1") ;;
	# 7.2.13+deb14-amd64, or 7.3-amd64 for a release candidate
	*) pats=("$1.*" "$1-*") ;;
	esac
	# shellcheck disable=SC2086
	for p in "${pats[@]}"; do
		for f in /boot/vmlinuz-$p; do
			if [ -f "$f" ]; then echo "${f#/boot/vmlinuz-}"; fi
		done
		[ "$1" = default ] && continue
		for f in "$tst_fetched_kernels"/$p/ready; do
			if [ -e "$f" ]; then basename "${f%/ready}"; fi
		done
	done | sort -V | tail -n 1
}

# tst_kernel_image NAME -> path of the kernel image
tst_kernel_image() {
	local v
	if [ -f "$1" ]; then
		echo "$1"
		return
	fi
	v=$(tst_kernel_version "$1")
	if [ -z "$v" ]; then
		echo "no kernel here matches '$1' (run scripts/deps.sh, or scripts/fetch-kernel.sh SERIES)" >&2
		return 1
	fi
	if [ -f "/boot/vmlinuz-$v" ]; then
		echo "/boot/vmlinuz-$v"
	else
		# Debian's merged-/usr layout: virtme-ng finds the modules beside it.
		echo "$tst_fetched_kernels/$v/root/usr/lib/modules/$v/vmlinuz"
	fi
}

# tst_kernel_build_dir VERSION -> the tree modules for VERSION build against
tst_kernel_build_dir() {
	if [ -d "/lib/modules/$1/build" ]; then
		echo "/lib/modules/$1/build"
	elif [ -e "$tst_fetched_kernels/$1/ready" ]; then
		echo "$tst_fetched_kernels/$1/build"
	else
		echo "no build tree for $1 (run scripts/deps.sh, or scripts/fetch-kernel.sh SERIES)" >&2
		return 1
	fi
}
