// SPDX-License-Identifier: GPL-2.0 WITH LicenseRef-netslice-OpenSSL-exception
/* The lock between a reload and the NF's watchers (watch.h). */
#include <pthread.h>

#include "log.h"
#include "sdnotify.h"
#include "watch.h"

static pthread_mutex_t nf_watch_mutex = PTHREAD_MUTEX_INITIALIZER;

void nf_watch_lock(void)
{
	pthread_mutex_lock(&nf_watch_mutex);
}

void nf_watch_unlock(void)
{
	pthread_mutex_unlock(&nf_watch_mutex);
}

/*
 * SIGHUP, the unit's ExecReload: an NF with a configuration reads it again;
 * one without says so and keeps running (a daemon is not stopped by HUP).
 * Offline (no run) there is no unit to tell.
 */
void nf_reload(const struct nf *nf, struct ns_run *run)
{
	if (!nf->reload) {
		nf_err("SIGHUP: nothing to reload");
		return;
	}
	if (run)
		sd_notify_state("RELOADING=1");
	nf_watch_lock();
	nf->reload(run, nf->arg);
	nf_watch_unlock();
	if (run)
		sd_notify_state("READY=1");
}
