/* SPDX-License-Identifier: BSD-3-Clause */
/* net_af_packet ring geometry from the MTU and its queue pairs, net_af_xdp
 * busy-queue pauses (pmd/core/port_kernel.c). */

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include <rte_mbuf.h>

#include "engine_private.h"

/* A standard MTU keeps the PMD's defaults; devargs stay untouched. */
static void
engine_afp_devargs__standard_mtu(void **state)
{
	char out[256];

	(void)state;
	assert_int_equal(engine_afp_devargs("net_af_packet0,iface=v0", 1500,
					 out, sizeof(out)), 0);
	assert_string_equal(out, "net_af_packet0,iface=v0");
	/* 80-byte slot offset: 1968 is the largest MTU of a 2048 slot */
	assert_int_equal(engine_afp_framesz_min(1968), 2048);
	assert_int_equal(engine_afp_devargs("net_af_packet0,iface=v0", 1968,
					 out, sizeof(out)), 0);
	assert_string_equal(out, "net_af_packet0,iface=v0");
}

/* Jumbo: slots hold the frame, blocks are pages, slots fill blocks. */
static void
engine_afp_geometry__jumbo(void **state)
{
	struct engine_afp_geo g;
	unsigned int page = (unsigned int)getpagesize();
	char out[256], want[256];

	(void)state;
	for (unsigned int mtu = 1969; mtu <= 9216; mtu += 619) {
		engine_afp_geometry(mtu, &g);
		assert_true(g.framesz >= engine_afp_framesz_min(mtu));
		assert_int_equal(g.framesz % 128, 0);
		assert_int_equal(g.blocksz % page, 0);
		/* the PMD's slot i is at i * framesz: no gap at block ends */
		assert_int_equal(g.blocksz % g.framesz, 0);
		assert_true(g.blocksz <= 32 * g.framesz);
		/* the auto mbuf (mtu + 80 rounded up to 128) holds a slot */
		assert_true(engine_afp_mbuf_room_min(g.framesz) <=
			    RTE_ALIGN_CEIL(mtu + 80, 128));
		assert_int_equal(g.framecnt % (g.blocksz / g.framesz), 0);
		assert_true(g.framecnt >= 512);
	}
	engine_afp_geometry(9000, &g);
	assert_int_equal(g.framesz, 9088);
	snprintf(want, sizeof(want), "net_af_packet0,iface=v0,qpairs=1,"
		 "framesz=9088,blocksz=%u,framecnt=%u", g.blocksz, g.framecnt);
	assert_int_equal(engine_afp_devargs("net_af_packet0,iface=v0,qpairs=1",
					 9000, out, sizeof(out)), 0);
	assert_string_equal(out, want);
}

/* The user's geometry and other drivers' devargs pass through. */
static void
engine_afp_devargs__user_geometry(void **state)
{
	char out[128];

	(void)state;
	assert_int_equal(engine_afp_devargs("net_af_packet0,iface=v,framesz=4096",
					 9000, out, sizeof(out)), 0);
	assert_string_equal(out, "net_af_packet0,iface=v,framesz=4096");
	assert_int_equal(engine_afp_devargs("net_af_xdp0,iface=v", 9000, out,
					 sizeof(out)), 0);
	assert_string_equal(out, "net_af_xdp0,iface=v");
	/* an iface named like a key is not one */
	assert_int_equal(engine_afp_devargs("net_af_packet0,iface=framesz", 9000,
					 out, sizeof(out)), 0);
	assert_non_null(strstr(out, ",framesz=9088"));
	assert_int_equal(engine_afp_devargs("net_af_packet0,iface=v", 9000, out,
					 16), -ENAMETOOLONG);
}

/* Refusals name the setting to change. */
static void
engine_afp_check__names_the_key(void **state)
{
	char msg[384];
	unsigned int mbuf = 9088 + RTE_PKTMBUF_HEADROOM;

	(void)state;
	assert_int_equal(engine_afp_check(0, 9000, 9088, 290816, mbuf, msg,
				       sizeof(msg)), 0);
	assert_int_equal(engine_afp_check(0, 9000, 2048, 4096, mbuf, msg,
				       sizeof(msg)), -EINVAL);
	assert_non_null(strstr(msg, "port0.mtu 9000"));
	assert_non_null(strstr(msg, "framesz is 2048"));
	assert_int_equal(engine_afp_check(1, 9000, 9088, 290816,
				       2048 + RTE_PKTMBUF_HEADROOM, msg,
				       sizeof(msg)), -EINVAL);
	assert_non_null(strstr(msg, "engine.mbuf_size to at least 9184"));
	/* gaps at block ends: refused, not misplaced */
	assert_int_equal(engine_afp_check(0, 9000, 9088, 65536, mbuf, msg,
				       sizeof(msg)), -EINVAL);
	assert_non_null(strstr(msg, "not a multiple of framesz 9088"));
}

/* net_af_xdp busy queue: pauses of 20 ms doubling, then no more after
 * 5 s (the caller then fails the port, with the logged reason). */
/* qpairs above the engine's queues: refused, naming the devarg (the
 * frames fanned out to an unpolled socket were lost: 4354 retransmissions
 * in a 3 s msgrate run with qpairs=2). */
static void
engine_afp_queues__unpolled_socket_refused(void **state)
{
	struct rte_eth_dev_info info = {
		.driver_name = "net_af_packet", .max_rx_queues = 2,
	};
	char msg[256] = "";

	(void)state;
	assert_int_equal(engine_afp_queues(0, &info, 1, msg, sizeof(msg)),
			 -EINVAL);
	assert_non_null(strstr(msg, "qpairs=2"));
	assert_non_null(strstr(msg, "set qpairs=1"));
	info.max_rx_queues = 1;
	assert_int_equal(engine_afp_queues(0, &info, 1, msg, sizeof(msg)), 0);
	/* other drivers' queue counts are the device's, not sockets */
	info.driver_name = "net_ring";
	info.max_rx_queues = 16;
	assert_int_equal(engine_afp_queues(0, &info, 1, msg, sizeof(msg)), 0);
}

static void
engine_afx_pause__backoff_then_bound(void **state)
{
	struct engine_port p = { .name = "net_af_xdp0,iface=v0" };
	unsigned int waited = 0, pause = 0;

	(void)state;
	assert_true(engine_afx_pause(&p, &waited, &pause));
	assert_int_equal(pause, 20);
	assert_int_equal(waited, 20);
	assert_true(engine_afx_pause(&p, &waited, &pause));
	assert_int_equal(pause, 40);
	assert_int_equal(waited, 60);
	waited = 5000;
	assert_false(engine_afx_pause(&p, &waited, &pause));
	assert_int_equal(waited, 5000);
	assert_int_equal(pause, 40);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(engine_afp_devargs__standard_mtu),
		cmocka_unit_test(engine_afp_geometry__jumbo),
		cmocka_unit_test(engine_afp_devargs__user_geometry),
		cmocka_unit_test(engine_afp_check__names_the_key),
		cmocka_unit_test(engine_afp_queues__unpolled_socket_refused),
		cmocka_unit_test(engine_afx_pause__backoff_then_bound),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
