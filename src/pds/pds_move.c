/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Requests a closing target refused (NACK CLOSING, pds_ack.c) on their way
 * to the key's PDC.
 *
 * A refused request leaves its PDC at once (its PSN is done there) and is
 * submitted again on the PDC of its key (peer, JobID, TC, mode), a new
 * one if none is open. That PDC may have no room for it: its window full
 * of other requests (a READ of 71 packets, say), or no PDC or transmit
 * block free. Failed there, a moved send completed with -ECONNABORTED
 * although nothing was wrong with it, and the hold its first packet had
 * put on the new PDC (UET_PDS_SUBMIT_SOM) was never released: the PDC
 * never closed (fuzz_dst, test/dst/fuzz-fixed/leak.*). So a request
 * that finds no room waits here, in order, and goes as soon as its key's
 * PDC takes it (pds_commit drains at every call with a clock, and a
 * submission of the ULP to a key with moves waiting drains first and
 * waits behind them: ROD order, and the room goes to the moves first).
 * Only a full queue fails a request (move_dropped).
 *
 * A multi-packet send (uet_pds_ulp.msg_of) goes on one PDC whole (UEC
 * 1.0 3.5.20): from the first of its packets that goes until the last
 * one (or, if the ULP still has packets of it to submit, the ULP's own
 * last one), it holds that PDC open as a message begun on it, so that
 * the PDC does not close under it, and, asked to close, takes the rest
 * of that message only (pds_pdc_held); a message the ULP still submits
 * takes the ULP's packets of it there too. Each entry
 * remembers which PDC holds its message (a handle, so a PDC freed and
 * reused is not taken for it); a hold lost with its PDC (NACK CLOSING
 * forgets the messages open on a PDC, a PDC fails) is placed again on
 * the next PDC by the next packet that goes.
 */

#include <string.h>

#include "pds_private.h"

/* At most this many keys found without room in one pass; past them the
 * pass stops (the rest keep their place for the next). */
#define PDS_MOVE_BLOCKED_MAX 8

static bool
pds_move_same_key(const struct uet_pds_submit *a,
		  const struct uet_pds_submit *b)
{
	return a->job == b->job && a->tc == b->tc && a->mode == b->mode &&
	       memcmp(&a->dst, &b->dst, sizeof(a->dst)) == 0;
}

static bool
pds_move_same_msg(const struct pds_move *a, const struct pds_move *b)
{
	return a->msg != 0 && a->msg == b->msg &&
	       pds_move_same_key(&a->s, &b->s);
}

/*
 * Queue request @p psn of @p c, refused by its closing target, to go on
 * its key's PDC; @p msg is its message (uet_pds_ulp.msg_of), 0 if it
 * stands alone. The slot is done on @p c: its PSN is unused there. The
 * caller drains (pds_move_drain) once it has queued all it moves.
 */
void
pds_move_add(struct uet_pds *p, struct pds_pdc *c, uint32_t psn,
	     uint64_t msg)
{
	struct pds_slot *sl = pds_slot(p, c, psn);
	struct pds_move *e;
	uint32_t j;

	if (p->mv_n == p->mv_cap) {
		p->st.move_dropped++;
		pds_done_pdc(p, c, sl->cookie, -ECONNABORTED, psn);
		return;
	}
	e = &p->mv[p->mv_n++];
	memset(e, 0, sizeof(*e));
	e->s.dst = c->peer;
	e->s.job = c->job;
	e->s.tc = c->tc;
	e->s.mode = c->mode;
	e->s.next_hdr = sl->kind;
	e->s.flags = (sl->flags & SLOT_F_RESP) ? UET_PDS_SUBMIT_RESP : 0;
	e->s.len = sl->len;
	e->s.cookie = sl->cookie;
	e->msg = msg;
	e->hold = PDS_NIL;
	e->refusals = sl->refusals;
	e->moves = sl->moves;
	pds_count_up(&e->moves);
	e->last = true;
	/* it follows what of its message waits already, and holds with it */
	for (j = p->mv_n - 1; msg != 0 && j-- > 0;) {
		if (pds_move_same_msg(&p->mv[j], e)) {
			p->mv[j].last = false;
			e->hold = p->mv[j].hold;
			break;
		}
	}
}

/* Submit @p e on the PDC its message is open on, else on its key's PDC:
 * 0 once it went, -EAGAIN without room. */
static int
pds_move_one(struct uet_pds *p, struct pds_move *e, uint64_t now)
{
	struct uet_pds_submit s = e->s;
	struct pds_pdc *h = NULL, *z;
	bool more, last, open = false;
	uint32_t j, hd;

	if (e->hold != PDS_NIL)
		h = pds_handle_pdc(p, e->hold);
	if (e->msg != 0) {
		/* the ULP's packets of it still to come count as more */
		if (p->ulp.msg_of != NULL)
			(void)p->ulp.msg_of(p->ulp.arg, e->s.cookie, &last, &open);
		more = !e->last || open;
		if (h == NULL && more)
			s.flags |= UET_PDS_SUBMIT_SOM;
		else if (h != NULL && !more)
			s.flags |= UET_PDS_SUBMIT_EOM;
	}
	z = pds_initiator_submit_on(p, &s, h, now);
	if (z == NULL)
		return -EAGAIN;
	pds_slot(p, z, z->u.i.nxt - 1)->refusals = e->refusals;
	pds_slot(p, z, z->u.i.nxt - 1)->moves = e->moves;
	if (s.flags & UET_PDS_SUBMIT_SOM) {
		hd = pds_handle(p, pds_idx(p, z));
		for (j = 0; j < p->mv_n; j++)
			if (pds_move_same_msg(&p->mv[j], e))
				p->mv[j].hold = hd;
		/* the ULP's packets of it still to come go there too */
		if (open)
			pds_ulp_open_set(p, z, true);
	}
	return 0;
}

/* Whether @p e is of a key found without room in this pass. */
static bool
pds_move_blocked(const struct pds_move *e, struct pds_move *const *blocked,
		 unsigned int nb)
{
	unsigned int b;

	for (b = 0; b < nb; b++)
		if (pds_move_same_key(&e->s, &blocked[b]->s))
			return true;
	return false;
}

/*
 * Move what the keys' PDCs have room for, in order per key: a request
 * that finds none blocks its key for the rest of the pass. A PDC held
 * for the message open on it (pds_pdc_held) takes only that message's
 * packets; the key's other requests go on its next PDC meanwhile. Made
 * to wait for the held PDC's end, they held back the ULP's next
 * messages to the key, and that end could wait for them in turn
 * (fuzz_dst, test/dst/fuzz-fixed/hang.*).
 */
void
pds_move_drain(struct uet_pds *p, uint64_t now)
{
	struct pds_move *blocked[PDS_MOVE_BLOCKED_MAX], *e;
	unsigned int nb = 0;
	uint32_t i, k = 0;

	for (i = 0; i < p->mv_n; i++) {
		e = &p->mv[i];
		if (nb < PDS_MOVE_BLOCKED_MAX &&
		    !pds_move_blocked(e, blocked, nb)) {
			if (pds_move_one(p, e, now) == 0)
				continue;
			blocked[nb++] = &p->mv[k];
		}
		if (!e->waited) {
			e->waited = true;
			p->st.move_waited++;
		}
		p->mv[k++] = *e;
	}
	p->mv_n = k;
}

/* Whether a packet of message @p msg is still on @p c: in its window
 * and not done there (not moved away, not complete). */
static bool
pds_move_msg_on(struct uet_pds *p, const struct pds_pdc *c, uint64_t msg)
{
	const struct pds_slot *sl;
	bool last, open;
	uint32_t psn;

	if (c->tblk == PDS_NIL || p->ulp.msg_of == NULL)
		return false;
	for (psn = c->u.i.una; psn != c->u.i.nxt; psn++) {
		sl = pds_slot(p, c, psn);
		if (sl->state != SLOT_DONE && !(sl->flags & SLOT_F_CP) &&
		    p->ulp.msg_of(p->ulp.arg, sl->cookie, &last, &open) == msg)
			return true;
	}
	return false;
}

/*
 * @p c holds no message open any more. @p status 0: a closing target
 * refused one of its requests (pds_nack_closing), and what waits to join
 * its messages goes on the key's next PDC, holding that one; but not
 * while a packet of that message is still on @p c, which the target may
 * have taken (a closing target takes the rest of a message begun on it):
 * that packet's own answer decides. Refused, it joins the waiting ones
 * and the message moves whole; taken, the rest follows it on @p c. Let
 * go at the first refusal of another message's packet, the waiting part
 * went on a new PDC while its other part was still answered on this one
 * (fuzz_dst, test/dst/fuzz-fixed/leak.defer-split-by-moves). Otherwise
 * @p c fails (or goes) with @p status, and what waits to join a message
 * held open on it fails with it, as its own packets do
 * (pds_initiator_abort): sent on a new PDC, it would reach the target as
 * the rest of a message never begun there.
 */
void
pds_move_unhold(struct uet_pds *p, struct pds_pdc *c, int status)
{
	uint32_t h = pds_handle(p, pds_idx(p, c)), i, k = 0;

	for (i = 0; i < p->mv_n; i++) {
		if (p->mv[i].hold != h) {
			p->mv[k++] = p->mv[i];
		} else if (status == 0) {
			if (!pds_move_msg_on(p, c, p->mv[i].msg))
				p->mv[i].hold = PDS_NIL;
			p->mv[k++] = p->mv[i];
		} else {
			pds_done_pdc(p, c, p->mv[i].s.cookie, status, 0);
		}
	}
	p->mv_n = k;
}

/* Whether the ULP's request @p s waits behind requests moved to its key:
 * yes (the order of a key), unless it continues the ULP's RUD message
 * open on a PDC (pds_initiator_submit) and none of that message waits to
 * go there before it. */
bool
pds_move_waiting(struct uet_pds *p, const struct uet_pds_submit *s)
{
	bool last, open;
	uint64_t msg = 0;
	uint32_t i, j;

	for (i = 0; i < p->mv_n; i++)
		if (pds_move_same_key(&p->mv[i].s, s))
			break;
	if (i == p->mv_n)
		return false;
	if ((s->flags & UET_PDS_SUBMIT_SOM) || s->mode != UET_PDS_MODE_RUD ||
	    pds_ikey_find_open(p, &s->dst, s->job, s->tc, s->mode) == NULL)
		return true;
	if (p->ulp.msg_of != NULL)
		msg = p->ulp.msg_of(p->ulp.arg, s->cookie, &last, &open);
	for (j = i; msg != 0 && j < p->mv_n; j++)
		if (p->mv[j].msg == msg && pds_move_same_key(&p->mv[j].s, s))
			return true;
	return false;
}

/* Whether message @p msg has packets waiting that @p c holds open. */
bool
pds_move_holds(const struct uet_pds *p, const struct pds_pdc *c,
	       uint64_t msg)
{
	uint32_t h = pds_handle(p, pds_idx(p, c)), i;

	for (i = 0; msg != 0 && i < p->mv_n; i++)
		if (p->mv[i].msg == msg && p->mv[i].hold == h)
			return true;
	return false;
}
