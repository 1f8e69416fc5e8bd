// SPDX-License-Identifier: GPL-2.0
/*
 * read(2) and poll(2) of a slice: batches of packets from the slice's rxq
 * into the caller's iovs (struct netslice_iov).
 *
 * Ownership: a reader takes a chunk of packets off rxq and trimq under
 * slice->read_lock (held for that only, never across a user access), so
 * while it copies, each packet is its alone. A packet whose iov cannot be
 * written goes back to the slice's unread queue, which every reader
 * drains before rxq and trimq: a bad user pointer loses nothing. A cut
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

#include "counters.h"
#include "deliver.h"
#include "read.h"
#include "skb_cb.h"
#include "slice.h"

/* Packets taken off rxq and trimq at once: one lock round for each chunk. */
#define NSL_READ_CHUNK	64

/* The caller's buffer for one packet: base and len of its iov. */
static int nsl_iov_get(const struct netslice_iov __user *uiov, void __user **ubuf, u32 *len)
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
static int nsl_iov_put(struct netslice_iov __user *uiov, const struct netslice_iov *iov)
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

/*
 * Read one packet into the iov at uiov (nsl_deliver_fill()). Returns
 * NSL_DELIVERED with the packet gone from the caller (parked, or on *done
 * to be freed with the chunk); NSL_DELIVER_SEGMENTED as nsl_deliver_fill();
 * or NSL_DELIVER_FAILED (the iov or its buffer not writable) with *skbp the
 * packet, as it was, for the unread queue (NULL if a writer already took
 * it by the handle the failed copy had written).
 */
static enum nsl_deliver_result nsl_read_one(struct nsl_slice *slice, struct file *file,
					    struct sk_buff **skbp,
					    struct netslice_iov __user *uiov,
					    struct sk_buff **done)
{
	struct nsl_deliver_dst dst = {};
	enum nsl_deliver_result res;
	struct netslice_iov iov;
	struct sk_buff *skb;
	unsigned int off;

	if (nsl_iov_get(uiov, &dst.ubuf, &iov.len))
		return NSL_DELIVER_FAILED;
	res = nsl_deliver_fill(slice, file, skbp, &dst, &iov);
	if (res != NSL_DELIVERED)
		return res;
	skb = *skbp;
	if (nsl_iov_put(uiov, &iov))
		goto err_unpark;
	nsl_deliver_count(slice, &iov);
	if (!iov.handle) {
		skb->next = *done;
		*done = skb;
	}
	return NSL_DELIVERED;

err_unpark:
	/*
	 * The handle may have reached user space before the copy failed: if
	 * a writer took it, the packet is on its way and no longer ours.
	 */
	if (iov.handle) {
		*skbp = NULL;
		if (!nsl_store_claim(&slice->store, iov.handle, file, skbp, &off))
			nsl_store_finish(&slice->store, iov.handle);
	}
	return NSL_DELIVER_FAILED;
}

/*
 * Take up to n packets off the slice: the unread queue first, then
 * trimmed records (they report packets the rxq had no room for, as
 * NDP sends trimmed headers ahead), then the rxq.
 */
static unsigned int nsl_take(struct nsl_slice *slice, struct sk_buff **skbs, unsigned int n)
{
	unsigned int got = 0;

	lockdep_assert_held(&slice->read_lock);
	while (got < n && !skb_queue_empty_lockless(&slice->unread)) {
		skbs[got] = skb_dequeue(&slice->unread);
		if (!skbs[got])
			break;
		got++;
	}
	if (got < n && !__ptr_ring_empty(&slice->trimq))
		got += ptr_ring_consume_batched_bh(&slice->trimq, (void **)skbs + got, n - got);
	if (got < n)
		got += ptr_ring_consume_batched_bh(&slice->rxq, (void **)skbs + got, n - got);
	return got;
}

/* Put packets back in front of the unread queue, in their order. */
static void nsl_untake(struct nsl_slice *slice, struct sk_buff **skbs, unsigned int n)
{
	while (n--)
		if (skbs[n])
			skb_queue_head(&slice->unread, skbs[n]);
}

/* The same for a list linked by skb->next (a super-packet's segments). */
static void nsl_untake_list(struct nsl_slice *slice, struct sk_buff *list)
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

/* Up to n packets; *err is set (-errno) when a copy fails or a signal came. */
static size_t nsl_read_batch(struct nsl_slice *slice, struct file *file,
			     struct netslice_iov __user *uiov, size_t n, int *err)
{
	struct sk_buff *skbs[NSL_READ_CHUNK], *consumed;
	enum nsl_deliver_result res;
	unsigned int got, i;
	bool segmented;
	size_t done = 0;

	while (done < n) {
		if (mutex_lock_interruptible(&slice->read_lock)) {
			*err = -ERESTARTSYS;
			break;
		}
		got = nsl_take(slice, skbs, min_t(size_t, n - done, NSL_READ_CHUNK));
		mutex_unlock(&slice->read_lock);
		consumed = NULL;
		segmented = false;
		for (i = 0; i < got; i++, done++) {
			res = nsl_read_one(slice, file, &skbs[i], &uiov[done], &consumed);
			if (res == NSL_DELIVER_SEGMENTED) {
				/* The segments are read next, before what came after. */
				nsl_untake(slice, skbs + i + 1, got - i - 1);
				nsl_untake_list(slice, skbs[i]);
				segmented = true;
				break;
			}
			if (res == NSL_DELIVER_FAILED) {
				*err = -EFAULT;
				nsl_untake(slice, skbs + i, got - i);
				break;
			}
		}
		nsl_deliver_free(consumed);
		if (*err || (got < NSL_READ_CHUNK && !segmented))
			break;
	}
	return done;
}

ssize_t nsl_read(struct file *file, char __user *buf, size_t count, loff_t *ppos)
{
	struct netslice_iov __user *uiov = (struct netslice_iov __user *)buf;
	struct nsl_slice *slice = nsl_file_slice(file);
	size_t n = nsl_batch_limit(slice, count, NETSLICE_MULTI_READ);
	size_t done;
	int err;

	if (!n)
		return 0;
	if (unlikely(!nsl_file_is_reader(file))) {
		err = nsl_slice_add_reader(slice, file);
		if (err)
			return err;
	}
	for (;;) {
		err = 0;
		done = nsl_read_batch(slice, file, uiov, n, &err);
		/*
		 * Short: the queues were found empty. An edge-triggered poller
		 * sleeps after this without polling again, so arm for it; a
		 * packet queued since, which saw no arming, wakes it here.
		 */
		if (done < n) {
			nsl_slice_arm(slice);
			if (nsl_slice_readable(slice))
				nsl_slice_wake_armed(slice);
		}
		if (done)
			return done;
		if (err)
			return err;
		if (file->f_flags & O_NONBLOCK)
			return -EAGAIN;
		if (wait_event_interruptible(slice->wait, nsl_slice_readable_or_arm(slice)))
			return -ERESTARTSYS;
	}
}

/* Writes never block (a busy egress gives a short count): always POLLOUT. */
__poll_t nsl_poll(struct file *file, poll_table *wait)
{
	struct nsl_slice *slice = nsl_file_slice(file);
	__poll_t mask = EPOLLOUT | EPOLLWRNORM;

	poll_wait(file, &slice->wait, wait);
	/* Another file's ring takes the packets: read() says EBUSY, not this. */
	if (nsl_slice_readable_or_arm(slice) && !rcu_access_pointer(slice->ring))
		mask |= EPOLLIN | EPOLLRDNORM;
	return mask;
}
