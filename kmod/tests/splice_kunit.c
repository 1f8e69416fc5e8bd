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

ns_kunit_import_ns();

#define NS_OLD_HDR	54
#define NS_FRAME_LEN	300

struct ns_splice_case {
	const char *name;
	unsigned int new_hdr;	/* bytes of the header written back */
	unsigned int headlen;	/* of the parked skb */
	bool clone;		/* the parked skb is a clone sharing its data */
};

static const struct ns_splice_case ns_splice_cases[] = {
	{ "equal, linear", 54, NS_FRAME_LEN, false },
	{ "longer (VLAN push), linear", 58, NS_FRAME_LEN, false },
	{ "longer (encapsulation), linear", 54 + 50, NS_FRAME_LEN, false },
	{ "shorter (decapsulation), linear", 40, NS_FRAME_LEN, false },
	{ "equal, header in head, payload paged", 54, NS_OLD_HDR, false },
	{ "longer, header in head, payload paged", 58, NS_OLD_HDR, false },
	{ "shorter, header in head, payload paged", 14, NS_OLD_HDR, false },
	{ "equal, header split across page", 54, 20, false },
	{ "longer, header split across page", 104, 20, false },
	{ "shorter, header split across page", 40, 20, false },
	{ "equal, all paged", 54, 0, false },
	{ "longer, cloned linear", 58, NS_FRAME_LEN, true },
	{ "shorter, cloned paged", 40, 20, true },
};

static void ns_splice_case_desc(const struct ns_splice_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(ns_splice, ns_splice_cases, ns_splice_case_desc);

static void ns_splice_test(struct kunit *test)
{
	const struct ns_splice_case *c = test->param_value;
	u8 *frame, *hdr, *orig_copy;
	struct sk_buff *orig, *skb;
	struct page *payload_page = NULL;
	unsigned int i;

	/* Arrange: a parked packet and the header user space writes back. */
	frame = kunit_kmalloc(test, NS_FRAME_LEN, GFP_KERNEL);
	hdr = kunit_kmalloc(test, c->new_hdr, GFP_KERNEL);
	orig_copy = kunit_kmalloc(test, NS_FRAME_LEN, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, frame);
	KUNIT_ASSERT_NOT_NULL(test, hdr);
	KUNIT_ASSERT_NOT_NULL(test, orig_copy);
	for (i = 0; i < NS_FRAME_LEN; i++)
		frame[i] = i < NS_OLD_HDR ? i : 0x80 ^ i;
	memset(hdr, 0xee, c->new_hdr);
	memcpy(orig_copy, frame, NS_FRAME_LEN);

	orig = ns_test_skb(test, frame, NS_FRAME_LEN, c->headlen);
	skb = c->clone ? skb_clone(orig, GFP_KERNEL) : orig;
	KUNIT_ASSERT_NOT_NULL(test, skb);
	if (skb_shinfo(skb)->nr_frags && c->headlen >= NS_OLD_HDR)
		payload_page = skb_frag_page(&skb_shinfo(skb)->frags[0]);

	/* Act */
	KUNIT_ASSERT_EQ(test, ns_splice_front(skb, NS_OLD_HDR, c->new_hdr), 0);
	memcpy(skb->data, hdr, c->new_hdr);

	/* Assert */
	KUNIT_EXPECT_EQ(test, skb->len, NS_FRAME_LEN - NS_OLD_HDR + c->new_hdr);
	KUNIT_EXPECT_TRUE(test, ns_test_skb_equals(skb, 0, hdr, c->new_hdr));
	KUNIT_EXPECT_TRUE(test, ns_test_skb_equals(skb, c->new_hdr, frame + NS_OLD_HDR,
						   NS_FRAME_LEN - NS_OLD_HDR));
	if (payload_page) {
		KUNIT_EXPECT_EQ(test, skb_shinfo(skb)->nr_frags, 1);
		KUNIT_EXPECT_PTR_EQ(test, skb_frag_page(&skb_shinfo(skb)->frags[0]),
				    payload_page);
	}
	if (c->clone) {
		/* The other holder of the data still sees the packet as it came. */
		KUNIT_EXPECT_TRUE(test, ns_test_skb_equals(orig, 0, orig_copy, NS_FRAME_LEN));
		kfree_skb(skb);
	}
	kfree_skb(orig);
}

static struct kunit_case ns_splice_test_cases[] = {
	KUNIT_CASE_PARAM(ns_splice_test, ns_splice_gen_params),
	{}
};

static struct kunit_suite ns_splice_suite = {
	.name = "netslice_splice",
	.test_cases = ns_splice_test_cases,
};

kunit_test_suite(ns_splice_suite);
