/* SPDX-License-Identifier: GPL-2.0 WITH LicenseRef-netslice-OpenSSL-exception */
/*
 * What an NF is (struct nf: its packet logic, options and report as
 * callbacks) and the common options nf.c parses for it (struct nf_opts).
 * Types only: every part of the frame reads them, none owns them.
 */
#ifndef NF_TYPES_H
#define NF_TYPES_H

#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>

#include "json.h"
#include "netslice.h"

/* NF option values start here (getopt_long's val). */
#define NF_OPT_BASE 256

struct nf {
	const char *name;
	const char *summary;		/* one line for --help */
	const char *usage;		/* the NF's own options, for --help */
	const char *cut;		/* default cut: "auto" or "off" */
	bool gso;			/* decides per header: super-packets whole under a cut */
	const struct option *options;	/* the NF's long options, zero-terminated */
	void *arg;			/* passed to every callback */

	/* One NF option (val, optarg): 0, or -1 after printing why. */
	int (*option)(void *arg, int val, const char *value);
	/* After the options: read config, resolve interfaces. 0, or -1 after printing why. */
	int (*setup)(void *arg);
	int (*worker_init)(struct ns_worker *w, void *arg);
	void (*worker_fini)(struct ns_worker *w, void *arg);
	void (*process)(struct ns_worker *w, struct netslice_iov *iov, unsigned int n, void *arg);
	/* After the batch is written (ns_run_config.sent). */
	void (*sent)(struct ns_worker *w, void *arg);
	/* SIGHUP (run is NULL offline, where it comes between frames). */
	void (*reload)(struct ns_run *run, void *arg);
	/* About once a second, from the main thread (or offline, as packet time passes). */
	void (*tick)(void *arg);
	/* Extra live output after the counters line: JSON members into j, or text to f. */
	void (*live)(struct json *j, FILE *f, void *arg);
	/* The NF's part of the final summary, likewise. */
	void (*report)(struct json *j, FILE *f, void *arg);
};

/* The common options, as nf.c parsed them. */
struct nf_opts {
	const char *slices;		/* -s LIST */
	const char *pcap_in, *pcap_out;	/* offline when pcap_in is set */
	struct netslice_cut cut;
	unsigned int batch;
	unsigned int interval;		/* live output every so many seconds, 0: none */
	int json, no_pin, no_gso;
	enum ns_run_mode mode;
	unsigned int busy_poll_us, wake_every_us;
	int busy_prefer;
};

#endif /* NF_TYPES_H */
