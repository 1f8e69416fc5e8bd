// SPDX-License-Identifier: GPL-2.0 WITH LicenseRef-netslice-OpenSSL-exception
/* The NF's summary and live line (report.h). */
#include <string.h>

#include "droplog.h"
#include "held.h"
#include "io.h"
#include "pcapng.h"
#include "report.h"

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

static void nf_summary_json(const struct nf_report_of *r, double secs, const char *state)
{
	const struct nf *nf = r->nf;
	struct nf_counts t, one;
	struct json j;
	unsigned int i, k;

	json_init(&j, stdout);
	json_open(&j, NULL, '{');
	json_str(&j, "nf", nf->name);
	json_str(&j, "mode", r->st ? "module" : "offline");
	json_str(&j, "state", state);
	json_double(&j, "seconds", secs);
	json_open(&j, "slices", '[');
	for (i = 0; i < r->n; i++) {
		nf_counts_sum(&r->w[i], 1, &one);
		json_open(&j, NULL, '{');
		json_u64(&j, "slice", ns_worker_slice(r->w[i]));
		nf_json_counters(&j, &one);
		if (r->st) {
			json_open(&j, "module", '{');
			for (k = 0; k < ns_stat_count(); k++)
				json_u64(&j, ns_stat_name(k), ns_stat_value(&r->st[i], k));
			json_close(&j, '}');
		}
		json_close(&j, '}');
	}
	json_close(&j, ']');
	json_open(&j, "total", '{');
	nf_counts_sum(r->w, r->n, &t);
	nf_json_counters(&j, &t);
	json_close(&j, '}');
	if (!r->st && r->input) {
		json_open(&j, "input", '{');
		json_u64(&j, "oversize_skipped", r->input->oversize);
		json_close(&j, '}');
	}
	if (nf->report) {
		json_open(&j, nf->name, '{');
		nf->report(&j, NULL, nf->arg);
		json_close(&j, '}');
	}
	json_close(&j, '}');
	json_end(&j);
}

/* Slice i's line of the text summary (i == n: the total). */
static void nf_summary_line(const struct nf_report_of *r, unsigned int i)
{
	struct nf_counts one;
	char name[16];

	if (i < r->n) {
		nf_counts_sum(&r->w[i], 1, &one);
		snprintf(name, sizeof(name), "%u", ns_worker_slice(r->w[i]));
	} else {
		nf_counts_sum(r->w, r->n, &one);
		snprintf(name, sizeof(name), "total");
	}
	printf("  %-6s %12llu %14llu %12llu %10llu %10llu %8llu %10llu", name,
	       (unsigned long long)one.rx_packets, (unsigned long long)one.rx_bytes,
	       (unsigned long long)one.tx_packets, (unsigned long long)one.nf_drops,
	       (unsigned long long)one.tx_errors, (unsigned long long)one.held,
	       (unsigned long long)one.injected);
	if (r->st && i < r->n)
		printf(" %12llu %14llu", (unsigned long long)nf_kernel_drops(&r->st[i]),
		       (unsigned long long)(r->st[i].read_bytes + r->st[i].write_bytes));
	printf("\n");
}

static void nf_summary_text(const struct nf_report_of *r, double secs, const char *state)
{
	const struct nf *nf = r->nf;
	unsigned int i;

	printf("%s: %s after %.1f s\n", nf->name, nf_summary_title(r->st, state), secs);
	printf("  %-6s %12s %14s %12s %10s %10s %8s %10s %12s %14s\n", "slice", "rx_packets",
	       "rx_bytes", "tx_packets", "nf_drops", "tx_errors", "held", "injected",
	       "kernel_drops", "copied_bytes");
	for (i = 0; i <= r->n; i++)
		nf_summary_line(r, i);
	if (!r->st && r->input && r->input->oversize)
		printf("  input: %llu frames over %u bytes skipped\n",
		       (unsigned long long)r->input->oversize, PCAPNG_MAX_FRAME);
	if (nf->report)
		nf->report(NULL, stdout, nf->arg);
	fflush(stdout);
}

/*
 * The summary; state says whether the NF is "running" (SIGUSR1, online
 * or offline), "stopped" or "offline" (done).
 */
static void nf_summary(const struct nf_report_of *r, double secs, const char *state)
{
	if (r->json)
		nf_summary_json(r, secs, state);
	else
		nf_summary_text(r, secs, state);
}

void nf_report_final(const struct nf_report_of *r, double secs)
{
	nf_log_drop_flush();
	nf_summary(r, secs, r->st ? "stopped" : "offline");
}

void nf_report_now(const struct nf_report_of *r, double secs)
{
	nf_summary(r, secs, "running");
}

void nf_report_live(struct nf_live *l, struct ns_worker *const *w, unsigned int n)
{
	struct nf_counts t;
	double secs = l->interval;
	struct json j;

	nf_counts_sum(w, n, &t);
	if (l->json) {
		json_init(&j, stdout);
		json_open(&j, NULL, '{');
		json_str(&j, "nf", l->nf->name);
		json_double(&j, "t", (double)(nf_now_ms() - l->start_ms) / 1000);
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
