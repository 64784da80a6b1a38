/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef SES_AMO_MODEL_H
#define SES_AMO_MODEL_H

/*
 * A reference model of the SES atomic operations (UEC 1.0 SES atomic
 * opcodes and datatypes; semantics as docs/SES.md "Atomics" states them),
 * written independently of src/ses/amo.c and shared by the tests that
 * judge it: the unit tests (test_ses_amo.c) and the deterministic
 * simulator (test/dst/dst_amo.c).
 *
 * It works on element bytes: integers through byte-assembled 128-bit
 * values with explicit sign extension, reals compared as long double,
 * BF16 and FP16 through frexp/ldexp/rint rather than bit manipulation.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <uet/uet_rand.h>

/* Bytes of one element of @p dt (0: not a datatype). */
size_t ses_amo_model_size(unsigned int dt);
/* Whether @p op is defined on @p dt (the support table of docs/SES.md). */
bool ses_amo_model_supported(unsigned int op, unsigned int dt);
/* Apply @p op to @p n elements of @p tgt with operands @p a and compare
 * values @p c (n elements each, read whatever the op); @p fetch gets
 * the target's values before, if not NULL. */
void ses_amo_model_exec(unsigned int op, unsigned int dt, uint8_t *tgt,
			const uint8_t *a, const uint8_t *c, uint8_t *fetch,
			unsigned int n);
/* @p n elements equal: same bytes, or, for reals, NaN where the other
 * is NaN, component by component (NaN payloads and signs depend on the
 * order the compiler put a commutative instruction's operands in,
 * which IEEE leaves open). */
bool ses_amo_model_same(unsigned int dt, const uint8_t *x, const uint8_t *y,
			unsigned int n);

/* The value of a real element (FLOAT, DOUBLE, LONG_DOUBLE, BF16, FP16). */
long double ses_amo_model_real(unsigned int dt, const uint8_t *p);
/* Binary16-style formats of @p mb mantissa and @p eb exponent bits
 * (FP16: 10, 5; BF16: 7, 8): decode, and encode rounding to nearest
 * even. */
double ses_amo_model_half_dec(uint16_t h, int mb, int eb);
uint16_t ses_amo_model_half_enc(double d, int mb, int eb);

/* Encode the integer value @p re (+ i @p im for complex types) as an
 * element of @p dt: integers wrap to the width (128-bit ones sign-extend),
 * reals are converted (exact for the small values callers give it). */
void ses_amo_model_put(unsigned int dt, int64_t re, int64_t im, uint8_t *out);
/* A random element of @p dt: any bits now and then, small values and,
 * for reals, zeros of both signs, infinities, NaN, extremes and
 * subnormals. */
void ses_amo_model_gen(struct uet_rand *rng, unsigned int dt, uint8_t *p);

#endif /* SES_AMO_MODEL_H */
