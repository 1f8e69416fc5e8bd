/* SPDX-License-Identifier: GPL-2.0 WITH LicenseRef-netslice-OpenSSL-exception */
/*
 * nf-nat's state, shared by its command line and report (nat.c), its
 * packet path (nat_packet.c), its connection table of one part per
 * worker with the steering rules of each (nat_table.c), and its part as
 * the hosts' router (nat_router.c: neighbours and ARP, packets held for
 * an answer, time exceeded, pings to its addresses).
 */
#ifndef NF_NAT_STATE_H
#define NF_NAT_STATE_H

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
	uint8_t ruled;			/* a steering rule was sent for its other flow */
	uint8_t in_mac[6], out_mac[6];	/* the inside host's, the outside next hop's */
	uint64_t last_ms;
	struct nat_conn *out_next, *in_next;	/* hash chains */
};

struct nat_held {
	uint32_t hop;			/* network order; 0: a free slot */
	uint32_t len;
	unsigned int holder;		/* the worker that held it */
	int ready;			/* its batch's rules are sent: it may leave */
	uint8_t frame[NAT_HELD_BYTES];	/* translated; the destination MAC comes with ARP */
};

struct nat_forward {
	uint8_t proto;
	uint16_t pub_port, in_port;	/* network order */
	uint32_t in_addr;
};

/*
 * What a router never forwards (RFC 1812 4.2.2.11, 5.3.4, 5.3.7): why
 * nat_refusal() turns a packet away, each counted on its own.
 */
enum nat_refusal {
	NAT_REFUSE_LOOPBACK,		/* from or to 127.0.0.0/8 */
	NAT_REFUSE_SOURCE,		/* from no unicast address */
	NAT_REFUSE_THIS_NETWORK,	/* to 0.0.0.0/8 */
	NAT_REFUSE_MULTICAST,		/* to 224.0.0.0/4: nf-nat routes no multicast */
	NAT_REFUSE_BROADCAST,		/* to 255.255.255.255 */
	NAT_REFUSE_CLASS_E,		/* to 240.0.0.0/4 */
	NAT_REFUSE_LINK_GROUP,		/* to a broadcast or multicast MAC */
	NAT_REFUSE_OTHER_MAC,		/* to another host's MAC */
	NAT_REFUSALS
};

/* Its counter's name in the report, and what the drop log says. */
struct nat_refusal_name {
	const char *counter, *why;
};


/* Addresses (host order) no unicast host has: never a source, nor an option's value. */
static inline int nat_loopback(uint32_t h)
{
	return h >> 24 == 127;
}

static inline int nat_not_unicast(uint32_t h)
{
	/* 0.0.0.0/8 ("this network"), multicast, class E and limited broadcast */
	return h >> 24 == 0 || h >> 28 >= 0xe;
}

/* What a part counts, under its lock; the report adds the parts up. */
struct nat_counts {
	uint64_t created, expired, out_packets, in_packets, arp_answered, arp_answered_inside,
		 icmp_errors, no_conn, untranslatable, fragments, no_ports, table_full, malformed,
		 not_public, no_mac, arp_dropped, passed, held_arp, held_sent, not_ipv4,
		 ttl_expired, echo_answered, hairpin;
	/* Found in another worker's part; steering rules changed, and refused. */
	uint64_t foreign, rules_set, rules_deleted, rule_errors;
	uint64_t refused[NAT_REFUSALS];
};

/* A steering rule change waiting for the end of the batch (or the tick's walk). */
struct nat_rule_op {
	enum ns_rule_op op;
	struct ns_rule rule;
};

/*
 * One worker's connections (docs/nfs.md, "nf-nat on several slices"):
 * those it opened, whose return flows a steering rule sends to its slice.
 * Its worker takes the lock once per batch; another worker only when a
 * packet's connection is not in its own part (ICMP, a port forward's
 * answer, a flow before its rule), and the tick once a second.
 */
struct nat_part {
	pthread_mutex_t lock;		/* protects everything below but the worker's own */
	struct nat_conn *conns, *free_list;
	struct nat_conn **out_hash, **in_hash;	/* 1 << NAT_HASH_BITS each */
	unsigned long active, max_conns;
	struct nat_counts n;

	/* The worker's own, no lock: its rule handle and the batch's changes. */
	struct ns_rules *rules;
	struct nat_rule_op *ops;
	unsigned int nr_ops, max_ops;
	uint32_t *held_ports;		/* freed once the batch's deletions are sent */
	unsigned int nr_held_ports;
	unsigned int *deferred;		/* the batch's packets for another part */
	unsigned int nr_deferred;
	int held;			/* the batch held a packet for ARP */
};

struct nat {
	const char *inside_name, *outside_name;
	int inside, outside;		/* ifindex */
	uint32_t public_addr, inside_addr, gateway;	/* network order; 0: none */
	uint8_t public_mac[6], inside_mac[6], gateway_mac[6];
	int has_gateway_mac;		/* --gateway ADDR@MAC: never asked by ARP */
	int pass_outside;		/* pass outside IPv4 not for the public address */
	int no_rules;			/* --no-rules: never install steering rules */
	unsigned int given;		/* options given: 1 << (val - NF_OPT_BASE) */
	unsigned long port_lo, port_hi, max_conns;
	unsigned long timeout[4];	/* seconds: tcp, tcp transitory, udp, icmp */
	struct nat_forward forwards[NAT_MAX_FORWARDS];
	unsigned int nr_forwards;

	unsigned int nr_parts;		/* one per worker */
	struct nat_part *parts;
	/* 65536 each, claimed and freed atomically: 0 free, 1 taken, 2 forwarded. */
	uint8_t *port_used[NAT_PROTOS];
	struct nf_neigh_table neigh;	/* inside hosts (locks itself) */
	struct nf_neigh_table out_neigh;	/* next hops outside (locks itself) */
	struct ns_rules *tick_rules;	/* the tick's, for expired connections' rules */

	pthread_mutex_t lock;		/* protects held and held_next; after a part's lock */
	struct nat_held held[NAT_HELD];
	unsigned int held_next;		/* the slot to take when none is free */
};

/* Where a packet is handled: its worker, and the part whose lock is held. */
struct nat_ctx {
	struct nat *nat;
	struct ns_worker *w;
	struct nat_part *own;		/* the worker's part */
	struct nat_part *part;		/* the part locked now */
	int foreign;			/* after the batch: other parts may be searched */
	struct netslice_iov *batch;	/* the batch's first iov */
};

/* A connection as one direction's packets name it. */
struct nat_key {
	uint8_t proto, inbound;
	uint32_t in_addr, rem_addr;	/* network order; inbound: no in_addr */
	uint16_t in_port, rem_port, pub_port;	/* network order; outbound: no pub_port */
};

#endif /* NF_NAT_STATE_H */
