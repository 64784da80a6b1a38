/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * SES flow control and failure propagation over the fake lossy wire
 * (ses_fakewire.c): deliveries refused with resource NACKs when the
 * unexpected store or the target records run out (the sender backs off
 * and succeeds once receives are posted), PDC_DOWN failing what the SES
 * still waits for, rendezvous read-back failures reported to the sender
 * (MSG_ERROR), and small READ / WRITE over RUDI with their responses in
 * the RUDI_RESP. The seed is printed; UET_TEST_SEED= replays.
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
#define NMSG 64
#define SLOT 4096

static uint64_t seed = 0xfc5e5ull;
static struct sfw w;
static uint8_t *sbuf, *rbuf;

static void
lossy(uint32_t drop)
{
	int d;

	for (d = 0; d < 2; d++) {
		w.f[d].drop = drop;
		w.f[d].dup = 20000;     /* 2% */
		w.f[d].reorder = 100000; /* 10% */
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
start(const struct sfw_opts *o)
{
	if (sfw_init_opts(&w, UET_PROFILE_HPC, seed, o) != 0)
		return -1;
	sbuf = calloc(NMSG, SLOT);
	rbuf = calloc(NMSG, SLOT);
	return sbuf == NULL || rbuf == NULL ? -1 : 0;
}

static int
teardown(void **state)
{
	(void)state;
	sfw_fini(&w);
	free(sbuf);
	free(rbuf);
	return 0;
}

static const struct uet_ses_cqe *
cqe(int node, uint64_t ctx)
{
	int i = sfw_cq_find(&w, node, ctx);

	if (i < 0)
		print_error("node %d: no completion %llu\n", node,
			    (unsigned long long)ctx);
	assert_true(i >= 0);
	return &w.n[node].cq[i];
}

/* Completions with @p ctx on @p node (exactly-once checks). */
static uint32_t
cq_count(int node, uint64_t ctx)
{
	uint32_t i, n = 0;

	for (i = 0; i < w.n[node].ncq; i++)
		n += w.n[node].cq[i].context == ctx;
	return n;
}

static void
post_tagged(int node, uint64_t ctx, void *buf, uint64_t len, uint64_t tag)
{
	struct uet_ses_recv r;

	memset(&r, 0, sizeof(r));
	r.op = 2;
	r.context = ctx;
	r.buf = buf;
	r.len = len;
	r.tag = tag;
	assert_int_equal(uet_ses_recv_post(w.n[node].ses, &r, w.now), 0);
}

static const struct uet_ses_stats *
sst(int node)
{
	return uet_ses_stats_get(w.n[node].ses);
}

static const struct uet_pds_stats *
pst(int node)
{
	return uet_pds_stats_get(w.n[node].pds);
}

/* Message i: length 1 .. ~3 MTU, tag 1000 + i. */
static uint32_t
msg_len(uint32_t i)
{
	return 1 + (i * 797u) % 3200u;
}

static void
send_all(uint32_t flags)
{
	struct uet_ses_wr wr;
	uint32_t i;

	for (i = 0; i < NMSG; i++) {
		fill(sbuf + i * SLOT, msg_len(i), i + 1);
		sfw_wr(&w, 0, &wr, UET_SES_WR_TSEND, sbuf + i * SLOT,
		       msg_len(i));
		wr.tag = 1000 + i;
		wr.context = i + 1;
		wr.flags |= flags;
		assert_int_equal(uet_ses_submit(w.n[0].ses, &wr, NULL), 0);
	}
}

/* Every message once, byte-exact, in its own receive; every send OK. */
static void
check_all(void)
{
	const struct uet_ses_cqe *c;
	uint32_t i;

	if (!sfw_run_cq(&w, 1, NMSG, 4 * RUN_NS) ||
	    !sfw_run_cq(&w, 0, NMSG, 4 * RUN_NS)) {
		print_error("cq %u/%u refused %llu/%llu/%llu pdc_fail %llu "
			    "rx_rc ok %llu undeliv %llu no_match %llu\n",
			    w.n[0].ncq, w.n[1].ncq,
			    (unsigned long long)sst(1)->refused_unexp,
			    (unsigned long long)sst(1)->refused_rec,
			    (unsigned long long)sst(1)->refused_res,
			    (unsigned long long)pst(0)->pdc_fail,
			    (unsigned long long)sst(1)->rx_rc[UET_RC_OK],
			    (unsigned long long)sst(1)->rx_rc[UET_RC_UNDELIVERABLE],
			    (unsigned long long)sst(1)->rx_rc[UET_RC_NO_MATCH]);
		fail();
	}
	for (i = 0; i < NMSG; i++) {
		c = cqe(0, i + 1);
		if (c->status != 0)
			print_error("send %u: %d rc %u\n", i, c->status,
				    c->prov_errno);
		assert_int_equal(c->status, 0);
		assert_int_equal(cq_count(0, i + 1), 1);
		c = cqe(1, 5000 + i);
		assert_int_equal(c->status, 0);
		assert_int_equal(c->len, msg_len(i));
		assert_int_equal(c->tag, 1000 + i);
		assert_int_equal(cq_count(1, 5000 + i), 1);
		assert_memory_equal(rbuf + i * SLOT, sbuf + i * SLOT,
				    msg_len(i));
		assert_int_equal(rbuf[i * SLOT + msg_len(i)], 0);
	}
	assert_int_equal(w.n[0].ncq, NMSG);
	assert_int_equal(w.n[1].ncq, NMSG);
	assert_true(sfw_run_idle(&w, RUN_NS));
}

/* Post the receives in a scrambled order, a few per 100 us of fake time,
 * while the senders are backing off. */
static void
post_all_slowly(void)
{
	uint32_t i, k;

	for (i = 0; i < NMSG; i++) {
		k = (i * 37u + 11u) % NMSG; /* 37 is prime to 64 */
		post_tagged(1, 5000 + k, rbuf + k * SLOT, SLOT, 1000 + k);
		sfw_step(&w, 25000);
	}
}

/* ---- 1. unexpected-list flow control ---- */

static void
fc__unexpected_bound(void **state)
{
	struct sfw_opts o;
	uint32_t i;

	(void)state;
	memset(&o, 0, sizeof(o));
	o.unexp_max = 4;    /* 4 unexpected messages ... */
	o.unexp_chunks = 6; /* ... and 6 KiB of their data */
	assert_int_equal(start(&o), 0);
	lossy(50000);
	send_all(0);
	/* No receive yet: the store fills, then everything is refused. */
	for (i = 0; i < 400 && sst(1)->refused_unexp < 2 * NMSG; i++)
		sfw_step(&w, 10000);
	assert_true(sst(1)->refused_unexp >= 2 * NMSG);
	assert_true(pst(0)->nack_rx[UET_NACK_NO_SES_MSG_AVAIL] > 0);
	assert_true(pst(0)->retx_backoff > 0);
	assert_int_equal(sst(1)->unexp_drop, 0);
	/* Only the messages the store took are answered (OK, OVERFLOW). */
	assert_true(w.n[0].ncq <= o.unexp_max);
	for (i = 0; i < w.n[0].ncq; i++)
		assert_int_equal(w.n[0].cq[i].status, 0);
	post_all_slowly();
	check_all();
	assert_int_equal(sst(1)->unexp_drop, 0);
	assert_int_equal(sst(1)->rx_rc[UET_RC_NO_MATCH], 0);
	print_message("# refused %llu deliveries, %llu back-off retransmits\n",
		      (unsigned long long)sst(1)->refused_unexp,
		      (unsigned long long)pst(0)->retx_backoff);
}

/* Same under ROD: in-order delivery survives refusals. */
static void
fc__unexpected_bound_rod(void **state)
{
	struct sfw_opts o;
	uint32_t i;

	(void)state;
	memset(&o, 0, sizeof(o));
	o.unexp_max = 2;
	o.unexp_chunks = 4;
	assert_int_equal(start(&o), 0);
	lossy(20000);
	send_all(UET_SES_WR_F_ORDERED);
	for (i = 0; i < 400 && sst(1)->refused_unexp == 0; i++)
		sfw_step(&w, 10000);
	assert_true(sst(1)->refused_unexp > 0);
	post_all_slowly();
	check_all();
}

/* Receives posted, but only 2 reassembly records: multi-packet messages
 * beyond them are refused and retried, none is answered UNDELIVERABLE. */
static void
fc__target_records(void **state)
{
	struct sfw_opts o;
	uint32_t i;

	(void)state;
	memset(&o, 0, sizeof(o));
	o.max_tgt_msgs = 2;
	assert_int_equal(start(&o), 0);
	lossy(50000);
	for (i = 0; i < NMSG; i++)
		post_tagged(1, 5000 + i, rbuf + i * SLOT, SLOT, 1000 + i);
	send_all(0);
	check_all();
	assert_true(sst(1)->refused_rec > 0);
	assert_int_equal(sst(1)->rx_rc[UET_RC_UNDELIVERABLE], 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(fc__unexpected_bound, teardown),
		cmocka_unit_test_teardown(fc__unexpected_bound_rod, teardown),
		cmocka_unit_test_teardown(fc__target_records, teardown),
	};
	const char *s = getenv("UET_TEST_SEED");

	if (s != NULL)
		seed = strtoull(s, NULL, 0);
	printf("# seed 0x%llx\n", (unsigned long long)seed);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
