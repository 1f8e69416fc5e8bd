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
 *   - a thread asleep (seen so in /proc) in a blocking read(), poll(),
 *     level-triggered epoll, ns_ring_wait() or an edge-triggered epoll
 *     that takes nothing is woken once by a burst (its sched_wakeup
 *     events counted, test_sleeper()), and every packet is there;
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
#include <limits.h>
#include <linux/perf_event.h>
#include <net/if.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <time.h>
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

/* ---- A sleeper's wake-ups, as the scheduler counts them ---- */

/*
 * The wake-ups of a thread are the sched:sched_wakeup events that name
 * it, whoever wakes it (here the softirq that queues a packet, on any
 * CPU). A perf counter on that tracepoint attached to the thread counts
 * them: the tracepoint names the woken task (__perf_task()), and perf
 * delivers the event to that task's counters too, but only to those
 * bound to the CPU the wake-up runs on (perf_tp_event(): one with cpu -1
 * would miss them). So one counter per CPU, summed. Such a counter also
 * counts every wake-up that happens while the thread runs (the ones it
 * does, and interrupts' on its CPU): the filter "pid == TID" keeps only
 * the thread's own. A wake-up of a thread that is running is no event:
 * only a sleep ended counts.
 */
#define MAX_CPUS	256

struct wakeups {
	int fd[MAX_CPUS];
	int n;
	int state;	/* 1 counting; 0 not possible in this kernel (a skip); -1 failed */
	char why[256];
};

/* The id of sched:sched_wakeup in tracefs (mounted if need be), or -1 (why says). */
static long sched_wakeup_id(char *why, size_t len)
{
	static const char *const files[] = {
		"/sys/kernel/tracing/events/sched/sched_wakeup/id",
		"/sys/kernel/debug/tracing/events/sched/sched_wakeup/id",
	};
	char mounted[64] = "not tried";
	unsigned int try, i;
	long id;
	FILE *f;

	for (try = 0; try < 2; try++) {
		for (i = 0; i < 2; i++) {
			f = fopen(files[i], "r");
			if (!f)
				continue;
			if (fscanf(f, "%ld", &id) != 1)
				id = -1;
			fclose(f);
			if (id >= 0)
				return id;
		}
		if (!try)
			snprintf(mounted, sizeof(mounted), "%s",
				 mount("nodev", "/sys/kernel/tracing", "tracefs", 0, NULL) ?
				 strerror(errno) : "mounted, no such event");
	}
	snprintf(why, len, "no tracefs event sched/sched_wakeup (%s, %s; mounting tracefs: %s)",
		 files[0], files[1], mounted);
	return -1;
}

static void wakeups_open(struct wakeups *w, int tid)
{
	struct perf_event_attr attr = { .type = PERF_TYPE_TRACEPOINT, .size = sizeof(attr) };
	long id = sched_wakeup_id(w->why, sizeof(w->why)), cpus = sysconf(_SC_NPROCESSORS_CONF);
	const char *op = "";
	char filter[32];
	int cpu, fd, err;

	w->n = 0;
	w->state = 0;
	if (id < 0)
		return;
	attr.config = (__u64)id;
	snprintf(filter, sizeof(filter), "pid == %d", tid);
	for (cpu = 0; cpu < cpus && cpu < MAX_CPUS; cpu++) {
		fd = (int)syscall(SYS_perf_event_open, &attr, tid, cpu, -1, PERF_FLAG_FD_CLOEXEC);
		if (fd < 0 && errno == ENODEV)	/* that CPU is offline */
			continue;
		if (fd < 0) {
			op = "perf_event_open";
			break;
		}
		w->fd[w->n++] = fd;
		if (ioctl(fd, PERF_EVENT_IOC_SET_FILTER, filter)) {
			op = "PERF_EVENT_IOC_SET_FILTER";
			break;
		}
	}
	if (cpu >= cpus && w->n) {
		w->state = 1;
		return;
	}
	err = cpu < cpus ? errno : ENODEV;
	while (w->n)
		close(w->fd[--w->n]);
	/* No perf events, or none for tracepoints: not countable here. Else a failure. */
	w->state = err == ENOSYS || err == ENOENT || err == EOPNOTSUPP ? 0 : -1;
	snprintf(w->why, sizeof(w->why), "%s(sched:sched_wakeup, thread %d, CPU %d): %s", op, tid,
		 cpu, strerror(err));
}

/* The wake-ups counted so far, or -1. */
static long long wakeups_read(struct wakeups *w)
{
	long long sum = 0;
	__u64 v;
	int i;

	if (w->state <= 0)
		return -1;
	for (i = 0; i < w->n; i++) {
		if (read(w->fd[i], &v, sizeof(v)) != sizeof(v))
			return -1;
		sum += (long long)v;
	}
	return sum;
}

static void wakeups_close(struct wakeups *w)
{
	while (w->n)
		close(w->fd[--w->n]);
}

/* ---- A thread asleep in a wait, then packets ---- */

enum how { BY_READ, BY_POLL, BY_EPOLL_LT, BY_EPOLL_ET, BY_RING_WAIT };

static const char *const how_names[] = {
	[BY_READ] = "a blocking read()",
	[BY_POLL] = "poll()",
	[BY_EPOLL_LT] = "level-triggered epoll",
	[BY_EPOLL_ET] = "edge-triggered epoll that takes nothing",
	[BY_RING_WAIT] = "ns_ring_wait()",
};

#define ANY_ARG		(~0UL)

struct sleeper {
	enum how how;
	int fd, ep;
	struct ns_ring *ring;
	long nr, nr2;			/* the system call it sleeps in */
	volatile unsigned long arg;	/* its first argument (ANY_ARG: not checked) */
	int nread;			/* BY_READ: the packets its read() took */
	volatile int tid, returns, ready, stop, ended;	/* ready: calls returned with input */
};

/* One wait of s: 1 if it returned with input. No timeout: only input or a signal ends it. */
static int sleeper_wait(struct sleeper *s)
{
	static unsigned char bufs[BURST][2048];
	struct pollfd pfd = { .fd = s->fd, .events = POLLIN };
	struct netslice_iov iov[BURST];
	struct epoll_event ev;
	unsigned int i;
	long r;

	switch (s->how) {
	case BY_READ:
		for (i = 0; i < BURST; i++)
			iov_for(&iov[i], bufs[i], sizeof(bufs[i]));
		r = syscall(SYS_read, s->fd, iov, BURST);
		if (r > 0)
			s->nread += (int)r;
		return r > 0;
	case BY_POLL:
		s->arg = (unsigned long)&pfd;
		r = syscall(SYS_ppoll, &pfd, 1, NULL, NULL, 0);
		return r == 1 && (pfd.revents & POLLIN);
	case BY_EPOLL_LT:
	case BY_EPOLL_ET:
		r = syscall(SYS_epoll_pwait, s->ep, &ev, 1, -1, NULL, 0);
		return r == 1 && (ev.events & EPOLLIN);
	case BY_RING_WAIT:
		return ns_ring_wait(s->ring, -1) == 1;
	}
	return 0;
}

static void *sleeper_run(void *arg)
{
	struct sleeper *s = arg;
	int in;

	s->tid = (int)syscall(SYS_gettid);
	while (!s->stop) {
		in = sleeper_wait(s);
		if (s->stop)
			break;
		s->ready += in;
		s->returns++;
		/* The edge-triggered waiter sleeps again at once, holding all. */
		if (s->how != BY_EPOLL_ET)
			break;
	}
	/*
	 * Running from here on, never asleep (sched_yield() does not sleep):
	 * a wake-up counted before the main thread stops it is the wait's.
	 */
	while (!s->stop)
		sched_yield();
	s->ended = 1;
	return NULL;
}

/* Into buf (NUL-terminated, newline cut), the start of a small file. */
static void read_small(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	size_t n = f ? fread(buf, 1, len - 1, f) : 0;

	if (f)
		fclose(f);
	buf[n] = 0;
	buf[strcspn(buf, "\n")] = 0;
	if (!f)
		snprintf(buf, len, "(%s: %s)", path, strerror(errno));
}

/*
 * Is s asleep in its wait? /proc's syscall file names the call only once
 * the thread is off its CPU and dequeued (it waits for that and says
 * "running" otherwise): from then on only a wake-up gets it out, and the
 * counter sees that one. The state must be S, interruptible: the wait,
 * not a page fault. where says what was seen.
 */
static int asleep_in(struct sleeper *s, char *where, size_t len)
{
	char path[64], sc[256], st[512], wchan[64], *p;
	unsigned long a0 = 0;
	long nr = -1;
	char state;
	int in_call;

	snprintf(path, sizeof(path), "/proc/self/task/%d/syscall", s->tid);
	read_small(path, sc, sizeof(sc));
	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", s->tid);
	read_small(path, st, sizeof(st));
	snprintf(path, sizeof(path), "/proc/self/task/%d/wchan", s->tid);
	read_small(path, wchan, sizeof(wchan));
	p = strrchr(st, ')');
	state = p && p[1] == ' ' ? p[2] : '?';
	in_call = sscanf(sc, "%ld %lx", &nr, &a0) == 2 && (nr == s->nr || nr == s->nr2) &&
		  (s->arg == ANY_ARG || a0 == s->arg);
	sc[strcspn(sc, " ")] = 0;
	snprintf(where, len, "state %c, system call %.40s (want %ld), wchan %.60s", state, sc, s->nr,
		 wchan);
	return state == 'S' && in_call;
}

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

/* Deadlines that only bound a failing run: as lib.sh's, 30 s times NETSLICE_TIMEOUT_SCALE. */
static long long deadline(void)
{
	const char *scale = getenv("NETSLICE_TIMEOUT_SCALE");
	int k = scale ? atoi(scale) : 1;

	return now_ms() + 30000LL * (k > 0 ? k : 1);
}

/*
 * Wait until s has returned from its wait at least min times, at most max
 * times, and is asleep in it (again): 1 then, 0 at the deadline or past
 * max (where says why). *count: the wake-ups read just before it was
 * seen asleep, so that every later one is counted after it.
 */
static int wait_asleep(struct sleeper *s, int min, int max, struct wakeups *w, long long *count,
		       char *where, size_t len)
{
	long long end = deadline();
	int r;

	for (;;) {
		if (count)
			*count = wakeups_read(w);
		r = s->returns;
		if (r > max) {
			snprintf(where, len, "its wait returned %d time(s), %d with input", r,
				 s->ready);
			return 0;
		}
		if (r >= min && asleep_in(s, where, len))
			return 1;
		if (now_ms() > end) {
			if (r < min)
				snprintf(where, len, "its wait returned %d time(s) of %d", r, min);
			return 0;
		}
		usleep(1000);
	}
}

/*
 * A thread waiting by how on fd (in mode), seen asleep in its wait
 * (asleep_in()) before any packet comes, with no timeout (a timer would
 * wake it too: a wait that never ends is stopped, and fails, after the
 * count was read), then BURST packets: the
 * uapi's rule ("Wake-ups", both modes) is one wake-up for the sleep, not
 * one per packet, and every packet there. Counted: its sched_wakeup events
 * from when it was seen asleep to when it is told to stop (the signal
 * that stops a waiter still asleep comes after the count). Not seen
 * asleep, or seen to return before the packets, is a failure.
 *
 * A waiter that returns once woken (read, poll, level-triggered epoll,
 * ns_ring_wait()) is woken once however many wake-ups the kernel sends:
 * the later ones find it running. Its count says it slept until the
 * burst and no spurious wake-up came within the wait. One wake-up per
 * packet shows with a waiter that sleeps again without asking for a
 * wake-up: edge-triggered epoll that takes nothing (read mode: no read
 * came short; ring mode: it holds every entry it was woken for). It gets
 * the packets one at a time, each once it is seen asleep again, so a
 * wake-up for any of them is counted.
 */
static void test_sleeper(const char *mode, enum how how, int fd, int drain, struct ns_ring *ring)
{
	struct sleeper s = { .how = how, .fd = fd, .ep = -1, .ring = ring, .arg = ANY_ARG };
	struct epoll_event ev = { .events = EPOLLIN | (how == BY_EPOLL_ET ? EPOLLET : 0) };
	long long c0 = -1, c1 = -1, end;
	struct netslice_iov iov[BURST];
	char where[320] = "", name[128];
	int asleep, again = 1, got, n, i;
	struct wakeups w;
	pthread_t t;

	snprintf(name, sizeof(name), "%s, %s", mode, how_names[how]);
	switch (how) {
	case BY_READ:
		s.nr = s.nr2 = SYS_read;
		s.arg = (unsigned long)fd;
		break;
	case BY_POLL:
		s.nr = s.nr2 = SYS_ppoll;
		s.arg = 0;	/* its pollfd's address, once it is there */
		break;
	case BY_EPOLL_LT:
	case BY_EPOLL_ET:
		s.nr = s.nr2 = SYS_epoll_pwait;
		s.ep = epoll_create1(0);
		if (s.ep < 0 || epoll_ctl(s.ep, EPOLL_CTL_ADD, fd, &ev))
			exit(2);
		s.arg = (unsigned long)s.ep;
		break;
	case BY_RING_WAIT:
		/* libc's poll() */
		s.nr = SYS_ppoll;
#ifdef SYS_poll
		s.nr2 = SYS_poll;
#else
		s.nr2 = SYS_ppoll;
#endif
		break;
	}
	if (pthread_create(&t, NULL, sleeper_run, &s))
		exit(2);
	while (!s.tid)
		usleep(100);
	wakeups_open(&w, s.tid);
	asleep = wait_asleep(&s, 0, 0, &w, &c0, where, sizeof(where));
	if (asleep && how == BY_EPOLL_ET) {
		for (i = 0; i < BURST && again; i++) {
			inject(6000 + i, 1);
			/* Woken by the first: back asleep, holding it, before the next. */
			again = wait_asleep(&s, 1, INT_MAX, &w, NULL, where, sizeof(where));
		}
		if (!again)
			snprintf(where + strlen(where), sizeof(where) - strlen(where),
				 ", after packet %d", i);
	} else if (asleep) {
		inject(6000, BURST);
		for (end = deadline(); !s.returns && now_ms() < end;)
			usleep(1000);
	}
	c1 = wakeups_read(&w);
	s.stop = 1;
	while (!s.ended) {
		pthread_kill(t, SIGUSR1);
		usleep(1000);
	}
	pthread_join(t, NULL);
	wakeups_close(&w);
	if (s.ep >= 0)
		close(s.ep);
	got = s.nread;
	if (ring) {
		while ((n = (int)ns_ring_peek(ring, iov, BURST)) > 0) {
			got += n;
			ns_ring_release(ring, (unsigned int)n);
		}
	} else {
		while ((n = read_some(drain, BURST)) > 0)
			got += n;
	}

	if (!asleep) {
		ktap_check(0, "%s: not seen asleep in its wait before the packets: %s", name, where);
		return;
	}
	if (w.state == 0 && again && s.returns == 1 && s.ready == 1 && got == BURST) {
		ktap_skip(name, w.why);
		return;
	}
	ktap_check(w.state > 0 && c0 >= 0 && c1 - c0 == 1 && again && s.returns == 1 &&
		   s.ready == 1 && got == BURST,
		   "%s, asleep, then %s: woken %lld time(s) (want 1)%s%s, its wait returned %d time(s), %d with input; every packet there (%d of %d)",
		   name, how == BY_EPOLL_ET ? "packets one at a time, each once it slept again" :
		   "a burst", c0 >= 0 && c1 >= 0 ? c1 - c0 : -1LL,
		   w.state > 0 ? "" : ", not counted: ", w.state > 0 ? "" : w.why, s.returns,
		   s.ready, got, BURST);
	if (!again)
		printf("# %s: not seen asleep again: %s\n", name, where);
}

/* The same in ring mode, on a file of its own. */
static void test_ring_sleepers(void)
{
	static const enum how hows[] = { BY_POLL, BY_EPOLL_LT, BY_RING_WAIT, BY_EPOLL_ET };
	struct netslice_ring_setup setup;
	int fd = ns_open(0, O_NONBLOCK), err = fd < 0 ? -errno : 0;
	struct ns_ring *r = NULL;
	unsigned int i;

	ns_ring_config_default(&setup, BURST);
	if (!err)
		err = ns_ring_open(&r, fd, &setup);
	for (i = 0; i < sizeof(hows) / sizeof(hows[0]); i++) {
		if (err)
			ktap_check(0, "ring mode, %s: setup failed: %s", how_names[hows[i]],
				   strerror(-err));
		else
			test_sleeper("ring mode", hows[i], fd, -1, r);
	}
	ns_ring_close(r);
	if (fd >= 0)
		close(fd);
}

static void on_usr1(int sig)
{
	(void)sig;
}

int main(int argc, char **argv)
{
	int fd, blocking;

	struct sigaction sa = { .sa_handler = on_usr1 };

	if (argc != 3)
		return 2;
	/* No SA_RESTART: a wait the test stops returns (EINTR). */
	sigaction(SIGUSR1, &sa, NULL);
	sock_b = pkt_open((int)if_nametoindex(argv[2]));
	fd = ns_open(0, O_NONBLOCK);
	blocking = ns_open(0, 0);
	stats_fd = ns_open(0, O_NONBLOCK);
	if (sock_b < 0 || fd < 0 || blocking < 0 || stats_fd < 0 || !if_nametoindex(argv[1]))
		return 2;

	ktap_header("wake_check", 15);
	test_read_et(fd, 0);
	test_read_et(fd, 1);
	test_sleeper("read mode", BY_READ, blocking, fd, NULL);
	test_sleeper("read mode", BY_POLL, fd, fd, NULL);
	test_sleeper("read mode", BY_EPOLL_LT, fd, fd, NULL);
	test_sleeper("read mode", BY_EPOLL_ET, fd, fd, NULL);
	close(blocking);
	test_ring_et(fd);
	close(fd);
	test_ring_sleepers();
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
