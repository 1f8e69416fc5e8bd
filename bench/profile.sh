#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# make bench's profile, sourced by bench/run.sh after its measurements:
# every contender named in NETSLICE_BENCH_PROFILE (default below) forwards
# pktgen's saturating load while `perf record -e cpu-clock -g` samples the
# DUT's two CPUs (pktgen and the sink keep CPU 0, unsampled). The samples
# are folded in the guest (bench/flame.py fold) and printed as
# "fold: CONTENDER,SIZE,STACK COUNT" lines, with a "profcount:
# CONTENDER,SIZE,FORWARDED,HZ" line (the frames forwarded while perf
# sampled), which bench/bench.sh files and bench/report.py draws and
# buckets.
#
#   NETSLICE_BENCH_PROFILE   "CONTENDER[@SIZE] ..." (SIZE default 64), or
#                            "none"
#   NETSLICE_BENCH_PROFILE_SECS  seconds sampled per contender (default 3)

bench_profile_list=${NETSLICE_BENCH_PROFILE:-ns-fwd-off ns-fwd-rules ns-fwd-auto ns-fwd-off@1518 \
ns-fwd-auto@1518 ns-fw-auto ns-nat-auto ring-fwd-off ring-fwd-auto ring-fwd-auto@1518 \
afp-mmsg afp-v3 afxdp afxdp-busy bridge}
[ -z "${bench_base_ko:-}" ] || [ -n "${NETSLICE_BENCH_PROFILE:-}" ] ||
	bench_profile_list="base-fwd-off base-fwd-off@1518 $bench_profile_list"
bench_profile_secs=${NETSLICE_BENCH_PROFILE_SECS:-3}
bench_profile_hz=1000

# bench_profile_one NAME SIZE: one profile, folded, as "fold:" lines.
# perf starts first (under TCG it takes seconds to begin sampling), then
# the load runs for the seconds asked and perf is stopped; idle samples
# are left out of every share.
bench_profile_one() {
	local name=$1 size=$2 data perf_pid rc=0 rx0 rx1
	data=$(mktemp)
	tst_defer rm -f "$data"
	bench_up "$name" || return 1
	# perf starts its workload once it samples: the workload says so.
	# --synth=task: under TCG, reading every process's mappings takes
	# perf minutes; kernel symbols need none, and user frames count as
	# user space by address alone.
	perf record -q -e cpu-clock -F "$bench_profile_hz" -g -C "$bench_kcpu,$bench_ucpu" --synth=task -o "$data" \
		-- sh -c "touch $data.on; exec sleep 600" >"$data.log" 2>&1 &
	perf_pid=$!
	tst_defer rm -f "$data.on" "$data.log"
	tst_wait_job "$perf_pid" "$data.log" 300000 test -e "$data.on" || { tst_show_log "$data.log"; rc=1; }
	sink_rx rx0
	if [ "$rc" = 0 ]; then
		ip netns exec "$gen" taskset -c 0 "$TST_TOP/bench/pktgen.sh" "$gen_if" "$bench_load_mac" \
			"$size" 0 "$bench_profile_secs" >/dev/null || rc=1
	fi
	kill -INT "$perf_pid" 2>/dev/null
	wait "$perf_pid"
	drain
	# The frames forwarded while perf sampled: the profile's own count, so
	# a bucket's µs per frame needs no other run's numbers.
	sink_rx rx1
	echo "profcount: $name,$size,$((rx1 - rx0)),$bench_profile_hz"
	# Folded while the module is loaded: its symbols come from kallsyms.
	[ "$rc" = 0 ] && perf script -i "$data" -F comm,ip,sym 2>/dev/null |
		/usr/bin/python3 "$TST_TOP/bench/flame.py" fold /proc/kallsyms |
		sed "s/^/fold: $name,$size,/"
	bench_down "$name" || rc=1
	rm -f "$data"
	[ "$rc" = 0 ]
}

bench_profile() {
	local item name size
	[ "$bench_profile_list" != none ] || return 0
	if ! command -v perf >/dev/null; then
		echo "# profile: no perf in the guest (Debian's linux-perf); skipped" >&2
		return 0
	fi
	for item in $bench_profile_list; do
		name=${item%@*}
		size=64
		[ "$item" = "$name" ] || size=${item#*@}
		echo "# profile: $name, $size B, ${bench_profile_secs} s at saturation"
		bench_profile_one "$name" "$size" || { echo "bench: profile of $name failed" >&2; return 1; }
	done
}
