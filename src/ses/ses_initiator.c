/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * SES initiator: work requests -> messages -> fragments (UEC 1.0 SES request
 * header through opcodes), fragment hand-over to the PDS and per-cookie rebuild
 * ("build").
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <uet/uet_ses_amo.h>
#include <uet/uet_wire_csum.h>

#include "ses_private.h"

static bool
ses_op_fetches(unsigned int opcode)
{
	return opcode == UET_SES_OP_FETCHING_ATOMIC ||
	       opcode == UET_SES_OP_TSEND_FETCH_ATOMIC;
}

static bool
ses_op_is_rma(unsigned int opcode)
{
	return opcode == UET_SES_OP_WRITE || opcode == UET_SES_OP_READ ||
	       opcode == UET_SES_OP_ATOMIC ||
	       opcode == UET_SES_OP_FETCHING_ATOMIC;
}

enum uet_wire_ses_fmt
uet_ses_fmt_choose(unsigned int opcode, bool single, bool hd, uint64_t len)
{
	if (opcode == UET_SES_OP_NO_OP && !hd)
		return UET_SES_FMT_SMALL;
	/* MEDIUM is single-packet with a 14-bit length (UEC 1.0 SES standard
	 * request header). */
	if (!single || len > UET_SES_LEN14_MAX ||
	    !uet_wire_ses_fmt_allows(UET_SES_FMT_MEDIUM, opcode))
		return UET_SES_FMT_STD;
	/* MEDIUM carries header_data *or* buffer_offset: RMA with HD needs
	 * both. A large READ needs a message id for its response data. */
	if (hd && ses_op_is_rma(opcode))
		return UET_SES_FMT_STD;
	if (opcode == UET_SES_OP_READ && len > SES_SMALL_DATA_MAX)
		return UET_SES_FMT_STD;
	return UET_SES_FMT_MEDIUM;
}

/* Work request -> opcode (fi_send -> SEND, fi_tsend -> TAGGED_SEND, fi_write ->
 * WRITE, ...; docs/PROVIDER.md). */
static int
ses_wr_opcode(const struct uet_ses *s, const struct uet_ses_wr *wr,
	      uint8_t *op)
{
	static const uint8_t map[UET_SES_WR__COUNT] = {
		[UET_SES_WR_NOP] = UET_SES_OP_NO_OP,
		[UET_SES_WR_SEND] = UET_SES_OP_SEND,
		[UET_SES_WR_TSEND] = UET_SES_OP_TAGGED_SEND,
		[UET_SES_WR_WRITE] = UET_SES_OP_WRITE,
		[UET_SES_WR_READ] = UET_SES_OP_READ,
		[UET_SES_WR_ATOMIC] = UET_SES_OP_ATOMIC,
		[UET_SES_WR_FETCH_ATOMIC] = UET_SES_OP_FETCHING_ATOMIC,
		[UET_SES_WR_CSWAP] = UET_SES_OP_FETCHING_ATOMIC,
		[UET_SES_WR_DGRAM_SEND] = UET_SES_OP_DATAGRAM_SEND,
		[UET_SES_WR_TSEND_ATOMIC] = UET_SES_OP_TSEND_ATOMIC,
		[UET_SES_WR_TSEND_FETCH_ATOMIC] =
			UET_SES_OP_TSEND_FETCH_ATOMIC,
	};
	bool tagged = wr->op == UET_SES_WR_TSEND;

	if (wr->op >= UET_SES_WR__COUNT)
		return -EINVAL;
	*op = map[wr->op];
	if (wr->op != UET_SES_WR_SEND && !tagged)
		return 0;
	/* Rendezvous exists in HPC only (UEC 1.0 profiles): the threshold
	 * applies there; a forced one elsewhere fails the profile check. */
	if ((wr->flags & UET_SES_WR_F_RENDEZVOUS) ||
	    (ses_profile(s, ses_wr_pid(s, wr)) == UET_PROFILE_HPC &&
	     wr->len > s->cfg.rdv_threshold))
		*op = tagged ? UET_SES_OP_RENDEZVOUS_TSEND :
			       UET_SES_OP_RENDEZVOUS_SEND;
	else if (wr->flags & UET_SES_WR_F_DEFERRABLE)
		*op = tagged ? UET_SES_OP_DEFERRABLE_TSEND :
			       UET_SES_OP_DEFERRABLE_SEND;
	return 0;
}

/* Delivery mode per operation and profile (RUD, ROD where ordering is asked,
 * RUDI for idempotent HPC operations; UEC 1.0 profiles). */
static uint8_t
ses_wr_mode(const struct uet_ses *s, const struct uet_ses_wr *wr,
	    uint8_t opcode)
{
	if (opcode == UET_SES_OP_DATAGRAM_SEND)
		return UET_PDS_MODE_UUD;
	/* RUDI may replay: only idempotent operations on an idempotent-safe
	 * key (UEC 1.0 SES memory key format): WRITE without header data (a
	 * replay would complete the target twice) and READ whose data fits the
	 * RUDI_RESP. */
	if ((wr->flags & UET_SES_WR_F_IDEMPOTENT) && s->cfg.rudi &&
	    ses_profile(s, ses_wr_pid(s, wr)) == UET_PROFILE_HPC &&
	    (wr->rkey & UET_MKEY_I) &&
	    ((opcode == UET_SES_OP_WRITE && !(wr->flags & UET_SES_WR_F_IMM)) ||
	     (opcode == UET_SES_OP_READ && wr->len <= SES_SMALL_DATA_MAX)))
		return UET_PDS_MODE_RUDI;
	if (wr->flags & UET_SES_WR_F_ORDERED)
		return UET_PDS_MODE_ROD;
	return UET_PDS_MODE_RUD;
}

/* Atomic operands (UEC 1.0 SES extension headers): CAS forms are one element of
 * <= 16 bytes whose compare and swap values travel in the extension. */
static int
ses_wr_atomic_ok(const struct uet_ses_wr *wr, uint8_t opcode)
{
	size_t esz = uet_wire_amo_dt_size(wr->atomic_dt);
	bool cas = uet_wire_ses_amo_op_is_cas(wr->atomic_op);
	bool fetch = ses_op_fetches(opcode);
	bool tagged = ses_op_is_tagged(opcode);

	if (!uet_amo_op_valid(wr->atomic_op) ||
	    !uet_amo_dt_valid(wr->atomic_dt) || esz == 0 || wr->len == 0 ||
	    wr->len % esz != 0 || wr->len > UET_AMO_MAX_LEN)
		return -EINVAL;
	/* Untagged CAS ops go through UET_SES_WR_CSWAP; tagged atomics take
	 * any op (the CAS values still travel in the extension). */
	if (!tagged && (wr->op == UET_SES_WR_CSWAP) != cas &&
	    wr->op != UET_SES_WR_ATOMIC)
		return -EINVAL;
	if (cas && (wr->len != esz || esz > 16 || wr->compare == NULL))
		return -EINVAL;
	if (fetch && (wr->result == NULL || wr->len > SES_FETCH_MAX))
		return -EINVAL;
	if (!cas && wr->atomic_op != UET_AMO_READ && wr->buf == NULL)
		return -EINVAL;
	return 0;
}

static uint32_t
ses_payload_len(const struct uet_ses_wr *wr, uint8_t opcode)
{
	switch (opcode) {
	case UET_SES_OP_NO_OP:
	case UET_SES_OP_READ:
		return 0;
	case UET_SES_OP_ATOMIC:
	case UET_SES_OP_FETCHING_ATOMIC:
	case UET_SES_OP_TSEND_ATOMIC:
	case UET_SES_OP_TSEND_FETCH_ATOMIC:
		if (uet_wire_ses_amo_op_is_cas(wr->atomic_op) ||
		    wr->atomic_op == UET_AMO_READ)
			return 0;
		return (uint32_t)wr->len;
	default:
		return (uint32_t)wr->len;
	}
}

static size_t
ses_ext_len(const struct ses_msg *m)
{
	if (m->rdv)
		return UET_SES_RDV_EXT_LEN;
	if (!ses_op_is_atomic(m->opcode))
		return 0;
	return uet_wire_ses_amo_op_is_cas(m->wr.atomic_op) ?
		UET_SES_ATOMIC_CAS_EXT_LEN : UET_SES_ATOMIC_EXT_LEN;
}

/* Header format and fragmentation (UEC 1.0 SES standard request header). */
static int
ses_msg_layout(const struct uet_ses *s, struct ses_msg *m)
{
	uint32_t mtu = s->cfg.mtu, ext = (uint32_t)ses_ext_len(m), rest;
	bool medium_fits = (uint64_t)UET_SES_MEDIUM_LEN + ext + m->plen <= mtu;

	m->fmt = (uint8_t)uet_ses_fmt_choose(m->opcode, medium_fits, m->hd,
					     m->wr.len);
	m->hdr0 = (uint8_t)(uet_wire_ses_fmt_len(m->fmt) + ext);
	m->nfrags = 1;
	m->chunk0 = mtu - m->hdr0;
	m->chunk = mtu - UET_SES_STD_LEN;
	/* A READ longer than one return packet is a multi-packet request:
	 * each packet asks for at most one packet of data at its own offset
	 * (docs/WIRE-DECISIONS.md "Multi-packet READ requests"). */
	if (m->opcode == UET_SES_OP_READ && m->mode != UET_PDS_MODE_RUDI &&
	    m->wr.len > ses_read_chunk(s)) {
		m->rchunk = ses_read_chunk(s);
		m->nfrags = (uint32_t)((m->wr.len + m->rchunk - 1) / m->rchunk);
		return 0;
	}
	if (m->plen <= m->chunk0)
		return 0;
	/* Single-packet opcodes (UEC 1.0 SES standard request header
	 * MEDIUM/SMALL, SES send variants datagrams). */
	if (ext != 0 || m->opcode == UET_SES_OP_DATAGRAM_SEND ||
	    m->opcode == UET_SES_OP_NO_OP)
		return -EMSGSIZE;
	rest = m->plen - m->chunk0;
	m->nfrags = 1 + (rest + m->chunk - 1) / m->chunk;
	return 0;
}

/* Profile, then implementation limits; *rc gets the UET code. */
static int
ses_wr_allowed(const struct uet_ses *s, const struct ses_msg *m,
	       enum uet_wire_ses_rc *rc)
{
	unsigned int pf = 0;

	if ((m->wr.flags & UET_SES_WR_F_WILDCARD) &&
	    m->opcode == UET_SES_OP_TAGGED_SEND)
		pf |= UET_SES_PROF_F_WILDCARD;
	if (m->mode == UET_PDS_MODE_RUDI)
		pf |= UET_SES_PROF_F_RUDI;
	if (!uet_ses_profile_allows(ses_profile(s, ses_wr_pid(s, &m->wr)),
				    m->opcode, m->wr.len, pf,
				    s->cfg.mtu - UET_SES_MEDIUM_LEN, rc))
		return *rc == UET_RC_TOO_LONG ? -EMSGSIZE : -EOPNOTSUPP;
	if (m->wr.len > UET_SES_MSG_MAX) {
		*rc = UET_RC_TOO_LONG;
		return -EMSGSIZE;
	}
	return 0;
}

static int
ses_wr_check(const struct uet_ses_wr *wr, uint8_t opcode)
{
	if (wr->job > UET_SES_JOB_ID_MAX || wr->dest.pid_on_fep > UET_SES_PID_MAX ||
	    wr->dest.resource_index > UET_SES_RI_MAX)
		return -EINVAL;
	if (ses_op_is_atomic(opcode))
		return ses_wr_atomic_ok(wr, opcode);
	if (wr->len != 0 && wr->buf == NULL && opcode != UET_SES_OP_NO_OP)
		return -EINVAL;
	return 0;
}

/* Append peer @p pi to the FIFO of peers @p q. */
static void
ses_ready_push(struct uet_ses *s, struct ses_fifo *q, uint32_t pi)
{
	s->peers[pi].rnext = SES_NIL;
	if (q->tail == SES_NIL)
		q->head = pi;
	else
		s->peers[q->tail].rnext = pi;
	q->tail = pi;
}

/* Queue @p m for submission behind its peer's earlier messages; the
 * peer joins the peers served in turn if it was not among them. */
void
ses_sq_push(struct uet_ses *s, struct ses_msg *m)
{
	uint32_t idx = (uint32_t)(m - s->msgs);
	uint32_t pi = ses_sq_peer(s, &m->wr.dest.fa, m->wr.job);
	struct ses_peer *p = &s->peers[pi];

	m->next = SES_NIL;
	if (p->sq.tail == SES_NIL)
		p->sq.head = idx;
	else
		s->msgs[p->sq.tail].next = idx;
	p->sq.tail = idx;
	if (!p->ready) {
		p->ready = true;
		ses_ready_push(s, &s->ready, pi);
	}
}

/* Whether the first message of a peer served in turn ends without the
 * PDS (ses_msg_cut): the SES then has work due at once. */
bool
ses_sq_cut_due(const struct uet_ses *s)
{
	uint32_t pi;

	for (pi = s->ready.head; pi != SES_NIL; pi = s->peers[pi].rnext)
		if (ses_msg_cut(&s->msgs[s->peers[pi].sq.head]))
			return true;
	return false;
}

static int
ses_msg_setup(struct uet_ses *s, struct ses_msg *m, const struct uet_ses_wr *wr,
	      enum uet_wire_ses_rc *rc)
{
	int ret;

	m->wr = *wr;
	ret = ses_wr_opcode(s, wr, &m->opcode);
	if (m->kind == SES_MK_RTR)
		m->opcode = UET_SES_OP_DEFERRABLE_RTR;
	else if (m->kind == SES_MK_MSG_ERROR)
		m->opcode = UET_SES_OP_MSG_ERROR;
	if (ret == 0)
		ret = ses_wr_check(wr, m->opcode);
	if (ret != 0)
		return ret;
	m->mode = ses_wr_mode(s, wr, m->opcode);
	ret = ses_wr_allowed(s, m, rc);
	if (ret != 0)
		return ret;
	m->hd = (wr->flags & UET_SES_WR_F_IMM) != 0 &&
		m->opcode != UET_SES_OP_READ && !ses_op_is_atomic(m->opcode);
	m->plen = m->kind == SES_MK_RTR ? 0 : ses_payload_len(wr, m->opcode);
	if (ses_op_is_rdv(m->opcode)) {
		ret = ses_rdv_setup(s, m);
		if (ret == -EOPNOTSUPP)
			*rc = UET_RC_UNSUPPORTED_OP; /* no rdv_ri configured */
		if (ret != 0)
			return ret;
	}
	/* Deferrable: our token names the slot and generation (UEC 1.0 SES
	 * standard request header); an RTR carries the tokens of the send it
	 * restarts. The owner above the slot lets an engine steer the RTR
	 * to us (uet_wire_ses_token_owner()). */
	if (m->kind != SES_MK_RTR)
		m->tok_i = (uint32_t)m->gen << UET_WIRE_SES_TOKEN_SLOT_BITS |
			   ses_token_owner(s) | (uint32_t)(m - s->msgs + 1);
	ret = ses_msg_layout(s, m);
	if (ret != 0)
		return ret;
	m->large_read = m->opcode == UET_SES_OP_READ &&
			wr->len > SES_SMALL_DATA_MAX;
	if (m->large_read && m->rfrag_cap >= m->nfrags) {
		memset(m->rfrag, 0, m->nfrags * sizeof(*m->rfrag));
	} else if (m->large_read) { /* the slot's array is too small */
		free(m->rfrag);
		m->rfrag_cap = 0;
		m->rfrag = calloc(m->nfrags, sizeof(*m->rfrag));
		if (m->rfrag == NULL)
			return -ENOMEM;
		m->rfrag_cap = m->nfrags;
	}
	if (m->fmt == UET_SES_FMT_STD) {
		ret = ses_peer_next_id(s, &wr->dest.fa, wr->job,
				       &m->msg_id);
		if (ret != 0)
			return ret;
	}
	return 0;
}

/* A message the SES itself originates on behalf of a target record
 * (rendezvous read-back, DEFERRABLE_RTR); completes nothing by itself. */
int
ses_msg_submit_internal(struct uet_ses *s, const struct uet_ses_wr *wr,
			uint8_t kind, uint32_t rx, struct ses_msg **out)
{
	enum uet_wire_ses_rc rc = UET_RC_OK;
	struct ses_msg *m = ses_msg_alloc(s);
	int ret;

	if (m == NULL)
		return -EAGAIN;
	m->kind = kind;
	m->rx = rx;
	if (out != NULL)
		*out = m;
	ret = ses_msg_setup(s, m, wr, &rc);
	if (ret != 0) {
		ses_msg_put(s, m);
		return ret;
	}
	m->state = SES_MSG_QUEUED;
	ses_sq_push(s, m);
	return 0;
}

int
uet_ses_submit(struct uet_ses *s, const struct uet_ses_wr *wr,
	       enum uet_wire_ses_rc *rc)
{
	enum uet_wire_ses_rc dummy = UET_RC_OK;
	struct ses_msg *m;
	int ret;

	if (rc == NULL)
		rc = &dummy;
	*rc = UET_RC_OK;
	m = ses_msg_alloc(s);
	if (m == NULL) {
		s->st.wr_eagain++;
		return -EAGAIN;
	}
	ret = ses_msg_setup(s, m, wr, rc);
	if (ret != 0) {
		ses_msg_put(s, m);
		if (ret == -EAGAIN)
			s->st.wr_eagain++;
		else
			s->st.wr_rejected++;
		return ret;
	}
	m->state = SES_MSG_QUEUED;
	ses_sq_push(s, m);
	s->st.wr_submitted++;
	return 0;
}

/* ---- fragments ---- */

uint32_t
ses_frag_off(const struct ses_msg *m, uint32_t i)
{
	return i == 0 ? 0 : m->chunk0 + (i - 1) * m->chunk;
}

uint32_t
ses_frag_len(const struct ses_msg *m, uint32_t i)
{
	uint32_t off = ses_frag_off(m, i), cap = i == 0 ? m->chunk0 : m->chunk;

	if (m->rchunk != 0)
		return 0; /* READ request packets carry no payload */
	return m->plen - off < cap ? m->plen - off : cap;
}

/* Large READ: the data request packet @p i asks for (all of it when one
 * packet asks for the whole message). */
uint32_t
ses_read_frag_len(const struct ses_msg *m, uint32_t i)
{
	uint64_t off = (uint64_t)i * m->rchunk;

	if (m->rchunk == 0)
		return (uint32_t)m->wr.len;
	return m->wr.len - off < m->rchunk ? (uint32_t)(m->wr.len - off) :
					     m->rchunk;
}

static void
ses_req_atomic(const struct ses_msg *m, struct uet_wire_ses_req *h)
{
	size_t esz = uet_wire_amo_dt_size(m->wr.atomic_dt);

	h->atomic.op = m->wr.atomic_op;
	h->atomic.datatype = m->wr.atomic_dt;
	h->ext = UET_SES_EXT_ATOMIC;
	if (!uet_wire_ses_amo_op_is_cas(m->wr.atomic_op))
		return;
	/* CAS form (UEC 1.0 SES extension headers): compare and swap values,
	 * host order, left aligned in their 16-byte slots. */
	h->ext = UET_SES_EXT_ATOMIC_CAS;
	memcpy(h->atomic.compare, m->wr.compare, esz);
	memcpy(h->atomic.swap, m->wr.buf, esz);
}

/* Addressing and matching fields (UEC 1.0 SES standard request header): key or
 * tag, offset, HD. */
static void
ses_req_target(const struct uet_ses *s, const struct ses_msg *m, uint32_t i,
	       struct uet_wire_ses_req *h)
{
	bool rma = ses_op_is_rma(m->opcode);

	if (m->fmt == UET_SES_FMT_SMALL)
		return;
	h->initiator = (m->wr.flags & UET_SES_WR_F_SRC) ? m->wr.initiator :
							  s->cfg.initiator_id;
	if (rma)
		h->match_bits = m->wr.rkey;
	else if (ses_op_is_tagged(m->opcode))
		h->match_bits = m->wr.tag;
	/* Tagged atomics address the matched buffer at buffer_offset. */
	if (ses_op_is_atomic(m->opcode))
		rma = true;
	if (m->fmt == UET_SES_FMT_MEDIUM) {
		if (m->hd)
			h->header_data = m->wr.imm_data;
		else
			h->buffer_offset = rma ? m->wr.roffset : 0;
		return;
	}
	h->buffer_offset = rma ? m->wr.roffset : 0;
	if (ses_op_is_defer(m->opcode))
		uet_wire_ses_req_set_tokens(h, m->tok_i, m->tok_t);
	if (m->rchunk != 0 && i == 0) {
		/* READ SOM: its length and offset 0 in the header-data slot,
		 * laid out as on a continuation packet. */
		h->header_data = (uint64_t)ses_read_frag_len(m, 0) << 32;
	} else if (m->rchunk != 0) {
		h->payload_length = (uint16_t)ses_read_frag_len(m, i);
		h->message_offset = i * m->rchunk;
	} else if (i == 0) {
		h->header_data = m->hd ? m->wr.imm_data : 0;
	} else {
		h->payload_length = (uint16_t)ses_frag_len(m, i);
		h->message_offset = ses_frag_off(m, i);
	}
}

static void
ses_req_fill(const struct uet_ses *s, const struct ses_msg *m, uint32_t i,
	     struct uet_wire_ses_req *h)
{
	const struct uet_ses_wr *wr = &m->wr;

	memset(h, 0, sizeof(*h));
	h->opcode = m->opcode;
	h->version = UET_SES_VERSION;
	if (i == 0)
		h->flags |= UET_SES_F_SOM;
	if (i == m->nfrags - 1)
		h->flags |= UET_SES_F_EOM;
	if (wr->dest.relative)
		h->flags |= UET_SES_F_REL;
	if (wr->flags & UET_SES_WR_F_DC)
		h->flags |= UET_SES_F_DC;
	if (m->hd && i == 0)
		h->flags |= UET_SES_F_HD;
	if (m->fmt == UET_SES_FMT_STD)
		h->message_id = m->msg_id;
	h->ri_generation = wr->dest.ri_generation;
	h->job_id = wr->job;
	h->pid_on_fep = wr->dest.pid_on_fep;
	h->resource_index = wr->dest.resource_index;
	h->request_length = (uint32_t)wr->len;
	ses_req_target(s, m, i, h);
	if (i == 0 && ses_op_is_atomic(m->opcode))
		ses_req_atomic(m, h);
	if (i == 0 && m->rdv)
		ses_rdv_ext_fill(s, m, h);
	if (m->kind == SES_MK_RTR)
		ses_defer_rtr_fill(m, h);
	else if (m->kind == SES_MK_MSG_ERROR)
		ses_rdv_error_fill(m, h);
}

/*
 * The payload of fragment @p i behind its @p n header bytes; with @p sum,
 * their sum, the payload summed as it is copied when it starts at an even
 * offset (SES headers are 4-byte multiples; an odd one is summed after).
 */
static void
ses_build_payload(const struct ses_msg *m, uint32_t i, uint8_t *buf, int n,
		  uint32_t plen, uint32_t *sum)
{
	/* A zero-length message may have no buffer: no offset from NULL. */
	const uint8_t *src = plen == 0 ? NULL :
			     (const uint8_t *)m->wr.buf + ses_frag_off(m, i);

	if (sum == NULL) {
		if (plen)
			memcpy(buf + n, src, plen);
	} else if ((n & 1) == 0) {
		*sum = uet_wire_csum_copy(buf + n, src, plen,
					  uet_wire_csum_partial(buf, n, 0));
	} else {
		if (plen)
			memcpy(buf + n, src, plen);
		*sum = uet_wire_csum_partial(buf, (size_t)n + plen, 0);
	}
}

/* The SES header of fragment @p i, with room checked for its @p plen
 * payload bytes behind it: its length or -errno. */
static int
ses_build_hdr(const struct uet_ses *s, const struct ses_msg *m, uint32_t i,
	      uint8_t *buf, size_t cap, uint32_t plen)
{
	struct uet_wire_ses_req h;
	int n;

	ses_req_fill(s, m, i, &h);
	n = uet_wire_ses_req_encode(&h, (enum uet_wire_ses_fmt)m->fmt, buf, cap);
	if (n < 0)
		return n == -UET_WIRE_E_NOSPACE ? -ENOSPC : -EINVAL;
	if ((size_t)n + plen > cap)
		return -ENOSPC;
	return n;
}

static int
ses_build(struct uet_ses *s, uint64_t cookie, uint8_t *buf, size_t cap,
	  uint32_t *sum)
{
	struct ses_msg *m;
	uint32_t i, plen;
	int n;

	if (ses_ck_kind(cookie) == SES_CK_RET) {
		/* READ response data: read from the region (ses_mem_read
		 * may resolve pieces), then summed */
		n = ses_build_ret(s, cookie, buf, cap);
		if (n >= 0 && sum != NULL)
			*sum = uet_wire_csum_partial(buf, (size_t)n, 0);
		return n;
	}
	m = ses_msg_get(s, cookie);
	/* detached: its buffer belongs to nobody any more (uet_ses_withdraw) */
	if (m == NULL || m->detached)
		return -ENOENT;
	i = ses_ck_frag(cookie);
	plen = ses_frag_len(m, i);
	n = ses_build_hdr(s, m, i, buf, cap, plen);
	if (n < 0)
		return n;
	ses_build_payload(m, i, buf, n, plen, sum);
	s->st.frag_built++;
	return n + (int)plen;
}

int
uet_ses_build_ref(struct uet_ses *s, uint64_t cookie, uint8_t *buf,
		  size_t cap, uint32_t min_ref, const void **ref,
		  uint32_t *ref_len, uint32_t *msg)
{
	struct ses_msg *m;
	uint32_t i, plen;
	int n;

	*ref_len = 0;
	if (ses_ck_kind(cookie) != SES_CK_INIT)
		return ses_build(s, cookie, buf, cap, NULL);
	m = ses_msg_get(s, cookie);
	if (m == NULL || m->detached)
		return -ENOENT;
	i = ses_ck_frag(cookie);
	plen = ses_frag_len(m, i);
	/* A short payload is copied: a reference costs more than that. */
	if (plen < min_ref || plen == 0)
		return ses_build(s, cookie, buf, cap, NULL);
	n = ses_build_hdr(s, m, i, buf, cap, plen);
	if (n < 0)
		return n;
	*ref = (const uint8_t *)m->wr.buf + ses_frag_off(m, i);
	*ref_len = plen;
	*msg = (uint32_t)(m - s->msgs);
	s->st.frag_built++;
	return n;
}

int
uet_ses_build(struct uet_ses *s, uint64_t cookie, uint32_t psn, uint8_t *buf,
	      size_t cap)
{
	(void)psn;
	return ses_build(s, cookie, buf, cap, NULL);
}

int
uet_ses_build_csum(struct uet_ses *s, uint64_t cookie, uint32_t psn,
		   uint8_t *buf, size_t cap, uint32_t *sum)
{
	(void)psn;
	return ses_build(s, cookie, buf, cap, sum);
}

/* ---- hand-over to the PDS ---- */

static uint16_t
ses_frag_wire_len(const struct ses_msg *m, uint32_t i)
{
	uint32_t hl = i == 0 ? m->hdr0 : UET_SES_STD_LEN;

	return (uint16_t)(hl + ses_frag_len(m, i));
}

/* The PDC key of @p m's packets (UEC 1.0 PDS: {JobID, FA, TC, mode}). */
static void
ses_frag_key(const struct ses_msg *m, struct uet_pds_submit *ps)
{
	memset(ps, 0, sizeof(*ps));
	ps->dst = m->wr.dest.fa;
	ps->job = m->wr.job;
	ps->tc = m->wr.tc;
	ps->mode = m->mode;
}

static int
ses_frag_submit(struct uet_ses *s, struct ses_msg *m, uint64_t now)
{
	uint32_t i = m->next_frag, slot = (uint32_t)(m - s->msgs);
	struct uet_pds_submit ps;
	int ret;

	ses_frag_key(m, &ps);
	ps.next_hdr = (uint8_t)uet_wire_ses_fmt_to_next_hdr(m->fmt);
	/* One response per message, on its last packet (SES responses). */
	if (i == m->nfrags - 1 && (m->mode == UET_PDS_MODE_RUD ||
				   m->mode == UET_PDS_MODE_ROD))
		ps.flags = UET_PDS_SUBMIT_RESP;
	/* All packets of a message on one PDC (UEC 1.0 3.5.20, som/eom):
	 * the target's SES reassembles it on the PDC of its first. */
	if (m->nfrags > 1 && i == 0)
		ps.flags |= UET_PDS_SUBMIT_SOM;
	else if (m->nfrags > 1 && i == m->nfrags - 1)
		ps.flags |= UET_PDS_SUBMIT_EOM;
	ps.len = ses_frag_wire_len(m, i);
	ps.cookie = ses_cookie(SES_CK_INIT, slot, m->gen, i);
	ret = ses_pds_submit(s, &ps, now);
	if (ret == 0 && i == 0 && m->large_read)
		ses_read_hash_add(s, m);
	if (ret == 0) {
		m->next_frag++;
		s->st.frag_tx++;
		s->st.fmt[m->fmt & 3]++;
	}
	return ret;
}

/*
 * uet_pds_msg_of_fn: a multi-packet message of the send family, which the
 * target's SES reassembles in one record on the PDC that brought its
 * first packet (ses_target_continues); a closing target refuses a packet
 * of it only when none of it is in, so all of it can move. A WRITE's or a
 * READ's packets each stand alone there (one may be in when another is
 * refused): none of them names a message. Every multi-packet message,
 * submitted with UET_PDS_SUBMIT_SOM, reports whether it is still being
 * submitted (@p open): a refused packet of a WRITE still open is the
 * message open on its PDC, not another one the PDC must stay the key's
 * for (pds_nack_closing).
 */
uint64_t
ses_msg_of(void *arg, uint64_t cookie, bool *last, bool *open)
{
	const struct uet_ses *s = arg;
	uint32_t slot = ses_ck_slot(cookie);
	const struct ses_msg *m;

	if (ses_ck_kind(cookie) != SES_CK_INIT || slot >= s->cfg.max_msgs)
		return 0;
	m = &s->msgs[slot];
	if (m->state == SES_MSG_FREE || m->gen != ses_ck_gen(cookie) ||
	    m->nfrags < 2)
		return 0;
	*last = ses_ck_frag(cookie) == m->nfrags - 1;
	*open = m->next_frag < m->nfrags && !m->aborted;
	if (m->opcode != UET_SES_OP_SEND &&
	    m->opcode != UET_SES_OP_TAGGED_SEND && !ses_op_is_defer(m->opcode))
		return 0;
	return (cookie >> 32) + 1;
}

/* A message whose submission failed hard completes with what was sent.
 * Begun on a PDC (UET_PDS_SUBMIT_SOM), it ends there: the PDC may close. */
static void
ses_msg_abort(struct uet_ses *s, struct ses_msg *m, int err)
{
	struct uet_pds_submit ps;

	if (m->next_frag > 0 && m->nfrags > 1) {
		ses_frag_key(m, &ps);
		uet_pds_msg_abandon(s->cfg.pds, &ps, s->now);
	}
	m->aborted = true;
	if (m->status == 0)
		m->status = err;
	m->state = SES_MSG_ACTIVE;
	ses_msg_check_done(s, m);
}

/*
 * Hand @p p's messages to the PDS in order, each whole before the next
 * begins (the target reassembles a message on the PDC of its first
 * packet, and a PDC closes only once the message open on it has its
 * last packet queued: UET_PDS_SUBMIT_SOM / _EOM), until one finds no
 * room (-EAGAIN: @p p waits for the next call) or none is left. Returns
 * the packets handed over.
 */
static uint32_t
ses_peer_sq_run(struct uet_ses *s, struct ses_peer *p, uint64_t now)
{
	uint32_t n = 0, idx;
	struct ses_msg *m;
	int ret;

	while ((idx = p->sq.head) != SES_NIL) {
		m = &s->msgs[idx];
		/* Withdrawn before its first fragment, detached, or failed
		 * already (its PDC gave up, UEC 1.0 PDS PDC close on error):
		 * the rest is not sent. Submitted, it would open a new PDC to
		 * the peer just declared unreachable, and that peer answers
		 * requests of an operation both ends have failed (a read-back
		 * of a rendezvous send whose key the sender revoked when its
		 * return data failed: BAD_MKEY; a WRITE into a region the
		 * target closed). The message completes with its error once
		 * what is on the wire is done (ses_msg_abort). */
		ret = ses_msg_cut(m) ? -ECANCELED : 0;
		while (ret == 0 && m->next_frag < m->nfrags) {
			ret = ses_frag_submit(s, m, now);
			if (ret == 0)
				n++;
		}
		if (ret == -EAGAIN)
			return n;
		p->sq.head = m->next;
		if (p->sq.head == SES_NIL)
			p->sq.tail = SES_NIL;
		if (m->next_frag < m->nfrags)
			ses_msg_abort(s, m, ret);
		else
			m->state = SES_MSG_ACTIVE;
	}
	return n;
}

/*
 * Every peer with messages to submit, once, in turn; one whose PDC has
 * no room (window full, moves of refused requests waiting for its key,
 * no PDC or transmit block free) waits for the next call behind the
 * others, which go meanwhile. With one queue for all, a peer that took
 * no more (partitioned, its window full until the PDC failed seconds
 * later, or a target refusing every new PDC) held back every message of
 * the node to every other peer, those of every other process of the
 * service too. A message appended while the peers are served (a restart,
 * a control message) is served in the same call.
 */
uint32_t
uet_ses_progress(struct uet_ses *s, uint64_t now)
{
	struct ses_fifo waiting = { SES_NIL, SES_NIL };
	uint32_t n = 0, pi;
	struct ses_peer *p;

	s->now = now;
	s->sq_kick = false;
	ses_ctl_progress(s, now);
	n += ses_txref_progress(s);
	n += ses_ret_progress(s, now);
	ses_rdv_wait_progress(s);
	while ((pi = s->ready.head) != SES_NIL) {
		p = &s->peers[pi];
		s->ready.head = p->rnext;
		if (s->ready.head == SES_NIL)
			s->ready.tail = SES_NIL;
		n += ses_peer_sq_run(s, p, now);
		if (p->sq.head != SES_NIL)
			ses_ready_push(s, &waiting, pi);
		else
			p->ready = false;
	}
	s->ready = waiting;
	return n;
}

/* ---- completion ---- */

void
ses_msg_finish(struct uet_ses *s, struct ses_msg *m)
{
	struct uet_ses_cqe c;
	int st = m->status;

	if (ses_txref_park(s, m))
		return;
	if (ses_pid_wait(s, m))
		return;
	/* No response (RUDI/UUD) or DEFAULT_RESPONSE: rc stays NULL = OK. */
	if (st == 0 && m->rc != UET_RC_NULL)
		st = uet_ses_rc_errno((enum uet_wire_ses_rc)m->rc);
	if (m->kind == SES_MK_RDV_READ) {
		ses_rdv_read_done(s, m, st);
		return;
	}
	if (m->kind == SES_MK_RTR) {
		ses_defer_rtr_done(s, m, st);
		return;
	}
	if (m->kind == SES_MK_MSG_ERROR) {
		/* The initiator's send waits for it (or for a read-back that
		 * will not come): lost with its PDC, it goes again. */
		if (ses_ctl_lost(m->rc, m->status) && ses_ctl_retry(s, m))
			return;
		ses_msg_put(s, m);
		return;
	}
	if (st == 0)
		s->st.msg_ok++;
	else
		s->st.msg_err++;
	if (st != 0 || (m->wr.flags & UET_SES_WR_F_COMPLETION)) {
		memset(&c, 0, sizeof(c));
		c.context = m->wr.context;
		c.status = st;
		c.flags = UET_SES_CQ_SEND;
		c.len = st == 0 ? m->wr.len : 0;
		c.prov_errno = m->rc;
		c.op = m->wr.op;
		ses_cq_push(s, &c);
	}
	ses_msg_put(s, m);
}

void
ses_msg_check_done(struct uet_ses *s, struct ses_msg *m)
{
	uint32_t want = m->aborted ? m->next_frag : m->nfrags;

	if (m->state != SES_MSG_ACTIVE || m->frags_done < want)
		return;
	/* A read-back in the return direction still reads wr.buf: the
	 * send's outcome is that of the PDC carrying it (ses_rdv_ret_done) */
	if (m->rdv_rets != 0)
		return;
	/* A large READ also waits for its return-direction data (UEC 1.0 PDS
	 * read responses). Once some of its request packets were refused
	 * (an error response) or their data came with an error, it waits for
	 * the data of those its target served and ends in error once that
	 * is in: the data may still be on its way (lost, resent), and data
	 * of a READ that is over would be refused to its sender, whose PDC
	 * then fails after its resource back-offs. */
	if (m->large_read && m->status == 0 && ses_read_waits(m))
		return;
	ses_read_settle(m);
	/* Rendezvous: the send completes when the target's read of the rest
	 * has been served (docs/SES.md "Rendezvous"). */
	if (m->rdv && !m->rdv_served && m->status == 0 &&
	    (m->rc == UET_RC_OK || m->rc == UET_RC_NULL))
		return;
	if (ses_defer_parked(s, m))
		return;
	ses_msg_finish(s, m);
}
