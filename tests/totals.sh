# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# The totals line every suite and runner ends with, and how to read it:
# "N passed, N failed, N skipped" (the C helpers' nested suites and the
# host's own counters may leave out ", N skipped").
tst_totals_re='[0-9]+ passed, [0-9]+ failed(, [0-9]+ skipped)?$'

# tst_totals_read LINE: sets totals_p, totals_f and totals_s (0 when the line
# names no skips); fails when LINE is no totals line.
tst_totals_read() {
	[[ $1 =~ (^|[^0-9])([0-9]+)\ passed,\ ([0-9]+)\ failed(,\ ([0-9]+)\ skipped)?$ ]] || return 1
	totals_p=${BASH_REMATCH[2]} totals_f=${BASH_REMATCH[3]} totals_s=${BASH_REMATCH[5]:-0}
}

# tst_plan_check LOG: a KTAP program's plan ("1..N" at the top level) against
# the results it printed at that level. Prints the mismatch and fails.
tst_plan_check() {
	local plan results
	plan=$(grep -m1 -E '^1\.\.[0-9]+$' "$1" | cut -d. -f3)
	results=$(grep -cE '^(not )?ok [0-9]+' "$1")
	[ -z "$plan" ] && { echo "# no plan (1..N) printed"; return 1; }
	[ "$plan" -eq "$results" ] && return 0
	echo "# planned $plan results, printed $results"
	return 1
}
