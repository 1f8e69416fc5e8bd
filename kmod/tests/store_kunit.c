// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: the payload store. Park, lookup, ageing, generation wrap-around,
 * a full store, and every kind of bad handle, over real skbs.
 */
#include <kunit/test.h>
#include <linux/jiffies.h>

#include <linux/netslice.h>

#include "../store.h"
#include "kunit_util.h"

MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);

#define NS_TEST_SLICE	3
#define NS_TEST_TIMEOUT_MS	1000

/* Two owners: stand-ins for two open files. */
static const int ns_owner_a, ns_owner_b;
#define OWNER_A	(&ns_owner_a)
#define OWNER_B	(&ns_owner_b)

struct ns_store_fixture {
	struct ns_store st;
	struct sk_buff *skb[8];
};

static int ns_store_test_init(struct kunit *test)
{
	struct ns_store_fixture *fx;
	u8 data[128];
	unsigned int i;

	fx = kunit_kzalloc(test, sizeof(*fx), GFP_KERNEL);
	if (!fx)
		return -ENOMEM;
	if (ns_store_init(&fx->st, NS_TEST_SLICE, 4, NS_TEST_TIMEOUT_MS))
		return -ENOMEM;
	for (i = 0; i < ARRAY_SIZE(fx->skb); i++) {
		memset(data, i, sizeof(data));
		fx->skb[i] = ns_test_skb(test, data, sizeof(data), 64);
	}
	test->priv = fx;
	return 0;
}

static void ns_store_test_exit(struct kunit *test)
{
	struct ns_store_fixture *fx = test->priv;
	unsigned int i;

	ns_store_destroy(&fx->st);
	for (i = 0; i < ARRAY_SIZE(fx->skb); i++)
		kfree_skb(fx->skb[i]);
}

/* Claim a handle and free its slot; returns the claim's result. */
static int ns_take(struct ns_store *st, u64 handle, const void *owner, struct sk_buff **skb)
{
	unsigned int off;
	int err;

	err = ns_store_claim(st, handle, owner, skb, &off);
	if (!err) {
		ns_store_finish(st, handle);
		kfree_skb(*skb);	/* the store's reference */
	}
	return err;
}

static void ns_store_park_claim_test(struct kunit *test)
{
	struct ns_store_fixture *fx = test->priv;
	struct sk_buff *skb;
	unsigned int off;
	u64 h;

	h = ns_store_park(&fx->st, fx->skb[0], OWNER_A, 54);
	KUNIT_ASSERT_NE(test, h, 0ULL);
	KUNIT_EXPECT_EQ(test, refcount_read(&fx->skb[0]->users), 2U);
	KUNIT_EXPECT_EQ(test, fx->st.used, 1U);

	KUNIT_ASSERT_EQ(test, ns_store_claim(&fx->st, h, OWNER_A, &skb, &off), 0);
	KUNIT_EXPECT_PTR_EQ(test, skb, fx->skb[0]);
	KUNIT_EXPECT_EQ(test, off, 54U);
	/* Claimed: a second writer with the same handle gets nothing. */
	KUNIT_EXPECT_EQ(test, ns_store_claim(&fx->st, h, OWNER_A, &skb, &off),
			NETSLICE_TXERR_STALE);
	/* A failed send parks it again under the same handle. */
	ns_store_unclaim(&fx->st, h, 58);
	KUNIT_ASSERT_EQ(test, ns_store_claim(&fx->st, h, OWNER_A, &skb, &off), 0);
	KUNIT_EXPECT_EQ(test, off, 58U);
	ns_store_finish(&fx->st, h);
	kfree_skb(skb);
	KUNIT_EXPECT_EQ(test, refcount_read(&fx->skb[0]->users), 1U);
	KUNIT_EXPECT_EQ(test, fx->st.used, 0U);
	KUNIT_EXPECT_EQ(test, fx->st.high_water, 1U);

	/* Used once: stale from now on. */
	KUNIT_EXPECT_EQ(test, ns_take(&fx->st, h, OWNER_A, &skb), NETSLICE_TXERR_STALE);
}

static void ns_store_bad_handle_test(struct kunit *test)
{
	struct ns_store_fixture *fx = test->priv;
	struct sk_buff *skb;
	u64 h;

	h = ns_store_park(&fx->st, fx->skb[0], OWNER_A, 54);
	KUNIT_ASSERT_NE(test, h, 0ULL);

	/* Another file's handle. */
	KUNIT_EXPECT_EQ(test, ns_take(&fx->st, h, OWNER_B, &skb), NETSLICE_TXERR_FOREIGN);
	/* Another slice's handle, well formed. */
	KUNIT_EXPECT_EQ(test, ns_take(&fx->st, ns_handle_make(NS_TEST_SLICE + 1, 0, 1),
				      OWNER_A, &skb), NETSLICE_TXERR_FOREIGN);
	/* Forged: any bit changed, a slot past the store, made-up values. */
	KUNIT_EXPECT_EQ(test, ns_take(&fx->st, h ^ BIT_ULL(0), OWNER_A, &skb),
			NETSLICE_TXERR_FORGED);
	KUNIT_EXPECT_EQ(test, ns_take(&fx->st, h ^ BIT_ULL(30), OWNER_A, &skb),
			NETSLICE_TXERR_FORGED);
	KUNIT_EXPECT_EQ(test, ns_take(&fx->st, h ^ BIT_ULL(63), OWNER_A, &skb),
			NETSLICE_TXERR_FORGED);
	KUNIT_EXPECT_EQ(test, ns_take(&fx->st, ns_handle_make(NS_TEST_SLICE, 4, 1),
				      OWNER_A, &skb), NETSLICE_TXERR_FORGED);
	KUNIT_EXPECT_EQ(test, ns_take(&fx->st, 0, OWNER_A, &skb) != 0, true);
	/* A free slot, and an older generation of a parked one. */
	KUNIT_EXPECT_EQ(test, ns_take(&fx->st, ns_handle_make(NS_TEST_SLICE, 1, 1),
				      OWNER_A, &skb), NETSLICE_TXERR_STALE);
	/* None of that touched the real payload. */
	KUNIT_EXPECT_EQ(test, ns_take(&fx->st, h, OWNER_A, &skb), 0);
	KUNIT_EXPECT_PTR_EQ(test, skb, fx->skb[0]);
}

static void ns_store_full_test(struct kunit *test)
{
	struct ns_store_fixture *fx = test->priv;
	struct sk_buff *skb;
	u64 h[4];
	unsigned int i;

	for (i = 0; i < 4; i++) {
		h[i] = ns_store_park(&fx->st, fx->skb[i], OWNER_A, 54);
		KUNIT_ASSERT_NE(test, h[i], 0ULL);
	}
	/* Full of young payloads: the caller delivers whole instead. */
	KUNIT_EXPECT_EQ(test, ns_store_park(&fx->st, fx->skb[4], OWNER_A, 54), 0ULL);
	KUNIT_EXPECT_EQ(test, refcount_read(&fx->skb[4]->users), 1U);
	KUNIT_EXPECT_EQ(test, fx->st.high_water, 4U);

	KUNIT_EXPECT_EQ(test, ns_take(&fx->st, h[2], OWNER_A, &skb), 0);
	KUNIT_EXPECT_NE(test, ns_store_park(&fx->st, fx->skb[4], OWNER_A, 54), 0ULL);
	KUNIT_EXPECT_EQ(test, fx->st.used, 4U);
}

static void ns_store_ageing_test(struct kunit *test)
{
	struct ns_store_fixture *fx = test->priv;
	unsigned long parked = jiffies;
	struct sk_buff *skb;
	u64 h0, h1;

	h0 = ns_store_park(&fx->st, fx->skb[0], OWNER_A, 54);
	h1 = ns_store_park(&fx->st, fx->skb[1], OWNER_B, 54);
	KUNIT_ASSERT_NE(test, h0, 0ULL);
	KUNIT_ASSERT_NE(test, h1, 0ULL);

	ns_store_expire(&fx->st, parked);
	KUNIT_EXPECT_EQ(test, fx->st.used, 2U);
	KUNIT_EXPECT_EQ(test, fx->st.aged, 0ULL);

	ns_store_expire(&fx->st, jiffies + msecs_to_jiffies(NS_TEST_TIMEOUT_MS));
	KUNIT_EXPECT_EQ(test, fx->st.used, 0U);
	KUNIT_EXPECT_EQ(test, fx->st.aged, 2ULL);
	KUNIT_EXPECT_EQ(test, refcount_read(&fx->skb[0]->users), 1U);
	KUNIT_EXPECT_EQ(test, ns_take(&fx->st, h0, OWNER_A, &skb), NETSLICE_TXERR_STALE);
	KUNIT_EXPECT_EQ(test, ns_take(&fx->st, h1, OWNER_B, &skb), NETSLICE_TXERR_STALE);
}

static void ns_store_generation_wrap_test(struct kunit *test)
{
	struct ns_store_fixture *fx = test->priv;
	struct sk_buff *skb;
	unsigned int i;
	u64 old, h;

	/* Every slot at the last generation. */
	for (i = 0; i < fx->st.capacity; i++)
		fx->st.slots[i].gen = NS_HANDLE_GEN_MASK;
	old = ns_store_park(&fx->st, fx->skb[0], OWNER_A, 54);
	KUNIT_ASSERT_EQ(test, ns_take(&fx->st, old, OWNER_A, &skb), 0);
	KUNIT_EXPECT_EQ(test, fx->st.slots[old & 0xffff].gen, 1U);

	/* Round robin: the slot comes back after the others. */
	for (i = 0; i < fx->st.capacity; i++) {
		h = ns_store_park(&fx->st, fx->skb[1], OWNER_A, 54);
		KUNIT_ASSERT_NE(test, h, 0ULL);
		if ((h & 0xffff) == (old & 0xffff))
			break;
		KUNIT_ASSERT_EQ(test, ns_take(&fx->st, h, OWNER_A, &skb), 0);
	}
	KUNIT_ASSERT_EQ(test, h & 0xffff, old & 0xffff);
	KUNIT_EXPECT_EQ(test, i, fx->st.capacity - 1);
	KUNIT_EXPECT_NE(test, h, old);
	KUNIT_EXPECT_EQ(test, ns_take(&fx->st, old, OWNER_A, &skb), NETSLICE_TXERR_STALE);
	KUNIT_EXPECT_EQ(test, ns_take(&fx->st, h, OWNER_A, &skb), 0);
	KUNIT_EXPECT_PTR_EQ(test, skb, fx->skb[1]);
}

static void ns_store_release_test(struct kunit *test)
{
	struct ns_store_fixture *fx = test->priv;
	struct sk_buff *skb;
	u64 a0, a1, b0;

	a0 = ns_store_park(&fx->st, fx->skb[0], OWNER_A, 54);
	b0 = ns_store_park(&fx->st, fx->skb[1], OWNER_B, 54);
	a1 = ns_store_park(&fx->st, fx->skb[2], OWNER_A, 54);

	ns_store_release(&fx->st, OWNER_A);
	KUNIT_EXPECT_EQ(test, fx->st.closed, 2ULL);
	KUNIT_EXPECT_EQ(test, fx->st.used, 1U);
	KUNIT_EXPECT_EQ(test, refcount_read(&fx->skb[0]->users), 1U);
	KUNIT_EXPECT_EQ(test, refcount_read(&fx->skb[2]->users), 1U);
	KUNIT_EXPECT_EQ(test, ns_take(&fx->st, a0, OWNER_A, &skb), NETSLICE_TXERR_STALE);
	KUNIT_EXPECT_EQ(test, ns_take(&fx->st, a1, OWNER_A, &skb), NETSLICE_TXERR_STALE);
	KUNIT_EXPECT_EQ(test, ns_take(&fx->st, b0, OWNER_B, &skb), 0);
	KUNIT_EXPECT_PTR_EQ(test, skb, fx->skb[1]);
}

/* Destroy frees what is still parked (module unload). */
static void ns_store_destroy_test(struct kunit *test)
{
	struct ns_store_fixture *fx = test->priv;

	KUNIT_ASSERT_NE(test, ns_store_park(&fx->st, fx->skb[5], OWNER_A, 54), 0ULL);
	KUNIT_EXPECT_EQ(test, refcount_read(&fx->skb[5]->users), 2U);
	ns_store_destroy(&fx->st);
	KUNIT_EXPECT_EQ(test, refcount_read(&fx->skb[5]->users), 1U);
	/* The exit handler destroys it again: leave it a valid empty store. */
	KUNIT_ASSERT_EQ(test, ns_store_init(&fx->st, NS_TEST_SLICE, 4, NS_TEST_TIMEOUT_MS), 0);
}

static struct kunit_case ns_store_test_cases[] = {
	KUNIT_CASE(ns_store_park_claim_test),
	KUNIT_CASE(ns_store_bad_handle_test),
	KUNIT_CASE(ns_store_full_test),
	KUNIT_CASE(ns_store_ageing_test),
	KUNIT_CASE(ns_store_generation_wrap_test),
	KUNIT_CASE(ns_store_release_test),
	KUNIT_CASE(ns_store_destroy_test),
	{}
};

static struct kunit_suite ns_store_suite = {
	.name = "netslice_store",
	.init = ns_store_test_init,
	.exit = ns_store_test_exit,
	.test_cases = ns_store_test_cases,
};

kunit_test_suite(ns_store_suite);
