// SPDX-License-Identifier: GPL-2.0
/*
 * Netlink rule operations. A request carries one or more rule nests and
 * is one batch (rule_batch.c): applied all or none, and seen by RX at
 * once; the first bad rule aborts it and points the ack at its own nest.
 */
#include <linux/in.h>
#include <linux/mm.h>
#include <net/genetlink.h>

#include <linux/netslice.h>

#include "nl_family.h"
#include "nl_rule.h"
#include "params.h"
#include "rule_batch.h"
#include "slice.h"

/* Protocols whose packets carry ports the flow dissector reports. */
static bool nsl_proto_has_ports(u8 proto)
{
	switch (proto) {
	case IPPROTO_TCP:
	case IPPROTO_UDP:
	case IPPROTO_UDPLITE:
	case IPPROTO_SCTP:
	case IPPROTO_DCCP:
		return true;
	default:
		return false;
	}
}

static unsigned int nsl_family_bytes(u8 family)
{
	return family == NETSLICE_RULE_FAMILY_IPV6 ? 16 : 4;
}

/* One address and its prefix length into match; zero bits past the prefix. */
static int nsl_nl_rule_addr(struct nlattr **tb, int addr_attr, int len_attr, u8 family,
			    __be32 *addr, u8 *plen, struct netlink_ext_ack *extack)
{
	unsigned int bytes = nsl_family_bytes(family), len;

	if (!tb[addr_attr]) {
		if (tb[len_attr]) {
			NL_SET_ERR_MSG_ATTR(extack, tb[len_attr],
					    "prefix length without an address");
			return -EINVAL;
		}
		*plen = 0;
		return 0;
	}
	if (nla_len(tb[addr_attr]) != bytes) {
		NL_SET_ERR_MSG_ATTR(extack, tb[addr_attr],
				    "address length does not match the rule's family");
		return -EINVAL;
	}
	len = tb[len_attr] ? nla_get_u8(tb[len_attr]) : bytes * 8;
	if (len > bytes * 8) {
		NL_SET_ERR_MSG_ATTR(extack, tb[len_attr], "prefix longer than the address");
		return -EINVAL;
	}
	memcpy(addr, nla_data(tb[addr_attr]), bytes);
	nsl_rule_prefix_mask(addr, len);
	*plen = len;
	return 0;
}

static int nsl_nl_rule_ports(struct nlattr **tb, int min_attr, int max_attr, u16 *lo, u16 *hi,
			     struct netlink_ext_ack *extack)
{
	*lo = tb[min_attr] ? nla_get_u16(tb[min_attr]) : 0;
	*hi = tb[max_attr] ? nla_get_u16(tb[max_attr]) : tb[min_attr] ? *lo : 65535;
	if (*lo > *hi) {
		NL_SET_ERR_MSG_ATTR(extack, tb[max_attr], "port range is empty (min > max)");
		return -EINVAL;
	}
	return 0;
}

/* The match a rule nest names, canonical. */
static int nsl_nl_rule_match(struct nlattr **tb, struct nsl_rule_match *m,
			     struct netlink_ext_ack *extack)
{
	struct nlattr *addr = tb[NETSLICE_A_RULE_SRC] ?: tb[NETSLICE_A_RULE_DST];
	int err;

	memset(m, 0, sizeof(*m));
	if (tb[NETSLICE_A_RULE_FAMILY])
		m->family = nla_get_u8(tb[NETSLICE_A_RULE_FAMILY]);
	else if (addr)
		m->family = nla_len(addr) == 16 ? NETSLICE_RULE_FAMILY_IPV6 :
						  NETSLICE_RULE_FAMILY_IPV4;
	if (addr && m->family == NETSLICE_RULE_FAMILY_ANY) {
		NL_SET_ERR_MSG_ATTR(extack, addr, "an address needs family ipv4 or ipv6");
		return -EINVAL;
	}
	if (tb[NETSLICE_A_RULE_PROTO])
		m->proto = nla_get_u8(tb[NETSLICE_A_RULE_PROTO]);
	err = nsl_nl_rule_addr(tb, NETSLICE_A_RULE_SRC, NETSLICE_A_RULE_SRC_LEN, m->family,
			       m->src, &m->src_len, extack) ?:
	      nsl_nl_rule_addr(tb, NETSLICE_A_RULE_DST, NETSLICE_A_RULE_DST_LEN, m->family,
			       m->dst, &m->dst_len, extack) ?:
	      nsl_nl_rule_ports(tb, NETSLICE_A_RULE_SPORT_MIN, NETSLICE_A_RULE_SPORT_MAX,
				&m->sport_min, &m->sport_max, extack) ?:
	      nsl_nl_rule_ports(tb, NETSLICE_A_RULE_DPORT_MIN, NETSLICE_A_RULE_DPORT_MAX,
				&m->dport_min, &m->dport_max, extack);
	if (err)
		return err;
	if ((m->sport_min || m->sport_max != 65535 || m->dport_min || m->dport_max != 65535) &&
	    !nsl_proto_has_ports(m->proto)) {
		NL_SET_ERR_MSG(extack, "ports need protocol tcp, udp, udplite, sctp or dccp");
		return -EINVAL;
	}
	if (tb[NETSLICE_A_RULE_PREF])
		m->pref = nla_get_u32(tb[NETSLICE_A_RULE_PREF]);
	return 0;
}

/* What a nest asks: the command's operation, or in rule-batch its own. */
static int nsl_nl_rule_op(struct nlattr **tb, int cmd_op, struct nlattr *nest,
			  struct netlink_ext_ack *extack)
{
	if (!tb[NETSLICE_A_RULE_OP]) {
		if (cmd_op >= 0)
			return cmd_op;
		NL_SET_ERR_MSG(extack, "rule-batch: each rule names its op");
		NL_SET_ERR_ATTR_MISS(extack, nest, NETSLICE_A_RULE_OP);
		return -EINVAL;
	}
	if (cmd_op >= 0 && nla_get_u8(tb[NETSLICE_A_RULE_OP]) != cmd_op) {
		NL_SET_ERR_MSG_ATTR(extack, tb[NETSLICE_A_RULE_OP],
				    "op differs from the command's (rule-batch mixes them)");
		return -EINVAL;
	}
	return nla_get_u8(tb[NETSLICE_A_RULE_OP]);
}

/* One rule of a request: added, replaced or deleted in batch b. */
static int nsl_nl_rule_one(struct nlattr *nest, int cmd_op, struct nsl_rule_batch *b,
			   struct netlink_ext_ack *extack)
{
	struct nlattr *tb[NETSLICE_A_RULE_MAX + 1];
	struct nsl_rule_match m;
	struct nsl_rule *rule;
	int err, op;
	u32 slice;

	/* genetlink validated the nest (netslice_rule_entry_nl_policy): no second pass. */
	err = nla_parse_nested(tb, NETSLICE_A_RULE_MAX, nest, NULL, extack);
	if (err)
		return err;
	op = nsl_nl_rule_op(tb, cmd_op, nest, extack);
	if (op < 0)
		return op;
	if (op == NETSLICE_RULE_OP_DEL && tb[NETSLICE_A_RULE_ID]) {
		rule = nsl_rule_find_id(nla_get_u32(tb[NETSLICE_A_RULE_ID]));
		goto del;
	}
	err = nsl_nl_rule_match(tb, &m, extack);
	if (err)
		return err;
	if (op == NETSLICE_RULE_OP_DEL) {
		rule = nsl_rule_find(&m);
		goto del;
	}
	if (!tb[NETSLICE_A_RULE_SLICE]) {
		NL_SET_ERR_MSG(extack, "rule has no slice");
		NL_SET_ERR_ATTR_MISS(extack, nest, NETSLICE_A_RULE_SLICE);
		return -EINVAL;
	}
	slice = nla_get_u32(tb[NETSLICE_A_RULE_SLICE]);
	if (slice >= nsl_nr_slices) {
		NL_SET_ERR_MSG_ATTR(extack, tb[NETSLICE_A_RULE_SLICE], "no such slice");
		return -EINVAL;
	}
	return nsl_rule_batch_add(b, &m, slice, op == NETSLICE_RULE_OP_REPLACE, extack);

del:
	if (!rule) {
		NL_SET_ERR_MSG(extack, "no such rule");
		return -ENOENT;
	}
	return nsl_rule_batch_del(b, rule, extack);
}

/*
 * Every rule nest of the request in one batch: all applied, at once, or
 * none, with the ack pointing at the nest that failed. cmd_op is the
 * command's operation, or -1 for rule-batch.
 */
static int nsl_nl_rules(struct genl_info *info, int cmd_op)
{
	struct nsl_rule_step *steps;
	struct nsl_rule_batch b;
	unsigned int n = 0, i = 0;
	struct nlattr *nest;
	int rem, err = 0;

	nlmsg_for_each_attr(nest, info->nlhdr, GENL_HDRLEN, rem)
		n += nla_type(nest) == NETSLICE_A_RULES_RULE;
	if (!n) {
		NL_SET_ERR_MSG(info->extack, "no rule in the request");
		NL_SET_ERR_ATTR_MISS(info->extack, NULL, NETSLICE_A_RULES_RULE);
		return -EINVAL;
	}
	/* Sized by the request: its sender gets the -ENOMEM. */
	steps = kvcalloc(n, sizeof(*steps), GFP_KERNEL | __GFP_NOWARN);
	if (!steps)
		return -ENOMEM;

	nsl_rules_lock();
	nsl_rule_batch_begin(&b, steps, n);
	nlmsg_for_each_attr(nest, info->nlhdr, GENL_HDRLEN, rem) {
		if (nla_type(nest) != NETSLICE_A_RULES_RULE)
			continue;
		err = nsl_nl_rule_one(nest, cmd_op, &b, info->extack);
		if (err) {
			NL_SET_BAD_ATTR(info->extack, nest);
			break;
		}
		if (!(++i % 1024))
			cond_resched();
	}
	if (err)
		nsl_rule_batch_abort(&b);
	else
		nsl_rule_batch_commit(&b);
	nsl_rules_unlock();
	kvfree(steps);
	return err;
}

int nsl_nl_rule_add_doit(struct sk_buff *skb, struct genl_info *info)
{
	return nsl_nl_rules(info, NETSLICE_RULE_OP_ADD);
}

int nsl_nl_rule_replace_doit(struct sk_buff *skb, struct genl_info *info)
{
	return nsl_nl_rules(info, NETSLICE_RULE_OP_REPLACE);
}

int nsl_nl_rule_del_doit(struct sk_buff *skb, struct genl_info *info)
{
	return nsl_nl_rules(info, NETSLICE_RULE_OP_DEL);
}

int nsl_nl_rule_batch_doit(struct sk_buff *skb, struct genl_info *info)
{
	return nsl_nl_rules(info, -1);
}

int nsl_nl_rule_flush_doit(struct sk_buff *skb, struct genl_info *info)
{
	nsl_rules_lock();
	nsl_rules_flush();
	nsl_rules_unlock();
	return 0;
}

static int nsl_nl_rule_fill(struct sk_buff *skb, const struct nsl_rule *rule, u32 portid, u32 seq)
{
	const struct nsl_rule_match *m = &rule->match;
	unsigned int bytes = nsl_family_bytes(m->family);
	void *hdr;

	hdr = nsl_nl_put(skb, portid, seq, NLM_F_MULTI, NETSLICE_CMD_RULE_GET);
	if (!hdr)
		return -EMSGSIZE;
	if (nla_put_u32(skb, NETSLICE_A_RULE_ID, rule->id) ||
	    nla_put_u8(skb, NETSLICE_A_RULE_FAMILY, m->family) ||
	    nla_put_u8(skb, NETSLICE_A_RULE_PROTO, m->proto) ||
	    (m->src_len && (nla_put(skb, NETSLICE_A_RULE_SRC, bytes, m->src) ||
			    nla_put_u8(skb, NETSLICE_A_RULE_SRC_LEN, m->src_len))) ||
	    (m->dst_len && (nla_put(skb, NETSLICE_A_RULE_DST, bytes, m->dst) ||
			    nla_put_u8(skb, NETSLICE_A_RULE_DST_LEN, m->dst_len))) ||
	    nla_put_u16(skb, NETSLICE_A_RULE_SPORT_MIN, m->sport_min) ||
	    nla_put_u16(skb, NETSLICE_A_RULE_SPORT_MAX, m->sport_max) ||
	    nla_put_u16(skb, NETSLICE_A_RULE_DPORT_MIN, m->dport_min) ||
	    nla_put_u16(skb, NETSLICE_A_RULE_DPORT_MAX, m->dport_max) ||
	    nla_put_u32(skb, NETSLICE_A_RULE_PREF, m->pref) ||
	    nla_put_u32(skb, NETSLICE_A_RULE_SLICE, nsl_rule_slice_now(rule)) ||
	    (rule->exact && nla_put_flag(skb, NETSLICE_A_RULE_EXACT)) ||
	    nla_put_u64_64bit(skb, NETSLICE_A_RULE_HITS, nsl_rule_hits(rule),
			      NETSLICE_A_RULE_PAD)) {
		genlmsg_cancel(skb, hdr);
		return -EMSGSIZE;
	}
	genlmsg_end(skb, hdr);
	return 0;
}

/* In id order; cb->args[0] is the next id to send. */
int nsl_nl_rule_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	unsigned long id = cb->args[0];
	struct nsl_rule *rule;
	int err;

	err = nsl_nl_may_see_slices(cb->skb, cb->extack);
	if (err)
		return err;
	rcu_read_lock();
	while ((rule = nsl_rule_next_rcu(&id))) {
		err = nsl_nl_rule_fill(skb, rule, NETLINK_CB(cb->skb).portid, cb->nlh->nlmsg_seq);
		if (err)
			break;
		id++;
	}
	rcu_read_unlock();
	cb->args[0] = id;
	return err && !skb->len ? err : skb->len;
}
