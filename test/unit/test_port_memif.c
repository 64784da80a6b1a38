/* SPDX-License-Identifier: BSD-3-Clause */
/* net_memif buffers sized from the MTU (pmd/core/port_memif.c). */

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "engine_private.h"

/* Up to a 2048-byte frame the PMD's default buffers stay: no bsize. */
static void
engine_memif_devargs__standard_mtu(void **state)
{
	char out[256];

	(void)state;
	assert_int_equal(engine_memif_bsize(1500), 2048);
	assert_int_equal(engine_memif_bsize(2030), 2048);
	assert_int_equal(engine_memif_devargs("net_memif0,role=server,id=0",
					   1500, out, sizeof(out)), 0);
	assert_string_equal(out, "net_memif0,role=server,id=0");
}

/* Jumbo: one buffer holds the frame (MTU + 18), 128-byte multiples. */
static void
engine_memif_devargs__jumbo(void **state)
{
	char out[256];

	(void)state;
	assert_int_equal(engine_memif_bsize(2031), 2176);
	for (unsigned int mtu = 2031; mtu <= ENG_MEMIF_MTU_MAX; mtu += 397) {
		unsigned int b = engine_memif_bsize(mtu);

		assert_true(b >= mtu + 18);
		assert_true(b < mtu + 18 + 128);
		assert_int_equal(b % 128, 0);
	}
	assert_int_equal(engine_memif_devargs("net_memif0,role=client,id=0,"
					   "socket=/tmp/m.sock", 9000, out,
					   sizeof(out)), 0);
	assert_string_equal(out, "net_memif0,role=client,id=0,"
			    "socket=/tmp/m.sock,bsize=9088");
}

/* The user's bsize and other drivers' devargs pass through. */
static void
engine_memif_devargs__user_and_others(void **state)
{
	char out[128];

	(void)state;
	assert_int_equal(engine_memif_devargs("net_memif0,bsize=4096", 9000,
					   out, sizeof(out)), 0);
	assert_string_equal(out, "net_memif0,bsize=4096");
	assert_int_equal(engine_memif_devargs("net_ring0", 9000, out,
					   sizeof(out)), 0);
	assert_string_equal(out, "net_ring0");
	/* a socket named like a key is not one */
	assert_int_equal(engine_memif_devargs("net_memif0,socket=bsize", 9000,
					   out, sizeof(out)), 0);
	assert_string_equal(out, "net_memif0,socket=bsize,bsize=9088");
	assert_int_equal(engine_memif_devargs("net_memif0,id=0", 9000, out, 16),
			 -ENAMETOOLONG);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(engine_memif_devargs__standard_mtu),
		cmocka_unit_test(engine_memif_devargs__jumbo),
		cmocka_unit_test(engine_memif_devargs__user_and_others),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
