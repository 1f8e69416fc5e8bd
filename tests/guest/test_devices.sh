#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Every device opens; CPUMASK_GET and bad ioctl arguments (dev_check); an
# open file keeps the module loaded.
. "$(dirname "$0")/lib.sh"
set -o pipefail

tst_plan 4
tst_module_loaded && rmmod netslice

dev_check_default() {
	tst_load || return 1
	dev_check "$(tst_nodes)" | tst_indent && tst_unload
}
tst_check "dev_check on every default slice" dev_check_default

dev_check_more_slices_than_cpus() {
	tst_load slices=7 || return 1
	dev_check 7 | tst_indent && tst_unload
}
tst_check "dev_check with more slices than CPUs" dev_check_more_slices_than_cpus

rmmod_with_open_fd() {
	tst_load slices=2 || return 1
	exec {fd}<>/dev/netslice-1 || return 1
	if rmmod netslice 2>/dev/null; then
		tst_diag "rmmod succeeded with /dev/netslice-1 open"
		return 1
	fi
	tst_module_loaded && [ -c /dev/netslice-1 ] || return 1
	# The open file still works after the refused unload.
	netslice-info 1 >/dev/null || return 1
	exec {fd}>&-
	tst_unload && tst_no_nodes
}
tst_check "rmmod is refused while a device is open, works after close" rmmod_with_open_fd

many_opens() {
	tst_load slices=2 || return 1
	local fds=() i
	for ((i = 0; i < 64; i++)); do
		exec {fd}<>/dev/netslice-0 || return 1
		fds+=("$fd")
	done
	for fd in "${fds[@]}"; do exec {fd}>&-; done
	tst_unload
}
tst_check "one slice opened 64 times at once" many_opens

tst_done
