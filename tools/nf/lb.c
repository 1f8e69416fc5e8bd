// SPDX-License-Identifier: GPL-2.0 WITH LicenseRef-netslice-OpenSSL-exception
/*
 * nf-lb: an L4 load balancer for one virtual IPv4 address. New flows to
 * the VIP pick a backend by Maglev consistent hashing (Eisenbud et al.,
 * NSDI 2016): each backend fills a lookup table of prime size M by its
 * own permutation, so adding or removing one backend remaps about 1/N of
 * the flows. A flow then keeps its backend (per-flow affinity table) even
 * when the backend set changes, until it idles out. The affinity table is
 * bucketed (LB_WAYS flows a bucket) with two buckets a flow (cuckoo
 * hashing): a new flow takes a free or idle way of either, else one made
 * by moving a live flow of them to its other bucket, one move deep (the
 * cost stays bounded; the table then keeps about 98% of its entries
 * live, where one bucket a flow kept 86%). An entry gives way only once
 * idle past the timeout, never to another live flow; a new flow finding
 * no room is balanced by Maglev alone and counted (affinity_full, each
 * packet): it may move on a reload.
 *
 * Forward: destination IP and MAC become the backend's (checksums fixed
 * incrementally; headers only). Return: packets from a backend's service
 * port get the VIP back as source. The NF answers ARP for the VIP on the
 * client side with that interface's MAC, and learns backend MACs from
 * ARP (probing for one it has not heard from; that first packet is
 * dropped and the client retries).
 *
 * ICMP errors (RFC 5508 4.2, as a NAT): one from a backend about a
 * client's packet leaves from the VIP, its quote naming the VIP; one to
 * the VIP about a backend's answer (a router's fragmentation needed)
 * goes to the backend serving that flow, its quote naming the backend, so
 * path MTU discovery works through the balancer both ways.
 *
 * No locks on the packet path: a client's flow reaches one slice, so
 * each worker keeps its own affinity table; the return path keeps no
 * state (so, unlike nf-nat, no steering rules: whichever worker a
 * backend's answer reaches rewrites it alike). The backend set and Maglev
 * table are read-only, swapped on SIGHUP with ns_run_synchronize(). Only
 * the counters are shared (relaxed atomics).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "conf.h"
#include "neigh.h"
#include "nf.h"

#define LB_MAX_BACKENDS 256
#define LB_FLOWS_DEFAULT 65536	/* affinity entries per worker */
#define LB_WAYS 8		/* flows a bucket */

struct lb_backend {
	uint32_t addr;
	uint8_t mac[6];
	int has_mac;		/* configured; otherwise learned */
	uint64_t flows, packets;
	uint32_t share;		/* Maglev table entries */
};

struct lb_set {
	struct lb_backend backends[LB_MAX_BACKENDS];
	unsigned int n;
	int32_t *table;		/* M entries: backend index */
};

struct lb_flow {
	struct ns_flow key;
	uint32_t backend;	/* address: survives reloads */
	unsigned int reloads;	/* lb.reloads when it was picked */
};

/*
 * The ways' times and hashes apart from their flows: a lookup reads one
 * cache line of hashes a bucket, and a flow only where its hash matches.
 */
struct lb_bucket {
	uint64_t last_ms[LB_WAYS];	/* the last packet's time + 1; 0: free */
	uint32_t hash[LB_WAYS];
	struct lb_flow flow[LB_WAYS];
} __attribute__((aligned(64)));

struct lb {
	uint32_t vip;
	uint16_t vport;		/* network order; 0: every port */
	const char *client_name, *backend_name, *file;
	int client_if, backend_if;
	uint8_t vip_mac[6];
	unsigned long table_size, affinity_timeout, seed;
	unsigned long flows;	/* affinity entries per worker, a multiple of LB_WAYS */
	unsigned long buckets;	/* flows / LB_WAYS */
	struct lb_set *set;	/* read by workers; swapped on reload */
	struct lb_backend cmdline[LB_MAX_BACKENDS];
	unsigned int nr_cmdline, reloads;
	struct nf_neigh_table neigh;
	/*
	 * Each packet to the VIP counts once: affinity_hits (its flow has an
	 * entry), new_flows (it made its flow's entry: a flow counts once) or
	 * affinity_full (no entry, and no room for one). affinity_kept: hits
	 * their entry kept on a backend Maglev no longer picks for their flow
	 * (it moved on a reload).
	 */
	uint64_t affinity_hits, affinity_kept, affinity_full, new_flows, returned, arp_answered,
		 no_mac, no_backend, icmp_errors;
};

static struct lb lb_state = {
	.table_size = 65537,
	.affinity_timeout = 300,
	.flows = LB_FLOWS_DEFAULT,
	.buckets = LB_FLOWS_DEFAULT / LB_WAYS,
	.seed = 0x6c62,
};

static void lb_count(uint64_t *c, uint64_t v)
{
	__atomic_add_fetch(c, v, __ATOMIC_RELAXED);
}

static uint32_t lb_addr_hash(uint32_t addr, uint32_t seed)
{
	struct ns_flow f = { .family = AF_INET };

	memcpy(f.saddr, &addr, 4);
	return ns_flow_hash(&f, seed);
}

/* Maglev population (the paper's Pseudocode 1). */
static int lb_populate(struct lb *lb, struct lb_set *set)
{
	unsigned long m = lb->table_size, filled = 0;
	uint32_t *offset, *skip, *next;
	unsigned int i;
	uint32_t c;

	set->table = malloc(m * sizeof(*set->table));
	offset = calloc(set->n, sizeof(*offset));
	skip = calloc(set->n, sizeof(*skip));
	next = calloc(set->n, sizeof(*next));
	if (!set->table || !offset || !skip || !next) {
		free(offset);
		free(skip);
		free(next);
		return -ENOMEM;
	}
	for (i = 0; i < set->n; i++) {
		offset[i] = lb_addr_hash(set->backends[i].addr, (uint32_t)lb->seed) % m;
		skip[i] = lb_addr_hash(set->backends[i].addr, (uint32_t)lb->seed + 1) % (m - 1) + 1;
	}
	memset(set->table, 0xff, m * sizeof(*set->table));
	while (set->n && filled < m) {
		for (i = 0; i < set->n && filled < m; i++) {
			do {
				c = (uint32_t)((offset[i] + (uint64_t)next[i] * skip[i]) % m);
				next[i]++;
			} while (set->table[c] >= 0);
			set->table[c] = (int32_t)i;
			set->backends[i].share++;
			filled++;
		}
	}
	free(offset);
	free(skip);
	free(next);
	return 0;
}

/* "ADDR" or "ADDR@MAC"; mac: a MAC given apart (a file's "ADDR MAC"), or NULL. */
static int lb_parse_backend(const char *s, const char *mac, struct lb_backend *b)
{
	const char *at = strchr(s, '@');
	size_t len = at ? (size_t)(at - s) : strlen(s);
	char addr[16];

	memset(b, 0, sizeof(*b));
	if (!len || len >= sizeof(addr) || (at && mac))
		return -1;
	memcpy(addr, s, len);
	addr[len] = '\0';
	if (inet_pton(AF_INET, addr, &b->addr) != 1)
		return -1;
	mac = at ? at + 1 : mac;
	if (mac) {
		if (ns_mac_parse(mac, b->mac))
			return -1;
		b->has_mac = 1;
	}
	return 0;
}

/* The index of a backend of set with b's address before index n, or -1. */
static int lb_dup(const struct lb_set *set, unsigned int n, const struct lb_backend *b)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (set->backends[i].addr == b->addr)
			return (int)i;
	return -1;
}

static struct lb_set *lb_load(struct lb *lb)
{
	struct lb_set *set = calloc(1, sizeof(*set));
	struct lb_backend *b;
	char addr[INET_ADDRSTRLEN];
	const char *why;
	struct conf c;
	int got;

	if (!set)
		return NULL;
	memcpy(set->backends, lb->cmdline, lb->nr_cmdline * sizeof(lb->cmdline[0]));
	set->n = lb->nr_cmdline;
	if (lb->file) {
		if (conf_open(&c, lb->file)) {
			nf_err("cannot read backend file %s: %s", lb->file, strerror(errno));
			goto err_free;
		}
		while ((got = conf_next(&c)) > 0) {
			b = &set->backends[set->n];
			if (set->n == LB_MAX_BACKENDS)
				got = conf_error(&c, 0, "more than %d backends", LB_MAX_BACKENDS);
			else if (c.n > 2 || lb_parse_backend(c.word[0], c.n > 1 ? c.word[1] : NULL, b))
				got = conf_error(&c, 0, "bad backend (ADDR [MAC], or ADDR@MAC)");
			else if ((why = nf_not_unicast(b->addr)))
				got = conf_error(&c, 0, "bad backend %s: %s, not a unicast address",
						 inet_ntop(AF_INET, &b->addr, addr, sizeof(addr)), why);
			else if (b->addr == lb->vip)
				got = conf_error(&c, 0, "bad backend %s: it is the VIP",
						 inet_ntop(AF_INET, &b->addr, addr, sizeof(addr)));
			else if (lb_dup(set, set->n, b) >= 0)
				got = conf_error(&c, 0, "backend %s listed twice",
						 inet_ntop(AF_INET, &b->addr, addr, sizeof(addr)));
			if (got < 0)
				break;
			set->n++;
		}
		conf_close(&c);
		if (got < 0)
			goto err_free;
	}
	if (!set->n) {
		nf_err("no backends (--backend ADDR[@MAC] or --backends FILE)");
		goto err_free;
	}
	if (!lb_populate(lb, set))
		return set;
err_free:
	free(set);
	return NULL;
}

static void lb_free(struct lb_set *set)
{
	if (set)
		free(set->table);
	free(set);
}

static struct lb_backend *lb_find(struct lb_set *set, uint32_t addr)
{
	unsigned int i;

	for (i = 0; i < set->n; i++)
		if (set->backends[i].addr == addr)
			return &set->backends[i];
	return NULL;
}

static bool lb_alive(const struct lb *lb, uint64_t last_ms, uint64_t now)
{
	return last_ms && now + 1 - last_ms <= lb->affinity_timeout * 1000;
}

/* A flow's two buckets: by its hash, and by the hash mixed again (murmur3's finaliser). */
static void lb_buckets(const struct lb *lb, struct lb_bucket *t, uint32_t h,
		       struct lb_bucket *b[2])
{
	uint32_t g = h;

	g ^= g >> 16;
	g *= 0x85ebca6b;
	g ^= g >> 13;
	g *= 0xc2b2ae35;
	g ^= g >> 16;
	/* Scaled by a multiply, not a division: a bucket count needs no power of two. */
	b[0] = &t[(uint64_t)h * lb->buckets >> 32];
	b[1] = &t[(uint64_t)g * lb->buckets >> 32];
}

/* The bucket holding the flow's live entry, its way in *way; or NULL. */
static struct lb_bucket *lb_lookup(const struct lb *lb, struct lb_bucket *t,
				   const struct ns_flow *f, uint32_t h, uint64_t now,
				   unsigned int *way)
{
	struct lb_bucket *b[2];
	unsigned int k, i;

	lb_buckets(lb, t, h, b);
	for (k = 0; k < 2; k++)
		for (i = 0; i < LB_WAYS; i++)
			if (b[k]->hash[i] == h && lb_alive(lb, b[k]->last_ms[i], now) &&
			    !memcmp(&b[k]->flow[i].key, f, sizeof(*f))) {
				*way = i;
				return b[k];
			}
	return NULL;
}

/* A free or idle way of the bucket, or LB_WAYS. */
static unsigned int lb_free_way(const struct lb *lb, const struct lb_bucket *b, uint64_t now)
{
	unsigned int i;

	for (i = 0; i < LB_WAYS && lb_alive(lb, b->last_ms[i], now); i++)
		;
	return i;
}

/*
 * Room for a new flow of hash h: a free or idle way of one of its buckets,
 * else one a live flow leaves for a free way of its other bucket. NULL if
 * none: live flows are never evicted.
 */
static struct lb_bucket *lb_make_room(const struct lb *lb, struct lb_bucket *t, uint32_t h,
				      uint64_t now, unsigned int *way)
{
	struct lb_bucket *b[2], *alt[2], *to;
	unsigned int k, i, j;

	lb_buckets(lb, t, h, b);
	for (k = 0; k < 2; k++)
		if ((*way = lb_free_way(lb, b[k], now)) < LB_WAYS)
			return b[k];
	for (k = 0; k < 2; k++)
		for (i = 0; i < LB_WAYS; i++) {
			lb_buckets(lb, t, b[k]->hash[i], alt);
			to = alt[alt[0] == b[k]];
			if (to == b[k] || (j = lb_free_way(lb, to, now)) == LB_WAYS)
				continue;
			to->last_ms[j] = b[k]->last_ms[i];
			to->hash[j] = b[k]->hash[i];
			to->flow[j] = b[k]->flow[i];
			*way = i;
			return b[k];
		}
	return NULL;
}

/* The flow's backend if it has a live affinity entry and it is still a backend. */
static struct lb_backend *lb_affine(struct lb *lb, struct lb_set *set, struct lb_bucket *t,
				   const struct ns_flow *f, uint32_t h, uint64_t now)
{
	unsigned int way;
	struct lb_bucket *b = lb_lookup(lb, t, f, h, now, &way);

	return b ? lb_find(set, b->flow[way].backend) : NULL;
}

/*
 * The flow's backend: its affinity entry's if alive and still a backend,
 * else Maglev's, kept in its entry (made if there is room).
 */
static struct lb_backend *lb_pick(struct lb *lb, struct lb_set *set, struct lb_bucket *t,
				  const struct ns_flow *f, uint64_t now)
{
	uint32_t h = ns_flow_hash(f, (uint32_t)lb->seed);
	unsigned int way;
	struct lb_bucket *e = lb_lookup(lb, t, f, h, now, &way);
	struct lb_backend *b = e ? lb_find(set, e->flow[way].backend) : NULL;

	if (e) {
		e->last_ms[way] = now + 1;
		lb_count(&lb->affinity_hits, 1);
	}
	if (b) {
		/* Maglev can pick otherwise only after a reload: no lookup before. */
		if (e->flow[way].reloads != __atomic_load_n(&lb->reloads, __ATOMIC_RELAXED) &&
		    &set->backends[set->table[h % lb->table_size]] != b)
			lb_count(&lb->affinity_kept, 1);
		return b;
	}
	b = &set->backends[set->table[h % lb->table_size]];
	/* No entry: make one. With one, its backend left the set: a new pick, not a new flow. */
	if (!e && (e = lb_make_room(lb, t, h, now, &way))) {
		e->hash[way] = h;
		e->flow[way].key = *f;
		e->last_ms[way] = now + 1;
		lb_count(&lb->new_flows, 1);
	}
	if (!e) {
		lb_count(&lb->affinity_full, 1);
		return b;
	}
	e->flow[way].backend = b->addr;
	e->flow[way].reloads = __atomic_load_n(&lb->reloads, __ATOMIC_RELAXED);
	lb_count(&b->flows, 1);
	return b;
}

/* A backend's MAC; unknown: ask by ARP, count, -1. */
static int lb_backend_mac(struct lb *lb, struct ns_worker *w, struct lb_backend *b,
			  uint8_t mac[6])
{
	if (b->has_mac) {
		memcpy(mac, b->mac, 6);
		return 0;
	}
	if (!nf_neigh_lookup(&lb->neigh, b->addr, mac))
		return 0;
	nf_neigh_probe(&lb->neigh, w, lb->backend_if, lb->vip_mac, lb->vip, b->addr);
	lb_count(&lb->no_mac, 1);
	return -1;
}

static void lb_forward(struct lb *lb, struct ns_worker *w, struct netslice_iov *iov,
		       struct ns_pkt *p, const struct ns_flow *f, struct lb_set *set)
{
	struct lb_backend *b = lb_pick(lb, set, ns_worker_priv(w), f, nf_now_ms());
	uint8_t mac[6];

	if (lb_backend_mac(lb, w, b, mac)) {
		ns_iov_drop(iov);
		return;
	}
	ns_pkt_set_addr(p, 1, &b->addr);
	memcpy(ns_pkt_eth(p)->ether_dhost, mac, 6);
	lb_count(&b->packets, 1);
}

/*
 * An ICMP error about a balanced flow: from a backend, it leaves from the
 * VIP; to the VIP, it goes to the flow's backend (its affinity entry if
 * this worker has it, else Maglev's choice, which is the same unless the
 * set changed). Anything else passes on untouched.
 */
static void lb_icmp_error(struct lb *lb, struct ns_worker *w, struct netslice_iov *iov,
			  struct ns_pkt *p, int client_side, struct lb_set *set)
{
	const uint8_t *ip = p->data + p->l3_off;
	struct lb_backend *b;
	struct ns_flow qf;
	uint32_t osrc, odst, qsrc, qdst, h;
	struct ns_pkt q;
	uint8_t mac[6];

	if (ns_pkt_icmp_quote(p, &q) || !q.l4_off || ns_pkt_flow(&q, &qf) ||
	    (q.l4_proto != IPPROTO_TCP && q.l4_proto != IPPROTO_UDP))
		return;
	memcpy(&osrc, ip + 12, 4);
	memcpy(&odst, ip + 16, 4);
	memcpy(&qsrc, qf.saddr, 4);
	memcpy(&qdst, qf.daddr, 4);
	if (!client_side) {
		/* About a client's packet the backend got (client -> backend:port). */
		if (qdst != osrc || !lb_find(set, osrc) || (lb->vport && qf.dport != lb->vport))
			return;
		ns_pkt_icmp_quote_rewrite(p, &q, 1, &lb->vip, 0);
		ns_pkt_set_addr(p, 0, &lb->vip);
	} else {
		/* About a backend's answer (VIP:port -> client): the client's flow is its reverse. */
		if (odst != lb->vip || qsrc != lb->vip || (lb->vport && qf.sport != lb->vport))
			return;
		ns_flow_reverse(&qf);
		h = ns_flow_hash(&qf, (uint32_t)lb->seed);
		b = lb_affine(lb, set, ns_worker_priv(w), &qf, h, nf_now_ms());
		if (!b)
			b = &set->backends[set->table[h % lb->table_size]];
		if (lb_backend_mac(lb, w, b, mac)) {
			ns_iov_drop(iov);
			return;
		}
		ns_pkt_icmp_quote_rewrite(p, &q, 0, &b->addr, 0);
		ns_pkt_set_addr(p, 1, &b->addr);
		memcpy(ns_pkt_eth(p)->ether_dhost, mac, 6);
	}
	lb_count(&lb->icmp_errors, 1);
}

static void lb_one(struct lb *lb, struct ns_worker *w, struct netslice_iov *iov,
		   struct lb_set *set)
{
	int client_side = (int)iov->ifindex == lb->client_if;
	uint32_t saddr, daddr;
	struct ns_flow f;
	struct ns_pkt p;

	if (ns_pkt_parse(&p, ns_iov_data(iov), iov->rlen, iov->wire_len))
		return;		/* not ours to judge: pass it on */
	if (p.eth_type == ETHERTYPE_ARP) {
		if (client_side && ns_arp_answer(&p, lb->vip, lb->vip_mac)) {
			iov->action = NETSLICE_TX_IFINDEX;
			lb_count(&lb->arp_answered, 1);
		} else if (!client_side && nf_neigh_arp(&lb->neigh, &p, lb->vip)) {
			ns_iov_drop(iov);
		}
		return;
	}
	if (p.family == AF_INET && !p.frag && ns_pkt_icmp_error(&p)) {
		lb_icmp_error(lb, w, iov, &p, client_side, set);
		return;
	}
	if (ns_pkt_flow(&p, &f) || p.family != AF_INET ||
	    (p.l4_proto != IPPROTO_TCP && p.l4_proto != IPPROTO_UDP) || !p.l4_off)
		return;
	memcpy(&saddr, f.saddr, 4);
	memcpy(&daddr, f.daddr, 4);
	if (client_side && daddr == lb->vip && (!lb->vport || f.dport == lb->vport)) {
		lb_forward(lb, w, iov, &p, &f, set);
	} else if (!client_side && (!lb->vport || f.sport == lb->vport) && lb_find(set, saddr)) {
		ns_pkt_set_addr(&p, 0, &lb->vip);
		lb_count(&lb->returned, 1);
	}
}

static void lb_process(struct ns_worker *w, struct netslice_iov *iov, unsigned int n, void *arg)
{
	struct lb *lb = arg;
	struct lb_set *set = __atomic_load_n(&lb->set, __ATOMIC_ACQUIRE);
	unsigned int i;

	for (i = 0; i < n; i++)
		lb_one(lb, w, &iov[i], set);
}

static int lb_worker_init(struct ns_worker *w, void *arg)
{
	struct lb *lb = arg;

	size_t size = lb->buckets * sizeof(struct lb_bucket);

	ns_worker_set_priv(w, aligned_alloc(64, size));
	if (!ns_worker_priv(w))
		return -ENOMEM;
	memset(ns_worker_priv(w), 0, size);
	return 0;
}

static void lb_worker_fini(struct ns_worker *w, void *arg)
{
	(void)arg;
	free(ns_worker_priv(w));
}

static void lb_reload(struct ns_run *run, void *arg)
{
	struct lb *lb = arg;
	struct lb_set *new = lb_load(lb), *old = lb->set;
	struct lb_backend *b;
	unsigned int i;

	if (!new) {
		nf_err("reload failed; keeping %u backends", old->n);
		return;
	}
	__atomic_store_n(&lb->set, new, __ATOMIC_RELEASE);
	if (run)
		ns_run_synchronize(run);
	for (i = 0; i < old->n; i++)
		if ((b = lb_find(new, old->backends[i].addr))) {
			lb_count(&b->flows, old->backends[i].flows);
			lb_count(&b->packets, old->backends[i].packets);
		}
	lb_free(old);
	__atomic_store_n(&lb->reloads, lb->reloads + 1, __ATOMIC_RELAXED);
	nf_err("reloaded: %u backends", new->n);
}

static void lb_report(struct json *j, FILE *f, void *arg)
{
	struct lb *lb = arg;
	struct lb_set *set = lb->set;
	char addr[INET_ADDRSTRLEN];
	unsigned int i;

	if (j) {
		json_counter(j, "reloads", lb->reloads, "Times the backends were read again.");
		json_counter(j, "new_flows", ns_worker_counter(&lb->new_flows),
			     "Flows given a backend.");
		json_counter(j, "affinity_hits", ns_worker_counter(&lb->affinity_hits),
			     "Packets that found their flow's entry.");
		json_counter(j, "affinity_kept", ns_worker_counter(&lb->affinity_kept),
			     "Packets kept on a backend the table no longer picks.");
		json_counter(j, "affinity_full", ns_worker_counter(&lb->affinity_full),
			     "Packets whose flow found no room in the affinity table.");
		json_counter(j, "returned", ns_worker_counter(&lb->returned),
			     "Packets from a backend sent back to the client.");
		json_counter(j, "icmp_errors", ns_worker_counter(&lb->icmp_errors),
			     "ICMP errors sent.");
		json_counter(j, "arp_answered", ns_worker_counter(&lb->arp_answered),
			     "ARP requests for the VIP answered.");
		json_counter(j, "arp_probes", ns_worker_counter(&lb->neigh.probes),
			     "ARP requests sent for a backend's MAC.");
		json_counter(j, "neighbours_full", ns_worker_counter(&lb->neigh.overflow),
			     "Neighbours not learnt: the table was full.");
		json_counter(j, "dropped_no_mac", ns_worker_counter(&lb->no_mac),
			     "Packets dropped: no MAC known for their backend.");
		json_open(j, "backends", '[');
	} else {
		fprintf(f, "  %u backends (%lu-entry Maglev table), %llu new flows, "
			"%llu affinity hits (%llu kept a moved flow, %llu found the table full), "
			"%llu returned, %llu ICMP errors\n"
			"  %-16s %10s %12s %10s\n",
			set->n, lb->table_size, (unsigned long long)ns_worker_counter(&lb->new_flows),
			(unsigned long long)ns_worker_counter(&lb->affinity_hits),
			(unsigned long long)ns_worker_counter(&lb->affinity_kept),
			(unsigned long long)ns_worker_counter(&lb->affinity_full),
			(unsigned long long)ns_worker_counter(&lb->returned),
			(unsigned long long)ns_worker_counter(&lb->icmp_errors), "backend", "flows",
			"packets", "share");
	}
	for (i = 0; i < set->n; i++) {
		struct lb_backend *b = &set->backends[i];

		inet_ntop(AF_INET, &b->addr, addr, sizeof(addr));
		if (j) {
			json_open(j, NULL, '{');
			json_str(j, "addr", addr);
			json_counter(j, "flows", ns_worker_counter(&b->flows),
				     "Flows given to the backend.");
			json_counter(j, "packets", ns_worker_counter(&b->packets),
				     "Packets sent to the backend.");
			json_gauge(j, "table_share", b->share,
				   "Entries of the Maglev table that pick the backend.");
			json_close(j, '}');
		} else {
			fprintf(f, "  %-16s %10llu %12llu %9.1f%%\n", addr,
				(unsigned long long)ns_worker_counter(&b->flows),
				(unsigned long long)ns_worker_counter(&b->packets),
				100.0 * b->share / (double)lb->table_size);
		}
	}
	if (j)
		json_close(j, ']');
}

enum {
	OPT_VIP = NF_OPT_BASE, OPT_BACKEND, OPT_BACKENDS, OPT_CLIENT_IF, OPT_BACKEND_IF,
	OPT_TABLE_SIZE, OPT_AFFINITY, OPT_SEED, OPT_FLOWS,
};

static int lb_is_prime(unsigned long n)
{
	unsigned long d;

	for (d = 2; d * d <= n; d++)
		if (n % d == 0)
			return 0;
	return n > 2;
}

static int lb_option(void *arg, int val, const char *value)
{
	struct lb *lb = arg;
	const char *colon = strchr(value, ':');
	unsigned long port = 0;
	const char *why;
	unsigned int i;
	char addr[16];

	switch (val) {
	case OPT_VIP:
		/* Strictly: ADDR, or ADDR:PORT with PORT 1..65535 in digits. */
		if ((colon ? (size_t)(colon - value) : strlen(value)) >= sizeof(addr) ||
		    (colon && conf_uint(colon + 1, 1, 65535, false, &port))) {
			nf_err("bad --vip '%s' (ADDR or ADDR:PORT)", value);
			return -1;
		}
		snprintf(addr, sizeof(addr), "%.*s",
			 (int)(colon ? (size_t)(colon - value) : strlen(value)), value);
		if (inet_pton(AF_INET, addr, &lb->vip) != 1) {
			nf_err("bad --vip address '%s'", addr);
			return -1;
		}
		if ((why = nf_not_unicast(lb->vip))) {
			nf_err("bad --vip address '%s': %s, not a unicast address", addr, why);
			return -1;
		}
		lb->vport = htons((uint16_t)port);
		return 0;
	case OPT_BACKEND:
		if (lb->nr_cmdline == LB_MAX_BACKENDS ||
		    lb_parse_backend(value, NULL, &lb->cmdline[lb->nr_cmdline])) {
			nf_err("bad --backend '%s' (ADDR or ADDR@MAC)", value);
			return -1;
		}
		if ((why = nf_not_unicast(lb->cmdline[lb->nr_cmdline].addr))) {
			nf_err("bad --backend '%s': %s, not a unicast address", value, why);
			return -1;
		}
		for (i = 0; i < lb->nr_cmdline; i++)
			if (lb->cmdline[i].addr == lb->cmdline[lb->nr_cmdline].addr) {
				nf_err("--backend '%s' given twice", value);
				return -1;
			}
		lb->nr_cmdline++;
		return 0;
	case OPT_BACKENDS:
		lb->file = value;
		return 0;
	case OPT_CLIENT_IF:
		lb->client_name = value;
		return 0;
	case OPT_BACKEND_IF:
		lb->backend_name = value;
		return 0;
	case OPT_TABLE_SIZE:
		if (nf_parse_uint("--table-size", value, 3, 1UL << 24, &lb->table_size))
			return -1;
		if (!lb_is_prime(lb->table_size)) {
			nf_err("--table-size %lu is not a prime", lb->table_size);
			return -1;
		}
		return 0;
	case OPT_FLOWS:
		if (nf_parse_uint("--flows", value, LB_WAYS, 1UL << 24, &lb->flows))
			return -1;
		lb->flows -= lb->flows % LB_WAYS;
		lb->buckets = lb->flows / LB_WAYS;
		return 0;
	case OPT_AFFINITY:
		return nf_parse_uint("--affinity-timeout", value, 1, 86400, &lb->affinity_timeout);
	}
	return nf_parse_uint("--seed", value, 0, UINT32_MAX, &lb->seed);
}

static int lb_setup(void *arg)
{
	struct lb *lb = arg;
	char addr[INET_ADDRSTRLEN];
	unsigned int i;

	if (!lb->vip || !lb->client_name || !lb->backend_name) {
		nf_err("--vip ADDR[:PORT], --client-if IF and --backend-if IF are required");
		return -1;
	}
	for (i = 0; i < lb->nr_cmdline; i++)
		if (lb->cmdline[i].addr == lb->vip) {
			nf_err("bad --backend %s: it is the --vip address",
			       inet_ntop(AF_INET, &lb->vip, addr, sizeof(addr)));
			return -1;
		}
	lb->client_if = nf_ifindex(lb->client_name);
	lb->backend_if = lb->client_if ? nf_ifindex(lb->backend_name) : 0;
	if (!lb->backend_if || nf_ifmac(lb->client_name, lb->vip_mac))
		return -1;
	nf_neigh_init(&lb->neigh);
	lb->set = lb_load(lb);
	return lb->set ? 0 : -1;
}

int main(int argc, char **argv)
{
	static const struct option options[] = {
		{ "vip", required_argument, NULL, OPT_VIP },
		{ "backend", required_argument, NULL, OPT_BACKEND },
		{ "backends", required_argument, NULL, OPT_BACKENDS },
		{ "client-if", required_argument, NULL, OPT_CLIENT_IF },
		{ "backend-if", required_argument, NULL, OPT_BACKEND_IF },
		{ "table-size", required_argument, NULL, OPT_TABLE_SIZE },
		{ "affinity-timeout", required_argument, NULL, OPT_AFFINITY },
		{ "seed", required_argument, NULL, OPT_SEED },
		{ "flows", required_argument, NULL, OPT_FLOWS },
		{ NULL, 0, NULL, 0 },
	};
	static const struct nf lb = {
		.name = "nf-lb",
		.summary = "Balance TCP/UDP flows to a virtual IPv4 address over backends (Maglev).",
		.usage = "      --vip ADDR[:PORT]  the virtual address (and port; default all ports)\n"
			 "      --client-if IF     the interface clients are on; ARP for the VIP is\n"
			 "                         answered there with its MAC\n"
			 "      --backend-if IF    the interface backends are on (required)\n"
			 "      --backend ADDR[@MAC]  a backend (repeatable); MAC learned if absent\n"
			 "      --backends FILE    backends, one 'ADDR [MAC]' per line; SIGHUP reloads\n"
			 "      --table-size M     Maglev table size, a prime (65537)\n"
			 "      --affinity-timeout SEC  idle time before a flow may move (300)\n"
			 "      --flows N          flows remembered per slice (65536, buckets of 8)\n"
			 "      --seed N           hash seed (fixed by default: same spread every run)\n",
		.cut = "auto",
		.gso = true,
		.options = options,
		.arg = &lb_state,
		.option = lb_option,
		.setup = lb_setup,
		.worker_init = lb_worker_init,
		.worker_fini = lb_worker_fini,
		.process = lb_process,
		.reload = lb_reload,
		.report = lb_report,
	};
	int ret = nf_main(argc, argv, &lb);

	lb_free(lb_state.set);
	return ret;
}
