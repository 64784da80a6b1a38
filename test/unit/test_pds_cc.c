/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The PDS's calls into its congestion control (src/pds/pds_cc.c, the
 * hooks of struct uet_pds_cc_ops) and the NSCC/RCCC adapter
 * (src/pds/pds_cc_cms.c), over the fake wire:
 *  - a recording CC on the sender sees nominal bytes (SES length +
 *    UET_PDS_CC_NOMINAL_OVH) in on_send, on_trim, on_loss and fini, and
 *    an RTT sample only for packets sent once;
 *  - the receiver of uet_pds_cc_cms answers every request with an ACK_CC
 *    whose NSCC state it produced: rcvd_bytes, service_time, ooo_count,
 *    and rcv_cwnd_pend after its SES refused a request;
 *  - the RCCC pull pacer's grant is due at uet_pds_next_deadline() and
 *    leaves in an ACK_CC of cc_type CREDIT; nothing is due without a
 *    request;
 *  - NSCC contexts are shared per {peer, traffic class} and freed with
 *    their last PDC.
 */

#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include <uet/uet_pds_cc.h>

#include "pds_fakewire.h"
#include "pds_private.h"

#define OVH UET_PDS_CC_NOMINAL_OVH

/* ---- a recording CC: the fixed window plus a log of the hooks ---- */

static struct {
	uint32_t sends, send_bytes, last_send;
	uint32_t acks, ack_bytes;
	uint64_t last_rtt;
	bool last_has_state;
	uint32_t trims, trim_bytes;
	uint32_t losses, loss_bytes;
	uint32_t finis, fini_bytes;
	uint32_t last_rcvd;   /* rcvd_bytes of the last ACK_CC */
	uint16_t last_ooo;    /* its ooo_count */
	bool gate_shut;       /* may_send refuses everything */
} rec;

static bool
rec_may_send(void *inst, const void *priv, uint32_t bytes,
	     uint32_t inflight)
{
	return !rec.gate_shut &&
	       uet_pds_cc_fixed.may_send(inst, priv, bytes, inflight);
}

static void
rec_on_send(void *inst, void *priv, uint32_t bytes, bool retx, uint64_t now)
{
	(void)inst;
	(void)priv;
	(void)retx;
	(void)now;
	rec.sends++;
	rec.send_bytes += bytes;
	rec.last_send = bytes;
}

static void
rec_on_ack(void *inst, void *priv, const struct uet_pds_cc_ack *a,
	   uint64_t now)
{
	(void)inst;
	(void)priv;
	(void)now;
	rec.acks++;
	rec.ack_bytes += a->bytes;
	rec.last_rtt = a->rtt_ns;
	rec.last_has_state = a->has_state;
	if (a->has_state) {
		rec.last_rcvd = a->rcvd_bytes;
		rec.last_ooo = a->ooo_count;
	}
}

static void
rec_on_trim(void *inst, void *priv, uint32_t bytes, bool lasthop,
	    uint64_t now)
{
	(void)inst;
	(void)priv;
	(void)lasthop;
	(void)now;
	rec.trims++;
	rec.trim_bytes += bytes;
}

static void
rec_on_loss(void *inst, void *priv, uint32_t bytes, uint64_t now)
{
	(void)inst;
	(void)priv;
	(void)now;
	rec.losses++;
	rec.loss_bytes += bytes;
}

static void
rec_fini(void *inst, void *priv, uint32_t inflight)
{
	(void)inst;
	(void)priv;
	rec.finis++;
	rec.fini_bytes += inflight;
}

static struct uet_pds_cc_ops rec_ops;

static void
rec_cc(struct uet_pds_config *cfg)
{
	rec_ops = uet_pds_cc_fixed;
	rec_ops.name = "test-record";
	rec_ops.on_send = rec_on_send;
	rec_ops.on_ack = rec_on_ack;
	rec_ops.on_trim = rec_on_trim;
	rec_ops.on_loss = rec_on_loss;
	rec_ops.fini = rec_fini;
	rec_ops.may_send = rec_may_send;
	cfg->cc = &rec_ops;
}

/* The recording CC, and every ACK an ACK_CC. */
static void
rec_cc_ack_cc(struct uet_pds_config *cfg)
{
	rec_cc(cfg);
	cfg->ack_cc_always = true;
	cfg->ack_threshold = 1; /* an ACK per request */
}

static int
setup_rec_ack_cc(void **state)
{
	(void)state;
	memset(&rec, 0, sizeof(rec));
	return fakewire_setup_with(7, rec_cc_ack_cc);
}

static int
setup_rec(void **state)
{
	(void)state;
	memset(&rec, 0, sizeof(rec));
	return fakewire_setup_with(3, rec_cc);
}

/* ---- uet_pds_cc_cms on both sides ---- */

static struct uet_pds_cc_cms_config cms;

static void
cms_cc(struct uet_pds_config *cfg)
{
	cfg->cc = &uet_pds_cc_cms;
	cfg->cc_arg = &cms;
}

static int
setup_nscc(void **state)
{
	(void)state;
	assert_int_equal(uet_pds_cc_cms_config_default(&cms, true, false,
						       100000, 10000, 1024,
						       true), 0);
	return fakewire_setup_with(4, cms_cc);
}

static int
setup_rccc(void **state)
{
	(void)state;
	assert_int_equal(uet_pds_cc_cms_config_default(&cms, false, true,
						       100000, 10000, 1024,
						       true), 0);
	/* speculative credit for 3 packets: a backlog of 40 asks for more */
	cms.spec_credit = 3 * (1024 + OVH);
	return fakewire_setup_with(5, cms_cc);
}

/* The pacer's test: speculative credit for about 10 of the test's small
 * packets, and a catch-up of one quantum, so that the backlog of 40
 * (about 30 x 100 nominal bytes) outlasts the catch-up. */
static int
setup_rccc_paced(void **state)
{
	(void)state;
	assert_int_equal(uet_pds_cc_cms_config_default(&cms, false, true,
						       100000, 10000, 1024,
						       true), 0);
	cms.spec_credit = 1024 + OVH;
	cms.pacer.burst = cms.pacer.quantum;
	return fakewire_setup_with(5, cms_cc);
}

static uint16_t
len_of(uint64_t cookie)
{
	uint8_t buf[FW_PAYLOAD_MAX];

	return fakewire_payload(cookie, buf);
}

/* Nominal bytes of a request: SES length + UDP, RUD_REQ header and 40. */
static void
pds_initiator_emit__on_send_gets_nominal_bytes(void **state)
{
	struct uet_pds_tx t[4];

	(void)state;
	assert_int_equal(OVH, 8 + UET_PDS_REQ_LEN + 40);
	assert_int_equal(fakewire_submit(&W, UET_PDS_MODE_RUD, 0, 0), 0);
	assert_int_equal(fakewire_submit(&W, UET_PDS_MODE_RUD, 1, 0), 0);
	assert_int_equal(fakewire_take(&W, 0, t, 4), 2);
	assert_int_equal(t[0].len, len_of(0));
	assert_int_equal(rec.sends, 2);
	assert_int_equal(rec.send_bytes, len_of(0) + len_of(1) + 2 * OVH);
}

/* UEC 1.0 section 3.6.13.1 calculate_rtt(): an RTT sample from a packet
 * sent once (ACK without RETX) or resent once (ACK echoing RETX, timed
 * from the resend), none after a second resend. Without the second case
 * a window of one MTU resending a backlog never grew again (the stall
 * under 1 % loss). Trims report the nominal bytes. */
static void
pds_ack_cc__rtt_for_sent_once_or_resent_once(void **state)
{
	struct uet_pds_tx t, ack, nack;

	(void)state;
	W.now = 1000;
	assert_int_equal(fakewire_submit(&W, UET_PDS_MODE_RUD, 0, 0), 0);
	assert_int_equal(fakewire_take(&W, 0, &t, 1), 1);
	W.now = 1500;
	fakewire_inject(&W, 1, &t, false, false);
	assert_true(fakewire_take_type(&W, 1, UET_PDS_TYPE_ACK, &ack));
	W.now = 4000;
	fakewire_inject(&W, 0, &ack, false, false);
	assert_int_equal(rec.acks, 1);
	assert_int_equal(rec.last_rtt, 3000); /* plain ACK: no service time */
	assert_false(rec.last_has_state);
	assert_int_equal(rec.ack_bytes, len_of(0) + OVH);

	/* Trimmed once, resent, then acknowledged with RETX: a sample of
	 * the resend. */
	assert_int_equal(fakewire_submit(&W, UET_PDS_MODE_RUD, 1, 0), 0);
	W.now = 5000;
	assert_int_equal(fakewire_take(&W, 0, &t, 1), 1);
	fakewire_inject(&W, 1, &t, true, false);
	assert_true(fakewire_take_type(&W, 1, UET_PDS_TYPE_NACK, &nack));
	assert_int_equal(nack.hdr.u.nack.code, UET_NACK_TRIMMED);
	fakewire_inject(&W, 0, &nack, false, false);
	assert_int_equal(rec.trims, 1);
	assert_int_equal(rec.trim_bytes, len_of(1) + OVH);
	W.now = 6000;
	assert_int_equal(fakewire_take(&W, 0, &t, 1), 1);
	assert_true(t.hdr.flags & UET_PDS_F_RETX);
	assert_int_equal(rec.sends, 3);
	assert_int_equal(rec.last_send, len_of(1) + OVH);
	fakewire_inject(&W, 1, &t, false, false);
	assert_true(fakewire_take_type(&W, 1, UET_PDS_TYPE_ACK, &ack));
	assert_true(ack.hdr.flags & UET_PDS_F_RETX);
	W.now = 9000;
	fakewire_inject(&W, 0, &ack, false, false);
	assert_int_equal(rec.acks, 2);
	assert_int_equal(rec.last_rtt, 3000);

	/* Trimmed twice, resent twice: which copy the ACK answers is
	 * unknown, no sample. */
	assert_int_equal(fakewire_submit(&W, UET_PDS_MODE_RUD, 2, 0), 0);
	W.now = 10000;
	assert_int_equal(fakewire_take(&W, 0, &t, 1), 1);
	fakewire_inject(&W, 1, &t, true, false);
	assert_true(fakewire_take_type(&W, 1, UET_PDS_TYPE_NACK, &nack));
	fakewire_inject(&W, 0, &nack, false, false);
	W.now = 11000;
	assert_int_equal(fakewire_take(&W, 0, &t, 1), 1);
	fakewire_inject(&W, 1, &t, true, false);
	assert_true(fakewire_take_type(&W, 1, UET_PDS_TYPE_NACK, &nack));
	fakewire_inject(&W, 0, &nack, false, false);
	assert_int_equal(rec.trims, 3);
	W.now = 12000;
	assert_int_equal(fakewire_take(&W, 0, &t, 1), 1);
	assert_true(t.hdr.flags & UET_PDS_F_RETX);
	fakewire_inject(&W, 1, &t, false, false);
	assert_true(fakewire_take_type(&W, 1, UET_PDS_TYPE_ACK, &ack));
	W.now = 15000;
	fakewire_inject(&W, 0, &ack, false, false);
	assert_int_equal(rec.acks, 3);
	assert_int_equal(rec.last_rtt, 0);
}

/* UEC 1.0 section 3.6.13.9: an ACK_CC's rcvd_bytes is the cumulative
 * nominal bytes of the PDC, in 256 B units rounded up, whatever CC the
 * target runs (here the recording one, which keeps no receiver state);
 * it was a per-ACK delta, which an NSCC sender took as the cumulative
 * count (66x slower against a default target). ooo_count: packets held
 * beyond the cumulative ACK. */
static void
pds_target_ack__rcvd_bytes_cumulative_whatever_the_cc(void **state)
{
	struct uet_pds_tx t[3], ack;
	uint32_t nominal = 0;
	int k;

	(void)state;
	W.now = 1000;
	for (k = 0; k < 3; k++) {
		assert_int_equal(fakewire_submit(&W, UET_PDS_MODE_RUD, (uint64_t)k,
					   0), 0);
	}
	assert_int_equal(fakewire_take(&W, 0, t, 3), 3);
	for (k = 0; k < 3; k++) {
		W.now += 1000;
		/* 0, then 2 (a hole at 1), then 1 */
		fakewire_inject(&W, 1, &t[k == 0 ? 0 : 3 - k], false, false);
		nominal += len_of((uint64_t)(k == 0 ? 0 : 3 - k)) + OVH;
		assert_true(fakewire_take_type(&W, 1, UET_PDS_TYPE_ACK_CC, &ack));
		fakewire_inject(&W, 0, &ack, false, false);
		assert_true(rec.last_has_state);
		assert_int_equal(rec.last_rcvd, (nominal + 255) / 256);
		assert_int_equal(rec.last_ooo, k == 1 ? 1 : 0);
	}
	assert_int_equal(rec.acks, 3);
}

/* An ACK_REQ CP naming @p psn of the PDC that @p req opened and @p ack
 * answered (UEC 1.0 PDS control packets). */
static struct uet_pds_tx
ack_req_cp(const struct uet_pds_tx *req, const struct uet_pds_tx *ack,
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
 * The answer to an ACK_REQ names the PSN asked about (ACK_PSN), whose
 * arrival the target does not keep when a later packet came since: its
 * service time saturates and the sender takes no RTT sample. It used the
 * last new packet's arrival: here packet 0 arrived 1 us after it left,
 * 1 and 2 arrived 199 us later, and the ACK_REQ for 0 50 us after that
 * gave 0 an RTT of 200 us. Asked about 2, the packet whose arrival it
 * keeps, the target gives its service time and the sender a sample.
 */
static void
pds_target_ack_req__older_psn_no_rtt_sample(void **state)
{
	struct uet_pds_tx t[4], ack, cp;
	int k;

	(void)state;
	W.now = 1000;
	for (k = 0; k < 4; k++)
		assert_int_equal(fakewire_submit(&W, UET_PDS_MODE_RUD,
						 (uint64_t)k, 0), 0);
	assert_int_equal(fakewire_take(&W, 0, t, 4), 4);
	W.now = 2000;
	fakewire_inject(&W, 1, &t[0], false, false);
	assert_true(fakewire_take_type(&W, 1, UET_PDS_TYPE_ACK_CC, &ack));
	W.now = 200000;
	for (k = 1; k < 3; k++) {
		fakewire_inject(&W, 1, &t[k], false, false);
		assert_true(fakewire_take_type(&W, 1, UET_PDS_TYPE_ACK_CC,
					       &ack));
	}
	/* the ACKs were lost: 0 to 3 are in flight at the sender */
	W.now = 250000;
	cp = ack_req_cp(&t[0], &ack, t[0].hdr.u.req.psn);
	fakewire_inject(&W, 1, &cp, false, false);
	assert_true(fakewire_take_type(&W, 1, UET_PDS_TYPE_ACK_CC, &ack));
	assert_int_equal(uet_wire_pds_ack_psn(&ack.hdr.u.ack),
			 t[0].hdr.u.req.psn);
	assert_int_equal(ack.hdr.u.ack.cc_type, UET_CC_TYPE_NSCC);
	assert_int_equal(ack.hdr.u.ack.cc.nscc.service_time, 0xFFFF);
	W.now = 251000;
	fakewire_inject(&W, 0, &ack, false, false);
	assert_int_equal(rec.acks, 1);
	assert_int_equal(rec.last_rtt, 0);
	assert_int_equal(fakewire_st(0)->rtt_samples, 0);

	/* 3 arrives; asked about 3, the ACK times it from its arrival */
	fakewire_inject(&W, 1, &t[3], false, false);
	assert_true(fakewire_take_type(&W, 1, UET_PDS_TYPE_ACK_CC, &ack));
	W.now = 251000 + 10 * UET_NSCC_SERVICE_UNIT_NS;
	cp = ack_req_cp(&t[0], &ack, t[3].hdr.u.req.psn);
	fakewire_inject(&W, 1, &cp, false, false);
	assert_true(fakewire_take_type(&W, 1, UET_PDS_TYPE_ACK_CC, &ack));
	assert_int_equal(uet_wire_pds_ack_psn(&ack.hdr.u.ack),
			 t[3].hdr.u.req.psn);
	assert_int_equal(ack.hdr.u.ack.cc.nscc.service_time, 10);
	W.now += 500;
	fakewire_inject(&W, 0, &ack, false, false);
	assert_int_equal(rec.acks, 2);
	/* sent at 1000, arrived at 251000, answered 1280 ns later and back
	 * 500 ns after that: 250 000 + 500 ns of network */
	assert_int_equal(rec.last_rtt, 250500);
	assert_int_equal(fakewire_st(0)->rtt_samples, 1);
}

/*
 * The 1 %-loss stall: resends marked (here by trims) wait behind a CC
 * gate that packets in flight hold shut, their ACKs never coming. An RTO
 * resends one packet, the one sent longest ago (12, as 10 and 11 are
 * marked already); that alone leaves the gate shut by 13-15 and the RTO
 * would fire until the PDC failed. It also presumes lost every packet in
 * flight for RTO_INIT, which releases the window.
 */
static void
pds_initiator_rto__unblocks_resends_behind_a_shut_gate(void **state)
{
	struct uet_pds_tx t[6], nack;
	uint64_t d;
	int k;

	(void)state;
	W.now = 1000;
	for (k = 0; k < 6; k++)
		assert_int_equal(fakewire_submit(&W, UET_PDS_MODE_RUD,
					   (uint64_t)k + 10, 0), 0);
	assert_int_equal(fakewire_take(&W, 0, t, 6), 6);
	rec.gate_shut = true;
	/* 10 and 11 trimmed (NACKed, marked); 12 to 15 lost. */
	for (k = 0; k < 2; k++) {
		fakewire_inject(&W, 1, &t[k], true, false);
		assert_true(fakewire_take_type(&W, 1, UET_PDS_TYPE_NACK, &nack));
		fakewire_inject(&W, 0, &nack, false, false);
	}
	assert_int_equal(rec.trims, 2);
	assert_int_equal(fakewire_take(&W, 0, t, 6), 0); /* the gate holds them */
	d = uet_pds_next_deadline(W.pds[0]);
	while (fakewire_st(0)->rto_fires == 0 && d != UINT64_MAX) {
		W.now = d;
		uet_pds_advance(W.pds[0], W.now);
		d = uet_pds_next_deadline(W.pds[0]);
	}
	assert_int_equal(fakewire_st(0)->rto_fires, 1);
	assert_int_equal(fakewire_st(0)->rto_unblock, 1);
	/* 12 to 15 presumed lost (the tail-loss probe may have taken 15
	 * already): their bytes left the CC's inflight. */
	assert_int_equal(rec.loss_bytes, len_of(12) + len_of(13) + len_of(14) +
					 len_of(15) + 4 * OVH);
	rec.gate_shut = false;
	assert_int_equal(fakewire_take(&W, 0, t, 6), 6); /* all six resent */
	for (k = 0; k < 6; k++)
		assert_true(t[k].hdr.flags & UET_PDS_F_RETX);
}

/* A retransmission timeout reports the bytes it presumes lost. */
static void
pds_initiator_rto__on_loss_gets_lost_bytes(void **state)
{
	struct uet_pds_tx t[2];
	uint64_t d;

	(void)state;
	W.now = 1000;
	assert_int_equal(fakewire_submit(&W, UET_PDS_MODE_RUD, 2, 0), 0);
	assert_int_equal(fakewire_submit(&W, UET_PDS_MODE_RUD, 3, 0), 0);
	assert_int_equal(fakewire_take(&W, 0, t, 2), 2); /* both lost */
	d = uet_pds_next_deadline(W.pds[0]);
	while (fakewire_st(0)->rto_fires == 0 && d != UINT64_MAX) {
		W.now = d;
		uet_pds_advance(W.pds[0], W.now);
		d = uet_pds_next_deadline(W.pds[0]);
	}
	assert_int_equal(fakewire_st(0)->rto_fires, 1);
	/* Two losses reported, each with its own packet's bytes: the
	 * tail-loss probe of a SYN-state PDC (no dpdcid for a CP to name)
	 * resends the tail, presumed lost; the first RTO then presumes the
	 * head lost (the rest waits for the next ACK, F-RTO). */
	assert_int_equal(fakewire_st(0)->tlp_fires, 1);
	assert_int_equal(rec.losses, 2);
	assert_int_equal(rec.loss_bytes, len_of(2) + len_of(3) + 2 * OVH);
}

static int
first_cb(const struct uet_pds_pdc_info *info, void *arg)
{
	*(uint32_t *)arg = info->handle;
	return 1;
}

/* Handle of the first PDC of side @p side. */
static uint32_t
first_pdc(int side)
{
	uint32_t h = UINT32_MAX;

	(void)uet_pds_pdc_foreach(W.pds[side], first_cb, &h);
	return h;
}

/* uet_pds_cc_cms at the receiver: every ACK is an ACK_CC with the NSCC
 * state of UEC 1.0 3.6.13, rcvd_bytes counting nominal bytes (rounded up
 * to 256), service_time from the ACK_PSN packet's arrival in 128 ns units,
 * ooo_count the packets received beyond the cumulative ACK (none once 1
 * filled the hole). */
static void
pds_target_ack__ack_cc_state_from_the_receiver(void **state)
{
	struct uet_pds_tx t[3], ack;
	uint32_t nominal = 0;
	int k;

	(void)state;
	W.now = 1000;
	for (k = 0; k < 3; k++) {
		assert_int_equal(fakewire_submit(&W, UET_PDS_MODE_RUD, (uint64_t)k,
					   0), 0);
		nominal += len_of((uint64_t)k) + OVH;
	}
	assert_int_equal(fakewire_take(&W, 0, t, 3), 3);
	W.now = 2000;
	/* 0, then 2 (out of order), then 1 */
	fakewire_inject(&W, 1, &t[0], false, false);
	fakewire_inject(&W, 1, &t[2], false, false);
	fakewire_inject(&W, 1, &t[1], false, false);
	W.now = 2000 + 10 * UET_NSCC_SERVICE_UNIT_NS + 50;
	assert_true(fakewire_take_type(&W, 1, UET_PDS_TYPE_ACK_CC, &ack));
	assert_int_equal(ack.hdr.u.ack.cc_type, UET_CC_TYPE_NSCC);
	assert_int_equal(ack.hdr.u.ack.cc.nscc.rcvd_bytes,
			 (nominal + 255) / 256);
	assert_int_equal(ack.hdr.u.ack.cc.nscc.service_time, 10);
	assert_int_equal(ack.hdr.u.ack.cc.nscc.ooo_count, 0);
	assert_int_equal(ack.hdr.u.ack.cc.nscc.rcv_cwnd_pend, 0);
	assert_false(ack.hdr.u.ack.cc.nscc.rc);
	/* The sender's NSCC takes rcvd_bytes: its inflight is back to the
	 * rounding (< 256 B). */
	fakewire_inject(&W, 0, &ack, false, false);
	{
		struct uet_pds_cc_info ci;

		assert_int_equal(uet_pds_cc_info_get(W.pds[0], first_pdc(0),
						     &ci), 0);
		assert_true(ci.inflight <= 0 && ci.inflight > -256);
		/* the sample (1050 ns) lowered base_rtt, and max_wnd with it */
		assert_true(ci.base_rtt_ns < 10000);
		assert_int_equal(ci.max_wnd, ci.cwnd);
	}
}

/* A refusal of the receiver's SES is reported as rcv_cwnd_pend in its
 * ACK_CCs until it accepts a request again, which the next ACK_CC
 * announces with rc (UEC 1.0 NSCC receiver penalty). */
static void
pds_target_refuse__reported_as_rcv_cwnd_pend(void **state)
{
	struct uet_pds_tx t[2], nack, ack;
	struct uet_pds_cc_stats st;

	(void)state;
	W.now = 1000;
	assert_int_equal(fakewire_submit(&W, UET_PDS_MODE_RUD, 0, 0), 0);
	assert_int_equal(fakewire_submit(&W, UET_PDS_MODE_RUD, 1, 0), 0);
	assert_int_equal(fakewire_take(&W, 0, t, 2), 2);
	fakewire_inject(&W, 1, &t[0], false, false);
	assert_true(fakewire_take_type(&W, 1, UET_PDS_TYPE_ACK_CC, &ack));
	assert_int_equal(ack.hdr.u.ack.cc.nscc.rcv_cwnd_pend, 0);
	/* the SES refuses the second */
	W.refuse_left = 1;
	W.refuse_code = UET_NACK_NO_RESOURCE;
	fakewire_inject(&W, 1, &t[1], false, false);
	assert_int_equal(W.refusals, 1);
	assert_true(fakewire_take_type(&W, 1, UET_PDS_TYPE_NACK, &nack));
	uet_pds_cc_stats_get(W.pds[1], &st);
	assert_int_equal(st.overload, 1);
	/* a duplicate of the first is re-ACKed: the penalty shows */
	fakewire_inject(&W, 1, &t[0], false, false);
	assert_true(fakewire_take_type(&W, 1, UET_PDS_TYPE_ACK_CC, &ack));
	assert_int_equal(ack.hdr.u.ack.cc.nscc.rcv_cwnd_pend, 64);
	assert_false(ack.hdr.u.ack.cc.nscc.rc);
	/* the resent second is accepted: penalty lifted, rc owed once */
	t[1].hdr.flags |= UET_PDS_F_RETX;
	fakewire_inject(&W, 1, &t[1], false, false);
	assert_true(fakewire_take_type(&W, 1, UET_PDS_TYPE_ACK_CC, &ack));
	assert_int_equal(ack.hdr.u.ack.cc.nscc.rcv_cwnd_pend, 0);
	assert_true(ack.hdr.u.ack.cc.nscc.rc);
	fakewire_inject(&W, 1, &t[0], false, false);
	assert_true(fakewire_take_type(&W, 1, UET_PDS_TYPE_ACK_CC, &ack));
	assert_false(ack.hdr.u.ack.cc.nscc.rc);
}

static uint64_t
advance_to_deadline(int side)
{
	uint64_t d = uet_pds_next_deadline(W.pds[side]);

	if (d != UINT64_MAX && d > W.now)
		W.now = d;
	uet_pds_advance(W.pds[side], W.now);
	return d;
}

/* UEC 1.0 RCCC: a credit request wakes the receiver's pull pacer; its
 * grant is due at uet_pds_next_deadline() and leaves in an ACK_CC of
 * cc_type CREDIT (the cumulative credit granted), one quantum at a time; with no request there is no
 * pacer deadline. */
static void
pds_cc_grants__pacer_deadline_and_credit_ack(void **state)
{
	struct uet_pds_tx t[64], ack;
	struct uet_pds_cc_stats st;
	uint64_t t0, ps, g;
	int64_t credit;
	uint16_t n;
	int k;

	(void)state;
	W.now = 1000;
	assert_int_equal(uet_pds_next_deadline(W.pds[1]), UINT64_MAX);
	for (k = 0; k < 40; k++)
		assert_int_equal(fakewire_submit(&W, UET_PDS_MODE_RUD, (uint64_t)k,
					   0), 0);
	n = fakewire_take(&W, 0, t, 64);
	/* packets go while any speculative credit is left (htsim's
	 * can_send_RCCC()), the last on less than its nominal bytes */
	for (k = 0, credit = cms.spec_credit; credit > 0; k++)
		credit -= len_of((uint64_t)k) + OVH;
	assert_int_equal(n, k);
	/* a backlog: requests carry credit_target */
	assert_int_equal(t[0].hdr.type, UET_PDS_TYPE_RUD_CC_REQ);
	assert_true(t[0].hdr.u.req.credit_target > 0);
	fakewire_inject(&W, 1, &t[0], false, false);
	/* the first ACK (PDC established) goes at once, without credit */
	(void)fakewire_take(&W, 1, t, 64);
	assert_true(uet_pds_next_deadline(W.pds[1]) != UINT64_MAX);
	(void)advance_to_deadline(1);
	assert_true(fakewire_take_type(&W, 1, UET_PDS_TYPE_ACK_CC, &ack));
	assert_int_equal(ack.hdr.u.ack.cc_type, UET_CC_TYPE_CREDIT);
	uet_pds_cc_stats_get(W.pds[1], &st);
	/* the pacer was idle: it catches up at most its burst, in grants
	 * of the source's packet (at least a unit); the ACK_CC carries the
	 * total in whole units, rounded down */
	assert_true(st.grants >= 1 &&
		    st.grant_bytes <= cms.pacer.burst + cms.pacer.quantum);
	assert_true(st.grant_bytes / st.grants >= UET_RCCC_UNIT &&
		    st.grant_bytes / st.grants < cms.pacer.quantum);
	assert_int_equal(uet_rccc_bytes(ack.hdr.u.ack.cc.credit.credit),
			 st.grant_bytes & ~(uint64_t)(UET_RCCC_UNIT - 1));
	assert_true(st.credit_req >= 1);
	fakewire_inject(&W, 0, &ack, false, false);
	assert_int_equal(fakewire_st(0)->credit_rx, 1);
	/* then one grant (the source's packet) per its wire size (its
	 * share of the framing, frame_ppm) / (0.99 x 100 Gb/s), on
	 * whole-ns deadlines */
	assert_true(cms.pacer.frame_ppm > 0);
	(void)advance_to_deadline(1); /* the end of the catch-up */
	assert_true(fakewire_take_type(&W, 1, UET_PDS_TYPE_ACK_CC, &ack));
	uet_pds_cc_stats_get(W.pds[1], &st);
	g = st.grant_bytes;
	t0 = W.now;
	(void)advance_to_deadline(1);
	uet_pds_cc_stats_get(W.pds[1], &st);
	g = st.grant_bytes - g;
	assert_true(g >= UET_RCCC_UNIT && g < cms.pacer.quantum);
	ps = (g + ((uint64_t)cms.pacer.frame_ppm * g + 999999) / 1000000) *
	     8000000000ull / (100000ull * 990);
	assert_true((W.now - t0) * 1000 + 1000 > ps &&
		    (W.now - t0) * 1000 < ps + 1000);
	assert_true(fakewire_take_type(&W, 1, UET_PDS_TYPE_ACK_CC, &ack));
	/* the credit field is the cumulative grant (htsim's pull number),
	 * in whole units rounded down */
	assert_int_equal(uet_rccc_bytes(ack.hdr.u.ack.cc.credit.credit),
			 st.grant_bytes & ~(uint64_t)(UET_RCCC_UNIT - 1));
}

/* The speculative start of a source reaches the receiver, ECN-marked
 * (it met a queue) or not: the bytes the pacer charged, every byte
 * beyond its grants (the first packet's request woke the pacer, which
 * caught up a grant) when marked (uet_rccc_pacer_arrival()), none
 * unmarked. @p sent: the burst's nominal bytes less those grants. */
static uint64_t
speculative_start_charged(bool ce, uint64_t *sent)
{
	struct uet_pds_tx t[64];
	struct uet_pds_cc_stats st;
	uint16_t n, k;

	W.now = 1000;
	for (k = 0; k < 40; k++)
		assert_int_equal(fakewire_submit(&W, UET_PDS_MODE_RUD,
						 (uint64_t)k, 0), 0);
	n = fakewire_take(&W, 0, t, 64);
	assert_true(n >= 1);
	*sent = 0;
	for (k = 0; k < n; k++) {
		*sent += len_of((uint64_t)k) + OVH;
		fakewire_inject(&W, 1, &t[k], false, ce);
	}
	/* the next call commits the last delivery */
	(void)fakewire_take(&W, 1, t, 64);
	uet_pds_cc_stats_get(W.pds[1], &st);
	assert_true(st.grant_bytes < *sent);
	*sent -= st.grant_bytes;
	return st.charged_bytes;
}

static void
pds_cc_grants__marked_speculative_data_charged(void **state)
{
	uint64_t sent, charged;

	(void)state;
	charged = speculative_start_charged(true, &sent);
	assert_true(sent > 0);
	assert_int_equal(charged, sent);
}

static void
pds_cc_grants__unmarked_speculative_data_free(void **state)
{
	uint64_t sent, charged;

	(void)state;
	charged = speculative_start_charged(false, &sent);
	assert_true(sent > 0);
	assert_int_equal(charged, 0);
}

/* UEC 1.0 RCCC: a source out of credit with data queued asks with a
 * CREDIT_REQ CP; the receiver's pacer answers in CREDIT CPs (it has no
 * data to acknowledge). The CREDIT CP was never sent: grants waited for
 * an ACK_CC. */
static void
pds_target_credit_grant__credit_cp_answers_credit_req(void **state)
{
	struct uet_pds_tx t[64], cp;
	uint16_t n, k, i;
	bool req = false;

	(void)state;
	W.now = 1000;
	for (k = 0; k < 40; k++)
		assert_int_equal(fakewire_submit(&W, UET_PDS_MODE_RUD, (uint64_t)k,
					   0), 0);
	n = fakewire_take(&W, 0, t, 64);
	assert_true(n > 0 && n < 40);
	/* The speculative packets arrive; their ACKs end speculation. */
	for (k = 0; k < n; k++)
		fakewire_inject(&W, 1, &t[k], false, false);
	W.now += 2000;
	n = fakewire_take(&W, 1, t, 64);
	for (k = 0; k < n; k++)
		if (t[k].hdr.type != UET_PDS_TYPE_CP)
			fakewire_inject(&W, 0, &t[k], false, false);
	/* Out of credit, data queued: a CREDIT_REQ CP. */
	for (i = 0; i < 8 && !req; i++) {
		W.now += 1000;
		uet_pds_advance(W.pds[0], W.now);
		n = fakewire_take(&W, 0, t, 64);
		for (k = 0; k < n; k++) {
			if (t[k].hdr.type == UET_PDS_TYPE_CP &&
			    t[k].hdr.next_hdr == UET_PDS_CTL_CREDIT_REQ) {
				req = true;
				fakewire_inject(&W, 1, &t[k], false, false);
			}
		}
	}
	assert_true(req);
	(void)advance_to_deadline(1);
	assert_true(fakewire_take_type(&W, 1, UET_PDS_TYPE_CP, &cp));
	assert_int_equal(cp.hdr.next_hdr, UET_PDS_CTL_CREDIT);
	assert_true(cp.hdr.u.cp.payload > 0);
	assert_true(fakewire_st(1)->credit_cp_tx >= 1);
	k = (uint16_t)fakewire_st(0)->credit_rx;
	fakewire_inject(&W, 0, &cp, false, false);
	assert_int_equal(fakewire_st(0)->credit_rx, k + 1u);
	/* With credit the source sends again. */
	assert_true(fakewire_take(&W, 0, t, 64) > 0);
}

/* CREDIT_REQ CPs among @p n frames of side 0. */
static unsigned int
count_credit_req(const struct uet_pds_tx *t, uint16_t n)
{
	unsigned int r = 0;
	uint16_t k;

	for (k = 0; k < n; k++)
		r += t[k].hdr.type == UET_PDS_TYPE_CP &&
		     t[k].hdr.next_hdr == UET_PDS_CTL_CREDIT_REQ;
	return r;
}

/*
 * pds_initiator_credit_req__asks_again_after_a_timer: a source blocked
 * for credit whose CREDIT_REQ (or its grant) was lost - a failed link on
 * its path - asks again once its tail-loss or retransmission timer
 * fires. It kept PDC_F_CREQ until credit came, and a resend carrying the
 * same target suppressed the CP: the source waited out doubling RTOs,
 * one forced packet each (perm-reps-fail RCCC, 21x the ideal).
 */
static void
pds_initiator_credit_req__asks_again_after_a_timer(void **state)
{
	struct uet_pds_tx t[64];
	unsigned int req = 0;
	uint16_t n, k, i;

	(void)state;
	W.now = 1000;
	for (k = 0; k < 40; k++)
		assert_int_equal(fakewire_submit(&W, UET_PDS_MODE_RUD,
						 (uint64_t)k, 0), 0);
	n = fakewire_take(&W, 0, t, 64);
	for (k = 0; k < n; k++)
		fakewire_inject(&W, 1, &t[k], false, false);
	W.now += 2000;
	n = fakewire_take(&W, 1, t, 64);
	for (k = 0; k < n; k++)
		if (t[k].hdr.type != UET_PDS_TYPE_CP)
			fakewire_inject(&W, 0, &t[k], false, false);
	/* From here on nothing side 0 sends arrives. */
	for (i = 0; i < 8 && req == 0; i++) {
		W.now += 1000;
		uet_pds_advance(W.pds[0], W.now);
		req += count_credit_req(t, fakewire_take(&W, 0, t, 64));
	}
	assert_int_equal(req, 1);
	/* Before any timer: asked once, not again. */
	W.now += 1000;
	uet_pds_advance(W.pds[0], W.now);
	assert_int_equal(count_credit_req(t, fakewire_take(&W, 0, t, 64)), 0);
	/* The timers fire: the source asks again. */
	for (i = 0; i < 4 && req < 2; i++) {
		(void)advance_to_deadline(0);
		req += count_credit_req(t, fakewire_take(&W, 0, t, 64));
	}
	assert_int_equal(req, 2);
}

/* Data (not CP) frames among @p n frames. */
static unsigned int
count_data(const struct uet_pds_tx *t, uint16_t n)
{
	unsigned int r = 0;
	uint16_t k;

	for (k = 0; k < n; k++)
		r += t[k].hdr.type != UET_PDS_TYPE_CP;
	return r;
}

/* Side 0 sends 40 requests on 3 packets of speculative credit; they
 * arrive and their ACKs end the speculation: nothing in flight, no
 * credit, 36 or so queued. */
static struct pds_pdc *
spec_round_acked(void)
{
	struct uet_pds_tx t[64];
	struct pds_pdc *c;
	uint16_t n, k;
	uint32_t h;

	W.now = 1000;
	for (k = 0; k < 40; k++)
		assert_int_equal(fakewire_submit(&W, UET_PDS_MODE_RUD,
						 (uint64_t)k, 0), 0);
	n = fakewire_take(&W, 0, t, 64);
	assert_true(n > 0 && n < 40);
	for (k = 0; k < n; k++)
		fakewire_inject(&W, 1, &t[k], false, false);
	W.now += 2000;
	n = fakewire_take(&W, 1, t, 64);
	for (k = 0; k < n; k++)
		if (t[k].hdr.type != UET_PDS_TYPE_CP)
			fakewire_inject(&W, 0, &t[k], false, false);
	assert_int_equal(uet_pds_pdc_find(W.pds[0], &W.fa[1], 42, 1,
					  UET_PDS_MODE_RUD, &h), 0);
	c = pds_handle_pdc(W.pds[0], h);
	assert_int_equal(c->u.i.una, c->u.i.snd);
	assert_true(c->u.i.snd != c->u.i.nxt);
	return c;
}

/*
 * UEC 1.0 RCCC (htsim's isSendPermitted()): no packet goes without
 * credit, even with nothing in flight; the blocked PDC asks with a
 * CREDIT_REQ CP instead. The PDS let one packet go whenever a PDC had
 * nothing in flight: 25 % of the packets of a 31:1 incast and 93 % at
 * 63:1 went that way, and the last hop's queue stood at 0.5-0.95 BDP.
 */
static void
pds_initiator_gate__no_packet_without_credit(void **state)
{
	struct uet_pds_tx t[64], cp;
	unsigned int data = 0, req = 0;
	uint16_t n, i;

	(void)state;
	(void)spec_round_acked();
	for (i = 0; i < 8; i++) {
		W.now += 1000;
		uet_pds_advance(W.pds[0], W.now);
		n = fakewire_take(&W, 0, t, 64);
		data += count_data(t, n);
		for (uint16_t k = 0; k < n; k++)
			if (count_credit_req(&t[k], 1) == 1) {
				req++;
				cp = t[k];
			}
	}
	assert_int_equal(data, 0);
	assert_int_equal(req, 1);
	/* The grant, in a CREDIT CP, lets data go again. */
	fakewire_inject(&W, 1, &cp, false, false);
	(void)advance_to_deadline(1);
	assert_true(fakewire_take_type(&W, 1, UET_PDS_TYPE_CP, &cp));
	assert_int_equal(cp.hdr.next_hdr, UET_PDS_CTL_CREDIT);
	fakewire_inject(&W, 0, &cp, false, false);
	assert_true(count_data(t, fakewire_take(&W, 0, t, 64)) > 0);
}

/*
 * NACK NEW_START_PSN refuses the PDC, not the bytes (pds_cc_cms.c
 * cc_refused): a speculative burst refused whole (a target in its quiet
 * time) goes again at once under the Start_PSN named, on the credit it
 * spent, still speculating. It waited for credit before: one packet
 * (the window rule with nothing in flight), then a credit round trip.
 */
static void
pds_cc_cms__refused_burst_keeps_speculative_credit(void **state)
{
	struct uet_pds_tx t[64], nk;
	uint32_t named;
	uint16_t n, m, k;

	(void)state;
	W.now = 1000;
	for (k = 0; k < 40; k++)
		assert_int_equal(fakewire_submit(&W, UET_PDS_MODE_RUD,
						 (uint64_t)k, 0), 0);
	n = fakewire_take(&W, 0, t, 64);
	assert_true(n > 1 && n < 40);
	named = t[0].hdr.u.req.psn + 0x100000u;
	for (k = 0; k < n; k++) {
		memset(&nk, 0, sizeof(nk));
		nk.kind = UET_PDS_TX_CTL;
		nk.hdr.type = UET_PDS_TYPE_NACK;
		nk.hdr.u.nack.code = UET_NACK_NEW_START_PSN;
		nk.hdr.u.nack.psn = t[k].hdr.u.req.psn;
		nk.hdr.u.nack.dpdcid = t[k].hdr.u.req.spdcid;
		nk.hdr.u.nack.payload = named;
		fakewire_inject(&W, 0, &nk, false, false);
	}
	assert_int_equal(fakewire_st(0)->new_start, 1);
	uet_pds_advance(W.pds[0], W.now);
	m = fakewire_take(&W, 0, t, 64);
	assert_int_equal(count_data(t, m), n);
	assert_int_equal(t[0].hdr.u.req.psn, named);
	assert_int_equal(t[0].kind, UET_PDS_TX_NEW);
	assert_int_equal(count_credit_req(t, m), 0);
}

/*
 * A PDC not established yet whose speculative packets were all trimmed
 * has no credit loop: a CP needs the dpdcid, and the target keeps nothing
 * of a trimmed SYN. Its resend is its credit request, and goes with
 * nothing in flight, one at a time. Held back for credit like the others
 * it deadlocked: 17 of the 31 sources of a 31:1 incast stopped at once.
 */
static void
pds_initiator_gate__syn_trimmed_resends_one(void **state)
{
	struct uet_pds_tx t[64], nk[64];
	uint16_t n, m, k, i;

	(void)state;
	W.now = 1000;
	for (k = 0; k < 40; k++)
		assert_int_equal(fakewire_submit(&W, UET_PDS_MODE_RUD,
						 (uint64_t)k, 0), 0);
	n = fakewire_take(&W, 0, t, 64);
	assert_true(n > 0 && n < 40);
	for (k = 0; k < n; k++)
		fakewire_inject(&W, 1, &t[k], true, false);
	m = fakewire_take(&W, 1, nk, 64);
	assert_int_equal(m, n);
	for (k = 0; k < m; k++) {
		assert_int_equal(nk[k].hdr.type, UET_PDS_TYPE_NACK);
		fakewire_inject(&W, 0, &nk[k], false, false);
	}
	assert_int_equal(fakewire_st(0)->pdc_open_init, 1);
	for (i = 0, k = 0; i < 4; i++) {
		W.now += 1000;
		uet_pds_advance(W.pds[0], W.now);
		n = fakewire_take(&W, 0, t, 64);
		k += (uint16_t)count_data(t, n);
		assert_int_equal(count_credit_req(t, n), 0);
		if (n > 0)
			assert_int_equal(t[0].kind, UET_PDS_TX_RETX);
	}
	assert_int_equal(k, 1);
}

/*
 * A credit-blocked PDC with nothing in flight whose CREDIT_REQ (or the
 * CREDIT CPs answering it) was lost asks again after an RTO, the credit
 * probe (as htsim's source sends its RTS again from the RTO): no
 * ACK will come to a PDC that sent nothing, and it had no timer.
 */
static void
pds_initiator_credit_probe__asks_again_with_nothing_in_flight(void **state)
{
	struct uet_pds_tx t[64], cp;
	struct pds_pdc *c;
	uint64_t fires, d;
	uint16_t n, i;
	unsigned int req = 0;

	(void)state;
	c = spec_round_acked();
	for (i = 0; i < 4 && req == 0; i++) {
		W.now += 1000;
		uet_pds_advance(W.pds[0], W.now);
		n = fakewire_take(&W, 0, t, 64);
		assert_int_equal(count_data(t, n), 0);
		req += count_credit_req(t, n);
	}
	assert_int_equal(req, 1);
	/* Lost. The probe is due an RTO after it. */
	d = uet_pds_next_deadline(W.pds[0]);
	assert_int_equal(d, c->u.i.rto_base + W.pds[0]->cfg.rto_init_ns);
	fires = fakewire_st(0)->rto_fires;
	(void)advance_to_deadline(0);
	n = fakewire_take(&W, 0, t, 64);
	assert_int_equal(count_data(t, n), 0);
	assert_int_equal(count_credit_req(t, n), 1);
	assert_int_equal(fakewire_st(0)->rto_fires, fires + 1);
	/* This one arrives; the credit it brings lets data go. */
	for (i = 0; i < n; i++)
		if (count_credit_req(&t[i], 1) == 1)
			cp = t[i];
	fakewire_inject(&W, 1, &cp, false, false);
	(void)advance_to_deadline(1);
	assert_true(fakewire_take_type(&W, 1, UET_PDS_TYPE_CP, &cp));
	fakewire_inject(&W, 0, &cp, false, false);
	assert_int_equal(c->u.i.retries, 0);
	assert_true(count_data(t, fakewire_take(&W, 0, t, 64)) > 0);
}

/* NSCC contexts: one per {peer, traffic class}, shared and refcounted
 * by the PDCs; another job to the same peer shares it. */
static void
pds_cc_cms__context_shared_per_peer(void **state)
{
	struct uet_pds_tx t[4];
	struct uet_pds_cc_info a, b;
	struct uet_pds_cc_stats st;
	uint32_t ha, hb;
	struct uet_pds_fa fa = W.fa[1];
	int k;

	(void)state;
	assert_int_equal(fakewire_submit_job(&W, UET_PDS_MODE_RUD, 0, 0, 1), 0);
	assert_int_equal(fakewire_submit_job(&W, UET_PDS_MODE_RUD, 1, 0, 2), 0);
	assert_int_equal(fakewire_take(&W, 0, t, 4), 2);
	assert_int_equal(uet_pds_pdc_find(W.pds[0], &fa, 1, 1,
					  UET_PDS_MODE_RUD, &ha), 0);
	assert_int_equal(uet_pds_pdc_find(W.pds[0], &fa, 2, 1,
					  UET_PDS_MODE_RUD, &hb), 0);
	assert_int_equal(uet_pds_cc_info_get(W.pds[0], ha, &a), 0);
	assert_int_equal(uet_pds_cc_info_get(W.pds[0], hb, &b), 0);
	assert_int_equal(a.ctx, b.ctx);
	assert_int_equal(a.ctx_refs, 2);
	/* both packets are in the shared window */
	assert_int_equal(a.inflight, len_of(0) + len_of(1) + 2 * OVH);
	assert_int_equal(a.cwnd, cms.nscc_params.max_wnd);
	uet_pds_cc_stats_get(W.pds[0], &st);
	assert_int_equal(st.ctx_used, 1);
	assert_int_equal(st.ctx_overflow, 0);
	/* everything is lost until both PDCs fail: the context goes with
	 * the last of them */
	for (k = 0; k < 10000 && fakewire_st(0)->pdc_fail < 2; k++) {
		uint64_t d = uet_pds_next_deadline(W.pds[0]);

		if (d == UINT64_MAX)
			break;
		W.now = d > W.now ? d : W.now + 1;
		uet_pds_advance(W.pds[0], W.now);
		(void)fakewire_take(&W, 0, t, 4);
	}
	assert_int_equal(fakewire_st(0)->pdc_fail, 2);
	uet_pds_cc_stats_get(W.pds[0], &st);
	assert_int_equal(st.ctx_used, 0);
}

static int
setup_nscc_one_ctx(void **state)
{
	(void)state;
	assert_int_equal(uet_pds_cc_cms_config_default(&cms, true, false,
						       100000, 10000, 1024,
						       true), 0);
	cms.max_contexts = 1;
	return fakewire_setup_with(6, cms_cc);
}

/*
 * A shared NSCC context outlives many short PDCs: each takes exactly its
 * own share with it at fini. Each PDC here sends 1000 nominal bytes and
 * sees rcvd_bytes 4 (1024 B, the rounding up of UEC 1.0 3.6.13.9), so
 * without the settlement the context's inflight fell by 24 B per PDC
 * (-7200 B after 300) and its window let A send more than cwnd.
 */
static void
pds_cc_cms__fini_settles_the_pdc_share(void **state)
{
	struct uet_pds_cc_cms_config c;
	struct uet_pds_config cfg;
	struct uet_pds_cc_ack ack = { .has_state = true, .rcvd_bytes = 4 };
	struct uet_pds_cc_pdc pdc;
	uint64_t a[UET_PDS_CC_PRIV_MAX / 8], b[UET_PDS_CC_PRIV_MAX / 8];
	uint32_t sent = 0;
	void *inst;
	int k;

	(void)state;
	assert_int_equal(uet_pds_cc_cms_config_default(&c, true, false,
						       100000, 10000, 1024,
						       true), 0);
	fakewire_test_config(&cfg);
	cfg.cc = &uet_pds_cc_cms;
	cfg.cc_arg = &c;
	inst = uet_pds_cc_cms.create(&cfg, 4);
	assert_non_null(inst);
	memset(&pdc, 0, sizeof(pdc));
	pdc.mtu = 1024;
	uet_pds_cc_cms.init(inst, a, &pdc, 0);
	/* A fills the context's window. */
	while (uet_pds_cc_cms.may_send(inst, a, 1024, sent)) {
		uet_pds_cc_cms.on_send(inst, a, 1024 + OVH, false, 0);
		sent += 1024;
	}
	assert_true(sent > 0);
	pdc.idx = 1;
	for (k = 0; k < 300; k++) {
		uet_pds_cc_cms.init(inst, b, &pdc, 0);
		uet_pds_cc_cms.on_send(inst, b, 1000, false, 0);
		uet_pds_cc_cms.on_ack(inst, b, &ack, 0);
		uet_pds_cc_cms.fini(inst, b, 0);
	}
	assert_false(uet_pds_cc_cms.may_send(inst, a, 1024, sent));
	uet_pds_cc_cms.fini(inst, a, sent);
	uet_pds_cc_cms.destroy(inst);
}

/*
 * A PDC releases from the shared context at most what it still counts in
 * flight. Here each PDC's first ACK is a plain one (released from the
 * PDS's own count), then an ACK_CC brings rcvd_bytes, which is cumulative
 * and covers the same bytes again: released twice, the context's inflight
 * fell 1024 B per live PDC below zero and A could send past its cwnd. The
 * same for a packet counted by rcvd_bytes, then declared lost, NACKed or
 * trimmed.
 */
static void
pds_cc_cms__ack_releases_at_most_the_pdc_share(void **state)
{
	struct uet_pds_cc_cms_config c;
	struct uet_pds_config cfg;
	struct uet_pds_cc_ack plain = { .has_state = false, .bytes = 1000 };
	struct uet_pds_cc_ack cc = { .has_state = true, .rcvd_bytes = 4 };
	struct uet_pds_cc_pdc pdc;
	uint64_t a[UET_PDS_CC_PRIV_MAX / 8], b[10][UET_PDS_CC_PRIV_MAX / 8];
	uint32_t sent = 0;
	void *inst;
	int k;

	(void)state;
	assert_int_equal(uet_pds_cc_cms_config_default(&c, true, false,
						       100000, 10000, 1024,
						       true), 0);
	fakewire_test_config(&cfg);
	cfg.cc = &uet_pds_cc_cms;
	cfg.cc_arg = &c;
	inst = uet_pds_cc_cms.create(&cfg, 4);
	assert_non_null(inst);
	memset(&pdc, 0, sizeof(pdc));
	pdc.mtu = 1024;
	uet_pds_cc_cms.init(inst, a, &pdc, 0);
	while (uet_pds_cc_cms.may_send(inst, a, 1024, sent)) {
		uet_pds_cc_cms.on_send(inst, a, 1024 + OVH, false, 0);
		sent += 1024;
	}
	assert_true(sent > 0);
	for (k = 0; k < 10; k++) {
		pdc.idx = 1 + (uint32_t)k;
		uet_pds_cc_cms.init(inst, b[k], &pdc, 0);
		uet_pds_cc_cms.on_send(inst, b[k], 1000, false, 0);
		uet_pds_cc_cms.on_ack(inst, b[k], &plain, 0);
		uet_pds_cc_cms.on_ack(inst, b[k], &cc, 0);
	}
	/* B's are all acknowledged: A's window is as full as before. */
	assert_false(uet_pds_cc_cms.may_send(inst, a, 1024, sent));
	/* The other order: counted by rcvd_bytes, then declared lost,
	 * NACKed or trimmed (a late verdict on a packet already in). */
	for (k = 0; k < 10; k++) {
		uet_pds_cc_cms.on_send(inst, b[k], 1000, false, 0);
		cc.rcvd_bytes += 4;
		uet_pds_cc_cms.on_ack(inst, b[k], &cc, 0);
		cc.rcvd_bytes -= 4;
		if (k % 3 == 0)
			uet_pds_cc_cms.on_loss(inst, b[k], 1000, 0);
		else if (k % 3 == 1)
			uet_pds_cc_cms.on_nack(inst, b[k], 1000,
					       UET_NACK_NO_PDC_AVAIL, 0);
		else
			uet_pds_cc_cms.on_trim(inst, b[k], 1000, true, 0);
	}
	assert_false(uet_pds_cc_cms.may_send(inst, a, 1024, sent));
	for (k = 0; k < 10; k++)
		uet_pds_cc_cms.fini(inst, b[k], 0);
	uet_pds_cc_cms.fini(inst, a, sent);
	uet_pds_cc_cms.destroy(inst);
}

/* A full context table puts new {peer, tc} keys on the overflow
 * context (counted). */
static void
pds_cc_cms__context_table_full_overflows(void **state)
{
	struct uet_pds_submit s;
	struct uet_pds_cc_stats st;
	struct uet_pds_cc_info a, b;
	struct uet_pds_tx t[4];
	uint32_t ha, hb;

	(void)state;
	assert_int_equal(fakewire_submit(&W, UET_PDS_MODE_RUD, 0, 0), 0);
	memset(&s, 0, sizeof(s));
	s.dst = W.fa[1];
	s.job = 42;
	s.tc = 2; /* another traffic class: another context */
	s.mode = UET_PDS_MODE_RUD;
	s.next_hdr = UET_PDS_NEXT_REQUEST_SMALL;
	s.len = 100;
	s.cookie = 1;
	assert_int_equal(uet_pds_submit(W.pds[0], &s, W.now), 0);
	assert_int_equal(fakewire_take(&W, 0, t, 4), 2);
	uet_pds_cc_stats_get(W.pds[0], &st);
	assert_int_equal(st.ctx_max, 1);
	assert_int_equal(st.ctx_used, 1);
	assert_int_equal(st.ctx_overflow, 1);
	assert_int_equal(uet_pds_pdc_find(W.pds[0], &W.fa[1], 42, 1,
					  UET_PDS_MODE_RUD, &ha), 0);
	assert_int_equal(uet_pds_pdc_find(W.pds[0], &W.fa[1], 42, 2,
					  UET_PDS_MODE_RUD, &hb), 0);
	assert_int_equal(uet_pds_cc_info_get(W.pds[0], ha, &a), 0);
	assert_int_equal(uet_pds_cc_info_get(W.pds[0], hb, &b), 0);
	assert_int_equal(a.ctx, 0);
	assert_int_equal(b.ctx, 1); /* the overflow context */
	assert_int_equal(b.inflight, 100 + OVH);
}

/* Bad configurations are refused by name, and a PDS with one fails to
 * be created with EINVAL. */
static void
uet_pds_cc_cms_config_check__rejects(void **state)
{
	struct uet_pds_cc_cms_config c;
	struct uet_pds_config pc;
	const char *why = NULL;

	(void)state;
	assert_int_equal(uet_pds_cc_cms_config_default(&c, true, true, 100000,
						       10000, 1024, true), 0);
	assert_int_equal(uet_pds_cc_cms_config_check(&c, &why), 0);
	assert_null(why);
	c.pacer.quantum = 1000;
	assert_int_equal(uet_pds_cc_cms_config_check(&c, &why), -EINVAL);
	assert_non_null(strstr(why, "quantum"));
	c.pacer.quantum = 1024;
	c.nscc_params.rccc = false;
	assert_int_equal(uet_pds_cc_cms_config_check(&c, &why), -EINVAL);
	assert_non_null(strstr(why, "rccc"));
	c.nscc = c.rccc = false;
	assert_int_equal(uet_pds_cc_cms_config_check(&c, &why), -EINVAL);
	assert_int_equal(uet_pds_cc_cms_config_default(&c, true, false, 0,
						       10000, 1024, true),
			 -EINVAL);
	fakewire_test_config(&pc);
	pc.cc = &uet_pds_cc_cms;
	pc.cc_arg = NULL;
	errno = 0;
	assert_null(uet_pds_create(&pc));
	assert_int_equal(errno, EINVAL);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		FW_TEST(pds_initiator_emit__on_send_gets_nominal_bytes, setup_rec),
		FW_TEST(pds_ack_cc__rtt_for_sent_once_or_resent_once,
			setup_rec),
		FW_TEST(pds_initiator_rto__on_loss_gets_lost_bytes, setup_rec),
		FW_TEST(pds_target_ack__rcvd_bytes_cumulative_whatever_the_cc,
			setup_rec_ack_cc),
		FW_TEST(pds_target_ack_req__older_psn_no_rtt_sample,
			setup_rec_ack_cc),
		FW_TEST(pds_initiator_rto__unblocks_resends_behind_a_shut_gate,
			setup_rec),
		FW_TEST(pds_target_ack__ack_cc_state_from_the_receiver,
			setup_nscc),
		FW_TEST(pds_target_refuse__reported_as_rcv_cwnd_pend, setup_nscc),
		FW_TEST(pds_cc_grants__pacer_deadline_and_credit_ack,
			setup_rccc_paced),
		FW_TEST(pds_cc_grants__marked_speculative_data_charged,
			setup_rccc),
		FW_TEST(pds_cc_grants__unmarked_speculative_data_free,
			setup_rccc),
		FW_TEST(pds_target_credit_grant__credit_cp_answers_credit_req,
			setup_rccc),
		FW_TEST(pds_initiator_credit_req__asks_again_after_a_timer,
			setup_rccc),
		FW_TEST(pds_initiator_gate__no_packet_without_credit,
			setup_rccc),
		FW_TEST(pds_cc_cms__refused_burst_keeps_speculative_credit,
			setup_rccc),
		FW_TEST(pds_initiator_gate__syn_trimmed_resends_one,
			setup_rccc),
		FW_TEST(pds_initiator_credit_probe__asks_again_with_nothing_in_flight,
			setup_rccc),
		FW_TEST(pds_cc_cms__context_shared_per_peer, setup_nscc),
		FW_TEST(pds_cc_cms__context_table_full_overflows,
			setup_nscc_one_ctx),
		cmocka_unit_test(uet_pds_cc_cms_config_check__rejects),
		cmocka_unit_test(pds_cc_cms__fini_settles_the_pdc_share),
		cmocka_unit_test(pds_cc_cms__ack_releases_at_most_the_pdc_share),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
