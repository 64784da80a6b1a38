/* SPDX-License-Identifier: BSD-3-Clause */
/* RUDI and UUD (src/pds/pds_dgram.c) and the timer wheel. */

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "pds_fakewire.h"
#include "pds_private.h"

static struct fakewire W;

static int
setup(void **state)
{
	struct uet_pds_config cfg;

	(void)state;
	fw_test_config(&cfg);
	return fw_init(&W, &cfg, 17);
}

static int
teardown(void **state)
{
	(void)state;
	fw_fini(&W);
	return 0;
}

static const struct uet_pds_stats *
st(int side)
{
	return uet_pds_stats_get(W.pds[side]);
}

static void
pds_rudi__request_answered_by_resp(void **state)
{
	struct uet_pds_tx req, rsp;

	(void)state;
	assert_int_equal(fw_submit(&W, UET_PDS_MODE_RUDI, 1, 0), 0);
	assert_true(fw_take_type(&W, 0, UET_PDS_TYPE_RUDI_REQ, &req));
	fw_inject(&W, 1, &req, false, true);
	assert_int_equal(W.delivered[1], 1);
	assert_true(fw_take_type(&W, 1, UET_PDS_TYPE_RUDI_RESP, &rsp));
	assert_int_equal(rsp.hdr.u.rudi.pkt_id, req.hdr.u.rudi.pkt_id);
	assert_true(rsp.hdr.flags & UET_PDS_F_M);
	fw_inject(&W, 0, &rsp, false, false);
	assert_int_equal(W.done_ok[1], 1);
	/* A late duplicate response is stale. */
	fw_inject(&W, 0, &rsp, false, false);
	assert_int_equal(st(0)->rx_stale, 1);
	assert_true(fw_pools_idle(&W));
}

static void
pds_rudi__trim_nack_nt_retransmits(void **state)
{
	struct uet_pds_tx req, n, again;

	(void)state;
	assert_int_equal(fw_submit(&W, UET_PDS_MODE_RUDI, 2, 0), 0);
	assert_true(fw_take_type(&W, 0, UET_PDS_TYPE_RUDI_REQ, &req));
	fw_inject(&W, 1, &req, true, false);
	assert_true(fw_take_type(&W, 1, UET_PDS_TYPE_NACK, &n));
	assert_true(n.hdr.flags & UET_PDS_F_NT);
	assert_int_equal(n.hdr.u.nack.psn, req.hdr.u.rudi.pkt_id);
	fw_inject(&W, 0, &n, false, false);
	assert_true(fw_take_type(&W, 0, UET_PDS_TYPE_RUDI_REQ, &again));
	assert_true(again.hdr.flags & UET_PDS_F_RETX);
	assert_int_equal(again.kind, UET_PDS_TX_RETX);
}

static void
pds_rudi__rto_then_timeout(void **state)
{
	(void)state;
	W.f[0].dead = true;
	assert_int_equal(fw_submit(&W, UET_PDS_MODE_RUDI, 3, 0), 0);
	while (W.done_err[3] == 0 && W.now < 200000000)
		fw_step(&W, 20000);
	assert_int_equal(W.done_err[3], 1);
	assert_int_equal(W.last_status[0], -ETIMEDOUT);
	assert_int_equal(st(0)->retx_rto, 5);
	assert_true(fw_pools_idle(&W));
}

static void
pds_uud__best_effort_once(void **state)
{
	struct uet_pds_tx t[4];

	(void)state;
	assert_int_equal(fw_submit(&W, UET_PDS_MODE_UUD, 4, 0), 0);
	assert_int_equal(fw_take(&W, 0, t, 4), 1);
	assert_int_equal(t[0].hdr.type, UET_PDS_TYPE_UUD_REQ);
	fw_inject(&W, 1, &t[0], false, false);
	assert_int_equal(W.delivered[4], 1);
	assert_int_equal(fw_take(&W, 1, t, 4), 0); /* no ACK */
	W.now += 100000000;
	uet_pds_advance(W.pds[0], W.now);
	assert_int_equal(fw_take(&W, 0, t, 4), 0); /* never resent */
	uet_pds_events(W.pds[0], &(struct uet_pds_event){ 0 }, 1);
	assert_true(fw_pools_idle(&W));
}

static void
pds_timer__wheel_fires_in_order_and_far(void **state)
{
	struct uet_pds *p = W.pds[0];
	uint32_t node = pds_rudi_node(p, 0);

	(void)state;
	/* Far beyond the horizon: parked, re-filed, fires on time. */
	p->rudi[0].busy = 0;
	pds_timer_arm(p, node, 1000000000ull);
	uet_pds_advance(p, 500000000ull);
	assert_int_not_equal(p->tnode[node].slot, PDS_NIL);
	uet_pds_advance(p, 1000000000ull + 2 * p->cfg.timer_tick_ns);
	assert_int_equal(p->tnode[node].slot, PDS_NIL);
	pds_timer_arm(p, node, 5);
	pds_timer_cancel(p, node);
	assert_int_equal(p->tnode[node].slot, PDS_NIL);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
		T(pds_rudi__request_answered_by_resp),
		T(pds_rudi__trim_nack_nt_retransmits),
		T(pds_rudi__rto_then_timeout),
		T(pds_uud__best_effort_once),
		T(pds_timer__wheel_fires_in_order_and_far),
#undef T
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
