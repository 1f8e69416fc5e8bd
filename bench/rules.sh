#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# make bench-rules: boot the guest (KERNEL=6.1|6.12, default 6.12), run
# bench/rule_update.sh there, file its CSV as
# bench/results/rule-update-DATE-KERNEL.csv.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
. tests/vm/kernels.sh
kver=$(ns_kernel_version "${KERNEL:-6.12}")
ko=$(tools/kbuild.sh "$kver")
log=$(mktemp)
trap 'rm -f "$log"' EXIT
NETSLICE_KO=$ko tests/vm/run --kernel "$kver" -- bench/rule_update.sh | tee "$log"
mkdir -p bench/results
csv=bench/results/rule-update-$(date +%Y%m%d)-$kver.csv
sed -n 's/^csv: //p' "$log" >"$csv"
echo "bench: $csv"
