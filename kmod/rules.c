// SPDX-License-Identifier: GPL-2.0
/*
 * Flow-steering rules: a packet matching a rule goes to the rule's slice,
 * ahead of the RX queue or flow-hash mapping.
 *
 * Exact rules (family, protocol, both full addresses, one port each way)
 * sit in an rhashtable keyed by the packet's fields: one lookup whatever
 * their number. Wildcard rules (prefixes, port ranges, "any") are few
 * (NETSLICE_MAX_WILDCARD_RULES) and tried in order on an RCU list.
 *
 * RX looks rules up under RCU and never waits for a writer. Writers
 * (netlink requests, module exit) serialise on ns_rules.lock; a rule is
 * freed after a grace period. Replacing a rule's slice is one WRITE_ONCE
 * on a rule that stays in place, so no packet sees neither slice.
 */
#include <linux/err.h>
#include <linux/in.h>
#include <linux/delay.h>
#include <linux/mutex.h>
#include <linux/rhashtable.h>
#include <linux/slab.h>
#include <linux/xarray.h>
#include <net/flow_dissector.h>
#include <kunit/visibility.h>

#include <linux/netslice_netlink.h>

#include "rules.h"

static struct {
	struct mutex lock;	/* protects writers: all fields below */
	struct rhashtable exact;
	struct list_head wild;	/* RCU readers: RX */
	struct xarray ids;	/* id -> rule, for deletes by id and dumps */
	u32 next_id;
	unsigned int count;	/* READ_ONCE by RX: skip the lookup when 0 */
	unsigned int nr_wild;
} ns_rules;

static const struct rhashtable_params ns_rule_params = {
	.key_len = sizeof(struct ns_rule_key),
	.key_offset = offsetof(struct ns_rule, key),
	.head_offset = offsetof(struct ns_rule, node),
	.automatic_shrinking = true,
};

void ns_rules_lock(void)
{
	mutex_lock(&ns_rules.lock);
}

void ns_rules_unlock(void)
{
	mutex_unlock(&ns_rules.lock);
}

static bool ns_prefix_match(const __be32 *want, const __be32 *have, unsigned int len)
{
	unsigned int i;

	for (i = 0; len >= 32; i++, len -= 32)
		if (want[i] != have[i])
			return false;
	return !len || !((want[i] ^ have[i]) & htonl(~0U << (32 - len)));
}

static unsigned int ns_family_bits(u8 family)
{
	return family == NETSLICE_RULE_FAMILY_IPV6 ? 128 : 32;
}

static bool ns_rule_is_exact(const struct ns_rule_match *m)
{
	unsigned int bits = ns_family_bits(m->family);

	return m->family != NETSLICE_RULE_FAMILY_ANY && m->proto &&
	       m->src_len == bits && m->dst_len == bits &&
	       m->sport_min == m->sport_max && m->dport_min == m->dport_max;
}

static bool ns_rule_matches(const struct ns_rule_match *m, const struct ns_rule_key *k)
{
	u16 sport = ntohs(k->sport), dport = ntohs(k->dport);

	return (m->family == NETSLICE_RULE_FAMILY_ANY || m->family == k->family) &&
	       (!m->proto || m->proto == k->proto) &&
	       ns_prefix_match(m->src, k->src, m->src_len) &&
	       ns_prefix_match(m->dst, k->dst, m->dst_len) &&
	       sport >= m->sport_min && sport <= m->sport_max &&
	       dport >= m->dport_min && dport <= m->dport_max;
}

static void ns_rule_key_of(const struct ns_rule_match *m, struct ns_rule_key *k)
{
	memset(k, 0, sizeof(*k));
	memcpy(k->src, m->src, sizeof(k->src));
	memcpy(k->dst, m->dst, sizeof(k->dst));
	k->sport = htons(m->sport_min);
	k->dport = htons(m->dport_min);
	k->family = m->family;
	k->proto = m->proto;
}

VISIBLE_IF_KUNIT struct ns_rule *ns_rules_lookup(const struct ns_rule_key *key)
{
	struct ns_rule *rule;

	rule = rhashtable_lookup(&ns_rules.exact, key, ns_rule_params);
	if (rule)
		return rule;
	list_for_each_entry_rcu(rule, &ns_rules.wild, wild)
		if (ns_rule_matches(&rule->match, key))
			return rule;
	return NULL;
}
EXPORT_SYMBOL_IF_KUNIT(ns_rules_lookup);

int ns_rules_steer(const struct sk_buff *skb)
{
	struct flow_keys keys;
	struct ns_rule_key key;
	struct ns_rule *rule;

	if (!READ_ONCE(ns_rules.count))
		return -1;
	if (!skb_flow_dissect_flow_keys(skb, &keys, 0))
		return -1;

	memset(&key, 0, sizeof(key));
	switch (keys.control.addr_type) {
	case FLOW_DISSECTOR_KEY_IPV4_ADDRS:
		key.family = NETSLICE_RULE_FAMILY_IPV4;
		key.src[0] = keys.addrs.v4addrs.src;
		key.dst[0] = keys.addrs.v4addrs.dst;
		break;
	case FLOW_DISSECTOR_KEY_IPV6_ADDRS:
		key.family = NETSLICE_RULE_FAMILY_IPV6;
		memcpy(key.src, &keys.addrs.v6addrs.src, sizeof(key.src));
		memcpy(key.dst, &keys.addrs.v6addrs.dst, sizeof(key.dst));
		break;
	default:
		return -1;
	}
	key.proto = keys.basic.ip_proto;
	key.sport = keys.ports.src;
	key.dport = keys.ports.dst;

	rule = ns_rules_lookup(&key);
	if (!rule)
		return -1;
	atomic64_inc(&rule->hits);
	return READ_ONCE(rule->slice);
}

struct ns_rule *ns_rule_find(const struct ns_rule_match *m)
{
	struct ns_rule_key key;
	struct ns_rule *rule;

	lockdep_assert_held(&ns_rules.lock);
	if (ns_rule_is_exact(m)) {
		ns_rule_key_of(m, &key);
		return rhashtable_lookup_fast(&ns_rules.exact, &key, ns_rule_params);
	}
	list_for_each_entry(rule, &ns_rules.wild, wild)
		if (!memcmp(&rule->match, m, sizeof(*m)))
			return rule;
	return NULL;
}

struct ns_rule *ns_rule_find_id(u32 id)
{
	lockdep_assert_held(&ns_rules.lock);
	return xa_load(&ns_rules.ids, id);
}

/* Wildcard rules in order of pref, then of age. */
static void ns_rule_insert_wild(struct ns_rule *rule)
{
	struct ns_rule *pos;

	list_for_each_entry(pos, &ns_rules.wild, wild) {
		if (pos->match.pref > rule->match.pref) {
			list_add_tail_rcu(&rule->wild, &pos->wild);
			return;
		}
	}
	list_add_tail_rcu(&rule->wild, &ns_rules.wild);
}

/* A growing table may ask us to retry while it rehashes. */
static int ns_rule_insert_exact(struct ns_rule *rule)
{
	int err, tries = 0;

	do {
		err = rhashtable_insert_fast(&ns_rules.exact, &rule->node, ns_rule_params);
		if (err != -EBUSY)
			return err;
		usleep_range(100, 200);
	} while (++tries < 100);
	return err;
}

static struct ns_rule *ns_rule_create(const struct ns_rule_match *m, u32 slice,
				      struct netlink_ext_ack *extack)
{
	static const struct xa_limit ids = XA_LIMIT(1, U32_MAX);
	struct ns_rule *rule;
	int err;

	rule = kzalloc(sizeof(*rule), GFP_KERNEL_ACCOUNT);
	if (!rule)
		return ERR_PTR(-ENOMEM);
	rule->match = *m;
	rule->slice = slice;
	rule->exact = ns_rule_is_exact(m);
	ns_rule_key_of(m, &rule->key);

	err = xa_alloc_cyclic(&ns_rules.ids, &rule->id, rule, ids, &ns_rules.next_id,
			      GFP_KERNEL_ACCOUNT);
	if (err < 0)
		goto err_free_rule;
	if (rule->exact) {
		err = ns_rule_insert_exact(rule);
		if (err)
			goto err_erase_id;
	} else {
		ns_rule_insert_wild(rule);
		ns_rules.nr_wild++;
	}
	WRITE_ONCE(ns_rules.count, ns_rules.count + 1);
	return rule;

err_erase_id:
	xa_erase(&ns_rules.ids, rule->id);
err_free_rule:
	kfree(rule);
	if (err == -EBUSY)
		NL_SET_ERR_MSG(extack, "rule table busy growing; try again");
	else
		NL_SET_ERR_MSG(extack, "no memory for the rule");
	return ERR_PTR(err == -EBUSY ? -EAGAIN : -ENOMEM);
}

int ns_rule_add(const struct ns_rule_match *m, u32 slice, bool replace,
		struct ns_rule_undo *undo, struct netlink_ext_ack *extack)
{
	struct ns_rule *rule;

	lockdep_assert_held(&ns_rules.lock);
	rule = ns_rule_find(m);
	if (rule) {
		if (!replace) {
			NL_SET_ERR_MSG(extack, "rule exists (replace changes its slice)");
			return -EEXIST;
		}
		*undo = (struct ns_rule_undo){ .rule = rule, .old_slice = rule->slice };
		WRITE_ONCE(rule->slice, slice);
		return 0;
	}
	if (ns_rules.count >= ns_max_rules) {
		NL_SET_ERR_MSG(extack, "rule table full (module parameter max_rules)");
		return -ENOSPC;
	}
	if (!ns_rule_is_exact(m) && ns_rules.nr_wild >= NETSLICE_MAX_WILDCARD_RULES) {
		NL_SET_ERR_MSG(extack, "wildcard rule table full: use exact rules for large sets");
		return -ENOSPC;
	}
	rule = ns_rule_create(m, slice, extack);
	if (IS_ERR(rule))
		return PTR_ERR(rule);
	*undo = (struct ns_rule_undo){ .rule = rule, .added = true };
	return 0;
}

void ns_rule_del(struct ns_rule *rule)
{
	lockdep_assert_held(&ns_rules.lock);
	if (rule->exact) {
		rhashtable_remove_fast(&ns_rules.exact, &rule->node, ns_rule_params);
	} else {
		list_del_rcu(&rule->wild);
		ns_rules.nr_wild--;
	}
	xa_erase(&ns_rules.ids, rule->id);
	WRITE_ONCE(ns_rules.count, ns_rules.count - 1);
	kfree_rcu(rule, rcu);
}

/* Undo the first count steps of a request, last first. */
void ns_rule_undo(struct ns_rule_undo *undo, unsigned int count)
{
	lockdep_assert_held(&ns_rules.lock);
	while (count--) {
		if (undo[count].added)
			ns_rule_del(undo[count].rule);
		else
			WRITE_ONCE(undo[count].rule->slice, undo[count].old_slice);
	}
}

unsigned int ns_rules_flush(void)
{
	struct ns_rule *rule;
	unsigned int n = 0;
	unsigned long id;

	lockdep_assert_held(&ns_rules.lock);
	xa_for_each(&ns_rules.ids, id, rule) {
		ns_rule_del(rule);
		if (!(++n % 1024))
			cond_resched();
	}
	return n;
}

struct ns_rule *ns_rule_next_rcu(unsigned long *id)
{
	return xa_find(&ns_rules.ids, id, ULONG_MAX, XA_PRESENT);
}

int ns_rules_init(void)
{
	mutex_init(&ns_rules.lock);
	INIT_LIST_HEAD(&ns_rules.wild);
	xa_init_flags(&ns_rules.ids, XA_FLAGS_ALLOC1);
	return rhashtable_init(&ns_rules.exact, &ns_rule_params);
}

/* No RX can run any more: every interface is detached. */
void ns_rules_exit(void)
{
	ns_rules_lock();
	ns_rules_flush();
	ns_rules_unlock();
	rhashtable_destroy(&ns_rules.exact);
	xa_destroy(&ns_rules.ids);
	mutex_destroy(&ns_rules.lock);
}
