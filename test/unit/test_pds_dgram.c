/* SPDX-License-Identifier: BSD-3-Clause */
/* RUDI and UUD (src/pds/pds_dgram.c). */

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "pds_fakewire.h"
#include "pds_private.h"


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
	assert_int_equal(fw_st(0)->rx_stale, 1);
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
	assert_int_equal(fw_st(0)->retx_rto, 5);
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

int
main(void)
{
	const struct CMUnitTest tests[] = {
#define T(f) FW_TEST(f, fw_setup)
		T(pds_rudi__request_answered_by_resp),
		T(pds_rudi__trim_nack_nt_retransmits),
		T(pds_rudi__rto_then_timeout),
		T(pds_uud__best_effort_once),
#undef T
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
