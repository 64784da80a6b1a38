/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * SES request/response header codecs (UEC 1.0 SES headers). Decisions
 * the spec text leaves open are listed in docs/WIRE-DECISIONS.md ("SES").
 */

#include <string.h>

#include <uet/uet_wire.h>

#include "wire_be.h"
#include "ses_private.h"

/* Opcodes each request format may carry (docs/WIRE-DECISIONS.md). */
#define SES_OPBIT(op) (1u << (op))
#define SES_OPS_STD 0xFFFFu
#define SES_OPS_MEDIUM                                                      \
	(SES_OPBIT(UET_SES_OP_NO_OP) | SES_OPBIT(UET_SES_OP_WRITE) |        \
	 SES_OPBIT(UET_SES_OP_READ) | SES_OPBIT(UET_SES_OP_ATOMIC) |        \
	 SES_OPBIT(UET_SES_OP_FETCHING_ATOMIC) | SES_OPBIT(UET_SES_OP_SEND) | \
	 SES_OPBIT(UET_SES_OP_DATAGRAM_SEND) |                              \
	 SES_OPBIT(UET_SES_OP_TAGGED_SEND) |                                \
	 SES_OPBIT(UET_SES_OP_TSEND_ATOMIC) |                               \
	 SES_OPBIT(UET_SES_OP_TSEND_FETCH_ATOMIC))
#define SES_OPS_SMALL                                                       \
	(SES_OPBIT(UET_SES_OP_NO_OP) | SES_OPBIT(UET_SES_OP_WRITE) |        \
	 SES_OPBIT(UET_SES_OP_READ) | SES_OPBIT(UET_SES_OP_SEND))

#define SES_SOM_EOM (UET_SES_F_SOM | UET_SES_F_EOM)

size_t
uet_wire_ses_fmt_len(enum uet_wire_ses_fmt fmt)
{
	switch (fmt) {
	case UET_SES_FMT_SMALL:
		return UET_SES_SMALL_LEN;
	case UET_SES_FMT_MEDIUM:
		return UET_SES_MEDIUM_LEN;
	case UET_SES_FMT_STD:
		return UET_SES_STD_LEN;
	}
	return 0;
}

size_t
uet_wire_ses_resp_fmt_len(enum uet_wire_ses_resp_fmt fmt)
{
	switch (fmt) {
	case UET_SES_RESP_FMT_RESPONSE:
		return UET_SES_RESPONSE_LEN;
	case UET_SES_RESP_FMT_DATA:
		return UET_SES_RESPONSE_DATA_LEN;
	case UET_SES_RESP_FMT_DATA_SMALL:
		return UET_SES_RESPONSE_DATA_SMALL_LEN;
	}
	return 0;
}

size_t
uet_wire_ses_ext_len(enum uet_wire_ses_ext ext)
{
	switch (ext) {
	case UET_SES_EXT_NONE:
		return 0;
	case UET_SES_EXT_ATOMIC:
		return UET_SES_ATOMIC_EXT_LEN;
	case UET_SES_EXT_ATOMIC_CAS:
		return UET_SES_ATOMIC_CAS_EXT_LEN;
	case UET_SES_EXT_RDV:
		return UET_SES_RDV_EXT_LEN;
	}
	return 0;
}

bool
uet_wire_ses_fmt_allows(enum uet_wire_ses_fmt fmt, unsigned int opcode)
{
	uint32_t ops;

	switch (fmt) {
	case UET_SES_FMT_STD:
		ops = SES_OPS_STD;
		break;
	case UET_SES_FMT_MEDIUM:
		ops = SES_OPS_MEDIUM;
		break;
	case UET_SES_FMT_SMALL:
		ops = SES_OPS_SMALL;
		break;
	default:
		return false;
	}
	return opcode <= UET_SES_OP_MSG_ERROR && (ops & SES_OPBIT(opcode));
}

static bool
ses_op_is_atomic(unsigned int opcode)
{
	return opcode == UET_SES_OP_ATOMIC ||
	       opcode == UET_SES_OP_FETCHING_ATOMIC ||
	       opcode == UET_SES_OP_TSEND_ATOMIC ||
	       opcode == UET_SES_OP_TSEND_FETCH_ATOMIC;
}

static bool
ses_op_is_rdv(unsigned int opcode)
{
	return opcode == UET_SES_OP_RENDEZVOUS_SEND ||
	       opcode == UET_SES_OP_RENDEZVOUS_TSEND;
}

enum uet_wire_ses_ext
uet_wire_ses_req_ext_needed(const struct uet_wire_ses_req *h)
{
	/* Extensions ride on the SOM packet only (WIRE-DECISIONS "SES"). */
	if (!(h->flags & UET_SES_F_SOM))
		return UET_SES_EXT_NONE;
	if (ses_op_is_atomic(h->opcode))
		return uet_wire_ses_amo_op_is_cas(h->atomic.op) ?
			       UET_SES_EXT_ATOMIC_CAS : UET_SES_EXT_ATOMIC;
	if (ses_op_is_rdv(h->opcode))
		return UET_SES_EXT_RDV;
	return UET_SES_EXT_NONE;
}

size_t
uet_wire_ses_req_len(const struct uet_wire_ses_req *h, enum uet_wire_ses_fmt fmt)
{
	size_t hlen = uet_wire_ses_fmt_len(fmt);

	return hlen == 0 ? 0 : hlen + uet_wire_ses_ext_len(h->ext);
}

/* ------------------------------------------------------------------ */
/* Request validation shared by encoder and decoder                    */
/* ------------------------------------------------------------------ */

/* Opcode, version and the combination rules (WIRE-DECISIONS "SES"). */
static int
ses_req_check(const struct uet_wire_ses_req *h, enum uet_wire_ses_fmt fmt)
{
	bool som = h->flags & UET_SES_F_SOM;
	bool hd = h->flags & UET_SES_F_HD;
	bool single = (h->flags & SES_SOM_EOM) == SES_SOM_EOM;

	if (h->opcode > UET_SES_OP_MSG_ERROR)
		return -UET_WIRE_E_BAD_OPCODE;
	if (h->version != UET_SES_VERSION)
		return -UET_WIRE_E_BAD_VERSION;
	/* UEC 1.0 SES standard request header: medium and small are
	 * single-packet. */
	if (fmt != UET_SES_FMT_STD && !single)
		return -UET_WIRE_E_BAD_COMBINATION;
	if (!uet_wire_ses_fmt_allows(fmt, h->opcode))
		return -UET_WIRE_E_BAD_COMBINATION;
	/* UEC 1.0 SES standard request header: header_data exists only on a SOM
	 * packet; small has no slot. */
	if (hd && (!som || fmt == UET_SES_FMT_SMALL))
		return -UET_WIRE_E_BAD_COMBINATION;
	/* UEC 1.0 SES send variants: a datagram is a single packet with message
	 * id 0. */
	if (h->opcode == UET_SES_OP_DATAGRAM_SEND &&
	    (!single || h->message_id != 0))
		return -UET_WIRE_E_BAD_COMBINATION;
	/* RTR: a single packet whose header-data slot carries the deferred
	 * send's match bits, not header data (WIRE-DECISIONS.md). */
	if (h->opcode == UET_SES_OP_DEFERRABLE_RTR && (!single || hd))
		return -UET_WIRE_E_BAD_COMBINATION;
	return 0;
}

static int
ses_atomic_check(const struct uet_wire_ses_atomic_ext *a)
{
	if (a->op > UET_AMO_MSWAP || a->datatype > UET_AMO_DT_FP16)
		return -UET_WIRE_E_BAD_ATOMIC;
	if (a->semantic_control & ~UET_SES_AMO_SC_MASK)
		return -UET_WIRE_E_RESERVED;
	return 0;
}

/* ------------------------------------------------------------------ */
/* Request encoder                                                     */
/* ------------------------------------------------------------------ */

static int
ses_req_check_ranges(const struct uet_wire_ses_req *h, enum uet_wire_ses_fmt fmt)
{
	if (h->opcode > UET_SES_OPCODE_MAX ||
	    h->version > UET_SES_VERSION_MAX ||
	    h->flags > UET_SES_FLAGS_MASK ||
	    h->job_id > UET_SES_JOB_ID_MAX ||
	    h->pid_on_fep > UET_SES_PID_MAX ||
	    h->resource_index > UET_SES_RI_MAX ||
	    h->payload_length > UET_SES_LEN14_MAX ||
	    (unsigned int)h->ext > UET_SES_EXT_RDV ||
	    h->rdv.read_pid_on_fep > UET_SES_PID_MAX ||
	    h->rdv.read_resource_index > UET_SES_RI_MAX)
		return -UET_WIRE_E_BAD_FIELD;
	if (fmt != UET_SES_FMT_STD && h->request_length > UET_SES_LEN14_MAX)
		return -UET_WIRE_E_BAD_FIELD;
	return 0;
}

/* Every request encode checks the atomic operand arrays: a word at a
 * time, no early exit (they are zero in all but atomic requests). */
/* Decoded headers are cleared by copying this: gcc turns a memset() of
 * this size into `rep stos`, whose start-up costs more than the copy
 * (once per received request). */
static const struct uet_wire_ses_req ses_req_zero;

static bool
ses_bytes_zero(const uint8_t *p, size_t n)
{
	uint64_t acc = 0, w;
	size_t i;

	for (i = 0; i + sizeof(w) <= n; i += sizeof(w)) {
		memcpy(&w, p + i, sizeof(w));
		acc |= w;
	}
	for (; i < n; i++)
		acc |= p[i];
	return acc == 0;
}

static bool
ses_atomic_zero(const struct uet_wire_ses_atomic_ext *a, bool keep_base)
{
	if (!keep_base &&
	    (a->op != 0 || a->datatype != 0 || a->semantic_control != 0))
		return false;
	return ses_bytes_zero(a->compare, sizeof(a->compare)) &&
	       ses_bytes_zero(a->swap, sizeof(a->swap));
}

static bool
ses_rdv_zero(const struct uet_wire_ses_rdv_ext *r)
{
	return r->eager_length == 0 && r->read_ri_generation == 0 &&
	       r->read_pid_on_fep == 0 && r->read_resource_index == 0 &&
	       r->read_offset == 0 && r->read_key_or_match == 0;
}

/* Fields the format does not carry must be zero, so that decoding gives
 * back exactly what was encoded instead of silently dropping data. */
static bool
ses_req_uncarried_zero(const struct uet_wire_ses_req *h, enum uet_wire_ses_fmt fmt)
{
	bool som = h->flags & UET_SES_F_SOM;
	bool hd = h->flags & UET_SES_F_HD;

	if (fmt != UET_SES_FMT_STD && h->message_id != 0)
		return false;
	if (fmt == UET_SES_FMT_SMALL &&
	    (h->initiator != 0 || h->match_bits != 0 || h->header_data != 0))
		return false;
	if (fmt == UET_SES_FMT_MEDIUM &&
	    (hd ? h->buffer_offset != 0 : h->header_data != 0))
		return false;
	if (som && (h->payload_length != 0 || h->message_offset != 0))
		return false;
	if (!som && h->header_data != 0)
		return false;
	if (h->ext != UET_SES_EXT_ATOMIC_CAS &&
	    !ses_atomic_zero(&h->atomic, h->ext == UET_SES_EXT_ATOMIC))
		return false;
	if (h->ext != UET_SES_EXT_RDV && !ses_rdv_zero(&h->rdv))
		return false;
	return true;
}

static int
ses_req_validate(const struct uet_wire_ses_req *h, enum uet_wire_ses_fmt fmt)
{
	int rc;

	rc = ses_req_check_ranges(h, fmt);
	if (rc < 0)
		return rc;
	rc = ses_req_check(h, fmt);
	if (rc < 0)
		return rc;
	if (h->ext != uet_wire_ses_req_ext_needed(h))
		return -UET_WIRE_E_BAD_COMBINATION;
	if (h->ext == UET_SES_EXT_ATOMIC || h->ext == UET_SES_EXT_ATOMIC_CAS) {
		rc = ses_atomic_check(&h->atomic);
		if (rc < 0)
			return rc;
	}
	if (!ses_req_uncarried_zero(h, fmt))
		return -UET_WIRE_E_BAD_COMBINATION;
	return 0;
}

static void
ses_put_common(const struct uet_wire_ses_req *h, enum uet_wire_ses_fmt fmt, uint8_t *p)
{
	p[SES_OFF_OPCODE] = h->opcode;
	p[SES_OFF_FLAGS] =
		(uint8_t)((h->version << SES_VERSION_SHIFT) | h->flags);
	if (fmt == UET_SES_FMT_STD)
		be16_store(p + SES_OFF_MSG_ID, h->message_id);
	else
		be16_store(p + SES_OFF_MSG_ID, (uint16_t)h->request_length);
	p[SES_OFF_RI_GEN] = h->ri_generation;
	be24_store(p + SES_OFF_JOB_ID, h->job_id);
	be16_store(p + SES_OFF_PID, h->pid_on_fep);
	be16_store(p + SES_OFF_RI, h->resource_index);
}

static void
ses_put_std(const struct uet_wire_ses_req *h, uint8_t *p)
{
	be64_store(p + SES_STD_OFF_BUF_OFFSET, h->buffer_offset);
	be32_store(p + SES_STD_OFF_INITIATOR, h->initiator);
	be64_store(p + SES_STD_OFF_MATCH, h->match_bits);
	if (h->flags & UET_SES_F_SOM) {
		be64_store(p + SES_STD_OFF_HDR_DATA, h->header_data);
	} else {
		be32_store(p + SES_STD_OFF_PAYLOAD_LEN, h->payload_length);
		be32_store(p + SES_STD_OFF_MSG_OFFSET, h->message_offset);
	}
	be32_store(p + SES_STD_OFF_REQ_LEN, h->request_length);
}

static void
ses_put_medium(const struct uet_wire_ses_req *h, uint8_t *p)
{
	uint64_t slot = (h->flags & UET_SES_F_HD) ? h->header_data :
						    h->buffer_offset;

	be64_store(p + SES_MED_OFF_HD_OR_BUF, slot);
	be32_store(p + SES_MED_OFF_INITIATOR, h->initiator);
	be64_store(p + SES_MED_OFF_MATCH, h->match_bits);
}

static void
ses_put_ext(const struct uet_wire_ses_req *h, uint8_t *p)
{
	const struct uet_wire_ses_atomic_ext *a = &h->atomic;
	const struct uet_wire_ses_rdv_ext *r = &h->rdv;

	switch (h->ext) {
	case UET_SES_EXT_ATOMIC_CAS:
		memcpy(p + SES_AMO_OFF_COMPARE, a->compare, sizeof(a->compare));
		memcpy(p + SES_AMO_OFF_SWAP, a->swap, sizeof(a->swap));
		/* fall through */
	case UET_SES_EXT_ATOMIC:
		p[SES_AMO_OFF_OP] = a->op;
		p[SES_AMO_OFF_DT] = a->datatype;
		p[SES_AMO_OFF_SC] = a->semantic_control;
		p[SES_AMO_OFF_RSVD] = 0;
		break;
	case UET_SES_EXT_RDV:
		be32_store(p + SES_RDV_OFF_EAGER, r->eager_length);
		p[SES_RDV_OFF_RI_GEN] = r->read_ri_generation;
		be24_store(p + SES_RDV_OFF_PID_RI,
			   ((uint32_t)r->read_pid_on_fep << 12) |
				   r->read_resource_index);
		be64_store(p + SES_RDV_OFF_OFFSET, r->read_offset);
		be64_store(p + SES_RDV_OFF_KEY, r->read_key_or_match);
		break;
	case UET_SES_EXT_NONE:
		break;
	}
}

int
uet_wire_ses_req_encode(const struct uet_wire_ses_req *h, enum uet_wire_ses_fmt fmt,
		   uint8_t *buf, size_t cap)
{
	size_t hlen = uet_wire_ses_fmt_len(fmt);
	int rc;

	if (hlen == 0)
		return -UET_WIRE_E_BAD_NEXT_HDR;
	rc = ses_req_validate(h, fmt);
	if (rc < 0)
		return rc;
	if (cap < hlen + uet_wire_ses_ext_len(h->ext))
		return -UET_WIRE_E_NOSPACE;

	ses_put_common(h, fmt, buf);
	if (fmt == UET_SES_FMT_STD)
		ses_put_std(h, buf);
	else if (fmt == UET_SES_FMT_MEDIUM)
		ses_put_medium(h, buf);
	else
		be64_store(buf + SES_SMALL_OFF_BUF_OFFSET, h->buffer_offset);
	ses_put_ext(h, buf + hlen);
	return (int)(hlen + uet_wire_ses_ext_len(h->ext));
}

/* ------------------------------------------------------------------ */
/* Request decoder                                                     */
/* ------------------------------------------------------------------ */

static int
ses_get_common(const uint8_t *p, enum uet_wire_ses_fmt fmt, struct uet_wire_ses_req *h)
{
	/* UEC 1.0 SES request header: rsvd(2) above opcode, rsvd(4) above
	 * pid_on_fep and RI, rsvd(2) above the 14-bit request_length of
	 * small/medium. */
	if ((p[SES_OFF_OPCODE] & SES_RSVD2_MASK) ||
	    (p[SES_OFF_PID] & SES_RSVD4_MASK) ||
	    (p[SES_OFF_RI] & SES_RSVD4_MASK))
		return -UET_WIRE_E_RESERVED;
	if (fmt != UET_SES_FMT_STD && (p[SES_OFF_MSG_ID] & SES_RSVD2_MASK))
		return -UET_WIRE_E_RESERVED;

	h->opcode = p[SES_OFF_OPCODE];
	h->version = p[SES_OFF_FLAGS] >> SES_VERSION_SHIFT;
	h->flags = p[SES_OFF_FLAGS] & UET_SES_FLAGS_MASK;
	if (fmt == UET_SES_FMT_STD)
		h->message_id = be16_load(p + SES_OFF_MSG_ID);
	else
		h->request_length = be16_load(p + SES_OFF_MSG_ID);
	h->ri_generation = p[SES_OFF_RI_GEN];
	h->job_id = be24_load(p + SES_OFF_JOB_ID);
	h->pid_on_fep = be16_load(p + SES_OFF_PID);
	h->resource_index = be16_load(p + SES_OFF_RI);
	return 0;
}

static int
ses_get_std(const uint8_t *p, struct uet_wire_ses_req *h)
{
	uint32_t word;

	h->buffer_offset = be64_load(p + SES_STD_OFF_BUF_OFFSET);
	h->initiator = be32_load(p + SES_STD_OFF_INITIATOR);
	h->match_bits = be64_load(p + SES_STD_OFF_MATCH);
	if (h->flags & UET_SES_F_SOM) {
		h->header_data = be64_load(p + SES_STD_OFF_HDR_DATA);
	} else {
		/* UEC 1.0 SES standard request header continuation: rsvd(18)
		 * payload_length(14). */
		word = be32_load(p + SES_STD_OFF_PAYLOAD_LEN);
		if (word > UET_SES_LEN14_MAX)
			return -UET_WIRE_E_RESERVED;
		h->payload_length = (uint16_t)word;
		h->message_offset = be32_load(p + SES_STD_OFF_MSG_OFFSET);
	}
	h->request_length = be32_load(p + SES_STD_OFF_REQ_LEN);
	return 0;
}

static void
ses_get_medium(const uint8_t *p, struct uet_wire_ses_req *h)
{
	uint64_t slot = be64_load(p + SES_MED_OFF_HD_OR_BUF);

	if (h->flags & UET_SES_F_HD)
		h->header_data = slot;
	else
		h->buffer_offset = slot;
	h->initiator = be32_load(p + SES_MED_OFF_INITIATOR);
	h->match_bits = be64_load(p + SES_MED_OFF_MATCH);
}

/* Atomic extension: its first byte (the op) selects the 4 B or 36 B form,
 * so it is validated before the CAS length is asked for. */
static int
ses_get_atomic(const uint8_t *p, size_t len, struct uet_wire_ses_req *h)
{
	struct uet_wire_ses_atomic_ext *a = &h->atomic;
	int rc;

	if (len < UET_SES_ATOMIC_EXT_LEN)
		return -UET_WIRE_E_TRUNCATED;
	if (p[SES_AMO_OFF_RSVD] != 0)
		return -UET_WIRE_E_RESERVED;
	a->op = p[SES_AMO_OFF_OP];
	a->datatype = p[SES_AMO_OFF_DT];
	a->semantic_control = p[SES_AMO_OFF_SC];
	rc = ses_atomic_check(a);
	if (rc < 0)
		return rc;
	if (!uet_wire_ses_amo_op_is_cas(a->op)) {
		h->ext = UET_SES_EXT_ATOMIC;
		return UET_SES_ATOMIC_EXT_LEN;
	}
	if (len < UET_SES_ATOMIC_CAS_EXT_LEN)
		return -UET_WIRE_E_TRUNCATED;
	memcpy(a->compare, p + SES_AMO_OFF_COMPARE, sizeof(a->compare));
	memcpy(a->swap, p + SES_AMO_OFF_SWAP, sizeof(a->swap));
	h->ext = UET_SES_EXT_ATOMIC_CAS;
	return UET_SES_ATOMIC_CAS_EXT_LEN;
}

static int
ses_get_rdv(const uint8_t *p, size_t len, struct uet_wire_ses_req *h)
{
	struct uet_wire_ses_rdv_ext *r = &h->rdv;
	uint32_t pid_ri;

	if (len < UET_SES_RDV_EXT_LEN)
		return -UET_WIRE_E_TRUNCATED;
	r->eager_length = be32_load(p + SES_RDV_OFF_EAGER);
	r->read_ri_generation = p[SES_RDV_OFF_RI_GEN];
	pid_ri = be24_load(p + SES_RDV_OFF_PID_RI);
	r->read_pid_on_fep = (uint16_t)(pid_ri >> 12);
	r->read_resource_index = (uint16_t)(pid_ri & UET_SES_RI_MAX);
	r->read_offset = be64_load(p + SES_RDV_OFF_OFFSET);
	r->read_key_or_match = be64_load(p + SES_RDV_OFF_KEY);
	h->ext = UET_SES_EXT_RDV;
	return UET_SES_RDV_EXT_LEN;
}

static int
ses_get_ext(const uint8_t *p, size_t len, struct uet_wire_ses_req *h)
{
	if (!(h->flags & UET_SES_F_SOM))
		return 0;
	if (ses_op_is_atomic(h->opcode))
		return ses_get_atomic(p, len, h);
	if (ses_op_is_rdv(h->opcode))
		return ses_get_rdv(p, len, h);
	return 0;
}

int
uet_wire_ses_req_decode(const uint8_t *buf, size_t len, enum uet_wire_ses_fmt fmt,
		   struct uet_wire_ses_req *h)
{
	size_t hlen = uet_wire_ses_fmt_len(fmt);
	int rc;

	if (hlen == 0)
		return -UET_WIRE_E_BAD_NEXT_HDR;
	if (len < hlen)
		return -UET_WIRE_E_TRUNCATED;
	*h = ses_req_zero; /* not memset(): see ses_req_zero */

	rc = ses_get_common(buf, fmt, h);
	if (rc < 0)
		return rc;
	if (fmt == UET_SES_FMT_STD) {
		rc = ses_get_std(buf, h);
		if (rc < 0)
			return rc;
	} else if (fmt == UET_SES_FMT_MEDIUM) {
		ses_get_medium(buf, h);
	} else {
		h->buffer_offset = be64_load(buf + SES_SMALL_OFF_BUF_OFFSET);
	}
	rc = ses_req_check(h, fmt);
	if (rc < 0)
		return rc;
	rc = ses_get_ext(buf + hlen, len - hlen, h);
	if (rc < 0)
		return rc;
	return (int)hlen + rc;
}

/* ------------------------------------------------------------------ */
/* Responses                                                           */
/* ------------------------------------------------------------------ */

/* Rules shared by encoder and decoder. */
static int
ses_resp_check(const struct uet_wire_ses_resp *h)
{
	bool data_fmt = h->fmt != UET_SES_RESP_FMT_RESPONSE;
	bool data_op = h->opcode == UET_SES_RSP_RESPONSE_W_DATA;

	if (h->list > UET_SES_LIST_OVERFLOW)
		return -UET_WIRE_E_BAD_FIELD;
	if (h->opcode > UET_SES_RSP_NO_RESPONSE)
		return -UET_WIRE_E_BAD_OPCODE;
	if (h->version != UET_SES_VERSION)
		return -UET_WIRE_E_BAD_VERSION;
	if (h->return_code > UET_RC_DROPPED)
		return -UET_WIRE_E_BAD_FIELD;
	/* Data rides only in the two data formats, and they carry nothing
	 * else (WIRE-DECISIONS "SES"). */
	if (data_fmt != data_op)
		return -UET_WIRE_E_BAD_COMBINATION;
	return 0;
}

static bool
ses_resp_uncarried_zero(const struct uet_wire_ses_resp *h)
{
	switch (h->fmt) {
	case UET_SES_RESP_FMT_RESPONSE:
		return h->read_request_message_id == 0 &&
		       h->payload_length == 0 && h->message_offset == 0 &&
		       h->original_request_psn == 0;
	case UET_SES_RESP_FMT_DATA:
		return h->ri_generation == 0 && h->original_request_psn == 0;
	case UET_SES_RESP_FMT_DATA_SMALL:
		return h->message_id == 0 && h->ri_generation == 0 &&
		       h->modified_length == 0 &&
		       h->read_request_message_id == 0 &&
		       h->message_offset == 0;
	}
	return false;
}

static int
ses_resp_validate(const struct uet_wire_ses_resp *h)
{
	int rc;

	if (h->list > 0x3u || h->opcode > UET_SES_OPCODE_MAX ||
	    h->version > UET_SES_VERSION_MAX ||
	    h->return_code > UET_SES_RC_MAX ||
	    h->job_id > UET_SES_JOB_ID_MAX ||
	    h->payload_length > UET_SES_LEN14_MAX)
		return -UET_WIRE_E_BAD_FIELD;
	rc = ses_resp_check(h);
	if (rc < 0)
		return rc;
	if (!ses_resp_uncarried_zero(h))
		return -UET_WIRE_E_BAD_COMBINATION;
	return 0;
}

int
uet_wire_ses_resp_encode(const struct uet_wire_ses_resp *h, uint8_t *buf, size_t cap)
{
	size_t hlen = uet_wire_ses_resp_fmt_len(h->fmt);
	int rc;

	if (hlen == 0)
		return -UET_WIRE_E_BAD_NEXT_HDR;
	rc = ses_resp_validate(h);
	if (rc < 0)
		return rc;
	if (cap < hlen)
		return -UET_WIRE_E_NOSPACE;

	memset(buf, 0, hlen);
	buf[0] = (uint8_t)((h->list << SES_LIST_SHIFT) | h->opcode);
	buf[1] = (uint8_t)((h->version << SES_VERSION_SHIFT) | h->return_code);
	be24_store(buf + SES_RSP_OFF_JOB_ID, h->job_id);
	switch (h->fmt) {
	case UET_SES_RESP_FMT_RESPONSE:
		be16_store(buf + SES_RSP_OFF_MSG_ID, h->message_id);
		buf[SES_RSP_OFF_RI_GEN] = h->ri_generation;
		be32_store(buf + SES_RSP_OFF_MOD_LEN, h->modified_length);
		break;
	case UET_SES_RESP_FMT_DATA:
		be16_store(buf + SES_RSP_OFF_MSG_ID, h->message_id);
		be16_store(buf + SES_RSPD_OFF_READ_ID,
			   h->read_request_message_id);
		be16_store(buf + SES_RSPD_OFF_PAYLOAD, h->payload_length);
		be32_store(buf + SES_RSPD_OFF_MOD_LEN, h->modified_length);
		be32_store(buf + SES_RSPD_OFF_MSG_OFFSET, h->message_offset);
		break;
	case UET_SES_RESP_FMT_DATA_SMALL:
		be16_store(buf + SES_RSPS_OFF_PAYLOAD, h->payload_length);
		be32_store(buf + SES_RSPS_OFF_PSN, h->original_request_psn);
		break;
	}
	return (int)hlen;
}

/* UEC 1.0 SES responses: the data forms have rsvd(8) instead of ri_generation
 * and rsvd(2) above the 14-bit payload_length. */
static int
ses_resp_reserved(const uint8_t *p, enum uet_wire_ses_resp_fmt fmt)
{
	switch (fmt) {
	case UET_SES_RESP_FMT_RESPONSE:
		return 0;
	case UET_SES_RESP_FMT_DATA:
		if (p[SES_RSP_OFF_RI_GEN] != 0 ||
		    (p[SES_RSPD_OFF_PAYLOAD] & SES_RSVD2_MASK))
			return -UET_WIRE_E_RESERVED;
		return 0;
	case UET_SES_RESP_FMT_DATA_SMALL:
		if (p[SES_RSP_OFF_RI_GEN] != 0 ||
		    (p[SES_RSPS_OFF_PAYLOAD] & SES_RSVD2_MASK))
			return -UET_WIRE_E_RESERVED;
		return 0;
	}
	return -UET_WIRE_E_BAD_NEXT_HDR;
}

int
uet_wire_ses_resp_decode(const uint8_t *buf, size_t len,
		    enum uet_wire_ses_resp_fmt fmt, struct uet_wire_ses_resp *h)
{
	size_t hlen = uet_wire_ses_resp_fmt_len(fmt);
	int rc;

	if (hlen == 0)
		return -UET_WIRE_E_BAD_NEXT_HDR;
	if (len < hlen)
		return -UET_WIRE_E_TRUNCATED;
	rc = ses_resp_reserved(buf, fmt);
	if (rc < 0)
		return rc;

	memset(h, 0, sizeof(*h));
	h->fmt = fmt;
	h->list = buf[0] >> SES_LIST_SHIFT;
	h->opcode = buf[0] & SES_LOW6_MASK;
	h->version = buf[1] >> SES_VERSION_SHIFT;
	h->return_code = buf[1] & SES_LOW6_MASK;
	h->job_id = be24_load(buf + SES_RSP_OFF_JOB_ID);
	switch (fmt) {
	case UET_SES_RESP_FMT_RESPONSE:
		h->message_id = be16_load(buf + SES_RSP_OFF_MSG_ID);
		h->ri_generation = buf[SES_RSP_OFF_RI_GEN];
		h->modified_length = be32_load(buf + SES_RSP_OFF_MOD_LEN);
		break;
	case UET_SES_RESP_FMT_DATA:
		h->message_id = be16_load(buf + SES_RSP_OFF_MSG_ID);
		h->read_request_message_id =
			be16_load(buf + SES_RSPD_OFF_READ_ID);
		h->payload_length = be16_load(buf + SES_RSPD_OFF_PAYLOAD);
		h->modified_length = be32_load(buf + SES_RSPD_OFF_MOD_LEN);
		h->message_offset = be32_load(buf + SES_RSPD_OFF_MSG_OFFSET);
		break;
	case UET_SES_RESP_FMT_DATA_SMALL:
		h->payload_length = be16_load(buf + SES_RSPS_OFF_PAYLOAD);
		h->original_request_psn = be32_load(buf + SES_RSPS_OFF_PSN);
		break;
	}
	rc = ses_resp_check(h);
	if (rc < 0)
		return rc;
	return (int)hlen;
}
