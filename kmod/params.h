/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _NETSLICE_PARAMS_H
#define _NETSLICE_PARAMS_H

#include <linux/types.h>

/* Largest rxq_size, a slice's rxq: bounds the memory queued skbs can pin. */
#define NSL_MAX_RXQ_SIZE	65536
/* Largest store: a slot number fits a handle's 16 slot bits (store.c). */
#define NSL_STORE_MAX_SIZE	65536
/* Longest store timeout. */
#define NSL_MAX_STORE_TIMEOUT_MS	600000

/* The module's parameters (params.c): read-only once loaded. */
extern unsigned int nsl_nr_slices;
extern unsigned int nsl_rxq_size;
extern unsigned int nsl_store_size;
extern unsigned int nsl_store_timeout_ms;
extern bool nsl_symmetric_hash;
extern unsigned int nsl_max_rules;
/* Ring mode's memory, all rings together, in pages (ring_max_mb). */
extern unsigned long nsl_ring_max_pages;

/* The defaults that depend on the machine; before anything else runs. */
void nsl_params_init(void);

#endif /* _NETSLICE_PARAMS_H */
