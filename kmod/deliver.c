// SPDX-License-Identifier: GPL-2.0
/*
 * Delivery: one queued packet into one reader's buffer, as read(2) and
 * ring mode's RX both hand packets over (read.c into the caller's iovs,
 * ring.c into the frames of a file's RX ring). The packet's slice is
 * copied and the rest parked in the slice's payload store, or the packet
 * is copied whole; the iov reports what was done, and the counters count
 * it once it reached the reader.
 */
#include <linux/skbuff.h>
#include <linux/uaccess.h>
#include <linux/uio.h>

#include <linux/netslice.h>

#include "compat.h"
#include "counters.h"
#include "deliver.h"
#include "gso.h"
#include "skb_cb.h"
#include "slice.h"

/* The user-buffer case of nsl_copy_out(), out of line: its iterator is big. */
static noinline int nsl_copy_out_user(const struct sk_buff *skb, void __user *ubuf,
				      unsigned int off, unsigned int len)
{
	struct iov_iter iter;

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

/*
 * Copy len bytes of skb from off to dst + off: a kernel buffer (a frame of
 * ring mode), or a user one. Bytes in the linear head (all of a small frame, a
 * cut frame's headers) go in one memcpy, or to user space in one
 * user-access section; the rest through skb_copy_bits() or the datagram
 * iterator.
 */
static int nsl_copy_out(const struct sk_buff *skb, const struct nsl_deliver_dst *dst,
			unsigned int off, unsigned int len)
{
	if (!len)
		return 0;
	if (!dst->kbuf)
		return nsl_copy_out_user(skb, dst->ubuf, off, len);
	if (off + len <= skb_headlen(skb)) {
		memcpy(dst->kbuf + off, skb->data + off, len);
		return 0;
	}
	return skb_copy_bits(skb, off, dst->kbuf + off, len);
}

/*
 * A super-packet the store has no room for is read as its segments,
 * whole: *skbp becomes their list, in order, each with skb's RX metadata,
 * or NULL if it could not be segmented (dropped and counted).
 */
static void nsl_deliver_segment(struct nsl_slice *slice, struct sk_buff **skbp)
{
	struct nsl_rx_cb cb = *nsl_rx_cb(*skbp);
	struct sk_buff *segs, *seg;

	segs = nsl_gso_segment(*skbp);
	if (!segs) {
		nsl_stat_inc(slice, NSL_RX_DROP_ERROR);
		kfree_skb(*skbp);
	}
	cb.flags |= NETSLICE_RX_SEGMENT | NETSLICE_RX_STORE_FULL;
	cb.cut_len = 0;
	for (seg = segs; seg; seg = seg->next)
		*nsl_rx_cb(seg) = cb;
	*skbp = segs;
}

/*
 * Copy one packet (or its cut, parking the rest for file) to dst, which
 * has iov->len bytes of room, and fill the rest of iov as read reports it.
 * Returns NSL_DELIVERED (iov->handle set when the store took skb);
 * NSL_DELIVER_SEGMENTED with *skbp a super-packet's segments to deliver
 * instead (nsl_deliver_segment()); or NSL_DELIVER_FAILED: a user buffer not
 * writable, or a packet the skb code refused (a kernel buffer).
 */
enum nsl_deliver_result nsl_deliver_fill(struct nsl_slice *slice, struct file *file,
					 struct sk_buff **skbp, const struct nsl_deliver_dst *dst,
					 struct netslice_iov *iov)
{
	struct sk_buff *skb = *skbp;
	const struct nsl_rx_cb *cb = nsl_rx_cb(skb);
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
		nsl_gso_flags(skb, &iov->flags, &iov->gso_size, &iov->gso_segs);

	len = cb->cut_len ? min_t(unsigned int, cb->cut_len, iov->rlen) : iov->rlen;
	if (nsl_copy_out(skb, dst, 0, len))
		return NSL_DELIVER_FAILED;
	if (cb->cut_len) {
		/* From here the store owns skb; only the handle reaches it. */
		handle = dst->rstore ? nsl_rstore_park(dst->rstore, skb, len) :
				       nsl_store_park(&slice->store, skb, file, len);
		if (!handle && skb_is_gso(skb)) {
			nsl_deliver_segment(slice, skbp);
			return NSL_DELIVER_SEGMENTED;
		}
		if (handle) {
			iov->flags |= NETSLICE_RX_CUT;
			iov->rlen = len;
		} else {
			iov->flags |= NETSLICE_RX_STORE_FULL;
			if (nsl_copy_out(skb, dst, len, iov->rlen - len))
				return NSL_DELIVER_FAILED;
		}
	}
	if (!handle && iov->rlen < skb->len)
		iov->flags |= NETSLICE_RX_TRUNCATED;
	iov->handle = handle;
	return NSL_DELIVERED;
}
