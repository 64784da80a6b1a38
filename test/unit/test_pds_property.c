/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Property test of the PDS over the fake wire: for each delivery mode, many
 * seeds and fault rates up to 20% (drop, duplicate, reorder, trim, CE) in
 * both directions:
 *  - RUD and ROD deliver every message exactly once, byte-exact, ROD in
 *    order; every cookie completes OK;
 *  - UUD never delivers a message twice;
 *  - RUDI delivers every completed message at least once;
 *  - a 100% dead path completes every cookie in error;
 *  - with return-direction data (UEC 1.0 PDS return-direction read responses:
 * the
 *    target answers every delivery with a RESPONSE_DATA request on the
 *    same PDC), RUD and ROD are exactly-once both ways, ROD in order per
 *    PDC both ways;
 *  - every pool is back to empty at the end (no leaks);
 *  - tail losses are probed with PROBE CPs (RUD and ROD).
 * No timing assertions: only fake time bounds the runs.
 */

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "pds_fakewire.h"
#include "pds_private.h"

#define NMSG 300
#define STEP_NS 2000

struct prop {
	uint8_t mode;
	bool resp;
	uint32_t rate;
	uint64_t seed;
	bool dead;
	bool ret;
};

static void
prop_cfg(struct uet_pds_config *cfg)
{
	uet_pds_config_default(cfg);
	cfg->max_pdcs = 16;
	cfg->max_rsv_pdcs = 4;
	cfg->tx_window = 64;
	cfg->rx_window = 128;
	cfg->tx_blocks = 8;
	cfg->rx_blocks = 8;
	cfg->resp_entries = 256;
	cfg->rudi_slots = 64;
	cfg->event_queue = 1024;
	cfg->max_retries = 12;
	cfg->max_backoffs = 12;
	cfg->idle_close_ns = 300000;
	cfg->cc_param = 16 * 1024;
	cfg->mtu = 1024;
}

static bool
prop_all_done(struct fakewire *w, void *arg)
{
	uint32_t *next = arg, i, r;

	if (*next < NMSG)
		return false;
	for (i = 0; i < NMSG; i++)
		if (w->done_ok[i] + w->done_err[i] == 0)
			return false;
	if (!w->ret_data)
		return true;
	for (i = 0; i < NMSG; i++) {
		r = FW_RET_BASE + i;
		if (!w->ret_refused[r] && w->done_ok[r] + w->done_err[r] == 0)
			return false;
	}
	return true;
}

static bool
prop_idle(struct fakewire *w, void *arg)
{
	(void)arg;
	return fakewire_pools_idle(w) && w->nq[0] == 0 && w->nq[1] == 0;
}

static void
prop_faults(struct fakewire *w, const struct prop *pr)
{
	int d;

	for (d = 0; d < 2; d++) {
		w->f[d].drop = pr->rate;
		/* UUD: the PDS must not duplicate; the wire may, so off. */
		w->f[d].dup = pr->mode == UET_PDS_MODE_UUD ? 0 : pr->rate / 2;
		w->f[d].reorder = pr->rate;
		w->f[d].trim = pr->rate / 2;
		w->f[d].ce = pr->rate;
	}
	w->f[0].dead = pr->dead;
}

/* Submit what the PDS accepts, step, until every message completed. */
static void
prop_drive(struct fakewire *w, const struct prop *pr)
{
	uint32_t next = 0;
	uint64_t end = w->now + 2000000000ull;
	uint8_t flags = pr->resp ? UET_PDS_SUBMIT_RESP : 0;

	while (w->now < end && !prop_all_done(w, &next)) {
		while (next < NMSG &&
		       fakewire_submit(w, pr->mode, next, flags) == 0)
			next++;
		fakewire_step(w, STEP_NS);
	}
	assert_true(prop_all_done(w, &next));
}

static void
prop_check(struct fakewire *w, const struct prop *pr)
{
	uint32_t i;

	assert_int_equal(w->bad_payload, 0);
	for (i = 0; i < NMSG; i++) {
		assert_int_equal(w->done_ok[i] + w->done_err[i], 1);
		if (pr->dead) {
			assert_int_equal(w->done_err[i], 1);
			continue;
		}
		if (pr->mode == UET_PDS_MODE_UUD) {
			assert_true(w->delivered[i] <= 1);
			continue;
		}
		assert_int_equal(w->done_ok[i], 1);
		if (pr->mode == UET_PDS_MODE_RUDI)
			assert_true(w->delivered[i] >= 1);
		else
			assert_int_equal(w->delivered[i], 1);
	}
	if (pr->mode == UET_PDS_MODE_ROD && !pr->dead)
		for (i = 0; i < NMSG; i++)
			assert_int_equal(w->order[i], i);
}

/* Return direction: every submission exactly once, in order per PDC for
 * ROD; a refused one (PDC gone) would never reach the wire. */
static void
prop_check_ret(struct fakewire *w, const struct prop *pr)
{
	uint32_t i, j, r, accepted = 0;

	for (i = 0; i < NMSG; i++) {
		r = FW_RET_BASE + i;
		if (w->ret_refused[r]) {
			assert_int_equal(w->delivered[r], 0);
			assert_int_equal(w->done_ok[r] + w->done_err[r], 0);
			continue;
		}
		accepted++;
		assert_int_equal(w->done_err[r], 0);
		assert_int_equal(w->done_ok[r], 1);
		assert_int_equal(w->delivered[r], 1);
	}
	/* A closing PDC takes return data until it drains: none refused. */
	assert_int_equal(accepted, NMSG);
	assert_int_equal(w->ret_enoent, 0);
	if (pr->mode != UET_PDS_MODE_ROD)
		return;
	for (i = 0; i < w->nrorder; i++)
		for (j = i + 1; j < w->nrorder; j++)
			if (w->rorder_pdc[i] == w->rorder_pdc[j])
				assert_true(w->rorder[i] < w->rorder[j]);
}

/* The faults really happened and were repaired by the PDS. */
static void
prop_sanity(struct fakewire *w, const struct prop *pr)
{
	const struct uet_pds_stats *st = uet_pds_stats_get(w->pds[0]);
	uint64_t retx = fakewire_retx_of(st);

	/* Counted as they leave: the counters are the resends sent. */
	assert_int_equal(retx, w->tx_retx[0]);
	assert_int_equal(fakewire_retx_of(uet_pds_stats_get(w->pds[1])),
			 w->tx_retx[1]);
	if (pr->rate >= 50000 && pr->mode != UET_PDS_MODE_UUD && !pr->dead)
		assert_true(retx > 0);
	if (pr->rate == 0 && !pr->dead)
		assert_int_equal(retx, 0);
	if (!pr->ret)
		return;
	/* The return direction repaired its own losses (side 1 sends). */
	st = uet_pds_stats_get(w->pds[1]);
	retx = fakewire_retx_of(st);
	if (pr->rate >= 50000)
		assert_true(retx > 0);
	if (pr->rate == 0)
		assert_int_equal(retx, 0);
}

/* Tail-loss PROBEs answered over all runs so far (PDS control packets). */
static uint64_t probes_answered;

static void
prop_run(const struct prop *pr)
{
	static struct fakewire w;
	struct uet_pds_config cfg;

	prop_cfg(&cfg);
	if (pr->dead)
		cfg.max_retries = 4;
	assert_int_equal(fakewire_init(&w, &cfg, pr->seed), 0);
	fakewire_past_start(&w);
	prop_faults(&w, pr);
	/* Odd seeds start near the 2^32 PSN wrap. */
	if (pr->seed & 1) {
		w.pds[0]->test_start_set = true;
		w.pds[0]->test_start_psn = 0xFFFFFF00u + (uint32_t)(pr->seed % 200);
	}
	w.resp_expected = pr->resp;
	w.ret_data = pr->ret;
	prop_drive(&w, pr);
	/* Idle close and timeouts must return every pool; the wire drains. */
	w.f[0].dead = false;
	assert_true(fakewire_run(&w, 10000, 3000000000ull, prop_idle, NULL));
	prop_check(&w, pr);
	if (pr->ret)
		prop_check_ret(&w, pr);
	prop_sanity(&w, pr);
	if (pr->mode == UET_PDS_MODE_UUD)
		assert_int_equal(w.tx_pkts[0], NMSG);
	probes_answered +=
		uet_pds_stats_get(w.pds[1])->rx_ctl[UET_PDS_CTL_PROBE];
	fakewire_fini(&w);
}

static const uint32_t rates[] = { 0, 10000, 50000, 100000, 200000 };

static void
prop_mode_ret(uint8_t mode, bool resp, bool ret, unsigned int seeds)
{
	struct prop pr = { .mode = mode, .resp = resp, .ret = ret };
	unsigned int r, s;

	for (r = 0; r < sizeof(rates) / sizeof(rates[0]); r++) {
		for (s = 0; s < seeds; s++) {
			pr.rate = rates[r];
			pr.seed = 1000 * (r + 1) + s + (uint64_t)mode * 7 +
				  (ret ? 500 : 0);
			prop_run(&pr);
		}
	}
}

static void
prop_mode(uint8_t mode, bool resp, unsigned int seeds)
{
	prop_mode_ret(mode, resp, false, seeds);
}

static void
property__rud_return_direction_exactly_once(void **state)
{
	(void)state;
	prop_mode_ret(UET_PDS_MODE_RUD, false, true, 8);
	prop_mode_ret(UET_PDS_MODE_RUD, true, true, 3);
}

static void
property__rod_return_direction_in_order(void **state)
{
	(void)state;
	prop_mode_ret(UET_PDS_MODE_ROD, false, true, 8);
}

static void
property__rud_exactly_once(void **state)
{
	(void)state;
	probes_answered = 0;
	prop_mode(UET_PDS_MODE_RUD, false, 12);
	/* Lossy runs lose tails: the PROBE path is exercised. */
	assert_true(probes_answered > 0);
}

static void
property__rud_guaranteed_responses(void **state)
{
	(void)state;
	prop_mode(UET_PDS_MODE_RUD, true, 6);
}

static void
property__rod_exactly_once_in_order(void **state)
{
	(void)state;
	probes_answered = 0;
	prop_mode(UET_PDS_MODE_ROD, false, 8);
	assert_true(probes_answered > 0);
}

static void
property__rudi_at_least_once(void **state)
{
	(void)state;
	prop_mode(UET_PDS_MODE_RUDI, false, 6);
}

static void
property__uud_never_duplicates(void **state)
{
	(void)state;
	prop_mode(UET_PDS_MODE_UUD, false, 4);
}

static void
property__dead_path_fails_everything(void **state)
{
	struct prop pr = { .dead = true, .seed = 99 };
	uint8_t modes[] = { UET_PDS_MODE_RUD, UET_PDS_MODE_ROD,
			    UET_PDS_MODE_RUDI };
	unsigned int i;

	(void)state;
	for (i = 0; i < sizeof(modes); i++) {
		pr.mode = modes[i];
		prop_run(&pr);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(property__rud_exactly_once),
		cmocka_unit_test(property__rud_guaranteed_responses),
		cmocka_unit_test(property__rod_exactly_once_in_order),
		cmocka_unit_test(property__rudi_at_least_once),
		cmocka_unit_test(property__uud_never_duplicates),
		cmocka_unit_test(property__dead_path_fails_everything),
		cmocka_unit_test(property__rud_return_direction_exactly_once),
		cmocka_unit_test(property__rod_return_direction_in_order),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
