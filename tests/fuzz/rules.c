// SPDX-License-Identifier: GPL-2.0
/*
 * nsfuzz rule storm (-r N): two threads, each with its own netlink socket
 * and half of a pool of N distinct exact rules, send rule batches of up
 * to 64 operations as fast as the kernel acks them: a rule replaced to
 * another slice (added if missing), deleted, replaced and deleted in one
 * batch; now and then a flush. Thousands of rules are then replaced,
 * deleted and flushed across grace periods, from two writers, while the
 * traffic thread's packets look them up: what the rule history's reaper
 * must survive (issue 61). A batch refused because the other thread (or
 * the netlink thread) flushed a rule this one meant to delete is counted
 * and forgotten: the thread then assumes its rules gone.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <linux/netslice_netlink.h>

#include "fuzz.h"

/* Operations a batch has, mostly; one in ten has up to STORM_BIG. */
#define STORM_OPS	64
#define STORM_BIG	1024
/* Each operation may be a replace and a delete: two nests of at most 96 bytes. */
#define STORM_MSG	(STORM_BIG * 2 * 96 + 64)

struct storm {
	struct fz_rng rng;
	struct fz_nl_req q;
	unsigned int first, count;	/* this thread's rules: pool indices */
	bool *present;			/* as far as this thread knows */
	unsigned char msg[STORM_MSG];
	unsigned char reply[8192];
};

static size_t put_rule_nest(unsigned char *p, size_t room, unsigned int idx, uint8_t op,
			    uint32_t slice)
{
	const uint8_t src[4] = { 10, 77, (uint8_t)(idx >> 8), (uint8_t)idx };
	const uint8_t dst[4] = { 10, 78, 0, 1 };
	const uint8_t v4 = NETSLICE_RULE_FAMILY_IPV4, udp = 17;
	const uint16_t port = 4000;
	struct nlattr *nest = (struct nlattr *)p;
	size_t len = NLA_HDRLEN;

	if (room < 96)
		return 0;
	len += fz_nla_put(p + len, room - len, NETSLICE_A_RULE_OP, &op, 1);
	len += fz_nla_put(p + len, room - len, NETSLICE_A_RULE_FAMILY, &v4, 1);
	len += fz_nla_put(p + len, room - len, NETSLICE_A_RULE_PROTO, &udp, 1);
	len += fz_nla_put(p + len, room - len, NETSLICE_A_RULE_SRC, src, 4);
	len += fz_nla_put(p + len, room - len, NETSLICE_A_RULE_DST, dst, 4);
	len += fz_nla_put(p + len, room - len, NETSLICE_A_RULE_SPORT_MIN, &port, 2);
	len += fz_nla_put(p + len, room - len, NETSLICE_A_RULE_DPORT_MIN, &port, 2);
	len += fz_nla_put(p + len, room - len, NETSLICE_A_RULE_SLICE, &slice, 4);
	nest->nla_type = NETSLICE_A_RULES_RULE | NLA_F_NESTED;
	nest->nla_len = (uint16_t)len;
	return NLA_ALIGN(len);
}

/* Send the request in s->msg and wait for its ack: the error it carries. */
static int storm_request(struct storm *s, size_t len)
{
	return fz_nl_request(&s->q, len, NULL, NULL);
}

static size_t storm_header(struct storm *s, uint8_t cmd)
{
	return fz_genl_header(&s->q, cmd, 0);
}

/*
 * One batch of operations on this thread's rules (a rule may come again:
 * s->present follows the batch as the kernel will).
 */
static void storm_batch(struct storm *s)
{
	struct fz_rng *r = &s->rng;
	unsigned int i, n = 1 + fz_below(r, fz_chance(r, 10) ? STORM_BIG : STORM_OPS);
	size_t len = storm_header(s, NETSLICE_CMD_RULE_BATCH);
	int err;

	for (i = 0; i < n; i++) {
		unsigned int k = fz_below(r, s->count);
		uint8_t op = NETSLICE_RULE_OP_REPLACE;

		/* Deleted: a rule there, or one replaced first in this batch. */
		if (s->present[k] && fz_chance(r, 30)) {
			op = NETSLICE_RULE_OP_DEL;
		} else if (fz_chance(r, 5)) {
			len += put_rule_nest(s->msg + len, sizeof(s->msg) - len, s->first + k,
					     NETSLICE_RULE_OP_REPLACE, fz_below(r, fz.nslices));
			op = NETSLICE_RULE_OP_DEL;
			atomic_fetch_add(&fz.rule_ops, 1);
		}
		len += put_rule_nest(s->msg + len, sizeof(s->msg) - len, s->first + k, op,
				     fz_below(r, fz.nslices));
		s->present[k] = op != NETSLICE_RULE_OP_DEL;
	}
	err = storm_request(s, len);
	atomic_fetch_add(&fz.rule_batches, 1);
	atomic_fetch_add(&fz.rule_ops, n);
	if (!err)
		return;
	atomic_fetch_add(&fz.rule_refused, 1);
	/* A flush took rules this thread meant to delete: it knows nothing now. */
	if (err != -ENOENT && err != -ENOSPC && err != -EINTR)
		fz_fail("rule storm: a batch of %u refused: %s", n, strerror(-err));
	memset(s->present, 0, s->count * sizeof(*s->present));
}

/*
 * The storm's sockets, opened with the others before any slice file: a
 * socket made later could take the number of a slice file a device
 * thread has just closed, and that thread's next ioctl would reach it.
 */
int fz_rules_open(void)
{
	int one = 1;

	for (unsigned int k = 0; k < 2; k++) {
		fz.rule_sock[k] = -1;
		if (!fz.rule_pool)
			continue;
		fz.rule_sock[k] = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
		/* An error's ack without the request echoed: a big batch's would not fit. */
		if (fz.rule_sock[k] < 0 ||
		    setsockopt(fz.rule_sock[k], SOL_NETLINK, NETLINK_CAP_ACK, &one, sizeof(one))) {
			perror("nsfuzz: rule storm socket");
			return -1;
		}
	}
	return 0;
}

void *fz_rule_thread(void *arg)
{
	unsigned int k = (unsigned int)(uintptr_t)arg;
	struct storm *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->rng.s = fz.seed ^ (0x72756c65ULL + k);
	s->count = fz.rule_pool / 2;
	s->first = k * s->count;
	s->present = calloc(s->count, sizeof(*s->present));
	s->q = (struct fz_nl_req){ .sock = fz.rule_sock[k], .msg = s->msg, .reply = s->reply,
				   .reply_size = sizeof(s->reply) };
	if (!s->present) {
		fz_fail("rule storm: out of memory");
		goto out;
	}
	while (!atomic_load(&fz.stop) && atomic_load(&fz.rule_batches) < fz.rule_target) {
		if (fz_below(&s->rng, 50) == 0) {
			int err = storm_request(s, storm_header(s, NETSLICE_CMD_RULE_FLUSH));

			if (err && err != -EINTR)
				fz_fail("rule storm: flush refused: %s", strerror(-err));
			atomic_fetch_add(&fz.rule_flushes, 1);
			memset(s->present, 0, s->count * sizeof(*s->present));
			continue;
		}
		storm_batch(s);
	}
out:
	free(s->present);
	free(s);
	return NULL;
}
