/* SPDX-License-Identifier: BSD-3-Clause */
/* Tests of src/wire/outer.c: Ethernet / IP / UDP and native-IP headers. */

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <uet/uet_rand.h>
#include <uet/uet_wire.h>

#include "wire_outer_assert.h"

#define FRAME_MAX 256

/* Deterministic generator so a failure reproduces. */
static struct uet_rand rng_state = { .s = 0x2545F491u };

static uint32_t
rng(void)
{
	return (uint32_t)(uet_rand_next(&rng_state) >> 32);
}

static void
rng_bytes(uint8_t *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		p[i] = (uint8_t)rng();
}

/* Test-side IPv4 header checksum, to re-seal headers a test edits. */
static void
ipv4_reseal(uint8_t *ip)
{
	size_t hlen = (size_t)(ip[0] & 0x0F) * 4, i;
	uint32_t sum = 0;

	ip[10] = 0;
	ip[11] = 0;
	for (i = 0; i < hlen; i += 2)
		sum += (uint32_t)(ip[i] << 8 | ip[i + 1]);
	while (sum >> 16)
		sum = (sum & 0xFFFF) + (sum >> 16);
	sum = ~sum & 0xFFFF;
	ip[10] = (uint8_t)(sum >> 8);
	ip[11] = (uint8_t)sum;
}

/* ------------------------------------------------------------------ */
/* Golden bytes, written by hand                                       */
/* ------------------------------------------------------------------ */

/* 10.0.0.1:49152 -> 10.0.0.2:4793, DSCP 46 (EF), ECT(0), 12 inner bytes. */
static const uint8_t golden_v4[] = {
	/* Ethernet: dst, src, ethertype IPv4 */
	0x02, 0x00, 0x00, 0x00, 0x00, 0x02,
	0x02, 0x00, 0x00, 0x00, 0x00, 0x01,
	0x08, 0x00,
	/* IPv4: ver 4 IHL 5 | tos = 46 << 2 | 2 | total 40 (20 + 8 + 12) */
	0x45, 0xBA, 0x00, 0x28,
	/* id 0x1234 | flags DF, offset 0 */
	0x12, 0x34, 0x40, 0x00,
	/* ttl 64 | proto UDP | checksum: ~(0x45BA + 0x0028 + 0x1234 +
	 * 0x4000 + 0x4011 + 0x0A00 + 0x0001 + 0x0A00 + 0x0002 = 0xEC2A) */
	0x40, 0x11, 0x13, 0xD5,
	/* src 10.0.0.1, dst 10.0.0.2 */
	0x0A, 0x00, 0x00, 0x01,
	0x0A, 0x00, 0x00, 0x02,
	/* UDP: sport 49152 (EV), dport 4793, length 20, checksum 0 (IPv4) */
	0xC0, 0x00, 0x12, 0xB9, 0x00, 0x14, 0x00, 0x00,
};

/*
 * VLAN 100 PCP 3, [2001:db8::1]:49153 -> [2001:db8::2]:4793, ECT(0),
 * flow label 0x12345, hop limit 64, inner bytes DE AD BE EF.
 */
static const uint8_t golden_v6[] = {
	/* Ethernet: dst, src, 802.1Q, TCI (PCP 3, VID 100), IPv6 */
	0x02, 0x00, 0x00, 0x00, 0x00, 0x02,
	0x02, 0x00, 0x00, 0x00, 0x00, 0x01,
	0x81, 0x00, 0x60, 0x64, 0x86, 0xDD,
	/* IPv6: ver 6 | tc 0x02 | flow 0x12345 */
	0x60, 0x21, 0x23, 0x45,
	/* payload length 12 | next UDP | hop limit 64 */
	0x00, 0x0C, 0x11, 0x40,
	/* src 2001:db8::1 */
	0x20, 0x01, 0x0D, 0xB8, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01,
	/* dst 2001:db8::2 */
	0x20, 0x01, 0x0D, 0xB8, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02,
	/* UDP: sport 49153, dport 4793, length 12, checksum: pseudo header
	 * 0x2DBA + 0x2DBB + 0x000C + 0x0011, UDP 0xC001 + 0x12B9 + 0x000C,
	 * data 0xDEAD + 0xBEEF; folded 0xCBF6, complement 0x3409 */
	0xC0, 0x01, 0x12, 0xB9, 0x00, 0x0C, 0x34, 0x09,
	/* inner bytes */
	0xDE, 0xAD, 0xBE, 0xEF,
};

static void
golden_v4_struct(struct uet_wire_outer *o)
{
	static const uint8_t dst[6] = { 2, 0, 0, 0, 0, 2 };
	static const uint8_t src[6] = { 2, 0, 0, 0, 0, 1 };

	uet_wire_outer_init(o, 4);
	memcpy(o->dst_mac, dst, 6);
	memcpy(o->src_mac, src, 6);
	o->dscp = 46;
	o->ipv4_id = 0x1234;
	o->src_addr[0] = 10;
	o->src_addr[3] = 1;
	o->dst_addr[0] = 10;
	o->dst_addr[3] = 2;
	o->udp_sport = 49152;
	o->inner_len = 12;
}

static void
golden_v6_struct(struct uet_wire_outer *o)
{
	static const uint8_t a[16] = { 0x20, 0x01, 0x0D, 0xB8 };

	golden_v4_struct(o);
	o->ip_version = 6;
	o->ethertype = UET_ETHERTYPE_IPV6;
	o->ipv4_id = 0;
	o->ipv4_df = false;
	o->dscp = 0;
	o->has_vlan = true;
	o->vlan_tci = 0x6064;
	o->ipv6_flow = 0x12345;
	memcpy(o->src_addr, a, 16);
	memcpy(o->dst_addr, a, 16);
	o->src_addr[15] = 1;
	o->dst_addr[15] = 2;
	o->udp_sport = 49153;
	o->inner_len = 4;
}

static void
outer_encode__golden_ipv4(void **state)
{
	struct uet_wire_outer o;
	uint8_t buf[FRAME_MAX];

	(void)state;
	golden_v4_struct(&o);
	assert_int_equal(uet_wire_outer_hdr_len(&o), sizeof(golden_v4));
	assert_int_equal(uet_wire_outer_encode(&o, buf, sizeof(buf)),
			 sizeof(golden_v4));
	assert_memory_equal(buf, golden_v4, sizeof(golden_v4));
}

static void
outer_encode__golden_ipv6(void **state)
{
	struct uet_wire_outer o;
	uint8_t buf[FRAME_MAX];
	size_t hl = sizeof(golden_v6) - 4;

	(void)state;
	golden_v6_struct(&o);
	assert_int_equal(uet_wire_outer_encode(&o, buf, sizeof(buf)), hl);
	memcpy(buf + hl, golden_v6 + hl, 4);
	assert_int_equal(uet_wire_outer_udp_csum_fill(&o, buf, sizeof(golden_v6)),
			 0);
	assert_memory_equal(buf, golden_v6, sizeof(golden_v6));
}

static void
outer_decode__golden_ipv4(void **state)
{
	uint8_t frame[sizeof(golden_v4) + 12] = { 0 };
	struct uet_wire_outer o;

	(void)state;
	memcpy(frame, golden_v4, sizeof(golden_v4));
	assert_int_equal(uet_wire_outer_decode(frame, sizeof(frame), &o), 42);
	assert_int_equal(o.ip_version, 4);
	assert_int_equal(o.ethertype, UET_ETHERTYPE_IPV4);
	assert_int_equal(o.dscp, 46);
	assert_int_equal(o.ecn, UET_ECN_ECT0);
	assert_int_equal(o.ttl, 64);
	assert_int_equal(o.ipv4_id, 0x1234);
	assert_true(o.ipv4_df);
	assert_int_equal(o.ip_total_len, 40);
	assert_int_equal(o.ipv4_csum, 0x13D5);
	assert_int_equal(o.udp_sport, 49152);
	assert_int_equal(uet_wire_outer_ev_get(&o), 49152);
	assert_int_equal(o.udp_dport, UET_UDP_PORT);
	assert_int_equal(o.udp_len, 20);
	assert_int_equal(o.inner_len, 12);
	assert_int_equal(o.hdr_len, 42);
	assert_false(o.native);
}

static void
outer_decode__golden_ipv6(void **state)
{
	struct uet_wire_outer o;

	(void)state;
	assert_int_equal(uet_wire_outer_decode(golden_v6, sizeof(golden_v6), &o),
			 sizeof(golden_v6) - 4);
	assert_true(o.has_vlan);
	assert_int_equal(o.vlan_tci, 0x6064);
	assert_int_equal(o.ip_version, 6);
	assert_int_equal(o.ecn, UET_ECN_ECT0);
	assert_int_equal(o.ipv6_flow, 0x12345);
	assert_int_equal(o.udp_csum, 0x3409);
	assert_int_equal(o.inner_len, 4);
	assert_int_equal(o.src_addr[15], 1);
	assert_int_equal(o.dst_addr[15], 2);
}

/* ------------------------------------------------------------------ */
/* Random round trips                                                  */
/* ------------------------------------------------------------------ */

static uint8_t
random_native_proto(void)
{
	uint8_t p;

	do {
		p = (uint8_t)rng();
	} while (p == 0 || p == UET_IPPROTO_UDP || p == 43 || p == 44 ||
		 p == 60);
	return p;
}

static void
random_outer(struct uet_wire_outer *o, unsigned int version, bool vlan,
	     bool native)
{
	uet_wire_outer_init(o, version);
	rng_bytes(o->dst_mac, 6);
	rng_bytes(o->src_mac, 6);
	o->has_vlan = vlan;
	o->vlan_tci = vlan ? (uint16_t)rng() : 0;
	o->dscp = rng() & 0x3F;
	o->ecn = rng() & 3;
	o->ttl = (uint8_t)rng();
	rng_bytes(o->src_addr, version == 4 ? 4 : 16);
	rng_bytes(o->dst_addr, version == 4 ? 4 : 16);
	if (version == 4) {
		o->ipv4_id = (uint16_t)rng();
		o->ipv4_df = rng() & 1;
	} else {
		o->ipv6_flow = rng() & 0xFFFFF;
	}
	o->native = native;
	if (native) {
		o->ip_proto = random_native_proto();
		o->entropy = (uint16_t)rng();
		o->udp_dport = 0;
	} else {
		o->udp_sport = (uint16_t)rng();
	}
	o->inner_len = rng() % 64;
}

/* Encode @p o with random inner bytes, decode, compare; returns length. */
static size_t
round_trip(const struct uet_wire_outer *o, uint8_t *frame)
{
	struct uet_wire_outer_opts opts = { .raw_ip = o->raw_ip };
	struct uet_wire_outer d;
	int hl;

	if (o->native)
		opts.native_proto = o->ip_proto;
	hl = uet_wire_outer_encode(o, frame, FRAME_MAX);
	assert_int_equal(hl, uet_wire_outer_hdr_len(o));
	rng_bytes(frame + hl, o->inner_len);
	assert_int_equal(uet_wire_outer_udp_csum_fill(o, frame, FRAME_MAX), 0);
	assert_int_equal(uet_wire_outer_decode_ex(frame, (size_t)hl + o->inner_len,
					     &opts, &d), hl);
	assert_outer_equal(o, &d);
	assert_int_equal(d.hdr_len, hl);
	return (size_t)hl + o->inner_len;
}

static void
outer__round_trip_random(void **state)
{
	uint8_t frame[FRAME_MAX];
	struct uet_wire_outer o;
	int i;

	(void)state;
	for (i = 0; i < 400; i++) {
		random_outer(&o, i & 1 ? 6 : 4, i & 2, i & 4);
		if ((i & 24) == 24) {
			/* raw IP: nothing of Ethernet survives */
			o.raw_ip = true;
			o.has_vlan = false;
			o.vlan_tci = 0;
			memset(o.dst_mac, 0, 6);
			memset(o.src_mac, 0, 6);
		}
		round_trip(&o, frame);
	}
}

/* Every prefix of a valid frame is rejected as truncated. */
static void
outer_decode__every_truncation(void **state)
{
	uint8_t frame[FRAME_MAX];
	struct uet_wire_outer o, d;
	struct uet_wire_outer_opts opts = { 0 };
	size_t n, len;
	int i;

	(void)state;
	for (i = 0; i < 8; i++) {
		random_outer(&o, i & 1 ? 6 : 4, i & 2, i & 4);
		o.inner_len = 8;
		opts.native_proto = o.native ? o.ip_proto : 0;
		len = round_trip(&o, frame);
		for (n = 0; n < len; n++)
			assert_int_equal(uet_wire_outer_decode_ex(frame, n, &opts,
							     &d),
					 -UET_WIRE_E_TRUNCATED);
	}
}

/* Link padding after the IP datagram is ignored. */
static void
outer_decode__padding_ignored(void **state)
{
	uint8_t frame[60] = { 0 };
	struct uet_wire_outer o;

	(void)state;
	memcpy(frame, golden_v4, sizeof(golden_v4));
	assert_int_equal(uet_wire_outer_decode(frame, sizeof(frame), &o), 42);
	assert_int_equal(o.inner_len, 12);
}

/* ------------------------------------------------------------------ */
/* Rejections                                                          */
/* ------------------------------------------------------------------ */

/* Golden IPv4 frame with one byte changed; the buffer has room for a
 * 60-byte IPv4 header to reseal, the decoder sees 54 bytes. */
static int
decode_v4_edit(size_t at, uint8_t val, bool reseal)
{
	uint8_t frame[FRAME_MAX] = { 0 };
	struct uet_wire_outer o;

	memcpy(frame, golden_v4, sizeof(golden_v4));
	frame[at] = val;
	if (reseal)
		ipv4_reseal(frame + 14);
	return uet_wire_outer_decode(frame, sizeof(golden_v4) + 12, &o);
}

static void
outer_decode__bad_checksum(void **state)
{
	uint8_t frame[sizeof(golden_v6)];
	struct uet_wire_outer o;

	(void)state;
	assert_int_equal(decode_v4_edit(25, 0xD6, false),
			 -UET_WIRE_E_BAD_CHECKSUM);
	/* a header field changed under a stale checksum */
	assert_int_equal(decode_v4_edit(22, 0x3F, false),
			 -UET_WIRE_E_BAD_CHECKSUM);
	memcpy(frame, golden_v6, sizeof(frame));
	frame[sizeof(frame) - 1] ^= 1; /* payload bit: UDP checksum */
	assert_int_equal(uet_wire_outer_decode(frame, sizeof(frame), &o),
			 -UET_WIRE_E_BAD_CHECKSUM);
	frame[sizeof(frame) - 1] ^= 1;
	frame[sizeof(frame) - 5] ^= 0x10; /* the checksum itself */
	assert_int_equal(uet_wire_outer_decode(frame, sizeof(frame), &o),
			 -UET_WIRE_E_BAD_CHECKSUM);
	/* a zero UDP checksum is accepted over IPv6 (RFC 6936) */
	frame[sizeof(frame) - 6] = 0;
	frame[sizeof(frame) - 5] = 0;
	assert_int_equal(uet_wire_outer_decode(frame, sizeof(frame), &o),
			 sizeof(frame) - 4);
}

static void
outer_decode__bad_ethertype(void **state)
{
	uint8_t frame[sizeof(golden_v6)];
	struct uet_wire_outer o;

	(void)state;
	assert_int_equal(decode_v4_edit(12, 0x86, false),
			 -UET_WIRE_E_BAD_ETHERTYPE); /* 0x8600 */
	assert_int_equal(decode_v4_edit(13, 0x06, false),
			 -UET_WIRE_E_BAD_ETHERTYPE); /* ARP */
	memcpy(frame, golden_v6, sizeof(frame));
	frame[12] = 0x88; /* QinQ outer tag */
	frame[13] = 0xA8;
	assert_int_equal(uet_wire_outer_decode(frame, sizeof(frame), &o),
			 -UET_WIRE_E_BAD_ETHERTYPE);
	memcpy(frame, golden_v6, sizeof(frame));
	frame[16] = 0x81; /* stacked 802.1Q */
	frame[17] = 0x00;
	assert_int_equal(uet_wire_outer_decode(frame, sizeof(frame), &o),
			 -UET_WIRE_E_BAD_ETHERTYPE);
	memcpy(frame, golden_v6, sizeof(frame));
	frame[16] = 0x08; /* says IPv4, carries IPv6 */
	frame[17] = 0x00;
	assert_int_equal(uet_wire_outer_decode(frame, sizeof(frame), &o),
			 -UET_WIRE_E_BAD_IP);
}

static void
outer_decode__not_uet(void **state)
{
	uint8_t frame[sizeof(golden_v6)];
	struct uet_wire_outer o;

	(void)state;
	assert_int_equal(decode_v4_edit(37, 0xBA, false),
			 -UET_WIRE_E_NOT_UET); /* dport 4794 */
	assert_int_equal(decode_v4_edit(23, 6, true),
			 -UET_WIRE_E_NOT_UET); /* TCP */
	memcpy(frame, golden_v6, sizeof(frame));
	frame[24] = 6;
	assert_int_equal(uet_wire_outer_decode(frame, sizeof(frame), &o),
			 -UET_WIRE_E_NOT_UET);
	frame[24] = 44; /* fragment extension header */
	assert_int_equal(uet_wire_outer_decode(frame, sizeof(frame), &o),
			 -UET_WIRE_E_UNSUPPORTED);
}

static void
outer_decode__bad_ip(void **state)
{
	(void)state;
	assert_int_equal(decode_v4_edit(14, 0x44, true), -UET_WIRE_E_BAD_IP);
	assert_int_equal(decode_v4_edit(14, 0x40, false), -UET_WIRE_E_BAD_IP);
	assert_int_equal(decode_v4_edit(14, 0x55, true), -UET_WIRE_E_BAD_IP);
	assert_int_equal(decode_v4_edit(14, 0x65, true), -UET_WIRE_E_BAD_IP);
	/* IHL 15: 60 header bytes, the frame has 38 after Ethernet */
	assert_int_equal(decode_v4_edit(14, 0x4F, true),
			 -UET_WIRE_E_TRUNCATED);
}

static void
outer_decode__ipv4_options_skipped(void **state)
{
	uint8_t frame[64] = { 0 };
	struct uet_wire_outer o;

	(void)state;
	/* Insert 4 bytes of options (NOP NOP NOP EOL) after the fixed part. */
	memcpy(frame, golden_v4, 34);
	frame[34] = 1;
	frame[35] = 1;
	frame[36] = 1;
	frame[37] = 0;
	memcpy(frame + 38, golden_v4 + 34, 8);
	frame[14] = 0x46;
	frame[17] = 44; /* total length 40 + 4 */
	ipv4_reseal(frame + 14);
	assert_int_equal(uet_wire_outer_decode(frame, 46 + 12, &o), 46);
	assert_int_equal(o.ip_hlen, 24);
	assert_int_equal(o.inner_len, 12);
}

static void
outer_decode__fragment(void **state)
{
	(void)state;
	assert_int_equal(decode_v4_edit(20, 0x60, true),
			 -UET_WIRE_E_UNSUPPORTED); /* DF + MF */
	assert_int_equal(decode_v4_edit(21, 0x01, true),
			 -UET_WIRE_E_UNSUPPORTED); /* offset 1 */
	assert_int_equal(decode_v4_edit(20, 0xC0, true),
			 -UET_WIRE_E_RESERVED); /* reserved flag */
}

static void
outer_decode__inconsistent_lengths(void **state)
{
	(void)state;
	/* IP total 19 < header 20 */
	assert_int_equal(decode_v4_edit(17, 19, true),
			 -UET_WIRE_E_BAD_LENGTH);
	/* IP total 80 > the 54 captured bytes after Ethernet */
	assert_int_equal(decode_v4_edit(17, 80, true),
			 -UET_WIRE_E_TRUNCATED);
	/* IP total 36: UDP length 20 > IP payload 16, no trim DSCP: a
	 * short frame */
	assert_int_equal(decode_v4_edit(17, 36, true),
			 -UET_WIRE_E_TRUNCATED);
	/* UDP length 16 < IP payload 20 */
	assert_int_equal(decode_v4_edit(39, 16, false),
			 -UET_WIRE_E_BAD_LENGTH);
	/* UDP length 7 */
	assert_int_equal(decode_v4_edit(39, 7, false),
			 -UET_WIRE_E_BAD_LENGTH);
	/* IP total 27: 7 bytes of IP payload cannot hold UDP */
	assert_int_equal(decode_v4_edit(17, 27, true),
			 -UET_WIRE_E_TRUNCATED);
}

/* uet_wire_outer_frame_trim(): what it refuses, and what it leaves alone. */
static void
outer_frame_trim__errors_and_udp_kept(void **state)
{
	uint8_t frame[FRAME_MAX], udp[UET_UDP_HLEN];
	struct uet_wire_outer o, d;
	int hl;

	(void)state;
	uet_wire_outer_init(&o, 4);
	o.inner_len = 100;
	hl = uet_wire_outer_encode(&o, frame, sizeof(frame));
	assert_int_equal(uet_wire_outer_decode(frame, (size_t)hl + 100, &d), hl);
	memcpy(udp, frame + hl - UET_UDP_HLEN, sizeof(udp));
	assert_int_equal(uet_wire_outer_frame_trim(&d, frame, (size_t)hl + 100, 100,
					      16, true),
			 -UET_WIRE_E_BAD_FIELD);
	assert_int_equal(uet_wire_outer_frame_trim(&d, frame, (size_t)hl + 100, 12,
					      64, true),
			 -UET_WIRE_E_BAD_FIELD);
	assert_int_equal(uet_wire_outer_frame_trim(&d, frame, (size_t)hl + 100, 12,
					      16, true), hl + 12);
	/* UDP header as it was; IP header valid with the new length */
	assert_memory_equal(frame + hl - UET_UDP_HLEN, udp, sizeof(udp));
	assert_int_equal(uet_wire_outer_ip_decode(frame + UET_ETH_HLEN,
					     (size_t)hl + 12 - UET_ETH_HLEN,
					     0, &d), UET_IPV4_HLEN);
	assert_int_equal(d.ip_total_len, hl + 12 - UET_ETH_HLEN);
	assert_int_equal(d.dscp, 16);
	o.native = true;
	o.ip_proto = UET_NATIVE_IP_PROTO_DEFAULT;
	hl = uet_wire_outer_encode(&o, frame, sizeof(frame));
	assert_int_equal(uet_wire_outer_decode(frame, (size_t)hl + 100, &d), hl);
	assert_int_equal(uet_wire_outer_frame_trim(&d, frame, (size_t)hl + 100, 12,
					      16, true),
			 -UET_WIRE_E_UNSUPPORTED);
}

static void
outer_decode__native(void **state)
{
	uint8_t frame[FRAME_MAX];
	struct uet_wire_outer_opts opts = { .native_proto = 0 };
	struct uet_wire_outer o, d;
	int hl;

	(void)state;
	uet_wire_outer_init(&o, 4);
	o.native = true;
	o.ip_proto = UET_NATIVE_IP_PROTO_DEFAULT;
	o.udp_dport = 0;
	o.entropy = 0xBEEF;
	o.inner_len = 12;
	hl = uet_wire_outer_encode(&o, frame, sizeof(frame));
	assert_int_equal(hl, 14 + 20 + 4);
	memset(frame + hl, 0, 12);
	assert_int_equal(uet_wire_outer_decode_ex(frame, 50, &opts, &d), hl);
	assert_true(d.native);
	assert_int_equal(uet_wire_outer_ev_get(&d), 0xBEEF);
	/* another protocol number is not UET unless configured */
	opts.native_proto = 254;
	assert_int_equal(uet_wire_outer_decode_ex(frame, 50, &opts, &d),
			 -UET_WIRE_E_NOT_UET);
	frame[hl - 1] = 1; /* entropy header rsvd */
	assert_int_equal(uet_wire_outer_decode(frame, 50, &d),
			 -UET_WIRE_E_RESERVED);
}

static void
outer_encode__errors(void **state)
{
	uint8_t buf[FRAME_MAX];
	struct uet_wire_outer o;

	(void)state;
	golden_v4_struct(&o);
	assert_int_equal(uet_wire_outer_encode(&o, buf, 41), -UET_WIRE_E_NOSPACE);
	o.dscp = 64;
	assert_int_equal(uet_wire_outer_encode(&o, buf, sizeof(buf)),
			 -UET_WIRE_E_BAD_FIELD);
	golden_v4_struct(&o);
	o.ecn = 4;
	assert_int_equal(uet_wire_outer_encode(&o, buf, sizeof(buf)),
			 -UET_WIRE_E_BAD_FIELD);
	golden_v4_struct(&o);
	o.ip_version = 5;
	assert_int_equal(uet_wire_outer_encode(&o, buf, sizeof(buf)),
			 -UET_WIRE_E_BAD_FIELD);
	golden_v6_struct(&o);
	o.ipv6_flow = 0x100000;
	assert_int_equal(uet_wire_outer_encode(&o, buf, sizeof(buf)),
			 -UET_WIRE_E_BAD_FIELD);
	golden_v4_struct(&o);
	o.inner_len = UINT16_MAX - 27;
	assert_int_equal(uet_wire_outer_encode(&o, buf, sizeof(buf)),
			 -UET_WIRE_E_BAD_LENGTH);
	golden_v4_struct(&o);
	o.native = true;
	assert_int_equal(uet_wire_outer_encode(&o, buf, sizeof(buf)),
			 -UET_WIRE_E_BAD_COMBINATION);
}

/* ------------------------------------------------------------------ */
/* In-place rewrites                                                   */
/* ------------------------------------------------------------------ */

static void
outer_frame__rewrite_v4(void **state)
{
	uint8_t frame[sizeof(golden_v4) + 12] = { 0 };
	struct uet_wire_outer o, d;

	(void)state;
	memcpy(frame, golden_v4, sizeof(golden_v4));
	assert_int_equal(uet_wire_outer_decode(frame, sizeof(frame), &o), 42);
	assert_int_equal(uet_wire_outer_frame_dscp_set(&o, frame, sizeof(frame),
						  16), 0);
	assert_int_equal(uet_wire_outer_frame_ecn_set(&o, frame, sizeof(frame),
						 UET_ECN_CE), 0);
	assert_int_equal(uet_wire_outer_frame_ev_set(&o, frame, sizeof(frame),
						0xABCD), 0);
	assert_int_equal(uet_wire_outer_decode(frame, sizeof(frame), &d), 42);
	assert_int_equal(d.dscp, 16);
	assert_int_equal(d.ecn, UET_ECN_CE);
	assert_int_equal(d.udp_sport, 0xABCD);
	assert_int_equal(uet_wire_outer_frame_dscp_set(&o, frame, sizeof(frame),
						  64), -UET_WIRE_E_BAD_FIELD);
	assert_int_equal(uet_wire_outer_frame_ecn_set(&o, frame, sizeof(frame),
						 4), -UET_WIRE_E_BAD_FIELD);
	assert_int_equal(uet_wire_outer_frame_dscp_set(&o, frame, 20, 1),
			 -UET_WIRE_E_TRUNCATED);
}

static void
outer_frame__rewrite_v6_keeps_checksum(void **state)
{
	uint8_t frame[sizeof(golden_v6)];
	struct uet_wire_outer o, d;
	int i;

	(void)state;
	memcpy(frame, golden_v6, sizeof(frame));
	assert_int_equal(uet_wire_outer_decode(frame, sizeof(frame), &o), 66);
	for (i = 0; i < 64; i++) {
		uint16_t ev = (uint16_t)rng();

		assert_int_equal(uet_wire_outer_frame_ev_set(&o, frame,
							sizeof(frame), ev), 0);
		assert_int_equal(uet_wire_outer_frame_dscp_set(&o, frame,
				 sizeof(frame), (uint8_t)(i & 63)), 0);
		assert_int_equal(uet_wire_outer_decode(frame, sizeof(frame), &d),
				 66);
		assert_int_equal(d.udp_sport, ev);
		assert_int_equal(d.dscp, i & 63);
		assert_int_equal(d.ecn, UET_ECN_ECT0);
		assert_int_equal(d.ipv6_flow, 0x12345);
	}
}

static void
outer_frame__rewrite_native_ev(void **state)
{
	uint8_t frame[FRAME_MAX];
	struct uet_wire_outer o, d;
	int hl;

	(void)state;
	uet_wire_outer_init(&o, 6);
	o.native = true;
	o.ip_proto = UET_NATIVE_IP_PROTO_DEFAULT;
	o.udp_dport = 0;
	hl = uet_wire_outer_encode(&o, frame, sizeof(frame));
	assert_int_equal(uet_wire_outer_frame_ev_set(&o, frame, (size_t)hl, 77), 0);
	assert_int_equal(uet_wire_outer_decode(frame, (size_t)hl, &d), hl);
	assert_int_equal(uet_wire_outer_ev_get(&d), 77);
	uet_wire_outer_ev_set(&d, 78);
	assert_int_equal(d.entropy, 78);
}

/* A template writes the bytes uet_wire_outer_encode() writes, for IPv4/IPv6,
 * UDP/native, with and without a VLAN tag, over random per-frame fields. */
static void
outer_tpl__matches_encode(void **state)
{
	uint8_t want[FRAME_MAX], got[FRAME_MAX];
	struct uet_wire_outer_tpl t;
	struct uet_wire_outer o, d;
	unsigned int i;

	(void)state;
	for (i = 0; i < 4000; i++) {
		uint16_t inner = (uint16_t)(rng() % (i % 3 ? 9000 : 100));
		uint8_t dscp = (uint8_t)(rng() % 64), ecn = (uint8_t)(rng() % 4);
		uint16_t ev = (uint16_t)rng();
		int hl;

		uet_wire_outer_init(&o, i & 1 ? 6 : 4);
		rng_bytes(o.src_mac, 6);
		rng_bytes(o.dst_mac, 6);
		rng_bytes(o.src_addr, o.ip_version == 4 ? 4 : 16);
		rng_bytes(o.dst_addr, o.ip_version == 4 ? 4 : 16);
		o.has_vlan = (i >> 1) & 1;
		o.vlan_tci = (uint16_t)rng();
		o.ttl = (uint8_t)rng();
		o.ipv4_id = (uint16_t)rng();
		o.ipv4_df = (i >> 3) & 1;
		o.ipv6_flow = rng() & 0xFFFFF;
		if ((i >> 2) & 1) {
			o.native = true;
			o.ip_proto = UET_NATIVE_IP_PROTO_DEFAULT;
		}
		/* per-frame fields of the template struct are ignored */
		o.dscp = (uint8_t)(rng() % 64);
		o.inner_len = (uint16_t)rng() % 100;
		assert_int_equal(uet_wire_outer_tpl_init(&t, &o), 0);
		o.dscp = dscp;
		o.ecn = ecn;
		o.inner_len = inner;
		uet_wire_outer_ev_set(&o, ev);
		hl = uet_wire_outer_encode(&o, want, sizeof(want));
		assert_true(hl > 0);
		memset(got, 0xA5, sizeof(got));
		assert_int_equal(uet_wire_outer_tpl_write(&t, got, inner, dscp, ecn,
						     ev), (unsigned int)hl);
		assert_memory_equal(got, want, (size_t)hl);
		/* and it decodes (IPv4 checksum right) */
		if ((size_t)hl + inner <= sizeof(got)) {
			memset(got + hl, 0, inner);
			assert_int_equal(uet_wire_outer_decode(got, (size_t)hl + inner,
							  &d), hl);
			assert_int_equal(uet_wire_outer_ev_get(&d), ev);
			assert_int_equal(d.dscp, dscp);
			assert_int_equal(d.inner_len, inner);
		}
	}
}

/* Template initialisation rejects what encoding rejects. */
static void
outer_tpl__init_errors(void **state)
{
	struct uet_wire_outer_tpl t;
	struct uet_wire_outer o;

	(void)state;
	uet_wire_outer_init(&o, 5);
	assert_int_equal(uet_wire_outer_tpl_init(&t, &o), -UET_WIRE_E_BAD_FIELD);
	uet_wire_outer_init(&o, 4);
	o.native = true;
	o.ip_proto = UET_IPPROTO_UDP;
	assert_int_equal(uet_wire_outer_tpl_init(&t, &o),
			 -UET_WIRE_E_BAD_COMBINATION);
	uet_wire_outer_init(&o, 6);
	o.ipv6_flow = 0x100000;
	assert_int_equal(uet_wire_outer_tpl_init(&t, &o), -UET_WIRE_E_BAD_FIELD);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(outer_encode__golden_ipv4),
		cmocka_unit_test(outer_encode__golden_ipv6),
		cmocka_unit_test(outer_decode__golden_ipv4),
		cmocka_unit_test(outer_decode__golden_ipv6),
		cmocka_unit_test(outer__round_trip_random),
		cmocka_unit_test(outer_decode__every_truncation),
		cmocka_unit_test(outer_decode__padding_ignored),
		cmocka_unit_test(outer_decode__bad_checksum),
		cmocka_unit_test(outer_decode__bad_ethertype),
		cmocka_unit_test(outer_decode__not_uet),
		cmocka_unit_test(outer_decode__bad_ip),
		cmocka_unit_test(outer_decode__ipv4_options_skipped),
		cmocka_unit_test(outer_decode__fragment),
		cmocka_unit_test(outer_decode__inconsistent_lengths),
		cmocka_unit_test(outer_frame_trim__errors_and_udp_kept),
		cmocka_unit_test(outer_decode__native),
		cmocka_unit_test(outer_encode__errors),
		cmocka_unit_test(outer_frame__rewrite_v4),
		cmocka_unit_test(outer_frame__rewrite_v6_keeps_checksum),
		cmocka_unit_test(outer_frame__rewrite_native_ev),
		cmocka_unit_test(outer_tpl__matches_encode),
		cmocka_unit_test(outer_tpl__init_errors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
