/* SPDX-License-Identifier: BSD-3-Clause */
/* Unit tests for src/common/parse.c: accept and reject cases of every parser. */

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <errno.h>
#include <string.h>

#include <uet/uet_parse.h>

static void
u64__accepts_decimal_and_hex(void **state)
{
	struct uet_parse_err e;
	uint64_t v = 0;

	(void)state;
	assert_int_equal(uet_parse_u64("0", 0, 10, &v, &e), 0);
	assert_int_equal(v, 0);
	assert_int_equal(uet_parse_u64("007", 0, 10, &v, &e), 0);
	assert_int_equal(v, 7); /* leading zero is not octal */
	assert_int_equal(uet_parse_u64("0x1f", 0, 100, &v, &e), 0);
	assert_int_equal(v, 31);
	assert_int_equal(uet_parse_u64("0XFF", 0, 255, &v, NULL), 0);
	assert_int_equal(v, 255);
	assert_int_equal(uet_parse_u64("18446744073709551615", 0, UINT64_MAX,
				       &v, &e), 0);
	assert_true(v == UINT64_MAX);
	assert_int_equal(uet_parse_u64("0xffffffffffffffff", 0, UINT64_MAX,
				       &v, &e), 0);
	assert_true(v == UINT64_MAX);
}

static void
u64__rejects_malformed(void **state)
{
	static const char *const bad[] = {
		"", " 1", "1 ", "\t1", "1\n", "-1", "+1", "1x", "x1", "0x",
		"0xg", "1.0", "1e3", "1,000", "--1", "0b101", "١",
	};
	struct uet_parse_err e;
	uint64_t v = 42;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(uet_parse_u64(bad[i], 0, UINT64_MAX, &v, &e),
				 -EINVAL);
		assert_true(e.msg[0] != '\0');
	}
	assert_int_equal(uet_parse_u64(NULL, 0, 1, &v, &e), -EINVAL);
	assert_int_equal(v, 42); /* output untouched on error */
	assert_non_null(strstr(e.msg, "empty"));
	assert_int_equal(uet_parse_u64("-5", 0, 10, &v, &e), -EINVAL);
	assert_non_null(strstr(e.msg, "sign"));
	assert_int_equal(uet_parse_u64("5", 10, 0, &v, &e), -EINVAL);
}

static void
u64__range_and_overflow(void **state)
{
	struct uet_parse_err e;
	uint64_t v = 0;

	(void)state;
	assert_int_equal(uet_parse_u64("70000", 1, 65535, &v, &e), -ERANGE);
	assert_string_equal(e.msg, "value 70000 out of range [1, 65535]");
	assert_int_equal(uet_parse_u64("0", 1, 65535, &v, &e), -ERANGE);
	assert_int_equal(uet_parse_u64("1", 1, 65535, &v, &e), 0);
	assert_int_equal(uet_parse_u64("65535", 1, 65535, &v, &e), 0);
	assert_int_equal(uet_parse_u64("18446744073709551616", 0, UINT64_MAX,
				       &v, &e), -ERANGE);
	assert_non_null(strstr(e.msg, "overflows"));
	assert_int_equal(uet_parse_u64("0x10000000000000000", 0, UINT64_MAX,
				       &v, &e), -ERANGE);
	assert_int_equal(uet_parse_u64("99999999999999999999999999999", 0,
				       UINT64_MAX, &v, &e), -ERANGE);
}

static void
narrow__unsigned_widths(void **state)
{
	uint32_t u32 = 0;
	uint16_t u16 = 0;
	uint8_t u8 = 0;

	(void)state;
	assert_int_equal(uet_parse_u32("4294967295", 0, UINT32_MAX, &u32,
				       NULL), 0);
	assert_true(u32 == UINT32_MAX);
	assert_int_equal(uet_parse_u32("4294967296", 0, UINT32_MAX, &u32,
				       NULL), -ERANGE);
	assert_int_equal(uet_parse_u16("65535", 0, UINT16_MAX, &u16, NULL), 0);
	assert_int_equal(u16, 65535);
	assert_int_equal(uet_parse_u16("65536", 0, UINT16_MAX, &u16, NULL),
			 -ERANGE);
	assert_int_equal(uet_parse_u8("63", 0, 63, &u8, NULL), 0);
	assert_int_equal(u8, 63);
	assert_int_equal(uet_parse_u8("64", 0, 63, &u8, NULL), -ERANGE);
	assert_int_equal(uet_parse_u8("256", 0, 255, &u8, NULL), -ERANGE);
}

static void
i64__signs_and_limits(void **state)
{
	struct uet_parse_err e;
	int64_t v = 0;
	int32_t v32 = 0;

	(void)state;
	assert_int_equal(uet_parse_i64("-5", -10, 10, &v, &e), 0);
	assert_int_equal(v, -5);
	assert_int_equal(uet_parse_i64("+5", -10, 10, &v, &e), 0);
	assert_int_equal(v, 5);
	assert_int_equal(uet_parse_i64("-0x10", -100, 100, &v, &e), 0);
	assert_int_equal(v, -16);
	assert_int_equal(uet_parse_i64("-9223372036854775808", INT64_MIN,
				       INT64_MAX, &v, &e), 0);
	assert_true(v == INT64_MIN);
	assert_int_equal(uet_parse_i64("9223372036854775807", INT64_MIN,
				       INT64_MAX, &v, &e), 0);
	assert_true(v == INT64_MAX);
	assert_int_equal(uet_parse_i64("9223372036854775808", INT64_MIN,
				       INT64_MAX, &v, &e), -ERANGE);
	assert_int_equal(uet_parse_i64("-9223372036854775809", INT64_MIN,
				       INT64_MAX, &v, &e), -ERANGE);
	assert_int_equal(uet_parse_i64("-11", -10, 10, &v, &e), -ERANGE);
	assert_string_equal(e.msg, "value -11 out of range [-10, 10]");
	assert_int_equal(uet_parse_i64("-", -10, 10, &v, &e), -EINVAL);
	assert_int_equal(uet_parse_i64("+-1", -10, 10, &v, &e), -EINVAL);
	assert_int_equal(uet_parse_i64("", -10, 10, &v, &e), -EINVAL);
	assert_int_equal(uet_parse_i64(" -1", -10, 10, &v, &e), -EINVAL);
	assert_int_equal(uet_parse_i64("1-", -10, 10, &v, &e), -EINVAL);
	assert_int_equal(uet_parse_i32("-2147483648", INT32_MIN, INT32_MAX,
				       &v32, &e), 0);
	assert_true(v32 == INT32_MIN);
	assert_int_equal(uet_parse_i32("2147483648", INT32_MIN, INT32_MAX,
				       &v32, &e), -ERANGE);
}

static void
bool__all_spellings(void **state)
{
	static const char *const yes[] = { "1", "true", "yes", "on", "TRUE",
					   "Yes", "ON" };
	static const char *const no[] = { "0", "false", "no", "off", "False",
					  "NO", "Off" };
	static const char *const bad[] = { "", "2", "y", "n", "tru", "true ",
					   " on", "enable", "01" };
	struct uet_parse_err e;
	bool b;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(yes) / sizeof(yes[0]); i++) {
		b = false;
		assert_int_equal(uet_parse_bool(yes[i], &b, &e), 0);
		assert_true(b);
	}
	for (i = 0; i < sizeof(no) / sizeof(no[0]); i++) {
		b = true;
		assert_int_equal(uet_parse_bool(no[i], &b, &e), 0);
		assert_false(b);
	}
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(uet_parse_bool(bad[i], &b, &e), -EINVAL);
	assert_int_equal(uet_parse_bool(NULL, &b, &e), -EINVAL);
	assert_int_equal(uet_parse_bool("maybe", &b, &e), -EINVAL);
	assert_non_null(strstr(e.msg, "yes/no"));
}

static void
size__suffixes(void **state)
{
	struct uet_parse_err e;
	uint64_t v = 0;

	(void)state;
	assert_int_equal(uet_parse_size("4096", 0, UINT64_MAX, &v, &e), 0);
	assert_int_equal(v, 4096);
	assert_int_equal(uet_parse_size("16K", 0, UINT64_MAX, &v, &e), 0);
	assert_int_equal(v, 16384);
	assert_int_equal(uet_parse_size("16k", 0, UINT64_MAX, &v, &e), 0);
	assert_int_equal(v, 16384);
	assert_int_equal(uet_parse_size("2KiB", 0, UINT64_MAX, &v, &e), 0);
	assert_int_equal(v, 2048);
	assert_int_equal(uet_parse_size("3M", 0, UINT64_MAX, &v, &e), 0);
	assert_int_equal(v, 3 << 20);
	assert_int_equal(uet_parse_size("1GiB", 0, UINT64_MAX, &v, &e), 0);
	assert_int_equal(v, 1 << 30);
	assert_int_equal(uet_parse_size("1T", 0, UINT64_MAX, &v, &e), 0);
	assert_true(v == 1ULL << 40);
	assert_int_equal(uet_parse_size("512B", 0, UINT64_MAX, &v, &e), 0);
	assert_int_equal(v, 512);
	assert_int_equal(uet_parse_size("0x10K", 0, UINT64_MAX, &v, &e), 0);
	assert_int_equal(v, 16 << 10);
}

static void
size__rejects(void **state)
{
	static const char *const bad[] = { "", "K", "1.5M", "16 K", "16KB",
					   "16X", "-1K", "+1K", " 1K", "1K ",
					   "1KiBx", "0x" };
	struct uet_parse_err e;
	uint64_t v = 0;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(uet_parse_size(bad[i], 0, UINT64_MAX, &v, &e),
				 -EINVAL);
	assert_int_equal(uet_parse_size("16777216T", 0, UINT64_MAX, &v, &e),
			 -ERANGE);
	assert_non_null(strstr(e.msg, "overflows"));
	assert_int_equal(uet_parse_size("17M", 1, 16 << 20, &v, &e), -ERANGE);
	assert_non_null(strstr(e.msg, "out of range [1, 16777216]"));
}

static void
duration__units(void **state)
{
	struct uet_parse_err e;
	uint64_t v = 0;

	(void)state;
	assert_int_equal(uet_parse_duration_ns("250ns", 0, UINT64_MAX, &v, &e),
			 0);
	assert_int_equal(v, 250);
	assert_int_equal(uet_parse_duration_ns("12us", 0, UINT64_MAX, &v, &e),
			 0);
	assert_int_equal(v, 12000);
	assert_int_equal(uet_parse_duration_ns("1ms", 0, UINT64_MAX, &v, &e),
			 0);
	assert_int_equal(v, 1000000);
	assert_int_equal(uet_parse_duration_ns("2s", 0, UINT64_MAX, &v, &e),
			 0);
	assert_true(v == 2000000000ULL);
	assert_int_equal(uet_parse_duration_ns("0", 0, UINT64_MAX, &v, &e), 0);
	assert_int_equal(v, 0);
	assert_int_equal(uet_parse_duration_ns("5", 0, UINT64_MAX, &v, &e),
			 -EINVAL);
	assert_non_null(strstr(e.msg, "missing unit"));
	assert_int_equal(uet_parse_duration_ns("5 ms", 0, UINT64_MAX, &v, &e),
			 -EINVAL);
	assert_int_equal(uet_parse_duration_ns("5MS", 0, UINT64_MAX, &v, &e),
			 -EINVAL);
	assert_int_equal(uet_parse_duration_ns("1.5ms", 0, UINT64_MAX, &v, &e),
			 -EINVAL);
	assert_int_equal(uet_parse_duration_ns("5m", 0, UINT64_MAX, &v, &e),
			 -EINVAL);
	assert_int_equal(uet_parse_duration_ns("-1s", 0, UINT64_MAX, &v, &e),
			 -EINVAL);
	assert_int_equal(uet_parse_duration_ns("", 0, UINT64_MAX, &v, &e),
			 -EINVAL);
	assert_int_equal(uet_parse_duration_ns("18446744074s", 0, UINT64_MAX,
					       &v, &e), -ERANGE);
	assert_int_equal(uet_parse_duration_ns("61s", 1000, 60000000000ULL,
					       &v, &e), -ERANGE);
	assert_int_equal(uet_parse_duration_ns("999ns", 1000, 60000000000ULL,
					       &v, &e), -ERANGE);
}

static void
double__strict(void **state)
{
	static const char *const bad[] = { "", "nan", "inf", "-inf", "0x1p3",
					   "1.0x", " 1", "1 ", ".", "e5",
					   "1e", "0,5" };
	struct uet_parse_err e;
	double d = 0;
	size_t i;

	(void)state;
	assert_int_equal(uet_parse_double("0.8", 0, 1, &d, &e), 0);
	assert_true(d == 0.8);
	assert_int_equal(uet_parse_double("1.25e-2", 0, 1, &d, &e), 0);
	assert_true(d == 0.0125);
	assert_int_equal(uet_parse_double("-1", -2, 1, &d, &e), 0);
	assert_true(d == -1.0);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(uet_parse_double(bad[i], -1e300, 1e300, &d,
						  &e), -EINVAL);
	assert_int_equal(uet_parse_double("1.5", 0, 1, &d, &e), -ERANGE);
	assert_non_null(strstr(e.msg, "out of range"));
	assert_int_equal(uet_parse_double("1e999", 0, 1e308, &d, &e), -ERANGE);
}

static void
ip__v4_v6(void **state)
{
	struct uet_parse_ipaddr a;
	struct uet_parse_err e;
	struct in6_addr a6;
	struct in_addr a4;

	(void)state;
	assert_int_equal(uet_parse_ipv4("10.0.0.1", &a4, &e), 0);
	assert_int_equal(a4.s_addr, htonl(0x0a000001));
	assert_int_equal(uet_parse_ipv4("10.0.0", &a4, &e), -EINVAL);
	assert_int_equal(uet_parse_ipv4("10.0.0.256", &a4, &e), -EINVAL);
	assert_int_equal(uet_parse_ipv4("10.0.0.1 ", &a4, &e), -EINVAL);
	assert_int_equal(uet_parse_ipv4("", &a4, &e), -EINVAL);
	assert_int_equal(uet_parse_ipv4("::1", &a4, &e), -EINVAL);
	assert_int_equal(uet_parse_ipv4("1.2.3.4.5.6.7.8.9.10.11.12.13", &a4,
					&e), -EINVAL);
	assert_int_equal(uet_parse_ipv6("fd00::1", &a6, &e), 0);
	assert_int_equal(a6.s6_addr[0], 0xfd);
	assert_int_equal(a6.s6_addr[15], 1);
	assert_int_equal(uet_parse_ipv6("fd00::1%eth0", &a6, &e), -EINVAL);
	assert_int_equal(uet_parse_ipv6("fd00:::1", &a6, &e), -EINVAL);
	assert_int_equal(uet_parse_ipv6("10.0.0.1", &a6, &e), -EINVAL);
	assert_int_equal(uet_parse_ip("192.168.1.2", &a, &e), 0);
	assert_int_equal(a.family, AF_INET);
	assert_int_equal(uet_parse_ip("::ffff:1.2.3.4", &a, &e), 0);
	assert_int_equal(a.family, AF_INET6);
	assert_int_equal(uet_parse_ip("host.example", &a, &e), -EINVAL);
	assert_non_null(strstr(e.msg, "IPv4"));
	assert_int_equal(uet_parse_ip(NULL, &a, &e), -EINVAL);
}

static void
mac__formats(void **state)
{
	static const char *const bad[] = {
		"", "02:00:00:00:00", "02:00:00:00:00:00:00", "02-00:00:00:00:00",
		"2:0:0:0:0:0", "0g:00:00:00:00:00", "02:00:00:00:00:0",
		"02 00 00 00 00 01", "0200.0000.0001", " 02:00:00:00:00:01",
	};
	struct uet_parse_err e;
	uint8_t m[6];
	size_t i;

	(void)state;
	assert_int_equal(uet_parse_mac("02:00:0a:0B:ff:01", m, &e), 0);
	assert_int_equal(m[0], 0x02);
	assert_int_equal(m[3], 0x0b);
	assert_int_equal(m[5], 0x01);
	assert_int_equal(uet_parse_mac("02-00-00-00-00-02", m, &e), 0);
	assert_int_equal(m[5], 0x02);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(uet_parse_mac(bad[i], m, &e), -EINVAL);
}

static void
lcores__lists(void **state)
{
	struct uet_parse_err e;
	uint16_t ids[8];
	unsigned int n = 0;

	(void)state;
	assert_int_equal(uet_parse_lcore_list("0-3,5", 127, ids, 8, &n, &e), 0);
	assert_int_equal(n, 5);
	assert_int_equal(ids[0], 0);
	assert_int_equal(ids[3], 3);
	assert_int_equal(ids[4], 5);
	assert_int_equal(uet_parse_lcore_list("7", 127, ids, 8, &n, &e), 0);
	assert_int_equal(n, 1);
	assert_int_equal(uet_parse_lcore_list("9,2", 127, ids, 8, &n, &e), 0);
	assert_int_equal(ids[0], 9);
	assert_int_equal(uet_parse_lcore_list("127", 127, ids, 8, &n, &e), 0);
	assert_int_equal(uet_parse_lcore_list("128", 127, ids, 8, &n, &e),
			 -ERANGE);
	assert_non_null(strstr(e.msg, "[0, 127]"));
	assert_int_equal(uet_parse_lcore_list("99999999", 127, ids, 8, &n, &e),
			 -ERANGE);
	assert_int_equal(uet_parse_lcore_list("0-8", 127, ids, 8, &n, &e),
			 -ERANGE);
	assert_int_equal(uet_parse_lcore_list("3-1", 127, ids, 8, &n, &e),
			 -EINVAL);
	assert_non_null(strstr(e.msg, "reversed"));
	assert_int_equal(uet_parse_lcore_list("1,1", 127, ids, 8, &n, &e),
			 -EINVAL);
	assert_non_null(strstr(e.msg, "twice"));
	assert_int_equal(uet_parse_lcore_list("0-2,2", 127, ids, 8, &n, &e),
			 -EINVAL);
	assert_int_equal(uet_parse_lcore_list("", 127, ids, 8, &n, &e),
			 -EINVAL);
	assert_int_equal(uet_parse_lcore_list("1,", 127, ids, 8, &n, &e),
			 -EINVAL);
	assert_int_equal(uet_parse_lcore_list(",1", 127, ids, 8, &n, &e),
			 -EINVAL);
	assert_int_equal(uet_parse_lcore_list("1-", 127, ids, 8, &n, &e),
			 -EINVAL);
	assert_int_equal(uet_parse_lcore_list("-1", 127, ids, 8, &n, &e),
			 -EINVAL);
	assert_int_equal(uet_parse_lcore_list("1;2", 127, ids, 8, &n, &e),
			 -EINVAL);
	assert_int_equal(uet_parse_lcore_list("0x1", 127, ids, 8, &n, &e),
			 -EINVAL);
	assert_int_equal(uet_parse_lcore_list("1, 2", 127, ids, 8, &n, &e),
			 -EINVAL);
}

enum color { RED = 1, GREEN = 2 };

static void
enum__names(void **state)
{
	static const struct uet_parse_name colors[] = {
		{ "red", RED }, { "green", GREEN }, { NULL, 0 },
	};
	struct uet_parse_err e;
	int v = 0;

	(void)state;
	assert_int_equal(uet_parse_enum("green", colors, &v, &e), 0);
	assert_int_equal(v, GREEN);
	assert_int_equal(uet_parse_enum("blue", colors, &v, &e), -EINVAL);
	assert_string_equal(e.msg, "'blue' is not one of: red, green");
	assert_int_equal(uet_parse_enum("Red", colors, &v, &e), -EINVAL);
	assert_int_equal(uet_parse_enum("", colors, &v, &e), -EINVAL);
	assert_int_equal(uet_parse_enum("red ", colors, &v, &e), -EINVAL);
	assert_string_equal(uet_parse_enum_name(colors, RED), "red");
	assert_null(uet_parse_enum_name(colors, 7));
}

static void
err__quotes_long_and_binary_input(void **state)
{
	char longs[300];
	struct uet_parse_err e;
	uint64_t v;

	(void)state;
	memset(longs, '7', sizeof(longs) - 1);
	longs[sizeof(longs) - 1] = '\0';
	longs[200] = 'x';
	assert_int_equal(uet_parse_u64(longs, 0, 10, &v, &e), -EINVAL);
	assert_true(strlen(e.msg) < sizeof(e.msg));
	assert_non_null(strstr(e.msg, "..."));
	assert_int_equal(uet_parse_u64("1\x01\x7f", 0, 10, &v, &e), -EINVAL);
	assert_non_null(strstr(e.msg, "'1?" "?'"));
	uet_parse_err_set(NULL, "ignored %d", 1);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(u64__accepts_decimal_and_hex),
		cmocka_unit_test(u64__rejects_malformed),
		cmocka_unit_test(u64__range_and_overflow),
		cmocka_unit_test(narrow__unsigned_widths),
		cmocka_unit_test(i64__signs_and_limits),
		cmocka_unit_test(bool__all_spellings),
		cmocka_unit_test(size__suffixes),
		cmocka_unit_test(size__rejects),
		cmocka_unit_test(duration__units),
		cmocka_unit_test(double__strict),
		cmocka_unit_test(ip__v4_v6),
		cmocka_unit_test(mac__formats),
		cmocka_unit_test(lcores__lists),
		cmocka_unit_test(enum__names),
		cmocka_unit_test(err__quotes_long_and_binary_input),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
