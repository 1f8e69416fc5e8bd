/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _NETSLICE_KUNIT_UTIL_H
#define _NETSLICE_KUNIT_UTIL_H

#include <kunit/test.h>
#include <linux/skbuff.h>

/* Largest frame the tests build. */
#define NSL_TEST_FRAME_MAX	1024

/*
 * A real skb holding data[0..len): the first headlen bytes in its linear
 * head, the rest in one page fragment. skb->data is the first byte.
 */
struct sk_buff *nsl_test_skb(struct kunit *test, const u8 *data, unsigned int len,
			     unsigned int headlen);

/* n skbs of 128 bytes, skb[i]'s all i: 64 in the head, 64 in a fragment. */
void nsl_test_skbs(struct kunit *test, struct sk_buff **skb, unsigned int n);
void nsl_test_skbs_free(struct sk_buff **skb, unsigned int n);

/* skb's bytes [off, off + len) equal want. */
bool nsl_test_skb_equals(const struct sk_buff *skb, unsigned int off, const u8 *want,
			 unsigned int len);

#endif /* _NETSLICE_KUNIT_UTIL_H */
