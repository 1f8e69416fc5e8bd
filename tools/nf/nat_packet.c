// SPDX-License-Identifier: GPL-2.0 WITH LicenseRef-netslice-OpenSSL-exception
/*
 * nf-nat's packet path (what it does: nat.c): a batch under its worker's
 * part, then the packets whose connection another part holds, then the
 * batch's steering rules, before the batch is written.
 */
#include <arpa/inet.h>
#include <netinet/ip_icmp.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "nat_packet.h"
#include "nat_router.h"
#include "nat_table.h"

/* A packet of the batch whose connection is in another part: handled after the batch. */
enum nat_deferred { NAT_DEFER_OUT, NAT_DEFER_IN, NAT_DEFER_ICMP_ERROR };

static void nat_touch(struct nat_conn *c, const struct ns_pkt *p, int inbound, uint64_t now)
{
	/* The header is 2-byte aligned: its flags byte, not tcphdr's bit-fields. */
	const uint8_t *th = (const uint8_t *)ns_pkt_tcp(p);

	c->last_ms = now;
	if (!th)
		return;
	if (th[13] & (TH_RST | TH_FIN))
		c->state = CONN_CLOSING;
	else if (inbound != c->dnat && c->state == CONN_OPENING)
		c->state = CONN_ESTABLISHED;	/* the answer to the opener */
}

static void nat_defer(struct nat_ctx *x, struct netslice_iov *iov, enum nat_deferred kind)
{
	x->own->deferred[x->own->nr_deferred++] = (unsigned int)(iov - x->batch) << 2 | kind;
}

/* An inside host of a port forward: its packets may answer a connection let in. */
static int nat_forward_host(const struct nat *nat, uint8_t proto, uint32_t addr, uint16_t port)
{
	unsigned int i;

	for (i = 0; i < nat->nr_forwards; i++)
		if (nat->forwards[i].proto == proto && nat->forwards[i].in_addr == addr &&
		    nat->forwards[i].in_port == port)
			return 1;
	return 0;
}

static void nat_outbound(struct nat_ctx *x, struct netslice_iov *iov, struct ns_pkt *p,
			 const struct ns_flow *f, uint64_t now)
{
	struct ether_header *eth = ns_pkt_eth(p);
	struct nat_key k = { .proto = p->l4_proto, .in_port = f->sport };
	struct nat *nat = x->nat;
	struct nat_conn *c, tmpl;
	uint8_t hop_mac[6];
	int unresolved = 0;

	memcpy(&k.in_addr, f->saddr, 4);
	memcpy(&k.rem_addr, f->daddr, 4);
	k.rem_port = p->l4_proto == IPPROTO_ICMP ? 0 : f->dport;
	if (!x->foreign)
		nf_neigh_learn(&nat->neigh, k.in_addr, eth->ether_shost);
	c = nat_lookup(x, &k, now);
	/* A port forward's host answering a connection another worker let in. */
	if (!c && !x->foreign && nat->nr_parts > 1 &&
	    nat_forward_host(nat, k.proto, k.in_addr, k.in_port)) {
		nat_defer(x, iov, NAT_DEFER_OUT);
		return;
	}
	/* The next hop once per connection; unknown, the packet waits for ARP. */
	if (c && c->has_out_mac)
		memcpy(hop_mac, c->out_mac, 6);
	else
		unresolved = nat_next_hop(nat, x->w, k.rem_addr, hop_mac);
	if (!c) {
		memset(&tmpl, 0, sizeof(tmpl));
		tmpl.proto = k.proto;
		tmpl.in_addr = k.in_addr;
		tmpl.in_port = k.in_port;
		tmpl.rem_addr = k.rem_addr;
		tmpl.rem_port = k.rem_port;
		memcpy(tmpl.in_mac, eth->ether_shost, 6);
		tmpl.pub_port = nat_alloc_port(nat, ns_worker_index(x->w), k.proto, ns_flow_hash(f, 1));
		if (!tmpl.pub_port) {
			x->part->n.no_ports++;
			ns_iov_drop(iov);
			return;
		}
		c = nat_add(x, &tmpl);
		if (!c) {
			nat_port_free(nat, k.proto, tmpl.pub_port);
			ns_iov_drop(iov);
			return;
		}
	}
	if (!c->has_out_mac && !unresolved) {
		memcpy(c->out_mac, hop_mac, 6);
		c->has_out_mac = 1;
	}
	nat_touch(c, p, 0, now);
	ns_pkt_set_addr(p, 0, &nat->public_addr);
	ns_pkt_set_port(p, 0, c->pub_port);
	memcpy(eth->ether_shost, nat->public_mac, 6);
	memcpy(eth->ether_dhost, hop_mac, 6);
	x->part->n.out_packets++;
	if (unresolved) {
		nat_hold(nat, &x->part->n, x->w, iov, nat_hop(nat, k.rem_addr));
		x->own->held = 1;
		ns_iov_drop(iov);
	}
}

static const struct nat_forward *nat_find_forward(const struct nat *nat, uint8_t proto,
						  uint16_t port)
{
	unsigned int i;

	for (i = 0; i < nat->nr_forwards; i++)
		if (nat->forwards[i].proto == proto && nat->forwards[i].pub_port == port)
			return &nat->forwards[i];
	return NULL;
}

static void nat_inbound(struct nat_ctx *x, struct netslice_iov *iov, struct ns_pkt *p,
			const struct ns_flow *f, uint64_t now)
{
	struct nat_key k = { .proto = p->l4_proto, .inbound = 1, .pub_port = f->dport };
	const struct nat_forward *fwd;
	struct nat *nat = x->nat;
	struct nat_conn *c, tmpl;
	uint8_t mac[6];

	memcpy(&k.rem_addr, f->saddr, 4);
	k.rem_port = p->l4_proto == IPPROTO_ICMP ? 0 : f->sport;
	c = nat_lookup(x, &k, now);
	if (!c && !x->foreign && nat->nr_parts > 1) {
		nat_defer(x, iov, NAT_DEFER_IN);
		return;
	}
	if (!c) {
		fwd = nat_find_forward(nat, p->l4_proto, f->dport);
		if (!fwd) {
			x->part->n.no_conn++;
			ns_iov_drop(iov);
			nf_log_drop(p, "no connection or port forward");
			return;
		}
		if (nf_neigh_lookup(&nat->neigh, fwd->in_addr, mac)) {
			nf_neigh_probe(&nat->neigh, x->w, nat->inside, nat->inside_mac,
				       nat->inside_addr ? nat->inside_addr : nat->public_addr,
				       fwd->in_addr);
			ns_iov_drop(iov);
			return;
		}
		memset(&tmpl, 0, sizeof(tmpl));
		tmpl.proto = k.proto;
		tmpl.in_addr = fwd->in_addr;
		tmpl.in_port = fwd->in_port;
		tmpl.rem_addr = k.rem_addr;
		tmpl.rem_port = k.rem_port;
		tmpl.pub_port = fwd->pub_port;
		tmpl.dnat = 1;
		memcpy(tmpl.in_mac, mac, 6);
		c = nat_add(x, &tmpl);
		if (!c) {
			ns_iov_drop(iov);
			return;
		}
	}
	/*
	 * Replies go back the way this came: to the hop it came from (learned
	 * when it changes, not per packet). A --gateway's MAC is ARP's.
	 */
	if (!nat->gateway && (!c->has_out_mac ||
			      memcmp(c->out_mac, ns_pkt_eth(p)->ether_shost, 6))) {
		memcpy(c->out_mac, ns_pkt_eth(p)->ether_shost, 6);
		c->has_out_mac = 1;
		nf_neigh_learn(&nat->out_neigh, k.rem_addr, c->out_mac);
	}
	nat_touch(c, p, 1, now);
	ns_pkt_set_addr(p, 1, &c->in_addr);
	ns_pkt_set_port(p, 1, c->in_port);
	memcpy(ns_pkt_eth(p)->ether_shost, nat->inside_mac, 6);
	memcpy(ns_pkt_eth(p)->ether_dhost, c->in_mac, 6);
	x->part->n.in_packets++;
}

/*
 * An ICMP error about a translated connection (RFC 5508 4.2): from
 * outside, about a packet we sent (quoting public:port -> remote), it goes
 * to the inside host with the quote restored; from inside, about a packet
 * we let in (quoting remote -> host:port), it leaves from the public
 * address with the quote translated. Anything else is dropped.
 */
static void nat_icmp_error(struct nat_ctx *x, struct netslice_iov *iov, struct ns_pkt *p,
			   int inside, uint64_t now)
{
	struct ether_header *eth = ns_pkt_eth(p);
	struct nat *nat = x->nat;
	struct nat_conn *c = NULL;
	struct nat_key k = { 0 };
	struct ns_pkt q;
	struct ns_flow qf;
	uint32_t qsrc, qdst;
	uint8_t hop_mac[6];
	int icmp;

	if (ns_pkt_icmp_quote(p, &q) || !q.l4_off || ns_pkt_flow(&q, &qf) ||
	    (q.l4_proto != IPPROTO_TCP && q.l4_proto != IPPROTO_UDP && !ns_pkt_icmp_echo(&q))) {
		x->part->n.untranslatable++;
		ns_iov_drop(iov);
		return;
	}
	icmp = q.l4_proto == IPPROTO_ICMP;
	memcpy(&qsrc, qf.saddr, 4);
	memcpy(&qdst, qf.daddr, 4);
	k.proto = q.l4_proto;
	if (!inside && qsrc == nat->public_addr) {
		/* About public:port -> remote: the connection's inbound key. */
		k.inbound = 1;
		k.rem_addr = qdst;
		k.rem_port = icmp ? 0 : qf.dport;
		k.pub_port = qf.sport;
		c = nat_lookup(x, &k, now);
	} else if (inside) {
		/* About remote -> host:port: its outbound key. */
		k.in_addr = qdst;
		k.in_port = qf.dport;
		k.rem_addr = qsrc;
		k.rem_port = icmp ? 0 : qf.sport;
		c = nat_lookup(x, &k, now);
	}
	if (!c && !x->foreign && nat->nr_parts > 1 && (inside || qsrc == nat->public_addr)) {
		nat_defer(x, iov, NAT_DEFER_ICMP_ERROR);
		return;
	}
	if (!c) {
		x->part->n.no_conn++;
		ns_iov_drop(iov);
		return;
	}
	if (!inside) {
		ns_pkt_icmp_quote_rewrite(p, &q, 0, &c->in_addr, c->in_port);
		ns_pkt_set_addr(p, 1, &c->in_addr);
		memcpy(eth->ether_shost, nat->inside_mac, 6);
		memcpy(eth->ether_dhost, c->in_mac, 6);
	} else {
		if (c->has_out_mac) {
			memcpy(hop_mac, c->out_mac, 6);
		} else if (nat_next_hop(nat, x->w, c->rem_addr, hop_mac)) {
			x->part->n.no_mac++;
			ns_iov_drop(iov);
			return;
		}
		ns_pkt_icmp_quote_rewrite(p, &q, 1, &nat->public_addr, c->pub_port);
		/* From the host or a router inside: out of the public address either way. */
		ns_pkt_set_addr(p, 0, &nat->public_addr);
		memcpy(eth->ether_shost, nat->public_mac, 6);
		memcpy(eth->ether_dhost, hop_mac, 6);
	}
	x->part->n.icmp_errors++;
}

static void nat_one(struct nat_ctx *x, struct netslice_iov *iov, uint64_t now)
{
	struct nat *nat = x->nat;
	int inside = (int)iov->ifindex == nat->inside;
	struct nat_counts *n = &x->part->n;
	struct ns_flow f;
	struct ns_pkt p;
	uint32_t daddr;
	int why;

	if (ns_pkt_parse(&p, ns_iov_data(iov), iov->rlen, iov->wire_len)) {
		n->malformed++;
		ns_iov_drop(iov);
		return;
	}
	/*
	 * Another pair's, ARP too: not ours (a slice fed by several pairs, or
	 * an NF after this one in a chain that serves another pair).
	 */
	if (!inside && (int)iov->ifindex != nat->outside) {
		n->passed++;
		return;
	}
	if (p.eth_type == ETHERTYPE_ARP) {
		nat_arp(nat, n, x->w, iov, &p, inside);
		return;
	}
	if (p.family != AF_INET) {
		n->not_ipv4++;
		ns_iov_drop(iov);
		nf_log_drop(&p, "not IPv4");
		return;
	}
	ns_pkt_flow(&p, &f);
	memcpy(&daddr, f.daddr, 4);
	/* --pass-outside: not routed, passed on as it came. */
	if (!inside && daddr != nat->public_addr && nat->pass_outside) {
		n->passed++;
		return;
	}
	why = nat_refusal(nat, &p, &f, inside);
	if (why >= 0) {
		n->refused[why]++;
		ns_iov_drop(iov);
		nf_log_drop(&p, "%s", nat_refusal_names[why].why);
		return;
	}
	if (!inside && daddr != nat->public_addr) {
		/* Unsolicited: nothing outside may reach an inside address (RFC 4787 5). */
		n->not_public++;
		ns_iov_drop(iov);
		nf_log_drop(&p, "unsolicited, not to the public address");
		return;
	}
	if (p.frag) {
		n->fragments++;
		ns_iov_drop(iov);
		nf_log_drop(&p, "a fragment");
		return;
	}
	/* For us: pings answered; from inside, nothing else (no hairpin). */
	if (daddr == nat->public_addr || (inside && daddr == nat->inside_addr)) {
		if (ns_pkt_icmp_echo(&p) && p.data[p.l4_off] == ICMP_ECHO) {
			nat_echo_reply(nat, n, iov, &p, inside);
			return;
		}
		if (inside) {
			n->hairpin++;
			ns_iov_drop(iov);
			nf_log_drop(&p, "to the NAT's own address (no hairpinning)");
			return;
		}
	}
	/* Forwarded: one hop less, or time exceeded (an expiring error is only dropped). */
	if (ns_pkt_dec_ttl(&p)) {
		if (ns_pkt_icmp_error(&p)) {
			n->ttl_expired++;
			ns_iov_drop(iov);
		} else {
			nat_time_exceeded(nat, n, x->w, iov, &p, inside);
		}
		return;
	}
	if (ns_pkt_icmp_error(&p)) {
		nat_icmp_error(x, iov, &p, inside, now);
		return;
	}
	if ((p.l4_proto != IPPROTO_TCP && p.l4_proto != IPPROTO_UDP && !ns_pkt_icmp_echo(&p)) ||
	    !p.l4_off) {
		n->untranslatable++;
		ns_iov_drop(iov);
		nf_log_drop(&p, "untranslatable");
		return;
	}
	if (inside)
		nat_outbound(x, iov, &p, &f, now);
	else
		nat_inbound(x, iov, &p, &f, now);
}

/* A packet put off by nat_one(): parsed again (its TTL is already one less), then on. */
static void nat_one_foreign(struct nat_ctx *x, struct netslice_iov *iov,
			    enum nat_deferred kind, uint64_t now)
{
	struct ns_flow f;
	struct ns_pkt p;

	ns_pkt_parse(&p, ns_iov_data(iov), iov->rlen, iov->wire_len);
	ns_pkt_flow(&p, &f);
	if (kind == NAT_DEFER_OUT)
		nat_outbound(x, iov, &p, &f, now);
	else if (kind == NAT_DEFER_IN)
		nat_inbound(x, iov, &p, &f, now);
	else
		nat_icmp_error(x, iov, &p, (int)iov->ifindex == x->nat->inside, now);
}

/*
 * The batch under the worker's own part's lock; then what belongs to
 * other parts, one part's lock at a time (never two: no lock order among
 * parts); then the batch's rule changes, before the batch is written (and
 * before what it held for ARP may leave), so the answers to what it opens
 * find their rule.
 */
void nat_process(struct ns_worker *w, struct netslice_iov *iov, unsigned int n, void *arg)
{
	struct nat *nat = arg;
	struct nat_part *own = &nat->parts[ns_worker_index(w)];
	struct nat_ctx x = { .nat = nat, .w = w, .own = own, .part = own, .batch = iov };
	struct nat_counts sent = { 0 };
	uint64_t now = nf_now_ms();
	unsigned int i, d;

	own->nr_deferred = 0;
	pthread_mutex_lock(&own->lock);
	for (i = 0; i < n; i++)
		nat_one(&x, &iov[i], now);
	x.foreign = 1;
	for (i = 0; i < own->nr_deferred; i++) {
		if (x.part != own)
			nat_relock(&x, own);
		d = own->deferred[i];
		nat_one_foreign(&x, &iov[d >> 2], (enum nat_deferred)(d & 3), now);
	}
	pthread_mutex_unlock(&x.part->lock);
	nat_rules_flush(nat, own, &sent);
	if (sent.rules_set || sent.rules_deleted || sent.rule_errors || own->held) {
		pthread_mutex_lock(&own->lock);
		nat_counts_add_rules(&own->n, &sent);
		if (own->held)
			nat_held_ready(nat, &own->n, w);
		own->held = 0;
		pthread_mutex_unlock(&own->lock);
	}
}
