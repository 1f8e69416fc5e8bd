/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _NETSLICE_NETLINK_H
#define _NETSLICE_NETLINK_H

#include <net/genetlink.h>

#include <linux/netslice_netlink.h>

struct nsl_iface;

extern struct genl_family nsl_genl_family;

int nsl_genl_init(void);
void nsl_genl_exit(void);

/* 0, or -EPERM with extack set: see netlink.c. */
int nsl_nl_may_see_slices(struct sk_buff *skb, struct netlink_ext_ack *extack);

/* A message of this family, for a reply or a notification. */
void *nsl_nl_put(struct sk_buff *skb, u32 portid, u32 seq, int flags, u8 cmd);

/* nl_link.c */
int nsl_nl_link_attach_doit(struct sk_buff *skb, struct genl_info *info);
int nsl_nl_link_detach_doit(struct sk_buff *skb, struct genl_info *info);
int nsl_nl_link_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb);
/* Under RTNL: tell the monitor group of iface's namespace. */
void nsl_nl_link_notify(const struct nsl_iface *iface, u8 cmd, int reason);

/* nl_slice.c */
int nsl_nl_slice_get_doit(struct sk_buff *skb, struct genl_info *info);
int nsl_nl_slice_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb);
int nsl_nl_slice_set_doit(struct sk_buff *skb, struct genl_info *info);
int nsl_nl_stats_get_doit(struct sk_buff *skb, struct genl_info *info);
int nsl_nl_stats_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb);
int nsl_nl_stats_reset_doit(struct sk_buff *skb, struct genl_info *info);

/* nl_rule.c */
int nsl_nl_rule_add_doit(struct sk_buff *skb, struct genl_info *info);
int nsl_nl_rule_del_doit(struct sk_buff *skb, struct genl_info *info);
int nsl_nl_rule_replace_doit(struct sk_buff *skb, struct genl_info *info);
int nsl_nl_rule_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb);
int nsl_nl_rule_flush_doit(struct sk_buff *skb, struct genl_info *info);
int nsl_nl_rule_batch_doit(struct sk_buff *skb, struct genl_info *info);

#endif /* _NETSLICE_NETLINK_H */
