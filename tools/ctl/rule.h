/* SPDX-License-Identifier: GPL-2.0 */
/*
 * netslicectl rule, parsed into a request (req.h): argc and argv are the
 * words after "rule". Returns 0 or an exit status, a usage error printed.
 */
#ifndef CTL_RULE_H
#define CTL_RULE_H

#include "req.h"

int ctl_rule(int argc, char **argv, struct ctl_req *req);

/* Most lines of one rule-batch request: at most 256 KiB, what the socket takes by default. */
#define CTL_RULES_PER_MSG	2048

/* Batch mode's pending rule-batch request, of n lines. */
struct ctl_rule_queue {
	struct ctl_req req;
	unsigned int n;
};

/*
 * Batch mode: a "rule add|del|replace RULE" line joins q, named FILE:LINE
 * in errors. Returns 1 if queued, 0 if argv is no such line, -1 for a bad
 * one (error printed).
 */
int ctl_rule_queue(struct ctl_rule_queue *q, int argc, char **argv, const char *file,
		   unsigned int line);

#endif /* CTL_RULE_H */
