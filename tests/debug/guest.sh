#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Inside the sanitizer kernel's guest (make check-debug): make the kernel's
# built-in drivers known to modprobe, run the KUnit suites from
# netslice_kunit.ko, then the guest integration suite (arguments: the
# tests to run, default all). Prints "# debug guest: N passed, N failed,
# N skipped".
# The runner (tests/vm/run) then fails the run on any kernel report or
# kmemleak suspect.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../totals.sh"
rel=$(uname -r)
: "${NETSLICE_KO:?}" "${NETSLICE_KUNIT_KO:?}" "${NETSLICE_BUILTIN:?}"

# Everything the tests use is built in; modprobe must know that.
passed=0 failed=0
mkdir -p "/lib/modules/$rel"
: >"/lib/modules/$rel/modules.order"
if ! cp "$NETSLICE_BUILTIN"/modules.builtin "$NETSLICE_BUILTIN"/modules.builtin.modinfo \
	"/lib/modules/$rel/" || ! depmod "$rel"; then
	echo "# modprobe cannot know the built-in modules"
	failed=1
fi

# KUnit: the suites run when the module loads; debugfs has their KTAP.
kunit() {
	local d results p=0 f=0 s=0
	insmod "$NETSLICE_KO" || return 1
	if ! insmod "$NETSLICE_KUNIT_KO"; then
		rmmod netslice
		return 1
	fi
	for d in /sys/kernel/debug/kunit/netslice*; do
		results=$(cat "$d/results")
		# Test cases are the indented "ok"/"not ok" lines.
		p=$((p + $(grep -E '^    ok ' <<<"$results" | grep -cv '# SKIP')))
		s=$((s + $(grep -cE '^    ok .*# SKIP' <<<"$results")))
		f=$((f + $(grep -cE '^    not ok ' <<<"$results")))
		grep -E '^    not ok ' <<<"$results" | sed "s|^|# $(basename "$d"): |"
	done
	rmmod netslice_kunit && rmmod netslice
	echo "# kunit ($rel): $p passed, $f failed, $s skipped"
	kunit_passed=$p kunit_failed=$f kunit_skipped=$s
	[ "$f" -eq 0 ] && [ "$p" -gt 0 ]
}
kunit_passed=0 kunit_failed=0 kunit_skipped=0
kunit || [ "$kunit_failed" -gt 0 ] || kunit_failed=1
passed=$((passed + kunit_passed))
failed=$((failed + kunit_failed))
skipped=$kunit_skipped

out=$(mktemp)
"$here/../guest/run_all.sh" "$@" | tee "$out"
line=$(grep -E "^# guest .*: $tst_totals_re" "$out" | tail -n 1)
rm -f "$out"
if tst_totals_read "$line"; then
	passed=$((passed + totals_p))
	failed=$((failed + totals_f))
	skipped=$((skipped + totals_s))
else
	failed=$((failed + 1))
fi
echo "# debug guest $rel: $passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
