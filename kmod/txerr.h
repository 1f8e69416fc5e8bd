/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _NETSLICE_TXERR_H
#define _NETSLICE_TXERR_H

#include <linux/netslice.h>

/*
 * What became of one frame written: 0, or why it was not sent. The
 * uapi's NETSLICE_TXERR_* codes, which write reports in the iov's error
 * field, and the module's own past them, which it never reports. The
 * write path and what it calls (the store's claim, GSO's preparation)
 * return these and nothing else: never an errno.
 */
enum nsl_txerr {
	NSL_TXERR_NONE = 0,
	NSL_TXERR_INVALID = NETSLICE_TXERR_INVALID,
	NSL_TXERR_LENGTH = NETSLICE_TXERR_LENGTH,
	NSL_TXERR_IFINDEX = NETSLICE_TXERR_IFINDEX,
	NSL_TXERR_FAULT = NETSLICE_TXERR_FAULT,
	NSL_TXERR_NOMEM = NETSLICE_TXERR_NOMEM,
	NSL_TXERR_DOWN = NETSLICE_TXERR_DOWN,
	NSL_TXERR_STALE = NETSLICE_TXERR_STALE,
	NSL_TXERR_FOREIGN = NETSLICE_TXERR_FOREIGN,
	NSL_TXERR_FORGED = NETSLICE_TXERR_FORGED,
	NSL_TXERR_DROPPED = NETSLICE_TXERR_DROPPED,
	NSL_TXERR_GSO = NETSLICE_TXERR_GSO,
	NSL_TXERR_LOOP = NETSLICE_TXERR_LOOP,
	NSL_TXERR_UAPI_MAX = NSL_TXERR_LOOP,
	/*
	 * The iov's user memory is not at hand (swapped out, or served by
	 * FUSE or userfaultfd). A write copies with page faults off while
	 * it holds an egress, and faults the memory in only after letting
	 * go of it: a fault may wait on user space forever, and a held
	 * device cannot unregister meanwhile.
	 */
	NSL_TXERR_REFAULT,
};

#endif /* _NETSLICE_TXERR_H */
