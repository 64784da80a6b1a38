/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Conversions between double and the 16-bit floating-point atomic
 * datatypes BF16 and FP16 (UEC 1.0 SES opcodes and atomic datatypes, datatypes
 * 0x10 and 0x11).
 *
 * Both are "small binary formats" with 1 sign bit, `ebits` exponent bits
 * and `mbits` stored mantissa bits: FP16 is (5, 10), BF16 is (8, 7). One
 * pair of routines parameterised by the format serves both, so the
 * rounding code exists once.
 */

#include <math.h>
#include <string.h>

#include <uet/uet_ses_amo.h>

#define DBL_MBITS 52
#define DBL_EMASK 0x7FFu
#define DBL_BIAS 1023

static uint16_t
amo_small_inf(uint16_t sign, unsigned int mbits, unsigned int ebits)
{
	return (uint16_t)(sign | (((1u << ebits) - 1) << mbits));
}

/*
 * Round a double to a small format, to nearest, ties to even. Works on
 * the bits so that there is exactly one rounding step: the value is
 * shifted right to the target precision (normal or subnormal), the
 * dropped bits decide the increment, and a carry out of the mantissa
 * moves into the exponent (up to infinity) by itself.
 */
static uint16_t
amo_double_to_small(double d, unsigned int mbits, unsigned int ebits)
{
	uint64_t x, man, h, rem, half;
	uint16_t sign;
	unsigned int shift;
	int exp, e, bias = (1 << (ebits - 1)) - 1;

	memcpy(&x, &d, sizeof(x));
	sign = (uint16_t)((x >> 63) << 15);
	exp = (int)((x >> DBL_MBITS) & DBL_EMASK);
	man = x & ((UINT64_C(1) << DBL_MBITS) - 1);
	if (exp == (int)DBL_EMASK) {
		if (man == 0)
			return amo_small_inf(sign, mbits, ebits);
		/* Quiet NaN keeping the top payload bits. */
		return (uint16_t)(amo_small_inf(sign, mbits, ebits) |
				  (1u << (mbits - 1)) |
				  (man >> (DBL_MBITS - mbits)));
	}
	if (exp == 0)
		return sign; /* double subnormals are far below both formats */
	e = exp - DBL_BIAS + bias;
	man |= UINT64_C(1) << DBL_MBITS;
	shift = DBL_MBITS - mbits;
	if (e <= 0) {
		/* Subnormal result: one more bit dropped per step below 1. */
		shift += (unsigned int)(1 - e);
		if (shift > DBL_MBITS + 1)
			return sign; /* below half the smallest subnormal */
		e = 0;
	}
	h = man >> shift;
	rem = man & ((UINT64_C(1) << shift) - 1);
	half = UINT64_C(1) << (shift - 1);
	if (e > 0)
		h = (h & ((UINT64_C(1) << mbits) - 1)) | ((uint64_t)e << mbits);
	if (rem > half || (rem == half && (h & 1)))
		h++;
	if (h >= ((UINT64_C(1) << ebits) - 1) << mbits)
		return amo_small_inf(sign, mbits, ebits);
	return (uint16_t)(sign | h);
}

/* Exact widening of a small format to double. */
static double
amo_small_to_double(uint16_t h, unsigned int mbits, unsigned int ebits)
{
	unsigned int emax = (1u << ebits) - 1;
	unsigned int exp = (h >> mbits) & emax;
	uint64_t man = h & ((1u << mbits) - 1);
	uint64_t x = (uint64_t)(h >> 15) << 63;
	int bias = (1 << (ebits - 1)) - 1;
	double d;

	if (exp == 0) {
		/* Zero or subnormal: man * 2^(1 - bias - mbits), exact. */
		d = ldexp((double)man, 1 - bias - (int)mbits);
		return (h >> 15) ? -d : d;
	}
	if (exp == emax)
		x |= (uint64_t)DBL_EMASK << DBL_MBITS;
	else
		x |= (uint64_t)((int)exp - bias + DBL_BIAS) << DBL_MBITS;
	x |= man << (DBL_MBITS - mbits);
	memcpy(&d, &x, sizeof(d));
	return d;
}

double
uet_amo_fp16_to_double(uint16_t h)
{
	return amo_small_to_double(h, 10, 5);
}

double
uet_amo_bf16_to_double(uint16_t h)
{
	return amo_small_to_double(h, 7, 8);
}

uint16_t
uet_amo_double_to_fp16(double d)
{
	return amo_double_to_small(d, 10, 5);
}

uint16_t
uet_amo_double_to_bf16(double d)
{
	return amo_double_to_small(d, 7, 8);
}
