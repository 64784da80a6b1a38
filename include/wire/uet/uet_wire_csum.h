/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef UET_WIRE_CSUM_H
#define UET_WIRE_CSUM_H

/**
 * @file
 * The Internet checksum (RFC 1071) of bulk bytes: a vectorised sum and a
 * copy that sums what it copies, so a payload that must be copied into
 * its frame is read once, not twice (copy, then checksum pass).
 *
 * Partial sums are in host byte order, 16-bit words summed as they lie in
 * memory (RFC 1071 section 2(B): the sum is byte-order independent), the
 * convention of DPDK's rte_raw_cksum() and rte_ipv4_phdr_cksum(), so the
 * partial sums of consecutive pieces, each starting at an even offset of
 * the datagram, and a pseudo-header sum simply add. A piece that starts
 * at an odd offset must have its partial sum byte-swapped by the caller.
 */

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * One's complement sum of @p len bytes at @p buf added to @p sum.
 * @return
 *   The sum folded to 16 bits (in a uint32_t, so that callers may add
 *   more sums to it without overflow).
 */
uint32_t uet_wire_csum_partial(const void *buf, size_t len, uint32_t sum);

/**
 * Copy @p len bytes from @p src to @p dst (not overlapping) and return
 * uet_wire_csum_partial(src, len, sum): one pass over the bytes.
 */
uint32_t uet_wire_csum_copy(void *dst, const void *src, size_t len,
			    uint32_t sum);

/**
 * Sum of the pseudo-header (RFC 768 for IPv4, RFC 8200 section 8.1 for
 * IPv6, protocol UDP) of the IP header at @p l3 (its version in the first
 * nibble), the upper-layer length taken from the IP header as DPDK's
 * rte_ipv4/6_udptcp_cksum() take it.
 * @param[out] l4_len
 *   The upper-layer length: IPv4 total length minus header length (0 when
 *   the total is smaller), IPv6 payload length.
 */
uint32_t uet_wire_csum_pseudo(const void *l3, uint32_t *l4_len);

/**
 * Sum of the UDP datagram at @p l4 with its pseudo-header (@p l3, as
 * uet_wire_csum_pseudo()). A datagram whose checksum is right folds to
 * 0xFFFF; with the checksum field zero, the complement of the fold is
 * the checksum to store (0xFFFF for 0, RFC 768).
 */
uint32_t uet_wire_csum_udp(const void *l3, const void *l4);

/**
 * The 16-bit one's complement sum of @p sum (not complemented).
 */
static inline uint16_t
uet_wire_csum_fold(uint32_t sum)
{
	sum = (sum & 0xFFFFu) + (sum >> 16);
	sum = (sum & 0xFFFFu) + (sum >> 16);
	return (uint16_t)sum;
}

#ifdef __cplusplus
}
#endif

#endif /* UET_WIRE_CSUM_H */
