/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Names of wire error codes and code points, NACK classes and atomic
 * datatype sizes. Tables are indexed by code point; a NULL entry is an
 * undefined value.
 */

#include <uet/uet_wire.h>

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

/* Bounds-checked lookup in a sparse name table. */
static const char *
name_lookup(const char *const *tab, size_t n, unsigned int v)
{
	return v < n ? tab[v] : NULL;
}

#define NAME_OF(tab, v) name_lookup((tab), ARRAY_LEN(tab), (v))

static const char *const wire_errname[UET_WIRE_E__COUNT] = {
	[UET_WIRE_OK] = "ok",
	[UET_WIRE_E_TRUNCATED] = "truncated",
	[UET_WIRE_E_NOSPACE] = "nospace",
	[UET_WIRE_E_BAD_TYPE] = "bad_type",
	[UET_WIRE_E_UNSUPPORTED] = "unsupported",
	[UET_WIRE_E_BAD_NEXT_HDR] = "bad_next_hdr",
	[UET_WIRE_E_BAD_CTL_TYPE] = "bad_ctl_type",
	[UET_WIRE_E_BAD_FLAGS] = "bad_flags",
	[UET_WIRE_E_RESERVED] = "reserved",
	[UET_WIRE_E_BAD_OPCODE] = "bad_opcode",
	[UET_WIRE_E_BAD_VERSION] = "bad_version",
	[UET_WIRE_E_BAD_FIELD] = "bad_field",
	[UET_WIRE_E_BAD_COMBINATION] = "bad_combination",
	[UET_WIRE_E_BAD_LENGTH] = "bad_length",
	[UET_WIRE_E_BAD_NACK_CODE] = "bad_nack_code",
	[UET_WIRE_E_BAD_CC_TYPE] = "bad_cc_type",
	[UET_WIRE_E_BAD_ATOMIC] = "bad_atomic",
	[UET_WIRE_E_BAD_ETHERTYPE] = "bad_ethertype",
	[UET_WIRE_E_BAD_IP] = "bad_ip",
	[UET_WIRE_E_BAD_CHECKSUM] = "bad_checksum",
	[UET_WIRE_E_NOT_UET] = "not_uet",
};

static const char *const wire_strerror[UET_WIRE_E__COUNT] = {
	[UET_WIRE_OK] = "success",
	[UET_WIRE_E_TRUNCATED] = "buffer shorter than the header",
	[UET_WIRE_E_NOSPACE] = "output buffer too small",
	[UET_WIRE_E_BAD_TYPE] = "undefined PDS type",
	[UET_WIRE_E_UNSUPPORTED] = "header type not supported",
	[UET_WIRE_E_BAD_NEXT_HDR] = "next header not allowed for this type",
	[UET_WIRE_E_BAD_CTL_TYPE] = "undefined control packet type",
	[UET_WIRE_E_BAD_FLAGS] = "flag not defined for this header",
	[UET_WIRE_E_RESERVED] = "reserved field not zero",
	[UET_WIRE_E_BAD_OPCODE] = "undefined SES opcode",
	[UET_WIRE_E_BAD_VERSION] = "unsupported SES version",
	[UET_WIRE_E_BAD_FIELD] = "field value out of range",
	[UET_WIRE_E_BAD_COMBINATION] = "illegal combination of fields",
	[UET_WIRE_E_BAD_LENGTH] = "length field disagrees with the data",
	[UET_WIRE_E_BAD_NACK_CODE] = "undefined or retired NACK code",
	[UET_WIRE_E_BAD_CC_TYPE] = "undefined ACK_CC congestion type",
	[UET_WIRE_E_BAD_ATOMIC] = "undefined atomic operation or datatype",
	[UET_WIRE_E_BAD_ETHERTYPE] = "EtherType is not IPv4 or IPv6",
	[UET_WIRE_E_BAD_IP] = "malformed IP header",
	[UET_WIRE_E_BAD_CHECKSUM] = "checksum mismatch (IPv4 header or UDP)",
	[UET_WIRE_E_NOT_UET] = "not a UET packet",
};

static unsigned int
wire_err_index(int err)
{
	/* Accept both signs; INT_MIN has no positive counterpart. */
	if (err < 0)
		return err < -(int)UET_WIRE_E__COUNT ? UET_WIRE_E__COUNT :
						       (unsigned int)-err;
	return (unsigned int)err;
}

const char *
uet_wire_strerror(int err)
{
	const char *s = NAME_OF(wire_strerror, wire_err_index(err));

	return s != NULL ? s : "unknown error";
}

const char *
uet_wire_errname(int err)
{
	const char *s = NAME_OF(wire_errname, wire_err_index(err));

	return s != NULL ? s : "unknown";
}

static const char *const pds_type_names[] = {
	[UET_PDS_TYPE_TSS] = "TSS",
	[UET_PDS_TYPE_RUD_REQ] = "RUD_REQ",
	[UET_PDS_TYPE_ROD_REQ] = "ROD_REQ",
	[UET_PDS_TYPE_RUDI_REQ] = "RUDI_REQ",
	[UET_PDS_TYPE_RUDI_RESP] = "RUDI_RESP",
	[UET_PDS_TYPE_UUD_REQ] = "UUD_REQ",
	[UET_PDS_TYPE_ACK] = "ACK",
	[UET_PDS_TYPE_ACK_CC] = "ACK_CC",
	[UET_PDS_TYPE_ACK_CCX] = "ACK_CCX",
	[UET_PDS_TYPE_NACK] = "NACK",
	[UET_PDS_TYPE_CP] = "CP",
	[UET_PDS_TYPE_NACK_CCX] = "NACK_CCX",
	[UET_PDS_TYPE_RUD_CC_REQ] = "RUD_CC_REQ",
	[UET_PDS_TYPE_ROD_CC_REQ] = "ROD_CC_REQ",
};

const char *
uet_wire_pds_type_name(unsigned int type)
{
	return NAME_OF(pds_type_names, type);
}

static const char *const pds_next_hdr_names[] = {
	[UET_PDS_NEXT_NONE] = "NONE",
	[UET_PDS_NEXT_REQUEST_SMALL] = "REQUEST_SMALL",
	[UET_PDS_NEXT_REQUEST_MEDIUM] = "REQUEST_MEDIUM",
	[UET_PDS_NEXT_REQUEST_STD] = "REQUEST_STD",
	[UET_PDS_NEXT_RESPONSE] = "RESPONSE",
	[UET_PDS_NEXT_RESPONSE_DATA] = "RESPONSE_DATA",
	[UET_PDS_NEXT_RESPONSE_DATA_SMALL] = "RESPONSE_DATA_SMALL",
};

const char *
uet_wire_pds_next_hdr_name(unsigned int next_hdr)
{
	return NAME_OF(pds_next_hdr_names, next_hdr);
}

static const char *const pds_ctl_type_names[] = {
	[UET_PDS_CTL_NOOP] = "NOOP",
	[UET_PDS_CTL_ACK_REQ] = "ACK_REQ",
	[UET_PDS_CTL_CLEAR] = "CLEAR",
	[UET_PDS_CTL_CLEAR_REQ] = "CLEAR_REQ",
	[UET_PDS_CTL_CLOSE] = "CLOSE",
	[UET_PDS_CTL_CLOSE_REQ] = "CLOSE_REQ",
	[UET_PDS_CTL_PROBE] = "PROBE",
	[UET_PDS_CTL_CREDIT] = "CREDIT",
	[UET_PDS_CTL_CREDIT_REQ] = "CREDIT_REQ",
	[UET_PDS_CTL_NEGOTIATION] = "NEGOTIATION",
};

const char *
uet_wire_pds_ctl_type_name(unsigned int ctl_type)
{
	return NAME_OF(pds_ctl_type_names, ctl_type);
}

static const char *const pds_nack_code_names[] = {
	[UET_NACK_TRIMMED] = "TRIMMED",
	[UET_NACK_TRIMMED_LASTHOP] = "TRIMMED_LASTHOP",
	[UET_NACK_TRIMMED_ACK] = "TRIMMED_ACK",
	[UET_NACK_NO_PDC_AVAIL] = "NO_PDC_AVAIL",
	[UET_NACK_NO_CCC_AVAIL] = "NO_CCC_AVAIL",
	[UET_NACK_NO_BITMAP] = "NO_BITMAP",
	[UET_NACK_NO_PKT_BUFFER] = "NO_PKT_BUFFER",
	[UET_NACK_NO_GTD_DEL_AVAIL] = "NO_GTD_DEL_AVAIL",
	[UET_NACK_NO_SES_MSG_AVAIL] = "NO_SES_MSG_AVAIL",
	[UET_NACK_NO_RESOURCE] = "NO_RESOURCE",
	[UET_NACK_PSN_OOR_WINDOW] = "PSN_OOR_WINDOW",
	[UET_NACK_ROD_OOO] = "ROD_OOO",
	[UET_NACK_INV_DPDCID] = "INV_DPDCID",
	[UET_NACK_PDC_HDR_MISMATCH] = "PDC_HDR_MISMATCH",
	[UET_NACK_CLOSING] = "CLOSING",
	[UET_NACK_CLOSING_IN_ERR] = "CLOSING_IN_ERR",
	[UET_NACK_PKT_NOT_RCVD] = "PKT_NOT_RCVD",
	[UET_NACK_GTD_DEL_RESP_UNAVAIL] = "GTD_DEL_RESP_UNAVAIL",
	[UET_NACK_ACK_WITH_DATA] = "ACK_WITH_DATA",
	[UET_NACK_INVALID_SYN] = "INVALID_SYN",
	[UET_NACK_PDC_MODE_MISMATCH] = "PDC_MODE_MISMATCH",
	[UET_NACK_NEW_START_PSN] = "NEW_START_PSN",
	[UET_NACK_RCVD_SES_PROCG] = "RCVD_SES_PROCG",
	[UET_NACK_UNEXP_EVENT] = "UNEXP_EVENT",
	[UET_NACK_RCVR_INFER_LOSS] = "RCVR_INFER_LOSS",
	[UET_NACK_EXP_FD] = "EXP_FD",
	[UET_NACK_EXP_FE] = "EXP_FE",
	[UET_NACK_EXP_FF] = "EXP_FF",
};

const char *
uet_wire_pds_nack_code_name(unsigned int code)
{
	return NAME_OF(pds_nack_code_names, code);
}

/* This project's choice (the specification lists the codes only). */
enum uet_wire_nack_class
uet_wire_pds_nack_class(unsigned int code)
{
	switch (code) {
	case UET_NACK_INV_DPDCID:
	case UET_NACK_PDC_HDR_MISMATCH:
	case UET_NACK_CLOSING_IN_ERR:
	case UET_NACK_INVALID_SYN:
	case UET_NACK_PDC_MODE_MISMATCH:
	/* UEC 1.0 NACK codes: the target lost a guaranteed-delivery
	 * response it still owes (GTD_DEL_RESP_UNAVAIL), or met an event it
	 * cannot handle (UNEXP_EVENT): the PDC cannot recover. */
	case UET_NACK_GTD_DEL_RESP_UNAVAIL:
	case UET_NACK_UNEXP_EVENT:
		return UET_NACK_CLASS_FATAL;
	case UET_NACK_TRIMMED:
	case UET_NACK_TRIMMED_LASTHOP:
	case UET_NACK_PSN_OOR_WINDOW:
	case UET_NACK_ROD_OOO:
	/* The receiver says it does not have the PSN an ACK_REQ named
	 * (PKT_NOT_RCVD), inferred its loss (RCVR_INFER_LOSS), or cannot
	 * rebuild the ACK that carried its read data (ACK_WITH_DATA):
	 * resend it. */
	case UET_NACK_PKT_NOT_RCVD:
	case UET_NACK_RCVR_INFER_LOSS:
	case UET_NACK_ACK_WITH_DATA:
		return UET_NACK_CLASS_RETRANSMIT;
	case UET_NACK_CLOSING:
		return UET_NACK_CLASS_CLOSING;
	case UET_NACK_TRIMMED_ACK: /* retired in 1.0.3 */
		return UET_NACK_CLASS_INVALID;
	default:
		break;
	}
	if (code >= UET_NACK_NO_PDC_AVAIL && code <= UET_NACK_NO_RESOURCE)
		return UET_NACK_CLASS_RESOURCE;
	if (uet_wire_pds_nack_code_name(code) != NULL)
		return UET_NACK_CLASS_INFO;
	return UET_NACK_CLASS_INVALID;
}

static const char *const ses_opcode_names[] = {
	[UET_SES_OP_NO_OP] = "NO_OP",
	[UET_SES_OP_WRITE] = "WRITE",
	[UET_SES_OP_READ] = "READ",
	[UET_SES_OP_ATOMIC] = "ATOMIC",
	[UET_SES_OP_FETCHING_ATOMIC] = "FETCHING_ATOMIC",
	[UET_SES_OP_SEND] = "SEND",
	[UET_SES_OP_RENDEZVOUS_SEND] = "RENDEZVOUS_SEND",
	[UET_SES_OP_DATAGRAM_SEND] = "DATAGRAM_SEND",
	[UET_SES_OP_DEFERRABLE_SEND] = "DEFERRABLE_SEND",
	[UET_SES_OP_TAGGED_SEND] = "TAGGED_SEND",
	[UET_SES_OP_RENDEZVOUS_TSEND] = "RENDEZVOUS_TSEND",
	[UET_SES_OP_DEFERRABLE_TSEND] = "DEFERRABLE_TSEND",
	[UET_SES_OP_DEFERRABLE_RTR] = "DEFERRABLE_RTR",
	[UET_SES_OP_TSEND_ATOMIC] = "TSEND_ATOMIC",
	[UET_SES_OP_TSEND_FETCH_ATOMIC] = "TSEND_FETCH_ATOMIC",
	[UET_SES_OP_MSG_ERROR] = "MSG_ERROR",
};

const char *
uet_wire_ses_opcode_name(unsigned int opcode)
{
	return NAME_OF(ses_opcode_names, opcode);
}

static const char *const ses_resp_opcode_names[] = {
	[UET_SES_RSP_DEFAULT_RESPONSE] = "DEFAULT_RESPONSE",
	[UET_SES_RSP_RESPONSE] = "RESPONSE",
	[UET_SES_RSP_RESPONSE_W_DATA] = "RESPONSE_W_DATA",
	[UET_SES_RSP_NO_RESPONSE] = "NO_RESPONSE",
};

const char *
uet_wire_ses_resp_opcode_name(unsigned int opcode)
{
	return NAME_OF(ses_resp_opcode_names, opcode);
}

static const char *const ses_rc_names[] = {
	[UET_RC_NULL] = "NULL",
	[UET_RC_OK] = "OK",
	[UET_RC_BAD_GENERATION] = "BAD_GENERATION",
	[UET_RC_DISABLED] = "DISABLED",
	[UET_RC_DISABLED_GEN] = "DISABLED_GEN",
	[UET_RC_NO_MATCH] = "NO_MATCH",
	[UET_RC_UNSUPPORTED_OP] = "UNSUPPORTED_OP",
	[UET_RC_UNSUPPORTED_SIZE] = "UNSUPPORTED_SIZE",
	[UET_RC_AT_INVALID] = "AT_INVALID",
	[UET_RC_AT_PERM] = "AT_PERM",
	[UET_RC_AT_ATS_ERROR] = "AT_ATS_ERROR",
	[UET_RC_AT_NO_TRANS] = "AT_NO_TRANS",
	[UET_RC_AT_OUT_OF_RANGE] = "AT_OUT_OF_RANGE",
	[UET_RC_HOST_POISONED] = "HOST_POISONED",
	[UET_RC_HOST_UNSUCCESS_CMPL] = "HOST_UNSUCCESS_CMPL",
	[UET_RC_AMO_UNSUPPORTED_OP] = "AMO_UNSUPPORTED_OP",
	[UET_RC_AMO_UNSUPPORTED_DT] = "AMO_UNSUPPORTED_DT",
	[UET_RC_AMO_UNSUPPORTED_SIZE] = "AMO_UNSUPPORTED_SIZE",
	[UET_RC_AMO_UNALIGNED] = "AMO_UNALIGNED",
	[UET_RC_AMO_FP_NAN] = "AMO_FP_NAN",
	[UET_RC_AMO_FP_UNDERFLOW] = "AMO_FP_UNDERFLOW",
	[UET_RC_AMO_FP_OVERFLOW] = "AMO_FP_OVERFLOW",
	[UET_RC_AMO_FP_INEXACT] = "AMO_FP_INEXACT",
	[UET_RC_PERM_VIOLATION] = "PERM_VIOLATION",
	[UET_RC_OP_VIOLATION] = "OP_VIOLATION",
	[UET_RC_BAD_INDEX] = "BAD_INDEX",
	[UET_RC_BAD_PID] = "BAD_PID",
	[UET_RC_BAD_JOB_ID] = "BAD_JOB_ID",
	[UET_RC_BAD_MKEY] = "BAD_MKEY",
	[UET_RC_BAD_ADDR] = "BAD_ADDR",
	[UET_RC_CANCELLED] = "CANCELLED",
	[UET_RC_UNDELIVERABLE] = "UNDELIVERABLE",
	[UET_RC_UNCOR] = "UNCOR",
	[UET_RC_UNCOR_TRNSNT] = "UNCOR_TRNSNT",
	[UET_RC_TOO_LONG] = "TOO_LONG",
	[UET_RC_INITIATOR_ERROR] = "INITIATOR_ERROR",
	[UET_RC_DROPPED] = "DROPPED",
};

const char *
uet_wire_ses_rc_name(unsigned int rc)
{
	return NAME_OF(ses_rc_names, rc);
}

static const char *const amo_op_names[] = {
	[UET_AMO_MIN] = "MIN",
	[UET_AMO_MAX] = "MAX",
	[UET_AMO_SUM] = "SUM",
	[UET_AMO_DIFF] = "DIFF",
	[UET_AMO_PROD] = "PROD",
	[UET_AMO_LOR] = "LOR",
	[UET_AMO_LAND] = "LAND",
	[UET_AMO_BOR] = "BOR",
	[UET_AMO_BAND] = "BAND",
	[UET_AMO_LXOR] = "LXOR",
	[UET_AMO_BXOR] = "BXOR",
	[UET_AMO_READ] = "READ",
	[UET_AMO_WRITE] = "WRITE",
	[UET_AMO_CSWAP] = "CSWAP",
	[UET_AMO_CSWAP_NE] = "CSWAP_NE",
	[UET_AMO_CSWAP_LE] = "CSWAP_LE",
	[UET_AMO_CSWAP_LT] = "CSWAP_LT",
	[UET_AMO_CSWAP_GE] = "CSWAP_GE",
	[UET_AMO_CSWAP_GT] = "CSWAP_GT",
	[UET_AMO_MSWAP] = "MSWAP",
};

const char *
uet_wire_amo_op_name(unsigned int op)
{
	return NAME_OF(amo_op_names, op);
}

struct amo_dt_info {
	const char *name;
	uint8_t size;
};

static const struct amo_dt_info amo_dt_info[] = {
	[UET_AMO_DT_INT8] = { "INT8", 1 },
	[UET_AMO_DT_UINT8] = { "UINT8", 1 },
	[UET_AMO_DT_INT16] = { "INT16", 2 },
	[UET_AMO_DT_UINT16] = { "UINT16", 2 },
	[UET_AMO_DT_INT32] = { "INT32", 4 },
	[UET_AMO_DT_UINT32] = { "UINT32", 4 },
	[UET_AMO_DT_INT64] = { "INT64", 8 },
	[UET_AMO_DT_UINT64] = { "UINT64", 8 },
	[UET_AMO_DT_INT128] = { "INT128", 16 },
	[UET_AMO_DT_UINT128] = { "UINT128", 16 },
	[UET_AMO_DT_FLOAT] = { "FLOAT", 4 },
	[UET_AMO_DT_DOUBLE] = { "DOUBLE", 8 },
	[UET_AMO_DT_FLOAT_COMPLEX] = { "FLOAT_COMPLEX", 8 },
	[UET_AMO_DT_DOUBLE_COMPLEX] = { "DOUBLE_COMPLEX", 16 },
	[UET_AMO_DT_LONG_DOUBLE] = { "LONG_DOUBLE", 16 },
	[UET_AMO_DT_LONG_DOUBLE_COMPLEX] = { "LONG_DOUBLE_COMPLEX", 32 },
	[UET_AMO_DT_BF16] = { "BF16", 2 },
	[UET_AMO_DT_FP16] = { "FP16", 2 },
};

const char *
uet_wire_amo_dt_name(unsigned int dt)
{
	return dt < ARRAY_LEN(amo_dt_info) ? amo_dt_info[dt].name : NULL;
}

size_t
uet_wire_amo_dt_size(unsigned int dt)
{
	return dt < ARRAY_LEN(amo_dt_info) ? amo_dt_info[dt].size : 0;
}

static const char *const profile_names[] = {
	[UET_PROFILE_AI_BASE] = "AI_BASE",
	[UET_PROFILE_AI_FULL] = "AI_FULL",
	[UET_PROFILE_HPC] = "HPC",
};

const char *
uet_wire_profile_name(unsigned int profile)
{
	return NAME_OF(profile_names, profile);
}

static const char *const pds_mode_names[] = {
	[UET_PDS_MODE_RUD] = "RUD",
	[UET_PDS_MODE_ROD] = "ROD",
	[UET_PDS_MODE_RUDI] = "RUDI",
	[UET_PDS_MODE_UUD] = "UUD",
};

const char *
uet_wire_pds_mode_name(unsigned int mode)
{
	return NAME_OF(pds_mode_names, mode);
}
