# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# make bench's main measure, sourced by bench/run.sh in a guest that runs
# under the nsinsn QEMU plugin (bench/plugin/nsinsn.c): each row offers
# the same load (NETSLICE_BENCH_INSN_PPS frames/s, a count of
# NETSLICE_BENCH_INSN_PKTS frames) to one contender, between two marks
# (bench/nsmark, or xdpgen's own) that read the DUT's transmit counter
# beside them. The plugin counts every vCPU's instructions and bytes
# between the marks; the host divides the DUT's vCPUs' counts by the
# frames forwarded (bench/insns.py).
#
# Prints "insn: SEQ,ROUND,CONTENDER,SIZE,PPS,SENT,USEC,FWD" lines, a "cap: "
# line per contender (bench_insn_capacity), a "lost: " line per row that
# lost frames (bench_insn_lost: where they went), a "cal: " line per
# calibration copy (bench_insn_calibrate), an "rload: " line per bulk rule
# load (bench_insn_ruleload), an "rgen: " line per measurement of
# ring-fwd-replace (the replaces made in it), an "nconn: " line per
# nf-nat connection measurement (bench_insn_natconn) and a "# " progress
# line per row; writes kallsyms (once), each contender's module symbols
# and each row's forwarder mappings into NETSLICE_BENCH_OUT, which
# the host reads to name the sampled PCs.
#
#   NETSLICE_BENCH_INSN_ROWS   "CONTENDER@SIZE[/BATCH] ...", rows of one
#                              contender measured while it is up; /BATCH:
#                              xdpgen's batch for that row (bench/insns.py
#                              fits cost = a + b / BATCH from two); default
#                              bench_insn_all_rows, quick bench_insn_quick_rows
#   NETSLICE_BENCH_INSN_BATCH  xdpgen's batch otherwise (default 64)
#   NETSLICE_BENCH_INSN_PPS    offered rate (default: from the capacity
#                              search, below; else 15,000, 6,000 on NICs)
#   NETSLICE_BENCH_INSN_LOAD   that rate in percent of the slowest
#                              contender's capacity (default 90)
#   NETSLICE_BENCH_INSN_PKTS   frames per row (default 20000; quick 10000)
#   NETSLICE_BENCH_INSN_ROUNDS rounds (default 5; quick 2): a row's value
#                              is its median over the rounds
#   NETSLICE_BENCH_INSN_WARMUP 1: a warm-up round 0 first (default; quick
#                              on xdpgen's load 0: each contender's own
#                              warm-up burst suffices there, round 0 came
#                              within 2% of round 1, 2026-12-03); 0 under
#                              pktgen also skips the capacity search
#   NETSLICE_BENCH_INSN_CAP_STEPS
#                              halvings of the capacity search (default 6;
#                              quick 4; 0: no search)
#   NETSLICE_BENCH_INSN_RULELOAD
#                              rules a round's bulk load (default 100000;
#                              quick 20000; 0: none)
#   NETSLICE_BENCH_INSN_NAT   SYNs a second of a round's nf-nat rows
#                              (bench_insn_natconn; default 1000; 0: none)
#   NETSLICE_BENCH_INSN_CAP_SIZE
#                              the frame size the capacity is searched at
#                              (default 64)
#   NETSLICE_BENCH_STALL_S     a pass that makes no process for this long
#                              says where the guest is (bench_insn_stall_watch;
#                              default 300)
#
# Round 0 warms up (its rows are marked but not reported; not under
# QUICK on xdpgen's load, NETSLICE_BENCH_INSN_WARMUP): the first
# run of each contender costs up to twice the others (first use of its
# code paths, caches and tables). In it, each contender's capacity is
# searched (RFC 2544: the highest rate forwarded with less than 0.1%
# loss), and the rate of the rounds that count is set from the slowest
# where the search could judge every capacity (bench_insn_set_rate).
# Each contender also gets an idle row (SIZE 0: one second with no load),
# to show what a row holds besides its frames.
#
# The rate: the guest's clock is the host's under TCG, so a rate is only
# comparable between runs of one machine kind. The generator (pktgen on
# vCPU 0, with the sink) costs as many instructions per frame as a DUT,
# so most contenders keep up with it: their capacity is unknown and
# bench/insns.py says so (generator_headroom_min). The receive side's
# interrupt coalescing (bench_coalesce in bench/run.sh) makes the counts
# repeat at one rate; they still move with the rate (ratios by up to 4%
# between 15,000 and 20,000 frames/s), hence bench_insn_set_rate's rule.

bench_insn_caps=()
# The generator: on veth, xdpgen (XDP frames, bench_insn_batch a batch,
# the next once the DUT sent the last), so the DUT receives as from a NIC
# and a poll takes bench_insn_batch frames whatever the timing; pktgen
# (NETSLICE_BENCH_GEN=pktgen) offers a rate instead. On the NIC topology
# frames come through QEMU: from the host (bench/hostgen.c, which the
# runner starts with NETSLICE_VM_HOSTGEN: batches as xdpgen's, written
# into the tap behind the DUT's port, no guest vCPU generating), else
# pktgen on vCPU 0.
if [ "${NETSLICE_BENCH_TOPOLOGY:-veth}" = nic ]; then
	bench_insn_gen=pktgen
	[ -z "${NETSLICE_VM_HOSTGEN:-}" ] || bench_insn_gen=host
else
	bench_insn_gen=${NETSLICE_BENCH_GEN:-xdp}
fi
bench_insn_batch=${NETSLICE_BENCH_INSN_BATCH:-64}
# xdpgen sleeps until the sink's tc program (tcx, Linux 6.6 on) counted a
# batch in and woke it; before 6.6 it polls the DUT's transmit counter.
bench_insn_tcx=0
! tst_kernel_at_least 6.6 || bench_insn_tcx=1
bench_insn_cap_size=${NETSLICE_BENCH_INSN_CAP_SIZE:-64}
bench_insn_load=${NETSLICE_BENCH_INSN_LOAD:-90}
bench_insn_all_rows="ring-fwd-off@64 ring-fwd-off@64/8 ring-fwd-off@1518 \
ring-fwd-auto@64 ring-fwd-auto@1518 ns-fwd-off@64 ns-fwd-off@64/8 ns-fwd-auto@1518 afxdp@64 \
afxdp@64/8 afp-mmsg@64 afp-v3@64 afp-v3@64/8 bridge@64 bridge@64/8 bridge@1518 floor-tc@64 \
floor-tc@64/8 floor-tc@1518 floor-xdp@64 floor-xdp@64/8 ring-fwd-rule@64 ring-fwd-replace@64"
# Quick: the headline ratios' rows (the bridge at 1518 B for
# capacity_auto_vs_bridge_1518), the floors (the skb path's at 1518 B too:
# what a sliced frame still pays), one batch fit (ring-fwd-off at 8 a
# batch) and the rule rows: 11 contenders. ring-fwd-busy is the NIC
# pass's (bench/bench.sh): xdpgen sends a batch once the last is out, so
# a forwarder paced by its own timer makes each batch wait for it.
bench_insn_quick_rows="ring-fwd-off@64 ring-fwd-off@64/8 ring-fwd-off@1518 ring-fwd-auto@64 \
ring-fwd-auto@1518 ns-fwd-off@64 afxdp@64 afp-mmsg@64 afp-v3@64 bridge@64 bridge@1518 floor-tc@64 \
floor-tc@1518 floor-xdp@64 ring-fwd-rule@64 ring-fwd-replace@64"
# Round 0's rate, and the rate unless the search judged every capacity: below
# every contender's loss point here (the NIC's generator, whose frames
# cross QEMU's I/O thread, reaches about 8,000 frames/s).
if [ "${NETSLICE_BENCH_TOPOLOGY:-veth}" = nic ]; then
	bench_insn_pps=${NETSLICE_BENCH_INSN_PPS:-6000}
else
	bench_insn_pps=${NETSLICE_BENCH_INSN_PPS:-15000}
fi

# bench_insn_row SEQ ROUND NAME SIZE: one measurement of a running
# contender. xdpgen makes its own marks (-M), around its batches alone,
# once its programs are loaded and attached. pktgen's start mark is made
# once pktgen is set up, just before it starts; the counter is opened here
# (fd cfd) because pktgen runs in the generator's namespace, whose /sys
# shows other interfaces.
bench_insn_row() {
	local seq=$1 round=$2 name=$3 size=$4 counter fwd0 fwd1 load sent usec cfd mark before t0 t1 span r0 r1 pid
	counter=/sys/class/net/$bench_out/statistics/tx_packets
	# The contender's processes' text, to name the sampled PCs (a
	# chain's two NFs: one binary at two addresses).
	if [ ${#bench_pids[@]} -gt 0 ]; then
		for pid in "${bench_pids[@]}"; do
			grep ' r-xp ' "/proc/$pid/maps" || return 1
		done >"$NETSLICE_BENCH_OUT/maps-$seq" || return 1
	fi
	# Before the start mark: what bench_insn_lost subtracts.
	before=$(bench_insn_counters "$name")
	if [ "$bench_insn_gen" = xdp ]; then
		# "... marked FWD0 FWD1 span USEC" ends xdpgen's line.
		load=$(bench_insn_mark=$seq bench_insn_pktgen "$size" "$bench_insn_pps") || return 1
		read -r _ sent _ _ _ usec _ <<<"$load"
		read -r fwd0 fwd1 _ span _ r0 r1 <<<"${load##* marked }"
		[ -z "$r1" ] || echo "rgen: $seq,$((r1 - r0))"
		bench_insn_drain "$counter" $((fwd0 + sent))
	elif [ "$bench_insn_gen" = host ]; then
		# hostgen waits for each batch itself; the marks bracket the
		# request (its few ms over the shared directory, the DUT idle).
		fwd0=$(taskset -c 0 nsmark start "$seq" "$counter") || return 1
		t0=$EPOCHREALTIME
		load=$(bench_insn_pktgen "$size" 0) || return 1
		read -r _ sent _ _ _ usec _ <<<"$load"
		bench_insn_drain "$counter" $((fwd0 + sent))
		fwd1=$(taskset -c 0 nsmark stop "$seq" "$counter") || return 1
		t1=$EPOCHREALTIME
		span=$((${t1/./} - ${t0/./}))
	else
		bench_insn_replaces_before
		mark=$(mktemp)
		exec {cfd}<"$counter"
		# The start mark's time too: the span between the marks, over which
		# bench/insns.py takes vCPU 0's idle rate off the generator's count.
		load=$(PKTGEN_ON_START="nsmark start $seq /dev/fd/$cfd >$mark; echo \$EPOCHREALTIME >>$mark" \
			bench_insn_pktgen "$size" "$bench_insn_pps") || { exec {cfd}<&-; rm -f "$mark"; return 1; }
		exec {cfd}<&-
		{ read -r fwd0; read -r t0; } <"$mark"
		rm -f "$mark"
		read -r _ sent _ _ _ usec _ <<<"$load"
		bench_insn_drain "$counter" $((fwd0 + sent))
		fwd1=$(taskset -c 0 nsmark stop "$seq" "$counter") || return 1
		t1=$EPOCHREALTIME
		span=$((${t1/./} - ${t0/./}))
		bench_insn_replaces_after "$seq"
	fi
	echo "insn: $seq,$round,$name,$size,$bench_insn_pps,$sent,$usec,$((fwd1 - fwd0)),$(bench_insn_row_batch),$span"
	echo "# insn $seq round $round $name $size B: $((fwd1 - fwd0)) of $sent forwarded"
	[ $((fwd1 - fwd0)) -ge "$sent" ] ||
		bench_insn_lost "$seq" "$name" "$sent" $((fwd1 - fwd0)) "$before"
}

# bench_insn_row_batch: the frames a batch of the row just measured, 0
# under pktgen (a rate, no batches).
bench_insn_row_batch() {
	[ "$bench_insn_gen" = pktgen ] && echo 0 || echo "$bench_insn_batch"
}

# bench_insn_stat ROLE NETNS IF COUNTER...: "ROLE.COUNTER VALUE" lines, IF's
# counters (NETNS empty: this namespace).
bench_insn_stat() {
	local role=$1 ns=$2 dev=$3 c files=()
	shift 3
	for c; do files+=("/sys/class/net/$dev/statistics/$c"); done
	${ns:+ip netns exec "$ns"} awk -v r="$role" \
		'{ n = split(FILENAME, p, "/"); print r "." p[n], $1 }' "${files[@]}"
}

# bench_insn_counters NAME: the counters that say where a row's frames
# went, "KEY VALUE" lines: the generator's port, the DUT's in and out, the
# sink's port, a pair contender's veth pair, and for a netslice contender
# its slices' counters (slice.rx_drop_ring_full, ...). Read outside the
# marks, on CPU 0.
bench_insn_counters() {
	bench_insn_stat gen "$gen" "$gen_if" tx_packets tx_dropped
	bench_insn_stat in "" "$bench_in" rx_packets rx_dropped
	bench_insn_stat out "" "$bench_out" tx_packets tx_dropped
	bench_insn_stat sink "$sink" "$sink_if" rx_packets rx_dropped
	case $1 in ring-pair-* | afxdp-pair)
		bench_insn_stat pair "" "$bench_pair_a" tx_packets tx_dropped
		bench_insn_stat pairpeer "" "$bench_pair_b" rx_packets rx_dropped ;;
	esac
	# The slices' counters summed (slice.KEY), and each one's (sliceN.KEY:
	# a chain row's frames cross two, one after the other).
	case $1 in ns-* | ring-* | base-*)
		netslice-info -s | awk '$1 == "slice" && $3 ~ /=/ {
			n = $2; sub(":", "", n)
			for (i = 3; i <= NF; i++) {
				split($i, kv, "=")
				s["slice." kv[1]] += kv[2]
				s["slice" n "." kv[1]] = kv[2]
			}
		} END { for (k in s) print k, s[k] }' ;;
	esac
}

# bench_insn_lost SEQ NAME SENT FORWARDED BEFORE: where a row's frames went,
# for a row that lost some: each counter's change over the row (BEFORE:
# bench_insn_counters before its start mark), as a "lost: SEQ NAME
# gen=IF in=IF out=IF sink=IF sent=N forwarded=N KEY=DELTA..." line that
# bench/insns.py reads (a netslice row's loss is a finding there, a
# comparison's is not judged), and a progress line with those that moved.
bench_insn_lost() {
	local deltas moved
	deltas=$(awk 'NR == FNR { b[$1] = $2; next } { printf " %s=%d", $1, $2 - b[$1] }' \
		<(echo "$5") <(bench_insn_counters "$2" | sort))
	echo "lost: $1 $2 gen=$gen_if in=$bench_in out=$bench_out sink=$sink_if" \
		"sent=$3 forwarded=$4$deltas"
	moved=$(tr ' ' '\n' <<<"$deltas" | grep -v '^$\|=0$' | paste -sd ' ')
	echo "# lost $(($3 - $4)) of $3 in $2, counters moved: ${moved:-none}"
}

# bench_insn_pktgen SIZE PPS: bench_insn_pkts frames of SIZE at PPS (0: as
# fast as pktgen goes) from the generator's CPU; pktgen.sh's summary line.
# With bench_insn_gen=xdp, xdpgen's batches instead (PPS ignored: the
# next batch goes when the DUT sent the last), its line in pktgen.sh's
# form, and with bench_insn_mark set (a SEQ) xdpgen makes that
# measurement's marks, its "marked FWD0 FWD1 span USEC" kept at the end
# (and "also R0 R1", the replaces rule-gen made, with ring-fwd-replace).
# pktgen runs PKTGEN_ON_START just before it starts.
bench_insn_pktgen() {
	local out sent usec cfd opts=()
	if [ "$bench_insn_gen" = xdp ]; then
		[ "$bench_insn_tcx" = 0 ] || opts=(-S "$sink:$sink_if")
		[ -z "${bench_insn_mark:-}" ] || opts+=(-M "$bench_insn_mark")
		[ -z "${bench_insn_mark:-}" ] || [ -z "${bench_rulegen_count:-}" ] ||
			opts+=(-R "$bench_rulegen_count")
		exec {cfd}<"/sys/class/net/$bench_out/statistics/tx_packets"
		out=$(ip netns exec "$gen" taskset -c 0 xdpgen -H xghold0 "${opts[@]}" \
			"$gen_if" "$bench_load_mac" "$1" \
			"$bench_insn_pkts" 256 "$bench_insn_batch" "/dev/fd/$cfd") || { exec {cfd}<&-; return 1; }
		exec {cfd}<&-
		read -r _ sent _ usec _ <<<"$out"
		# "marked FWD0 FWD1 span USEC[ also R0 R1]" kept at the end.
		echo "sent $sent errors 0 usec $usec busy 0 pktgen 0${bench_insn_mark:+ marked ${out##* marked }}"
		return
	fi
	if [ "$bench_insn_gen" = host ]; then
		out=$(bench_insn_hostgen "$1" "$bench_insn_batch") || return 1
		read -r _ sent _ usec _ <<<"$out"
		echo "sent $sent errors 0 usec $usec busy 0 pktgen 0"
		return
	fi
	ip netns exec "$gen" taskset -c 0 "$TST_TOP/bench/pktgen.sh" "$gen_if" "$bench_load_mac" "$1" "$2" \
		"count:$bench_insn_pkts"
}

# bench_insn_hostgen SIZE BATCH [COUNT [RATE]]: bench/hostgen.c's frames
# (COUNT, default bench_insn_pkts; BATCH 0: RATE a second, or with RATE 0
# as fast as the tap takes them) into the DUT's port from the host, asked
# through the runner's directory; hostgen's answer, "sent N usec T
# send_usec S last_usec L batches B waits W dropped D". Waits on vCPU 0,
# looking every 50 ms with read's timeout (no process a look), up to 20
# minutes; fails at once if hostgen never said it was ready.
bench_insn_hostgen() {
	local dir=$NETSLICE_VM_OUT seq=$((RANDOM * 32768 + RANDOM + 1)) ans= nap i
	[ -e "$dir/hostgen.ready" ] ||
		{ echo "bench: no host generator (the runner's hostgen did not start)" >&2; return 1; }
	echo "$seq $bench_load_mac $1 ${3:-$bench_insn_pkts} 256 $2 ${4:-0}" >"$dir/hostgen.req.tmp" &&
		mv "$dir/hostgen.req.tmp" "$dir/hostgen.req" || return 1
	exec {nap}<> <(:)
	for ((i = 0; i < 24000; i++)); do
		{ read -r ans <"$dir/hostgen.done"; } 2>/dev/null || true
		[ "${ans%% *}" != "$seq" ] || break
		# Once a second: hostgen still there (the runner removes
		# hostgen.ready when it ends)?
		[ $((i % 20)) != 19 ] || [ -e "$dir/hostgen.ready" ] ||
			{ echo "bench: the host generator ended, request $seq unanswered" >&2; break; }
		read -r -t 0.05 -u "$nap" _ || true
	done
	exec {nap}<&-
	[ "${ans%% *}" = "$seq" ] || { echo "bench: hostgen did not answer request $seq" >&2; return 1; }
	[[ $ans != *" error "* ]] || { echo "bench: hostgen: $ans" >&2; return 1; }
	echo "${ans#* }"
}

# bench_insn_blast SEQ ROUND NAME SIZE: the capacity search's first trial
# with the host's generator, between marks: bench_insn_pkts frames as
# fast as the tap takes them (its ring holds them all), the DUT
# overloaded until the last is out, its vCPU never idle. Prints "blast:
# SEQ,ROUND,NAME,SENT,LAST_USEC,SEND_USEC,DROPPED,FORWARDED,SPAN_USEC"
# (LAST_USEC: the host's time from the first frame to the last out),
# from which bench/insns.py takes the DUT vCPU's instructions a second,
# and sets bench_insn_trial's trial_* as a trial does.
bench_insn_blast() {
	local counter=/sys/class/net/$bench_out/statistics/tx_packets fwd0 fwd1 out t0 t1
	local sent last send_usec dropped
	fwd0=$(taskset -c 0 nsmark start "$1" "$counter") || return 1
	t0=$EPOCHREALTIME
	out=$(bench_insn_hostgen "$4" 0) || return 1
	read -r _ sent _ _ _ send_usec _ last _ _ _ _ _ dropped <<<"$out"
	bench_insn_drain "$counter" $((fwd0 + sent))
	fwd1=$(taskset -c 0 nsmark stop "$1" "$counter") || return 1
	t1=$EPOCHREALTIME
	echo "blast: $1,$2,$3,$sent,$last,$send_usec,$dropped,$((fwd1 - fwd0)),$((${t1/./} - ${t0/./}))"
	echo "# blast $1 $3: $((fwd1 - fwd0)) of $sent forwarded in $last us (sent in $send_usec us, $dropped refused by the tap)"
	trial_pps=$((sent * 1000000 / (send_usec ? send_usec : 1)))
	trial_fwd_pps=$(((fwd1 - fwd0) * 1000000 / (last ? last : 1)))
	trial_ok=$(((sent - (fwd1 - fwd0)) * 1000 < sent))
}

# bench_insn_trial SIZE PPS: one unmarked trial; sets trial_pps (the rate
# the generator offered), trial_fwd_pps (forwarded per second of load) and
# trial_ok (less than 0.1% lost, RFC 2544's loss bound here). At a rate
# PPS (not 0): at most 2 s of frames, at least 1,000: the search starts
# where the overloaded DUT forwarded, which can be a few hundred a
# second, and 10,000 frames there took minutes with nothing said.
bench_insn_trial() {
	local counter=/sys/class/net/$bench_out/statistics/tx_packets fwd0 fwd1 load sent usec last
	local n=$bench_insn_pkts
	[ "$2" = 0 ] || [ "$n" -le $(($2 * 2)) ] || n=$(($2 * 2))
	[ "$n" -ge 1000 ] || n=1000
	read -r fwd0 <"$counter"
	if [ "$bench_insn_gen" = host ]; then
		# The host's frames at the rate, 8 a call, each call at its time.
		load=$(bench_insn_hostgen "$1" 0 "$n" "$2") || return 1
		read -r _ sent _ _ _ usec _ last _ <<<"$load"
	else
		load=$(bench_insn_pkts=$n bench_insn_pktgen "$1" "$2") || return 1
		read -r _ sent _ _ _ usec _ <<<"$load"
		last=$usec
	fi
	bench_insn_drain "$counter" $((fwd0 + sent))
	read -r fwd1 <"$counter"
	trial_pps=$((sent * 1000000 / usec))
	trial_fwd_pps=$(((fwd1 - fwd0) * 1000000 / (last ? last : 1)))
	trial_sent=$sent trial_fwd=$((fwd1 - fwd0))
	trial_ok=$(((sent - (fwd1 - fwd0)) * 1000 < sent))
	# The host's tap holds what the DUT is slow to take instead of losing
	# it: forwarded late is not kept up with.
	[ "$bench_insn_gen" != host ] || [ $((trial_fwd_pps * 100)) -ge $((trial_pps * 99)) ] ||
		trial_ok=0
	echo "# trial $1 B at $([ "$2" = 0 ] && echo 'full speed' || echo "$2/s"):" \
		"$((fwd1 - fwd0)) of $sent forwarded, ok $trial_ok"
}

# bench_insn_capacity NAME SIZE SEQ ROUND: the running contender's capacity, RFC
# 2544's throughput: the highest offered rate it forwards with less than
# 0.1% loss, by halving between the generator's own rate (a first trial
# as fast as pktgen goes) and half what the DUT forwarded then, the first
# step at what it forwarded. Prints "cap: NAME,SIZE,GEN_PPS,SAT_FWD_PPS,CAPACITY_PPS",
# CAPACITY_PPS empty when the DUT kept up with the generator (the
# generator is the limit); bench/insns.py judges the headroom.
bench_insn_capacity() {
	local name=$1 size=$2 gen_pps sat lo hi mid i
	if [ "$bench_insn_gen" = host ]; then
		bench_insn_blast "$3" "$4" "$name" "$size" || return 1
	else
		bench_insn_trial "$size" 0 || return 1
	fi
	gen_pps=$trial_pps sat=$trial_fwd_pps
	if [ "$trial_ok" = 1 ] && [ "$bench_insn_gen" = host ]; then
		# Every frame out, the tap full all along: the DUT forwarded at
		# its own pace, never waiting for a frame. That is its capacity.
		bench_insn_caps+=("$name,$size,$gen_pps,$sat,$sat")
		echo "cap: ${bench_insn_caps[-1]}"
		echo "# capacity $name $size B: $sat/s, lossless under the host's $gen_pps/s"
		return
	fi
	if [ "$trial_ok" = 1 ]; then
		bench_insn_caps+=("$name,$size,$gen_pps,$sat,")
		echo "cap: ${bench_insn_caps[-1]}"
		echo "# capacity $name $size B: kept up with the generator's $gen_pps/s"
		return
	fi
	hi=$gen_pps lo=$((sat / 2)) mid=$sat
	if [ "$bench_insn_gen" = host ]; then
		# The host offers far more than any DUT forwards, and what an
		# overloaded DUT forwards can be far below its capacity (AF_XDP:
		# a fifth): doubling from there finds the bracket first.
		for ((i = 0; i < 5 && mid < gen_pps; i++)); do
			bench_insn_trial "$size" "$mid" || return 1
			[ "$trial_ok" = 1 ] || break
			lo=$mid mid=$((mid * 2))
		done
		hi=$mid mid=$(((lo + hi) / 2))
	fi
	for ((i = 0; i < bench_insn_cap_steps; i++)); do
		bench_insn_trial "$size" "$mid" || return 1
		if [ "$trial_ok" = 1 ]; then lo=$mid; else hi=$mid; fi
		mid=$(((lo + hi) / 2))
	done
	bench_insn_caps+=("$name,$size,$gen_pps,$sat,$lo")
	echo "cap: ${bench_insn_caps[-1]}"
	echo "# capacity $name $size B: $lo/s (generator $gen_pps/s, $sat/s forwarded at its rate)"
}

# bench_insn_at90 ROUND NAME: with the host's generator, every round, a
# trial of the running contender at 90% of the capacity its search found:
# below its capacity a forwarder must lose nothing (ring mode once lost
# 11% of a round at 60% of it). Prints "at90: ROUND,NAME,PPS,SENT,FORWARDED"
# for bench/insns.py (at90_lost_pct_*).
bench_insn_at90() {
	local c n s k cap=
	[ "$bench_insn_gen" = host ] || return 0
	for c in "${bench_insn_caps[@]}"; do
		IFS=, read -r n s _ _ k <<<"$c"
		[ "$n" != "$2" ] || [ "$s" != "$bench_insn_cap_size" ] || cap=$k
	done
	[ -n "$cap" ] || return 0
	bench_insn_trial "$bench_insn_cap_size" $((cap * 9 / 10)) || return 1
	echo "at90: $1,$2,$trial_pps,$trial_sent,$trial_fwd"
}

# bench_insn_idle SEQ ROUND NAME: what the running contender costs with no
# load, over one second: what a row's count holds besides the frames
# (one process marks and sleeps between: none started inside the marks).
bench_insn_idle() {
	local r0 r1
	if [ -n "${bench_rulegen_count:-}" ]; then
		read -r r0 r1 < <(taskset -c 0 nsmark idle "$1" 1000000 "$bench_rulegen_count") &&
			[ -n "$r1" ] || return 1
		echo "rgen: $1,$((r1 - r0))"
	else
		taskset -c 0 nsmark idle "$1" 1000000 || return 1
	fi
	echo "insn: $1,$2,$3,0,0,0,1000000,0,0,1000000"
}

# bench_insn_replaces_before, bench_insn_replaces_after SEQ: with rule-gen
# replacing rules (ring-fwd-replace), the replaces it made around
# measurement SEQ, as "rgen: SEQ,REPLACES", under pktgen (read outside
# the marks: a process start more). xdpgen and nsmark idle read the
# count beside their marks themselves.
bench_insn_replaces_before() {
	bench_insn_r0=
	[ -z "${bench_rulegen_count:-}" ] || read -r bench_insn_r0 <"$bench_rulegen_count"
}
bench_insn_replaces_after() {
	local r1
	[ -n "${bench_insn_r0:-}" ] || return 0
	read -r r1 <"$bench_rulegen_count"
	echo "rgen: $1,$((r1 - bench_insn_r0))"
}

# bench_insn_ruleload SEQ ROUND: the rule table's bulk load in instructions,
# on vCPU 1 (a DUT vCPU), the module loaded without interfaces: one rule
# between mark SEQ's start and stop (what a `netslicectl rule load`
# costs besides its rules: a process started and ended), then, on an
# empty table again, bench_insn_ruleload_n exact rules between mark
# SEQ + 1's (one request: all of them or none). The file is in the
# guest's memory and read once before. Prints "rload: SEQ,ROUND,RULES"
# for each; bench/insns.py takes the first from the second, over the
# rules in between.
bench_insn_ruleload() {
	local seq=$1 n=$bench_insn_ruleload_n one file
	[ "$n" -gt 1 ] || return 0
	file=${bench_insn_rules_file:-}
	if [ ! -s "$file" ]; then
		file=$(mktemp) && tst_defer rm -f "$file" "$file.1" && bench_insn_rules_file=$file || return 1
		awk -v n="$n" 'BEGIN {
			for (i = 0; i < n; i++)
				printf "proto tcp src 10.%d.%d.%d dst 192.0.2.1 sport %d dport 443 slice %d\n",
					int(i / 65536), int(i / 256) % 256, i % 256, 1024 + i % 60000, i % 2
		}' >"$file" && head -n 1 "$file" >"$file.1" || return 1
	fi
	cat "$file" "$file.1" >/dev/null
	tst_module_loaded && rmmod netslice
	bench_insmod "$TST_KO" slices=2 || return 1
	for one in "$file.1" "$file"; do
		taskset -c 0 nsmark start "$seq" &&
			taskset -c 1 netslicectl rule load "$one" &&
			taskset -c 0 nsmark stop "$seq" &&
			netslicectl rule flush || { rmmod netslice; return 1; }
		echo "rload: $seq,$2,$(wc -l <"$one")"
		seq=$((seq + 1))
	done
	rmmod netslice
}

# bench_insn_natconn SEQ ROUND: nf-nat's cost a connection in instructions,
# on one slice and on two (each new connection's return flow then gets a
# steering rule, issue 42), both on the DUT's vCPU: conn-gen sends
# bench_insn_nat_rate SYNs a second for three seconds from vCPU 0, each a
# new connection, and the sink's stack answers each with a SYN-ACK (SYN
# cookies always), which nf-nat translates back. Between marks SEQ (one
# slice) and SEQ + 1 (two): the SYNs, their answers, and the connections
# of the first two seconds expiring (--timeout-tcp 1). Before each, marks
# SEQ + 2 and SEQ + 3: a second of nf-nat up with no load, which
# bench/insns.py takes off at its rate over the measurement's span (what
# the NF spends a second whatever the load: per connection it halved
# when the rate doubled). For as long, the sink
# takes frames to its stack, gen0 receives on vCPU 0 and dut1 on the
# DUT's (RPS), and the generator and the sink have addresses. Prints
# "nconn: SEQ,ROUND,SLICES,RATE,SENT,ANSWERED,SPAN_USEC,IDLE_SEQ,IDLE_USEC"
# for each (ANSWERED: SYN-ACKs the DUT sent back to gen0; SPAN_USEC: from
# mark to mark); bench/insns.py divides. On veth.
bench_insn_natconn() {
	local seq=$1 slices rc=0 serve_pid= serve_out=
	[ "${bench_insn_nat_rate:-0}" -gt 0 ] && [ "${NETSLICE_BENCH_TOPOLOGY:-veth}" = veth ] || return 0
	if ip netns exec "$sink" tc qdisc del dev "$sink_if" clsact &&
		tst_addrs && ip netns exec "$sink" sysctl -qw net.ipv4.tcp_syncookies=2 &&
		ip netns exec "$gen" sh -c "echo 1 >/sys/class/net/$gen_if/queues/rx-0/rps_cpus" &&
		printf '%x\n' $((1 << bench_kcpu)) >"/sys/class/net/$bench_out/queues/rx-0/rps_cpus" &&
		tst_start_bg serving ip netns exec "$sink" taskset -c 0 nfclient serve 80 sink; then
		serve_pid=$bg_pid serve_out=$bg_out
		for slices in 1 2; do
			bench_natconn_one "$seq" "$2" "$slices" $((seq + 2)) || { rc=1; break; }
			seq=$((seq + 1))
		done
	else
		rc=1
	fi
	# Back as the rows have it, whatever failed.
	[ -z "$serve_pid" ] || { kill -TERM "$serve_pid"; wait "$serve_pid"; rm -f "$serve_out"; }
	ip -n "$gen" addr flush dev "$gen_if" && ip -n "$sink" addr flush dev "$sink_if" &&
		ip netns exec "$gen" sh -c "echo 0 >/sys/class/net/$gen_if/queues/rx-0/rps_cpus" &&
		echo 0 >"/sys/class/net/$bench_out/queues/rx-0/rps_cpus" || rc=1
	ip netns exec "$sink" tc qdisc show dev "$sink_if" | grep -q clsact ||
		{ ip netns exec "$sink" tc qdisc add dev "$sink_if" clsact &&
			ip netns exec "$sink" tc filter add dev "$sink_if" ingress matchall action drop; } ||
		rc=1
	return $rc
}

# bench_natconn_one SEQ ROUND SLICES IDLE_SEQ: bench_insn_natconn's
# measurement of nf-nat on SLICES slices, mark SEQ, after its idle second,
# mark IDLE_SEQ.
bench_natconn_one() {
	local seq=$1 slices=$3 iseq=$4 sent out a0 a1 mac t0 t1 span rc=0 idle=1000000
	local counter=/sys/class/net/$bench_in/statistics/tx_packets
	mac=$(cat "/sys/class/net/$bench_in/address")
	bench_ns_up "$slices" nf-nat -s "$(seq -s, 0 $((slices - 1)))" --inside "$bench_in" \
		--outside "$bench_out" --public "$bench_nat_public" --ports 1024-65535 \
		--max-conns 262144 --timeout-tcp 1 --timeout-tcp-transitory 1 || return 1
	# One SYN answered first: ARP on both sides done before the marks.
	read -r a0 <"$counter"
	if ! ip netns exec "$gen" taskset -c 0 conn-gen "$gen_if" "$mac" 10.99.0.2 80 1 1 >/dev/null ||
		! bench_insn_drain "$counter" $((a0 + 1)) || ! read -r a1 <"$counter" || [ "$a1" -le "$a0" ]; then
		echo "bench: nf-nat answered no SYN" >&2
		rc=1
	elif taskset -c 0 nsmark idle "$iseq" "$idle" &&
		a0=$(taskset -c 0 nsmark start "$seq" "$counter") && t0=$EPOCHREALTIME &&
		out=$(ip netns exec "$gen" taskset -c 0 conn-gen "$gen_if" "$mac" 10.99.0.2 80 \
			"$bench_insn_nat_rate" 3 1) &&
		read -r _ sent _ <<<"$out" && bench_insn_drain "$counter" $((a0 + sent)) &&
		a1=$(taskset -c 0 nsmark stop "$seq" "$counter") && t1=$EPOCHREALTIME; then
		span=$((${t1/./} - ${t0/./}))
		echo "nconn: $seq,$2,$slices,$bench_insn_nat_rate,$sent,$((a1 - a0)),$span,$iseq,$idle"
		echo "# nconn $seq round $2 nf-nat on $slices slice(s): $((a1 - a0)) of $sent SYNs answered"
	else
		rc=1
	fi
	bench_down ns-nat-conn || rc=1
	return $rc
}

# bench_insn_drain COUNTER TARGET: until COUNTER reaches TARGET or holds
# still for 0.2 s (frames lost): the DUT idles meanwhile, which costs no
# instructions.
bench_insn_drain() {
	local v last=-1 still=0
	while read -r v <"$1" && [ "$v" -lt "$2" ]; do
		if [ "$v" = "$last" ]; then
			((++still < 4)) || return 0
		else
			still=0 last=$v
		fi
		sleep 0.05
	done
}

# bench_insn_stall_watch SECONDS: say once where the guest is when it
# has made no process for SECONDS. The harness forks all the time; a wait
# on the host's generator makes none but ends within a minute when well.
# Three NIC passes in seven stopped with vCPU 0 busy and no kernel report
# (2026-12-03-i63-qb notes): this says what ran. On CPU 0, as the
# harness; it forks nothing while it watches (read's timeout, not sleep).
bench_insn_stall_watch() {
	local limit=$1 last= still=0 pid nap
	exec {nap}<> <(:)
	while ! read -r -t 10 -u "$nap" _; do
		read -r _ _ _ _ pid </proc/loadavg
		if [ "$pid" != "$last" ]; then
			last=$pid still=0
		elif ((still < limit && (still += 10) >= limit)); then
			bench_insn_stall_report "$limit" 2>&1 | sed -u 's/^/# stall: /'
		fi
	done
}

# bench_insn_stall_report SECONDS: each CPU's and the busiest processes'
# ticks over 2 s, the running ones' kernel and user stacks. Not sysrq's
# backtraces (call traces fail the run, and a long rule load can look
# like a stall), nor perf's samples (under TCG they put a vCPU busy in
# user space in the idle loop, 2026-12-04).
bench_insn_stall_report() {
	local p f0 f1
	echo "no process made for $1 s; uptime $(cut -d' ' -f1 /proc/uptime) s"
	f0=$(mktemp) f1=$(mktemp)
	bench_insn_stall_ticks >"$f0"
	sleep 2
	bench_insn_stall_ticks >"$f1"
	# Each CPU's ticks over the 2 s, then the processes that ran, busiest first.
	awk 'NR == FNR { k = $1 == "pid" ? $2 : $1; for (i = 2; i <= NF; i++) v[k, i] = $i; next }
		$1 ~ /^cpu/ { printf "%s user %d system %d softirq %d idle %d\n", $1,
			$2 - v[$1, 2], $4 - v[$1, 4], $8 - v[$1, 8], $5 - v[$1, 5] }' "$f0" "$f1"
	awk 'NR == FNR { if ($1 == "pid") t[$2] = $3; next }
		$1 == "pid" && ($2 in t) && $3 > t[$2] { print "pid", $2, $4, $3 - t[$2], "ticks" }' "$f0" "$f1" |
		sort -k4,4nr | head -n 12
	rm -f "$f0" "$f1"
	ps -eo pid,psr,stat,wchan:24,args | awk 'NR == 1 || $3 ~ /^R/'
	for p in $(ps -eo pid=,stat= | awk '$2 ~ /^R/ { print $1 }'); do
		[ "$p" != "$BASHPID" ] && [ -r "/proc/$p/cmdline" ] || continue
		echo "pid $p ($(tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null | cut -c1-120)): syscall $(cat "/proc/$p/syscall" 2>/dev/null)"
		cat "/proc/$p/stack" 2>/dev/null
		[ ! -s "/proc/$p/cmdline" ] || gdb -p "$p" -batch -ex 'bt 12' 2>/dev/null | grep '^#'
	done
	dmesg | tail -n 40
}

# bench_insn_stall_ticks: "cpuN user nice system idle ..." per CPU and
# "pid PID TICKS COMM" per process (utime + stime).
bench_insn_stall_ticks() {
	grep '^cpu[0-9]' /proc/stat
	cat /proc/[0-9]*/stat 2>/dev/null | awk '{ print "pid", $1, $14 + $15, $2 }'
}

bench_insns() {
	local round item name size seq=0 cur batch0=$bench_insn_batch pkts0
	[ -d "${NETSLICE_BENCH_OUT:-}" ] || { echo "bench: NETSLICE_BENCH_OUT is not a directory" >&2; return 1; }
	bench_insn_pkts=${NETSLICE_BENCH_INSN_PKTS:-$([ "$quick" = 1 ] && echo 10000 || echo 20000)}
	pkts0=$bench_insn_pkts
	# xdpgen never overruns the DUT: no rate to search (capacity is then
	# frames per 10^9 instructions, bench/insns.py).
	bench_insn_cap_steps=${NETSLICE_BENCH_INSN_CAP_STEPS:-$([ "$bench_insn_gen" = xdp ] && echo 0 ||
		{ [ "$quick" = 1 ] && echo 4 || echo 6; })}
	local rounds=${NETSLICE_BENCH_INSN_ROUNDS:-$([ "$quick" = 1 ] && echo 2 || echo 5)}
	local first=0
	[ "${NETSLICE_BENCH_INSN_WARMUP:-$([ "$quick" = 1 ] && [ "$bench_insn_gen" != pktgen ] && echo 0 ||
		echo 1)}" = 1 ] || first=1
	local cap_round=0
	[ "$bench_insn_gen" != host ] || cap_round=$first
	bench_insn_rows=${NETSLICE_BENCH_INSN_ROWS:-$([ "$quick" = 1 ] && echo "$bench_insn_quick_rows" ||
		echo "$bench_insn_all_rows")}
	# Before and after in one run (make bench BASELINE=REV): nf-fwd on the
	# baseline's module too, in both modes.
	[ -z "${NETSLICE_BENCH_BASE_KO:-}" ] || [ -n "${NETSLICE_BENCH_INSN_ROWS:-}" ] ||
		bench_insn_rows+=" base-ring-fwd-off@64 base-ring-fwd-off@1518 base-fwd-off@64"
	grep -v '\[' /proc/kallsyms >"$NETSLICE_BENCH_OUT/kallsyms" || return 1
	bench_insn_ruleload_n=${NETSLICE_BENCH_INSN_RULELOAD:-$([ "$quick" = 1 ] && echo 20000 || echo 100000)}
	bench_insn_nat_rate=${NETSLICE_BENCH_INSN_NAT:-1000}
	echo "insn: seq,round,contender,size,offered_pps,sent,usec,forwarded,batch,span_usec"
	echo "cal: seq,kind,bytes,vcpu"
	echo "rload: seq,round,rules"
	echo "rgen: seq,replaces"
	echo "nconn: seq,round,slices,rate,sent,answered,span_usec,idle_seq,idle_usec"
	echo "blast: seq,round,contender,sent,last_usec,send_usec,dropped,forwarded,span_usec"
	echo "at90: round,contender,pps,sent,forwarded"
	bench_insn_calibrate $((seq + 1)) || return 1
	seq=$((seq + 2))
	for ((round = first; round <= rounds; round++)); do
		cur=
		bench_insn_ruleload $((seq + 1)) "$round" || return 1
		seq=$((seq + 2))
		for item in $bench_insn_rows $BENCH_INSN_END; do
			name=${item%@*} size=${item#*@} bench_insn_batch=$batch0 bench_insn_pkts=$pkts0
			case $size in */*)
				# A batch is xdpgen's or hostgen's: pktgen has none.
				[ "$bench_insn_gen" != pktgen ] || continue
				bench_insn_batch=${size#*/} size=${size%/*}
				# As many batches as the row at the usual batch: a
				# batch's round trip, not its frames, sets a row's time
				# under the emulator.
				bench_insn_pkts=$((pkts0 * bench_insn_batch / batch0))
				[ "$bench_insn_pkts" -ge 512 ] || bench_insn_pkts=512 ;;
			esac
			if [ "$name" != "$cur" ]; then
				[ -z "$cur" ] || bench_down "$cur" || return 1
				cur=$name
				[ "$item" != "$BENCH_INSN_END" ] || break
				bench_up "$name" || { echo "bench: $name did not start" >&2; return 1; }
				# Module (and BPF) symbols, to name the sampled PCs of a
				# counted round's rows: /proc/kallsyms walks every core
				# symbol first, half a billion instructions on vCPU 0 (most
				# of a row's time under the cache model, 2026-12-03), so
				# once a contender is up, before its warm-up. bench/insns.py
				# takes a row's from the last list at or before it.
				[ "$round" = 0 ] ||
					grep '\[' /proc/kallsyms >"$NETSLICE_BENCH_OUT/modsyms-$((seq + 1))" ||
					return 1
				# Warm-up, not measured: tables, caches and neighbours fill.
				bench_insn_pkts=2000 bench_insn_pktgen 64 "$bench_insn_pps" >/dev/null ||
					return 1
				drain
				# Each contender's capacity, once, in the warm-up round
				# (the host's generator: in the first round, warm-up or
				# not; its rows are batches, at no rate).
				[ "$round" != "$cap_round" ] || [ "$bench_insn_cap_steps" = 0 ] ||
					bench_insn_capacity "$name" "$bench_insn_cap_size" $((++seq)) "$round" ||
					return 1
				bench_insn_idle $((++seq)) "$round" "$name" || return 1
				bench_insn_at90 "$round" "$name" || return 1
			fi
			bench_insn_row $((++seq)) "$round" "$name" "$size" || return 1
		done
		if [ "$round" != 0 ]; then
			bench_insn_natconn $((seq + 1)) "$round" || return 1
			seq=$((seq + 4))
		fi
		[ "$round" != 0 ] || bench_insn_set_rate || return 1
	done
}

# bench_insn_set_rate: after the capacity search, the measured rows' rate:
# bench_insn_load percent of the slowest contender's capacity, in whole
# thousands, when every capacity was judged (the generator offered at
# least 1.5x it). Otherwise the rate stays the fixed one: a rate taken
# from where the generator, not the DUT, set the halving would move from
# run to run with the generator's speed, and the count with it (by up to
# 4% between 15,000 and 20,000 frames/s). A rate the user set stays.
bench_insn_set_rate() {
	local line gen_pps cap min=
	# The host's generator sends batches, at no rate.
	[ -z "${NETSLICE_BENCH_INSN_PPS:-}" ] && [ "$bench_insn_cap_steps" != 0 ] &&
		[ "$bench_insn_gen" != host ] || return 0
	for line in "${bench_insn_caps[@]}"; do
		IFS=, read -r _ _ gen_pps _ cap <<<"$line"
		if [ -z "$cap" ] || [ $((gen_pps * 10)) -lt $((cap * 15)) ]; then
			echo "# measured rate: $bench_insn_pps/s, fixed (the generator is the limit)"
			return 0
		fi
		[ -n "$min" ] && [ "$min" -le "$cap" ] || min=$cap
	done
	[ -n "$min" ] || return 0
	bench_insn_pps=$((min * bench_insn_load / 100000 * 1000))
	bench_coalesce_retime || return 1
	echo "# measured rate: $bench_insn_pps/s, $bench_insn_load% of the slowest capacity ($min/s)"
}
BENCH_INSN_END=end@0

# bench_insn_calibrate SEQ: the plugin's count of copies, proved on copies
# of known size on vCPU 1 (a DUT vCPU): BYTES by a rep movsb in user space
# (mark SEQ), then by read()s from a memfd (SEQ + 1: the kernel copies
# them once). Prints "cal: SEQ,KIND,BYTES,VCPU" for each;
# bench/insns.py compares what the plugin counted with what was copied.
bench_insn_calibrate() {
	local bytes=$((4 << 20)) kind seq=$1
	for kind in user file; do
		taskset -c 1 nsmark copy "$kind" "$seq" "$bytes" || return 1
		echo "cal: $seq,$kind,$bytes,1"
		seq=$((seq + 1))
	done
}
