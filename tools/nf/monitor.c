// SPDX-License-Identifier: GPL-2.0 WITH LicenseRef-netslice-OpenSSL-exception
/*
 * nf-monitor: per-flow packet and byte counters, a live top-N table, a
 * JSON dump; forwards every packet unchanged. Headers only: bytes are
 * counted from the wire length, so the cut loses nothing.
 *
 * Each worker counts into its own open-addressing table under its own
 * mutex (uncontended but for the main thread's snapshots), so workers
 * never share a cache line. A flow is one direction of a 5-tuple; the
 * snapshot merges a flow seen by two workers. Non-IP frames are one
 * bucket; a full table counts into "untracked".
 */
#include <arpa/inet.h>
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "nf.h"

struct mon_entry {
	struct ns_flow flow;
	uint64_t packets, bytes;
	int used;
};

struct mon_table {
	pthread_mutex_t lock;	/* protects everything below */
	struct mon_entry *slots;
	unsigned int used;
	uint64_t nonip_packets, nonip_bytes, untracked_packets, untracked_bytes;
};

struct mon {
	unsigned long max_flows;	/* per worker, a power of two */
	unsigned long top;
	struct mon_table *tables[NETSLICE_MAX_SLICES];
	unsigned int nr_tables;
	pthread_mutex_t lock;		/* protects tables[] and nr_tables */
};

static struct mon mon_state = {
	.max_flows = 65536,
	.top = 10,
	.lock = PTHREAD_MUTEX_INITIALIZER,
};

static int mon_worker_init(struct ns_worker *w, void *arg)
{
	struct mon *m = arg;
	struct mon_table *t = calloc(1, sizeof(*t));

	if (!t || !(t->slots = calloc(m->max_flows, sizeof(*t->slots)))) {
		free(t);
		return -ENOMEM;
	}
	pthread_mutex_init(&t->lock, NULL);
	ns_worker_set_priv(w, t);
	pthread_mutex_lock(&m->lock);
	m->tables[m->nr_tables++] = t;
	pthread_mutex_unlock(&m->lock);
	return 0;
}

static void mon_count(struct mon *m, struct mon_table *t, const struct ns_flow *f,
		      unsigned int packets, uint32_t bytes)
{
	unsigned long mask = m->max_flows - 1, i, probe;
	struct mon_entry *e;

	i = ns_flow_hash(f, 0) & mask;
	for (probe = 0; probe < 32; probe++, i = (i + 1) & mask) {
		e = &t->slots[i];
		if (!e->used) {
			if (t->used * 4 >= m->max_flows * 3)
				break;	/* 3/4 full: keep probes short */
			e->used = 1;
			e->flow = *f;
			t->used++;
		} else if (memcmp(&e->flow, f, sizeof(*f))) {
			continue;
		}
		e->packets += packets;
		e->bytes += bytes;
		return;
	}
	t->untracked_packets += packets;
	t->untracked_bytes += bytes;
}

static void mon_process(struct ns_worker *w, struct netslice_iov *iov, unsigned int n, void *arg)
{
	struct mon_table *t = ns_worker_priv(w);
	struct ns_flow flow;
	struct ns_pkt p;
	unsigned int i;

	pthread_mutex_lock(&t->lock);
	for (i = 0; i < n; i++) {
		ns_pkt_parse(&p, ns_iov_data(&iov[i]), iov[i].rlen, iov[i].wire_len);
		/* A super-packet counts as the segments it stands for. */
		if (ns_pkt_flow(&p, &flow)) {
			t->nonip_packets += ns_iov_segments(&iov[i]);
			t->nonip_bytes += iov[i].wire_len;
		} else {
			mon_count(arg, t, &flow, ns_iov_segments(&iov[i]), iov[i].wire_len);
		}
		ns_iov_unchanged(&iov[i]);
	}
	pthread_mutex_unlock(&t->lock);
}

static int mon_by_flow(const void *a, const void *b)
{
	return memcmp(&((const struct mon_entry *)a)->flow, &((const struct mon_entry *)b)->flow,
		      sizeof(struct ns_flow));
}

static int mon_by_bytes(const void *a, const void *b)
{
	const struct mon_entry *x = a, *y = b;

	if (x->bytes != y->bytes)
		return x->bytes < y->bytes ? 1 : -1;
	return x->packets < y->packets ? 1 : x->packets > y->packets ? -1 : 0;
}

/* All flows of all workers, merged and sorted by bytes; *other gets the rest. */
static struct mon_entry *mon_snapshot(struct mon *m, size_t *nflows, struct mon_table *other)
{
	struct mon_entry *all = NULL, *grown;
	size_t n = 0, k, out;
	unsigned int i;
	unsigned long s;

	memset(other, 0, sizeof(*other));
	pthread_mutex_lock(&m->lock);
	for (i = 0; i < m->nr_tables; i++) {
		struct mon_table *t = m->tables[i];

		pthread_mutex_lock(&t->lock);
		grown = realloc(all, (n + t->used + 1) * sizeof(*all));
		if (grown) {
			all = grown;
			for (s = 0; s < m->max_flows; s++)
				if (t->slots[s].used)
					all[n++] = t->slots[s];
		}
		other->nonip_packets += t->nonip_packets;
		other->nonip_bytes += t->nonip_bytes;
		other->untracked_packets += t->untracked_packets;
		other->untracked_bytes += t->untracked_bytes;
		pthread_mutex_unlock(&t->lock);
	}
	pthread_mutex_unlock(&m->lock);
	qsort(all, n, sizeof(*all), mon_by_flow);
	for (k = 0, out = 0; k < n; k++) {
		if (out && !mon_by_flow(&all[out - 1], &all[k])) {
			all[out - 1].packets += all[k].packets;
			all[out - 1].bytes += all[k].bytes;
		} else {
			all[out++] = all[k];
		}
	}
	qsort(all, out, sizeof(*all), mon_by_bytes);
	*nflows = out;
	return all;
}

/* A flow as fields a consumer need not parse: addresses, ports (host order), protocol. */
static void mon_flow_json(struct json *j, const struct ns_flow *flow)
{
	char addr[INET6_ADDRSTRLEN];
	int af = flow->family;

	json_str(j, "family", af == AF_INET6 ? "ipv6" : "ipv4");
	json_label_u64(j, "proto", flow->proto);
	inet_ntop(af, flow->saddr, addr, sizeof(addr));
	json_str(j, "src", addr);
	json_label_u64(j, "sport", ntohs(flow->sport));
	inet_ntop(af, flow->daddr, addr, sizeof(addr));
	json_str(j, "dst", addr);
	json_label_u64(j, "dport", ntohs(flow->dport));
}

static void mon_show(struct json *j, FILE *f, void *arg, int live)
{
	struct mon *m = arg;
	struct mon_table other;
	size_t n, i, shown;
	struct mon_entry *all = mon_snapshot(m, &n, &other);
	char text[128];

	shown = m->top && m->top < n ? m->top : n;
	if (j) {
		json_gauge(j, "flows", n, "Flows in the table.");
		json_open_set(j, "top");
		for (i = 0; i < shown; i++) {
			json_open(j, NULL, '{');
			mon_flow_json(j, &all[i].flow);
			json_counter(j, "packets", all[i].packets, "Packets of a top flow.");
			json_counter(j, "bytes", all[i].bytes, "Bytes of a top flow.");
			json_close(j, '}');
		}
		json_close(j, ']');
		json_counter(j, "nonip_packets", other.nonip_packets, "Packets that are not IP.");
		json_counter(j, "nonip_bytes", other.nonip_bytes, "Bytes of packets that are not IP.");
		json_counter(j, "untracked_packets", other.untracked_packets,
			     "Packets of flows not tracked: the table was full.");
		json_counter(j, "untracked_bytes", other.untracked_bytes,
			     "Bytes of flows not tracked: the table was full.");
	} else {
		if (live && isatty(fileno(f)))
			fputs("\033[H\033[2J", f);
		fprintf(f, "  %zu flows; top %zu by bytes:\n  %12s %14s  flow\n", n, shown,
			"packets", "bytes");
		for (i = 0; i < shown; i++) {
			ns_flow_format(&all[i].flow, text, sizeof(text));
			fprintf(f, "  %12llu %14llu  %s\n", (unsigned long long)all[i].packets,
				(unsigned long long)all[i].bytes, text);
		}
		fprintf(f, "  %12llu %14llu  non-IP\n  %12llu %14llu  untracked (table full)\n",
			(unsigned long long)other.nonip_packets,
			(unsigned long long)other.nonip_bytes,
			(unsigned long long)other.untracked_packets,
			(unsigned long long)other.untracked_bytes);
	}
	free(all);
}

static void mon_live(struct json *j, FILE *f, void *arg)
{
	mon_show(j, f, arg, 1);
}

static void mon_report(struct json *j, FILE *f, void *arg)
{
	mon_show(j, f, arg, 0);
}

enum { OPT_TOP = NF_OPT_BASE, OPT_MAX_FLOWS };

static int mon_option(void *arg, int val, const char *value)
{
	struct mon *m = arg;
	unsigned long v;

	if (val == OPT_TOP)
		return nf_parse_uint("--top", value, 0, 1000000, &m->top);
	if (nf_parse_uint("--max-flows", value, 64, 1UL << 24, &v))
		return -1;
	for (m->max_flows = 64; m->max_flows < v; m->max_flows <<= 1)
		;
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option options[] = {
		{ "top", required_argument, NULL, OPT_TOP },
		{ "max-flows", required_argument, NULL, OPT_MAX_FLOWS },
		{ NULL, 0, NULL, 0 },
	};
	static const struct nf monitor = {
		.name = "nf-monitor",
		.summary = "Count packets and bytes per flow; show the top flows; forward unchanged.",
		.usage = "      --top N          flows in the table and the JSON dump (default 10,\n"
			 "                       0 = all)\n"
			 "      --max-flows N    flows tracked per slice (default 65536)\n",
		.cut = "auto",
		.gso = true,
		.options = options,
		.arg = &mon_state,
		.option = mon_option,
		.worker_init = mon_worker_init,
		.process = mon_process,
		.live = mon_live,
		.report = mon_report,
	};
	int ret = nf_main(argc, argv, &monitor);
	unsigned int i;

	for (i = 0; i < mon_state.nr_tables; i++) {
		free(mon_state.tables[i]->slots);
		free(mon_state.tables[i]);
	}
	return ret;
}
