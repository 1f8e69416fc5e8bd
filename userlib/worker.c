// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* The worker's fields, for NFs: its place, its state, its counters. */
#include "netslice.h"
#include "worker.h"

unsigned int ns_worker_index(const struct ns_worker *w)
{
	return w->index;
}

unsigned int ns_worker_slice(const struct ns_worker *w)
{
	return w->slice;
}

int ns_worker_fd(const struct ns_worker *w)
{
	return w->fd;
}

void *ns_worker_priv(const struct ns_worker *w)
{
	return w->priv;
}

void ns_worker_set_priv(struct ns_worker *w, void *priv)
{
	w->priv = priv;
}

uint64_t ns_worker_counter(const uint64_t *counter)
{
	return __atomic_load_n(counter, __ATOMIC_RELAXED);
}

/* The counter stat names, or NULL for one this library lacks. */
static uint64_t *ns_worker_field(struct ns_worker *w, enum ns_worker_stat stat)
{
	switch (stat) {
	case NS_WORKER_RX_PACKETS:
		return &w->rx_packets;
	case NS_WORKER_RX_BYTES:
		return &w->rx_bytes;
	case NS_WORKER_TX_PACKETS:
		return &w->tx_packets;
	case NS_WORKER_TX_BYTES:
		return &w->tx_bytes;
	case NS_WORKER_NF_DROPS:
		return &w->nf_drops;
	case NS_WORKER_TX_ERRORS:
		return &w->tx_errors;
	}
	return NULL;
}

uint64_t ns_worker_stat(const struct ns_worker *w, enum ns_worker_stat stat)
{
	const uint64_t *c = ns_worker_field((struct ns_worker *)w, stat);

	return c ? ns_worker_counter(c) : 0;
}

void ns_worker_count(struct ns_worker *w, enum ns_worker_stat stat, uint64_t n)
{
	uint64_t *c = ns_worker_field(w, stat);

	if (c)
		ns_worker_add(c, n);
}

int ns_worker_error(const struct ns_worker *w)
{
	/* Set as the worker ends: a tick may look while others still run. */
	return -__atomic_load_n(&w->err, __ATOMIC_RELAXED);
}
