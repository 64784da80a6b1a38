/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * End-to-end SES tests: two {PDS, SES} stacks over the fake lossy wire
 * (ses_fakewire.c) with seeded loss, duplication and reordering. Every
 * transfer is checked byte for byte; atomics are checked for
 * exactly-once results. The seed is printed; UET_TEST_SEED= replays.
 */

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <uet/uet_ses.h>

#include "ses_fakewire.h"

#define RUN_NS (2000ull * 1000 * 1000) /* 2 s of fake time */
#define BIG (1u << 20)

static uint64_t seed = 0x5e55e2e1ull;
static struct sfw w;
static uint8_t *sbuf, *rbuf, *mem;

static void
lossy(void)
{
	int d;

	for (d = 0; d < 2; d++) {
		w.f[d].drop = 50000;   /* 5% */
		w.f[d].dup = 20000;    /* 2% */
		w.f[d].reorder = 100000;
	}
}

static int
setup(void **state)
{
	(void)state;
	if (ses_fakewire_init(&w, UET_PROFILE_HPC, seed) != 0)
		return -1;
	sbuf = calloc(1, BIG + 64);
	rbuf = calloc(1, BIG + 65536);
	mem = aligned_alloc(64, 1 << 16);
	if (!sbuf || !rbuf || !mem)
		return -1;
	memset(mem, 0, 1 << 16);
	return 0;
}

static int
teardown(void **state)
{
	(void)state;
	ses_fakewire_fini(&w);
	free(sbuf);
	free(rbuf);
	free(mem);
	return 0;
}

static const struct uet_ses_cqe *
cqe(int node, uint64_t ctx)
{
	const struct uet_ses_cqe *c;

	/* Completions of synchronous calls (cancel, peek): drain first. */
	if (ses_fakewire_cq_find(&w, node, ctx) < 0)
		ses_fakewire_step(&w, 1000);
	c = ses_fakewire_cqe(&w, node, ctx);
	assert_non_null(c);
	return c;
}

static uint64_t
retransmits(int node)
{
	const struct uet_pds_stats *st = uet_pds_stats_get(w.n[node].pds);

	return st->retx_sack + st->retx_nack + st->retx_trim + st->retx_rto +
	       st->retx_again + st->retx_probe + st->retx_tlp +
	       st->retx_backoff;
}

static void
post(int node, uint8_t op, uint64_t ctx, void *buf, uint64_t len,
     uint64_t tag, uint64_t ignore)
{
	assert_int_equal(ses_fakewire_recv(&w, node, op, ctx, buf, len, tag,
					   ignore), 0);
}

static void
submit(struct uet_ses_wr *wr)
{
	assert_int_equal(uet_ses_submit(w.n[0].ses, wr, NULL), 0);
}

/* ---- sends ---- */

/* RUD: messages may match in any order, so each has its own tag; ROD
 * (ordering requested): untagged, matched in send order. */
static void
send_sizes(bool ordered)
{
	static const uint32_t sizes[] = {
		0, 1, SFW_MTU - UET_SES_MEDIUM_LEN - 1,
		SFW_MTU - UET_SES_MEDIUM_LEN, SFW_MTU - UET_SES_MEDIUM_LEN + 1,
		SFW_MTU, 3 * SFW_MTU + 17, BIG,
	};
	struct uet_ses_wr wr;
	size_t i, n = sizeof(sizes) / sizeof(sizes[0]);
	uint64_t off = 0;

	lossy();
	ses_fakewire_fill(sbuf, BIG, 1);
	/* Receives first: each message lands in its own slice of rbuf. */
	for (i = 0; i < n; i++) {
		post(1, ordered ? 1 : 2, 1000 + i, rbuf + off, sizes[i], i, 0);
		off += sizes[i];
	}
	assert_true(off <= BIG + 65536);
	for (i = 0; i < n; i++) {
		ses_fakewire_wr(&w, 0, &wr, ordered ? UET_SES_WR_SEND :
			UET_SES_WR_TSEND, sbuf, sizes[i]);
		wr.context = i + 1;
		wr.tag = i;
		if (ordered)
			wr.flags |= UET_SES_WR_F_ORDERED;
		if (i == 2) {
			wr.flags |= UET_SES_WR_F_IMM;
			wr.imm_data = 0xabcdef;
		}
		submit(&wr);
	}
	assert_true(ses_fakewire_run_cq(&w, 0, (uint32_t)n, RUN_NS));
	assert_true(ses_fakewire_run_cq(&w, 1, (uint32_t)n, RUN_NS));
	off = 0;
	for (i = 0; i < n; i++) {
		const struct uet_ses_cqe *c0 = cqe(0, i + 1);
		const struct uet_ses_cqe *c1 = cqe(1, 1000 + i);

		assert_int_equal(c0->status, 0);
		assert_int_equal(c1->status, 0);
		assert_int_equal(c1->len, sizes[i]);
		assert_int_equal(c1->src, 100);
		assert_memory_equal(rbuf + off, sbuf, sizes[i] ? sizes[i] : 1);
		if (i == 2) {
			assert_true(c1->flags & UET_SES_CQ_IMM);
			assert_int_equal(c1->data, 0xabcdef);
		}
		off += sizes[i];
	}
	assert_int_equal(w.build_err, 0);
	assert_int_equal(w.rx_err, 0);
	assert_true(retransmits(0) > 0);
	assert_true(ses_fakewire_run_idle(&w, RUN_NS));
}

static void
send_sizes__rud_lossy(void **state)
{
	(void)state;
	send_sizes(false);
}

static void
send_sizes__rod_lossy(void **state)
{
	(void)state;
	send_sizes(true);
}

static void
tagged__unexpected_then_wildcard(void **state)
{
	static const uint32_t sizes[] = { 5, 2000, 40000 };
	struct uet_ses_wr wr;
	uint64_t off = 0;
	size_t i;

	(void)state;
	lossy();
	ses_fakewire_fill(sbuf, BIG, 2);
	for (i = 0; i < 3; i++) {
		ses_fakewire_wr(&w, 0, &wr, UET_SES_WR_TSEND, sbuf + i * 100, sizes[i]);
		wr.tag = 0x7700 + i;
		wr.context = i + 1;
		wr.flags |= UET_SES_WR_F_ORDERED; /* MPI order needs ROD */
		submit(&wr);
	}
	/* All three arrive unexpected (and are acknowledged OVERFLOW). */
	assert_true(ses_fakewire_run_cq(&w, 0, 3, RUN_NS));
	for (i = 0; i < 3; i++)
		assert_int_equal(cqe(0, i + 1)->status, 0);
	assert_int_equal(w.n[1].ncq, 0);
	/* Wildcard receives: ignore the low byte; arrival order kept. */
	for (i = 0; i < 3; i++) {
		post(1, 2, 2000 + i, rbuf + off, 65536, 0x7700, 0xff);
		off += 65536;
	}
	assert_true(ses_fakewire_run_cq(&w, 1, 3, RUN_NS));
	for (i = 0; i < 3; i++) {
		const struct uet_ses_cqe *c = cqe(1, 2000 + i);

		assert_int_equal(c->status, 0);
		assert_int_equal(c->tag, 0x7700 + i);
		assert_int_equal(c->len, sizes[i]);
		assert_true(c->flags & UET_SES_CQ_TAGGED);
		assert_memory_equal(rbuf + i * 65536, sbuf + i * 100, sizes[i]);
	}
	assert_true(ses_fakewire_run_idle(&w, RUN_NS));
}

static void
send__truncated_and_flow_controlled(void **state)
{
	struct uet_ses_wr wr;
	uint8_t *big;
	uint32_t i;

	(void)state;
	ses_fakewire_fill(sbuf, 8192, 3);
	post(1, 1, 7, rbuf, 100, 0, 0);
	ses_fakewire_wr(&w, 0, &wr, UET_SES_WR_SEND, sbuf, 5000);
	wr.context = 1;
	submit(&wr);
	assert_true(ses_fakewire_run_cq(&w, 0, 1, RUN_NS));
	assert_int_equal(cqe(0, 1)->status, 0);
	assert_true(ses_fakewire_run_cq(&w, 1, 1, RUN_NS));
	assert_true(cqe(1, 7)->flags & UET_SES_CQ_TRUNC);
	assert_int_equal(cqe(1, 7)->len, 100);
	assert_int_equal(cqe(1, 7)->olen, 4900);
	assert_memory_equal(rbuf, sbuf, 100);
	/* Larger than the unexpected pool (4 MiB): refused (flow control,
	 * no OOM) until a receive is posted, then delivered whole. */
	ses_fakewire_wr(&w, 0, &wr, UET_SES_WR_SEND, sbuf, 8192);
	wr.context = 2;
	wr.len = 5u << 20;
	wr.buf = malloc(wr.len);
	ses_fakewire_fill(wr.buf, wr.len, 33);
	big = calloc(1, wr.len);
	submit(&wr);
	for (i = 0; i < 500 && uet_ses_stats_get(w.n[1].ses)->refused_unexp < 8;
	     i++)
		ses_fakewire_step(&w, 10000);
	assert_true(uet_ses_stats_get(w.n[1].ses)->refused_unexp >= 8);
	assert_int_equal(w.n[0].ncq, 1);
	post(1, 1, 8, big, wr.len, 0, 0);
	assert_true(ses_fakewire_run_cq(&w, 0, 2, 4 * RUN_NS));
	assert_int_equal(cqe(0, 2)->status, 0);
	assert_true(ses_fakewire_run_cq(&w, 1, 2, 4 * RUN_NS));
	assert_int_equal(cqe(1, 8)->len, wr.len);
	assert_memory_equal(big, wr.buf, wr.len);
	assert_int_equal(uet_ses_stats_get(w.n[1].ses)->unexp_drop, 0);
	free(big);
	free(wr.buf);
	assert_true(ses_fakewire_run_idle(&w, RUN_NS));
}

/* A multi-recv buffer: each message's completion gives where it starts
 * in the buffer (a single-packet, a multi-packet, a single-packet one);
 * the last one, leaving less than min_free, releases the buffer. */
static void
recv__multi_offsets(void **state)
{
	static const uint32_t len[3] = { 1000, 3 * SFW_MTU + 17, 1000 };
	struct uet_ses_recv r;
	struct uet_ses_wr wr;
	uint64_t at = 0;

	(void)state;
	ses_fakewire_fill(sbuf, 8192, 5);
	memset(&r, 0, sizeof(r));
	r.op = 1;
	r.context = 9;
	r.buf = rbuf;
	r.len = 2000 + len[1] + 50;
	r.flags = UET_SES_RECV_F_MULTI;
	r.min_free = 64;
	assert_int_equal(uet_ses_recv_post(w.n[1].ses, &r, w.now), 0);
	for (uint32_t k = 0; k < 3; k++) {
		const struct uet_ses_cqe *c;

		ses_fakewire_wr(&w, 0, &wr, UET_SES_WR_SEND, sbuf + 100 * k, len[k]);
		wr.context = k + 1;
		submit(&wr);
		assert_true(ses_fakewire_run_cq(&w, 0, k + 1, RUN_NS));
		assert_true(ses_fakewire_run_cq(&w, 1, k + 1, RUN_NS));
		c = &w.n[1].cq[k];
		assert_int_equal(c->context, 9);
		assert_int_equal(c->status, 0);
		assert_int_equal(c->len, len[k]);
		assert_int_equal(c->offset, at);
		assert_int_equal(!!(c->flags & UET_SES_CQ_MULTI_RECV_DONE),
				 k == 2);
		assert_memory_equal(rbuf + at, sbuf + 100 * k, len[k]);
		at += len[k];
	}
	assert_true(ses_fakewire_run_idle(&w, RUN_NS));
}

static void
dgram__uud(void **state)
{
	struct uet_ses_wr wr;

	(void)state;
	ses_fakewire_fill(sbuf, 64, 4);
	post(1, 1, 9, rbuf, 64, 0, 0);
	ses_fakewire_wr(&w, 0, &wr, UET_SES_WR_DGRAM_SEND, sbuf, 64);
	wr.context = 1;
	submit(&wr);
	assert_true(ses_fakewire_run_cq(&w, 1, 1, RUN_NS));
	assert_memory_equal(rbuf, sbuf, 64);
	assert_true(ses_fakewire_run_cq(&w, 0, 1, RUN_NS));
	assert_int_equal(cqe(0, 1)->status, 0);
}

/* ---- RMA ---- */

static void
write_read__lossy(void **state)
{
	uint32_t acc = UET_SES_MR_REMOTE_READ | UET_SES_MR_REMOTE_WRITE;
	uint64_t key = ses_fakewire_mr(&w, 1, mem, 1 << 16, acc, true);
	static uint8_t back[9000], small[20];
	struct uet_ses_wr wr;

	(void)state;
	assert_true(key != 0);
	lossy();
	ses_fakewire_fill(sbuf, 9000, 5);
	ses_fakewire_wr(&w, 0, &wr, UET_SES_WR_WRITE, sbuf, 9000);
	wr.rkey = key;
	wr.roffset = 100;
	wr.context = 1;
	wr.flags |= UET_SES_WR_F_IMM;
	wr.imm_data = 55;
	submit(&wr);
	assert_true(ses_fakewire_run_cq(&w, 0, 1, RUN_NS));
	assert_int_equal(cqe(0, 1)->status, 0);
	assert_memory_equal(mem + 100, sbuf, 9000);
	assert_int_equal(mem[99], 0);
	assert_int_equal(mem[9100], 0);
	/* Large read (return-direction RESPONSE_DATA) and small read. */
	ses_fakewire_wr(&w, 0, &wr, UET_SES_WR_READ, back, 9000);
	wr.rkey = key;
	wr.roffset = 100;
	wr.context = 2;
	submit(&wr);
	ses_fakewire_wr(&w, 0, &wr, UET_SES_WR_READ, small, 20);
	wr.rkey = key;
	wr.roffset = 200;
	wr.context = 3;
	submit(&wr);
	assert_true(ses_fakewire_run_cq(&w, 0, 3, RUN_NS));
	assert_int_equal(cqe(0, 2)->status, 0);
	assert_int_equal(cqe(0, 3)->status, 0);
	assert_memory_equal(back, sbuf, 9000);
	assert_memory_equal(small, sbuf + 100, 20);
	/* RUDI write (HPC, I=1 key): idempotent, at-least-once. */
	ses_fakewire_wr(&w, 0, &wr, UET_SES_WR_WRITE, sbuf + 1, 3000);
	wr.rkey = key;
	wr.roffset = 20000;
	wr.context = 4;
	wr.flags |= UET_SES_WR_F_IDEMPOTENT;
	submit(&wr);
	assert_true(ses_fakewire_run_cq(&w, 0, 4, RUN_NS));
	assert_int_equal(cqe(0, 4)->status, 0);
	assert_memory_equal(mem + 20000, sbuf + 1, 3000);
	assert_true(ses_fakewire_run_idle(&w, RUN_NS));
}

/*
 * Message ids are per PDC (3): two large READs to one peer on different
 * PDCs (RUD and ROD, or two traffic classes) may carry the same id, and
 * the return-direction data of each must land in its own READ.
 */
static void
read__return_data_matched_per_pdc(void **state)
{
	uint64_t key = ses_fakewire_mr(&w, 1, mem, 1 << 16, UET_SES_MR_REMOTE_READ,
			      false);
	static uint8_t b[3][9000];
	struct uet_ses_wr wr;
	int i;

	(void)state;
	assert_true(key != 0);
	ses_fakewire_fill(mem, 1 << 16, 11);
	memset(b, 0, sizeof(b));
	for (i = 0; i < 3; i++) {
		ses_fakewire_wr(&w, 0, &wr, UET_SES_WR_READ, b[i], sizeof(b[i]));
		wr.rkey = key;
		wr.roffset = 10000 * (uint64_t)i;
		wr.context = 10 + (uint64_t)i;
		wr.flags |= UET_SES_WR_F_COMPLETION;
		if (i == 1)
			wr.flags |= UET_SES_WR_F_ORDERED; /* ROD PDC */
		if (i == 2)
			wr.tc = 3;                        /* another TC */
		submit(&wr);
	}
	assert_true(ses_fakewire_run_cq(&w, 0, 3, RUN_NS));
	for (i = 0; i < 3; i++) {
		assert_int_equal(cqe(0, 10 + (uint64_t)i)->status, 0);
		assert_memory_equal(b[i], mem + 10000 * i, sizeof(b[i]));
	}
	assert_true(ses_fakewire_run_idle(&w, RUN_NS));
}

static void reinit(enum uet_wire_profile profile, uint32_t rdv_threshold);

/* Count @p node's UET_SES_CQ_REMOTE completions of @p op and @p len. */
static unsigned int
remote_events(int node, uint8_t op, uint64_t len)
{
	unsigned int n = 0;

	for (uint32_t i = 0; i < w.n[node].ncq; i++) {
		const struct uet_ses_cqe *c = &w.n[node].cq[i];

		if (!(c->flags & UET_SES_CQ_REMOTE) || c->op != op ||
		    c->len != len)
			continue;
		assert_int_equal(c->context, 0);
		assert_int_equal(c->src, 100);
		assert_int_equal(c->pid_on_fep, SFW_PID);
		n++;
	}
	return n;
}

/* cfg.remote_events: one event per served WRITE (multi-packet, lossy),
 * READ (small and large), atomic and fetching atomic; none for a failed
 * access, nor for the read-back of a rendezvous send. */
static void
remote__events(void **state)
{
	uint32_t acc = UET_SES_MR_REMOTE_READ | UET_SES_MR_REMOTE_WRITE |
		       UET_SES_MR_REMOTE_ATOMIC;
	static uint8_t back[9000];
	uint64_t key, one = 1, old = 0;
	struct uet_ses_wr wr;

	(void)state;
	ses_fakewire_remote_events = true;
	reinit(UET_PROFILE_HPC, 1000);
	ses_fakewire_remote_events = false;
	key = ses_fakewire_mr(&w, 1, mem, 1 << 16, acc, false);
	assert_true(key != 0);
	lossy();
	ses_fakewire_fill(sbuf, 9000, 6);
	ses_fakewire_wr(&w, 0, &wr, UET_SES_WR_WRITE, sbuf, 9000);
	wr.rkey = key;
	wr.roffset = 100;
	wr.context = 1;
	submit(&wr);
	ses_fakewire_wr(&w, 0, &wr, UET_SES_WR_READ, back, 9000);
	wr.rkey = key;
	wr.roffset = 30000;
	wr.context = 2;
	submit(&wr);
	ses_fakewire_wr(&w, 0, &wr, UET_SES_WR_READ, back, 20);
	wr.rkey = key;
	wr.roffset = 200;
	wr.context = 3;
	submit(&wr);
	ses_fakewire_wr(&w, 0, &wr, UET_SES_WR_ATOMIC, &one, 8);
	wr.atomic_op = UET_AMO_SUM;
	wr.atomic_dt = UET_AMO_DT_UINT64;
	wr.rkey = key;
	wr.roffset = 40000;
	wr.context = 4;
	submit(&wr);
	ses_fakewire_wr(&w, 0, &wr, UET_SES_WR_FETCH_ATOMIC, &one, 8);
	wr.atomic_op = UET_AMO_SUM;
	wr.atomic_dt = UET_AMO_DT_UINT64;
	wr.rkey = key;
	wr.roffset = 40000;
	wr.result = &old;
	wr.context = 5;
	submit(&wr);
	/* out of the region: fails, no event */
	ses_fakewire_wr(&w, 0, &wr, UET_SES_WR_WRITE, sbuf, 8);
	wr.rkey = key;
	wr.roffset = 1 << 16;
	wr.context = 6;
	submit(&wr);
	assert_true(ses_fakewire_run_cq(&w, 0, 6, RUN_NS));
	for (uint64_t c = 1; c <= 5; c++)
		assert_int_equal(cqe(0, c)->status, 0);
	assert_int_not_equal(cqe(0, 6)->status, 0);
	assert_true(ses_fakewire_run_idle(&w, RUN_NS));
	assert_int_equal(remote_events(1, UET_SES_WR_WRITE, 9000), 1);
	assert_int_equal(remote_events(1, UET_SES_WR_READ, 9000), 1);
	assert_int_equal(remote_events(1, UET_SES_WR_READ, 20), 1);
	assert_int_equal(remote_events(1, UET_SES_WR_ATOMIC, 8), 1);
	assert_int_equal(remote_events(1, UET_SES_WR_FETCH_ATOMIC, 8), 1);
	assert_int_equal(w.n[1].ncq, 5);
	/* rendezvous (threshold 1000): the read-back is no remote event */
	post(1, 1, 77, rbuf, 5000, 0, 0);
	ses_fakewire_wr(&w, 0, &wr, UET_SES_WR_SEND, sbuf, 5000);
	wr.context = 7;
	submit(&wr);
	assert_true(ses_fakewire_run_cq(&w, 0, 7, RUN_NS));
	assert_true(ses_fakewire_run_cq(&w, 1, 6, RUN_NS));
	assert_int_equal(uet_ses_stats_get(w.n[0].ses)->rdv_served, 1);
	for (uint32_t i = 0; i < w.n[0].ncq; i++)
		assert_false(w.n[0].cq[i].flags & UET_SES_CQ_REMOTE);
}

/*
 * resp_gtd__only_when_needed: a plain success is the default response
 * (nothing stored, no response, CACK tells the initiator, no CLEAR);
 * results (a small READ's data) and errors are stored as
 * guaranteed-delivery responses (UEC 1.0 3.5.20.2).
 */
static void
resp_gtd__only_when_needed(void **state)
{
	uint64_t key = ses_fakewire_mr(&w, 1, mem, 1 << 16, UET_SES_MR_REMOTE_WRITE |
			      UET_SES_MR_REMOTE_READ, false);
	const struct uet_pds_stats *pt = uet_pds_stats_get(w.n[1].pds);
	const struct uet_pds_stats *pi = uet_pds_stats_get(w.n[0].pds);
	static uint8_t back[64];
	struct uet_ses_wr wr;
	uint32_t i, n = 40;

	(void)state;
	ses_fakewire_fill(sbuf, 3000, 9);
	for (i = 0; i < n; i++) {
		/* multi-packet WRITEs and single-packet ones */
		ses_fakewire_wr(&w, 0, &wr, UET_SES_WR_WRITE, sbuf, i % 2 ? 3000 : 64);
		wr.rkey = key;
		wr.roffset = 100;
		wr.context = i + 1;
		submit(&wr);
	}
	assert_true(ses_fakewire_run_cq(&w, 0, n, RUN_NS));
	for (i = 0; i < n; i++)
		assert_int_equal(cqe(0, i + 1)->status, 0);
	assert_true(ses_fakewire_run_idle(&w, RUN_NS));
	assert_memory_equal(mem + 100, sbuf, 3000);
	assert_int_equal(pt->resp_default, n);
	assert_int_equal(pi->done_default, n);
	assert_int_equal(pt->resp_resent, 0);
	assert_int_equal(pi->tx_ctl[UET_PDS_CTL_CLEAR], 0);
	/* A small READ's data is a result: stored, then cleared. */
	ses_fakewire_wr(&w, 0, &wr, UET_SES_WR_READ, back, 64);
	wr.rkey = key;
	wr.roffset = 100;
	wr.context = n + 1;
	submit(&wr);
	assert_true(ses_fakewire_run_cq(&w, 0, n + 1, RUN_NS));
	assert_int_equal(cqe(0, n + 1)->status, 0);
	assert_memory_equal(back, sbuf, 64);
	assert_true(ses_fakewire_run_idle(&w, RUN_NS));
	assert_int_equal(pt->resp_default, n);
	assert_int_equal(pi->tx_ctl[UET_PDS_CTL_CLEAR], 1);
	/* An error is stored too and reaches the initiator. */
	ses_fakewire_wr(&w, 0, &wr, UET_SES_WR_WRITE, sbuf, 64);
	wr.rkey = key;
	wr.roffset = 1 << 16;
	wr.context = n + 2;
	submit(&wr);
	assert_true(ses_fakewire_run_cq(&w, 0, n + 2, RUN_NS));
	assert_int_equal(cqe(0, n + 2)->prov_errno, UET_RC_BAD_ADDR);
	assert_true(ses_fakewire_run_idle(&w, RUN_NS));
	assert_int_equal(pt->resp_default, n);
	assert_int_equal(pi->tx_ctl[UET_PDS_CTL_CLEAR], 2);
}

/*
 * read_multi__exactly_once_e2e: over a lossy, duplicating, reordering
 * wire, a READ of many packets of data is sent as one request packet per
 * packet of data, and the target sends each packet of data once (the
 * PDS retransmits what is lost): return packets queued = data packets.
 */
static void
read_multi__exactly_once_e2e(void **state)
{
	uint64_t key = ses_fakewire_mr(&w, 1, mem, 1 << 16, UET_SES_MR_REMOTE_READ,
			      false);
	uint32_t chunk = SFW_MTU - UET_SES_RESPONSE_DATA_LEN, len = 60000;
	const struct uet_ses_stats *st1 = uet_ses_stats_get(w.n[1].ses);
	const struct uet_ses_stats *st0 = uet_ses_stats_get(w.n[0].ses);
	uint64_t ret0 = st1->ret_tx, frag0 = st0->frag_tx;
	struct uet_ses_wr wr;

	(void)state;
	lossy();
	ses_fakewire_fill(mem, len, 21);
	memset(rbuf, 0, len);
	ses_fakewire_wr(&w, 0, &wr, UET_SES_WR_READ, rbuf, len);
	wr.rkey = key;
	wr.roffset = 0;
	wr.context = 1;
	submit(&wr);
	assert_true(ses_fakewire_run_cq(&w, 0, 1, 4 * RUN_NS));
	assert_int_equal(cqe(0, 1)->status, 0);
	assert_memory_equal(rbuf, mem, len);
	assert_int_equal(st0->frag_tx - frag0, (len + chunk - 1) / chunk);
	assert_int_equal(st1->ret_tx - ret0, (len + chunk - 1) / chunk);
	assert_true(retransmits(0) + retransmits(1) > 0);
}

/* ---- atomics ---- */

static void
atomics__exactly_once(void **state)
{
	uint64_t key = ses_fakewire_mr(&w, 1, mem, 4096,
			      UET_SES_MR_REMOTE_ATOMIC | UET_SES_MR_REMOTE_READ,
			      false);
	static uint64_t one = 1, fetched[1000];
	uint64_t *t = (uint64_t *)mem, cmp = 1000, swp = 77, old = 0, sum = 0;
	struct uet_ses_wr wr;
	uint32_t i, n = 1000;

	(void)state;
	memset(mem, 0, 64);
	for (i = 0; i < 2; i++) {
		w.f[i].drop = 100000; /* 10% */
		w.f[i].dup = 50000;
		w.f[i].reorder = 100000;
	}
	for (i = 0; i < n; i++) {
		ses_fakewire_wr(&w, 0, &wr, i % 2 ? UET_SES_WR_FETCH_ATOMIC :
				     UET_SES_WR_ATOMIC, &one, 8);
		wr.atomic_op = UET_AMO_SUM;
		wr.atomic_dt = UET_AMO_DT_UINT64;
		wr.rkey = key;
		wr.context = i + 1;
		wr.result = &fetched[i];
		submit(&wr);
	}
	assert_true(ses_fakewire_run_cq(&w, 0, n, 10 * RUN_NS));
	for (i = 0; i < n; i++)
		assert_int_equal(cqe(0, i + 1)->status, 0);
	assert_int_equal(t[0], n);
	/* Loss and duplicates happened, and replayed responses too. */
	assert_true(retransmits(0) > 0);
	assert_true(uet_pds_stats_get(w.n[1].pds)->dup_rx > 0);
	print_message("# retx %llu dup_rx %llu resp_resent %llu\n",
		      (unsigned long long)retransmits(0),
		      (unsigned long long)uet_pds_stats_get(w.n[1].pds)->dup_rx,
		      (unsigned long long)
		      uet_pds_stats_get(w.n[1].pds)->resp_resent);
	/* Fetched values are distinct and below n: each SUM ran once. */
	for (i = 1; i < n; i += 2) {
		assert_true(fetched[i] < n);
		sum += fetched[i];
	}
	assert_true(sum > 0);
	/* CSWAP (single element, CAS extension). */
	ses_fakewire_wr(&w, 0, &wr, UET_SES_WR_CSWAP, &swp, 8);
	wr.atomic_op = UET_AMO_CSWAP;
	wr.atomic_dt = UET_AMO_DT_UINT64;
	wr.rkey = key;
	wr.compare = &cmp;
	wr.result = &old;
	wr.context = 5000;
	submit(&wr);
	assert_true(ses_fakewire_run_cq(&w, 0, n + 1, RUN_NS));
	assert_int_equal(cqe(0, 5000)->status, 0);
	assert_int_equal(old, 1000);
	assert_int_equal(t[0], 77);
	assert_true(ses_fakewire_run_idle(&w, 4 * RUN_NS));
}

/* ---- authorization failures, each with its exact return code ---- */

static uint8_t
rma_rc(struct uet_ses_wr *wr)
{
	static uint64_t ctx = 10000;
	uint32_t before = w.n[0].ncq;

	wr->context = ++ctx;
	submit(wr);
	assert_true(ses_fakewire_run_cq(&w, 0, before + 1, RUN_NS));
	if (cqe(0, ctx)->status == 0)
		print_error("context %llu completed OK\n",
			    (unsigned long long)ctx);
	assert_true(cqe(0, ctx)->status != 0);
	return (uint8_t)cqe(0, ctx)->prov_errno;
}

static void
auth__every_failure(void **state)
{
	uint64_t key = ses_fakewire_mr(&w, 1, mem, 4096, UET_SES_MR_REMOTE_WRITE, false);
	uint64_t rkey = ses_fakewire_mr(&w, 1, mem, 4096, UET_SES_MR_REMOTE_READ, false);
	struct uet_ses_wr wr, base;

	(void)state;
	lossy();
	ses_fakewire_wr(&w, 0, &base, UET_SES_WR_WRITE, sbuf, 64);
	base.rkey = key;
	wr = base;
	wr.rkey = key ^ 0x10000; /* unknown key */
	assert_int_equal(rma_rc(&wr), UET_RC_BAD_MKEY);
	wr = base;
	wr.dest.ri_generation = 9;
	assert_int_equal(rma_rc(&wr), UET_RC_BAD_GENERATION);
	wr = base;
	wr.rkey = rkey;
	assert_int_equal(rma_rc(&wr), UET_RC_PERM_VIOLATION);
	wr = base;
	wr.roffset = 5000;
	assert_int_equal(rma_rc(&wr), UET_RC_BAD_ADDR);
	wr = base;
	wr.roffset = 4050;
	assert_int_equal(rma_rc(&wr), UET_RC_TOO_LONG);
	wr = base;
	wr.dest.pid_on_fep = 3;
	assert_int_equal(rma_rc(&wr), UET_RC_BAD_PID);
	wr = base;
	wr.job = 43;
	assert_int_equal(rma_rc(&wr), UET_RC_BAD_JOB_ID);
	wr = base;
	wr.dest.resource_index = 9;
	assert_int_equal(rma_rc(&wr), UET_RC_BAD_INDEX);
	wr = base;
	wr.dest.resource_index = SFW_RI_MSG; /* WRITE to a MSG table */
	assert_int_equal(rma_rc(&wr), UET_RC_OP_VIOLATION);
	assert_int_equal(uet_ses_mr_enable(w.n[1].mr, key, false), 0);
	assert_int_equal(rma_rc(&base), UET_RC_DISABLED_GEN);
	assert_int_equal(uet_ses_ri_enable(w.n[1].mr, w.n[1].ri_rma, false), 0);
	assert_int_equal(rma_rc(&base), UET_RC_DISABLED);
	assert_int_equal(uet_ses_ri_enable(w.n[1].mr, w.n[1].ri_rma, true), 0);
	/* Multi-packet write: the same code on every packet, answered once. */
	wr = base;
	wr.rkey = rkey;
	wr.len = 5000;
	assert_int_equal(rma_rc(&wr), UET_RC_PERM_VIOLATION);
	/* Send to an RMA table. */
	ses_fakewire_wr(&w, 0, &wr, UET_SES_WR_SEND, sbuf, 10);
	wr.dest.resource_index = SFW_RI_RMA;
	assert_int_equal(rma_rc(&wr), UET_RC_OP_VIOLATION);
	/* Atomic datatype/op errors come from the atomic engine. */
	ses_fakewire_wr(&w, 0, &wr, UET_SES_WR_ATOMIC, sbuf, 4);
	wr.atomic_op = UET_AMO_BAND;
	wr.atomic_dt = UET_AMO_DT_FLOAT;
	wr.rkey = ses_fakewire_mr(&w, 1, mem, 4096, UET_SES_MR_REMOTE_ATOMIC, false);
	assert_int_equal(rma_rc(&wr), UET_RC_AMO_UNSUPPORTED_OP);
	wr.atomic_op = UET_AMO_SUM;
	wr.roffset = 2;
	assert_int_equal(rma_rc(&wr), UET_RC_AMO_UNALIGNED);
	assert_true(ses_fakewire_run_idle(&w, RUN_NS));
}

/* ---- rendezvous (HPC): eager part + target-issued read of the rest ---- */

static void
wait_stat(const uint64_t *v, uint64_t want)
{
	uint32_t i;

	for (i = 0; i < 2000 && *v < want; i++)
		ses_fakewire_step(&w, 10000);
	assert_int_equal(*v, want);
}

/* Last completion with @p ctx (claims reuse the peek's context). */
static const struct uet_ses_cqe *
cqe_last(int node, uint64_t ctx)
{
	uint32_t i;

	ses_fakewire_step(&w, 1000);
	i = w.n[node].ncq;
	while (i-- > 0)
		if (w.n[node].cq[i].context == ctx)
			return &w.n[node].cq[i];
	fail();
	return NULL;
}

static void
reinit(enum uet_wire_profile profile, uint32_t rdv_threshold)
{
	ses_fakewire_fini(&w);
	assert_int_equal(ses_fakewire_init_rdv(&w, profile, seed, rdv_threshold), 0);
}

static void
check_recv(int node, uint64_t ctx, uint64_t len, uint64_t tag, bool trunc)
{
	const struct uet_ses_cqe *c = cqe(node, ctx);

	if (c->status != 0)
		print_error("recv %llu: status %d rc 0x%x\n",
			    (unsigned long long)ctx, c->status, c->prov_errno);
	assert_int_equal(c->status, 0);
	assert_int_equal(c->len, len);
	assert_int_equal(c->tag, tag);
	assert_int_equal(c->src, 100);
	assert_int_equal(c->flags & (UET_SES_CQ_RECV | UET_SES_CQ_TAGGED |
				     UET_SES_CQ_SRC | UET_SES_CQ_TRUNC),
			 UET_SES_CQ_RECV | UET_SES_CQ_TAGGED | UET_SES_CQ_SRC |
			 (trunc ? UET_SES_CQ_TRUNC : 0));
}

static void
check_send(uint64_t ctx, uint64_t len)
{
	const struct uet_ses_cqe *c = cqe(0, ctx);

	if (c->status != 0)
		print_error("send %llu: status %d rc 0x%x\n",
			    (unsigned long long)ctx, c->status, c->prov_errno);
	assert_int_equal(c->status, 0);
	assert_int_equal(c->len, len);
	assert_int_equal(c->flags, UET_SES_CQ_SEND);
}

/* Sizes around the eager part, the small/large READ boundary and the
 * MTU; each sent once with its receive posted first (expected) and once
 * before it (unexpected); one truncated receive; one shorter than the
 * eager part (zero-length read-back releases the sender). */
static void
rdv__sizes_expected_unexpected(void **state)
{
	static const uint32_t sizes[] = {
		1, SFW_RDV_EAGER, SFW_RDV_EAGER + 1, SFW_RDV_EAGER + 36,
		SFW_RDV_EAGER + 37, 4097, 3 * SFW_MTU + 17, 65536 + 3, BIG / 4,
	};
	size_t i, n = sizeof(sizes) / sizeof(sizes[0]);
	const struct uet_ses_stats *st0, *st1;
	struct uet_ses_wr wr;
	uint64_t off[2 * 9 + 2], o = 0;
	uint32_t k, ncq0 = 0, ncq1;

	(void)state;
	reinit(UET_PROFILE_HPC, 4096);
	lossy();
	ses_fakewire_fill(sbuf, BIG, 7);
	memset(rbuf, 0xEE, BIG + 65536);
	for (k = 0; k < 2 * n; k++) {
		off[k] = o;
		o += sizes[k % n] + 64; /* 64 guard bytes between slices */
	}
	/* Expected half: receives first. */
	for (i = 0; i < n; i++)
		post(1, 2, 500 + i, rbuf + off[i], sizes[i], 500 + i, 0);
	for (k = 0; k < 2 * n; k++) {
		i = k % n;
		if (k == n) {
			/* Unexpected half: sends land before the receives. */
			assert_true(ses_fakewire_run_cq(&w, 0, (uint32_t)n, RUN_NS));
		}
		ses_fakewire_wr(&w, 0, &wr, UET_SES_WR_TSEND,
		       sbuf + (k * 4099) % (BIG / 2), sizes[i]);
		/* Below the threshold: forced. */
		if (sizes[i] <= 4096)
			wr.flags |= UET_SES_WR_F_RENDEZVOUS;
		wr.tag = 500 + k;
		wr.context = 1 + k;
		submit(&wr);
		ncq0++;
	}
	/* Unexpected ones: wait until every SOM was answered, then post. */
	for (k = 0; k < 400 && uet_ses_match_stats_get(w.n[1].match)
					->unexp_stored < n; k++)
		ses_fakewire_step(&w, 10000);
	assert_int_equal(uet_ses_match_stats_get(w.n[1].match)->unexp_stored,
			 n);
	for (i = 0; i < n; i++)
		post(1, 2, 500 + n + i, rbuf + off[n + i], sizes[i],
		     500 + n + i, 0);
	/* Truncated: 10000-byte message into 6000 bytes; and 500 bytes
	 * into 100 (less than the eager part). */
	off[2 * n] = o;
	off[2 * n + 1] = o + 6000 + 64;
	post(1, 2, 900, rbuf + off[2 * n], 6000, 900, 0);
	post(1, 2, 901, rbuf + off[2 * n + 1], 100, 901, 0);
	ses_fakewire_wr(&w, 0, &wr, UET_SES_WR_TSEND, sbuf, 10000);
	wr.tag = 900;
	wr.context = 900;
	submit(&wr);
	ses_fakewire_wr(&w, 0, &wr, UET_SES_WR_TSEND, sbuf + 7, 500);
	wr.flags |= UET_SES_WR_F_RENDEZVOUS;
	wr.tag = 901;
	wr.context = 901;
	submit(&wr);
	ncq0 += 2;
	ncq1 = (uint32_t)(2 * n + 2);
	assert_true(ses_fakewire_run_cq(&w, 1, ncq1, 10 * RUN_NS));
	assert_true(ses_fakewire_run_cq(&w, 0, ncq0, 10 * RUN_NS));
	for (k = 0; k < 2 * n; k++) {
		i = k % n;
		check_send(1 + k, sizes[i]);
		check_recv(1, 500 + k, sizes[i], 500 + k, false);
		assert_memory_equal(rbuf + off[k],
				    sbuf + (k * 4099) % (BIG / 2), sizes[i]);
		for (o = 0; o < 64; o++)
			assert_int_equal(rbuf[off[k] + sizes[i] + o], 0xEE);
	}
	check_send(900, 10000);
	check_recv(1, 900, 6000, 900, true);
	assert_int_equal(cqe(1, 900)->olen, 4000);
	assert_memory_equal(rbuf + off[2 * n], sbuf, 6000);
	for (o = 0; o < 64; o++)
		assert_int_equal(rbuf[off[2 * n] + 6000 + o], 0xEE);
	check_send(901, 500);
	check_recv(1, 901, 100, 901, true);
	assert_memory_equal(rbuf + off[2 * n + 1], sbuf + 7, 100);
	for (o = 0; o < 64; o++)
		assert_int_equal(rbuf[off[2 * n + 1] + 100 + o], 0xEE);
	st0 = uet_ses_stats_get(w.n[0].ses);
	st1 = uet_ses_stats_get(w.n[1].ses);
	assert_int_equal(st0->rdv_tx, 2 * n + 2);
	assert_int_equal(st0->rdv_served, 2 * n + 2);
	assert_int_equal(st1->rdv_reads, 2 * n + 2);
	print_message("# rdv: retx %llu\n",
		      (unsigned long long)retransmits(0));
	/* Every key was revoked with its send (pools idle). */
	assert_true(ses_fakewire_run_idle(&w, 4 * RUN_NS));
	assert_int_equal(uet_ses_stats_get(w.n[1].ses)->rx_bad, 0);
}

/* The read-back key lives exactly as long as its send: while the message
 * waits unexpected the RI table has an entry (ri_del -EBUSY); after the
 * completion it is empty. */
static void
rdv__key_revoked(void **state)
{
	struct uet_ses_wr wr;

	(void)state;
	reinit(UET_PROFILE_HPC, 1000);
	ses_fakewire_fill(sbuf, 3000, 3);
	memset(rbuf, 0xEE, 4000);
	ses_fakewire_wr(&w, 0, &wr, UET_SES_WR_SEND, sbuf, 3000);
	wr.context = 1;
	submit(&wr);
	wait_stat(&uet_ses_match_stats_get(w.n[1].match)->unexp_stored, 1);
	assert_int_equal(uet_ses_stats_get(w.n[0].ses)->rdv_tx, 1);
	assert_int_equal(uet_ses_ri_del(w.n[0].mr, w.n[0].ri_rdv), -EBUSY);
	assert_int_equal(w.n[0].ncq, 0); /* waits for the read-back */
	post(1, 1, 77, rbuf, 3000, 0, 0);
	assert_true(ses_fakewire_run_cq(&w, 0, 1, RUN_NS));
	assert_true(ses_fakewire_run_cq(&w, 1, 1, RUN_NS));
	check_send(1, 3000);
	assert_int_equal(cqe(1, 77)->len, 3000);
	assert_memory_equal(rbuf, sbuf, 3000);
	assert_int_equal(rbuf[3000], 0xEE);
	assert_true(ses_fakewire_run_idle(&w, RUN_NS));
	assert_int_equal(uet_ses_ri_del(w.n[0].mr, w.n[0].ri_rdv), 0);
}

/* Rendezvous tables per job (uet_ses_config.rdv_ri_of, what the engine
 * glue uses): SFW_JOB has one, so its sends go rendezvous and are read
 * back; another job has none, so a rendezvous send of it fails at
 * submit with UNSUPPORTED_OP and nothing is sent. */
static void
rdv__table_per_job(void **state)
{
	enum uet_wire_ses_rc rc = UET_RC_OK;
	struct uet_ses_wr wr;

	(void)state;
	ses_fakewire_rdv_by_job = true;
	reinit(UET_PROFILE_HPC, 1000);
	ses_fakewire_rdv_by_job = false;
	ses_fakewire_fill(sbuf, 5000, 9);
	memset(rbuf, 0xEE, 6000);
	post(1, 1, 77, rbuf, 5000, 0, 0);
	ses_fakewire_wr(&w, 0, &wr, UET_SES_WR_SEND, sbuf, 5000);
	wr.context = 1;
	submit(&wr);
	assert_true(ses_fakewire_run_cq(&w, 0, 1, RUN_NS));
	assert_true(ses_fakewire_run_cq(&w, 1, 1, RUN_NS));
	check_send(1, 5000);
	assert_int_equal(cqe(1, 77)->len, 5000);
	assert_memory_equal(rbuf, sbuf, 5000);
	assert_int_equal(rbuf[5000], 0xEE);
	assert_int_equal(uet_ses_stats_get(w.n[0].ses)->rdv_tx, 1);
	assert_int_equal(uet_ses_stats_get(w.n[0].ses)->rdv_served, 1);
	assert_int_equal(uet_ses_stats_get(w.n[1].ses)->rdv_reads, 1);
	ses_fakewire_wr(&w, 0, &wr, UET_SES_WR_SEND, sbuf, 5000);
	wr.job = SFW_JOB + 1;
	wr.context = 2;
	assert_int_equal(uet_ses_submit(w.n[0].ses, &wr, &rc), -EOPNOTSUPP);
	assert_int_equal(rc, UET_RC_UNSUPPORTED_OP);
	assert_int_equal(uet_ses_stats_get(w.n[0].ses)->rdv_tx, 1);
	assert_true(ses_fakewire_run_idle(&w, RUN_NS));
	assert_int_equal(uet_ses_ri_del(w.n[0].mr, w.n[0].ri_rdv), 0);
}

/* Two processes on node 1 (uet_ses_config.match_of): a send to each
 * PIDonFEP lands in that process's receive context only, whatever the
 * other posted; a send names its own initiator (UET_SES_WR_F_SRC), which
 * the receive reports; a PIDonFEP without a receive context refuses,
 * and a datagram to it is dropped and counted (dgram_drop). */
static void
rx__context_per_pid(void **state)
{
	struct uet_ses_recv r;
	struct uet_ses_wr wr;
	uint32_t ncq1;

	(void)state;
	ses_fakewire_two_pids = true;
	reinit(UET_PROFILE_HPC, UINT32_MAX);
	ses_fakewire_two_pids = false;
	ses_fakewire_fill(sbuf, 6000, 17);
	memset(rbuf, 0xEE, 20000);
	/* process SFW_PID + 1 posts first; then SFW_PID */
	memset(&r, 0, sizeof(r));
	r.op = 1;
	r.context = 201;
	r.buf = rbuf + 10000;
	r.len = 6000;
	r.pid_on_fep = SFW_PID + 1;
	assert_int_equal(uet_ses_recv_post(w.n[1].ses, &r, w.now), 0);
	r.context = 200;
	r.buf = rbuf;
	r.pid_on_fep = SFW_PID;
	assert_int_equal(uet_ses_recv_post(w.n[1].ses, &r, w.now), 0);
	/* to SFW_PID (multi-packet), from initiator 555 */
	ses_fakewire_wr(&w, 0, &wr, UET_SES_WR_SEND, sbuf, 5000);
	wr.context = 1;
	wr.flags |= UET_SES_WR_F_SRC;
	wr.initiator = 555;
	wr.src_pid = SFW_PID;
	submit(&wr);
	assert_true(ses_fakewire_run_cq(&w, 1, 1, RUN_NS));
	assert_int_equal(w.n[1].cq[0].context, 200);
	assert_int_equal(w.n[1].cq[0].len, 5000);
	assert_int_equal(w.n[1].cq[0].src, 555);
	assert_memory_equal(rbuf, sbuf, 5000);
	assert_int_equal(rbuf[10000], 0xEE);
	/* to SFW_PID + 1 (one packet) */
	ses_fakewire_wr(&w, 0, &wr, UET_SES_WR_SEND, sbuf + 1, 700);
	wr.dest.pid_on_fep = SFW_PID + 1;
	wr.context = 2;
	submit(&wr);
	assert_true(ses_fakewire_run_cq(&w, 1, 2, RUN_NS));
	assert_int_equal(w.n[1].cq[1].context, 201);
	assert_int_equal(w.n[1].cq[1].len, 700);
	assert_int_equal(w.n[1].cq[1].src, 100);
	assert_memory_equal(rbuf + 10000, sbuf + 1, 700);
	/* cancel in the right context only */
	r.context = 202;
	r.pid_on_fep = SFW_PID + 1;
	assert_int_equal(uet_ses_recv_post(w.n[1].ses, &r, w.now), 0);
	assert_int_equal(uet_ses_recv_cancel_pid(w.n[1].ses, SFW_PID, 202),
			 -ENOENT);
	assert_int_equal(uet_ses_recv_cancel_pid(w.n[1].ses, SFW_PID + 1,
						 202), 0);
	/* no receive context for SFW_PID + 2 */
	r.pid_on_fep = SFW_PID + 2;
	assert_int_equal(uet_ses_recv_post(w.n[1].ses, &r, w.now), -ENOTSUP);
	assert_true(ses_fakewire_run_cq(&w, 0, 2, RUN_NS));
	check_send(1, 5000);
	check_send(2, 700);
	/* a datagram to SFW_PID + 2 (no process: as one sent before its
	 * endpoint exists) is dropped, and counted */
	assert_int_equal(uet_ses_stats_get(w.n[1].ses)->dgram_drop, 0);
	ncq1 = w.n[1].ncq;
	ses_fakewire_wr(&w, 0, &wr, UET_SES_WR_DGRAM_SEND, sbuf, 64);
	wr.dest.pid_on_fep = SFW_PID + 2;
	wr.context = 3;
	submit(&wr);
	assert_true(ses_fakewire_run_cq(&w, 0, 3, RUN_NS));
	assert_true(ses_fakewire_run_idle(&w, RUN_NS));
	assert_int_equal(w.n[1].ncq, ncq1);
	assert_int_equal(uet_ses_stats_get(w.n[1].ses)->dgram_drop, 1);
}

/* Profiles per process (uet_ses_config.profile_of): the nodes are HPC,
 * their process SFW_PID + 1 AI Full. A deferrable send between the AI
 * Full processes is deferred, restarted by the RTR of the receive and
 * lands byte-exact; the HPC process may not submit one, and one aimed
 * at it is refused UNSUPPORTED_OP by the target. */
static void
profile__per_process(void **state)
{
	enum uet_wire_ses_rc rc = UET_RC_OK;
	struct uet_ses_recv r;
	struct uet_ses_wr wr;

	(void)state;
	ses_fakewire_two_pids = true;
	ses_fakewire_pid2_profile = UET_PROFILE_AI_FULL;
	reinit(UET_PROFILE_HPC, UINT32_MAX);
	ses_fakewire_two_pids = false;
	ses_fakewire_pid2_profile = 0;
	ses_fakewire_fill(sbuf, 7000, 19);
	memset(rbuf, 0, 8000);
	ses_fakewire_wr(&w, 0, &wr, UET_SES_WR_SEND, sbuf, 7000);
	wr.flags |= UET_SES_WR_F_DEFERRABLE | UET_SES_WR_F_SRC;
	wr.src_pid = SFW_PID + 1;
	wr.initiator = 100;
	wr.dest.pid_on_fep = SFW_PID + 1;
	wr.context = 1;
	assert_int_equal(uet_ses_submit(w.n[0].ses, &wr, &rc), 0);
	wait_stat(&uet_ses_stats_get(w.n[0].ses)->defer_tx, 1);
	assert_int_equal(w.n[0].ncq, 0);
	memset(&r, 0, sizeof(r));
	r.op = 1;
	r.context = 300;
	r.buf = rbuf;
	r.len = 8000;
	r.pid_on_fep = SFW_PID + 1;
	assert_int_equal(uet_ses_recv_post(w.n[1].ses, &r, w.now), 0);
	assert_true(ses_fakewire_run_cq(&w, 0, 1, RUN_NS));
	assert_true(ses_fakewire_run_cq(&w, 1, 1, RUN_NS));
	check_send(1, 7000);
	assert_int_equal(cqe(1, 300)->len, 7000);
	assert_memory_equal(rbuf, sbuf, 7000);
	assert_int_equal(uet_ses_stats_get(w.n[1].ses)->rtr_tx, 1);
	assert_int_equal(uet_ses_stats_get(w.n[0].ses)->rtr_rx, 1);
	/* the HPC process cannot send deferrable */
	ses_fakewire_wr(&w, 0, &wr, UET_SES_WR_SEND, sbuf, 7000);
	wr.flags |= UET_SES_WR_F_DEFERRABLE;
	wr.context = 2;
	assert_int_equal(uet_ses_submit(w.n[0].ses, &wr, &rc), -EOPNOTSUPP);
	assert_int_equal(rc, UET_RC_UNSUPPORTED_OP);
	/* from the AI Full process to the HPC one: refused by the target */
	wr.flags |= UET_SES_WR_F_SRC;
	wr.src_pid = SFW_PID + 1;
	wr.initiator = 100;
	wr.context = 3;
	submit(&wr);
	assert_true(ses_fakewire_run_cq(&w, 0, 2, RUN_NS));
	assert_int_equal(cqe(0, 3)->prov_errno, UET_RC_UNSUPPORTED_OP);
}

/* ---- deferrable sends (AI Full) ---- */

static void
defer__restart_cancel_stale(void **state)
{
	static const uint32_t sizes[] = { 1, 700, 3 * SFW_MTU + 17, 100000 };
	const struct uet_ses_stats *st0, *st1;
	struct uet_ses_wr wr;
	uint32_t i, n = 4;

	(void)state;
	reinit(UET_PROFILE_AI_FULL, UINT32_MAX);
	lossy();
	ses_fakewire_fill(sbuf, BIG, 11);
	memset(rbuf, 0xEE, BIG);
	st0 = uet_ses_stats_get(w.n[0].ses);
	st1 = uet_ses_stats_get(w.n[1].ses);
	/* Expected: a receive is there; no defer. */
	post(1, 1, 200, rbuf, 5000, 0, 0);
	ses_fakewire_wr(&w, 0, &wr, UET_SES_WR_SEND, sbuf, 4000);
	wr.flags |= UET_SES_WR_F_DEFERRABLE;
	wr.context = 200;
	submit(&wr);
	assert_true(ses_fakewire_run_cq(&w, 0, 1, RUN_NS));
	assert_true(ses_fakewire_run_cq(&w, 1, 1, RUN_NS));
	check_send(200, 4000);
	assert_int_equal(cqe(1, 200)->len, 4000);
	assert_memory_equal(rbuf, sbuf, 4000);
	assert_int_equal(st0->defer_tx, 0);
	/* Unexpected: parked, then restarted by the receive's RTR. */
	for (i = 0; i < n; i++) {
		ses_fakewire_wr(&w, 0, &wr, UET_SES_WR_TSEND, sbuf + i * 1000, sizes[i]);
		wr.flags |= UET_SES_WR_F_DEFERRABLE;
		wr.tag = 10 + i;
		wr.context = 10 + i;
		submit(&wr);
	}
	/* And one to cancel. */
	ses_fakewire_wr(&w, 0, &wr, UET_SES_WR_TSEND, sbuf, 64);
	wr.flags |= UET_SES_WR_F_DEFERRABLE;
	wr.tag = 99;
	wr.context = 99;
	submit(&wr);
	wait_stat(&st0->defer_tx, n + 1);
	assert_int_equal(w.n[0].ncq, 1); /* nothing completed meanwhile */
	assert_int_equal(uet_ses_send_cancel(w.n[0].ses, 12345), -ENOENT);
	assert_int_equal(uet_ses_send_cancel(w.n[0].ses, 99), 0);
	assert_int_equal(cqe(0, 99)->status, -ECANCELED);
	assert_int_equal(cqe(0, 99)->prov_errno, UET_RC_CANCELLED);
	for (i = 0; i < n; i++)
		post(1, 2, 10 + i, rbuf + 200000 * (i + 1), sizes[i], 10 + i,
		     0);
	/* The cancelled send's receive: its RTR is answered CANCELLED. */
	post(1, 2, 99, rbuf + 100000, 64, 99, 0);
	assert_true(ses_fakewire_run_cq(&w, 0, n + 2, 10 * RUN_NS));
	assert_true(ses_fakewire_run_cq(&w, 1, n + 2, 10 * RUN_NS));
	for (i = 0; i < n; i++) {
		check_send(10 + i, sizes[i]);
		check_recv(1, 10 + i, sizes[i], 10 + i, false);
		assert_memory_equal(rbuf + 200000 * (i + 1), sbuf + i * 1000,
				    sizes[i]);
		assert_int_equal(rbuf[200000 * (i + 1) + sizes[i]], 0xEE);
	}
	assert_int_equal(cqe(1, 99)->status, -ECANCELED);
	assert_int_equal(cqe(1, 99)->prov_errno, UET_RC_CANCELLED);
	assert_int_equal(rbuf[100000], 0xEE);
	assert_int_equal(st0->send_cancel, 1);
	assert_int_equal(st0->rtr_rx, n);
	assert_int_equal(st0->rtr_stale, 1);
	assert_int_equal(st1->rtr_tx, n + 1);
	assert_true(ses_fakewire_run_idle(&w, 4 * RUN_NS));
	/* Nothing parked any more: cancel finds nothing. */
	assert_int_equal(uet_ses_send_cancel(w.n[0].ses, 10), -ENOENT);
}

/* ---- tagged atomics (HPC) ---- */

static void
tamo__exactly_once(void **state)
{
	static uint64_t one[200], fetched[200];
	uint64_t *slot = (uint64_t *)mem;
	struct uet_ses_wr wr;
	uint32_t i, n = 200;

	(void)state;
	for (i = 0; i < 2; i++) {
		w.f[i].drop = 100000;
		w.f[i].dup = 50000;
		w.f[i].reorder = 100000;
	}
	memset(mem, 0xAB, 4096);
	for (i = 0; i < n; i++) {
		slot[2 * i] = 1000 + i;
		one[i] = 5 + i;
		/* Each receive: 16 bytes; the atomic hits the second half
		 * for odd i (buffer_offset 8). */
		post(1, 2, 300 + i, &slot[2 * i] - (i % 2), 16, 300 + i, 0);
	}
	for (i = 0; i < n; i++) {
		ses_fakewire_wr(&w, 0, &wr, i % 4 < 2 ? UET_SES_WR_TSEND_FETCH_ATOMIC :
					     UET_SES_WR_TSEND_ATOMIC,
		       &one[i], 8);
		wr.atomic_op = UET_AMO_SUM;
		wr.atomic_dt = UET_AMO_DT_UINT64;
		wr.tag = 300 + i;
		wr.roffset = i % 2 ? 8 : 0;
		wr.result = &fetched[i];
		wr.context = 300 + i;
		submit(&wr);
	}
	assert_true(ses_fakewire_run_cq(&w, 0, n, 10 * RUN_NS));
	assert_true(ses_fakewire_run_cq(&w, 1, n, 10 * RUN_NS));
	for (i = 0; i < n; i++) {
		check_send(300 + i, 8);
		check_recv(1, 300 + i, 8, 300 + i, false);
		assert_int_equal(slot[2 * i], 1000 + i + 5 + i);
		if (i % 4 < 2)
			assert_int_equal(fetched[i], 1000 + i);
	}
	/* The other half of every receive untouched. */
	for (i = 0; i < n; i++)
		assert_int_equal(slot[2 * i + 1], 0xABABABABABABABABull);
	assert_true(retransmits(0) > 0);
	/* No receive: NO_MATCH; out of the receive: BAD_ADDR/TOO_LONG. */
	ses_fakewire_wr(&w, 0, &wr, UET_SES_WR_TSEND_ATOMIC, &one[0], 8);
	wr.atomic_op = UET_AMO_SUM;
	wr.atomic_dt = UET_AMO_DT_UINT64;
	wr.tag = 7777;
	assert_int_equal(rma_rc(&wr), UET_RC_NO_MATCH);
	post(1, 2, 7777, mem + 3000, 16, 7777, 0);
	wr.roffset = 12;
	assert_int_equal(rma_rc(&wr), UET_RC_TOO_LONG);
	assert_int_equal(cqe(1, 7777)->status, -EMSGSIZE);
	post(1, 2, 7778, mem + 3000, 16, 7777, 0);
	wr.roffset = 16;
	assert_int_equal(rma_rc(&wr), UET_RC_BAD_ADDR);
	assert_int_equal(cqe(1, 7778)->status, -EFAULT);
	assert_int_equal(mem[3000 + 16], 0xAB);
	assert_true(ses_fakewire_run_idle(&w, 4 * RUN_NS));
}

/* ---- FI_PEEK / FI_CLAIM / FI_DISCARD ---- */

static int
post_f(int node, uint64_t ctx, void *buf, uint64_t len, uint64_t tag,
       uint32_t flags)
{
	struct uet_ses_recv r;

	memset(&r, 0, sizeof(r));
	r.op = 2;
	r.flags = flags;
	r.context = ctx;
	r.buf = buf;
	r.len = len;
	r.tag = tag;
	return uet_ses_recv_post(w.n[node].ses, &r, w.now);
}

static void
peek__claim_discard(void **state)
{
	struct uet_ses_wr wr;
	const struct uet_ses_cqe *c;
	uint32_t i;

	(void)state;
	reinit(UET_PROFILE_HPC, 100000);
	lossy();
	ses_fakewire_fill(sbuf, BIG, 5);
	memset(rbuf, 0xEE, 65536);
	/* Tags 1..3 eager (3: multi-packet), 4 rendezvous (above 100000). */
	for (i = 1; i <= 4; i++) {
		ses_fakewire_wr(&w, 0, &wr, UET_SES_WR_TSEND, sbuf + i * 10,
		       i == 4 ? 200000 : i == 3 ? 5000 : 100 * i);
		wr.tag = i;
		wr.flags |= UET_SES_WR_F_IMM;
		wr.imm_data = 0xD0 + i;
		wr.context = i;
		submit(&wr);
	}
	/* The eager ones complete at once (unexpected, answered OK). */
	assert_true(ses_fakewire_run_cq(&w, 0, 3, RUN_NS));
	wait_stat(&uet_ses_match_stats_get(w.n[1].match)->unexp_stored, 4);
	assert_int_equal(post_f(1, 50, NULL, 0, 9, UET_SES_RECV_F_PEEK), 0);
	c = cqe(1, 50);
	assert_int_equal(c->status, -ENOMSG);
	/* Peek: header only, nothing consumed or copied. */
	assert_int_equal(post_f(1, 51, rbuf, 100, 2, UET_SES_RECV_F_PEEK), 0);
	c = cqe(1, 51);
	assert_int_equal(c->status, 0);
	assert_int_equal(c->len, 200);
	assert_int_equal(c->tag, 2);
	assert_int_equal(c->data, 0xD2);
	assert_true(c->flags & UET_SES_CQ_IMM);
	assert_int_equal(rbuf[0], 0xEE);
	/* Peek + claim tag 2; an ordinary receive cannot take it. */
	assert_int_equal(post_f(1, 52, NULL, 0, 2,
				UET_SES_RECV_F_PEEK | UET_SES_RECV_F_CLAIM), 0);
	assert_int_equal(cqe(1, 52)->len, 200);
	assert_int_equal(post_f(1, 53, rbuf + 1000, 300, 2, 0), 0);
	assert_int_equal(ses_fakewire_cq_find(&w, 1, 53), -1);
	assert_int_equal(post_f(1, 54, rbuf, 300, 2, UET_SES_RECV_F_CLAIM),
			 -ENOENT);
	assert_int_equal(post_f(1, 52, rbuf, 300, 2, UET_SES_RECV_F_CLAIM),
			 0);
	ses_fakewire_step(&w, 1000);
	c = cqe_last(1, 52);
	assert_int_equal(c->status, 0);
	assert_int_equal(c->len, 200);
	assert_memory_equal(rbuf, sbuf + 20, 200);
	assert_int_equal(rbuf[200], 0xEE);
	assert_int_equal(uet_ses_recv_cancel(w.n[1].ses, 53), 0);
	/* Peek + discard tag 1; multi-packet tag 3 claimed, then dropped. */
	assert_int_equal(post_f(1, 55, NULL, 0, 1,
				UET_SES_RECV_F_PEEK | UET_SES_RECV_F_DISCARD),
			 0);
	assert_int_equal(cqe(1, 55)->len, 0);
	assert_int_equal(post_f(1, 56, NULL, 0, 3,
				UET_SES_RECV_F_PEEK | UET_SES_RECV_F_CLAIM), 0);
	assert_int_equal(cqe(1, 56)->len, 5000);
	assert_int_equal(post_f(1, 56, NULL, 0, 3,
				UET_SES_RECV_F_CLAIM | UET_SES_RECV_F_DISCARD),
			 0);
	/* Rendezvous tag 4 discarded: its sender is released anyway. */
	assert_int_equal(post_f(1, 57, NULL, 0, 4,
				UET_SES_RECV_F_PEEK | UET_SES_RECV_F_DISCARD),
			 0);
	assert_true(ses_fakewire_run_cq(&w, 0, 4, RUN_NS));
	check_send(4, 200000);
	/* Nothing of them is left: a peek of each tag finds nothing. */
	for (i = 1; i <= 4; i++) {
		assert_int_equal(post_f(1, 60 + i, NULL, 0, i,
					UET_SES_RECV_F_PEEK), 0);
		assert_int_equal(cqe(1, 60 + i)->status, -ENOMSG);
	}
	assert_int_equal(post_f(1, 70, NULL, 0, 1, UET_SES_RECV_F_DISCARD),
			 -EINVAL);
	assert_int_equal(post_f(1, 70, NULL, 0, 1, 0x8000), -EINVAL);
	for (i = 200; i < 2000; i++)
		assert_int_equal(rbuf[i], 0xEE);
	assert_int_equal(cqe_last(1, 56)->len, 0);
	assert_int_equal(cqe_last(1, 56)->status, 0);
	assert_int_equal(cqe(1, 57)->len, 0);
	assert_true(ses_fakewire_run_idle(&w, 4 * RUN_NS));
}

/*
 * Exactly once across a target restart (docs/WIRE-DECISIONS.md "A SYN
 * that reaches a restarted target"): node 0 opens a PDC to node 1 with an
 * eager send and an atomic in its SYN burst; copies of that burst stay in
 * the network while both complete, node 1 restarts (same address, same
 * memory key, a receive posted), and the copies arrive. The restarted
 * target, in its quiet time (on in the fake wire's restarted nodes, off
 * by default), refuses them with NACK
 * NEW_START_PSN: the atomic does not run a second time and the send is
 * not received again. With the quiet time off both were.
 */
/* An optimized key (O=1, index 7) on @p node: the same after a restart. */
static uint64_t
restart_mr(int node)
{
	struct uet_ses_mr_attr a = {
		.ri = w.n[node].ri_rma, .base = (uintptr_t)mem, .length = 4096,
		.access = UET_SES_MR_REMOTE_ATOMIC, .optimized = true,
		.opt_index = 7,
	};
	uint64_t key = 0;

	assert_int_equal(uet_ses_mr_reg(w.n[node].mr, &a, &key), 0);
	return key;
}

static void
restart__syn_sent_before_runs_once(void **state)
{
	static struct ses_fakewire_pkt copy[8];
	uint64_t key, key2, one = 1, *t = (uint64_t *)mem;
	struct uet_ses_wr wr;
	uint32_t n, i;

	(void)state;
	key = restart_mr(1);
	memset(mem, 0, 64);
	post(1, 2, 77, rbuf, 200, 5, 0);
	ses_fakewire_fill(sbuf, 100, 3);
	ses_fakewire_wr(&w, 0, &wr, UET_SES_WR_TSEND, sbuf, 100);
	wr.tag = 5;
	wr.context = 1;
	submit(&wr);
	ses_fakewire_wr(&w, 0, &wr, UET_SES_WR_ATOMIC, &one, 8);
	wr.atomic_op = UET_AMO_SUM;
	wr.atomic_dt = UET_AMO_DT_UINT64;
	wr.rkey = key;
	wr.context = 2;
	submit(&wr);
	ses_fakewire_step(&w, 1); /* on the wire, not arrived */
	n = w.nq[0];
	assert_int_equal(n, 2);
	memcpy(copy, w.q[0], n * sizeof(copy[0]));
	assert_true(ses_fakewire_run_cq(&w, 0, 2, RUN_NS));
	assert_int_equal(cqe(0, 1)->status, 0);
	assert_int_equal(cqe(0, 2)->status, 0);
	assert_int_equal(cqe(1, 77)->status, 0);
	assert_int_equal(t[0], 1);
	assert_int_equal(ses_fakewire_restart(&w, 1), 0);
	key2 = restart_mr(1);
	assert_int_equal(key2, key); /* the copy's key names the memory */
	post(1, 2, 78, rbuf + 1000, 200, 5, 0);
	for (i = 0; i < n; i++) {
		copy[i].at = w.now;
		w.q[0][w.nq[0]++] = copy[i];
	}
	assert_true(ses_fakewire_run_idle(&w, RUN_NS));
	assert_int_equal(t[0], 1);
	assert_int_equal(ses_fakewire_cq_find(&w, 1, 78), -1);
	/* the first refused by the quiet time, the rest by its record */
	assert_int_equal(uet_pds_stats_get(w.n[1].pds)->syn_forgot, 1);
	assert_int_equal(uet_pds_stats_get(w.n[1].pds)->syn_refused, n - 1);
	assert_int_equal(uet_pds_stats_get(w.n[1].pds)->pdc_open_tgt, 0);
}

/* The runs below again, every request handed to the SES in two pieces
 * (ses_fakewire_split: the chained frame of zero-copy transmit). */
static int
setup_split(void **state)
{
	ses_fakewire_split = true;
	return setup(state);
}

static int
teardown_split(void **state)
{
	uint64_t pieces = 0;
	int i;

	for (i = 0; i < 2; i++)
		pieces += uet_ses_stats_get(w.n[i].ses)->rx_split +
			  uet_ses_stats_get(w.n[i].ses)->rx_flat;
	ses_fakewire_split = false;
	teardown(state);
	if (pieces == 0) {
		print_error("no request was placed from two pieces\n");
		return -1;
	}
	return 0;
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(send_sizes__rud_lossy, setup,
						teardown),
		cmocka_unit_test_setup_teardown(send_sizes__rod_lossy, setup,
						teardown),
		cmocka_unit_test_setup_teardown(
			tagged__unexpected_then_wildcard, setup, teardown),
		cmocka_unit_test_setup_teardown(send__truncated_and_flow_controlled,
						setup, teardown),
		cmocka_unit_test_setup_teardown(recv__multi_offsets, setup,
						teardown),
		cmocka_unit_test_setup_teardown(dgram__uud, setup, teardown),
		cmocka_unit_test_setup_teardown(write_read__lossy, setup,
						teardown),
		cmocka_unit_test_setup_teardown(
			read__return_data_matched_per_pdc, setup, teardown),
		cmocka_unit_test_setup_teardown(resp_gtd__only_when_needed,
						setup, teardown),
		cmocka_unit_test_setup_teardown(read_multi__exactly_once_e2e,
						setup, teardown),
		cmocka_unit_test_setup_teardown(atomics__exactly_once, setup,
						teardown),
		cmocka_unit_test_setup_teardown(rdv__sizes_expected_unexpected,
						setup, teardown),
		cmocka_unit_test_setup_teardown(rdv__table_per_job, setup,
						teardown),
		cmocka_unit_test_setup_teardown(rx__context_per_pid, setup,
						teardown),
		cmocka_unit_test_setup_teardown(remote__events, setup,
						teardown),
		cmocka_unit_test_setup_teardown(profile__per_process, setup,
						teardown),
		cmocka_unit_test_setup_teardown(rdv__key_revoked, setup,
						teardown),
		cmocka_unit_test_setup_teardown(defer__restart_cancel_stale,
						setup, teardown),
		cmocka_unit_test_setup_teardown(tamo__exactly_once, setup,
						teardown),
		cmocka_unit_test_setup_teardown(peek__claim_discard, setup,
						teardown),
		cmocka_unit_test_setup_teardown(auth__every_failure, setup,
						teardown),
		cmocka_unit_test_setup_teardown(restart__syn_sent_before_runs_once,
						setup, teardown),
	};
	const struct CMUnitTest split[] = {
		cmocka_unit_test_setup_teardown(send_sizes__rud_lossy,
						setup_split, teardown_split),
		cmocka_unit_test_setup_teardown(send_sizes__rod_lossy,
						setup_split, teardown_split),
		cmocka_unit_test_setup_teardown(
			tagged__unexpected_then_wildcard, setup_split,
			teardown_split),
		cmocka_unit_test_setup_teardown(send__truncated_and_flow_controlled,
						setup_split, teardown_split),
		cmocka_unit_test_setup_teardown(recv__multi_offsets,
						setup_split, teardown_split),
		cmocka_unit_test_setup_teardown(write_read__lossy, setup_split,
						teardown_split),
		cmocka_unit_test_setup_teardown(atomics__exactly_once,
						setup_split, teardown_split),
		cmocka_unit_test_setup_teardown(rdv__sizes_expected_unexpected,
						setup_split, teardown_split),
		cmocka_unit_test_setup_teardown(tamo__exactly_once, setup_split,
						teardown_split),
		cmocka_unit_test_setup_teardown(peek__claim_discard,
						setup_split, teardown_split),
	};
	const char *s = getenv("UET_TEST_SEED");
	int rc;

	if (s != NULL)
		seed = strtoull(s, NULL, 0);
	printf("# seed 0x%llx\n", (unsigned long long)seed);
	rc = cmocka_run_group_tests(tests, NULL, NULL);
	return rc + cmocka_run_group_tests_name("split", split, NULL, NULL);
}
