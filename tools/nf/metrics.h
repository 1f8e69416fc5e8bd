/* SPDX-License-Identifier: GPL-2.0 WITH LicenseRef-netslice-OpenSSL-exception */
/*
 * Watching a running NF: SIGUSR1 prints its counters; --metrics serves
 * them in Prometheus' text format over HTTP on a Unix socket or a TCP
 * address (loopback unless another is named). One thread does both.
 */
#ifndef NF_METRICS_H
#define NF_METRICS_H

#include <stdio.h>

/* --metrics SPEC: PATH (has a '/'), PORT (127.0.0.1), or ADDR:PORT. 0, or -1 after saying why. */
int nf_metrics_parse(const char *spec);

/*
 * Block SIGUSR1 (call before any thread starts), bind --metrics if given
 * and start the thread. usr1 prints the counters to stdout (NULL: SIGUSR1
 * is someone else's); prom writes the metrics to f; both get arg. 0, or
 * -1 after saying why.
 */
int nf_metrics_start(void (*usr1)(void *arg), void (*prom)(FILE *f, void *arg), void *arg);
void nf_metrics_stop(void);

#endif /* NF_METRICS_H */
