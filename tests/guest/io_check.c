// SPDX-License-Identifier: GPL-2.0
/*
 * io_check A B: read/write/poll/ioctl semantics of slice 0 (load the module
 * with slices=1 ifaces=A; B is A's veth peer, not attached). Frames are
 * injected on B (they arrive on A, into the slice) and written out of A
 * (they arrive on B).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/if_packet.h>
#include <net/ethernet.h>
#include <net/if.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "netslice.h"
#include "ktap.h"
#include "pkt.h"

static int fd, sock_b, sock_a, ifindex_a, ifindex_b;
static const char *ifname_b;
static unsigned char frames[8][2048];
static void *unmapped;

/* pkt_tag_frame() in one of 8 buffers, so that two can be compared. */
static unsigned char *frame(int tag, unsigned int len)
{
	return pkt_tag_frame(frames[tag & 7], tag, len);
}

static void inject(int tag, unsigned int len)
{
	if (send(sock_b, frame(tag, len), len, 0) != (ssize_t)len)
		exit(2);
}

/* Wait until the slice has a packet (poll, not sleep). */
static int wait_readable(int timeout_ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	return poll(&p, 1, timeout_ms) == 1 && (p.revents & POLLIN);
}

/* A frame with this tag and length is received (or sent) on s within 2 s. */
static int arrives_dir(int s, int tag, unsigned int len, int sent)
{
	unsigned char buf[2048];
	ssize_t n;

	while ((n = pkt_recv_dir(s, buf, sizeof(buf), 2000, sent)) >= 0)
		if (n == (ssize_t)len && !memcmp(buf, frame(tag, len), len))
			return 1;
	return 0;
}

static int arrives(int s, int tag, unsigned int len)
{
	return arrives_dir(s, tag, len, 0);
}

static void iov_tx(struct netslice_iov *iov, int tag, unsigned int len)
{
	iov_for(iov, frame(tag, len), len);
	iov->rlen = len;
	iov->ifindex = ifindex_a;
	iov->action = NETSLICE_TX_IFINDEX;
}

static void test_read(void)
{
	unsigned char buf[8][2048];
	struct netslice_iov iov[8];
	struct pollfd p = { .fd = fd, .events = POLLIN | POLLOUT };
	int i, n, ok;

	ktap_check(read(fd, iov, 8) == -1 && errno == EAGAIN, "empty non-blocking read gives EAGAIN");
	ktap_check(poll(&p, 1, 0) == 1 && p.revents == POLLOUT, "empty slice polls POLLOUT only");

	for (i = 0; i < 5; i++)
		inject(i, 60 + i * 100);
	ok = wait_readable(2000);
	while (ok && STAT(rx_packets) < 5)
		wait_readable(100);
	ktap_check(ok, "POLLIN once frames arrive");
	for (i = 0; i < 8; i++)
		iov_for(&iov[i], buf[i], sizeof(buf[i]));
	n = read(fd, iov, 8);
	ok = n == 5;
	for (i = 0; ok && i < 5; i++)
		ok = iov[i].rlen == 60u + i * 100 && iov[i].wire_len == iov[i].rlen &&
		     (int)iov[i].ifindex == ifindex_a && iov[i].queue == NETSLICE_QUEUE_NONE &&
		     !iov[i].flags && !memcmp(buf[i], frame(i, iov[i].rlen), iov[i].rlen);
	ktap_check(ok, "one read of 8 iovs returns the 5 frames, in order, with metadata (%d)", n);

	inject(1, 300);
	wait_readable(2000);
	iov_for(&iov[0], buf[0], 100);
	ktap_check(read(fd, iov, 1) == 1 && iov[0].rlen == 100 && iov[0].wire_len == 300 &&
		   iov[0].flags == NETSLICE_RX_TRUNCATED && STAT(read_truncated) == 1,
		   "short buffer: rlen 100, wire_len 300, TRUNCATED, counted");

	ktap_check(read(fd, iov, 0) == 0, "read of 0 iovs returns 0");

	/* Bad pointers lose nothing: the frame is still there afterwards. */
	inject(2, 400);
	wait_readable(2000);
	ktap_check(ns_read(fd, NULL, 4) == -EFAULT, "read into NULL gives EFAULT");
	ktap_check(read(fd, unmapped, 4) == -1 && errno == EFAULT, "read into unmapped iovs gives EFAULT");
	iov_for(&iov[0], unmapped, 2048);
	ktap_check(read(fd, iov, 1) == -1 && errno == EFAULT, "read into an unmapped buffer gives EFAULT");
	iov_for(&iov[0], buf[0], 2048);
	ktap_check(ns_read(fd, iov, 1 << 30) == 1 && iov[0].rlen == 400 &&
		   !memcmp(buf[0], frame(2, 400), 400),
		   "after the faults the frame is intact; a huge n is capped");

	ns_rw_multi_set(fd, NETSLICE_MULTI_WRITE, 64);
	for (i = 0; i < 3; i++)
		inject(i, 100);
	while (STAT(rx_packets) < 10 && wait_readable(2000))
		;
	for (i = 0; i < 8; i++)
		iov_for(&iov[i], buf[i], sizeof(buf[i]));
	ok = read(fd, iov, 8) == 1 && read(fd, iov, 8) == 1 && read(fd, iov, 8) == 1;
	ktap_check(ok, "multi-read off: one frame per read");
	ns_rw_multi_set(fd, NETSLICE_MULTI_READ | NETSLICE_MULTI_WRITE, NETSLICE_MAX_BATCH);
}

static volatile int blocked_tid;
static ssize_t blocked_ret;
static int blocked_errno;

static void on_usr1(int sig)
{
	(void)sig;
}

static void *blocking_reader(void *arg)
{
	unsigned char buf[2048];
	struct netslice_iov iov;
	int bfd = ns_open(0, 0);

	(void)arg;
	iov_for(&iov, buf, sizeof(buf));
	blocked_tid = syscall(SYS_gettid);
	blocked_ret = read(bfd, &iov, 1);
	blocked_errno = errno;
	close(bfd);
	return NULL;
}

/* The thread is asleep (state S) in the kernel. */
static void wait_asleep(void)
{
	char path[64], buf[256], *p;
	FILE *f;
	int i;

	for (i = 0; i < 2000; i++) {
		snprintf(path, sizeof(path), "/proc/self/task/%d/stat", blocked_tid);
		f = blocked_tid ? fopen(path, "r") : NULL;
		if (f) {
			p = fgets(buf, sizeof(buf), f) ? strrchr(buf, ')') : NULL;
			fclose(f);
			if (p && p[2] == 'S')
				return;
		}
		usleep(1000);
	}
}

static void test_blocking(void)
{
	struct sigaction sa = { .sa_handler = on_usr1 };
	pthread_t t;

	sigaction(SIGUSR1, &sa, NULL);	/* no SA_RESTART: read sees EINTR */

	blocked_tid = 0;
	pthread_create(&t, NULL, blocking_reader, NULL);
	wait_asleep();
	inject(3, 128);
	pthread_join(t, NULL);
	ktap_check(blocked_ret == 1, "a blocking read wakes up when a frame arrives");

	blocked_tid = 0;
	pthread_create(&t, NULL, blocking_reader, NULL);
	wait_asleep();
	pthread_kill(t, SIGUSR1);
	pthread_join(t, NULL);
	ktap_check(blocked_ret == -1 && blocked_errno == EINTR,
		   "a signal interrupts a blocking read with EINTR");
}

static void test_write(void)
{
	struct netslice_iov iov[4];
	__u64 before;

	pkt_drain(sock_b);
	iov_tx(&iov[0], 4, 200);
	iov_tx(&iov[1], 5, 1514);
	iov_tx(&iov[2], 6, 60);
	ktap_check(write(fd, iov, 3) == 3 && !iov[0].error && !iov[1].error && !iov[2].error &&
		   arrives(sock_b, 4, 200) && arrives(sock_b, 5, 1514) && arrives(sock_b, 6, 60),
		   "write of 3 frames: all sent, byte-identical at the peer");

	iov_tx(&iov[0], 4, 100);
	iov[0].action = NETSLICE_TX_DEFAULT;
	ktap_check(write(fd, iov, 1) == 1 && arrives(sock_b, 4, 100),
		   "default egress of an unpaired interface is the interface itself");

	ns_rw_multi_set(fd, NETSLICE_MULTI_READ, 64);
	iov_tx(&iov[0], 4, 100);
	iov_tx(&iov[1], 4, 100);
	ktap_check(write(fd, iov, 2) == 1, "multi-write off: one frame per write");
	ns_rw_multi_set(fd, NETSLICE_MULTI_READ | NETSLICE_MULTI_WRITE, NETSLICE_MAX_BATCH);

	ktap_check(write(fd, iov, 0) == 0, "write of 0 iovs returns 0");
	ktap_check(ns_write(fd, NULL, 1) == -EFAULT, "write from NULL gives EFAULT");

#define BAD(what, setup, err, code, counter) do {				\
	iov_tx(&iov[0], 1, 100);						\
	setup;									\
	before = STAT(counter);							\
	ktap_check(write(fd, iov, 1) == -1 && errno == err && iov[0].error == code && \
		   STAT(counter) == before + 1, what);				\
} while (0)
	BAD("rlen 0 gives EMSGSIZE", iov[0].rlen = 0, EMSGSIZE, NETSLICE_TXERR_LENGTH, tx_err_length);
	BAD("rlen > len gives EMSGSIZE", iov[0].len = 50, EMSGSIZE, NETSLICE_TXERR_LENGTH, tx_err_length);
	BAD("rlen > MTU + header gives EMSGSIZE",
	    (iov[0].rlen = 1600, iov[0].len = 2048), EMSGSIZE, NETSLICE_TXERR_LENGTH, tx_err_length);
	BAD("unattached ifindex gives ENODEV", iov[0].ifindex = ifindex_b, ENODEV,
	    NETSLICE_TXERR_IFINDEX, tx_err_ifindex);
	BAD("unmapped buffer gives EFAULT", iov[0].base = (unsigned long)unmapped, EFAULT,
	    NETSLICE_TXERR_FAULT, tx_err_fault);
	BAD("unknown action gives EINVAL", iov[0].action = 9, EINVAL,
	    NETSLICE_TXERR_INVALID, tx_err_invalid);

	/* What read reports of a super-packet is not write's business. */
	pkt_drain(sock_b);
	iov_tx(&iov[0], 4, 110);
	iov[0].gso_size = 1448;
	iov[0].gso_segs = 9;
	iov[0].flags = NETSLICE_RX_GSO | NETSLICE_RX_GSO_TCPV4;
	ktap_check(write(fd, iov, 1) == 1 && !iov[0].error && arrives(sock_b, 4, 110),
		   "gso_size, gso_segs and flags are ignored on write");

	pkt_drain(sock_b);
	iov_tx(&iov[0], 5, 120);
	iov_tx(&iov[1], 6, 130);
	iov[1].ifindex = 99999;
	iov_tx(&iov[2], 7, 140);
	ktap_check(write(fd, iov, 3) == 3 && !iov[0].error &&
		   iov[1].error == NETSLICE_TXERR_IFINDEX && !iov[2].error &&
		   arrives(sock_b, 5, 120) && arrives(sock_b, 7, 140),
		   "a bad iov mid-batch is flagged; the others are sent");

	before = STAT(tx_nf_drop);
	iov_tx(&iov[0], 5, 120);
	iov[0].action = NETSLICE_TX_DROP;
	ktap_check(write(fd, iov, 1) == 1 && STAT(tx_nf_drop) == before + 1 && !arrives(sock_b, 5, 120),
		   "TX_DROP consumes the iov, sends nothing, counts");

	pkt_drain(sock_a);
	before = STAT(rx_packets);
	iov_tx(&iov[0], 6, 150);
	iov[0].action = NETSLICE_TX_HOST;
	ktap_check(write(fd, iov, 1) == 1 && arrives(sock_a, 6, 150) && STAT(tx_host) == 1 &&
		   STAT(rx_packets) == before,
		   "TX_HOST passes the frame up the host stack of A, not back into the slice");
}

/* Set a sysctl under /proc/sys/net/core, its old value into old; exits 2 if it cannot. */
static void core_sysctl(const char *name, const char *value, char *old, int size)
{
	char path[128];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/sys/net/core/%s", name);
	f = fopen(path, "r");
	if (!f || !fgets(old, size, f) || fclose(f))
		exit(2);
	f = fopen(path, "w");
	if (!f || fputs(value, f) < 0 || fclose(f))
		exit(2);
}

static void link_set(const char *ifname, const char *state)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "ip link set dev %s %s", ifname, state);
	if (system(cmd))
		exit(2);
}

/* Egress in bursts: taps, a full backlog, a down link. */
static void test_write_burst(void)
{
	struct netslice_iov iov[16];
	__u64 sent, dropped, down;
	unsigned int i, refused = 0, other = 0, ok;
	char backlog[32], ignored[32];

	pkt_drain(sock_a);
	pkt_drain(sock_b);
	for (i = 0; i < 3; i++)
		iov_tx(&iov[i], i, 90 + i);
	ktap_check(write(fd, iov, 3) == 3 && arrives_dir(sock_a, 0, 90, 1) &&
		   arrives_dir(sock_a, 1, 91, 1) && arrives_dir(sock_a, 2, 92, 1),
		   "a packet tap on the egress sees every frame written");

	/*
	 * The peer's backlog takes 3 frames until its softirq runs, which a
	 * burst (sent with BHs off) does not let happen: most of 16 are
	 * refused, and say so.
	 */
	pkt_drain(sock_b);
	sent = STAT(tx_packets);
	dropped = STAT(tx_err_dropped);
	down = STAT(tx_err_down);
	for (i = 0; i < 16; i++)
		iov_tx(&iov[i], i & 7, 100 + i);	/* 8 buffers: the length tells */
	core_sysctl("netdev_max_backlog", "2", backlog, sizeof(backlog));
	ok = write(fd, iov, 16) == 16;
	core_sysctl("netdev_max_backlog", backlog, ignored, sizeof(ignored));
	for (i = 0; i < 16; i++) {
		if (iov[i].error == NETSLICE_TXERR_DROPPED)
			refused++;
		else if (iov[i].error || !arrives(sock_b, i & 7, 100 + i))
			other++;
	}
	ktap_check(ok && refused && !other && STAT(tx_err_dropped) - dropped == refused &&
		   STAT(tx_packets) - sent == 16 - refused && STAT(tx_err_down) == down,
		   "a full backlog: refused frames fail ENOBUFS in tx_err_dropped, the rest arrive");
	printf("# backlog of 2: %u of 16 refused\n", refused);

	link_set(ifname_b, "down");
	iov_tx(&iov[0], 1, 100);
	ktap_check(write(fd, iov, 1) == -1 && errno == ENETDOWN &&
		   iov[0].error == NETSLICE_TXERR_DOWN && STAT(tx_err_down) == down + 1,
		   "egress without carrier: a lone frame gives ENETDOWN, counted");
	iov_tx(&iov[0], 1, 100);
	iov_tx(&iov[1], 2, 100);
	ktap_check(write(fd, iov, 2) == 2 && iov[0].error == NETSLICE_TXERR_DOWN &&
		   iov[1].error == NETSLICE_TXERR_DOWN && STAT(tx_err_down) == down + 3,
		   "egress without carrier: each frame of a batch is flagged, all consumed");
	link_set(ifname_b, "up");
}

static void test_ioctls(void)
{
	struct netslice_rw_multi rw = { 0 };
	cpu_set_t k, u, k2, u2, empty, far;

	ktap_check(ns_rw_multi_get(fd, &rw) == 0 &&
		   rw.flags == (NETSLICE_MULTI_READ | NETSLICE_MULTI_WRITE) &&
		   rw.max_batch == NETSLICE_MAX_BATCH, "RW_MULTI_GET reports the default");
	ktap_check(ns_rw_multi_set(fd, 4, 64) == -EINVAL, "RW_MULTI_SET unknown flag: EINVAL");
	ktap_check(ns_rw_multi_set(fd, 3, 0) == -EINVAL, "RW_MULTI_SET max_batch 0: EINVAL");
	ktap_check(ns_rw_multi_set(fd, 3, NETSLICE_MAX_BATCH + 1) == -EINVAL,
		   "RW_MULTI_SET max_batch too large: EINVAL");
	ktap_check(ns_rw_multi_set(fd, NETSLICE_MULTI_READ, 7) == 0 && ns_rw_multi_get(fd, &rw) == 0 &&
		   rw.flags == NETSLICE_MULTI_READ && rw.max_batch == 7, "RW_MULTI_SET then GET round-trips");
	ns_rw_multi_set(fd, 3, NETSLICE_MAX_BATCH);

	ns_cpumask_get(fd, &k, &u);
	CPU_ZERO(&empty);
	CPU_ZERO(&far);
	CPU_SET(1000, &far);
	ktap_check(ns_cpumask_set(fd, &empty, &u) == -EINVAL, "CPUMASK_SET empty: EINVAL");
	ktap_check(ns_cpumask_set(fd, &k, &far) == -EINVAL,
		   "CPUMASK_SET impossible CPU: EINVAL");
	ns_cpumask_get(fd, &k2, &u2);
	ktap_check(CPU_EQUAL(&k, &k2) && CPU_EQUAL(&u, &u2), "a failed CPUMASK_SET changes nothing");
	CPU_ZERO(&k2);
	CPU_SET(0, &k2);
	ktap_check(ns_cpumask_set(fd, &k2, &k2) == 0 && ns_cpumask_get(fd, &k, &u) == 0 &&
		   CPU_EQUAL(&k, &k2) && CPU_EQUAL(&u, &k2), "CPUMASK_SET then GET round-trips");

	ktap_check(ioctl(fd, NETSLICE_INFO_GET, NULL) == -1 && errno == EFAULT, "INFO_GET NULL: EFAULT");
	ktap_check(ioctl(fd, NETSLICE_STATS_GET, unmapped) == -1 && errno == EFAULT,
		   "STATS_GET unmapped: EFAULT");
}

int main(int argc, char **argv)
{
	if (argc != 3)
		return 2;
	ifindex_a = if_nametoindex(argv[1]);
	ifindex_b = if_nametoindex(argv[2]);
	ifname_b = argv[2];
	sock_b = pkt_open(ifindex_b);
	sock_a = pkt_open(ifindex_a);
	unmapped = mmap(NULL, 1 << 16, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	fd = ns_open(0, O_NONBLOCK);
	if (fd < 0 || !ifindex_a || !ifindex_b)
		return 2;

	ktap_header("io_check", 43);
	test_read();
	test_blocking();
	test_write();
	test_write_burst();
	test_ioctls();
	return ktap_finish();
}
