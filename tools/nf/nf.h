/* SPDX-License-Identifier: GPL-2.0 WITH LicenseRef-netslice-OpenSSL-exception */
/*
 * The frame every bundled NF shares: command line (slices, batch, slicing,
 * live counters, JSON, offline pcapng mode), one pinned worker per slice
 * through ns_run(), SIGHUP reload, and the final summary. An NF is its
 * packet logic (the process callback) plus its own options and report.
 */
#ifndef NF_NF_H
#define NF_NF_H

#include <arpa/inet.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "json.h"
#include "netslice.h"

/* NF option values start here (getopt_long's val). */
#define NF_OPT_BASE 256

struct nf {
	const char *name;
	const char *summary;		/* one line for --help */
	const char *usage;		/* the NF's own options, for --help */
	const char *cut;		/* default slicing mode: "auto" or "off" */
	bool gso;			/* decides per header: super-packets whole when slicing */
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

/* Parse the command line and run the NF; returns the process exit status. */
int nf_main(int argc, char **argv, const struct nf *nf);

/*
 * An interface by name: its ifindex (offline: its position in the input
 * file + 1), or 0 after printing "no such interface".
 */
int nf_ifindex(const char *name);

/* An interface's MAC address (offline: from the file). 0, or -1 after printing why. */
int nf_ifmac(const char *name, uint8_t mac[6]);

/*
 * Send a frame the NF made itself (an ARP request, say) out of interface
 * ifindex, now, outside the batch; counted as sent and injected. 0 or a
 * negative errno.
 */
int nf_inject(struct ns_worker *w, const void *frame, uint32_t len, int ifindex);

/*
 * Frames that are not one read frame in, one written out. A frame the NF
 * keeps to send later (waiting for ARP, say) is marked dropped in its
 * batch and nf_hold() called: it counts as held, not dropped, until
 * nf_send_held() sends it (from any worker: holder is the w->index of the
 * one that held it; then counted sent) or nf_held_dropped() gives it up.
 * Frames the NF makes itself go out with nf_inject() and count as sent
 * and injected. At any time each slice's counters and the total add up:
 *   rx_packets + injected = tx_packets + nf_drops + tx_errors + held
 */
void nf_hold(struct ns_worker *w);
int nf_send_held(struct ns_worker *w, unsigned int holder, const void *frame, uint32_t len,
		 int ifindex);
void nf_held_dropped(unsigned int holder);

/* How many workers the run has: known from the NF's setup callback on. */
unsigned int nf_nr_run_workers(void);

/* Milliseconds: monotonic time online; the current packet's timestamp offline. */
uint64_t nf_now_ms(void);

/*
 * droplog.c: log a dropped packet (p, or NULL if unparsed) and why, at
 * most nf_drop_rate lines a second (--log-drops; 0: never).
 */
extern unsigned int nf_drop_rate;
void nf_log_drop(const struct ns_pkt *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Say how many went unlogged since the last line (at the end of a run). */
void nf_log_drop_flush(void);

/*
 * A message to stderr prefixed with the NF's name, one line, control
 * characters in it shown as \xNN (msg.h): pass user text as it is.
 */
void nf_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Parse an unsigned number in [min, max]; 0, or -1 after printing "bad VALUE for --OPT". */
int nf_parse_uint(const char *opt, const char *s, unsigned long min, unsigned long max,
		  unsigned long *out);

/*
 * offline.c: run the NF over a pcapng file instead of the module, one
 * worker per listed slice. Returns the exit status (2: the input is bad).
 */
struct pcapng_file;
int nf_offline(const struct nf *nf, struct pcapng_file *pf, const char *out,
	       const struct netslice_cut *cut, const unsigned int *slices,
	       unsigned int nr, unsigned int batch, int json);

/*
 * offline_signal.c: SIGINT, SIGTERM, SIGHUP and SIGUSR1 caught, each a byte
 * on a pipe that the reader waits on with its input (wake); 0, or -1 after
 * printing why. A second SIGINT or SIGTERM takes the default action. Until
 * nf_offline_signals_ready() (the NF set up) SIGHUP and SIGUSR1 wait.
 * nf_offline_signal() says what came since it last said: NF_OFFLINE_STOP
 * (SIGINT, SIGTERM; for good), NF_OFFLINE_RELOAD (SIGHUP),
 * NF_OFFLINE_REPORT (SIGUSR1), or 0.
 */
struct pcapng_wake;
int nf_offline_signals(struct pcapng_wake *wake);
void nf_offline_signals_ready(void);
/* A SIGINT or SIGTERM came. */
int nf_offline_stopped(void);
#define NF_OFFLINE_STOP		1U
#define NF_OFFLINE_RELOAD	2U
#define NF_OFFLINE_REPORT	4U
unsigned int nf_offline_signal(void);

/* Internal to nf.c and offline.c. */
void nf_set_offline(const struct pcapng_file *pf);
/* SIGHUP: reload the NF's configuration (run NULL offline), or say there is none. */
void nf_sighup(struct ns_run *run);
void nf_set_time_ms(uint64_t ms);
/*
 * Why addr (IPv4, network order) is no unicast host's address, or NULL:
 * what an NF refuses as an address option's value (a VIP, a backend, a
 * public or inside address).
 */
static inline const char *nf_not_unicast(uint32_t addr)
{
	uint32_t h = ntohl(addr);

	if (h >> 24 == 0)
		return "in 0.0.0.0/8";
	if (h >> 24 == 127)
		return "loopback";
	if (h >> 28 == 0xe)
		return "multicast";
	if (h >> 28 == 0xf)
		return h == UINT32_MAX ? "broadcast" : "reserved (240.0.0.0/4)";
	return NULL;
}

/* Offline mode's workers, for SIGUSR1 and --metrics while it runs; n = 0 when they go. */
void nf_offline_live(struct ns_worker *const *w, unsigned int n);
void nf_set_inject(int (*fn)(const void *frame, uint32_t len, int ifindex));
void nf_print_summary(const struct nf *nf, struct ns_worker *const *w,
		      const struct netslice_stats *st, unsigned int n, int json, double secs);
/* Offline, SIGUSR1: the summary so far. */
void nf_print_progress(const struct nf *nf, struct ns_worker *const *w, unsigned int n, int json);

#endif /* NF_NF_H */
