// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: the rule matcher and its batches, on the module's own table.
 * Table-driven cases (prefix edges, port ranges, preference order, exact
 * against wildcard, families), then replace, the generation a batch
 * builds (invisible until commit), the undo of a failed batch, the
 * history that lets a rule be replaced again at once, the hit counters'
 * chunks, and RX's flow cache against a plain evaluation of the rules
 * over many times the flows it holds.
 */
#include <kunit/test.h>
#include <linux/in.h>
#include <linux/inet.h>

#include <linux/netslice_netlink.h>

#include "../compat.h"
#include "../rule_batch.h"
#include "../rule_hits.h"

nsl_kunit_import_ns();

#define V4	NETSLICE_RULE_FAMILY_IPV4
#define V6	NETSLICE_RULE_FAMILY_IPV6
#define NONE	(-1)

struct nsl_rt_rule {
	u8 family, proto;
	const char *src;		/* NULL: any */
	u8 src_len;
	const char *dst;
	u8 dst_len;
	u16 sport_min, sport_max, dport_min, dport_max;
	u32 pref, slice;
};

struct nsl_rt_pkt {
	u8 family, proto;
	const char *src, *dst;
	u16 sport, dport;
	int want;			/* slice, or NONE */
};

struct nsl_rt_case {
	const char *name;
	struct nsl_rt_rule rules[4];
	struct nsl_rt_pkt pkts[6];
};

static const struct nsl_rt_case nsl_rt_cases[] = {
	{ "ipv4 /8 prefix edges",
	  { { V4, 0, "10.0.0.0", 8, NULL, 0, 0, 65535, 0, 65535, 0, 1 } },
	  { { V4, 17, "10.0.0.0", "1.1.1.1", 1, 2, 1 },
	    { V4, 17, "10.255.255.255", "1.1.1.1", 1, 2, 1 },
	    { V4, 17, "9.255.255.255", "1.1.1.1", 1, 2, NONE },
	    { V4, 17, "11.0.0.0", "1.1.1.1", 1, 2, NONE },
	    { V6, 17, "a00::", "::1", 1, 2, NONE } } },
	{ "ipv4 /31 and /0",
	  { { V4, 6, NULL, 0, "192.168.1.2", 31, 0, 65535, 0, 65535, 0, 2 },
	    { V4, 6, NULL, 0, NULL, 0, 0, 65535, 0, 65535, 9, 3 } },
	  { { V4, 6, "1.2.3.4", "192.168.1.2", 5, 6, 2 },
	    { V4, 6, "1.2.3.4", "192.168.1.3", 5, 6, 2 },
	    { V4, 6, "1.2.3.4", "192.168.1.4", 5, 6, 3 },
	    { V4, 17, "1.2.3.4", "192.168.1.2", 5, 6, NONE } } },
	{ "ipv6 /64 and /127 edges",
	  { { V6, 0, "2001:db8:1:2::", 64, NULL, 0, 0, 65535, 0, 65535, 0, 4 },
	    { V6, 0, NULL, 0, "2001:db8::2", 127, 0, 65535, 0, 65535, 0, 5 } },
	  { { V6, 17, "2001:db8:1:2:ffff:ffff:ffff:ffff", "::9", 1, 2, 4 },
	    { V6, 17, "2001:db8:1:3::", "::9", 1, 2, NONE },
	    { V6, 17, "::9", "2001:db8::3", 1, 2, 5 },
	    { V6, 17, "::9", "2001:db8::4", 1, 2, NONE } } },
	{ "port ranges, inclusive",
	  { { V4, 17, NULL, 0, NULL, 0, 0, 65535, 1000, 2000, 0, 6 },
	    { V4, 17, NULL, 0, NULL, 0, 53, 53, 0, 65535, 0, 7 } },
	  { { V4, 17, "1.1.1.1", "2.2.2.2", 5, 999, NONE },
	    { V4, 17, "1.1.1.1", "2.2.2.2", 5, 1000, 6 },
	    { V4, 17, "1.1.1.1", "2.2.2.2", 5, 2000, 6 },
	    { V4, 17, "1.1.1.1", "2.2.2.2", 5, 2001, NONE },
	    { V4, 17, "1.1.1.1", "2.2.2.2", 53, 2001, 7 },
	    { V4, 6, "1.1.1.1", "2.2.2.2", 53, 1500, NONE } } },
	{ "lowest pref wins across masks, then the oldest",
	  { { V4, 0, "10.0.0.0", 8, NULL, 0, 0, 65535, 0, 65535, 20, 1 },
	    { V4, 17, "10.1.0.0", 16, NULL, 0, 0, 65535, 0, 65535, 10, 2 },
	    { V4, 17, NULL, 0, NULL, 0, 0, 65535, 80, 80, 10, 3 },
	    { V4, 0, NULL, 0, "9.9.9.9", 32, 0, 65535, 0, 65535, 20, 4 } },
	  { { V4, 17, "10.1.2.3", "1.1.1.1", 1, 80, 2 },
	    { V4, 17, "10.2.2.3", "1.1.1.1", 1, 80, 3 },
	    { V4, 17, "10.2.2.3", "1.1.1.1", 1, 81, 1 },
	    { V4, 6, "10.2.2.3", "9.9.9.9", 1, 81, 1 },
	    { V4, 6, "11.2.2.3", "9.9.9.9", 1, 81, 4 } } },
	{ "an exact rule beats any wildcard",
	  { { V4, 0, NULL, 0, NULL, 0, 0, 65535, 0, 65535, 0, 1 },
	    { V4, 6, "1.1.1.1", 32, "2.2.2.2", 32, 7, 7, 8, 8, 99, 2 } },
	  { { V4, 6, "1.1.1.1", "2.2.2.2", 7, 8, 2 },
	    { V4, 6, "1.1.1.1", "2.2.2.2", 7, 9, 1 },
	    { V4, 6, "2.2.2.2", "1.1.1.1", 8, 7, 1 } } },
	{ "family any, protocol only",
	  { { 0, 132, NULL, 0, NULL, 0, 0, 65535, 0, 65535, 0, 8 } },
	  { { V4, 132, "1.1.1.1", "2.2.2.2", 1, 2, 8 },
	    { V6, 132, "::1", "::2", 1, 2, 8 },
	    { V6, 17, "::1", "::2", 1, 2, NONE } } },
};

static void nsl_rt_addr(struct kunit *test, u8 family, const char *s, __be32 *addr)
{
	memset(addr, 0, 16);
	if (!s)
		return;
	if (family == V6)
		KUNIT_ASSERT_TRUE(test, in6_pton(s, -1, (u8 *)addr, -1, NULL));
	else
		KUNIT_ASSERT_TRUE(test, in4_pton(s, -1, (u8 *)addr, -1, NULL));
}

/* The canonical match netlink would make of r. */
static void nsl_rt_match(struct kunit *test, const struct nsl_rt_rule *r, struct nsl_rule_match *m)
{
	memset(m, 0, sizeof(*m));
	m->family = r->family;
	m->proto = r->proto;
	nsl_rt_addr(test, r->family, r->src, m->src);
	nsl_rt_addr(test, r->family, r->dst, m->dst);
	m->src_len = r->src ? r->src_len : 0;
	m->dst_len = r->dst ? r->dst_len : 0;
	nsl_rule_prefix_mask(m->src, m->src_len);
	nsl_rule_prefix_mask(m->dst, m->dst_len);
	m->sport_min = r->sport_min;
	m->sport_max = r->sport_max;
	m->dport_min = r->dport_min;
	m->dport_max = r->dport_max;
	m->pref = r->pref;
}

static int nsl_rt_lookup(struct kunit *test, const struct nsl_rt_pkt *p)
{
	struct nsl_rule_key key = { .family = p->family, .proto = p->proto,
				   .sport = htons(p->sport), .dport = htons(p->dport) };
	struct nsl_rule *rule;
	int slice = NONE;

	nsl_rt_addr(test, p->family, p->src, key.src);
	nsl_rt_addr(test, p->family, p->dst, key.dst);
	rcu_read_lock();
	rule = nsl_rules_lookup(&key);
	if (rule)
		slice = nsl_rule_slice_now(rule);
	rcu_read_unlock();
	return slice;
}

/* Apply one batch of adds (replace: replaces) of rules[0..n); its error. */
static int nsl_rt_apply(struct kunit *test, const struct nsl_rt_rule *rules, unsigned int n,
			bool replace)
{
	struct nsl_rule_step steps[8];
	struct nsl_rule_batch b;
	struct nsl_rule_match m;
	unsigned int i;
	int err = 0;

	nsl_rule_batch_begin(&b, steps, ARRAY_SIZE(steps));
	for (i = 0; i < n && !err; i++) {
		nsl_rt_match(test, &rules[i], &m);
		err = nsl_rule_batch_add(&b, &m, rules[i].slice, replace, NULL);
	}
	if (err)
		nsl_rule_batch_abort(&b);
	else
		nsl_rule_batch_commit(&b);
	return err;
}

static unsigned int nsl_rt_count(const struct nsl_rt_rule *rules, unsigned int max)
{
	unsigned int n = 0;

	while (n < max && (rules[n].family || rules[n].proto || rules[n].slice))
		n++;
	return n;
}

static void nsl_rules_test_cases(struct kunit *test)
{
	const struct nsl_rt_case *c;
	unsigned int i;

	for (c = nsl_rt_cases; c < nsl_rt_cases + ARRAY_SIZE(nsl_rt_cases); c++) {
		nsl_rules_lock();
		KUNIT_ASSERT_EQ_MSG(test, nsl_rt_apply(test, c->rules,
						       nsl_rt_count(c->rules, ARRAY_SIZE(c->rules)),
						       false), 0, "%s", c->name);
		for (i = 0; i < ARRAY_SIZE(c->pkts) && c->pkts[i].family; i++)
			KUNIT_EXPECT_EQ_MSG(test, nsl_rt_lookup(test, &c->pkts[i]), c->pkts[i].want,
					    "%s, packet %u", c->name, i);
		nsl_rules_flush();
		nsl_rules_unlock();
	}
}

static const struct nsl_rt_rule nsl_rt_a = {
	V4, 17, NULL, 0, "10.0.0.1", 32, 0, 65535, 0, 65535, 5, 1
};

static const struct nsl_rt_rule nsl_rt_b = {
	V4, 17, "10.9.0.0", 16, NULL, 0, 0, 65535, 0, 65535, 5, 2
};

static const struct nsl_rt_pkt nsl_rt_pa = { V4, 17, "1.1.1.1", "10.0.0.1", 1, 2, 0 };
static const struct nsl_rt_pkt nsl_rt_pb = { V4, 17, "10.9.1.1", "3.3.3.3", 1, 2, 0 };

/* Replace changes the slice; a batch is invisible until it commits. */
static void nsl_rules_test_replace_and_generation(struct kunit *test)
{
	struct nsl_rt_rule a2 = nsl_rt_a;
	struct nsl_rule_step steps[4];
	struct nsl_rule_batch b;
	struct nsl_rule_match m;

	nsl_rules_lock();
	KUNIT_ASSERT_EQ(test, nsl_rt_apply(test, &nsl_rt_a, 1, false), 0);
	KUNIT_EXPECT_EQ(test, nsl_rt_apply(test, &nsl_rt_a, 1, false), -EEXIST);
	a2.slice = 7;
	KUNIT_EXPECT_EQ(test, nsl_rt_apply(test, &a2, 1, true), 0);
	KUNIT_EXPECT_EQ(test, nsl_rt_lookup(test, &nsl_rt_pa), 7);
	/* Replaced again at once: the last switch's readers keep their slice. */
	KUNIT_EXPECT_EQ(test, nsl_rt_apply(test, &nsl_rt_a, 1, true), 0);
	KUNIT_EXPECT_EQ(test, nsl_rt_lookup(test, &nsl_rt_pa), 1);

	/* In flight: replace a, add b, delete a; RX still sees the rules before. */
	nsl_rule_batch_begin(&b, steps, ARRAY_SIZE(steps));
	nsl_rt_match(test, &a2, &m);
	KUNIT_EXPECT_EQ(test, nsl_rule_batch_add(&b, &m, 7, true, NULL), 0);
	nsl_rt_match(test, &nsl_rt_b, &m);
	KUNIT_EXPECT_EQ(test, nsl_rule_batch_add(&b, &m, nsl_rt_b.slice, false, NULL), 0);
	KUNIT_EXPECT_EQ(test, nsl_rt_lookup(test, &nsl_rt_pa), 1);
	KUNIT_EXPECT_EQ(test, nsl_rt_lookup(test, &nsl_rt_pb), NONE);
	nsl_rt_match(test, &nsl_rt_a, &m);
	KUNIT_EXPECT_EQ(test, nsl_rule_batch_del(&b, nsl_rule_find(&m), NULL), 0);
	KUNIT_EXPECT_NULL(test, nsl_rule_find(&m));
	KUNIT_EXPECT_EQ(test, nsl_rt_lookup(test, &nsl_rt_pa), 1);
	nsl_rule_batch_commit(&b);
	KUNIT_EXPECT_EQ(test, nsl_rt_lookup(test, &nsl_rt_pa), NONE);
	KUNIT_EXPECT_EQ(test, nsl_rt_lookup(test, &nsl_rt_pb), 2);
	nsl_rules_flush();
	nsl_rules_unlock();
}

/* A batch that fails part way leaves every rule as it was. */
static void nsl_rules_test_undo(struct kunit *test)
{
	struct nsl_rt_rule a2 = nsl_rt_a, bad[3] = { nsl_rt_b, nsl_rt_a, nsl_rt_a };
	struct netlink_ext_ack extack = {};
	struct nsl_rule_step steps[4];
	struct nsl_rule_batch b;
	struct nsl_rule_match m;
	struct nsl_rule *rule;

	nsl_rules_lock();
	KUNIT_ASSERT_EQ(test, nsl_rt_apply(test, &nsl_rt_a, 1, false), 0);
	/* b added, then a fails (exists): b goes again. */
	KUNIT_EXPECT_EQ(test, nsl_rt_apply(test, bad, 2, false), -EEXIST);
	KUNIT_EXPECT_EQ(test, nsl_rt_lookup(test, &nsl_rt_pb), NONE);
	nsl_rt_match(test, &nsl_rt_b, &m);
	KUNIT_EXPECT_NULL(test, nsl_rule_find(&m));

	/* Replace, delete, add, then abort: a keeps its slice and stays. */
	nsl_rule_batch_begin(&b, steps, ARRAY_SIZE(steps));
	a2.slice = 9;
	nsl_rt_match(test, &a2, &m);
	KUNIT_EXPECT_EQ(test, nsl_rule_batch_add(&b, &m, a2.slice, true, NULL), 0);
	KUNIT_EXPECT_EQ(test, nsl_rule_batch_del(&b, nsl_rule_find(&m), NULL), 0);
	KUNIT_EXPECT_EQ(test, nsl_rule_batch_add(&b, &m, 3, false, NULL), 0);
	nsl_rule_batch_abort(&b);
	KUNIT_EXPECT_EQ(test, nsl_rt_lookup(test, &nsl_rt_pa), 1);
	KUNIT_EXPECT_NOT_NULL(test, nsl_rule_find(&m));
	/* Named twice in one batch: the second fails, saying so. */
	nsl_rule_batch_begin(&b, steps, ARRAY_SIZE(steps));
	rule = nsl_rule_find(&m);
	KUNIT_EXPECT_NOT_NULL(test, rule);
	if (rule) {
		KUNIT_EXPECT_EQ(test, nsl_rule_batch_del(&b, rule, NULL), 0);
		KUNIT_EXPECT_NULL(test, nsl_rule_find(&m));
		KUNIT_EXPECT_EQ(test, nsl_rule_batch_del(&b, rule, &extack), -ENOENT);
		KUNIT_EXPECT_STREQ(test, extack._msg, "rule named twice in one request");
	}
	nsl_rule_batch_abort(&b);
	KUNIT_EXPECT_EQ(test, nsl_rt_lookup(test, &nsl_rt_pa), 1);
	KUNIT_EXPECT_EQ(test, nsl_rules_flush(), 1U);
	KUNIT_EXPECT_EQ(test, nsl_rt_lookup(test, &nsl_rt_pa), NONE);
	nsl_rules_unlock();
}

/* A history answers each generation with the slice it had then. */
static void nsl_rules_test_history_walk(struct kunit *test)
{
	struct nsl_rule_hist first = { .gen = 10, .slice = 1, .embedded = true };
	struct nsl_rule_hist second = { .gen = 20, .slice = 2 };
	struct nsl_rule_hist third = { .gen = 21, .slice = 3 };
	static const struct { u64 gen; u32 slice; } want[] = {
		{ 10, 1 }, { 19, 1 }, { 20, 2 }, { 21, 3 }, { 1ULL << 40, 3 },
	};
	unsigned int i;

	RCU_INIT_POINTER(second.prev, &first);
	RCU_INIT_POINTER(third.prev, &second);
	rcu_read_lock();
	for (i = 0; i < ARRAY_SIZE(want); i++)
		KUNIT_EXPECT_EQ_MSG(test, nsl_rule_hist_slice(&third, want[i].gen), want[i].slice,
				    "generation %llu", want[i].gen);
	/* Cut: the oldest kept answers (no reader is that old any more). */
	RCU_INIT_POINTER(second.prev, NULL);
	KUNIT_EXPECT_EQ(test, nsl_rule_hist_slice(&third, 10), 2U);
	rcu_read_unlock();
}

/* Replace the rule of m with slice in a batch of its own; the batch's generation. */
static u64 nsl_rt_replace(struct kunit *test, const struct nsl_rule_match *m, u32 slice)
{
	struct nsl_rule_step steps[2];
	struct nsl_rule_batch b;

	nsl_rule_batch_begin(&b, steps, ARRAY_SIZE(steps));
	KUNIT_EXPECT_EQ(test, nsl_rule_batch_add(&b, m, slice, true, NULL), 0);
	nsl_rule_batch_commit(&b);
	return b.gen;
}

/* Under the batch lock: add nsl_rt_a, its match in *m; the rule. */
static struct nsl_rule *nsl_rt_add_a(struct kunit *test, struct nsl_rule_match *m)
{
	struct nsl_rule *rule;

	KUNIT_ASSERT_EQ(test, nsl_rt_apply(test, &nsl_rt_a, 1, false), 0);
	nsl_rt_match(test, &nsl_rt_a, m);
	rule = nsl_rule_find(m);
	KUNIT_ASSERT_NOT_NULL(test, rule);
	return rule;
}

static struct nsl_rule_hist *nsl_rt_head(struct nsl_rule *rule)
{
	return rcu_dereference_protected(rule->hist, true);
}

/*
 * A rule replaced again and again keeps the slice of each generation a
 * reader may still be in, and the writer does not wait for readers: of
 * five tries of three replaces, at least one ends before a grace period
 * that began before it (waiting for one, each try would end after it).
 */
static void nsl_rules_test_replace_history(struct kunit *test)
{
	struct nsl_rule_hist *head, *prev;
	unsigned long before;
	unsigned int try, quick = 0;
	struct nsl_rule_match m;
	struct nsl_rule *rule;
	u64 gen[3];

	nsl_rules_lock();
	rule = nsl_rt_add_a(test, &m);
	for (try = 0; try < 5; try++) {
		before = get_state_synchronize_rcu();
		gen[0] = nsl_rt_replace(test, &m, 7);
		gen[1] = nsl_rt_replace(test, &m, 1);
		gen[2] = nsl_rt_replace(test, &m, 5);
		quick += !poll_state_synchronize_rcu(before);
		/* The batch lock held since the last commit: nothing of it is cut yet. */
		head = nsl_rt_head(rule);
		KUNIT_EXPECT_EQ(test, head->gen, gen[2]);
		KUNIT_EXPECT_EQ(test, head->slice, 5);
		prev = rcu_dereference_protected(head->prev, true);
		KUNIT_ASSERT_NOT_NULL(test, prev);
		KUNIT_EXPECT_EQ(test, prev->gen, gen[1]);
		KUNIT_EXPECT_EQ(test, prev->slice, 1);
		rcu_read_lock();
		KUNIT_EXPECT_EQ(test, nsl_rule_hist_slice(head, gen[2] - 1), 1U);
		KUNIT_EXPECT_EQ(test, nsl_rule_slice_now(rule), 5U);
		rcu_read_unlock();
		KUNIT_EXPECT_EQ(test, nsl_rt_lookup(test, &nsl_rt_pa), 5);
	}
	KUNIT_EXPECT_GT(test, quick, 0U);
	nsl_rules_flush();
	nsl_rules_unlock();
}

/* Within one batch a rule's node is rewritten; a replace to its slice pushes none; abort pops. */
static void nsl_rules_test_replace_in_batch(struct kunit *test)
{
	struct nsl_rule_hist *head;
	struct nsl_rule_step steps[4];
	struct nsl_rule_batch b;
	struct nsl_rule_match m;
	struct nsl_rule *rule;

	nsl_rules_lock();
	rule = nsl_rt_add_a(test, &m);
	head = nsl_rt_head(rule);
	KUNIT_EXPECT_PTR_EQ(test, head, &rule->first);

	nsl_rule_batch_begin(&b, steps, ARRAY_SIZE(steps));
	KUNIT_EXPECT_EQ(test, nsl_rule_batch_add(&b, &m, nsl_rt_a.slice, true, NULL), 0);
	KUNIT_EXPECT_EQ(test, b.count, 0U);
	KUNIT_EXPECT_EQ(test, nsl_rule_batch_add(&b, &m, 2, true, NULL), 0);
	KUNIT_EXPECT_EQ(test, nsl_rule_batch_add(&b, &m, 3, true, NULL), 0);
	KUNIT_EXPECT_EQ(test, b.count, 1U);
	KUNIT_EXPECT_EQ(test, nsl_rt_head(rule)->gen, b.gen);
	KUNIT_EXPECT_EQ(test, nsl_rt_head(rule)->slice, 3);
	KUNIT_EXPECT_EQ(test, nsl_rt_lookup(test, &nsl_rt_pa), 1);
	nsl_rule_batch_abort(&b);
	KUNIT_EXPECT_PTR_EQ(test, nsl_rt_head(rule), head);
	KUNIT_EXPECT_EQ(test, nsl_rt_lookup(test, &nsl_rt_pa), 1);

	nsl_rt_replace(test, &m, 3);
	KUNIT_EXPECT_EQ(test, nsl_rt_lookup(test, &nsl_rt_pa), 3);
	KUNIT_EXPECT_PTR_EQ(test, rcu_dereference_protected(nsl_rt_head(rule)->prev, true),
			    head);
	nsl_rules_flush();
	nsl_rules_unlock();
}

/*
 * A grace period that ends while the reaper runs: the history pass found
 * a replace waiting, then the graveyard pass finds the same rule's later
 * death past. The rule must take its replace off the cut list, or a later
 * reap cuts a node freed with the rule (a use-after-free, then a double
 * free). Done with the passes apart, the grace period forced between.
 */
static void nsl_rules_test_reap_between_passes(struct kunit *test)
{
	struct nsl_rule_step steps[2];
	struct nsl_rule_batch b;
	struct nsl_rule_match m;
	struct nsl_rule *rule;
	int err;

	nsl_rules_lock();
	/* Nothing of earlier cases left waiting. */
	synchronize_rcu();
	nsl_rule_batch_begin(&b, steps, 0);
	KUNIT_EXPECT_EQ(test, nsl_rules_cuts_pending(), 0U);

	rule = nsl_rt_add_a(test, &m);
	/* Replaced, then deleted, published at once: no reap between. */
	nsl_rule_batch_begin(&b, steps, ARRAY_SIZE(steps));
	err = nsl_rule_batch_add(&b, &m, 7, true, NULL);
	if (!err)
		err = nsl_rule_batch_del(&b, rule, NULL);
	KUNIT_EXPECT_EQ(test, err, 0);
	nsl_rule_batch_commit(&b);
	KUNIT_EXPECT_EQ(test, nsl_rules_cuts_pending(), 1U);
	synchronize_rcu();
	/* The history pass skipped, as when it found the replace's grace period not over. */
	KUNIT_EXPECT_FALSE(test, nsl_rules_reap_graves(false));
	KUNIT_EXPECT_EQ(test, nsl_rules_cuts_pending(), 0U);
	/* The rule and its history freed; a reap now must find nothing of them. */
	rcu_barrier();
	nsl_rule_batch_begin(&b, steps, 0);
	KUNIT_EXPECT_EQ(test, nsl_rules_cuts_pending(), 0U);
	nsl_rules_unlock();
}

/*
 * Thousands of rules replaced, deleted and flushed in batches, grace
 * periods forced between some of them and between the reaper's passes:
 * nothing waits once every grace period is over, and the rules read back
 * as the batches left them.
 */
static void nsl_rules_test_churn(struct kunit *test)
{
	const unsigned int n = 2048, per_batch = 64;
	struct nsl_rule_step *steps;
	struct nsl_rule_match m;
	struct nsl_rule_batch b;
	struct nsl_rt_rule r = nsl_rt_a;
	unsigned int round, i, live = 0;
	u32 state = 1;
	int err;

	steps = kunit_kcalloc(test, per_batch, sizeof(*steps), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, steps);
	nsl_rules_lock();
	for (round = 0; round < 40; round++) {
		nsl_rule_batch_begin(&b, steps, per_batch);
		for (i = 0; i < per_batch; i++) {
			struct nsl_rule *rule;

			state = state * 1103515245 + 12345;
			r.dport_min = 1 + (state >> 8) % n;
			r.dport_max = r.dport_min;
			r.slice = (state >> 4) & 7;
			nsl_rt_match(test, &r, &m);
			rule = nsl_rule_find(&m);
			if (rule && (state & 3) == 0)
				err = nsl_rule_batch_del(&b, rule, NULL);
			else
				err = nsl_rule_batch_add(&b, &m, r.slice, true, NULL);
			KUNIT_EXPECT_EQ(test, err, 0);
		}
		nsl_rule_batch_commit(&b);
		if (round % 3 == 0) {
			synchronize_rcu();
			/* The graveyard first: the order a late grace period makes. */
			nsl_rules_reap_graves(false);
		}
		if (round % 13 == 12)
			nsl_rules_flush();
		cond_resched();
	}
	nsl_rules_unlock();
	/* Every rule's and every node's grace period over: nothing waits. */
	synchronize_rcu();
	nsl_rules_lock();
	nsl_rule_batch_begin(&b, steps, 0);
	KUNIT_EXPECT_EQ(test, nsl_rules_cuts_pending(), 0U);
	for (i = 1; i <= n; i++) {
		struct nsl_rule *rule;

		r.dport_min = i;
		r.dport_max = i;
		nsl_rt_match(test, &r, &m);
		rule = nsl_rule_find(&m);
		live += !!rule;
		if (rule)
			KUNIT_EXPECT_NULL(test, rcu_access_pointer(nsl_rt_head(rule)->prev));
	}
	KUNIT_EXPECT_GT(test, live, 0U);
	nsl_rules_flush();
	nsl_rules_unlock();
	rcu_barrier();
}

/* Wildcard rules of the flow-cache test, for the flows nsl_rt_flow() makes. */
static const struct nsl_rt_rule nsl_rt_wild[] = {
	{ V4, 0, "10.0.0.0", 9, NULL, 0, 0, 65535, 0, 65535, 20, 1 },
	{ V4, 17, "10.64.0.0", 10, NULL, 0, 0, 65535, 1000, 3999, 10, 2 },
	{ V4, 6, NULL, 0, "192.168.1.0", 24, 0, 65535, 0, 65535, 10, 3 },
	{ 0, 132, NULL, 0, NULL, 0, 0, 65535, 0, 65535, 30, 4 },
	{ V6, 0, "2001:db8::", 33, NULL, 0, 0, 65535, 0, 65535, 5, 5 },
	/* The pref of the first: where both match, the first (older) wins. */
	{ V4, 0, NULL, 0, "192.168.0.0", 23, 0, 65535, 0, 65535, 20, 6 },
	{ V4, 17, NULL, 0, NULL, 0, 2000, 2999, 0, 65535, 15, 7 },
	{ V4, 6, "10.128.0.0", 9, "192.168.2.0", 23, 0, 65535, 0, 2999, 1, 8 },
	{ V6, 17, NULL, 0, "2001:db8:ffff::", 48, 0, 65535, 3000, 5999, 8, 9 },
	{ V4, 0, NULL, 0, NULL, 0, 1100, 1100, 0, 65535, 0, 10 },
};

/* A rule of the flow-cache test as the plain evaluation sees it. */
struct nsl_rt_ref {
	struct nsl_rule_match match;
	u32 slice;
	bool exact;
};

/* Spreads n's bits over all of the result (lowbias32). */
static u32 nsl_rt_mix(u32 n)
{
	n ^= n >> 16;
	n *= 0x7feb352d;
	n ^= n >> 15;
	n *= 0x846ca68b;
	return n ^ (n >> 16);
}

/*
 * Flow i of the flow-cache test, all distinct: in groups of four, the
 * first of a group has an exact rule, the second differs from it in the
 * protocol only, the third in the destination port, the fourth is its
 * reverse. Every eighth group is IPv6.
 */
static void nsl_rt_flow(unsigned int i, struct nsl_rule_key *k)
{
	static const u8 protos[] = { IPPROTO_UDP, IPPROTO_TCP, IPPROTO_SCTP };
	unsigned int g = i / 4;
	u32 h = nsl_rt_mix(g);
	u16 sport = 1024 + g, dport = nsl_rt_mix(~g) % 6000;
	__be32 addr[4];

	memset(k, 0, sizeof(*k));
	k->proto = protos[g % ARRAY_SIZE(protos)];
	if (g % 8 == 7) {
		k->family = V6;
		k->src[0] = htonl(0x20010db8);
		k->src[1] = htonl(h);
		k->src[2] = htonl(g);
		k->src[3] = htonl(1);
		k->dst[0] = htonl(0x20010db8);
		k->dst[1] = htonl(0xffff0000);
		k->dst[3] = htonl(g);
	} else {
		k->family = V4;
		k->src[0] = htonl(0x0a000000 | (h & 0xffffff));
		k->dst[0] = htonl(0xc0a80000 | h >> 22);
	}
	switch (i % 4) {
	case 1:
		k->proto = k->proto == IPPROTO_UDP ? IPPROTO_TCP : IPPROTO_UDP;
		break;
	case 2:
		dport++;
		break;
	case 3:
		memcpy(addr, k->src, sizeof(addr));
		memcpy(k->src, k->dst, sizeof(addr));
		memcpy(k->dst, addr, sizeof(addr));
		swap(sport, dport);
		break;
	}
	k->sport = htons(sport);
	k->dport = htons(dport);
}

/* The first len bits of a and b are the same, compared one by one. */
static bool nsl_rt_prefix_eq(const __be32 *a, const __be32 *b, unsigned int len)
{
	unsigned int i;

	for (i = 0; i < len; i++)
		if ((ntohl(a[i / 32]) ^ ntohl(b[i / 32])) & (1U << (31 - i % 32)))
			return false;
	return true;
}

static bool nsl_rt_ref_matches(const struct nsl_rt_ref *r, const struct nsl_rule_key *k)
{
	const struct nsl_rule_match *m = &r->match;
	u16 sport = ntohs(k->sport), dport = ntohs(k->dport);

	return sport >= m->sport_min && sport <= m->sport_max &&
	       dport >= m->dport_min && dport <= m->dport_max &&
	       (!m->family || m->family == k->family) && (!m->proto || m->proto == k->proto) &&
	       nsl_rt_prefix_eq(m->src, k->src, m->src_len) &&
	       nsl_rt_prefix_eq(m->dst, k->dst, m->dst_len);
}

/* The slice for k, the plain way: every rule, oldest first. */
static int nsl_rt_ref_slice(const struct nsl_rt_ref *refs, unsigned int n,
			    const struct nsl_rule_key *k)
{
	const struct nsl_rt_ref *best = NULL, *r;

	for (r = refs; r < refs + n; r++) {
		if (!nsl_rt_ref_matches(r, k))
			continue;
		/* An exact rule beats any wildcard; then the lowest pref, then the oldest. */
		if (!best || (r->exact && !best->exact) ||
		    (r->exact == best->exact && r->match.pref < best->match.pref))
			best = r;
	}
	return best ? best->slice : NONE;
}

/* What the flow-cache test's passes saw. */
struct nsl_rt_tally {
	unsigned int missed;		/* flows the cache did not hold */
	unsigned int wrong;		/* flows answered otherwise than want */
};

/*
 * Look flow i up as RX does, twice when first (the second must hit), and
 * with the matcher alone; a wrong answer reported for the first few.
 */
static void nsl_rt_flow_check(struct kunit *test, unsigned int i, int want, bool first,
			      struct nsl_rt_tally *t)
{
	int got, again = want, alone;
	bool held, kept = true;
	struct nsl_rule_key k;
	struct nsl_rule *rule;

	nsl_rt_flow(i, &k);
	local_bh_disable();
	rcu_read_lock();
	held = nsl_rules_flow_cached(&k);
	got = nsl_rules_steer_flow(&k);
	if (first) {
		kept = nsl_rules_flow_cached(&k);
		again = nsl_rules_steer_flow(&k);
	}
	rule = nsl_rules_lookup(&k);
	alone = rule ? nsl_rule_slice_now(rule) : NONE;
	rcu_read_unlock();
	local_bh_enable();

	t->missed += !held;
	if (got == want && again == want && alone == want && kept)
		return;
	if (t->wrong++ >= 4)
		return;
	if (first)
		KUNIT_FAIL(test,
			   "flow %u (family %u proto %u ports %u>%u), first pass: cache %d (%s) then %d (%s), matcher alone %d, want %d",
			   i, k.family, k.proto, ntohs(k.sport), ntohs(k.dport), got,
			   held ? "hit" : "miss", again, kept ? "hit" : "miss", alone, want);
	else
		KUNIT_FAIL(test,
			   "flow %u (family %u proto %u ports %u>%u), second pass: cache %d (%s), matcher alone %d, want %d",
			   i, k.family, k.proto, ntohs(k.sport), ntohs(k.dport), got,
			   held ? "hit" : "miss", alone, want);
}

/*
 * The flow cache against a plain evaluation of every rule, over eight
 * times as many flows as a CPU's cache holds: thousands of exact rules,
 * each next to flows a field away from it, and prefixes and port ranges
 * of both families. Each flow is looked up through the cache twice: a
 * first pass, which fills the cache and evicts, and a second in reverse
 * order, whose misses (most of it) find the cache full; and through the
 * matcher alone. All must answer as the plain evaluation does.
 */
static void nsl_rules_test_flow_cache(struct kunit *test)
{
	const unsigned int size = nsl_rules_flow_cache_size();
	const unsigned int n = max(8 * size, 4096U), groups = n / 4;
	const unsigned int nr_refs = ARRAY_SIZE(nsl_rt_wild) + groups;
	struct nsl_rt_tally first = {}, second = {};
	struct nsl_rule_step *steps;
	struct nsl_rule_batch b;
	struct nsl_rt_ref *refs;
	struct nsl_rule_key k;
	unsigned int i, held = 0, failed = 0;
	s16 *want;

	refs = kunit_kcalloc(test, nr_refs, sizeof(*refs), GFP_KERNEL);
	steps = kunit_kcalloc(test, nr_refs, sizeof(*steps), GFP_KERNEL);
	want = kunit_kcalloc(test, n, sizeof(*want), GFP_KERNEL);
	KUNIT_ASSERT_TRUE(test, refs && steps && want);
	for (i = 0; i < ARRAY_SIZE(nsl_rt_wild); i++) {
		nsl_rt_match(test, &nsl_rt_wild[i], &refs[i].match);
		refs[i].slice = nsl_rt_wild[i].slice;
	}
	/* One exact rule per group, on its first flow. */
	for (i = 0; i < groups; i++) {
		struct nsl_rt_ref *r = &refs[ARRAY_SIZE(nsl_rt_wild) + i];
		unsigned int bits = 32;

		nsl_rt_flow(4 * i, &k);
		if (k.family == V6)
			bits = 128;
		memcpy(r->match.src, k.src, sizeof(k.src));
		memcpy(r->match.dst, k.dst, sizeof(k.dst));
		r->match.src_len = bits;
		r->match.dst_len = bits;
		r->match.sport_min = ntohs(k.sport);
		r->match.sport_max = ntohs(k.sport);
		r->match.dport_min = ntohs(k.dport);
		r->match.dport_max = ntohs(k.dport);
		r->match.family = k.family;
		r->match.proto = k.proto;
		r->match.pref = i % 64;
		r->slice = 16 + i % 240;
		r->exact = true;
	}
	for (i = 0; i < n; i++) {
		nsl_rt_flow(i, &k);
		want[i] = nsl_rt_ref_slice(refs, nr_refs, &k);
		if (!(i % NSL_RESCHED_EVERY))
			cond_resched();
	}

	nsl_rules_lock();
	nsl_rule_batch_begin(&b, steps, nr_refs);
	for (i = 0; i < nr_refs; i++)
		failed += !!nsl_rule_batch_add(&b, &refs[i].match, refs[i].slice, false, NULL);
	nsl_rule_batch_commit(&b);
	KUNIT_EXPECT_EQ(test, failed, 0U);

	/* The cache is per CPU: every pass on one. */
	migrate_disable();
	for (i = 0; i < n; i++) {
		nsl_rt_flow_check(test, i, want[i], true, &first);
		if (!(i % NSL_RESCHED_EVERY))
			cond_resched();
	}
	rcu_read_lock();
	for (i = 0; i < n; i++) {
		nsl_rt_flow(i, &k);
		held += nsl_rules_flow_cached(&k);
	}
	rcu_read_unlock();
	for (i = n; i-- > 0;) {
		nsl_rt_flow_check(test, i, want[i], false, &second);
		if (!(i % NSL_RESCHED_EVERY))
			cond_resched();
	}
	migrate_enable();

	KUNIT_EXPECT_EQ(test, nsl_rules_flush(), nr_refs);
	nsl_rules_unlock();
	rcu_barrier();

	/* New to this generation's cache, each flow missed once in the first pass. */
	KUNIT_EXPECT_EQ(test, first.missed, n);
	/* The cache full after it: all but size flows missed again, each evicting one. */
	KUNIT_EXPECT_EQ(test, held, size);
	KUNIT_EXPECT_GE(test, second.missed, n - size);
	/* The last flows of the first pass, met first in reverse: hits. */
	KUNIT_EXPECT_LT(test, second.missed, n);
	KUNIT_EXPECT_EQ_MSG(test, first.wrong + second.wrong, 0U,
			    "flows answered wrongly, of %u (cache of %u)", n, size);
}

/*
 * Hit counters: a chunk's worth and one more land in two chunks, each
 * its own counter; a slot given back and taken again reads zero.
 */
static void nsl_rules_test_hit_chunks(struct kunit *test)
{
	const unsigned int n = NSL_HITS_PER_CHUNK + 1;
	struct nsl_rule_hits *hits;
	unsigned int i, got;
	u32 slot;

	hits = kunit_kcalloc(test, n, sizeof(*hits), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, hits);
	for (got = 0; got < n; got++)
		if (nsl_rule_hits_get(&hits[got]))
			break;
	KUNIT_EXPECT_EQ(test, got, n);
	for (i = 0; i < got; i++)
		this_cpu_add(*hits[i].count, i + 1);
	for (i = 0; i < got; i++)
		KUNIT_EXPECT_EQ(test, nsl_rule_hits_sum(&hits[i]), (u64)i + 1);
	slot = hits[got - 1].slot;
	nsl_rule_hits_put(&hits[got - 1]);
	KUNIT_EXPECT_EQ(test, nsl_rule_hits_get(&hits[got - 1]), 0);
	KUNIT_EXPECT_EQ(test, hits[got - 1].slot, slot);
	KUNIT_EXPECT_EQ(test, nsl_rule_hits_sum(&hits[got - 1]), 0ULL);
	for (i = 0; i < got; i++)
		nsl_rule_hits_put(&hits[i]);
}

static struct kunit_case nsl_rules_cases[] = {
	KUNIT_CASE(nsl_rules_test_cases),
	KUNIT_CASE(nsl_rules_test_replace_and_generation),
	KUNIT_CASE(nsl_rules_test_undo),
	KUNIT_CASE(nsl_rules_test_history_walk),
	KUNIT_CASE(nsl_rules_test_replace_history),
	KUNIT_CASE(nsl_rules_test_replace_in_batch),
	KUNIT_CASE(nsl_rules_test_hit_chunks),
	KUNIT_CASE(nsl_rules_test_reap_between_passes),
	KUNIT_CASE(nsl_rules_test_churn),
	KUNIT_CASE(nsl_rules_test_flow_cache),
	{}
};

static struct kunit_suite nsl_rules_suite = {
	.name = "netslice_rules",
	.test_cases = nsl_rules_cases,
};

kunit_test_suite(nsl_rules_suite);
