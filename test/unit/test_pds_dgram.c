/* SPDX-License-Identifier: BSD-3-Clause */
/* RUDI and UUD (src/pds/pds_dgram.c). */

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
pds_rudi__request_answered_by_resp(void **state)
{
	struct uet_pds_tx req, rsp;

	(void)state;
	assert_int_equal(fakewire_submit(&W, UET_PDS_MODE_RUDI, 1, 0), 0);
	assert_true(fakewire_take_type(&W, 0, UET_PDS_TYPE_RUDI_REQ, &req));
	fakewire_inject(&W, 1, &req, false, true);
	assert_int_equal(W.delivered[1], 1);
	assert_true(fakewire_take_type(&W, 1, UET_PDS_TYPE_RUDI_RESP, &rsp));
	assert_int_equal(rsp.hdr.u.rudi.pkt_id, req.hdr.u.rudi.pkt_id);
	assert_true(rsp.hdr.flags & UET_PDS_F_M);
	fakewire_inject(&W, 0, &rsp, false, false);
	assert_int_equal(W.done_ok[1], 1);
	/* A late duplicate response is stale. */
	fakewire_inject(&W, 0, &rsp, false, false);
	assert_int_equal(fakewire_st(0)->rx_stale, 1);
	assert_true(fakewire_pools_idle(&W));
}

static void
pds_rudi__trim_nack_nt_retransmits(void **state)
{
	struct uet_pds_tx req, n, again;

	(void)state;
	assert_int_equal(fakewire_submit(&W, UET_PDS_MODE_RUDI, 2, 0), 0);
	assert_true(fakewire_take_type(&W, 0, UET_PDS_TYPE_RUDI_REQ, &req));
	fakewire_inject(&W, 1, &req, true, false);
	assert_true(fakewire_take_type(&W, 1, UET_PDS_TYPE_NACK, &n));
	assert_true(n.hdr.flags & UET_PDS_F_NT);
	assert_int_equal(n.hdr.u.nack.psn, req.hdr.u.rudi.pkt_id);
	fakewire_inject(&W, 0, &n, false, false);
	assert_true(fakewire_take_type(&W, 0, UET_PDS_TYPE_RUDI_REQ, &again));
	assert_true(again.hdr.flags & UET_PDS_F_RETX);
	assert_int_equal(again.kind, UET_PDS_TX_RETX);
}

static void
pds_rudi__rto_then_timeout(void **state)
{
	(void)state;
	W.f[0].dead = true;
	assert_int_equal(fakewire_submit(&W, UET_PDS_MODE_RUDI, 3, 0), 0);
	while (W.done_err[3] == 0 && W.now < 200000000)
		fakewire_step(&W, 20000);
	assert_int_equal(W.done_err[3], 1);
	assert_int_equal(W.last_status[0], -ETIMEDOUT);
	assert_int_equal(fakewire_st(0)->retx_rto, 5);
	assert_true(fakewire_pools_idle(&W));
}

static void
pds_uud__best_effort_once(void **state)
{
	struct uet_pds_tx t[4];

	(void)state;
	assert_int_equal(fakewire_submit(&W, UET_PDS_MODE_UUD, 4, 0), 0);
	assert_int_equal(fakewire_take(&W, 0, t, 4), 1);
	assert_int_equal(t[0].hdr.type, UET_PDS_TYPE_UUD_REQ);
	fakewire_inject(&W, 1, &t[0], false, false);
	assert_int_equal(W.delivered[4], 1);
	assert_int_equal(fakewire_take(&W, 1, t, 4), 0); /* no ACK */
	W.now += 100000000;
	uet_pds_advance(W.pds[0], W.now);
	assert_int_equal(fakewire_take(&W, 0, t, 4), 0); /* never resent */
	uet_pds_events(W.pds[0], &(struct uet_pds_event){ 0 }, 1);
	assert_true(fakewire_pools_idle(&W));
}

/* uet_pds_respond() with UET_PDS_PDC_NONE: the SES response rides in the
 * RUDI_RESP (up to UET_PDS_RESP_MAX bytes) and reaches the DONE event;
 * the pool entry is back once the descriptor's burst is over. */
static void
pds_rudi__response_carried_in_rudi_resp(void **state)
{
	struct uet_pds_tx req, rsp;
	uint8_t want[UET_PDS_RESP_MAX];

	(void)state;
	W.rudi_resp_len = UET_PDS_RESP_MAX;
	assert_int_equal(fakewire_submit(&W, UET_PDS_MODE_RUDI, 5, 0), 0);
	assert_true(fakewire_take_type(&W, 0, UET_PDS_TYPE_RUDI_REQ, &req));
	fakewire_inject(&W, 1, &req, false, false);
	assert_int_equal(W.delivered[5], 1);
	assert_true(fakewire_take_type(&W, 1, UET_PDS_TYPE_RUDI_RESP, &rsp));
	assert_int_equal(rsp.hdr.next_hdr, UET_PDS_NEXT_RESPONSE_DATA_SMALL);
	assert_int_equal(rsp.resp_len, UET_PDS_RESP_MAX);
	assert_int_equal(fakewire_st(1)->rudi_resp_data, 1);
	fakewire_inject(&W, 0, &rsp, false, false);
	assert_int_equal(W.done_ok[5], 1);
	assert_int_equal(W.last_resp_len[0], UET_PDS_RESP_MAX);
	memset(want, 0xa5, sizeof(want));
	memcpy(want, &(uint64_t){ 5 }, 8);
	assert_memory_equal(W.last_resp[0], want, UET_PDS_RESP_MAX);
	assert_int_equal(W.bad_payload, 0);
	fakewire_take(&W, 1, &rsp, 1);
	assert_true(fakewire_pools_idle(&W));
}

static void
small_resp_max(struct uet_pds_config *cfg)
{
	cfg->resp_max = 16;
}

static int
setup_small_resp(void **state)
{
	(void)state;
	return fakewire_setup_with(1, small_resp_max);
}

/* Responses above resp_max, or for a request no longer pending, are
 * rejected; the bare RUDI_RESP still answers the request. */
static void
pds_rudi__respond_bad_calls_rejected(void **state)
{
	struct uet_pds_tx req, rsp;
	uint8_t buf[32] = { 0 };

	(void)state;
	assert_int_equal(uet_pds_resp_max(W.pds[1]), 16);
	assert_int_equal(fakewire_submit(&W, UET_PDS_MODE_RUDI, 6, 0), 0);
	assert_true(fakewire_take_type(&W, 0, UET_PDS_TYPE_RUDI_REQ, &req));
	fakewire_inject(&W, 1, &req, false, false);
	assert_int_equal(uet_pds_respond(W.pds[1], UET_PDS_PDC_NONE,
					 W.last_psn[1], UET_PDS_NEXT_RESPONSE,
					 buf, 17, W.now), -EINVAL);
	assert_int_equal(uet_pds_respond(W.pds[1], UET_PDS_PDC_NONE,
					 W.last_psn[1] ^ 1,
					 UET_PDS_NEXT_RESPONSE, buf, 8, W.now),
			 -ENOENT);
	assert_true(fakewire_take_type(&W, 1, UET_PDS_TYPE_RUDI_RESP, &rsp));
	assert_int_equal(rsp.resp_len, 0);
	/* Committed by the burst: too late to answer now. */
	assert_int_equal(uet_pds_respond(W.pds[1], UET_PDS_PDC_NONE,
					 W.last_psn[1], UET_PDS_NEXT_RESPONSE,
					 buf, 8, W.now), -ENOENT);
	fakewire_inject(&W, 0, &rsp, false, false);
	assert_int_equal(W.done_ok[6], 1);
	assert_int_equal(W.last_resp_len[0], 0);
}

/* A refused RUDI request gets a resource NACK with NT, no RUDI_RESP; the
 * initiator backs off, retransmits, and the next try is answered. */
static void
pds_rudi__refused_backs_off_then_answered(void **state)
{
	struct uet_pds_tx req, n, again, rsp;

	(void)state;
	W.refuse_left = 1;
	W.refuse_code = UET_NACK_NO_SES_MSG_AVAIL;
	assert_int_equal(fakewire_submit(&W, UET_PDS_MODE_RUDI, 7, 0), 0);
	assert_true(fakewire_take_type(&W, 0, UET_PDS_TYPE_RUDI_REQ, &req));
	fakewire_inject(&W, 1, &req, false, false);
	assert_int_equal(W.delivered[7], 0);
	assert_int_equal(fakewire_st(1)->refused, 1);
	assert_true(fakewire_take_type(&W, 1, UET_PDS_TYPE_NACK, &n));
	assert_true(n.hdr.flags & UET_PDS_F_NT);
	assert_int_equal(n.hdr.u.nack.code, UET_NACK_NO_SES_MSG_AVAIL);
	fakewire_inject(&W, 0, &n, false, false);
	assert_int_equal(fakewire_st(0)->retx_backoff, 0);
	assert_false(fakewire_take_type(&W, 0, UET_PDS_TYPE_RUDI_REQ, &again));
	W.now += 2 * W.pds[0]->cfg.backoff_init_ns;
	uet_pds_advance(W.pds[0], W.now);
	assert_true(fakewire_take_type(&W, 0, UET_PDS_TYPE_RUDI_REQ, &again));
	assert_int_equal(fakewire_st(0)->retx_backoff, 1);
	assert_true(again.hdr.flags & UET_PDS_F_RETX);
	/* The back-off is no RTO. */
	assert_int_equal(fakewire_st(0)->rto_fires, 0);
	fakewire_inject(&W, 1, &again, false, false);
	assert_int_equal(W.delivered[7], 1);
	assert_true(fakewire_take_type(&W, 1, UET_PDS_TYPE_RUDI_RESP, &rsp));
	fakewire_inject(&W, 0, &rsp, false, false);
	assert_int_equal(W.done_ok[7], 1);
}

static void
few_backoffs(struct uet_pds_config *cfg)
{
	cfg->max_backoffs = 2;
}

static int
setup_few_backoffs(void **state)
{
	(void)state;
	return fakewire_setup_with(1, few_backoffs);
}

static bool
rudi_failed(struct fakewire *w, void *arg)
{
	(void)arg;
	return w->done_err[8] != 0;
}

/* Refused every time: -ECONNREFUSED after max_backoffs back-offs. */
static void
pds_rudi__refused_always_fails_econnrefused(void **state)
{
	(void)state;
	W.refuse_left = 100;
	W.refuse_code = UET_NACK_NO_RESOURCE;
	assert_int_equal(fakewire_submit(&W, UET_PDS_MODE_RUDI, 8, 0), 0);
	assert_true(fakewire_run(&W, 1000, 1000000000ull, rudi_failed, NULL));
	assert_int_equal(W.last_status[0], -ECONNREFUSED);
	assert_int_equal(W.refusals, 3);
	assert_int_equal(fakewire_st(0)->retx_backoff, 2);
	assert_int_equal(W.delivered[8], 0);
	assert_true(fakewire_pools_idle(&W));
}

static bool
rudi9_done(struct fakewire *w, void *arg)
{
	(void)arg;
	return w->done_ok[9] + w->done_err[9] != 0;
}

/* UEC 1.0 PDS Max_NACK_Retx_Cnt (pds_rudi_nack_limit): a request trimmed
 * at every attempt was resent at once on each trim NACK, which re-arms its
 * RTO, so it never timed out (uet-dst seed 4817: 4375 resends in 54 ms).
 * It is resent at once max_nack_retx times, then by its RTO only, and
 * fails with -ETIMEDOUT within the RTO rounds' time. @p dup: the network
 * duplicates every other NACK; a late copy once put a second copy of the
 * request on the wire, and the copies multiplied (uet-dst seed 146). */
static void
rudi_trimmed_every_time(uint32_t dup)
{
	const struct uet_pds_stats *st = fakewire_st(0);
	uint64_t t0;

	W.f[0].trim = 1000000;
	W.f[1].dup = dup;
	t0 = W.now;
	assert_int_equal(fakewire_submit(&W, UET_PDS_MODE_RUDI, 9, 0), 0);
	assert_true(fakewire_run(&W, 1000, 10 * pds_dead_ns(W.pds[0]), rudi9_done,
			   NULL));
	assert_int_equal(W.done_err[9], 1);
	assert_int_equal(W.last_status[0], -ETIMEDOUT);
	assert_int_equal(W.delivered[9], 0);
	assert_int_equal(st->retx_trim, W.pds[0]->cfg.max_nack_retx);
	assert_true(st->nack_to_rto >= 1);
	assert_true(st->retx_rto <= W.pds[0]->cfg.max_retries);
	assert_true(W.now - t0 < 2 * pds_dead_ns(W.pds[0]));
	assert_true(fakewire_pools_idle(&W));
}

static void
pds_rudi_nack__trimmed_every_time_fails_etimedout(void **state)
{
	(void)state;
	rudi_trimmed_every_time(0);
}

static void
pds_rudi_nack__duplicated_nacks_resend_bounded(void **state)
{
	(void)state;
	rudi_trimmed_every_time(500000);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
#define T(f) FW_TEST(f, fakewire_setup)
		T(pds_rudi__request_answered_by_resp),
		T(pds_rudi__trim_nack_nt_retransmits),
		T(pds_rudi__rto_then_timeout),
		T(pds_uud__best_effort_once),
		T(pds_rudi__response_carried_in_rudi_resp),
		T(pds_rudi__refused_backs_off_then_answered),
		FW_TEST(pds_rudi__respond_bad_calls_rejected,
			setup_small_resp),
		FW_TEST(pds_rudi__refused_always_fails_econnrefused,
			setup_few_backoffs),
		T(pds_rudi_nack__trimmed_every_time_fails_etimedout),
		T(pds_rudi_nack__duplicated_nacks_resend_bounded),
#undef T
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
