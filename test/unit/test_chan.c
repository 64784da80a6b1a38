/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of channels in caller memory (pmd/chan/chan.c: uet_chan_mem_size,
 * uet_chan_init_mem, uet_chan_map_mem and the engine side of a
 * UET_CHAN_SHARED channel). No EAL: the rings are rte_ring_init() ones in
 * plain memory, as the uet-engine service makes them in a client region.
 */

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdbool.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <uet/uet_chan.h>

#define SQ 8u
#define RQ 4u
#define CQ 16u

struct fx {
	void *mem;
	size_t len;
	struct uet_chan eng; /* the service's view */
	struct uet_chan cli; /* the client's view of the same rings */
};

static int
setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));
	size_t off[3];

	assert_non_null(f);
	f->len = uet_chan_mem_size(SQ, RQ, CQ, off);
	assert_true(f->len > 0);
	f->mem = aligned_alloc(64, f->len);
	assert_non_null(f->mem);
	assert_int_equal(uet_chan_init_mem(&f->eng, "t", f->mem, f->len, SQ,
					   RQ, CQ, UET_CHAN_SHARED), 0);
	assert_int_equal(uet_chan_map_mem(&f->cli, "t",
					  (uint8_t *)f->mem + off[0],
					  (uint8_t *)f->mem + off[1],
					  (uint8_t *)f->mem + off[2], SQ, RQ,
					  CQ, 0), 0);
	*state = f;
	return 0;
}

static int
teardown(void **state)
{
	struct fx *f = *state;

	free(f->mem);
	free(f);
	return 0;
}

static void
uet_chan_mem_size__layout(void **state)
{
	size_t off[3];
	size_t n = uet_chan_mem_size(2, 2, 2, off);

	(void)state;
	assert_true(n > 0);
	assert_int_equal(off[0], 0);
	assert_true(off[1] > off[0] && off[2] > off[1] && n > off[2]);
	assert_int_equal(off[1] % 64, 0);
	assert_int_equal(off[2] % 64, 0);
	/* bigger rings take more */
	assert_true(uet_chan_mem_size(1024, 2, 2, NULL) > n);
}

static void
uet_chan_mem_size__bad_sizes(void **state)
{
	(void)state;
	assert_int_equal(uet_chan_mem_size(3, 2, 2, NULL), 0);
	assert_int_equal(uet_chan_mem_size(2, 1, 2, NULL), 0);
	assert_int_equal(uet_chan_mem_size(2, 2, 0, NULL), 0);
	assert_int_equal(uet_chan_mem_size(1u << 25, 2, 2, NULL), 0);
}

static void
uet_chan_init_mem__bad_args(void **state)
{
	struct fx *f = *state;
	struct uet_chan c;

	assert_int_equal(uet_chan_init_mem(&c, "t", f->mem, f->len - 1, SQ,
					   RQ, CQ, 0), -EINVAL);
	assert_int_equal(uet_chan_init_mem(&c, "t", (uint8_t *)f->mem + 8,
					   f->len - 8, 2, 2, 2, 0), -EINVAL);
	assert_int_equal(uet_chan_init_mem(&c, "t", f->mem, f->len, SQ, RQ,
					   CQ, UET_CHAN_POSTER_PROGRESS),
			 -EINVAL);
	assert_int_equal(uet_chan_init_mem(&c, "a-name-longer-than-20", f->mem,
					   f->len, SQ, RQ, CQ, 0), -EINVAL);
	assert_int_equal(uet_chan_init_mem(&c, "t", f->mem, f->len, 6, RQ, CQ,
					   0), -EINVAL);
}

static void
uet_chan_init_mem__defaults(void **state)
{
	struct fx *f = *state;

	assert_int_equal(f->eng.wake_fd, -1);
	assert_int_equal(f->cli.wake_fd, -1);
	assert_null(f->eng.win_base);
	assert_int_equal(f->eng.win_len, 0);
	assert_null(f->eng.jobs);
	assert_null(f->eng.waker);
	assert_ptr_equal(f->eng.sq, f->cli.sq);
}

static void
uet_chan_map_mem__size_mismatch(void **state)
{
	struct fx *f = *state;
	struct uet_chan c;

	assert_int_equal(uet_chan_map_mem(&c, "t", f->eng.sq, f->eng.rq,
					  f->eng.cq, SQ * 2, RQ, CQ, 0),
			 -EINVAL);
	assert_int_equal(uet_chan_map_mem(&c, "t", f->eng.sq, f->eng.rq,
					  f->eng.sq, SQ, RQ, CQ, 0), -EINVAL);
	assert_int_equal(uet_chan_map_mem(&c, "t", f->eng.sq, f->eng.rq,
					  f->eng.cq, SQ, RQ, CQ,
					  UET_CHAN_SHARED), -EINVAL);
}

/* client posts, engine takes and completes, client polls */
static void
uet_chan_sq_take_shared__round_trip(void **state)
{
	struct fx *f = *state;
	struct uet_chan_sqe q = { .op = UET_CHAN_OP_NOP };
	struct uet_chan_sqe got[SQ];
	struct uet_chan_cqe ce = { 0 }, cg[CQ];
	unsigned int posted = 0;

	for (unsigned int i = 0; i < SQ; i++) {
		q.context = 100 + i;
		if (uet_chan_sq_post(&f->cli, &q) != 0)
			break;
		posted++;
	}
	assert_int_equal(posted, SQ - 1); /* a ring of N holds N - 1 */
	assert_int_equal(uet_chan_sq_take(&f->eng, got, 3), 3);
	assert_int_equal(got[0].context, 100);
	assert_int_equal(got[2].context, 102);
	/* the client sees the room the engine freed */
	q.context = 200;
	assert_int_equal(uet_chan_sq_post(&f->cli, &q), 0);
	assert_int_equal(uet_chan_sq_take(&f->eng, got, SQ), SQ - 3);
	assert_int_equal(got[SQ - 4].context, 200);
	assert_int_equal(uet_chan_sq_take(&f->eng, got, SQ), 0);

	assert_int_equal(uet_chan_cq_free_count(&f->eng), CQ - 1);
	for (unsigned int i = 0; i < CQ - 1; i++) {
		ce.context = i;
		assert_int_equal(uet_chan_cq_push(&f->eng, &ce), 0);
	}
	assert_int_equal(uet_chan_cq_push(&f->eng, &ce), -EAGAIN);
	assert_int_equal(uet_chan_cq_free_count(&f->eng), 0);
	assert_int_equal(uet_chan_cq_poll(&f->cli, cg, CQ), CQ - 1);
	assert_int_equal(cg[CQ - 2].context, CQ - 2);
	assert_int_equal(uet_chan_cq_free_count(&f->eng), CQ - 1);
}

/* a client scribbling on the ring headers: the engine side stays inside
 * the ring (ASan would report an access outside the allocation) */
static void
uet_chan_sq_take_shared__hostile_header(void **state)
{
	struct fx *f = *state;
	struct uet_chan_sqe got[64];
	struct uet_chan_rqe rgot[64];
	struct uet_chan_cqe ce = { 0 };

	f->cli.sq->mask = 0xFFFFFFFFu;
	f->cli.sq->size = 0x80000000u;
	f->cli.sq->prod.tail = 0x7FFFFFF0u;
	/* at most one ring of entries, read from inside the ring */
	assert_int_equal(uet_chan_sq_take(&f->eng, got, 64), SQ - 1);
	f->cli.rq->mask = 0xFFFFFFFFu;
	f->cli.rq->prod.tail = (uint32_t)-5;
	assert_int_equal(uet_chan_rq_take(&f->eng, rgot, 64), RQ - 1);
	/* a consumer tail ahead of the producer: no room, not a wrap */
	f->cli.cq->mask = 0xFFFFFFFFu;
	f->cli.cq->cons.tail = 12345;
	assert_int_equal(uet_chan_cq_free_count(&f->eng), 0);
	assert_int_equal(uet_chan_cq_push(&f->eng, &ce), -EAGAIN);
}

/* The engine side of @p f's rings: shared (private cursors) or, over the
 * same memory, in process (the rings' own cursors, read in place). */
static struct uet_chan *
eng_side(struct fx *f, bool shared, struct uet_chan *local)
{
	size_t off[3];

	if (shared)
		return &f->eng;
	(void)uet_chan_mem_size(SQ, RQ, CQ, off);
	assert_int_equal(uet_chan_map_mem(local, "t",
					  (uint8_t *)f->mem + off[0],
					  (uint8_t *)f->mem + off[1],
					  (uint8_t *)f->mem + off[2], SQ, RQ,
					  CQ, 0), 0);
	return local;
}

static void
sq_post_ctx(struct fx *f, uint64_t first, unsigned int n)
{
	struct uet_chan_sqe q[SQ] = { { .op = UET_CHAN_OP_NOP } };

	for (unsigned int i = 0; i < n; i++) {
		q[i].op = UET_CHAN_OP_NOP;
		q[i].context = first + i;
	}
	assert_int_equal(uet_chan_sq_post_burst(&f->cli, q, n), n);
}

/* a peek takes nothing; done takes the first entries only, in order,
 * across the ring's wrap; the client sees the room freed */
static void
peek_done(struct fx *f, bool shared)
{
	struct uet_chan local, *eng = eng_side(f, shared, &local);
	const struct uet_chan_sqe *q[SQ];
	struct uet_chan_sqe tmp[SQ];
	struct uet_chan_sqe full[SQ];

	sq_post_ctx(f, 100, 5);
	assert_int_equal(uet_chan_sq_peek(eng, q, tmp, 4), 4);
	assert_int_equal(q[0]->context, 100);
	assert_int_equal(q[3]->context, 103);
	uet_chan_sq_done(eng, 2);
	assert_int_equal(uet_chan_sq_peek(eng, q, tmp, SQ), 3);
	assert_int_equal(q[0]->context, 102);
	uet_chan_sq_done(eng, 3);
	/* 5 taken: the next 7 wrap round the ring of 8 */
	sq_post_ctx(f, 200, SQ - 1);
	assert_int_equal(uet_chan_sq_post_burst(&f->cli, full, 1), 0);
	assert_int_equal(uet_chan_sq_peek(eng, q, tmp, SQ), SQ - 1);
	for (unsigned int i = 0; i < SQ - 1; i++)
		assert_int_equal(q[i]->context, 200 + i);
	uet_chan_sq_done(eng, 0);
	assert_int_equal(uet_chan_sq_peek(eng, q, tmp, 1), 1);
	assert_int_equal(q[0]->context, 200);
	uet_chan_sq_done(eng, 1);
	full[0] = *q[0];
	assert_int_equal(uet_chan_sq_post_burst(&f->cli, full, 1), 1);
	assert_int_equal(uet_chan_sq_peek(eng, q, tmp, SQ), SQ - 1);
	uet_chan_sq_done(eng, SQ - 1);
	assert_int_equal(uet_chan_sq_peek(eng, q, tmp, SQ), 0);
	uet_chan_sq_done(eng, 0);
	/* a shared channel's entries are copies, not the ring */
	if (shared) {
		sq_post_ctx(f, 300, 1);
		assert_int_equal(uet_chan_sq_peek(eng, q, tmp, 1), 1);
		assert_ptr_equal(q[0], &tmp[0]);
		uet_chan_sq_done(eng, 1);
	}
}

static void
uet_chan_sq_peek__partial_done(void **state)
{
	peek_done(*state, false);
}

static void
uet_chan_sq_peek_shared__partial_done(void **state)
{
	peek_done(*state, true);
}

/* CQEs written in place: commit publishes the first ones only; the
 * next reserve starts after them; a full CQ reserves nothing */
static void
reserve_commit(struct fx *f, bool shared)
{
	struct uet_chan local, *eng = eng_side(f, shared, &local);
	struct uet_chan_cqe *e[CQ], got[CQ];
	unsigned int n;

	assert_int_equal(uet_chan_cq_reserve(eng, e, 4), 4);
	for (unsigned int i = 0; i < 4; i++) {
		memset(e[i], 0, sizeof(*e[i]));
		e[i]->context = 10 + i;
	}
	uet_chan_cq_commit(eng, 2);
	assert_int_equal(uet_chan_cq_poll(&f->cli, got, CQ), 2);
	assert_int_equal(got[1].context, 11);
	n = uet_chan_cq_reserve(eng, e, CQ);
	assert_int_equal(n, CQ - 1);
	for (unsigned int i = 0; i < n; i++) {
		memset(e[i], 0, sizeof(*e[i]));
		e[i]->context = 20 + i;
	}
	uet_chan_cq_commit(eng, n);
	assert_int_equal(uet_chan_cq_reserve(eng, e, 1), 0);
	uet_chan_cq_commit(eng, 0);
	assert_int_equal(uet_chan_cq_poll(&f->cli, got, CQ), CQ - 1);
	assert_int_equal(got[0].context, 20);
	assert_int_equal(got[CQ - 2].context, 20 + CQ - 2);
}

static void
uet_chan_cq_reserve__partial_commit(void **state)
{
	reserve_commit(*state, false);
}

static void
uet_chan_cq_reserve_shared__partial_commit(void **state)
{
	reserve_commit(*state, true);
}

/* Entries that tell where they came from: every byte depends on @p v. */
static void
sqe_mark(struct uet_chan_sqe *q, uint64_t v)
{
	uint8_t *b = (uint8_t *)q;

	for (size_t i = 0; i < sizeof(*q); i++)
		b[i] = (uint8_t)(v * 131 + i);
}

static bool
sqe_is(const struct uet_chan_sqe *q, uint64_t v)
{
	struct uet_chan_sqe w;

	sqe_mark(&w, v);
	return memcmp(&w, q, sizeof(w)) == 0;
}

/*
 * Entries copied in and out of the rings whole and in order, bursts
 * wrapping at the end of the ring (one part at the end, the rest at the
 * start), on rings with one producer and one consumer (written in
 * place) and on the multi-producer SQ and multi-consumer CQ of
 * @p flags (the rte_ring elem API).
 */
static void
copy_round_trip(unsigned int flags)
{
	size_t off[3], len = uet_chan_mem_size(SQ, RQ, CQ, off);
	uint8_t *mem = aligned_alloc(64, len);
	struct uet_chan c;
	struct uet_chan_sqe in[SQ], out[SQ];
	struct uet_chan_cqe ce[CQ], cg[CQ];
	uint64_t next_in = 0, next_out = 0;

	assert_non_null(mem);
	assert_int_equal(uet_chan_init_mem(&c, "w", mem, len, SQ, RQ, CQ,
					   flags), 0);
	/* 3 at a time through a ring of 8 (7 usable): every offset of the
	 * ring is a burst's first entry, some bursts wrap */
	for (unsigned int round = 0; round < 3 * SQ; round++) {
		unsigned int n, k = (round % 2) ? 3 : 1;

		for (unsigned int i = 0; i < k; i++)
			sqe_mark(&in[i], next_in + i);
		n = k == 1 ? (uet_chan_sq_post(&c, in) == 0) :
			     uet_chan_sq_post_burst(&c, in, k);
		assert_int_equal(n, k);
		next_in += n;
		n = uet_chan_sq_take(&c, out, SQ);
		assert_int_equal(n, k);
		for (unsigned int i = 0; i < n; i++)
			assert_true(sqe_is(&out[i], next_out++));
	}
	/* a full ring refuses, whole */
	for (unsigned int i = 0; i < SQ; i++)
		sqe_mark(&in[i], next_in + i);
	assert_int_equal(uet_chan_sq_post_burst(&c, in, SQ), SQ - 1);
	assert_int_equal(uet_chan_sq_post(&c, in), -EAGAIN);
	assert_int_equal(uet_chan_sq_take(&c, out, SQ), SQ - 1);
	assert_true(sqe_is(&out[SQ - 2], next_in + SQ - 2));
	/* CQ: pushed one by one, polled in bursts of 5 that wrap */
	memset(ce, 0, sizeof(ce));
	for (uint64_t v = 0, got = 0; got < 4 * CQ;) {
		unsigned int n;

		while (v < got + 5) {
			ce[0].context = v;
			ce[0].len = ~v;
			assert_int_equal(uet_chan_cq_push(&c, ce), 0);
			v++;
		}
		n = uet_chan_cq_poll(&c, cg, 5);
		assert_int_equal(n, 5);
		for (unsigned int i = 0; i < n; i++, got++) {
			assert_int_equal(cg[i].context, got);
			assert_int_equal(cg[i].len, ~got);
		}
	}
	assert_int_equal(uet_chan_cq_poll(&c, cg, CQ), 0);
	free(mem);
}

static void
uet_chan_sq_post__copies_whole_entries(void **state)
{
	(void)state;
	copy_round_trip(0);
}

static void
uet_chan_sq_post__mp_mc_rings(void **state)
{
	(void)state;
	copy_round_trip(UET_CHAN_MP_SUBMIT | UET_CHAN_MC_COMPLETE);
}

/* the in-place API of a shared channel under a hostile client: never
 * more than one ring, never a slot outside it */
static void
uet_chan_sq_peek_shared__hostile_header(void **state)
{
	struct fx *f = *state;
	const struct uet_chan_sqe *q[64];
	const struct uet_chan_rqe *r[64];
	struct uet_chan_sqe tmp[64];
	struct uet_chan_rqe rtmp[64];
	struct uet_chan_cqe *e[64];

	f->cli.sq->prod.tail = 0x7FFFFFF0u;
	assert_int_equal(uet_chan_sq_peek(&f->eng, q, tmp, 64), SQ - 1);
	uet_chan_sq_done(&f->eng, SQ - 1);
	f->cli.rq->prod.tail = (uint32_t)-5;
	assert_int_equal(uet_chan_rq_peek(&f->eng, r, rtmp, 64), RQ - 1);
	uet_chan_rq_done(&f->eng, 1);
	f->cli.cq->cons.tail = 12345;
	assert_int_equal(uet_chan_cq_reserve(&f->eng, e, 64), 0);
	f->cli.cq->cons.tail = 0;
	assert_int_equal(uet_chan_cq_reserve(&f->eng, e, 64), CQ - 1);
	for (unsigned int i = 0; i < CQ - 1; i++)
		assert_true((uint8_t *)e[i] >= (uint8_t *)&f->eng.cq[1] &&
			    (uint8_t *)(e[i] + 1) <=
			    (uint8_t *)&f->eng.cq[1] + CQ * sizeof(*e[i]));
	uet_chan_cq_commit(&f->eng, 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(uet_chan_mem_size__layout),
		cmocka_unit_test(uet_chan_mem_size__bad_sizes),
		cmocka_unit_test_setup_teardown(uet_chan_init_mem__bad_args,
						setup, teardown),
		cmocka_unit_test_setup_teardown(uet_chan_init_mem__defaults,
						setup, teardown),
		cmocka_unit_test_setup_teardown(uet_chan_map_mem__size_mismatch,
						setup, teardown),
		cmocka_unit_test_setup_teardown(
			uet_chan_sq_take_shared__round_trip, setup, teardown),
		cmocka_unit_test_setup_teardown(
			uet_chan_sq_take_shared__hostile_header, setup,
			teardown),
		cmocka_unit_test_setup_teardown(
			uet_chan_sq_peek__partial_done, setup, teardown),
		cmocka_unit_test_setup_teardown(
			uet_chan_sq_peek_shared__partial_done, setup, teardown),
		cmocka_unit_test_setup_teardown(
			uet_chan_cq_reserve__partial_commit, setup, teardown),
		cmocka_unit_test_setup_teardown(
			uet_chan_cq_reserve_shared__partial_commit, setup,
			teardown),
		cmocka_unit_test_setup_teardown(
			uet_chan_sq_peek_shared__hostile_header, setup,
			teardown),
		cmocka_unit_test(uet_chan_sq_post__copies_whole_entries),
		cmocka_unit_test(uet_chan_sq_post__mp_mc_rings),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
