/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef UET_ITEST_ULP_H
#define UET_ITEST_ULP_H

/*
 * uet-perf's test ULP in the EAL integration tests: the parameters of a
 * one-way stream between two engines A and B.
 */

#include <stdint.h>
#include <string.h>

#include "perf.h"

/*
 * A sends @p count messages of @p size bytes to B (@p addr_b) in @p mode
 * with @p window packets in flight; B (@p addr_a) sends nothing and
 * expects them. @p addr_len: 4 (IPv4) or 16 (IPv6).
 */
static inline void
itest_ulp_stream(struct test_ulp_params *pa, struct test_ulp_params *pb,
		 const uint8_t *addr_a, const uint8_t *addr_b,
		 size_t addr_len, uint8_t mode, uint32_t size,
		 uint64_t count, uint32_t window)
{
	memset(pa, 0, sizeof(*pa));
	memcpy(pa->peer.addr, addr_b, addr_len);
	pa->mode = mode;
	pa->size = size;
	pa->count = count;
	pa->window = window;
	*pb = *pa;
	memcpy(pb->peer.addr, addr_a, addr_len);
	pb->count = 0;
	pb->expect = count;
	pb->expect_size = size;
}

#endif /* UET_ITEST_ULP_H */
