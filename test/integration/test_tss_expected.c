/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Secure PDC establishment by Expected_PSN end to end ([tss] pdc_start =
 * expected_0rtt, docs/TSS.md): two engines with TSS on (direct mode, SDI
 * 7) over ring ports, A sending to B in waves on 8 PDCs (one per JobID),
 * every PDC closed between two waves (A's idle close).
 *
 *   run 1   the first wave meets B's quiet time: refused, opened under
 *           B's names, and their closes' ACKs carry no Expected_PSN (a
 *           PDC opened under a name moves none, and B has none yet);
 *           every later ACK of a CLOSE from B carries the domain's
 *           Expected_PSN (a 16-byte ACK, sealed and opened like any
 *           frame) and A takes it; every PDC after the first wave opens
 *           at once; every message once, nothing dropped
 *   run 2   A restarted (its floor gone), B kept (its Expected_PSN
 *           kept): the first wave's Start_PSNs below it are refused
 *           once each (NACK NEW_START_PSN, sealed), renumbered and
 *           delivered once; the later waves open at once
 */

#include <stdio.h>
#include <string.h>

#include <rte_eal.h>
#include <rte_eth_ring.h>
#include <rte_ring.h>

#include <uet/uet_engine.h>

#include "itest.h"
#include "itest_ulp.h"

#define MSGS   300
#define WAVES  4
#define PDCS   8
#define IDLE   (2 * 1000 * 1000ull) /* [timers] close_idle, ns */

static const uint8_t ip_a[4] = { 10, 0, 2, 1 };
static const uint8_t ip_b[4] = { 10, 0, 2, 2 };
static const uint8_t mac_a[6] = { 0x02, 0, 0, 0, 2, 0x0a };
static const uint8_t mac_b[6] = { 0x02, 0, 0, 0, 2, 0x0b };

static char dir[64], state[80], key[128];

static void
config(struct uet_config *c, bool is_a)
{
	struct uet_config_tss *t = &c->tss;

	if (is_a)
		itest_cfg_ring(c, "net_ring_teA", ip_a, mac_a, ip_b, mac_b);
	else
		itest_cfg_ring(c, "net_ring_teB", ip_b, mac_b, ip_a, mac_a);
	c->timers.close_idle_ns = IDLE;
	itest_tss_domain(t, 7, key, state);
	t->pdc_start = UET_CONFIG_TSS_START_EXPECTED_0RTT;
}

static const struct uet_pds_stats *
pds_st(struct uet_engine *e)
{
	struct uet_ulp_ctx *ctx = uet_ulp_ctx_get(e, 0);

	return uet_pds_stats_get(uet_ulp_ctx_pds(ctx));
}

/* Both polled @p n times, the clock moved @p dt each time. */
static void
poll_both(struct uet_engine *a, struct uet_engine *b, unsigned long n,
	  uint64_t dt)
{
	for (unsigned long i = 0; i < n; i++) {
		vnow += dt;
		(void)uet_engine_poll(a, 1);
		(void)uet_engine_poll(b, 1);
	}
}

static bool
all_closed(struct uet_engine *a, struct uet_engine *b)
{
	return pds_st(a)->pdc_open_init == pds_st(a)->pdc_close_init &&
	       pds_st(b)->pdc_open_tgt == pds_st(b)->pdc_close_tgt;
}

/* One wave: A's stream raised to @p count messages in all and run to its
 * end on its PDCS PDCs; then both polled until every PDC of both closed
 * (A's idle close, its CLOSE, B's ACK of it). */
static void
wave(struct uet_engine *a, struct uet_engine *b, struct test_ulp *ra,
     uint64_t count)
{
	unsigned long i;

	test_ulp_set_count(ra, count);
	for (i = 0; i < 200000ul && !test_ulp_send_finished(ra); i++)
		poll_both(a, b, 1, 20000);
	CHECK(test_ulp_send_finished(ra));
	for (i = 0; i < 1000 && !all_closed(a, b); i++)
		poll_both(a, b, 1, 100000);
	CHECK(all_closed(a, b));
}

/* A (new, PDS seed @p seed) sends WAVES waves of MSGS messages to B,
 * sequence numbers from @p seq_base, on PDCS PDCs each. Returns A, to
 * free; *@p ra its ULP; *@p renum1 what A renumbered in its first wave. */
static struct uet_engine *
run_a(struct uet_engine *b, struct test_ulp *rb, struct test_ulp **ra,
      uint64_t seq_base, uint64_t seed, uint64_t *renum1)
{
	static struct uet_config ca;
	struct test_ulp_params pa, pb;
	struct uet_proto_params pp;
	struct test_ulp_result tx, rx;
	struct uet_pds_config pc;
	struct uet_engine *a;

	config(&ca, true);
	itest_ulp_stream(&pa, &pb, ip_a, ip_b, 4, UET_PDS_MODE_RUD, 64, MSGS,
			 16);
	pa.pdcs = PDCS;
	pa.seq_base = seq_base;
	pa.count = 0;
	*ra = test_ulp_create(&pa);
	CHECK(*ra != NULL);
	if (*ra == NULL)
		return NULL;
	/* a fixed Start_PSN sequence: the run is the same every time */
	uet_proto_pds_config(&ca, &pc);
	pc.seed = seed;
	pp = (struct uet_proto_params){ .ulp = &test_ulp_ops, .ulp_arg = *ra,
					.pds = &pc };
	a = itest_engine_virt("teA", &ca, &pp);
	CHECK(a != NULL);
	if (a == NULL)
		return NULL;
	for (unsigned int w = 1; w <= WAVES; w++) {
		wave(a, b, *ra, w * MSGS);
		if (w != 1)
			continue;
		*renum1 = pds_st(a)->new_start;
		/* past B's quiet time after its first SYN (2 x mpl_ns of
		 * its running time, 1 ms a poll) */
		poll_both(a, b, 250, 1000000);
	}
	test_ulp_result(*ra, &tx);
	test_ulp_result(rb, &rx);
	CHECK(tx.msgs_sent == WAVES * MSGS && tx.pkts_done_err == 0);
	CHECK(rx.rx_msgs == seq_base + WAVES * MSGS && rx.rx_dup == 0 &&
	      rx.rx_bad == 0);
	return a;
}

static void
no_tss_drops(struct uet_engine *e)
{
	struct uet_engine_stats st;

	CHECK(uet_engine_stats_get(e, &st) == 0);
	for (unsigned int r = 0; r < UET_ENGINE_TSS_DROPS; r++)
		CHECK(st.total.tss.rx_drop[r] == 0);
}

static void
run(void)
{
	static struct uet_config cb;
	struct test_ulp_params pa, pb;
	struct uet_proto_params pp;
	struct test_ulp *ra = NULL, *rb;
	struct uet_engine *a, *b;
	uint64_t epsn_tx, old, renum1 = 0;

	itest_tss_files(dir, "1f1e1d1c1b1a19181716151413121110"
			"000102030405060708090a0b0c0d0e0f", key, sizeof(key),
			state, sizeof(state));

	config(&cb, false);
	itest_ulp_stream(&pa, &pb, ip_a, ip_b, 4, UET_PDS_MODE_RUD, 64, MSGS,
			 16);
	pb.expect = 2 * WAVES * MSGS;
	rb = test_ulp_create(&pb);
	CHECK(rb != NULL);
	if (rb == NULL)
		return;
	pp = (struct uet_proto_params){ .ulp = &test_ulp_ops, .ulp_arg = rb };
	b = itest_engine_virt("teB", &cb, &pp);
	CHECK(b != NULL);
	if (b == NULL) {
		test_ulp_free(rb);
		return;
	}

	a = run_a(b, rb, &ra, 0, 0x5eed1ull, &renum1);
	if (a != NULL) {
		printf("run 1: A opened %lu PDCs in %u waves; B sent %lu ACKs "
		       "with the Expected_PSN, A took %lu (ignored %lu); A "
		       "renumbered %lu (%lu in the first wave, B's quiet "
		       "time), B refused %lu below the Expected_PSN\n",
		       (unsigned long)pds_st(a)->pdc_open_init, WAVES,
		       (unsigned long)pds_st(b)->epsn_tx,
		       (unsigned long)pds_st(a)->epsn_rx,
		       (unsigned long)pds_st(a)->epsn_ignored,
		       (unsigned long)pds_st(a)->new_start,
		       (unsigned long)renum1,
		       (unsigned long)pds_st(b)->syn_expected_old);
		CHECK(pds_st(a)->pdc_open_init == WAVES * PDCS);
		/* every close after the first wave's told A the
		 * Expected_PSN, sealed and opened */
		CHECK(renum1 == PDCS);
		CHECK(pds_st(b)->epsn_tx == (WAVES - 1) * PDCS);
		CHECK(pds_st(a)->epsn_rx == (WAVES - 1) * PDCS);
		CHECK(pds_st(a)->epsn_ignored == 0);
		/* and every PDC after the first wave opened at once */
		CHECK(pds_st(a)->new_start == renum1);
		CHECK(pds_st(b)->syn_expected_old == 0);
		no_tss_drops(a);
		no_tss_drops(b);
	}
	uet_engine_free(a);
	test_ulp_free(ra);

	/* run 2: A restarted (its floor gone), B kept */
	epsn_tx = pds_st(b)->epsn_tx;
	old = pds_st(b)->syn_expected_old;
	a = run_a(b, rb, &ra, WAVES * MSGS, 0x5eed2ull, &renum1);
	if (a != NULL) {
		printf("run 2 (A restarted): A opened %lu PDCs, renumbered "
		       "%lu (%lu in the first wave); B refused %lu below the "
		       "Expected_PSN, sent %lu more ACKs with it\n",
		       (unsigned long)pds_st(a)->pdc_open_init,
		       (unsigned long)pds_st(a)->new_start,
		       (unsigned long)renum1,
		       (unsigned long)(pds_st(b)->syn_expected_old - old),
		       (unsigned long)(pds_st(b)->epsn_tx - epsn_tx));
		/* the first wave's PDCs below it refused once each, and
		 * renumbered; none after */
		CHECK(pds_st(b)->syn_expected_old > old);
		CHECK(renum1 == pds_st(b)->syn_expected_old - old);
		CHECK(pds_st(a)->new_start == renum1);
		CHECK(pds_st(a)->epsn_rx == pds_st(b)->epsn_tx - epsn_tx);
		CHECK(pds_st(a)->epsn_rx == WAVES * PDCS);
		no_tss_drops(a);
		no_tss_drops(b);
	}
	uet_engine_free(a);
	test_ulp_free(ra);
	uet_engine_free(b);
	test_ulp_free(rb);
}

int
main(void)
{
	snprintf(dir, sizeof(dir), "/tmp/uet_tss_exp_XXXXXX");
	if (itest_tmp_eal(dir, "test_tss_expected") < 0)
		return 1;
	if (itest_ring_pair("teA", "teB") < 0) {
		fprintf(stderr, "ring ports failed\n");
		itest_rm_dir(dir);
		return 1;
	}
	run();
	(void)rte_eal_cleanup();
	itest_rm_dir(dir);
	printf("%s: %d failure(s)\n", failures ? "FAIL" : "PASS", failures);
	return failures ? 1 : 0;
}
