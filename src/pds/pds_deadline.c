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

	for (; node != PDS_NIL; node = p->tnode[node].next) {
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

static uint64_t
wheel_deadline(const struct uet_pds *p)
{
	uint32_t mask = p->cfg.timer_slots - 1;

	for (uint64_t t = p->wheel_now + 1;
	     t <= p->wheel_now + p->cfg.timer_slots; t++) {
		uint32_t node = p->wheel[t & mask];
		uint64_t d;

		if (node != PDS_NIL &&
		    (d = slot_deadline(p, node, t)) != UINT64_MAX)
			return d;
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
