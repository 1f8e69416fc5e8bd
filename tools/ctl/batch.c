// SPDX-License-Identifier: GPL-2.0
/* netslicectl -b FILE: the commands of a file, one a line, paced if asked. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "batch.h"
#include "cmd.h"
#include "ctl.h"
#include "msg.h"
#include "nl.h"
#include "rule.h"
#include "rule_nest.h"
#include "run.h"
#include "usage.h"

static double ctl_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static volatile sig_atomic_t ctl_stop;

static void ctl_on_signal(int sig)
{
	(void)sig;
	ctl_stop = 1;
}

/* Send q's rule-batch request, if any: 0, or CTL_EXIT_KERNEL. */
static int ctl_batch_flush(struct ctl_rule_queue *q)
{
	if (!q->n)
		return 0;
	q->n = 0;
	ctl_sndbuf((size_t)CTL_RULES_PER_MSG * NS_RULE_NEST_MAX + 65536);
	return ctl_run(&q->req);
}

/* One line that is no queued rule change: parsed, then run. */
static int ctl_batch_line(struct conf *c, const char *file)
{
	struct ctl_req req = { 0 };
	char where[520];
	int err;

	snprintf(where, sizeof(where), "%s:%u: ", file, c->lineno);
	usage_at.where = where;
	usage_at.conf = c;
	usage_at.word = 0;
	err = ctl_parse((int)c->n, c->word, &req);
	usage_at.conf = NULL;
	if (!err)
		err = ctl_run(&req);
	usage_at.where = "";
	ctl_req_free(&req);
	return err;
}

/*
 * One command per line; the first failure ends the batch, as in ip -batch.
 * Consecutive rule add, del and replace lines go to the kernel together,
 * as rule-batch requests of up to CTL_RULES_PER_MSG lines: each applied
 * all or none, so a refused line leaves none of its request's lines in
 * place. With a rate, each line is due at its time, and the lines due
 * while the last request was in flight make the next one.
 * SIGINT or SIGTERM ends it after the command in hand, and it says how far
 * it got (a paced batch under a time limit is a benchmark's load).
 */
int ctl_batch(const char *file, double rate)
{
	struct sigaction sa = { .sa_handler = ctl_on_signal };
	struct ctl_rule_queue q = { 0 };
	double start = ctl_now(), due;
	unsigned long done = 0;
	struct conf c;
	int more = 0, queued, err = 0;

	if (conf_open(&c, file)) {
		msg_line("netslicectl: %s: %s", file, strerror(errno));
		return CTL_EXIT_USAGE;
	}
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	while (!err && !ctl_stop && (more = conf_next(&c)) > 0) {
		if (rate > 0 && ctl_now() < (due = start + done / rate)) {
			/* Early: what is queued goes now, then wait for this line's time. */
			err = ctl_batch_flush(&q);
			while (!err && !ctl_stop && ctl_now() < due) {
				struct timespec ts = { 0, (long)((due - ctl_now()) * 1e9) };

				nanosleep(&ts, NULL);
			}
		}
		if (err || ctl_stop)
			break;
		/* A rule line's errors name their word (usage_at.conf); where is for the rest. */
		usage_at.conf = &c;
		usage_at.word = 0;
		queued = ctl_rule_queue(&q, (int)c.n, c.word, file, c.lineno);
		usage_at.conf = NULL;
		if (queued < 0) {
			err = CTL_EXIT_USAGE;
			break;
		}
		if (queued) {
			done++;
			if (q.n >= CTL_RULES_PER_MSG)
				err = ctl_batch_flush(&q);
			continue;
		}
		err = ctl_batch_flush(&q);
		if (err)
			break;
		err = ctl_batch_line(&c, file);
		done++;
	}
	if (!err && more < 0)
		err = CTL_EXIT_USAGE;
	if (!err)
		err = ctl_batch_flush(&q);
	if (ctl_stop)
		fprintf(stderr, "netslicectl: stopped after %lu commands in %.3f s\n", done,
			ctl_now() - start);
	conf_close(&c);
	ctl_req_free(&q.req);
	return err;
}
