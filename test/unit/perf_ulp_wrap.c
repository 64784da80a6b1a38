/* SPDX-License-Identifier: BSD-3-Clause */
/* The wrapped calls of perf_ulp_wrap.h: the ULP clock stands at 0. */

#include <stdint.h>

#include "perf.h"
#include "perf_ulp_wrap.h"

size_t perf_wrap_alloc_max;

void *__real_calloc(size_t n, size_t size);
void *__real_realloc(void *p, size_t size);
void *__wrap_calloc(size_t n, size_t size);
void *__wrap_realloc(void *p, size_t size);
uint16_t __wrap_uet_ulp_max_len(const struct uet_ulp_ctx *ctx);
uint64_t __wrap_uet_ulp_now(const struct uet_ulp_ctx *ctx);

void *
__wrap_calloc(size_t n, size_t size)
{
	if (n * size > perf_wrap_alloc_max)
		perf_wrap_alloc_max = n * size;
	return __real_calloc(n, size);
}

void *
__wrap_realloc(void *p, size_t size)
{
	if (size > perf_wrap_alloc_max)
		perf_wrap_alloc_max = size;
	return __real_realloc(p, size);
}

uint16_t
__wrap_uet_ulp_max_len(const struct uet_ulp_ctx *ctx)
{
	(void)ctx;
	return PERF_WRAP_MAX_LEN;
}

uint64_t
__wrap_uet_ulp_now(const struct uet_ulp_ctx *ctx)
{
	(void)ctx;
	return 0;
}
