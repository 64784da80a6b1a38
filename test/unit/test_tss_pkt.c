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

#include "wire_outer_assert.h"

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

/* ------------------------------------------------------------------ */
/* the parse of an opened packet                                       */
/* ------------------------------------------------------------------ */

#define OPEN_PAYLOAD 20
#define OPEN_REMOVED (UET_TSS_HDR_LEN + UET_TSS_ICV_LEN)

/* A RUD request of 10.0.0.1 -> 10.0.0.2 (UDP, or native IP), the PDS
 * header and OPEN_PAYLOAD bytes after the outer headers, protected
 * (@p sealed: TSS header before, an ICV after) or as opened. */
static size_t
open_frame(uint8_t *buf, size_t cap, bool native, bool sealed)
{
	struct uet_wire_pds_hdr h = {
		.type = UET_PDS_TYPE_RUD_REQ, .next_hdr = UET_SES_FMT_STD,
		.u.req = { .psn = 100, .spdcid = 5, .dpdcid = 9 },
	};
	struct uet_wire_tss_hdr th = { .sdi = 7, .epoch = 1, .tsc = 42 };
	struct uet_wire_outer o;
	struct uet_wire_outer_tpl t;
	size_t pl = uet_wire_pds_hdr_len(h.type), off;
	size_t in = pl + OPEN_PAYLOAD + (sealed ? OPEN_REMOVED : 0);

	uet_wire_outer_init(&o, 4);
	memcpy(o.src_addr, (uint8_t[]){ 10, 0, 0, 1 }, 4);
	memcpy(o.dst_addr, (uint8_t[]){ 10, 0, 0, 2 }, 4);
	if (native) {
		o.native = true;
		o.ip_proto = UET_NATIVE_IP_PROTO_DEFAULT;
	}
	assert_int_equal(uet_wire_outer_tpl_init(&t, &o), 0);
	assert_true(t.len + in <= cap);
	off = uet_wire_outer_tpl_write(&t, buf, (uint16_t)in, 10, 2, 0xC123);
	if (sealed) {
		assert_int_equal(uet_wire_tss_hdr_encode(&th, buf + off,
							 cap - off),
				 UET_TSS_HDR_LEN);
		off += UET_TSS_HDR_LEN;
	}
	assert_int_equal(uet_wire_pds_hdr_encode(&h, buf + off, cap - off),
			 (int)pl);
	off += pl;
	for (size_t i = 0; i < OPEN_PAYLOAD; i++)
		buf[off++] = (uint8_t)(0x30 + i);
	if (sealed) {
		memset(buf + off, 0xEE, UET_TSS_ICV_LEN);
		off += UET_TSS_ICV_LEN;
	}
	return off;
}

/* Fields a round trip keeps, and the lengths and sums the decoder fills. */
static void
outer_equal(const struct uet_wire_outer *a, const struct uet_wire_outer *b)
{
	assert_outer_equal(a, b);
	assert_int_equal(a->ip_hlen, b->ip_hlen);
	assert_int_equal(a->ip_total_len, b->ip_total_len);
	assert_int_equal(a->ipv4_csum, b->ipv4_csum);
	assert_int_equal(a->udp_len, b->udp_len);
	assert_int_equal(a->udp_csum, b->udp_csum);
	assert_int_equal(a->hdr_len, b->hdr_len);
	assert_int_equal(a->trimmed, b->trimmed);
}

static void
pkt_equal(const struct uet_wire_pkt *a, const struct uet_wire_pkt *b)
{
	outer_equal(&a->outer, &b->outer);
	assert_memory_equal(&a->pds, &b->pds, sizeof(a->pds));
	assert_int_equal(a->pds_off, b->pds_off);
	assert_int_equal(a->ses_off, b->ses_off);
	assert_int_equal(a->ses_len, b->ses_len);
	assert_int_equal(a->ses, b->ses);
	assert_int_equal(a->payload_off, b->payload_off);
	assert_int_equal(a->payload_len, b->payload_len);
	assert_int_equal(a->err_layer, b->err_layer);
	assert_int_equal(a->err, b->err);
	assert_int_equal(a->err_off, b->err_off);
	assert_int_equal(a->err_avail, b->err_avail);
}

/* The parse handed from the protected packet to the opened one equals a
 * fresh parse of the opened frame, over UDP and native IP; the protected
 * one stops at its PDS layer, as the engine's RX sees it. */
static void
uet_tss_opened_parse__equals_fresh_parse(void **state)
{
	uint8_t sealed[256], opened[256];
	struct uet_wire_pkt ps, want, got;

	(void)state;
	for (int native = 0; native < 2; native++) {
		size_t sl = open_frame(sealed, sizeof(sealed), native, true);
		size_t ol = open_frame(opened, sizeof(opened), native, false);

		memset(&ps, 0, sizeof(ps));
		memset(&want, 0, sizeof(want));
		memset(&got, 0x5A, sizeof(got));
		assert_true(uet_wire_pkt_parse_pds(sealed, sl, NULL, &ps) < 0);
		assert_int_equal(ps.err_layer, UET_PKT_LAYER_PDS);
		assert_int_equal(ps.outer.inner_len, sl - ps.outer.hdr_len);
		assert_int_equal(uet_wire_pkt_parse_pds(opened, ol, NULL,
							&want), 0);
		memset(&got.pds, 0, sizeof(got.pds));
		assert_int_equal(uet_tss_opened_parse(&ps.outer, OPEN_REMOVED,
						      opened, ol, &got), 0);
		pkt_equal(&got, &want);
		assert_int_equal(got.pds.u.req.psn, 100);
		assert_int_equal(got.payload_len, OPEN_PAYLOAD);
	}
}

/* A PDS header that does not decode fails as the fresh parse fails; a
 * frame shorter than the protected one says it holds is refused. */
static void
uet_tss_opened_parse__errors(void **state)
{
	uint8_t sealed[256], opened[256];
	struct uet_wire_pkt ps, want, got;
	size_t sl = open_frame(sealed, sizeof(sealed), false, true);
	size_t ol = open_frame(opened, sizeof(opened), false, false);
	int rc;

	(void)state;
	assert_true(uet_wire_pkt_parse_pds(sealed, sl, NULL, &ps) < 0);
	assert_int_equal(uet_tss_opened_parse(&ps.outer, OPEN_REMOVED, opened,
					      ol - 1, &got), -EINVAL);
	assert_int_equal(uet_tss_opened_parse(&ps.outer, ps.outer.inner_len + 1,
					      opened, ol, &got), -EINVAL);
	opened[ps.outer.hdr_len] = 0xFF; /* no such PDS type */
	rc = uet_wire_pkt_parse_pds(opened, ol, NULL, &want);
	assert_true(rc < 0);
	assert_int_equal(uet_tss_opened_parse(&ps.outer, OPEN_REMOVED, opened,
					      ol, &got), rc);
	assert_int_equal(got.err_layer, want.err_layer);
	assert_int_equal(got.err, want.err);
	assert_int_equal(got.err_off, want.err_off);
	assert_int_equal(got.err_avail, want.err_avail);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(uet_tss_iv__direct_and_masked),
		cmocka_unit_test(uet_tss_aad__ipv4_udp),
		cmocka_unit_test(uet_tss_aad__ipv6_native),
		cmocka_unit_test(uet_tss_split__edges),
		cmocka_unit_test(uet_tss_opened_parse__equals_fresh_parse),
		cmocka_unit_test(uet_tss_opened_parse__errors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
