// SPDX-License-Identifier: GPL-2.0
/*
 * Ring mode's receive side: RX (softirq, or a chain's handoff with BHs
 * off) copies each packet, or its cut, into the frame of the next RX
 * entry of a file's ring and keeps the skb for that entry, under
 * rx_lock; and what a kick (ring.c) needs of it to move trimmed records
 * in and wake the process. The contexts and locks are ring.c's.
 */
#include <linux/netdevice.h>
#include <linux/poll.h>
#include <linux/rcupdate.h>
#include <linux/skbuff.h>
#include <net/busy_poll.h>

#include <linux/netslice.h>

#include "counters.h"
#include "deliver.h"
#include "ring_rx.h"
#include "slice.h"

/* Room for n more RX entries: the user's consumer index, checked. */
static bool nsl_ring_rx_room_for(struct nsl_ring *ring, u32 n)
{
	u32 size = ring->rx_mask + 1, cons;

	lockdep_assert_held(&ring->rx_lock);
	if (n > size)
		return false;
	if (ring->rx_prod - ring->rx_cons <= size - n)
		return true;
	/* Pairs with the process's release: its reads of those frames are done. */
	cons = smp_load_acquire(&ring->rx->consumer);
	/* Past our producer: not a consumer index. The ring stays full. */
	if (ring->rx_prod - cons > size)
		return false;
	ring->rx_cons = cons;
	return ring->rx_prod - cons <= size - n;
}

static bool nsl_ring_rx_room(struct nsl_ring *ring)
{
	return nsl_ring_rx_room_for(ring, 1);
}

/*
 * An skb delivered whole can carry its frame out again: not shared with
 * anyone (no clone, no page fragments), not a super-packet.
 */
static bool nsl_ring_skb_reusable(const struct sk_buff *skb)
{
	return !skb_cloned(skb) && !skb_is_nonlinear(skb) && !skb_is_gso(skb) &&
	       refcount_read(&skb->users) == 1;
}

/*
 * Keep skb (or nothing) as the container of RX slot's frame, freeing the
 * one kept before: a frame sent from its RX slot goes out in the skb it
 * came in (nsl_tx_ring()), no allocation on the NF's CPU and no free here.
 * Kept buffers pin memory nobody is charged for: their truesize stays
 * within the RX frames' bytes (rx_keep_max), beyond which skb is not
 * kept. Whether it was.
 */
static bool nsl_ring_keep(struct nsl_ring *ring, u32 slot, struct sk_buff *skb,
			  struct sk_buff **dead)
{
	/* Ours once taken: a kick may take and free it meanwhile otherwise. */
	struct sk_buff *old = xchg(&ring->rx_skb[slot], NULL);
	int delta = 0;

	if (old) {
		delta -= old->truesize;
		old->next = *dead;
		*dead = old;
	}
	if (skb && atomic_read(&ring->rx_kept) + delta + (int)skb->truesize > ring->rx_keep_max)
		skb = NULL;
	if (skb) {
		delta += skb->truesize;
		/* RX alone stores a buffer; a kick's xchg() sees it whole. */
		smp_store_release(&ring->rx_skb[slot], skb);
	}
	if (delta)
		atomic_add(delta, &ring->rx_kept);
	return skb;
}

/*
 * Fill the next RX entry and its frame from *skbp and publish it. Returns
 * NSL_DELIVERED, with *skbp parked, kept for its slot, or put on *dead to
 * be freed; NSL_DELIVER_SEGMENTED (nsl_deliver_fill()) with *skbp its
 * segments, nothing published; or NSL_DELIVER_FAILED (a packet the skb
 * code refused to copy), *skbp on *dead, nothing published or counted.
 */
static enum nsl_deliver_result nsl_ring_rx_put(struct nsl_ring *ring, struct sk_buff **skbp,
					       struct sk_buff **dead)
{
	u32 slot = ring->rx_prod & ring->rx_mask;
	struct netslice_iov iov = {
		.base = (u64)slot * ring->frame_size,
		.len = ring->frame_size,
	};
	struct nsl_deliver_dst dst = {
		.kbuf = ring->region[NSL_RING_FRAMES].mem + iov.base,
		.rstore = &ring->store,
	};
	enum nsl_deliver_result res;

	lockdep_assert_held(&ring->rx_lock);
	res = nsl_deliver_fill(ring->slice, ring->file, skbp, &dst, &iov);
	if (unlikely(res != NSL_DELIVERED)) {
		if (res == NSL_DELIVER_FAILED) {
			(*skbp)->next = *dead;
			*dead = *skbp;
		}
		return res;
	}
	ring->rx_entries[slot] = iov;
	/* The entry and its frame before the index that shows them. */
	smp_store_release(&ring->rx->producer, ++ring->rx_prod);
	nsl_deliver_count(ring->slice, &iov);
	if (nsl_ring_keep(ring, slot, !iov.handle && nsl_ring_skb_reusable(*skbp) ? *skbp : NULL,
			  dead))
		return NSL_DELIVERED;
	if (!iov.handle) {
		(*skbp)->next = *dead;
		*dead = *skbp;
	}
	return NSL_DELIVERED;
}

/*
 * The segments a super-packet became, each whole, in order: all of them,
 * or none when the ring has no room for all (-ENOSPC, freed): one packet
 * counts once. -EIO: segmenting failed (nsl_deliver_segment() counted it).
 */
static int nsl_ring_rx_segments(struct nsl_ring *ring, struct sk_buff *segs,
				struct sk_buff **dead)
{
	struct sk_buff *seg, *next;
	u32 n = 0;

	if (!segs)
		return -EIO;
	skb_list_walk_safe(segs, seg, next)
		n++;
	if (!nsl_ring_rx_room_for(ring, n)) {
		kfree_skb_list(segs);
		return -ENOSPC;
	}
	skb_list_walk_safe(segs, seg, next) {
		skb_mark_not_on_list(seg);
		/* Only a copy the skb code refused fails: one segment lost. */
		nsl_ring_rx_put(ring, &seg, dead);
	}
	return 0;
}

/*
 * Move waiting records in, oldest first, while there is room: those a
 * purge (a detach) put back on the slice's unread queue, then trimmed ones.
 */
void nsl_ring_rx_trimmed(struct nsl_ring *ring, struct sk_buff **dead)
{
	struct nsl_slice *slice = ring->slice;
	struct sk_buff *rec;

	lockdep_assert_held(&ring->rx_lock);
	while (nsl_ring_rx_room(ring)) {
		rec = skb_dequeue(&slice->unread);
		if (!rec)
			rec = ptr_ring_consume(&slice->trimq);
		if (!rec)
			break;
		/* Records are never GSO; what else a purge kept may be. */
		if (nsl_ring_rx_put(ring, &rec, dead) == NSL_DELIVER_SEGMENTED)
			nsl_ring_rx_segments(ring, rec, dead);
	}
	ring->rx_trim_waiting = !skb_queue_empty_lockless(&slice->unread) ||
				!ptr_ring_empty(&slice->trimq);
	if (ring->rx_trim_waiting)
		ring->rx->flags |= NETSLICE_RING_NEED_WAKEUP;
	else
		ring->rx->flags &= ~NETSLICE_RING_NEED_WAKEUP;
}

/*
 * Wake the process only if it may sleep on what it was woken for
 * (nsl_ring_rx_wake_due_at()): a burst wakes a sleeper once, not once per
 * packet, also for an edge-triggered epoll.
 */
bool nsl_ring_rx_wake_due(struct nsl_ring *ring, u32 prod_before)
{
	lockdep_assert_held(&ring->rx_lock);
	/* Nothing published, so nothing parked: nsl_ring_age_start() needs no barrier. */
	if (ring->rx_prod == prod_before)
		return false;
	/*
	 * Published before the consumer index is read: pairs with
	 * nsl_ring_poll(). It also orders a park before the read of
	 * ageing_off (nsl_ring_age_start()).
	 */
	smp_mb();
	if (!nsl_ring_rx_wake_due_at(ring->rx_woken, prod_before, ring->rx_prod,
				     READ_ONCE(ring->rx->consumer)))
		return false;
	ring->rx_woken = ring->rx_prod;
	return true;
}

/*
 * Under rx_lock, after nsl_ring_rx_wake_due(): start the ageing if this
 * call parked (parks moved from parks_before) and it had stopped. A park
 * published an entry, so wake_due's smp_mb() ordered the park before the
 * read of ageing_off: either the work's last look counted the park
 * (nsl_ring_ageing()), or this sees ageing_off set.
 */
void nsl_ring_age_start(struct nsl_ring *ring, unsigned long parks_before)
{
	lockdep_assert_held(&ring->rx_lock);
	if (ring->store.parks == parks_before || !READ_ONCE(ring->ageing_off))
		return;
	WRITE_ONCE(ring->ageing_off, false);
	queue_delayed_work(system_power_efficient_wq, &ring->ageing,
			   nsl_store_timeout(&ring->slice->store) + 1);
}

/* After rx_lock: wake the pollers if nsl_ring_rx_wake_due() said so. */
void nsl_ring_rx_wake(struct nsl_ring *ring, bool due)
{
	/* The smp_mb() of nsl_ring_rx_wake_due() orders this read. */
	if (due && waitqueue_active(&ring->slice->wait))
		wake_up_interruptible_poll(&ring->slice->wait, EPOLLIN | EPOLLRDNORM);
}

int nsl_ring_rx(struct nsl_ring *ring, struct sk_buff *skb)
{
	struct sk_buff *dead = NULL;
	enum nsl_deliver_result res;
	unsigned long parks_before;
	u32 prod_before;
	bool wake;
	int err;

	if (ring->busy_poll_us && skb_napi_id(skb) >= MIN_NAPI_ID)
		WRITE_ONCE(ring->napi_id, skb_napi_id(skb));
	spin_lock(&ring->rx_lock);
	prod_before = ring->rx_prod;
	parks_before = ring->store.parks;
	/* Records of packets that found the ring full go first, as for read. */
	if (unlikely(ring->rx_trim_waiting))
		nsl_ring_rx_trimmed(ring, &dead);
	if (!nsl_ring_rx_room(ring)) {
		/* Not taken: the caller trims or drops it, and counts. */
		err = -ENOSPC;
	} else {
		err = 0;
		res = nsl_ring_rx_put(ring, &skb, &dead);
		if (res == NSL_DELIVER_SEGMENTED)
			err = nsl_ring_rx_segments(ring, skb, &dead);
		if (res == NSL_DELIVER_FAILED) {
			nsl_stat_inc(ring->slice, NSL_RX_DROP_ERROR);
			err = -EIO;
		}
		/* Dropped here: counted once, as what it is, and never as queued. */
		if (err == -ENOSPC)
			nsl_stat_inc(ring->slice, NSL_RX_DROP_RING_FULL);
		if (err)
			err = -EIO;
	}
	/* Records moved in count too, even when skb found no room. */
	wake = nsl_ring_rx_wake_due(ring, prod_before);
	nsl_ring_age_start(ring, parks_before);
	spin_unlock(&ring->rx_lock);
	nsl_ring_rx_wake(ring, wake);
	nsl_deliver_free(dead);
	return err;
}

void nsl_ring_trimmed(struct nsl_ring *ring)
{
	spin_lock(&ring->rx_lock);
	ring->rx_trim_waiting = true;
	ring->rx->flags |= NETSLICE_RING_NEED_WAKEUP;
	spin_unlock(&ring->rx_lock);
}

void nsl_ring_requeued(struct nsl_slice *slice)
{
	struct nsl_ring *ring;

	local_bh_disable();
	rcu_read_lock();
	ring = rcu_dereference(slice->ring);
	if (ring)
		nsl_ring_trimmed(ring);
	rcu_read_unlock();
	local_bh_enable();
}

void nsl_ring_forget_napi(struct nsl_slice *slice)
{
	struct nsl_ring *ring;

	rcu_read_lock();
	ring = rcu_dereference(slice->ring);
	/* Busy polling waits for the next frame's NAPI context. */
	if (ring)
		WRITE_ONCE(ring->napi_id, 0);
	rcu_read_unlock();
}
