// SPDX-License-Identifier: GPL-2.0
/*
 * chain_check A B C D: chains of slices, what a handoff from one slice to
 * the next does. Load the module with slices=2 ifaces=A@0,C@1 rxq_size=16
 * store_size=8 store_timeout_ms=600000: A, unpaired (its default egress
 * is itself), feeds slice 0 alone, C slice 1 alone; B and D are their
 * veth peers. UDP/IPv4 frames (42 bytes of headers) are injected on B,
 * read on slice 0, handed to slice 1 and sent out of A from there: they
 * arrive on B. Chains are set with raw netlink (slice-set chain-next,
 * chain-end), as netslicectl sets them. Counters are checked exactly, as
 * moved since a mark. A is detached at the end.
 */
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <signal.h>
#include <stdio.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/genetlink.h>
#include <linux/netslice_netlink.h>

#include "netslice.h"
#include "ktap.h"
#include "nlreq.h"
#include "pkt.h"

#define HDR	PKT_UDP_HDR
#define LEN	600
#define BUF	2048
/* Payloads the killed NF holds. */
#define KILLED	3
/* A wait for what must happen; it ends as soon as it does. */
#define WAIT_MS	5000

static int fds[2], sock_b, sock_d, ifindex_a, ifindex_c, genl;
static __u32 port_a, port_c;
static uint16_t family;
static const char *name_a;
static struct netslice_stats base[2];

/* Counter FIELD of slice S now, and how far it moved since mark(). */
#define S(s, field) slice_stat(fds[s], offsetof(struct netslice_stats, field))
#define D(s, field) (S(s, field) - base[s].field)

static void mark(void)
{
	ns_stats_get(fds[0], &base[0]);
	ns_stats_get(fds[1], &base[1]);
}

/* After a failed check: the counters that moved since mark(), for the log. */
static void show_moved(void)
{
	struct netslice_stats now;
	unsigned int s, i;

	for (s = 0; s < 2; s++) {
		if (ns_stats_get(fds[s], &now))
			continue;
		for (i = 0; i < ns_stat_count(); i++) {
			__u64 v = ns_stat_value(&now, i);
			long long moved = (long long)(v - ns_stat_value(&base[s], i));

			if (moved)
				printf("# slice %u: %s %+lld (now %llu)\n", s, ns_stat_name(i), moved,
				       (unsigned long long)v);
		}
	}
	fflush(stdout);
}

#define CHECK(ok, ...)							\
	do {								\
		if (!ktap_check(ok, __VA_ARGS__))			\
			show_moved();					\
	} while (0)

static void __attribute__((noreturn)) die(const char *what)
{
	printf("# chain_check: %s: %s\n", what, strerror(errno));
	exit(2);
}

static void set_cut(int s, const char *spec)
{
	struct netslice_cut cut;

	if (ns_cut_parse(spec, &cut) || ns_cut_set(fds[s], &cut))
		die(spec);
}

static void slice_req(struct nlreq *req, uint8_t cmd, unsigned int slice)
{
	struct genlmsghdr gh = { .cmd = cmd, .version = NETSLICE_FAMILY_VERSION };
	uint32_t id = slice;

	nlreq_init(req, family, 0, &gh, sizeof(gh));
	nlreq_put(req, NETSLICE_A_SLICE_ID, &id, sizeof(id));
}

/* slice-set of SLICE with one attribute (len 0: a flag): 0 or -errno. */
static int slice_set(unsigned int slice, uint16_t type, const void *data, size_t len)
{
	struct nlreq req;

	slice_req(&req, NETSLICE_CMD_SLICE_SET, slice);
	nlreq_put(&req, type, data, len);
	return nlreq_talk(genl, &req);
}

static int chain_next(unsigned int slice, uint32_t next)
{
	return slice_set(slice, NETSLICE_A_SLICE_CHAIN_NEXT, &next, sizeof(next));
}

static int chain_end(unsigned int slice)
{
	return slice_set(slice, NETSLICE_A_SLICE_CHAIN_END, "", 0);
}

/* The chain FROM -> TO alone: TO's next cleared first, or it could loop. */
static int chain_only(unsigned int from, unsigned int to)
{
	int err = chain_end(to) ?: chain_next(from, to);

	if (err)
		printf("# slice-set %u chain-next %u: %s\n", from, to, strerror(-err));
	return err;
}

/* slice-get's chain-next of SLICE: 1 with *next set, 0 when absent, or -errno. */
static int chain_get(unsigned int slice, uint32_t *next)
{
	struct nlreq req;

	slice_req(&req, NETSLICE_CMD_SLICE_GET, slice);
	return nlreq_get(genl, &req, GENL_HDRLEN, NETSLICE_A_SLICE_CHAIN_NEXT, next, sizeof(*next));
}

/* One packet of slice S into iov and buf (BUF bytes), once there is one. */
static ssize_t read_wait(int s, struct netslice_iov *iov, unsigned char *buf)
{
	struct pollfd p = { .fd = fds[s], .events = POLLIN };

	iov_for(iov, buf, BUF);
	return poll(&p, 1, WAIT_MS) == 1 ? read(fds[s], iov, 1) : -1;
}

/* Frame tag (LEN bytes) injected on B and read on slice 0, as its cut says. */
static int take(int tag, struct netslice_iov *iov, unsigned char *buf)
{
	unsigned char f[LEN];

	pkt_udp_frame(f, tag, LEN, 1);
	if (send(sock_b, f, LEN, 0) != LEN)
		die("inject on B");
	return read_wait(0, iov, buf) == 1;
}

/* A whole frame tag of len bytes in buf, to write as arrived on A. */
static void whole(struct netslice_iov *iov, unsigned char *buf, int tag, unsigned int len)
{
	pkt_udp_frame(buf, tag, len, 1);
	iov_for(iov, buf, BUF);
	iov->rlen = len;
	iov->port = port_a;
}

/* Write iov to slice S with action: write's result, errno as it left it. */
static ssize_t put(int s, struct netslice_iov *iov, __u16 action)
{
	iov->action = action;
	return write(fds[s], iov, 1);
}

/* want (len bytes) arrives on B, other frames before it passed over. */
static int arrives(const unsigned char *want, unsigned int len)
{
	unsigned char buf[BUF];
	ssize_t n;

	while ((n = pkt_recv(sock_b, buf, sizeof(buf), WAIT_MS)) >= 0)
		if (n == (ssize_t)len && !memcmp(buf, want, len))
			return 1;
	return 0;
}

static int arrives_tag(int tag)
{
	unsigned char want[LEN];

	pkt_udp_frame(want, tag, LEN, 1);
	return arrives(want, LEN);
}

/* B receives nothing for 200 ms. */
static int nothing_arrives(void)
{
	unsigned char buf[BUF];

	return pkt_recv(sock_b, buf, sizeof(buf), 200) < 0;
}

static int info_chain(int s, __u32 *flags, __u32 *next)
{
	struct netslice_info info;

	if (ns_info_get(fds[s], &info))
		return -1;
	*flags = info.flags & (NETSLICE_INFO_CHAIN | NETSLICE_INFO_CHAINED);
	*next = info.next_slice;
	return 0;
}

/* Setting chains up: INFO_GET, slice-get, and the loops slice-set refuses. */
static void test_setup(void)
{
	const __u32 both = NETSLICE_INFO_CHAIN | NETSLICE_INFO_CHAINED;
	__u32 f0, f1, n0, n1;
	uint32_t next = 0;
	int err;

	CHECK(!info_chain(0, &f0, &n0) && !info_chain(1, &f1, &n1) &&
	      f0 == NETSLICE_INFO_CHAIN && f1 == NETSLICE_INFO_CHAIN && !n0 && !n1 &&
	      chain_get(0, &next) == 0 && chain_get(1, &next) == 0,
	      "INFO_GET: the module has chains (INFO_CHAIN), no slice is chained; slice-get says no chain-next");
	err = chain_next(0, 0);
	CHECK(err == -ELOOP && chain_get(0, &next) == 0,
	      "slice-set 0 chain-next 0 (itself): ELOOP, nothing set (%d)", err);
	CHECK(chain_next(0, 1) == 0 && !info_chain(0, &f0, &n0) && !info_chain(1, &f1, &n1) &&
	      f0 == both && n0 == 1 && f1 == NETSLICE_INFO_CHAIN && !n1,
	      "slice-set 0 chain-next 1: INFO_GET of slice 0 says CHAIN|CHAINED, next_slice 1; of slice 1 CHAIN only");
	CHECK(chain_get(0, &next) == 1 && next == 1 && chain_get(1, &next) == 0,
	      "slice-get: slice 0 replies chain-next 1, slice 1 none");
	err = chain_next(1, 0);
	CHECK(err == -ELOOP && chain_get(1, &next) == 0,
	      "slice-set 1 chain-next 0 while 0 -> 1: ELOOP, nothing set (%d)", err);
	err = chain_next(0, 2);
	CHECK(err < 0 && chain_get(0, &next) == 1 && next == 1,
	      "slice-set 0 chain-next 2, of 2 slices: refused (%d), 0 -> 1 kept", err);
	CHECK(chain_end(0) == 0 && !info_chain(0, &f0, &n0) && f0 == NETSLICE_INFO_CHAIN && !n0 &&
	      chain_get(0, &next) == 0,
	      "slice-set 0 chain-end: slice 0 has no next (INFO_GET, slice-get)");
	CHECK(chain_next(1, 0) == 0 && !info_chain(1, &f1, &n1) && f1 == both && n1 == 0 &&
	      chain_end(1) == 0,
	      "with 0 -> 1 gone, 1 -> 0 is no loop: accepted (then ended)");
}

/* A whole frame handed from slice 0 to slice 1, and out of A from there. */
static void test_whole(void)
{
	unsigned char buf[BUF], want[LEN];
	struct netslice_iov iov;
	int ok;

	chain_only(0, 1);
	set_cut(0, "off");
	set_cut(1, "off");
	mark();
	pkt_udp_frame(want, 1, LEN, 1);
	ok = take(1, &iov, buf);
	CHECK(ok && iov.rlen == LEN && !iov.flags && !iov.handle && iov.port &&
	      iov.ifindex == (__u32)ifindex_a,
	      "cut off: a frame from A read whole on slice 0, with A's port");
	port_a = iov.port;
	pkt_drain(sock_b);
	CHECK(put(0, &iov, NETSLICE_TX_DEFAULT) == 1 && !iov.error && D(0, tx_chained) == 1 &&
	      !D(0, tx_packets) && !D(0, tx_bytes) && D(0, write_bytes) == LEN && nothing_arrives(),
	      "written back TX_DEFAULT with 0 -> 1: handed over (tx_chained 1), not sent (tx_packets 0, nothing on B)");
	memset(buf, 0, sizeof(buf));
	CHECK(read_wait(1, &iov, buf) == 1 && iov.rlen == LEN && iov.wire_len == LEN &&
	      !iov.flags && !iov.handle && !memcmp(buf, want, LEN) && iov.port == port_a &&
	      iov.ifindex == (__u32)ifindex_a,
	      "slice 1 reads it whole: the same bytes, A's port and ifindex");
	CHECK(D(1, rx_packets) == 1 && D(1, rx_chained) == 1 && D(1, rx_bytes) == LEN &&
	      D(1, read_whole) == 1 && D(1, read_bytes) == LEN && !D(0, rx_chained) &&
	      D(0, rx_packets) == 1,
	      "counted on slice 1: rx_packets 1, of which rx_chained 1, rx_bytes 600; slice 0's rx_chained 0");
	CHECK(put(1, &iov, NETSLICE_TX_DEFAULT) == 1 && !iov.error && arrives(want, LEN) &&
	      D(1, tx_packets) == 1 && D(1, tx_bytes) == LEN && !D(1, tx_chained),
	      "slice 1 (no next) writes it TX_DEFAULT: out of A, on B byte for byte");
}

/* A cut packet: only its header crosses into each slice, its payload moves parked. */
static void test_cut(void)
{
	unsigned char buf[BUF], hdr[HDR], want[LEN];
	struct netslice_iov iov, old, foreign;
	int ok;

	chain_only(0, 1);
	set_cut(0, "auto");
	set_cut(1, "auto");
	mark();
	ok = take(2, &iov, buf);
	CHECK(ok && iov.flags == NETSLICE_RX_CUT && iov.rlen == HDR && iov.wire_len == LEN &&
	      iov.handle && S(0, store_used) == 1,
	      "auto on both: a 600-byte frame read on slice 0 as 42 header bytes and a handle");
	/* The NF rewrites it: another destination MAC and UDP port. */
	memcpy(buf, "\x02\x00\x00\x00\x00\x99", 6);
	buf[36] = 0x12;
	buf[37] = 0x34;
	memcpy(hdr, buf, HDR);
	pkt_udp_frame(want, 2, LEN, 1);
	memcpy(want, hdr, HDR);
	old = iov;
	CHECK(put(0, &iov, NETSLICE_TX_DEFAULT) == 1 && !iov.error && S(0, store_used) == 0 &&
	      D(0, tx_spliced) == 1 && D(0, tx_chained) == 1 && !D(0, tx_packets) &&
	      D(0, write_bytes) == HDR,
	      "its handle written TX_DEFAULT under a rewritten header: handed over; slice 0's store empty, tx_spliced 1");
	memset(buf, 0, sizeof(buf));
	CHECK(read_wait(1, &iov, buf) == 1 && iov.flags == NETSLICE_RX_CUT && iov.handle &&
	      iov.handle != old.handle && iov.rlen == HDR && iov.wire_len == LEN &&
	      !memcmp(buf, hdr, HDR) && iov.port == port_a && iov.ifindex == (__u32)ifindex_a,
	      "slice 1 reads it cut by its own cut: the rewritten header, a new handle, A's port");
	CHECK(D(1, read_bytes) == HDR && D(1, read_sliced) == 1 && D(1, rx_chained) == 1 &&
	      S(1, store_used) == 1,
	      "only the header crossed into slice 1 (read_bytes 42); the payload is parked there");
	CHECK(put(0, &old, NETSLICE_TX_DEFAULT) == -1 && errno == ESTALE &&
	      old.error == NETSLICE_TXERR_STALE && D(0, tx_err_stale) == 1 &&
	      D(0, tx_chained) == 1 && S(1, store_used) == 1,
	      "slice 0's handle written again: ESTALE (NETSLICE_TXERR_STALE), the payload is slice 1's");
	foreign = iov;
	CHECK(put(0, &foreign, NETSLICE_TX_DEFAULT) == -1 && errno == EACCES &&
	      foreign.error == NETSLICE_TXERR_FOREIGN && D(0, tx_err_foreign) == 1 &&
	      D(0, tx_chained) == 1 && S(1, store_used) == 1,
	      "slice 1's handle written on slice 0: EACCES (NETSLICE_TXERR_FOREIGN), still parked on slice 1");
	CHECK(put(1, &iov, NETSLICE_TX_DEFAULT) == 1 && !iov.error && arrives(want, LEN) &&
	      S(1, store_used) == 0 && D(1, tx_spliced) == 1 && D(1, tx_packets) == 1,
	      "slice 1 sends its handle out of A: on B the rewritten header and the original payload, byte for byte");
}

/* TX_NEXT, and a next slice that does not cut. */
static void test_cut_off_next(void)
{
	unsigned char buf[BUF], want[LEN];
	struct netslice_iov iov;
	int ok;

	chain_only(0, 1);
	set_cut(0, "auto");
	set_cut(1, "off");
	mark();
	pkt_udp_frame(want, 3, LEN, 1);
	ok = take(3, &iov, buf) && iov.handle;
	iov.rlen = 0;	/* the header as parked: nothing copied back */
	CHECK(ok && put(0, &iov, NETSLICE_TX_NEXT) == 1 && !iov.error && D(0, tx_chained) == 1 &&
	      !D(0, write_bytes) && S(0, store_used) == 0,
	      "TX_NEXT of a handle, rlen 0 (the header as parked): handed over, nothing copied back");
	memset(buf, 0, sizeof(buf));
	CHECK(read_wait(1, &iov, buf) == 1 && !iov.flags && !iov.handle && iov.rlen == LEN &&
	      !memcmp(buf, want, LEN) && D(1, read_whole) == 1 && !D(1, read_sliced) &&
	      S(1, store_used) == 0,
	      "slice 1, cut off, reads it whole: header and payload as they arrived on A");
	CHECK(put(1, &iov, NETSLICE_TX_DEFAULT) == 1 && !iov.error && arrives(want, LEN),
	      "slice 1 writes it whole out of A: on B intact");
}

/* TX_NEXT on a slice with no next. */
static void test_next_unchained(void)
{
	unsigned char buf[BUF], b2[2][BUF], want[LEN];
	struct netslice_iov iov, two[2];
	int ok;

	chain_end(0);
	chain_end(1);
	set_cut(0, "auto");
	mark();
	pkt_udp_frame(want, 4, LEN, 1);
	ok = take(4, &iov, buf) && iov.handle;
	CHECK(ok && put(0, &iov, NETSLICE_TX_NEXT) == -1 && errno == ENODEV &&
	      iov.error == NETSLICE_TXERR_IFINDEX && D(0, tx_err_ifindex) == 1 &&
	      !D(0, tx_chained) && S(0, store_used) == 1 && !D(1, rx_packets),
	      "TX_NEXT with no next slice: ENODEV (NETSLICE_TXERR_IFINDEX), the payload stays parked");
	CHECK(put(0, &iov, NETSLICE_TX_DEFAULT) == 1 && !iov.error && arrives(want, LEN) &&
	      S(0, store_used) == 0 && D(0, tx_spliced) == 1 && D(0, tx_packets) == 1,
	      "the same iov written TX_DEFAULT (no chain: out of A): on B whole");
	whole(&two[0], b2[0], 5, LEN);
	whole(&two[1], b2[1], 6, LEN);
	two[0].action = NETSLICE_TX_DEFAULT;
	two[1].action = NETSLICE_TX_NEXT;
	CHECK(write(fds[0], two, 2) == 2 && !two[0].error &&
	      two[1].error == NETSLICE_TXERR_IFINDEX && arrives_tag(5) &&
	      D(0, tx_err_ifindex) == 2 && D(0, tx_packets) == 2 && !D(1, rx_packets),
	      "in a batch, TX_NEXT fails alone (NETSLICE_TXERR_IFINDEX), the frame before it goes out");
}

/* A slice may send out of interfaces that feed a slice before it in its chain. */
static void test_rights(void)
{
	unsigned char buf[BUF];
	struct netslice_iov iov;

	chain_end(0);
	chain_end(1);
	mark();
	whole(&iov, buf, 7, LEN);
	CHECK(put(1, &iov, NETSLICE_TX_PORT) == -1 && errno == ENODEV &&
	      iov.error == NETSLICE_TXERR_IFINDEX && D(1, tx_err_ifindex) == 1,
	      "no chain: slice 1, which A does not feed, writing TX_PORT out of A: ENODEV (NETSLICE_TXERR_IFINDEX)");
	chain_only(1, 0);
	CHECK(put(1, &iov, NETSLICE_TX_PORT) == -1 && errno == ENODEV &&
	      iov.error == NETSLICE_TXERR_IFINDEX && D(1, tx_err_ifindex) == 2 &&
	      !D(1, tx_chained),
	      "1 -> 0 (A feeds the slice after it): still NETSLICE_TXERR_IFINDEX");
	chain_only(0, 1);
	CHECK(put(1, &iov, NETSLICE_TX_PORT) == 1 && !iov.error && arrives_tag(7) &&
	      D(1, tx_packets) == 1,
	      "0 -> 1 (A feeds the slice before it): slice 1's TX_PORT goes out of A, on B intact");
	iov.ifindex = ifindex_a;
	CHECK(put(1, &iov, NETSLICE_TX_IFINDEX) == 1 && !iov.error && arrives_tag(7) &&
	      D(1, tx_packets) == 2 && D(1, tx_err_ifindex) == 2,
	      "and its TX_IFINDEX of A too");
}

/* Next slice with no file open. */
static void test_no_reader(void)
{
	unsigned char buf[BUF];
	struct netslice_iov iov;
	ssize_t r;
	int ok, err;

	chain_only(0, 1);
	set_cut(0, "auto");
	mark();
	ok = take(8, &iov, buf) && iov.handle;
	close(fds[1]);
	r = put(0, &iov, NETSLICE_TX_DEFAULT);
	err = errno;
	fds[1] = ns_open(1, O_NONBLOCK);
	if (fds[1] < 0)
		die("open slice 1");
	CHECK(ok && r == -1 && err == ENETDOWN && iov.error == NETSLICE_TXERR_DOWN &&
	      D(0, tx_err_down) == 1 && !D(0, tx_chained) && S(0, store_used) == 0,
	      "slice 1 with no file open: ENETDOWN (NETSLICE_TXERR_DOWN), the payload freed");
	iov_for(&iov, buf, BUF);
	CHECK(D(1, rx_drop_no_reader) == 1 && !D(1, rx_packets) && read(fds[1], &iov, 1) == -1 &&
	      errno == EAGAIN,
	      "counted on slice 1 as a packet with no reader (rx_drop_no_reader 1), nothing queued");
}

/* Next slice's rxq full: dropped, or a trimmed record with cut-trim. */
static void test_rxq_full(void)
{
	unsigned char buf[BUF], bufs[4][BUF], want[LEN];
	struct netslice_iov iov, q[4];
	uint32_t small = 2, normal = 16;
	int i, n, r, err, filled = 0, ok, trimmed = 0, cut = 0;

	chain_only(0, 1);
	set_cut(0, "auto");
	set_cut(1, "auto");
	err = slice_set(1, NETSLICE_A_SLICE_RXQ_SIZE, &small, sizeof(small));
	mark();
	for (i = 0; i < 2; i++) {
		whole(&iov, buf, 10 + i, LEN);
		filled += put(0, &iov, NETSLICE_TX_DEFAULT) == 1;
	}
	CHECK(!err && filled == 2 && D(1, rx_packets) == 2 && D(1, rx_chained) == 2,
	      "slice-set 1 rxq-size 2, filled by two frames handed over");
	ok = take(12, &iov, buf) && iov.handle;
	CHECK(ok && put(0, &iov, NETSLICE_TX_DEFAULT) == -1 && errno == ENOBUFS &&
	      iov.error == NETSLICE_TXERR_DROPPED && D(0, tx_err_dropped) == 1 &&
	      D(0, tx_chained) == 2 && S(0, store_used) == 0 && D(1, rx_drop_ring_full) == 1 &&
	      D(1, rx_packets) == 2,
	      "a third: ENOBUFS (NETSLICE_TXERR_DROPPED), its payload freed; rx_drop_ring_full 1 on slice 1");
	set_cut(1, "auto,trim");
	pkt_udp_frame(want, 13, LEN, 1);
	ok = take(13, &iov, buf) && iov.handle;
	CHECK(ok && put(0, &iov, NETSLICE_TX_DEFAULT) == 1 && !iov.error &&
	      D(0, tx_chained) == 3 && S(0, store_used) == 0 && D(1, rx_trimmed) == 1 &&
	      D(1, rx_drop_ring_full) == 1 && D(1, rx_packets) == 2,
	      "with cut-trim on slice 1, a fourth is queued there as a trimmed record instead (rx_trimmed 1)");
	for (i = 0; i < 4; i++)
		iov_for(&q[i], bufs[i], BUF);
	for (n = 0; n < 4 && (r = read(fds[1], q + n, 4 - n)) > 0; n += r)
		;
	for (i = 0; i < n; i++) {
		trimmed += q[i].flags == NETSLICE_RX_TRIMMED && q[i].rlen == HDR &&
			   q[i].wire_len == LEN && !q[i].handle && !memcmp(bufs[i], want, HDR);
		cut += q[i].flags == NETSLICE_RX_CUT && q[i].rlen == HDR && q[i].handle;
		q[i].action = NETSLICE_TX_DROP;
	}
	CHECK(n == 3 && trimmed == 1 && cut == 2,
	      "slice 1 reads the record (42 header bytes, wire length 600, no handle) and the two queued, cut");
	CHECK(ns_write_all(fds[1], q, n) == n && S(1, store_used) == 0 &&
	      !slice_set(1, NETSLICE_A_SLICE_RXQ_SIZE, &normal, sizeof(normal)),
	      "dropped, slice 1's store empty; its rxq back to 16");
	set_cut(1, "auto");
}

/*
 * A payload handed on past NETSLICE_CHAIN_MAX_HOPS. A chain cannot loop,
 * so the packet bounces between the slices with the chain re-pointed
 * before each handoff; each writer hands it on as arrived on the
 * interface that feeds it (A for slice 0, C for slice 1): a slice may
 * name only those, or those of a slice before it.
 */
static void test_hops(void)
{
	unsigned char buf[BUF], f[60];
	struct netslice_iov iov;
	int hop, from = 0, ok;

	set_cut(0, "auto");
	set_cut(1, "auto");
	/* C's port: a frame from D, too short to cut. */
	pkt_udp_frame(f, 15, sizeof(f), 1);
	if (send(sock_d, f, sizeof(f), 0) != (ssize_t)sizeof(f))
		die("inject on D");
	if (read_wait(1, &iov, buf) == 1 && iov.ifindex == (__u32)ifindex_c)
		port_c = iov.port;
	mark();
	ok = port_c && port_c != port_a && take(14, &iov, buf) && iov.handle;
	for (hop = 1; ok && hop <= NETSLICE_CHAIN_MAX_HOPS; hop++) {
		int to = 1 - from;

		iov.port = from ? port_c : port_a;
		ok = !chain_only(from, to) &&
		     put(from, &iov, hop % 2 ? NETSLICE_TX_DEFAULT : NETSLICE_TX_NEXT) == 1 &&
		     read_wait(to, &iov, buf) == 1 && iov.flags == NETSLICE_RX_CUT && iov.handle;
		from = to;
	}
	CHECK(ok && hop == NETSLICE_CHAIN_MAX_HOPS + 1 && !from && D(0, tx_chained) == 4 &&
	      D(1, tx_chained) == 4 && D(0, rx_chained) == 4 && D(1, rx_chained) == 4 &&
	      iov.port == port_c && S(0, store_used) == 1 && S(1, store_used) == 0,
	      "a cut packet handed 8 times, 0 -> 1, 1 -> 0, ...: read cut on each slice (stopped at %d)",
	      hop - 1);
	chain_only(0, 1);
	iov.port = port_a;
	pkt_drain(sock_b);
	mark();
	CHECK(put(0, &iov, NETSLICE_TX_DEFAULT) == -1 && errno == ELOOP &&
	      iov.error == NETSLICE_TXERR_LOOP && D(0, tx_err_loop) == 1 && !D(0, tx_chained) &&
	      !D(1, rx_packets) && S(0, store_used) == 0 && S(1, store_used) == 0,
	      "the 9th handoff: ELOOP (NETSLICE_TXERR_LOOP, tx_err_loop 1), the payload freed");
	CHECK(put(0, &iov, NETSLICE_TX_DEFAULT) == -1 && errno == ESTALE && nothing_arrives(),
	      "its handle is stale; nothing went out");
}

/* The NF reading slice 1, a child: holds KILLED payloads until killed. */
static void __attribute__((noreturn)) nf_child(int tell)
{
	unsigned char buf[BUF];
	struct netslice_iov iov;
	int n = 0;

	fds[1] = ns_open(1, O_NONBLOCK);
	if (fds[1] < 0 || write(tell, "o", 1) != 1)
		_exit(1);
	while (n < KILLED && read_wait(1, &iov, buf) == 1 && iov.handle)
		n++;
	if (write(tell, n == KILLED ? "h" : "x", 1) != 1)
		_exit(1);
	for (;;)
		pause();
}

/* An NF killed mid-chain loses what it held, and nothing more. */
static void test_killed_nf(void)
{
	unsigned char buf[BUF];
	struct netslice_iov iov;
	int i, p[2], moved = 0, opened, holding;
	char c = 0;
	pid_t pid;

	chain_only(0, 1);
	set_cut(0, "auto");
	set_cut(1, "auto");
	if (pipe(p))
		die("pipe");
	pid = fork();
	if (pid < 0)
		die("fork");
	if (!pid)
		nf_child(p[1]);
	close(p[1]);
	opened = read(p[0], &c, 1) == 1 && c == 'o';
	mark();
	for (i = 0; opened && i < KILLED; i++)
		moved += take(20 + i, &iov, buf) && iov.handle &&
			 put(0, &iov, NETSLICE_TX_DEFAULT) == 1;
	holding = opened && read(p[0], &c, 1) == 1 && c == 'h';
	close(p[0]);
	CHECK(holding && moved == KILLED && D(0, tx_chained) == KILLED && S(0, store_used) == 0 &&
	      D(1, rx_chained) == KILLED && D(1, read_sliced) == KILLED &&
	      S(1, store_used) == KILLED,
	      "a child NF on slice 1 reads 3 packets handed over, cut: their payloads parked there");
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	for (i = 0; i < WAIT_MS && S(1, store_used); i++)
		usleep(1000);
	CHECK(D(1, store_closed) == KILLED && S(1, store_used) == 0 && !D(1, rx_purged) &&
	      S(0, store_used) == 0,
	      "SIGKILLed: the 3 payloads it held freed (store_closed 3), no other touched");
	CHECK(take(23, &iov, buf) && iov.handle && put(0, &iov, NETSLICE_TX_DEFAULT) == 1 &&
	      read_wait(1, &iov, buf) == 1 && iov.handle &&
	      put(1, &iov, NETSLICE_TX_DEFAULT) == 1 && !iov.error && arrives_tag(23),
	      "the chain still works: the next packet, read by another file of slice 1, goes out of A intact");
}

/* A slice in ring mode gets packets handed to it in its RX ring. */
static void test_ring(void)
{
	unsigned char buf[BUF], wbuf[BUF], want[LEN], small[100];
	struct netslice_ring_setup cfg;
	struct netslice_iov iov, w, e[2];
	struct ns_ring *r = NULL;
	unsigned int n = 0;
	int ok;

	chain_only(0, 1);
	set_cut(0, "auto");
	set_cut(1, "auto");
	/* Ring mode wants no other file of the slice that has read from it. */
	close(fds[1]);
	fds[1] = ns_open(1, O_NONBLOCK);
	if (fds[1] < 0)
		die("open slice 1");
	ns_ring_config_default(&cfg, 8);
	ok = !ns_ring_open(&r, fds[1], &cfg);
	CHECK(ok, "slice 1 in ring mode (NETSLICE_RING_SETUP)");
	mark();
	pkt_udp_frame(want, 30, LEN, 1);
	pkt_udp_frame(small, 31, sizeof(small), 1);
	ok = ok && take(30, &iov, buf) && iov.handle && put(0, &iov, NETSLICE_TX_DEFAULT) == 1;
	whole(&w, wbuf, 31, sizeof(small));
	ok = ok && put(0, &w, NETSLICE_TX_DEFAULT) == 1;
	while (ok && n < 2 && ns_ring_wait(r, WAIT_MS) == 1)
		n += ns_ring_peek(r, e + n, 2 - n);
	CHECK(ok && n == 2 && e[0].flags == NETSLICE_RX_CUT && e[0].handle && e[0].rlen == HDR &&
	      e[0].wire_len == LEN && !memcmp(ns_iov_data(&e[0]), want, HDR) &&
	      e[0].port == port_a && !e[1].flags && !e[1].handle && e[1].rlen == sizeof(small) &&
	      !memcmp(ns_iov_data(&e[1]), small, sizeof(small)) && D(1, rx_chained) == 2 &&
	      S(1, store_used) == 1 && S(0, store_used) == 0,
	      "a cut packet and a whole frame handed over arrive in slice 1's RX ring, the payload in the ring's store");
	e[0].rlen = 0;
	e[0].action = NETSLICE_TX_DEFAULT;
	CHECK(n == 2 && ns_ring_send(r, e, 1) == 1 && !e[0].error && arrives(want, LEN) &&
	      S(1, store_used) == 0 && D(1, tx_spliced) == 1,
	      "the ring sends the cut one out of A by its handle: on B intact");
	if (r) {
		ns_ring_release(r, n);
		ns_ring_close(r);
	}
	close(fds[1]);
	fds[1] = ns_open(1, O_NONBLOCK);
	if (fds[1] < 0)
		die("open slice 1");
}

/* Detaching the interface packets arrived on purges them from the next slice too. */
static void test_detach(void)
{
	unsigned char buf[BUF], hbuf[BUF];
	struct netslice_iov iov, held;
	char cmd[96];
	int ok;

	chain_only(0, 1);
	set_cut(0, "auto");
	set_cut(1, "auto");
	mark();
	ok = take(40, &iov, buf) && iov.handle && put(0, &iov, NETSLICE_TX_DEFAULT) == 1 &&
	     read_wait(1, &held, hbuf) == 1 && held.handle;
	ok = ok && take(41, &iov, buf) && iov.handle && put(0, &iov, NETSLICE_TX_DEFAULT) == 1;
	whole(&iov, buf, 42, LEN);
	ok = ok && put(0, &iov, NETSLICE_TX_DEFAULT) == 1;
	CHECK(ok && D(1, rx_chained) == 3 && S(1, store_used) == 1 && S(0, store_used) == 0,
	      "three handed to slice 1: one read (its payload parked), two waiting");
	snprintf(cmd, sizeof(cmd), "netslicectl link detach dev %s >/dev/null", name_a);
	iov_for(&iov, buf, BUF);
	CHECK(system(cmd) == 0 && D(1, rx_purged) == 2 && read(fds[1], &iov, 1) == -1 &&
	      errno == EAGAIN && !D(0, rx_purged),
	      "A detached: the two waiting on slice 1 purged (rx_purged 2), nothing left to read");
	CHECK(put(1, &held, NETSLICE_TX_DEFAULT) == -1 && errno == ENODEV &&
	      held.error == NETSLICE_TXERR_IFINDEX && S(1, store_used) == 1,
	      "the payload slice 1 holds stays parked; out of A, gone: NETSLICE_TXERR_IFINDEX");
	close(fds[1]);
	fds[1] = ns_open(1, O_NONBLOCK);
	if (fds[1] < 0)
		die("open slice 1");
	CHECK(D(1, store_closed) == 1 && S(1, store_used) == 0,
	      "its file closed: the payload freed (store_closed 1)");
}

int main(int argc, char **argv)
{
	if (argc != 5)
		return 2;
	name_a = argv[1];
	ifindex_a = (int)if_nametoindex(argv[1]);
	sock_b = pkt_open((int)if_nametoindex(argv[2]));
	ifindex_c = (int)if_nametoindex(argv[3]);
	sock_d = pkt_open((int)if_nametoindex(argv[4]));
	genl = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
	family = genl < 0 ? 0 : nlreq_genl_family(genl, NETSLICE_FAMILY_NAME);
	fds[0] = ns_open(0, O_NONBLOCK);
	fds[1] = ns_open(1, O_NONBLOCK);
	if (!ifindex_a || !ifindex_c || !family || fds[0] < 0 || fds[1] < 0)
		return 2;

	ktap_header("chain_check", 50);
	test_setup();
	test_whole();
	test_cut();
	test_cut_off_next();
	test_next_unchained();
	test_rights();
	test_no_reader();
	test_rxq_full();
	test_hops();
	test_killed_nf();
	test_ring();
	test_detach();
	return ktap_finish();
}
