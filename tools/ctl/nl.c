// SPDX-License-Identifier: GPL-2.0
/*
 * The netlink side of netslicectl: one libnl socket to the netslice
 * family, requests answered by acks that carry the kernel's extended
 * ack message, and the attribute offsets of an error mapped back to what
 * the user named.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/netlink.h>
#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>
#include <netlink/socket.h>

#include <linux/netslice_netlink.h>

#include "msg.h"
#include "nl.h"
#include "usage.h"

static struct {
	struct nl_sock *sk;
	int family;
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

void ctl_close(void)
{
	nl_socket_free(nl.sk);
	nl.sk = NULL;
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

/* A request in flight. */
struct ctl_ack {
	struct ctl_req *req;
	int err;		/* the ack's errno, negative */
	int done;
};

static int ctl_on_error(struct sockaddr_nl *nla, struct nlmsgerr *e, void *arg)
{
	const struct nlmsghdr *nlh = (const void *)((const char *)e - NLMSG_HDRLEN);
	struct nlattr *tb[NLMSGERR_ATTR_MAX + 1] = { 0 };
	struct ctl_ack *ack = arg;
	const char *msg = NULL, *subject;
	unsigned int off = 0;
	bool known = false;
	char buf[600];
	int len;

	(void)nla;
	ack->err = e->error;
	ack->done = 1;
	if (!e->error)
		return NL_STOP;
	len = (int)nlh->nlmsg_len - NLMSG_HDRLEN - (int)sizeof(*e);
	if (nlh->nlmsg_flags & NLM_F_ACK_TLVS && len > 0 &&
	    !nla_parse(tb, NLMSGERR_ATTR_MAX, (struct nlattr *)(e + 1), len, NULL)) {
		if (tb[NLMSGERR_ATTR_MSG])
			msg = nla_get_string(tb[NLMSGERR_ATTR_MSG]);
		known = tb[NLMSGERR_ATTR_OFFS];
		if (known)
			off = nla_get_u32(tb[NLMSGERR_ATTR_OFFS]);
	}
	subject = ctl_subject_at(ack->req, off, known, buf, sizeof(buf));
	msg_line("%sError: %s%s%s.", usage_at.where, subject ? subject : "", subject ? ": " : "",
		 msg ? msg : strerror(-e->error));
	return NL_STOP;
}

static int ctl_on_ack(struct nl_msg *msg, void *arg)
{
	struct ctl_ack *ack = arg;

	(void)msg;
	ack->done = 1;
	return NL_STOP;
}

static int ctl_on_valid(struct nl_msg *msg, void *arg)
{
	struct nlmsghdr *nlh = nlmsg_hdr(msg);
	struct genlmsghdr *gh = nlmsg_data(nlh);
	struct nlattr *tb[64] = { 0 };
	struct ctl_req *req = ((struct ctl_ack *)arg)->req;

	if (!req->row || req->maxattr >= 64)
		return NL_OK;
	if (genlmsg_parse(nlh, 0, tb, req->maxattr, NULL) < 0)
		return NL_SKIP;
	return req->row(tb, gh->cmd, req) ? NL_STOP : NL_OK;
}

static int ctl_on_done(struct nl_msg *msg, void *arg)
{
	struct nlmsghdr *nlh = nlmsg_hdr(msg);
	struct nlattr *tb[NLMSGERR_ATTR_MAX + 1];
	struct ctl_ack *ack = arg;
	int *err = nlmsg_data(nlh);
	const char *why = NULL;
	int len;

	/* A dump that failed says so, and why, in its DONE message. */
	if (nlh->nlmsg_len >= NLMSG_HDRLEN + sizeof(int) && *err < 0) {
		ack->err = *err;
		len = (int)nlh->nlmsg_len - NLMSG_HDRLEN - (int)sizeof(int);
		if (nlh->nlmsg_flags & NLM_F_ACK_TLVS && len > 0 &&
		    !nla_parse(tb, NLMSGERR_ATTR_MAX, (struct nlattr *)(err + 1), len, NULL) &&
		    tb[NLMSGERR_ATTR_MSG])
			why = nla_get_string(tb[NLMSGERR_ATTR_MSG]);
		fprintf(stderr, "%sError: %s.\n", usage_at.where, why ? why : strerror(-*err));
	}
	ack->done = 1;
	return NL_STOP;
}

int ctl_send(struct ctl_req *req)
{
	struct ctl_ack ack = { .req = req };
	struct nlmsghdr *nlh = nlmsg_hdr(req->msg);
	struct nl_cb *cb;
	int err;

	nlh->nlmsg_type = (uint16_t)nl.family;
	/* A dump ends with DONE; anything else is acked. */
	if (!(nlh->nlmsg_flags & NLM_F_DUMP))
		nlh->nlmsg_flags |= NLM_F_ACK;
	err = nl_send_auto(nl.sk, req->msg);
	nlmsg_free(req->msg);
	req->msg = NULL;
	if (err < 0) {
		fprintf(stderr, "%sError: cannot send the request: %s.\n", usage_at.where,
			nl_geterror(err));
		return -EIO;
	}
	cb = nl_cb_alloc(NL_CB_DEFAULT);
	if (!cb)
		return -ENOMEM;
	nl_cb_err(cb, NL_CB_CUSTOM, ctl_on_error, &ack);
	nl_cb_set(cb, NL_CB_ACK, NL_CB_CUSTOM, ctl_on_ack, &ack);
	nl_cb_set(cb, NL_CB_FINISH, NL_CB_CUSTOM, ctl_on_done, &ack);
	nl_cb_set(cb, NL_CB_VALID, NL_CB_CUSTOM, ctl_on_valid, &ack);
	while (!ack.done) {
		err = nl_recvmsgs(nl.sk, cb);
		if (err < 0 && !ack.done) {
			fprintf(stderr, "%sError: %s.\n", usage_at.where, nl_geterror(err));
			ack.err = -EIO;
			break;
		}
	}
	nl_cb_put(cb);
	return ack.err;
}

int ctl_listen(struct ctl_req *req)
{
	struct ctl_ack ack = { .req = req };
	int group, err;

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
	nl_socket_modify_cb(nl.sk, NL_CB_VALID, NL_CB_CUSTOM, ctl_on_valid, &ack);
	for (;;) {
		err = nl_recvmsgs_default(nl.sk);
		if (err < 0 && err != -NLE_INTR) {
			fprintf(stderr, "netslicectl: %s\n", nl_geterror(err));
			return -EIO;
		}
	}
}
