#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Generate from uapi/netslice.yaml, with the kernel's own netlink code
# generator (tools/net/ynl/pyynl/ynl_gen_c.py of the Linux 7.2 tree that
# scripts/fetch-kernel.sh prepares; NETSLICE_YNL_KERNEL names another):
#
#   uapi/linux/netslice_netlink.h   ynl_gen_c.py --mode uapi --header
#   kmod/nl_policy.h                the module's request policies, by its
#                                   policy printers (scripts/ynl_policies.py)
#   tests/syzkaller/netslice_genl.txt
#                                   syzkaller's descriptions of the family
#                                   (scripts/ynl_syz.py, not the kernel's)
#
#   scripts/ynl-gen.sh           write them
#   scripts/ynl-gen.sh --check   write none; fail if one is stale
set -euo pipefail
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$top"
# shellcheck source=tests/vm/kernels.sh
. tests/vm/kernels.sh

check=0
[ "${1:-}" = --check ] && check=1
series=${NETSLICE_YNL_KERNEL:-7.2}
ver=$(tst_kernel_version "$series")
tree=$tst_fetched_kernels/$ver/build
gen=$tree/tools/net/ynl/pyynl/ynl_gen_c.py
if [ -z "$ver" ] || [ ! -f "$gen" ]; then
	echo "ynl-gen: no ynl_gen_c.py of Linux $series here (scripts/deps.sh fetches it)" >&2
	exit 1
fi
py=
for p in python3 /usr/bin/python3; do
	if "$p" -c 'import yaml, jsonschema' 2>/dev/null; then
		py=$p
		break
	fi
done
[ -n "$py" ] || { echo "ynl-gen: no python3 with yaml and jsonschema (scripts/deps.sh)" >&2; exit 1; }

stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
# The generator finds the tree's root by its MAINTAINERS file and names the
# spec by its path from there; it validates the spec against the schema
# one directory above the spec's.
touch "$stage/MAINTAINERS"
mkdir "$stage/uapi" "$stage/out"
cp "$tree"/Documentation/netlink/genetlink*.yaml "$stage/"
cp uapi/netslice.yaml "$stage/uapi/"
"$py" "$gen" --mode uapi --header --spec "$stage/uapi/netslice.yaml" \
	-o "$stage/out/netslice_netlink.h" >"$stage/log" 2>&1 ||
	{ cat "$stage/log" >&2; echo "ynl-gen: uapi/netslice.yaml: the generator refused it" >&2; exit 1; }
# Its regeneration hint names the kernel tree's script; ours is this one.
sed -i 's|tools/net/ynl/ynl-regen.sh|scripts/ynl-gen.sh|' "$stage/out/netslice_netlink.h"
"$py" scripts/ynl_policies.py "$gen" "$stage/uapi/netslice.yaml" "$stage/out/nl_policy.h"
"$py" scripts/ynl_syz.py "$stage/uapi/netslice.yaml" "$stage/out/netslice_genl.txt"

rc=0
for pair in netslice_netlink.h:uapi/linux/netslice_netlink.h nl_policy.h:kmod/nl_policy.h \
	netslice_genl.txt:tests/syzkaller/netslice_genl.txt; do
	new=$stage/out/${pair%%:*} dest=${pair#*:}
	if cmp -s "$new" "$dest"; then
		continue
	elif [ $check = 1 ]; then
		echo "ynl-gen: $dest is not what uapi/netslice.yaml generates (run scripts/ynl-gen.sh):" >&2
		diff -u "$dest" "$new" | head -n 40 >&2 || true
		rc=1
	else
		cp "$new" "$dest"
		echo "ynl-gen: wrote $dest"
	fi
done
[ $check = 0 ] || [ $rc != 0 ] || echo "ynl-gen: generated files are current (Linux $ver's ynl_gen_c.py)"
exit $rc
