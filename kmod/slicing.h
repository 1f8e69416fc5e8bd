/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _NETSLICE_SLICING_H
#define _NETSLICE_SLICING_H

#include <linux/skbuff.h>
#include <linux/types.h>

#include <linux/netslice.h>

/*
 * A slice's slicing mode in one word, so RX reads it with one READ_ONCE:
 * bits 0..7 NETSLICE_SLICE_* mode, 8..15 NETSLICE_SLICE_* flags, 16..31
 * the fixed length or the auto extra bytes.
 */
static inline u32 nsl_slicing_flags(u32 cfg)
{
	return cfg >> 8 & 0xff;
}

int nsl_slicing_from_user(const struct netslice_slicing *req, u32 *cfg);
/* cfg as the uapi struct, store fields zero (nsl_slice_slicing() fills them). */
void nsl_slicing_to_user(u32 cfg, struct netslice_slicing *out);

unsigned int nsl_slice_len(const struct sk_buff *skb, u32 cfg);
struct sk_buff *nsl_trim_record(const struct sk_buff *skb);

#endif /* _NETSLICE_SLICING_H */
