/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * netslice: partitioned, batched packet I/O for user-space network functions.
 *
 * This header is the user/kernel ABI of the devices: its types, constants
 * and what each field means. docs/uapi.md is its manual: the devices,
 * read(2) and write(2) of struct netslice_iov arrays, header slicing and
 * the payload store, poll, and ring mode. User space includes it from
 * this tree (uapi/), never from installed kernel headers.
 *
 * ioctl conventions
 *   Every argument is a fixed-width structure with no implicit padding.
 *   User pointers travel as __u64. Fields named "reserved" or "flags" with
 *   no flag defined must be zero on input, or the call fails with -EINVAL;
 *   the kernel zeroes them on output. An unknown command fails with
 *   -ENOTTY. A new layout gets a new command number, never a version field.
 *   32-bit callers on a 64-bit kernel use the same structures.
 *
 * Privilege model
 *   The device node is the capability. Whoever may open /dev/netslice-N
 *   (0660, group netslice, as packaged) may, on that slice alone: read
 *   and write its packets, send them out of the interfaces that feed it
 *   (or feed a slice before it in a chain) or up their host stack, hand
 *   them to its next slice, read its counters and info, and set up ring
 *   mode on its own file. The slice's CPU masks, batching mode and cut
 *   are shared by its files and are the administrator's: a SET that
 *   would change one needs CAP_NET_ADMIN in the initial user namespace,
 *   as slice-set does; one that asks for what is set needs nothing. Busy
 *   polling needs CAP_NET_ADMIN, as SO_BUSY_POLL. So a process in a
 *   container, in its own user and network namespace with no capability
 *   outside it, that is passed the node (a bind mount) runs an NF on a
 *   slice set up for it as it would on the host; the slice's interfaces
 *   may live in another namespace (ports name them module-wide; an
 *   ifindex is the writer's namespace's). What the node does not give:
 *   another slice, which interfaces feed the slice, its chain, its
 *   settings, the rules.
 *   The netlink family (<linux/netslice_netlink.h>): attaching and
 *   detaching interfaces, slice-set (chains among it), rules and counter
 *   resets need CAP_NET_ADMIN in the initial user namespace. Slices,
 *   their counters and the rules are shown in the initial network
 *   namespace, or to CAP_NET_ADMIN there; another namespace sees only
 *   the attached interfaces that live in it (link-get).
 */
#ifndef _UAPI_LINUX_NETSLICE_H
#define _UAPI_LINUX_NETSLICE_H

#include <linux/types.h>
#include <linux/ioctl.h>

/* User space sees the names before 0.6 too, deprecated (the end of this file). */
#if !defined(__KERNEL__) && !defined(NETSLICE_NO_DEPRECATED)
#define __NETSLICE_OLD_NAMES
#define __NETSLICE_DEPRECATED(new) __attribute__((deprecated("use " new)))
#endif

/* Largest number of slices (device nodes) one module instance creates. */
#define NETSLICE_MAX_SLICES	256

/* Device node name prefix; slice N is "/dev/" NETSLICE_DEV_PREFIX "N". */
#define NETSLICE_DEV_PREFIX	"netslice-"

/**
 * struct netslice_cpumask - the CPUs that serve one slice
 * @mask_size:   in: size in bytes of each of the two buffers below; a
 *               multiple of 8, at most 8192, and large enough for every
 *               possible CPU of the running kernel (sizeof(cpu_set_t) =
 *               128 covers 1024 CPUs), or the call fails with -EINVAL.
 *               out: the number of bytes the kernel needs (the smallest
 *               valid @mask_size), also on -EINVAL, so a caller can retry.
 * @reserved:    must be zero.
 * @kernel_cpus: user pointer to a CPU bitmap (bit N of byte N/8 is CPU N,
 *               the layout of cpu_set_t): the "kernel-side" CPUs, where
 *               the slice's receive processing is meant to run.
 * @user_cpus:   user pointer to a CPU bitmap: the "user-side" CPUs, where
 *               the network function reading the slice should run. Pin
 *               the NF there with sched_setaffinity(2).
 *
 * NETSLICE_CPUMASK_GET fills both bitmaps; bytes beyond the kernel's CPU
 * count are zeroed. By default slice i has the i-th online CPU (modulo
 * the online count) as its kernel side, and that CPU's SMT siblings (or
 * the CPU itself, without SMT) as its user side, so the two share a cache.
 * Both masks are non-empty and contain only CPUs that were online when the
 * module loaded.
 *
 * NETSLICE_CPUMASK_SET replaces both masks; each must be non-empty and
 * hold only online CPUs (-EINVAL otherwise; nothing changes). What it
 * changes: the masks GET reports, which an NF uses to place itself, and
 * the rx_off_cpu counter, which counts packets the slice received on a
 * CPU outside its kernel-side mask. It does not move interrupts: on a NIC
 * with per-queue IRQs, steer each queue's IRQ to its slice's kernel-side
 * CPUs (/proc/irq/N/smp_affinity_list). Devices without IRQs (veth, tun)
 * receive on the sending CPU, where rx_off_cpu shows the mismatch.
 */
struct netslice_cpumask {
	__u32 mask_size;
	__u32 reserved;
	__aligned_u64 kernel_cpus;
	__aligned_u64 user_cpus;
};

/*
 * struct netslice_iov - one packet of a read or write
 * @base:     user address of the packet buffer.
 * @len:      capacity of @base in bytes.
 * @rlen:     read (out): bytes of the packet copied to @base (at most @len).
 *            write (in): bytes of @base to send, a whole link-layer frame of
 *            14 .. MTU + link header (+ 4 for one VLAN tag) bytes; with a
 *            @handle, the header in front of its payload (14 ..
 *            NETSLICE_MAX_HEADER bytes), or 0 to keep the one it has.
 * @wire_len: read (out): the packet's length; > @rlen when truncated.
 *            write: ignored, so an iov read can be written back as it is.
 * @ifindex:  read (out): the interface the packet arrived on, as its own
 *            network namespace numbers it (for display); for a packet
 *            handed over by the slice before it in a chain, the one it
 *            arrived on at the chain's start.
 *            write (in): NETSLICE_TX_IFINDEX: the attached interface to
 *            send it out of, numbered in the writer's network namespace.
 *            Also for NETSLICE_TX_DEFAULT and NETSLICE_TX_HOST when @port
 *            and @handle are 0.
 * @queue:    read (out): the driver's RX queue, or NETSLICE_QUEUE_NONE
 *            where the driver records none. write: ignored.
 * @flags:    read (out): NETSLICE_RX_*. write: ignored.
 * @action:   write (in): NETSLICE_TX_*. read: ignored, left as it is.
 * @error:    write (out): NETSLICE_TXERR_* for this iov, 0 when consumed
 *            without error. read: set to 0.
 * @handle:   read (out): for a NETSLICE_RX_CUT packet, the handle of its
 *            parked payload; 0 otherwise.
 *            write (in): 0 to send @rlen bytes as a whole frame; a handle
 *            to send @rlen bytes of header followed by its payload (with
 *            NETSLICE_TX_DROP: free the payload, send nothing).
 * @port:     read (out): the port id of the interface the packet arrived
 *            on: module-wide, the same in every network namespace (an
 *            ifindex is not: one slice may be fed by interfaces of several
 *            namespaces). Never 0; ids of detached interfaces are not
 *            reused soon (they are handed out cyclically).
 *            write (in): NETSLICE_TX_DEFAULT, NETSLICE_TX_HOST: the port
 *            it arrived on (as read), or 0: with a @handle, the port its
 *            payload arrived on; without, @ifindex (in the writer's
 *            namespace: write @port back when the interface is in another).
 *            NETSLICE_TX_PORT: the port to send it out of.
 *            NETSLICE_TX_NEXT: as NETSLICE_TX_HOST: the port the next
 *            slice reads it as arriving on.
 * @gso_size: read (out): for a NETSLICE_RX_GSO packet, the payload bytes
 *            of each of its segments but the last; 0 otherwise.
 *            write: ignored (the parked payload keeps its own).
 * @gso_segs: read (out): for a NETSLICE_RX_GSO packet, its number of
 *            segments; 0 otherwise. write: ignored.
 *
 * A write may send only out of an interface that feeds the slice written
 * to (its slice range covers it), or feeds a slice before it in a chain:
 * any other fails NETSLICE_TXERR_IFINDEX.
 *
 * Chains (docs/uapi.md, "Chains"): a slice may have a next slice, set
 * through netlink (slice-set chain-next; netslicectl chain add). Its
 * writes with NETSLICE_TX_DEFAULT, and NETSLICE_TX_NEXT, then hand the
 * packet to the next slice instead of an interface: queued on that
 * slice's rxq (or ring) as if received on @port, read there as any
 * packet. A handle's payload is not copied: it moves, parked, from this
 * slice's store to the next slice's, which cuts the packet again as its
 * own cut says and issues its own handle (this one is then stale). A
 * handle is thus valid in one slice at a time, and only headers cross
 * into each NF of the chain. A payload handed on more than
 * NETSLICE_CHAIN_MAX_HOPS times fails NETSLICE_TXERR_LOOP (freed); a next
 * slice with no file open fails NETSLICE_TXERR_DOWN, one whose rxq (or
 * RX ring, in ring mode) is full NETSLICE_TXERR_DROPPED (both counted
 * there too, as for a packet received). A chain cannot be set up to loop
 * (ELOOP), nor to link more than NETSLICE_CHAIN_MAX_HOPS slices on
 * (EMLINK).
 */
struct netslice_iov {
	__aligned_u64 base;
	__u32 len;
	__u32 rlen;
	__u32 wire_len;
	__u32 ifindex;
	__u16 queue;
	__u16 flags;
	__u16 action;
	__u16 error;
	__aligned_u64 handle;
	__u32 port;
	__u16 gso_size;
	__u16 gso_segs;
};

#define NETSLICE_QUEUE_NONE	0xffff

/* iov flags on read */
#define NETSLICE_RX_TRUNCATED	(1U << 0)	/* @len was shorter than the packet */
#define NETSLICE_RX_SEGMENT	(1U << 1)	/* one segment of a GSO/GRO packet */
#define NETSLICE_RX_CUT		(1U << 2)	/* headers only; @handle holds the payload */
#define NETSLICE_RX_STORE_FULL	(1U << 3)	/* delivered whole: the store was full */
#define NETSLICE_RX_TRIMMED	(1U << 4)	/* header-only record: rxq full, payload freed */
#define NETSLICE_RX_GSO		(1U << 5)	/* a whole GSO/GRO super-packet, cut */
#define NETSLICE_RX_GSO_TCPV4	(1U << 6)	/* its type: TCP over IPv4 */
#define NETSLICE_RX_GSO_TCPV6	(1U << 7)	/* TCP over IPv6 */
#define NETSLICE_RX_GSO_UDP_L4	(1U << 8)	/* UDP datagrams (UDP_SEGMENT) */
#define NETSLICE_RX_GSO_ECN	(1U << 9)	/* TCP with CWR set on the first segment */

/* iov actions on write */
#define NETSLICE_TX_DEFAULT	0	/* out of @port's pair, or @port itself */
#define NETSLICE_TX_IFINDEX	1	/* out of attached interface @ifindex */
#define NETSLICE_TX_HOST	2	/* up the host stack, as if received on @port */
#define NETSLICE_TX_DROP	3	/* consume without sending */
#define NETSLICE_TX_PORT	4	/* out of attached interface @port */
#define NETSLICE_TX_NEXT	5	/* to the next slice of the chain */

/* Most times a payload is handed from slice to slice (NETSLICE_TX_NEXT). */
#define NETSLICE_CHAIN_MAX_HOPS	8

/* iov errors on write, and the errno a first bad iov returns */
#define NETSLICE_TXERR_INVALID	1	/* EINVAL: reserved set, unknown action */
#define NETSLICE_TXERR_LENGTH	2	/* EMSGSIZE: rlen too short, > len, or too long */
#define NETSLICE_TXERR_IFINDEX	3	/* ENODEV: not attached, or not this slice's */
#define NETSLICE_TXERR_FAULT	4	/* EFAULT: base not readable */
#define NETSLICE_TXERR_NOMEM	5	/* ENOMEM: no memory for the packet */
#define NETSLICE_TXERR_DOWN	6	/* ENETDOWN: egress down or going away */
#define NETSLICE_TXERR_STALE	7	/* ESTALE: handle already used or aged out */
#define NETSLICE_TXERR_FOREIGN	8	/* EACCES: handle of another slice or file */
#define NETSLICE_TXERR_FORGED	9	/* EBADMSG: not a handle the module made */
#define NETSLICE_TXERR_DROPPED	10	/* ENOBUFS: egress refused it (backlog full) */
#define NETSLICE_TXERR_GSO	11	/* EPROTO: a super-packet's header cannot be segmented */
#define NETSLICE_TXERR_LOOP	12	/* ELOOP: handed on past NETSLICE_CHAIN_MAX_HOPS */

/*
 * struct netslice_rw_multi - batching mode of a slice
 * @flags:     NETSLICE_MULTI_READ and/or NETSLICE_MULTI_WRITE. Both are on
 *             by default.
 * @max_batch: most packets one read or write handles, 1 ..
 *             NETSLICE_MAX_BATCH (default NETSLICE_MAX_BATCH).
 *
 * The mode belongs to the slice, shared by all its open files.
 */
struct netslice_rw_multi {
	__u32 flags;
	__u32 max_batch;
};

#define NETSLICE_MULTI_READ	(1U << 0)
#define NETSLICE_MULTI_WRITE	(1U << 1)
#define NETSLICE_MAX_BATCH	1024

/*
 * struct netslice_cut - NETSLICE_CUT_GET / NETSLICE_CUT_SET
 * @mode:     NETSLICE_CUT_OFF (default): whole packets.
 *            NETSLICE_CUT_FIXED: the first @length bytes.
 *            NETSLICE_CUT_AUTO: through the end of the L4 header, plus
 *            @extra bytes. Parsed: Ethernet with up to two 802.1Q/802.1ad
 *            tags; IPv4 with options; IPv6 with hop-by-hop, routing,
 *            destination-options, fragment and AH extension headers; then
 *            TCP with options, UDP, ICMP or ICMPv6. An ICMP or ICMPv6
 *            error (ICMP types 3, 4, 5, 11, 12; ICMPv6 1 to 4) is whole
 *            header: what it quotes is what a NAT translates, so it is
 *            delivered whole. A non-first fragment
 *            is cut after its IP headers. Anything else (not IP, another
 *            L4 protocol, a header cut short or inconsistent) is delivered
 *            whole.
 *            In every mode a packet with fewer than NETSLICE_MIN_PARK
 *            bytes beyond its cut (parking so few costs more than
 *            copying them), or whose cut would exceed
 *            NETSLICE_MAX_HEADER bytes, is delivered whole. The mode
 *            applies to packets as they arrive; packets already queued
 *            keep the mode they arrived under.
 * @length:   NETSLICE_CUT_FIXED: 1 .. NETSLICE_MAX_HEADER; else 0.
 * @extra:    NETSLICE_CUT_AUTO: 0 .. NETSLICE_MAX_EXTRA; else 0.
 * @flags:    NETSLICE_CUT_TRIM: deliver header-only records instead of
 *            dropping packets when the RX queue is full (docs/uapi.md,
 *            "Overload"). The record holds the packet's headers as cut,
 *            or with the cut off its "auto" headers, or its Ethernet
 *            header if none parse.
 *            NETSLICE_CUT_GSO: read TCP and UDP super-packets whole,
 *            cut (docs/uapi.md, "Super-packets"); with NETSLICE_CUT_FIXED
 *            or NETSLICE_CUT_AUTO only (EINVAL with NETSLICE_CUT_OFF).
 * @store_size:       out: capacity of the slice's payload store (a ring
 *                    mode file's store takes it at setup); ignored on SET.
 * @store_timeout_ms: out: how long a payload may stay parked; ignored on
 *                    SET.
 * @reserved: must be zero.
 *
 * The configuration belongs to the slice, shared by all its open files.
 */
struct netslice_cut {
	__u32 mode;
	__u32 length;
	__u32 extra;
	__u32 flags;
	__u32 store_size;
	__u32 store_timeout_ms;
	__u32 reserved[2];
};

#define NETSLICE_CUT_OFF	0
#define NETSLICE_CUT_FIXED	1
#define NETSLICE_CUT_AUTO	2

#define NETSLICE_CUT_TRIM	(1U << 0)
#define NETSLICE_CUT_GSO	(1U << 1)

/* Longest cut, and longest header written back with a handle. */
#define NETSLICE_MAX_HEADER	512
#define NETSLICE_MAX_EXTRA	256
/* Fewest payload bytes a cut parks; a shorter payload is read whole. */
#define NETSLICE_MIN_PARK	64

/*
 * struct netslice_iface_info - one attached interface, as a slice sees it
 * @ifindex:      the interface.
 * @pair_ifindex: its default egress (its pair, or itself); 0 when its
 *                pair was detached (NETSLICE_TX_DEFAULT then fails with
 *                NETSLICE_TXERR_IFINDEX).
 * @rx_queues:    its number of RX queues.
 * @flags:        NETSLICE_IFACE_HASHED: the driver records no RX queue;
 *                packets reach slices by flow hash, not by queue.
 * @queue_mask:   the RX queues (bit q for queue q < 64) feeding this slice;
 *                0 for a hashed interface.
 */
struct netslice_iface_info {
	__u32 ifindex;
	__u32 pair_ifindex;
	__u32 rx_queues;
	__u32 flags;
	__aligned_u64 queue_mask;
};

#define NETSLICE_IFACE_HASHED	(1U << 0)
#define NETSLICE_MAX_IFACES	32

/*
 * struct netslice_info - NETSLICE_INFO_GET
 * @slice:     this slice's number.
 * @nr_slices: slices of the module.
 * @rxq_size:  capacity of the slice's RX queue (rxq) in packets, which
 *             read consumes (a file in ring mode receives into its own RX
 *             ring, as deep as it set it up). @ring_size: its name before
 *             0.6, deprecated.
 * @nr_ifaces: attached interfaces; the first NETSLICE_MAX_IFACES are in
 *             @ifaces.
 * @flags:     NETSLICE_INFO_SYMMETRIC_HASH when the flow hash is symmetric;
 *             NETSLICE_INFO_KEEP_HEADER when write takes @rlen 0 with a
 *             handle (the header as parked: modules before it refuse it
 *             with NETSLICE_TXERR_LENGTH); NETSLICE_INFO_GSO when
 *             NETSLICE_CUT_SET takes NETSLICE_CUT_GSO (modules before
 *             it refuse it with EINVAL); NETSLICE_INFO_RING when the
 *             module offers ring mode (NETSLICE_RING_SETUP);
 *             NETSLICE_INFO_CHAIN when it offers chains (NETSLICE_TX_NEXT);
 *             NETSLICE_INFO_CHAINED when this slice has a next slice.
 * @next_slice: with NETSLICE_INFO_CHAINED, the slice this one's
 *             NETSLICE_TX_DEFAULT and NETSLICE_TX_NEXT writes go to; else 0
 *             (@reserved before 0.9).
 * @cut:       the slice's header cut, as NETSLICE_CUT_GET reports it
 *             (@slicing: its name before 0.6, deprecated).
 * @ifaces:    the attached interfaces.
 */
struct netslice_info {
	__u32 slice;
	__u32 nr_slices;
	/* __extension__: C99 has no anonymous unions. */
	__extension__ union {
		__u32 rxq_size;
#ifdef __NETSLICE_OLD_NAMES
		__u32 ring_size __NETSLICE_DEPRECATED("rxq_size");
#endif
	};
	__u32 nr_ifaces;
	__u32 flags;
	__u32 next_slice;
	/* __extension__: C99 has no anonymous unions. */
	__extension__ union {
		struct netslice_cut cut;
#ifdef __NETSLICE_OLD_NAMES
		struct netslice_cut slicing __NETSLICE_DEPRECATED("cut");
#endif
	};
	struct netslice_iface_info ifaces[NETSLICE_MAX_IFACES];
};

#define NETSLICE_INFO_SYMMETRIC_HASH	(1U << 0)
#define NETSLICE_INFO_KEEP_HEADER	(1U << 1)
#define NETSLICE_INFO_GSO		(1U << 2)
#define NETSLICE_INFO_RING		(1U << 3)
#define NETSLICE_INFO_CHAIN		(1U << 4)
#define NETSLICE_INFO_CHAINED		(1U << 5)

/*
 * struct netslice_stats - NETSLICE_STATS_GET: counters of one slice since
 * the module loaded. Packet counters count the packets a reader gets: a
 * GSO/GRO packet segmented on receive once per segment, a super-packet
 * read whole (NETSLICE_CUT_GSO) once, its segments in rx_gso_segments.
 * Every frame the slice receives ends in
 * exactly one of rx_packets (queued), rx_trimmed and rx_drop_* (a GSO
 * packet dropped before segmentation counts once there); every queued
 * frame is later read, or freed unread (rx_purged) when the interface it
 * arrived on is detached or the slice's last file closes, or freed at
 * unload. read_packets = read_sliced +
 * read_whole + trimmed records read. Every payload parked (read_sliced)
 * ends in tx_spliced (which counts those handed to the next slice of a
 * chain too), tx_nf_drop, a failed send (tx_err_down, tx_err_dropped,
 * tx_err_loop),
 * store_aged or store_closed, or is still parked (store_used).
 *
 * rx_bytes / read_bytes is the reduction header slicing brings: bytes that
 * arrived against bytes copied to user space.
 */
/*
 * NETSLICE_STATS_LIST(X) - struct netslice_stats' fields, in order:
 * X(NAME, name) for each, as the kernel lists its drop reasons. The
 * module's counter indices and libnetslice's counter names are made from
 * it, the spec's counters attributes are checked against it
 * (tests/spec_check.py), and libnetslice's build checks that each field
 * of the struct below is where the list puts it.
 */
#define NETSLICE_STATS_LIST(X)								\
	X(RX_PACKETS, rx_packets) X(RX_BYTES, rx_bytes)					\
	X(RX_DROP_RING_FULL, rx_drop_ring_full)						\
	X(RX_DROP_NO_READER, rx_drop_no_reader) X(RX_DROP_ERROR, rx_drop_error)		\
	X(RX_SEGMENTS, rx_segments) X(RX_OFF_CPU, rx_off_cpu)				\
	X(RX_TRIMMED, rx_trimmed) X(READ_PACKETS, read_packets)				\
	X(READ_BYTES, read_bytes) X(READ_TRUNCATED, read_truncated)			\
	X(READ_SLICED, read_sliced) X(READ_WHOLE, read_whole)				\
	X(READ_STORE_FULL, read_store_full) X(WRITE_BYTES, write_bytes)			\
	X(TX_PACKETS, tx_packets) X(TX_BYTES, tx_bytes) X(TX_HOST, tx_host)		\
	X(TX_NF_DROP, tx_nf_drop) X(TX_BUSY, tx_busy) X(TX_SPLICED, tx_spliced)		\
	X(TX_ERR_INVALID, tx_err_invalid) X(TX_ERR_LENGTH, tx_err_length)		\
	X(TX_ERR_IFINDEX, tx_err_ifindex) X(TX_ERR_FAULT, tx_err_fault)			\
	X(TX_ERR_NOMEM, tx_err_nomem) X(TX_ERR_DOWN, tx_err_down)			\
	X(TX_ERR_STALE, tx_err_stale) X(TX_ERR_FOREIGN, tx_err_foreign)			\
	X(TX_ERR_FORGED, tx_err_forged) X(STORE_AGED, store_aged)			\
	X(STORE_CLOSED, store_closed) X(STORE_USED, store_used)				\
	X(STORE_HIGH_WATER, store_high_water) X(RX_PURGED, rx_purged)			\
	X(TX_ERR_DROPPED, tx_err_dropped) X(RX_GSO_PACKETS, rx_gso_packets)		\
	X(RX_GSO_SEGMENTS, rx_gso_segments) X(TX_GSO, tx_gso)				\
	X(TX_ERR_GSO, tx_err_gso) X(TX_CHAINED, tx_chained)				\
	X(RX_CHAINED, rx_chained) X(TX_ERR_LOOP, tx_err_loop)

struct netslice_stats {
	__u64 rx_packets;		/* queued on rxq, or in an RX ring */
	__u64 rx_bytes;
	__u64 rx_drop_ring_full;	/* rxq or RX ring full, no trimmed record */
	__u64 rx_drop_no_reader;	/* no file open on the slice */
	__u64 rx_drop_error;		/* could not be segmented or checksummed */
	__u64 rx_segments;		/* of which segments of GSO/GRO packets */
	__u64 rx_off_cpu;		/* received outside the kernel-side CPUs */
	__u64 rx_trimmed;		/* rxq full: queued as header-only record */
	__u64 read_packets;		/* handed to user space */
	__u64 read_bytes;		/* bytes copied to user space */
	__u64 read_truncated;		/* packets longer than their iov */
	__u64 read_sliced;		/* headers read, payload parked */
	__u64 read_whole;		/* read whole (cut off or not applicable) */
	__u64 read_store_full;		/* of which: would be cut, store full */
	__u64 write_bytes;		/* bytes copied from user space */
	__u64 tx_packets;		/* sent out of an interface */
	__u64 tx_bytes;
	__u64 tx_host;			/* passed up the host stack */
	__u64 tx_nf_drop;		/* NETSLICE_TX_DROP (with a handle or not) */
	__u64 tx_busy;			/* short writes: egress queue stopped */
	__u64 tx_spliced;		/* of tx_packets and tx_host: header + parked payload */
	__u64 tx_err_invalid;		/* per-iov errors, by NETSLICE_TXERR_* */
	__u64 tx_err_length;
	__u64 tx_err_ifindex;
	__u64 tx_err_fault;
	__u64 tx_err_nomem;
	__u64 tx_err_down;
	__u64 tx_err_stale;
	__u64 tx_err_foreign;
	__u64 tx_err_forged;
	__u64 store_aged;		/* payloads freed after store_timeout_ms */
	__u64 store_closed;		/* payloads freed when their file closed */
	__u64 store_used;		/* payloads parked now */
	__u64 store_high_water;		/* most payloads parked at once */
	__u64 rx_purged;		/* queued, freed unread: detach, close, rxq shrunk */
	__u64 tx_err_dropped;		/* NETSLICE_TXERR_DROPPED */
	__u64 rx_gso_packets;		/* super-packets queued whole (NETSLICE_CUT_GSO) */
	__u64 rx_gso_segments;		/* the segments they stand for */
	__u64 tx_gso;			/* super-packets sent (of tx_spliced) */
	__u64 tx_err_gso;		/* NETSLICE_TXERR_GSO */
	/*
	 * tx_chained: packets handed to the next slice (not in tx_packets; a
	 * super-packet once, one the next slice keeps as a trimmed record
	 * too); rx_chained: of rx_packets, those handed over by the slice
	 * before (a super-packet it segments once per segment).
	 */
	__u64 tx_chained;
	__u64 rx_chained;
	__u64 tx_err_loop;		/* NETSLICE_TXERR_LOOP */
};

/*
 * struct netslice_ring_setup - NETSLICE_RING_SETUP: put the file in ring mode
 * @frame_size:   in: bytes per frame, a power of 2, NETSLICE_RING_MIN_FRAME
 *                .. NETSLICE_RING_MAX_FRAME. A packet longer than a frame
 *                is truncated (NETSLICE_RX_TRUNCATED, as for a short iov).
 * @frame_count:  in: frames in the frame area, >= @rx_size; the area is at
 *                most NETSLICE_RING_MAX_AREA bytes.
 * @rx_size:      in: RX ring entries, a power of 2, 2 .. NETSLICE_RING_MAX_SIZE.
 * @tx_size:      in: TX ring entries, the same.
 * @comp_size:    in: completion ring entries, the same, >= @tx_size.
 * @flags:        in: NETSLICE_RING_BUSY_POLL, with it NETSLICE_RING_BUSY_PREFER,
 *                or 0.
 * @busy_poll_us: in: with NETSLICE_RING_BUSY_POLL, 1 .. 1000; else 0.
 *                Busy polling needs CAP_NET_ADMIN, as raising SO_BUSY_POLL does.
 * @reserved:     must be zero.
 * @frames_len, @rx_len, @tx_len, @comp_len: out: the bytes to map at
 *                each region's offset (rounded up to pages).
 *
 * Busy polling: a poll(2) or kick that finds no packet waiting polls the
 * NAPI context the slice's last packet came from (one context, where
 * the driver has one) for up to @busy_poll_us, as SO_BUSY_POLL does.
 * NETSLICE_RING_BUSY_PREFER also prefers it, as SO_PREFER_BUSY_POLL does:
 * a round polls up to NAPI_POLL_WEIGHT (64) packets, and on a device
 * with napi_defer_hard_irqs and gro_flush_timeout set the interrupt
 * stays deferred while the process polls again within gro_flush_timeout.
 * Then only a poll(2) or select(2) pass after a wake-up or timeout polls,
 * not a kick nor the pass before sleeping (they would find the context
 * emptied), so the process's own poll(2) timeout paces reception: one
 * wake-up a period, no interrupt and no softirq thread woken between
 * (af_xdp.rst, "preferred busy polling"). Past gro_flush_timeout the
 * device's timer polls and RX wakes the process as always. Everything
 * that context receives, for the host and for other slices too, then
 * arrives as often as the process polls, on its CPU. It saves the
 * interrupt, not the process's own sleep and wake (docs/design.md).
 *
 * Memory: the regions' pages (frames_len + rx_len + tx_len + comp_len)
 * are charged to the calling user's RLIMIT_MEMLOCK, as AF_XDP charges its
 * umem (not for a caller with CAP_IPC_LOCK), and count against the
 * module's ring_max_mb for all rings together; given back when the last
 * reference to the file goes.
 *
 * Errors: EBADF when the file is not open for reading and writing;
 * EINVAL for a value out of range or NETSLICE_RING_BUSY_PREFER without
 * NETSLICE_RING_BUSY_POLL; EBUSY when the file is set up already,
 * another file of the slice is in ring mode, or another file has read
 * from the slice (its packets would be diverted) and is still open;
 * EPERM for NETSLICE_RING_BUSY_POLL without CAP_NET_ADMIN;
 * ENOBUFS past RLIMIT_MEMLOCK; ENOMEM past ring_max_mb, or no memory;
 * EFAULT for an unreadable or unwritable argument.
 */
struct netslice_ring_setup {
	__u32 frame_size;
	__u32 frame_count;
	__u32 rx_size;
	__u32 tx_size;
	__u32 comp_size;
	__u32 flags;
	__u32 busy_poll_us;
	__u32 reserved;
	__aligned_u64 frames_len;
	__aligned_u64 rx_len;
	__aligned_u64 tx_len;
	__aligned_u64 comp_len;
};

#define NETSLICE_RING_BUSY_POLL		(1U << 0)
#define NETSLICE_RING_BUSY_PREFER	(1U << 1)

#define NETSLICE_RING_MIN_FRAME		2048
#define NETSLICE_RING_MAX_FRAME		65536
#define NETSLICE_RING_MAX_SIZE		32768
#define NETSLICE_RING_MAX_AREA		(256U << 20)

/* mmap offsets of the regions */
#define NETSLICE_MMAP_FRAMES	0ULL
#define NETSLICE_MMAP_RX	0x100000000ULL
#define NETSLICE_MMAP_TX	0x180000000ULL
#define NETSLICE_MMAP_COMP	0x200000000ULL

/*
 * struct netslice_ring_hdr - the head of each ring region; entries follow
 * @producer: written by the producer only (the kernel for RX and
 *            completions, the process for TX).
 * @consumer: written by the consumer only.
 * @flags:    written by the kernel: NETSLICE_RING_NEED_WAKEUP.
 * Each index has a cache line (128 bytes) of its own.
 *
 * RX wakes pollers only once the consumer index reaches the producer
 * index of the last wake-up. Before sleeping on the RX ring: store-release
 * the consumer index, a full memory barrier, load the producer index
 * again and take what arrived, and kick if the RX flags say
 * NETSLICE_RING_NEED_WAKEUP (docs/uapi.md, "Wake-ups (the rule)").
 */
struct netslice_ring_hdr {
	__u32 producer;
	__u32 pad_producer[31];
	__u32 consumer;
	__u32 pad_consumer[31];
	__u32 flags;
	__u32 pad_flags[31];
};

#define NETSLICE_RING_NEED_WAKEUP	(1U << 0)

/*
 * struct netslice_ring_comp - one completion: a TX entry consumed
 * @base:     the TX entry's @base (its frame may be reused).
 * @error:    0, or the NETSLICE_TXERR_* it failed with.
 * @reserved: zero.
 */
struct netslice_ring_comp {
	__aligned_u64 base;
	__u16 error;
	__u16 reserved[3];
};

#define NETSLICE_IOC_MAGIC	0xb6

#define NETSLICE_CPUMASK_GET	_IOWR(NETSLICE_IOC_MAGIC, 0x01, struct netslice_cpumask)
#define NETSLICE_CPUMASK_SET	_IOW(NETSLICE_IOC_MAGIC, 0x02, struct netslice_cpumask)
#define NETSLICE_RW_MULTI_GET	_IOR(NETSLICE_IOC_MAGIC, 0x03, struct netslice_rw_multi)
#define NETSLICE_RW_MULTI_SET	_IOW(NETSLICE_IOC_MAGIC, 0x04, struct netslice_rw_multi)
#define NETSLICE_INFO_GET	_IOR(NETSLICE_IOC_MAGIC, 0x05, struct netslice_info)
#define NETSLICE_STATS_GET	_IOR(NETSLICE_IOC_MAGIC, 0x06, struct netslice_stats)
#define NETSLICE_CUT_GET	_IOR(NETSLICE_IOC_MAGIC, 0x07, struct netslice_cut)
#define NETSLICE_CUT_SET	_IOW(NETSLICE_IOC_MAGIC, 0x08, struct netslice_cut)
#define NETSLICE_RING_SETUP	_IOWR(NETSLICE_IOC_MAGIC, 0x09, struct netslice_ring_setup)
/* Ring mode: send what the TX ring holds; returns the entries consumed. */
#define NETSLICE_RING_KICK	_IO(NETSLICE_IOC_MAGIC, 0x0a)

/*
 * Names before 0.6, deprecated: they compile, each use with a warning that
 * names its replacement, through 0.8 (0.9 removes them). Header slicing's
 * setting is the "cut" (CUT_*): "slice" names only the partition, a
 * /dev/netslice-N; a slice's RX queue is its "rxq" (a "ring"
 * is ring mode's). The netlink names resolve once
 * <linux/netslice_netlink.h> is included too. Define NETSLICE_NO_DEPRECATED
 * to see which old names a program still uses, as errors.
 */
#ifdef __NETSLICE_OLD_NAMES
#define __NETSLICE_PRAGMA(x) _Pragma(#x)
#define __NETSLICE_OLD(msg) __NETSLICE_PRAGMA(GCC warning msg)
#define netslice_slicing \
	__NETSLICE_OLD("deprecated: use struct netslice_cut") netslice_cut
#define NETSLICE_SLICE_GET \
	__NETSLICE_OLD("deprecated: use NETSLICE_CUT_GET") NETSLICE_CUT_GET
#define NETSLICE_SLICE_SET \
	__NETSLICE_OLD("deprecated: use NETSLICE_CUT_SET") NETSLICE_CUT_SET
#define NETSLICE_SLICE_OFF \
	__NETSLICE_OLD("deprecated: use NETSLICE_CUT_OFF") NETSLICE_CUT_OFF
#define NETSLICE_SLICE_FIXED \
	__NETSLICE_OLD("deprecated: use NETSLICE_CUT_FIXED") NETSLICE_CUT_FIXED
#define NETSLICE_SLICE_AUTO \
	__NETSLICE_OLD("deprecated: use NETSLICE_CUT_AUTO") NETSLICE_CUT_AUTO
#define NETSLICE_SLICE_TRIM \
	__NETSLICE_OLD("deprecated: use NETSLICE_CUT_TRIM") NETSLICE_CUT_TRIM
#define NETSLICE_SLICE_GSO \
	__NETSLICE_OLD("deprecated: use NETSLICE_CUT_GSO") NETSLICE_CUT_GSO
#define NETSLICE_RX_SLICED \
	__NETSLICE_OLD("deprecated: use NETSLICE_RX_CUT") NETSLICE_RX_CUT
#define NETSLICE_SLICING_MODE_OFF \
	__NETSLICE_OLD("deprecated: use NETSLICE_CUT_MODE_OFF") NETSLICE_CUT_MODE_OFF
#define NETSLICE_SLICING_MODE_FIXED \
	__NETSLICE_OLD("deprecated: use NETSLICE_CUT_MODE_FIXED") NETSLICE_CUT_MODE_FIXED
#define NETSLICE_SLICING_MODE_AUTO \
	__NETSLICE_OLD("deprecated: use NETSLICE_CUT_MODE_AUTO") NETSLICE_CUT_MODE_AUTO
#define NETSLICE_A_SLICE_SLICING_MODE \
	__NETSLICE_OLD("deprecated: use NETSLICE_A_SLICE_CUT_MODE") NETSLICE_A_SLICE_CUT_MODE
#define NETSLICE_A_SLICE_SLICING_LENGTH \
	__NETSLICE_OLD("deprecated: use NETSLICE_A_SLICE_CUT_LENGTH") NETSLICE_A_SLICE_CUT_LENGTH
#define NETSLICE_A_SLICE_SLICING_EXTRA \
	__NETSLICE_OLD("deprecated: use NETSLICE_A_SLICE_CUT_EXTRA") NETSLICE_A_SLICE_CUT_EXTRA
#define NETSLICE_A_SLICE_SLICING_TRIM \
	__NETSLICE_OLD("deprecated: use NETSLICE_A_SLICE_CUT_TRIM") NETSLICE_A_SLICE_CUT_TRIM
#define NETSLICE_A_SLICE_SLICING_GSO \
	__NETSLICE_OLD("deprecated: use NETSLICE_A_SLICE_CUT_GSO") NETSLICE_A_SLICE_CUT_GSO
#define NETSLICE_A_SLICE_RING_SIZE \
	__NETSLICE_OLD("deprecated: use NETSLICE_A_SLICE_RXQ_SIZE") NETSLICE_A_SLICE_RXQ_SIZE
#endif

#endif /* _UAPI_LINUX_NETSLICE_H */
