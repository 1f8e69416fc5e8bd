#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# checkpatch.pl --strict over the kernel sources and the uapi header.
# checkpatch comes from Debian's linux-source-6.1 tarball, unpacked once
# into the cache.
set -euo pipefail
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cache=${NETSLICE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/netslice}
tarball=$(ls /usr/src/linux-source-6.1.tar.* 2>/dev/null | head -n 1)
dir=$cache/checkpatch
cp=$dir/linux-source-6.1/scripts/checkpatch.pl

if [ ! -f "$cp" ]; then
	[ -n "$tarball" ] || { echo "lint: linux-source-6.1 missing; run tools/deps.sh" >&2; exit 1; }
	mkdir -p "$dir"
	tar -xf "$tarball" -C "$dir" linux-source-6.1/scripts/checkpatch.pl \
		linux-source-6.1/scripts/spelling.txt linux-source-6.1/scripts/const_structs.checkpatch
fi

cd "$top"
checkpatch() { perl "$cp" --no-tree --strict --terse --show-types --ignore FILE_PATH_CHANGES "$@"; }
rc=0
# compat.h exists to hold the version checks checkpatch warns about.
checkpatch --ignore LINUX_VERSION_CODE,CONSTANT_COMPARISON -f kmod/compat.h || rc=1
# The uapi header cannot use BIT(): it is not part of the user ABI.
checkpatch --ignore BIT_MACRO -f uapi/linux/netslice.h || rc=1
# shellcheck disable=SC2046
checkpatch -f $(git ls-files 'kmod/*.[ch]' | grep -v '^kmod/compat.h$') || rc=1
[ $rc -eq 0 ] && echo "lint: checkpatch --strict clean"
exit $rc
