/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _NETSLICE_RULE_HITS_H
#define _NETSLICE_RULE_HITS_H

#include <linux/percpu.h>
#include <linux/types.h>

/*
 * A rule's per-CPU hit counter: a slot in a chunk of NSL_HITS_PER_CHUNK,
 * so a rule added costs no per-CPU allocation of its own (and no TLB
 * shootdown when the allocator maps a new chunk) once its chunk exists.
 */
#define NSL_HITS_PER_CHUNK	1024

struct nsl_rule_hits {
	u64 __percpu *count;	/* this_cpu_inc(*count) in RX */
	u32 slot;
};

/* Process context: a zeroed counter, or -ENOMEM. */
int nsl_rule_hits_get(struct nsl_rule_hits *hits);
/* Any context, once no reader can count on it (after a grace period). */
void nsl_rule_hits_put(struct nsl_rule_hits *hits);
u64 nsl_rule_hits_sum(const struct nsl_rule_hits *hits);
void nsl_rule_hits_exit(void);

#endif /* _NETSLICE_RULE_HITS_H */
