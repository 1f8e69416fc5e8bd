/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nf-nat's state, shared by its translation (nat.c) and its part as the
 * hosts' router (nat_router.c: neighbours and ARP, packets held for an
 * answer, time exceeded, pings to its addresses).
 */
#ifndef NF_NAT_H
#define NF_NAT_H

#include <pthread.h>
#include <stdint.h>

#include "neigh.h"
#include "nf.h"

#define NAT_MAX_FORWARDS 64
/* Packets that wait for their next hop's ARP answer, as a router's neighbour queue. */
#define NAT_HELD 16
#define NAT_HELD_BYTES 2048
#define NAT_HASH_BITS 16

enum { NAT_TCP, NAT_UDP, NAT_ICMP, NAT_PROTOS };
enum { CONN_OPENING, CONN_ESTABLISHED, CONN_CLOSING };

struct nat_conn {
	uint32_t in_addr, rem_addr;	/* network order */
	uint16_t in_port, rem_port, pub_port;	/* network order; ICMP: rem_port 0 */
	uint8_t proto, state, used, dnat;
	uint8_t has_out_mac;		/* out_mac resolved: no lookup per packet */
	uint8_t in_mac[6], out_mac[6];	/* the inside host's, the outside next hop's */
	uint64_t last_ms;
	struct nat_conn *out_next, *in_next;	/* hash chains */
};

struct nat_held {
	uint32_t hop;			/* network order; 0: a free slot */
	uint32_t len;
	unsigned int holder;		/* the worker that held it */
	uint8_t frame[NAT_HELD_BYTES];	/* translated; the destination MAC comes with ARP */
};

struct nat_forward {
	uint8_t proto;
	uint16_t pub_port, in_port;	/* network order */
	uint32_t in_addr;
};

struct nat {
	const char *inside_name, *outside_name;
	int inside, outside;		/* ifindex */
	uint32_t public_addr, inside_addr, gateway;	/* network order; 0: none */
	uint8_t public_mac[6], inside_mac[6], gateway_mac[6];
	int has_gateway_mac;		/* --gateway ADDR@MAC: never asked by ARP */
	int pass_outside;		/* pass outside IPv4 not for the public address */
	unsigned long port_lo, port_hi, max_conns;
	unsigned long timeout[4];	/* seconds: tcp, tcp transitory, udp, icmp */
	struct nat_forward forwards[NAT_MAX_FORWARDS];
	unsigned int nr_forwards;

	pthread_mutex_t lock;		/* protects everything below */
	struct nat_conn *conns, *free_list;
	struct nat_conn *out_hash[1 << NAT_HASH_BITS], *in_hash[1 << NAT_HASH_BITS];
	uint8_t *port_used[NAT_PROTOS];	/* 65536 each: 1 taken, 2 forwarded */
	struct nf_neigh_table neigh;	/* inside hosts */
	struct nf_neigh_table out_neigh;	/* next hops outside */
	struct nat_held held[NAT_HELD];
	unsigned int held_next;		/* the slot to take when none is free */
	unsigned long active;
	uint64_t created, expired, out_packets, in_packets, arp_answered, arp_answered_inside,
		 icmp_errors, no_conn, untranslatable, fragments, no_ports, table_full, malformed,
		 not_public, no_mac, arp_dropped, passed, held_arp, held_sent, not_ipv4,
		 ttl_expired, echo_answered, hairpin;
};

/* nat_router.c; the caller holds nat->lock. */
/* The next hop for dst: the gateway, or dst itself (on the link). */
uint32_t nat_hop(const struct nat *nat, uint32_t dst);
int nat_next_hop(struct nat *nat, struct ns_worker *w, uint32_t dst, uint8_t mac[6]);
void nat_hold(struct nat *nat, struct ns_worker *w, struct netslice_iov *iov, uint32_t hop);
void nat_release(struct nat *nat, struct ns_worker *w, uint32_t hop, const uint8_t mac[6]);
void nat_arp(struct nat *nat, struct ns_worker *w, struct netslice_iov *iov,
	     struct ns_pkt *p, int inside);
void nat_time_exceeded(struct nat *nat, struct ns_worker *w, struct netslice_iov *iov,
		       const struct ns_pkt *p, int inside);
void nat_echo_reply(struct nat *nat, struct netslice_iov *iov, struct ns_pkt *p,
		    int inside);

#endif /* NF_NAT_H */
