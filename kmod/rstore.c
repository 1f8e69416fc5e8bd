// SPDX-License-Identifier: GPL-2.0
/*
 * A ring's payload store: store.c's work for ring mode, without a lock on
 * the packet path. A ring has one producer of payloads, its RX (softirq,
 * or a kick moving records in; both under rx_lock), and one consumer, its
 * TX (kicks, under tx_lock), which also ages them out (ring.c's ageing
 * work, under tx_lock too). A slot changes hands by a store-release the
 * other side acquires, as the ring's entries do:
 *
 *   free -> parked: the producer takes the slot number at free_head of
 *     the free FIFO (free_tail, acquired, says one is there), fills the
 *     slot and publishes its handle;
 *   parked -> free: the consumer, which acquired the handle it matched,
 *     clears it and puts the slot number at free_tail.
 *
 * In between a slot is one side's alone; claimed is the consumer's mark of
 * a splice in progress. Handles have store.h's layout with NSL_HANDLE_RING
 * set, which sends a written handle here (write.c). Every payload is the
 * ring's file's, so there is no owner to check; stale and forged handles
 * are told apart as store.c does. A full store parks nothing (the packet
 * is delivered whole): only the consumer frees, by writing or ageing.
 */
#include <linux/jiffies.h>
#include <linux/log2.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <kunit/visibility.h>

#include "params.h"
#include "rstore.h"
#include "skb_cb.h"
#include "store.h"

int nsl_rstore_init(struct nsl_rstore *rs, unsigned int slice_id, unsigned int capacity,
		    spinlock_t *prod_lock, struct mutex *cons_lock)
{
	u32 size, i;

	if (!capacity || capacity > NSL_STORE_MAX_SIZE)
		return -EINVAL;
	size = roundup_pow_of_two(capacity);
	rs->slots = kvcalloc(capacity, sizeof(*rs->slots), GFP_KERNEL_ACCOUNT);
	rs->free = kvcalloc(size, sizeof(*rs->free), GFP_KERNEL_ACCOUNT);
	if (!rs->slots || !rs->free) {
		kvfree(rs->free);
		kvfree(rs->slots);
		rs->slots = NULL;
		rs->free = NULL;
		return -ENOMEM;
	}
	for (i = 0; i < capacity; i++)
		rs->free[i] = i;
	rs->free_mask = size - 1;
	rs->capacity = capacity;
	rs->slice_id = slice_id;
	rs->prod_lock = prod_lock;
	rs->cons_lock = cons_lock;
	rs->free_head = 0;
	rs->free_tail = capacity;
	/* A random start, as store.c's: a new ring's handles are not the last one's. */
	rs->tag = get_random_u64() & NSL_HANDLE_TAG_MASK;
	rs->parks = 0;
	rs->frees = 0;
	rs->high_water = 0;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(nsl_rstore_init);

u64 nsl_rstore_destroy(struct nsl_rstore *rs)
{
	u64 freed = 0;
	u32 i;

	for (i = 0; rs->slots && i < rs->capacity; i++) {
		if (!rs->slots[i].handle)
			continue;
		/* Claims end with the kick that made them. */
		WARN_ON_ONCE(rs->slots[i].claimed);
		kfree_skb(rs->slots[i].skb);
		freed++;
	}
	kvfree(rs->free);
	kvfree(rs->slots);
	rs->slots = NULL;
	rs->free = NULL;
	return freed;
}
EXPORT_SYMBOL_IF_KUNIT(nsl_rstore_destroy);

/*
 * Park skb, whose first off bytes the ring's file now holds; the store
 * takes the caller's reference. Returns the handle, or 0 (skb still the
 * caller's) when every slot holds a payload.
 */
u64 nsl_rstore_park(struct nsl_rstore *rs, struct sk_buff *skb, unsigned int off)
{
	struct nsl_rstore_slot *s;
	u32 avail, used;
	u64 handle;

	lockdep_assert_held(rs->prod_lock);
	/* Pairs with nsl_rstore_free_slot(): the slots it freed are cleared. */
	avail = smp_load_acquire(&rs->free_tail) - rs->free_head;
	if (!avail)
		return 0;
	s = &rs->slots[rs->free[rs->free_head++ & rs->free_mask]];
	s->skb = skb;
	s->off = off;
	s->parked_at = jiffies;
	rs->tag = nsl_handle_next_tag(rs->tag);
	handle = nsl_handle_make(rs->slice_id, s - rs->slots, rs->tag) | NSL_HANDLE_RING;
	/* The slot's fields before the handle that shows them to the consumer. */
	smp_store_release(&s->handle, handle);
	/* The handle before the count the ageing reads (nsl_rstore_parks()). */
	smp_store_release(&rs->parks, rs->parks + 1);
	used = rs->capacity - avail + 1;
	/* A counters reset writes it too (nsl_rstore_reset_high_water()). */
	if (used > READ_ONCE(rs->high_water))
		WRITE_ONCE(rs->high_water, used);
	return handle;
}
EXPORT_SYMBOL_IF_KUNIT(nsl_rstore_park);

/* The slot a handle names, parked and not claimed, or why it names none. */
static enum nsl_txerr nsl_rstore_lookup(struct nsl_rstore *rs, u64 handle,
					struct nsl_rstore_slot **slot)
{
	unsigned int n = nsl_handle_slot(handle);
	struct nsl_rstore_slot *s;

	lockdep_assert_held(rs->cons_lock);
	if (nsl_handle_slice(handle) != rs->slice_id || !(handle & NSL_HANDLE_RING))
		return NSL_TXERR_FOREIGN;
	if (n >= rs->capacity)
		return NSL_TXERR_FORGED;
	s = &rs->slots[n];
	/* Pairs with nsl_rstore_park(): a match sees the slot's fields whole. */
	if (handle != smp_load_acquire(&s->handle))
		return handle == s->prev_handle ? NSL_TXERR_STALE : NSL_TXERR_FORGED;
	if (s->claimed)
		return NSL_TXERR_STALE;
	*slot = s;
	return NSL_TXERR_NONE;
}

/* s's payload is gone: the slot goes back to the producer. */
static void nsl_rstore_free_slot(struct nsl_rstore *rs, struct nsl_rstore_slot *s)
{
	s->skb = NULL;
	s->claimed = false;
	s->prev_handle = s->handle;
	WRITE_ONCE(s->handle, 0);
	rs->free[rs->free_tail & rs->free_mask] = s - rs->slots;
	/* The slot cleared and its number written before the producer sees it. */
	smp_store_release(&rs->free_tail, rs->free_tail + 1);
	WRITE_ONCE(rs->frees, rs->frees + 1);
}

/*
 * Take the payload a handle names for a splice: until nsl_rstore_finish()
 * or nsl_rstore_unclaim(), in the same kick, no other iov can. 0, or why not.
 */
enum nsl_txerr nsl_rstore_claim(struct nsl_rstore *rs, u64 handle, struct sk_buff **skb,
				unsigned int *off)
{
	struct nsl_rstore_slot *s;
	enum nsl_txerr err;

	err = nsl_rstore_lookup(rs, handle, &s);
	if (err)
		return err;
	s->claimed = true;
	*skb = s->skb;
	*off = s->off;
	return NSL_TXERR_NONE;
}
EXPORT_SYMBOL_IF_KUNIT(nsl_rstore_claim);

/* Park a claimed payload again, starting at off; it keeps its park time. */
void nsl_rstore_unclaim(struct nsl_rstore *rs, u64 handle, unsigned int off)
{
	struct nsl_rstore_slot *s = &rs->slots[nsl_handle_slot(handle)];

	lockdep_assert_held(rs->cons_lock);
	WARN_ON_ONCE(!s->claimed || s->handle != handle);
	s->off = off;
	s->claimed = false;
}
EXPORT_SYMBOL_IF_KUNIT(nsl_rstore_unclaim);

/* The claimed skb reference is the caller's now: the slot and handle are gone. */
void nsl_rstore_finish(struct nsl_rstore *rs, u64 handle)
{
	struct nsl_rstore_slot *s = &rs->slots[nsl_handle_slot(handle)];

	lockdep_assert_held(rs->cons_lock);
	WARN_ON_ONCE(!s->claimed || s->handle != handle);
	nsl_rstore_free_slot(rs, s);
}
EXPORT_SYMBOL_IF_KUNIT(nsl_rstore_finish);

/* The port a parked payload arrived on, or 0 (no such payload). */
u32 nsl_rstore_port(struct nsl_rstore *rs, u64 handle)
{
	struct nsl_rstore_slot *s;

	if (nsl_rstore_lookup(rs, handle, &s))
		return 0;
	return nsl_rx_cb(s->skb)->port;
}
EXPORT_SYMBOL_IF_KUNIT(nsl_rstore_port);

/*
 * Free every payload in slots [first, end) parked timeout or longer ago,
 * adding to *aged. If any there is still parked, *parked is set and *next
 * (valid once *parked is) pulled to the soonest one due.
 */
static void nsl_rstore_expire_range(struct nsl_rstore *rs, u32 first, u32 end,
				    unsigned long now, unsigned long timeout,
				    unsigned long *next, bool *parked, u64 *aged)
{
	struct nsl_rstore_slot *s;
	unsigned long due;
	u32 i;

	lockdep_assert_held(rs->cons_lock);
	for (i = first; i < end; i++) {
		s = &rs->slots[i];
		/* Pairs with nsl_rstore_park(), as a lookup does. */
		if (!smp_load_acquire(&s->handle))
			continue;
		due = s->parked_at + timeout;
		if (!time_before(now, due)) {
			kfree_skb(s->skb);
			nsl_rstore_free_slot(rs, s);
			(*aged)++;
			continue;
		}
		if (!*parked || time_before(due, *next))
			*next = due;
		*parked = true;
	}
}

/*
 * Free every payload parked timeout or longer ago, adding to *aged; the
 * consumer's lock is taken here, NSL_RSTORE_AGE_SLOTS slots at a time, so
 * that a kick waits no longer than one such range takes (a store holds up
 * to 65,536). Returns whether any is still parked, and then *next: when
 * to look again. That is when the oldest is due, but not sooner than an
 * eighth of the timeout from now: a look reads every slot, and payloads
 * due one by one must not make it run once each.
 */
bool nsl_rstore_expire(struct nsl_rstore *rs, unsigned long now, unsigned long timeout,
		       unsigned long *next, u64 *aged)
{
	bool parked = false;
	u32 first;

	for (first = 0; first < rs->capacity; first += NSL_RSTORE_AGE_SLOTS) {
		mutex_lock(rs->cons_lock);
		nsl_rstore_expire_range(rs, first, min(rs->capacity, first + NSL_RSTORE_AGE_SLOTS),
					now, timeout, next, &parked, aged);
		mutex_unlock(rs->cons_lock);
		cond_resched();
	}
	if (parked && time_before(*next, now + timeout / 8))
		*next = now + timeout / 8;
	return parked;
}
EXPORT_SYMBOL_IF_KUNIT(nsl_rstore_expire);

u32 nsl_rstore_used(const struct nsl_rstore *rs)
{
	unsigned long frees = READ_ONCE(rs->frees);
	long used;

	/* frees before parks: what was freed was parked. */
	smp_rmb();
	/* Yet a park is counted after its handle is out: it may be freed first. */
	used = (long)(READ_ONCE(rs->parks) - frees);
	return max(used, 0L);
}
EXPORT_SYMBOL_IF_KUNIT(nsl_rstore_used);

void nsl_rstore_reset_high_water(struct nsl_rstore *rs)
{
	WRITE_ONCE(rs->high_water, nsl_rstore_used(rs));
}
