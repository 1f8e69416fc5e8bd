// SPDX-License-Identifier: GPL-2.0
/* Raw netlink requests with acks (see nlreq.h). */
#include <errno.h>
#include <string.h>
#include <sys/socket.h>

#include <linux/genetlink.h>

#include "nlreq.h"

static struct nlattr *tail(struct nlreq *req)
{
	return (struct nlattr *)((char *)&req->nh + NLMSG_ALIGN(req->nh.nlmsg_len));
}

void nlreq_init(struct nlreq *req, uint16_t type, uint16_t flags, const void *hdr, size_t len)
{
	memset(req, 0, sizeof(*req));
	req->nh.nlmsg_len = NLMSG_LENGTH(len);
	req->nh.nlmsg_type = type;
	req->nh.nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK | flags;
	memcpy(NLMSG_DATA(&req->nh), hdr, len);
}

void nlreq_put(struct nlreq *req, uint16_t type, const void *data, size_t len)
{
	struct nlattr *a = tail(req);

	a->nla_type = type;
	a->nla_len = (uint16_t)(NLA_HDRLEN + len);
	memcpy((char *)a + NLA_HDRLEN, data, len);
	req->nh.nlmsg_len = NLMSG_ALIGN(req->nh.nlmsg_len) + NLA_ALIGN(a->nla_len);
}

void nlreq_append(struct nlreq *req, const void *data, size_t len)
{
	memcpy(tail(req), data, len);
	req->nh.nlmsg_len = NLMSG_ALIGN(req->nh.nlmsg_len) + NLMSG_ALIGN(len);
}

size_t nlreq_nest(struct nlreq *req, uint16_t type)
{
	size_t at = NLMSG_ALIGN(req->nh.nlmsg_len);

	nlreq_put(req, type | NLA_F_NESTED, NULL, 0);
	return at;
}

void nlreq_end(struct nlreq *req, size_t nest)
{
	struct nlattr *a = (struct nlattr *)((char *)&req->nh + nest);

	a->nla_len = (uint16_t)(req->nh.nlmsg_len - nest);
}

int nlreq_talk(int fd, struct nlreq *req)
{
	static uint32_t seq;
	char reply[8192];
	ssize_t n;

	req->nh.nlmsg_seq = ++seq;
	if (send(fd, &req->nh, req->nh.nlmsg_len, 0) < 0)
		return -errno;
	for (;;) {
		n = recv(fd, reply, sizeof(reply), 0);
		if (n < 0)
			return -errno;
		for (struct nlmsghdr *nh = (struct nlmsghdr *)reply; NLMSG_OK(nh, (size_t)n);
		     nh = NLMSG_NEXT(nh, n)) {
			if (nh->nlmsg_seq == seq && nh->nlmsg_type == NLMSG_ERROR)
				return ((struct nlmsgerr *)NLMSG_DATA(nh))->error;
			/* A reply before the ack: the caller only wants the ack. */
		}
	}
}

int nlreq_get(int fd, struct nlreq *req, size_t hdrlen, uint16_t type, void *val, size_t len)
{
	char reply[8192];
	ssize_t n;

	req->nh.nlmsg_flags &= ~NLM_F_ACK;
	if (send(fd, &req->nh, req->nh.nlmsg_len, 0) < 0)
		return -errno;
	n = recv(fd, reply, sizeof(reply), 0);
	if (n < 0)
		return -errno;
	for (struct nlmsghdr *nh = (struct nlmsghdr *)reply; NLMSG_OK(nh, (size_t)n);
	     nh = NLMSG_NEXT(nh, n)) {
		struct nlattr *a = (struct nlattr *)((char *)NLMSG_DATA(nh) + NLMSG_ALIGN(hdrlen));
		long left = (long)nh->nlmsg_len - NLMSG_HDRLEN - (long)NLMSG_ALIGN(hdrlen);

		if (nh->nlmsg_type == NLMSG_ERROR)
			return ((struct nlmsgerr *)NLMSG_DATA(nh))->error ?: -EPROTO;
		if (nh->nlmsg_type != req->nh.nlmsg_type)
			return -EPROTO;
		for (; left >= NLA_HDRLEN && a->nla_len >= NLA_HDRLEN;
		     left -= NLA_ALIGN(a->nla_len),
		     a = (struct nlattr *)((char *)a + NLA_ALIGN(a->nla_len))) {
			if ((a->nla_type & NLA_TYPE_MASK) != type)
				continue;
			if ((size_t)(a->nla_len - NLA_HDRLEN) < len)
				len = (size_t)(a->nla_len - NLA_HDRLEN);
			memcpy(val, (char *)a + NLA_HDRLEN, len);
			return 1;
		}
	}
	return 0;
}

uint16_t nlreq_genl_family(int fd, const char *name)
{
	struct genlmsghdr gh = { .cmd = CTRL_CMD_GETFAMILY, .version = 1 };
	struct nlreq req;
	uint16_t id = 0;

	nlreq_init(&req, GENL_ID_CTRL, 0, &gh, sizeof(gh));
	nlreq_put(&req, CTRL_ATTR_FAMILY_NAME, name, strlen(name) + 1);
	return nlreq_get(fd, &req, GENL_HDRLEN, CTRL_ATTR_FAMILY_ID, &id, sizeof(id)) == 1 ? id : 0;
}
