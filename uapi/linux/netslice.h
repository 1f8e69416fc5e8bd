/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * netslice: partitioned, batched packet I/O for user-space network functions.
 *
 * This header is the user/kernel ABI and its manual. User space includes it
 * from this tree (uapi/), never from installed kernel headers.
 *
 * Devices
 *   The module creates one character device per slice, /dev/netslice-0 ..
 *   /dev/netslice-(N-1), where N is the "slices" module parameter (default:
 *   the number of online CPUs, at most NETSLICE_MAX_SLICES). Nodes are
 *   owned by root with mode 0600.
 *
 * ioctl conventions
 *   Every argument is a fixed-width structure with no implicit padding.
 *   User pointers travel as __u64. Fields named "reserved" or "flags" with
 *   no flag defined must be zero on input, or the call fails with -EINVAL;
 *   the kernel zeroes them on output. An unknown command fails with
 *   -ENOTTY. A new layout gets a new command number, never a version field.
 *   32-bit callers on a 64-bit kernel use the same structures.
 */
#ifndef _UAPI_LINUX_NETSLICE_H
#define _UAPI_LINUX_NETSLICE_H

#include <linux/types.h>
#include <linux/ioctl.h>

/* Largest number of slices (device nodes) one module instance creates. */
#define NETSLICE_MAX_SLICES	256

/* Device node name prefix; slice N is "/dev/" NETSLICE_DEV_PREFIX "N". */
#define NETSLICE_DEV_PREFIX	"netslice-"

/**
 * struct netslice_cpumask - the CPUs that serve one slice
 * @mask_size:   in: size in bytes of each of the two buffers below; a
 *               multiple of 8 and large enough for every possible CPU of
 *               the running kernel (sizeof(cpu_set_t) = 128 covers 1024
 *               CPUs), or the call fails with -EINVAL.
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
 */
struct netslice_cpumask {
	__u32 mask_size;
	__u32 reserved;
	__aligned_u64 kernel_cpus;
	__aligned_u64 user_cpus;
};

#define NETSLICE_IOC_MAGIC	0xb6

#define NETSLICE_CPUMASK_GET	_IOWR(NETSLICE_IOC_MAGIC, 0x01, struct netslice_cpumask)

#endif /* _UAPI_LINUX_NETSLICE_H */
