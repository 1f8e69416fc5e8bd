// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: splicing a header of equal, greater or smaller length onto a
 * parked payload, on linear skbs, paged skbs and clones. The payload must
 * come out byte for byte, and a payload in a page fragment must stay in
 * the same page (not copied).
 */
#include <kunit/test.h>

#include "../compat.h"
#include "../splice.h"
#include "kunit_util.h"

nsl_kunit_import_ns();

#define NSL_OLD_HDR	54
#define NSL_FRAME_LEN	300

struct nsl_splice_case {
	const char *name;
	unsigned int new_hdr;	/* bytes of the header written back */
	unsigned int headlen;	/* of the parked skb */
	bool clone;		/* the parked skb is a clone sharing its data */
};

static const struct nsl_splice_case nsl_splice_cases[] = {
	{ "equal, linear", 54, NSL_FRAME_LEN, false },
	{ "longer (VLAN push), linear", 58, NSL_FRAME_LEN, false },
	{ "longer (encapsulation), linear", 54 + 50, NSL_FRAME_LEN, false },
	{ "shorter (decapsulation), linear", 40, NSL_FRAME_LEN, false },
	{ "equal, header in head, payload paged", 54, NSL_OLD_HDR, false },
	{ "longer, header in head, payload paged", 58, NSL_OLD_HDR, false },
	{ "shorter, header in head, payload paged", 14, NSL_OLD_HDR, false },
	{ "equal, header split across page", 54, 20, false },
	{ "longer, header split across page", 104, 20, false },
	{ "shorter, header split across page", 40, 20, false },
	{ "equal, all paged", 54, 0, false },
	{ "longer, cloned linear", 58, NSL_FRAME_LEN, true },
	{ "shorter, cloned paged", 40, 20, true },
};

static void nsl_splice_case_desc(const struct nsl_splice_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(nsl_splice, nsl_splice_cases, nsl_splice_case_desc);

static void nsl_splice_test(struct kunit *test)
{
	const struct nsl_splice_case *c = test->param_value;
	u8 *frame, *hdr, *orig_copy;
	struct sk_buff *orig, *skb;
	struct page *payload_page = NULL;
	unsigned int i;

	/* Arrange: a parked packet and the header user space writes back. */
	frame = kunit_kmalloc(test, NSL_FRAME_LEN, GFP_KERNEL);
	hdr = kunit_kmalloc(test, c->new_hdr, GFP_KERNEL);
	orig_copy = kunit_kmalloc(test, NSL_FRAME_LEN, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, frame);
	KUNIT_ASSERT_NOT_NULL(test, hdr);
	KUNIT_ASSERT_NOT_NULL(test, orig_copy);
	for (i = 0; i < NSL_FRAME_LEN; i++)
		frame[i] = i < NSL_OLD_HDR ? i : 0x80 ^ i;
	memset(hdr, 0xee, c->new_hdr);
	memcpy(orig_copy, frame, NSL_FRAME_LEN);

	orig = nsl_test_skb(test, frame, NSL_FRAME_LEN, c->headlen);
	skb = c->clone ? skb_clone(orig, GFP_KERNEL) : orig;
	KUNIT_ASSERT_NOT_NULL(test, skb);
	if (skb_shinfo(skb)->nr_frags && c->headlen >= NSL_OLD_HDR)
		payload_page = skb_frag_page(&skb_shinfo(skb)->frags[0]);

	/* Act */
	KUNIT_ASSERT_EQ(test, nsl_splice_front(skb, NSL_OLD_HDR, c->new_hdr), 0);
	memcpy(skb->data, hdr, c->new_hdr);

	/* Assert */
	KUNIT_EXPECT_EQ(test, skb->len, NSL_FRAME_LEN - NSL_OLD_HDR + c->new_hdr);
	KUNIT_EXPECT_TRUE(test, nsl_test_skb_equals(skb, 0, hdr, c->new_hdr));
	KUNIT_EXPECT_TRUE(test, nsl_test_skb_equals(skb, c->new_hdr, frame + NSL_OLD_HDR,
						    NSL_FRAME_LEN - NSL_OLD_HDR));
	if (payload_page) {
		KUNIT_EXPECT_EQ(test, skb_shinfo(skb)->nr_frags, 1);
		KUNIT_EXPECT_PTR_EQ(test, skb_frag_page(&skb_shinfo(skb)->frags[0]),
				    payload_page);
	}
	if (c->clone) {
		/* The other holder of the data still sees the packet as it came. */
		KUNIT_EXPECT_TRUE(test, nsl_test_skb_equals(orig, 0, orig_copy, NSL_FRAME_LEN));
		kfree_skb(skb);
	}
	kfree_skb(orig);
}

static struct kunit_case nsl_splice_test_cases[] = {
	KUNIT_CASE_PARAM(nsl_splice_test, nsl_splice_gen_params),
	{}
};

static struct kunit_suite nsl_splice_suite = {
	.name = "netslice_splice",
	.test_cases = nsl_splice_test_cases,
};

kunit_test_suite(nsl_splice_suite);
