/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef UET_WIRE_PDS_H
#define UET_WIRE_PDS_H

/**
 * @file
 * PDS (packet delivery sublayer) header codec and the native-IP entropy
 * header (UEC 1.0 encapsulation and PDS headers).
 *
 * One host-order struct, `struct uet_wire_pds_hdr`, covers every PDS header
 * type: the prologue (type, next header or control type, flags) plus a
 * union selected by the type. Codecs follow the conventions of
 * uet_wire.h: encoders return the bytes written, decoders the bytes
 * consumed, both `-UET_WIRE_E_*` on error, and encode and decode apply
 * the same legality rules so that decode(encode(h)) == h for every
 * legal @c h whose fields not used by its type are zero.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <uet/uet_wire.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Header sizes in bytes, prologue included (UEC 1.0 PDS headers). */
#define UET_PDS_PROLOGUE_LEN 2  /**< type / next_hdr / flags */
#define UET_PDS_REQ_LEN      12 /**< RUD_REQ, ROD_REQ */
#define UET_PDS_CC_REQ_LEN   16 /**< RUD_CC_REQ, ROD_CC_REQ */
#define UET_PDS_ACK_LEN      12 /**< ACK */
#define UET_PDS_ACK_EPSN_LEN 16 /**< ACK with UET_PDS_F_EPSN */
#define UET_PDS_ACK_CC_LEN   32 /**< ACK_CC */
#define UET_PDS_ACK_CCX_LEN  40 /**< ACK_CCX */
#define UET_PDS_NACK_LEN     16 /**< NACK */
#define UET_PDS_NACK_CCX_LEN 32 /**< NACK_CCX */
#define UET_PDS_CP_LEN       16 /**< control packet */
#define UET_PDS_RUDI_LEN     8  /**< RUDI_REQ, RUDI_RESP */
#define UET_PDS_UUD_LEN      4  /**< UUD_REQ */
#define UET_PDS_HDR_MAX_LEN  UET_PDS_ACK_CCX_LEN /**< largest PDS header */
/** Native-IP entropy header: entropy(16) rsvd(16) (UEC 1.0). */
#define UET_ENTROPY_HDR_LEN  4

/** Largest type code point (5-bit field; 15..31 are undefined). */
#define UET_PDS_TYPE_MAX     UET_PDS_TYPE_ROD_CC_REQ
/** Largest control packet type. */
#define UET_PDS_CTL_MAX      UET_PDS_CTL_NEGOTIATION
/** psn_offset of the SYN variant of dpdcid: 12 bits. */
#define UET_PDS_PSN_OFFSET_MAX 0xFFFu
/** 24-bit fields: credit_target, credit, rcvd_bytes. */
#define UET_PDS_U24_MAX      0xFFFFFFu
/** rcv_cwnd_pend: 7 bits. */
#define UET_PDS_RCV_CWND_PEND_MAX 0x7Fu
/** 4-bit fields: cc_type, cc_flags, nccx_type. */
#define UET_PDS_U4_MAX       0xFu
/** Bytes of the opaque ACK_CCX and NACK_CCX states. */
#define UET_PDS_CCX_STATE_LEN 16

/**
 * Request fields: RUD_REQ, ROD_REQ, RUD_CC_REQ, ROD_CC_REQ.
 * With the SYN flag the dpdcid field carries use_rsv_pdc and psn_offset
 * instead of dpdcid.
 */
struct uet_wire_pds_req {
	int16_t clear_psn_offset; /**< CLEAR_PSN - psn; must be <= 0 */
	uint32_t psn;             /**< packet sequence number */
	uint16_t spdcid;          /**< source PDC id */
	uint16_t dpdcid;          /**< destination PDC id (SYN clear) */
	bool use_rsv_pdc;         /**< SYN: take the PDC from the reserved pool */
	uint16_t psn_offset;      /**< SYN: psn - Start_PSN, 12 bits */
	uint8_t ccc_id;           /**< CC types 13/14: congestion context id */
	uint32_t credit_target;   /**< CC types 13/14: 24 bits, 256 B units */
};

/** ACK_CC state for cc_type 0 (NSCC). */
struct uet_wire_pds_nscc_state {
	uint16_t service_time;  /**< receiver service time, 128 ns units */
	bool rc;                /**< receiver congested */
	uint8_t rcv_cwnd_pend;  /**< receiver cwnd penalty, 7 bits */
	uint32_t rcvd_bytes;    /**< 24 bits, 256 B units, rounded up */
	uint16_t ooo_count;     /**< out-of-order packet count */
};

/** ACK_CC state for cc_type 1 (credit, RCCC). */
struct uet_wire_pds_credit_state {
	uint32_t credit;        /**< granted credit, 24 bits, 256 B units */
	uint16_t ooo_count;     /**< out-of-order packet count */
};

/** ACK fields: ACK, ACK_CC, ACK_CCX. */
struct uet_wire_pds_ack {
	int16_t ack_psn_offset;  /**< ACK_PSN - cack_psn (P flag clear) */
	uint16_t probe_opaque;   /**< echoed probe value (P flag set) */
	uint32_t cack_psn;       /**< cumulative ACK PSN */
	uint16_t spdcid;         /**< source PDC id (the target's PDC) */
	uint16_t dpdcid;         /**< destination PDC id */
	/* ACK with UET_PDS_F_EPSN only: */
	uint32_t expected_psn;   /**< the target's Expected_PSN of the domain */
	/* ACK_CC and ACK_CCX only: */
	uint8_t cc_type;         /**< enum uet_wire_cc_type; any 4-bit value in CCX */
	uint8_t cc_flags;        /**< 4 bits */
	uint8_t mpr;             /**< log2 of the receiver's tracking window */
	int16_t sack_psn_offset; /**< SACK base - cack_psn */
	uint64_t sack_bitmap;    /**< bit i = PSN (SACK base + i) received */
	union {
		struct uet_wire_pds_nscc_state nscc;     /**< ACK_CC, cc_type 0 */
		struct uet_wire_pds_credit_state credit; /**< ACK_CC, cc_type 1 */
	} cc;
	uint8_t ccx_state[UET_PDS_CCX_STATE_LEN]; /**< ACK_CCX: opaque state */
};

/** NACK fields: NACK, NACK_CCX. */
struct uet_wire_pds_nack {
	uint8_t code;            /**< enum uet_wire_pds_nack_code */
	uint8_t vendor_code;     /**< vendor-specific detail */
	uint32_t psn;            /**< NACKed PSN, or RUDI pkt_id when NT */
	uint16_t spdcid;         /**< source PDC id */
	uint16_t dpdcid;         /**< destination PDC id */
	uint32_t payload;        /**< code-specific payload */
	/* NACK_CCX only: */
	uint8_t nccx_type;       /**< 4 bits */
	/** 124-bit state, MSB first; the high nibble of [0] must be 0. */
	uint8_t nccx_state[UET_PDS_CCX_STATE_LEN];
};

/** Control packet fields (type CP; ctl_type is in uet_wire_pds_hdr.next_hdr). */
struct uet_wire_pds_cp {
	uint16_t probe_opaque;   /**< PROBE value; opaque for other ctl types */
	uint32_t psn;            /**< forward PSN the CP consumes */
	uint16_t spdcid;         /**< source PDC id */
	uint16_t dpdcid;         /**< destination PDC id (SYN clear) */
	bool use_rsv_pdc;        /**< SYN: take the PDC from the reserved pool */
	uint16_t psn_offset;     /**< SYN: psn - Start_PSN, 12 bits */
	uint32_t payload;        /**< meaning per ctl_type (UEC 1.0 CP) */
};

/** RUDI_REQ and RUDI_RESP fields. */
struct uet_wire_pds_rudi {
	uint32_t pkt_id;         /**< packet id, echoed in the response */
};

/**
 * Any PDS header. @c u is selected by @c type: req for RUD/ROD/RUD_CC/
 * ROD_CC requests, ack for ACK/ACK_CC/ACK_CCX, nack for NACK/NACK_CCX,
 * cp for CP, rudi for RUDI_REQ/RUDI_RESP. UUD_REQ has no fields beyond
 * the prologue.
 */
struct uet_wire_pds_hdr {
	uint8_t type;     /**< enum uet_wire_pds_type */
	uint8_t next_hdr; /**< enum uet_wire_pds_next_hdr; enum uet_wire_pds_ctl_type for CP */
	uint8_t flags;    /**< 7 bits, UET_PDS_F_* and the ACK REQ field */
	union {
		struct uet_wire_pds_req req;
		struct uet_wire_pds_ack ack;
		struct uet_wire_pds_nack nack;
		struct uet_wire_pds_cp cp;
		struct uet_wire_pds_rudi rudi;
	} u;
};

/** Native-IP entropy header. */
struct uet_wire_entropy_hdr {
	uint16_t entropy;        /**< entropy value (EV) */
};

/**
 * Size of a PDS header on the wire.
 * @param type
 *   PDS type (enum uet_wire_pds_type).
 * @return
 *   Bytes, prologue included; 0 for an undefined type and for TSS, whose
 *   layout this implementation does not know.
 */
size_t uet_wire_pds_hdr_len(unsigned int type);

/**
 * Size of PDS header @p h on the wire: uet_wire_pds_hdr_len() of its
 * type, plus the Expected_PSN of an ACK with UET_PDS_F_EPSN.
 */
size_t uet_wire_pds_hdr_size(const struct uet_wire_pds_hdr *h);

/**
 * Size of the PDS header at @p buf, read from its prologue (type and
 * flags) alone, as uet_wire_pds_hdr_size() would give once decoded.
 * @return
 *   Bytes, or 0 when @p len is shorter than the prologue or the type is
 *   undefined or TSS.
 */
size_t uet_wire_pds_hdr_size_at(const uint8_t *buf, size_t len);

/**
 * Encode a PDS header.
 * @param h
 *   Header; fields not used by @c h->type are ignored.
 * @param buf
 *   Output, uet_wire_pds_hdr_len(h->type) bytes are written.
 * @param cap
 *   Size of @p buf.
 * @return
 *   Bytes written, or a negated error:
 *   - UET_WIRE_E_BAD_TYPE: undefined type.
 *   - UET_WIRE_E_UNSUPPORTED: TSS.
 *   - UET_WIRE_E_BAD_NEXT_HDR: next header not allowed for the type.
 *   - UET_WIRE_E_BAD_CTL_TYPE: CP with ctl_type > 9.
 *   - UET_WIRE_E_BAD_FLAGS: a flag not defined for the type.
 *   - UET_WIRE_E_BAD_FIELD: a value does not fit its field, ACK REQ = 3,
 *     clear_psn_offset > 0.
 *   - UET_WIRE_E_RESERVED: high nibble of nack.nccx_state[0] not zero.
 *   - UET_WIRE_E_BAD_CC_TYPE: ACK_CC with cc_type other than 0 or 1.
 *   - UET_WIRE_E_BAD_NACK_CODE: undefined or retired NACK code.
 *   - UET_WIRE_E_NOSPACE: @p cap smaller than the header.
 */
int uet_wire_pds_hdr_encode(const struct uet_wire_pds_hdr *h, uint8_t *buf,
		       size_t cap);

/**
 * Decode a PDS header. Checks run in this order: prologue length, type,
 * full header length, next header / control type, flags, reserved bits,
 * field values.
 * @param buf
 *   Input, starting at the PDS prologue.
 * @param len
 *   Bytes available in @p buf; bytes past the header are not read.
 * @param h
 *   Output; zeroed first, then the fields of the type are filled.
 * @return
 *   Bytes consumed (uet_wire_pds_hdr_len(h->type)), or a negated error:
 *   - UET_WIRE_E_TRUNCATED: @p len shorter than the prologue or header.
 *   - UET_WIRE_E_RESERVED: a reserved field is not zero.
 *   - the codes listed for uet_wire_pds_hdr_encode() except NOSPACE.
 */
int uet_wire_pds_hdr_decode(const uint8_t *buf, size_t len, struct uet_wire_pds_hdr *h);

/**
 * Encode a native-IP entropy header.
 * @return
 *   UET_ENTROPY_HDR_LEN, or -UET_WIRE_E_NOSPACE.
 */
int uet_wire_entropy_hdr_encode(const struct uet_wire_entropy_hdr *h, uint8_t *buf,
			   size_t cap);

/**
 * Decode a native-IP entropy header.
 * @return
 *   UET_ENTROPY_HDR_LEN, or -UET_WIRE_E_TRUNCATED, -UET_WIRE_E_RESERVED.
 */
int uet_wire_entropy_hdr_decode(const uint8_t *buf, size_t len,
			   struct uet_wire_entropy_hdr *h);

/** True for the four PSN-carrying request types (RUD/ROD, with or without CC). */
static inline bool
uet_wire_pds_type_is_req(unsigned int type)
{
	return type == UET_PDS_TYPE_RUD_REQ || type == UET_PDS_TYPE_ROD_REQ ||
	       type == UET_PDS_TYPE_RUD_CC_REQ ||
	       type == UET_PDS_TYPE_ROD_CC_REQ;
}

/** True for the request types that carry ccc_id and credit_target. */
static inline bool
uet_wire_pds_type_is_cc_req(unsigned int type)
{
	return type == UET_PDS_TYPE_RUD_CC_REQ ||
	       type == UET_PDS_TYPE_ROD_CC_REQ;
}

/** True for ACK, ACK_CC and ACK_CCX. */
static inline bool
uet_wire_pds_type_is_ack(unsigned int type)
{
	return type == UET_PDS_TYPE_ACK || type == UET_PDS_TYPE_ACK_CC ||
	       type == UET_PDS_TYPE_ACK_CCX;
}

/** True for NACK and NACK_CCX. */
static inline bool
uet_wire_pds_type_is_nack(unsigned int type)
{
	return type == UET_PDS_TYPE_NACK || type == UET_PDS_TYPE_NACK_CCX;
}

/** REQ field of an ACK's flags (enum uet_wire_pds_ack_req; 3 is reserved). */
static inline unsigned int
uet_wire_pds_ack_req_get(const struct uet_wire_pds_hdr *h)
{
	return (h->flags >> UET_PDS_ACK_REQ_SHIFT) & UET_PDS_ACK_REQ_MASK;
}

/** Set the REQ field of an ACK's flags; @p req is masked to 2 bits. */
static inline void
uet_wire_pds_ack_req_set(struct uet_wire_pds_hdr *h, unsigned int req)
{
	h->flags = (uint8_t)((h->flags &
			      ~(UET_PDS_ACK_REQ_MASK << UET_PDS_ACK_REQ_SHIFT)) |
			     ((req & UET_PDS_ACK_REQ_MASK) << UET_PDS_ACK_REQ_SHIFT));
}

/** CLEAR_PSN = psn + clear_psn_offset (UEC 1.0 PDS request header). */
static inline uint32_t
uet_wire_pds_req_clear_psn(const struct uet_wire_pds_req *r)
{
	return r->psn + (uint32_t)(int32_t)r->clear_psn_offset;
}

/** Start_PSN of a SYN request = psn - psn_offset. */
static inline uint32_t
uet_wire_pds_req_start_psn(const struct uet_wire_pds_req *r)
{
	return r->psn - r->psn_offset;
}

/** Start_PSN of a SYN control packet = psn - psn_offset. */
static inline uint32_t
uet_wire_pds_cp_start_psn(const struct uet_wire_pds_cp *cp)
{
	return cp->psn - cp->psn_offset;
}

/** ACK_PSN = cack_psn + ack_psn_offset (meaningful without the P flag). */
static inline uint32_t
uet_wire_pds_ack_psn(const struct uet_wire_pds_ack *a)
{
	return a->cack_psn + (uint32_t)(int32_t)a->ack_psn_offset;
}

/** SACK base PSN = cack_psn + sack_psn_offset (ACK_CC, ACK_CCX). */
static inline uint32_t
uet_wire_pds_ack_sack_base(const struct uet_wire_pds_ack *a)
{
	return a->cack_psn + (uint32_t)(int32_t)a->sack_psn_offset;
}

#ifdef __cplusplus
}
#endif

#endif /* UET_WIRE_PDS_H */
