#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Bad module parameters fail the load with a clear kernel-log message.
. "$(dirname "$0")/lib.sh"

bad=(0 257 4096 -1 abc 3x "")
ns_plan ${#bad[@]}
ns_module_loaded && rmmod netslice

rejects() {
	local value=$1
	ns_dmesg_mark
	if insmod "$NS_KO" "slices=$value" 2>/dev/null; then
		ns_diag "slices=$value was accepted"
		rmmod netslice
		return 1
	fi
	ns_module_loaded && return 1
	ns_no_nodes || return 1
	ns_dmesg_since | grep -q "netslice: slices=$value rejected: give a count from 1 to 256" ||
		{ ns_diag "no message for slices=$value:"; ns_dmesg_since; return 1; }
}

for v in "${bad[@]}"; do
	ns_check "slices='$v' is rejected with a message" rejects "$v"
done

ns_done
