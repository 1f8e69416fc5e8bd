/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _NETSLICE_CHAIN_H
#define _NETSLICE_CHAIN_H

#include <linux/compiler.h>
#include <linux/netlink.h>
#include <linux/types.h>

#include "port.h"
#include "slice.h"

/* The slice's next slice, or NULL; any context. */
static inline struct nsl_slice *nsl_chain_next(const struct nsl_slice *slice)
{
	/* The link after its rights (nsl_chain_commit()). */
	u16 next = smp_load_acquire(&slice->next);

	return next == NSL_CHAIN_NONE ? NULL : &nsl_slices[next];
}

/*
 * May slice send out of iface: it feeds slice, or a slice before it in
 * a chain. Any context; a chain changing meanwhile answers old or new.
 */
bool nsl_chain_feeds(const struct nsl_slice *slice, const struct nsl_iface *iface);

/*
 * slice-set: slice's next becomes next (NSL_CHAIN_NONE: none), unless that
 * makes a loop (-ELOOP) or a chain of more than NETSLICE_CHAIN_MAX_HOPS
 * links (-EMLINK); extack says which. Caller holds slice->lock.
 */
int nsl_chain_prepare(struct nsl_slice *slice, u16 next, struct netlink_ext_ack *extack);
/* After nsl_chain_prepare() returned 0: apply it; cannot fail. */
void nsl_chain_commit(struct nsl_slice *slice, u16 next);
/* After nsl_chain_prepare() returned 0, when something else failed. */
void nsl_chain_abort(void);

#endif /* _NETSLICE_CHAIN_H */
