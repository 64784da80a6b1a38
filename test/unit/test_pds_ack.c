/* SPDX-License-Identifier: BSD-3-Clause */
/* Initiator ACK/SACK/NACK processing (src/pds/pds_ack.c). */

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "pds_fakewire.h"
#include "pds_private.h"

static struct uet_pds_tx R[16];  /* requests, PSN start + i */
static struct uet_pds_tx A0;     /* ACK of R[0]: establishes the PDC */

static int
setup_tweaked(void (*tweak)(struct uet_pds_config *cfg))
{
	int k;

	if (fakewire_setup_with(13, tweak))
		return -1;
	for (k = 0; k < 16; k++)
		if (fakewire_submit(&W, UET_PDS_MODE_RUD, (uint64_t)k, 0))
			return -1;
	if (fakewire_take(&W, 0, R, 16) != 16)
		return -1;
	fakewire_inject(&W, 1, &R[0], false, false);
	if (!fakewire_take_type(&W, 1, UET_PDS_TYPE_ACK, &A0))
		return -1;
	fakewire_inject(&W, 0, &A0, false, false);
	return 0;
}

static int
setup(void **state)
{
	(void)state;
	return setup_tweaked(NULL);
}

/* A congestion window of 8 packets of the fake wire's 1024 B MTU. */
static void
cwnd_8(struct uet_pds_config *cfg)
{
	cfg->cc_param = 8 * 1024;
}

static int
setup_cwnd_8(void **state)
{
	(void)state;
	return setup_tweaked(cwnd_8);
}

static uint32_t
psn(int i)
{
	return R[0].hdr.u.req.psn + (uint32_t)i;
}

/* The target has request i (SACK, RCVD_SES_PROCG) and has not answered
 * it: out of flight, not complete (UEC 1.0 3.5.20.3.2). */
static bool
received(int i)
{
	const struct pds_pdc *c = &W.pds[0]->pdc[0];

	return pds_slot(W.pds[0], c, psn(i))->state == SLOT_WAIT &&
	       W.done_ok[i] == 0;
}

/* CACK at request i: what the target has below it is answered. */
static void
cack_to(int i)
{
	struct uet_pds_tx a = A0;

	a.hdr.u.ack.cack_psn = psn(i);
	fakewire_inject(&W, 0, &a, false, false);
}

static struct uet_pds_tx
ack_cc(uint32_t cack, uint32_t base, uint64_t bitmap)
{
	struct uet_pds_tx a = A0;

	a.hdr.type = UET_PDS_TYPE_ACK_CC;
	a.hdr.u.ack.cack_psn = cack;
	a.hdr.u.ack.ack_psn_offset = 0;
	a.hdr.u.ack.sack_psn_offset = (int16_t)(base - cack);
	a.hdr.u.ack.sack_bitmap = bitmap;
	return a;
}

static struct uet_pds_tx
nack(uint8_t code, uint32_t p)
{
	struct uet_pds_tx n;

	memset(&n, 0, sizeof(n));
	n.hdr.type = UET_PDS_TYPE_NACK;
	n.hdr.u.nack.code = code;
	n.hdr.u.nack.psn = p;
	n.hdr.u.nack.spdcid = A0.hdr.u.ack.spdcid;
	n.hdr.u.nack.dpdcid = A0.hdr.u.ack.dpdcid;
	n.kind = UET_PDS_TX_CTL;
	return n;
}

static uint16_t
retx(struct uet_pds_tx *tx, uint16_t n)
{
	uint16_t k = fakewire_take(&W, 0, tx, n), i, r = 0;

	for (i = 0; i < k; i++)
		if (tx[i].kind == UET_PDS_TX_RETX)
			tx[r++] = tx[i];
	return r;
}

static void
pds_initiator_ack__cack_completes_prefix(void **state)
{
	struct uet_pds_tx a = A0;
	int k;

	(void)state;
	a.hdr.u.ack.cack_psn = psn(4);
	fakewire_inject(&W, 0, &a, false, false);
	for (k = 0; k <= 4; k++)
		assert_int_equal(W.done_ok[k], 1);
	assert_int_equal(W.done_ok[5], 0);
	assert_int_equal(W.pds[0]->pdc[0].u.i.una, psn(5));
}

static void
pds_initiator_ack__sack_receives_and_infers_loss(void **state)
{
	struct uet_pds_tx a, tx[16];
	int k;

	(void)state;
	/* Holes at 1 and 2; 3..7 received (bits 2..6 from base 1). */
	a = ack_cc(psn(0), psn(1), 0x7Cu);
	fakewire_inject(&W, 0, &a, false, false);
	assert_true(received(3));
	assert_true(received(7));
	assert_int_equal(W.done_ok[1], 0);
	/* 1 and 2 are >= 3 PSNs below the highest SACKed: retransmitted,
	 * and counted as they leave. */
	assert_int_equal(fakewire_st(0)->retx_sack, 0);
	assert_int_equal(retx(tx, 16), 2);
	assert_int_equal(fakewire_st(0)->retx_sack, 2);
	assert_int_equal(tx[0].hdr.u.req.psn, psn(1));
	assert_int_equal(tx[1].hdr.u.req.psn, psn(2));
	assert_true(tx[0].hdr.flags & UET_PDS_F_RETX);
	/* The same SACK again does not retransmit twice. */
	fakewire_inject(&W, 0, &a, false, false);
	assert_int_equal(fakewire_st(0)->retx_sack, 2);
	/* CACK passing them completes them (default responses). */
	cack_to(7);
	for (k = 1; k <= 7; k++)
		assert_int_equal(W.done_ok[k], 1);
}

static void
pds_initiator_ack__sack_edges(void **state)
{
	struct uet_pds_tx a, tx[16];

	(void)state;
	/* Bit 63 and bits below una / beyond snd are ignored safely. */
	a = ack_cc(psn(0), psn(15) - 63, UINT64_C(1) << 63 | 1u);
	fakewire_inject(&W, 0, &a, false, false);
	assert_true(received(15));
	/* psn 1..11: 3+ below 15 */
	assert_int_equal(retx(tx, 16), 11);
	assert_int_equal(fakewire_st(0)->retx_sack, 11);
	/* A CACK beyond anything sent is rejected. */
	a = ack_cc(psn(40), psn(41), 1);
	fakewire_inject(&W, 0, &a, false, false);
	assert_true(fakewire_st(0)->rx_stale >= 1);
	assert_int_equal(W.done_ok[14], 0);
}

/* Single path (the default): a trim asks for another EV, but a PDC with
 * packets in flight keeps its path for single_hold_rtts (test_pds_lb.c
 * covers the spraying modes). */
static void
pds_initiator_nack__trimmed_retransmits_on_held_path(void **state)
{
	struct uet_pds_tx n = nack(UET_NACK_TRIMMED, psn(3)), tx[16];

	(void)state;
	n.ev = R[3].ev; /* the NACK echoes the trimmed packet's EV */
	fakewire_inject(&W, 0, &n, false, false);
	assert_int_equal(retx(tx, 16), 1);
	assert_int_equal(tx[0].hdr.u.req.psn, psn(3));
	assert_int_equal(tx[0].ev, R[3].ev);
	assert_int_equal(R[3].ev, R[0].ev);
	assert_int_equal(fakewire_st(0)->nack_rx[UET_NACK_TRIMMED], 1);
	assert_int_equal(fakewire_st(0)->lb_ev_foreign, 0);
}

static void
pds_initiator_nack__oor_and_lasthop_retransmit(void **state)
{
	struct uet_pds_tx n, tx[16];

	(void)state;
	n = nack(UET_NACK_PSN_OOR_WINDOW, psn(9));
	fakewire_inject(&W, 0, &n, false, false);
	n = nack(UET_NACK_TRIMMED_LASTHOP, psn(10));
	fakewire_inject(&W, 0, &n, false, false);
	assert_int_equal(retx(tx, 16), 2);
	assert_int_equal(fakewire_st(0)->retx_nack, 1);
	assert_int_equal(fakewire_st(0)->retx_trim, 1);
}

static void
pds_initiator_nack__resource_backs_off(void **state)
{
	struct uet_pds_tx n = nack(UET_NACK_NO_RESOURCE, psn(2)), tx[16];

	(void)state;
	fakewire_inject(&W, 0, &n, false, false);
	assert_int_equal(fakewire_take(&W, 0, tx, 16), 0);
	W.now += 200000;
	uet_pds_advance(W.pds[0], W.now);
	assert_int_equal(retx(tx, 16), 1);
	assert_int_equal(tx[0].hdr.u.req.psn, psn(2));
	assert_int_equal(fakewire_st(0)->retx_backoff, 1);
}

static void
pds_initiator_nack__fatal_fails_pending(void **state)
{
	struct uet_pds_tx n = nack(UET_NACK_PDC_HDR_MISMATCH, psn(2));
	int k;

	(void)state;
	fakewire_inject(&W, 0, &n, false, false);
	for (k = 1; k < 16; k++)
		assert_int_equal(W.done_err[k], 1);
	assert_int_equal(W.last_status[0], -ECONNRESET);
	assert_int_equal(fakewire_st(0)->pdc_fail, 1);
}

static void
pds_initiator_nack__stale_psn_ignored(void **state)
{
	struct uet_pds_tx n = nack(UET_NACK_INV_DPDCID, psn(100));

	(void)state;
	fakewire_inject(&W, 0, &n, false, false);
	assert_int_equal(fakewire_st(0)->pdc_fail, 0);
	assert_int_equal(fakewire_st(0)->rx_stale, 1);
}

static void
pds_initiator_nack__closing_moves_request_to_new_pdc(void **state)
{
	struct uet_pds_tx n = nack(UET_NACK_CLOSING, psn(5)), tx[16];
	uint16_t k, i;
	bool found = false;

	(void)state;
	fakewire_inject(&W, 0, &n, false, false);
	k = fakewire_take(&W, 0, tx, 16);
	for (i = 0; i < k; i++)
		if (tx[i].cookie == 5 && (tx[i].hdr.flags & UET_PDS_F_SYN))
			found = true;
	assert_true(found);
	assert_int_equal(fakewire_st(0)->pdc_open_init, 2);
	assert_int_equal(W.done_err[5], 0);
}

/* Retransmissions of @p cookie among those that leave now. */
static uint16_t
resent(uint64_t cookie)
{
	struct uet_pds_tx tx[16];
	uint16_t k = retx(tx, 16), i, r = 0;

	for (i = 0; i < k; i++)
		r += tx[i].cookie == cookie;
	return r;
}

/* The ULP's messages among R (uet_pds_ulp.msg_of): 4, 5, 6 one message,
 * 6 its last packet; 9, 10 the first packets of one still being
 * submitted; 15 and the 16, 17 submitted after R, 17 its last; every
 * other request a message of its own. */
static uint64_t
msg_of_r(void *arg, uint64_t cookie, bool *last, bool *open)
{
	(void)arg;
	*last = cookie == 6 || cookie == 17;
	*open = cookie == 9 || cookie == 10;
	if (cookie >= 4 && cookie <= 6)
		return 1;
	if (cookie >= 15 && cookie <= 17)
		return 3;
	return cookie == 9 || cookie == 10 ? 2 : 0;
}

static const struct uet_pds_ulp ulp_msgs = { .msg_of = msg_of_r };

/* The initiator PDC of R's key now: the new one after a move. */
static struct pds_pdc *
key_pdc(void)
{
	return pds_ikey_find(W.pds[0], &W.fa[1], 42, 1, UET_PDS_MODE_RUD);
}

/* NACK CLOSING of @p i; the transmissions that follow are the moved
 * requests, on one new PDC, SYN: returns the cookies as a bit mask. */
static uint32_t
closing_moves(int i)
{
	struct uet_pds_tx n = nack(UET_NACK_CLOSING, psn(i)), tx[16];
	uint32_t mask = 0;
	uint16_t k, j;

	fakewire_inject(&W, 0, &n, false, false);
	k = fakewire_take(&W, 0, tx, 16);
	for (j = 0; j < k; j++) {
		assert_int_equal(tx[j].kind, UET_PDS_TX_NEW);
		assert_true(tx[j].hdr.flags & UET_PDS_F_SYN);
		assert_int_equal(tx[j].hdr.u.req.spdcid, tx[0].hdr.u.req.spdcid);
		assert_int_not_equal(tx[j].hdr.u.req.spdcid,
				     R[0].hdr.u.req.spdcid);
		mask |= 1u << tx[j].cookie;
	}
	assert_int_equal(fakewire_st(0)->pdc_open_init, 2);
	return mask;
}

/* NACK CLOSING of a packet of a multi-packet message moves every packet
 * of it still unacknowledged, together, to the same new PDC: the closing
 * target refuses one only when none of the message is in. Moved one at a
 * time, as each copy met a refusal, the packets of one message went to
 * different PDCs, where the target took each for a message of its own,
 * which never completed and held a record (fuzz_dst,
 * retx-bound.holes-moved-one-by-one). The message's last packet moved with
 * it: the new PDC holds nothing open. */
static void
pds_initiator_nack__closing_moves_the_whole_message(void **state)
{
	struct uet_pds_tx n = nack(UET_NACK_CLOSING, psn(4)), tx[16];

	(void)state;
	assert_int_equal(uet_pds_set_ulp(W.pds[0], &ulp_msgs), 0);
	assert_int_equal(closing_moves(5), 1u << 4 | 1u << 5 | 1u << 6);
	assert_int_equal(key_pdc()->open_msgs, 0);
	/* A late copy of the refusal of 4, moved already, moves nothing. */
	fakewire_inject(&W, 0, &n, false, false);
	assert_int_equal(fakewire_take(&W, 0, tx, 16), 0);
	assert_int_equal(fakewire_st(0)->pdc_open_init, 2);
}

/* The same for a message the ULP is still submitting: it stays open on
 * the new PDC, where its next packets go, until its last one. */
static void
pds_initiator_nack__closing_message_still_open_on_new_pdc(void **state)
{
	struct uet_pds_tx tx[4];

	(void)state;
	assert_int_equal(uet_pds_set_ulp(W.pds[0], &ulp_msgs), 0);
	assert_int_equal(closing_moves(10), 1u << 9 | 1u << 10);
	assert_int_equal(key_pdc()->open_msgs, 1);
	assert_int_equal(fakewire_submit(&W, UET_PDS_MODE_RUD, 16,
					 UET_PDS_SUBMIT_EOM), 0);
	assert_int_equal(fakewire_take(&W, 0, tx, 4), 1);
	assert_int_not_equal(tx[0].hdr.u.req.spdcid, R[0].hdr.u.req.spdcid);
	assert_int_equal(key_pdc()->open_msgs, 0);
}

/* Packets of the message not sent yet (queued behind the window) move
 * too, and the old PDC never sends them: its next PSNs skip them, and its
 * una passes them once the rest is acknowledged (it ran past its send
 * point onto a freed transmit block: uet-dst generator 1 seed 3074552). */
static void
pds_initiator_nack__closing_moves_packets_not_sent(void **state)
{
	struct uet_pds_tx tx[16];
	uint16_t k, i;

	(void)state;
	assert_int_equal(uet_pds_set_ulp(W.pds[0], &ulp_msgs), 0);
	assert_int_equal(fakewire_submit(&W, UET_PDS_MODE_RUD, 16, 0), 0);
	assert_int_equal(fakewire_submit(&W, UET_PDS_MODE_RUD, 17,
					 UET_PDS_SUBMIT_EOM), 0);
	assert_int_equal(closing_moves(15),
			 1u << 15 | 1u << 16 | 1u << 17);
	cack_to(14);
	assert_int_equal(W.pds[0]->pdc[0].u.i.una, W.pds[0]->pdc[0].u.i.nxt);
	W.now += 1000000;
	uet_pds_advance(W.pds[0], W.now);
	k = fakewire_take(&W, 0, tx, 16);
	for (i = 0; i < k; i++) /* the old PDC's CLOSE; the new one's RTO */
		assert_true(tx[i].hdr.type == UET_PDS_TYPE_CP ||
			    tx[i].hdr.u.req.spdcid != R[0].hdr.u.req.spdcid);
	assert_int_equal(fakewire_st(0)->tx_ctl[UET_PDS_CTL_CLOSE], 1);
	assert_int_equal(fakewire_st(0)->pdc_open_init, 2);
}

/*
 * The closing target refuses a packet of a message the ULP has handed
 * over whole (none of it in) while the ULP's next message, begun on the
 * PDC (the target took its first packets, and takes what continues it),
 * is still being submitted. The PDC takes the rest of that message, and
 * closes after its last packet (its close held); the refused message
 * moves at once, whole, to the key's next PDC. Unkeyed at once, the open
 * message's next packets went to the new PDC, where the target's SES
 * reassembles no message it did not see begin; kept the key's for all,
 * the PDC made the refused message wait for its end, and with it the
 * ULP's next messages to the key, which that end could wait for in turn
 * (fuzz_dst, three hangs, test/dst/fuzz-fixed/hang.*).
 */
static void
pds_initiator_nack__closing_keeps_the_open_message_on_its_pdc(void **state)
{
	struct uet_pds_tx n = nack(UET_NACK_CLOSING, psn(5)), tx[16];
	struct pds_pdc *a = &W.pds[0]->pdc[0];
	uint16_t k, i;
	uint32_t mask = 0;

	(void)state;
	assert_int_equal(uet_pds_set_ulp(W.pds[0], &ulp_msgs), 0);
	a->open_msgs = 1; /* the ULP's message of 9, 10 begun on it */
	pds_ulp_open_set(W.pds[0], a, true);
	fakewire_inject(&W, 0, &n, false, false);
	assert_int_equal(fakewire_st(0)->close_held, 1);
	assert_int_equal(fakewire_st(0)->move_waited, 0);
	assert_ptr_not_equal(key_pdc(), a);
	assert_ptr_equal(pds_ikey_find_open(W.pds[0], &W.fa[1], 42, 1,
					    UET_PDS_MODE_RUD), a);
	k = fakewire_take(&W, 0, tx, 16);
	for (i = 0; i < k; i++) {
		assert_true(tx[i].hdr.flags & UET_PDS_F_SYN);
		assert_int_equal(tx[i].hdr.u.req.spdcid, key_pdc()->lid);
		mask |= 1u << tx[i].cookie;
	}
	assert_int_equal(mask, 1u << 4 | 1u << 5 | 1u << 6);
	/* The open message's last packet goes on it; then it closes. */
	assert_int_equal(fakewire_submit(&W, UET_PDS_MODE_RUD, 18,
					 UET_PDS_SUBMIT_EOM), 0);
	assert_int_equal(fakewire_take(&W, 0, tx, 16), 1);
	assert_int_equal(tx[0].cookie, 18);
	assert_int_equal(tx[0].hdr.u.req.spdcid, R[0].hdr.u.req.spdcid);
	assert_int_equal(a->open_msgs, 0);
	assert_null(pds_ikey_find_open(W.pds[0], &W.fa[1], 42, 1,
				       UET_PDS_MODE_RUD));
	assert_int_equal(key_pdc()->open_msgs, 0);
	assert_int_equal(fakewire_st(0)->pdc_open_init, 2);
}

static int
setup_unestablished(void **state)
{
	(void)state;
	return fakewire_setup_with(13, NULL);
}

/*
 * A message is open on a PDC not established (UET_PDS_SUBMIT_SOM; this
 * ULP names no messages, msg_of NULL), its window full, and the closing
 * target refuses every request in flight: it took nothing on the PDC, so
 * no message was begun there, and the PDC is its key's no more. Kept the
 * key's for the open message, it waited for that message's next packets,
 * which it could only queue past the moved PSNs, out of the range the
 * target's CACK (below them) leaves, with nothing in flight and no timer:
 * they never left, nor did the moved requests waiting for its end
 * (fuzz_dst, test/dst/fuzz-fixed/hang.held-pdc-open-message).
 */
static void
pds_initiator_nack__closing_unestablished_holds_no_message(void **state)
{
	struct uet_pds_tx tx[80], n;
	struct pds_pdc *a, *b;
	uint64_t seen = 0;
	uint32_t c, psn_63;
	uint16_t k, i;

	(void)state;
	for (c = 0; c < 64; c++)
		assert_int_equal(fakewire_submit(&W, UET_PDS_MODE_RUD, c,
						 c == 0 ? UET_PDS_SUBMIT_SOM
							: 0),
				 0);
	assert_int_equal(fakewire_take(&W, 0, tx, 80), 64);
	psn_63 = tx[63].hdr.u.req.psn;
	a = key_pdc();
	assert_int_equal(a->state, PDC_SYN);
	assert_int_equal(a->open_msgs, 1);
	n = nack(UET_NACK_CLOSING, 0);
	n.hdr.u.nack.dpdcid = a->lid;
	n.hdr.u.nack.spdcid = 77;
	for (c = 0; c < 63; c++) {
		n.hdr.u.nack.psn = tx[c].hdr.u.req.psn;
		fakewire_inject(&W, 0, &n, false, false);
		/* 63 is still in flight: A takes the open message's rest */
		assert_ptr_equal(pds_ikey_find_open(W.pds[0], &W.fa[1], 42, 1,
						    UET_PDS_MODE_RUD), a);
	}
	b = key_pdc(); /* the refused ones went on at once */
	assert_ptr_not_equal(b, a);
	/* The open message goes on: out of the target's range, it waits. */
	for (c = 64; c < 70; c++)
		assert_int_equal(fakewire_submit(&W, UET_PDS_MODE_RUD, c, 0),
				 0);
	assert_int_equal(a->u.i.nxt - a->u.i.una, 7);
	n.hdr.u.nack.psn = psn_63;
	fakewire_inject(&W, 0, &n, false, false);
	assert_int_equal(a->open_msgs, 0);
	assert_null(pds_ikey_find_open(W.pds[0], &W.fa[1], 42, 1,
				       UET_PDS_MODE_RUD));
	assert_int_equal(a->u.i.una, a->u.i.nxt); /* the 6 unsent moved too */
	/* B takes a window of them, in order; the rest waits for room. */
	k = fakewire_take(&W, 0, tx, 80);
	assert_int_equal(k, 64);
	for (i = 0; i < k; i++) {
		assert_true(tx[i].hdr.flags & UET_PDS_F_SYN);
		assert_int_equal(tx[i].hdr.u.req.spdcid, b->lid);
		seen |= UINT64_C(1) << tx[i].cookie;
	}
	assert_true(seen == UINT64_MAX);
	assert_int_equal(W.pds[0]->mv_n, 6);
	assert_int_equal(fakewire_st(0)->move_dropped, 0);
}

/* A moved request keeps its refusals (resource NACKs): it fails after
 * max_backoffs of them in all, however often its target closes the PDC
 * under it. Counted afresh on each new PDC, a target closing every PDC
 * quiet for a back-off round (its message records held by messages
 * waiting for receives) moved one request from PDC to PDC every 1.3 ms
 * for good (fuzz_dst). */
static void
pds_initiator_nack__closing_move_keeps_its_refusals(void **state)
{
	struct uet_pds_tx n = nack(UET_NACK_NO_SES_MSG_AVAIL, psn(2)), tx[16];
	struct uet_pds_config cfg;
	uint32_t k;

	(void)state;
	fakewire_test_config(&cfg);
	for (k = 0; k < 3; k++) {
		fakewire_inject(&W, 0, &n, false, false);
		W.now += (cfg.backoff_init_ns << k) + 1;
		uet_pds_advance(W.pds[0], W.now);
		assert_int_equal(retx(tx, 16), 1);
		assert_int_equal(tx[0].hdr.u.req.psn, psn(2));
	}
	assert_int_equal(closing_moves(2), 1u << 2);
	assert_int_equal(pds_slot(W.pds[0], key_pdc(),
				  key_pdc()->u.i.una)->refusals, 3);
	/* Refused on the new PDC too: it fails at the limit. */
	fakewire_take(&W, 0, tx, 16);
	n = nack(UET_NACK_NO_SES_MSG_AVAIL, psn(2));
	n.hdr.u.nack.dpdcid = key_pdc()->lid;
	for (k = 3; k < cfg.max_backoffs; k++) {
		n.hdr.u.nack.psn = key_pdc()->u.i.una;
		fakewire_inject(&W, 0, &n, false, false);
		assert_int_equal(W.done_err[2], 0);
		W.now += cfg.backoff_max_ns + 1;
		uet_pds_advance(W.pds[0], W.now);
		assert_int_equal(resent(2), 1); /* with RTO resends of R */
	}
	fakewire_inject(&W, 0, &n, false, false);
	assert_int_equal(W.done_err[2], 1);
	assert_int_equal(W.last_status[0], -ECONNREFUSED);
}

/* Hand @p t to the target and its answers (past the ACK delay) back. */
static void
target_answers(const struct uet_pds_tx *t)
{
	struct uet_pds_tx a[16];
	uint16_t k, i;

	fakewire_inject(&W, 1, t, false, false);
	W.now += 100000;
	uet_pds_advance(W.pds[1], W.now);
	k = fakewire_take(&W, 1, a, 16);
	for (i = 0; i < k; i++)
		fakewire_inject(&W, 0, &a[i], false, false);
}

/* 4, 5, 6 and 164 complete, and PDC @p arg (a handle) is gone. */
static bool
moved_done(struct fakewire *w, void *arg)
{
	return w->done_ok[4] && w->done_ok[5] && w->done_ok[6] &&
	       w->done_ok[164] &&
	       pds_handle_pdc(w->pds[0], *(uint32_t *)arg) == NULL;
}

/*
 * The key's new PDC may have no room for what moves (its window full of
 * other requests): what does not fit waits, in order, and goes as room
 * opens, before any later request of the ULP to the key, and the
 * message holds that PDC open from its first packet there to its last.
 * Submitted there regardless, the packets past the window failed with
 * -ECONNABORTED (a send failed on a target's close) and the hold its
 * first packet had put on the PDC was never released: the PDC never
 * closed (fuzz_dst, test/dst/fuzz-fixed/leak.*).
 */
/* 1 refused and moved to a new PDC B, which the ULP then fills (100 to
 * 162: @p tx, the first send of 1: @p first); then 4, 5, 6, a message,
 * refused: no room for them on B, they wait. Returns B. */
static struct pds_pdc *
move_waits_behind_full_pdc(struct uet_pds_tx *first, struct uet_pds_tx *tx)
{
	struct uet_pds_tx n = nack(UET_NACK_CLOSING, psn(1));
	struct pds_pdc *b;
	uint32_t c;

	assert_int_equal(uet_pds_set_ulp(W.pds[0], &ulp_msgs), 0);
	fakewire_inject(&W, 0, &n, false, false);
	assert_int_equal(fakewire_take(&W, 0, first, 1), 1);
	assert_int_equal(first->cookie, 1);
	b = key_pdc();
	for (c = 100; c < 163; c++)
		assert_int_equal(fakewire_submit(&W, UET_PDS_MODE_RUD, c, 0),
				 0);
	assert_int_equal(b->u.i.nxt - b->u.i.una, 64);
	assert_int_equal(fakewire_take(&W, 0, tx, 64), 63);
	n.hdr.u.nack.psn = psn(5);
	fakewire_inject(&W, 0, &n, false, false);
	assert_int_equal(fakewire_st(0)->move_waited, 3);
	assert_int_equal(W.done_err[4] + W.done_err[5] + W.done_err[6], 0);
	assert_int_equal(b->open_msgs, 0);
	return b;
}

static void
pds_initiator_nack__closing_move_waits_for_room(void **state)
{
	struct uet_pds_tx first, tx[64];
	struct pds_pdc *b;
	uint32_t c, h;

	(void)state;
	b = move_waits_behind_full_pdc(&first, tx);
	h = pds_handle(W.pds[0], pds_idx(W.pds[0], b));
	/* One slot opens: 4 takes it, not the ULP's next request, which
	 * waits behind 5 and 6; the message holds the PDC from 4 on. */
	target_answers(&first);
	assert_int_equal(fakewire_submit(&W, UET_PDS_MODE_RUD, 164, 0),
			 -EAGAIN);
	assert_int_equal(b->open_msgs, 1);
	assert_ptr_equal(key_pdc(), b);
	/* Asked to close meanwhile, it takes the rest of the message only,
	 * and closes once 6 is on it. */
	assert_int_equal(uet_pds_pdc_close(W.pds[0], h, W.now), 0);
	assert_int_equal(fakewire_st(0)->close_held, 1);
	assert_ptr_not_equal(key_pdc(), b);
	target_answers(&tx[0]);
	target_answers(&tx[1]);
	assert_int_equal(fakewire_submit(&W, UET_PDS_MODE_RUD, 164, 0), 0);
	assert_int_equal(b->open_msgs, 0);
	assert_ptr_not_equal(key_pdc(), b);
	/* The moved message and the ULP's request complete, delivered
	 * once, and the PDC closes. (The old PDC does not: its target,
	 * not closing, waits for the PSNs that moved.) */
	assert_true(fakewire_run(&W, 10000, 200000000, moved_done, &h));
	for (c = 4; c <= 6; c++) {
		assert_int_equal(W.delivered[c], 1);
		assert_int_equal(W.done_err[c], 0);
	}
	for (c = 100; c < 163; c++)
		assert_int_equal(W.done_ok[c], 1);
	assert_int_equal(fakewire_st(0)->move_dropped, 0);
}

/* The PDC a moved message holds fails: what of the message still waits
 * to join it fails with it, as its own packets do, and never goes on a
 * new PDC, where the target would meet the rest of a message it never
 * saw begin. */
static void
pds_initiator_nack__closing_move_fails_with_the_pdc_holding_it(void **state)
{
	struct uet_pds_tx first, tx[64], n;
	struct pds_pdc *b;

	(void)state;
	b = move_waits_behind_full_pdc(&first, tx);
	target_answers(&first);
	uet_pds_advance(W.pds[0], W.now); /* 4 goes, and holds B */
	assert_int_equal(b->open_msgs, 1);
	n = nack(UET_NACK_PDC_HDR_MISMATCH, b->u.i.una);
	n.hdr.u.nack.dpdcid = b->lid;
	fakewire_inject(&W, 0, &n, false, false);
	assert_int_equal(W.done_err[4], 1);
	assert_int_equal(W.done_err[5], 1);
	assert_int_equal(W.done_err[6], 1);
	assert_int_equal(W.last_status[0], -ECONNRESET);
	assert_int_equal(W.pds[0]->mv_n, 0);
	W.now += 1000000;
	uet_pds_advance(W.pds[0], W.now);
	assert_int_equal(resent(5) + resent(6), 0);
}

/* B's closing target refuses another of its requests while 4, the
 * first packet of the message that moved there, is still on B, and B
 * lets go of the messages open on it (pds_nack_closing, a B that keeps
 * no key: here by hand): 5 and 6, waiting to join 4, keep waiting for B
 * (4's own answer decides) and do not go on the key's next PDC; 4
 * refused too, the message moves whole, its three packets on one PDC.
 * Let go with the others, 5 and 6 went on a new PDC while 4 was still
 * answered on B: one message on two PDCs, which the target took for
 * two (fuzz_dst, leak.defer-split-by-moves). */
static void
pds_initiator_nack__closing_other_keeps_the_message_with_its_packet(
	void **state)
{
	struct uet_pds_tx first, tx[64], four, n;
	struct pds_pdc *b;
	uint16_t k, i, spdc = 0;
	uint32_t seen = 0;

	(void)state;
	b = move_waits_behind_full_pdc(&first, tx);
	target_answers(&first);
	uet_pds_advance(W.pds[0], W.now); /* 4 goes, and holds B */
	assert_int_equal(b->open_msgs, 1);
	k = fakewire_take(&W, 0, tx + 1, 63);
	for (i = 1; i <= k && tx[i].cookie != 4; i++)
		;
	assert_true(i <= k);
	four = tx[i];
	assert_int_equal(four.hdr.u.req.spdcid, b->lid);
	pds_ikey_del(W.pds[0], b);
	b->flags &= (uint16_t)~PDC_F_KEYED;
	b->flags |= PDC_F_CLOSE_REQ;
	b->open_msgs = 0;
	pds_move_unhold(W.pds[0], b, 0);
	pds_move_drain(W.pds[0], W.now);
	assert_int_equal(W.pds[0]->mv_n, 2);
	assert_int_equal(fakewire_take(&W, 0, tx, 64), 0);
	/* 4 refused: 4, 5 and 6 go together */
	n = nack(UET_NACK_CLOSING, four.hdr.u.req.psn);
	n.hdr.u.nack.dpdcid = b->lid;
	n.hdr.u.nack.spdcid = b->rid;
	fakewire_inject(&W, 0, &n, false, false);
	k = fakewire_take(&W, 0, tx, 64);
	for (i = 0; i < k; i++) {
		if (tx[i].cookie < 4 || tx[i].cookie > 6)
			continue;
		seen |= 1u << tx[i].cookie;
		if (spdc == 0)
			spdc = tx[i].hdr.u.req.spdcid;
		assert_int_equal(tx[i].hdr.u.req.spdcid, spdc);
	}
	assert_int_equal(seen, 1u << 4 | 1u << 5 | 1u << 6);
	assert_int_not_equal(spdc, b->lid);
}

/* A PDC whose close waits for the message it holds open takes nothing
 * else of its key: requests refused meanwhile go on the key's next PDC
 * at once. Made to wait for its end, with the packets of its own message
 * queued behind them, they never went, the PDC never closed, and the
 * ULP's next message waited behind them all (fuzz_dst,
 * hang.held-packets-behind-refused). */
static void
pds_initiator_nack__closing_held_pdc_takes_only_its_message(void **state)
{
	struct uet_pds_tx n = nack(UET_NACK_CLOSING, psn(1)), tx[16];
	struct uet_pds *p = W.pds[0];
	struct pds_pdc *b;
	uint32_t mask = 0;
	uint16_t k, i;

	(void)state;
	assert_int_equal(uet_pds_set_ulp(p, &ulp_msgs), 0);
	fakewire_inject(&W, 0, &n, false, false); /* 1 moves to B */
	assert_int_equal(fakewire_take(&W, 0, tx, 16), 1);
	b = key_pdc();
	/* B's close waits for a message it holds open */
	b->open_msgs = 1;
	b->flags |= PDC_F_CLOSE_REQ;
	n.hdr.u.nack.psn = psn(2);
	fakewire_inject(&W, 0, &n, false, false);
	n.hdr.u.nack.psn = psn(5);
	fakewire_inject(&W, 0, &n, false, false);
	assert_int_equal(p->mv_n, 0);
	assert_ptr_not_equal(key_pdc(), b);
	k = fakewire_take(&W, 0, tx, 16);
	for (i = 0; i < k; i++) {
		assert_int_equal(tx[i].hdr.u.req.spdcid, key_pdc()->lid);
		mask |= 1u << tx[i].cookie;
	}
	assert_int_equal(mask, 1u << 2 | 1u << 4 | 1u << 5 | 1u << 6);
	assert_int_equal(b->open_msgs, 1);
}

static void
backoffs_3(struct uet_pds_config *cfg)
{
	cfg->max_backoffs = 3;
}

static int
setup_backoffs_3(void **state)
{
	(void)state;
	return setup_tweaked(backoffs_3);
}

/* A target that answers NACK CLOSING on every PDC: the request moves
 * max_backoffs times, then fails (-ECONNREFUSED) instead of moving, and
 * holding its operation, for good. */
static void
pds_initiator_nack__closing_forever_fails_after_max_moves(void **state)
{
	struct uet_pds_tx n = nack(UET_NACK_CLOSING, psn(2)), tx[16];
	uint32_t k;

	(void)state;
	for (k = 0; k < 3; k++) {
		fakewire_inject(&W, 0, &n, false, false);
		assert_int_equal(fakewire_take(&W, 0, tx, 16), 1);
		assert_int_equal(tx[0].cookie, 2);
		assert_true(tx[0].hdr.flags & UET_PDS_F_SYN);
		assert_int_equal(W.done_err[2], 0);
		n.hdr.u.nack.dpdcid = tx[0].hdr.u.req.spdcid;
		n.hdr.u.nack.spdcid = 0;
		n.hdr.u.nack.psn = tx[0].hdr.u.req.psn;
	}
	fakewire_inject(&W, 0, &n, false, false);
	assert_int_equal(fakewire_take(&W, 0, tx, 16), 0);
	assert_int_equal(W.done_err[2], 1);
	assert_int_equal(W.last_status[0], -ECONNREFUSED);
	assert_int_equal(fakewire_st(0)->move_limit, 1);
	assert_int_equal(fakewire_st(0)->pdc_open_init, 4);
}

/* Each packet counts its own refusals, which the PDC's progress does not
 * reset: refused again and again while the packets after it are accepted
 * (a target freeing one message record at a time for others), it waits
 * longer each time, and its PDC fails after max_backoffs refusals of it.
 * Counted per PDC and reset by each accepted packet, its waits went back
 * to the shortest after each: 215 resends in 27 ms (fuzz_dst,
 * retx-bound). */
static void
backoffs_6(struct uet_pds_config *cfg)
{
	cfg->max_backoffs = 6;
}

static int
setup_backoffs_6(void **state)
{
	(void)state;
	return setup_tweaked(backoffs_6);
}

static void
pds_initiator_nack__refusals_counted_per_packet(void **state)
{
	struct uet_pds_tx n = nack(UET_NACK_NO_SES_MSG_AVAIL, psn(2)), r;
	struct uet_pds_config cfg;
	uint64_t wait;
	uint32_t k;

	(void)state;
	fakewire_test_config(&cfg);
	for (k = 1; k <= 6; k++) {
		fakewire_inject(&W, 0, &n, false, false);
		/* the next request is in meanwhile (RCVD_SES_PROCG: its
		 * target has it) */
		r = nack(UET_NACK_RCVD_SES_PROCG, psn(2 + (int)k));
		fakewire_inject(&W, 0, &r, false, false);
		assert_true(received(2 + (int)k));
		assert_int_equal(W.done_err[2], 0);
		wait = cfg.backoff_init_ns << (k - 1);
		if (wait > cfg.backoff_max_ns)
			wait = cfg.backoff_max_ns;
		/* the PDS's timers run to about 20 us */
		W.now += wait - 20000;
		uet_pds_advance(W.pds[0], W.now);
		assert_int_equal(resent(2), 0);
		W.now += 40000;
		uet_pds_advance(W.pds[0], W.now);
		assert_int_equal(resent(2), 1);
	}
	fakewire_inject(&W, 0, &n, false, false);
	assert_int_equal(W.done_err[2], 1);
	assert_int_equal(W.last_status[0], -ECONNREFUSED);
}

/* A fresh wire with six ROD requests (cookies 0 to 5) sent: @p tx. */
static void
rod_six_sent(struct uet_pds_tx *tx)
{
	struct uet_pds_config cfg;
	uint16_t k;

	fakewire_fini(&W);
	fakewire_test_config(&cfg);
	assert_int_equal(fakewire_init(&W, &cfg, 5), 0);
	for (k = 0; k < 6; k++)
		assert_int_equal(fakewire_submit(&W, UET_PDS_MODE_ROD, k, 0), 0);
	assert_int_equal(fakewire_take(&W, 0, tx, 8), 6);
}

static void
pds_initiator_ack__rod_ooo_goes_back_n(void **state)
{
	struct uet_pds_tx tx[8], a, n;
	uint16_t k;

	(void)state;
	rod_six_sent(tx);
	fakewire_inject(&W, 1, &tx[0], false, false);
	fakewire_inject(&W, 1, &tx[1], false, false);
	assert_true(fakewire_take_type(&W, 1, UET_PDS_TYPE_ACK, &a));
	fakewire_inject(&W, 1, &tx[3], false, false);
	assert_true(fakewire_take_type(&W, 1, UET_PDS_TYPE_NACK, &n));
	fakewire_inject(&W, 0, &n, false, false);
	/* 1 is received; the ACK's CACK (before the NACK) completes it. */
	assert_int_equal(pds_slot(W.pds[0], &W.pds[0]->pdc[0],
				  tx[1].hdr.u.req.psn)->state, SLOT_WAIT);
	fakewire_inject(&W, 0, &a, false, false);
	assert_int_equal(W.done_ok[1], 1);
	k = fakewire_take(&W, 0, tx, 8);
	assert_int_equal(k, 4);
	assert_int_equal(tx[0].cookie, 2);
	assert_int_equal(tx[3].cookie, 5);
}

/*
 * ROD retransmits in PSN order, a packet a receiver resource refused
 * (its back-off over) with the losses after it: the target takes only
 * the expected PSN. Sent before the refused packet, the later losses
 * only met ROD_OOO, and with a window of one packet the refused one
 * waited behind them at every RTO while a later one went again each
 * time (fuzz_dst, test/dst/fuzz-fixed/retx-bound.rod-tail-behind-
 * refused-hole: 34 resends in 27 ms).
 */
static void
pds_initiator_nack__rod_refused_resent_in_order(void **state)
{
	struct uet_pds_tx tx[8], a, n;
	uint16_t k;

	(void)state;
	rod_six_sent(tx);
	fakewire_inject(&W, 1, &tx[0], false, false);
	assert_true(fakewire_take_type(&W, 1, UET_PDS_TYPE_ACK, &a));
	fakewire_inject(&W, 0, &a, false, false);
	memset(&n, 0, sizeof(n));
	n.kind = UET_PDS_TX_CTL;
	n.hdr.type = UET_PDS_TYPE_NACK;
	n.hdr.flags = UET_PDS_F_ISROD;
	n.hdr.u.nack.spdcid = a.hdr.u.ack.spdcid;
	n.hdr.u.nack.dpdcid = a.hdr.u.ack.dpdcid;
	n.hdr.u.nack.code = UET_NACK_NO_RESOURCE; /* 1 refused */
	n.hdr.u.nack.psn = tx[1].hdr.u.req.psn;
	fakewire_inject(&W, 0, &n, false, false);
	n.hdr.u.nack.code = UET_NACK_TRIMMED; /* 2 lost: 2..5 go back */
	n.hdr.u.nack.psn = tx[2].hdr.u.req.psn;
	fakewire_inject(&W, 0, &n, false, false);
	W.now += 1000000; /* past the back-off */
	uet_pds_advance(W.pds[0], W.now);
	k = fakewire_take(&W, 0, tx, 8);
	assert_true(k >= 2);
	assert_int_equal(tx[0].cookie, 1);
	assert_int_equal(tx[1].cookie, 2);
}

/* ---- loss recovery over the fake wire (fake clock, no wall clock) ---- */

#define REC_N 40          /* requests in one window */
#define REC_VICTIM 7      /* the cookie whose transmissions are dropped */
static uint32_t rec_drops; /* how many of its data transmissions to drop */

static bool
rec_drop(struct fakewire *w, int from, const struct uet_pds_tx *t)
{
	(void)w;
	if (from != 0 || t->kind == UET_PDS_TX_CTL || t->cookie != REC_VICTIM ||
	    rec_drops == 0)
		return false;
	rec_drops--;
	return true;
}

static bool
rec_all_done(struct fakewire *w, void *arg)
{
	uint32_t c;

	(void)arg;
	for (c = 0; c < REC_N; c++)
		if (w->done_ok[c] + w->done_err[c] == 0)
			return false;
	return true;
}

static bool
rec_first_done(struct fakewire *w, void *arg)
{
	uint32_t c;

	(void)arg;
	for (c = 100; c < 108; c++)
		if (w->done_ok[c] == 0)
			return false;
	return true;
}

static int
setup_rec(void **state)
{
	(void)state;
	if (fakewire_setup_with(21, NULL))
		return -1;
	W.jitter_ns = 0;          /* FIFO wire: only the targeted drops */
	W.drop_fn = rec_drop;
	return 0;
}

/* Submit REC_N requests in one go and run until all completed. */
static void
rec_run(uint8_t mode)
{
	uint32_t c;

	for (c = 0; c < REC_N; c++)
		assert_int_equal(fakewire_submit(&W, mode, c, 0), 0);
	assert_true(fakewire_run(&W, 1000, 100000000ull, rec_all_done, NULL));
	for (c = 0; c < REC_N; c++) {
		assert_int_equal(W.done_ok[c], 1);
		assert_int_equal(W.delivered[c], 1);
	}
	assert_int_equal(W.bad_payload, 0);
}

/* RUD, one packet of a window lost: the SACK of the later packets makes
 * the sender resend it at once, long before the TLP or RTO could. */
static void
pds_recovery__rud_single_drop_repaired_by_sack(void **state)
{
	(void)state;
	rec_drops = 1;
	rec_run(UET_PDS_MODE_RUD);
	assert_int_equal(fakewire_st(0)->retx_sack, 1);
	assert_int_equal(fakewire_st(0)->rto_fires, 0);
	assert_int_equal(fakewire_st(0)->tlp_fires, 0);
	assert_int_equal(fakewire_st(1)->dup_rx, 0);
	assert_true(W.now < W.pds[0]->cfg.tlp_ns);
}

/* RUD, the packet and its SACK-driven resend are lost: the next SACK
 * shows the resend missing while packets sent after it arrived, so it is
 * resent again without waiting for the TLP / RTO. */
static void
pds_recovery__rud_lost_resend_sent_again(void **state)
{
	uint32_t c;

	(void)state;
	/* A few requests first for an RTT sample. */
	for (c = 100; c < 108; c++)
		assert_int_equal(fakewire_submit(&W, UET_PDS_MODE_RUD, c, 0), 0);
	assert_true(fakewire_run(&W, 1000, 1000000ull, rec_first_done, NULL));
	assert_true(W.pds[0]->pdc[0].u.i.srtt_ns > 0);
	/* Steady traffic, one request per microsecond: packets sent after
	 * the resend are the evidence that it was lost too. */
	rec_drops = 2;
	for (c = 0; c < REC_N; c++) {
		assert_int_equal(fakewire_submit(&W, UET_PDS_MODE_RUD, c, 0), 0);
		fakewire_step(&W, 1000);
	}
	assert_true(fakewire_run(&W, 1000, 100000000ull, rec_all_done, NULL));
	for (c = 0; c < REC_N; c++)
		assert_int_equal(W.delivered[c], 1);
	assert_int_equal(rec_drops, 0);
	assert_int_equal(fakewire_st(0)->retx_sack, 1);
	assert_int_equal(fakewire_st(0)->retx_again, 1);
	assert_int_equal(fakewire_st(0)->rto_fires, 0);
	assert_int_equal(fakewire_st(0)->tlp_fires, 0);
}

/* ROD, one packet lost: one go-back-N from the hole on the NACK, no RTO,
 * everything delivered once and in order. */
static void
pds_recovery__rod_single_drop_one_goback(void **state)
{
	uint32_t c;

	(void)state;
	rec_drops = 1;
	rec_run(UET_PDS_MODE_ROD);
	assert_int_equal(fakewire_st(0)->rod_goback, 1);
	assert_int_equal(fakewire_st(0)->rto_fires, 0);
	assert_int_equal(fakewire_st(1)->dup_rx, 0);
	for (c = 0; c < REC_N; c++)
		assert_int_equal(W.order[c], c);
	assert_true(W.now < W.pds[0]->cfg.tlp_ns);
}

/* ROD: a NACK for a hole whose resend has just left is stale (sent before
 * the resend could arrive): no second go-back of the window. */
static void
pds_recovery__rod_stale_nack_ignored(void **state)
{
	struct uet_pds_tx tx[8], n, a;
	uint16_t k;

	(void)state;
	W.drop_fn = NULL;
	for (k = 0; k < 6; k++)
		assert_int_equal(fakewire_submit(&W, UET_PDS_MODE_ROD, k, 0), 0);
	assert_int_equal(fakewire_take(&W, 0, tx, 8), 6);
	fakewire_inject(&W, 1, &tx[0], false, false);
	assert_true(fakewire_take_type(&W, 1, UET_PDS_TYPE_ACK, &a));
	W.now += 5000;
	fakewire_inject(&W, 0, &a, false, false);   /* RTT sample: 5 us */
	assert_true(W.pds[0]->pdc[0].u.i.srtt_ns > 0);
	fakewire_inject(&W, 1, &tx[2], false, false);
	assert_true(fakewire_take_type(&W, 1, UET_PDS_TYPE_NACK, &n));
	fakewire_inject(&W, 0, &n, false, false);
	assert_int_equal(fakewire_st(0)->rod_goback, 1);
	assert_int_equal(fakewire_take(&W, 0, tx, 8), 5);   /* 1..5 resent */
	/* The same NACK again (a re-NACK still on its way): no second
	 * go-back, the hole alone is resent. */
	fakewire_inject(&W, 0, &n, false, false);
	assert_int_equal(fakewire_st(0)->rod_goback, 1);
	assert_int_equal(fakewire_st(0)->rod_nack_stale, 1);
	assert_int_equal(fakewire_take(&W, 0, tx, 8), 1);
	assert_int_equal(tx[0].cookie, 1);
	/* An RTT later the hole is still open: the NACK counts again. */
	W.now += 20000;
	fakewire_inject(&W, 0, &n, false, false);
	assert_int_equal(fakewire_st(0)->rod_goback, 2);
	assert_int_equal(fakewire_take(&W, 0, tx, 8), 5);
}

/* ROD, a new PDC whose first packet was lost: no ACK has come, so there
 * is no RTT sample, and a re-NACK of the hole (the target's rod_renack on
 * the go-back's resends past a lost resend of the hole, or a NACK still on
 * its way) is no fresher evidence than with one: within rto_init of the
 * hole's resend it resends the hole alone. Going back at each of them
 * (no SRTT, no guard) resent the window once per NACK, each go-back
 * drawing more re-NACKs: 1347 resends of one PSN in 38 ms and its link
 * queue 240 ms deep (fuzz_dst retx-bound, generator 9), requests carrying
 * a CLEAR_PSN 18 ms old. */
static void
pds_recovery__rod_stale_nack_without_rtt_sample(void **state)
{
	struct uet_pds_tx tx[8], n;
	uint16_t k;

	(void)state;
	W.drop_fn = NULL;
	for (k = 0; k < 6; k++)
		assert_int_equal(fakewire_submit(&W, UET_PDS_MODE_ROD, k, 0), 0);
	assert_int_equal(fakewire_take(&W, 0, tx, 8), 6);
	/* 0 lost: 1 opens the target's PDC past the hole. */
	fakewire_inject(&W, 1, &tx[1], false, false);
	assert_true(fakewire_take_type(&W, 1, UET_PDS_TYPE_NACK, &n));
	assert_int_equal(n.hdr.u.nack.code, UET_NACK_ROD_OOO);
	assert_int_equal(n.hdr.u.nack.psn, tx[0].hdr.u.req.psn);
	W.now += 5000;
	fakewire_inject(&W, 0, &n, false, false);
	assert_int_equal(W.pds[0]->pdc[0].u.i.srtt_ns, 0);
	assert_int_equal(fakewire_st(0)->rod_goback, 1);
	assert_int_equal(fakewire_take(&W, 0, tx, 8), 6);   /* 0..5 resent */
	/* Re-NACKs of the hole within rto_init: the hole alone each time. */
	for (k = 0; k < 4; k++) {
		W.now += 5000;
		fakewire_inject(&W, 0, &n, false, false);
		assert_int_equal(fakewire_st(0)->rod_goback, 1);
		assert_int_equal(fakewire_st(0)->rod_nack_stale, k + 1);
		assert_int_equal(fakewire_take(&W, 0, tx, 8), 1);
		assert_int_equal(tx[0].cookie, 0);
	}
	/* rto_init after the hole's last resend, it still is not in: the
	 * NACK counts again. */
	W.now += W.pds[0]->cfg.rto_init_ns;
	fakewire_inject(&W, 0, &n, false, false);
	assert_int_equal(fakewire_st(0)->rod_goback, 2);
	assert_int_equal(fakewire_take(&W, 0, tx, 8), 6);
}

/* ROD: the go-back-N from hole 1 resends 1..5 and the resend of 3 is
 * lost. The NACK of 3 that the resend of 4 draws is fresh evidence
 * (3 was never NACKed before), though 3 left within the last SRTT: the
 * target dropped 4 and 5, so the sender goes back from 3 again, instead
 * of resending 3 alone and leaving 4 and 5 to the RTO. */
static void
pds_recovery__rod_lost_resend_inside_goback_goes_back(void **state)
{
	struct uet_pds_tx tx[8], n, a;
	uint16_t k;

	(void)state;
	W.drop_fn = NULL;
	for (k = 0; k < 6; k++)
		assert_int_equal(fakewire_submit(&W, UET_PDS_MODE_ROD, k, 0), 0);
	assert_int_equal(fakewire_take(&W, 0, tx, 8), 6);
	fakewire_inject(&W, 1, &tx[0], false, false);
	assert_true(fakewire_take_type(&W, 1, UET_PDS_TYPE_ACK, &a));
	W.now += 5000;
	fakewire_inject(&W, 0, &a, false, false);   /* RTT sample: 5 us */
	fakewire_inject(&W, 1, &tx[2], false, false);
	assert_true(fakewire_take_type(&W, 1, UET_PDS_TYPE_NACK, &n));
	fakewire_inject(&W, 0, &n, false, false);
	assert_int_equal(fakewire_st(0)->rod_goback, 1);
	assert_int_equal(fakewire_take(&W, 0, tx, 8), 5);   /* 1..5 resent */
	W.now += 1000;
	fakewire_inject(&W, 1, &tx[0], false, false);      /* 1, 2 arrive */
	fakewire_inject(&W, 1, &tx[1], false, false);
	fakewire_inject(&W, 1, &tx[3], false, false);      /* 3 lost: 4 past it */
	assert_true(fakewire_take_type(&W, 1, UET_PDS_TYPE_NACK, &n));
	assert_int_equal(n.hdr.u.nack.psn, tx[2].hdr.u.req.psn);
	fakewire_inject(&W, 0, &n, false, false);
	assert_int_equal(fakewire_st(0)->rod_nack_stale, 0);
	assert_int_equal(fakewire_st(0)->rod_goback, 2);
	assert_int_equal(fakewire_take(&W, 0, tx, 8), 3);   /* 3..5 resent */
	assert_int_equal(tx[0].cookie, 3);
	assert_int_equal(tx[2].cookie, 5);
}

/* ROD, six requests sent and @p unsent more queued; 0 completes on its
 * response (an atomic), which has not come: 0 holds una. The target NACKs
 * ROD_OOO for the hole 1 when 2 arrives (@p n); NACK CLOSING of 1
 * (@p closing) moves 1 to a new PDC. */
static void
rod_hole_closing(struct uet_pds_tx *n, struct uet_pds_tx *closing,
		 uint16_t unsent)
{
	struct uet_pds_tx tx[8];
	uint16_t k;

	W.drop_fn = NULL;
	assert_int_equal(fakewire_submit(&W, UET_PDS_MODE_ROD, 0,
					 UET_PDS_SUBMIT_RESP), 0);
	for (k = 1; k < 6 + unsent; k++)
		assert_int_equal(fakewire_submit(&W, UET_PDS_MODE_ROD, k, 0), 0);
	assert_int_equal(fakewire_take(&W, 0, tx, 6), 6);
	fakewire_inject(&W, 1, &tx[0], false, false);
	fakewire_take(&W, 1, tx + 6, 2);   /* the ACK of 0: lost */
	fakewire_inject(&W, 1, &tx[2], false, false);
	assert_true(fakewire_take_type(&W, 1, UET_PDS_TYPE_NACK, n));
	assert_int_equal(n->hdr.u.nack.code, UET_NACK_ROD_OOO);
	assert_int_equal(n->hdr.u.nack.psn, tx[1].hdr.u.req.psn);
	*closing = *n;
	closing->hdr.u.nack.code = UET_NACK_CLOSING;
	fakewire_inject(&W, 0, closing, false, false);
	assert_int_equal(fakewire_st(0)->pdc_open_init, 2);
}

/* ROD: NACK CLOSING moved the hole 1 to a new PDC; the closing target,
 * which accepted nothing from 1 on, NACKs ROD_OOO naming 1 for the packets
 * past it. 1 is no longer this PDC's to send: no go-back from it at any
 * of those NACKs, early or an RTT later (each went back over the window,
 * counted against no PSN's max_nack_retx: thousands of resends of one PSN
 * in 60 ms, uet-dst seed 2013361 of generator 3). */
static void
pds_rod_hole_gone__nacks_after_closing_resend_nothing(void **state)
{
	struct uet_pds_tx n, closing, tx[8];
	uint64_t stale;
	int k;

	(void)state;
	rod_hole_closing(&n, &closing, 0);
	fakewire_take(&W, 0, tx, 8);
	stale = fakewire_st(0)->rx_stale;
	for (k = 0; k < 8; k++) {
		fakewire_inject(&W, 0, &n, false, false);
		assert_int_equal(fakewire_take(&W, 0, tx, 8), 0);
		W.now += 20000;
	}
	assert_int_equal(fakewire_st(0)->rod_goback, 0);
	assert_int_equal(fakewire_st(0)->rx_stale, stale + 8);
	assert_int_equal(fakewire_retx_sent(0), 0);
}

/* ROD: NACK CLOSING of the hole 1 moves 1 and every later request, the
 * sent 2..5 and the unsent 6, 7, to the new PDC in PSN order: the closing
 * target accepted nothing from 1 on and never will on this PDC (2..5
 * stayed behind and were NACKed ROD_OOO naming the moved 1 until their
 * retries ran out: the message failed although its target only closed).
 * Each is delivered once, in order, and this PDC closes. */
static void
pds_rod_closing__later_requests_follow_the_hole(void **state)
{
	struct uet_pds_tx n, closing, tx[8];
	uint16_t k, i;

	(void)state;
	rod_hole_closing(&n, &closing, 2);
	k = fakewire_take(&W, 0, tx, 8);
	assert_int_equal(k, 7);
	for (i = 0; i < k; i++) {
		assert_int_equal(tx[i].cookie, i + 1);
		assert_int_not_equal(tx[i].hdr.u.req.spdcid,
				     n.hdr.u.nack.dpdcid);
	}
	fakewire_inject(&W, 0, &n, false, false);
	assert_int_equal(fakewire_take(&W, 0, tx, 8), 0);
	for (i = 0; i < k; i++)
		assert_int_equal(W.done_err[i + 1], 0);
}

static bool
pred_close_sent(struct fakewire *w, void *arg)
{
	(void)arg;
	return uet_pds_stats_get(w->pds[0])->tx_ctl[UET_PDS_CTL_CLOSE] != 0;
}

/* The first CLOSE of side 0 is lost. */
static bool
drop_first_close(struct fakewire *w, int from, const struct uet_pds_tx *t)
{
	return from == 0 && t->hdr.type == UET_PDS_TYPE_CP &&
	       t->hdr.next_hdr == UET_PDS_CTL_CLOSE &&
	       uet_pds_stats_get(w->pds[0])->tx_ctl[UET_PDS_CTL_CLOSE] == 1;
}

static bool
pred_closed(struct fakewire *w, void *arg)
{
	uint32_t c;

	(void)arg;
	for (c = 0; c < 6; c++)
		if (w->done_ok[c] != 1)
			return false;
	return uet_pds_stats_get(w->pds[0])->pdc_close_init == 1 &&
	       uet_pds_stats_get(w->pds[1])->pdc_close_tgt == 1;
}

/* ROD: a target asked to close NACKs CLOSING the hole 1; 1..5 move to a
 * new PDC, and the CLOSE of the old PDC takes the PSN the target expects,
 * the hole, so that the target accepts it: both ends free the PDC at
 * once. Numbered past the moved requests, the CLOSE was NACKed ROD_OOO
 * at every resend and the old PDC failed only after pds_dead_ns (uet-dst
 * generator 1 seed 5018278). A late NACK CLOSING of the hole, which names
 * the CLOSE's slot now, leaves the CLOSE alone. */
static void
pds_rod_closing_move_rest__close_takes_the_hole_psn(void **state)
{
	struct uet_pds_tx tx[8], cl;
	uint16_t k;

	(void)state;
	W.drop_fn = drop_first_close;
	for (k = 0; k < 6; k++)
		assert_int_equal(fakewire_submit(&W, UET_PDS_MODE_ROD, k, 0), 0);
	assert_int_equal(fakewire_take(&W, 0, tx, 8), 6);
	fakewire_inject(&W, 1, &tx[0], false, false);
	assert_int_equal(uet_pds_pdc_close(W.pds[1], W.last_pdc[1], W.now), 0);
	fakewire_inject(&W, 1, &tx[1], false, false);
	assert_true(fakewire_take_type(&W, 1, UET_PDS_TYPE_NACK, &cl));
	assert_int_equal(cl.hdr.u.nack.code, UET_NACK_CLOSING);
	assert_int_equal(cl.hdr.u.nack.psn, tx[1].hdr.u.req.psn);
	fakewire_inject(&W, 0, &cl, false, false);
	/* The ACK of 0 was lost: the RTO resends 0, whose ACK idles the
	 * old PDC; its CLOSE must be 1. */
	assert_true(fakewire_run(&W, 1000, pds_dead_ns(W.pds[0]) / 2,
				 pred_close_sent, NULL));
	/* That CLOSE was lost. A late copy of the NACK CLOSING of 1 names
	 * the CLOSE's slot now: not a request, it moves nothing, and the
	 * RTO resends the CLOSE. */
	fakewire_inject(&W, 0, &cl, false, false);
	assert_true(fakewire_run(&W, 1000, pds_dead_ns(W.pds[0]) / 2,
				 pred_closed, NULL));
	assert_int_equal(fakewire_st(0)->pdc_open_init, 2);
	assert_int_equal(fakewire_st(0)->pdc_fail, 0);
	assert_int_equal(fakewire_st(1)->close_req_giveup, 0);
	for (k = 0; k < 6; k++)
		assert_int_equal(W.delivered[k], 1);
}

/* A PSN NACKed (here trimmed) at every transmission is resent at once
 * max_nack_retx times; past that a NACK leaves it to the RTO, and its PDC
 * fails with -ETIMEDOUT once it has also made no progress for the RTO
 * rounds' time (pds_dead_ns), not while it still moves (congestion
 * without a backing-off CC). */
static void
pds_initiator_nack__retransmit_limit_fails_pdc(void **state)
{
	struct uet_pds_tx n = nack(UET_NACK_TRIMMED, psn(1)), tx[16];
	struct uet_pds_config cfg;
	uint32_t k;

	(void)state;
	fakewire_test_config(&cfg);
	for (k = 0; k < cfg.max_nack_retx; k++) {
		fakewire_inject(&W, 0, &n, false, false);
		/* A duplicate of the same NACK does not count. */
		fakewire_inject(&W, 0, &n, false, false);
		assert_int_equal(retx(tx, 16), 1);
		assert_int_equal(tx[0].hdr.u.req.psn, psn(1));
	}
	assert_int_equal(W.done_err[1], 0);
	assert_int_equal(fakewire_st(0)->retx_trim, cfg.max_nack_retx);
	assert_int_equal(fakewire_st(0)->retx_nack, 0);
	/* Over the limit, the PDC young: not resent at once, still in
	 * flight; the RTO resends it. */
	fakewire_inject(&W, 0, &n, false, false);
	assert_int_equal(retx(tx, 16), 0);
	assert_int_equal(fakewire_st(0)->nack_to_rto, 1);
	assert_int_equal(W.done_err[1], 0);
	assert_int_equal(fakewire_st(0)->nack_retx_limit, 0);
	W.now += W.pds[0]->cfg.rto_init_ns;
	uet_pds_advance(W.pds[0], W.now);
	assert_true(retx(tx, 16) >= 1);
	assert_int_equal(tx[0].hdr.u.req.psn, psn(1));
	assert_int_equal(W.done_err[1], 0);
	/* No progress for the RTO rounds' time (the ACK that would have
	 * moved it never came): given up. */
	W.now += pds_dead_ns(W.pds[0]);
	fakewire_inject(&W, 0, &n, false, false);
	assert_int_equal(W.done_err[1], 1);
	assert_int_equal(W.last_status[0], -ETIMEDOUT);
	assert_int_equal(fakewire_st(0)->nack_retx_limit, 1);
	assert_int_equal(fakewire_st(0)->pdc_fail, 1);
}

static bool
pred_done0(struct fakewire *w, void *arg)
{
	(void)arg;
	return w->done_ok[0] + w->done_err[0] != 0;
}

/* A packet trimmed at every attempt, alone in flight: its PDC fails
 * with -ETIMEDOUT within the RTO rounds' time (pds_dead_ns, 63 ms here)
 * after max_nack_retx resends at once and the RTO's (UEC 1.0 3.5.20.3.1,
 * Max_NACK_Retx_Cnt and Max_RTO_Retx_Cnt). @p dup: the network
 * duplicates every other NACK; a late copy, answering a transmission
 * already resent, once resent it again, so that the copies in flight
 * multiplied (150 000 resends in 10 ms, uet-dst seed 2992). */
static void
trimmed_every_time(uint32_t dup)
{
	const struct uet_pds_stats *st;
	uint64_t t0, bound;

	assert_int_equal(fakewire_setup_with(3, NULL), 0);
	W.f[0].trim = 1000000;
	W.f[1].dup = dup;
	assert_int_equal(fakewire_submit(&W, UET_PDS_MODE_RUD, 0, 0), 0);
	t0 = W.now;
	assert_true(fakewire_run(&W, 1000, 500ull * 1000 * 1000, pred_done0, NULL));
	st = fakewire_st(0);
	assert_int_equal(W.done_err[0], 1);
	assert_int_equal(W.done_ok[0], 0);
	assert_int_equal(W.delivered[0], 0);
	assert_int_equal(W.last_status[0], -ETIMEDOUT);
	assert_int_equal(st->pdc_fail, 1);
	assert_true(W.now - t0 <= pds_dead_ns(W.pds[0]) + 2 * 1000 * 1000);
	/* at once: max_nack_retx; then one per RTO (fixed) until the PDC
	 * fails, and a tail-loss probe ahead of each */
	assert_int_equal(st->retx_trim, W.pds[0]->cfg.max_nack_retx);
	assert_true(st->nack_to_rto >= 1);
	bound = 2ull * (pds_dead_ns(W.pds[0]) / W.pds[0]->cfg.rto_init_ns + 1);
	assert_true(st->retx_rto + st->retx_tlp <= bound);
}

static void
pds_nack_limit__alone_in_flight_fails_pdc(void **state)
{
	(void)state;
	trimmed_every_time(0);
}

static void
pds_nack_limit__duplicated_nacks_resend_bounded(void **state)
{
	(void)state;
	trimmed_every_time(500000);
}

/* NACK PKT_NOT_RCVD and RCVR_INFER_LOSS: the receiver does not have the
 * PSN; it is resent (docs/WIRE-DECISIONS.md "NACK reactions"). */
static void
pds_initiator_nack__not_received_and_inferred_loss_retransmit(void **state)
{
	struct uet_pds_tx n, tx[16];

	(void)state;
	n = nack(UET_NACK_PKT_NOT_RCVD, psn(2));
	fakewire_inject(&W, 0, &n, false, false);
	assert_int_equal(retx(tx, 16), 1);
	assert_int_equal(tx[0].hdr.u.req.psn, psn(2));
	n = nack(UET_NACK_RCVR_INFER_LOSS, psn(3));
	fakewire_inject(&W, 0, &n, false, false);
	assert_int_equal(retx(tx, 16), 1);
	assert_int_equal(tx[0].hdr.u.req.psn, psn(3));
	assert_int_equal(fakewire_st(0)->retx_nack, 2);
}

/* NACK ACK_WITH_DATA (UEC 1.0 NACK codes: resend the original packet,
 * the target cannot rebuild the ACK that carried its read data). */
static void
pds_initiator_nack__ack_with_data_retransmits(void **state)
{
	struct uet_pds_tx n = nack(UET_NACK_ACK_WITH_DATA, psn(5)), tx[16];

	(void)state;
	fakewire_inject(&W, 0, &n, false, false);
	assert_int_equal(retx(tx, 16), 1);
	assert_int_equal(tx[0].hdr.u.req.psn, psn(5));
	assert_int_equal(fakewire_st(0)->pdc_fail, 0);
}

/* NACK GTD_DEL_RESP_UNAVAIL and UNEXP_EVENT (UEC 1.0 NACK codes:
 * PDC-fatal): the PDC fails, its operations with -ECONNRESET. */
static void
pds_initiator_nack__gtd_resp_unavail_fails_pdc(void **state)
{
	struct uet_pds_tx n = nack(UET_NACK_GTD_DEL_RESP_UNAVAIL, psn(6));

	(void)state;
	fakewire_inject(&W, 0, &n, false, false);
	assert_int_equal(fakewire_st(0)->pdc_fail, 1);
	assert_int_equal(W.done_err[6], 1);
	assert_int_equal(W.last_status[0], -ECONNRESET);
}

static void
pds_initiator_nack__unexp_event_fails_pdc(void **state)
{
	struct uet_pds_tx n = nack(UET_NACK_UNEXP_EVENT, psn(7));

	(void)state;
	fakewire_inject(&W, 0, &n, false, false);
	assert_int_equal(fakewire_st(0)->pdc_fail, 1);
	assert_int_equal(W.done_err[7], 1);
	assert_int_equal(W.last_status[0], -ECONNRESET);
}

/* NACK RCVD_SES_PROCG: the target has the packet and its SES is still
 * at work (UEC 1.0 NACK codes: retransmit, the ACK may come first): it
 * is received, so nothing is resent now; it waits for its answer (CACK
 * or a response; the RTO resends it if neither comes). */
static void
pds_initiator_nack__rcvd_ses_procg_is_received(void **state)
{
	struct uet_pds_tx n = nack(UET_NACK_RCVD_SES_PROCG, psn(4)), tx[16];

	(void)state;
	fakewire_inject(&W, 0, &n, false, false);
	assert_true(received(4));
	assert_int_equal(retx(tx, 16), 0);
	assert_int_equal(fakewire_st(0)->retx_nack, 0);
	/* Once more (a duplicate): nothing changes. */
	fakewire_inject(&W, 0, &n, false, false);
	assert_true(received(4));
	assert_int_equal(retx(tx, 16), 0);
	assert_int_equal(fakewire_st(0)->pdc_fail, 0);
}

/* ---- SACK "no information" (UEC 1.0 SACK semantics) ---- */

#define BURST_N 200
#define BURST_LOST 10

static void
burst_window(struct uet_pds_config *cfg)
{
	cfg->tx_window = 256;
	cfg->rx_window = 256;
	cfg->tx_blocks = 2;
	cfg->rx_blocks = 2;
	cfg->event_queue = 1024;
	cfg->ctl_queue = 256;
	cfg->cc_param = 1u << 20;
}

static int
setup_burst(void **state)
{
	(void)state;
	return fakewire_setup_with(31, burst_window);
}

static bool
burst_done(struct fakewire *w, void *arg)
{
	uint32_t c;

	(void)arg;
	for (c = 0; c < BURST_N; c++)
		if (w->done_ok[c] == 0)
			return false;
	return true;
}

/*
 * A clear SACK bit, or a PSN below the bitmap base, is "no information":
 * with one packet lost among BURST_N that reach the receiver between two
 * of its transmit opportunities, the receiver sends an ACK per 16 KiB
 * trigger (not one for the burst, whose bitmap would cover only its last
 * 64 PSNs) and the sender resends the lost packet alone.
 */
static void
pds_ack_infer__burst_one_loss_one_retransmission(void **state)
{
	static struct uet_pds_tx tx[256];
	uint16_t n, k, i;
	uint64_t retx;
	uint32_t c;

	(void)state;
	W.jitter_ns = 0;
	for (c = 0; c < BURST_N; c++)
		assert_int_equal(fakewire_submit(&W, UET_PDS_MODE_RUD, c, 0), 0);
	n = fakewire_take(&W, 0, tx, 256);
	assert_int_equal(n, BURST_N);
	for (i = 0; i < n; i++)
		if (i != BURST_LOST)
			fakewire_inject(&W, 1, &tx[i], false, false);
	/* 199 packets of 1 KiB credit: an ACK per 16 KiB (the first of them
	 * also answers the first packet); the tail waits for the delayed
	 * ACK. */
	k = fakewire_take(&W, 1, tx, 256);
	assert_int_equal(k, (BURST_N - 1) / 16);
	for (i = 0; i < k; i++)
		fakewire_inject(&W, 0, &tx[i], false, false);
	/* marked; counted when it leaves */
	assert_int_equal(fakewire_st(0)->retx_sack, 0);
	assert_true(fakewire_run(&W, 1000, 100000000ull, burst_done, NULL));
	assert_int_equal(fakewire_st(0)->retx_sack, 1);
	retx = fakewire_st(0)->retx_sack + fakewire_st(0)->retx_nack +
	       fakewire_st(0)->retx_rto + fakewire_st(0)->retx_probe +
	       fakewire_st(0)->retx_again + fakewire_st(0)->retx_trim +
	       fakewire_st(0)->retx_tlp + fakewire_st(0)->retx_backoff;
	assert_int_equal(retx, 1);
	for (c = 0; c < BURST_N; c++)
		assert_int_equal(W.delivered[c], 1);
	assert_int_equal(fakewire_st(1)->dup_rx, 0);
}

/* PSNs below the bitmap base and a plain ACK's gap say nothing. */
static void
pds_ack_infer__below_bitmap_is_no_information(void **state)
{
	struct uet_pds_tx a, tx[16];

	(void)state;
	/* CACK 0, bitmap from 12: 12..15 received; 1..11 not reported. */
	a = ack_cc(psn(0), psn(12), 0xFu);
	fakewire_inject(&W, 0, &a, false, false);
	assert_true(received(12));
	assert_true(received(15));
	assert_int_equal(fakewire_st(0)->retx_sack, 0);
	/* A plain ACK of PSN 14 with CACK 0: no bitmap, no inference. */
	a = A0;
	a.hdr.u.ack.cack_psn = psn(0);
	a.hdr.u.ack.ack_psn_offset = 14;
	fakewire_inject(&W, 0, &a, false, false);
	assert_int_equal(fakewire_st(0)->retx_sack, 0);
	/* The bitmap from 1 shows 1 missing with 2..15 received. */
	a = ack_cc(psn(0), psn(1), 0x7FFEu);
	fakewire_inject(&W, 0, &a, false, false);
	assert_int_equal(retx(tx, 16), 1);
	assert_int_equal(tx[0].hdr.u.req.psn, psn(1));
	assert_int_equal(fakewire_st(0)->retx_sack, 1);
}

/* Below the bitmap, an ACK_CC's ooo_count decides: with at least a
 * congestion window of packets held beyond CACK (8 here) the PSNs under
 * the bitmap still unacknowledged are lost and resent at once, each once;
 * with fewer they wait. The receiver reports the newest 64 PSNs: with
 * more than 64 in flight, a hole at una never showed in a bitmap and
 * waited for the tail-loss probe (a failed spine link with REPS: 49 us
 * stalls, RCCC 2.56x the ideal on perm-reps-fail, docs/CONGESTION.md). */
static void
pds_ack_infer__below_bitmap_lost_with_a_window_beyond_cack(void **state)
{
	struct uet_pds_tx a, tx[16];
	int k;

	(void)state;
	/* CACK 0, bitmap from 12: 12..15 received; 1..11 under it. */
	a = ack_cc(psn(0), psn(12), 0xFu);
	a.hdr.u.ack.cc.nscc.ooo_count = 7;
	fakewire_inject(&W, 0, &a, false, false);
	assert_true(received(15));
	assert_int_equal(retx(tx, 16), 0);
	assert_int_equal(fakewire_st(0)->retx_sack, 0);
	/* The same from RCCC's cc_type, with 8 held: 1..11 go again. */
	a.hdr.u.ack.cc_type = UET_CC_TYPE_CREDIT;
	a.hdr.u.ack.cc.credit.ooo_count = 8;
	fakewire_inject(&W, 0, &a, false, false);
	assert_int_equal(retx(tx, 16), 11);
	for (k = 0; k < 11; k++) {
		assert_int_equal(tx[k].hdr.u.req.psn, psn(1 + k));
		assert_true(tx[k].hdr.flags & UET_PDS_F_RETX);
	}
	assert_int_equal(fakewire_st(0)->retx_sack, 11);
	/* Resent, they are not marked again by the same evidence. */
	fakewire_inject(&W, 0, &a, false, false);
	assert_int_equal(retx(tx, 16), 0);
	assert_int_equal(fakewire_st(0)->retx_sack, 11);
}

/* An ACK from side 1 carrying an 8-byte response for PSN @p p. */
static struct uet_pds_tx
ack_resp(uint32_t cack, uint32_t p)
{
	static const uint8_t bytes[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
	struct uet_pds_tx a = A0;

	a.hdr.next_hdr = UET_PDS_NEXT_RESPONSE;
	uet_wire_pds_ack_req_set(&a.hdr, UET_PDS_ACK_REQ_CLEAR);
	a.hdr.u.ack.cack_psn = cack;
	a.hdr.u.ack.ack_psn_offset = (int16_t)(p - cack);
	a.resp = bytes;
	a.resp_len = sizeof(bytes);
	return a;
}

/*
 * default_response__completes_by_cack: a spec target answers a message
 * that needs no guaranteed-delivery response by advancing CACK alone
 * (UEC 1.0 3.5.20.2): requests waiting for a response complete, OK, with
 * no response bytes, instead of failing after the retries.
 */
static void
default_response__completes_by_cack(void **state)
{
	struct uet_pds_tx tx[4], ack;
	int k;

	(void)state;
	assert_int_equal(fakewire_setup_with(13, NULL), 0);
	for (k = 0; k < 3; k++)
		assert_int_equal(fakewire_submit(&W, UET_PDS_MODE_RUD, 40 + (uint64_t)k,
					   UET_PDS_SUBMIT_RESP), 0);
	assert_int_equal(fakewire_take(&W, 0, tx, 4), 3);
	for (k = 0; k < 3; k++)
		fakewire_inject(&W, 1, &tx[k], false, false);
	assert_true(fakewire_take_type(&W, 1, UET_PDS_TYPE_ACK, &ack));
	assert_int_equal(ack.hdr.next_hdr, UET_PDS_NEXT_NONE);
	assert_int_equal(ack.hdr.u.ack.cack_psn, tx[2].hdr.u.req.psn);
	fakewire_inject(&W, 0, &ack, false, false);
	for (k = 0; k < 3; k++)
		assert_int_equal(W.done_ok[40 + k], 1);
	assert_int_equal(W.last_resp_len[0], 0);
	assert_int_equal(fakewire_st(0)->done_default, 3);
	/* Nothing was stored, so nothing is left to clear. */
	assert_int_equal(fakewire_take(&W, 0, tx, 4), 0);
}

/*
 * resp_early__not_dropped: a response may answer a packet that is not the
 * last of its message (an error reported early). SACKed, the packet waits
 * for it (UEC 1.0 3.5.20.3.2: arrived, not answered) and una stays below
 * it, so CLEAR_PSN does not let the target drop a response we have not
 * seen; the response completes it with its bytes. A response for a packet
 * CACK already passed (a target that did not hold CACK) answers nothing.
 */
static void
resp_early__not_dropped(void **state)
{
	struct uet_pds_tx a;

	(void)state;
	/* psn(2) SACKed: received, una stays at psn(1). */
	a = ack_cc(psn(0), psn(1), 0x2u);
	fakewire_inject(&W, 0, &a, false, false);
	assert_true(received(2));
	assert_int_equal(W.pds[0]->pdc[0].u.i.una, psn(1));
	/* Its response (an error, say) completes it with the bytes. */
	a = ack_resp(psn(0), psn(2));
	fakewire_inject(&W, 0, &a, false, false);
	assert_int_equal(W.done_ok[2], 1);
	assert_int_equal(W.late_resp[2], 0);
	assert_int_equal(W.last_resp_len[0], 8);
	assert_int_equal(W.last_resp[0][7], 8);
	/* A response for psn(1), not yet acknowledged: the same. */
	a = ack_resp(psn(0), psn(1));
	fakewire_inject(&W, 0, &a, false, false);
	assert_int_equal(W.done_ok[1], 1);
	assert_int_equal(W.late_resp[1], 0);
	assert_int_equal(W.pds[0]->pdc[0].u.i.una, psn(3));
	/* CACK completed psn(3); a response for it after that is stale. */
	cack_to(3);
	assert_int_equal(W.done_ok[3], 1);
	a = ack_resp(psn(3), psn(3));
	fakewire_inject(&W, 0, &a, false, false);
	assert_int_equal(W.late_resp[3], 0);
	assert_int_equal(W.done_ok[3], 1);
	assert_int_equal(fakewire_st(0)->resp_late, 0);
}

static void
tweak_no_tlp(struct uet_pds_config *cfg)
{
	cfg->tlp_ns = 0;
}

/*
 * rto__waiting_requests_above_una_not_resent: requests the target has,
 * waiting for their default response (CACK below them: a hole), are not
 * resent by the RTO; only the hole is. Their answer comes when CACK
 * passes them.
 */
static void
rto__waiting_requests_above_una_not_resent(void **state)
{
	struct uet_pds_tx tx[8], ack;
	uint16_t n, k, r = 0;

	(void)state;
	assert_int_equal(fakewire_setup_with(13, tweak_no_tlp), 0);
	W.resp_expected = true;
	W.resp_default = true;
	for (k = 0; k < 3; k++)
		assert_int_equal(fakewire_submit(&W, UET_PDS_MODE_RUD, 50 + k,
					   UET_PDS_SUBMIT_RESP), 0);
	assert_int_equal(fakewire_take(&W, 0, tx, 8), 3);
	/* The first is lost; the target has the other two. */
	fakewire_inject(&W, 1, &tx[1], false, false);
	fakewire_inject(&W, 1, &tx[2], false, false);
	assert_true(fakewire_take_type(&W, 1, UET_PDS_TYPE_ACK_CC, &ack));
	fakewire_inject(&W, 0, &ack, false, false);
	assert_int_equal(W.done_ok[51] + W.done_ok[52], 0);
	W.now += 5 * 1000 * 1000;
	uet_pds_advance(W.pds[0], W.now);
	n = fakewire_take(&W, 0, tx, 8);
	for (k = 0; k < n; k++)
		if (tx[k].kind == UET_PDS_TX_RETX) {
			assert_int_equal(tx[k].cookie, 50);
			r++;
		}
	assert_int_equal(r, 1);
	/* The hole repaired, CACK passes all three: done. */
	fakewire_inject(&W, 1, &tx[0], false, false);
	assert_true(fakewire_take_type(&W, 1, UET_PDS_TYPE_ACK, &ack));
	fakewire_inject(&W, 0, &ack, false, false);
	for (k = 0; k < 3; k++)
		assert_int_equal(W.done_ok[50 + k], 1);
}

/* A retransmission is counted when it leaves: of three packets SACK marks
 * lost, two are acknowledged before the transmit burst (they were late,
 * not lost); only the third is sent and counted, the two are
 * resend_cancelled. */
static void
pds_ack_slot__marked_then_acked_not_sent_nor_counted(void **state)
{
	struct uet_pds_tx a, tx[16];

	(void)state;
	/* 1, 2, 3 missing, 4..15 received: all three presumed lost. */
	a = ack_cc(psn(0), psn(1), 0x7FF8u);
	fakewire_inject(&W, 0, &a, false, false);
	assert_int_equal(fakewire_st(0)->retx_sack, 0);
	/* 1 and 2 arrive after all. */
	a = ack_cc(psn(2), psn(3), 0x1FFEu);
	fakewire_inject(&W, 0, &a, false, false);
	assert_int_equal(W.done_ok[1] + W.done_ok[2], 2);
	assert_int_equal(fakewire_st(0)->resend_cancelled, 2);
	assert_int_equal(retx(tx, 16), 1);
	assert_int_equal(tx[0].hdr.u.req.psn, psn(3));
	assert_int_equal(fakewire_st(0)->retx_sack, 1);
	assert_int_equal(fakewire_retx_sent(0), 1);
}

/* The target tracks 64 PSNs and says so in ACK_CCs; the initiator tracks
 * 256, and assumes the same of its peer until told. */
static int
setup_range(void **state)
{
	struct uet_pds_config cfg;
	int k;

	(void)state;
	if (fakewire_setup(state) != 0)
		return -1;
	for (k = 0; k < 2; k++) {
		uet_pds_free(W.pds[k]);
		fakewire_test_config(&cfg);
		cfg.tx_window = 256;
		cfg.tx_blocks = 2;
		cfg.cc_param = 1024 * 1024;
		cfg.rx_window = k == 0 ? 256 : 64;
		cfg.ack_cc_always = k == 1;
		cfg.seed = 40 + (uint64_t)k;
		W.pds[k] = uet_pds_create(&cfg);
		if (W.pds[k] == NULL)
			return -1;
	}
	return 0;
}

/*
 * pds_ack_range__idle_pdc_learns_the_range: the ACK_CC telling the
 * receiver's range (UEC 1.0 MP_Range, mpr) may come after another ACK
 * completed everything: it acknowledges nothing new, and still tells the
 * range the next burst must keep (64 of 100 leave, not 100).
 */
static void
pds_ack_range__idle_pdc_learns_the_range(void **state)
{
	static struct uet_pds_tx tx[128];
	struct uet_pds_tx req, ack_cc, ack;
	uint16_t k;

	(void)state;
	assert_int_equal(fakewire_submit(&W, UET_PDS_MODE_RUD, 0, 0), 0);
	assert_true(fakewire_take_type(&W, 0, UET_PDS_TYPE_RUD_REQ, &req));
	fakewire_inject(&W, 1, &req, false, false);
	assert_true(fakewire_take_type(&W, 1, UET_PDS_TYPE_ACK_CC, &ack_cc));
	assert_int_equal(ack_cc.hdr.u.ack.mpr, 6);
	ack = ack_cc;
	ack.hdr.type = UET_PDS_TYPE_ACK;
	fakewire_inject(&W, 0, &ack, false, false);
	assert_int_equal(W.done_ok[0], 1);
	fakewire_inject(&W, 0, &ack_cc, false, false);
	for (k = 1; k <= 100; k++)
		assert_int_equal(fakewire_submit(&W, UET_PDS_MODE_RUD, k, 0), 0);
	assert_int_equal(fakewire_take(&W, 0, tx, 128), 64);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
#define T(f) FW_TEST(f, setup)
		FW_TEST(pds_ack_range__idle_pdc_learns_the_range, setup_range),
		T(pds_initiator_ack__cack_completes_prefix),
		T(pds_initiator_ack__sack_receives_and_infers_loss),
		T(pds_initiator_ack__sack_edges),
		T(pds_initiator_nack__trimmed_retransmits_on_held_path),
		T(pds_initiator_nack__oor_and_lasthop_retransmit),
		T(pds_initiator_nack__resource_backs_off),
		T(pds_initiator_nack__fatal_fails_pending),
		T(pds_initiator_nack__stale_psn_ignored),
		T(pds_initiator_nack__closing_moves_request_to_new_pdc),
		T(pds_initiator_nack__closing_moves_the_whole_message),
		T(pds_initiator_nack__closing_message_still_open_on_new_pdc),
		T(pds_initiator_nack__closing_moves_packets_not_sent),
		T(pds_initiator_nack__closing_move_waits_for_room),
		T(pds_initiator_nack__closing_move_fails_with_the_pdc_holding_it),
		T(pds_initiator_nack__closing_keeps_the_open_message_on_its_pdc),
		T(pds_initiator_nack__closing_other_keeps_the_message_with_its_packet),
		T(pds_initiator_nack__closing_held_pdc_takes_only_its_message),
		FW_TEST(pds_initiator_nack__closing_unestablished_holds_no_message,
			setup_unestablished),
		FW_TEST(pds_initiator_nack__closing_forever_fails_after_max_moves,
			setup_backoffs_3),
		T(pds_initiator_nack__closing_move_keeps_its_refusals),
		FW_TEST(pds_initiator_nack__refusals_counted_per_packet,
			setup_backoffs_6),
		T(pds_initiator_ack__rod_ooo_goes_back_n),
		T(pds_initiator_nack__rod_refused_resent_in_order),
		T(pds_initiator_nack__retransmit_limit_fails_pdc),
		T(pds_initiator_nack__not_received_and_inferred_loss_retransmit),
		T(pds_initiator_nack__rcvd_ses_procg_is_received),
		T(pds_initiator_nack__ack_with_data_retransmits),
		T(pds_initiator_nack__gtd_resp_unavail_fails_pdc),
		T(pds_initiator_nack__unexp_event_fails_pdc),
		T(resp_early__not_dropped),
#undef T
		cmocka_unit_test_teardown(default_response__completes_by_cack,
					  fakewire_teardown),
		cmocka_unit_test_teardown(
			rto__waiting_requests_above_una_not_resent,
			fakewire_teardown),
		FW_TEST(pds_recovery__rud_single_drop_repaired_by_sack,
			setup_rec),
		FW_TEST(pds_recovery__rud_lost_resend_sent_again, setup_rec),
		FW_TEST(pds_recovery__rod_single_drop_one_goback, setup_rec),
		FW_TEST(pds_recovery__rod_stale_nack_ignored, setup_rec),
		FW_TEST(pds_recovery__rod_stale_nack_without_rtt_sample,
			setup_rec),
		FW_TEST(pds_recovery__rod_lost_resend_inside_goback_goes_back,
			setup_rec),
		FW_TEST(pds_rod_hole_gone__nacks_after_closing_resend_nothing,
			setup_rec),
		FW_TEST(pds_rod_closing__later_requests_follow_the_hole,
			setup_rec),
		FW_TEST(pds_rod_closing_move_rest__close_takes_the_hole_psn,
			setup_rec),
		FW_TEST(pds_ack_infer__burst_one_loss_one_retransmission,
			setup_burst),
		FW_TEST(pds_ack_infer__below_bitmap_is_no_information, setup),
		FW_TEST(pds_ack_infer__below_bitmap_lost_with_a_window_beyond_cack,
			setup_cwnd_8),
		FW_TEST(pds_ack_slot__marked_then_acked_not_sent_nor_counted,
			setup),
		cmocka_unit_test_teardown(
			pds_nack_limit__alone_in_flight_fails_pdc, fakewire_teardown),
		cmocka_unit_test_teardown(
			pds_nack_limit__duplicated_nacks_resend_bounded,
			fakewire_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
