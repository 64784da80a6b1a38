/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A request that ran at its target just before the target's engine went
 * does not run again at the engine that replaces it (docs/WIRE-DECISIONS.md
 * "A SYN that reaches a restarted target"). Engines A and B over ring
 * ports, inline progress, the engine clock (the TSC: an injected clock
 * keeps no alive file):
 *
 *   A sends one message; B receives it; B's answer is lost (taken off
 *   the ring to A); B is freed and created again on the same port and
 *   address (its restart). A's RTO sends the SYN again and the new B
 *   refuses it (its quiet time after start).
 *   alive_dir, a directory of the test: the refusal says B restarted and
 *     since when the previous B is gone; A's PDC opened before, so the
 *     message fails (-ECONNRESET) and the new B never receives it.
 *   alive_dir = off: the new B cannot tell; A renumbers and the new B
 *     receives the message a second time (what the alive files prevent).
 *
 * Bounded by iteration counts and 5 s of wall time; no timing assertions.
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rte_eal.h>
#include <rte_eth_ring.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include <uet/uet_engine.h>
#include <uet/uet_pds.h>
#include <uet/uet_ulp.h>

#include "itest.h"
#include "itest_ulp.h"

static const uint8_t ip_a[4] = { 10, 0, 3, 1 };
static const uint8_t ip_b[4] = { 10, 0, 3, 2 };
static const uint8_t mac_a[6] = { 0x02, 0, 0, 0, 3, 0x0a };
static const uint8_t mac_b[6] = { 0x02, 0, 0, 0, 3, 0x0b };

static char dir[64];

/* Every frame of ring @p from into ring @p to, or freed (@p to NULL). */
static void
move(const char *from, const char *to)
{
	struct rte_ring *f = rte_ring_lookup(from);
	struct rte_ring *t = to != NULL ? rte_ring_lookup(to) : NULL;
	struct rte_mbuf *m[64];
	unsigned int n;

	n = rte_ring_dequeue_burst(f, (void **)m, RTE_DIM(m), NULL);
	if (t == NULL || rte_ring_enqueue_burst(t, (void **)m, n, NULL) != n) {
		CHECK(t == NULL);
		rte_pktmbuf_free_bulk(m, n);
	}
}

static struct uet_engine *
engine(const char *name, const struct uet_config *c,
       struct uet_proto_params *pp)
{
	struct uet_engine_params p = {
		.cfg = c, .name = name, .hook = &uet_proto_hook_ops,
		.hook_arg = pp,
	};
	struct uet_engine *e = uet_engine_create(&p);

	if (e == NULL)
		fprintf(stderr, "engine %s: %s\n", name,
			rte_strerror(rte_errno));
	return e;
}

static double
wall_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static const struct uet_pds_stats *
pds_stats(struct uet_engine *e)
{
	struct uet_ulp_ctx *ctx = uet_ulp_ctx_get(e, 0);

	return ctx != NULL && uet_ulp_ctx_pds(ctx) != NULL ?
	       uet_pds_stats_get(uet_ulp_ctx_pds(ctx)) : NULL;
}

/* One run with [timers] alive_dir @p alive_dir. @return the times the
 * message was received (by B and by its restart); *@p failed: A's
 * message failed. */
static unsigned int
run(const char *alive_dir, bool *failed)
{
	static struct uet_config ca, cb;
	struct test_ulp_params pa, pb;
	struct uet_proto_params ppa, ppb, ppb2;
	struct test_ulp *ra = NULL, *rb = NULL, *rb2 = NULL;
	struct test_ulp_result tx, rx, rx2;
	struct uet_engine *a = NULL, *b = NULL;
	const struct uet_pds_stats *st;
	unsigned int received = 0, done;
	unsigned long i;
	double t0;

	*failed = false;
	itest_cfg_ring(&ca, "net_ring_rsA", ip_a, mac_a, ip_b, mac_b);
	itest_cfg_ring(&cb, "net_ring_rsB", ip_b, mac_b, ip_a, mac_a);
	snprintf(ca.timers.alive_dir, sizeof(ca.timers.alive_dir), "%s",
		 alive_dir);
	snprintf(cb.timers.alive_dir, sizeof(cb.timers.alive_dir), "%s",
		 alive_dir);
	itest_ulp_stream(&pa, &pb, ip_a, ip_b, 4, UET_PDS_MODE_RUD, 64, 1, 8);
	ra = test_ulp_create(&pa);
	rb = test_ulp_create(&pb);
	rb2 = test_ulp_create(&pb);
	CHECK(ra != NULL && rb != NULL && rb2 != NULL);
	if (ra == NULL || rb == NULL || rb2 == NULL)
		goto out;
	ppa = (struct uet_proto_params){ .ulp = &test_ulp_ops, .ulp_arg = ra };
	ppb = (struct uet_proto_params){ .ulp = &test_ulp_ops, .ulp_arg = rb };
	ppb2 = (struct uet_proto_params){ .ulp = &test_ulp_ops,
					  .ulp_arg = rb2 };
	b = engine("rsB", &cb, &ppb);
	a = engine("rsA", &ca, &ppa);
	CHECK(a != NULL && b != NULL);
	if (a == NULL || b == NULL)
		goto out;
	/* B runs the request (after its quiet time's refusal, which A
	 * hears); from then on B's answers never reach A */
	t0 = wall_s();
	for (i = 0, done = 0; i < 20000000ul && wall_s() - t0 < 5.0 &&
			      done < 1000; i++) {
		(void)uet_engine_poll(a, 1);
		move("rs_ab", "rs_mb");
		(void)uet_engine_poll(b, 1);
		test_ulp_result(rb, &rx);
		if (rx.rx_msgs != 0) {
			move("rs_ba", NULL);
			done++;
		}
	}
	CHECK(rx.rx_msgs == 1);
	received = (unsigned int)rx.rx_msgs;
	/* B goes; its restart on the same port and address */
	uet_engine_free(b);
	b = engine("rsB", &cb, &ppb2);
	CHECK(b != NULL);
	if (b == NULL)
		goto out;
	t0 = wall_s();
	for (i = 0; i < 20000000ul && wall_s() - t0 < 5.0; i++) {
		(void)uet_engine_poll(a, 1);
		move("rs_ab", "rs_mb");
		(void)uet_engine_poll(b, 1);
		if ((i & 255) == 0 && test_ulp_send_finished(ra))
			break;
	}
	test_ulp_result(ra, &tx);
	test_ulp_result(rb2, &rx2);
	received += (unsigned int)rx2.rx_msgs;
	*failed = tx.pkts_done_err != 0;
	st = pds_stats(a);
	printf("alive_dir %s: the message received %u time(s), %s at A "
	       "(A's PDCs failed by a restart: %lu); the new B refused %lu "
	       "SYN(s) it had no record of\n", alive_dir, received,
	       *failed ? "failed" : "completed",
	       st != NULL ? (unsigned long)st->syn_restart : 0,
	       pds_stats(b) != NULL ?
	       (unsigned long)pds_stats(b)->syn_forgot : 0);
	CHECK(test_ulp_send_finished(ra));
out:
	uet_engine_free(b);
	uet_engine_free(a);
	test_ulp_free(rb2);
	test_ulp_free(rb);
	test_ulp_free(ra);
	return received;
}

int
main(void)
{
	unsigned int n;
	bool failed;
	int rc;

	snprintf(dir, sizeof(dir), "/tmp/uet_alive_rst_XXXXXX");
	if (mkdtemp(dir) == NULL)
		return 1;
	rc = uet_engine_eal_init("test_engine_restart",
				 "-l 0 --no-huge -m 512 --no-pci "
				 "--log-level=4", NULL);
	if (rc < 0 || itest_ring_pair_tapped("rs", 1024) < 0) {
		fprintf(stderr, "EAL or ring ports: %s\n", strerror(-rc));
		itest_rm_dir(dir);
		return 1;
	}
	n = run(dir, &failed);
	CHECK(n == 1 && failed);
	n = run("off", &failed);
	CHECK(n == 2 && !failed);
	(void)rte_eal_cleanup();
	itest_rm_dir(dir);
	printf("%s: %d failure(s)\n", failures ? "FAIL" : "PASS", failures);
	return failures ? 1 : 0;
}
