/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _NETSLICE_NL_RULE_H
#define _NETSLICE_NL_RULE_H

#include <net/genetlink.h>

int nsl_nl_rule_add_doit(struct sk_buff *skb, struct genl_info *info);
int nsl_nl_rule_del_doit(struct sk_buff *skb, struct genl_info *info);
int nsl_nl_rule_replace_doit(struct sk_buff *skb, struct genl_info *info);
int nsl_nl_rule_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb);
int nsl_nl_rule_flush_doit(struct sk_buff *skb, struct genl_info *info);
int nsl_nl_rule_batch_doit(struct sk_buff *skb, struct genl_info *info);

#endif /* _NETSLICE_NL_RULE_H */
