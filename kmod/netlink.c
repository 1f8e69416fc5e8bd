// SPDX-License-Identifier: GPL-2.0
/*
 * The "netslice" generic netlink family: operations, their request
 * policies and the monitor multicast group. uapi/netslice.yaml is the
 * specification; the policies below follow it attribute by attribute
 * (tests/spec_check.py and the guest's policy dump check that).
 *
 * Requests run under the genetlink mutex (no parallel_ops), so they are
 * serialised with each other; link operations take RTNL inside it, rule
 * operations the rule table's lock.
 */
#include <linux/if.h>
#include <net/genetlink.h>
#include <net/sock.h>

#include <linux/netslice.h>

#include "netlink.h"
#include "params.h"
#include "slice.h"
#include "store.h"

const struct nla_policy ns_link_attach_policy[NETSLICE_A_LINK_SLICE_COUNT + 1] = {
	[NETSLICE_A_LINK_IFINDEX] = NLA_POLICY_MIN(NLA_U32, 1),
	[NETSLICE_A_LINK_IFNAME] = { .type = NLA_NUL_STRING, .len = IFNAMSIZ - 1 },
	[NETSLICE_A_LINK_PEER_IFINDEX] = NLA_POLICY_MIN(NLA_U32, 1),
	[NETSLICE_A_LINK_PEER_IFNAME] = { .type = NLA_NUL_STRING, .len = IFNAMSIZ - 1 },
	[NETSLICE_A_LINK_SLICE_FIRST] = NLA_POLICY_MAX(NLA_U32, NETSLICE_MAX_SLICES - 1),
	[NETSLICE_A_LINK_SLICE_COUNT] = NLA_POLICY_RANGE(NLA_U32, 1, NETSLICE_MAX_SLICES),
};

const struct nla_policy ns_link_id_policy[NETSLICE_A_LINK_IFNAME + 1] = {
	[NETSLICE_A_LINK_IFINDEX] = NLA_POLICY_MIN(NLA_U32, 1),
	[NETSLICE_A_LINK_IFNAME] = { .type = NLA_NUL_STRING, .len = IFNAMSIZ - 1 },
};

const struct nla_policy ns_slice_id_policy[NETSLICE_A_SLICE_ID + 1] = {
	[NETSLICE_A_SLICE_ID] = NLA_POLICY_MAX(NLA_U32, NETSLICE_MAX_SLICES - 1),
};

/* A CPU list string: "0-3,8" for up to 8192 CPUs fits easily. */
#define NS_CPULIST_MAX	1023

/* Past the s16 that NLA_POLICY_RANGE() holds. */
static struct netlink_range_validation ns_ring_size_range = {
	.min = 2, .max = NS_MAX_RING_SIZE,
};

static struct netlink_range_validation ns_store_size_range = {
	.min = 1, .max = NS_STORE_MAX_SIZE,
};

static struct netlink_range_validation ns_store_timeout_ms_range = {
	.min = 1, .max = NS_MAX_STORE_TIMEOUT_MS,
};

const struct nla_policy ns_slice_set_policy[NETSLICE_A_SLICE_SLICING_GSO + 1] = {
	[NETSLICE_A_SLICE_ID] = NLA_POLICY_MAX(NLA_U32, NETSLICE_MAX_SLICES - 1),
	[NETSLICE_A_SLICE_KERNEL_CPUS] = { .type = NLA_NUL_STRING, .len = NS_CPULIST_MAX },
	[NETSLICE_A_SLICE_USER_CPUS] = { .type = NLA_NUL_STRING, .len = NS_CPULIST_MAX },
	[NETSLICE_A_SLICE_SLICING_MODE] = NLA_POLICY_MAX(NLA_U32, NETSLICE_SLICING_MODE_AUTO),
	[NETSLICE_A_SLICE_SLICING_LENGTH] = NLA_POLICY_RANGE(NLA_U32, 1, NETSLICE_MAX_HEADER),
	[NETSLICE_A_SLICE_SLICING_EXTRA] = NLA_POLICY_MAX(NLA_U32, NETSLICE_MAX_EXTRA),
	[NETSLICE_A_SLICE_SLICING_TRIM] = NLA_POLICY_MAX(NLA_U8, 1),
	[NETSLICE_A_SLICE_BATCH_FLAGS] = NLA_POLICY_MASK(NLA_U32, NETSLICE_BATCH_FLAGS_MULTI_READ |
							 NETSLICE_BATCH_FLAGS_MULTI_WRITE),
	[NETSLICE_A_SLICE_BATCH_MAX] = NLA_POLICY_RANGE(NLA_U32, 1, NETSLICE_MAX_BATCH),
	[NETSLICE_A_SLICE_SLICING_GSO] = NLA_POLICY_MAX(NLA_U8, 1),
	[NETSLICE_A_SLICE_RING_SIZE] = NLA_POLICY_FULL_RANGE(NLA_U32, &ns_ring_size_range),
	[NETSLICE_A_SLICE_STORE_SIZE] = NLA_POLICY_FULL_RANGE(NLA_U32, &ns_store_size_range),
	[NETSLICE_A_SLICE_STORE_TIMEOUT_MS] =
		NLA_POLICY_FULL_RANGE(NLA_U32, &ns_store_timeout_ms_range),
};

const struct nla_policy ns_stats_policy[NETSLICE_A_STATS_SLICE + 1] = {
	[NETSLICE_A_STATS_SLICE] = NLA_POLICY_MAX(NLA_U32, NETSLICE_MAX_SLICES - 1),
};

/* Also takes what rule-get reports, so a dump can be sent back as it is. */
static const struct nla_policy ns_rule_policy[NETSLICE_A_RULE_MAX + 1] = {
	[NETSLICE_A_RULE_ID] = NLA_POLICY_MIN(NLA_U32, 1),
	[NETSLICE_A_RULE_FAMILY] = NLA_POLICY_MAX(NLA_U8, NETSLICE_RULE_FAMILY_IPV6),
	[NETSLICE_A_RULE_PROTO] = { .type = NLA_U8 },
	[NETSLICE_A_RULE_SRC] = { .type = NLA_BINARY, .len = 16 },
	[NETSLICE_A_RULE_SRC_LEN] = NLA_POLICY_MAX(NLA_U8, 128),
	[NETSLICE_A_RULE_DST] = { .type = NLA_BINARY, .len = 16 },
	[NETSLICE_A_RULE_DST_LEN] = NLA_POLICY_MAX(NLA_U8, 128),
	[NETSLICE_A_RULE_SPORT_MIN] = { .type = NLA_U16 },
	[NETSLICE_A_RULE_SPORT_MAX] = { .type = NLA_U16 },
	[NETSLICE_A_RULE_DPORT_MIN] = { .type = NLA_U16 },
	[NETSLICE_A_RULE_DPORT_MAX] = { .type = NLA_U16 },
	[NETSLICE_A_RULE_PREF] = { .type = NLA_U32 },
	[NETSLICE_A_RULE_SLICE] = NLA_POLICY_MAX(NLA_U32, NETSLICE_MAX_SLICES - 1),
	[NETSLICE_A_RULE_EXACT] = { .type = NLA_FLAG },
	[NETSLICE_A_RULE_HITS] = { .type = NLA_U64 },
	[NETSLICE_A_RULE_PAD] = { .type = NLA_REJECT },
	[NETSLICE_A_RULE_OP] = NLA_POLICY_MAX(NLA_U8, NETSLICE_RULE_OP_REPLACE),
};

const struct nla_policy ns_rules_policy[NETSLICE_A_RULES_RULE + 1] = {
	[NETSLICE_A_RULES_RULE] = NLA_POLICY_NESTED(ns_rule_policy),
};

static const struct genl_ops ns_genl_ops[] = {
	{ .cmd = NETSLICE_CMD_LINK_ATTACH, .flags = GENL_ADMIN_PERM,
	  .policy = ns_link_attach_policy, .maxattr = ARRAY_SIZE(ns_link_attach_policy) - 1,
	  .doit = ns_nl_link_attach_doit },
	{ .cmd = NETSLICE_CMD_LINK_DETACH, .flags = GENL_ADMIN_PERM,
	  .policy = ns_link_id_policy, .maxattr = ARRAY_SIZE(ns_link_id_policy) - 1,
	  .doit = ns_nl_link_detach_doit },
	{ .cmd = NETSLICE_CMD_LINK_GET, .dumpit = ns_nl_link_get_dumpit },
	{ .cmd = NETSLICE_CMD_SLICE_GET,
	  .policy = ns_slice_id_policy, .maxattr = ARRAY_SIZE(ns_slice_id_policy) - 1,
	  .doit = ns_nl_slice_get_doit, .dumpit = ns_nl_slice_get_dumpit },
	{ .cmd = NETSLICE_CMD_SLICE_SET, .flags = GENL_ADMIN_PERM,
	  .policy = ns_slice_set_policy, .maxattr = ARRAY_SIZE(ns_slice_set_policy) - 1,
	  .doit = ns_nl_slice_set_doit },
	{ .cmd = NETSLICE_CMD_STATS_GET,
	  .policy = ns_stats_policy, .maxattr = ARRAY_SIZE(ns_stats_policy) - 1,
	  .doit = ns_nl_stats_get_doit, .dumpit = ns_nl_stats_get_dumpit },
	{ .cmd = NETSLICE_CMD_STATS_RESET, .flags = GENL_ADMIN_PERM,
	  .policy = ns_stats_policy, .maxattr = ARRAY_SIZE(ns_stats_policy) - 1,
	  .doit = ns_nl_stats_reset_doit },
	{ .cmd = NETSLICE_CMD_RULE_ADD, .flags = GENL_ADMIN_PERM,
	  .policy = ns_rules_policy, .maxattr = ARRAY_SIZE(ns_rules_policy) - 1,
	  .doit = ns_nl_rule_add_doit },
	{ .cmd = NETSLICE_CMD_RULE_DEL, .flags = GENL_ADMIN_PERM,
	  .policy = ns_rules_policy, .maxattr = ARRAY_SIZE(ns_rules_policy) - 1,
	  .doit = ns_nl_rule_del_doit },
	{ .cmd = NETSLICE_CMD_RULE_REPLACE, .flags = GENL_ADMIN_PERM,
	  .policy = ns_rules_policy, .maxattr = ARRAY_SIZE(ns_rules_policy) - 1,
	  .doit = ns_nl_rule_replace_doit },
	{ .cmd = NETSLICE_CMD_RULE_GET, .dumpit = ns_nl_rule_get_dumpit },
	{ .cmd = NETSLICE_CMD_RULE_FLUSH, .flags = GENL_ADMIN_PERM,
	  .doit = ns_nl_rule_flush_doit },
	{ .cmd = NETSLICE_CMD_RULE_BATCH, .flags = GENL_ADMIN_PERM,
	  .policy = ns_rules_policy, .maxattr = ARRAY_SIZE(ns_rules_policy) - 1,
	  .doit = ns_nl_rule_batch_doit },
};

static const struct genl_multicast_group ns_genl_mcgrps[] = {
	{ .name = NETSLICE_MCGRP_MONITOR },
};

struct genl_family ns_genl_family __ro_after_init = {
	.name = NETSLICE_FAMILY_NAME,
	.version = NETSLICE_FAMILY_VERSION,
	.netnsok = true,
	.module = THIS_MODULE,
	.ops = ns_genl_ops,
	.n_ops = ARRAY_SIZE(ns_genl_ops),
	.mcgrps = ns_genl_mcgrps,
	.n_mcgrps = ARRAY_SIZE(ns_genl_mcgrps),
};

/*
 * Slices, their counters and the rules belong to the module, which the
 * initial namespace owns: they are shown there, or to a caller with
 * CAP_NET_ADMIN in the initial user namespace. Elsewhere a namespace sees
 * its own interfaces only (link-get).
 */
int ns_nl_may_see_slices(struct sk_buff *skb, struct netlink_ext_ack *extack)
{
	if (net_eq(sock_net(skb->sk), &init_net) || netlink_capable(skb, CAP_NET_ADMIN))
		return 0;
	NL_SET_ERR_MSG(extack, "slices and rules belong to the initial network namespace");
	return -EPERM;
}

void *ns_nl_put(struct sk_buff *skb, u32 portid, u32 seq, int flags, u8 cmd)
{
	return genlmsg_put(skb, portid, seq, &ns_genl_family, flags, cmd);
}

int ns_genl_init(void)
{
	return genl_register_family(&ns_genl_family);
}

void ns_genl_exit(void)
{
	genl_unregister_family(&ns_genl_family);
}
