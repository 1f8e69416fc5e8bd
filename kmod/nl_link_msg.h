/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _NETSLICE_NL_LINK_MSG_H
#define _NETSLICE_NL_LINK_MSG_H

#include <linux/skbuff.h>
#include <linux/types.h>

#include <linux/netslice_netlink.h>

struct nsl_iface;

int nsl_nl_link_fill(struct sk_buff *skb, const struct nsl_iface *iface, u32 portid, u32 seq,
		     int flags, u8 cmd, int reason);
/* Under RTNL: tell the monitor group of iface's namespace; cmd a NETSLICE_CMD_LINK_*_NTF. */
void nsl_nl_link_notify(const struct nsl_iface *iface, u8 cmd, int reason);

#endif /* _NETSLICE_NL_LINK_MSG_H */
