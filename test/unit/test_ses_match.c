/* SPDX-License-Identifier: BSD-3-Clause */
/* Unit tests of the SES matching engine (uet_ses_match.h). */

#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <setjmp.h>
#include <cmocka.h>

#include <uet/uet_rand.h>
#include <uet/uet_ses_match.h>

#define ANY UET_SES_MATCH_SRC_ANY

static struct uet_ses_match *
mk(uint32_t posted, uint32_t unexp, uint32_t chunk_size, uint32_t chunks,
   uint32_t buckets)
{
	struct uet_ses_match_config c;
	struct uet_ses_match *m;

	uet_ses_match_config_default(&c);
	c.max_posted = posted;
	c.max_unexpected = unexp;
	c.chunk_size = chunk_size;
	c.chunks = chunks;
	c.hash_buckets = buckets;
	m = uet_ses_match_create(&c);
	assert_non_null(m);
	return m;
}

static struct uet_ses_match *
mk_default(void)
{
	return mk(64, 64, 1024, 64, 16);
}

static struct uet_ses_match_recv
rcv(uint64_t ctx, uint64_t len, uint64_t src)
{
	struct uet_ses_match_recv r;

	memset(&r, 0, sizeof(r));
	r.context = ctx;
	r.len = len;
	r.src = src;
	r.buf = (void *)(uintptr_t)(0x1000 * (ctx + 1));
	r.iov_count = 1;
	return r;
}

static struct uet_ses_match_recv
trcv(uint64_t ctx, uint64_t len, uint64_t tag, uint64_t ignore, uint64_t src)
{
	struct uet_ses_match_recv r = rcv(ctx, len, src);

	r.flags = UET_SES_MATCH_RECV_TAGGED;
	r.tag = tag;
	r.ignore = ignore;
	return r;
}

static struct uet_ses_match_arrival
arr(bool tagged, uint64_t tag, uint64_t src, uint64_t id, uint32_t total)
{
	struct uet_ses_match_arrival a;

	memset(&a, 0, sizeof(a));
	a.msg.src = src;
	a.msg.peer = src + 100;
	a.msg.tag = tagged ? tag : 0;
	a.msg.header_data = id;
	a.msg.initiator = (uint32_t)src;
	a.msg.total_len = total;
	a.msg.hold_len = total;
	a.msg.message_id = (uint16_t)id;
	a.msg.kind = UET_SES_MATCH_KIND_EAGER;
	a.msg.flags = UET_SES_MATCH_MSG_HDATA |
		      (tagged ? UET_SES_MATCH_MSG_TAGGED : 0);
	return a;
}

static void
expect_arrival(struct uet_ses_match *m, struct uet_ses_match_arrival a,
	       enum uet_ses_match_verdict v, uint64_t ctx)
{
	struct uet_ses_match_result r;

	assert_int_equal(uet_ses_match_arrival(m, &a, &r), 0);
	assert_int_equal(r.verdict, v);
	if (v == UET_SES_MATCH_EXPECTED)
		assert_int_equal(r.context, ctx);
	assert_int_equal(r.msg.header_data, a.msg.header_data);
}

static void
expect_post(struct uet_ses_match *m, struct uet_ses_match_recv p,
	    enum uet_ses_match_verdict v, uint64_t id)
{
	struct uet_ses_match_result r;

	assert_int_equal(uet_ses_match_post(m, &p, &r), 0);
	assert_int_equal(r.verdict, v);
	assert_int_equal(r.context, p.context);
	if (v != UET_SES_MATCH_UNEXPECTED)
		return;
	assert_int_equal(r.msg.header_data, id);
	assert_int_equal(uet_ses_match_unexp_release(m, r.unexp), 0);
}

static void
assert_pools_full(const struct uet_ses_match *m)
{
	struct uet_ses_match_pool_info pi;

	uet_ses_match_pool_info(m, &pi);
	assert_int_equal(pi.posted_free, pi.posted_total);
	assert_int_equal(pi.unexp_free, pi.unexp_total);
	assert_int_equal(pi.chunks_free, pi.chunks_total);
}

static void
match_create__bad_config(void **state)
{
	struct uet_ses_match_config c;

	(void)state;
	uet_ses_match_config_default(&c);
	c.hash_buckets = 3;
	errno = 0;
	assert_null(uet_ses_match_create(&c));
	assert_int_equal(errno, EINVAL);
	uet_ses_match_config_default(&c);
	c.max_posted = 0;
	assert_null(uet_ses_match_create(&c));
	uet_ses_match_config_default(&c);
	c.chunk_size = 8;
	assert_null(uet_ses_match_create(&c));
	assert_null(uet_ses_match_create(NULL));
	uet_ses_match_free(NULL);
}

static void
match_arrival__untagged_fifo(void **state)
{
	struct uet_ses_match *m = mk_default();

	(void)state;
	expect_post(m, rcv(1, 64, ANY), UET_SES_MATCH_POSTED, 0);
	expect_post(m, rcv(2, 64, ANY), UET_SES_MATCH_POSTED, 0);
	expect_post(m, rcv(3, 64, ANY), UET_SES_MATCH_POSTED, 0);
	/* Tagged traffic never lands in an untagged receive. */
	expect_arrival(m, arr(true, 0, 1, 10, 8), UET_SES_MATCH_STORED, 0);
	expect_arrival(m, arr(false, 0, 1, 11, 8), UET_SES_MATCH_EXPECTED, 1);
	expect_arrival(m, arr(false, 0, 2, 12, 8), UET_SES_MATCH_EXPECTED, 2);
	expect_arrival(m, arr(false, 0, 1, 13, 8), UET_SES_MATCH_EXPECTED, 3);
	expect_arrival(m, arr(false, 0, 1, 14, 8), UET_SES_MATCH_STORED, 0);
	expect_post(m, rcv(4, 64, ANY), UET_SES_MATCH_UNEXPECTED, 14);
	expect_post(m, trcv(5, 64, 0, 0, ANY), UET_SES_MATCH_UNEXPECTED, 10);
	assert_int_equal(uet_ses_match_stats_get(m)->matched_expected, 3);
	assert_int_equal(uet_ses_match_stats_get(m)->matched_unexpected, 2);
	assert_pools_full(m);
	uet_ses_match_free(m);
}

static void
match_arrival__tagged_exact(void **state)
{
	struct uet_ses_match *m = mk_default();

	(void)state;
	expect_post(m, trcv(1, 64, 5, 0, ANY), UET_SES_MATCH_POSTED, 0);
	expect_post(m, trcv(2, 64, 7, 0, ANY), UET_SES_MATCH_POSTED, 0);
	expect_post(m, rcv(3, 64, ANY), UET_SES_MATCH_POSTED, 0);
	expect_arrival(m, arr(true, 7, 1, 10, 8), UET_SES_MATCH_EXPECTED, 2);
	expect_arrival(m, arr(true, 9, 1, 11, 8), UET_SES_MATCH_STORED, 0);
	expect_arrival(m, arr(true, 5, 1, 12, 8), UET_SES_MATCH_EXPECTED, 1);
	expect_arrival(m, arr(true, 5, 1, 13, 8), UET_SES_MATCH_STORED, 0);
	/* Exact-tag receive finds its tag, not the older tag 9 message. */
	expect_post(m, trcv(4, 64, 5, 0, ANY), UET_SES_MATCH_UNEXPECTED, 13);
	expect_post(m, trcv(5, 64, 9, 0, ANY), UET_SES_MATCH_UNEXPECTED, 11);
	assert_int_equal(uet_ses_match_cancel(m, 3), 0);
	assert_pools_full(m);
	uet_ses_match_free(m);
}

static void
match_arrival__wildcard_ignore(void **state)
{
	/* One bucket: every exact receive collides. */
	struct uet_ses_match *m = mk(64, 64, 1024, 64, 1);

	(void)state;
	expect_post(m, trcv(1, 64, 0x12, 0, ANY), UET_SES_MATCH_POSTED, 0);
	expect_post(m, trcv(2, 64, 0x10, 0x0F, ANY), UET_SES_MATCH_POSTED, 0);
	expect_post(m, trcv(3, 64, 0x12, 0, ANY), UET_SES_MATCH_POSTED, 0);
	expect_post(m, trcv(4, 64, 0x34, 0, ANY), UET_SES_MATCH_POSTED, 0);
	/* Posting order holds across the bucket and the wildcard list. */
	expect_arrival(m, arr(true, 0x12, 1, 10, 8), UET_SES_MATCH_EXPECTED, 1);
	expect_arrival(m, arr(true, 0x12, 1, 11, 8), UET_SES_MATCH_EXPECTED, 2);
	expect_arrival(m, arr(true, 0x1F, 1, 12, 8), UET_SES_MATCH_STORED, 0);
	expect_arrival(m, arr(true, 0x12, 1, 13, 8), UET_SES_MATCH_EXPECTED, 3);
	expect_arrival(m, arr(true, 0x34, 1, 14, 8), UET_SES_MATCH_EXPECTED, 4);
	expect_arrival(m, arr(true, 0x25, 1, 15, 8), UET_SES_MATCH_STORED, 0);
	expect_arrival(m, arr(true, 0x13, 1, 16, 8), UET_SES_MATCH_STORED, 0);
	/* A wildcard post takes the earliest-arrived match (0x1F, not 0x13). */
	expect_post(m, trcv(5, 64, 0x10, 0x0F, ANY), UET_SES_MATCH_UNEXPECTED,
		    12);
	expect_post(m, trcv(6, 64, 0, ~0ull, ANY), UET_SES_MATCH_UNEXPECTED,
		    15);
	expect_post(m, trcv(7, 64, 0x13, 0, ANY), UET_SES_MATCH_UNEXPECTED, 16);
	assert_pools_full(m);
	uet_ses_match_free(m);
}

static void
match_arrival__directed_src(void **state)
{
	struct uet_ses_match *m = mk_default();

	(void)state;
	expect_post(m, trcv(1, 64, 5, 0, 2), UET_SES_MATCH_POSTED, 0);
	expect_post(m, trcv(2, 64, 5, 0, ANY), UET_SES_MATCH_POSTED, 0);
	expect_arrival(m, arr(true, 5, 1, 10, 8), UET_SES_MATCH_EXPECTED, 2);
	expect_arrival(m, arr(true, 5, 1, 11, 8), UET_SES_MATCH_STORED, 0);
	expect_arrival(m, arr(true, 5, 2, 12, 8), UET_SES_MATCH_EXPECTED, 1);
	expect_arrival(m, arr(false, 0, 1, 13, 8), UET_SES_MATCH_STORED, 0);
	expect_arrival(m, arr(false, 0, 2, 14, 8), UET_SES_MATCH_STORED, 0);
	/* Directed posts skip older messages from other sources. */
	expect_post(m, rcv(3, 64, 2), UET_SES_MATCH_UNEXPECTED, 14);
	expect_post(m, rcv(4, 64, 2), UET_SES_MATCH_POSTED, 0);
	expect_post(m, rcv(5, 64, ANY), UET_SES_MATCH_UNEXPECTED, 13);
	expect_post(m, trcv(6, 64, 5, 0, 3), UET_SES_MATCH_POSTED, 0);
	expect_post(m, trcv(7, 64, 5, 0, 1), UET_SES_MATCH_UNEXPECTED, 11);
	assert_int_equal(uet_ses_match_cancel(m, 4), 0);
	assert_int_equal(uet_ses_match_cancel(m, 6), 0);
	assert_pools_full(m);
	uet_ses_match_free(m);
}

static void
match_post__unexpected_data_handover(void **state)
{
	struct uet_ses_match *m = mk(8, 8, 1024, 8, 4);
	struct uet_ses_match_arrival a = arr(true, 42, 7, 99, 3000);
	struct uet_ses_match_recv p = trcv(1, 4096, 42, 0, 7);
	struct uet_ses_match_result r;
	struct uet_ses_match_pool_info pi;
	static uint8_t src[3000], dst[3000];

	(void)state;
	for (size_t i = 0; i < sizeof(src); i++)
		src[i] = (uint8_t)(i * 7 + 3);
	a.data = src;
	a.data_len = 1000;
	assert_int_equal(uet_ses_match_arrival(m, &a, &r), 0);
	assert_int_equal(r.verdict, UET_SES_MATCH_STORED);
	assert_int_equal(r.held, 1000);
	uet_ses_match_pool_info(m, &pi);
	assert_int_equal(pi.chunks_free, 8 - 3);
	/* Continuation packets (out of order) fill the held region. */
	assert_int_equal(uet_ses_match_unexp_write(m, r.unexp, 2000,
						   src + 2000, 1000), 0);
	assert_int_equal(uet_ses_match_unexp_write(m, r.unexp, 1000,
						   src + 1000, 1000), 0);
	assert_int_equal(uet_ses_match_unexp_write(m, r.unexp, 2500, src,
						   501), -EINVAL);
	assert_int_equal(uet_ses_match_post(m, &p, &r), 0);
	assert_int_equal(r.verdict, UET_SES_MATCH_UNEXPECTED);
	assert_int_equal(r.held, 3000);
	assert_int_equal(r.len, 3000);
	assert_int_equal(r.offset, 0);
	assert_int_equal(r.context, 1);
	assert_ptr_equal(r.buf, p.buf);
	assert_int_equal(r.msg.message_id, 99);
	assert_int_equal(r.msg.header_data, 99);
	assert_int_equal(r.msg.peer, 107);
	assert_int_equal(r.msg.total_len, 3000);
	assert_int_equal(uet_ses_match_unexp_copy(m, r.unexp, 0, dst, 5000),
			 3000);
	assert_memory_equal(src, dst, sizeof(src));
	assert_int_equal(uet_ses_match_unexp_copy(m, r.unexp, 1500, dst, 10),
			 10);
	assert_memory_equal(src + 1500, dst, 10);
	assert_int_equal(uet_ses_match_unexp_release(m, r.unexp), 0);
	assert_int_equal(uet_ses_match_unexp_release(m, r.unexp), -ENOENT);
	assert_int_equal(uet_ses_match_unexp_copy(m, r.unexp, 0, dst, 10), 0);
	assert_pools_full(m);
	uet_ses_match_free(m);
}

static void
match_arrival__posted_then_arrival(void **state)
{
	struct uet_ses_match *m = mk_default();
	struct uet_ses_match_recv p = trcv(9, 512, 3, 0, ANY);
	struct uet_ses_match_arrival a = arr(true, 3, 4, 20, 100);
	struct uet_ses_match_result r;

	(void)state;
	assert_int_equal(uet_ses_match_post(m, &p, &r), 0);
	assert_int_equal(r.verdict, UET_SES_MATCH_POSTED);
	assert_int_equal(uet_ses_match_arrival(m, &a, &r), 0);
	assert_int_equal(r.verdict, UET_SES_MATCH_EXPECTED);
	assert_int_equal(r.context, 9);
	assert_ptr_equal(r.buf, p.buf);
	assert_int_equal(r.offset, 0);
	assert_int_equal(r.len, 100);
	assert_int_equal(r.flags, 0);
	assert_int_equal(r.unexp, UET_SES_MATCH_NONE);
	assert_int_equal(r.msg.src, 4);
	assert_pools_full(m);
	assert_int_equal(uet_ses_match_stats_get(m)->posted, 1);
	uet_ses_match_free(m);
}

static void
match_arrival__truncation(void **state)
{
	struct uet_ses_match *m = mk_default();
	struct uet_ses_match_recv p = rcv(1, 100, ANY);
	struct uet_ses_match_arrival a = arr(false, 0, 1, 1, 150);
	struct uet_ses_match_result r;

	(void)state;
	assert_int_equal(uet_ses_match_post(m, &p, &r), 0);
	assert_int_equal(uet_ses_match_arrival(m, &a, &r), 0);
	assert_int_equal(r.verdict, UET_SES_MATCH_EXPECTED);
	assert_int_equal(r.len, 100);
	assert_int_equal(r.msg.total_len, 150);
	assert_true(r.flags & UET_SES_MATCH_F_TRUNC);
	/* Same on the unexpected path. */
	assert_int_equal(uet_ses_match_arrival(m, &a, &r), 0);
	assert_int_equal(r.verdict, UET_SES_MATCH_STORED);
	assert_int_equal(uet_ses_match_post(m, &p, &r), 0);
	assert_int_equal(r.verdict, UET_SES_MATCH_UNEXPECTED);
	assert_int_equal(r.len, 100);
	assert_true(r.flags & UET_SES_MATCH_F_TRUNC);
	assert_int_equal(uet_ses_match_unexp_release(m, r.unexp), 0);
	assert_int_equal(uet_ses_match_stats_get(m)->truncations, 2);
	assert_pools_full(m);
	uet_ses_match_free(m);
}

static void
match_multi__slicing_release(void **state)
{
	struct uet_ses_match *m = mk_default();
	struct uet_ses_match_recv p = rcv(1, 1000, ANY);
	struct uet_ses_match_arrival a = arr(false, 0, 1, 1, 300);
	struct uet_ses_match_result r;
	static const uint64_t off[] = { 0, 300, 600 };

	(void)state;
	p.flags = UET_SES_MATCH_RECV_MULTI;
	p.min_free = 200;
	assert_int_equal(uet_ses_match_post(m, &p, &r), 0);
	assert_int_equal(r.verdict, UET_SES_MATCH_POSTED);
	for (int i = 0; i < 3; i++) {
		assert_int_equal(uet_ses_match_arrival(m, &a, &r), 0);
		assert_int_equal(r.verdict, UET_SES_MATCH_EXPECTED);
		assert_int_equal(r.context, 1);
		assert_int_equal(r.offset, off[i]);
		assert_int_equal(r.len, 300);
		/* 100 bytes left after the third: below min_free. */
		assert_int_equal(r.flags & UET_SES_MATCH_F_RELEASED,
				 i == 2 ? UET_SES_MATCH_F_RELEASED : 0);
	}
	assert_pools_full(m);
	uet_ses_match_free(m);
}

static void
match_multi__drains_unexpected(void **state)
{
	struct uet_ses_match *m = mk_default();
	struct uet_ses_match_recv p = rcv(1, 250, ANY);
	struct uet_ses_match_arrival a = arr(false, 0, 1, 1, 100);
	struct uet_ses_match_recv q = rcv(2, 64, ANY);
	struct uet_ses_match_result r;

	(void)state;
	p.flags = UET_SES_MATCH_RECV_MULTI;
	p.min_free = 50;
	for (int i = 0; i < 4; i++) {
		a.msg.header_data = (uint64_t)i;
		assert_int_equal(uet_ses_match_arrival(m, &a, &r), 0);
		assert_int_equal(r.verdict, UET_SES_MATCH_STORED);
	}
	assert_int_equal(uet_ses_match_post(m, &p, &r), 0);
	assert_int_equal(r.verdict, UET_SES_MATCH_UNEXPECTED);
	assert_int_equal(r.msg.header_data, 0);
	assert_int_equal(r.offset, 0);
	assert_int_equal(r.flags, UET_SES_MATCH_F_MORE);
	assert_int_equal(uet_ses_match_unexp_release(m, r.unexp), 0);
	assert_int_equal(uet_ses_match_post(m, &q, &r), -EBUSY);
	/* An arrival meanwhile queues behind the older unexpected ones. */
	a.msg.header_data = 4;
	assert_int_equal(uet_ses_match_arrival(m, &a, &r), 0);
	assert_int_equal(r.verdict, UET_SES_MATCH_STORED);
	assert_int_equal(uet_ses_match_post_more(m, &r), 0);
	assert_int_equal(r.msg.header_data, 1);
	assert_int_equal(r.offset, 100);
	assert_int_equal(r.flags, UET_SES_MATCH_F_MORE);
	assert_int_equal(uet_ses_match_unexp_release(m, r.unexp), 0);
	assert_int_equal(uet_ses_match_post_more(m, &r), 0);
	assert_int_equal(r.msg.header_data, 2);
	assert_int_equal(r.offset, 200);
	assert_int_equal(r.len, 50);
	assert_int_equal(r.flags,
			 UET_SES_MATCH_F_TRUNC | UET_SES_MATCH_F_RELEASED);
	assert_int_equal(uet_ses_match_unexp_release(m, r.unexp), 0);
	assert_int_equal(uet_ses_match_post_more(m, &r), -ENOENT);
	/* A second buffer takes 3 and 4 and then stays posted. */
	p.context = 5;
	p.len = 1000;
	assert_int_equal(uet_ses_match_post(m, &p, &r), 0);
	assert_int_equal(r.msg.header_data, 3);
	assert_int_equal(uet_ses_match_unexp_release(m, r.unexp), 0);
	assert_int_equal(uet_ses_match_post_more(m, &r), 0);
	assert_int_equal(r.msg.header_data, 4);
	assert_int_equal(r.offset, 100);
	assert_int_equal(uet_ses_match_unexp_release(m, r.unexp), 0);
	assert_int_equal(uet_ses_match_post_more(m, &r), 0);
	assert_int_equal(r.verdict, UET_SES_MATCH_POSTED);
	assert_int_equal(r.flags, 0);
	assert_int_equal(uet_ses_match_arrival(m, &a, &r), 0);
	assert_int_equal(r.context, 5);
	assert_int_equal(r.offset, 200);
	assert_int_equal(uet_ses_match_cancel(m, 5), 0);
	assert_pools_full(m);
	uet_ses_match_free(m);
}

static void
match_unexp__exhaustion_entries(void **state)
{
	struct uet_ses_match *m = mk(4, 2, 64, 16, 4);
	struct uet_ses_match_result r;
	struct uet_ses_match_arrival a = arr(true, 1, 1, 0, 10);

	(void)state;
	expect_arrival(m, arr(true, 1, 1, 1, 10), UET_SES_MATCH_STORED, 0);
	expect_arrival(m, arr(true, 1, 1, 2, 10), UET_SES_MATCH_STORED, 0);
	expect_arrival(m, arr(true, 1, 1, 3, 10), UET_SES_MATCH_NO_ROOM, 0);
	assert_int_equal(uet_ses_match_stats_get(m)->unexp_rejected, 1);
	/* Posting drains one; the retried message now fits. */
	expect_post(m, trcv(1, 64, 1, 0, ANY), UET_SES_MATCH_UNEXPECTED, 1);
	a.msg.header_data = 3;
	assert_int_equal(uet_ses_match_arrival(m, &a, &r), 0);
	assert_int_equal(r.verdict, UET_SES_MATCH_STORED);
	expect_post(m, trcv(2, 64, 1, 0, ANY), UET_SES_MATCH_UNEXPECTED, 2);
	expect_post(m, trcv(3, 64, 1, 0, ANY), UET_SES_MATCH_UNEXPECTED, 3);
	assert_pools_full(m);
	uet_ses_match_free(m);
}

static void
match_unexp__exhaustion_bytes(void **state)
{
	struct uet_ses_match *m = mk(4, 8, 64, 4, 4);
	struct uet_ses_match_arrival a = arr(false, 0, 1, 1, 200);
	struct uet_ses_match_result r;

	(void)state;
	expect_arrival(m, a, UET_SES_MATCH_STORED, 0);
	expect_arrival(m, arr(false, 0, 1, 2, 10), UET_SES_MATCH_NO_ROOM, 0);
	/* A rendezvous header holding no eager bytes still fits. */
	a = arr(false, 0, 1, 3, 100000);
	a.msg.kind = UET_SES_MATCH_KIND_RENDEZVOUS;
	a.msg.hold_len = 0;
	a.msg.rdv.read_offset = 0x5000;
	expect_arrival(m, a, UET_SES_MATCH_STORED, 0);
	expect_post(m, rcv(1, 256, ANY), UET_SES_MATCH_UNEXPECTED, 1);
	expect_arrival(m, arr(false, 0, 1, 2, 10), UET_SES_MATCH_STORED, 0);
	assert_int_equal(uet_ses_match_post(m, &(struct uet_ses_match_recv){
		.context = 2, .len = 1 << 20, .src = ANY }, &r), 0);
	assert_int_equal(r.verdict, UET_SES_MATCH_UNEXPECTED);
	assert_int_equal(r.msg.kind, UET_SES_MATCH_KIND_RENDEZVOUS);
	assert_int_equal(r.msg.rdv.read_offset, 0x5000);
	assert_int_equal(r.len, 100000);
	assert_int_equal(r.held, 0);
	assert_int_equal(uet_ses_match_unexp_release(m, r.unexp), 0);
	expect_post(m, rcv(3, 256, ANY), UET_SES_MATCH_UNEXPECTED, 2);
	assert_int_equal(uet_ses_match_stats_get(m)->unexp_rejected, 1);
	assert_pools_full(m);
	uet_ses_match_free(m);
}

static void
match_post__posted_pool_full(void **state)
{
	struct uet_ses_match *m = mk(2, 2, 64, 2, 1);
	struct uet_ses_match_recv p = rcv(3, 8, ANY);
	struct uet_ses_match_result r;

	(void)state;
	expect_post(m, rcv(1, 8, ANY), UET_SES_MATCH_POSTED, 0);
	expect_post(m, rcv(2, 8, ANY), UET_SES_MATCH_POSTED, 0);
	assert_int_equal(uet_ses_match_post(m, &p, &r), -EAGAIN);
	p.flags = UET_SES_MATCH_RECV_MULTI;
	assert_int_equal(uet_ses_match_post(m, &p, &r), -EAGAIN);
	p.flags = UET_SES_MATCH_RECV_DISCARD;
	assert_int_equal(uet_ses_match_post(m, &p, &r), -EINVAL);
	p.flags = UET_SES_MATCH_RECV_MULTI | UET_SES_MATCH_RECV_PEEK;
	assert_int_equal(uet_ses_match_post(m, &p, &r), -EINVAL);
	assert_int_equal(uet_ses_match_cancel(m, 1), 0);
	assert_int_equal(uet_ses_match_cancel(m, 2), 0);
	assert_pools_full(m);
	uet_ses_match_free(m);
}

static void
match_arrival__bad_input(void **state)
{
	struct uet_ses_match *m = mk_default();
	struct uet_ses_match_arrival a = arr(false, 0, 1, 1, 10);
	struct uet_ses_match_result r;

	(void)state;
	a.msg.hold_len = 11;
	assert_int_equal(uet_ses_match_arrival(m, &a, &r), -EINVAL);
	a = arr(false, 0, ANY, 1, 10);
	assert_int_equal(uet_ses_match_arrival(m, &a, &r), -EINVAL);
	a = arr(false, 0, 1, 1, 10);
	a.data_len = 5;
	assert_int_equal(uet_ses_match_arrival(m, &a, &r), -EINVAL);
	a.data_len = 0;
	a.msg.kind = 7;
	assert_int_equal(uet_ses_match_arrival(m, &a, &r), -EINVAL);
	assert_int_equal(uet_ses_match_stats_get(m)->bad_requests, 4);
	assert_int_equal(uet_ses_match_unexp_write(m, 3, 0, "x", 1), -ENOENT);
	assert_int_equal(uet_ses_match_unexp_release(m, 99), -ENOENT);
	assert_pools_full(m);
	uet_ses_match_free(m);
}

static void
match_peek__peek_claim_discard(void **state)
{
	struct uet_ses_match *m = mk_default();
	struct uet_ses_match_recv p = trcv(77, 64, 1, 0, ANY);
	struct uet_ses_match_result r;
	const struct uet_ses_match_stats *st = uet_ses_match_stats_get(m);

	(void)state;
	expect_arrival(m, arr(true, 1, 1, 10, 8), UET_SES_MATCH_STORED, 0);
	expect_arrival(m, arr(true, 1, 1, 11, 8), UET_SES_MATCH_STORED, 0);
	expect_arrival(m, arr(true, 2, 1, 12, 8), UET_SES_MATCH_STORED, 0);
	/* Plain peek: reports 10 and keeps it. */
	p.flags |= UET_SES_MATCH_RECV_PEEK;
	assert_int_equal(uet_ses_match_post(m, &p, &r), 0);
	assert_int_equal(r.verdict, UET_SES_MATCH_PEEKED);
	assert_int_equal(r.msg.header_data, 10);
	assert_int_equal(r.len, 8);
	/* Peek + claim reserves 10 for context 77. */
	p.flags |= UET_SES_MATCH_RECV_CLAIM;
	assert_int_equal(uet_ses_match_post(m, &p, &r), 0);
	assert_int_equal(r.verdict, UET_SES_MATCH_PEEKED);
	assert_int_equal(r.msg.header_data, 10);
	/* A normal receive can no longer see it. */
	expect_post(m, trcv(1, 64, 1, 0, ANY), UET_SES_MATCH_UNEXPECTED, 11);
	/* An arrival does not match a claimed message either. */
	expect_arrival(m, arr(true, 1, 1, 13, 8), UET_SES_MATCH_STORED, 0);
	/* The claim receive consumes exactly the claimed one. */
	p.flags = UET_SES_MATCH_RECV_TAGGED | UET_SES_MATCH_RECV_CLAIM;
	expect_post(m, p, UET_SES_MATCH_UNEXPECTED, 10);
	assert_int_equal(uet_ses_match_post(m, &p, &r), -ENOENT);
	/* Peek + discard drops 13. */
	p.flags = UET_SES_MATCH_RECV_TAGGED | UET_SES_MATCH_RECV_PEEK |
		  UET_SES_MATCH_RECV_DISCARD;
	expect_post(m, p, UET_SES_MATCH_DISCARDED, 0);
	/* Peek with nothing there: not found, nothing queued. */
	p.flags = UET_SES_MATCH_RECV_TAGGED | UET_SES_MATCH_RECV_PEEK;
	expect_post(m, p, UET_SES_MATCH_NOT_FOUND, 0);
	/* Claim then claim + discard drops 12. */
	p.tag = 2;
	p.context = 78;
	p.flags |= UET_SES_MATCH_RECV_CLAIM;
	expect_post(m, p, UET_SES_MATCH_PEEKED, 0);
	p.flags = UET_SES_MATCH_RECV_TAGGED | UET_SES_MATCH_RECV_CLAIM |
		  UET_SES_MATCH_RECV_DISCARD;
	expect_post(m, p, UET_SES_MATCH_DISCARDED, 0);
	assert_int_equal(st->peeks, 5);
	assert_int_equal(st->claims, 2);
	assert_int_equal(st->discards, 2);
	assert_int_equal(st->matched_unexpected, 2);
	assert_int_equal(st->posted, 0);
	assert_pools_full(m);
	uet_ses_match_free(m);
}

/* A stored message whose sender gave up before its last packet (its PDC
 * went, docs/DST.md "leak") is dropped: no receive matches it, its record
 * and chunks go back; a handed-over or unknown handle is refused. */
static void
match_unexp_abandon__stored_message_dropped(void **state)
{
	struct uet_ses_match *m = mk_default();
	struct uet_ses_match_arrival a = arr(true, 5, 1, 1, 3000);
	struct uet_ses_match_result r;
	uint8_t data[100] = { 1 };

	(void)state;
	a.data = data;
	a.data_len = sizeof(data);
	assert_int_equal(uet_ses_match_arrival(m, &a, &r), 0);
	assert_int_equal(r.verdict, UET_SES_MATCH_STORED);
	assert_int_equal(uet_ses_match_unexp_abandon(m, r.unexp), 0);
	assert_int_equal(uet_ses_match_unexp_abandon(m, r.unexp), -ENOENT);
	assert_int_equal(uet_ses_match_unexp_abandon(m, 9999), -ENOENT);
	assert_pools_full(m);
	/* the receive for its tag finds nothing now and is queued */
	expect_post(m, trcv(7, 4096, 5, 0, ANY), UET_SES_MATCH_POSTED, 0);
	assert_int_equal(uet_ses_match_cancel(m, 7), 0);
	/* handed over: only release applies */
	assert_int_equal(uet_ses_match_arrival(m, &a, &r), 0);
	assert_int_equal(r.verdict, UET_SES_MATCH_STORED);
	expect_post(m, trcv(8, 4096, 5, 0, ANY), UET_SES_MATCH_UNEXPECTED, 1);
	assert_int_equal(uet_ses_match_unexp_abandon(m, r.unexp), -ENOENT);
	assert_pools_full(m);
	uet_ses_match_free(m);
}

static void
match_cancel__found_not_found(void **state)
{
	struct uet_ses_match *m = mk_default();
	struct uet_ses_match_recv p = rcv(6, 100, ANY);
	struct uet_ses_match_result r;

	(void)state;
	expect_post(m, trcv(5, 64, 1, 0, ANY), UET_SES_MATCH_POSTED, 0);
	expect_post(m, trcv(9, 64, 1, 0xF, ANY), UET_SES_MATCH_POSTED, 0);
	assert_int_equal(uet_ses_match_cancel(m, 5), 0);
	assert_int_equal(uet_ses_match_cancel(m, 5), -ENOENT);
	assert_int_equal(uet_ses_match_cancel(m, 1234), -ENOENT);
	/* The cancelled receive no longer matches; the next one does. */
	expect_arrival(m, arr(true, 1, 1, 10, 8), UET_SES_MATCH_EXPECTED, 9);
	expect_arrival(m, arr(true, 1, 1, 11, 8), UET_SES_MATCH_STORED, 0);
	expect_arrival(m, arr(false, 0, 1, 12, 8), UET_SES_MATCH_STORED, 0);
	/* A pending multi-recv post can be cancelled too. */
	p.flags = UET_SES_MATCH_RECV_MULTI;
	p.min_free = 10;
	assert_int_equal(uet_ses_match_post(m, &p, &r), 0);
	assert_int_equal(r.flags, UET_SES_MATCH_F_MORE);
	assert_int_equal(uet_ses_match_unexp_release(m, r.unexp), 0);
	assert_int_equal(uet_ses_match_cancel(m, 6), 0);
	assert_int_equal(uet_ses_match_post_more(m, &r), -ENOENT);
	expect_post(m, trcv(7, 64, 1, 0, ANY), UET_SES_MATCH_UNEXPECTED, 11);
	assert_int_equal(uet_ses_match_stats_get(m)->cancels, 2);
	assert_pools_full(m);
	uet_ses_match_free(m);
}

/* ---- ordering property test against a reference model ---- */

#define MODEL_MAX 4096

struct model_rcv {
	uint64_t ctx;
	bool tagged;
	uint64_t tag, ignore, src;
};

struct model_msg {
	uint64_t id;
	bool tagged;
	uint64_t tag, src;
};

struct model {
	struct model_rcv rcv[MODEL_MAX];
	struct model_msg msg[MODEL_MAX];
	uint32_t nrcv, nmsg;
};

static uint64_t
draw(struct uet_rand *r)
{
	return uet_rand_next(r) >> 33;
}

static bool
model_accepts(const struct model_rcv *r, const struct model_msg *g)
{
	if (r->tagged != g->tagged)
		return false;
	if (r->src != ANY && r->src != g->src)
		return false;
	return !r->tagged || ((r->tag ^ g->tag) & ~r->ignore) == 0;
}

static void
model_step_post(struct uet_ses_match *m, struct model *md, struct uet_rand *rng,
		uint64_t ctx)
{
	static const uint64_t ignores[] = { 0, 0, 0, 0, 1, 6, 7, ~0ull };
	struct model_rcv mr;
	struct uet_ses_match_recv p;
	uint32_t i;

	mr.ctx = ctx;
	mr.tagged = draw(rng) % 10 < 7;
	mr.tag = mr.tagged ? draw(rng) % 8 : 0;
	mr.ignore = mr.tagged ? ignores[draw(rng) % 8] : 0;
	mr.src = draw(rng) % 4 == 0 ? ANY : draw(rng) % 3;
	p = mr.tagged ? trcv(ctx, 64, mr.tag, mr.ignore, mr.src)
		      : rcv(ctx, 64, mr.src);
	for (i = 0; i < md->nmsg; i++)
		if (model_accepts(&mr, &md->msg[i]))
			break;
	if (i < md->nmsg) {
		expect_post(m, p, UET_SES_MATCH_UNEXPECTED, md->msg[i].id);
		memmove(&md->msg[i], &md->msg[i + 1],
			(md->nmsg - i - 1) * sizeof(md->msg[0]));
		md->nmsg--;
		return;
	}
	expect_post(m, p, UET_SES_MATCH_POSTED, 0);
	assert_true(md->nrcv < MODEL_MAX);
	md->rcv[md->nrcv++] = mr;
}

static void
model_step_arrival(struct uet_ses_match *m, struct model *md, struct uet_rand *rng,
		   uint64_t id)
{
	struct model_msg g;
	uint32_t i;

	g.id = id;
	g.tagged = draw(rng) % 10 < 7;
	g.tag = g.tagged ? draw(rng) % 8 : 0;
	g.src = draw(rng) % 3;
	for (i = 0; i < md->nrcv; i++)
		if (model_accepts(&md->rcv[i], &g))
			break;
	if (i < md->nrcv) {
		expect_arrival(m, arr(g.tagged, g.tag, g.src, id, 16),
			       UET_SES_MATCH_EXPECTED, md->rcv[i].ctx);
		memmove(&md->rcv[i], &md->rcv[i + 1],
			(md->nrcv - i - 1) * sizeof(md->rcv[0]));
		md->nrcv--;
		return;
	}
	expect_arrival(m, arr(g.tagged, g.tag, g.src, id, 16),
		       UET_SES_MATCH_STORED, 0);
	assert_true(md->nmsg < MODEL_MAX);
	md->msg[md->nmsg++] = g;
}

static void
model_step_cancel(struct uet_ses_match *m, struct model *md, struct uet_rand *rng)
{
	uint32_t i;

	if (md->nrcv == 0) {
		assert_int_equal(uet_ses_match_cancel(m, 0), -ENOENT);
		return;
	}
	i = (uint32_t)(draw(rng) % md->nrcv);
	assert_int_equal(uet_ses_match_cancel(m, md->rcv[i].ctx), 0);
	memmove(&md->rcv[i], &md->rcv[i + 1],
		(md->nrcv - i - 1) * sizeof(md->rcv[0]));
	md->nrcv--;
}

/* Cancel every receive, then consume every message with exact posts. */
static void
model_drain(struct uet_ses_match *m, struct model *md)
{
	while (md->nrcv > 0)
		assert_int_equal(uet_ses_match_cancel(m,
					md->rcv[--md->nrcv].ctx), 0);
	for (uint32_t i = 0; i < md->nmsg; i++) {
		const struct model_msg *g = &md->msg[i];

		expect_post(m, g->tagged ? trcv(1, 64, g->tag, 0, g->src)
					 : rcv(1, 64, g->src),
			    UET_SES_MATCH_UNEXPECTED, g->id);
	}
	md->nmsg = 0;
}

static void
model_run(uint64_t seed, uint32_t buckets, uint32_t ops)
{
	static struct model md;
	struct uet_ses_match *m = mk(MODEL_MAX, MODEL_MAX, 64, MODEL_MAX,
				     buckets);
	uint64_t ctx = 1000, id = 1;
	struct uet_rand rng;

	uet_rand_seed(&rng, seed);
	memset(&md, 0, sizeof(md));
	for (uint32_t n = 0; n < ops; n++) {
		uint64_t r = draw(&rng) % 100;

		if (r < 47)
			model_step_post(m, &md, &rng, ctx++);
		else if (r < 97)
			model_step_arrival(m, &md, &rng, id++);
		else
			model_step_cancel(m, &md, &rng);
	}
	model_drain(m, &md);
	assert_pools_full(m);
	uet_ses_match_free(m);
}

static void
match_order__random_vs_model(void **state)
{
	(void)state;
	model_run(1, 1, 3000);
	model_run(2, 4, 6000);
	model_run(3, 64, 6000);
	model_run(0xC0FFEE, 1024, 6000);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(match_create__bad_config),
		cmocka_unit_test(match_arrival__untagged_fifo),
		cmocka_unit_test(match_arrival__tagged_exact),
		cmocka_unit_test(match_arrival__wildcard_ignore),
		cmocka_unit_test(match_arrival__directed_src),
		cmocka_unit_test(match_post__unexpected_data_handover),
		cmocka_unit_test(match_arrival__posted_then_arrival),
		cmocka_unit_test(match_arrival__truncation),
		cmocka_unit_test(match_multi__slicing_release),
		cmocka_unit_test(match_multi__drains_unexpected),
		cmocka_unit_test(match_unexp__exhaustion_entries),
		cmocka_unit_test(match_unexp__exhaustion_bytes),
		cmocka_unit_test(match_post__posted_pool_full),
		cmocka_unit_test(match_arrival__bad_input),
		cmocka_unit_test(match_peek__peek_claim_discard),
		cmocka_unit_test(match_cancel__found_not_found),
		cmocka_unit_test(match_unexp_abandon__stored_message_dropped),
		cmocka_unit_test(match_order__random_vs_model),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
