// SPDX-License-Identifier: GPL-2.0
/*
 * The cut: how much of a packet a reader gets (its header), decided on RX
 * for each packet by the cut's parser (cut_parser.c), and the header-only
 * records of the overload mode. The semantics are documented with struct
 * netslice_cut.
 */
#include <linux/if_ether.h>
#include <linux/minmax.h>
#include <kunit/visibility.h>

#include "skb_cb.h"
#include "cut.h"

#define NSL_CUT(mode, flags, value)	((mode) | (flags) << 8 | (value) << 16)

int nsl_cut_from_user(const struct netslice_cut *req, u32 *cfg)
{
	if (req->reserved[0] || req->reserved[1] ||
	    req->flags & ~(NETSLICE_CUT_TRIM | NETSLICE_CUT_GSO))
		return -EINVAL;
	switch (req->mode) {
	case NETSLICE_CUT_OFF:
		/* A super-packet kept whole needs a cut to park its payload. */
		if (req->length || req->extra || req->flags & NETSLICE_CUT_GSO)
			return -EINVAL;
		*cfg = NSL_CUT(req->mode, req->flags, 0);
		return 0;
	case NETSLICE_CUT_FIXED:
		if (!req->length || req->length > NETSLICE_MAX_HEADER || req->extra)
			return -EINVAL;
		*cfg = NSL_CUT(req->mode, req->flags, req->length);
		return 0;
	case NETSLICE_CUT_AUTO:
		if (req->length || req->extra > NETSLICE_MAX_EXTRA)
			return -EINVAL;
		*cfg = NSL_CUT(req->mode, req->flags, req->extra);
		return 0;
	default:
		return -EINVAL;
	}
}
EXPORT_SYMBOL_IF_KUNIT(nsl_cut_from_user);

void nsl_cut_to_user(u32 cfg, struct netslice_cut *out)
{
	memset(out, 0, sizeof(*out));
	out->mode = nsl_cut_mode(cfg);
	out->flags = nsl_cut_flags(cfg);
	if (out->mode == NETSLICE_CUT_FIXED)
		out->length = nsl_cut_value(cfg);
	else if (out->mode == NETSLICE_CUT_AUTO)
		out->extra = nsl_cut_value(cfg);
}
EXPORT_SYMBOL_IF_KUNIT(nsl_cut_to_user);

/*
 * A header-only copy of skb for a full rxq, with skb's RX metadata, or
 * NULL without memory. Its length is the packet's cut, or its "auto"
 * headers, or its Ethernet header.
 */
struct sk_buff *nsl_trim_record(const struct sk_buff *skb)
{
	const struct nsl_rx_cb *cb = nsl_rx_cb(skb);
	unsigned int len = cb->cut_len;
	struct netslice_cut_hdrs h;
	struct sk_buff *rec;

	if (!len)
		len = nsl_cut_headers(skb, &h) ?: ETH_HLEN;
	/* A record is a header as a cut is: never longer than one. */
	len = min3(len, skb->len, (unsigned int)NETSLICE_MAX_HEADER);
	rec = alloc_skb(len, GFP_ATOMIC);
	if (!rec)
		return NULL;
	skb_copy_bits(skb, 0, skb_put(rec, len), len);
	*nsl_rx_cb(rec) = *cb;
	nsl_rx_cb(rec)->flags |= NETSLICE_RX_TRIMMED;
	nsl_rx_cb(rec)->cut_len = 0;
	nsl_rx_cb(rec)->wire_len = skb->len;
	return rec;
}
