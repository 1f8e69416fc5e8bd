// SPDX-License-Identifier: GPL-2.0
/*
 * The payload store (after PayloadPark): a slice parks the skbs of cut
 * packets here while user space holds their headers, and finds them again
 * from a 64-bit handle when the header comes back.
 *
 * The handle (its layout in store.h) names the slot and the slice, and a
 * tag: the store's park count. The slot keeps the handle it issued, and
 * the one before: only an exact match is spliced. The tag tells a slot's
 * generations apart; it is not a secret, and need not be: a payload goes
 * only with the header of the file that read it (the owner check), so a
 * made-up handle can name at most the maker's own payload. A handle of
 * another slice, parked by another file or by a ring's store (rstore.c),
 * is foreign; the slot's current handle while a writer holds it, or its
 * previous one, is stale; anything else was not issued by this store
 * lately (forged). (A keyed hash made the tags until 0.5: siphash cost
 * 150 of the 3,790 instructions a cut 1518-byte frame cost in ring
 * mode, as the bench measured then.)
 *
 * Parking, lookup and freeing are O(1) and touch one list at most: free
 * slots are a FIFO of slot numbers (so a slot is reused as late as
 * possible), parked ones a list in park order, from whose head a delayed
 * work ages them out; a claimed slot is on neither.
 */
#include <linux/jiffies.h>
#include <linux/log2.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <kunit/visibility.h>

#include <linux/netslice.h>

#include "params.h"
#include "skb_cb.h"
#include "store.h"

/* The next park's tag. */
static u64 nsl_store_next_tag(struct nsl_store *st)
{
	lockdep_assert_held(&st->lock);
	st->tag = nsl_handle_next_tag(st->tag);
	return st->tag;
}

/* The free FIFO: slot numbers, oldest freed first; capacity - used of them. */
static void nsl_store_push_free(struct nsl_store *st, struct nsl_store_entry *e)
{
	lockdep_assert_held(&st->lock);
	st->free[st->free_tail++ & st->free_mask] = e - st->slots;
}

static struct nsl_store_entry *nsl_store_pop_free(struct nsl_store *st)
{
	lockdep_assert_held(&st->lock);
	if (st->used == st->capacity)
		return NULL;
	return &st->slots[st->free[st->free_head++ & st->free_mask]];
}

/* e's payload is gone: e, on no list now, goes to the free FIFO. */
static void nsl_store_free_slot(struct nsl_store *st, struct nsl_store_entry *e)
{
	lockdep_assert_held(&st->lock);
	e->skb = NULL;
	e->owner = NULL;
	e->state = NSL_SLOT_FREE;
	e->prev_handle = e->handle;
	e->handle = 0;
	nsl_store_push_free(st, e);
	st->used--;
}

/* Free every parked payload older than the timeout; caller frees *dead. */
static void __nsl_store_expire(struct nsl_store *st, unsigned long now,
			       struct sk_buff_head *dead)
{
	struct nsl_store_entry *e, *tmp;

	lockdep_assert_held(&st->lock);
	list_for_each_entry_safe(e, tmp, &st->parked, node) {
		if (time_before(now, e->parked_at + st->timeout))
			break;
		__skb_queue_tail(dead, e->skb);
		list_del(&e->node);
		nsl_store_free_slot(st, e);
		st->aged++;
	}
}

VISIBLE_IF_KUNIT void nsl_store_expire(struct nsl_store *st, unsigned long now)
{
	struct sk_buff_head dead;

	__skb_queue_head_init(&dead);
	spin_lock_bh(&st->lock);
	__nsl_store_expire(st, now, &dead);
	spin_unlock_bh(&st->lock);
	__skb_queue_purge(&dead);
}
EXPORT_SYMBOL_IF_KUNIT(nsl_store_expire);

static void nsl_store_ageing_work(struct work_struct *work)
{
	struct nsl_store *st = container_of(to_delayed_work(work), struct nsl_store, ageing);
	unsigned long next = 0;
	struct nsl_store_entry *oldest;

	nsl_store_expire(st, jiffies);

	spin_lock_bh(&st->lock);
	oldest = list_first_entry_or_null(&st->parked, struct nsl_store_entry, node);
	if (oldest)
		next = oldest->parked_at + st->timeout;
	spin_unlock_bh(&st->lock);
	if (oldest)
		queue_delayed_work(system_power_efficient_wq, &st->ageing,
				   time_after(next, jiffies) ? next - jiffies : 1);
}

/* The free FIFO of a store of capacity slots: a power of two of slot numbers. */
static u16 *nsl_store_alloc_free(unsigned int capacity)
{
	return kvcalloc(roundup_pow_of_two(capacity), sizeof(u16), GFP_KERNEL | __GFP_NOWARN);
}

int nsl_store_init(struct nsl_store *st, unsigned int slice_id, unsigned int capacity,
		   unsigned int timeout_ms)
{
	unsigned int i;

	if (!capacity || capacity > NSL_STORE_MAX_SIZE)
		return -EINVAL;
	/* Sized by a module parameter; a failure is reported by the caller. */
	st->slots = kvcalloc(capacity, sizeof(*st->slots), GFP_KERNEL | __GFP_NOWARN);
	if (!st->slots)
		return -ENOMEM;
	st->free = nsl_store_alloc_free(capacity);
	if (!st->free) {
		kvfree(st->slots);
		return -ENOMEM;
	}
	spin_lock_init(&st->lock);
	INIT_LIST_HEAD(&st->parked);
	st->free_mask = roundup_pow_of_two(capacity) - 1;
	st->free_head = 0;
	st->free_tail = 0;
	for (i = 0; i < capacity; i++)
		st->free[st->free_tail++] = i;
	/* A random start: handles of a reloaded module are not the last one's. */
	st->tag = get_random_u64() & NSL_HANDLE_TAG_MASK;
	st->capacity = capacity;
	st->used = 0;
	st->high_water = 0;
	st->aged = 0;
	st->closed = 0;
	st->timeout = msecs_to_jiffies(timeout_ms);
	st->timeout_ms = timeout_ms;
	st->slice_id = slice_id;
	INIT_DELAYED_WORK(&st->ageing, nsl_store_ageing_work);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(nsl_store_init);

/* No file holds a handle any more: free what is still parked. */
void nsl_store_destroy(struct nsl_store *st)
{
	unsigned int i;

	cancel_delayed_work_sync(&st->ageing);
	for (i = 0; i < st->capacity; i++)
		kfree_skb(st->slots[i].skb);
	kvfree(st->free);
	kvfree(st->slots);
}
EXPORT_SYMBOL_IF_KUNIT(nsl_store_destroy);

/*
 * Put e (on no list) back on the ageing list, which is in park order, by
 * e->parked_at: a payload ages from when it was parked, however often a
 * writer claims it and gives it back. Returns true if the list was empty.
 * (A new payload is the youngest: nsl_store_park() adds it at the tail.)
 */
static bool nsl_store_age(struct nsl_store *st, struct nsl_store_entry *e)
{
	bool first = list_empty(&st->parked);
	struct nsl_store_entry *prev;

	lockdep_assert_held(&st->lock);
	e->state = NSL_SLOT_PARKED;
	/* Most payloads are the youngest: the search is short from the tail. */
	list_for_each_entry_reverse(prev, &st->parked, node)
		if (!time_after(prev->parked_at, e->parked_at))
			break;
	list_add(&e->node, &prev->node);
	return first;
}

/* The ageing work runs while anything is parked. */
static void nsl_store_start_ageing(struct nsl_store *st)
{
	queue_delayed_work(system_power_efficient_wq, &st->ageing, st->timeout + 1);
}

/*
 * Park skb, whose first off bytes owner now holds. The store takes the
 * caller's reference: the caller must not touch skb again unless it
 * claims the handle back. Returns the handle, or 0 (skb still the
 * caller's) when every slot holds a payload younger than the timeout.
 */
u64 nsl_store_park(struct nsl_store *st, struct sk_buff *skb, const void *owner,
		   unsigned int off)
{
	struct sk_buff_head dead;
	struct nsl_store_entry *e;
	bool first;
	u64 handle;

	__skb_queue_head_init(&dead);
	spin_lock_bh(&st->lock);
	if (st->used == st->capacity)
		__nsl_store_expire(st, jiffies, &dead);
	e = nsl_store_pop_free(st);
	if (!e) {
		spin_unlock_bh(&st->lock);
		return 0;
	}
	e->skb = skb;
	e->owner = owner;
	e->off = off;
	e->parked_at = jiffies;
	handle = nsl_handle_make(st->slice_id, e - st->slots, nsl_store_next_tag(st));
	e->handle = handle;
	e->state = NSL_SLOT_PARKED;
	/* Parked now, so the youngest: no search for its place. */
	first = list_empty(&st->parked);
	list_add_tail(&e->node, &st->parked);
	st->used++;
	st->high_water = max(st->high_water, st->used);
	spin_unlock_bh(&st->lock);

	__skb_queue_purge(&dead);
	if (first)
		nsl_store_start_ageing(st);
	return handle;
}
EXPORT_SYMBOL_IF_KUNIT(nsl_store_park);

/* The entry a handle names, or why it names none. */
static enum nsl_txerr nsl_store_lookup(struct nsl_store *st, u64 handle, const void *owner,
				       struct nsl_store_entry **entry)
{
	unsigned int slot = nsl_handle_slot(handle);
	struct nsl_store_entry *e;

	lockdep_assert_held(&st->lock);
	if (!handle)	/* never issued: it means "no payload" on write */
		return NSL_TXERR_FORGED;
	if (nsl_handle_slice(handle) != st->slice_id || handle & NSL_HANDLE_RING)
		return NSL_TXERR_FOREIGN;
	if (slot >= st->capacity)
		return NSL_TXERR_FORGED;
	e = &st->slots[slot];
	if (handle != e->handle)
		return handle == e->prev_handle ? NSL_TXERR_STALE : NSL_TXERR_FORGED;
	if (e->state != NSL_SLOT_PARKED)
		return NSL_TXERR_STALE;
	if (e->owner != owner)
		return NSL_TXERR_FOREIGN;
	*entry = e;
	return NSL_TXERR_NONE;
}

/* The port a parked payload arrived on, or 0 (no such payload of owner's). */
u32 nsl_store_port(struct nsl_store *st, u64 handle, const void *owner)
{
	struct nsl_store_entry *e;
	u32 port = 0;

	spin_lock_bh(&st->lock);
	if (!nsl_store_lookup(st, handle, owner, &e))
		port = nsl_rx_cb(e->skb)->port;
	spin_unlock_bh(&st->lock);
	return port;
}

/*
 * Take the payload a handle names for a splice: it leaves the ageing list
 * and no other writer can take it, until nsl_store_finish() frees the slot
 * or nsl_store_unclaim() parks it again. Returns 0, or why not.
 */
enum nsl_txerr nsl_store_claim(struct nsl_store *st, u64 handle, const void *owner,
			       struct sk_buff **skb, unsigned int *off)
{
	struct nsl_store_entry *e;
	enum nsl_txerr err;

	spin_lock_bh(&st->lock);
	err = nsl_store_lookup(st, handle, owner, &e);
	if (!err) {
		e->state = NSL_SLOT_CLAIMED;
		list_del(&e->node);
		*skb = e->skb;
		*off = e->off;
	}
	spin_unlock_bh(&st->lock);
	return err;
}
EXPORT_SYMBOL_IF_KUNIT(nsl_store_claim);

/*
 * Park a claimed payload again, under the same handle, starting at off. It
 * keeps its park time: a writer that keeps failing does not keep it alive.
 */
void nsl_store_unclaim(struct nsl_store *st, u64 handle, unsigned int off)
{
	struct nsl_store_entry *e;
	bool first;

	spin_lock_bh(&st->lock);
	/* Under the lock: a resize (nsl_store_resize()) moves the slots. */
	e = &st->slots[nsl_handle_slot(handle)];
	WARN_ON_ONCE(e->state != NSL_SLOT_CLAIMED);
	e->off = off;
	first = nsl_store_age(st, e);
	spin_unlock_bh(&st->lock);
	if (first)
		nsl_store_start_ageing(st);
}
EXPORT_SYMBOL_IF_KUNIT(nsl_store_unclaim);

/*
 * The claimed skb references are the caller's now: the slots and handles
 * are gone. One lock round for a whole run of sent frames (write.c).
 */
void nsl_store_finish_many(struct nsl_store *st, const u64 *handles, unsigned int n)
{
	struct nsl_store_entry *e;
	unsigned int i;

	spin_lock_bh(&st->lock);
	for (i = 0; i < n; i++) {
		e = &st->slots[nsl_handle_slot(handles[i])];
		WARN_ON_ONCE(e->state != NSL_SLOT_CLAIMED);
		nsl_store_free_slot(st, e);
	}
	spin_unlock_bh(&st->lock);
}
EXPORT_SYMBOL_IF_KUNIT(nsl_store_finish_many);

/*
 * Free what owner still holds, when its file closes. No call on that file
 * is in progress then, so none of its payloads is claimed.
 */
void nsl_store_release(struct nsl_store *st, const void *owner)
{
	struct nsl_store_entry *e, *tmp;
	struct sk_buff_head dead;

	__skb_queue_head_init(&dead);
	spin_lock_bh(&st->lock);
	list_for_each_entry_safe(e, tmp, &st->parked, node) {
		if (e->owner != owner)
			continue;
		__skb_queue_tail(&dead, e->skb);
		list_del(&e->node);
		nsl_store_free_slot(st, e);
		st->closed++;
	}
	spin_unlock_bh(&st->lock);
	__skb_queue_purge(&dead);
}
EXPORT_SYMBOL_IF_KUNIT(nsl_store_release);

/*
 * Change the capacity while payloads come and go: the slots move to a new
 * array in place order, so every handle stays valid. Fails -EBUSY when a
 * slot past a smaller capacity holds a payload (it frees as it is
 * written or ages out: try again), -ENOMEM without memory.
 */
int nsl_store_resize(struct nsl_store *st, unsigned int capacity)
{
	struct nsl_store_entry *slots, *old, *e;
	u32 free_mask, free_tail = 0, slot;
	LIST_HEAD(parked);
	u16 *free, *old_free;
	unsigned int i;

	if (!capacity || capacity > NSL_STORE_MAX_SIZE)
		return -EINVAL;
	slots = kvcalloc(capacity, sizeof(*slots), GFP_KERNEL | __GFP_NOWARN);
	free = nsl_store_alloc_free(capacity);
	if (!slots || !free)
		goto err_free;
	free_mask = roundup_pow_of_two(capacity) - 1;
	spin_lock_bh(&st->lock);
	for (i = capacity; i < st->capacity; i++) {
		if (st->slots[i].state != NSL_SLOT_FREE) {
			spin_unlock_bh(&st->lock);
			kvfree(free);
			kvfree(slots);
			return -EBUSY;
		}
	}
	old = st->slots;
	old_free = st->free;
	memcpy(slots, old, min(capacity, st->capacity) * sizeof(*slots));
	/* The ageing list and the free FIFO, rebuilt in their order. */
	list_for_each_entry(e, &st->parked, node)
		list_add_tail(&slots[e - old].node, &parked);
	for (; st->free_head != st->free_tail; st->free_head++) {
		slot = old_free[st->free_head & st->free_mask];
		if (slot < capacity)
			free[free_tail++] = slot;
	}
	for (i = st->capacity; i < capacity; i++)
		free[free_tail++] = i;
	INIT_LIST_HEAD(&st->parked);
	list_splice(&parked, &st->parked);
	st->slots = slots;
	st->free = free;
	st->free_mask = free_mask;
	st->free_head = 0;
	st->free_tail = free_tail;
	st->capacity = capacity;
	spin_unlock_bh(&st->lock);
	kvfree(old_free);
	kvfree(old);
	return 0;

err_free:
	kvfree(free);
	kvfree(slots);
	return -ENOMEM;
}
EXPORT_SYMBOL_IF_KUNIT(nsl_store_resize);

/* Payloads parked from now on, and those parked already, age by timeout_ms. */
void nsl_store_set_timeout(struct nsl_store *st, unsigned int timeout_ms)
{
	spin_lock_bh(&st->lock);
	WRITE_ONCE(st->timeout, msecs_to_jiffies(timeout_ms));
	st->timeout_ms = timeout_ms;
	spin_unlock_bh(&st->lock);
	/* A shorter timeout may be due already: look now, not at the old time. */
	mod_delayed_work(system_power_efficient_wq, &st->ageing, 0);
}

void nsl_store_count_freed(struct nsl_store *st, u64 aged, u64 closed, u32 high_water)
{
	spin_lock_bh(&st->lock);
	st->aged += aged;
	st->closed += closed;
	st->high_water = max(st->high_water, high_water);
	spin_unlock_bh(&st->lock);
}

/* What the slice's settings report. */
void nsl_store_limits(struct nsl_store *st, u32 *capacity, u32 *timeout_ms)
{
	spin_lock_bh(&st->lock);
	*capacity = st->capacity;
	*timeout_ms = st->timeout_ms;
	spin_unlock_bh(&st->lock);
}
