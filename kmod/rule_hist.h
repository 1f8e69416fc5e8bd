/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _NETSLICE_RULE_HIST_H
#define _NETSLICE_RULE_HIST_H

#include <linux/list.h>
#include <linux/rcupdate.h>
#include <linux/types.h>

/* Rules (or nodes) a long walk of the writers handles between chances to reschedule. */
#define NSL_RESCHED_EVERY	256

/*
 * Published nodes waiting for a grace period, past which a batch waits
 * for one before it begins: a replacer faster than grace periods end
 * (or a stalled grace period) cannot grow the histories without bound.
 */
#define NSL_RULE_HIST_PENDING_MAX	65536

/*
 * A rule's slice from one generation on, newest first: a reader in
 * generation g walks back past the nodes newer than g. Published nodes
 * never change; a node pushed in the batch being built is rewritten while
 * no reader can be in its generation.
 */
struct nsl_rule_hist {
	u64 gen;				/* the first generation it answers for */
	struct nsl_rule_hist __rcu *prev;	/* before gen; cut once no reader needs it */
	union {
		/* On the cut list from its publication until cut (then empty). */
		struct list_head cut;
		struct rcu_head rcu;		/* freed unpublished: an aborted batch */
	};
	unsigned long cut_rcu;			/* RCU state at its publication */
	u8 slice;
	bool embedded;				/* the rule's first: freed with it */
};

/* Under rcu_read_lock(): the slice of the history at head in generation gen. */
static inline u32 nsl_rule_hist_slice(const struct nsl_rule_hist *h, u64 gen)
{
	const struct nsl_rule_hist *prev;

	while (h->gen > gen && (prev = rcu_dereference(h->prev)))
		h = prev;
	return h->slice;
}

/* Published nodes whose prev is still linked, oldest publication first. */
struct nsl_rule_cuts {
	struct list_head list;
	unsigned int count;
};

/* Writers, under the rule batch lock (the lock of every history and of the cuts). */
void nsl_rule_hist_start(struct nsl_rule_hist __rcu **headp, struct nsl_rule_hist *first,
			 u64 gen, u32 slice);
struct nsl_rule_hist *nsl_rule_hist_switch(struct nsl_rule_hist __rcu **headp, u64 gen,
					   u32 slice);
void nsl_rule_hist_published(struct nsl_rule_hist *pushed, unsigned long cookie,
			     struct nsl_rule_cuts *cuts);
void nsl_rule_hist_undo(struct nsl_rule_hist __rcu **headp, struct nsl_rule_hist *pushed);
bool nsl_rule_hist_reap(struct nsl_rule_cuts *cuts, bool all);
void nsl_rule_hist_unlist(struct nsl_rule_hist *head, struct nsl_rule_cuts *cuts);
/* No lock: a dead rule's history, once no reader can see the rule. */
void nsl_rule_hist_free(struct nsl_rule_hist *head);

#endif /* _NETSLICE_RULE_HIST_H */
