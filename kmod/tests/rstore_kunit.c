// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: a ring's payload store (rstore.c). Park, claim, unclaim and
 * finish; handles forged, stale, foreign and claimed twice; a full store;
 * ageing, over ranges of slots too; the counters; and a producer and a
 * consumer on two threads (a writer on another CPU than RX's) handing
 * thousands of payloads over.
 */
#include <kunit/test.h>
#include <linux/delay.h>
#include <linux/kthread.h>
#include <linux/mutex.h>
#include <linux/skbuff.h>
#include <linux/spinlock.h>

#include "../compat.h"
#include "../rstore.h"
#include "../store.h"
#include "kunit_util.h"

nsl_kunit_import_ns();

#define NSL_TEST_SLICE	5
#define NSL_TEST_SLOTS	4

struct nsl_rstore_fixture {
	struct nsl_rstore rs;
	spinlock_t prod_lock;		/* stands in for a ring's rx_lock */
	struct mutex cons_lock;		/* and for its tx_lock */
	struct sk_buff *skb[8];
};

static int nsl_rstore_test_init(struct kunit *test)
{
	struct nsl_rstore_fixture *fx;

	fx = kunit_kzalloc(test, sizeof(*fx), GFP_KERNEL);
	if (!fx)
		return -ENOMEM;
	spin_lock_init(&fx->prod_lock);
	mutex_init(&fx->cons_lock);
	if (nsl_rstore_init(&fx->rs, NSL_TEST_SLICE, NSL_TEST_SLOTS, &fx->prod_lock,
			    &fx->cons_lock))
		return -ENOMEM;
	nsl_test_skbs(test, fx->skb, ARRAY_SIZE(fx->skb));
	test->priv = fx;
	return 0;
}

static void nsl_rstore_test_exit(struct kunit *test)
{
	struct nsl_rstore_fixture *fx = test->priv;

	nsl_rstore_destroy(&fx->rs);
	nsl_test_skbs_free(fx->skb, ARRAY_SIZE(fx->skb));
}

/* Park a reference of skb, as RX does under its lock; 0 when full. */
static u64 nsl_rpark(struct nsl_rstore_fixture *fx, struct sk_buff *skb, unsigned int off)
{
	u64 h;

	spin_lock_bh(&fx->prod_lock);
	h = nsl_rstore_park(&fx->rs, skb_get(skb), off);
	spin_unlock_bh(&fx->prod_lock);
	if (!h)
		kfree_skb(skb);
	return h;
}

/* Claim a handle and, if that worked, free its slot: as a sent frame does. */
static int nsl_rtake(struct nsl_rstore_fixture *fx, u64 handle)
{
	struct sk_buff *skb;
	unsigned int off;
	int err;

	mutex_lock(&fx->cons_lock);
	err = nsl_rstore_claim(&fx->rs, handle, &skb, &off);
	if (!err) {
		nsl_rstore_finish(&fx->rs, handle);
		kfree_skb(skb);
	}
	mutex_unlock(&fx->cons_lock);
	return err;
}

static void nsl_rstore_park_claim_test(struct kunit *test)
{
	struct nsl_rstore_fixture *fx = test->priv;
	struct sk_buff *skb;
	unsigned int off;
	u64 h;

	h = nsl_rpark(fx, fx->skb[0], 54);
	KUNIT_ASSERT_NE(test, h, 0ULL);
	KUNIT_EXPECT_TRUE(test, h & NSL_HANDLE_RING);
	KUNIT_EXPECT_EQ(test, nsl_handle_slice(h), NSL_TEST_SLICE);
	KUNIT_EXPECT_EQ(test, refcount_read(&fx->skb[0]->users), 2U);
	KUNIT_EXPECT_EQ(test, nsl_rstore_used(&fx->rs), 1U);
	KUNIT_EXPECT_EQ(test, nsl_rstore_parks(&fx->rs), 1ULL);

	mutex_lock(&fx->cons_lock);
	KUNIT_ASSERT_EQ(test, nsl_rstore_claim(&fx->rs, h, &skb, &off), 0);
	KUNIT_EXPECT_PTR_EQ(test, skb, fx->skb[0]);
	KUNIT_EXPECT_EQ(test, off, 54U);
	/* Claimed: a second iov with the same handle gets nothing. */
	KUNIT_EXPECT_EQ(test, nsl_rstore_claim(&fx->rs, h, &skb, &off), NETSLICE_TXERR_STALE);
	KUNIT_EXPECT_EQ(test, nsl_rstore_port(&fx->rs, h), 0U);
	/* A busy egress parks it again, under the same handle. */
	nsl_rstore_unclaim(&fx->rs, h, 58);
	KUNIT_ASSERT_EQ(test, nsl_rstore_claim(&fx->rs, h, &skb, &off), 0);
	KUNIT_EXPECT_EQ(test, off, 58U);
	nsl_rstore_finish(&fx->rs, h);
	mutex_unlock(&fx->cons_lock);
	kfree_skb(skb);
	KUNIT_EXPECT_EQ(test, refcount_read(&fx->skb[0]->users), 1U);
	KUNIT_EXPECT_EQ(test, nsl_rstore_used(&fx->rs), 0U);
	KUNIT_EXPECT_EQ(test, fx->rs.high_water, 1U);

	/* Used once: stale from now on. */
	KUNIT_EXPECT_EQ(test, nsl_rtake(fx, h), NETSLICE_TXERR_STALE);
}

static void nsl_rstore_bad_handle_test(struct kunit *test)
{
	struct nsl_rstore_fixture *fx = test->priv;
	u64 h, h2, tag;

	h = nsl_rpark(fx, fx->skb[0], 54);
	KUNIT_ASSERT_NE(test, h, 0ULL);
	tag = h >> NSL_HANDLE_TAG_SHIFT & NSL_HANDLE_TAG_MASK;

	/* Another slice's, and the slice store's (no ring bit): foreign. */
	KUNIT_EXPECT_EQ(test, nsl_rtake(fx, nsl_handle_make(NSL_TEST_SLICE + 1, 0, tag) |
					NSL_HANDLE_RING), NETSLICE_TXERR_FOREIGN);
	KUNIT_EXPECT_EQ(test, nsl_rtake(fx, h & ~NSL_HANDLE_RING), NETSLICE_TXERR_FOREIGN);
	/* A slot past the store, a tag never issued, a free slot: forged. */
	KUNIT_EXPECT_EQ(test, nsl_rtake(fx, nsl_handle_make(NSL_TEST_SLICE, NSL_TEST_SLOTS, tag) |
					NSL_HANDLE_RING), NETSLICE_TXERR_FORGED);
	KUNIT_EXPECT_EQ(test, nsl_rtake(fx, nsl_handle_make(NSL_TEST_SLICE, nsl_handle_slot(h),
							    tag ^ 1) | NSL_HANDLE_RING),
			NETSLICE_TXERR_FORGED);
	h2 = nsl_handle_make(NSL_TEST_SLICE, (nsl_handle_slot(h) + 1) % NSL_TEST_SLOTS, tag);
	KUNIT_EXPECT_EQ(test, nsl_rtake(fx, h2 | NSL_HANDLE_RING), NETSLICE_TXERR_FORGED);
	/* None of that touched the real one. */
	KUNIT_EXPECT_EQ(test, nsl_rtake(fx, h), 0);
	KUNIT_EXPECT_EQ(test, nsl_rtake(fx, h), NETSLICE_TXERR_STALE);
}

/*
 * Full: nothing parks (the caller delivers whole) until the consumer frees
 * a slot, which is reused last: a stale handle stays stale for longest.
 */
static void nsl_rstore_full_test(struct kunit *test)
{
	struct nsl_rstore_fixture *fx = test->priv;
	u64 h[NSL_TEST_SLOTS], again;
	unsigned int i;

	for (i = 0; i < NSL_TEST_SLOTS; i++) {
		h[i] = nsl_rpark(fx, fx->skb[i], 10);
		KUNIT_ASSERT_NE(test, h[i], 0ULL);
	}
	KUNIT_EXPECT_EQ(test, nsl_rpark(fx, fx->skb[4], 10), 0ULL);
	KUNIT_EXPECT_EQ(test, refcount_read(&fx->skb[4]->users), 1U);
	KUNIT_EXPECT_EQ(test, fx->rs.high_water, NSL_TEST_SLOTS);

	KUNIT_EXPECT_EQ(test, nsl_rtake(fx, h[1]), 0);
	again = nsl_rpark(fx, fx->skb[4], 10);
	KUNIT_ASSERT_NE(test, again, 0ULL);
	KUNIT_EXPECT_EQ(test, nsl_handle_slot(again), nsl_handle_slot(h[1]));
	KUNIT_EXPECT_EQ(test, nsl_rtake(fx, h[1]), NETSLICE_TXERR_STALE);
	KUNIT_EXPECT_EQ(test, nsl_rtake(fx, again), 0);
	/* Free slots come back oldest first: h[0]'s went after h[1]'s, ... */
	KUNIT_EXPECT_EQ(test, nsl_rtake(fx, h[0]), 0);
	KUNIT_EXPECT_EQ(test, nsl_handle_slot(nsl_rpark(fx, fx->skb[5], 10)),
			nsl_handle_slot(again));
	KUNIT_EXPECT_EQ(test, nsl_rstore_used(&fx->rs), NSL_TEST_SLOTS - 1);
	KUNIT_EXPECT_EQ(test, nsl_rstore_destroy(&fx->rs), (u64)NSL_TEST_SLOTS - 1);
	for (i = 0; i < ARRAY_SIZE(fx->skb); i++)
		KUNIT_EXPECT_EQ(test, refcount_read(&fx->skb[i]->users), 1U);
}

/* Ageing frees what is due, claimed or not before; next is the oldest's. */
static void nsl_rstore_ageing_test(struct kunit *test)
{
	struct nsl_rstore_fixture *fx = test->priv;
	const unsigned long timeout = 800;
	unsigned long now, next = 0;
	struct sk_buff *skb;
	unsigned int off;
	u64 h[3], aged = 0;
	bool parked;
	int i;

	for (i = 0; i < 3; i++) {
		h[i] = nsl_rpark(fx, fx->skb[i], 10);
		KUNIT_ASSERT_NE(test, h[i], 0ULL);
	}
	now = jiffies;
	fx->rs.slots[nsl_handle_slot(h[0])].parked_at = now - timeout;
	fx->rs.slots[nsl_handle_slot(h[1])].parked_at = now - timeout / 2;
	fx->rs.slots[nsl_handle_slot(h[2])].parked_at = now - 10;

	mutex_lock(&fx->cons_lock);
	/* Claimed and given back: it ages from when it was parked. */
	KUNIT_ASSERT_EQ(test, nsl_rstore_claim(&fx->rs, h[0], &skb, &off), 0);
	nsl_rstore_unclaim(&fx->rs, h[0], 10);
	mutex_unlock(&fx->cons_lock);
	/* The ageing takes the consumer's lock itself. */
	parked = nsl_rstore_expire(&fx->rs, now, timeout, &next, &aged);
	KUNIT_EXPECT_TRUE(test, parked);
	KUNIT_EXPECT_EQ(test, aged, 1ULL);
	KUNIT_EXPECT_EQ(test, next, now + timeout / 2);
	KUNIT_EXPECT_EQ(test, nsl_rtake(fx, h[0]), NETSLICE_TXERR_STALE);
	KUNIT_EXPECT_EQ(test, refcount_read(&fx->skb[0]->users), 1U);

	/* Due one by one: not looked at again sooner than timeout / 8. */
	fx->rs.slots[nsl_handle_slot(h[1])].parked_at = now - timeout + 1;
	parked = nsl_rstore_expire(&fx->rs, now, timeout, &next, &aged);
	KUNIT_EXPECT_TRUE(test, parked);
	KUNIT_EXPECT_EQ(test, next, now + timeout / 8);

	parked = nsl_rstore_expire(&fx->rs, now + timeout, timeout, &next, &aged);
	KUNIT_EXPECT_FALSE(test, parked);
	KUNIT_EXPECT_EQ(test, aged, 3ULL);
	KUNIT_EXPECT_EQ(test, nsl_rstore_used(&fx->rs), 0U);
	for (i = 0; i < 3; i++)
		KUNIT_EXPECT_EQ(test, refcount_read(&fx->skb[i]->users), 1U);
}

/*
 * A store of more than one ageing range (the lock is let go between
 * them): payloads due in the first and last ranges and one between go,
 * and the soonest still parked is in the last.
 */
#define NSL_AGE_RANGES_SLOTS	(2 * NSL_RSTORE_AGE_SLOTS + 5)

static void nsl_rstore_ageing_ranges_test(struct kunit *test)
{
	static const u32 due_slots[] = { 0, NSL_RSTORE_AGE_SLOTS + 6, NSL_AGE_RANGES_SLOTS - 2 };
	struct nsl_rstore_fixture *fx = test->priv;
	unsigned long timeout = 10000, now, next = 0;
	u64 h, aged = 0;
	u32 i;

	nsl_rstore_destroy(&fx->rs);
	KUNIT_ASSERT_EQ(test, nsl_rstore_init(&fx->rs, NSL_TEST_SLICE, NSL_AGE_RANGES_SLOTS,
					      &fx->prod_lock, &fx->cons_lock), 0);
	now = jiffies;
	for (i = 0; i < NSL_AGE_RANGES_SLOTS; i++) {
		h = nsl_rpark(fx, fx->skb[i % 8], 10);
		KUNIT_ASSERT_NE(test, h, 0ULL);
		fx->rs.slots[nsl_handle_slot(h)].parked_at = now - 10;
	}
	for (i = 0; i < ARRAY_SIZE(due_slots); i++)
		fx->rs.slots[due_slots[i]].parked_at = now - timeout;
	fx->rs.slots[NSL_AGE_RANGES_SLOTS - 1].parked_at = now - timeout + 2000;

	KUNIT_EXPECT_TRUE(test, nsl_rstore_expire(&fx->rs, now, timeout, &next, &aged));
	KUNIT_EXPECT_EQ(test, aged, (u64)ARRAY_SIZE(due_slots));
	KUNIT_EXPECT_EQ(test, next, now + 2000);
	KUNIT_EXPECT_EQ(test, nsl_rstore_used(&fx->rs),
			NSL_AGE_RANGES_SLOTS - (u32)ARRAY_SIZE(due_slots));
	KUNIT_EXPECT_FALSE(test, mutex_is_locked(&fx->cons_lock));

	KUNIT_EXPECT_FALSE(test, nsl_rstore_expire(&fx->rs, now + timeout, timeout, &next, &aged));
	KUNIT_EXPECT_EQ(test, aged, (u64)NSL_AGE_RANGES_SLOTS);
	for (i = 0; i < 8; i++)
		KUNIT_EXPECT_EQ(test, refcount_read(&fx->skb[i]->users), 1U);
}

/* The tag is a count that skips 0; a ring's handles all carry the ring bit. */
static void nsl_rstore_tag_wrap_test(struct kunit *test)
{
	struct nsl_rstore_fixture *fx = test->priv;
	u64 h[3];
	int i;

	fx->rs.tag = NSL_HANDLE_TAG_MASK - 1;
	for (i = 0; i < 3; i++) {
		h[i] = nsl_rpark(fx, fx->skb[i], 10);
		KUNIT_ASSERT_NE(test, h[i], 0ULL);
		KUNIT_EXPECT_TRUE(test, h[i] & NSL_HANDLE_RING);
	}
	KUNIT_EXPECT_EQ(test, h[0] >> NSL_HANDLE_TAG_SHIFT & NSL_HANDLE_TAG_MASK,
			NSL_HANDLE_TAG_MASK);
	KUNIT_EXPECT_EQ(test, h[1] >> NSL_HANDLE_TAG_SHIFT & NSL_HANDLE_TAG_MASK, 1ULL);
	for (i = 0; i < 3; i++)
		KUNIT_EXPECT_EQ(test, nsl_rtake(fx, h[i]), 0);
}

/*
 * Two threads: RX parks on one, the writer claims on the other. Each
 * sleeps a little when it must wait for the other (one CPU under UML),
 * so slots go over in runs of up to the store's size.
 */
#define NSL_HANDOFF_COUNT	20000
#define NSL_HANDOFF_SLOTS	64

struct nsl_handoff {
	struct nsl_rstore_fixture *fx;
	u64 handle[NSL_HANDOFF_COUNT];
	u32 produced;			/* store-release: handle[] before it */
	u32 full;			/* parks the full store refused */
	struct completion done;
};

static int nsl_handoff_producer(void *arg)
{
	struct nsl_handoff *ho = arg;
	u32 i;
	u64 h;

	for (i = 0; i < NSL_HANDOFF_COUNT; i++) {
		while (!(h = nsl_rpark(ho->fx, ho->fx->skb[i % 8], i % 64))) {
			ho->full++;
			usleep_range(10, 20);
		}
		ho->handle[i] = h;
		/* The handle before the count that shows it to the consumer. */
		smp_store_release(&ho->produced, i + 1);
	}
	complete(&ho->done);
	return 0;
}

static void nsl_rstore_two_threads_test(struct kunit *test)
{
	struct nsl_rstore_fixture *fx = test->priv;
	struct task_struct *producer;
	struct nsl_handoff *ho;
	struct sk_buff *skb;
	unsigned int off;
	u32 i, bad = 0;

	ho = kunit_kzalloc(test, sizeof(*ho), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ho);
	ho->fx = fx;
	init_completion(&ho->done);
	nsl_rstore_destroy(&fx->rs);
	KUNIT_ASSERT_EQ(test, nsl_rstore_init(&fx->rs, NSL_TEST_SLICE, NSL_HANDOFF_SLOTS,
					      &fx->prod_lock, &fx->cons_lock), 0);
	producer = kthread_run(nsl_handoff_producer, ho, "nsl-rstore-prod");
	KUNIT_ASSERT_FALSE(test, IS_ERR(producer));

	for (i = 0; i < NSL_HANDOFF_COUNT; i++) {
		/* Pairs with the producer's release: handle[i] is written. */
		while (smp_load_acquire(&ho->produced) <= i)
			usleep_range(10, 20);
		mutex_lock(&fx->cons_lock);
		if (nsl_rstore_claim(&fx->rs, ho->handle[i], &skb, &off) ||
		    skb != fx->skb[i % 8] || off != i % 64) {
			bad++;
		} else {
			/* Every other one goes back and is claimed again first. */
			if (i & 1) {
				nsl_rstore_unclaim(&fx->rs, ho->handle[i], off);
				bad += !!nsl_rstore_claim(&fx->rs, ho->handle[i], &skb, &off);
			}
			nsl_rstore_finish(&fx->rs, ho->handle[i]);
			kfree_skb(skb);
		}
		/* Used once: the slot may be parked in again, the handle is gone. */
		bad += nsl_rstore_claim(&fx->rs, ho->handle[i], &skb, &off) == NSL_TXERR_NONE;
		mutex_unlock(&fx->cons_lock);
	}
	wait_for_completion(&ho->done);
	KUNIT_EXPECT_EQ(test, bad, 0U);
	KUNIT_EXPECT_EQ(test, nsl_rstore_used(&fx->rs), 0U);
	KUNIT_EXPECT_EQ(test, nsl_rstore_parks(&fx->rs), (u64)NSL_HANDOFF_COUNT);
	KUNIT_EXPECT_LE(test, fx->rs.high_water, NSL_HANDOFF_SLOTS);
	for (i = 0; i < ARRAY_SIZE(fx->skb); i++)
		KUNIT_EXPECT_EQ(test, refcount_read(&fx->skb[i]->users), 1U);
	kunit_info(test, "%u parks waited for a free slot\n", ho->full);
}

static struct kunit_case nsl_rstore_test_cases[] = {
	KUNIT_CASE(nsl_rstore_park_claim_test),
	KUNIT_CASE(nsl_rstore_bad_handle_test),
	KUNIT_CASE(nsl_rstore_full_test),
	KUNIT_CASE(nsl_rstore_ageing_test),
	KUNIT_CASE(nsl_rstore_ageing_ranges_test),
	KUNIT_CASE(nsl_rstore_tag_wrap_test),
	KUNIT_CASE(nsl_rstore_two_threads_test),
	{}
};

static struct kunit_suite nsl_rstore_suite = {
	.name = "netslice_rstore",
	.init = nsl_rstore_test_init,
	.exit = nsl_rstore_test_exit,
	.test_cases = nsl_rstore_test_cases,
};

kunit_test_suite(nsl_rstore_suite);
