/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _NETSLICE_DELIVER_H
#define _NETSLICE_DELIVER_H

#include <linux/fs.h>
#include <linux/skbuff.h>

#include <linux/netslice.h>

#include "counters.h"
#include "rstore.h"
#include "slice.h"

/*
 * Where a packet read goes: a user buffer, or a kernel one (a ring frame,
 * whose payloads park in the ring's store, rstore).
 */
struct nsl_deliver_dst {
	void __user *ubuf;
	void *kbuf;
	struct nsl_rstore *rstore;
};

/* What nsl_deliver_fill() did with a packet. */
enum nsl_deliver_result {
	NSL_DELIVERED,		/* copied (its cut, the rest parked) */
	NSL_DELIVER_SEGMENTED,	/* not copied: it became segments to deliver instead */
	NSL_DELIVER_FAILED,	/* not copied, nothing parked: the copy failed */
};

enum nsl_deliver_result nsl_deliver_fill(struct nsl_slice *slice, struct file *file,
					 struct sk_buff **skbp, const struct nsl_deliver_dst *dst,
					 struct netslice_iov *iov);

/* Count a packet that reached its reader; once per packet, so inline. */
static inline void nsl_deliver_count(struct nsl_slice *slice, const struct netslice_iov *iov)
{
	nsl_stat_inc(slice, NSL_READ_PACKETS);
	nsl_stat_add(slice, NSL_READ_BYTES, iov->rlen);
	if (iov->flags & NETSLICE_RX_CUT)
		nsl_stat_inc(slice, NSL_READ_SLICED);
	else if (!(iov->flags & NETSLICE_RX_TRIMMED))
		nsl_stat_inc(slice, NSL_READ_WHOLE);
	if (iov->flags & NETSLICE_RX_STORE_FULL)
		nsl_stat_inc(slice, NSL_READ_STORE_FULL);
	if (iov->flags & NETSLICE_RX_TRUNCATED)
		nsl_stat_inc(slice, NSL_READ_TRUNCATED);
}

/*
 * Free packets read whole, once per chunk, into this CPU's NAPI skb cache
 * (BHs off is the context it needs): an skb head allocated on the RX CPU
 * is not given back to its slab from here one at a time, and the next
 * whole frame written on this CPU takes its head from that cache
 * (nsl_tx_copy()).
 */
static inline void nsl_deliver_free(struct sk_buff *skb)
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

#endif /* _NETSLICE_DELIVER_H */
