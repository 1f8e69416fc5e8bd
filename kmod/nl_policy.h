/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR BSD-3-Clause) */
/* Do not edit directly, auto-generated from: */
/*	uapi/netslice.yaml */
/* YNL-GEN kernel policies: ynl_gen_c.py's, by scripts/ynl_policies.py */
/* To regenerate run: scripts/ynl-gen.sh */

#ifndef _NETSLICE_NL_POLICY_H
#define _NETSLICE_NL_POLICY_H

#include <net/netlink.h>

#include <linux/netslice_netlink.h>

/* Integer value ranges */
static const struct netlink_range_validation netslice_a_slice_rxq_size_range = {
	.min	= 2ULL,
	.max	= 65536ULL,
};

static const struct netlink_range_validation netslice_a_slice_store_size_range = {
	.min	= 1ULL,
	.max	= 65536ULL,
};

static const struct netlink_range_validation netslice_a_slice_store_timeout_ms_range = {
	.min	= 1ULL,
	.max	= 600000ULL,
};

/* Common nested types */
extern const struct nla_policy netslice_rule_entry_nl_policy[NETSLICE_A_RULE_OP + 1];
const struct nla_policy netslice_rule_entry_nl_policy[NETSLICE_A_RULE_OP + 1] = {
	[NETSLICE_A_RULE_ID] = NLA_POLICY_MIN(NLA_U32, 1),
	[NETSLICE_A_RULE_FAMILY] = NLA_POLICY_MAX(NLA_U8, 2),
	[NETSLICE_A_RULE_PROTO] = { .type = NLA_U8, },
	[NETSLICE_A_RULE_SRC] = NLA_POLICY_MAX_LEN(16),
	[NETSLICE_A_RULE_SRC_LEN] = NLA_POLICY_MAX(NLA_U8, 128),
	[NETSLICE_A_RULE_DST] = NLA_POLICY_MAX_LEN(16),
	[NETSLICE_A_RULE_DST_LEN] = NLA_POLICY_MAX(NLA_U8, 128),
	[NETSLICE_A_RULE_SPORT_MIN] = { .type = NLA_U16, },
	[NETSLICE_A_RULE_SPORT_MAX] = { .type = NLA_U16, },
	[NETSLICE_A_RULE_DPORT_MIN] = { .type = NLA_U16, },
	[NETSLICE_A_RULE_DPORT_MAX] = { .type = NLA_U16, },
	[NETSLICE_A_RULE_PREF] = { .type = NLA_U32, },
	[NETSLICE_A_RULE_SLICE] = NLA_POLICY_MAX(NLA_U32, 255),
	[NETSLICE_A_RULE_EXACT] = { .type = NLA_FLAG, },
	[NETSLICE_A_RULE_HITS] = { .type = NLA_U64, },
	[NETSLICE_A_RULE_OP] = NLA_POLICY_MAX(NLA_U8, 2),
};

/* NETSLICE_CMD_LINK_ATTACH - do */
static const struct nla_policy netslice_link_attach_nl_policy[NETSLICE_A_LINK_SLICE_COUNT + 1] = {
	[NETSLICE_A_LINK_IFINDEX] = NLA_POLICY_MIN(NLA_U32, 1),
	[NETSLICE_A_LINK_IFNAME] = { .type = NLA_NUL_STRING, .len = 15, },
	[NETSLICE_A_LINK_PEER_IFINDEX] = NLA_POLICY_MIN(NLA_U32, 1),
	[NETSLICE_A_LINK_PEER_IFNAME] = { .type = NLA_NUL_STRING, .len = 15, },
	[NETSLICE_A_LINK_SLICE_FIRST] = NLA_POLICY_MAX(NLA_U32, 255),
	[NETSLICE_A_LINK_SLICE_COUNT] = NLA_POLICY_RANGE(NLA_U32, 1, 256),
};

/* NETSLICE_CMD_LINK_DETACH - do */
static const struct nla_policy netslice_link_detach_nl_policy[NETSLICE_A_LINK_IFNAME + 1] = {
	[NETSLICE_A_LINK_IFINDEX] = NLA_POLICY_MIN(NLA_U32, 1),
	[NETSLICE_A_LINK_IFNAME] = { .type = NLA_NUL_STRING, .len = 15, },
};

/* NETSLICE_CMD_SLICE_GET - do */
static const struct nla_policy netslice_slice_get_do_nl_policy[NETSLICE_A_SLICE_ID + 1] = {
	[NETSLICE_A_SLICE_ID] = NLA_POLICY_MAX(NLA_U32, 255),
};

/* NETSLICE_CMD_SLICE_SET - do */
static const struct nla_policy netslice_slice_set_nl_policy[NETSLICE_A_SLICE_CHAIN_END + 1] = {
	[NETSLICE_A_SLICE_ID] = NLA_POLICY_MAX(NLA_U32, 255),
	[NETSLICE_A_SLICE_KERNEL_CPUS] = { .type = NLA_NUL_STRING, .len = 1023, },
	[NETSLICE_A_SLICE_USER_CPUS] = { .type = NLA_NUL_STRING, .len = 1023, },
	[NETSLICE_A_SLICE_CUT_MODE] = NLA_POLICY_MAX(NLA_U32, 2),
	[NETSLICE_A_SLICE_CUT_LENGTH] = NLA_POLICY_RANGE(NLA_U32, 1, 512),
	[NETSLICE_A_SLICE_CUT_EXTRA] = NLA_POLICY_MAX(NLA_U32, 256),
	[NETSLICE_A_SLICE_CUT_TRIM] = NLA_POLICY_MAX(NLA_U8, 1),
	[NETSLICE_A_SLICE_BATCH_FLAGS] = NLA_POLICY_BITFIELD32(3),
	[NETSLICE_A_SLICE_BATCH_MAX] = NLA_POLICY_RANGE(NLA_U32, 1, 1024),
	[NETSLICE_A_SLICE_CUT_GSO] = NLA_POLICY_MAX(NLA_U8, 1),
	[NETSLICE_A_SLICE_RXQ_SIZE] = NLA_POLICY_FULL_RANGE(NLA_U32, &netslice_a_slice_rxq_size_range),
	[NETSLICE_A_SLICE_STORE_SIZE] = NLA_POLICY_FULL_RANGE(NLA_U32, &netslice_a_slice_store_size_range),
	[NETSLICE_A_SLICE_STORE_TIMEOUT_MS] = NLA_POLICY_FULL_RANGE(NLA_U32, &netslice_a_slice_store_timeout_ms_range),
	[NETSLICE_A_SLICE_CHAIN_NEXT] = NLA_POLICY_MAX(NLA_U32, 255),
	[NETSLICE_A_SLICE_CHAIN_END] = { .type = NLA_FLAG, },
};

/* NETSLICE_CMD_STATS_GET - do */
static const struct nla_policy netslice_stats_get_do_nl_policy[NETSLICE_A_STATS_SLICE + 1] = {
	[NETSLICE_A_STATS_SLICE] = NLA_POLICY_MAX(NLA_U32, 255),
};

/* NETSLICE_CMD_STATS_RESET - do */
static const struct nla_policy netslice_stats_reset_nl_policy[NETSLICE_A_STATS_SLICE + 1] = {
	[NETSLICE_A_STATS_SLICE] = NLA_POLICY_MAX(NLA_U32, 255),
};

/* NETSLICE_CMD_RULE_ADD - do */
static const struct nla_policy netslice_rule_add_nl_policy[NETSLICE_A_RULES_RULE + 1] = {
	[NETSLICE_A_RULES_RULE] = NLA_POLICY_NESTED(netslice_rule_entry_nl_policy),
};

/* NETSLICE_CMD_RULE_DEL - do */
static const struct nla_policy netslice_rule_del_nl_policy[NETSLICE_A_RULES_RULE + 1] = {
	[NETSLICE_A_RULES_RULE] = NLA_POLICY_NESTED(netslice_rule_entry_nl_policy),
};

/* NETSLICE_CMD_RULE_REPLACE - do */
static const struct nla_policy netslice_rule_replace_nl_policy[NETSLICE_A_RULES_RULE + 1] = {
	[NETSLICE_A_RULES_RULE] = NLA_POLICY_NESTED(netslice_rule_entry_nl_policy),
};

/* NETSLICE_CMD_RULE_BATCH - do */
static const struct nla_policy netslice_rule_batch_nl_policy[NETSLICE_A_RULES_RULE + 1] = {
	[NETSLICE_A_RULES_RULE] = NLA_POLICY_NESTED(netslice_rule_entry_nl_policy),
};

#endif /* _NETSLICE_NL_POLICY_H */
