/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef UET_POW2_H
#define UET_POW2_H

/**
 * @file
 * Powers of two, for every table and ring the modules size: the one
 * helper of the project (the sans-I/O modules have no DPDK to ask).
 */

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** True when @p v is a power of two (zero is not). */
static inline bool
uet_is_pow2(uint64_t v)
{
	return v != 0 && (v & (v - 1)) == 0;
}

/**
 * The smallest power of two >= @p v: 1 for 0 and 1; 0 when it does not
 * fit in 32 bits (@p v above 2^31), which callers treat as too large.
 */
static inline uint32_t
uet_pow2_ceil(uint32_t v)
{
	if (v <= 1)
		return 1;
	if (v > UINT32_C(1) << 31)
		return 0;
	return UINT32_C(1) << (32 - __builtin_clz(v - 1));
}

#ifdef __cplusplus
}
#endif

#endif /* UET_POW2_H */
