#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Loading and unloading: device nodes come and go with the module.
. "$(dirname "$0")/lib.sh"

ns_plan 5
ns_module_loaded && rmmod netslice

default_slices() {
	ns_load || return 1
	local n want
	n=$(cat /sys/module/netslice/parameters/slices)
	want=$(nproc --all)
	ns_diag "default: $n slices, $want online CPUs, $(ns_nodes) nodes"
	[ "$n" -eq "$want" ] && [ "$(ns_nodes)" -eq "$want" ] &&
		netslice-info | grep -q "^$want slices" && ns_unload
}
ns_check "default slice count is the number of online CPUs" default_slices

nodes_root_only() {
	ns_load slices=4 || return 1
	local i st
	for i in 0 1 2 3; do
		st=$(stat -c '%F %a %U %G' "/dev/netslice-$i") || return 1
		[ "$st" = "character special file 600 root root" ] ||
			{ ns_diag "/dev/netslice-$i: $st"; return 1; }
	done
	[ ! -e /dev/netslice-4 ] && ns_unload
}
ns_check "nodes are character devices, 0600 root:root" nodes_root_only

load_unload_20() {
	local i
	for ((i = 0; i < 20; i++)); do
		insmod "$NS_KO" slices=3 || return 1
		[ "$(ns_nodes)" -eq 3 ] || { ns_diag "round $i: $(ns_nodes) nodes"; return 1; }
		rmmod netslice || return 1
		ns_no_nodes || { ns_diag "round $i: nodes left after rmmod"; return 1; }
	done
}
ns_check "load and unload 20 times" load_unload_20

max_slices() {
	ns_load slices=256 || return 1
	[ "$(ns_nodes)" -eq 256 ] && [ -c /dev/netslice-255 ] && ns_unload && ns_no_nodes
}
ns_check "256 slices load, and unload removes every node" max_slices

one_slice() {
	ns_load slices=1 || return 1
	[ "$(ns_nodes)" -eq 1 ] && netslice-info 0 >/dev/null && ! netslice-info 1 2>/dev/null &&
		ns_unload
}
ns_check "one slice" one_slice

ns_done
