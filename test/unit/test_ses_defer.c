/* SPDX-License-Identifier: BSD-3-Clause */
/* Deferrable sends (src/ses/ses_defer.c) over the fake wire. */

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "ses_fakewire.h"

/* Virtual time to run: a PDC with the default 24 RTO rounds (1 ms doubling
 * to 100 ms) fails after about 2.2 s. */
#define RUN_NS 6000000000ull

static struct sfw w;
static uint8_t sbuf[4096], rbuf[4096];

/* Everything node 1 sends is lost until its first PDC failure. */
static bool
drop_until_down(struct sfw *fw, int from, const struct uet_pds_tx *t)
{
	(void)t;
	return from == 1 && uet_ses_stats_get(fw->n[1].ses)->pdc_down == 0;
}

/*
 * A receive matches a parked deferrable send, and the PDC that carries its
 * DEFERRABLE_RTR fails (found by the deterministic simulator, docs/DST.md:
 * the RTR's PDC was a stale one to a restarted initiator). The target sends
 * the RTR again on a new PDC: the send completes and the data lands. It
 * used to fail the receive, and the send waited for good.
 */
static void
ses_defer_rtr_done__lost_rtr_sent_again(void **state)
{
	const struct uet_ses_stats *st0, *st1;
	struct uet_ses_wr wr;
	uint32_t i;

	(void)state;
	assert_int_equal(ses_fakewire_init(&w, UET_PROFILE_AI_FULL, 7), 0);
	st0 = uet_ses_stats_get(w.n[0].ses);
	st1 = uet_ses_stats_get(w.n[1].ses);
	for (i = 0; i < sizeof(sbuf); i++)
		sbuf[i] = (uint8_t)(i * 7 + 1);
	ses_fakewire_wr(&w, 0, &wr, UET_SES_WR_TSEND, sbuf, 3000);
	wr.flags |= UET_SES_WR_F_DEFERRABLE;
	wr.tag = 7;
	wr.context = 70;
	assert_int_equal(uet_ses_submit(w.n[0].ses, &wr, NULL), 0);
	for (i = 0; i < 100000 && st0->defer_tx == 0; i++)
		ses_fakewire_step(&w, 1000);
	assert_int_equal(st0->defer_tx, 1);
	/* the receive comes, its RTR's PDC fails, the RTR goes again */
	w.drop_fn = drop_until_down;
	assert_int_equal(ses_fakewire_recv(&w, 1, 2, 71, rbuf, sizeof(rbuf),
					   7, 0), 0);
	assert_true(ses_fakewire_run_cq(&w, 0, 1, RUN_NS));
	assert_true(ses_fakewire_run_cq(&w, 1, 1, RUN_NS));
	assert_int_equal(st1->pdc_down, 1);
	assert_int_equal(st1->rtr_resent, 1);
	assert_int_equal(ses_fakewire_cqe(&w, 0, 70)->status, 0);
	assert_int_equal(ses_fakewire_cqe(&w, 1, 71)->status, 0);
	assert_int_equal(ses_fakewire_cqe(&w, 1, 71)->len, 3000);
	assert_memory_equal(rbuf, sbuf, 3000);
	ses_fakewire_fini(&w);
}

/* Everything node 1 sends is lost until its fourth PDC failure. */
static bool
drop_until_down4(struct sfw *fw, int from, const struct uet_pds_tx *t)
{
	(void)t;
	return from == 1 && uet_ses_stats_get(fw->n[1].ses)->pdc_down < 4;
}

/*
 * Every DEFERRABLE_RTR attempt fails inside one long fault, and the
 * initiator's PDC, idle, never fails (found by the deterministic
 * simulator, docs/DST.md: a link trimming everything for 19 ms). The RTR
 * goes again after a doubling wait, so the attempts outlast the fault:
 * the send completes and the data lands. Three immediate resends used to
 * be used up inside the fault: the receive failed and nothing ended the
 * parked send.
 */
static void
ses_defer_rtr_done__rtr_outlasts_long_fault(void **state)
{
	const struct uet_ses_stats *st0, *st1;
	struct uet_pds_pool_info pi;
	struct uet_ses_wr wr;
	uint64_t t0;
	uint32_t i;

	(void)state;
	assert_int_equal(ses_fakewire_init(&w, UET_PROFILE_AI_FULL, 11), 0);
	st0 = uet_ses_stats_get(w.n[0].ses);
	st1 = uet_ses_stats_get(w.n[1].ses);
	for (i = 0; i < sizeof(sbuf); i++)
		sbuf[i] = (uint8_t)(i * 5 + 3);
	ses_fakewire_wr(&w, 0, &wr, UET_SES_WR_TSEND, sbuf, 2500);
	wr.flags |= UET_SES_WR_F_DEFERRABLE;
	wr.tag = 9;
	wr.context = 90;
	assert_int_equal(uet_ses_submit(w.n[0].ses, &wr, NULL), 0);
	for (i = 0; i < 100000 && st0->defer_tx == 0; i++)
		ses_fakewire_step(&w, 1000);
	assert_int_equal(st0->defer_tx, 1);
	/* the initiator's PDC closes (the target asks when idle): nothing
	 * of the initiator's can fail during the fault */
	do {
		ses_fakewire_step(&w, 1000);
		uet_pds_pool_info_get(w.n[0].pds, &pi);
	} while (pi.pdc_used[0] != 0 && w.now < RUN_NS);
	assert_int_equal(pi.pdc_used[0], 0);
	w.drop_fn = drop_until_down4;
	assert_int_equal(ses_fakewire_recv(&w, 1, 2, 91, rbuf, sizeof(rbuf),
					   9, 0), 0);
	/* the first RTR's PDC fails: the next one waits, and says when */
	for (i = 0; i < 10000000 && st1->pdc_down == 0; i++)
		ses_fakewire_step(&w, 1000);
	t0 = w.now;
	assert_int_equal(st1->rtr_resent, 1);
	assert_true(uet_ses_next_deadline(w.n[1].ses) > t0);
	assert_true(uet_ses_next_deadline(w.n[1].ses) <= t0 + 1000000);
	assert_true(ses_fakewire_run_cq(&w, 0, 1, 4 * RUN_NS));
	assert_true(ses_fakewire_run_cq(&w, 1, 1, RUN_NS));
	assert_int_equal(st1->pdc_down, 4);
	assert_int_equal(st1->rtr_resent, 4);
	assert_int_equal(ses_fakewire_cqe(&w, 0, 90)->status, 0);
	assert_int_equal(ses_fakewire_cqe(&w, 1, 91)->status, 0);
	assert_int_equal(ses_fakewire_cqe(&w, 1, 91)->len, 2500);
	assert_memory_equal(rbuf, sbuf, 2500);
	/* the RTR's check that the restart began is dropped when due */
	assert_true(ses_fakewire_run_idle(&w, RUN_NS));
	assert_int_equal(uet_ses_next_deadline(w.n[1].ses), UINT64_MAX);
	ses_fakewire_fini(&w);
}

/* Node 0's requests are lost (its ACKs go through) until its PDC fails. */
static bool
drop_requests0(struct sfw *fw, int from, const struct uet_pds_tx *t)
{
	return from == 0 && t->cookie != 0 &&
	       uet_ses_stats_get(fw->n[0].ses)->pdc_down == 0;
}

/*
 * The initiator accepts the DEFERRABLE_RTR, but its restarted send fails
 * before any of it reaches the target (found by the deterministic
 * simulator, docs/DST.md "leak": a link trimming everything the initiator
 * sends). The target asks again while the restart does not begin; the
 * initiator answers OK while the restarted send lives, CANCELLED once it
 * failed: the receive fails and its record is freed. It used to wait for
 * the restart for good.
 */
static void
ses_defer_rtr_done__restart_never_came(void **state)
{
	const struct uet_ses_stats *st0, *st1;
	struct uet_pds_pool_info pi;
	struct uet_ses_pool_info si;
	struct uet_ses_wr wr;
	uint32_t i;

	(void)state;
	assert_int_equal(ses_fakewire_init(&w, UET_PROFILE_AI_FULL, 15), 0);
	st0 = uet_ses_stats_get(w.n[0].ses);
	st1 = uet_ses_stats_get(w.n[1].ses);
	ses_fakewire_wr(&w, 0, &wr, UET_SES_WR_TSEND, sbuf, 1500);
	wr.flags |= UET_SES_WR_F_DEFERRABLE;
	wr.tag = 5;
	wr.context = 50;
	assert_int_equal(uet_ses_submit(w.n[0].ses, &wr, NULL), 0);
	for (i = 0; i < 100000 && st0->defer_tx == 0; i++)
		ses_fakewire_step(&w, 1000);
	assert_int_equal(st0->defer_tx, 1);
	do {
		ses_fakewire_step(&w, 1000);
		uet_pds_pool_info_get(w.n[0].pds, &pi);
	} while (pi.pdc_used[0] != 0 && w.now < RUN_NS);
	assert_int_equal(pi.pdc_used[0], 0);
	w.drop_fn = drop_requests0;
	assert_int_equal(ses_fakewire_recv(&w, 1, 2, 51, rbuf, sizeof(rbuf),
					   5, 0), 0);
	assert_true(ses_fakewire_run_cq(&w, 0, 1, RUN_NS));
	assert_int_equal(ses_fakewire_cqe(&w, 0, 50)->status, -ETIMEDOUT);
	assert_true(ses_fakewire_run_cq(&w, 1, 1, RUN_NS));
	assert_int_equal(ses_fakewire_cqe(&w, 1, 51)->status, -ECANCELED);
	assert_int_equal(st0->rtr_rx, 1);
	assert_true(st0->rtr_dup >= 1);
	assert_true(st1->rtr_recheck >= 2);
	uet_ses_pool_info_get(w.n[1].ses, &si);
	assert_int_equal(si.tgt_used, 0);
	ses_fakewire_fini(&w);
}

/* Everything node 0 sends is lost. */
static bool
drop_node0(struct sfw *fw, int from, const struct uet_pds_tx *t)
{
	(void)fw;
	(void)t;
	return from == 0;
}

/*
 * A send parked for its DEFERRABLE_RTR, and the PDC to its target fails
 * (another message on it found the target unreachable): the parked send
 * fails with the PDC's status instead of waiting for good (found by the
 * deterministic simulator, docs/DST.md: a partition longer than the
 * target's RTR retries).
 */
static void
ses_defer_pdc_down__parked_send_fails(void **state)
{
	const struct uet_ses_stats *st0;
	struct uet_ses_wr wr;
	uint32_t i;

	(void)state;
	assert_int_equal(ses_fakewire_init(&w, UET_PROFILE_AI_FULL, 9), 0);
	st0 = uet_ses_stats_get(w.n[0].ses);
	ses_fakewire_wr(&w, 0, &wr, UET_SES_WR_TSEND, sbuf, 2000);
	wr.flags |= UET_SES_WR_F_DEFERRABLE;
	wr.tag = 7;
	wr.context = 70;
	assert_int_equal(uet_ses_submit(w.n[0].ses, &wr, NULL), 0);
	for (i = 0; i < 100000 && st0->defer_tx == 0; i++)
		ses_fakewire_step(&w, 1000);
	assert_int_equal(st0->defer_tx, 1);
	/* the target becomes unreachable; a WRITE on the same PDC finds out */
	w.drop_fn = drop_node0;
	ses_fakewire_wr(&w, 0, &wr, UET_SES_WR_SEND, sbuf, 100);
	wr.context = 72;
	assert_int_equal(uet_ses_submit(w.n[0].ses, &wr, NULL), 0);
	assert_true(ses_fakewire_run_cq(&w, 0, 2, RUN_NS));
	assert_int_equal(ses_fakewire_cqe(&w, 0, 72)->status, -ETIMEDOUT);
	assert_int_equal(ses_fakewire_cqe(&w, 0, 70)->status, -ETIMEDOUT);
	assert_int_equal(st0->pdc_down, 1);
	ses_fakewire_fini(&w);
}

/*
 * A parked deferrable send matched by a receive is delivered exactly once
 * when its SES runs as one context of several (an engine): the initiator
 * restart token carries the context as owner above the slot, the engine
 * steers the DEFERRABLE_RTR that opens a PDC by it (its PIDonFEP is the
 * target's own, which took it back to the target's context: the receive
 * failed CANCELLED and the send waited for good, 1 run in 7 of ofi_data
 * under ASan), and the owner's SES still finds the send by the token.
 */
static void
ses_defer_rtr_rx__owner_token_delivers_once(void **state)
{
	struct ses_fakewire_opts o = { .token_owner_bits = 2 };
	const struct uet_ses_stats *st0, *st1;
	struct uet_ses_wr wr;
	uint32_t i;

	(void)state;
	assert_int_equal(ses_fakewire_init_opts(&w, UET_PROFILE_AI_FULL, 21, &o),
			 0);
	st0 = uet_ses_stats_get(w.n[0].ses);
	st1 = uet_ses_stats_get(w.n[1].ses);
	ses_fakewire_fill(sbuf, 3500, 21);
	ses_fakewire_wr(&w, 0, &wr, UET_SES_WR_SEND, sbuf, 3500);
	wr.flags |= UET_SES_WR_F_DEFERRABLE;
	wr.context = 80;
	assert_int_equal(uet_ses_submit(w.n[0].ses, &wr, NULL), 0);
	for (i = 0; i < 100000 && st0->defer_tx == 0; i++)
		ses_fakewire_step(&w, 1000);
	assert_int_equal(st0->defer_tx, 1);
	assert_int_equal(ses_fakewire_recv(&w, 1, 1, 81, rbuf, sizeof(rbuf),
					   0, 0), 0);
	assert_true(ses_fakewire_run_cq(&w, 0, 1, RUN_NS));
	assert_true(ses_fakewire_run_cq(&w, 1, 1, RUN_NS));
	assert_true(ses_fakewire_run_idle(&w, RUN_NS));
	assert_int_equal(ses_fakewire_cq_count(&w, 0, 80), 1);
	assert_int_equal(ses_fakewire_cq_count(&w, 1, 81), 1);
	assert_int_equal(ses_fakewire_cqe(&w, 0, 80)->status, 0);
	assert_int_equal(ses_fakewire_cqe(&w, 1, 81)->status, 0);
	assert_int_equal(ses_fakewire_cqe(&w, 1, 81)->len, 3500);
	assert_memory_equal(rbuf, sbuf, 3500);
	assert_int_equal(st0->rtr_rx, 1);
	assert_int_equal(st0->rtr_stale, 0);
	assert_int_equal(st1->rtr_tx, 1);
	ses_fakewire_fini(&w);
}

/* Park a deferrable send of 3000 B from node 0 (context @p ctx, data of
 * @p salt) at node 1, which has no receive for it. */
static void
park_send(uint64_t ctx, uint64_t salt, uint8_t *buf)
{
	const struct uet_ses_stats *st0 = uet_ses_stats_get(w.n[0].ses);
	struct uet_ses_wr wr;
	uint32_t i;

	ses_fakewire_fill(buf, 3000, salt);
	ses_fakewire_wr(&w, 0, &wr, UET_SES_WR_SEND, buf, 3000);
	wr.flags |= UET_SES_WR_F_DEFERRABLE;
	wr.context = ctx;
	assert_int_equal(uet_ses_submit(w.n[0].ses, &wr, NULL), 0);
	for (i = 0; i < 100000 && st0->defer_tx == 0; i++)
		ses_fakewire_step(&w, 1000);
	assert_int_equal(st0->defer_tx, 1);
}

/*
 * The initiator of a parked send restarts and parks a send of the same
 * length. The receive posted for the first one sends a DEFERRABLE_RTR
 * with the first incarnation's restart token and message id: the new
 * incarnation answers it CANCELLED (the receive fails) and its own send
 * waits for a receive of its own. With generations and message ids that
 * started the same in every incarnation, the RTR named the new send
 * exactly and restarted it into the other receive (uet-dst generator 7
 * seed 20019041, payload).
 */
static void
ses_defer_rtr_rx__stale_rtr_after_initiator_restart(void **state)
{
	static uint8_t sbuf2[3000];
	const struct uet_ses_stats *st0;

	(void)state;
	assert_int_equal(ses_fakewire_init(&w, UET_PROFILE_AI_FULL, 31), 0);
	park_send(90, 31, sbuf);
	assert_int_equal(ses_fakewire_restart(&w, 0), 0);
	st0 = uet_ses_stats_get(w.n[0].ses);
	park_send(92, 32, sbuf2);
	assert_int_equal(ses_fakewire_recv(&w, 1, 1, 91, rbuf, sizeof(rbuf),
					   0, 0), 0);
	assert_true(ses_fakewire_run_cq(&w, 1, 1, RUN_NS));
	assert_int_equal(ses_fakewire_cqe(&w, 1, 91)->status, -ECANCELED);
	assert_int_equal(st0->rtr_stale, 1);
	assert_int_equal(st0->rtr_rx, 0);
	assert_int_equal(ses_fakewire_cq_count(&w, 0, 92), 0);
	/* the new incarnation's send goes into a receive of its own */
	memset(rbuf, 0, sizeof(rbuf));
	assert_int_equal(ses_fakewire_recv(&w, 1, 1, 93, rbuf, sizeof(rbuf),
					   0, 0), 0);
	assert_true(ses_fakewire_run_cq(&w, 0, 1, RUN_NS));
	assert_true(ses_fakewire_run_cq(&w, 1, 2, RUN_NS));
	assert_int_equal(ses_fakewire_cqe(&w, 0, 92)->status, 0);
	assert_int_equal(ses_fakewire_cqe(&w, 1, 93)->status, 0);
	assert_int_equal(ses_fakewire_cqe(&w, 1, 93)->len, 3000);
	assert_memory_equal(rbuf, sbuf2, 3000);
	assert_int_equal(ses_fakewire_cq_count(&w, 1, 91), 1);
	ses_fakewire_fini(&w);
}

/*
 * The target's message records all held by parked deferrable sends, a
 * third deferrable send is refused (NO_SES_MSG_AVAIL, resent after
 * back-off); receives then come for the two parked ones, whose restarts
 * go on the same PDC as the refused packet and free the records it
 * waits for. Everything completes, ordered (ROD) or not.
 */
static void
defer_records_full(bool ordered)
{
	static uint8_t sb[3][3000], rb[3][3000];
	struct ses_fakewire_opts o = { .max_tgt_msgs = 2 };
	const struct uet_ses_stats *st0, *st1;
	struct uet_ses_wr wr;
	uint32_t k, i;

	assert_int_equal(ses_fakewire_init_opts(&w, UET_PROFILE_AI_FULL, 41,
						&o), 0);
	st0 = uet_ses_stats_get(w.n[0].ses);
	st1 = uet_ses_stats_get(w.n[1].ses);
	memset(rb, 0, sizeof(rb));
	for (k = 0; k < 3; k++) {
		ses_fakewire_fill(sb[k], sizeof(sb[k]), 50 + k);
		ses_fakewire_wr(&w, 0, &wr, UET_SES_WR_SEND, sb[k],
				sizeof(sb[k]));
		wr.flags |= UET_SES_WR_F_DEFERRABLE;
		if (ordered)
			wr.flags |= UET_SES_WR_F_ORDERED;
		wr.context = 100 + k;
		assert_int_equal(uet_ses_submit(w.n[0].ses, &wr, NULL), 0);
		for (i = 0; i < 20000 && st0->defer_tx == k &&
			    st1->refused_rec == 0; i++)
			ses_fakewire_step(&w, 1000);
	}
	assert_int_equal(st0->defer_tx, 2);
	assert_true(st1->refused_rec >= 1);
	for (k = 0; k < 3; k++)
		assert_int_equal(ses_fakewire_recv(&w, 1, 1, 110 + k, rb[k],
						   sizeof(rb[k]), 0, 0), 0);
	assert_true(ses_fakewire_run_cq(&w, 0, 3, RUN_NS));
	assert_true(ses_fakewire_run_cq(&w, 1, 3, RUN_NS));
	for (k = 0; k < 3; k++) {
		assert_int_equal(ses_fakewire_cqe(&w, 0, 100 + k)->status, 0);
		assert_int_equal(ses_fakewire_cqe(&w, 1, 110 + k)->status, 0);
		assert_memory_equal(rb[k], sb[k], sizeof(sb[k]));
	}
	ses_fakewire_fini(&w);
}

static void
ses_defer_records_full__restarts_pass_refused_send(void **state)
{
	(void)state;
	defer_records_full(false);
}

static void
ses_defer_records_full__rod_restarts_pass_refused_send(void **state)
{
	(void)state;
	defer_records_full(true);
}

/* The owner and the slot share the token's 24-bit slot field: an owner
 * outside its bits, or more messages than the rest holds, is refused. */
static void
uet_ses_create__token_owner_checked(void **state)
{
	struct ses_fakewire_opts o = { .token_owner_bits = 1 };

	(void)state;
	/* node 1 would be owner 2 of 1 bit */
	assert_int_not_equal(ses_fakewire_init_opts(&w, UET_PROFILE_AI_FULL,
						    22, &o), 0);
	ses_fakewire_fini(&w);
	o.token_owner_bits = 8;
	o.max_msgs = 1u << 16; /* slot + 1 needs 17 bits: 24 - 8 = 16 */
	assert_int_not_equal(ses_fakewire_init_opts(&w, UET_PROFILE_AI_FULL,
						    23, &o), 0);
	ses_fakewire_fini(&w);
	o.max_msgs = (1u << 16) - 1;
	assert_int_equal(ses_fakewire_init_opts(&w, UET_PROFILE_AI_FULL, 24,
						&o), 0);
	ses_fakewire_fini(&w);
	assert_int_equal(uet_wire_ses_token_owner(0x25000001u | 3u << 22, 2),
			 3);
	assert_int_equal(uet_wire_ses_token_owner(0xFF000001u, 0), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(ses_defer_rtr_done__lost_rtr_sent_again),
		cmocka_unit_test(ses_defer_pdc_down__parked_send_fails),
		cmocka_unit_test(ses_defer_rtr_done__rtr_outlasts_long_fault),
		cmocka_unit_test(ses_defer_rtr_done__restart_never_came),
		cmocka_unit_test(ses_defer_rtr_rx__owner_token_delivers_once),
		cmocka_unit_test(ses_defer_rtr_rx__stale_rtr_after_initiator_restart),
		cmocka_unit_test(uet_ses_create__token_owner_checked),
		cmocka_unit_test(ses_defer_records_full__restarts_pass_refused_send),
		cmocka_unit_test(ses_defer_records_full__rod_restarts_pass_refused_send),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
