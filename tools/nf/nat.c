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
 * One table for all workers under one mutex, taken once per batch: the
 * two directions of a translated flow hash to different slices.
 */
#include <arpa/inet.h>
#include <netinet/ip_icmp.h>
#include <netinet/tcp.h>
#include <pthread.h>
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

static struct nat_conn *nat_find_out(struct nat *nat, uint8_t proto, uint32_t in_addr,
				     uint16_t in_port, uint32_t rem_addr, uint16_t rem_port)
{
	struct nat_conn *c = nat->out_hash[nat_hash(proto, in_addr, in_port, rem_addr, rem_port)];

	for (; c; c = c->out_next)
		if (c->proto == proto && c->in_addr == in_addr && c->in_port == in_port &&
		    c->rem_addr == rem_addr && c->rem_port == rem_port)
			return c;
	return NULL;
}

static struct nat_conn *nat_find_in(struct nat *nat, uint8_t proto, uint32_t rem_addr,
				    uint16_t rem_port, uint16_t pub_port)
{
	struct nat_conn *c = nat->in_hash[nat_hash(proto, rem_addr, rem_port, 0, pub_port)];

	for (; c; c = c->in_next)
		if (c->proto == proto && c->rem_addr == rem_addr && c->rem_port == rem_port &&
		    c->pub_port == pub_port)
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

static void nat_remove(struct nat *nat, struct nat_conn *c)
{
	nat_unlink(&nat->out_hash[nat_out_hash(c)], c, 1);
	nat_unlink(&nat->in_hash[nat_in_hash(c)], c, 0);
	if (!c->dnat)
		nat->port_used[nat_proto_index(c->proto)][ntohs(c->pub_port)] = 0;
	c->used = 0;
	c->out_next = nat->free_list;
	nat->free_list = c;
	nat->active--;
}

/* A free public port for a new outbound connection, or 0. */
static uint16_t nat_alloc_port(struct nat *nat, uint8_t proto, uint32_t hash)
{
	uint8_t *used = nat->port_used[nat_proto_index(proto)];
	unsigned long span = nat->port_hi - nat->port_lo + 1, i, port;

	for (i = 0; i < span; i++) {
		port = nat->port_lo + (hash + i) % span;
		if (!used[port]) {
			used[port] = 1;
			return htons((uint16_t)port);
		}
	}
	return 0;
}

static struct nat_conn *nat_add(struct nat *nat, const struct nat_conn *tmpl)
{
	struct nat_conn *c = nat->free_list;
	uint32_t h;

	if (!c) {
		nat->table_full++;
		return NULL;
	}
	nat->free_list = c->out_next;
	*c = *tmpl;
	c->used = 1;
	h = nat_out_hash(c);
	c->out_next = nat->out_hash[h];
	nat->out_hash[h] = c;
	h = nat_in_hash(c);
	c->in_next = nat->in_hash[h];
	nat->in_hash[h] = c;
	nat->active++;
	nat->created++;
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

static void nat_outbound(struct nat *nat, struct ns_worker *w, struct netslice_iov *iov,
			 struct ns_pkt *p, const struct ns_flow *f, uint64_t now)
{
	struct ether_header *eth = ns_pkt_eth(p);
	uint32_t in_addr, rem_addr;
	uint16_t rem_port = p->l4_proto == IPPROTO_ICMP ? 0 : f->dport;
	struct nat_conn *c, tmpl;
	uint8_t hop_mac[6];
	int unresolved = 0;

	memcpy(&in_addr, f->saddr, 4);
	memcpy(&rem_addr, f->daddr, 4);
	nf_neigh_learn(&nat->neigh, in_addr, eth->ether_shost);
	c = nat_find_out(nat, p->l4_proto, in_addr, f->sport, rem_addr, rem_port);
	if (c && nat_expired(nat, c, now)) {
		nat_remove(nat, c);
		c = NULL;
	}
	/* The next hop once per connection; unknown, the packet waits for ARP. */
	if (c && c->has_out_mac)
		memcpy(hop_mac, c->out_mac, 6);
	else
		unresolved = nat_next_hop(nat, w, rem_addr, hop_mac);
	if (!c) {
		memset(&tmpl, 0, sizeof(tmpl));
		tmpl.proto = p->l4_proto;
		tmpl.in_addr = in_addr;
		tmpl.in_port = f->sport;
		tmpl.rem_addr = rem_addr;
		tmpl.rem_port = rem_port;
		memcpy(tmpl.in_mac, eth->ether_shost, 6);
		tmpl.pub_port = nat_alloc_port(nat, p->l4_proto, ns_flow_hash(f, 1));
		if (!tmpl.pub_port) {
			nat->no_ports++;
			ns_iov_drop(iov);
			return;
		}
		c = nat_add(nat, &tmpl);
		if (!c) {
			nat->port_used[nat_proto_index(p->l4_proto)][ntohs(tmpl.pub_port)] = 0;
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
	nat->out_packets++;
	if (unresolved) {
		nat_hold(nat, w, iov, nat_hop(nat, rem_addr));
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

static void nat_inbound(struct nat *nat, struct ns_worker *w, struct netslice_iov *iov,
			struct ns_pkt *p, const struct ns_flow *f, uint64_t now)
{
	uint16_t rem_port = p->l4_proto == IPPROTO_ICMP ? 0 : f->sport;
	const struct nat_forward *fwd;
	struct nat_conn *c, tmpl;
	uint8_t mac[6];
	uint32_t rem_addr;

	memcpy(&rem_addr, f->saddr, 4);
	c = nat_find_in(nat, p->l4_proto, rem_addr, rem_port, f->dport);
	if (c && nat_expired(nat, c, now)) {
		nat_remove(nat, c);
		c = NULL;
	}
	if (!c) {
		fwd = nat_find_forward(nat, p->l4_proto, f->dport);
		if (!fwd) {
			nat->no_conn++;
			ns_iov_drop(iov);
			nf_log_drop(p, "no connection or port forward");
			return;
		}
		if (nf_neigh_lookup(&nat->neigh, fwd->in_addr, mac)) {
			nf_neigh_probe(&nat->neigh, w, nat->inside, nat->inside_mac,
				       nat->inside_addr ? nat->inside_addr : nat->public_addr,
				       fwd->in_addr);
			ns_iov_drop(iov);
			return;
		}
		memset(&tmpl, 0, sizeof(tmpl));
		tmpl.proto = p->l4_proto;
		tmpl.in_addr = fwd->in_addr;
		tmpl.in_port = fwd->in_port;
		tmpl.rem_addr = rem_addr;
		tmpl.rem_port = rem_port;
		tmpl.pub_port = fwd->pub_port;
		tmpl.dnat = 1;
		memcpy(tmpl.in_mac, mac, 6);
		c = nat_add(nat, &tmpl);
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
		nf_neigh_learn(&nat->out_neigh, rem_addr, c->out_mac);
	}
	nat_touch(c, p, 1, now);
	ns_pkt_set_addr(p, 1, &c->in_addr);
	ns_pkt_set_port(p, 1, c->in_port);
	memcpy(ns_pkt_eth(p)->ether_shost, nat->inside_mac, 6);
	memcpy(ns_pkt_eth(p)->ether_dhost, c->in_mac, 6);
	nat->in_packets++;
}

/*
 * An ICMP error about a translated connection (RFC 5508 4.2): from
 * outside, about a packet we sent (quoting public:port -> remote), it goes
 * to the inside host with the quote restored; from inside, about a packet
 * we let in (quoting remote -> host:port), it leaves from the public
 * address with the quote translated. Anything else is dropped.
 */
static void nat_icmp_error(struct nat *nat, struct ns_worker *w, struct netslice_iov *iov,
			   struct ns_pkt *p, int inside, uint64_t now)
{
	struct ether_header *eth = ns_pkt_eth(p);
	struct nat_conn *c = NULL;
	struct ns_pkt q;
	struct ns_flow qf;
	uint32_t qsrc, qdst;
	uint8_t hop_mac[6];
	int icmp;

	if (ns_pkt_icmp_quote(p, &q) || !q.l4_off || ns_pkt_flow(&q, &qf) ||
	    (q.l4_proto != IPPROTO_TCP && q.l4_proto != IPPROTO_UDP && !ns_pkt_icmp_echo(&q))) {
		nat->untranslatable++;
		ns_iov_drop(iov);
		return;
	}
	icmp = q.l4_proto == IPPROTO_ICMP;
	memcpy(&qsrc, qf.saddr, 4);
	memcpy(&qdst, qf.daddr, 4);
	if (!inside && qsrc == nat->public_addr)
		c = nat_find_in(nat, q.l4_proto, qdst, icmp ? 0 : qf.dport, qf.sport);
	else if (inside)
		c = nat_find_out(nat, q.l4_proto, qdst, qf.dport, qsrc, icmp ? 0 : qf.sport);
	if (!c || nat_expired(nat, c, now)) {
		nat->no_conn++;
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
		} else if (nat_next_hop(nat, w, c->rem_addr, hop_mac)) {
			nat->no_mac++;
			ns_iov_drop(iov);
			return;
		}
		ns_pkt_icmp_quote_rewrite(p, &q, 1, &nat->public_addr, c->pub_port);
		/* From the host or a router inside: out of the public address either way. */
		ns_pkt_set_addr(p, 0, &nat->public_addr);
		memcpy(eth->ether_shost, nat->public_mac, 6);
		memcpy(eth->ether_dhost, hop_mac, 6);
	}
	nat->icmp_errors++;
}

static void nat_one(struct nat *nat, struct ns_worker *w, struct netslice_iov *iov, uint64_t now)
{
	int inside = (int)iov->ifindex == nat->inside;
	struct ns_flow f;
	struct ns_pkt p;
	uint32_t daddr;

	if (ns_pkt_parse(&p, ns_iov_data(iov), iov->rlen, iov->wire_len)) {
		nat->malformed++;
		ns_iov_drop(iov);
		return;
	}
	if (p.eth_type == ETHERTYPE_ARP) {
		nat_arp(nat, w, iov, &p, inside);
		return;
	}
	if (!inside && (int)iov->ifindex != nat->outside) {
		nat->passed++;		/* another pair's: not ours */
		return;
	}
	if (p.family != AF_INET) {
		nat->not_ipv4++;
		ns_iov_drop(iov);
		nf_log_drop(&p, "not IPv4");
		return;
	}
	ns_pkt_flow(&p, &f);
	memcpy(&daddr, f.daddr, 4);
	if (!inside && daddr != nat->public_addr) {
		/* Unsolicited: nothing outside may reach an inside address (RFC 4787 5). */
		if (nat->pass_outside) {
			nat->passed++;
			return;
		}
		nat->not_public++;
		ns_iov_drop(iov);
		nf_log_drop(&p, "unsolicited, not to the public address");
		return;
	}
	if (p.frag) {
		nat->fragments++;
		ns_iov_drop(iov);
		nf_log_drop(&p, "a fragment");
		return;
	}
	/* For us: pings answered; from inside, nothing else (no hairpin). */
	if (daddr == nat->public_addr || (inside && daddr == nat->inside_addr)) {
		if (ns_pkt_icmp_echo(&p) && p.data[p.l4_off] == ICMP_ECHO) {
			nat_echo_reply(nat, iov, &p, inside);
			return;
		}
		if (inside) {
			nat->hairpin++;
			ns_iov_drop(iov);
			nf_log_drop(&p, "to the NAT's own address (no hairpinning)");
			return;
		}
	}
	/* Forwarded: one hop less, or time exceeded (an expiring error is only dropped). */
	if (ns_pkt_dec_ttl(&p)) {
		if (ns_pkt_icmp_error(&p)) {
			nat->ttl_expired++;
			ns_iov_drop(iov);
		} else {
			nat_time_exceeded(nat, w, iov, &p, inside);
		}
		return;
	}
	if (ns_pkt_icmp_error(&p)) {
		nat_icmp_error(nat, w, iov, &p, inside, now);
		return;
	}
	if ((p.l4_proto != IPPROTO_TCP && p.l4_proto != IPPROTO_UDP && !ns_pkt_icmp_echo(&p)) ||
	    !p.l4_off) {
		nat->untranslatable++;
		ns_iov_drop(iov);
		nf_log_drop(&p, "untranslatable");
		return;
	}
	if (inside)
		nat_outbound(nat, w, iov, &p, &f, now);
	else
		nat_inbound(nat, w, iov, &p, &f, now);
}

static void nat_process(struct ns_worker *w, struct netslice_iov *iov, unsigned int n, void *arg)
{
	struct nat *nat = arg;
	uint64_t now = nf_now_ms();
	unsigned int i;

	pthread_mutex_lock(&nat->lock);
	for (i = 0; i < n; i++)
		nat_one(nat, w, &iov[i], now);
	pthread_mutex_unlock(&nat->lock);
}

static void nat_tick(void *arg)
{
	struct nat *nat = arg;
	uint64_t now = nf_now_ms();
	unsigned long i;

	unsigned long live = 0;

	/*
	 * Only as far as the last live connection: the free list hands out
	 * the lowest entries first, so that is rarely far, and the workers
	 * waiting for the lock are not held up by a walk of the whole table.
	 */
	pthread_mutex_lock(&nat->lock);
	for (i = 0; i < nat->max_conns && live < nat->active; i++) {
		if (!nat->conns[i].used)
			continue;
		if (nat_expired(nat, &nat->conns[i], now)) {
			nat_remove(nat, &nat->conns[i]);
			nat->expired++;
		} else {
			live++;
		}
	}
	pthread_mutex_unlock(&nat->lock);
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
		"dropped_hairpin",
	};
	struct nat *nat = arg;
	const uint64_t v[] = {
		nat->created, nat->expired, nat->out_packets, nat->in_packets, nat->icmp_errors,
		nat->arp_answered, nat->arp_answered_inside, nat->neigh.probes,
		nat->out_neigh.probes, nat->arp_dropped, nat->no_conn, nat->not_public,
		nat->no_mac, nat->untranslatable, nat->fragments, nat->no_ports, nat->table_full,
		nat->malformed, nat->passed, nat->held_arp, nat->held_sent,
		nat->neigh.overflow + nat->out_neigh.overflow, nat->not_ipv4, nat->ttl_expired,
		nat->echo_answered, nat->hairpin,
	};
	unsigned int i;

	pthread_mutex_lock(&nat->lock);
	if (j) {
		json_u64(j, "active", nat->active);
		for (i = 0; i < sizeof(v) / sizeof(v[0]); i++)
			json_u64(j, names[i], v[i]);
	} else {
		fprintf(f, "  connections: %lu active", nat->active);
		for (i = 0; i < sizeof(v) / sizeof(v[0]); i++)
			fprintf(f, "%s%s %llu", i % 4 ? ", " : "\n  ", names[i],
				(unsigned long long)v[i]);
		fputc('\n', f);
	}
	pthread_mutex_unlock(&nat->lock);
}

enum {
	OPT_INSIDE = NF_OPT_BASE, OPT_OUTSIDE, OPT_PUBLIC, OPT_PORTS, OPT_FORWARD, OPT_MAX_CONNS,
	OPT_TIMEOUT_TCP, OPT_TIMEOUT_TRANSITORY, OPT_TIMEOUT_UDP, OPT_TIMEOUT_ICMP,
	OPT_INSIDE_ADDRESS, OPT_GATEWAY, OPT_PASS_OUTSIDE,
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
	nat->conns = calloc(nat->max_conns, sizeof(*nat->conns));
	for (p = 0; p < NAT_PROTOS; p++)
		nat->port_used[p] = calloc(65536, 1);
	if (!nat->conns || !nat->port_used[NAT_TCP] || !nat->port_used[NAT_UDP] ||
	    !nat->port_used[NAT_ICMP]) {
		nf_err("out of memory for %lu connections", nat->max_conns);
		return -1;
	}
	for (i = nat->max_conns; i-- > 0;) {
		nat->conns[i].out_next = nat->free_list;
		nat->free_list = &nat->conns[i];
	}
	/* Forwarded ports are never handed out to outbound connections. */
	for (i = 0; i < nat->nr_forwards; i++)
		nat->port_used[nat_proto_index(nat->forwards[i].proto)]
			[ntohs(nat->forwards[i].pub_port)] = 2;
	return 0;
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
		.process = nat_process,
		.tick = nat_tick,
		.report = nat_report,
	};
	int ret = nf_main(argc, argv, &nat), p;

	free(nat_state.conns);
	for (p = 0; p < NAT_PROTOS; p++)
		free(nat_state.port_used[p]);
	return ret;
}
