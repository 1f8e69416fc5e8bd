// SPDX-License-Identifier: GPL-2.0
/*
 * The receive path: an rx_handler on each attached interface takes every
 * packet from the host stack and queues it on one slice's RX queue (rxq).
 *
 * Runs in softirq (NAPI or the backlog), on whatever CPU the driver or RPS
 * chose: per-slice state is found from the packet, never from the CPU.
 */
#include <linux/if_vlan.h>
#include <linux/netdevice.h>
#include <linux/percpu.h>
#include <linux/poll.h>
#include <linux/skbuff.h>

#include <linux/netslice.h>

#include "compat.h"
#include "counters.h"
#include "gso.h"
#include "params.h"
#include "port.h"
#include "ring_rx.h"
#include "rules.h"
#include "rx.h"
#include "skb_cb.h"
#include "slice.h"
#include "cut.h"
#include "xmit.h"

/*
 * The flow hash skb_get_hash() (or, symmetric, __skb_get_hash_symmetric())
 * would give, from the dissection the rule lookup made: a flow maps to
 * the same slice whether rules exist or not, for one dissection.
 */
static u32 nsl_rx_flow_hash(struct sk_buff *skb, const struct flow_keys *dissected,
			    bool symmetric)
{
	struct flow_keys keys;

	if (!symmetric && (skb->l4_hash || skb->sw_hash))
		return skb->hash;
	memset(&keys, 0, sizeof(keys));
	keys.control = dissected->control;
	keys.basic = dissected->basic;
	keys.addrs = dissected->addrs;
	if (symmetric || !dissected->tags.flow_label) {
		keys.ports = dissected->ports;
	} else {
		/* skb_get_hash() stops at an IPv6 flow label: it hashes that, not L4. */
		keys.tags = dissected->tags;
	}
	if (!symmetric) {
		keys.vlan = dissected->vlan;
		if (!dissected->tags.flow_label) {
			keys.keyid = dissected->keyid;
			keys.icmp = dissected->icmp;
		}
	}
	return flow_hash_from_keys(&keys);
}

/*
 * The RX queue (if recorded, queue), or a flow hash where there is none,
 * picks one of iface's slices; keys, if not NULL, is the flow dissected
 * already. An interface that feeds one slice needs no hash.
 */
static struct nsl_slice *nsl_rx_spread(const struct nsl_iface *iface, struct sk_buff *skb,
				       bool recorded, u16 queue, struct flow_keys *keys)
{
	u32 key;

	if (iface->slice_count == 1)
		return &nsl_slices[iface->slice_first];
	if (recorded)
		key = queue;
	else if (keys)
		key = nsl_rx_flow_hash(skb, keys, nsl_symmetric_hash);
	else
		key = nsl_symmetric_hash ? __skb_get_hash_symmetric(skb) : skb_get_hash(skb);
	return &nsl_slices[iface->slice_first + key % iface->slice_count];
}

/*
 * A flow rule's slice, else nsl_rx_spread()'s with the rules' dissection.
 * Out of line: its flow_keys, which kernels built to zero every stack
 * variable clear on each call, costs only while rules exist.
 */
static noinline struct nsl_slice *nsl_rx_pick_by_rule(const struct nsl_iface *iface,
						      struct sk_buff *skb, bool recorded,
						      u16 queue)
{
	struct flow_keys keys;
	bool dissected;
	int steered;

	steered = nsl_rules_steer(skb, &keys, &dissected);
	if (steered >= 0)
		return &nsl_slices[steered];
	return nsl_rx_spread(iface, skb, recorded, queue, dissected ? &keys : NULL);
}

/* A flow rule first; else the RX queue, or a flow hash where there is none. */
static struct nsl_slice *nsl_rx_pick_slice(const struct nsl_iface *iface,
					   struct sk_buff *skb, u16 *queue)
{
	bool recorded = !iface->hashed && skb_rx_queue_recorded(skb);

	*queue = recorded ? skb_get_rx_queue(skb) : NETSLICE_QUEUE_NONE;
	if (unlikely(READ_ONCE(nsl_rules_visible)))
		return nsl_rx_pick_by_rule(iface, skb, recorded, *queue);
	return nsl_rx_spread(iface, skb, recorded, *queue, NULL);
}

/* The rxq is full: queue a header-only record if asked to (true), else drop. */
static bool nsl_rx_overflow(struct nsl_slice *slice, struct nsl_ring *ring, struct sk_buff *skb,
			    u32 cfg)
{
	struct sk_buff *rec = NULL;

	if (nsl_cut_flags(cfg) & NETSLICE_CUT_TRIM)
		rec = nsl_trim_record(skb);
	kfree_skb(skb);
	if (rec && !ptr_ring_produce(&slice->trimq, rec)) {
		nsl_stat_inc(slice, NSL_RX_TRIMMED);
		if (!ring) {
			nsl_slice_wake_armed(slice);
			return true;
		}
		/* A kick moves it in: wake the ring's poller to kick. */
		nsl_ring_trimmed(ring);
		wake_up_interruptible_poll(&slice->wait, EPOLLIN | EPOLLRDNORM);
		return true;
	}
	kfree_skb(rec);
	nsl_stat_inc(slice, NSL_RX_DROP_RING_FULL);
	return false;
}

/*
 * Queue skb with the cut its reader gets (nsl_cut_len() under cfg): true
 * when queued, or its trimmed record; else dropped and counted.
 */
static bool nsl_rx_enqueue(struct nsl_slice *slice, struct sk_buff *skb, u32 cfg,
			   unsigned int cut_len)
{
	/* Once on rxq skb is the reader's: nothing is read from it after. */
	unsigned int len = skb->len, gso_segs = skb_is_gso(skb) ? skb_shinfo(skb)->gso_segs : 0;
	struct nsl_ring *ring = rcu_dereference(slice->ring);
	/* Handed over by the slice before: hops is never 0 then. */
	bool chained = nsl_rx_cb(skb)->hops;
	int err;

	nsl_rx_cb(skb)->cut_len = cut_len;
	/* Ring mode: copied to the process's frames here, or not queued at all. */
	err = ring ? nsl_ring_rx(ring, skb) : ptr_ring_produce(&slice->rxq, skb);
	if (unlikely(err)) {
		/* Not -ENOSPC: ring mode dropped (and counted) the packet. */
		return err == -ENOSPC && nsl_rx_overflow(slice, ring, skb, cfg);
	}
	nsl_stat_inc(slice, NSL_RX_PACKETS);
	nsl_stat_add(slice, NSL_RX_BYTES, len);
	if (gso_segs) {
		nsl_stat_inc(slice, NSL_RX_GSO_PACKETS);
		nsl_stat_add(slice, NSL_RX_GSO_SEGMENTS, gso_segs);
	}
	if (unlikely(chained))
		nsl_stat_inc(slice, NSL_RX_CHAINED);
	/* Ring mode woke its poller itself (nsl_ring_rx()). */
	if (!ring)
		nsl_slice_wake_armed(slice);
	return true;
}

/*
 * Queue the segments of a super-packet the slice does not keep whole:
 * false if none could be (dropped and counted).
 */
static bool nsl_rx_segment(struct nsl_slice *slice, struct sk_buff *skb, u32 cfg)
{
	struct nsl_rx_cb cb = *nsl_rx_cb(skb);
	struct sk_buff *segs, *seg, *next;
	bool queued = false;

	segs = nsl_gso_segment(skb);
	if (!segs) {
		nsl_stat_inc(slice, NSL_RX_DROP_ERROR);
		kfree_skb(skb);
		return false;
	}
	skb_list_walk_safe(segs, seg, next) {
		skb_mark_not_on_list(seg);
		*nsl_rx_cb(seg) = cb;
		nsl_rx_cb(seg)->flags |= NETSLICE_RX_SEGMENT;
		nsl_stat_inc(slice, NSL_RX_SEGMENTS);
		queued |= nsl_rx_enqueue(slice, seg, cfg, nsl_cut_len(seg, cfg));
	}
	return queued;
}

/*
 * A super-packet stays whole on a slice that asks for it, if it is one
 * that can be (nsl_gso_keep()) and its slice leaves a payload to park:
 * its cut length, or 0 to segment it.
 */
static unsigned int nsl_rx_keep_gso(struct sk_buff *skb, u32 cfg)
{
	unsigned int hdr_len, cut_len;

	if (!(nsl_cut_flags(cfg) & NETSLICE_CUT_GSO))
		return 0;
	hdr_len = nsl_gso_keep(skb);
	cut_len = hdr_len ? nsl_cut_len(skb, cfg) : 0;
	if (cut_len)
		nsl_rx_cb(skb)->gso_hdr_len = hdr_len;
	return cut_len;
}

/*
 * A packet for slice, its nsl_rx_cb filled: kept whole or segmented, cut
 * and queued under one read of the slice's cut. True when queued (or its
 * trimmed record, or some of its segments); else dropped and counted.
 */
static bool nsl_rx_take(struct nsl_slice *slice, struct sk_buff *skb)
{
	u32 cfg = READ_ONCE(slice->cut);
	unsigned int cut_len;

	if (skb_is_gso(skb)) {
		cut_len = nsl_rx_keep_gso(skb, cfg);
		if (!cut_len)
			return nsl_rx_segment(slice, skb, cfg);
	} else {
		if (skb->ip_summed == CHECKSUM_PARTIAL && skb_checksum_help(skb)) {
			kfree_skb(skb);
			nsl_stat_inc(slice, NSL_RX_DROP_ERROR);
			return false;
		}
		cut_len = nsl_cut_len(skb, cfg);
	}
	return nsl_rx_enqueue(slice, skb, cfg, cut_len);
}

rx_handler_result_t nsl_rx_handler(struct sk_buff **pskb)
{
	struct sk_buff *skb = *pskb;
	struct nsl_slice *slice;
	struct nsl_iface *iface;
	u16 queue;

	if (unlikely(skb->pkt_type == PACKET_LOOPBACK || nsl_xmit_to_host_here()))
		return RX_HANDLER_PASS;

	iface = rcu_dereference(skb->dev->rx_handler_data);
	slice = nsl_rx_pick_slice(iface, skb, &queue);

	if (unlikely(!cpumask_test_cpu(smp_processor_id(), slice->kernel_cpus)))
		nsl_stat_inc(slice, NSL_RX_OFF_CPU);
	if (!atomic_read(&slice->open_files)) {
		nsl_stat_inc(slice, NSL_RX_DROP_NO_READER);
		kfree_skb(skb);
		return RX_HANDLER_CONSUMED;
	}

	skb = skb_share_check(skb, GFP_ATOMIC);
	if (unlikely(!skb))
		goto err_count;
	/*
	 * The frame is the slice's now, as a socket's on receive: a local
	 * sender (veth in this namespace) must not have its send buffer held
	 * while the frame waits in rxq, a ring-mode frame or the store.
	 */
	skb_orphan(skb);

	/* Readers get the frame from its link-layer header on. */
	skb_push(skb, skb->data - skb_mac_header(skb));
	if (skb_vlan_tag_present(skb)) {
		skb = __vlan_hwaccel_push_inside(skb);
		if (unlikely(!skb))
			goto err_count;
	}

	*nsl_rx_cb(skb) = (struct nsl_rx_cb) {
		.ifindex = skb->dev->ifindex,
		.port = iface->port,
		.queue = queue,
	};
	nsl_rx_take(slice, skb);
	return RX_HANDLER_CONSUMED;

err_count:
	nsl_stat_inc(slice, NSL_RX_DROP_ERROR);
	return RX_HANDLER_CONSUMED;
}

enum nsl_txerr nsl_rx_handoff(struct nsl_slice *slice, struct sk_buff *skb,
			      const struct net_device *dev, u32 port, u8 hops)
{
	bool queued;

	if (!atomic_read(&slice->open_files)) {
		nsl_stat_inc(slice, NSL_RX_DROP_NO_READER);
		kfree_skb(skb);
		return NSL_TXERR_DOWN;
	}
	*nsl_rx_cb(skb) = (struct nsl_rx_cb) {
		.ifindex = dev->ifindex,
		.port = port,
		.queue = NETSLICE_QUEUE_NONE,
		.hops = hops,
	};
	/*
	 * Queued, it may outlive the writer's hold on dev: nothing queued
	 * keeps a device pointer. Nothing on the way needs one (segmentation
	 * on receive asks no device features).
	 */
	skb->dev = NULL;
	/* The producer locks are softirq RX's too, and RX reads slice->ring under RCU. */
	local_bh_disable();
	rcu_read_lock();
	/*
	 * Its port detached: a detach purges the queues a grace period after
	 * unpublishing the port, so this packet is either refused here or
	 * queued before the purge, never left behind it.
	 */
	if (unlikely(!nsl_iface_by_port_rcu(port))) {
		rcu_read_unlock();
		local_bh_enable();
		kfree_skb(skb);
		return NSL_TXERR_DOWN;
	}
	queued = nsl_rx_take(slice, skb);
	rcu_read_unlock();
	local_bh_enable();
	return queued ? NSL_TXERR_NONE : NSL_TXERR_DROPPED;
}
