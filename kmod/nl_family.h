/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _NETSLICE_NL_FAMILY_H
#define _NETSLICE_NL_FAMILY_H

#include <net/genetlink.h>

#include <linux/netslice_netlink.h>

int nsl_nl_family_register(const struct genl_ops *ops, unsigned int n_ops);
void nsl_nl_family_unregister(void);

/* A message of this family, for a reply or a notification. */
void *nsl_nl_put(struct sk_buff *skb, u32 portid, u32 seq, int flags, u8 cmd);
/* Under RTNL: send skb to the monitor group of net. */
void nsl_nl_notify(struct net *net, struct sk_buff *skb);

/* 0, or -EPERM with extack set: see nl_family.c. */
int nsl_nl_may_see_slices(struct sk_buff *skb, struct netlink_ext_ack *extack);

#endif /* _NETSLICE_NL_FAMILY_H */
