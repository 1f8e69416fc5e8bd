/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _NETSLICE_RULES_H
#define _NETSLICE_RULES_H

#include <linux/list.h>
#include <linux/netlink.h>
#include <linux/rhashtable-types.h>
#include <linux/skbuff.h>
#include <linux/types.h>
#include <net/flow_dissector.h>

#include "rule_hist.h"
#include "rule_hits.h"

/*
 * What a rule matches, canonical: addresses zeroed past their prefix, an
 * absent port range 0-65535. family is a NETSLICE_RULE_FAMILY_*.
 */
struct nsl_rule_match {
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

/* A packet's fields as rules see them; masked, a tuple's hash key. */
struct nsl_rule_key {
	__be32 src[4];
	__be32 dst[4];
	__be16 sport;
	__be16 dport;
	u8 family;
	u8 proto;
	u8 zero[2];		/* keeps the key free of padding */
};

/*
 * Which fields of a packet's key a tuple's rules hash on: the family and
 * protocol or not, address prefixes, each port or not (a rule with a port
 * range hashes without it and checks the range itself).
 */
struct nsl_rule_mask {
	u8 family;		/* 0: any family (then no addresses) */
	u8 proto;		/* 1: the protocol is in the key */
	u8 src_len;
	u8 dst_len;
	u8 sport;		/* 1: one source port, in the key */
	u8 dport;
	u8 zero[2];
};

struct nsl_rule_tuple;

/* Generation numbers: NSL_GEN_NEVER is after every generation. */
#define NSL_GEN_NEVER	U64_MAX

struct nsl_rule {
	struct rhlist_head node;	/* in its tuple's table, by masked key */
	struct list_head grave;		/* on the graveyard once deleted */
	struct nsl_rule_key key;		/* the match's key, as the tuple masks it */
	struct nsl_rule_match match;
	struct nsl_rule_tuple *tuple;
	u64 seq;			/* creation order: equal prefs, oldest first */
	u64 born;			/* the first generation that sees it */
	u64 died;			/* the first that does not (NSL_GEN_NEVER) */
	struct nsl_rule_hist __rcu *hist;	/* its slice by generation, newest first */
	struct nsl_rule_hist first;	/* the slice it was born with */
	unsigned long died_rcu;		/* RCU state when its death was published */
	struct nsl_rule_hits hits;
	u32 id;
	bool exact;
	struct rcu_head rcu;
};

/* The table (rules.c). */
int nsl_rule_table_init(void);
void nsl_rule_table_exit(void);
void nsl_rule_prefix_mask(__be32 *addr, unsigned int len);
void nsl_rule_mask_of(const struct nsl_rule_match *m, struct nsl_rule_mask *mask);
void nsl_rule_key_of(const struct nsl_rule_match *m, struct nsl_rule_key *k);
bool nsl_rule_match_is_exact(const struct nsl_rule_match *m);
bool nsl_rule_visible(const struct nsl_rule *rule);

/* Under the batch lock (rule_batch.c). */
u64 nsl_rules_gen(void);
void nsl_rules_publish(u64 gen, unsigned int visible);
bool nsl_rule_tuples_full(const struct nsl_rule_match *m);
int nsl_rule_link(struct nsl_rule *rule, struct netlink_ext_ack *extack);
void nsl_rule_unlink(struct nsl_rule *rule);
struct nsl_rule *nsl_rule_table_find(const struct nsl_rule_match *m);

/* Under rcu_read_lock(): a rule's slice and hits as RX sees them now. */
u32 nsl_rule_slice_now(const struct nsl_rule *rule);
u64 nsl_rule_hits(const struct nsl_rule *rule);

/* Rules alive in the published generation: RX looks none up while 0. */
extern unsigned int nsl_rules_visible;

/*
 * RX, under RCU: the slice a rule sends skb to, or -1. *keys holds the
 * packet's dissection if *dissected (it was needed to look the rules up),
 * for the caller's flow hash.
 */
int nsl_rules_steer(const struct sk_buff *skb, struct flow_keys *keys, bool *dissected);

#if IS_ENABLED(CONFIG_KUNIT)
struct nsl_rule *nsl_rules_lookup(const struct nsl_rule_key *key);
int nsl_rules_steer_flow(const struct nsl_rule_key *key);
bool nsl_rules_flow_cached(const struct nsl_rule_key *key);
unsigned int nsl_rules_flow_cache_size(void);
#endif

#endif /* _NETSLICE_RULES_H */
