/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * uet-perf's latency mode (apps/uet-perf/latency.c) over the raw-PDS test
 * ULP (test_ulp.c) without an engine: the mode's ping and echo engines as
 * its raw_traffic() picks them; uet_ulp_submit / uet_ulp_max_len /
 * uet_ulp_now and rte_get_tsc_hz are wrapped (-Wl,--wrap), submissions
 * are recorded, completions and deliveries are driven by hand in the
 * orders a loaded host produces.
 */

#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <string.h>

#include <cmocka.h>

#include "perf.h"
#include "perf_ulp_wrap.h"

extern const struct perf_mode perf_mode_latency;

#define MAX_SUB 16

static uint64_t sub_cookie[MAX_SUB];
static unsigned int nb_sub;

int __wrap_uet_ulp_submit(struct uet_ulp_ctx *ctx,
			  const struct uet_pds_submit *q);
uint64_t __wrap_rte_get_tsc_hz(void);

int
__wrap_uet_ulp_submit(struct uet_ulp_ctx *ctx, const struct uet_pds_submit *q)
{
	(void)ctx;
	if (nb_sub == MAX_SUB)
		return -EAGAIN;
	sub_cookie[nb_sub++] = q->cookie;
	return 0;
}

uint64_t
__wrap_rte_get_tsc_hz(void)
{
	return 1000000000ull;
}

/* latency.c's printing and in-process topology are not under test */
const struct perf_topology perf_topology_pair;

void
perf_ses_print(const struct perf_report *r, FILE *f)
{
	(void)r;
	(void)f;
}

void
perf_wire_print(const struct perf_report *r, FILE *f)
{
	(void)r;
	(void)f;
}

void
perf_verified_print(const struct perf_report *r, FILE *f)
{
	(void)r;
	(void)f;
}

/* never dereferenced: every use of the context is wrapped */
static struct uet_ulp_ctx *const ctx = (struct uet_ulp_ctx *)&nb_sub;

/* The PDS completing submission @p cookie with @p status. */
static void
done(struct test_ulp *r, uint64_t cookie, int status)
{
	struct uet_pds_event ev = {
		.type = UET_PDS_EV_DONE, .mode = UET_PDS_MODE_RUD,
		.status = status, .cookie = cookie,
	};

	test_ulp_ops.event(r, ctx, &ev, NULL, 0);
}

/* A side of the latency test: 3 pings of @p size bytes, window @p win. */
static struct test_ulp *
pinger(uint32_t size, uint32_t win)
{
	struct test_ulp_params p = {
		.mode = UET_PDS_MODE_RUD, .size = size, .count = 3,
		.window = win,
	}, rx = { 0 };
	struct test_ulp *r;
	void *priv = NULL;

	perf_mode_latency.raw_traffic(&p, &rx);
	assert_int_equal(p.expect, 3);
	assert_int_equal(p.expect_size, size);
	r = test_ulp_create(&p);
	assert_non_null(r);
	assert_int_equal(test_ulp_ops.init(ctx, r, &priv), 0);
	assert_ptr_equal(priv, r);
	nb_sub = 0;
	return r;
}

/* The echoing side of the latency test, as raw_traffic() makes it. */
static struct test_ulp *
echoer(void)
{
	struct test_ulp_params tx = { .count = 3, .size = 64 }, ep = {
		.mode = UET_PDS_MODE_RUD, .size = 64, .window = 1,
		.expect = 3, .expect_size = 64,
	};
	struct test_ulp *echo;
	void *priv = NULL;

	perf_mode_latency.raw_traffic(&tx, &ep); /* the echoing engine */
	echo = test_ulp_create(&ep);
	assert_non_null(echo);
	assert_int_equal(test_ulp_ops.init(ctx, echo, &priv), 0);
	return echo;
}

/* Deliver the pong of message @p seq (64 B, one packet) to @p r, built
 * by @p echo. */
static void
pong_from(struct test_ulp *echo, struct test_ulp *r, uint64_t seq)
{
	struct uet_pds_event ev = {
		.type = UET_PDS_EV_DELIVER, .mode = UET_PDS_MODE_RUD,
		.next_hdr = UET_SES_FMT_SMALL,
	};
	uint8_t buf[256];
	int n = test_ulp_ops.build(echo, seq, 0, false, buf, sizeof(buf));

	assert_int_equal(n, UET_SES_SMALL_LEN + 64);
	test_ulp_ops.event(r, ctx, &ev, buf, (uint16_t)n);
}

/* Deliver the pong of message @p seq to @p r. */
static void
pong(struct test_ulp *r, uint64_t seq)
{
	struct test_ulp *echo = echoer();

	pong_from(echo, r, seq);
	test_ulp_free(echo);
}

/* The PDS gave up on the ping (its peer silent past the retries): no
 * pong is awaited, the next ping goes; the failed ping's pong, arriving
 * late after all, does not count as the next one's. */
static void
ping_failed__ends_wait(void **state)
{
	struct test_ulp *r = pinger(64, 8);
	struct test_ulp_result res;

	(void)state;
	test_ulp_ops.poll(r, ctx, 0);
	assert_int_equal(nb_sub, 1);
	done(r, sub_cookie[0], -ETIMEDOUT);
	test_ulp_ops.poll(r, ctx, 0);
	assert_int_equal(nb_sub, 2); /* before the fix: waited for pong 0 */
	assert_int_equal(sub_cookie[1], 1);
	pong(r, 0);                  /* late: ping 0's */
	test_ulp_result(r, &res);
	assert_int_equal(res.pongs, 0);
	done(r, sub_cookie[1], 0);
	pong(r, 1);
	test_ulp_ops.poll(r, ctx, 0);
	assert_int_equal(nb_sub, 3);
	done(r, sub_cookie[2], 0);
	assert_false(test_ulp_send_finished(r));
	pong(r, 2);
	assert_true(test_ulp_send_finished(r));
	test_ulp_result(r, &res);
	assert_int_equal(res.pongs, 2);
	assert_int_equal(res.pings_failed, 1);
	assert_int_equal(res.pkts_done_err, 1);
	assert_int_equal(res.rx_lost, 0);
	test_ulp_free(r);
}

/* A packet of a multi-packet ping fails while the rest still waits for
 * the window: the ping is finished, not awaited, counted once. */
static void
ping_failed__partial_ping_not_awaited(void **state)
{
	struct test_ulp *r = pinger(4000, 1);
	struct test_ulp_result res;
	uint32_t ppm = test_ulp_pkts_per_msg(4000, PERF_WRAP_MAX_LEN);

	(void)state;
	assert_true(ppm > 2);
	test_ulp_ops.poll(r, ctx, 0);
	assert_int_equal(nb_sub, 1);
	done(r, sub_cookie[0], -ETIMEDOUT);
	for (uint32_t k = 1; k < ppm; k++) {
		test_ulp_ops.poll(r, ctx, 0);
		assert_int_equal(nb_sub, k + 1);
		done(r, sub_cookie[k], k == 1 ? -ETIMEDOUT : 0);
	}
	test_ulp_ops.poll(r, ctx, 0); /* ping 1, no pong 0 awaited */
	assert_int_equal(nb_sub, ppm + 1);
	assert_int_equal(sub_cookie[ppm], ppm);
	test_ulp_result(r, &res);
	assert_int_equal(res.pings_failed, 1);
	assert_int_equal(res.pkts_done_err, 2);
	test_ulp_free(r);
}

/* A good run: every ping waits for its pong. */
static void
ping_send__waits_for_pong(void **state)
{
	struct test_ulp *r = pinger(64, 8);
	struct test_ulp_result res;

	(void)state;
	test_ulp_ops.poll(r, ctx, 0);
	done(r, sub_cookie[0], 0);
	test_ulp_ops.poll(r, ctx, 0);
	assert_int_equal(nb_sub, 1);
	pong(r, 0);
	test_ulp_ops.poll(r, ctx, 0);
	assert_int_equal(nb_sub, 2);
	test_ulp_result(r, &res);
	assert_int_equal(res.pongs, 1);
	assert_int_equal(res.pings_failed, 0);
	test_ulp_free(r);
}

/* A --duration run counts up to PERF_MAX_COUNT pings: the samples are
 * not allocated for all of them up front (400 MB, and 300 MB more for the
 * pongs' receive record: the test fails on the old code) but grow with
 * the round trips, each one recorded. */
static void
ping_init__samples_grow_with_round_trips(void **state)
{
	struct test_ulp_params p = {
		.mode = UET_PDS_MODE_RUD, .size = 64, .count = PERF_MAX_COUNT,
		.window = 8,
	}, rx = { 0 };
	struct test_ulp_result res;
	struct test_ulp *r, *echo = echoer();
	void *priv = NULL;
	const uint64_t n = 5000; /* past the first 4096 samples */

	(void)state;
	perf_mode_latency.raw_traffic(&p, &rx);
	perf_wrap_alloc_max = 0;
	r = test_ulp_create(&p);
	assert_non_null(r);
	assert_int_equal(test_ulp_ops.init(ctx, r, &priv), 0);
	assert_true(perf_wrap_alloc_max <= 64 * 1024);
	for (uint64_t seq = 0; seq < n; seq++) {
		nb_sub = 0;
		test_ulp_ops.poll(r, ctx, 0);
		assert_int_equal(nb_sub, 1);
		done(r, sub_cookie[0], 0);
		pong_from(echo, r, seq);
	}
	test_ulp_result(r, &res);
	assert_int_equal(res.pongs, n);
	assert_int_equal(res.lat_n, n);
	assert_int_equal(res.rx_dup + res.rx_bad, 0);
	assert_true(perf_wrap_alloc_max <= 64 * 1024);
	test_ulp_free(r);
	test_ulp_free(echo);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(ping_failed__ends_wait),
		cmocka_unit_test(ping_failed__partial_ping_not_awaited),
		cmocka_unit_test(ping_send__waits_for_pong),
		cmocka_unit_test(ping_init__samples_grow_with_round_trips),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
