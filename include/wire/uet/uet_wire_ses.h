/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef UET_WIRE_SES_H
#define UET_WIRE_SES_H

/**
 * @file
 * SES request and response headers (UEC 1.0 SES): sizes,
 * host-order structs and their codecs.
 *
 * Request formats are named after the PDS next-header value that announces
 * them, so a `next_hdr` read from the prologue converts directly (see
 * uet_wire_ses_fmt_from_next_hdr()).
 *
 * Strictness: a decoder fills only the fields its format carries and zeroes
 * the rest; an encoder rejects a struct whose non-carried fields are not
 * zero (-UET_WIRE_E_BAD_COMBINATION). Hence, for every struct `x` that an
 * encoder accepts, decoding its output yields `x` again, byte for byte.
 * Layout decisions not settled by the specification are listed in
 * docs/WIRE-DECISIONS.md, section "SES".
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <uet/uet_wire.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ */
/* Sizes (UEC 1.0 SES requests, extensions, responses)                 */
/* ------------------------------------------------------------------ */

#define UET_SES_COMMON_LEN 12          /**< common part of every request */
#define UET_SES_STD_LEN 44             /**< standard request */
#define UET_SES_MEDIUM_LEN 32          /**< medium request */
#define UET_SES_SMALL_LEN 20           /**< small request */
#define UET_SES_ATOMIC_EXT_LEN 4       /**< atomic extension */
#define UET_SES_ATOMIC_CAS_EXT_LEN 36  /**< atomic extension, compare-and-swap form */
#define UET_SES_RDV_EXT_LEN 24         /**< rendezvous extension */
#define UET_SES_RESPONSE_LEN 12        /**< RESPONSE */
#define UET_SES_RESPONSE_DATA_LEN 20   /**< RESPONSE_DATA */
#define UET_SES_RESPONSE_DATA_SMALL_LEN 12 /**< RESPONSE_DATA_SMALL */
/** Longest request header with its extension (standard + CAS atomic). */
#define UET_SES_REQ_MAX_LEN (UET_SES_STD_LEN + UET_SES_ATOMIC_CAS_EXT_LEN)

/* Field ranges of sub-byte and odd-width fields. */
#define UET_SES_OPCODE_MAX 0x3Fu   /**< width of the request/response opcode field */
#define UET_SES_VERSION_MAX 0x3u   /**< width of the version field */
#define UET_SES_JOB_ID_MAX 0xFFFFFFu
#define UET_SES_PID_MAX 0xFFFu     /**< pid_on_fep, 12 bits */
#define UET_SES_RI_MAX 0xFFFu      /**< resource_index, 12 bits */
#define UET_SES_LEN14_MAX 0x3FFFu  /**< 14-bit lengths */
#define UET_SES_RC_MAX 0x3Fu       /**< width of the return-code field */

/* Atomic extension semantic_control bits (UEC 1.0); others reserved. */
#define UET_SES_AMO_SC_CACHEABLE 0x01u
#define UET_SES_AMO_SC_CPU_COHERENT 0x02u
#define UET_SES_AMO_SC_MASK 0x03u

/* ------------------------------------------------------------------ */
/* Formats                                                             */
/* ------------------------------------------------------------------ */

/** Request header format; values equal the PDS next-header code. */
enum uet_wire_ses_fmt {
	UET_SES_FMT_SMALL = UET_PDS_NEXT_REQUEST_SMALL,   /**< 20 B */
	UET_SES_FMT_MEDIUM = UET_PDS_NEXT_REQUEST_MEDIUM, /**< 32 B */
	UET_SES_FMT_STD = UET_PDS_NEXT_REQUEST_STD,       /**< 44 B */
};

/** Response header format; values equal the PDS next-header code. */
enum uet_wire_ses_resp_fmt {
	UET_SES_RESP_FMT_RESPONSE = UET_PDS_NEXT_RESPONSE,       /**< 12 B */
	UET_SES_RESP_FMT_DATA = UET_PDS_NEXT_RESPONSE_DATA,      /**< 20 B */
	UET_SES_RESP_FMT_DATA_SMALL = UET_PDS_NEXT_RESPONSE_DATA_SMALL, /**< 12 B */
};

/** Extension header following a request header (UEC 1.0 SES). */
enum uet_wire_ses_ext {
	UET_SES_EXT_NONE = 0,
	UET_SES_EXT_ATOMIC,     /**< 4 B atomic extension */
	UET_SES_EXT_ATOMIC_CAS, /**< 36 B compare-and-swap form */
	UET_SES_EXT_RDV,        /**< 24 B rendezvous extension */
};

/** PDS next-header value of a request format (0 if @p fmt is undefined). */
static inline unsigned int
uet_wire_ses_fmt_to_next_hdr(enum uet_wire_ses_fmt fmt)
{
	switch (fmt) {
	case UET_SES_FMT_SMALL:
	case UET_SES_FMT_MEDIUM:
	case UET_SES_FMT_STD:
		return (unsigned int)fmt;
	}
	return UET_PDS_NEXT_NONE;
}

/**
 * Request format announced by a PDS next-header value.
 * @return
 *   The `enum uet_wire_ses_fmt` value, or -UET_WIRE_E_BAD_NEXT_HDR when
 *   @p next_hdr is not REQUEST_SMALL, REQUEST_MEDIUM or REQUEST_STD.
 */
static inline int
uet_wire_ses_fmt_from_next_hdr(unsigned int next_hdr)
{
	if (next_hdr >= UET_PDS_NEXT_REQUEST_SMALL &&
	    next_hdr <= UET_PDS_NEXT_REQUEST_STD)
		return (int)next_hdr;
	return -UET_WIRE_E_BAD_NEXT_HDR;
}

/** PDS next-header value of a response format (0 if @p fmt is undefined). */
static inline unsigned int
uet_wire_ses_resp_fmt_to_next_hdr(enum uet_wire_ses_resp_fmt fmt)
{
	switch (fmt) {
	case UET_SES_RESP_FMT_RESPONSE:
	case UET_SES_RESP_FMT_DATA:
	case UET_SES_RESP_FMT_DATA_SMALL:
		return (unsigned int)fmt;
	}
	return UET_PDS_NEXT_NONE;
}

/**
 * Response format announced by a PDS next-header value.
 * @return
 *   The `enum uet_wire_ses_resp_fmt` value, or -UET_WIRE_E_BAD_NEXT_HDR when
 *   @p next_hdr is not RESPONSE, RESPONSE_DATA or RESPONSE_DATA_SMALL.
 */
static inline int
uet_wire_ses_resp_fmt_from_next_hdr(unsigned int next_hdr)
{
	if (next_hdr >= UET_PDS_NEXT_RESPONSE &&
	    next_hdr <= UET_PDS_NEXT_RESPONSE_DATA_SMALL)
		return (int)next_hdr;
	return -UET_WIRE_E_BAD_NEXT_HDR;
}

/** Size of a request header without extension; 0 for an undefined format. */
size_t uet_wire_ses_fmt_len(enum uet_wire_ses_fmt fmt);

/** Size of a response header; 0 for an undefined format. */
size_t uet_wire_ses_resp_fmt_len(enum uet_wire_ses_resp_fmt fmt);

/** Size of an extension header; 0 for UET_SES_EXT_NONE or undefined. */
size_t uet_wire_ses_ext_len(enum uet_wire_ses_ext ext);

/**
 * Whether request format @p fmt may carry request opcode @p opcode
 * (table in docs/WIRE-DECISIONS.md): STD carries every opcode; MEDIUM
 * carries NO_OP, WRITE, READ, the four atomics, SEND, DATAGRAM_SEND and
 * TAGGED_SEND; SMALL carries NO_OP, WRITE, READ and SEND.
 */
bool uet_wire_ses_fmt_allows(enum uet_wire_ses_fmt fmt, unsigned int opcode);

/** Whether @p op is a compare-and-swap atomic (CSWAP..CSWAP_GT, MSWAP). */
static inline bool
uet_wire_ses_amo_op_is_cas(unsigned int op)
{
	return op >= UET_AMO_CSWAP && op <= UET_AMO_MSWAP;
}

/* ------------------------------------------------------------------ */
/* Requests                                                            */
/* ------------------------------------------------------------------ */

/** Atomic extension (UEC 1.0 SES). */
struct uet_wire_ses_atomic_ext {
	uint8_t op;               /**< enum uet_wire_amo_op, <= UET_AMO_MSWAP */
	uint8_t datatype;         /**< enum uet_wire_amo_dt, <= UET_AMO_DT_FP16 */
	uint8_t semantic_control; /**< UET_SES_AMO_SC_* bits */
	uint8_t compare[16];      /**< CAS form only, else zero */
	uint8_t swap[16];         /**< CAS form only, else zero */
};

/** Rendezvous extension (UEC 1.0 SES). */
struct uet_wire_ses_rdv_ext {
	uint32_t eager_length;        /**< bytes sent eagerly with the request */
	uint8_t read_ri_generation;   /**< generation of the initiator's RI entry */
	uint16_t read_pid_on_fep;     /**< 12 bits */
	uint16_t read_resource_index; /**< 12 bits */
	uint64_t read_offset;         /**< where the target reads the rest */
	uint64_t read_key_or_match;   /**< key (or match bits) of that buffer */
};

/**
 * SES request header in host order. Fields a format does not carry must
 * be zero when encoding and are zero after decoding.
 */
struct uet_wire_ses_req {
	uint8_t opcode;          /**< enum uet_wire_ses_opcode (6-bit field) */
	uint8_t version;         /**< must be UET_SES_VERSION (2-bit field) */
	uint8_t flags;           /**< UET_SES_F_* bits (6-bit field) */
	uint16_t message_id;     /**< STD only */
	uint8_t ri_generation;
	uint32_t job_id;         /**< 24 bits */
	uint16_t pid_on_fep;     /**< 12 bits */
	uint16_t resource_index; /**< 12 bits */
	/**
	 * STD and SMALL; MEDIUM when HD is clear. Deferrable sends: initiator
	 * token (high 32 bits) and target token (low 32 bits). RTR: restart
	 * offset.
	 */
	uint64_t buffer_offset;
	uint32_t initiator;      /**< STD and MEDIUM: initiator's PIDonFEP/rank */
	/** STD and MEDIUM: memory key or match bits. RTR: the restart
	 * tokens (initiator high, target low). */
	uint64_t match_bits;
	/**
	 * STD with SOM set (sent whatever HD says; HD tells whether it is
	 * meaningful) and MEDIUM with HD set. DEFERRABLE_RTR: the deferred
	 * send's match bits.
	 */
	uint64_t header_data;
	uint16_t payload_length; /**< STD continuation (SOM clear), 14 bits */
	uint32_t message_offset; /**< STD continuation (SOM clear) */
	/** Whole message length: 32 bits in STD, 14 bits in SMALL/MEDIUM. */
	uint32_t request_length;
	enum uet_wire_ses_ext ext;    /**< must equal uet_wire_ses_req_ext_needed() */
	struct uet_wire_ses_atomic_ext atomic; /**< valid if ext is ATOMIC/ATOMIC_CAS */
	struct uet_wire_ses_rdv_ext rdv;       /**< valid if ext is RDV */
};

/**
 * Extension a request must carry, derived from its opcode, SOM flag and
 * (for atomics) atomic.op: the atomics carry UET_SES_EXT_ATOMIC (or
 * UET_SES_EXT_ATOMIC_CAS for a CAS op) on their SOM packet; the rendezvous
 * sends carry UET_SES_EXT_RDV on their SOM packet; nothing else does.
 */
enum uet_wire_ses_ext uet_wire_ses_req_ext_needed(const struct uet_wire_ses_req *h);

/**
 * Bytes uet_wire_ses_req_encode() writes for @p h in format @p fmt: the header
 * plus the extension named by h->ext. Does not validate @p h.
 * @return
 *   The length, or 0 when @p fmt is undefined.
 */
size_t uet_wire_ses_req_len(const struct uet_wire_ses_req *h, enum uet_wire_ses_fmt fmt);

/**
 * Encode a request header and its extension.
 * @param h
 *   The header; fields not carried by @p fmt must be zero.
 * @param fmt
 *   Output format.
 * @param buf
 *   Output buffer.
 * @param cap
 *   Size of @p buf.
 * @return
 *   Bytes written (header + extension), or a negated error:
 *   - UET_WIRE_E_BAD_NEXT_HDR: @p fmt undefined.
 *   - UET_WIRE_E_BAD_FIELD: a value does not fit its field.
 *   - UET_WIRE_E_BAD_OPCODE: opcode undefined (0x10..0x3F).
 *   - UET_WIRE_E_BAD_VERSION: version is not UET_SES_VERSION.
 *   - UET_WIRE_E_RESERVED: reserved semantic_control bits set.
 *   - UET_WIRE_E_BAD_ATOMIC: atomic op or datatype undefined.
 *   - UET_WIRE_E_BAD_COMBINATION: opcode, flags, format and extension
 *     disagree, or a field the format does not carry is not zero.
 *   - UET_WIRE_E_NOSPACE: @p cap below uet_wire_ses_req_len().
 */
int uet_wire_ses_req_encode(const struct uet_wire_ses_req *h, enum uet_wire_ses_fmt fmt,
		       uint8_t *buf, size_t cap);

/**
 * Decode a request header and its extension.
 * @param buf
 *   Start of the SES header.
 * @param len
 *   Bytes available at @p buf (may include payload).
 * @param fmt
 *   Format announced by the PDS next header.
 * @param h
 *   Output; every field is written (zero when not carried).
 * @return
 *   Bytes consumed (header + extension), or a negated error:
 *   - UET_WIRE_E_BAD_NEXT_HDR: @p fmt undefined.
 *   - UET_WIRE_E_TRUNCATED: @p len shorter than header + extension.
 *   - UET_WIRE_E_RESERVED: a reserved bit is set.
 *   - UET_WIRE_E_BAD_OPCODE, UET_WIRE_E_BAD_VERSION, UET_WIRE_E_BAD_ATOMIC,
 *     UET_WIRE_E_BAD_COMBINATION: as for uet_wire_ses_req_encode().
 */
int uet_wire_ses_req_decode(const uint8_t *buf, size_t len, enum uet_wire_ses_fmt fmt,
		       struct uet_wire_ses_req *h);

/*
 * Restart tokens (docs/WIRE-DECISIONS.md "Deferrable send and ready to
 * restart"). A deferrable send (DEFERRABLE_SEND/TSEND) carries them in
 * buffer_offset (UEC 1.0 SES standard request header): initiator token in bits
 * 63..32, target token in bits 31..0. A DEFERRABLE_RTR follows the
 * ready-to-restart layout: buffer_offset is the restart offset, the key/match
 * slot holds the initiator restart token (bits 63..32) and the target restart
 * token (bits 31..0), the header-data slot the deferred send's match bits.
 * The accessors pick the slot by h->opcode, so set it first.
 */
static inline uint64_t *
uet_wire_ses_req_token_slot_(struct uet_wire_ses_req *h)
{
	return h->opcode == UET_SES_OP_DEFERRABLE_RTR ? &h->match_bits :
							&h->buffer_offset;
}

/** Deferrable send / RTR: initiator restart token. */
static inline uint32_t
uet_wire_ses_req_token_initiator(const struct uet_wire_ses_req *h)
{
	uint64_t v = h->opcode == UET_SES_OP_DEFERRABLE_RTR ? h->match_bits :
							      h->buffer_offset;

	return (uint32_t)(v >> 32);
}

/** Initiator restart token of this SES: generation (8 bits) | slot field
 * (24 bits: the owner, when an engine runs several SES, above slot + 1).
 * The initiator alone reads it; an engine steers by the owner. */
#define UET_WIRE_SES_TOKEN_SLOT_BITS 24

/** The owner (engine context) in initiator restart token @p tok of an SES
 * configured with @p owner_bits (uet_ses_config.token_owner_bits). */
static inline uint32_t
uet_wire_ses_token_owner(uint32_t tok, uint32_t owner_bits)
{
	uint32_t field = tok & ((1u << UET_WIRE_SES_TOKEN_SLOT_BITS) - 1);

	return owner_bits == 0 ? 0 :
	       field >> (UET_WIRE_SES_TOKEN_SLOT_BITS - owner_bits);
}

/** Deferrable send / RTR: target restart token. */
static inline uint32_t
uet_wire_ses_req_token_target(const struct uet_wire_ses_req *h)
{
	uint64_t v = h->opcode == UET_SES_OP_DEFERRABLE_RTR ? h->match_bits :
							      h->buffer_offset;

	return (uint32_t)(v & UINT32_MAX);
}

/** Deferrable send / RTR: store both tokens in the opcode's slot. */
static inline void
uet_wire_ses_req_set_tokens(struct uet_wire_ses_req *h, uint32_t initiator_token,
		       uint32_t target_token)
{
	*uet_wire_ses_req_token_slot_(h) =
		((uint64_t)initiator_token << 32) | target_token;
}

/** DEFERRABLE_RTR: message offset to restart from (buffer_offset). */
static inline uint64_t
uet_wire_ses_req_restart_offset(const struct uet_wire_ses_req *h)
{
	return h->buffer_offset;
}

/** DEFERRABLE_RTR: set the restart offset (buffer_offset). */
static inline void
uet_wire_ses_req_set_restart_offset(struct uet_wire_ses_req *h, uint64_t offset)
{
	h->buffer_offset = offset;
}

/** DEFERRABLE_RTR: the deferred send's match bits (header-data slot). */
static inline uint64_t
uet_wire_ses_req_rtr_match_bits(const struct uet_wire_ses_req *h)
{
	return h->header_data;
}

/** DEFERRABLE_RTR: set the deferred send's match bits. */
static inline void
uet_wire_ses_req_set_rtr_match_bits(struct uet_wire_ses_req *h, uint64_t bits)
{
	h->header_data = bits;
}

/* ------------------------------------------------------------------ */
/* Responses                                                           */
/* ------------------------------------------------------------------ */

/**
 * SES response header in host order (UEC 1.0 SES responses). Fields a format
 * does not carry must be zero when encoding and are zero after decoding.
 */
struct uet_wire_ses_resp {
	enum uet_wire_ses_resp_fmt fmt;
	uint8_t list;                     /**< enum uet_wire_ses_list (2-bit field) */
	uint8_t opcode;                   /**< enum uet_wire_ses_resp_opcode */
	uint8_t version;                  /**< must be UET_SES_VERSION */
	uint8_t return_code;              /**< enum uet_wire_ses_rc */
	uint16_t message_id;              /**< RESPONSE, DATA */
	uint8_t ri_generation;            /**< RESPONSE only */
	uint32_t job_id;                  /**< 24 bits, every format */
	uint32_t modified_length;         /**< RESPONSE, DATA */
	uint16_t read_request_message_id; /**< DATA only */
	uint16_t payload_length;          /**< DATA, DATA_SMALL; 14 bits */
	uint32_t message_offset;          /**< DATA only */
	uint32_t original_request_psn;    /**< DATA_SMALL only */
};

/**
 * Encode a response header in format h->fmt.
 * @return
 *   Bytes written, or a negated error:
 *   - UET_WIRE_E_BAD_NEXT_HDR: h->fmt undefined.
 *   - UET_WIRE_E_BAD_FIELD: a value does not fit its field, or list or
 *     return_code is undefined.
 *   - UET_WIRE_E_BAD_OPCODE: opcode above NO_RESPONSE.
 *   - UET_WIRE_E_BAD_VERSION: version is not UET_SES_VERSION.
 *   - UET_WIRE_E_BAD_COMBINATION: a data format without opcode
 *     RESPONSE_W_DATA (or RESPONSE with it), or a field the format does
 *     not carry is not zero.
 *   - UET_WIRE_E_NOSPACE: @p cap below the header size.
 */
int uet_wire_ses_resp_encode(const struct uet_wire_ses_resp *h, uint8_t *buf,
			size_t cap);

/**
 * Decode a response header.
 * @param fmt
 *   Format announced by the PDS next header (4, 5 or 6).
 * @return
 *   Bytes consumed, or a negated error: UET_WIRE_E_BAD_NEXT_HDR,
 *   UET_WIRE_E_TRUNCATED, UET_WIRE_E_RESERVED, or the encoder's
 *   validation errors.
 */
int uet_wire_ses_resp_decode(const uint8_t *buf, size_t len,
			enum uet_wire_ses_resp_fmt fmt, struct uet_wire_ses_resp *h);

/**
 * The JobID of a request or response header, read in place: the one
 * field a layer below the SES needs (TSS picks a frame's secure domain
 * by it, UEC 1.0 3.7), so that only the SES decodes the header. The
 * JobID sits at the same offset in every format (UEC 1.0 SES headers).
 * What the field rests on is checked as the decoder checks it: the
 * header's length, version and an opcode the format carries; the other
 * fields are left to the decoder, so a header this refuses the decoder
 * refuses too, one it accepts the decoder may still refuse.
 * @param next_hdr
 *   The PDS next header: a request (1-3) or response (4-6) format.
 * @return
 *   0 and @p job_id, or a negated error: UET_WIRE_E_BAD_NEXT_HDR (no SES
 *   header), UET_WIRE_E_TRUNCATED (@p len below the format's header),
 *   UET_WIRE_E_RESERVED, UET_WIRE_E_BAD_OPCODE or
 *   UET_WIRE_E_BAD_COMBINATION (no opcode of the format),
 *   UET_WIRE_E_BAD_VERSION.
 */
int uet_wire_ses_job_id(const uint8_t *buf, size_t len, unsigned int next_hdr,
			uint32_t *job_id);

/**
 * The PIDonFEP of a request header, read in place: what steers a frame
 * to the engine context serving that process, below the SES. Checked as
 * uet_wire_ses_job_id() checks a request, and the 4 reserved bits above
 * the field.
 * @param next_hdr
 *   The PDS next header: a request format (1-3).
 * @return
 *   0 and @p pid, or the negated errors of uet_wire_ses_job_id()
 *   (UET_WIRE_E_BAD_NEXT_HDR: no request header), UET_WIRE_E_RESERVED
 *   also for the 4 bits above the field.
 */
int uet_wire_ses_req_pid(const uint8_t *buf, size_t len, unsigned int next_hdr,
			 uint16_t *pid);

#ifdef __cplusplus
}
#endif

#endif /* UET_WIRE_SES_H */
