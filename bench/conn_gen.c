// SPDX-License-Identifier: GPL-2.0
/*
 * conn-gen: open TCP connections through a NAT as fast as asked, each
 * from a fresh inside endpoint: a SYN per connection, written as raw
 * frames (AF_PACKET, sendmmsg) so the generator's stack keeps no state.
 *
 *   conn-gen IFACE DST_MAC DST_ADDR DST_PORT RATE SECONDS [FIRST]
 *
 * Connections are numbered from FIRST (0); connection i comes from 10.99.0.(10 + i / 64512 % 240), port 1024 +
 * i % 64512, at the address's own MAC (02:00:0a:63:00:xx): addresses the
 * generator's stack does not have, so the server's SYN-ACKs, translated
 * back, are dropped there without a RST. RATE 0: as fast as the socket
 * takes them for SECONDS; else RATE x SECONDS SYNs, the first at once,
 * each due at its time, and those due together go in one sendmmsg (at
 * most 64). Prints one line:
 *   sent N seconds S per_s R
 */
#include <arpa/inet.h>
#include <linux/if_packet.h>
#include <net/ethernet.h>
#include <net/if.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#include "gen_frame.h"
#include "netslice_pkt.h"

#define BATCH 64
#define FRAME 60
#define PORTS 64512u
#define HOSTS 240u

/* SYN number i: Ethernet, IPv4 (20 bytes), TCP (20 bytes), padded to 60. */
static void syn_frame(uint8_t *f, uint64_t i, const uint8_t dmac[6], uint32_t daddr,
		      uint16_t dport)
{
	uint8_t host = (uint8_t)(10 + i / PORTS % HOSTS);
	uint16_t sport = (uint16_t)(1024 + i % PORTS), c;
	uint8_t *ip = f + 14, *tcp = ip + 20;
	uint32_t saddr = htonl(0x0a630000u | host), seq = htonl((uint32_t)i);
	uint8_t pseudo[12];

	memset(f, 0, FRAME);
	memcpy(f, dmac, 6);
	memcpy(f + 6, (const uint8_t[]){ 0x02, 0x00, 0x0a, 0x63, 0x00, host }, 6);
	f[12] = 0x08;
	ip[0] = 0x45;
	ip[3] = 40;
	ip[6] = 0x40;			/* DF */
	ip[8] = 64;
	ip[9] = IPPROTO_TCP;
	memcpy(ip + 12, &saddr, 4);
	memcpy(ip + 16, &daddr, 4);
	c = ns_csum(ip, 20);
	memcpy(ip + 10, &c, 2);
	sport = htons(sport);
	memcpy(tcp, &sport, 2);
	memcpy(tcp + 2, &dport, 2);
	memcpy(tcp + 4, &seq, 4);
	tcp[12] = 5 << 4;
	tcp[13] = 0x02;			/* SYN */
	tcp[14] = 0xff;			/* window */
	tcp[15] = 0xff;
	memcpy(pseudo, ip + 12, 8);
	pseudo[8] = 0;
	pseudo[9] = IPPROTO_TCP;
	pseudo[10] = 0;
	pseudo[11] = 20;
	c = ns_csum_fold(ns_csum_partial(tcp, 20, ns_csum_partial(pseudo, 12, 0)));
	memcpy(tcp + 16, &c, 2);
}

int main(int argc, char **argv)
{
	static uint8_t frames[BATCH][FRAME];
	struct mmsghdr msgs[BATCH];
	struct iovec iov[BATCH];
	struct sockaddr_ll sll = { .sll_family = AF_PACKET };
	uint64_t sent = 0, first = 0, t0, end, due, t;
	unsigned long rate, secs;
	uint8_t dmac[6];
	uint32_t daddr;
	uint16_t dport;
	int fd, k, n, r;

	if ((argc != 7 && argc != 8) || sscanf(argv[2], "%hhx:%hhx:%hhx:%hhx:%hhx:%hhx", &dmac[0], &dmac[1],
				&dmac[2], &dmac[3], &dmac[4], &dmac[5]) != 6 ||
	    inet_pton(AF_INET, argv[3], &daddr) != 1) {
		fprintf(stderr, "usage: conn-gen IFACE DST_MAC DST_ADDR DST_PORT RATE SECONDS [FIRST]\n");
		return 2;
	}
	dport = htons((uint16_t)strtoul(argv[4], NULL, 10));
	rate = strtoul(argv[5], NULL, 10);
	secs = strtoul(argv[6], NULL, 10);
	if (argc == 8)
		first = strtoull(argv[7], NULL, 10);
	sll.sll_ifindex = (int)if_nametoindex(argv[1]);
	sll.sll_protocol = htons(ETH_P_IP);
	fd = socket(AF_PACKET, SOCK_RAW, 0);
	if (!sll.sll_ifindex || fd < 0 || bind(fd, (struct sockaddr *)&sll, sizeof(sll))) {
		perror("conn-gen");
		return 1;
	}
	memset(msgs, 0, sizeof(msgs));
	for (k = 0; k < BATCH; k++) {
		iov[k].iov_base = frames[k];
		iov[k].iov_len = FRAME;
		msgs[k].msg_hdr.msg_iov = &iov[k];
		msgs[k].msg_hdr.msg_iovlen = 1;
	}
	t0 = gen_now_ns();
	end = t0 + secs * 1000000000ull;
	for (t = t0; t < end && (!rate || sent < rate * secs); t = gen_now_ns()) {
		n = BATCH;
		if (rate) {
			/* SYN i is due i / RATE seconds in: the first at once, RATE x SECONDS in all. */
			due = (t - t0) * rate / 1000000000ull + 1;
			if (due > rate * secs)
				due = rate * secs;
			if (due <= sent)
				continue;
			n = due - sent < BATCH ? (int)(due - sent) : BATCH;
		}
		for (k = 0; k < n; k++)
			syn_frame(frames[k], first + sent + (uint64_t)k, dmac, daddr, dport);
		r = sendmmsg(fd, msgs, (unsigned int)n, 0);
		if (r > 0)
			sent += (uint64_t)r;
	}
	t = gen_now_ns();
	printf("sent %llu seconds %.3f per_s %.0f\n", (unsigned long long)sent,
	       (double)(t - t0) / 1e9, (double)sent * 1e9 / (double)(t - t0));
	return 0;
}
