// SPDX-License-Identifier: GPL-2.0 WITH LicenseRef-netslice-OpenSSL-exception
/* Online mode: the NF on the module through ns_run() (online.h). */
#include <errno.h>
#include <net/if.h>
#include <stdarg.h>
#include <string.h>
#include <sysexits.h>
#include <time.h>

#include "io.h"
#include "log.h"
#include "metrics.h"
#include "msg.h"
#include "online.h"
#include "prom.h"
#include "report.h"
#include "sdnotify.h"
#include "watch.h"

static struct {
	const struct nf *nf;
	struct nf_live live;
	struct ns_run *run;		/* between ready and done, under the watch lock */
	unsigned int nr_workers;
	/* An interface the NF looked up is not there (yet): EX_UNAVAILABLE. */
	bool iface_missing;
	/* A name no interface can have (too long): a configuration error, exit 2. */
	bool iface_invalid;
	/* The slice of the worker whose error ended the run, or -1. */
	int failed_slice;
} online = { .failed_slice = -1 };

/*
 * What keeps the NF from starting or running, on stderr and, under a
 * Type=notify unit, as its status (STATUS=, ERRNO=) for systemctl status.
 */
static void __attribute__((format(printf, 2, 3))) online_fail(int err, const char *fmt, ...)
{
	char what[512], state[sizeof("STATUS=\nERRNO=-2147483648") + 4 * sizeof(what)];
	size_t len;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	nf_err("%s", what);
	/* Escaped: a newline in what would start another line of the protocol. */
	len = (size_t)snprintf(state, sizeof(state), "STATUS=");
	len += msg_escape(state + len, sizeof(state) - len, what);
	snprintf(state + len, sizeof(state) - len, "\nERRNO=%d", err);
	sd_notify_state(state);
}

/* ---- the mode's interface (io.h) ---- */

static int online_ifindex(const char *name)
{
	unsigned int i = if_nametoindex(name);

	if (!i) {
		/*
		 * One may come later (a VLAN made, a driver probed): worth
		 * another try. A name too long for any interface is not.
		 */
		if (strlen(name) < IF_NAMESIZE)
			online.iface_missing = true;
		else
			online.iface_invalid = true;
		online_fail(ENODEV, "no such interface: %s", name);
	}
	return (int)i;
}

static int online_ifmac(const char *name, uint8_t mac[6])
{
	char path[96], text[32] = "";
	FILE *f;

	snprintf(path, sizeof(path), "/sys/class/net/%s/address", name);
	f = fopen(path, "re");
	if (!f || !fgets(text, sizeof(text), f) || (text[strcspn(text, "\n")] = '\0',
						     ns_mac_parse(text, mac))) {
		nf_err("interface %s: cannot read its MAC address", name);
		if (f)
			fclose(f);
		return -1;
	}
	fclose(f);
	return 0;
}

static int online_send(struct ns_worker *w, const void *frame, uint32_t len, int ifindex,
		       int action)
{
	struct netslice_iov iov = {
		.base = (uintptr_t)frame,
		.len = len,
		.rlen = len,
		.ifindex = (__u32)ifindex,
		.action = (__u16)action,
	};
	ssize_t ret;

	ret = ns_worker_write(w, &iov, 1);
	if (ret < 0)
		return (int)ret;
	if (iov.action == NETSLICE_TX_DROP)
		return -EBUSY;		/* the egress stayed stopped */
	return iov.error ? -EIO : 0;
}

static uint64_t online_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static unsigned int online_nr_workers(void)
{
	return online.nr_workers;
}

/* The run's workers, in w. */
static unsigned int online_worker_list(struct ns_run *run, struct ns_worker **w)
{
	unsigned int i, n = ns_run_workers(run);

	for (i = 0; i < n; i++)
		w[i] = ns_run_worker(run, i);
	return n;
}

/* Each worker's slice counters from the module (zero where they cannot be read). */
static unsigned int online_workers(struct ns_run *run, struct ns_worker **w,
				   struct netslice_stats *st)
{
	unsigned int i, n = online_worker_list(run, w);

	for (i = 0; i < n; i++)
		if (ns_stats_get(ns_worker_fd(w[i]), &st[i]))
			memset(&st[i], 0, sizeof(st[i]));
	return n;
}

static unsigned int online_watched(struct ns_worker **w, struct netslice_stats **st)
{
	static struct netslice_stats stats[NETSLICE_MAX_SLICES];

	*st = stats;
	return online.run ? online_workers(online.run, w, stats) : 0;
}

const struct nf_io nf_online_io = {
	.ifindex = online_ifindex,
	.ifmac = online_ifmac,
	.send = online_send,
	.now_ms = online_now_ms,
	.nr_workers = online_nr_workers,
	.watched = online_watched,
};

/* ---- ns_run() callbacks ---- */

static double online_secs(void)
{
	return (double)(online_now_ms() - online.live.start_ms) / 1000;
}

static void online_tick(struct ns_run *run, void *arg)
{
	struct nf_live *l = &online.live;
	struct ns_worker *w[NETSLICE_MAX_SLICES];

	(void)arg;
	nf_watch_lock();
	if (online.nf->tick)
		online.nf->tick(online.nf->arg);
	if (l->interval && ++l->ticks % l->interval == 0)
		nf_report_live(l, w, online_worker_list(run, w));
	nf_watch_unlock();
}

/* The slices are open: tell the user, and systemd when a Type=notify unit started us. */
static void online_ready(struct ns_run *run, void *arg)
{
	char state[64];
	int err;

	(void)arg;
	nf_watch_lock();
	online.run = run;
	nf_watch_unlock();
	nf_err("running on %u slices", ns_run_workers(run));
	snprintf(state, sizeof(state), "READY=1\nSTATUS=running on %u slices",
		 ns_run_workers(run));
	err = sd_notify_state(state);
	if (err < 0)
		nf_err("cannot notify systemd: %s", strerror(-err));
}

static void online_reload(struct ns_run *run, void *arg)
{
	(void)arg;
	nf_reload(online.nf, run);
}

static void online_done(struct ns_run *run, void *arg)
{
	static struct netslice_stats st[NETSLICE_MAX_SLICES];
	struct ns_worker *w[NETSLICE_MAX_SLICES];
	struct nf_report_of r = { .nf = online.nf, .w = w, .st = st, .json = online.live.json };
	unsigned int i;

	(void)arg;
	sd_notify_state("STOPPING=1");
	nf_watch_lock();
	online.run = NULL;
	nf_watch_unlock();
	r.n = online_workers(run, w, st);
	/* The first whose error ns_run() returns. */
	for (i = 0; i < r.n && online.failed_slice < 0; i++)
		if (ns_worker_error(w[i]))
			online.failed_slice = (int)ns_worker_slice(w[i]);
	nf_report_final(&r, online_secs());
}

/* SIGUSR1 online: the summary so far, on stdout. */
static void online_usr1(void *arg)
{
	static struct netslice_stats st[NETSLICE_MAX_SLICES];
	struct ns_worker *w[NETSLICE_MAX_SLICES];
	struct nf_report_of r = { .nf = arg, .w = w, .st = st, .json = online.live.json };

	nf_watch_lock();
	if (online.run) {
		r.n = online_workers(online.run, w, st);
		nf_report_now(&r, online_secs());
	}
	nf_watch_unlock();
}

/* ---- the run ---- */

/* The slice list, checked against the module, with a message for each failure. */
static int online_slices(const char *list, unsigned int *slices)
{
	int n = ns_slices_parse(list, slices, NETSLICE_MAX_SLICES), count;

	if (n == -ENOENT)
		online_fail(ENOENT, "the netslice module is not loaded (modprobe netslice ifaces=IF:PEER)");
	else if (n == -ENODEV)
		nf_err("no such slice in '%s' (the module has %d)", list,
		       (count = ns_slice_count()) > 0 ? count : 0);
	else if (n < 0)
		nf_err("bad slice list '%s' (\"0-3,8\" or \"all\")", list);
	return n;
}

/* Why ns_run() ended, said; the exit status. */
static int online_status(int err, unsigned int busy_poll_us)
{
	/* What no restart mends exits 2, as a bad option does. */
	if (err && busy_poll_us && (err == -EPERM || err == -ENOTTY)) {
		online_fail(-err, "--busy-poll: %s", err == -EPERM ?
			    "busy polling needs CAP_NET_ADMIN" : "the module has no ring mode");
		return 2;
	}
	if (!err)
		return 0;
	if (online.failed_slice >= 0)
		online_fail(-err, "slice %d: %s%s", online.failed_slice, strerror(-err),
			    err == -ENOBUFS ?
			    " (ring memory past RLIMIT_MEMLOCK, without CAP_IPC_LOCK)" : "");
	else
		online_fail(-err, "%s", strerror(-err));
	/* A device node udev has not made yet, or a module gone: worth another try. */
	return err == -ENOENT ? EX_UNAVAILABLE : 1;
}

static int online_run(const struct nf *nf, const struct nf_opts *o, const unsigned int *slices)
{
	struct ns_run_config cfg = {
		.size = sizeof(cfg),
		.mode = o->mode,
		.slices = slices,
		.nr_slices = online.nr_workers,
		.batch = o->batch,
		.cut = &o->cut,
		.no_pin = o->no_pin,
		.arg = nf->arg,
		.worker_init = nf->worker_init,
		.worker_fini = nf->worker_fini,
		.process = nf->process,
		.sent = nf->sent,
		.tick = online_tick,
		.tick_ms = 1000,
		.reload = online_reload,
		.ready = online_ready,
		.done = online_done,
		.busy_poll_us = o->busy_poll_us,
		.busy_prefer = o->busy_prefer,
		.wake_every_us = o->wake_every_us,
	};
	int err;

	online.live.start_ms = online_now_ms();
	if (nf_metrics_start(online_usr1, nf_prom, (void *)nf))
		return 1;
	err = ns_run(&cfg);
	nf_metrics_stop();
	return online_status(err, cfg.busy_poll_us);
}

int nf_online(const struct nf *nf, const struct nf_opts *o)
{
	static unsigned int slices[NETSLICE_MAX_SLICES];
	int nr;

	online.nf = nf;
	online.live = (struct nf_live) { .nf = nf, .json = o->json, .interval = o->interval };
	nr = online_slices(o->slices, slices);
	if (nr < 0)
		return nr == -ENOENT ? EX_UNAVAILABLE : 2;
	online.nr_workers = (unsigned int)nr;
	if (nf->setup && nf->setup(nf->arg))
		return online.iface_missing && !online.iface_invalid ? EX_UNAVAILABLE : 2;
	return online_run(nf, o, slices);
}
