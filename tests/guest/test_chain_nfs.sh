#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Chains of slices: the bundled NFs chained as they are, their
# default egress become the next slice. Real TCP through nf-firewall
# (slice 0) then nf-nat (slice 1), random bytes both ways, every byte
# checked by sha256 at both ends, the server seeing the NAT's public
# address; with the cut on, only headers cross into either NF while the
# payloads stay parked through the chain (the slices' counters say so),
# and with it off, whole packets, intact. Then docs/nfs.md's chain of
# three, firewall -> NAT -> load balancer over two pairs, as it is shown.
#
#   gen: gen0 --veth-- dut0 [slice 0: nf-firewall -> slice 1: nf-nat] dut1 --veth-- sink: sink0
#
# Only dut0:dut1 feed slice 0; slice 1 gets what slice 0's NF passes on,
# and nf-nat sends out of slice 0's interfaces (a chained slice may).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/nf_lib.sh"

tst_plan 3
tst_module_loaded && rmmod netslice
py=/usr/bin/python3

# Bytes each way (NETSLICE_CHAIN_MIB, default 4 MiB).
BYTES=$((${NETSLICE_CHAIN_MIB:-4} << 20))
PUBLIC=10.99.0.100

# chain_add A B...: slice A hands to B, B to the next, and so on.
chain_add() {
	local args=("$1") s
	shift
	for s in "$@"; do
		args+=("->" "$s")
	done
	netslicectl chain add "${args[@]}"
}

# counters SLICE: the counters a chain moves, as a diagnostic line.
counters() {
	local names=(rx_packets rx_bytes rx_chained rx_segments read_bytes read_sliced read_whole tx_packets
		tx_chained tx_spliced tx_nf_drop tx_err_ifindex tx_err_down tx_err_dropped tx_err_loop
		rx_drop_ring_full rx_drop_no_reader store_used) values i out=""
	read -r -a values <<<"$(tst_stats "$1" "${names[@]}")"
	for i in "${!names[@]}"; do
		out+=" ${names[i]}=${values[i]}"
	done
	tst_diag "slice $1:$out"
}

# nf_end PID OUT: stop that NF; its summary in $nf_json.
nf_end() {
	nf_pid=$1 nf_out=$2
	nf_stop
}

# xfer ADDR: BYTES each way between gen and ADDR:5001 in sink over one
# connection; each end's digests must match the other's. Sets xfer_peer,
# the address the server saw.
xfer() {
	local ready srv rpid cli limit_s rc=0 s_got s_got_sha s_sent s_sent_sha c_sent c_sent_sha c_got c_got_sha
	limit_s=$(($(tst_scaled 120000) / 1000))
	# TSO on both ends: 64 KiB super-packets reach the chain whole.
	ip netns exec "$gen" ethtool -K gen0 tso on gso on tx on >/dev/null &&
		ip netns exec "$sink" ethtool -K sink0 tso on gso on tx on >/dev/null || return 1
	ready=$(mktemp -u)
	srv=$(mktemp)
	tst_defer rm -f "$ready" "$srv"
	ip netns exec "$sink" timeout "$limit_s" $py "$TST_TOP/tests/guest/shaxfer.py" serve 5001 \
		"$BYTES" "$ready" >"$srv" 2>&1 &
	rpid=$!
	tst_defer tst_kill_job "$rpid"
	tst_wait_job "$rpid" "$srv" 0 test -e "$ready" || return 1
	cli=$(ip netns exec "$gen" timeout "$limit_s" $py "$TST_TOP/tests/guest/shaxfer.py" send "$1" 5001 \
		"$BYTES" 2>&1) || rc=1
	wait "$rpid" || rc=1
	tst_diag "client: $cli"
	tst_diag "server: $(cat "$srv")"
	[ "$rc" = 0 ] || { tst_where_lost "$gen" "$sink"; return 1; }
	# peer ADDR got N SHA1 sent N SHA2 / sent N SHA1 got N SHA2
	read -r _ xfer_peer _ s_got s_got_sha _ s_sent s_sent_sha <"$srv"
	read -r _ c_sent c_sent_sha _ c_got c_got_sha <<<"$cli"
	[ "$s_got" = "$BYTES" ] && [ "$c_got" = "$BYTES" ] && [ "$s_sent" = "$BYTES" ] &&
		[ "$c_sent" = "$BYTES" ] && [ "$s_got_sha" = "$c_sent_sha" ] && [ "$c_got_sha" = "$s_sent_sha" ]
}

# The firewall's rules: the transfer's both directions, the fence datagram,
# and one drop rule the probes meet (rule 5, index 4).
fw_rules() {
	cat >"$1" <<-EOF
		default drop
		accept tcp dst 10.99.0.2 dport 5001
		accept tcp src 10.99.0.2 sport 5001
		accept udp dst 10.99.0.2 dport 9
		drop udp dst 10.99.0.2 dport 54
	EOF
}

# fw_nat CUT: nf-firewall on slice 0 -> nf-nat on slice 1, both with the
# cut CUT, the transfer both ways, 5 datagrams the firewall drops.
fw_nat() {
	local cut=$1 rules fw_pid fw_out nat_pid nat_out u0 u1 i total
	local rx0 rd0 rd1 sl0 sl1 txc0 rxc1 rxp1 lost fw_json
	tst_topology 1 && tst_addrs || return 1
	# A deep rxq: no hand-off finds slice 1's full (every drop is said).
	tst_load slices=2 ifaces=dut0:dut1@0 rxq_size=4096 || return 1
	chain_add 0 1 || return 1
	tst_diag "chain: $(netslicectl chain show 2>&1 | tr '\n' ' ')"
	rules=$(mktemp)
	tst_defer rm -f "$rules"
	fw_rules "$rules"
	# The last first: a hand-off to a slice nobody has open fails (TXERR_DOWN).
	nf_start nf-nat -s 1 -m "$cut" --inside dut0 --outside dut1 --public "$PUBLIC" || return 1
	nat_pid=$nf_pid nat_out=$nf_out
	nf_start nf-firewall -s 0 -m "$cut" --rules "$rules" || return 1
	fw_pid=$nf_pid fw_out=$nf_out
	xfer 10.99.0.2 || { counters 0; counters 1; return 1; }
	tst_diag "the server saw $xfer_peer"
	# Five datagrams the firewall drops, then a fence it passes: once the
	# fence is in, nothing of them did (one worker, in order).
	u0=$(udp_in "$sink")
	for i in 1 2 3 4 5; do
		ip netns exec "$gen" bash -c 'echo y >/dev/udp/10.99.0.2/54'
	done
	ip netns exec "$gen" bash -c 'echo z >/dev/udp/10.99.0.2/9'
	tst_busywait 3000 eval '[ $(($(udp_in "$sink") - u0)) -ge 1 ]' || return 1
	u1=$(udp_in "$sink")
	counters 0
	counters 1
	total=$((2 * BYTES))
	read -r rx0 rd0 sl0 txc0 lost <<<"$(tst_stats 0 rx_bytes read_bytes read_sliced tx_chained tx_err_down)"
	read -r rd1 sl1 rxc1 rxp1 <<<"$(tst_stats 1 read_bytes read_sliced rx_chained rx_packets)"
	# What slice 0 failed to hand on (slice 1 down, full, or a loop).
	lost=$((lost + $(tst_stats 0 tx_err_dropped) + $(tst_stats 0 tx_err_loop)))
	nf_end "$fw_pid" "$fw_out" || return 1
	fw_json=$nf_json
	tst_diag "firewall: hits $(js '[r["hits"] for r in j["nf-firewall"]["rules"]], j["nf-firewall"]["default"]')"
	nf_end "$nat_pid" "$nat_out" || return 1
	tst_diag "nat: $(js '{k: j["nf-nat"][k] for k in ("created", "out_packets", "in_packets", "passed", "held_sent")}')"
	tst_diag "$total bytes moved; read into user space: slice 0 $rd0, slice 1 $rd1" \
		"($(((rd0 + rd1) * 100 / total))%); slice 0 received $rx0;" \
		"handed on $txc0, taken in $rxc1 (of $rxp1), lost on the way $lost;" \
		"datagrams in: $((u1 - u0)) (the fence only)"
	[ "$xfer_peer" = "$PUBLIC" ] && [ "$((u1 - u0))" = 1 ] || return 1
	nf_json=$fw_json
	[ "$(js 'j["nf-firewall"]["rules"][3]["hits"]')" = 5 ] || return 1
	# Every packet slice 1 got, slice 0 handed it, and none was lost between
	# (one each: slice 1 keeps super-packets whole as slice 0 does, or,
	# with the cut off, slice 0 already read them segmented).
	[ "$txc0" -gt 0 ] && [ "$txc0" = "$rxc1" ] && [ "$rxp1" = "$rxc1" ] && [ "$lost" = 0 ] &&
		[ "$rx0" -ge "$total" ] || return 1
	if [ "$cut" = off ]; then
		# Whole packets: every byte crossed into each NF.
		[ "$rd0" -ge "$total" ] && [ "$rd1" -ge "$total" ]
	else
		# Headers only: the payloads stayed parked from slice 0's RX to the wire.
		[ $(((rd0 + rd1) * 10)) -lt "$total" ] && [ "$sl0" -gt 0 ] && [ "$sl1" -gt 0 ]
	fi
}

chain_cut() { fw_nat auto; }
tst_check "nf-firewall -> nf-nat, cut: $((BYTES >> 20)) MiB each way intact (sha256), the server sees the public address, a drop rule drops; the NFs read under 10% of the bytes (headers only); slice 0 hands on exactly what slice 1 takes in" \
	chain_cut
tst_run_cleanups

chain_whole() { fw_nat off; }
tst_check "nf-firewall -> nf-nat, cut off: $((BYTES >> 20)) MiB each way intact, whole packets read by both NFs" \
	chain_whole
tst_run_cleanups

# docs/nfs.md's chain: one firewall for two pairs, nf-nat on the office's
# way out (dut0 office : dut1 uplink), nf-lb on the service's way in
# (dut2 clients : dut3 backends). Each NF sees every packet and passes
# what is not its own: nf-nat the other pair's, ARP too; nf-lb what is
# not for its VIP.
#
#   gen (office) -- dut0 [0: fw -> 1: nat -> 2: lb] dut1 -- sink (uplink)
#   cli (clients) -- dut2 [          "           ] dut3 -- farm: br0 -- back1, back2
docs_chain() {
	local ns b be rules fw_pid fw_out nat_pid nat_out lb_pid lb_out out counts total rd read_bytes
	local rx_chained=() tx_chained=()
	tst_topology 1 && tst_addrs || return 1
	tst_netns_create cli farm back1 back2 || return 1
	for ns in "$cli" "$farm" "$back1" "$back2"; do
		ip netns exec "$ns" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 \
			net.ipv6.conf.default.disable_ipv6=1 || return 1
	done
	ip link add dut2 type veth peer name cli0 netns "$cli" || return 1
	tst_defer ip link del dut2
	ip link add dut3 type veth peer name farm0 netns "$farm" || return 1
	tst_defer ip link del dut3
	ip link set dut2 up && ip link set dut3 up && ip -n "$cli" link set cli0 up &&
		ip -n "$cli" addr add 10.98.0.1/24 dev cli0 &&
		ip -n "$farm" link add br0 type bridge && ip -n "$farm" link set farm0 master br0 up &&
		ip -n "$farm" link set br0 up || return 1
	be=$(mktemp)
	tst_defer rm -f "$be"
	for b in 1 2; do
		ns=back$b
		ip -n "$farm" link add "fb$b" type veth peer name eth0 netns "${!ns}" &&
			ip -n "$farm" link set "fb$b" master br0 up &&
			ip -n "${!ns}" link set eth0 up &&
			ip -n "${!ns}" addr add "10.98.0.1$b/24" dev eth0 || return 1
		tst_start_bg serving ip netns exec "${!ns}" nfclient serve 80 "b$b" || return 1
		echo "10.98.0.1$b" >>"$be"
	done
	tst_start_bg serving ip netns exec "$sink" nfclient serve 80 sink || return 1
	tst_load slices=3 ifaces=dut0:dut1@0,dut2:dut3@0 rxq_size=4096 || return 1
	chain_add 0 1 2 || return 1
	rules=$(mktemp)
	tst_defer rm -f "$rules"
	printf '%s\n' "default drop" "accept tcp dport 80" "accept tcp sport 80" \
		"accept tcp dst 10.99.0.2 dport 5001" "accept tcp src 10.99.0.2 sport 5001" >"$rules"
	nf_start nf-lb -s 2 --vip 10.98.0.100:80 --client-if dut2 --backend-if dut3 --backends "$be" ||
		return 1
	lb_pid=$nf_pid lb_out=$nf_out
	nf_start nf-nat -s 1 --inside dut0 --outside dut1 --public "$PUBLIC" || return 1
	nat_pid=$nf_pid nat_out=$nf_out
	nf_start nf-firewall -s 0 --rules "$rules" || return 1
	fw_pid=$nf_pid fw_out=$nf_out
	out=$(ip netns exec "$gen" nfclient ask 10.99.0.2 80) || return 1
	tst_diag "the office asks the uplink's server: '$out'"
	counts=$(ip netns exec "$cli" nfclient flows 10.98.0.100 80 40 20000 | tr '\n' ' ') || return 1
	tst_diag "40 clients' flows to the VIP: $counts"
	xfer 10.99.0.2 || return 1
	total=$((2 * BYTES)) rd=0
	for b in 0 1 2; do
		counters "$b"
		read -r "rx_chained[$b]" "tx_chained[$b]" read_bytes <<<"$(tst_stats "$b" rx_chained tx_chained read_bytes)"
		rd=$((rd + read_bytes))
	done
	tst_diag "$total bytes through the chain, $rd read by its three NFs ($((rd * 100 / total))%)"
	[ "${tx_chained[0]}" -gt 0 ] && [ "${tx_chained[0]}" = "${rx_chained[1]}" ] &&
		[ "${tx_chained[1]}" = "${rx_chained[2]}" ] && [ "${tx_chained[2]}" = 0 ] || return 1
	nf_end "$fw_pid" "$fw_out" || return 1
	nf_end "$nat_pid" "$nat_out" || return 1
	tst_diag "nat: $(js '{k: j["nf-nat"][k] for k in ("created", "passed", "dropped_arp", "held_sent")}')"
	[ "$(js 'j["nf-nat"]["passed"] > 0')" = True ] || return 1
	nf_end "$lb_pid" "$lb_out" || return 1
	tst_diag "lb: $(js '{k: j["nf-lb"][k] for k in ("new_flows", "returned", "arp_answered")}')"
	[ "$out" = "sink $PUBLIC" ] && [ "$xfer_peer" = "$PUBLIC" ] &&
		echo "$counts" | grep -Eq '^b[12] [1-9][0-9]* b[12] [1-9][0-9]* failed 0 $' &&
		[ $((rd * 10)) -lt "$total" ]
}
tst_check "docs/nfs.md's chain, nf-firewall -> nf-nat -> nf-lb on two pairs: the office reaches the uplink as the public address, 40 clients' flows spread over 2 backends, $((BYTES >> 20)) MiB each way intact with under 10% of the bytes read" \
	docs_chain

tst_done
