/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unexpected messages (UEC 1.0 SES response list OVERFLOW, SES send variants):
 * bounded records of arrived message headers and their eager bytes, held in a
 * pool of fixed-size chunks. A message the pool cannot hold is refused
 * with a verdict (the SES answers NO_MATCH or flow-controls the sender),
 * never dropped silently.
 */

#include <errno.h>
#include <string.h>

#include "match_private.h"

static uint32_t
match_chunks_for(const struct uet_ses_match *m, uint32_t bytes)
{
	return (uint32_t)(((uint64_t)bytes + m->cfg.chunk_size - 1) /
			  m->cfg.chunk_size);
}

static uint32_t
match_chunks_take(struct uet_ses_match *m, uint32_t n)
{
	uint32_t head = m->chunk_head;
	uint32_t last = MATCH_NIL;
	uint32_t k;

	if (n == 0)
		return MATCH_NIL;
	for (k = 0; k < n; k++) {
		last = m->chunk_head;
		m->chunk_head = m->chunk_next[last];
	}
	m->chunk_next[last] = MATCH_NIL;
	m->chunk_nfree -= n;
	return head;
}

static void
match_chunks_give(struct uet_ses_match *m, uint32_t head, uint32_t n)
{
	uint32_t c = head;
	uint32_t k;

	for (k = 0; k < n && c != MATCH_NIL; k++) {
		uint32_t next = m->chunk_next[c];

		m->chunk_next[c] = m->chunk_head;
		m->chunk_head = c;
		c = next;
	}
	m->chunk_nfree += n;
}

/* Chunk holding byte @offset of record @u (offset < hold_len). */
static uint32_t
match_chunk_at(const struct uet_ses_match *m, const struct match_unexp *u,
	       uint32_t offset)
{
	uint32_t c = u->chunk;
	uint32_t k = offset / m->cfg.chunk_size;

	while (k-- > 0 && c != MATCH_NIL)
		c = m->chunk_next[c];
	return c;
}

/* Write @len bytes at @offset of record @u (checked <= hold_len). */
static void
match_chunks_write(struct uet_ses_match *m, const struct match_unexp *u,
		   uint32_t offset, const uint8_t *src, uint32_t len)
{
	uint32_t cs = m->cfg.chunk_size;
	uint32_t c = match_chunk_at(m, u, offset);
	uint32_t in = offset % cs;

	while (len > 0 && c != MATCH_NIL) {
		uint32_t n = cs - in < len ? cs - in : len;

		memcpy(m->data + (size_t)c * cs + in, src, n);
		src += n;
		len -= n;
		in = 0;
		c = m->chunk_next[c];
	}
}

/* Read @len bytes at @offset of record @u (checked <= hold_len). */
static void
match_chunks_read(const struct uet_ses_match *m, const struct match_unexp *u,
		  uint32_t offset, uint8_t *dst, uint32_t len)
{
	uint32_t cs = m->cfg.chunk_size;
	uint32_t c = match_chunk_at(m, u, offset);
	uint32_t in = offset % cs;

	while (len > 0 && c != MATCH_NIL) {
		uint32_t n = cs - in < len ? cs - in : len;

		memcpy(dst, m->data + (size_t)c * cs + in, n);
		dst += n;
		len -= n;
		in = 0;
		c = m->chunk_next[c];
	}
}

static struct match_list *
match_ux_arrival_list(struct uet_ses_match *m, const struct match_unexp *u)
{
	return match_msg_is_tagged(&u->msg) ? &m->ux_tagged : &m->ux_untagged;
}

int
ses_match_ux_store(struct uet_ses_match *m,
		   const struct uet_ses_match_arrival *a,
		   struct uet_ses_match_result *r)
{
	uint32_t need = match_chunks_for(m, a->msg.hold_len);
	struct match_unexp *u;
	uint32_t i;

	if (m->ux_nfree == 0 || m->chunk_nfree < need) {
		r->verdict = UET_SES_MATCH_NO_ROOM;
		m->st.unexp_rejected++;
		return 0;
	}
	i = m->ux_free[--m->ux_nfree];
	u = &m->ux[i];
	memset(u, 0, sizeof(*u));
	u->msg = a->msg;
	u->chunk = match_chunks_take(m, need);
	u->nchunks = need;
	u->held = a->data_len;
	u->state = MATCH_UX_LISTED;
	match_chunks_write(m, u, 0, a->data, a->data_len);
	u->glist = match_ux_arrival_list(m, u);
	match_list_append(m->ux_glink, u->glist, i);
	if (match_msg_is_tagged(&u->msg)) {
		u->blist = &m->ux_bucket[match_hash(m, u->msg.tag)];
		match_list_append(m->ux_blink, u->blist, i);
	}
	r->verdict = UET_SES_MATCH_STORED;
	r->unexp = i;
	r->held = u->held;
	m->st.unexp_stored++;
	return 0;
}

/* Take record @i off every list it is on (it stays allocated). */
static void
match_ux_unlink(struct uet_ses_match *m, uint32_t i)
{
	struct match_unexp *u = &m->ux[i];

	if (u->glist != NULL)
		match_list_remove(m->ux_glink, u->glist, i);
	if (u->blist != NULL)
		match_list_remove(m->ux_blink, u->blist, i);
	u->glist = NULL;
	u->blist = NULL;
}

/* First record in arrival order on @l (linked through @lk) accepting @r. */
static uint32_t
match_ux_scan(const struct uet_ses_match *m, const struct match_link *lk,
	      const struct match_list *l, const struct uet_ses_match_recv *r)
{
	uint32_t i = l->head;
	uint32_t n;

	for (n = 0; i != MATCH_NIL && n < m->cfg.max_unexpected; n++) {
		if (match_accepts(r, &m->ux[i].msg))
			return i;
		i = lk[i].next;
	}
	return MATCH_NIL;
}

/*
 * Earliest-arrived matchable message accepting @r. An exact-tag receive
 * only needs its tag's bucket (kept in arrival order); a wildcard one
 * walks the arrival-order list.
 */
uint32_t
ses_match_ux_find(const struct uet_ses_match *m,
		  const struct uet_ses_match_recv *r)
{
	if (!match_recv_is_tagged(r))
		return match_ux_scan(m, m->ux_glink, &m->ux_untagged, r);
	if (r->ignore == 0)
		return match_ux_scan(m, m->ux_blink,
				     &m->ux_bucket[match_hash(m, r->tag)], r);
	return match_ux_scan(m, m->ux_glink, &m->ux_tagged, r);
}

uint32_t
ses_match_ux_find_claimed(const struct uet_ses_match *m, uint64_t context)
{
	uint32_t i = m->ux_claimed.head;
	uint32_t n;

	for (n = 0; i != MATCH_NIL && n < m->cfg.max_unexpected; n++) {
		if (m->ux[i].claim_ctx == context)
			return i;
		i = m->ux_glink[i].next;
	}
	return MATCH_NIL;
}

void
ses_match_ux_handover(struct uet_ses_match *m, uint32_t i,
		      struct uet_ses_match_result *r)
{
	struct match_unexp *u = &m->ux[i];

	match_ux_unlink(m, i);
	u->state = MATCH_UX_HANDED;
	r->unexp = i;
	r->held = u->held;
	r->msg = u->msg;
}

void
ses_match_ux_claim(struct uet_ses_match *m, uint32_t i, uint64_t context)
{
	struct match_unexp *u = &m->ux[i];

	match_ux_unlink(m, i);
	u->state = MATCH_UX_CLAIMED;
	u->claim_ctx = context;
	u->glist = &m->ux_claimed;
	match_list_append(m->ux_glink, u->glist, i);
}

/* Unlink record @i, return its chunks and the record to their pools. */
void
ses_match_ux_drop(struct uet_ses_match *m, uint32_t i)
{
	struct match_unexp *u = &m->ux[i];

	match_ux_unlink(m, i);
	match_chunks_give(m, u->chunk, u->nchunks);
	u->chunk = MATCH_NIL;
	u->nchunks = 0;
	u->state = MATCH_UX_FREE;
	m->ux_free[m->ux_nfree++] = i;
}

static bool
match_ux_live(const struct uet_ses_match *m, uint32_t h)
{
	return h < m->cfg.max_unexpected && m->ux[h].state != MATCH_UX_FREE;
}

int
uet_ses_match_unexp_write(struct uet_ses_match *m, uint32_t h,
			  uint32_t offset, const void *data, uint32_t len)
{
	struct match_unexp *u;
	uint64_t sum;

	if (!match_ux_live(m, h))
		return -ENOENT;
	u = &m->ux[h];
	if ((uint64_t)offset + len > u->msg.hold_len ||
	    (len != 0 && data == NULL)) {
		m->st.bad_requests++;
		return -EINVAL;
	}
	match_chunks_write(m, u, offset, data, len);
	/* The PDS delivers each packet once; the cap only guards misuse. */
	sum = (uint64_t)u->held + len;
	u->held = sum < u->msg.hold_len ? (uint32_t)sum : u->msg.hold_len;
	return 0;
}

uint32_t
uet_ses_match_unexp_copy(const struct uet_ses_match *m, uint32_t h,
			 uint32_t offset, void *dst, uint32_t len)
{
	const struct match_unexp *u;

	if (!match_ux_live(m, h))
		return 0;
	u = &m->ux[h];
	if (offset >= u->msg.hold_len)
		return 0;
	if (len > u->msg.hold_len - offset)
		len = u->msg.hold_len - offset;
	match_chunks_read(m, u, offset, dst, len);
	return len;
}

int
uet_ses_match_unexp_release(struct uet_ses_match *m, uint32_t h)
{
	if (!match_ux_live(m, h) || m->ux[h].state != MATCH_UX_HANDED)
		return -ENOENT;
	ses_match_ux_drop(m, h);
	return 0;
}

int
uet_ses_match_unexp_abandon(struct uet_ses_match *m, uint32_t h)
{
	if (!match_ux_live(m, h) || (m->ux[h].state != MATCH_UX_LISTED &&
				     m->ux[h].state != MATCH_UX_CLAIMED))
		return -ENOENT;
	ses_match_ux_drop(m, h);
	return 0;
}
