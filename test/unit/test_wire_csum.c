/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * src/wire/csum.c: the vectorised Internet checksum and the copy that
 * sums, against a plain RFC 1071 sum, at every length and alignment that
 * exercises the vector, word and odd-byte paths, and past the lanes'
 * overflow bound.
 */

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <uet/uet_wire_csum.h>

/* RFC 1071, one 16-bit host-order word at a time (DPDK's convention). */
static uint16_t
ref_sum(const uint8_t *p, size_t len)
{
	uint64_t s = 0;
	size_t i;

	for (i = 0; i + 2 <= len; i += 2) {
		uint16_t w;

		memcpy(&w, p + i, 2);
		s += w;
	}
	if (i < len) {
		uint16_t w = 0;

		memcpy(&w, p + i, 1);
		s += w;
	}
	while (s >> 16)
		s = (s & 0xFFFF) + (s >> 16);
	return (uint16_t)s;
}

/* xorshift: the same bytes every run */
static void
fill(uint8_t *p, size_t len, uint32_t seed)
{
	uint32_t x = seed | 1;

	for (size_t i = 0; i < len; i++) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		p[i] = (uint8_t)x;
	}
}

static void
csum_partial__rfc1071_example(void **state)
{
	/* RFC 1071 section 3: the sum of these bytes is ddf2 (big-endian) */
	static const uint8_t b[] = {0x00, 0x01, 0xf2, 0x03,
				    0xf4, 0xf5, 0xf6, 0xf7};
	uint16_t s = uet_wire_csum_fold(uet_wire_csum_partial(b, sizeof(b), 0));
	uint8_t out[2];

	(void)state;
	memcpy(out, &s, 2);
	assert_int_equal(out[0], 0xdd);
	assert_int_equal(out[1], 0xf2);
}

/* Lengths 0..300 (vector, word, half-word, odd byte) at offsets 0..7. */
static void
csum_partial__matches_reference(void **state)
{
	uint8_t buf[320];

	(void)state;
	fill(buf, sizeof(buf), 7);
	for (size_t off = 0; off < 8; off++)
		for (size_t len = 0; len <= 300; len++)
			assert_int_equal(uet_wire_csum_fold(
				uet_wire_csum_partial(buf + off, len, 0)),
				ref_sum(buf + off, len));
}

/* The initial sum is added, and the result may take more sums. */
static void
csum_partial__adds_pieces(void **state)
{
	uint8_t buf[9000];
	uint32_t s;

	(void)state;
	fill(buf, sizeof(buf), 11);
	s = uet_wire_csum_partial(buf, 42, 0xFFFF);
	s = uet_wire_csum_partial(buf + 42, 1000, s);
	s = uet_wire_csum_partial(buf + 1042, sizeof(buf) - 1042, s);
	assert_true(s <= 0xFFFF);
	assert_int_equal(uet_wire_csum_fold(s + 0),
			 uet_wire_csum_fold(ref_sum(buf, sizeof(buf)) +
					    0xFFFFu));
}

/* All-ones bytes over more than the lanes' 65536 steps (2 MiB): the
 * worst case for the lane accumulators. */
static void
csum_partial__all_ones_past_lane_bound(void **state)
{
	size_t len = (2u << 20) + 4096 + 3;
	uint8_t *p = malloc(len);

	(void)state;
	assert_non_null(p);
	memset(p, 0xFF, len);
	assert_int_equal(uet_wire_csum_fold(uet_wire_csum_partial(p, len, 0)),
			 ref_sum(p, len));
	fill(p, len, 3);
	assert_int_equal(uet_wire_csum_fold(uet_wire_csum_partial(p, len, 0)),
			 ref_sum(p, len));
	free(p);
}

/* The copy writes exactly @p len bytes at every alignment of source and
 * destination and returns the same sum. */
static void
csum_copy__copies_and_sums(void **state)
{
	static const size_t lens[] = {0, 1, 2, 3, 31, 32, 33, 63, 64, 65,
				      1499, 1500, 4096, 8999, 9000};
	uint8_t src[9100], dst[9200];

	(void)state;
	fill(src, sizeof(src), 5);
	for (size_t l = 0; l < sizeof(lens) / sizeof(lens[0]); l++)
		for (size_t so = 0; so < 4; so++)
			for (size_t doff = 1; doff < 5; doff++) {
				size_t len = lens[l];
				uint32_t s;

				memset(dst, 0xA5, sizeof(dst));
				s = uet_wire_csum_copy(dst + doff, src + so,
						       len, 0);
				assert_int_equal(uet_wire_csum_fold(s),
						 ref_sum(src + so, len));
				assert_memory_equal(dst + doff, src + so, len);
				for (size_t i = 0; i < doff; i++)
					assert_int_equal(dst[i], 0xA5);
				for (size_t i = doff + len; i < sizeof(dst);
				     i++)
					assert_int_equal(dst[i], 0xA5);
			}
}

/* A UDP datagram of @p plen payload bytes behind an IPv4 or IPv6 header
 * whose checksum is computed here from a big-endian pseudo-header. */
static size_t
frame(uint8_t *f, int v, uint16_t plen)
{
	size_t hl = v == 4 ? 20 : 40, ulen = 8 + (size_t)plen;
	uint8_t ph[40 + 12];
	size_t pl = 0;
	uint64_t s;
	uint16_t c;

	memset(f, 0, hl + 8);
	fill(f + hl + 8, plen, 9);
	if (v == 4) {
		f[0] = 0x45;
		f[2] = (uint8_t)((hl + ulen) >> 8);
		f[3] = (uint8_t)(hl + ulen);
		f[9] = 17;
		fill(f + 12, 8, 21); /* addresses */
		memcpy(ph, f + 12, 8);
		pl = 8;
	} else {
		f[0] = 0x60;
		f[4] = (uint8_t)(ulen >> 8);
		f[5] = (uint8_t)ulen;
		f[6] = 17;
		fill(f + 8, 32, 23);
		memcpy(ph, f + 8, 32);
		pl = 32;
	}
	ph[pl++] = 0;
	ph[pl++] = 17;
	ph[pl++] = (uint8_t)(ulen >> 8);
	ph[pl++] = (uint8_t)ulen;
	f[hl + 4] = (uint8_t)(ulen >> 8);
	f[hl + 5] = (uint8_t)ulen;
	/* big-endian RFC 768 sum of pseudo-header and datagram */
	s = 0;
	for (size_t i = 0; i < pl; i += 2)
		s += (uint32_t)(ph[i] << 8 | ph[i + 1]);
	for (size_t i = 0; i < ulen; i += 2)
		s += (uint32_t)(f[hl + i] << 8 |
				(i + 1 < ulen ? f[hl + i + 1] : 0));
	while (s >> 16)
		s = (s & 0xFFFF) + (s >> 16);
	c = (uint16_t)~s;
	if (c == 0)
		c = 0xFFFF;
	f[hl + 6] = (uint8_t)(c >> 8);
	f[hl + 7] = (uint8_t)c;
	return hl;
}

/* A right checksum folds to 0xFFFF; one flipped bit does not; the fill
 * convention gives back the stored value. */
static void
csum_udp__verifies_and_fills(void **state)
{
	static const uint16_t plens[] = {0, 1, 57, 1458, 8957};
	uint8_t f[40 + 8 + 9000];

	(void)state;
	for (int v = 4; v <= 6; v += 2)
		for (size_t i = 0; i < sizeof(plens) / sizeof(plens[0]); i++) {
			size_t hl = frame(f, v, plens[i]);
			uint8_t stored[2];
			uint16_t c;
			uint32_t len;

			assert_int_equal(uet_wire_csum_fold(
				uet_wire_csum_udp(f, f + hl)), 0xFFFF);
			(void)uet_wire_csum_pseudo(f, &len);
			assert_int_equal(len, 8u + plens[i]);
			memcpy(stored, f + hl + 6, 2);
			memset(f + hl + 6, 0, 2);
			c = (uint16_t)~uet_wire_csum_fold(
				uet_wire_csum_udp(f, f + hl));
			assert_memory_equal(&c, stored, 2);
			memcpy(f + hl + 6, stored, 2);
			f[hl + 8 + plens[i] / 2] ^= 0x10;
			if (plens[i] != 0)
				assert_int_not_equal(uet_wire_csum_fold(
					uet_wire_csum_udp(f, f + hl)), 0xFFFF);
		}
}

/* IPv4 total length below the header length: no datagram, length 0. */
static void
csum_pseudo__ipv4_short_total(void **state)
{
	uint8_t ip[20] = {0x46, 0, 0, 20};
	uint32_t len = 99;

	(void)state;
	(void)uet_wire_csum_pseudo(ip, &len);
	assert_int_equal(len, 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(csum_partial__rfc1071_example),
		cmocka_unit_test(csum_partial__matches_reference),
		cmocka_unit_test(csum_partial__adds_pieces),
		cmocka_unit_test(csum_partial__all_ones_past_lane_bound),
		cmocka_unit_test(csum_copy__copies_and_sums),
		cmocka_unit_test(csum_udp__verifies_and_fills),
		cmocka_unit_test(csum_pseudo__ipv4_short_total),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
