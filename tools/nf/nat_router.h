/* SPDX-License-Identifier: GPL-2.0 WITH LicenseRef-netslice-OpenSSL-exception */
/* nf-nat as the hosts' router: neighbours, ARP, held packets, ICMP. */
#ifndef NF_NAT_ROUTER_H
#define NF_NAT_ROUTER_H

#include "nat_state.h"

extern const struct nat_refusal_name nat_refusal_names[NAT_REFUSALS];

/* The caller holds the lock of the part whose counters n are. */
/* Why a router must not take an IPv4 packet in (enum nat_refusal), or -1: it may. */
int nat_refusal(const struct nat *nat, const struct ns_pkt *p, const struct ns_flow *f,
		int inside);
/* The next hop for dst: the gateway, or dst itself (on the link). */
uint32_t nat_hop(const struct nat *nat, uint32_t dst);
int nat_next_hop(struct nat *nat, struct ns_worker *w, uint32_t dst, uint8_t mac[6]);
void nat_hold(struct nat *nat, struct nat_counts *n, struct ns_worker *w,
	      struct netslice_iov *iov, uint32_t hop);
void nat_held_ready(struct nat *nat, struct nat_counts *n, struct ns_worker *w);
void nat_arp(struct nat *nat, struct nat_counts *n, struct ns_worker *w,
	     struct netslice_iov *iov, struct ns_pkt *p, int inside);
void nat_time_exceeded(struct nat *nat, struct nat_counts *n, struct ns_worker *w,
		       struct netslice_iov *iov, const struct ns_pkt *p, int inside);
void nat_echo_reply(struct nat *nat, struct nat_counts *n, struct netslice_iov *iov,
		    struct ns_pkt *p, int inside);

#endif /* NF_NAT_ROUTER_H */
