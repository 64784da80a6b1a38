/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Invariants on what crosses the simulated wire, checked as each packet
 * leaves or arrives:
 *  - a sender keeps its requests inside the receive window the receiver
 *    advertised in its last ACK_CC (MP_Range: mpr is log2 of it, from the
 *    cumulative ACK; UEC 1.0 PDS ACK_CC);
 *  - an ACK with the M flag echoes the EV of a packet the network
 *    actually CE-marked on its way to that receive space, so congestion
 *    feedback is charged to the path that saw it (UEC 1.0 3.6.16);
 *  - a target PDC never takes a request whose PSN it refused with NACK
 *    CLOSING: its initiator moves that request to another PDC, where it
 *    runs, so taken here it would run twice (a WRITE or an atomic is not
 *    idempotent). Checked at the delivery, as the SES takes it.
 * The network knows what it marked; the sender knows only what came
 * back: the tap compares the two.
 */

#include <stdio.h>
#include <string.h>

#include "dst.h"

/* CE marks reported in an ACK may be this old (coalescing, delayed ACK,
 * a stalled receiver's backlog, a CLOSE answered once drained). */
#define DST_ECN_AGE_NS 100000000ull

static bool
is_request(uint8_t type)
{
	return type == UET_PDS_TYPE_RUD_REQ || type == UET_PDS_TYPE_ROD_REQ ||
	       type == UET_PDS_TYPE_RUD_CC_REQ ||
	       type == UET_PDS_TYPE_ROD_CC_REQ;
}

static bool
is_ack(uint8_t type)
{
	return type == UET_PDS_TYPE_ACK || type == UET_PDS_TYPE_ACK_CC ||
	       type == UET_PDS_TYPE_ACK_CCX;
}

static uint32_t
slot_of(uint16_t id, int peer)
{
	return ((uint32_t)id * 31u + (uint32_t)peer) % DST_WIN_MAP;
}

static struct dst_win *
win_find(struct dst_node *n, uint16_t lid, int peer, bool add)
{
	uint32_t h = slot_of(lid, peer), k;

	for (k = 0; k < DST_WIN_MAP; k++) {
		struct dst_win *w = &n->win[(h + k) % DST_WIN_MAP];

		if (w->used && w->lid == lid && w->peer == peer)
			return w;
		if (!w->used) {
			if (!add)
				return NULL;
			memset(w, 0, sizeof(*w));
			n->win_taken[n->nwin_taken++] =
				(uint16_t)((h + k) % DST_WIN_MAP);
			w->used = true;
			w->lid = lid;
			w->peer = (uint8_t)peer;
			return w;
		}
	}
	return NULL;
}

static struct dst_ecn *
ecn_find(struct dst_node *n, uint16_t spdcid, int peer, bool add)
{
	uint32_t h = slot_of(spdcid, peer), k;

	for (k = 0; k < DST_WIN_MAP; k++) {
		struct dst_ecn *e = &n->ecn[(h + k) % DST_WIN_MAP];

		if (e->used && e->spdcid == spdcid && e->peer == peer)
			return e;
		if (!e->used) {
			if (!add)
				return NULL;
			memset(e, 0, sizeof(*e));
			n->ecn_taken[n->necn_taken++] =
				(uint16_t)((h + k) % DST_WIN_MAP);
			e->used = true;
			e->spdcid = spdcid;
			e->peer = (uint8_t)peer;
			return e;
		}
	}
	return NULL;
}

/* A forward request: inside the window the sender last learnt? */
static void
tap_window(struct dst_sim *s, int from, int to, const struct uet_pds_tx *t)
{
	const struct uet_wire_pds_req *r = &t->hdr.u.req;
	struct dst_win *w;
	uint32_t d;

	if (t->hdr.next_hdr > UET_PDS_NEXT_REQUEST_STD)
		return; /* return-direction data */
	w = win_find(&s->node[from], r->spdcid, to,
		     (t->hdr.flags & UET_PDS_F_SYN) != 0);
	if (w == NULL)
		return;
	if (t->hdr.flags & UET_PDS_F_SYN) {
		if (w->start != r->psn - r->psn_offset) {
			w->start = r->psn - r->psn_offset;
			w->seen = false;
			w->acked = false;
			w->mpr = 0;
		}
		return;
	}
	if (!w->acked || w->mpr == 0 || w->mpr > 24)
		return;
	d = r->psn - (w->cack + 1);
	if ((int32_t)d >= 0 && d >= (1u << w->mpr))
		dst_fail(s, "mp-range", "n%d pdc %u sends PSN %u to n%d past "
			 "its window: cack %u, mpr %u (%u PSNs)", from,
			 r->spdcid, r->psn, to, w->cack, w->mpr, 1u << w->mpr);
}

/* A CE-marked packet on @p ev reached receive space @p e at @p now: one
 * entry per EV (a stalled node takes a backlog of marked packets at once),
 * the oldest let go when the ring is full. */
static void
ecn_mark(struct dst_ecn *e, uint16_t ev, uint64_t now)
{
	uint32_t k;

	if (e == NULL)
		return;
	for (k = 0; k < DST_ECN_RING; k++)
		if (e->t[k] != 0 && e->ev[k] == ev) {
			e->t[k] = now;
			return;
		}
	if (e->t[e->head] > e->lost_t)
		e->lost_t = e->t[e->head];
	e->ev[e->head] = ev;
	e->t[e->head] = now;
	e->head = (uint8_t)((e->head + 1) % DST_ECN_RING);
}

static void
tap_ecn(struct dst_sim *s, int from, int to, const struct uet_pds_tx *t)
{
	struct dst_ecn *e = ecn_find(&s->node[from], t->hdr.u.ack.dpdcid, to,
				     false);
	uint32_t k;

	for (k = 0; e != NULL && k < DST_ECN_RING; k++)
		if (e->ev[k] == t->ev && e->t[k] != 0 &&
		    e->t[k] + DST_ECN_AGE_NS >= s->now)
			return;
	/* More EVs were marked than the ring holds: this one may be among
	 * those it let go, so the ACK cannot be judged. */
	if (e != NULL && e->lost_t != 0 && e->lost_t + DST_ECN_AGE_NS >= s->now)
		return;
	dst_fail(s, "ecn-ev", "n%d ACKs pdc %u of n%d with M set on EV %u, "
		 "which carried no CE-marked packet to it", from,
		 t->hdr.u.ack.dpdcid, to, t->ev);
}

/* A refusal with NACK CLOSING by a target PDC of @p from, kept in a ring
 * of the last DST_CLOSING (an older one goes unchecked). */
static void
tap_closing(struct dst_sim *s, int from, const struct uet_wire_pds_nack *n)
{
	struct dst_node *nd = &s->node[from];
	struct dst_refusal *r = &nd->closing[nd->nclosing++ % DST_CLOSING];

	r->at = s->now;
	r->psn = n->psn;
	r->lid = n->spdcid;
}

void
dst_tap_tx(struct dst_sim *s, int from, int to, const struct uet_pds_tx *t)
{
	if (is_request(t->hdr.type))
		tap_window(s, from, to, t);
	else if (is_ack(t->hdr.type) && (t->hdr.flags & UET_PDS_F_M))
		tap_ecn(s, from, to, t);
	else if (t->hdr.type == UET_PDS_TYPE_NACK &&
		 t->hdr.u.nack.code == UET_NACK_CLOSING)
		tap_closing(s, from, &t->hdr.u.nack);
}

void
dst_tap_deliver(struct dst_sim *s, int i, const struct uet_pds_event *e)
{
	const struct dst_node *nd = &s->node[i];
	const struct dst_refusal *r;
	struct uet_pds_pdc_info pi;
	uint32_t k, n;

	if (e->next_hdr < UET_PDS_NEXT_REQUEST_SMALL ||
	    e->next_hdr > UET_PDS_NEXT_REQUEST_STD ||
	    uet_pds_pdc_info_get(nd->pds, e->pdc, &pi) != 0 || pi.role != 1)
		return;
	n = nd->nclosing < DST_CLOSING ? nd->nclosing : DST_CLOSING;
	for (k = 0; k < n; k++) {
		r = &nd->closing[k];
		if (r->lid == pi.lid && r->psn == e->psn &&
		    e->psn - pi.start_psn < 65536)
			dst_fail(s, "closing-taken", "n%d target pdc %u (id %u) "
				 "took PSN %u, which it refused with NACK "
				 "CLOSING at %.3f ms: its initiator moved that "
				 "request to another PDC", i, e->pdc, pi.lid,
				 e->psn, (double)r->at / 1e6);
	}
}

/*
 * What the sender learns from an ACK of its requests. Its CACK only moves
 * forward, whatever ACK (plain or ACK_CC) told it first: an ACK with an
 * older CACK is stale (reordered, or from a target that restarted and
 * opened the PDC anew from a later SYN, which never gets the PSNs the old
 * one acknowledged); the sender rightly keeps the newest it knows.
 */
static void
tap_ack(struct dst_sim *s, int to, int from, const struct uet_wire_pds_ack *a,
	bool cc)
{
	struct dst_win *w = win_find(&s->node[to], a->dpdcid, from, false);

	/* only ACKs of this incarnation of the PSN space */
	if (w == NULL || a->cack_psn - (w->start - 1) >= 65536)
		return;
	if (w->seen && (int32_t)(a->cack_psn - w->cack) < 0)
		return;
	w->cack = a->cack_psn;
	w->seen = true;
	if (cc)
		w->mpr = a->mpr;
	w->acked = w->acked || cc;
}

void
dst_tap_rx(struct dst_sim *s, int to, int from, const struct uet_wire_pkt *pkt,
	   bool ce)
{
	const struct uet_wire_pds_hdr *h = &pkt->pds;

	/* requests and CPs are acknowledged, and both can be marked */
	if ((is_request(h->type) || h->type == UET_PDS_TYPE_CP) && ce)
		ecn_mark(ecn_find(&s->node[to], h->type == UET_PDS_TYPE_CP ?
				  h->u.cp.spdcid : h->u.req.spdcid, from, true),
			 uet_wire_outer_ev_get(&pkt->outer), s->now);
	else if (is_ack(h->type))
		tap_ack(s, to, from, &h->u.ack, h->type != UET_PDS_TYPE_ACK);
}
