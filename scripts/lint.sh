#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# checkpatch.pl --strict over the kernel sources and the uapi headers, with
# the checkpatch of the oldest kernel we build for (Debian's
# linux-source-6.1, unpacked once into the cache) and of the newest
# (the tree scripts/fetch-kernel.sh prepared, 7.2, when it is there): a newer
# checkpatch knows newer rules (7.2's asks for kzalloc_obj()).
set -euo pipefail
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cache=${NETSLICE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/netslice}
tarball=$(ls /usr/src/linux-source-6.1.tar.* 2>/dev/null | head -n 1)
dir=$cache/checkpatch
cp61=$dir/linux-source-6.1/scripts/checkpatch.pl

if [ ! -f "$cp61" ]; then
	[ -n "$tarball" ] || { echo "lint: linux-source-6.1 missing; run scripts/deps.sh" >&2; exit 1; }
	mkdir -p "$dir"
	tar -xf "$tarball" -C "$dir" linux-source-6.1/scripts/checkpatch.pl \
		linux-source-6.1/scripts/spelling.txt linux-source-6.1/scripts/const_structs.checkpatch
fi
scripts=("$cp61")
# shellcheck source=tests/vm/kernels.sh
. "$top/tests/vm/kernels.sh"
newest=$(ls -1d "$tst_fetched_kernels"/*/build/scripts/checkpatch.pl 2>/dev/null | sort -V | tail -n 1 || true)
[ -z "$newest" ] || scripts+=("$newest")

cd "$top"
rc=0
for cp in "${scripts[@]}"; do
	checkpatch() { perl "$cp" --no-tree --strict --terse --show-types --ignore FILE_PATH_CHANGES "$@"; }
	echo "lint: $cp"
	# compat.h exists to hold the version checks checkpatch warns about.
	checkpatch --ignore LINUX_VERSION_CODE,CONSTANT_COMPARISON -f kmod/compat.h || rc=1
	# The uapi header cannot use BIT(): it is not part of the user ABI.
	# NETSLICE_STATS_LIST is an X-macro: a list, not a value to enclose.
	# The deprecated names warn through C99's _Pragma, which is CamelCase.
	checkpatch --ignore BIT_MACRO,COMPLEX_MACRO,MACRO_ARG_REUSE,CAMELCASE -f uapi/linux/netslice.h ||
		rc=1
	checkpatch --ignore BIT_MACRO -f uapi/linux/netslice_cut.h || rc=1
	# nl_policy.h is the kernel's generator's output (scripts/ynl-gen.sh).
	# shellcheck disable=SC2046
	checkpatch -f $(git ls-files 'kmod/*.[ch]' | grep -v -e '^kmod/compat.h$' -e '^kmod/nl_policy.h$') ||
		rc=1
done
[ $rc -eq 0 ] && echo "lint: checkpatch --strict clean"
exit $rc
