/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef UET_WIRE_H
#define UET_WIRE_H

/**
 * @file
 * Ultra Ethernet Transport wire formats: code sets, error codes and the
 * encode/decode conventions shared by every header codec.
 *
 * Conventions of every codec in this module:
 *  - Host-order structs in, exact big-endian bytes out; sub-byte fields
 *    through explicit shifts and masks, never C bitfields.
 *  - Encoders: `int uet_X_encode(const struct X *h, uint8_t *buf, size_t cap)`
 *    return the number of bytes written, or `-UET_WIRE_E_*` (negative)
 *    when a field does not fit or the output buffer is too small.
 *  - Decoders: `int uet_X_decode(const uint8_t *buf, size_t len, struct X *h)`
 *    return the number of bytes consumed, or `-UET_WIRE_E_*`. They never
 *    read past @p len and reject reserved bits, undefined code points and
 *    illegal combinations.
 *  - No DPDK dependency: this module is plain C11 and usable in tools.
 *
 * Field layouts and code points are those of UEC 1.0 (PDS and SES headers).
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** UDP destination port of UET (UEC 1.0 encapsulation). */
#define UET_UDP_PORT 4793
/** Default IP protocol number of the native-IP encapsulation. */
#define UET_NATIVE_IP_PROTO_DEFAULT 253

/** Decoder and encoder errors; functions return them negated. */
enum uet_wire_error {
	UET_WIRE_OK = 0,
	UET_WIRE_E_TRUNCATED,       /**< buffer shorter than the header */
	UET_WIRE_E_NOSPACE,         /**< encode: output buffer too small */
	UET_WIRE_E_BAD_TYPE,        /**< undefined PDS type */
	UET_WIRE_E_UNSUPPORTED,     /**< defined but not implemented (TSS) */
	UET_WIRE_E_BAD_NEXT_HDR,    /**< next header illegal for the PDS type */
	UET_WIRE_E_BAD_CTL_TYPE,    /**< undefined control packet type */
	UET_WIRE_E_BAD_FLAGS,       /**< flag bit not defined for this header */
	UET_WIRE_E_RESERVED,        /**< reserved field or bits not zero */
	UET_WIRE_E_BAD_OPCODE,      /**< undefined SES opcode */
	UET_WIRE_E_BAD_VERSION,     /**< SES version not supported */
	UET_WIRE_E_BAD_FIELD,       /**< value out of its field's range */
	UET_WIRE_E_BAD_COMBINATION, /**< fields legal alone, illegal together */
	UET_WIRE_E_BAD_LENGTH,      /**< length field disagrees with the data */
	UET_WIRE_E_BAD_NACK_CODE,   /**< undefined or retired NACK code */
	UET_WIRE_E_BAD_CC_TYPE,     /**< undefined ACK_CC congestion type */
	UET_WIRE_E_BAD_ATOMIC,      /**< undefined atomic op or datatype */
	UET_WIRE_E_BAD_ETHERTYPE,   /**< not IPv4 / IPv6 */
	UET_WIRE_E_BAD_IP,          /**< malformed IPv4/IPv6 header */
	UET_WIRE_E_BAD_CHECKSUM,    /**< IPv4 header or UDP checksum mismatch */
	UET_WIRE_E_NOT_UET,         /**< not UDP to port 4793 / native proto */
	UET_WIRE_E__COUNT
};

/**
 * Describe a wire error.
 * @param err
 *   A `UET_WIRE_E_*` value, positive or negated.
 * @return
 *   A static string; "unknown error" for values out of range.
 */
const char *uet_wire_strerror(int err);

/** Short symbolic name of an error ("truncated", "reserved", ...). */
const char *uet_wire_errname(int err);

/* ------------------------------------------------------------------ */
/* PDS code sets (UEC 1.0 PDS headers)                                 */
/* ------------------------------------------------------------------ */

/** PDS header type, prologue bits 15..11. */
enum uet_wire_pds_type {
	UET_PDS_TYPE_TSS = 1,
	UET_PDS_TYPE_RUD_REQ = 2,
	UET_PDS_TYPE_ROD_REQ = 3,
	UET_PDS_TYPE_RUDI_REQ = 4,
	UET_PDS_TYPE_RUDI_RESP = 5,
	UET_PDS_TYPE_UUD_REQ = 6,
	UET_PDS_TYPE_ACK = 7,
	UET_PDS_TYPE_ACK_CC = 8,
	UET_PDS_TYPE_ACK_CCX = 9,
	UET_PDS_TYPE_NACK = 10,
	UET_PDS_TYPE_CP = 11,
	UET_PDS_TYPE_NACK_CCX = 12,
	UET_PDS_TYPE_RUD_CC_REQ = 13,
	UET_PDS_TYPE_ROD_CC_REQ = 14,
};

/** Next header, prologue bits 10..7 (all types but CP). */
enum uet_wire_pds_next_hdr {
	UET_PDS_NEXT_NONE = 0,
	UET_PDS_NEXT_REQUEST_SMALL = 1,
	UET_PDS_NEXT_REQUEST_MEDIUM = 2,
	UET_PDS_NEXT_REQUEST_STD = 3,
	UET_PDS_NEXT_RESPONSE = 4,
	UET_PDS_NEXT_RESPONSE_DATA = 5,
	UET_PDS_NEXT_RESPONSE_DATA_SMALL = 6,
};

/** Control packet type, prologue bits 10..7 of a CP. */
enum uet_wire_pds_ctl_type {
	UET_PDS_CTL_NOOP = 0,
	UET_PDS_CTL_ACK_REQ = 1,
	UET_PDS_CTL_CLEAR = 2,
	UET_PDS_CTL_CLEAR_REQ = 3,
	UET_PDS_CTL_CLOSE = 4,
	UET_PDS_CTL_CLOSE_REQ = 5,
	UET_PDS_CTL_PROBE = 6,
	UET_PDS_CTL_CREDIT = 7,
	UET_PDS_CTL_CREDIT_REQ = 8,
	UET_PDS_CTL_NEGOTIATION = 9,
};

/* Flag bits inside prologue flags[6:0] (UEC 1.0 PDS prologue). */
#define UET_PDS_F_M     (1u << 5) /**< ACK/NACK/RUDI_RESP: request was CE-marked */
#define UET_PDS_F_ISROD (1u << 5) /**< CP: PDC is ROD */
#define UET_PDS_F_RETX  (1u << 4) /**< retransmission (echoed in ACKs) */
#define UET_PDS_F_AR    (1u << 3) /**< request/CP: ACK requested */
#define UET_PDS_F_P     (1u << 3) /**< ACK: reply to a probe */
#define UET_PDS_F_NT    (1u << 3) /**< NACK: NACK of a RUDI packet */
#define UET_PDS_F_SYN   (1u << 2) /**< request/CP: PDC establishment */
/** ACK (type ACK only): the Expected_PSN of the PDC's secure domain
 *  follows the header (secure PDC close; bit 6 is reserved in UEC 1.0:
 *  the UEC reference provider's extension, docs/WIRE-DECISIONS.md). */
#define UET_PDS_F_EPSN  (1u << 6)
#define UET_PDS_ACK_REQ_SHIFT 1    /**< ACK: REQ field in bits 2..1 */
#define UET_PDS_ACK_REQ_MASK  0x3u

/** ACK REQ field: what the target asks of the initiator. */
enum uet_wire_pds_ack_req {
	UET_PDS_ACK_REQ_NONE = 0,
	UET_PDS_ACK_REQ_CLEAR = 1,
	UET_PDS_ACK_REQ_CLOSE = 2,
};

/** NACK codes (UEC 1.0 PDS NACK header). */
enum uet_wire_pds_nack_code {
	UET_NACK_TRIMMED = 0x01,
	UET_NACK_TRIMMED_LASTHOP = 0x02,
	UET_NACK_TRIMMED_ACK = 0x03, /**< retired in 1.0.3: never sent, rejected */
	UET_NACK_NO_PDC_AVAIL = 0x04,
	UET_NACK_NO_CCC_AVAIL = 0x05,
	UET_NACK_NO_BITMAP = 0x06,
	UET_NACK_NO_PKT_BUFFER = 0x07,
	UET_NACK_NO_GTD_DEL_AVAIL = 0x08,
	UET_NACK_NO_SES_MSG_AVAIL = 0x09,
	UET_NACK_NO_RESOURCE = 0x0A,
	UET_NACK_PSN_OOR_WINDOW = 0x0B,
	UET_NACK_ROD_OOO = 0x0D,
	UET_NACK_INV_DPDCID = 0x0E,
	UET_NACK_PDC_HDR_MISMATCH = 0x0F,
	UET_NACK_CLOSING = 0x10,
	UET_NACK_CLOSING_IN_ERR = 0x11,
	UET_NACK_PKT_NOT_RCVD = 0x12,
	UET_NACK_GTD_DEL_RESP_UNAVAIL = 0x13,
	UET_NACK_ACK_WITH_DATA = 0x14,
	UET_NACK_INVALID_SYN = 0x15,
	UET_NACK_PDC_MODE_MISMATCH = 0x16,
	UET_NACK_NEW_START_PSN = 0x17,
	UET_NACK_RCVD_SES_PROCG = 0x18,
	UET_NACK_UNEXP_EVENT = 0x19,
	UET_NACK_RCVR_INFER_LOSS = 0x1A,
	UET_NACK_EXP_FD = 0xFD,
	UET_NACK_EXP_FE = 0xFE,
	UET_NACK_EXP_FF = 0xFF,
};

/** How the initiator reacts to a NACK code (this project's choice). */
enum uet_wire_nack_class {
	UET_NACK_CLASS_INVALID = 0, /**< undefined code */
	UET_NACK_CLASS_RETRANSMIT,  /**< resend the NACKed PSN (trims, OOR, OOO,
				     *   PKT_NOT_RCVD, ACK_WITH_DATA,
				     *   RCVR_INFER_LOSS) */
	UET_NACK_CLASS_RESOURCE,    /**< back off, then retry */
	UET_NACK_CLASS_FATAL,       /**< close the PDC, fail pending operations
				     *   (also GTD_DEL_RESP_UNAVAIL,
				     *   UNEXP_EVENT) */
	UET_NACK_CLASS_CLOSING,     /**< target is closing: reopen on a new PDC */
	UET_NACK_CLASS_INFO,        /**< no class reaction (RCVD_SES_PROCG:
				     *   received, wait; NEW_START_PSN has its
				     *   own) */
};

/** ACK_CC congestion-control state type. */
enum uet_wire_cc_type {
	UET_CC_TYPE_NSCC = 0,
	UET_CC_TYPE_CREDIT = 1,
};

/* ------------------------------------------------------------------ */
/* SES code sets (UEC 1.0 SES headers)                                 */
/* ------------------------------------------------------------------ */

/** SES request opcodes (6 bits). */
enum uet_wire_ses_opcode {
	UET_SES_OP_NO_OP = 0x00,
	UET_SES_OP_WRITE = 0x01,
	UET_SES_OP_READ = 0x02,
	UET_SES_OP_ATOMIC = 0x03,
	UET_SES_OP_FETCHING_ATOMIC = 0x04,
	UET_SES_OP_SEND = 0x05,
	UET_SES_OP_RENDEZVOUS_SEND = 0x06,
	UET_SES_OP_DATAGRAM_SEND = 0x07,
	UET_SES_OP_DEFERRABLE_SEND = 0x08,
	UET_SES_OP_TAGGED_SEND = 0x09,
	UET_SES_OP_RENDEZVOUS_TSEND = 0x0A,
	UET_SES_OP_DEFERRABLE_TSEND = 0x0B,
	UET_SES_OP_DEFERRABLE_RTR = 0x0C,
	UET_SES_OP_TSEND_ATOMIC = 0x0D,
	UET_SES_OP_TSEND_FETCH_ATOMIC = 0x0E,
	UET_SES_OP_MSG_ERROR = 0x0F,
};

/* SES request flag masks in byte 1 (below the 2-bit version). */
#define UET_SES_F_DC  0x20u /**< delivery complete */
#define UET_SES_F_IE  0x10u /**< initiator error */
#define UET_SES_F_REL 0x08u /**< relative addressing */
#define UET_SES_F_HD  0x04u /**< header data present */
#define UET_SES_F_EOM 0x02u /**< end of message */
#define UET_SES_F_SOM 0x01u /**< start of message */
#define UET_SES_FLAGS_MASK 0x3Fu
/** SES version carried by this implementation (DECISION: UEC 1.0 = 0). */
#define UET_SES_VERSION 0

/** SES response opcodes. */
enum uet_wire_ses_resp_opcode {
	UET_SES_RSP_DEFAULT_RESPONSE = 0,
	UET_SES_RSP_RESPONSE = 1,
	UET_SES_RSP_RESPONSE_W_DATA = 2,
	UET_SES_RSP_NO_RESPONSE = 3,
};

/** Which list a target matched on. */
enum uet_wire_ses_list {
	UET_SES_LIST_EXPECTED = 0,
	UET_SES_LIST_OVERFLOW = 1,
};

/** SES return codes (6 bits). */
enum uet_wire_ses_rc {
	UET_RC_NULL = 0x00,
	UET_RC_OK = 0x01,
	UET_RC_BAD_GENERATION = 0x02,
	UET_RC_DISABLED = 0x03,
	UET_RC_DISABLED_GEN = 0x04,
	UET_RC_NO_MATCH = 0x05,
	UET_RC_UNSUPPORTED_OP = 0x06,
	UET_RC_UNSUPPORTED_SIZE = 0x07,
	UET_RC_AT_INVALID = 0x08,
	UET_RC_AT_PERM = 0x09,
	UET_RC_AT_ATS_ERROR = 0x0A,
	UET_RC_AT_NO_TRANS = 0x0B,
	UET_RC_AT_OUT_OF_RANGE = 0x0C,
	UET_RC_HOST_POISONED = 0x0D,
	UET_RC_HOST_UNSUCCESS_CMPL = 0x0E,
	UET_RC_AMO_UNSUPPORTED_OP = 0x0F,
	UET_RC_AMO_UNSUPPORTED_DT = 0x10,
	UET_RC_AMO_UNSUPPORTED_SIZE = 0x11,
	UET_RC_AMO_UNALIGNED = 0x12,
	UET_RC_AMO_FP_NAN = 0x13,
	UET_RC_AMO_FP_UNDERFLOW = 0x14,
	UET_RC_AMO_FP_OVERFLOW = 0x15,
	UET_RC_AMO_FP_INEXACT = 0x16,
	UET_RC_PERM_VIOLATION = 0x17,
	UET_RC_OP_VIOLATION = 0x18,
	UET_RC_BAD_INDEX = 0x19,
	UET_RC_BAD_PID = 0x1A,
	UET_RC_BAD_JOB_ID = 0x1B,
	UET_RC_BAD_MKEY = 0x1C,
	UET_RC_BAD_ADDR = 0x1D,
	UET_RC_CANCELLED = 0x1E,
	UET_RC_UNDELIVERABLE = 0x1F,
	UET_RC_UNCOR = 0x20,
	UET_RC_UNCOR_TRNSNT = 0x21,
	UET_RC_TOO_LONG = 0x22,
	UET_RC_INITIATOR_ERROR = 0x23,
	UET_RC_DROPPED = 0x24,
};

/** Atomic operations. */
enum uet_wire_amo_op {
	UET_AMO_MIN = 0x00,
	UET_AMO_MAX = 0x01,
	UET_AMO_SUM = 0x02,
	UET_AMO_DIFF = 0x03,
	UET_AMO_PROD = 0x04,
	UET_AMO_LOR = 0x05,
	UET_AMO_LAND = 0x06,
	UET_AMO_BOR = 0x07,
	UET_AMO_BAND = 0x08,
	UET_AMO_LXOR = 0x09,
	UET_AMO_BXOR = 0x0A,
	UET_AMO_READ = 0x0B,
	UET_AMO_WRITE = 0x0C,
	UET_AMO_CSWAP = 0x0D,
	UET_AMO_CSWAP_NE = 0x0E,
	UET_AMO_CSWAP_LE = 0x0F,
	UET_AMO_CSWAP_LT = 0x10,
	UET_AMO_CSWAP_GE = 0x11,
	UET_AMO_CSWAP_GT = 0x12,
	UET_AMO_MSWAP = 0x13,
};

/** Atomic datatypes. */
enum uet_wire_amo_dt {
	UET_AMO_DT_INT8 = 0x00,
	UET_AMO_DT_UINT8 = 0x01,
	UET_AMO_DT_INT16 = 0x02,
	UET_AMO_DT_UINT16 = 0x03,
	UET_AMO_DT_INT32 = 0x04,
	UET_AMO_DT_UINT32 = 0x05,
	UET_AMO_DT_INT64 = 0x06,
	UET_AMO_DT_UINT64 = 0x07,
	UET_AMO_DT_INT128 = 0x08,
	UET_AMO_DT_UINT128 = 0x09,
	UET_AMO_DT_FLOAT = 0x0A,
	UET_AMO_DT_DOUBLE = 0x0B,
	UET_AMO_DT_FLOAT_COMPLEX = 0x0C,
	UET_AMO_DT_DOUBLE_COMPLEX = 0x0D,
	UET_AMO_DT_LONG_DOUBLE = 0x0E,
	UET_AMO_DT_LONG_DOUBLE_COMPLEX = 0x0F,
	UET_AMO_DT_BF16 = 0x10,
	UET_AMO_DT_FP16 = 0x11,
};

/** UET profiles (UEC 1.0: AI Base, AI Full, HPC). */
enum uet_wire_profile {
	UET_PROFILE_AI_BASE = 1,
	UET_PROFILE_AI_FULL = 2,
	UET_PROFILE_HPC = 3,
};

/** PDC delivery modes. */
enum uet_wire_pds_mode {
	UET_PDS_MODE_RUD = 0,
	UET_PDS_MODE_ROD = 1,
	UET_PDS_MODE_RUDI = 2,
	UET_PDS_MODE_UUD = 3,
};

/* Names of code points, for tools and logs: "RUD_REQ", "SEND", ... or NULL
 * when the value is undefined. */
const char *uet_wire_pds_type_name(unsigned int type);
const char *uet_wire_pds_next_hdr_name(unsigned int next_hdr);
const char *uet_wire_pds_ctl_type_name(unsigned int ctl_type);
const char *uet_wire_pds_nack_code_name(unsigned int code);
const char *uet_wire_ses_opcode_name(unsigned int opcode);
const char *uet_wire_ses_resp_opcode_name(unsigned int opcode);
const char *uet_wire_ses_rc_name(unsigned int rc);
const char *uet_wire_amo_op_name(unsigned int op);
const char *uet_wire_amo_dt_name(unsigned int dt);
const char *uet_wire_profile_name(unsigned int profile);
const char *uet_wire_pds_mode_name(unsigned int mode);

/** Class of a NACK code; UET_NACK_CLASS_INVALID for undefined codes. */
enum uet_wire_nack_class uet_wire_pds_nack_class(unsigned int code);

/**
 * Size of an atomic datatype's element in bytes (FLOAT_COMPLEX = 8,
 * LONG_DOUBLE = 16), or 0 for an undefined datatype.
 */
size_t uet_wire_amo_dt_size(unsigned int dt);

#ifdef __cplusplus
}
#endif

#include <uet/uet_wire_pds.h>
#include <uet/uet_wire_tss.h>
#include <uet/uet_wire_ses.h>
#include <uet/uet_wire_outer.h>
#include <uet/uet_psn.h>
#include <uet/uet_wire_packet.h>

#endif /* UET_WIRE_H */
