/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * DST workload and end-to-end invariants. Every operation of the plan is
 * submitted as a work request at its time; every message gets a receive
 * at its target. Payloads are self-describing (the first four bytes name
 * the operation), so a receive proves which message it got. Checked:
 *  - one completion per work request, and only for a submitted one;
 *  - payload bytes exact (receives, READ data, fetched values);
 *  - at most once: a message is received once per target incarnation,
 *    an atomic executes at most once;
 *  - reliable modes: a request completed OK took effect (message
 *    received, WRITE data in place, atomic executed once);
 *  - every operation completes within DST_HANG_NS of virtual time.
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dst.h"

/* Longest any operation may take: failure detection is bounded by
 * max_retries RTO rounds of at most rto_max (<= 9 x 16 ms here) and
 * max_backoffs back-offs; every fault lasts at most 200 ms. */
#define DST_HANG_NS 1500000000ull

uint8_t
dst_pattern(uint32_t id, uint32_t i)
{
	uint32_t x;

	if (i < 4)
		return (uint8_t)((id + 1) >> (8 * i));
	x = (id + 1) * 2654435761u ^ i * 40503u;
	x ^= x >> 15;
	return (uint8_t)(x * 2246822519u >> 24);
}

/* dst_pattern() of bytes [@p at, @p at + @p len): past the id, a loop
 * without branches that the compiler vectorises (payloads are checked
 * whole at every completion, so this is a hot path of a run). */
static void
fill64(uint8_t *b, uint32_t h, uint32_t at)
{
	uint32_t x[64];
	unsigned int m;

	for (m = 0; m < 64; m++) {
		x[m] = h ^ (at + m) * 40503u;
		x[m] ^= x[m] >> 15;
		x[m] *= 2246822519u;
	}
	for (m = 0; m < 64; m++)
		b[m] = (uint8_t)(x[m] >> 24);
}

static void
fill_at(uint8_t *b, uint32_t id, uint32_t at, uint32_t len)
{
	uint32_t head = at >= 4 ? 0 : 4 - at < len ? 4 - at : len;
	uint32_t h = (id + 1) * 2654435761u, k, x;

	for (k = 0; k < head; k++)
		b[k] = dst_pattern(id, at + k);
	b += head;
	at += head;
	len -= head;
	/* blocks of a fixed length, which -O2 vectorises, then the rest */
	for (k = 0; len - k >= 64; k += 64)
		fill64(b + k, h, at + k);
	for (; k < len; k++) {
		x = h ^ (at + k) * 40503u;
		x ^= x >> 15;
		b[k] = (uint8_t)(x * 2246822519u >> 24);
	}
}

static void
fill(uint8_t *b, uint32_t id, uint32_t len)
{
	fill_at(b, id, 0, len);
}

bool
dst_pattern_same(const uint8_t *b, uint32_t id, uint32_t len)
{
	uint8_t want[512];
	uint32_t at, n;

	for (at = 0; at < len; at += n) {
		n = len - at < sizeof(want) ? len - at : sizeof(want);
		fill_at(want, id, at, n);
		if (memcmp(b + at, want, n) != 0)
			return false;
	}
	return true;
}

/* Operations that need a receive at their target. */
static bool
is_msg(uint8_t kind)
{
	return kind <= DST_OP_DEFER || kind == DST_OP_DGRAM ||
	       dst_op_is_tamo(kind);
}

static bool
is_tagged(uint8_t kind)
{
	return (kind >= DST_OP_TSEND && kind <= DST_OP_DEFER) ||
	       dst_op_is_tamo(kind);
}

/* Operations on the target's registered memory. */
static bool
is_rma(uint8_t kind)
{
	return (kind >= DST_OP_WRITE && kind <= DST_OP_ATOMIC) ||
	       (dst_op_is_amo(kind) && !dst_op_is_tamo(kind));
}

/* A truncated receive takes half its message; generator 6's truncated
 * rendezvous receives take 256 to 767 bytes, about the eager part (512),
 * so the read-back is answered in the READ's ACK (zero-length or small). */
static uint64_t
trunc_len(const struct dst_plan *p, const struct dst_op_spec *o)
{
	if (p->gen >= 6 && o->kind == DST_OP_RDV)
		return 256 + o->len % 512;
	return o->len / 2;
}

void
dst_work_start(struct dst_sim *s)
{
	const struct dst_plan *p = s->plan;
	uint32_t j;

	memset(s->op, 0, sizeof(s->op));
	s->live_stale = true;
	for (j = 0; j < p->nop; j++) {
		const struct dst_op_spec *o = &p->op[j];
		struct dst_op *op = &s->op[j];

		op->sbuf = malloc(o->len + 8);
		if (is_msg(o->kind)) {
			op->rlen = dst_op_truncated(o) ? trunc_len(p, o) :
				   is_tagged(o->kind) ? o->len :
							DST_UNTAGGED_MAX;
			op->rbuf = malloc(op->rlen + 48);
		}
		if (dst_op_is_amo(o->kind))
			dst_amo_start(s, j);
	}
}

void
dst_work_fini(struct dst_sim *s)
{
	uint32_t j;

	dst_mrecv_fini(s);
	for (j = 0; j < s->plan->nop; j++) {
		free(s->op[j].sbuf);
		free(s->op[j].rbuf);
		free(s->op[j].amo);
		s->op[j].sbuf = NULL;
		s->op[j].rbuf = NULL;
		s->op[j].amo = NULL;
	}
}

/* A slice of the target's memory for an RMA operation; 0 when none. */
static bool
slice(struct dst_sim *s, int node, uint32_t len, uint32_t *off)
{
	struct dst_node *n = &s->node[node];
	/* generator 2: aligned for every atomic datatype, and 16 bytes
	 * more, so that an unaligned atomic on purpose stays inside */
	uint32_t al = s->plan->gen >= 2 ? 16 : 8;
	uint32_t pad = s->plan->gen >= 2 ? 16 : 0;
	uint32_t a = (n->mem_next + al - 1) & ~(al - 1);

	if (a + len + pad > DST_MEM)
		return false;
	n->mem_next = a + len + pad;
	*off = a;
	return true;
}

static void
op_wr(struct dst_sim *s, uint32_t j, struct uet_ses_wr *wr)
{
	static const uint8_t wop[DST_OP__COUNT] = {
		UET_SES_WR_SEND, UET_SES_WR_TSEND, UET_SES_WR_TSEND,
		UET_SES_WR_TSEND, UET_SES_WR_WRITE, UET_SES_WR_READ,
		UET_SES_WR_FETCH_ATOMIC, UET_SES_WR_ATOMIC,
		UET_SES_WR_DGRAM_SEND, UET_SES_WR_ATOMIC,
		UET_SES_WR_FETCH_ATOMIC, UET_SES_WR_CSWAP,
		UET_SES_WR_TSEND_ATOMIC, UET_SES_WR_TSEND_FETCH_ATOMIC,
		UET_SES_WR_NOP,
	};
	const struct dst_op_spec *o = &s->plan->op[j];
	struct dst_op *op = &s->op[j];

	memset(wr, 0, sizeof(*wr));
	wr->op = wop[o->kind];
	wr->context = j + 1;
	wr->buf = op->sbuf;
	wr->len = o->len;
	wr->job = DST_JOB;
	wr->tc = o->tc;
	wr->dest.fa = s->node[o->dst].fa;
	wr->dest.pid_on_fep = DST_PID;
	wr->dest.resource_index = is_rma(o->kind) ? DST_RI_RMA : DST_RI_MSG;
	if (o->kind == DST_OP_NOP)
		wr->buf = NULL;
	wr->dest.relative = true;
	wr->flags = UET_SES_WR_F_COMPLETION |
		    (o->ordered ? UET_SES_WR_F_ORDERED : 0);
	wr->tag = j + 1;
	wr->rkey = s->node[o->dst].rkey;
	if (o->idem && (o->kind == DST_OP_WRITE || o->kind == DST_OP_READ)) {
		wr->flags |= UET_SES_WR_F_IDEMPOTENT;
		wr->rkey = s->node[o->dst].rkey_idem;
	}
	wr->roffset = op->off;
	if (o->imm) {
		wr->flags |= UET_SES_WR_F_IMM;
		wr->imm_data = DST_IMM_BASE | (j + 1);
	}
	if (o->kind == DST_OP_RDV)
		wr->flags |= UET_SES_WR_F_RENDEZVOUS;
	if (o->kind == DST_OP_DEFER)
		wr->flags |= UET_SES_WR_F_DEFERRABLE;
	if (o->kind == DST_OP_FETCH || o->kind == DST_OP_ATOMIC) {
		wr->atomic_op = UET_AMO_SUM;
		wr->atomic_dt = UET_AMO_DT_UINT64;
		wr->buf = &op->add;
		wr->result = o->kind == DST_OP_FETCH ? &op->fetched : NULL;
	}
	if (dst_op_is_amo(o->kind) && op->amo != NULL)
		dst_amo_wr(j, o, op, wr);
	/* errors on purpose: a key the target never gave, memory past
	 * the end of the region, an atomic off its alignment */
	if (o->far)
		wr->rkey = s->node[o->dst].rkey_far;
	if (o->err == DST_E_KEY)
		wr->rkey ^= 0x5A5A0000u;
	else if (o->err == DST_E_GONE)
		wr->rkey = s->node[o->dst].rkey_gone;
	else if (o->err == DST_E_ADDR)
		wr->roffset = DST_MEM + 1 + (j % 64) * 8;
	else if (o->err == DST_E_ALIGN)
		wr->roffset = op->off + 1;
	/* provider keys carry the entry's generation in bits 16..23, which
	 * the initiator copies into the request (as pmd/ses_ulp does) */
	if (is_rma(o->kind))
		wr->dest.ri_generation = (uint8_t)(wr->rkey >> 16);
}

/* The code op @p j must fail with, 0: none (profile refusals come
 * first, then a table or memory off, then the request's own errors). */
static int
op_want(struct dst_sim *s, uint32_t j)
{
	int rc = dst_profile_target_rc(s, j);

	s->op[j].want_off = false;
	if (rc == 0) {
		rc = dst_mr_off_rc(s, j);
		s->op[j].want_off = rc != 0;
	}
	return rc != 0 ? rc : dst_model_status(s, j);
}

/* First submission: lay out the data of the operation. */
static bool
op_prepare(struct dst_sim *s, uint32_t j)
{
	const struct dst_op_spec *o = &s->plan->op[j];
	struct dst_op *op = &s->op[j];
	uint8_t *mem = s->node[o->dst].mem;

	op->src_inc = s->node[o->src].inc;
	op->dst_inc = s->node[o->dst].inc;
	op->dst_keys = s->node[o->dst].keys;
	fill(op->sbuf, j, o->len);
	op->submit_want = dst_profile_submit_rc(s, j);
	op->want = op_want(s, j);
	if (!is_rma(o->kind))
		return true;
	if (!slice(s, o->dst, o->len, &op->off))
		return false;
	if (dst_op_is_amo(o->kind)) {
		if (op->amo != NULL)
			memcpy(mem + op->off, op->amo->init, o->len);
		op->want = op_want(s, j);
	} else if (o->kind == DST_OP_READ) {
		fill(mem + op->off, j, o->len);
		memset(op->sbuf, 0, o->len);
	} else if (o->kind == DST_OP_FETCH || o->kind == DST_OP_ATOMIC) {
		op->init = uet_rand_next(&s->rng) >> 8;
		op->add = (uet_rand_next(&s->rng) >> 40) + 1;
		memcpy(mem + op->off, &op->init, 8);
	} else {
		memset(mem + op->off, 0, o->len);
	}
	return true;
}

static void
op_submit(struct dst_sim *s, uint32_t j)
{
	const struct dst_op_spec *o = &s->plan->op[j];
	struct dst_op *op = &s->op[j];
	struct uet_ses_wr wr;
	enum uet_wire_ses_rc rc = 0;
	int r;

	if (op->state == DST_S_IDLE && !op_prepare(s, j)) {
		op->state = DST_S_REJECTED;
		return;
	}
	op_wr(s, j, &wr);
	r = uet_ses_submit(s->node[o->src].ses, &wr, &rc);
	dst_profile_check_submit(s, j, r);
	if (r == -EAGAIN) {
		op->state = DST_S_PENDING;
		return;
	}
	if (r != 0) {
		op->state = DST_S_REJECTED;
		dst_trace(s, "op %u %s rejected at submit: %d (rc %u)", j,
			  dst_op_name(o->kind), r, rc);
		return;
	}
	op->state = DST_S_SUBMITTED;
	op->t_submit = s->now;
	dst_trace(s, "op %u %s %u B n%u->n%u tc %u%s submitted", j,
		  dst_op_name(o->kind), o->len, o->src, o->dst, o->tc,
		  o->ordered ? " rod" : "");
}

/* The flags of the next receive post of op @p j: FI_PEEK until its
 * message is there (given up once the send failed: a plain receive then
 * takes what may have come), then the claim or a plain receive. */
static uint32_t
recv_flags(struct dst_sim *s, uint32_t j)
{
	static const uint32_t peek[DST_R__COUNT] = {
		0, UET_SES_RECV_F_PEEK | UET_SES_RECV_F_CLAIM,
		UET_SES_RECV_F_PEEK,
		UET_SES_RECV_F_PEEK | UET_SES_RECV_F_CLAIM,
		UET_SES_RECV_F_PEEK | UET_SES_RECV_F_DISCARD,
	};
	static const uint32_t take[DST_R__COUNT] = {
		0, UET_SES_RECV_F_CLAIM, 0,
		UET_SES_RECV_F_CLAIM | UET_SES_RECV_F_DISCARD, 0,
	};
	const struct dst_op_spec *o = &s->plan->op[j];
	struct dst_op *op = &s->op[j];

	/* an OK send of this incarnation is there to be found */
	if (op->rstage == 0 && (op->state == DST_S_ERR ||
				op->state == DST_S_REJECTED ||
				op->state == DST_S_ABANDONED ||
				(op->state == DST_S_OK &&
				 op->dst_inc != s->node[o->dst].inc)))
		op->rstage = 2;
	if (op->rstage == 2)
		return 0;
	return op->rstage == 0 ? peek[o->rmode % DST_R__COUNT] :
				 take[o->rmode % DST_R__COUNT];
}

static void
recv_post(struct dst_sim *s, uint32_t j)
{
	const struct dst_op_spec *o = &s->plan->op[j];
	struct dst_op *op = &s->op[j];
	struct uet_ses_recv r;
	int rc;

	memset(&r, 0, sizeof(r));
	r.op = is_tagged(o->kind) ? 2 : 1;
	r.flags = recv_flags(s, j);
	r.context = DST_RECV_CTX | (j + 1);
	r.buf = op->rbuf;
	r.len = op->rlen;
	r.tag = j + 1;
	rc = uet_ses_recv_post(s->node[o->dst].ses, &r, s->now);
	if (r.flags != 0)
		dst_trace(s, "op %u receive%s%s%s at n%u: %d", j,
			  r.flags & UET_SES_RECV_F_PEEK ? " PEEK" : "",
			  r.flags & UET_SES_RECV_F_CLAIM ? " CLAIM" : "",
			  r.flags & UET_SES_RECV_F_DISCARD ? " DISCARD" : "",
			  o->dst, rc);
	if (rc == 0) {
		op->recv_posted = true;
		/* generator 3: now and then the application takes a plain
		 * receive back (FI_CANCEL) and posts it again */
		if (s->plan->gen >= 3 && r.flags == 0 &&
		    uet_rand_below(&s->rng, 8) == 0)
			dst_recv_cancel(s, j);
	} else if (rc == -ENOENT && (r.flags & UET_SES_RECV_F_CLAIM)) {
		/* the claimed message went with its PDC: peek again */
		dst_trace(s, "op %u claimed message gone: peek again", j);
		op->rstage = 0;
		op->rnext = s->now + 1000;
	} else if (rc != -EAGAIN) {
		dst_fail(s, "recv-post", "receive of op %u refused: %d", j, rc);
	}
}

/* A message that needs a receive of its own: not an untagged one that a
 * multi-recv buffer takes. */
static bool
own_recv(const struct dst_sim *s, const struct dst_op_spec *o)
{
	return is_msg(o->kind) &&
	       !((o->kind == DST_OP_SEND || o->kind == DST_OP_DGRAM) &&
		 dst_mrecv_on(s, o->dst));
}

static uint64_t
recv_at(const struct dst_op_spec *o)
{
	int64_t t = (int64_t)o->at + (int64_t)o->recv_us * 1000;

	return t < 0 ? 0 : (uint64_t)t;
}

static bool
awake(const struct dst_sim *s, int node)
{
	return s->node[node].stall_until <= s->now;
}

/* Nothing for dst_work_poll() or dst_work_next() to do with it: submitted
 * (or refused), and no receive of its own to post. Only a completion
 * (dst_work_cqe()) or a restart brings one back (a receive to post
 * again); until the list is rebuilt, ops that became inert stay in it,
 * which costs a test and changes nothing. */
static bool
op_inert(const struct dst_sim *s, uint32_t j)
{
	const struct dst_op *op = &s->op[j];

	return op->state != DST_S_IDLE && op->state != DST_S_PENDING &&
	       (op->recv_posted || !is_msg(s->plan->op[j].kind));
}

/* When an op not submitted yet, whose receive was never posted, first
 * has something to do: its submission or its receive's posting. */
static uint64_t
op_wake(const struct dst_sim *s, uint32_t j)
{
	const struct dst_op_spec *o = &s->plan->op[j];

	return is_msg(o->kind) && recv_at(o) < o->at ? recv_at(o) : o->at;
}

/* The ops dst_work_poll() and dst_work_next() look at: all but the inert
 * ones and those that wake later (live_wake, the earliest of these,
 * stands for them in dst_work_next(); the list is rebuilt when it
 * comes). */
static void
live_update(struct dst_sim *s)
{
	uint64_t w;
	uint32_t j;

	if (!s->live_stale && s->steps % 16 != 0 && s->now < s->live_wake)
		return;
	s->nlive = 0;
	s->live_wake = UINT64_MAX;
	for (j = 0; j < s->plan->nop; j++) {
		if (op_inert(s, j))
			continue;
		if (s->op[j].state == DST_S_IDLE && !s->op[j].recv_posted &&
		    (w = op_wake(s, j)) > s->now) {
			if (w < s->live_wake)
				s->live_wake = w;
			continue;
		}
		s->live[s->nlive++] = (uint8_t)j;
	}
	s->live_stale = false;
}

void
dst_work_poll(struct dst_sim *s)
{
	const struct dst_plan *p = s->plan;
	uint32_t j, k;

	for (j = 0; j < p->nnodes && p->gen >= 3; j++) {
		dst_mr_poll(s, (int)j);
		dst_mrecv_poll(s, (int)j);
	}
	live_update(s);
	for (k = 0; k < s->nlive && !s->failed; k++) {
		const struct dst_op_spec *o = &p->op[s->live[k]];
		struct dst_op *op = &s->op[s->live[k]];

		j = s->live[k];
		/* cheap tests first: this runs for every op at every turn */
		if (!op->recv_posted && op->rnext <= s->now &&
		    recv_at(o) <= s->now && own_recv(s, o) &&
		    awake(s, o->dst))
			recv_post(s, j);
		if ((op->state == DST_S_IDLE || op->state == DST_S_PENDING) &&
		    o->at <= s->now && awake(s, o->src))
			op_submit(s, j);
	}
}

uint64_t
dst_work_next(struct dst_sim *s)
{
	const struct dst_plan *p = s->plan;
	uint64_t t = UINT64_MAX, r;
	uint32_t j, k;

	for (j = 0; j < p->nnodes; j++) {
		if (s->node[j].mr_off_how != 0 && s->node[j].mr_off_until < t)
			t = s->node[j].mr_off_until;
		if (s->node[j].mr_off_how == 0 && s->node[j].mr_flap_end &&
		    s->node[j].mr_flap_next < t)
			t = s->node[j].mr_flap_next;
	}
	live_update(s);
	if (s->live_wake < t)
		t = s->live_wake;
	for (k = 0; k < s->nlive; k++) {
		const struct dst_op_spec *o = &p->op[s->live[k]];
		const struct dst_op *op = &s->op[s->live[k]];

		if (op->state == DST_S_IDLE && o->at > s->now && o->at < t)
			t = o->at;
		if (op->recv_posted || !is_msg(o->kind))
			continue;
		r = recv_at(o);
		if (r > s->now && r < t)
			t = r;
		if (op->rnext > s->now && op->rnext < t)
			t = op->rnext;
	}
	return t;
}

static void
done_checks(struct dst_sim *s, uint32_t j)
{
	const struct dst_op_spec *o = &s->plan->op[j];
	struct dst_op *op = &s->op[j];

	dst_model_checks(s, j);
	if (op->state != DST_S_OK)
		return;
	if (o->kind == DST_OP_READ && !dst_pattern_same(op->sbuf, j, o->len))
		dst_fail(s, "payload", "op %u READ of %u B completed OK with "
			 "wrong data", j, o->len);
	if (o->kind == DST_OP_FETCH && op->fetched != op->init)
		dst_fail(s, "atomic-fetch", "op %u fetched %llu, memory held "
			 "%llu", j, (unsigned long long)op->fetched,
			 (unsigned long long)op->init);
}

static void
on_send_cqe(struct dst_sim *s, int i, const struct uet_ses_cqe *c)
{
	uint32_t j = (uint32_t)c->context - 1;
	struct dst_op *op;

	if (c->context == 0 || j >= s->plan->nop ||
	    s->plan->op[j].src != i) {
		dst_fail(s, "cq-unknown", "n%d completion for context %llu",
			 i, (unsigned long long)c->context);
		return;
	}
	op = &s->op[j];
	if (op->state != DST_S_SUBMITTED || op->src_inc != s->node[i].inc) {
		dst_fail(s, "cq-twice", "op %u completed again (state %u, "
			 "status %d)", j, op->state, c->status);
		return;
	}
	op->state = c->status == 0 ? DST_S_OK : DST_S_ERR;
	op->status = c->status;
	op->t_done = s->now;
	dst_trace(s, "op %u %s done status %d after %llu us", j,
		  dst_op_name(s->plan->op[j].kind), c->status,
		  (unsigned long long)((s->now - op->t_submit) / 1000));
	done_checks(s, j);
}

/*
 * Message @p m, sent to an earlier incarnation of node @p i, reached the
 * current one. That is right while its initiator still sends it (a
 * retransmission may find the restarted node), never once it had
 * completed before the restart: then nothing the initiator sends
 * carries it any more, and what delivered it is a copy older than the
 * incarnation (a SYN the network kept, DST_F_HOLD), which the restarted
 * target must refuse (UEC 1.0 3.5 PDC establishment, maximum packet
 * lifetime; docs/WIRE-DECISIONS.md "A SYN that reaches a restarted
 * target"). UUD excepted: the network may duplicate a datagram.
 */
static void
stale_delivery(struct dst_sim *s, int i, uint32_t m)
{
	const struct dst_op *op = &s->op[m];

	if (s->plan->op[m].kind == DST_OP_DGRAM ||
	    (op->state != DST_S_OK && op->state != DST_S_ERR) ||
	    op->t_done >= s->node[i].inc_ns)
		return;
	dst_fail(s, "dup-delivery", "op %u %s completed (%d) at %.3f ms, "
		 "before n%d restarted at %.3f ms: received again by its "
		 "incarnation %u", m, dst_op_name(s->plan->op[m].kind),
		 op->status, (double)op->t_done / 1e6, i,
		 (double)s->node[i].inc_ns / 1e6, s->node[i].inc);
}

/* Receive @p j took a message other than its own, which counts for
 * nothing (a datagram's network duplicate, a message of an earlier
 * incarnation): it is posted again at the next step. Due at once, it was
 * owed by no one (recv_owed(), dst_work_next()): a run past its horizon
 * ended there and called the message lost (generator 1 seed 6567741). */
static void
recv_again(struct dst_sim *s, uint32_t j)
{
	if (j >= s->plan->nop)
		return;
	s->op[j].recv_posted = false;
	s->op[j].rnext = s->now + 1;
}

/* Message @p m reached its receive @p j at node @p i (taken or
 * discarded): at most once per incarnation of the target, and not by an
 * incarnation that began after it completed (stale_delivery()). */
void
dst_work_delivered(struct dst_sim *s, int i, uint32_t m, uint32_t j)
{
	struct dst_op *op = &s->op[m];

	/* sent to an earlier incarnation of node i (a datagram, or a
	 * message whose SYN reached the restarted node): it counts for
	 * nothing, but it took a receive the restarted node posted for
	 * another message, which must be posted again */
	if (op->dst_inc != s->node[i].inc) {
		if (j != m)
			recv_again(s, j);
		stale_delivery(s, i, m);
		return;
	}
	/* UUD is unreliable: the network may duplicate a datagram and no
	 * one removes the copy (UEC 1.0 PDS delivery modes). The copy took
	 * a receive another message needs: post it again. */
	if (s->plan->op[m].kind == DST_OP_DGRAM) {
		if (++op->delivered > 1)
			recv_again(s, j);
		return;
	}
	if (++op->delivered > 1)
		dst_fail(s, "dup-delivery", "op %u %s received %u times by n%d",
			 m, dst_op_name(s->plan->op[m].kind), op->delivered, i);
	dst_trace(s, "op %u received by n%d (receive %u)", m, i, j);
}

/* FI_PEEK / FI_CLAIM stages of receive @p j (the message is op j: its
 * tag is unique). @return whether the completion is dealt with. */
static bool
peek_cqe(struct dst_sim *s, int i, uint32_t j, const struct uet_ses_cqe *c)
{
	const struct dst_op_spec *o = &s->plan->op[j];
	struct dst_op *op = &s->op[j];
	uint32_t back;

	if (o->rmode == DST_R_PLAIN || op->rstage == 2)
		return false;
	dst_trace(s, "op %u receive stage %u: status %d, %llu B", j,
		  op->rstage, c->status, (unsigned long long)c->len);
	if (op->rstage == 1) {
		if (o->rmode != DST_R_CLAIM_DROP)
			return false;
		/* discarded: taken, nothing copied */
		if (c->status == 0 && c->len == 0)
			dst_work_delivered(s, i, j, j);
		else if (c->status == 0)
			dst_fail(s, "peek", "op %u: CLAIM|DISCARD completed "
				 "with %llu B", j, (unsigned long long)c->len);
		return true;
	}
	op->recv_posted = false;
	if (c->status == -ENOMSG) {
		/* not there yet: peek again, less and less often */
		back = op->npeek < 6 ? op->npeek : 6;
		op->npeek++;
		op->rnext = s->now + (50000ull << back);
		return true;
	}
	/* PEEK reports the message's length; PEEK|DISCARD drops it and
	 * completes with length 0 */
	if (c->status != 0 || c->tag != j + 1 ||
	    c->len != (o->rmode == DST_R_PEEK_DROP ? 0 : o->len)) {
		dst_fail(s, "peek", "op %u: PEEK completed with status %d, "
			 "tag %llu, %llu B (sent %u B)", j, c->status,
			 (unsigned long long)c->tag, (unsigned long long)c->len,
			 o->len);
		return true;
	}
	if (o->rmode == DST_R_PEEK_DROP) {
		op->recv_posted = true;
		dst_work_delivered(s, i, j, j);
		return true;
	}
	/* the take goes in 1 us (a time of its own: the clock stops there) */
	op->rstage = 1;
	op->rnext = s->now + 1000;
	return true;
}

/* A tagged atomic ran in receive @p j: it completes with the request
 * length (its buffer is judged at the end, final_amo()). */
static void
tamo_cqe(struct dst_sim *s, int i, uint32_t j, const struct uet_ses_cqe *c)
{
	const struct dst_op_spec *o = &s->plan->op[j];

	if (c->len != o->len || c->tag != j + 1) {
		dst_fail(s, "payload", "op %u %s: its receive completed with "
			 "%llu B, tag %llu", j, dst_op_name(o->kind),
			 (unsigned long long)c->len,
			 (unsigned long long)c->tag);
		return;
	}
	dst_work_delivered(s, i, j, j);
}

/* @p len bytes that must be a whole message sent to node @p i: its id
 * leads it (dst_pattern()). */
bool
dst_work_payload_ok(const struct dst_sim *s, int i, const uint8_t *b,
		    uint64_t len, uint32_t *m)
{
	*m = UINT32_MAX;
	if (len < 4)
		return false;
	memcpy(m, b, 4);
	*m -= 1;
	return *m < s->plan->nop && s->plan->op[*m].dst == i &&
	       len == s->plan->op[*m].len && dst_pattern_same(b, *m, (uint32_t)len);
}

static void
on_recv_cqe(struct dst_sim *s, int i, const struct uet_ses_cqe *c)
{
	uint32_t j = (uint32_t)(c->context & 0xFFFFFFFFu) - 1, m;
	const struct dst_op *r;

	if (c->context & DST_MRECV_CTX) {
		dst_mrecv_cqe(s, i, c);
		return;
	}
	if (j >= s->plan->nop || s->plan->op[j].dst != i) {
		dst_fail(s, "cq-unknown", "n%d receive completion %llx", i,
			 (unsigned long long)c->context);
		return;
	}
	if (dst_recv_cancel_cqe(s, j, c) || peek_cqe(s, i, j, c))
		return;
	r = &s->op[j];
	s->op[j].recv_posted = c->status != 0 ? r->recv_posted : true;
	if (c->status != 0) {
		dst_trace(s, "receive %u at n%d failed: %d", j, i, c->status);
		/* the message it was bound to was given up by its sender
		 * (an untagged receive takes the earliest that began,
		 * maybe another op's): post it again, as an application
		 * still waiting for its message does */
		if (c->status == -ECONNRESET)
			s->op[j].recv_posted = false;
		return;
	}
	if (dst_op_is_tamo(s->plan->op[j].kind)) {
		tamo_cqe(s, i, j, c);
		return;
	}
	if (dst_op_truncated(&s->plan->op[j])) {
		dst_recv_truncated_cqe(s, i, j, c);
		return;
	}
	if (!dst_work_payload_ok(s, i, r->rbuf, c->len, &m) ||
	    (is_tagged(s->plan->op[j].kind) && m != j)) {
		dst_fail(s, "payload", "n%d receive %u got %llu B that are "
			 "not a message sent to it (op %u?)", i, j,
			 (unsigned long long)c->len, m);
		return;
	}
	dst_work_delivered(s, i, m, j);
}

void
dst_work_cqe(struct dst_sim *s, int i, const struct uet_ses_cqe *c)
{
	s->live_stale = true;
	if (c->context == 0 && (c->flags & (UET_SES_CQ_REMOTE |
					     UET_SES_CQ_IMM)))
		dst_mr_remote_cqe(s, i, c);
	else if (c->flags & UET_SES_CQ_SEND)
		on_send_cqe(s, i, c);
	else if (c->flags & UET_SES_CQ_RECV)
		on_recv_cqe(s, i, c);
}

void
dst_work_restart(struct dst_sim *s, int i)
{
	uint32_t j;

	dst_mrecv_restart(s, i);
	s->live_stale = true;
	for (j = 0; j < s->plan->nop; j++) {
		const struct dst_op_spec *o = &s->plan->op[j];
		struct dst_op *op = &s->op[j];

		if (o->src == i && (op->state == DST_S_SUBMITTED ||
				    op->state == DST_S_PENDING))
			op->state = DST_S_ABANDONED;
		/* its receives went with the old incarnation */
		if (o->dst == i && is_msg(o->kind)) {
			op->recv_posted = false;
			op->rstage = 0;
			op->rnext = 0;
		}
	}
}

/* A message that completed OK at its initiator and that its receive has
 * yet to take: the receive is still to be posted, or a PEEK looks again
 * later (backing off up to 3.2 ms). The message waits at its target (in
 * the unexpected store), so the run is not over; if it never comes, the
 * run ends at its drain limit and dst_work_final() says "lost". */
static bool
recv_owed(const struct dst_sim *s, uint32_t j)
{
	const struct dst_op_spec *o = &s->plan->op[j];
	const struct dst_op *op = &s->op[j];

	return op->state == DST_S_OK && op->delivered == 0 &&
	       o->kind != DST_OP_DGRAM && is_msg(o->kind) &&
	       !op->recv_posted && op->dst_inc == s->node[o->dst].inc &&
	       own_recv(s, o) &&
	       (op->rnext > s->now || recv_at(o) > s->now);
}

bool
dst_work_done(const struct dst_sim *s)
{
	uint32_t j;

	for (j = 0; j < s->plan->nop; j++)
		if (s->op[j].state == DST_S_IDLE ||
		    s->op[j].state == DST_S_PENDING ||
		    s->op[j].state == DST_S_SUBMITTED || recv_owed(s, j))
			return false;
	return true;
}

uint32_t
dst_work_orphans(const struct dst_sim *s, int i)
{
	uint32_t j, n = 0;

	for (j = 0; j < s->plan->nop; j++)
		if (s->plan->op[j].src == i &&
		    s->op[j].state == DST_S_SUBMITTED &&
		    s->op[j].dst_inc != s->node[s->plan->op[j].dst].inc)
			n++;
	return n;
}

void
dst_work_check_hang(struct dst_sim *s)
{
	uint32_t j;

	for (j = 0; j < s->plan->nop && !s->failed; j++) {
		const struct dst_op *op = &s->op[j];

		/* a target that restarted forgot what it owed: the
		 * initiator is not told (a rendezvous send waits for a
		 * read-back that never comes), so no bound applies */
		if (op->state == DST_S_SUBMITTED &&
		    op->dst_inc == s->node[s->plan->op[j].dst].inc &&
		    s->now - op->t_submit > DST_HANG_NS)
			dst_fail(s, "hang", "op %u %s n%u->n%u submitted at "
				 "%llu us has not completed after %llu ms", j,
				 dst_op_name(s->plan->op[j].kind),
				 s->plan->op[j].src, s->plan->op[j].dst,
				 (unsigned long long)(op->t_submit / 1000),
				 (unsigned long long)(DST_HANG_NS / 1000000));
	}
}

static bool
zero(const uint8_t *b, uint32_t len)
{
	for (uint32_t i = 0; i < len; i++)
		if (b[i] != 0)
			return false;
	return true;
}

/* A request completed OK took effect exactly once at its target. */
static void
final_one(struct dst_sim *s, uint32_t j)
{
	const struct dst_op_spec *o = &s->plan->op[j];
	const struct dst_op *op = &s->op[j];
	const uint8_t *mem = s->node[o->dst].mem + op->off;
	uint64_t v;

	if (op->dst_inc != s->node[o->dst].inc ||
	    (op->state != DST_S_OK && op->state != DST_S_ERR))
		return;
	if (is_msg(o->kind) && o->kind != DST_OP_DGRAM &&
	    op->state == DST_S_OK && op->delivered == 0)
		dst_fail(s, "lost", "op %u %s completed OK, never received",
			 j, dst_op_name(o->kind));
	if (o->imm && op->state == DST_S_OK && op->delivered == 0)
		dst_fail(s, "lost", "op %u WRITE with header data completed "
			 "OK, its target never told", j);
	if (o->kind == DST_OP_WRITE && op->state == DST_S_OK &&
	    !dst_pattern_same(mem, j, o->len))
		dst_fail(s, "lost", "op %u WRITE completed OK, data not in "
			 "place", j);
	if (o->kind == DST_OP_WRITE && o->err != DST_E_NONE &&
	    !zero(mem, o->len))
		dst_fail(s, "rc-model", "op %u WRITE%s wrote its region", j,
			 o->err == DST_E_KEY ? " with a bad key" :
			 " past the region");
	if (dst_op_is_amo(o->kind) && op->amo != NULL)
		dst_amo_final(s, j);
	if (o->kind != DST_OP_FETCH && o->kind != DST_OP_ATOMIC)
		return;
	memcpy(&v, mem, 8);
	if (v == op->init + op->add || (v == op->init &&
					 op->state == DST_S_ERR))
		return;
	dst_fail(s, "atomic-once", "op %u %s (%s): memory %llu, initial %llu "
		 "+ %llu", j, dst_op_name(o->kind),
		 op->state == DST_S_OK ? "ok" : "failed",
		 (unsigned long long)v, (unsigned long long)op->init,
		 (unsigned long long)op->add);
}

/* What generator 7 watches at a restart: an RMA request that changes
 * memory, on a PDC (RUDI, for idempotent requests, may replay by
 * definition: UEC 1.0 PDS delivery modes), without an error on purpose. */
static bool
stale_watched(const struct dst_op_spec *o)
{
	return is_rma(o->kind) && o->kind != DST_OP_READ &&
	       o->err == DST_E_NONE &&
	       !(o->idem && o->kind == DST_OP_WRITE);
}

/*
 * Node @p i restarted (generator 7). The RMA requests to it that were
 * over take no more effect there (stale_delivery()'s rule, for memory):
 * their slices get a byte no request writes on purpose, DST_STALE_FILL,
 * and must keep it to the end (stale_final()). The memory itself stays,
 * as does an application's that registers the same buffer under the
 * same keys again; slices are never reused, so no other request
 * touches these.
 */
void
dst_work_stale_fill(struct dst_sim *s, int i)
{
	uint32_t j;

	for (j = 0; j < s->plan->nop; j++) {
		const struct dst_op_spec *o = &s->plan->op[j];
		struct dst_op *op = &s->op[j];

		if (o->dst != i || !stale_watched(o) ||
		    (op->state != DST_S_OK && op->state != DST_S_ERR))
			continue;
		memset(s->node[i].mem + op->off, DST_STALE_FILL, o->len);
		op->stale_watch = true;
	}
}

/* An RMA request over before its target restarted changed nothing at the
 * later incarnations: a WRITE wrote nothing (write-once), an atomic
 * executed not again (atomic-once). */
static void
stale_final(struct dst_sim *s, uint32_t j)
{
	const struct dst_op_spec *o = &s->plan->op[j];
	const struct dst_op *op = &s->op[j];
	const uint8_t *mem = s->node[o->dst].mem + op->off;
	uint32_t k;

	for (k = 0; k < o->len && mem[k] == DST_STALE_FILL; k++)
		;
	if (k == o->len)
		return;
	dst_fail(s, o->kind == DST_OP_WRITE ? "write-once" : "atomic-once",
		 "op %u %s completed (%d) at %.3f ms, before n%u restarted: "
		 "took effect again there (byte %u of %u changed)", j,
		 dst_op_name(o->kind), op->status, (double)op->t_done / 1e6,
		 o->dst, k, o->len);
}

void
dst_work_final(struct dst_sim *s)
{
	uint32_t j;

	for (j = 0; j < s->plan->nop && !s->failed; j++) {
		final_one(s, j);
		if (s->op[j].stale_watch && !s->failed)
			stale_final(s, j);
	}
	dst_mrecv_final(s);
}
