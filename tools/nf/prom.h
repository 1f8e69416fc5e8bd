/* SPDX-License-Identifier: GPL-2.0 WITH LicenseRef-netslice-OpenSSL-exception */
/*
 * --metrics: the NF's counters per slice, the module's, and the NF's own
 * report, in Prometheus' text format (metrics.c serves them).
 */
#ifndef NF_PROM_H
#define NF_PROM_H

#include <stdio.h>

/* Write the metrics of the NF (a const struct nf *) to f: metrics.h's prom. */
void nf_prom(FILE *f, void *nf);

#endif /* NF_PROM_H */
