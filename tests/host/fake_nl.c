// SPDX-License-Identifier: GPL-2.0
/*
 * netslicectl's netlink side (tools/ctl/nl.c) over a module that is not
 * there, for tests/host/test_ctl_fake.sh: the commands that need the
 * kernel's answers (chain add's undo, chain show) run on a host.
 *
 * The slices are the file $NETSLICE_FAKE_NL: their number, then a line
 * "S N" for each slice S whose next slice is N. slice-get (do and dump)
 * and slice-set's chain-next and chain-end read and change it as the
 * module does (kmod/nl_slice.c, kmod/chain.c): no such slice, or a next
 * whose chain leads back (ELOOP), is refused with the module's message.
 * Each slice-set is appended to $NETSLICE_FAKE_NL_LOG, if set, as
 * "S N" or "S none"; any other request is refused (EOPNOTSUPP).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <netlink/genl/genl.h>

#include <linux/netslice_netlink.h>

#include "msg.h"
#include "nl.h"
#include "usage.h"

#define FAKE_NONE	(-1)

static struct {
	unsigned int nr;
	int next[NETSLICE_MAX_SLICES];
} fake;

static const char *fake_path(void)
{
	const char *path = getenv("NETSLICE_FAKE_NL");

	if (!path) {
		fprintf(stderr, "fake_nl: NETSLICE_FAKE_NL is not set\n");
		exit(99);
	}
	return path;
}

int ctl_open(void)
{
	FILE *f = fopen(fake_path(), "r");
	unsigned int s, n;
	int i;

	for (i = 0; i < NETSLICE_MAX_SLICES; i++)
		fake.next[i] = FAKE_NONE;
	if (!f || fscanf(f, "%u", &fake.nr) != 1 || fake.nr > NETSLICE_MAX_SLICES) {
		fprintf(stderr, "fake_nl: %s: no slice count\n", fake_path());
		exit(99);
	}
	while (fscanf(f, "%u %u", &s, &n) == 2)
		if (s < fake.nr && n < fake.nr)
			fake.next[s] = (int)n;
	fclose(f);
	return 0;
}

void ctl_close(void)
{
	FILE *f = fopen(fake_path(), "w");
	unsigned int s;

	if (!f)
		exit(99);
	fprintf(f, "%u\n", fake.nr);
	for (s = 0; s < fake.nr; s++)
		if (fake.next[s] != FAKE_NONE)
			fprintf(f, "%u %d\n", s, fake.next[s]);
	fclose(f);
}

int ctl_sndbuf(size_t bytes)
{
	(void)bytes;
	return 0;
}

int ctl_listen(struct ctl_req *req)
{
	(void)req;
	return -EOPNOTSUPP;
}

/* A refusal, said as nl.c says the kernel's. */
static int fake_refuse(struct ctl_req *req, int err, const char *why)
{
	char buf[600];
	const char *subject = ctl_subject_at(req, 0, false, buf, sizeof(buf));

	msg_line("%sError: %s%s%s.", usage_at.where, subject ? subject : "", subject ? ": " : "",
		 why);
	return err;
}

/* slice S's reply, to req->row. */
static void fake_reply(struct ctl_req *req, unsigned int s)
{
	struct nl_msg *msg = nlmsg_alloc();
	struct nlattr *tb[64] = { 0 };

	genlmsg_put(msg, 0, 0, 0, 0, 0, NETSLICE_CMD_SLICE_GET, NETSLICE_FAMILY_VERSION);
	nla_put_u32(msg, NETSLICE_A_SLICE_ID, s);
	nla_put_u32(msg, NETSLICE_A_SLICE_RXQ_SIZE, 1024);
	nla_put_u32(msg, NETSLICE_A_SLICE_CUT_MODE, NETSLICE_CUT_MODE_OFF);
	if (fake.next[s] != FAKE_NONE)
		nla_put_u32(msg, NETSLICE_A_SLICE_CHAIN_NEXT, (uint32_t)fake.next[s]);
	if (!genlmsg_parse(nlmsg_hdr(msg), 0, tb, req->maxattr, NULL) && req->row)
		req->row(tb, NETSLICE_CMD_SLICE_GET, req);
	nlmsg_free(msg);
}

/* next is id, or its chain reaches id (kmod/chain.c). */
static int fake_reaches(int next, int id)
{
	unsigned int steps;

	for (steps = 0; next != FAKE_NONE && steps < fake.nr; steps++) {
		if (next == id)
			return 1;
		next = fake.next[next];
	}
	return 0;
}

static int fake_slice_set(struct ctl_req *req, struct nlattr **a)
{
	const char *log = getenv("NETSLICE_FAKE_NL_LOG");
	uint32_t id, next;
	FILE *f;

	if (!a[NETSLICE_A_SLICE_ID] || nla_get_u32(a[NETSLICE_A_SLICE_ID]) >= fake.nr)
		return fake_refuse(req, -EINVAL, "no such slice");
	id = nla_get_u32(a[NETSLICE_A_SLICE_ID]);
	if (!a[NETSLICE_A_SLICE_CHAIN_NEXT] == !a[NETSLICE_A_SLICE_CHAIN_END])
		return fake_refuse(req, -EOPNOTSUPP, "fake_nl: one of chain-next and chain-end");
	next = a[NETSLICE_A_SLICE_CHAIN_NEXT] ? nla_get_u32(a[NETSLICE_A_SLICE_CHAIN_NEXT]) :
						 (uint32_t)FAKE_NONE;
	if (a[NETSLICE_A_SLICE_CHAIN_NEXT] && next >= fake.nr)
		return fake_refuse(req, -EINVAL, "no such slice");
	if (a[NETSLICE_A_SLICE_CHAIN_NEXT] && fake_reaches((int)next, (int)id))
		return fake_refuse(req, -ELOOP,
				   "the next slice's chain leads back to this slice: a loop");
	fake.next[id] = (int)next;
	f = log ? fopen(log, "a") : NULL;
	if (f) {
		if (a[NETSLICE_A_SLICE_CHAIN_NEXT])
			fprintf(f, "%u %u\n", id, next);
		else
			fprintf(f, "%u none\n", id);
		fclose(f);
	}
	return 0;
}

int ctl_send(struct ctl_req *req)
{
	struct nlmsghdr *nlh = nlmsg_hdr(req->msg);
	struct genlmsghdr *gh = nlmsg_data(nlh);
	struct nlattr *a[NETSLICE_A_SLICE_MAX + 1];
	unsigned int s;
	int err = -EOPNOTSUPP;

	if (genlmsg_parse(nlh, 0, a, NETSLICE_A_SLICE_MAX, NULL) < 0) {
		err = fake_refuse(req, -EINVAL, "fake_nl: a malformed request");
	} else if (gh->cmd == NETSLICE_CMD_SLICE_SET) {
		err = fake_slice_set(req, a);
	} else if (gh->cmd == NETSLICE_CMD_SLICE_GET && (nlh->nlmsg_flags & NLM_F_DUMP)) {
		for (s = 0; s < fake.nr; s++)
			fake_reply(req, s);
		err = 0;
	} else if (gh->cmd == NETSLICE_CMD_SLICE_GET) {
		s = a[NETSLICE_A_SLICE_ID] ? nla_get_u32(a[NETSLICE_A_SLICE_ID]) : fake.nr;
		if (s < fake.nr)
			fake_reply(req, s);
		err = s < fake.nr ? 0 : fake_refuse(req, -EINVAL, "no such slice");
	} else {
		err = fake_refuse(req, -EOPNOTSUPP, "fake_nl: not faked");
	}
	nlmsg_free(req->msg);
	req->msg = NULL;
	return err;
}
