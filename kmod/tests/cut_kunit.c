// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: the cut's parser (cut_parser.c, which offline mode runs too)
 * over cut_vectors.h's frames (the host test runs the same ones over flat
 * buffers), each as a linear skb and split across a page fragment at
 * several points, and the cut length each cut mode gives.
 */
#include <kunit/test.h>
#include <linux/if_ether.h>
#include <linux/string.h>

#include <linux/netslice.h>

#include "../cut.h"
#include "cut_vectors.h"
#include "kunit_util.h"

static void nsl_cut_case_desc(const struct nsl_cut_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(nsl_cut, nsl_cut_cases, nsl_cut_case_desc);

/* Where the skb's head ends: everything linear, or split inside headers. */
static const unsigned int nsl_splits[] = { NSL_TEST_FRAME_MAX, 0, 1, ETH_HLEN, 23, 40 };

static void nsl_cut_parse_test(struct kunit *test)
{
	const struct nsl_cut_case *c = test->param_value;
	struct netslice_cut_hdrs h;
	struct nsl_frame *f;
	struct sk_buff *skb;
	unsigned int i;

	/* Arrange */
	f = kunit_kzalloc(test, sizeof(*f), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, f);
	nsl_frame_init(f);
	c->build(f);
	KUNIT_ASSERT_LE(test, f->len, (unsigned int)NSL_TEST_FRAME_MAX);

	for (i = 0; i < ARRAY_SIZE(nsl_splits); i++) {
		skb = nsl_test_skb(test, f->b, f->len, nsl_splits[i]);
		/* Act, Assert */
		KUNIT_EXPECT_EQ_MSG(test, nsl_cut_headers(skb, &h), c->want,
				    "head of %u bytes", skb_headlen(skb));
		kfree_skb(skb);
	}
}

static u32 nsl_cfg(u32 mode, u32 length, u32 extra, u32 flags)
{
	struct netslice_cut req = {
		.mode = mode, .length = length, .extra = extra, .flags = flags,
	};
	u32 cfg = 0;

	if (nsl_cut_from_user(&req, &cfg))
		return U32_MAX;
	return cfg;
}

static void nsl_cut_len_test(struct kunit *test)
{
	struct nsl_frame *f = kunit_kzalloc(test, sizeof(*f), GFP_KERNEL);
	const struct nsl_cut_len_case *c;
	struct sk_buff *skb;
	u32 cfg;

	KUNIT_ASSERT_NOT_NULL(test, f);
	nsl_frame_init(f);
	b_ipv4_tcp(f);
	skb = nsl_test_skb(test, f->b, f->len, 64);

	for (c = nsl_cut_len_cases; c < nsl_cut_len_cases + ARRAY_SIZE(nsl_cut_len_cases); c++) {
		cfg = c->mode == NETSLICE_CUT_FIXED ? nsl_cfg(c->mode, c->value, 0, 0) :
							 nsl_cfg(c->mode, 0, c->value, 0);
		KUNIT_EXPECT_EQ_MSG(test, nsl_cut_len(skb, cfg), c->want,
				    "mode %u value %u", c->mode, c->value);
	}
	kfree_skb(skb);
}

static void nsl_cut_from_user_test(struct kunit *test)
{
	struct netslice_cut req = { .mode = NETSLICE_CUT_FIXED, .length = 64 };
	struct netslice_cut out;
	u32 cfg;

	KUNIT_EXPECT_EQ(test, nsl_cut_from_user(&req, &cfg), 0);
	nsl_cut_to_user(cfg, &out);
	KUNIT_EXPECT_EQ(test, out.mode, (u32)NETSLICE_CUT_FIXED);
	KUNIT_EXPECT_EQ(test, out.length, 64U);

	KUNIT_EXPECT_NE(test, nsl_cfg(NETSLICE_CUT_AUTO, 0, 8, NETSLICE_CUT_TRIM), U32_MAX);
	KUNIT_EXPECT_NE(test, nsl_cfg(NETSLICE_CUT_OFF, 0, 0, NETSLICE_CUT_TRIM), U32_MAX);
	KUNIT_EXPECT_EQ(test, nsl_cfg(NETSLICE_CUT_FIXED, 0, 0, 0), U32_MAX);
	KUNIT_EXPECT_EQ(test, nsl_cfg(NETSLICE_CUT_FIXED, NETSLICE_MAX_HEADER + 1, 0, 0),
			U32_MAX);
	KUNIT_EXPECT_EQ(test, nsl_cfg(NETSLICE_CUT_FIXED, 64, 1, 0), U32_MAX);
	KUNIT_EXPECT_EQ(test, nsl_cfg(NETSLICE_CUT_AUTO, 1, 0, 0), U32_MAX);
	KUNIT_EXPECT_EQ(test, nsl_cfg(NETSLICE_CUT_AUTO, 0, NETSLICE_MAX_EXTRA + 1, 0), U32_MAX);
	KUNIT_EXPECT_EQ(test, nsl_cfg(NETSLICE_CUT_OFF, 1, 0, 0), U32_MAX);
	KUNIT_EXPECT_EQ(test, nsl_cfg(3, 0, 0, 0), U32_MAX);
	KUNIT_EXPECT_EQ(test, nsl_cfg(NETSLICE_CUT_AUTO, 0, 0, 4), U32_MAX);
	/* Super-packets kept whole need a cut to park in. */
	KUNIT_EXPECT_NE(test, nsl_cfg(NETSLICE_CUT_AUTO, 0, 0, NETSLICE_CUT_GSO), U32_MAX);
	KUNIT_EXPECT_NE(test, nsl_cfg(NETSLICE_CUT_FIXED, 64, 0,
				      NETSLICE_CUT_GSO | NETSLICE_CUT_TRIM), U32_MAX);
	KUNIT_EXPECT_EQ(test, nsl_cfg(NETSLICE_CUT_OFF, 0, 0, NETSLICE_CUT_GSO), U32_MAX);
	req.reserved[1] = 1;
	KUNIT_EXPECT_EQ(test, nsl_cut_from_user(&req, &cfg), -EINVAL);
}

static struct kunit_case nsl_cut_test_cases[] = {
	KUNIT_CASE_PARAM(nsl_cut_parse_test, nsl_cut_gen_params),
	KUNIT_CASE(nsl_cut_len_test),
	KUNIT_CASE(nsl_cut_from_user_test),
	{}
};

static struct kunit_suite nsl_cut_suite = {
	.name = "netslice_cut",
	.test_cases = nsl_cut_test_cases,
};

kunit_test_suite(nsl_cut_suite);
