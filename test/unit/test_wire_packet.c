/* SPDX-License-Identifier: BSD-3-Clause */
/* Tests of src/wire/packet.c: whole-frame parse and build. */

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include <uet/uet_wire.h>

#include "wire_fixtures.h"

static const uint8_t zeros[WFX_FRAME_MAX];

static int
parse_fixture(const struct wfx *x, uint8_t *frame, int len,
	      struct uet_wire_pkt *p)
{
	struct uet_wire_outer_opts opts = { .raw_ip = x->raw_ip };

	return uet_wire_pkt_parse_ex(frame, (size_t)len, &opts, p);
}

static void
check_valid(const struct wfx *x, const struct uet_wire_pkt *spec,
	    const uint8_t *frame, int len, const struct uet_wire_pkt *p)
{
	uint8_t again[WFX_FRAME_MAX], payload[WFX_FRAME_MAX];
	int len2;

	assert_int_equal(p->pds.type, spec->pds.type);
	assert_int_equal(p->pds.next_hdr, spec->pds.next_hdr);
	assert_int_equal(p->pds.flags, spec->pds.flags);
	assert_int_equal(p->outer.native, spec->outer.native);
	assert_int_equal(p->outer.ip_version, spec->outer.ip_version);
	assert_int_equal(uet_wire_outer_ev_get(&p->outer),
			 uet_wire_outer_ev_get(&spec->outer));
	if (p->ses == UET_PKT_SES_REQ) {
		assert_int_equal(p->req.opcode, spec->req.opcode);
		assert_int_equal(p->req.flags, spec->req.flags);
		assert_int_equal(p->req.ext, spec->req.ext);
		assert_int_equal(p->req_fmt, spec->pds.next_hdr);
	} else if (p->ses == UET_PKT_SES_RESP) {
		assert_int_equal(p->resp.fmt, spec->resp.fmt);
		assert_int_equal(p->resp.opcode, spec->resp.opcode);
	} else {
		assert_true(spec->pds.type == UET_PDS_TYPE_CP ||
			    spec->pds.next_hdr == UET_PDS_NEXT_NONE);
	}
	wfx_payload(payload, p->payload_len);
	assert_memory_equal(frame + p->payload_off, payload, p->payload_len);
	assert_int_equal(p->payload_off + p->payload_len, len);
	/* Rebuilding what was parsed gives the same bytes. */
	len2 = uet_wire_pkt_build(p, frame + p->payload_off, p->payload_len,
			     again, sizeof(again));
	assert_int_equal(len2, len);
	assert_memory_equal(again, frame, (size_t)len);
	(void)x;
}

static void
packet_parse__every_fixture(void **state)
{
	uint8_t frame[WFX_FRAME_MAX];
	struct uet_wire_pkt spec, p;
	size_t i;
	int len, rc;

	(void)state;
	for (i = 0; i < WFX_COUNT; i++) {
		const struct wfx *x = &wfx_table[i];

		len = wfx_frame(x, &spec, frame, sizeof(frame));
		if (len < 0)
			print_error("fixture %s: build %d\n", x->name, len);
		assert_true(len > 0);
		rc = parse_fixture(x, frame, len, &p);
		if (rc != -x->err || p.err_layer != x->layer)
			print_error("fixture %s: rc %d layer %s\n", x->name,
				    rc, uet_wire_pkt_layer_name(p.err_layer));
		assert_int_equal(rc, -x->err);
		assert_int_equal(p.err, x->err);
		assert_int_equal(p.err_layer, x->layer);
		if (x->err == 0)
			check_valid(x, &spec, frame, len, &p);
	}
}

/*
 * uet_wire_pkt_parse_pds() agrees with the full parse up to the PDS header and
 * hands on every byte after it undecoded: a fixture whose SES part is
 * malformed parses, one whose outer or PDS part is fails the same way,
 * and req/resp are left as they were.
 */
static void
uet_pkt_parse_pds__every_fixture(void **state)
{
	uint8_t frame[WFX_FRAME_MAX];
	struct uet_wire_pkt spec, full, p;

	(void)state;
	for (size_t i = 0; i < WFX_COUNT; i++) {
		const struct wfx *x = &wfx_table[i];
		struct uet_wire_outer_opts opts = { .raw_ip = x->raw_ip };
		int len = wfx_frame(x, &spec, frame, sizeof(frame));
		int rc;

		assert_true(len > 0);
		(void)uet_wire_pkt_parse_ex(frame, (size_t)len, &opts, &full);
		memset(&p.req, 0xA5, sizeof(p.req));
		rc = uet_wire_pkt_parse_pds(frame, (size_t)len, &opts, &p);
		if (x->layer != UET_PKT_LAYER_NONE &&
		    x->layer < UET_PKT_LAYER_SES) {
			assert_int_equal(rc, -x->err);
			assert_int_equal(p.err_layer, x->layer);
			continue;
		}
		assert_int_equal(rc, 0);
		assert_int_equal(p.err_layer, UET_PKT_LAYER_NONE);
		assert_int_equal(p.ses, UET_PKT_SES_NONE);
		assert_int_equal(p.ses_len, 0);
		assert_memory_equal(&p.pds, &full.pds, sizeof(p.pds));
		assert_int_equal(p.ses_off, full.ses_off);
		assert_int_equal(p.payload_off, p.ses_off);
		assert_int_equal(p.payload_off + p.payload_len,
				 full.pds_off + full.outer.inner_len);
		assert_int_equal(((const uint8_t *)&p.req)[0], 0xA5);
	}
}

/* The fixtures cover every PDS type but TSS, every control type, every
 * next header and every SES request format. */
static void
packet_fixtures__cover_every_header(void **state)
{
	unsigned int types = 0, ctls = 0, nhs = 0, exts = 0;
	uint8_t frame[WFX_FRAME_MAX];
	struct uet_wire_pkt spec;
	size_t i;

	(void)state;
	for (i = 0; i < WFX_COUNT; i++) {
		if (wfx_table[i].err != 0)
			continue;
		assert_true(wfx_frame(&wfx_table[i], &spec, frame,
				      sizeof(frame)) > 0);
		types |= 1u << spec.pds.type;
		if (spec.pds.type == UET_PDS_TYPE_CP)
			ctls |= 1u << spec.pds.next_hdr;
		else
			nhs |= 1u << spec.pds.next_hdr;
		exts |= 1u << spec.req.ext;
	}
	assert_int_equal(types, 0x7FFCu);  /* 2..14 */
	assert_int_equal(ctls, 0x3FFu);    /* 0..9 */
	assert_int_equal(nhs, 0x7Fu);      /* 0..6 */
	assert_int_equal(exts, 0xFu);      /* none, atomic, CAS, rdv */
}

/* A packet cut by its sender (every length rewritten) fails in SES with
 * its outer and PDS headers usable. */
static void
packet_parse__cut_keeps_pds(void **state)
{
	uint8_t frame[WFX_FRAME_MAX];
	struct uet_wire_pkt spec, p;
	char msg[128];
	int len;

	(void)state;
	wfx_rud_syn_send(&spec, &(size_t){ 0 });
	len = uet_wire_pkt_build(&spec, zeros, 64, frame, sizeof(frame));
	assert_true(len > 0);
	len = (int)wfx_cut_inner(frame, (size_t)len, 24);
	assert_int_equal(uet_wire_pkt_parse(frame, (size_t)len, &p),
			 -UET_WIRE_E_TRUNCATED);
	assert_int_equal(p.err_layer, UET_PKT_LAYER_SES);
	assert_int_equal(p.err_off, WFX_SES_OFF);
	assert_int_equal(p.err_avail, 12);
	assert_int_equal(p.pds.type, UET_PDS_TYPE_RUD_REQ);
	assert_int_equal(p.pds.u.req.psn, spec.pds.u.req.psn);
	uet_wire_pkt_err_format(&p, msg, sizeof(msg));
	assert_string_equal(msg, "buffer shorter than the header "
			    "(ses at offset 54, 12 bytes available)");
}

static const struct uet_wire_outer_opts trim_opts = {
	.trim_dscps = UET_OUTER_DSCP_BIT(WFX_DSCP_TRIMMED) |
		      UET_OUTER_DSCP_BIT(WFX_DSCP_TRIMMED_LH),
};

/* A RUD request of @p plen payload bytes over IPv4 or IPv6 (the IPv6
 * one with a real UDP checksum, which trimming leaves stale). */
static int
trim_source(uint8_t *frame, unsigned int ipver, size_t plen,
	    struct uet_wire_pkt *spec)
{
	wfx_rud_syn_send(spec, &(size_t){ 0 });
	if (ipver == 6) {
		struct uet_wire_outer o = spec->outer;

		uet_wire_outer_init(&spec->outer, 6);
		memcpy(spec->outer.src_mac, o.src_mac, 6);
		memcpy(spec->outer.dst_mac, o.dst_mac, 6);
		spec->outer.src_addr[15] = 1;
		spec->outer.dst_addr[15] = 2;
		spec->outer.udp_sport = o.udp_sport;
	}
	return uet_wire_pkt_build(spec, zeros, plen, frame, WFX_FRAME_MAX);
}

/*
 * A switch-trimmed frame (UDP length and checksum of the original, IP
 * length fixed or not, DSCP trimmed) parses as trimmed with its PDS
 * header, for both IP versions; the same bytes without a trim DSCP
 * configured are a short frame (TRUNCATED at UDP or IP).
 */
static void
packet_parse__switch_trimmed(void **state)
{
	uint8_t frame[WFX_FRAME_MAX];
	struct uet_wire_pkt spec, p;

	(void)state;
	for (unsigned int ipver = 4; ipver <= 6; ipver += 2) {
		for (int fix_ip = 0; fix_ip < 2; fix_ip++) {
			int full = trim_source(frame, ipver, 200, &spec);
			size_t hl = uet_wire_outer_hdr_len(&spec.outer);
			int len;

			assert_true(full > 0);
			len = (int)wfx_switch_trim(frame, (size_t)full, 12,
						   fix_ip != 0);
			assert_int_equal((size_t)len, hl + 12);
			assert_int_equal(uet_wire_pkt_parse_ex(frame, (size_t)len,
							  &trim_opts, &p), 0);
			assert_true(p.outer.trimmed);
			assert_int_equal(p.outer.dscp, WFX_DSCP_TRIMMED);
			assert_int_equal(p.outer.udp_len,
					 full - (int)hl + UET_UDP_HLEN);
			assert_int_equal(p.outer.inner_len, 12);
			assert_int_equal(p.pds.type, UET_PDS_TYPE_RUD_REQ);
			assert_int_equal(p.pds.u.req.psn, spec.pds.u.req.psn);
			assert_int_equal(p.ses, UET_PKT_SES_NONE);
			assert_int_equal(p.payload_len, 0);
			assert_int_equal(uet_wire_pkt_parse(frame, (size_t)len, &p),
					 -UET_WIRE_E_TRUNCATED);
			assert_int_equal(p.err_layer, fix_ip ?
					 UET_PKT_LAYER_UDP : UET_PKT_LAYER_IP);
		}
	}
}

/* A trimmed request: its PDS header, nothing after it. */
static void
uet_pkt_parse_pds__switch_trimmed(void **state)
{
	uint8_t frame[WFX_FRAME_MAX];
	struct uet_wire_pkt spec, p;
	int full, len;

	(void)state;
	full = trim_source(frame, 4, 200, &spec);
	len = (int)wfx_switch_trim(frame, (size_t)full, 12, true);
	assert_int_equal(uet_wire_pkt_parse_pds(frame, (size_t)len, &trim_opts, &p),
			 0);
	assert_true(p.outer.trimmed);
	assert_int_equal(p.pds.u.req.psn, spec.pds.u.req.psn);
	assert_int_equal(p.payload_off, p.ses_off);
	assert_int_equal(p.payload_len, 0);
	/* a trimmed control packet stays refused */
	wfx_ack_response(&spec, &(size_t){ 0 });
	full = uet_wire_pkt_build(&spec, zeros, 0, frame, sizeof(frame));
	len = (int)wfx_switch_trim(frame, (size_t)full, 12, true);
	assert_int_equal(uet_wire_pkt_parse_pds(frame, (size_t)len, &trim_opts, &p),
			 -UET_WIRE_E_BAD_COMBINATION);
	assert_int_equal(p.err_layer, UET_PKT_LAYER_PDS);
}

/* Short for another reason: the data DSCP (not trimmed), or less than
 * a PDS header left, or a control packet (never trimmable). */
static void
packet_parse__short_not_trimmed(void **state)
{
	uint8_t frame[WFX_FRAME_MAX];
	struct uet_wire_outer o;
	struct uet_wire_pkt spec, p;
	int full, len;

	(void)state;
	full = trim_source(frame, 4, 200, &spec);
	assert_int_equal(uet_wire_outer_decode(frame, (size_t)full, &o),
			 (int)uet_wire_outer_hdr_len(&spec.outer));
	len = uet_wire_outer_frame_trim(&o, frame, (size_t)full, 12, 0, true);
	assert_true(len > 0);
	assert_int_equal(uet_wire_pkt_parse_ex(frame, (size_t)len, &trim_opts, &p),
			 -UET_WIRE_E_TRUNCATED);
	assert_int_equal(p.err_layer, UET_PKT_LAYER_UDP);
	assert_false(p.outer.trimmed);

	full = trim_source(frame, 4, 200, &spec);
	len = (int)wfx_switch_trim(frame, (size_t)full, 8, true);
	assert_int_equal(uet_wire_pkt_parse_ex(frame, (size_t)len, &trim_opts, &p),
			 -UET_WIRE_E_TRUNCATED);
	assert_int_equal(p.err_layer, UET_PKT_LAYER_PDS);

	wfx_ack_response(&spec, &(size_t){ 0 });
	full = uet_wire_pkt_build(&spec, zeros, 0, frame, sizeof(frame));
	assert_true(full > 0);
	len = (int)wfx_switch_trim(frame, (size_t)full, 12, true);
	assert_int_equal(uet_wire_pkt_parse_ex(frame, (size_t)len, &trim_opts, &p),
			 -UET_WIRE_E_BAD_COMBINATION);
	assert_int_equal(p.err_layer, UET_PKT_LAYER_PDS);
}

/* no_udp_csum leaves the checksum to the caller; by default a wrong
 * one is refused. */
static void
packet_parse__udp_csum_left_to_caller(void **state)
{
	uint8_t frame[WFX_FRAME_MAX];
	struct uet_wire_outer_opts opts = { .no_udp_csum = true };
	struct uet_wire_pkt spec, p;
	int len;

	(void)state;
	len = trim_source(frame, 6, 100, &spec);
	frame[len - 1] ^= 0x40;
	assert_int_equal(uet_wire_pkt_parse(frame, (size_t)len, &p),
			 -UET_WIRE_E_BAD_CHECKSUM);
	assert_int_equal(p.err_layer, UET_PKT_LAYER_UDP);
	assert_int_equal(uet_wire_pkt_parse_ex(frame, (size_t)len, &opts, &p), 0);
}

static void
packet_parse__every_prefix_rejected(void **state)
{
	uint8_t frame[WFX_FRAME_MAX];
	struct uet_wire_pkt spec, p;
	int len, n;

	(void)state;
	len = wfx_frame(&wfx_table[0], &spec, frame, sizeof(frame));
	for (n = 0; n < len; n++) {
		assert_int_equal(uet_wire_pkt_parse(frame, (size_t)n, &p),
				 -UET_WIRE_E_TRUNCATED);
		assert_true(p.err_layer == UET_PKT_LAYER_ETH ||
			    p.err_layer == UET_PKT_LAYER_IP);
	}
	assert_int_equal(uet_wire_pkt_parse(frame, (size_t)len, &p), 0);
}

/* Ethernet pads short frames to 60 bytes; padding is not payload. */
static void
packet_parse__link_padding(void **state)
{
	uint8_t frame[WFX_FRAME_MAX] = { 0 };
	struct uet_wire_pkt spec, p;
	size_t plen;
	int len;

	(void)state;
	wfx_ack_clear(&spec, &plen);
	len = uet_wire_pkt_build(&spec, NULL, 0, frame, sizeof(frame));
	assert_int_equal(len, 54);
	assert_int_equal(uet_wire_pkt_parse(frame, 60, &p), 0);
	assert_int_equal(p.payload_len, 0);
	assert_int_equal(p.payload_off, 54);
	assert_int_equal(p.ses, UET_PKT_SES_NONE);
}

static void
packet_err_format__texts(void **state)
{
	uint8_t frame[WFX_FRAME_MAX];
	struct uet_wire_pkt spec, p;
	char msg[128];
	int len;

	(void)state;
	len = wfx_frame(&wfx_table[0], &spec, frame, sizeof(frame));
	assert_int_equal(uet_wire_pkt_parse(frame, 60, &p), -UET_WIRE_E_TRUNCATED);
	uet_wire_pkt_err_format(&p, msg, sizeof(msg));
	assert_string_equal(msg, "buffer shorter than the header "
			    "(ip total length 148, 46 bytes captured)");
	wfx_rod_send_cont(&spec, &(size_t){ 0 });
	len = uet_wire_pkt_build(&spec, zeros, 8, frame, sizeof(frame));
	assert_int_equal(uet_wire_pkt_parse(frame, (size_t)len, &p),
			 -UET_WIRE_E_TRUNCATED);
	assert_int_equal(p.err_layer, UET_PKT_LAYER_PAYLOAD);
	uet_wire_pkt_err_format(&p, msg, sizeof(msg));
	assert_string_equal(msg, "buffer shorter than the header "
			    "(header says 32 payload bytes, 8 present)");
	p.err = 0;
	uet_wire_pkt_err_format(&p, msg, sizeof(msg));
	assert_string_equal(msg, "ok");
}

static void
packet_build__errors(void **state)
{
	uint8_t frame[WFX_FRAME_MAX];
	struct uet_wire_pkt spec;
	size_t plen;

	(void)state;
	wfx_ack_response(&spec, &plen);
	spec.resp.fmt = UET_SES_RESP_FMT_DATA_SMALL;
	assert_int_equal(uet_wire_pkt_build(&spec, NULL, 0, frame, sizeof(frame)),
			 -UET_WIRE_E_BAD_COMBINATION);
	wfx_ack_response(&spec, &plen);
	assert_int_equal(uet_wire_pkt_build(&spec, NULL, 0, frame, 60),
			 -UET_WIRE_E_NOSPACE);
	assert_int_equal(uet_wire_pkt_build(&spec, zeros, 10, frame, 66),
			 -UET_WIRE_E_NOSPACE);
	assert_int_equal(uet_wire_pkt_build(&spec, zeros, 70000, frame, 66),
			 -UET_WIRE_E_BAD_LENGTH);
	spec.pds.type = 0;
	assert_int_equal(uet_wire_pkt_build(&spec, NULL, 0, frame, sizeof(frame)),
			 -UET_WIRE_E_BAD_TYPE);
}

static void
packet_layer_name__all(void **state)
{
	(void)state;
	assert_string_equal(uet_wire_pkt_layer_name(UET_PKT_LAYER_ETH), "eth");
	assert_string_equal(uet_wire_pkt_layer_name(UET_PKT_LAYER_IP), "ip");
	assert_string_equal(uet_wire_pkt_layer_name(UET_PKT_LAYER_UDP), "udp");
	assert_string_equal(uet_wire_pkt_layer_name(UET_PKT_LAYER_ENTROPY),
			    "entropy");
	assert_string_equal(uet_wire_pkt_layer_name(UET_PKT_LAYER_PDS), "pds");
	assert_string_equal(uet_wire_pkt_layer_name(UET_PKT_LAYER_SES), "ses");
	assert_string_equal(uet_wire_pkt_layer_name(UET_PKT_LAYER_PAYLOAD),
			    "payload");
	assert_string_equal(uet_wire_pkt_layer_name(99), "unknown");
}

/* Member by member (padding between members aside): a parse into a
 * struct full of stale bytes gives what a parse into a zeroed one gives,
 * for every fixture and every prefix of it (each failure path). */
static void
pkt_assert_same(const struct uet_wire_pkt *a, const struct uet_wire_pkt *b)
{
	assert_memory_equal(&a->outer, &b->outer, sizeof(a->outer));
	assert_memory_equal(&a->pds, &b->pds, sizeof(a->pds));
	assert_int_equal(a->ses, b->ses);
	assert_int_equal(a->req_fmt, b->req_fmt);
	assert_memory_equal(&a->req, &b->req, sizeof(a->req));
	assert_memory_equal(&a->resp, &b->resp, sizeof(a->resp));
	assert_int_equal(a->pds_off, b->pds_off);
	assert_int_equal(a->ses_off, b->ses_off);
	assert_int_equal(a->ses_len, b->ses_len);
	assert_int_equal(a->payload_off, b->payload_off);
	assert_int_equal(a->payload_len, b->payload_len);
	assert_int_equal(a->err_layer, b->err_layer);
	assert_int_equal(a->err, b->err);
	assert_int_equal(a->err_off, b->err_off);
	assert_int_equal(a->err_avail, b->err_avail);
}

static void
packet_parse__stale_struct_cleared(void **state)
{
	uint8_t frame[WFX_FRAME_MAX];
	struct uet_wire_pkt spec, clean, dirty;
	size_t i;
	int len, cut, rc1, rc2;

	(void)state;
	for (i = 0; i < WFX_COUNT; i++) {
		const struct wfx *x = &wfx_table[i];

		len = wfx_frame(x, &spec, frame, sizeof(frame));
		assert_true(len > 0);
		for (cut = len; cut >= 0; cut--) {
			memset(&clean, 0, sizeof(clean));
			memset(&dirty, 0xA5, sizeof(dirty));
			rc1 = parse_fixture(x, frame, cut, &clean);
			rc2 = parse_fixture(x, frame, cut, &dirty);
			assert_int_equal(rc1, rc2);
			pkt_assert_same(&clean, &dirty);
		}
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(packet_parse__every_fixture),
		cmocka_unit_test(uet_pkt_parse_pds__every_fixture),
		cmocka_unit_test(uet_pkt_parse_pds__switch_trimmed),
		cmocka_unit_test(packet_parse__stale_struct_cleared),
		cmocka_unit_test(packet_fixtures__cover_every_header),
		cmocka_unit_test(packet_parse__cut_keeps_pds),
		cmocka_unit_test(packet_parse__switch_trimmed),
		cmocka_unit_test(packet_parse__short_not_trimmed),
		cmocka_unit_test(packet_parse__udp_csum_left_to_caller),
		cmocka_unit_test(packet_parse__every_prefix_rejected),
		cmocka_unit_test(packet_parse__link_padding),
		cmocka_unit_test(packet_err_format__texts),
		cmocka_unit_test(packet_build__errors),
		cmocka_unit_test(packet_layer_name__all),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
