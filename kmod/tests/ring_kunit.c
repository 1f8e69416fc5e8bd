// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: when ring mode's RX wakes the process (nsl_ring_rx_wake_due_at()).
 * A burst must wake a sleeper once; a process that emptied the ring while
 * one RX call was still publishing must be woken (test_gso.sh's store of
 * 2 stalled for good when only the call's first entry counted); and one
 * that released everything it was woken for must be woken by the next
 * call, even if an entry came before its release was seen (an
 * edge-triggered reader slept for good when only the call's own entries
 * counted).
 */
#include <kunit/test.h>

#include "../ring.h"

struct nsl_wake_case {
	const char *name;
	u32 woken, prod_before, prod, cons;
	bool due;
};

static const struct nsl_wake_case nsl_wake_cases[] = {
	{ "nothing published", 100, 100, 100, 100, false },
	{ "one entry to an emptied ring", 100, 100, 101, 100, true },
	{ "one entry while older ones wait", 100, 100, 101, 97, false },
	{ "segments to an emptied ring", 100, 100, 145, 100, true },
	{ "emptied while the call published its segments", 11709, 11709, 11717, 11716, true },
	{ "all of the call's entries consumed already", 100, 100, 145, 145, true },
	{ "segments while older ones wait", 100, 100, 145, 99, false },
	{ "emptied across the wrap of the index", 0xfffffffe, 0xfffffffe, 3, 1, true },
	{ "older ones wait across the wrap", 0xfffffffe, 0xfffffffe, 3, 0xfffffffd, false },
	{ "a consumer index past the producer", 100, 100, 102, 200, false },
	{ "released all it was woken for, one more came before", 101, 102, 105, 101, true },
	{ "released all it was woken for, across the wrap", 0xffffffff, 1, 4, 0xffffffff, true },
	{ "still holds entries it was woken for", 110, 112, 115, 105, false },
	{ "nothing new since it released", 101, 102, 102, 101, false },
};

static void nsl_wake_case_desc(const struct nsl_wake_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(nsl_wake, nsl_wake_cases, nsl_wake_case_desc);

static void nsl_wake_test(struct kunit *test)
{
	const struct nsl_wake_case *c = test->param_value;

	KUNIT_EXPECT_EQ(test, nsl_ring_rx_wake_due_at(c->woken, c->prod_before, c->prod, c->cons),
			c->due);
}

static struct kunit_case nsl_ring_test_cases[] = {
	KUNIT_CASE_PARAM(nsl_wake_test, nsl_wake_gen_params),
	{}
};

static struct kunit_suite nsl_ring_suite = {
	.name = "netslice_ring",
	.test_cases = nsl_ring_test_cases,
};

kunit_test_suite(nsl_ring_suite);
