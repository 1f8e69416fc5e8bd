// SPDX-License-Identifier: GPL-2.0
/*
 * xdpgen's wait for the sink: a tc program (tcx, so it goes when xdpgen
 * does) on the sink's port counts the frames that arrive and drops them,
 * and once the count reaches the target xdpgen armed, writes one record
 * to a BPF ring buffer, which wakes xdpgen in epoll. The generator's CPU
 * then sleeps through a whole batch and wakes once: polling a counter
 * file cost it a timer and a read each look, and its sleep, guessed from
 * the batches before, kept itself as long as it once was.
 *
 * The count and the target live in an array map xdpgen maps into its
 * memory: arming is a store, reading the count a load, no system call.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/bpf.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <net/if.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "xdpgen_sink.h"

/* enum bpf_attach_type's BPF_TCX_INGRESS (Linux 6.6), which Debian 12's
 * headers predate. */
#define XDPGEN_TCX_INGRESS	46
#define XDPGEN_TC_ACT_SHOT	2

struct xdpgen_sink {
	uint64_t *vals;		/* [0] frames counted, [1] the target */
	struct ring_buffer *rb;
	int count_fd, rb_fd, prog_fd, link_fd;
};

/* A record only wakes the waiter, which reads the count itself. */
static int on_record(void *ctx __attribute__((unused)), void *data __attribute__((unused)),
		     size_t size __attribute__((unused)))
{
	return 0;
}

/*
 * load_counter: the tc program, on each frame: xdpgen's (IPv4, UDP to
 * port 9: not the stack's own, which a bridge forwards too) are counted,
 * and every frame is dropped:
 *
 *   if data + 38 > data_end or not IPv4 UDP to port 9 goto drop
 *   v = map_lookup_elem(count, 0); if !v goto drop
 *   n = atomic_fetch_add(&v->count, 1) + 1
 *   if n != v->target goto drop
 *   ringbuf_output(rb, &v->count, 8, BPF_RB_FORCE_WAKEUP)
 *   drop: return TC_ACT_SHOT
 *
 * One record when the count reaches the target, whoever is counting:
 * the target is xdpgen's alone to write (a disarm here could overwrite
 * the next arm).
 *
 * (Loads are little-endian: 0x0008 is ETH_P_IP, 0x0900 port 9.)
 */
static int load_counter(int count_fd, int rb_fd)
{
	struct bpf_insn insns[] = {
		{ BPF_LDX | BPF_MEM | BPF_W, 2, 1, 76, 0 },	/* __sk_buff data */
		{ BPF_LDX | BPF_MEM | BPF_W, 3, 1, 80, 0 },	/* data_end */
		{ BPF_ALU64 | BPF_MOV | BPF_X, 4, 2, 0, 0 },
		{ BPF_ALU64 | BPF_ADD | BPF_K, 4, 0, 0, 38 },
		{ BPF_JMP | BPF_JGT | BPF_X, 4, 3, 25, 0 },
		{ BPF_LDX | BPF_MEM | BPF_H, 4, 2, 12, 0 },
		{ BPF_JMP | BPF_JNE | BPF_K, 4, 0, 23, 0x0008 },
		{ BPF_LDX | BPF_MEM | BPF_B, 4, 2, 23, 0 },
		{ BPF_JMP | BPF_JNE | BPF_K, 4, 0, 21, 17 },
		{ BPF_LDX | BPF_MEM | BPF_H, 4, 2, 36, 0 },
		{ BPF_JMP | BPF_JNE | BPF_K, 4, 0, 19, 0x0900 },
		{ BPF_ST | BPF_MEM | BPF_W, 10, 0, -4, 0 },
		{ BPF_ALU64 | BPF_MOV | BPF_X, 2, 10, 0, 0 },
		{ BPF_ALU64 | BPF_ADD | BPF_K, 2, 0, 0, -4 },
		{ BPF_LD | BPF_DW | BPF_IMM, 1, BPF_PSEUDO_MAP_FD, 0, count_fd },
		{ 0, 0, 0, 0, 0 },
		{ BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_map_lookup_elem },
		{ BPF_JMP | BPF_JEQ | BPF_K, 0, 0, 12, 0 },
		{ BPF_ALU64 | BPF_MOV | BPF_K, 2, 0, 0, 1 },
		{ BPF_STX | BPF_ATOMIC | BPF_DW, 0, 2, 0, BPF_ADD | BPF_FETCH },
		{ BPF_ALU64 | BPF_ADD | BPF_K, 2, 0, 0, 1 },
		{ BPF_LDX | BPF_MEM | BPF_DW, 3, 0, 8, 0 },
		{ BPF_JMP | BPF_JNE | BPF_X, 2, 3, 7, 0 },
		{ BPF_ALU64 | BPF_MOV | BPF_X, 6, 0, 0, 0 },
		{ BPF_LD | BPF_DW | BPF_IMM, 1, BPF_PSEUDO_MAP_FD, 0, rb_fd },
		{ 0, 0, 0, 0, 0 },
		{ BPF_ALU64 | BPF_MOV | BPF_X, 2, 6, 0, 0 },
		{ BPF_ALU64 | BPF_MOV | BPF_K, 3, 0, 0, 8 },
		{ BPF_ALU64 | BPF_MOV | BPF_K, 4, 0, 0, BPF_RB_FORCE_WAKEUP },
		{ BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_ringbuf_output },
		{ BPF_ALU64 | BPF_MOV | BPF_K, 0, 0, 0, XDPGEN_TC_ACT_SHOT },	/* drop: */
		{ BPF_JMP | BPF_EXIT, 0, 0, 0, 0 },
	};

	return xdpgen_prog_load(BPF_PROG_TYPE_SCHED_CLS, "xdpgen_sink", insns,
				sizeof(insns) / sizeof(insns[0]));
}

int xdpgen_prog_load(enum bpf_prog_type type, const char *name, const struct bpf_insn *insns,
		     size_t n)
{
	static char log[4096];
	LIBBPF_OPTS(bpf_prog_load_opts, opts, .log_buf = log, .log_size = sizeof(log),
		    .log_level = 1);
	int fd;

	fd = bpf_prog_load(type, name, "GPL", insns, n, &opts);
	if (fd < 0)
		fprintf(stderr, "xdpgen: loading %s: %s\n%s", name, strerror(errno), log);
	return fd;
}

/* attach: prog at ifname's ingress in the network namespace netns. */
static int attach(int prog_fd, const char *netns, const char *ifname)
{
	char path[256];
	int self, ns, link = -1;
	unsigned int idx;

	snprintf(path, sizeof(path), "/var/run/netns/%s", netns);
	self = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	ns = open(path, O_RDONLY | O_CLOEXEC);
	if (self < 0 || ns < 0 || setns(ns, CLONE_NEWNET)) {
		fprintf(stderr, "xdpgen: -S %s: %s\n", path, strerror(errno));
		goto out;
	}
	idx = if_nametoindex(ifname);
	if (!idx)
		fprintf(stderr, "xdpgen: -S: no interface %s in %s\n", ifname, netns);
	else if ((link = bpf_link_create(prog_fd, idx, XDPGEN_TCX_INGRESS, NULL)) < 0)
		fprintf(stderr, "xdpgen: -S: attaching to %s (tcx, Linux 6.6 on): %s\n", ifname,
			strerror(errno));
	if (setns(self, CLONE_NEWNET)) {
		perror("xdpgen: back to its own network namespace");
		exit(1);
	}
out:
	if (self >= 0)
		close(self);
	if (ns >= 0)
		close(ns);
	return link;
}

struct xdpgen_sink *xdpgen_sink_open(const char *netns, const char *ifname)
{
	LIBBPF_OPTS(bpf_map_create_opts, mmapable, .map_flags = BPF_F_MMAPABLE);
	struct xdpgen_sink *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->count_fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, "xdpgen_count", 4, 16, 1, &mmapable);
	s->rb_fd = bpf_map_create(BPF_MAP_TYPE_RINGBUF, "xdpgen_done", 0, 0, 4096, NULL);
	if (s->count_fd < 0 || s->rb_fd < 0) {
		fprintf(stderr, "xdpgen: the sink's maps: %s\n", strerror(errno));
		goto err_maps;
	}
	s->vals = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, s->count_fd, 0);
	if (s->vals == MAP_FAILED) {
		perror("xdpgen: mapping the sink's count");
		goto err_maps;
	}
	s->vals[1] = ~0ull;
	s->rb = ring_buffer__new(s->rb_fd, on_record, NULL, NULL);
	if (!s->rb) {
		perror("xdpgen: the sink's ring buffer");
		goto err_unmap;
	}
	s->prog_fd = load_counter(s->count_fd, s->rb_fd);
	if (s->prog_fd < 0)
		goto err_rb;
	s->link_fd = attach(s->prog_fd, netns, ifname);
	if (s->link_fd < 0)
		goto err_prog;
	return s;

err_prog:
	close(s->prog_fd);
err_rb:
	ring_buffer__free(s->rb);
err_unmap:
	munmap(s->vals, 4096);
err_maps:
	if (s->count_fd >= 0)
		close(s->count_fd);
	if (s->rb_fd >= 0)
		close(s->rb_fd);
	free(s);
	return NULL;
}

uint64_t xdpgen_sink_count(struct xdpgen_sink *s)
{
	return __atomic_load_n(&s->vals[0], __ATOMIC_ACQUIRE);
}

void xdpgen_sink_arm(struct xdpgen_sink *s, uint64_t want)
{
	/*
	 * The record of a batch whose count was in before its wait began
	 * (all of it run inline) is still in the ring: taken out here, or
	 * the next wait would wake at once for it, and records would pile
	 * up (the host saw 9 to 30 such wake-ups a hundred batches).
	 */
	ring_buffer__consume(s->rb);
	__atomic_store_n(&s->vals[1], want, __ATOMIC_RELEASE);
}

/*
 * xdpgen_sink_wait: until the count reaches *want, sleeping in the ring
 * buffer's epoll; a count that stands still for stall_ms (frames lost)
 * ends the wait with *want lowered to it. Counts the wake-ups that did
 * not end it in *waits.
 */
int xdpgen_sink_wait(struct xdpgen_sink *s, unsigned long long *want, int stall_ms,
		     unsigned long long *waits)
{
	uint64_t last = xdpgen_sink_count(s), now;
	int n;

	/* Armed before the frames left: a count already there needs no wake. */
	while ((now = xdpgen_sink_count(s)) < *want) {
		n = ring_buffer__poll(s->rb, stall_ms);
		if (n < 0 && n != -EINTR)
			return n;
		now = xdpgen_sink_count(s);
		if (now >= *want)
			break;
		(*waits)++;
		if (n == 0 && now == last) {
			*want = now;
			break;
		}
		last = now;
	}
	return 0;
}
