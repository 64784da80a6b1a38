/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * SES instance: creation, pools, message-id spaces, completion ring,
 * event dispatch (the ULP "deliver" and "done" entry points).
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <uet/uet_pow2.h>

#include "ses_private.h"

void
uet_ses_config_default(struct uet_ses_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->profile = UET_PROFILE_HPC;
	cfg->mtu = 4096;
	cfg->max_msgs = 1024;
	cfg->max_tgt_msgs = 1024;
	cfg->max_peers = 1024;
	cfg->cq_size = 4096;
	cfg->rdv_threshold = UINT32_MAX;
	cfg->rdv_eager = 0;
	cfg->initiator_id = 0;
	cfg->seed = 0x6a09e667f3bcc909ull;
	cfg->pid_on_fep = 0;
	cfg->rdv_ri = -1;
	cfg->rdv_resource_index = 0;
	cfg->rudi = true;
}

static bool
ses_config_ok(const struct uet_ses_config *c)
{
	if (c->pds == NULL || c->profile < UET_PROFILE_AI_BASE ||
	    c->profile > UET_PROFILE_HPC)
		return false;
	/* One STD header + CAS extension + at least one payload byte, and
	 * a 14-bit payload_length (UEC 1.0 SES standard request header). */
	if (c->mtu < UET_SES_REQ_MAX_LEN + 64 ||
	    c->mtu > UET_SES_LEN14_MAX + UET_SES_STD_LEN || c->mtu > UINT16_MAX)
		return false;
	if (c->max_msgs == 0 || c->max_msgs > SES_SLOT_MAX ||
	    c->max_tgt_msgs == 0 || c->max_tgt_msgs > SES_SLOT_MAX ||
	    c->max_peers == 0 || c->max_peers > SES_SLOT_MAX)
		return false;
	/* The token's slot field holds the owner above slot + 1. */
	if (c->token_owner_bits > 8 ||
	    c->token_owner_id >= (1u << c->token_owner_bits) ||
	    c->max_msgs >= (1u << (UET_WIRE_SES_TOKEN_SLOT_BITS -
				   c->token_owner_bits)))
		return false;
	/* Rendezvous needs the MR table that exposes the source buffers. */
	if ((c->rdv_ri >= 0 || c->rdv_ri_of != NULL) &&
	    (c->mr == NULL || c->rdv_resource_index > UET_SES_RI_MAX))
		return false;
	return uet_is_pow2(c->cq_size);
}

static uint32_t *
ses_stack(uint32_t n)
{
	uint32_t *st = calloc(n, sizeof(*st));
	uint32_t i;

	if (st != NULL)
		for (i = 0; i < n; i++)
			st[i] = n - 1 - i;
	return st;
}

static int
ses_alloc(struct uet_ses *s)
{
	const struct uet_ses_config *c = &s->cfg;
	uint32_t i;

	s->msgs = calloc(c->max_msgs, sizeof(*s->msgs));
	s->msg_free = ses_stack(c->max_msgs);
	s->tgts = calloc(c->max_tgt_msgs, sizeof(*s->tgts));
	s->tgt_free = ses_stack(c->max_tgt_msgs);
	s->tgt_hmask = uet_pow2_ceil(c->max_tgt_msgs) - 1;
	s->tgt_hash = malloc(((size_t)s->tgt_hmask + 1) * sizeof(uint32_t));
	s->read_hmask = uet_pow2_ceil(c->max_msgs) - 1;
	s->read_hash = malloc(((size_t)s->read_hmask + 1) * sizeof(uint32_t));
	s->rets = calloc(c->max_msgs, sizeof(*s->rets));
	s->ret_free = ses_stack(c->max_msgs);
	s->peer_mask = uet_pow2_ceil(c->max_peers * 2) - 1;
	s->peers = calloc((size_t)s->peer_mask + 2, sizeof(*s->peers));
	s->cq = calloc(c->cq_size, sizeof(*s->cq));
	s->rx_flat = malloc(UINT16_MAX);
	/* Rendezvous keys are provider keys: their low 16 bits are the MR
	 * slot, which maps back to the send exposing the buffer. */
	if (c->rdv_ri >= 0 || c->rdv_ri_of != NULL) {
		s->rdv_owner = calloc(UET_SES_MR_MAX_ENTRIES,
				      sizeof(*s->rdv_owner));
		if (s->rdv_owner == NULL)
			return -ENOMEM;
	}
	if (!s->msgs || !s->msg_free || !s->tgts || !s->tgt_free ||
	    !s->tgt_hash || !s->read_hash || !s->rets || !s->ret_free ||
	    !s->peers || !s->cq || !s->rx_flat)
		return -ENOMEM;
	for (i = 0; i <= s->tgt_hmask; i++)
		s->tgt_hash[i] = SES_NIL;
	for (i = 0; i <= s->read_hmask; i++)
		s->read_hash[i] = SES_NIL;
	for (i = 0; i <= s->peer_mask + 1; i++)
		s->peers[i].sq.head = s->peers[i].sq.tail = SES_NIL;
	/* Generations start where this incarnation's seed says
	 * (uet_ses_config.seed): tokens and message ids of an earlier
	 * incarnation still held by a peer name none of ours. */
	uet_rand_seed(&s->rng, c->seed);
	for (i = 0; i < c->max_msgs; i++)
		s->msgs[i].gen = (uint8_t)uet_rand_next(&s->rng);
	for (i = 0; i < c->max_tgt_msgs; i++)
		s->tgts[i].gen = (uint8_t)uet_rand_next(&s->rng);
	s->n_msg_free = c->max_msgs;
	s->n_tgt_free = c->max_tgt_msgs;
	s->n_ret_free = c->max_msgs;
	s->cq_mask = c->cq_size - 1;
	s->ready.head = s->ready.tail = SES_NIL;
	s->rq.head = s->rq.tail = SES_NIL;
	s->tw.head = s->tw.tail = SES_NIL;
	s->txw.head = s->txw.tail = SES_NIL;
	s->retry_due = UINT64_MAX;
	return 0;
}

struct uet_ses *
uet_ses_create(const struct uet_ses_config *cfg)
{
	struct uet_pds_ulp ulp;
	struct uet_ses *s;

	if (cfg == NULL || !ses_config_ok(cfg)) {
		errno = EINVAL;
		return NULL;
	}
	s = calloc(1, sizeof(*s));
	if (s == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	s->cfg = *cfg;
	if (ses_alloc(s) != 0) {
		uet_ses_free(s);
		errno = ENOMEM;
		return NULL;
	}
	/* One SES per PDS answers for its PDCs (a second one on the same
	 * PDS, as a test makes, does not). */
	ulp.continues = ses_target_continues;
	ulp.msg_of = ses_msg_of;
	ulp.arg = s;
	s->ulp = uet_pds_set_ulp(s->cfg.pds, &ulp) == 0;
	return s;
}

void
uet_ses_free(struct uet_ses *s)
{
	uint32_t i;

	if (s == NULL)
		return;
	if (s->ulp)
		uet_pds_set_ulp(s->cfg.pds, &(struct uet_pds_ulp){ .arg = s });
	/* Keys of rendezvous sends still in flight are revoked; the data
	 * counts of READs still in flight go. */
	for (i = 0; s->msgs != NULL && i < s->cfg.max_msgs; i++) {
		if (s->msgs[i].state != SES_MSG_FREE)
			ses_rdv_release(s, &s->msgs[i]);
		free(s->msgs[i].rfrag);
	}
	free(s->rdv_owner);
	free(s->rx_flat);
	free(s->msgs);
	free(s->msg_free);
	free(s->tgts);
	free(s->tgt_free);
	free(s->tgt_hash);
	free(s->read_hash);
	free(s->rets);
	free(s->ret_free);
	free(s->peers);
	free(s->cq);
	free(s);
}

/* ---- initiator messages ---- */

struct ses_msg *
ses_msg_alloc(struct uet_ses *s)
{
	struct ses_read_frag *rfrag;
	struct ses_msg *m;
	uint32_t cap;
	uint8_t gen;

	if (s->n_msg_free == 0)
		return NULL;
	m = &s->msgs[s->msg_free[--s->n_msg_free]];
	gen = (uint8_t)(m->gen + 1);
	rfrag = m->rfrag; /* kept for the slot's next large READ */
	cap = m->rfrag_cap;
	memset(m, 0, sizeof(*m));
	m->gen = gen;
	m->rfrag = rfrag;
	m->rfrag_cap = cap;
	m->next = SES_NIL;
	m->req_pdc[0] = m->req_pdc[1] = UET_PDS_PDC_NONE;
	return m;
}

void
ses_msg_put(struct uet_ses *s, struct ses_msg *m)
{
	ses_rdv_release(s, m); /* revoke the rendezvous read-back key */
	ses_read_unhash(s, m);
	if (m->rfrag_cap > SES_RFRAG_KEEP) {
		free(m->rfrag);
		m->rfrag = NULL;
		m->rfrag_cap = 0;
	}
	ses_msg_unlock_pdcs(s, m);
	m->state = SES_MSG_FREE;
	m->gen++; /* late DONEs and builds of this cookie are stale */
	s->msg_free[s->n_msg_free++] = (uint32_t)(m - s->msgs);
}

struct ses_msg *
ses_msg_get(struct uet_ses *s, uint64_t cookie)
{
	uint32_t slot = ses_ck_slot(cookie);
	struct ses_msg *m;

	if (ses_ck_kind(cookie) != SES_CK_INIT || slot >= s->cfg.max_msgs)
		return NULL;
	m = &s->msgs[slot];
	if (m->state == SES_MSG_FREE || m->gen != ses_ck_gen(cookie) ||
	    ses_ck_frag(cookie) >= m->nfrags)
		return NULL;
	return m;
}

/*
 * ---- message ids: 16 bits per {FA, job} ----
 * UEC 1.0 3.5.20.2.5: message ids unique within a PDC, and across all PDCs
 * so that the initiator finds the READ of return-direction data whatever
 * PDC it came on: the PDS may move a request to a new PDC (NACK CLOSING),
 * and every PDC to a peer for a job (traffic classes, modes) shares the
 * space.
 */

static uint32_t
ses_peer_hash(const struct uet_pds_fa *fa, uint32_t job)
{
	uint64_t h = 0xcbf29ce484222325ull;
	size_t i;

	for (i = 0; i < sizeof(fa->addr); i++)
		h = (h ^ fa->addr[i]) * 0x100000001b3ull;
	h = (h ^ job) * 0x100000001b3ull;
	return (uint32_t)(h ^ (h >> 32));
}

/* Hand one request packet to the engine's submission path (MTU check,
 * entropy policy, counters), or to the PDS directly without one. */
int
ses_pds_submit(struct uet_ses *s, const struct uet_pds_submit *ps,
	       uint64_t now)
{
	if (s->cfg.submit != NULL)
		return s->cfg.submit(s->cfg.submit_arg, ps, now);
	return uet_pds_submit(s->cfg.pds, ps, now);
}

/* The peer {@p fa, @p job}, added if new; NULL: the table is full. */
static struct ses_peer *
ses_peer_get(struct uet_ses *s, const struct uet_pds_fa *fa, uint32_t job)
{
	uint32_t i = ses_peer_hash(fa, job), n;
	struct ses_peer *p;

	for (n = 0; n <= s->peer_mask; n++, i++) {
		p = &s->peers[i & s->peer_mask];
		if (!p->used) {
			p->used = true;
			p->fa = *fa;
			p->job = job;
			return p;
		}
		if (p->job == job && memcmp(&p->fa, fa, sizeof(*fa)) == 0)
			return p;
	}
	return NULL;
}

/* The peer whose submission queue takes a message to {@p fa, @p job}:
 * its own, or, the table full, the one after the table that all such
 * messages share (in order, as one peer). */
uint32_t
ses_sq_peer(struct uet_ses *s, const struct uet_pds_fa *fa, uint32_t job)
{
	const struct ses_peer *l = &s->peers[s->peer_last];
	struct ses_peer *p;

	/* messages come in runs to one peer: the last one first */
	if (l->used && l->job == job && memcmp(&l->fa, fa, sizeof(*fa)) == 0)
		return s->peer_last;
	p = ses_peer_get(s, fa, job);
	if (p == NULL)
		return s->peer_mask + 1;
	s->peer_last = (uint32_t)(p - s->peers);
	return s->peer_last;
}

int
ses_peer_next_id(struct uet_ses *s, const struct uet_pds_fa *fa,
		 uint32_t job, uint16_t *id)
{
	struct ses_peer *p = ses_peer_get(s, fa, job);
	uint32_t n;

	if (p == NULL)
		return -EAGAIN;
	if (!p->id_drawn) {
		/* 1..65535: 0 is the implicit id of MEDIUM/SMALL */
		p->next_id = (uint16_t)(1 + uet_rand_next(&s->rng) %
					    UINT16_MAX);
		p->id_drawn = true;
	}
	/* 16-bit serial numbers; 0 is skipped so a MEDIUM/SMALL request
	 * (implicit id 0) never aliases a STD one. An id a large READ in
	 * flight still answers to is skipped too (after a wrap). */
	for (n = 0; n < UINT16_MAX; n++) {
		*id = p->next_id++;
		if (p->next_id == 0)
			p->next_id = 1;
		if (ses_read_find(s, fa, job, *id) == NULL)
			return 0;
	}
	return -EAGAIN;
}

/* ---- completions ---- */

void
ses_cq_push(struct uet_ses *s, const struct uet_ses_cqe *c)
{
	if (s->cq_tail - s->cq_head > s->cq_mask) {
		s->st.cq_overflow++;
		return;
	}
	s->cq[s->cq_tail++ & s->cq_mask] = *c;
}

uint16_t
uet_ses_cq_poll(struct uet_ses *s, struct uet_ses_cqe *c, uint16_t n)
{
	uint16_t k = 0;

	while (k < n && s->cq_head != s->cq_tail)
		c[k++] = s->cq[s->cq_head++ & s->cq_mask];
	return k;
}

int
uet_ses_rc_errno(enum uet_wire_ses_rc rc)
{
	switch (rc) {
	case UET_RC_OK:
		return 0;
	case UET_RC_NO_MATCH:
	case UET_RC_DROPPED:
		return -EAGAIN;
	case UET_RC_TOO_LONG:
	case UET_RC_UNSUPPORTED_SIZE:
	case UET_RC_AMO_UNSUPPORTED_SIZE:
		return -EMSGSIZE;
	case UET_RC_UNSUPPORTED_OP:
	case UET_RC_AMO_UNSUPPORTED_OP:
	case UET_RC_AMO_UNSUPPORTED_DT:
		return -EOPNOTSUPP;
	case UET_RC_PERM_VIOLATION:
	case UET_RC_OP_VIOLATION:
	case UET_RC_BAD_JOB_ID:
	case UET_RC_AT_PERM:
		return -EACCES;
	case UET_RC_BAD_MKEY:
	case UET_RC_BAD_GENERATION:
	case UET_RC_DISABLED:
	case UET_RC_DISABLED_GEN:
	case UET_RC_BAD_INDEX:
	case UET_RC_BAD_PID:
		return -EINVAL;
	case UET_RC_BAD_ADDR:
	case UET_RC_AMO_UNALIGNED:
	case UET_RC_AT_NO_TRANS:
	case UET_RC_AT_INVALID:
	case UET_RC_AT_OUT_OF_RANGE:
		return -EFAULT;
	case UET_RC_CANCELLED:
		return -ECANCELED;
	default:
		return -EIO;
	}
}

/* ---- ULP entry points ---- */

/* Both pieces of a request joined in s->rx_flat, for a reader of the
 * payload in place (sizes checked by uet_ses_event_tail()). */
const uint8_t *
ses_pl_flat(struct uet_ses *s, const struct ses_pl *pl)
{
	if (pl->tail_n == 0)
		return pl->p;
	s->st.rx_flat++;
	memcpy(s->rx_flat, pl->p, pl->n);
	memcpy(s->rx_flat + pl->n, pl->tail, pl->tail_n);
	return s->rx_flat;
}

int
uet_ses_event(struct uet_ses *s, const struct uet_pds_event *ev,
	      const uint8_t *ses, uint16_t len, uint64_t now)
{
	return uet_ses_event_tail(s, ev, ses, len, NULL, 0, now);
}

int
uet_ses_event_tail(struct uet_ses *s, const struct uet_pds_event *ev,
		   const uint8_t *ses, uint16_t len, const uint8_t *tail,
		   uint32_t tail_len, uint64_t now)
{
	struct ses_pl pl;

	s->now = now;
	if (s->ready.head != SES_NIL && ev->type != UET_PDS_EV_DELIVER)
		s->sq_kick = true;
	if (ev->type == UET_PDS_EV_RESP) {
		if (ses_ck_kind(ev->cookie) == SES_CK_INIT)
			ses_initiator_done(s, ev);
		return 0;
	}
	if (ev->type == UET_PDS_EV_DONE) {
		if (ses_ck_kind(ev->cookie) == SES_CK_RET)
			ses_ret_done(s, ev->cookie, ev->status);
		else
			ses_initiator_done(s, ev);
		return 0;
	}
	if (ev->type == UET_PDS_EV_PDC_DOWN) {
		ses_pdc_down(s, ev);
		return 0;
	}
	if (ev->type == UET_PDS_EV_CLEARED) {
		ses_rdv_cleared(s, ev);
		return 0;
	}
	if (ev->type == UET_PDS_EV_PDC_CLOSED) {
		ses_target_pdc_closed(s, ev);
		return 0;
	}
	if (ev->type != UET_PDS_EV_DELIVER || ses == NULL ||
	    (tail_len != 0 && (tail == NULL ||
			       tail_len > UINT16_MAX - (uint32_t)len))) {
		s->st.rx_bad++;
		return -EBADMSG;
	}
	if (ev->next_hdr == UET_PDS_NEXT_RESPONSE_DATA ||
	    ev->next_hdr == UET_PDS_NEXT_RESPONSE_DATA_SMALL) {
		pl = (struct ses_pl){ .p = ses, .n = len, .tail = tail,
				      .tail_n = tail_len };
		return ses_initiator_ret_rx(s, ev, ses_pl_flat(s, &pl),
					    (uint16_t)ses_pl_len(&pl));
	}
	return ses_target_deliver(s, ev, ses, len, tail, tail_len, now);
}

bool
uet_ses_rx_resp_expected(uint8_t pds_type, uint8_t next_hdr,
			 const uint8_t *ses, uint16_t len)
{
	switch (pds_type) {
	case UET_PDS_TYPE_RUD_REQ:
	case UET_PDS_TYPE_ROD_REQ:
	case UET_PDS_TYPE_RUD_CC_REQ:
	case UET_PDS_TYPE_ROD_CC_REQ:
		break;
	default:
		return false; /* RUDI answers in RUDI_RESP, UUD never */
	}
	if (next_hdr < UET_PDS_NEXT_REQUEST_SMALL ||
	    next_hdr > UET_PDS_NEXT_REQUEST_STD || ses == NULL ||
	    len < UET_SES_COMMON_LEN)
		return false;
	/* UEC 1.0 SES request header: EOM is bit 0x02 of byte 1; one response
	 * per message, on its last packet. */
	return (ses[1] & UET_SES_F_EOM) != 0;
}

const struct uet_ses_stats *
uet_ses_stats_get(const struct uet_ses *s)
{
	return &s->st;
}

bool
uet_ses_ret_reads(const struct uet_ses *s, pid_t owner, uintptr_t base,
		  uint64_t len)
{
	for (uint32_t i = 0; i < s->cfg.max_msgs; i++) {
		const struct ses_ret *r = &s->rets[i];
		/* the READ's bytes: message offset 0 .. total, @c off at
		 * @c addr */
		uintptr_t lo = (uintptr_t)r->addr - r->off;

		if (r->used && !r->detached && r->owner == owner &&
		    lo < base + len && base < lo + r->total)
			return true;
	}
	return false;
}

void
uet_ses_pool_info_get(const struct uet_ses *s, struct uet_ses_pool_info *pi)
{
	pi->msgs_used = s->cfg.max_msgs - s->n_msg_free;
	pi->tgt_used = s->cfg.max_tgt_msgs - s->n_tgt_free;
	pi->ret_used = s->cfg.max_msgs - s->n_ret_free;
	pi->cq_used = s->cq_tail - s->cq_head;
}
