/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * PDC establishment at the target (UEC 1.0 3.5 PDC establishment): a SYN
 * reaches the live PDC of its incarnation {source FA, spdcid, Start_PSN},
 * opens a new one, is dropped as a late duplicate of a freed incarnation,
 * or is refused with NACK NEW_START_PSN; and the records of the Start_PSNs
 * refused, so that none of them opens a PDC later (struct pds_syn_rec).
 */

#include <stdlib.h>
#include <string.h>

#include <rte_jhash.h>

#include "pds_private.h"

/* @p records: the closed-PDC records' count, 2 or more per target PDC id.
 * A quarter as many are kept here: a record comes with a refusal, and a
 * refusal needs a live PDC of the id (or a bucket that forgot). */
int
pds_syn_rec_init(struct uet_pds *p, uint32_t records)
{
	uint32_t buckets = records / 4 / PDS_SYN_WAYS;

	records = buckets * PDS_SYN_WAYS;

	p->syn_rec = calloc(records, sizeof(*p->syn_rec));
	p->syn_forgot = calloc(buckets, sizeof(*p->syn_forgot));
	p->syn_floor = calloc(buckets, sizeof(*p->syn_floor));
	if (p->syn_rec == NULL || p->syn_forgot == NULL ||
	    p->syn_floor == NULL)
		return -ENOMEM;
	p->syn_mask = buckets - 1;
	return 0;
}

void
pds_syn_rec_fini(struct uet_pds *p)
{
	free(p->syn_rec);
	free(p->syn_forgot);
	free(p->syn_floor);
	p->syn_rec = NULL;
	p->syn_forgot = NULL;
	p->syn_floor = NULL;
}

size_t
pds_syn_rec_bytes(const struct uet_pds *p)
{
	return ((size_t)p->syn_mask + 1) *
	       (PDS_SYN_WAYS * sizeof(*p->syn_rec) + sizeof(*p->syn_forgot) +
		sizeof(*p->syn_floor));
}

/* The age a blind refusal says (PDS_VC_RESTARTED): in microseconds, the
 * high 7 bits in its vendor_code, the low 16 in its spdcid. */
uint64_t
pds_syn_vc_age_ns(uint8_t vendor_code, uint16_t spdcid)
{
	return ((uint64_t)(vendor_code & PDS_VC_AGE_MASK) << 16 | spdcid) *
	       1000;
}

/* Stamp a blind refusal @p n: PDS_VC_RESTARTED and the time since the
 * previous incarnation was last known to run (prev_alive_ns), else since
 * this PDS started: the time it ran (a stall ages it by PDS_SYN_GAP_NS
 * at most, so never more than the time since its start) plus the time
 * from prev_alive_ns to its start; rounded down to the microsecond, at
 * most PDS_VC_AGE_MAX_US. */
void
pds_syn_restart_stamp(const struct uet_pds *p, struct uet_wire_pds_nack *n)
{
	uint64_t age = p->syn_now - p->syn_born;

	if (p->cfg.prev_alive_ns != 0 && p->cfg.prev_alive_ns <= p->syn_born)
		age += p->syn_born - p->cfg.prev_alive_ns;
	age /= 1000;
	if (age > PDS_VC_AGE_MAX_US)
		age = PDS_VC_AGE_MAX_US;
	n->vendor_code = (uint8_t)(PDS_VC_RESTARTED | age >> 16);
	n->spdcid = (uint16_t)age;
}

/*
 * The clock the records of refused Start_PSNs, the buckets that forgot
 * and the quiet time after start age by (UEC 1.0 3.5 PDC establishment,
 * maximum packet lifetime). DECISION (docs/WIRE-DECISIONS.md "A SYN that
 * reaches a restarted target"): the time this PDS ran, not the caller's
 * clock. A packet that reached its receive queue while it was not called
 * (an application that did not call progress, a descheduled process)
 * waits there for the whole gap: its age when read is its life in the
 * network plus the gap, which the maximum packet lifetime does not bound.
 * So a gap between two calls counts up to PDS_SYN_GAP_NS: a record made
 * just before the gap still holds when the packets queued during it are
 * read (uet-perf's incast on a loaded machine: a SYN of a Start_PSN
 * refused and renumbered, read 4 s after it arrived, opened a second PDC
 * and delivered its burst twice). Records only refuse, so one that lives
 * longer costs a refused SYN one round trip more, never a delivery.
 */
void
pds_syn_tick(struct uet_pds *p, uint64_t now)
{
	uint64_t d;

	if (!p->syn_clock_set) {
		p->syn_clock_set = true;
		p->syn_seen = now;
		p->syn_now = now;
		p->syn_born = now;
		p->syn_born_iv = pds_name_iv(now);
		return;
	}
	if (now <= p->syn_seen)
		return;
	d = now - p->syn_seen;
	p->syn_seen = now;
	p->syn_now += d < PDS_SYN_GAP_NS ? d : PDS_SYN_GAP_NS;
}

/* The id of a record: independent of the bucket index (pds_tkey_hash). */
static uint32_t
pds_syn_key(const struct uet_pds_fa *fa, uint16_t spdcid)
{
	uint32_t w[5];

	memcpy(w, fa->addr, 16);
	w[4] = spdcid;
	return rte_jhash_32b(w, 5, 0x51d3);
}

/* A record still needed: a copy of a SYN it refused may be in the network
 * (sent before the initiator moved on, which it did within one MPL of the
 * id's last SYN here, and alive one MPL more). */
static bool
pds_syn_rec_hot(const struct uet_pds *p, const struct pds_syn_rec *r,
		uint64_t life)
{
	return r->used && life - r->last_ns < 2 * p->cfg.mpl_ns;
}

static struct pds_syn_rec *
pds_syn_rec_find(struct uet_pds *p, uint32_t b, uint32_t key, uint64_t life)
{
	struct pds_syn_rec *r = &p->syn_rec[(size_t)b * PDS_SYN_WAYS];
	unsigned int k;

	for (k = 0; k < PDS_SYN_WAYS; k++)
		if (pds_syn_rec_hot(p, &r[k], life) && r[k].key == key)
			return &r[k];
	return NULL;
}

/* A record for id @p key, whose Start_PSN @p start is refused
 * now: in a way no longer needed, else over the one idle longest. Its
 * Start_PSNs may still arrive: until they cannot, the bucket refuses
 * every SYN without a record (pds_target_syn), and a record made for the
 * id again names in later intervals than it did. The first name comes
 * after the interval this PDS started in, in which a previous
 * incarnation may have named. */
static struct pds_syn_rec *
pds_syn_rec_new(struct uet_pds *p, uint32_t b, uint32_t key, uint32_t start,
		uint64_t life)
{
	struct pds_syn_rec *r = &p->syn_rec[(size_t)b * PDS_SYN_WAYS], *v = NULL;
	uint32_t floor = p->syn_born_iv;
	uint64_t until;
	unsigned int k;

	for (k = 0; k < PDS_SYN_WAYS; k++) {
		if (!pds_syn_rec_hot(p, &r[k], life)) {
			v = &r[k];
			break;
		}
		if (v == NULL || r[k].last_ns < v->last_ns)
			v = &r[k];
	}
	if (pds_syn_rec_hot(p, v, life)) {
		until = v->last_ns + 2 * p->cfg.mpl_ns;
		if (until > p->syn_forgot[b])
			p->syn_forgot[b] = until;
		if ((int32_t)(v->named - p->syn_floor[b]) > 0)
			p->syn_floor[b] = v->named;
		p->st.syn_rec_evict++;
	}
	if (p->syn_forgot[b] != 0 && (int32_t)(p->syn_floor[b] - floor) > 0)
		floor = p->syn_floor[b];
	memset(v, 0, sizeof(*v));
	v->key = key;
	v->next = start;
	v->named = floor;
	v->fresh_hi = (uint16_t)(start >> 16);
	v->used = true;
	v->last_ns = life;
	return v;
}

/* Name the next Start_PSN of @p r for a SYN with Start_PSN @p start
 * (struct pds_syn_rec): in its class mod 2^16 (so a whole number of any
 * transmit window away, usable by its initiator), PDS_NAMED and an
 * interval later than the last named, at most @p now's (the latest
 * first), never @p start nor the class's fresh one, never within 2^16 of
 * the live PDC's CACK (the window test of pds_target_syn_replaces()).
 * At most five intervals are excluded so; false when none is left
 * (named in this interval already, or in the one this PDS started in):
 * then nothing opens under the record's Start_PSN until it names one. */
#define PDS_NAME_TRIES 6 /* the five intervals excluded, and one */

static bool
pds_syn_rec_advance(struct pds_syn_rec *r, const struct pds_pdc *c,
		    uint32_t start, uint64_t now)
{
	uint32_t iv = pds_name_iv(now), v;
	unsigned int k;
	int32_t d;

	if (start != r->next)
		r->fresh_hi = (uint16_t)(start >> 16);
	r->opened = true;
	for (k = 0; k < PDS_NAME_TRIES && (int32_t)(iv - r->named) > 0;
	     k++, iv--) {
		v = PDS_NAMED | (iv & 0x7FFFu) << 16 | (start & 0xFFFFu);
		d = c != NULL ? uet_psn_diff(v, c->u.t.cack + 1) : INT32_MAX;
		if ((d > -65536 && d < 65536) || v == start ||
		    (uint16_t)(v >> 16) == r->fresh_hi)
			continue;
		r->next = v;
		r->named = iv;
		r->opened = false;
		return true;
	}
	return false;
}

/* Refuse the SYN with NACK NEW_START_PSN, whose payload names the
 * Start_PSN to use instead (UEC 1.0 3.5 NACK codes): the one named last
 * (the rest of a burst refused), or a new one when the SYN carried that
 * one, it was used, or the SYN's initiator cannot use it (another class
 * mod 2^16: a fresh Start_PSN, not a renumbered one). A trimmed SYN gets
 * the caller's trim NACK instead; one when no Start_PSN can be named yet,
 * nothing (its initiator retransmits). */
static void
pds_syn_refuse(struct uet_pds *p, const struct pds_pdc *c,
	       struct pds_syn_rec *r, const struct uet_pds_rx_meta *m,
	       const struct pds_rxinfo *ri, uint64_t life, uint64_t now)
{
	uint32_t start = ri->psn - ri->psn_offset;
	struct uet_pds_tx *t;

	r->last_ns = life;
	if ((start == r->next || r->opened ||
	     ((start ^ r->next) & 0xFFFFu) != 0) &&
	    !pds_syn_rec_advance(r, c, start, now)) {
		p->st.syn_unnamed++;
		return;
	}
	if (m->trimmed || m->trimmed_lasthop)
		return;
	t = pds_nack_tx(p, &m->src, m->ev, UET_NACK_NEW_START_PSN, ri->psn, 0,
			ri->spdcid, m->ce ? UET_PDS_F_M : 0);
	if (t == NULL)
		return;
	t->hdr.u.nack.payload = r->next;
	if (r->blind && p->cfg.restarted)
		pds_syn_restart_stamp(p, &t->hdr.u.nack);
}

/*
 * A SYN names {source FA, spdcid} of a live PDC @p c but another Start_PSN
 * (UEC 1.0 3.5 PDC establishment). It is either a new incarnation (the
 * initiator dropped its PDC without a CLOSE, e.g. after failing it, and
 * reused the id) or a late duplicate of a SYN of an older incarnation.
 * DECISION (docs/WIRE-DECISIONS.md "PDS behaviour"): a live initiator
 * keeps feeding @p c. So the SYN replaces @p c only when (a) its Start_PSN
 * is outside @p c's receive window on either side of CACK (a new Start_PSN
 * is chosen >= 2^16 away, so one close to the window is not trustworthy)
 * and (b) @p c received nothing for syn_holdoff_ns. Otherwise @p c is kept
 * and the SYN is refused (pds_target_syn).
 */
static bool
pds_target_syn_replaces(struct uet_pds *p, const struct pds_pdc *c,
			const struct pds_rxinfo *ri, uint64_t now)
{
	int32_t d = uet_psn_diff(ri->psn - ri->psn_offset, c->u.t.cack + 1);
	int32_t w = (int32_t)p->cfg.rx_window;

	if ((d > -w && d < w) || now - c->last_ns < p->cfg.syn_holdoff_ns) {
		p->st.syn_conflict++;
		return false;
	}
	return true;
}

/*
 * Quiet time after start (UEC 1.0 3.5 PDC establishment, maximum packet
 * lifetime). DECISION (docs/WIRE-DECISIONS.md "A SYN that reaches a
 * restarted target"): this PDS may be the restart of one that refused,
 * accepted or closed PDCs whose SYNs are still in the network, and it
 * keeps no record of them. Until 2 x mpl_ns after the first SYN it sees
 * (no earlier than its start), every bucket counts as one whose records
 * were forgotten: a SYN without a record is refused with NACK
 * NEW_START_PSN and only the Start_PSN named then opens a PDC. A copy
 * sent to the previous incarnation never carries it: a Start_PSN named
 * carries an interval of the clock later than any the previous
 * incarnation named in (struct pds_syn_rec). The first PDC costs one
 * round trip more, and a SYN in the interval this PDS started in gets
 * no answer (a retransmission more).
 */
static bool
pds_syn_quiet(struct uet_pds *p, uint64_t life)
{
	if (!p->cfg.syn_quiet)
		return false;
	if (!p->syn_quiet_set) {
		p->syn_quiet_set = true;
		p->syn_quiet_ns = life + 2 * p->cfg.mpl_ns;
	}
	return life < p->syn_quiet_ns;
}

/*
 * The PDC a SYN belongs to, or NULL when it opens none (UEC 1.0 3.5 PDC
 * establishment). DECISION (docs/WIRE-DECISIONS.md "PDS behaviour"):
 * - Start_PSN of the live PDC of {FA, spdcid}: that PDC.
 * - Start_PSN of a freed incarnation (struct pds_tomb): a late duplicate,
 *   dropped silently (the initiator end is gone).
 * - A refused Start_PSN must never open a PDC while a copy of its SYN can
 *   be in the network: its packets were renumbered and sent again under
 *   another, and may have been delivered. One record per {FA, spdcid}
 *   (struct pds_syn_rec) holds the Start_PSN named last; every Start_PSN
 *   it names is new (a later interval of the clock, PDS_NAMED set, which
 *   no Start_PSN an initiator of ours picks has), so one record covers a
 *   chain of refusals of any length. (A peer of another vendor may pick
 *   a Start_PSN with bit 31 set: the record keeps the last such fresh one
 *   of its class out of its names, not every one.)
 *   While the record lasts (2 x mpl_ns after the id's last SYN), only that
 *   Start_PSN may open a PDC, and only once; any other SYN of the id is
 *   refused, naming it, the burst of one incarnation therefore whole (the
 *   initiator renumbers once all of it was refused,
 *   pds_initiator_syn_refused). A fresh Start_PSN of a restarted peer is
 *   refused once the same way and opens under the one named.
 * - For 2 x mpl_ns after its first SYN, the PDS refuses every SYN without
 *   a record the same way (pds_syn_quiet): a restart lost its records.
 * - Memory is bounded (PDS_SYN_WAYS records a bucket). A record evicted
 *   while still needed leaves its bucket refusing every SYN that has no
 *   record until the evicted one would have expired: refused, never
 *   delivered twice. A record names once per interval of the clock at
 *   most: a SYN to refuse when it cannot name gets no answer.
 * - Otherwise the SYN opens a PDC, replacing the live one of the id only
 *   when pds_target_syn_replaces() says so, or is refused.
 */
struct pds_pdc *
pds_target_syn(struct uet_pds *p, const struct uet_pds_rx_meta *m,
	       const struct pds_rxinfo *ri, uint64_t now)
{
	uint64_t life = p->syn_now; /* the records' clock (pds_syn_tick) */
	uint32_t start = ri->psn - ri->psn_offset;
	uint32_t b = pds_tkey_hash(&m->src, ri->spdcid) & p->syn_mask;
	uint32_t key = pds_syn_key(&m->src, ri->spdcid);
	struct pds_pdc *c = pds_tkey_find(p, &m->src, ri->spdcid);
	struct pds_syn_rec *r;
	bool blind = false;

	if (c != NULL && c->start_psn == start)
		return c;
	if (pds_tomb_find(p, &m->src, ri->spdcid, start) != NULL) {
		p->st.syn_stale++;
		return NULL;
	}
	r = pds_syn_rec_find(p, b, key, life);
	if (r != NULL && (start != r->next || r->opened)) {
		p->st.syn_refused++;
		goto refuse;
	}
	if (r == NULL && p->cfg.syn_1rtt) {
		p->st.syn_1rtt++;
		blind = true;
		goto refuse;
	}
	if (r == NULL && pds_sdom_old(p, m, start)) {
		p->st.syn_expected_old++;
		blind = true;
		goto refuse;
	}
	if (r == NULL && (life < p->syn_forgot[b] || pds_syn_quiet(p, life))) {
		p->st.syn_forgot++;
		blind = true;
		goto refuse;
	}
	if (c != NULL) {
		if (!pds_target_syn_replaces(p, c, ri, now))
			goto refuse;
		p->st.syn_replace++;
		pds_pdc_free(p, c);
		c = NULL;
	}
	if (m->trimmed || m->trimmed_lasthop)
		return NULL; /* NACKed by the caller, nothing created */
	c = pds_target_create(p, m, ri, now);
	if (c != NULL && r != NULL) {
		r->opened = true;
		r->last_ns = life;
	}
	return c;
refuse:
	if (r == NULL) {
		r = pds_syn_rec_new(p, b, key, start, life);
		r->blind = blind;
	}
	pds_syn_refuse(p, c, r, m, ri, life, now);
	return NULL;
}
