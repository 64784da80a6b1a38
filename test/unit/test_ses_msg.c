/* SPDX-License-Identifier: BSD-3-Clause */
/* Target side of the send family (src/ses/ses_msg.c) over the fake wire:
 * what a target PDC takes with it when it goes; multi-recv releases. */

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "ses_fakewire.h"

/* A PDC with the default 24 RTO rounds (1 ms doubling to 100 ms) fails
 * after about 2.2 s; an idle target PDC asks to close after 1 s. */
#define RUN_NS 6000000000ull

static struct sfw w;
static uint8_t sbuf[5000], rbuf[5000];
static uint32_t sent0;

/* Node 0's first request packet goes through; then everything it sends is
 * lost until its PDC has failed: its initiator gives the message up
 * after one packet. */
static bool
drop_after_first(struct sfw *fw, int from, const struct uet_pds_tx *t)
{
	(void)t;
	if (from != 0 || uet_ses_stats_get(fw->n[0].ses)->pdc_down != 0)
		return false;
	return sent0++ > 0;
}

/* A 5000-byte send whose initiator gives up after its first packet; the
 * initiator's completion is checked. */
static void
send_given_up(void)
{
	struct uet_ses_wr wr;
	uint32_t i;

	for (i = 0; i < sizeof(sbuf); i++)
		sbuf[i] = (uint8_t)(i * 11 + 5);
	sent0 = 0;
	w.drop_fn = drop_after_first;
	ses_fakewire_wr(&w, 0, &wr, UET_SES_WR_TSEND, sbuf, sizeof(sbuf));
	wr.tag = 3;
	wr.context = 30;
	assert_int_equal(uet_ses_submit(w.n[0].ses, &wr, NULL), 0);
	assert_true(ses_fakewire_run_cq(&w, 0, 1, RUN_NS));
	assert_int_equal(ses_fakewire_cqe(&w, 0, 30)->status, -ETIMEDOUT);
}

static void
post(uint64_t ctx)
{
	assert_int_equal(ses_fakewire_recv(&w, 1, 2, ctx, rbuf, sizeof(rbuf),
					   3, 0), 0);
}

/*
 * A receive took a multi-packet message whose initiator then gave up (its
 * PDC failed after the first packet; found by the deterministic simulator,
 * docs/DST.md "leak"). Once the target PDC goes, the receive completes
 * with -ECONNRESET and the reassembly record is freed: the buffer is the
 * application's again. The record used to stay, and the receive never
 * completed.
 */
static void
ses_target_pdc_closed__bound_receive_fails(void **state)
{
	const struct uet_ses_stats *st1;
	struct uet_ses_pool_info pi;

	(void)state;
	assert_int_equal(ses_fakewire_init(&w, UET_PROFILE_HPC, 21), 0);
	st1 = uet_ses_stats_get(w.n[1].ses);
	post(31);
	send_given_up();
	assert_true(ses_fakewire_run_cq(&w, 1, 1, RUN_NS));
	assert_int_equal(ses_fakewire_cqe(&w, 1, 31)->status, -ECONNRESET);
	assert_int_equal(ses_fakewire_cqe(&w, 1, 31)->len, 0);
	assert_int_equal(st1->tgt_abandoned, 1);
	assert_true(st1->tgt_pdc_closed >= 1);
	uet_ses_pool_info_get(w.n[1].ses, &pi);
	assert_int_equal(pi.tgt_used, 0);
	ses_fakewire_fini(&w);
}

/*
 * The same message unexpected: its partial record held by the matching
 * engine is dropped with the target PDC, so a receive posted later does
 * not take a message that will never be whole.
 */
static void
ses_target_pdc_closed__partial_unexpected_dropped(void **state)
{
	const struct uet_ses_stats *st1;
	struct uet_ses_pool_info pi;
	uint32_t i;

	(void)state;
	assert_int_equal(ses_fakewire_init(&w, UET_PROFILE_HPC, 23), 0);
	st1 = uet_ses_stats_get(w.n[1].ses);
	send_given_up();
	for (i = 0; i < 10000 && st1->tgt_abandoned == 0; i++)
		ses_fakewire_step(&w, 1000000);
	assert_int_equal(st1->tgt_abandoned, 1);
	uet_ses_pool_info_get(w.n[1].ses, &pi);
	assert_int_equal(pi.tgt_used, 0);
	/* a receive now waits: nothing unexpected matches it */
	post(32);
	ses_fakewire_step(&w, 1000000);
	assert_int_equal(w.n[1].ncq, 0);
	assert_int_equal(uet_ses_recv_cancel(w.n[1].ses, 32), 0);
	ses_fakewire_fini(&w);
}

/* The second to fourth new requests of node 0 are lost once (their
 * retransmissions go through). */
static uint32_t new0;

static bool
drop_middle_of_first(struct sfw *fw, int from, const struct uet_pds_tx *t)
{
	(void)fw;
	if (from != 0 || t->kind != UET_PDS_TX_NEW)
		return false;
	new0++;
	return new0 >= 2 && new0 <= 4;
}

/*
 * A multi-recv buffer takes a multi-packet message A, then a one-packet
 * message B whose slice leaves less than min_free: the matching engine
 * releases the buffer with B, while A is still arriving (its later
 * packets were lost and come again). The completion that releases the
 * buffer gives it back to the application (fi_cq(3) FI_MULTI_RECV), so
 * it must be A's, the last: B's used to carry it, and A was written into
 * the buffer after it (found by the simulator, seed 678 of --gen 3).
 */
static void
ses_recv_cqe__multi_recv_done_waits_for_earlier_message(void **state)
{
	static const uint32_t len[2] = { 3 * SFW_MTU + 17, 500 };
	const struct uet_ses_cqe *a, *b;
	struct uet_ses_recv r;
	struct uet_ses_wr wr;

	(void)state;
	assert_int_equal(ses_fakewire_init(&w, UET_PROFILE_HPC, 25), 0);
	for (uint32_t i = 0; i < sizeof(sbuf); i++)
		sbuf[i] = (uint8_t)(i * 7 + 1);
	memset(&r, 0, sizeof(r));
	r.op = 1;
	r.context = 40;
	r.buf = rbuf;
	r.len = len[0] + len[1] + 100;
	r.flags = UET_SES_RECV_F_MULTI;
	r.min_free = 200;
	assert_int_equal(uet_ses_recv_post(w.n[1].ses, &r, w.now), 0);
	new0 = 0;
	w.drop_fn = drop_middle_of_first;
	for (uint32_t k = 0; k < 2; k++) {
		ses_fakewire_wr(&w, 0, &wr, UET_SES_WR_SEND, sbuf + 1000 * k,
				len[k]);
		wr.context = 41 + k;
		assert_int_equal(uet_ses_submit(w.n[0].ses, &wr, NULL), 0);
		ses_fakewire_step(&w, 1000);
	}
	assert_true(ses_fakewire_run_cq(&w, 1, 2, RUN_NS));
	/* B completed first, A last, with the release */
	b = &w.n[1].cq[0];
	a = &w.n[1].cq[1];
	assert_int_equal(b->status, 0);
	assert_int_equal(b->len, len[1]);
	assert_int_equal(a->status, 0);
	assert_int_equal(a->offset, 0);
	assert_int_equal(a->len, len[0]);
	assert_int_equal(b->offset, len[0]);
	assert_int_equal(b->flags & UET_SES_CQ_MULTI_RECV_DONE, 0);
	assert_int_not_equal(a->flags & UET_SES_CQ_MULTI_RECV_DONE, 0);
	assert_memory_equal(rbuf, sbuf, len[0]);
	assert_memory_equal(rbuf + len[0], sbuf + 1000, len[1]);
	ses_fakewire_fini(&w);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(ses_target_pdc_closed__bound_receive_fails),
		cmocka_unit_test(ses_target_pdc_closed__partial_unexpected_dropped),
		cmocka_unit_test(ses_recv_cqe__multi_recv_done_waits_for_earlier_message),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
