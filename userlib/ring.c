// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * Ring mode: the frame area and the RX, TX and completion rings mapped
 * from the kernel (uapi/linux/netslice.h, "Ring mode"), driven with the
 * same struct netslice_iov as read and write.
 *
 * Each index is written by one side only; this side loads the kernel's
 * with acquire and stores its own with release, as the uapi header says.
 */
#include <errno.h>
#include <poll.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>

#include "internal.h"
#include "netslice.h"
#include "ring.h"

static uint32_t ns_load_acquire(const uint32_t *p)
{
	return __atomic_load_n(p, __ATOMIC_ACQUIRE);
}

static void ns_store_release(uint32_t *p, uint32_t v)
{
	__atomic_store_n(p, v, __ATOMIC_RELEASE);
}

static void *ns_ring_map(int fd, size_t len, __u64 off)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, (off_t)off);

	return p == MAP_FAILED ? NULL : p;
}

void ns_ring_config_default(struct netslice_ring_setup *cfg, unsigned int batch)
{
	unsigned int tx = 64;

	while (tx < 2 * batch && tx < NETSLICE_RING_MAX_SIZE)
		tx *= 2;
	memset(cfg, 0, sizeof(*cfg));
	cfg->frame_size = NETSLICE_RING_MIN_FRAME;
	cfg->rx_size = 1024;
	cfg->tx_size = tx;
	cfg->comp_size = tx;
	/* RX frames, then a TX pool for frames built outside the area. */
	cfg->frame_count = cfg->rx_size + tx;
}

int ns_ring_open(struct ns_ring **rp, int fd, const struct netslice_ring_setup *cfg)
{
	struct ns_ring *r;
	unsigned int i;
	int err;

	*rp = NULL;
	r = calloc(1, sizeof(*r));
	if (!r)
		return ns_fail(ENOMEM);
	r->fd = fd;
	r->setup = *cfg;
	if (ioctl(fd, NETSLICE_RING_SETUP, &r->setup)) {
		err = errno;
		free(r);
		return ns_fail(err);
	}
	r->frames = ns_ring_map(fd, r->setup.frames_len, NETSLICE_MMAP_FRAMES);
	r->rx = ns_ring_map(fd, r->setup.rx_len, NETSLICE_MMAP_RX);
	r->tx = ns_ring_map(fd, r->setup.tx_len, NETSLICE_MMAP_TX);
	r->comp = ns_ring_map(fd, r->setup.comp_len, NETSLICE_MMAP_COMP);
	r->tx_pool = calloc(r->setup.frame_count - r->setup.rx_size + 1, sizeof(*r->tx_pool));
	r->tx_frame = calloc(r->setup.tx_size, sizeof(*r->tx_frame));
	if (!r->frames || !r->rx || !r->tx || !r->comp) {
		err = -errno;
		ns_ring_close(r);
		return ns_fail(-err);
	}
	if (!r->tx_pool || !r->tx_frame) {
		ns_ring_close(r);
		return ns_fail(ENOMEM);
	}
	r->rx_desc = (struct netslice_iov *)(r->rx + 1);
	r->tx_desc = (struct netslice_iov *)(r->tx + 1);
	r->comp_desc = (struct netslice_ring_comp *)(r->comp + 1);
	for (i = r->setup.rx_size; i < r->setup.frame_count; i++)
		r->tx_pool[r->tx_free++] = i;
	*rp = r;
	return 0;
}

void ns_ring_close(struct ns_ring *r)
{
	if (!r)
		return;
	if (r->frames)
		munmap(r->frames, r->setup.frames_len);
	if (r->rx)
		munmap(r->rx, r->setup.rx_len);
	if (r->tx)
		munmap(r->tx, r->setup.tx_len);
	if (r->comp)
		munmap(r->comp, r->setup.comp_len);
	free(r->tx_pool);
	free(r->tx_frame);
	free(r);
}

const struct netslice_ring_setup *ns_ring_setup(const struct ns_ring *r)
{
	return &r->setup;
}

unsigned int ns_ring_peek(struct ns_ring *r, struct netslice_iov *iov, unsigned int n)
{
	uint32_t prod = ns_load_acquire(&r->rx->producer);
	uint32_t mask = r->setup.rx_size - 1, i;
	unsigned int got = 0;

	for (i = r->rx_peeked; i != prod && got < n; i++, got++) {
		iov[got] = r->rx_desc[i & mask];
		iov[got].base += (uintptr_t)r->frames;
	}
	r->rx_peeked += got;
	return got;
}

void ns_ring_release(struct ns_ring *r, unsigned int n)
{
	if (n > r->rx_peeked - r->rx_cons)
		n = r->rx_peeked - r->rx_cons;
	r->rx_cons += n;
	ns_store_release(&r->rx->consumer, r->rx_cons);
}

int ns_ring_kick(struct ns_ring *r)
{
	return (int)ns_sysret(ioctl(r->fd, NETSLICE_RING_KICK, 0));
}

static void ns_cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ volatile("yield");
#endif
}

static long long ns_mono_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000LL + ts.tv_nsec / 1000;
}

int ns_ring_spin(struct ns_ring *r, unsigned int us)
{
	long long end = ns_mono_us() + us;
	unsigned int i;

	do {
		for (i = 0; i < 64; i++) {
			if (__atomic_load_n(&r->rx->producer, __ATOMIC_ACQUIRE) != r->rx_peeked)
				return 1;
			ns_cpu_relax();
		}
	} while (ns_mono_us() < end);
	return 0;
}

/* Entries produced past those peeked, looked at after the consumer index's store. */
static int ns_ring_rx_new(struct ns_ring *r)
{
	/*
	 * The consumer index stored, then the producer loaded: a store and a
	 * later load of another place, which only a full barrier keeps in
	 * order (x86 too). Pairs with the kernel's barrier between its
	 * producer store and its consumer load (uapi "Ring mode", wake-ups).
	 */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	return ns_load_acquire(&r->rx->producer) != r->rx_peeked;
}

int ns_ring_can_sleep(struct ns_ring *r)
{
	if (r->rx_cons != r->rx_peeked || ns_ring_rx_new(r))
		return 0;
	/* Records wait for room: only a kick, a poll or a packet moves them in. */
	if (__atomic_load_n(&r->rx->flags, __ATOMIC_RELAXED) & NETSLICE_RING_NEED_WAKEUP) {
		ns_ring_kick(r);
		return 0;
	}
	return 1;
}

int ns_ring_wait(struct ns_ring *r, int timeout_ms)
{
	struct pollfd pfd = { .fd = r->fd, .events = POLLIN };
	int ret;

	if (ns_ring_rx_new(r))
		return 1;
	ret = poll(&pfd, 1, timeout_ms);
	return ret < 0 ? -errno : ret;
}

/*
 * The iov's bytes in the frame area: their offset, or copied to a pool
 * frame (-1: none free now). Longer than a frame, they get an offset the
 * kernel refuses (NETSLICE_TXERR_FAULT), so the iov still completes.
 */
static int ns_ring_place(struct ns_ring *r, const struct netslice_iov *iov, uint32_t slot,
			 __u64 *off)
{
	uintptr_t base = (uintptr_t)iov->base, start = (uintptr_t)r->frames;
	uint32_t frame;

	r->tx_frame[slot] = UINT32_MAX;
	if (base >= start && iov->rlen <= r->setup.frames_len &&
	    base - start <= r->setup.frames_len - iov->rlen) {
		*off = base - start;
		return 0;
	}
	if (iov->rlen > r->setup.frame_size) {
		*off = r->setup.frames_len;
		return 0;
	}
	if (!r->tx_free)
		return -1;
	frame = r->tx_pool[--r->tx_free];
	r->tx_frame[slot] = frame;
	*off = (__u64)frame * r->setup.frame_size;
	memcpy(r->frames + *off, (const void *)base, iov->rlen);
	return 0;
}

/* Take completions in, in TX order: errors into iov[], pool frames back. */
static unsigned int ns_ring_reap(struct ns_ring *r, struct netslice_iov *iov)
{
	uint32_t prod = ns_load_acquire(&r->comp->producer);
	uint32_t cmask = r->setup.comp_size - 1, tmask = r->setup.tx_size - 1;
	unsigned int got = 0;

	while (r->comp_cons != prod) {
		const struct netslice_ring_comp *c = &r->comp_desc[r->comp_cons & cmask];
		uint32_t slot = r->tx_done & tmask;

		iov[got++].error = c->error;
		if (r->tx_frame[slot] != UINT32_MAX)
			r->tx_pool[r->tx_free++] = r->tx_frame[slot];
		r->tx_done++;
		r->comp_cons++;
	}
	ns_store_release(&r->comp->consumer, r->comp_cons);
	return got;
}

ssize_t ns_ring_send(struct ns_ring *r, struct netslice_iov *iov, unsigned int n)
{
	uint32_t tmask = r->setup.tx_size - 1, slot;
	/* Entries a call before left in flight are the first of these. */
	unsigned int queued = r->tx_prod - r->tx_done, done = 0, idle = 0, got;
	long long stall_start = 0;
	int ret;

	while (done < n) {
		/* Queue what fits: the ring's room, and the pool for outside frames. */
		while (queued < n && r->tx_prod - r->tx_done < r->setup.tx_size) {
			struct netslice_iov *d;

			slot = r->tx_prod & tmask;
			d = &r->tx_desc[slot];
			*d = iov[queued];
			if (ns_ring_place(r, &iov[queued], slot, &d->base))
				break;
			r->tx_prod++;
			queued++;
		}
		ns_store_release(&r->tx->producer, r->tx_prod);
		if (__atomic_load_n(&r->tx->flags, __ATOMIC_RELAXED) & NETSLICE_RING_NEED_WAKEUP) {
			ret = ns_ring_kick(r);
			if (ret < 0 && ret != -EINTR)
				return ret;
		}
		got = ns_ring_reap(r, &iov[done]);
		done += got;
		if (got) {
			idle = 0;
			continue;
		}
		if (ns_stalled(&idle, &stall_start))
			break;
	}
	return done;
}

ssize_t ns_ring_send_all(struct ns_ring *r, struct netslice_iov *iov, unsigned int n)
{
	ssize_t ret = ns_ring_send(r, iov, n);
	unsigned int i, done;
	uint32_t tmask = r->setup.tx_size - 1;

	if (ret < 0 || (unsigned int)ret == n)
		return ret;
	/*
	 * The egress stayed stopped: what is queued is dropped instead, so
	 * that parked payloads are freed and the frames come back. Only this
	 * thread kicks the file, so the kernel reads none of these entries
	 * until the kick below.
	 */
	done = (unsigned int)ret;
	for (i = r->tx_done; i != r->tx_prod; i++)
		r->tx_desc[i & tmask].action = NETSLICE_TX_DROP;
	/* Their frames are the kernel's until they complete: keep the iovs. */
	for (i = done; i < n; i++)
		ns_iov_drop(&iov[i]);
	ret = ns_ring_send(r, &iov[done], n - done);
	return ret < 0 ? ret : done + (unsigned int)ret;
}
