#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Data-path safety: a handle written while a second thread
# splices it, ports across namespaces whose ifindexes collide, super-packets
# from a tap writer without checksum state, what detach and the last close
# leave queued, a peer's detach, and one privilege rule for ioctl, netlink
# and write. Every case failed on the module before these fixes.
#
#   race:   nsa [netslice] -- veth -- nsb
#   ports:  in each of two namespaces X:
#           xg --veth-- x0 [netslice, pair x1] x1 --veth-- xs
. "$(dirname "$0")/lib.sh"
set -o pipefail

tst_plan 16
tst_module_loaded && rmmod netslice
py=/usr/bin/python3
nobody=(setpriv --reuid=65534 --regid=65534 --clear-groups)

# veth_pair A B: a veth pair in this namespace, up, deleted at cleanup.
veth_pair() {
	ip link add "$1" type veth peer name "$2" || return 1
	tst_defer ip link del "$1"
	ip link set "$1" up && ip link set "$2" up
}

# inject DEV COUNT LEN: COUNT frames of LEN bytes sent on DEV (the peer of
# an attached interface), ethertype 0x88b5.
inject() {
	$py - "$@" <<'EOF'
import socket, sys
dev, count, length = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
s.bind((dev, 0))
frame = b"\xff" * 6 + b"\x02\x00\x00\x00\x00\x05" + b"\x88\xb5" + bytes(length - 14)
for _ in range(count):
    s.send(frame)
EOF
}

race() {
	local rc
	tst_sysctl net.ipv6.conf.default.disable_ipv6 1
	veth_pair nsa nsb || return 1
	tst_load slices=1 ifaces=nsa || return 1
	safety_check race nsa nsb | tst_indent
	rc=${PIPESTATUS[0]}
	if [ "$rc" -eq 4 ]; then
		tst_skip_why="no userfaultfd write-protect in this kernel"
		return "$ksft_skip"
	fi
	return "$rc"
}
tst_check "a handle visible while its splice races the read: no crash, spliced once" race
tst_run_cleanups

# twin_namespaces: namespaces $ns_p and $ns_q (ns[p], ns[q] in the
# caller's "declare -A ns"), each with gen xg -- x0 [attached, peer x1]
# x1 -- xs sink: the same interfaces, so the same ifindexes.
twin_namespaces() {
	local x d var
	for x in p q; do
		var=ns_$x
		tst_netns_create "$var" || return 1
		ns[$x]=${!var}
		ip netns exec "${ns[$x]}" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 \
			net.ipv6.conf.default.disable_ipv6=1 || return 1
		ip -n "${ns[$x]}" link add xg type veth peer name x0 &&
			ip -n "${ns[$x]}" link add x1 type veth peer name xs || return 1
		for d in xg x0 x1 xs; do ip -n "${ns[$x]}" link set "$d" up || return 1; done
		ip netns exec "${ns[$x]}" netslicectl link attach dev x0 peer x1 || return 1
	done
	[ "$(ip netns exec "${ns[p]}" cat /sys/class/net/x0/ifindex)" = \
	  "$(ip netns exec "${ns[q]}" cat /sys/class/net/x0/ifindex)" ] ||
		{ tst_diag "ifindexes do not collide"; return 1; }
}

# Two namespaces, each with the same interfaces (so the same ifindexes),
# attached from inside as a pair; nf-fwd in the initial namespace forwards
# both. Each namespace's frames arrive at its own sink and nowhere else.
ports_across_namespaces() {
	local x n=2000
	declare -A ns
	tst_load slices=1 rxq_size=16384 || return 1
	twin_namespaces || return 1
	tst_start_fwd -m off || return 1
	for x in p q; do
		local other=q
		[ "$x" = q ] && other=p
		local mac before
		mac=$(ip -n "${ns[$x]}" -br link show xs | awk '{print $3}')
		before=$(ip netns exec "${ns[$other]}" cat /sys/class/net/xs/statistics/rx_packets)
		tst_diag "namespace $x:"
		tst_traffic_between "${ns[$x]}" xg "${ns[$x]}" xs "$mac" $n 16 || return 1
		[ "$(ip netns exec "${ns[$other]}" cat /sys/class/net/xs/statistics/rx_packets)" = \
		  "$before" ] || { tst_diag "frames of $x reached $other's sink"; return 1; }
	done
	tst_stat_is tx_err_ifindex 0 && tst_stop_fwd
}
tst_check "ports: frames of two namespaces with colliding ifindexes each leave by their own pair" \
	ports_across_namespaces
tst_run_cleanups

# Port 0 on write: a cut frame read from p's x0 and written back by an
# NF in q with TX_DEFAULT and port 0 leaves by p's pair, where its
# payload came from, not by q's x0's, which has the same ifindex.
port0_payload() {
	local held out
	declare -A ns
	tst_load slices=1 || return 1
	netslicectl slice set 0 cut auto || return 1
	twin_namespaces || return 1
	exec {held}<>/dev/netslice-0 || return 1
	tst_defer eval "exec $held<&-"
	# One UDP/IPv4 frame of 600 bytes into p's x0: a payload to park.
	ip netns exec "${ns[p]}" $py -c '
import socket
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
s.bind(("xg", 0))
ip = bytes([0x45, 0, 2, 0x4a, 0, 1, 0, 0, 64, 17, 0, 0, 10, 99, 0, 1, 10, 99, 0, 2])
s.send(b"\xff" * 6 + b"\x02\x00\x00\x00\x00\x05" + b"\x08\x00" + ip +
       bytes([0, 9, 0, 9, 2, 0x36, 0, 0]) + bytes(558))' || return 1
	tst_busywait 5000 tst_stat_is rx_packets 1 >/dev/null || { tst_stat_is rx_packets 1; return 1; }
	out=$(ip netns exec "${ns[q]}" safety_check forward port0)
	tst_diag "written back from q with port 0: $out"
	[ "$out" = "write 1 errno 0 error 0" ] && tst_stat_is read_sliced 1 && tst_stat_is tx_spliced 1 ||
		return 1
	tst_busywait 5000 tst_at_least 1 \
		ip netns exec "${ns[p]}" cat /sys/class/net/xs/statistics/rx_packets ||
		{ tst_diag "p's sink got nothing"; return 1; }
	out=$(ip netns exec "${ns[q]}" cat /sys/class/net/xs/statistics/rx_packets)
	[ "$out" = 0 ] || { tst_diag "q's sink got $out"; return 1; }
}
tst_check "port 0 on write: a payload goes back by the pair it came from, not an ifindex twin" \
	port0_payload
tst_run_cleanups

# A tap writer's TCP super-packet with a vnet header and no NEEDS_CSUM
# (checksum state NONE): the transmit-path segmentation warned on it.
# tun_node: /dev/net/tun, made if the guest has none.
tun_node() {
	modprobe tun 2>/dev/null
	if [ ! -c /dev/net/tun ]; then
		mkdir -p /dev/net && mknod /dev/net/tun c 10 200 || return 1
		tst_defer rm -f /dev/net/tun
	fi
}

tap_gso() {
	local held out
	tun_node || return 1
	tst_load slices=1 || return 1
	exec {held}<>/dev/netslice-0 || return 1
	tst_defer eval "exec $held<&-"
	tst_dmesg_mark
	out=$($py - <<'EOF'
import fcntl, os, struct, subprocess, time
TUNSETIFF, TUNSETVNETHDRSZ = 0x400454ca, 0x400454d8
IFF_TAP, IFF_NO_PI, IFF_VNET_HDR = 0x2, 0x1000, 0x4000
fd = os.open("/dev/net/tun", os.O_RDWR)
fcntl.ioctl(fd, TUNSETIFF, struct.pack("16sH", b"nstap0", IFF_TAP | IFF_NO_PI | IFF_VNET_HDR))
fcntl.ioctl(fd, TUNSETVNETHDRSZ, struct.pack("i", 10))
subprocess.run(["ip", "link", "set", "nstap0", "up"], check=True)
subprocess.run(["netslicectl", "link", "attach", "dev", "nstap0"], check=True)
payload = bytes(range(256)) * 12                     # 3072 bytes: 3 segments of 1024
ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 40 + len(payload), 1, 0x4000, 64, 6, 0,
                 bytes([10, 99, 0, 1]), bytes([10, 99, 0, 2]))
tcp = struct.pack("!HHIIBBHHH", 1000, 2000, 1, 0, 5 << 4, 0x18, 65535, 0, 0)
eth = b"\x02\x00\x00\x00\x00\x02" + b"\x02\x00\x00\x00\x00\x01" + b"\x08\x00"
# virtio_net_hdr: flags 0 (no NEEDS_CSUM), GSO_TCPV4, hdr_len, gso_size 1024
vnet = struct.pack("<BBHHHH", 0, 1, 54, 1024, 0, 0)
os.write(fd, vnet + eth + ip + tcp + payload)
for _ in range(100):
    r = subprocess.run(["safety_check", "drain"], capture_output=True, text=True, check=True)
    if not r.stdout.strip().endswith("count 0"):
        break
    time.sleep(0.05)
print(r.stdout, end="")
EOF
) || return 1
	sed 's/^/# /' <<<"$out"
	# Three wire-size segments, each flagged NETSLICE_RX_SEGMENT (2).
	[ "$(grep -c ' len 1078 rlen 1078 flags 2$' <<<"$out")" -eq 3 ] || return 1
	! tst_dmesg_since | grep -E 'WARNING|bad offload|Call Trace'
}
tst_check "a tap writer's GSO frame without NEEDS_CSUM: every segment arrives, no warning" tap_gso
tst_run_cleanups

# GRO on the DUT's veth (NAPI, so frames are aggregated before the RX
# handler), with nf-fwd forwarding. The sender's TSO is off, so every
# super-packet the slice sees was built by GRO; it arrives whole, the
# segments are counted, the kernel log stays clean.
#
# gro_setup LIST: the topology, dut0 with GRO and rx-gro-list LIST, nf-fwd.
gro_setup() {
	# The sink's veth (no NAPI) queues what nf-fwd writes, a batch of
	# super-packets or their segments at once, on this CPU's backlog: at
	# the default 1,000 it is one place frames can go (147 of 10,000
	# went missing once; where was not seen).
	tst_sysctl net.core.netdev_max_backlog 100000
	tst_topology 1 && tst_addrs || return 1
	# A ring that holds a whole 10,000-frame stream: under TCG nf-fwd can
	# fall behind netem's 64-frame slots, and 4,096 entries once overflowed
	# (1,102 counted as rx_drop_ring_full on 7.2 in a CI run).
	tst_load ifaces=dut0:dut1 rxq_size=16384 || return 1
	tst_start_fwd -m off || return 1
	# Off first: veth enables NAPI when GRO is turned on.
	ethtool -K dut0 gro off && ethtool -K dut0 gro on rx-gro-list "$1" || return 1
	tst_diag "dut0: $(ethtool -k dut0 | grep -E '^(generic-receive-offload|rx-gro-list):' | tr -s '\n\t ' ' ')"
}

# gro_segments COMMAND...: COMMAND sends a stream, up to three times until
# the slice saw a super-packet (GRO merges only what one NAPI poll finds
# waiting: on a busy host a stream can pass without a merge).
gro_segments() {
	local try
	for try in 1 2 3; do
		"$@" || return 1
		tst_diag "rx_segments after stream $try: $(tst_stat_sum rx_segments)"
		[ "$(tst_stat_sum rx_segments)" -gt 0 ] && break
	done
	[ "$(tst_stat_sum rx_segments)" -gt 0 ] && tst_stat_is rx_drop_error 0 && tst_stop_fwd
}

# Plain GRO: a TCP stream, byte for byte.
veth_gro() {
	gro_setup off && TST_TCP_TSO=off gro_segments tst_tcp_stream 10.99.0.2 $((4 << 20))
}
tst_check "veth with GRO: TCP super-packets segmented, the stream intact, no warning" veth_gro
tst_run_cleanups

# Fraglist GRO (rx-gro-list): on every kernel since 5.6, UDP with no local
# socket is merged only as a fraglist, so a UDP super-packet is one (TCP
# would be merged as a fraglist only from 6.11, and plainly before).
# 10,000 frames of one UDP flow go through netem slots on the sender: each
# 1 ms slot releases up to 64 at once, so veth's NAPI finds several
# waiting and GRO merges them (sent one by one, each is polled alone), and
# never more than veth's 256-entry ring holds. The sender without TSO, so
# that veth takes them through NAPI at all. Every frame arrives intact.
#
# Frames can be lost outside the module under TCG on a loaded host: veth
# drops when dut0's NAPI ring (256) is full (gen0's tx_dropped: 48 of
# 10,000 here with two host CPU hogs, 340 in a CI run), and on 7.2, whose
# veth pushes back instead, 1,678 went missing in a CI run with nothing
# counted at gen0. The stream is sent again (up to 3 times) only when the
# loss is shown to be before dut0: every frame dut0 received (its
# rx_packets over the try) arrived, and the module's part was clean (the
# slice sent every frame it queued, dropped none, the sink saw no
# duplicate or corrupt frame). A frame lost after dut0 fails at once.
# Each try says where frames went.
veth_fraglist() {
	local try out probe d0 reached
	# Known before the topology is built: on the sanitizer kernel that
	# took 47 s only to skip.
	tst_netns_create probe || return 1
	if ! ip netns exec "$probe" tc qdisc add dev lo root netem slot 1ms 1ms packets 64 \
		2>/dev/null; then
		tst_skip_why="no netem qdisc in this kernel to batch the datagrams"
		return "$ksft_skip"
	fi
	gro_setup on || return 1
	ip netns exec "$gen" ethtool -K gen0 tso off >/dev/null || return 1
	ip netns exec "$gen" tc qdisc add dev gen0 root netem slot 1ms 1ms packets 64 \
		limit 100000 || return 1
	out=$(mktemp)
	tst_defer rm -f "$out"
	for try in 1 2 3; do
		d0=$(tst_link_stat "" dut0 rx_packets)
		gro_segments tst_traffic 10000 1 >"$out" && { cat "$out"; return 0; }
		cat "$out"
		reached=$(($(tst_link_stat "" dut0 rx_packets) - d0))
		tst_diag "try $try (counts add up over tries): $(tst_hops "")"
		# Every stream of the try (gro_segments may send more than one).
		tst_lost_before_port "$reached" "$out" || return 1
	done
	return 1
}

tst_check "veth with rx-gro-list: UDP fraglist super-packets segmented, every frame intact" veth_fraglist
tst_run_cleanups

# Detach frees the detached interface's queued frames, counted; the other
# interface's stay, in order. The last close frees the rest.
leftovers() {
	local held out nsc_frames
	tst_sysctl net.ipv6.conf.default.disable_ipv6 1
	veth_pair nsa nsb && veth_pair nsc nsd || return 1
	tst_load slices=1 ifaces=nsa,nsc || return 1
	exec {held}<>/dev/netslice-0 || return 1
	inject nsb 10 100 && inject nsd 5 200 || return 1
	tst_busywait 5000 tst_stat_is rx_packets 15 >/dev/null || { tst_stat_is rx_packets 15; return 1; }
	netslicectl link detach dev nsa || return 1
	tst_stat_is rx_purged 10 || return 1
	out=$(safety_check drain) || return 1
	nsc_frames=$(grep -c "ifindex $(cat /sys/class/net/nsc/ifindex) len 200 " <<<"$out")
	tst_diag "after detaching nsa: $(tail -n 1 <<<"$out"), of nsc: $nsc_frames"
	[ "$(tail -n 1 <<<"$out")" = "count 5" ] && [ "$nsc_frames" -eq 5 ] || return 1
	inject nsd 7 200 || return 1
	tst_busywait 5000 tst_stat_is rx_packets 22 >/dev/null || { tst_stat_is rx_packets 22; return 1; }
	exec {held}<&-
	tst_stat_is rx_purged 17 || return 1
	out=$(safety_check drain) || return 1
	[ "$(tail -n 1 <<<"$out")" = "count 0" ] || { tst_diag "reopened: $out"; return 1; }
}
tst_check "detach frees the interface's queued frames, the last close the rest; counted" leftovers
tst_run_cleanups

# Ring mode keeps read's promises: records a detach keeps reach the ring
# (they went to an unread queue only read() drained), another file sees
# no POLLIN it cannot read, and a closed ring's records are not read
# later. Every frame nsc received ends queued, trimmed or dropped.
ring_requeue() {
	tst_sysctl net.ipv6.conf.default.disable_ipv6 1
	veth_pair nsa nsb && veth_pair nsc nsd || return 1
	tst_load slices=1 ifaces=nsa,nsc || return 1
	safety_check ring-requeue nsa nsd | tst_indent || return 1
	tst_frames_accounted nsc
}
tst_check "ring mode: records a detach keeps are delivered, none read after; counted once" \
	ring_requeue
tst_run_cleanups

# A kept super-packet that must be segmented (the store is full) and
# finds the ring short of room for all its segments is dropped whole:
# counted once, never as queued as well.
ring_gso() {
	tun_node || return 1
	tst_load slices=1 store_size=1 || return 1
	safety_check ring-gso | tst_indent
}
tst_check "ring mode: a super-packet's segments the ring cannot all take: dropped whole, once" \
	ring_gso
tst_run_cleanups

# A write waiting on its iov's memory (userfaultfd here; FUSE alike)
# holds no device: the interface it names deletes meanwhile.
uffd_unregister() {
	tst_sysctl net.ipv6.conf.default.disable_ipv6 1
	ip link add nsa type veth peer name nsb || return 1
	tst_defer eval "ip link del nsa 2>/dev/null; true"
	ip link set nsa up && ip link set nsb up || return 1
	tst_load slices=1 ifaces=nsa || return 1
	safety_check uffd-unregister nsa | tst_indent
}
tst_check "a write waiting on a userfaultfd page holds no device: its egress deletes meanwhile" \
	uffd_unregister
tst_run_cleanups


# An rxq shrunk at run time under page_pool packets frees what it drops
# after the resize, with IRQs on: freed inside ptr_ring_resize (its lock
# taken with IRQs off), a page_pool page's return warns on the sanitizer
# kernel's lockdep, and a BH enable there could deadlock on the ring.
shrink_page_pool() {
	local held
	tst_sysctl net.ipv6.conf.default.disable_ipv6 1
	veth_pair nsa nsb || return 1
	tst_xdp_pass nsa || return 1
	tst_load slices=1 ifaces=nsa rxq_size=64 || return 1
	exec {held}<>/dev/netslice-0 || return 1
	tst_defer eval "exec $held<&-"
	inject nsb 50 100 || return 1
	tst_busywait 5000 tst_stat_is rx_packets 50 >/dev/null || { tst_stat_is rx_packets 50; return 1; }
	netslicectl slice set 0 rxq-size 4 || return 1
	tst_stat_is rx_purged 46
}
tst_check "an rxq shrunk under XDP (page_pool) packets frees the 46 it drops with IRQs on" shrink_page_pool
tst_run_cleanups

# Ring memory is charged: to the module's cap and the user's
# RLIMIT_MEMLOCK, given back on close; and a setup takes no other file's
# packets.
ring_memory() {
	tst_load slices=2 ring_max_mb=8 || return 1
	safety_check ringmem-root | tst_indent
	[ "${PIPESTATUS[0]}" -eq 0 ] || return 1
	! command -v udevadm >/dev/null || udevadm settle
	chmod 0666 /dev/netslice-0 /dev/netslice-1 || return 1
	"${nobody[@]}" prlimit --memlock=8388608:8388608 safety_check ringmem-user | tst_indent
	[ "${PIPESTATUS[0]}" -eq 0 ]
}
tst_check "ring memory: charged to ring_max_mb and RLIMIT_MEMLOCK, given back; EBADF, EBUSY" \
	ring_memory
tst_run_cleanups

# A pair whose peer goes away: the survivor has no default egress (its
# frames fail NETSLICE_TXERR_IFINDEX), not the dead peer's number, which a
# new interface may take.
peer_gone() {
	local j out held
	tst_sysctl net.ipv6.conf.default.disable_ipv6 1
	veth_pair nsa nsb && veth_pair nsc nsd || return 1
	tst_load slices=1 ifaces=nsa:nsc || return 1
	# A file open on the slice, so that the frames are queued, not dropped.
	exec {held}<>/dev/netslice-0 || return 1
	tst_defer eval "exec $held<&-"
	# While the peer is there, a frame from nsa leaves by default through it.
	inject nsb 1 100 || return 1
	out=$(safety_check forward)
	tst_diag "with its peer: $out"
	[ "$out" = "write 1 errno 0 error 0" ] || return 1
	ip link del nsc || return 1
	inject nsb 1 100 || return 1
	out=$(safety_check forward)
	tst_diag "without: $out"
	# ENODEV (19), NETSLICE_TXERR_IFINDEX (3)
	[ "$out" = "write -1 errno 19 error 3" ] || return 1
	j=$(netslicectl -j link show) || return 1
	tst_diag "$j"
	$py -c '
import json, sys
links = json.loads(sys.argv[1])
assert len(links) == 1, links
l = links[0]
assert l["dev"] == "nsa" and l["peer_ifindex"] == 0, l
' "$j"
}
tst_check "a detached peer leaves its pair without a default egress: a frame fails TXERR_IFINDEX" peer_gone
tst_run_cleanups

# Opening the node is the data-path right; changing the slice needs
# CAP_NET_ADMIN; a write goes only out of the slice's own interfaces.
ioctl_privilege() {
	tst_sysctl net.ipv6.conf.default.disable_ipv6 1
	veth_pair nsa nsb || return 1
	tst_load slices=2 ifaces=nsa@1 || return 1
	# udev may still be applying the node's add event; its chmod must not
	# land after ours.
	! command -v udevadm >/dev/null || udevadm settle
	chmod 0666 /dev/netslice-0 || return 1
	tst_diag "$(stat -c '%n %a' /dev/netslice-0)"
	"${nobody[@]}" safety_check perms nsa | tst_indent
}
tst_check "ioctl: unprivileged reads; changes need CAP_NET_ADMIN; writes only to own interfaces" \
	ioctl_privilege
tst_run_cleanups

# Another namespace's unprivileged user sees neither slices, counters nor
# rules (they are the initial namespace's), nor other namespaces' links.
netlink_visibility() {
	local other out rc
	tst_sysctl net.ipv6.conf.default.disable_ipv6 1
	veth_pair nsa nsb || return 1
	tst_load slices=1 ifaces=nsa || return 1
	tst_netns_create other || return 1
	for cmd in "slice show" "stats" "rule show"; do
		# shellcheck disable=SC2086
		out=$(ip netns exec "$other" "${nobody[@]}" netslicectl $cmd 2>&1)
		rc=$?
		tst_diag "$cmd: $out"
		[ "$rc" -ne 0 ] && [[ $out == *"initial network namespace"* ]] || return 1
	done
	[ "$(ip netns exec "$other" "${nobody[@]}" netslicectl -j link show)" = "[]" ] &&
		"${nobody[@]}" netslicectl slice show >/dev/null
}
tst_check "netlink: another namespace sees no slices, counters, rules or links of others" \
	netlink_visibility
tst_run_cleanups

# Trimmed records are headers, never longer than NETSLICE_MAX_HEADER (512):
# IPv6 with a 600-byte hop-by-hop header, then UDP, parses to 662 bytes.
trim_capped() {
	local held out
	tst_sysctl net.ipv6.conf.default.disable_ipv6 1
	veth_pair nsa nsb || return 1
	tst_load slices=1 ifaces=nsa rxq_size=2 || return 1
	netslicectl slice set 0 cut off,trim || return 1
	exec {held}<>/dev/netslice-0 || return 1
	tst_defer eval "exec $held<&-"
	$py - <<'EOF' || return 1
import socket, struct
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
s.bind(("nsb", 0))
# PadN options: 2 + 252, 2 + 255, 2 + 85, after next-header and length.
hbh = bytes([17, 74]) + bytes([1, 252]) + bytes(252) + bytes([1, 255]) + bytes(255) + \
      bytes([1, 85]) + bytes(85)
assert len(hbh) == 600
udp = struct.pack("!HHHH", 9, 9, 8 + 200, 0) + bytes(200)
ip6 = struct.pack("!IHBB16s16s", 6 << 28, len(hbh) + len(udp), 0, 64,
                  b"\xfd" + bytes(14) + b"\x01", b"\xfd" + bytes(14) + b"\x02")
frame = b"\x02\x00\x00\x00\x00\x02" + b"\x02\x00\x00\x00\x00\x01" + b"\x86\xdd" + ip6 + hbh + udp
for _ in range(4):
    s.send(frame)
EOF
	# Two frames fill the ring, two more the trimmed-record ring.
	tst_busywait 5000 tst_stat_is rx_trimmed 2 >/dev/null || { tst_stat_is rx_trimmed 2; return 1; }
	out=$(safety_check drain) || return 1
	sed 's/^/# /' <<<"$out"
	# Records (flags 16): the whole 862-byte packet's length, 512 bytes of it.
	[ "$(grep -c ' len 862 rlen 512 flags 16$' <<<"$out")" -eq 2 ]
}
tst_check "a trimmed record is at most NETSLICE_MAX_HEADER bytes" trim_capped
tst_run_cleanups

tst_done
