// SPDX-License-Identifier: GPL-2.0
/*
 * Sending a writer's frames out of one device queue in bursts: validated
 * first where a frame needs it (nsl_xmit_plain(): checksums, linearising
 * for a device without scatter-gather, a super-packet's segments), then
 * handed to the driver under one transmit-queue lock round, with
 * xmit_more on all but the last so that the driver rings its doorbell
 * once per burst, as pktgen's burst mode does. Like __dev_direct_xmit()
 * (AF_PACKET's qdisc bypass, AF_XDP's generic path) this skips the qdisc;
 * unlike it, packet taps on the device (tcpdump) see the frames, as they
 * see AF_PACKET's, at the cost of one test a burst while none is open.
 *
 * Process context; BHs are off while the queue's lock is held.
 *
 * A frame for the host goes up its device's stack instead, past the
 * device's rx_handler (ours), which a per-CPU flag tells to let it pass.
 */
#include <linux/etherdevice.h>
#include <linux/if_vlan.h>
#include <linux/netdevice.h>
#include <linux/percpu.h>
#include <linux/skbuff.h>

#include "compat.h"
#include "xmit.h"

DEFINE_PER_CPU(bool, nsl_xmit_to_host_running);

void nsl_xmit_to_host(struct sk_buff *skb)
{
	skb->protocol = eth_type_trans(skb, skb->dev);
	local_bh_disable();
	__this_cpu_write(nsl_xmit_to_host_running, true);
	/* Not netif_rx(): the flag must cover the whole receive on this CPU. */
	rcu_read_lock();
	netif_receive_skb_core(skb);
	rcu_read_unlock();
	__this_cpu_write(nsl_xmit_to_host_running, false);
	local_bh_enable();
}

/*
 * A frame validate_xmit_skb() leaves as it is, whatever dev's features
 * (6.1 to 7.2): linear (nothing to linearise, no unreadable fragments),
 * not GSO, no checksum to finish, no VLAN tag to insert, no socket to ask,
 * not TLS-decrypted by a NIC (dropped there without a socket), no
 * extension (an IPsec offload's secpath). Most frames a writer sends are
 * such, and validating them cost about 200 instructions a frame.
 */
static bool nsl_xmit_plain(struct sk_buff *skb)
{
	return !skb_is_nonlinear(skb) && !skb_is_gso(skb) && skb->ip_summed != CHECKSUM_PARTIAL &&
	       !skb_vlan_tag_present(skb) && !skb->sk && !nsl_skb_decrypted(skb) &&
	       !skb_has_extensions(skb);
}

/*
 * Make *skbp fit dev (validate_xmit_skb_list()): false if it cannot be
 * sent, freed. A super-packet dev cannot take whole comes back as its
 * segments, linked by skb->next, in *skbp: the original is gone.
 */
static bool nsl_xmit_validate(struct sk_buff **skbp, struct net_device *dev)
{
	bool again = false;

	if (nsl_xmit_plain(*skbp))
		return true;
	*skbp = validate_xmit_skb_list(*skbp, dev, &again);
	return *skbp;
}

/* One frame to the driver, taps first (taps: dev_nit_active(), per burst). */
static netdev_tx_t nsl_xmit_one(struct sk_buff *skb, struct net_device *dev,
				struct netdev_queue *txq, bool more, bool taps)
{
	if (taps)
		dev_queue_xmit_nit(skb, dev);
	return netdev_start_xmit(skb, dev, txq, more);
}

/*
 * Segments of one super-packet, sent in order; more: more follow them.
 * All go, or the first the driver does not take and every one after it
 * is dropped: a super-packet cut by software GSO cannot be taken back.
 */
static int nsl_xmit_segments(struct sk_buff *segs, struct net_device *dev,
			     struct netdev_queue *txq, bool more, bool taps)
{
	int res = NSL_XMIT_SENT;
	struct sk_buff *seg, *next;

	skb_list_walk_safe(segs, seg, next) {
		netdev_tx_t rc;

		skb_mark_not_on_list(seg);
		if (res != NSL_XMIT_SENT || netif_xmit_frozen_or_drv_stopped(txq)) {
			kfree_skb(seg);
			dev_core_stats_tx_dropped_inc(dev);
			res = NSL_XMIT_DROPPED;
			continue;
		}
		rc = nsl_xmit_one(seg, dev, txq, next || more, taps);
		if (rc == NETDEV_TX_BUSY) {
			kfree_skb(seg);
			dev_core_stats_tx_dropped_inc(dev);
		}
		if (rc != NETDEV_TX_OK)
			res = NSL_XMIT_DROPPED;
	}
	return res;
}

/*
 * Send skbs[0..n) out of dev's TX queue @queue, in order, each with
 * skb->dev = dev and skb->data at its link-layer header; res[i] says what
 * became of each. Once the queue stops, every frame not yet sent is
 * NSL_XMIT_BUSY and still the caller's. A frame that fails validation is
 * freed (NSL_XMIT_DROPPED) wherever it is in the burst, even past a frame
 * that then finds the queue stopped; so is a super-packet that had to be
 * segmented here and was not sent, for it no longer exists whole.
 */
void nsl_xmit_burst(struct net_device *dev, u16 queue, struct sk_buff **skbs, unsigned int n,
		    u8 *res)
{
	struct netdev_queue *txq = netdev_get_tx_queue(dev, queue);
	unsigned long segmented = 0;	/* validation made these segments */
	unsigned int i, last = n;
	bool taps;

	BUILD_BUG_ON(NSL_XMIT_BURST > BITS_PER_LONG);
	if (unlikely(!netif_running(dev) || !netif_carrier_ok(dev))) {
		for (i = 0; i < n; i++) {
			kfree_skb(skbs[i]);
			dev_core_stats_tx_dropped_inc(dev);
			res[i] = NSL_XMIT_DOWN;
		}
		return;
	}
	for (i = 0; i < n; i++) {
		struct sk_buff *skb = skbs[i];

		skb_set_queue_mapping(skb, queue);
		res[i] = nsl_xmit_validate(&skbs[i], dev) ? NSL_XMIT_BUSY : NSL_XMIT_DROPPED;
		if (res[i] != NSL_XMIT_BUSY)
			continue;
		last = i;
		if (skbs[i] != skb)
			__set_bit(i, &segmented);
	}
	if (last == n)
		return;

	local_bh_disable();
	dev_xmit_recursion_inc();
	HARD_TX_LOCK(dev, txq, smp_processor_id());
	/* Once a burst: a tap opened during one sees from the next. */
	taps = dev_nit_active(dev);
	for (i = 0; i <= last; i++) {
		netdev_tx_t rc;

		if (res[i] != NSL_XMIT_BUSY)
			continue;
		if (netif_xmit_frozen_or_drv_stopped(txq))
			break;
		if (test_bit(i, &segmented)) {
			res[i] = nsl_xmit_segments(skbs[i], dev, txq, i < last, taps);
			continue;
		}
		rc = nsl_xmit_one(skbs[i], dev, txq, i < last, taps);
		if (rc == NETDEV_TX_BUSY)
			break;
		res[i] = rc == NETDEV_TX_OK ? NSL_XMIT_SENT : NSL_XMIT_DROPPED;
	}
	HARD_TX_UNLOCK(dev, txq);
	dev_xmit_recursion_dec();
	local_bh_enable();

	/* Segments left unsent: the super-packet they were is gone. */
	for (; i <= last; i++) {
		if (res[i] == NSL_XMIT_BUSY && test_bit(i, &segmented)) {
			kfree_skb_list(skbs[i]);
			dev_core_stats_tx_dropped_inc(dev);
			res[i] = NSL_XMIT_DROPPED;
		}
	}
}
