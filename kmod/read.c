// SPDX-License-Identifier: GPL-2.0
/*
 * read(2) and poll(2) of a slice: batches of packets from the slice's RX
 * ring into the caller's iovs (struct netslice_iov).
 *
 * Readers of one slice take turns under slice->read_lock. A packet is
 * copied while it is still on the ring and removed only once its iov is
 * written, so a bad user pointer loses nothing. A sliced packet's skb
 * moves from the ring to the payload store; the reader gets its header
 * and a handle.
 */
#include <linux/sched/signal.h>
#include <linux/skbuff.h>
#include <linux/uaccess.h>
#include <linux/uio.h>

#include <linux/netslice.h>

#include "io.h"
#include "rx.h"
#include "slice.h"
#include "stats.h"

/* Batch size for this call: the caller's count, capped by the slice mode. */
size_t ns_batch_limit(const struct ns_slice *slice, size_t count, u32 multi_flag)
{
	size_t n = min_t(size_t, count, READ_ONCE(slice->max_batch));

	if (!(READ_ONCE(slice->rw_flags) & multi_flag))
		n = min_t(size_t, n, 1);
	return n;
}

/*
 * Copy one packet (or its slice, parking the rest) into the iov at uiov.
 * Returns 0, or -EFAULT with the packet left as it was.
 */
static int ns_read_one(struct ns_slice *slice, struct file *file, struct sk_buff *skb,
		       struct netslice_iov __user *uiov)
{
	const struct ns_rx_cb *cb = ns_rx_cb(skb);
	void __user *ubuf;
	struct netslice_iov iov;
	struct iov_iter iter;
	unsigned int len;
	u64 handle = 0;

	if (copy_from_user(&iov, uiov, sizeof(iov)))
		return -EFAULT;
	ubuf = u64_to_user_ptr(iov.base);
	iov.flags = cb->flags;
	len = min(skb->len, iov.len);
	if (cb->slice_len) {
		/* The payload is what the reader does not get. */
		len = min_t(unsigned int, cb->slice_len, iov.len);
		handle = ns_store_park(&slice->store, skb, file, len);
		if (handle) {
			iov.flags |= NETSLICE_RX_SLICED;
		} else {
			iov.flags |= NETSLICE_RX_STORE_FULL;
			len = min(skb->len, iov.len);
		}
	}
	if (!handle && len < skb->len)
		iov.flags |= NETSLICE_RX_TRUNCATED;

	iov.rlen = len;
	iov.wire_len = cb->flags & NETSLICE_RX_TRIMMED ? cb->wire_len : skb->len;
	iov.ifindex = cb->ifindex;
	iov.queue = cb->queue;
	iov.error = 0;
	iov.handle = handle;
	iov.reserved = 0;
	iov_iter_ubuf(&iter, ITER_DEST, ubuf, len);
	if (!access_ok(ubuf, len) || skb_copy_datagram_iter(skb, 0, &iter, len) ||
	    copy_to_user(uiov, &iov, sizeof(iov)))
		goto err_unpark;

	ns_stat_inc(slice, NS_READ_PACKETS);
	ns_stat_add(slice, NS_READ_BYTES, len);
	if (handle)
		ns_stat_inc(slice, NS_READ_SLICED);
	else if (!(cb->flags & NETSLICE_RX_TRIMMED))
		ns_stat_inc(slice, NS_READ_WHOLE);
	if (iov.flags & NETSLICE_RX_STORE_FULL)
		ns_stat_inc(slice, NS_READ_STORE_FULL);
	if (iov.flags & NETSLICE_RX_TRUNCATED)
		ns_stat_inc(slice, NS_READ_TRUNCATED);
	return 0;

err_unpark:
	/* Nobody saw the handle: drop the store's reference (unless aged). */
	if (handle && !ns_store_claim(&slice->store, handle, file, &skb, &len)) {
		ns_store_finish(&slice->store, handle);
		kfree_skb(skb);
	}
	return -EFAULT;
}

/* The packet at the head of the ring, left on it. */
static struct sk_buff *ns_ring_peek(struct ptr_ring *ring)
{
	struct sk_buff *skb;

	spin_lock_bh(&ring->consumer_lock);
	skb = __ptr_ring_peek(ring);
	spin_unlock_bh(&ring->consumer_lock);
	return skb;
}

/*
 * The ring to read next: trimmed records first (they report packets the
 * RX ring had no room for, as NDP sends trimmed headers ahead). Lockless:
 * the caller is the only consumer.
 */
static struct ptr_ring *ns_next_ring(struct ns_slice *slice)
{
	return __ptr_ring_empty(&slice->trim_ring) ? &slice->rx_ring : &slice->trim_ring;
}

/* Up to n packets; *err is set when a copy fails. Caller holds read_lock. */
static size_t ns_read_batch(struct ns_slice *slice, struct file *file,
			    struct netslice_iov __user *uiov, size_t n, int *err)
{
	struct ptr_ring *ring;
	struct sk_buff *skb;
	size_t done;

	lockdep_assert_held(&slice->read_lock);
	for (done = 0; done < n; done++) {
		ring = ns_next_ring(slice);
		skb = ns_ring_peek(ring);
		if (!skb)
			break;
		*err = ns_read_one(slice, file, skb, &uiov[done]);
		if (*err)
			break;
		/* Readers are serialized: this is the skb just peeked. */
		consume_skb(ptr_ring_consume_bh(ring));
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

	if (!n)
		return 0;
	for (;;) {
		err = 0;
		if (mutex_lock_interruptible(&slice->read_lock))
			return -ERESTARTSYS;
		done = ns_read_batch(slice, file, uiov, n, &err);
		mutex_unlock(&slice->read_lock);
		if (done)
			return done;
		if (err)
			return err;
		if (file->f_flags & O_NONBLOCK)
			return -EAGAIN;
		if (wait_event_interruptible(slice->wait, ns_slice_readable(slice)))
			return -ERESTARTSYS;
	}
}

/* Writes never block (a busy egress gives a short count): always POLLOUT. */
__poll_t ns_poll(struct file *file, poll_table *wait)
{
	struct ns_slice *slice = file->private_data;
	__poll_t mask = EPOLLOUT | EPOLLWRNORM;

	poll_wait(file, &slice->wait, wait);
	if (ns_slice_readable(slice))
		mask |= EPOLLIN | EPOLLRDNORM;
	return mask;
}
