/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _NETSLICE_STORE_H
#define _NETSLICE_STORE_H

#include <linux/bits.h>
#include <linux/list.h>
#include <linux/skbuff.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/workqueue.h>

#include "txerr.h"

/*
 * Handle layout (opaque to user space), shared by the slice's store and a
 * ring's store (rstore.c):
 *   bits  0..15  slot
 *   bits 16..23  slice
 *   bits 24..62  tag: the store's park count, from a random start (39
 *                bits, never 0), so a slot's handles differ for 2^39 parks
 *   bit  63      set: parked by a ring's store, not the slice's
 */
#define NSL_HANDLE_SLOT_BITS	16
#define NSL_HANDLE_SLICE_SHIFT	16
#define NSL_HANDLE_TAG_SHIFT	24
#define NSL_HANDLE_TAG_MASK	GENMASK_ULL(62 - NSL_HANDLE_TAG_SHIFT, 0)
#define NSL_HANDLE_RING		BIT_ULL(63)

/* The handle of the payload parked in slot with tag (not 0). */
static inline u64 nsl_handle_make(unsigned int slice_id, unsigned int slot, u64 tag)
{
	return slot | (u64)slice_id << NSL_HANDLE_SLICE_SHIFT | tag << NSL_HANDLE_TAG_SHIFT;
}

static inline unsigned int nsl_handle_slot(u64 handle)
{
	return handle & (BIT(NSL_HANDLE_SLOT_BITS) - 1);
}

static inline unsigned int nsl_handle_slice(u64 handle)
{
	return handle >> NSL_HANDLE_SLICE_SHIFT & 0xff;
}

/* The next park's tag in a count: skips 0 when it wraps. */
static inline u64 nsl_handle_next_tag(u64 tag)
{
	tag = (tag + 1) & NSL_HANDLE_TAG_MASK;
	return tag ?: 1;
}

enum nsl_store_state {
	NSL_SLOT_FREE,
	NSL_SLOT_PARKED,		/* on the parked list, ageing */
	NSL_SLOT_CLAIMED,	/* taken by a writer for a splice in progress */
};

struct nsl_store_entry {
	struct sk_buff *skb;
	const void *owner;		/* the file that read the packet */
	struct list_head node;		/* on parked when parked; else on no list */
	unsigned long parked_at;	/* jiffies, when read parked it */
	u64 handle;			/* issued for the payload here; 0 when free */
	u64 prev_handle;		/* the slot's last handle before it */
	u16 off;			/* the payload starts here in skb */
	u8 state;
};

/*
 * The payload store of one slice: parked skbs whose headers user space
 * holds, found in O(1) from a handle. Process context (read, write,
 * release, the ageing work) with BHs off, and softirq: ring mode parks
 * on receive.
 */
struct nsl_store {
	spinlock_t lock;		/* protects every field below */
	struct nsl_store_entry *slots;
	u16 *free;			/* FIFO of slot numbers: reused round robin */
	u32 free_head;			/* next slot to park in: free[head & mask] */
	u32 free_tail;			/* where the next freed slot goes */
	u32 free_mask;			/* the FIFO's size (a power of two) - 1 */
	struct list_head parked;	/* oldest first */
	u64 tag;			/* the last park's handle tag (39 bits) */
	u32 capacity;
	u32 used;
	u32 high_water;
	u64 aged;			/* freed by ageing */
	u64 closed;			/* freed when their file closed */
	unsigned long timeout;		/* jiffies a payload may stay parked; WRITE_ONCE */
	u32 timeout_ms;			/* the same, as set */
	u8 slice_id;
	struct delayed_work ageing;
};

int nsl_store_init(struct nsl_store *st, unsigned int slice_id, unsigned int capacity,
		   unsigned int timeout_ms);
void nsl_store_destroy(struct nsl_store *st);

u64 nsl_store_park(struct nsl_store *st, struct sk_buff *skb, const void *owner,
		   unsigned int off);
u32 nsl_store_port(struct nsl_store *st, u64 handle, const void *owner);
enum nsl_txerr nsl_store_claim(struct nsl_store *st, u64 handle, const void *owner,
			       struct sk_buff **skb, unsigned int *off);
void nsl_store_unclaim(struct nsl_store *st, u64 handle, unsigned int off);
void nsl_store_finish_many(struct nsl_store *st, const u64 *handles, unsigned int n);
void nsl_store_release(struct nsl_store *st, const void *owner);

static inline void nsl_store_finish(struct nsl_store *st, u64 handle)
{
	nsl_store_finish_many(st, &handle, 1);
}

/*
 * Payloads a ring's store (rstore.c) freed, counted with the slice's, and
 * its high-water mark when it goes.
 */
void nsl_store_count_freed(struct nsl_store *st, u64 aged, u64 closed, u32 high_water);

/* How long a payload may stay parked, in jiffies: ring mode's stores age by it too. */
static inline unsigned long nsl_store_timeout(const struct nsl_store *st)
{
	return READ_ONCE(st->timeout);
}

/* Run-time settings (slice-set), with payloads parked. */
int nsl_store_resize(struct nsl_store *st, unsigned int capacity);
void nsl_store_set_timeout(struct nsl_store *st, unsigned int timeout_ms);
void nsl_store_limits(struct nsl_store *st, u32 *capacity, u32 *timeout_ms);

#if IS_ENABLED(CONFIG_KUNIT)
void nsl_store_expire(struct nsl_store *st, unsigned long now);
#endif

#endif /* _NETSLICE_STORE_H */
