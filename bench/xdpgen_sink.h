/* SPDX-License-Identifier: GPL-2.0 */
/* xdpgen's wait for the sink (xdpgen_sink.c). */
#ifndef XDPGEN_SINK_H
#define XDPGEN_SINK_H

#include <stddef.h>
#include <stdint.h>

#include <linux/bpf.h>

struct xdpgen_sink;

/* A frame counter on ifname's ingress in netns (a name under
 * /var/run/netns), dropping what it counts; NULL on failure, said. */
struct xdpgen_sink *xdpgen_sink_open(const char *netns, const char *ifname);
uint64_t xdpgen_sink_count(struct xdpgen_sink *s);
/* Wake the waiter once the count reaches want (before the frames go). */
void xdpgen_sink_arm(struct xdpgen_sink *s, uint64_t want);
int xdpgen_sink_wait(struct xdpgen_sink *s, unsigned long long *want, int stall_ms,
		     unsigned long long *waits);

/* Load a program of raw instructions; the verifier's log said on failure. */
int xdpgen_prog_load(enum bpf_prog_type type, const char *name, const struct bpf_insn *insns,
		     size_t n);

#endif
