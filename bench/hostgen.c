// SPDX-License-Identifier: GPL-2.0
/*
 * hostgen: make bench's load on the NIC topology, from the host: frames
 * written into the tap behind the DUT's receiving port (tests/vm/run's
 * multi-queue taps, in its network namespace), so the DUT receives them
 * through virtio-net as from a NIC, and no guest vCPU runs a generator.
 *
 *   hostgen DIR IN_TAP OUT_TAP
 *
 * Serves what the guest asks in DIR/hostgen.req (tests/vm/run's shared
 * directory), a line "SEQ DSTMAC SIZE COUNT FLOWS BATCH [RATE]", once per new
 * SEQ: COUNT frames of SIZE bytes on the wire (bench/gen_frame.h's, the
 * source port 10000 + a random flow below FLOWS, the source MAC
 * IN_TAP's) into IN_TAP. BATCH frames go at a time, the next once
 * OUT_TAP's rx_packets (what the DUT sent out of its other port) took
 * every frame sent or stood still for 2 s (frames lost), as xdpgen does
 * on veth: a poll of the DUT sees a batch whatever the timing. BATCH 0:
 * RATE frames a second, 8 at a time each at its due time (the capacity
 * search's trials), or with RATE 0 as fast as the tap takes them, 64 a
 * call (the DUT overloaded: its vCPU never idles); then the same wait
 * for the last. The answer, in DIR/hostgen.done (written whole, then
 * renamed; one line, always HOSTGEN_ANSWER_LEN characters, space-padded):
 *   SEQ sent N usec T send_usec S last_usec L batches B waits W dropped D
 * T from the first frame to the wait's end, S the sending alone, L to
 * the last frame out (the counter's last move: T less the 2 s it stood
 * still, when frames were lost), D the
 * frames IN_TAP refused meanwhile (its ring full, the guest behind; each
 * sent again after a pause).
 * SEQ is any word, answered as written; a request hostgen cannot serve
 * gets "SEQ error WHY". A tap that refuses frames for 2 s ends the
 * request with an error. DIR/hostgen.ready says hostgen is there, until
 * it ends (an error, a signal: the guest then stops waiting for answers).
 * Runs until killed (the runner kills it with the guest), or its parent
 * dies: left behind, it would wake 500 times a second on the host's CPU 0.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/if_packet.h>
#include <net/ethernet.h>
#include <net/if.h>
#include <signal.h>
#include <stdio.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/uio.h>

#include "gen_frame.h"

#define HOSTGEN_MAX_BATCH	256
#define HOSTGEN_BLAST		64	/* frames a call with BATCH 0, RATE 0 */
#define HOSTGEN_PACED		8	/* frames a call with a RATE */
#define HOSTGEN_POLL_NS		2000000ull
#define HOSTGEN_FULL_NS		100000ull
#define HOSTGEN_LAST_NS		16000000ull	/* a look every 1 ms */
#define HOSTGEN_MAX_COUNT	100000000ull
/*
 * Every answer this long, padded with spaces: a 6.12 guest reading the
 * file over 9p as it was replaced by one of another length looped in
 * netfs_retry_reads() for good (the NIC pass's stalls, 2026-12-05).
 */
#define HOSTGEN_ANSWER_LEN	255

struct hostgen {
	int sock, out_rx, in_drop;
	uint8_t src[6];
	uint8_t frames[HOSTGEN_MAX_BATCH][GEN_MAX_FRAME];
	struct mmsghdr msgs[HOSTGEN_MAX_BATCH];
	struct iovec iovs[HOSTGEN_MAX_BATCH];
	uint32_t rng;
};

static int stat_fd(const char *dev, const char *counter)
{
	char path[128];

	snprintf(path, sizeof(path), "/sys/class/net/%s/statistics/%s", dev, counter);
	return open(path, O_RDONLY);
}

static int open_tap(struct hostgen *g, const char *dev)
{
	struct sockaddr_ll sll = { .sll_family = AF_PACKET };
	struct ifreq ifr = { 0 };
	int one = 1;

	g->sock = socket(AF_PACKET, SOCK_RAW, 0);
	if (g->sock < 0)
		return -1;
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", dev);
	sll.sll_ifindex = if_nametoindex(dev);
	if (!sll.sll_ifindex || ioctl(g->sock, SIOCGIFHWADDR, &ifr))
		return -1;
	memcpy(g->src, ifr.ifr_hwaddr.sa_data, 6);
	/* Straight into the tap's ring: a full ring drops, counted there. */
	if (setsockopt(g->sock, SOL_PACKET, PACKET_QDISC_BYPASS, &one, sizeof(one)) ||
	    bind(g->sock, (struct sockaddr *)&sll, sizeof(sll)))
		return -1;
	return 0;
}

/* send_frames: n frames, each of its flow (xorshift), in one sendmmsg. */
static int send_frames(struct hostgen *g, unsigned int n, unsigned int flows)
{
	unsigned int i, done = 0;
	uint16_t port;

	for (i = 0; i < n; i++) {
		g->rng ^= g->rng << 13;
		g->rng ^= g->rng >> 17;
		g->rng ^= g->rng << 5;
		port = htons(10000 + g->rng % flows);
		memcpy(g->frames[i] + GEN_UDP_SPORT_OFF, &port, 2);
	}
	uint64_t since = gen_now_ns();

	while (done < n) {
		int r = sendmmsg(g->sock, g->msgs + done, n - done, 0);

		if (r > 0) {
			done += r;
			since = gen_now_ns();
		} else if (errno == ENOBUFS) {
			/* The tap's ring is full: the guest is behind, or gone. */
			if (gen_now_ns() - since > GEN_STALL_NS)
				return -1;
			gen_nap_ns(HOSTGEN_FULL_NS);
		} else if (errno != EINTR) {
			return -1;
		}
	}
	return 0;
}

/* serve: one request; its answer, less the SEQ, into ans. */
static int serve(struct hostgen *g, const char *req, char *ans, size_t len)
{
	unsigned long long count, sent = 0, batches = 0, waits = 0, want, drop0, drop1;
	unsigned int size, flows, batch, rate = 0, i;
	uint64_t t0, t_sent, t_moved, est = 0, now;
	uint8_t dst[6];
	int got;

	got = sscanf(req, "%*s %hhx:%hhx:%hhx:%hhx:%hhx:%hhx %u %llu %u %u %u", &dst[0], &dst[1],
		     &dst[2], &dst[3], &dst[4], &dst[5], &size, &count, &flows, &batch, &rate);
	if ((got != 10 && got != 11) || size < 64 || size - 4 > GEN_MAX_FRAME || !flows ||
	    flows > 55535 || batch > HOSTGEN_MAX_BATCH || (batch && rate) ||
	    count > HOSTGEN_MAX_COUNT) {
		snprintf(ans, len, "error bad request");
		return -1;
	}
	for (i = 0; i < HOSTGEN_MAX_BATCH; i++) {
		gen_build(g->frames[i], size - 4, dst, g->src);
		g->iovs[i] = (struct iovec){ g->frames[i], size - 4 };
		g->msgs[i].msg_hdr = (struct msghdr){ .msg_iov = &g->iovs[i], .msg_iovlen = 1 };
	}
	if (gen_read_counter(g->out_rx, &want) || gen_read_counter(g->in_drop, &drop0))
		return -1;
	t0 = gen_now_ns();
	t_moved = t0;
	while (sent < count) {
		unsigned int step = batch ? batch : rate ? HOSTGEN_PACED : HOSTGEN_BLAST;
		unsigned int n = count - sent < step ? count - sent : step;
		/* Paced: this call's frames are due at sent / rate. */
		now = gen_now_ns();
		if (rate && t0 + sent * 1000000000ull / rate > now)
			gen_nap_ns(t0 + sent * 1000000000ull / rate - now);
		if (send_frames(g, n, flows))
			return -1;
		sent += n;
		want += n;
		batches++;
		if (batch && gen_wait_counter(g->out_rx, &want, &est, &waits, &t_moved))
			return -1;
	}
	t_sent = gen_now_ns();
	/* The last frames' wait looks every millisecond, not every 20 us:
	 * hostgen shares the host's CPUs with the vCPUs it measures.
	 */
	est = HOSTGEN_LAST_NS;
	if (!batch && gen_wait_counter(g->out_rx, &want, &est, &waits, &t_moved))
		return -1;
	if (gen_read_counter(g->in_drop, &drop1))
		return -1;
	snprintf(ans, len, "sent %llu usec %llu send_usec %llu last_usec %llu batches %llu "
		 "waits %llu dropped %llu", sent, (unsigned long long)(gen_now_ns() - t0) / 1000,
		 (unsigned long long)(t_sent - t0) / 1000, (unsigned long long)(t_moved - t0) / 1000,
		 batches, waits, drop1 - drop0);
	return 0;
}

static char ready_path[4096];

/* hostgen_end: a fatal signal; hostgen.ready goes with hostgen. */
static void hostgen_end(int sig)
{
	unlink(ready_path);
	signal(sig, SIG_DFL);
	raise(sig);
}

/* "SEQ ANSWER", cut to the answer's fixed length. */
static const char *answer_line(const char *seq, const char *ans)
{
	static char line[HOSTGEN_ANSWER_LEN + 1];

	snprintf(line, sizeof(line), "%s %s", seq, ans);
	return line;
}

int main(int argc, char **argv)
{
	char req_path[4096], done_path[4096], tmp_path[4096], req[256], ans[224], last[32] = "";
	static struct hostgen g = { .rng = 2463534242u };
	FILE *f;

	if (argc != 4) {
		fprintf(stderr, "usage: hostgen DIR IN_TAP OUT_TAP\n");
		return 2;
	}
	if (prctl(PR_SET_PDEATHSIG, SIGTERM)) {
		fprintf(stderr, "hostgen: prctl: %s\n", strerror(errno));
		return 1;
	}
	snprintf(req_path, sizeof(req_path), "%s/hostgen.req", argv[1]);
	snprintf(done_path, sizeof(done_path), "%s/hostgen.done", argv[1]);
	snprintf(tmp_path, sizeof(tmp_path), "%s/hostgen.tmp", argv[1]);
	g.out_rx = stat_fd(argv[3], "rx_packets");
	g.in_drop = stat_fd(argv[2], "tx_dropped");
	if (g.out_rx < 0 || g.in_drop < 0 || open_tap(&g, argv[2])) {
		fprintf(stderr, "hostgen: %s, %s: %s\n", argv[2], argv[3], strerror(errno));
		return 1;
	}
	/* Said to the guest, which otherwise waits for answers in vain. */
	snprintf(ready_path, sizeof(ready_path), "%s/hostgen.ready", argv[1]);
	signal(SIGTERM, hostgen_end);
	signal(SIGINT, hostgen_end);
	signal(SIGSEGV, hostgen_end);
	signal(SIGBUS, hostgen_end);
	signal(SIGABRT, hostgen_end);
	f = fopen(ready_path, "w");
	if (!f || fclose(f)) {
		fprintf(stderr, "hostgen: %s: %s\n", ready_path, strerror(errno));
		unlink(ready_path);
		return 1;
	}
	snprintf(tmp_path, sizeof(tmp_path), "%s/hostgen.tmp", argv[1]);
	for (;;) {
		char seq[32];

		f = fopen(req_path, "r");
		if (f && fgets(req, sizeof(req), f) && sscanf(req, "%31s", seq) == 1 &&
		    strcmp(seq, last)) {
			ans[0] = '\0';
			if (serve(&g, req, ans, sizeof(ans)) && !ans[0])
				snprintf(ans, sizeof(ans), "error %s", strerror(errno));
			snprintf(last, sizeof(last), "%s", seq);
			fclose(f);
			/* The answer carries the request's SEQ as written. */
			f = fopen(tmp_path, "w");
			if (!f || fprintf(f, "%-*s\n", HOSTGEN_ANSWER_LEN, answer_line(seq, ans)) < 0 ||
			    fclose(f) ||
			    rename(tmp_path, done_path)) {
				fprintf(stderr, "hostgen: %s: %s\n", done_path, strerror(errno));
				unlink(ready_path);
				return 1;
			}
			continue;
		}
		if (f)
			fclose(f);
		gen_nap_ns(HOSTGEN_POLL_NS);
	}
}
