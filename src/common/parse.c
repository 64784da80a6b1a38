/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Strict parsers. strtoul() and friends are not used for integers because
 * they skip leading whitespace, accept a '-' on unsigned values and need errno
 * juggling; the digit loop below rejects all of that explicitly.
 */

#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <uet/uet_parse.h>

/* Longest input echoed back in a message; longer inputs are cut with "...". */
#define QUOTE_MAX 48

void
uet_parse_err_set(struct uet_parse_err *err, const char *fmt, ...)
{
	va_list ap;

	if (err == NULL)
		return;
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
}

/* Copy @s for display: non-printable bytes become '?', long input is cut. */
static const char *
quote(const char *s, char *buf, size_t len)
{
	size_t i;

	for (i = 0; s[i] != '\0' && i + 1 < len; i++) {
		if (i == QUOTE_MAX) {
			snprintf(buf + i, len - i, "...");
			return buf;
		}
		buf[i] = isprint((unsigned char)s[i]) ? s[i] : '?';
	}
	buf[i] = '\0';
	return buf;
}

#define QBUF_LEN (QUOTE_MAX + 4)

/* Common checks before any parser: NULL, empty, surrounding whitespace. */
static int
check_text(const char *s, const char *what, struct uet_parse_err *err)
{
	char q[QBUF_LEN];
	size_t n;

	if (s == NULL || s[0] == '\0') {
		uet_parse_err_set(err, "empty value (expected %s)", what);
		return -EINVAL;
	}
	n = strlen(s);
	if (isspace((unsigned char)s[0]) || isspace((unsigned char)s[n - 1])) {
		uet_parse_err_set(err,
			"'%s': leading or trailing whitespace (expected %s)",
			quote(s, q, sizeof(q)), what);
		return -EINVAL;
	}
	return 0;
}

static int
digit_value(char c, unsigned int base)
{
	int v;

	if (c >= '0' && c <= '9')
		v = c - '0';
	else if (c >= 'a' && c <= 'f')
		v = c - 'a' + 10;
	else if (c >= 'A' && c <= 'F')
		v = c - 'A' + 10;
	else
		return -1;
	return (unsigned int)v < base ? v : -1;
}

/*
 * Read the magnitude of an unsigned number at *pp (no sign handling) and
 * advance *pp past the digits. -EINVAL if no digit, -ERANGE on overflow
 * (digits are still consumed so the caller can report the whole token).
 */
static int
scan_magnitude(const char **pp, uint64_t *out)
{
	const char *p = *pp;
	unsigned int base = 10;
	uint64_t v = 0;
	bool overflow = false;
	int d, n = 0;

	if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
		base = 16;
		p += 2;
	}
	for (; (d = digit_value(*p, base)) >= 0; p++, n++) {
		if (v > (UINT64_MAX - (uint64_t)d) / base)
			overflow = true;
		else
			v = v * base + (uint64_t)d;
	}
	*pp = p;
	if (n == 0)
		return -EINVAL;
	if (overflow)
		return -ERANGE;
	*out = v;
	return 0;
}

static int
range_u64(const char *s, uint64_t v, uint64_t min, uint64_t max,
	  struct uet_parse_err *err)
{
	char q[QBUF_LEN];

	if (v < min || v > max) {
		uet_parse_err_set(err,
			"value %s out of range [%" PRIu64 ", %" PRIu64 "]",
			quote(s, q, sizeof(q)), min, max);
		return -ERANGE;
	}
	return 0;
}

int
uet_parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out,
	      struct uet_parse_err *err)
{
	char what[96], q[QBUF_LEN];
	const char *p = s;
	uint64_t v = 0;
	int rc;

	snprintf(what, sizeof(what), "an unsigned integer in [%" PRIu64
		 ", %" PRIu64 "]", min, max);
	if (min > max) {
		uet_parse_err_set(err, "invalid range [%" PRIu64 ", %" PRIu64
				  "]", min, max);
		return -EINVAL;
	}
	rc = check_text(s, what, err);
	if (rc < 0)
		return rc;
	if (s[0] == '-' || s[0] == '+') {
		uet_parse_err_set(err, "'%s': sign not allowed (expected %s)",
				  quote(s, q, sizeof(q)), what);
		return -EINVAL;
	}
	rc = scan_magnitude(&p, &v);
	if (rc == -EINVAL || *p != '\0') {
		uet_parse_err_set(err, "'%s': not a number (expected %s)",
				  quote(s, q, sizeof(q)), what);
		return -EINVAL;
	}
	if (rc == -ERANGE) {
		uet_parse_err_set(err,
			"value %s overflows 64 bits (expected %s)",
			quote(s, q, sizeof(q)), what);
		return -ERANGE;
	}
	rc = range_u64(s, v, min, max, err);
	if (rc < 0)
		return rc;
	*out = v;
	return 0;
}

int
uet_parse_u32(const char *s, uint32_t min, uint32_t max, uint32_t *out,
	      struct uet_parse_err *err)
{
	uint64_t v;
	int rc;

	rc = uet_parse_u64(s, min, max, &v, err);
	if (rc == 0)
		*out = (uint32_t)v;
	return rc;
}

int
uet_parse_u16(const char *s, uint16_t min, uint16_t max, uint16_t *out,
	      struct uet_parse_err *err)
{
	uint64_t v;
	int rc;

	rc = uet_parse_u64(s, min, max, &v, err);
	if (rc == 0)
		*out = (uint16_t)v;
	return rc;
}

int
uet_parse_u8(const char *s, uint8_t min, uint8_t max, uint8_t *out,
	     struct uet_parse_err *err)
{
	uint64_t v;
	int rc;

	rc = uet_parse_u64(s, min, max, &v, err);
	if (rc == 0)
		*out = (uint8_t)v;
	return rc;
}

int
uet_parse_i64(const char *s, int64_t min, int64_t max, int64_t *out,
	      struct uet_parse_err *err)
{
	char what[96], q[QBUF_LEN];
	const char *p = s;
	bool neg = false;
	uint64_t mag = 0, limit;
	int64_t v;
	int rc;

	snprintf(what, sizeof(what), "an integer in [%" PRId64 ", %" PRId64
		 "]", min, max);
	if (min > max) {
		uet_parse_err_set(err, "invalid range [%" PRId64 ", %" PRId64
				  "]", min, max);
		return -EINVAL;
	}
	rc = check_text(s, what, err);
	if (rc < 0)
		return rc;
	if (*p == '-' || *p == '+')
		neg = *p++ == '-';
	rc = scan_magnitude(&p, &mag);
	if (rc == -EINVAL || *p != '\0') {
		uet_parse_err_set(err, "'%s': not a number (expected %s)",
				  quote(s, q, sizeof(q)), what);
		return -EINVAL;
	}
	limit = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
	if (rc == -ERANGE || mag > limit) {
		uet_parse_err_set(err,
			"value %s overflows 64 bits (expected %s)",
			quote(s, q, sizeof(q)), what);
		return -ERANGE;
	}
	if (neg)
		v = mag == limit ? INT64_MIN : -(int64_t)mag;
	else
		v = (int64_t)mag;
	if (v < min || v > max) {
		uet_parse_err_set(err,
			"value %s out of range [%" PRId64 ", %" PRId64 "]",
			quote(s, q, sizeof(q)), min, max);
		return -ERANGE;
	}
	*out = v;
	return 0;
}

int
uet_parse_i32(const char *s, int32_t min, int32_t max, int32_t *out,
	      struct uet_parse_err *err)
{
	int64_t v;
	int rc;

	rc = uet_parse_i64(s, min, max, &v, err);
	if (rc == 0)
		*out = (int32_t)v;
	return rc;
}

static const struct uet_parse_name bool_names[] = {
	{ "1", 1 }, { "0", 0 },
	{ "true", 1 }, { "false", 0 },
	{ "yes", 1 }, { "no", 0 },
	{ "on", 1 }, { "off", 0 },
	{ NULL, 0 },
};

int
uet_parse_bool(const char *s, bool *out, struct uet_parse_err *err)
{
	static const char what[] = "a boolean: 1/0, true/false, yes/no, on/off";
	char q[QBUF_LEN];
	const struct uet_parse_name *n;
	int rc;

	rc = check_text(s, what, err);
	if (rc < 0)
		return rc;
	for (n = bool_names; n->name != NULL; n++) {
		if (strcasecmp(s, n->name) == 0) {
			*out = n->value != 0;
			return 0;
		}
	}
	uet_parse_err_set(err, "'%s' is not %s", quote(s, q, sizeof(q)), what);
	return -EINVAL;
}

struct unit {
	const char *name;
	uint64_t mult;
};

/*
 * Number followed by a unit from @units (matched case-insensitively when
 * @nocase). The bare-number case is handled by the caller through a unit
 * with an empty name.
 */
static int
parse_scaled(const char *s, const struct unit *units, bool nocase,
	     uint64_t min, uint64_t max, uint64_t *out, const char *what,
	     struct uet_parse_err *err)
{
	char q[QBUF_LEN];
	const char *p = s;
	const struct unit *u;
	uint64_t v = 0;
	int rc;

	rc = check_text(s, what, err);
	if (rc < 0)
		return rc;
	if (s[0] == '-' || s[0] == '+') {
		uet_parse_err_set(err, "'%s': sign not allowed (expected %s)",
				  quote(s, q, sizeof(q)), what);
		return -EINVAL;
	}
	rc = scan_magnitude(&p, &v);
	if (rc == -EINVAL) {
		uet_parse_err_set(err, "'%s': not a number (expected %s)",
				  quote(s, q, sizeof(q)), what);
		return -EINVAL;
	}
	for (u = units; u->name != NULL; u++) {
		if ((nocase ? strcasecmp(p, u->name) : strcmp(p, u->name)) == 0)
			break;
	}
	if (u->name == NULL) {
		char qu[QBUF_LEN];

		uet_parse_err_set(err, "'%s': unknown or missing unit '%s' "
				  "(expected %s)", quote(s, q, sizeof(q)),
				  quote(p, qu, sizeof(qu)), what);
		return -EINVAL;
	}
	if (rc == -ERANGE || (u->mult != 0 && v > UINT64_MAX / u->mult)) {
		uet_parse_err_set(err, "value %s overflows 64 bits (expected "
				  "%s)", quote(s, q, sizeof(q)), what);
		return -ERANGE;
	}
	/* mult 0 marks the unit-less spelling accepted only for zero. */
	if (u->mult == 0 && v != 0) {
		uet_parse_err_set(err, "'%s': missing unit (expected %s)",
				  quote(s, q, sizeof(q)), what);
		return -EINVAL;
	}
	v *= u->mult == 0 ? 1 : u->mult;
	if (v < min || v > max) {
		uet_parse_err_set(err, "value %s (%" PRIu64 ") out of range "
				  "[%" PRIu64 ", %" PRIu64 "]",
				  quote(s, q, sizeof(q)), v, min, max);
		return -ERANGE;
	}
	*out = v;
	return 0;
}

int
uet_parse_size(const char *s, uint64_t min, uint64_t max, uint64_t *out,
	       struct uet_parse_err *err)
{
	static const struct unit units[] = {
		{ "", 1 }, { "B", 1 },
		{ "K", 1ULL << 10 }, { "KiB", 1ULL << 10 },
		{ "M", 1ULL << 20 }, { "MiB", 1ULL << 20 },
		{ "G", 1ULL << 30 }, { "GiB", 1ULL << 30 },
		{ "T", 1ULL << 40 }, { "TiB", 1ULL << 40 },
		{ NULL, 0 },
	};
	char what[128];

	snprintf(what, sizeof(what), "a size in bytes in [%" PRIu64 ", %"
		 PRIu64 "], optional suffix K, M, G, T (1024-based)", min,
		 max);
	return parse_scaled(s, units, true, min, max, out, what, err);
}

int
uet_parse_duration_ns(const char *s, uint64_t min, uint64_t max,
		      uint64_t *out, struct uet_parse_err *err)
{
	static const struct unit units[] = {
		{ "", 0 },
		{ "ns", 1 },
		{ "us", 1000ULL },
		{ "ms", 1000ULL * 1000 },
		{ "s", 1000ULL * 1000 * 1000 },
		{ NULL, 0 },
	};
	char what[128];

	snprintf(what, sizeof(what), "a duration with unit ns, us, ms or s "
		 "in [%" PRIu64 "ns, %" PRIu64 "ns]", min, max);
	return parse_scaled(s, units, false, min, max, out, what, err);
}

int
uet_parse_double(const char *s, double min, double max, double *out,
		 struct uet_parse_err *err)
{
	char what[96], q[QBUF_LEN];
	const char *p;
	char *end;
	double v;
	int rc;

	snprintf(what, sizeof(what), "a decimal number in [%g, %g]", min, max);
	rc = check_text(s, what, err);
	if (rc < 0)
		return rc;
	/* Keep strtod away from "inf", "nan", hex floats and locale text. */
	for (p = s; *p != '\0'; p++) {
		if (!isdigit((unsigned char)*p) && strchr("+-.eE", *p) == NULL)
			break;
	}
	errno = 0;
	v = strtod(s, &end);
	if (*p != '\0' || end == s || *end != '\0') {
		uet_parse_err_set(err, "'%s': not a number (expected %s)",
				  quote(s, q, sizeof(q)), what);
		return -EINVAL;
	}
	if (errno == ERANGE || !isfinite(v) || v < min || v > max) {
		uet_parse_err_set(err, "value %s out of range [%g, %g]",
				  quote(s, q, sizeof(q)), min, max);
		return -ERANGE;
	}
	*out = v;
	return 0;
}

int
uet_parse_ipv4(const char *s, struct in_addr *out, struct uet_parse_err *err)
{
	static const char what[] = "an IPv4 address a.b.c.d";
	char q[QBUF_LEN];
	struct in_addr a;
	int rc;

	rc = check_text(s, what, err);
	if (rc < 0)
		return rc;
	if (strlen(s) >= INET_ADDRSTRLEN || inet_pton(AF_INET, s, &a) != 1) {
		uet_parse_err_set(err, "'%s' is not %s",
				  quote(s, q, sizeof(q)), what);
		return -EINVAL;
	}
	*out = a;
	return 0;
}

int
uet_parse_ipv6(const char *s, struct in6_addr *out, struct uet_parse_err *err)
{
	static const char what[] = "an IPv6 address";
	char q[QBUF_LEN];
	struct in6_addr a;
	int rc;

	rc = check_text(s, what, err);
	if (rc < 0)
		return rc;
	if (strlen(s) >= INET6_ADDRSTRLEN || inet_pton(AF_INET6, s, &a) != 1) {
		uet_parse_err_set(err, "'%s' is not %s",
				  quote(s, q, sizeof(q)), what);
		return -EINVAL;
	}
	*out = a;
	return 0;
}

int
uet_parse_ip(const char *s, struct uet_parse_ipaddr *out,
	     struct uet_parse_err *err)
{
	struct uet_parse_ipaddr a;
	int rc;

	memset(&a, 0, sizeof(a));
	if (s != NULL && strchr(s, ':') != NULL) {
		a.family = AF_INET6;
		rc = uet_parse_ipv6(s, &a.v6, err);
	} else {
		a.family = AF_INET;
		rc = uet_parse_ipv4(s, &a.v4, err);
	}
	if (rc == 0)
		*out = a;
	return rc;
}

int
uet_parse_mac(const char *s, uint8_t out[6], struct uet_parse_err *err)
{
	static const char what[] = "a MAC address aa:bb:cc:dd:ee:ff";
	char q[QBUF_LEN];
	uint8_t mac[6];
	char sep;
	int i, hi, lo, rc;

	rc = check_text(s, what, err);
	if (rc < 0)
		return rc;
	if (strlen(s) != 17)
		goto bad;
	sep = s[2];
	if (sep != ':' && sep != '-')
		goto bad;
	for (i = 0; i < 6; i++) {
		const char *g = s + 3 * i;

		hi = digit_value(g[0], 16);
		lo = digit_value(g[1], 16);
		if (hi < 0 || lo < 0 || (i < 5 && g[2] != sep))
			goto bad;
		mac[i] = (uint8_t)(hi << 4 | lo);
	}
	memcpy(out, mac, sizeof(mac));
	return 0;
bad:
	uet_parse_err_set(err, "'%s' is not %s", quote(s, q, sizeof(q)), what);
	return -EINVAL;
}

/* Decimal id for lcore lists: digits only, at most 5 of them. */
static int
scan_lcore_id(const char **pp, unsigned int *id)
{
	const char *p = *pp;
	unsigned int v = 0;
	int n;

	for (n = 0; isdigit((unsigned char)*p); p++, n++) {
		if (n == 5)
			return -ERANGE;
		v = v * 10 + (unsigned int)(*p - '0');
	}
	if (n == 0)
		return -EINVAL;
	*pp = p;
	*id = v;
	return 0;
}

static bool
id_present(const uint16_t *ids, unsigned int n, unsigned int id)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		if (ids[i] == id)
			return true;
	}
	return false;
}

int
uet_parse_lcore_list(const char *s, unsigned int max_id, uint16_t *ids,
		     unsigned int cap, unsigned int *count,
		     struct uet_parse_err *err)
{
	static const char what[] = "an lcore list such as 0-3,5";
	char q[QBUF_LEN];
	const char *p = s;
	unsigned int n = 0, lo, hi, id;
	int rc;

	rc = check_text(s, what, err);
	if (rc < 0)
		return rc;
	if (ids == NULL || max_id > UINT16_MAX)
		goto bad;
	for (;;) {
		rc = scan_lcore_id(&p, &lo);
		if (rc == -ERANGE)
			goto too_big;
		if (rc < 0)
			goto bad;
		hi = lo;
		if (*p == '-') {
			p++;
			rc = scan_lcore_id(&p, &hi);
			if (rc == -ERANGE)
				goto too_big;
			if (rc < 0)
				goto bad;
			if (hi < lo) {
				uet_parse_err_set(err, "'%s': range %u-%u is "
						  "reversed", quote(s, q,
						  sizeof(q)), lo, hi);
				return -EINVAL;
			}
		}
		if (hi > max_id)
			goto too_big;
		for (id = lo; id <= hi; id++) {
			if (id_present(ids, n, id)) {
				uet_parse_err_set(err, "'%s': lcore %u listed "
						  "twice", quote(s, q,
						  sizeof(q)), id);
				return -EINVAL;
			}
			if (n == cap) {
				uet_parse_err_set(err, "'%s': more than %u "
						  "lcores", quote(s, q,
						  sizeof(q)), cap);
				return -ERANGE;
			}
			ids[n++] = (uint16_t)id;
		}
		if (*p == '\0')
			break;
		if (*p++ != ',')
			goto bad;
	}
	*count = n;
	return 0;
too_big:
	uet_parse_err_set(err, "'%s': lcore id out of range [0, %u]",
			  quote(s, q, sizeof(q)), max_id);
	return -ERANGE;
bad:
	uet_parse_err_set(err, "'%s' is not %s", quote(s, q, sizeof(q)), what);
	return -EINVAL;
}

int
uet_parse_enum(const char *s, const struct uet_parse_name *table, int *out,
	       struct uet_parse_err *err)
{
	char names[UET_PARSE_ERR_LEN], q[QBUF_LEN];
	const struct uet_parse_name *n;
	size_t used = 0;
	int rc;

	used = (size_t)snprintf(names, sizeof(names), "one of: ");
	for (n = table; n != NULL && n->name != NULL; n++) {
		if (used < sizeof(names))
			used += (size_t)snprintf(names + used,
						 sizeof(names) - used, "%s%s",
						 n == table ? "" : ", ",
						 n->name);
	}
	rc = check_text(s, names, err);
	if (rc < 0)
		return rc;
	for (n = table; n != NULL && n->name != NULL; n++) {
		if (strcmp(s, n->name) == 0) {
			*out = n->value;
			return 0;
		}
	}
	uet_parse_err_set(err, "'%s' is not %s",
			  quote(s, q, sizeof(q)), names);
	return -EINVAL;
}

const char *
uet_parse_enum_name(const struct uet_parse_name *table, int value)
{
	const struct uet_parse_name *n;

	for (n = table; n != NULL && n->name != NULL; n++) {
		if (n->value == value)
			return n->name;
	}
	return NULL;
}
