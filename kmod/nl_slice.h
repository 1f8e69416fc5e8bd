/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _NETSLICE_NL_SLICE_H
#define _NETSLICE_NL_SLICE_H

#include <net/genetlink.h>

int nsl_nl_slice_get_doit(struct sk_buff *skb, struct genl_info *info);
int nsl_nl_slice_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb);
int nsl_nl_slice_set_doit(struct sk_buff *skb, struct genl_info *info);
int nsl_nl_stats_get_doit(struct sk_buff *skb, struct genl_info *info);
int nsl_nl_stats_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb);
int nsl_nl_stats_reset_doit(struct sk_buff *skb, struct genl_info *info);

#endif /* _NETSLICE_NL_SLICE_H */
