/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef UET_PARSE_H
#define UET_PARSE_H

/**
 * @file
 * Strict text parsers shared by the configuration loader, the CLI and the
 * libfabric provider's environment variables. No DPDK dependency.
 *
 * Every parser:
 * - accepts the whole string or nothing: leading/trailing whitespace,
 *   trailing junk and empty strings are rejected;
 * - returns 0 on success, -EINVAL for malformed input (including a NULL
 *   string) and -ERANGE for well-formed input outside the accepted range;
 * - writes its output only on success;
 * - fills the optional @p err (may be NULL) with a one-line reason, for
 *   example "value 70000 out of range [1, 65535]".
 *
 * Integers are decimal or hexadecimal with a "0x"/"0X" prefix; a leading
 * zero does not mean octal.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <netinet/in.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Size of the reason buffer in struct uet_parse_err. */
#define UET_PARSE_ERR_LEN 192

/** Why a parser rejected its input. */
struct uet_parse_err {
	/** NUL-terminated one-line reason, without a trailing period. */
	char msg[UET_PARSE_ERR_LEN];
};

/** One accepted name of an enumeration (see uet_parse_enum()). */
struct uet_parse_name {
	const char *name; /**< accepted spelling (compared case-sensitively) */
	int value;        /**< value stored on a match */
};

/** An IPv4 or IPv6 address. */
struct uet_parse_ipaddr {
	int family; /**< AF_INET or AF_INET6 */
	union {
		struct in_addr v4;  /**< valid when family == AF_INET */
		struct in6_addr v6; /**< valid when family == AF_INET6 */
	};
};

/**
 * Store a formatted reason in @p err (no-op when @p err is NULL).
 * Useful for callers that add their own checks with the same reporting.
 */
void
uet_parse_err_set(struct uet_parse_err *err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/**
 * Parse an unsigned 64-bit integer in [@p min, @p max].
 * Signs ('+' or '-') are rejected.
 * @return 0, -EINVAL (empty, sign, junk, NULL, min > max), -ERANGE (overflow
 *   or outside the range).
 */
int
uet_parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out,
	      struct uet_parse_err *err);

/** uet_parse_u64() for a uint32_t. @return 0, -EINVAL, -ERANGE. */
int
uet_parse_u32(const char *s, uint32_t min, uint32_t max, uint32_t *out,
	      struct uet_parse_err *err);

/** uet_parse_u64() for a uint16_t. @return 0, -EINVAL, -ERANGE. */
int
uet_parse_u16(const char *s, uint16_t min, uint16_t max, uint16_t *out,
	      struct uet_parse_err *err);

/** uet_parse_u64() for a uint8_t. @return 0, -EINVAL, -ERANGE. */
int
uet_parse_u8(const char *s, uint8_t min, uint8_t max, uint8_t *out,
	     struct uet_parse_err *err);

/**
 * Parse a signed 64-bit integer in [@p min, @p max]; an optional '+' or '-'
 * precedes the digits (also before "0x").
 * @return 0, -EINVAL, -ERANGE.
 */
int
uet_parse_i64(const char *s, int64_t min, int64_t max, int64_t *out,
	      struct uet_parse_err *err);

/** uet_parse_i64() for an int32_t. @return 0, -EINVAL, -ERANGE. */
int
uet_parse_i32(const char *s, int32_t min, int32_t max, int32_t *out,
	      struct uet_parse_err *err);

/**
 * Parse a boolean: 1/0, true/false, yes/no, on/off (case-insensitive).
 * @return 0, -EINVAL.
 */
int
uet_parse_bool(const char *s, bool *out, struct uet_parse_err *err);

/**
 * Parse a byte count: an integer optionally followed by a 1024-based suffix
 * K, M, G or T (also spelled KiB, MiB, GiB, TiB; case-insensitive), or B.
 * "KB"/"MB" are rejected as ambiguous. Fractions are rejected.
 * @return 0, -EINVAL, -ERANGE (overflow or outside [@p min, @p max]).
 */
int
uet_parse_size(const char *s, uint64_t min, uint64_t max, uint64_t *out,
	       struct uet_parse_err *err);

/**
 * Parse a duration into nanoseconds: an integer followed by ns, us, ms or s.
 * A bare "0" is accepted; any other number without a unit is rejected.
 * @return 0, -EINVAL, -ERANGE (overflow or outside [@p min, @p max] ns).
 */
int
uet_parse_duration_ns(const char *s, uint64_t min, uint64_t max,
		      uint64_t *out, struct uet_parse_err *err);

/**
 * Parse a finite decimal floating-point number in [@p min, @p max]
 * (digits, '.', exponent; no hex floats, inf or nan).
 * @return 0, -EINVAL, -ERANGE.
 */
int
uet_parse_double(const char *s, double min, double max, double *out,
		 struct uet_parse_err *err);

/** Parse a dotted-quad IPv4 address (inet_pton). @return 0, -EINVAL. */
int
uet_parse_ipv4(const char *s, struct in_addr *out, struct uet_parse_err *err);

/** Parse an IPv6 address (inet_pton, no zone). @return 0, -EINVAL. */
int
uet_parse_ipv6(const char *s, struct in6_addr *out,
	       struct uet_parse_err *err);

/**
 * Parse an IPv4 or IPv6 address; the family is chosen by the presence of
 * ':'. @return 0, -EINVAL.
 */
int
uet_parse_ip(const char *s, struct uet_parse_ipaddr *out,
	     struct uet_parse_err *err);

/**
 * Parse a MAC address "aa:bb:cc:dd:ee:ff" (or with '-'): six groups of
 * exactly two hex digits, one separator style. @return 0, -EINVAL.
 */
int
uet_parse_mac(const char *s, uint8_t out[6], struct uet_parse_err *err);

/**
 * Parse an lcore list such as "0-3,5": comma-separated ids or ascending
 * ranges, decimal only. Ids are stored in the order written; duplicates and
 * overlapping ranges are rejected.
 * @param max_id  largest accepted id.
 * @param ids     output array of @p cap entries.
 * @param count   number of ids stored.
 * @return 0, -EINVAL (syntax, duplicate, reversed range), -ERANGE (id above
 *   @p max_id or more than @p cap ids).
 */
int
uet_parse_lcore_list(const char *s, unsigned int max_id, uint16_t *ids,
		     unsigned int cap, unsigned int *count,
		     struct uet_parse_err *err);

/**
 * Parse a name from @p table (terminated by an entry with a NULL name).
 * The error message lists every accepted name.
 * @return 0, -EINVAL.
 */
int
uet_parse_enum(const char *s, const struct uet_parse_name *table, int *out,
	       struct uet_parse_err *err);

/**
 * Name of @p value in @p table, or NULL when absent (for dumps).
 */
const char *
uet_parse_enum_name(const struct uet_parse_name *table, int value);

/** Largest key uet_parse_key_file() reads, bytes. */
#define UET_PARSE_KEY_MAX 128

/**
 * Read a key file: 2 * @p len hexadecimal digits, an optional newline
 * after them, nothing else; a regular file (not a symbolic link) of the
 * calling user or root that neither group nor others may access (mode
 * 0600 or 0400), as ssh requires of a private key. No key byte is
 * written to @p why. The caller wipes @p key after use.
 * @param why  Out on error (may be NULL): the reason.
 * @return 0, -ENOENT/-EACCES/-ELOOP/... (open), -EPERM (owner or mode),
 *   -EINVAL (content, @p len 0 or above UET_PARSE_KEY_MAX).
 */
int
uet_parse_key_file(const char *path, uint8_t *key, size_t len, char *why,
		   size_t why_len);

#ifdef __cplusplus
}
#endif

#endif /* UET_PARSE_H */
