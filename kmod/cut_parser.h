/* SPDX-License-Identifier: GPL-2.0 WITH LicenseRef-netslice-OpenSSL-exception */
#ifndef _NETSLICE_CUT_PARSER_H
#define _NETSLICE_CUT_PARSER_H

#include <linux/types.h>

#include <linux/netslice_cut.h>

/*
 * The cut's parser (cut_parser.c), shared with user space. src is the
 * frame: in the module a struct sk_buff of frame_len (skb->len) bytes from
 * its link-layer header, in user space frame_len bytes.
 */

/*
 * The "auto" cut with no extra bytes: the offset just past the frame's L4
 * header, or 0 when it is unparsable. *h says where the headers before it are.
 */
__u32 netslice_cut_auto(const void *src, __u32 frame_len, struct netslice_cut_hdrs *h);

/*
 * Bytes of a frame a reader gets under a cut mode (NETSLICE_CUT_*; value:
 * the fixed length or the auto extra bytes), or 0 for the whole frame: as
 * when too few bytes, under NETSLICE_MIN_PARK, would be left to park, or
 * the cut would make a header longer than NETSLICE_MAX_HEADER.
 */
__u32 netslice_cut_len(const void *src, __u32 frame_len, __u32 mode, __u32 value);

#endif /* _NETSLICE_CUT_PARSER_H */
