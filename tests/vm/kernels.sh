# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# Map a kernel name to what is installed: "6.1" and "6.12" are the newest
# installed Debian kernels of that series, a full version names
# /boot/vmlinuz-VERSION, and a path is a bzImage. "default" is the newest.

# ns_kernel_version SERIES|default -> full version (e.g. 6.12.117+deb12-amd64)
ns_kernel_version() {
	local pat
	case $1 in
	default) pat='/boot/vmlinuz-*' ;;
	*) pat="/boot/vmlinuz-$1.*" ;;
	esac
	# shellcheck disable=SC2086
	ls -1 $pat 2>/dev/null | sed 's|^/boot/vmlinuz-||' | sort -V | tail -n 1
}

# ns_kernel_image NAME -> path of the kernel image
ns_kernel_image() {
	local v
	if [ -f "$1" ]; then
		echo "$1"
		return
	fi
	if [ -f "/boot/vmlinuz-$1" ]; then
		echo "/boot/vmlinuz-$1"
		return
	fi
	v=$(ns_kernel_version "$1")
	if [ -z "$v" ]; then
		echo "no installed kernel matches '$1' (run tools/deps.sh)" >&2
		return 1
	fi
	echo "/boot/vmlinuz-$v"
}
