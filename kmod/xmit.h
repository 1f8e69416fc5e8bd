/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _NETSLICE_XMIT_H
#define _NETSLICE_XMIT_H

#include <linux/netdevice.h>
#include <linux/percpu.h>
#include <linux/skbuff.h>

/* Frames a writer hands one device queue at once: one lock round each. */
#define NSL_XMIT_BURST	16

/* What became of a frame of a burst. */
enum nsl_xmit_result {
	NSL_XMIT_SENT,		/* the driver took it */
	NSL_XMIT_DOWN,		/* freed: the device is down, or going away */
	NSL_XMIT_DROPPED,	/* freed: the device refused it (a full backlog) */
	NSL_XMIT_BUSY,		/* not sent, still the caller's: the queue is stopped */
};

void nsl_xmit_burst(struct net_device *dev, u16 queue, struct sk_buff **skbs, unsigned int n,
		    u8 *res);

/* Pass a written frame up the host stack of its skb->dev, bypassing netslice. */
void nsl_xmit_to_host(struct sk_buff *skb);

DECLARE_PER_CPU(bool, nsl_xmit_to_host_running);

/* Is this CPU in nsl_xmit_to_host()? Then RX lets the packet pass. */
static inline bool nsl_xmit_to_host_here(void)
{
	return this_cpu_read(nsl_xmit_to_host_running);
}

#endif /* _NETSLICE_XMIT_H */
