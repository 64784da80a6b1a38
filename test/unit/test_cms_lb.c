/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Tests of src/cms/cms_lb.c: single path, oblivious spraying and REPS
 * (recycling, marks, exploration, freezing), over a fake clock.
 */

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include <uet/uet_cms.h>

#define RTT 10000 /* ns, the default base_rtt_ns */

static struct uet_cms_lb_config
cfg(enum uet_cms_lb_mode mode)
{
	struct uet_cms_lb_config c;

	uet_cms_lb_config_default(&c);
	c.mode = mode;
	assert_int_equal(c.base_rtt_ns, RTT);
	return c;
}

static void
uet_cms_lb_config_check__rejects_bad_fields(void **state)
{
	struct uet_cms_lb_config c = cfg(UET_CMS_LB_REPS);
	const char *why = NULL;

	(void)state;
	assert_int_equal(uet_cms_lb_config_check(&c, &why), 0);
	assert_null(why);
	c.ev_count = 128;
	assert_int_equal(uet_cms_lb_config_check(&c, &why), -EINVAL);
	assert_string_equal(why, "ev_count (at least 256 for spraying)");
	c.mode = UET_CMS_LB_SINGLE; /* one path needs no range */
	assert_int_equal(uet_cms_lb_config_check(&c, NULL), 0);
	c = cfg(UET_CMS_LB_OBLIVIOUS);
	c.ev_count = 0;
	assert_int_equal(uet_cms_lb_config_check(&c, &why), -EINVAL);
	assert_string_equal(why, "ev_count (1..65535)");
	c = cfg(UET_CMS_LB_OBLIVIOUS);
	c.ev_base = 65500;
	assert_int_equal(uet_cms_lb_config_check(&c, NULL), -EINVAL);
	c = cfg(UET_CMS_LB_REPS);
	c.freeze_ns = 0;
	assert_int_equal(uet_cms_lb_config_check(&c, NULL), -EINVAL);
	c = cfg(UET_CMS_LB_REPS);
	c.reps_ring = 9;
	assert_int_equal(uet_cms_lb_config_check(&c, &why), -EINVAL);
	assert_string_equal(why, "reps_ring (1..8)");
	c = cfg(UET_CMS_LB_REPS);
	c.mode = (enum uet_cms_lb_mode)7;
	assert_int_equal(uet_cms_lb_config_check(&c, NULL), -EINVAL);
	c = cfg(UET_CMS_LB_REPS);
	c.base_rtt_ns = 0;
	assert_int_equal(uet_cms_lb_config_check(&c, NULL), -EINVAL);
}

static void
uet_cms_reps__state_under_25_bytes(void **state)
{
	(void)state;
	assert_true(sizeof(struct uet_cms_reps) < 25);
}

/* Every EV of the range exactly once per round; rounds and PDCs get
 * different orders. */
static void
uet_cms_lb_next_ev__oblivious_each_ev_once_per_round(void **state)
{
	struct uet_cms_lb_config c = cfg(UET_CMS_LB_OBLIVIOUS);
	struct uet_cms_lb a, b;
	static uint16_t order[3][256], other[256];
	uint8_t seen[256];
	uint32_t r, i, same_round = 0, same_pdc = 0;
	uint16_t ev;

	(void)state;
	uet_cms_lb_init(&a, &c, 1, false);
	uet_cms_lb_init(&b, &c, 2, false);
	for (r = 0; r < 3; r++) {
		memset(seen, 0, sizeof(seen));
		for (i = 0; i < 256; i++) {
			ev = uet_cms_lb_next_ev(&a, &c, i, false);
			assert_in_range(ev, 49152, 49152 + 255);
			assert_int_equal(seen[ev - 49152], 0);
			seen[ev - 49152] = 1;
			order[r][i] = ev;
		}
	}
	for (i = 0; i < 256; i++)
		other[i] = uet_cms_lb_next_ev(&b, &c, i, false);
	for (i = 0; i < 256; i++) {
		same_round += order[0][i] == order[1][i];
		same_pdc += order[0][i] == other[i];
	}
	assert_true(same_round < 16);
	assert_true(same_pdc < 16);
	/* feedback does not change the order */
	assert_int_equal(uet_cms_lb_on_loss(&a, &c, order[0][0], 0), 0);
	assert_int_equal(uet_cms_lb_on_ack(&a, &c, 1, false, 0), -ERANGE);
}

/* Other ranges, powers of two or not, up to the largest: still each
 * EV once per round. */
static void
uet_cms_lb_next_ev__oblivious_any_range(void **state)
{
	static const uint32_t counts[] = { 256, 300, 1000, 32768, 65535 };
	struct uet_cms_lb_config c = cfg(UET_CMS_LB_OBLIVIOUS);
	static uint8_t seen[65536];
	struct uet_cms_lb a;
	uint32_t i, k, r;
	uint16_t ev;

	(void)state;
	for (k = 0; k < sizeof(counts) / sizeof(counts[0]); k++) {
		c.ev_count = counts[k];
		c.ev_base = (uint16_t)(65536 - counts[k]);
		assert_int_equal(uet_cms_lb_config_check(&c, NULL), 0);
		uet_cms_lb_init(&a, &c, 99 + k, false);
		for (r = 0; r < 2; r++) {
			memset(seen, 0, sizeof(seen));
			for (i = 0; i < counts[k]; i++) {
				ev = uet_cms_lb_next_ev(&a, &c, 0, false);
				assert_true(ev >= c.ev_base);
				assert_int_equal(seen[ev - c.ev_base], 0);
				seen[ev - c.ev_base] = 1;
			}
		}
	}
}

/* REPS: an EV that came back unmarked is reused, once, in arrival
 * order; the ring keeps the newest 8. */
static void
uet_cms_lb_on_ack__reps_recycles_unmarked(void **state)
{
	struct uet_cms_lb_config c = cfg(UET_CMS_LB_REPS);
	struct uet_cms_lb lb;
	uint16_t ev[10];
	uint32_t i;

	(void)state;
	uet_cms_lb_init(&lb, &c, 5, false);
	for (i = 0; i < 10; i++)
		ev[i] = uet_cms_lb_next_ev(&lb, &c, 0, false);
	assert_int_equal(uet_cms_lb_cached(&lb), 0);
	for (i = 0; i < 10; i++)
		assert_int_equal(uet_cms_lb_on_ack(&lb, &c, ev[i], false, 100),
				 0);
	assert_int_equal(uet_cms_lb_cached(&lb), 8);
	for (i = 2; i < 10; i++)
		assert_int_equal(uet_cms_lb_next_ev(&lb, &c, 200, false),
				 ev[i]);
	assert_int_equal(uet_cms_lb_cached(&lb), 0);
	/* a smaller ring keeps fewer */
	c.reps_ring = 4;
	uet_cms_lb_init(&lb, &c, 5, false);
	for (i = 0; i < 10; i++)
		uet_cms_lb_on_ack(&lb, &c, ev[i], false, 100);
	assert_int_equal(uet_cms_lb_cached(&lb), 4);
	assert_int_equal(uet_cms_lb_next_ev(&lb, &c, 200, false), ev[6]);
}

/* REPS: with nothing cached it explores: many distinct EVs, in range. */
static void
uet_cms_lb_next_ev__reps_explores_when_empty(void **state)
{
	struct uet_cms_lb_config c = cfg(UET_CMS_LB_REPS);
	struct uet_cms_lb lb;
	uint8_t seen[256] = { 0 };
	uint32_t i, distinct = 0;
	uint16_t ev;

	(void)state;
	uet_cms_lb_init(&lb, &c, 6, false);
	for (i = 0; i < 1000; i++) {
		ev = uet_cms_lb_next_ev(&lb, &c, i, false);
		assert_in_range(ev, 49152, 49152 + 255);
		distinct += seen[ev - 49152] == 0;
		seen[ev - 49152] = 1;
	}
	/* 1000 uniform draws over 256 values: ~250 distinct */
	assert_true(distinct > 230);
}

/* REPS (htsim UecMpReps): a marked reply does not recycle its EV, for
 * any number of marked EVs and however many replies are marked (no
 * recycling of marked EVs when most paths look congested). */
static void
uet_cms_lb_on_ack__reps_marked_evs_not_recycled(void **state)
{
	struct uet_cms_lb_config c = cfg(UET_CMS_LB_REPS);
	struct uet_cms_lb lb;
	uint32_t i;

	(void)state;
	uet_cms_lb_init(&lb, &c, 7, false);
	for (i = 0; i < 40; i++)
		assert_int_equal(uet_cms_lb_on_ack(&lb, &c,
						   (uint16_t)(49152 + i),
						   true, i), 0);
	assert_int_equal(uet_cms_lb_cached(&lb), 0);
	uet_cms_lb_on_ack(&lb, &c, 49160, false, 50);
	uet_cms_lb_on_ack(&lb, &c, 49161, true, 51);
	uet_cms_lb_on_ack(&lb, &c, 49162, false, 52);
	assert_int_equal(uet_cms_lb_cached(&lb), 2);
	assert_int_equal(uet_cms_lb_next_ev(&lb, &c, 60, false), 49160);
	assert_int_equal(uet_cms_lb_next_ev(&lb, &c, 60, false), 49162);
}

/* The 8-bit tick clock never makes a freeze shorter than its time, even
 * when it starts at the very end of a tick (default config: 10 ms
 * freeze, ticks of 83 334 ns). */
static void
reps_ticks__never_shorter_than_asked(void **state)
{
	struct uet_cms_lb_config c = cfg(UET_CMS_LB_REPS);
	uint64_t t0 = 83334 - 1; /* last ns of tick 0 */
	struct uet_cms_lb lb;

	(void)state;
	assert_int_equal(c.freeze_ns, 10000000);
	uet_cms_lb_init(&lb, &c, 13, false);
	uet_cms_lb_on_loss(&lb, &c, 49152, t0);
	assert_true(uet_cms_lb_frozen(&lb, &c, t0 + c.freeze_ns - 1));
	assert_false(uet_cms_lb_frozen(&lb, &c,
				       t0 + c.freeze_ns + 2 * 83334));
}

/* REPS NACKs: a trim before the last hop is a bad path; a last-hop
 * trim without M is not (the EV is recycled). */
static void
uet_cms_lb_on_nack__reps_trim_kinds(void **state)
{
	struct uet_cms_lb_config c = cfg(UET_CMS_LB_REPS);
	struct uet_cms_lb lb;

	(void)state;
	uet_cms_lb_init(&lb, &c, 9, false);
	assert_int_equal(uet_cms_lb_on_nack(&lb, &c, 49160, true, true, false,
					    0), 0);
	assert_int_equal(uet_cms_lb_cached(&lb), 1);
	assert_int_equal(uet_cms_lb_on_nack(&lb, &c, 49161, true, false,
					    false, 0), 0);
	assert_int_equal(uet_cms_lb_cached(&lb), 1);
	assert_int_equal(uet_cms_lb_on_nack(&lb, &c, 49162, true, true, true,
					    0), 0);
	assert_int_equal(uet_cms_lb_cached(&lb), 1);
	assert_int_equal(uet_cms_lb_on_nack(&lb, &c, 7, true, true, true, 0),
			 -ERANGE);
}

/* REPS: a loss freezes the ring: the cached EVs are reused in turn and
 * nothing is explored; losses while frozen neither re-freeze nor restart
 * the timer; unmarked replies still join the ring. When the freeze ends
 * the ring is emptied and 16 fresh EVs are explored, during which a loss
 * does not freeze (htsim); afterwards one does. */
static void
uet_cms_lb_on_loss__reps_freezes_on_cached_evs(void **state)
{
	struct uet_cms_lb_config c = cfg(UET_CMS_LB_REPS);
	struct uet_cms_lb lb;
	uint16_t good[3] = { 49170, 49171, 49172 }, ev;
	uint32_t i, k, count[3] = { 0 };
	uint64_t t0 = 5 * RTT, t1;

	(void)state;
	c.freeze_ns = 4 * RTT;
	uet_cms_lb_init(&lb, &c, 10, false);
	for (i = 0; i < 3; i++)
		uet_cms_lb_on_ack(&lb, &c, good[i], false, t0);
	assert_int_equal(uet_cms_lb_on_loss(&lb, &c, 49199, t0), 0);
	assert_true(uet_cms_lb_frozen(&lb, &c, t0));
	assert_int_equal(uet_cms_lb_cached(&lb), 3);
	for (i = 0; i < 30; i++) {
		ev = uet_cms_lb_next_ev(&lb, &c, t0 + i * 100, false);
		for (k = 0; k < 3 && ev != good[k]; k++)
			;
		assert_true(k < 3);
		count[k]++;
		/* a loss every packet: the freeze is not restarted */
		uet_cms_lb_on_loss(&lb, &c, 49199, t0 + i * 100);
	}
	for (k = 0; k < 3; k++)
		assert_int_equal(count[k], 10);
	assert_int_equal(uet_cms_lb_cached(&lb), 3);
	uet_cms_lb_on_ack(&lb, &c, 49173, false, t0 + RTT);
	assert_int_equal(uet_cms_lb_cached(&lb), 4);
	assert_true(uet_cms_lb_frozen(&lb, &c, t0 + 4 * RTT - 1300));
	/* thawed: the ring is emptied, 16 fresh EVs explored */
	t1 = t0 + 4 * RTT + 1300;
	assert_false(uet_cms_lb_frozen(&lb, &c, t1));
	uet_cms_lb_on_ack(&lb, &c, 49174, false, t1);
	assert_int_equal(uet_cms_lb_cached(&lb), 1); /* only the new one */
	for (i = 0; i < 16; i++) {
		ev = uet_cms_lb_next_ev(&lb, &c, t1, false);
		assert_int_not_equal(ev, 49174); /* exploring, not cached */
		if (i == 3) { /* exploring: a loss does not freeze */
			uet_cms_lb_on_loss(&lb, &c, ev, t1);
			assert_false(uet_cms_lb_frozen(&lb, &c, t1));
		}
	}
	assert_int_equal(uet_cms_lb_next_ev(&lb, &c, t1, false), 49174);
	uet_cms_lb_on_loss(&lb, &c, 49174, t1);
	assert_true(uet_cms_lb_frozen(&lb, &c, t1));
}

/* REPS freezing reuses the last EVs added even when sending consumed
 * them already (htsim's frozen buffer walks its count, not its fresh
 * entries): a source that spent every cached EV before its loss does not
 * explore while frozen; an unmarked reply joins them. A lost packet's
 * EV is struck out, the others go in turn, but the last one kept is
 * not struck out (exploring while frozen would reach a failed link). */
static void
uet_cms_lb_on_loss__reps_frozen_reuses_consumed_evs(void **state)
{
	struct uet_cms_lb_config c = cfg(UET_CMS_LB_REPS);
	struct uet_cms_lb lb;
	uint16_t good[4] = { 49170, 49171, 49172, 49173 }, ev;
	uint32_t i, k, count[4] = { 0 };
	uint64_t t0 = 5 * RTT;

	(void)state;
	uet_cms_lb_init(&lb, &c, 12, false);
	for (i = 0; i < 3; i++)
		uet_cms_lb_on_ack(&lb, &c, good[i], false, t0);
	for (i = 0; i < 3; i++) /* consumed in order */
		assert_int_equal(uet_cms_lb_next_ev(&lb, &c, t0, false),
				 good[i]);
	assert_int_equal(uet_cms_lb_cached(&lb), 0);
	/* a loss on an explored EV freezes on the three consumed ones */
	uet_cms_lb_on_loss(&lb, &c, 49300, t0);
	assert_true(uet_cms_lb_frozen(&lb, &c, t0));
	for (i = 0; i < 30; i++) {
		ev = uet_cms_lb_next_ev(&lb, &c, t0 + i, false);
		for (k = 0; k < 3 && ev != good[k]; k++)
			;
		assert_true(k < 3);
		count[k]++;
	}
	for (k = 0; k < 3; k++)
		assert_int_equal(count[k], 10);
	/* frozen, an unmarked reply joins the EVs in turn */
	uet_cms_lb_on_ack(&lb, &c, good[3], false, t0 + 100);
	memset(count, 0, sizeof(count));
	for (i = 0; i < 40; i++) {
		ev = uet_cms_lb_next_ev(&lb, &c, t0 + 100 + i, false);
		for (k = 0; k < 4 && ev != good[k]; k++)
			;
		assert_true(k < 4);
		count[k]++;
	}
	for (k = 0; k < 4; k++)
		assert_int_equal(count[k], 10);
	/* 49171 lost: the other three in turn */
	uet_cms_lb_on_loss(&lb, &c, good[1], t0 + 200);
	for (i = 0; i < 30; i++) {
		ev = uet_cms_lb_next_ev(&lb, &c, t0 + 200 + i, false);
		assert_true(ev != good[1]);
	}
	/* the last EV kept is not struck out: frozen, it goes on alone
	 * rather than exploring */
	for (i = 0; i < 4; i++)
		uet_cms_lb_on_loss(&lb, &c, good[i], t0 + 300);
	for (i = 0; i < 20; i++)
		assert_int_equal(uet_cms_lb_next_ev(&lb, &c, t0 + 300 + i,
						    false), good[3]);
}

/* Single path: one EV; a loss or a path trim asks for a change, which
 * happens when idle or once single_hold_rtts have passed; marks and
 * last-hop trims do not move it. */
static void
uet_cms_lb_next_ev__single_path_changes_rarely(void **state)
{
	struct uet_cms_lb_config c = cfg(UET_CMS_LB_SINGLE);
	struct uet_cms_lb lb;
	uint16_t ev0, ev1, ev2;
	uint32_t i;

	(void)state;
	uet_cms_lb_init(&lb, &c, 11, false);
	ev0 = uet_cms_lb_next_ev(&lb, &c, 0, true);
	for (i = 0; i < 100; i++)
		assert_int_equal(uet_cms_lb_next_ev(&lb, &c, i, false), ev0);
	uet_cms_lb_on_ack(&lb, &c, ev0, true, 0);
	uet_cms_lb_on_nack(&lb, &c, ev0, true, true, false, 0);
	assert_int_equal(uet_cms_lb_next_ev(&lb, &c, 200, true), ev0);
	/* loss: busy, within 10 RTT of the start: stays */
	uet_cms_lb_on_loss(&lb, &c, ev0, 1000);
	assert_int_equal(uet_cms_lb_next_ev(&lb, &c, 5 * RTT, false), ev0);
	/* idle: moves at once */
	ev1 = uet_cms_lb_next_ev(&lb, &c, 5 * RTT, true);
	assert_int_not_equal(ev1, ev0);
	/* busy: a path trim waits 10 RTT after the previous change (the
	 * microsecond stamps round that up by at most 1 us) */
	uet_cms_lb_on_nack(&lb, &c, ev1, true, false, false, 6 * RTT);
	assert_int_equal(uet_cms_lb_next_ev(&lb, &c, 15 * RTT - 1, false),
			 ev1);
	ev2 = uet_cms_lb_next_ev(&lb, &c, 15 * RTT + 1000, false);
	assert_int_not_equal(ev2, ev1);
	assert_int_equal(uet_cms_lb_next_ev(&lb, &c, 100 * RTT, false), ev2);
}

/* The hold is measured on microsecond stamps: a change stamped late in
 * a microsecond must still hold for the full time. */
static void
single_next__hold_never_shorter(void **state)
{
	struct uet_cms_lb_config c = cfg(UET_CMS_LB_SINGLE);
	struct uet_cms_lb lb;
	uint64_t t1 = 50999; /* end of microsecond 50 */
	uint16_t ev0, ev1;

	(void)state;
	uet_cms_lb_init(&lb, &c, 14, false);
	ev0 = uet_cms_lb_next_ev(&lb, &c, 0, true);
	uet_cms_lb_on_loss(&lb, &c, ev0, 0);
	ev1 = uet_cms_lb_next_ev(&lb, &c, t1, true);
	assert_int_not_equal(ev1, ev0);
	uet_cms_lb_on_loss(&lb, &c, ev1, t1);
	assert_int_equal(uet_cms_lb_next_ev(&lb, &c, t1 + 10 * RTT - 1, false),
			 ev1);
	assert_int_not_equal(uet_cms_lb_next_ev(&lb, &c, t1 + 10 * RTT + 1000,
						false), ev1);
}

/* ROD uses a single path whatever the mode, under the same rule. */
static void
uet_cms_lb_init__ordered_is_single_path(void **state)
{
	struct uet_cms_lb_config c = cfg(UET_CMS_LB_REPS);
	struct uet_cms_lb lb;
	uint16_t ev0, ev1;
	uint32_t i;

	(void)state;
	uet_cms_lb_init(&lb, &c, 12, true);
	assert_int_equal(lb.mode, UET_CMS_LB_SINGLE);
	ev0 = uet_cms_lb_next_ev(&lb, &c, 0, true);
	uet_cms_lb_on_loss(&lb, &c, ev0, 0);
	for (i = 0; i <= 10; i++)
		assert_int_equal(uet_cms_lb_next_ev(&lb, &c,
						    (uint64_t)i * RTT, false),
				 ev0);
	ev1 = uet_cms_lb_next_ev(&lb, &c, 10 * RTT + 1000, false);
	assert_int_not_equal(ev1, ev0);
	for (i = 0; i < 100; i++)
		assert_int_equal(uet_cms_lb_next_ev(&lb, &c, 20 * RTT, true),
				 ev1);
	assert_int_equal(uet_cms_lb_cached(&lb), 0);
	assert_false(uet_cms_lb_frozen(&lb, &c, 0));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(uet_cms_lb_config_check__rejects_bad_fields),
		cmocka_unit_test(uet_cms_reps__state_under_25_bytes),
		cmocka_unit_test(uet_cms_lb_next_ev__oblivious_each_ev_once_per_round),
		cmocka_unit_test(uet_cms_lb_next_ev__oblivious_any_range),
		cmocka_unit_test(uet_cms_lb_on_ack__reps_recycles_unmarked),
		cmocka_unit_test(uet_cms_lb_next_ev__reps_explores_when_empty),
		cmocka_unit_test(uet_cms_lb_on_ack__reps_marked_evs_not_recycled),
		cmocka_unit_test(reps_ticks__never_shorter_than_asked),
		cmocka_unit_test(uet_cms_lb_on_nack__reps_trim_kinds),
		cmocka_unit_test(uet_cms_lb_on_loss__reps_freezes_on_cached_evs),
		cmocka_unit_test(
			uet_cms_lb_on_loss__reps_frozen_reuses_consumed_evs),
		cmocka_unit_test(uet_cms_lb_next_ev__single_path_changes_rarely),
		cmocka_unit_test(single_next__hold_never_shorter),
		cmocka_unit_test(uet_cms_lb_init__ordered_is_single_path),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
