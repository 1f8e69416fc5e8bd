// SPDX-License-Identifier: GPL-2.0
/*
 * read(2) and poll(2) of a slice: batches of packets from the slice's RX
 * ring into the caller's iovs (struct netslice_iov).
 *
 * Readers of one slice take turns under slice->read_lock. A packet is
 * copied while it is still on the ring and removed only once its iov is
 * written, so a bad user pointer loses nothing.
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

static int ns_read_one(struct ns_slice *slice, struct sk_buff *skb,
		       struct netslice_iov __user *uiov)
{
	const struct ns_rx_cb *cb = ns_rx_cb(skb);
	void __user *ubuf;
	struct netslice_iov iov;
	struct iov_iter iter;
	unsigned int len;

	if (copy_from_user(&iov, uiov, sizeof(iov)))
		return -EFAULT;
	ubuf = u64_to_user_ptr(iov.base);
	len = min(skb->len, iov.len);
	if (!access_ok(ubuf, len))
		return -EFAULT;
	iov_iter_ubuf(&iter, ITER_DEST, ubuf, len);
	if (skb_copy_datagram_iter(skb, 0, &iter, len))
		return -EFAULT;

	iov.rlen = len;
	iov.wire_len = skb->len;
	iov.ifindex = cb->ifindex;
	iov.queue = cb->queue;
	iov.flags = cb->flags;
	if (len < skb->len)
		iov.flags |= NETSLICE_RX_TRUNCATED;
	iov.error = 0;
	memset(iov.reserved, 0, sizeof(iov.reserved));
	if (copy_to_user(uiov, &iov, sizeof(iov)))
		return -EFAULT;

	ns_stat_inc(slice, NS_READ_PACKETS);
	ns_stat_add(slice, NS_READ_BYTES, len);
	if (len < skb->len)
		ns_stat_inc(slice, NS_READ_TRUNCATED);
	return 0;
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

/* Up to n packets; *err is set when a copy fails. Caller holds read_lock. */
static size_t ns_read_batch(struct ns_slice *slice, struct netslice_iov __user *uiov,
			    size_t n, int *err)
{
	struct sk_buff *skb;
	size_t done;

	lockdep_assert_held(&slice->read_lock);
	for (done = 0; done < n; done++) {
		skb = ns_ring_peek(&slice->rx_ring);
		if (!skb)
			break;
		*err = ns_read_one(slice, skb, &uiov[done]);
		if (*err)
			break;
		/* Readers are serialized: this is the skb just peeked. */
		skb = ptr_ring_consume_bh(&slice->rx_ring);
		consume_skb(skb);
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
		done = ns_read_batch(slice, uiov, n, &err);
		mutex_unlock(&slice->read_lock);
		if (done)
			return done;
		if (err)
			return err;
		if (file->f_flags & O_NONBLOCK)
			return -EAGAIN;
		if (wait_event_interruptible(slice->wait, !ptr_ring_empty_bh(&slice->rx_ring)))
			return -ERESTARTSYS;
	}
}

/* Writes never block (a busy egress gives a short count): always POLLOUT. */
__poll_t ns_poll(struct file *file, poll_table *wait)
{
	struct ns_slice *slice = file->private_data;
	__poll_t mask = EPOLLOUT | EPOLLWRNORM;

	poll_wait(file, &slice->wait, wait);
	if (!ptr_ring_empty_bh(&slice->rx_ring))
		mask |= EPOLLIN | EPOLLRDNORM;
	return mask;
}
