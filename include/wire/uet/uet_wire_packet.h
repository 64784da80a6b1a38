/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef UET_WIRE_PACKET_H
#define UET_WIRE_PACKET_H

/**
 * @file
 * Whole-frame parse and build: outer headers, PDS header, the SES header
 * announced by the PDS next header, and the payload.
 *
 * The SES header is selected by the PDS header alone (its next_hdr):
 * a CP carries none (its 4-bit field is the control type); otherwise
 * next_hdr 1..3 announces a request in that format, 4..6 a response in
 * that format, 0 nothing.
 *
 * Payload rules checked by the parser: a packet without SES header has
 * no payload; a header with a payload_length field (standard continuation,
 * RESPONSE_DATA, RESPONSE_DATA_SMALL) must match the bytes present
 * (TRUNCATED when fewer, BAD_LENGTH when more).
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <uet/uet_wire.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Layer of a frame, used to say where parsing stopped. */
enum uet_wire_pkt_layer {
	UET_PKT_LAYER_NONE = 0, /**< no error */
	UET_PKT_LAYER_ETH,      /**< Ethernet / 802.1Q */
	UET_PKT_LAYER_IP,       /**< IPv4 / IPv6 */
	UET_PKT_LAYER_UDP,      /**< UDP header */
	UET_PKT_LAYER_ENTROPY,  /**< native-IP entropy header */
	UET_PKT_LAYER_PDS,      /**< PDS header */
	UET_PKT_LAYER_SES,      /**< SES request or response header */
	UET_PKT_LAYER_PAYLOAD,  /**< payload length checks */
};

/** Which SES header a packet carries. */
enum uet_wire_pkt_ses {
	UET_PKT_SES_NONE = 0,
	UET_PKT_SES_REQ,  /**< request: `req` in format `req_fmt` */
	UET_PKT_SES_RESP, /**< response: `resp` (format in resp.fmt) */
};

/** A parsed frame, or the description of a frame to build. */
struct uet_wire_pkt {
	struct uet_wire_outer outer;       /**< outer headers */
	struct uet_wire_pds_hdr pds;       /**< PDS header */
	enum uet_wire_pkt_ses ses;         /**< parse: which SES header follows */
	enum uet_wire_ses_fmt req_fmt;     /**< parse: request format */
	struct uet_wire_ses_req req;       /**< request (ses == UET_PKT_SES_REQ) */
	struct uet_wire_ses_resp resp;     /**< response (UET_PKT_SES_RESP) */
	uint16_t pds_off;             /**< parse: offset of the PDS header */
	uint16_t ses_off;             /**< parse: offset of the SES header */
	uint16_t ses_len;             /**< parse: SES header + extension */
	uint16_t payload_off;         /**< parse: offset of the payload */
	uint16_t payload_len;         /**< parse: payload bytes */
	enum uet_wire_pkt_layer err_layer; /**< parse: layer that failed, or NONE */
	int err;                      /**< parse: positive UET_WIRE_E_*, or 0 */
	uint16_t err_off;             /**< parse: frame offset of that layer */
	uint32_t err_avail;           /**< parse: bytes that layer had */
};

/**
 * Parse an Ethernet frame (see uet_wire_pkt_parse_ex()).
 */
int uet_wire_pkt_parse(const uint8_t *frame, size_t len, struct uet_wire_pkt *p);

/**
 * Parse a frame layer by layer.
 *
 * On failure the layers before `p->err_layer` are valid: for instance a
 * packet whose sender cut its SES header (all lengths rewritten) fails in
 * UET_PKT_LAYER_SES with TRUNCATED while `p->outer` and `p->pds` are
 * usable. A frame trimmed by a switch (`opts->trim_dscps`, see
 * uet_wire_outer.h) parses with `p->outer.trimmed` set and stops after
 * the PDS header (no SES header, no payload); a trimmed frame that is not
 * a request fails in UET_PKT_LAYER_PDS with BAD_COMBINATION.
 * @param opts
 *   Framing and native-IP protocol; NULL for Ethernet and protocol 253.
 * @return
 *   0, or the negated error of the layer that failed (also stored in
 *   `p->err` together with `p->err_layer`, `p->err_off`, `p->err_avail`).
 *   A frame that is not UET stops with -UET_WIRE_E_NOT_UET (UDP port or IP
 *   protocol) or -UET_WIRE_E_BAD_ETHERTYPE (not IP).
 */
int uet_wire_pkt_parse_ex(const uint8_t *frame, size_t len,
		     const struct uet_wire_outer_opts *opts, struct uet_wire_pkt *p);

/**
 * Parse a frame up to and including its PDS header, as
 * uet_wire_pkt_parse_ex() does, and leave the rest to the upper layer (the
 * engine hands it to the SES, which decodes its own header once):
 * `p->ses` is UET_PKT_SES_NONE, `p->ses_len` 0, `p->payload_off` equals
 * `p->ses_off` and `p->payload_len` counts every byte after the PDS
 * header (SES header and payload; 0 for a trimmed frame). `p->req` and
 * `p->resp` are not written.
 * @return
 *   0, or the negated error of the outer or PDS layer (as
 *   uet_wire_pkt_parse_ex()).
 */
int uet_wire_pkt_parse_pds(const uint8_t *frame, size_t len,
		      const struct uet_wire_outer_opts *opts, struct uet_wire_pkt *p);

/**
 * Build a frame: outer headers, PDS header, the SES header the PDS header
 * announces (`p->req` in format next_hdr, or `p->resp`, whose fmt must
 * equal next_hdr) and @p payload. The IP and UDP lengths and the checksums
 * are computed (`p->outer.inner_len` is ignored); every other field,
 * including SES payload_length fields, is written as given.
 * @return
 *   The frame length, -UET_WIRE_E_NOSPACE, -UET_WIRE_E_BAD_COMBINATION
 *   (resp.fmt differs from next_hdr), or the encoders' errors.
 */
int uet_wire_pkt_build(const struct uet_wire_pkt *p, const uint8_t *payload,
		  size_t payload_len, uint8_t *buf, size_t cap);

/** Name of a layer: "eth", "ip", "udp", "entropy", "pds", "ses", "payload". */
const char *uet_wire_pkt_layer_name(unsigned int layer);

/**
 * Describe the error of a parsed frame, for example
 * "truncated: ip total length 1500 but 128 bytes captured".
 * @return
 *   The length snprintf() would have written.
 */
int uet_wire_pkt_err_format(const struct uet_wire_pkt *p, char *buf, size_t cap);

#ifdef __cplusplus
}
#endif

#endif /* UET_WIRE_PACKET_H */
