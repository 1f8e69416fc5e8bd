// SPDX-License-Identifier: GPL-2.0
/*
 * Flow-steering rules, the table RX reads: a packet matching a rule goes
 * to the rule's slice, ahead of the RX queue or flow-hash mapping.
 *
 * Tuple-space search: rules are grouped by mask (which fields, which
 * prefix lengths, single ports or not: struct nsl_rule_mask), one hash
 * table per mask, keyed by the masked fields. A packet costs one lookup
 * per distinct mask, however many rules share it. Exact rules (family,
 * protocol, both full addresses, one port each way) are the tuples of the
 * full masks; they are tried first and win. Among the other tuples the
 * match with the lowest pref, then the oldest, wins.
 *
 * A per-CPU flow cache in front remembers the outcome for recent flows,
 * valid for one generation: any published change empties it at once.
 *
 * Visibility: every rule carries the generation it was born in and the
 * one it died in; RX reads the published generation once per packet and
 * sees exactly the rules alive in it. Writers (rule_batch.c) build a
 * batch in the next generation, invisible, and publish it with one store:
 * a packet sees all of a batch or none of it. A deleted rule stays linked
 * until every reader that could still see it has finished (a grace
 * period), then is unlinked and freed after another. A rule's slice is
 * a history by generation (rule_hist.c), so a replaced rule answers each
 * reader for the generation it is in; the flow cache keeps that answer.
 *
 * RX never waits for a writer; writers serialise on the batch lock
 * (rule_batch.c) and call the table functions here under it.
 */
#include <linux/jhash.h>
#include <linux/percpu.h>
#include <linux/rhashtable.h>
#include <linux/slab.h>
#include <linux/workqueue.h>
#include <kunit/visibility.h>

#include <linux/netslice_netlink.h>

#include "rules.h"

/* One mask's rules. */
struct nsl_rule_tuple {
	struct list_head node;		/* on nsl_table.tuples (RCU) */
	struct rhltable table;
	struct nsl_rule_mask mask;
	bool exact;
	unsigned int linked;		/* rules in table, any generation */
	struct rcu_work free_work;
};

/*
 * Recent flows' outcomes on this CPU, for one generation: 2-way sets. A
 * set holding a third flow of a round robin misses every time, so there
 * are four times as many sets as the flows of a busy link's second.
 */
#define NSL_FLOW_CACHE_SETS	1024

struct nsl_flow_entry {
	struct nsl_rule_key key;
	u64 gen;			/* 0: empty (generations start at 1) */
	struct nsl_rule *rule;		/* NULL: no rule matched */
	u32 slice;			/* the rule's in gen, which no writer changes */
};

struct nsl_flow_cache {
	struct nsl_flow_entry entry[NSL_FLOW_CACHE_SETS][2];
	u8 older[NSL_FLOW_CACHE_SETS];	/* the way a miss replaces */
};

unsigned int nsl_rules_visible __read_mostly;

static struct {
	struct list_head tuples;	/* RCU; writers under the batch lock */
	unsigned int nr_tuples;
	u64 gen;			/* published: smp_store_release by writers */
	/* 129 KiB each: past alloc_percpu()'s size */
	struct nsl_flow_cache * __percpu *cache;
	struct workqueue_struct *free_wq;	/* empty tuples, after a grace period */
} nsl_table;

static const struct rhashtable_params nsl_rule_params = {
	.key_len = sizeof(struct nsl_rule_key),
	.key_offset = offsetof(struct nsl_rule, key),
	.head_offset = offsetof(struct nsl_rule, node),
	.automatic_shrinking = true,
};

void nsl_rule_prefix_mask(__be32 *addr, unsigned int len)
{
	unsigned int i, keep;

	for (i = 0; i < 4; i++, len -= keep) {
		keep = min(len, 32U);
		addr[i] &= keep ? htonl(~0U << (32 - keep)) : 0;
	}
}
EXPORT_SYMBOL_IF_KUNIT(nsl_rule_prefix_mask);

/* key as the tuple of mask sees it. */
static void nsl_rule_key_mask(struct nsl_rule_key *key, const struct nsl_rule_mask *mask)
{
	if (!mask->family)
		key->family = 0;
	if (!mask->proto)
		key->proto = 0;
	nsl_rule_prefix_mask(key->src, mask->src_len);
	nsl_rule_prefix_mask(key->dst, mask->dst_len);
	if (!mask->sport)
		key->sport = 0;
	if (!mask->dport)
		key->dport = 0;
}

void nsl_rule_mask_of(const struct nsl_rule_match *m, struct nsl_rule_mask *mask)
{
	memset(mask, 0, sizeof(*mask));
	mask->family = m->family;
	mask->proto = !!m->proto;
	mask->src_len = m->src_len;
	mask->dst_len = m->dst_len;
	mask->sport = m->sport_min == m->sport_max;
	mask->dport = m->dport_min == m->dport_max;
}

static unsigned int nsl_family_bits(u8 family)
{
	return family == NETSLICE_RULE_FAMILY_IPV6 ? 128 : 32;
}

bool nsl_rule_match_is_exact(const struct nsl_rule_match *m)
{
	unsigned int bits = nsl_family_bits(m->family);

	return m->family != NETSLICE_RULE_FAMILY_ANY && m->proto &&
	       m->src_len == bits && m->dst_len == bits &&
	       m->sport_min == m->sport_max && m->dport_min == m->dport_max;
}

void nsl_rule_key_of(const struct nsl_rule_match *m, struct nsl_rule_key *k)
{
	struct nsl_rule_mask mask;

	memset(k, 0, sizeof(*k));
	memcpy(k->src, m->src, sizeof(k->src));
	memcpy(k->dst, m->dst, sizeof(k->dst));
	k->sport = htons(m->sport_min);
	k->dport = htons(m->dport_min);
	k->family = m->family;
	k->proto = m->proto;
	nsl_rule_mask_of(m, &mask);
	nsl_rule_key_mask(k, &mask);
}

/* The published generation, for a reader under RCU. */
static u64 nsl_rules_gen_rcu(void)
{
	/* Acquire, pairing with nsl_rules_publish(): gen's rules are linked and set up. */
	return smp_load_acquire(&nsl_table.gen);
}

static bool nsl_rule_alive(const struct nsl_rule *rule, u64 gen)
{
	return rule->born <= gen && gen < READ_ONCE(rule->died);
}

/* The ranges the tuple's hash leaves to each rule. */
static bool nsl_rule_ports_match(const struct nsl_rule_match *m, const struct nsl_rule_key *k)
{
	u16 sport = ntohs(k->sport), dport = ntohs(k->dport);

	return sport >= m->sport_min && sport <= m->sport_max &&
	       dport >= m->dport_min && dport <= m->dport_max;
}

/* a goes before b: lower pref, then older. */
static bool nsl_rule_before(const struct nsl_rule *a, const struct nsl_rule *b)
{
	return a->match.pref != b->match.pref ? a->match.pref < b->match.pref : a->seq < b->seq;
}

/* The rule a packet's key matches in generation gen, or NULL. Under RCU. */
static struct nsl_rule *nsl_rules_lookup_gen(const struct nsl_rule_key *pkt, u64 gen)
{
	struct nsl_rule *best = NULL, *rule;
	struct nsl_rule_tuple *tuple;
	struct rhlist_head *list, *pos;
	struct nsl_rule_key key;

	list_for_each_entry_rcu(tuple, &nsl_table.tuples, node) {
		/* Exact tuples come first: past them, a found exact rule wins. */
		if (best && !tuple->exact && best->exact)
			break;
		if (tuple->mask.family && tuple->mask.family != pkt->family)
			continue;
		key = *pkt;
		nsl_rule_key_mask(&key, &tuple->mask);
		list = rhltable_lookup(&tuple->table, &key, nsl_rule_params);
		rhl_for_each_entry_rcu(rule, pos, list, node) {
			if (!nsl_rule_alive(rule, gen) || !nsl_rule_ports_match(&rule->match, pkt))
				continue;
			if (!best || nsl_rule_before(rule, best))
				best = rule;
		}
	}
	return best;
}

#if IS_ENABLED(CONFIG_KUNIT)
/* The matcher alone, without the flow cache (tests/rules_kunit.c). */
struct nsl_rule *nsl_rules_lookup(const struct nsl_rule_key *key)
{
	return nsl_rules_lookup_gen(key, nsl_rules_gen_rcu());
}
EXPORT_SYMBOL_IF_KUNIT(nsl_rules_lookup);
#endif

static bool nsl_rule_key_of_flow(const struct flow_keys *keys, struct nsl_rule_key *key)
{
	memset(key, 0, sizeof(*key));
	switch (keys->control.addr_type) {
	case FLOW_DISSECTOR_KEY_IPV4_ADDRS:
		key->family = NETSLICE_RULE_FAMILY_IPV4;
		key->src[0] = keys->addrs.v4addrs.src;
		key->dst[0] = keys->addrs.v4addrs.dst;
		break;
	case FLOW_DISSECTOR_KEY_IPV6_ADDRS:
		key->family = NETSLICE_RULE_FAMILY_IPV6;
		memcpy(key->src, &keys->addrs.v6addrs.src, sizeof(key->src));
		memcpy(key->dst, &keys->addrs.v6addrs.dst, sizeof(key->dst));
		break;
	default:
		return false;
	}
	key->proto = keys->basic.ip_proto;
	key->sport = keys->ports.src;
	key->dport = keys->ports.dst;
	return true;
}

/* The rule's slice in generation gen, under RCU. */
static u32 nsl_rule_slice_in(const struct nsl_rule *rule, u64 gen)
{
	return nsl_rule_hist_slice(rcu_dereference(rule->hist), gen);
}

/* The set of a flow cache that holds key. */
static unsigned int nsl_flow_set(const struct nsl_rule_key *key)
{
	return jhash2((const u32 *)key, sizeof(*key) / sizeof(u32), 0) % NSL_FLOW_CACHE_SETS;
}

/* The flow cache first: one key compare for a flow seen in this generation. */
static struct nsl_flow_entry *nsl_rules_lookup_cached(const struct nsl_rule_key *key, u64 gen)
{
	struct nsl_flow_cache *cache = *this_cpu_ptr(nsl_table.cache);
	unsigned int set = nsl_flow_set(key), way;
	struct nsl_flow_entry *e;

	for (way = 0; way < 2; way++) {
		e = &cache->entry[set][way];
		if (e->gen == gen && !memcmp(&e->key, key, sizeof(*key))) {
			cache->older[set] = !way;
			return e;
		}
	}
	way = cache->older[set];
	cache->older[set] = !way;
	e = &cache->entry[set][way];
	e->rule = nsl_rules_lookup_gen(key, gen);
	if (e->rule)
		e->slice = nsl_rule_slice_in(e->rule, gen);
	e->key = *key;
	e->gen = gen;
	return e;
}

/* The slice a packet of key goes to, or -1, counting the rule's hit. Under RCU. */
static int nsl_rules_steer_key(const struct nsl_rule_key *key)
{
	struct nsl_flow_entry *e = nsl_rules_lookup_cached(key, nsl_rules_gen_rcu());

	if (!e->rule)
		return -1;
	this_cpu_inc(*e->rule->hits.count);
	return e->slice;
}

#if IS_ENABLED(CONFIG_KUNIT)
/* RX's lookup of a packet's key, the flow cache first (tests/rules_kunit.c). */
int nsl_rules_steer_flow(const struct nsl_rule_key *key)
{
	return nsl_rules_steer_key(key);
}
EXPORT_SYMBOL_IF_KUNIT(nsl_rules_steer_flow);

/* key's outcome is in this CPU's flow cache for the published generation. */
bool nsl_rules_flow_cached(const struct nsl_rule_key *key)
{
	struct nsl_flow_cache *cache = *this_cpu_ptr(nsl_table.cache);
	struct nsl_flow_entry *e = cache->entry[nsl_flow_set(key)];
	u64 gen = nsl_rules_gen_rcu();

	return (e[0].gen == gen && !memcmp(&e[0].key, key, sizeof(*key))) ||
	       (e[1].gen == gen && !memcmp(&e[1].key, key, sizeof(*key)));
}
EXPORT_SYMBOL_IF_KUNIT(nsl_rules_flow_cached);

/* How many flows a CPU's flow cache holds. */
unsigned int nsl_rules_flow_cache_size(void)
{
	return sizeof_field(struct nsl_flow_cache, entry) / sizeof(struct nsl_flow_entry);
}
EXPORT_SYMBOL_IF_KUNIT(nsl_rules_flow_cache_size);
#endif

int nsl_rules_steer(const struct sk_buff *skb, struct flow_keys *keys, bool *dissected)
{
	struct nsl_rule_key key;

	*dissected = false;
	if (!READ_ONCE(nsl_rules_visible))
		return -1;
	/* Once: the caller hashes the flow from the same keys. */
	if (!skb_flow_dissect_flow_keys(skb, keys, 0))
		return -1;
	*dissected = true;
	if (!nsl_rule_key_of_flow(keys, &key))
		return -1;
	return nsl_rules_steer_key(&key);
}

u32 nsl_rule_slice_now(const struct nsl_rule *rule)
{
	return nsl_rule_slice_in(rule, nsl_rules_gen_rcu());
}
EXPORT_SYMBOL_IF_KUNIT(nsl_rule_slice_now);

u64 nsl_rule_hits(const struct nsl_rule *rule)
{
	return nsl_rule_hits_sum(&rule->hits);
}

bool nsl_rule_visible(const struct nsl_rule *rule)
{
	return nsl_rule_alive(rule, nsl_rules_gen_rcu());
}

/* --- Writers, under the batch lock (rule_batch.c). --- */

u64 nsl_rules_gen(void)
{
	return nsl_table.gen;
}

/* Make generation gen, with visible rules alive, the one RX sees. */
void nsl_rules_publish(u64 gen, unsigned int visible)
{
	/* Release: pairs with RX's acquire; everything gen needs is in place. */
	smp_store_release(&nsl_table.gen, gen);
	WRITE_ONCE(nsl_rules_visible, visible);
}

static void nsl_rule_tuple_free(struct work_struct *work)
{
	struct nsl_rule_tuple *tuple = container_of(to_rcu_work(work), struct nsl_rule_tuple,
						    free_work);

	rhltable_destroy(&tuple->table);
	kfree(tuple);
}

static struct nsl_rule_tuple *nsl_rule_tuple_find(const struct nsl_rule_mask *mask)
{
	struct nsl_rule_tuple *tuple;

	list_for_each_entry(tuple, &nsl_table.tuples, node)
		if (!memcmp(&tuple->mask, mask, sizeof(*mask)))
			return tuple;
	return NULL;
}

/* A rule of match m would need a new tuple, and there is no room for one. */
bool nsl_rule_tuples_full(const struct nsl_rule_match *m)
{
	struct nsl_rule_mask mask;

	nsl_rule_mask_of(m, &mask);
	return nsl_table.nr_tuples >= NETSLICE_MAX_RULE_MASKS && !nsl_rule_tuple_find(&mask);
}

static struct nsl_rule_tuple *nsl_rule_tuple_get(const struct nsl_rule_mask *mask, bool exact,
						 struct netlink_ext_ack *extack)
{
	struct nsl_rule_tuple *tuple = nsl_rule_tuple_find(mask);

	if (tuple)
		return tuple;
	if (nsl_table.nr_tuples >= NETSLICE_MAX_RULE_MASKS) {
		NL_SET_ERR_MSG(extack, "too many distinct rule masks (NETSLICE_MAX_RULE_MASKS)");
		return ERR_PTR(-ENOSPC);
	}
	tuple = kzalloc(sizeof(*tuple), GFP_KERNEL_ACCOUNT);
	if (!tuple || rhltable_init(&tuple->table, &nsl_rule_params)) {
		kfree(tuple);
		NL_SET_ERR_MSG(extack, "no memory for the rule");
		return ERR_PTR(-ENOMEM);
	}
	tuple->mask = *mask;
	tuple->exact = exact;
	INIT_RCU_WORK(&tuple->free_work, nsl_rule_tuple_free);
	/* Exact tuples first, the order lookups rely on. */
	if (exact)
		list_add_rcu(&tuple->node, &nsl_table.tuples);
	else
		list_add_tail_rcu(&tuple->node, &nsl_table.tuples);
	nsl_table.nr_tuples++;
	return tuple;
}

static void nsl_rule_tuple_put(struct nsl_rule_tuple *tuple)
{
	if (--tuple->linked)
		return;
	list_del_rcu(&tuple->node);
	nsl_table.nr_tuples--;
	queue_rcu_work(nsl_table.free_wq, &tuple->free_work);
}

/* Link rule, born and set up, into its mask's table. */
int nsl_rule_link(struct nsl_rule *rule, struct netlink_ext_ack *extack)
{
	struct nsl_rule_tuple *tuple;
	struct nsl_rule_mask mask;
	int err;

	nsl_rule_mask_of(&rule->match, &mask);
	tuple = nsl_rule_tuple_get(&mask, rule->exact, extack);
	if (IS_ERR(tuple))
		return PTR_ERR(tuple);
	tuple->linked++;
	err = rhltable_insert(&tuple->table, &rule->node, nsl_rule_params);
	if (err) {
		nsl_rule_tuple_put(tuple);
		NL_SET_ERR_MSG(extack, "no memory for the rule");
		return err;
	}
	rule->tuple = tuple;
	return 0;
}

/* Unlink a rule no reader can find any more in a generation it sees. */
void nsl_rule_unlink(struct nsl_rule *rule)
{
	rhltable_remove(&rule->tuple->table, &rule->node, nsl_rule_params);
	nsl_rule_tuple_put(rule->tuple);
}

/* The live rule (not deleted, in any generation up to the next) with match m. */
struct nsl_rule *nsl_rule_table_find(const struct nsl_rule_match *m)
{
	struct nsl_rule_tuple *tuple;
	struct rhlist_head *list, *pos;
	struct nsl_rule_mask mask;
	struct nsl_rule_key key;
	struct nsl_rule *rule;
	bool exact = nsl_rule_match_is_exact(m);

	nsl_rule_mask_of(m, &mask);
	tuple = nsl_rule_tuple_find(&mask);
	if (!tuple)
		return NULL;
	nsl_rule_key_of(m, &key);
	/* Under the batch lock, which keeps the entries linked: RCU for the walk's sake. */
	rcu_read_lock();
	list = rhltable_lookup(&tuple->table, &key, nsl_rule_params);
	rhl_for_each_entry_rcu(rule, pos, list, node) {
		/* An exact rule is named by its key; a wildcard rule by all of its match. */
		if (rule->died == NSL_GEN_NEVER &&
		    (exact || !memcmp(&rule->match, m, sizeof(*m))))
			break;
	}
	rcu_read_unlock();
	return pos ? rule : NULL;
}

static void nsl_flow_caches_free(void)
{
	int cpu;

	for_each_possible_cpu(cpu)
		kvfree(*per_cpu_ptr(nsl_table.cache, cpu));
	free_percpu(nsl_table.cache);
}

int nsl_rule_table_init(void)
{
	int cpu;

	INIT_LIST_HEAD(&nsl_table.tuples);
	nsl_table.gen = 1;
	nsl_table.cache = alloc_percpu(struct nsl_flow_cache *);
	if (!nsl_table.cache)
		return -ENOMEM;
	for_each_possible_cpu(cpu) {
		*per_cpu_ptr(nsl_table.cache, cpu) =
			kvzalloc_node(sizeof(struct nsl_flow_cache), GFP_KERNEL, cpu_to_node(cpu));
		if (!*per_cpu_ptr(nsl_table.cache, cpu))
			goto err_free_caches;
	}
	nsl_table.free_wq = alloc_workqueue("netslice_rules", WQ_UNBOUND, 0);
	if (!nsl_table.free_wq)
		goto err_free_caches;
	return 0;

err_free_caches:
	nsl_flow_caches_free();
	return -ENOMEM;
}

/* Every rule is unlinked, and no RX can run any more. */
void nsl_rule_table_exit(void)
{
	WARN_ON(!list_empty(&nsl_table.tuples));
	/* The tuples' frees wait behind grace periods (call_rcu), then run on free_wq. */
	rcu_barrier();
	destroy_workqueue(nsl_table.free_wq);
	nsl_flow_caches_free();
}
