// SPDX-License-Identifier: GPL-2.0
/*
 * netslicectl rule: flow-steering rules, one at a time, loaded from a
 * file in one request (all or none), or queued from batch-mode lines into
 * rule-batch requests. A rule is written the same way on the command
 * line, in a file and in `rule show`:
 *
 *   [family ipv4|ipv6] [proto P] [src PREFIX] [dst PREFIX]
 *   [sport N[-M]] [dport N[-M]] [pref N] slice N
 */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/netslice_netlink.h>

#include "conf.h"
#include "ctl.h"
#include "msg.h"
#include "nl.h"
#include "proto.h"
#include "rule.h"
#include "rule_nest.h"
#include "view.h"
#include "word.h"

/* A rule as written; libnetslice's encoder puts it into requests. */
struct ctl_rule {
	struct ns_rule r;		/* family AF_INET or AF_INET6 */
	unsigned int nest_flags;	/* NS_RULE_NEST_*: port ranges given (0-0 too) */
	bool has_slice, has_id;
	uint32_t id;
	unsigned int line;
};

static int ctl_parse_proto(const char *s, uint8_t *proto)
{
	int v = s ? proto_parse(s) : -1;

	if (v < 0 && s && proto_refused(s))
		return CTL_BAD("proto: %s", proto_refused(s));
	if (v < 0)
		return CTL_BAD("proto: \"%s\" is not a protocol (%s, or 0 to 255)", s ? s : "",
			       proto_names());
	*proto = (uint8_t)v;
	return 0;
}

/* An address or prefix; a prefix length 0 leaves only the family (any address). */
static int ctl_parse_prefix(const char *what, const char *s, struct ns_rule *r, uint8_t *addr,
			    uint8_t *len)
{
	const char *slash = strchr(s, '/');
	size_t alen = slash ? (size_t)(slash - s) : strlen(s);
	char buf[INET6_ADDRSTRLEN];
	uint8_t family;
	uint32_t plen;

	if (alen >= sizeof(buf))
		return CTL_BAD("%s \"%s\" is not an IPv4 or IPv6 prefix", what, s);
	memcpy(buf, s, alen);
	buf[alen] = '\0';
	if (inet_pton(AF_INET, buf, addr) == 1)
		family = AF_INET;
	else if (inet_pton(AF_INET6, buf, addr) == 1)
		family = AF_INET6;
	else
		return CTL_BAD("%s \"%s\" is not an IPv4 or IPv6 prefix", what, s);
	if (r->family && r->family != family)
		return CTL_BAD("%s %s: the rule mixes IPv4 and IPv6", what, s);
	r->family = family;
	plen = family == AF_INET ? 32 : 128;
	if (slash && word_u32("prefix length", slash + 1, plen, &plen))
		return -1;
	*len = (uint8_t)plen;
	return 0;
}

static int ctl_parse_ports(const char *what, const char *s, uint16_t *lo, uint16_t *hi)
{
	const char *dash = strchr(s, '-');
	uint32_t v[2];
	char first[8];

	if (dash && (size_t)(dash - s) >= sizeof(first))
		return CTL_BAD("%s: \"%s\" is not a port or range P-Q", what, s);
	if (dash) {
		memcpy(first, s, (size_t)(dash - s));
		first[dash - s] = '\0';
	}
	if (word_u32(what, dash ? first : s, 65535, &v[0]) ||
	    word_u32(what, dash ? dash + 1 : s, 65535, &v[1]))
		return -1;
	if (v[0] > v[1])
		return CTL_BAD("%s %s: the range is backwards", what, s);
	*lo = (uint16_t)v[0];
	*hi = (uint16_t)v[1];
	return 0;
}

/* A rule's words; what rule show prints besides the rule is accepted and ignored. */
enum ctl_rule_word {
	CTL_W_FAMILY, CTL_W_PROTO, CTL_W_SRC, CTL_W_DST, CTL_W_SPORT, CTL_W_DPORT, CTL_W_PREF,
	CTL_W_SLICE, CTL_W_ID, CTL_W_SHOWN,
};

/*
 * A rule word's index, its alias folded in (from = src, to = dst); -1 if
 * none. By first letter: a million-line rule load looks up ten million.
 */
static int ctl_rule_word(const char *key)
{
	static const struct { const char *name; int word; } words[] = {
		{ "dport", CTL_W_DPORT }, { "dst", CTL_W_DST }, { "exact", CTL_W_SHOWN },
		{ "family", CTL_W_FAMILY }, { "from", CTL_W_SRC }, { "hits", CTL_W_SHOWN },
		{ "id", CTL_W_ID }, { "pref", CTL_W_PREF }, { "proto", CTL_W_PROTO },
		{ "slice", CTL_W_SLICE }, { "sport", CTL_W_SPORT }, { "src", CTL_W_SRC },
		{ "to", CTL_W_DST },
	};
	unsigned int i;

	for (i = 0; i < sizeof(words) / sizeof(words[0]) && words[i].name[0] <= key[0]; i++)
		if (words[i].name[0] == key[0] && !strcmp(key, words[i].name))
			return words[i].word;
	return -1;
}

/* Words of a rule; "id N" too when ids are allowed. */
static int ctl_parse_rule(int argc, char **argv, struct ctl_rule *r, bool with_id)
{
	unsigned int seen = 0;
	int i;

	memset(r, 0, sizeof(*r));
	for (i = 0; i < argc; i += 2) {
		const char *key = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;
		int word = ctl_rule_word(key);

		usage_mark(&argv[i]);
		if (!val)
			return CTL_BAD("rule: \"%s\" needs a value", key);
		/* Each word once: a second "dport" is a mistake, not an override. */
		if (word >= 0 && word != CTL_W_SHOWN && (seen & 1U << word))
			return CTL_BAD("rule: \"%s\" given twice", key);
		if (word >= 0)
			seen |= 1U << word;
		switch (word) {
		case CTL_W_FAMILY: {
			uint8_t f = word_is(val, "ipv4") ? AF_INET : word_is(val, "ipv6") ? AF_INET6 : 0;

			if (!f || (r->r.family && r->r.family != f))
				return CTL_BAD("family: say ipv4 or ipv6, once");
			r->r.family = f;
			break;
		}
		case CTL_W_PROTO:
			if (ctl_parse_proto(val, &r->r.proto))
				return -1;
			break;
		case CTL_W_SRC:
			if (ctl_parse_prefix("src", val, &r->r, r->r.src, &r->r.src_len))
				return -1;
			break;
		case CTL_W_DST:
			if (ctl_parse_prefix("dst", val, &r->r, r->r.dst, &r->r.dst_len))
				return -1;
			break;
		case CTL_W_SPORT:
			if (ctl_parse_ports("sport", val, &r->r.sport_min, &r->r.sport_max))
				return -1;
			r->nest_flags |= NS_RULE_NEST_SPORT;
			break;
		case CTL_W_DPORT:
			if (ctl_parse_ports("dport", val, &r->r.dport_min, &r->r.dport_max))
				return -1;
			r->nest_flags |= NS_RULE_NEST_DPORT;
			break;
		case CTL_W_PREF:
			if (word_u32("pref", val, UINT32_MAX, &r->r.pref))
				return -1;
			break;
		case CTL_W_SLICE:
			if (word_u32("slice", val, 255, &r->r.slice))
				return -1;
			r->has_slice = true;
			break;
		case CTL_W_ID:
			if (!with_id)
				return CTL_BAD("rule: unknown word \"%s\"", key);
			/* Rule ids start at 1. */
			if (word_range("id", val, 1, UINT32_MAX, &r->id))
				return -1;
			r->has_id = true;
			break;
		case CTL_W_SHOWN:
			break;
		default:
			return CTL_BAD("rule: unknown word \"%s\"", key);
		}
	}
	return 0;
}

/* One rule nest; op is a NETSLICE_RULE_OP_* for rule-batch, or -1. */
static void ctl_put_rule(struct nl_msg *msg, const struct ctl_rule *r, bool with_slice, int op)
{
	uint32_t nest[NS_RULE_NEST_MAX / sizeof(uint32_t)];
	struct nlattr *by_id;

	if (!r->has_id) {
		nlmsg_append(msg, nest, ns_rule_nest(nest, op, &r->r, r->nest_flags |
				(with_slice ? NS_RULE_NEST_SLICE : 0)), NLMSG_ALIGNTO);
		return;
	}
	by_id = nla_nest_start(msg, NETSLICE_A_RULES_RULE);
	if (op >= 0)
		nla_put_u8(msg, NETSLICE_A_RULE_OP, op);
	nla_put_u32(msg, NETSLICE_A_RULE_ID, r->id);
	nla_nest_end(msg, by_id);
}

/* rule add|del|replace RULE: one rule, one request. */
static int ctl_rule_one(uint8_t cmd, int argc, char **argv, struct ctl_req *req)
{
	bool del = cmd == NETSLICE_CMD_RULE_DEL;
	struct ctl_rule r;

	if (ctl_parse_rule(argc, argv, &r, del))
		return CTL_EXIT_USAGE;
	if (!del && !r.has_slice)
		return usage_error("the rule needs a slice: ... slice N");
	if (!argc)
		return usage_error("say which rule");
	ctl_req_msg(req, cmd, false);
	ctl_subject_begin(req, "rule");
	ctl_put_rule(req->msg, &r, !del, -1);
	ctl_subject_end(req);
	return 0;
}

static void ctl_format_prefix(char *buf, size_t size, uint8_t family, const void *addr,
			      unsigned int len)
{
	char a[INET6_ADDRSTRLEN];

	inet_ntop(family == NETSLICE_RULE_FAMILY_IPV6 ? AF_INET6 : AF_INET, addr, a, sizeof(a));
	snprintf(buf, size, "%s/%u", a, len);
}

static int ctl_rule_row(struct nlattr **tb, uint8_t cmd, struct ctl_req *req)
{
	static const char *const families[] = { "any", "ipv4", "ipv6" };
	uint8_t family = tb[NETSLICE_A_RULE_FAMILY] ? nla_get_u8(tb[NETSLICE_A_RULE_FAMILY]) : 0;
	uint8_t proto = tb[NETSLICE_A_RULE_PROTO] ? nla_get_u8(tb[NETSLICE_A_RULE_PROTO]) : 0;
	char src[64] = "", dst[64] = "", text[256], *p = text, *end = text + sizeof(text);
	uint16_t sp[2] = { 0, 65535 }, dp[2] = { 0, 65535 };
	const char *pname;

	(void)cmd;
	if (family > 2 || !tb[NETSLICE_A_RULE_ID] || !tb[NETSLICE_A_RULE_SLICE])
		return 0;
	if (tb[NETSLICE_A_RULE_SRC] && tb[NETSLICE_A_RULE_SRC_LEN])
		ctl_format_prefix(src, sizeof(src), family, nla_data(tb[NETSLICE_A_RULE_SRC]),
				  nla_get_u8(tb[NETSLICE_A_RULE_SRC_LEN]));
	if (tb[NETSLICE_A_RULE_DST] && tb[NETSLICE_A_RULE_DST_LEN])
		ctl_format_prefix(dst, sizeof(dst), family, nla_data(tb[NETSLICE_A_RULE_DST]),
				  nla_get_u8(tb[NETSLICE_A_RULE_DST_LEN]));
	if (tb[NETSLICE_A_RULE_SPORT_MIN] && tb[NETSLICE_A_RULE_SPORT_MAX]) {
		sp[0] = nla_get_u16(tb[NETSLICE_A_RULE_SPORT_MIN]);
		sp[1] = nla_get_u16(tb[NETSLICE_A_RULE_SPORT_MAX]);
	}
	if (tb[NETSLICE_A_RULE_DPORT_MIN] && tb[NETSLICE_A_RULE_DPORT_MAX]) {
		dp[0] = nla_get_u16(tb[NETSLICE_A_RULE_DPORT_MIN]);
		dp[1] = nla_get_u16(tb[NETSLICE_A_RULE_DPORT_MAX]);
	}
	pname = proto_name(proto);

	if (view.json) {
		json_open(&view.j, NULL, '{');
		json_u64(&view.j, "id", nla_get_u32(tb[NETSLICE_A_RULE_ID]));
		json_str(&view.j, "family", families[family]);
		if (pname)
			json_str(&view.j, "proto", pname);
		else
			json_u64(&view.j, "proto", proto);
		if (*src)
			json_str(&view.j, "src", src);
		if (*dst)
			json_str(&view.j, "dst", dst);
		json_u64(&view.j, "sport_min", sp[0]);
		json_u64(&view.j, "sport_max", sp[1]);
		json_u64(&view.j, "dport_min", dp[0]);
		json_u64(&view.j, "dport_max", dp[1]);
		json_u64(&view.j, "pref", tb[NETSLICE_A_RULE_PREF] ?
			 nla_get_u32(tb[NETSLICE_A_RULE_PREF]) : 0);
		json_u64(&view.j, "slice", nla_get_u32(tb[NETSLICE_A_RULE_SLICE]));
		json_str(&view.j, "table", tb[NETSLICE_A_RULE_EXACT] ? "exact" : "wildcard");
		json_u64(&view.j, "hits", tb[NETSLICE_A_RULE_HITS] ?
			 nla_get_u64(tb[NETSLICE_A_RULE_HITS]) : 0);
		json_close(&view.j, '}');
		return 0;
	}
	/* The rule in the words rule add takes, so that show output loads back. */
	if (family)
		p += snprintf(p, end - p, "family %s ", families[family]);
	if (proto && pname)
		p += snprintf(p, end - p, "proto %s ", pname);
	else if (proto)
		p += snprintf(p, end - p, "proto %u ", proto);
	if (*src)
		p += snprintf(p, end - p, "src %s ", src);
	if (*dst)
		p += snprintf(p, end - p, "dst %s ", dst);
	if (sp[0] || sp[1] != 65535)
		p += snprintf(p, end - p, sp[0] == sp[1] ? "sport %u " : "sport %u-%u ", sp[0], sp[1]);
	if (dp[0] || dp[1] != 65535)
		p += snprintf(p, end - p, dp[0] == dp[1] ? "dport %u " : "dport %u-%u ", dp[0], dp[1]);
	if (tb[NETSLICE_A_RULE_PREF] && nla_get_u32(tb[NETSLICE_A_RULE_PREF]))
		p += snprintf(p, end - p, "pref %u ", nla_get_u32(tb[NETSLICE_A_RULE_PREF]));
	snprintf(p, end - p, "slice %u", nla_get_u32(tb[NETSLICE_A_RULE_SLICE]));
	if (!req->shown++)
		printf("%-8s %-8s %12s  %s\n", "ID", "TABLE", "HITS", "RULE");
	printf("%-8u %-8s %12" PRIu64 "  %s\n", nla_get_u32(tb[NETSLICE_A_RULE_ID]),
	       tb[NETSLICE_A_RULE_EXACT] ? "exact" : "wildcard",
	       tb[NETSLICE_A_RULE_HITS] ? (uint64_t)nla_get_u64(tb[NETSLICE_A_RULE_HITS]) : 0, text);
	return 0;
}

static int ctl_rule_show(int argc, struct ctl_req *req)
{
	if (argc)
		return usage_error("rule show takes no arguments");
	ctl_req_msg(req, NETSLICE_CMD_RULE_GET, true);
	req->maxattr = NETSLICE_A_RULE_MAX;
	req->row = ctl_rule_row;
	req->list = true;
	return 0;
}

/*
 * rule load's request, built once netlink is open: every rule in one
 * request, so all or none, and the packet path sees them at once. The
 * socket's send buffer is raised to fit (rule changes need CAP_NET_ADMIN,
 * which that takes too).
 */
static int ctl_rule_load_file(struct ctl_req *req)
{
	struct ctl_rule *rules = NULL, r;
	size_t n = 0, cap = 0, i, size;
	struct conf c;
	int got, err = 0;

	if (conf_open(&c, req->file)) {
		msg_line("netslicectl: %s: %s", req->file, strerror(errno));
		return CTL_EXIT_USAGE;
	}
	usage_at.conf = &c;
	while ((got = conf_next(&c)) > 0) {
		if (ctl_parse_rule((int)c.n, c.word, &r, false) ||
		    (!r.has_slice && conf_error(&c, c.n, "the rule needs a slice (slice N)"))) {
			err = CTL_EXIT_USAGE;
			goto out;
		}
		if (n == cap) {
			struct ctl_rule *more = realloc(rules, (cap = cap ? cap * 2 : 1024) * sizeof(*rules));

			if (!more) {
				fprintf(stderr, "netslicectl: out of memory\n");
				err = CTL_EXIT_USAGE;
				goto out;
			}
			rules = more;
		}
		r.line = c.lineno;
		rules[n++] = r;
	}
	usage_at.conf = NULL;
	if (got < 0)
		err = CTL_EXIT_USAGE;
	if (!n || err)
		goto out;
	size = n * NS_RULE_NEST_MAX + 4096;
	if (ctl_sndbuf(size + 65536))
		fprintf(stderr, "netslicectl: cannot raise the socket's send buffer for %zu rules: "
			"%s\n", n, strerror(errno));
	ctl_req_msg_size(req, req->cmd, false, size);
	for (i = 0; i < n; i++) {
		ctl_subject_line(req, req->file, rules[i].line);
		ctl_put_rule(req->msg, &rules[i], true, -1);
		ctl_subject_end(req);
	}
out:
	usage_at.conf = NULL;
	conf_close(&c);
	free(rules);
	return err;
}

/* rule load FILE [replace]: the file is read when the request is built. */
static int ctl_rule_load(int argc, char **argv, struct ctl_req *req)
{
	req->cmd = NETSLICE_CMD_RULE_ADD;
	if (argc == 2 && word_is(argv[1], "replace"))
		req->cmd = NETSLICE_CMD_RULE_REPLACE;
	else if (argc != 1)
		return usage_error("rule load takes FILE [replace]");
	req->file = argv[0];
	req->build = ctl_rule_load_file;
	return 0;
}

int ctl_rule_queue(struct ctl_rule_queue *q, int argc, char **argv, const char *file,
		   unsigned int line)
{
	struct ctl_rule r;
	int op;

	if (argc < 2 || !word_is(argv[0], "rule"))
		return 0;
	if (word_is(argv[1], "add"))
		op = NETSLICE_RULE_OP_ADD;
	else if (word_is(argv[1], "del") || word_is(argv[1], "delete"))
		op = NETSLICE_RULE_OP_DEL;
	else if (word_is(argv[1], "replace"))
		op = NETSLICE_RULE_OP_REPLACE;
	else
		return 0;
	if (argc == 2)
		return CTL_BAD("say which rule");
	if (ctl_parse_rule(argc - 2, argv + 2, &r, op == NETSLICE_RULE_OP_DEL))
		return -1;
	if (op != NETSLICE_RULE_OP_DEL && !r.has_slice)
		return CTL_BAD("the rule needs a slice: ... slice N");
	if (!q->n)
		ctl_req_msg_size(&q->req, NETSLICE_CMD_RULE_BATCH, false,
				 (size_t)CTL_RULES_PER_MSG * NS_RULE_NEST_MAX + 4096);
	ctl_subject_line(&q->req, file, line);
	ctl_put_rule(q->req.msg, &r, op != NETSLICE_RULE_OP_DEL, op);
	ctl_subject_end(&q->req);
	q->n++;
	return 1;
}

int ctl_rule(int argc, char **argv, struct ctl_req *req)
{
	if (!argc || word_is(argv[0], "show") || word_is(argv[0], "list"))
		return ctl_rule_show(argc ? argc - 1 : 0, req);
	if (word_is(argv[0], "add"))
		return ctl_rule_one(NETSLICE_CMD_RULE_ADD, argc - 1, argv + 1, req);
	if (word_is(argv[0], "del") || word_is(argv[0], "delete"))
		return ctl_rule_one(NETSLICE_CMD_RULE_DEL, argc - 1, argv + 1, req);
	if (word_is(argv[0], "replace"))
		return ctl_rule_one(NETSLICE_CMD_RULE_REPLACE, argc - 1, argv + 1, req);
	if (word_is(argv[0], "flush") && argc == 1) {
		ctl_req_msg(req, NETSLICE_CMD_RULE_FLUSH, false);
		return 0;
	}
	if (word_is(argv[0], "load"))
		return ctl_rule_load(argc - 1, argv + 1, req);
	return usage_error("rule: unknown command \"%s\"", argv[0]);
}
