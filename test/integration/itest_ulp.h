/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef UET_ITEST_ULP_H
#define UET_ITEST_ULP_H

/*
 * uet-perf's test ULP in the EAL integration tests: the parameters of a
 * one-way stream between two engines A and B.
 */

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <rte_errno.h>

#include <uet/uet_engine.h>
#include <uet/uet_ulp.h>

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

/* The engines' virtual clock (ns), moved by the test. */
static uint64_t vnow;

static uint64_t
itest_vclock(void *arg)
{
	(void)arg;
	return vnow;
}

/* Engine @p name of configuration @p c on the virtual clock, the protocol
 * hook with @p pp; NULL (said on stderr) on failure. */
static inline struct uet_engine *
itest_engine_virt(const char *name, const struct uet_config *c,
		  struct uet_proto_params *pp)
{
	static const struct uet_engine_clock clk = { .now = itest_vclock };
	struct uet_engine_params p = {
		.cfg = c, .name = name, .hook = &uet_proto_hook_ops,
		.hook_arg = pp, .clock = &clk,
	};
	struct uet_engine *e = uet_engine_create(&p);

	if (e == NULL)
		fprintf(stderr, "engine %s: %s\n", name,
			rte_strerror(rte_errno));
	return e;
}

/* Big-endian @p n bytes at @p p. */
static inline uint64_t
itest_get_be(const uint8_t *p, unsigned int n)
{
	uint64_t v = 0;

	for (unsigned int i = 0; i < n; i++)
		v = v << 8 | p[i];
	return v;
}

#endif /* UET_ITEST_ULP_H */
