// SPDX-License-Identifier: GPL-2.0
/*
 * afp-fwd: the AF_PACKET contenders of make bench, a forwarder from one
 * interface to another, written as packet(7) recommends for speed.
 *
 *   afp-fwd MODE IN OUT [BATCH [WORKERS]]
 *
 *   mmsg      recvmmsg/sendmmsg batches of BATCH (default 64)
 *   v3        TPACKET_V3 mmap RX ring, each block sent with sendmmsg
 *             straight from the ring (the kernel copies each frame into an
 *             skb)
 *   v3-ring   the same RX ring and an mmap TX ring (PACKET_TX_RING, "How to
 *             use mmap() directly to improve transmission process" in
 *             packet_mmap.rst): each frame is copied from an RX block to a
 *             TX slot in user space, and one send() per BATCH slots has the
 *             kernel send them, mapping the slots' pages into the skbs.
 *             Slower than v3 in make bench (docs/bench-ticks.md says why).
 *
 * All send with PACKET_QDISC_BYPASS (as the module's TX path bypasses the
 * qdisc too) and receive only inbound frames (PACKET_IGNORE_OUTGOING), mmsg
 * into a 32 MiB socket buffer. WORKERS > 1 forks that many forwarders,
 * each with its own sockets in one PACKET_FANOUT group (FANOUT_HASH: a
 * flow stays with one worker) and pinned to the next CPU of the affinity
 * mask it was started with, as a multi-queue AF_PACKET application runs.
 * It prints "running" when every worker is ready and, on SIGINT/SIGTERM,
 * the sum of their counters: "rx N tx N drop N lost N" (tx: frames handed
 * to the kernel to send; drop: frames it refused; lost: frames the kernel
 * dropped before the forwarder saw them, its PACKET_STATISTICS tp_drops:
 * an RX ring or socket buffer that was full).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <net/if.h>
#include <poll.h>
#include <stdbool.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAX_BATCH 1024
#define FRAME 2048
/*
 * Blocks retire each millisecond they hold a frame (tp_retire_blk_tov), so
 * the RX ring absorbs as many milliseconds of a forwarder that lags as it
 * has blocks: 256 of them, not 16 (which lost frames when a burst's
 * softirq held the shared CPU for more than 16 ms under TCG). 64 KiB still
 * holds a millisecond of make bench's load.
 */
#define BLOCK_SIZE (1 << 16)
#define BLOCK_NR 256
#define TX_FRAMES 4096
#define MAX_WORKERS 16

#ifndef PACKET_IGNORE_OUTGOING
#define PACKET_IGNORE_OUTGOING 23
#endif

static volatile sig_atomic_t stop;
static uint64_t n_rx, n_tx, n_drop, n_lost;
static int ready_fd = -1;

/* This worker is set up: one byte to the parent. */
static void ready(void)
{
	char c = 1;

	if (write(ready_fd, &c, 1) != 1)
		perror("afp-fwd: ready");
}

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

/* fanout: the PACKET_FANOUT group id to join, 0 for none. */
static int open_packet(const char *ifname, int proto, int fanout)
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
	if (fanout) {
		int arg = fanout | PACKET_FANOUT_HASH << 16;

		if (setsockopt(fd, SOL_PACKET, PACKET_FANOUT, &arg, sizeof(arg))) {
			perror("afp-fwd: PACKET_FANOUT");
			close(fd);
			return -1;
		}
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
	ready();
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

/* A TPACKET_V3 ring of fd (PACKET_RX_RING or PACKET_TX_RING), mapped. */
static uint8_t *ring_map(int fd, int which, const struct tpacket_req3 *req)
{
	int version = TPACKET_V3;
	void *ring;

	if (setsockopt(fd, SOL_PACKET, PACKET_VERSION, &version, sizeof(version)) ||
	    setsockopt(fd, SOL_PACKET, which, req, sizeof(*req))) {
		perror(which == PACKET_RX_RING ? "afp-fwd: PACKET_RX_RING" :
						 "afp-fwd: PACKET_TX_RING");
		return NULL;
	}
	ring = mmap(NULL, (size_t)req->tp_block_size * req->tp_block_nr,
		    PROT_READ | PROT_WRITE, MAP_SHARED | MAP_LOCKED, fd, 0);
	if (ring == MAP_FAILED) {
		perror("afp-fwd: mmap");
		return NULL;
	}
	return ring;
}

/* The kernel sends what the TX ring holds; a refusal counts one drop. */
static void tx_ring_flush(int out)
{
	if (send(out, NULL, 0, MSG_DONTWAIT) < 0 && errno != EAGAIN && errno != EINTR)
		n_drop++;
}

/*
 * The next free TX slot, once the kernel has sent what was there: flush
 * and wait while it still holds a frame. A frame the kernel found
 * malformed (TP_STATUS_WRONG_FORMAT) is counted and its slot reused.
 */
static struct tpacket3_hdr *tx_slot(int out, uint8_t *tx, unsigned int cur)
{
	struct tpacket3_hdr *h = (void *)(tx + (size_t)cur * FRAME);

	for (;;) {
		uint32_t st = __atomic_load_n(&h->tp_status, __ATOMIC_ACQUIRE);
		struct pollfd pfd = { .fd = out, .events = POLLOUT };

		if (st == TP_STATUS_AVAILABLE)
			return h;
		if (st & TP_STATUS_WRONG_FORMAT) {
			n_drop++;
			n_tx--;
			return h;
		}
		if (stop)
			return NULL;
		tx_ring_flush(out);
		poll(&pfd, 1, 10);
	}
}

static int run_v3(int in, int out, int batch, bool tx_ring)
{
	static struct mmsghdr smsg[MAX_BATCH];
	static struct iovec siov[MAX_BATCH];
	/* Where a TPACKET_V3 TX slot's frame starts (no PACKET_TX_HAS_OFF). */
	const size_t tx_data = TPACKET_ALIGN(sizeof(struct tpacket3_hdr));
	const struct tpacket_req3 rx_req = {
		.tp_block_size = BLOCK_SIZE, .tp_block_nr = BLOCK_NR,
		.tp_frame_size = FRAME, .tp_frame_nr = BLOCK_SIZE / FRAME * BLOCK_NR,
		.tp_retire_blk_tov = 1,
	};
	/* Fixed-size slots: a TX ring takes no block timeout. */
	const struct tpacket_req3 tx_req = {
		.tp_block_size = BLOCK_SIZE, .tp_block_nr = TX_FRAMES * FRAME / BLOCK_SIZE,
		.tp_frame_size = FRAME, .tp_frame_nr = TX_FRAMES,
	};
	uint8_t *ring, *tx = NULL;
	unsigned int tx_cur = 0;
	int i, cur = 0;

	ring = ring_map(in, PACKET_RX_RING, &rx_req);
	if (!ring)
		return 1;
	if (tx_ring) {
		tx = ring_map(out, PACKET_TX_RING, &tx_req);
		if (!tx)
			return 1;
	}
	for (i = 0; i < batch; i++)
		smsg[i].msg_hdr = (struct msghdr){ .msg_iov = &siov[i], .msg_iovlen = 1 };
	ready();
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
			uint8_t *frame = (uint8_t *)h + h->tp_mac;

			if (tx) {
				struct tpacket3_hdr *t = tx_slot(out, tx, tx_cur);

				if (!t)
					break;
				memcpy((uint8_t *)t + tx_data, frame, h->tp_snaplen);
				t->tp_len = h->tp_snaplen;
				t->tp_next_offset = 0;
				__atomic_store_n(&t->tp_status, TP_STATUS_SEND_REQUEST,
						 __ATOMIC_RELEASE);
				tx_cur = (tx_cur + 1) % TX_FRAMES;
				n_tx++;
				if (++n == batch) {
					tx_ring_flush(out);
					n = 0;
				}
			} else {
				siov[n++] = (struct iovec){ frame, h->tp_snaplen };
				if (n == batch) {
					send_all(out, smsg, n);
					n = 0;
				}
			}
			h = (void *)((uint8_t *)h + h->tp_next_offset);
		}
		if (tx) {
			if (n)
				tx_ring_flush(out);
		} else {
			send_all(out, smsg, n);
		}
		n_rx += nr;
		__atomic_store_n(&bd->hdr.bh1.block_status, TP_STATUS_KERNEL, __ATOMIC_RELEASE);
		cur = (cur + 1) % BLOCK_NR;
	}
	return 0;
}

/* One forwarder on the cpu-th CPU (-1: any), its counters to report_fd. */
static int worker(const char *mode, const char *in_if, const char *out_if, int batch,
		  int fanout, int cpu, int report_fd)
{
	struct tpacket_stats_v3 st = { 0 };
	socklen_t st_len = sizeof(st);
	char line[128];
	int in, out, rc, len;

	if (cpu >= 0) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(cpu, &set);
		if (sched_setaffinity(0, sizeof(set), &set))
			perror("afp-fwd: sched_setaffinity");
	}
	in = open_packet(in_if, ETH_P_ALL, fanout);
	out = open_packet(out_if, 0, 0);
	if (in < 0 || out < 0)
		return 1;
	if (!strcmp(mode, "mmsg"))
		rc = run_mmsg(in, out, batch);
	else
		rc = run_v3(in, out, batch, !strcmp(mode, "v3-ring"));
	/* TPACKET_V3 fills tp_stats3; its first two fields are tpacket_stats'. */
	if (!getsockopt(in, SOL_PACKET, PACKET_STATISTICS, &st, &st_len))
		n_lost = st.tp_drops;
	/* One write under PIPE_BUF: the workers' lines do not interleave. */
	len = snprintf(line, sizeof(line), "%llu %llu %llu %llu\n", (unsigned long long)n_rx,
		       (unsigned long long)n_tx, (unsigned long long)n_drop,
		       (unsigned long long)n_lost);
	if (write(report_fd, line, len) != len)
		perror("afp-fwd: report");
	return rc;
}

/* The index-th CPU of this process's affinity mask, -1 if there is none. */
static int nth_cpu(int index)
{
	cpu_set_t set;
	int cpu;

	if (sched_getaffinity(0, sizeof(set), &set))
		return -1;
	for (cpu = 0; cpu < CPU_SETSIZE; cpu++)
		if (CPU_ISSET(cpu, &set) && index-- == 0)
			return cpu;
	return -1;
}

int main(int argc, char **argv)
{
	unsigned long long rx = 0, tx = 0, drop = 0, lost = 0, r, t, d, l;
	int batch = 64, workers = 1, i, rc = 0, status, ready_p[2], report_p[2];
	pid_t pids[MAX_WORKERS];
	sigset_t mask, old;
	FILE *report;
	char c;

	if (argc < 4 || argc > 6 ||
	    (strcmp(argv[1], "mmsg") && strcmp(argv[1], "v3") && strcmp(argv[1], "v3-ring"))) {
		fprintf(stderr, "usage: afp-fwd mmsg|v3|v3-ring IN OUT [BATCH [WORKERS]]\n");
		return 2;
	}
	if (argc >= 5)
		batch = atoi(argv[4]);
	if (argc == 6)
		workers = atoi(argv[5]);
	if (batch < 1 || batch > MAX_BATCH || workers < 1 || workers > MAX_WORKERS) {
		fprintf(stderr, "afp-fwd: batch must be 1..%d, workers 1..%d\n", MAX_BATCH,
			MAX_WORKERS);
		return 2;
	}
	if (pipe(ready_p) || pipe(report_p)) {
		perror("afp-fwd: pipe");
		return 1;
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	signal(SIGCHLD, on_signal);
	/* Signals wait in sigsuspend below: none is lost between check and wait. */
	sigemptyset(&mask);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGCHLD);
	sigprocmask(SIG_BLOCK, &mask, &old);
	for (i = 0; i < workers; i++) {
		int cpu = nth_cpu(i);

		pids[i] = fork();
		if (pids[i] < 0) {
			perror("afp-fwd: fork");
			workers = i;
			stop = 1;
			break;
		}
		if (!pids[i]) {
			signal(SIGCHLD, SIG_DFL);
			sigprocmask(SIG_SETMASK, &old, NULL);
			close(ready_p[0]);
			close(report_p[0]);
			ready_fd = ready_p[1];
			/* Group ids are per network namespace: the parent's pid is unique. */
			_exit(worker(argv[1], argv[2], argv[3], batch,
				     workers > 1 ? getppid() & 0xffff : 0, cpu, report_p[1]));
		}
	}
	close(ready_p[1]);
	close(report_p[1]);
	/* "running" once every worker is ready; EOF first means one failed. */
	for (i = 0; i < workers && !stop; i++)
		if (read(ready_p[0], &c, 1) != 1)
			stop = 1;
	if (!stop) {
		printf("running\n");
		fflush(stdout);
	}
	while (!stop)
		sigsuspend(&old);
	for (i = 0; i < workers; i++)
		kill(pids[i], SIGTERM);
	for (i = 0; i < workers; i++)
		if (waitpid(pids[i], &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status))
			rc = 1;
	report = fdopen(report_p[0], "r");
	while (report && fscanf(report, "%llu %llu %llu %llu", &r, &t, &d, &l) == 4) {
		rx += r;
		tx += t;
		drop += d;
		lost += l;
	}
	printf("rx %llu tx %llu drop %llu lost %llu\n", rx, tx, drop, lost);
	return rc;
}
