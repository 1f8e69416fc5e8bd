/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _NETSLICE_SKB_CB_H
#define _NETSLICE_SKB_CB_H

#include <linux/skbuff.h>

/*
 * The per-skb RX metadata a reader gets, kept in skb->cb while queued:
 * written by RX (rx.c, cut.c), read by everything that delivers or
 * parks the packet.
 */
struct nsl_rx_cb {
	int ifindex;
	u32 port;		/* of the interface it arrived on */
	u16 queue;
	u16 flags;
	u16 cut_len;		/* bytes a reader gets; 0: the whole packet */
	u16 gso_hdr_len;	/* a kept super-packet's IP-to-payload bytes */
	u32 wire_len;		/* of a NETSLICE_RX_TRIMMED record: the packet's */
	u8 hops;		/* handed from slice to slice so often (chains) */
};

/* skb->cb is the queue owner's to use; const skbs are only read through it. */
static inline struct nsl_rx_cb *nsl_rx_cb(const struct sk_buff *skb)
{
	BUILD_BUG_ON(sizeof(struct nsl_rx_cb) > sizeof(skb->cb));
	return (struct nsl_rx_cb *)skb->cb;
}

#endif /* _NETSLICE_SKB_CB_H */
