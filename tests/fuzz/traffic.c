// SPDX-License-Identifier: GPL-2.0
/*
 * nsfuzz traffic thread: frames into the attached interfaces (sent on
 * their veth peers), so that reads find packets, payloads get parked and
 * handles exist to be written, forged and reused. IPv4/IPv6 over UDP and
 * TCP (sometimes VLAN-tagged, sometimes cut short) and plain garbage; one
 * frame in ten of the hot flow (FZ_HOT_*), whose rule the netlink thread
 * keeps moving between slices.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <linux/if_ether.h>
#include <linux/if_packet.h>

#include "fuzz.h"

int fz_traffic_open(void)
{
	fz.pkt_sock = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, 0);
	if (fz.pkt_sock < 0) {
		perror("nsfuzz: AF_PACKET");
		return -1;
	}
	return 0;
}

/* The hot flow's UDP header fields, over the IPv4 header at f + l3. */
static void build_hot(unsigned char *f, size_t l3)
{
	static const unsigned char src[4] = FZ_HOT_SRC, dst[4] = FZ_HOT_DST;

	f[l3 + 9] = 17;
	memcpy(f + l3 + 12, src, 4);
	memcpy(f + l3 + 16, dst, 4);
	f[l3 + 20] = FZ_HOT_SPORT >> 8;
	f[l3 + 21] = FZ_HOT_SPORT & 0xff;
	f[l3 + 22] = FZ_HOT_DPORT >> 8;
	f[l3 + 23] = FZ_HOT_DPORT & 0xff;
}

static size_t build_frame(struct fz_rng *r, unsigned char *f)
{
	size_t len = 60 + fz_below(r, 1455), off = 12, l3;
	unsigned int kind = fz_below(r, 10);

	for (size_t i = 0; i < len; i++)
		f[i] = (unsigned char)fz_next(r);
	f[0] = 0x02;	/* unicast, locally administered */
	f[6] = 0x02;
	if (kind == 0)
		return len;	/* garbage after the MACs */
	if (kind == 1) {	/* one 802.1Q tag */
		f[off++] = 0x81;
		f[off++] = 0x00;
		off += 2;
	}
	l3 = off + 2;
	if (kind < 7) {
		f[off] = 0x08;
		f[off + 1] = 0x00;
		f[l3] = 0x45;
		f[l3 + 6] = 0;		/* not a fragment */
		f[l3 + 7] = 0;
		f[l3 + 9] = fz_chance(r, 50) ? 17 : 6;
		f[l3 + 2] = (unsigned char)((len - l3) >> 8);
		f[l3 + 3] = (unsigned char)(len - l3);
		if (f[l3 + 9] == 6)
			f[l3 + 20 + 12] = 0x50;	/* TCP data offset 5 */
		if (kind == 2)
			build_hot(f, l3);
	} else {
		f[off] = 0x86;
		f[off + 1] = 0xdd;
		f[l3] = 0x60;
		f[l3 + 4] = (unsigned char)((len - l3 - 40) >> 8);
		f[l3 + 5] = (unsigned char)(len - l3 - 40);
		f[l3 + 6] = fz_chance(r, 50) ? 17 : 6;
		if (f[l3 + 6] == 6)
			f[l3 + 40 + 12] = 0x50;
	}
	/* Now and then claim more than is there. */
	if (fz_chance(r, 5))
		len = l3 + fz_below(r, 40);
	return len < 60 ? 60 : len;
}

void *fz_traffic_thread(void *arg)
{
	struct fz_rng r = { fz.seed ^ 0x7472 };
	const struct timespec pause = { 0, 2 * 1000 * 1000 };
	unsigned char frame[1514];
	(void)arg;

	while (!atomic_load(&fz.stop)) {
		for (int i = 0; i < 8; i++) {
			struct sockaddr_ll to = {
				.sll_family = AF_PACKET,
				.sll_ifindex = (int)fz.ifindex[2 + fz_below(&r, 2)],
				.sll_halen = ETH_ALEN,
			};
			size_t len = build_frame(&r, frame);

			/*
			 * A feed may be down or gone (the runner moves them): no
			 * matter. Never block: the thread must see fz.stop.
			 */
			if (sendto(fz.pkt_sock, frame, len, MSG_DONTWAIT, (struct sockaddr *)&to,
				   sizeof(to)) == (ssize_t)len)
				atomic_fetch_add(&fz.frames_sent, 1);
		}
		nanosleep(&pause, NULL);
	}
	return NULL;
}
