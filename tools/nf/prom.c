// SPDX-License-Identifier: GPL-2.0 WITH LicenseRef-netslice-OpenSSL-exception
/* The NF's counters as Prometheus metrics (prom.h). */
#include <stddef.h>
#include <string.h>

#include "held.h"
#include "io.h"
#include "prom.h"
#include "watch.h"

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
	[NF_STAT_RX_PACKETS] = "Packets the module queued on the slice's rxq.",
	[NF_STAT_RX_BYTES] = "Bytes the module queued on the slice's rxq.",
	[NF_STAT_RX_DROP_RING_FULL] = "Packets dropped: the slice's rxq (ring mode: its RX ring) was full.",
	[NF_STAT_RX_DROP_NO_READER] = "Packets dropped: no file was open on the slice.",
	[NF_STAT_RX_DROP_ERROR] = "Packets dropped: could not be segmented or checksummed.",
	[NF_STAT_RX_SEGMENTS] = "Of rx_packets, segments of GSO/GRO packets.",
	[NF_STAT_RX_OFF_CPU] = "Packets received outside the slice's kernel-side CPUs.",
	[NF_STAT_RX_TRIMMED] = "Packets queued as a header-only record: the rxq was full.",
	[NF_STAT_READ_PACKETS] = "Packets handed to user space.",
	[NF_STAT_READ_BYTES] = "Bytes copied to user space.",
	[NF_STAT_READ_TRUNCATED] = "Packets longer than the iov they were read into.",
	[NF_STAT_READ_SLICED] = "Packets read as headers, their payload parked.",
	[NF_STAT_READ_WHOLE] = "Packets read whole.",
	[NF_STAT_READ_STORE_FULL] = "Of read_whole, packets not cut: the store was full.",
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
	[NF_STAT_RX_PURGED] = "Packets queued and freed unread: detach, close, rxq shrunk.",
	[NF_STAT_TX_ERR_DROPPED] = "Writes refused: NETSLICE_TXERR_DROPPED.",
	[NF_STAT_RX_GSO_PACKETS] = "Super-packets queued whole (NETSLICE_CUT_GSO).",
	[NF_STAT_RX_GSO_SEGMENTS] = "The segments the whole super-packets stand for.",
	[NF_STAT_TX_GSO] = "Of tx_spliced, super-packets sent.",
	[NF_STAT_TX_ERR_GSO] = "Writes refused: NETSLICE_TXERR_GSO.",
	[NF_STAT_TX_CHAINED] = "Packets handed to the next slice of the chain (not in tx_packets).",
	[NF_STAT_RX_CHAINED] = "Of rx_packets, packets handed over by the slice before in a chain.",
	[NF_STAT_TX_ERR_LOOP] = "Writes refused: NETSLICE_TXERR_LOOP.",
};

/* One number of every slice, as a Prometheus metric family. */
static void nf_prom_family(FILE *f, const char *name, const char *help, const char *type,
			   const char *nf, struct ns_worker *const *w, const uint64_t *v,
			   unsigned int n)
{
	unsigned int i;

	fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
	for (i = 0; i < n; i++)
		fprintf(f, "%s{nf=\"%s\",slice=\"%u\"} %llu\n", name, nf, ns_worker_slice(w[i]),
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

/* The NF's counters of each slice (struct nf_counts). */
static void nf_prom_counts(FILE *f, const char *nf, struct ns_worker *const *w, unsigned int n)
{
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
	struct nf_counts c[NETSLICE_MAX_SLICES];
	uint64_t v[NETSLICE_MAX_SLICES];
	unsigned int i, k;
	char name[128];

	for (i = 0; i < n; i++)
		nf_counts_sum(&w[i], 1, &c[i]);
	for (k = 0; k < sizeof(counters) / sizeof(counters[0]); k++) {
		for (i = 0; i < n; i++)
			memcpy(&v[i], (const char *)&c[i] + counters[k].off, sizeof(v[i]));
		snprintf(name, sizeof(name), "netslice_nf_%s_total", counters[k].name);
		nf_prom_family(f, name, counters[k].help, "counter", nf, w, v, n);
	}
	for (i = 0; i < n; i++)
		v[i] = c[i].held;
	nf_prom_family(f, "netslice_nf_held", "Packets waiting in the NF to be sent.", "gauge",
		       nf, w, v, n);
}

/* netslice_nf_firewall_..., from the NF's JSON report. */
static void nf_prom_report(FILE *f, const struct nf *nf)
{
	char prefix[64], labels[96];
	struct json j;
	unsigned int i;

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

void nf_prom(FILE *f, void *arg)
{
	const struct nf *nf = arg;
	struct ns_worker *w[NETSLICE_MAX_SLICES];
	struct netslice_stats *st;
	unsigned int n;

	nf_watch_lock();
	n = nf_io_watched(w, &st);
	if (n) {
		nf_prom_counts(f, nf->name, w, n);
		nf_prom_slices(f, nf->name, w, st, n);
		if (nf->report)
			nf_prom_report(f, nf);
	}
	nf_watch_unlock();
}
