/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _NETSLICE_RULE_BATCH_H
#define _NETSLICE_RULE_BATCH_H

#include <linux/netlink.h>
#include <linux/types.h>

#include "rules.h"

/* One change of a batch, kept so that a failed batch can be undone. */
struct ns_rule_step {
	struct ns_rule *rule;
	u64 old_slice;			/* NS_STEP_RESLICED: the word before */
	u8 kind;			/* NS_STEP_* */
};

enum { NS_STEP_ADDED = 1, NS_STEP_DELETED, NS_STEP_RESLICED };

/*
 * A batch of rule changes, applied all or none: made invisibly in
 * generation gen, which ns_rule_batch_commit() publishes at once.
 */
struct ns_rule_batch {
	struct ns_rule_step *steps;	/* one per operation at most */
	unsigned int count;
	unsigned int cap;
	u64 gen;
	int live;			/* rules alive after it, minus before */
};

int ns_rules_init(void);
void ns_rules_exit(void);

void ns_rules_lock(void);
void ns_rules_unlock(void);

/* Under ns_rules_lock(), one batch at a time, cap operations at most. */
void ns_rule_batch_begin(struct ns_rule_batch *b, struct ns_rule_step *steps,
			 unsigned int cap);
int ns_rule_batch_add(struct ns_rule_batch *b, const struct ns_rule_match *m, u32 slice,
		      bool replace, struct netlink_ext_ack *extack);
int ns_rule_batch_del(struct ns_rule_batch *b, struct ns_rule *rule,
		      struct netlink_ext_ack *extack);
void ns_rule_batch_commit(struct ns_rule_batch *b);
void ns_rule_batch_abort(struct ns_rule_batch *b);

/* Under ns_rules_lock(): a live rule (not deleted, in the batch's view). */
struct ns_rule *ns_rule_find(const struct ns_rule_match *m);
struct ns_rule *ns_rule_find_id(u32 id);
/* Under ns_rules_lock(), outside a batch: delete every rule; how many. */
unsigned int ns_rules_flush(void);

/* Under rcu_read_lock(): the rule RX sees with the lowest id >= *id. */
struct ns_rule *ns_rule_next_rcu(unsigned long *id);

#endif /* _NETSLICE_RULE_BATCH_H */
