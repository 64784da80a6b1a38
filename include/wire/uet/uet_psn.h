/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef UET_PSN_H
#define UET_PSN_H

/**
 * @file
 * PSN serial arithmetic and SACK bitmap helpers (UEC 1.0 PDS ACK header).
 *
 * PSNs are 32-bit and wrap; a is before b when (int32_t)(a - b) < 0, so
 * the order is only meaningful for PSNs less than 2^31 apart.
 *
 * A SACK window is a 64-bit bitmap anchored at a base PSN: bit i stands
 * for PSN base + i. A set bit means "received"; a clear bit means "no
 * information", not "lost".
 */

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Number of PSNs covered by a SACK bitmap. */
#define UET_PSN_SACK_BITS 64u

/** Signed serial distance a - b (positive when a is after b). */
static inline int32_t
uet_psn_diff(uint32_t a, uint32_t b)
{
	return (int32_t)(a - b);
}

/** True when a is before b. */
static inline bool
uet_psn_lt(uint32_t a, uint32_t b)
{
	return uet_psn_diff(a, b) < 0;
}

/** True when a is before or equal to b. */
static inline bool
uet_psn_le(uint32_t a, uint32_t b)
{
	return uet_psn_diff(a, b) <= 0;
}

/** True when a is after b. */
static inline bool
uet_psn_gt(uint32_t a, uint32_t b)
{
	return uet_psn_diff(a, b) > 0;
}

/** True when a is after or equal to b. */
static inline bool
uet_psn_ge(uint32_t a, uint32_t b)
{
	return uet_psn_diff(a, b) >= 0;
}

/** The later of two PSNs (a when they are equal). */
static inline uint32_t
uet_psn_max(uint32_t a, uint32_t b)
{
	return uet_psn_lt(a, b) ? b : a;
}

/** The earlier of two PSNs (a when they are equal). */
static inline uint32_t
uet_psn_min(uint32_t a, uint32_t b)
{
	return uet_psn_gt(a, b) ? b : a;
}

/** A SACK window: bit i of @c bitmap stands for PSN @c base + i. */
struct uet_psn_sack {
	uint32_t base;   /**< PSN of bit 0 */
	uint64_t bitmap; /**< received PSNs in [base, base + 64) */
};

/** Start an empty window at @p base. */
static inline void
uet_psn_sack_init(struct uet_psn_sack *s, uint32_t base)
{
	s->base = base;
	s->bitmap = 0;
}

/**
 * Bit index of @p psn in the window.
 * @return
 *   0..63, or -1 when @p psn is outside [base, base + 64).
 */
static inline int
uet_psn_sack_index(const struct uet_psn_sack *s, uint32_t psn)
{
	uint32_t off = psn - s->base;

	return off < UET_PSN_SACK_BITS ? (int)off : -1;
}

/**
 * Mark @p psn received.
 * @return
 *   true when @p psn is inside the window (bit set), false otherwise
 *   (window unchanged).
 */
static inline bool
uet_psn_sack_set(struct uet_psn_sack *s, uint32_t psn)
{
	int i = uet_psn_sack_index(s, psn);

	if (i < 0)
		return false;
	s->bitmap |= UINT64_C(1) << i;
	return true;
}

/**
 * Test whether @p psn is marked received.
 * @return
 *   false when the bit is clear or @p psn is outside the window.
 */
static inline bool
uet_psn_sack_test(const struct uet_psn_sack *s, uint32_t psn)
{
	int i = uet_psn_sack_index(s, psn);

	return i >= 0 && ((s->bitmap >> i) & 1u);
}

/**
 * Move the window to @p new_base. Moving forward drops the bits below the
 * new base; moving backward drops the bits past the new window's end and
 * the newly covered PSNs start clear. A move of 64 or more (either way)
 * empties the window.
 */
static inline void
uet_psn_sack_shift(struct uet_psn_sack *s, uint32_t new_base)
{
	int32_t d = uet_psn_diff(new_base, s->base);

	if (d >= (int32_t)UET_PSN_SACK_BITS || d <= -(int32_t)UET_PSN_SACK_BITS)
		s->bitmap = 0;
	else if (d > 0)
		s->bitmap >>= d;
	else if (d < 0)
		s->bitmap <<= -d;
	s->base = new_base;
}

/** Number of PSNs marked received in the window. */
static inline unsigned int
uet_psn_sack_count(const struct uet_psn_sack *s)
{
	return (unsigned int)__builtin_popcountll(s->bitmap);
}

/**
 * First clear bit at or after index @p from.
 * @return
 *   Its index (PSN base + index), or UET_PSN_SACK_BITS when every bit from
 *   @p from to 63 is set or @p from >= 64.
 */
static inline unsigned int
uet_psn_sack_first_clear(const struct uet_psn_sack *s, unsigned int from)
{
	uint64_t clear;

	if (from >= UET_PSN_SACK_BITS)
		return UET_PSN_SACK_BITS;
	clear = ~s->bitmap >> from;
	if (clear == 0)
		return UET_PSN_SACK_BITS;
	return from + (unsigned int)__builtin_ctzll(clear);
}

/**
 * Whether an ACK says @p psn was received: @p psn is at or before the
 * cumulative ACK PSN @p cack (inclusive), or its bit is set in @p s.
 * A false answer means "no information", not "lost".
 */
static inline bool
uet_psn_sack_known(uint32_t cack, const struct uet_psn_sack *s, uint32_t psn)
{
	return uet_psn_le(psn, cack) || uet_psn_sack_test(s, psn);
}

#ifdef __cplusplus
}
#endif

#endif /* UET_PSN_H */
