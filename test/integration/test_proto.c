/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * PDS hook integration test in one EAL process (--no-huge): two engines
 * over rte_eth_from_rings() ports back to back, both inline on this
 * thread, the PDS hook (pmd/proto/proto.c) with the uet-perf raw-PDS ULP
 * (apps/uet-perf/test_ulp.c: sequence numbers, byte-exact payload check,
 * per-packet delivery counts) under injected faults on A's data (drop,
 * dup, reorder, trim, ECN, corruption) and B's control packets (drop,
 * corruption), over IPv4 and IPv6 (the UDP checksum computed by the
 * hook's TX path and verified by the engine's RX path):
 *
 *   RUD, ROD   every message delivered exactly once, byte-exact;
 *              ROD in order; every submission completed without error
 *   RUDI       every message delivered at least once, byte-exact
 *   UUD        never duplicated (no dup fault: UUD has no state to
 *              suppress a duplicated frame), byte-exact
 *
 * Bounded by loop iterations and message counts; no timing assertions.
 */

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_eth_ring.h>
#include <rte_ring.h>

#include <uet/uet_engine.h>
#include <uet/uet_ulp.h>

#include "itest.h"
#include "itest_ulp.h"

static const uint8_t ip_a[4] = { 10, 0, 0, 1 };
static const uint8_t ip_b[4] = { 10, 0, 0, 2 };
static const uint8_t mac_a[6] = { 0x02, 0, 0, 0, 0, 0x0a };
static const uint8_t mac_b[6] = { 0x02, 0, 0, 0, 0, 0x0b };
static const uint8_t ip6_a[16] = { 0xfd, 0, [15] = 1 };
static const uint8_t ip6_b[16] = { 0xfd, 0, [15] = 2 };
static unsigned int run_no;

struct scenario {
	const char *name;
	uint8_t mode;
	uint32_t size;
	uint64_t count;
	uint32_t window;
	bool dup;
	bool ipv6;
};

/* Port and static neighbour on IPv6 only: FA @p ip, peer @p pip. */
static void
config_ipv6(struct uet_config *c, const uint8_t *ip, const uint8_t *pip)
{
	c->port[0].has_ipv4 = false;
	c->port[0].has_ipv6 = true;
	memcpy(&c->port[0].ipv6, ip, 16);
	c->neighbor[0].ip.family = AF_INET6;
	memcpy(&c->neighbor[0].ip.v6, pip, 16);
}

static struct uet_engine *
engine_make(const char *tag, const struct uet_config *c,
	    struct uet_proto_params *pp)
{
	struct uet_engine_params p = {
		.cfg = c, .hook = &uet_proto_hook_ops, .hook_arg = pp,
	};
	char name[16];
	struct uet_engine *e;

	snprintf(name, sizeof(name), "tp%s%u", tag, run_no);
	p.name = name;
	e = uet_engine_create(&p);
	if (e == NULL)
		fprintf(stderr, "engine %s: %s\n", name,
			rte_strerror(rte_errno));
	return e;
}

static void
run(const struct scenario *s)
{
	struct uet_config ca, cb;
	struct test_ulp_params pa, pb;
	struct uet_proto_params ppa, ppb;
	struct uet_engine *a = NULL, *b = NULL;
	struct test_ulp *ra, *rb;
	struct test_ulp_result tx, rx;
	static struct uet_engine_stats st;
	bool fin = false;
	uint32_t *ppm;

	run_no++;
	itest_cfg_ring(&ca, "net_ring_tpA", ip_a, mac_a, ip_b, mac_b);
	itest_cfg_ring(&cb, "net_ring_tpB", ip_b, mac_b, ip_a, mac_a);
	if (s->ipv6) {
		config_ipv6(&ca, ip6_a, ip6_b);
		config_ipv6(&cb, ip6_b, ip6_a);
	}
	/* corrupted frames must die on their checksum: required, not auto's
	 * none on a ring port */
	ca.port[0].udp_checksum = UET_CONFIG_UDP_CSUM_ON;
	cb.port[0].udp_checksum = UET_CONFIG_UDP_CSUM_ON;
	ca.fault.enabled = true;
	ca.fault.seed = 7 + run_no;
	ca.fault.reorder_depth = 3;
	ppm = ca.fault.ppm[UET_CONFIG_FAULT_TX][UET_CONFIG_FAULT_DATA];
	ppm[UET_CONFIG_FAULT_DROP] = 30000;
	ppm[UET_CONFIG_FAULT_DUP] = s->dup ? 20000 : 0;
	ppm[UET_CONFIG_FAULT_REORDER] = 30000;
	ppm[UET_CONFIG_FAULT_TRIM] = 20000;
	ppm[UET_CONFIG_FAULT_ECN] = 30000;
	ppm[UET_CONFIG_FAULT_CORRUPT] = 10000;
	if (s->mode != UET_PDS_MODE_UUD) {
		cb.fault.enabled = true;
		cb.fault.seed = 99 + run_no;
		ppm = cb.fault.ppm[UET_CONFIG_FAULT_TX]
				  [UET_CONFIG_FAULT_CONTROL];
		ppm[UET_CONFIG_FAULT_DROP] = 20000;
		ppm[UET_CONFIG_FAULT_CORRUPT] = 10000;
	}
	if (s->ipv6)
		itest_ulp_stream(&pa, &pb, ip6_a, ip6_b, 16, s->mode, s->size,
				 s->count, s->window);
	else
		itest_ulp_stream(&pa, &pb, ip_a, ip_b, 4, s->mode, s->size,
				 s->count, s->window);
	ra = test_ulp_create(&pa);
	rb = test_ulp_create(&pb);
	CHECK(ra != NULL && rb != NULL);
	if (ra == NULL || rb == NULL)
		goto out;
	ppa = (struct uet_proto_params){ .ulp = &test_ulp_ops, .ulp_arg = ra };
	ppb = (struct uet_proto_params){ .ulp = &test_ulp_ops, .ulp_arg = rb };
	a = engine_make("A", &ca, &ppa);
	b = engine_make("B", &cb, &ppb);
	CHECK(a != NULL && b != NULL);
	if (a == NULL || b == NULL)
		goto out;
	/* bounded by iterations; RTOs fire on real time in between */
	for (unsigned long i = 0; i < 20000000ul && !fin; i++) {
		(void)uet_engine_poll(a, 1);
		(void)uet_engine_poll(b, 1);
		fin = (i & 15) == 0 && test_ulp_send_finished(ra);
	}
	for (unsigned int i = 0; i < 5000; i++) {
		(void)uet_engine_poll(a, 1);
		(void)uet_engine_poll(b, 1);
	}
	test_ulp_result(ra, &tx);
	test_ulp_result(rb, &rx);
	CHECK(uet_engine_stats_get(a, &st) == 0);
	printf("%-10s sent %lu msgs, done %lu ok / %lu err; delivered %lu "
	       "msgs (%lu pkts), lost %lu, dup %lu, bad %lu, order %lu; "
	       "A faults: drop %lu dup %lu reorder %lu trim %lu ecn %lu; "
	       "retx %lu\n", s->name, (unsigned long)tx.msgs_sent,
	       (unsigned long)tx.pkts_done_ok, (unsigned long)tx.pkts_done_err,
	       (unsigned long)rx.rx_msgs, (unsigned long)rx.rx_pkts,
	       (unsigned long)rx.rx_lost, (unsigned long)rx.rx_dup,
	       (unsigned long)rx.rx_bad, (unsigned long)rx.rx_order_err,
	       (unsigned long)st.total.fault[1].applied[UET_CONFIG_FAULT_DROP],
	       (unsigned long)st.total.fault[1].applied[UET_CONFIG_FAULT_DUP],
	       (unsigned long)st.total.fault[1].applied[UET_CONFIG_FAULT_REORDER],
	       (unsigned long)st.total.fault[1].applied[UET_CONFIG_FAULT_TRIM],
	       (unsigned long)st.total.fault[1].applied[UET_CONFIG_FAULT_ECN],
	       (unsigned long)uet_ulp_ctx_stats(uet_ulp_ctx_get(a, 0))->tx_retx);
	CHECK(fin);
	CHECK(tx.msgs_sent == s->count);
	CHECK(rx.rx_bad == 0);
	/* the faults happened; corrupted frames died on their checksum
	 * (or IPv4 header checksum) before the PDS */
	CHECK(st.total.fault[1].applied[UET_CONFIG_FAULT_DROP] > 0);
	CHECK(st.total.fault[1].applied[UET_CONFIG_FAULT_TRIM] > 0);
	CHECK(st.total.fault[1].applied[UET_CONFIG_FAULT_CORRUPT] > 0);
	CHECK(uet_engine_stats_get(b, &st) == 0);
	CHECK(st.total.rx_csum_bad > 0 && st.total.rx_csum_none == 0);
	CHECK(st.total.rx_trimmed > 0);
	switch (s->mode) {
	case UET_PDS_MODE_RUD:
	case UET_PDS_MODE_ROD:
		CHECK(rx.rx_lost == 0);
		CHECK(rx.rx_dup == 0);
		CHECK(rx.rx_msgs == s->count);
		CHECK(tx.pkts_done_err == 0);
		CHECK(rx.rx_order_err == 0);
		break;
	case UET_PDS_MODE_RUDI:
		CHECK(rx.rx_lost == 0);
		CHECK(rx.rx_msgs == s->count);
		break;
	default:
		CHECK(rx.rx_dup == 0);
		CHECK(rx.rx_msgs > 0);
		break;
	}
out:
	uet_engine_free(b);
	uet_engine_free(a);
	test_ulp_free(rb);
	test_ulp_free(ra);
}

/*
 * The hook's next deadline covers the ULP's timers (next_deadline op):
 * a ULP with a timer armed before every PDS timer is what an lcore that
 * sleeps, or a virtual clock, waits for; with none armed, the PDS's.
 */
static uint64_t fake_deadline;

static uint64_t
fake_next_deadline(void *priv, struct uet_ulp_ctx *ctx)
{
	(void)priv;
	(void)ctx;
	return fake_deadline;
}

static void
ulp_deadline(void)
{
	struct uet_ulp_ops ops = test_ulp_ops;
	struct uet_proto_params pp;
	struct uet_engine *e = NULL;
	struct uet_ulp_ctx *ctx;
	struct test_ulp_params p;
	struct uet_config c;
	struct test_ulp *r;
	uint64_t pds_t;

	run_no++;
	itest_cfg_ring(&c, "net_ring_tpA", ip_a, mac_a, ip_b, mac_b);
	memset(&p, 0, sizeof(p));
	memcpy(p.peer.addr, ip_b, 4);
	p.mode = UET_PDS_MODE_RUD;
	p.size = 64;
	r = test_ulp_create(&p);
	CHECK(r != NULL);
	if (r == NULL)
		return;
	ops.next_deadline = fake_next_deadline;
	pp = (struct uet_proto_params){ .ulp = &ops, .ulp_arg = r };
	e = engine_make("D", &c, &pp);
	CHECK(e != NULL);
	ctx = e != NULL ? uet_ulp_ctx_get(e, 0) : NULL;
	CHECK(ctx != NULL);
	if (ctx == NULL)
		goto out;
	pds_t = uet_pds_next_deadline(uet_ulp_ctx_pds(ctx));
	fake_deadline = 12345;
	CHECK(pds_t > fake_deadline);
	CHECK(uet_engine_next_deadline(e) == fake_deadline);
	fake_deadline = UINT64_MAX;
	CHECK(uet_engine_next_deadline(e) == pds_t);
	printf("ulp-deadline ulp 12345 -> engine 12345; none -> PDS %llu\n",
	       (unsigned long long)pds_t);
out:
	uet_engine_free(e);
	test_ulp_free(r);
}

int
main(void)
{
	static const struct scenario sc[] = {
		{ "rud", UET_PDS_MODE_RUD, 64, 3000, 256, true },
		{ "rud-multi", UET_PDS_MODE_RUD, 5000, 300, 256, true },
		{ "rod", UET_PDS_MODE_ROD, 64, 1000, 16, true },
		{ "rod-multi", UET_PDS_MODE_ROD, 3000, 200, 16, true },
		/* RUDI has a fixed RTO (UEC 1.0 PDS RUDI mode) and no
		 * congestion control yet: a window that queues more than an
		 * RTO's worth of requests on a slow (sanitizer) build turns
		 * into retransmission storms and exhausted retries. */
		{ "rudi", UET_PDS_MODE_RUDI, 64, 2000, 32, true },
		{ "uud", UET_PDS_MODE_UUD, 64, 2000, 256, false },
		{ "rud-ipv6", UET_PDS_MODE_RUD, 3000, 500, 256, true, true },
		{ "rod-ipv6", UET_PDS_MODE_ROD, 64, 500, 16, true, true },
	};
	int rc;

	rc = uet_engine_eal_init("test_proto",
				 "-l 0 --no-huge -m 512 --no-pci "
				 "--log-level=4", NULL);
	if (rc < 0) {
		fprintf(stderr, "EAL: %s\n", strerror(-rc));
		return 1;
	}
	if (itest_ring_pair("tpA", "tpB") < 0) {
		fprintf(stderr, "ring ports failed\n");
		return 1;
	}
	for (unsigned int i = 0; i < RTE_DIM(sc); i++)
		run(&sc[i]);
	ulp_deadline();
	(void)rte_eal_cleanup();
	printf("%s: %d failure(s)\n", failures ? "FAIL" : "PASS", failures);
	return failures ? 1 : 0;
}
