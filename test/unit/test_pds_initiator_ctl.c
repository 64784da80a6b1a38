/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Initiator control traffic (src/pds/pds_initiator_ctl.c): tail-loss PROBE and
 * its P-flag reply, the ACK_REQ probe, NEW_START_PSN re-establishment,
 * resource back-off to failure, and the credit-CC plumbing with a test
 * credit CC.
 */

#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "pds_fakewire.h"
#include "pds_private.h"

/* Send @p n RUD requests (cookies 0..n-1) and establish the PDC with the
 * first one; @p r receives the request descriptors. */
static void
establish(struct uet_pds_tx *r, int n)
{
	struct uet_pds_tx ack;
	int k;

	for (k = 0; k < n; k++)
		assert_int_equal(fakewire_submit(&W, UET_PDS_MODE_RUD, (uint64_t)k,
					   0), 0);
	assert_int_equal(fakewire_take(&W, 0, r, (uint16_t)n), n);
	fakewire_inject(&W, 1, &r[0], false, false);
	assert_true(fakewire_take_type(&W, 1, UET_PDS_TYPE_ACK, &ack));
	fakewire_inject(&W, 0, &ack, false, false);
	assert_int_equal(W.done_ok[0], 1);
}

/* UEC 1.0 PDS control packets, tail-loss probe: the tail-loss probe of an
 * established PDC is a PROBE CP; its P-flag ACK_CC echoes probe_opaque with
 * CACK and SACK, and exactly the packets it shows missing are resent, before
 * any RTO. */
static void
pds_initiator_probe__reply_resends_exactly_the_missing(void **state)
{
	struct uet_pds_tx r[8], probe, reply, tx[16];
	uint16_t n, i;

	(void)state;
	establish(r, 8);
	fakewire_inject(&W, 1, &r[1], false, false);
	fakewire_inject(&W, 1, &r[3], false, false);
	fakewire_take(&W, 1, tx, 16); /* their ACKs are lost */
	W.now += 600000;        /* past tlp_ns, before rto_init_ns */
	uet_pds_advance(W.pds[0], W.now);
	assert_true(fakewire_take_type(&W, 0, UET_PDS_TYPE_CP, &probe));
	assert_int_equal(probe.hdr.next_hdr, UET_PDS_CTL_PROBE);
	assert_int_equal(probe.hdr.u.cp.payload, r[1].hdr.u.req.psn);
	assert_int_equal(fakewire_st(0)->tlp_fires, 1);
	fakewire_inject(&W, 1, &probe, false, false);
	assert_true(fakewire_take_type(&W, 1, UET_PDS_TYPE_ACK_CC, &reply));
	assert_true(reply.hdr.flags & UET_PDS_F_P);
	assert_int_equal(reply.hdr.u.ack.probe_opaque,
			 probe.hdr.u.cp.probe_opaque);
	assert_int_equal(reply.hdr.u.ack.cack_psn, r[1].hdr.u.req.psn);
	assert_int_equal(reply.hdr.u.ack.sack_bitmap & 3, 2); /* r[3] */
	fakewire_inject(&W, 0, &reply, false, false);
	/* r[1] is under CACK: done; r[3] is in and waits for CACK to pass
	 * it (UEC 1.0 3.5.20.3.2), not resent. */
	assert_int_equal(W.done_ok[1], 1);
	assert_int_equal(W.done_ok[3], 0);
	/* Marked: 2, 4, 5, 6, 7; counted as they leave. */
	assert_int_equal(fakewire_st(0)->retx_probe, 0);
	n = fakewire_take(&W, 0, tx, 16);
	assert_int_equal(n, 5);
	assert_int_equal(fakewire_st(0)->retx_probe, 5);
	for (i = 0; i < n; i++) {
		assert_int_equal(tx[i].kind, UET_PDS_TX_RETX);
		assert_int_not_equal(tx[i].cookie, 3);
	}
	assert_int_equal(fakewire_st(0)->rto_fires, 0);
	/* A second reply with the same opaque orders nothing more. */
	fakewire_inject(&W, 0, &reply, false, false);
	assert_int_equal(fakewire_st(0)->retx_probe, 5);
}

static void
no_probe(struct uet_pds_config *cfg)
{
	cfg->tlp_probe = false;
}

static int
setup_no_probe(void **state)
{
	(void)state;
	return fakewire_setup_with(5, no_probe);
}

/*
 * cp__ack_req_consumes_no_psn: ACK_REQ is an unreliable CP (UEC 1.0 PDS
 * control packets): the tail-loss probe (PROBE disabled) names the newest
 * PSN sent in its psn field and takes no PSN; the next request gets the
 * next PSN. The target, which does not have that PSN, answers NACK
 * PKT_NOT_RCVD; the initiator resends exactly that PSN.
 */
static void
cp__ack_req_consumes_no_psn(void **state)
{
	struct uet_pds_tx r[3], cp, n, tx[8];

	(void)state;
	establish(r, 3);          /* r[1], r[2] are lost */
	W.now += 600000;          /* past tlp_ns, before rto_init_ns */
	uet_pds_advance(W.pds[0], W.now);
	assert_true(fakewire_take_type(&W, 0, UET_PDS_TYPE_CP, &cp));
	assert_int_equal(cp.hdr.next_hdr, UET_PDS_CTL_ACK_REQ);
	assert_int_equal(cp.hdr.u.cp.psn, r[2].hdr.u.req.psn);
	assert_int_equal(cp.hdr.u.cp.payload, 0);
	assert_false(cp.hdr.flags & UET_PDS_F_SYN);
	assert_int_equal(fakewire_st(0)->tlp_fires, 1);
	assert_int_equal(fakewire_submit(&W, UET_PDS_MODE_RUD, 3, 0), 0);
	assert_int_equal(fakewire_take(&W, 0, tx, 8), 1);
	assert_int_equal(tx[0].hdr.u.req.psn, r[2].hdr.u.req.psn + 1);
	fakewire_inject(&W, 1, &cp, false, false);
	assert_true(fakewire_take_type(&W, 1, UET_PDS_TYPE_NACK, &n));
	assert_int_equal(n.hdr.u.nack.code, UET_NACK_PKT_NOT_RCVD);
	assert_int_equal(n.hdr.u.nack.psn, r[2].hdr.u.req.psn);
	assert_int_equal(fakewire_st(1)->delivered, 1);
	fakewire_inject(&W, 0, &n, false, false);
	assert_int_equal(fakewire_take(&W, 0, tx, 8), 1);
	assert_int_equal(tx[0].kind, UET_PDS_TX_RETX);
	assert_int_equal(tx[0].hdr.u.req.psn, r[2].hdr.u.req.psn);
	fakewire_inject(&W, 1, &tx[0], false, false);
	assert_int_equal(W.delivered[2], 1);
}

static void
slow_rto(struct uet_pds_config *cfg)
{
	cfg->rto_init_ns = 1000000000ull;
	cfg->tlp_ns = 0;
	cfg->max_backoffs = 4;
	cfg->backoff_max_ns = 400000;
}

static int
setup_slow_rto(void **state)
{
	(void)state;
	return fakewire_setup_with(3, slow_rto);
}

static struct uet_pds_tx
nack_for(const struct uet_pds_tx *req, uint8_t code)
{
	struct uet_pds_tx n;

	memset(&n, 0, sizeof(n));
	n.kind = UET_PDS_TX_CTL;
	n.hdr.type = UET_PDS_TYPE_NACK;
	n.hdr.u.nack.code = code;
	n.hdr.u.nack.psn = req->hdr.u.req.psn;
	n.hdr.u.nack.dpdcid = req->hdr.u.req.spdcid;
	return n;
}

/* UEC 1.0 PDS NACK codes DECISION: resource NACKs back off exponentially and
 * retry; after max_backoffs without progress the PDC fails. */
static void
pds_initiator_backoff__resource_nacks_until_failure(void **state)
{
	struct uet_pds_tx req, n, again;
	uint32_t k;

	(void)state;
	assert_int_equal(fakewire_submit(&W, UET_PDS_MODE_RUD, 1, 0), 0);
	assert_true(fakewire_take_type(&W, 0, UET_PDS_TYPE_RUD_REQ, &req));
	for (k = 0; k < 4; k++) {
		n = nack_for(&req, UET_NACK_NO_PDC_AVAIL);
		fakewire_inject(&W, 0, &n, false, false);
		assert_false(fakewire_take_type(&W, 0, UET_PDS_TYPE_RUD_REQ, &again));
		W.now += 400000 + 20000;
		uet_pds_advance(W.pds[0], W.now);
		assert_true(fakewire_take_type(&W, 0, UET_PDS_TYPE_RUD_REQ, &again));
		assert_int_equal(again.hdr.u.req.psn, req.hdr.u.req.psn);
		assert_true(again.hdr.flags & UET_PDS_F_SYN);
	}
	n = nack_for(&req, UET_NACK_NO_PDC_AVAIL);
	fakewire_inject(&W, 0, &n, false, false);
	assert_int_equal(W.done_err[1], 1);
	assert_int_equal(W.last_status[0], -ECONNREFUSED);
	assert_int_equal(fakewire_st(0)->retx_backoff, 4);
	assert_int_equal(fakewire_st(0)->pdc_fail, 1);
	assert_true(fakewire_pools_idle(&W));
}

/* A burst of resource NACKs (every packet in flight refused) is one
 * back-off round: the PDC survives max_backoffs + 2 of them, and all the
 * refused packets go again when the round ends. */
static void
pds_initiator_backoff__burst_is_one_round(void **state)
{
	struct uet_pds_tx req, n, again;
	uint32_t k;

	(void)state;
	for (k = 0; k < 6; k++)
		assert_int_equal(fakewire_submit(&W, UET_PDS_MODE_RUD, 1 + k, 0), 0);
	assert_true(fakewire_take_type(&W, 0, UET_PDS_TYPE_RUD_REQ, &req));
	for (k = 0; k < 6; k++) {
		n = nack_for(&req, UET_NACK_NO_SES_MSG_AVAIL);
		n.hdr.u.nack.psn = req.hdr.u.req.psn + k;
		fakewire_inject(&W, 0, &n, false, false);
	}
	assert_int_equal(fakewire_st(0)->pdc_fail, 0);
	assert_int_equal(fakewire_st(0)->retx_backoff, 0);
	assert_false(fakewire_take_type(&W, 0, UET_PDS_TYPE_RUD_REQ, &again));
	/* The first round lasts backoff_init_ns (100 us). */
	W.now += 100000 + 20000;
	uet_pds_advance(W.pds[0], W.now);
	assert_true(fakewire_take_type(&W, 0, UET_PDS_TYPE_RUD_REQ, &again));
	assert_int_equal(again.hdr.u.req.psn, req.hdr.u.req.psn);
	/* all six went (fakewire_take_type drained them) */
	assert_int_equal(fakewire_st(0)->retx_backoff, 6);
	assert_int_equal(W.done_err[1], 0);
}

/* A packet a receiver resource refused goes again after the packets
 * never sent, when its back-off ends: they may free the resource (the
 * target's records held by deferred messages whose restarts queue behind
 * it; fuzz input test/dst/fuzz-fixed/defer-restart-behind-refused). A ROD
 * PDC keeps the PSN order: its target takes nothing out of order. */
static void
refused_then_new(uint8_t mode, uint32_t *first, uint32_t *second,
		 uint32_t *refused)
{
	struct uet_pds_tx a, n, tx[8];
	uint16_t k;

	assert_int_equal(fakewire_submit(&W, mode, 1, 0), 0);
	assert_true(fakewire_take_type(&W, 0, mode == UET_PDS_MODE_ROD ?
				       UET_PDS_TYPE_ROD_REQ :
				       UET_PDS_TYPE_RUD_REQ, &a));
	n = nack_for(&a, UET_NACK_NO_SES_MSG_AVAIL);
	fakewire_inject(&W, 0, &n, false, false);
	/* queued during the round, never sent */
	assert_int_equal(fakewire_submit(&W, mode, 2, 0), 0);
	assert_int_equal(fakewire_take(&W, 0, tx, 8), 0);
	W.now += 100000 + 20000;
	uet_pds_advance(W.pds[0], W.now);
	k = fakewire_take(&W, 0, tx, 8);
	assert_int_equal(k, 2);
	*first = tx[0].hdr.u.req.psn;
	*second = tx[1].hdr.u.req.psn;
	*refused = a.hdr.u.req.psn;
}

static void
pds_initiator_backoff__refused_goes_after_new(void **state)
{
	uint32_t first, second, refused;

	(void)state;
	refused_then_new(UET_PDS_MODE_RUD, &first, &second, &refused);
	assert_int_equal(first, refused + 1);
	assert_int_equal(second, refused);
	assert_int_equal(fakewire_st(0)->retx_backoff, 1);
}

static void
pds_initiator_backoff__rod_refused_goes_first(void **state)
{
	uint32_t first, second, refused;

	(void)state;
	refused_then_new(UET_PDS_MODE_ROD, &first, &second, &refused);
	assert_int_equal(first, refused);
	assert_int_equal(second, refused + 1);
}

static void
refusals_rto(struct uet_pds_config *cfg)
{
	cfg->rto_init_ns = 1000000;
	cfg->tlp_ns = 0;
	cfg->max_backoffs = 100;
	cfg->backoff_max_ns = 400000;
}

static int
setup_refusals_rto(void **state)
{
	(void)state;
	return fakewire_setup_with(5, refusals_rto);
}

/* A lost packet behind a stream of refusals: every back-off round ends
 * with a retransmission that is refused again at once, so the timer never
 * runs outside a round; the RTO must still fire at a round's end. */
static void
pds_initiator_backoff__rto_not_starved(void **state)
{
	struct uet_pds_tx tx[64], a, n;
	uint32_t round, step;
	uint16_t k, j;
	bool seen_b = false, have_a = false;

	(void)state;
	memset(&a, 0, sizeof(a));
	assert_int_equal(fakewire_submit(&W, UET_PDS_MODE_RUD, 1, 0), 0);
	assert_int_equal(fakewire_submit(&W, UET_PDS_MODE_RUD, 2, 0), 0);
	k = fakewire_take(&W, 0, tx, 64); /* A refused below, B lost */
	for (j = 0; j < k && !have_a; j++)
		if (tx[j].hdr.type == UET_PDS_TYPE_RUD_REQ) {
			a = tx[j];
			have_a = true;
		}
	assert_true(have_a);
	for (round = 0; round < 40 && !seen_b; round++) {
		/* Refused again as soon as it is re-sent (the NACK comes
		 * back well within one timer tick). */
		n = nack_for(&a, UET_NACK_NO_SES_MSG_AVAIL);
		fakewire_inject(&W, 0, &n, false, false);
		for (k = 0, step = 0; k == 0 && step < 1000; step++) {
			W.now += 1000;
			uet_pds_advance(W.pds[0], W.now);
			k = fakewire_take(&W, 0, tx, 64);
		}
		for (j = 0; j < k; j++)
			if (tx[j].hdr.type == UET_PDS_TYPE_RUD_REQ &&
			    tx[j].hdr.u.req.psn == a.hdr.u.req.psn + 1)
				seen_b = true;
	}
	assert_true(seen_b);
	assert_true(fakewire_st(0)->rto_fires > 0);
	assert_int_equal(fakewire_st(0)->pdc_fail, 0);
}

/* NACK NEW_START_PSN (WIRE-DECISIONS "PDS behaviour"): a SYN-state PDC
 * re-picks its Start_PSN >= 2^16 away, keeps its requests and retries with
 * SYN after a back-off. */
static void
pds_initiator_new_start__repicks_and_retries(void **state)
{
	struct uet_pds_tx a, b, n, again[2];
	uint32_t d;

	(void)state;
	assert_int_equal(fakewire_submit(&W, UET_PDS_MODE_RUD, 1, 0), 0);
	assert_int_equal(fakewire_submit(&W, UET_PDS_MODE_RUD, 2, 0), 0);
	assert_int_equal(fakewire_take(&W, 0, again, 2), 2);
	a = again[0];
	b = again[1];
	n = nack_for(&a, UET_NACK_NEW_START_PSN);
	fakewire_inject(&W, 0, &n, false, false);
	/* b is still unanswered: it may have been accepted (a target
	 * deciding per packet), so nothing is renumbered yet. */
	assert_int_equal(fakewire_st(0)->new_start, 0);
	n = nack_for(&b, UET_NACK_NEW_START_PSN);
	fakewire_inject(&W, 0, &n, false, false);
	assert_int_equal(fakewire_st(0)->new_start, 1);
	/* The same NACK for the old numbering of b is stale now. */
	fakewire_inject(&W, 0, &n, false, false);
	assert_int_equal(fakewire_st(0)->new_start, 1);
	W.now += 400000 + 20000;
	uet_pds_advance(W.pds[0], W.now);
	assert_int_equal(fakewire_take(&W, 0, again, 2), 2);
	d = again[0].hdr.u.req.psn - a.hdr.u.req.psn;
	assert_true(d >= 65536 && d <= UINT32_MAX - 65535);
	assert_true(again[0].hdr.flags & UET_PDS_F_SYN);
	assert_int_equal(again[0].hdr.u.req.psn_offset, 0);
	assert_int_equal(again[1].hdr.u.req.psn_offset, 1);
	assert_int_equal(again[0].cookie, 1);
	assert_int_equal(again[1].cookie, 2);
	fakewire_inject(&W, 1, &again[1], false, false);
	fakewire_inject(&W, 1, &again[0], false, false);
	assert_int_equal(W.delivered[1] + W.delivered[2], 2);
}

/* NACK NEW_START_PSN carries the new Start_PSN (UEC 1.0 PDS NACK codes): the
 * initiator moves to it, whatever its distance (a target of UEC's reference
 * provider names any): by a fraction of the window too, its packets
 * keeping their cookies and offsets; a copy of the NACK naming the
 * Start_PSN it moved to is stale. */
static void
pds_initiator_new_start__moves_to_payload_start_psn(void **state)
{
	struct uet_pds_tx a, n, again[2];
	uint32_t d;

	(void)state;
	assert_int_equal(fakewire_submit(&W, UET_PDS_MODE_RUD, 1, 0), 0);
	assert_int_equal(fakewire_submit(&W, UET_PDS_MODE_RUD, 2, 0), 0);
	assert_int_equal(fakewire_take(&W, 0, again, 2), 2);
	a = again[0];
	n = nack_for(&again[1], UET_NACK_NEW_START_PSN);
	n.hdr.u.nack.payload = a.hdr.u.req.psn + 0x30000;
	fakewire_inject(&W, 0, &n, false, false);
	n = nack_for(&a, UET_NACK_NEW_START_PSN);
	n.hdr.u.nack.payload = a.hdr.u.req.psn + 0x30000;
	fakewire_inject(&W, 0, &n, false, false);
	assert_int_equal(fakewire_st(0)->new_start, 1);
	W.now += 400000 + 20000;
	uet_pds_advance(W.pds[0], W.now);
	assert_int_equal(fakewire_take(&W, 0, again, 2), 2);
	assert_int_equal(again[0].hdr.u.req.psn, a.hdr.u.req.psn + 0x30000);
	assert_int_equal(again[0].hdr.u.req.psn_offset, 0);
	assert_int_equal(again[1].hdr.u.req.psn, a.hdr.u.req.psn + 0x30001);
	/* Refused again, naming one 2^15 + 3 away: not a whole number of
	 * windows, taken all the same. */
	a = again[0];
	n = nack_for(&again[1], UET_NACK_NEW_START_PSN);
	n.hdr.u.nack.payload = a.hdr.u.req.psn + 0x8003;
	fakewire_inject(&W, 0, &n, false, false);
	n = nack_for(&a, UET_NACK_NEW_START_PSN);
	n.hdr.u.nack.payload = a.hdr.u.req.psn + 0x8003;
	fakewire_inject(&W, 0, &n, false, false);
	assert_int_equal(fakewire_st(0)->new_start, 2);
	W.now += 2 * (400000 + 20000);
	uet_pds_advance(W.pds[0], W.now);
	assert_int_equal(fakewire_take(&W, 0, again, 2), 2);
	assert_int_equal(again[0].hdr.u.req.psn, a.hdr.u.req.psn + 0x8003);
	assert_int_equal(again[1].hdr.u.req.psn, a.hdr.u.req.psn + 0x8004);
	assert_int_equal(again[0].hdr.u.req.psn_offset, 0);
	assert_int_equal(again[1].hdr.u.req.psn_offset, 1);
	assert_int_equal(again[0].cookie, 1);
	assert_int_equal(again[1].cookie, 2);
	/* A late copy of that NACK: its PSN is one of the new packets now,
	 * its payload the Start_PSN in use: stale. */
	d = fakewire_st(0)->rx_stale;
	n = nack_for(&a, UET_NACK_NEW_START_PSN);
	n.hdr.u.nack.psn = again[1].hdr.u.req.psn;
	n.hdr.u.nack.payload = again[0].hdr.u.req.psn;
	fakewire_inject(&W, 0, &n, false, false);
	assert_int_equal(fakewire_st(0)->new_start, 2);
	assert_int_equal(fakewire_st(0)->rx_stale, d + 1);
	/* The target opens under it and takes both, once each. */
	fakewire_inject(&W, 1, &again[1], false, false);
	fakewire_inject(&W, 1, &again[0], false, false);
	assert_int_equal(W.delivered[1], 1);
	assert_int_equal(W.delivered[2], 1);
}

static bool
done_k(struct fakewire *w, void *arg)
{
	uint32_t k = *(uint32_t *)arg;

	return w->done_ok[k] + w->done_err[k] != 0;
}

/* One PDC id per pool: a freed id comes back at once (with more, the
 * least recently freed one comes back first). */
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

/* End to end: the initiator's PDC fails while the target's stays; the
 * reopened PDC (same id, its only one, new Start_PSN) is NACKed
 * NEW_START_PSN while the stale one is recent, re-picks, and gets through
 * once it is quiet. */
static void
pds_initiator_new_start__reopen_over_stale_target_pdc(void **state)
{
	struct uet_pds_tx r, n;
	uint32_t one = 1, three = 3;

	(void)state;
	assert_int_equal(fakewire_submit(&W, UET_PDS_MODE_RUD, 1, 0), 0);
	assert_true(fakewire_run(&W, 2000, 10000000, done_k, &one));
	assert_int_equal(fakewire_submit(&W, UET_PDS_MODE_RUD, 2, 0), 0);
	assert_true(fakewire_take_type(&W, 0, UET_PDS_TYPE_RUD_REQ, &r));
	n = nack_for(&r, UET_NACK_PDC_HDR_MISMATCH);
	fakewire_inject(&W, 0, &n, false, false);
	assert_int_equal(W.done_err[2], 1);
	assert_int_equal(fakewire_submit(&W, UET_PDS_MODE_RUD, 3, 0), 0);
	assert_true(fakewire_run(&W, 2000, 50000000, done_k, &three));
	assert_int_equal(W.done_ok[3], 1);
	assert_int_equal(W.delivered[3], 1);
	assert_true(fakewire_st(0)->new_start >= 1);
	assert_true(fakewire_st(1)->syn_conflict >= 1);
	assert_int_equal(fakewire_st(1)->syn_replace, 1);
}

static bool
done_range(struct fakewire *w, void *arg)
{
	const uint32_t *r = arg;
	uint32_t k;

	for (k = r[0]; k < r[1]; k++)
		if (w->done_ok[k] + w->done_err[k] == 0)
			return false;
	return true;
}

/* Replace side @p s of W by a fresh instance (a restart: same FA, no
 * PDC state), seeded with @p seed. */
static void
restart(int s, uint64_t seed)
{
	struct uet_pds_config cfg;

	uet_pds_free(W.pds[s]);
	fakewire_test_config(&cfg);
	cfg.seed = seed;
	W.pds[s] = uet_pds_create(&cfg);
	assert_non_null(W.pds[s]);
}

/*
 * pds_initiator_syn_refused: a target deciding per packet refuses P1 of a SYN
 * burst with NEW_START_PSN and accepts P2..P5 (here: it restarts between
 * the two, forgetting the PDC that made it refuse). The NACK of P1 comes
 * first: the initiator waits for the rest of the burst instead of
 * renumbering it all; the ACKs open the PDC and P1 alone goes again.
 * Every message is delivered exactly once.
 */
static void
pds_initiator_syn_refused__burst_partly_accepted_not_resent(void **state)
{
	struct uet_pds_tx b[5], nk, acks[8];
	uint32_t one = 1, range[2] = { 10, 15 }, k, m;

	(void)state;
	fakewire_past_start(&W);
	assert_int_equal(fakewire_submit(&W, UET_PDS_MODE_RUD, 1, 0), 0);
	assert_true(fakewire_run(&W, 1000, 10000000, done_k, &one));
	restart(0, 0x1234);
	W.now += W.pds[1]->cfg.syn_holdoff_ns / 2;
	for (k = 0; k < 5; k++)
		assert_int_equal(fakewire_submit(&W, UET_PDS_MODE_RUD, 10 + k, 0), 0);
	assert_int_equal(fakewire_take(&W, 0, b, 5), 5);
	fakewire_inject(&W, 1, &b[0], false, false);
	assert_true(fakewire_take_type(&W, 1, UET_PDS_TYPE_NACK, &nk));
	assert_int_equal(nk.hdr.u.nack.code, UET_NACK_NEW_START_PSN);
	restart(1, 0x5678);
	for (k = 1; k < 5; k++)
		fakewire_inject(&W, 1, &b[k], false, false);
	for (k = 11; k < 15; k++)
		assert_int_equal(W.delivered[k], 1);
	m = fakewire_take(&W, 1, acks, 8);
	assert_true(m >= 1);
	fakewire_inject(&W, 0, &nk, false, false);
	assert_int_equal(fakewire_st(0)->new_start, 0);
	for (k = 0; k < m; k++)
		fakewire_inject(&W, 0, &acks[k], false, false);
	assert_true(fakewire_run(&W, 1000, 100000000ull, done_range, range));
	for (k = 10; k < 15; k++) {
		assert_int_equal(W.delivered[k], 1);
		assert_int_equal(W.done_ok[k], 1);
	}
	assert_int_equal(fakewire_st(0)->new_start, 0);
	assert_int_equal(fakewire_retx_sent(0), 1);
}

/* pds_initiator_syn_refused: the other answers of the burst are lost; the RTO
 * renumbers it (nothing of it is known to be accepted), and it gets
 * through once the stale target PDC is quiet. */
static void
pds_initiator_syn_refused__answers_lost_rto_renumbers(void **state)
{
	struct uet_pds_tx b[3], nk;
	uint32_t one = 1, range[2] = { 10, 13 }, k;

	(void)state;
	fakewire_past_start(&W);
	assert_int_equal(fakewire_submit(&W, UET_PDS_MODE_RUD, 1, 0), 0);
	assert_true(fakewire_run(&W, 1000, 10000000, done_k, &one));
	restart(0, 0x4321);
	for (k = 0; k < 3; k++)
		assert_int_equal(fakewire_submit(&W, UET_PDS_MODE_RUD, 10 + k, 0), 0);
	assert_int_equal(fakewire_take(&W, 0, b, 3), 3);
	fakewire_inject(&W, 1, &b[0], false, false);
	assert_true(fakewire_take_type(&W, 1, UET_PDS_TYPE_NACK, &nk));
	fakewire_inject(&W, 0, &nk, false, false);
	assert_int_equal(fakewire_st(0)->new_start, 0);
	assert_true(fakewire_run(&W, 1000, 100000000ull, done_range, range));
	for (k = 10; k < 13; k++) {
		assert_int_equal(W.delivered[k], 1);
		assert_int_equal(W.done_ok[k], 1);
	}
	assert_true(fakewire_st(0)->new_start >= 1);
}

/* A NEW_START_PSN naming @p start for every packet of @p b. */
static void
refuse_all(const struct uet_pds_tx *b, uint32_t n, uint32_t start)
{
	struct uet_pds_tx nk;
	uint32_t k;

	for (k = 0; k < n; k++) {
		nk = nack_for(&b[k], UET_NACK_NEW_START_PSN);
		nk.hdr.u.nack.payload = start;
		fakewire_inject(&W, 0, &nk, false, false);
	}
}

/*
 * pds_initiator_new_start (WIRE-DECISIONS "A SYN that reaches a restarted
 * target"): a target in its quiet time opens under the Start_PSN it
 * names, so the first refusal of a PDC is answered at once, without the
 * resource back-off (which cost 100 us each first PDC to a fresh
 * target). The refused packets go again as first transmissions of their
 * new PSNs (the target saw them: nothing was lost), with what was never
 * sent. A second refusal backs off.
 */
static void
pds_initiator_new_start__first_refusal_resent_at_once(void **state)
{
	struct uet_pds_tx b[2], t[4];
	uint32_t named;

	(void)state;
	assert_int_equal(fakewire_submit(&W, UET_PDS_MODE_RUD, 1, 0), 0);
	assert_int_equal(fakewire_submit(&W, UET_PDS_MODE_RUD, 2, 0), 0);
	assert_int_equal(fakewire_take(&W, 0, b, 2), 2);
	assert_int_equal(fakewire_submit(&W, UET_PDS_MODE_RUD, 3, 0), 0);
	named = b[0].hdr.u.req.psn + 0x100000u;
	refuse_all(b, 2, named);
	assert_int_equal(fakewire_st(0)->new_start, 1);
	/* no clock move: sent at once */
	uet_pds_advance(W.pds[0], W.now);
	assert_int_equal(fakewire_take(&W, 0, t, 4), 3);
	assert_int_equal(t[0].hdr.u.req.psn, named);
	assert_int_equal(t[0].cookie, 1);
	assert_int_equal(t[1].cookie, 2);
	assert_int_equal(t[2].cookie, 3);
	assert_int_equal(t[0].kind, UET_PDS_TX_NEW);
	assert_int_equal(t[1].kind, UET_PDS_TX_NEW);
	assert_true(t[0].hdr.flags & UET_PDS_F_SYN);
	assert_int_equal(fakewire_retx_sent(0), 0);
	/* refused again (a live PDC of the id at the target): back off */
	refuse_all(t, 3, named + 0x100000u);
	assert_int_equal(fakewire_st(0)->new_start, 2);
	uet_pds_advance(W.pds[0], W.now);
	assert_int_equal(fakewire_take(&W, 0, t, 4), 0);
	W.now += W.pds[0]->cfg.backoff_max_ns + 1;
	uet_pds_advance(W.pds[0], W.now);
	assert_int_equal(fakewire_take(&W, 0, t, 4), 3);
	assert_int_equal(t[0].hdr.u.req.psn, named + 0x100000u);
}

/*
 * pds_initiator_renumber: a packet of a refused burst whose answer never
 * came may have been lost; resent under the new Start_PSN it is a
 * retransmission and is counted as one (retx_rto, UET_PDS_TX_RETX), as
 * its resend under the old PSN would have been. Uncounted, the packets a
 * fault dropped in a first burst to a target in its quiet time were
 * resent without a trace (uet_perf_batch: retransmissions below the
 * drops injected).
 */
static void
pds_initiator_new_start__unanswered_resend_is_retransmission(void **state)
{
	struct uet_pds_tx b[2], t[4];
	uint64_t k;
	uint16_t n = 0;

	(void)state;
	assert_int_equal(fakewire_submit(&W, UET_PDS_MODE_RUD, 1, 0), 0);
	assert_int_equal(fakewire_submit(&W, UET_PDS_MODE_RUD, 2, 0), 0);
	assert_int_equal(fakewire_take(&W, 0, b, 2), 2);
	refuse_all(b, 1, b[0].hdr.u.req.psn + 0x100000u);
	assert_int_equal(fakewire_st(0)->new_start, 0);
	for (k = 0; k < 64 && fakewire_st(0)->new_start == 0; k++) {
		W.now += W.pds[0]->cfg.rto_init_ns / 4;
		uet_pds_advance(W.pds[0], W.now);
		n = fakewire_take(&W, 0, t, 4); /* a tail-loss resend first */
	}
	assert_int_equal(fakewire_st(0)->new_start, 1);
	if (n == 0)
		n = fakewire_take(&W, 0, t, 4);
	assert_int_equal(n, 2);
	assert_int_equal(t[0].hdr.u.req.psn, b[0].hdr.u.req.psn + 0x100000u);
	assert_int_equal(t[0].kind, UET_PDS_TX_NEW);
	assert_int_equal(t[1].kind, UET_PDS_TX_RETX);
	assert_int_equal(t[1].cookie, 2);
}

/*
 * Refused is not progress (UEC 1.0 3.5 PDC establishment: a refused SYN
 * opened nothing): a SYN-state PDC whose packets are never accepted
 * fails within pds_dead_ns of its open, however late a NEW_START_PSN
 * renumbers it. uet-dst seed 50: the SES withdrew the request (nothing
 * of it is built again, the wire carries nothing), the target's refusal
 * came 17 ms late, and the renumbered resend restarted the PDC's
 * progress clock: it was resent every RTO for 33 ms and more.
 */
static void
pds_initiator_new_start__refusal_is_no_progress(void **state)
{
	struct uet_pds_tx b;
	uint64_t t0 = W.now, dead = pds_dead_ns(W.pds[0]);

	(void)state;
	assert_int_equal(fakewire_submit(&W, UET_PDS_MODE_RUD, 1, 0), 0);
	assert_true(fakewire_take_type(&W, 0, UET_PDS_TYPE_RUD_REQ, &b));
	W.f[0].dead = true;
	assert_false(fakewire_run(&W, 10000, dead * 3 / 4, done_k,
				  &(uint32_t){ 1 }));
	refuse_all(&b, 1, b.hdr.u.req.psn + 0x100000u);
	assert_int_equal(fakewire_st(0)->new_start, 1);
	assert_true(fakewire_run(&W, 10000, dead, done_k, &(uint32_t){ 1 }));
	assert_int_equal(W.done_err[1], 1);
	assert_true(W.now - t0 <= dead + 2 * W.pds[0]->cfg.rto_max_ns);
}

/*
 * A test credit CC (UEC 1.0 RCCC plumbing only): the sender may send
 * while it has credit, charged each packet's nominal bytes (a send on the
 * last bytes leaves a debt, as RCCC's), and asks for its whole backlog;
 * the receiver grants every request in full.
 */
struct tcc {
	int64_t credit;
};

static uint32_t tcc_requests, tcc_granted, tcc_received;
/* The backlog and retransmit backlog of the last credit_target call. */
static uint32_t tcc_backlog, tcc_rtx_backlog;
/* Non-zero: the credit_target every request states (cumulative, as
 * RCCC's), whatever the backlog. */
static uint32_t tcc_fixed_target;

static void
tcc_init(void *inst, void *priv, const struct uet_pds_cc_pdc *pdc,
	 uint64_t now)
{
	(void)inst;
	(void)pdc;
	(void)now;
	((struct tcc *)priv)->credit = 0;
}

static bool
tcc_may_send(void *inst, const void *priv, uint32_t bytes, uint32_t inflight)
{
	(void)inst;
	(void)inflight;
	(void)bytes;
	return ((const struct tcc *)priv)->credit > 0;
}

static void
tcc_on_send(void *inst, void *priv, uint32_t bytes, bool retx, uint64_t now)
{
	struct tcc *t = priv;

	(void)inst;
	(void)retx;
	(void)now;
	t->credit -= bytes;
}

static uint32_t
tcc_credit_target(void *inst, void *priv, uint32_t backlog,
		  uint32_t rtx_backlog, uint8_t *ccc_id)
{
	const struct tcc *t = priv;

	(void)inst;
	tcc_backlog = backlog;
	tcc_rtx_backlog = rtx_backlog;
	*ccc_id = 7;
	if (tcc_fixed_target != 0)
		return tcc_fixed_target;
	return (int64_t)backlog + rtx_backlog > t->credit ?
	       (uint32_t)((int64_t)backlog + rtx_backlog - t->credit) : 0;
}

static void
tcc_on_credit(void *inst, void *priv, uint32_t credit, uint64_t now)
{
	(void)inst;
	(void)now;
	((struct tcc *)priv)->credit += credit;
	tcc_received += credit;
}

static uint32_t
tcc_on_credit_request(void *inst, void *priv, uint32_t credit_target,
		      uint32_t bytes, uint64_t now)
{
	(void)inst;
	(void)priv;
	(void)bytes;
	(void)now;
	tcc_requests++;
	if (tcc_fixed_target != 0)
		return 0; /* a pacer at the target: nothing more to grant */
	tcc_granted += credit_target;
	return credit_target;
}

/* The fixed gate's no-op signal hooks, with the credit behaviour above. */
static struct uet_pds_cc_ops tcc_ops;

static void
credit_cc(struct uet_pds_config *cfg)
{
	tcc_ops = uet_pds_cc_fixed;
	tcc_ops.name = "test-credit";
	tcc_ops.priv_size = sizeof(struct tcc);
	tcc_ops.init = tcc_init;
	tcc_ops.may_send = tcc_may_send;
	tcc_ops.on_send = tcc_on_send;
	tcc_ops.credit_target = tcc_credit_target;
	tcc_ops.on_credit = tcc_on_credit;
	tcc_ops.on_credit_request = tcc_on_credit_request;
	cfg->cc = &tcc_ops;
}

static int
setup_credit(void **state)
{
	(void)state;
	tcc_requests = tcc_granted = tcc_received = tcc_fixed_target = 0;
	tcc_backlog = tcc_rtx_backlog = 0;
	return fakewire_setup_with(5, credit_cc);
}

/* The sending PDC's test-CC state (the only PDC of side 0). */
static struct tcc *
tcc_sender(void)
{
	assert_int_equal(W.pds[0]->pdc[0].role, PDS_ROLE_INIT);
	return (struct tcc *)pds_cc_priv(W.pds[0], &W.pds[0]->pdc[0]);
}

/* Requests go as RUD_CC_REQ with ccc_id and credit_target; the receiver's
 * grant comes back in an ACK_CC of cc_type CREDIT and unblocks the rest. */
static void
pds_initiator_credit__cc_req_then_ack_cc_credit(void **state)
{
	struct uet_pds_tx t[8], ack;
	uint16_t n;
	int k;

	(void)state;
	for (k = 0; k < 4; k++)
		assert_int_equal(fakewire_submit(&W, UET_PDS_MODE_RUD, (uint64_t)k,
					   0), 0);
	/* No credit: only the one packet that may always go (pds_initiator.c). */
	assert_int_equal(fakewire_take(&W, 0, t, 8), 1);
	assert_int_equal(t[0].hdr.type, UET_PDS_TYPE_RUD_CC_REQ);
	assert_int_equal(t[0].hdr.u.req.ccc_id, 7);
	assert_true(t[0].hdr.u.req.credit_target > 0);
	fakewire_inject(&W, 1, &t[0], false, false);
	assert_int_equal(tcc_requests, 1);
	assert_true(fakewire_take_type(&W, 1, UET_PDS_TYPE_ACK_CC, &ack));
	assert_int_equal(ack.hdr.u.ack.cc_type, UET_CC_TYPE_CREDIT);
	assert_int_equal(ack.hdr.u.ack.cc.credit.credit,
			 t[0].hdr.u.req.credit_target);
	fakewire_inject(&W, 0, &ack, false, false);
	assert_int_equal(fakewire_st(0)->credit_rx, 1);
	n = fakewire_take(&W, 0, t, 8);
	assert_int_equal(n, 3);
}

/* Blocked with data in flight on an open PDC: a CREDIT_REQ CP goes out;
 * the receiver answers with a CREDIT CP, routed to on_credit. */
static void
pds_initiator_credit__credit_req_cp_answered_by_credit_cp(void **state)
{
	struct uet_pds_tx t[8], cp;

	(void)state;
	pds_initiator_credit__cc_req_then_ack_cc_credit(state);
	tcc_sender()->credit = 1; /* what the grant's rounding left, less */
	/* 10 takes the last credit and states its debt as the target; 11
	 * and 12 are blocked, a target 10 did not state: a CP asks. */
	assert_int_equal(fakewire_submit(&W, UET_PDS_MODE_RUD, 10, 0), 0);
	assert_int_equal(fakewire_take(&W, 0, t, 8), 1);
	assert_int_equal(t[0].hdr.u.req.credit_target, 1);
	assert_int_equal(fakewire_submit(&W, UET_PDS_MODE_RUD, 11, 0), 0);
	assert_int_equal(fakewire_submit(&W, UET_PDS_MODE_RUD, 12, 0), 0);
	assert_true(fakewire_take_type(&W, 0, UET_PDS_TYPE_CP, &cp));
	assert_int_equal(cp.hdr.next_hdr, UET_PDS_CTL_CREDIT_REQ);
	assert_true(cp.hdr.u.cp.payload > 0);
	/* Asked once until credit comes. */
	assert_int_equal(fakewire_take(&W, 0, t, 8), 0);
	fakewire_inject(&W, 1, &cp, false, false);
	assert_int_equal(tcc_requests, 2);
	assert_true(fakewire_take_type(&W, 1, UET_PDS_TYPE_CP, &cp));
	assert_int_equal(cp.hdr.next_hdr, UET_PDS_CTL_CREDIT);
	fakewire_inject(&W, 0, &cp, false, false);
	assert_int_equal(fakewire_st(0)->credit_rx, 2);
	assert_int_equal(fakewire_take(&W, 0, t, 8), 2);
	assert_int_equal(t[0].cookie, 11);
	assert_int_equal(t[1].cookie, 12);
}

/* Every request carries the credit_target: blocked with requests in
 * flight that stated the current target, the source sends no CREDIT_REQ
 * CP (the pacer knows); a request marked for retransmission (it may
 * be the one that carried the target) makes it ask again. A CP
 * per grant took about 2 % of the receiver's link in a 15:1 incast. */
static void
pds_initiator_credit__no_credit_req_while_requests_carry_the_target(void **state)
{
	struct uet_pds_tx t[8], nack, cp;

	(void)state;
	pds_initiator_credit__cc_req_then_ack_cc_credit(state);
	tcc_sender()->credit = 1; /* what the grant's rounding left, less */
	tcc_fixed_target = 64 * 1024;
	assert_int_equal(fakewire_submit(&W, UET_PDS_MODE_RUD, 10, 0), 0);
	assert_int_equal(fakewire_submit(&W, UET_PDS_MODE_RUD, 11, 0), 0);
	/* 10 takes the last credit and states the target; 11 is blocked
	 * and does not ask again. */
	assert_int_equal(fakewire_take(&W, 0, t, 8), 1);
	assert_int_equal(t[0].cookie, 10);
	assert_int_equal(t[0].hdr.u.req.credit_target, 256);
	assert_int_equal(fakewire_take(&W, 0, t + 1, 7), 0);
	uet_pds_advance(W.pds[0], W.now + 1000);
	assert_int_equal(fakewire_take(&W, 0, t + 1, 7), 0);
	/* 10 trimmed: marked for retransmission, the next block asks. */
	fakewire_inject(&W, 1, &t[0], true, false);
	assert_true(fakewire_take_type(&W, 1, UET_PDS_TYPE_NACK, &nack));
	fakewire_inject(&W, 0, &nack, false, false);
	assert_true(fakewire_take_type(&W, 0, UET_PDS_TYPE_CP, &cp));
	assert_int_equal(cp.hdr.next_hdr, UET_PDS_CTL_CREDIT_REQ);
}

/* A blocked source with nothing in flight whose current target an
 * acknowledged request stated sends no CREDIT_REQ CP: the pacer has the
 * target, and a CP per packet took 2 % of the receiver's link in a 63:1
 * incast (one 84 B frame per 4 KB packet, a standing last-hop queue under
 * a pacer at 99 %). Should its grants be lost, the credit probe asks an
 * RTO later. */
static void
pds_initiator_credit__no_credit_req_for_an_arrived_target(void **state)
{
	struct uet_pds_tx t[8], cp;
	uint16_t n, k;
	int i;
	bool asked = false;

	(void)state;
	tcc_fixed_target = 64 * 1024; /* stated by every request, no grant */
	assert_int_equal(fakewire_submit(&W, UET_PDS_MODE_RUD, 0, 0), 0);
	assert_int_equal(fakewire_submit(&W, UET_PDS_MODE_RUD, 1, 0), 0);
	/* the one packet that may always go; 1 waits for credit */
	assert_int_equal(fakewire_take(&W, 0, t, 8), 1);
	assert_int_equal(t[0].hdr.u.req.credit_target, 256);
	fakewire_inject(&W, 1, &t[0], false, false);
	n = fakewire_take(&W, 1, t, 8);
	for (k = 0; k < n; k++)
		fakewire_inject(&W, 0, &t[k], false, false);
	/* acknowledged: nothing in flight, the target arrived */
	uet_pds_advance(W.pds[0], W.now + 1000);
	assert_false(fakewire_take_type(&W, 0, UET_PDS_TYPE_CP, &cp));
	/* no grant comes: the credit probe asks, flagged lost */
	for (i = 0; i < 200 && !asked; i++) {
		W.now += 100000;
		uet_pds_advance(W.pds[0], W.now);
		n = fakewire_take(&W, 0, t, 8);
		for (k = 0; k < n; k++)
			asked |= t[k].hdr.type == UET_PDS_TYPE_CP &&
				 t[k].hdr.next_hdr == UET_PDS_CTL_CREDIT_REQ;
	}
	assert_true(asked);
}

/* A CREDIT_REQ that asks for no more than the PDC was granted in all
 * means grants were lost (ACK_CCs on a dead path): the receiver repeats
 * the cumulative total in a CREDIT CP, though its pacer grants nothing
 * new. Without it the source crawled one forced packet per round trip. */
static void
pds_target_credit_request__stale_target_repeats_the_total(void **state)
{
	struct uet_pds_tx t[8], cp;

	(void)state;
	pds_initiator_credit__cc_req_then_ack_cc_credit(state);
	tcc_sender()->credit = 1; /* what the grant's rounding left, less */
	assert_int_equal(fakewire_submit(&W, UET_PDS_MODE_RUD, 10, 0), 0);
	assert_int_equal(fakewire_take(&W, 0, t, 8), 1); /* the last credit */
	/* no more than everything granted (512 B), more than 10 stated */
	tcc_fixed_target = 512;
	assert_int_equal(fakewire_submit(&W, UET_PDS_MODE_RUD, 11, 0), 0);
	assert_true(fakewire_take_type(&W, 0, UET_PDS_TYPE_CP, &cp));
	assert_int_equal(cp.hdr.next_hdr, UET_PDS_CTL_CREDIT_REQ);
	assert_int_equal(cp.hdr.u.cp.payload, 2);
	fakewire_inject(&W, 1, &cp, false, false);
	assert_true(fakewire_take_type(&W, 1, UET_PDS_TYPE_CP, &cp));
	assert_int_equal(cp.hdr.next_hdr, UET_PDS_CTL_CREDIT);
	assert_true(cp.hdr.u.cp.payload > 1);
	/* A data request with a stale target (grants on their way) does
	 * not turn the ACK_CC into a credit repeat. */
	fakewire_inject(&W, 1, &t[0], false, false);
	assert_false(fakewire_take_type(&W, 1, UET_PDS_TYPE_CP, &cp));
}

/* Nominal bytes of cookie @p k's request (what the CC hooks count). */
static uint32_t
nominal(uint64_t k)
{
	uint8_t buf[64];

	return fakewire_payload(k, buf) + UET_PDS_CC_NOMINAL_OVH;
}

/* The credit asked for is the backlog in its packets' nominal bytes, new
 * and marked for retransmission alike: counted as full packets, a 15:1
 * incast of RCCC sources asked for a packet more per message tail, which
 * the pacer granted and nobody used. */
static void
pds_initiator_credit__backlog_in_nominal_bytes(void **state)
{
	struct uet_pds_tx t[8], ack, nack, cp;
	uint32_t k;

	(void)state;
	for (k = 0; k < 4; k++)
		assert_int_equal(fakewire_submit(&W, UET_PDS_MODE_RUD, k, 0), 0);
	assert_int_equal(fakewire_take(&W, 0, t, 8), 1);
	assert_int_equal(t[0].cookie, 0);
	assert_int_equal(tcc_backlog, nominal(1) + nominal(2) + nominal(3));
	assert_int_equal(tcc_rtx_backlog, 0);
	/* Establish; the grant pays for 0 to 3 (no further grant comes). */
	fakewire_inject(&W, 1, &t[0], false, false);
	assert_true(fakewire_take_type(&W, 1, UET_PDS_TYPE_ACK_CC, &ack));
	tcc_fixed_target = 256;
	fakewire_inject(&W, 0, &ack, false, false);
	assert_int_equal(fakewire_take(&W, 0, t, 8), 3);
	/* One byte of credit left: 4 goes on it and 5 waits. 4's header
	 * counts 5 only, the CREDIT_REQ CP for 5 too. */
	tcc_sender()->credit = 1;
	assert_int_equal(fakewire_submit(&W, UET_PDS_MODE_RUD, 4, 0), 0);
	assert_int_equal(fakewire_submit(&W, UET_PDS_MODE_RUD, 5, 0), 0);
	assert_int_equal(fakewire_take(&W, 0, t, 8), 1);
	assert_int_equal(t[0].cookie, 4);
	assert_int_equal(tcc_backlog, nominal(5));
	assert_int_equal(tcc_rtx_backlog, 0);
	/* 4 trimmed and blocked: the CREDIT_REQ counts it as retransmit
	 * backlog, 5 as backlog. */
	fakewire_inject(&W, 1, &t[0], true, false);
	assert_true(fakewire_take_type(&W, 1, UET_PDS_TYPE_NACK, &nack));
	fakewire_inject(&W, 0, &nack, false, false);
	assert_true(fakewire_take_type(&W, 0, UET_PDS_TYPE_CP, &cp));
	assert_int_equal(cp.hdr.next_hdr, UET_PDS_CTL_CREDIT_REQ);
	assert_int_equal(tcc_rtx_backlog, nominal(4));
	assert_int_equal(tcc_backlog, nominal(5));
}

/* A retransmission the CC gate blocks asks for credit like new data
 * does: a trimmed packet with the credit used up gets a CREDIT_REQ CP
 * (it used to wait for the RTO or for a grant it never asked for). */
static void
pds_initiator_credit__blocked_retransmission_asks(void **state)
{
	struct uet_pds_tx t[8], nack, cp;

	(void)state;
	pds_initiator_credit__cc_req_then_ack_cc_credit(state);
	tcc_sender()->credit = 1; /* what the grant's rounding left, less */
	assert_int_equal(fakewire_submit(&W, UET_PDS_MODE_RUD, 10, 0), 0);
	assert_int_equal(fakewire_take(&W, 0, t, 8), 1); /* the last credit */
	assert_int_equal(t[0].cookie, 10);
	fakewire_inject(&W, 1, &t[0], true, false); /* trimmed */
	assert_true(fakewire_take_type(&W, 1, UET_PDS_TYPE_NACK, &nack));
	assert_int_equal(nack.hdr.u.nack.code, UET_NACK_TRIMMED);
	fakewire_inject(&W, 0, &nack, false, false);
	/* the resend is blocked (no credit, others in flight): it asks */
	assert_true(fakewire_take_type(&W, 0, UET_PDS_TYPE_CP, &cp));
	assert_int_equal(cp.hdr.next_hdr, UET_PDS_CTL_CREDIT_REQ);
	assert_true(cp.hdr.u.cp.payload > 0);
	fakewire_inject(&W, 1, &cp, false, false);
	assert_true(fakewire_take_type(&W, 1, UET_PDS_TYPE_CP, &cp));
	assert_int_equal(cp.hdr.next_hdr, UET_PDS_CTL_CREDIT);
	fakewire_inject(&W, 0, &cp, false, false);
	assert_int_equal(fakewire_take(&W, 0, t, 8), 1);
	assert_int_equal(t[0].cookie, 10);
	assert_true(t[0].hdr.flags & UET_PDS_F_RETX);
}

static bool
all_done(struct fakewire *w, void *arg)
{
	uint32_t k, n = *(uint32_t *)arg;

	for (k = 0; k < n; k++)
		if (w->done_ok[k] == 0)
			return false;
	return true;
}

/* End to end over a lossy wire: the credit CC never deadlocks and every
 * message is delivered once. */
static void
pds_initiator_credit__lossy_wire_completes(void **state)
{
	uint32_t k, n = 200, next = 0;
	int d;

	(void)state;
	for (d = 0; d < 2; d++) {
		W.f[d].drop = 50000;
		W.f[d].reorder = 50000;
	}
	while (W.now < 500000000ull && !all_done(&W, &n)) {
		while (next < n &&
		       fakewire_submit(&W, UET_PDS_MODE_RUD, next, 0) == 0)
			next++;
		fakewire_step(&W, 2000);
	}
	for (k = 0; k < n; k++)
		assert_int_equal(W.delivered[k], 1);
	assert_true(all_done(&W, &n));
	assert_true(tcc_received > 0);
}

/* ---- the receiver's MP_Range held by a stored response ---- */

/* Transmit window 128, receive window (and so MP_Range) 64 at both ends. */
static void
wide_tx(struct uet_pds_config *cfg)
{
	cfg->tx_window = 128;
	cfg->tx_blocks = 2;
	cfg->cc_param = 1024 * 1024;
}

static int
setup_wide_tx(void **state)
{
	(void)state;
	return fakewire_setup_with(9, wide_tx);
}

/*
 * UEC 1.0 3.5.20.2.2: cookie 0 gets a guaranteed-delivery response, which
 * the target stores and holds its CACK below until CLEAR_PSN passes it;
 * cookies 1..64 follow. The range (64) runs from that CACK, so cookie 64
 * waits (pds_initiator_room) while cookie 0 completes with its response and
 * the rest wait for CACK to pass them (UEC 1.0 3.5.20.3.2): nothing in
 * flight, and only a CLEAR can move the range. Returns cookie 0's PSN.
 */
static uint32_t
held_range(void)
{
	static struct uet_pds_tx tx[80];
	uint16_t n, k;

	assert_int_equal(fakewire_submit(&W, UET_PDS_MODE_RUD, 0,
				   UET_PDS_SUBMIT_RESP), 0);
	assert_int_equal(fakewire_take(&W, 0, tx, 80), 1);
	W.resp_expected = true;
	fakewire_inject(&W, 1, &tx[0], false, false);
	W.resp_expected = false;
	for (k = 1; k <= 64; k++)
		assert_int_equal(fakewire_submit(&W, UET_PDS_MODE_RUD, k, 0), 0);
	n = fakewire_take(&W, 0, &tx[1], 79);
	assert_int_equal(n, 63);
	for (k = 1; k <= n; k++)
		fakewire_inject(&W, 1, &tx[k], false, false);
	n = fakewire_take(&W, 1, &tx[1], 79);
	for (k = 1; k <= n; k++)
		fakewire_inject(&W, 0, &tx[k], false, false);
	assert_int_equal(W.done_ok[0], 1);
	for (k = 1; k < 64; k++)
		assert_int_equal(W.done_ok[k], 0);
	assert_int_equal(W.done_ok[64], 0);
	return tx[0].hdr.u.req.psn;
}

/* The one packet side 0 sends now is a CLEAR CP with AR, clearing up to
 * @p clear_psn. */
static void
take_clear_ar(uint32_t clear_psn, struct uet_pds_tx *cp)
{
	assert_int_equal(fakewire_take(&W, 0, cp, 1), 1);
	assert_int_equal(cp->hdr.type, UET_PDS_TYPE_CP);
	assert_int_equal(cp->hdr.next_hdr, UET_PDS_CTL_CLEAR);
	assert_true(cp->hdr.flags & UET_PDS_F_AR);
	assert_int_equal(cp->hdr.u.cp.payload, clear_psn);
	assert_int_equal(fakewire_take(&W, 0, cp + 1, 1), 0);
}

/*
 * With the range held and nothing in flight, no ACK comes by itself: the
 * initiator sends a CLEAR with AR at once; when that was lost, its RTO
 * resends the oldest request still waiting for its answer, which carries
 * the same CLEAR_PSN (UEC 1.0 3.5.20.3.2: an ACK lost). The target frees
 * the response and ACKs with its CACK, which completes the waiting
 * requests and opens the range: cookie 64 goes.
 */
static void
pds_initiator_window_probe__held_range_opened_by_clear_with_ar(void **state)
{
	struct uet_pds_tx cp[2], ack, req;
	uint32_t p0;

	(void)state;
	p0 = held_range();
	take_clear_ar(p0, cp); /* lost */
	W.now += W.pds[0]->cfg.rto_init_ns + 2 * W.pds[0]->cfg.timer_tick_ns;
	uet_pds_advance(W.pds[0], W.now);
	assert_int_equal(fakewire_st(0)->rto_fires, 1);
	assert_int_equal(fakewire_take(&W, 0, &req, 1), 1);
	assert_int_equal(req.hdr.type, UET_PDS_TYPE_RUD_REQ);
	assert_int_equal(req.hdr.u.req.psn, p0 + 1);
	assert_int_equal(uet_wire_pds_req_clear_psn(&req.hdr.u.req), p0);
	assert_int_equal(fakewire_take(&W, 0, cp, 1), 0);
	fakewire_inject(&W, 1, &req, false, false);
	assert_true(fakewire_take_type(&W, 1, UET_PDS_TYPE_ACK, &ack));
	assert_int_equal(ack.hdr.u.ack.cack_psn, p0 + 63);
	fakewire_inject(&W, 0, &ack, false, false);
	assert_int_equal(W.done_ok[63], 1);
	assert_true(fakewire_take_type(&W, 0, UET_PDS_TYPE_RUD_REQ, &req));
	assert_int_equal(req.cookie, 64);
	assert_int_equal(req.hdr.u.req.psn, p0 + 64);
	fakewire_inject(&W, 1, &req, false, false);
	while (W.done_ok[64] == 0 && W.now < 100000000ull)
		fakewire_step(&W, 1000);
	assert_int_equal(W.done_ok[64], 1);
	assert_int_equal(W.delivered[64], 1);
}

/* Everything is lost both ways; what side 0 sends to get an answer is
 * counted: CLEARs with AR, the oldest request waiting for its answer
 * (resent at each RTO) and the tail-loss probes that follow it. */
static uint32_t probes_lost, resends_lost;

static bool
drop_probes(struct fakewire *w, int from, const struct uet_pds_tx *t)
{
	(void)w;
	if (from != 0)
		return true;
	if (t->hdr.type == UET_PDS_TYPE_RUD_REQ) {
		assert_int_equal(t->cookie, 1);
		resends_lost++;
		return true;
	}
	assert_int_equal(t->hdr.type, UET_PDS_TYPE_CP);
	if (t->hdr.next_hdr == UET_PDS_CTL_CLEAR)
		assert_true(t->hdr.flags & UET_PDS_F_AR);
	else
		assert_int_equal(t->hdr.next_hdr, UET_PDS_CTL_PROBE);
	probes_lost++;
	return true;
}

/*
 * A target that never answers the window probe (nothing comes back, not
 * even its CLEAR_REQs): one probe at once, one (the waiting request)
 * per RTO after it, and past max_retries, with the peer silent for
 * pds_dead_ns, the PDC fails as after any RTO (-ETIMEDOUT): the waiting
 * request completes in error, not never.
 */
static void
pds_initiator_window_probe__unanswered_fails_after_max_retries(void **state)
{
	(void)state;
	held_range();
	probes_lost = 0;
	resends_lost = 0;
	W.drop_fn = drop_probes;
	while (W.done_err[64] == 0 && W.now < 1000000000ull)
		fakewire_step(&W, 10000);
	assert_int_equal(W.done_err[64], 1);
	assert_int_equal(W.last_status[0], -ETIMEDOUT);
	/* The CLEAR with AR at once, the waiting request at each RTO but
	 * the last (which fails the PDC), and one tail-loss probe. */
	assert_true(fakewire_st(0)->rto_fires > W.pds[0]->cfg.max_retries);
	assert_int_equal(resends_lost, fakewire_st(0)->rto_fires - 1);
	assert_int_equal(probes_lost, 2);
	assert_true(W.now >= pds_dead_ns(W.pds[0]));
	assert_int_equal(fakewire_st(0)->pdc_fail, 1);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		FW_TEST(cp__ack_req_consumes_no_psn, setup_no_probe),
		FW_TEST(pds_initiator_probe__reply_resends_exactly_the_missing,
			fakewire_setup),
		FW_TEST(pds_initiator_backoff__resource_nacks_until_failure,
			setup_slow_rto),
		FW_TEST(pds_initiator_backoff__burst_is_one_round, setup_slow_rto),
		FW_TEST(pds_initiator_backoff__refused_goes_after_new,
			setup_slow_rto),
		FW_TEST(pds_initiator_backoff__rod_refused_goes_first,
			setup_slow_rto),
		FW_TEST(pds_initiator_backoff__rto_not_starved, setup_refusals_rto),
		FW_TEST(pds_initiator_new_start__repicks_and_retries,
			setup_slow_rto),
		FW_TEST(pds_initiator_syn_refused__burst_partly_accepted_not_resent,
			fakewire_setup),
		FW_TEST(pds_initiator_syn_refused__answers_lost_rto_renumbers,
			fakewire_setup),
		FW_TEST(pds_initiator_new_start__moves_to_payload_start_psn,
			setup_slow_rto),
		FW_TEST(pds_initiator_new_start__first_refusal_resent_at_once,
			setup_slow_rto),
		FW_TEST(pds_initiator_new_start__refusal_is_no_progress,
			fakewire_setup),
		FW_TEST(pds_initiator_new_start__unanswered_resend_is_retransmission,
			fakewire_setup),
		FW_TEST(pds_initiator_new_start__reopen_over_stale_target_pdc,
			setup_one_pdc_id),
		FW_TEST(pds_initiator_credit__cc_req_then_ack_cc_credit,
			setup_credit),
		FW_TEST(pds_initiator_credit__credit_req_cp_answered_by_credit_cp,
			setup_credit),
		FW_TEST(pds_initiator_credit__blocked_retransmission_asks,
			setup_credit),
		FW_TEST(pds_initiator_credit__backlog_in_nominal_bytes,
			setup_credit),
		FW_TEST(pds_target_credit_request__stale_target_repeats_the_total,
			setup_credit),
		FW_TEST(
		    pds_initiator_credit__no_credit_req_while_requests_carry_the_target,
		    setup_credit),
		FW_TEST(pds_initiator_credit__lossy_wire_completes, setup_credit),
		FW_TEST(pds_initiator_credit__no_credit_req_for_an_arrived_target,
			setup_credit),
		FW_TEST(pds_initiator_window_probe__held_range_opened_by_clear_with_ar,
			setup_wide_tx),
		FW_TEST(pds_initiator_window_probe__unanswered_fails_after_max_retries,
			setup_wide_tx),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
