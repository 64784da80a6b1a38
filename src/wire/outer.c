/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Outer encapsulation (UEC 1.0): Ethernet [+802.1Q] /
 * IPv4 | IPv6 / UDP:4793 | native-IP entropy header.
 */

#include <string.h>

#include <uet/uet_wire.h>

#include "wire_be.h"

#define IPV4_F_RESERVED 0x8000u
#define IPV4_F_DF       0x4000u
#define IPV4_F_MF       0x2000u
#define IPV4_FRAG_MASK  0x1FFFu
#define IPV6_FLOW_MAX   0xFFFFFu
#define ETHERTYPE_QINQ  0x88A8u

/* IPv6 extension headers we refuse to walk (RFC 8200 section 4). */
#define IPV6_NH_HOPOPTS  0
#define IPV6_NH_ROUTING  43
#define IPV6_NH_FRAGMENT 44
#define IPV6_NH_DSTOPTS  60

/* ------------------------------------------------------------------ */
/* Internet checksum (RFC 1071)                                        */
/* ------------------------------------------------------------------ */

/*
 * Add @p n bytes to a one's complement sum, 32 bits at a time (2^16 is
 * 1 modulo 2^16 - 1, so big-endian 32-bit words sum like their 16-bit
 * halves). Returns the sum folded to 16 bits, so callers may add more.
 */
static uint32_t
csum_add(uint32_t sum, const uint8_t *p, size_t n)
{
	uint64_t s = sum;
	size_t i = 0;

	for (; i + 4 <= n; i += 4)
		s += be32_load(p + i);
	if (i + 2 <= n) {
		s += be16_load(p + i);
		i += 2;
	}
	if (i < n)
		s += (uint32_t)p[i] << 8;
	s = (s & 0xFFFFFFFFu) + (s >> 32);
	s = (s & 0xFFFFFFFFu) + (s >> 32);
	s = (s & 0xFFFF) + (s >> 16);
	s = (s & 0xFFFF) + (s >> 16);
	return (uint32_t)s;
}

static uint16_t
csum_fold(uint32_t sum)
{
	while (sum >> 16)
		sum = (sum & 0xFFFF) + (sum >> 16);
	return (uint16_t)sum;
}

/* Pseudo header sum of RFC 768 (IPv4) or RFC 8200 section 8.1 (IPv6). */
static uint32_t
csum_pseudo(const struct uet_wire_outer *o, uint16_t udp_len)
{
	uint32_t sum = 0;

	if (o->ip_version == 4) {
		sum = csum_add(sum, o->src_addr, 4);
		sum = csum_add(sum, o->dst_addr, 4);
	} else {
		sum = csum_add(sum, o->src_addr, 16);
		sum = csum_add(sum, o->dst_addr, 16);
	}
	return sum + UET_IPPROTO_UDP + udp_len;
}

/* Checksum value to store for a UDP datagram at @p udp (field zeroed). */
static uint16_t
udp_csum_compute(const struct uet_wire_outer *o, const uint8_t *udp, uint16_t ulen)
{
	uint16_t c = (uint16_t)~csum_fold(csum_add(csum_pseudo(o, ulen),
						   udp, ulen));

	return c == 0 ? 0xFFFF : c;
}

static void
ipv4_csum_store(uint8_t *ip, size_t hlen)
{
	be16_store(ip + 10, 0);
	be16_store(ip + 10, (uint16_t)~csum_fold(csum_add(0, ip, hlen)));
}

/* ------------------------------------------------------------------ */
/* Layout helpers                                                      */
/* ------------------------------------------------------------------ */

static size_t
outer_l3_off(const struct uet_wire_outer *o)
{
	if (o->raw_ip)
		return 0;
	return UET_ETH_HLEN + (o->has_vlan ? UET_VLAN_HLEN : 0);
}

static size_t
outer_ip_hlen(const struct uet_wire_outer *o)
{
	if (o->ip_hlen != 0)
		return o->ip_hlen;
	return o->ip_version == 4 ? UET_IPV4_HLEN : UET_IPV6_HLEN;
}

static size_t
outer_l4_hlen(const struct uet_wire_outer *o)
{
	return o->native ? UET_ENTROPY_HDR_LEN : UET_UDP_HLEN;
}

void
uet_wire_outer_init(struct uet_wire_outer *o, unsigned int ip_version)
{
	memset(o, 0, sizeof(*o));
	o->ip_version = (uint8_t)ip_version;
	o->ethertype = ip_version == 6 ? UET_ETHERTYPE_IPV6 :
					 UET_ETHERTYPE_IPV4;
	o->ecn = UET_ECN_ECT0;
	o->ttl = 64;
	o->ipv4_df = ip_version == 4;
	o->ip_proto = UET_IPPROTO_UDP;
	o->udp_dport = UET_UDP_PORT;
}

size_t
uet_wire_outer_hdr_len(const struct uet_wire_outer *o)
{
	size_t ip = o->ip_version == 4 ? UET_IPV4_HLEN : UET_IPV6_HLEN;

	return outer_l3_off(o) + ip + outer_l4_hlen(o);
}

/* ------------------------------------------------------------------ */
/* Encode                                                              */
/* ------------------------------------------------------------------ */

static int
outer_check(const struct uet_wire_outer *o)
{
	size_t l4 = outer_l4_hlen(o) + o->inner_len;

	if (o->ip_version != 4 && o->ip_version != 6)
		return -UET_WIRE_E_BAD_FIELD;
	if (o->dscp > 63 || o->ecn > 3 || o->ipv6_flow > IPV6_FLOW_MAX)
		return -UET_WIRE_E_BAD_FIELD;
	if (o->native && (o->ip_proto == 0 || o->ip_proto == UET_IPPROTO_UDP))
		return -UET_WIRE_E_BAD_COMBINATION;
	if (l4 + (o->ip_version == 4 ? UET_IPV4_HLEN : 0) > UINT16_MAX)
		return -UET_WIRE_E_BAD_LENGTH;
	return 0;
}

static size_t
eth_encode(const struct uet_wire_outer *o, uint8_t *p)
{
	uint16_t et = o->ip_version == 4 ? UET_ETHERTYPE_IPV4 :
					   UET_ETHERTYPE_IPV6;

	memcpy(p, o->dst_mac, UET_ETH_ALEN);
	memcpy(p + 6, o->src_mac, UET_ETH_ALEN);
	if (!o->has_vlan) {
		be16_store(p + 12, et);
		return UET_ETH_HLEN;
	}
	be16_store(p + 12, UET_ETHERTYPE_VLAN);
	be16_store(p + 14, o->vlan_tci);
	be16_store(p + 16, et);
	return UET_ETH_HLEN + UET_VLAN_HLEN;
}

static size_t
ipv4_encode(const struct uet_wire_outer *o, uint8_t *p, uint16_t l4_len)
{
	p[0] = 0x45;
	p[1] = (uint8_t)(o->dscp << 2 | o->ecn);
	be16_store(p + 2, (uint16_t)(UET_IPV4_HLEN + l4_len));
	be16_store(p + 4, o->ipv4_id);
	be16_store(p + 6, o->ipv4_df ? IPV4_F_DF : 0);
	p[8] = o->ttl;
	p[9] = o->native ? o->ip_proto : UET_IPPROTO_UDP;
	memcpy(p + 12, o->src_addr, 4);
	memcpy(p + 16, o->dst_addr, 4);
	ipv4_csum_store(p, UET_IPV4_HLEN);
	return UET_IPV4_HLEN;
}

static size_t
ipv6_encode(const struct uet_wire_outer *o, uint8_t *p, uint16_t l4_len)
{
	uint32_t tc = (uint32_t)(o->dscp << 2 | o->ecn);

	be32_store(p, 6u << 28 | tc << 20 | o->ipv6_flow);
	be16_store(p + 4, l4_len);
	p[6] = o->native ? o->ip_proto : UET_IPPROTO_UDP;
	p[7] = o->ttl;
	memcpy(p + 8, o->src_addr, 16);
	memcpy(p + 24, o->dst_addr, 16);
	return UET_IPV6_HLEN;
}

static size_t
l4_encode(const struct uet_wire_outer *o, uint8_t *p, uint16_t l4_len)
{
	if (o->native) {
		struct uet_wire_entropy_hdr eh = { .entropy = o->entropy };

		return (size_t)uet_wire_entropy_hdr_encode(&eh, p,
						      UET_ENTROPY_HDR_LEN);
	}
	be16_store(p, o->udp_sport);
	be16_store(p + 2, o->udp_dport);
	be16_store(p + 4, l4_len);
	be16_store(p + 6, 0);
	return UET_UDP_HLEN;
}

int
uet_wire_outer_encode(const struct uet_wire_outer *o, uint8_t *buf, size_t cap)
{
	uint16_t l4_len;
	size_t off = 0;
	int rc;

	rc = outer_check(o);
	if (rc < 0)
		return rc;
	if (cap < uet_wire_outer_hdr_len(o))
		return -UET_WIRE_E_NOSPACE;
	l4_len = (uint16_t)(outer_l4_hlen(o) + o->inner_len);
	if (!o->raw_ip)
		off += eth_encode(o, buf);
	if (o->ip_version == 4)
		off += ipv4_encode(o, buf + off, l4_len);
	else
		off += ipv6_encode(o, buf + off, l4_len);
	off += l4_encode(o, buf + off, l4_len);
	return (int)off;
}

int
uet_wire_outer_tpl_init(struct uet_wire_outer_tpl *t, const struct uet_wire_outer *o)
{
	struct uet_wire_outer b = *o;
	uint8_t *ip;
	int rc;

	memset(t, 0, sizeof(*t));
	b.dscp = 0;
	b.ecn = UET_ECN_NOT_ECT;
	b.inner_len = 0;
	b.ip_hlen = 0; /* a decoded struct may carry IPv4 options */
	uet_wire_outer_ev_set(&b, 0);
	rc = uet_wire_outer_encode(&b, t->bytes, sizeof(t->bytes));
	if (rc < 0)
		return rc;
	t->len = (uint8_t)rc;
	t->l3_off = (uint8_t)outer_l3_off(&b);
	t->l4_off = (uint8_t)(t->l3_off + outer_ip_hlen(&b));
	t->ip_version = b.ip_version;
	t->native = b.native;
	if (b.ip_version == 4) {
		/* sum of the header with TOS, total length and checksum 0,
		 * TOS being the low byte of the first word */
		ip = t->bytes + t->l3_off;
		be16_store(ip + 2, 0);
		be16_store(ip + 10, 0);
		t->ip_sum = csum_add(0, ip, UET_IPV4_HLEN);
	}
	return 0;
}

int
uet_wire_outer_udp_csum_fill(const struct uet_wire_outer *o, uint8_t *frame, size_t len)
{
	size_t l4 = outer_l3_off(o) + outer_ip_hlen(o);
	uint16_t ulen = (uint16_t)(UET_UDP_HLEN + o->inner_len);

	if (o->ip_version != 6 || o->native)
		return 0;
	if (len < l4 + ulen)
		return -UET_WIRE_E_TRUNCATED;
	be16_store(frame + l4 + 6, 0);
	be16_store(frame + l4 + 6, udp_csum_compute(o, frame + l4, ulen));
	return 0;
}

/* ------------------------------------------------------------------ */
/* Decode                                                              */
/* ------------------------------------------------------------------ */

int
uet_wire_outer_eth_decode(const uint8_t *buf, size_t len, struct uet_wire_outer *o)
{
	uint16_t et;
	size_t off = UET_ETH_HLEN;

	if (len < UET_ETH_HLEN)
		return -UET_WIRE_E_TRUNCATED;
	memcpy(o->dst_mac, buf, UET_ETH_ALEN);
	memcpy(o->src_mac, buf + 6, UET_ETH_ALEN);
	et = be16_load(buf + 12);
	o->raw_ip = false;
	o->has_vlan = et == UET_ETHERTYPE_VLAN;
	if (o->has_vlan) {
		if (len < UET_ETH_HLEN + UET_VLAN_HLEN)
			return -UET_WIRE_E_TRUNCATED;
		o->vlan_tci = be16_load(buf + 14);
		et = be16_load(buf + 16);
		off += UET_VLAN_HLEN;
	}
	/* Stacked tags (QinQ) are not a UET encapsulation. */
	if (et != UET_ETHERTYPE_IPV4 && et != UET_ETHERTYPE_IPV6)
		return -UET_WIRE_E_BAD_ETHERTYPE;
	o->ethertype = et;
	return (int)off;
}

static int
ip_proto_check(uint8_t proto, uint8_t native_proto, struct uet_wire_outer *o)
{
	o->ip_proto = proto;
	o->native = proto != UET_IPPROTO_UDP && proto == native_proto;
	if (proto == UET_IPPROTO_UDP || o->native)
		return 0;
	return -UET_WIRE_E_NOT_UET;
}

/*
 * An IP total length beyond the bytes present: a trimmed frame whose
 * switch left the IP length as it was (trim DSCP), else TRUNCATED.
 */
static int
ip_short_check(const struct uet_wire_outer_opts *opts, struct uet_wire_outer *o,
	       size_t len)
{
	if (o->ip_total_len <= len)
		return 0;
	if (!uet_wire_outer_is_trimmed(opts, o, len, o->ip_total_len))
		return -UET_WIRE_E_TRUNCATED;
	o->trimmed = true;
	return 0;
}

static int
ipv4_decode(const uint8_t *p, size_t len, uint8_t native_proto,
	    const struct uet_wire_outer_opts *opts, struct uet_wire_outer *o)
{
	size_t hlen = (size_t)(p[0] & 0x0F) * 4;
	uint16_t frag;
	int rc;

	if (hlen < UET_IPV4_HLEN)
		return -UET_WIRE_E_BAD_IP;
	if (len < hlen)
		return -UET_WIRE_E_TRUNCATED;
	if (csum_fold(csum_add(0, p, hlen)) != 0xFFFF)
		return -UET_WIRE_E_BAD_CHECKSUM;
	o->dscp = p[1] >> 2;
	o->ecn = p[1] & 3;
	o->ip_total_len = be16_load(p + 2);
	if (o->ip_total_len < hlen)
		return -UET_WIRE_E_BAD_LENGTH;
	rc = ip_short_check(opts, o, len);
	if (rc < 0)
		return rc;
	frag = be16_load(p + 6);
	if (frag & IPV4_F_RESERVED)
		return -UET_WIRE_E_RESERVED;
	if (frag & (IPV4_F_MF | IPV4_FRAG_MASK))
		return -UET_WIRE_E_UNSUPPORTED;
	o->ip_hlen = (uint8_t)hlen;
	o->ipv4_id = be16_load(p + 4);
	o->ipv4_df = (frag & IPV4_F_DF) != 0;
	o->ttl = p[8];
	o->ipv4_csum = be16_load(p + 10);
	memcpy(o->src_addr, p + 12, 4);
	memcpy(o->dst_addr, p + 16, 4);
	return ip_proto_check(p[9], native_proto, o);
}

static int
ipv6_decode(const uint8_t *p, size_t len, uint8_t native_proto,
	    const struct uet_wire_outer_opts *opts, struct uet_wire_outer *o)
{
	uint32_t w0;
	uint8_t nh;
	int rc;

	if (len < UET_IPV6_HLEN)
		return -UET_WIRE_E_TRUNCATED;
	w0 = be32_load(p);
	o->dscp = (uint8_t)((w0 >> 22) & 0x3F);
	o->ecn = (uint8_t)((w0 >> 20) & 3);
	o->ip_total_len = be16_load(p + 4) + (uint32_t)UET_IPV6_HLEN;
	rc = ip_short_check(opts, o, len);
	if (rc < 0)
		return rc;
	o->ip_hlen = UET_IPV6_HLEN;
	o->ipv6_flow = w0 & IPV6_FLOW_MAX;
	o->ttl = p[7];
	memcpy(o->src_addr, p + 8, 16);
	memcpy(o->dst_addr, p + 24, 16);
	nh = p[6];
	if (nh == IPV6_NH_HOPOPTS || nh == IPV6_NH_ROUTING ||
	    nh == IPV6_NH_FRAGMENT || nh == IPV6_NH_DSTOPTS) {
		o->ip_proto = nh;
		return -UET_WIRE_E_UNSUPPORTED;
	}
	return ip_proto_check(nh, native_proto, o);
}

static int
outer_ip_decode(const uint8_t *buf, size_t len, uint8_t native_proto,
		const struct uet_wire_outer_opts *opts, struct uet_wire_outer *o)
{
	int rc;

	if (len < 1)
		return -UET_WIRE_E_TRUNCATED;
	if (native_proto == 0)
		native_proto = UET_NATIVE_IP_PROTO_DEFAULT;
	o->ip_version = buf[0] >> 4;
	/* Check the version against the ethertype before trusting it. */
	if (o->ethertype != 0 && o->ethertype != (o->ip_version == 4 ?
			UET_ETHERTYPE_IPV4 : UET_ETHERTYPE_IPV6))
		return -UET_WIRE_E_BAD_IP;
	if (o->ip_version == 4)
		rc = ipv4_decode(buf, len, native_proto, opts, o);
	else if (o->ip_version == 6)
		rc = ipv6_decode(buf, len, native_proto, opts, o);
	else
		rc = -UET_WIRE_E_BAD_IP;
	return rc < 0 ? rc : o->ip_hlen;
}

int
uet_wire_outer_ip_decode(const uint8_t *buf, size_t len, uint8_t native_proto,
		    struct uet_wire_outer *o)
{
	return outer_ip_decode(buf, len, native_proto, NULL, o);
}

/* IP payload bytes present (a trimmed frame has fewer than announced). */
static size_t
outer_ip_avail(const struct uet_wire_outer *o, size_t len)
{
	size_t end = o->ip_total_len < len ? o->ip_total_len : len;

	return end - o->ip_hlen;
}

/* UDP length against the @p len IP payload bytes present: equal, or
 * longer in a trimmed frame (which may also be trimmed at the IP
 * layer already). */
static int
udp_len_check(const struct uet_wire_outer_opts *opts, struct uet_wire_outer *o,
	      size_t len)
{
	if (o->udp_len < UET_UDP_HLEN)
		return -UET_WIRE_E_BAD_LENGTH;
	if (o->udp_len > len) {
		if (!o->trimmed && !uet_wire_outer_is_trimmed(opts, o, len,
							 o->udp_len))
			return -UET_WIRE_E_TRUNCATED;
		o->trimmed = true;
		return 0;
	}
	return o->udp_len == len && !o->trimmed ? 0 : -UET_WIRE_E_BAD_LENGTH;
}

static int
udp_decode(const uint8_t *p, size_t len, const struct uet_wire_outer_opts *opts,
	   struct uet_wire_outer *o)
{
	int rc;

	if (len < UET_UDP_HLEN)
		return -UET_WIRE_E_TRUNCATED;
	o->udp_sport = be16_load(p);
	o->udp_dport = be16_load(p + 2);
	o->udp_len = be16_load(p + 4);
	o->udp_csum = be16_load(p + 6);
	/* Port first: other UDP traffic is "not UET", not "malformed". */
	if (o->udp_dport != UET_UDP_PORT)
		return -UET_WIRE_E_NOT_UET;
	rc = udp_len_check(opts, o, len);
	if (rc < 0)
		return rc;
	/* A trimmed frame's checksum covers bytes that are gone. */
	if (o->udp_csum != 0 && !o->trimmed &&
	    (opts == NULL || !opts->no_udp_csum) &&
	    csum_fold(csum_add(csum_pseudo(o, o->udp_len), p,
			       o->udp_len)) != 0xFFFF)
		return -UET_WIRE_E_BAD_CHECKSUM;
	o->inner_len = (uint16_t)((o->trimmed ? len : o->udp_len) -
				  UET_UDP_HLEN);
	return UET_UDP_HLEN;
}

static int
outer_l4_decode(const uint8_t *buf, size_t len,
		const struct uet_wire_outer_opts *opts, struct uet_wire_outer *o)
{
	struct uet_wire_entropy_hdr eh;
	int rc;

	if (!o->native)
		return udp_decode(buf, len, opts, o);
	rc = uet_wire_entropy_hdr_decode(buf, len, &eh);
	if (rc < 0)
		return rc;
	o->entropy = eh.entropy;
	o->inner_len = (uint16_t)(len - UET_ENTROPY_HDR_LEN);
	return rc;
}

int
uet_wire_outer_l4_decode(const uint8_t *buf, size_t len, struct uet_wire_outer *o)
{
	return outer_l4_decode(buf, len, NULL, o);
}

int
uet_wire_outer_l4_decode_ex(const uint8_t *buf, size_t len,
		       const struct uet_wire_outer_opts *opts, struct uet_wire_outer *o)
{
	return outer_l4_decode(buf, len, opts, o);
}

int
uet_wire_outer_ip_decode_ex(const uint8_t *buf, size_t len,
		       const struct uet_wire_outer_opts *opts, struct uet_wire_outer *o)
{
	return outer_ip_decode(buf, len, opts != NULL ? opts->native_proto : 0,
			       opts, o);
}

size_t
uet_wire_outer_ip_avail(const struct uet_wire_outer *o, size_t len)
{
	return outer_ip_avail(o, len);
}

int
uet_wire_outer_decode(const uint8_t *buf, size_t len, struct uet_wire_outer *o)
{
	return uet_wire_outer_decode_ex(buf, len, NULL, o);
}

int
uet_wire_outer_decode_ex(const uint8_t *buf, size_t len,
		    const struct uet_wire_outer_opts *opts, struct uet_wire_outer *o)
{
	uint8_t proto = opts != NULL ? opts->native_proto : 0;
	size_t off = 0;
	int rc;

	memset(o, 0, sizeof(*o));
	if (opts != NULL && opts->raw_ip) {
		o->raw_ip = true;
	} else {
		rc = uet_wire_outer_eth_decode(buf, len, o);
		if (rc < 0)
			return rc;
		off = (size_t)rc;
	}
	rc = outer_ip_decode(buf + off, len - off, proto, opts, o);
	if (rc < 0)
		return rc;
	o->ethertype = o->ip_version == 4 ? UET_ETHERTYPE_IPV4 :
					    UET_ETHERTYPE_IPV6;
	rc = outer_l4_decode(buf + off + o->ip_hlen,
			     outer_ip_avail(o, len - off), opts, o);
	if (rc < 0)
		return rc;
	o->hdr_len = (uint16_t)(off + o->ip_hlen + (size_t)rc);
	return o->hdr_len;
}

/* ------------------------------------------------------------------ */
/* In-place rewrites                                                   */
/* ------------------------------------------------------------------ */

static int
frame_tos_store(struct uet_wire_outer *o, uint8_t *frame, size_t len)
{
	size_t l3 = outer_l3_off(o);
	size_t hlen = outer_ip_hlen(o);
	uint8_t *ip = frame + l3;
	uint8_t tos = (uint8_t)(o->dscp << 2 | o->ecn);

	if (len < l3 + hlen)
		return -UET_WIRE_E_TRUNCATED;
	if (o->ip_version == 4) {
		ip[1] = tos;
		ipv4_csum_store(ip, hlen);
	} else {
		ip[0] = (uint8_t)(0x60 | tos >> 4);
		ip[1] = (uint8_t)((tos & 0x0F) << 4 | (ip[1] & 0x0F));
	}
	return 0;
}

int
uet_wire_outer_frame_dscp_set(struct uet_wire_outer *o, uint8_t *frame, size_t len,
			 uint8_t dscp)
{
	if (dscp > 63)
		return -UET_WIRE_E_BAD_FIELD;
	if (len < outer_l3_off(o) + outer_ip_hlen(o))
		return -UET_WIRE_E_TRUNCATED;
	o->dscp = dscp;
	return frame_tos_store(o, frame, len);
}

int
uet_wire_outer_frame_ecn_set(struct uet_wire_outer *o, uint8_t *frame, size_t len,
			uint8_t ecn)
{
	if (ecn > 3)
		return -UET_WIRE_E_BAD_FIELD;
	if (len < outer_l3_off(o) + outer_ip_hlen(o))
		return -UET_WIRE_E_TRUNCATED;
	o->ecn = ecn;
	return frame_tos_store(o, frame, len);
}

int
uet_wire_outer_frame_ev_set(struct uet_wire_outer *o, uint8_t *frame, size_t len,
		       uint16_t ev)
{
	size_t off = outer_l3_off(o) + outer_ip_hlen(o);
	uint8_t *l4;
	uint16_t old, c;
	uint32_t sum;

	if (len < off + outer_l4_hlen(o))
		return -UET_WIRE_E_TRUNCATED;
	l4 = frame + off;
	old = be16_load(l4);
	be16_store(l4, ev);
	uet_wire_outer_ev_set(o, ev);
	c = o->native ? 0 : be16_load(l4 + 6);
	if (c == 0)
		return 0;
	/* Incremental update, RFC 1624 eqn. 3: HC' = ~(~HC + ~m + m'). */
	sum = (uint32_t)(uint16_t)~c + (uint16_t)~old + ev;
	c = (uint16_t)~csum_fold(sum);
	be16_store(l4 + 6, c == 0 ? 0xFFFF : c);
	o->udp_csum = be16_load(l4 + 6);
	return 0;
}

/*
 * A trimming switch (UEC 1.0 packet trimming): the packet is cut after
 * @p keep bytes of UET data, the DSCP re-marked, the IP length fixed at
 * most. The UDP header is not touched, so its length and checksum keep
 * describing the original (which is what tells the receiver).
 */
int
uet_wire_outer_frame_trim(struct uet_wire_outer *o, uint8_t *frame, size_t len,
		     size_t keep, uint8_t dscp, bool fix_ip_len)
{
	size_t l3 = outer_l3_off(o), hlen = outer_ip_hlen(o);
	size_t new_len = (size_t)o->hdr_len + keep;
	uint8_t *ip = frame + l3;
	int rc;

	if (o->native)
		return -UET_WIRE_E_UNSUPPORTED;
	if (dscp > 63 || keep >= o->inner_len)
		return -UET_WIRE_E_BAD_FIELD;
	if (len < new_len || o->hdr_len < l3 + hlen)
		return -UET_WIRE_E_TRUNCATED;
	if (fix_ip_len) {
		if (o->ip_version == 4)
			be16_store(ip + 2, (uint16_t)(new_len - l3));
		else
			be16_store(ip + 4, (uint16_t)(new_len - l3 - hlen));
		o->ip_total_len = (uint32_t)(new_len - l3);
	}
	o->dscp = dscp;
	rc = frame_tos_store(o, frame, len); /* IPv4: checksum recomputed */
	if (rc < 0)
		return rc;
	o->inner_len = (uint16_t)keep;
	o->trimmed = true;
	return (int)new_len;
}
