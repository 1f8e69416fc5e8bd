/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _NETSLICE_RSTORE_H
#define _NETSLICE_RSTORE_H

#include <linux/cache.h>
#include <linux/mutex.h>
#include <linux/skbuff.h>
#include <linux/spinlock.h>
#include <linux/types.h>

#include "txerr.h"

struct nsl_rstore_slot {
	struct sk_buff *skb;
	unsigned long parked_at;	/* jiffies */
	u64 handle;			/* 0: free; else published by the producer */
	u64 prev_handle;		/* the consumer's: the slot's last handle */
	u16 off;			/* the payload starts here in skb */
	bool claimed;			/* the consumer's: a splice is in progress */
};

/*
 * A ring's payload store (rstore.c): one producer, the ring's RX (under
 * *prod_lock), and one consumer, its kicks and its ageing (under
 * *cons_lock). No lock of its own: slots pass between them by index, as
 * the ring's entries do.
 */
struct nsl_rstore {
	struct nsl_rstore_slot *slots;
	u16 *free;			/* FIFO of free slot numbers */
	u32 free_mask;			/* its size (a power of two) - 1 */
	u32 capacity;
	u8 slice_id;
	spinlock_t *prod_lock;		/* held by the producer: lockdep's */
	struct mutex *cons_lock;	/* held by the consumer: lockdep's */

	/* The producer's. */
	u32 free_head ____cacheline_aligned_in_smp;	/* the next slot to park in */
	u64 tag;			/* the last park's tag */
	unsigned long parks;		/* payloads parked, ever; store-release */
	u32 high_water;			/* most parked at once; WRITE_ONCE */

	/* The consumer's. */
	u32 free_tail ____cacheline_aligned_in_smp;	/* store-release: freed before it */
	unsigned long frees;		/* payloads freed, ever; WRITE_ONCE */
};

int nsl_rstore_init(struct nsl_rstore *rs, unsigned int slice_id, unsigned int capacity,
		    spinlock_t *prod_lock, struct mutex *cons_lock);
/* No producer or consumer is left: frees what is parked, returns how many. */
u64 nsl_rstore_destroy(struct nsl_rstore *rs);

/* Producer. */
u64 nsl_rstore_park(struct nsl_rstore *rs, struct sk_buff *skb, unsigned int off);

/* unsigned long, not u64: a release store on 32-bit kernels too. */
static inline unsigned long nsl_rstore_parks(const struct nsl_rstore *rs)
{
	/* Pairs with nsl_rstore_park(): the handles it counted are published. */
	return smp_load_acquire(&rs->parks);
}

/* Consumer. */
enum nsl_txerr nsl_rstore_claim(struct nsl_rstore *rs, u64 handle, struct sk_buff **skb,
				unsigned int *off);
void nsl_rstore_unclaim(struct nsl_rstore *rs, u64 handle, unsigned int off);
void nsl_rstore_finish(struct nsl_rstore *rs, u64 handle);
u32 nsl_rstore_port(struct nsl_rstore *rs, u64 handle);
/* The ageing: takes *cons_lock itself, a range of slots at a time. */
#define NSL_RSTORE_AGE_SLOTS	1024
bool nsl_rstore_expire(struct nsl_rstore *rs, unsigned long now, unsigned long timeout,
		       unsigned long *next, u64 *aged);

/* Anyone: what the slice's counters report of it. */
u32 nsl_rstore_used(const struct nsl_rstore *rs);
void nsl_rstore_reset_high_water(struct nsl_rstore *rs);

#endif /* _NETSLICE_RSTORE_H */
