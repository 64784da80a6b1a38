/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * DST receives of generator 3: multi-recv buffers and cancels.
 *
 * A node of the plan with mrecv_len takes its untagged messages (SEND,
 * datagrams) in FI_MULTI_RECV buffers instead of a receive each, and
 * posts a new buffer whenever one is released. What each buffer must do
 * (libfabric fi_msg(3), fi_cq(3) FI_MULTI_RECV; docs/SES.md): every
 * message gets a slice of its own, in the buffer, with its exact bytes;
 * the matching engine ends the buffer with the slice that leaves less
 * than min_free bytes free, and the completion that says it is released
 * comes once that slice is in and is the last one: the buffer is the
 * application's again after it.
 *
 * And receives taken back (FI_CANCEL): a receive whose cancel returned 0
 * completes -ECANCELED, never with a message; receives shorter than their
 * message: its first bytes, flagged truncated.
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "dst.h"

bool
dst_mrecv_on(const struct dst_sim *s, int node)
{
	return s->plan->gen >= 3 && s->plan->node[node].mrecv_len != 0 &&
	       s->nmrecv < DST_MRECV_MAX;
}

static void
mrecv_post(struct dst_sim *s, int i)
{
	const struct dst_node_spec *ns = &s->plan->node[i];
	struct dst_mrecv *b = &s->mrecv[s->nmrecv];
	struct uet_ses_recv r;
	int rc;

	if (b->buf == NULL) {
		b->buf = malloc(ns->mrecv_len);
		b->map = calloc(ns->mrecv_len / 8 + 1, 1);
		if (b->buf == NULL || b->map == NULL) {
			dst_fail(s, "setup", "no memory for a multi-recv buffer");
			return;
		}
	}
	b->len = ns->mrecv_len;
	b->min_free = ns->mrecv_min;
	b->released = false;
	b->end_seen = false;
	b->failed = false;
	b->node = (uint8_t)i;
	memset(&r, 0, sizeof(r));
	r.op = 1;
	r.flags = UET_SES_RECV_F_MULTI;
	r.context = DST_MRECV_CTX | s->nmrecv;
	r.buf = b->buf;
	r.len = b->len;
	r.min_free = b->min_free;
	rc = uet_ses_recv_post(s->node[i].ses, &r, s->now);
	if (rc == -EAGAIN || rc == -EBUSY)
		return;
	if (rc != 0) {
		dst_fail(s, "recv-post", "n%d multi-recv buffer refused: %d",
			 i, rc);
		return;
	}
	dst_trace(s, "n%d posts multi-recv buffer %u (%u B, min_free %u)", i,
		  s->nmrecv, b->len, b->min_free);
	s->node[i].mrecv_cur = s->nmrecv++;
	s->node[i].mrecv_posted = true;
}

void
dst_mrecv_poll(struct dst_sim *s, int i)
{
	if (dst_mrecv_on(s, i) && !s->node[i].mrecv_posted &&
	    s->node[i].stall_until <= s->now) {
		s->node[i].mrecv_due = false;
		mrecv_post(s, i);
	}
}

/* A node whose buffer was released posts its next one at once, as an
 * application does on the completion that releases it: an event now, or
 * unexpected messages wait for whatever event comes next (the simulator
 * once reported `lost` at the end of a run for a message that waited so,
 * seed 41177003 of generator 7). */
bool
dst_mrecv_due(const struct dst_sim *s)
{
	for (int i = 0; i < s->plan->nnodes; i++)
		if (s->node[i].mrecv_due && s->node[i].stall_until <= s->now)
			return true;
	return false;
}

/* The slice [off, off + len) was free: mark it taken. */
static bool
mrecv_take(struct dst_mrecv *b, uint64_t off, uint64_t len)
{
	for (uint64_t k = off; k < off + len; k++)
		if (b->map[k / 8] & (1u << (k % 8)))
			return false;
	for (uint64_t k = off; k < off + len; k++)
		b->map[k / 8] |= (uint8_t)(1u << (k % 8));
	return true;
}

void
dst_mrecv_cqe(struct dst_sim *s, int i, const struct uet_ses_cqe *c)
{
	uint32_t k = (uint32_t)(c->context & 0xFFFFu), m;
	bool done = (c->flags & UET_SES_CQ_MULTI_RECV_DONE) != 0;
	struct dst_mrecv *b = &s->mrecv[k];

	if (k >= s->nmrecv || b->node != i) {
		dst_fail(s, "cq-unknown", "n%d multi-recv completion %llx", i,
			 (unsigned long long)c->context);
		return;
	}
	if (b->released) {
		dst_fail(s, "multi-recv", "n%d buffer %u: a completion (%d, "
			 "%llu B at %llu) after the one that released it", i,
			 k, c->status, (unsigned long long)c->len,
			 (unsigned long long)c->offset);
		return;
	}
	if (done) {
		b->released = true;
		if (s->node[i].mrecv_cur == k) {
			s->node[i].mrecv_posted = false;
			s->node[i].mrecv_due = true;
		}
	}
	if (c->status != 0) {
		if (!b->failed || c->offset > b->fail_off)
			b->fail_off = c->offset;
		b->failed = true;
		dst_trace(s, "n%d multi-recv buffer %u: status %d, %llu B at "
			  "%llu%s", i, k, c->status,
			  (unsigned long long)c->len,
			  (unsigned long long)c->offset,
			  done ? ", released" : "");
		return;
	}
	if (c->offset + c->len > b->len || !mrecv_take(b, c->offset, c->len)) {
		dst_fail(s, "multi-recv", "n%d buffer %u: slice of %llu B at "
			 "%llu overlaps another or leaves the buffer", i, k,
			 (unsigned long long)c->len,
			 (unsigned long long)c->offset);
		return;
	}
	if (b->len - (c->offset + c->len) < b->min_free)
		b->end_seen = true;
	/* A message matched after this one (a slice further on) that
	 * failed completes without its length: it may be the one whose
	 * slice left less than min_free, the flag then passed to a message
	 * still arriving before it (ses_multi_done_flags). */
	if (done && !b->end_seen &&
	    !(b->failed && b->fail_off > c->offset)) {
		dst_fail(s, "multi-recv", "n%d buffer %u (%u B, min_free %u): "
			 "released with slice %llu B at %llu, before its last "
			 "slice came", i, k, b->len, b->min_free,
			 (unsigned long long)c->len,
			 (unsigned long long)c->offset);
		return;
	}
	if (!dst_work_payload_ok(s, i, b->buf + c->offset, c->len, &m)) {
		dst_fail(s, "payload", "n%d multi-recv buffer %u got %llu B at "
			 "%llu that are not a message sent to it", i, k,
			 (unsigned long long)c->len,
			 (unsigned long long)c->offset);
		return;
	}
	dst_work_delivered(s, i, m, UINT32_MAX);
}

/* A cancelled receive completes -ECANCELED, and never with a message;
 * one that already took its message is not there to cancel. */
void
dst_recv_cancel(struct dst_sim *s, uint32_t j)
{
	const struct dst_op_spec *o = &s->plan->op[j];
	int rc = uet_ses_recv_cancel(s->node[o->dst].ses, DST_RECV_CTX | (j + 1));

	dst_trace(s, "op %u receive cancelled at n%u: %d", j, o->dst, rc);
	if (rc == 0)
		s->op[j].cancelled = true;
	else if (rc != -ENOENT)
		dst_fail(s, "cancel", "op %u: cancel returned %d", j, rc);
}

/* @return whether completion @p c of receive @p j is its cancel's (a
 * deferred send given up fails its bound receive -ECANCELED too). */
bool
dst_recv_cancel_cqe(struct dst_sim *s, uint32_t j, const struct uet_ses_cqe *c)
{
	struct dst_op *op = &s->op[j];

	if (!op->cancelled)
		return false;
	if (c->status != -ECANCELED)
		dst_fail(s, "cancel", "op %u: receive completed with %d, "
			 "%llu B, after its cancel returned 0", j, c->status,
			 (unsigned long long)c->len);
	op->cancelled = false;
	op->recv_posted = false;
	return true;
}

/* A receive shorter than its message: the first bytes, the rest told
 * (FI_TRUNC, olen). */
void
dst_recv_truncated_cqe(struct dst_sim *s, int i, uint32_t j, const struct uet_ses_cqe *c)
{
	const struct dst_op_spec *o = &s->plan->op[j];
	const struct dst_op *op = &s->op[j];

	if (c->len != op->rlen || !(c->flags & UET_SES_CQ_TRUNC) ||
	    c->olen != o->len - op->rlen || c->tag != j + 1 ||
	    !dst_pattern_same(op->rbuf, j, op->rlen)) {
		dst_fail(s, "payload", "op %u %s of %u B into %u B: completed "
			 "with %llu B, olen %llu%s", j, dst_op_name(o->kind),
			 o->len, op->rlen, (unsigned long long)c->len,
			 (unsigned long long)c->olen,
			 c->flags & UET_SES_CQ_TRUNC ? "" : ", not truncated");
		return;
	}
	dst_work_delivered(s, i, j, j);
}

void
dst_mrecv_final(struct dst_sim *s)
{
	for (uint32_t k = 0; k < s->nmrecv && !s->failed; k++) {
		const struct dst_mrecv *b = &s->mrecv[k];

		if (b->end_seen && !b->released && !b->failed)
			dst_fail(s, "multi-recv", "n%u buffer %u: its last "
				 "slice came, it was never released", b->node,
				 k);
	}
}

void
dst_mrecv_restart(struct dst_sim *s, int i)
{
	/* its buffers went with the old incarnation */
	s->node[i].mrecv_posted = false;
	for (uint32_t k = 0; k < s->nmrecv; k++)
		if (s->mrecv[k].node == i)
			s->mrecv[k].released = true;
}

void
dst_mrecv_fini(struct dst_sim *s)
{
	for (uint32_t k = 0; k < DST_MRECV_MAX; k++) {
		free(s->mrecv[k].buf);
		free(s->mrecv[k].map);
		s->mrecv[k].buf = NULL;
		s->mrecv[k].map = NULL;
	}
	s->nmrecv = 0;
}
