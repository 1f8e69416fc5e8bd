// SPDX-License-Identifier: GPL-2.0
/*
 * Benchmark load (not a test): rule changes at a paced rate through
 * libnetslice's ns_rules, as an NF's worker makes them, for
 * bench/rule_update.sh.
 *
 *   rule-gen KIND RATE SECS [COUNT_FILE]
 *
 * KIND: replace (the steering rule of bench/rule_update.sh's flow,
 * keeping slice 0), switch (the same rule, slices 0 and 1 in turn) or
 * distinct (new exact TCP rules, one per connection, none matching the
 * load). Each change is due at its time; the changes due while the last
 * request was in flight go together in the next (at most 256 a request).
 * Prints "rule-gen: KIND done N in S s" and exits 0, or 1 on the first
 * refused request. SIGTERM ends it early, as SECS would (make bench's
 * instruction count runs it for as long as its contender is up). With
 * COUNT_FILE, the changes done so far are written there after each
 * request, so that a measurement can read how many fell inside it (to
 * a request's worth, up to 256, at either end).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "netslice.h"

#define PER_REQUEST	256

static volatile sig_atomic_t stopped;

static void on_term(int sig)
{
	(void)sig;
	stopped = 1;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void pause_until(double t)
{
	double left = t - now();
	struct timespec ts;

	if (left <= 0)
		return;
	ts.tv_sec = (time_t)left;
	ts.tv_nsec = (long)((left - (double)ts.tv_sec) * 1e9);
	nanosleep(&ts, NULL);
}

/* Change i of kind, as a rule. */
static void rule_of(const char *kind, unsigned long i, struct ns_rule *r)
{
	memset(r, 0, sizeof(*r));
	r->family = AF_INET;
	r->src_len = r->dst_len = 32;
	if (!strcmp(kind, "distinct")) {
		/* Client 10.(100+)x.y.z:1024+ to 192.0.2.7:443. */
		r->proto = 6;
		r->src[0] = 10, r->src[1] = (uint8_t)(100 + (i >> 16)), r->src[2] = (uint8_t)(i >> 8);
		r->src[3] = (uint8_t)i;
		r->dst[0] = 192, r->dst[1] = 0, r->dst[2] = 2, r->dst[3] = 7;
		r->sport_min = r->sport_max = (uint16_t)(1024 + i % 60000);
		r->dport_min = r->dport_max = 443;
		r->slice = i % 2;
		return;
	}
	/* The load's flow: UDP 10.99.1.1:10000 -> 10.99.9.9:9. */
	r->proto = 17;
	r->src[0] = 10, r->src[1] = 99, r->src[2] = 1, r->src[3] = 1;
	r->dst[0] = 10, r->dst[1] = 99, r->dst[2] = 9, r->dst[3] = 9;
	r->sport_min = r->sport_max = 10000;
	r->dport_min = r->dport_max = 9;
	r->slice = strcmp(kind, "switch") ? 0 : i % 2;
}

/* note_done: done, as text, over what count_fd held (-1: no file). */
static void note_done(int count_fd, unsigned long done)
{
	char buf[32];
	int n;

	if (count_fd < 0)
		return;
	n = snprintf(buf, sizeof(buf), "%-20lu\n", done);
	if (pwrite(count_fd, buf, n, 0) != n)
		perror("rule-gen: COUNT_FILE");
}

int main(int argc, char **argv)
{
	unsigned long done = 0, queued = 0;
	double rate, secs, start, end;
	struct ns_rules *rules;
	struct ns_rule r;
	const char *kind;
	int err, count_fd = -1;

	if (argc < 4 || argc > 5 || (strcmp(argv[1], "replace") && strcmp(argv[1], "switch") &&
			  strcmp(argv[1], "distinct"))) {
		fprintf(stderr, "usage: rule-gen replace|switch|distinct RATE SECS [COUNT_FILE]\n");
		return 2;
	}
	kind = argv[1];
	rate = atof(argv[2]);
	secs = atof(argv[3]);
	if (rate <= 0 || secs <= 0) {
		fprintf(stderr, "rule-gen: RATE and SECS are positive numbers\n");
		return 2;
	}
	signal(SIGTERM, on_term);
	if (argc == 5) {
		/* Not truncated: a reader never finds it empty (make bench writes 0 first). */
		count_fd = open(argv[4], O_WRONLY | O_CREAT, 0644);
		if (count_fd < 0) {
			perror(argv[4]);
			return 2;
		}
		note_done(count_fd, 0);
	}
	err = ns_rules_open(&rules);
	if (err) {
		fprintf(stderr, "rule-gen: ns_rules_open: %s\n", strerror(-err));
		return 1;
	}
	start = now();
	end = start + secs;
	while (!stopped && now() < end) {
		double due = start + (double)(done + queued) / rate;

		if (now() < due) {
			/* Early: what is queued goes now, then this change's time. */
			err = ns_rules_commit(rules);
			done += queued;
			queued = 0;
			note_done(count_fd, done);
			if (err)
				break;
			pause_until(due < end ? due : end);
			continue;
		}
		rule_of(kind, done + queued, &r);
		err = ns_rules_queue(rules, NS_RULE_REPLACE, &r);
		if (err)
			break;
		if (++queued == PER_REQUEST) {
			err = ns_rules_commit(rules);
			done += queued;
			queued = 0;
			note_done(count_fd, done);
			if (err)
				break;
		}
	}
	if (!err) {
		err = ns_rules_commit(rules);
		done += queued;
		note_done(count_fd, done);
	}
	if (err)
		fprintf(stderr, "rule-gen: a request refused: %s (%s)\n", strerror(-err),
			ns_rules_why(rules));
	printf("rule-gen: %s done %lu in %.3f s\n", kind, err ? 0 : done, now() - start);
	ns_rules_close(rules);
	return err ? 1 : 0;
}
