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
enum ns_txerr {
	NS_TXERR_NONE = 0,
	NS_TXERR_INVALID = NETSLICE_TXERR_INVALID,
	NS_TXERR_LENGTH = NETSLICE_TXERR_LENGTH,
	NS_TXERR_IFINDEX = NETSLICE_TXERR_IFINDEX,
	NS_TXERR_FAULT = NETSLICE_TXERR_FAULT,
	NS_TXERR_NOMEM = NETSLICE_TXERR_NOMEM,
	NS_TXERR_DOWN = NETSLICE_TXERR_DOWN,
	NS_TXERR_STALE = NETSLICE_TXERR_STALE,
	NS_TXERR_FOREIGN = NETSLICE_TXERR_FOREIGN,
	NS_TXERR_FORGED = NETSLICE_TXERR_FORGED,
	NS_TXERR_DROPPED = NETSLICE_TXERR_DROPPED,
	NS_TXERR_GSO = NETSLICE_TXERR_GSO,
	NS_TXERR_UAPI_MAX = NS_TXERR_GSO,
	/*
	 * The iov's user memory is not at hand (swapped out, or served by
	 * FUSE or userfaultfd). A write copies with page faults off while
	 * it holds an egress, and faults the memory in only after letting
	 * go of it: a fault may wait on user space forever, and a held
	 * device cannot unregister meanwhile.
	 */
	NS_TXERR_REFAULT,
};

#endif /* _NETSLICE_TXERR_H */
