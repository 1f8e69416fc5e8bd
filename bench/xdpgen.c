// SPDX-License-Identifier: GPL-2.0
/*
 * xdpgen: the benchmark's load as a NIC would deliver it: frames sent as
 * XDP frames (BPF_PROG_RUN with BPF_F_TEST_XDP_LIVE_FRAMES, the way
 * xdp-trafficgen does), so the receiving veth builds each skb from an
 * XDP frame in its NAPI poll, as a NIC driver builds its RX skb, and a
 * native XDP program on it sees the frame before any skb exists.
 *
 *   xdpgen [-H HOLD] [-S NETNS:PORT] [-M SEQ [-R FILE]] IFACE DSTMAC SIZE COUNT [FLOWS [BATCH [COUNTER_FILE]]]
 *   xdpgen redirect IN OUT
 *
 * The frames are bench/pktgen.sh's: UDP/IPv4 10.99.1.1 -> 10.99.9.9 port
 * 9, SIZE bytes on the wire with the FCS (60..1514 in the frame), the
 * source port 10000 + a random flow below FLOWS (default 256), set by the
 * XDP program on each frame. They leave IFACE (XDP_TX out of the
 * ingress interface) BATCH at a time (default 64, one BPF_PROG_RUN, so
 * one wake-up of the peer's NAPI): a NAPI poll on the peer sees BATCH
 * frames, whatever the timing. With COUNTER_FILE (a counter of the frames
 * arriving: make bench gives the DUT's tx_packets)
 * the next batch waits until the counter has taken every frame sent, or
 * has stood still for 2 s (frames lost; under the emulator with the
 * plugin's cache model a batch's round trip alone takes up to 220 ms,
 * so 200 ms could pass for a loss): the DUT is never offered more
 * than one batch, and the wait sleeps (a halted vCPU executes nothing),
 * most of it in one go. With -S, the sink's PORT in network namespace
 * NETNS counts instead (a tc program xdpgen attaches, which drops what
 * it counts) and wakes xdpgen once a batch is in (xdpgen_sink.c): no
 * polling; COUNTER_FILE is then not read.
 * Prints "sent N usec T batches B waits W", and with -S " counted C" (the
 * frames the sink's program counted).
 *
 * -M SEQ makes the nsinsn plugin's marks (bench/nsmark.h) itself: the
 * start mark once everything is set up (programs verified and attached,
 * the sink's program in place), just before the first batch, the stop
 * mark once the last batch is in (or called lost), so a count between
 * them holds the batches and nothing of the process's start or set-up.
 * COUNTER_FILE (the DUT's transmit counter) is read just before the start
 * and just after the stop mark, and " marked F0 F1 span USEC" added to
 * the line: the counter's two values and the microseconds between the
 * marks. -R FILE is read beside them too (another counter: make bench's
 * rule replaces), " also R0 R1" added.
 *
 * Each BPF_PROG_RUN of an XDP program puts it into the kernel's XDP
 * dispatcher for the call and takes it out after: two text pokes (an IPI
 * to every CPU, each waited for) and a synchronize_rcu() a batch, more
 * than half of what the generator's CPU did (perf on veth, 6.18). With
 * -H HOLD (an interface that is down, a veth of its own) the program is
 * also attached natively to HOLD for the run: the dispatcher keeps it,
 * and a call only counts a user more.
 *
 * redirect attaches to IN, natively, an XDP program that redirects every
 * frame out of OUT (bpf_redirect): the XDP path's null forwarder, make
 * bench's floor-xdp (ip link set dev IN xdp off takes it away). Needs CAP_BPF and
 * CAP_NET_ADMIN; the peer of a veth IFACE needs NAPI (GRO on, or an XDP
 * program on it).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/bpf.h>
#include <linux/if_link.h>
#include <net/if.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "gen_frame.h"
#include "nsmark.h"
#include "xdpgen_sink.h"

#define XDPGEN_MAX_BATCH	256	/* the kernel's for live frames */

/*
 * load_prog: an XDP program that sets the UDP source port to 10000 + a
 * random flow below flows and sends the frame back out (XDP_TX):
 *
 *   r7 = ctx->data; r3 = ctx->data_end
 *   if r7 + 36 > r3 goto out
 *   r0 = bpf_get_prandom_u32() % flows + 10000, big-endian
 *   *(u16 *)(r7 + 34) = r0
 *   out: return XDP_TX
 */
static int load_prog(unsigned int flows)
{
	struct bpf_insn insns[] = {
		{ BPF_LDX | BPF_MEM | BPF_W, 7, 1, 0, 0 },
		{ BPF_LDX | BPF_MEM | BPF_W, 3, 1, 4, 0 },
		{ BPF_ALU64 | BPF_MOV | BPF_X, 4, 7, 0, 0 },
		{ BPF_ALU64 | BPF_ADD | BPF_K, 4, 0, 0, GEN_UDP_SPORT_OFF + 2 },
		{ BPF_JMP | BPF_JGT | BPF_X, 4, 3, 5, 0 },
		{ BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_get_prandom_u32 },
		{ BPF_ALU64 | BPF_MOD | BPF_K, 0, 0, 0, flows },
		{ BPF_ALU64 | BPF_ADD | BPF_K, 0, 0, 0, 10000 },
		{ BPF_ALU | BPF_END | BPF_TO_BE, 0, 0, 0, 16 },
		{ BPF_STX | BPF_MEM | BPF_H, 7, 0, GEN_UDP_SPORT_OFF, 0 },
		{ BPF_ALU64 | BPF_MOV | BPF_K, 0, 0, 0, XDP_TX },
		{ BPF_JMP | BPF_EXIT, 0, 0, 0, 0 },
	};

	return xdpgen_prog_load(BPF_PROG_TYPE_XDP, "xdpgen", insns, sizeof(insns) / sizeof(insns[0]));
}

static int if_mac(const char *ifname, uint8_t *mac)
{
	struct ifreq ifr = { 0 };
	int fd = socket(AF_INET, SOCK_DGRAM, 0);

	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
	if (fd < 0 || ioctl(fd, SIOCGIFHWADDR, &ifr)) {
		perror(ifname);
		if (fd >= 0)
			close(fd);
		return -1;
	}
	close(fd);
	memcpy(mac, ifr.ifr_hwaddr.sa_data, 6);
	return 0;
}

/* redirect: IN's native XDP program sends every frame out of OUT. */
static int redirect(const char *in, const char *out)
{
	unsigned int in_idx = if_nametoindex(in), out_idx = if_nametoindex(out);
	struct bpf_insn insns[] = {
		{ BPF_ALU64 | BPF_MOV | BPF_K, 1, 0, 0, (int)out_idx },
		{ BPF_ALU64 | BPF_MOV | BPF_K, 2, 0, 0, 0 },
		{ BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_redirect },
		{ BPF_JMP | BPF_EXIT, 0, 0, 0, 0 },
	};
	int fd;

	if (!in_idx || !out_idx) {
		fprintf(stderr, "xdpgen: redirect: no interface %s\n", in_idx ? out : in);
		return 2;
	}
	fd = xdpgen_prog_load(BPF_PROG_TYPE_XDP, "xdpredirect", insns, sizeof(insns) / sizeof(insns[0]));
	if (fd < 0)
		return 1;
	if (bpf_xdp_attach(in_idx, fd, XDP_FLAGS_DRV_MODE, NULL)) {
		fprintf(stderr, "xdpgen: redirect %s -> %s: %s\n", in, out, strerror(errno));
		return 1;
	}
	return 0;
}

/* hold: attach prog natively to the interface named hold, for as long as this runs. */
static int hold_prog(int prog, const char *hold)
{
	unsigned int idx = if_nametoindex(hold);
	LIBBPF_OPTS(bpf_link_create_opts, opts, .flags = XDP_FLAGS_DRV_MODE);

	if (!idx || bpf_link_create(prog, idx, BPF_XDP, &opts) < 0) {
		fprintf(stderr, "xdpgen: -H %s: %s\n", hold, idx ? strerror(errno) : "no such interface");
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	unsigned long long count, sent = 0, waits = 0, batches = 0, base = 0;
	unsigned int size, flows = 256, batch = 64;
	struct xdp_md ctx = { 0 };
	uint8_t frame[GEN_MAX_FRAME], dst[6], src[6];
	int prog, counter = -1;
	uint64_t t0, est = 0;
	const char *hold = NULL;
	char *sink_ns = NULL, *sink_port = NULL;
	struct xdpgen_sink *sink = NULL;
	unsigned long long sink_base = 0, fwd0 = 0, fwd1 = 0, also0 = 0, also1 = 0;
	int also = -1;
	long mark_seq = -1;
	uint64_t m0 = 0, m1 = 0;
	char *end;
	int opt;

	if (argc == 4 && !strcmp(argv[1], "redirect"))
		return redirect(argv[2], argv[3]);
	while ((opt = getopt(argc, argv, "+H:S:M:R:")) != -1) {
		switch (opt) {
		case 'H':
			hold = optarg;
			break;
		case 'S':
			sink_ns = optarg;
			sink_port = strchr(optarg, ':');
			if (sink_port)
				*sink_port++ = '\0';
			break;
		case 'M':
			mark_seq = strtol(optarg, &end, 10);
			if (*end || mark_seq < 0 || mark_seq > NSMARK_MAX_SEQ) {
				fprintf(stderr, "xdpgen: -M SEQ: 0..%d\n", NSMARK_MAX_SEQ);
				return 2;
			}
			break;
		case 'R':
			also = open(optarg, O_RDONLY);
			if (also < 0) {
				perror(optarg);
				return 2;
			}
			break;
		default:
			goto usage;
		}
	}
	argv += optind - 1;
	argc -= optind - 1;
	if (argc < 5 || argc > 8 || (sink_ns && !sink_port) || (mark_seq >= 0 && argc < 8) ||
	    (also >= 0 && mark_seq < 0)) {
usage:
		fprintf(stderr, "usage: xdpgen [-H HOLD] [-S NETNS:PORT] [-M SEQ [-R FILE]] IFACE DSTMAC "
			"SIZE COUNT [FLOWS [BATCH [COUNTER_FILE]]] (-M needs COUNTER_FILE)\n"
			"       xdpgen redirect IN OUT\n");
		return 2;
	}
	size = strtoul(argv[3], NULL, 10);
	count = strtoull(argv[4], NULL, 10);
	if (argc > 5)
		flows = strtoul(argv[5], NULL, 10);
	if (argc > 6)
		batch = strtoul(argv[6], NULL, 10);
	if (size < 64 || size - 4 > GEN_MAX_FRAME || !flows || flows > 55535 || !batch ||
	    batch > XDPGEN_MAX_BATCH ||
	    sscanf(argv[2], "%hhx:%hhx:%hhx:%hhx:%hhx:%hhx", &dst[0], &dst[1], &dst[2], &dst[3],
		   &dst[4], &dst[5]) != 6) {
		fprintf(stderr, "xdpgen: SIZE 64..1518, FLOWS 1..55535, BATCH 1..%d, DSTMAC aa:bb:...\n",
			XDPGEN_MAX_BATCH);
		return 2;
	}
	ctx.ingress_ifindex = if_nametoindex(argv[1]);
	if (!ctx.ingress_ifindex || if_mac(argv[1], src)) {
		fprintf(stderr, "xdpgen: no interface %s\n", argv[1]);
		return 2;
	}
	if (sink_ns) {
		sink = xdpgen_sink_open(sink_ns, sink_port);
		if (!sink)
			return 1;
		base = sink_base = xdpgen_sink_count(sink);
	}
	if (argc > 7 && (!sink || mark_seq >= 0)) {
		counter = open(argv[7], O_RDONLY);
		if (counter < 0 || gen_read_counter(counter, sink ? &fwd0 : &base)) {
			perror(argv[7]);
			return 2;
		}
	}
	gen_build(frame, size - 4, dst, src);
	ctx.data_end = size - 4;	/* the kernel checks the context against the frame */
	prog = load_prog(flows);
	if (prog < 0 || (hold && hold_prog(prog, hold)))
		return 1;
	if (mark_seq >= 0) {
		if (gen_read_counter(counter, &fwd0) || (also >= 0 && gen_read_counter(also, &also0))) {
			perror("xdpgen: a counter beside the start mark");
			return 1;
		}
		m0 = gen_now_ns();
		nsmark_exec(mark_seq, 0);
	}
	t0 = gen_now_ns();
	while (sent < count) {
		unsigned int n = count - sent < batch ? count - sent : batch;
		LIBBPF_OPTS(bpf_test_run_opts, run, .data_in = frame, .data_size_in = size - 4,
			    .ctx_in = &ctx, .ctx_size_in = sizeof(ctx), .repeat = n,
			    .batch_size = n, .flags = BPF_F_TEST_XDP_LIVE_FRAMES);

		base += n;
		if (sink)
			xdpgen_sink_arm(sink, base);
		if (bpf_prog_test_run_opts(prog, &run)) {
			fprintf(stderr, "xdpgen: BPF_PROG_RUN (live frames): %s\n", strerror(errno));
			return 1;
		}
		sent += n;
		batches++;
		if (sink && xdpgen_sink_wait(sink, &base, GEN_STALL_NS / 1000000, &waits)) {
			fprintf(stderr, "xdpgen: waiting for the sink: %s\n", strerror(errno));
			return 1;
		}
		if (!sink && counter >= 0 && gen_wait_counter(counter, &base, &est, &waits, NULL)) {
			perror(argv[7]);
			return 1;
		}
	}
	if (mark_seq >= 0) {
		nsmark_exec(mark_seq, 1);
		m1 = gen_now_ns();
		if (gen_read_counter(counter, &fwd1) || (also >= 0 && gen_read_counter(also, &also1))) {
			perror("xdpgen: a counter beside the stop mark");
			return 1;
		}
	}
	printf("sent %llu usec %llu batches %llu waits %llu", sent,
	       (unsigned long long)(gen_now_ns() - t0) / 1000, batches, waits);
	if (sink)
		printf(" counted %llu", (unsigned long long)(xdpgen_sink_count(sink) - sink_base));
	if (mark_seq >= 0)
		printf(" marked %llu %llu span %llu", fwd0, fwd1, (unsigned long long)(m1 - m0) / 1000);
	if (also >= 0)
		printf(" also %llu %llu", also0, also1);
	printf("\n");
	return 0;
}
