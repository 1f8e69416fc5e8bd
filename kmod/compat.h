/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel-version differences, in one place. Supported: Debian bookworm's
 * 6.1 and 6.12 kernels and everything between.
 */
#ifndef _NETSLICE_COMPAT_H
#define _NETSLICE_COMPAT_H

#include <linux/version.h>
#include <linux/device.h>
#include <linux/skbuff.h>
#include <net/netlink.h>
#include <linux/poll.h>

/* 6.4 dropped the owner argument of class_create(). */
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 4, 0)
#define nsl_class_create(name)	class_create(THIS_MODULE, name)
#else
#define nsl_class_create(name)	class_create(name)
#endif

/* 6.2 made the device argument of class::devnode const. */
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 2, 0)
#define nsl_devnode_dev_t	struct device
#else
#define nsl_devnode_dev_t	const struct device
#endif

/* 6.4 moved skb_gso_segment() to its own header. */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 4, 0)
#include <net/gso.h>
#endif

/* 6.6 gave a dump its own genl_info. */
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 6, 0)
#define nsl_genl_dump_attrs(cb)	(genl_dumpit_info(cb)->attrs)
#else
#define nsl_genl_dump_attrs(cb)	(genl_dumpit_info(cb)->info.attrs)
#endif

/*
 * The generated request policies (nl_policy.h) use what newer kernels
 * have: NLA_POLICY_MAX_LEN() came after 6.12 (its definition here is the
 * kernel's), and a const range, which 6.1's struct nla_policy points to
 * without const (cast only: netlink never writes through it; applying it
 * up to 6.12, where the field is const already, is harmless).
 */
#ifndef NLA_POLICY_MAX_LEN
#define NLA_POLICY_MAX_LEN(_len)	NLA_POLICY_MAX(NLA_BINARY, _len)
#endif
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 12, 0)
#undef NLA_POLICY_FULL_RANGE
#define NLA_POLICY_FULL_RANGE(tp, _range) {				\
	.type = NLA_ENSURE_UINT_OR_BINARY_TYPE(tp),			\
	.validation_type = NLA_VALIDATE_RANGE_PTR,			\
	.range = (struct netlink_range_validation *)(_range),		\
}
#endif

/*
 * Typed allocation of one object, kzalloc_obj(*ptr, gfp): 7.2 has it (and its
 * checkpatch asks for it), as has 6.12 from a stable backport; 6.1 has not,
 * and gets the sizeof() form it replaces. (The kernel's take the gfp as
 * optional; ours always pass it.)
 */
#ifndef kzalloc_obj
#define kzalloc_obj(obj, gfp)	kzalloc(sizeof(obj), gfp)
#define kvzalloc_obj(obj, gfp)	kvzalloc(sizeof(obj), gfp)
#endif
#ifndef kmalloc_obj
#define kmalloc_obj(obj, gfp)	kmalloc(sizeof(obj), gfp)
#endif

/*
 * A ptr_ring queue allocated ahead of a resize (slice.c): 6.10 renamed the
 * allocator for memory allocation profiling, which alloc_hooks() accounts.
 */
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 10, 0)
#define nsl_ptr_ring_queue_alloc(size, gfp)	__ptr_ring_init_queue_alloc(size, gfp)
#else
#define nsl_ptr_ring_queue_alloc(size, gfp) \
	alloc_hooks(__ptr_ring_init_queue_alloc_noprof(size, gfp))
#endif

/* The KUnit suites' import: MODULE_IMPORT_NS() takes a string from 6.13 on. */
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 13, 0)
#define nsl_kunit_import_ns()	MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING)
#else
#define nsl_kunit_import_ns()	MODULE_IMPORT_NS("EXPORTED_FOR_KUNIT_TESTING")
#endif

/*
 * 6.10 put skb->decrypted (a NIC's TLS offload decrypted the payload)
 * under CONFIG_SKB_DECRYPTED, read through skb_is_decrypted(); before, it
 * was there with CONFIG_TLS_DEVICE.
 */
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 10, 0)
#define NSL_SKB_HAS_DECRYPTED	IS_ENABLED(CONFIG_TLS_DEVICE)
#else
#define NSL_SKB_HAS_DECRYPTED	IS_ENABLED(CONFIG_SKB_DECRYPTED)
#endif

static inline bool nsl_skb_decrypted(const struct sk_buff *skb)
{
#if NSL_SKB_HAS_DECRYPTED
	return skb->decrypted;
#else
	return false;
#endif
}

static inline void nsl_skb_clear_decrypted(struct sk_buff *skb)
{
#if NSL_SKB_HAS_DECRYPTED
	skb->decrypted = 0;
#endif
}

/*
 * Whether a ->poll() call may sleep after it (poll_wait() queues then):
 * poll_does_not_wait()'s test negated; 7.2 no longer has the helper, and
 * poll and select still clear _qproc for every pass after the first.
 */
static inline bool nsl_poll_may_sleep(const poll_table *p)
{
	return p && p->_qproc;
}

#endif /* _NETSLICE_COMPAT_H */
