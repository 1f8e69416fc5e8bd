/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _NETSLICE_RING_TYPES_H
#define _NETSLICE_RING_TYPES_H

/* Ring mode's file state (ring.c, ring_rx.c): types and inline helpers only. */
#include <linux/fs.h>
#include <linux/mm_types.h>
#include <linux/mutex.h>
#include <linux/poll.h>
#include <linux/skbuff.h>
#include <linux/spinlock.h>
#include <linux/timer.h>
#include <linux/types.h>
#include <linux/workqueue.h>

#include <linux/netslice.h>

#include "rstore.h"

/* TX entries a kick takes at once. */
#define NSL_RING_TX_CHUNK	64

enum nsl_ring_region_id {
	NSL_RING_FRAMES,
	NSL_RING_RX,
	NSL_RING_TX,
	NSL_RING_COMP,
	NSL_RING_REGIONS
};

/* One region a process maps: the frame area or a ring. */
struct nsl_ring_region {
	void *mem;			/* vmalloc_user(), freed with the ring */
	size_t len;			/* whole pages */
	atomic_t maps;			/* vmas mapping it: one mapping at a time */
};

/*
 * The rings of the one file of a slice in ring mode (ring.c). The kernel
 * keeps its own copy of the indices it writes, and the last valid value
 * of those it reads: user space can change neither behind its back.
 */
struct nsl_ring {
	struct nsl_slice *slice;
	struct file *file;
	struct nsl_ring_region region[NSL_RING_REGIONS];
	u32 frame_size;			/* a power of two */
	u32 frame_shift;		/* its log2 */
	u32 busy_poll_us;		/* 0: no busy polling */
	bool busy_prefer;		/* NETSLICE_RING_BUSY_PREFER */
	unsigned int napi_id;		/* last seen on RX; WRITE_ONCE */

	spinlock_t rx_lock;		/* protects the rx_* fields: producing RX */
	struct netslice_ring_hdr *rx;
	struct netslice_iov *rx_entries;
	u32 rx_mask;
	u32 rx_prod;			/* ours; published to rx->producer */
	u32 rx_cons;			/* rx->consumer, last checked */
	u32 rx_woken;			/* rx_prod at the last wake-up */
	bool rx_trim_waiting;		/* records wait: the slice's trimq or unread */
	/*
	 * Per RX entry, the skb its frame was copied from, kept for the TX of
	 * that frame to send in (xchg() passes it between RX and a kick).
	 */
	struct sk_buff **rx_skb;
	/* Written by RX and by kicks: a line of its own. */
	atomic_t rx_kept ____cacheline_aligned_in_smp;	/* truesize of the skbs in rx_skb[] */
	int rx_keep_max;		/* rx_kept's bound: the RX frames' bytes */

	struct mutex tx_lock;		/* protects tx_*, comp_*: one kick at a time */
	struct netslice_ring_hdr *tx;
	struct netslice_iov *tx_entries;
	u32 tx_mask;
	u32 tx_cons;			/* ours; published to tx->consumer */
	bool tx_busy;			/* the last kick found the egress stopped */
	struct timer_list tx_timer;	/* while tx_busy: wakes pollers to retry */
	unsigned long tx_retry;		/* jiffies until the next retry */
	struct netslice_ring_hdr *comp;
	struct netslice_ring_comp *comp_entries;
	u32 comp_mask;
	u32 comp_prod;			/* ours; published to comp->producer */
	u32 comp_cons;			/* comp->consumer, last checked */
	struct netslice_iov tx_batch[NSL_RING_TX_CHUNK];
	u16 tx_errs[NSL_RING_TX_CHUNK];
	struct sk_buff *tx_reuse[NSL_RING_TX_CHUNK];

	/*
	 * Payloads RX parks (producer, rx_lock) and TX splices or ages out
	 * (consumer, tx_lock): rstore.c. The ageing work runs while anything
	 * is parked; ageing_off says it stopped (nsl_ring_age_start()).
	 */
	struct nsl_rstore store;
	struct delayed_work ageing;
	bool ageing_off;		/* WRITE_ONCE: RX and the work write it */

	/* Charged at setup, given back at release (nsl_ring_charge()). */
	struct user_struct *user;	/* NULL: CAP_IPC_LOCK, no RLIMIT_MEMLOCK */
	unsigned long npages;
};

/*
 * An RX call moved the producer index from prod_before to prod: is a
 * wake-up due? woken is the producer index at the last wake-up: the
 * entries before it were announced. Due when the process's consumer
 * index cons has caught up with woken: it has released everything it was
 * woken for, and may be asleep (an edge-triggered epoll waiter is woken
 * by nothing else). Not due while it holds entries of the last wake-up:
 * it looks at the ring again before it sleeps (uapi, "Ring mode"), so a
 * burst wakes a sleeper once. An entry published while the process was
 * releasing its last ones wakes nobody itself; the process sees it in the
 * look it takes after releasing, and the next call wakes it if it slept
 * anyway. The indexes wrap; a cons past prod is not a consumer index.
 */
static inline bool nsl_ring_rx_wake_due_at(u32 woken, u32 prod_before, u32 prod, u32 cons)
{
	return prod != prod_before && cons - woken <= prod - woken;
}

#endif /* _NETSLICE_RING_TYPES_H */
