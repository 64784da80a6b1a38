/* SPDX-License-Identifier: BSD-3-Clause */
/* Target state machine (src/pds/pds_target.c), driven packet by packet. */

#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "pds_fakewire.h"
#include "pds_private.h"


/* Submit one request and return its descriptor. */
static struct uet_pds_tx
one_req(uint8_t mode, uint64_t cookie, uint8_t flags)
{
	struct uet_pds_tx t;

	assert_int_equal(fakewire_submit(&W, mode, cookie, flags), 0);
	assert_true(fakewire_take_type(&W, 0, mode == UET_PDS_MODE_ROD ?
				 UET_PDS_TYPE_ROD_REQ : UET_PDS_TYPE_RUD_REQ,
				 &t));
	return t;
}

static void
pds_target_rx__syn_creates_pdc_and_acks_at_once(void **state)
{
	struct uet_pds_tx req = one_req(UET_PDS_MODE_RUD, 1, 0), ack;

	(void)state;
	assert_true(req.hdr.flags & UET_PDS_F_SYN);
	fakewire_inject(&W, 1, &req, false, false);
	assert_int_equal(W.delivered[1], 1);
	assert_int_equal(fakewire_st(1)->pdc_open_tgt, 1);
	assert_true(fakewire_take_type(&W, 1, UET_PDS_TYPE_ACK, &ack));
	assert_int_equal(ack.hdr.u.ack.cack_psn, req.hdr.u.req.psn);
	assert_int_equal(ack.hdr.u.ack.dpdcid, req.hdr.u.req.spdcid);
	assert_int_equal(ack.ev, req.ev);
}

static void
pds_target_rx__duplicate_is_reacked_not_nacked(void **state)
{
	struct uet_pds_tx req = one_req(UET_PDS_MODE_RUD, 2, 0), ack;

	(void)state;
	fakewire_inject(&W, 1, &req, false, false);
	fakewire_take(&W, 1, &ack, 1);
	fakewire_inject(&W, 1, &req, false, false);
	assert_int_equal(W.delivered[2], 1);
	assert_int_equal(fakewire_st(1)->dup_rx, 1);
	assert_true(fakewire_take_type(&W, 1, UET_PDS_TYPE_ACK, &ack));
	assert_int_equal(fakewire_st(1)->tx_type[UET_PDS_TYPE_NACK], 0);
}

static void
pds_target_rx__ce_mark_echoed_in_ack(void **state)
{
	struct uet_pds_tx req = one_req(UET_PDS_MODE_RUD, 3, 0), ack;

	(void)state;
	fakewire_inject(&W, 1, &req, false, true);
	assert_true(fakewire_take_type(&W, 1, UET_PDS_TYPE_ACK, &ack));
	assert_true(ack.hdr.flags & UET_PDS_F_M);
}

static void
pds_target_rx__beyond_window_nacks_oor(void **state)
{
	struct uet_pds_tx req = one_req(UET_PDS_MODE_RUD, 4, 0), nack;

	(void)state;
	req.hdr.u.req.psn += 64;
	req.hdr.u.req.psn_offset += 64;
	fakewire_inject(&W, 1, &req, false, false);
	assert_int_equal(W.delivered[4], 0);
	assert_true(fakewire_take_type(&W, 1, UET_PDS_TYPE_NACK, &nack));
	assert_int_equal(nack.hdr.u.nack.code, UET_NACK_PSN_OOR_WINDOW);
	assert_int_equal(nack.hdr.u.nack.psn, req.hdr.u.req.psn);
}

/* A PSN one receive window past a PSN received out of order shares its
 * bit: it is out of the window (NACK PSN_OOR_WINDOW), not a duplicate. */
static void
pds_target_rx__beyond_window_alias_not_duplicate(void **state)
{
	struct uet_pds_tx r0 = one_req(UET_PDS_MODE_RUD, 8, 0), r1, nack;

	(void)state;
	r1 = one_req(UET_PDS_MODE_RUD, 9, 0);
	fakewire_inject(&W, 1, &r0, false, false);
	fakewire_inject(&W, 1, &r0, false, false); /* nothing else pending */
	r1.hdr.u.req.psn += 1;               /* out of order: a bit is set */
	r1.hdr.u.req.psn_offset += 1;
	fakewire_inject(&W, 1, &r1, false, false);
	assert_int_equal(W.delivered[9], 1);
	while (fakewire_take(&W, 1, &nack, 1) == 1)
		;
	r1.hdr.u.req.psn += 64;              /* rx_window: same bit */
	r1.hdr.u.req.psn_offset += 64;
	fakewire_inject(&W, 1, &r1, false, false);
	assert_int_equal(W.delivered[9], 1);
	assert_int_equal(fakewire_st(1)->dup_rx, 1);
	assert_true(fakewire_take_type(&W, 1, UET_PDS_TYPE_NACK, &nack));
	assert_int_equal(nack.hdr.u.nack.code, UET_NACK_PSN_OOR_WINDOW);
	assert_int_equal(nack.hdr.u.nack.psn, r1.hdr.u.req.psn);
}

static void
pds_target_rx__unknown_dpdcid_nacks_inv_dpdcid(void **state)
{
	struct uet_pds_tx req = one_req(UET_PDS_MODE_RUD, 5, 0), nack;

	(void)state;
	req.hdr.flags &= (uint8_t)~UET_PDS_F_SYN;
	req.hdr.u.req.dpdcid = 5;
	req.hdr.u.req.psn_offset = 0;
	req.hdr.u.req.use_rsv_pdc = false;
	fakewire_inject(&W, 1, &req, false, false);
	assert_true(fakewire_take_type(&W, 1, UET_PDS_TYPE_NACK, &nack));
	assert_int_equal(nack.hdr.u.nack.code, UET_NACK_INV_DPDCID);
	assert_int_equal(nack.hdr.u.nack.dpdcid, req.hdr.u.req.spdcid);
	assert_int_equal(fakewire_st(1)->pdc_open_tgt, 0);
}

static void
rx_trimmed(const struct uet_pds_tx *t, bool lasthop, bool ce)
{
	struct uet_pds_rx_meta m;

	memset(&m, 0, sizeof(m));
	m.src = W.fa[0];
	m.dst = W.fa[1];
	m.ev = t->ev;
	m.ce = ce;
	m.trimmed = !lasthop;
	m.trimmed_lasthop = lasthop;
	assert_int_equal(uet_pds_rx(W.pds[1], &t->hdr, &m, W.now), 0);
}

static void
pds_target_rx__trimmed_nacks_with_psn_and_m(void **state)
{
	struct uet_pds_tx req = one_req(UET_PDS_MODE_RUD, 6, 0), nack;

	(void)state;
	rx_trimmed(&req, false, true);
	assert_true(fakewire_take_type(&W, 1, UET_PDS_TYPE_NACK, &nack));
	assert_int_equal(nack.hdr.u.nack.code, UET_NACK_TRIMMED);
	assert_int_equal(nack.hdr.u.nack.psn, req.hdr.u.req.psn);
	assert_true(nack.hdr.flags & UET_PDS_F_M);
	rx_trimmed(&req, true, false);
	assert_true(fakewire_take_type(&W, 1, UET_PDS_TYPE_NACK, &nack));
	assert_int_equal(nack.hdr.u.nack.code, UET_NACK_TRIMMED_LASTHOP);
	assert_false(nack.hdr.flags & UET_PDS_F_M);
	assert_int_equal(fakewire_st(1)->delivered, 0);
	/* Not counted as received: the real packet is still new. */
	fakewire_inject(&W, 1, &req, false, false);
	assert_int_equal(W.delivered[6], 1);
}

static void
pds_target_rx__acks_coalesce_until_threshold(void **state)
{
	struct uet_pds_tx tx[64];
	uint16_t n, i, acks = 0;
	int k;

	(void)state;
	for (k = 0; k < 17; k++)
		assert_int_equal(fakewire_submit(&W, UET_PDS_MODE_RUD, 100 + k, 0), 0);
	n = fakewire_take(&W, 0, tx, 64);
	assert_int_equal(n, 17);
	for (i = 0; i < n; i++) {
		tx[i].hdr.flags &= (uint8_t)~UET_PDS_F_AR;
		fakewire_inject(&W, 1, &tx[i], false, false);
		if (fakewire_take(&W, 1, tx + 32, 1))
			acks++;
	}
	/* First packet of the PDC, then 16 x 1 KiB credit. */
	assert_int_equal(acks, 2);
	assert_int_equal(fakewire_st(1)->acks_coalesced, 15);
}

static void
pds_target_rx__rod_out_of_order_nacked_once(void **state)
{
	struct uet_pds_tx tx[4], nack;

	(void)state;
	assert_int_equal(fakewire_submit(&W, UET_PDS_MODE_ROD, 10, 0), 0);
	assert_int_equal(fakewire_submit(&W, UET_PDS_MODE_ROD, 11, 0), 0);
	assert_int_equal(fakewire_submit(&W, UET_PDS_MODE_ROD, 12, 0), 0);
	assert_int_equal(fakewire_take(&W, 0, tx, 4), 3);
	fakewire_inject(&W, 1, &tx[0], false, false);
	fakewire_take(&W, 1, &nack, 1);
	fakewire_inject(&W, 1, &tx[2], false, false);
	fakewire_inject(&W, 1, &tx[2], false, false);
	assert_int_equal(W.delivered[12], 0);
	assert_true(fakewire_take_type(&W, 1, UET_PDS_TYPE_NACK, &nack));
	assert_int_equal(nack.hdr.u.nack.code, UET_NACK_ROD_OOO);
	assert_int_equal(nack.hdr.u.nack.psn, tx[1].hdr.u.req.psn);
	assert_int_equal(fakewire_st(1)->nack_tx[UET_NACK_ROD_OOO], 1);
	fakewire_inject(&W, 1, &tx[1], false, false);
	fakewire_inject(&W, 1, &tx[2], false, false);
	assert_int_equal(W.order[1], 11);
	assert_int_equal(W.order[2], 12);
}

static void
pds_target_respond__stored_until_clear_and_resent(void **state)
{
	struct uet_pds_tx req, rsp, cp;
	struct uet_pds_pool_info pi;

	(void)state;
	W.resp_expected = true;
	req = one_req(UET_PDS_MODE_RUD, 20, UET_PDS_SUBMIT_RESP);
	fakewire_inject(&W, 1, &req, false, false);
	assert_int_equal(W.delivered[20], 1);
	uet_pds_pool_info_get(W.pds[1], &pi);
	assert_int_equal(pi.resp_used, 1);
	/* The response ACK goes first (control ring), REQ=CLEAR. */
	assert_true(fakewire_take_type(&W, 1, UET_PDS_TYPE_ACK, &rsp));
	assert_int_equal(rsp.hdr.next_hdr, UET_PDS_NEXT_RESPONSE);
	assert_int_equal(uet_wire_pds_ack_req_get(&rsp.hdr), UET_PDS_ACK_REQ_CLEAR);
	assert_int_equal(rsp.resp_len, 8);
	/* A duplicate request gets the stored response again. */
	fakewire_inject(&W, 1, &req, false, false);
	assert_int_equal(fakewire_st(1)->resp_resent, 1);
	assert_int_equal(W.delivered[20], 1);
	fakewire_take(&W, 1, &cp, 1);
	fakewire_inject(&W, 0, &rsp, false, false);
	assert_int_equal(W.done_ok[20], 1);
	assert_int_equal(W.last_resp_len[0], 8);
	assert_memory_equal(W.last_resp[0], &(uint64_t){ 20 }, 8);
	/* Nothing else to send: the initiator sends a CLEAR CP. */
	assert_true(fakewire_take_type(&W, 0, UET_PDS_TYPE_CP, &cp));
	assert_int_equal(cp.hdr.next_hdr, UET_PDS_CTL_CLEAR);
	assert_int_equal(cp.hdr.u.cp.payload, req.hdr.u.req.psn);
	fakewire_inject(&W, 1, &cp, false, false);
	uet_pds_pool_info_get(W.pds[1], &pi);
	assert_int_equal(pi.resp_used, 0);
}

/*
 * rcvd_ses_procg__duplicate_while_ses_busy: a duplicate of a request the
 * SES has not answered yet gets NACK RCVD_SES_PROCG with its PSN, not an
 * ACK (UEC 1.0 NACK codes); once answered, a duplicate gets the stored
 * response again.
 */
static void
rcvd_ses_procg__duplicate_while_ses_busy(void **state)
{
	struct uet_pds_tx req, t;
	uint8_t resp[8] = { 40 };

	(void)state;
	W.resp_expected = true;
	W.resp_hold = true;
	req = one_req(UET_PDS_MODE_RUD, 40, UET_PDS_SUBMIT_RESP);
	fakewire_inject(&W, 1, &req, false, false);
	assert_int_equal(W.delivered[40], 1);
	fakewire_take(&W, 1, &t, 1); /* the first-packet ACK */
	req.hdr.flags |= UET_PDS_F_RETX;
	fakewire_inject(&W, 1, &req, false, false);
	assert_int_equal(W.delivered[40], 1);
	assert_true(fakewire_take_type(&W, 1, UET_PDS_TYPE_NACK, &t));
	assert_int_equal(t.hdr.u.nack.code, UET_NACK_RCVD_SES_PROCG);
	assert_int_equal(t.hdr.u.nack.psn, req.hdr.u.req.psn);
	assert_int_equal(t.hdr.u.nack.dpdcid, req.hdr.u.req.spdcid);
	assert_int_equal(fakewire_take(&W, 1, &t, 1), 0); /* and no ACK */
	assert_int_equal(fakewire_st(1)->nack_tx[UET_NACK_RCVD_SES_PROCG], 1);
	/* Answered: the next duplicate gets the response, no NACK. */
	assert_int_equal(uet_pds_respond(W.pds[1], W.last_pdc[1], W.last_psn[1],
					 UET_PDS_NEXT_RESPONSE, resp, 8,
					 W.now), 0);
	assert_true(fakewire_take_type(&W, 1, UET_PDS_TYPE_ACK, &t));
	fakewire_inject(&W, 1, &req, false, false);
	assert_true(fakewire_take_type(&W, 1, UET_PDS_TYPE_ACK, &t));
	assert_int_equal(t.hdr.next_hdr, UET_PDS_NEXT_RESPONSE);
	assert_int_equal(fakewire_st(1)->nack_tx[UET_NACK_RCVD_SES_PROCG], 1);
}

/*
 * pds_target_ack_policy__retx_echo_is_ack_psn_packets: the ACK echoes the
 * RETX flag of its ACK_PSN packet (UEC 1.0 3.6.13.1): a duplicate
 * resend does not become ACK_PSN, so its RETX must not ride on the ACK
 * that names the last new packet, or the source, seeing RETX for a
 * packet it resent once, times the original's ACK from the resend
 * (a 706 ns base RTT on a 14 us fabric, and max_wnd one MTU for good).
 */
static void
pds_target_ack_policy__retx_echo_is_ack_psn_packets(void **state)
{
	struct uet_pds_tx a = one_req(UET_PDS_MODE_RUD, 50, 0), b, t;

	(void)state;
	fakewire_inject(&W, 1, &a, false, false);
	assert_true(fakewire_take_type(&W, 1, UET_PDS_TYPE_ACK, &t));
	b = one_req(UET_PDS_MODE_RUD, 51, UET_PDS_SUBMIT_AR);
	fakewire_inject(&W, 1, &b, false, false);
	assert_true(fakewire_take_type(&W, 1, UET_PDS_TYPE_ACK, &t));
	assert_false(t.hdr.flags & UET_PDS_F_RETX);
	/* A duplicate resend of a: ACKed, naming b, without RETX. */
	a.hdr.flags |= UET_PDS_F_RETX;
	fakewire_inject(&W, 1, &a, false, false);
	assert_int_equal(fakewire_st(1)->dup_rx, 1);
	assert_true(fakewire_take_type(&W, 1, UET_PDS_TYPE_ACK, &t));
	assert_int_equal((uint32_t)(t.hdr.u.ack.cack_psn +
				    t.hdr.u.ack.ack_psn_offset),
			 b.hdr.u.req.psn);
	assert_false(t.hdr.flags & UET_PDS_F_RETX);
	/* A new packet that is a resend: its ACK echoes RETX. */
	b = one_req(UET_PDS_MODE_RUD, 52, 0);
	b.hdr.flags |= UET_PDS_F_RETX;
	fakewire_inject(&W, 1, &b, false, false);
	assert_true(fakewire_take_type(&W, 1, UET_PDS_TYPE_ACK, &t));
	assert_true(t.hdr.flags & UET_PDS_F_RETX);
}

/* An ACK_REQ CP from side 0 naming @p psn on the PDC @p req opened. */
static struct uet_pds_tx
ack_req_for(const struct uet_pds_tx *req, const struct uet_pds_tx *ack,
	    uint32_t psn)
{
	struct uet_pds_tx cp;

	memset(&cp, 0, sizeof(cp));
	cp.kind = UET_PDS_TX_CTL;
	cp.ev = req->ev;
	cp.hdr.type = UET_PDS_TYPE_CP;
	cp.hdr.next_hdr = UET_PDS_CTL_ACK_REQ;
	cp.hdr.flags = UET_PDS_F_AR;
	cp.hdr.u.cp.psn = psn;
	cp.hdr.u.cp.spdcid = req->hdr.u.req.spdcid;
	cp.hdr.u.cp.dpdcid = ack->hdr.u.ack.spdcid;
	return cp;
}

/*
 * ack_req__received_psn_acked_missing_psn_nacked: ACK_REQ (UEC 1.0 PDS
 * control packets) consumes no PSN at the receiver: a PSN it has is ACKed
 * at once (ACK_PSN naming it), one it lacks gets NACK PKT_NOT_RCVD with
 * that PSN; neither is recorded, so the request at the ACK_REQ's PSN is
 * still delivered when it comes.
 */
static void
ack_req__received_psn_acked_missing_psn_nacked(void **state)
{
	struct uet_pds_tx r0 = one_req(UET_PDS_MODE_RUD, 50, 0), r1, ack, cp, t;
	uint32_t p0 = r0.hdr.u.req.psn;

	(void)state;
	r1 = one_req(UET_PDS_MODE_RUD, 51, 0);
	fakewire_inject(&W, 1, &r0, false, false);
	assert_true(fakewire_take_type(&W, 1, UET_PDS_TYPE_ACK, &ack));
	cp = ack_req_for(&r0, &ack, p0);
	fakewire_inject(&W, 1, &cp, false, false);
	assert_true(fakewire_take_type(&W, 1, UET_PDS_TYPE_ACK, &t));
	assert_int_equal(t.hdr.u.ack.cack_psn, p0);
	assert_int_equal(uet_wire_pds_ack_psn(&t.hdr.u.ack), p0);
	cp = ack_req_for(&r0, &ack, p0 + 1);
	fakewire_inject(&W, 1, &cp, false, false);
	assert_true(fakewire_take_type(&W, 1, UET_PDS_TYPE_NACK, &t));
	assert_int_equal(t.hdr.u.nack.code, UET_NACK_PKT_NOT_RCVD);
	assert_int_equal(t.hdr.u.nack.psn, p0 + 1);
	assert_int_equal(t.hdr.u.nack.dpdcid, r0.hdr.u.req.spdcid);
	assert_int_equal(fakewire_st(1)->dup_rx, 0);
	r1.hdr.flags &= (uint8_t)~UET_PDS_F_SYN;
	r1.hdr.u.req.dpdcid = ack.hdr.u.ack.spdcid;
	r1.hdr.u.req.psn_offset = 0;
	fakewire_inject(&W, 1, &r1, false, false);
	assert_int_equal(W.delivered[51], 1);
}

/* ack_req__syn_opens_no_pdc: an ACK_REQ with SYN naming no PDC of ours
 * opens none; nothing was received, so PKT_NOT_RCVD. */
static void
ack_req__syn_opens_no_pdc(void **state)
{
	struct uet_pds_tx r0 = one_req(UET_PDS_MODE_RUD, 52, 0), cp, t;

	(void)state;
	memset(&cp, 0, sizeof(cp));
	cp.kind = UET_PDS_TX_CTL;
	cp.hdr.type = UET_PDS_TYPE_CP;
	cp.hdr.next_hdr = UET_PDS_CTL_ACK_REQ;
	cp.hdr.flags = UET_PDS_F_AR | UET_PDS_F_SYN;
	cp.hdr.u.cp.psn = r0.hdr.u.req.psn;
	cp.hdr.u.cp.psn_offset = r0.hdr.u.req.psn_offset;
	cp.hdr.u.cp.spdcid = r0.hdr.u.req.spdcid;
	fakewire_inject(&W, 1, &cp, false, false);
	assert_true(fakewire_take_type(&W, 1, UET_PDS_TYPE_NACK, &t));
	assert_int_equal(t.hdr.u.nack.code, UET_NACK_PKT_NOT_RCVD);
	assert_int_equal(fakewire_st(1)->pdc_open_tgt, 0);
	/* Once the request opened the PDC, the same ACK_REQ is ACKed. */
	fakewire_inject(&W, 1, &r0, false, false);
	fakewire_take(&W, 1, &t, 1);
	fakewire_inject(&W, 1, &cp, false, false);
	assert_true(fakewire_take_type(&W, 1, UET_PDS_TYPE_ACK, &t));
	assert_int_equal(uet_wire_pds_ack_psn(&t.hdr.u.ack), r0.hdr.u.req.psn);
}

/*
 * cp__unreliable_cps_record_no_psn: PROBE, ACK_REQ, CLEAR and CREDIT_REQ
 * consume no PSN (UEC 1.0 PDS control packets): a peer may put its next
 * PSN in their psn field, and the request that then takes that PSN is
 * still delivered, not taken for a duplicate.
 */
static void
cp__unreliable_cps_record_no_psn(void **state)
{
	static const uint8_t ctl[] = {
		UET_PDS_CTL_PROBE, UET_PDS_CTL_ACK_REQ, UET_PDS_CTL_CLEAR,
		UET_PDS_CTL_CREDIT_REQ,
	};
	struct uet_pds_tx r0 = one_req(UET_PDS_MODE_RUD, 53, 0), r1, ack, cp, t;
	unsigned int k;

	(void)state;
	r1 = one_req(UET_PDS_MODE_RUD, 54, 0);
	fakewire_inject(&W, 1, &r0, false, false);
	assert_true(fakewire_take_type(&W, 1, UET_PDS_TYPE_ACK, &ack));
	for (k = 0; k < sizeof(ctl); k++) {
		cp = ack_req_for(&r0, &ack, r1.hdr.u.req.psn);
		cp.hdr.next_hdr = ctl[k];
		cp.hdr.u.cp.payload = ctl[k] == UET_PDS_CTL_PROBE ?
				      r1.hdr.u.req.psn : r0.hdr.u.req.psn;
		fakewire_inject(&W, 1, &cp, false, false);
		while (fakewire_take(&W, 1, &t, 1) == 1)
			;
	}
	assert_int_equal(fakewire_st(1)->rx_bad, 0);
	r1.hdr.flags &= (uint8_t)~UET_PDS_F_SYN;
	r1.hdr.u.req.dpdcid = ack.hdr.u.ack.spdcid;
	r1.hdr.u.req.psn_offset = 0;
	fakewire_inject(&W, 1, &r1, false, false);
	assert_int_equal(W.delivered[54], 1);
	assert_int_equal(fakewire_st(1)->dup_rx, 0);
}

/*
 * cp__noop_consumes_a_psn: NOOP is a reliable CP (UEC 1.0 PDS control
 * packets): a peer's NOOP with SYN opens the PDC, its PSN is recorded and
 * ACKed (CACK = its PSN); the same NOOP again is a duplicate, re-ACKed.
 */
static void
cp__noop_consumes_a_psn(void **state)
{
	struct uet_pds_tx r0 = one_req(UET_PDS_MODE_RUD, 55, 0), cp, t;

	(void)state;
	memset(&cp, 0, sizeof(cp));
	cp.kind = UET_PDS_TX_CTL;
	cp.ev = r0.ev;
	cp.hdr.type = UET_PDS_TYPE_CP;
	cp.hdr.next_hdr = UET_PDS_CTL_NOOP;
	cp.hdr.flags = UET_PDS_F_AR | UET_PDS_F_SYN;
	cp.hdr.u.cp.psn = r0.hdr.u.req.psn;
	cp.hdr.u.cp.psn_offset = r0.hdr.u.req.psn_offset;
	cp.hdr.u.cp.spdcid = r0.hdr.u.req.spdcid;
	fakewire_inject(&W, 1, &cp, false, false);
	assert_int_equal(fakewire_st(1)->pdc_open_tgt, 1);
	assert_true(fakewire_take_type(&W, 1, UET_PDS_TYPE_ACK, &t));
	assert_int_equal(t.hdr.u.ack.cack_psn, cp.hdr.u.cp.psn);
	assert_int_equal(W.delivered[55], 0);
	fakewire_inject(&W, 1, &cp, false, false);
	assert_int_equal(fakewire_st(1)->dup_rx, 1);
	assert_true(fakewire_take_type(&W, 1, UET_PDS_TYPE_ACK, &t));
	/* The request that shares the NOOP's PSN is that duplicate too. */
	fakewire_inject(&W, 1, &r0, false, false);
	assert_int_equal(W.delivered[55], 0);
}

/*
 * gtd_resp__cack_held_until_clear: while a guaranteed-delivery response
 * is stored and not cleared, CACK does not pass it (UEC 1.0 3.5.20.2.2);
 * what arrives after it is reported in the SACK bitmap; the CLEAR lets
 * CACK go on.
 */
static void
gtd_resp__cack_held_until_clear(void **state)
{
	struct uet_pds_tx r0, r1, rsp, ack, cp;
	uint32_t p0;

	(void)state;
	W.resp_expected = true;
	r0 = one_req(UET_PDS_MODE_RUD, 30, UET_PDS_SUBMIT_RESP);
	p0 = r0.hdr.u.req.psn;
	fakewire_inject(&W, 1, &r0, false, false);
	assert_true(fakewire_take_type(&W, 1, UET_PDS_TYPE_ACK, &rsp));
	assert_int_equal(rsp.hdr.next_hdr, UET_PDS_NEXT_RESPONSE);
	assert_int_equal(rsp.hdr.u.ack.cack_psn, p0 - 1);
	assert_int_equal(uet_wire_pds_ack_psn(&rsp.hdr.u.ack), p0);
	/* A later request: CACK stays held, the bitmap says both are in. */
	W.resp_expected = false;
	r1 = one_req(UET_PDS_MODE_RUD, 31, UET_PDS_SUBMIT_AR);
	fakewire_inject(&W, 1, &r1, false, false);
	assert_true(fakewire_take_type(&W, 1, UET_PDS_TYPE_ACK_CC, &ack));
	assert_int_equal(ack.hdr.u.ack.cack_psn, p0 - 1);
	assert_int_equal(uet_wire_pds_ack_sack_base(&ack.hdr.u.ack), p0);
	assert_true((ack.hdr.u.ack.sack_bitmap & 3u) == 3u);
	/* The initiator gets the response and clears it. r1, only SACKed,
	 * waits for its answer (UEC 1.0 3.5.20.3.2): CACK passing it. */
	fakewire_inject(&W, 0, &rsp, false, false);
	fakewire_inject(&W, 0, &ack, false, false);
	assert_int_equal(W.done_ok[30], 1);
	assert_int_equal(W.done_ok[31], 0);
	assert_true(fakewire_take_type(&W, 0, UET_PDS_TYPE_CP, &cp));
	assert_int_equal(cp.hdr.next_hdr, UET_PDS_CTL_CLEAR);
	assert_int_equal(cp.hdr.u.cp.payload, p0);
	fakewire_inject(&W, 1, &cp, false, false);
	/* CACK moves past the CLEAR_PSN: the target says so, r1 is done. */
	assert_true(fakewire_take_type(&W, 1, UET_PDS_TYPE_ACK, &ack));
	assert_int_equal(ack.hdr.u.ack.cack_psn, r1.hdr.u.req.psn);
	fakewire_inject(&W, 0, &ack, false, false);
	assert_int_equal(W.done_ok[31], 1);
	/* CACK is no longer held: the next request's ACK reports it. */
	r1 = one_req(UET_PDS_MODE_RUD, 35, UET_PDS_SUBMIT_AR);
	fakewire_inject(&W, 1, &r1, false, false);
	assert_true(fakewire_take_type(&W, 1, UET_PDS_TYPE_ACK, &ack));
	assert_int_equal(ack.hdr.u.ack.cack_psn, r1.hdr.u.req.psn);
}

/*
 * clear__ack_when_cack_passes_clear_psn: a stored response at r0 holds
 * CACK below it, so r1's default response (CACK passing r1) cannot reach
 * the initiator. Its CLEAR names r0 (una - 1, r1 waits); the target frees
 * r0's response, its CACK jumps past r0 to r1, and it ACKs: r1 completes.
 */
static void
clear__ack_when_cack_passes_clear_psn(void **state)
{
	struct uet_pds_tx r[2], out[8], cp, ack;
	uint8_t resp[8] = { 36 };
	uint32_t pdc;
	uint16_t n, k;

	(void)state;
	W.resp_expected = true;
	W.resp_hold = true;
	assert_int_equal(fakewire_submit(&W, UET_PDS_MODE_RUD, 36,
				   UET_PDS_SUBMIT_RESP), 0);
	assert_int_equal(fakewire_submit(&W, UET_PDS_MODE_RUD, 37,
				   UET_PDS_SUBMIT_RESP), 0);
	assert_int_equal(fakewire_take(&W, 0, r, 2), 2);
	fakewire_inject(&W, 1, &r[0], false, false);
	pdc = W.last_pdc[1];
	fakewire_inject(&W, 1, &r[1], false, false);
	assert_int_equal(uet_pds_respond(W.pds[1], pdc, r[0].hdr.u.req.psn,
					 UET_PDS_NEXT_RESPONSE, resp, 8,
					 W.now), 0);
	assert_int_equal(uet_pds_respond_default(W.pds[1], pdc,
						 r[1].hdr.u.req.psn, W.now),
			 0);
	n = fakewire_take(&W, 1, out, 8);
	for (k = 0; k < n; k++) {
		assert_true(uet_psn_lt(out[k].hdr.u.ack.cack_psn,
				       r[0].hdr.u.req.psn));
		fakewire_inject(&W, 0, &out[k], false, false);
	}
	assert_int_equal(W.done_ok[36], 1);
	assert_int_equal(W.done_ok[37], 0);
	assert_true(fakewire_take_type(&W, 0, UET_PDS_TYPE_CP, &cp));
	assert_int_equal(cp.hdr.next_hdr, UET_PDS_CTL_CLEAR);
	assert_int_equal(cp.hdr.u.cp.payload, r[0].hdr.u.req.psn);
	fakewire_inject(&W, 1, &cp, false, false);
	assert_true(fakewire_take_type(&W, 1, UET_PDS_TYPE_ACK, &ack));
	assert_int_equal(ack.hdr.u.ack.cack_psn, r[1].hdr.u.req.psn);
	fakewire_inject(&W, 0, &ack, false, false);
	assert_int_equal(W.done_ok[37], 1);
}

/*
 * pds_target_clear__ar_acked_when_cack_stops_at_clear_psn: a CLEAR that lets
 * CACK move only up to CLEAR_PSN is not ACKed (the initiator has all of
 * that complete), unless it has AR: an initiator whose data waits for
 * the range past our CACK (UEC 1.0 MP_Range) asks for it, and learns from
 * the ACK that the range moved.
 */
static void
pds_target_clear__ar_acked_when_cack_stops_at_clear_psn(void **state)
{
	struct uet_pds_tx r0, rsp, cp, ack;

	(void)state;
	W.resp_expected = true;
	r0 = one_req(UET_PDS_MODE_RUD, 38, UET_PDS_SUBMIT_RESP);
	fakewire_inject(&W, 1, &r0, false, false);
	W.resp_expected = false;
	assert_true(fakewire_take_type(&W, 1, UET_PDS_TYPE_ACK, &rsp));
	assert_int_equal(rsp.hdr.u.ack.cack_psn, r0.hdr.u.req.psn - 1);
	fakewire_inject(&W, 0, &rsp, false, false);
	assert_int_equal(W.done_ok[38], 1);
	assert_true(fakewire_take_type(&W, 0, UET_PDS_TYPE_CP, &cp));
	assert_int_equal(cp.hdr.next_hdr, UET_PDS_CTL_CLEAR);
	assert_int_equal(cp.hdr.u.cp.payload, r0.hdr.u.req.psn);
	assert_false(cp.hdr.flags & UET_PDS_F_AR); /* nothing waits */
	fakewire_inject(&W, 1, &cp, false, false);
	assert_int_equal(fakewire_take(&W, 1, &ack, 1), 0);
	/* The same CLEAR with AR: ACKed with the CACK it let move. */
	cp.hdr.flags |= UET_PDS_F_AR;
	fakewire_inject(&W, 1, &cp, false, false);
	assert_true(fakewire_take_type(&W, 1, UET_PDS_TYPE_ACK, &ack));
	assert_int_equal(ack.hdr.u.ack.cack_psn, r0.hdr.u.req.psn);
}

/*
 * cp__clear_consumes_no_psn: CLEAR is an unreliable CP (UEC 1.0 PDS
 * control packets): its psn field is the next PSN unsent, which the next
 * request still takes, and the target records nothing for it: that
 * request is delivered, not taken for a duplicate. No AR.
 */
static void
cp__clear_consumes_no_psn(void **state)
{
	struct uet_pds_tx r0, r1, rsp, cp;
	struct uet_pds_pool_info pi;

	(void)state;
	W.resp_expected = true;
	r0 = one_req(UET_PDS_MODE_RUD, 32, UET_PDS_SUBMIT_RESP);
	fakewire_inject(&W, 1, &r0, false, false);
	assert_true(fakewire_take_type(&W, 1, UET_PDS_TYPE_ACK, &rsp));
	fakewire_inject(&W, 0, &rsp, false, false);
	assert_int_equal(W.done_ok[32], 1);
	assert_true(fakewire_take_type(&W, 0, UET_PDS_TYPE_CP, &cp));
	assert_int_equal(cp.hdr.next_hdr, UET_PDS_CTL_CLEAR);
	assert_int_equal(cp.hdr.u.cp.psn, r0.hdr.u.req.psn + 1);
	assert_int_equal(cp.hdr.u.cp.payload, r0.hdr.u.req.psn);
	assert_false(cp.hdr.flags & UET_PDS_F_AR);
	fakewire_inject(&W, 1, &cp, false, false);
	uet_pds_pool_info_get(W.pds[1], &pi);
	assert_int_equal(pi.resp_used, 0);
	r1 = one_req(UET_PDS_MODE_RUD, 33, UET_PDS_SUBMIT_RESP);
	assert_int_equal(r1.hdr.u.req.psn, cp.hdr.u.cp.psn);
	fakewire_inject(&W, 1, &r1, false, false);
	assert_int_equal(W.delivered[33], 1);
	assert_int_equal(fakewire_st(1)->dup_rx, 0);
}

/*
 * clear__lost_clear_repaired_by_clear_req: the CLEAR is not resent as
 * such; a target still holding an answered response after a quiet spell
 * (rto_init_ns, then twice as long, ...) asks with CLEAR_REQ, which the
 * initiator answers with a CLEAR. At most max_retries such requests
 * without progress.
 */
static void
clear__lost_clear_repaired_by_clear_req(void **state)
{
	struct uet_pds_tx r0, rsp, cp, req;
	struct uet_pds_pool_info pi;
	struct uet_pds_config cfg;
	uint32_t k;

	(void)state;
	fakewire_test_config(&cfg);
	W.resp_expected = true;
	r0 = one_req(UET_PDS_MODE_RUD, 34, UET_PDS_SUBMIT_RESP);
	fakewire_inject(&W, 1, &r0, false, false);
	assert_true(fakewire_take_type(&W, 1, UET_PDS_TYPE_ACK, &rsp));
	fakewire_inject(&W, 0, &rsp, false, false);
	assert_true(fakewire_take_type(&W, 0, UET_PDS_TYPE_CP, &cp)); /* lost */
	assert_int_equal(cp.hdr.next_hdr, UET_PDS_CTL_CLEAR);
	W.now += cfg.rto_init_ns / 2;
	uet_pds_advance(W.pds[1], W.now);
	assert_false(fakewire_take_type(&W, 1, UET_PDS_TYPE_CP, &req));
	W.now += cfg.rto_init_ns / 2 + cfg.timer_tick_ns;
	uet_pds_advance(W.pds[1], W.now);
	assert_true(fakewire_take_type(&W, 1, UET_PDS_TYPE_CP, &req));
	assert_int_equal(req.hdr.next_hdr, UET_PDS_CTL_CLEAR_REQ);
	assert_int_equal(req.hdr.u.cp.payload, r0.hdr.u.req.psn);
	/* Lost as well: asked again after twice as long, and so on, at
	 * most max_retries times in all. */
	for (k = 1; k < 3 * cfg.max_retries; k++) {
		W.now += cfg.rto_init_ns << (k < 20 ? k : 20);
		uet_pds_advance(W.pds[1], W.now);
		if (fakewire_take_type(&W, 1, UET_PDS_TYPE_CP, &req))
			assert_int_equal(req.hdr.next_hdr,
					 UET_PDS_CTL_CLEAR_REQ);
	}
	assert_int_equal(fakewire_st(1)->clear_req_tx, cfg.max_retries);
	fakewire_inject(&W, 0, &req, false, false);
	assert_true(fakewire_take_type(&W, 0, UET_PDS_TYPE_CP, &cp));
	assert_int_equal(cp.hdr.next_hdr, UET_PDS_CTL_CLEAR);
	fakewire_inject(&W, 1, &cp, false, false);
	uet_pds_pool_info_get(W.pds[1], &pi);
	assert_int_equal(pi.resp_used, 0);
}

/*
 * resp_default__nothing_stored: a success that needs no guaranteed
 * delivery (uet_pds_respond_default) stores nothing, sends no response,
 * and the initiator completes by CACK without a CLEAR.
 */
static void
resp_default__nothing_stored(void **state)
{
	struct uet_pds_tx req, ack, tx[4];
	struct uet_pds_pool_info pi;

	(void)state;
	W.resp_expected = true;
	W.resp_default = true;
	req = one_req(UET_PDS_MODE_RUD, 32, UET_PDS_SUBMIT_RESP);
	fakewire_inject(&W, 1, &req, false, false);
	assert_int_equal(W.delivered[32], 1);
	assert_int_equal(W.bad_payload, 0);
	uet_pds_pool_info_get(W.pds[1], &pi);
	assert_int_equal(pi.resp_used, 0);
	assert_int_equal(fakewire_st(1)->resp_default, 1);
	assert_true(fakewire_take_type(&W, 1, UET_PDS_TYPE_ACK, &ack));
	assert_int_equal(ack.hdr.next_hdr, UET_PDS_NEXT_NONE);
	assert_int_equal(ack.hdr.u.ack.cack_psn, req.hdr.u.req.psn);
	fakewire_inject(&W, 0, &ack, false, false);
	assert_int_equal(W.done_ok[32], 1);
	assert_int_equal(fakewire_st(0)->done_default, 1);
	assert_int_equal(fakewire_take(&W, 0, tx, 4), 0); /* no CLEAR */
	/* Twice, or for no pending request: -ENOENT. */
	assert_int_equal(uet_pds_respond_default(W.pds[1], W.last_pdc[1],
						 W.last_psn[1], W.now),
			 -ENOENT);
	assert_int_equal(uet_pds_respond_default(W.pds[1], UET_PDS_PDC_NONE,
						 1, W.now), -EINVAL);
}

/*
 * resp_early__target_answers_non_eom: an error met by a packet before the
 * last of its message is answered on that packet (UEC 1.0 3.5.20.2):
 * uet_pds_respond() for the request just delivered stores a response
 * although none was reserved, holds CACK below it, and the initiator
 * completes that packet with the response.
 */
static void
resp_early__target_answers_non_eom(void **state)
{
	static const uint8_t err[8] = { 0xEE, 1, 2, 3, 4, 5, 6, 7 };
	struct uet_pds_tx req, rsp;
	struct uet_pds_pool_info pi;

	(void)state;
	req = one_req(UET_PDS_MODE_RUD, 33, 0);
	fakewire_inject(&W, 1, &req, false, false);
	assert_int_equal(W.delivered[33], 1);
	assert_int_equal(uet_pds_respond(W.pds[1], W.last_pdc[1],
					 W.last_psn[1], UET_PDS_NEXT_RESPONSE,
					 err, sizeof(err), W.now), 0);
	uet_pds_pool_info_get(W.pds[1], &pi);
	assert_int_equal(pi.resp_used, 1);
	assert_true(fakewire_take_type(&W, 1, UET_PDS_TYPE_ACK, &rsp));
	assert_int_equal(rsp.hdr.next_hdr, UET_PDS_NEXT_RESPONSE);
	assert_int_equal(rsp.hdr.u.ack.cack_psn, req.hdr.u.req.psn - 1);
	fakewire_inject(&W, 0, &rsp, false, false);
	assert_int_equal(W.done_ok[33], 1);
	assert_int_equal(W.last_resp_len[0], 8);
	assert_int_equal(W.last_resp[0][0], 0xEE);
	/* Not the request just delivered: nothing reserved, -ENOENT. */
	assert_int_equal(uet_pds_respond(W.pds[1], W.last_pdc[1],
					 W.last_psn[1] + 5,
					 UET_PDS_NEXT_RESPONSE, err, sizeof(err),
					 W.now), -ENOENT);
}

static void
pds_target_respond__pool_empty_nacks_gtd(void **state)
{
	struct uet_pds_tx tx[8], nack;
	int k;

	(void)state;
	W.resp_expected = true;
	for (k = 0; k < 5; k++)
		assert_int_equal(fakewire_submit(&W, UET_PDS_MODE_RUD, 30 + k,
					   UET_PDS_SUBMIT_RESP), 0);
	assert_int_equal(fakewire_take(&W, 0, tx, 8), 5);
	W.resp_expected = false; /* keep the entries reserved */
	for (k = 0; k < 5; k++) {
		struct uet_pds_rx_meta m;
		uint8_t buf[FW_PAYLOAD_MAX];

		memset(&m, 0, sizeof(m));
		m.src = W.fa[0];
		m.ses = buf;
		m.ses_len = fakewire_payload(tx[k].cookie, buf);
		m.resp_expected = true;
		uet_pds_rx(W.pds[1], &tx[k].hdr, &m, 0);
	}
	assert_true(fakewire_take_type(&W, 1, UET_PDS_TYPE_NACK, &nack));
	assert_int_equal(nack.hdr.u.nack.code, UET_NACK_NO_GTD_DEL_AVAIL);
	assert_int_equal(fakewire_st(1)->exhaust_resp, 1);
}

static void
one_response(struct uet_pds_config *cfg)
{
	cfg->resp_entries = 1;
}

static bool
both_done(struct fakewire *w, void *arg)
{
	(void)arg;
	return w->done_ok[60] + w->done_err[60] > 0 &&
	       w->done_ok[61] + w->done_err[61] > 0;
}

/*
 * pds_target_respond__no_room_refuses_not_default_ok: two requests
 * answered with a response none was reserved for at their arrival (an
 * error met before the last packet of a message), a response pool of 1.
 * The second finds no room while the first's response waits for
 * CLEAR_PSN: the target must refuse it (NACK NO_GTD_DEL_AVAIL), not
 * accept it with nothing stored, or CACK passes it and its initiator
 * takes the default response, OK, for an error (UEC 1.0 3.5.20.2). Sent
 * again, it gets its real answer.
 */
static void
pds_target_respond__no_room_refuses_not_default_ok(void **state)
{
	(void)state;
	fakewire_fini(&W);
	assert_int_equal(fakewire_setup_with(3, one_response), 0);
	W.resp_unreserved = true;
	W.delay_ns = 1000;
	assert_int_equal(fakewire_submit(&W, UET_PDS_MODE_RUD, 60, 0), 0);
	assert_int_equal(fakewire_submit(&W, UET_PDS_MODE_RUD, 61, 0), 0);
	assert_true(fakewire_run(&W, 1000, 200000000, both_done, NULL));
	assert_int_equal(W.resp_again, 1);
	assert_int_equal(fakewire_st(1)->refused, 1);
	assert_int_equal(fakewire_st(1)->exhaust_resp, 1);
	assert_int_equal(W.delivered[61], 2);
	/* Both completed with their own responses (the fakewire checks the
	 * bytes), neither by the default response. */
	assert_int_equal(W.done_ok[60], 1);
	assert_int_equal(W.done_ok[61], 1);
	assert_int_equal(fakewire_st(0)->done_default, 0);
	assert_int_equal(W.bad_payload, 0);
}

/* A request injected with the CLEAR_PSN given, on the PDC of @p base. */
static struct uet_pds_tx
next_req(const struct uet_pds_tx *base, uint32_t add, uint64_t cookie,
	 int16_t clear_off)
{
	struct uet_pds_tx r = *base;

	r.hdr.u.req.psn += add;
	r.hdr.u.req.psn_offset = (uint16_t)(r.hdr.u.req.psn_offset + add);
	r.hdr.u.req.clear_psn_offset = clear_off;
	r.cookie = cookie;
	return r;
}

static void
pds_target_close__request_then_nack_closing(void **state)
{
	struct uet_pds_tx req = one_req(UET_PDS_MODE_RUD, 40, 0), t, r2;

	(void)state;
	fakewire_inject(&W, 1, &req, false, false);
	fakewire_take(&W, 1, &t, 1);
	assert_int_equal(uet_pds_pdc_close(W.pds[1], W.last_pdc[1], 0), 0);
	assert_true(fakewire_take_type(&W, 1, UET_PDS_TYPE_CP, &t));
	assert_int_equal(t.hdr.next_hdr, UET_PDS_CTL_CLOSE_REQ);
	/* A request already in flight is refused with NACK CLOSING. */
	r2 = next_req(&req, 1, 41, -1);
	fakewire_inject(&W, 1, &r2, false, false);
	assert_true(fakewire_take_type(&W, 1, UET_PDS_TYPE_NACK, &t));
	assert_int_equal(t.hdr.u.nack.code, UET_NACK_CLOSING);
	assert_int_equal(W.delivered[41], 0);
}

static bool
closed_after_holes(struct fakewire *w, void *arg)
{
	uint32_t k;

	(void)arg;
	for (k = 60; k < 63; k++)
		if (w->done_ok[k] + w->done_err[k] == 0)
			return false;
	return uet_pds_stats_get(w->pds[0])->pdc_close_init == 1 &&
	       uet_pds_stats_get(w->pds[1])->pdc_close_tgt == 1;
}

/* RUD: a target asked to close refuses a hole below the highest PSN it
 * received (the resend of 61, lost, with 62 in) like any request it has
 * not received: 61 moves to a new PDC and runs there once. Its
 * initiator's CLEAR_PSN then passes 61, so CACK passes 62, which its
 * initiator completes (it waits for CACK), and the idle PDC closes.
 * Before the CLEAR_PSN rule, a refused hole left CACK below 62 for good:
 * 62, delivered, waited until its PDC failed with -ETIMEDOUT (uet-dst
 * generator 1 seed 5001428). */
static void
pds_target_reject__closing_refuses_hole_clear_psn_passes_it(void **state)
{
	struct uet_pds_tx tx[4];
	uint32_t k;

	(void)state;
	for (k = 0; k < 3; k++)
		assert_int_equal(fakewire_submit(&W, UET_PDS_MODE_RUD, 60 + k,
						 0), 0);
	assert_int_equal(fakewire_take(&W, 0, tx, 4), 3);
	fakewire_inject(&W, 1, &tx[0], false, false);
	fakewire_inject(&W, 1, &tx[2], false, false);
	assert_int_equal(uet_pds_pdc_close(W.pds[1], W.last_pdc[1], W.now), 0);
	assert_true(fakewire_run(&W, 1000, pds_dead_ns(W.pds[0]) / 2,
				 closed_after_holes, NULL));
	for (k = 60; k < 63; k++) {
		assert_int_equal(W.done_ok[k], 1);
		assert_int_equal(W.delivered[k], 1);
	}
	assert_int_equal(fakewire_st(0)->pdc_open_init, 2);
	assert_int_equal(fakewire_st(0)->nack_rx[UET_NACK_CLOSING], 1);
	assert_int_equal(fakewire_st(1)->closing_cleared, 1);
}

static bool cont_next;

static bool
continues_when_told(void *arg, uint32_t pdc, uint8_t next_hdr,
		    const uint8_t *ses, uint16_t len)
{
	(void)arg;
	(void)pdc;
	(void)next_hdr;
	(void)ses;
	(void)len;
	return cont_next;
}

static const struct uet_pds_ulp ulp_when_told = {
	.continues = continues_when_told,
};

/* Target PDC of @p req (delivered) asked to close, its CLOSE_REQ taken;
 * whether a later request continues a begun message is @p cont (until
 * the test sets cont_next again). */
static void
closing_after(const struct uet_pds_tx *req, bool cont)
{
	struct uet_pds_tx t;

	assert_int_equal(uet_pds_set_ulp(W.pds[1], &ulp_when_told), 0);
	cont_next = cont;
	fakewire_inject(&W, 1, req, false, false);
	assert_int_equal(uet_pds_pdc_close(W.pds[1], W.last_pdc[1], 0), 0);
	assert_true(fakewire_take_type(&W, 1, UET_PDS_TYPE_CP, &t));
	assert_int_equal(t.hdr.next_hdr, UET_PDS_CTL_CLOSE_REQ);
}

/* A closing RUD target refused 41 (NACK CLOSING: its initiator moves it
 * to another PDC), then took 42, which continues a message begun on the
 * PDC, so its highest PSN passed 41. A late copy of 41 is refused again, never run: taken as a
 * hole below the highest, it ran a second time beside its moved copy
 * (fuzz_dst, five READ requests run on two PDCs). Once the initiator's
 * CLEAR_PSN passes 41, CACK passes it (else the delivered 42 would wait
 * for it at the initiator until the PDC failed) and a copy of it is a
 * duplicate. */
static void
pds_target_reject__closing_refused_copy_stays_refused(void **state)
{
	struct uet_pds_tx req = one_req(UET_PDS_MODE_RUD, 40, 0), t, r41, r42;

	(void)state;
	closing_after(&req, false);
	r41 = next_req(&req, 1, 41, -1);
	r42 = next_req(&req, 2, 42, -2);
	fakewire_inject(&W, 1, &r41, false, false);
	assert_true(fakewire_take_type(&W, 1, UET_PDS_TYPE_NACK, &t));
	assert_int_equal(t.hdr.u.nack.code, UET_NACK_CLOSING);
	cont_next = true;
	fakewire_inject(&W, 1, &r42, false, false);
	assert_int_equal(W.delivered[42], 1);
	assert_int_equal(fakewire_st(1)->closing_continued, 1);
	cont_next = false;
	fakewire_inject(&W, 1, &r41, false, false);
	assert_true(fakewire_take_type(&W, 1, UET_PDS_TYPE_NACK, &t));
	assert_int_equal(t.hdr.u.nack.code, UET_NACK_CLOSING);
	assert_int_equal(t.hdr.u.nack.psn, r41.hdr.u.req.psn);
	assert_int_equal(W.delivered[41], 0);
	/* The initiator moved 41: its resend of 42 says so. */
	r42 = next_req(&req, 2, 42, -1);
	r42.hdr.flags |= UET_PDS_F_RETX;
	fakewire_inject(&W, 1, &r42, false, false);
	assert_int_equal(fakewire_st(1)->closing_cleared, 1);
	assert_int_equal(W.delivered[42], 1);
	fakewire_inject(&W, 1, &r41, false, false);
	assert_int_equal(W.delivered[41], 0);
	assert_int_equal(fakewire_st(1)->nack_tx[UET_NACK_CLOSING], 2);
	assert_true(fakewire_take_type(&W, 1, UET_PDS_TYPE_ACK, &t));
	assert_int_equal(t.hdr.u.ack.cack_psn, r42.hdr.u.req.psn);
}

/* A CLEAR_PSN at the request that carries it (no initiator of ours sends
 * one, a hostile or broken one may; one past it does not decode) passes
 * nothing on a closing target: passed, the request's PSN was recorded once as given
 * up and again as taken, setting a stray bit that a later PSN of the
 * window would have met as a duplicate, acknowledged and never run. */
static void
pds_target_reject__closing_clear_psn_at_own_psn_passes_nothing(void **state)
{
	struct uet_pds_tx req = one_req(UET_PDS_MODE_RUD, 40, 0), r;
	struct uet_pds_pdc_info pi;
	uint32_t k;

	(void)state;
	closing_after(&req, true);
	r = next_req(&req, 3, 43, -3);
	fakewire_inject(&W, 1, &r, false, false);
	r = next_req(&req, 1, 41, 0); /* CLEAR_PSN = its own PSN */
	fakewire_inject(&W, 1, &r, false, false);
	r = next_req(&req, 2, 42, 0);
	fakewire_inject(&W, 1, &r, false, false);
	for (k = 41; k < 44; k++) {
		assert_int_equal(W.delivered[k], 1);
		r = next_req(&req, k - 40, k, -1);
		fakewire_inject(&W, 1, &r, false, false);
		assert_int_equal(W.delivered[k], 1);
	}
	assert_int_equal(fakewire_st(1)->closing_cleared, 0);
	assert_int_equal(uet_pds_pdc_info_get(W.pds[1], W.last_pdc[1], &pi),
			 0);
	assert_int_equal(pi.rx_cack, req.hdr.u.req.psn + 3);
	assert_int_equal(pi.rx_ooo, 0);
}

static void
pds_target_close__both_directions_free_everything(void **state)
{
	(void)state;
	assert_int_equal(fakewire_submit(&W, UET_PDS_MODE_RUD, 50, 0), 0);
	W.delay_ns = 1000;
	while (W.done_ok[50] == 0 && W.now < 10000000)
		fakewire_step(&W, 1000);
	assert_int_equal(W.done_ok[50], 1);
	/* Target asks; the idle initiator closes with a CLOSE CP. */
	assert_int_equal(uet_pds_pdc_close(W.pds[1], W.last_pdc[1], W.now), 0);
	while (!fakewire_pools_idle(&W) && W.now < 20000000)
		fakewire_step(&W, 1000);
	assert_true(fakewire_pools_idle(&W));
	assert_int_equal(fakewire_st(0)->tx_ctl[UET_PDS_CTL_CLOSE], 1);
	assert_int_equal(fakewire_st(1)->tx_ctl[UET_PDS_CTL_CLOSE_REQ], 1);
	assert_int_equal(fakewire_st(1)->pdc_close_tgt, 1);
	assert_int_equal(fakewire_st(0)->pdc_close_init, 1);
}

static void
pds_target_rx__reserved_pool_on_use_rsv_pdc(void **state)
{
	struct uet_pds_tx req = one_req(UET_PDS_MODE_RUD, 60,
					UET_PDS_SUBMIT_RSV), ack;

	(void)state;
	assert_true(req.hdr.u.req.use_rsv_pdc);
	assert_true(req.hdr.u.req.spdcid >= 8);
	fakewire_inject(&W, 1, &req, false, false);
	assert_true(fakewire_take_type(&W, 1, UET_PDS_TYPE_ACK, &ack));
	assert_true(ack.hdr.u.ack.spdcid >= 8);
}

static void
pds_target_rx__pool_exhausted_nacks_no_pdc(void **state)
{
	struct uet_pds_config cfg;
	struct uet_pds_tx a, b, nack;

	(void)state;
	uet_pds_free(W.pds[1]);
	fakewire_test_config(&cfg);
	cfg.max_pdcs = 1;
	W.pds[1] = uet_pds_create(&cfg);
	assert_non_null(W.pds[1]);
	assert_int_equal(fakewire_submit_job(&W, UET_PDS_MODE_RUD, 70, 0, 1), 0);
	assert_true(fakewire_take_type(&W, 0, UET_PDS_TYPE_RUD_REQ, &a));
	assert_int_equal(fakewire_submit_job(&W, UET_PDS_MODE_RUD, 71, 0, 2), 0);
	assert_true(fakewire_take_type(&W, 0, UET_PDS_TYPE_RUD_REQ, &b));
	fakewire_inject(&W, 1, &a, false, false);
	fakewire_take(&W, 1, &nack, 1);
	fakewire_inject(&W, 1, &b, false, false);
	assert_true(fakewire_take_type(&W, 1, UET_PDS_TYPE_NACK, &nack));
	assert_int_equal(nack.hdr.u.nack.code, UET_NACK_NO_PDC_AVAIL);
	assert_int_equal(fakewire_st(1)->exhaust_pdc, 1);
}

/* Side 1 sends @p cookie in the return direction of its last target PDC. */
static int
ret_submit(uint64_t cookie, uint8_t next_hdr, uint8_t flags)
{
	struct uet_pds_submit s;
	uint8_t buf[FW_PAYLOAD_MAX];

	memset(&s, 0, sizeof(s));
	s.flags = (uint8_t)(UET_PDS_SUBMIT_PDC | flags);
	s.pdc = W.last_pdc[1];
	s.cookie = cookie;
	s.len = fakewire_payload(cookie, buf);
	s.next_hdr = next_hdr;
	return uet_pds_submit(W.pds[1], &s, W.now);
}

/* UEC 1.0 PDS return-direction read responses: the target sends data in the
 * return direction of the PDC, in its own PSN space; the initiator delivers it
 * once and ACKs it; the ACK completes the target's cookie. */
static void
pds_ret__target_submits_initiator_delivers_once(void **state)
{
	struct uet_pds_tx req = one_req(UET_PDS_MODE_RUD, 1, 0), ack, rd, rack;
	struct uet_pds_submit s;
	uint8_t buf[FW_PAYLOAD_MAX];

	(void)state;
	fakewire_inject(&W, 1, &req, false, false);
	assert_true(fakewire_take_type(&W, 1, UET_PDS_TYPE_ACK, &ack));
	fakewire_inject(&W, 0, &ack, false, false);
	memset(&s, 0, sizeof(s));
	s.flags = UET_PDS_SUBMIT_PDC;
	s.pdc = W.last_pdc[1];
	s.cookie = FW_RET_BASE + 1;
	s.len = fakewire_payload(s.cookie, buf);
	s.next_hdr = UET_PDS_NEXT_REQUEST_SMALL;
	assert_int_equal(uet_pds_submit(W.pds[1], &s, W.now), -EINVAL);
	s.next_hdr = UET_PDS_NEXT_RESPONSE_DATA;
	s.pdc ^= 1u << 17; /* stale generation */
	assert_int_equal(uet_pds_submit(W.pds[1], &s, W.now), -ENOENT);
	s.pdc ^= 1u << 17;
	assert_int_equal(uet_pds_submit(W.pds[1], &s, W.now), 0);
	assert_true(fakewire_take_type(&W, 1, UET_PDS_TYPE_RUD_REQ, &rd));
	assert_int_equal(rd.hdr.next_hdr, UET_PDS_NEXT_RESPONSE_DATA);
	assert_false(rd.hdr.flags & UET_PDS_F_SYN);
	assert_int_equal(rd.hdr.u.req.spdcid, ack.hdr.u.ack.spdcid);
	assert_int_equal(rd.hdr.u.req.dpdcid, req.hdr.u.req.spdcid);
	/* DECISION (pds_private.h): the return space starts at Start_PSN. */
	assert_int_equal(rd.hdr.u.req.psn, req.hdr.u.req.psn);
	rd.hdr.flags |= UET_PDS_F_AR;
	fakewire_inject(&W, 0, &rd, false, false);
	assert_int_equal(W.delivered[FW_RET_BASE + 1], 1);
	assert_true(fakewire_take_type(&W, 0, UET_PDS_TYPE_ACK, &rack));
	assert_int_equal(rack.hdr.u.ack.dpdcid, ack.hdr.u.ack.spdcid);
	assert_int_equal(rack.hdr.u.ack.cack_psn, rd.hdr.u.req.psn);
	/* A duplicate is re-ACKed, never delivered again. */
	fakewire_inject(&W, 0, &rd, false, false);
	assert_int_equal(W.delivered[FW_RET_BASE + 1], 1);
	assert_int_equal(fakewire_st(0)->dup_rx, 1);
	fakewire_inject(&W, 1, &rack, false, false);
	assert_int_equal(W.done_ok[FW_RET_BASE + 1], 1);
	assert_int_equal(W.done_ok[1], 1);
	/* Unknown initiator PDC: NACK INV_DPDCID back to the target. */
	rd.hdr.u.req.dpdcid ^= 3;
	fakewire_inject(&W, 0, &rd, false, false);
	assert_int_equal(fakewire_st(0)->nack_tx[UET_NACK_INV_DPDCID], 1);
}

/* Return-direction data is coalesced like any other; the SES marks the
 * last packet of a read response with UET_PDS_SUBMIT_AR, which the
 * initiator acknowledges at once (it has no SES response to send). */
static void
pds_ret__submit_ar_acked_at_once(void **state)
{
	struct uet_pds_tx req = one_req(UET_PDS_MODE_RUD, 1, 0), ack, rd[2],
			  rack;

	(void)state;
	fakewire_inject(&W, 1, &req, false, false);
	assert_true(fakewire_take_type(&W, 1, UET_PDS_TYPE_ACK, &ack));
	fakewire_inject(&W, 0, &ack, false, false);
	assert_int_equal(ret_submit(FW_RET_BASE + 1, UET_PDS_NEXT_RESPONSE_DATA,
				    0), 0);
	assert_int_equal(ret_submit(FW_RET_BASE + 2, UET_PDS_NEXT_RESPONSE_DATA,
				    UET_PDS_SUBMIT_AR), 0);
	assert_int_equal(fakewire_take(&W, 1, rd, 2), 2);
	assert_false(rd[0].hdr.flags & UET_PDS_F_AR);
	assert_true(rd[1].hdr.flags & UET_PDS_F_AR);
	/* The first return packet of the PDC is ACKed at once anyway; the
	 * second would be coalesced but for its AR. */
	fakewire_inject(&W, 0, &rd[0], false, false);
	fakewire_take(&W, 0, &rack, 1);
	fakewire_inject(&W, 0, &rd[1], false, false);
	assert_true(fakewire_take_type(&W, 0, UET_PDS_TYPE_ACK, &rack));
	assert_int_equal(rack.hdr.u.ack.cack_psn, rd[1].hdr.u.req.psn);
	fakewire_inject(&W, 1, &rack, false, false);
	assert_int_equal(W.done_ok[FW_RET_BASE + 2], 1);
}

/* An engine that is both target and initiator towards one peer: its two
 * PDCs have different ids, so an ACK names exactly one of them. */
static void
pds_ids__initiator_and_target_differ(void **state)
{
	struct uet_pds_tx req = one_req(UET_PDS_MODE_RUD, 1, 0), ack, back;
	struct uet_pds_submit s;
	uint8_t buf[FW_PAYLOAD_MAX];

	(void)state;
	fakewire_inject(&W, 1, &req, false, false);
	assert_true(fakewire_take_type(&W, 1, UET_PDS_TYPE_ACK, &ack));
	memset(&s, 0, sizeof(s));
	s.dst = W.fa[0];
	s.job = 1;
	s.tc = 1;
	s.mode = UET_PDS_MODE_RUD;
	s.next_hdr = UET_PDS_NEXT_REQUEST_SMALL;
	s.cookie = 2;
	s.len = fakewire_payload(s.cookie, buf);
	assert_int_equal(uet_pds_submit(W.pds[1], &s, W.now), 0);
	assert_true(fakewire_take_type(&W, 1, UET_PDS_TYPE_RUD_REQ, &back));
	assert_int_not_equal(back.hdr.u.req.spdcid, ack.hdr.u.ack.spdcid);
}

static int
info_cb(const struct uet_pds_pdc_info *info, void *arg)
{
	struct uet_pds_pdc_info *out = arg;

	*out = *info;
	return 7;
}

/* `show pdc` introspection: both PSN spaces of a bidirectional PDC. */
static void
uet_pds_pdc_info__both_directions(void **state)
{
	struct uet_pds_tx req = one_req(UET_PDS_MODE_ROD, 1, 0), ack, rd;
	struct uet_pds_pdc_info in, ti;
	uint8_t buf[FW_PAYLOAD_MAX];

	(void)state;
	fakewire_inject(&W, 1, &req, false, false);
	assert_true(fakewire_take_type(&W, 1, UET_PDS_TYPE_ACK, &ack));
	assert_int_equal(ret_submit(FW_RET_BASE + 1,
				    UET_PDS_NEXT_RESPONSE_DATA_SMALL, 0), 0);
	assert_true(fakewire_take_type(&W, 1, UET_PDS_TYPE_ROD_REQ, &rd));
	assert_int_equal(uet_pds_pdc_info_get(W.pds[1], W.last_pdc[1], &ti), 0);
	assert_int_equal(ti.role, 1);
	assert_int_equal(ti.state, UET_PDS_PDC_OPEN);
	assert_int_equal(ti.mode, UET_PDS_MODE_ROD);
	assert_int_equal(ti.rid, req.hdr.u.req.spdcid);
	assert_int_equal(ti.rx_cack, req.hdr.u.req.psn);
	assert_int_equal(ti.tx_nxt - ti.tx_una, 1);
	assert_int_equal(ti.tx_inflight, fakewire_payload(FW_RET_BASE + 1, buf));
	assert_int_equal(uet_pds_pdc_foreach(W.pds[0], info_cb, &in), 7);
	assert_int_equal(in.role, 0);
	assert_int_equal(in.state, UET_PDS_PDC_SYN); /* ACK not delivered */
	/* A return request before the first ACK opens the initiator end. */
	fakewire_inject(&W, 0, &rd, false, false);
	assert_int_equal(W.delivered[FW_RET_BASE + 1], 1);
	/* The delivery is recorded once the SES could refuse it. */
	uet_pds_advance(W.pds[0], W.now);
	assert_int_equal(uet_pds_pdc_info_get(W.pds[0], in.handle, &in), 0);
	assert_int_equal(in.state, UET_PDS_PDC_OPEN);
	assert_int_equal(in.rid, ti.lid);
	assert_int_equal(in.rx_cack, rd.hdr.u.req.psn);
	assert_int_equal(uet_pds_pdc_info_get(W.pds[0], in.handle ^ (1u << 17),
					      &in), -ENOENT);
}

static void
one_rx_block(struct uet_pds_config *cfg)
{
	cfg->rx_blocks = 1;
}

/* UEC 1.0 PDS NACK codes: no receive block for out-of-order state: NO_BITMAP,
 * a resource NACK the initiator backs off on. */
static void
pds_target_rx__no_rx_block_nacks_no_bitmap(void **state)
{
	struct uet_pds_tx a[2], b[2], nack;

	(void)state;
	fakewire_fini(&W);
	assert_int_equal(fakewire_setup_with(7, one_rx_block), 0);
	assert_int_equal(fakewire_submit_job(&W, UET_PDS_MODE_RUD, 1, 0, 1), 0);
	assert_int_equal(fakewire_submit_job(&W, UET_PDS_MODE_RUD, 2, 0, 1), 0);
	assert_int_equal(fakewire_take(&W, 0, a, 2), 2);
	assert_int_equal(fakewire_submit_job(&W, UET_PDS_MODE_RUD, 3, 0, 2), 0);
	assert_int_equal(fakewire_submit_job(&W, UET_PDS_MODE_RUD, 4, 0, 2), 0);
	assert_int_equal(fakewire_take(&W, 0, b, 2), 2);
	/* Second packets first: each needs a receive block. */
	fakewire_inject(&W, 1, &a[1], false, false);
	assert_int_equal(W.delivered[2], 1);
	fakewire_take(&W, 1, &nack, 1);
	fakewire_inject(&W, 1, &b[1], false, false);
	assert_int_equal(W.delivered[4], 0);
	assert_true(fakewire_take_type(&W, 1, UET_PDS_TYPE_NACK, &nack));
	assert_int_equal(nack.hdr.u.nack.code, UET_NACK_NO_BITMAP);
	assert_int_equal(nack.hdr.u.nack.psn, b[1].hdr.u.req.psn);
	assert_int_equal(fakewire_st(1)->exhaust_rxblk, 1);
	fakewire_inject(&W, 0, &nack, false, false);
	/* Counted when the resend leaves, after the back-off. */
	assert_int_equal(fakewire_st(0)->retx_backoff, 0);
	W.now += 2 * W.pds[0]->cfg.backoff_init_ns;
	uet_pds_advance(W.pds[0], W.now);
	assert_true(fakewire_take_type(&W, 0, UET_PDS_TYPE_RUD_REQ, &nack));
	assert_int_equal(nack.hdr.u.req.psn, b[1].hdr.u.req.psn);
	assert_int_equal(fakewire_st(0)->retx_backoff, 1);
}

/* UEC 1.0 PDS: all packets of a PDC use one mode; another mode on it
 * is PDC_MODE_MISMATCH, fatal at the initiator (UEC 1.0 PDS NACK codes
 * DECISION). */
static void
pds_target_rx__other_mode_nacks_mode_mismatch(void **state)
{
	struct uet_pds_tx req = one_req(UET_PDS_MODE_RUD, 1, 0), ack, r2, nack;

	(void)state;
	fakewire_inject(&W, 1, &req, false, false);
	assert_true(fakewire_take_type(&W, 1, UET_PDS_TYPE_ACK, &ack));
	fakewire_inject(&W, 0, &ack, false, false);
	r2 = one_req(UET_PDS_MODE_RUD, 2, 0);
	assert_false(r2.hdr.flags & UET_PDS_F_SYN);
	r2.hdr.type = UET_PDS_TYPE_ROD_REQ;
	fakewire_inject(&W, 1, &r2, false, false);
	assert_int_equal(W.delivered[2], 0);
	assert_true(fakewire_take_type(&W, 1, UET_PDS_TYPE_NACK, &nack));
	assert_int_equal(nack.hdr.u.nack.code, UET_NACK_PDC_MODE_MISMATCH);
	r2.hdr.type = UET_PDS_TYPE_RUD_REQ;
	fakewire_inject(&W, 0, &nack, false, false);
	assert_int_equal(W.done_err[2], 1);
	assert_int_equal(W.last_status[0], -ECONNRESET);
	assert_int_equal(fakewire_st(0)->pdc_fail, 1);
}

/* WIRE-DECISIONS "PDS behaviour": a SYN with another Start_PSN for a live
 * PDC is NACKed NEW_START_PSN while the PDC is recently active (a late
 * duplicate must not replace it, nor be delivered); from then on only the
 * Start_PSN the NACK named opens a PDC of the id, and it replaces the live
 * one once that was quiet for syn_holdoff_ns. */
static void
pds_target_rx__other_start_psn_nacked_until_quiet(void **state)
{
	struct uet_pds_tx req = one_req(UET_PDS_MODE_RUD, 1, 0), old, nack;
	uint32_t named;

	(void)state;
	fakewire_past_start(&W);
	fakewire_inject(&W, 1, &req, false, false);
	fakewire_take(&W, 1, &nack, 1);
	/* A Start_PSN near the live window never replaces it. */
	old = req;
	old.hdr.u.req.psn = req.hdr.u.req.psn + 8;
	fakewire_inject(&W, 1, &old, false, false);
	assert_true(fakewire_take_type(&W, 1, UET_PDS_TYPE_NACK, &nack));
	assert_int_equal(nack.hdr.u.nack.code, UET_NACK_NEW_START_PSN);
	assert_int_equal(fakewire_st(1)->syn_conflict, 1);
	named = nack.hdr.u.nack.payload;
	assert_true(named - old.hdr.u.req.psn >= 0x10000);
	assert_int_equal(named % 0x10000, old.hdr.u.req.psn % 0x10000);
	/* Another Start_PSN of the chain while the PDC is busy: NACKed,
	 * naming the same. */
	old.hdr.u.req.psn = req.hdr.u.req.psn + 8 + 0x40000;
	fakewire_inject(&W, 1, &old, false, false);
	assert_true(fakewire_take_type(&W, 1, UET_PDS_TYPE_NACK, &nack));
	assert_int_equal(nack.hdr.u.nack.code, UET_NACK_NEW_START_PSN);
	assert_int_equal(nack.hdr.u.nack.psn, old.hdr.u.req.psn);
	assert_int_equal(nack.hdr.u.nack.payload, named);
	assert_int_equal(W.delivered[1], 1);
	assert_int_equal(fakewire_st(1)->pdc_open_tgt, 1);
	assert_int_equal(fakewire_st(1)->syn_refused, 1);
	/* Its NACK reaches no SYN-state PDC of that PSN: ignored. */
	fakewire_inject(&W, 0, &nack, false, false);
	assert_int_equal(fakewire_st(0)->new_start, 0);
	/* Once the PDC is quiet, a refused Start_PSN stays refused, and so
	 * does any but the one named. */
	W.now += 2 * 1000000;
	fakewire_inject(&W, 1, &old, false, false);
	assert_true(fakewire_take_type(&W, 1, UET_PDS_TYPE_NACK, &nack));
	assert_int_equal(nack.hdr.u.nack.payload, named);
	/* A Start_PSN its initiator could not move to the one named (another
	 * class mod 2^16): refused, naming one in its class. */
	old.hdr.u.req.psn = req.hdr.u.req.psn + 0x80000;
	fakewire_inject(&W, 1, &old, false, false);
	assert_true(fakewire_take_type(&W, 1, UET_PDS_TYPE_NACK, &nack));
	assert_true(nack.hdr.u.nack.payload != named);
	assert_int_equal(nack.hdr.u.nack.payload % 0x10000,
			 old.hdr.u.req.psn % 0x10000);
	/* ... and again the same (the rest of its burst) */
	named = nack.hdr.u.nack.payload;
	fakewire_inject(&W, 1, &old, false, false);
	assert_true(fakewire_take_type(&W, 1, UET_PDS_TYPE_NACK, &nack));
	assert_int_equal(nack.hdr.u.nack.payload, named);
	/* A late copy of the first chain: refused, naming one in its class
	 * (in a later interval of the clock: one name an interval). */
	W.now += FAKEWIRE_NAME_NS;
	old.hdr.u.req.psn = req.hdr.u.req.psn + 8 + 0x40000;
	fakewire_inject(&W, 1, &old, false, false);
	assert_true(fakewire_take_type(&W, 1, UET_PDS_TYPE_NACK, &nack));
	assert_true(nack.hdr.u.nack.payload != named);
	named = nack.hdr.u.nack.payload;
	assert_int_equal(fakewire_st(1)->syn_refused, 5);
	assert_int_equal(fakewire_st(1)->syn_replace, 0);
	assert_int_equal(W.delivered[1], 1);
	/* The one named: a new incarnation. */
	old.hdr.u.req.psn = named;
	fakewire_inject(&W, 1, &old, false, false);
	assert_int_equal(fakewire_st(1)->syn_replace, 1);
	assert_int_equal(fakewire_st(1)->pdc_open_tgt, 2);
	assert_int_equal(W.delivered[1], 2);
}

/* Step the wire until both pools are idle or @p max_ns passed. */
static void
run_idle(uint64_t dt, uint64_t max_ns)
{
	uint64_t end = W.now + max_ns;

	while (!fakewire_pools_idle(&W) && W.now < end)
		fakewire_step(&W, dt);
}

/* WIRE-DECISIONS "PDS behaviour": a late duplicate of a SYN of a PDC
 * closed normally is neither delivered again nor opens a target PDC (the
 * target remembers {FA, spdcid, Start_PSN} of what it freed); the
 * initiator's next PDC under the same id (another Start_PSN) is taken. */
static void
pds_target_rx__stale_syn_after_close_dropped(void **state)
{
	struct uet_pds_tx syn = one_req(UET_PDS_MODE_RUD, 70, 0), tx[4];
	struct uet_pds_pool_info pi;

	(void)state;
	W.delay_ns = 1000;
	fakewire_inject(&W, 1, &syn, false, false);
	while (W.done_ok[70] == 0 && W.now < 10000000)
		fakewire_step(&W, 1000);
	assert_int_equal(W.done_ok[70], 1);
	assert_int_equal(uet_pds_pdc_close(W.pds[1], W.last_pdc[1], W.now), 0);
	run_idle(1000, 20000000);
	assert_true(fakewire_pools_idle(&W));
	assert_int_equal(fakewire_st(1)->pdc_close_tgt, 1);
	/* The late duplicate. */
	fakewire_inject(&W, 1, &syn, false, false);
	assert_int_equal(W.delivered[70], 1);
	assert_int_equal(fakewire_st(1)->pdc_open_tgt, 1);
	assert_int_equal(fakewire_st(1)->syn_stale, 1);
	uet_pds_pool_info_get(W.pds[1], &pi);
	assert_int_equal(pi.pdc_used[1], 0);
	assert_int_equal(fakewire_take(&W, 1, tx, 4), 0);
	/* A new incarnation of the same initiator PDC id. */
	assert_int_equal(fakewire_submit(&W, UET_PDS_MODE_RUD, 71, 0), 0);
	while (W.done_ok[71] == 0 && W.now < 30000000)
		fakewire_step(&W, 1000);
	assert_int_equal(W.done_ok[71], 1);
	assert_int_equal(W.delivered[71], 1);
	assert_int_equal(fakewire_st(1)->pdc_open_tgt, 2);
	assert_int_equal(fakewire_st(1)->syn_stale, 1);
}

/* Run the wire until cookie @p k completed (or 30 ms of fake time). */
static void
run_done(uint64_t k)
{
	uint64_t end = W.now + 30000000;

	while (W.done_ok[k] + W.done_err[k] == 0 && W.now < end)
		fakewire_step(&W, 1000);
	assert_int_equal(W.done_ok[k], 1);
}

/* Open a PDC with request @p syn (already taken from side 0), complete
 * it, and close it from the target; both ends freed. */
static void
open_close(const struct uet_pds_tx *syn, uint64_t k)
{
	fakewire_inject(&W, 1, syn, false, false);
	run_done(k);
	assert_int_equal(uet_pds_pdc_close(W.pds[1], W.last_pdc[1], W.now), 0);
	run_idle(1000, 20000000);
	assert_true(fakewire_pools_idle(&W));
}

/* One PDC id per pool: the freed id comes back at once. */
static void
one_pdc_id(struct uet_pds_config *cfg)
{
	cfg->max_pdcs = 1;
}

static int
setup_one_pdc_id(void **state)
{
	(void)state;
	return fakewire_setup_with(1, one_pdc_id);
}

/* UEC 1.0 PDC establishment, closed-PDC records (pds_target_syn): the
 * same initiator PDC id (its only one) opened and closed twice, then a
 * very late SYN of the first incarnation arrives. The second record does
 * not overwrite the first: the SYN is dropped, not delivered again, and
 * opens no PDC. */
static void
pds_target_syn_known__late_syn_of_reused_id_dropped(void **state)
{
	struct uet_pds_tx s1 = one_req(UET_PDS_MODE_RUD, 80, 0), s2, tx[4];
	struct uet_pds_pool_info pi;

	(void)state;
	W.delay_ns = 1000;
	open_close(&s1, 80);
	s2 = one_req(UET_PDS_MODE_RUD, 81, 0);
	assert_int_equal(s2.hdr.u.req.spdcid, s1.hdr.u.req.spdcid);
	assert_true(s2.hdr.u.req.psn != s1.hdr.u.req.psn);
	open_close(&s2, 81);
	assert_int_equal(fakewire_st(1)->pdc_close_tgt, 2);
	/* Very late duplicates of the first incarnation's SYN, and of the
	 * second's. */
	fakewire_inject(&W, 1, &s1, false, false);
	fakewire_inject(&W, 1, &s2, false, false);
	assert_int_equal(W.delivered[80], 1);
	assert_int_equal(W.delivered[81], 1);
	assert_int_equal(fakewire_st(1)->syn_stale, 2);
	assert_int_equal(fakewire_st(1)->pdc_open_tgt, 2);
	uet_pds_pool_info_get(W.pds[1], &pi);
	assert_int_equal(pi.pdc_used[1], 0);
	assert_int_equal(fakewire_take(&W, 1, tx, 4), 0);
	/* ... also while a third incarnation of the id is live: the late
	 * SYN neither replaces it nor is delivered. */
	assert_int_equal(fakewire_submit(&W, UET_PDS_MODE_RUD, 82, 0), 0);
	run_done(82);
	W.now += 10 * W.pds[1]->cfg.syn_holdoff_ns;
	fakewire_inject(&W, 1, &s1, false, false);
	assert_int_equal(W.delivered[80], 1);
	assert_int_equal(fakewire_st(1)->syn_replace, 0);
	assert_int_equal(fakewire_st(1)->syn_stale, 3);
	uet_pds_pool_info_get(W.pds[1], &pi);
	assert_int_equal(pi.pdc_used[1], 1);
}

/* UEC 1.0 PDC establishment (pdc.c DECISION, PDC ids come back least
 * recently freed first): one initiator key opened and closed more times
 * than a target keeps records of one id (PDS_TOMB_WAYS), then a very late
 * SYN of the first incarnation arrives (uet-dst seed 4387: a SYN delayed
 * 21 ms while its PDC id was reused five times). Each incarnation had
 * its own id, so the first one's record is still there: the SYN is
 * dropped, not delivered a second time. */
static void
pds_target_syn_known__late_syn_after_many_reopens_dropped(void **state)
{
	struct uet_pds_tx s[PDS_TOMB_WAYS + 2];
	uint64_t k;

	(void)state;
	W.delay_ns = 1000;
	for (k = 0; k < PDS_TOMB_WAYS + 2; k++) {
		s[k] = one_req(UET_PDS_MODE_RUD, 90 + k, 0);
		open_close(&s[k], 90 + k);
	}
	assert_int_equal(fakewire_st(1)->pdc_close_tgt, PDS_TOMB_WAYS + 2);
	fakewire_inject(&W, 1, &s[0], false, false);
	assert_int_equal(W.delivered[90], 1);
	assert_int_equal(fakewire_st(1)->syn_stale, 1);
	assert_int_equal(fakewire_st(1)->pdc_open_tgt, PDS_TOMB_WAYS + 2);
	for (k = 1; k < PDS_TOMB_WAYS + 2; k++)
		assert_true(s[k].hdr.u.req.spdcid != s[0].hdr.u.req.spdcid);
}

static bool
all_of(struct fakewire *w, void *arg)
{
	const uint32_t *r = arg;
	uint32_t k;

	for (k = r[0]; k < r[1]; k++)
		if (w->done_ok[k] + w->done_err[k] == 0)
			return false;
	return true;
}

/* UEC 1.0 NEW_START_PSN (pds_target_syn): the initiator restarts with
 * the same FA and reopens its PDC id within the target's hold-off; the
 * hold-off ends in the middle of its burst of SYNs. The target refuses
 * the whole incarnation (not P1 alone), the initiator renumbers the
 * burst, and every message is delivered exactly once. */
static void
pds_target_syn_known__new_start_decided_once_per_incarnation(void **state)
{
	struct uet_pds_tx r0 = one_req(UET_PDS_MODE_RUD, 1, 0), a, b[5], nk;
	struct uet_pds_tx more[8];
	struct uet_pds_config cfg;
	uint32_t range[2] = { 10, 15 }, k, m;

	(void)state;
	fakewire_past_start(&W);
	fakewire_inject(&W, 1, &r0, false, false);
	assert_true(fakewire_take_type(&W, 1, UET_PDS_TYPE_ACK, &a));
	fakewire_inject(&W, 0, &a, false, false);
	assert_int_equal(W.done_ok[1], 1);
	/* Side 0 restarts (same FA, PDC state lost, new Start_PSNs). */
	uet_pds_free(W.pds[0]);
	fakewire_test_config(&cfg);
	cfg.seed = 0xabcdefull;
	W.pds[0] = uet_pds_create(&cfg);
	assert_non_null(W.pds[0]);
	W.now += W.pds[1]->cfg.syn_holdoff_ns / 2;
	for (k = 0; k < 5; k++)
		assert_int_equal(fakewire_submit(&W, UET_PDS_MODE_RUD, 10 + k, 0), 0);
	assert_int_equal(fakewire_take(&W, 0, b, 5), 5);
	assert_int_equal(b[0].hdr.u.req.spdcid, r0.hdr.u.req.spdcid);
	/* P1 inside the hold-off, P2..P5 after it. */
	fakewire_inject(&W, 1, &b[0], false, false);
	assert_true(fakewire_take_type(&W, 1, UET_PDS_TYPE_NACK, &nk));
	assert_int_equal(nk.hdr.u.nack.code, UET_NACK_NEW_START_PSN);
	W.now += W.pds[1]->cfg.syn_holdoff_ns;
	for (k = 1; k < 5; k++)
		fakewire_inject(&W, 1, &b[k], false, false);
	for (k = 10; k < 15; k++)
		assert_int_equal(W.delivered[k], 0);
	assert_int_equal(fakewire_st(1)->syn_refused, 4);
	assert_int_equal(fakewire_st(1)->syn_replace, 0);
	/* The first NACK reaches the initiator first, the others follow;
	 * it renumbers once the whole burst was answered. */
	m = fakewire_take(&W, 1, more, 8);
	assert_int_equal(m, 4);
	fakewire_inject(&W, 0, &nk, false, false);
	for (k = 0; k < m; k++)
		fakewire_inject(&W, 0, &more[k], false, false);
	assert_int_equal(fakewire_st(0)->new_start, 1);
	assert_true(fakewire_run(&W, 1000, 100000000ull, all_of, range));
	for (k = 10; k < 15; k++) {
		assert_int_equal(W.delivered[k], 1);
		assert_int_equal(W.done_ok[k], 1);
	}
	assert_int_equal(fakewire_st(0)->new_start, 1);
	assert_int_equal(fakewire_st(1)->syn_replace, 1);
	assert_int_equal(W.bad_payload, 0);
}

/* UEC 1.0 3.6.16 (pds_target_ev_set): an ACK's M flag is charged to the EV
 * it echoes. A CE-marked arrival on one path followed, before the target
 * sends anything, by unmarked arrivals on other paths: the mark leaves
 * in an ACK echoing the marked packet's EV, and no ACK charges it to
 * another EV. */
static void
pds_target_ev_set__mark_echoed_with_its_own_ev(void **state)
{
	struct uet_pds_tx r0 = one_req(UET_PDS_MODE_RUD, 1, 0), a, r[3];
	struct uet_pds_tx tx[16];
	uint16_t n, k, marked = 0;

	(void)state;
	fakewire_inject(&W, 1, &r0, false, false);
	assert_true(fakewire_take_type(&W, 1, UET_PDS_TYPE_ACK, &a));
	fakewire_inject(&W, 0, &a, false, false);
	for (k = 0; k < 3; k++)
		assert_int_equal(fakewire_submit(&W, UET_PDS_MODE_RUD, 2 + k, 0), 0);
	assert_int_equal(fakewire_take(&W, 0, r, 3), 3);
	r[0].ev = 100;
	r[1].ev = 200;
	r[2].ev = 300;
	fakewire_inject(&W, 1, &r[0], false, true);
	fakewire_inject(&W, 1, &r[1], false, false);
	fakewire_inject(&W, 1, &r[2], false, false);
	W.now += W.pds[1]->cfg.ack_delay_ns;
	uet_pds_advance(W.pds[1], W.now);
	n = fakewire_take(&W, 1, tx, 16);
	assert_true(n >= 1);
	for (k = 0; k < n; k++) {
		if (!(tx[k].hdr.flags & UET_PDS_F_M))
			continue;
		marked++;
		assert_int_equal(tx[k].ev, 100);
	}
	assert_int_equal(marked, 1);
	assert_int_equal(fakewire_st(1)->ack_ev_split, 1);
	/* The last ACK covers everything and echoes the newest arrival. */
	assert_int_equal(tx[n - 1].ev, 300);
	assert_int_equal(tx[n - 1].hdr.u.ack.cack_psn, r[2].hdr.u.req.psn);
}

static uint32_t close_req_drops;

static bool
drop_close_req(struct fakewire *w, int from, const struct uet_pds_tx *t)
{
	(void)w;
	if (from != 1 || t->hdr.type != UET_PDS_TYPE_CP ||
	    t->hdr.next_hdr != UET_PDS_CTL_CLOSE_REQ || close_req_drops == 0)
		return false;
	close_req_drops--;
	return true;
}

/* UEC 1.0 PDS PDC close: a lost CLOSE_REQ is repeated (after rto_init,
 * doubling) until the initiator answers with its CLOSE. */
static void
pds_target_close__close_req_repeated_until_answered(void **state)
{
	(void)state;
	W.delay_ns = 1000;
	W.jitter_ns = 0;
	assert_int_equal(fakewire_submit(&W, UET_PDS_MODE_RUD, 90, 0), 0);
	while (W.done_ok[90] == 0 && W.now < 10000000)
		fakewire_step(&W, 1000);
	assert_int_equal(W.done_ok[90], 1);
	close_req_drops = 2;
	W.drop_fn = drop_close_req;
	assert_int_equal(uet_pds_pdc_close(W.pds[1], W.last_pdc[1], W.now), 0);
	run_idle(1000, 100000000);
	assert_true(fakewire_pools_idle(&W));
	assert_int_equal(close_req_drops, 0);
	assert_int_equal(fakewire_st(1)->tx_ctl[UET_PDS_CTL_CLOSE_REQ], 3);
	assert_int_equal(fakewire_st(0)->tx_ctl[UET_PDS_CTL_CLOSE], 1);
	assert_int_equal(fakewire_st(1)->close_req_giveup, 0);
	assert_int_equal(fakewire_st(1)->pdc_close_tgt, 1);
	assert_int_equal(fakewire_st(0)->pdc_close_init, 1);
	assert_int_equal(fakewire_st(0)->pdc_fail, 0);
}

/* UEC 1.0 lock_pdc: a target PDC on which the SES still owes a READ's
 * return data (locked) asks for no idle close; unlocked, it does (DST seed
 * 2099: its CLOSE_REQ closed the PDC before the data, queued behind
 * another PDC's, was sent). */
/* A PDC opened by request @p cookie, completed, then locked at its
 * target (the SES owes a READ's data on it): its target handle. */
static uint32_t
locked_target_pdc(uint64_t cookie)
{
	uint32_t h;

	W.delay_ns = 1000;
	assert_int_equal(fakewire_submit(&W, UET_PDS_MODE_RUD, cookie, 0), 0);
	while (W.done_ok[cookie] == 0 && W.now < 10000000)
		fakewire_step(&W, 1000);
	assert_int_equal(W.done_ok[cookie], 1);
	h = W.last_pdc[1];
	assert_int_equal(uet_pds_pdc_lock(W.pds[1], h), 0);
	return h;
}

static void
pds_target_close__locked_pdc_no_close_req(void **state)
{
	uint32_t h;

	(void)state;
	h = locked_target_pdc(92);
	while (W.now < 3000000000ull) /* three tgt_close_req_ns */
		fakewire_step(&W, 1000000);
	assert_int_equal(fakewire_st(1)->tx_ctl[UET_PDS_CTL_CLOSE_REQ], 0);
	assert_false(fakewire_pools_idle(&W));
	assert_int_equal(uet_pds_pdc_unlock(W.pds[1], h, W.now), 0);
	run_idle(1000000, 5000000000ull);
	assert_true(fakewire_pools_idle(&W));
	assert_true(fakewire_st(1)->tx_ctl[UET_PDS_CTL_CLOSE_REQ] >= 1);
	assert_int_equal(fakewire_st(0)->pdc_fail, 0);
}

/* A target PDC still locked for a READ's data (queued behind other
 * records, not handed to the PDS yet) holds the ACK of its initiator's
 * CLOSE until the data is sent and acknowledged: acknowledged at once,
 * the CLOSE freed the PDC and the READ waited for good (uet-dst generator
 * 1 seed 14553283). */
static void
pds_target_close__locked_pdc_holds_close_ack(void **state)
{
	struct uet_pds_submit s;
	uint8_t buf[FW_PAYLOAD_MAX];
	uint32_t h;

	(void)state;
	h = locked_target_pdc(93);
	assert_int_equal(uet_pds_pdc_close(W.pds[0], W.last_pdc[0], W.now), 0);
	run_idle(1000, 200000);
	assert_int_equal(fakewire_st(0)->tx_ctl[UET_PDS_CTL_CLOSE], 1);
	assert_int_equal(fakewire_st(1)->pdc_close_tgt, 0); /* ACK held */
	/* The SES hands the data over and gives up its lock. */
	memset(&s, 0, sizeof(s));
	s.flags = UET_PDS_SUBMIT_PDC | UET_PDS_SUBMIT_AR;
	s.pdc = h;
	s.cookie = FW_RET_BASE + 2;
	s.len = fakewire_payload(s.cookie, buf);
	s.next_hdr = UET_PDS_NEXT_RESPONSE_DATA;
	assert_int_equal(uet_pds_submit(W.pds[1], &s, W.now), 0);
	assert_int_equal(uet_pds_pdc_unlock(W.pds[1], h, W.now), 0);
	run_idle(1000, 10000000);
	assert_true(fakewire_pools_idle(&W));
	assert_int_equal(W.delivered[FW_RET_BASE + 2], 1);
	assert_int_equal(W.done_ok[FW_RET_BASE + 2], 1);
	assert_int_equal(fakewire_st(1)->pdc_close_tgt, 1);
	assert_int_equal(fakewire_st(0)->pdc_close_init, 1);
	assert_int_equal(fakewire_st(0)->pdc_fail, 0);
	assert_int_equal(fakewire_st(1)->pdc_fail, 0);
}

static void
tgt_close_req_default(struct uet_pds_config *cfg)
{
	struct uet_pds_config d;

	uet_pds_config_default(&d);
	cfg->tgt_close_req_ns = d.tgt_close_req_ns;
}

static int
setup_tgt_close_req(void **state)
{
	(void)state;
	return fakewire_setup_with(1, tgt_close_req_default);
}

/*
 * UEC 1.0 PDS PDC close, with the default configuration: an idle target PDC
 * asks its initiator to close (answered: both ends freed); a target PDC
 * no initiator knows (as opened by a late duplicate SYN the target no
 * longer recognises) repeats CLOSE_REQ max_retries times, then is freed
 * with NACK CLOSING_IN_ERR. Nothing is left open.
 */
static void
pds_target_close__idle_pdc_reclaimed_by_default(void **state)
{
	struct uet_pds_tx orphan;
	struct uet_pds_pool_info pi;
	struct uet_pds_config cfg;

	(void)state;
	W.delay_ns = 1000;
	assert_int_equal(fakewire_submit(&W, UET_PDS_MODE_RUD, 80, 0), 0);
	assert_true(fakewire_take_type(&W, 0, UET_PDS_TYPE_RUD_REQ, &orphan));
	/* Another initiator PDC id and Start_PSN: unknown at side 0. */
	orphan.hdr.u.req.spdcid = (uint16_t)(orphan.hdr.u.req.spdcid + 5);
	orphan.hdr.u.req.psn += 0x40000;
	orphan.cookie = 81;
	fakewire_inject(&W, 1, &orphan, false, false);
	assert_int_equal(W.delivered[81], 1);
	/* The real request goes again (RTO) and completes. */
	while (W.done_ok[80] == 0 && W.now < 50000000)
		fakewire_step(&W, 1000);
	assert_int_equal(W.done_ok[80], 1);
	uet_pds_pool_info_get(W.pds[1], &pi);
	assert_int_equal(pi.pdc_used[1], 2);
	/* Idle for tgt_close_req_ns, then the close requests. */
	run_idle(100000, 3000000000ull);
	assert_true(fakewire_pools_idle(&W));
	fakewire_test_config(&cfg);
	assert_int_equal(fakewire_st(1)->close_req_giveup, 1);
	assert_int_equal(fakewire_st(1)->tx_ctl[UET_PDS_CTL_CLOSE_REQ],
			 1 + 1 + cfg.max_retries);
	assert_int_equal(fakewire_st(1)->nack_tx[UET_NACK_CLOSING_IN_ERR], 1);
	assert_int_equal(fakewire_st(1)->pdc_close_tgt, 2);
	assert_int_equal(fakewire_st(0)->pdc_close_init, 1);
	assert_int_equal(fakewire_st(0)->pdc_fail, 0);
	assert_int_equal(W.delivered[80], 1);
	assert_int_equal(W.delivered[81], 1);
}

/* NACK NEW_START_PSN carries the Start_PSN to use (UEC 1.0 PDS NACK codes): a
 * multiple of 2^16 from the refused one, 2^16 or more from the live PDC's
 * receive window, so the initiator's next SYN can replace it. */
static void
pds_target_rx__new_start_psn_nack_carries_start_psn(void **state)
{
	struct uet_pds_tx req = one_req(UET_PDS_MODE_RUD, 1, 0), old, nack;
	uint32_t start, live;
	int32_t d;

	(void)state;
	fakewire_past_start(&W);
	fakewire_inject(&W, 1, &req, false, false);
	fakewire_take(&W, 1, &nack, 1);
	live = req.hdr.u.req.psn + 1;
	old = req;
	old.hdr.u.req.psn += 0x40005;
	start = old.hdr.u.req.psn - old.hdr.u.req.psn_offset;
	fakewire_inject(&W, 1, &old, false, false);
	assert_true(fakewire_take_type(&W, 1, UET_PDS_TYPE_NACK, &nack));
	assert_int_equal(nack.hdr.u.nack.code, UET_NACK_NEW_START_PSN);
	assert_int_equal((nack.hdr.u.nack.payload - start) & 0xFFFFu, 0);
	assert_int_not_equal(nack.hdr.u.nack.payload, start);
	d = (int32_t)(nack.hdr.u.nack.payload - live);
	assert_true(d <= -65536 || d >= 65536);
}

static void
clear_req_at_two(struct uet_pds_config *cfg)
{
	cfg->resp_high_water = 2;
}

/* Inject everything side @p from has to send into the other side. */
static void
relay_all(int from)
{
	struct uet_pds_tx tx[16];
	uint16_t n = fakewire_take(&W, from, tx, 16), i;

	for (i = 0; i < n; i++)
		fakewire_inject(&W, 1 - from, &tx[i], false, false);
}

/* UEC 1.0 PDS guaranteed delivery: at the response store's high-water
 * mark the target sends CLEAR_REQ carrying the PSN to clear; the initiator
 * answers with a CLEAR carrying its CLEAR_PSN; the target frees the
 * responses it covers. */
static void
pds_target_respond__high_water_sends_clear_req(void **state)
{
	struct uet_pds_tx r[2], cp, bad;
	struct uet_pds_pdc_info info;
	uint64_t stale;

	(void)state;
	fakewire_fini(&W);
	assert_int_equal(fakewire_setup_with(7, clear_req_at_two), 0);
	W.resp_expected = true;
	assert_int_equal(fakewire_submit(&W, UET_PDS_MODE_RUD, 1, UET_PDS_SUBMIT_RESP),
			 0);
	assert_int_equal(fakewire_submit(&W, UET_PDS_MODE_RUD, 2, UET_PDS_SUBMIT_RESP),
			 0);
	assert_int_equal(fakewire_take(&W, 0, r, 2), 2);
	fakewire_inject(&W, 1, &r[0], false, false);
	relay_all(1);
	assert_int_equal(W.done_ok[1], 1);
	assert_int_equal(fakewire_st(1)->clear_req_tx, 0);
	fakewire_inject(&W, 1, &r[1], false, false);
	assert_true(fakewire_take_type(&W, 1, UET_PDS_TYPE_CP, &cp));
	assert_int_equal(cp.hdr.next_hdr, UET_PDS_CTL_CLEAR_REQ);
	assert_int_equal(fakewire_st(1)->clear_req_tx, 1);
	/* The PSN to clear: the newest stored response sent. */
	assert_int_equal(cp.hdr.u.cp.payload, r[1].hdr.u.req.psn);
	/* One naming a PSN never sent is stale. */
	bad = cp;
	bad.hdr.u.cp.payload = r[1].hdr.u.req.psn + 1000;
	stale = fakewire_st(0)->rx_stale;
	fakewire_inject(&W, 0, &bad, false, false);
	assert_int_equal(fakewire_st(0)->rx_stale, stale + 1);
	fakewire_inject(&W, 0, &cp, false, false);
	assert_int_equal(fakewire_st(0)->rx_stale, stale + 1);
	assert_true(fakewire_take_type(&W, 0, UET_PDS_TYPE_CP, &cp));
	assert_int_equal(cp.hdr.next_hdr, UET_PDS_CTL_CLEAR);
	assert_int_equal(cp.hdr.u.cp.payload, r[0].hdr.u.req.psn);
	fakewire_inject(&W, 1, &cp, false, false);
	assert_int_equal(uet_pds_pdc_info_get(W.pds[1], W.last_pdc[1], &info), 0);
	assert_int_equal(info.stored_resp, 1);
}

/* Responses of PSNs that arrived out of order: a duplicate of any of them
 * gets its own stored response again, and a CLEAR (CP or the CLEAR_PSN
 * of a request) frees exactly the responses it covers. */
static void
pds_target_respond__out_of_order_found_and_cleared(void **state)
{
	static const int arrival[4] = { 2, 0, 3, 1 };
	struct uet_pds_tx r[4], out[8];
	struct uet_pds_pool_info pi;
	struct uet_pds_pdc_info info;
	int k;

	(void)state;
	W.resp_expected = true;
	for (k = 0; k < 4; k++)
		assert_int_equal(fakewire_submit(&W, UET_PDS_MODE_RUD, 40 + k,
					   UET_PDS_SUBMIT_RESP), 0);
	assert_int_equal(fakewire_take(&W, 0, r, 4), 4);
	for (k = 0; k < 4; k++)
		fakewire_inject(&W, 1, &r[arrival[k]], false, false);
	for (k = 0; k < 4; k++)
		assert_int_equal(W.delivered[40 + k], 1);
	uet_pds_pool_info_get(W.pds[1], &pi);
	assert_int_equal(pi.resp_used, 4);
	/* The oldest, one in the middle and the newest PSN. */
	fakewire_inject(&W, 1, &r[0], false, false);
	fakewire_inject(&W, 1, &r[2], false, false);
	fakewire_inject(&W, 1, &r[3], false, false);
	assert_int_equal(fakewire_st(1)->resp_resent, 3);
	for (k = 0; k < 4; k++)
		relay_all(1);
	for (k = 0; k < 4; k++)
		assert_int_equal(W.done_ok[40 + k], 1);
	assert_int_equal(fakewire_submit(&W, UET_PDS_MODE_RUD, 44,
				   UET_PDS_SUBMIT_RESP), 0);
	/* The initiator had nothing else to send, so it sent a CLEAR
	 * before the next request; both cover all four responses. */
	assert_int_equal(fakewire_take(&W, 0, out, 8), 2);
	assert_int_equal(out[0].hdr.type, UET_PDS_TYPE_CP);
	assert_int_equal(out[0].hdr.next_hdr, UET_PDS_CTL_CLEAR);
	assert_int_equal(out[0].hdr.u.cp.payload, r[3].hdr.u.req.psn);
	assert_int_equal(out[1].cookie, 44);
	assert_int_equal(uet_wire_pds_req_clear_psn(&out[1].hdr.u.req),
			 r[3].hdr.u.req.psn);
	/* A CLEAR of the two oldest only, then the request clears the rest. */
	out[0].hdr.u.cp.payload = r[1].hdr.u.req.psn;
	fakewire_inject(&W, 1, &out[0], false, false);
	assert_int_equal(uet_pds_pdc_info_get(W.pds[1], W.last_pdc[1], &info),
			 0);
	assert_int_equal(info.stored_resp, 2);
	fakewire_inject(&W, 1, &out[1], false, false);
	assert_int_equal(W.delivered[44], 1);
	assert_int_equal(uet_pds_pdc_info_get(W.pds[1], W.last_pdc[1], &info),
			 0);
	assert_int_equal(info.stored_resp, 1);
	uet_pds_pool_info_get(W.pds[1], &pi);
	assert_int_equal(pi.resp_used, 1);
}

static uint32_t head_drops;

/* Drop the second ROD packet the first two times it is sent. */
static bool
drop_rod_head_twice(struct fakewire *w, int from, const struct uet_pds_tx *t)
{
	(void)w;
	if (from != 0 || t->hdr.type != UET_PDS_TYPE_ROD_REQ ||
	    t->cookie != 1 || head_drops >= 2)
		return false;
	head_drops++;
	return true;
}

static bool
all_done8(struct fakewire *w, void *arg)
{
	int k;

	(void)arg;
	for (k = 0; k < 8; k++)
		if (w->done_ok[k] == 0)
			return false;
	return true;
}

/* ROD: the go-back-N resend of the head is lost too. The receiver NACKs
 * again after rod_renack retransmissions past the hole: recovery without
 * an RTO. */
static void
pds_target_rx__rod_head_lost_twice_renacked(void **state)
{
	int k;

	(void)state;
	head_drops = 0;
	W.drop_fn = drop_rod_head_twice;
	for (k = 0; k < 8; k++)
		assert_int_equal(fakewire_submit(&W, UET_PDS_MODE_ROD, (uint64_t)k, 0),
				 0);
	assert_true(fakewire_run(&W, 2000, 100000000, all_done8, NULL));
	for (k = 0; k < 8; k++) {
		assert_int_equal(W.delivered[k], 1);
		assert_int_equal(W.order[k], k);
	}
	assert_int_equal(fakewire_st(1)->rod_renack, 1);
	assert_int_equal(fakewire_st(1)->nack_tx[UET_NACK_ROD_OOO], 2);
	assert_int_equal(fakewire_st(0)->rto_fires, 0);
	/* The initiator has no RTT sample, and the re-NACK came within
	 * rto_init of the head's resend: it may be one of a go-back's
	 * re-NACKs still on their way, so the head went alone
	 * (pds_rod_nack_stale), and what followed it after one tail-loss
	 * probe. */
	assert_int_equal(fakewire_st(0)->rod_nack_stale, 1);
	assert_int_equal(fakewire_st(0)->tlp_fires, 1);
}

static void
no_renack(struct uet_pds_config *cfg)
{
	cfg->rod_renack = 0;
}

/* The same without the re-NACK: only a timer recovers. */
static void
pds_target_rx__rod_head_lost_twice_needs_timer_without_renack(void **state)
{
	int k;

	(void)state;
	fakewire_fini(&W);
	assert_int_equal(fakewire_setup_with(1, no_renack), 0);
	head_drops = 0;
	W.drop_fn = drop_rod_head_twice;
	for (k = 0; k < 8; k++)
		assert_int_equal(fakewire_submit(&W, UET_PDS_MODE_ROD, (uint64_t)k, 0),
				 0);
	assert_true(fakewire_run(&W, 2000, 100000000, all_done8, NULL));
	assert_int_equal(fakewire_st(1)->rod_renack, 0);
	assert_true(fakewire_st(0)->rto_fires + fakewire_st(0)->tlp_fires >= 1);
}

static bool
all_done(struct fakewire *w, void *arg)
{
	uint32_t n = *(uint32_t *)arg, c;

	for (c = 1; c <= n; c++)
		if (w->done_ok[c] + w->done_err[c] == 0)
			return false;
	return true;
}

static bool
resp_freed(struct fakewire *w, void *arg)
{
	struct uet_pds_pool_info pi;

	(void)arg;
	uet_pds_pool_info_get(w->pds[1], &pi);
	return pi.resp_used == 0;
}

static void
more_responses(struct uet_pds_config *cfg)
{
	cfg->resp_entries = 64;
}

static int
setup_more_responses(void **state)
{
	(void)state;
	return fakewire_setup_with(9, more_responses);
}

/* Guaranteed delivery over a lossy wire: once the initiator is idle it
 * advances CLEAR_PSN past the last response with a CLEAR CP, so the
 * target frees every stored response without a CLOSE. */
static void
pds_target_respond__idle_clear_frees_all_over_loss(void **state)
{
	uint32_t n = 300, c, sent = 0;
	struct uet_pds_pool_info pi;

	(void)state;
	W.resp_expected = true;
	W.f[0].drop = W.f[1].drop = 50000;
	W.f[0].reorder = W.f[1].reorder = 50000;
	for (c = 1; c <= n; c++) {
		while (fakewire_submit(&W, UET_PDS_MODE_RUD, c,
				 UET_PDS_SUBMIT_RESP) == -EAGAIN &&
		       W.now < 5000000000ull)
			fakewire_step(&W, 1000);
		sent++;
	}
	assert_int_equal(sent, n);
	assert_true(fakewire_run(&W, 1000, 5000000000ull, all_done, &n));
	for (c = 1; c <= n; c++) {
		assert_int_equal(W.done_ok[c], 1);
		assert_int_equal(W.delivered[c], 1);
	}
	assert_true(fakewire_run(&W, 1000, 2000000000ull, resp_freed, NULL));
	assert_true(fakewire_st(0)->clear_idle > 0);
	uet_pds_pool_info_get(W.pds[1], &pi);
	assert_int_equal(pi.resp_used, 0);
	assert_int_equal(W.bad_payload, 0);
}

/* uet_pds_refuse(): the PSN is not recorded (no ACK, a NACK with the
 * resource code instead); the retransmission is delivered and ACKed. */
static void
uet_pds_refuse__psn_not_recorded_then_retx_delivered(void **state)
{
	struct uet_pds_tx req = one_req(UET_PDS_MODE_RUD, 30, 0), t, again;
	struct uet_pds_tx tx[8];
	uint16_t k, i;
	bool ack = false;

	(void)state;
	W.refuse_left = 1;
	W.refuse_code = UET_NACK_NO_SES_MSG_AVAIL;
	fakewire_inject(&W, 1, &req, false, false);
	assert_int_equal(W.refusals, 1);
	assert_int_equal(W.delivered[30], 0);
	assert_int_equal(fakewire_st(1)->refused, 1);
	k = fakewire_take(&W, 1, tx, 8);
	for (i = 0; i < k; i++)
		ack |= uet_wire_pds_type_is_ack(tx[i].hdr.type);
	assert_false(ack);
	for (i = 0; i < k && tx[i].hdr.type != UET_PDS_TYPE_NACK; i++)
		;
	assert_true(i < k);
	t = tx[i];
	assert_int_equal(t.hdr.u.nack.code, UET_NACK_NO_SES_MSG_AVAIL);
	assert_int_equal(t.hdr.u.nack.psn, req.hdr.u.req.psn);
	fakewire_inject(&W, 0, &t, false, false);
	assert_int_equal(fakewire_st(0)->retx_backoff, 0);
	/* Nothing before the back-off ends, then the retransmission. */
	assert_false(fakewire_take_type(&W, 0, UET_PDS_TYPE_RUD_REQ, &again));
	W.now += 2 * W.pds[0]->cfg.backoff_init_ns;
	uet_pds_advance(W.pds[0], W.now);
	assert_true(fakewire_take_type(&W, 0, UET_PDS_TYPE_RUD_REQ, &again));
	assert_int_equal(again.hdr.u.req.psn, req.hdr.u.req.psn);
	assert_true(again.hdr.flags & UET_PDS_F_RETX);
	assert_int_equal(fakewire_st(0)->retx_backoff, 1);
	fakewire_inject(&W, 1, &again, false, false);
	assert_int_equal(W.delivered[30], 1);
	assert_int_equal(fakewire_st(1)->dup_rx, 0);
	assert_true(fakewire_take_type(&W, 1, UET_PDS_TYPE_ACK, &t));
	fakewire_inject(&W, 0, &t, false, false);
	assert_int_equal(W.done_ok[30], 1);
}

/* Too late (recorded) or not a resource code: refused by the API. */
static void
uet_pds_refuse__bad_calls_rejected(void **state)
{
	struct uet_pds_tx req = one_req(UET_PDS_MODE_RUD, 31, 0);

	(void)state;
	fakewire_inject(&W, 1, &req, false, false);
	assert_int_equal(W.delivered[31], 1);
	assert_int_equal(uet_pds_refuse(W.pds[1], W.last_pdc[1],
					W.last_psn[1],
					UET_NACK_CLOSING_IN_ERR), -EINVAL);
	uet_pds_advance(W.pds[1], W.now);
	assert_int_equal(uet_pds_refuse(W.pds[1], W.last_pdc[1],
					W.last_psn[1],
					UET_NACK_NO_SES_MSG_AVAIL), -ENOENT);
	assert_int_equal(fakewire_st(1)->refused, 0);
}

static void
pdc_events_on(struct uet_pds_config *cfg)
{
	cfg->pdc_events = true;
	cfg->max_backoffs = 3;
	cfg->backoff_max_ns = 1000000;
}

static int
setup_pdc_events(void **state)
{
	(void)state;
	return fakewire_setup_with(1, pdc_events_on);
}

/* Refused every time: max_backoffs back-offs, then -ECONNREFUSED and a
 * PDC_DOWN event; an idle refusal never reaches the SES as a delivery. */
static void
uet_pds_refuse__max_backoffs_fail_econnrefused(void **state)
{
	uint32_t n = 2;

	(void)state;
	W.refuse_left = 1000;
	W.refuse_code = UET_NACK_NO_RESOURCE;
	assert_int_equal(fakewire_submit(&W, UET_PDS_MODE_RUD, 1, 0), 0);
	assert_int_equal(fakewire_submit(&W, UET_PDS_MODE_RUD, 2, 0), 0);
	assert_true(fakewire_run(&W, 1000, 1000000000ull, all_done, &n));
	assert_int_equal(W.done_err[1], 1);
	assert_int_equal(W.done_err[2], 1);
	assert_int_equal(W.last_status[0], -ECONNREFUSED);
	assert_int_equal(W.delivered[1] + W.delivered[2], 0);
	/* Both packets are refused in each of the 3 rounds. */
	assert_int_equal(fakewire_st(0)->retx_backoff, 6);
	assert_int_equal(W.pdc_down[0], 1);
	assert_int_equal(W.pdc_down_status[0], -ECONNREFUSED);
	assert_int_equal(W.bad_payload, 0);
}

/* A window of 256: a receive side can hold 100 PSNs past a hole. */
static void
window_256(struct uet_pds_config *cfg)
{
	cfg->tx_window = 256;
	cfg->rx_window = 256;
	cfg->event_queue = 1024;
}

/*
 * UEC 1.0 PDS duplicates: a duplicate is re-ACKed, and its ACK tells the
 * sender it is in. uet-dst seed 41436383 of generator 7: while the CACK
 * is held (here by the lost first packet), the SACK bitmap of the newest
 * 64 arrivals leaves a stretch above the CACK that no ACK covers; the
 * sender's resends of packets there were answered with ACKs saying
 * nothing of them, and went on every RTO. Now the ACK of a duplicate
 * starts its bitmap at the (lowest) duplicate.
 */
static void
pds_target_dup__ack_covers_the_duplicate(void **state)
{
	struct uet_pds_tx tx[64], ack;
	const uint32_t n = 100;
	uint32_t got = 0, k, first = 0, dup = 0, base;
	uint64_t bit;

	(void)state;
	fakewire_fini(&W);
	assert_int_equal(fakewire_setup_with(5, window_256), 0);
	for (k = 0; k < n; k++)
		assert_int_equal(fakewire_submit(&W, UET_PDS_MODE_RUD,
						 (uint64_t)k + 1, 0), 0);
	/* packet 0 lost, 1..99 in: the CACK stays below packet 0 */
	while (got < n) {
		uint16_t m = fakewire_take(&W, 0, tx, 64);

		assert_true(m > 0);
		for (k = 0; k < m; k++) {
			if (got == 0)
				first = tx[k].hdr.u.req.psn;
			else if (got == 20)
				dup = tx[k].hdr.u.req.psn;
			if (got != 0)
				fakewire_inject(&W, 1, &tx[k], false, false);
			if (got == 20)
				ack = tx[k];
			got++;
		}
	}
	while (fakewire_take(&W, 1, tx, 64) != 0)
		;
	/* the resend of packet 20, a duplicate */
	ack.hdr.flags |= UET_PDS_F_RETX;
	fakewire_inject(&W, 1, &ack, false, false);
	assert_true(fakewire_take_type(&W, 1, UET_PDS_TYPE_ACK_CC, &ack));
	assert_int_equal(ack.hdr.u.ack.cack_psn, first - 1);
	base = ack.hdr.u.ack.cack_psn +
	       (uint32_t)(int32_t)ack.hdr.u.ack.sack_psn_offset;
	assert_true(dup - base < 64);
	bit = UINT64_C(1) << (dup - base);
	assert_true(ack.hdr.u.ack.sack_bitmap & bit);
	assert_int_equal(fakewire_st(1)->dup_rx, 1);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
#define T(f) FW_TEST(f, fakewire_setup)
		T(pds_target_rx__syn_creates_pdc_and_acks_at_once),
		T(pds_target_rx__duplicate_is_reacked_not_nacked),
		T(pds_target_rx__ce_mark_echoed_in_ack),
		T(pds_target_rx__beyond_window_nacks_oor),
		T(pds_target_rx__beyond_window_alias_not_duplicate),
		T(pds_target_rx__unknown_dpdcid_nacks_inv_dpdcid),
		T(pds_ret__target_submits_initiator_delivers_once),
		T(uet_pds_pdc_info__both_directions),
		T(pds_target_rx__trimmed_nacks_with_psn_and_m),
		T(pds_target_rx__acks_coalesce_until_threshold),
		T(pds_target_rx__rod_out_of_order_nacked_once),
		T(pds_target_respond__stored_until_clear_and_resent),
		T(gtd_resp__cack_held_until_clear),
		T(rcvd_ses_procg__duplicate_while_ses_busy),
		T(pds_target_ack_policy__retx_echo_is_ack_psn_packets),
		T(cp__clear_consumes_no_psn),
		T(clear__ack_when_cack_passes_clear_psn),
		T(pds_target_clear__ar_acked_when_cack_stops_at_clear_psn),
		T(clear__lost_clear_repaired_by_clear_req),
		T(ack_req__received_psn_acked_missing_psn_nacked),
		T(ack_req__syn_opens_no_pdc),
		T(cp__unreliable_cps_record_no_psn),
		T(cp__noop_consumes_a_psn),
		T(resp_default__nothing_stored),
		T(resp_early__target_answers_non_eom),
		T(pds_target_respond__pool_empty_nacks_gtd),
		T(pds_target_respond__no_room_refuses_not_default_ok),
		T(pds_target_close__request_then_nack_closing),
		T(pds_target_close__both_directions_free_everything),
		T(pds_target_rx__reserved_pool_on_use_rsv_pdc),
		T(pds_target_rx__pool_exhausted_nacks_no_pdc),
		T(pds_target_rx__no_rx_block_nacks_no_bitmap),
		T(pds_target_rx__other_mode_nacks_mode_mismatch),
		T(pds_target_rx__other_start_psn_nacked_until_quiet),
		T(pds_target_rx__new_start_psn_nack_carries_start_psn),
		T(pds_target_respond__high_water_sends_clear_req),
		T(pds_target_respond__out_of_order_found_and_cleared),
		T(pds_ret__submit_ar_acked_at_once),
		T(pds_ids__initiator_and_target_differ),
		T(pds_target_rx__rod_head_lost_twice_renacked),
		T(pds_target_rx__rod_head_lost_twice_needs_timer_without_renack),
		T(uet_pds_refuse__psn_not_recorded_then_retx_delivered),
		T(uet_pds_refuse__bad_calls_rejected),
		FW_TEST(pds_target_respond__idle_clear_frees_all_over_loss,
			setup_more_responses),
		FW_TEST(uet_pds_refuse__max_backoffs_fail_econnrefused,
			setup_pdc_events),
		T(pds_target_rx__stale_syn_after_close_dropped),
		T(pds_target_ev_set__mark_echoed_with_its_own_ev),
		FW_TEST(pds_target_syn_known__late_syn_of_reused_id_dropped,
			setup_one_pdc_id),
		T(pds_target_syn_known__late_syn_after_many_reopens_dropped),
		T(pds_target_syn_known__new_start_decided_once_per_incarnation),
		T(pds_target_close__close_req_repeated_until_answered),
		T(pds_target_reject__closing_refuses_hole_clear_psn_passes_it),
		T(pds_target_reject__closing_refused_copy_stays_refused),
		T(pds_target_reject__closing_clear_psn_at_own_psn_passes_nothing),
		FW_TEST(pds_target_close__idle_pdc_reclaimed_by_default,
			setup_tgt_close_req),
		FW_TEST(pds_target_close__locked_pdc_no_close_req,
			setup_tgt_close_req),
		T(pds_target_close__locked_pdc_holds_close_ack),
		T(pds_target_dup__ack_covers_the_duplicate),
#undef T
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
