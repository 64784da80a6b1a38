/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Tests of src/cms/rccc.c: the source's credit and credit_target, the
 * destination's pull pacer (fairness, pacing, speculative credit) in
 * virtual time, the ACK_CC cc_type 1 fields and the NSCC + RCCC gate.
 */

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include <uet/uet_cms_rccc.h>
#include <uet/uet_wire.h>

/* 100 Gb/s, 4150 B MTU (4352 B of credit per grant), BDP 175 000 B. */
#define LINK 100000u
#define MTU 4150u
#define QUANTUM 4352u
#define BDP 175000u
/* 4352 B at 99 Gb/s: 4352 x 8e9 / 99e6 = 351 676.8 ps. */
#define GRANT_PS 351676u
#define NSRC 15

static void
uet_rccc_units__round_up_and_saturate(void **state)
{
	(void)state;
	assert_int_equal(uet_rccc_units(0), 0);
	assert_int_equal(uet_rccc_units(1), 1);
	assert_int_equal(uet_rccc_units(256), 1);
	assert_int_equal(uet_rccc_units(257), 2);
	assert_int_equal(uet_rccc_units(4150), 17);
	assert_int_equal(uet_rccc_units(1ull << 40), 0xFFFFFF);
	assert_int_equal(uet_rccc_bytes(17), 4352);
	assert_int_equal(uet_rccc_bytes(0x1000001), 256); /* 24 bits */
}

/* Speculative start of max_wnd; send only with credit. Grants arrive as
 * cumulative totals (htsim's pull number): what is new counts, credit
 * capped at max_wnd (htsim handlePull()). */
static void
uet_rccc_src__speculative_credit_and_gate(void **state)
{
	struct uet_rccc_src s;

	(void)state;
	uet_rccc_src_init(&s, 262500);
	assert_int_equal(s.credit, 262500);
	assert_true(uet_rccc_src_speculating(&s));
	assert_true(uet_rccc_src_may_send(&s, MTU));
	uet_rccc_src_on_send(&s, 262500 - 100);
	assert_int_equal(s.credit, 100);
	assert_true(uet_rccc_src_may_send(&s, 100));
	uet_rccc_src_on_send(&s, 100);
	assert_false(uet_rccc_src_may_send(&s, 100));
	s.credit = 100;
	/* A grant ends speculation: the 100 B left go (stopSpeculating). */
	uet_rccc_src_on_credit(&s, QUANTUM, 262500);
	assert_false(uet_rccc_src_speculating(&s));
	assert_int_equal(s.credit, QUANTUM);
	assert_int_equal(s.pulled, QUANTUM);
	assert_true(uet_rccc_src_may_send(&s, MTU));
	uet_rccc_src_on_send(&s, QUANTUM);
	assert_int_equal(s.credit, 0);
	/* Totals: a grant of 1 MiB more, capped at max_wnd. */
	uet_rccc_src_on_credit(&s, QUANTUM + (1u << 20), 262500);
	assert_int_equal(s.credit, 262500);
	assert_int_equal(s.pulled, QUANTUM + (1u << 20));
	/* A late (older) or repeated total adds nothing; a lost grant is
	 * made up by the next total. */
	uet_rccc_src_on_send(&s, 262500);
	uet_rccc_src_on_credit(&s, QUANTUM, 262500);
	uet_rccc_src_on_credit(&s, QUANTUM + (1u << 20), 262500);
	assert_int_equal(s.credit, 0);
	uet_rccc_src_on_credit(&s, 3 * QUANTUM + (1u << 20), 262500);
	assert_int_equal(s.credit, 2 * QUANTUM);
}

/*
 * Any credit lets a packet go, whatever its size (htsim's
 * can_send_RCCC(): credit > 0), none does not: a send on the last bytes
 * overdraws. The gate used to ask for the whole packet (credit >= bytes),
 * so a source whose grants came in shares below a packet (its target
 * divided among its sender's active sources) idled with credit in hand.
 */
static void
uet_rccc_src_may_send__any_credit_none_without(void **state)
{
	struct uet_rccc_src s;

	(void)state;
	uet_rccc_src_init(&s, 262500);
	uet_rccc_src_stop_speculating(&s);
	assert_int_equal(s.credit, 0);
	assert_false(uet_rccc_src_may_send(&s, 1));
	uet_rccc_src_on_credit(&s, UET_RCCC_UNIT, 262500);
	assert_int_equal(s.credit, UET_RCCC_UNIT);
	assert_true(uet_rccc_src_may_send(&s, MTU));
	uet_rccc_src_on_send(&s, MTU);
	assert_int_equal(s.credit, UET_RCCC_UNIT - (int32_t)MTU);
	assert_false(uet_rccc_src_may_send(&s, 1));
}

/* A send on less credit than its size (or one while speculating past the
 * speculative credit) is a debt that the next grants pay back and the
 * next target asks for (htsim's signed credit). It used to floor at 0:
 * in a 63:1 incast 47 % of the bytes went free, twice the pacer's rate
 * reached the last hop and 91 % of the packets were retransmitted after
 * trims. */
static void
uet_rccc_src_on_send__overdraft_leaves_a_debt(void **state)
{
	struct uet_rccc_src s;

	(void)state;
	uet_rccc_src_init(&s, 262500);
	uet_rccc_src_on_credit(&s, QUANTUM, 262500);
	assert_int_equal(s.credit, QUANTUM);
	uet_rccc_src_on_send(&s, QUANTUM);
	assert_false(uet_rccc_src_may_send(&s, MTU));
	uet_rccc_src_on_send(&s, MTU);  /* overdraft */
	assert_int_equal(s.credit, -(int32_t)MTU);
	/* The debt is asked for on top of the backlog: 4150 + 4150 B ->
	 * 8448 (33 units) beyond the QUANTUM pulled so far. */
	assert_int_equal(uet_rccc_src_credit_target(&s, MTU, 0, 100000, MTU,
						    262500, 1),
			 QUANTUM + 8448);
	/* A grant of one quantum pays the debt first. */
	uet_rccc_src_on_credit(&s, 2 * QUANTUM, 262500);
	assert_int_equal(s.credit, (int32_t)QUANTUM - (int32_t)MTU);
	assert_true(uet_rccc_src_may_send(&s, MTU)); /* 202 B: any credit */
	/* Speculation ending keeps a debt (only spare credit goes). */
	uet_rccc_src_init(&s, 2 * MTU);
	uet_rccc_src_on_send(&s, 3 * MTU);
	uet_rccc_src_stop_speculating(&s);
	assert_int_equal(s.credit, -(int32_t)MTU);
	/* Saturates, never wraps. */
	s.credit = INT32_MIN + 10;
	uet_rccc_src_on_send(&s, MTU);
	assert_int_equal(s.credit, INT32_MIN);
	/* Credit is capped at max_wnd, and at INT32_MAX. */
	uet_rccc_src_init(&s, UINT32_MAX);
	assert_int_equal(s.credit, INT32_MAX);
	s.credit = 0;
	uet_rccc_src_on_credit(&s, 0x7FFFFF00u, UINT32_MAX);
	uet_rccc_src_on_credit(&s, 0xFFFFFE00u, UINT32_MAX);
	assert_int_equal(s.credit, INT32_MAX);
}

/* The first ACK or NACK drops the unspent speculative credit, once. */
static void
uet_rccc_src_stop_speculating__drops_spare_credit_once(void **state)
{
	struct uet_rccc_src s;

	(void)state;
	uet_rccc_src_init(&s, 262500);
	uet_rccc_src_on_send(&s, 4 * MTU);
	uet_rccc_src_stop_speculating(&s);
	assert_int_equal(s.credit, 0);
	assert_int_equal(s.pulled, 0);
	uet_rccc_src_on_credit(&s, 2 * QUANTUM, 262500);
	uet_rccc_src_stop_speculating(&s);
	assert_int_equal(s.credit, 2 * QUANTUM);
}

/* Cumulative target (htsim computePullTarget()): pulled + want rounded
 * up to 256 B, want = min(backlog + rtx_backlog, cwnd + MTU, max_wnd) -
 * credit, at least an MTU while speculating with a backlog, divided
 * among the active sources. */
static void
uet_rccc_src_credit_target__formula(void **state)
{
	struct uet_rccc_src s = { .credit = 0, .pulled = 0 };

	(void)state;
	/* Backlog binds: 10 000 + 2000 -> 12 032 (47 units). */
	assert_int_equal(uet_rccc_src_credit_target(&s, 10000, 2000, 100000,
						    MTU, 262500, 1), 12032);
	s.credit = 5000;
	assert_int_equal(uet_rccc_src_credit_target(&s, 10000, 2000, 100000,
						    MTU, 262500, 1), 7168);
	/* cwnd + MTU binds: 5000 + 4150 - 5000 = 4150 -> 4352. */
	assert_int_equal(uet_rccc_src_credit_target(&s, 10000, 2000, 5000,
						    MTU, 262500, 1), 4352);
	/* max_wnd binds: 257 500 -> 257 536. */
	assert_int_equal(uet_rccc_src_credit_target(&s, 1u << 30, 0,
						    1u << 30, MTU, 262500, 1),
			 257536);
	/* Shared by 4 active sources: 64 375 -> 64 512. */
	assert_int_equal(uet_rccc_src_credit_target(&s, 1u << 30, 0,
						    1u << 30, MTU, 262500, 4),
			 64512);
	/* Credit covers it: ask for nothing... */
	s.credit = 20000;
	assert_int_equal(uet_rccc_src_credit_target(&s, 10000, 2000, 100000,
						    MTU, 262500, 1), 0);
	/* ... unless still speculating with a backlog: one MTU. */
	s.pulled = 1;
	assert_int_equal(uet_rccc_src_credit_target(&s, 10000, 2000, 100000,
						    MTU, 262500, 1), 4352);
	/* On top of what was granted so far, modulo 2^32. */
	s.pulled = 0xFFFFFF00u;
	s.credit = 0;
	assert_int_equal(uet_rccc_src_credit_target(&s, 10000, 2000, 100000,
						    MTU, 262500, 1), 12032 - 256);
}

/* NSCC and RCCC together: a packet goes when both allow it. */
static void
uet_cms_cc_may_send__both_must_allow(void **state)
{
	struct uet_nscc_params p;
	struct uet_rccc_src s;
	struct uet_nscc n;

	(void)state;
	assert_int_equal(uet_nscc_params_default(&p, LINK, 14000, MTU, true),
			 0);
	uet_nscc_init(&n, &p);
	uet_rccc_src_init(&s, 10000);
	assert_true(uet_cms_cc_may_send(&n, &p, &s, MTU));
	uet_rccc_src_on_send(&s, 10000);      /* no credit left */
	assert_false(uet_cms_cc_may_send(&n, &p, &s, MTU));
	assert_true(uet_cms_cc_may_send(&n, &p, NULL, MTU)); /* NSCC only */
	uet_rccc_src_on_credit(&s, QUANTUM, 10000);
	assert_true(uet_cms_cc_may_send(&n, &p, &s, MTU));
	uet_nscc_on_send(&n, n.cwnd);         /* window full */
	assert_false(uet_cms_cc_may_send(&n, &p, &s, MTU));
	assert_true(uet_cms_cc_may_send(NULL, NULL, &s, MTU)); /* RCCC only */
	assert_true(uet_cms_cc_may_send(NULL, NULL, NULL, MTU));
}

static void
uet_rccc_pacer_config_default__values_and_checks(void **state)
{
	struct uet_rccc_pacer_config c;
	struct uet_rccc_slot slot[2];
	struct uet_rccc_pacer pc;
	const char *why = NULL;

	(void)state;
	assert_int_equal(uet_rccc_pacer_config_default(&c, LINK, MTU, BDP), 0);
	assert_int_equal(c.rate_milli, 990);
	assert_int_equal(c.quantum, QUANTUM);
	assert_int_equal(c.spec_max, BDP);
	assert_int_equal(c.charge_marked, 1);
	assert_int_equal(uet_rccc_pacer_config_default(&c, 0, MTU, BDP),
			 -EINVAL);
	assert_int_equal(uet_rccc_pacer_config_default(&c, LINK, 0, BDP),
			 -EINVAL);
	assert_int_equal(uet_rccc_pacer_init(&pc, &c, slot, 2, &why), 0);
	assert_null(why);
	assert_int_equal(uet_rccc_pacer_init(&pc, &c, slot, 0, &why),
			 -EINVAL);
	assert_string_equal(why, "slots (1..65536)");
	c.rate_milli = 1001;
	assert_int_equal(uet_rccc_pacer_init(&pc, &c, slot, 2, &why),
			 -EINVAL);
	assert_string_equal(why, "rate_milli (1..1000)");
	uet_rccc_pacer_config_default(&c, LINK, MTU, BDP);
	c.quantum = 4150;
	assert_int_equal(uet_rccc_pacer_init(&pc, &c, slot, 2, &why),
			 -EINVAL);
	assert_string_equal(why, "quantum (256..16 MiB, a multiple of 256)");
	uet_rccc_pacer_config_default(&c, LINK, MTU, BDP);
	c.link_mbps = 0;
	assert_int_equal(uet_rccc_pacer_init(&pc, &c, slot, 2, &why),
			 -EINVAL);
	assert_string_equal(why, "link_mbps (1..3200000)");
	uet_rccc_pacer_config_default(&c, LINK, MTU, BDP);
	c.spec_max = 1u << 31;
	assert_int_equal(uet_rccc_pacer_init(&pc, &c, slot, 2, &why),
			 -EINVAL);
	assert_string_equal(why, "spec_max (0..2^31)");
	assert_int_equal(uet_rccc_pacer_init(NULL, &c, slot, 2, &why),
			 -EINVAL);
	assert_string_equal(why, "pacer");
}

static void
pacer_setup(struct uet_rccc_pacer *pc, struct uet_rccc_slot *slot,
	    uint32_t n, uint32_t spec_max)
{
	struct uet_rccc_pacer_config c;

	assert_int_equal(uet_rccc_pacer_config_default(&c, LINK, MTU,
						       spec_max), 0);
	assert_int_equal(uet_rccc_pacer_init(pc, &c, slot, n, NULL), 0);
}

/* Run the pacer in virtual time (jumping to its next grant) for
 * @p grants grants, adding them to @p got. */
static void
pacer_run(struct uet_rccc_pacer *pc, uint64_t *now, uint32_t grants,
	  uint64_t *got)
{
	uint32_t idx, bytes, done = 0, steps;

	for (steps = 0; done < grants && steps < 4 * grants; steps++) {
		if (uet_rccc_pacer_poll(pc, *now, &idx, &bytes) == 1) {
			got[idx] += bytes;
			done++;
		} else {
			*now = uet_rccc_pacer_next(pc);
		}
	}
	assert_int_equal(done, grants);
}

/* A source repeats its cumulative target in every packet until grants
 * come: credit already granted is not granted again (a delta target
 * replacing the pending amount granted 83 KB for a 41.5 KB backlog). A
 * lower, stale target changes nothing; the count wraps modulo 2^32. */
static void
uet_rccc_pacer_request__cumulative_target_granted_once(void **state)
{
	struct uet_rccc_slot slot[1];
	uint64_t got[1] = { 0 }, now = 0;
	struct uet_rccc_pacer pc;
	uint32_t idx, bytes;

	(void)state;
	pacer_setup(&pc, slot, 1, 0);
	uet_rccc_pacer_request(&pc, 0, 10 * QUANTUM);
	pacer_run(&pc, &now, 4, got);
	uet_rccc_pacer_request(&pc, 0, 10 * QUANTUM);  /* repeated */
	uet_rccc_pacer_request(&pc, 0, 3 * QUANTUM);   /* stale */
	pacer_run(&pc, &now, 6, got);
	assert_int_equal(got[0], 10 * QUANTUM);
	now = uet_rccc_pacer_next(&pc);
	assert_int_equal(uet_rccc_pacer_poll(&pc, now, &idx, &bytes), 0);
	/* Across the wrap: granted 0xFFFFFF00 + 256 -> 0, then 2 quanta. */
	slot[0].granted = slot[0].target = 0xFFFFFF00u;
	uet_rccc_pacer_request(&pc, 0, 2 * QUANTUM - 256);
	memset(got, 0, sizeof(got));
	pacer_run(&pc, &now, 2, got);
	assert_int_equal(got[0], 2 * QUANTUM);
	assert_int_equal(slot[0].granted, 2 * QUANTUM - 256);
}

/* 15 sources asking for 2 MB each: round-robin keeps them within one
 * quantum of each other after every grant, and the grants leave at 0.99
 * of the line rate. */
static void
uet_rccc_pacer_poll__fair_round_robin_15_sources(void **state)
{
	struct uet_rccc_slot slot[NSRC];
	uint64_t got[NSRC] = { 0 }, now = 0, lo, hi;
	struct uet_rccc_pacer pc;
	uint32_t i, g;

	(void)state;
	pacer_setup(&pc, slot, NSRC, BDP);
	for (i = 0; i < NSRC; i++)
		assert_int_equal(uet_rccc_pacer_request(&pc, i, 2000000), 0);
	for (g = 0; g < 1500; g++) {
		pacer_run(&pc, &now, 1, got);
		lo = hi = got[0];
		for (i = 1; i < NSRC; i++) {
			lo = got[i] < lo ? got[i] : lo;
			hi = got[i] > hi ? got[i] : hi;
		}
		assert_true(hi - lo <= QUANTUM);
	}
	for (i = 0; i < NSRC; i++)
		assert_int_equal(got[i], 100 * QUANTUM);
	assert_int_equal(pc.granted, 1500ull * QUANTUM);
	/* 1500 grants of 351 676 ps: 6 528 000 B in 527.514 us, that is
	 * 99.0 Gb/s. */
	assert_int_equal(pc.next_ns * 1000 + pc.next_frac_ps,
			 1500ull * GRANT_PS);
	assert_int_equal(uet_rccc_pacer_next(&pc), 527514);
}

/* A source that wants little gets only that (rounded up to 256 B); a
 * source joining later gets an equal share from then on; a released
 * source gets nothing more. */
static void
uet_rccc_pacer_poll__partial_wants_join_and_release(void **state)
{
	struct uet_rccc_slot slot[4];
	uint64_t got[4] = { 0 }, now = 0;
	struct uet_rccc_pacer pc;

	(void)state;
	pacer_setup(&pc, slot, 4, 0);
	uet_rccc_pacer_request(&pc, 0, 1000);
	uet_rccc_pacer_request(&pc, 1, 1000000);
	uet_rccc_pacer_request(&pc, 2, 1000000);
	pacer_run(&pc, &now, 21, got);
	assert_int_equal(got[0], 1024);
	assert_int_equal(got[1], 10 * QUANTUM);
	assert_int_equal(got[2], 10 * QUANTUM);
	uet_rccc_pacer_request(&pc, 3, 1000000);
	memset(got, 0, sizeof(got));
	pacer_run(&pc, &now, 30, got);
	assert_int_equal(got[1], 10 * QUANTUM);
	assert_int_equal(got[2], 10 * QUANTUM);
	assert_int_equal(got[3], 10 * QUANTUM);
	assert_int_equal(uet_rccc_pacer_release(&pc, 2), 0);
	memset(got, 0, sizeof(got));
	pacer_run(&pc, &now, 20, got);
	assert_int_equal(got[2], 0);
	assert_int_equal(got[1], 10 * QUANTUM);
	assert_int_equal(got[3], 10 * QUANTUM);
	assert_int_equal(uet_rccc_pacer_request(&pc, 4, 1), -ERANGE);
	assert_int_equal(uet_rccc_pacer_release(&pc, 4), -ERANGE);
}

/* Grants wait for their time; after an idle spell a late call catches
 * up a single quantum, it does not burst the idle time's worth. */
static void
uet_rccc_pacer_poll__paced_without_bursts(void **state)
{
	struct uet_rccc_slot slot[1];
	struct uet_rccc_pacer pc;
	uint32_t idx, bytes;

	(void)state;
	pacer_setup(&pc, slot, 1, 0);
	assert_int_equal(uet_rccc_pacer_poll(&pc, 0, &idx, &bytes), 0);
	uet_rccc_pacer_request(&pc, 0, 1000000);
	assert_int_equal(uet_rccc_pacer_poll(&pc, 0, &idx, &bytes), 1);
	assert_int_equal(idx, 0);
	assert_int_equal(bytes, QUANTUM);
	assert_int_equal(uet_rccc_pacer_poll(&pc, 351, &idx, &bytes), 0);
	assert_int_equal(uet_rccc_pacer_next(&pc), 352);
	assert_int_equal(uet_rccc_pacer_poll(&pc, 352, &idx, &bytes), 1);
	assert_int_equal(uet_rccc_pacer_poll(&pc, 352, &idx, &bytes), 0);
	/* 10 us later: two grants (the due one and one caught up). */
	assert_int_equal(uet_rccc_pacer_poll(&pc, 10352, &idx, &bytes), 1);
	assert_int_equal(uet_rccc_pacer_poll(&pc, 10352, &idx, &bytes), 1);
	assert_int_equal(uet_rccc_pacer_poll(&pc, 10352, &idx, &bytes), 0);
	assert_int_equal(pc.granted, 4ull * QUANTUM);
	/* A clock past 2^64 ps (213 days in ns) paces the same way. */
	assert_int_equal(uet_rccc_pacer_poll(&pc, 1ull << 62, &idx, &bytes),
			 1);
	assert_int_equal(uet_rccc_pacer_poll(&pc, 1ull << 62, &idx, &bytes),
			 1);
	assert_int_equal(uet_rccc_pacer_poll(&pc, 1ull << 62, &idx, &bytes),
			 0);
	assert_int_equal(uet_rccc_pacer_next(&pc), (1ull << 62) + 352);
}

/*
 * The pacer's share is of the wire (htsim paces wire bytes at 0.99): with
 * frame_ppm each grant also takes its framing's time. 4352 B and 4373
 * ppm (18 B per 4116 nominal: IPv4, 4 KB MTU) are 4352 + 20 = 4372 wire
 * bytes, 353 293 ps at 99 Gb/s instead of 351 677; after 100 grants the
 * wire rate is 0.99 of the line, not 0.994. A share above a million is
 * refused.
 */
static void
uet_rccc_pacer_poll__frame_ppm_paces_wire_bytes(void **state)
{
	struct uet_rccc_pacer_config c;
	struct uet_rccc_slot slot[1];
	struct uet_rccc_pacer pc;
	uint32_t idx, bytes, k;
	const char *why = NULL;
	uint64_t now = 0;

	(void)state;
	assert_int_equal(uet_rccc_pacer_config_default(&c, LINK, MTU, 0), 0);
	assert_int_equal(c.frame_ppm, 0);
	c.frame_ppm = 4373;
	assert_int_equal(uet_rccc_pacer_init(&pc, &c, slot, 1, NULL), 0);
	uet_rccc_pacer_request(&pc, 0, 200u * QUANTUM);
	assert_int_equal(uet_rccc_pacer_poll(&pc, 0, &idx, &bytes), 1);
	assert_int_equal(uet_rccc_pacer_next(&pc), 354); /* 353.293 ns */
	for (k = 1; k < 100; k++) {
		now = uet_rccc_pacer_next(&pc);
		assert_int_equal(uet_rccc_pacer_poll(&pc, now, &idx, &bytes),
				 1);
	}
	/* 100 grants end at 100 x 4372 x 8 / 99 = 35 329.3 ns */
	assert_int_equal(uet_rccc_pacer_next(&pc), 35330);
	c.frame_ppm = 1000001;
	assert_int_equal(uet_rccc_pacer_init(&pc, &c, slot, 1, &why),
			 -EINVAL);
	assert_string_equal(why, "frame_ppm (0..1000000)");
}

/* With no source asking, known idle sources get speculative credit up
 * to spec_max (10 000 B: 4352 + 4352 + 1296 rounded up to 1536), active
 * sources always first; a new request (beyond what was granted) resets
 * the allowance. */
static void
uet_rccc_pacer_poll__speculative_credit_for_idle(void **state)
{
	struct uet_rccc_slot slot[3];
	uint64_t got[3] = { 0 }, now = 0;
	struct uet_rccc_pacer pc;
	uint32_t idx, bytes;

	(void)state;
	pacer_setup(&pc, slot, 3, 10000);
	uet_rccc_pacer_request(&pc, 0, 0);     /* known, idle */
	pacer_run(&pc, &now, 3, got);
	assert_int_equal(got[0], 4352 + 4352 + 1536);
	assert_int_equal(slot[0].spec, 10000);
	now = uet_rccc_pacer_next(&pc);
	assert_int_equal(uet_rccc_pacer_poll(&pc, now, &idx, &bytes), 0);
	/* Slot 2 never asked: unknown, nothing. Slot 1 asks: served first
	 * even though slot 0 could take more after a reset. */
	uet_rccc_pacer_request(&pc, 1, QUANTUM);
	/* Targets are cumulative: 5000 is below the 10 240 granted (the
	 * speculative grants count), nothing more; 5000 beyond them asks
	 * for more and resets the allowance. */
	uet_rccc_pacer_request(&pc, 0, 5000);
	assert_int_equal(slot[0].spec, 10000);
	uet_rccc_pacer_request(&pc, 0, 10240 + 5000);
	assert_int_equal(slot[0].spec, 0);
	memset(got, 0, sizeof(got));
	pacer_run(&pc, &now, 3, got);
	assert_int_equal(got[1], QUANTUM);
	assert_int_equal(got[0], 5120);        /* 4352 + 768 */
	assert_int_equal(got[2], 0);
	/* Both idle again: speculative round-robin between 0 and 1. */
	memset(got, 0, sizeof(got));
	pacer_run(&pc, &now, 2, got);
	assert_int_equal(got[0], QUANTUM);
	assert_int_equal(got[1], QUANTUM);
}

/* ACK_CC cc_type 1 carries the grant in 256 B units. */
static void
uet_rccc_fill__credit_units(void **state)
{
	struct uet_wire_pds_credit_state st;
	struct uet_rccc_src s = { .credit = 0 };

	(void)state;
	uet_rccc_fill(&st, QUANTUM, 7);
	assert_int_equal(st.credit, 17);
	assert_int_equal(st.ooo_count, 7);
	uet_rccc_src_on_credit(&s, uet_rccc_bytes(st.credit), 1u << 30);
	assert_int_equal(s.credit, QUANTUM);
	uet_rccc_fill(&st, 1000, 0);
	assert_int_equal(st.credit, 4);
}

/* Sends of a source that gets @p grants grants of @p g bytes, each
 * credited rounded down to whole units as the wire carries them (the
 * cumulative total), under the send-on-any-credit rule with packets of
 * @p pkt bytes: the most packets one grant released. */
static uint32_t
src_sends_per_grant(uint32_t g, uint32_t pkt, uint32_t grants)
{
	struct uet_rccc_src s;
	uint64_t total = 0;
	uint32_t k, n, most = 0;

	uet_rccc_src_init(&s, 0);
	uet_rccc_src_stop_speculating(&s);
	for (k = 0; k < grants; k++) {
		total += g;
		uet_rccc_src_on_credit(&s, (uint32_t)(total & ~255ull), 1u << 30);
		for (n = 0; uet_rccc_src_may_send(&s, pkt) && n < 8; n++)
			uet_rccc_src_on_send(&s, pkt);
		most = n > most ? n : most;
	}
	return most;
}

/* A 64 KiB message cut into 17 packets of 3959 nominal bytes, quanta of
 * 4352 B: every tenth grant released two packets back to back, in the
 * same round for sources whose credit started alike (a 63:1 incast swung
 * the last-hop queue from empty to the trim threshold). Grants of the
 * source's packet release one each; a packet below a unit is granted a
 * unit; no size, or one above the quantum, leaves quanta. */
static void
uet_rccc_pacer_packet__one_packet_per_grant(void **state)
{
	struct uet_rccc_pacer pc;
	struct uet_rccc_slot slot[2];
	uint64_t now = 0, got[2] = { 0, 0 };

	(void)state;
	assert_int_equal(src_sends_per_grant(QUANTUM, 3959, 200), 2);
	assert_int_equal(src_sends_per_grant(3959, 3959, 200), 1);
	pacer_setup(&pc, slot, 2, 0);
	assert_int_equal(uet_rccc_pacer_request(&pc, 0, 1u << 20), 0);
	assert_int_equal(uet_rccc_pacer_request(&pc, 1, 1u << 20), 0);
	assert_int_equal(uet_rccc_pacer_packet(&pc, 0, 3959), 0);
	assert_int_equal(uet_rccc_pacer_packet(&pc, 1, 100), 0);
	pacer_run(&pc, &now, 20, got);
	assert_int_equal(got[0], 10 * 3959);
	assert_int_equal(got[1], 10 * UET_RCCC_UNIT);
	assert_int_equal(uet_rccc_pacer_packet(&pc, 0, 0), 0);
	assert_int_equal(uet_rccc_pacer_packet(&pc, 1, QUANTUM + 1), 0);
	got[0] = got[1] = 0;
	pacer_run(&pc, &now, 2, got);
	assert_int_equal(got[0], QUANTUM);
	assert_int_equal(got[1], QUANTUM);
	assert_int_equal(uet_rccc_pacer_packet(&pc, 2, 3959), -ERANGE);
}

/*
 * Data beyond a source's grants that arrives ECN-marked (a speculative
 * start that met the last hop's queue) takes its wire time from the
 * grants, as if granted when it arrived; unmarked, within the grants, or
 * with charge_marked off, it costs nothing, and an unmarked excess is
 * not charged later by a marked packet. QUANTUM bytes take 352 ns.
 */
static void
uet_rccc_pacer_arrival__marked_excess_delays_the_grants(void **state)
{
	struct uet_rccc_pacer_config c;
	struct uet_rccc_slot slot[2];
	struct uet_rccc_pacer pc;
	const char *why = NULL;
	uint32_t idx, bytes;

	(void)state;
	pacer_setup(&pc, slot, 2, 0);
	/* a lone flow's unmarked first window: nothing, now or later */
	assert_int_equal(uet_rccc_pacer_arrival(&pc, 0, 10 * QUANTUM, false,
						0), 0);
	assert_int_equal(uet_rccc_pacer_request(&pc, 0, 1u << 20), 0);
	assert_int_equal(uet_rccc_pacer_poll(&pc, 0, &idx, &bytes), 1);
	assert_int_equal(uet_rccc_pacer_next(&pc), 352);
	/* granted data, marked: nothing (the grant paid for it) */
	assert_int_equal(uet_rccc_pacer_arrival(&pc, 0, QUANTUM, true, 100),
			 0);
	assert_int_equal(uet_rccc_pacer_next(&pc), 352);
	/* source 1's speculative data arrives marked: two quanta charged,
	 * the next grant two quanta later (703.4 ns, rounded up) */
	assert_int_equal(uet_rccc_pacer_arrival(&pc, 1, 2 * QUANTUM, true,
						100), 2 * QUANTUM);
	assert_int_equal(uet_rccc_pacer_next(&pc), 352 + 704);
	assert_int_equal(uet_rccc_pacer_poll(&pc, 1055, &idx, &bytes), 0);
	assert_int_equal(uet_rccc_pacer_poll(&pc, 1056, &idx, &bytes), 1);
	/* the excess is charged once: a marked arrival that brings
	 * nothing new beyond the grants costs nothing */
	assert_int_equal(uet_rccc_pacer_arrival(&pc, 1, 0, true, 1100), 0);
	assert_int_equal(uet_rccc_pacer_arrival(&pc, 0, 0, true, 1100), 0);
	/* a pacer long behind: the quantum it banked pays for it */
	assert_int_equal(uet_rccc_pacer_arrival(&pc, 1, QUANTUM, true,
						1000000), QUANTUM);
	assert_int_equal(uet_rccc_pacer_next(&pc), 1000000);
	assert_int_equal(uet_rccc_pacer_arrival(&pc, 2, QUANTUM, true, 0),
			 -ERANGE);
	/* off: marked excess costs nothing */
	pacer_setup(&pc, slot, 2, 0);
	pc.cfg.charge_marked = 0;
	assert_int_equal(uet_rccc_pacer_arrival(&pc, 1, 2 * QUANTUM, true,
						100), 0);
	assert_int_equal(uet_rccc_pacer_next(&pc), 0);
	c = pc.cfg;
	c.charge_marked = 2;
	assert_int_equal(uet_rccc_pacer_init(&pc, &c, slot, 2, &why), -EINVAL);
	assert_string_equal(why, "charge_marked (0 or 1)");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(uet_rccc_units__round_up_and_saturate),
		cmocka_unit_test(uet_rccc_src__speculative_credit_and_gate),
		cmocka_unit_test(
			uet_rccc_src_may_send__any_credit_none_without),
		cmocka_unit_test(uet_rccc_src_on_send__overdraft_leaves_a_debt),
		cmocka_unit_test(uet_rccc_src_credit_target__formula),
		cmocka_unit_test(
			uet_rccc_src_stop_speculating__drops_spare_credit_once),
		cmocka_unit_test(
			uet_rccc_pacer_request__cumulative_target_granted_once),
		cmocka_unit_test(uet_cms_cc_may_send__both_must_allow),
		cmocka_unit_test(
			uet_rccc_pacer_config_default__values_and_checks),
		cmocka_unit_test(
			uet_rccc_pacer_poll__fair_round_robin_15_sources),
		cmocka_unit_test(
			uet_rccc_pacer_poll__partial_wants_join_and_release),
		cmocka_unit_test(uet_rccc_pacer_poll__paced_without_bursts),
		cmocka_unit_test(uet_rccc_pacer_poll__frame_ppm_paces_wire_bytes),
		cmocka_unit_test(
			uet_rccc_pacer_poll__speculative_credit_for_idle),
		cmocka_unit_test(uet_rccc_fill__credit_units),
		cmocka_unit_test(uet_rccc_pacer_packet__one_packet_per_grant),
		cmocka_unit_test(
			uet_rccc_pacer_arrival__marked_excess_delays_the_grants),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
