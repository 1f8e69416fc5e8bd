// SPDX-License-Identifier: GPL-2.0
/*
 * bench-sink: count pktgen frames arriving on an interface and measure
 * their latency, generator to sink.
 *
 *   bench-sink IFACE
 *
 * Runs until SIGINT/SIGTERM, then prints one line
 *   packets N mean_us M p50_us A p90_us B p99_us C cpu_ms D
 * and the latency distribution as "cdf: q0 q1 ... q100" (the k-th
 * percentile in microseconds). pktgen stamps each frame with the wall
 * clock as it builds it (struct pktgen_hdr after the UDP header, magic
 * 0xbe9be955, seconds and microseconds); the sink reads the same clock
 * as recvmmsg returns, so the figure includes its own wake-up, which is
 * the same for every contender at a given rate. Frames without the
 * magic are not counted. cpu_ms is the sink's own CPU time, which the
 * benchmark subtracts from the guest's.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <net/if.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define BATCH 64
#define SNAP 64
#define PGH_OFF (14 + 20 + 8)
#define PGH_MAGIC 0xbe9be955u
#define MAX_SAMPLES (8u << 20)

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

static int open_socket(const char *ifname)
{
	struct sockaddr_ll sll = { .sll_family = AF_PACKET, .sll_protocol = htons(ETH_P_ALL) };
	struct timeval tv = { .tv_usec = 200000 };
	int rcvbuf = 16 << 20;
	int fd;

	sll.sll_ifindex = if_nametoindex(ifname);
	if (!sll.sll_ifindex) {
		fprintf(stderr, "bench-sink: %s: no such interface\n", ifname);
		return -1;
	}
	fd = socket(AF_PACKET, SOCK_RAW, htons(ETH_P_ALL));
	if (fd < 0 || bind(fd, (struct sockaddr *)&sll, sizeof(sll)) ||
	    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) ||
	    setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf, sizeof(rcvbuf))) {
		perror("bench-sink: socket");
		return -1;
	}
	return fd;
}

int main(int argc, char **argv)
{
	static uint8_t buf[BATCH][SNAP];
	struct mmsghdr msgs[BATCH];
	struct iovec iov[BATCH];
	uint64_t packets = 0, sum_us = 0;
	uint32_t *lat, n = 0;
	struct rusage ru;
	int fd, i, k;

	if (argc != 2) {
		fprintf(stderr, "usage: bench-sink IFACE\n");
		return 2;
	}
	fd = open_socket(argv[1]);
	if (fd < 0)
		return 1;
	lat = malloc(MAX_SAMPLES * sizeof(*lat));
	if (!lat)
		return 1;
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	for (i = 0; i < BATCH; i++) {
		iov[i] = (struct iovec){ buf[i], SNAP };
		msgs[i].msg_hdr = (struct msghdr){ .msg_iov = &iov[i], .msg_iovlen = 1 };
	}
	printf("ready\n");
	fflush(stdout);
	while (!stop) {
		struct timespec now;
		int got = recvmmsg(fd, msgs, BATCH, MSG_WAITFORONE, NULL);

		if (got < 0) {
			if (errno == EAGAIN || errno == EINTR)
				continue;
			perror("bench-sink: recvmmsg");
			return 1;
		}
		clock_gettime(CLOCK_REALTIME, &now);
		for (i = 0; i < got; i++) {
			const uint8_t *p = buf[i];
			uint32_t w[4];
			int64_t us;

			if (msgs[i].msg_len < PGH_OFF + sizeof(w))
				continue;
			memcpy(w, p + PGH_OFF, sizeof(w));
			if (ntohl(w[0]) != PGH_MAGIC)
				continue;
			us = ((int64_t)now.tv_sec - ntohl(w[2])) * 1000000 +
			     now.tv_nsec / 1000 - ntohl(w[3]);
			if (us < 0)
				us = 0;
			packets++;
			sum_us += us;
			if (n < MAX_SAMPLES)
				lat[n++] = us > UINT32_MAX ? UINT32_MAX : us;
		}
	}
	getrusage(RUSAGE_SELF, &ru);
	qsort(lat, n, sizeof(*lat), cmp_u32);
#define PCT(k) (n ? lat[(uint64_t)(n - 1) * (k) / 100] : 0)
	printf("packets %llu mean_us %llu p50_us %u p90_us %u p99_us %u cpu_ms %ld\n",
	       (unsigned long long)packets,
	       (unsigned long long)(packets ? sum_us / packets : 0), PCT(50), PCT(90), PCT(99),
	       (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000 +
	       (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1000);
	printf("cdf:");
	for (k = 0; k <= 100; k++)
		printf(" %u", PCT(k));
	printf("\n");
	return 0;
}
