/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * --ulp ses: the application side of two engines that run the SES ULP
 * (pmd/ses_ulp/), driven only through front-end channels (uet_chan.h)
 * and the control path (uet_ses_ulp_ctl), the way the libfabric provider
 * drives them (test/integration/test_ses_chan.c is the model).
 *
 *   A (initiator)  SQ: SEND / TSEND / WRITE / READ     CQ: completions
 *                  RQ: answers (an engine's, latency)
 *   B (target)     RQ: pre-posted receives, reposted   CQ: receives
 *                  SQ: answer SENDs (an engine's, latency)
 *
 * Every buffer is allocated at creation: A has one slot of @c size bytes
 * per operation in flight (a slot is busy from its SQE to its CQE), B has
 * receive buffers or the registered region. Sends and WRITEs carry the
 * operation's sequence number in their first 8 bytes; with --verify every
 * other byte is a pattern of the sequence number and is checked: at each
 * receive (SEND), at each completion (READ, against the region slot it
 * read; WRITE, the region slot it wrote, which no other operation
 * touches until then) and at the end (WRITE: each region slot against
 * the last WRITE that completed into it, for damage done later).
 * Setting up and tearing down is ses_driver_setup.c's.
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_errno.h>

#include "ses_driver_private.h"

/* ------------------------------------------------------------------ */
/* payload                                                             */
/* ------------------------------------------------------------------ */

static inline uint8_t
pat(uint64_t seq, uint32_t i)
{
	return (uint8_t)(seq * 151u + i * 7u + (i >> 8) + 1u);
}

/* Sequence number in the first 8 bytes, the pattern after (@p full). */
void
ses_driver_payload_fill(uint8_t *b, uint32_t n, uint64_t seq, bool full)
{
	memcpy(b, &seq, sizeof(seq));
	if (full)
		for (uint32_t i = sizeof(seq); i < n; i++)
			b[i] = pat(seq, i);
}

static bool
payload_check(const uint8_t *b, uint32_t n, uint64_t seq, bool full)
{
	uint64_t got;

	memcpy(&got, b, sizeof(got));
	if (got != seq)
		return false;
	if (full)
		for (uint32_t i = sizeof(seq); i < n; i++)
			if (b[i] != pat(seq, i))
				return false;
	return true;
}

static inline uint64_t
seq_of(const uint8_t *b)
{
	uint64_t s;

	memcpy(&s, b, sizeof(s));
	return s;
}

/* ------------------------------------------------------------------ */
/* posting                                                             */
/* ------------------------------------------------------------------ */

static void
sqe_base(const struct ses_driver *d, struct uet_chan_sqe *q, uint64_t ctx,
	 const void *buf, const struct driver_side *to)
{
	memset(q, 0, sizeof(*q));
	q->flags = UET_CHAN_F_COMPLETION;
	q->context = ctx;
	q->addr = (uint64_t)(uintptr_t)buf;
	q->len = d->p.size;
	q->dest = to->peer;
	q->job = JOB_ID;
	q->mode = d->p.rod ? UET_CHAN_MODE_ROD : UET_CHAN_MODE_RUD;
	if (d->p.op == PERF_OP_SEND) {
		q->op = d->p.tagged ? UET_CHAN_OP_TSEND : UET_CHAN_OP_SEND;
		q->tag = d->tag;
	}
}

void
ses_driver_post_recv(struct ses_driver *d, struct driver_side *s, uint64_t ctx,
		     void *buf)
{
	struct uet_chan_rqe r;

	memset(&r, 0, sizeof(r));
	r.op = d->p.tagged ? UET_CHAN_RQ_TRECV : UET_CHAN_RQ_RECV;
	r.context = ctx;
	r.addr = (uint64_t)(uintptr_t)buf;
	r.len = d->p.size;
	r.tag = d->tag;
	/* the RQ holds every buffer at once: a refusal is a bug, counted */
	if (uet_chan_rq_post(s->ch, &r) != 0)
		d->cnt.post_fail++;
}

/* One operation from a free slot of A; false when none can go now. */
static bool
submit_one(struct ses_driver *d)
{
	struct uet_chan_sqe q;
	uint64_t seq = d->next_seq;
	uint32_t slot;
	uint8_t *buf;

	if (d->nfree == 0)
		return false;
	slot = d->afree[d->nfree - 1];
	buf = aslot(d, slot);
	sqe_base(d, &q, CTX_OF(CTX_TX, slot), buf, &d->b);
	switch (d->p.op) {
	case PERF_OP_SEND:
		ses_driver_payload_fill(buf, d->p.size, seq, d->p.verify);
		break;
	case PERF_OP_WRITE:
		q.op = UET_CHAN_OP_WRITE;
		q.rkey = d->key;
		q.roffset = (uint64_t)(uintptr_t)bslot(d, slot);
		ses_driver_payload_fill(buf, d->p.size, seq, d->p.verify);
		break;
	default: /* READ: region slot seq % nslots into our slot */
		q.op = UET_CHAN_OP_READ;
		q.rkey = d->key;
		q.roffset = (uint64_t)(uintptr_t)bslot(d, (uint32_t)
						       (seq % d->nslots));
		if (d->p.verify)
			memset(buf, 0, d->p.size);
		else
			memset(buf, 0xff, sizeof(uint64_t));
		break;
	}
	if (uet_chan_sq_post(d->a.ch, &q) != 0)
		return false; /* SQ full: the slot stays free, retry */
	d->nfree--;
	d->aseq[slot] = seq;
	d->next_seq++;
	d->inflight++;
	d->tx.msgs_sent++;
	if (d->e != NULL && d->e->sent != NULL)
		d->e->sent(d->e_priv, seq);
	return true;
}

/* @return operations posted */
static unsigned int
submit(struct ses_driver *d)
{
	unsigned int n = 0;

	if (d->p.deadline_tsc != 0 && !d->stopped &&
	    rte_rdtsc() > d->p.deadline_tsc)
		d->stopped = true;
	while (!d->stopped && d->next_seq < d->p.count &&
	       d->inflight < d->p.window &&
	       (d->e == NULL || d->e->may_send == NULL ||
		d->e->may_send(d->e_priv))) {
		if (!submit_one(d))
			break;
		n++;
	}
	return n;
}

/* ------------------------------------------------------------------ */
/* completions                                                         */
/* ------------------------------------------------------------------ */

/* A's operation completed. */
static void
tx_done(struct ses_driver *d, const struct uet_chan_cqe *e)
{
	uint32_t slot = CTX_INDEX(e->context);
	uint64_t seq;

	if (slot >= d->nslots) {
		d->cnt.cqe_bad++;
		return;
	}
	seq = d->aseq[slot];
	d->inflight--;
	d->afree[d->nfree++] = slot;
	if (e->status != 0) {
		d->cnt.cqe_err++;
		d->tx.pkts_done_err++;
		if (d->rseq != NULL) /* region slot content unknown now */
			d->rseq[slot] = SEQ_NONE;
		if (d->e != NULL && d->e->failed != NULL)
			d->e->failed(d->e_priv, seq);
		return;
	}
	d->tx.pkts_done_ok++;
	if (d->p.op == PERF_OP_SEND)
		return;
	if (d->p.op == PERF_OP_WRITE) {
		/* Acknowledged by the target: placed. Region slot `slot` is
		 * this operation's alone until its A slot is reused, so every
		 * WRITE is checked here, not only the last one into a slot
		 * (check_region() then looks for later damage). */
		d->rseq[slot] = seq;
		d->rx.rx_pkts++;
		if (!payload_check(bslot(d, slot), d->p.size, seq,
				   d->p.verify)) {
			d->rx.rx_bad++;
			return;
		}
		d->rx.rx_msgs++;
		d->rx.rx_bytes += d->p.size;
		return;
	}
	/* READ: the region slot it read, byte-exact with --verify */
	d->rx.rx_pkts++;
	if (e->len != d->p.size ||
	    !payload_check(aslot(d, slot), d->p.size, seq % d->nslots,
			   d->p.verify)) {
		d->rx.rx_bad++;
		return;
	}
	d->rx.rx_msgs++;
	d->rx.rx_bytes += d->p.size;
}

/* A message for B is good: right tag, length and (ROD) order. */
static bool
recv_ok(struct ses_driver *d, const struct uet_chan_cqe *e, const uint8_t *buf,
	struct test_ulp_result *res, uint64_t want)
{
	uint64_t seq;

	if (e->status != 0) {
		d->cnt.cqe_err++;
		res->rx_bad++;
		return false;
	}
	if (d->p.tagged && (!(e->flags & UET_CHAN_CQ_TAGGED) ||
			    e->tag != d->tag)) {
		res->rx_bad++;
		return false;
	}
	seq = seq_of(buf);
	if (e->len != d->p.size || seq >= d->next_seq ||
	    (want != SEQ_NONE && seq != want) ||
	    !payload_check(buf, d->p.size, seq, d->p.verify)) {
		res->rx_bad++;
		return false;
	}
	return true;
}

/* B received into buffer @p i. */
static void
b_recv(struct ses_driver *d, const struct uet_chan_cqe *e, uint32_t i)
{
	uint8_t *buf = bslot(d, i);
	struct uet_chan_sqe q;
	uint64_t seq;

	d->rx.rx_pkts++;
	if (!recv_ok(d, e, buf, &d->rx, SEQ_NONE)) {
		ses_driver_post_recv(d, &d->b, CTX_OF(CTX_RECV, i), buf);
		return;
	}
	seq = seq_of(buf);
	if (d->seen[seq >> 6] & (1ull << (seq & 63))) {
		d->rx.rx_dup++;
	} else {
		d->seen[seq >> 6] |= 1ull << (seq & 63);
		d->rx.rx_msgs++;
		d->rx.rx_bytes += e->len;
	}
	if (d->p.rod && seq != d->rx_next)
		d->rx.rx_order_err++;
	d->rx_next = seq + 1;
	if (d->e == NULL || d->e->answer == NULL ||
	    !d->e->answer(d->e_priv, seq)) {
		ses_driver_post_recv(d, &d->b, CTX_OF(CTX_RECV, i), buf);
		return;
	}
	/* answer from the same buffer, repost after its CQE */
	sqe_base(d, &q, CTX_OF(CTX_ANSWER, i), buf, &d->a);
	if (uet_chan_sq_post(d->b.ch, &q) != 0) {
		d->cnt.post_fail++;
		ses_driver_post_recv(d, &d->b, CTX_OF(CTX_RECV, i), buf);
		return;
	}
	d->rx.msgs_sent++;
	d->answers_inflight++;
}

/* A received an answer into buffer @p i: the awaited one, checked. */
static void
a_answered(struct ses_driver *d, const struct uet_chan_cqe *e, uint32_t i)
{
	uint8_t *buf = d->pbuf + (size_t)i * d->p.size;
	uint64_t now = rte_rdtsc(), want;

	d->tx.rx_pkts++;
	if (!d->e->awaits(d->e_priv, &want)) { /* nobody waits for it */
		if (e->status == 0)
			d->tx.rx_dup++;
		else
			d->cnt.cqe_err++;
	} else if (recv_ok(d, e, buf, &d->tx, want)) {
		d->tx.rx_msgs++;
		d->tx.rx_bytes += e->len;
		d->e->answered(d->e_priv, &d->tx, now);
	}
	ses_driver_post_recv(d, &d->a, CTX_OF(CTX_ANSWERED, i), buf);
}

static void
a_cqe(struct ses_driver *d, const struct uet_chan_cqe *e)
{
	uint32_t i = CTX_INDEX(e->context);

	if (CTX_KIND(e->context) == CTX_TX)
		tx_done(d, e);
	else if (CTX_KIND(e->context) == CTX_ANSWERED && i < d->nanswers)
		a_answered(d, e, i);
	else
		d->cnt.cqe_bad++;
}

static void
b_cqe(struct ses_driver *d, const struct uet_chan_cqe *e)
{
	uint32_t i = CTX_INDEX(e->context);

	if (CTX_KIND(e->context) == CTX_RECV && i < d->nrecv) {
		b_recv(d, e, i);
	} else if (CTX_KIND(e->context) == CTX_ANSWER && i < d->nrecv) {
		d->answers_inflight--;
		if (e->status != 0) {
			d->cnt.cqe_err++;
			d->rx.pkts_done_err++;
		} else {
			d->rx.pkts_done_ok++;
		}
		ses_driver_post_recv(d, &d->b, CTX_OF(CTX_RECV, i),
				     bslot(d, i));
	} else {
		d->cnt.cqe_bad++;
	}
}

unsigned int
ses_driver_poll(struct ses_driver *d)
{
	struct uet_chan_cqe e[CQ_BURST];
	unsigned int n, work;

	n = uet_chan_cq_poll(d->a.ch, e, CQ_BURST);
	for (unsigned int i = 0; i < n; i++)
		a_cqe(d, &e[i]);
	work = n;
	n = uet_chan_cq_poll(d->b.ch, e, CQ_BURST);
	for (unsigned int i = 0; i < n; i++)
		b_cqe(d, &e[i]);
	return work + n + submit(d);
}

bool
ses_driver_finished(struct ses_driver *d)
{
	uint64_t now;

	if ((!d->stopped && d->next_seq < d->p.count) || d->inflight != 0 ||
	    d->answers_inflight != 0 ||
	    (d->e != NULL && d->e->idle != NULL && !d->e->idle(d->e_priv)))
		return false;
	if (d->e != NULL || d->p.op != PERF_OP_SEND ||
	    d->rx.rx_msgs + d->tx.pkts_done_err >= d->tx.msgs_sent)
		return true;
	/* every send completed; its receive CQE may still be on its way */
	now = rte_rdtsc();
	if (d->idle_tsc == 0)
		d->idle_tsc = now;
	return (double)(now - d->idle_tsc) * d->ns_per_tsc > DRAIN_NS;
}

void
ses_driver_set_deadline(struct ses_driver *d, uint64_t deadline)
{
	d->p.deadline_tsc = deadline;
}

void
ses_driver_stop(struct ses_driver *d)
{
	d->stopped = true;
}

const struct test_ulp_result *
ses_driver_live(const struct ses_driver *d)
{
	return &d->rx;
}

const struct ses_driver_counters *
ses_driver_counters(const struct ses_driver *d)
{
	return &d->cnt;
}

/* WRITE: every region slot holds what its last completed WRITE put. */
static void
check_region(struct ses_driver *d)
{
	for (uint32_t k = 0; k < d->nslots; k++)
		if (d->rseq[k] != SEQ_NONE &&
		    !payload_check(bslot(d, k), d->p.size, d->rseq[k],
				   d->p.verify))
			d->rx.rx_bad++;
}

void
ses_driver_result(struct ses_driver *d, struct test_ulp_result *tx,
		  struct test_ulp_result *rx)
{
	if (!d->checked && d->rseq != NULL)
		check_region(d);
	d->checked = true;
	*tx = d->tx;
	*rx = d->rx;
	/* sent (or, for RMA, submitted) but never delivered */
	rx->rx_lost = tx->msgs_sent > rx->rx_msgs ?
		      tx->msgs_sent - rx->rx_msgs : 0;
	if (d->e != NULL && d->e->result != NULL)
		d->e->result(d->e_priv, tx);
}
