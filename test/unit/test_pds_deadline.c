/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * uet_pds_next_deadline() (src/pds/pds_deadline.c): what a virtual clock
 * jumps to when nothing else happens. Driven through RUDI slot nodes and
 * a real RTO over the fake wire.
 */

#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "pds_fakewire.h"
#include "pds_private.h"

static void
pds_next_deadline__idle_is_max(void **state)
{
	(void)state;
	assert_true(uet_pds_next_deadline(W.pds[0]) == UINT64_MAX);
}

static void
pds_next_deadline__armed_node_exact(void **state)
{
	struct uet_pds *p = W.pds[0];
	uint32_t a = pds_rudi_node(p, 0), b = pds_rudi_node(p, 1);
	uint64_t tick = p->cfg.timer_tick_ns;
	uint64_t d = 10 * tick + tick / 3;

	(void)state;
	p->rudi[0].busy = 0;
	p->rudi[1].busy = 0;
	pds_timer_arm(p, b, 20 * tick);
	pds_timer_arm(p, a, d);
	/* the earlier of the two, to the nanosecond */
	assert_true(uet_pds_next_deadline(p) == d);
	uet_pds_advance(p, d);
	assert_false(pds_tnode_filed(&p->tnode[a]));
	assert_true(uet_pds_next_deadline(p) == 20 * tick);
}

static void
pds_next_deadline__visited_tick_defers_to_next_tick(void **state)
{
	struct uet_pds *p = W.pds[0];
	uint32_t a = pds_rudi_node(p, 0);
	uint64_t tick = p->cfg.timer_tick_ns;
	uint64_t d = 10 * tick + tick / 2;

	(void)state;
	p->rudi[0].busy = 0;
	pds_timer_arm(p, a, d);
	/* Another event earlier in the same tick makes the wheel visit that
	 * tick before the deadline: the node moves to the next tick, and
	 * the answer follows it (when the wheel will fire, not before). */
	uet_pds_advance(p, 10 * tick + 1);
	assert_true(pds_tnode_filed(&p->tnode[a]));
	assert_true(uet_pds_next_deadline(p) == 11 * tick);
	uet_pds_advance(p, 11 * tick - 1);
	assert_true(pds_tnode_filed(&p->tnode[a]));
	uet_pds_advance(p, 11 * tick);
	assert_false(pds_tnode_filed(&p->tnode[a]));
	assert_true(uet_pds_next_deadline(p) == UINT64_MAX);
}

static void
pds_next_deadline__parked_node_reached_by_jumps(void **state)
{
	struct uet_pds *p = W.pds[0];
	uint32_t node = pds_rudi_node(p, 0);
	uint64_t far = 3 * p->cfg.timer_slots * p->cfg.timer_tick_ns + 77;
	uint64_t t, last = 0;
	unsigned int jumps = 0;

	(void)state;
	p->rudi[0].busy = 0;
	pds_timer_arm(p, node, far);
	/* Beyond the horizon: each jump re-files it, never past it, and the
	 * clock always moves forward. */
	while ((t = uet_pds_next_deadline(p)) != UINT64_MAX && jumps < 16) {
		assert_true(t > last);
		assert_true(t <= far);
		uet_pds_advance(p, t);
		last = t;
		jumps++;
	}
	assert_true(t == UINT64_MAX);
	assert_true(last == far);
	assert_false(pds_tnode_filed(&p->tnode[node]));
	assert_true(jumps <= 4);
}

static void
pds_next_deadline__rto_fires_at_a_jump(void **state)
{
	struct uet_pds *p = W.pds[0];
	struct uet_pds_tx tx[8];
	uint64_t t, last;
	unsigned int jumps = 0;
	uint16_t n = 0;

	(void)state;
	assert_int_equal(fakewire_submit(&W, UET_PDS_MODE_RUD, 1, 0), 0);
	assert_true(fakewire_take(&W, 0, tx, 8) >= 1); /* sent, then lost */
	last = W.now;
	/* Jump from deadline to deadline (a tail-loss probe may come
	 * first): the clock only moves forward, and the RTO retransmits. */
	while (fakewire_st(0)->retx_rto == 0 && jumps < 8) {
		t = uet_pds_next_deadline(p);
		assert_true(t != UINT64_MAX);
		assert_true(t > last);
		uet_pds_advance(p, t);
		n = uet_pds_tx_burst(p, t, tx, 8);
		last = t;
		jumps++;
	}
	assert_true(fakewire_st(0)->retx_rto == 1);
	assert_true(n >= 1);
	assert_true(tx[0].kind == UET_PDS_TX_RETX);
	assert_true(last - W.now >= p->cfg.rto_init_ns);
}

/* The answer of the slot walk the bitmap of busy slots stands for: the
 * first non-empty slot after wheel_now, its earliest node clamped into
 * its tick. */
static uint64_t
walk_deadline(const struct uet_pds *p)
{
	uint64_t tick = p->cfg.timer_tick_ns, t, d, best;
	uint32_t mask = p->cfg.timer_slots - 1, node;

	for (t = p->wheel_now + 1; t <= p->wheel_now + p->cfg.timer_slots;
	     t++) {
		node = p->wheel[t & mask];
		if (node == PDS_TNIL)
			continue;
		best = UINT64_MAX;
		for (; node != PDS_TNIL; node = p->tnode[node].next) {
			d = p->tnode[node].deadline;
			if (d < t * tick || d >= (t + 1) * tick)
				d = t * tick;
			if (d < best)
				best = d;
		}
		return best;
	}
	return UINT64_MAX;
}

static void
pds_next_deadline__bitmap_matches_slot_walk(void **state)
{
	struct uet_pds *p = W.pds[0];
	uint64_t tick = p->cfg.timer_tick_ns, span, now = W.now, x = 12345;
	uint32_t n = p->cfg.rudi_slots < 16 ? p->cfg.rudi_slots : 16, k, i;

	(void)state;
	assert_true(n >= 2);
	for (k = 0; k < n; k++)
		p->rudi[k].busy = 0;
	/* Deadlines in every word of the bitmap, before and after the slot
	 * of wheel_now (the search wraps), some past the horizon; nodes
	 * cancelled and re-armed; the wheel advanced in steps. */
	span = 2ull * p->cfg.timer_slots * tick;
	for (i = 0; i < 2000; i++) {
		x = x * 6364136223846793005ull + 1442695040888963407ull;
		k = (uint32_t)(x >> 33) % n;
		if ((x >> 20) % 5 == 0)
			pds_timer_cancel(p, pds_rudi_node(p, k));
		else
			pds_timer_arm(p, pds_rudi_node(p, k),
				      now + (x >> 24) % span);
		if ((x >> 12) % 7 == 0) {
			now += (x >> 40) % (p->cfg.timer_slots * tick / 3);
			uet_pds_advance(p, now);
		}
		assert_true(uet_pds_next_deadline(p) == walk_deadline(p));
	}
	for (k = 0; k < n; k++)
		pds_timer_cancel(p, pds_rudi_node(p, k));
	assert_true(uet_pds_next_deadline(p) == UINT64_MAX);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		FW_TEST(pds_next_deadline__idle_is_max, fakewire_setup),
		FW_TEST(pds_next_deadline__armed_node_exact, fakewire_setup),
		FW_TEST(pds_next_deadline__visited_tick_defers_to_next_tick,
			fakewire_setup),
		FW_TEST(pds_next_deadline__parked_node_reached_by_jumps,
			fakewire_setup),
		FW_TEST(pds_next_deadline__rto_fires_at_a_jump, fakewire_setup),
		FW_TEST(pds_next_deadline__bitmap_matches_slot_walk,
			fakewire_setup),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
