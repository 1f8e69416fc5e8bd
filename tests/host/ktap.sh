# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# KTAP results for the host shell tests: ktap_plan N, then result NAME
# STATUS (0 passes) or skip NAME REASON per case; ktap_done prints
# "# N passed, N failed, N skipped" and returns non-zero on a failure or
# when the results do not match the plan.
passed=0 failed=0 skipped=0 planned=

ktap_plan() {
	planned=$1
	echo "KTAP version 1"
	echo "1..$1"
}

result() {
	if [ "$2" -eq 0 ]; then
		passed=$((passed + 1)); echo "ok $((passed + failed + skipped)) $1"
	else
		failed=$((failed + 1)); echo "not ok $((passed + failed + skipped)) $1"
	fi
}

skip() {
	skipped=$((skipped + 1)); echo "ok $((passed + failed + skipped)) $1 # SKIP $2"
}

# optional_missing WHAT PACKAGE: true, the skip's reason in $missing, when
# WHAT (a command, or a file by its absolute path), one of make
# check-host's optional dependencies (docs/testing.md), is not here.
optional_missing() {
	if [[ $1 == /* ]]; then
		[ -e "$1" ] && return 1
	else
		command -v "$1" >/dev/null && return 1
	fi
	# shellcheck disable=SC2034  # the caller's to read
	missing="no $1 (Debian: $2)"
}

ktap_done() {
	local n=$((passed + failed + skipped))
	if [ -n "$planned" ] && [ "$n" -ne "$planned" ]; then
		echo "# planned $planned results, printed $n"
		failed=$((failed + 1))
	fi
	echo "# $passed passed, $failed failed, $skipped skipped"
	[ "$failed" -eq 0 ]
}
