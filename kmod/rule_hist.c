// SPDX-License-Identifier: GPL-2.0
/*
 * A rule's slice history: what lets a rule be replaced again at once.
 *
 * RX reads the published generation once per packet and asks a rule for
 * its slice in that generation; a reader that started before a replace
 * was published may still ask for the slice before it. Each replace
 * published pushes a node (generation, slice) in front of the last, so
 * every generation a reader can be in keeps its answer and a writer does
 * not wait for readers (unless NSL_RULE_HIST_PENDING_MAX nodes wait to be
 * cut: rule_batch.c).
 *
 * Reclamation without callbacks: once a grace period has passed since a
 * node was published, no reader can be in a generation before it, so its
 * prev is cut and freed. Published nodes wait on one list, in order of
 * publication; the rule batch's reaper cuts them under the batch lock,
 * the same lock every writer of a history holds. A node pushed by a batch
 * that is then aborted may have been seen by a reader walking past it: it
 * is freed after a grace period.
 *
 * A dead rule takes its whole history with it: before the rule goes to
 * its RCU callback its nodes leave the list (nsl_rule_hist_unlist()),
 * whatever the cut pass found. Grace periods end while the reaper runs,
 * so the rule's death may be seen as past while a replace published
 * before it was not a moment earlier.
 */
#include <linux/sched.h>
#include <linux/slab.h>

#include "compat.h"
#include "rule_hist.h"

/* Point a new rule's history at first: slice from generation gen on. */
void nsl_rule_hist_start(struct nsl_rule_hist __rcu **headp, struct nsl_rule_hist *first,
			 u64 gen, u32 slice)
{
	*first = (struct nsl_rule_hist){ .gen = gen, .slice = slice, .embedded = true };
	RCU_INIT_POINTER(*headp, first);
}

/*
 * Give the history slice from gen on, gen being the generation the batch
 * builds: the node pushed (for the batch to publish or undo), NULL if none
 * was needed, or ERR_PTR(-ENOMEM).
 */
struct nsl_rule_hist *nsl_rule_hist_switch(struct nsl_rule_hist __rcu **headp, u64 gen,
					   u32 slice)
{
	struct nsl_rule_hist *head = rcu_dereference_protected(*headp, true);
	struct nsl_rule_hist *node;

	/* Pushed or born in this batch: no reader is in gen yet. */
	if (head->gen == gen) {
		WRITE_ONCE(head->slice, slice);
		return NULL;
	}
	if (head->slice == slice)
		return NULL;
	node = kmalloc_obj(*node, GFP_KERNEL_ACCOUNT);
	if (!node)
		return ERR_PTR(-ENOMEM);
	*node = (struct nsl_rule_hist){ .gen = gen, .slice = slice };
	INIT_LIST_HEAD(&node->cut);
	RCU_INIT_POINTER(node->prev, head);
	/* Release: a reader that finds node finds it filled in. */
	rcu_assign_pointer(*headp, node);
	return node;
}

/* pushed's generation is published, at RCU state cookie: cut its prev once readers left. */
void nsl_rule_hist_published(struct nsl_rule_hist *pushed, unsigned long cookie,
			     struct nsl_rule_cuts *cuts)
{
	pushed->cut_rcu = cookie;
	list_add_tail(&pushed->cut, &cuts->list);
	cuts->count++;
}

static void nsl_rule_hist_delist(struct nsl_rule_hist *node, struct nsl_rule_cuts *cuts)
{
	list_del_init(&node->cut);
	cuts->count--;
}

/* Take back a node pushed by a batch that failed. */
void nsl_rule_hist_undo(struct nsl_rule_hist __rcu **headp, struct nsl_rule_hist *pushed)
{
	rcu_assign_pointer(*headp, rcu_dereference_protected(pushed->prev, true));
	kfree_rcu(pushed, rcu);
}

static void nsl_rule_hist_cut(struct nsl_rule_hist *node)
{
	struct nsl_rule_hist *prev = rcu_dereference_protected(node->prev, true);

	RCU_INIT_POINTER(node->prev, NULL);
	/* Its own prev was cut before: published earlier, so on the list earlier. */
	if (!prev->embedded)
		kfree(prev);
}

/*
 * Cut the histories no reader needs any more; all: every one (no reader
 * is left). Whether cuts wait still.
 */
bool nsl_rule_hist_reap(struct nsl_rule_cuts *cuts, bool all)
{
	struct nsl_rule_hist *node, *next;
	unsigned int n = 0;

	list_for_each_entry_safe(node, next, &cuts->list, cut) {
		if (!all && !poll_state_synchronize_rcu(node->cut_rcu))
			return true;
		nsl_rule_hist_delist(node, cuts);
		nsl_rule_hist_cut(node);
		if (!(++n % NSL_RESCHED_EVERY))
			cond_resched();
	}
	return false;
}

/*
 * A dead rule's history, about to be freed with it: off the cut list, each
 * node still on it (its prev is freed with the rest, not cut).
 */
void nsl_rule_hist_unlist(struct nsl_rule_hist *head, struct nsl_rule_cuts *cuts)
{
	for (; head; head = rcu_dereference_protected(head->prev, true))
		if (!head->embedded && !list_empty(&head->cut))
			nsl_rule_hist_delist(head, cuts);
}

void nsl_rule_hist_free(struct nsl_rule_hist *head)
{
	struct nsl_rule_hist *prev;

	for (; head; head = prev) {
		prev = rcu_dereference_protected(head->prev, true);
		if (!head->embedded)
			kfree(head);
	}
}
