// SPDX-License-Identifier: GPL-2.0
/*
 * The payload store (after PayloadPark): a slice parks the skbs of sliced
 * packets here while user space holds their headers, and finds them again
 * from a 64-bit handle when the header comes back.
 *
 * Handle layout, opaque to user space:
 *   bits  0..15  slot
 *   bits 16..23  slice
 *   bits 24..47  generation of the slot (1 .. 2^24-1; bumped on each free)
 *   bits 48..63  check: a keyed hash of the bits above
 * A handle whose check fails was not made here (forged); one of another
 * slice, or parked by another file, is foreign; one whose slot has moved
 * on to another generation is stale. Only an exact match is spliced, so a
 * payload goes only with the header of the file that read it.
 *
 * Parking, lookup and freeing are O(1): free slots are a FIFO list (so a
 * slot is reused as late as possible), parked ones a list in park order,
 * from whose head a delayed work ages them out.
 */
#include <linux/jiffies.h>
#include <linux/random.h>
#include <linux/siphash.h>
#include <linux/slab.h>
#include <kunit/visibility.h>

#include <linux/netslice.h>

#include "store.h"

#define NS_HANDLE_SLOT_BITS	16
#define NS_HANDLE_SLICE_SHIFT	16
#define NS_HANDLE_GEN_SHIFT	24
#define NS_HANDLE_CHECK_SHIFT	48

static hsiphash_key_t ns_handle_key __read_mostly;

void ns_store_key_init(void)
{
	get_random_bytes(&ns_handle_key, sizeof(ns_handle_key));
}

static u64 ns_handle_check(u64 body)
{
	return hsiphash_2u32(lower_32_bits(body), upper_32_bits(body), &ns_handle_key) & 0xffff;
}

VISIBLE_IF_KUNIT u64 ns_handle_make(unsigned int slice_id, unsigned int slot, u32 gen)
{
	u64 body = slot | (u64)slice_id << NS_HANDLE_SLICE_SHIFT | (u64)gen << NS_HANDLE_GEN_SHIFT;

	return body | ns_handle_check(body) << NS_HANDLE_CHECK_SHIFT;
}
EXPORT_SYMBOL_IF_KUNIT(ns_handle_make);

static unsigned int ns_handle_slot(u64 handle)
{
	return handle & (BIT(NS_HANDLE_SLOT_BITS) - 1);
}

static void ns_store_free_slot(struct ns_store *st, struct ns_store_entry *e)
{
	lockdep_assert_held(&st->lock);
	e->skb = NULL;
	e->owner = NULL;
	e->state = NS_SLOT_FREE;
	e->gen = e->gen % NS_HANDLE_GEN_MASK + 1;
	list_move_tail(&e->node, &st->free);
	st->used--;
}

/* Free every parked payload older than the timeout; caller frees *dead. */
static void __ns_store_expire(struct ns_store *st, unsigned long now,
			      struct sk_buff_head *dead)
{
	struct ns_store_entry *e, *tmp;

	lockdep_assert_held(&st->lock);
	list_for_each_entry_safe(e, tmp, &st->parked, node) {
		if (time_before(now, e->parked_at + st->timeout))
			break;
		__skb_queue_tail(dead, e->skb);
		ns_store_free_slot(st, e);
		st->aged++;
	}
}

VISIBLE_IF_KUNIT void ns_store_expire(struct ns_store *st, unsigned long now)
{
	struct sk_buff_head dead;

	__skb_queue_head_init(&dead);
	spin_lock(&st->lock);
	__ns_store_expire(st, now, &dead);
	spin_unlock(&st->lock);
	__skb_queue_purge(&dead);
}
EXPORT_SYMBOL_IF_KUNIT(ns_store_expire);

static void ns_store_ageing_work(struct work_struct *work)
{
	struct ns_store *st = container_of(to_delayed_work(work), struct ns_store, ageing);
	unsigned long next = 0;
	struct ns_store_entry *oldest;

	ns_store_expire(st, jiffies);

	spin_lock(&st->lock);
	oldest = list_first_entry_or_null(&st->parked, struct ns_store_entry, node);
	if (oldest)
		next = oldest->parked_at + st->timeout;
	spin_unlock(&st->lock);
	if (oldest)
		queue_delayed_work(system_power_efficient_wq, &st->ageing,
				   time_after(next, jiffies) ? next - jiffies : 1);
}

int ns_store_init(struct ns_store *st, unsigned int slice_id, unsigned int capacity,
		  unsigned int timeout_ms)
{
	unsigned int i;

	if (!capacity || capacity > NS_STORE_MAX_SIZE)
		return -EINVAL;
	/* Sized by a module parameter; a failure is reported by the caller. */
	st->slots = kvcalloc(capacity, sizeof(*st->slots), GFP_KERNEL | __GFP_NOWARN);
	if (!st->slots)
		return -ENOMEM;
	spin_lock_init(&st->lock);
	INIT_LIST_HEAD(&st->free);
	INIT_LIST_HEAD(&st->parked);
	for (i = 0; i < capacity; i++) {
		st->slots[i].gen = 1;
		list_add_tail(&st->slots[i].node, &st->free);
	}
	st->capacity = capacity;
	st->used = 0;
	st->high_water = 0;
	st->aged = 0;
	st->closed = 0;
	st->timeout = msecs_to_jiffies(timeout_ms);
	st->slice_id = slice_id;
	INIT_DELAYED_WORK(&st->ageing, ns_store_ageing_work);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(ns_store_init);

/* No file holds a handle any more: free what is still parked. */
void ns_store_destroy(struct ns_store *st)
{
	unsigned int i;

	cancel_delayed_work_sync(&st->ageing);
	for (i = 0; i < st->capacity; i++)
		kfree_skb(st->slots[i].skb);
	kvfree(st->slots);
}
EXPORT_SYMBOL_IF_KUNIT(ns_store_destroy);

/* Put e at the tail of the ageing list; true if the list was empty. */
static bool ns_store_age_from_now(struct ns_store *st, struct ns_store_entry *e)
{
	bool first = list_empty(&st->parked);

	lockdep_assert_held(&st->lock);
	e->state = NS_SLOT_PARKED;
	e->parked_at = jiffies;
	list_move_tail(&e->node, &st->parked);
	return first;
}

/* The ageing work runs while anything is parked. */
static void ns_store_start_ageing(struct ns_store *st)
{
	queue_delayed_work(system_power_efficient_wq, &st->ageing, st->timeout + 1);
}

/*
 * Park skb, whose first off bytes owner now holds; the store takes a
 * reference of its own. Returns the handle, or 0 when every slot holds a
 * payload younger than the timeout.
 */
u64 ns_store_park(struct ns_store *st, struct sk_buff *skb, const void *owner,
		  unsigned int off)
{
	struct sk_buff_head dead;
	struct ns_store_entry *e;
	bool first;
	u64 handle;

	__skb_queue_head_init(&dead);
	spin_lock(&st->lock);
	if (list_empty(&st->free))
		__ns_store_expire(st, jiffies, &dead);
	e = list_first_entry_or_null(&st->free, struct ns_store_entry, node);
	if (!e) {
		spin_unlock(&st->lock);
		return 0;
	}
	e->skb = skb_get(skb);
	e->owner = owner;
	e->off = off;
	first = ns_store_age_from_now(st, e);
	st->used++;
	st->high_water = max(st->high_water, st->used);
	handle = ns_handle_make(st->slice_id, e - st->slots, e->gen);
	spin_unlock(&st->lock);

	__skb_queue_purge(&dead);
	if (first)
		ns_store_start_ageing(st);
	return handle;
}
EXPORT_SYMBOL_IF_KUNIT(ns_store_park);

/* The entry a handle names, or a NETSLICE_TXERR_* code. */
static int ns_store_lookup(struct ns_store *st, u64 handle, const void *owner,
			   struct ns_store_entry **entry)
{
	unsigned int slot = ns_handle_slot(handle);
	u64 body = handle & (BIT_ULL(NS_HANDLE_CHECK_SHIFT) - 1);
	struct ns_store_entry *e;

	lockdep_assert_held(&st->lock);
	if (ns_handle_check(body) != handle >> NS_HANDLE_CHECK_SHIFT)
		return NETSLICE_TXERR_FORGED;
	if ((handle >> NS_HANDLE_SLICE_SHIFT & 0xff) != st->slice_id)
		return NETSLICE_TXERR_FOREIGN;
	if (slot >= st->capacity)
		return NETSLICE_TXERR_FORGED;
	e = &st->slots[slot];
	if (e->state != NS_SLOT_PARKED ||
	    e->gen != (handle >> NS_HANDLE_GEN_SHIFT & NS_HANDLE_GEN_MASK))
		return NETSLICE_TXERR_STALE;
	if (e->owner != owner)
		return NETSLICE_TXERR_FOREIGN;
	*entry = e;
	return 0;
}

/*
 * Take the payload a handle names for a splice: it leaves the ageing list
 * and no other writer can take it, until ns_store_finish() frees the slot
 * or ns_store_unclaim() parks it again. Returns 0 or NETSLICE_TXERR_*.
 */
int ns_store_claim(struct ns_store *st, u64 handle, const void *owner,
		   struct sk_buff **skb, unsigned int *off)
{
	struct ns_store_entry *e;
	int err;

	spin_lock(&st->lock);
	err = ns_store_lookup(st, handle, owner, &e);
	if (!err) {
		e->state = NS_SLOT_CLAIMED;
		list_del_init(&e->node);
		*skb = e->skb;
		*off = e->off;
	}
	spin_unlock(&st->lock);
	return err;
}
EXPORT_SYMBOL_IF_KUNIT(ns_store_claim);

/* Park a claimed payload again, under the same handle, starting at off. */
void ns_store_unclaim(struct ns_store *st, u64 handle, unsigned int off)
{
	struct ns_store_entry *e = &st->slots[ns_handle_slot(handle)];
	bool first;

	spin_lock(&st->lock);
	WARN_ON_ONCE(e->state != NS_SLOT_CLAIMED);
	e->off = off;
	first = ns_store_age_from_now(st, e);
	spin_unlock(&st->lock);
	if (first)
		ns_store_start_ageing(st);
}
EXPORT_SYMBOL_IF_KUNIT(ns_store_unclaim);

/* The claimed skb reference is the caller's now: the slot and handle are gone. */
void ns_store_finish(struct ns_store *st, u64 handle)
{
	struct ns_store_entry *e = &st->slots[ns_handle_slot(handle)];

	spin_lock(&st->lock);
	WARN_ON_ONCE(e->state != NS_SLOT_CLAIMED);
	ns_store_free_slot(st, e);
	spin_unlock(&st->lock);
}
EXPORT_SYMBOL_IF_KUNIT(ns_store_finish);

/*
 * Free what owner still holds, when its file closes. No call on that file
 * is in progress then, so none of its payloads is claimed.
 */
void ns_store_release(struct ns_store *st, const void *owner)
{
	struct ns_store_entry *e, *tmp;
	struct sk_buff_head dead;

	__skb_queue_head_init(&dead);
	spin_lock(&st->lock);
	list_for_each_entry_safe(e, tmp, &st->parked, node) {
		if (e->owner != owner)
			continue;
		__skb_queue_tail(&dead, e->skb);
		ns_store_free_slot(st, e);
		st->closed++;
	}
	spin_unlock(&st->lock);
	__skb_queue_purge(&dead);
}
EXPORT_SYMBOL_IF_KUNIT(ns_store_release);
