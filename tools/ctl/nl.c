// SPDX-License-Identifier: GPL-2.0
/*
 * The netlink side of netslicectl: one libnl socket to the netslice
 * family, requests answered by acks that carry the kernel's extended
 * ack message, and the attribute offsets of an error mapped back to what
 * the user named.
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/netlink.h>
#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>
#include <netlink/socket.h>

#include <linux/netslice_netlink.h>

#include "ctl.h"

struct ctl_subject {
	unsigned int start, end;
	const char *file;	/* "FILE:LINE" when set (formatted on error only) */
	unsigned int line;
	char *name;		/* else this, owned */
};

static struct {
	struct nl_sock *sk;
	int family;
	/* What the current request's attributes stand for, by byte range. */
	struct ctl_subject *subjects;
	unsigned int nr_subjects, cap_subjects;
} nl;

int ctl_open(void)
{
	int one = 1, err;

	nl.sk = nl_socket_alloc();
	if (!nl.sk) {
		fprintf(stderr, "netslicectl: out of memory\n");
		return -1;
	}
	err = genl_connect(nl.sk);
	if (err < 0) {
		fprintf(stderr, "netslicectl: cannot open a netlink socket: %s\n", nl_geterror(err));
		goto err_free;
	}
	nl.family = genl_ctrl_resolve(nl.sk, NETSLICE_FAMILY_NAME);
	if (nl.family < 0) {
		fprintf(stderr, "netslicectl: the netslice module is not loaded "
			"(no generic netlink family \"%s\")\n", NETSLICE_FAMILY_NAME);
		goto err_free;
	}
	/* Error acks carry the kernel's message, not a copy of the request. */
	setsockopt(nl_socket_get_fd(nl.sk), SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof(one));
	setsockopt(nl_socket_get_fd(nl.sk), SOL_NETLINK, NETLINK_CAP_ACK, &one, sizeof(one));
	nl_socket_set_buffer_size(nl.sk, 1 << 20, 1 << 20);
	return 0;

err_free:
	nl_socket_free(nl.sk);
	nl.sk = NULL;
	return -1;
}

static void ctl_subjects_clear(void)
{
	while (nl.nr_subjects)
		free(nl.subjects[--nl.nr_subjects].name);
}

void ctl_close(void)
{
	nl_socket_free(nl.sk);
	nl.sk = NULL;
	ctl_subjects_clear();
	free(nl.subjects);
	nl.subjects = NULL;
	nl.cap_subjects = 0;
}

int ctl_sndbuf(size_t bytes)
{
	int fd = nl.sk ? nl_socket_get_fd(nl.sk) : -1, size = bytes > INT_MAX / 2 ? INT_MAX / 2 : (int)bytes;

	/* Past net.core.wmem_max needs CAP_NET_ADMIN, as rule changes do. */
	if (!setsockopt(fd, SOL_SOCKET, SO_SNDBUFFORCE, &size, sizeof(size)) ||
	    !setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &size, sizeof(size)))
		return 0;
	return -errno;
}

struct nl_msg *ctl_msg(uint8_t cmd, bool dump)
{
	return ctl_msg_size(cmd, dump, 16 * 1024);
}

struct nl_msg *ctl_msg_size(uint8_t cmd, bool dump, size_t size)
{
	struct nl_msg *msg = nlmsg_alloc_size(size);

	if (!msg) {
		fprintf(stderr, "netslicectl: out of memory\n");
		exit(1);
	}
	genlmsg_put(msg, NL_AUTO_PORT, NL_AUTO_SEQ, nl.family, 0, dump ? NLM_F_DUMP : 0, cmd,
		    NETSLICE_FAMILY_VERSION);
	ctl_subjects_clear();
	return msg;
}

/* A new subject from the end of msg on; NULL without memory. */
static struct ctl_subject *ctl_subject_new(struct nl_msg *msg)
{
	struct ctl_subject *sub;

	if (nl.nr_subjects == nl.cap_subjects) {
		unsigned int cap = nl.cap_subjects ? nl.cap_subjects * 2 : 64;
		struct ctl_subject *more = realloc(nl.subjects, cap * sizeof(*more));

		if (!more)
			return NULL;	/* errors are then reported without a subject */
		nl.subjects = more;
		nl.cap_subjects = cap;
	}
	sub = &nl.subjects[nl.nr_subjects++];
	*sub = (struct ctl_subject){ .start = nlmsg_hdr(msg)->nlmsg_len, .end = ~0U };
	return sub;
}

void ctl_subject_begin(struct nl_msg *msg, const char *fmt, ...)
{
	struct ctl_subject *sub = ctl_subject_new(msg);
	va_list ap;

	if (!sub)
		return;
	va_start(ap, fmt);
	if (vasprintf(&sub->name, fmt, ap) < 0)
		sub->name = NULL;
	va_end(ap);
}

void ctl_subject_line(struct nl_msg *msg, const char *file, unsigned int line)
{
	struct ctl_subject *sub = ctl_subject_new(msg);

	if (sub) {
		sub->file = file;
		sub->line = line;
	}
}

void ctl_subject_end(struct nl_msg *msg)
{
	if (nl.nr_subjects && nl.subjects[nl.nr_subjects - 1].end == ~0U)
		nl.subjects[nl.nr_subjects - 1].end = nlmsg_hdr(msg)->nlmsg_len;
}

/* A subject's name, formatted into buf if need be. */
static const char *ctl_subject_name(const struct ctl_subject *sub, char *buf, size_t size)
{
	if (!sub->file)
		return sub->name;
	snprintf(buf, size, "%s:%u", sub->file, sub->line);
	return buf;
}

/* The innermost subject holding byte offset off of the request. */
static const struct ctl_subject *ctl_subject_at(unsigned int off)
{
	const struct ctl_subject *found = NULL;
	unsigned int i;

	for (i = 0; i < nl.nr_subjects; i++)
		if (off >= nl.subjects[i].start && off < nl.subjects[i].end)
			found = &nl.subjects[i];
	return found;
}

struct ctl_req {
	int maxattr;
	ctl_parse_t parse;
	void *arg;
	int err;		/* the ack's errno, negative */
	int done;
};

static int ctl_on_error(struct sockaddr_nl *nla, struct nlmsgerr *e, void *arg)
{
	const struct nlmsghdr *nlh = (const void *)((const char *)e - NLMSG_HDRLEN);
	struct nlattr *tb[NLMSGERR_ATTR_MAX + 1] = { 0 };
	struct ctl_req *req = arg;
	const struct ctl_subject *sub = NULL;
	const char *msg = NULL, *subject = NULL;
	char buf[600];
	int len;

	(void)nla;
	req->err = e->error;
	req->done = 1;
	if (!e->error)
		return NL_STOP;
	len = (int)nlh->nlmsg_len - NLMSG_HDRLEN - (int)sizeof(*e);
	if (nlh->nlmsg_flags & NLM_F_ACK_TLVS && len > 0 &&
	    !nla_parse(tb, NLMSGERR_ATTR_MAX, (struct nlattr *)(e + 1), len, NULL)) {
		if (tb[NLMSGERR_ATTR_MSG])
			msg = nla_get_string(tb[NLMSGERR_ATTR_MSG]);
		if (tb[NLMSGERR_ATTR_OFFS])
			sub = ctl_subject_at(nla_get_u32(tb[NLMSGERR_ATTR_OFFS]));
	}
	if (!sub && nl.nr_subjects == 1)
		sub = &nl.subjects[0];
	if (sub)
		subject = ctl_subject_name(sub, buf, sizeof(buf));
	msg_line("%sError: %s%s%s.", ctl.where, subject ? subject : "", subject ? ": " : "",
		 msg ? msg : strerror(-e->error));
	return NL_STOP;
}

static int ctl_on_ack(struct nl_msg *msg, void *arg)
{
	struct ctl_req *req = arg;

	(void)msg;
	req->done = 1;
	return NL_STOP;
}

static int ctl_on_valid(struct nl_msg *msg, void *arg)
{
	struct nlmsghdr *nlh = nlmsg_hdr(msg);
	struct genlmsghdr *gh = nlmsg_data(nlh);
	struct nlattr *tb[64] = { 0 };
	struct ctl_req *req = arg;

	if (!req->parse || req->maxattr >= 64)
		return NL_OK;
	if (genlmsg_parse(nlh, 0, tb, req->maxattr, NULL) < 0)
		return NL_SKIP;
	return req->parse(tb, gh->cmd, req->arg) ? NL_STOP : NL_OK;
}

static int ctl_on_done(struct nl_msg *msg, void *arg)
{
	struct nlmsghdr *nlh = nlmsg_hdr(msg);
	struct nlattr *tb[NLMSGERR_ATTR_MAX + 1];
	struct ctl_req *req = arg;
	int *err = nlmsg_data(nlh);
	const char *why = NULL;
	int len;

	/* A dump that failed says so, and why, in its DONE message. */
	if (nlh->nlmsg_len >= NLMSG_HDRLEN + sizeof(int) && *err < 0) {
		req->err = *err;
		len = (int)nlh->nlmsg_len - NLMSG_HDRLEN - (int)sizeof(int);
		if (nlh->nlmsg_flags & NLM_F_ACK_TLVS && len > 0 &&
		    !nla_parse(tb, NLMSGERR_ATTR_MAX, (struct nlattr *)(err + 1), len, NULL) &&
		    tb[NLMSGERR_ATTR_MSG])
			why = nla_get_string(tb[NLMSGERR_ATTR_MSG]);
		fprintf(stderr, "%sError: %s.\n", ctl.where, why ? why : strerror(-*err));
	}
	req->done = 1;
	return NL_STOP;
}

int ctl_do(struct nl_msg *msg, int maxattr, ctl_parse_t parse, void *arg)
{
	struct ctl_req req = { .maxattr = maxattr, .parse = parse, .arg = arg };
	struct nl_cb *cb;
	int err;

	if (ctl.checking) {
		nlmsg_free(msg);
		ctl_parsed();
	}
	/* A dump ends with DONE; anything else is acked. */
	if (!(nlmsg_hdr(msg)->nlmsg_flags & NLM_F_DUMP))
		nlmsg_hdr(msg)->nlmsg_flags |= NLM_F_ACK;
	err = nl_send_auto(nl.sk, msg);
	nlmsg_free(msg);
	if (err < 0) {
		fprintf(stderr, "%sError: cannot send the request: %s.\n", ctl.where,
			nl_geterror(err));
		return -EIO;
	}
	cb = nl_cb_alloc(NL_CB_DEFAULT);
	if (!cb)
		return -ENOMEM;
	nl_cb_err(cb, NL_CB_CUSTOM, ctl_on_error, &req);
	nl_cb_set(cb, NL_CB_ACK, NL_CB_CUSTOM, ctl_on_ack, &req);
	nl_cb_set(cb, NL_CB_FINISH, NL_CB_CUSTOM, ctl_on_done, &req);
	nl_cb_set(cb, NL_CB_VALID, NL_CB_CUSTOM, ctl_on_valid, &req);
	while (!req.done) {
		err = nl_recvmsgs(nl.sk, cb);
		if (err < 0 && !req.done) {
			fprintf(stderr, "%sError: %s.\n", ctl.where, nl_geterror(err));
			req.err = -EIO;
			break;
		}
	}
	nl_cb_put(cb);
	return req.err;
}

int ctl_listen(int maxattr, ctl_parse_t parse, void *arg)
{
	struct ctl_req req = { .maxattr = maxattr, .parse = parse, .arg = arg };
	int group, err;

	ctl_parsed();
	group = genl_ctrl_resolve_grp(nl.sk, NETSLICE_FAMILY_NAME, NETSLICE_MCGRP_MONITOR);
	if (group < 0) {
		fprintf(stderr, "netslicectl: no multicast group \"%s\": %s\n",
			NETSLICE_MCGRP_MONITOR, nl_geterror(group));
		return -ENOENT;
	}
	err = nl_socket_add_membership(nl.sk, group);
	if (err < 0) {
		fprintf(stderr, "netslicectl: cannot join the monitor group: %s\n",
			nl_geterror(err));
		return -EIO;
	}
	nl_socket_disable_seq_check(nl.sk);
	nl_socket_modify_cb(nl.sk, NL_CB_VALID, NL_CB_CUSTOM, ctl_on_valid, &req);
	for (;;) {
		err = nl_recvmsgs_default(nl.sk);
		if (err < 0 && err != -NLE_INTR) {
			fprintf(stderr, "netslicectl: %s\n", nl_geterror(err));
			return -EIO;
		}
	}
}

void ctl_mark(char *const *word)
{
	if (ctl.conf && word >= ctl.conf->word && word < ctl.conf->word + ctl.conf->n)
		ctl.word = (unsigned int)(word - ctl.conf->word);
}

int ctl_usage_error(const char *fmt, ...)
{
	char where[512], *text = NULL;
	va_list ap;

	va_start(ap, fmt);
	if (vasprintf(&text, fmt, ap) < 0)
		text = NULL;
	va_end(ap);
	/* The user's words are in it: shown escaped (msg.h). */
	if (ctl.conf) {
		conf_where(ctl.conf, ctl.word, where, sizeof(where));
		msg_line("netslicectl: %s: %s (see netslicectl --help)", where,
			 text ? text : "out of memory");
	} else {
		msg_line("%snetslicectl: %s (see netslicectl --help)", ctl.where,
			 text ? text : "out of memory");
	}
	free(text);
	return CTL_EXIT_USAGE;
}

int ctl_range(const char *what, const char *s, uint32_t min, uint32_t max, uint32_t *out)
{
	unsigned long v;

	if (!s || conf_uint(s, min, max, true, &v)) {
		ctl_usage_error("%s: \"%s\" is not a number from %u to %u", what, s ? s : "", min,
				max);
		return -1;
	}
	*out = (uint32_t)v;
	return 0;
}

int ctl_u32(const char *what, const char *s, uint32_t max, uint32_t *out)
{
	return ctl_range(what, s, 0, max, out);
}

bool ctl_is(const char *arg, const char *word)
{
	return arg && !strcmp(arg, word);
}

int ctl_on_off(const char *what, const char *s, bool *out)
{
	if (ctl_is(s, "on") || ctl_is(s, "off")) {
		*out = ctl_is(s, "on");
		return 0;
	}
	ctl_usage_error("%s: say on or off, not \"%s\"", what, s ? s : "");
	return -1;
}
