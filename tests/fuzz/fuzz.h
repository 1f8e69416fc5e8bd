/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nsfuzz: shared state of the device, netlink and traffic threads.
 */
#ifndef NSFUZZ_H
#define NSFUZZ_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <linux/netslice.h>

#define FZ_FDS		8	/* slots of open slice files, shared by all threads */
#define FZ_HANDLES	256	/* handles read, for stale/foreign/forged writes */
#define FZ_IOVS		1100	/* iov array capacity: just above NETSLICE_MAX_BATCH */
#define FZ_DATA		65536	/* packet buffer area of each thread */
#define FZ_RING_MAPS	8	/* ring regions one device thread keeps mapped */
#define FZ_SLICES_MAX	256	/* a slice number is a u8 in netlink's policies */

/* The traffic thread's hot flow, which the netlink thread's rule churn steers. */
#define FZ_HOT_SRC	{ 10, 0, 0, 1 }
#define FZ_HOT_DST	{ 10, 0, 0, 2 }
#define FZ_HOT_SPORT	1000
#define FZ_HOT_DPORT	2000

struct fz_rng {
	uint64_t s;
};

/* splitmix64: one 64-bit state per thread, reproducible from the seed. */
static inline uint64_t fz_next(struct fz_rng *r)
{
	uint64_t z = (r->s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static inline uint32_t fz_below(struct fz_rng *r, uint32_t n)
{
	return n ? (uint32_t)(fz_next(r) % n) : 0;
}

/* True with probability pct/100. */
static inline bool fz_chance(struct fz_rng *r, unsigned int pct)
{
	return fz_below(r, 100) < pct;
}

struct fz_handle {
	_Atomic uint64_t handle;
	_Atomic int slot;		/* fd slot of the file that read it */
};

/* A request on a netlink socket of one thread, answered before the next. */
struct fz_nl_req {
	int sock;
	uint32_t seq;
	unsigned char *msg;		/* the request, built from fz_genl_header() */
	unsigned char *reply;
	size_t reply_size;
};

struct nlmsghdr;
/* Called with each message of a reply (a dump's parts, a do's answer). */
typedef void fz_nl_each(const struct nlmsghdr *nh, void *ctx);

struct fz {
	uint64_t seed;
	unsigned int nslices;
	const char *link[2];		/* attached pair the netlink thread churns */
	const char *feed[2];		/* their veth peers, where traffic enters */
	unsigned int ifindex[4];	/* link[0], link[1], feed[0], feed[1] */

	int nl_sock;			/* NETLINK_GENERIC, opened before any slice */
	uint16_t family;		/* the "netslice" family's id */
	int pkt_sock;			/* AF_PACKET, for the traffic thread */
	int rule_sock[2];		/* NETLINK_GENERIC, one per storm thread */
	int chain_sock[2];		/* NETLINK_GENERIC: chain thread, relay thread */

	_Atomic int fds[FZ_FDS];
	_Atomic int fd_slice[FZ_FDS];	/* the slice fds[i] was opened on, as far as known */
	_Atomic int relay_fds[FZ_SLICES_MAX];	/* the relay's file of each slice, or -1 */
	_Atomic int relay_next;		/* the slice the relay now hands packets to, or -1 */
	struct fz_handle handles[FZ_HANDLES];

	/* Addresses no call may succeed with. */
	void *guard;			/* PROT_NONE page */
	void *rdonly;			/* PROT_READ page */

	long dev_target, nl_target;	/* each thread kind stops at its own */
	_Atomic bool stop;
	_Atomic long dev_ops, nl_msgs, frames_sent;
	_Atomic long reads, packets_read, writes, iovs_written, ioctls, reopens;
	_Atomic long ring_setups, ring_maps, ring_kicks, ring_echoes;
	_Atomic long ring_over_limit;	/* setups refused: ENOBUFS, ENOMEM */
	_Atomic long nl_acks, nl_errors, nl_dumps;
	unsigned int rule_pool;		/* -r: distinct rules of the storm (0: none) */
	long rule_target;		/* storm batches to send in all */
	_Atomic long rule_batches, rule_refused, rule_flushes, rule_ops;
	_Atomic long chain_sets, chain_loops, chain_refused, chain_ends, chain_gets;
	_Atomic long relay_flips, relay_handed, relay_hops_over, relay_down, relay_closes;
	_Atomic long relay_stale;	/* handles written again after their handoff */
	_Atomic long failures;		/* broken promises: each is printed */
};

extern struct fz fz;

/* A value that looks like a kernel address (x86-64 upper half). */
static inline bool fz_kernel_addr(uint64_t v)
{
	return v >= 0xffff800000000000ULL && v != UINT64_MAX;
}

/* Reports a broken promise with the thread's seed to replay it. */
void fz_fail(const char *what, ...) __attribute__((format(printf, 1, 2)));
/* Counts fz_kernel_addr() words at every @step bytes of [p, p + len). */
unsigned int fz_scan_addrs(const void *p, size_t len, size_t step);
/* A file of a random slice (its number in *slice), O_RDWR | O_NONBLOCK; -1 on failure. */
int fz_open_slice(struct fz_rng *r, int *slice);
/* A file of slice n, likewise. */
int fz_open_nr(unsigned int n);

/* One netlink attribute at p, padded; 0 if it does not fit in room. */
size_t fz_nla_put(unsigned char *p, size_t room, uint16_t type, const void *data, size_t len);

/* Open the sockets (before any slice file); 0 or -1 with a message. */
int fz_nl_open(void);
int fz_traffic_open(void);
int fz_rules_open(void);
int fz_chain_open(void);

/* A request header for @cmd of the family in q->msg; returns its length. */
size_t fz_genl_header(struct fz_nl_req *q, uint8_t cmd, uint16_t flags);
/*
 * Sends q->msg (len bytes) and waits for its ack, or a dump's end: each
 * message before it goes to @each (may be NULL). Returns the error the
 * kernel answered (0 or -errno), -EINTR when the run stopped first.
 */
int fz_nl_request(struct fz_nl_req *q, size_t len, fz_nl_each *each, void *ctx);

/* A read iov that breaks the ABI's contract: fails the run, names iov i. */
void fz_check_rx_iov(const struct netslice_iov *v, size_t i);
/* A written iov (consumed by the call) whose error breaks the contract. */
void fz_check_tx_iov(const struct netslice_iov *v, size_t i);
/* A NETSLICE_INFO_GET reply that breaks the contract (chain fields). */
void fz_check_info(const struct netslice_info *info);
/* Keeps a handle read for later writes (stale, foreign, mutated). */
void fz_remember_handle(struct fz_rng *r, uint64_t h, int slot);

/* Every GET ioctl / netlink dump once, replies scanned; returns the count. */
long fz_dev_scan_all(void);
long fz_nl_scan_all(void);

/* A device thread's ring mappings, and the region sizes of its last setup. */
struct fz_ring_maps {
	void *map[FZ_RING_MAPS];
	size_t len[FZ_RING_MAPS];
	int region[FZ_RING_MAPS];	/* which region map[i] is, whole; else -1 */
	uint64_t lens[4];
	uint32_t rx_size, tx_size;	/* of the last setup that worked */
};

/* One ring-mode operation on fd: setup, mmap, rewrite, kick or munmap. */
void fz_ring_op(struct fz_rng *r, struct fz_ring_maps *m, int fd);
/* A setup past the memory limits, on slice nr while no other file is open. */
int fz_ring_probe_limits(unsigned int nr);

void *fz_dev_thread(void *arg);
void *fz_nl_thread(void *arg);
void *fz_traffic_thread(void *arg);
/* The rule storm (-r): arg is the thread's number, from 0. */
void *fz_rule_thread(void *arg);
/*
 * A next slice for @slice: mostly another slice, else itself, one past
 * the slices, the policy's bound (255) and past it.
 */
uint32_t fz_pick_next(struct fz_rng *r, uint32_t slice);
/* Chains (chain.c): slice-set churn and checks; a relay handing packets on. */
void *fz_chain_thread(void *arg);
void *fz_relay_thread(void *arg);
/* After the threads: the chains set are loop-free, netlink and ioctl agree. */
void fz_chain_settle(void);

#endif /* NSFUZZ_H */
