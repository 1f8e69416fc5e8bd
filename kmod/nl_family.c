// SPDX-License-Identifier: GPL-2.0
/*
 * The "netslice" generic netlink family: the family object, its monitor
 * group, and what every handler builds its messages with. The operations
 * (netlink.c) are handed in when it registers, so that the handlers, the
 * link events and the operation table all depend on this file and it on
 * none of them.
 */
#include <net/genetlink.h>
#include <net/sock.h>

#include "nl_family.h"

static const struct genl_multicast_group nsl_genl_mcgrps[] = {
	{ .name = NETSLICE_MCGRP_MONITOR },
};

static struct genl_family nsl_genl_family __ro_after_init = {
	.name = NETSLICE_FAMILY_NAME,
	.version = NETSLICE_FAMILY_VERSION,
	.netnsok = true,
	.module = THIS_MODULE,
	.mcgrps = nsl_genl_mcgrps,
	.n_mcgrps = ARRAY_SIZE(nsl_genl_mcgrps),
};

/* At module init, while the family is still writable (__ro_after_init). */
int nsl_nl_family_register(const struct genl_ops *ops, unsigned int n_ops)
{
	nsl_genl_family.ops = ops;
	nsl_genl_family.n_ops = n_ops;
	return genl_register_family(&nsl_genl_family);
}

void nsl_nl_family_unregister(void)
{
	genl_unregister_family(&nsl_genl_family);
}

void *nsl_nl_put(struct sk_buff *skb, u32 portid, u32 seq, int flags, u8 cmd)
{
	return genlmsg_put(skb, portid, seq, &nsl_genl_family, flags, cmd);
}

void nsl_nl_notify(struct net *net, struct sk_buff *skb)
{
	ASSERT_RTNL();
	genlmsg_multicast_netns(&nsl_genl_family, net, skb, 0, 0, GFP_KERNEL);
}

/*
 * Slices, their counters and the rules belong to the module, which the
 * initial namespace owns: they are shown there, or to a caller with
 * CAP_NET_ADMIN in the initial user namespace. Elsewhere a namespace sees
 * its own interfaces only (link-get).
 */
int nsl_nl_may_see_slices(struct sk_buff *skb, struct netlink_ext_ack *extack)
{
	if (net_eq(sock_net(skb->sk), &init_net) || netlink_capable(skb, CAP_NET_ADMIN))
		return 0;
	NL_SET_ERR_MSG(extack, "slices and rules belong to the initial network namespace");
	return -EPERM;
}
