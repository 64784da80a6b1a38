/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * --ulp ses, setting up (ses_driver.c runs it): each side's channel,
 * attached to its engine, in the context's process or one of its own
 * (JOB_ADD, EP_ADD), the peers each side names the other by, B's region
 * for WRITE and READ, the buffers, and the mode's engine; then the
 * receives posted. Torn down in the reverse order.
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_errno.h>

#include <uet/uet_ses_mr.h>

#include "ses_driver_private.h"

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

/* Write every page of @p buf once, so that the run's first copies into
 * it take no page faults: calloc() leaves a large buffer unmapped until
 * written (the memcpy that bench-bulk.sh compares with faults its buffer
 * in before its clock starts too). */
static void
buf_fault_in(void *buf, size_t len)
{
	volatile uint8_t *b = buf;
	long pg = sysconf(_SC_PAGESIZE);
	size_t step = pg > 0 ? (size_t)pg : 4096;

	for (size_t off = 0; off < len; off += step)
		b[off] = 0;
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
	buf_fault_in(d->abuf, (size_t)d->nslots * p->size);
	buf_fault_in(d->bbuf, d->bbuf_len);
	if (d->pbuf != NULL)
		buf_fault_in(d->pbuf, (size_t)d->nanswers * p->size);
	for (uint32_t i = 0; i < d->nslots; i++)
		d->afree[i] = d->nslots - 1 - i;
	d->nfree = d->nslots;
	if (d->rseq != NULL)
		for (uint32_t i = 0; i < d->nslots; i++)
			d->rseq[i] = SEQ_NONE;
	if (p->op == PERF_OP_READ)
		for (uint32_t k = 0; k < d->nslots; k++)
			ses_driver_payload_fill(bslot(d, k), p->size, k, true);
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
			ses_driver_post_recv(d, &d->b,
				  CTX_OF(CTX_RECV, i),
				  bslot(d, i));
	for (uint32_t i = 0; i < d->nanswers; i++)
		ses_driver_post_recv(d, &d->a, CTX_OF(CTX_ANSWERED, i),
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
