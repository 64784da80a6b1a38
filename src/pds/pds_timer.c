/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * One coarse timer wheel per instance (no per-packet timers: per-PDC timestamps
 * instead). Each PDC and each RUDI slot owns one node holding its earliest
 * deadline; the handler re-derives what is due (RTO, tail-loss probe, back-off,
 * delayed ACK, idle close) from per-PDC timestamps and re-arms. Deadlines
 * past the wheel's horizon park in the farthest slot and are re-filed when
 * visited.
 *
 * Lazy: a deadline that moves later leaves its node where it is, when the
 * wheel visits that slot first (the visit re-files it), and a PDC with
 * nothing due leaves its node filed with PDS_TIMER_NONE (the visit drops
 * it). A request alone on its PDC arms the RTO when it leaves and has
 * nothing due once ACKed: per message, that would unlink and relink a
 * node, touching its neighbours' nodes and the slot head, cache lines of
 * other PDCs; lazily, the node moves at most once per visit of its slot.
 */

#include <stdlib.h>

#include "pds_private.h"

int
pds_timer_init(struct uet_pds *p, uint64_t now)
{
	uint32_t n = 2 * p->cap + p->cfg.rudi_slots, i;

	p->tnode = malloc(n * sizeof(*p->tnode));
	p->wheel = malloc(p->cfg.timer_slots * sizeof(*p->wheel));
	p->wheel_busy = calloc(PDS_WHEEL_WORDS(p->cfg.timer_slots),
			       sizeof(*p->wheel_busy));
	if (p->tnode == NULL || p->wheel == NULL || p->wheel_busy == NULL) {
		pds_timer_fini(p);
		return -ENOMEM;
	}
	for (i = 0; i < n; i++)
		p->tnode[i].slot = PDS_TSLOT_NIL;
	for (i = 0; i < p->cfg.timer_slots; i++)
		p->wheel[i] = PDS_TNIL;
	p->wheel_now = now / p->cfg.timer_tick_ns;
	return 0;
}

void
pds_timer_fini(struct uet_pds *p)
{
	free(p->tnode);
	free(p->wheel);
	free(p->wheel_busy);
	p->tnode = NULL;
	p->wheel = NULL;
	p->wheel_busy = NULL;
}

void
pds_timer_cancel(struct uet_pds *p, uint32_t node)
{
	struct pds_tnode *t = &p->tnode[node];

	if (!pds_tnode_filed(t))
		return;
	if (t->prev == PDS_TNIL) {
		p->wheel[t->slot] = t->next;
		if (t->next == PDS_TNIL)
			p->wheel_busy[t->slot / 64] &=
				~(1ull << (t->slot % 64));
	} else
		p->tnode[t->prev].next = t->next;
	if (t->next != PDS_TNIL)
		p->tnode[t->next].prev = t->prev;
	t->slot = PDS_TSLOT_NIL;
}

/* The next tick at which the wheel visits @p slot. */
static uint64_t
pds_timer_visit(const struct uet_pds *p, uint32_t slot)
{
	uint64_t first = p->wheel_now + 1;

	return first + ((slot - first) & (p->cfg.timer_slots - 1));
}

void
pds_timer_arm(struct uet_pds *p, uint32_t node, uint64_t deadline)
{
	struct pds_tnode *t = &p->tnode[node];
	uint64_t tick = deadline / p->cfg.timer_tick_ns;
	uint64_t horizon = p->wheel_now + p->cfg.timer_slots - 1;

	if (pds_tnode_filed(t) && t->deadline == deadline)
		return;
	/* Ticks up to wheel_now are done: a due deadline fires next tick. */
	if (tick <= p->wheel_now)
		tick = p->wheel_now + 1;
	if (tick > horizon)
		tick = horizon;
	t->deadline = deadline;
	/* Filed in a slot visited before that tick: the visit re-files it. */
	if (pds_tnode_filed(t) && tick > pds_timer_visit(p, t->slot))
		return;
	/* Already filed in that slot: the slot's next visit is this tick
	 * (ticks within the horizon map to distinct slots), no relinking. */
	if (t->slot == (tick & (p->cfg.timer_slots - 1)))
		return;
	pds_timer_cancel(p, node);
	t->slot = tick & (p->cfg.timer_slots - 1);
	t->prev = PDS_TNIL;
	t->next = p->wheel[t->slot];
	if (t->next != PDS_TNIL)
		p->tnode[t->next].prev = node;
	p->wheel[t->slot] = node;
	p->wheel_busy[t->slot / 64] |= 1ull << (t->slot % 64);
}

static void
pds_timer_fire(struct uet_pds *p, uint32_t node, uint64_t now)
{
	struct pds_pdc *c;

	if (node >= 2 * p->cap) {
		pds_rudi_timer(p, node - 2 * p->cap, now);
		return;
	}
	c = &p->pdc[node];
	if (c->state == PDC_FREE)
		return;
	/* Both PSN spaces share the node: each part re-derives what is due. */
	pds_initiator_timer(p, c, now);
	if (c->state != PDC_FREE)
		pds_target_timer(p, c, now);
}

static bool
pds_timer_slot(struct uet_pds *p, uint32_t slot, uint64_t now)
{
	uint32_t node;

	while ((node = p->wheel[slot]) != PDS_TNIL) {
		/* Stop when what fires could not be reported (events are
		 * reserved per handler); the rest stays armed. */
		if (pds_event_room(p) < p->cfg.tx_window + 2)
			return false;
		pds_timer_cancel(p, node);
		if (p->tnode[node].deadline == PDS_TIMER_NONE)
			continue;
		if (p->tnode[node].deadline <= now)
			pds_timer_fire(p, node, now);
		else
			pds_timer_arm(p, node, p->tnode[node].deadline);
	}
	return true;
}

void
uet_pds_advance(struct uet_pds *p, uint64_t now)
{
	uint64_t now_tick = now / p->cfg.timer_tick_ns;
	uint64_t t;

	p->cc_now = now;
	pds_commit(p, now);
	pds_cc_grants(p, now);
	if (now_tick <= p->wheel_now)
		return;
	t = p->wheel_now + 1;
	/* A long pause visits every slot once; far deadlines re-file. */
	if (now_tick - t >= p->cfg.timer_slots)
		t = now_tick - p->cfg.timer_slots + 1;
	for (; t <= now_tick; t++) {
		p->wheel_now = t;
		if (!pds_timer_slot(p, (uint32_t)(t & (p->cfg.timer_slots - 1)),
				    now)) {
			/* Resume this slot on the next call. */
			p->wheel_now = t - 1;
			return;
		}
	}
}

void
pds_pdc_timer_update(struct uet_pds *p, struct pds_pdc *c, uint64_t now)
{
	uint64_t d, r;

	(void)now;
	if (c->state == PDC_FREE)
		return;
	d = pds_initiator_deadline(p, c);
	r = pds_target_deadline(p, c);
	if (d == 0 || (r != 0 && r < d))
		d = r;
	if (d != 0)
		pds_timer_arm(p, pds_idx(p, c), d);
	else if (pds_tnode_filed(&p->tnode[pds_idx(p, c)]))
		p->tnode[pds_idx(p, c)].deadline = PDS_TIMER_NONE;
}
