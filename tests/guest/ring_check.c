// SPDX-License-Identifier: GPL-2.0
/*
 * ring_check A B: ring mode of slice 0 (load the module with slices=1
 * ifaces=A; B is A's veth peer, not attached): setup and mmap rules, RX
 * into the frames, TX and completions, bad entries, rewritten indices,
 * cuts and trimming through the rings, close and fork with mappings
 * alive. Frames are injected on B and sent out of A (back to B).
 *
 * ring_check pollout B CMD: slice 0's ring sends frames out of B (a NIC
 * whose far side does not take them, so its queue stops), runs CMD (which
 * lets B's queue drain) and waits for POLLOUT alone (test_nic.sh).
 *
 * ring_check retry SEND UP: slice 0's ring (the only slice; ifaces=A:B, B's
 * far side not taking frames) gets the frames SEND makes arrive on A,
 * cut, and writes their handles back to port 0 ("where it came from":
 * out of B) until B's queue stops; UP lets it drain (test_nic.sh).
 */
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "netslice.h"
#include "ring.h"		/* the library's ring state, to drive the rings by hand */
#include "ktap.h"
#include "pkt.h"

static int sock_b, ifindex_a, ifindex_b;
static unsigned char frame_buf[2048];

static unsigned char *frame(int tag, unsigned int len)
{
	return pkt_tag_frame(frame_buf, tag, len);
}

static void inject(int tag, unsigned int len)
{
	if (send(sock_b, frame(tag, len), len, 0) != (ssize_t)len)
		exit(2);
}

/* The frame with this tag and length arrives on B within 2 s. */
static int arrives(int tag, unsigned int len)
{
	unsigned char buf[2048];
	ssize_t n;

	while ((n = pkt_recv(sock_b, buf, sizeof(buf), 2000)) >= 0)
		if (n == (ssize_t)len && !memcmp(buf, frame(tag, len), len))
			return 1;
	return 0;
}

static void drain_b(void)
{
	unsigned char buf[2048];

	while (pkt_recv(sock_b, buf, sizeof(buf), 50) >= 0)
		;
}

static int setup_err(struct netslice_ring_setup s, int fd)
{
	return ioctl(fd, NETSLICE_RING_SETUP, &s) ? errno : 0;
}

/* Wait for count RX entries (poll, not sleep); returns how many there are. */
static unsigned int rx_wait(struct ns_ring *r, unsigned int count)
{
	int tries = 200;

	while (__atomic_load_n(&r->rx->producer, __ATOMIC_ACQUIRE) - r->rx_peeked < count &&
	       tries--)
		ns_ring_wait(r, 10);
	return __atomic_load_n(&r->rx->producer, __ATOMIC_ACQUIRE) - r->rx_peeked;
}

static void test_setup(int fd, int fd2, struct netslice_ring_setup good)
{
	struct netslice_ring_setup s;
	void *p;

	s = good, s.frame_size = 1000;
	ktap_check(setup_err(s, fd) == EINVAL, "frame size not a power of 2: EINVAL");
	s = good, s.frame_size = 1024;
	ktap_check(setup_err(s, fd) == EINVAL, "frame size below 2048: EINVAL");
	s = good, s.rx_size = 100;
	ktap_check(setup_err(s, fd) == EINVAL, "RX size not a power of 2: EINVAL");
	s = good, s.comp_size = good.tx_size / 2;
	ktap_check(setup_err(s, fd) == EINVAL, "completion ring smaller than TX: EINVAL");
	s = good, s.frame_count = good.rx_size - 1;
	ktap_check(setup_err(s, fd) == EINVAL, "fewer frames than RX entries: EINVAL");
	s = good, s.frame_size = 65536, s.frame_count = 8192;
	ktap_check(setup_err(s, fd) == EINVAL, "a frame area over 256 MiB: EINVAL");
	s = good, s.reserved = 1;
	ktap_check(setup_err(s, fd) == EINVAL, "reserved set: EINVAL");
	s = good, s.flags = NETSLICE_RING_BUSY_POLL;
	ktap_check(setup_err(s, fd) == EINVAL, "busy poll without busy_poll_us: EINVAL");
	s = good, s.flags = NETSLICE_RING_BUSY_PREFER, s.busy_poll_us = 50;
	ktap_check(setup_err(s, fd) == EINVAL, "preferred busy polling without busy polling: EINVAL");
	s = good, s.flags = 4;
	ktap_check(setup_err(s, fd) == EINVAL, "unknown flag: EINVAL");
	p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, NETSLICE_MMAP_RX);
	ktap_check(p == MAP_FAILED && errno == EINVAL, "mmap before setup: EINVAL");
	ktap_check(ioctl(fd, NETSLICE_RING_KICK, 0) == -1 && errno == EINVAL,
		   "kick before setup: EINVAL");
	(void)fd2;
}

/* Setup done on fd: the mmap rules and the read/write exclusions. */
static void test_exclusions(struct ns_ring *r, int fd2)
{
	struct netslice_ring_setup s = r->setup;
	struct netslice_iov iov = { 0 };
	void *p;

	ktap_check(setup_err(s, r->fd) == EBUSY, "a second setup on the file: EBUSY");
	ktap_check(setup_err(s, fd2) == EBUSY, "setup on another file of the slice: EBUSY");
	p = mmap(NULL, r->setup.rx_len, PROT_READ | PROT_WRITE, MAP_SHARED, r->fd,
		 NETSLICE_MMAP_RX);
	ktap_check(p == MAP_FAILED && errno == EBUSY, "a second mapping of a region: EBUSY");
	p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, r->fd, 0x300000000ULL);
	ktap_check(p == MAP_FAILED && errno == EINVAL, "mmap at no region's offset: EINVAL");
	ktap_check(read(r->fd, &iov, 1) == -1 && errno == EINVAL, "read on a ring file: EINVAL");
	ktap_check(write(r->fd, &iov, 1) == -1 && errno == EINVAL, "write on a ring file: EINVAL");
	ktap_check(read(fd2, &iov, 1) == -1 && errno == EBUSY,
		   "read on another file of a ring slice: EBUSY");
}

static void test_rx_tx(struct ns_ring *r)
{
	struct netslice_iov iov[8];
	unsigned int i, n, ok = 1;

	drain_b();
	for (i = 0; i < 8; i++)
		inject((int)i, 60 + i * 100);
	ktap_check(rx_wait(r, 8) == 8 && ns_ring_spin(r, 100000) == 1,
		   "8 frames injected: 8 RX entries, seen by a spin at once");
	n = ns_ring_peek(r, iov, 8);
	for (i = 0; i < n; i++) {
		ok &= iov[i].rlen == 60 + i * 100 && iov[i].wire_len == iov[i].rlen &&
		      iov[i].len == r->setup.frame_size && !iov[i].handle && iov[i].port &&
		      iov[i].ifindex == (__u32)ifindex_a &&
		      (uint8_t *)(uintptr_t)iov[i].base ==
			      r->frames + (size_t)((r->rx_peeked - n + i) & (r->setup.rx_size - 1)) *
						  r->setup.frame_size &&
		      !memcmp(ns_iov_data(&iov[i]), frame((int)i, iov[i].rlen), iov[i].rlen);
	}
	ktap_check(n == 8 && ok, "each entry: its frame's offset, lengths, port, the bytes");
	for (i = 0; i < n; i++)
		iov[i].action = NETSLICE_TX_DEFAULT;
	/* Rewritten in place: the first grows by 4 bytes, the second shrinks. */
	if (n == 8) {
		memcpy(ns_iov_data(&iov[0]), frame(20, 64), 64);
		iov[0].rlen = 64;
		memcpy(ns_iov_data(&iov[1]), frame(21, 100), 100);
		iov[1].rlen = 100;
	}
	ktap_check(ns_ring_send(r, iov, n) == 8, "the 8 frames sent from their RX frames: 8 done");
	ktap_check(poll(&(struct pollfd){ .fd = r->fd, .events = POLLOUT }, 1, 0) == 1,
		   "TX has room and the egress runs: POLLOUT");
	ns_ring_release(r, n);
	ktap_check(ns_ring_spin(r, 1000) == 0, "nothing more: a 1 ms spin ends empty");
	ok = arrives(20, 64) && arrives(21, 100);
	for (i = 2; i < 8; i++)
		ok &= arrives((int)i, 60 + i * 100);
	ktap_check(ok, "all 8 arrive on the peer as sent, two of them rewritten in place");
}

/* Entries that fail alone, each with its error in its completion. */
static void test_bad_entries(struct ns_ring *r)
{
	unsigned char *pool = r->frames + (size_t)r->setup.rx_size * r->setup.frame_size;
	uint64_t pool_off = (uint64_t)r->setup.rx_size * r->setup.frame_size;
	struct netslice_iov *d;
	uint32_t mask = r->setup.tx_size - 1, cprod;
	const struct netslice_ring_comp *c;
	int kicked;

	memcpy(pool, frame(9, 100), 100);
	struct netslice_iov e[5] = {
		{ .base = r->setup.frames_len, .rlen = 100 },		/* past the area */
		{ .base = pool_off, .rlen = 100, .action = 77 },	/* unknown action */
		{ .base = pool_off, .rlen = 10 },			/* too short */
		{ .base = UINT64_MAX - 50, .rlen = 100 },		/* wraps */
		{ .base = pool_off, .rlen = 100 },			/* fine */
	};
	drain_b();
	for (unsigned int i = 0; i < 5; i++) {
		d = &r->tx_desc[(r->tx_prod + i) & mask];
		*d = e[i];
		d->port = 0;
		d->ifindex = (__u32)ifindex_a;
		if (i != 1)
			d->action = NETSLICE_TX_IFINDEX;
	}
	r->tx_prod += 5;
	__atomic_store_n(&r->tx->producer, r->tx_prod, __ATOMIC_RELEASE);
	kicked = ns_ring_kick(r);
	cprod = __atomic_load_n(&r->comp->producer, __ATOMIC_ACQUIRE);
	ktap_check(kicked == 5 && cprod - r->comp_cons == 5, "a kick consumes all 5, bad or not");
	c = &r->comp_desc[r->comp_cons & (r->setup.comp_size - 1)];
	ktap_check(c[0].error == NETSLICE_TXERR_FAULT && c[0].base == r->setup.frames_len,
		   "offset past the frame area: NETSLICE_TXERR_FAULT");
	ktap_check(c[1].error == NETSLICE_TXERR_INVALID, "unknown action: NETSLICE_TXERR_INVALID");
	ktap_check(c[2].error == NETSLICE_TXERR_LENGTH, "10 bytes: NETSLICE_TXERR_LENGTH");
	ktap_check(c[3].error == NETSLICE_TXERR_FAULT, "an offset that wraps: NETSLICE_TXERR_FAULT");
	ktap_check(c[4].error == 0 && arrives(9, 100), "the good entry after them is sent");
	r->comp_cons += 5;
	r->tx_done += 5;
	__atomic_store_n(&r->comp->consumer, r->comp_cons, __ATOMIC_RELEASE);
}

/* A TX producer index rewritten to nonsense: refused, then the ring works again. */
static void test_tx_corruption(struct ns_ring *r)
{
	__atomic_store_n(&r->tx->producer, r->tx_prod + r->setup.tx_size + 5, __ATOMIC_RELEASE);
	ktap_check(ns_ring_kick(r) == -EINVAL, "a TX producer past the ring's size: kick EINVAL");
	__atomic_store_n(&r->tx->producer, r->tx_prod, __ATOMIC_RELEASE);
	ktap_check(ns_ring_kick(r) == 0, "put back: the kick finds nothing to send");
}

/* A 2-entry ring, full, and its consumer index rewritten past the producer. */
static void test_rx_corruption(int fd)
{
	struct netslice_ring_setup setup;
	struct netslice_stats s0, s1;
	struct netslice_cut off;
	struct netslice_iov iov[4];
	struct ns_ring *r;
	unsigned int n;
	int i;

	ns_cut_parse("off", &off);
	ns_cut_set(fd, &off);
	ns_ring_config_default(&setup, 8);
	setup.rx_size = 2;
	if (ns_ring_open(&r, fd, &setup)) {
		ktap_check(0, "a 2-entry ring set up");
		return;
	}
	inject(1, 80);
	inject(2, 80);
	rx_wait(r, 2);
	ns_stats_get(fd, &s0);
	__atomic_store_n(&r->rx->consumer, r->rx_cons + 100000, __ATOMIC_RELEASE);
	inject(3, 80);
	inject(4, 80);
	for (i = 0; i < 100; i++) {
		ns_stats_get(fd, &s1);
		if (s1.rx_drop_ring_full - s0.rx_drop_ring_full >= 2)
			break;
		usleep(10000);
	}
	ktap_check(s1.rx_drop_ring_full - s0.rx_drop_ring_full == 2 &&
		   __atomic_load_n(&r->rx->producer, __ATOMIC_ACQUIRE) - r->rx_cons == 2,
		   "an RX consumer past the producer: the ring counts as full, frames dropped");
	__atomic_store_n(&r->rx->consumer, r->rx_cons, __ATOMIC_RELEASE);
	n = ns_ring_peek(r, iov, 4);
	ns_ring_release(r, n);
	inject(5, 90);
	n = rx_wait(r, 1) ? ns_ring_peek(r, iov, 4) : 0;
	ktap_check(n == 1 && iov[0].rlen == 90, "put back: frames arrive again");
	ns_ring_close(r);
}

/* More TX than the completion ring has room for waits for the reaper. */
static void test_comp_full(struct ns_ring *r)
{
	uint32_t size = r->setup.comp_size, mask = r->setup.tx_size - 1, i;
	int first, second;

	for (i = 0; i < size; i++) {
		struct netslice_iov *d = &r->tx_desc[(r->tx_prod + i) & mask];

		memset(d, 0, sizeof(*d));
		d->action = NETSLICE_TX_DROP;
	}
	r->tx_prod += size;
	__atomic_store_n(&r->tx->producer, r->tx_prod, __ATOMIC_RELEASE);
	first = ns_ring_kick(r);
	/* Completion ring full now: the next entries wait. */
	r->tx_desc[r->tx_prod & mask] = (struct netslice_iov){ .action = NETSLICE_TX_DROP };
	r->tx_prod++;
	__atomic_store_n(&r->tx->producer, r->tx_prod, __ATOMIC_RELEASE);
	second = ns_ring_kick(r);
	ktap_check(first == (int)size && second == 0,
		   "a full completion ring: the kick consumes nothing (%d, %d)", first, second);
	r->comp_cons += size;
	r->tx_done += size;
	__atomic_store_n(&r->comp->consumer, r->comp_cons, __ATOMIC_RELEASE);
	ktap_check(ns_ring_kick(r) == 1, "completions taken: the waiting entry goes");
	r->comp_cons++;
	r->tx_done++;
	__atomic_store_n(&r->comp->consumer, r->comp_cons, __ATOMIC_RELEASE);
}

static void test_cut(struct ns_ring *r)
{
	struct netslice_cut sl;
	struct netslice_iov iov[2];
	unsigned int n;
	__u64 handle;

	ns_cut_parse("fixed:64", &sl);
	ns_cut_set(r->fd, &sl);
	drain_b();
	inject(5, 1000);
	n = rx_wait(r, 1) ? ns_ring_peek(r, iov, 1) : 0;
	ktap_check(n == 1 && iov[0].flags & NETSLICE_RX_CUT && iov[0].rlen == 64 &&
			   iov[0].wire_len == 1000 && iov[0].handle &&
			   !memcmp(ns_iov_data(&iov[0]), frame(5, 64), 64),
		   "cut: 64 header bytes in the frame, a handle, wire_len 1000");
	handle = iov[0].handle;
	iov[0].rlen = 0;
	ktap_check(ns_ring_send(r, iov, 1) == 1 && !iov[0].error && arrives(5, 1000),
		   "the handle sent back: the whole frame arrives intact");
	iov[0].handle = handle;
	ktap_check(ns_ring_send(r, iov, 1) == 1 && iov[0].error == NETSLICE_TXERR_STALE,
		   "the same handle again: NETSLICE_TXERR_STALE");
	ns_ring_release(r, n);
}

/* netslicectl slice set 0 store-timeout MS; whether it worked. */
static bool store_timeout_set(unsigned int ms)
{
	char cmd[96];

	snprintf(cmd, sizeof(cmd), "netslicectl slice set 0 store-timeout %u", ms);
	return !system(cmd);
}

/*
 * The ring's own payload store (rstore.c): a handle twice in one kick,
 * another file writing the ring's handle, ageing, a timeout changed while
 * payloads are parked (TIMEOUTS: main() set a minute's before the ring's
 * first park, so its ageing work sleeps that long), the counters. Leaves
 * one payload parked, for main() to see it freed when the file closes.
 */
static void test_ring_store(struct ns_ring *r, int fd2, bool timeouts)
{
	struct netslice_stats st0, st;
	struct netslice_iov iov[4], w;
	unsigned int i, n;
	int waited;

	ns_stats_get(r->fd, &st0);
	drain_b();
	for (i = 0; i < 4; i++)
		inject(40 + (int)i, 900 + i);
	n = rx_wait(r, 4) == 4 ? ns_ring_peek(r, iov, 4) : 0;
	ns_stats_get(r->fd, &st);
	ktap_check(n == 4 && iov[0].handle && iov[3].handle && st.store_used == 4 &&
			   st.store_high_water >= 4,
		   "4 cut frames: 4 payloads in the ring's store, counted (%llu used)",
		   (unsigned long long)st.store_used);

	/* Another file (read/write mode) writes the ring's handle: not its payload. */
	w = iov[0];
	w.base = (uintptr_t)ns_iov_data(&iov[0]);
	w.rlen = 0;
	w.action = NETSLICE_TX_DEFAULT;
	ktap_check(write(fd2, &w, 1) == -1 && errno == EACCES,
		   "another file writes a ring handle: EACCES (foreign), payload kept");

	/* The same entry twice in one kick: sent once, the second stale. */
	iov[0].rlen = 0;
	iov[1] = iov[0];
	ktap_check(ns_ring_send(r, iov, 2) == 2 && !iov[0].error &&
			   iov[1].error == NETSLICE_TXERR_STALE && arrives(40, 900),
		   "a handle twice in one kick: the frame goes once, then NETSLICE_TXERR_STALE");

	/*
	 * Three left unsent (41's entry became 40's copy) age out once the
	 * timeout is 1 s again: the change wakes the ageing work
	 * (nsl_ring_store_timeout_set()), which would sleep a minute.
	 */
	timeouts = timeouts && store_timeout_set(1000);
	for (waited = 0; waited < 50; waited++) {
		ns_stats_get(r->fd, &st);
		if (st.store_aged - st0.store_aged >= 3)
			break;
		usleep(100000);
	}
	ktap_check(timeouts && st.store_aged - st0.store_aged == 3 && st.store_used == 0,
		   "payloads never written age out of the ring's store, on a timeout cut from 60 s to 1 s while they were parked: 3 aged, none used (%u ms)",
		   waited * 100);
	iov[2].rlen = 0;
	ktap_check(ns_ring_send(r, &iov[2], 1) == 1 && iov[2].error == NETSLICE_TXERR_STALE,
		   "an aged payload's handle: NETSLICE_TXERR_STALE");
	ns_ring_release(r, n);

	/* One more, left parked: freed as the file closes (main()). */
	inject(50, 1000);
	n = rx_wait(r, 1) == 1 ? ns_ring_peek(r, iov, 1) : 0;
	ktap_check(n == 1 && iov[0].handle, "one more parked for the close");
	ns_ring_release(r, n);
}

/* A ring of 2 entries overflows into trimmed records, moved in by a kick. */
static void test_trim(int fd)
{
	struct netslice_ring_setup s;
	struct netslice_iov iov[8];
	struct ns_ring *r;
	unsigned int n, i, trimmed = 0;

	ns_ring_config_default(&s, 8);
	s.rx_size = 2;
	if (ns_ring_open(&r, fd, &s)) {
		ktap_check(0, "a 2-entry ring set up");
		return;
	}
	for (i = 0; i < 5; i++)
		inject((int)i, 300);
	rx_wait(r, 2);
	for (i = 0; i < 100 && !(r->rx->flags & NETSLICE_RING_NEED_WAKEUP); i++)
		usleep(10000);
	ktap_check(r->rx->flags & NETSLICE_RING_NEED_WAKEUP,
		   "records wait: NETSLICE_RING_NEED_WAKEUP in the RX flags");
	n = ns_ring_peek(r, iov, 8);
	ns_ring_release(r, n);
	for (i = 0; i < 3; i++) {
		ns_ring_kick(r);
		n = ns_ring_peek(r, iov, 8);
		for (unsigned int j = 0; j < n; j++)
			trimmed += !!(iov[j].flags & NETSLICE_RX_TRIMMED) && iov[j].wire_len == 300 &&
				   iov[j].rlen == 64;
		ns_ring_release(r, n);
	}
	ktap_check(trimmed == 3 && !(r->rx->flags & NETSLICE_RING_NEED_WAKEUP),
		   "kicks move the 3 records in (%u), the flag clears", trimmed);
	ns_ring_close(r);
}

/* Close with the regions still mapped, then fork: memory stays valid. */
/*
 * One kick while a child keeps the TX ring full of drops and the
 * completion ring drained: the call comes back after a ring's worth, not
 * when the child tires (it stops after 200 rings' worth or 5 s).
 */
static void test_kick_bounded(void)
{
	struct netslice_ring_setup s;
	struct ns_ring *r;
	struct timespec t0, t1;
	int fd, kicked, status;
	volatile uint32_t *go;
	pid_t pid;

	fd = ns_open(0, O_NONBLOCK);
	/* A large ring: the child refills it while the kernel drains it. */
	ns_ring_config_default(&s, 512);
	go = mmap(NULL, sizeof(*go), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (fd < 0 || go == MAP_FAILED || ns_ring_open(&r, fd, &s)) {
		ktap_check(0, "a kick comes back after a ring's worth (no ring)");
		return;
	}
	*go = 0;
	pid = fork();
	if (!pid) {
		uint32_t size = r->setup.tx_size, prod = 0, fed = 0;

		clock_gettime(CLOCK_MONOTONIC, &t0);
		while (fed < 200 * size) {
			uint32_t cons = __atomic_load_n(&r->tx->consumer, __ATOMIC_ACQUIRE);

			while (prod - cons < size) {
				memset(&r->tx_desc[prod & (size - 1)], 0, sizeof(struct netslice_iov));
				r->tx_desc[prod & (size - 1)].action = NETSLICE_TX_DROP;
				prod++;
				fed++;
			}
			__atomic_store_n(&r->tx->producer, prod, __ATOMIC_RELEASE);
			__atomic_store_n(&r->comp->consumer,
					 __atomic_load_n(&r->comp->producer, __ATOMIC_ACQUIRE),
					 __ATOMIC_RELEASE);
			*go = 1;
			clock_gettime(CLOCK_MONOTONIC, &t1);
			if (t1.tv_sec - t0.tv_sec >= 5)
				break;
		}
		_exit(0);
	}
	while (!*go)
		usleep(1000);
	kicked = ns_ring_kick(r);
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	ktap_check(kicked > 0 && kicked <= (int)r->setup.tx_size,
		   "a kick while the ring is refilled comes back after at most a ring's worth "
		   "(%d of %u)", kicked, r->setup.tx_size);
	ns_ring_close(r);
	close(fd);
	munmap((void *)go, sizeof(*go));
}

static void test_lifetime(void)
{
	struct netslice_ring_setup s;
	struct netslice_iov iov;
	struct ns_ring *r;
	int fd, status, i;
	pid_t pid;

	fd = ns_open(0, O_NONBLOCK);
	ns_ring_config_default(&s, 8);
	ktap_check(!ns_ring_open(&r, fd, &s), "a new file sets up once the last ring is gone");
	pid = fork();
	if (!pid) {
		r->frames[0] = 1;
		__atomic_store_n(&r->tx->producer, 12345, __ATOMIC_RELEASE);
		_exit(0);
	}
	waitpid(pid, &status, 0);
	ktap_check(WIFEXITED(status) && r->frames[0] == 1 && r->tx->producer == 12345,
		   "a forked child writes the shared rings");
	close(fd);
	r->frames[r->setup.frames_len - 1] = 7;
	r->rx->consumer = 3;
	ktap_check(r->frames[r->setup.frames_len - 1] == 7,
		   "the file closed, the mapping still works");
	ns_ring_close(r);
	fd = ns_open(0, O_NONBLOCK);
	s.flags = NETSLICE_RING_BUSY_POLL;
	s.busy_poll_us = 50;
	ktap_check(!ns_ring_open(&r, fd, &s), "unmapped and closed: the slice takes a new ring");
	inject(6, 100);
	ktap_check(rx_wait(r, 1) == 1, "with busy polling on, frames arrive");
	/*
	 * The frame named the device's NAPI context (where it has one: A with
	 * GRO on); with the ring empty again, each wait polls that context
	 * (test_io.sh counts the calls of napi_busy_loop).
	 */
	ns_ring_release(r, ns_ring_peek(r, &iov, 1));
	for (i = 0; i < 5; i++)
		ns_ring_wait(r, 1);
	inject(7, 100);
	ktap_check(rx_wait(r, 1) == 1, "and after waits on an empty ring, again");
	ns_ring_close(r);
	close(fd);
}

/* Queue TX entries for broadcast frames of the TX pool until the ring is full. */
static unsigned int tx_fill(struct ns_ring *r, int ifindex, uint32_t *prod)
{
	uint32_t size = r->setup.tx_size, cons = __atomic_load_n(&r->tx->consumer, __ATOMIC_ACQUIRE);
	unsigned int n = 0;

	while (*prod - cons < size) {
		struct netslice_iov *e = &r->tx_desc[*prod & (size - 1)];
		uint64_t base = (uint64_t)(r->setup.rx_size + (*prod & (size - 1))) *
				r->setup.frame_size;

		memcpy(r->frames + base, frame((int)*prod, 100), 100);
		memset(e, 0, sizeof(*e));
		e->base = base;
		e->len = r->setup.frame_size;
		e->rlen = 100;
		e->action = NETSLICE_TX_IFINDEX;
		e->ifindex = (uint32_t)ifindex;
		(*prod)++;
		n++;
	}
	__atomic_store_n(&r->tx->producer, *prod, __ATOMIC_RELEASE);
	return n;
}

/* pid sleeps in poll(2): its state is S and its system call is poll's. */
static int sleeping_in_poll(pid_t pid)
{
	char path[64], buf[256];
	FILE *f;
	long nr = -1;
	char state = 0;

	snprintf(path, sizeof(path), "/proc/%d/syscall", (int)pid);
	f = fopen(path, "r");
	if (f) {
		if (fscanf(f, "%ld", &nr) != 1)
			nr = -1;
		fclose(f);
	}
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "r");
	if (f) {
		if (fgets(buf, sizeof(buf), f) && strrchr(buf, ')'))
			state = strrchr(buf, ')')[2];
		fclose(f);
	}
	return nr == SYS_poll && state == 'S';
}

/* No POLLOUT for a second of polls (each kicks), completions taken. */
static int stays_stopped(struct ns_ring *r, struct pollfd *pfd)
{
	int i;

	for (i = 0; i < 100; i++) {
		usleep(10000);
		__atomic_store_n(&r->comp->consumer,
				 __atomic_load_n(&r->comp->producer, __ATOMIC_ACQUIRE), __ATOMIC_RELEASE);
		if (poll(pfd, 1, 0) != 0)
			return 0;
	}
	return 1;
}

/*
 * Once a kick finds the egress stopped, POLLOUT is withheld; no driver
 * says when the queue wakes, yet a waiter for POLLOUT alone (no frame
 * arrives to wake it for POLLIN), asleep before the queue drains, must
 * learn that it can send again.
 */
static int test_pollout(const char *b, const char *cmd)
{
	struct pollfd pfd = { .events = POLLOUT };
	struct netslice_ring_setup s;
	uint32_t prod = 0;
	unsigned int fed = 0, i;
	struct ns_ring *r;
	int ifindex = (int)if_nametoindex(b), status = -1, asleep = 0;
	double waited = -1;
	int pipefd[2];
	pid_t pid;

	ktap_header("ring_check pollout", 4);
	pfd.fd = ns_open(0, O_NONBLOCK);
	ns_ring_config_default(&s, 256);
	if (pfd.fd < 0 || !ifindex || pipe(pipefd) || ns_ring_open(&r, pfd.fd, &s)) {
		printf("# bail out: no ring on slice 0 for %s\n", b);
		return 2;
	}
	/*
	 * Feed and kick (the completions read at once) until POLLOUT goes
	 * and stays gone for a second of kicks: not a queue the device is
	 * still draining, but one held back by the NIC that does not take.
	 */
	for (i = 0; i < 200; i++) {
		fed += tx_fill(r, ifindex, &prod);
		ns_ring_kick(r);
		__atomic_store_n(&r->comp->consumer,
				 __atomic_load_n(&r->comp->producer, __ATOMIC_ACQUIRE), __ATOMIC_RELEASE);
		if (poll(&pfd, 1, 0) == 0 && stays_stopped(r, &pfd))
			break;
	}
	ktap_check(poll(&pfd, 1, 0) == 0, "the egress stopped: no POLLOUT (%u frames fed, %u queued)",
		   fed, prod - __atomic_load_n(&r->tx->consumer, __ATOMIC_ACQUIRE));
	pid = fork();
	if (!pid) {
		struct timespec t0, t1;
		double dt;
		int n;

		clock_gettime(CLOCK_MONOTONIC, &t0);
		n = poll(&pfd, 1, -1);
		clock_gettime(CLOCK_MONOTONIC, &t1);
		dt = (double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;
		if (n != 1 || !(pfd.revents & POLLOUT))
			dt = -1;
		_exit(write(pipefd[1], &dt, sizeof(dt)) == sizeof(dt) ? 0 : 1);
	}
	/*
	 * Up to 60 s: a sanitizer kernel under emulation is slow to get
	 * there. Where the queue drains by itself first (the far NIC's
	 * stop does not last there), the order this case needs cannot be
	 * made: said, and skipped.
	 */
	for (i = 0; i < 6000; i++) {
		asleep = sleeping_in_poll(pid);
		if (asleep || waitpid(pid, &status, WNOHANG) == pid)
			break;
		usleep(10000);
	}
	if (!asleep && i < 6000) {
		/* It returned before it was seen asleep: a skip only if with POLLOUT. */
		if (read(pipefd[0], &waited, sizeof(waited)) != sizeof(waited) ||
		    !WIFEXITED(status) || WEXITSTATUS(status))
			waited = -1;
		if (waited >= 0) {
			ktap_skip("a waiter for POLLOUT alone sleeps in poll",
				  "the queue drained by itself before the waiter was seen asleep");
			ktap_skip("it wakes with POLLOUT once the egress drains", "as above");
		} else {
			ktap_check(0, "a waiter for POLLOUT alone sleeps in poll (it returned at once, without POLLOUT)");
			ktap_check(0, "it wakes with POLLOUT once the egress drains (as above)");
		}
		if (system(cmd))
			printf("# '%s' failed\n", cmd);
	} else {
		ktap_check(asleep, "a waiter for POLLOUT alone sleeps in poll");
		if (system(cmd))
			printf("# '%s' failed\n", cmd);
		/* Not woken in 10 s: never (nothing else will wake it). */
		if (poll(&(struct pollfd){ .fd = pipefd[0], .events = POLLIN }, 1, 10000) != 1 ||
		    read(pipefd[0], &waited, sizeof(waited)) != sizeof(waited))
			waited = -1;
		kill(pid, SIGKILL);
		waitpid(pid, &status, 0);
		ktap_check(waited >= 0,
			   "it wakes with POLLOUT once the egress drains (%.2f s after it slept)",
			   waited);
	}
	for (i = 0; i < 100 && __atomic_load_n(&r->tx->consumer, __ATOMIC_ACQUIRE) != prod; i++) {
		__atomic_store_n(&r->comp->consumer,
				 __atomic_load_n(&r->comp->producer, __ATOMIC_ACQUIRE), __ATOMIC_RELEASE);
		ns_ring_kick(r);
		poll(&pfd, 1, 100);
	}
	ktap_check(__atomic_load_n(&r->tx->consumer, __ATOMIC_ACQUIRE) == prod,
		   "every queued entry went out (%u)", fed);
	ns_ring_close(r);
	close(pfd.fd);
	return ktap_finish();
}

/* Kick and take completions until the TX ring is empty or tries run out. */
static void tx_drain(struct ns_ring *r, uint32_t prod, unsigned int tries, unsigned int *errs,
		     unsigned int *done)
{
	struct pollfd pfd = { .fd = r->fd, .events = POLLOUT };

	for (;;) {
		uint32_t cp = __atomic_load_n(&r->comp->producer, __ATOMIC_ACQUIRE);
		uint32_t cc = r->comp->consumer;

		for (; cc != cp; cc++, (*done)++)
			if (r->comp_desc[cc & (r->setup.comp_size - 1)].error)
				(*errs)++;
		__atomic_store_n(&r->comp->consumer, cc, __ATOMIC_RELEASE);
		if (__atomic_load_n(&r->tx->consumer, __ATOMIC_ACQUIRE) == prod || !tries--)
			return;
		ns_ring_kick(r);
		poll(&pfd, 1, 10);
	}
}

/*
 * A handle written back to port 0 while the egress is stopped is parked
 * again, and sent on a later kick: still to where its payload came from,
 * the arrival port's pair, though the splice cleared the skb's control
 * block before the driver said busy.
 */
static int test_retry(const char *send_cmd, const char *up_cmd)
{
	unsigned int n = 0, handles = 0, errs = 0, done = 0, idle = 0, i;
	struct netslice_stats st0, st;
	struct netslice_ring_setup s;
	struct netslice_iov iov[64];
	struct netslice_cut cut;
	uint32_t prod = 0;
	struct ns_ring *r;
	int fd;

	ktap_header("ring_check retry", 3);
	fd = ns_open(0, O_NONBLOCK);
	ns_ring_config_default(&s, 512);
	if (fd < 0 || ns_ring_open(&r, fd, &s) || ns_cut_parse("fixed:64", &cut) ||
	    ns_cut_set(fd, &cut) || system(send_cmd)) {
		printf("# bail out: no ring with a cut on slice 0, or '%s' failed\n", send_cmd);
		return 2;
	}
	ns_stats_get(fd, &st0);
	/* The cut frames, each written back as it came: header kept, port 0. */
	while (idle < 20 && prod < r->setup.tx_size) {
		unsigned int got = ns_ring_peek(r, iov, 64);

		if (!got) {
			idle++;
			ns_ring_wait(r, 100);
			continue;
		}
		idle = 0;
		n += got;
		for (i = 0; i < got && prod < r->setup.tx_size; i++) {
			struct netslice_iov *e = &r->tx_desc[prod & (r->setup.tx_size - 1)];

			if (!iov[i].handle)
				continue;
			*e = iov[i];
			e->base -= (uintptr_t)r->frames;
			e->rlen = 0;
			e->port = 0;
			e->ifindex = 0;
			e->action = NETSLICE_TX_DEFAULT;
			prod++;
			handles++;
		}
		ns_ring_release(r, got);
		__atomic_store_n(&r->tx->producer, prod, __ATOMIC_RELEASE);
		ns_ring_kick(r);
	}
	tx_drain(r, prod, 100, &errs, &done);
	ns_stats_get(fd, &st);
	ktap_check(st.tx_busy > st0.tx_busy && done < handles,
		   "B's queue stopped with handles waiting (%u frames read, %u cut, %u done, busy %llu)",
		   n, handles, done, (unsigned long long)(st.tx_busy - st0.tx_busy));
	if (system(up_cmd))
		printf("# '%s' failed\n", up_cmd);
	tx_drain(r, prod, 1000, &errs, &done);
	ns_stats_get(fd, &st);
	ktap_check(done == handles && !errs,
		   "every handle written went out once B drained: %u of %u, %u with an error",
		   done, handles, errs);
	ktap_check(st.tx_spliced - st0.tx_spliced == handles && !st.tx_err_ifindex,
		   "counted as spliced (%llu), none as a bad interface (%llu)",
		   (unsigned long long)(st.tx_spliced - st0.tx_spliced),
		   (unsigned long long)st.tx_err_ifindex);
	ns_ring_close(r);
	close(fd);
	return ktap_finish();
}

int main(int argc, char **argv)
{
	struct netslice_ring_setup good;
	struct netslice_cut sl;
	struct netslice_stats st;
	struct ns_ring *r;
	bool timeouts;
	int fd, fd2;

	if (argc == 4 && !strcmp(argv[1], "pollout"))
		return test_pollout(argv[2], argv[3]);
	if (argc == 4 && !strcmp(argv[1], "retry"))
		return test_retry(argv[2], argv[3]);
	if (argc != 3)
		return 2;
	ifindex_a = (int)if_nametoindex(argv[1]);
	ifindex_b = (int)if_nametoindex(argv[2]);
	sock_b = pkt_open(ifindex_b);
	fd = ns_open(0, O_NONBLOCK);
	fd2 = ns_open(0, O_NONBLOCK);
	if (fd < 0 || fd2 < 0 || !ifindex_a || !ifindex_b || sock_b < 0)
		return 2;

	ktap_header("ring_check", 59);
	ns_ring_config_default(&good, 64);
	test_setup(fd, fd2, good);
	ktap_check(!ns_ring_open(&r, fd, &good) && r->setup.frames_len ==
		   (uint64_t)good.frame_count * good.frame_size, "setup and mmap of the 4 regions");
	ktap_check(r->tx->flags & NETSLICE_RING_NEED_WAKEUP, "TX needs a kick: the flag is set");
	test_exclusions(r, fd2);
	test_rx_tx(r);
	test_bad_entries(r);
	test_tx_corruption(r);
	test_comp_full(r);
	/* The ring's first park (test_cut) starts its ageing work a minute out. */
	timeouts = store_timeout_set(60000);
	test_cut(r);
	ns_stats_get(fd, &st);
	ktap_check(st.read_packets == st.rx_packets && st.read_sliced == 1 && st.tx_spliced == 1 &&
		   st.tx_err_stale == 1 && st.tx_err_fault == 2 && st.tx_err_invalid == 1 &&
		   st.tx_err_length == 1,
		   "counters: every packet queued was delivered; each error counted once");
	test_ring_store(r, fd2, timeouts);
	ns_ring_close(r);
	close(fd);
	ns_stats_get(fd2, &st);
	ktap_check(st.store_closed == 1 && st.store_used == 0 && st.store_high_water >= 4,
		   "the ring's file closed: its parked payload freed, counted as store_closed");
	close(fd2);
	fd = ns_open(0, O_NONBLOCK);
	test_rx_corruption(fd);
	close(fd);
	fd = ns_open(0, O_NONBLOCK);
	ns_cut_parse("fixed:64,trim", &sl);
	ns_cut_set(fd, &sl);
	test_trim(fd);
	close(fd);
	test_kick_bounded();
	test_lifetime();
	return ktap_finish();
}
