#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Run every guest test (or those named, or with --smoke the smoke subset)
# and print one summary line. --skip NAME (repeatable, first) leaves a test
# file out: make check runs a test whose cases do not depend on the kernel
# on one kernel only (tests/check.sh).
#
# The smoke subset is what make check runs on the kernels between the
# oldest and the newest (docs/testing.md): the module loads and unloads,
# every slice opens with its ioctls, read/write and ring I/O, forwarding
# exactly once through nf-fwd, GSO super-packets through the NFs (skb
# segmentation and GRO, which change across kernels), a real NIC driver
# (virtio-net) forwarding, a NIC with several queues feeding a slice
# each, chains of slices (the hand-off between slices' queues and stores)
# and an NF in an unprivileged container (user namespaces and bind-mounted
# device nodes). CI runs it on 7.2 too (.ci/run).
SMOKE=(test_load.sh test_devices.sh test_io.sh test_ring.sh test_forward.sh test_gso.sh
	test_nic.sh test_nic_queues.sh test_chain.sh test_chain_nfs.sh test_container.sh)
cd "$(dirname "$0")" || exit 1
. ../totals.sh
left_out=" "
while [ "${1:-}" = --skip ] && [ $# -ge 2 ]; do
	left_out+="$2 "
	shift 2
done
tests=("$@")
[ "${1:-}" = --smoke ] && tests=("${SMOKE[@]}")
[ ${#tests[@]} -gt 0 ] || tests=(test_*.sh)

passed=0 failed=0 skipped=0 broken=0
for t in "${tests[@]}"; do
	case $left_out in
	*" $t "*)
		echo "# ===== $t: left out on this kernel (--skip)"
		continue
		;;
	esac
	echo "# ===== $t ($(uname -r))"
	out=$(mktemp)
	start=$SECONDS
	bash "./$t" 2>&1 | tee "$out"
	rc=${PIPESTATUS[0]}
	echo "# $t took $((SECONDS - start)) s"
	sums=$(grep -E "^# $tst_totals_re" "$out" | tail -n 1)
	plan_ok=1
	tst_plan_check "$out" || plan_ok=0
	rm -f "$out"
	if [ -z "$sums" ]; then
		echo "# $t: no summary (exit $rc)"
		broken=$((broken + 1))
		continue
	fi
	tst_totals_read "$sums"
	passed=$((passed + totals_p))
	failed=$((failed + totals_f))
	skipped=$((skipped + totals_s))
	# A failure the test counted itself is not counted twice.
	if [ "$totals_f" -gt 0 ]; then
		:
	elif [ "$plan_ok" = 0 ]; then
		echo "# $t: its plan does not match its results"
		broken=$((broken + 1))
	elif [ "$rc" -ne 0 ]; then
		echo "# $t: exit $rc"
		broken=$((broken + 1))
	fi
done
failed=$((failed + broken))
echo "# guest $(uname -r): $passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
