// SPDX-License-Identifier: GPL-2.0
/*
 * netslicectl chain: each slice's next slice, the one its
 * NETSLICE_TX_DEFAULT and NETSLICE_TX_NEXT writes hand packets to
 * (docs/uapi.md, "Chains"). A slice-set changes one slice; a command that
 * changes several first reads every slice's next (a slice-get dump), so
 * that when the kernel refuses one change (a loop, no such slice) the
 * changes made before it are undone: the command takes effect whole or
 * not at all, as far as no one else changes the chains meanwhile.
 */
#include <stdio.h>
#include <string.h>

#include <linux/netslice_netlink.h>

#include "chain.h"
#include "ctl.h"
#include "msg.h"
#include "nl.h"
#include "usage.h"
#include "view.h"
#include "word.h"

#define CHAIN_NONE	(-1)	/* no next slice: the chain ends there */

/* Every slice's next slice, as a slice-get dump says it. */
struct chain_dump {
	struct ctl_req req;	/* first: the row callback is given it */
	int next[NETSLICE_MAX_SLICES];
};

static int chain_dump_row(struct nlattr **tb, uint8_t cmd, struct ctl_req *req)
{
	struct chain_dump *d = (struct chain_dump *)req;
	uint32_t id, next;

	(void)cmd;
	if (!tb[NETSLICE_A_SLICE_ID] || !tb[NETSLICE_A_SLICE_CHAIN_NEXT])
		return 0;
	id = nla_get_u32(tb[NETSLICE_A_SLICE_ID]);
	next = nla_get_u32(tb[NETSLICE_A_SLICE_CHAIN_NEXT]);
	if (id < NETSLICE_MAX_SLICES && next < NETSLICE_MAX_SLICES)
		d->next[id] = (int)next;
	return 0;
}

/* Every slice's next into d: 0, or -errno (the error printed). */
static int chain_read(struct chain_dump *d)
{
	unsigned int i;
	int err;

	memset(d, 0, sizeof(*d));
	for (i = 0; i < NETSLICE_MAX_SLICES; i++)
		d->next[i] = CHAIN_NONE;
	ctl_req_msg(&d->req, NETSLICE_CMD_SLICE_GET, true);
	d->req.maxattr = NETSLICE_A_SLICE_MAX;
	d->req.row = chain_dump_row;
	err = ctl_send(&d->req);
	ctl_req_free(&d->req);
	return err;
}

/* A slice's next (or none), as slice set spells it. */
static const char *chain_word(int next, char *buf, size_t size)
{
	if (next == CHAIN_NONE)
		return "none";
	snprintf(buf, size, "%d", next);
	return buf;
}

/* slice-set of one slice's next: 0, or -errno ("Error: slice S -> N: why." printed). */
static int chain_set(unsigned int slice, int next)
{
	struct ctl_req req = { 0 };
	int err;

	ctl_req_msg(&req, NETSLICE_CMD_SLICE_SET, false);
	if (next == CHAIN_NONE)
		ctl_subject_begin(&req, "slice %u", slice);
	else
		ctl_subject_begin(&req, "slice %u -> %d", slice, next);
	nla_put_u32(req.msg, NETSLICE_A_SLICE_ID, slice);
	if (next == CHAIN_NONE)
		nla_put_flag(req.msg, NETSLICE_A_SLICE_CHAIN_END);
	else
		nla_put_u32(req.msg, NETSLICE_A_SLICE_CHAIN_NEXT, (uint32_t)next);
	ctl_subject_end(&req);
	err = ctl_send(&req);
	ctl_req_free(&req);
	return err;
}

/* A slice's new next. */
struct chain_change {
	unsigned int slice;
	int next;
};

/*
 * Make the changes in order. When one is refused, each made before it
 * goes back, last first, to the next read in d, and is said to be undone.
 * Returns an exit status.
 */
static int chain_apply(const struct chain_change *c, unsigned int n, const struct chain_dump *d)
{
	char now[16], was[16];
	unsigned int done, i;
	int old;

	for (done = 0; done < n; done++)
		if (chain_set(c[done].slice, c[done].next))
			break;
	if (done == n)
		return 0;
	for (i = done; i-- > 0;) {
		old = d->next[c[i].slice];
		if (old == c[i].next || chain_set(c[i].slice, old))
			continue;	/* nothing changed, or the error is said */
		msg_line("%sUndone: slice %u next %s (its next is %s again).", usage_at.where,
			 c[i].slice, chain_word(c[i].next, now, sizeof(now)),
			 chain_word(old, was, sizeof(was)));
	}
	return CTL_EXIT_KERNEL;
}

/* The most slices on one chain of next[]; 0 if one loops (the kernel refuses it). */
static unsigned int chain_longest(const int *next)
{
	unsigned int s, len, most = 0;
	int at;

	for (s = 0; s < NETSLICE_MAX_SLICES; s++) {
		for (at = (int)s, len = 0; at != CHAIN_NONE && len <= NETSLICE_MAX_SLICES;
		     at = next[at])
			len++;
		if (len > NETSLICE_MAX_SLICES)
			return 0;
		most = len > most ? len : most;
	}
	return most;
}

/*
 * chain add: the last link first, so that the chain grows from its end:
 * a packet handed to a slice of it finds the slices after it linked
 * already, rather than going out of that slice's interfaces meanwhile.
 * Not past NETSLICE_CHAIN_MAX_HOPS, with the chains there are: a longer
 * chain would drop every parked payload at its last hop.
 */
static int chain_add(struct ctl_req *req)
{
	struct chain_change c[NETSLICE_MAX_SLICES];
	int want[NETSLICE_MAX_SLICES];
	struct chain_dump d;
	unsigned int i, n = 0, len;

	if (chain_read(&d))
		return CTL_EXIT_KERNEL;
	memcpy(want, d.next, sizeof(want));
	for (i = req->nr_slices - 1; i > 0; i--) {
		c[n++] = (struct chain_change){ req->slices[i - 1], req->slices[i] };
		want[req->slices[i - 1]] = req->slices[i];
	}
	len = chain_longest(want);
	if (len > NETSLICE_CHAIN_MAX_HOPS + 1) {
		msg_line("%sError: chain add: a chain of %u slices: a parked payload is handed "
			 "on at most %d times.", usage_at.where, len, NETSLICE_CHAIN_MAX_HOPS);
		return CTL_EXIT_KERNEL;
	}
	return chain_apply(c, n, &d);
}

/* chain del: each slice named ends its chain. */
static int chain_del(struct ctl_req *req)
{
	struct chain_change c[NETSLICE_MAX_SLICES];
	struct chain_dump d;
	unsigned int i;

	if (chain_read(&d))
		return CTL_EXIT_KERNEL;
	for (i = 0; i < req->nr_slices; i++)
		c[i] = (struct chain_change){ req->slices[i], CHAIN_NONE };
	return chain_apply(c, req->nr_slices, &d);
}

/* chain flush: every slice that has a next ends its chain. */
static int chain_flush(struct ctl_req *req)
{
	struct chain_change c[NETSLICE_MAX_SLICES];
	struct chain_dump d;
	unsigned int s, n = 0;

	(void)req;
	if (chain_read(&d))
		return CTL_EXIT_KERNEL;
	for (s = 0; s < NETSLICE_MAX_SLICES; s++)
		if (d.next[s] != CHAIN_NONE)
			c[n++] = (struct chain_change){ s, CHAIN_NONE };
	return chain_apply(c, n, &d);
}

/* One chain from its first slice: "0 -> 1 -> 2", or {"slices":[0,1,2]}. */
static void chain_print(const struct chain_dump *d, unsigned int first)
{
	unsigned int hops;
	int at;

	if (view.json) {
		json_open(&view.j, NULL, '{');
		json_open(&view.j, "slices", '[');
	}
	/* Bounded: the kernel refuses loops, but chains may change while dumped. */
	for (at = (int)first, hops = 0; at != CHAIN_NONE && hops <= NETSLICE_MAX_SLICES;
	     at = d->next[at], hops++) {
		if (view.json)
			json_u64(&view.j, NULL, (uint64_t)at);
		else
			printf("%s%d", hops ? " -> " : "", at);
	}
	if (view.json) {
		json_close(&view.j, ']');
		json_close(&view.j, '}');
	} else {
		printf("\n");
	}
}

/*
 * chain show: a line per chain, from each slice that has a next and is
 * no slice's next. Chains that join share their tail: each line shows it.
 */
static int chain_show(struct ctl_req *req)
{
	bool fed[NETSLICE_MAX_SLICES] = { false };
	struct chain_dump d;
	unsigned int s;

	(void)req;
	if (chain_read(&d))
		return CTL_EXIT_KERNEL;
	for (s = 0; s < NETSLICE_MAX_SLICES; s++)
		if (d.next[s] != CHAIN_NONE)
			fed[d.next[s]] = true;
	if (view.json)
		json_open(&view.j, NULL, '[');
	for (s = 0; s < NETSLICE_MAX_SLICES; s++)
		if (d.next[s] != CHAIN_NONE && !fed[s])
			chain_print(&d, s);
	if (view.json) {
		json_close(&view.j, ']');
		json_end(&view.j);
	}
	return 0;
}

/* The slices of a chain add: S1 [->] S2 [[->] S3]..., none twice. */
static int chain_parse_add(int argc, char **argv, struct ctl_req *req)
{
	bool named[NETSLICE_MAX_SLICES] = { false }, arrow = false;
	uint32_t s;
	int i;

	for (i = 0; i < argc; i++) {
		usage_mark(&argv[i]);
		if (word_is(argv[i], "->")) {
			if (!req->nr_slices || arrow)
				return usage_error("chain add: \"->\" goes between two slices");
			arrow = true;
			continue;
		}
		if (word_u32("slice", argv[i], NETSLICE_MAX_SLICES - 1, &s))
			return CTL_EXIT_USAGE;
		if (named[s])
			return usage_error("chain add: slice %u twice: a chain cannot loop", s);
		if (req->nr_slices > NETSLICE_CHAIN_MAX_HOPS)
			return usage_error("chain add: at most %d slices (a parked payload is "
					   "handed on at most %d times)", NETSLICE_CHAIN_MAX_HOPS + 1,
					   NETSLICE_CHAIN_MAX_HOPS);
		named[s] = true;
		req->slices[req->nr_slices++] = (uint8_t)s;
		arrow = false;
	}
	if (arrow)
		return usage_error("chain add: \"->\" goes between two slices");
	if (req->nr_slices < 2)
		return usage_error("chain add takes two slices or more: S1 [->] S2 ...");
	req->exec = chain_add;
	return 0;
}

/* The slices of a chain del, each once. */
static int chain_parse_del(int argc, char **argv, struct ctl_req *req)
{
	bool named[NETSLICE_MAX_SLICES] = { false };
	uint32_t s;
	int i;

	if (!argc)
		return usage_error("chain del takes slices: S [S]...");
	for (i = 0; i < argc; i++) {
		usage_mark(&argv[i]);
		if (word_u32("slice", argv[i], NETSLICE_MAX_SLICES - 1, &s))
			return CTL_EXIT_USAGE;
		if (!named[s])
			req->slices[req->nr_slices++] = (uint8_t)s;
		named[s] = true;
	}
	req->exec = chain_del;
	return 0;
}

int ctl_chain(int argc, char **argv, struct ctl_req *req)
{
	if (!argc || word_is(argv[0], "show") || word_is(argv[0], "list")) {
		if (argc > 1)
			return usage_error("chain show takes no arguments");
		req->exec = chain_show;
		return 0;
	}
	if (word_is(argv[0], "add"))
		return chain_parse_add(argc - 1, argv + 1, req);
	if (word_is(argv[0], "del"))
		return chain_parse_del(argc - 1, argv + 1, req);
	if (word_is(argv[0], "flush")) {
		if (argc > 1)
			return usage_error("chain flush takes no arguments");
		req->exec = chain_flush;
		return 0;
	}
	return usage_error("chain: unknown command \"%s\"", argv[0]);
}
