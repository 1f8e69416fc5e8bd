// SPDX-License-Identifier: GPL-2.0
/*
 * Sending a writer's frames out of one device queue in bursts: validated
 * first (checksums, linearising for a device without scatter-gather),
 * then handed to the driver under one transmit-queue lock round, with
 * xmit_more on all but the last so that the driver rings its doorbell
 * once per burst, as pktgen's burst mode does. Like __dev_direct_xmit()
 * (AF_PACKET's qdisc bypass, AF_XDP's generic path) this skips the qdisc;
 * unlike it, packet taps on the device (tcpdump) see the frames, as they
 * see AF_PACKET's, at the cost of one test while none is open.
 *
 * Process context; BHs are off while the queue's lock is held.
 */
#include <linux/netdevice.h>
#include <linux/skbuff.h>

#include "xmit.h"

/* False if the device cannot take skb as it is; skb is then freed. */
static bool ns_xmit_validate(struct sk_buff *skb, struct net_device *dev)
{
	struct sk_buff *fit;
	bool again = false;

	fit = validate_xmit_skb_list(skb, dev, &again);
	if (likely(fit == skb))
		return true;
	/* Segments of a GSO skb: writers build none, so never sent. */
	if (fit) {
		kfree_skb_list(fit);
		dev_core_stats_tx_dropped_inc(dev);
	}
	return false;
}

/*
 * Send skbs[0..n) out of dev's TX queue @queue, in order, each with
 * skb->dev = dev and skb->data at its link-layer header; res[i] says what
 * became of each. Once the queue stops, every frame not yet sent is
 * NS_XMIT_BUSY and still the caller's. A frame that fails validation is
 * freed (NS_XMIT_DROPPED) wherever it is in the burst, even past a frame
 * that then finds the queue stopped.
 */
void ns_xmit_burst(struct net_device *dev, u16 queue, struct sk_buff **skbs, unsigned int n,
		   u8 *res)
{
	struct netdev_queue *txq = netdev_get_tx_queue(dev, queue);
	unsigned int i, last = n;

	if (unlikely(!netif_running(dev) || !netif_carrier_ok(dev))) {
		for (i = 0; i < n; i++) {
			kfree_skb(skbs[i]);
			dev_core_stats_tx_dropped_inc(dev);
			res[i] = NS_XMIT_DOWN;
		}
		return;
	}
	for (i = 0; i < n; i++) {
		skb_set_queue_mapping(skbs[i], queue);
		res[i] = ns_xmit_validate(skbs[i], dev) ? NS_XMIT_BUSY : NS_XMIT_DROPPED;
		if (res[i] == NS_XMIT_BUSY)
			last = i;
	}
	if (last == n)
		return;

	local_bh_disable();
	dev_xmit_recursion_inc();
	HARD_TX_LOCK(dev, txq, smp_processor_id());
	for (i = 0; i <= last; i++) {
		netdev_tx_t rc;

		if (res[i] != NS_XMIT_BUSY)
			continue;
		if (netif_xmit_frozen_or_drv_stopped(txq))
			break;
		if (dev_nit_active(dev))
			dev_queue_xmit_nit(skbs[i], dev);
		rc = netdev_start_xmit(skbs[i], dev, txq, i < last);
		if (rc == NETDEV_TX_BUSY)
			break;
		res[i] = rc == NETDEV_TX_OK ? NS_XMIT_SENT : NS_XMIT_DROPPED;
	}
	HARD_TX_UNLOCK(dev, txq);
	dev_xmit_recursion_dec();
	local_bh_enable();
}
