// SPDX-License-Identifier: GPL-2.0
/*
 * nsfuzz netlink thread: messages to the "netslice" generic netlink
 * family over a raw socket (libnl would refuse to build the broken ones):
 * every command, valid attributes and malformed ones (wrong lengths and
 * types, truncated headers, unknown attributes, bogus nesting), dumps,
 * and valid attach/detach of the fuzz interfaces now and then. Every reply
 * is drained and scanned for kernel addresses.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <linux/netslice_netlink.h>

#include "fuzz.h"

#define MSG_MAX	4096

struct nl_thread {
	struct fz_rng rng;
	int sock;
	uint16_t family;
	uint32_t seq;
	unsigned char msg[MSG_MAX];
	unsigned char reply[65536];
};

size_t fz_nla_put(unsigned char *p, size_t room, uint16_t type, const void *data, size_t len)
{
	struct nlattr *a = (struct nlattr *)p;
	size_t total = NLA_ALIGN(NLA_HDRLEN + len);

	if (total > room)
		return 0;
	a->nla_type = type;
	a->nla_len = (uint16_t)(NLA_HDRLEN + len);
	memcpy(p + NLA_HDRLEN, data, len);
	memset(p + NLA_HDRLEN + len, 0, total - NLA_HDRLEN - len);
	return total;
}

/* A plausible payload for attribute @type of some command, or garbage. */
static size_t attr_payload(struct nl_thread *t, unsigned char *buf, uint16_t type)
{
	struct fz_rng *r = &t->rng;
	uint32_t v;
	const char *name;

	switch (fz_below(r, 6)) {
	case 0:	/* u32: an ifindex, a slice, a port, a mode */
		v = fz_chance(r, 50) ? fz.ifindex[fz_below(r, 4)] : fz_below(r, fz.nslices + 2);
		if (fz_chance(r, 10))
			v = (uint32_t)fz_next(r);
		memcpy(buf, &v, 4);
		return 4;
	case 1:	/* a name, NUL-terminated or not */
		name = fz.link[fz_below(r, 2)];
		if (fz_chance(r, 20))
			name = "0-1,3";	/* a CPU list */
		memcpy(buf, name, strlen(name) + 1);
		return strlen(name) + !fz_chance(r, 10);
	case 2:	/* an address: 4 or 16 bytes, or neither */
		for (v = 0; v < 16; v++)
			buf[v] = (unsigned char)fz_next(r);
		return fz_chance(r, 80) ? (fz_chance(r, 50) ? 4 : 16) : fz_below(r, 20);
	case 3:	/* u8 or u16 */
		buf[0] = (unsigned char)fz_below(r, 4);
		buf[1] = 0;
		return 1 + fz_below(r, 2);
	case 4:	/* a nest of anything */
		return fz_nla_put(buf, 64, (uint16_t)(type | NLA_F_NESTED), "\1\0\0\0", 4);
	default: /* any bytes */
		v = fz_below(r, 40);
		for (uint32_t i = 0; i < v; i++)
			buf[i] = (unsigned char)fz_next(r);
		return v;
	}
}

/* Returns the length of a random request in t->msg. */
static size_t build_random(struct nl_thread *t)
{
	struct fz_rng *r = &t->rng;
	struct nlmsghdr *nh = (struct nlmsghdr *)t->msg;
	struct genlmsghdr *gh = NLMSG_DATA(nh);
	size_t len = NLMSG_HDRLEN + GENL_HDRLEN;
	unsigned int i, nattrs = fz_below(r, 8);
	unsigned char payload[64];

	memset(t->msg, 0, len);
	nh->nlmsg_type = fz_chance(r, 97) ? t->family : (uint16_t)fz_next(r);
	nh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
	if (fz_chance(r, 15))
		nh->nlmsg_flags |= NLM_F_DUMP;
	if (fz_chance(r, 5))
		nh->nlmsg_flags = (uint16_t)fz_next(r) | NLM_F_REQUEST;
	nh->nlmsg_seq = ++t->seq;
	gh->cmd = fz_chance(r, 90) ? (uint8_t)(1 + fz_below(r, NETSLICE_CMD_MAX))
				   : (uint8_t)fz_next(r);
	gh->version = fz_chance(r, 95) ? NETSLICE_FAMILY_VERSION : (uint8_t)fz_next(r);
	for (i = 0; i < nattrs; i++) {
		uint16_t type = fz_chance(r, 90) ? (uint16_t)(1 + fz_below(r, 17))
						 : (uint16_t)fz_next(r);
		size_t plen = attr_payload(t, payload, type);

		len += fz_nla_put(t->msg + len, sizeof(t->msg) - len, type, payload, plen);
	}
	nh->nlmsg_len = (uint32_t)len;
	/* Lie about lengths now and then: the attribute's, or the message's. */
	if (nattrs && fz_chance(r, 5)) {
		struct nlattr *a = (struct nlattr *)(t->msg + NLMSG_HDRLEN + GENL_HDRLEN);

		a->nla_len = (uint16_t)fz_below(r, 600);
	}
	if (fz_chance(r, 3))
		nh->nlmsg_len = fz_below(r, (uint32_t)len + 16);
	return len;
}

static size_t build_link(struct nl_thread *t);

static size_t put_u32(unsigned char *p, size_t room, uint16_t type, uint32_t v)
{
	return fz_nla_put(p, room, type, &v, 4);
}

/* Now and then a bit the module does not know, for the policy to refuse. */
static size_t put_bitfield32(unsigned char *p, size_t room, uint16_t type, uint32_t value,
			     uint32_t selector)
{
	struct nla_bitfield32 bf = { .value = value, .selector = selector };

	return fz_nla_put(p, room, type, &bf, sizeof(bf));
}

static size_t put_u16(unsigned char *p, size_t room, uint16_t type, uint16_t v)
{
	return fz_nla_put(p, room, type, &v, 2);
}

static size_t put_u8(unsigned char *p, size_t room, uint16_t type, uint8_t v)
{
	return fz_nla_put(p, room, type, &v, 1);
}

/*
 * One rule, mostly what the policy accepts, in a NETSLICE_A_RULES_RULE
 * nest; op: a rule-batch nest's NETSLICE_RULE_OP_*, or -1.
 */
static size_t put_rule(struct nl_thread *t, unsigned char *p, size_t room, int op)
{
	struct fz_rng *r = &t->rng;
	unsigned char addr[16];
	uint8_t family = (uint8_t)fz_below(r, 4);
	size_t alen = family == 2 ? 16 : 4, len = NLA_HDRLEN;
	struct nlattr *nest = (struct nlattr *)p;

	if (room < 256)
		return 0;
	for (size_t i = 0; i < sizeof(addr); i++)
		addr[i] = (unsigned char)fz_below(r, 4);
	if (op >= 0)
		len += put_u8(p + len, room - len, NETSLICE_A_RULE_OP, (uint8_t)op);
	if (fz_chance(r, 30))
		len += put_u32(p + len, room - len, NETSLICE_A_RULE_ID, 1 + fz_below(r, 64));
	len += put_u8(p + len, room - len, NETSLICE_A_RULE_FAMILY, family);
	if (fz_chance(r, 70))
		len += put_u8(p + len, room - len, NETSLICE_A_RULE_PROTO,
			      fz_chance(r, 50) ? 17 : (uint8_t)fz_below(r, 256));
	if (fz_chance(r, 50))
		len += fz_nla_put(p + len, room - len, NETSLICE_A_RULE_SRC, addr,
				fz_chance(r, 90) ? alen : fz_below(r, 17));
	if (fz_chance(r, 50))
		len += put_u8(p + len, room - len, NETSLICE_A_RULE_SRC_LEN, (uint8_t)fz_below(r, 140));
	if (fz_chance(r, 50))
		len += fz_nla_put(p + len, room - len, NETSLICE_A_RULE_DST, addr, alen);
	if (fz_chance(r, 50))
		len += put_u16(p + len, room - len, NETSLICE_A_RULE_DPORT_MIN, (uint16_t)fz_below(r, 100));
	if (fz_chance(r, 50))
		len += put_u16(p + len, room - len, NETSLICE_A_RULE_DPORT_MAX, (uint16_t)fz_below(r, 100));
	if (fz_chance(r, 30))
		len += put_u16(p + len, room - len, NETSLICE_A_RULE_SPORT_MIN, (uint16_t)fz_next(r));
	if (fz_chance(r, 30))
		len += put_u32(p + len, room - len, NETSLICE_A_RULE_PREF, fz_below(r, 1000));
	len += put_u32(p + len, room - len, NETSLICE_A_RULE_SLICE, fz_below(r, fz.nslices + 1));
	nest->nla_type = NETSLICE_A_RULES_RULE | NLA_F_NESTED;
	nest->nla_len = (uint16_t)len;
	return NLA_ALIGN(len);
}

/*
 * The exact rule of the traffic thread's hot flow (FZ_HOT_*), to a random
 * slice: replaced back to back, it moves a flow that is running.
 */
static size_t put_hot_rule(struct nl_thread *t, unsigned char *p, size_t room, int op)
{
	static const unsigned char src[4] = FZ_HOT_SRC, dst[4] = FZ_HOT_DST;
	struct nlattr *nest = (struct nlattr *)p;
	size_t len = NLA_HDRLEN;

	if (room < 256)
		return 0;
	if (op >= 0)
		len += put_u8(p + len, room - len, NETSLICE_A_RULE_OP, (uint8_t)op);
	len += put_u8(p + len, room - len, NETSLICE_A_RULE_FAMILY, NETSLICE_RULE_FAMILY_IPV4);
	len += put_u8(p + len, room - len, NETSLICE_A_RULE_PROTO, 17);
	len += fz_nla_put(p + len, room - len, NETSLICE_A_RULE_SRC, src, 4);
	len += fz_nla_put(p + len, room - len, NETSLICE_A_RULE_DST, dst, 4);
	len += put_u16(p + len, room - len, NETSLICE_A_RULE_SPORT_MIN, FZ_HOT_SPORT);
	len += put_u16(p + len, room - len, NETSLICE_A_RULE_SPORT_MAX, FZ_HOT_SPORT);
	len += put_u16(p + len, room - len, NETSLICE_A_RULE_DPORT_MIN, FZ_HOT_DPORT);
	len += put_u16(p + len, room - len, NETSLICE_A_RULE_DPORT_MAX, FZ_HOT_DPORT);
	len += put_u32(p + len, room - len, NETSLICE_A_RULE_SLICE, fz_below(&t->rng, fz.nslices));
	nest->nla_type = NETSLICE_A_RULES_RULE | NLA_F_NESTED;
	nest->nla_len = (uint16_t)len;
	return NLA_ALIGN(len);
}

/*
 * Rule changes while the hot flow runs: its rule replaced (added first if
 * a flush or a delete took it), or a rule-batch of ops on it and on
 * random rules, applied all or none.
 */
static size_t build_rule_churn(struct nl_thread *t, struct genlmsghdr *gh)
{
	struct fz_rng *r = &t->rng;
	size_t len = NLMSG_HDRLEN + GENL_HDRLEN;
	unsigned char *p = t->msg;

	if (fz_chance(r, 60)) {
		gh->cmd = fz_chance(r, 90) ? NETSLICE_CMD_RULE_REPLACE : NETSLICE_CMD_RULE_ADD;
		len += put_hot_rule(t, p + len, MSG_MAX - len, -1);
		return len;
	}
	gh->cmd = NETSLICE_CMD_RULE_BATCH;
	for (unsigned int i = 1 + fz_below(r, 6); i; i--) {
		int op = NETSLICE_RULE_OP_ADD + (int)fz_below(r, 3);

		if (fz_chance(r, 50))
			len += put_hot_rule(t, p + len, MSG_MAX - len, op);
		else
			len += put_rule(t, p + len, MSG_MAX - len, op);
	}
	return len;
}

/*
 * A request the policies accept (most of the time): every command with the
 * attributes it takes, so that the fuzzer reaches the handlers, not only
 * the attribute validation.
 */
static size_t build_valid(struct nl_thread *t)
{
	struct fz_rng *r = &t->rng;
	struct nlmsghdr *nh = (struct nlmsghdr *)t->msg;
	struct genlmsghdr *gh = NLMSG_DATA(nh);
	size_t len = NLMSG_HDRLEN + GENL_HDRLEN;
	unsigned char *p = t->msg;
	uint32_t slice = fz_below(r, fz.nslices + 1);
	bool next;
	static const char *const cpus[] = { "0", "1", "0-1", "0,1", "5", "", "1-0", "0-4095" };

	memset(t->msg, 0, len);
	nh->nlmsg_type = t->family;
	nh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
	nh->nlmsg_seq = ++t->seq;
	gh->version = NETSLICE_FAMILY_VERSION;
	if (fz_chance(r, 25)) {
		len = build_rule_churn(t, gh);
		nh->nlmsg_len = (uint32_t)len;
		return len;
	}
	gh->cmd = (uint8_t)(1 + fz_below(r, NETSLICE_CMD_RULE_FLUSH));
#define ROOM (MSG_MAX - len)
	switch (gh->cmd) {
	case NETSLICE_CMD_LINK_GET:
	case NETSLICE_CMD_RULE_GET:
		nh->nlmsg_flags |= NLM_F_DUMP;
		break;
	case NETSLICE_CMD_SLICE_GET:
	case NETSLICE_CMD_STATS_GET:
		if (fz_chance(r, 50)) {
			nh->nlmsg_flags |= NLM_F_DUMP;
			break;
		}
		/* fall through */
	case NETSLICE_CMD_STATS_RESET:
		len += put_u32(p + len, ROOM, NETSLICE_A_SLICE_ID, slice);
		break;
	case NETSLICE_CMD_SLICE_SET:
		len += put_u32(p + len, ROOM, NETSLICE_A_SLICE_ID, slice);
		if (fz_chance(r, 20)) {
			const char *list = cpus[fz_below(r, 8)];

			len += fz_nla_put(p + len, ROOM, NETSLICE_A_SLICE_KERNEL_CPUS, list,
					strlen(list) + 1);
		}
		if (fz_chance(r, 20))
			len += fz_nla_put(p + len, ROOM, NETSLICE_A_SLICE_USER_CPUS, "0", 2);
		if (fz_chance(r, 50))
			len += put_u32(p + len, ROOM, NETSLICE_A_SLICE_CUT_MODE, fz_below(r, 3));
		if (fz_chance(r, 30))
			len += put_u32(p + len, ROOM, NETSLICE_A_SLICE_CUT_LENGTH, fz_below(r, 600));
		if (fz_chance(r, 30))
			len += put_u32(p + len, ROOM, NETSLICE_A_SLICE_CUT_EXTRA, fz_below(r, 300));
		if (fz_chance(r, 30))
			len += put_u8(p + len, ROOM, NETSLICE_A_SLICE_CUT_TRIM, (uint8_t)fz_below(r, 2));
		if (fz_chance(r, 30))
			len += put_bitfield32(p + len, ROOM, NETSLICE_A_SLICE_BATCH_FLAGS,
					      fz_below(r, 8), fz_below(r, 8));
		if (fz_chance(r, 30))
			len += put_u32(p + len, ROOM, NETSLICE_A_SLICE_BATCH_MAX, fz_below(r, 1100));
		/* Resizes race RX (page_pool skbs where XDP runs), reads and rings. */
		if (fz_chance(r, 20))
			len += put_u32(p + len, ROOM, NETSLICE_A_SLICE_RXQ_SIZE, 1u << fz_below(r, 14));
		if (fz_chance(r, 10))
			len += put_u32(p + len, ROOM, NETSLICE_A_SLICE_STORE_SIZE, 1 + fz_below(r, 512));
		/*
		 * Chains come and go under the writers (chain.c checks the
		 * answers); now and then both, which contradict each other.
		 */
		next = fz_chance(r, 25);
		if (next)
			len += put_u32(p + len, ROOM, NETSLICE_A_SLICE_CHAIN_NEXT, fz_pick_next(r, slice));
		if (fz_chance(r, next ? 10 : 15))
			len += fz_nla_put(p + len, ROOM, NETSLICE_A_SLICE_CHAIN_END, "", 0);
		break;
	case NETSLICE_CMD_RULE_ADD:
	case NETSLICE_CMD_RULE_DEL:
	case NETSLICE_CMD_RULE_REPLACE:
		for (unsigned int i = 1 + fz_below(r, 4); i; i--)
			len += put_rule(t, p + len, ROOM, -1);
		break;
	case NETSLICE_CMD_RULE_FLUSH:
		break;
	default:	/* link attach and detach */
		return build_link(t);
	}
#undef ROOM
	nh->nlmsg_len = (uint32_t)len;
	return len;
}

/* A valid attach or detach of the fuzz pair, so that links come and go. */
static size_t build_link(struct nl_thread *t)
{
	struct nlmsghdr *nh = (struct nlmsghdr *)t->msg;
	struct genlmsghdr *gh = NLMSG_DATA(nh);
	size_t len = NLMSG_HDRLEN + GENL_HDRLEN;
	bool attach = fz_chance(&t->rng, 50);
	uint32_t first = 0, count = fz.nslices;

	memset(t->msg, 0, len);
	nh->nlmsg_type = t->family;
	nh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
	nh->nlmsg_seq = ++t->seq;
	gh->cmd = attach ? NETSLICE_CMD_LINK_ATTACH : NETSLICE_CMD_LINK_DETACH;
	gh->version = NETSLICE_FAMILY_VERSION;
	len += fz_nla_put(t->msg + len, MSG_MAX - len, NETSLICE_A_LINK_IFNAME, fz.link[0],
			strlen(fz.link[0]) + 1);
	if (attach) {
		len += fz_nla_put(t->msg + len, MSG_MAX - len, NETSLICE_A_LINK_PEER_IFNAME,
				fz.link[1], strlen(fz.link[1]) + 1);
		len += fz_nla_put(t->msg + len, MSG_MAX - len, NETSLICE_A_LINK_SLICE_FIRST,
				&first, 4);
		len += fz_nla_put(t->msg + len, MSG_MAX - len, NETSLICE_A_LINK_SLICE_COUNT,
				&count, 4);
	}
	nh->nlmsg_len = (uint32_t)len;
	return len;
}

size_t fz_genl_header(struct fz_nl_req *q, uint8_t cmd, uint16_t flags)
{
	struct nlmsghdr *nh = (struct nlmsghdr *)q->msg;
	struct genlmsghdr *gh = NLMSG_DATA(nh);

	memset(q->msg, 0, NLMSG_HDRLEN + GENL_HDRLEN);
	nh->nlmsg_type = fz.family;
	nh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK | flags;
	gh->cmd = cmd;
	gh->version = NETSLICE_FAMILY_VERSION;
	return NLMSG_HDRLEN + GENL_HDRLEN;
}

int fz_nl_request(struct fz_nl_req *q, size_t len, fz_nl_each *each, void *ctx)
{
	struct nlmsghdr *nh = (struct nlmsghdr *)q->msg;
	struct pollfd p = { .fd = q->sock, .events = POLLIN };

	nh->nlmsg_len = (uint32_t)len;
	nh->nlmsg_seq = ++q->seq;
	if (send(q->sock, q->msg, len, 0) < 0) {
		fz_fail("netlink: send: %s", strerror(errno));
		return -EIO;
	}
	/*
	 * The stop flag ends a wait a lost ack would make endless, after two
	 * seconds of silence: requests after the run (fz_chain_settle()) wait.
	 */
	for (unsigned int idle = 0; !atomic_load(&fz.stop) || idle < 10;) {
		ssize_t n;
		size_t left;

		if (poll(&p, 1, 200) <= 0) {
			idle += atomic_load(&fz.stop);
			continue;
		}
		n = recv(q->sock, q->reply, q->reply_size, 0);
		if (n <= 0)
			continue;
		left = (size_t)n;
		for (nh = (struct nlmsghdr *)q->reply; NLMSG_OK(nh, left); nh = NLMSG_NEXT(nh, left)) {
			if (nh->nlmsg_seq != q->seq)
				continue;	/* an earlier request's, given up on */
			/* A dump ends with NLMSG_DONE and its error, a do with its ack. */
			if (nh->nlmsg_type == NLMSG_ERROR || nh->nlmsg_type == NLMSG_DONE) {
				int err;

				memcpy(&err, NLMSG_DATA(nh), sizeof(err));
				return err;
			}
			if (fz_scan_addrs(NLMSG_DATA(nh), nh->nlmsg_len - NLMSG_HDRLEN, 4))
				fz_fail("netlink: reply (type %u) holds a kernel address",
					nh->nlmsg_type);
			if (each)
				each(nh, ctx);
		}
	}
	return -EINTR;
}

/* Reads every reply there is; each one's bytes are scanned. */
static void drain(struct nl_thread *t)
{
	for (;;) {
		ssize_t n = recv(t->sock, t->reply, sizeof(t->reply), MSG_DONTWAIT);
		struct nlmsghdr *nh;
		size_t left;

		if (n <= 0)
			return;
		left = (size_t)n;
		for (nh = (struct nlmsghdr *)t->reply; NLMSG_OK(nh, left); nh = NLMSG_NEXT(nh, left)) {
			if (nh->nlmsg_type == NLMSG_ERROR) {
				struct nlmsgerr *e = NLMSG_DATA(nh);

				atomic_fetch_add(e->error ? &fz.nl_errors : &fz.nl_acks, 1);
				if (e->error > 0 || e->error < -4095)
					fz_fail("netlink: error code %d", e->error);
				/* The echoed request is ours; the extack after it is not. */
				continue;
			}
			if (nh->nlmsg_type == t->family)
				atomic_fetch_add(&fz.nl_dumps, 1);
			if (fz_scan_addrs(NLMSG_DATA(nh), nh->nlmsg_len - NLMSG_HDRLEN, 4))
				fz_fail("netlink: reply (type %u) holds a kernel address",
					nh->nlmsg_type);
		}
	}
}

static int resolve_family(struct nl_thread *t)
{
	struct {
		struct nlmsghdr nh;
		struct genlmsghdr gh;
		unsigned char attrs[64];
	} req = { 0 };
	size_t len = NLMSG_HDRLEN + GENL_HDRLEN;
	ssize_t n;
	struct nlmsghdr *nh = (struct nlmsghdr *)t->reply;

	req.nh.nlmsg_type = GENL_ID_CTRL;
	req.nh.nlmsg_flags = NLM_F_REQUEST;
	req.gh.cmd = CTRL_CMD_GETFAMILY;
	req.gh.version = 1;
	len += fz_nla_put(req.attrs, sizeof(req.attrs), CTRL_ATTR_FAMILY_NAME,
			NETSLICE_FAMILY_NAME, sizeof(NETSLICE_FAMILY_NAME));
	req.nh.nlmsg_len = (uint32_t)len;
	if (send(t->sock, &req, len, 0) < 0)
		return -1;
	n = recv(t->sock, t->reply, sizeof(t->reply), 0);
	if (n <= 0 || !NLMSG_OK(nh, (size_t)n) || nh->nlmsg_type == NLMSG_ERROR)
		return -1;
	{
		struct nlattr *a = (struct nlattr *)((char *)NLMSG_DATA(nh) + GENL_HDRLEN);
		long left = (long)nh->nlmsg_len - NLMSG_HDRLEN - GENL_HDRLEN;

		while (left >= NLA_HDRLEN && a->nla_len >= NLA_HDRLEN) {
			if (a->nla_type == CTRL_ATTR_FAMILY_ID) {
				memcpy(&t->family, (char *)a + NLA_HDRLEN, 2);
				return 0;
			}
			left -= NLA_ALIGN(a->nla_len);
			a = (struct nlattr *)((char *)a + NLA_ALIGN(a->nla_len));
		}
	}
	return -1;
}

/*
 * Every GET and dump once (links, slices, stats, rules), each reply
 * scanned. Returns the reply messages scanned.
 */
long fz_nl_scan_all(void)
{
	static struct nl_thread t;
	static const uint8_t cmds[] = { NETSLICE_CMD_LINK_GET, NETSLICE_CMD_SLICE_GET,
					NETSLICE_CMD_STATS_GET, NETSLICE_CMD_RULE_GET };
	long before = atomic_load(&fz.nl_dumps);

	t.sock = fz.nl_sock;
	t.family = fz.family;
	for (size_t i = 0; i < sizeof(cmds); i++) {
		struct nlmsghdr *nh = (struct nlmsghdr *)t.msg;
		struct genlmsghdr *gh = NLMSG_DATA(nh);
		struct pollfd p = { .fd = t.sock, .events = POLLIN };

		memset(t.msg, 0, NLMSG_HDRLEN + GENL_HDRLEN);
		nh->nlmsg_len = NLMSG_HDRLEN + GENL_HDRLEN;
		nh->nlmsg_type = t.family;
		nh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK | NLM_F_DUMP;
		nh->nlmsg_seq = ++t.seq;
		gh->cmd = cmds[i];
		gh->version = NETSLICE_FAMILY_VERSION;
		if (send(t.sock, t.msg, nh->nlmsg_len, 0) < 0)
			fz_fail("netlink: dump %u: %s", cmds[i], strerror(errno));
		while (poll(&p, 1, 100) > 0)
			drain(&t);
	}
	return atomic_load(&fz.nl_dumps) - before;
}

int fz_nl_open(void)
{
	static struct nl_thread t;

	t.sock = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
	if (t.sock < 0 || resolve_family(&t)) {
		fprintf(stderr, "nsfuzz: no \"%s\" generic netlink family\n", NETSLICE_FAMILY_NAME);
		return -1;
	}
	fz.nl_sock = t.sock;
	fz.family = t.family;
	return 0;
}

void *fz_nl_thread(void *arg)
{
	static struct nl_thread t;	/* one thread; too big for its stack */

	(void)arg;

	t.rng.s = fz.seed ^ 0x6e6c;
	t.sock = fz.nl_sock;
	t.family = fz.family;
	while (!atomic_load(&fz.stop) && atomic_load(&fz.nl_msgs) < fz.nl_target) {
		unsigned int kind = fz_below(&t.rng, 100);
		size_t len = kind < 2 ? build_link(&t) : kind < 50 ? build_valid(&t) : build_random(&t);

		if (send(t.sock, t.msg, len, 0) < 0 && errno != EINVAL && errno != ENOBUFS)
			fz_fail("netlink send: errno %d (%s)", errno, strerror(errno));
		atomic_fetch_add(&fz.nl_msgs, 1);
		drain(&t);
	}
	return NULL;
}
