// SPDX-License-Identifier: GPL-2.0
/*
 * nf-nat: IPv4 source NAT (masquerade behind one public address, port
 * allocation) and destination NAT (port forwarding) for TCP, UDP and ICMP
 * echo, with a connection table and timeouts. Headers only: every rewrite
 * fixes checksums incrementally, so sliced packets need no payload.
 *
 * The NF stands between an inside and an outside interface as the inside
 * hosts' router, and owns the public address on the outside. ARP never
 * crosses: outside, the NF answers for the public address only (with the
 * outside interface's MAC); inside, it answers for its inside address
 * (--inside-address), or without one for any address not of a known
 * inside host (a point-to-point inside link). Translated packets leave
 * from the interface's MAC to the next hop's (the destination, or
 * --gateway), learned from ARP and inbound traffic; a packet for a next
 * hop not yet known asks by ARP and waits for the answer (nat_hold), while
 * the first packet of a port forward to an inside host not heard from is
 * dropped (the sender retries).
 *
 * RFC 4787/5508/7857 behaviour: a public port per connection (not the
 * endpoint-independent mapping 4787 asks for); address-and-port-dependent
 * filtering (only the remote endpoint of a connection reaches its public
 * port); unsolicited
 * outside IPv4 for any other address than the public one is dropped
 * (--pass-outside passes it); ICMP errors about a translated connection
 * are translated both ways, quoted header, ports and checksums included,
 * so path MTU discovery works through the NAT. IPv4 that cannot be
 * translated (other protocols, fragments) is dropped and counted; so is
 * everything else but ARP (IPv6 included: an IPv4 router does not bridge
 * it across).
 *
 * As a router it decrements the TTL of what it forwards (translated
 * packets and ICMP errors), answers one that would expire with ICMP time
 * exceeded from the address the sender knows (public outside, inside
 * address or public inside), answers pings to its own addresses, and
 * sends everything from its own MAC on each side. A connection from
 * inside to the public address (hairpin, RFC 4787 REQ-9) is not
 * supported: dropped and counted, never sent out from and to one address.
 *
 * Each worker keeps the connections it opens in its own part of the table
 * (docs/nfs.md, "nf-nat on several slices"): a new connection's return
 * flow gets a steering rule to the worker's slice, committed before the
 * batch that opens it is written, so an established flow's two
 * directions meet in one worker and no state is shared for them. Public
 * ports are claimed atomically from one space, each worker's share first.
 * What still crosses parts, under the other part's lock: ICMP (no rule
 * tells echo identifiers apart), a port forward's answer before its rule,
 * and every return flow when rules are off (--no-rules, one worker,
 * offline, or a module that refuses them).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/ip_icmp.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "conf.h"
#include "nat.h"

static struct nat nat_state = {
	.port_lo = 20000,
	.port_hi = 59999,
	.max_conns = 65536,
	.timeout = { 7440, 240, 300, 60 },
	.lock = PTHREAD_MUTEX_INITIALIZER,
};

/* A packet of the batch whose connection is in another part: handled after the batch. */
enum nat_deferred { NAT_DEFER_OUT, NAT_DEFER_IN, NAT_DEFER_ICMP_ERROR };

/* Where a packet is handled: its worker, and the part whose lock is held. */
struct nat_ctx {
	struct nat *nat;
	struct ns_worker *w;
	struct nat_part *own;		/* the worker's part */
	struct nat_part *part;		/* the part locked now */
	int foreign;			/* after the batch: other parts may be searched */
	struct netslice_iov *batch;	/* the batch's first iov */
};

static int nat_proto_index(uint8_t proto)
{
	return proto == IPPROTO_TCP ? NAT_TCP : proto == IPPROTO_UDP ? NAT_UDP : NAT_ICMP;
}

static uint32_t nat_hash(uint8_t proto, uint32_t a, uint16_t pa, uint32_t b, uint16_t pb)
{
	struct ns_flow f = { .proto = proto, .sport = pa, .dport = pb };

	memcpy(f.saddr, &a, 4);
	memcpy(f.daddr, &b, 4);
	return ns_flow_hash(&f, 0x6e6174) & ((1 << NAT_HASH_BITS) - 1);
}

static uint32_t nat_out_hash(const struct nat_conn *c)
{
	return nat_hash(c->proto, c->in_addr, c->in_port, c->rem_addr, c->rem_port);
}

static uint32_t nat_in_hash(const struct nat_conn *c)
{
	return nat_hash(c->proto, c->rem_addr, c->rem_port, 0, c->pub_port);
}

/* A connection as one direction's packets name it. */
struct nat_key {
	uint8_t proto, inbound;
	uint32_t in_addr, rem_addr;	/* network order; inbound: no in_addr */
	uint16_t in_port, rem_port, pub_port;	/* network order; outbound: no pub_port */
};

static struct nat_conn *nat_find(struct nat_part *part, const struct nat_key *k)
{
	struct nat_conn *c;

	if (!k->inbound) {
		c = part->out_hash[nat_hash(k->proto, k->in_addr, k->in_port, k->rem_addr,
					    k->rem_port)];
		for (; c; c = c->out_next)
			if (c->proto == k->proto && c->in_addr == k->in_addr &&
			    c->in_port == k->in_port && c->rem_addr == k->rem_addr &&
			    c->rem_port == k->rem_port)
				return c;
		return NULL;
	}
	c = part->in_hash[nat_hash(k->proto, k->rem_addr, k->rem_port, 0, k->pub_port)];
	for (; c; c = c->in_next)
		if (c->proto == k->proto && c->rem_addr == k->rem_addr &&
		    c->rem_port == k->rem_port && c->pub_port == k->pub_port)
			return c;
	return NULL;
}

static void nat_unlink(struct nat_conn **head, struct nat_conn *c, int out)
{
	for (; *head; head = out ? &(*head)->out_next : &(*head)->in_next)
		if (*head == c) {
			*head = out ? c->out_next : c->in_next;
			return;
		}
}

/*
 * The rule that steers the flow a connection's first packet did not open
 * (the return flow of an outbound one, the inside host's answers to a port
 * forward) to the slice of the part that holds it.
 */
static void nat_rule_of(const struct nat *nat, const struct nat_conn *c, uint32_t slice,
			struct ns_rule *r)
{
	struct ns_flow f = { .family = AF_INET, .proto = c->proto };

	if (c->dnat) {
		memcpy(f.saddr, &c->in_addr, 4);
		memcpy(f.daddr, &c->rem_addr, 4);
		f.sport = c->in_port;
		f.dport = c->rem_port;
	} else {
		memcpy(f.saddr, &c->rem_addr, 4);
		memcpy(f.daddr, &nat->public_addr, 4);
		f.sport = c->rem_port;
		f.dport = c->pub_port;
	}
	ns_rule_of_flow(r, &f, slice);
}

/* Queue a rule change for the end of the batch; a full queue drops it (counted). */
static void nat_rule_queue(struct nat_part *part, const struct nat *nat, struct nat_conn *c,
			   enum ns_rule_op op, uint32_t slice)
{
	struct nat_rule_op *o;

	if (part->nr_ops == part->max_ops) {
		part->n.rule_errors++;
		return;
	}
	o = &part->ops[part->nr_ops++];
	o->op = op;
	nat_rule_of(nat, c, slice, &o->rule);
	c->ruled = op != NS_RULE_DEL;
}

/*
 * Send the changes in ops as few requests; a refused request applies
 * none of its changes, so then each goes alone, and a rule already gone
 * (flushed by hand, say) is not an error.
 */
static void nat_rules_send(struct ns_rules *h, struct nat_rule_op *ops, unsigned int n,
			   struct nat_counts *cnt)
{
	unsigned int i;
	int err = 0;

	for (i = 0; i < n && !err; i++)
		err = ns_rules_queue(h, ops[i].op, &ops[i].rule);
	if (!err)
		err = ns_rules_commit(h);
	if (!err)
		goto counted;
	if (ns_rules_queued(h))
		ns_rules_commit(h);
	for (i = 0; i < n; i++) {
		err = ops[i].op == NS_RULE_DEL ? ns_rule_del(h, &ops[i].rule) :
						  ns_rule_replace(h, &ops[i].rule);
		if (err && !(err == -ENOENT && ops[i].op == NS_RULE_DEL)) {
			if (!cnt->rule_errors++)
				nf_err("steering rule refused: %s (%s); flows without it cross workers",
				       strerror(-err), ns_rules_why(h));
		}
	}
counted:
	for (i = 0; i < n; i++) {
		if (ops[i].op == NS_RULE_DEL)
			cnt->rules_deleted++;
		else
			cnt->rules_set++;
	}
}

static void nat_remove(struct nat *nat, struct nat_part *part, struct nat_conn *c)
{
	nat_unlink(&part->out_hash[nat_out_hash(c)], c, 1);
	nat_unlink(&part->in_hash[nat_in_hash(c)], c, 0);
	if (!c->dnat)
		__atomic_store_n(&nat->port_used[nat_proto_index(c->proto)][ntohs(c->pub_port)],
				 0, __ATOMIC_RELEASE);
	c->used = 0;
	c->out_next = part->free_list;
	part->free_list = c;
	part->active--;
}

/* Removed by its part's own worker: its rule goes at the end of the batch. */
static void nat_remove_own(struct nat_ctx *x, struct nat_conn *c)
{
	if (c->ruled)
		nat_rule_queue(x->own, x->nat, c, NS_RULE_DEL, 0);
	nat_remove(x->nat, x->own, c);
}

static int nat_port_claim(uint8_t *used, unsigned long port)
{
	uint8_t free_port = 0;

	return __atomic_compare_exchange_n(&used[port], &free_port, 1, false, __ATOMIC_ACQUIRE,
					   __ATOMIC_RELAXED);
}

/*
 * A free public port for a new outbound connection, or 0: from the
 * worker's share of the range (every nr_parts-th port from its index) so
 * that workers rarely meet on a port, then from anywhere in it.
 */
static uint16_t nat_alloc_port(struct nat *nat, unsigned int index, uint8_t proto,
			       uint32_t hash)
{
	uint8_t *used = nat->port_used[nat_proto_index(proto)];
	unsigned long span = nat->port_hi - nat->port_lo + 1, i, port;
	unsigned long share = span > index ? (span - index + nat->nr_parts - 1) / nat->nr_parts : 0;

	for (i = 0; i < share; i++) {
		port = nat->port_lo + index + nat->nr_parts * ((hash + i) % share);
		if (nat_port_claim(used, port))
			return htons((uint16_t)port);
	}
	for (i = 0; i < span; i++) {
		port = nat->port_lo + (hash + i) % span;
		if (nat_port_claim(used, port))
			return htons((uint16_t)port);
	}
	return 0;
}

static struct nat_conn *nat_add(struct nat_ctx *x, const struct nat_conn *tmpl)
{
	struct nat_part *part = x->part;
	struct nat_conn *c = part->free_list;
	uint32_t h;

	if (!c) {
		part->n.table_full++;
		return NULL;
	}
	part->free_list = c->out_next;
	*c = *tmpl;
	c->used = 1;
	h = nat_out_hash(c);
	c->out_next = part->out_hash[h];
	part->out_hash[h] = c;
	h = nat_in_hash(c);
	c->in_next = part->in_hash[h];
	part->in_hash[h] = c;
	part->active++;
	part->n.created++;
	/* The flow the first packet did not open, to this worker (ICMP: none). */
	if (x->own->rules && c->proto != IPPROTO_ICMP)
		nat_rule_queue(x->own, x->nat, c, NS_RULE_REPLACE, x->w->slice);
	return c;
}

static unsigned long nat_timeout_ms(const struct nat *nat, const struct nat_conn *c)
{
	if (c->proto == IPPROTO_TCP)
		return 1000 * nat->timeout[c->state == CONN_ESTABLISHED ? 0 : 1];
	return 1000 * nat->timeout[c->proto == IPPROTO_UDP ? 2 : 3];
}

/*
 * now may be older than last_ms: it is read before the lock is taken, and
 * another worker or the tick may have touched the connection since.
 */
static int nat_expired(const struct nat *nat, const struct nat_conn *c, uint64_t now)
{
	return now > c->last_ms && now - c->last_ms > nat_timeout_ms(nat, c);
}

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

static void nat_relock(struct nat_ctx *x, struct nat_part *part)
{
	pthread_mutex_unlock(&x->part->lock);
	x->part = part;
	pthread_mutex_lock(&part->lock);
}

/*
 * A packet's live connection: in the part locked (an expired one there is
 * removed if the part is the worker's own); after the batch (foreign) in
 * the other parts too, leaving the one that has it locked. NULL, with the
 * worker's own part locked, if none has it.
 */
static struct nat_conn *nat_lookup(struct nat_ctx *x, const struct nat_key *k, uint64_t now)
{
	struct nat_conn *c = nat_find(x->part, k);
	unsigned int i;

	if (c && nat_expired(x->nat, c, now)) {
		nat_remove_own(x, c);
		c = NULL;
	}
	for (i = 0; !c && x->foreign && i < x->nat->nr_parts; i++) {
		if (&x->nat->parts[i] == x->own)
			continue;
		nat_relock(x, &x->nat->parts[i]);
		c = nat_find(x->part, k);
		if (c && nat_expired(x->nat, c, now))
			c = NULL;	/* the tick removes it */
	}
	if (c && x->part != x->own)
		x->part->n.foreign++;
	if (!c && x->part != x->own)
		nat_relock(x, x->own);
	return c;
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
		tmpl.pub_port = nat_alloc_port(nat, x->w->index, k.proto, ns_flow_hash(f, 1));
		if (!tmpl.pub_port) {
			x->part->n.no_ports++;
			ns_iov_drop(iov);
			return;
		}
		c = nat_add(x, &tmpl);
		if (!c) {
			__atomic_store_n(&nat->port_used[nat_proto_index(k.proto)]
					 [ntohs(tmpl.pub_port)], 0, __ATOMIC_RELEASE);
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

	if (ns_pkt_parse(&p, ns_iov_data(iov), iov->rlen, iov->wire_len)) {
		n->malformed++;
		ns_iov_drop(iov);
		return;
	}
	if (p.eth_type == ETHERTYPE_ARP) {
		nat_arp(nat, n, x->w, iov, &p, inside);
		return;
	}
	if (!inside && (int)iov->ifindex != nat->outside) {
		n->passed++;		/* another pair's: not ours */
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
	if (!inside && daddr != nat->public_addr) {
		/* Unsolicited: nothing outside may reach an inside address (RFC 4787 5). */
		if (nat->pass_outside) {
			n->passed++;
			return;
		}
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
 * parts); then the batch's rule changes, before the batch is written, so
 * the answers to what it opens find their rule.
 */
static void nat_process(struct ns_worker *w, struct netslice_iov *iov, unsigned int n, void *arg)
{
	struct nat *nat = arg;
	struct nat_part *own = &nat->parts[w->index];
	struct nat_ctx x = { .nat = nat, .w = w, .own = own, .part = own, .batch = iov };
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
	if (own->nr_ops) {
		nat_rules_send(own->rules, own->ops, own->nr_ops, &own->n);
		own->nr_ops = 0;
	}
}

/*
 * Expired connections leave, with their rules: sent while the part is
 * still locked, so that its worker's next rule for the same flow (a new
 * connection taking the same port) cannot be sent before the deletion.
 */
static void nat_tick(void *arg)
{
	struct nat *nat = arg;
	uint64_t now = nf_now_ms();
	struct nat_rule_op ops[64];
	struct ns_rules *rules;
	unsigned int p, nr;
	unsigned long i, live;

	pthread_mutex_lock(&nat->lock);
	rules = nat->tick_rules;
	pthread_mutex_unlock(&nat->lock);
	for (p = 0; p < nat->nr_parts; p++) {
		struct nat_part *part = &nat->parts[p];

		/*
		 * Only as far as the last live connection: the free list hands
		 * out the lowest entries first, so that is rarely far, and the
		 * worker waiting for the lock is not held up by a walk of it all.
		 */
		nr = 0;
		live = 0;
		pthread_mutex_lock(&part->lock);
		for (i = 0; i < part->max_conns && live < part->active; i++) {
			struct nat_conn *c = &part->conns[i];

			if (!c->used)
				continue;
			if (!nat_expired(nat, c, now)) {
				live++;
				continue;
			}
			if (c->ruled && rules) {
				ops[nr].op = NS_RULE_DEL;
				nat_rule_of(nat, c, 0, &ops[nr].rule);
				if (++nr == sizeof(ops) / sizeof(ops[0])) {
					nat_rules_send(rules, ops, nr, &part->n);
					nr = 0;
				}
			}
			nat_remove(nat, part, c);
			part->n.expired++;
		}
		if (nr)
			nat_rules_send(rules, ops, nr, &part->n);
		pthread_mutex_unlock(&part->lock);
	}
}

static void nat_report(struct json *j, FILE *f, void *arg)
{
	static const char *const names[] = {
		"created", "expired", "out_packets", "in_packets", "icmp_errors",
		"arp_answered", "arp_answered_inside", "arp_probes", "arp_probes_outside",
		"dropped_arp", "dropped_no_conn", "dropped_not_public", "dropped_no_mac",
		"dropped_untranslatable", "dropped_fragments", "dropped_no_ports",
		"dropped_table_full", "dropped_malformed", "passed", "held_for_arp", "held_sent",
		"neighbours_full", "dropped_not_ipv4", "ttl_expired", "echo_answered",
		"dropped_hairpin", "foreign", "rules_set", "rules_deleted", "rule_errors",
	};
	struct nat *nat = arg;
	struct nat_counts t = { 0 };
	unsigned long active = 0;
	unsigned int i, p;

	for (p = 0; p < nat->nr_parts; p++) {
		const struct nat_counts *n = &nat->parts[p].n;

		pthread_mutex_lock(&nat->parts[p].lock);
		active += nat->parts[p].active;
		/* Every member a uint64_t: added as the array they are laid out as. */
		for (i = 0; i < sizeof(t) / sizeof(uint64_t); i++)
			((uint64_t *)&t)[i] += ((const uint64_t *)n)[i];
		pthread_mutex_unlock(&nat->parts[p].lock);
	}
	{
		const uint64_t v[] = {
			t.created, t.expired, t.out_packets, t.in_packets, t.icmp_errors,
			t.arp_answered, t.arp_answered_inside, nat->neigh.probes,
			nat->out_neigh.probes, t.arp_dropped, t.no_conn, t.not_public,
			t.no_mac, t.untranslatable, t.fragments, t.no_ports, t.table_full,
			t.malformed, t.passed, t.held_arp, t.held_sent,
			nat->neigh.overflow + nat->out_neigh.overflow, t.not_ipv4, t.ttl_expired,
			t.echo_answered, t.hairpin, t.foreign, t.rules_set, t.rules_deleted,
			t.rule_errors,
		};

		if (j) {
			json_u64(j, "active", active);
			for (i = 0; i < sizeof(v) / sizeof(v[0]); i++)
				json_u64(j, names[i], v[i]);
		} else {
			fprintf(f, "  connections: %lu active", active);
			for (i = 0; i < sizeof(v) / sizeof(v[0]); i++)
				fprintf(f, "%s%s %llu", i % 4 ? ", " : "\n  ", names[i],
					(unsigned long long)v[i]);
			fputc('\n', f);
		}
	}
}

enum {
	OPT_INSIDE = NF_OPT_BASE, OPT_OUTSIDE, OPT_PUBLIC, OPT_PORTS, OPT_FORWARD, OPT_MAX_CONNS,
	OPT_TIMEOUT_TCP, OPT_TIMEOUT_TRANSITORY, OPT_TIMEOUT_UDP, OPT_TIMEOUT_ICMP,
	OPT_INSIDE_ADDRESS, OPT_GATEWAY, OPT_PASS_OUTSIDE, OPT_NO_RULES,
};

/* A unicast host address: not 0.0.0.0, loopback, multicast or broadcast. */
static int nat_addr(const char *opt, const char *value, uint32_t *addr)
{
	uint32_t h;

	if (inet_pton(AF_INET, value, addr) != 1) {
		nf_err("bad %s address '%s' (an IPv4 address)", opt, value);
		return -1;
	}
	h = ntohl(*addr);
	if (!h || h >> 24 == 127 || h >> 28 >= 0xe) {
		nf_err("bad %s address '%s' (a unicast address: not 0.0.0.0, loopback, multicast "
		       "or broadcast)", opt, value);
		return -1;
	}
	return 0;
}

/* ADDR or ADDR@MAC: a gateway whose MAC is given is never asked by ARP. */
static int nat_gateway(struct nat *nat, const char *value)
{
	char addr[INET_ADDRSTRLEN];
	const char *at = strchr(value, '@');
	size_t len = at ? (size_t)(at - value) : strlen(value);

	if (len >= sizeof(addr) || (at && ns_mac_parse(at + 1, nat->gateway_mac))) {
		nf_err("bad --gateway '%s' (ADDR or ADDR@MAC)", value);
		return -1;
	}
	memcpy(addr, value, len);
	addr[len] = '\0';
	nat->has_gateway_mac = !!at;
	return nat_addr("--gateway", addr, &nat->gateway);
}

/* PROTO:PORT=ADDR:PORT, each public port once. */
static int nat_parse_forward(struct nat *nat, const char *s)
{
	struct nat_forward *fw = &nat->forwards[nat->nr_forwards];
	char buf[64], *pub, *addr, *in;
	unsigned long pub_port, in_port;
	unsigned int i;

	if (nat->nr_forwards == NAT_MAX_FORWARDS) {
		nf_err("at most %d --forward rules", NAT_MAX_FORWARDS);
		return -1;
	}
	snprintf(buf, sizeof(buf), "%s", s);
	pub = strchr(buf, ':');
	addr = pub ? strchr(pub, '=') : NULL;
	in = addr ? strrchr(addr, ':') : NULL;
	if (pub)
		*pub++ = '\0';
	if (addr)
		*addr++ = '\0';
	if (in)
		*in++ = '\0';
	if (strlen(s) >= sizeof(buf) || !in || (strcmp(buf, "tcp") && strcmp(buf, "udp")) ||
	    conf_uint(pub, 1, 65535, false, &pub_port) || conf_uint(in, 1, 65535, false, &in_port) ||
	    inet_pton(AF_INET, addr, &fw->in_addr) != 1) {
		nf_err("bad --forward '%s' (tcp|udp:PUBLIC_PORT=INSIDE_ADDR:PORT)", s);
		return -1;
	}
	fw->proto = buf[0] == 't' ? IPPROTO_TCP : IPPROTO_UDP;
	fw->pub_port = htons((uint16_t)pub_port);
	fw->in_port = htons((uint16_t)in_port);
	for (i = 0; i < nat->nr_forwards; i++)
		if (nat->forwards[i].proto == fw->proto && nat->forwards[i].pub_port == fw->pub_port) {
			nf_err("--forward '%s': %s port %lu is forwarded twice", s, buf, pub_port);
			return -1;
		}
	nat->nr_forwards++;
	return 0;
}

static int nat_option(void *arg, int val, const char *value)
{
	struct nat *nat = arg;

	switch (val) {
	case OPT_INSIDE:
		nat->inside_name = value;
		return 0;
	case OPT_OUTSIDE:
		nat->outside_name = value;
		return 0;
	case OPT_PUBLIC:
		return nat_addr("--public", value, &nat->public_addr);
	case OPT_INSIDE_ADDRESS:
		return nat_addr("--inside-address", value, &nat->inside_addr);
	case OPT_GATEWAY:
		return nat_gateway(nat, value);
	case OPT_PASS_OUTSIDE:
		nat->pass_outside = 1;
		return 0;
	case OPT_NO_RULES:
		nat->no_rules = 1;
		return 0;
	case OPT_PORTS:
		if (!strchr(value, '-') ||
		    conf_range(value, 1, 65535, &nat->port_lo, &nat->port_hi)) {
			nf_err("bad --ports '%s' (LOW-HIGH within 1-65535)", value);
			return -1;
		}
		return 0;
	case OPT_FORWARD:
		return nat_parse_forward(nat, value);
	case OPT_MAX_CONNS:
		return nf_parse_uint("--max-conns", value, 16, 1UL << 24, &nat->max_conns);
	}
	return nf_parse_uint("--timeout-*", value, 1, 86400, &nat->timeout[val - OPT_TIMEOUT_TCP]);
}

static int nat_part_init(struct nat_part *part, unsigned long max_conns)
{
	unsigned long i;

	part->max_conns = max_conns;
	part->conns = calloc(max_conns, sizeof(*part->conns));
	part->out_hash = calloc(1 << NAT_HASH_BITS, sizeof(*part->out_hash));
	part->in_hash = calloc(1 << NAT_HASH_BITS, sizeof(*part->in_hash));
	if (!part->conns || !part->out_hash || !part->in_hash)
		return -1;
	for (i = max_conns; i-- > 0;) {
		part->conns[i].out_next = part->free_list;
		part->free_list = &part->conns[i];
	}
	pthread_mutex_init(&part->lock, NULL);
	return 0;
}

static void nat_part_fini(struct nat_part *part)
{
	free(part->conns);
	free(part->out_hash);
	free(part->in_hash);
}

static int nat_setup(void *arg)
{
	struct nat *nat = arg;
	unsigned long i;
	int p;

	if (!nat->inside_name || !nat->outside_name || !nat->public_addr) {
		nf_err("--inside IF, --outside IF and --public ADDR are required");
		return -1;
	}
	nat->inside = nf_ifindex(nat->inside_name);
	nat->outside = nf_ifindex(nat->outside_name);
	if (!nat->inside || !nat->outside || nf_ifmac(nat->outside_name, nat->public_mac) ||
	    nf_ifmac(nat->inside_name, nat->inside_mac))
		return -1;
	if (nat->inside == nat->outside) {
		nf_err("--inside and --outside name the same interface");
		return -1;
	}
	nf_neigh_init(&nat->neigh);
	nf_neigh_init(&nat->out_neigh);
	/* The table split evenly among the workers. */
	nat->nr_parts = nf_nr_run_workers();
	nat->parts = calloc(nat->nr_parts, sizeof(*nat->parts));
	for (i = 0; nat->parts && i < nat->nr_parts; i++)
		if (nat_part_init(&nat->parts[i], (nat->max_conns + nat->nr_parts - 1) /
						  nat->nr_parts))
			break;
	for (p = 0; p < NAT_PROTOS; p++)
		nat->port_used[p] = calloc(65536, 1);
	if (!nat->parts || i < nat->nr_parts || !nat->port_used[NAT_TCP] ||
	    !nat->port_used[NAT_UDP] || !nat->port_used[NAT_ICMP]) {
		nf_err("out of memory for %lu connections", nat->max_conns);
		return -1;
	}
	/* Forwarded ports are never handed out to outbound connections. */
	for (i = 0; i < nat->nr_forwards; i++)
		nat->port_used[nat_proto_index(nat->forwards[i].proto)]
			[ntohs(nat->forwards[i].pub_port)] = 2;
	return 0;
}

/*
 * Rules when they can matter: online (offline there is no module to
 * steer), more than one worker, not --no-rules. A module or a process
 * that cannot take them leaves the NAT to find connections across parts.
 */
static int nat_worker_init(struct ns_worker *w, void *arg)
{
	struct nat *nat = arg;
	struct nat_part *part = &nat->parts[w->index];
	int err;

	part->deferred = calloc(NETSLICE_MAX_BATCH, sizeof(*part->deferred));
	part->max_ops = 2 * NETSLICE_MAX_BATCH;
	part->ops = calloc(part->max_ops, sizeof(*part->ops));
	if (!part->deferred || !part->ops)
		return -ENOMEM;
	if (w->fd < 0 || nat->nr_parts < 2 || nat->no_rules)
		return 0;
	err = ns_rules_open(&part->rules);
	if (err) {
		nf_err("worker %u: no steering rules (%s); return flows cross workers",
		       w->index, strerror(-err));
		part->rules = NULL;
	}
	pthread_mutex_lock(&nat->lock);
	if (!w->index && part->rules && ns_rules_open(&nat->tick_rules))
		nat->tick_rules = NULL;
	pthread_mutex_unlock(&nat->lock);
	return 0;
}

/* The worker's rules leave with it: a rule for a slice no one reads loses packets. */
static void nat_worker_fini(struct ns_worker *w, void *arg)
{
	struct nat *nat = arg;
	struct nat_part *part = &nat->parts[w->index];
	unsigned long i;

	pthread_mutex_lock(&part->lock);
	for (i = 0; part->rules && i < part->max_conns; i++) {
		if (!part->conns[i].used || !part->conns[i].ruled)
			continue;
		nat_rule_queue(part, nat, &part->conns[i], NS_RULE_DEL, 0);
		if (part->nr_ops == part->max_ops) {
			nat_rules_send(part->rules, part->ops, part->nr_ops, &part->n);
			part->nr_ops = 0;
		}
	}
	if (part->nr_ops)
		nat_rules_send(part->rules, part->ops, part->nr_ops, &part->n);
	part->nr_ops = 0;
	pthread_mutex_unlock(&part->lock);
	if (part->rules)
		ns_rules_close(part->rules);
	part->rules = NULL;
	free(part->deferred);
	free(part->ops);
}

int main(int argc, char **argv)
{
	static const struct option options[] = {
		{ "inside", required_argument, NULL, OPT_INSIDE },
		{ "outside", required_argument, NULL, OPT_OUTSIDE },
		{ "public", required_argument, NULL, OPT_PUBLIC },
		{ "ports", required_argument, NULL, OPT_PORTS },
		{ "forward", required_argument, NULL, OPT_FORWARD },
		{ "max-conns", required_argument, NULL, OPT_MAX_CONNS },
		{ "timeout-tcp", required_argument, NULL, OPT_TIMEOUT_TCP },
		{ "timeout-tcp-transitory", required_argument, NULL, OPT_TIMEOUT_TRANSITORY },
		{ "timeout-udp", required_argument, NULL, OPT_TIMEOUT_UDP },
		{ "timeout-icmp", required_argument, NULL, OPT_TIMEOUT_ICMP },
		{ "inside-address", required_argument, NULL, OPT_INSIDE_ADDRESS },
		{ "gateway", required_argument, NULL, OPT_GATEWAY },
		{ "pass-outside", no_argument, NULL, OPT_PASS_OUTSIDE },
		{ "no-rules", no_argument, NULL, OPT_NO_RULES },
		{ NULL, 0, NULL, 0 },
	};
	static const struct nf nat = {
		.name = "nf-nat",
		.summary = "Masquerade an inside network behind one IPv4 address; forward ports in.",
		.usage = "      --inside IF      the inside interface (required)\n"
			 "      --outside IF     the outside interface (required); its MAC is the\n"
			 "                       public address's\n"
			 "      --public ADDR    the public IPv4 address (required)\n"
			 "      --inside-address ADDR  the inside hosts' router address; ARP is\n"
			 "                       answered inside for it only (default: for any\n"
			 "                       address not of a known inside host)\n"
			 "      --gateway ADDR[@MAC]  the outside next hop (default: each\n"
			 "                       destination), its MAC if it is not to be asked\n"
			 "      --pass-outside   pass outside IPv4 for other addresses than the\n"
			 "                       public one (dropped by default)\n"
			 "      --ports LO-HI    public ports for outbound connections (20000-59999)\n"
			 "      --no-rules       on several slices, never steer a connection's\n"
			 "                       return flow to its worker by a rule\n"
			 "      --forward tcp|udp:PORT=ADDR:PORT  port forward to an inside host\n"
			 "                       (repeatable)\n"
			 "      --max-conns N    connection table size (65536)\n"
			 "      --timeout-tcp SEC, --timeout-tcp-transitory SEC, --timeout-udp SEC,\n"
			 "      --timeout-icmp SEC   idle timeouts (7440, 240, 300, 60)\n",
		.cut = "auto",
		.gso = true,
		.options = options,
		.arg = &nat_state,
		.option = nat_option,
		.setup = nat_setup,
		.worker_init = nat_worker_init,
		.worker_fini = nat_worker_fini,
		.process = nat_process,
		.tick = nat_tick,
		.report = nat_report,
	};
	int ret = nf_main(argc, argv, &nat), p;
	unsigned int i;

	if (nat_state.tick_rules)
		ns_rules_close(nat_state.tick_rules);
	for (i = 0; nat_state.parts && i < nat_state.nr_parts; i++)
		nat_part_fini(&nat_state.parts[i]);
	free(nat_state.parts);
	for (p = 0; p < NAT_PROTOS; p++)
		free(nat_state.port_used[p]);
	return ret;
}
