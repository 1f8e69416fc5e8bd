/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * Private to libnetslice: a worker as the NF's callbacks get it. Up to
 * 0.7 this was netslice.h's struct ns_worker, and programs built then
 * read and write these fields by offset: they stay where they were, in
 * this order, and new state goes in run.c's struct ns_worker_lib.
 */
#ifndef NETSLICE_WORKER_H
#define NETSLICE_WORKER_H

#include <stdint.h>

struct ns_run;

struct ns_worker {
	struct ns_run *run;
	unsigned int index;	/* 0.. in the run */
	unsigned int slice;
	int fd;
	void *priv;		/* the NF's per-worker state */
	uint64_t rx_packets, rx_bytes;	/* read; bytes on the wire */
	uint64_t tx_packets, tx_bytes;	/* written without error, not dropped */
	uint64_t nf_drops;		/* marked NETSLICE_TX_DROP by the NF */
	uint64_t tx_errors;		/* iovs the module refused (error set) */
	int err;			/* what stopped the worker (positive), 0 if asked to */
};

/* A counter's one writer, the worker's thread: a store other threads read whole. */
static inline void ns_worker_add(uint64_t *counter, uint64_t n)
{
	__atomic_store_n(counter, *counter + n, __ATOMIC_RELAXED);
}

#endif /* NETSLICE_WORKER_H */
