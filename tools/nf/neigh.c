// SPDX-License-Identifier: GPL-2.0 WITH LicenseRef-netslice-OpenSSL-exception
/* An IPv4 neighbour cache and ARP probes for NFs that own an address. */
#include <errno.h>
#include <string.h>

#include "neigh.h"

void nf_neigh_init(struct nf_neigh_table *t)
{
	memset(t, 0, sizeof(*t));
	pthread_mutex_init(&t->lock, NULL);
}

/* The first slot of addr's bucket. */
static unsigned int nf_neigh_bucket(uint32_t addr)
{
	return (addr * 2654435761u) >> 23 << 3;	/* 9 bits of bucket, 8 ways */
}

void nf_neigh_learn(struct nf_neigh_table *t, uint32_t addr, const uint8_t mac[6])
{
	unsigned int b = nf_neigh_bucket(addr), i, slot = NF_NEIGH_WAYS;
	uint64_t now = nf_now_ms(), oldest = UINT64_MAX;

	if (!addr)
		return;
	pthread_mutex_lock(&t->lock);
	for (i = 0; i < NF_NEIGH_WAYS; i++) {
		uint32_t a = t->slots[b + i].addr;
		uint64_t seen = t->slots[b + i].seen_ms;

		if (a == addr) {
			slot = i;
			break;
		}
		if (a && now - seen < NF_NEIGH_STALE_MS)
			continue;	/* fresh: stays */
		/* Else a candidate: a free slot first, then the longest unheard. */
		if ((a ? seen + 1 : 0) < oldest) {
			oldest = a ? seen + 1 : 0;
			slot = i;
		}
	}
	if (slot < NF_NEIGH_WAYS) {
		t->slots[b + slot].addr = addr;
		memcpy(t->slots[b + slot].mac, mac, 6);
		t->slots[b + slot].seen_ms = now;
	} else {
		t->overflow++;
	}
	pthread_mutex_unlock(&t->lock);
}

int nf_neigh_lookup(struct nf_neigh_table *t, uint32_t addr, uint8_t mac[6])
{
	unsigned int b = nf_neigh_bucket(addr), i;
	int ret = -ENOENT;

	pthread_mutex_lock(&t->lock);
	for (i = 0; addr && i < NF_NEIGH_WAYS; i++) {
		if (t->slots[b + i].addr == addr) {
			memcpy(mac, t->slots[b + i].mac, 6);
			ret = 0;
			break;
		}
	}
	pthread_mutex_unlock(&t->lock);
	return ret;
}

int nf_neigh_arp(struct nf_neigh_table *t, const struct ns_pkt *p, uint32_t our_ip)
{
	const uint8_t *arp = p->data + p->l3_off;
	uint32_t spa, tpa;

	if (p->eth_type != ETHERTYPE_ARP || p->caplen < (size_t)p->l3_off + 28)
		return 0;
	memcpy(&spa, arp + 14, 4);
	memcpy(&tpa, arp + 24, 4);
	nf_neigh_learn(t, spa, arp + 8);
	return tpa == our_ip;
}

void nf_neigh_probe(struct nf_neigh_table *t, struct ns_worker *w, int ifindex,
		    const uint8_t our_mac[6], uint32_t our_ip, uint32_t target)
{
	static const uint8_t hdr[8] = { 0, 1, 8, 0, 6, 4, 0, 1 };
	uint8_t f[42] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };

	memcpy(f + 6, our_mac, 6);
	f[12] = 0x08;
	f[13] = 0x06;
	memcpy(f + 14, hdr, 8);
	memcpy(f + 22, our_mac, 6);
	memcpy(f + 28, &our_ip, 4);
	memcpy(f + 38, &target, 4);
	if (!nf_inject(w, f, sizeof(f), ifindex))
		__atomic_add_fetch(&t->probes, 1, __ATOMIC_RELAXED);
}
