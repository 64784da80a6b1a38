/* SPDX-License-Identifier: BSD-3-Clause */
/* Entropy values from the load balancer (src/pds/pds_lb.c and its callers:
 * every packet's EV comes from the CMS, ACKs/NACKs/losses feed it). */

#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "pds_fakewire.h"
#include "pds_private.h"

#define EV_BASE 49152
#define EV_COUNT 256

static struct uet_pds_tx T[512];

static void
tweak_lb(struct uet_pds_config *c, enum uet_cms_lb_mode mode)
{
	/* 256 packets of one PDC in flight at once */
	c->tx_window = 512;
	c->rx_window = 512;
	c->event_queue = 2048;
	c->ctl_queue = 1024;
	c->dgram_queue = 512;
	c->lb.mode = mode;
	c->lb.ev_base = EV_BASE;
	c->lb.ev_count = EV_COUNT;
}

static void
tweak_oblivious(struct uet_pds_config *c)
{
	tweak_lb(c, UET_CMS_LB_OBLIVIOUS);
}

static void
tweak_reps(struct uet_pds_config *c)
{
	tweak_lb(c, UET_CMS_LB_REPS);
}

static int
setup_oblivious(void **state)
{
	(void)state;
	return fakewire_setup_with(21, tweak_oblivious);
}

static int
setup_reps(void **state)
{
	(void)state;
	return fakewire_setup_with(22, tweak_reps);
}

/* Load-balancing state of side 0's RUD PDC to side 1. */
static struct uet_cms_lb *
lb0(void)
{
	uint32_t h;

	assert_int_equal(uet_pds_pdc_find(W.pds[0], &W.fa[1], 42, 1,
					  UET_PDS_MODE_RUD, &h), 0);
	return pds_lb(W.pds[0], pds_handle_pdc(W.pds[0], h));
}

static bool
ev_in_range(uint16_t ev)
{
	return ev >= EV_BASE && ev < EV_BASE + EV_COUNT;
}

/* Submit cookies [from, from + n) in @p mode and take what side 0 sends. */
static uint16_t
send_n(uint8_t mode, uint32_t from, uint32_t n)
{
	uint32_t k;

	for (k = 0; k < n; k++)
		assert_int_equal(fakewire_submit(&W, mode, from + k, 0), 0);
	return fakewire_take(&W, 0, T, (uint16_t)(sizeof(T) / sizeof(T[0])));
}

/* Oblivious: 256 consecutive packets of one PDC carry the 256 EVs of the
 * range, each once; the next round starts over in another order. */
static void
pds_lb_next__oblivious_one_round_covers_every_ev(void **state)
{
	uint8_t seen[EV_COUNT] = { 0 };
	uint16_t n, i, same = 0;
	uint16_t first[EV_COUNT];

	(void)state;
	n = send_n(UET_PDS_MODE_RUD, 0, EV_COUNT);
	assert_int_equal(n, EV_COUNT);
	for (i = 0; i < n; i++) {
		assert_int_equal(T[i].hdr.type, UET_PDS_TYPE_RUD_REQ);
		assert_true(ev_in_range(T[i].ev));
		seen[T[i].ev - EV_BASE]++;
		first[i] = T[i].ev;
	}
	for (i = 0; i < EV_COUNT; i++)
		assert_int_equal(seen[i], 1);
	/* second round: every EV once more, not in the same order */
	memset(seen, 0, sizeof(seen));
	n = send_n(UET_PDS_MODE_RUD, EV_COUNT, EV_COUNT - 1);
	assert_int_equal(n, EV_COUNT - 1);
	for (i = 0; i < n; i++) {
		seen[T[i].ev - EV_BASE]++;
		same += T[i].ev == first[i];
	}
	for (i = 0; i < EV_COUNT; i++)
		assert_true(seen[i] <= 1);
	assert_true(same < 16);
}

/* A retransmission asks the CMS again: a trimmed packet is resent on the
 * next EV of the round, not on the one that was trimmed. */
static void
pds_lb_next__retransmission_repicks(void **state)
{
	struct uet_pds_tx ack, nack, rt[8];
	uint16_t n, i;

	(void)state;
	n = send_n(UET_PDS_MODE_RUD, 0, 8);
	assert_int_equal(n, 8);
	fakewire_inject(&W, 1, &T[0], false, false);
	assert_true(fakewire_take_type(&W, 1, UET_PDS_TYPE_ACK, &ack));
	fakewire_inject(&W, 0, &ack, false, false);
	/* the target trims packet 5's NACK echoes its EV */
	fakewire_inject(&W, 1, &T[5], true, false);
	assert_true(fakewire_take_type(&W, 1, UET_PDS_TYPE_NACK, &nack));
	assert_int_equal(nack.hdr.u.nack.code, UET_NACK_TRIMMED);
	assert_int_equal(nack.ev, T[5].ev);
	fakewire_inject(&W, 0, &nack, false, false);
	n = fakewire_take(&W, 0, rt, 8);
	assert_int_equal(n, 1);
	assert_int_equal(rt[0].kind, UET_PDS_TX_RETX);
	assert_int_equal(rt[0].hdr.u.req.psn, T[5].hdr.u.req.psn);
	assert_true(ev_in_range(rt[0].ev));
	/* the ninth EV of the round: none of the first eight */
	for (i = 0; i < 8; i++)
		assert_int_not_equal(rt[0].ev, T[i].ev);
	assert_int_equal(fakewire_st(0)->lb_ev_foreign, 0);
}

/* ROD PDCs keep one path whatever the mode (UEC 1.0 3.6.16). */
static void
pds_lb_next__rod_single_path(void **state)
{
	uint16_t n, i;

	(void)state;
	n = send_n(UET_PDS_MODE_ROD, 0, 64);
	assert_int_equal(n, 64);
	for (i = 0; i < n; i++) {
		assert_int_equal(T[i].hdr.type, UET_PDS_TYPE_ROD_REQ);
		assert_int_equal(T[i].ev, T[0].ev);
	}
	assert_true(ev_in_range(T[0].ev));
}

/* Datagrams spray too: UUD in the oblivious order of the PDS. */
static void
pds_lb_dgram__uud_sprays(void **state)
{
	uint8_t seen[EV_COUNT] = { 0 };
	uint16_t n, i, k = 0;

	(void)state;
	for (i = 0; i < 4; i++) {
		n = send_n(UET_PDS_MODE_UUD, (uint32_t)i * 64, 64);
		assert_int_equal(n, 64);
		for (uint16_t j = 0; j < n; j++, k++) {
			assert_int_equal(T[j].hdr.type, UET_PDS_TYPE_UUD_REQ);
			seen[T[j].ev - EV_BASE]++;
		}
	}
	assert_int_equal(k, EV_COUNT);
	for (i = 0; i < EV_COUNT; i++)
		assert_int_equal(seen[i], 1);
}

/* Single path (the default): datagrams to one destination keep one EV. */
static void
pds_lb_dgram__single_keeps_one_ev(void **state)
{
	uint16_t n, i;

	(void)state;
	n = send_n(UET_PDS_MODE_UUD, 0, 16);
	assert_int_equal(n, 16);
	for (i = 0; i < n; i++)
		assert_int_equal(T[i].ev, T[0].ev);
	assert_true(T[0].ev >= 49152 && T[0].ev < 49152 + 256);
}

/* The target echoes the EV of the packet an ACK answers, with M set
 * when it was CE-marked, and REPS recycles the EV of an unmarked ACK. */
static void
pds_lb_ack__reps_recycles_echoed_ev(void **state)
{
	struct uet_pds_tx ack;
	uint16_t n;

	(void)state;
	n = send_n(UET_PDS_MODE_RUD, 0, 1);
	assert_int_equal(n, 1);
	assert_int_equal(fakewire_st(0)->lb_explored, 1);
	assert_int_equal(fakewire_st(0)->lb_recycled, 0);
	fakewire_inject(&W, 1, &T[0], false, false);
	assert_true(fakewire_take_type(&W, 1, UET_PDS_TYPE_ACK, &ack));
	assert_int_equal(ack.ev, T[0].ev);
	assert_int_equal(ack.hdr.flags & UET_PDS_F_M, 0);
	fakewire_inject(&W, 0, &ack, false, false);
	assert_int_equal(uet_cms_lb_cached(lb0()), 1);
	/* the next packet reuses it */
	n = send_n(UET_PDS_MODE_RUD, 1, 1);
	assert_int_equal(n, 1);
	assert_int_equal(T[0].ev, ack.ev);
	assert_int_equal(fakewire_st(0)->lb_recycled, 1);
	assert_int_equal(uet_cms_lb_cached(lb0()), 0);
}

/* A marked reply keeps its EV out of the ring and out of exploration for
 * one RTT: the next packet explores another EV. */
static void
pds_lb_ack__reps_marked_not_reused(void **state)
{
	struct uet_pds_tx ack;
	uint16_t n, ev;

	(void)state;
	n = send_n(UET_PDS_MODE_RUD, 0, 1);
	assert_int_equal(n, 1);
	ev = T[0].ev;
	fakewire_inject(&W, 1, &T[0], false, true);
	assert_true(fakewire_take_type(&W, 1, UET_PDS_TYPE_ACK, &ack));
	assert_int_equal(ack.ev, ev);
	assert_int_not_equal(ack.hdr.flags & UET_PDS_F_M, 0);
	fakewire_inject(&W, 0, &ack, false, false);
	assert_int_equal(uet_cms_lb_cached(lb0()), 0);
	n = send_n(UET_PDS_MODE_RUD, 1, 1);
	assert_int_equal(n, 1);
	assert_int_not_equal(T[0].ev, ev);
	assert_int_equal(fakewire_st(0)->lb_explored, 2);
}

/* An ACK for @p i of the packets of T carrying cack of T[i]'s PSN and
 * @p ev, built from a real ACK @p a0 of the same PDC. */
static struct uet_pds_tx
ack_at(const struct uet_pds_tx *a0, uint32_t cack, uint16_t ev)
{
	struct uet_pds_tx a = *a0;

	a.hdr.u.ack.cack_psn = cack;
	a.hdr.u.ack.ack_psn_offset = 0;
	a.ev = ev;
	return a;
}

/*
 * A timeout is a loss on the EV of the packet it is about: REPS forgets
 * that EV and freezes, reusing what it has cached without consuming it and
 * exploring nothing, until freeze_ns passed.
 */
static void
pds_lb_loss__reps_freezes_on_rto(void **state)
{
	struct uet_pds_tx a0, a, r[4];
	uint16_t n, e0, e1, i;
	uint64_t explored;
	uint32_t psn0;

	(void)state;
	/* two EVs explored, both come back unmarked: cache {e0, e1} */
	n = send_n(UET_PDS_MODE_RUD, 0, 2);
	assert_int_equal(n, 2);
	e0 = T[0].ev;
	e1 = T[1].ev;
	assert_int_not_equal(e0, e1);
	psn0 = T[0].hdr.u.req.psn;
	fakewire_inject(&W, 1, &T[0], false, false);
	assert_true(fakewire_take_type(&W, 1, UET_PDS_TYPE_ACK, &a0));
	fakewire_inject(&W, 0, &a0, false, false);
	a = ack_at(&a0, psn0 + 1, e1);
	fakewire_inject(&W, 0, &a, false, false);
	assert_int_equal(uet_cms_lb_cached(lb0()), 2);
	/* packets 2 and 3 take e0 and e1; 2 is ACKed (e0 back), 3 lost */
	n = send_n(UET_PDS_MODE_RUD, 2, 2);
	assert_int_equal(n, 2);
	assert_int_equal(T[0].ev, e0);
	assert_int_equal(T[1].ev, e1);
	a = ack_at(&a0, psn0 + 2, e0);
	fakewire_inject(&W, 0, &a, false, false);
	assert_int_equal(fakewire_st(0)->lb_freezes, 0);
	explored = fakewire_st(0)->lb_explored;
	/* the RTO of packet 3 */
	W.now += 2000000;
	uet_pds_advance(W.pds[0], W.now);
	assert_int_equal(fakewire_st(0)->rto_fires, 1);
	assert_int_equal(fakewire_st(0)->lb_freezes, 1);
	assert_true(uet_cms_lb_frozen(lb0(), &W.pds[0]->cfg.lb,
				      W.now));
	n = fakewire_take(&W, 0, r, 4);
	assert_int_equal(n, 1);
	assert_int_equal(r[0].kind, UET_PDS_TX_RETX);
	assert_int_equal(r[0].ev, e0);
	/* frozen: e0 again and again, nothing explored, e1 never */
	n = send_n(UET_PDS_MODE_RUD, 4, 4);
	assert_int_equal(n, 4);
	for (i = 0; i < n; i++)
		assert_int_equal(T[i].ev, e0);
	assert_int_equal(fakewire_st(0)->lb_explored, explored);
	/* after the freeze (1 ms, and at most two 8.3 us ticks) it is
	 * over (looked at within 256 ticks: uet_cms.h) */
	W.now += W.pds[0]->cfg.lb.freeze_ns + W.pds[0]->cfg.lb.freeze_ns / 2;
	assert_false(uet_cms_lb_frozen(lb0(), &W.pds[0]->cfg.lb,
				       W.now));
}

/* Frozen with its cache spent, REPS resends on the EV it kept: a reuse,
 * counted as recycled, not as explored (the count used to look at the
 * cache before the call, empty here). */
static void
pds_lb_next__frozen_reuse_counts_recycled(void **state)
{
	struct uet_pds_tx a0, r[4];
	uint64_t explored, recycled;
	uint16_t n, e0, i;

	(void)state;
	n = send_n(UET_PDS_MODE_RUD, 0, 1);
	assert_int_equal(n, 1);
	e0 = T[0].ev;
	fakewire_inject(&W, 1, &T[0], false, false);
	assert_true(fakewire_take_type(&W, 1, UET_PDS_TYPE_ACK, &a0));
	fakewire_inject(&W, 0, &a0, false, false);
	assert_int_equal(uet_cms_lb_cached(lb0()), 1);
	/* the next packet spends e0 and is lost */
	n = send_n(UET_PDS_MODE_RUD, 1, 1);
	assert_int_equal(n, 1);
	assert_int_equal(T[0].ev, e0);
	assert_int_equal(uet_cms_lb_cached(lb0()), 0);
	explored = fakewire_st(0)->lb_explored;
	recycled = fakewire_st(0)->lb_recycled;
	W.now += 2000000;
	uet_pds_advance(W.pds[0], W.now);
	assert_int_equal(fakewire_st(0)->lb_freezes, 1);
	n = fakewire_take(&W, 0, r, 4);
	assert_true(n >= 1);
	for (i = 0; i < n; i++)
		assert_int_equal(r[i].ev, e0);
	assert_int_equal(fakewire_st(0)->lb_explored, explored);
	assert_int_equal(fakewire_st(0)->lb_recycled, recycled + n);
}

/* An ACK covering several packets reports the EV it echoes only (its
 * round trip is the one known to work, pds_lb.c DECISION); a marked one
 * blocks it. */
static void
pds_lb_ack__coalesced_recycles_echoed_ev_only(void **state)
{
	struct uet_pds_tx a0, a;
	uint16_t n, e[6], i;
	uint32_t psn0;

	(void)state;
	n = send_n(UET_PDS_MODE_RUD, 0, 6);
	assert_int_equal(n, 6);
	for (i = 0; i < 6; i++)
		e[i] = T[i].ev;
	psn0 = T[0].hdr.u.req.psn;
	fakewire_inject(&W, 1, &T[0], false, false);
	assert_true(fakewire_take_type(&W, 1, UET_PDS_TYPE_ACK, &a0));
	fakewire_inject(&W, 0, &a0, false, false);
	assert_int_equal(uet_cms_lb_cached(lb0()), 1);
	/* one ACK for 1..3, echoing packet 3's EV: that one is cached */
	a = ack_at(&a0, psn0 + 3, e[3]);
	fakewire_inject(&W, 0, &a, false, false);
	assert_int_equal(uet_cms_lb_cached(lb0()), 2);
	/* marked, for 4..5: nothing recycled */
	a = ack_at(&a0, psn0 + 5, e[5]);
	a.hdr.flags |= UET_PDS_F_M;
	fakewire_inject(&W, 0, &a, false, false);
	assert_int_equal(uet_cms_lb_cached(lb0()), 2);
	/* the next packets reuse e0 and e3 (FIFO), then explore */
	n = send_n(UET_PDS_MODE_RUD, 6, 3);
	assert_int_equal(n, 3);
	assert_int_equal(T[0].ev, e[0]);
	assert_int_equal(T[1].ev, e[3]);
	assert_int_not_equal(T[2].ev, e[5]); /* blocked for an RTT */
	assert_int_equal(fakewire_st(0)->lb_recycled, 2);
}

/* Eight requests sent together, the first acknowledged 10 us later (an
 * RTT sample of 10 us); returns the first PSN and, in @p a, an ACK_CC of
 * the PDC with CACK there for the test to fill in. */
static uint32_t
sprayed_eight_one_rtt(struct uet_pds_tx *a)
{
	struct uet_pds_tx a0;
	uint32_t psn0;

	assert_int_equal(send_n(UET_PDS_MODE_RUD, 0, 8), 8);
	psn0 = T[0].hdr.u.req.psn;
	W.now += 10000;
	fakewire_inject(&W, 1, &T[0], false, false);
	assert_true(fakewire_take_type(&W, 1, UET_PDS_TYPE_ACK, &a0));
	fakewire_inject(&W, 0, &a0, false, false);
	assert_int_equal(fakewire_st(0)->rtt_samples, 1);
	*a = a0;
	a->hdr.type = UET_PDS_TYPE_ACK_CC;
	a->hdr.u.ack.cack_psn = psn0;
	return psn0;
}

/* Spraying reorders: a SACK hole is a loss only once a packet sent an
 * SRTT after it was acknowledged (pds_ack.c DECISION); the loss then
 * reaches the CMS (REPS freezes). */
static void
pds_ack_infer__spraying_waits_an_srtt(void **state)
{
	struct uet_pds_tx a;
	uint16_t n;
	uint32_t psn0;

	(void)state;
	psn0 = sprayed_eight_one_rtt(&a);
	/* 1 missing, 2..7 received: sent together, only overtaken */
	a.hdr.u.ack.ack_psn_offset = 7;
	a.hdr.u.ack.sack_psn_offset = 0;
	a.hdr.u.ack.sack_bitmap = 0xFDu;
	fakewire_inject(&W, 0, &a, false, false);
	assert_int_equal(fakewire_st(0)->retx_sack, 0);
	/* 20 us later 8 more leave and 8..15 are acknowledged: they left
	 * 30 us after 1, more than the 10 us SRTT */
	W.now += 20000;
	n = send_n(UET_PDS_MODE_RUD, 8, 8);
	assert_int_equal(n, 8);
	a.hdr.u.ack.ack_psn_offset = 15;
	a.hdr.u.ack.sack_bitmap = 0xFFFDu;
	fakewire_inject(&W, 0, &a, false, false);
	assert_int_equal(fakewire_st(0)->lb_freezes, 1);
	/* counted as it leaves: PSN 1 */
	assert_int_equal(fakewire_take(&W, 0, T, 8), 1);
	assert_int_equal(T[0].hdr.u.req.psn, psn0 + 1);
	assert_int_equal(fakewire_st(0)->retx_sack, 1);
}

/* Under the SACK bitmap, with a window of packets held past CACK
 * (ooo_count), a spraying PDC still waits until a packet sent an SRTT
 * after the hole was acknowledged (pds_ack_infer_below): without it, an
 * oblivious 16-flow permutation resent 45 packets that were only late. */
static void
pds_ack_infer__spraying_below_bitmap_waits_an_srtt(void **state)
{
	struct uet_pds_tx a;
	uint16_t n, k;
	uint32_t psn0;

	(void)state;
	psn0 = sprayed_eight_one_rtt(&a);
	/* 1..4 under the bitmap (from 5), 5..7 received, 100 held past
	 * CACK: sent with 5..7, 1..4 are only overtaken */
	a.hdr.u.ack.cc_type = UET_CC_TYPE_NSCC;
	a.hdr.u.ack.cc.nscc.ooo_count = 100;
	a.hdr.u.ack.ack_psn_offset = 7;
	a.hdr.u.ack.sack_psn_offset = 5;
	a.hdr.u.ack.sack_bitmap = 0x7u;
	fakewire_inject(&W, 0, &a, false, false);
	assert_int_equal(fakewire_take(&W, 0, T, 8), 0);
	assert_int_equal(fakewire_st(0)->retx_sack, 0);
	/* 20 us later 8..15 leave and are acknowledged (bitmap from 8):
	 * they left 30 us after 1..4, more than the 10 us SRTT */
	W.now += 20000;
	n = send_n(UET_PDS_MODE_RUD, 8, 8);
	assert_int_equal(n, 8);
	a.hdr.u.ack.ack_psn_offset = 15;
	a.hdr.u.ack.sack_psn_offset = 8;
	a.hdr.u.ack.sack_bitmap = 0xFFu;
	fakewire_inject(&W, 0, &a, false, false);
	assert_int_equal(fakewire_take(&W, 0, T, 8), 4);
	for (k = 0; k < 4; k++)
		assert_int_equal(T[k].hdr.u.req.psn, psn0 + 1 + k);
	assert_int_equal(fakewire_st(0)->retx_sack, 4);
}

/* Requests @p from .. @p from + 7 leave and are acknowledged by @p a with
 * SACK bitmap @p bitmap (from the first PSN); returns what leaves then. */
static uint16_t
eight_more_acked(struct uet_pds_tx *a, uint32_t from, uint64_t bitmap)
{
	assert_int_equal(send_n(UET_PDS_MODE_RUD, from, 8), 8);
	a->hdr.u.ack.ack_psn_offset = (int16_t)(from + 7);
	a->hdr.u.ack.sack_psn_offset = 0;
	a->hdr.u.ack.sack_bitmap = bitmap;
	fakewire_inject(&W, 0, a, false, false);
	return fakewire_take(&W, 0, T, 8);
}

/* A resend on a spraying PDC is presumed lost again only once a packet
 * sent half an SRTT after it was acknowledged (SRTT / 8 without
 * spraying): its path may hold a longer queue than theirs. With
 * SRTT / 8, a permutation whose flows into one leaf shared one spine's
 * full queue (a failed link, REPS, RCCC) sent 290 resends of resends
 * that were only late, 0.8 MB more through the bottleneck and a last
 * flow 1.2x later (docs/CONGESTION.md, perm-reps-fail). */
static void
pds_ack_infer__spraying_resend_waits_an_srtt(void **state)
{
	struct uet_pds_tx a;
	uint32_t psn0;

	(void)state;
	psn0 = sprayed_eight_one_rtt(&a);
	/* 8..15 leave 20 us later and are acknowledged, 1 missing: 1 is
	 * resent */
	W.now += 20000;
	assert_int_equal(eight_more_acked(&a, 8, 0xFFFDu), 1);
	assert_int_equal(T[0].hdr.u.req.psn, psn0 + 1);
	assert_int_equal(fakewire_st(0)->retx_sack, 1);
	/* 4 us after the resend (more than SRTT / 8, less than SRTT / 2)
	 * 16..23 leave and are acknowledged, 1 still missing: late only */
	W.now += 4000;
	assert_int_equal(eight_more_acked(&a, 16, 0xFFFFFDu), 0);
	assert_int_equal(fakewire_st(0)->retx_again, 0);
	/* 24..31 leave 20 us after it and are acknowledged: lost again */
	W.now += 16000;
	assert_int_equal(eight_more_acked(&a, 24, 0xFFFFFFFDu), 1);
	assert_int_equal(T[0].hdr.u.req.psn, psn0 + 1);
	assert_int_equal(fakewire_st(0)->retx_again, 1);
}

/* An EV outside the configured range teaches nothing and is counted. */
static void
pds_lb_ack__foreign_ev_counted(void **state)
{
	struct uet_pds_tx ack;
	uint16_t n;

	(void)state;
	n = send_n(UET_PDS_MODE_RUD, 0, 1);
	assert_int_equal(n, 1);
	fakewire_inject(&W, 1, &T[0], false, false);
	assert_true(fakewire_take_type(&W, 1, UET_PDS_TYPE_ACK, &ack));
	ack.ev = 1000;
	fakewire_inject(&W, 0, &ack, false, false);
	assert_int_equal(fakewire_st(0)->lb_ev_foreign, 1);
	assert_int_equal(uet_cms_lb_cached(lb0()), 0);
	assert_int_equal(W.done_ok[0], 1);
}

/* A bad load-balancing configuration is refused at creation. */
static void
uet_pds_create__bad_lb_config(void **state)
{
	struct uet_pds_config c;

	(void)state;
	fakewire_test_config(&c);
	c.lb.mode = UET_CMS_LB_OBLIVIOUS;
	c.lb.ev_count = 16;
	errno = 0;
	assert_null(uet_pds_create(&c));
	assert_int_equal(errno, EINVAL);
	fakewire_test_config(&c);
	c.lb.reps_ring = 9;
	assert_null(uet_pds_create(&c));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		FW_TEST(pds_lb_next__oblivious_one_round_covers_every_ev,
			setup_oblivious),
		FW_TEST(pds_lb_next__retransmission_repicks, setup_oblivious),
		FW_TEST(pds_lb_next__rod_single_path, setup_oblivious),
		FW_TEST(pds_lb_dgram__uud_sprays, setup_oblivious),
		FW_TEST(pds_lb_dgram__single_keeps_one_ev, fakewire_setup),
		FW_TEST(pds_lb_ack__reps_recycles_echoed_ev, setup_reps),
		FW_TEST(pds_lb_ack__reps_marked_not_reused, setup_reps),
		FW_TEST(pds_lb_ack__coalesced_recycles_echoed_ev_only,
			setup_reps),
		FW_TEST(pds_ack_infer__spraying_waits_an_srtt, setup_reps),
		FW_TEST(pds_ack_infer__spraying_below_bitmap_waits_an_srtt,
			setup_reps),
		FW_TEST(pds_ack_infer__spraying_resend_waits_an_srtt,
			setup_reps),
		FW_TEST(pds_lb_next__frozen_reuse_counts_recycled, setup_reps),
		FW_TEST(pds_lb_loss__reps_freezes_on_rto, setup_reps),
		FW_TEST(pds_lb_ack__foreign_ev_counted, setup_reps),
		cmocka_unit_test(uet_pds_create__bad_lb_config),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
