/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Tests of src/fabric/fabric_topo.c and fabric.c: configuration checks,
 * the shapes (leaf/spine, K-ary fat tree), routes and the ECMP spread of
 * entropy values across spines and cores.
 */

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "fabric_harness.h"

static struct fh H;

static struct uet_fabric *
make(struct uet_fabric_config *c)
{
	int err = 0;
	struct uet_fabric *fab;

	memset(&H, 0, sizeof(H));
	H.cap_dscp = -1;
	fab = uet_fabric_create(c, &err);
	assert_non_null(fab);
	assert_int_equal(err, 0);
	H.fab = fab;
	return fab;
}

static void
uet_fabric_config_check__rejects_bad_fields(void **state)
{
	struct uet_fabric_config c;
	const char *why = NULL;
	int err = 0;

	(void)state;
	fh_config(&c, &H);
	assert_int_equal(uet_fabric_config_check(&c, &why), 0);
	assert_null(why);
	c.drop_milli = 1500;
	assert_int_equal(uet_fabric_config_check(&c, &why), -EINVAL);
	assert_string_equal(why, "drop_milli (2000..5000)");
	fh_config(&c, &H);
	c.dscp.trimmed = c.dscp.control;
	assert_int_equal(uet_fabric_config_check(&c, &why), -EINVAL);
	assert_string_equal(why, "dscp (distinct per class)");
	fh_config(&c, &H);
	c.topo = UET_FABRIC_TOPO_FAT_TREE;
	c.k = 5;
	assert_int_equal(uet_fabric_config_check(&c, &why), -EINVAL);
	fh_config(&c, &H);
	c.ecn_min_milli = c.ecn_max_milli;
	assert_int_equal(uet_fabric_config_check(&c, &why), -EINVAL);
	fh_config(&c, &H);
	c.deliver = NULL;
	assert_null(uet_fabric_create(&c, &err));
	assert_int_equal(err, -EINVAL);
	fh_config(&c, &H);
	c.link_rate_bps = 0;
	assert_int_equal(uet_fabric_config_check(&c, NULL), -EINVAL);
	fh_config(&c, &H);
	c.sample_ns = 1000; /* a period without a hook does nothing */
	assert_int_equal(uet_fabric_config_check(&c, &why), -EINVAL);
	assert_string_equal(why,
			    "sample_ns (non-zero exactly when sample is set)");
	uet_fabric_free(NULL);
}

static void
uet_fabric_create__leaf_spine_shape(void **state)
{
	struct uet_fabric_config c;
	struct uet_fabric *fab;
	struct uet_fabric_link_info li;
	int l;

	(void)state;
	fh_config(&c, &H);
	c.hosts = 10; /* 3 leaves, the last one with 2 hosts */
	c.hosts_per_leaf = 4;
	c.spines = 2;
	fab = make(&c);
	assert_int_equal(uet_fabric_hosts(fab), 10);
	assert_int_equal(uet_fabric_tier_size(fab, UET_FABRIC_TIER_LEAF), 3);
	assert_int_equal(uet_fabric_tier_size(fab, UET_FABRIC_TIER_SPINE), 2);
	assert_int_equal(uet_fabric_tier_size(fab, UET_FABRIC_TIER_CORE), 0);
	assert_int_equal(uet_fabric_links(fab), 10 + 3 * 2);
	l = uet_fabric_link_find(fab, UET_FABRIC_TIER_HOST, 9,
				 UET_FABRIC_TIER_LEAF, 2);
	assert_true(l >= 0);
	assert_int_equal(uet_fabric_link_info(fab, (uint32_t)l, &li), 0);
	assert_int_equal(li.tier[0], UET_FABRIC_TIER_HOST);
	assert_int_equal(li.index[0], 9);
	assert_true(li.up);
	assert_int_equal(li.rate_bps, c.link_rate_bps);
	assert_int_equal(uet_fabric_link_find(fab, UET_FABRIC_TIER_HOST, 9,
					      UET_FABRIC_TIER_LEAF, 1),
			 -ENOENT);
	assert_int_equal(uet_fabric_link_info(fab, 99, &li), -EINVAL);
	uet_fabric_free(fab);
}

/* K = 4: 16 hosts, 8 edge, 8 aggregation, 4 core switches, 48 cables;
 * the derived base RTT covers 6 hops each way. */
static void
uet_fabric_create__fat_tree_k4(void **state)
{
	struct uet_fabric_config c;
	struct uet_fabric *fab;
	struct uet_fabric_thresholds t;

	(void)state;
	fh_config(&c, &H);
	c.topo = UET_FABRIC_TOPO_FAT_TREE;
	c.k = 4;
	fab = make(&c);
	assert_int_equal(uet_fabric_hosts(fab), 16);
	assert_int_equal(uet_fabric_tier_size(fab, UET_FABRIC_TIER_LEAF), 8);
	assert_int_equal(uet_fabric_tier_size(fab, UET_FABRIC_TIER_SPINE), 8);
	assert_int_equal(uet_fabric_tier_size(fab, UET_FABRIC_TIER_CORE), 4);
	assert_int_equal(uet_fabric_links(fab), 48);
	/* aggregation 1 of pod 2 (spine 5) reaches cores 2 and 3 only */
	assert_true(uet_fabric_link_find(fab, UET_FABRIC_TIER_SPINE, 5,
					 UET_FABRIC_TIER_CORE, 2) >= 0);
	assert_true(uet_fabric_link_find(fab, UET_FABRIC_TIER_SPINE, 5,
					 UET_FABRIC_TIER_CORE, 1) < 0);
	uet_fabric_thresholds_get(fab, &t);
	/* 6 hops x (2 x 1 us + 4138 B and 88 B at 100 Gb/s): the default
	 * frame is IP MTU 4096 + 18 bytes of L2, plus 24 on the wire */
	assert_int_equal(t.base_rtt_ns, 6 * (2000 + 332 + 8));
	assert_int_equal(t.bdp, UINT64_C(100000000000) / 8 * t.base_rtt_ns /
				UINT64_C(1000000000));
	assert_int_equal(t.ecn_min, t.bdp / 5);
	assert_int_equal(t.trim_retx, t.bdp * 3 / 2);
	uet_fabric_free(fab);
}

/* Send one frame per EV, paced so nothing queues. */
static void
spray(struct uet_fabric *fab, uint32_t src, uint32_t dst, uint16_t ev0,
      uint32_t n)
{
	uint8_t f[FH_FRAME_MAX];
	uint32_t i;
	int len;

	for (i = 0; i < n; i++) {
		len = fh_frame(fab, f, src, dst, (uint16_t)(ev0 + i), 0, i, 512);
		assert_true(len > 0);
		assert_int_equal(uet_fabric_inject(fab, src, f, (uint32_t)len,
						   uet_fabric_now(fab)), 0);
		fh_run(fab, UINT64_MAX);
	}
}

/* Different UDP source ports spread over all four spines; the same EV
 * always takes the same spine. */
static void
fabric_route_port__ecmp_spreads_evs_over_spines(void **state)
{
	struct uet_fabric_config c;
	struct uet_fabric *fab;
	uint64_t tx[4], before[4];
	uint32_t s, used = 0, i;

	(void)state;
	fh_config(&c, &H);
	fab = make(&c);
	spray(fab, 0, 5, 49152, 256);
	assert_int_equal(H.per_host[5], 256);
	for (s = 0; s < 4; s++) {
		tx[s] = fh_tx(fab, fh_port(fab, UET_FABRIC_TIER_LEAF, 0,
					   UET_FABRIC_TIER_SPINE, s));
		/* binomial(256, 1/4): mean 64, sd 6.9 */
		assert_in_range(tx[s], 64 - 28, 64 + 28);
		used += (uint32_t)tx[s];
	}
	assert_int_equal(used, 256);
	for (i = 0; i < 8; i++) {
		for (s = 0; s < 4; s++)
			before[s] = fh_tx(fab, fh_port(fab,
				UET_FABRIC_TIER_LEAF, 0,
				UET_FABRIC_TIER_SPINE, s));
		spray(fab, 0, 5, 50000, 1);
		spray(fab, 0, 5, 50000, 1);
		for (s = 0, used = 0; s < 4; s++) {
			uint64_t d = fh_tx(fab, fh_port(fab,
				UET_FABRIC_TIER_LEAF, 0,
				UET_FABRIC_TIER_SPINE, s)) - before[s];

			assert_true(d == 0 || d == 2);
			used += (uint32_t)d;
		}
		assert_int_equal(used, 2);
	}
	/* hosts on one leaf never cross a spine */
	for (s = 0; s < 4; s++)
		before[s] = fh_tx(fab, fh_port(fab, UET_FABRIC_TIER_LEAF, 0,
					       UET_FABRIC_TIER_SPINE, s));
	spray(fab, 0, 1, 1000, 32);
	for (s = 0; s < 4; s++)
		assert_int_equal(fh_tx(fab, fh_port(fab, UET_FABRIC_TIER_LEAF,
					0, UET_FABRIC_TIER_SPINE, s)),
				 before[s]);
	uet_fabric_free(fab);
}

/* In a K = 4 fat tree a cross-pod flow set uses both aggregation
 * switches of its pod and all four cores. */
static void
fabric_route_port__fat_tree_uses_every_core(void **state)
{
	struct uet_fabric_config c;
	struct uet_fabric *fab;
	uint32_t a, j;
	uint64_t sum = 0, t;

	(void)state;
	fh_config(&c, &H);
	c.topo = UET_FABRIC_TOPO_FAT_TREE;
	c.k = 4;
	fab = make(&c);
	spray(fab, 0, 15, 49152, 512);
	assert_int_equal(H.per_host[15], 512);
	for (a = 0; a < 2; a++) {
		t = fh_tx(fab, fh_port(fab, UET_FABRIC_TIER_LEAF, 0,
				       UET_FABRIC_TIER_SPINE, a));
		assert_in_range(t, 256 - 64, 256 + 64);
		for (j = 0; j < 2; j++) {
			t = fh_tx(fab, fh_port(fab, UET_FABRIC_TIER_SPINE, a,
					       UET_FABRIC_TIER_CORE,
					       a * 2 + j));
			assert_in_range(t, 128 - 56, 128 + 56);
			sum += t;
		}
	}
	assert_int_equal(sum, 512);
	uet_fabric_free(fab);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(uet_fabric_config_check__rejects_bad_fields),
		cmocka_unit_test(uet_fabric_create__leaf_spine_shape),
		cmocka_unit_test(uet_fabric_create__fat_tree_k4),
		cmocka_unit_test(fabric_route_port__ecmp_spreads_evs_over_spines),
		cmocka_unit_test(fabric_route_port__fat_tree_uses_every_core),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
