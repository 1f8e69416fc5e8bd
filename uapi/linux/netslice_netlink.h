/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * netslice generic netlink family: the control plane of a running module.
 *
 * The specification is uapi/netslice.yaml (the kernel's netlink spec
 * format); this header follows it and tests/spec_check.py checks that
 * they agree, and the guest tests check the running module's policies
 * against it. Names follow the kernel's generator: NETSLICE_A_<SET>_<ATTR>,
 * NETSLICE_CMD_<OP>, NETSLICE_<ENUM>_<ENTRY>.
 *
 * Permissions (one model for netlink, the ioctls and write; see
 * linux/netslice.h)
 *   Slices, their counters and the rules belong to the module, which the
 *   initial namespace owns; an interface belongs to its network namespace.
 *   Every change (link-attach, link-detach, slice-set, stats-reset, the
 *   rule operations) needs CAP_NET_ADMIN in the initial user namespace:
 *   attaching feeds the module's slices, so an admin of another namespace
 *   alone may not. Reads carry configuration and counters, never a
 *   secret, a payload byte or a kernel address: link-get is open to every
 *   user and shows the caller's namespace's interfaces; slice-get,
 *   stats-get and rule-get are open to every user of the initial network
 *   namespace and to callers with CAP_NET_ADMIN in the initial user
 *   namespace, and fail EPERM elsewhere.
 *
 * Network namespaces
 *   Interfaces are named and numbered in the caller's namespace; an
 *   interface of another namespace can be neither seen (link-get,
 *   link notifications) nor attached or detached. Each attached
 *   interface also has a module-wide port id (link attribute port), the
 *   same in every namespace, which read reports and write takes.
 *
 * Errors
 *   Every rejected request returns an errno and an extended ack message
 *   saying what was wrong; where one attribute is at fault the ack points
 *   at it (NLMSGERR_ATTR_OFFS), where one is missing it names it
 *   (NLMSGERR_ATTR_MISS_TYPE). A rejected request changes nothing.
 *
 * Flow rules
 *   A rule matches IPv4 or IPv6 packets by protocol, source and
 *   destination prefix and source and destination port range, and sends
 *   every packet it matches, from any attached interface, to its slice,
 *   ahead of the RX queue or flow-hash mapping. A rule is "exact" when it
 *   names the family, the protocol, both full-length addresses and one
 *   port each way: exact rules live in a hash table and cost one lookup
 *   whatever their number (up to the max_rules module parameter, default
 *   1048576, which counts every rule). Other rules are "wildcard" rules,
 *   grouped by mask (the fields they name, their prefix lengths, single
 *   ports or ranges): a packet costs one hash lookup per distinct mask, at
 *   most NETSLICE_MAX_RULE_MASKS of them, however many rules share one.
 *   Exact rules win; among wildcard rules the lowest @pref, then the
 *   oldest, wins. A packet no rule matches is mapped as before.
 *
 *   A rule is named by its match (and, for wildcard rules, its @pref), or
 *   by the @id the module gave it. rule-add fails with -EEXIST for a rule
 *   that exists; rule-replace changes the slice of an existing rule (a
 *   packet sees the old or the new slice, never neither) and adds the rule
 *   if there is none. rule-batch takes rules that each name their @op
 *   (add, del, replace), applied in order.
 *
 *   Batches: the rules of one request are one batch, applied all or none
 *   and seen by the packet path at once: a packet is steered by the rules
 *   as they were before the request or as they are after it, never by a
 *   mix. The first bad rule fails the request, the ack points at its nest
 *   (NLMSGERR_ATTR_OFFS) and says why, and nothing of the request stays.
 *   A request is bounded by the socket's send buffer (some 2,000 rules
 *   in the default 208 KiB; raise SO_SNDBUF for more). A rule replaced
 *   again within an RCU grace period of its last change waits for that
 *   grace period (a few milliseconds): rules a packet may still be
 *   looking at keep their previous slice until then.
 */
#ifndef _UAPI_LINUX_NETSLICE_NETLINK_H
#define _UAPI_LINUX_NETSLICE_NETLINK_H

#define NETSLICE_FAMILY_NAME		"netslice"
#define NETSLICE_FAMILY_VERSION		1
#define NETSLICE_MCGRP_MONITOR		"monitor"

/* No longer a limit: wildcard rules count against max_rules like any. */
#define NETSLICE_MAX_WILDCARD_RULES	4096
/* Most distinct rule masks: a packet costs one hash lookup per mask. */
#define NETSLICE_MAX_RULE_MASKS		1024

enum netslice_slicing_mode {
	NETSLICE_SLICING_MODE_OFF,
	NETSLICE_SLICING_MODE_FIXED,
	NETSLICE_SLICING_MODE_AUTO,
};

enum netslice_batch_flags {
	NETSLICE_BATCH_FLAGS_MULTI_READ = 1,
	NETSLICE_BATCH_FLAGS_MULTI_WRITE = 2,
};

enum netslice_detach_reason {
	NETSLICE_DETACH_REASON_REQUEST,		/* link-detach */
	NETSLICE_DETACH_REASON_UNREGISTER,	/* deleted or moved to another netns */
	NETSLICE_DETACH_REASON_UNLOAD,		/* module unloaded */
};

enum netslice_rule_family {
	NETSLICE_RULE_FAMILY_ANY,
	NETSLICE_RULE_FAMILY_IPV4,
	NETSLICE_RULE_FAMILY_IPV6,
};

/* What rule-batch does with one rule (NETSLICE_A_RULE_OP). */
enum netslice_rule_op {
	NETSLICE_RULE_OP_ADD,
	NETSLICE_RULE_OP_DEL,
	NETSLICE_RULE_OP_REPLACE,
};

/* An attached interface. */
enum {
	NETSLICE_A_LINK_IFINDEX = 1,
	NETSLICE_A_LINK_IFNAME,
	NETSLICE_A_LINK_PEER_IFINDEX,	/* default egress: the peer, or itself */
	NETSLICE_A_LINK_PEER_IFNAME,
	NETSLICE_A_LINK_SLICE_FIRST,	/* it feeds slices first .. first+count-1 */
	NETSLICE_A_LINK_SLICE_COUNT,
	NETSLICE_A_LINK_HASHED,		/* flag: steered by flow hash, not RX queue */
	NETSLICE_A_LINK_RX_QUEUES,
	NETSLICE_A_LINK_REASON,		/* enum netslice_detach_reason */
	NETSLICE_A_LINK_PORT,		/* module-wide port id: what read reports */
	NETSLICE_A_LINK_PEER_PORT,	/* port of the default egress */

	__NETSLICE_A_LINK_MAX,
	NETSLICE_A_LINK_MAX = (__NETSLICE_A_LINK_MAX - 1)
};

/* A slice's configuration. */
enum {
	NETSLICE_A_SLICE_ID = 1,
	NETSLICE_A_SLICE_RING_SIZE,
	NETSLICE_A_SLICE_READERS,
	NETSLICE_A_SLICE_KERNEL_CPUS,	/* CPU list string, "0-3,8" */
	NETSLICE_A_SLICE_USER_CPUS,
	NETSLICE_A_SLICE_SLICING_MODE,	/* enum netslice_slicing_mode */
	NETSLICE_A_SLICE_SLICING_LENGTH,
	NETSLICE_A_SLICE_SLICING_EXTRA,
	NETSLICE_A_SLICE_SLICING_TRIM,
	NETSLICE_A_SLICE_STORE_SIZE,
	NETSLICE_A_SLICE_STORE_TIMEOUT_MS,
	NETSLICE_A_SLICE_BATCH_FLAGS,	/* enum netslice_batch_flags */
	NETSLICE_A_SLICE_BATCH_MAX,
	NETSLICE_A_SLICE_SLICING_GSO,

	__NETSLICE_A_SLICE_MAX,
	NETSLICE_A_SLICE_MAX = (__NETSLICE_A_SLICE_MAX - 1)
};

/* A slice's counters. */
enum {
	NETSLICE_A_STATS_SLICE = 1,
	NETSLICE_A_STATS_COUNTERS,	/* nest of NETSLICE_A_COUNTERS_* */

	__NETSLICE_A_STATS_MAX,
	NETSLICE_A_STATS_MAX = (__NETSLICE_A_STATS_MAX - 1)
};

/*
 * One u64 per field of struct netslice_stats, in its order: attribute
 * N + 1 is field N. Since the module loaded or the slice's last
 * stats-reset.
 */
enum {
	NETSLICE_A_COUNTERS_RX_PACKETS = 1,
	NETSLICE_A_COUNTERS_RX_BYTES,
	NETSLICE_A_COUNTERS_RX_DROP_RING_FULL,
	NETSLICE_A_COUNTERS_RX_DROP_NO_READER,
	NETSLICE_A_COUNTERS_RX_DROP_ERROR,
	NETSLICE_A_COUNTERS_RX_SEGMENTS,
	NETSLICE_A_COUNTERS_RX_OFF_CPU,
	NETSLICE_A_COUNTERS_RX_TRIMMED,
	NETSLICE_A_COUNTERS_READ_PACKETS,
	NETSLICE_A_COUNTERS_READ_BYTES,
	NETSLICE_A_COUNTERS_READ_TRUNCATED,
	NETSLICE_A_COUNTERS_READ_SLICED,
	NETSLICE_A_COUNTERS_READ_WHOLE,
	NETSLICE_A_COUNTERS_READ_STORE_FULL,
	NETSLICE_A_COUNTERS_WRITE_BYTES,
	NETSLICE_A_COUNTERS_TX_PACKETS,
	NETSLICE_A_COUNTERS_TX_BYTES,
	NETSLICE_A_COUNTERS_TX_HOST,
	NETSLICE_A_COUNTERS_TX_NF_DROP,
	NETSLICE_A_COUNTERS_TX_BUSY,
	NETSLICE_A_COUNTERS_TX_SPLICED,
	NETSLICE_A_COUNTERS_TX_ERR_INVALID,
	NETSLICE_A_COUNTERS_TX_ERR_LENGTH,
	NETSLICE_A_COUNTERS_TX_ERR_IFINDEX,
	NETSLICE_A_COUNTERS_TX_ERR_FAULT,
	NETSLICE_A_COUNTERS_TX_ERR_NOMEM,
	NETSLICE_A_COUNTERS_TX_ERR_DOWN,
	NETSLICE_A_COUNTERS_TX_ERR_STALE,
	NETSLICE_A_COUNTERS_TX_ERR_FOREIGN,
	NETSLICE_A_COUNTERS_TX_ERR_FORGED,
	NETSLICE_A_COUNTERS_STORE_AGED,
	NETSLICE_A_COUNTERS_STORE_CLOSED,
	NETSLICE_A_COUNTERS_STORE_USED,
	NETSLICE_A_COUNTERS_STORE_HIGH_WATER,
	NETSLICE_A_COUNTERS_RX_PURGED,
	NETSLICE_A_COUNTERS_TX_ERR_DROPPED,
	NETSLICE_A_COUNTERS_RX_GSO_PACKETS,
	NETSLICE_A_COUNTERS_RX_GSO_SEGMENTS,
	NETSLICE_A_COUNTERS_TX_GSO,
	NETSLICE_A_COUNTERS_TX_ERR_GSO,
	NETSLICE_A_COUNTERS_PAD,

	__NETSLICE_A_COUNTERS_MAX,
	NETSLICE_A_COUNTERS_MAX = (__NETSLICE_A_COUNTERS_MAX - 1)
};

/* A flow-steering rule. */
enum {
	NETSLICE_A_RULE_ID = 1,
	NETSLICE_A_RULE_FAMILY,		/* enum netslice_rule_family */
	NETSLICE_A_RULE_PROTO,		/* IP protocol; 0 or absent: any */
	NETSLICE_A_RULE_SRC,		/* 4 or 16 bytes, network order */
	NETSLICE_A_RULE_SRC_LEN,	/* prefix length; absent: full */
	NETSLICE_A_RULE_DST,
	NETSLICE_A_RULE_DST_LEN,
	NETSLICE_A_RULE_SPORT_MIN,	/* port ranges, host order; absent: any */
	NETSLICE_A_RULE_SPORT_MAX,
	NETSLICE_A_RULE_DPORT_MIN,
	NETSLICE_A_RULE_DPORT_MAX,
	NETSLICE_A_RULE_PREF,		/* order of wildcard rules, lowest first */
	NETSLICE_A_RULE_SLICE,		/* where matching packets go */
	NETSLICE_A_RULE_EXACT,		/* flag, reported: in the exact table */
	NETSLICE_A_RULE_HITS,		/* packets it steered */
	NETSLICE_A_RULE_PAD,
	NETSLICE_A_RULE_OP,		/* enum netslice_rule_op: rule-batch */

	__NETSLICE_A_RULE_MAX,
	NETSLICE_A_RULE_MAX = (__NETSLICE_A_RULE_MAX - 1)
};

/* The rules of one rule-add, rule-del, rule-replace or rule-batch request. */
enum {
	NETSLICE_A_RULES_RULE = 1,	/* nest of NETSLICE_A_RULE_*, repeated */

	__NETSLICE_A_RULES_MAX,
	NETSLICE_A_RULES_MAX = (__NETSLICE_A_RULES_MAX - 1)
};

enum {
	NETSLICE_CMD_LINK_ATTACH = 1,
	NETSLICE_CMD_LINK_DETACH,
	NETSLICE_CMD_LINK_GET,
	NETSLICE_CMD_SLICE_GET,
	NETSLICE_CMD_SLICE_SET,
	NETSLICE_CMD_STATS_GET,
	NETSLICE_CMD_STATS_RESET,
	NETSLICE_CMD_RULE_ADD,
	NETSLICE_CMD_RULE_DEL,
	NETSLICE_CMD_RULE_REPLACE,
	NETSLICE_CMD_RULE_GET,
	NETSLICE_CMD_RULE_FLUSH,
	NETSLICE_CMD_LINK_ATTACH_NTF,
	NETSLICE_CMD_LINK_DETACH_NTF,
	NETSLICE_CMD_RULE_BATCH,

	__NETSLICE_CMD_MAX,
	NETSLICE_CMD_MAX = (__NETSLICE_CMD_MAX - 1)
};

#endif /* _UAPI_LINUX_NETSLICE_NETLINK_H */
