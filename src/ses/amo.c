/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Target-side atomic engine (UEC 1.0 SES atomic extension header, SES atomic
 * op and datatype codes, SES response AMO_* return codes). Decisions are
 * written up in docs/SES.md, "Atomics".
 *
 * Structure: one per-element "kernel" per datatype, generated from three
 * macros (integer, real, complex) plus one for BF16/FP16. A kernel looks
 * at the prior value, the operand and the compare value and says what the
 * element becomes: unchanged (KEEP), the operand bit for bit (MOVE), or a
 * computed value (COMPUTED, written to a scratch buffer). The driver
 * applies that verdict either with a plain read-modify-write or, for
 * cpu-coherent requests, inside an __atomic compare-and-swap loop, so
 * both paths share every line of arithmetic.
 */

#include <float.h>
#include <math.h>
#include <string.h>

#include <uet/uet_ses_amo.h>

_Static_assert(sizeof(long double) <= 16, "long double must fit its slot");

/*
 * Bytes of a long double that hold its value: the x87 extended format
 * keeps 10 significant bytes in a 16-byte object, the rest is padding.
 * Computed results write the value bytes and zero the padding, so equal
 * values give equal slots.
 */
#if LDBL_MANT_DIG == 64
#define AMO_LDBL_BYTES 10
#else
#define AMO_LDBL_BYTES sizeof(long double)
#endif

enum amo_verdict {
	AMO_KEEP,     /* element unchanged */
	AMO_MOVE,     /* element = operand, bit for bit */
	AMO_COMPUTED, /* element = scratch result */
};

/* Relation of x to y; YNAN: unordered because y is a NaN and x is not. */
enum amo_rel {
	AMO_LT,
	AMO_EQ,
	AMO_GT,
	AMO_UN,
	AMO_YNAN,
};

typedef enum amo_verdict (*amo_kernel_fn)(enum uet_wire_amo_op op, void *res,
					  const void *t, const void *a,
					  const void *c);

enum amo_class {
	AMO_CLASS_INT,
	AMO_CLASS_REAL,
	AMO_CLASS_CPLX,
};

#define B(op) (UINT32_C(1) << (op))
/* Ops per class: the support table of docs/SES.md. */
static const uint32_t amo_class_ops[] = {
	[AMO_CLASS_INT] = B(UET_AMO_MSWAP + 1) - 1,
	[AMO_CLASS_REAL] = B(UET_AMO_MIN) | B(UET_AMO_MAX) | B(UET_AMO_SUM) |
		B(UET_AMO_DIFF) | B(UET_AMO_PROD) | B(UET_AMO_READ) |
		B(UET_AMO_WRITE) | B(UET_AMO_CSWAP) | B(UET_AMO_CSWAP_NE) |
		B(UET_AMO_CSWAP_LE) | B(UET_AMO_CSWAP_LT) |
		B(UET_AMO_CSWAP_GE) | B(UET_AMO_CSWAP_GT),
	[AMO_CLASS_CPLX] = B(UET_AMO_SUM) | B(UET_AMO_DIFF) | B(UET_AMO_PROD) |
		B(UET_AMO_READ) | B(UET_AMO_WRITE) | B(UET_AMO_CSWAP) |
		B(UET_AMO_CSWAP_NE),
};
#undef B

/*
 * Verdict of the ops that only move values: MIN/MAX follow IEEE minNum /
 * maxNum (a NaN target is replaced by a number), the CSWAP family tests
 * "target OP compare", READ keeps.
 */
static enum amo_verdict
amo_move_verdict(enum uet_wire_amo_op op, enum amo_rel a_vs_t, enum amo_rel t_vs_c)
{
	bool take;

	switch (op) {
	case UET_AMO_MIN:
		take = a_vs_t == AMO_LT || a_vs_t == AMO_YNAN;
		break;
	case UET_AMO_MAX:
		take = a_vs_t == AMO_GT || a_vs_t == AMO_YNAN;
		break;
	case UET_AMO_WRITE:
		take = true;
		break;
	case UET_AMO_CSWAP:
		take = t_vs_c == AMO_EQ;
		break;
	case UET_AMO_CSWAP_NE:
		take = t_vs_c != AMO_EQ;
		break;
	case UET_AMO_CSWAP_LE:
		take = t_vs_c == AMO_LT || t_vs_c == AMO_EQ;
		break;
	case UET_AMO_CSWAP_LT:
		take = t_vs_c == AMO_LT;
		break;
	case UET_AMO_CSWAP_GE:
		take = t_vs_c == AMO_GT || t_vs_c == AMO_EQ;
		break;
	case UET_AMO_CSWAP_GT:
		take = t_vs_c == AMO_GT;
		break;
	default:
		take = false; /* READ */
		break;
	}
	return take ? AMO_MOVE : AMO_KEEP;
}

#define AMO_REL_INT(x, y) \
	((x) < (y) ? AMO_LT : (x) > (y) ? AMO_GT : AMO_EQ)
#define AMO_REL_FP(x, y) \
	((x) < (y) ? AMO_LT : (x) > (y) ? AMO_GT : (x) == (y) ? AMO_EQ : \
	 (isnan(y) && !isnan(x)) ? AMO_YNAN : AMO_UN)

#define AMO_LOAD3(T, n)					\
	memcpy(t, tp, sizeof(T) * (n));			\
	memcpy(a, ap, sizeof(T) * (n));			\
	memcpy(c, cp, sizeof(T) * (n))

/*
 * Integers: arithmetic in the unsigned type U so overflow wraps instead
 * of being undefined; "0u +" lifts 8/16-bit values to unsigned int before
 * the multiply, where int promotion could overflow.
 */
#define AMO_INT_KERNEL(name, T, U)					\
static enum amo_verdict							\
name(enum uet_wire_amo_op op, void *res, const void *tp, const void *ap,	\
     const void *cp)							\
{									\
	T t[1], a[1], c[1];						\
	U r;								\
									\
	AMO_LOAD3(T, 1);						\
	switch (op) {							\
	case UET_AMO_SUM: r = (U)(0u + (U)t[0] + (U)a[0]); break;	\
	case UET_AMO_DIFF: r = (U)(0u + (U)t[0] - (U)a[0]); break;	\
	case UET_AMO_PROD: r = (U)((0u + (U)t[0]) * (U)a[0]); break;	\
	case UET_AMO_LOR: r = t[0] != 0 || a[0] != 0; break;		\
	case UET_AMO_LAND: r = t[0] != 0 && a[0] != 0; break;		\
	case UET_AMO_LXOR: r = (t[0] != 0) != (a[0] != 0); break;	\
	case UET_AMO_BOR: r = (U)((U)t[0] | (U)a[0]); break;		\
	case UET_AMO_BAND: r = (U)((U)t[0] & (U)a[0]); break;		\
	case UET_AMO_BXOR: r = (U)((U)t[0] ^ (U)a[0]); break;		\
	case UET_AMO_MSWAP:						\
		r = (U)(((U)t[0] & (U)~(U)c[0]) | ((U)a[0] & (U)c[0]));	\
		break;							\
	default:							\
		return amo_move_verdict(op, AMO_REL_INT(a[0], t[0]),	\
					AMO_REL_INT(t[0], c[0]));	\
	}								\
	memcpy(res, &r, sizeof(r));					\
	return AMO_COMPUTED;						\
}

/* Store n computed values of type T, zeroing any padding (long double). */
#define AMO_STORE(T, res, r, n, vbytes)					\
	do {								\
		memset(res, 0, sizeof(T) * (n));			\
		for (unsigned int i_ = 0; i_ < (n); i_++)		\
			memcpy((char *)(res) + i_ * sizeof(T), &(r)[i_], \
			       vbytes);					\
	} while (0)

#define AMO_REAL_KERNEL(name, T, VB)					\
static enum amo_verdict							\
name(enum uet_wire_amo_op op, void *res, const void *tp, const void *ap,	\
     const void *cp)							\
{									\
	T t[1], a[1], c[1], r[1];					\
									\
	AMO_LOAD3(T, 1);						\
	switch (op) {							\
	case UET_AMO_SUM: r[0] = t[0] + a[0]; break;			\
	case UET_AMO_DIFF: r[0] = t[0] - a[0]; break;			\
	case UET_AMO_PROD: r[0] = t[0] * a[0]; break;			\
	default:							\
		return amo_move_verdict(op, AMO_REL_FP(a[0], t[0]),	\
					AMO_REL_FP(t[0], c[0]));	\
	}								\
	AMO_STORE(T, res, r, 1, VB);					\
	return AMO_COMPUTED;						\
}

/*
 * Complex: {re, im} pairs. PROD is the textbook formula without the C
 * Annex G infinity recovery; only EQ/NE comparisons exist.
 */
#define AMO_CPLX_KERNEL(name, T, VB)					\
static enum amo_verdict							\
name(enum uet_wire_amo_op op, void *res, const void *tp, const void *ap,	\
     const void *cp)							\
{									\
	T t[2], a[2], c[2], r[2];					\
									\
	AMO_LOAD3(T, 2);						\
	switch (op) {							\
	case UET_AMO_SUM:						\
		r[0] = t[0] + a[0];					\
		r[1] = t[1] + a[1];					\
		break;							\
	case UET_AMO_DIFF:						\
		r[0] = t[0] - a[0];					\
		r[1] = t[1] - a[1];					\
		break;							\
	case UET_AMO_PROD:						\
		r[0] = t[0] * a[0] - t[1] * a[1];			\
		r[1] = t[0] * a[1] + t[1] * a[0];			\
		break;							\
	default:							\
		return amo_move_verdict(op, AMO_UN,			\
					t[0] == c[0] && t[1] == c[1] ?	\
					AMO_EQ : AMO_UN);		\
	}								\
	AMO_STORE(T, res, r, 2, VB);					\
	return AMO_COMPUTED;						\
}

/*
 * BF16/FP16: widen to double (exact), compute, round once. Products of
 * two 8- or 11-bit significands are exact in double, and double carries
 * more than 2p+2 bits for sums, so the single rounding in the narrowing
 * gives the correctly rounded result.
 */
#define AMO_HALF_KERNEL(name, TO_D, FROM_D)				\
static enum amo_verdict							\
name(enum uet_wire_amo_op op, void *res, const void *tp, const void *ap,	\
     const void *cp)							\
{									\
	uint16_t t[1], a[1], c[1], r;					\
	double td, ad, cd;						\
									\
	AMO_LOAD3(uint16_t, 1);						\
	td = TO_D(t[0]);						\
	ad = TO_D(a[0]);						\
	cd = TO_D(c[0]);						\
	switch (op) {							\
	case UET_AMO_SUM: r = FROM_D(td + ad); break;			\
	case UET_AMO_DIFF: r = FROM_D(td - ad); break;			\
	case UET_AMO_PROD: r = FROM_D(td * ad); break;			\
	default:							\
		return amo_move_verdict(op, AMO_REL_FP(ad, td),		\
					AMO_REL_FP(td, cd));		\
	}								\
	memcpy(res, &r, sizeof(r));					\
	return AMO_COMPUTED;						\
}

AMO_INT_KERNEL(amo_k_i8, int8_t, uint8_t)
AMO_INT_KERNEL(amo_k_u8, uint8_t, uint8_t)
AMO_INT_KERNEL(amo_k_i16, int16_t, uint16_t)
AMO_INT_KERNEL(amo_k_u16, uint16_t, uint16_t)
AMO_INT_KERNEL(amo_k_i32, int32_t, uint32_t)
AMO_INT_KERNEL(amo_k_u32, uint32_t, uint32_t)
AMO_INT_KERNEL(amo_k_i64, int64_t, uint64_t)
AMO_INT_KERNEL(amo_k_u64, uint64_t, uint64_t)
AMO_INT_KERNEL(amo_k_i128, __int128, unsigned __int128)
AMO_INT_KERNEL(amo_k_u128, unsigned __int128, unsigned __int128)
AMO_REAL_KERNEL(amo_k_flt, float, sizeof(float))
AMO_REAL_KERNEL(amo_k_dbl, double, sizeof(double))
AMO_REAL_KERNEL(amo_k_ldbl, long double, AMO_LDBL_BYTES)
AMO_CPLX_KERNEL(amo_k_cflt, float, sizeof(float))
AMO_CPLX_KERNEL(amo_k_cdbl, double, sizeof(double))
AMO_CPLX_KERNEL(amo_k_cldbl, long double, AMO_LDBL_BYTES)
AMO_HALF_KERNEL(amo_k_bf16, uet_amo_bf16_to_double, uet_amo_double_to_bf16)
AMO_HALF_KERNEL(amo_k_fp16, uet_amo_fp16_to_double, uet_amo_double_to_fp16)

struct amo_type {
	uint8_t size;
	uint8_t cls;
	amo_kernel_fn kernel;
};

/* Indexed by enum uet_wire_amo_dt (UEC 1.0 SES opcodes and atomic datatypes). */
static const struct amo_type amo_types[] = {
	[UET_AMO_DT_INT8] = { 1, AMO_CLASS_INT, amo_k_i8 },
	[UET_AMO_DT_UINT8] = { 1, AMO_CLASS_INT, amo_k_u8 },
	[UET_AMO_DT_INT16] = { 2, AMO_CLASS_INT, amo_k_i16 },
	[UET_AMO_DT_UINT16] = { 2, AMO_CLASS_INT, amo_k_u16 },
	[UET_AMO_DT_INT32] = { 4, AMO_CLASS_INT, amo_k_i32 },
	[UET_AMO_DT_UINT32] = { 4, AMO_CLASS_INT, amo_k_u32 },
	[UET_AMO_DT_INT64] = { 8, AMO_CLASS_INT, amo_k_i64 },
	[UET_AMO_DT_UINT64] = { 8, AMO_CLASS_INT, amo_k_u64 },
	[UET_AMO_DT_INT128] = { 16, AMO_CLASS_INT, amo_k_i128 },
	[UET_AMO_DT_UINT128] = { 16, AMO_CLASS_INT, amo_k_u128 },
	[UET_AMO_DT_FLOAT] = { 4, AMO_CLASS_REAL, amo_k_flt },
	[UET_AMO_DT_DOUBLE] = { 8, AMO_CLASS_REAL, amo_k_dbl },
	[UET_AMO_DT_FLOAT_COMPLEX] = { 8, AMO_CLASS_CPLX, amo_k_cflt },
	[UET_AMO_DT_DOUBLE_COMPLEX] = { 16, AMO_CLASS_CPLX, amo_k_cdbl },
	[UET_AMO_DT_LONG_DOUBLE] = { 16, AMO_CLASS_REAL, amo_k_ldbl },
	[UET_AMO_DT_LONG_DOUBLE_COMPLEX] = { 32, AMO_CLASS_CPLX, amo_k_cldbl },
	[UET_AMO_DT_BF16] = { 2, AMO_CLASS_REAL, amo_k_bf16 },
	[UET_AMO_DT_FP16] = { 2, AMO_CLASS_REAL, amo_k_fp16 },
};

bool
uet_amo_op_valid(unsigned int op)
{
	return op <= UET_AMO_MSWAP;
}

bool
uet_amo_dt_valid(unsigned int dt)
{
	return dt <= UET_AMO_DT_FP16;
}

bool
uet_amo_supported(unsigned int op, unsigned int dt)
{
	if (!uet_amo_op_valid(op) || !uet_amo_dt_valid(dt))
		return false;
	return (amo_class_ops[amo_types[dt].cls] >> op) & 1;
}

bool
uet_amo_op_has_compare(unsigned int op)
{
	return op >= UET_AMO_CSWAP && op <= UET_AMO_MSWAP;
}

size_t
uet_amo_dt_align(unsigned int dt)
{
	if (!uet_amo_dt_valid(dt))
		return 0;
	return amo_types[dt].size < 16 ? amo_types[dt].size : 16;
}

enum uet_wire_ses_rc
uet_amo_check(unsigned int op, unsigned int dt, const void *target,
	      size_t len, unsigned int flags)
{
	size_t size;

	if (!uet_amo_op_valid(op))
		return UET_RC_AMO_UNSUPPORTED_OP;
	if (!uet_amo_dt_valid(dt))
		return UET_RC_AMO_UNSUPPORTED_DT;
	if (!uet_amo_supported(op, dt))
		return UET_RC_AMO_UNSUPPORTED_OP;
	size = amo_types[dt].size;
	/* No single __atomic instruction covers a 32-byte element. */
	if ((flags & UET_AMO_F_CPU_COHERENT) && size > 16)
		return UET_RC_AMO_UNSUPPORTED_DT;
	if (len == 0 || len % size != 0 || len > UET_AMO_MAX_LEN)
		return UET_RC_AMO_UNSUPPORTED_SIZE;
	if ((uintptr_t)target % uet_amo_dt_align(dt) != 0)
		return UET_RC_AMO_UNALIGNED;
	return UET_RC_OK;
}

/* Single-owner memory: plain read-modify-write of one element. */
static void
amo_elem_plain(const struct amo_type *ty, enum uet_wire_amo_op op, uint8_t *tgt,
	       const uint8_t *a, const uint8_t *c, uint8_t *fetch)
{
	uint8_t old[UET_AMO_ELEM_MAX], res[UET_AMO_ELEM_MAX];
	enum amo_verdict v;

	memcpy(old, tgt, ty->size);
	v = ty->kernel(op, res, old, a, c);
	if (fetch != NULL)
		memcpy(fetch, old, ty->size);
	if (v == AMO_MOVE)
		memcpy(tgt, a, ty->size);
	else if (v == AMO_COMPUTED)
		memcpy(tgt, res, ty->size);
}

/*
 * cpu-coherent (semantic_control bit 1, UEC 1.0 SES extension headers): the
 * element is updated by one compare-and-swap of its whole width, retried while
 * a concurrent CPU writer changes it. The loop is bounded by contention,
 * not by packet contents. A failed CSWAP or a READ still returns a value
 * that was atomically observed.
 */
#define AMO_CAS_ELEM(name, C)						\
static void								\
name(amo_kernel_fn k, enum uet_wire_amo_op op, void *tgt, const void *a,	\
     const void *c, void *fetch)					\
{									\
	C *p = tgt;							\
	C old = __atomic_load_n(p, __ATOMIC_ACQUIRE);			\
	C nv;								\
	enum amo_verdict v;						\
									\
	for (;;) {							\
		v = k(op, &nv, &old, a, c);				\
		if (v == AMO_KEEP)					\
			break;						\
		if (v == AMO_MOVE)					\
			memcpy(&nv, a, sizeof(nv));			\
		if (__atomic_compare_exchange_n(p, &old, nv, false,	\
						__ATOMIC_ACQ_REL,	\
						__ATOMIC_ACQUIRE))	\
			break;						\
	}								\
	if (fetch != NULL)						\
		memcpy(fetch, &old, sizeof(old));			\
}

AMO_CAS_ELEM(amo_cas1, uint8_t)
AMO_CAS_ELEM(amo_cas2, uint16_t)
AMO_CAS_ELEM(amo_cas4, uint32_t)
AMO_CAS_ELEM(amo_cas8, uint64_t)
/*
 * Without -mcx16 the compiler calls libatomic for 16 bytes; on x86-64
 * libatomic picks CMPXCHG16B at run time, so CPU code using the same
 * instruction stays coherent. clang warns about the call: expected here.
 */
#ifdef __clang__
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Watomic-alignment"
#endif
AMO_CAS_ELEM(amo_cas16, unsigned __int128)
#ifdef __clang__
#pragma clang diagnostic pop
#endif

static void
amo_elem_atomic(const struct amo_type *ty, enum uet_wire_amo_op op, uint8_t *tgt,
		const uint8_t *a, const uint8_t *c, uint8_t *fetch)
{
	switch (ty->size) {
	case 1:
		amo_cas1(ty->kernel, op, tgt, a, c, fetch);
		break;
	case 2:
		amo_cas2(ty->kernel, op, tgt, a, c, fetch);
		break;
	case 4:
		amo_cas4(ty->kernel, op, tgt, a, c, fetch);
		break;
	case 8:
		amo_cas8(ty->kernel, op, tgt, a, c, fetch);
		break;
	default: /* 16: larger sizes are refused by uet_amo_check() */
		amo_cas16(ty->kernel, op, tgt, a, c, fetch);
		break;
	}
}

/* Operands in place of an absent operand (READ) or compare buffer. */
static const uint8_t amo_zero[UET_AMO_ELEM_MAX];

enum uet_wire_ses_rc
uet_amo_exec(enum uet_wire_amo_op op, enum uet_wire_amo_dt dt, void *target,
	     const void *operand, const void *compare, void *fetch_out,
	     size_t len, unsigned int flags)
{
	const bool has_cmp = uet_amo_op_has_compare(op);
	const struct amo_type *ty;
	uint8_t *tgt = target, *fetch = fetch_out;
	const uint8_t *a, *c;
	enum uet_wire_ses_rc rc;

	rc = uet_amo_check(op, dt, target, len, flags);
	if (rc != UET_RC_OK)
		return rc;
	if (target == NULL || (operand == NULL && op != UET_AMO_READ) ||
	    (compare == NULL && has_cmp))
		return UET_RC_NULL;
	ty = &amo_types[dt];
	for (size_t off = 0; off < len; off += ty->size) {
		a = operand != NULL ? (const uint8_t *)operand + off : amo_zero;
		c = has_cmp ? (const uint8_t *)compare + off : amo_zero;
		if (flags & UET_AMO_F_CPU_COHERENT)
			amo_elem_atomic(ty, op, tgt + off, a, c,
					fetch ? fetch + off : NULL);
		else
			amo_elem_plain(ty, op, tgt + off, a, c,
				       fetch ? fetch + off : NULL);
	}
	return UET_RC_OK;
}
