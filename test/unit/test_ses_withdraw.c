/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * uet_ses_withdraw() (ses_withdraw.c) over the fake wire (ses_fakewire.c):
 * the operations of a process that goes away. What waits only for the
 * peer ends at once, what is on the wire is let finish (busy until then),
 * forced it is detached, and a receive bound to a message gets no more
 * bytes. Buffers are freed or poisoned as an application would once
 * uet_ses_withdraw() returned 0: the ASan flavour reports any later
 * access, the checks below any wrong byte. The seed is printed;
 * UET_TEST_SEED= replays.
 */

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <uet/uet_ses.h>

#include "ses_fakewire.h"

#define RUN_NS (2000ull * 1000 * 1000) /* 2 s of fake time */
#define STEPS 100000
#define LEN 60000

static uint64_t seed = 0x3d7a11ull;
static struct sfw w;
static uint8_t *sbuf, *rbuf;
/* node 0 sends nothing of these while set; node 1 no READ data */
static bool hold_ret, hold_req, hold_ret1;
/* node 1's READ request packets from the third on are lost while set */
static bool hold_req1_tail;
/* READ return-direction data packets node 0 handed to the wire */
static uint32_t ret_sent0;

static bool
drop0(struct sfw *fw, int from, const struct uet_pds_tx *t)
{
	bool ret = t->hdr.next_hdr == UET_PDS_NEXT_RESPONSE_DATA;

	(void)fw;
	if (t->kind == UET_PDS_TX_CTL)
		return false;
	if (from == 1) /* fragment number: the cookie's low 32 bits */
		return ret ? hold_ret1 :
			     hold_req1_tail && (uint32_t)t->cookie >= 2;
	ret_sent0 += ret;
	return ret ? hold_ret : hold_req;
}

/* Contexts below 100 are the withdrawn process's (selector). */
static bool
mine_below_100(void *arg, uint64_t ctx)
{
	(void)arg;
	return ctx != 0 && ctx < 100;
}

static void
fill(uint8_t *b, size_t n, uint64_t salt)
{
	for (size_t i = 0; i < n; i++)
		b[i] = (uint8_t)(i * 31 + salt * 7 + (i >> 9));
}

static int
start(void)
{
	struct ses_fakewire_opts o;

	memset(&o, 0, sizeof(o));
	o.rdv_threshold = 10000;
	hold_ret = hold_req = hold_ret1 = hold_req1_tail = false;
	ret_sent0 = 0;
	if (ses_fakewire_init_opts(&w, UET_PROFILE_HPC, seed, &o) != 0)
		return -1;
	w.drop_fn = drop0;
	sbuf = malloc(LEN);
	rbuf = malloc(LEN);
	if (sbuf == NULL || rbuf == NULL)
		return -1;
	fill(sbuf, LEN, 1);
	memset(rbuf, 0, LEN);
	return 0;
}

static int
teardown(void **state)
{
	(void)state;
	ses_fakewire_fini(&w);
	free(sbuf); /* NULL when a test freed it */
	free(rbuf);
	sbuf = rbuf = NULL;
	return 0;
}

static const struct uet_ses_cqe *
cqe(int node, uint64_t ctx)
{
	const struct uet_ses_cqe *c = ses_fakewire_cqe(&w, node, ctx);

	assert_non_null(c);
	return c;
}

static const struct uet_ses_stats *
sst(int node)
{
	return uet_ses_stats_get(w.n[node].ses);
}

static void
send0(uint64_t ctx, void *buf, uint32_t len)
{
	struct uet_ses_wr wr;

	ses_fakewire_wr(&w, 0, &wr, UET_SES_WR_SEND, buf, len);
	wr.context = ctx;
	assert_int_equal(uet_ses_submit(w.n[0].ses, &wr, NULL), 0);
}

static void
recv1(uint64_t ctx, void *buf, uint32_t len)
{
	struct uet_ses_recv r;

	memset(&r, 0, sizeof(r));
	r.op = 1;
	r.context = ctx;
	r.buf = buf;
	r.len = len;
	assert_int_equal(uet_ses_recv_post(w.n[1].ses, &r, w.now), 0);
}

static uint32_t
ret_used(int node)
{
	struct uet_ses_pool_info pi;

	uet_ses_pool_info_get(w.n[node].ses, &pi);
	return pi.ret_used;
}

/* Step until node 1 answered @p n requests OK. */
static void
answered(uint64_t n)
{
	for (uint32_t k = 0; k < STEPS && sst(1)->rx_rc[UET_RC_OK] < n; k++)
		ses_fakewire_step(&w, 1000);
	assert_true(sst(1)->rx_rc[UET_RC_OK] >= n);
}

/* A rendezvous send nobody reads and a large READ whose data does not
 * come: both end at once with -ECANCELED; the send's key is revoked (the
 * RI table is empty), so the peer's late read-back fails. */
static void
uet_ses_withdraw__waiting_ends_at_once(void **state)
{
	uint8_t *mem = calloc(1, LEN), *back = malloc(LEN);
	struct uet_ses_wr wr;
	uint64_t key;

	(void)state;
	assert_int_equal(start(), 0);
	assert_non_null(mem);
	assert_non_null(back);
	send0(1, sbuf, LEN);
	answered(1);
	key = ses_fakewire_mr(&w, 1, mem, LEN, UET_SES_MR_REMOTE_READ, false);
	ses_fakewire_wr(&w, 0, &wr, UET_SES_WR_READ, back, LEN);
	wr.rkey = key;
	wr.context = 2;
	assert_int_equal(uet_ses_submit(w.n[0].ses, &wr, NULL), 0);
	/* node 1's READ data is lost for now: the READ waits for it */
	hold_ret1 = true;
	for (uint32_t k = 0; k < 200; k++)
		ses_fakewire_step(&w, 1000);
	assert_int_equal(w.n[0].ncq, 0);
	assert_int_equal(uet_ses_withdraw(w.n[0].ses, mine_below_100, NULL,
					  false), 0);
	assert_int_equal(sst(0)->withdrawn, 2);
	memset(sbuf, 0xEE, LEN);
	memset(back, 0xEE, LEN);
	hold_ret1 = false;
	assert_true(ses_fakewire_run_cq(&w, 0, 2, RUN_NS));
	assert_int_equal(cqe(0, 1)->status, -ECANCELED);
	assert_int_equal(cqe(0, 2)->status, -ECANCELED);
	/* the peer reads too late: refused, nothing of sbuf arrives */
	recv1(100, rbuf, LEN);
	assert_true(ses_fakewire_run_cq(&w, 1, 1, RUN_NS));
	assert_true(cqe(1, 100)->status != 0);
	for (uint32_t i = 10000; i < LEN; i++)
		assert_int_not_equal(rbuf[i], 0xEE);
	assert_true(ses_fakewire_run_idle(&w, RUN_NS));
	for (uint32_t i = 0; i < LEN; i++)
		assert_int_equal(back[i], 0xEE); /* late data dropped */
	assert_int_equal(uet_ses_ri_del(w.n[0].mr, w.n[0].ri_rdv), 0);
	free(mem);
	free(back);
}

/* Start a rendezvous send of sbuf and the peer's receive into rbuf, and
 * hold node 0's read-back data: the read-back is under way. */
static void
readback_under_way(void)
{
	send0(1, sbuf, LEN);
	answered(1);
	hold_ret = true;
	recv1(100, rbuf, LEN);
	for (uint32_t k = 0; k < STEPS && ret_used(0) == 0; k++)
		ses_fakewire_step(&w, 1000);
	assert_true(ret_used(0) != 0);
}

/* A read-back under way is let finish: busy until it is served, then
 * the receive holds the sender's bytes. */
static void
uet_ses_withdraw__readback_let_finish(void **state)
{
	uint8_t *orig = malloc(LEN);
	uint32_t k;

	(void)state;
	assert_int_equal(start(), 0);
	assert_non_null(orig);
	memcpy(orig, sbuf, LEN);
	readback_under_way();
	assert_int_equal(uet_ses_withdraw(w.n[0].ses, mine_below_100, NULL,
					  false), 1);
	hold_ret = false;
	for (k = 0; k < STEPS && uet_ses_withdraw(w.n[0].ses, mine_below_100,
						  NULL, false) != 0; k++)
		ses_fakewire_step(&w, 1000);
	assert_int_equal(uet_ses_withdraw(w.n[0].ses, mine_below_100, NULL,
					  false), 0);
	free(sbuf); /* the application's buffer goes */
	sbuf = NULL;
	assert_true(ses_fakewire_run_cq(&w, 1, 1, RUN_NS));
	assert_int_equal(cqe(1, 100)->status, 0);
	assert_memory_equal(rbuf, orig, LEN);
	assert_true(ses_fakewire_run_idle(&w, RUN_NS));
	assert_int_equal(sst(0)->withdraw_forced, 0);
	free(orig);
}

/* Forced: the read-back under way is detached; the buffer is freed at
 * once and never read again (ASan), the peer's receive fails. */
static void
uet_ses_withdraw__force_detaches_readback(void **state)
{
	(void)state;
	assert_int_equal(start(), 0);
	readback_under_way();
	assert_int_equal(uet_ses_withdraw(w.n[0].ses, mine_below_100, NULL,
					  true), 0);
	assert_int_equal(sst(0)->withdraw_forced, 1);
	free(sbuf);
	sbuf = NULL;
	hold_ret = false;
	assert_true(ses_fakewire_run_cq(&w, 1, 1, 4 * RUN_NS));
	/* its packets were never built again: the PDC failed */
	assert_true(w.build_err > 0);
	assert_true(cqe(1, 100)->status != 0);
	assert_true(ses_fakewire_run_cq(&w, 0, 1, 4 * RUN_NS));
	assert_true(cqe(0, 1)->status != 0);
}

/* Forced while the read-back's first part is on the wire and the rest
 * not asked for yet: that part is acknowledged (its records end OK), the
 * rest meets the revoked key. The send has no read-back left reading its
 * buffer and was cancelled: it completes (-ECANCELED) instead of waiting
 * for bytes nobody will serve (uet-dst seed 1672). */
static void
uet_ses_withdraw__force_partial_readback_completes(void **state)
{
	uint32_t k;

	(void)state;
	assert_int_equal(start(), 0);
	send0(1, sbuf, LEN);
	answered(1);
	hold_req1_tail = true;
	recv1(100, rbuf, LEN);
	for (k = 0; k < STEPS && ret_sent0 == 0; k++)
		ses_fakewire_step(&w, 1000);
	assert_true(ret_sent0 != 0);
	/* the data is on the wire, not acknowledged yet */
	assert_int_equal(uet_ses_withdraw(w.n[0].ses, mine_below_100, NULL,
					  true), 0);
	assert_int_equal(sst(0)->withdraw_forced, 1);
	free(sbuf);
	sbuf = NULL;
	hold_req1_tail = false;
	assert_true(ses_fakewire_run_cq(&w, 0, 1, RUN_NS));
	assert_int_equal(cqe(0, 1)->status, -ECANCELED);
	assert_true(ses_fakewire_run_cq(&w, 1, 1, RUN_NS));
	assert_true(cqe(1, 100)->status != 0);
	assert_true(ses_fakewire_run_idle(&w, RUN_NS));
}

/* An eager multi-packet send on the wire is let finish (the PDS may ask
 * for any packet again); a send not handed over yet is never sent. */
static void
uet_ses_withdraw__eager_in_flight_finishes(void **state)
{
	const uint32_t len = 8000;
	uint8_t *orig = malloc(len);
	uint32_t k;

	(void)state;
	assert_int_equal(start(), 0);
	assert_non_null(orig);
	memcpy(orig, sbuf, len);
	recv1(100, rbuf, LEN);
	recv1(101, rbuf + len, LEN - len);
	hold_req = true; /* lost on the wire: retransmitted later */
	send0(1, sbuf, len);
	ses_fakewire_step(&w, 1000);
	send0(2, sbuf + len, len); /* behind it, not handed over yet */
	assert_int_equal(uet_ses_withdraw(w.n[0].ses, mine_below_100, NULL,
					  false), 1);
	hold_req = false;
	for (k = 0; k < STEPS && uet_ses_withdraw(w.n[0].ses, mine_below_100,
						  NULL, false) != 0; k++)
		ses_fakewire_step(&w, 1000);
	assert_int_equal(uet_ses_withdraw(w.n[0].ses, mine_below_100, NULL,
					  false), 0);
	free(sbuf);
	sbuf = NULL;
	assert_true(ses_fakewire_run_cq(&w, 1, 1, RUN_NS));
	assert_int_equal(cqe(1, 100)->status, 0);
	assert_memory_equal(rbuf, orig, len);
	assert_true(ses_fakewire_run_cq(&w, 0, 2, RUN_NS));
	assert_int_equal(cqe(0, 2)->status, -ECANCELED);
	assert_true(ses_fakewire_run_idle(&w, RUN_NS));
	assert_int_equal(ses_fakewire_cq_find(&w, 1, 101), -1); /* never sent */
	free(orig);
}

/* A receive bound to a multi-packet message is withdrawn: the rest of
 * the message lands nowhere, the record still completes. */
static void
uet_ses_withdraw__bound_receive_gets_nothing(void **state)
{
	const uint32_t len = 9000;
	uint32_t k;

	(void)state;
	assert_int_equal(start(), 0);
	recv1(50, rbuf, LEN);
	send0(200, sbuf, len);
	/* the first packets land, then node 0's requests are lost */
	for (k = 0; k < STEPS && sst(0)->frag_tx < 3; k++)
		ses_fakewire_step(&w, 1);
	hold_req = true;
	for (k = 0; k < 1000; k++)
		ses_fakewire_step(&w, 1000);
	assert_int_equal(uet_ses_withdraw(w.n[1].ses, mine_below_100, NULL,
					  false), 0);
	memset(rbuf, 0x55, LEN); /* the application's buffer again */
	hold_req = false;
	assert_true(ses_fakewire_run_cq(&w, 1, 1, RUN_NS));
	assert_int_equal(cqe(1, 50)->context, 50);
	for (k = 0; k < LEN; k++)
		assert_int_equal(rbuf[k], 0x55);
	assert_true(ses_fakewire_run_cq(&w, 0, 1, RUN_NS));
	assert_true(ses_fakewire_run_idle(&w, RUN_NS));
}

/* Forced while a send of another process and then one of its own are
 * both on the wire (lost so far) on one PDC, with the peer answering: the
 * other send completes, the PDC fails once the withdrawn send's packets,
 * which can never be built again, are the oldest left, and the send ends
 * -ECANCELED, within a few RTOs. Resent every RTO, they kept the PDC
 * alive until the peer was silent for the dead-peer time: for ever while
 * the packets before them made progress (uet-dst seed 5117982). */
static void
uet_ses_withdraw__forced_send_fails_its_pdc_after_those_before(void **state)
{
	const uint32_t len = 8000;
	uint8_t *other = malloc(len);
	const struct uet_pds_stats *ps;
	uint64_t t0;
	uint32_t k;

	(void)state;
	assert_int_equal(start(), 0);
	assert_non_null(other);
	fill(other, len, 3);
	recv1(300, rbuf, LEN);
	hold_req = true; /* lost on the wire: retransmitted later */
	send0(200, other, len); /* not the withdrawn process's */
	send0(1, sbuf, len);
	for (k = 0; k < 100; k++)
		ses_fakewire_step(&w, 1000);
	assert_int_equal(uet_ses_withdraw(w.n[0].ses, mine_below_100, NULL,
					  true), 0);
	assert_int_equal(sst(0)->withdraw_forced, 1);
	free(sbuf);
	sbuf = NULL;
	hold_req = false;
	t0 = w.now;
	assert_true(ses_fakewire_run_cq(&w, 0, 2, RUN_NS));
	assert_int_equal(cqe(0, 200)->status, 0);
	assert_int_equal(cqe(0, 1)->status, -ECANCELED);
	assert_true(ses_fakewire_run_cq(&w, 1, 1, RUN_NS));
	assert_int_equal(cqe(1, 300)->status, 0);
	assert_memory_equal(rbuf, other, len);
	ps = uet_pds_stats_get(w.n[0].pds);
	assert_int_equal(ps->tx_unbuildable, 1);
	assert_int_equal(ps->pdc_fail, 1);
	assert_true(w.build_err > 0);
	/* a few RTOs, not the dead-peer time (1.93 s) */
	assert_true(w.now - t0 < 20ull * 1000 * 1000);
	assert_true(ses_fakewire_run_idle(&w, RUN_NS));
	free(other);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(
			uet_ses_withdraw__waiting_ends_at_once, teardown),
		cmocka_unit_test_teardown(
			uet_ses_withdraw__readback_let_finish, teardown),
		cmocka_unit_test_teardown(
			uet_ses_withdraw__force_detaches_readback, teardown),
		cmocka_unit_test_teardown(
			uet_ses_withdraw__force_partial_readback_completes,
			teardown),
		cmocka_unit_test_teardown(
			uet_ses_withdraw__eager_in_flight_finishes, teardown),
		cmocka_unit_test_teardown(
			uet_ses_withdraw__bound_receive_gets_nothing, teardown),
		cmocka_unit_test_teardown(
			uet_ses_withdraw__forced_send_fails_its_pdc_after_those_before,
			teardown),
	};
	const char *s = getenv("UET_TEST_SEED");

	if (s != NULL)
		seed = strtoull(s, NULL, 0);
	printf("# seed 0x%llx\n", (unsigned long long)seed);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
