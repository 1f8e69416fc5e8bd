/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _NETSLICE_NL_LINK_H
#define _NETSLICE_NL_LINK_H

#include <net/genetlink.h>

int nsl_nl_link_attach_doit(struct sk_buff *skb, struct genl_info *info);
int nsl_nl_link_detach_doit(struct sk_buff *skb, struct genl_info *info);
int nsl_nl_link_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb);

#endif /* _NETSLICE_NL_LINK_H */
