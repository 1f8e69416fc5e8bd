/* SPDX-License-Identifier: GPL-2.0 WITH LicenseRef-netslice-OpenSSL-exception */
/*
 * What watchers of a running NF (SIGUSR1, --metrics, the live view and
 * the NF's tick) share with a reload: one lock. A watcher thread reports
 * while the calling thread may reload, which frees what the report reads.
 */
#ifndef NF_WATCH_H
#define NF_WATCH_H

#include "nf_types.h"

void nf_watch_lock(void);
void nf_watch_unlock(void);

/*
 * SIGHUP: reload the NF's configuration under the lock (run NULL
 * offline), or say there is none.
 */
void nf_reload(const struct nf *nf, struct ns_run *run);

#endif /* NF_WATCH_H */
