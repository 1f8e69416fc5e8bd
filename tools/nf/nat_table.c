// SPDX-License-Identifier: GPL-2.0 WITH LicenseRef-netslice-OpenSSL-exception
/*
 * nf-nat's connection table, one part per worker: lookups (across parts
 * when the packet path asks), connections added and removed, public
 * ports, the steering rules that send a connection's return flow to the
 * worker whose part holds it, and the tick that expires connections.
 *
 * Locks: a part's lock, then nat->lock (held packets); never two parts'
 * locks at once, and no request to the kernel under one (its worker
 * would stall). A connection is removed only under its part's lock, by
 * its worker or the tick; its public port stays claimed until its rule's
 * deletion is sent, so no new connection (the only other with the same
 * return flow) can have its rule sent first and lose it to the deletion.
 * A port forward's connection has no port of its own: a new one from the
 * same remote endpoint right after may lose its rule that way, and then
 * finds its state across parts.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "nat_table.h"

int nat_proto_index(uint8_t proto)
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
 * Send the changes in ops as few requests, counting into cnt; a refused
 * request applies none of its changes, so then each goes alone, and a
 * rule already gone (flushed by hand, say) is not an error. -EPERM: the
 * process may not change rules at all (no retries).
 */
static int nat_rules_send(struct ns_rules *h, struct nat_rule_op *ops, unsigned int n,
			  struct nat_counts *cnt)
{
	static int warned;
	unsigned int i;
	int err = 0;

	for (i = 0; i < n && !err; i++)
		err = ns_rules_queue(h, ops[i].op, &ops[i].rule);
	if (!err)
		err = ns_rules_commit(h);
	if (err && ns_rules_queued(h))
		ns_rules_commit(h);
	for (i = 0; err && err != -EPERM && i < n; i++) {
		int one = ops[i].op == NS_RULE_DEL ? ns_rule_del(h, &ops[i].rule) :
						     ns_rule_replace(h, &ops[i].rule);

		if (!one || (one == -ENOENT && ops[i].op == NS_RULE_DEL))
			continue;
		cnt->rule_errors++;
		if (!__atomic_exchange_n(&warned, 1, __ATOMIC_RELAXED))
			nf_err("steering rule refused: %s (%s); flows without it cross workers",
			       strerror(-one), ns_rules_why(h));
	}
	if (err == -EPERM) {
		cnt->rule_errors += n;
		return err;
	}
	for (i = 0; i < n; i++) {
		if (ops[i].op == NS_RULE_DEL)
			cnt->rules_deleted++;
		else
			cnt->rules_set++;
	}
	return 0;
}

/* What rule sending counted, added to a part's counters (under its lock). */
void nat_counts_add_rules(struct nat_counts *to, const struct nat_counts *from)
{
	to->rules_set += from->rules_set;
	to->rules_deleted += from->rules_deleted;
	to->rule_errors += from->rule_errors;
}

/* A public port that waits for its rule's deletion: protocol << 16 | port. */
static uint32_t nat_port_key(const struct nat_conn *c)
{
	return (uint32_t)c->proto << 16 | ntohs(c->pub_port);
}

static void nat_ports_free(struct nat *nat, const uint32_t *keys, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		nat_port_free(nat, (uint8_t)(keys[i] >> 16), htons((uint16_t)keys[i]));
}

void nat_rules_flush(struct nat *nat, struct nat_part *part, struct nat_counts *cnt)
{
	if (part->nr_ops && nat_rules_send(part->rules, part->ops, part->nr_ops, cnt)) {
		nf_err("may not change steering rules (CAP_NET_ADMIN): return flows cross workers");
		ns_rules_close(part->rules);
		part->rules = NULL;
	}
	part->nr_ops = 0;
	nat_ports_free(nat, part->held_ports, part->nr_held_ports);
	part->nr_held_ports = 0;
}

/*
 * A connection whose rule is being deleted keeps its public port until
 * the deletion is sent (returns 1: the caller frees it then): another
 * worker's new connection on that port would have the same return flow,
 * and its rule would go with the old one's deletion.
 */
static int nat_remove(struct nat *nat, struct nat_part *part, struct nat_conn *c)
{
	int held = c->ruled && !c->dnat;

	nat_unlink(&part->out_hash[nat_out_hash(c)], c, 1);
	nat_unlink(&part->in_hash[nat_in_hash(c)], c, 0);
	if (!c->dnat && !held)
		nat_port_free(nat, c->proto, c->pub_port);
	c->used = 0;
	c->out_next = part->free_list;
	part->free_list = c;
	part->active--;
	return held;
}

/* Removed by its part's own worker: its rule goes at the end of the batch. */
static void nat_remove_own(struct nat_ctx *x, struct nat_conn *c)
{
	uint32_t key = nat_port_key(c);

	if (c->ruled)
		nat_rule_queue(x->own, x->nat, c, NS_RULE_DEL, 0);
	if (nat_remove(x->nat, x->own, c))
		x->own->held_ports[x->own->nr_held_ports++] = key;
}

void nat_port_free(struct nat *nat, uint8_t proto, uint16_t port)
{
	__atomic_store_n(&nat->port_used[nat_proto_index(proto)][ntohs(port)], 0,
			 __ATOMIC_RELEASE);
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
uint16_t nat_alloc_port(struct nat *nat, unsigned int index, uint8_t proto,
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

struct nat_conn *nat_add(struct nat_ctx *x, const struct nat_conn *tmpl)
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
		nat_rule_queue(x->own, x->nat, c, NS_RULE_REPLACE, ns_worker_slice(x->w));
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

void nat_relock(struct nat_ctx *x, struct nat_part *part)
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
struct nat_conn *nat_lookup(struct nat_ctx *x, const struct nat_key *k, uint64_t now)
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

/*
 * Expired connections leave, their rules deleted in requests sent with
 * the part unlocked (a request can take a while: its worker would stall).
 * A removed connection's public port stays claimed until its deletion is
 * sent, so no new connection can have its return flow (and lose the new
 * rule to the old deletion) before then.
 */
#define NAT_TICK_CHUNK 256
void nat_tick(void *arg)
{
	static struct nat_rule_op ops[NAT_TICK_CHUNK];
	static uint32_t ports[NAT_TICK_CHUNK];
	struct nat *nat = arg;
	uint64_t now = nf_now_ms();
	struct ns_rules *rules;
	unsigned int p, nr, np;
	unsigned long i, live;

	pthread_mutex_lock(&nat->lock);
	rules = nat->tick_rules;
	pthread_mutex_unlock(&nat->lock);
	for (p = 0; p < nat->nr_parts; p++) {
		struct nat_part *part = &nat->parts[p];

		/*
		 * Only as far as the last live connection: the free list hands
		 * out the lowest entries first, so that is rarely far.
		 */
		i = 0;
		live = 0;
		do {
			nr = 0;
			np = 0;
			pthread_mutex_lock(&part->lock);
			for (; i < part->max_conns && live < part->active && nr < NAT_TICK_CHUNK;
			     i++) {
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
					nr++;
				}
				if (c->ruled && !rules)
					c->ruled = 0;	/* no handle: stays until replaced */
				ports[np] = nat_port_key(c);
				np += nat_remove(nat, part, c);
				part->n.expired++;
			}
			pthread_mutex_unlock(&part->lock);
			if (nr) {
				struct nat_counts sent = { 0 };

				nat_rules_send(rules, ops, nr, &sent);
				pthread_mutex_lock(&part->lock);
				nat_counts_add_rules(&part->n, &sent);
				pthread_mutex_unlock(&part->lock);
			}
			nat_ports_free(nat, ports, np);
		} while (nr == NAT_TICK_CHUNK);
	}
}

int nat_part_init(struct nat_part *part, unsigned long max_conns)
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

void nat_part_fini(struct nat_part *part)
{
	free(part->conns);
	free(part->out_hash);
	free(part->in_hash);
}

/*
 * Rules when they can matter: online (offline there is no module to
 * steer), more than one worker, not --no-rules. A module or a process
 * that cannot take them leaves the NAT to find connections across parts.
 * Nor for a slice no interface feeds: its packets come from the slice
 * before it in a chain, and a rule would steer them past that slice's NF.
 */
int nat_worker_init(struct ns_worker *w, void *arg)
{
	struct nat *nat = arg;
	struct nat_part *part = &nat->parts[ns_worker_index(w)];
	struct netslice_info info;
	int err;

	part->deferred = calloc(NETSLICE_MAX_BATCH, sizeof(*part->deferred));
	/* A packet removes at most one expired connection a pass (two passes) and adds one. */
	part->max_ops = 3 * NETSLICE_MAX_BATCH;
	part->ops = calloc(part->max_ops, sizeof(*part->ops));
	part->held_ports = calloc(part->max_ops, sizeof(*part->held_ports));
	if (!part->deferred || !part->ops || !part->held_ports)
		return -ENOMEM;
	if (ns_worker_fd(w) < 0 || nat->nr_parts < 2 || nat->no_rules)
		return 0;
	if (!ns_info_get(ns_worker_fd(w), &info) && !info.nr_ifaces) {
		nf_err("slice %u is fed by no interface (a chain feeds it): no steering rules",
		       ns_worker_slice(w));
		return 0;
	}
	err = ns_rules_open(&part->rules);
	if (err) {
		nf_err("worker %u: no steering rules (%s); return flows cross workers",
		       ns_worker_index(w), strerror(-err));
		part->rules = NULL;
	}
	pthread_mutex_lock(&nat->lock);
	if (!ns_worker_index(w) && part->rules && ns_rules_open(&nat->tick_rules))
		nat->tick_rules = NULL;
	pthread_mutex_unlock(&nat->lock);
	return 0;
}

/* The worker's rules leave with it: a rule for a slice no one reads loses packets. */
void nat_worker_fini(struct ns_worker *w, void *arg)
{
	struct nat *nat = arg;
	struct nat_part *part = &nat->parts[ns_worker_index(w)];
	unsigned long i;

	pthread_mutex_lock(&part->lock);
	for (i = 0; part->rules && i < part->max_conns; i++) {
		if (!part->conns[i].used || !part->conns[i].ruled)
			continue;
		nat_rule_queue(part, nat, &part->conns[i], NS_RULE_DEL, 0);
		if (part->nr_ops == part->max_ops)
			nat_rules_flush(nat, part, &part->n);
	}
	nat_rules_flush(nat, part, &part->n);
	pthread_mutex_unlock(&part->lock);
	if (part->rules)
		ns_rules_close(part->rules);
	part->rules = NULL;
	free(part->deferred);
	free(part->ops);
	free(part->held_ports);
}
