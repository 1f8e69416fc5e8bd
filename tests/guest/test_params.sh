#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Bad module parameters fail the load with a clear kernel-log message.
. "$(dirname "$0")/lib.sh"

bad=(0 257 4096 -1 abc 3x "")
tst_plan $((${#bad[@]} + 1))
tst_module_loaded && rmmod netslice

rejects() {
	local value=$1
	tst_dmesg_mark
	if insmod "$TST_KO" "slices=$value" 2>/dev/null; then
		tst_diag "slices=$value was accepted"
		rmmod netslice
		return 1
	fi
	tst_module_loaded && return 1
	tst_no_nodes || return 1
	tst_dmesg_since | grep -q "netslice: slices=$value rejected: give a count from 1 to 256" ||
		{ tst_diag "no message for slices=$value:"; tst_dmesg_since; return 1; }
}

for v in "${bad[@]}"; do
	tst_check "slices='$v' is rejected with a message" rejects "$v"
done

# ring_size, rxq_size's name before 0.6, still sizes the slice's rxq.
old_name() {
	local rc=0
	insmod "$TST_KO" slices=1 ring_size=64 || return 1	# the name before 0.6
	[ "$(cat /sys/module/netslice/parameters/rxq_size)" = 64 ] &&
		netslice-info -s 0 | grep -q 'rxq 64,' || { netslice-info -s 0 | tst_indent; rc=1; }
	rmmod netslice || rc=1
	return $rc
}
tst_check "ring_size=64, the name before 0.6, gives each slice an rxq of 64" old_name

tst_done
