/* SPDX-License-Identifier: GPL-2.0 */
/* Packet sockets, iovs and counters for the guest test programs. */
#ifndef NETSLICE_TEST_PKT_H
#define NETSLICE_TEST_PKT_H

#include <arpa/inet.h>
#include <linux/if_packet.h>
#include <net/ethernet.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "netslice.h"

/* A packet socket on ifindex, all protocols; exits 2 if it cannot. */
static inline int pkt_open(int ifindex)
{
	struct sockaddr_ll sll = {
		.sll_family = AF_PACKET, .sll_protocol = htons(ETH_P_ALL), .sll_ifindex = ifindex,
	};
	int s = socket(AF_PACKET, SOCK_RAW, htons(ETH_P_ALL));

	if (s < 0 || bind(s, (struct sockaddr *)&sll, sizeof(sll)))
		exit(2);
	return s;
}

/*
 * The next frame on s within timeout_ms, or -1: one the interface received,
 * or with sent set one it sent (what a tap such as tcpdump sees go out).
 */
static inline ssize_t pkt_recv_dir(int s, void *buf, size_t size, int timeout_ms, int sent)
{
	struct pollfd p = { .fd = s, .events = POLLIN };
	struct sockaddr_ll from;
	socklen_t fl;
	ssize_t n;

	while (poll(&p, 1, timeout_ms) == 1) {
		fl = sizeof(from);
		n = recvfrom(s, buf, size, 0, (struct sockaddr *)&from, &fl);
		if (n >= 0 && (from.sll_pkttype == PACKET_OUTGOING) == !!sent)
			return n;
	}
	return -1;
}

/*
 * A test frame in f: broadcast, ethertype 0x88b5 (local experimental),
 * len bytes whose content depends on tag.
 */
static inline unsigned char *pkt_tag_frame(unsigned char *f, int tag, unsigned int len)
{
	unsigned int i;

	memset(f, 0xff, 6);
	memcpy(f + 6, "\x02\x00\x00\x00\x00\x02", 6);
	f[12] = 0x88;
	f[13] = 0xb5;
	for (i = 14; i < len; i++)
		f[i] = (unsigned char)(tag * 13 + i);
	return f;
}

/* Bytes of pkt_udp_frame()'s headers: Ethernet, IPv4, UDP. */
#define PKT_UDP_HDR	42

/*
 * A UDP/IPv4 frame in f (checksums 0), len bytes (at least PKT_UDP_HDR)
 * whose payload depends on tag; with ip 0 the same bytes as ethertype
 * 0x88b5 (local experimental), which no cut parses.
 */
static inline void pkt_udp_frame(unsigned char *f, int tag, unsigned int len, int ip)
{
	unsigned int i;

	memset(f, 0xff, 6);
	memcpy(f + 6, "\x02\x00\x00\x00\x00\x02", 6);
	f[12] = ip ? 0x08 : 0x88;
	f[13] = ip ? 0x00 : 0xb5;
	memset(f + 14, 0, 28);
	f[14] = 0x45;
	f[16] = (len - 14) >> 8;
	f[17] = (len - 14) & 0xff;
	f[22] = 64;
	f[23] = 17;
	f[38] = (len - 34) >> 8;
	f[39] = (len - 34) & 0xff;
	for (i = PKT_UDP_HDR; i < len; i++)
		f[i] = (unsigned char)(tag * 29 + i * 7);
}

/* The next frame received (not sent) on s within timeout_ms, or -1. */
static inline ssize_t pkt_recv(int s, void *buf, size_t size, int timeout_ms)
{
	return pkt_recv_dir(s, buf, size, timeout_ms, 0);
}

static inline void pkt_drain(int s)
{
	unsigned char buf[2048];

	while (recv(s, buf, sizeof(buf), MSG_DONTWAIT) > 0)
		;
}

static inline void iov_for(struct netslice_iov *iov, void *buf, unsigned int len)
{
	memset(iov, 0, sizeof(*iov));
	iov->base = (unsigned long)buf;
	iov->len = len;
}

static inline __u64 slice_stat(int fd, size_t offset)
{
	struct netslice_stats st;

	if (ns_stats_get(fd, &st))
		return ~0ULL;
	return *(__u64 *)((char *)&st + offset);
}

/* A counter of the slice open at fd. */
#define STAT(field) slice_stat(fd, offsetof(struct netslice_stats, field))

#endif /* NETSLICE_TEST_PKT_H */
