/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef UET_SES_AMO_H
#define UET_SES_AMO_H

/**
 * @file
 * Target-side atomic memory operation engine (UEC 1.0 SES extension headers,
 * SES opcodes and atomic datatypes, SES responses).
 *
 * Sans-I/O: the caller (the SES) has already resolved the target buffer
 * (see uet_ses_mr.h) and hands over host pointers. The full semantics,
 * the op x datatype support table and the return-code table are in
 * docs/SES.md, section "Atomics". In short:
 *  - Values are host byte order. The SES passes operands through as the
 *    initiator sent them: UET carries atomic operands in the initiator's
 *    (little-endian, host) order, not big-endian.
 *  - A request covers @p len bytes = n elements (vector atomics); every
 *    element is processed independently, in increasing address order.
 *  - LONG_DOUBLE is the host-native `long double` in a 16-byte slot (x86:
 *    80-bit value in bytes 0..9, computed results write zero padding).
 *  - BF16 and FP16 are computed in double and rounded once to nearest
 *    even, so results are correctly rounded.
 *  - Floating-point results are IEEE; no AMO_FP_* condition is reported.
 *  - Exactly-once under retransmission is the SES's job, not this one's.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <uet/uet_wire.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Largest request accepted by uet_amo_exec(), in bytes (one MTU payload). */
#define UET_AMO_MAX_LEN 4096u
/** Largest element (LONG_DOUBLE_COMPLEX). */
#define UET_AMO_ELEM_MAX 32u
/** Largest fetching-atomic request: the old values travel back in the
 * ACK (RESPONSE_DATA_SMALL), at most this many bytes. */
#define UET_AMO_FETCH_MAX 32u
/** Largest compare-and-swap element: the CAS form of the atomic extension
 * carries one 16-byte compare and one 16-byte swap value (UEC 1.0 SES
 * atomic extension header), no payload. */
#define UET_AMO_CAS_MAX 16u

/**
 * Flags of uet_amo_exec(): the atomic extension's semantic_control bits
 * (UET_SES_AMO_SC_*) are passed as they are. UET_SES_AMO_SC_CPU_COHERENT
 * makes every element update a single `__atomic` compare-and-swap, so that
 * concurrent host CPU atomics on the same memory stay coherent; without it
 * the engine does a plain read-modify-write (correct when only the owning
 * lcore touches the memory). UET_SES_AMO_SC_CACHEABLE is a hint, ignored.
 */
#define UET_AMO_F_CPU_COHERENT UET_SES_AMO_SC_CPU_COHERENT

/** Whether @p op is defined (MIN..MSWAP). */
bool uet_amo_op_valid(unsigned int op);

/** Whether @p dt is defined (INT8..FP16). */
bool uet_amo_dt_valid(unsigned int dt);

/**
 * Whether the engine defines @p op on @p dt (table in docs/SES.md).
 * False when either is undefined.
 */
bool uet_amo_supported(unsigned int op, unsigned int dt);

/** Whether @p op needs the compare operand (CSWAP family, MSWAP mask). */
bool uet_amo_op_has_compare(unsigned int op);

/**
 * Required alignment of the target address: min(element size, 16).
 * 0 for an undefined datatype.
 */
size_t uet_amo_dt_align(unsigned int dt);

/**
 * Validate an atomic request without touching memory, in the order
 * uet_amo_exec() does.
 * @param op
 *   enum uet_wire_amo_op.
 * @param dt
 *   enum uet_wire_amo_dt.
 * @param target
 *   Target address (only its alignment is looked at).
 * @param len
 *   Request length in bytes.
 * @param flags
 *   UET_AMO_F_* / semantic_control bits.
 * @return
 *   - UET_RC_OK: uet_amo_exec() would execute the request.
 *   - UET_RC_AMO_UNSUPPORTED_OP: @p op undefined, or not defined on @p dt.
 *   - UET_RC_AMO_UNSUPPORTED_DT: @p dt undefined, or LONG_DOUBLE_COMPLEX
 *     (32-byte elements) with UET_AMO_F_CPU_COHERENT.
 *   - UET_RC_AMO_UNSUPPORTED_SIZE: @p len is 0, not a multiple of the
 *     element size, or above UET_AMO_MAX_LEN.
 *   - UET_RC_AMO_UNALIGNED: @p target not aligned to uet_amo_dt_align().
 */
enum uet_wire_ses_rc uet_amo_check(unsigned int op, unsigned int dt,
			      const void *target, size_t len,
			      unsigned int flags);

/**
 * Execute an atomic over a target region.
 *
 * For each element, with t the prior target value, a the operand and
 * c the compare operand:
 *  - MIN/MAX: t = a when a < t (a > t), or when t is a NaN and a is not.
 *  - SUM t = t + a; DIFF t = t - a; PROD t = t * a. Integers wrap
 *    (two's complement); complex PROD uses the textbook formula.
 *  - LOR/LAND/LXOR: t = (t != 0) OP (a != 0), giving 0 or 1.
 *  - BOR/BAND/BXOR: bitwise. READ: no write. WRITE: t = a.
 *  - CSWAP_xx: t = a when (t xx c) holds: CSWAP t == c, CSWAP_NE t != c,
 *    CSWAP_LE t <= c, CSWAP_LT t < c, CSWAP_GE t >= c, CSWAP_GT t > c
 *    (the target is the left-hand side; C semantics, so comparisons
 *    involving a NaN are false, except NE which is true).
 *  - MSWAP: t = (t & ~c) | (a & c): c is the mask.
 * Values moved unchanged (WRITE, the CSWAP family, MIN/MAX) are copied bit
 * for bit; computed values are IEEE results (no AMO_FP_* reported).
 *
 * @param op
 *   enum uet_wire_amo_op.
 * @param dt
 *   enum uet_wire_amo_dt.
 * @param target
 *   Target region, @p len bytes, aligned to uet_amo_dt_align().
 * @param operand
 *   @p len bytes of operands (the swap values for CSWAP/MSWAP); may be
 *   NULL for READ. Any alignment.
 * @param compare
 *   @p len bytes of compare values (masks for MSWAP); required when
 *   uet_amo_op_has_compare(), ignored otherwise. Any alignment.
 * @param fetch_out
 *   NULL, or @p len bytes receiving the prior target values (for every
 *   op, including a failed CSWAP). Must not overlap @p target, @p operand
 *   or @p compare.
 * @param len
 *   Bytes, a multiple of uet_wire_amo_dt_size(@p dt).
 * @param flags
 *   UET_AMO_F_* / semantic_control bits.
 * @return
 *   UET_RC_OK, one of the codes of uet_amo_check() (memory untouched),
 *   or UET_RC_NULL when @p target is NULL or a required operand is NULL
 *   (a caller bug; memory untouched).
 */
enum uet_wire_ses_rc uet_amo_exec(enum uet_wire_amo_op op, enum uet_wire_amo_dt dt,
			     void *target, const void *operand,
			     const void *compare, void *fetch_out, size_t len,
			     unsigned int flags);

/** IEEE binary16 bits to double (exact; NaN sign and payload kept). */
double uet_amo_fp16_to_double(uint16_t h);

/** bfloat16 bits to double (exact; NaN sign and payload kept). */
double uet_amo_bf16_to_double(uint16_t h);

/**
 * Double to IEEE binary16, round to nearest even; overflow gives
 * infinity, NaN gives a quiet NaN with the top payload bits.
 */
uint16_t uet_amo_double_to_fp16(double d);

/** Double to bfloat16, same rules as uet_amo_double_to_fp16(). */
uint16_t uet_amo_double_to_bf16(double d);

#ifdef __cplusplus
}
#endif

#endif /* UET_SES_AMO_H */
