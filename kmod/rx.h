/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _NETSLICE_RX_H
#define _NETSLICE_RX_H

#include <linux/netdevice.h>
#include <linux/skbuff.h>

#include "slice.h"
#include "txerr.h"

rx_handler_result_t nsl_rx_handler(struct sk_buff **pskb);

/*
 * A chain's handoff (write.c), in process context: skb, a frame a writer
 * of the slice before built, arrives on slice as if received on dev
 * (port), its hops-th handoff. Counted on slice as RX counts; the
 * writer's error: NSL_TXERR_DOWN (no reader, or its port is detached),
 * NSL_TXERR_DROPPED (full,
 * or not segmentable), or none (queued, or its trimmed record).
 */
enum nsl_txerr nsl_rx_handoff(struct nsl_slice *slice, struct sk_buff *skb,
			      const struct net_device *dev, u32 port, u8 hops);

#endif /* _NETSLICE_RX_H */
