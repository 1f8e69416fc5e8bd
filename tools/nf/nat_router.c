// SPDX-License-Identifier: GPL-2.0 WITH LicenseRef-netslice-OpenSSL-exception
/*
 * nf-nat as the hosts' router: what it must not forward, next hops and
 * their MACs (ARP asked and answered, never crossing), packets held while
 * ARP asks, ICMP time exceeded for what would expire here, and pings to
 * its own addresses.
 * Called under the lock of a part, whose counters they add to; packets
 * held for ARP are shared by the workers, under nat->lock.
 */
#include <arpa/inet.h>
#include <netinet/ip_icmp.h>
#include <string.h>

#include "nat_router.h"

const struct nat_refusal_name nat_refusal_names[NAT_REFUSALS] = {
	[NAT_REFUSE_LOOPBACK] = { "dropped_loopback", "from or to a loopback address" },
	[NAT_REFUSE_SOURCE] = { "dropped_bad_source", "from no unicast address" },
	[NAT_REFUSE_THIS_NETWORK] = { "dropped_this_network", "to 0.0.0.0/8" },
	[NAT_REFUSE_MULTICAST] = { "dropped_multicast", "to a multicast address" },
	[NAT_REFUSE_BROADCAST] = { "dropped_broadcast", "to the limited broadcast address" },
	[NAT_REFUSE_CLASS_E] = { "dropped_class_e", "to a class E address" },
	[NAT_REFUSE_LINK_GROUP] = { "dropped_link_broadcast", "sent to a broadcast or multicast MAC" },
	[NAT_REFUSE_OTHER_MAC] = { "dropped_not_our_mac", "sent to another MAC" },
};

/*
 * RFC 1812: martians are never forwarded (5.3.7: a loopback address either
 * way, a source that is not unicast, a destination on network 0 or class
 * E), nor limited broadcasts (5.3.5.1), nor multicast (nf-nat routes none;
 * 224.0.0.0/24 never leaves its link), nor what came as a link-layer
 * broadcast or multicast (5.3.4). A frame to another MAC was never meant
 * for the router: a host drops it too. The addresses come first, so a
 * broadcast is counted as one whatever its MAC. Directed broadcasts it
 * cannot tell: it knows no prefix.
 */
int nat_refusal(const struct nat *nat, const struct ns_pkt *p, const struct ns_flow *f,
		int inside)
{
	const uint8_t *dmac = ns_pkt_eth(p)->ether_dhost;
	uint32_t src, dst;

	memcpy(&src, f->saddr, 4);
	memcpy(&dst, f->daddr, 4);
	src = ntohl(src);
	dst = ntohl(dst);
	if (nat_loopback(src) || nat_loopback(dst))
		return NAT_REFUSE_LOOPBACK;
	if (nat_not_unicast(src))
		return NAT_REFUSE_SOURCE;
	if (dst >> 24 == 0)
		return NAT_REFUSE_THIS_NETWORK;
	if (dst >> 28 == 0xe)
		return NAT_REFUSE_MULTICAST;
	if (dst == 0xffffffff)
		return NAT_REFUSE_BROADCAST;
	if (dst >> 28 == 0xf)
		return NAT_REFUSE_CLASS_E;
	if (dmac[0] & 1)
		return NAT_REFUSE_LINK_GROUP;
	if (memcmp(dmac, inside ? nat->inside_mac : nat->public_mac, 6))
		return NAT_REFUSE_OTHER_MAC;
	return -1;
}

uint32_t nat_hop(const struct nat *nat, uint32_t dst)
{
	return nat->gateway ? nat->gateway : dst;
}

/* The MAC of the outside next hop toward dst; unknown: ask by ARP, -1. */
int nat_next_hop(struct nat *nat, struct ns_worker *w, uint32_t dst, uint8_t mac[6])
{
	uint32_t hop = nat_hop(nat, dst);

	if (nat->has_gateway_mac) {
		memcpy(mac, nat->gateway_mac, 6);
		return 0;
	}
	if (!nf_neigh_lookup(&nat->out_neigh, hop, mac))
		return 0;
	nf_neigh_probe(&nat->out_neigh, w, nat->outside, nat->public_mac, nat->public_addr, hop);
	return -1;
}

/*
 * A translated packet whose next hop is being asked for waits for the
 * answer instead of being dropped (a dropped SYN costs its sender a
 * second). Whole packets only: a cut one's payload cannot wait outside
 * its batch. The oldest waiting packet gives way when all slots are taken.
 */
static void nat_release(struct nat *nat, struct nat_counts *n, struct ns_worker *w,
			uint32_t hop, const uint8_t mac[6]);

void nat_hold(struct nat *nat, struct nat_counts *n, struct ns_worker *w,
	      struct netslice_iov *iov, uint32_t hop)
{
	struct nat_held *h = NULL;
	unsigned int i;

	if (iov->handle || iov->flags || iov->rlen != iov->wire_len ||
	    iov->rlen > NAT_HELD_BYTES) {
		n->no_mac++;
		return;
	}
	pthread_mutex_lock(&nat->lock);
	for (i = 0; i < NAT_HELD && !h; i++)
		if (!nat->held[i].hop)
			h = &nat->held[i];
	if (!h) {
		h = &nat->held[nat->held_next++ % NAT_HELD];
		n->no_mac++;		/* the one it replaces */
		nf_held_dropped(h->holder);
	}
	h->hop = hop;
	h->len = iov->rlen;
	h->holder = ns_worker_index(w);
	nf_hold(w);
	memcpy(h->frame, ns_iov_data(iov), iov->rlen);
	h->ready = 0;
	pthread_mutex_unlock(&nat->lock);
	n->held_arp++;
}

/*
 * After the holder's batch has sent its steering rules: what it held may
 * leave now (a packet opening a connection must not beat its rule out).
 * Another worker may have taken the answer in already, and passed over
 * the packets not ready: the answer is learned before the held packets
 * are looked at, so one of the two sees the other.
 */
void nat_held_ready(struct nat *nat, struct nat_counts *n, struct ns_worker *w)
{
	uint32_t hops[NAT_HELD];
	unsigned int i, nr = 0;
	uint8_t mac[6];

	pthread_mutex_lock(&nat->lock);
	for (i = 0; i < NAT_HELD; i++)
		if (nat->held[i].hop && nat->held[i].holder == ns_worker_index(w) && !nat->held[i].ready) {
			nat->held[i].ready = 1;
			hops[nr++] = nat->held[i].hop;
		}
	pthread_mutex_unlock(&nat->lock);
	for (i = 0; i < nr; i++)
		if (!nf_neigh_lookup(&nat->out_neigh, hops[i], mac))
			nat_release(nat, n, w, hops[i], mac);
}

/* hop answered with mac: what waited for it leaves now. */
static void nat_release(struct nat *nat, struct nat_counts *n, struct ns_worker *w,
			uint32_t hop, const uint8_t mac[6])
{
	unsigned int i;

	pthread_mutex_lock(&nat->lock);
	for (i = 0; i < NAT_HELD; i++) {
		if (nat->held[i].hop != hop || !nat->held[i].ready)
			continue;
		memcpy(nat->held[i].frame, mac, 6);
		/* Held only on the way out: from inside, to the inside's pair or next slice. */
		if (nf_send_held(w, nat->held[i].holder, nat->held[i].frame, nat->held[i].len,
				 nat->inside))
			n->no_mac++;
		else
			n->held_sent++;
		nat->held[i].hop = 0;
	}
	pthread_mutex_unlock(&nat->lock);
}

/* The address an inside ARP request asks for, if the NAT should answer it. */
static uint32_t nat_inside_target(struct nat *nat, const struct ns_pkt *p)
{
	const uint8_t *arp = p->data + p->l3_off;
	uint32_t spa, tpa;
	uint8_t mac[6];

	memcpy(&spa, arp + 14, 4);
	memcpy(&tpa, arp + 24, 4);
	if (!tpa || tpa == spa)
		return 0;	/* a probe or an announcement, no question */
	if (nat->inside_addr)
		return tpa == nat->inside_addr ? tpa : 0;
	/* Routers answer for what is not on the link; an inside host answers for itself. */
	return nf_neigh_lookup(&nat->neigh, tpa, mac) ? tpa : 0;
}

/*
 * ARP never crosses the NAT. Outside: learn the sender, answer for the
 * public address. Inside: learn the sender, answer as the hosts' router.
 */
void nat_arp(struct nat *nat, struct nat_counts *n, struct ns_worker *w,
	     struct netslice_iov *iov, struct ns_pkt *p, int inside)
{
	uint32_t target, spa;

	if (p->caplen < (size_t)p->l3_off + 28) {
		n->malformed++;
		ns_iov_drop(iov);
		return;
	}
	if (!inside) {
		nf_neigh_arp(&nat->out_neigh, p, nat->public_addr);
		memcpy(&spa, p->data + p->l3_off + 14, 4);
		nat_release(nat, n, w, spa, p->data + p->l3_off + 8);
		if (ns_arp_answer(p, nat->public_addr, nat->public_mac)) {
			iov->action = NETSLICE_TX_IFINDEX;	/* back out */
			n->arp_answered++;
			return;
		}
	} else {
		target = nat_inside_target(nat, p);
		nf_neigh_arp(&nat->neigh, p, nat->public_addr);
		if (target && ns_arp_answer(p, target, nat->inside_mac)) {
			iov->action = NETSLICE_TX_IFINDEX;
			n->arp_answered_inside++;
			return;
		}
	}
	n->arp_dropped++;
	ns_iov_drop(iov);
}

/* Our address on the side a packet came from: what its sender knows us by. */
static uint32_t nat_our_addr(const struct nat *nat, int inside)
{
	return inside && nat->inside_addr ? nat->inside_addr : nat->public_addr;
}

/*
 * A packet that would expire here: dropped, and ICMP time exceeded sent
 * back out of the interface it came in on (never about an ICMP error).
 */
void nat_time_exceeded(struct nat *nat, struct nat_counts *n, struct ns_worker *w,
		       struct netslice_iov *iov, const struct ns_pkt *p, int inside)
{
	uint8_t err[14 + 576];
	int len;

	n->ttl_expired++;
	ns_iov_drop(iov);
	len = ns_icmp_error_build(err, sizeof(err), p, ICMP_TIME_EXCEEDED, ICMP_EXC_TTL, 0,
				  nat_our_addr(nat, inside),
				  inside ? nat->inside_mac : nat->public_mac);
	if (len > 0)
		nf_inject(w, err, (uint32_t)len, (int)iov->ifindex);
}

/* An echo request to one of our addresses: answered in place, back where it came from. */
void nat_echo_reply(struct nat *nat, struct nat_counts *n, struct netslice_iov *iov,
		    struct ns_pkt *p, int inside)
{
	struct ether_header *eth = ns_pkt_eth(p);
	uint8_t *ip = p->data + p->l3_off, *icmp = p->data + p->l4_off;
	uint32_t src, dst;
	uint16_t old, csum;

	memcpy(&src, ip + 12, 4);
	memcpy(&dst, ip + 16, 4);
	ns_pkt_set_addr(p, 0, &dst);
	ns_pkt_set_addr(p, 1, &src);
	/* A fresh TTL, as any host's reply. */
	memcpy(&old, ip + 8, 2);
	ip[8] = 64;
	memcpy(&csum, ip + 10, 2);
	ns_csum_update(&csum, &old, ip + 8, 2);
	memcpy(ip + 10, &csum, 2);
	/* Type 8 -> 0: the ICMP checksum's word changes (payload parked or not). */
	memcpy(&old, icmp, 2);
	icmp[0] = ICMP_ECHOREPLY;
	memcpy(&csum, icmp + 2, 2);
	ns_csum_update(&csum, &old, icmp, 2);
	memcpy(icmp + 2, &csum, 2);
	memcpy(eth->ether_dhost, eth->ether_shost, 6);
	memcpy(eth->ether_shost, inside ? nat->inside_mac : nat->public_mac, 6);
	iov->action = NETSLICE_TX_IFINDEX;	/* back out */
	n->echo_answered++;
}
