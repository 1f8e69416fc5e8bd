// SPDX-License-Identifier: GPL-2.0
/*
 * nsfuzz device threads: read, write, ioctl, poll, close and reopen on the
 * shared slice files, with random and adversarial arguments. Every call
 * must fail cleanly or keep the ABI's promises (uapi/linux/netslice.h);
 * a broken promise is a failure, a kernel report is the runner's to find.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <linux/netslice.h>

#include "fuzz.h"

#define KERNEL_PTR	((void *)0xffffffff81000000ULL)

struct dev_thread {
	struct fz_rng rng;
	struct netslice_iov *iov;	/* FZ_IOVS entries, the last ones against a guard page */
	unsigned char *data;		/* FZ_DATA bytes of packet buffers */
	unsigned char *arg;		/* ioctl argument area (16 KiB) */
	unsigned int last_read;		/* iovs of the last successful read */
	int last_slot;
	struct fz_ring_maps ring;
};

/* Places the array so that its end touches fz.guard-like protection. */
static void *alloc_guarded(size_t len)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	size_t span = (len + page - 1) / page * page;
	unsigned char *m = mmap(NULL, span + page, PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (m == MAP_FAILED)
		return NULL;
	mprotect(m + span, page, PROT_NONE);
	return m + span - len;
}

/* An address for a buffer: mostly valid, sometimes not at all. */
static uint64_t pick_base(struct dev_thread *t, uint32_t len)
{
	switch (fz_below(&t->rng, 20)) {
	case 0: return 0;
	case 1: return (uintptr_t)fz.guard;
	case 2: return (uintptr_t)fz.rdonly;
	case 3: return (uintptr_t)KERNEL_PTR;
	case 4: return (uintptr_t)fz.guard - fz_below(&t->rng, 64);	/* runs into it */
	default:
		/* Anywhere in the area: unaligned, overlapping other iovs. */
		if (len >= FZ_DATA)
			return (uintptr_t)t->data;
		return (uintptr_t)(t->data + fz_below(&t->rng, FZ_DATA - len + 1));
	}
}

static uint32_t pick_len(struct fz_rng *r)
{
	static const uint32_t lens[] = { 0, 1, 13, 14, 42, 60, 64, 128, 512,
					 1514, 1518, 2048, 9000, 65535, UINT32_MAX };

	return fz_chance(r, 70) ? lens[fz_below(r, sizeof(lens) / sizeof(lens[0]))]
				: (uint32_t)fz_next(r);
}

/* An iov count: around the batch limits, and absurd. */
static size_t pick_count(struct fz_rng *r)
{
	static const size_t counts[] = { 0, 1, 2, 3, 16, 64, 1023, 1024, 1025,
					 FZ_IOVS, 1 << 20, (size_t)1 << 40, SIZE_MAX };

	return fz_chance(r, 50) ? 1 + fz_below(r, 64)
				: counts[fz_below(r, sizeof(counts) / sizeof(counts[0]))];
}

/* The iov array pointer: mostly ours (its end against a guard page). */
static struct netslice_iov *pick_iov(struct dev_thread *t, size_t n)
{
	switch (fz_below(&t->rng, 25)) {
	case 0: return NULL;
	case 1: return fz.guard;
	case 2: return fz.rdonly;
	case 3: return KERNEL_PTR;
	case 4: return (void *)((char *)t->iov + 1 + fz_below(&t->rng, 7));	/* unaligned */
	default:
		/* Large counts start near the end, to run into the guard page. */
		if (n > FZ_IOVS)
			return t->iov + FZ_IOVS - 1 - fz_below(&t->rng, 8);
		return t->iov + fz_below(&t->rng, (unsigned int)(FZ_IOVS - n + 1));
	}
}

/* Pointers no call may succeed with (pick_iov's first four). */
static bool iov_bad(const struct netslice_iov *iov)
{
	return !iov || (void *)iov == fz.guard || (void *)iov == fz.rdonly ||
	       (void *)iov == KERNEL_PTR;
}

/* How many iovs at @iov this thread may fill: aligned ones in its array. */
static size_t iov_room(const struct dev_thread *t, const struct netslice_iov *iov, size_t n)
{
	size_t room;

	if ((const char *)iov < (const char *)t->iov ||
	    (const char *)iov >= (const char *)(t->iov + FZ_IOVS) ||
	    ((uintptr_t)iov - (uintptr_t)t->iov) % sizeof(*iov))
		return 0;
	room = (size_t)(t->iov + FZ_IOVS - iov);
	return room < n ? room : n;
}

static int slot_fd(struct dev_thread *t, int *slot)
{
	*slot = (int)fz_below(&t->rng, FZ_FDS);
	return atomic_load(&fz.fds[*slot]);
}

void fz_remember_handle(struct fz_rng *r, uint64_t h, int slot)
{
	struct fz_handle *e = &fz.handles[fz_below(r, FZ_HANDLES)];

	atomic_store(&e->handle, h);
	atomic_store(&e->slot, slot);
}

void fz_check_rx_iov(const struct netslice_iov *v, size_t i)
{
	const uint16_t known = NETSLICE_RX_TRUNCATED | NETSLICE_RX_SEGMENT |
		NETSLICE_RX_CUT | NETSLICE_RX_STORE_FULL | NETSLICE_RX_TRIMMED |
		NETSLICE_RX_GSO | NETSLICE_RX_GSO_TCPV4 | NETSLICE_RX_GSO_TCPV6 |
		NETSLICE_RX_GSO_UDP_L4 | NETSLICE_RX_GSO_ECN;

	/* A packet handed over by a chain is read as any: the same contract. */
	if (v->rlen > v->len || v->rlen > v->wire_len || v->error || !v->port ||
	    (v->flags & ~known) || (!!(v->flags & NETSLICE_RX_CUT) != !!v->handle) ||
	    (!!(v->flags & NETSLICE_RX_GSO) != !!v->gso_segs) ||
	    (!(v->flags & NETSLICE_RX_GSO) && v->gso_size))
		fz_fail("read iov %zu: len %u rlen %u wire %u flags %#x handle %#llx port %u gso %u/%u",
			i, v->len, v->rlen, v->wire_len, v->flags,
			(unsigned long long)v->handle, v->port, v->gso_size, v->gso_segs);
}

void fz_check_tx_iov(const struct netslice_iov *v, size_t i)
{
	/* An action past the known ones is never carried out (NETSLICE_TXERR_INVALID). */
	if (v->error > NETSLICE_TXERR_LOOP || (v->action > NETSLICE_TX_NEXT && !v->error))
		fz_fail("write iov %zu: action %u, error %u", i, v->action, v->error);
}

void fz_check_info(const struct netslice_info *info)
{
	bool chained = info->flags & NETSLICE_INFO_CHAINED;

	if (!(info->flags & NETSLICE_INFO_CHAIN) ||
	    (chained && (info->next_slice >= info->nr_slices || info->next_slice == info->slice)) ||
	    (!chained && info->next_slice))
		fz_fail("info of slice %u: flags %#x, next slice %u of %u", info->slice, info->flags,
			info->next_slice, info->nr_slices);
}

static void check_read(struct dev_thread *t, struct netslice_iov *iov, ssize_t got,
		       size_t n, int slot)
{
	ssize_t i;

	if ((size_t)got > n || got > NETSLICE_MAX_BATCH)
		fz_fail("read returned %zd for %zu iovs", got, n);
	for (i = 0; i < got && (size_t)i < n; i++) {
		fz_check_rx_iov(&iov[i], (size_t)i);
		if (iov[i].handle)
			fz_remember_handle(&t->rng, iov[i].handle, slot);
	}
	atomic_fetch_add(&fz.packets_read, got);
}

static void do_read(struct dev_thread *t)
{
	size_t n = pick_count(&t->rng);
	struct netslice_iov *iov = pick_iov(t, n);
	int slot, fd = slot_fd(t, &slot);
	size_t i, fill = iov_room(t, iov, n);
	ssize_t got;

	for (i = 0; i < fill; i++) {
		iov[i].len = pick_len(&t->rng);
		iov[i].base = pick_base(t, iov[i].len);
		iov[i].gso_size = fz_chance(&t->rng, 5) ? fz_next(&t->rng) : 0;
		iov[i].handle = fz_chance(&t->rng, 5) ? fz_next(&t->rng) : 0;
	}
	got = read(fd, iov, n);
	atomic_fetch_add(&fz.reads, 1);
	if (got < 0) {
		/* EINVAL: the VFS refuses counts above SSIZE_MAX. */
		/* EINVAL, EBUSY: a file in ring mode, or another of its slice. */
		if (errno != EAGAIN && errno != EFAULT && errno != EBADF && errno != EINVAL &&
		    errno != EBUSY)
			fz_fail("read: unexpected errno %d (%s)", errno, strerror(errno));
		return;
	}
	if (got && iov_bad(iov))
		fz_fail("read with a bad iov array returned %zd", got);
	if (!fill || !got)
		return;
	if ((size_t)got > fill)
		fz_fail("read returned %zd, only %zu iovs before the guard page", got, fill);
	check_read(t, iov, got, fill, slot);
	t->last_read = (unsigned int)(got < (ssize_t)fill ? got : (ssize_t)fill);
	t->last_slot = slot;
	if (iov != t->iov)
		memmove(t->iov, iov, t->last_read * sizeof(*iov));
}

static uint64_t pick_handle(struct dev_thread *t)
{
	struct fz_handle *e = &fz.handles[fz_below(&t->rng, FZ_HANDLES)];
	uint64_t h = atomic_load(&e->handle);

	switch (fz_below(&t->rng, 6)) {
	case 0: return 0;
	case 1: return fz_next(&t->rng);			/* forged */
	case 2: return h ^ (1ULL << fz_below(&t->rng, 64));	/* one bit off */
	default: return h;				/* stale or another file's */
	}
}

/*
 * An action: the ones write knows (NETSLICE_TX_NEXT hands the packet to
 * the next slice, or fails without one), and a few past them.
 */
static uint16_t pick_action(struct fz_rng *r)
{
	static const uint16_t bad[] = { NETSLICE_TX_NEXT + 1, NETSLICE_TX_NEXT + 2, 0xff, 0x100,
					0xfffe, 0xffff };

	if (fz_chance(r, 90))
		return (uint16_t)fz_below(r, NETSLICE_TX_NEXT + 1);
	return fz_chance(r, 80) ? bad[fz_below(r, sizeof(bad) / sizeof(bad[0]))]
				: (uint16_t)fz_next(r);
}

/*
 * A slot holding a file of another slice than @slot's (as far as the
 * slots say: a reopen may race), for handles read on one slice written
 * to another; @slot itself if none is found.
 */
static int other_slice_slot(struct fz_rng *r, int slot)
{
	int mine = atomic_load(&fz.fd_slice[slot]);

	for (int tries = 0; tries < FZ_FDS; tries++) {
		int k = (int)fz_below(r, FZ_FDS), s = atomic_load(&fz.fd_slice[k]);

		if (s >= 0 && s != mine)
			return k;
	}
	return slot;
}

static void do_write(struct dev_thread *t)
{
	size_t n, i, fill;
	struct netslice_iov *iov;
	int slot, fd = slot_fd(t, &slot);
	ssize_t got;

	/* Half the time, write back what was read, mutated a little. */
	if (t->last_read && fz_chance(&t->rng, 50)) {
		n = t->last_read;
		iov = t->iov;
		fill = n;
		/* Mostly the file that read them; else another slice's (foreign). */
		if (fz_chance(&t->rng, 15))
			slot = other_slice_slot(&t->rng, t->last_slot);
		else if (slot != t->last_slot && fz_chance(&t->rng, 80))
			slot = t->last_slot;
		fd = atomic_load(&fz.fds[slot]);
		for (i = 0; i < n; i++) {
			/* TX_DEFAULT goes to the next slice when a chain is set. */
			if (fz_chance(&t->rng, 70))
				iov[i].action = NETSLICE_TX_DEFAULT;
			else if (fz_chance(&t->rng, 40))
				iov[i].action = NETSLICE_TX_NEXT;
			else
				iov[i].action = pick_action(&t->rng);
			if (fz_chance(&t->rng, 10))
				iov[i].rlen = pick_len(&t->rng);
			if (fz_chance(&t->rng, 10))
				iov[i].handle = pick_handle(t);
			if (fz_chance(&t->rng, 5))
				iov[i].ifindex = fz.ifindex[fz_below(&t->rng, 4)];
			/* Ports are small numbers: hit real ones, and 0 (use ifindex). */
			if (fz_chance(&t->rng, 10))
				iov[i].port = fz_below(&t->rng, 8);
		}
		t->last_read = 0;
	} else {
		n = pick_count(&t->rng);
		iov = pick_iov(t, n);
		fill = iov_room(t, iov, n);
		for (i = 0; i < fill; i++) {
			iov[i].len = pick_len(&t->rng);
			iov[i].base = pick_base(t, iov[i].len);
			iov[i].rlen = fz_chance(&t->rng, 50) ? iov[i].len : pick_len(&t->rng);
			iov[i].action = pick_action(&t->rng);
			iov[i].ifindex = fz_chance(&t->rng, 80) ? fz.ifindex[fz_below(&t->rng, 4)]
								: (uint32_t)fz_next(&t->rng);
			iov[i].handle = pick_handle(t);
			iov[i].port = fz_chance(&t->rng, 50) ? fz_below(&t->rng, 8) : 0;
			iov[i].gso_segs = fz_chance(&t->rng, 5) ? fz_next(&t->rng) : 0;
		}
	}
	got = write(fd, iov, n);
	atomic_fetch_add(&fz.writes, 1);
	if (got < 0) {
		switch (errno) {
		case EINVAL: case EMSGSIZE: case ENODEV: case EFAULT: case ENOMEM:
		case ENETDOWN: case ESTALE: case EACCES: case EBADMSG: case EAGAIN:
		case ENOBUFS: case EBADF: case EINTR: case EPROTO: case ELOOP:
			return;
		}
		fz_fail("write: unexpected errno %d (%s)", errno, strerror(errno));
		return;
	}
	atomic_fetch_add(&fz.iovs_written, got);
	if ((size_t)got > n || (got && iov_bad(iov)))
		fz_fail("write returned %zd for %zu iovs", got, n);
	for (i = 0; i < (size_t)got && i < fill; i++)
		fz_check_tx_iov(&iov[i], i);
}

struct ioc {
	unsigned long cmd;
	size_t size;
	bool get;
};

/*
 * NETSLICE_STATS_GET as a program built before chains has it: its number
 * says the smaller size, and the module answers it (kmod/ioctl.c).
 */
#define STATS_0_8_SIZE	offsetof(struct netslice_stats, tx_chained)
#define STATS_GET_0_8	_IOR(NETSLICE_IOC_MAGIC, 0x06, __u8[STATS_0_8_SIZE])

static const struct ioc iocs[] = {
	{ NETSLICE_CPUMASK_GET, sizeof(struct netslice_cpumask), true },
	{ NETSLICE_CPUMASK_SET, sizeof(struct netslice_cpumask), false },
	{ NETSLICE_RW_MULTI_GET, sizeof(struct netslice_rw_multi), true },
	{ NETSLICE_RW_MULTI_SET, sizeof(struct netslice_rw_multi), false },
	{ NETSLICE_INFO_GET, sizeof(struct netslice_info), true },
	{ NETSLICE_STATS_GET, sizeof(struct netslice_stats), true },
	{ STATS_GET_0_8, STATS_0_8_SIZE, true },
	{ NETSLICE_CUT_GET, sizeof(struct netslice_cut), true },
	{ NETSLICE_CUT_SET, sizeof(struct netslice_cut), false },
	{ NETSLICE_RING_SETUP, sizeof(struct netslice_ring_setup), false },
	{ NETSLICE_RING_KICK, 0, false },
};

/* Structured arguments, valid often enough to change the slice's mode. */
static void fill_arg(struct dev_thread *t, unsigned long cmd, unsigned char *a)
{
	struct fz_rng *r = &t->rng;

	if (cmd == NETSLICE_CPUMASK_GET || cmd == NETSLICE_CPUMASK_SET) {
		static const uint32_t sizes[] = { 0, 7, 8, 16, 128, 8192, 8193, 8200, UINT32_MAX };
		struct netslice_cpumask *m = (void *)a;
		unsigned char *bits = a + 256;

		m->mask_size = sizes[fz_below(r, sizeof(sizes) / sizeof(sizes[0]))];
		m->reserved = fz_chance(r, 5) ? (uint32_t)fz_next(r) : 0;
		memset(bits, 0, 8192);
		bits[0] = (unsigned char)(1 + fz_below(r, 3));
		m->kernel_cpus = m->mask_size <= 8192 && fz_chance(r, 80) ? (uintptr_t)bits
									  : pick_base(t, m->mask_size);
		m->user_cpus = fz_chance(r, 80) ? (uintptr_t)bits : pick_base(t, 128);
	} else if (cmd == NETSLICE_RW_MULTI_SET) {
		struct netslice_rw_multi *m = (void *)a;

		m->flags = fz_chance(r, 80) ? fz_below(r, 4) : (uint32_t)fz_next(r);
		m->max_batch = fz_chance(r, 80) ? 1 + fz_below(r, 1024) : (uint32_t)fz_next(r);
	} else if (cmd == NETSLICE_CUT_SET) {
		struct netslice_cut *s = (void *)a;

		memset(s, 0, sizeof(*s));
		s->mode = fz_below(r, 4);
		if (s->mode == NETSLICE_CUT_FIXED || fz_chance(r, 5))
			s->length = fz_below(r, 600);
		if (s->mode == NETSLICE_CUT_AUTO || fz_chance(r, 5))
			s->extra = fz_below(r, 300);
		/* NETSLICE_CUT_TRIM and NETSLICE_CUT_GSO, or junk. */
		s->flags = fz_chance(r, 80) ? fz_below(r, 4) : (uint32_t)fz_next(r);
		if (fz_chance(r, 5))
			s->reserved[fz_below(r, 2)] = (uint32_t)fz_next(r);
	} else {
		for (size_t i = 0; i < 64; i++)
			a[i] = (unsigned char)fz_next(r);
	}
}

static void do_ioctl(struct dev_thread *t)
{
	int slot, fd = slot_fd(t, &slot);
	const struct ioc *known = NULL;
	unsigned long cmd;
	void *arg = t->arg;
	int ret;

	switch (fz_below(&t->rng, 10)) {
	case 0:	/* our magic, any number, size and direction */
		cmd = _IOC(fz_below(&t->rng, 4), NETSLICE_IOC_MAGIC, fz_below(&t->rng, 256),
			   fz_below(&t->rng, 1 << 14));
		break;
	default:
		known = &iocs[fz_below(&t->rng, sizeof(iocs) / sizeof(iocs[0]))];
		cmd = known->cmd;
	}
	for (size_t i = 0; i < sizeof(iocs) / sizeof(iocs[0]); i++)
		if (iocs[i].cmd == cmd)
			known = &iocs[i];
	fill_arg(t, cmd, t->arg);
	switch (fz_below(&t->rng, 20)) {
	case 0: arg = NULL; break;
	case 1: arg = fz.guard; break;
	case 2: arg = fz.rdonly; break;
	case 3: arg = KERNEL_PTR; break;
	case 4: if (known) arg = (char *)fz.guard - known->size + 1 + fz_below(&t->rng, 8); break;
	}
	ret = ioctl(fd, cmd, arg);
	atomic_fetch_add(&fz.ioctls, 1);
	if (ret < 0) {
		if (!known && errno != ENOTTY && errno != EBADF)
			fz_fail("ioctl %#lx (not ours): errno %d, want ENOTTY", cmd, errno);
		else if (known && errno != EINVAL && errno != EFAULT && errno != ENOMEM &&
			 errno != EBADF && errno != EBUSY)
			fz_fail("ioctl %#lx: unexpected errno %d (%s)", cmd, errno, strerror(errno));
		return;
	}
	if (!known)
		fz_fail("ioctl %#lx is not ours but succeeded", cmd);
	else if (known->get && arg == t->arg && fz_scan_addrs(arg, known->size, 8))
		fz_fail("ioctl %#lx: reply holds a kernel address", cmd);
	else if (cmd == NETSLICE_INFO_GET && arg == t->arg)
		fz_check_info(arg);
}

static void do_reopen(struct dev_thread *t)
{
	int slot = (int)fz_below(&t->rng, FZ_FDS);
	int old = atomic_exchange(&fz.fds[slot], -1);
	int fd, nr, expect = -1;

	if (old >= 0)
		close(old);
	fd = fz_open_slice(&t->rng, &nr);
	if (fd >= 0 && !atomic_compare_exchange_strong(&fz.fds[slot], &expect, fd))
		close(fd);
	else
		atomic_store(&fz.fd_slice[slot], fd >= 0 ? nr : -1);
	atomic_fetch_add(&fz.reopens, 1);
}

static void do_misc(struct dev_thread *t)
{
	int slot, fd = slot_fd(t, &slot);
	struct pollfd p = { .fd = fd, .events = POLLIN | POLLOUT };
	void *m;
	int d;

	switch (fz_below(&t->rng, 5)) {
	case 0:
		poll(&p, 1, 0);
		break;
	case 1:	/* byte-sized reads and writes: counts are iovs, not bytes */
		if (read(fd, t->data, fz_below(&t->rng, 3)) < 0 && errno == 0)
			fz_fail("read");
		break;
	case 2:	/* a file in ring mode maps its frames here; any other refuses */
		m = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 0);
		if (m != MAP_FAILED)
			munmap(m, 4096);
		else if (errno != EINVAL && errno != EBUSY && errno != EBADF)
			fz_fail("mmap of a slice: errno %d", errno);
		break;
	case 3:
		lseek(fd, (off_t)fz_next(&t->rng), SEEK_SET);
		break;
	case 4:	/* a second file description of the same open file */
		d = dup(fd);
		if (d >= 0)
			close(d);
		break;
	}
}

void *fz_dev_thread(void *arg)
{
	struct dev_thread t = { .rng = { fz.seed ^ (0x100 * (uintptr_t)arg) } };

	t.iov = alloc_guarded(FZ_IOVS * sizeof(*t.iov));
	t.data = alloc_guarded(FZ_DATA);
	t.arg = alloc_guarded(16384);
	if (!t.iov || !t.data || !t.arg) {
		fz_fail("out of memory");
		return NULL;
	}
	while (!atomic_load(&fz.stop) && atomic_load(&fz.dev_ops) < fz.dev_target) {
		unsigned int op = fz_below(&t.rng, 100);

		int slot;

		if (op < 35)
			do_read(&t);
		else if (op < 62)
			do_write(&t);
		else if (op < 86)
			do_ioctl(&t);
		else if (op < 89)
			do_reopen(&t);
		else if (op < 92)
			do_misc(&t);
		else
			fz_ring_op(&t.rng, &t.ring, slot_fd(&t, &slot));
		atomic_fetch_add(&fz.dev_ops, 1);
	}
	return NULL;
}

/*
 * Every GET ioctl on every slice once, each reply scanned for kernel
 * addresses. Returns the replies scanned; hits are failures.
 */
long fz_dev_scan_all(void)
{
	static unsigned char kbits[8192], ubits[8192];
	union {
		struct netslice_cpumask mask;
		struct netslice_info info;
		struct netslice_stats stats;
		unsigned char bytes[sizeof(struct netslice_info)];
	} arg;
	long scanned = 0;

	for (unsigned int s = 0; s < fz.nslices; s++) {
		char path[64];
		int fd;

		snprintf(path, sizeof(path), "/dev/" NETSLICE_DEV_PREFIX "%u", s);
		fd = open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC);
		if (fd < 0) {
			fz_fail("open %s: %s", path, strerror(errno));
			continue;
		}
		for (size_t i = 0; i < sizeof(iocs) / sizeof(iocs[0]); i++) {
			if (!iocs[i].get)
				continue;
			memset(&arg, 0, sizeof(arg));
			if (iocs[i].cmd == NETSLICE_CPUMASK_GET) {
				arg.mask.mask_size = sizeof(kbits);
				arg.mask.kernel_cpus = (uintptr_t)kbits;
				arg.mask.user_cpus = (uintptr_t)ubits;
			}
			if (ioctl(fd, iocs[i].cmd, &arg)) {
				fz_fail("%s: ioctl %#lx: %s", path, iocs[i].cmd, strerror(errno));
				continue;
			}
			scanned++;
			/* The bitmaps are the user's own buffers: scan them too. */
			if (fz_scan_addrs(&arg, iocs[i].size, 8) ||
			    (iocs[i].cmd == NETSLICE_CPUMASK_GET &&
			     (fz_scan_addrs(kbits, sizeof(kbits), 8) ||
			      fz_scan_addrs(ubits, sizeof(ubits), 8))))
				fz_fail("%s: ioctl %#lx: reply holds a kernel address", path,
					iocs[i].cmd);
			if (iocs[i].cmd == NETSLICE_INFO_GET)
				fz_check_info(&arg.info);
		}
		close(fd);
	}
	return scanned;
}
