// SPDX-License-Identifier: GPL-2.0 WITH LicenseRef-netslice-OpenSSL-exception
/*
 * Dropped packets on stderr at a bounded rate (--log-drops N): at most N
 * lines a second; what goes over is counted and said once the next
 * second begins, so a flood costs a counter, not the journal.
 */
#include <arpa/inet.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "droplog.h"
#include "log.h"

unsigned int nf_drop_rate;

static pthread_mutex_t nf_drop_lock = PTHREAD_MUTEX_INITIALIZER;
static struct {
	uint64_t second;	/* protected by nf_drop_lock, as the rest */
	unsigned int logged;
	uint64_t unlogged;
} nf_drops_log;

static uint64_t nf_drop_second(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec;
}

/* "udp 10.0.0.1:1000 > 10.0.0.2:53", "ipv6 icmpv6 ...", or "non-IP 0x88cc". */
static void nf_drop_describe(char *buf, size_t len, const struct ns_pkt *p)
{
	char src[INET6_ADDRSTRLEN], dst[INET6_ADDRSTRLEN];
	struct ns_flow f;

	if (!p || p->family == 0 || ns_pkt_flow(p, &f)) {
		snprintf(buf, len, "non-IP 0x%04x", p ? p->eth_type : 0);
		return;
	}
	inet_ntop(f.family, f.saddr, src, sizeof(src));
	inet_ntop(f.family, f.daddr, dst, sizeof(dst));
	if (f.proto == IPPROTO_TCP || f.proto == IPPROTO_UDP)
		snprintf(buf, len, "%s %s%s%s:%u > %s%s%s:%u", f.proto == IPPROTO_TCP ? "tcp" : "udp",
			 f.family == AF_INET6 ? "[" : "", src, f.family == AF_INET6 ? "]" : "",
			 ntohs(f.sport), f.family == AF_INET6 ? "[" : "", dst,
			 f.family == AF_INET6 ? "]" : "", ntohs(f.dport));
	else
		snprintf(buf, len, "proto %u %s > %s", f.proto, src, dst);
}

void nf_log_drop(const struct ns_pkt *p, const char *fmt, ...)
{
	char what[160], why[160];
	uint64_t now, unlogged = 0;
	va_list ap;
	int log;

	if (!nf_drop_rate)
		return;
	now = nf_drop_second();
	pthread_mutex_lock(&nf_drop_lock);
	if (now != nf_drops_log.second) {
		unlogged = nf_drops_log.unlogged;
		nf_drops_log.second = now;
		nf_drops_log.logged = 0;
		nf_drops_log.unlogged = 0;
	}
	log = nf_drops_log.logged < nf_drop_rate;
	if (log)
		nf_drops_log.logged++;
	else
		nf_drops_log.unlogged++;
	pthread_mutex_unlock(&nf_drop_lock);
	if (unlogged)
		nf_err("%llu more drops not logged (--log-drops %u a second)",
		       (unsigned long long)unlogged, nf_drop_rate);
	if (!log)
		return;
	nf_drop_describe(what, sizeof(what), p);
	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	nf_err("drop %s: %s", what, why);
}

void nf_log_drop_flush(void)
{
	uint64_t unlogged;

	pthread_mutex_lock(&nf_drop_lock);
	unlogged = nf_drops_log.unlogged;
	nf_drops_log.unlogged = 0;
	pthread_mutex_unlock(&nf_drop_lock);
	if (unlogged)
		nf_err("%llu more drops not logged (--log-drops %u a second)",
		       (unsigned long long)unlogged, nf_drop_rate);
}
