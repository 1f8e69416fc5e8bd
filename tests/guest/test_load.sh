#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Loading and unloading: device nodes come and go with the module.
. "$(dirname "$0")/lib.sh"

tst_plan 5
tst_module_loaded && rmmod netslice

default_slices() {
	tst_load || return 1
	local n want
	n=$(cat /sys/module/netslice/parameters/slices)
	want=$(nproc --all)
	tst_diag "default: $n slices, $want online CPUs, $(tst_nodes) nodes"
	[ "$n" -eq "$want" ] && [ "$(tst_nodes)" -eq "$want" ] &&
		netslice-info | grep -q "^$want slices" && tst_unload
}
tst_check "default slice count is the number of online CPUs" default_slices

nodes_root_only() {
	tst_load slices=4 || return 1
	local i st
	for i in 0 1 2 3; do
		st=$(stat -c '%F %a %U %G' "/dev/netslice-$i") || return 1
		[ "$st" = "character special file 600 root root" ] ||
			{ tst_diag "/dev/netslice-$i: $st"; return 1; }
	done
	[ ! -e /dev/netslice-4 ] && tst_unload
}
tst_check "nodes are character devices, 0600 root:root" nodes_root_only

load_unload_20() {
	local i
	for ((i = 0; i < 20; i++)); do
		insmod "$TST_KO" slices=3 || return 1
		[ "$(tst_nodes)" -eq 3 ] || { tst_diag "round $i: $(tst_nodes) nodes"; return 1; }
		rmmod netslice || return 1
		tst_no_nodes || { tst_diag "round $i: nodes left after rmmod"; return 1; }
	done
}
tst_check "load and unload 20 times" load_unload_20

max_slices() {
	tst_load slices=256 || return 1
	[ "$(tst_nodes)" -eq 256 ] && [ -c /dev/netslice-255 ] && tst_unload && tst_no_nodes
}
tst_check "256 slices load, and unload removes every node" max_slices

one_slice() {
	tst_load slices=1 || return 1
	[ "$(tst_nodes)" -eq 1 ] && netslice-info 0 >/dev/null && ! netslice-info 1 2>/dev/null &&
		tst_unload
}
tst_check "one slice" one_slice

tst_done
