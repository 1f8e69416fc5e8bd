#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The guest runner passes COMMAND's exit status through, and fails a run
# whose guest kernel log shows a warning even when COMMAND succeeded, or
# whose guest crashed, and says why.
top=$(cd "$(dirname "$0")/../.." && pwd)
kernel=${1:-6.1}
passed=0 failed=0
echo "KTAP version 1"
echo "# suite: vm_runner ($kernel)"
echo "1..3"

result() {
	if [ "$2" -eq 0 ]; then
		passed=$((passed + 1)); echo "ok $1"
	else
		failed=$((failed + 1)); echo "not ok $1"
	fi
}

rc=0
"$top/tests/vm/run" --kernel "$kernel" -- sh -c 'exit 3' >/dev/null 2>&1 || rc=$?
[ "$rc" -eq 3 ]
result "1 the command's exit status (3) comes back (got $rc)" $?

log=$(mktemp)
trap 'rm -f "$log"' EXIT
rc=0
"$top/tests/vm/run" --kernel "$kernel" -- \
	sh -c 'echo "WARNING: CPU: 0 PID: 1 at netslice-selftest fake warning" >/dev/kmsg; exit 0' \
	>"$log" 2>&1 || rc=$?
[ "$rc" -eq 1 ] && grep -q '^run: the first report: .*netslice-selftest fake warning' "$log"
result "2 a WARNING: in the guest kernel log fails a successful command, and the runner names it (got $rc)" $?
[ "$rc" -eq 1 ] || cat "$log"

rc=0
"$top/tests/vm/run" --kernel "$kernel" -- sh -c 'echo c >/proc/sysrq-trigger; sleep 60' \
	>"$log" 2>&1 || rc=$?
[ "$rc" -eq 1 ] && grep -q "the console's first report: .*Kernel panic" "$log"
result "3 a guest kernel crash fails the run, and the runner shows the panic (got $rc)" $?
[ "$rc" -eq 1 ] || cat "$log"

echo "# $passed passed, $failed failed"
[ "$failed" -eq 0 ]
