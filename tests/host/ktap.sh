# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# KTAP results for the host shell tests: result NAME STATUS (0 passes),
# ktap_done prints "# N passed, N failed" and returns non-zero on a failure.
passed=0 failed=0

result() {
	if [ "$2" -eq 0 ]; then
		passed=$((passed + 1)); echo "ok $((passed + failed)) $1"
	else
		failed=$((failed + 1)); echo "not ok $((passed + failed)) $1"
	fi
}

ktap_done() {
	echo "# $passed passed, $failed failed"
	[ "$failed" -eq 0 ]
}
