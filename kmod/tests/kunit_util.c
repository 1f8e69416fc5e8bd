// SPDX-License-Identifier: GPL-2.0
/* Real skbs for the netslice KUnit suites: linear or with a page fragment. */
#include <linux/gfp.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "kunit_util.h"

/* Built as a module (netslice_kunit.ko) only out of tree, for make check-debug. */
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("KUnit suites for netslice");

#define NSL_TEST_HEADROOM	64

struct sk_buff *nsl_test_skb(struct kunit *test, const u8 *data, unsigned int len,
			     unsigned int headlen)
{
	struct sk_buff *skb;
	struct page *page;

	headlen = min(headlen, len);
	KUNIT_ASSERT_LE(test, len - headlen, (unsigned int)PAGE_SIZE);
	skb = alloc_skb(NSL_TEST_HEADROOM + headlen, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, skb);
	skb_reserve(skb, NSL_TEST_HEADROOM);
	skb_put_data(skb, data, headlen);
	if (len > headlen) {
		page = alloc_page(GFP_KERNEL);
		if (!page)
			kfree_skb(skb);
		KUNIT_ASSERT_NOT_NULL(test, page);
		memcpy(page_address(page), data + headlen, len - headlen);
		skb_add_rx_frag(skb, 0, page, 0, len - headlen, PAGE_SIZE);
	}
	skb_reset_mac_header(skb);
	return skb;
}

void nsl_test_skbs(struct kunit *test, struct sk_buff **skb, unsigned int n)
{
	u8 data[128];
	unsigned int i;

	for (i = 0; i < n; i++) {
		memset(data, i, sizeof(data));
		skb[i] = nsl_test_skb(test, data, sizeof(data), 64);
	}
}

void nsl_test_skbs_free(struct sk_buff **skb, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		kfree_skb(skb[i]);
}

bool nsl_test_skb_equals(const struct sk_buff *skb, unsigned int off, const u8 *want,
			 unsigned int len)
{
	u8 *got = kmalloc(len ?: 1, GFP_KERNEL);
	bool same;

	if (!got)
		return false;
	same = !skb_copy_bits(skb, off, got, len) && !memcmp(got, want, len);
	kfree(got);
	return same;
}
