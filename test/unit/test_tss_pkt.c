/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of the protected-packet layout (src/tss/tss_pkt.c): IV, AAD
 * and split, against byte strings written by hand from
 * docs/WIRE-DECISIONS.md ("TSS header and protected packet").
 */

#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>

#include <uet/uet_tss.h>

static void
uet_tss_iv__direct_and_masked(void **state)
{
	static const uint8_t want[UET_TSS_IV_LEN] = {
		0x0A, 0x00, 0x00, 0x01,             /* source id */
		0x00, 0x07,                         /* epoch */
		0x00, 0x00, 0x12, 0x34, 0x56, 0x78, /* tsc */
	};
	uint8_t iv[UET_TSS_IV_LEN], mask[UET_TSS_IV_LEN];
	size_t i;

	(void)state;
	uet_tss_iv(0x0A000001, 7, 0x12345678, NULL, iv);
	assert_memory_equal(iv, want, sizeof(want));
	for (i = 0; i < sizeof(mask); i++)
		mask[i] = (uint8_t)(0x11 * (i + 1));
	uet_tss_iv(0x0A000001, 7, 0x12345678, mask, iv);
	for (i = 0; i < sizeof(iv); i++)
		assert_int_equal(iv[i], want[i] ^ mask[i]);
	/* the TSC field is 48 bits: the epoch is never overwritten */
	uet_tss_iv(0, 0, UINT64_MAX, NULL, iv);
	assert_int_equal(iv[4], 0);
	assert_int_equal(iv[5], 0);
	assert_int_equal(iv[6], 0xFF);
}

/* IPv4 over UDP: the UDP source port stands for the entropy. */
static void
uet_tss_aad__ipv4_udp(void **state)
{
	struct uet_wire_outer o = {
		.ip_version = 4, .udp_sport = 0xBEEF, .entropy = 0x1111,
		.src_addr = { 10, 0, 0, 1 }, .dst_addr = { 10, 0, 0, 2 },
	};
	static const uint8_t tss[UET_TSS_HDR_LEN] = {
		0x08, 0x00, 0x00, 0x01, 0, 0, 0, 0, 0, 0, 0, 9,
	};
	static const uint8_t want[] = {
		10, 0, 0, 1, 10, 0, 0, 2, 0xBE, 0xEF, 0, 0,
		0x08, 0x00, 0x00, 0x01, 0, 0, 0, 0, 0, 0, 0, 9,
	};
	uint8_t aad[UET_TSS_AAD_MAX_LEN];

	(void)state;
	assert_int_equal(uet_tss_aad(&o, tss, sizeof(tss), aad, sizeof(aad)),
			 (int)sizeof(want));
	assert_memory_equal(aad, want, sizeof(want));
	assert_int_equal(uet_tss_aad(&o, tss, sizeof(tss), aad,
				     sizeof(want) - 1), -ENOSPC);
	assert_int_equal(uet_tss_aad(&o, tss, 13, aad, sizeof(aad)), -EINVAL);
	o.ip_version = 5;
	assert_int_equal(uet_tss_aad(&o, tss, sizeof(tss), aad, sizeof(aad)),
			 -EINVAL);
}

/* Native IPv6 with SSI: the entropy header's value, the largest AAD. */
static void
uet_tss_aad__ipv6_native(void **state)
{
	struct uet_wire_outer o = {
		.ip_version = 6, .native = true, .entropy = 0x1234,
		.udp_sport = 0xFFFF,
	};
	uint8_t tss[UET_TSS_HDR_SSI_LEN], aad[UET_TSS_AAD_MAX_LEN];
	size_t i;

	(void)state;
	for (i = 0; i < 16; i++) {
		o.src_addr[i] = (uint8_t)i;
		o.dst_addr[i] = (uint8_t)(0x80 + i);
		tss[i] = (uint8_t)(0xC0 + i);
	}
	assert_int_equal(uet_tss_aad(&o, tss, sizeof(tss), aad, sizeof(aad)),
			 UET_TSS_AAD_MAX_LEN);
	assert_memory_equal(aad, o.src_addr, 16);
	assert_memory_equal(aad + 16, o.dst_addr, 16);
	assert_int_equal(aad[32], 0x12);
	assert_int_equal(aad[33], 0x34);
	assert_int_equal(aad[34], 0);
	assert_int_equal(aad[35], 0);
	assert_memory_equal(aad + 36, tss, sizeof(tss));
}

static void
uet_tss_split__edges(void **state)
{
	struct uet_tss_split s;
	size_t min = UET_TSS_HDR_LEN + UET_PDS_UUD_LEN + UET_TSS_ICV_LEN;

	(void)state;
	assert_int_equal(uet_tss_split(min - 1, false, &s), -EMSGSIZE);
	assert_int_equal(uet_tss_split(min, false, &s), 0);
	assert_int_equal(s.hdr_len, UET_TSS_HDR_LEN);
	assert_int_equal(s.enc_len, UET_PDS_UUD_LEN);
	assert_int_equal(s.icv_off, UET_TSS_HDR_LEN + UET_PDS_UUD_LEN);
	assert_int_equal(uet_tss_split(min, true, &s), -EMSGSIZE);
	assert_int_equal(uet_tss_split(1000, true, &s), 0);
	assert_int_equal(s.hdr_len, UET_TSS_HDR_SSI_LEN);
	assert_int_equal(s.enc_len, 1000 - UET_TSS_HDR_SSI_LEN -
			 UET_TSS_ICV_LEN);
	assert_int_equal(s.icv_off, 1000 - UET_TSS_ICV_LEN);
	assert_int_equal(uet_tss_split(70000, false, &s), -EMSGSIZE);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(uet_tss_iv__direct_and_masked),
		cmocka_unit_test(uet_tss_aad__ipv4_udp),
		cmocka_unit_test(uet_tss_aad__ipv6_native),
		cmocka_unit_test(uet_tss_split__edges),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
