/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _NETSLICE_SLICE_H
#define _NETSLICE_SLICE_H

#include <linux/atomic.h>
#include <linux/cache.h>
#include <linux/cpumask.h>
#include <linux/mutex.h>
#include <linux/poll.h>
#include <linux/ptr_ring.h>
#include <linux/skbuff.h>
#include <linux/types.h>
#include <linux/wait.h>

#include <linux/netslice.h>

#include "store.h"

struct nsl_ring;
struct nsl_stats;

/* A slice's next (struct nsl_slice) while it has none: its chain ends there. */
#define NSL_CHAIN_NONE	U16_MAX

/*
 * One slice: the unit of spatial partitioning. Slices share nothing; each
 * is reached through its own character device.
 */
struct nsl_slice {
	unsigned int id;

	/* RX: produced in softirq, consumed by readers under read_lock. */
	struct ptr_ring rxq;
	struct ptr_ring trimq;	/* NETSLICE_RX_TRIMMED records, read first */
	/* Taken off rxq or trimq but not read (a copy failed, a purge): read first. */
	struct sk_buff_head unread;
	wait_queue_head_t wait;
	/*
	 * Read mode: a reader found the slice empty and may sleep. The next
	 * packet queued wakes it and clears this; the ones after it, queued
	 * while it wakes, do not (nsl_slice_wake_armed()). Ring mode does
	 * without: nsl_ring_rx() reads the process's consumer index instead.
	 */
	atomic_t rx_armed;
	struct mutex read_lock;		/* protects consuming rxq and trimq */
	atomic_t open_files;		/* no reader: RX drops and counts */
	atomic64_t rx_purged;		/* queued, freed unread (detach, last close) */
	struct nsl_stats __percpu *stats;
	struct nsl_store store;		/* payloads of cut packets read */
	/* The file in ring mode, if any: RX delivers there. Set under lock. */
	struct nsl_ring __rcu *ring;
	/*
	 * Its chain (chain.c): the next slice, or NSL_CHAIN_NONE, and the
	 * slices whose chain leads here. Changed under the chain's lock,
	 * read with READ_ONCE.
	 */
	u16 next;
	DECLARE_BITMAP(upstream, NETSLICE_MAX_SLICES);

	struct mutex lock;		/* protects the fields below */
	cpumask_var_t kernel_cpus;	/* read locklessly by RX (advisory) */
	cpumask_var_t user_cpus;
	u32 rw_flags;			/* NETSLICE_MULTI_*; READ_ONCE outside lock */
	u32 max_batch;			/* READ_ONCE outside lock */
	u32 cut;			/* see cut.h; READ_ONCE outside lock */
	u32 rxq_size;			/* rxq's; READ_ONCE outside lock */
	/*
	 * Open files that have called read(): ring setup by another file
	 * would take their packets (EBUSY). READ_ONCE outside lock.
	 */
	unsigned int readers;
	struct netslice_stats stats_base; /* counters at the last reset */
} ____cacheline_aligned_in_smp;

/* An open /dev/netslice-N: its file->private_data (chrdev.c). */
struct nsl_file {
	struct nsl_slice *slice;
	bool reader;		/* counted in slice->readers; under slice->lock */
};

static inline struct nsl_slice *nsl_file_slice(const struct file *file)
{
	return ((struct nsl_file *)file->private_data)->slice;
}

/* file has read, and counts in its slice's readers. */
static inline bool nsl_file_is_reader(const struct file *file)
{
	return READ_ONCE(((struct nsl_file *)file->private_data)->reader);
}

/*
 * file reads from now on: counted in slice->readers, unless another
 * file in ring mode takes the slice's packets (-EBUSY).
 */
int nsl_slice_add_reader(struct nsl_slice *slice, struct file *file);
/* On close: file reads no more. */
void nsl_slice_drop_reader(struct nsl_slice *slice, struct file *file);
/* Files other than file count in slice->readers (exact under slice->lock). */
bool nsl_slice_other_readers(struct nsl_slice *slice, struct file *file);

/* The slices, nsl_nr_slices of them (nsl_slices_create()). */
extern struct nsl_slice *nsl_slices;

/* Batch size for this call: the caller's count, capped by the slice's batch mode. */
static inline size_t nsl_batch_limit(const struct nsl_slice *slice, size_t count, u32 multi_flag)
{
	size_t n = min_t(size_t, count, READ_ONCE(slice->max_batch));

	if (!(READ_ONCE(slice->rw_flags) & multi_flag))
		n = min_t(size_t, n, 1);
	return n;
}

/* Anything for a reader: a packet or a trimmed record. */
static inline bool nsl_slice_readable(struct nsl_slice *slice)
{
	return !skb_queue_empty_lockless(&slice->unread) || !ptr_ring_empty_bh(&slice->rxq) ||
	       !ptr_ring_empty_bh(&slice->trimq);
}

/* The next packet wakes the readers (nsl_slice_wake_armed()): look again after. */
static inline void nsl_slice_arm(struct nsl_slice *slice)
{
	atomic_set(&slice->rx_armed, 1);
	/* Armed before the queues are looked at again: pairs with nsl_slice_wake_armed(). */
	smp_mb();
}

/*
 * After queueing for read: wake the readers if one armed, and disarm, so
 * that a burst wakes a sleeper once, not once per packet. An armed reader
 * is on the wait queue already (poll_wait() and prepare_to_wait() come
 * before the arming), or not sleeping at all.
 */
static inline void nsl_slice_wake_armed(struct nsl_slice *slice)
{
	/* Queued before the flag is read: pairs with nsl_slice_arm(). */
	smp_mb();
	if (!atomic_read(&slice->rx_armed) || !atomic_xchg(&slice->rx_armed, 0))
		return;
	/* Ordered by the smp_mb() above, as the flag's read. */
	if (waitqueue_active(&slice->wait))
		wake_up_interruptible_poll(&slice->wait, EPOLLIN | EPOLLRDNORM);
}

/* Readable, or armed: a reader that sleeps on false is woken by the next packet. */
static inline bool nsl_slice_readable_or_arm(struct nsl_slice *slice)
{
	if (nsl_slice_readable(slice))
		return true;
	nsl_slice_arm(slice);
	return nsl_slice_readable(slice);
}

/*
 * Free the queued packets that arrived on port (0: all), counted. True
 * when some were kept (never for port 0).
 */
bool nsl_slice_purge(struct nsl_slice *slice, u32 port);

/* Non-empty and online only. */
bool nsl_cpus_valid(const struct cpumask *mask);

/* Caller holds slice->lock; values already checked. NULL masks: keep. */
void nsl_slice_set_cpus(struct nsl_slice *slice, const struct cpumask *kernel_cpus,
			const struct cpumask *user_cpus);
void nsl_slice_set_batch(struct nsl_slice *slice, u32 rw_flags, u32 max_batch);
void nsl_slice_set_cut(struct nsl_slice *slice, u32 cfg);
void nsl_slice_cut(struct nsl_slice *slice, struct netslice_cut *out);

/*
 * A new size for a slice's rxq and trimq, in two steps so a request
 * that sets more than the queues can fail before anything changes: prepare
 * allocates (the only step that can fail), commit applies and cannot fail,
 * abort frees what prepare allocated. Caller holds slice->lock throughout.
 */
struct nsl_rxq_resize {
	void **rx_queue;		/* NULL: the size stays */
	void **trim_queue;
	unsigned int size;
};

int nsl_slice_rxq_resize_prepare(struct nsl_slice *slice, unsigned int size,
				 struct nsl_rxq_resize *rs);
void nsl_slice_rxq_resize_commit(struct nsl_slice *slice, struct nsl_rxq_resize *rs);
void nsl_slice_rxq_resize_abort(struct nsl_rxq_resize *rs);

struct nsl_slice *nsl_slices_create(unsigned int count, unsigned int rxq_size);
void nsl_slices_destroy(struct nsl_slice *slices, unsigned int count);

#endif /* _NETSLICE_SLICE_H */
