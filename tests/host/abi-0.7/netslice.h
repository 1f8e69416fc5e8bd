/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * libnetslice: the user-space side of netslice.
 *
 * Errors: every function that can fail returns a negative errno value
 * (and leaves errno set to its absolute value); success is 0 or a
 * non-negative count or descriptor. Nothing in the library exits, prints
 * or installs signal handlers, except ns_run(), which documents what it
 * does with signals. The errors each function can return are listed with
 * it; those of the underlying system call (open(2), ioctl(2), read(2),
 * write(2)) pass through unchanged.
 *
 * Build with `pkg-config --cflags --libs netslice` (add -pthread for ns_run()).
 * docs/libnetslice.md is the guide.
 */
#ifndef NETSLICE_USER_H
#define NETSLICE_USER_H

#include <sched.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <linux/netslice.h>

#include "netslice_pkt.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Number of slices of the loaded module (from sysfs).
 * -ENOENT: the module is not loaded. -EPROTO: sysfs says something odd.
 */
int ns_slice_count(void);

/*
 * Open /dev/netslice-<slice>; flags as for open(2) (O_RDWR and O_CLOEXEC
 * are implied). Returns the fd. -EINVAL: slice >= NETSLICE_MAX_SLICES;
 * -ENOENT: no such slice (or the module is not loaded); -EACCES: the
 * device node's permissions.
 */
int ns_open(unsigned int slice, int flags);

/* The slice's kernel-side and user-side CPUs (NETSLICE_CPUMASK_GET). */
int ns_cpumask_get(int fd, cpu_set_t *kernel_cpus, cpu_set_t *user_cpus);

/* Set both masks (NETSLICE_CPUMASK_SET). -EINVAL: an empty or offline mask. */
int ns_cpumask_set(int fd, const cpu_set_t *kernel_cpus, const cpu_set_t *user_cpus);

/* Pin the calling thread to the slice's user-side CPUs (sched_setaffinity errors). */
int ns_pin_to_user_cpus(int fd);

/* Batching mode: NETSLICE_MULTI_* flags and the largest batch (-EINVAL out of range). */
int ns_rw_multi_get(int fd, struct netslice_rw_multi *rw);
int ns_rw_multi_set(int fd, __u32 flags, __u32 max_batch);

/* Header slicing mode of the slice (NETSLICE_CUT_GET/SET; -EINVAL out of range). */
int ns_cut_get(int fd, struct netslice_cut *cut);
int ns_cut_set(int fd, const struct netslice_cut *cut);

/*
 * Parse a slicing mode: "off", "auto", "auto+EXTRA", "fixed:LENGTH", any
 * of them followed by ",trim" (NETSLICE_CUT_TRIM) and, but "off", by
 * ",gso" (NETSLICE_CUT_GSO), in either order. -EINVAL on anything else
 * or a length out of range.
 */
int ns_cut_parse(const char *spec, struct netslice_cut *cut);

/*
 * The same spelling back, for any mode ns_cut_parse() takes: "auto",
 * "auto+EXTRA", "fixed:LENGTH" or "off", then ",trim", then ",gso".
 * NS_CUT_STRLEN bytes always suffice. -EINVAL for a mode the module
 * does not have, -ENOSPC (nothing written) if size is too small.
 */
#define NS_CUT_STRLEN 32
int ns_cut_format(const struct netslice_cut *cut, char *buf, size_t size);

/* The slice's configuration and counters. */
int ns_info_get(int fd, struct netslice_info *info);
int ns_stats_get(int fd, struct netslice_stats *stats);

/*
 * The counters of struct netslice_stats by index, 0..ns_stat_count()-1,
 * in declaration order: their names ("rx_packets", ...) and values.
 * ns_stat_name() is NULL past the end.
 */
unsigned int ns_stat_count(void);
const char *ns_stat_name(unsigned int i);
__u64 ns_stat_value(const struct netslice_stats *stats, unsigned int i);

/*
 * Up to n packets into iov[0..n-1] (each iov's base and len set by the
 * caller). Returns the number read (>= 1); -EAGAIN on a non-blocking fd
 * with nothing queued; -EINTR; -EFAULT/-EINVAL for a bad iov array.
 */
ssize_t ns_read(int fd, struct netslice_iov *iov, unsigned int n);

/* Send iov[0..n-1]; returns the number consumed (short on a busy queue). */
ssize_t ns_write(int fd, struct netslice_iov *iov, unsigned int n);

/*
 * Send all n iovs, writing again after short counts (a busy egress queue:
 * it yields, then sleeps 50 us between tries) and after EINTR. A bad iov
 * does not stop it: its error field (NETSLICE_TXERR_*) tells. Returns the
 * number of iovs consumed: n, or fewer if the egress made no progress for
 * a second (iov[ret..n-1] were not sent and still hold their payloads:
 * write them again or drop them); or a write(2) error.
 */
ssize_t ns_write_all(int fd, struct netslice_iov *iov, unsigned int n);

/*
 * A batch: n iovs, each with its own buffer of buf_size bytes.
 * ns_batch_recv() resets every iov to its buffer and reads; the NF then
 * looks at iov[i] (data at ns_iov_data(), rlen bytes; a handle if sliced),
 * may rewrite it (set rlen for a new header length, action and ifindex
 * for another egress), and ns_batch_send() writes them all back. Handles
 * ride along in the iovs: nothing to do for a sliced packet.
 */
struct ns_batch {
	struct netslice_iov *iov;
	uint8_t *bufs;
	unsigned int size;	/* iovs */
	unsigned int count;	/* packets held after ns_batch_recv() */
	unsigned int buf_size;
	unsigned int dirty;	/* iovs to reset before the next read */
};

/* -EINVAL: size 0 or > NETSLICE_MAX_BATCH, buf_size 0; -ENOMEM. */
int ns_batch_init(struct ns_batch *b, unsigned int size, unsigned int buf_size);
void ns_batch_free(struct ns_batch *b);

/* As ns_read(), into the whole batch; sets and returns count. */
int ns_batch_recv(int fd, struct ns_batch *b);

/* As ns_write_all() of the batch's count iovs. */
int ns_batch_send(int fd, struct ns_batch *b);

static inline uint8_t *ns_iov_data(const struct netslice_iov *iov)
{
	return (uint8_t *)(uintptr_t)iov->base;
}

/*
 * Pass a packet on with the header it was read with: for a sliced packet
 * the kernel then copies nothing back (rlen 0 with its handle); a whole
 * packet is written as read. Call it last, after any look at the header.
 * Needs a module whose NETSLICE_INFO_GET reports NETSLICE_INFO_KEEP_HEADER;
 * ns_run() checks, and puts rlen back for an older one.
 */
static inline void ns_iov_unchanged(struct netslice_iov *iov)
{
	if (iov->handle)
		iov->rlen = 0;
}

/*
 * The wire-size packets an iov read stands for: a super-packet read whole
 * (NETSLICE_RX_GSO) is iov->gso_segs segments of at most iov->gso_size
 * payload bytes each, iov->wire_len bytes in all; anything else is one.
 */
static inline unsigned int ns_iov_segments(const struct netslice_iov *iov)
{
	return iov->flags & NETSLICE_RX_GSO && iov->gso_segs ? iov->gso_segs : 1;
}

/* Mark an iov to be dropped (its parked payload, if any, is freed). */
static inline void ns_iov_drop(struct netslice_iov *iov)
{
	iov->action = NETSLICE_TX_DROP;
}

/* ---- Ring mode: packets through mapped memory (uapi "Ring mode") ---- */

/*
 * A file's rings, mapped: opaque, made by ns_ring_open() and freed by
 * ns_ring_close(), so the library can keep more state without an ABI
 * break. Receive: ns_ring_peek() copies up to n RX entries
 * into iovs whose base points into the frame area (the packet is there,
 * rlen bytes; rewrite it in place), ns_ring_release() gives the first n
 * peeked back once done with them (and once sent: ns_ring_send() returns
 * after every iov it sends has completed). Send: ns_ring_send() takes iovs
 * as write(2) does; one whose base lies in the frame area is sent from
 * there without a copy, any other is copied into a frame of the TX pool
 * (frames rx_size .. frame_count-1). Idle: ns_ring_wait() sleeps in
 * poll(2). One thread per ring.
 */
struct ns_ring;

/*
 * A setup for batches of up to batch packets: 2 KiB frames, 1024 RX
 * entries, TX and completion rings of at least 2 * batch, a TX pool as
 * large.
 */
void ns_ring_config_default(struct netslice_ring_setup *cfg, unsigned int batch);

/*
 * Put fd in ring mode with cfg, map its regions and set *rp to the ring
 * (NULL on failure). -EINVAL: cfg out of range; -EBUSY: the file or
 * another of its slice is in ring mode, or another open file of the slice
 * has read from it; -EPERM: busy polling without CAP_NET_ADMIN; -ENOBUFS:
 * past RLIMIT_MEMLOCK; -ENOMEM. A module without NETSLICE_INFO_RING fails
 * with -ENOTTY.
 */
int ns_ring_open(struct ns_ring **rp, int fd, const struct netslice_ring_setup *cfg);
/* Unmap and free r (NULL: nothing); the fd stays open, in ring mode, until closed. */
void ns_ring_close(struct ns_ring *r);
/* The setup as the kernel returned it: cfg with the regions' lengths. */
const struct netslice_ring_setup *ns_ring_setup(const struct ns_ring *r);

unsigned int ns_ring_peek(struct ns_ring *r, struct netslice_iov *iov, unsigned int n);
void ns_ring_release(struct ns_ring *r, unsigned int n);

/*
 * Send iov[0..n) and wait for their completions: iov[i].error as write
 * sets it. Returns the number completed: n, or fewer when the egress made
 * no progress for a second (the rest may be queued: call again with
 * &iov[ret] to go on); or a negative errno of the kick.
 */
ssize_t ns_ring_send(struct ns_ring *r, struct netslice_iov *iov, unsigned int n);
/* The same, but after a stall what is left is dropped (payloads freed): n. */
ssize_t ns_ring_send_all(struct ns_ring *r, struct netslice_iov *iov, unsigned int n);

/* NETSLICE_RING_KICK: send what the TX ring holds; the entries consumed. */
int ns_ring_kick(struct ns_ring *r);

/*
 * Watch the RX ring for up to us microseconds, with no system call: 1 as
 * soon as an entry is there, 0 if none came. Cheaper than sleeping in
 * poll(2) when packets arrive faster than a sleep and a wakeup take.
 */
int ns_ring_spin(struct ns_ring *r, unsigned int us);

/*
 * Before sleeping on the ring's fd: 1 when every entry peeked is released
 * and, after a full memory barrier, the RX producer shows nothing new and
 * no trimmed record waits, so that the next packet wakes the sleeper
 * (poll, select, epoll, also edge-triggered); 0 when entries wait (peek
 * them; waiting records it kicks in first) or some are still held
 * (release them first). The uapi's ring-mode wake-up rule, done.
 */
int ns_ring_can_sleep(struct ns_ring *r);

/*
 * poll(2) for RX, up to timeout_ms (-1: forever): 1 ready (at once, with
 * no system call, when entries arrived past those peeked), 0 timed out.
 */
int ns_ring_wait(struct ns_ring *r, int timeout_ms);

/*
 * Format a CPU set as a list ("0-3,8,10-11"; "" when empty) into buf.
 * Returns the length written; -ENOSPC if buf is too small.
 */
int ns_cpulist_format(const cpu_set_t *set, char *buf, size_t size);

/* Parse a CPU list ("0-3,8") into set. -EINVAL on bad input. */
int ns_cpulist_parse(const char *list, cpu_set_t *set);

/*
 * Parse a slice list ("0-3,8", or "all" for every slice of the module)
 * into slices[] (ascending, at most max). Returns the number of slices;
 * -EINVAL bad syntax; -ENODEV a slice the module does not have;
 * -ENOENT the module is not loaded.
 */
int ns_slices_parse(const char *list, unsigned int *slices, unsigned int max);

/* ---- Steering rules: ns_rules ---- */

/*
 * A steering rule (docs/control.md, "Rules"): a packet it matches goes to
 * its slice, ahead of the RX queue or flow hash. A zero field is "any":
 * family 0 (then no addresses), proto 0, a prefix length 0, a port range
 * 0-0. Addresses network order (IPv4 in the first 4 bytes), ports host
 * order, ranges inclusive. Among wildcard rules the lowest pref wins,
 * then the oldest; an exact rule (family, protocol, both full addresses,
 * one port each way) beats every wildcard rule.
 */
struct ns_rule {
	uint8_t family;			/* AF_INET, AF_INET6 or 0 */
	uint8_t proto;
	uint8_t src_len;		/* prefix lengths, 0 to 32 or 128 */
	uint8_t dst_len;
	uint8_t src[16];
	uint8_t dst[16];
	uint16_t sport_min, sport_max;
	uint16_t dport_min, dport_max;
	uint32_t pref;
	uint32_t slice;
};

/* What a queued change does; replace adds the rule if it is not there. */
enum ns_rule_op { NS_RULE_ADD, NS_RULE_DEL, NS_RULE_REPLACE };

/* The exact rule of flow (ns_pkt_flow()'s 5-tuple), to slice. */
void ns_rule_of_flow(struct ns_rule *rule, const struct ns_flow *flow, uint32_t slice);

/*
 * A handle for changing rules: one netlink socket, one request being
 * built. One per thread (a worker's own: no locks). Changes need
 * CAP_NET_ADMIN. ns_rules_open(): -ENOENT the module is not loaded, or
 * socket(2)'s errors.
 */
struct ns_rules;
int ns_rules_open(struct ns_rules **rp);
void ns_rules_close(struct ns_rules *r);

/*
 * Queue a change. Changes go to the kernel together at ns_rules_commit(),
 * or when the request is full (a few hundred rules; the error is then
 * that commit's). -EINVAL an unknown op.
 */
int ns_rules_queue(struct ns_rules *r, enum ns_rule_op op, const struct ns_rule *rule);

/* Changes queued and not yet sent. */
unsigned int ns_rules_queued(const struct ns_rules *r);

/*
 * Send the queued changes as one request and wait for the kernel's
 * answer: all of them are applied, seen by RX at once, or none. 0 with
 * nothing queued. The kernel's errors: -EEXIST an add of a rule that
 * exists, -ENOENT a delete of one that does not, -ENOSPC the table is
 * full (module parameter max_rules) or has too many masks, -EINVAL a bad
 * rule, -EPERM without CAP_NET_ADMIN; ns_rules_why() says which rule and
 * why. Either way the handle is empty afterwards: a refused request's
 * changes are dropped, none of them applied.
 */
int ns_rules_commit(struct ns_rules *r);

/* The kernel's reason for the last commit's refusal ("" if none given). */
const char *ns_rules_why(const struct ns_rules *r);

/* One change in a request of its own (-EBUSY while changes are queued). */
int ns_rule_add(struct ns_rules *r, const struct ns_rule *rule);
int ns_rule_replace(struct ns_rules *r, const struct ns_rule *rule);
int ns_rule_del(struct ns_rules *r, const struct ns_rule *rule);

/* ---- One worker thread per slice: ns_run() ---- */

struct ns_run;

/*
 * A worker: one slice, one pinned thread. Counters are the worker's own.
 * ns_run() allocates the workers and hands out pointers: never copy or
 * allocate one. A later library adds fields only at the end, and keeps
 * its own state out of sight.
 */
struct ns_worker {
	struct ns_run *run;
	unsigned int index;	/* 0.. in the run */
	unsigned int slice;
	int fd;
	void *priv;		/* the NF's per-worker state */
	uint64_t rx_packets, rx_bytes;	/* read; bytes on the wire */
	uint64_t tx_packets, tx_bytes;	/* written without error, not dropped */
	uint64_t nf_drops;		/* marked NETSLICE_TX_DROP by the NF */
	uint64_t tx_errors;		/* iovs the module refused (error set) */
	int err;			/* what stopped the worker, 0 if asked to */
};

/* How ns_run() workers move packets. */
enum ns_run_mode {
	NS_RUN_AUTO,	/* ring mode where the module offers it, else read/write */
	NS_RUN_RW,	/* read(2) and write(2) of iov arrays */
	NS_RUN_RING,	/* ring mode, or fail (-ENOTTY: the module has none) */
};

/*
 * Set size to sizeof(struct ns_run_config). A later library adds fields at
 * the end and reads those a program did not know as zero; a program
 * built against a later header runs on this library as long as it left
 * the fields this one does not know zero (else ns_run() fails, -E2BIG).
 */
struct ns_run_config {
	size_t size;			/* sizeof(struct ns_run_config) */
	const unsigned int *slices;	/* NULL: every slice of the module */
	unsigned int nr_slices;
	unsigned int batch;		/* iovs per read (default 64) */
	unsigned int buf_size;		/* bytes per iov (default 2048) */
	const struct netslice_cut *cut;	/* set on every slice first; NULL: leave */
	int no_pin;			/* don't pin workers to user-side CPUs */
	void *arg;			/* passed to every callback */

	/* In the worker, before its first read; a negative errno fails the run. */
	int (*worker_init)(struct ns_worker *w, void *arg);
	/* In the worker, after its last write. */
	void (*worker_fini)(struct ns_worker *w, void *arg);
	/*
	 * In the worker, for each batch read: decide every iov (rewrite,
	 * ns_iov_drop(), another action). The iovs are then written.
	 */
	void (*process)(struct ns_worker *w, struct netslice_iov *iov, unsigned int n,
			void *arg);
	/*
	 * In the worker, after each batch process() decided is written (also
	 * when the write failed): the frames have left for their egress
	 * queues. What process() held for the batch (a lock that keeps
	 * several workers' frames in order on the wire) is released here.
	 */
	void (*sent)(struct ns_worker *w, void *arg);
	/* In the calling thread, every tick_ms (0: never), from ready on. */
	void (*tick)(struct ns_run *run, void *arg);
	unsigned int tick_ms;
	/*
	 * In the calling thread, on SIGHUP (NULL: SIGHUP stops the run like
	 * SIGTERM); one that comes before ready is taken after it.
	 */
	void (*reload)(struct ns_run *run, void *arg);
	/*
	 * In the calling thread, once every worker has finished its setup
	 * (its ring, its CPUs, worker_init) and reads; never if a setup
	 * failed or the run was stopped first.
	 */
	void (*ready)(struct ns_run *run, void *arg);
	/* In the calling thread, after the workers stopped (fds still open). */
	void (*done)(struct ns_run *run, void *arg);
	enum ns_run_mode mode;
	unsigned int pad_0_6;		/* 0.6's tail padding: ignored */

	/*
	 * Past 0.6's config (a 0.6 library refuses these set: -E2BIG).
	 * Ring mode: a look that finds no packet busy-polls the NAPI context
	 * the slice's last packet came from for up to busy_poll_us
	 * (NETSLICE_RING_BUSY_POLL: CAP_NET_ADMIN; 0: never), preferred with
	 * busy_prefer (NETSLICE_RING_BUSY_PREFER). Not in read/write mode.
	 * busy_prefer acts only with wake_every_us: it busy-polls on a look
	 * after a timeout, and a look after a wake-up finds packets waiting.
	 */
	unsigned int busy_poll_us;
	int busy_prefer;
	/*
	 * An idle worker looks again after wake_every_us even with no
	 * packet's wake-up (0: it sleeps until one): with busy_prefer and a
	 * device whose gro_flush_timeout is longer, the worker's own timer
	 * then paces reception and no interrupt wakes it.
	 */
	unsigned int wake_every_us;
	unsigned int reserved;		/* must be zero */
};

/*
 * Open every slice, apply the slicing mode, start one worker per slice
 * (pinned unless no_pin) and run until SIGINT or SIGTERM (or
 * ns_run_stop()). SIGINT, SIGTERM and SIGHUP are blocked in the calling
 * thread and its workers and taken with sigtimedwait(), so call it from
 * the main thread before starting other threads. Workers finish the batch
 * in hand (written, nothing lost) before they stop. The caller's mask is
 * restored at the end; a SIGHUP still pending then is taken (dropped)
 * unless the caller had SIGHUP blocked itself.
 *
 * Returns 0, or the first error: -EINVAL cfg->size smaller than 0.6's
 * config, reserved set, busy_prefer without busy_poll_us, or busy polling
 * in read/write mode; -ENOTTY busy polling (or NS_RUN_RING) on a module
 * without ring mode; -EPERM busy polling without CAP_NET_ADMIN;
 * -E2BIG a field past this library's config set; -ENOENT module
 * not loaded, -ENODEV no
 * such slice, an error of ns_open()/ns_cut_set()/worker_init, or of a
 * worker's read or write (also in its err).
 */
int ns_run(const struct ns_run_config *cfg);

/* Ask a running ns_run() to stop (any thread, async-signal-safe). */
void ns_run_stop(struct ns_run *run);

/* The run's workers, for tick/reload/ready callbacks. */
unsigned int ns_run_workers(const struct ns_run *run);
struct ns_worker *ns_run_worker(struct ns_run *run, unsigned int i);

/*
 * Wait until every worker has finished the batch it was processing when
 * this was called (a quiescent-state grace period). Publish new data for
 * the workers (an atomic pointer store), call this, then free the old:
 * reloads without stopping traffic. From a callback in the calling thread.
 */
void ns_run_synchronize(struct ns_run *run);

/*
 * Send n iovs from a worker, outside its batch (a frame the NF made: an
 * ARP request), in the worker's mode, as ns_write_all() does; what the
 * egress would not take within a second is dropped (its action set to
 * NETSLICE_TX_DROP). Returns n or a negative errno. Worker thread only.
 */
ssize_t ns_worker_write(struct ns_worker *w, struct netslice_iov *iov, unsigned int n);

/* Worker counters read while workers run (relaxed atomic loads). */
uint64_t ns_worker_counter(const uint64_t *counter);

/*
 * Names before 0.6, deprecated like the uapi's (<linux/netslice.h>): the
 * header cut's functions were ns_slicing_*(). They stay through 0.7 (0.8
 * removes them); NETSLICE_NO_DEPRECATED hides them.
 */
#ifdef __NETSLICE_OLD_NAMES
#define NS_SLICING_STRLEN \
	__NETSLICE_OLD("deprecated: use NS_CUT_STRLEN") NS_CUT_STRLEN
__NETSLICE_DEPRECATED("ns_cut_get")
static inline int ns_slicing_get(int fd, struct netslice_cut *cut)
{
	return ns_cut_get(fd, cut);
}

__NETSLICE_DEPRECATED("ns_cut_set")
static inline int ns_slicing_set(int fd, const struct netslice_cut *cut)
{
	return ns_cut_set(fd, cut);
}

__NETSLICE_DEPRECATED("ns_cut_parse")
static inline int ns_slicing_parse(const char *spec, struct netslice_cut *cut)
{
	return ns_cut_parse(spec, cut);
}

__NETSLICE_DEPRECATED("ns_cut_format")
static inline int ns_slicing_format(const struct netslice_cut *cut, char *buf, size_t size)
{
	return ns_cut_format(cut, buf, size);
}
#endif

#ifdef __cplusplus
}
#endif

#endif /* NETSLICE_USER_H */
