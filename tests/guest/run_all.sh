#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Run every guest test (or those named, or with --smoke the smoke subset)
# and print one summary line.
#
# The smoke subset is what make check runs on the kernels between the
# oldest and the newest (docs/testing.md): the module loads and unloads,
# every slice opens with its ioctls, read/write and ring I/O, forwarding
# exactly once through nf-fwd, and the installed module, units and NFs.
SMOKE=(test_load.sh test_devices.sh test_io.sh test_forward.sh test_install.sh)
cd "$(dirname "$0")" || exit 1
tests=("$@")
[ "${1:-}" = --smoke ] && tests=("${SMOKE[@]}")
[ ${#tests[@]} -gt 0 ] || tests=(test_*.sh)

passed=0 failed=0 broken=0
for t in "${tests[@]}"; do
	echo "# ===== $t ($(uname -r))"
	out=$(mktemp)
	start=$SECONDS
	bash "./$t" 2>&1 | tee "$out"
	rc=${PIPESTATUS[0]}
	echo "# $t took $((SECONDS - start)) s"
	sums=$(grep -E '^# [0-9]+ passed, [0-9]+ failed$' "$out" | tail -n 1)
	rm -f "$out"
	if [ -z "$sums" ]; then
		echo "# $t: no summary (exit $rc)"
		broken=$((broken + 1))
		continue
	fi
	read -r _ p _ f _ <<<"$sums"
	passed=$((passed + p))
	failed=$((failed + f))
	[ "$rc" -eq 0 ] || [ "$f" -gt 0 ] || { echo "# $t: exit $rc"; broken=$((broken + 1)); }
done
failed=$((failed + broken))
echo "# guest $(uname -r): $passed passed, $failed failed"
[ "$failed" -eq 0 ]
