/* SPDX-License-Identifier: BSD-3-Clause */
/* The timer wheel (src/pds/pds_timer.c), driven through RUDI slot nodes. */

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
pds_timer__wheel_fires_in_order_and_far(void **state)
{
	struct uet_pds *p = W.pds[0];
	uint32_t node = pds_rudi_node(p, 0);

	(void)state;
	/* Far beyond the horizon: parked, re-filed, fires on time. */
	p->rudi[0].busy = 0;
	pds_timer_arm(p, node, 1000000000ull);
	uet_pds_advance(p, 500000000ull);
	assert_true(pds_tnode_filed(&p->tnode[node]));
	uet_pds_advance(p, 1000000000ull + 2 * p->cfg.timer_tick_ns);
	assert_false(pds_tnode_filed(&p->tnode[node]));
	pds_timer_arm(p, node, 5);
	pds_timer_cancel(p, node);
	assert_false(pds_tnode_filed(&p->tnode[node]));
}

static void
pds_timer_cancel__middle_of_slot_list(void **state)
{
	struct uet_pds *p = W.pds[0];
	uint64_t d = 10 * p->cfg.timer_tick_ns;
	uint32_t n[3], i;

	(void)state;
	/* Three nodes in one slot: unlinking the middle keeps the others. */
	for (i = 0; i < 3; i++) {
		n[i] = pds_rudi_node(p, i);
		pds_timer_arm(p, n[i], d);
	}
	assert_int_equal(p->tnode[n[0]].slot, p->tnode[n[2]].slot);
	pds_timer_cancel(p, n[1]);
	assert_false(pds_tnode_filed(&p->tnode[n[1]]));
	assert_int_equal(p->tnode[n[2]].next, n[0]);
	assert_int_equal(p->tnode[n[0]].prev, n[2]);
	/* Re-arming with the same deadline is a no-op. */
	pds_timer_arm(p, n[0], d);
	assert_int_equal(p->tnode[n[2]].next, n[0]);
	uet_pds_advance(p, d);
	assert_false(pds_tnode_filed(&p->tnode[n[0]]));
	assert_false(pds_tnode_filed(&p->tnode[n[2]]));
}

static void
pds_timer_arm__past_deadline_fires_next_tick(void **state)
{
	struct uet_pds *p = W.pds[0];
	uint32_t node = pds_rudi_node(p, 3);
	uint64_t tick = p->cfg.timer_tick_ns;

	(void)state;
	uet_pds_advance(p, 100 * tick);
	pds_timer_arm(p, node, 3 * tick);
	assert_true(pds_tnode_filed(&p->tnode[node]));
	uet_pds_advance(p, 100 * tick + tick / 2);
	assert_true(pds_tnode_filed(&p->tnode[node]));
	uet_pds_advance(p, 101 * tick);
	assert_false(pds_tnode_filed(&p->tnode[node]));
}

static void
pds_pdc_timer_update__idle_pdc_unarmed(void **state)
{
	struct uet_pds_tx t;

	(void)state;
	/* A PDC with a request in flight has its RTO armed; once the ACK
	 * completes it and nothing is due, the node is unarmed. */
	assert_int_equal(fakewire_submit(&W, UET_PDS_MODE_RUD, 1, 0), 0);
	assert_true(fakewire_take_type(&W, 0, UET_PDS_TYPE_RUD_REQ, &t));
	assert_true(pds_timer_armed(W.pds[0], 0));
	fakewire_inject(&W, 1, &t, false, false);
	assert_true(fakewire_take_type(&W, 1, UET_PDS_TYPE_ACK, &t));
	fakewire_inject(&W, 0, &t, false, false);
	assert_int_equal(W.done_ok[1], 1);
	assert_false(pds_timer_armed(W.pds[0], 0));
}

/*
 * Lazy timers: once idle, the PDC's node stays filed where its timer (the
 * tail-loss probe's, then the RTO's) was: no unlinking per message. The
 * next request's deadline, later, leaves it there too; the visit of that
 * slot re-files it, and the timer fires at the new deadline, not at the
 * first one.
 */
static void
pds_pdc_timer_update__idle_node_left_filed_then_refiled(void **state)
{
	struct uet_pds *p = W.pds[0];
	uint64_t tick = p->cfg.timer_tick_ns, d0, d1;
	struct uet_pds_tx t;
	uint32_t slot;

	(void)state;
	assert_int_equal(fakewire_submit(&W, UET_PDS_MODE_RUD, 1, 0), 0);
	assert_true(fakewire_take_type(&W, 0, UET_PDS_TYPE_RUD_REQ, &t));
	slot = p->tnode[0].slot;
	d0 = p->tnode[0].deadline;
	assert_int_not_equal(slot, PDS_TSLOT_NIL);
	assert_true(d0 > W.now + 4 * tick);
	fakewire_inject(&W, 1, &t, false, false);
	assert_true(fakewire_take_type(&W, 1, UET_PDS_TYPE_ACK, &t));
	fakewire_inject(&W, 0, &t, false, false);
	assert_false(pds_timer_armed(p, 0));
	assert_int_equal(p->tnode[0].slot, slot);
	/* The next request leaves halfway to d0: same slot, later deadline. */
	W.now += (d0 - W.now) / 2;
	uet_pds_advance(p, W.now);
	assert_int_equal(fakewire_submit(&W, UET_PDS_MODE_RUD, 2, 0), 0);
	assert_true(fakewire_take_type(&W, 0, UET_PDS_TYPE_RUD_REQ, &t));
	d1 = p->tnode[0].deadline;
	assert_true(pds_timer_armed(p, 0));
	assert_int_equal(p->tnode[0].slot, slot);
	assert_true(d1 / tick > d0 / tick);
	/* d0's tick: re-filed, nothing fired. */
	W.now = d0 + tick;
	uet_pds_advance(p, W.now);
	assert_true(pds_timer_armed(p, 0));
	assert_int_not_equal(p->tnode[0].slot, slot);
	assert_int_equal(p->st.tlp_fires + p->st.rto_fires, 0);
	/* d1's tick: it fires. */
	W.now = d1 + tick;
	uet_pds_advance(p, W.now);
	assert_int_equal(p->st.tlp_fires + p->st.rto_fires, 1);
}

/* A node left filed with nothing due is dropped by the visit, fires
 * nothing, and is no deadline for a virtual clock. */
static void
pds_timer_slot__idle_node_dropped_unfired(void **state)
{
	struct uet_pds *p = W.pds[0];
	struct uet_pds_tx t;

	(void)state;
	assert_int_equal(fakewire_submit(&W, UET_PDS_MODE_RUD, 1, 0), 0);
	assert_true(fakewire_take_type(&W, 0, UET_PDS_TYPE_RUD_REQ, &t));
	fakewire_inject(&W, 1, &t, false, false);
	assert_true(fakewire_take_type(&W, 1, UET_PDS_TYPE_ACK, &t));
	fakewire_inject(&W, 0, &t, false, false);
	assert_true(pds_tnode_filed(&p->tnode[0]));
	assert_true(uet_pds_next_deadline(p) == UINT64_MAX);
	W.now += 2 * p->cfg.rto_init_ns;
	uet_pds_advance(p, W.now);
	assert_false(pds_tnode_filed(&p->tnode[0]));
	assert_int_equal(p->st.rto_fires, 0);
}

static void
pdc_events_on(struct uet_pds_config *cfg)
{
	cfg->pdc_events = true;
}

static int
setup_pdc_events(void **state)
{
	(void)state;
	return fakewire_setup_with(1, pdc_events_on);
}

static bool
failed(struct fakewire *w, void *arg)
{
	uint32_t c = *(uint32_t *)arg;

	return w->done_err[c] != 0;
}

/* Retries exhausted: the cookie fails -ETIMEDOUT, then one PDC_DOWN. */
static void
pds_initiator_rto__exhausted_emits_pdc_down(void **state)
{
	uint32_t c = 1;

	(void)state;
	W.f[0].dead = true;
	assert_int_equal(fakewire_submit(&W, UET_PDS_MODE_RUD, c, 0), 0);
	assert_true(fakewire_run(&W, 20000, 2000000000ull, failed, &c));
	assert_int_equal(W.last_status[0], -ETIMEDOUT);
	assert_true(fakewire_st(0)->rto_fires > W.pds[0]->cfg.max_retries);
	assert_true(W.now >= pds_dead_ns(W.pds[0]));
	assert_int_equal(W.pdc_down[0], 1);
	assert_int_equal(W.pdc_down_status[0], -ETIMEDOUT);
	assert_int_equal(fakewire_st(0)->pdc_fail, 1);
}

/* The target drops its own return-direction data (not its control). */
static bool
drop_ret_data(struct fakewire *w, int from, const struct uet_pds_tx *t)
{
	(void)w;
	return from == 1 && t->kind != UET_PDS_TX_CTL;
}

static bool
both_down(struct fakewire *w, void *arg)
{
	(void)arg;
	return w->pdc_down[0] && w->pdc_down[1];
}

/* Return direction (UEC 1.0 PDS return-direction read responses): the target's
 * data never arrives; its RTO budget runs out, it fails the return cookie and
 * tells the initiator with a fatal NACK, whose PDC fails too (it sends
 * nothing of its own that could discover it). */
static void
pds_target_rto__return_direction_failure_reaches_initiator(void **state)
{
	(void)state;
	W.ret_data = true;
	W.drop_fn = drop_ret_data;
	assert_int_equal(fakewire_submit(&W, UET_PDS_MODE_RUD, 1, 0), 0);
	assert_true(fakewire_run(&W, 20000, 2000000000ull, both_down, NULL));
	assert_int_equal(W.done_ok[1], 1);
	assert_int_equal(W.done_err[FW_RET_BASE + 1], 1);
	assert_int_equal(W.delivered[FW_RET_BASE + 1], 0);
	assert_int_equal(W.pdc_down_status[1], -ETIMEDOUT);
	assert_int_equal(W.pdc_down_status[0], -ECONNRESET);
	assert_int_equal(fakewire_st(1)->nack_tx[UET_NACK_CLOSING_IN_ERR], 1);
	assert_true(fakewire_pools_idle(&W));
}

/* Side 0 loses cookie 2 at every attempt, and cookie 1 until
 * @c release_ns. */
static uint64_t release_ns;

static bool
drop_one_for_good(struct fakewire *w, int from, const struct uet_pds_tx *t)
{
	return from == 0 && t->kind != UET_PDS_TX_CTL &&
	       (t->cookie == 2 || (t->cookie == 1 && w->now < release_ns));
}

static bool
done_1(struct fakewire *w, void *arg)
{
	(void)arg;
	return w->done_ok[1] != 0;
}

/*
 * Cookie 1, then cookie 2 once the RTO fired @p fires_first times; the
 * network loses cookie 1 until @p rtos RTO_INITs and a half, and cookie
 * 2 for good. The first's completion moves una but must not end the RTO
 * episode (the second was resent in it too): the PDC keeps its progress
 * clock and fails a dead-peer time after it opened, not after that
 * completion.
 */
static void
episode_run(uint32_t fires_first, uint32_t rtos)
{
	uint64_t dead = pds_dead_ns(W.pds[0]), t1;
	uint32_t c = 2;

	release_ns = rtos * W.pds[0]->cfg.rto_init_ns +
		     W.pds[0]->cfg.rto_init_ns / 2;
	W.drop_fn = drop_one_for_good;
	assert_int_equal(fakewire_submit(&W, UET_PDS_MODE_RUD, 1, 0), 0);
	while (fakewire_st(0)->rto_fires < fires_first &&
	       W.now < 2000000000ull)
		fakewire_step(&W, 10000);
	assert_int_equal(fakewire_submit(&W, UET_PDS_MODE_RUD, 2, 0), 0);
	assert_true(fakewire_run(&W, 10000, 2000000000ull, done_1, NULL));
	t1 = W.now;
	assert_true(t1 >= release_ns);
	assert_true(fakewire_st(0)->rto_fires >= rtos);
	assert_true(fakewire_run(&W, 10000, 2000000000ull, failed, &c));
	assert_int_equal(W.last_status[0], -ETIMEDOUT);
	assert_int_equal(W.delivered[1], 1);
	assert_int_equal(W.delivered[2], 0);
	assert_true(W.now >= dead);
	assert_true(W.now < t1 + dead);
}

/* Both requests from the start; the first gets through after three
 * expiries (uet-dst generator 1 seed 10260731: a request resent 51 times
 * in 75 ms past the bound, the clock restarted by an older request's
 * completion). */
static void
pds_initiator_rto__episode_survives_partial_progress(void **state)
{
	(void)state;
	episode_run(0, 3);
}

/* The second request submitted after the episode began: the RTO resends
 * it within the episode, so it belongs to it (uet-dst generator 3 seed
 * 16216290: a request resent 111 times in 47 ms, the clock restarted by
 * an ACK of an older one 23 ms late). */
static void
pds_initiator_rto__episode_takes_later_resent_packets(void **state)
{
	(void)state;
	episode_run(1, 4);
}

static void
many_resp_cfg(struct uet_pds_config *cfg)
{
	cfg->resp_entries = 64;
}

static int
setup_many_resp(void **state)
{
	(void)state;
	return fakewire_setup_with(1, many_resp_cfg);
}

/*
 * A target whose SES answers slowly, one response after another: 40
 * requests awaiting their responses (held), answered one every two RTOs,
 * 80 RTOs in all, past the dead-peer time. Each answer moves una within
 * one RTO episode, which keeps the progress clock, but starts the count
 * of expiries again: the PDC lives as long as answers keep coming, and
 * every request completes once.
 */
static void
pds_initiator_rto__slow_answers_keep_the_pdc(void **state)
{
	const struct uet_pds_config *cfg = &W.pds[0]->cfg;
	uint32_t pdc[40], psn[40], k;
	uint8_t resp[8] = { 0 };
	uint64_t t0;

	(void)state;
	W.resp_expected = true;
	W.resp_hold = true;
	for (k = 0; k < 40; k++) {
		assert_int_equal(fakewire_submit(&W, UET_PDS_MODE_RUD, k,
						 UET_PDS_SUBMIT_RESP), 0);
		for (uint32_t j = 0; j < 100 && W.delivered[k] == 0; j++)
			fakewire_step(&W, 1000);
		assert_int_equal(W.delivered[k], 1);
		pdc[k] = W.last_pdc[1];
		psn[k] = W.last_psn[1];
	}
	t0 = W.now;
	for (k = 0; k < 40; k++) {
		for (uint64_t t = 0; t < 2 * cfg->rto_init_ns; t += 10000)
			fakewire_step(&W, 10000);
		resp[0] = (uint8_t)k;
		assert_int_equal(uet_pds_respond(W.pds[1], pdc[k], psn[k],
						 UET_PDS_NEXT_RESPONSE, resp, 8,
						 W.now), 0);
	}
	for (k = 0; k < 1000 && W.done_ok[39] == 0; k++)
		fakewire_step(&W, 10000);
	assert_true(W.now - t0 > pds_dead_ns(W.pds[0]));
	assert_true(fakewire_st(0)->rto_fires > cfg->max_retries);
	for (k = 0; k < 40; k++) {
		assert_int_equal(W.done_ok[k], 1);
		assert_int_equal(W.done_err[k], 0);
	}
	assert_int_equal(fakewire_st(0)->pdc_fail, 0);
}

/*
 * Requests the SES can no longer build (an operation withdrawn with
 * force, uet_ses_withdraw()): this side's build of @c gone_cookie fails,
 * and the engine tells the PDS at once (uet_pds_tx_unbuildable()), before
 * its next call, as pmd/proto/proto_tx.c does.
 */
static uint64_t gone_cookie = UINT64_MAX;
static int gone_side, gone_rc = 1;
static uint32_t gone_calls;

static bool
drop_gone(struct fakewire *w, int from, const struct uet_pds_tx *t)
{
	if (from != gone_side || t->kind == UET_PDS_TX_CTL ||
	    t->cookie != gone_cookie)
		return false;
	gone_calls++;
	gone_rc = uet_pds_tx_unbuildable(w->pds[from], t, w->now);
	return true; /* not sent: there is nothing to send */
}

static void
gone_reset(int side, uint64_t cookie)
{
	gone_side = side;
	gone_cookie = cookie;
	gone_rc = 1;
	gone_calls = 0;
	W.drop_fn = drop_gone;
}

/* A request that can never be built fails its PDC at its first failed
 * build, while the peer answers: requests acknowledged before are not
 * touched, the rest fails -ECONNRESET, and the next request opens a new
 * PDC. Resent every RTO instead, its PSN could never be filled, and a PDC
 * whose peer kept answering lived on (uet-dst generator 1 seed 5117982:
 * the budget fails a PDC only once its peer is silent too). */
static void
pds_tx_unbuildable__fails_pdc_at_first_build_peer_alive(void **state)
{
	uint32_t c = 2, k;
	uint64_t t0;

	(void)state;
	gone_reset(0, c);
	assert_int_equal(fakewire_submit(&W, UET_PDS_MODE_RUD, 1, 0), 0);
	for (k = 0; k < 100 && W.done_ok[1] == 0; k++)
		fakewire_step(&W, 10000);
	assert_int_equal(W.done_ok[1], 1);
	t0 = W.now;
	assert_int_equal(fakewire_submit(&W, UET_PDS_MODE_RUD, c, 0), 0);
	fakewire_step(&W, 1000);
	assert_int_equal(gone_calls, 1);
	assert_int_equal(gone_rc, 0);
	/* at once: no RTO, no retransmission of it */
	assert_int_equal(W.done_err[c], 1);
	assert_int_equal(W.last_status[0], -ECONNRESET);
	assert_true(W.now - t0 <= 1000);
	assert_int_equal(fakewire_retx_sent(0), 0);
	assert_int_equal(W.pdc_down[0], 1);
	assert_int_equal(W.pdc_down_status[0], -ECONNRESET);
	assert_int_equal(fakewire_st(0)->tx_unbuildable, 1);
	assert_int_equal(fakewire_st(0)->pdc_fail, 1);
	assert_int_equal(W.done_ok[1], 1);
	assert_int_equal(W.done_err[1], 0);
	assert_int_equal(W.delivered[c], 0);
	/* the peer is alive: the next request goes on a new PDC */
	assert_int_equal(fakewire_submit(&W, UET_PDS_MODE_RUD, 3, 0), 0);
	for (k = 0; k < 100 && W.done_ok[3] == 0; k++)
		fakewire_step(&W, 10000);
	assert_int_equal(W.done_ok[3], 1);
	assert_int_equal(W.delivered[3], 1);
	assert_int_equal(fakewire_st(0)->pdc_open_init, 2);
}

/* The same on a retransmission: the request left once (lost), and its
 * build fails at the RTO's resend. */
static bool
drop_first_then_gone(struct fakewire *w, int from, const struct uet_pds_tx *t)
{
	if (from == 0 && t->kind == UET_PDS_TX_NEW && t->cookie == gone_cookie)
		return true; /* lost on the wire, still buildable */
	return drop_gone(w, from, t);
}

static void
pds_tx_unbuildable__resend_fails_pdc(void **state)
{
	uint32_t c = 4;

	(void)state;
	gone_reset(0, c);
	W.drop_fn = drop_first_then_gone;
	assert_int_equal(fakewire_submit(&W, UET_PDS_MODE_RUD, c, 0), 0);
	assert_true(fakewire_run(&W, 20000, 2000000000ull, failed, &c));
	assert_int_equal(gone_calls, 1);
	assert_int_equal(gone_rc, 0);
	assert_int_equal(W.last_status[0], -ECONNRESET);
	/* its first resend: the tail-loss probe's or the RTO's */
	assert_true(W.now <= W.pds[0]->cfg.rto_init_ns + 100000);
	assert_int_equal(W.pdc_down_status[0], -ECONNRESET);
	assert_int_equal(fakewire_st(0)->tx_unbuildable, 1);
	assert_true(fakewire_pools_idle(&W));
}

/* A ROD PDC with a hole that can never be filled: cookie 3 cannot be
 * built, 2 was lost once, 4 and 5 left past the hole. Nothing past the
 * hole goes again (the target would only answer ROD_OOO, and nothing
 * there can complete): the RTO resends 2 alone, and once 2 is in, the
 * hole at una fails the PDC: 2 completes, 3 to 5 fail -ECONNRESET.
 * Resent every round, a packet past the hole outlived every bound while
 * una crept up one stored response per RTO (fuzz_dst, test/dst/
 * fuzz-fixed/retx-bound.resent-past-unbuildable-hole). */
static uint32_t past_hole_resends;

static bool
drop_lost_gone_past(struct fakewire *w, int from, const struct uet_pds_tx *t)
{
	if (from == 0 && t->kind == UET_PDS_TX_RETX &&
	    (t->cookie == 4 || t->cookie == 5))
		past_hole_resends++;
	if (from == 0 && t->kind == UET_PDS_TX_NEW && t->cookie == 2)
		return true; /* lost once, buildable */
	return drop_gone(w, from, t);
}

static void
pds_tx_unbuildable__nothing_past_the_hole_goes_again(void **state)
{
	struct uet_pds_pool_info pi;
	uint32_t c = 5, k;

	(void)state;
	assert_int_equal(fakewire_submit(&W, UET_PDS_MODE_ROD, 1, 0), 0);
	for (k = 0; k < 100 && W.done_ok[1] == 0; k++)
		fakewire_step(&W, 10000);
	assert_int_equal(W.done_ok[1], 1);
	gone_reset(0, 3);
	W.drop_fn = drop_lost_gone_past;
	past_hole_resends = 0;
	for (k = 2; k <= 5; k++)
		assert_int_equal(fakewire_submit(&W, UET_PDS_MODE_ROD, k, 0),
				 0);
	assert_true(fakewire_run(&W, 20000, 2000000000ull, failed, &c));
	assert_int_equal(gone_calls, 1);
	assert_int_equal(gone_rc, 0);
	assert_int_equal(W.done_ok[2], 1);
	assert_int_equal(W.delivered[2], 1);
	for (k = 3; k <= 5; k++) {
		assert_int_equal(W.done_err[k], 1);
		assert_int_equal(W.delivered[k], 0);
	}
	assert_int_equal(W.pdc_down_status[0], -ECONNRESET);
	assert_int_equal(fakewire_st(0)->tx_unbuildable, 1);
	assert_int_equal(past_hole_resends, 0);
	/* the initiator's PDC and its transmit block are gone */
	uet_pds_pool_info_get(W.pds[0], &pi);
	assert_int_equal(pi.pdc_used[0], 0);
	assert_int_equal(pi.tx_blk_used, 0);
}

/* Return-direction data that can never be built: the target fails its
 * PDC at once and tells the initiator (NACK CLOSING_IN_ERR), whose PDC
 * fails too, without waiting for the target's retries. */
static void
pds_tx_unbuildable__return_direction_tells_initiator(void **state)
{
	(void)state;
	W.ret_data = true;
	gone_reset(1, FW_RET_BASE + 1);
	assert_int_equal(fakewire_submit(&W, UET_PDS_MODE_RUD, 1, 0), 0);
	assert_true(fakewire_run(&W, 1000, 2000000000ull, both_down, NULL));
	assert_int_equal(gone_rc, 0);
	assert_true(W.now < W.pds[1]->cfg.rto_init_ns);
	assert_int_equal(W.done_ok[1], 1);
	assert_int_equal(W.done_err[FW_RET_BASE + 1], 1);
	assert_int_equal(W.pdc_down_status[1], -ECONNRESET);
	assert_int_equal(W.pdc_down_status[0], -ECONNRESET);
	assert_int_equal(fakewire_st(1)->nack_tx[UET_NACK_CLOSING_IN_ERR], 1);
	assert_int_equal(fakewire_st(1)->tx_unbuildable, 1);
	assert_true(fakewire_pools_idle(&W));
}

/* What is no request of a live PDC is refused: a control packet, a
 * datagram (-EINVAL), a descriptor of a PDC already failed (-ENOENT). */
static void
pds_tx_unbuildable__refuses_what_is_no_request_in_flight(void **state)
{
	struct uet_pds_tx a, ack;

	(void)state;
	assert_int_equal(fakewire_submit(&W, UET_PDS_MODE_RUD, 1, 0), 0);
	assert_true(fakewire_take_type(&W, 0, UET_PDS_TYPE_RUD_REQ, &a));
	fakewire_inject(&W, 1, &a, false, false);
	assert_true(fakewire_take_type(&W, 1, UET_PDS_TYPE_ACK, &ack));
	assert_int_equal(uet_pds_tx_unbuildable(W.pds[1], &ack, W.now),
			 -EINVAL);
	a.kind = UET_PDS_TX_CTL;
	assert_int_equal(uet_pds_tx_unbuildable(W.pds[0], &a, W.now), -EINVAL);
	a.kind = UET_PDS_TX_NEW;
	a.cookie++; /* not the cookie of its PSN */
	assert_int_equal(uet_pds_tx_unbuildable(W.pds[0], &a, W.now), -ENOENT);
	a.cookie--;
	assert_int_equal(uet_pds_tx_unbuildable(W.pds[0], &a, W.now), 0);
	assert_int_equal(fakewire_st(0)->pdc_fail, 1);
	/* failed already */
	assert_int_equal(uet_pds_tx_unbuildable(W.pds[0], &a, W.now), -ENOENT);
	assert_int_equal(fakewire_st(0)->tx_unbuildable, 1);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		FW_TEST(pds_timer__wheel_fires_in_order_and_far, fakewire_setup),
		FW_TEST(pds_timer_cancel__middle_of_slot_list, fakewire_setup),
		FW_TEST(pds_timer_arm__past_deadline_fires_next_tick, fakewire_setup),
		FW_TEST(pds_pdc_timer_update__idle_pdc_unarmed, fakewire_setup),
		FW_TEST(pds_pdc_timer_update__idle_node_left_filed_then_refiled,
			fakewire_setup),
		FW_TEST(pds_timer_slot__idle_node_dropped_unfired, fakewire_setup),
		FW_TEST(pds_initiator_rto__episode_survives_partial_progress,
			fakewire_setup),
		FW_TEST(pds_initiator_rto__episode_takes_later_resent_packets,
			fakewire_setup),
		FW_TEST(pds_initiator_rto__slow_answers_keep_the_pdc,
			setup_many_resp),
		FW_TEST(pds_initiator_rto__exhausted_emits_pdc_down,
			setup_pdc_events),
		FW_TEST(pds_target_rto__return_direction_failure_reaches_initiator,
			setup_pdc_events),
		FW_TEST(pds_tx_unbuildable__fails_pdc_at_first_build_peer_alive,
			setup_pdc_events),
		FW_TEST(pds_tx_unbuildable__resend_fails_pdc, setup_pdc_events),
		FW_TEST(pds_tx_unbuildable__nothing_past_the_hole_goes_again,
			setup_pdc_events),
		FW_TEST(pds_tx_unbuildable__return_direction_tells_initiator,
			setup_pdc_events),
		FW_TEST(pds_tx_unbuildable__refuses_what_is_no_request_in_flight,
			setup_pdc_events),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
