/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef UET_RAND_H
#define UET_RAND_H

/**
 * @file
 * A small deterministic pseudo-random generator for sans-I/O modules
 * (fabric model, load balancing): the state is caller-owned and seeded
 * explicitly, so two runs with the same seed draw the same numbers.
 * Not for anything security-related.
 *
 * splitmix64 expands a seed into well-mixed words; xorshift64* is the
 * stream generator (any non-zero state, period 2^64 - 1).
 */

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Caller-owned generator state. */
struct uet_rand {
	uint64_t s; /**< never zero once seeded */
};

/** Advance @p x and return a mixed 64-bit value (splitmix64). */
static inline uint64_t
uet_rand_splitmix(uint64_t *x)
{
	uint64_t z = (*x += UINT64_C(0x9E3779B97F4A7C15));

	z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
	return z ^ (z >> 31);
}

/** Seed @p r from @p seed (any value, zero included). */
static inline void
uet_rand_seed(struct uet_rand *r, uint64_t seed)
{
	uint64_t x = seed;

	r->s = uet_rand_splitmix(&x);
	if (r->s == 0)
		r->s = UINT64_C(0x9E3779B97F4A7C15);
}

/** Next 64-bit value (xorshift64*). */
static inline uint64_t
uet_rand_next(struct uet_rand *r)
{
	uint64_t x = r->s;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	r->s = x;
	return x * UINT64_C(0x2545F4914F6CDD1D);
}

/**
 * Uniform value in [0, n) for n >= 1 (multiply-shift on the high 32 bits;
 * the bias is below n / 2^32).
 */
static inline uint32_t
uet_rand_below(struct uet_rand *r, uint32_t n)
{
	return (uint32_t)(((uet_rand_next(r) >> 32) * (uint64_t)n) >> 32);
}

#ifdef __cplusplus
}
#endif

#endif /* UET_RAND_H */
