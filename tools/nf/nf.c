// SPDX-License-Identifier: GPL-2.0 WITH LicenseRef-netslice-OpenSSL-exception
/* The shared frame of the bundled NFs: options, ns_run(), live counters, summary. */
#include <errno.h>
#include <net/if.h>
#include <pthread.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sysexits.h>
#include <time.h>

#include "cli.h"
#include "conf.h"
#include "metrics.h"
#include "msg.h"
#include "nf.h"
#include "pcapng.h"
#include "sdnotify.h"

#define NF_BATCH_DEFAULT 64

enum {
	OPT_PCAP_IN = 200,
	OPT_PCAP_OUT,
	OPT_NO_PIN,
	OPT_NO_GSO,
	OPT_METRICS,
	OPT_LOG_DROPS,
	OPT_BUSY_POLL,
	OPT_PREFER_BUSY_POLL,
	OPT_WAKE_EVERY,
};

static const struct option nf_common_options[] = {
	{ "slices", required_argument, NULL, 's' },
	{ "batch", required_argument, NULL, 'b' },
	{ "cut", required_argument, NULL, 'm' },
	{ "slicing", required_argument, NULL, 'm' },	/* before 0.6 */
	{ "io", required_argument, NULL, 'M' },
	{ "interval", required_argument, NULL, 'i' },
	{ "json", no_argument, NULL, 'j' },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	{ "no-pin", no_argument, NULL, OPT_NO_PIN },
	{ "no-gso", no_argument, NULL, OPT_NO_GSO },
	{ "pcap-in", required_argument, NULL, OPT_PCAP_IN },
	{ "pcap-out", required_argument, NULL, OPT_PCAP_OUT },
	{ "metrics", required_argument, NULL, OPT_METRICS },
	{ "log-drops", required_argument, NULL, OPT_LOG_DROPS },
	{ "busy-poll", required_argument, NULL, OPT_BUSY_POLL },
	{ "prefer-busy-poll", no_argument, NULL, OPT_PREFER_BUSY_POLL },
	{ "wake-every", required_argument, NULL, OPT_WAKE_EVERY },
};

#define NF_COMMON_OPTIONS (sizeof(nf_common_options) / sizeof(nf_common_options[0]))
#define NF_MAX_OPTIONS 48

static const char *nf_name = "nf";
static const struct pcapng_file *nf_pf;
static uint64_t nf_time_ms;
static unsigned int nf_nr_workers = 1;
/* Online, an interface the NF looked up is not there (yet): EX_UNAVAILABLE. */
static bool nf_iface_missing;
/* A name no interface can have (too long): a configuration error, exit 2. */
static bool nf_iface_invalid;
/* The slice of the worker whose error ended the run, or -1. */
static int nf_failed_slice = -1;

struct nf_live {
	const struct nf *nf;
	int json;
	unsigned int interval;	/* seconds, 0: no live output */
	unsigned int ticks;
	uint64_t start_ms;
	uint64_t last_rx, last_tx;
};

void nf_err(const char *fmt, ...)
{
	va_list ap;

	/* Option values, file names, file contents: shown, never obeyed by a terminal. */
	va_start(ap, fmt);
	msg_verr(nf_name, fmt, ap);
	va_end(ap);
}

/*
 * What keeps the NF from starting or running, on stderr and, under a
 * Type=notify unit, as its status (STATUS=, ERRNO=) for systemctl status.
 */
static void __attribute__((format(printf, 2, 3))) nf_fail(int err, const char *fmt, ...)
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

int nf_parse_uint(const char *opt, const char *s, unsigned long min, unsigned long max,
		  unsigned long *out)
{
	/* Digits (or 0x and hex): "+6", "-0" and "10x" are mistakes, not numbers. */
	if (conf_uint(s, min, max, true, out)) {
		nf_err("bad value '%s' for %s (%lu..%lu)", s, opt, min, max);
		return -1;
	}
	return 0;
}

void nf_set_offline(const struct pcapng_file *pf)
{
	nf_pf = pf;
}

static int (*nf_inject_offline)(const void *frame, uint32_t len, int ifindex);

/* What each worker did beyond its batch, by ns_worker.index. */
static struct nf_extra {
	uint64_t injected, held, held_sent, held_dropped, extra_bytes;
} nf_extra[NETSLICE_MAX_SLICES];

static void nf_extra_count(uint64_t *c)
{
	__atomic_add_fetch(c, 1, __ATOMIC_RELAXED);
}

void nf_set_inject(int (*fn)(const void *frame, uint32_t len, int ifindex))
{
	nf_inject_offline = fn;
}

static int nf_send(struct ns_worker *w, const void *frame, uint32_t len, int ifindex)
{
	struct netslice_iov iov = {
		.base = (uintptr_t)frame,
		.len = len,
		.rlen = len,
		.ifindex = (__u32)ifindex,
		.action = NETSLICE_TX_IFINDEX,
	};
	ssize_t ret;

	if (nf_inject_offline)
		return nf_inject_offline(frame, len, ifindex);
	ret = ns_worker_write(w, &iov, 1);
	if (ret < 0)
		return (int)ret;
	if (iov.action == NETSLICE_TX_DROP)
		return -EBUSY;		/* the egress stayed stopped */
	return iov.error ? -EIO : 0;
}

int nf_inject(struct ns_worker *w, const void *frame, uint32_t len, int ifindex)
{
	int ret = nf_send(w, frame, len, ifindex);

	if (!ret) {
		nf_extra_count(&nf_extra[w->index].injected);
		__atomic_add_fetch(&nf_extra[w->index].extra_bytes, len, __ATOMIC_RELAXED);
	}
	return ret;
}

void nf_hold(struct ns_worker *w)
{
	nf_extra_count(&nf_extra[w->index].held);
}

int nf_send_held(struct ns_worker *w, unsigned int holder, const void *frame, uint32_t len,
		 int ifindex)
{
	int ret = nf_send(w, frame, len, ifindex);

	if (ret) {
		nf_held_dropped(holder);
		return ret;
	}
	nf_extra_count(&nf_extra[holder].held_sent);
	__atomic_add_fetch(&nf_extra[holder].extra_bytes, len, __ATOMIC_RELAXED);
	return 0;
}

void nf_held_dropped(unsigned int holder)
{
	nf_extra_count(&nf_extra[holder].held_dropped);
}

void nf_set_time_ms(uint64_t ms)
{
	nf_time_ms = ms;
}

static uint64_t nf_mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

unsigned int nf_nr_run_workers(void)
{
	return nf_nr_workers;
}

uint64_t nf_now_ms(void)
{
	return nf_pf ? nf_time_ms : nf_mono_ms();
}

int nf_ifindex(const char *name)
{
	unsigned int i;

	if (nf_pf) {
		for (i = 0; i < nf_pf->nr_ifaces; i++)
			if (!strcmp(nf_pf->ifaces[i].name, name))
				return (int)i + 1;
		nf_err("no such interface: %s", name);
		return 0;
	}
	i = if_nametoindex(name);
	if (!i) {
		/*
		 * One may come later (a VLAN made, a driver probed): worth
		 * another try. A name too long for any interface is not.
		 */
		if (strlen(name) < IF_NAMESIZE)
			nf_iface_missing = true;
		else
			nf_iface_invalid = true;
		nf_fail(ENODEV, "no such interface: %s", name);
	}
	return (int)i;
}

int nf_ifmac(const char *name, uint8_t mac[6])
{
	char path[96], text[32] = "";
	unsigned int i;
	FILE *f;

	if (nf_pf) {
		for (i = 0; i < nf_pf->nr_ifaces; i++)
			if (!strcmp(nf_pf->ifaces[i].name, name) && nf_pf->ifaces[i].has_mac) {
				memcpy(mac, nf_pf->ifaces[i].mac, 6);
				return 0;
			}
		nf_err("interface %s: no MAC address in the input file", name);
		return -1;
	}
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

static void nf_usage(const struct nf *nf, FILE *f)
{
	fprintf(f, "usage: %s [OPTION]...\n%s\n\n", nf->name, nf->summary);
	fprintf(f,
		"Common options:\n"
		"  -s, --slices LIST    slices to serve, \"0-3,8\" or \"all\" (default all);\n"
		"                       one worker thread each, pinned to the slice's user CPUs\n"
		"  -b, --batch N        packets per read, 1..%u (default %u)\n"
		"  -m, --cut MODE       off | auto[+EXTRA] | fixed:LEN, optionally ,trim\n"
		"                       and ,gso (default %s)\n"
		"  -M, --io MODE        ring | rw: packets through mapped rings, or read(2)\n"
		"                       and write(2) (default: ring where the module has it)\n"
		"  -i, --interval SEC   print live counters every SEC seconds\n"
		"  -j, --json           JSON output: live lines and the final summary\n"
		"      --metrics SPEC   serve the counters in Prometheus' text format over\n"
		"                       HTTP: on a Unix socket (SPEC a path), or on PORT\n"
		"                       (127.0.0.1) or ADDR:PORT\n"
		"      --log-drops N    log dropped packets to stderr, at most N a second\n"
		"      --no-pin         leave the workers unpinned\n"
		"      --busy-poll US   ring mode: an idle look busy-polls the device for up\n"
		"                       to US microseconds, 1..1000 (CAP_NET_ADMIN)\n"
		"      --prefer-busy-poll\n"
		"                       with --busy-poll: prefer it to the device's deferred\n"
		"                       interrupt (napi_defer_hard_irqs, gro_flush_timeout)\n"
		"      --wake-every US  an idle worker looks again every US microseconds\n"
		"                       without waiting to be woken by a packet\n"
		"%s"
		"      --pcap-in FILE   offline: take packets from a pcapng or pcap file\n"
		"                       (\"-\": stdin; no module); its interface names\n"
		"                       stand for real ones\n"
		"      --pcap-out FILE  offline: write the packets the NF sends, as pcapng\n"
		"                       (\"-\": stdout; the summary goes to stderr)\n"
		"  -h, --help           this text\n"
		"  -V, --version        the version\n",
		NETSLICE_MAX_BATCH, NF_BATCH_DEFAULT, nf->cut,
		nf->gso ? "      --no-gso         read TCP/UDP super-packets segmented even when\n"
			  "                       slicing (by default one header for each)\n" : "");
	if (nf->usage)
		fprintf(f, "\n%s options:\n%s", nf->name, nf->usage);
	fprintf(f, "\nSIGINT/SIGTERM stop it and print the summary; SIGUSR1 prints the summary\n"
		"so far.%s\n", nf->reload ? " SIGHUP reloads its configuration." : "");
}

/* A worker's counters as the NF reports them (see nf_hold()). */
struct nf_counts {
	uint64_t rx_packets, rx_bytes, tx_packets, tx_bytes, nf_drops, tx_errors, held, injected;
};

static void nf_sum(struct ns_worker *const *w, unsigned int n, struct nf_counts *t)
{
	const struct nf_extra *x;
	uint64_t held, held_sent, held_dropped, injected;
	unsigned int i;

	memset(t, 0, sizeof(*t));
	for (i = 0; i < n; i++) {
		x = &nf_extra[w[i]->index];
		held = ns_worker_counter(&x->held);
		held_sent = ns_worker_counter(&x->held_sent);
		held_dropped = ns_worker_counter(&x->held_dropped);
		injected = ns_worker_counter(&x->injected);
		t->rx_packets += ns_worker_counter(&w[i]->rx_packets);
		t->rx_bytes += ns_worker_counter(&w[i]->rx_bytes);
		t->tx_packets += ns_worker_counter(&w[i]->tx_packets) + held_sent + injected;
		t->tx_bytes += ns_worker_counter(&w[i]->tx_bytes) +
			       ns_worker_counter(&x->extra_bytes);
		/* A held frame was marked dropped in its batch: not a drop (yet). */
		t->nf_drops += ns_worker_counter(&w[i]->nf_drops) + held_dropped - held;
		t->tx_errors += ns_worker_counter(&w[i]->tx_errors);
		t->held += held - held_sent - held_dropped;
		t->injected += injected;
	}
}

static void nf_json_counters(struct json *j, const struct nf_counts *c)
{
	json_u64(j, "rx_packets", c->rx_packets);
	json_u64(j, "rx_bytes", c->rx_bytes);
	json_u64(j, "tx_packets", c->tx_packets);
	json_u64(j, "tx_bytes", c->tx_bytes);
	json_u64(j, "nf_drops", c->nf_drops);
	json_u64(j, "tx_errors", c->tx_errors);
	json_u64(j, "held", c->held);
	json_u64(j, "injected", c->injected);
}

static uint64_t nf_kernel_drops(const struct netslice_stats *st)
{
	return st->rx_drop_ring_full + st->rx_drop_no_reader + st->rx_drop_error;
}

static const char *nf_summary_title(const struct netslice_stats *st, const char *state)
{
	int running = !strcmp(state, "running");

	if (!st)
		return running ? "offline run so far" : "offline run done";
	return running ? "running" : "stopped";
}

/*
 * The summary; state says whether the NF is "running" (SIGUSR1, online
 * or offline), "stopped" or "offline" (done).
 */
static void nf_summary(const struct nf *nf, struct ns_worker *const *w,
		       const struct netslice_stats *st, unsigned int n, int json, double secs,
		       const char *state)
{
	struct nf_counts t, one;
	struct json j;
	unsigned int i, k;

	nf_sum(w, n, &t);
	if (json) {
		json_init(&j, stdout);
		json_open(&j, NULL, '{');
		json_str(&j, "nf", nf->name);
		json_str(&j, "mode", st ? "module" : "offline");
		json_str(&j, "state", state);
		json_double(&j, "seconds", secs);
		json_open(&j, "slices", '[');
		for (i = 0; i < n; i++) {
			nf_sum(&w[i], 1, &one);
			json_open(&j, NULL, '{');
			json_u64(&j, "slice", w[i]->slice);
			nf_json_counters(&j, &one);
			if (st) {
				json_open(&j, "module", '{');
				for (k = 0; k < ns_stat_count(); k++)
					json_u64(&j, ns_stat_name(k), ns_stat_value(&st[i], k));
				json_close(&j, '}');
			}
			json_close(&j, '}');
		}
		json_close(&j, ']');
		json_open(&j, "total", '{');
		nf_json_counters(&j, &t);
		json_close(&j, '}');
		if (!st && nf_pf) {
			json_open(&j, "input", '{');
			json_u64(&j, "oversize_skipped", nf_pf->oversize);
			json_close(&j, '}');
		}
		if (nf->report) {
			json_open(&j, nf->name, '{');
			nf->report(&j, NULL, nf->arg);
			json_close(&j, '}');
		}
		json_close(&j, '}');
		json_end(&j);
		return;
	}
	printf("%s: %s after %.1f s\n", nf->name, nf_summary_title(st, state), secs);
	printf("  %-6s %12s %14s %12s %10s %10s %8s %10s %12s %14s\n", "slice", "rx_packets",
	       "rx_bytes", "tx_packets", "nf_drops", "tx_errors", "held", "injected",
	       "kernel_drops", "copied_bytes");
	for (i = 0; i <= n; i++) {
		char name[16];

		if (i < n) {
			nf_sum(&w[i], 1, &one);
			snprintf(name, sizeof(name), "%u", w[i]->slice);
		} else {
			one = t;
			snprintf(name, sizeof(name), "total");
		}
		printf("  %-6s %12llu %14llu %12llu %10llu %10llu %8llu %10llu", name,
		       (unsigned long long)one.rx_packets, (unsigned long long)one.rx_bytes,
		       (unsigned long long)one.tx_packets, (unsigned long long)one.nf_drops,
		       (unsigned long long)one.tx_errors, (unsigned long long)one.held,
		       (unsigned long long)one.injected);
		if (st && i < n)
			printf(" %12llu %14llu", (unsigned long long)nf_kernel_drops(&st[i]),
			       (unsigned long long)(st[i].read_bytes + st[i].write_bytes));
		printf("\n");
	}
	if (!st && nf_pf && nf_pf->oversize)
		printf("  input: %llu frames over %u bytes skipped\n",
		       (unsigned long long)nf_pf->oversize, PCAPNG_MAX_FRAME);
	if (nf->report)
		nf->report(NULL, stdout, nf->arg);
	fflush(stdout);
}

void nf_print_summary(const struct nf *nf, struct ns_worker *const *w,
		      const struct netslice_stats *st, unsigned int n, int json, double secs)
{
	nf_log_drop_flush();
	nf_summary(nf, w, st, n, json, secs, st ? "stopped" : "offline");
}

void nf_print_progress(const struct nf *nf, struct ns_worker *const *w, unsigned int n, int json)
{
	nf_summary(nf, w, NULL, n, json, 0, "running");
}

/* ---- online: ns_run() callbacks ---- */

/*
 * protects nf_cur_run and the NF's reported state against a reload: the
 * watcher thread (SIGUSR1, --metrics) reports while the calling thread
 * may reload (which frees what the report reads).
 */
static pthread_mutex_t nf_report_lock = PTHREAD_MUTEX_INITIALIZER;
static struct ns_run *nf_cur_run;	/* between ready and done */
static struct ns_worker *nf_offline_w[NETSLICE_MAX_SLICES];	/* offline's, while it runs */
static unsigned int nf_offline_nr;

static void nf_live_print(struct nf_live *l, struct ns_run *run)
{
	struct ns_worker *w[NETSLICE_MAX_SLICES];
	unsigned int i, n = ns_run_workers(run);
	struct nf_counts t;
	double secs = l->interval;
	struct json j;

	for (i = 0; i < n; i++)
		w[i] = ns_run_worker(run, i);
	nf_sum(w, n, &t);
	if (l->json) {
		json_init(&j, stdout);
		json_open(&j, NULL, '{');
		json_str(&j, "nf", l->nf->name);
		json_double(&j, "t", (double)(nf_mono_ms() - l->start_ms) / 1000);
		nf_json_counters(&j, &t);
		json_double(&j, "rx_pps", (double)(t.rx_packets - l->last_rx) / secs);
		json_double(&j, "tx_pps", (double)(t.tx_packets - l->last_tx) / secs);
		if (l->nf->live)
			l->nf->live(&j, NULL, l->nf->arg);
		json_close(&j, '}');
		json_end(&j);
	} else {
		printf("%s: %.0f pkt/s in, %.0f out; total in %llu, out %llu, NF drops %llu, "
		       "errors %llu\n", l->nf->name, (double)(t.rx_packets - l->last_rx) / secs,
		       (double)(t.tx_packets - l->last_tx) / secs,
		       (unsigned long long)t.rx_packets, (unsigned long long)t.tx_packets,
		       (unsigned long long)t.nf_drops, (unsigned long long)t.tx_errors);
		if (l->nf->live)
			l->nf->live(NULL, stdout, l->nf->arg);
		fflush(stdout);
	}
	l->last_rx = t.rx_packets;
	l->last_tx = t.tx_packets;
}

static struct nf_live nf_live_state;

/* --busy-poll, --prefer-busy-poll, --wake-every: how an idle worker waits. */
static struct {
	unsigned int busy_poll_us, wake_every_us;
	int busy_prefer;
} nf_poll;

static void nf_tick(struct ns_run *run, void *arg)
{
	struct nf_live *l = &nf_live_state;
	const struct nf *nf = l->nf;

	(void)arg;
	pthread_mutex_lock(&nf_report_lock);
	if (nf->tick)
		nf->tick(nf->arg);
	if (l->interval && ++l->ticks % l->interval == 0)
		nf_live_print(l, run);
	pthread_mutex_unlock(&nf_report_lock);
}

/* The slices are open: tell the user, and systemd when a Type=notify unit started us. */
static void nf_ready(struct ns_run *run, void *arg)
{
	char state[64];
	int err;

	(void)arg;
	pthread_mutex_lock(&nf_report_lock);
	nf_cur_run = run;
	pthread_mutex_unlock(&nf_report_lock);
	nf_err("running on %u slices", ns_run_workers(run));
	snprintf(state, sizeof(state), "READY=1\nSTATUS=running on %u slices",
		 ns_run_workers(run));
	err = sd_notify_state(state);
	if (err < 0)
		nf_err("cannot notify systemd: %s", strerror(-err));
}

/*
 * SIGHUP, the unit's ExecReload: an NF with a configuration reads it again;
 * one without says so and keeps running (a daemon is not stopped by HUP).
 * Offline (no run) there is no unit to tell.
 */
void nf_sighup(struct ns_run *run)
{
	const struct nf *nf = nf_live_state.nf;

	if (!nf->reload) {
		nf_err("SIGHUP: nothing to reload");
		return;
	}
	if (run)
		sd_notify_state("RELOADING=1");
	pthread_mutex_lock(&nf_report_lock);
	nf->reload(run, nf->arg);
	pthread_mutex_unlock(&nf_report_lock);
	if (run)
		sd_notify_state("READY=1");
}

static void nf_reload(struct ns_run *run, void *arg)
{
	(void)arg;
	nf_sighup(run);
}

/* Each worker's slice counters from the module (zero where they cannot be read). */
static unsigned int nf_workers(struct ns_run *run, struct ns_worker **w, struct netslice_stats *st)
{
	unsigned int i, n = ns_run_workers(run);

	for (i = 0; i < n; i++) {
		w[i] = ns_run_worker(run, i);
		if (ns_stats_get(w[i]->fd, &st[i]))
			memset(&st[i], 0, sizeof(st[i]));
	}
	return n;
}

/* Offline mode's workers, watched as online's are; n = 0 when they go. */
void nf_offline_live(struct ns_worker *const *w, unsigned int n)
{
	pthread_mutex_lock(&nf_report_lock);
	memcpy(nf_offline_w, w, n * sizeof(*w));
	nf_offline_nr = n;
	pthread_mutex_unlock(&nf_report_lock);
}

/* The workers to report on, online or offline, or 0. Caller holds nf_report_lock. */
static unsigned int nf_live_workers(struct ns_worker **w, struct netslice_stats *st)
{
	if (nf_cur_run)
		return nf_workers(nf_cur_run, w, st);
	memcpy(w, nf_offline_w, nf_offline_nr * sizeof(*w));
	return nf_offline_nr;
}

static void nf_done(struct ns_run *run, void *arg)
{
	static struct netslice_stats st[NETSLICE_MAX_SLICES];
	struct ns_worker *w[NETSLICE_MAX_SLICES];
	unsigned int n, i;

	(void)arg;
	sd_notify_state("STOPPING=1");
	pthread_mutex_lock(&nf_report_lock);
	nf_cur_run = NULL;
	pthread_mutex_unlock(&nf_report_lock);
	n = nf_workers(run, w, st);
	/* The first whose error ns_run() returns. */
	for (i = 0; i < n && nf_failed_slice < 0; i++)
		if (w[i]->err)
			nf_failed_slice = (int)w[i]->slice;
	nf_print_summary(nf_live_state.nf, w, st, n, nf_live_state.json,
			 (double)(nf_mono_ms() - nf_live_state.start_ms) / 1000);
}

/* SIGUSR1 online: the summary so far, on stdout. */
static void nf_usr1(void)
{
	static struct netslice_stats st[NETSLICE_MAX_SLICES];
	struct ns_worker *w[NETSLICE_MAX_SLICES];
	unsigned int n;

	/* Online only: offline, SIGUSR1 is the reader's (nf_print_progress()). */
	pthread_mutex_lock(&nf_report_lock);
	if (nf_cur_run) {
		n = nf_workers(nf_cur_run, w, st);
		nf_summary(nf_live_state.nf, w, st, n, nf_live_state.json,
			   (double)(nf_mono_ms() - nf_live_state.start_ms) / 1000, "running");
	}
	pthread_mutex_unlock(&nf_report_lock);
}

/*
 * The module's slice counters as Prometheus families: HELP from the uapi
 * header's comments; two are levels, not counts. A counter the module
 * gains before this table does is still exported, untyped.
 */
enum {
#define NF_STAT_INDEX(NAME, name)	NF_STAT_##NAME,
	NETSLICE_STATS_LIST(NF_STAT_INDEX)
#undef NF_STAT_INDEX
};

static const char *const nf_stat_help[] = {
	[NF_STAT_RX_PACKETS] = "Packets the module queued on the slice's ring.",
	[NF_STAT_RX_BYTES] = "Bytes the module queued on the slice's ring.",
	[NF_STAT_RX_DROP_RING_FULL] = "Packets dropped: the slice's ring was full.",
	[NF_STAT_RX_DROP_NO_READER] = "Packets dropped: no file was open on the slice.",
	[NF_STAT_RX_DROP_ERROR] = "Packets dropped: could not be segmented or checksummed.",
	[NF_STAT_RX_SEGMENTS] = "Of rx_packets, segments of GSO/GRO packets.",
	[NF_STAT_RX_OFF_CPU] = "Packets received outside the slice's kernel-side CPUs.",
	[NF_STAT_RX_TRIMMED] = "Packets queued as a header-only record: the ring was full.",
	[NF_STAT_READ_PACKETS] = "Packets handed to user space.",
	[NF_STAT_READ_BYTES] = "Bytes copied to user space.",
	[NF_STAT_READ_TRUNCATED] = "Packets longer than the iov they were read into.",
	[NF_STAT_READ_SLICED] = "Packets read as headers, their payload parked.",
	[NF_STAT_READ_WHOLE] = "Packets read whole.",
	[NF_STAT_READ_STORE_FULL] = "Of read_whole, packets not sliced: the store was full.",
	[NF_STAT_WRITE_BYTES] = "Bytes copied from user space.",
	[NF_STAT_TX_PACKETS] = "Packets sent out of an interface.",
	[NF_STAT_TX_BYTES] = "Bytes sent out of an interface.",
	[NF_STAT_TX_HOST] = "Packets passed up the host stack.",
	[NF_STAT_TX_NF_DROP] = "Packets the NF wrote back as dropped (NETSLICE_TX_DROP).",
	[NF_STAT_TX_BUSY] = "Short writes: the egress queue was stopped.",
	[NF_STAT_TX_SPLICED] = "Of tx_packets and tx_host, header and parked payload joined.",
	[NF_STAT_TX_ERR_INVALID] = "Writes refused: NETSLICE_TXERR_INVALID.",
	[NF_STAT_TX_ERR_LENGTH] = "Writes refused: NETSLICE_TXERR_LENGTH.",
	[NF_STAT_TX_ERR_IFINDEX] = "Writes refused: NETSLICE_TXERR_IFINDEX.",
	[NF_STAT_TX_ERR_FAULT] = "Writes refused: NETSLICE_TXERR_FAULT.",
	[NF_STAT_TX_ERR_NOMEM] = "Writes refused: NETSLICE_TXERR_NOMEM.",
	[NF_STAT_TX_ERR_DOWN] = "Writes refused: NETSLICE_TXERR_DOWN.",
	[NF_STAT_TX_ERR_STALE] = "Writes refused: NETSLICE_TXERR_STALE.",
	[NF_STAT_TX_ERR_FOREIGN] = "Writes refused: NETSLICE_TXERR_FOREIGN.",
	[NF_STAT_TX_ERR_FORGED] = "Writes refused: NETSLICE_TXERR_FORGED.",
	[NF_STAT_STORE_AGED] = "Parked payloads freed after store_timeout_ms.",
	[NF_STAT_STORE_CLOSED] = "Parked payloads freed when their file closed.",
	[NF_STAT_STORE_USED] = "Payloads parked now.",
	[NF_STAT_STORE_HIGH_WATER] = "The most payloads parked at once.",
	[NF_STAT_RX_PURGED] = "Packets queued and freed unread: detach, close, ring shrunk.",
	[NF_STAT_TX_ERR_DROPPED] = "Writes refused: NETSLICE_TXERR_DROPPED.",
	[NF_STAT_RX_GSO_PACKETS] = "Super-packets queued whole (NETSLICE_CUT_GSO).",
	[NF_STAT_RX_GSO_SEGMENTS] = "The segments the whole super-packets stand for.",
	[NF_STAT_TX_GSO] = "Of tx_spliced, super-packets sent.",
	[NF_STAT_TX_ERR_GSO] = "Writes refused: NETSLICE_TXERR_GSO.",
};

/* One number of every slice, as a Prometheus metric family. */
static void nf_prom_family(FILE *f, const char *name, const char *help, const char *type,
			   const char *nf, struct ns_worker *const *w, const uint64_t *v,
			   unsigned int n)
{
	unsigned int i;

	fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
	for (i = 0; i < n; i++)
		fprintf(f, "%s{nf=\"%s\",slice=\"%u\"} %llu\n", name, nf, w[i]->slice,
			(unsigned long long)v[i]);
}

/* The module's counters of each slice; none offline, where there is no module. */
static void nf_prom_slices(FILE *f, const char *nf, struct ns_worker *const *w,
			   const struct netslice_stats *st, unsigned int n)
{
	uint64_t v[NETSLICE_MAX_SLICES];
	const char *type, *help;
	unsigned int i, k;
	char name[128];

	for (k = 0; st && k < ns_stat_count(); k++) {
		for (i = 0; i < n; i++)
			v[i] = ns_stat_value(&st[i], k);
		help = k < sizeof(nf_stat_help) / sizeof(nf_stat_help[0]) ? nf_stat_help[k] : NULL;
		type = !help ? "untyped" :
			k == NF_STAT_STORE_USED || k == NF_STAT_STORE_HIGH_WATER ? "gauge" : "counter";
		snprintf(name, sizeof(name), "netslice_slice_%s%s", ns_stat_name(k),
			 !strcmp(type, "counter") ? "_total" : "");
		nf_prom_family(f, name, help ? help : "A counter of the slice (netslice_stats).",
			       type, nf, w, v, n);
	}
}

/* --metrics: the NF's counters per slice, the module's, and the NF's own. */
static void nf_prom(FILE *f)
{
	static struct netslice_stats st[NETSLICE_MAX_SLICES];
	static const struct {
		const char *name, *help;
		size_t off;
	} counters[] = {
		{ "rx_packets", "Packets the NF read.", offsetof(struct nf_counts, rx_packets) },
		{ "rx_bytes", "Bytes the NF read (on the wire).", offsetof(struct nf_counts, rx_bytes) },
		{ "tx_packets", "Packets the NF sent, injected ones included.",
		  offsetof(struct nf_counts, tx_packets) },
		{ "tx_bytes", "Bytes the NF sent.", offsetof(struct nf_counts, tx_bytes) },
		{ "drops", "Packets the NF dropped.", offsetof(struct nf_counts, nf_drops) },
		{ "tx_errors", "Packets the module refused.", offsetof(struct nf_counts, tx_errors) },
		{ "injected", "Frames the NF made and sent (ARP, ICMP).",
		  offsetof(struct nf_counts, injected) },
	};
	const struct nf *nf = nf_live_state.nf;
	struct ns_worker *w[NETSLICE_MAX_SLICES];
	uint64_t v[NETSLICE_MAX_SLICES];
	struct nf_counts c[NETSLICE_MAX_SLICES];
	char name[128], prefix[64], labels[96];
	unsigned int i, k, n;
	struct json j;

	pthread_mutex_lock(&nf_report_lock);
	n = nf_live_workers(w, st);
	if (!n) {
		pthread_mutex_unlock(&nf_report_lock);
		return;
	}
	for (i = 0; i < n; i++)
		nf_sum(&w[i], 1, &c[i]);
	for (k = 0; k < sizeof(counters) / sizeof(counters[0]); k++) {
		for (i = 0; i < n; i++)
			memcpy(&v[i], (const char *)&c[i] + counters[k].off, sizeof(v[i]));
		snprintf(name, sizeof(name), "netslice_nf_%s_total", counters[k].name);
		nf_prom_family(f, name, counters[k].help, "counter", nf->name, w, v, n);
	}
	for (i = 0; i < n; i++)
		v[i] = c[i].held;
	nf_prom_family(f, "netslice_nf_held", "Packets waiting in the NF to be sent.", "gauge",
		       nf->name, w, v, n);
	nf_prom_slices(f, nf->name, w, nf_cur_run ? st : NULL, n);
	if (nf->report) {
		/* netslice_nf_firewall_..., from the NF's JSON report. */
		snprintf(prefix, sizeof(prefix), "netslice_%s", nf->name);
		for (i = 0; prefix[i]; i++)
			if (prefix[i] == '-')
				prefix[i] = '_';
		snprintf(labels, sizeof(labels), "nf=\"%s\"", nf->name);
		if (!json_init_prom(&j, f, prefix, labels)) {
			nf->report(&j, NULL, nf->arg);
			json_end(&j);
		}
	}
	pthread_mutex_unlock(&nf_report_lock);
}

static int nf_online(const struct nf *nf, const unsigned int *slices, unsigned int nr,
		     const struct netslice_cut *cut, unsigned int batch, int no_pin,
		     enum ns_run_mode mode)
{
	struct ns_run_config cfg = {
		.size = sizeof(cfg),
		.mode = mode,
		.slices = slices,
		.nr_slices = nr,
		.batch = batch,
		.cut = cut,
		.no_pin = no_pin,
		.arg = nf->arg,
		.worker_init = nf->worker_init,
		.worker_fini = nf->worker_fini,
		.process = nf->process,
		.sent = nf->sent,
		.tick = nf_tick,
		.tick_ms = 1000,
		.reload = nf_reload,
		.ready = nf_ready,
		.done = nf_done,
		.busy_poll_us = nf_poll.busy_poll_us,
		.busy_prefer = nf_poll.busy_prefer,
		.wake_every_us = nf_poll.wake_every_us,
	};
	int err;

	nf_live_state.start_ms = nf_mono_ms();
	if (nf_metrics_start(nf_usr1, nf_prom))
		return 1;
	err = ns_run(&cfg);
	nf_metrics_stop();
	/* What no restart mends exits 2, as a bad option does. */
	if (err && cfg.busy_poll_us && (err == -EPERM || err == -ENOTTY)) {
		nf_fail(-err, "--busy-poll: %s", err == -EPERM ?
			"busy polling needs CAP_NET_ADMIN" : "the module has no ring mode");
		return 2;
	}
	if (!err)
		return 0;
	if (nf_failed_slice >= 0)
		nf_fail(-err, "slice %d: %s%s", nf_failed_slice, strerror(-err),
			err == -ENOBUFS ? " (ring memory past RLIMIT_MEMLOCK, without CAP_IPC_LOCK)" :
			"");
	else
		nf_fail(-err, "%s", strerror(-err));
	/* A device node udev has not made yet, or a module gone: worth another try. */
	return err == -ENOENT ? EX_UNAVAILABLE : 1;
}

/* Offline, the slices a list names ("all": one). */
static int nf_offline_slices(const char *list, unsigned int *slices)
{
	unsigned int n = 0;
	cpu_set_t set;
	int cpu;

	if (!strcmp(list, "all")) {
		slices[0] = 0;
		return 1;
	}
	if (ns_cpulist_parse(list, &set)) {
		nf_err("bad slice list '%s' (\"0-3,8\" or \"all\")", list);
		return -1;
	}
	for (cpu = 0; cpu < CPU_SETSIZE; cpu++) {
		if (!CPU_ISSET(cpu, &set))
			continue;
		if (cpu >= NETSLICE_MAX_SLICES) {
			nf_err("no such slice in '%s' (at most %d)", list, NETSLICE_MAX_SLICES);
			return -1;
		}
		slices[n++] = (unsigned int)cpu;
	}
	return (int)n;
}

/* The slice list, checked against the module, with a message for each failure. */
static int nf_slices(const char *list, unsigned int *slices)
{
	int n = ns_slices_parse(list, slices, NETSLICE_MAX_SLICES), count;

	if (n == -ENOENT)
		nf_fail(ENOENT, "the netslice module is not loaded (modprobe netslice ifaces=IF:PEER)");
	else if (n == -ENODEV)
		nf_err("no such slice in '%s' (the module has %d)", list,
		       (count = ns_slice_count()) > 0 ? count : 0);
	else if (n < 0)
		nf_err("bad slice list '%s' (\"0-3,8\" or \"all\")", list);
	return n;
}

int nf_main(int argc, char **argv, const struct nf *nf)
{
	static unsigned int slices[NETSLICE_MAX_SLICES];
	struct option opts[NF_MAX_OPTIONS + 1];
	const char *slice_list = "all", *pcap_in = NULL, *pcap_out = NULL;
	struct netslice_cut cut;
	unsigned long v, batch = NF_BATCH_DEFAULT;
	unsigned int n = 0, i;
	struct pcapng_file pf;
	int c, no_pin = 0, no_gso = 0, nr, ret;
	enum ns_run_mode mode = NS_RUN_AUTO;
	char err[256];

	nf_name = nf->name;
	nf_live_state.nf = nf;
	memcpy(opts, nf_common_options, sizeof(nf_common_options));
	n = NF_COMMON_OPTIONS;
	for (i = 0; nf->options && nf->options[i].name && n < NF_MAX_OPTIONS; i++)
		opts[n++] = nf->options[i];
	memset(&opts[n], 0, sizeof(opts[n]));
	ns_cut_parse(nf->cut, &cut);

	while ((c = getopt_long(argc, argv, ":s:b:m:M:i:jhV", opts, NULL)) != -1) {
		switch (c) {
		case 's':
			slice_list = optarg;
			break;
		case 'b':
			if (nf_parse_uint("--batch", optarg, 1, NETSLICE_MAX_BATCH, &batch))
				return 2;
			break;
		case 'm':
			if (ns_cut_parse(optarg, &cut)) {
				nf_err("bad cut mode '%s' (off, auto[+EXTRA] or fixed:LEN, then ,trim and ,gso)",
				       optarg);
				return 2;
			}
			break;
		case 'M':
			if (!strcmp(optarg, "ring")) {
				mode = NS_RUN_RING;
			} else if (!strcmp(optarg, "rw")) {
				mode = NS_RUN_RW;
			} else {
				nf_err("bad I/O mode '%s' (ring or rw)", optarg);
				return 2;
			}
			break;
		case 'i':
			if (nf_parse_uint("--interval", optarg, 1, 3600, &v))
				return 2;
			nf_live_state.interval = (unsigned int)v;
			break;
		case 'j':
			nf_live_state.json = 1;
			break;
		case 'h':
			nf_usage(nf, stdout);
			return 0;
		case 'V':
			printf("%s %s\n", nf->name, NETSLICE_VERSION);
			return 0;
		case OPT_NO_PIN:
			no_pin = 1;
			break;
		case OPT_NO_GSO:
			no_gso = 1;
			break;
		case OPT_PCAP_IN:
			pcap_in = optarg;
			break;
		case OPT_PCAP_OUT:
			pcap_out = optarg;
			break;
		case OPT_METRICS:
			if (nf_metrics_parse(optarg))
				return 2;
			break;
		case OPT_BUSY_POLL:
			if (nf_parse_uint("--busy-poll", optarg, 1, 1000, &v))
				return 2;
			nf_poll.busy_poll_us = (unsigned int)v;
			break;
		case OPT_PREFER_BUSY_POLL:
			nf_poll.busy_prefer = 1;
			break;
		case OPT_WAKE_EVERY:
			if (nf_parse_uint("--wake-every", optarg, 1, 10000000, &v))
				return 2;
			nf_poll.wake_every_us = (unsigned int)v;
			break;
		case OPT_LOG_DROPS:
			if (nf_parse_uint("--log-drops", optarg, 0, 100000, &v))
				return 2;
			nf_drop_rate = (unsigned int)v;
			break;
		default:
			if (c >= NF_OPT_BASE && nf->option) {
				if (nf->option(nf->arg, c, optarg))
					return 2;
				break;
			}
			cli_bad_option(nf->name, c, argv);
			return 2;
		}
	}
	if (optind < argc) {
		nf_err("unexpected argument '%s' (see --help)", argv[optind]);
		return 2;
	}
	if (pcap_out && !pcap_in) {
		nf_err("--pcap-out needs --pcap-in");
		return 2;
	}
	if (nf_poll.busy_prefer && !nf_poll.busy_poll_us) {
		nf_err("--prefer-busy-poll needs --busy-poll");
		return 2;
	}
	if (nf_poll.busy_poll_us && mode == NS_RUN_RW) {
		nf_err("--busy-poll needs ring mode (-M ring)");
		return 2;
	}
	/* Busy polling is ring mode's: no falling back to read/write. */
	if (nf_poll.busy_poll_us)
		mode = NS_RUN_RING;
	/* A per-header NF takes super-packets whole whenever it slices. */
	if (nf->gso && !no_gso && cut.mode != NETSLICE_CUT_OFF)
		cut.flags |= NETSLICE_CUT_GSO;
	if (pcap_in) {
		struct pcapng_wake wake;

		nr = nf_offline_slices(slice_list, slices);
		if (nr < 0)
			return 2;
		/*
		 * Before the first read: --metrics answers while a quiet capture
		 * gives nothing, and a stop while it waits still ends cleanly.
		 * SIGUSR1 is the reader's, between frames, as SIGHUP is.
		 */
		nf_live_state.start_ms = nf_mono_ms();
		if (nf_metrics_start(NULL, nf_prom))
			return 1;
		if (nf_offline_signals(&wake)) {
			nf_metrics_stop();
			return 1;
		}
		if (pcapng_open(pcap_in, &pf, &wake, err, sizeof(err))) {
			nf_err("%s", err);
			nf_metrics_stop();
			return 2;
		}
		/* Stopped before the file named an interface: there is nothing to set up. */
		if (nf_offline_stopped() && !pf.nr_ifaces) {
			nf_err("stopped before the input's first packet");
			nf_metrics_stop();
			pcapng_close(&pf);
			return 0;
		}
		nf_set_offline(&pf);
		nf_nr_workers = (unsigned int)nr;
		ret = nf->setup && nf->setup(nf->arg) ? 2 :
		      nf_offline(nf, &pf, pcap_out, &cut, slices, (unsigned int)nr,
				 (unsigned int)batch, nf_live_state.json);
		nf_metrics_stop();
		pcapng_close(&pf);
		return ret;
	}
	nr = nf_slices(slice_list, slices);
	if (nr < 0)
		return nr == -ENOENT ? EX_UNAVAILABLE : 2;
	nf_nr_workers = (unsigned int)nr;
	if (nf->setup && nf->setup(nf->arg))
		return nf_iface_missing && !nf_iface_invalid ? EX_UNAVAILABLE : 2;
	return nf_online(nf, slices, (unsigned int)nr, &cut, (unsigned int)batch, no_pin,
			 mode);
}
