// SPDX-License-Identifier: GPL-2.0
/*
 * wake_check A B: wake-ups of slice 0 (load the module with slices=1
 * ifaces=A; B is A's veth peer, not attached), in read mode and in ring
 * mode: what must hold however RX decides whom to wake (issue 40 wants
 * one wake-up per sleep, not one per packet):
 *
 *   - an edge-triggered epoll waiter is woken by every packet that comes
 *     after it emptied the slice, also after a short read (it stops at a
 *     short count, not at EAGAIN) and with the ring consumed in user space
 *     only (no system call between the wake-up and the next sleep);
 *   - a burst to a blocked poll() or read() wakes it, and every packet of
 *     it is there to read;
 *   - ring mode, a packet that arrives after the consumer peeked but
 *     before its release was seen: the look libnetslice takes before
 *     sleeping (ns_ring_can_sleep()) finds it; poll() and level-triggered
 *     epoll return for it at once; an edge-triggered waiter that sleeps
 *     without looking is woken by the next burst (issue 61: it slept for
 *     good when only each call's own entries counted).
 *
 * Frames are injected on B.
 */
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "netslice.h"
#include "ktap.h"
#include "pkt.h"

#define ROUNDS		5
#define BURST		32
#define WAIT_MS		3000

static int sock_b, stats_fd;
static unsigned char frame_buf[2048];

/* Packets the slice queued (read mode or ring), from any file of it. */
static __u64 queued(void)
{
	return slice_stat(stats_fd, offsetof(struct netslice_stats, rx_packets));
}

/*
 * Send count frames on B and wait (up to 5 s) until the slice queued them
 * all: a drain after this finds every one, however slow the guest.
 */
static void inject(int tag, unsigned int count)
{
	__u64 want = queued() + count;
	unsigned int i;

	for (i = 0; i < count; i++)
		if (send(sock_b, pkt_tag_frame(frame_buf, tag + (int)i, 128), 128, 0) != 128)
			exit(2);
	for (i = 0; i < 5000 && queued() < want; i++)
		usleep(1000);
}

/* An epoll instance watching fd edge-triggered for input. */
static int epoll_et(int fd)
{
	struct epoll_event ev = { .events = EPOLLIN | EPOLLET };
	int ep = epoll_create1(0);

	if (ep < 0 || epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev))
		exit(2);
	return ep;
}

static int epoll_woken(int ep)
{
	struct epoll_event ev;

	return epoll_wait(ep, &ev, 1, WAIT_MS) == 1 && (ev.events & EPOLLIN);
}

/* One read of up to n packets into bufs; returns the count or -errno. */
static int read_some(int fd, unsigned int n)
{
	static unsigned char bufs[BURST][2048];
	struct netslice_iov iov[BURST];
	unsigned int i;
	ssize_t r;

	for (i = 0; i < n && i < BURST; i++)
		iov_for(&iov[i], bufs[i], sizeof(bufs[i]));
	r = read(fd, iov, i);
	return r < 0 ? -errno : (int)r;
}

/* How a round empties the slice: returns the packets taken, or -1 to stop. */
typedef int (*drain_fn)(int fd, void *ring);

/*
 * Edge-triggered rounds: each injects 3 frames, waits for the edge and
 * empties the slice with drain. Returns the rounds woken; *got the
 * packets taken.
 */
static int et_rounds(int fd, drain_fn drain, void *ring, int *got)
{
	int ep = epoll_et(fd), round, n;

	*got = 0;
	for (round = 0; round < ROUNDS; round++) {
		inject(round * 100, 3);
		if (!epoll_woken(ep))
			break;
		n = drain(fd, ring);
		if (n < 0)
			break;
		*got += n;
	}
	close(ep);
	return round;
}

static int drain_until_eagain(int fd, void *ring)
{
	int n, got = 0;

	(void)ring;
	while ((n = read_some(fd, 1)) > 0)
		got += n;
	return n == -EAGAIN ? got : -1;
}

/* One read that returns short: the reader never sees EAGAIN. */
static int drain_short_read(int fd, void *ring)
{
	int n = read_some(fd, BURST);

	(void)ring;
	return n > 0 ? n : -1;
}

/* Ring mode: consumed in user space only, no system call. */
static int drain_ring(int fd, void *ring)
{
	struct netslice_iov iov[BURST];
	unsigned int n;
	int got = 0;

	(void)fd;
	while ((n = ns_ring_peek(ring, iov, BURST)) > 0) {
		got += (int)n;
		ns_ring_release(ring, n);
	}
	return got;
}

static void test_read_et(int fd, int short_read)
{
	int got, woken = et_rounds(fd, short_read ? drain_short_read : drain_until_eagain, NULL,
				   &got);

	ktap_check(woken == ROUNDS && got == 3 * ROUNDS,
		   "read mode, EPOLLET, %s: woken each round (%d of %d), every packet read (%d)",
		   short_read ? "a short read each time" : "read until EAGAIN", woken, ROUNDS,
		   got);
}

static void test_ring_et(int fd)
{
	struct netslice_ring_setup setup;
	struct ns_ring *r;
	int got, woken;

	ns_ring_config_default(&setup, BURST);
	if (ns_ring_open(&r, fd, &setup)) {
		ktap_check(0, "ring mode, EPOLLET: ring setup failed: %s", strerror(errno));
		return;
	}
	woken = et_rounds(fd, drain_ring, r, &got);
	ktap_check(woken == ROUNDS && got == 3 * ROUNDS,
		   "ring mode, EPOLLET, consumed without a system call: woken each round (%d of %d), every packet there (%d)",
		   woken, ROUNDS, got);
	ns_ring_close(r);
}

enum waiter { WAIT_EPOLLET, WAIT_EPOLL_LT, WAIT_POLL };

/* Did a wait of ms on fd (by how) end with input? */
static int waited_in(enum waiter how, int ep, int fd, int ms)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	struct epoll_event ev;

	if (how == WAIT_POLL)
		return poll(&pfd, 1, ms) == 1 && (pfd.revents & POLLIN);
	return epoll_wait(ep, &ev, 1, ms) == 1 && (ev.events & EPOLLIN);
}

/*
 * Ring mode, by waiter: each round a packet comes while the consumer
 * holds the one it was woken for, before its release. libnetslice's look
 * before sleeping must find it; a waiter that sleeps anyway must be woken
 * by poll/level-triggered epoll at once, and by the next burst of 3 for
 * an edge-triggered epoll. Every packet is then there.
 */
static void test_ring_release_race(enum waiter how)
{
	static const char *const names[] = { "edge-triggered epoll", "level-triggered epoll",
					     "poll()" };
	struct epoll_event ev = { .events = EPOLLIN | (how == WAIT_EPOLLET ? EPOLLET : 0) };
	struct netslice_ring_setup setup;
	struct netslice_iov iov[BURST];
	int fd = ns_open(0, O_NONBLOCK), ep = epoll_create1(0);
	int round, first = 0, seen = 0, woken = 0, got = 0;
	struct ns_ring *r;
	unsigned int n;

	ns_ring_config_default(&setup, BURST);
	if (fd < 0 || ep < 0 || epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev) ||
	    ns_ring_open(&r, fd, &setup)) {
		ktap_check(0, "ring mode, %s, a packet before the release: setup failed: %s",
			   names[how], strerror(errno));
		goto out;
	}
	for (round = 0; round < ROUNDS; round++) {
		inject(7000 + round * 10, 1);
		if (!waited_in(how, ep, fd, WAIT_MS))
			break;
		first++;
		n = ns_ring_peek(r, iov, BURST);
		got += (int)n;
		/* One more while the consumer holds what it was woken for. */
		inject(7001 + round * 10, 1);
		ns_ring_release(r, n);
		seen += !ns_ring_can_sleep(r);
		if (how == WAIT_EPOLLET) {
			/* Sleeps without looking: the next burst must wake it. */
			inject(7002 + round * 10, 3);
			woken += waited_in(how, ep, fd, WAIT_MS);
		} else {
			woken += waited_in(how, ep, fd, WAIT_MS);
		}
		while ((n = ns_ring_peek(r, iov, BURST)) > 0) {
			got += (int)n;
			ns_ring_release(r, n);
		}
		if (!ns_ring_can_sleep(r))
			break;
	}
	ktap_check(first == ROUNDS && seen == ROUNDS && woken == ROUNDS &&
		   got == ROUNDS * (how == WAIT_EPOLLET ? 5 : 2),
		   "ring mode, %s, a packet before the release: woken for the first (%d of %d), found by ns_ring_can_sleep() (%d), %s (%d), every packet there (%d)",
		   names[how], first, ROUNDS, seen,
		   how == WAIT_EPOLLET ? "woken by the next burst" : "returned at once", woken,
		   got);
	ns_ring_close(r);
out:
	if (ep >= 0)
		close(ep);
	if (fd >= 0)
		close(fd);
}

struct sleeper {
	int fd;
	int use_read;	/* a blocking read(), else poll() */
	int result;	/* poll()'s or read()'s return */
	volatile int tid, done;
};

/* Thread tid of this process sleeps (state S in its stat). */
static int thread_asleep(int tid)
{
	char path[64], buf[256], *p;
	FILE *f;
	int n;

	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", tid);
	f = fopen(path, "r");
	if (!f)
		return 0;
	n = (int)fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n > 0 ? n : 0] = 0;
	p = strrchr(buf, ')');
	return p && p[1] == ' ' && p[2] == 'S';
}

static void *sleeper_run(void *arg)
{
	struct sleeper *s = arg;
	struct pollfd pfd = { .fd = s->fd, .events = POLLIN };

	s->tid = (int)syscall(SYS_gettid);
	s->result = s->use_read ? read_some(s->fd, BURST) : poll(&pfd, 1, WAIT_MS * 2);
	s->done = 1;
	return NULL;
}

static void on_usr1(int sig)
{
	(void)sig;
}

/*
 * A burst while a thread sleeps in poll() or read() on fd: it wakes, all
 * is there (the rest read from the non-blocking drain).
 */
static void test_burst(int fd, int drain, int use_read)
{
	struct sleeper s = { .fd = fd, .use_read = use_read };
	pthread_t t;
	int got, n;

	if (pthread_create(&t, NULL, sleeper_run, &s))
		exit(2);
	/* Asleep in the kernel, not just started: the burst finds it waiting. */
	for (n = 0; n < 5000 && !(s.tid && thread_asleep(s.tid)); n++)
		usleep(1000);
	inject(5000, BURST);
	for (n = 0; n < WAIT_MS * 2 && !s.done; n++)
		usleep(1000);
	/* Not woken: interrupt the read (EINTR), which fails the check. */
	if (!s.done)
		pthread_kill(t, SIGUSR1);
	pthread_join(t, NULL);
	got = use_read ? (s.result > 0 ? s.result : 0) : 0;
	if (!use_read && s.result != 1)
		got = -1;
	while (got >= 0 && (n = read_some(drain, BURST)) > 0)
		got += n;
	ktap_check(got == BURST, "a burst of %d to a thread asleep in %s: it wakes, %d read",
		   BURST, use_read ? "read()" : "poll()", got);
}

int main(int argc, char **argv)
{
	int fd, blocking;

	struct sigaction sa = { .sa_handler = on_usr1 };

	if (argc != 3)
		return 2;
	/* No SA_RESTART: a read() the test gives up on returns. */
	sigaction(SIGUSR1, &sa, NULL);
	sock_b = pkt_open((int)if_nametoindex(argv[2]));
	fd = ns_open(0, O_NONBLOCK);
	blocking = ns_open(0, 0);
	stats_fd = ns_open(0, O_NONBLOCK);
	if (sock_b < 0 || fd < 0 || blocking < 0 || stats_fd < 0 || !if_nametoindex(argv[1]))
		return 2;

	ktap_header("wake_check", 9);
	test_read_et(fd, 0);
	test_read_et(fd, 1);
	test_burst(fd, fd, 0);
	test_burst(blocking, fd, 1);
	close(blocking);
	test_ring_et(fd);
	close(fd);
	test_ring_release_race(WAIT_EPOLLET);
	test_ring_release_race(WAIT_EPOLL_LT);
	test_ring_release_race(WAIT_POLL);
	/* The rings' files closed: read mode on a new file, as armed as the rings left it. */
	fd = ns_open(0, O_NONBLOCK);
	if (fd < 0)
		return 2;
	test_read_et(fd, 0);
	close(fd);
	return ktap_finish();
}
