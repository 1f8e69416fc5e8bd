/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What make bench's two batch generators share: xdpgen (XDP frames into a
 * veth, in the guest) and hostgen (frames into a tap, on the host). The
 * frame (bench/pktgen.sh's: UDP/IPv4 10.99.1.1 -> 10.99.9.9 port 9, the
 * source port a flow's), and the wait for a counter of the frames that
 * came out of the DUT before the next batch goes.
 */
#ifndef GEN_FRAME_H
#define GEN_FRAME_H

#include <arpa/inet.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "netslice_pkt.h"

#define GEN_MAX_FRAME		1514
#define GEN_UDP_SPORT_OFF	34	/* Ethernet 14 + IPv4 20 */
#define GEN_STALL_NS		2000000000ull
#define GEN_WAIT_NS		20000

static inline uint64_t gen_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

/* gen_build: the frame of LEN bytes from src to dst, source port 10000. */
static inline void gen_build(uint8_t *f, size_t len, const uint8_t *dst, const uint8_t *src)
{
	uint16_t ip_len = len - 14, udp_len = ip_len - 20, v;
	size_t i;

	memset(f, 0, len);
	memcpy(f, dst, 6);
	memcpy(f + 6, src, 6);
	f[12] = 0x08;
	f[14] = 0x45;
	v = htons(ip_len);
	memcpy(f + 16, &v, 2);
	f[22] = 64;
	f[23] = 17;
	memcpy(f + 26, "\x0a\x63\x01\x01", 4);	/* 10.99.1.1 */
	memcpy(f + 30, "\x0a\x63\x09\x09", 4);	/* 10.99.9.9 */
	v = ns_csum(f + 14, 20);
	memcpy(f + 24, &v, 2);
	v = htons(10000);
	memcpy(f + GEN_UDP_SPORT_OFF, &v, 2);
	v = htons(9);
	memcpy(f + 36, &v, 2);
	v = htons(udp_len);
	memcpy(f + 38, &v, 2);
	/* UDP checksum 0 (none), as pktgen's; a payload that is not all zero. */
	for (i = 42; i < len; i++)
		f[i] = (uint8_t)i;
}

static inline int gen_read_counter(int fd, unsigned long long *v)
{
	char buf[32];
	ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);

	if (n <= 0)
		return -1;
	buf[n] = '\0';
	*v = strtoull(buf, NULL, 10);
	return 0;
}

static inline void gen_nap_ns(uint64_t ns)
{
	struct timespec nap = { ns / 1000000000ull, ns % 1000000000ull };

	nanosleep(&nap, NULL);
}

/*
 * gen_wait_counter: until fd's counter reaches want or stands still (frames
 * lost: *want becomes what it holds, so the next batch waits only for its
 * own). Each look costs the generator's vCPU a wake-up, so it first
 * sleeps half of what the batches took (*est, a moving average), then
 * looks every sixteenth of that. Not more than half: a batch measured
 * as at least the sleep before it, a sleep of 7/8 kept the average
 * within 3% a batch of whatever it once was (the -S wait has none).
 * moved (if not NULL): when the counter last moved (or was found done).
 */
static inline int gen_wait_counter(int fd, unsigned long long *want, uint64_t *est,
				   unsigned long long *waits, uint64_t *moved)
{
	unsigned long long v, last = ~0ull;
	uint64_t start = gen_now_ns(), since = start, step = *est / 16;

	if (step < GEN_WAIT_NS)
		step = GEN_WAIT_NS;
	if (*est)
		gen_nap_ns(*est / 2);
	for (;;) {
		if (gen_read_counter(fd, &v))
			return -1;
		if (v >= *want)
			break;
		if (v != last) {
			last = v;
			since = gen_now_ns();
		} else if (gen_now_ns() - since > GEN_STALL_NS) {
			*want = v;	/* frames lost: the estimate stays */
			if (moved)
				*moved = since;
			return 0;
		}
		(*waits)++;
		gen_nap_ns(step);
	}
	if (moved)
		*moved = gen_now_ns();
	*est = *est ? (*est * 3 + (gen_now_ns() - start)) / 4 : gen_now_ns() - start;
	return 0;
}

#endif /* GEN_FRAME_H */
