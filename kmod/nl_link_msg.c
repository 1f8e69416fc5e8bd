// SPDX-License-Identifier: GPL-2.0
/*
 * The link message: one attached interface, as link-get's dump lists it
 * and as the monitor group hears of its attach and detach (requested, or
 * forced by the interface going away). iface.c sends the events, so this
 * file needs the port table and the family only.
 */
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>
#include <net/genetlink.h>

#include "nl_family.h"
#include "nl_link_msg.h"
#include "port.h"

int nsl_nl_link_fill(struct sk_buff *skb, const struct nsl_iface *iface, u32 portid, u32 seq,
		     int flags, u8 cmd, int reason)
{
	const struct net_device *dev = iface->dev;
	int pair_ifindex;
	void *hdr;

	rcu_read_lock();
	pair_ifindex = nsl_iface_pair_ifindex_rcu(iface);
	rcu_read_unlock();
	hdr = nsl_nl_put(skb, portid, seq, flags, cmd);
	if (!hdr)
		return -EMSGSIZE;
	if (nla_put_u32(skb, NETSLICE_A_LINK_IFINDEX, dev->ifindex) ||
	    nla_put_u32(skb, NETSLICE_A_LINK_PORT, iface->port) ||
	    nla_put_u32(skb, NETSLICE_A_LINK_PEER_PORT, READ_ONCE(iface->pair_port)) ||
	    nla_put_string(skb, NETSLICE_A_LINK_IFNAME, dev->name) ||
	    nla_put_u32(skb, NETSLICE_A_LINK_PEER_IFINDEX, pair_ifindex) ||
	    nla_put_u32(skb, NETSLICE_A_LINK_SLICE_FIRST, iface->slice_first) ||
	    nla_put_u32(skb, NETSLICE_A_LINK_SLICE_COUNT, iface->slice_count) ||
	    nla_put_u32(skb, NETSLICE_A_LINK_RX_QUEUES, dev->real_num_rx_queues) ||
	    (iface->hashed && nla_put_flag(skb, NETSLICE_A_LINK_HASHED)) ||
	    (cmd == NETSLICE_CMD_LINK_DETACH_NTF &&
	     nla_put_u32(skb, NETSLICE_A_LINK_REASON, reason))) {
		genlmsg_cancel(skb, hdr);
		return -EMSGSIZE;
	}
	genlmsg_end(skb, hdr);
	return 0;
}

void nsl_nl_link_notify(const struct nsl_iface *iface, u8 cmd, int reason)
{
	struct sk_buff *skb;

	ASSERT_RTNL();
	skb = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!skb)
		return;
	if (nsl_nl_link_fill(skb, iface, 0, 0, 0, cmd, reason)) {
		nlmsg_free(skb);
		return;
	}
	nsl_nl_notify(dev_net(iface->dev), skb);
}
