/* SPDX-License-Identifier: GPL-2.0 WITH LicenseRef-netslice-OpenSSL-exception */
/*
 * IPv4 neighbours for NFs that own an address on a wire: a small cache of
 * address -> MAC learned from ARP and IP traffic, and ARP probes sent
 * with nf_inject(). Thread-safe (a leaf mutex).
 */
#ifndef NF_NEIGH_H
#define NF_NEIGH_H

#include <pthread.h>
#include <stdint.h>

#include "nf.h"

/*
 * Buckets of NF_NEIGH_WAYS: a neighbour gives way only to one in its
 * bucket once not heard from for NF_NEIGH_STALE_MS; a full bucket of
 * fresh ones leaves the newcomer out (counted in overflow), to be
 * learned again when it speaks next.
 */
#define NF_NEIGH_BUCKETS 512
#define NF_NEIGH_WAYS 8
#define NF_NEIGH_STALE_MS 60000

struct nf_neigh_table {
	pthread_mutex_t lock;	/* protects slots */
	struct {
		uint32_t addr;	/* network order; 0: empty */
		uint8_t mac[6];
		uint64_t seen_ms;	/* last learned */
	} slots[NF_NEIGH_BUCKETS * NF_NEIGH_WAYS];
	uint64_t probes, overflow;
};

void nf_neigh_init(struct nf_neigh_table *t);
void nf_neigh_learn(struct nf_neigh_table *t, uint32_t addr, const uint8_t mac[6]);
/* 0 and the MAC if known; -ENOENT otherwise. */
int nf_neigh_lookup(struct nf_neigh_table *t, uint32_t addr, uint8_t mac[6]);

/*
 * An ARP frame seen on a wire where we own our_ip: learn its sender.
 * Returns 1 if it is addressed to our_ip (an answer to our probe: absorb it).
 */
int nf_neigh_arp(struct nf_neigh_table *t, const struct ns_pkt *p, uint32_t our_ip);

/* Ask "who has target?" out of ifindex, as our_ip at our_mac. */
void nf_neigh_probe(struct nf_neigh_table *t, struct ns_worker *w, int ifindex,
		    const uint8_t our_mac[6], uint32_t our_ip, uint32_t target);

#endif /* NF_NEIGH_H */
