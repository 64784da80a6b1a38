/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Matching engine, post path (the provider receive calls fi_recv/fi_trecv,
 * FI_PEEK, FI_CLAIM, FI_DISCARD, FI_MULTI_RECV). A post searches the unexpected
 * messages first so a receive always takes the earliest-arrived message
 * it accepts; only when none matches is it queued.
 */

#include <errno.h>

#include "match_private.h"

#define MATCH_RECV_FLAGS                                                   \
	(UET_SES_MATCH_RECV_TAGGED | UET_SES_MATCH_RECV_MULTI |            \
	 UET_SES_MATCH_RECV_PEEK | UET_SES_MATCH_RECV_CLAIM |              \
	 UET_SES_MATCH_RECV_DISCARD)

static bool
match_recv_valid(const struct uet_ses_match_recv *p)
{
	uint32_t f = p->flags;

	if ((f & ~MATCH_RECV_FLAGS) != 0)
		return false;
	/* FI_DISCARD only qualifies a peek or a claim. */
	if ((f & UET_SES_MATCH_RECV_DISCARD) != 0 &&
	    (f & (UET_SES_MATCH_RECV_PEEK | UET_SES_MATCH_RECV_CLAIM)) == 0)
		return false;
	if ((f & UET_SES_MATCH_RECV_MULTI) != 0 &&
	    (f & (UET_SES_MATCH_RECV_PEEK | UET_SES_MATCH_RECV_CLAIM)) != 0)
		return false;
	return true;
}

/* Hand unexpected message @u to a single-use receive @p (offset 0). */
static void
match_post_take(struct uet_ses_match *m, uint32_t u,
		const struct uet_ses_match_recv *p,
		struct uet_ses_match_result *r)
{
	ses_match_ux_handover(m, u, r);
	r->verdict = UET_SES_MATCH_UNEXPECTED;
	r->context = p->context;
	r->buf = p->buf;
	r->iov_count = p->iov_count;
	r->offset = 0;
	r->len = r->msg.total_len < p->len ? r->msg.total_len : p->len;
	if (r->msg.total_len > p->len) {
		r->flags |= UET_SES_MATCH_F_TRUNC;
		m->st.truncations++;
	}
	m->st.matched_unexpected++;
}

/* FI_PEEK: report the first match; CLAIM reserves it, DISCARD drops it. */
static int
match_post_peek(struct uet_ses_match *m, const struct uet_ses_match_recv *p,
		struct uet_ses_match_result *r)
{
	uint32_t u = ses_match_ux_find(m, p);

	m->st.peeks++;
	r->context = p->context;
	if (u == MATCH_NIL) {
		r->verdict = UET_SES_MATCH_NOT_FOUND;
		return 0;
	}
	r->msg = m->ux[u].msg;
	r->held = m->ux[u].held;
	r->len = r->msg.total_len;
	if ((p->flags & UET_SES_MATCH_RECV_DISCARD) != 0) {
		ses_match_ux_drop(m, u);
		r->verdict = UET_SES_MATCH_DISCARDED;
		m->st.discards++;
		return 0;
	}
	if ((p->flags & UET_SES_MATCH_RECV_CLAIM) != 0) {
		ses_match_ux_claim(m, u, p->context);
		m->st.claims++;
	}
	r->verdict = UET_SES_MATCH_PEEKED;
	return 0;
}

/* FI_CLAIM receive: consume (or discard) what its context claimed. */
static int
match_post_claim(struct uet_ses_match *m, const struct uet_ses_match_recv *p,
		 struct uet_ses_match_result *r)
{
	uint32_t u = ses_match_ux_find_claimed(m, p->context);

	if (u == MATCH_NIL)
		return -ENOENT;
	if ((p->flags & UET_SES_MATCH_RECV_DISCARD) != 0) {
		r->msg = m->ux[u].msg;
		r->context = p->context;
		ses_match_ux_drop(m, u);
		r->verdict = UET_SES_MATCH_DISCARDED;
		m->st.discards++;
		return 0;
	}
	match_post_take(m, u, p, r);
	return 0;
}

/*
 * One step of a multi-recv post: take the earliest unexpected message the
 * buffer accepts, or queue the buffer. While it keeps matching and keeps
 * enough room it stays PENDING (off every list, so a new arrival cannot
 * overtake the older unexpected messages into it).
 */
static int
match_post_multi_step(struct uet_ses_match *m, uint32_t i,
		      struct uet_ses_match_result *r)
{
	uint32_t u = ses_match_ux_find(m, &m->pst[i].r);

	if (u == MATCH_NIL) {
		m->pending = MATCH_NIL;
		ses_match_pst_enqueue(m, i);
		r->verdict = UET_SES_MATCH_POSTED;
		r->context = m->pst[i].r.context;
		return 0;
	}
	ses_match_ux_handover(m, u, r);
	r->verdict = UET_SES_MATCH_UNEXPECTED;
	m->st.matched_unexpected++;
	m->pending = i;
	m->pst[i].state = MATCH_PST_PENDING;
	ses_match_slice(m, i, &r->msg, r);
	if (m->pending == i)
		r->flags |= UET_SES_MATCH_F_MORE;
	return 0;
}

int
uet_ses_match_post(struct uet_ses_match *m,
		   const struct uet_ses_match_recv *p,
		   struct uet_ses_match_result *r)
{
	uint32_t u, i;

	ses_match_result_init(r);
	if (!match_recv_valid(p)) {
		m->st.bad_requests++;
		return -EINVAL;
	}
	if (m->pending != MATCH_NIL)
		return -EBUSY;
	if ((p->flags & UET_SES_MATCH_RECV_PEEK) != 0)
		return match_post_peek(m, p, r);
	if ((p->flags & UET_SES_MATCH_RECV_CLAIM) != 0)
		return match_post_claim(m, p, r);
	if ((p->flags & UET_SES_MATCH_RECV_MULTI) != 0) {
		i = ses_match_pst_alloc(m, p);
		if (i == MATCH_NIL)
			return -EAGAIN;
		return match_post_multi_step(m, i, r);
	}
	u = ses_match_ux_find(m, p);
	if (u != MATCH_NIL) {
		match_post_take(m, u, p, r);
		return 0;
	}
	i = ses_match_pst_alloc(m, p);
	if (i == MATCH_NIL)
		return -EAGAIN;
	ses_match_pst_enqueue(m, i);
	r->verdict = UET_SES_MATCH_POSTED;
	r->context = p->context;
	return 0;
}

int
uet_ses_match_post_more(struct uet_ses_match *m,
			struct uet_ses_match_result *r)
{
	ses_match_result_init(r);
	if (m->pending == MATCH_NIL)
		return -ENOENT;
	return match_post_multi_step(m, m->pending, r);
}
