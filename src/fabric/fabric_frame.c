/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What a switch reads and rewrites in a frame: parsed once when a host
 * injects it (IP header, destination, the 5-tuple for ECMP, where a trim
 * would cut), then rewritten in place by the ports (ECN CE mark, DSCP,
 * trim). Only the IP header is rewritten; the UDP header is left alone,
 * as a real switch leaves it (UEC 1.0 packet trimming).
 */

#include <errno.h>
#include <string.h>

#include <rte_jhash.h>

#include <uet/uet_wire.h>

#include "fabric_private.h"

/* Bytes of IP payload a trimmed frame keeps at least (UDP + PDS prologue
 * and more: the recommended floor for trimming). */
#define FAB_TRIM_MIN_PAYLOAD 24

static uint16_t
fabric_be16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static void
fabric_be16_store(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

/* RFC 791 header checksum over hlen bytes with the checksum field zero. */
static void
fabric_ipv4_csum_fix(uint8_t *ip, unsigned int hlen)
{
	uint32_t sum = 0;
	unsigned int i;

	ip[10] = 0;
	ip[11] = 0;
	for (i = 0; i + 1 < hlen; i += 2)
		sum += fabric_be16(ip + i);
	while (sum >> 16)
		sum = (sum & 0xFFFF) + (sum >> 16);
	fabric_be16_store(ip + 10, (uint16_t)~sum);
}

static uint8_t
fabric_tos(const uint8_t *ip, unsigned int version)
{
	if (version == 4)
		return ip[1];
	return (uint8_t)((ip[0] & 0x0F) << 4 | ip[1] >> 4);
}

static void
fabric_tos_store(uint8_t *ip, const struct fabric_frame *f, uint8_t tos)
{
	if (f->ip_version == 4) {
		ip[1] = tos;
		fabric_ipv4_csum_fix(ip, f->ip_hlen);
	} else {
		ip[0] = (uint8_t)(0x60 | tos >> 4);
		ip[1] = (uint8_t)((ip[1] & 0x0F) | (tos & 0x0F) << 4);
	}
}

uint8_t
fabric_frame_dscp(const uint8_t *b, const struct fabric_frame *f)
{
	return fabric_tos(b + f->l3_off, f->ip_version) >> 2;
}

bool
fabric_frame_ecn_capable(const uint8_t *b, const struct fabric_frame *f)
{
	return (fabric_tos(b + f->l3_off, f->ip_version) & 3) != UET_ECN_NOT_ECT;
}

bool
fabric_frame_is_ctl(const struct uet_fabric *fab, const uint8_t *b,
		 const struct fabric_frame *f)
{
	uint8_t d = fabric_frame_dscp(b, f);

	return d == fab->cfg.dscp.control || d == fab->cfg.dscp.trimmed ||
	       d == fab->cfg.dscp.trimmed_lasthop;
}

void
fabric_frame_mark_ce(uint8_t *b, const struct fabric_frame *f)
{
	uint8_t *ip = b + f->l3_off;

	fabric_tos_store(ip, f, (uint8_t)(fabric_tos(ip, f->ip_version) |
				       UET_ECN_CE));
}

/*
 * Cut the frame after its PDS header, re-mark DSCP (keeping ECN) and fix
 * the IP length (and IPv4 checksum). The UDP length and checksum keep
 * their original values: the receiver recognises the trim by the DSCP
 * and by the IP payload being shorter than the UDP length.
 */
void
fabric_frame_trim(uint8_t *b, struct fabric_frame *f, uint8_t dscp)
{
	uint8_t *ip = b + f->l3_off;
	uint8_t tos = (uint8_t)(dscp << 2 | (fabric_tos(ip, f->ip_version) & 3));
	uint32_t ip_len = f->trim_len - f->l3_off;

	f->len = f->trim_len;
	if (f->ip_version == 4)
		fabric_be16_store(ip + 2, (uint16_t)ip_len);
	else
		fabric_be16_store(ip + 4, (uint16_t)(ip_len - UET_IPV6_HLEN));
	fabric_tos_store(ip, f, tos);
}

/* Where a trim cuts: after the PDS header of a UET frame, never below
 * the IP payload floor; 0 when the frame is not UET or has no valid
 * PDS type (such frames are dropped instead of trimmed). */
static uint32_t
fabric_trim_len(const struct uet_fabric *fab, const struct uet_wire_outer *o,
	     const uint8_t *b, uint32_t l4_off, uint32_t ip_end)
{
	uint8_t native = fab->cfg.native_proto ? fab->cfg.native_proto : 253;
	uint32_t pds_off, keep, floor;
	size_t pds_len;

	if (o->ip_proto == UET_IPPROTO_UDP) {
		if (ip_end < l4_off + UET_UDP_HLEN ||
		    fabric_be16(b + l4_off + 2) != UET_UDP_PORT)
			return 0;
		pds_off = l4_off + UET_UDP_HLEN;
	} else if (o->ip_proto == native) {
		pds_off = l4_off + UET_ENTROPY_HDR_LEN;
	} else {
		return 0;
	}
	if (ip_end < pds_off + UET_PDS_PROLOGUE_LEN)
		return 0;
	pds_len = uet_wire_pds_hdr_size_at(b + pds_off, ip_end - pds_off);
	if (pds_len == 0)
		return 0;
	keep = pds_off + (uint32_t)pds_len;
	floor = l4_off + FAB_TRIM_MIN_PAYLOAD;
	if (keep < floor)
		keep = floor;
	return keep < ip_end ? keep : ip_end;
}

/* Fill the 5-tuple hash: addresses, protocol and the UDP ports or the
 * native-IP entropy value (the EV decides the path). */
static void
fabric_frame_hash(const struct uet_fabric *fab, struct fabric_frame *f,
	       const struct uet_wire_outer *o, const uint8_t *b, uint32_t l4_off,
	       uint32_t ip_end)
{
	uint8_t native = fab->cfg.native_proto ? fab->cfg.native_proto : 253;
	uint32_t key[10];
	uint32_t ports = 0;

	if ((o->ip_proto == UET_IPPROTO_UDP && ip_end >= l4_off + 4) ||
	    (o->ip_proto == native && ip_end >= l4_off + 2))
		ports = (uint32_t)fabric_be16(b + l4_off) << 16 |
			(o->ip_proto == native ? 0 :
			 fabric_be16(b + l4_off + 2));
	memcpy(key, o->src_addr, 16);
	memcpy(key + 4, o->dst_addr, 16);
	key[8] = o->ip_proto;
	key[9] = ports;
	f->hash = rte_jhash_32b(key, 10, (uint32_t)fab->cfg.seed);
}

/*
 * Parse a frame a host injects. Returns 0, -EPROTO (not IP, bad IP
 * header: the frame is dropped as bad) or -EHOSTUNREACH (no host has the
 * destination address).
 */
int
fabric_frame_parse(struct uet_fabric *fab, struct fabric_frame *f,
		const uint8_t *b, uint32_t len)
{
	struct uet_wire_outer o;
	uint32_t l3 = 0, l4, ip_end;
	int r;

	memset(&o, 0, sizeof(o));
	if (!fab->cfg.raw_ip) {
		r = uet_wire_outer_eth_decode(b, len, &o);
		if (r < 0)
			return -EPROTO;
		l3 = (uint32_t)r;
	}
	r = uet_wire_outer_ip_decode(b + l3, len - l3, fab->cfg.native_proto, &o);
	if (r < 0 && r != -UET_WIRE_E_NOT_UET)
		return -EPROTO;
	l4 = l3 + o.ip_hlen;
	ip_end = l3 + o.ip_total_len;
	f->len = len;
	f->l3_off = (uint16_t)l3;
	f->ip_hlen = o.ip_hlen;
	f->ip_version = o.ip_version;
	f->dst = fabric_addr_lookup(fab, o.dst_addr);
	if (f->dst == FAB_NIL)
		return -EHOSTUNREACH;
	fabric_frame_hash(fab, f, &o, b, l4, ip_end);
	f->trim_len = fabric_trim_len(fab, &o, b, l4, ip_end);
	return 0;
}
