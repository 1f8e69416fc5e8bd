// SPDX-License-Identifier: GPL-2.0
/*
 * The "netslice" generic netlink family: operations and the monitor
 * multicast group. uapi/netslice.yaml is the specification; the request
 * policies are generated from it (nl_policy.h, tools/ynl-gen.sh). The
 * generator's operation table would be genl_split_ops (Linux 6.2) with
 * parallel_ops, so this one is kept by hand, naming its policies.
 *
 * Requests run under the genetlink mutex (no parallel_ops), so they are
 * serialised with each other; link operations take RTNL inside it, rule
 * operations the rule table's lock.
 */
#include <linux/if.h>
#include <net/genetlink.h>
#include <net/sock.h>

#include <linux/netslice.h>

#include "compat.h"
#include "netlink.h"
#include "nl_policy.h"
#include "params.h"
#include "slice.h"
#include "store.h"

static const struct genl_ops nsl_genl_ops[] = {
	{ .cmd = NETSLICE_CMD_LINK_ATTACH, .flags = GENL_ADMIN_PERM,
	  .policy = netslice_link_attach_nl_policy,
	  .maxattr = ARRAY_SIZE(netslice_link_attach_nl_policy) - 1,
	  .doit = nsl_nl_link_attach_doit },
	{ .cmd = NETSLICE_CMD_LINK_DETACH, .flags = GENL_ADMIN_PERM,
	  .policy = netslice_link_detach_nl_policy,
	  .maxattr = ARRAY_SIZE(netslice_link_detach_nl_policy) - 1,
	  .doit = nsl_nl_link_detach_doit },
	{ .cmd = NETSLICE_CMD_LINK_GET, .dumpit = nsl_nl_link_get_dumpit },
	{ .cmd = NETSLICE_CMD_SLICE_GET,
	  .policy = netslice_slice_get_do_nl_policy,
	  .maxattr = ARRAY_SIZE(netslice_slice_get_do_nl_policy) - 1,
	  .doit = nsl_nl_slice_get_doit, .dumpit = nsl_nl_slice_get_dumpit },
	{ .cmd = NETSLICE_CMD_SLICE_SET, .flags = GENL_ADMIN_PERM,
	  .policy = netslice_slice_set_nl_policy,
	  .maxattr = ARRAY_SIZE(netslice_slice_set_nl_policy) - 1,
	  .doit = nsl_nl_slice_set_doit },
	{ .cmd = NETSLICE_CMD_STATS_GET,
	  .policy = netslice_stats_get_do_nl_policy,
	  .maxattr = ARRAY_SIZE(netslice_stats_get_do_nl_policy) - 1,
	  .doit = nsl_nl_stats_get_doit, .dumpit = nsl_nl_stats_get_dumpit },
	{ .cmd = NETSLICE_CMD_STATS_RESET, .flags = GENL_ADMIN_PERM,
	  .policy = netslice_stats_reset_nl_policy,
	  .maxattr = ARRAY_SIZE(netslice_stats_reset_nl_policy) - 1,
	  .doit = nsl_nl_stats_reset_doit },
	{ .cmd = NETSLICE_CMD_RULE_ADD, .flags = GENL_ADMIN_PERM,
	  .policy = netslice_rule_add_nl_policy,
	  .maxattr = ARRAY_SIZE(netslice_rule_add_nl_policy) - 1,
	  .doit = nsl_nl_rule_add_doit },
	{ .cmd = NETSLICE_CMD_RULE_DEL, .flags = GENL_ADMIN_PERM,
	  .policy = netslice_rule_del_nl_policy,
	  .maxattr = ARRAY_SIZE(netslice_rule_del_nl_policy) - 1,
	  .doit = nsl_nl_rule_del_doit },
	{ .cmd = NETSLICE_CMD_RULE_REPLACE, .flags = GENL_ADMIN_PERM,
	  .policy = netslice_rule_replace_nl_policy,
	  .maxattr = ARRAY_SIZE(netslice_rule_replace_nl_policy) - 1,
	  .doit = nsl_nl_rule_replace_doit },
	{ .cmd = NETSLICE_CMD_RULE_GET, .dumpit = nsl_nl_rule_get_dumpit },
	{ .cmd = NETSLICE_CMD_RULE_FLUSH, .flags = GENL_ADMIN_PERM,
	  .doit = nsl_nl_rule_flush_doit },
	{ .cmd = NETSLICE_CMD_RULE_BATCH, .flags = GENL_ADMIN_PERM,
	  .policy = netslice_rule_batch_nl_policy,
	  .maxattr = ARRAY_SIZE(netslice_rule_batch_nl_policy) - 1,
	  .doit = nsl_nl_rule_batch_doit },
};

static const struct genl_multicast_group nsl_genl_mcgrps[] = {
	{ .name = NETSLICE_MCGRP_MONITOR },
};

struct genl_family nsl_genl_family __ro_after_init = {
	.name = NETSLICE_FAMILY_NAME,
	.version = NETSLICE_FAMILY_VERSION,
	.netnsok = true,
	.module = THIS_MODULE,
	.ops = nsl_genl_ops,
	.n_ops = ARRAY_SIZE(nsl_genl_ops),
	.mcgrps = nsl_genl_mcgrps,
	.n_mcgrps = ARRAY_SIZE(nsl_genl_mcgrps),
};

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

void *nsl_nl_put(struct sk_buff *skb, u32 portid, u32 seq, int flags, u8 cmd)
{
	return genlmsg_put(skb, portid, seq, &nsl_genl_family, flags, cmd);
}

int nsl_genl_init(void)
{
	return genl_register_family(&nsl_genl_family);
}

void nsl_genl_exit(void)
{
	genl_unregister_family(&nsl_genl_family);
}
