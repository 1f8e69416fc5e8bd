/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _NETSLICE_RULE_BATCH_H
#define _NETSLICE_RULE_BATCH_H

#include <linux/netlink.h>
#include <linux/types.h>

#include "rules.h"

/* One change of a batch, kept so that a failed batch can be undone. */
struct nsl_rule_step {
	struct nsl_rule *rule;
	struct nsl_rule_hist *pushed;	/* NSL_STEP_RESLICED: the node the replace pushed */
	u8 kind;			/* NSL_STEP_* */
};

enum { NSL_STEP_ADDED = 1, NSL_STEP_DELETED, NSL_STEP_RESLICED };

/*
 * A batch of rule changes, applied all or none: made invisibly in
 * generation gen, which nsl_rule_batch_commit() publishes at once.
 */
struct nsl_rule_batch {
	struct nsl_rule_step *steps;	/* one per operation at most */
	unsigned int count;
	unsigned int cap;
	u64 gen;
	int live;			/* rules alive after it, minus before */
};

int nsl_rules_init(void);
void nsl_rules_exit(void);

void nsl_rules_lock(void);
void nsl_rules_unlock(void);

/* Under nsl_rules_lock(), one batch at a time, cap operations at most. */
void nsl_rule_batch_begin(struct nsl_rule_batch *b, struct nsl_rule_step *steps,
			  unsigned int cap);
int nsl_rule_batch_add(struct nsl_rule_batch *b, const struct nsl_rule_match *m, u32 slice,
		       bool replace, struct netlink_ext_ack *extack);
int nsl_rule_batch_del(struct nsl_rule_batch *b, struct nsl_rule *rule,
		       struct netlink_ext_ack *extack);
void nsl_rule_batch_commit(struct nsl_rule_batch *b);
void nsl_rule_batch_abort(struct nsl_rule_batch *b);

/* Under nsl_rules_lock(): a live rule (not deleted, in the batch's view). */
struct nsl_rule *nsl_rule_find(const struct nsl_rule_match *m);
struct nsl_rule *nsl_rule_find_id(u32 id);
/* Under nsl_rules_lock(), outside a batch: delete every rule; how many. */
unsigned int nsl_rules_flush(void);

/* Under rcu_read_lock(): the rule RX sees with the lowest id >= *id. */
struct nsl_rule *nsl_rule_next_rcu(unsigned long *id);

#if IS_ENABLED(CONFIG_KUNIT)
/* Under nsl_rules_lock(): the graveyard pass of the reaper alone; published nodes waiting. */
bool nsl_rules_reap_graves(bool all);
unsigned int nsl_rules_cuts_pending(void);
#endif

#endif /* _NETSLICE_RULE_BATCH_H */
