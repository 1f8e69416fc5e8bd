// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: the rule matcher and its batches, on the module's own table.
 * Table-driven cases (prefix edges, port ranges, preference order, exact
 * against wildcard, families), then replace, the generation a batch
 * builds (invisible until commit), the undo of a failed batch, the
 * history that lets a rule be replaced again at once, and the hit
 * counters' chunks.
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
	{}
};

static struct kunit_suite nsl_rules_suite = {
	.name = "netslice_rules",
	.test_cases = nsl_rules_cases,
};

kunit_test_suite(nsl_rules_suite);
