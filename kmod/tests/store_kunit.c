// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: the payload store. Park, lookup, ageing (from park time, however
 * often a writer claims and gives back), slot reuse, a full store, and
 * every kind of bad handle, over real skbs.
 */
#include <kunit/test.h>
#include <linux/jiffies.h>

#include <linux/netslice.h>

#include "../compat.h"
#include "../params.h"
#include "../store.h"
#include "kunit_util.h"

nsl_kunit_import_ns();

#define NSL_TEST_SLICE	3
#define NSL_TEST_TIMEOUT_MS	1000

/* Two owners: stand-ins for two open files. */
static const int nsl_owner_a, nsl_owner_b;
#define OWNER_A	(&nsl_owner_a)
#define OWNER_B	(&nsl_owner_b)

struct nsl_store_fixture {
	struct nsl_store st;
	struct sk_buff *skb[8];
};

static int nsl_store_test_init(struct kunit *test)
{
	struct nsl_store_fixture *fx;

	fx = kunit_kzalloc(test, sizeof(*fx), GFP_KERNEL);
	if (!fx)
		return -ENOMEM;
	if (nsl_store_init(&fx->st, NSL_TEST_SLICE, 4, NSL_TEST_TIMEOUT_MS))
		return -ENOMEM;
	nsl_test_skbs(test, fx->skb, ARRAY_SIZE(fx->skb));
	test->priv = fx;
	return 0;
}

static void nsl_store_test_exit(struct kunit *test)
{
	struct nsl_store_fixture *fx = test->priv;

	nsl_store_destroy(&fx->st);
	nsl_test_skbs_free(fx->skb, ARRAY_SIZE(fx->skb));
}

/*
 * Park a reference of the fixture's skb: the store takes the reference it
 * is given, and gives it back (the caller keeps it) when it is full.
 */
static u64 nsl_park(struct nsl_store *st, struct sk_buff *skb, const void *owner,
		    unsigned int off)
{
	u64 h = nsl_store_park(st, skb_get(skb), owner, off);

	if (!h)
		kfree_skb(skb);
	return h;
}

/* Claim a handle and free its slot; returns the claim's result. */
static int nsl_take(struct nsl_store *st, u64 handle, const void *owner, struct sk_buff **skb)
{
	unsigned int off;
	int err;

	err = nsl_store_claim(st, handle, owner, skb, &off);
	if (!err) {
		nsl_store_finish(st, handle);
		kfree_skb(*skb);	/* the store's reference */
	}
	return err;
}

static void nsl_store_park_claim_test(struct kunit *test)
{
	struct nsl_store_fixture *fx = test->priv;
	struct sk_buff *skb;
	unsigned int off;
	u64 h;

	h = nsl_park(&fx->st, fx->skb[0], OWNER_A, 54);
	KUNIT_ASSERT_NE(test, h, 0ULL);
	KUNIT_EXPECT_EQ(test, refcount_read(&fx->skb[0]->users), 2U);
	KUNIT_EXPECT_EQ(test, fx->st.used, 1U);

	KUNIT_ASSERT_EQ(test, nsl_store_claim(&fx->st, h, OWNER_A, &skb, &off), 0);
	KUNIT_EXPECT_PTR_EQ(test, skb, fx->skb[0]);
	KUNIT_EXPECT_EQ(test, off, 54U);
	/* Claimed: a second writer with the same handle gets nothing. */
	KUNIT_EXPECT_EQ(test, nsl_store_claim(&fx->st, h, OWNER_A, &skb, &off),
			NETSLICE_TXERR_STALE);
	/* A failed send parks it again under the same handle. */
	nsl_store_unclaim(&fx->st, h, 58);
	KUNIT_ASSERT_EQ(test, nsl_store_claim(&fx->st, h, OWNER_A, &skb, &off), 0);
	KUNIT_EXPECT_EQ(test, off, 58U);
	nsl_store_finish(&fx->st, h);
	kfree_skb(skb);
	KUNIT_EXPECT_EQ(test, refcount_read(&fx->skb[0]->users), 1U);
	KUNIT_EXPECT_EQ(test, fx->st.used, 0U);
	KUNIT_EXPECT_EQ(test, fx->st.high_water, 1U);

	/* Used once: stale from now on. */
	KUNIT_EXPECT_EQ(test, nsl_take(&fx->st, h, OWNER_A, &skb), NETSLICE_TXERR_STALE);
}

static void nsl_store_bad_handle_test(struct kunit *test)
{
	struct nsl_store_fixture *fx = test->priv;
	struct sk_buff *skb;
	u64 h;

	h = nsl_park(&fx->st, fx->skb[0], OWNER_A, 54);
	KUNIT_ASSERT_NE(test, h, 0ULL);

	/* Another file's handle. */
	KUNIT_EXPECT_EQ(test, nsl_take(&fx->st, h, OWNER_B, &skb), NETSLICE_TXERR_FOREIGN);
	/* Another slice's handle, well formed. */
	KUNIT_EXPECT_EQ(test, nsl_take(&fx->st, nsl_handle_make(NSL_TEST_SLICE + 1, 0, 1),
				       OWNER_A, &skb), NETSLICE_TXERR_FOREIGN);
	/* Forged: any bit of the slot or tag changed, a slot past the store, made-up values. */
	KUNIT_EXPECT_EQ(test, nsl_take(&fx->st, h ^ BIT_ULL(0), OWNER_A, &skb),
			NETSLICE_TXERR_FORGED);
	KUNIT_EXPECT_EQ(test, nsl_take(&fx->st, h ^ BIT_ULL(30), OWNER_A, &skb),
			NETSLICE_TXERR_FORGED);
	KUNIT_EXPECT_EQ(test, nsl_take(&fx->st, h ^ BIT_ULL(62), OWNER_A, &skb),
			NETSLICE_TXERR_FORGED);
	/* The top bit names a ring's store (rstore.c): not this store's. */
	KUNIT_EXPECT_EQ(test, nsl_take(&fx->st, h ^ BIT_ULL(63), OWNER_A, &skb),
			NETSLICE_TXERR_FOREIGN);
	KUNIT_EXPECT_EQ(test, nsl_take(&fx->st, nsl_handle_make(NSL_TEST_SLICE, 4, 1),
				       OWNER_A, &skb), NETSLICE_TXERR_FORGED);
	KUNIT_EXPECT_EQ(test, nsl_take(&fx->st, 0, OWNER_A, &skb), NETSLICE_TXERR_FORGED);
	KUNIT_EXPECT_EQ(test, nsl_take(&fx->st, h ^ BIT_ULL(24), OWNER_A, &skb),
			NETSLICE_TXERR_FORGED);
	/* A free slot's made-up handle, and one of a sequence number not issued. */
	KUNIT_EXPECT_EQ(test, nsl_take(&fx->st, nsl_handle_make(NSL_TEST_SLICE, 1, 1),
				       OWNER_A, &skb), NETSLICE_TXERR_FORGED);
	KUNIT_EXPECT_EQ(test, nsl_take(&fx->st, nsl_handle_make(NSL_TEST_SLICE, 0, 2),
				       OWNER_A, &skb), NETSLICE_TXERR_FORGED);
	/* None of that touched the real payload. */
	KUNIT_EXPECT_EQ(test, nsl_take(&fx->st, h, OWNER_A, &skb), 0);
	KUNIT_EXPECT_PTR_EQ(test, skb, fx->skb[0]);
}

static void nsl_store_full_test(struct kunit *test)
{
	struct nsl_store_fixture *fx = test->priv;
	struct sk_buff *skb;
	u64 h[4];
	unsigned int i;

	for (i = 0; i < 4; i++) {
		h[i] = nsl_park(&fx->st, fx->skb[i], OWNER_A, 54);
		KUNIT_ASSERT_NE(test, h[i], 0ULL);
	}
	/* Full of young payloads: the caller delivers whole instead. */
	KUNIT_EXPECT_EQ(test, nsl_park(&fx->st, fx->skb[4], OWNER_A, 54), 0ULL);
	KUNIT_EXPECT_EQ(test, refcount_read(&fx->skb[4]->users), 1U);
	KUNIT_EXPECT_EQ(test, fx->st.high_water, 4U);

	KUNIT_EXPECT_EQ(test, nsl_take(&fx->st, h[2], OWNER_A, &skb), 0);
	KUNIT_EXPECT_NE(test, nsl_park(&fx->st, fx->skb[4], OWNER_A, 54), 0ULL);
	KUNIT_EXPECT_EQ(test, fx->st.used, 4U);
}

static void nsl_store_ageing_test(struct kunit *test)
{
	struct nsl_store_fixture *fx = test->priv;
	unsigned long parked = jiffies;
	struct sk_buff *skb;
	u64 h0, h1;

	h0 = nsl_park(&fx->st, fx->skb[0], OWNER_A, 54);
	h1 = nsl_park(&fx->st, fx->skb[1], OWNER_B, 54);
	KUNIT_ASSERT_NE(test, h0, 0ULL);
	KUNIT_ASSERT_NE(test, h1, 0ULL);

	nsl_store_expire(&fx->st, parked);
	KUNIT_EXPECT_EQ(test, fx->st.used, 2U);
	KUNIT_EXPECT_EQ(test, fx->st.aged, 0ULL);

	nsl_store_expire(&fx->st, jiffies + msecs_to_jiffies(NSL_TEST_TIMEOUT_MS));
	KUNIT_EXPECT_EQ(test, fx->st.used, 0U);
	KUNIT_EXPECT_EQ(test, fx->st.aged, 2ULL);
	KUNIT_EXPECT_EQ(test, refcount_read(&fx->skb[0]->users), 1U);
	KUNIT_EXPECT_EQ(test, nsl_take(&fx->st, h0, OWNER_A, &skb), NETSLICE_TXERR_STALE);
	KUNIT_EXPECT_EQ(test, nsl_take(&fx->st, h1, OWNER_B, &skb), NETSLICE_TXERR_STALE);
}

/*
 * A slot is reused round robin; its previous handle is stale, and no older
 * handle of it ever works again, however many times it comes back (the
 * old 24-bit generations wrapped).
 */
static void nsl_store_reuse_test(struct kunit *test)
{
	struct nsl_store_fixture *fx = test->priv;
	struct sk_buff *skb;
	unsigned int i;
	u64 old, prev = 0, h = 0;

	old = nsl_park(&fx->st, fx->skb[0], OWNER_A, 54);
	KUNIT_ASSERT_EQ(test, nsl_take(&fx->st, old, OWNER_A, &skb), 0);
	KUNIT_EXPECT_EQ(test, nsl_take(&fx->st, old, OWNER_A, &skb), NETSLICE_TXERR_STALE);

	/* 300 times round every slot (an 8-bit generation would wrap). */
	for (i = 0; i < 300 * fx->st.capacity; i++) {
		h = nsl_park(&fx->st, fx->skb[1], OWNER_A, 54);
		KUNIT_ASSERT_NE(test, h, 0ULL);
		KUNIT_ASSERT_NE(test, h, old);
		if ((h & 0xffff) == (old & 0xffff) && i < fx->st.capacity)
			KUNIT_EXPECT_EQ(test, i, fx->st.capacity - 1);
		if (i == 300 * fx->st.capacity - 1)
			break;
		KUNIT_ASSERT_EQ(test, nsl_take(&fx->st, h, OWNER_A, &skb), 0);
		prev = h;
	}
	/* Many generations old: not recognised. The one just before: stale. */
	KUNIT_EXPECT_EQ(test, nsl_take(&fx->st, old, OWNER_A, &skb), NETSLICE_TXERR_FORGED);
	KUNIT_EXPECT_EQ(test, nsl_take(&fx->st, prev, OWNER_A, &skb), NETSLICE_TXERR_STALE);
	KUNIT_EXPECT_EQ(test, nsl_take(&fx->st, h, OWNER_A, &skb), 0);
	KUNIT_EXPECT_PTR_EQ(test, skb, fx->skb[1]);
}

/*
 * The tag is a count: when it wraps it skips 0, so the handle of slot 0
 * of slice 0 is never 0 ("no payload"), and the tags around the wrap
 * still differ.
 */
static void nsl_store_tag_wrap_test(struct kunit *test)
{
	struct nsl_store_fixture *fx = test->priv;
	const u64 tag_mask = GENMASK_ULL(38, 0);
	struct sk_buff *skb;
	u64 h[3];
	unsigned int i;

	fx->st.tag = tag_mask - 1;
	for (i = 0; i < 3; i++) {
		h[i] = nsl_park(&fx->st, fx->skb[i], OWNER_A, 54);
		KUNIT_ASSERT_NE(test, h[i], 0ULL);
	}
	KUNIT_EXPECT_EQ(test, h[0] >> 24, tag_mask);
	KUNIT_EXPECT_EQ(test, h[1] >> 24, 1ULL);
	KUNIT_EXPECT_EQ(test, h[2] >> 24, 2ULL);
	for (i = 0; i < 3; i++) {
		KUNIT_EXPECT_EQ(test, nsl_take(&fx->st, h[i], OWNER_A, &skb), 0);
		KUNIT_EXPECT_PTR_EQ(test, skb, fx->skb[i]);
	}
}

/*
 * A new payload goes at the ageing list's tail with no search: it is the
 * youngest, so one parked earlier still expires first.
 */
static void nsl_store_park_order_test(struct kunit *test)
{
	struct nsl_store_fixture *fx = test->priv;
	unsigned long timeout = msecs_to_jiffies(NSL_TEST_TIMEOUT_MS);
	struct sk_buff *skb;
	u64 h0, h1;

	h0 = nsl_park(&fx->st, fx->skb[0], OWNER_A, 54);
	KUNIT_ASSERT_NE(test, h0, 0ULL);
	/* h0 as if parked two timeouts ago. */
	fx->st.slots[h0 & 0xffff].parked_at = jiffies - 2 * timeout;
	h1 = nsl_park(&fx->st, fx->skb[1], OWNER_A, 54);
	KUNIT_ASSERT_NE(test, h1, 0ULL);
	nsl_store_expire(&fx->st, jiffies);
	KUNIT_EXPECT_EQ(test, fx->st.aged, 1ULL);
	KUNIT_EXPECT_EQ(test, nsl_take(&fx->st, h0, OWNER_A, &skb), NETSLICE_TXERR_STALE);
	KUNIT_EXPECT_EQ(test, nsl_take(&fx->st, h1, OWNER_A, &skb), 0);
}

/*
 * A run's sent frames free their slots in one call: exactly those, and
 * every slot it frees can be parked in again.
 */
static void nsl_store_finish_many_test(struct kunit *test)
{
	struct nsl_store_fixture *fx = test->priv;
	struct sk_buff *skb[3];
	unsigned int i, off;
	u64 h[3], sent[2];

	for (i = 0; i < 3; i++) {
		h[i] = nsl_park(&fx->st, fx->skb[i], OWNER_A, 54);
		KUNIT_ASSERT_NE(test, h[i], 0ULL);
		KUNIT_ASSERT_EQ(test, nsl_store_claim(&fx->st, h[i], OWNER_A, &skb[i], &off), 0);
	}
	/* The middle frame found the queue stopped: parked again. */
	nsl_store_unclaim(&fx->st, h[1], 54);
	sent[0] = h[0];
	sent[1] = h[2];
	nsl_store_finish_many(&fx->st, sent, 2);
	kfree_skb(skb[0]);
	kfree_skb(skb[2]);
	KUNIT_EXPECT_EQ(test, fx->st.used, 1U);
	KUNIT_EXPECT_EQ(test, nsl_take(&fx->st, h[0], OWNER_A, &skb[0]), NETSLICE_TXERR_STALE);
	KUNIT_EXPECT_EQ(test, nsl_take(&fx->st, h[2], OWNER_A, &skb[0]), NETSLICE_TXERR_STALE);
	/* Three slots free again (of 4): three parks fit, a fourth does not. */
	for (i = 0; i < 3; i++)
		KUNIT_EXPECT_NE(test, nsl_park(&fx->st, fx->skb[3 + i], OWNER_A, 54), 0ULL);
	KUNIT_EXPECT_EQ(test, nsl_park(&fx->st, fx->skb[6], OWNER_A, 54), 0ULL);
	KUNIT_EXPECT_EQ(test, nsl_take(&fx->st, h[1], OWNER_A, &skb[1]), 0);
	KUNIT_EXPECT_PTR_EQ(test, skb[1], fx->skb[1]);
}

/* A writer that claims and gives back does not keep a payload young. */
static void nsl_store_unclaim_ages_test(struct kunit *test)
{
	struct nsl_store_fixture *fx = test->priv;
	unsigned long timeout = msecs_to_jiffies(NSL_TEST_TIMEOUT_MS);
	struct sk_buff *skb;
	unsigned int off;
	u64 h0, h1;

	h0 = nsl_park(&fx->st, fx->skb[0], OWNER_A, 54);
	h1 = nsl_park(&fx->st, fx->skb[1], OWNER_A, 54);
	KUNIT_ASSERT_NE(test, h0, 0ULL);
	KUNIT_ASSERT_NE(test, h1, 0ULL);
	/* h1 as if parked later than the test's end. */
	fx->st.slots[h1 & 0xffff].parked_at = jiffies + 2 * timeout;
	/* h0 claimed and given back: still as old as when it was parked. */
	KUNIT_ASSERT_EQ(test, nsl_store_claim(&fx->st, h0, OWNER_A, &skb, &off), 0);
	nsl_store_unclaim(&fx->st, h0, off);
	nsl_store_expire(&fx->st, jiffies + timeout);
	KUNIT_EXPECT_EQ(test, fx->st.aged, 1ULL);
	KUNIT_EXPECT_EQ(test, nsl_take(&fx->st, h0, OWNER_A, &skb), NETSLICE_TXERR_STALE);
	KUNIT_EXPECT_EQ(test, nsl_take(&fx->st, h1, OWNER_A, &skb), 0);
}

static void nsl_store_release_test(struct kunit *test)
{
	struct nsl_store_fixture *fx = test->priv;
	struct sk_buff *skb;
	u64 a0, a1, b0;

	a0 = nsl_park(&fx->st, fx->skb[0], OWNER_A, 54);
	b0 = nsl_park(&fx->st, fx->skb[1], OWNER_B, 54);
	a1 = nsl_park(&fx->st, fx->skb[2], OWNER_A, 54);

	nsl_store_release(&fx->st, OWNER_A);
	KUNIT_EXPECT_EQ(test, fx->st.closed, 2ULL);
	KUNIT_EXPECT_EQ(test, fx->st.used, 1U);
	KUNIT_EXPECT_EQ(test, refcount_read(&fx->skb[0]->users), 1U);
	KUNIT_EXPECT_EQ(test, refcount_read(&fx->skb[2]->users), 1U);
	KUNIT_EXPECT_EQ(test, nsl_take(&fx->st, a0, OWNER_A, &skb), NETSLICE_TXERR_STALE);
	KUNIT_EXPECT_EQ(test, nsl_take(&fx->st, a1, OWNER_A, &skb), NETSLICE_TXERR_STALE);
	KUNIT_EXPECT_EQ(test, nsl_take(&fx->st, b0, OWNER_B, &skb), 0);
	KUNIT_EXPECT_PTR_EQ(test, skb, fx->skb[1]);
}

/* Destroy frees what is still parked (module unload). */
static void nsl_store_destroy_test(struct kunit *test)
{
	struct nsl_store_fixture *fx = test->priv;

	KUNIT_ASSERT_NE(test, nsl_park(&fx->st, fx->skb[5], OWNER_A, 54), 0ULL);
	KUNIT_EXPECT_EQ(test, refcount_read(&fx->skb[5]->users), 2U);
	nsl_store_destroy(&fx->st);
	KUNIT_EXPECT_EQ(test, refcount_read(&fx->skb[5]->users), 1U);
	/* The exit handler destroys it again: leave it a valid empty store. */
	KUNIT_ASSERT_EQ(test, nsl_store_init(&fx->st, NSL_TEST_SLICE, 4, NSL_TEST_TIMEOUT_MS), 0);
}

/*
 * Resized with payloads parked and one claimed: every handle keeps its
 * payload, ageing keeps its order, and a store smaller than a busy slot
 * is refused until that slot is free.
 */
static void nsl_store_resize_test(struct kunit *test)
{
	struct nsl_store_fixture *fx = test->priv;
	struct sk_buff *skb;
	unsigned int off, i;
	u64 h[4];

	for (i = 0; i < 4; i++) {
		h[i] = nsl_park(&fx->st, fx->skb[i], OWNER_A, 40 + i);
		KUNIT_ASSERT_NE(test, h[i], 0ULL);
	}
	KUNIT_ASSERT_EQ(test, nsl_store_claim(&fx->st, h[1], OWNER_A, &skb, &off), 0);
	/* Full at 4; grown to 8, four more fit. */
	KUNIT_EXPECT_EQ(test, nsl_park(&fx->st, fx->skb[4], OWNER_A, 0), 0ULL);
	KUNIT_ASSERT_EQ(test, nsl_store_resize(&fx->st, 8), 0);
	KUNIT_EXPECT_EQ(test, fx->st.capacity, 8U);
	nsl_store_unclaim(&fx->st, h[1], 41);
	for (i = 0; i < 4; i++) {
		KUNIT_ASSERT_EQ(test, nsl_store_claim(&fx->st, h[i], OWNER_A, &skb, &off), 0);
		KUNIT_EXPECT_PTR_EQ(test, skb, fx->skb[i]);
		KUNIT_EXPECT_EQ(test, off, 40U + i);
		nsl_store_unclaim(&fx->st, h[i], off);
	}
	KUNIT_EXPECT_NE(test, nsl_park(&fx->st, fx->skb[4], OWNER_A, 0), 0ULL);
	/* Slots 3 and 4 hold payloads: 3 slots is too few until they are taken. */
	KUNIT_EXPECT_EQ(test, nsl_store_resize(&fx->st, 3), -EBUSY);
	KUNIT_EXPECT_EQ(test, fx->st.capacity, 8U);
	KUNIT_EXPECT_EQ(test, nsl_take(&fx->st, h[3], OWNER_A, &skb), 0);
	KUNIT_EXPECT_EQ(test, nsl_store_resize(&fx->st, 3), -EBUSY);
	nsl_store_release(&fx->st, OWNER_A);
	KUNIT_EXPECT_EQ(test, nsl_store_resize(&fx->st, 3), 0);
	KUNIT_EXPECT_EQ(test, fx->st.used, 0U);
	/* The free list holds exactly the three slots: three park, the fourth does not. */
	for (i = 0; i < 3; i++)
		KUNIT_EXPECT_NE(test, nsl_park(&fx->st, fx->skb[i], OWNER_B, 0), 0ULL);
	KUNIT_EXPECT_EQ(test, nsl_park(&fx->st, fx->skb[3], OWNER_B, 0), 0ULL);
	KUNIT_EXPECT_EQ(test, nsl_store_resize(&fx->st, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, nsl_store_resize(&fx->st, NSL_STORE_MAX_SIZE + 1), -EINVAL);
}

static struct kunit_case nsl_store_test_cases[] = {
	KUNIT_CASE(nsl_store_resize_test),
	KUNIT_CASE(nsl_store_park_claim_test),
	KUNIT_CASE(nsl_store_bad_handle_test),
	KUNIT_CASE(nsl_store_full_test),
	KUNIT_CASE(nsl_store_ageing_test),
	KUNIT_CASE(nsl_store_reuse_test),
	KUNIT_CASE(nsl_store_tag_wrap_test),
	KUNIT_CASE(nsl_store_park_order_test),
	KUNIT_CASE(nsl_store_finish_many_test),
	KUNIT_CASE(nsl_store_unclaim_ages_test),
	KUNIT_CASE(nsl_store_release_test),
	KUNIT_CASE(nsl_store_destroy_test),
	{}
};

static struct kunit_suite nsl_store_suite = {
	.name = "netslice_store",
	.init = nsl_store_test_init,
	.exit = nsl_store_test_exit,
	.test_cases = nsl_store_test_cases,
};

kunit_test_suite(nsl_store_suite);
