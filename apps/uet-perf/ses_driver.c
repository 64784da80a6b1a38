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
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_errno.h>

#include <uet/uet_chan.h>
#include <uet/uet_ses_mr.h>
#include <uet/uet_ses_ulp.h>

#include "perf.h"

#define JOB_ID 0x5e5u            /* JobID of every operation */
#define DEFAULT_TAG 0x70657266u  /* match bits of tagged sends ("perf") */
#define CQ_BURST 32              /* CQEs read per turn and channel */
#define DRAIN_NS 2000000000ull   /* wait for late receives, at most */
#define SEQ_NONE UINT64_MAX      /* no sequence number (region slot) */

/* CQE contexts: kind in the top byte, buffer index below. */
enum ctx_kind { CTX_TX = 1, CTX_RECV = 2, CTX_ANSWER = 3, CTX_ANSWERED = 4 };
#define CTX_OF(k, i) (((uint64_t)(k) << 56) | (uint64_t)(i))
#define CTX_KIND(c) ((unsigned int)((c) >> 56))
#define CTX_INDEX(c) ((uint32_t)((c) & 0xffffffffu))

struct driver_side {
	struct uet_engine *e;
	struct uet_chan *ch;
	struct uet_ses_ulp_peer self; /* this side, by value */
	uint64_t peer; /* handle naming this side on the other's engine */
	uint16_t pid;             /* 0: the context's own process */
	uint32_t initiator;       /* with pid */
	bool attached;
	bool ep_added;            /* EP_ADD done: EP_DEL after detach */
};

struct ses_driver {
	struct ses_driver_params p;
	uint64_t tag;            /* match bits of tagged sends */
	struct driver_side a, b;
	uint32_t nslots;         /* A's operation slots */
	uint8_t *abuf;           /* nslots * size */
	uint64_t *aseq;          /* sequence number in slot */
	uint32_t *afree;         /* free slot stack */
	uint32_t nfree;
	uint32_t nrecv;          /* B's receive buffers (sends) */
	uint8_t *bbuf;           /* B: receive buffers or the region */
	size_t bbuf_len;
	uint64_t *rseq;          /* WRITE: last sequence placed per slot */
	const struct ses_driver_engine *e; /* the mode's (NULL: stream) */
	void *e_priv;            /* its state */
	uint32_t nanswers;       /* A's answer buffers */
	uint8_t *pbuf;           /* A: answer buffers */
	uint64_t key;            /* B's region (WRITE/READ) */
	uint64_t *seen;          /* bit per sequence number received */
	double ns_per_tsc;
	uint64_t next_seq;       /* next sequence number to submit */
	uint64_t inflight;       /* A's operations without a CQE */
	uint64_t answers_inflight; /* B's answers without a CQE */
	uint64_t rx_next;        /* ROD: next sequence number expected */
	bool stopped;
	bool checked;            /* end-of-run region check done */
	uint64_t idle_tsc;       /* A idle since (waiting for receives) */
	struct test_ulp_result tx;   /* A */
	struct test_ulp_result rx;   /* delivery side */
	struct ses_driver_counters cnt;
};

/* ------------------------------------------------------------------ */
/* payload                                                             */
/* ------------------------------------------------------------------ */

static inline uint8_t
pat(uint64_t seq, uint32_t i)
{
	return (uint8_t)(seq * 151u + i * 7u + (i >> 8) + 1u);
}

/* Sequence number in the first 8 bytes, the pattern after (@p full). */
static void
payload_fill(uint8_t *b, uint32_t n, uint64_t seq, bool full)
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

static void
post_recv(struct ses_driver *d, struct driver_side *s, uint64_t ctx, void *buf)
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

static inline uint8_t *
aslot(const struct ses_driver *d, uint32_t i)
{
	return d->abuf + (size_t)i * d->p.size;
}

static inline uint8_t *
bslot(const struct ses_driver *d, uint32_t i)
{
	return d->bbuf + (size_t)i * d->p.size;
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
		payload_fill(buf, d->p.size, seq, d->p.verify);
		break;
	case PERF_OP_WRITE:
		q.op = UET_CHAN_OP_WRITE;
		q.rkey = d->key;
		q.roffset = (uint64_t)(uintptr_t)bslot(d, slot);
		payload_fill(buf, d->p.size, seq, d->p.verify);
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
		post_recv(d, &d->b, CTX_OF(CTX_RECV, i), buf);
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
		post_recv(d, &d->b, CTX_OF(CTX_RECV, i), buf);
		return;
	}
	/* answer from the same buffer, repost after its CQE */
	sqe_base(d, &q, CTX_OF(CTX_ANSWER, i), buf, &d->a);
	if (uet_chan_sq_post(d->b.ch, &q) != 0) {
		d->cnt.post_fail++;
		post_recv(d, &d->b, CTX_OF(CTX_RECV, i), buf);
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
	post_recv(d, &d->a, CTX_OF(CTX_ANSWERED, i), buf);
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
		post_recv(d, &d->b, CTX_OF(CTX_RECV, i), bslot(d, i));
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

/* ------------------------------------------------------------------ */
/* setup                                                               */
/* ------------------------------------------------------------------ */

static int
ctl(struct uet_engine *e, struct uet_ses_ulp_ctl *r)
{
	int rc = uet_ses_ulp_ctl(e, 0, r, NULL, NULL);

	return rc < 0 ? rc : r->rc;
}

static unsigned int
pow2_above(uint64_t n)
{
	unsigned int v = 64;

	while (v <= n)
		v <<= 1;
	return v;
}

/* A process of its own for the side's channel (before it is attached):
 * the job for that process, then the binding. */
static int
side_own_process(struct driver_side *s)
{
	struct uet_ses_ulp_ctl j = {
		.op = UET_SES_ULP_JOB_ADD, .job = JOB_ID, .has_pid = true,
		.pid = s->pid,
	};
	struct uet_ses_ulp_ctl b = {
		.op = UET_SES_ULP_EP_ADD, .chan = s->ch, .pid = s->pid,
		.initiator = s->initiator, .profile = UET_PROFILE_HPC,
	};
	int rc = ctl(s->e, &j);

	if (rc == 0)
		rc = ctl(s->e, &b);
	s->ep_added = rc == 0;
	return rc;
}

static int
side_open(struct driver_side *s, struct uet_engine *e, const char *tag,
	  const uint8_t fa[4], uint32_t nrq, uint32_t nsq)
{
	struct uet_ses_ulp_ctl r = { .op = UET_SES_ULP_JOB_ADD,
				      .job = JOB_ID };
	char name[24];
	uint32_t initiator;
	uint16_t pid;
	int rc;

	s->e = e;
	snprintf(name, sizeof(name), "ps%s", tag);
	/* CQ: every operation and receive of this side at once */
	s->ch = uet_chan_create(name, pow2_above(nsq), pow2_above(nrq),
				pow2_above((uint64_t)nsq + nrq), SOCKET_ID_ANY,
				0);
	if (s->ch == NULL) {
		fprintf(stderr, "uet-perf: channel %s: %s\n", name,
			rte_strerror(rte_errno));
		return -ENOMEM;
	}
	if (s->pid != 0) {
		rc = side_own_process(s);
		pid = s->pid;
		initiator = s->initiator;
		if (rc == 0)
			rc = uet_engine_chan_attach(e, 0, s->ch);
		s->attached = rc == 0;
	} else {
		rc = uet_engine_chan_attach(e, 0, s->ch);
		s->attached = rc == 0;
		if (rc == 0)
			rc = uet_ses_ulp_identity(e, 0, &pid, &initiator);
		if (rc == 0)
			rc = ctl(e, &r);
	}
	if (rc != 0) {
		fprintf(stderr, "uet-perf: SES on %s: %s\n", name,
			strerror(-rc));
		return rc;
	}
	memset(&s->self, 0, sizeof(s->self));
	s->self.pid_on_fep = pid;
	s->self.start_ri = 0;
	s->self.initiator = initiator;
	memcpy(s->self.fa, fa, 4);
	return 0;
}

/* Register side @p s as a destination with the engine of side @p from. */
static int
peer_open(struct driver_side *s, const struct driver_side *from)
{
	struct uet_ses_ulp_ctl r = { .op = UET_SES_ULP_PEER_ADD,
				     .peer = s->self };
	int rc = ctl(from->e, &r);

	if (rc != 0) {
		fprintf(stderr, "uet-perf: SES peer: %s\n", strerror(-rc));
		return rc;
	}
	s->peer = r.handle;
	return 0;
}

/* Remove side @p s from the peers of side @p from's engine. */
static void
peer_close(struct driver_side *s, const struct driver_side *from)
{
	struct uet_ses_ulp_ctl r = { .op = UET_SES_ULP_PEER_DEL,
				     .handle = s->peer };

	if (s->peer != 0 && from->e != NULL)
		(void)ctl(from->e, &r);
	s->peer = 0;
}

static int
region_open(struct ses_driver *d)
{
	struct uet_ses_ulp_ctl r;
	int rc;

	memset(&r, 0, sizeof(r));
	r.op = UET_SES_ULP_MR_REG;
	r.job = JOB_ID;
	r.base = (uintptr_t)d->bbuf;
	r.len = d->bbuf_len;
	r.access = d->p.op == PERF_OP_WRITE ? UET_SES_MR_REMOTE_WRITE :
					      UET_SES_MR_REMOTE_READ;
	rc = ctl(d->b.e, &r);
	if (rc != 0) {
		fprintf(stderr, "uet-perf: region of %zu B: %s\n", d->bbuf_len,
			strerror(-rc));
		return rc;
	}
	d->key = r.key;
	return 0;
}

/* The mode's engine and its state: 0 or -ENOMEM. */
static int
engine_create(struct ses_driver *d)
{
	const struct ses_driver_engine *e = d->p.engine;

	if (e == NULL)
		return 0;
	if (e->priv_size > 0) {
		d->e_priv = calloc(1, e->priv_size);
		if (d->e_priv == NULL)
			return -ENOMEM;
	}
	if (e->init != NULL && e->init(d->e_priv, &d->p) != 0)
		return -ENOMEM; /* e_priv freed with d */
	d->e = e;
	return 0;
}

static int
bufs_alloc(struct ses_driver *d)
{
	const struct ses_driver_params *p = &d->p;
	bool sends = p->op == PERF_OP_SEND;

	d->nslots = d->e != NULL && d->e->slots ? d->e->slots : p->window;
	d->nrecv = d->e != NULL && d->e->recvs ? d->e->recvs :
		   RTE_MAX(2 * p->window, 8u);
	d->nanswers = d->e != NULL ? d->e->answers : 0;
	d->nrecv = RTE_MIN(d->nrecv, 4096u);
	d->abuf = calloc(d->nslots, p->size);
	d->aseq = calloc(d->nslots, sizeof(*d->aseq));
	d->afree = calloc(d->nslots, sizeof(*d->afree));
	d->bbuf_len = (size_t)(sends ? d->nrecv : d->nslots) * p->size;
	d->bbuf = calloc(1, d->bbuf_len);
	if (sends)
		d->seen = calloc((p->count + 63) / 64, sizeof(*d->seen));
	if (p->op == PERF_OP_WRITE)
		d->rseq = malloc(d->nslots * sizeof(*d->rseq));
	if (d->nanswers > 0)
		d->pbuf = calloc(d->nanswers, p->size);
	if (d->abuf == NULL || d->aseq == NULL || d->afree == NULL ||
	    d->bbuf == NULL || (sends && d->seen == NULL) ||
	    (p->op == PERF_OP_WRITE && d->rseq == NULL) ||
	    (d->nanswers > 0 && d->pbuf == NULL))
		return -ENOMEM;
	for (uint32_t i = 0; i < d->nslots; i++)
		d->afree[i] = d->nslots - 1 - i;
	d->nfree = d->nslots;
	if (d->rseq != NULL)
		for (uint32_t i = 0; i < d->nslots; i++)
			d->rseq[i] = SEQ_NONE;
	if (p->op == PERF_OP_READ)
		for (uint32_t k = 0; k < d->nslots; k++)
			payload_fill(bslot(d, k), p->size, k, true);
	return 0;
}

struct ses_driver *
ses_driver_create(const struct ses_driver_params *p)
{
	static const uint8_t def_a[4] = { 10, 0, 0, 1 };
	static const uint8_t def_b[4] = { 10, 0, 0, 2 };
	static const uint8_t none[4];
	const uint8_t *fa_a = memcmp(p->fa_a, none, 4) ? p->fa_a : def_a;
	const uint8_t *fa_b = memcmp(p->fa_b, none, 4) ? p->fa_b : def_b;
	struct ses_driver *d = calloc(1, sizeof(*d));
	bool sends = p->op == PERF_OP_SEND;
	char tag[20];

	if (d == NULL)
		return NULL;
	if (p->engine != NULL && p->engine->answers > 0 &&
	    p->op != PERF_OP_SEND) {
		/* B answers what it receives: answered operations are sends */
		fprintf(stderr, "uet-perf: SES answers: %s, not send\n",
			perf_op_name(p->op));
		free(d);
		return NULL;
	}
	d->p = *p;
	d->ns_per_tsc = 1e9 / (double)rte_get_tsc_hz();
	if (engine_create(d) < 0 || bufs_alloc(d) < 0) {
		fprintf(stderr, "uet-perf: SES buffers: %s\n",
			strerror(ENOMEM));
		goto fail;
	}
	d->tag = p->match_bits != 0 ? p->match_bits : DEFAULT_TAG;
	d->a.pid = p->pid_a;
	d->b.pid = p->pid_b;
	d->a.initiator = p->ini_a != 0 ? p->ini_a : p->pid_a;
	d->b.initiator = p->ini_b != 0 ? p->ini_b : p->pid_b;
	snprintf(tag, sizeof(tag), "A%s", p->tag);
	if (side_open(&d->a, p->ea, tag, fa_a,
		      RTE_MAX(d->nanswers, 1u), d->nslots) < 0)
		goto fail;
	snprintf(tag, sizeof(tag), "B%s", p->tag);
	if (side_open(&d->b, p->eb, tag, fa_b, sends ? d->nrecv : 1,
		      d->nanswers > 0 ? d->nrecv : 1) < 0)
		goto fail;
	if (peer_open(&d->b, &d->a) < 0 || peer_open(&d->a, &d->b) < 0)
		goto fail;
	if (!sends && region_open(d) < 0)
		goto fail;
	if (sends)
		for (uint32_t i = 0; i < d->nrecv; i++)
			post_recv(d, &d->b,
				  CTX_OF(CTX_RECV, i),
				  bslot(d, i));
	for (uint32_t i = 0; i < d->nanswers; i++)
		post_recv(d, &d->a, CTX_OF(CTX_ANSWERED, i),
			  d->pbuf + (size_t)i * p->size);
	return d;
fail:
	ses_driver_detach(d);
	ses_driver_free(d);
	return NULL;
}

/* EP_DEL of a side's own process (its channel detached). */
static void
side_unbind(struct driver_side *s)
{
	struct uet_ses_ulp_ctl q = { .op = UET_SES_ULP_EP_DEL, .chan = s->ch };

	if (s->ep_added)
		(void)ctl(s->e, &q);
	s->ep_added = false;
}

void
ses_driver_detach(struct ses_driver *d)
{
	if (d == NULL)
		return;
	if (d->a.attached)
		(void)uet_engine_chan_detach(d->a.e, d->a.ch);
	if (d->b.attached)
		(void)uet_engine_chan_detach(d->b.e, d->b.ch);
	d->a.attached = false;
	d->b.attached = false;
	side_unbind(&d->a);
	side_unbind(&d->b);
	peer_close(&d->a, &d->b);
	peer_close(&d->b, &d->a);
}

void
ses_driver_free(struct ses_driver *d)
{
	if (d == NULL)
		return;
	uet_chan_free(d->a.ch);
	uet_chan_free(d->b.ch);
	free(d->abuf);
	free(d->aseq);
	free(d->afree);
	free(d->bbuf);
	free(d->rseq);
	free(d->pbuf);
	free(d->seen);
	if (d->e != NULL && d->e->fini != NULL)
		d->e->fini(d->e_priv);
	free(d->e_priv);
	free(d);
}

const char *
perf_op_name(uint8_t op)
{
	static const char *const names[] = { "write", "send", "read" };

	return op < RTE_DIM(names) ? names[op] : "?";
}

int
perf_parse_op(const char *s, uint8_t *out)
{
	for (uint8_t i = 0; i <= PERF_OP_READ; i++)
		if (strcmp(s, perf_op_name(i)) == 0) {
			*out = i;
			return 0;
		}
	return -EINVAL;
}
