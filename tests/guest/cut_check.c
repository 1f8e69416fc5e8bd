// SPDX-License-Identifier: GPL-2.0
/*
 * cut_check A B: header slicing on slice 0, end to end. Load the module
 * with slices=1 ifaces=A rxq_size=16 store_size=8 store_timeout_ms=300;
 * B is A's veth peer. UDP/IPv4 frames (42 bytes of headers) are injected
 * on B, read from the slice, and written out of A: they arrive on B.
 */
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <stdio.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "netslice.h"
#include "ktap.h"
#include "pkt.h"

#define HDR	PKT_UDP_HDR
#define LEN	600
#define RXQ	16
#define STORE	8

static int fd, sock_b, ifindex_a, ifindex_c;
static const char *name_a;
static void *unmapped;

static __u64 rx_seen(void)
{
	return STAT(rx_packets) + STAT(rx_trimmed) + STAT(rx_drop_ring_full);
}

/* Inject count frames and wait until the slice has taken them all. */
static void inject(int tag, unsigned int len, int count, int ip)
{
	unsigned char f[2048];
	__u64 want = rx_seen() + count;
	int i;

	for (i = 0; i < count; i++) {
		pkt_udp_frame(f, tag + i, len, ip);
		if (send(sock_b, f, len, 0) != (ssize_t)len)
			exit(2);
	}
	for (i = 0; i < 2000 && rx_seen() < want; i++)
		usleep(1000);
}

/* Frame tag, len bytes, arrives on B exactly as sent. */
static int arrives(int tag, unsigned int len)
{
	unsigned char buf[2048], want[2048];
	ssize_t n;

	pkt_udp_frame(want, tag, len, 1);
	while ((n = pkt_recv(sock_b, buf, sizeof(buf), 2000)) >= 0)
		if (n == (ssize_t)len && !memcmp(buf, want, len))
			return 1;
	return 0;
}

/* Bytes arrive on B: what arrived next equals want. */
static int arrives_bytes(const unsigned char *want, unsigned int len)
{
	unsigned char buf[2048];
	ssize_t n = pkt_recv(sock_b, buf, sizeof(buf), 2000);

	return n == (ssize_t)len && !memcmp(buf, want, len);
}

static int set_cut(const char *spec)
{
	struct netslice_cut s;

	return ns_cut_parse(spec, &s) || ns_cut_set(fd, &s) ? -1 : 0;
}

/* Read one packet into buf (len bytes of room); returns read's result. */
static ssize_t read_one(int f, struct netslice_iov *iov, void *buf, unsigned int len)
{
	iov_for(iov, buf, len);
	return read(f, iov, 1);
}

/* As read_one(), after waiting up to 2 s for a packet. */
static ssize_t read_wait(int f, struct netslice_iov *iov, void *buf, unsigned int len)
{
	struct pollfd p = { .fd = f, .events = POLLIN };

	return poll(&p, 1, 2000) == 1 ? read_one(f, iov, buf, len) : -1;
}

/* Write iov back out of A; returns write's result. */
static ssize_t write_out(int f, struct netslice_iov *iov)
{
	iov->ifindex = ifindex_a;
	iov->action = NETSLICE_TX_IFINDEX;
	return write(f, iov, 1);
}

static void test_config(void)
{
	struct netslice_cut s, bad;
	struct netslice_info info;

	ktap_check(ns_cut_get(fd, &s) == 0 && s.mode == NETSLICE_CUT_OFF && !s.flags &&
		   s.store_size == STORE && s.store_timeout_ms == 300,
		   "SLICE_GET: off by default; store size and timeout reported");
	memset(&bad, 0, sizeof(bad));
	bad.mode = NETSLICE_CUT_FIXED;
	ktap_check(ioctl(fd, NETSLICE_CUT_SET, &bad) == -1 && errno == EINVAL,
		   "SLICE_SET fixed with length 0: EINVAL");
	bad.length = NETSLICE_MAX_HEADER + 1;
	ktap_check(ioctl(fd, NETSLICE_CUT_SET, &bad) == -1 && errno == EINVAL,
		   "SLICE_SET fixed longer than NETSLICE_MAX_HEADER: EINVAL");
	bad.length = 64;
	bad.reserved[0] = 1;
	ktap_check(ioctl(fd, NETSLICE_CUT_SET, &bad) == -1 && errno == EINVAL,
		   "SLICE_SET reserved set: EINVAL");
	memset(&bad, 0, sizeof(bad));
	bad.mode = 7;
	ktap_check(ioctl(fd, NETSLICE_CUT_SET, &bad) == -1 && errno == EINVAL,
		   "SLICE_SET unknown mode: EINVAL");
	bad.mode = NETSLICE_CUT_AUTO;
	bad.flags = 4;
	ktap_check(ioctl(fd, NETSLICE_CUT_SET, &bad) == -1 && errno == EINVAL,
		   "SLICE_SET unknown flag: EINVAL");
	ktap_check(ioctl(fd, NETSLICE_CUT_SET, unmapped) == -1 && errno == EFAULT,
		   "SLICE_SET unmapped: EFAULT");
	ktap_check(ns_cut_get(fd, &s) == 0 && s.mode == NETSLICE_CUT_OFF,
		   "failed SLICE_SETs change nothing");
	ktap_check(set_cut("fixed:128,trim") == 0 && ns_cut_get(fd, &s) == 0 &&
		   s.mode == NETSLICE_CUT_FIXED && s.length == 128 &&
		   s.flags == NETSLICE_CUT_TRIM, "SLICE_SET then GET round-trips");
	ktap_check(set_cut("auto+8") == 0 && ns_info_get(fd, &info) == 0 &&
		   info.cut.mode == NETSLICE_CUT_AUTO && info.cut.extra == 8,
		   "INFO_GET reports the cut");
}

static void test_splice(void)
{
	unsigned char buf[2048], want[2048];
	struct netslice_iov iov, again;
	__u64 bytes;
	ssize_t r;

	set_cut("auto");
	inject(1, LEN, 1, 1);
	pkt_udp_frame(want, 1, LEN, 1);
	r = read_one(fd, &iov, buf, sizeof(buf));
	ktap_check(r == 1 && iov.flags == NETSLICE_RX_CUT && iov.rlen == HDR &&
		   iov.wire_len == LEN && iov.handle && !memcmp(buf, want, HDR) &&
		   STAT(read_sliced) == 1 && STAT(read_bytes) == HDR && STAT(store_used) == 1,
		   "auto: a 600-byte UDP frame reads as its 42 header bytes and a handle");
	again = iov;
	ktap_check(write_out(fd, &iov) == 1 && !iov.error && arrives(1, LEN) &&
		   STAT(tx_spliced) == 1 && STAT(store_used) == 0 && STAT(write_bytes) == HDR,
		   "writing header and handle sends the whole frame, byte-identical");
	ktap_check(write_out(fd, &again) == -1 && errno == ESTALE &&
		   again.error == NETSLICE_TXERR_STALE && STAT(tx_err_stale) == 1,
		   "a handle used once is stale: ESTALE, counted");

	inject(2, HDR, 1, 1);
	inject(3, LEN, 1, 0);
	r = read_one(fd, &iov, buf, sizeof(buf));
	ktap_check(r == 1 && !iov.flags && !iov.handle && iov.rlen == HDR,
		   "a frame no longer than its cut is read whole");
	r = read_one(fd, &iov, buf, sizeof(buf));
	ktap_check(r == 1 && !iov.flags && !iov.handle && iov.rlen == LEN,
		   "a non-IP frame is read whole in auto mode");
	ktap_check(STAT(read_whole) == 2, "whole reads counted");

	/* The iov shorter than the slice: the payload starts where the copy ended. */
	inject(4, LEN, 1, 1);
	r = read_one(fd, &iov, buf, 20);
	ktap_check(r == 1 && iov.flags == NETSLICE_RX_CUT && iov.rlen == 20 &&
		   write_out(fd, &iov) == 1 && arrives(4, LEN),
		   "an iov shorter than the slice slices there; the frame goes out whole");

	/* Passed on unchanged: rlen 0 with the handle, nothing copied back. */
	inject(20, LEN, 1, 1);
	bytes = STAT(write_bytes);
	r = read_one(fd, &iov, buf, sizeof(buf));
	memset(buf, 0, HDR);
	iov.rlen = 0;
	ktap_check(r == 1 && iov.handle && write_out(fd, &iov) == 1 && !iov.error &&
		   arrives(20, LEN) && STAT(write_bytes) == bytes,
		   "rlen 0 with a handle: the frame goes out with the header it was read with");

	set_cut("fixed:128");
	inject(5, LEN, 1, 1);
	r = read_one(fd, &iov, buf, sizeof(buf));
	ktap_check(r == 1 && iov.rlen == 128 && iov.flags == NETSLICE_RX_CUT &&
		   write_out(fd, &iov) == 1 && arrives(5, LEN),
		   "fixed:128: 128 bytes read, the frame goes out whole");
	set_cut("auto");
}

static void test_grow_shrink(void)
{
	unsigned char buf[2048], want[2048], orig[2048];
	struct netslice_iov iov;

	/*
	 * Grow: a 4-byte encapsulation after the MAC addresses (experimental
	 * EtherType, then the original one; not a VLAN tag, which the
	 * receiving side would strip before the packet socket sees it).
	 */
	inject(6, LEN, 1, 1);
	read_one(fd, &iov, buf + 4, sizeof(buf) - 4);
	pkt_udp_frame(orig, 6, LEN, 1);
	memmove(buf, buf + 4, 12);
	memcpy(buf + 12, "\x88\xb5\x00\x64", 4);
	iov.base = (unsigned long)buf;
	iov.rlen = HDR + 4;
	memcpy(want, buf, HDR + 4);
	memcpy(want + HDR + 4, orig + HDR, LEN - HDR);
	ktap_check(write_out(fd, &iov) == 1 && !iov.error && arrives_bytes(want, LEN + 4),
		   "a header 4 bytes longer (encapsulation) goes out with the payload intact");

	/* Shrink: send a 30-byte header in front of the payload. */
	inject(7, LEN, 1, 1);
	read_one(fd, &iov, buf, sizeof(buf));
	pkt_udp_frame(orig, 7, LEN, 1);
	iov.rlen = 30;
	memcpy(want, buf, 30);
	memcpy(want + 30, orig + HDR, LEN - HDR);
	ktap_check(write_out(fd, &iov) == 1 && !iov.error && arrives_bytes(want, LEN - 12),
		   "a header 12 bytes shorter goes out with the payload intact");
}

static void test_bad_handles(void)
{
	unsigned char buf[2048];
	struct netslice_iov iov, bad;
	int fd2 = ns_open(0, O_NONBLOCK);

	inject(8, LEN, 1, 1);
	read_one(fd, &iov, buf, sizeof(buf));
	bad = iov;
	ktap_check(write_out(fd2, &bad) == -1 && errno == EACCES &&
		   bad.error == NETSLICE_TXERR_FOREIGN && STAT(tx_err_foreign) == 1,
		   "a handle written on another file is foreign: EACCES, counted");
	bad = iov;
	bad.handle ^= 1;
	ktap_check(write_out(fd, &bad) == -1 && errno == EBADMSG &&
		   bad.error == NETSLICE_TXERR_FORGED, "a handle with a bit changed is forged: EBADMSG");
	bad.handle = 0x1234;
	ktap_check(write_out(fd, &bad) == -1 && errno == EBADMSG && STAT(tx_err_forged) == 2,
		   "a made-up handle is forged, counted");
	bad = iov;
	bad.base = (unsigned long)unmapped;
	ktap_check(write_out(fd, &bad) == -1 && errno == EFAULT && STAT(store_used) == 1,
		   "an unreadable header: EFAULT, the payload stays parked");
	bad = iov;
	bad.rlen = NETSLICE_MAX_HEADER + 1;
	bad.len = sizeof(buf);
	ktap_check(write_out(fd, &bad) == -1 && errno == EMSGSIZE && STAT(store_used) == 1,
		   "a header longer than NETSLICE_MAX_HEADER: EMSGSIZE, payload kept");
	bad.rlen = 10;
	ktap_check(write_out(fd, &bad) == -1 && errno == EMSGSIZE && STAT(store_used) == 1,
		   "a header shorter than Ethernet's: EMSGSIZE, payload kept");
	ktap_check(write_out(fd, &iov) == 1 && arrives(8, LEN),
		   "after all that, the real handle still sends the intact frame");

	inject(9, LEN, 1, 1);
	read_one(fd, &iov, buf, sizeof(buf));
	iov.action = NETSLICE_TX_DROP;
	ktap_check(write(fd, &iov, 1) == 1 && !iov.error && STAT(store_used) == 0 &&
		   STAT(tx_nf_drop) == 1 && pkt_recv(sock_b, buf, sizeof(buf), 200) < 0,
		   "TX_DROP with a handle frees the payload, sends nothing");
	ktap_check(write(fd, &iov, 1) == -1 && errno == ESTALE, "a released handle is stale");
	close(fd2);
}

static void test_store_limits(void)
{
	unsigned char bufs[12][2048];
	struct netslice_iov iov[20];
	int i, n_cut = 0, full = 0, trimmed = 0, fd3;
	__u64 aged, closed;

	/* Full store: packets past its capacity are read whole. */
	inject(20, LEN, 12, 1);
	for (i = 0; i < 12; i++)
		iov_for(&iov[i], bufs[i], sizeof(bufs[i]));
	ktap_check(read(fd, iov, 12) == 12, "12 packets read in one batch");
	for (i = 0; i < 12; i++) {
		n_cut += iov[i].flags == NETSLICE_RX_CUT && iov[i].rlen == HDR;
		full += iov[i].flags == NETSLICE_RX_STORE_FULL && iov[i].rlen == LEN &&
			!iov[i].handle;
	}
	ktap_check(n_cut == STORE && full == 12 - STORE && STAT(read_store_full) == 12 - STORE &&
		   STAT(store_used) == STORE && STAT(store_high_water) == STORE,
		   "store of 8 full: 8 cut, 4 whole flagged STORE_FULL, counted");
	for (i = 0; i < 12; i++)
		iov[i].action = NETSLICE_TX_DROP;
	ktap_check(ns_write_all(fd, iov, 12) == 12 && STAT(store_used) == 0,
		   "dropping them empties the store");

	/* Ageing. */
	aged = STAT(store_aged);
	inject(40, LEN, 3, 1);
	for (i = 0; i < 3; i++)
		iov_for(&iov[i], bufs[i], sizeof(bufs[i]));
	read(fd, iov, 3);
	for (i = 0; i < 3000 && STAT(store_aged) < aged + 3; i++)
		usleep(1000);
	ktap_check(STAT(store_aged) == aged + 3 && STAT(store_used) == 0,
		   "payloads age out after store_timeout_ms, counted");
	ktap_check(write_out(fd, &iov[0]) == -1 && errno == ESTALE, "an aged-out handle is stale");

	/* Close frees what the file holds. */
	closed = STAT(store_closed);
	fd3 = ns_open(0, O_NONBLOCK);
	inject(50, LEN, 2, 1);
	for (i = 0; i < 2; i++)
		iov_for(&iov[i], bufs[i], sizeof(bufs[i]));
	ktap_check(read(fd3, iov, 2) == 2 && STAT(store_used) == 2, "another file parks two");
	close(fd3);
	ktap_check(STAT(store_closed) == closed + 2 && STAT(store_used) == 0,
		   "closing it frees both, counted");

	/* Overload: a full ring turns the rest into header-only records. */
	set_cut("auto,trim");
	inject(60, LEN, RXQ + 4, 1);
	ktap_check(STAT(rx_trimmed) == 4 && STAT(rx_drop_ring_full) == 0,
		   "ring full with trim on: 4 trimmed records, no drops");
	for (i = 0; i < RXQ + 4; i++)
		iov_for(&iov[i], bufs[i % 12], sizeof(bufs[0]));
	ktap_check(read(fd, iov, 4) == 4, "the trimmed records read first");
	for (i = 0; i < 4; i++)
		trimmed += iov[i].flags == NETSLICE_RX_TRIMMED && iov[i].rlen == HDR &&
			   iov[i].wire_len == LEN && !iov[i].handle;
	ktap_check(trimmed == 4, "each flagged TRIMMED: header bytes, wire length, no handle");
	ktap_check(read(fd, iov, 8) == 8 && read(fd, iov + 8, 8) == 8, "then the 16 queued");
	for (i = 0; i < RXQ; i++)
		iov[i].action = NETSLICE_TX_DROP;
	ns_write_all(fd, iov, RXQ);
	set_cut("auto");
	inject(80, LEN, RXQ + 4, 1);
	ktap_check(STAT(rx_drop_ring_full) == 4 && STAT(rx_trimmed) == 4,
		   "with trim off the same overflow drops 4, counted");
	for (i = 0; i < RXQ; i++)
		iov_for(&iov[i], bufs[i % 12], sizeof(bufs[0]));
	read(fd, iov, 8);
	read(fd, iov + 8, 8);
	for (i = 0; i < RXQ; i++)
		iov[i].action = NETSLICE_TX_DROP;
	ns_write_all(fd, iov, RXQ);
	ktap_check(STAT(store_used) == 0 && STAT(read_packets) == STAT(read_sliced) +
		   STAT(read_whole) + 4, "read = cut + whole + trimmed; store empty");
}

/*
 * A batch whose two iovs name one egress as written (C's pair, D), where
 * the second's payload, port 0, goes back to its own port, A: out of A
 * itself (unpaired), or nowhere once A is detached (detached). Either way
 * the second must not join the first's run: the first goes out of D,
 * which loops back to C, and the second is judged alone.
 */
static void test_egress_own_port(int detached)
{
	unsigned char buf[2048], whole[2048], want[2048];
	struct netslice_iov iov[2], in;
	char cmd[64];
	ssize_t r;

	set_cut("auto");
	inject(40, LEN, 1, 1);
	r = read_one(fd, &iov[1], buf, sizeof(buf));
	ktap_check(r == 1 && iov[1].handle, "a cut packet read from port A");
	if (detached) {
		snprintf(cmd, sizeof(cmd), "netslicectl link detach dev %s", name_a);
		ktap_check(system(cmd) == 0 && STAT(store_used) == 1,
			   "A detached, its payload still parked");
	}
	pkt_udp_frame(whole, 41, LEN, 1);
	iov_for(&iov[0], whole, LEN);
	iov[0].rlen = LEN;
	iov[0].action = iov[1].action = NETSLICE_TX_DEFAULT;
	iov[0].port = iov[1].port = 0;
	iov[0].ifindex = iov[1].ifindex = ifindex_c;
	set_cut("off");
	r = write(fd, iov, 2);
	if (detached)
		ktap_check(r >= 1 && !iov[0].error && iov[1].error == NETSLICE_TXERR_IFINDEX &&
			   STAT(store_used) == 1,
			   "port 0, A detached: the handle fails alone, still parked");
	else
		ktap_check(r == 2 && !iov[0].error && !iov[1].error && arrives(40, LEN) &&
			   STAT(store_used) == 0,
			   "port 0, A unpaired: the handle goes out of A, whole");
	pkt_udp_frame(want, 41, LEN, 1);
	ktap_check(read_wait(fd, &in, buf, sizeof(buf)) == 1 && in.rlen == LEN &&
		   !memcmp(buf, want, LEN),
		   "the frame before it went out of its own egress (D, back on C), whole");
	if (!detached) {
		ktap_check(write_out(fd, &iov[1]) == -1 && errno == ESTALE, "its handle is spent");
		return;
	}
	/* Out of C instead: back on D, whole. */
	iov[1].action = NETSLICE_TX_IFINDEX;
	pkt_udp_frame(want, 40, LEN, 1);
	ktap_check(write(fd, &iov[1], 1) == 1 && STAT(store_used) == 0 &&
		   read_wait(fd, &in, buf, sizeof(buf)) == 1 && in.rlen == LEN &&
		   !memcmp(buf, want, LEN), "the payload left parked goes out whole later");
}

int main(int argc, char **argv)
{
	/* cut_check A B C [detached]: only the egress case, detaching A. */
	if (argc != 4 && (argc != 5 || strcmp(argv[4], "detached")))
		return 2;
	name_a = argv[1];
	ifindex_a = if_nametoindex(argv[1]);
	ifindex_c = if_nametoindex(argv[3]);
	sock_b = pkt_open(if_nametoindex(argv[2]));
	unmapped = mmap(NULL, 1 << 16, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	fd = ns_open(0, O_NONBLOCK);
	if (fd < 0 || !ifindex_a || !ifindex_c)
		return 2;

	if (argc == 5) {
		ktap_header("cut_check", 5);
		test_egress_own_port(1);
		return ktap_finish();
	}
	ktap_header("cut_check", 47);
	test_config();
	test_splice();
	test_grow_shrink();
	test_bad_handles();
	test_store_limits();
	test_egress_own_port(0);
	return ktap_finish();
}
