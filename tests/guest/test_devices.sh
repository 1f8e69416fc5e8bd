#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Every device opens; CPUMASK_GET and bad ioctl arguments (dev_check); an
# open file keeps the module loaded.
. "$(dirname "$0")/lib.sh"
set -o pipefail

ns_plan 4
ns_module_loaded && rmmod netslice

dev_check_default() {
	ns_load || return 1
	dev_check "$(ns_nodes)" | ns_indent && ns_unload
}
ns_check "dev_check on every default slice" dev_check_default

dev_check_more_slices_than_cpus() {
	ns_load slices=7 || return 1
	dev_check 7 | ns_indent && ns_unload
}
ns_check "dev_check with more slices than CPUs" dev_check_more_slices_than_cpus

rmmod_with_open_fd() {
	ns_load slices=2 || return 1
	exec {fd}<>/dev/netslice-1 || return 1
	if rmmod netslice 2>/dev/null; then
		ns_diag "rmmod succeeded with /dev/netslice-1 open"
		return 1
	fi
	ns_module_loaded && [ -c /dev/netslice-1 ] || return 1
	# The open file still works after the refused unload.
	netslice-info 1 >/dev/null || return 1
	exec {fd}>&-
	ns_unload && ns_no_nodes
}
ns_check "rmmod is refused while a device is open, works after close" rmmod_with_open_fd

many_opens() {
	ns_load slices=2 || return 1
	local fds=() i
	for ((i = 0; i < 64; i++)); do
		exec {fd}<>/dev/netslice-0 || return 1
		fds+=("$fd")
	done
	for fd in "${fds[@]}"; do exec {fd}>&-; done
	ns_unload
}
ns_check "one slice opened 64 times at once" many_opens

ns_done
