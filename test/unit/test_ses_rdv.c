/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Rendezvous sends whose read-back is answered in the ACK of the READ
 * (src/ses/ses_rdv.c): the send completes OK only once that answer is
 * cleared (UEC 1.0 3.5.20.2.2), over the fake wire. Node 0 sends 1000
 * bytes (200 eager), node 1 receives them into a shorter buffer: the rest
 * it reads back is small (300-byte receive: 100 bytes) or nothing
 * (150-byte receive: a zero-length READ).
 */

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
#define SEND_CTX 40
#define RECV_CTX 41

static struct sfw w;
static uint8_t sbuf[1000], rbuf[1000];
static uint32_t acks_to_drop, acks_dropped;
static bool drop_from0;

/* The ACK that carries a read-back's answer (RESPONSE_DATA_SMALL). */
static bool
is_readback_ack(const struct uet_pds_tx *t)
{
	return t->kind == UET_PDS_TX_CTL && t->hdr.type == UET_PDS_TYPE_ACK &&
	       t->hdr.next_hdr == UET_PDS_NEXT_RESPONSE_DATA_SMALL;
}

/* Lose the first acks_to_drop such ACKs of node 0, and everything node 0
 * sends while drop_from0 is set. */
static bool
drop_fn(struct sfw *fw, int from, const struct uet_pds_tx *t)
{
	(void)fw;
	if (from != 0)
		return false;
	if (drop_from0)
		return true;
	if (is_readback_ack(t) && acks_dropped < acks_to_drop) {
		acks_dropped++;
		return true;
	}
	return false;
}

static int
setup(void **state)
{
	uint32_t i;

	*state = &w; /* for ses_fakewire_teardown() */
	acks_to_drop = 0;
	acks_dropped = 0;
	drop_from0 = false;
	if (ses_fakewire_init_rdv(&w, UET_PROFILE_HPC, 0x2d20ull, 100) != 0)
		return -1;
	w.drop_fn = drop_fn;
	for (i = 0; i < sizeof(sbuf); i++)
		sbuf[i] = (uint8_t)(i * 7 + 3);
	memset(rbuf, 0, sizeof(rbuf));
	return 0;
}

/* Post the receive of @p len bytes on node 1, then send from node 0. */
static void
start(uint64_t len)
{
	struct uet_ses_recv r;
	struct uet_ses_wr wr;

	memset(&r, 0, sizeof(r));
	r.op = 1;
	r.context = RECV_CTX;
	r.buf = rbuf;
	r.len = len;
	assert_int_equal(uet_ses_recv_post(w.n[1].ses, &r, w.now), 0);
	ses_fakewire_wr(&w, 0, &wr, UET_SES_WR_SEND, sbuf, sizeof(sbuf));
	wr.context = SEND_CTX;
	assert_int_equal(uet_ses_submit(w.n[0].ses, &wr, NULL), 0);
	assert_int_equal(uet_ses_stats_get(w.n[0].ses)->rdv_tx, 1);
}

/* The receive completed once, OK, with the first @p len bytes. */
static void
check_received(uint64_t len)
{
	const struct uet_ses_cqe *c = ses_fakewire_cqe(&w, 1, RECV_CTX);

	assert_non_null(c);
	assert_int_equal(ses_fakewire_cq_count(&w, 1, RECV_CTX), 1);
	assert_int_equal(c->status, 0);
	assert_int_equal(c->len, len);
	assert_memory_equal(rbuf, sbuf, len);
}

/* Run until the send completes: the receive must have completed before
 * (the target has the data once its READ completed, and only then does
 * the CLEAR that completes the send leave). */
static void
run_send_after_recv(void)
{
	while (ses_fakewire_cq_find(&w, 0, SEND_CTX) < 0 && w.now < RUN_NS) {
		ses_fakewire_step(&w, 1000);
		if (ses_fakewire_cq_find(&w, 0, SEND_CTX) >= 0)
			assert_true(ses_fakewire_cq_find(&w, 1, RECV_CTX) >= 0);
	}
	assert_true(ses_fakewire_cq_find(&w, 0, SEND_CTX) >= 0);
}

/* start(@p len), run until the ACK carrying node 0's answer to the READ
 * is lost. */
static void
start_answer_lost(uint64_t len)
{
	acks_to_drop = 1;
	start(len);
	while (acks_dropped == 0 && w.now < RUN_NS)
		ses_fakewire_step(&w, 1000);
	assert_int_equal(acks_dropped, 1);
}

/* The normal path: the send completes OK exactly once, after the receive
 * (before the fix it completed when the READ was answered, ahead of it). */
static void
ses_rdv_answered__small_readback_completes_once_after_recv(void **state)
{
	(void)state;
	start(300);
	run_send_after_recv();
	assert_int_equal(ses_fakewire_cqe(&w, 0, SEND_CTX)->status, 0);
	check_received(300);
	assert_true(ses_fakewire_run_idle(&w, RUN_NS));
	assert_int_equal(ses_fakewire_cq_count(&w, 0, SEND_CTX), 1);
	assert_int_equal(uet_ses_stats_get(w.n[0].ses)->rdv_served, 1);
	assert_int_equal(uet_ses_stats_get(w.n[0].ses)->stale_done, 0);
}

/* Same with nothing to read back (the receive is shorter than the eager
 * part): the zero-length READ's answer is a stored response too. */
static void
ses_rdv_answered__zero_length_readback_completes_after_recv(void **state)
{
	(void)state;
	start(150);
	run_send_after_recv();
	assert_int_equal(ses_fakewire_cqe(&w, 0, SEND_CTX)->status, 0);
	check_received(150);
	assert_true(ses_fakewire_run_idle(&w, RUN_NS));
	assert_int_equal(ses_fakewire_cq_count(&w, 0, SEND_CTX), 1);
}

/* The ACK carrying the answer is lost: the READ's retransmission fetches
 * the stored copy; the send completes OK once, after the receive. */
static void
ses_rdv_answered__ack_lost_then_resent_completes_once(void **state)
{
	(void)state;
	acks_to_drop = 1;
	start(300);
	run_send_after_recv();
	assert_int_equal(acks_dropped, 1);
	assert_int_equal(ses_fakewire_cqe(&w, 0, SEND_CTX)->status, 0);
	check_received(300);
	assert_true(ses_fakewire_run_idle(&w, RUN_NS));
	assert_int_equal(ses_fakewire_cq_count(&w, 0, SEND_CTX), 1);
}

/*
 * docs/DST.md, generator 3 seed 1009800: the ACK carrying the answer is
 * lost and the sender restarts (same address) before the READ is sent
 * again, its stored copy gone with it. The send must not have completed
 * OK: the receive fails (the READ meets INV_DPDCID), the message was
 * never received. Before the fix the send completed OK on answering.
 */
static void
ses_rdv_answered__ack_lost_then_sender_restart_not_ok(void **state)
{
	(void)state;
	start_answer_lost(150);
	/* well inside the READ's first RTO (1 ms) */
	ses_fakewire_step(&w, 1000);
	assert_int_equal(ses_fakewire_cq_count(&w, 0, SEND_CTX), 0);
	assert_int_equal(ses_fakewire_restart(&w, 0), 0);
	assert_true(ses_fakewire_run_cq(&w, 1, 1, RUN_NS));
	assert_int_equal(ses_fakewire_cq_count(&w, 1, RECV_CTX), 1);
	assert_int_not_equal(ses_fakewire_cqe(&w, 1, RECV_CTX)->status, 0);
	assert_true(ses_fakewire_run_idle(&w, RUN_NS));
	assert_int_equal(ses_fakewire_cq_count(&w, 0, SEND_CTX), 0);
}

/*
 * The reader restarts while the ACK carrying the answer is lost: the
 * sender's PDC is replaced (or given up) with the answer uncleared, so
 * the send fails. Before the fix it completed OK, never received.
 */
static void
ses_rdv_cleared__reader_restart_fails_send(void **state)
{
	const struct uet_ses_cqe *c;

	(void)state;
	start_answer_lost(300);
	assert_int_equal(ses_fakewire_restart(&w, 1), 0);
	assert_true(ses_fakewire_run_cq(&w, 0, 1, RUN_NS));
	c = ses_fakewire_cqe(&w, 0, SEND_CTX);
	assert_non_null(c);
	assert_int_not_equal(c->status, 0);
	assert_true(ses_fakewire_run_idle(&w, RUN_NS));
	assert_int_equal(ses_fakewire_cq_count(&w, 0, SEND_CTX), 1);
	assert_int_equal(ses_fakewire_cq_count(&w, 1, RECV_CTX), 0);
}

/*
 * Everything the sender sends is lost once it has answered the READ, until
 * the receive ends: the reader's PDC fails, the receive fails, and so
 * must the send (MSG_ERROR or the answer dropped with the PDC), once
 * each: never OK while the data never arrived.
 */
static void
ses_rdv_cleared__pdc_fails_mid_readback_both_fail(void **state)
{
	(void)state;
	start_answer_lost(300);
	drop_from0 = true;
	assert_true(ses_fakewire_run_cq(&w, 1, 1, RUN_NS));
	assert_int_not_equal(ses_fakewire_cqe(&w, 1, RECV_CTX)->status, 0);
	drop_from0 = false;
	assert_true(ses_fakewire_run_cq(&w, 0, 1, RUN_NS));
	assert_int_not_equal(ses_fakewire_cqe(&w, 0, SEND_CTX)->status, 0);
	assert_true(ses_fakewire_run_idle(&w, RUN_NS));
	assert_int_equal(ses_fakewire_cq_count(&w, 0, SEND_CTX), 1);
	assert_int_equal(ses_fakewire_cq_count(&w, 1, RECV_CTX), 1);
}

/*
 * A rendezvous send waits unexpected at node 1 (no receive posted) when
 * its sender restarts with the same address: the new incarnation's first
 * send replaces node 1's PDC from the old one (not a CLOSE). The old send
 * is gone with the restart, so its unexpected record must go too: a
 * receive posted then takes the new message, not a read-back of a send
 * that no longer exists (it failed before), and no record is left (DST
 * generator 2 seed 3058291, `leak`: a late copy of a SYN sent before the
 * target restarted delivered a rendezvous message a second time, on a
 * PDC its initiator never answered).
 */
static void
ses_rdv_abandon__sender_restart_drops_unexpected(void **state)
{
	static uint8_t small[64];
	struct uet_ses_recv r;
	struct uet_ses_wr wr;
	struct uet_ses_pool_info pi;
	uint32_t k;

	(void)state;
	ses_fakewire_wr(&w, 0, &wr, UET_SES_WR_SEND, sbuf, sizeof(sbuf));
	wr.context = SEND_CTX;
	assert_int_equal(uet_ses_submit(w.n[0].ses, &wr, NULL), 0);
	for (k = 0; k < 10000 &&
	     uet_ses_stats_get(w.n[1].ses)->rx_rc[UET_RC_OK] == 0; k++)
		ses_fakewire_step(&w, 1000);
	uet_ses_pool_info_get(w.n[1].ses, &pi);
	assert_int_equal(pi.tgt_used, 1); /* stored, waiting for a receive */
	assert_int_equal(ses_fakewire_restart(&w, 0), 0);
	memset(small, 0x5A, sizeof(small));
	ses_fakewire_wr(&w, 0, &wr, UET_SES_WR_SEND, small, sizeof(small));
	wr.context = SEND_CTX + 1;
	assert_int_equal(uet_ses_submit(w.n[0].ses, &wr, NULL), 0);
	assert_true(ses_fakewire_run_cq(&w, 0, 1, RUN_NS));
	assert_int_equal(ses_fakewire_cqe(&w, 0, SEND_CTX + 1)->status, 0);
	uet_ses_pool_info_get(w.n[1].ses, &pi);
	assert_int_equal(pi.tgt_used, 0);
	assert_int_equal(uet_ses_stats_get(w.n[1].ses)->msg_error_tx, 1);
	memset(&r, 0, sizeof(r));
	r.op = 1;
	r.context = RECV_CTX;
	r.buf = rbuf;
	r.len = sizeof(rbuf);
	assert_int_equal(uet_ses_recv_post(w.n[1].ses, &r, w.now), 0);
	assert_true(ses_fakewire_run_cq(&w, 1, 1, RUN_NS));
	assert_int_equal(ses_fakewire_cqe(&w, 1, RECV_CTX)->status, 0);
	assert_int_equal(ses_fakewire_cqe(&w, 1, RECV_CTX)->len, sizeof(small));
	assert_memory_equal(rbuf, small, sizeof(small));
	assert_true(ses_fakewire_run_idle(&w, RUN_NS));
	assert_int_equal(ses_fakewire_cq_count(&w, 1, RECV_CTX), 1);
}

/* ---- a node stalled (descheduled) for longer than the PDS's
 * retransmissions under a 64 KiB rendezvous send: the read-back is many
 * request and return-direction packets (fabtests at 1 MiB on a loaded
 * host: "UET BAD_MKEY (0x1c) from the target") ---- */

#define STALL_NS 3000000000ull /* > the ~2.2 s the PDCs retry for */

static uint8_t big_s[65536], big_r[65536];

/* Post node 1's receive, send from node 0, run until @p stop_at says so,
 * stall node @p node for STALL_NS, then run until both ended. */
static void
stall_run(int node, bool (*stop_at)(void))
{
	struct uet_ses_recv r;
	struct uet_ses_wr wr;
	uint32_t i;

	for (i = 0; i < sizeof(big_s); i++)
		big_s[i] = (uint8_t)(i * 13 + 1);
	memset(&r, 0, sizeof(r));
	r.op = 1;
	r.context = RECV_CTX;
	r.buf = big_r;
	r.len = sizeof(big_r);
	assert_int_equal(uet_ses_recv_post(w.n[1].ses, &r, w.now), 0);
	ses_fakewire_wr(&w, 0, &wr, UET_SES_WR_SEND, big_s, sizeof(big_s));
	wr.context = SEND_CTX;
	assert_int_equal(uet_ses_submit(w.n[0].ses, &wr, NULL), 0);
	for (i = 0; i < 100000 && !stop_at(); i++)
		ses_fakewire_step(&w, 100);
	assert_true(stop_at());
	w.stalled[node] = true;
	for (i = 0; i < STALL_NS / 100000; i++)
		ses_fakewire_step(&w, 100000);
	w.stalled[node] = false;
	assert_true(ses_fakewire_run_cq(&w, 0, 1, RUN_NS));
	assert_true(ses_fakewire_run_cq(&w, 1, 1, RUN_NS));
	assert_true(ses_fakewire_run_idle(&w, RUN_NS));
	assert_int_equal(ses_fakewire_cq_count(&w, 0, SEND_CTX), 1);
	assert_int_equal(ses_fakewire_cq_count(&w, 1, RECV_CTX), 1);
}

/* Node 0 serves the read-back: return-direction data is on the wire. */
static bool
readback_served(void)
{
	struct uet_ses_pool_info pi;

	uet_ses_pool_info_get(w.n[0].ses, &pi);
	return pi.ret_used != 0;
}

/* Node 0 handed its SOM (the eager part and the key) to the wire. */
static bool
som_sent(void)
{
	return uet_ses_stats_get(w.n[0].ses)->frag_built != 0;
}

/*
 * The reader stalls once the sender serves its read-back: the
 * return-direction data goes unacknowledged until the PDC's
 * retransmissions run out. The send fails as a send whose own packets
 * went unacknowledged does, -ETIMEDOUT with no code from the peer
 * (before: -EIO, "local: Input/output error", which hid the cause).
 */
static void
ses_rdv_ret_done__reader_stalled_send_timed_out(void **state)
{
	const struct uet_ses_cqe *c;

	(void)state;
	stall_run(1, readback_served);
	c = ses_fakewire_cqe(&w, 0, SEND_CTX);
	assert_int_equal(c->status, -ETIMEDOUT);
	assert_true(c->prov_errno == UET_RC_NULL ||
		    c->prov_errno == UET_RC_OK);
}

/*
 * The sender stalls once its SOM left: the reader's READ goes
 * unacknowledged until its PDC fails. The receive fails -ETIMEDOUT with
 * no code (before: UNDELIVERABLE, which the provider printed as "UET
 * UNDELIVERABLE (0x1f) from the target": the target said nothing); the
 * sender, told by MSG_ERROR, fails its send -EIO.
 */
static void
ses_rdv_read_done__sender_stalled_receive_timed_out(void **state)
{
	const struct uet_ses_cqe *c;

	(void)state;
	stall_run(0, som_sent);
	c = ses_fakewire_cqe(&w, 1, RECV_CTX);
	assert_int_equal(c->status, -ETIMEDOUT);
	assert_int_equal(c->prov_errno, UET_RC_NULL);
	c = ses_fakewire_cqe(&w, 0, SEND_CTX);
	assert_int_equal(c->status, -EIO);
	assert_int_equal(c->prov_errno, UET_RC_UNDELIVERABLE);
}

/*
 * The reader stalls before the SOM reaches it: the send times out and
 * its key is revoked; the reader then runs, takes the message (it was
 * waiting on the wire) and reads back a key its sender no longer serves:
 * BAD_MKEY, the code fabtests saw. The error is the sender's timeout,
 * seen from the reader, not a key the provider lost.
 */
static void
ses_rdv_read_done__sender_gave_up_bad_mkey(void **state)
{
	const struct uet_ses_cqe *c;

	(void)state;
	stall_run(1, som_sent);
	c = ses_fakewire_cqe(&w, 0, SEND_CTX);
	assert_int_equal(c->status, -ETIMEDOUT);
	c = ses_fakewire_cqe(&w, 1, RECV_CTX);
	assert_int_equal(c->status, -EINVAL);
	assert_int_equal(c->prov_errno, UET_RC_BAD_MKEY);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(
			ses_rdv_answered__small_readback_completes_once_after_recv,
			setup, ses_fakewire_teardown),
		cmocka_unit_test_setup_teardown(
			ses_rdv_answered__zero_length_readback_completes_after_recv,
			setup, ses_fakewire_teardown),
		cmocka_unit_test_setup_teardown(
			ses_rdv_answered__ack_lost_then_resent_completes_once,
			setup, ses_fakewire_teardown),
		cmocka_unit_test_setup_teardown(
			ses_rdv_answered__ack_lost_then_sender_restart_not_ok,
			setup, ses_fakewire_teardown),
		cmocka_unit_test_setup_teardown(
			ses_rdv_cleared__reader_restart_fails_send,
			setup, ses_fakewire_teardown),
		cmocka_unit_test_setup_teardown(
			ses_rdv_cleared__pdc_fails_mid_readback_both_fail,
			setup, ses_fakewire_teardown),
		cmocka_unit_test_setup_teardown(
			ses_rdv_abandon__sender_restart_drops_unexpected,
			setup, ses_fakewire_teardown),
		cmocka_unit_test_setup_teardown(
			ses_rdv_ret_done__reader_stalled_send_timed_out,
			setup, ses_fakewire_teardown),
		cmocka_unit_test_setup_teardown(
			ses_rdv_read_done__sender_stalled_receive_timed_out,
			setup, ses_fakewire_teardown),
		cmocka_unit_test_setup_teardown(
			ses_rdv_read_done__sender_gave_up_bad_mkey,
			setup, ses_fakewire_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
