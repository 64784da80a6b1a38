/* SPDX-License-Identifier: BSD-3-Clause */
/* Unit tests of code-point names, NACK classes and sizes (src/wire/names.c). */

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <limits.h>
#include <string.h>
#include <cmocka.h>

#include <uet/uet_wire.h>

typedef const char *(*name_fn)(unsigned int);

/*
 * Every value in [0, limit) named iff its bit is set in @p defined, and
 * every name distinct within the set.
 */
static void
check_names(const char *set, name_fn fn, const uint8_t *defined,
	    unsigned int limit)
{
	for (unsigned int v = 0; v < limit; v++) {
		bool want = (defined[v / 8] >> (v % 8)) & 1;
		const char *n = fn(v);

		if (want != (n != NULL))
			fail_msg("%s %u: name %s", set, v, n ? n : "NULL");
		if (n == NULL)
			continue;
		assert_true(strlen(n) > 0);
		for (unsigned int w = 0; w < v; w++) {
			const char *m = fn(w);

			if (m != NULL && strcmp(m, n) == 0)
				fail_msg("%s: %u and %u both %s", set, w, v, n);
		}
	}
	/* Far out of range. */
	assert_null(fn(limit + 1000));
	assert_null(fn(UINT_MAX));
}

static void
mark(uint8_t *bits, unsigned int lo, unsigned int hi)
{
	for (unsigned int v = lo; v <= hi; v++)
		bits[v / 8] = (uint8_t)(bits[v / 8] | 1u << (v % 8));
}

static void
names__pds_type(void **state)
{
	uint8_t d[32] = { 0 };

	(void)state;
	mark(d, 1, 14);
	check_names("pds_type", uet_wire_pds_type_name, d, 256);
	assert_string_equal(uet_wire_pds_type_name(UET_PDS_TYPE_RUD_REQ),
			    "RUD_REQ");
	assert_string_equal(uet_wire_pds_type_name(UET_PDS_TYPE_NACK_CCX),
			    "NACK_CCX");
}

static void
names__pds_next_hdr_and_ctl(void **state)
{
	uint8_t d[32] = { 0 };

	(void)state;
	mark(d, 0, 6);
	check_names("next_hdr", uet_wire_pds_next_hdr_name, d, 256);
	memset(d, 0, sizeof(d));
	mark(d, 0, 9);
	check_names("ctl_type", uet_wire_pds_ctl_type_name, d, 256);
	assert_string_equal(uet_wire_pds_ctl_type_name(UET_PDS_CTL_PROBE),
			    "PROBE");
}

static void
names__nack_code(void **state)
{
	uint8_t d[32] = { 0 };

	(void)state;
	mark(d, 0x01, 0x0B); /* 0x03 retired but still named */
	mark(d, 0x0D, 0x1A);
	mark(d, 0xFD, 0xFF);
	check_names("nack", uet_wire_pds_nack_code_name, d, 256);
	assert_string_equal(uet_wire_pds_nack_code_name(UET_NACK_TRIMMED_ACK),
			    "TRIMMED_ACK");
	assert_string_equal(uet_wire_pds_nack_code_name(UET_NACK_RCVR_INFER_LOSS),
			    "RCVR_INFER_LOSS");
}

static void
names__ses(void **state)
{
	uint8_t d[32] = { 0 };

	(void)state;
	mark(d, 0x00, 0x0F);
	check_names("ses_opcode", uet_wire_ses_opcode_name, d, 256);
	memset(d, 0, sizeof(d));
	mark(d, 0, 3);
	check_names("resp_opcode", uet_wire_ses_resp_opcode_name, d, 256);
	memset(d, 0, sizeof(d));
	mark(d, 0x00, 0x24);
	check_names("ses_rc", uet_wire_ses_rc_name, d, 256);
	assert_string_equal(uet_wire_ses_rc_name(UET_RC_DROPPED), "DROPPED");
	assert_string_equal(uet_wire_ses_opcode_name(UET_SES_OP_MSG_ERROR),
			    "MSG_ERROR");
}

static void
names__amo(void **state)
{
	uint8_t d[32] = { 0 };

	(void)state;
	mark(d, 0x00, 0x13);
	check_names("amo_op", uet_wire_amo_op_name, d, 256);
	memset(d, 0, sizeof(d));
	mark(d, 0x00, 0x11);
	check_names("amo_dt", uet_wire_amo_dt_name, d, 256);
	assert_string_equal(uet_wire_amo_dt_name(UET_AMO_DT_FP16), "FP16");
}

static void
names__profile_and_mode(void **state)
{
	uint8_t d[32] = { 0 };

	(void)state;
	mark(d, 1, 3);
	check_names("profile", uet_wire_profile_name, d, 256);
	memset(d, 0, sizeof(d));
	mark(d, 0, 3);
	check_names("mode", uet_wire_pds_mode_name, d, 256);
	assert_string_equal(uet_wire_profile_name(UET_PROFILE_HPC), "HPC");
	assert_string_equal(uet_wire_pds_mode_name(UET_PDS_MODE_RUDI), "RUDI");
}

static void
wire_strerror__every_error(void **state)
{
	(void)state;
	for (int e = 0; e < UET_WIRE_E__COUNT; e++) {
		const char *s = uet_wire_strerror(e);
		const char *n = uet_wire_errname(e);

		assert_non_null(s);
		assert_non_null(n);
		assert_string_not_equal(s, "unknown error");
		assert_string_not_equal(n, "unknown");
		/* Negated values give the same text. */
		assert_string_equal(uet_wire_strerror(-e), s);
		assert_string_equal(uet_wire_errname(-e), n);
		for (int f = 0; f < e; f++) {
			assert_string_not_equal(uet_wire_strerror(f), s);
			assert_string_not_equal(uet_wire_errname(f), n);
		}
	}
	assert_string_equal(uet_wire_errname(-UET_WIRE_E_TRUNCATED),
			    "truncated");
	assert_string_equal(uet_wire_errname(UET_WIRE_E_RESERVED), "reserved");
}

static void
wire_strerror__out_of_range(void **state)
{
	static const int bad[] = {
		UET_WIRE_E__COUNT, -UET_WIRE_E__COUNT, 1000, -1000,
		INT_MAX, INT_MIN, INT_MIN + 1,
	};

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_string_equal(uet_wire_strerror(bad[i]), "unknown error");
		assert_string_equal(uet_wire_errname(bad[i]), "unknown");
	}
}

/* The project's NACK reactions restated: UEC 1.0's PDC-fatal codes
 * (GTD_DEL_RESP_UNAVAIL and UNEXP_EVENT among them) fail the PDC, its
 * retransmit codes (PKT_NOT_RCVD, ACK_WITH_DATA and RCVR_INFER_LOSS among
 * them) resend (docs/WIRE-DECISIONS.md "NACK codes"). */
static enum uet_wire_nack_class
spec_class(unsigned int code)
{
	switch (code) {
	case 0x0E: case 0x0F: case 0x11: case 0x13: case 0x15: case 0x16:
	case 0x19:
		return UET_NACK_CLASS_FATAL;
	case 0x04: case 0x05: case 0x06: case 0x07: case 0x08: case 0x09:
	case 0x0A:
		return UET_NACK_CLASS_RESOURCE;
	case 0x01: case 0x02: case 0x0B: case 0x0D: case 0x12: case 0x14:
	case 0x1A:
		return UET_NACK_CLASS_RETRANSMIT;
	case 0x10:
		return UET_NACK_CLASS_CLOSING;
	case 0x17: case 0x18:
	case 0xFD: case 0xFE: case 0xFF:
		return UET_NACK_CLASS_INFO;
	default:
		return UET_NACK_CLASS_INVALID; /* includes retired 0x03 */
	}
}

static void
nack_class__every_code(void **state)
{
	(void)state;
	for (unsigned int c = 0; c < 256; c++)
		if (uet_wire_pds_nack_class(c) != spec_class(c))
			fail_msg("code 0x%02x: class %d, want %d", c,
				 uet_wire_pds_nack_class(c), spec_class(c));
	assert_int_equal(uet_wire_pds_nack_class(UET_NACK_TRIMMED_ACK),
			 UET_NACK_CLASS_INVALID);
	assert_int_equal(uet_wire_pds_nack_class(0x0C), UET_NACK_CLASS_INVALID);
	assert_int_equal(uet_wire_pds_nack_class(256 + UET_NACK_TRIMMED),
			 UET_NACK_CLASS_INVALID);
	assert_int_equal(uet_wire_pds_nack_class(UINT_MAX), UET_NACK_CLASS_INVALID);
}

static void
amo_dt_size__every_type(void **state)
{
	static const size_t want[] = {
		[UET_AMO_DT_INT8] = 1, [UET_AMO_DT_UINT8] = 1,
		[UET_AMO_DT_INT16] = 2, [UET_AMO_DT_UINT16] = 2,
		[UET_AMO_DT_INT32] = 4, [UET_AMO_DT_UINT32] = 4,
		[UET_AMO_DT_INT64] = 8, [UET_AMO_DT_UINT64] = 8,
		[UET_AMO_DT_INT128] = 16, [UET_AMO_DT_UINT128] = 16,
		[UET_AMO_DT_FLOAT] = 4, [UET_AMO_DT_DOUBLE] = 8,
		[UET_AMO_DT_FLOAT_COMPLEX] = 8,
		[UET_AMO_DT_DOUBLE_COMPLEX] = 16,
		[UET_AMO_DT_LONG_DOUBLE] = 16,
		[UET_AMO_DT_LONG_DOUBLE_COMPLEX] = 32,
		[UET_AMO_DT_BF16] = 2, [UET_AMO_DT_FP16] = 2,
	};

	(void)state;
	for (unsigned int dt = 0; dt < 256; dt++) {
		size_t w = dt < sizeof(want) / sizeof(want[0]) ? want[dt] : 0;

		assert_int_equal(uet_wire_amo_dt_size(dt), w);
	}
	assert_int_equal(uet_wire_amo_dt_size(UINT_MAX), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(names__pds_type),
		cmocka_unit_test(names__pds_next_hdr_and_ctl),
		cmocka_unit_test(names__nack_code),
		cmocka_unit_test(names__ses),
		cmocka_unit_test(names__amo),
		cmocka_unit_test(names__profile_and_mode),
		cmocka_unit_test(wire_strerror__every_error),
		cmocka_unit_test(wire_strerror__out_of_range),
		cmocka_unit_test(nack_class__every_code),
		cmocka_unit_test(amo_dt_size__every_type),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
