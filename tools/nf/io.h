/* SPDX-License-Identifier: GPL-2.0 WITH LicenseRef-netslice-OpenSSL-exception */
/*
 * What differs between running on the module (online.c) and over a
 * pcapng file (offline.c), as one interface each mode provides: nf.c
 * picks one before the NF is set up, and the NF's calls below go to it.
 */
#ifndef NF_IO_H
#define NF_IO_H

#include <stdint.h>

struct netslice_stats;
struct ns_worker;

struct nf_io {
	/* An interface's ifindex by name, or 0 after printing why. */
	int (*ifindex)(const char *name);
	/* An interface's MAC address: 0, or -1 after printing why. */
	int (*ifmac)(const char *name, uint8_t mac[6]);
	/*
	 * Send a frame now, outside the batch, as a write with action says:
	 * NETSLICE_TX_IFINDEX out of ifindex; NETSLICE_TX_DEFAULT as if
	 * received on ifindex (out of its pair, or to the next slice of a
	 * chain). 0 or a negative errno.
	 */
	int (*send)(struct ns_worker *w, const void *frame, uint32_t len, int ifindex, int action);
	/* Milliseconds: the clock the NF's timers run on. */
	uint64_t (*now_ms)(void);
	/* How many workers the run has, known from the NF's setup on. */
	unsigned int (*nr_workers)(void);
	/*
	 * The workers to report on now (0: none), and into *st the module's
	 * counters of their slices, or NULL (offline). Caller holds the
	 * watch lock (watch.h).
	 */
	unsigned int (*watched)(struct ns_worker **w, struct netslice_stats **st);
};

/* The mode's interface, from before the NF's setup on. */
void nf_io_use(const struct nf_io *io);

/*
 * An interface by name: its ifindex (offline: its position in the input
 * file + 1), or 0 after printing "no such interface".
 */
int nf_ifindex(const char *name);

/* An interface's MAC address (offline: from the file). 0, or -1 after printing why. */
int nf_ifmac(const char *name, uint8_t mac[6]);

/* How many workers the run has: known from the NF's setup callback on. */
unsigned int nf_nr_run_workers(void);

/* Milliseconds: monotonic time online; the current packet's timestamp offline. */
uint64_t nf_now_ms(void);

/* The mode's send and watched workers (struct nf_io). */
int nf_io_send(struct ns_worker *w, const void *frame, uint32_t len, int ifindex, int action);
unsigned int nf_io_watched(struct ns_worker **w, struct netslice_stats **st);

#endif /* NF_IO_H */
