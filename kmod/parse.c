// SPDX-License-Identifier: GPL-2.0
/*
 * The header cut of the RX path: uapi/linux/netslice_cut.h's parser, the
 * one offline mode uses too, over an skb. It runs in RX softirq on every
 * packet of a slicing slice and reads only through skb_header_pointer():
 * never past the packet, never writing, and with no linear copy of a
 * paged skb.
 */
#include <kunit/visibility.h>

#include "parse.h"

unsigned int nsl_parse_headers(const struct sk_buff *skb, struct netslice_cut_hdrs *h)
{
	return netslice_cut_auto(skb, skb->len, h);
}
EXPORT_SYMBOL_IF_KUNIT(nsl_parse_headers);

unsigned int nsl_parse_l4_end(const struct sk_buff *skb)
{
	struct netslice_cut_hdrs h;

	return nsl_parse_headers(skb, &h);
}
EXPORT_SYMBOL_IF_KUNIT(nsl_parse_l4_end);

unsigned int nsl_parse_cut_len(const struct sk_buff *skb, u32 mode, u32 value)
{
	return netslice_cut_len(skb, skb->len, mode, value);
}
EXPORT_SYMBOL_IF_KUNIT(nsl_parse_cut_len);
