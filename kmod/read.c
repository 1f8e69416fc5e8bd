// SPDX-License-Identifier: GPL-2.0
/*
 * read(2) and poll(2) of a slice: batches of packets from the slice's RX
 * ring into the caller's iovs (struct netslice_iov).
 *
 * Ownership: a reader takes a chunk of packets off the rings under
 * slice->read_lock (held for that only, never across a user access), so
 * while it copies, each packet is its alone. A packet whose iov cannot be
 * written goes back to the slice's unread queue, which every reader
 * drains before the rings: a bad user pointer loses nothing. A sliced
 * packet's skb is handed to the payload store (reference and all) before
 * its handle is written to user space, so a handle is never visible while
 * anything but the store holds the skb: a second thread writing it at
 * once splices an skb nobody else uses.
 */
#include <linux/sched/signal.h>
#include <linux/skbuff.h>
#include <linux/uaccess.h>
#include <linux/uio.h>

#include <linux/netslice.h>

#include "compat.h"
#include "gso.h"
#include "io.h"
#include "ring.h"
#include "rx.h"
#include "slice.h"
#include "stats.h"

/* Packets taken off the rings at once: one lock round for each chunk. */
#define NS_READ_CHUNK	64

/* Batch size for this call: the caller's count, capped by the slice mode. */
size_t ns_batch_limit(const struct ns_slice *slice, size_t count, u32 multi_flag)
{
	size_t n = min_t(size_t, count, READ_ONCE(slice->max_batch));

	if (!(READ_ONCE(slice->rw_flags) & multi_flag))
		n = min_t(size_t, n, 1);
	return n;
}

/*
 * Copy len bytes of skb from off to dst + off: a kernel buffer (a ring
 * frame), or a user one. Bytes in the linear head (all of a small frame, a
 * sliced frame's headers) go to user space in one user-access section;
 * the rest through the datagram iterator.
 */
static int ns_copy_out(const struct sk_buff *skb, const struct ns_read_dst *dst,
		       unsigned int off, unsigned int len)
{
	void __user *ubuf = dst->ubuf;
	struct iov_iter iter;

	if (!len)
		return 0;
	if (dst->kbuf)
		return skb_copy_bits(skb, off, dst->kbuf + off, len);
	if (off + len <= skb_headlen(skb)) {
		if (!user_access_begin(ubuf + off, len))
			return -EFAULT;
		unsafe_copy_to_user(ubuf + off, skb->data + off, len, efault);
		user_access_end();
		return 0;
	}
	if (!access_ok(ubuf + off, len))
		return -EFAULT;
	iov_iter_ubuf(&iter, ITER_DEST, ubuf + off, len);
	return skb_copy_datagram_iter(skb, off, &iter, len) ? -EFAULT : 0;
efault:
	user_access_end();
	return -EFAULT;
}

/* The caller's buffer for one packet: base and len of its iov. */
static int ns_iov_get(const struct netslice_iov __user *uiov, void __user **ubuf, u32 *len)
{
	u64 base;

	if (!user_access_begin(uiov, sizeof(*uiov)))
		return -EFAULT;
	unsafe_get_user(base, &uiov->base, efault);
	unsafe_get_user(*len, &uiov->len, efault);
	user_access_end();
	*ubuf = u64_to_user_ptr(base);
	return 0;
efault:
	user_access_end();
	return -EFAULT;
}

/* What read reports of the packet: every field but base, len and action. */
static int ns_iov_put(struct netslice_iov __user *uiov, const struct netslice_iov *iov)
{
	if (!user_access_begin(uiov, sizeof(*uiov)))
		return -EFAULT;
	unsafe_put_user(iov->rlen, &uiov->rlen, efault);
	unsafe_put_user(iov->wire_len, &uiov->wire_len, efault);
	unsafe_put_user(iov->ifindex, &uiov->ifindex, efault);
	unsafe_put_user(iov->queue, &uiov->queue, efault);
	unsafe_put_user(iov->flags, &uiov->flags, efault);
	unsafe_put_user(iov->error, &uiov->error, efault);
	unsafe_put_user(iov->handle, &uiov->handle, efault);
	unsafe_put_user(iov->port, &uiov->port, efault);
	unsafe_put_user(iov->gso_size, &uiov->gso_size, efault);
	unsafe_put_user(iov->gso_segs, &uiov->gso_segs, efault);
	user_access_end();
	return 0;
efault:
	user_access_end();
	return -EFAULT;
}

void ns_read_count(struct ns_slice *slice, const struct netslice_iov *iov)
{
	ns_stat_inc(slice, NS_READ_PACKETS);
	ns_stat_add(slice, NS_READ_BYTES, iov->rlen);
	if (iov->flags & NETSLICE_RX_SLICED)
		ns_stat_inc(slice, NS_READ_SLICED);
	else if (!(iov->flags & NETSLICE_RX_TRIMMED))
		ns_stat_inc(slice, NS_READ_WHOLE);
	if (iov->flags & NETSLICE_RX_STORE_FULL)
		ns_stat_inc(slice, NS_READ_STORE_FULL);
	if (iov->flags & NETSLICE_RX_TRUNCATED)
		ns_stat_inc(slice, NS_READ_TRUNCATED);
}

/*
 * A super-packet the store has no room for is read as its segments,
 * whole: *skbp becomes their list, in order, each with skb's RX metadata,
 * or NULL if it could not be segmented (dropped and counted).
 */
void ns_read_segment(struct ns_slice *slice, struct sk_buff **skbp)
{
	struct ns_rx_cb cb = *ns_rx_cb(*skbp);
	struct sk_buff *segs, *seg;

	segs = ns_gso_segment(*skbp);
	if (!segs) {
		ns_stat_inc(slice, NS_RX_DROP_ERROR);
		kfree_skb(*skbp);
	}
	cb.flags |= NETSLICE_RX_SEGMENT | NETSLICE_RX_STORE_FULL;
	cb.slice_len = 0;
	for (seg = segs; seg; seg = seg->next)
		*ns_rx_cb(seg) = cb;
	*skbp = segs;
}

/*
 * Copy one packet (or its slice, parking the rest for file) to dst, which
 * has iov->len bytes of room, and fill the rest of iov as read reports it.
 * Returns 0 (iov->handle set when the store took skb); NS_READ_SEGMENTED
 * with *skbp a super-packet's segments to deliver instead
 * (ns_read_segment()); or -EFAULT, nothing parked.
 */
int ns_read_fill(struct ns_slice *slice, struct file *file, struct sk_buff **skbp,
		 const struct ns_read_dst *dst, struct netslice_iov *iov)
{
	struct sk_buff *skb = *skbp;
	const struct ns_rx_cb *cb = ns_rx_cb(skb);
	unsigned int len;
	u64 handle = 0;

	iov->flags = cb->flags;
	iov->rlen = min(skb->len, iov->len);
	iov->wire_len = cb->flags & NETSLICE_RX_TRIMMED ? cb->wire_len : skb->len;
	iov->ifindex = cb->ifindex;
	iov->queue = cb->queue;
	iov->port = cb->port;
	iov->error = 0;
	iov->gso_size = 0;
	iov->gso_segs = 0;
	/* Only a kept super-packet is GSO here: the rest were segmented on RX. */
	if (skb_is_gso(skb))
		ns_gso_flags(skb, &iov->flags, &iov->gso_size, &iov->gso_segs);

	len = cb->slice_len ? min_t(unsigned int, cb->slice_len, iov->rlen) : iov->rlen;
	if (ns_copy_out(skb, dst, 0, len))
		return -EFAULT;
	if (cb->slice_len) {
		/* From here the store owns skb; only the handle reaches it. */
		handle = ns_store_park(&slice->store, skb, file, len);
		if (!handle && skb_is_gso(skb)) {
			ns_read_segment(slice, skbp);
			return NS_READ_SEGMENTED;
		}
		if (handle) {
			iov->flags |= NETSLICE_RX_SLICED;
			iov->rlen = len;
		} else {
			iov->flags |= NETSLICE_RX_STORE_FULL;
			if (ns_copy_out(skb, dst, len, iov->rlen - len))
				return -EFAULT;
		}
	}
	if (!handle && iov->rlen < skb->len)
		iov->flags |= NETSLICE_RX_TRUNCATED;
	iov->handle = handle;
	return 0;
}

/*
 * Read one packet into the iov at uiov (ns_read_fill()). Returns 0 with
 * the packet gone from the caller (parked, or on *done to be freed with
 * the chunk); NS_READ_SEGMENTED as ns_read_fill(); or -EFAULT with *skbp
 * the packet, as it was, for the unread queue (NULL if a writer already
 * took it by the handle the failed copy had written).
 */
static int ns_read_one(struct ns_slice *slice, struct file *file, struct sk_buff **skbp,
		       struct netslice_iov __user *uiov, struct sk_buff **done)
{
	struct ns_read_dst dst = {};
	struct netslice_iov iov;
	struct sk_buff *skb;
	unsigned int off;
	int err;

	if (ns_iov_get(uiov, &dst.ubuf, &iov.len))
		return -EFAULT;
	err = ns_read_fill(slice, file, skbp, &dst, &iov);
	if (err)
		return err;
	skb = *skbp;
	if (ns_iov_put(uiov, &iov))
		goto err_unpark;
	ns_read_count(slice, &iov);
	if (!iov.handle) {
		skb->next = *done;
		*done = skb;
	}
	return 0;

err_unpark:
	/*
	 * The handle may have reached user space before the copy failed: if
	 * a writer took it, the packet is on its way and no longer ours.
	 */
	if (iov.handle) {
		*skbp = NULL;
		if (!ns_store_claim(&slice->store, iov.handle, file, skbp, &off))
			ns_store_finish(&slice->store, iov.handle);
	}
	return -EFAULT;
}

/*
 * Take up to n packets off the slice: the unread queue first, then
 * trimmed records (they report packets the RX ring had no room for, as
 * NDP sends trimmed headers ahead), then the RX ring.
 */
static unsigned int ns_take(struct ns_slice *slice, struct sk_buff **skbs, unsigned int n)
{
	unsigned int got = 0;

	lockdep_assert_held(&slice->read_lock);
	while (got < n && !skb_queue_empty_lockless(&slice->unread)) {
		skbs[got] = skb_dequeue(&slice->unread);
		if (!skbs[got])
			break;
		got++;
	}
	if (got < n && !__ptr_ring_empty(&slice->trim_ring))
		got += ptr_ring_consume_batched_bh(&slice->trim_ring, (void **)skbs + got, n - got);
	if (got < n)
		got += ptr_ring_consume_batched_bh(&slice->rx_ring, (void **)skbs + got, n - got);
	return got;
}

/* Put packets back in front of the unread queue, in their order. */
static void ns_untake(struct ns_slice *slice, struct sk_buff **skbs, unsigned int n)
{
	while (n--)
		if (skbs[n])
			skb_queue_head(&slice->unread, skbs[n]);
}

/* The same for a list linked by skb->next (a super-packet's segments). */
static void ns_untake_list(struct ns_slice *slice, struct sk_buff *list)
{
	struct sk_buff_head segs;
	struct sk_buff *skb, *next;
	unsigned long flags;

	__skb_queue_head_init(&segs);
	skb_list_walk_safe(list, skb, next) {
		skb_mark_not_on_list(skb);
		__skb_queue_tail(&segs, skb);
	}
	spin_lock_irqsave(&slice->unread.lock, flags);
	skb_queue_splice(&segs, &slice->unread);
	spin_unlock_irqrestore(&slice->unread.lock, flags);
}

/*
 * Free packets read whole, once per chunk, into this CPU's NAPI skb cache
 * (BHs off is the context it needs): an skb head allocated on the RX CPU
 * is not given back to its slab from here one at a time, and the next
 * whole frame written on this CPU takes its head from that cache
 * (ns_tx_copy()).
 */
void ns_read_free(struct sk_buff *skb)
{
	struct sk_buff *next;

	/* Most RX calls free nothing: no BH toggle for them. */
	if (!skb)
		return;
	local_bh_disable();
	for (; skb; skb = next) {
		next = skb->next;
		skb_mark_not_on_list(skb);
		napi_consume_skb(skb, 1);
	}
	local_bh_enable();
}

/* Up to n packets; *err is set when a copy fails. */
static size_t ns_read_batch(struct ns_slice *slice, struct file *file,
			    struct netslice_iov __user *uiov, size_t n, int *err)
{
	struct sk_buff *skbs[NS_READ_CHUNK], *consumed;
	unsigned int got, i;
	bool segmented;
	size_t done = 0;

	while (done < n) {
		if (mutex_lock_interruptible(&slice->read_lock)) {
			*err = -ERESTARTSYS;
			break;
		}
		got = ns_take(slice, skbs, min_t(size_t, n - done, NS_READ_CHUNK));
		mutex_unlock(&slice->read_lock);
		consumed = NULL;
		segmented = false;
		for (i = 0; i < got; i++, done++) {
			*err = ns_read_one(slice, file, &skbs[i], &uiov[done], &consumed);
			if (*err == NS_READ_SEGMENTED) {
				/* The segments are read next, before what came after. */
				*err = 0;
				ns_untake(slice, skbs + i + 1, got - i - 1);
				ns_untake_list(slice, skbs[i]);
				segmented = true;
				break;
			}
			if (*err) {
				ns_untake(slice, skbs + i, got - i);
				break;
			}
		}
		ns_read_free(consumed);
		if (*err || (got < NS_READ_CHUNK && !segmented))
			break;
	}
	return done;
}

ssize_t ns_read(struct file *file, char __user *buf, size_t count, loff_t *ppos)
{
	struct netslice_iov __user *uiov = (struct netslice_iov __user *)buf;
	struct ns_slice *slice = file->private_data;
	size_t n = ns_batch_limit(slice, count, NETSLICE_MULTI_READ);
	size_t done;
	int err;

	if (rcu_access_pointer(slice->ring))
		return ns_ring_of(file) ? -EINVAL : -EBUSY;
	if (!n)
		return 0;
	if (READ_ONCE(slice->reader) != file)
		WRITE_ONCE(slice->reader, file);
	for (;;) {
		err = 0;
		done = ns_read_batch(slice, file, uiov, n, &err);
		/*
		 * Short: the queues were found empty. An edge-triggered poller
		 * sleeps after this without polling again, so arm for it; a
		 * packet queued since, which saw no arming, wakes it here.
		 */
		if (done < n) {
			ns_slice_arm(slice);
			if (ns_slice_readable(slice))
				ns_slice_wake_armed(slice);
		}
		if (done)
			return done;
		if (err)
			return err;
		if (file->f_flags & O_NONBLOCK)
			return -EAGAIN;
		if (wait_event_interruptible(slice->wait, ns_slice_readable_or_arm(slice)))
			return -ERESTARTSYS;
	}
}

/* Writes never block (a busy egress gives a short count): always POLLOUT. */
__poll_t ns_poll(struct file *file, poll_table *wait)
{
	struct ns_slice *slice = file->private_data;
	__poll_t mask = EPOLLOUT | EPOLLWRNORM;
	struct ns_ring *ring = ns_ring_of(file);

	if (ring)
		return ns_ring_poll(ring, file, wait);
	poll_wait(file, &slice->wait, wait);
	/* Another file's ring takes the packets: read() says EBUSY, not this. */
	if (ns_slice_readable_or_arm(slice) && !rcu_access_pointer(slice->ring))
		mask |= EPOLLIN | EPOLLRDNORM;
	return mask;
}
