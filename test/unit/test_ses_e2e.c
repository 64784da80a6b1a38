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

static void
fill(uint8_t *b, size_t n, uint64_t salt)
{
	uint64_t x = salt * 0x9E3779B97F4A7C15ull + 1;
	size_t i;

	for (i = 0; i < n; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		b[i] = (uint8_t)x;
	}
}

static int
setup(void **state)
{
	(void)state;
	if (sfw_init(&w, UET_PROFILE_HPC, seed) != 0)
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
	sfw_fini(&w);
	free(sbuf);
	free(rbuf);
	free(mem);
	return 0;
}

static const struct uet_ses_cqe *
cqe(int node, uint64_t ctx)
{
	int i = sfw_cq_find(&w, node, ctx);

	assert_true(i >= 0);
	return &w.n[node].cq[i];
}

static uint64_t
retransmits(int node)
{
	const struct uet_pds_stats *st = uet_pds_stats_get(w.n[node].pds);

	return st->retx_sack + st->retx_nack + st->retx_rto;
}

static void
post(int node, uint8_t op, uint64_t ctx, void *buf, uint64_t len,
     uint64_t tag, uint64_t ignore)
{
	struct uet_ses_recv r;

	memset(&r, 0, sizeof(r));
	r.op = op;
	r.context = ctx;
	r.buf = buf;
	r.len = len;
	r.tag = tag;
	r.ignore = ignore;
	assert_int_equal(uet_ses_recv_post(w.n[node].ses, &r, w.now), 0);
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
	fill(sbuf, BIG, 1);
	/* Receives first: each message lands in its own slice of rbuf. */
	for (i = 0; i < n; i++) {
		post(1, ordered ? 1 : 2, 1000 + i, rbuf + off, sizes[i], i, 0);
		off += sizes[i];
	}
	assert_true(off <= BIG + 65536);
	for (i = 0; i < n; i++) {
		sfw_wr(&w, 0, &wr, ordered ? UET_SES_WR_SEND :
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
	assert_true(sfw_run_cq(&w, 0, (uint32_t)n, RUN_NS));
	assert_true(sfw_run_cq(&w, 1, (uint32_t)n, RUN_NS));
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
	assert_true(sfw_run_idle(&w, RUN_NS));
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
	fill(sbuf, BIG, 2);
	for (i = 0; i < 3; i++) {
		sfw_wr(&w, 0, &wr, UET_SES_WR_TSEND, sbuf + i * 100, sizes[i]);
		wr.tag = 0x7700 + i;
		wr.context = i + 1;
		wr.flags |= UET_SES_WR_F_ORDERED; /* MPI order needs ROD */
		submit(&wr);
	}
	/* All three arrive unexpected (and are acknowledged OVERFLOW). */
	assert_true(sfw_run_cq(&w, 0, 3, RUN_NS));
	for (i = 0; i < 3; i++)
		assert_int_equal(cqe(0, i + 1)->status, 0);
	assert_int_equal(w.n[1].ncq, 0);
	/* Wildcard receives: ignore the low byte; arrival order kept. */
	for (i = 0; i < 3; i++) {
		post(1, 2, 2000 + i, rbuf + off, 65536, 0x7700, 0xff);
		off += 65536;
	}
	assert_true(sfw_run_cq(&w, 1, 3, RUN_NS));
	for (i = 0; i < 3; i++) {
		const struct uet_ses_cqe *c = cqe(1, 2000 + i);

		assert_int_equal(c->status, 0);
		assert_int_equal(c->tag, 0x7700 + i);
		assert_int_equal(c->len, sizes[i]);
		assert_true(c->flags & UET_SES_CQ_TAGGED);
		assert_memory_equal(rbuf + i * 65536, sbuf + i * 100, sizes[i]);
	}
	assert_true(sfw_run_idle(&w, RUN_NS));
}

static void
send__truncated_and_no_match(void **state)
{
	struct uet_ses_wr wr;

	(void)state;
	fill(sbuf, 8192, 3);
	post(1, 1, 7, rbuf, 100, 0, 0);
	sfw_wr(&w, 0, &wr, UET_SES_WR_SEND, sbuf, 5000);
	wr.context = 1;
	submit(&wr);
	assert_true(sfw_run_cq(&w, 0, 1, RUN_NS));
	assert_int_equal(cqe(0, 1)->status, 0);
	assert_true(sfw_run_cq(&w, 1, 1, RUN_NS));
	assert_true(cqe(1, 7)->flags & UET_SES_CQ_TRUNC);
	assert_int_equal(cqe(1, 7)->len, 100);
	assert_int_equal(cqe(1, 7)->olen, 4900);
	assert_memory_equal(rbuf, sbuf, 100);
	/* Larger than the unexpected pool (4 MiB): NO_MATCH, no OOM. */
	sfw_wr(&w, 0, &wr, UET_SES_WR_SEND, sbuf, 8192);
	wr.context = 2;
	wr.len = 5u << 20;
	wr.buf = calloc(1, wr.len);
	submit(&wr);
	assert_true(sfw_run_cq(&w, 0, 2, 4 * RUN_NS));
	assert_int_equal(cqe(0, 2)->prov_errno, UET_RC_NO_MATCH);
	assert_int_equal(cqe(0, 2)->status, -EAGAIN);
	free(wr.buf);
	assert_true(sfw_run_idle(&w, RUN_NS));
}

static void
dgram__uud(void **state)
{
	struct uet_ses_wr wr;

	(void)state;
	fill(sbuf, 64, 4);
	post(1, 1, 9, rbuf, 64, 0, 0);
	sfw_wr(&w, 0, &wr, UET_SES_WR_DGRAM_SEND, sbuf, 64);
	wr.context = 1;
	submit(&wr);
	assert_true(sfw_run_cq(&w, 1, 1, RUN_NS));
	assert_memory_equal(rbuf, sbuf, 64);
	assert_true(sfw_run_cq(&w, 0, 1, RUN_NS));
	assert_int_equal(cqe(0, 1)->status, 0);
}

/* ---- RMA ---- */

static void
write_read__lossy(void **state)
{
	uint32_t acc = UET_SES_MR_REMOTE_READ | UET_SES_MR_REMOTE_WRITE;
	uint64_t key = sfw_mr(&w, 1, mem, 1 << 16, acc, true);
	static uint8_t back[9000], small[20];
	struct uet_ses_wr wr;

	(void)state;
	assert_true(key != 0);
	lossy();
	fill(sbuf, 9000, 5);
	sfw_wr(&w, 0, &wr, UET_SES_WR_WRITE, sbuf, 9000);
	wr.rkey = key;
	wr.roffset = 100;
	wr.context = 1;
	wr.flags |= UET_SES_WR_F_IMM;
	wr.imm_data = 55;
	submit(&wr);
	assert_true(sfw_run_cq(&w, 0, 1, RUN_NS));
	assert_int_equal(cqe(0, 1)->status, 0);
	assert_memory_equal(mem + 100, sbuf, 9000);
	assert_int_equal(mem[99], 0);
	assert_int_equal(mem[9100], 0);
	/* Large read (return-direction RESPONSE_DATA) and small read. */
	sfw_wr(&w, 0, &wr, UET_SES_WR_READ, back, 9000);
	wr.rkey = key;
	wr.roffset = 100;
	wr.context = 2;
	submit(&wr);
	sfw_wr(&w, 0, &wr, UET_SES_WR_READ, small, 20);
	wr.rkey = key;
	wr.roffset = 200;
	wr.context = 3;
	submit(&wr);
	assert_true(sfw_run_cq(&w, 0, 3, RUN_NS));
	assert_int_equal(cqe(0, 2)->status, 0);
	assert_int_equal(cqe(0, 3)->status, 0);
	assert_memory_equal(back, sbuf, 9000);
	assert_memory_equal(small, sbuf + 100, 20);
	/* RUDI write (HPC, I=1 key): idempotent, at-least-once. */
	sfw_wr(&w, 0, &wr, UET_SES_WR_WRITE, sbuf + 1, 3000);
	wr.rkey = key;
	wr.roffset = 20000;
	wr.context = 4;
	wr.flags |= UET_SES_WR_F_IDEMPOTENT;
	submit(&wr);
	assert_true(sfw_run_cq(&w, 0, 4, RUN_NS));
	assert_int_equal(cqe(0, 4)->status, 0);
	assert_memory_equal(mem + 20000, sbuf + 1, 3000);
	assert_true(sfw_run_idle(&w, RUN_NS));
}

/* ---- atomics ---- */

static void
atomics__exactly_once(void **state)
{
	uint64_t key = sfw_mr(&w, 1, mem, 4096,
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
		sfw_wr(&w, 0, &wr, i % 2 ? UET_SES_WR_FETCH_ATOMIC :
				     UET_SES_WR_ATOMIC, &one, 8);
		wr.atomic_op = UET_AMO_SUM;
		wr.atomic_dt = UET_AMO_DT_UINT64;
		wr.rkey = key;
		wr.context = i + 1;
		wr.result = &fetched[i];
		submit(&wr);
	}
	assert_true(sfw_run_cq(&w, 0, n, 10 * RUN_NS));
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
	sfw_wr(&w, 0, &wr, UET_SES_WR_CSWAP, &swp, 8);
	wr.atomic_op = UET_AMO_CSWAP;
	wr.atomic_dt = UET_AMO_DT_UINT64;
	wr.rkey = key;
	wr.compare = &cmp;
	wr.result = &old;
	wr.context = 5000;
	submit(&wr);
	assert_true(sfw_run_cq(&w, 0, n + 1, RUN_NS));
	assert_int_equal(cqe(0, 5000)->status, 0);
	assert_int_equal(old, 1000);
	assert_int_equal(t[0], 77);
	assert_true(sfw_run_idle(&w, 4 * RUN_NS));
}

/* ---- authorization failures, each with its exact return code ---- */

static uint8_t
rma_rc(struct uet_ses_wr *wr)
{
	static uint64_t ctx = 10000;
	uint32_t before = w.n[0].ncq;

	wr->context = ++ctx;
	submit(wr);
	assert_true(sfw_run_cq(&w, 0, before + 1, RUN_NS));
	if (cqe(0, ctx)->status == 0)
		print_error("context %llu completed OK\n",
			    (unsigned long long)ctx);
	assert_true(cqe(0, ctx)->status != 0);
	return (uint8_t)cqe(0, ctx)->prov_errno;
}

static void
auth__every_failure(void **state)
{
	uint64_t key = sfw_mr(&w, 1, mem, 4096, UET_SES_MR_REMOTE_WRITE, false);
	uint64_t rkey = sfw_mr(&w, 1, mem, 4096, UET_SES_MR_REMOTE_READ, false);
	struct uet_ses_wr wr, base;

	(void)state;
	lossy();
	sfw_wr(&w, 0, &base, UET_SES_WR_WRITE, sbuf, 64);
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
	sfw_wr(&w, 0, &wr, UET_SES_WR_SEND, sbuf, 10);
	wr.dest.resource_index = SFW_RI_RMA;
	assert_int_equal(rma_rc(&wr), UET_RC_OP_VIOLATION);
	/* Atomic datatype/op errors come from the atomic engine. */
	sfw_wr(&w, 0, &wr, UET_SES_WR_ATOMIC, sbuf, 4);
	wr.atomic_op = UET_AMO_BAND;
	wr.atomic_dt = UET_AMO_DT_FLOAT;
	wr.rkey = sfw_mr(&w, 1, mem, 4096, UET_SES_MR_REMOTE_ATOMIC, false);
	assert_int_equal(rma_rc(&wr), UET_RC_AMO_UNSUPPORTED_OP);
	wr.atomic_op = UET_AMO_SUM;
	wr.roffset = 2;
	assert_int_equal(rma_rc(&wr), UET_RC_AMO_UNALIGNED);
	assert_true(sfw_run_idle(&w, RUN_NS));
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
		cmocka_unit_test_setup_teardown(send__truncated_and_no_match,
						setup, teardown),
		cmocka_unit_test_setup_teardown(dgram__uud, setup, teardown),
		cmocka_unit_test_setup_teardown(write_read__lossy, setup,
						teardown),
		cmocka_unit_test_setup_teardown(atomics__exactly_once, setup,
						teardown),
		cmocka_unit_test_setup_teardown(auth__every_failure, setup,
						teardown),
	};
	const char *s = getenv("UET_TEST_SEED");

	if (s != NULL)
		seed = strtoull(s, NULL, 0);
	printf("# seed 0x%llx\n", (unsigned long long)seed);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
