/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _NETSLICE_CUT_H
#define _NETSLICE_CUT_H

#include <linux/skbuff.h>
#include <linux/types.h>

#include <linux/netslice.h>

#include "cut_parser.h"

/*
 * A slice's cut in one word, so RX reads it with one READ_ONCE:
 * bits 0..7 NETSLICE_CUT_* mode, 8..15 NETSLICE_CUT_* flags, 16..31
 * the fixed length or the auto extra bytes.
 */
static inline u32 nsl_cut_mode(u32 cfg)
{
	return cfg & 0xff;
}

static inline u32 nsl_cut_flags(u32 cfg)
{
	return cfg >> 8 & 0xff;
}

static inline u32 nsl_cut_value(u32 cfg)
{
	return cfg >> 16;
}

int nsl_cut_from_user(const struct netslice_cut *req, u32 *cfg);
/* cfg as the uapi struct, store fields zero (nsl_slice_cut() fills them). */
void nsl_cut_to_user(u32 cfg, struct netslice_cut *out);

/*
 * Bytes of skb (from its link-layer header) a reader gets under cfg, or 0
 * for the whole packet. RX softirq, once per packet: no call with the cut off.
 */
static inline unsigned int nsl_cut_len(const struct sk_buff *skb, u32 cfg)
{
	if (nsl_cut_mode(cfg) == NETSLICE_CUT_OFF)
		return 0;
	return netslice_cut_len(skb, skb->len, nsl_cut_mode(cfg), nsl_cut_value(cfg));
}

/*
 * Offset just past the L4 header of the packet at skb->data, or 0, and
 * where the headers before it are (in *h): the parser over an skb.
 */
static inline unsigned int nsl_cut_headers(const struct sk_buff *skb, struct netslice_cut_hdrs *h)
{
	return netslice_cut_auto(skb, skb->len, h);
}

struct sk_buff *nsl_trim_record(const struct sk_buff *skb);

#endif /* _NETSLICE_CUT_H */
