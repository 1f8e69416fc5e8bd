// SPDX-License-Identifier: GPL-2.0
/*
 * libnetslice's rule API against the loaded module, as an NF uses it:
 * per-connection exact rules queued and committed in requests, refusals
 * with the kernel's reason, all or none, single changes, bad arguments.
 *
 *   rule_api N      N per-connection rules (left in place for the caller
 *                   to count: TCP 10.50.0.0/16 port 1024+ -> 10.60.0.1:80)
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "netslice.h"
#include "ktap.h"

#define PER_REQUEST	256

/* Connection i's return flow: server 10.60.0.1:80 back to client 10.50.x.y:1024+i%60000. */
static void conn_flow(unsigned int i, struct ns_flow *f)
{
	memset(f, 0, sizeof(*f));
	f->family = AF_INET;
	f->proto = IPPROTO_TCP;
	f->saddr[0] = 10, f->saddr[1] = 60, f->saddr[3] = 1;
	f->daddr[0] = 10, f->daddr[1] = 50, f->daddr[2] = (uint8_t)(i >> 8), f->daddr[3] = (uint8_t)i;
	f->sport = htons(80);
	f->dport = htons((uint16_t)(1024 + i % 60000));
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	unsigned int n = argc > 1 ? (unsigned int)atoi(argv[1]) : 20000, i, failed = 0;
	struct ns_rules *r = NULL;
	struct ns_rule rule, bad;
	struct ns_flow flow;
	int err, err2;
	double t0;

	ktap_header("rule_api", 6);
	err = ns_rules_open(&r);
	if (!ktap_check(!err, "ns_rules_open() finds the family (%d)", err))
		return ktap_finish();

	t0 = now();
	for (i = 0; i < n; i++) {
		conn_flow(i, &flow);
		ns_rule_of_flow(&rule, &flow, i % 4);
		if (ns_rules_queue(r, NS_RULE_REPLACE, &rule) ||
		    (ns_rules_queued(r) == PER_REQUEST && ns_rules_commit(r)))
			failed++;
	}
	if (ns_rules_commit(r))
		failed++;
	printf("# %u rules in %.3f s (%.0f/s), %u a request\n", n, now() - t0,
	       n / (now() - t0), PER_REQUEST);
	ktap_check(!failed && !ns_rules_queued(r), "%u per-connection rules, %u a request: every commit 0",
		   n, PER_REQUEST);

	conn_flow(7, &flow);
	ns_rule_of_flow(&rule, &flow, 1);
	err = ns_rule_add(r, &rule);
	printf("# why: %s\n", ns_rules_why(r));
	ktap_check(err == -EEXIST && errno == EEXIST && ns_rules_why(r)[0],
		   "an add of an existing rule: -EEXIST, and the kernel says why (%d)", err);

	/* Three new rules and the existing one: none of the three stays. */
	for (i = n; i < n + 3; i++) {
		conn_flow(i, &flow);
		ns_rule_of_flow(&bad, &flow, 2);
		ns_rules_queue(r, NS_RULE_ADD, &bad);
	}
	ns_rules_queue(r, NS_RULE_ADD, &rule);
	err = ns_rules_commit(r);
	err2 = ns_rule_del(r, &bad);
	ktap_check(err == -EEXIST && err2 == -ENOENT,
		   "a request with one refused rule applies none of the others (%d, then %d)", err,
		   err2);

	conn_flow(n - 1, &flow);
	ns_rule_of_flow(&rule, &flow, 0);
	err = ns_rule_del(r, &rule);
	err2 = ns_rule_del(r, &rule);
	ktap_check(!err && err2 == -ENOENT, "ns_rule_del() deletes; again, -ENOENT (%d, %d)", err,
		   err2);

	ns_rules_queue(r, NS_RULE_REPLACE, &rule);
	err = ns_rule_replace(r, &rule);
	err2 = ns_rules_queue(r, (enum ns_rule_op)7, &rule);
	bad = rule;
	bad.family = 99;
	ktap_check(err == -EBUSY && err2 == -EINVAL &&
		   ns_rules_queue(r, NS_RULE_ADD, &bad) == -EINVAL &&
		   ns_rules_queued(r) == 1 && !ns_rules_commit(r),
		   "-EBUSY for one change while changes wait, -EINVAL for a bad op or family");
	ns_rules_close(r);
	return ktap_finish();
}
