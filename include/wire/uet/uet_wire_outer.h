/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef UET_WIRE_OUTER_H
#define UET_WIRE_OUTER_H

/**
 * @file
 * Outer encapsulation of UET packets (UEC 1.0):
 * Ethernet (at most one 802.1Q tag) / IPv4 or IPv6 / UDP to port 4793, or
 * the native-IP mode where the IP payload starts with the 4-byte entropy
 * header `entropy(16) rsvd(16)` (UET_ENTROPY_HDR_LEN, codec in
 * uet_wire_pds.h). A frame may also start directly at the IP
 * header ("raw IP", as in DLT_RAW captures).
 *
 * Checksum decisions:
 *  - IPv4 header checksum: always written; verified on decode.
 *  - UDP checksum over IPv4: written as 0 (allowed by RFC 768).
 *  - UDP checksum over IPv6: required by RFC 8200, so it is computed; the
 *    encoder cannot see the payload, so it writes 0 and the caller fills it
 *    with uet_wire_outer_udp_csum_fill() once the payload is in place
 *    (uet_wire_pkt_build() does this).
 *  - Decode verifies a non-zero UDP checksum (either IP version) and
 *    accepts a zero one also over IPv6 (RFC 6936 tolerant receiver),
 *    unless `uet_wire_outer_opts.no_udp_csum` leaves it to the caller (the
 *    engine verifies with DPDK and applies its per-port policy).
 *
 * Length decisions: bytes after the IP total length are link padding and
 * ignored; an IP total length beyond the buffer is TRUNCATED; a UDP
 * length beyond the IP payload is TRUNCATED, below it BAD_LENGTH.
 *
 * Trimmed frames (UEC 1.0 packet trimming): a switch cuts a trimmable
 * packet after its PDS header (at least 24 bytes of IP payload stay),
 * re-marks the DSCP and fixes the IP length at most; the UDP length and
 * checksum still describe the original packet. With
 * `uet_wire_outer_opts.trim_dscps` the decoder accepts a frame that carries
 * one of those DSCPs and is shorter than its IP or UDP length as
 * `trimmed`: `inner_len` is then the bytes present and the UDP checksum
 * is not verified (it cannot be). Without a trim DSCP such a frame is
 * TRUNCATED. uet_wire_outer_frame_trim() trims a frame the same way (fault
 * injection, switch emulation, tests).
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define UET_ETH_ALEN        6      /**< MAC address length */
#define UET_ETH_HLEN        14     /**< Ethernet header without tag */
#define UET_VLAN_HLEN       4      /**< one 802.1Q tag */
#define UET_IPV4_HLEN       20     /**< IPv4 header without options */
#define UET_IPV4_HLEN_MAX   60     /**< IPv4 header with 40 B of options */
#define UET_IPV6_HLEN       40     /**< IPv6 fixed header */
#define UET_UDP_HLEN        8      /**< UDP header */
#define UET_ETHERTYPE_IPV4  0x0800
#define UET_ETHERTYPE_IPV6  0x86DD
#define UET_ETHERTYPE_VLAN  0x8100
#define UET_IPPROTO_UDP     17
/** Longest outer header: Ethernet + tag + IPv4 with options + UDP. */
#define UET_OUTER_HLEN_MAX  (UET_ETH_HLEN + UET_VLAN_HLEN + \
			     UET_IPV4_HLEN_MAX + UET_UDP_HLEN)

/** IP ECN code points (RFC 3168). */
enum uet_wire_ecn {
	UET_ECN_NOT_ECT = 0,
	UET_ECN_ECT1 = 1,
	UET_ECN_ECT0 = 2,
	UET_ECN_CE = 3,
};

/**
 * Outer headers in host order.
 *
 * Fields marked "decode" are outputs of the decoder that the encoder
 * ignores (it recomputes them); every other field is written as given.
 */
struct uet_wire_outer {
	bool raw_ip;                   /**< no Ethernet: frame starts at IP */
	uint8_t dst_mac[UET_ETH_ALEN]; /**< Ethernet destination */
	uint8_t src_mac[UET_ETH_ALEN]; /**< Ethernet source */
	bool has_vlan;                 /**< one 802.1Q tag present */
	uint16_t vlan_tci;             /**< PCP(3) DEI(1) VID(12) */
	uint16_t ethertype;            /**< decode: 0x0800 or 0x86DD */
	uint8_t ip_version;            /**< 4 or 6 */
	uint8_t dscp;                  /**< 6 bits */
	uint8_t ecn;                   /**< 2 bits, enum uet_wire_ecn */
	uint8_t ttl;                   /**< IPv4 TTL or IPv6 hop limit */
	uint16_t ipv4_id;              /**< IPv4 identification */
	bool ipv4_df;                  /**< IPv4 don't-fragment flag */
	uint32_t ipv6_flow;            /**< IPv6 flow label, 20 bits */
	uint8_t ip_proto;              /**< 17 (UDP) or the native protocol */
	uint8_t ip_hlen;               /**< decode: IP header incl. options */
	uint32_t ip_total_len;         /**< decode: IP header + IP payload */
	uint16_t ipv4_csum;            /**< decode: IPv4 header checksum */
	uint8_t src_addr[16];          /**< IPv4 in the first 4 bytes */
	uint8_t dst_addr[16];          /**< IPv4 in the first 4 bytes */
	bool native;                   /**< native IP: entropy header, no UDP */
	uint16_t udp_sport;            /**< UDP source port = entropy (EV) */
	uint16_t udp_dport;            /**< UDP destination port (4793) */
	uint16_t udp_len;              /**< decode: UDP length */
	uint16_t udp_csum;             /**< decode: UDP checksum received */
	uint16_t entropy;              /**< native-IP entropy value (EV) */
	uint16_t hdr_len;              /**< decode: offset of the PDS header */
	/** decode: trimmed by a switch (see the file comment): a trim DSCP
	 *  and fewer bytes than the IP or UDP length says */
	bool trimmed;
	/** Bytes after the outer headers: PDS + SES + payload. */
	uint16_t inner_len;
};

/**
 * Decode options; NULL means Ethernet framing, protocol 253, no trim
 * DSCP and UDP checksums verified.
 */
struct uet_wire_outer_opts {
	bool raw_ip;           /**< the frame starts at the IP header */
	uint8_t native_proto;  /**< IP protocol of native-IP mode (0: 253) */
	/** do not verify the UDP checksum (the caller does) */
	bool no_udp_csum;
	/** DSCPs that mark a trimmed frame: bit d for DSCP d (0: none) */
	uint64_t trim_dscps;
};

/** The bit of @p dscp in uet_wire_outer_opts.trim_dscps. */
#define UET_OUTER_DSCP_BIT(dscp) (UINT64_C(1) << ((dscp) & 63))

/**
 * Is the decoded frame @p o trimmed (uet_wire_outer_opts.trim_dscps)? The
 * receive-side test shared by the engine and switch models: a trim
 * DSCP, and fewer bytes than the IP total length or the UDP length
 * announce (@p avail: IP payload bytes present).
 */
static inline bool
uet_wire_outer_is_trimmed(const struct uet_wire_outer_opts *opts,
		     const struct uet_wire_outer *o, size_t avail, size_t l4_len)
{
	return opts != NULL &&
	       (opts->trim_dscps & UET_OUTER_DSCP_BIT(o->dscp)) != 0 &&
	       avail < l4_len;
}

/**
 * Fill @p o with defaults: IPv4 or IPv6, UDP to port 4793, TTL 64, DF set
 * (IPv4), ECN ECT(0), DSCP 0, zero addresses and MACs, EV 0.
 * @param ip_version
 *   4 or 6; other values are stored as given (encode rejects them).
 */
void uet_wire_outer_init(struct uet_wire_outer *o, unsigned int ip_version);

/** Bytes uet_wire_outer_encode() writes for @p o (no IPv4 options). */
size_t uet_wire_outer_hdr_len(const struct uet_wire_outer *o);

/**
 * Encode the outer headers followed by `o->inner_len` bytes the caller
 * writes afterwards: computes the IP total/payload length, the IPv4 header
 * checksum and the UDP length; the UDP checksum is written as 0.
 * @return
 *   Bytes written (the offset of the PDS header), or
 *   -UET_WIRE_E_NOSPACE (cap too small), -UET_WIRE_E_BAD_FIELD (ip_version,
 *   dscp, ecn or flow label out of range), -UET_WIRE_E_BAD_LENGTH (inner_len
 *   does not fit the IP/UDP length fields), -UET_WIRE_E_BAD_COMBINATION
 *   (native mode with protocol 0 or 17).
 */
int uet_wire_outer_encode(const struct uet_wire_outer *o, uint8_t *buf, size_t cap);

/** Longest header a template holds: Ethernet + tag + IPv6 + UDP. */
#define UET_OUTER_TPL_MAX (UET_ETH_HLEN + UET_VLAN_HLEN + UET_IPV6_HLEN + \
			   UET_UDP_HLEN)

/**
 * Outer headers of one destination encoded once (uet_wire_outer_tpl_init())
 * and copied into each frame by uet_wire_outer_tpl_write(), which patches only
 * what changes per frame: lengths, DSCP/ECN, entropy value and the IPv4
 * header checksum. The bytes written equal uet_wire_outer_encode()'s for the
 * same fields.
 */
struct uet_wire_outer_tpl {
	uint8_t bytes[UET_OUTER_TPL_MAX]; /**< encoded with inner_len 0 */
	uint8_t len;        /**< header bytes (offset of the PDS header) */
	uint8_t l3_off;     /**< IP header offset */
	uint8_t l4_off;     /**< UDP / entropy header offset */
	uint8_t ip_version; /**< 4 or 6 */
	bool native;        /**< entropy header instead of UDP */
	uint32_t ip_sum;    /**< IPv4: header sum without TOS, length, csum */
};

/**
 * Encode @p o (its dscp, ecn, entropy and inner_len are ignored: they
 * are per-frame arguments of uet_wire_outer_tpl_write()) into @p t.
 * @return
 *   0, or the errors of uet_wire_outer_encode().
 */
int uet_wire_outer_tpl_init(struct uet_wire_outer_tpl *t, const struct uet_wire_outer *o);

/**
 * Write the outer headers of @p t for @p inner_len bytes that follow,
 * with @p dscp (< 64), @p ecn (< 4) and entropy value @p ev. No checks:
 * @p buf must hold t->len bytes and @p inner_len fit the length fields.
 * The UDP checksum is 0, as with uet_wire_outer_encode() (IPv6:
 * uet_wire_outer_udp_csum_fill() once the inner bytes are in place).
 * @return
 *   t->len, the offset of the PDS header.
 */
static inline unsigned int
uet_wire_outer_tpl_write(const struct uet_wire_outer_tpl *t, uint8_t *buf,
		    uint16_t inner_len, uint8_t dscp, uint8_t ecn, uint16_t ev)
{
	uint8_t *ip = buf + t->l3_off, *l4 = buf + t->l4_off;
	uint8_t tos = (uint8_t)(dscp << 2 | ecn);
	/* native: the 4-byte entropy header (UET_ENTROPY_HDR_LEN) */
	uint16_t l4_len = (uint16_t)((t->native ? 4 : UET_UDP_HLEN) +
				     inner_len);
	uint32_t sum;

	__builtin_memcpy(buf, t->bytes, t->len);
	if (t->ip_version == 4) {
		uint16_t tot = (uint16_t)(UET_IPV4_HLEN + l4_len);

		ip[1] = tos;
		ip[2] = (uint8_t)(tot >> 8);
		ip[3] = (uint8_t)tot;
		sum = t->ip_sum + tos + tot;
		sum = (sum & 0xFFFF) + (sum >> 16);
		sum = (sum & 0xFFFF) + (sum >> 16);
		sum = ~sum & 0xFFFF;
		ip[10] = (uint8_t)(sum >> 8);
		ip[11] = (uint8_t)sum;
	} else {
		ip[0] = (uint8_t)(0x60 | tos >> 4);
		ip[1] = (uint8_t)((ip[1] & 0x0F) | (tos & 0x0F) << 4);
		ip[4] = (uint8_t)(l4_len >> 8);
		ip[5] = (uint8_t)l4_len;
	}
	l4[0] = (uint8_t)(ev >> 8);
	l4[1] = (uint8_t)ev;
	if (!t->native) {
		l4[4] = (uint8_t)(l4_len >> 8);
		l4[5] = (uint8_t)l4_len;
	}
	return t->len;
}

/**
 * Compute and store the UDP checksum of an encoded IPv6/UDP frame whose
 * inner bytes are in place (no-op for IPv4 and native mode).
 * @param o
 *   The struct the frame was encoded from.
 * @return
 *   0, or -UET_WIRE_E_TRUNCATED if @p len is shorter than the frame.
 */
int uet_wire_outer_udp_csum_fill(const struct uet_wire_outer *o, uint8_t *frame,
			    size_t len);

/**
 * Decode Ethernet framing with default options (see uet_wire_outer_decode_ex()).
 */
int uet_wire_outer_decode(const uint8_t *buf, size_t len, struct uet_wire_outer *o);

/**
 * Decode the outer headers of a frame: runs uet_wire_outer_eth_decode() (unless
 * @p opts->raw_ip), uet_wire_outer_ip_decode() and uet_wire_outer_l4_decode().
 * @return
 *   The offset of the PDS header, or the first error of those functions.
 */
int uet_wire_outer_decode_ex(const uint8_t *buf, size_t len,
			const struct uet_wire_outer_opts *opts,
			struct uet_wire_outer *o);

/**
 * Decode the Ethernet header and an optional 802.1Q tag.
 * @return
 *   14 or 18, -UET_WIRE_E_TRUNCATED, or -UET_WIRE_E_BAD_ETHERTYPE when the
 *   (inner) ethertype is not IPv4/IPv6 (stacked tags included).
 */
int uet_wire_outer_eth_decode(const uint8_t *buf, size_t len, struct uet_wire_outer *o);

/**
 * Decode an IPv4 or IPv6 header; @p len counts the bytes from the IP
 * header to the end of the capture. A non-zero `o->ethertype` (set by
 * uet_wire_outer_eth_decode()) must agree with the IP version.
 * @param native_proto
 *   IP protocol of native-IP mode (0 means 253).
 * @return
 *   The IP header length (options skipped), or
 *   -UET_WIRE_E_TRUNCATED (header or total length beyond @p len),
 *   -UET_WIRE_E_BAD_IP (version not 4/6 or not the ethertype's, IHL < 5),
 *   -UET_WIRE_E_BAD_LENGTH (IP total length below the header length),
 *   -UET_WIRE_E_BAD_CHECKSUM (IPv4 header checksum),
 *   -UET_WIRE_E_RESERVED (IPv4 reserved flag),
 *   -UET_WIRE_E_UNSUPPORTED (fragment, IPv6 extension header, jumbogram),
 *   -UET_WIRE_E_NOT_UET (protocol neither UDP nor @p native_proto).
 */
int uet_wire_outer_ip_decode(const uint8_t *buf, size_t len, uint8_t native_proto,
			struct uet_wire_outer *o);

/**
 * Decode the UDP header or the native-IP entropy header. Needs the IP
 * fields of @p o (addresses for the checksum, protocol, native flag);
 * @p len is the IP payload length.
 * @return
 *   8 or 4, -UET_WIRE_E_TRUNCATED, -UET_WIRE_E_NOT_UET (UDP destination
 *   port not 4793), -UET_WIRE_E_BAD_LENGTH (UDP length below 8 or not the
 *   IP payload length), -UET_WIRE_E_BAD_CHECKSUM (non-zero UDP checksum
 *   wrong), -UET_WIRE_E_RESERVED (entropy header rsvd not zero).
 */
int uet_wire_outer_l4_decode(const uint8_t *buf, size_t len, struct uet_wire_outer *o);

/**
 * uet_wire_outer_ip_decode() with options: the native protocol of @p opts,
 * and a frame shorter than its IP total length accepted as trimmed
 * (`o->trimmed`) when its DSCP is one of `opts->trim_dscps`.
 */
int uet_wire_outer_ip_decode_ex(const uint8_t *buf, size_t len,
			   const struct uet_wire_outer_opts *opts,
			   struct uet_wire_outer *o);

/**
 * uet_wire_outer_l4_decode() with options: `opts->no_udp_csum`, and a UDP
 * length beyond the @p len bytes present accepted as trimmed when the
 * DSCP is one of `opts->trim_dscps` (or the IP layer found it trimmed);
 * `o->inner_len` is then the bytes present.
 */
int uet_wire_outer_l4_decode_ex(const uint8_t *buf, size_t len,
			   const struct uet_wire_outer_opts *opts,
			   struct uet_wire_outer *o);

/**
 * IP payload bytes present after a successful IP decode of a buffer of
 * @p len bytes from the IP header: the IP payload length, or fewer for
 * a frame trimmed without fixing the IP length.
 */
size_t uet_wire_outer_ip_avail(const struct uet_wire_outer *o, size_t len);

/** Entropy value: the UDP source port, or the native entropy field. */
static inline uint16_t
uet_wire_outer_ev_get(const struct uet_wire_outer *o)
{
	return o->native ? o->entropy : o->udp_sport;
}

/** Set the entropy value in the struct (UDP source port or entropy). */
static inline void
uet_wire_outer_ev_set(struct uet_wire_outer *o, uint16_t ev)
{
	if (o->native)
		o->entropy = ev;
	else
		o->udp_sport = ev;
}

/**
 * Trim a decoded frame in place as a trimming switch does (UEC 1.0
 * packet trimming): keep
 * the outer headers and @p keep bytes after them (the PDS header at
 * least, the caller's choice), re-mark the DSCP to @p dscp and, if
 * @p fix_ip_len, rewrite the IP total / payload length (IPv4 header
 * checksum fixed in any case). The UDP length and checksum are left as
 * they were: they still describe the original packet, which is how the
 * receiver tells a trimmed frame from a complete one.
 * @return
 *   The new frame length, -UET_WIRE_E_BAD_FIELD (dscp > 63, or @p keep
 *   not shorter than what the frame carries), -UET_WIRE_E_UNSUPPORTED
 *   (native-IP frame: no UDP length to keep) or -UET_WIRE_E_TRUNCATED.
 */
int uet_wire_outer_frame_trim(struct uet_wire_outer *o, uint8_t *frame, size_t len,
			 size_t keep, uint8_t dscp, bool fix_ip_len);

/**
 * Rewrite the DSCP of a decoded (or encoded) frame in place, fixing the
 * IPv4 header checksum; updates `o->dscp`.
 * @return
 *   0, -UET_WIRE_E_BAD_FIELD (dscp > 63) or -UET_WIRE_E_TRUNCATED.
 */
int uet_wire_outer_frame_dscp_set(struct uet_wire_outer *o, uint8_t *frame, size_t len,
			     uint8_t dscp);

/**
 * Rewrite the ECN field in place (e.g. mark CE), fixing the IPv4 header
 * checksum; updates `o->ecn`.
 * @return
 *   0, -UET_WIRE_E_BAD_FIELD (ecn > 3) or -UET_WIRE_E_TRUNCATED.
 */
int uet_wire_outer_frame_ecn_set(struct uet_wire_outer *o, uint8_t *frame, size_t len,
			    uint8_t ecn);

/**
 * Rewrite the entropy value in place (UDP source port, adjusting a
 * non-zero UDP checksum, or the native entropy field).
 * @return
 *   0 or -UET_WIRE_E_TRUNCATED.
 */
int uet_wire_outer_frame_ev_set(struct uet_wire_outer *o, uint8_t *frame, size_t len,
			   uint16_t ev);

#ifdef __cplusplus
}
#endif

#endif /* UET_WIRE_OUTER_H */
