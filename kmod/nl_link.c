// SPDX-License-Identifier: GPL-2.0
/*
 * Netlink link operations: attach and detach interfaces of the caller's
 * network namespace, and list them. The monitor group hears of every
 * attach and detach from iface.c, through nl_link_msg.c.
 */
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>
#include <net/genetlink.h>
#include <net/sock.h>

#include "iface.h"
#include "nl_link.h"
#include "nl_link_msg.h"
#include "params.h"
#include "port.h"

/* The device named by index or name in info's namespace, under RTNL. */
static struct net_device *nsl_nl_dev(struct genl_info *info, int ifindex_attr, int ifname_attr,
				     struct nlattr **bad)
{
	struct net *net = genl_info_net(info);
	struct net_device *dev;

	ASSERT_RTNL();
	*bad = info->attrs[ifindex_attr] ?: info->attrs[ifname_attr];
	if (info->attrs[ifindex_attr])
		dev = __dev_get_by_index(net, nla_get_u32(info->attrs[ifindex_attr]));
	else
		dev = __dev_get_by_name(net, nla_data(info->attrs[ifname_attr]));
	if (!dev)
		NL_SET_ERR_MSG_ATTR(info->extack, *bad,
				    "no such interface in this network namespace");
	return dev;
}

static bool nsl_nl_has_dev(struct genl_info *info, int ifindex_attr, int ifname_attr)
{
	if (info->attrs[ifindex_attr] || info->attrs[ifname_attr])
		return true;
	NL_SET_ERR_MSG(info->extack, "name the interface (ifindex or ifname)");
	NL_SET_ERR_ATTR_MISS(info->extack, NULL, ifname_attr);
	return false;
}

int nsl_nl_link_attach_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct net_device *dev, *peer = NULL, *culprit;
	struct nlattr *dev_attr, *peer_attr = NULL, **a = info->attrs;
	u32 first = 0, count;
	int err = -ENODEV;

	if (!nsl_nl_has_dev(info, NETSLICE_A_LINK_IFINDEX, NETSLICE_A_LINK_IFNAME))
		return -EINVAL;
	if (a[NETSLICE_A_LINK_SLICE_FIRST])
		first = nla_get_u32(a[NETSLICE_A_LINK_SLICE_FIRST]);
	if (first >= nsl_nr_slices) {
		NL_SET_ERR_MSG_ATTR(info->extack, a[NETSLICE_A_LINK_SLICE_FIRST],
				    "no such slice");
		return -EINVAL;
	}
	count = nsl_nr_slices - first;
	if (a[NETSLICE_A_LINK_SLICE_COUNT])
		count = nla_get_u32(a[NETSLICE_A_LINK_SLICE_COUNT]);
	if (count > nsl_nr_slices - first) {
		NL_SET_ERR_MSG_ATTR(info->extack, a[NETSLICE_A_LINK_SLICE_COUNT],
				    "slice range ends past the last slice");
		return -EINVAL;
	}

	rtnl_lock();
	dev = nsl_nl_dev(info, NETSLICE_A_LINK_IFINDEX, NETSLICE_A_LINK_IFNAME, &dev_attr);
	if (!dev)
		goto out_unlock;
	if (a[NETSLICE_A_LINK_PEER_IFINDEX] || a[NETSLICE_A_LINK_PEER_IFNAME]) {
		peer = nsl_nl_dev(info, NETSLICE_A_LINK_PEER_IFINDEX, NETSLICE_A_LINK_PEER_IFNAME,
				  &peer_attr);
		if (!peer)
			goto out_unlock;
	}
	err = nsl_iface_attach_pair(dev, peer, first, count, info->extack, &culprit);
	if (err)
		NL_SET_BAD_ATTR(info->extack, culprit == peer ? peer_attr : dev_attr);
out_unlock:
	rtnl_unlock();
	return err;
}

int nsl_nl_link_detach_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct net_device *dev;
	struct nlattr *attr;
	int err = -ENODEV;

	if (!nsl_nl_has_dev(info, NETSLICE_A_LINK_IFINDEX, NETSLICE_A_LINK_IFNAME))
		return -EINVAL;
	rtnl_lock();
	dev = nsl_nl_dev(info, NETSLICE_A_LINK_IFINDEX, NETSLICE_A_LINK_IFNAME, &attr);
	if (dev) {
		err = nsl_iface_detach_dev(dev, info->extack);
		if (err)
			NL_SET_BAD_ATTR(info->extack, attr);
	}
	rtnl_unlock();
	return err;
}

/* Interfaces of the caller's namespace only; cb->args[0] counts those sent. */
int nsl_nl_link_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct net *net = sock_net(skb->sk);
	struct nsl_iface *iface;
	long idx = 0;
	int err = 0;

	rcu_read_lock();
	list_for_each_entry_rcu(iface, &nsl_ifaces, list) {
		if (!net_eq(dev_net(iface->dev), net))
			continue;
		if (idx++ < cb->args[0])
			continue;
		err = nsl_nl_link_fill(skb, iface, NETLINK_CB(cb->skb).portid,
				       cb->nlh->nlmsg_seq, NLM_F_MULTI, NETSLICE_CMD_LINK_GET, 0);
		if (err) {
			idx--;
			break;
		}
	}
	rcu_read_unlock();
	cb->args[0] = idx;
	return err && !skb->len ? err : skb->len;
}
