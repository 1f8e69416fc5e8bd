// SPDX-License-Identifier: GPL-2.0
/*
 * nsfuzz ring mode: setup with odd sizes, mmap of any region at any size
 * and sharing, and a process that rewrites its rings at random (indices,
 * entries, offsets, lengths, handles) while kicks and RX run, and sends
 * what RX delivered back out, handles and all, as an NF does but badly.
 * The kernel must refuse or survive all of it; a broken promise is a
 * failure.
 */
#include <errno.h>
#include <poll.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include <linux/netslice.h>

#include "fuzz.h"

static const uint64_t ring_offs[] = {
	NETSLICE_MMAP_FRAMES, NETSLICE_MMAP_RX, NETSLICE_MMAP_TX, NETSLICE_MMAP_COMP,
};

static uint32_t pick_ring_size(struct fz_rng *r)
{
	static const uint32_t sizes[] = { 0, 1, 2, 3, 8, 64, 256, 1024, 32768, 65536, UINT32_MAX };

	return sizes[fz_below(r, sizeof(sizes) / sizeof(sizes[0]))];
}

/* Mostly valid setups, small so that many fit; sometimes anything. */
static void fill_setup(struct fz_rng *r, struct netslice_ring_setup *s)
{
	memset(s, 0, sizeof(*s));
	s->frame_size = fz_chance(r, 80) ? 2048u << fz_below(r, 3) : (uint32_t)fz_next(r);
	s->rx_size = fz_chance(r, 80) ? 2u << fz_below(r, 7) : pick_ring_size(r);
	s->tx_size = fz_chance(r, 80) ? 2u << fz_below(r, 7) : pick_ring_size(r);
	s->comp_size = fz_chance(r, 80) ? s->tx_size << fz_below(r, 2) : pick_ring_size(r);
	s->frame_count = s->rx_size + (fz_chance(r, 80) ? fz_below(r, 64) : (uint32_t)fz_next(r));
	if (fz_chance(r, 20)) {
		s->flags = NETSLICE_RING_BUSY_POLL;
		s->busy_poll_us = fz_below(r, 1100);
	}
	if (fz_chance(r, 5))
		s->reserved = (uint32_t)fz_next(r);
	if (fz_chance(r, 5))
		s->flags = (uint32_t)fz_next(r);
}

static void do_setup(struct fz_rng *r, struct fz_ring_maps *m, int fd)
{
	struct netslice_ring_setup s;

	fill_setup(r, &s);
	/* Now and then a large area: past RLIMIT_MEMLOCK or ring_max_mb. */
	if (fz_chance(r, 10))
		s.frame_count = s.rx_size + 4096 * (1 + fz_below(r, 32));
	if (ioctl(fd, NETSLICE_RING_SETUP, &s)) {
		if (errno == ENOBUFS || errno == ENOMEM)
			atomic_fetch_add(&fz.ring_over_limit, 1);
		else if (errno != EINVAL && errno != EBUSY && errno != EBADF)
			fz_fail("ring setup: unexpected errno %d (%s)", errno, strerror(errno));
		return;
	}
	if (fz_scan_addrs(&s, sizeof(s), 8))
		fz_fail("ring setup: reply holds a kernel address");
	m->lens[0] = s.frames_len;
	m->lens[1] = s.rx_len;
	m->lens[2] = s.tx_len;
	m->lens[3] = s.comp_len;
	m->rx_size = s.rx_size;
	m->tx_size = s.tx_size;
	atomic_fetch_add(&fz.ring_setups, 1);
}

static void do_mmap(struct fz_rng *r, struct fz_ring_maps *m, int fd)
{
	unsigned int k = fz_below(r, 4), i = fz_below(r, FZ_RING_MAPS);
	size_t len = m->lens[k] && fz_chance(r, 80) ? m->lens[k] : 4096 * (1 + fz_below(r, 64));
	int flags = fz_chance(r, 90) ? MAP_SHARED : MAP_PRIVATE;
	uint64_t off = fz_chance(r, 90) ? ring_offs[k] : fz_next(r) & ~4095ULL;
	void *p;

	if (m->map[i]) {
		munmap(m->map[i], m->len[i]);
		m->map[i] = NULL;
	}
	m->region[i] = -1;
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, flags, fd, (off_t)off);
	if (p == MAP_FAILED) {
		if (errno != EINVAL && errno != EBUSY && errno != ENOMEM && errno != EBADF &&
		    errno != EOVERFLOW && errno != ENODEV)
			fz_fail("ring mmap: unexpected errno %d (%s)", errno, strerror(errno));
		return;
	}
	if (flags == MAP_PRIVATE)
		fz_fail("a private mapping of a ring region succeeded");
	m->map[i] = p;
	m->len[i] = len;
	if (off == ring_offs[k] && len == m->lens[k])
		m->region[i] = (int)k;
	atomic_fetch_add(&fz.ring_maps, 1);
}

/*
 * The memory limits met once for certain, before any other thread holds a
 * file (a slice with a second reader refuses ring mode with EBUSY, which
 * makes the random setups' hits on a limit rare): on slice @nr alone, a
 * setup one frame past RLIMIT_MEMLOCK is refused with ENOBUFS or, past
 * ring_max_mb, ENOMEM; a small one then succeeds where the limit leaves
 * room for it (the refused setup must have left no charge behind). A
 * caller with CAP_IPC_LOCK is not charged, so its large setup may succeed:
 * that counts as a setup, not a limit met. Returns nonzero on a broken
 * promise.
 */
int fz_ring_probe_limits(unsigned int nr)
{
	struct netslice_ring_setup s = {
		.frame_size = NETSLICE_RING_MIN_FRAME, .rx_size = 64, .tx_size = 64,
		.comp_size = 64,
	};
	struct rlimit lim;
	int fd, err = 0;

	if (getrlimit(RLIMIT_MEMLOCK, &lim) || lim.rlim_cur == RLIM_INFINITY ||
	    lim.rlim_cur / s.frame_size + 1 > NETSLICE_RING_MAX_AREA / s.frame_size)
		return 0;
	fd = fz_open_nr(nr);
	if (fd < 0) {
		fz_fail("ring probe: open slice %u: %s", nr, strerror(errno));
		return 1;
	}
	s.frame_count = (uint32_t)(lim.rlim_cur / s.frame_size + 1);
	if (!ioctl(fd, NETSLICE_RING_SETUP, &s)) {
		atomic_fetch_add(&fz.ring_setups, 1);
	} else if (errno == ENOBUFS || errno == ENOMEM) {
		atomic_fetch_add(&fz.ring_over_limit, 1);
		s.frame_count = 128;
		if (lim.rlim_cur >= 4ULL * s.frame_count * s.frame_size) {
			if (ioctl(fd, NETSLICE_RING_SETUP, &s)) {
				fz_fail("ring probe: a 256 KiB setup after one over the limit: %s",
					strerror(errno));
				err = 1;
			} else {
				atomic_fetch_add(&fz.ring_setups, 1);
			}
		}
	} else {
		fz_fail("ring probe: setup past RLIMIT_MEMLOCK: unexpected errno %d (%s)",
			errno, strerror(errno));
		err = 1;
	}
	close(fd);
	return err;
}

/* A mapping of region k, whole, or NULL. */
static void *region_map(struct fz_ring_maps *m, int k)
{
	unsigned int i;

	for (i = 0; i < FZ_RING_MAPS; i++)
		if (m->map[i] && m->region[i] == k)
			return m->map[i];
	return NULL;
}

/*
 * Up to 8 RX entries back out on TX (or to the next slice), as an NF
 * forwards, with what a buggy or hostile one does to them: an entry twice
 * in one kick (its handle claimed twice), a handle one bit off, one read
 * before (stale, or of another file), one made up. The RX handles go to
 * the pool that the read/write threads write from (another file's:
 * foreign there).
 */
static void do_echo(struct fz_rng *r, struct fz_ring_maps *m, int fd)
{
	struct netslice_ring_hdr *rx = region_map(m, 1), *tx = region_map(m, 2);
	struct netslice_iov *rxe, *txe, iov;
	uint32_t cons, prod, txp, n, i;
	struct fz_handle *e;

	if (!rx || !tx || !m->rx_size || !m->tx_size)
		return;
	/* Sizes from the last setup: maybe not this mapping's (then it is a scribble). */
	if (sizeof(*rx) + (size_t)m->rx_size * sizeof(iov) > m->lens[1] ||
	    sizeof(*tx) + (size_t)m->tx_size * sizeof(iov) > m->lens[2])
		return;
	rxe = (struct netslice_iov *)(rx + 1);
	txe = (struct netslice_iov *)(tx + 1);
	prod = __atomic_load_n(&rx->producer, __ATOMIC_ACQUIRE);
	cons = __atomic_load_n(&rx->consumer, __ATOMIC_RELAXED);
	txp = __atomic_load_n(&tx->producer, __ATOMIC_RELAXED);
	n = prod - cons < 8 ? prod - cons : 8;
	for (i = 0; i < n; i++) {
		iov = rxe[(cons + i) & (m->rx_size - 1)];
		e = &fz.handles[fz_below(r, FZ_HANDLES)];
		if (iov.handle) {
			if (fz_chance(r, 30))
				atomic_store(&e->handle, iov.handle);
			switch (fz_below(r, 10)) {
			case 0: iov.handle ^= 1ULL << fz_below(r, 64); break;
			case 1: iov.handle = atomic_load(&e->handle); break;
			case 2: iov.handle = fz_next(r); break;
			}
		}
		/* To the next slice, when a chain is set; now and then past the actions. */
		iov.action = fz_chance(r, 80) ? NETSLICE_TX_DEFAULT : NETSLICE_TX_NEXT;
		if (fz_chance(r, 3))
			iov.action = fz_chance(r, 50) ? NETSLICE_TX_NEXT + 1 : 0xffff;
		iov.port = 0;
		txe[txp++ & (m->tx_size - 1)] = iov;
		/* The same entry again: a handle claimed twice in one kick. */
		if (fz_chance(r, 10))
			txe[txp++ & (m->tx_size - 1)] = iov;
	}
	__atomic_store_n(&rx->consumer, cons + n, __ATOMIC_RELEASE);
	__atomic_store_n(&tx->producer, txp, __ATOMIC_RELEASE);
	if (ioctl(fd, NETSLICE_RING_KICK, 0) < 0 && errno != EINVAL && errno != EBADF &&
	    errno != EINTR)
		fz_fail("ring echo kick: unexpected errno %d (%s)", errno, strerror(errno));
	atomic_fetch_add(&fz.ring_echoes, 1);
}

/* Rewrite what a mapping holds: index words, entries, or anything. */
static void do_scribble(struct fz_rng *r, struct fz_ring_maps *m)
{
	unsigned int i = fz_below(r, FZ_RING_MAPS), n;
	uint32_t *w;
	size_t words;

	if (!m->map[i])
		return;
	w = m->map[i];
	words = m->len[i] / 4;
	for (n = 1 + fz_below(r, 16); n; n--) {
		/* The header's index words (0, 32, 64) half the time. */
		size_t at = fz_chance(r, 50) ? 32 * fz_below(r, 3) : fz_below(r, (uint32_t)words);
		uint32_t v = (uint32_t)fz_next(r);

		if (fz_chance(r, 50))
			v = w[at] + fz_below(r, 8) - 2;	/* near its value: an index that moved */
		__atomic_store_n(&w[at], v, __ATOMIC_RELEASE);
	}
}

void fz_ring_op(struct fz_rng *r, struct fz_ring_maps *m, int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLIN | POLLOUT };
	unsigned int i;
	long ret;

	switch (fz_below(r, 8)) {
	case 0:
		do_setup(r, m, fd);
		break;
	case 1:
		do_mmap(r, m, fd);
		break;
	case 2:
	case 3:
		do_scribble(r, m);
		break;
	case 4:
		ret = ioctl(fd, NETSLICE_RING_KICK, 0);
		if (ret < 0 && errno != EINVAL && errno != EBADF && errno != EINTR)
			fz_fail("ring kick: unexpected errno %d (%s)", errno, strerror(errno));
		poll(&p, 1, 0);
		atomic_fetch_add(&fz.ring_kicks, 1);
		break;
	case 5:
		i = fz_below(r, FZ_RING_MAPS);
		if (m->map[i])
			munmap(m->map[i], m->len[i]);
		m->map[i] = NULL;
		break;
	case 6:
	case 7:
		do_echo(r, m, fd);
		break;
	}
}
