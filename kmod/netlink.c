// SPDX-License-Identifier: GPL-2.0
/*
 * The "netslice" generic netlink family's operations, registered with the
 * family (nl_family.c). uapi/netslice.yaml is the specification; the request
 * policies are generated from it (nl_policy.h, scripts/ynl-gen.sh). The
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
#include "nl_family.h"
#include "nl_link.h"
#include "nl_policy.h"
#include "nl_rule.h"
#include "nl_slice.h"

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

int nsl_genl_init(void)
{
	return nsl_nl_family_register(nsl_genl_ops, ARRAY_SIZE(nsl_genl_ops));
}

void nsl_genl_exit(void)
{
	nsl_nl_family_unregister();
}
