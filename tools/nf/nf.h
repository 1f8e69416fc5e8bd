/* SPDX-License-Identifier: GPL-2.0 WITH LicenseRef-netslice-OpenSSL-exception */
/*
 * The frame every bundled NF shares: command line (slices, batch, cut,
 * live counters, JSON, offline pcapng mode), one pinned worker per slice
 * through ns_run(), SIGHUP reload, and the final summary. An NF is its
 * packet logic (the process callback) plus its own options and report
 * (struct nf, nf_types.h); what it calls is declared in the headers below.
 */
#ifndef NF_NF_H
#define NF_NF_H

#include <arpa/inet.h>
#include <stdint.h>

#include "droplog.h"
#include "held.h"
#include "io.h"
#include "log.h"
#include "nf_types.h"

/* Parse the command line and run the NF; returns the process exit status. */
int nf_main(int argc, char **argv, const struct nf *nf);

/* Parse an unsigned number in [min, max]; 0, or -1 after printing "bad VALUE for --OPT". */
int nf_parse_uint(const char *opt, const char *s, unsigned long min, unsigned long max,
		  unsigned long *out);

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

#endif /* NF_NF_H */
