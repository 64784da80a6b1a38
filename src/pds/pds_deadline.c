/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * When does the timer wheel next have work? A virtual clock (the fabric
 * driver of the engine) jumps to that time when every engine and the
 * network are idle, instead of stepping through empty ticks.
 *
 * uet_pds_advance() visits the slots of ticks wheel_now + 1, + 2, ... and
 * fires a node whose deadline has passed, re-filing the others (a node
 * parked at the horizon, or one whose deadline lies later in its tick).
 * The first non-empty slot is therefore the first tick with work; within
 * it, the earliest node fires at max(tick start, deadline), and a node
 * whose deadline lies beyond that tick is only re-filed, at the tick start
 * (pds_timer.c keeps a node whose deadline moved later where it was). A
 * node left filed with nothing due (PDS_TIMER_NONE) is no work: the visit
 * drops it whenever it comes.
 */

#include "pds_private.h"

static uint64_t
slot_deadline(const struct uet_pds *p, uint32_t node, uint64_t tick)
{
	uint64_t start = tick * p->cfg.timer_tick_ns;
	uint64_t end = start + p->cfg.timer_tick_ns;
	uint64_t t = UINT64_MAX;

	for (; node != PDS_TNIL; node = p->tnode[node].next) {
		uint64_t d = p->tnode[node].deadline;

		if (d == PDS_TIMER_NONE)
			continue; /* dropped by the visit: no work */
		if (d >= end || d < start)
			d = start;
		if (d < t)
			t = d;
	}
	return t;
}

/* How many slots after @p from (0: @p from itself), in visit order, the
 * first non-empty one is; timer_slots when every slot is empty. The
 * bitmap makes this a few word tests instead of a walk of the slots: a
 * virtual clock asks it at every turn, of every instance. */
static uint32_t
wheel_next_busy(const struct uet_pds *p, uint32_t from)
{
	uint32_t nw = PDS_WHEEL_WORDS(p->cfg.timer_slots), w = from / 64, k;
	uint64_t bits = p->wheel_busy[w] & (~0ull << (from % 64));

	for (k = 0; k <= nw; k++) {
		if (bits != 0)
			return (w * 64 + (uint32_t)__builtin_ctzll(bits) - from) &
			       (p->cfg.timer_slots - 1);
		w = w + 1 == nw ? 0 : w + 1;
		bits = p->wheel_busy[w];
	}
	return p->cfg.timer_slots;
}

static uint64_t
wheel_deadline(const struct uet_pds *p)
{
	uint32_t mask = p->cfg.timer_slots - 1;
	uint64_t t = p->wheel_now + 1;

	/* a busy slot whose nodes are all dropped-to-be (lazy timers) is
	 * no work: look on past it */
	for (uint64_t end = t + mask; t <= end; t++) {
		uint32_t d = wheel_next_busy(p, (uint32_t)(t & mask));
		uint64_t dl;

		if (d == p->cfg.timer_slots || t + d > end)
			break;
		t += d;
		dl = slot_deadline(p, p->wheel[t & mask], t);
		if (dl != UINT64_MAX)
			return dl;
	}
	return UINT64_MAX;
}

/* The CC's pull pacer (UEC 1.0 RCCC) grants from uet_pds_advance() too. */
uint64_t
uet_pds_next_deadline(const struct uet_pds *p)
{
	uint64_t t = wheel_deadline(p), g;

	if (p->cc->next_deadline != NULL) {
		g = p->cc->next_deadline(p->cc_inst);
		if (g < t)
			t = g;
	}
	return t;
}
