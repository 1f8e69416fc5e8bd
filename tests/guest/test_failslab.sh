#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Allocation failures injected into the module's own code paths (failslab
# and fail_page_alloc, on a kernel built with them: make check-debug).
# Only allocations with a netslice frame on their stack fail: the module
# area is the stack filter's required range, and no other module is loaded
# in the sanitizer kernel. Each operation (load, attach, open, rule insert,
# and the receive, park and splice paths under traffic) either succeeds or
# fails with an error, leaving the state as before; counters stay
# consistent, nothing stays parked after close, and the runner's kmemleak
# scan must come back empty.
#
# NETSLICE_FAILSLAB_ROUNDS: attempts of attach and rule insert (default 100);
# below 100, the load sweep fails one allocation in 100/ROUNDS.
# NETSLICE_FAILSLAB_CUT: frames the traffic case cuts with failures
# armed before it stops (default 2000).
. "$(dirname "$0")/lib.sh"

tst_plan 6
tst_module_loaded && rmmod netslice
ROUNDS=${NETSLICE_FAILSLAB_ROUNDS:-100}
CUT=${NETSLICE_FAILSLAB_CUT:-2000}
FI=/sys/kernel/debug
# x86-64 with CONFIG_RANDOMIZE_BASE: MODULES_VADDR .. MODULES_END.
MODULES_START=$((0xffffffffc0000000))
MODULES_END=$((0xffffffffff000000))
TIMES=1000000

if [ ! -d $FI/failslab ] || [ ! -d $FI/fail_page_alloc ]; then
	for name in load attach open "slice-set" "rule insert" "traffic"; do
		tst_skip "$name under allocation failures" "kernel without failslab"
	done
	tst_done
fi

# fi_arm PERCENT TASK_FILTER [START END]: fail that share of the module's
# allocations (of those with a frame in START..END on their stack, the
# module area by default), of the tasks marked make-it-fail only (Y) or
# of every context (N: the receive path runs in softirq).
fi_arm() {
	local f
	for f in failslab fail_page_alloc; do
		echo N >$FI/$f/ignore-gfp-wait
		echo 0 >$FI/$f/verbose
		echo 1 >$FI/$f/interval
		echo 0 >$FI/$f/space
		echo "$2" >$FI/$f/task-filter
		echo 32 >$FI/$f/stacktrace-depth
		printf '%#x\n' "${3:-$MODULES_START}" >$FI/$f/require-start
		printf '%#x\n' "${4:-$MODULES_END}" >$FI/$f/require-end
		echo "$TIMES" >$FI/$f/times
		echo "$1" >$FI/$f/probability
	done
	echo N >$FI/fail_page_alloc/ignore-gfp-highmem
	echo 0 >$FI/fail_page_alloc/min-order
}

# fi_disarm: no more failures; prints how many were injected.
fi_disarm() {
	local f n=0
	for f in failslab fail_page_alloc; do
		echo 0 >$FI/$f/probability
		n=$((n + TIMES - $(cat $FI/$f/times)))
		echo "$TIMES" >$FI/$f/times
	done
	echo "$n"
}
tst_defer eval 'fi_disarm >/dev/null'

# failing COMMAND...: run COMMAND as a task whose allocations may fail.
failing() {
	(echo 1 >/proc/self/make-it-fail && exec "$@")
}

# tally OK FAILED INJECTED WHAT: one line, and the case needs both outcomes.
tally() {
	tst_diag "$4: $1 succeeded, $2 failed cleanly, $3 allocations failed"
	[ "$2" -gt 0 ] && [ "$3" -gt 0 ]
}

feeds() {
	ip link add fsa0 type veth peer name fsb0 && tst_defer ip link del fsa0 &&
		ip link add fsa1 type veth peer name fsb1 && tst_defer ip link del fsa1 || return 1
	local i
	for i in fsa0 fsb0 fsa1 fsb1; do ip link set "$i" up || return 1; done
}

# Every allocation of the module's init, failed in turn (fail-nth, with
# the module-area stack filter; one in 100/ROUNDS on a short run): refused
# with ENOMEM and nothing left, or loaded whole where a failure has a
# fallback; then a load with none.
load() {
	feeds || return 1
	fi_arm 0 N
	faultloop failload "$TST_KO" "slices=4 ifaces=fsa0:fsa1" 4 $(((99 + ROUNDS) / ROUNDS)) |
		sed 's/^/# /'
	local rc=${PIPESTATUS[0]}
	fi_disarm >/dev/null
	[ "$rc" -eq 0 ] && ! tst_module_loaded && tst_no_nodes
}
tst_check "load with its N-th allocation failing, for every N: whole or not at all" load
tst_run_cleanups

linked() { netslicectl -j link show | grep -q '"fsa1"'; }

attach() {
	local i ok=0 bad=0 injected
	feeds || return 1
	tst_load slices=4 || return 1
	# One allocation in three: ten rounds still see both outcomes.
	fi_arm 30 Y
	for ((i = 0; i < ROUNDS; i++)); do
		if failing netslicectl link attach dev fsa1 peer fsb1 >/dev/null 2>&1; then
			ok=$((ok + 1))
			linked || { tst_diag "round $i: attach succeeded, link missing"; break; }
			# Detach may fail too; then again, with nothing failing.
			failing netslicectl link detach dev fsa1 >/dev/null 2>&1 ||
				netslicectl link detach dev fsa1 || break
		else
			bad=$((bad + 1))
			linked && { tst_diag "round $i: attach failed, link present"; break; }
		fi
	done
	injected=$(fi_disarm)
	[ "$i" -eq "$ROUNDS" ] && tally "$ok" "$bad" "$injected" "link attach"
}
tst_check "link attach under allocation failures: attached or not at all" attach
tst_run_cleanups

# The module's open allocates nothing itself, so open's failures are those
# of the VFS around it: the N-th allocation of the open(2) call fails
# (fail-nth, no stack filter), for every N until the open goes through.
opens() {
	tst_load slices=2 || return 1
	fi_arm 0 N 0 -1
	faultloop failopen /dev/netslice-1 | sed 's/^/# /'
	local rc=${PIPESTATUS[0]}
	fi_disarm >/dev/null
	# Nothing half-open holds the slice.
	netslicectl -j slice show 1 | grep -q '"readers":0[,}]' || { tst_diag "readers left"; return 1; }
	[ "$rc" -eq 0 ]
}
tst_check "open with its N-th allocation failing, for every N: refused or opened, no reader left" opens
tst_run_cleanups

sizes() {
	netslicectl -j slice show 1 | grep -o '"\(rxq\|store\)_size":[0-9]*' | tr '\n' ' '
}

# A slice-set of both sizes with its N-th allocation failing (fail-nth,
# module-area stack filter), for every N until none fails: each either
# takes both sizes or leaves both as they were (the rxq and trimq are
# allocated before the store resizes and swapped in after). It goes back
# and forth between two pairs of sizes. Queues of at most a page, which
# kvmalloc() does not retry with vmalloc: their failure is ENOMEM.
slice_set() {
	local n from to injected rc ok=0 bad=0 after
	local -A arg=([small]="rxq-size 128 store-size 64" [large]="rxq-size 512 store-size 128")
	local -A show=([small]='"rxq_size":128 "store_size":64 ' [large]='"rxq_size":512 "store_size":128 ')
	tst_load slices=2 rxq_size=128 store_size=64 || return 1
	from=small to=large
	[ "$(sizes)" = "${show[$from]}" ] || return 1
	fi_arm 0 N
	for ((n = 1; n < 64; n++)); do
		# shellcheck disable=SC2086 # the pair's words
		(echo "$n" >/proc/self/fail-nth && exec netslicectl slice set 1 ${arg[$to]}) \
			>/dev/null 2>&1
		rc=$?
		injected=$(fi_disarm)
		after=$(sizes)
		if [ "$rc" -eq 0 ]; then
			ok=$((ok + 1))
			[ "$after" = "${show[$to]}" ] || { tst_diag "N=$n: succeeded, $after"; return 1; }
			[ "$injected" -eq 0 ] && break
			set -- "$to" "$from"
			from=$1 to=$2
		else
			bad=$((bad + 1))
			[ "$after" = "${show[$from]}" ] || { tst_diag "N=$n: failed, left $after"; return 1; }
		fi
	done
	fi_disarm >/dev/null
	[ "$injected" -eq 0 ] && tally "$ok" "$bad" "$((n - 1))" "slice-set of both sizes"
}
tst_check "slice-set with its N-th allocation failing, for every N: both sizes or neither" slice_set
tst_run_cleanups

rule_insert() {
	local i ok=0 bad=0 injected want=() have
	tst_load slices=4 || return 1
	fi_arm 30 Y
	for ((i = 1; i <= ROUNDS; i++)); do
		# Exact (5-tuple) and wildcard rules take different tables.
		if failing netslicectl rule add proto udp src 10.0.0.1 dst 10.0.0.2 sport "$i" \
			dport 9 slice 1 >/dev/null 2>&1; then
			ok=$((ok + 1)) want+=("exact:$i")
		else
			bad=$((bad + 1))
		fi
		if failing netslicectl rule add proto tcp dport "$i" pref "$i" slice 2 >/dev/null 2>&1; then
			ok=$((ok + 1)) want+=("wildcard:$i")
		else
			bad=$((bad + 1))
		fi
	done
	injected=$(fi_disarm)
	# Exactly the rules whose add succeeded are in the table.
	have=$(netslicectl -j rule show | /usr/bin/python3 -c 'import json, sys
for r in json.load(sys.stdin):
    print("%s:%d" % (r["table"], r["sport_min"] if r["table"] == "exact" else r["dport_min"]))' |
		sort)
	tst_diag "rules in the table: $(wc -l <<<"$have"), adds that succeeded: ${#want[@]}"
	[ "$have" = "$(printf '%s\n' "${want[@]}" | sort)" ] &&
		netslicectl rule flush && tally "$ok" "$bad" "$injected" "rule adds"
}
tst_check "rule insert under allocation failures: exactly the rules whose add succeeded are in" rule_insert
tst_run_cleanups

# The receive path (softirq: segmentation, clones), parking and splicing,
# under traffic: any allocation with a netslice frame may fail.
traffic() {
	local injected cut
	tst_topology 1 || return 1
	tst_load slices=2 ifaces=dut0:dut1 store_timeout_ms=100 || return 1
	tst_start_fwd -m auto -b 32 || return 1
	ip netns exec "$gen" nstraffic send gen0 "$sink_mac" 100000000 >/dev/null &
	local tpid=$!
	tst_defer tst_kill_job "$tpid"
	fi_arm 5 N
	tst_busywait 20000 eval '[ "$(tst_stat_sum read_sliced)" -gt "$CUT" ]'
	injected=$(fi_disarm)
	kill "$tpid" && wait "$tpid" 2>/dev/null
	tst_stop_fwd >/dev/null || return 1
	# Frames still in the veth backlog are counted by dut0 first.
	tst_busywait 5000 tst_frames_accounted dut0 quiet
	tst_frames_accounted dut0 || return 1
	cut=$(tst_stat_sum read_sliced)
	tst_diag "cut $cut; $injected allocations failed; store_used $(tst_stat_sum store_used)"
	[ "$(tst_stat_sum store_used)" -eq 0 ] && [ "$injected" -gt 0 ] && [ "$cut" -gt 0 ]
}
tst_check "traffic with parking and splicing under allocation failures: every frame accounted for" traffic

tst_done
