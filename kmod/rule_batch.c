// SPDX-License-Identifier: GPL-2.0
/*
 * Rule writers: batches of adds, replaces and deletes, applied all or
 * none and seen by RX all at once (the table and its generations:
 * rules.c).
 *
 * A batch works in the generation after the published one: an added rule
 * is born in it, a deleted one dies in it, a replaced one gets a slice
 * from it on (a node pushed on its history, rule_hist.c). RX, still in
 * the published generation, sees none of it; commit publishes the
 * generation with one store. Abort undoes the steps, last first.
 * Nothing a batch does can fail after its last step.
 *
 * Writers do not wait for readers: a deleted rule stays linked on the
 * graveyard until a grace period has passed since its death was published
 * (so that a reader still in an older generation finds it), and a
 * replaced rule keeps the slices before its replaces for as long (its
 * history's cut list). The reaper frees both, cuts first, at the start of
 * each batch and from a delayed work. Two bounds wait for one grace
 * period instead: a rule table's masks all held by dead rules, and 65,536
 * replaces waiting to be cut (NSL_RULE_HIST_PENDING_MAX).
 */
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>
#include <kunit/visibility.h>

#include <linux/netslice.h>

#include "compat.h"
#include "params.h"
#include "rule_batch.h"
#include "rule_hits.h"

/* How soon the graveyard is looked at again when no batch comes. */
#define NSL_REAP_DELAY	msecs_to_jiffies(100)

static struct {
	struct mutex lock;		/* protects all fields below, and table writes */
	struct xarray ids;		/* id -> rule, live or born in the batch */
	u32 next_id;
	u64 seq;
	unsigned int live;		/* rules alive in the published generation */
	struct list_head graveyard;	/* dead rules, oldest death first */
	struct nsl_rule_cuts cuts;	/* replaces published, oldest first (rule_hist.c) */
	struct delayed_work reap;
} nsl_rules;

void nsl_rules_lock(void)
{
	mutex_lock(&nsl_rules.lock);
}
EXPORT_SYMBOL_IF_KUNIT(nsl_rules_lock);

void nsl_rules_unlock(void)
{
	mutex_unlock(&nsl_rules.lock);
}
EXPORT_SYMBOL_IF_KUNIT(nsl_rules_unlock);

static void nsl_rule_free_rcu(struct rcu_head *head)
{
	struct nsl_rule *rule = container_of(head, struct nsl_rule, rcu);

	nsl_rule_hist_free(rcu_dereference_protected(rule->hist, true));
	nsl_rule_hits_put(&rule->hits);
	kfree(rule);
}

/*
 * Unlink the dead rules no reader needs any more (all: every one), their
 * histories with them; whether some wait still. A grace period may end
 * between the history pass and this one: a rule whose death is now past
 * may have replaces the history pass found waiting, and takes them off
 * the cut list itself.
 */
VISIBLE_IF_KUNIT bool nsl_rules_reap_graves(bool all)
{
	struct nsl_rule *rule, *next;
	unsigned int n = 0;

	lockdep_assert_held(&nsl_rules.lock);
	list_for_each_entry_safe(rule, next, &nsl_rules.graveyard, grave) {
		if (!all && !poll_state_synchronize_rcu(rule->died_rcu))
			return true;
		list_del(&rule->grave);
		nsl_rule_unlink(rule);
		nsl_rule_hist_unlist(rcu_dereference_protected(rule->hist, true), &nsl_rules.cuts);
		call_rcu(&rule->rcu, nsl_rule_free_rcu);
		/* A flushed million: not in one stretch (a soft lockup under KASAN). */
		if (!(++n % NSL_RESCHED_EVERY))
			cond_resched();
	}
	return false;
}
EXPORT_SYMBOL_IF_KUNIT(nsl_rules_reap_graves);

/*
 * Cut the histories and unlink the dead rules no reader needs any more;
 * all: every one.
 */
static void nsl_rules_reap(bool all)
{
	bool waiting;

	lockdep_assert_held(&nsl_rules.lock);
	waiting = nsl_rule_hist_reap(&nsl_rules.cuts, all);
	waiting |= nsl_rules_reap_graves(all);
	if (!all && waiting)
		mod_delayed_work(system_power_efficient_wq, &nsl_rules.reap, NSL_REAP_DELAY);
}

#if IS_ENABLED(CONFIG_KUNIT)
unsigned int nsl_rules_cuts_pending(void)
{
	lockdep_assert_held(&nsl_rules.lock);
	return nsl_rules.cuts.count;
}
EXPORT_SYMBOL_IF_KUNIT(nsl_rules_cuts_pending);
#endif

static void nsl_rules_reap_work(struct work_struct *work)
{
	nsl_rules_lock();
	nsl_rules_reap(false);
	nsl_rules_unlock();
}

void nsl_rule_batch_begin(struct nsl_rule_batch *b, struct nsl_rule_step *steps,
			  unsigned int cap)
{
	lockdep_assert_held(&nsl_rules.lock);
	nsl_rules_reap(false);
	/* A batch pushes a node per rule at most: waiting here bounds them all. */
	if (nsl_rules.cuts.count >= NSL_RULE_HIST_PENDING_MAX) {
		synchronize_rcu();
		nsl_rules_reap(false);
	}
	*b = (struct nsl_rule_batch){
		.steps = steps,
		.cap = cap,
		.gen = nsl_rules_gen() + 1,
	};
}
EXPORT_SYMBOL_IF_KUNIT(nsl_rule_batch_begin);

static void nsl_rule_batch_log(struct nsl_rule_batch *b, struct nsl_rule *rule, u8 kind,
			       struct nsl_rule_hist *pushed)
{
	if (WARN_ON_ONCE(b->count >= b->cap))
		return;
	b->steps[b->count++] = (struct nsl_rule_step){
		.rule = rule, .pushed = pushed, .kind = kind,
	};
}

static struct nsl_rule *nsl_rule_create(struct nsl_rule_batch *b, const struct nsl_rule_match *m,
					u32 slice, struct netlink_ext_ack *extack)
{
	static const struct xa_limit ids = XA_LIMIT(1, U32_MAX);
	struct nsl_rule *rule;
	int err = -ENOMEM;

	rule = kzalloc_obj(*rule, GFP_KERNEL_ACCOUNT);
	if (!rule)
		goto err_msg;
	if (nsl_rule_hits_get(&rule->hits))
		goto err_free_rule;
	rule->match = *m;
	rule->exact = nsl_rule_match_is_exact(m);
	nsl_rule_key_of(m, &rule->key);
	rule->seq = ++nsl_rules.seq;
	rule->born = b->gen;
	rule->died = NSL_GEN_NEVER;
	nsl_rule_hist_start(&rule->hist, &rule->first, b->gen, slice);

	if (xa_alloc_cyclic(&nsl_rules.ids, &rule->id, rule, ids, &nsl_rules.next_id,
			    GFP_KERNEL_ACCOUNT) < 0)
		goto err_free_hits;
	err = nsl_rule_link(rule, extack);
	if (err)
		goto err_erase_id;
	return rule;

err_erase_id:
	xa_erase(&nsl_rules.ids, rule->id);
err_free_hits:
	nsl_rule_hits_put(&rule->hits);
err_free_rule:
	kfree(rule);
err_msg:
	if (err == -ENOMEM)
		NL_SET_ERR_MSG(extack, "no memory for the rule");
	return ERR_PTR(err);
}

/* Point rule at slice from the batch's generation on; never waits. */
static int nsl_rule_reslice(struct nsl_rule_batch *b, struct nsl_rule *rule, u32 slice,
			    struct netlink_ext_ack *extack)
{
	struct nsl_rule_hist *pushed = nsl_rule_hist_switch(&rule->hist, b->gen, slice);

	if (IS_ERR(pushed)) {
		NL_SET_ERR_MSG(extack, "no memory for the rule");
		return PTR_ERR(pushed);
	}
	if (pushed)
		nsl_rule_batch_log(b, rule, NSL_STEP_RESLICED, pushed);
	return 0;
}

int nsl_rule_batch_add(struct nsl_rule_batch *b, const struct nsl_rule_match *m, u32 slice,
		       bool replace, struct netlink_ext_ack *extack)
{
	struct nsl_rule *rule;

	lockdep_assert_held(&nsl_rules.lock);
	rule = nsl_rule_table_find(m);
	if (rule) {
		if (!replace) {
			NL_SET_ERR_MSG(extack, "rule exists (replace changes its slice)");
			return -EEXIST;
		}
		return nsl_rule_reslice(b, rule, slice, extack);
	}
	if ((int)nsl_rules.live + b->live >= (int)nsl_max_rules) {
		NL_SET_ERR_MSG(extack, "rule table full (module parameter max_rules)");
		return -ENOSPC;
	}
	/* Masks only dead rules hold count until they are reaped: reap them now. */
	if (nsl_rule_tuples_full(m) && !list_empty(&nsl_rules.graveyard)) {
		synchronize_rcu();
		nsl_rules_reap(false);
	}
	rule = nsl_rule_create(b, m, slice, extack);
	if (IS_ERR(rule))
		return PTR_ERR(rule);
	nsl_rule_batch_log(b, rule, NSL_STEP_ADDED, NULL);
	b->live++;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(nsl_rule_batch_add);

int nsl_rule_batch_del(struct nsl_rule_batch *b, struct nsl_rule *rule,
		       struct netlink_ext_ack *extack)
{
	lockdep_assert_held(&nsl_rules.lock);
	if (rule->died != NSL_GEN_NEVER) {
		NL_SET_ERR_MSG(extack, "rule named twice in one request");
		return -ENOENT;
	}
	nsl_rule_batch_log(b, rule, NSL_STEP_DELETED, NULL);
	WRITE_ONCE(rule->died, b->gen);
	b->live--;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(nsl_rule_batch_del);

/* Dead in the generation just published: off the ids, onto the graveyard. */
static void nsl_rule_bury(struct nsl_rule *rule, unsigned long cookie)
{
	xa_erase(&nsl_rules.ids, rule->id);
	rule->died_rcu = cookie;
	list_add_tail(&rule->grave, &nsl_rules.graveyard);
}

void nsl_rule_batch_commit(struct nsl_rule_batch *b)
{
	unsigned long cookie;
	unsigned int i;

	lockdep_assert_held(&nsl_rules.lock);
	nsl_rules.live += b->live;
	nsl_rules_publish(b->gen, nsl_rules.live);
	cookie = get_state_synchronize_rcu();
	for (i = 0; i < b->count; i++) {
		struct nsl_rule_step *step = &b->steps[i];

		if (step->kind == NSL_STEP_RESLICED)
			nsl_rule_hist_published(step->pushed, cookie, &nsl_rules.cuts);
		else if (step->kind == NSL_STEP_DELETED && step->rule->died == b->gen)
			nsl_rule_bury(step->rule, cookie);
		if (!((i + 1) % NSL_RESCHED_EVERY))
			cond_resched();
	}
	if (!list_empty(&nsl_rules.graveyard) || nsl_rules.cuts.count)
		mod_delayed_work(system_power_efficient_wq, &nsl_rules.reap, NSL_REAP_DELAY);
}
EXPORT_SYMBOL_IF_KUNIT(nsl_rule_batch_commit);

void nsl_rule_batch_abort(struct nsl_rule_batch *b)
{
	struct nsl_rule_step *step;

	lockdep_assert_held(&nsl_rules.lock);
	while (b->count) {
		/* Undoing half a million adds takes seconds: not in one stretch. */
		if (!(b->count % NSL_RESCHED_EVERY))
			cond_resched();
		step = &b->steps[--b->count];
		switch (step->kind) {
		case NSL_STEP_ADDED:
			/* Never visible, but a lookup may be walking past it. */
			xa_erase(&nsl_rules.ids, step->rule->id);
			nsl_rule_unlink(step->rule);
			call_rcu(&step->rule->rcu, nsl_rule_free_rcu);
			break;
		case NSL_STEP_DELETED:
			WRITE_ONCE(step->rule->died, NSL_GEN_NEVER);
			break;
		case NSL_STEP_RESLICED:
			nsl_rule_hist_undo(&step->rule->hist, step->pushed);
			break;
		}
	}
	b->live = 0;
}
EXPORT_SYMBOL_IF_KUNIT(nsl_rule_batch_abort);

struct nsl_rule *nsl_rule_find(const struct nsl_rule_match *m)
{
	lockdep_assert_held(&nsl_rules.lock);
	return nsl_rule_table_find(m);
}
EXPORT_SYMBOL_IF_KUNIT(nsl_rule_find);

struct nsl_rule *nsl_rule_find_id(u32 id)
{
	struct nsl_rule *rule;

	lockdep_assert_held(&nsl_rules.lock);
	rule = xa_load(&nsl_rules.ids, id);
	return rule && rule->died == NSL_GEN_NEVER ? rule : NULL;
}

unsigned int nsl_rules_flush(void)
{
	u64 gen = nsl_rules_gen() + 1;
	unsigned long cookie, id;
	struct nsl_rule *rule;
	LIST_HEAD(dead);
	unsigned int n = 0, erased = 0;

	lockdep_assert_held(&nsl_rules.lock);
	xa_for_each(&nsl_rules.ids, id, rule) {
		WRITE_ONCE(rule->died, gen);
		list_add_tail(&rule->grave, &dead);
		if (!(++n % NSL_RESCHED_EVERY))
			cond_resched();
	}
	nsl_rules.live = 0;
	nsl_rules_publish(gen, 0);
	cookie = get_state_synchronize_rcu();
	list_for_each_entry(rule, &dead, grave) {
		xa_erase(&nsl_rules.ids, rule->id);
		rule->died_rcu = cookie;
		if (!(++erased % NSL_RESCHED_EVERY))
			cond_resched();
	}
	list_splice_tail(&dead, &nsl_rules.graveyard);
	if (n)
		mod_delayed_work(system_power_efficient_wq, &nsl_rules.reap, NSL_REAP_DELAY);
	return n;
}
EXPORT_SYMBOL_IF_KUNIT(nsl_rules_flush);

struct nsl_rule *nsl_rule_next_rcu(unsigned long *id)
{
	struct nsl_rule *rule;

	while ((rule = xa_find(&nsl_rules.ids, id, ULONG_MAX, XA_PRESENT))) {
		if (nsl_rule_visible(rule))
			return rule;
		(*id)++;
	}
	return NULL;
}

int nsl_rules_init(void)
{
	BUILD_BUG_ON(NETSLICE_MAX_SLICES > 256);	/* struct nsl_rule_hist's slice */
	mutex_init(&nsl_rules.lock);
	xa_init_flags(&nsl_rules.ids, XA_FLAGS_ALLOC1);
	INIT_LIST_HEAD(&nsl_rules.graveyard);
	INIT_LIST_HEAD(&nsl_rules.cuts.list);
	INIT_DELAYED_WORK(&nsl_rules.reap, nsl_rules_reap_work);
	return nsl_rule_table_init();
}

/* No RX can run any more: every interface is detached. */
void nsl_rules_exit(void)
{
	nsl_rules_lock();
	nsl_rules_flush();
	nsl_rules_reap(true);
	nsl_rules_unlock();
	/* Finds the graveyard empty if it runs: does not come back. */
	cancel_delayed_work_sync(&nsl_rules.reap);
	nsl_rule_table_exit();
	nsl_rule_hits_exit();
	xa_destroy(&nsl_rules.ids);
	mutex_destroy(&nsl_rules.lock);
}
