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
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
