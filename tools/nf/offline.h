/* SPDX-License-Identifier: GPL-2.0 WITH LicenseRef-netslice-OpenSSL-exception */
/*
 * Offline mode: the NF over a pcapng file instead of the module, one
 * worker per listed slice (offline.c says how frames go through).
 */
#ifndef NF_OFFLINE_H
#define NF_OFFLINE_H

#include "nf_types.h"

struct nf_io;

/* Offline mode's interface (io.h). */
extern const struct nf_io nf_offline_io;

/* Set the NF up and run it over o->pcap_in; the exit status (2: the input is bad). */
int nf_offline(const struct nf *nf, const struct nf_opts *o);

#endif /* NF_OFFLINE_H */
