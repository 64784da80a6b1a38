/* SPDX-License-Identifier: BSD-3-Clause */
/* Control messages sent again after their PDC failed (src/ses/ses_ctl.c),
 * over the fake wire. */

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "ses_fakewire.h"
#include "ses_private.h"

/* Virtual time to run: a PDC with the default 24 RTO rounds (1 ms doubling
 * to 100 ms) fails after about 2.2 s. */
#define RUN_NS 6000000000ull

static struct sfw w;
static uint8_t sbuf[5000], rbuf[5000];

/* Everything node 1 sends is lost until its third PDC failure: the
 * read-back, then two MSG_ERRORs. */
static bool
drop_until_down3(struct sfw *fw, int from, const struct uet_pds_tx *t)
{
	(void)t;
	return from == 1 && uet_ses_stats_get(fw->n[1].ses)->pdc_down < 3;
}

/* Step until node @p node has no initiator PDC left. */
static void
run_until_no_init_pdc(int node)
{
	struct uet_pds_pool_info pi;

	do {
		ses_fakewire_step(&w, 1000);
		uet_pds_pool_info_get(w.n[node].pds, &pi);
	} while (pi.pdc_used[0] != 0 && w.now < RUN_NS);
	assert_int_equal(pi.pdc_used[0], 0);
}

/*
 * A rendezvous send waits for its read-back; the target's read-back and
 * then its MSG_ERROR both fail inside one long partition of the target,
 * while the initiator's PDC, which carried the eager part, has closed
 * cleanly (found by the deterministic simulator, docs/DST.md: a 110 ms
 * partition). The MSG_ERROR goes again on a new PDC until one gets
 * through: the send fails with -EIO. Sent once, it used to leave the send
 * waiting for good.
 */
static void
ses_ctl_retry__msg_error_outlasts_partition(void **state)
{
	const struct uet_ses_stats *st0, *st1;
	struct uet_ses_recv r;
	struct uet_ses_wr wr;
	uint32_t i;

	(void)state;
	assert_int_equal(ses_fakewire_init_rdv(&w, UET_PROFILE_HPC, 13, 100), 0);
	st0 = uet_ses_stats_get(w.n[0].ses);
	st1 = uet_ses_stats_get(w.n[1].ses);
	for (i = 0; i < sizeof(sbuf); i++)
		sbuf[i] = (uint8_t)(i * 3 + 1);
	ses_fakewire_wr(&w, 0, &wr, UET_SES_WR_SEND, sbuf, sizeof(sbuf));
	wr.context = 40;
	assert_int_equal(uet_ses_submit(w.n[0].ses, &wr, NULL), 0);
	assert_int_equal(st0->rdv_tx, 1);
	/* the eager part is in, unexpected; its PDC closes */
	run_until_no_init_pdc(0);
	assert_int_equal(w.n[0].ncq, 0);
	w.drop_fn = drop_until_down3;
	memset(&r, 0, sizeof(r));
	r.op = 1;
	r.context = 41;
	r.buf = rbuf;
	r.len = sizeof(rbuf);
	assert_int_equal(uet_ses_recv_post(w.n[1].ses, &r, w.now), 0);
	assert_true(ses_fakewire_run_cq(&w, 1, 1, RUN_NS));
	assert_int_equal(ses_fakewire_cqe(&w, 1, 41)->status, -ETIMEDOUT);
	assert_true(ses_fakewire_run_cq(&w, 0, 1, 2 * RUN_NS));
	assert_int_equal(ses_fakewire_cqe(&w, 0, 40)->status, -EIO);
	assert_int_equal(st1->pdc_down, 3);
	assert_int_equal(st1->msg_error_tx, 1);
	assert_int_equal(st1->msg_error_resent, 2);
	assert_int_equal(st0->msg_error_rx, 1);
	assert_true(ses_fakewire_run_idle(&w, RUN_NS));
	assert_int_equal(uet_ses_next_deadline(w.n[1].ses), UINT64_MAX);
	ses_fakewire_fini(&w);
}

/*
 * A control message whose PDC went with it in flight, or whose move to a
 * new PDC after the peer's NACK CLOSING failed, completes with
 * -ECONNABORTED (pds_nack_closing(), pds_pdc_free()): it was never
 * accepted, so it goes again like one lost with its PDC. Found by the
 * deterministic simulator (docs/DST.md, soak seed 3074552): a
 * DEFERRABLE_RTR NACKed CLOSING could not move, the receive failed and the
 * parked send waited for good. An answer with a code stays final.
 */
static void
ses_ctl_lost__aborted_goes_again(void **state)
{
	(void)state;
	assert_true(ses_ctl_lost(UET_RC_NULL, -ECONNABORTED));
	assert_true(ses_ctl_lost(UET_RC_NULL, -ETIMEDOUT));
	assert_true(ses_ctl_lost(UET_RC_NULL, -ECONNRESET));
	assert_false(ses_ctl_lost(UET_RC_NULL, -EIO));
	assert_false(ses_ctl_lost(UET_RC_CANCELLED, -ECONNABORTED));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(ses_ctl_retry__msg_error_outlasts_partition),
		cmocka_unit_test(ses_ctl_lost__aborted_goes_again),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
