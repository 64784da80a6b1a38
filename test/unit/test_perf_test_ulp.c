/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The raw-PDS test ULP's receive record (apps/uet-perf/test_ulp.c)
 * without an engine: deliveries built by a sending test ULP and handed
 * to the receiver by hand; uet_ulp_max_len / uet_ulp_now are wrapped,
 * and so are calloc / realloc, to see how much the record takes.
 */

#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "perf.h"
#include "perf_ulp_wrap.h"

/* never dereferenced: every use of the context is wrapped */
static struct uet_ulp_ctx *const ctx =
	(struct uet_ulp_ctx *)&perf_wrap_alloc_max;

/* A test ULP of messages of @p size bytes: sender of @p count, receiver
 * of @p expect. */
static struct test_ulp *
side(uint32_t size, uint64_t count, uint64_t expect)
{
	struct test_ulp_params p = {
		.mode = UET_PDS_MODE_RUD, .size = size, .count = count,
		.window = 1, .expect = expect, .expect_size = size,
	};
	struct test_ulp *r = test_ulp_create(&p);
	void *priv = NULL;

	assert_non_null(r);
	assert_int_equal(test_ulp_ops.init(ctx, r, &priv), 0);
	return r;
}

/* Deliver packet @p k of message @p seq, built by @p tx, to @p rx. */
static void
deliver(struct test_ulp *tx, struct test_ulp *rx, uint64_t seq, uint32_t k)
{
	uint32_t ppm = test_ulp_pkts_per_msg(test_ulp_params(tx)->size,
					     PERF_WRAP_MAX_LEN);
	struct uet_pds_event ev = {
		.type = UET_PDS_EV_DELIVER, .mode = UET_PDS_MODE_RUD,
		.next_hdr = ppm == 1 ? UET_SES_FMT_SMALL : UET_SES_FMT_STD,
	};
	uint8_t buf[2048];
	int n = test_ulp_ops.build(tx, seq * ppm + k, 0, false, buf,
				   sizeof(buf));

	assert_true(n > 0);
	test_ulp_ops.event(rx, ctx, &ev, buf, (uint16_t)n);
}

/* A --duration run expects PERF_MAX_COUNT messages: the record is not
 * allocated for all of them up front (it was: 10^8 x 3 packets + 10^8
 * counters, 500 MB here) but grows as they arrive, and still tells
 * duplicates, complete messages and losses apart across its growth. */
static void
test_ulp_init__record_grows_with_arrivals(void **state)
{
	const uint32_t size = 4000; /* 3 packets at PERF_WRAP_MAX_LEN */
	struct test_ulp *tx, *rx;
	struct test_ulp_result res;
	uint64_t far = 1000000;

	(void)state;
	assert_int_equal(test_ulp_pkts_per_msg(size, PERF_WRAP_MAX_LEN), 3);
	tx = side(size, PERF_MAX_COUNT, 0);
	perf_wrap_alloc_max = 0;
	rx = side(size, 0, PERF_MAX_COUNT);
	assert_true(perf_wrap_alloc_max <= 64 * 1024);
	for (uint32_t k = 0; k < 3; k++)
		deliver(tx, rx, 0, k);
	deliver(tx, rx, 5000, 1);     /* past the first allocation */
	deliver(tx, rx, 5000, 1);     /* its duplicate */
	deliver(tx, rx, 5000, 0);
	deliver(tx, rx, 5000, 2);
	for (uint32_t k = 0; k < 3; k++)
		deliver(tx, rx, far, k);
	deliver(tx, rx, 7, 2);        /* below the grown end: kept */
	/* 3 packet counts and one message count for each message up to
	 * the last one arrived */
	assert_true(perf_wrap_alloc_max <= (far + 1) * 3);
	test_ulp_result(rx, &res);
	assert_int_equal(res.rx_msgs, 3);
	assert_int_equal(res.rx_dup, 1);
	assert_int_equal(res.rx_bad, 0);
	assert_int_equal(res.rx_pkts, 11);
	assert_int_equal(res.rx_bytes, 3 * size + size / 3);
	/* the sender says it sent far + 1 messages: every packet of them
	 * not delivered is lost, whether the record reached it or not */
	test_ulp_expect_trim(rx, far + 1);
	test_ulp_result(rx, &res);
	assert_int_equal(res.rx_lost, (far + 1) * 3 - 10);
	test_ulp_free(rx);
	test_ulp_free(tx);
}

/* A message past the expected count is refused, not recorded. */
static void
test_ulp_init__record_bounded_by_expect(void **state)
{
	struct test_ulp *tx = side(64, 100, 0), *rx = side(64, 0, 10);
	struct test_ulp_result res;

	(void)state;
	deliver(tx, rx, 9, 0);
	deliver(tx, rx, 10, 0);
	test_ulp_result(rx, &res);
	assert_int_equal(res.rx_msgs, 1);
	assert_int_equal(res.rx_bad, 1);
	assert_int_equal(res.rx_lost, 9);
	test_ulp_free(rx);
	test_ulp_free(tx);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ulp_init__record_grows_with_arrivals),
		cmocka_unit_test(test_ulp_init__record_bounded_by_expect),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
