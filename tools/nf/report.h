/* SPDX-License-Identifier: GPL-2.0 WITH LicenseRef-netslice-OpenSSL-exception */
/*
 * What an NF prints about its run on stdout, as text or JSON: the summary
 * (at the end, or so far on SIGUSR1) and the live line (--interval).
 */
#ifndef NF_REPORT_H
#define NF_REPORT_H

#include "nf_types.h"

struct pcapng_file;

/* What a summary is about. */
struct nf_report_of {
	const struct nf *nf;
	struct ns_worker *const *w;		/* the run's workers */
	unsigned int n;
	const struct netslice_stats *st;	/* the module's counters of their slices; NULL offline */
	const struct pcapng_file *input;	/* offline's input; NULL online */
	int json;
};

/* The final summary, after secs seconds (unlogged drops said first). */
void nf_report_final(const struct nf_report_of *r, double secs);
/* SIGUSR1: the summary so far. */
void nf_report_now(const struct nf_report_of *r, double secs);

/* The live view's state: totals at the last line, for the rates. */
struct nf_live {
	const struct nf *nf;
	int json;
	unsigned int interval;	/* seconds, 0: no live output */
	unsigned int ticks;
	uint64_t start_ms;
	uint64_t last_rx, last_tx;
};

/* One live line: rates since the last, totals, and the NF's own part. */
void nf_report_live(struct nf_live *l, struct ns_worker *const *w, unsigned int n);

#endif /* NF_REPORT_H */
