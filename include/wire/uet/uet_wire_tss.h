/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef UET_WIRE_TSS_H
#define UET_WIRE_TSS_H

/**
 * @file
 * TSS header codec (UEC 1.0 section 3.7, transport security sublayer).
 *
 * The TSS header sits where the PDS header would (right after UDP or the
 * native-IP entropy header); its first five bits hold the PDS type code
 * TSS (1), which is how a receiver tells the two apart. Everything after
 * it, PDS header first, is the AES-GCM protected part, followed by a
 * 16-byte ICV.
 *
 *     0                   1                   2                   3
 *     0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *    +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *    | type=1  |S|r|A|                 SDI (24 bits)                 |
 *    +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *    |                 SSI (32 bits, only when S = 1)                |
 *    +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *    |         epoch (16 bits)       |                               |
 *    +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+                               +
 *    |                          TSC (48 bits)                        |
 *    +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *
 * S = SSI present, r = reserved (zero), A = association number (AN).
 * docs/WIRE-DECISIONS.md says where this layout comes from.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <uet/uet_wire.h>

#ifdef __cplusplus
extern "C" {
#endif

/** TSS header bytes without the SSI. */
#define UET_TSS_HDR_LEN 12
/** TSS header bytes with the SSI. */
#define UET_TSS_HDR_SSI_LEN 16
/** Largest TSS header. */
#define UET_TSS_HDR_MAX_LEN UET_TSS_HDR_SSI_LEN
/** AES-GCM integrity check value appended to a protected packet. */
#define UET_TSS_ICV_LEN 16
/** Largest secure domain index (24-bit field). */
#define UET_TSS_SDI_MAX 0xFFFFFFu
/** Largest transmit security counter (48-bit field). */
#define UET_TSS_TSC_MAX ((UINT64_C(1) << 48) - 1)

/** A TSS header in host order. */
struct uet_wire_tss_hdr {
	bool sp;        /**< SSI present */
	uint8_t an;     /**< association number: 0 or 1 */
	uint32_t sdi;   /**< secure domain index, 24 bits */
	uint32_t ssi;   /**< source security identifier; 0 unless @c sp */
	uint16_t epoch; /**< key epoch */
	uint64_t tsc;   /**< transmit security counter, 48 bits */
};

/** Size of a TSS header on the wire: 16 with the SSI, 12 without. */
size_t uet_wire_tss_hdr_len(bool sp);

/**
 * Whether @p buf starts with a TSS header rather than a PDS header (its
 * type bits are UET_PDS_TYPE_TSS). False when @p len is 0.
 */
bool uet_wire_tss_hdr_present(const uint8_t *buf, size_t len);

/**
 * Encode a TSS header.
 * @return
 *   Bytes written (uet_wire_tss_hdr_len(h->sp)), or a negated error:
 *   - UET_WIRE_E_BAD_FIELD: an > 1, sdi > 24 bits, tsc > 48 bits.
 *   - UET_WIRE_E_BAD_COMBINATION: ssi not zero without sp.
 *   - UET_WIRE_E_NOSPACE: @p cap smaller than the header.
 */
int uet_wire_tss_hdr_encode(const struct uet_wire_tss_hdr *h, uint8_t *buf,
		       size_t cap);

/**
 * Decode a TSS header.
 * @return
 *   Bytes consumed, or a negated error:
 *   - UET_WIRE_E_TRUNCATED: fewer bytes than the header.
 *   - UET_WIRE_E_BAD_TYPE: type bits are not TSS.
 *   - UET_WIRE_E_RESERVED: the reserved bit is set.
 */
int uet_wire_tss_hdr_decode(const uint8_t *buf, size_t len,
		       struct uet_wire_tss_hdr *h);

#ifdef __cplusplus
}
#endif

#endif /* UET_WIRE_TSS_H */
