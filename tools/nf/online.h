/* SPDX-License-Identifier: GPL-2.0 WITH LicenseRef-netslice-OpenSSL-exception */
/*
 * Online mode: the NF on the module's slices, one pinned worker per slice
 * through ns_run(), with live output, SIGUSR1, --metrics, SIGHUP reload
 * and systemd's readiness protocol.
 */
#ifndef NF_ONLINE_H
#define NF_ONLINE_H

#include "nf_types.h"

struct nf_io;

/* Online mode's interface (io.h). */
extern const struct nf_io nf_online_io;

/* Set the NF up and run it until stopped; returns the process exit status. */
int nf_online(const struct nf *nf, const struct nf_opts *o);

#endif /* NF_ONLINE_H */
