// SPDX-License-Identifier: GPL-2.0
/*
 * afp-fwd: the AF_PACKET contenders of make bench, a forwarder from one
 * interface to another, written as packet(7) recommends for speed.
 *
 *   afp-fwd mmsg IN OUT [BATCH]   recvmmsg/sendmmsg batches (default 64)
 *   afp-fwd v3 IN OUT [BATCH]     TPACKET_V3 mmap RX ring; each block is
 *                                 sent with sendmmsg straight from the ring
 *
 * Both send with PACKET_QDISC_BYPASS (as the module's TX path bypasses the
 * qdisc too), receive only inbound frames (PACKET_IGNORE_OUTGOING) into a
 * 32 MiB socket buffer (mmsg), and
 * copy each frame twice: kernel to user on receive, user to kernel on
 * send. It prints "running" when ready and, on SIGINT/SIGTERM, its
 * counters: "rx N tx N drop N" (drop: frames the kernel refused to send).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <net/if.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#define MAX_BATCH 1024
#define FRAME 2048
#define BLOCK_SIZE (1 << 20)
#define BLOCK_NR 16

#ifndef PACKET_IGNORE_OUTGOING
#define PACKET_IGNORE_OUTGOING 23
#endif

static volatile sig_atomic_t stop;
static uint64_t n_rx, n_tx, n_drop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static int open_packet(const char *ifname, int proto)
{
	struct sockaddr_ll sll = { .sll_family = AF_PACKET, .sll_protocol = htons(proto) };
	int fd, one = 1, bufsize = 32 << 20;

	sll.sll_ifindex = if_nametoindex(ifname);
	if (!sll.sll_ifindex) {
		fprintf(stderr, "afp-fwd: %s: no such interface\n", ifname);
		return -1;
	}
	fd = socket(AF_PACKET, SOCK_RAW, htons(proto));
	if (fd < 0) {
		perror("afp-fwd: socket");
		return -1;
	}
	/* Buffers as deep as the TPACKET ring (16 MiB), so a burst waits, not drops. */
	if (proto == ETH_P_ALL) {
		setsockopt(fd, SOL_PACKET, PACKET_IGNORE_OUTGOING, &one, sizeof(one));
		setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &bufsize, sizeof(bufsize));
	} else {
		setsockopt(fd, SOL_PACKET, PACKET_QDISC_BYPASS, &one, sizeof(one));
		setsockopt(fd, SOL_SOCKET, SO_SNDBUFFORCE, &bufsize, sizeof(bufsize));
	}
	if (bind(fd, (struct sockaddr *)&sll, sizeof(sll))) {
		perror("afp-fwd: bind");
		close(fd);
		return -1;
	}
	return fd;
}

/* Send n frames, retrying the rest of a short batch; count refusals. */
static void send_all(int out, struct mmsghdr *msgs, int n)
{
	int done = 0;

	while (done < n) {
		int sent = sendmmsg(out, msgs + done, n - done, 0);

		if (sent < 0) {
			if (errno == EINTR)
				continue;
			/* ENOBUFS and friends: the frame at the head is lost. */
			n_drop++;
			done++;
			continue;
		}
		n_tx += sent;
		done += sent;
	}
}

static int run_mmsg(int in, int out, int batch)
{
	static uint8_t bufs[MAX_BATCH][FRAME];
	static struct mmsghdr rmsg[MAX_BATCH], smsg[MAX_BATCH];
	static struct iovec riov[MAX_BATCH], siov[MAX_BATCH];
	struct timeval tv = { .tv_usec = 200000 };
	int i;

	setsockopt(in, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	for (i = 0; i < batch; i++) {
		riov[i] = (struct iovec){ bufs[i], FRAME };
		rmsg[i].msg_hdr = (struct msghdr){ .msg_iov = &riov[i], .msg_iovlen = 1 };
		smsg[i].msg_hdr = (struct msghdr){ .msg_iov = &siov[i], .msg_iovlen = 1 };
	}
	printf("running\n");
	fflush(stdout);
	while (!stop) {
		int got = recvmmsg(in, rmsg, batch, MSG_WAITFORONE, NULL);

		if (got < 0) {
			if (errno == EAGAIN || errno == EINTR)
				continue;
			perror("afp-fwd: recvmmsg");
			return 1;
		}
		n_rx += got;
		for (i = 0; i < got; i++)
			siov[i] = (struct iovec){ bufs[i], rmsg[i].msg_len };
		send_all(out, smsg, got);
	}
	return 0;
}

static int run_v3(int in, int out, int batch)
{
	struct tpacket_req3 req = {
		.tp_block_size = BLOCK_SIZE, .tp_block_nr = BLOCK_NR,
		.tp_frame_size = FRAME, .tp_frame_nr = BLOCK_SIZE / FRAME * BLOCK_NR,
		.tp_retire_blk_tov = 1,
	};
	static struct mmsghdr smsg[MAX_BATCH];
	static struct iovec siov[MAX_BATCH];
	int version = TPACKET_V3, i, cur = 0;
	uint8_t *ring;

	if (setsockopt(in, SOL_PACKET, PACKET_VERSION, &version, sizeof(version)) ||
	    setsockopt(in, SOL_PACKET, PACKET_RX_RING, &req, sizeof(req))) {
		perror("afp-fwd: PACKET_RX_RING");
		return 1;
	}
	ring = mmap(NULL, (size_t)BLOCK_SIZE * BLOCK_NR, PROT_READ | PROT_WRITE,
		    MAP_SHARED | MAP_LOCKED, in, 0);
	if (ring == MAP_FAILED) {
		perror("afp-fwd: mmap");
		return 1;
	}
	for (i = 0; i < batch; i++)
		smsg[i].msg_hdr = (struct msghdr){ .msg_iov = &siov[i], .msg_iovlen = 1 };
	printf("running\n");
	fflush(stdout);
	while (!stop) {
		struct tpacket_block_desc *bd = (void *)(ring + (size_t)cur * BLOCK_SIZE);
		struct tpacket3_hdr *h;
		uint32_t k, nr;
		int n = 0;

		if (!(__atomic_load_n(&bd->hdr.bh1.block_status, __ATOMIC_ACQUIRE) &
		      TP_STATUS_USER)) {
			struct pollfd pfd = { .fd = in, .events = POLLIN | POLLERR };

			poll(&pfd, 1, 200);
			continue;
		}
		nr = bd->hdr.bh1.num_pkts;
		h = (void *)((uint8_t *)bd + bd->hdr.bh1.offset_to_first_pkt);
		for (k = 0; k < nr; k++) {
			siov[n++] = (struct iovec){ (uint8_t *)h + h->tp_mac, h->tp_snaplen };
			if (n == batch) {
				send_all(out, smsg, n);
				n = 0;
			}
			h = (void *)((uint8_t *)h + h->tp_next_offset);
		}
		send_all(out, smsg, n);
		n_rx += nr;
		__atomic_store_n(&bd->hdr.bh1.block_status, TP_STATUS_KERNEL, __ATOMIC_RELEASE);
		cur = (cur + 1) % BLOCK_NR;
	}
	return 0;
}

int main(int argc, char **argv)
{
	int in, out, batch = 64, rc;

	if (argc < 4 || argc > 5 || (strcmp(argv[1], "mmsg") && strcmp(argv[1], "v3"))) {
		fprintf(stderr, "usage: afp-fwd mmsg|v3 IN OUT [BATCH]\n");
		return 2;
	}
	if (argc == 5)
		batch = atoi(argv[4]);
	if (batch < 1 || batch > MAX_BATCH) {
		fprintf(stderr, "afp-fwd: batch must be 1..%d\n", MAX_BATCH);
		return 2;
	}
	in = open_packet(argv[2], ETH_P_ALL);
	out = open_packet(argv[3], 0);
	if (in < 0 || out < 0)
		return 1;
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	rc = strcmp(argv[1], "mmsg") ? run_v3(in, out, batch) : run_mmsg(in, out, batch);
	printf("rx %llu tx %llu drop %llu\n", (unsigned long long)n_rx,
	       (unsigned long long)n_tx, (unsigned long long)n_drop);
	return rc;
}
