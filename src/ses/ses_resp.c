/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * SES responses (UEC 1.0 SES responses): the target's answers, carried by the
 * PDS as guaranteed-delivery responses in ACKs (UEC 1.0 PDS guaranteed
 * delivery), and the initiator's handling of them and of return-direction read
 * data.
 */

#include <errno.h>
#include <string.h>

#include "ses_private.h"

/*
 * Only what needs it is a guaranteed-delivery response (UEC 1.0
 * 3.5.20.2): errors, deliveries from the unexpected list, results (read
 * or fetched data), a modified length (truncation). Plain success is the
 * default response: nothing stored at the PDS, no response on the wire,
 * CACK passing the EOM PSN tells the initiator.
 */
static bool
ses_resp_is_default(const struct uet_wire_ses_resp *r, uint16_t dlen)
{
	return r->fmt == UET_SES_RESP_FMT_RESPONSE && dlen == 0 &&
	       r->opcode == UET_SES_RSP_DEFAULT_RESPONSE &&
	       r->return_code == UET_RC_OK &&
	       r->list == UET_SES_LIST_EXPECTED;
}

int
ses_respond(struct uet_ses *s, uint8_t mode, uint32_t pdc, uint32_t psn,
	    const struct uet_wire_ses_resp *r, const void *data, uint16_t dlen,
	    uint64_t now)
{
	uint8_t buf[UET_PDS_RESP_MAX];
	int n, rc;

	s->st.rx_rc[r->return_code & 63]++;
	/* UUD: no response. RUDI: @p pdc is UET_PDS_PDC_NONE, @p psn the
	 * pkt_id; the response rides in the RUDI_RESP (UEC 1.0 RUDI mode). */
	if (mode == UET_PDS_MODE_UUD)
		return 0;
	if (mode != UET_PDS_MODE_RUDI && ses_resp_is_default(r, dlen)) {
		if (uet_pds_respond_default(s->cfg.pds, pdc, psn, now) != 0) {
			s->st.resp_fail++;
			return -ENOENT;
		}
		s->st.resp_default++;
		return 0;
	}
	n = uet_wire_ses_resp_encode(r, buf, sizeof(buf));
	if (n < 0 || (size_t)n + dlen > sizeof(buf)) {
		s->st.resp_fail++;
		return -EINVAL;
	}
	if (dlen)
		memcpy(buf + n, data, dlen);
	rc = uet_pds_respond(s->cfg.pds, pdc, psn,
			     (uint8_t)uet_wire_ses_resp_fmt_to_next_hdr(r->fmt),
			     buf, (uint16_t)(n + dlen), now);
	if (rc != 0) {
		s->st.resp_fail++;
		/* -EAGAIN on a PDC: no room for the answer, the PDS refused
		 * the request (NO_GTD_DEL_AVAIL) and it comes again. */
		return rc == -EAGAIN && pdc != UET_PDS_PDC_NONE ? -EAGAIN :
								   -ENOENT;
	}
	return 0;
}

/*
 * Flow control (UEC 1.0 PDS NACK codes, SES send variants): refuse the request
 * just delivered with a resource NACK instead of answering it; the initiator
 * backs off and retransmits. Impossible for UUD (no NACK) and once the PDS
 * recorded the delivery (the engine made another PDS call in between): then the
 * caller answers with a return code. Counts into @p ctr when refused.
 */
bool
ses_refuse(struct uet_ses *s, const struct uet_pds_event *ev, uint8_t code,
	   uint64_t *ctr)
{
	if (ev->mode == UET_PDS_MODE_UUD ||
	    uet_pds_refuse(s->cfg.pds, ev->pdc, ev->psn, code) != 0)
		return false;
	(*ctr)++;
	return true;
}

/* RESPONSE for request @p h (UEC 1.0 SES responses): DEFAULT_RESPONSE when OK
 * and nothing was modified, RESPONSE otherwise. Only the EOM packet of a
 * RUD/ROD request has a response slot at the PDS. */
int
ses_respond_rc(struct uet_ses *s, const struct uet_pds_event *ev,
	       const struct uet_wire_ses_req *h, enum uet_wire_ses_rc rc, uint8_t list,
	       uint64_t now)
{
	struct uet_wire_ses_resp r;

	/* One response per message, on its EOM packet. An error is
	 * reported on whichever packet meets it (a stored response of that
	 * packet, docs/SES.md "Responses"): a later packet may meet one the
	 * EOM did not (e.g. the region deregistered in between). */
	if (!(h->flags & UET_SES_F_EOM) &&
	    (rc == UET_RC_OK || ev->mode == UET_PDS_MODE_UUD)) {
		s->st.rx_rc[rc & 63] += rc != UET_RC_OK;
		return 0;
	}
	memset(&r, 0, sizeof(r));
	r.fmt = UET_SES_RESP_FMT_RESPONSE;
	r.list = list;
	r.opcode = rc == UET_RC_OK ? UET_SES_RSP_DEFAULT_RESPONSE :
				     UET_SES_RSP_RESPONSE;
	r.version = UET_SES_VERSION;
	r.return_code = rc;
	r.message_id = h->message_id;
	r.ri_generation = h->ri_generation;
	r.job_id = h->job_id;
	r.modified_length = rc == UET_RC_OK ? h->request_length : 0;
	return ses_respond(s, ev->mode, ev->pdc, ev->psn, &r, NULL, 0, now);
}

/* ---- initiator side ---- */

static void
ses_resp_small_data(struct ses_msg *m, const struct uet_wire_ses_resp *r,
		    const uint8_t *data, uint32_t avail)
{
	uint32_t n = r->payload_length;
	void *dst = m->opcode == UET_SES_OP_READ ? m->wr.buf : m->wr.result;

	if (m->detached)
		return; /* nobody's memory any more (uet_ses_withdraw) */
	if (n > avail || n > m->wr.len || (n != 0 && dst == NULL)) {
		m->rc = UET_RC_UNCOR;
		return;
	}
	if (n != 0)
		memcpy(dst, data, n);
}

/*
 * The SES response of a fragment's DONE (UEC 1.0 PDS guaranteed delivery), or
 * of a late UET_PDS_EV_RESP. The EOM fragment's DONE without response bytes is
 * the default response folded into CACK (UEC 1.0 3.5.20.2): delivered, OK. A
 * response to an earlier fragment (@p frag not the last) matters when it
 * reports an error; the EOM's answer does not overwrite an error reported
 * early. A large READ's request packet answered with an error (or with a
 * response that does not decode) brings no data: its bytes are counted
 * refused, whatever was reported before.
 */
static void
ses_resp_parse(struct uet_ses *s, struct ses_msg *m,
	       const struct uet_pds_event *ev, uint32_t frag)
{
	struct uet_wire_ses_resp r;
	int fmt = uet_wire_ses_resp_fmt_from_next_hdr(ev->next_hdr), n;
	bool eom = frag == m->nfrags - 1;
	bool first = m->rc == UET_RC_NULL || m->rc == UET_RC_OK;

	if (ev->resp_len == 0 || fmt < 0) {
		if (eom && first)
			m->rc = UET_RC_OK; /* default response: delivered */
		return;
	}
	if (!first && !m->large_read)
		return;
	n = uet_wire_ses_resp_decode(ev->resp, ev->resp_len,
				(enum uet_wire_ses_resp_fmt)fmt, &r);
	if (n < 0) {
		if (first) {
			s->st.rx_bad++;
			m->rc = UET_RC_UNCOR;
		}
		/* no telling whether data comes for it: not waited for */
		if (m->large_read)
			m->ret_refused += ses_read_frag_len(m, frag);
		return;
	}
	if (m->large_read && r.return_code != UET_RC_OK &&
	    r.return_code != UET_RC_NULL)
		m->ret_refused += ses_read_frag_len(m, frag);
	if (!first || (!eom && r.return_code == UET_RC_OK))
		return;
	if (!eom)
		s->st.resp_early++;
	m->resp_seen = true;
	m->rc = r.return_code;
	m->list = r.list;
	m->mod_len = r.modified_length;
	if (r.return_code == UET_RC_OK && fmt == UET_SES_RESP_FMT_DATA_SMALL)
		ses_resp_small_data(m, &r, ev->resp + n,
				    (uint32_t)(ev->resp_len - n));
}

/* Every byte of a large READ is in place (none refused by its target). */
static bool
ses_read_all_in(const struct ses_msg *m)
{
	return m->large_read && !m->ret_err && m->ret_refused == 0 &&
	       m->ret_bytes >= m->wr.len;
}

/* A large READ still expects return-direction data: bytes neither landed
 * nor refused with their request packet nor lost with it (ses_read_judge). */
bool
ses_read_waits(const struct ses_msg *m)
{
	return m->large_read &&
	       m->ret_bytes + m->ret_refused + m->ret_lost_len < m->wr.len;
}

/* A large READ that waits no more: request packets of it whose data never
 * came (ses_read_judge) fail it, unless every byte is in after all. */
void
ses_read_settle(struct ses_msg *m)
{
	if (m->large_read && m->status == 0 && m->ret_lost != 0 &&
	    !ses_read_all_in(m))
		m->status = m->ret_lost;
}

/* Index of the count of a large READ's data on @p pdc, -1: none. */
static int
ses_read_pdc_idx(const struct ses_msg *m, uint32_t pdc)
{
	if (!m->large_read || pdc == UET_PDS_PDC_NONE)
		return -1;
	for (int k = 0; k < m->nrpdc; k++)
		if (m->rpdc[k].pdc == pdc)
			return k;
	return -1;
}

/*
 * A count no longer needed: its PDC is gone (nothing more comes on a PDC
 * once it is closed or failed, neither DONEs nor data) and its requests
 * got what they asked for. A READ moved by NACK CLOSING again and again
 * meets more PDCs than it has counts for; those of the PDCs it left make
 * room, so that the count of a PDC still carrying its requests is kept.
 * Not one with more data than asked: that is data of requests whose DONE
 * is still to come (a failed PDC queues them with its PDC_DOWN, which
 * the SES may not have taken yet), and they must find it. Equal, what
 * DONEs are still to come asked for data that did not come, and they fail
 * the READ with or without the count, as they must.
 */
static struct ses_read_pdc *
ses_read_pdc_reclaim(struct uet_ses *s, struct ses_msg *m)
{
	struct uet_pds_pdc_info info;

	for (int k = 0; k < m->nrpdc; k++) {
		struct ses_read_pdc *p = &m->rpdc[k];

		if (p->got == p->asked &&
		    uet_pds_pdc_info_get(s->cfg.pds, p->pdc, &info) != 0) {
			s->st.read_pdc_reclaim++;
			return p;
		}
	}
	s->st.read_pdc_full++;
	return NULL;
}

/* The count of a large READ's data on @p pdc, a new one if need be
 * (NULL: not counted). */
static struct ses_read_pdc *
ses_read_pdc(struct uet_ses *s, struct ses_msg *m, uint32_t pdc)
{
	int k = ses_read_pdc_idx(m, pdc);
	struct ses_read_pdc *p;

	if (k >= 0)
		return &m->rpdc[k];
	if (!m->large_read || pdc == UET_PDS_PDC_NONE)
		return NULL;
	if (m->nrpdc < SES_READ_PDCS)
		p = &m->rpdc[m->nrpdc++];
	else if ((p = ses_read_pdc_reclaim(s, m)) == NULL) {
		m->rpdc_lost = true;
		return NULL; /* judged without: a failed DONE fails the READ */
	}
	memset(p, 0, sizeof(*p));
	p->pdc = pdc;
	return p;
}

/*
 * A large READ is judged by its data. Its request packets ask for data
 * (UEC 1.0 SES READ); the target answers each with return-direction
 * data on the PDC that carried it (PDS read responses). A request that
 * reached the target's SES (SACKed: UEC 1.0 3.5.20.3.2 says delivered,
 * not answered) and whose data came in was executed, although its own
 * DONE fails when its PDC fails before CACK passes it: CACK may be held
 * below PSNs that NACK CLOSING moved to another PDC, which that PDC never
 * delivers. Such a failed DONE must not fail the READ (its peer, for a
 * rendezvous read-back the sender, completed it as delivered). A failed
 * DONE means no more data comes for its request (its PDC failed, or a
 * closing target refused it and the PDS did not move it, NACK CLOSING:
 * never executed): the READ fails when that request's data is not all
 * in. Each request packet keeps its failure (struct ses_read_frag), and
 * its data counts by offset, whatever size of packets the peer cuts it
 * in (ses_read_land).
 *
 * Judged once every request handed to the PDS had its DONE
 * (ses_read_judge), not at the failed DONE: the READ ends then, with the
 * first such DONE's status, once the data of the others is in
 * (ses_msg_check_done). Judged by the data counted per PDC, a count made
 * after a DONE of its PDC had found no room (counts for four PDCs, a READ
 * moved over more) took data of that DONE's request for the failed
 * one's, and the READ waited for good (fuzz_dst,
 * test/dst/fuzz-fixed/hang.read-lost-behind-late-count).
 */
static void
ses_read_frag_failed(struct ses_msg *m, const struct uet_pds_event *ev)
{
	struct ses_read_frag *r = &m->rfrag[ses_ck_frag(ev->cookie)];

	if (r->failed == 0) {
		r->failed = ev->status;
		m->ret_failed++;
	}
}

/*
 * Every request of @p m handed to the PDS had its DONE: a request packet
 * whose DONE failed and whose data is not all in never gets the rest; the
 * READ ends with the first such status once the data of the others is
 * in. A late packet of a failed request would be refused to its sender
 * (the READ is over), and such data never comes: its PDC is gone or the
 * request never ran.
 */
static void
ses_read_judge(struct ses_msg *m)
{
	uint64_t lost = 0;
	uint32_t f;

	if (!m->large_read || m->status != 0 || m->ret_failed == 0 ||
	    m->frags_done < m->next_frag || ses_read_all_in(m))
		return;
	for (f = 0; f < m->next_frag; f++) {
		const struct ses_read_frag *r = &m->rfrag[f];
		uint32_t flen = ses_read_frag_len(m, f);

		if (r->failed == 0 || r->got >= flen)
			continue;
		if (m->ret_lost == 0)
			m->ret_lost = r->failed;
		lost += flen;
	}
	m->ret_lost_len = lost;
}

/* Unlock what ses_msg_note_pdc() locked (the message is done). */
void
ses_msg_unlock_pdcs(struct uet_ses *s, struct ses_msg *m)
{
	for (unsigned int k = 0; k < 2; k++)
		if (m->req_locked & (1u << k))
			uet_pds_pdc_unlock(s->cfg.pds, m->req_pdc[k], s->now);
	m->req_locked = 0;
}

/* Fragments go on one PDC; the PDS moves the rest of a message to a new
 * one when the target closes it (NACK CLOSING), rarely twice. A large
 * READ keeps the PDCs its data comes back on from closing for being idle
 * until it is done (UEC 1.0 lock_pdc): it locks each at the DONE that
 * names it, before any timer runs. */
static void
ses_msg_note_pdc(struct uet_ses *s, struct ses_msg *m, uint32_t pdc)
{
	unsigned int k;

	if (pdc == UET_PDS_PDC_NONE || pdc == m->req_pdc[0] ||
	    pdc == m->req_pdc[1])
		return;
	k = m->req_pdc[0] == UET_PDS_PDC_NONE ? 0 : 1;
	if (m->req_locked & (1u << k)) /* moved a second time */
		uet_pds_pdc_unlock(s->cfg.pds, m->req_pdc[k], s->now);
	m->req_locked &= (uint8_t)~(1u << k);
	m->req_pdc[k] = pdc;
	if (m->large_read && uet_pds_pdc_lock(s->cfg.pds, pdc) == 0)
		m->req_locked |= (uint8_t)(1u << k);
}

void
ses_initiator_done(struct uet_ses *s, const struct uet_pds_event *ev)
{
	struct ses_msg *m = ses_msg_get(s, ev->cookie);

	if (m == NULL) {
		s->st.stale_done++;
		return;
	}
	if (ev->type == UET_PDS_EV_DONE) {
		struct ses_read_pdc *p = ses_read_pdc(s, m, ev->pdc);

		if (p != NULL)
			p->asked += ses_read_frag_len(m, ses_ck_frag(ev->cookie));
	}
	if (ev->status != 0) {
		if (m->large_read)
			ses_read_frag_failed(m, ev);
		else if (m->status == 0)
			m->status = ev->status;
	} else if (ses_ck_frag(ev->cookie) == m->nfrags - 1 ||
		   ev->resp_len != 0) {
		ses_resp_parse(s, m, ev, ses_ck_frag(ev->cookie));
	}
	if (ev->type == UET_PDS_EV_RESP)
		return; /* the fragment had its DONE */
	ses_msg_note_pdc(s, m, ev->pdc);
	m->frags_done++;
	ses_read_judge(m);
	ses_msg_check_done(s, m);
}

/* ---- large READs in flight, keyed {peer FA, job, message id}: ids are
 * unique across the PDCs to a peer for a job (ses_peer_next_id), so the
 * return-direction data finds its READ in O(1) whatever PDC it came on,
 * also when the PDS moved the request to a new PDC (NACK CLOSING) ---- */

static uint32_t
ses_read_hash(const struct uet_ses *s, uint32_t job, uint16_t msg_id)
{
	return ((uint32_t)msg_id * 2654435761u ^ job * 40503u) &
	       s->read_hmask;
}

/* Called once the READ's first packet went to the PDS. */
void
ses_read_hash_add(struct uet_ses *s, struct ses_msg *m)
{
	uint32_t b = ses_read_hash(s, m->wr.job, m->msg_id);

	m->rnext = s->read_hash[b];
	s->read_hash[b] = (uint32_t)(m - s->msgs);
	m->rhashed = true;
}

void
ses_read_unhash(struct uet_ses *s, struct ses_msg *m)
{
	uint32_t idx = (uint32_t)(m - s->msgs), *link;

	if (!m->rhashed)
		return;
	link = &s->read_hash[ses_read_hash(s, m->wr.job, m->msg_id)];
	while (*link != SES_NIL && *link != idx)
		link = &s->msgs[*link].rnext;
	if (*link == idx)
		*link = m->rnext;
	m->rhashed = false;
}

struct ses_msg *
ses_read_find(struct uet_ses *s, const struct uet_pds_fa *fa, uint32_t job,
	      uint16_t msg_id)
{
	uint32_t i = s->read_hash[ses_read_hash(s, job, msg_id)];
	struct ses_msg *m;

	for (; i != SES_NIL; i = m->rnext) {
		m = &s->msgs[i];
		if (m->msg_id == msg_id && m->wr.job == job &&
		    memcmp(&m->wr.dest.fa, fa, sizeof(*fa)) == 0)
			return m;
	}
	return NULL;
}

/*
 * Return-direction data the SES cannot place (no READ of that id, offset
 * or length outside it, malformed) is refused, not dropped: the PDS then
 * neither records nor ACKs it (uet_pds_refuse), and its sender learns
 * that it was not taken (resource NACK, then -ECONNREFUSED after
 * max_backoffs) instead of completing it as delivered.
 */
static int
ses_ret_reject(struct uet_ses *s, const struct uet_pds_event *ev)
{
	s->st.rx_bad++;
	ses_refuse(s, ev, UET_NACK_NO_SES_MSG_AVAIL, &s->st.ret_refused);
	return -EBADMSG;
}

/* Data of a large READ at @p off, @p len bytes, come on @p pdc: the bytes
 * of the request packets it completes (struct ses_read_frag). A packet
 * whose bytes come from a second service starts counting afresh with
 * it: the two may overlap, and only one service's count is exact. */
static uint64_t
ses_read_land(struct ses_msg *m, uint32_t pdc, uint32_t off, uint32_t len)
{
	uint64_t unit = m->rchunk != 0 ? m->rchunk : m->wr.len, done = 0;
	uint32_t f = (uint32_t)(off / unit), flen, o;
	struct ses_read_frag *r;
	uint64_t rest;

	for (; len > 0 && f < m->nfrags; f++) {
		r = &m->rfrag[f];
		flen = ses_read_frag_len(m, f);
		rest = f * unit + flen - off; /* of this packet from off */
		o = rest < len ? (uint32_t)rest : len;
		if (r->got < flen) {
			if (r->got != 0 && r->pdc != pdc)
				r->got = 0;
			r->pdc = pdc;
			r->got += o;
			if (r->got >= flen) {
				r->got = flen;
				done += flen;
			}
		}
		off += o;
		len -= o;
	}
	return done;
}

/* Return-direction RESPONSE_DATA of a large READ (UEC 1.0 PDS read responses,
 * SES responses). */
int
ses_initiator_ret_rx(struct uet_ses *s, const struct uet_pds_event *ev,
		const uint8_t *ses, uint16_t len)
{
	struct uet_wire_ses_resp r;
	struct ses_read_pdc *p;
	struct ses_msg *m;
	int n = uet_wire_ses_resp_decode(ses, len, UET_SES_RESP_FMT_DATA, &r);

	if (ev->next_hdr != UET_PDS_NEXT_RESPONSE_DATA || n < 0 ||
	    r.payload_length != len - n)
		return ses_ret_reject(s, ev);
	m = ses_read_find(s, &ev->peer, r.job_id, r.read_request_message_id);
	if (m == NULL || r.message_offset > m->wr.len ||
	    r.payload_length > m->wr.len - r.message_offset)
		return ses_ret_reject(s, ev);
	if (r.return_code != UET_RC_OK && r.return_code != UET_RC_NULL) {
		/* The target could not read its memory for this part (an
		 * entry of another process, docs/SES.md "Memory of another
		 * process"): the READ fails with the first such code once
		 * all its data is in; the bytes are not placed. */
		s->st.ret_rx_err++;
		if (m->rc == UET_RC_NULL || m->rc == UET_RC_OK)
			m->rc = r.return_code;
		m->ret_err = true;
	} else {
		memcpy((uint8_t *)m->wr.buf + r.message_offset, ses + n,
		       r.payload_length);
	}
	p = ses_read_pdc(s, m, ev->pdc);
	if (p != NULL)
		p->got += r.payload_length;
	m->ret_bytes += ses_read_land(m, ev->pdc, r.message_offset,
				      r.payload_length);
	s->st.ret_rx++;
	ses_msg_check_done(s, m);
	return 0;
}

/* ---- PDC failures (UET_PDS_EV_PDC_DOWN, uet_pds_config.pdc_events) ---- */

struct ses_key_probe {
	const struct ses_msg *m;
	bool live;
};

static int
ses_key_probe_cb(const struct uet_pds_pdc_info *i, void *arg)
{
	struct ses_key_probe *k = arg;
	const struct ses_msg *m = k->m;

	if (i->role == 0 && i->mode == m->mode && i->job == m->wr.job &&
	    i->tc == m->wr.tc &&
	    memcmp(&i->peer, &m->wr.dest.fa, sizeof(i->peer)) == 0) {
		k->live = true;
		return 1;
	}
	return 0;
}

/*
 * Does @p m wait for something that comes on the failed PDC? Every
 * fragment is done (their DONEs came before PDC_DOWN, failed or not) and
 * it waits for large-READ data (its own READ or a rendezvous read-back)
 * or for the peer to read back a rendezvous send. A READ's data comes
 * back on the PDC that carried its request (UEC 1.0 PDS read responses,
 * return direction), which its DONEs named: a READ on the failed PDC
 * fails even while another PDC of its {peer, job, tc, mode} lives. Beyond
 * that (a READ moved twice, a rendezvous send), a message whose own
 * {job, tc} PDC to that peer is still open is not on it.
 */
static bool
ses_msg_on_down_pdc(const struct uet_ses *s, const struct ses_msg *m,
		    const struct uet_pds_event *ev)
{
	struct ses_key_probe k = { .m = m, .live = false };
	int rp;

	if (m->state == SES_MSG_FREE || m->state == SES_MSG_WAIT ||
	    m->status != 0 ||
	    memcmp(&m->wr.dest.fa, &ev->peer, sizeof(ev->peer)) != 0)
		return false;
	/* What a large READ's requests on it asked for and did not get
	 * never comes (ses_read_frag_failed), whatever else is under way. */
	rp = ses_read_pdc_idx(m, ev->pdc);
	if (rp >= 0)
		return !ses_read_all_in(m) &&
		       m->rpdc[rp].got < m->rpdc[rp].asked;
	if (m->state != SES_MSG_ACTIVE || m->frags_done < m->nfrags)
		return false;
	if (!ses_read_waits(m) &&
	    !(m->rdv && !m->rdv_served))
		return false;
	/* A closing PDC the target dropped (-EPIPE): our requests were all
	 * delivered, so a rendezvous send may still be read back (on the
	 * peer's PDC); only return data on this one is lost. */
	if (ev->status == -EPIPE && !m->large_read)
		return false;
	/* A rendezvous read-back under way runs on the peer's PDC (it is the
	 * READ's initiator): its return-direction records decide the send
	 * (ses_rdv_ret_done); between its packets, only that PDC's end does.
	 * A read-back answered in an ACK waits for that PDC too
	 * (ses_rdv_cleared). Our own PDC to the peer only carried the
	 * eager part. */
	if (m->rdv && (m->rdv_rets != 0 || m->rdv_resps != 0))
		return false;
	if (m->rdv && m->rdv_ret != 0)
		return ev->pdc == m->rdv_pdc;
	/* Not counted: a PDC of its requests is taken for one it waits on,
	 * unless every such PDC had its count (this one's, settled, made
	 * room for another: ses_read_pdc_reclaim). */
	if (m->large_read && m->rpdc_lost && ev->pdc != UET_PDS_PDC_NONE &&
	    (ev->pdc == m->req_pdc[0] || ev->pdc == m->req_pdc[1]))
		return true;
	if (m->mode != ev->mode)
		return false;
	uet_pds_pdc_foreach(s->cfg.pds, ses_key_probe_cb, &k);
	return !k.live;
}

/* A deferrable send parked for the RTR of that peer, whose own PDC key
 * has no PDC left (UEC 1.0 SES send variants). */
static bool
ses_parked_on_down_pdc(const struct uet_ses *s, const struct ses_msg *m,
		       const struct uet_pds_event *ev)
{
	struct ses_key_probe k = { .m = m, .live = false };

	if (m->state == SES_MSG_FREE || m->kind != SES_MK_WR || !m->deferred ||
	    m->mode != ev->mode ||
	    memcmp(&m->wr.dest.fa, &ev->peer, sizeof(ev->peer)) != 0)
		return false;
	uet_pds_pdc_foreach(s->cfg.pds, ses_key_probe_cb, &k);
	return !k.live;
}

/* Fail what the SES still expects from the peer on a PDC that is gone
 * (its cookies were failed by DONE events before): large READ data and
 * rendezvous read-backs, with the event's status. Rare path: bounded by
 * the message pool (and the PDC pool per candidate). */
void
ses_pdc_down(struct uet_ses *s, const struct uet_pds_event *ev)
{
	struct ses_msg *m;
	uint32_t i;

	s->st.pdc_down++;
	for (i = 0; i < s->cfg.max_msgs; i++) {
		m = &s->msgs[i];
		if (ev->status != -EPIPE && ses_parked_on_down_pdc(s, m, ev)) {
			ses_defer_pdc_down(s, m, ev->status != 0 ? ev->status :
					   -ECONNRESET);
			continue;
		}
		if (!ses_msg_on_down_pdc(s, m, ev))
			continue;
		s->st.pdc_down_fail++;
		m->status = ev->status != 0 ? ev->status : -ECONNRESET;
		if (m->rdv && !m->rdv_served)
			ses_rdv_served(s, m, m->status);
		else
			ses_msg_check_done(s, m);
	}
}
