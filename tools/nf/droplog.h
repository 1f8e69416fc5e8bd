/* SPDX-License-Identifier: GPL-2.0 WITH LicenseRef-netslice-OpenSSL-exception */
/*
 * Dropped packets on stderr at a bounded rate (--log-drops N): at most
 * nf_drop_rate lines a second (0: never).
 */
#ifndef NF_DROPLOG_H
#define NF_DROPLOG_H

#include "netslice.h"

extern unsigned int nf_drop_rate;

/* Log a dropped packet (p, or NULL if unparsed) and why. */
void nf_log_drop(const struct ns_pkt *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Say how many went unlogged since the last line (at the end of a run). */
void nf_log_drop_flush(void);

#endif /* NF_DROPLOG_H */
