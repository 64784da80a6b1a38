/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The Internet checksum of bulk bytes (RFC 1071), vectorised with the
 * compiler's generic vectors: 32 bytes per step, each 32-bit lane
 * summing its two 16-bit halves into two accumulators (no carries to
 * propagate until the end). DPDK's rte_raw_cksum() adds one 16-bit word
 * per step, about 0.7 instructions per byte; this is about 0.2 (SSE2)
 * and half that where the CPU has AVX2, and the copy variant stores the
 * same registers it sums, so a payload copied into its frame is read
 * once.
 */

#include <string.h>

#include <uet/uet_wire_outer.h>
#include <uet/uet_wire_csum.h>

#include "wire_be.h"

typedef uint32_t csum_vec __attribute__((vector_size(32)));

/* A lane adds at most 0xFFFF per step: after 8192 steps (256 KiB) the
 * two accumulators and then their halves add without overflow
 * (8 * 8192 * 0xFFFF < 2^32), so the reduction stays short. */
#define CSUM_STEPS_MAX 8192u

/* The compiler picks the widest vectors the CPU has at load time (an
 * ifunc); elsewhere the generic vectors compile to what the target has. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define CSUM_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define CSUM_CLONES
#endif

typedef uint32_t csum_half __attribute__((vector_size(16)));

/* By pointer: a 32-byte vector argument would change the ABI where the
 * target has no AVX. */
static inline __attribute__((always_inline)) uint64_t
csum_lanes(csum_vec *lo, const csum_vec *hi)
{
	csum_half a, b;

	*lo += *hi;
	memcpy(&a, lo, sizeof(a));
	memcpy(&b, (const uint8_t *)lo + sizeof(a), sizeof(b));
	a += b;
	return (uint64_t)a[0] + a[1] + a[2] + a[3];
}

/* Sum (and copy, when @p dst is not NULL) @p len bytes; unfolded 64-bit
 * partial sum. Inlined into both entry points, so each has one loop. */
static inline __attribute__((always_inline)) uint64_t
csum_run(uint8_t *dst, const uint8_t *src, size_t len)
{
	const csum_vec mask = {0xFFFF, 0xFFFF, 0xFFFF, 0xFFFF,
			       0xFFFF, 0xFFFF, 0xFFFF, 0xFFFF};
	uint64_t s = 0;

	while (len >= sizeof(csum_vec)) {
		size_t steps = len / sizeof(csum_vec);
		csum_vec lo = {0}, hi = {0};

		if (steps > CSUM_STEPS_MAX)
			steps = CSUM_STEPS_MAX;
		for (size_t i = 0; i < steps; i++) {
			csum_vec w;

			memcpy(&w, src, sizeof(w));
			if (dst != NULL) {
				memcpy(dst, &w, sizeof(w));
				dst += sizeof(w);
			}
			lo += w & mask;
			hi += w >> 16;
			src += sizeof(w);
		}
		len -= steps * sizeof(csum_vec);
		s += csum_lanes(&lo, &hi);
	}
	for (; len >= 4; len -= 4, src += 4) {
		uint32_t w;

		memcpy(&w, src, 4);
		if (dst != NULL) {
			memcpy(dst, &w, 4);
			dst += 4;
		}
		s += w;
	}
	if (len >= 2) {
		uint16_t w;

		memcpy(&w, src, 2);
		if (dst != NULL) {
			memcpy(dst, &w, 2);
			dst += 2;
		}
		s += w;
		src += 2;
		len -= 2;
	}
	if (len != 0) {
		/* the odd last byte is the first of a 16-bit word padded
		 * with zero (RFC 1071), in host order */
		uint16_t w = 0;

		memcpy(&w, src, 1);
		if (dst != NULL)
			*dst = *src;
		s += w;
	}
	return s;
}

static uint32_t
csum_reduce(uint64_t s, uint32_t sum)
{
	s += sum;
	s = (s & 0xFFFFFFFFu) + (s >> 32);
	s = (s & 0xFFFFFFFFu) + (s >> 32);
	return uet_wire_csum_fold((uint32_t)s);
}

CSUM_CLONES uint32_t
uet_wire_csum_partial(const void *buf, size_t len, uint32_t sum)
{
	return csum_reduce(csum_run(NULL, buf, len), sum);
}

CSUM_CLONES uint32_t
uet_wire_csum_copy(void *dst, const void *src, size_t len, uint32_t sum)
{
	return csum_reduce(csum_run(dst, src, len), sum);
}

/* Sum of @p n 32-bit words at @p p, in host order (n small). */
static inline uint64_t
csum_words(const uint8_t *p, unsigned int n)
{
	uint64_t s = 0;

	for (unsigned int i = 0; i < n; i++) {
		uint32_t w;

		memcpy(&w, p + 4 * i, 4);
		s += w;
	}
	return s;
}

uint32_t
uet_wire_csum_pseudo(const void *l3, uint32_t *l4_len)
{
	const uint8_t *ip = l3;
	uint8_t tail[4] = {0, UET_IPPROTO_UDP, 0, 0};
	uint32_t len, hl, w;
	uint64_t s;

	/* scalar: called twice per frame on a dozen words, where the
	 * vector loop's set-up would cost more than the sum */
	if ((ip[0] >> 4) == 4) {
		hl = (ip[0] & 0x0Fu) * 4u;
		len = be16_load(ip + 2);
		len = len < hl ? 0 : len - hl;
		s = csum_words(ip + 12, 2);
	} else {
		len = be16_load(ip + 4);
		s = csum_words(ip + 8, 8);
	}
	be16_store(tail + 2, (uint16_t)len);
	memcpy(&w, tail, 4);
	*l4_len = len;
	return csum_reduce(s + w, 0);
}

uint32_t
uet_wire_csum_udp(const void *l3, const void *l4)
{
	uint32_t len, sum = uet_wire_csum_pseudo(l3, &len);

	return uet_wire_csum_partial(l4, len, sum);
}
