// SPDX-License-Identifier: GPL-2.0
/*
 * Splicing a header back onto a parked payload: the parked skb is the
 * whole packet, so the new header only replaces its first bytes. Payload
 * bytes in page fragments are never copied; the old header is, when it
 * was in a fragment, and so is the linear head when a clone shares it (a
 * packet tap was open on the interface).
 */
#include <kunit/visibility.h>

#include "splice.h"

/*
 * Make room for an hlen-byte header in place of the first off bytes of
 * skb, leaving the payload after them as it is. On success skb->data
 * points at hlen private, linear bytes for the caller to fill. On error
 * (-ENOMEM) skb->data and the payload are unchanged.
 */
int nsl_splice_front(struct sk_buff *skb, unsigned int off, unsigned int hlen)
{
	int err;

	err = skb_ensure_writable(skb, off);
	if (err)
		return err;
	if (hlen > off) {
		err = skb_cow_head(skb, hlen - off);
		if (err)
			return err;
		__skb_push(skb, hlen - off);
	} else {
		__skb_pull(skb, off - hlen);
	}
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(nsl_splice_front);
