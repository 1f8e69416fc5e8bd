/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _NETSLICE_RULES_H
#define _NETSLICE_RULES_H

#include <linux/list.h>
#include <linux/netlink.h>
#include <linux/rhashtable-types.h>
#include <linux/skbuff.h>
#include <linux/types.h>

/*
 * What a rule matches, canonical: addresses zeroed past their prefix, an
 * absent port range 0-65535. family is a NETSLICE_RULE_FAMILY_*.
 */
struct ns_rule_match {
	__be32 src[4];
	__be32 dst[4];
	u16 sport_min, sport_max;
	u16 dport_min, dport_max;
	u8 family;
	u8 proto;
	u8 src_len;
	u8 dst_len;
	u32 pref;
};

/* A packet's fields as rules see them; also the exact table's key. */
struct ns_rule_key {
	__be32 src[4];
	__be32 dst[4];
	__be16 sport;
	__be16 dport;
	u8 family;
	u8 proto;
	u8 zero[2];		/* keeps the key free of padding */
};

struct ns_rule {
	struct rhash_head node;		/* in the exact table */
	struct list_head wild;		/* on the wildcard list, in match order */
	struct ns_rule_key key;		/* exact rules */
	struct ns_rule_match match;
	u32 id;
	u32 slice;			/* WRITE_ONCE by replace; RX reads it once */
	bool exact;
	bool doomed;			/* named by the delete request in progress */
	atomic64_t hits;
	struct rcu_head rcu;
};

/* One step of a request, kept so that a failed request can be undone. */
struct ns_rule_undo {
	struct ns_rule *rule;
	u32 old_slice;
	bool added;
};

extern unsigned int ns_max_rules;

int ns_rules_init(void);
void ns_rules_exit(void);

void ns_rules_lock(void);
void ns_rules_unlock(void);

/* Under ns_rules_lock(). */
int ns_rule_add(const struct ns_rule_match *m, u32 slice, bool replace,
		struct ns_rule_undo *undo, struct netlink_ext_ack *extack);
struct ns_rule *ns_rule_find(const struct ns_rule_match *m);
struct ns_rule *ns_rule_find_id(u32 id);
void ns_rule_del(struct ns_rule *rule);
void ns_rule_undo(struct ns_rule_undo *undo, unsigned int count);
unsigned int ns_rules_flush(void);

/* Under rcu_read_lock(): the rule with the lowest id >= *id, and its id. */
struct ns_rule *ns_rule_next_rcu(unsigned long *id);

/* RX, under RCU: the slice a rule sends skb to, or -1. */
int ns_rules_steer(const struct sk_buff *skb);

#if IS_ENABLED(CONFIG_KUNIT)
struct ns_rule *ns_rules_lookup(const struct ns_rule_key *key);
#endif

#endif /* _NETSLICE_RULES_H */
