/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Matching engine: context lifetime, the posted-receive lists, the arrival
 * path (UEC 1.0 SES response list EXPECTED) and cancel. Posts live in
 * match_post.c, unexpected records in match_unexp.c.
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "match_private.h"

void
uet_ses_match_config_default(struct uet_ses_match_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->max_posted = 1024;
	cfg->max_unexpected = 1024;
	cfg->chunk_size = 1024;
	cfg->chunks = 1024;
	cfg->hash_buckets = 256;
}

static bool
match_config_valid(const struct uet_ses_match_config *c)
{
	if (c->max_posted == 0 || c->max_posted > UET_SES_MATCH_POOL_MAX)
		return false;
	if (c->max_unexpected == 0 ||
	    c->max_unexpected > UET_SES_MATCH_POOL_MAX)
		return false;
	if (c->chunk_size < 64 || c->chunk_size > (1u << 20))
		return false;
	if (c->chunks > UET_SES_MATCH_POOL_MAX)
		return false;
	if (c->hash_buckets == 0 || c->hash_buckets > UET_SES_MATCH_POOL_MAX ||
	    (c->hash_buckets & (c->hash_buckets - 1)) != 0)
		return false;
	return true;
}

static int
match_alloc_pools(struct uet_ses_match *m)
{
	const struct uet_ses_match_config *c = &m->cfg;
	size_t nchunks = c->chunks ? c->chunks : 1;

	m->pst = calloc(c->max_posted, sizeof(*m->pst));
	m->pst_link = calloc(c->max_posted, sizeof(*m->pst_link));
	m->pst_free = calloc(c->max_posted, sizeof(*m->pst_free));
	m->pst_bucket = calloc(c->hash_buckets, sizeof(*m->pst_bucket));
	m->ux = calloc(c->max_unexpected, sizeof(*m->ux));
	m->ux_glink = calloc(c->max_unexpected, sizeof(*m->ux_glink));
	m->ux_blink = calloc(c->max_unexpected, sizeof(*m->ux_blink));
	m->ux_free = calloc(c->max_unexpected, sizeof(*m->ux_free));
	m->ux_bucket = calloc(c->hash_buckets, sizeof(*m->ux_bucket));
	m->data = calloc(nchunks, c->chunk_size);
	m->chunk_next = calloc(nchunks, sizeof(*m->chunk_next));
	if (m->pst == NULL || m->pst_link == NULL || m->pst_free == NULL ||
	    m->pst_bucket == NULL || m->ux == NULL || m->ux_glink == NULL ||
	    m->ux_blink == NULL || m->ux_free == NULL ||
	    m->ux_bucket == NULL || m->data == NULL || m->chunk_next == NULL)
		return -ENOMEM;
	return 0;
}

static void
match_init_pools(struct uet_ses_match *m)
{
	const struct uet_ses_match_config *c = &m->cfg;
	uint32_t i;

	/* Free stacks hand out low indices first (reproducible tests). */
	for (i = 0; i < c->max_posted; i++)
		m->pst_free[i] = c->max_posted - 1 - i;
	m->pst_nfree = c->max_posted;
	for (i = 0; i < c->max_unexpected; i++)
		m->ux_free[i] = c->max_unexpected - 1 - i;
	m->ux_nfree = c->max_unexpected;
	for (i = 0; i < c->chunks; i++)
		m->chunk_next[i] = i + 1 < c->chunks ? i + 1 : MATCH_NIL;
	m->chunk_head = c->chunks ? 0 : MATCH_NIL;
	m->chunk_nfree = c->chunks;
	for (i = 0; i < c->hash_buckets; i++) {
		match_list_init(&m->pst_bucket[i]);
		match_list_init(&m->ux_bucket[i]);
	}
	match_list_init(&m->pst_untagged);
	match_list_init(&m->pst_wild);
	match_list_init(&m->ux_untagged);
	match_list_init(&m->ux_tagged);
	match_list_init(&m->ux_claimed);
	m->hmask = c->hash_buckets - 1;
	m->pending = MATCH_NIL;
}

struct uet_ses_match *
uet_ses_match_create(const struct uet_ses_match_config *cfg)
{
	struct uet_ses_match *m;

	if (cfg == NULL || !match_config_valid(cfg)) {
		errno = EINVAL;
		return NULL;
	}
	m = calloc(1, sizeof(*m));
	if (m == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	m->cfg = *cfg;
	if (match_alloc_pools(m) != 0)
		goto free_ctx;
	match_init_pools(m);
	return m;

free_ctx:
	uet_ses_match_free(m);
	errno = ENOMEM;
	return NULL;
}

void
uet_ses_match_free(struct uet_ses_match *m)
{
	if (m == NULL)
		return;
	free(m->chunk_next);
	free(m->data);
	free(m->ux_bucket);
	free(m->ux_free);
	free(m->ux_blink);
	free(m->ux_glink);
	free(m->ux);
	free(m->pst_bucket);
	free(m->pst_free);
	free(m->pst_link);
	free(m->pst);
	free(m);
}

const struct uet_ses_match_stats *
uet_ses_match_stats_get(const struct uet_ses_match *m)
{
	return &m->st;
}

void
uet_ses_match_pool_info(const struct uet_ses_match *m,
			struct uet_ses_match_pool_info *info)
{
	info->posted_free = m->pst_nfree;
	info->posted_total = m->cfg.max_posted;
	info->unexp_free = m->ux_nfree;
	info->unexp_total = m->cfg.max_unexpected;
	info->chunks_free = m->chunk_nfree;
	info->chunks_total = m->cfg.chunks;
}

void
ses_match_result_init(struct uet_ses_match_result *r)
{
	memset(r, 0, sizeof(*r));
	r->unexp = UET_SES_MATCH_NONE;
}

/* Take a posted entry from the pool, or MATCH_NIL when it is empty. */
uint32_t
ses_match_pst_alloc(struct uet_ses_match *m,
		    const struct uet_ses_match_recv *p)
{
	struct match_posted *e;
	uint32_t i;

	if (m->pst_nfree == 0)
		return MATCH_NIL;
	i = m->pst_free[--m->pst_nfree];
	e = &m->pst[i];
	memset(e, 0, sizeof(*e));
	e->r = *p;
	if (!match_recv_is_tagged(&e->r)) {
		e->r.tag = 0;
		e->r.ignore = 0;
	}
	return i;
}

/* Queue entry @i at the tail of its list, stamped with the next seq. */
void
ses_match_pst_enqueue(struct uet_ses_match *m, uint32_t i)
{
	struct match_posted *e = &m->pst[i];

	if (!match_recv_is_tagged(&e->r))
		e->list = &m->pst_untagged;
	else if (e->r.ignore != 0)
		e->list = &m->pst_wild;
	else
		e->list = &m->pst_bucket[match_hash(m, e->r.tag)];
	e->seq = ++m->seq;
	e->state = MATCH_PST_QUEUED;
	match_list_append(m->pst_link, e->list, i);
	m->st.posted++;
}

/* Unlink (if queued) and return entry @i to the pool. */
static void
match_pst_release(struct uet_ses_match *m, uint32_t i)
{
	struct match_posted *e = &m->pst[i];

	if (e->state == MATCH_PST_QUEUED)
		match_list_remove(m->pst_link, e->list, i);
	if (m->pending == i)
		m->pending = MATCH_NIL;
	e->state = MATCH_PST_FREE;
	e->list = NULL;
	m->pst_free[m->pst_nfree++] = i;
}

/*
 * Hand message @msg to receive @i: its offset and length, truncation, and
 * the end of the receive (single use, or a multi-recv buffer whose free
 * space fell below min_free).
 */
void
ses_match_slice(struct uet_ses_match *m, uint32_t i,
		const struct uet_ses_match_msg *msg,
		struct uet_ses_match_result *r)
{
	struct match_posted *e = &m->pst[i];
	bool multi = (e->r.flags & UET_SES_MATCH_RECV_MULTI) != 0;
	uint64_t space = e->r.len - e->used;

	r->context = e->r.context;
	r->buf = e->r.buf;
	r->iov_count = e->r.iov_count;
	r->offset = e->used;
	r->len = msg->total_len < space ? msg->total_len : space;
	if (msg->total_len > space) {
		r->flags |= UET_SES_MATCH_F_TRUNC;
		m->st.truncations++;
	}
	if (!multi) {
		match_pst_release(m, i);
		return;
	}
	e->used += r->len;
	if (e->r.len - e->used < e->r.min_free) {
		r->flags |= UET_SES_MATCH_F_RELEASED;
		m->st.multi_released++;
		match_pst_release(m, i);
	}
}

/* First receive on @l accepting @msg, scanning at most the pool size. */
static uint32_t
match_pst_scan(const struct uet_ses_match *m, const struct match_list *l,
	       const struct uet_ses_match_msg *msg, uint64_t before)
{
	uint32_t i = l->head;
	uint32_t n;

	for (n = 0; i != MATCH_NIL && n < m->cfg.max_posted; n++) {
		if (m->pst[i].seq >= before)
			break;
		if (match_accepts(&m->pst[i].r, msg))
			return i;
		i = m->pst_link[i].next;
	}
	return MATCH_NIL;
}

/*
 * Earliest-posted receive accepting @msg. Tagged: the exact receives of
 * the tag's bucket and the wildcard receives are both in posting order,
 * so the answer is the lower sequence of the two first matches; the
 * wildcard scan stops at the bucket candidate's sequence.
 */
static uint32_t
match_pst_find(const struct uet_ses_match *m,
	       const struct uet_ses_match_msg *msg)
{
	uint32_t b, w;

	if (!match_msg_is_tagged(msg))
		return match_pst_scan(m, &m->pst_untagged, msg, UINT64_MAX);
	b = match_pst_scan(m, &m->pst_bucket[match_hash(m, msg->tag)], msg,
			   UINT64_MAX);
	w = match_pst_scan(m, &m->pst_wild, msg,
			   b == MATCH_NIL ? UINT64_MAX : m->pst[b].seq);
	return w != MATCH_NIL ? w : b;
}

static bool
match_arrival_valid(const struct uet_ses_match_arrival *a)
{
	const struct uet_ses_match_msg *msg = &a->msg;

	if (msg->src == UET_SES_MATCH_SRC_ANY)
		return false;
	if (msg->hold_len > msg->total_len || a->data_len > msg->hold_len)
		return false;
	if (a->data_len != 0 && a->data == NULL)
		return false;
	return msg->kind <= UET_SES_MATCH_KIND_DEFERRABLE;
}

int
uet_ses_match_arrival(struct uet_ses_match *m,
		      const struct uet_ses_match_arrival *a,
		      struct uet_ses_match_result *r)
{
	uint32_t i;

	ses_match_result_init(r);
	if (!match_arrival_valid(a)) {
		m->st.bad_requests++;
		return -EINVAL;
	}
	r->msg = a->msg;
	i = match_pst_find(m, &a->msg);
	if (i != MATCH_NIL) {
		r->verdict = UET_SES_MATCH_EXPECTED;
		ses_match_slice(m, i, &a->msg, r);
		m->st.matched_expected++;
		return 0;
	}
	return ses_match_ux_store(m, a, r);
}

int
uet_ses_match_arrival_posted(struct uet_ses_match *m,
			     const struct uet_ses_match_arrival *a,
			     struct uet_ses_match_result *r)
{
	uint32_t i;

	ses_match_result_init(r);
	if (!match_arrival_valid(a)) {
		m->st.bad_requests++;
		return -EINVAL;
	}
	r->msg = a->msg;
	i = match_pst_find(m, &a->msg);
	if (i == MATCH_NIL) {
		r->verdict = UET_SES_MATCH_NOT_FOUND;
		return 0;
	}
	r->verdict = UET_SES_MATCH_EXPECTED;
	ses_match_slice(m, i, &a->msg, r);
	m->st.matched_expected++;
	return 0;
}

int
uet_ses_match_cancel(struct uet_ses_match *m, uint64_t context)
{
	uint32_t best = MATCH_NIL;
	uint32_t i;

	/* Rare path: a pool scan; the earliest-posted of equal cookies. */
	for (i = 0; i < m->cfg.max_posted; i++) {
		if (m->pst[i].state == MATCH_PST_FREE ||
		    m->pst[i].r.context != context)
			continue;
		if (m->pst[i].state == MATCH_PST_PENDING) {
			best = i;
			break;
		}
		if (best == MATCH_NIL || m->pst[i].seq < m->pst[best].seq)
			best = i;
	}
	if (best == MATCH_NIL)
		return -ENOENT;
	match_pst_release(m, best);
	m->st.cancels++;
	return 0;
}
