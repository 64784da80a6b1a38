/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The engine clock and its timer horizon.
 *
 * Every loop iteration takes one timestamp (engine_now_ns(), inline in
 * engine_private.h): the TSC scaled to ns by default, or a clock injected
 * at creation (struct uet_engine_clock), for instance the virtual clock of
 * the fabric driver (pmd/fabric/fabric_eth.c), which only moves when the
 * driver moves it. A virtual clock needs to know when the engine next
 * has something to do without a packet arriving:
 * uet_engine_next_deadline() gathers the hook's timers (the PDS timer
 * wheel) and the engine's own (neighbour probes, frames held by fault
 * injection).
 */

#include <stdint.h>

#include <rte_common.h>

#include "engine_private.h"

uint64_t
uet_engine_now(const struct uet_engine *e)
{
	return engine_now_ns(e);
}

/* Next probe of a resolving neighbour entry (none when nothing is
 * pending: learnt and static entries never age). */
static uint64_t
neigh_deadline(const struct uet_engine_lcore *lc)
{
	uint64_t t = UINT64_MAX;

	if (lc->neigh_pending == 0)
		return t;
	for (unsigned int i = 0; i < UET_ENGINE_NEIGH_SIZE; i++)
		if (lc->neigh[i].state == ENG_NEIGH_PENDING)
			t = RTE_MIN(t, lc->neigh[i].next_probe_ns);
	return t;
}

static uint64_t
fault_queue_deadline(const struct engine_fault_queue *q)
{
	uint64_t t = UINT64_MAX;

	for (uint32_t i = 0; i < q->count; i++)
		t = RTE_MIN(t, q->h[(q->head + i) % ENG_FAULT_HOLD].due_ns);
	return t;
}

/* Held frames (delay; reorder's time limit) are released by time. */
static uint64_t
fault_deadline(const struct uet_engine_lcore *lc)
{
	uint64_t t = UINT64_MAX;

	if (!lc->fault_on)
		return t;
	for (unsigned int d = 0; d < UET_CONFIG_FAULT_DIRS; d++) {
		t = RTE_MIN(t, fault_queue_deadline(&lc->fault[d].delay));
		t = RTE_MIN(t, fault_queue_deadline(&lc->fault[d].reorder));
	}
	return t;
}

/* One context's timers; also what a sleeping AUTO lcore waits for
 * (sleep.c). Only by the thread that runs the context. */
uint64_t
engine_lcore_deadline(const struct uet_engine_lcore *lc)
{
	const struct uet_engine *e = lc->eng;
	uint64_t t = UINT64_MAX;

	/* frames in its local queues: the context has work now (an
	 * application thread that queued them wakes the lcore for them,
	 * a sleeping lcore does not block, a virtual clock does not move) */
	if (engine_local_delivery_pending(lc))
		return lc->now;
	if (e->hook.next_deadline != NULL)
		t = e->hook.next_deadline(lc->hook_priv,
					  (struct uet_engine_lcore *)lc);
	t = RTE_MIN(t, neigh_deadline(lc));
	return RTE_MIN(t, fault_deadline(lc));
}

uint64_t
uet_engine_next_deadline(const struct uet_engine *e)
{
	uint64_t t = UINT64_MAX;

	if (e == NULL)
		return t;
	for (unsigned int i = 0; i < e->nb_lcores; i++)
		t = RTE_MIN(t, engine_lcore_deadline(e->lc[i]));
	return t;
}
