/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Tests of src/fabric/fabric_event.c: serialisation and propagation
 * timing, the deterministic tie-break, link failure / restore / rate
 * schedules, the sample hook and virtual-time determinism.
 */

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include <uet/uet_rand.h>

#include "fabric_harness.h"

static struct fh H;

static void
send1(struct uet_fabric *fab, uint32_t src, uint32_t dst, uint16_t ev,
      uint32_t psn, uint32_t payload, uint64_t now)
{
	uint8_t f[FH_FRAME_MAX];
	int len = fh_frame(fab, f, src, dst, ev, 0, psn, payload);

	assert_true(len > 0);
	assert_int_equal(uet_fabric_inject(fab, src, f, (uint32_t)len, now), 0);
}

/* One frame across one leaf: two serialisations and two propagation
 * delays; back-to-back frames leave at exactly the link rate. */
static void
uet_fabric_advance__serialisation_and_delay(void **state)
{
	struct uet_fabric_config c;
	struct uet_fabric *fab;
	uint64_t ser = (1000 + 24) * 8 * UINT64_C(1000000000) /
		       UINT64_C(100000000000); /* 81 ns, .92 carried */
	uint32_t i;

	(void)state;
	fh_config(&c, &H);
	fab = fh_make(&H, &c);
	send1(fab, 0, 1, 1, 0, 902, 0);
	assert_int_equal(uet_fabric_next_event_time(fab), 0);
	fh_run(fab, UINT64_MAX);
	assert_int_equal(H.n, 1);
	assert_int_equal(H.log[0].len, 1000);
	assert_int_equal(H.log[0].time, 2 * ser + 2 * 1000);
	assert_int_equal(uet_fabric_next_event_time(fab), UINT64_MAX);

	/* 1000 frames: the host port carries the remainder, so the last one
	 * leaves the host at exactly 1000 x 81.92 ns after the start. */
	H.n = 0;
	for (i = 0; i < 1000; i++)
		send1(fab, 0, 1, 1, i, 902, 10000);
	fh_run(fab, UINT64_MAX);
	assert_int_equal(H.n, 1000);
	assert_in_range(H.log[999].time - 10000, 81920 + 2000 + 81,
			81920 + 2000 + 82);
	uet_fabric_free(fab);
}

/* Equal-time events run in the order they were scheduled. */
static void
uet_fabric_advance__ties_in_schedule_order(void **state)
{
	struct uet_fabric_config c;
	struct uet_fabric *fab;

	(void)state;
	fh_config(&c, &H);
	fab = fh_make(&H, &c);
	send1(fab, 1, 0, 1, 11, 100, 0);
	send1(fab, 2, 0, 1, 22, 100, 0);
	fh_run(fab, UINT64_MAX);
	assert_int_equal(H.n, 2);
	assert_int_equal(H.log[0].psn, 11);
	assert_int_equal(H.log[1].psn, 22);
	send1(fab, 2, 0, 1, 22, 100, 100000);
	send1(fab, 1, 0, 1, 11, 100, 100000);
	fh_run(fab, UINT64_MAX);
	assert_int_equal(H.log[2].psn, 22);
	assert_int_equal(H.log[3].psn, 11);
	/* the clock never goes back; late injects happen now */
	uet_fabric_advance(fab, 5);
	assert_int_equal(uet_fabric_now(fab), H.log[3].time);
	uet_fabric_free(fab);
}

struct fail_trace {
	struct uet_fabric *fab;
	uint32_t port;
	uint64_t tx[512];    /* tx_frames of port at each microsecond */
	uint64_t drops[512]; /* drops_link of port */
};

static struct fail_trace T;

static void
fail_sample(void *arg, const struct uet_fabric *fab, uint64_t now)
{
	struct fail_trace *t = arg;
	struct uet_fabric_port_stats s;
	uint64_t us = now / 1000;

	assert_int_equal(uet_fabric_port_stats(fab, t->port, &s), 0);
	if (us < 512) {
		t->tx[us] = s.tx_frames;
		t->drops[us] = s.drops_link;
	}
}

/* One frame per 500 ns from host 0 to host 4 on 64 EVs for 400 us; the
 * link leaf 0 - spine 0 fails at 100 us and comes back at 300 us. */
static void
run_failure(bool failover)
{
	struct uet_fabric_config c;
	struct uet_fabric *fab;
	struct uet_fabric_stats fs;
	uint64_t t;
	uint32_t i;
	int link;

	fh_config(&c, &H);
	c.hosts = 8;
	c.spines = 2;
	c.failover = failover;
	c.sample = fail_sample;
	c.sample_arg = &T;
	c.sample_ns = 1000;
	fab = fh_make(&H, &c);
	memset(&T, 0, sizeof(T));
	T.fab = fab;
	T.port = fh_port(fab, UET_FABRIC_TIER_LEAF, 0, UET_FABRIC_TIER_SPINE,
			 0);
	link = uet_fabric_link_find(fab, UET_FABRIC_TIER_LEAF, 0,
				    UET_FABRIC_TIER_SPINE, 0);
	assert_int_equal(uet_fabric_link_schedule(fab, (uint32_t)link, 100000,
						  UET_FABRIC_LINK_FAIL, 0), 0);
	assert_int_equal(uet_fabric_link_schedule(fab, (uint32_t)link, 300000,
						  UET_FABRIC_LINK_RESTORE, 0),
			 0);
	for (i = 0, t = 0; t < 400000; t += 500, i++) {
		fh_run(fab, t);
		send1(fab, 0, 4, (uint16_t)(1000 + i % 64), i, 1000, t);
	}
	fh_run(fab, 500000);
	uet_fabric_stats_get(fab, &fs);
	assert_int_equal(fs.injected, 800);
	assert_int_equal(fs.delivered + fs.drops, 800);
	assert_int_equal(fs.frames_in_use, 0);
	/* traffic used the link before the failure and after the restore */
	assert_true(T.tx[99] > 60);
	assert_true(T.tx[400] > T.tx[301] + 60);
	/* nothing crossed it while it was down */
	for (i = 101; i <= 300; i++)
		assert_int_equal(T.tx[i], T.tx[100]);
	if (!failover) {
		assert_true(T.drops[300] - T.drops[100] > 100);
		assert_int_equal(T.drops[450], T.drops[300]);
		assert_int_equal(fs.no_route, 0);
	} else {
		/* at most what was on the wire at the failure */
		assert_true(T.drops[300] <= 2);
		assert_true(fs.delivered >= 798);
	}
	uet_fabric_free(fab);
}

static void
uet_fabric_link_schedule__fail_and_restore(void **state)
{
	(void)state;
	run_failure(false);
}

static void
uet_fabric_link_schedule__failover_skips_failed_port(void **state)
{
	(void)state;
	run_failure(true);
}

/* With failover and every uplink of a leaf down there is no route: the
 * frame is counted as such; link_info reports the state. */
static void
uet_fabric_link_schedule__failover_without_live_port(void **state)
{
	struct uet_fabric_config c;
	struct uet_fabric *fab;
	struct uet_fabric_stats fs;
	struct uet_fabric_link_info li;
	uint32_t s;
	int link;

	(void)state;
	fh_config(&c, &H);
	c.hosts = 8;
	c.spines = 2;
	c.failover = true;
	fab = fh_make(&H, &c);
	for (s = 0; s < 2; s++) {
		link = uet_fabric_link_find(fab, UET_FABRIC_TIER_LEAF, 0,
					    UET_FABRIC_TIER_SPINE, s);
		assert_int_equal(uet_fabric_link_schedule(fab, (uint32_t)link,
				10, UET_FABRIC_LINK_FAIL, 0), 0);
	}
	fh_run(fab, 20);
	assert_int_equal(uet_fabric_link_info(fab, (uint32_t)link, &li), 0);
	assert_false(li.up);
	send1(fab, 0, 4, 1, 0, 100, 20);
	send1(fab, 0, 1, 1, 1, 100, 20); /* same leaf: still fine */
	fh_run(fab, UINT64_MAX);
	uet_fabric_stats_get(fab, &fs);
	assert_int_equal(fs.no_route, 1);
	assert_int_equal(fs.drops, 1);
	assert_int_equal(H.per_host[1], 1);
	assert_int_equal(H.per_host[4], 0);
	uet_fabric_free(fab);
}

/* A degraded link serialises at its new rate from the change on. */
static void
uet_fabric_link_schedule__rate_change(void **state)
{
	struct uet_fabric_config c;
	struct uet_fabric *fab;
	int link;

	(void)state;
	fh_config(&c, &H);
	fab = fh_make(&H, &c);
	link = uet_fabric_link_find(fab, UET_FABRIC_TIER_HOST, 0,
				    UET_FABRIC_TIER_LEAF, 0);
	assert_int_equal(uet_fabric_link_schedule(fab, (uint32_t)link, 5000,
						  UET_FABRIC_LINK_RATE,
						  UINT64_C(10000000000)), 0);
	assert_int_equal(uet_fabric_link_schedule(fab, (uint32_t)link, 5000,
						  UET_FABRIC_LINK_RATE, 0),
			 -EINVAL);
	assert_int_equal(uet_fabric_link_schedule(fab, 999, 5000,
						  UET_FABRIC_LINK_FAIL, 0),
			 -EINVAL);
	send1(fab, 0, 1, 1, 0, 902, 0);
	send1(fab, 0, 1, 1, 1, 902, 10000);
	fh_run(fab, UINT64_MAX);
	assert_int_equal(H.n, 2);
	assert_int_equal(H.log[0].time, 81 + 81 + 2000);
	/* 1024 B at 10 Gb/s on the host link, 100 Gb/s on the leaf port */
	assert_in_range(H.log[1].time - 10000, 819 + 81 + 2000,
			819 + 82 + 2000);
	assert_int_equal(uet_fabric_link_schedule(fab, (uint32_t)link, 1,
						  UET_FABRIC_LINK_FAIL, 0),
			 -EINVAL); /* in the past */
	uet_fabric_free(fab);
}

static uint32_t samples[64];
static uint32_t nsamples;

static void
count_sample(void *arg, const struct uet_fabric *fab, uint64_t now)
{
	(void)arg;
	(void)fab;
	if (nsamples < 64)
		samples[nsamples] = (uint32_t)now;
	nsamples++;
}

/* The hook fires once per period boundary crossed, in order, and does
 * not keep the fabric busy (no events of its own). */
static void
uet_fabric_advance__sample_hook_periods(void **state)
{
	struct uet_fabric_config c;
	struct uet_fabric *fab;
	uint32_t i;

	(void)state;
	fh_config(&c, &H);
	c.sample = count_sample;
	c.sample_ns = 1000;
	fab = fh_make(&H, &c);
	nsamples = 0;
	assert_int_equal(uet_fabric_next_event_time(fab), UINT64_MAX);
	uet_fabric_advance(fab, 10500);
	assert_int_equal(nsamples, 10);
	for (i = 0; i < 10; i++)
		assert_int_equal(samples[i], (i + 1) * 1000);
	send1(fab, 0, 5, 1, 0, 100, 10500);
	fh_run(fab, UINT64_MAX);
	assert_int_equal(nsamples, H.log[0].time / 1000);
	uet_fabric_free(fab);
}

struct run_result {
	uint64_t digest;
	struct uet_fabric_stats fs;
	struct uet_fabric_port_stats ps[96];
};

/* 16 hosts, K = 4 fat tree, 1 % loss, ECN and trimming: 3000 frames to
 * random destinations on random EVs at random times. */
static void
random_run(uint64_t seed, struct run_result *out)
{
	struct uet_fabric_config c;
	struct uet_fabric *fab;
	struct uet_rand r;
	uint32_t i, p, src, dst;
	uint64_t t = 0;

	fh_config(&c, &H);
	c.topo = UET_FABRIC_TOPO_FAT_TREE;
	c.k = 4;
	c.loss_ppm = 10000;
	c.seed = seed;
	fab = fh_make(&H, &c);
	uet_rand_seed(&r, 42);
	for (i = 0; i < 3000; i++) {
		t += uet_rand_below(&r, 100);
		fh_run(fab, t);
		src = uet_rand_below(&r, 16);
		dst = (src + 1 + uet_rand_below(&r, 15)) % 16;
		send1(fab, src, dst, (uint16_t)uet_rand_below(&r, 65536), i,
		      uet_rand_below(&r, 4000), t);
	}
	fh_run(fab, UINT64_MAX);
	memset(out, 0, sizeof(*out));
	out->digest = H.digest;
	uet_fabric_stats_get(fab, &out->fs);
	assert_int_equal(uet_fabric_links(fab) * 2, 96);
	for (p = 0; p < 96; p++)
		assert_int_equal(uet_fabric_port_stats(fab, p, &out->ps[p]), 0);
	uet_fabric_free(fab);
}

static struct run_result R1, R2, R3;

static void
uet_fabric_advance__same_seed_same_run(void **state)
{
	(void)state;
	random_run(7, &R1);
	random_run(7, &R2);
	random_run(8, &R3);
	assert_true(R1.fs.delivered > 2500);
	assert_true(R1.fs.drops > 0);
	assert_int_equal(R1.fs.delivered + R1.fs.drops, 3000);
	assert_int_equal(R1.digest, R2.digest);
	assert_memory_equal(&R1.fs, &R2.fs, sizeof(R1.fs));
	assert_memory_equal(R1.ps, R2.ps, sizeof(R1.ps));
	/* another fabric seed: other losses and ECMP hashes */
	assert_true(R1.digest != R3.digest);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(uet_fabric_advance__serialisation_and_delay),
		cmocka_unit_test(uet_fabric_advance__ties_in_schedule_order),
		cmocka_unit_test(uet_fabric_link_schedule__fail_and_restore),
		cmocka_unit_test(uet_fabric_link_schedule__failover_skips_failed_port),
		cmocka_unit_test(uet_fabric_link_schedule__failover_without_live_port),
		cmocka_unit_test(uet_fabric_link_schedule__rate_change),
		cmocka_unit_test(uet_fabric_advance__sample_hook_periods),
		cmocka_unit_test(uet_fabric_advance__same_seed_same_run),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
