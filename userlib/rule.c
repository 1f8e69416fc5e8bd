// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * Steering rules from the data path's owners: an NF installs the rule for
 * a connection's return flow as it opens the connection.
 *
 * A handle is one generic netlink socket with a request being built: one
 * handle per worker thread, so no locks. Changes queue in the request and
 * go to the kernel as one rule-batch, applied all or none and seen by RX
 * at once; a full request goes by itself. Raw netlink, no libnl: the
 * library keeps no dependency beyond libc.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include <sys/socket.h>
#include <unistd.h>

#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <linux/netslice_netlink.h>

#include "internal.h"
#include "netslice.h"
#include "rule_nest.h"

_Static_assert((int)NS_RULE_ADD == (int)NETSLICE_RULE_OP_ADD &&
	       (int)NS_RULE_DEL == (int)NETSLICE_RULE_OP_DEL &&
	       (int)NS_RULE_REPLACE == (int)NETSLICE_RULE_OP_REPLACE, "ns_rule_op is the uapi's");

/* One request's room: some 100 bytes a rule, so a few hundred rules. */
#define NS_RULES_MSG	32768

struct ns_rules {
	int fd;
	uint16_t family;		/* the netslice family's id */
	uint32_t seq;
	unsigned int queued;		/* rule nests in msg */
	char why[256];			/* the kernel's reason for the last refusal */
	union {
		struct nlmsghdr nh;
		unsigned char bytes[NS_RULES_MSG];
	} msg;
};

static struct nlattr *ns_nl_tail(struct nlmsghdr *nh)
{
	return (struct nlattr *)((char *)nh + NLMSG_ALIGN(nh->nlmsg_len));
}

static void ns_nl_put(struct nlmsghdr *nh, uint16_t type, const void *data, size_t len)
{
	nh->nlmsg_len = (uint32_t)(ns_nla_put((char *)ns_nl_tail(nh), type, data, len) - (char *)nh);
}

static void ns_nl_start(struct ns_rules *r, uint16_t type, uint8_t cmd, uint16_t flags)
{
	struct genlmsghdr *gh = NLMSG_DATA(&r->msg.nh);

	r->msg.nh = (struct nlmsghdr){
		.nlmsg_len = NLMSG_LENGTH(GENL_HDRLEN),
		.nlmsg_type = type,
		.nlmsg_flags = NLM_F_REQUEST | flags,
		.nlmsg_seq = ++r->seq,
	};
	*gh = (struct genlmsghdr){ .cmd = cmd, .version = NETSLICE_FAMILY_VERSION };
}

/* A negative errno in the library's convention (errno set). */
static int ns_rules_err(int err)
{
	return err < 0 ? ns_fail(-err) : err;
}

/* The attributes after a netlink message's fixed header of hdrlen bytes. */
static const struct nlattr *ns_nl_attr(const struct nlmsghdr *nh, size_t hdrlen, uint16_t type)
{
	const struct nlattr *a = (const struct nlattr *)((const char *)NLMSG_DATA(nh) +
							 NLMSG_ALIGN(hdrlen));
	long left = (long)nh->nlmsg_len - NLMSG_HDRLEN - (long)NLMSG_ALIGN(hdrlen);

	for (; left >= NLA_HDRLEN && a->nla_len >= NLA_HDRLEN && a->nla_len <= left;
	     left -= NLA_ALIGN(a->nla_len),
	     a = (const struct nlattr *)((const char *)a + NLA_ALIGN(a->nla_len)))
		if ((a->nla_type & NLA_TYPE_MASK) == type)
			return a;
	return NULL;
}

/* An NLMSG_ERROR's error, its extended ack's message copied to why. */
static int ns_nl_error(const struct nlmsghdr *nh, char *why, size_t size)
{
	const struct nlmsgerr *e = NLMSG_DATA(nh);
	const struct nlattr *msg;
	size_t hdrlen = sizeof(*e);

	if (nh->nlmsg_len < NLMSG_LENGTH(sizeof(*e)))
		return -EPROTO;
	if (!(nh->nlmsg_flags & NLM_F_CAPPED))
		hdrlen += e->msg.nlmsg_len - NLMSG_HDRLEN;
	msg = nh->nlmsg_flags & NLM_F_ACK_TLVS ? ns_nl_attr(nh, hdrlen, NLMSGERR_ATTR_MSG) : NULL;
	if (msg && msg->nla_len > NLA_HDRLEN)
		snprintf(why, size, "%.*s", (int)(msg->nla_len - NLA_HDRLEN),
			 (const char *)msg + NLA_HDRLEN);
	return e->error;
}

/* The ack of request seq: its error (0: done), the kernel's reason in r->why. */
static int ns_nl_ack(struct ns_rules *r, uint32_t seq, uint16_t *family)
{
	char reply[8192] __attribute__((aligned(NLMSG_ALIGNTO)));
	ssize_t n;

	for (;;) {
		n = recv(r->fd, reply, sizeof(reply), 0);
		if (n < 0)
			return errno == EINTR ? -EINTR : -errno;
		for (struct nlmsghdr *nh = (struct nlmsghdr *)reply; NLMSG_OK(nh, (size_t)n);
		     nh = NLMSG_NEXT(nh, n)) {
			if (nh->nlmsg_seq != seq)
				continue;
			if (nh->nlmsg_type == NLMSG_ERROR)
				return ns_nl_error(nh, r->why, sizeof(r->why));
			if (family && nh->nlmsg_type == GENL_ID_CTRL) {
				const struct nlattr *id = ns_nl_attr(nh, GENL_HDRLEN,
								     CTRL_ATTR_FAMILY_ID);

				if (id && id->nla_len >= NLA_HDRLEN + sizeof(*family))
					memcpy(family, (const char *)id + NLA_HDRLEN,
					       sizeof(*family));
			}
		}
	}
}

int ns_rules_open(struct ns_rules **rp)
{
	static const int one = 1;
	struct ns_rules *r;
	int err;

	r = calloc(1, sizeof(*r));
	if (!r)
		return ns_fail(ENOMEM);
	r->fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
	if (r->fd < 0) {
		err = -errno;
		goto err_free;
	}
	/* The kernel's reason with a refusal; an ack without the request. */
	setsockopt(r->fd, SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof(one));
	setsockopt(r->fd, SOL_NETLINK, NETLINK_CAP_ACK, &one, sizeof(one));
	ns_nl_start(r, GENL_ID_CTRL, CTRL_CMD_GETFAMILY, NLM_F_ACK);
	((struct genlmsghdr *)NLMSG_DATA(&r->msg.nh))->version = 1;
	ns_nl_put(&r->msg.nh, CTRL_ATTR_FAMILY_NAME, NETSLICE_FAMILY_NAME,
		  sizeof(NETSLICE_FAMILY_NAME));
	if (send(r->fd, &r->msg.nh, r->msg.nh.nlmsg_len, 0) < 0) {
		err = -errno;
		goto err_close;
	}
	err = ns_nl_ack(r, r->seq, &r->family);
	if (err)
		goto err_close;
	if (!r->family) {
		err = -ENOENT;
		goto err_close;
	}
	*rp = r;
	return 0;

err_close:
	close(r->fd);
err_free:
	free(r);
	/* The controller answers an unknown family with ENOENT. */
	return ns_rules_err(err);
}

void ns_rules_close(struct ns_rules *r)
{
	if (!r)
		return;
	close(r->fd);
	free(r);
}

const char *ns_rules_why(const struct ns_rules *r)
{
	return r->why;
}

unsigned int ns_rules_queued(const struct ns_rules *r)
{
	return r->queued;
}

int ns_rules_queue(struct ns_rules *r, enum ns_rule_op op, const struct ns_rule *rule)
{
	struct nlmsghdr *nh = &r->msg.nh;
	int err;

	if ((op != NS_RULE_ADD && op != NS_RULE_REPLACE && op != NS_RULE_DEL) ||
	    (rule->family && rule->family != AF_INET && rule->family != AF_INET6))
		return ns_fail(EINVAL);
	if (r->queued && nh->nlmsg_len + NS_RULE_NEST_MAX > sizeof(r->msg)) {
		err = ns_rules_commit(r);
		if (err)
			return err;
	}
	if (!r->queued)
		ns_nl_start(r, r->family, NETSLICE_CMD_RULE_BATCH, NLM_F_ACK);
	nh->nlmsg_len += ns_rule_nest(ns_nl_tail(nh), (int)op, rule,
				      op == NS_RULE_DEL ? 0 : NS_RULE_NEST_SLICE);
	r->queued++;
	return 0;
}

int ns_rules_commit(struct ns_rules *r)
{
	if (!r->queued)
		return 0;
	r->queued = 0;
	r->why[0] = '\0';
	if (send(r->fd, &r->msg.nh, r->msg.nh.nlmsg_len, 0) < 0)
		return ns_fail(errno);
	return ns_rules_err(ns_nl_ack(r, r->msg.nh.nlmsg_seq, NULL));
}

/* One change, alone in its request. */
static int ns_rule_one(struct ns_rules *r, enum ns_rule_op op, const struct ns_rule *rule)
{
	int err;

	if (r->queued)
		return ns_fail(EBUSY);
	err = ns_rules_queue(r, op, rule);
	return err ? err : ns_rules_commit(r);
}

int ns_rule_add(struct ns_rules *r, const struct ns_rule *rule)
{
	return ns_rule_one(r, NS_RULE_ADD, rule);
}

int ns_rule_replace(struct ns_rules *r, const struct ns_rule *rule)
{
	return ns_rule_one(r, NS_RULE_REPLACE, rule);
}

int ns_rule_del(struct ns_rules *r, const struct ns_rule *rule)
{
	return ns_rule_one(r, NS_RULE_DEL, rule);
}

void ns_rule_of_flow(struct ns_rule *rule, const struct ns_flow *flow, uint32_t slice)
{
	unsigned int bits = flow->family == AF_INET6 ? 128 : 32;

	memset(rule, 0, sizeof(*rule));
	rule->family = flow->family;
	rule->proto = flow->proto;
	memcpy(rule->src, flow->saddr, sizeof(rule->src));
	memcpy(rule->dst, flow->daddr, sizeof(rule->dst));
	rule->src_len = rule->dst_len = (uint8_t)bits;
	rule->sport_min = rule->sport_max = ntohs(flow->sport);
	rule->dport_min = rule->dport_max = ntohs(flow->dport);
	rule->slice = slice;
}
