// SPDX-License-Identifier: GPL-2.0 WITH LicenseRef-netslice-OpenSSL-exception
/* Frames held, sent late or injected, and the counts they change (held.h). */
#include <string.h>

#include "held.h"
#include "io.h"

/* What each worker did beyond its batch, by ns_worker_index(). */
static struct nf_extra {
	uint64_t injected, held, held_sent, held_dropped, extra_bytes;
} nf_extra[NETSLICE_MAX_SLICES];

static void nf_extra_count(uint64_t *c)
{
	__atomic_add_fetch(c, 1, __ATOMIC_RELAXED);
}

/* A frame sent outside its batch: counted in c, its bytes in worker k's. */
static void nf_extra_sent(unsigned int k, uint64_t *c, uint32_t len)
{
	nf_extra_count(c);
	__atomic_add_fetch(&nf_extra[k].extra_bytes, len, __ATOMIC_RELAXED);
}

int nf_inject(struct ns_worker *w, const void *frame, uint32_t len, int ifindex)
{
	unsigned int k = ns_worker_index(w);
	int ret = nf_io_send(w, frame, len, ifindex, NETSLICE_TX_IFINDEX);

	if (!ret)
		nf_extra_sent(k, &nf_extra[k].injected, len);
	return ret;
}

void nf_hold(struct ns_worker *w)
{
	nf_extra_count(&nf_extra[ns_worker_index(w)].held);
}

int nf_send_held(struct ns_worker *w, unsigned int holder, const void *frame, uint32_t len,
		 int ifindex)
{
	int ret = nf_io_send(w, frame, len, ifindex, NETSLICE_TX_DEFAULT);

	if (ret) {
		nf_held_dropped(holder);
		return ret;
	}
	nf_extra_sent(holder, &nf_extra[holder].held_sent, len);
	return 0;
}

void nf_held_dropped(unsigned int holder)
{
	nf_extra_count(&nf_extra[holder].held_dropped);
}

void nf_counts_sum(struct ns_worker *const *w, unsigned int n, struct nf_counts *t)
{
	const struct nf_extra *x;
	uint64_t held, held_sent, held_dropped, injected;
	unsigned int i;

	memset(t, 0, sizeof(*t));
	for (i = 0; i < n; i++) {
		x = &nf_extra[ns_worker_index(w[i])];
		held = ns_worker_counter(&x->held);
		held_sent = ns_worker_counter(&x->held_sent);
		held_dropped = ns_worker_counter(&x->held_dropped);
		injected = ns_worker_counter(&x->injected);
		t->rx_packets += ns_worker_stat(w[i], NS_WORKER_RX_PACKETS);
		t->rx_bytes += ns_worker_stat(w[i], NS_WORKER_RX_BYTES);
		t->tx_packets += ns_worker_stat(w[i], NS_WORKER_TX_PACKETS) + held_sent + injected;
		t->tx_bytes += ns_worker_stat(w[i], NS_WORKER_TX_BYTES) +
			       ns_worker_counter(&x->extra_bytes);
		/* A held frame was marked dropped in its batch: not a drop (yet). */
		t->nf_drops += ns_worker_stat(w[i], NS_WORKER_NF_DROPS) + held_dropped - held;
		t->tx_errors += ns_worker_stat(w[i], NS_WORKER_TX_ERRORS);
		t->held += held - held_sent - held_dropped;
		t->injected += injected;
	}
}
