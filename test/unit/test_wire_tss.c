/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of the TSS header codec (src/wire/tss.c).
 *
 * Golden byte strings are written by hand from the layout in
 * uet_wire_tss.h: word 0 = type(5)=1 | sp | rsvd | an | sdi(24), then the
 * SSI when sp, then epoch(16) | tsc(48).
 */

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>

#include <uet/uet_wire.h>

#define ITERATIONS 10000

static const uint8_t golden_nossi[] = {
	0x09, 0x12, 0x34, 0x56, /* type 1, an 1, sdi 0x123456 */
	0xAB, 0xCD, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06,
};

static const uint8_t golden_ssi[] = {
	0x0C, 0x12, 0x34, 0x56, /* type 1, sp, an 0, sdi 0x123456 */
	0xC0, 0xA8, 0x00, 0x01, /* ssi */
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01,
};

static void
uet_tss_hdr_encode__golden_without_ssi(void **state)
{
	struct uet_wire_tss_hdr h = {
		.an = 1, .sdi = 0x123456, .epoch = 0xABCD,
		.tsc = UINT64_C(0x010203040506),
	};
	uint8_t buf[UET_TSS_HDR_MAX_LEN];

	(void)state;
	assert_int_equal(uet_wire_tss_hdr_encode(&h, buf, sizeof(buf)),
			 UET_TSS_HDR_LEN);
	assert_memory_equal(buf, golden_nossi, sizeof(golden_nossi));
}

static void
uet_tss_hdr_encode__golden_with_ssi(void **state)
{
	struct uet_wire_tss_hdr h = {
		.sp = true, .sdi = 0x123456, .ssi = 0xC0A80001, .tsc = 1,
	};
	uint8_t buf[UET_TSS_HDR_MAX_LEN];

	(void)state;
	assert_int_equal(uet_wire_tss_hdr_encode(&h, buf, sizeof(buf)),
			 UET_TSS_HDR_SSI_LEN);
	assert_memory_equal(buf, golden_ssi, sizeof(golden_ssi));
}

static void
uet_tss_hdr_decode__golden(void **state)
{
	struct uet_wire_tss_hdr h;

	(void)state;
	assert_int_equal(uet_wire_tss_hdr_decode(golden_nossi,
					    sizeof(golden_nossi), &h),
			 UET_TSS_HDR_LEN);
	assert_false(h.sp);
	assert_int_equal(h.an, 1);
	assert_int_equal(h.sdi, 0x123456);
	assert_int_equal(h.ssi, 0);
	assert_int_equal(h.epoch, 0xABCD);
	assert_true(h.tsc == UINT64_C(0x010203040506));

	assert_int_equal(uet_wire_tss_hdr_decode(golden_ssi, sizeof(golden_ssi),
					    &h),
			 UET_TSS_HDR_SSI_LEN);
	assert_true(h.sp);
	assert_int_equal(h.an, 0);
	assert_int_equal(h.ssi, 0xC0A80001);
	assert_int_equal(h.epoch, 0);
	assert_true(h.tsc == 1);
}

static void
uet_tss_hdr_decode__truncated(void **state)
{
	struct uet_wire_tss_hdr h;
	size_t n;

	(void)state;
	for (n = 0; n < sizeof(golden_nossi); n++)
		assert_int_equal(uet_wire_tss_hdr_decode(golden_nossi, n, &h),
				 -UET_WIRE_E_TRUNCATED);
	for (n = 0; n < sizeof(golden_ssi); n++)
		assert_int_equal(uet_wire_tss_hdr_decode(golden_ssi, n, &h),
				 -UET_WIRE_E_TRUNCATED);
}

static void
uet_tss_hdr_decode__rejects_bad_type_and_reserved(void **state)
{
	uint8_t b[UET_TSS_HDR_MAX_LEN];
	struct uet_wire_tss_hdr h;
	unsigned int type;

	(void)state;
	for (type = 0; type < 32; type++) {
		memcpy(b, golden_nossi, sizeof(golden_nossi));
		b[0] = (uint8_t)((type << 3) | (b[0] & 7));
		assert_int_equal(uet_wire_tss_hdr_decode(b, sizeof(golden_nossi),
						    &h),
				 type == UET_PDS_TYPE_TSS ?
				 UET_TSS_HDR_LEN : -UET_WIRE_E_BAD_TYPE);
		assert_int_equal(uet_wire_tss_hdr_present(b, 1),
				 type == UET_PDS_TYPE_TSS);
	}
	memcpy(b, golden_nossi, sizeof(golden_nossi));
	b[0] |= 0x02; /* reserved bit 25 */
	assert_int_equal(uet_wire_tss_hdr_decode(b, sizeof(golden_nossi), &h),
			 -UET_WIRE_E_RESERVED);
	assert_false(uet_wire_tss_hdr_present(b, 0));
}

static void
uet_tss_hdr_encode__rejects_bad_fields(void **state)
{
	struct uet_wire_tss_hdr ok = { .sdi = 1 };
	struct uet_wire_tss_hdr h;
	uint8_t buf[UET_TSS_HDR_MAX_LEN];

	(void)state;
	h = ok;
	h.an = 2;
	assert_int_equal(uet_wire_tss_hdr_encode(&h, buf, sizeof(buf)),
			 -UET_WIRE_E_BAD_FIELD);
	h = ok;
	h.sdi = UET_TSS_SDI_MAX + 1;
	assert_int_equal(uet_wire_tss_hdr_encode(&h, buf, sizeof(buf)),
			 -UET_WIRE_E_BAD_FIELD);
	h = ok;
	h.tsc = UET_TSS_TSC_MAX + 1;
	assert_int_equal(uet_wire_tss_hdr_encode(&h, buf, sizeof(buf)),
			 -UET_WIRE_E_BAD_FIELD);
	h = ok;
	h.ssi = 7; /* without sp */
	assert_int_equal(uet_wire_tss_hdr_encode(&h, buf, sizeof(buf)),
			 -UET_WIRE_E_BAD_COMBINATION);
	assert_int_equal(uet_wire_tss_hdr_encode(&ok, buf, UET_TSS_HDR_LEN - 1),
			 -UET_WIRE_E_NOSPACE);
	h = ok;
	h.sp = true;
	assert_int_equal(uet_wire_tss_hdr_encode(&h, buf, UET_TSS_HDR_SSI_LEN - 1),
			 -UET_WIRE_E_NOSPACE);
}

static uint64_t
xs64(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* Random legal headers: encode, decode, same struct, same bytes. */
static void
uet_tss_hdr_encode__round_trip_random(void **state)
{
	uint8_t buf[UET_TSS_HDR_MAX_LEN], buf2[UET_TSS_HDR_MAX_LEN];
	uint64_t seed = UINT64_C(0x7355c0de20261201);
	struct uet_wire_tss_hdr h, d;
	int i, n;

	(void)state;
	for (i = 0; i < ITERATIONS; i++) {
		uint64_t r = xs64(&seed);

		memset(&h, 0, sizeof(h));
		h.sp = r & 1;
		h.an = (r >> 1) & 1;
		h.sdi = (uint32_t)(r >> 8) & UET_TSS_SDI_MAX;
		h.ssi = h.sp ? (uint32_t)(r >> 32) : 0;
		h.epoch = (uint16_t)xs64(&seed);
		h.tsc = xs64(&seed) & UET_TSS_TSC_MAX;
		n = uet_wire_tss_hdr_encode(&h, buf, sizeof(buf));
		assert_int_equal(n, (int)uet_wire_tss_hdr_len(h.sp));
		assert_true(uet_wire_tss_hdr_present(buf, (size_t)n));
		memset(&d, 0, sizeof(d));
		assert_int_equal(uet_wire_tss_hdr_decode(buf, (size_t)n, &d), n);
		assert_memory_equal(&h, &d, sizeof(h));
		assert_int_equal(uet_wire_tss_hdr_encode(&d, buf2, sizeof(buf2)),
				 n);
		assert_memory_equal(buf, buf2, (size_t)n);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(uet_tss_hdr_encode__golden_without_ssi),
		cmocka_unit_test(uet_tss_hdr_encode__golden_with_ssi),
		cmocka_unit_test(uet_tss_hdr_decode__golden),
		cmocka_unit_test(uet_tss_hdr_decode__truncated),
		cmocka_unit_test(
			uet_tss_hdr_decode__rejects_bad_type_and_reserved),
		cmocka_unit_test(uet_tss_hdr_encode__rejects_bad_fields),
		cmocka_unit_test(uet_tss_hdr_encode__round_trip_random),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
