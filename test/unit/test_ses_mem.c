/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Memory entries of another process (src/ses/ses_mem.c): two SES stacks
 * over the fake wire (ses_fakewire.h), node 1's entries registered with an
 * owner, reached through a fake accessor (uet_ses_config.mem_ops) that
 * serves a static array standing for the owner's memory, counts its calls
 * and fails on demand. Checked: every access path of an entry goes through
 * it (WRITE, small and large READ including rebuilt return-direction
 * packets, atomics), accessor errors become the right UET return code at
 * the initiator and a counter, nothing partial is reported as done, and
 * entries of owner 0 never reach the accessor.
 */

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <errno.h>
#include <string.h>
#include <cmocka.h>

#include <uet/uet_ses.h>
#include <uet/uet_ses_amo.h>

#include "ses_fakewire.h"

#define RUN_NS (2000ull * 1000 * 1000) /* 2 s of fake time */
#define FAR_LEN 65536
#define OWNER 4242
#define ACC (UET_SES_MR_REMOTE_READ | UET_SES_MR_REMOTE_WRITE | \
	     UET_SES_MR_REMOTE_ATOMIC)

/* The owner's memory, as the fake accessor sees it. */
static _Alignas(64) uint8_t omem[FAR_LEN];
/* Node 1's own memory (owner 0 entries). */
static _Alignas(64) uint8_t lmem[FAR_LEN];
static uint8_t sbuf[FAR_LEN], back[FAR_LEN];
static struct sfw w;

struct fake_mem {
	unsigned int reads;
	unsigned int writes;
	unsigned int calls;     /* reads + writes */
	pid_t bad_owner;        /* an owner other than OWNER was asked */
	bool outside;           /* an address outside omem[] was asked */
	int err;                /* fail with this (0: succeed) ... */
	unsigned int fail_at;   /* ... at call number fail_at (0: every) */
	size_t partial;         /* a failing write first writes this much */
};

static struct fake_mem fm;

static bool
fake_range(pid_t owner, uintptr_t a, size_t n)
{
	if (owner != OWNER)
		fm.bad_owner = owner;
	if (a < (uintptr_t)omem || n > FAR_LEN ||
	    a - (uintptr_t)omem > FAR_LEN - n) {
		fm.outside = true;
		return false;
	}
	return true;
}

static bool
fake_fails(void)
{
	fm.calls++;
	return fm.err != 0 && (fm.fail_at == 0 || fm.fail_at == fm.calls);
}

static int
fake_read(void *arg, pid_t owner, void *dst, uintptr_t src, size_t n)
{
	(void)arg;
	fm.reads++;
	if (!fake_range(owner, src, n))
		return -EFAULT;
	if (fake_fails())
		return fm.err;
	memcpy(dst, (const void *)src, n);
	return 0;
}

static int
fake_write(void *arg, pid_t owner, uintptr_t dst, const void *src, size_t n)
{
	(void)arg;
	fm.writes++;
	if (!fake_range(owner, dst, n))
		return -EFAULT;
	if (fake_fails()) {
		memcpy((void *)dst, src, fm.partial < n ? fm.partial : n);
		return fm.err;
	}
	memcpy((void *)dst, src, n);
	return 0;
}

static const struct uet_ses_mem_ops fake_ops = {
	.read = fake_read,
	.write = fake_write,
};

static int
setup_with(const struct uet_ses_mem_ops *ops)
{
	memset(&fm, 0, sizeof(fm));
	memset(omem, 0, sizeof(omem));
	memset(lmem, 0, sizeof(lmem));
	ses_fakewire_mem_ops = ops;
	return ses_fakewire_init(&w, UET_PROFILE_HPC, 7);
}

static int
setup(void **state)
{
	(void)state;
	return setup_with(&fake_ops);
}

/* Without an accessor: owner entries are unreachable. */
static int
setup_none(void **state)
{
	(void)state;
	return setup_with(NULL);
}

static int
teardown(void **state)
{
	(void)state;
	ses_fakewire_fini(&w);
	ses_fakewire_mem_ops = NULL;
	return 0;
}

static void
lossy(void)
{
	for (int d = 0; d < 2; d++) {
		w.f[d].drop = 50000;
		w.f[d].dup = 20000;
		w.f[d].reorder = 100000;
	}
}

static void
fill(uint8_t *b, size_t n, unsigned int salt)
{
	for (size_t i = 0; i < n; i++)
		b[i] = (uint8_t)(i * 31 + salt + (i >> 9));
}

/* An entry on node 1 over @p base, of @p owner, host addresses. */
static uint64_t
reg_owner(void *base, uint64_t len, pid_t owner)
{
	struct uet_ses_mr_attr a = {
		.ri = w.n[1].ri_rma, .base = (uintptr_t)base, .length = len,
		.access = ACC, .virt_addr = true, .owner = owner,
	};
	uint64_t key = 0;

	assert_int_equal(uet_ses_mr_reg(w.n[1].mr, &a, &key), 0);
	assert_int_equal(uet_ses_mr_lookup(w.n[1].mr, key)->owner, owner);
	return key;
}

static const struct uet_ses_stats *
tst(void)
{
	return uet_ses_stats_get(w.n[1].ses);
}

static const struct uet_ses_cqe *
cqe(uint64_t ctx)
{
	const struct uet_ses_cqe *c = ses_fakewire_cqe(&w, 0, ctx);

	assert_non_null(c);
	return c;
}

/* Run one RMA work request from node 0 to completion; its CQE. */
static const struct uet_ses_cqe *
run(struct uet_ses_wr *wr, uint64_t ctx)
{
	wr->context = ctx;
	assert_int_equal(uet_ses_submit(w.n[0].ses, wr, NULL), 0);
	assert_true(ses_fakewire_run_cq(&w, 0, w.n[0].ncq + 1, RUN_NS));
	return cqe(ctx);
}

static const struct uet_ses_cqe *
rma(uint8_t op, void *buf, uint64_t len, uint64_t key, uintptr_t raddr,
    uint64_t ctx)
{
	struct uet_ses_wr wr;

	ses_fakewire_wr(&w, 0, &wr, op, buf, len);
	wr.rkey = key;
	wr.roffset = raddr;
	return run(&wr, ctx);
}

static const struct uet_ses_cqe *
amo(uint8_t op, uint8_t aop, void *buf, uint64_t key, uintptr_t raddr,
    const void *cmp, void *result, uint64_t ctx)
{
	struct uet_ses_wr wr;

	ses_fakewire_wr(&w, 0, &wr, op, buf, 8);
	wr.atomic_op = aop;
	wr.atomic_dt = UET_AMO_DT_UINT64;
	wr.rkey = key;
	wr.roffset = raddr;
	wr.compare = cmp;
	wr.result = result;
	return run(&wr, ctx);
}

/* Lose the first transmission of every other return-direction READ
 * packet of node 1: their retransmissions are rebuilt from memory. */
static unsigned int ndrop;

static bool
drop_ret(struct sfw *fw, int from, const struct uet_pds_tx *t)
{
	(void)fw;
	if (from != 1 || t->kind != UET_PDS_TX_NEW ||
	    t->cookie >> 62 != 1 || (t->cookie & 1) != 0)
		return false;
	ndrop++;
	return true;
}

static void
no_stray_access(void)
{
	assert_false(fm.outside);
	assert_int_equal(fm.bad_owner, 0);
}

/*
 * WRITE (multi-packet), large READ (return direction) and small READ
 * (in the ACK) of an entry of another process, under loss: every byte
 * goes through the accessor, return-direction packets rebuilt for
 * retransmissions read the owner's memory again.
 */
static void
rma__other_owner_through_accessor(void **state)
{
	uint64_t key = reg_owner(omem, FAR_LEN, OWNER);
	const struct uet_ses_cqe *c;
	static uint8_t small[40];

	(void)state;
	lossy();
	fill(sbuf, 20000, 3);
	c = rma(UET_SES_WR_WRITE, sbuf, 20000, key, (uintptr_t)omem + 100, 1);
	assert_int_equal(c->status, 0);
	assert_memory_equal(omem + 100, sbuf, 20000);
	assert_int_equal(omem[99], 0);
	assert_int_equal(omem[20100], 0);
	assert_true(fm.writes >= 20000 / SFW_MTU);
	assert_int_equal(tst()->mem_wr, fm.writes);
	w.drop_fn = drop_ret;
	c = rma(UET_SES_WR_READ, back, 20000, key, (uintptr_t)omem + 100, 2);
	w.drop_fn = NULL;
	assert_int_equal(c->status, 0);
	assert_memory_equal(back, sbuf, 20000);
	c = rma(UET_SES_WR_READ, small, sizeof(small), key,
		(uintptr_t)omem + 500, 3);
	assert_int_equal(c->status, 0);
	assert_memory_equal(small, sbuf + 400, sizeof(small));
	assert_true(ses_fakewire_run_idle(&w, RUN_NS));
	/* one read per built return-direction packet (first builds and
	 * rebuilds for retransmissions) plus the small READ */
	assert_int_equal(tst()->mem_rd, fm.reads);
	assert_true(ndrop > 0);
	assert_true(fm.reads >= tst()->ret_tx + ndrop + 1);
	assert_int_equal(tst()->mem_err, 0);
	assert_int_equal(lmem[0], 0);
	no_stray_access();
}

/* Atomics: read, compute locally, write back only what changed. */
static void
atomic__other_owner_fetch_modify_write(void **state)
{
	uint64_t key = reg_owner(omem, FAR_LEN, OWNER);
	uint64_t one = 1, old = 0, cmp, swp = 77, v;
	unsigned int wr0;
	const struct uet_ses_cqe *c;

	(void)state;
	v = 10;
	memcpy(omem + 64, &v, 8);
	c = amo(UET_SES_WR_ATOMIC, UET_AMO_SUM, &one, key,
		(uintptr_t)omem + 64, NULL, NULL, 1);
	assert_int_equal(c->status, 0);
	c = amo(UET_SES_WR_FETCH_ATOMIC, UET_AMO_SUM, &one, key,
		(uintptr_t)omem + 64, NULL, &old, 2);
	assert_int_equal(c->status, 0);
	assert_int_equal(old, 11);
	memcpy(&v, omem + 64, 8);
	assert_int_equal(v, 12);
	assert_int_equal(fm.reads, 2);
	assert_int_equal(fm.writes, 2);
	/* A failed compare-and-swap reads and writes nothing back. */
	cmp = 5;
	wr0 = fm.writes;
	c = amo(UET_SES_WR_CSWAP, UET_AMO_CSWAP, &swp, key,
		(uintptr_t)omem + 64, &cmp, &old, 3);
	assert_int_equal(c->status, 0);
	assert_int_equal(old, 12);
	assert_int_equal(fm.writes, wr0);
	cmp = 12;
	c = amo(UET_SES_WR_CSWAP, UET_AMO_CSWAP, &swp, key,
		(uintptr_t)omem + 64, &cmp, &old, 4);
	assert_int_equal(c->status, 0);
	memcpy(&v, omem + 64, 8);
	assert_int_equal(v, 77);
	assert_int_equal(fm.writes, wr0 + 1);
	/* Alignment is that of the owner's address. */
	c = amo(UET_SES_WR_ATOMIC, UET_AMO_SUM, &one, key,
		(uintptr_t)omem + 66, NULL, NULL, 5);
	assert_int_equal(c->prov_errno, UET_RC_AMO_UNALIGNED);
	no_stray_access();
}

/*
 * A cpu-coherent atomic (semantic_control) cannot be coherent with the
 * owner's CPU through cross-memory attach: refused, memory untouched.
 */
static void
atomic__coherent_refused(void **state)
{
	uint64_t key = reg_owner(omem, FAR_LEN, OWNER);
	static uint8_t pl[SFW_MTU + 256];
	struct uet_pds_event ev;
	struct uet_wire_ses_req h;
	uint64_t one = 1, rc0;
	int n;

	(void)state;
	memset(&h, 0, sizeof(h));
	h.opcode = UET_SES_OP_ATOMIC;
	h.version = UET_SES_VERSION;
	h.flags = UET_SES_F_SOM | UET_SES_F_EOM | UET_SES_F_REL;
	h.job_id = SFW_JOB;
	h.pid_on_fep = SFW_PID;
	h.resource_index = SFW_RI_RMA;
	h.request_length = 8;
	h.match_bits = key;
	h.buffer_offset = (uintptr_t)omem + 8;
	h.atomic.op = UET_AMO_SUM;
	h.atomic.datatype = UET_AMO_DT_UINT64;
	h.atomic.semantic_control = UET_SES_AMO_SC_CPU_COHERENT;
	h.ext = uet_wire_ses_req_ext_needed(&h);
	n = uet_wire_ses_req_encode(&h, UET_SES_FMT_STD, pl, sizeof(pl));
	assert_true(n > 0);
	memcpy(pl + n, &one, 8);
	memset(&ev, 0, sizeof(ev));
	ev.type = UET_PDS_EV_DELIVER;
	ev.mode = UET_PDS_MODE_RUD;
	ev.next_hdr = (uint8_t)uet_wire_ses_fmt_to_next_hdr(UET_SES_FMT_STD);
	ev.pdc = 7;
	ev.psn = 1;
	ev.peer = w.n[0].fa;
	rc0 = tst()->rx_rc[UET_RC_AMO_UNSUPPORTED_OP];
	uet_ses_event(w.n[1].ses, &ev, pl, (uint16_t)(n + 8), w.now);
	assert_int_equal(tst()->rx_rc[UET_RC_AMO_UNSUPPORTED_OP], rc0 + 1);
	assert_int_equal(tst()->mem_coherent, 1);
	assert_int_equal(fm.reads + fm.writes, 0);
	assert_int_equal(omem[8], 0);
}

struct err_case {
	int err;
	enum uet_wire_ses_rc rc;
	int status;
};

static const struct err_case err_cases[] = {
	{ -EFAULT, UET_RC_AT_NO_TRANS, -EFAULT },
	{ -ESRCH, UET_RC_AT_INVALID, -EFAULT },
	{ -EPERM, UET_RC_AT_PERM, -EACCES },
	{ -EACCES, UET_RC_AT_PERM, -EACCES },
	{ -ENOMEM, UET_RC_HOST_UNSUCCESS_CMPL, -EIO },
};

static void
expect_err(const struct uet_ses_cqe *c, const struct err_case *e)
{
	assert_int_equal(c->prov_errno, e->rc);
	assert_int_equal(c->status, e->status);
	assert_int_equal(c->len, 0);
}

/*
 * Every accessor error of every path becomes the initiator's error
 * completion with the mapped code; a write that failed half way is not
 * reported done; a failed atomic returns no fetched value.
 */
static void
errors__mapped_every_path(void **state)
{
	uint64_t key = reg_owner(omem, FAR_LEN, OWNER);
	uint64_t one = 1, old, ctx = 1, errs = 0;
	static uint8_t small[40];
	const struct err_case *e;
	size_t i;

	(void)state;
	fill(sbuf, 3000, 9);
	for (i = 0; i < sizeof(err_cases) / sizeof(err_cases[0]); i++) {
		e = &err_cases[i];
		fm.err = e->err;
		fm.fail_at = 0;
		fm.partial = 100;
		expect_err(rma(UET_SES_WR_WRITE, sbuf, 3000, key,
			       (uintptr_t)omem, ctx++), e);
		memset(small, 0xEE, sizeof(small));
		expect_err(rma(UET_SES_WR_READ, small, sizeof(small), key,
			       (uintptr_t)omem, ctx++), e);
		assert_int_equal(small[0], 0xEE);
		expect_err(rma(UET_SES_WR_READ, back, 3000, key,
			       (uintptr_t)omem, ctx++), e);
		old = 0xABCD;
		expect_err(amo(UET_SES_WR_FETCH_ATOMIC, UET_AMO_SUM, &one, key,
			       (uintptr_t)omem + 64, NULL, &old, ctx++), e);
		assert_int_equal(old, 0xABCD);
		/* the read of the atomic passes, its write fails */
		fm.calls = 0;
		fm.fail_at = 2;
		expect_err(amo(UET_SES_WR_FETCH_ATOMIC, UET_AMO_SUM, &one, key,
			       (uintptr_t)omem + 64, NULL, &old, ctx++), e);
		assert_int_equal(old, 0xABCD);
		errs += 5;
		assert_true(tst()->mem_err >= errs);
	}
	assert_true(ses_fakewire_run_idle(&w, RUN_NS));
	no_stray_access();
}

/*
 * One return-direction packet of a large READ fails (the others are
 * served): the READ completes in error once all its data is in, the
 * initiator counts it, pools drain.
 */
static void
read__one_return_packet_fails(void **state)
{
	uint64_t key = reg_owner(omem, FAR_LEN, OWNER);
	const struct uet_ses_cqe *c;
	struct uet_ses_pool_info pi;

	(void)state;
	fill(omem, 5000, 4);
	memset(back, 0, 5000);
	fm.err = -EFAULT;
	fm.fail_at = 2;
	c = rma(UET_SES_WR_READ, back, 5000, key, (uintptr_t)omem, 1);
	assert_int_equal(c->prov_errno, UET_RC_AT_NO_TRANS);
	assert_int_equal(c->status, -EFAULT);
	assert_int_equal(uet_ses_stats_get(w.n[0].ses)->ret_rx_err, 1);
	assert_int_equal(tst()->mem_err, 1);
	assert_true(ses_fakewire_run_idle(&w, RUN_NS));
	uet_ses_pool_info_get(w.n[0].ses, &pi);
	assert_int_equal(pi.msgs_used, 0);
	uet_ses_pool_info_get(w.n[1].ses, &pi);
	assert_int_equal(pi.ret_used, 0);
	/* the failed packet's bytes were not placed */
	assert_int_equal(uet_ses_stats_get(w.n[0].ses)->rx_bad, 0);
	assert_false(memcmp(back, omem, 5000) == 0);
}

/* Owner 0: plain memory, the accessor is never called. */
static void
owner0__accessor_untouched(void **state)
{
	uint64_t key = reg_owner(lmem, FAR_LEN, 0);
	uint64_t one = 1, old = 0;
	const struct uet_ses_cqe *c;

	(void)state;
	fm.err = -EFAULT; /* would fail everything it was asked */
	fill(sbuf, 9000, 1);
	c = rma(UET_SES_WR_WRITE, sbuf, 9000, key, (uintptr_t)lmem, 1);
	assert_int_equal(c->status, 0);
	assert_memory_equal(lmem, sbuf, 9000);
	c = rma(UET_SES_WR_READ, back, 9000, key, (uintptr_t)lmem, 2);
	assert_int_equal(c->status, 0);
	assert_memory_equal(back, sbuf, 9000);
	c = amo(UET_SES_WR_FETCH_ATOMIC, UET_AMO_SUM, &one, key,
		(uintptr_t)lmem + 16384, NULL, &old, 3);
	assert_int_equal(c->status, 0);
	assert_int_equal(fm.reads + fm.writes, 0);
	assert_int_equal(tst()->mem_rd + tst()->mem_wr + tst()->mem_err, 0);
	assert_int_equal(omem[0], 0);
}

/* No accessor configured: another owner's entry is unreachable. */
static void
none__host_unsuccessful(void **state)
{
	uint64_t key = reg_owner(omem, FAR_LEN, OWNER);
	uint64_t one = 1;
	const struct uet_ses_cqe *c;

	(void)state;
	c = rma(UET_SES_WR_WRITE, sbuf, 100, key, (uintptr_t)omem, 1);
	assert_int_equal(c->prov_errno, UET_RC_HOST_UNSUCCESS_CMPL);
	assert_int_equal(c->status, -EIO);
	c = amo(UET_SES_WR_ATOMIC, UET_AMO_SUM, &one, key,
		(uintptr_t)omem + 8, NULL, NULL, 2);
	assert_int_equal(c->prov_errno, UET_RC_HOST_UNSUCCESS_CMPL);
	assert_int_equal(tst()->mem_err, 2);
	assert_int_equal(omem[0], 0);
	/* counted as tried: the WRITE, and the atomic's read */
	assert_int_equal(tst()->mem_wr, 1);
	assert_int_equal(tst()->mem_rd, 1);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(
			rma__other_owner_through_accessor, setup, teardown),
		cmocka_unit_test_setup_teardown(
			atomic__other_owner_fetch_modify_write, setup,
			teardown),
		cmocka_unit_test_setup_teardown(atomic__coherent_refused,
						setup, teardown),
		cmocka_unit_test_setup_teardown(errors__mapped_every_path,
						setup, teardown),
		cmocka_unit_test_setup_teardown(read__one_return_packet_fails,
						setup, teardown),
		cmocka_unit_test_setup_teardown(owner0__accessor_untouched,
						setup, teardown),
		cmocka_unit_test_setup_teardown(none__host_unsuccessful,
						setup_none, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
