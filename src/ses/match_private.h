/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Private state of the matching engine (uet_ses_match.h), shared by
 * match.c (context, arrivals, cancel), match_post.c (posts, peek/claim,
 * multi-recv) and match_unexp.c (unexpected records and their data pool).
 *
 * Every list is an intrusive doubly linked list of 32-bit pool indices;
 * links live in arrays parallel to the entry pools so one entry can sit on
 * two lists (an unexpected message is on its arrival-order list and on its
 * tag bucket).
 */
#ifndef UET_SES_MATCH_PRIVATE_H
#define UET_SES_MATCH_PRIVATE_H

#include <stdbool.h>
#include <stdint.h>

#include <uet/uet_ses_match.h>

#define MATCH_NIL UINT32_MAX

struct match_link {
	uint32_t prev;
	uint32_t next;
};

struct match_list {
	uint32_t head;
	uint32_t tail;
};

enum match_pst_state {
	MATCH_PST_FREE = 0,
	MATCH_PST_QUEUED,  /* on a posted list */
	MATCH_PST_PENDING, /* multi-recv post being drained (post_more) */
};

struct match_posted {
	struct uet_ses_match_recv r;
	uint64_t seq;             /* posting order across all lists */
	uint64_t used;            /* multi-recv: bytes handed out */
	struct match_list *list;  /* the list it is on while QUEUED */
	uint8_t state;            /* enum match_pst_state */
};

enum match_ux_state {
	MATCH_UX_FREE = 0,
	MATCH_UX_LISTED,  /* matchable: on an arrival list (+ tag bucket) */
	MATCH_UX_CLAIMED, /* reserved by FI_CLAIM, on the claimed list */
	MATCH_UX_HANDED,  /* matched; data held until released */
};

struct match_unexp {
	struct uet_ses_match_msg msg;
	uint64_t claim_ctx;
	struct match_list *glist; /* arrival-order or claimed list */
	struct match_list *blist; /* tag bucket (tagged, LISTED only) */
	uint32_t held;            /* eager bytes written */
	uint32_t chunk;           /* first data chunk or MATCH_NIL */
	uint32_t nchunks;
	uint8_t state;            /* enum match_ux_state */
};

struct uet_ses_match {
	struct uet_ses_match_config cfg;
	uint32_t hmask;
	uint32_t pending;  /* PENDING multi-recv entry or MATCH_NIL */
	uint64_t seq;

	/* Posted receives. */
	struct match_posted *pst;
	struct match_link *pst_link;
	uint32_t *pst_free;
	uint32_t pst_nfree;
	struct match_list pst_untagged;
	struct match_list pst_wild;    /* tagged with ignore bits */
	struct match_list *pst_bucket; /* tagged exact, by tag hash */

	/* Unexpected messages. */
	struct match_unexp *ux;
	struct match_link *ux_glink;   /* arrival-order / claimed lists */
	struct match_link *ux_blink;   /* tag buckets */
	uint32_t *ux_free;
	uint32_t ux_nfree;
	struct match_list ux_untagged;
	struct match_list ux_tagged;
	struct match_list ux_claimed;
	struct match_list *ux_bucket;

	/* Unexpected data: fixed-size chunks, free list through chunk_next. */
	uint8_t *data;
	uint32_t *chunk_next;
	uint32_t chunk_head;
	uint32_t chunk_nfree;

	struct uet_ses_match_stats st;
};

static inline void
match_list_init(struct match_list *l)
{
	l->head = MATCH_NIL;
	l->tail = MATCH_NIL;
}

static inline void
match_list_append(struct match_link *lk, struct match_list *l, uint32_t i)
{
	lk[i].prev = l->tail;
	lk[i].next = MATCH_NIL;
	if (l->tail == MATCH_NIL)
		l->head = i;
	else
		lk[l->tail].next = i;
	l->tail = i;
}

static inline void
match_list_remove(struct match_link *lk, struct match_list *l, uint32_t i)
{
	if (lk[i].prev == MATCH_NIL)
		l->head = lk[i].next;
	else
		lk[lk[i].prev].next = lk[i].next;
	if (lk[i].next == MATCH_NIL)
		l->tail = lk[i].prev;
	else
		lk[lk[i].next].prev = lk[i].prev;
	lk[i].prev = MATCH_NIL;
	lk[i].next = MATCH_NIL;
}

static inline uint32_t
match_hash(const struct uet_ses_match *m, uint64_t tag)
{
	/* Fibonacci hashing: the high product bits mix every tag bit. */
	return (uint32_t)((tag * 0x9E3779B97F4A7C15ull) >> 40) & m->hmask;
}

static inline bool
match_recv_is_tagged(const struct uet_ses_match_recv *r)
{
	return (r->flags & UET_SES_MATCH_RECV_TAGGED) != 0;
}

static inline bool
match_msg_is_tagged(const struct uet_ses_match_msg *msg)
{
	return (msg->flags & UET_SES_MATCH_MSG_TAGGED) != 0;
}

/* Does receive @r accept message @msg (kind, source, tag under ignore)? */
static inline bool
match_accepts(const struct uet_ses_match_recv *r,
	      const struct uet_ses_match_msg *msg)
{
	if (match_recv_is_tagged(r) != match_msg_is_tagged(msg))
		return false;
	if (r->src != UET_SES_MATCH_SRC_ANY && r->src != msg->src)
		return false;
	if (!match_recv_is_tagged(r))
		return true;
	return ((r->tag ^ msg->tag) & ~r->ignore) == 0;
}

/* match_unexp.c */
uint32_t ses_match_ux_find(const struct uet_ses_match *m,
			   const struct uet_ses_match_recv *r);
uint32_t ses_match_ux_find_claimed(const struct uet_ses_match *m,
				   uint64_t context);
int ses_match_ux_store(struct uet_ses_match *m,
		       const struct uet_ses_match_arrival *a,
		       struct uet_ses_match_result *r);
void ses_match_ux_handover(struct uet_ses_match *m, uint32_t i,
			   struct uet_ses_match_result *r);
void ses_match_ux_claim(struct uet_ses_match *m, uint32_t i,
			uint64_t context);
void ses_match_ux_drop(struct uet_ses_match *m, uint32_t i);

/* match.c */
void ses_match_result_init(struct uet_ses_match_result *r);
void ses_match_slice(struct uet_ses_match *m, uint32_t i,
		     const struct uet_ses_match_msg *msg,
		     struct uet_ses_match_result *r);
void ses_match_pst_enqueue(struct uet_ses_match *m, uint32_t i);
uint32_t ses_match_pst_alloc(struct uet_ses_match *m,
			     const struct uet_ses_match_recv *p);

#endif /* UET_SES_MATCH_PRIVATE_H */
