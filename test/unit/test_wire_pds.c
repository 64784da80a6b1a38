/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of the PDS header codec (src/wire/pds.c).
 *
 * Golden byte strings are derived by hand from the UEC 1.0 PDS headers; the
 * prologue is byte0 = type << 3 | next_hdr >> 1,
 * byte1 = (next_hdr & 1) << 7 | flags.
 */

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <uet/uet_rand.h>
#include <uet/uet_wire.h>

#define ITERATIONS 10000
#define DEFAULT_SEED UINT64_C(0x5eedc0de20240601)
#define BUF_LEN (UET_PDS_HDR_MAX_LEN + 8)

/* ------------------------------------------------------------------ */
/* Independent restatement of next-header and flag rules for the tests */
/* ------------------------------------------------------------------ */

static unsigned int
spec_flags(unsigned int type)
{
	switch (type) {
	case UET_PDS_TYPE_RUD_REQ:
	case UET_PDS_TYPE_ROD_REQ:
	case UET_PDS_TYPE_RUD_CC_REQ:
	case UET_PDS_TYPE_ROD_CC_REQ:
		return 0x1C; /* RETX AR SYN */
	case UET_PDS_TYPE_ACK:
		return 0x7E; /* EPSN (bit 6, reserved in UEC 1.0) M RETX P REQ */
	case UET_PDS_TYPE_ACK_CC:
	case UET_PDS_TYPE_ACK_CCX:
		return 0x3E; /* M RETX P REQ[2:1] */
	case UET_PDS_TYPE_NACK:
	case UET_PDS_TYPE_NACK_CCX:
		return 0x38; /* M RETX NT */
	case UET_PDS_TYPE_CP:
		return 0x3C; /* ISROD RETX AR SYN */
	case UET_PDS_TYPE_RUDI_REQ:
		return 0x10; /* RETX */
	case UET_PDS_TYPE_RUDI_RESP:
		return 0x30; /* M RETX */
	default:
		return 0; /* UUD */
	}
}

/* Bit n set = next header n legal. */
static unsigned int
spec_next_hdrs(unsigned int type)
{
	switch (type) {
	case UET_PDS_TYPE_RUD_REQ:
	case UET_PDS_TYPE_ROD_REQ:
	case UET_PDS_TYPE_RUD_CC_REQ:
	case UET_PDS_TYPE_ROD_CC_REQ:
		return 0x6E; /* 1 2 3 5 6 */
	case UET_PDS_TYPE_RUDI_REQ:
	case UET_PDS_TYPE_UUD_REQ:
		return 0x0E; /* 1 2 3 */
	case UET_PDS_TYPE_ACK:
	case UET_PDS_TYPE_ACK_CC:
	case UET_PDS_TYPE_ACK_CCX:
	case UET_PDS_TYPE_RUDI_RESP:
		return 0x71; /* 0 4 5 6 */
	case UET_PDS_TYPE_CP:
		return 0x3FF; /* ctl_type 0..9 */
	default:
		return 0x01; /* NACKs: 0 */
	}
}

static const uint8_t valid_nack_codes[] = {
	0x01, 0x02, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0A, 0x0B,
	0x0D, 0x0E, 0x0F, 0x10, 0x11, 0x12, 0x13, 0x14, 0x15, 0x16,
	0x17, 0x18, 0x19, 0x1A, 0xFD, 0xFE, 0xFF,
};

static bool
spec_nack_code_ok(unsigned int code)
{
	for (size_t i = 0; i < sizeof(valid_nack_codes); i++)
		if (valid_nack_codes[i] == code)
			return true;
	return false;
}

static const unsigned int all_types[] = {
	UET_PDS_TYPE_RUD_REQ, UET_PDS_TYPE_ROD_REQ, UET_PDS_TYPE_RUDI_REQ,
	UET_PDS_TYPE_RUDI_RESP, UET_PDS_TYPE_UUD_REQ, UET_PDS_TYPE_ACK,
	UET_PDS_TYPE_ACK_CC, UET_PDS_TYPE_ACK_CCX, UET_PDS_TYPE_NACK,
	UET_PDS_TYPE_CP, UET_PDS_TYPE_NACK_CCX, UET_PDS_TYPE_RUD_CC_REQ,
	UET_PDS_TYPE_ROD_CC_REQ,
};
#define N_TYPES (sizeof(all_types) / sizeof(all_types[0]))

/* ------------------------------------------------------------------ */
/* Field-wise comparison                                               */
/* ------------------------------------------------------------------ */

static bool
req_same(const struct uet_wire_pds_req *a, const struct uet_wire_pds_req *b)
{
	return a->clear_psn_offset == b->clear_psn_offset &&
	       a->psn == b->psn && a->spdcid == b->spdcid &&
	       a->dpdcid == b->dpdcid && a->use_rsv_pdc == b->use_rsv_pdc &&
	       a->psn_offset == b->psn_offset && a->ccc_id == b->ccc_id &&
	       a->credit_target == b->credit_target;
}

static bool
cc_same(unsigned int type, const struct uet_wire_pds_ack *a,
	const struct uet_wire_pds_ack *b)
{
	if (type == UET_PDS_TYPE_ACK_CCX)
		return memcmp(a->ccx_state, b->ccx_state,
			      sizeof(a->ccx_state)) == 0;
	if (type != UET_PDS_TYPE_ACK_CC)
		return true;
	if (a->cc_type == UET_CC_TYPE_CREDIT)
		return a->cc.credit.credit == b->cc.credit.credit &&
		       a->cc.credit.ooo_count == b->cc.credit.ooo_count;
	return a->cc.nscc.service_time == b->cc.nscc.service_time &&
	       a->cc.nscc.rc == b->cc.nscc.rc &&
	       a->cc.nscc.rcv_cwnd_pend == b->cc.nscc.rcv_cwnd_pend &&
	       a->cc.nscc.rcvd_bytes == b->cc.nscc.rcvd_bytes &&
	       a->cc.nscc.ooo_count == b->cc.nscc.ooo_count;
}

static bool
ack_same(unsigned int type, const struct uet_wire_pds_ack *a,
	 const struct uet_wire_pds_ack *b)
{
	return a->ack_psn_offset == b->ack_psn_offset &&
	       a->probe_opaque == b->probe_opaque &&
	       a->cack_psn == b->cack_psn && a->spdcid == b->spdcid &&
	       a->dpdcid == b->dpdcid && a->expected_psn == b->expected_psn &&
	       a->cc_type == b->cc_type &&
	       a->cc_flags == b->cc_flags && a->mpr == b->mpr &&
	       a->sack_psn_offset == b->sack_psn_offset &&
	       a->sack_bitmap == b->sack_bitmap && cc_same(type, a, b);
}

static bool
nack_same(const struct uet_wire_pds_nack *a, const struct uet_wire_pds_nack *b)
{
	return a->code == b->code && a->vendor_code == b->vendor_code &&
	       a->psn == b->psn && a->spdcid == b->spdcid &&
	       a->dpdcid == b->dpdcid && a->payload == b->payload &&
	       a->nccx_type == b->nccx_type &&
	       memcmp(a->nccx_state, b->nccx_state,
		      sizeof(a->nccx_state)) == 0;
}

static bool
cp_same(const struct uet_wire_pds_cp *a, const struct uet_wire_pds_cp *b)
{
	return a->probe_opaque == b->probe_opaque && a->psn == b->psn &&
	       a->spdcid == b->spdcid && a->dpdcid == b->dpdcid &&
	       a->use_rsv_pdc == b->use_rsv_pdc &&
	       a->psn_offset == b->psn_offset && a->payload == b->payload;
}

static bool
hdr_same(const struct uet_wire_pds_hdr *a, const struct uet_wire_pds_hdr *b)
{
	if (a->type != b->type || a->next_hdr != b->next_hdr ||
	    a->flags != b->flags)
		return false;
	if (uet_wire_pds_type_is_req(a->type))
		return req_same(&a->u.req, &b->u.req);
	if (uet_wire_pds_type_is_ack(a->type))
		return ack_same(a->type, &a->u.ack, &b->u.ack);
	if (uet_wire_pds_type_is_nack(a->type))
		return nack_same(&a->u.nack, &b->u.nack);
	if (a->type == UET_PDS_TYPE_CP)
		return cp_same(&a->u.cp, &b->u.cp);
	if (a->type == UET_PDS_TYPE_UUD_REQ)
		return true;
	return a->u.rudi.pkt_id == b->u.rudi.pkt_id;
}

/* ------------------------------------------------------------------ */
/* Golden packets                                                      */
/* ------------------------------------------------------------------ */

/* RUD_REQ, next REQUEST_STD, AR, clear -5, psn 0x12345678, 0x0102->0x0304 */
static const uint8_t g_rud_req[] = {
	0x11,       /* type 2 << 3 = 0x10 | next_hdr 3 >> 1 = 1 */
	0x88,       /* next_hdr 3 & 1 -> 0x80 | AR 0x08 */
	0xFF, 0xFB, /* clear_psn_offset -5 */
	0x12, 0x34, 0x56, 0x78, /* psn */
	0x01, 0x02, /* spdcid */
	0x03, 0x04, /* dpdcid */
};

/* ROD_REQ, next REQUEST_SMALL, RETX, clear 0, psn 0xFFFFFFFF */
static const uint8_t g_rod_req[] = {
	0x18,       /* type 3 << 3 = 0x18 | 1 >> 1 = 0 */
	0x90,       /* 1 & 1 -> 0x80 | RETX 0x10 */
	0x00, 0x00, /* clear_psn_offset 0 */
	0xFF, 0xFF, 0xFF, 0xFF, /* psn */
	0xAB, 0xCD, /* spdcid */
	0x00, 0x01, /* dpdcid */
};

/* RUD_CC_REQ, next REQUEST_MEDIUM, no flags, ccc 0x7E, target 0x123456 */
static const uint8_t g_rud_cc_req[] = {
	0x69,       /* type 13 << 3 = 0x68 | 2 >> 1 = 1 */
	0x00,       /* 2 & 1 = 0, flags 0 */
	0xFF, 0xFF, /* clear_psn_offset -1 */
	0x00, 0x00, 0x01, 0x00, /* psn 0x100 */
	0x00, 0x10, /* spdcid */
	0x00, 0x20, /* dpdcid */
	0x7E,       /* ccc_id */
	0x12, 0x34, 0x56, /* credit_target */
};

/* ROD_CC_REQ carrying read data (next RESPONSE_DATA), RETX|AR */
static const uint8_t g_rod_cc_req[] = {
	0x72,       /* type 14 << 3 = 0x70 | 5 >> 1 = 2 */
	0x98,       /* 5 & 1 -> 0x80 | RETX 0x10 | AR 0x08 */
	0x80, 0x00, /* clear_psn_offset -32768 */
	0x80, 0x00, 0x00, 0x00, /* psn */
	0xFF, 0xFF, /* spdcid */
	0x00, 0x00, /* dpdcid */
	0x00,       /* ccc_id */
	0xFF, 0xFF, 0xFF, /* credit_target 0xFFFFFF */
};

/* RUD_REQ SYN|AR, psn 0xABCD, use_rsv_pdc, psn_offset 0x123 */
static const uint8_t g_syn_req[] = {
	0x11,       /* type 2 << 3 | 3 >> 1 */
	0x8C,       /* 0x80 | AR 0x08 | SYN 0x04 */
	0x00, 0x00, /* clear_psn_offset 0 */
	0x00, 0x00, 0xAB, 0xCD, /* psn */
	0x00, 0x42, /* spdcid */
	0x81, 0x23, /* use_rsv_pdc 0x8000 | psn_offset 0x123 */
};

/* ACK, next NONE, M and REQ=CLEAR, offset 3, cack 0x1000 */
/* ACK with EPSN (the UEC reference provider's extension): the Expected_PSN
 * after the 12 bytes of the ACK. */
static const uint8_t g_ack_epsn[] = {
	0x38,       /* type 7 << 3 */
	0x44,       /* EPSN 0x40 | REQ 2 (CLOSE) << 1 */
	0x00, 0x00, /* ack_psn_offset 0 */
	0x80, 0x01, 0x00, 0x05, /* cack_psn */
	0x00, 0x09, /* spdcid */
	0x00, 0x0B, /* dpdcid */
	0x80, 0x03, 0x00, 0x05, /* expected_psn */
};

static const uint8_t g_ack[] = {
	0x38,       /* type 7 << 3 = 0x38 | 0 */
	0x22,       /* M 0x20 | REQ 1 << 1 */
	0x00, 0x03, /* ack_psn_offset 3 */
	0x00, 0x00, 0x10, 0x00, /* cack_psn */
	0x00, 0x42, /* spdcid */
	0x00, 0x07, /* dpdcid */
};

/* ACK probe reply (P), next RESPONSE, RETX, probe_opaque 0xBEEF */
static const uint8_t g_ack_probe[] = {
	0x3A,       /* 0x38 | 4 >> 1 = 2 */
	0x18,       /* 4 & 1 = 0 | RETX 0x10 | P 0x08 */
	0xBE, 0xEF, /* probe_opaque */
	0xFF, 0xFF, 0xFF, 0xFE, /* cack_psn */
	0x00, 0x01, /* spdcid */
	0x00, 0x02, /* dpdcid */
};

/* ACK_CC NSCC, next RESPONSE_DATA_SMALL, REQ=CLOSE */
static const uint8_t g_ack_cc_nscc[] = {
	0x43,       /* type 8 << 3 = 0x40 | 6 >> 1 = 3 */
	0x04,       /* 6 & 1 = 0 | REQ 2 << 1 */
	0xFF, 0xFE, /* ack_psn_offset -2 */
	0x01, 0x02, 0x03, 0x04, /* cack_psn */
	0x11, 0x11, /* spdcid */
	0x22, 0x22, /* dpdcid */
	0x05,       /* cc_type 0 << 4 | cc_flags 5 */
	0x0A,       /* mpr 10 */
	0x00, 0x01, /* sack_psn_offset 1 */
	0x80, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, /* sack_bitmap */
	0x00, 0x64, /* service_time 100 */
	0x95,       /* rc 0x80 | rcv_cwnd_pend 0x15 */
	0x00, 0x01, 0x23, /* rcvd_bytes */
	0x00, 0x09, /* ooo_count */
};

/* ACK_CC credit, next NONE, no flags */
static const uint8_t g_ack_cc_credit[] = {
	0x40,       /* type 8 << 3 | 0 */
	0x00,       /* flags 0 */
	0x00, 0x00, /* ack_psn_offset 0 */
	0x00, 0x00, 0x00, 0x10, /* cack_psn */
	0x00, 0x03, /* spdcid */
	0x00, 0x04, /* dpdcid */
	0x10,       /* cc_type 1 << 4 | cc_flags 0 */
	0x06,       /* mpr */
	0xFF, 0xFF, /* sack_psn_offset -1 */
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xFF, /* sack_bitmap */
	0xAB, 0xCD, 0xEF, /* credit */
	0x00, 0x00, 0x00, /* rsvd */
	0x01, 0x02, /* ooo_count */
};

/* ACK_CCX, next RESPONSE, M|RETX, cc_type 15, opaque state */
static const uint8_t g_ack_ccx[] = {
	0x4A,       /* type 9 << 3 = 0x48 | 4 >> 1 = 2 */
	0x30,       /* M 0x20 | RETX 0x10 */
	0x00, 0x10, /* ack_psn_offset 16 */
	0xDE, 0xAD, 0xBE, 0xEF, /* cack_psn */
	0x0A, 0x0B, /* spdcid */
	0x0C, 0x0D, /* dpdcid */
	0xFA,       /* cc_type 0xF << 4 | cc_flags 0xA */
	0x0C,       /* mpr */
	0x00, 0x20, /* sack_psn_offset */
	0x01, 0x23, 0x45, 0x67, 0x89, 0xAB, 0xCD, 0xEF, /* sack_bitmap */
	0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, /* ccx_state */
	0x88, 0x99, 0xAA, 0xBB, 0xCC, 0xDD, 0xEE, 0xFF,
};

/* NACK TRIMMED with M */
static const uint8_t g_nack[] = {
	0x50,       /* type 10 << 3 | next 0 */
	0x20,       /* M */
	0x01,       /* nack_code TRIMMED */
	0x00,       /* vendor_code */
	0x00, 0xAB, 0xCD, 0xEF, /* nack_psn */
	0x00, 0x05, /* spdcid */
	0x00, 0x06, /* dpdcid */
	0x00, 0x00, 0x00, 0x00, /* payload */
};

/* NACK of a RUDI packet (NT), RCVR_INFER_LOSS */
static const uint8_t g_nack_nt[] = {
	0x50,       /* type 10 << 3 */
	0x08,       /* NT */
	0x1A,       /* nack_code RCVR_INFER_LOSS */
	0x7F,       /* vendor_code */
	0xCA, 0xFE, 0xBA, 0xBE, /* pkt_id */
	0x00, 0x00, /* spdcid */
	0x00, 0x00, /* dpdcid */
	0x11, 0x22, 0x33, 0x44, /* payload */
};

/* NACK_CCX NO_PDC_AVAIL, RETX, nccx_type 3 */
static const uint8_t g_nack_ccx[] = {
	0x60,       /* type 12 << 3 */
	0x10,       /* RETX */
	0x04,       /* nack_code NO_PDC_AVAIL */
	0x01,       /* vendor_code */
	0x00, 0x00, 0x00, 0x01, /* nack_psn */
	0x01, 0x00, /* spdcid */
	0x02, 0x00, /* dpdcid */
	0xFF, 0xFF, 0xFF, 0xFF, /* payload */
	0x3E,       /* nccx_type 3 << 4 | state nibble 0xE */
	0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, /* state */
	0x08, 0x09, 0x0A, 0x0B, 0x0C, 0x0D, 0x0E, 0x0F,
};

/* CP PROBE, ISROD|AR, payload = SACK base */
static const uint8_t g_cp_probe[] = {
	0x5B,       /* type 11 << 3 = 0x58 | ctl 6 >> 1 = 3 */
	0x28,       /* 6 & 1 = 0 | ISROD 0x20 | AR 0x08 */
	0x12, 0x34, /* probe_opaque */
	0x00, 0x00, 0x04, 0x00, /* psn */
	0x00, 0x11, /* spdcid */
	0x00, 0x22, /* dpdcid */
	0x00, 0x00, 0x03, 0xF0, /* payload */
};

/* CP NOOP opening a PDC: SYN, psn_offset 0xFFF */
static const uint8_t g_cp_syn[] = {
	0x58,       /* type 11 << 3 | ctl 0 */
	0x04,       /* SYN */
	0x00, 0x00, /* probe_opaque / rsvd */
	0x10, 0x00, 0x00, 0x00, /* psn */
	0x00, 0x99, /* spdcid */
	0x0F, 0xFF, /* use_rsv_pdc 0 | psn_offset 0xFFF */
	0x00, 0x00, 0x00, 0x00, /* payload */
};

/* CP NEGOTIATION (ctl 9: low bit lands in byte 1), RETX */
static const uint8_t g_cp_neg[] = {
	0x5C,       /* 0x58 | 9 >> 1 = 4 */
	0x90,       /* 9 & 1 -> 0x80 | RETX 0x10 */
	0x00, 0x00, /* probe_opaque */
	0x00, 0x00, 0x00, 0x01, /* psn */
	0x00, 0x02, /* spdcid */
	0x00, 0x03, /* dpdcid */
	0x00, 0x00, 0x00, 0x04, /* payload */
};

/* RUDI_REQ, next REQUEST_SMALL, RETX */
static const uint8_t g_rudi_req[] = {
	0x20,       /* type 4 << 3 | 1 >> 1 = 0 */
	0x90,       /* 1 & 1 -> 0x80 | RETX */
	0x00, 0x00, /* rsvd */
	0x01, 0x23, 0x45, 0x67, /* pkt_id */
};

/* RUDI_RESP, next RESPONSE, M */
static const uint8_t g_rudi_resp[] = {
	0x2A,       /* type 5 << 3 = 0x28 | 4 >> 1 = 2 */
	0x20,       /* 4 & 1 = 0 | M */
	0x00, 0x00, /* rsvd */
	0x01, 0x23, 0x45, 0x67, /* pkt_id */
};

/* UUD_REQ, next REQUEST_STD */
static const uint8_t g_uud[] = {
	0x31,       /* type 6 << 3 = 0x30 | 3 >> 1 = 1 */
	0x80,       /* 3 & 1 -> 0x80, flags 0 */
	0x00, 0x00, /* rsvd */
};

struct golden {
	const char *name;
	const uint8_t *bytes;
	size_t len;
	struct uet_wire_pds_hdr hdr;
};

#define G(n, b) .name = (n), .bytes = (b), .len = sizeof(b)

static const struct golden goldens[] = {
	{ G("RUD_REQ", g_rud_req), .hdr = {
		.type = UET_PDS_TYPE_RUD_REQ, .next_hdr = 3,
		.flags = UET_PDS_F_AR,
		.u.req = { .clear_psn_offset = -5, .psn = 0x12345678,
			   .spdcid = 0x0102, .dpdcid = 0x0304 } } },
	{ G("ROD_REQ", g_rod_req), .hdr = {
		.type = UET_PDS_TYPE_ROD_REQ, .next_hdr = 1,
		.flags = UET_PDS_F_RETX,
		.u.req = { .clear_psn_offset = 0, .psn = 0xFFFFFFFF,
			   .spdcid = 0xABCD, .dpdcid = 0x0001 } } },
	{ G("RUD_CC_REQ", g_rud_cc_req), .hdr = {
		.type = UET_PDS_TYPE_RUD_CC_REQ, .next_hdr = 2, .flags = 0,
		.u.req = { .clear_psn_offset = -1, .psn = 0x100,
			   .spdcid = 0x10, .dpdcid = 0x20, .ccc_id = 0x7E,
			   .credit_target = 0x123456 } } },
	{ G("ROD_CC_REQ", g_rod_cc_req), .hdr = {
		.type = UET_PDS_TYPE_ROD_CC_REQ, .next_hdr = 5,
		.flags = UET_PDS_F_RETX | UET_PDS_F_AR,
		.u.req = { .clear_psn_offset = -32768, .psn = 0x80000000,
			   .spdcid = 0xFFFF, .dpdcid = 0, .ccc_id = 0,
			   .credit_target = 0xFFFFFF } } },
	{ G("SYN_REQ", g_syn_req), .hdr = {
		.type = UET_PDS_TYPE_RUD_REQ, .next_hdr = 3,
		.flags = UET_PDS_F_AR | UET_PDS_F_SYN,
		.u.req = { .psn = 0xABCD, .spdcid = 0x42,
			   .use_rsv_pdc = true, .psn_offset = 0x123 } } },
	{ G("ACK", g_ack), .hdr = {
		.type = UET_PDS_TYPE_ACK, .next_hdr = 0,
		.flags = UET_PDS_F_M | 1 << UET_PDS_ACK_REQ_SHIFT,
		.u.ack = { .ack_psn_offset = 3, .cack_psn = 0x1000,
			   .spdcid = 0x42, .dpdcid = 7 } } },
	{ G("ACK_EPSN", g_ack_epsn), .hdr = {
		.type = UET_PDS_TYPE_ACK, .next_hdr = 0,
		.flags = UET_PDS_F_EPSN | 2 << UET_PDS_ACK_REQ_SHIFT,
		.u.ack = { .cack_psn = 0x80010005u, .spdcid = 9, .dpdcid = 11,
			   .expected_psn = 0x80030005u } } },
	{ G("ACK_PROBE", g_ack_probe), .hdr = {
		.type = UET_PDS_TYPE_ACK, .next_hdr = 4,
		.flags = UET_PDS_F_RETX | UET_PDS_F_P,
		.u.ack = { .probe_opaque = 0xBEEF, .cack_psn = 0xFFFFFFFE,
			   .spdcid = 1, .dpdcid = 2 } } },
	{ G("ACK_CC_NSCC", g_ack_cc_nscc), .hdr = {
		.type = UET_PDS_TYPE_ACK_CC, .next_hdr = 6,
		.flags = 2 << UET_PDS_ACK_REQ_SHIFT,
		.u.ack = { .ack_psn_offset = -2, .cack_psn = 0x01020304,
			   .spdcid = 0x1111, .dpdcid = 0x2222,
			   .cc_type = UET_CC_TYPE_NSCC, .cc_flags = 5,
			   .mpr = 10, .sack_psn_offset = 1,
			   .sack_bitmap = UINT64_C(0x8000000000000001),
			   .cc.nscc = { .service_time = 100, .rc = true,
					.rcv_cwnd_pend = 0x15,
					.rcvd_bytes = 0x123,
					.ooo_count = 9 } } } },
	{ G("ACK_CC_CREDIT", g_ack_cc_credit), .hdr = {
		.type = UET_PDS_TYPE_ACK_CC, .next_hdr = 0, .flags = 0,
		.u.ack = { .cack_psn = 0x10, .spdcid = 3, .dpdcid = 4,
			   .cc_type = UET_CC_TYPE_CREDIT, .mpr = 6,
			   .sack_psn_offset = -1, .sack_bitmap = 0xFF,
			   .cc.credit = { .credit = 0xABCDEF,
					  .ooo_count = 0x0102 } } } },
	{ G("ACK_CCX", g_ack_ccx), .hdr = {
		.type = UET_PDS_TYPE_ACK_CCX, .next_hdr = 4,
		.flags = UET_PDS_F_M | UET_PDS_F_RETX,
		.u.ack = { .ack_psn_offset = 16, .cack_psn = 0xDEADBEEF,
			   .spdcid = 0x0A0B, .dpdcid = 0x0C0D,
			   .cc_type = 0xF, .cc_flags = 0xA, .mpr = 12,
			   .sack_psn_offset = 0x20,
			   .sack_bitmap = UINT64_C(0x0123456789ABCDEF),
			   .ccx_state = { 0x00, 0x11, 0x22, 0x33, 0x44, 0x55,
					  0x66, 0x77, 0x88, 0x99, 0xAA, 0xBB,
					  0xCC, 0xDD, 0xEE, 0xFF } } } },
	{ G("NACK", g_nack), .hdr = {
		.type = UET_PDS_TYPE_NACK, .next_hdr = 0,
		.flags = UET_PDS_F_M,
		.u.nack = { .code = UET_NACK_TRIMMED, .psn = 0xABCDEF,
			    .spdcid = 5, .dpdcid = 6 } } },
	{ G("NACK_NT", g_nack_nt), .hdr = {
		.type = UET_PDS_TYPE_NACK, .next_hdr = 0,
		.flags = UET_PDS_F_NT,
		.u.nack = { .code = UET_NACK_RCVR_INFER_LOSS,
			    .vendor_code = 0x7F, .psn = 0xCAFEBABE,
			    .payload = 0x11223344 } } },
	{ G("NACK_CCX", g_nack_ccx), .hdr = {
		.type = UET_PDS_TYPE_NACK_CCX, .next_hdr = 0,
		.flags = UET_PDS_F_RETX,
		.u.nack = { .code = UET_NACK_NO_PDC_AVAIL, .vendor_code = 1,
			    .psn = 1, .spdcid = 0x100, .dpdcid = 0x200,
			    .payload = 0xFFFFFFFF, .nccx_type = 3,
			    .nccx_state = { 0x0E, 0x01, 0x02, 0x03, 0x04,
					    0x05, 0x06, 0x07, 0x08, 0x09,
					    0x0A, 0x0B, 0x0C, 0x0D, 0x0E,
					    0x0F } } } },
	{ G("CP_PROBE", g_cp_probe), .hdr = {
		.type = UET_PDS_TYPE_CP, .next_hdr = UET_PDS_CTL_PROBE,
		.flags = UET_PDS_F_ISROD | UET_PDS_F_AR,
		.u.cp = { .probe_opaque = 0x1234, .psn = 0x400,
			  .spdcid = 0x11, .dpdcid = 0x22,
			  .payload = 0x3F0 } } },
	{ G("CP_SYN", g_cp_syn), .hdr = {
		.type = UET_PDS_TYPE_CP, .next_hdr = UET_PDS_CTL_NOOP,
		.flags = UET_PDS_F_SYN,
		.u.cp = { .psn = 0x10000000, .spdcid = 0x99,
			  .psn_offset = 0xFFF } } },
	{ G("CP_NEGOTIATION", g_cp_neg), .hdr = {
		.type = UET_PDS_TYPE_CP, .next_hdr = UET_PDS_CTL_NEGOTIATION,
		.flags = UET_PDS_F_RETX,
		.u.cp = { .psn = 1, .spdcid = 2, .dpdcid = 3,
			  .payload = 4 } } },
	{ G("RUDI_REQ", g_rudi_req), .hdr = {
		.type = UET_PDS_TYPE_RUDI_REQ, .next_hdr = 1,
		.flags = UET_PDS_F_RETX,
		.u.rudi = { .pkt_id = 0x01234567 } } },
	{ G("RUDI_RESP", g_rudi_resp), .hdr = {
		.type = UET_PDS_TYPE_RUDI_RESP, .next_hdr = 4,
		.flags = UET_PDS_F_M,
		.u.rudi = { .pkt_id = 0x01234567 } } },
	{ G("UUD", g_uud), .hdr = {
		.type = UET_PDS_TYPE_UUD_REQ, .next_hdr = 3, .flags = 0 } },
};
#define N_GOLDENS (sizeof(goldens) / sizeof(goldens[0]))

static const struct golden *
golden_find(const char *name)
{
	for (size_t i = 0; i < N_GOLDENS; i++)
		if (strcmp(goldens[i].name, name) == 0)
			return &goldens[i];
	fail_msg("no golden %s", name);
	return NULL;
}

/* Copy of a golden packet into a buffer the test may mutate. */
static size_t
golden_copy(const char *name, uint8_t *buf)
{
	const struct golden *g = golden_find(name);

	memcpy(buf, g->bytes, g->len);
	return g->len;
}

static void
set_prologue(uint8_t *buf, unsigned int type, unsigned int nh,
	     unsigned int flags)
{
	buf[0] = (uint8_t)(type << 3 | nh >> 1);
	buf[1] = (uint8_t)((nh & 1) << 7 | flags);
}

/* ------------------------------------------------------------------ */
/* Golden tests                                                        */
/* ------------------------------------------------------------------ */

static void
pds_hdr_encode__golden(void **state)
{
	uint8_t buf[BUF_LEN];

	(void)state;
	for (size_t i = 0; i < N_GOLDENS; i++) {
		const struct golden *g = &goldens[i];
		int rc;

		memset(buf, 0xA5, sizeof(buf));
		rc = uet_wire_pds_hdr_encode(&g->hdr, buf, sizeof(buf));
		if (rc != (int)g->len || memcmp(buf, g->bytes, g->len) != 0)
			fail_msg("%s: encode rc %d, bytes differ", g->name, rc);
		/* Nothing written past the header. */
		assert_int_equal(buf[g->len], 0xA5);
	}
}

static void
pds_hdr_decode__golden(void **state)
{
	struct uet_wire_pds_hdr h;

	(void)state;
	for (size_t i = 0; i < N_GOLDENS; i++) {
		const struct golden *g = &goldens[i];
		int rc = uet_wire_pds_hdr_decode(g->bytes, g->len, &h);

		if (rc != (int)g->len || !hdr_same(&h, &g->hdr))
			fail_msg("%s: decode rc %d (%s), struct differs",
				 g->name, rc, uet_wire_errname(rc));
	}
}

static void
pds_hdr_decode__trailing_bytes_ignored(void **state)
{
	uint8_t buf[BUF_LEN + 16];
	struct uet_wire_pds_hdr h;

	(void)state;
	memset(buf, 0xEE, sizeof(buf));
	golden_copy("RUD_REQ", buf);
	assert_int_equal(uet_wire_pds_hdr_decode(buf, sizeof(buf), &h),
			 UET_PDS_REQ_LEN);
	assert_int_equal(h.u.req.dpdcid, 0x0304);
}

static void
pds_hdr_derived__golden_values(void **state)
{
	const struct golden *g;
	struct uet_wire_pds_hdr h;

	(void)state;
	g = golden_find("RUD_REQ");
	assert_int_equal(uet_wire_pds_req_clear_psn(&g->hdr.u.req), 0x12345673);
	g = golden_find("SYN_REQ");
	assert_int_equal(uet_wire_pds_req_start_psn(&g->hdr.u.req), 0xAAAA);
	g = golden_find("CP_SYN");
	assert_int_equal(uet_wire_pds_cp_start_psn(&g->hdr.u.cp), 0x0FFFF001);
	g = golden_find("ACK");
	assert_int_equal(uet_wire_pds_ack_psn(&g->hdr.u.ack), 0x1003);
	assert_int_equal(uet_wire_pds_ack_req_get(&g->hdr), UET_PDS_ACK_REQ_CLEAR);
	g = golden_find("ACK_CC_CREDIT");
	assert_int_equal(uet_wire_pds_ack_sack_base(&g->hdr.u.ack), 0xF);
	g = golden_find("ACK_CC_NSCC");
	assert_int_equal(uet_wire_pds_ack_psn(&g->hdr.u.ack), 0x01020302);
	assert_int_equal(uet_wire_pds_ack_req_get(&g->hdr), UET_PDS_ACK_REQ_CLOSE);

	/* Wrap-around of the derived PSNs. */
	memset(&h, 0, sizeof(h));
	h.u.req.psn = 2;
	h.u.req.clear_psn_offset = -3;
	h.u.req.psn_offset = 0xFFF;
	assert_int_equal(uet_wire_pds_req_clear_psn(&h.u.req), 0xFFFFFFFF);
	assert_int_equal(uet_wire_pds_req_start_psn(&h.u.req), 0xFFFFF003);
	h.u.ack.cack_psn = 0xFFFFFFFF;
	h.u.ack.ack_psn_offset = 1;
	h.u.ack.sack_psn_offset = -32768;
	assert_int_equal(uet_wire_pds_ack_psn(&h.u.ack), 0);
	assert_int_equal(uet_wire_pds_ack_sack_base(&h.u.ack), 0xFFFF7FFF);
}

static void
pds_ack_req__get_set(void **state)
{
	struct uet_wire_pds_hdr h;

	(void)state;
	memset(&h, 0, sizeof(h));
	h.flags = UET_PDS_F_M | UET_PDS_F_RETX | UET_PDS_F_P;
	for (unsigned int r = 0; r < 4; r++) {
		uet_wire_pds_ack_req_set(&h, r);
		assert_int_equal(uet_wire_pds_ack_req_get(&h), r);
		assert_int_equal(h.flags & 0x38, 0x38);
		assert_int_equal(h.flags & 0x41, 0);
	}
	uet_wire_pds_ack_req_set(&h, 6); /* masked to 2 */
	assert_int_equal(uet_wire_pds_ack_req_get(&h), 2);
}

static void
pds_hdr_len__every_type(void **state)
{
	static const size_t want[32] = {
		[2] = 12, [3] = 12, [4] = 8, [5] = 8, [6] = 4, [7] = 12,
		[8] = 32, [9] = 40, [10] = 16, [11] = 16, [12] = 32,
		[13] = 16, [14] = 16,
	};

	(void)state;
	for (unsigned int t = 0; t < 32; t++)
		assert_int_equal(uet_wire_pds_hdr_len(t), want[t]);
	assert_int_equal(uet_wire_pds_hdr_len(UINT32_MAX), 0);
}

/* The size a header takes: its type's, 4 bytes more for an ACK with EPSN;
 * read from the prologue the same. */
static void
pds_hdr_size__epsn_only_on_ack(void **state)
{
	for (size_t i = 0; i < N_GOLDENS; i++) {
		const struct golden *g = &goldens[i];

		assert_int_equal(uet_wire_pds_hdr_size(&g->hdr), g->len);
		assert_int_equal(uet_wire_pds_hdr_size_at(g->bytes, g->len),
				 g->len);
		assert_int_equal(uet_wire_pds_hdr_size_at(g->bytes, 1), 0);
	}
	/* bit 6 of an ACK_CC is no EPSN: its size stays (and the decoder
	 * refuses the flag, pds_hdr__undefined_flag_bits) */
	{
		uint8_t b[2] = { UET_PDS_TYPE_ACK_CC << 3, UET_PDS_F_EPSN };

		assert_int_equal(uet_wire_pds_hdr_size_at(b, 2),
				 UET_PDS_ACK_CC_LEN);
	}
	(void)state;
}

static void
entropy_hdr__golden(void **state)
{
	static const uint8_t golden[] = {
		0xC0, 0xDE, /* entropy */
		0x00, 0x00, /* rsvd */
	};
	struct uet_wire_entropy_hdr e = { .entropy = 0xC0DE };
	uint8_t buf[8];

	(void)state;
	assert_int_equal(uet_wire_entropy_hdr_encode(&e, buf, sizeof(buf)),
			 UET_ENTROPY_HDR_LEN);
	assert_memory_equal(buf, golden, sizeof(golden));
	e.entropy = 0;
	assert_int_equal(uet_wire_entropy_hdr_decode(golden, sizeof(golden), &e),
			 UET_ENTROPY_HDR_LEN);
	assert_int_equal(e.entropy, 0xC0DE);
}

static void
entropy_hdr__errors(void **state)
{
	uint8_t buf[UET_ENTROPY_HDR_LEN] = { 0x12, 0x34, 0, 0 };
	struct uet_wire_entropy_hdr e = { .entropy = 1 };

	(void)state;
	for (size_t len = 0; len < UET_ENTROPY_HDR_LEN; len++) {
		assert_int_equal(uet_wire_entropy_hdr_decode(buf, len, &e),
				 -UET_WIRE_E_TRUNCATED);
		assert_int_equal(uet_wire_entropy_hdr_encode(&e, buf, len),
				 -UET_WIRE_E_NOSPACE);
	}
	buf[2] = 0x80;
	assert_int_equal(uet_wire_entropy_hdr_decode(buf, sizeof(buf), &e),
			 -UET_WIRE_E_RESERVED);
	buf[2] = 0;
	buf[3] = 0x01;
	assert_int_equal(uet_wire_entropy_hdr_decode(buf, sizeof(buf), &e),
			 -UET_WIRE_E_RESERVED);
}

/* ------------------------------------------------------------------ */
/* Length checks                                                       */
/* ------------------------------------------------------------------ */

static void
pds_hdr_decode__every_truncation(void **state)
{
	struct uet_wire_pds_hdr h;

	(void)state;
	for (size_t i = 0; i < N_GOLDENS; i++) {
		const struct golden *g = &goldens[i];

		for (size_t len = 0; len < g->len; len++) {
			/* Exact-size heap copy: ASan catches any overread. */
			uint8_t *p = malloc(len ? len : 1);
			int rc;

			assert_non_null(p);
			memcpy(p, g->bytes, len);
			rc = uet_wire_pds_hdr_decode(p, len, &h);
			free(p);
			if (rc != -UET_WIRE_E_TRUNCATED)
				fail_msg("%s len %zu: rc %d", g->name, len, rc);
		}
	}
}

static void
pds_hdr_encode__every_short_cap(void **state)
{
	uint8_t buf[BUF_LEN];

	(void)state;
	for (size_t i = 0; i < N_GOLDENS; i++) {
		const struct golden *g = &goldens[i];

		for (size_t cap = 0; cap < g->len; cap++) {
			int rc;

			memset(buf, 0xA5, sizeof(buf));
			rc = uet_wire_pds_hdr_encode(&g->hdr, buf, cap);
			if (rc != -UET_WIRE_E_NOSPACE)
				fail_msg("%s cap %zu: rc %d", g->name, cap, rc);
			/* Failed encodes leave the buffer alone. */
			for (size_t j = 0; j < sizeof(buf); j++)
				assert_int_equal(buf[j], 0xA5);
		}
	}
}

/* ------------------------------------------------------------------ */
/* Prologue validation                                                 */
/* ------------------------------------------------------------------ */

static void
pds_hdr_decode__bad_type(void **state)
{
	uint8_t buf[BUF_LEN] = { 0 };
	struct uet_wire_pds_hdr h;

	(void)state;
	/* Type 0 and 15..31, with a long enough buffer. */
	for (unsigned int t = 0; t < 32; t++) {
		if (t >= 1 && t <= 14)
			continue;
		set_prologue(buf, t, 0, 0);
		assert_int_equal(uet_wire_pds_hdr_decode(buf, sizeof(buf), &h),
				 -UET_WIRE_E_BAD_TYPE);
		/* Type is checked before the full length. */
		assert_int_equal(uet_wire_pds_hdr_decode(buf, 2, &h),
				 -UET_WIRE_E_BAD_TYPE);
	}
}

static void
pds_hdr_decode__tss_unsupported(void **state)
{
	uint8_t buf[BUF_LEN] = { 0 };
	struct uet_wire_pds_hdr h;

	(void)state;
	set_prologue(buf, UET_PDS_TYPE_TSS, 0, 0);
	assert_int_equal(uet_wire_pds_hdr_decode(buf, sizeof(buf), &h),
			 -UET_WIRE_E_UNSUPPORTED);
}

static void
pds_hdr_encode__bad_type(void **state)
{
	static const unsigned int bad[] = { 0, 15, 16, 31, 32, 255 };
	struct uet_wire_pds_hdr h;
	uint8_t buf[BUF_LEN];

	(void)state;
	memset(&h, 0, sizeof(h));
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		h.type = (uint8_t)bad[i];
		assert_int_equal(uet_wire_pds_hdr_encode(&h, buf, sizeof(buf)),
				 -UET_WIRE_E_BAD_TYPE);
	}
	h.type = UET_PDS_TYPE_TSS;
	assert_int_equal(uet_wire_pds_hdr_encode(&h, buf, sizeof(buf)),
			 -UET_WIRE_E_UNSUPPORTED);
}

/* One golden base packet per type, used by the per-type sweeps. */
static const char *const base_of_type[] = {
	[UET_PDS_TYPE_RUD_REQ] = "RUD_REQ",
	[UET_PDS_TYPE_ROD_REQ] = "ROD_REQ",
	[UET_PDS_TYPE_RUDI_REQ] = "RUDI_REQ",
	[UET_PDS_TYPE_RUDI_RESP] = "RUDI_RESP",
	[UET_PDS_TYPE_UUD_REQ] = "UUD",
	[UET_PDS_TYPE_ACK] = "ACK",
	[UET_PDS_TYPE_ACK_CC] = "ACK_CC_NSCC",
	[UET_PDS_TYPE_ACK_CCX] = "ACK_CCX",
	[UET_PDS_TYPE_NACK] = "NACK",
	[UET_PDS_TYPE_CP] = "CP_PROBE",
	[UET_PDS_TYPE_NACK_CCX] = "NACK_CCX",
	[UET_PDS_TYPE_RUD_CC_REQ] = "RUD_CC_REQ",
	[UET_PDS_TYPE_ROD_CC_REQ] = "ROD_CC_REQ",
};

static void
pds_hdr__next_hdr_sweep(void **state)
{
	uint8_t buf[BUF_LEN];
	uint8_t out[BUF_LEN];
	struct uet_wire_pds_hdr h;

	(void)state;
	for (size_t i = 0; i < N_TYPES; i++) {
		unsigned int t = all_types[i];
		const struct golden *g = golden_find(base_of_type[t]);
		int bad = t == UET_PDS_TYPE_CP ? -UET_WIRE_E_BAD_CTL_TYPE :
						 -UET_WIRE_E_BAD_NEXT_HDR;

		for (unsigned int nh = 0; nh < 16; nh++) {
			bool ok = (spec_next_hdrs(t) >> nh) & 1;
			struct uet_wire_pds_hdr e = g->hdr;
			int want = ok ? (int)g->len : bad;
			int rc;

			memcpy(buf, g->bytes, g->len);
			set_prologue(buf, t, nh, g->hdr.flags);
			rc = uet_wire_pds_hdr_decode(buf, g->len, &h);
			if (rc != want)
				fail_msg("decode type %u nh %u: rc %d", t, nh,
					 rc);
			e.next_hdr = (uint8_t)nh;
			rc = uet_wire_pds_hdr_encode(&e, out, sizeof(out));
			if (rc != want)
				fail_msg("encode type %u nh %u: rc %d", t, nh,
					 rc);
		}
	}
}

static void
pds_hdr_encode__next_hdr_out_of_field(void **state)
{
	struct uet_wire_pds_hdr h = golden_find("ACK")->hdr;
	uint8_t buf[BUF_LEN];

	(void)state;
	h.next_hdr = 16; /* would alias NONE in 4 bits */
	assert_int_equal(uet_wire_pds_hdr_encode(&h, buf, sizeof(buf)),
			 -UET_WIRE_E_BAD_NEXT_HDR);
	h = golden_find("CP_PROBE")->hdr;
	h.next_hdr = 16;
	assert_int_equal(uet_wire_pds_hdr_encode(&h, buf, sizeof(buf)),
			 -UET_WIRE_E_BAD_CTL_TYPE);
}

static void
pds_hdr__undefined_flag_bits(void **state)
{
	uint8_t buf[BUF_LEN];
	uint8_t out[BUF_LEN];
	struct uet_wire_pds_hdr h;

	(void)state;
	for (size_t i = 0; i < N_TYPES; i++) {
		unsigned int t = all_types[i];
		const struct golden *g = golden_find(base_of_type[t]);

		for (unsigned int bit = 0; bit < 8; bit++) {
			struct uet_wire_pds_hdr e = g->hdr;

			if (spec_flags(t) & (1u << bit))
				continue;
			e.flags = (uint8_t)(e.flags | 1u << bit);
			assert_int_equal(uet_wire_pds_hdr_encode(&e, out,
							    sizeof(out)),
					 -UET_WIRE_E_BAD_FLAGS);
			if (bit == 7)
				continue; /* no bit 7 on the wire */
			memcpy(buf, g->bytes, g->len);
			buf[1] = (uint8_t)(buf[1] | 1u << bit);
			if (uet_wire_pds_hdr_decode(buf, g->len, &h) !=
			    -UET_WIRE_E_BAD_FLAGS)
				fail_msg("type %u bit %u accepted", t, bit);
		}
	}
}

static void
pds_hdr__bit_0_never_bit_6_only_ack_epsn(void **state)
{
	(void)state;
	for (size_t i = 0; i < N_TYPES; i++) {
		assert_int_equal(spec_flags(all_types[i]) & 0x01, 0);
		assert_int_equal(spec_flags(all_types[i]) & 0x40,
				 all_types[i] == UET_PDS_TYPE_ACK ? 0x40 : 0);
	}
}

static void
pds_hdr__ack_req_reserved(void **state)
{
	static const char *const acks[] = { "ACK", "ACK_CC_NSCC", "ACK_CCX" };
	uint8_t buf[BUF_LEN];
	struct uet_wire_pds_hdr h;

	(void)state;
	for (size_t i = 0; i < 3; i++) {
		size_t len = golden_copy(acks[i], buf);

		buf[1] = (uint8_t)(buf[1] | 0x06); /* REQ = 3 */
		assert_int_equal(uet_wire_pds_hdr_decode(buf, len, &h),
				 -UET_WIRE_E_BAD_FIELD);
		h = golden_find(acks[i])->hdr;
		uet_wire_pds_ack_req_set(&h, 3);
		assert_int_equal(uet_wire_pds_hdr_encode(&h, buf, sizeof(buf)),
				 -UET_WIRE_E_BAD_FIELD);
	}
}

static void
pds_hdr__uud_flags_all_zero(void **state)
{
	uint8_t buf[BUF_LEN];
	struct uet_wire_pds_hdr h;

	(void)state;
	for (unsigned int f = 1; f < 0x80; f++) {
		size_t len = golden_copy("UUD", buf);

		buf[1] = (uint8_t)(buf[1] | f);
		assert_int_equal(uet_wire_pds_hdr_decode(buf, len, &h),
				 -UET_WIRE_E_BAD_FLAGS);
	}
}

/* ------------------------------------------------------------------ */
/* Reserved fields                                                     */
/* ------------------------------------------------------------------ */

static void
expect_decode(const uint8_t *buf, size_t len, int want, const char *what)
{
	struct uet_wire_pds_hdr h;
	int rc = uet_wire_pds_hdr_decode(buf, len, &h);

	if (rc != want)
		fail_msg("%s: rc %d (%s), want %d", what, rc,
			 uet_wire_errname(rc), want);
}

static void
pds_hdr_decode__syn_rsvd_bits(void **state)
{
	static const char *const syn[] = { "SYN_REQ", "CP_SYN" };
	uint8_t buf[BUF_LEN];

	(void)state;
	for (size_t i = 0; i < 2; i++) {
		for (unsigned int bit = 12; bit <= 14; bit++) {
			size_t len = golden_copy(syn[i], buf);

			buf[10] = (uint8_t)(buf[10] | (1u << bit) >> 8);
			expect_decode(buf, len, -UET_WIRE_E_RESERVED, syn[i]);
		}
	}
}

static void
pds_hdr_decode__non_syn_dpdcid_is_plain(void **state)
{
	uint8_t buf[BUF_LEN];
	struct uet_wire_pds_hdr h;
	size_t len = golden_copy("RUD_REQ", buf);

	(void)state;
	/* Without SYN the same bits are an ordinary 16-bit dpdcid. */
	buf[10] = 0x70;
	buf[11] = 0x00;
	assert_int_equal(uet_wire_pds_hdr_decode(buf, len, &h), (int)len);
	assert_int_equal(h.u.req.dpdcid, 0x7000);
	assert_int_equal(h.u.req.psn_offset, 0);
	assert_false(h.u.req.use_rsv_pdc);
}

static void
pds_hdr_decode__rudi_uud_rsvd(void **state)
{
	static const char *const names[] = { "RUDI_REQ", "RUDI_RESP", "UUD" };
	uint8_t buf[BUF_LEN];

	(void)state;
	for (size_t i = 0; i < 3; i++) {
		for (size_t off = 2; off <= 3; off++) {
			size_t len = golden_copy(names[i], buf);

			buf[off] = 0x01;
			expect_decode(buf, len, -UET_WIRE_E_RESERVED, names[i]);
		}
	}
}

static void
pds_hdr_decode__credit_rsvd24(void **state)
{
	uint8_t buf[BUF_LEN];

	(void)state;
	for (size_t off = 27; off <= 29; off++) {
		size_t len = golden_copy("ACK_CC_CREDIT", buf);

		buf[off] = 0x80;
		expect_decode(buf, len, -UET_WIRE_E_RESERVED, "credit rsvd");
	}
}

static void
pds_hdr_encode__nccx_state_top_nibble(void **state)
{
	struct uet_wire_pds_hdr h = golden_find("NACK_CCX")->hdr;
	uint8_t buf[BUF_LEN];

	(void)state;
	h.u.nack.nccx_state[0] = 0x1E;
	assert_int_equal(uet_wire_pds_hdr_encode(&h, buf, sizeof(buf)),
			 -UET_WIRE_E_RESERVED);
	/* Plain NACK ignores the CCX fields. */
	h.type = UET_PDS_TYPE_NACK;
	assert_int_equal(uet_wire_pds_hdr_encode(&h, buf, sizeof(buf)),
			 UET_PDS_NACK_LEN);
}

/* ------------------------------------------------------------------ */
/* Field values                                                        */
/* ------------------------------------------------------------------ */

static void
pds_hdr__ack_cc_type(void **state)
{
	uint8_t buf[BUF_LEN];
	uint8_t out[BUF_LEN];
	struct uet_wire_pds_hdr h;

	(void)state;
	for (unsigned int ct = 2; ct < 16; ct++) {
		size_t len = golden_copy("ACK_CC_NSCC", buf);

		buf[12] = (uint8_t)(ct << 4 | (buf[12] & 0x0F));
		expect_decode(buf, len, -UET_WIRE_E_BAD_CC_TYPE, "ACK_CC");
		h = golden_find("ACK_CC_NSCC")->hdr;
		h.u.ack.cc_type = (uint8_t)ct;
		assert_int_equal(uet_wire_pds_hdr_encode(&h, out, sizeof(out)),
				 -UET_WIRE_E_BAD_CC_TYPE);
	}
	/* ACK_CCX: any cc_type, the state is opaque. */
	for (unsigned int ct = 0; ct < 16; ct++) {
		size_t len = golden_copy("ACK_CCX", buf);

		buf[12] = (uint8_t)(ct << 4 | (buf[12] & 0x0F));
		assert_int_equal(uet_wire_pds_hdr_decode(buf, len, &h), (int)len);
		assert_int_equal(h.u.ack.cc_type, ct);
	}
}

static void
pds_hdr__nack_codes(void **state)
{
	static const char *const nacks[] = { "NACK", "NACK_CCX" };
	uint8_t buf[BUF_LEN];
	uint8_t out[BUF_LEN];
	struct uet_wire_pds_hdr h;

	(void)state;
	for (size_t i = 0; i < 2; i++) {
		for (unsigned int code = 0; code < 256; code++) {
			size_t len = golden_copy(nacks[i], buf);
			bool ok = spec_nack_code_ok(code);
			int want = ok ? (int)len : -UET_WIRE_E_BAD_NACK_CODE;

			buf[2] = (uint8_t)code;
			if (uet_wire_pds_hdr_decode(buf, len, &h) != want)
				fail_msg("%s code 0x%02x", nacks[i], code);
			h = golden_find(nacks[i])->hdr;
			h.u.nack.code = (uint8_t)code;
			assert_int_equal(uet_wire_pds_hdr_encode(&h, out,
							    sizeof(out)),
					 want);
		}
	}
}

static void
pds_hdr__clear_psn_offset_positive(void **state)
{
	static const int16_t bad[] = { 1, 2, 0x7FFF };
	static const char *const reqs[] = {
		"RUD_REQ", "ROD_REQ", "RUD_CC_REQ", "ROD_CC_REQ", "SYN_REQ",
	};
	uint8_t buf[BUF_LEN];
	struct uet_wire_pds_hdr h;

	(void)state;
	for (size_t i = 0; i < 5; i++) {
		for (size_t j = 0; j < 3; j++) {
			size_t len = golden_copy(reqs[i], buf);

			buf[2] = (uint8_t)((uint16_t)bad[j] >> 8);
			buf[3] = (uint8_t)bad[j];
			expect_decode(buf, len, -UET_WIRE_E_BAD_FIELD, reqs[i]);
			h = golden_find(reqs[i])->hdr;
			h.u.req.clear_psn_offset = bad[j];
			assert_int_equal(uet_wire_pds_hdr_encode(&h, buf,
							    sizeof(buf)),
					 -UET_WIRE_E_BAD_FIELD);
		}
	}
}

static void
expect_encode(const struct uet_wire_pds_hdr *h, int want, const char *what)
{
	uint8_t buf[BUF_LEN];
	int rc = uet_wire_pds_hdr_encode(h, buf, sizeof(buf));

	if (rc != want)
		fail_msg("%s: rc %d (%s), want %d", what, rc,
			 uet_wire_errname(rc), want);
}

static void
pds_hdr_encode__field_ranges(void **state)
{
	struct uet_wire_pds_hdr h;

	(void)state;
	h = golden_find("SYN_REQ")->hdr;
	h.u.req.psn_offset = 0x1000;
	expect_encode(&h, -UET_WIRE_E_BAD_FIELD, "req psn_offset");
	h.flags &= (uint8_t)~UET_PDS_F_SYN; /* unused without SYN */
	expect_encode(&h, UET_PDS_REQ_LEN, "non-SYN psn_offset ignored");

	h = golden_find("CP_SYN")->hdr;
	h.u.cp.psn_offset = 0xFFFF;
	expect_encode(&h, -UET_WIRE_E_BAD_FIELD, "cp psn_offset");

	h = golden_find("RUD_CC_REQ")->hdr;
	h.u.req.credit_target = 0x1000000;
	expect_encode(&h, -UET_WIRE_E_BAD_FIELD, "credit_target");
	h.type = UET_PDS_TYPE_RUD_REQ; /* no CC fields */
	expect_encode(&h, UET_PDS_REQ_LEN, "credit_target ignored");

	h = golden_find("ACK_CC_NSCC")->hdr;
	h.u.ack.cc.nscc.rcv_cwnd_pend = 0x80;
	expect_encode(&h, -UET_WIRE_E_BAD_FIELD, "rcv_cwnd_pend");
	h = golden_find("ACK_CC_NSCC")->hdr;
	h.u.ack.cc.nscc.rcvd_bytes = 0x1000000;
	expect_encode(&h, -UET_WIRE_E_BAD_FIELD, "rcvd_bytes");
	h = golden_find("ACK_CC_NSCC")->hdr;
	h.u.ack.cc_flags = 0x10;
	expect_encode(&h, -UET_WIRE_E_BAD_FIELD, "cc_flags");

	h = golden_find("ACK_CC_CREDIT")->hdr;
	h.u.ack.cc.credit.credit = 0x1000000;
	expect_encode(&h, -UET_WIRE_E_BAD_FIELD, "credit");

	h = golden_find("ACK_CCX")->hdr;
	h.u.ack.cc_type = 0x10;
	expect_encode(&h, -UET_WIRE_E_BAD_FIELD, "ccx cc_type");
	h = golden_find("ACK_CCX")->hdr;
	h.u.ack.cc_flags = 0xFF;
	expect_encode(&h, -UET_WIRE_E_BAD_FIELD, "ccx cc_flags");

	h = golden_find("NACK_CCX")->hdr;
	h.u.nack.nccx_type = 0x10;
	expect_encode(&h, -UET_WIRE_E_BAD_FIELD, "nccx_type");
}

/* ------------------------------------------------------------------ */
/* Randomized round trips                                              */
/* ------------------------------------------------------------------ */

static uint64_t rng_seed = DEFAULT_SEED;
static struct uet_rand rng_state;

static uint64_t
rnd(void)
{
	return uet_rand_next(&rng_state);
}

static void
rnd_bytes(uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (uint8_t)rnd();
}

static uint8_t
rnd_next_hdr(unsigned int type)
{
	unsigned int mask = spec_next_hdrs(type);
	unsigned int nh;

	do
		nh = (unsigned int)(rnd() & 0xF);
	while (!((mask >> nh) & 1));
	return (uint8_t)nh;
}

static void
gen_req(struct uet_wire_pds_hdr *h)
{
	struct uet_wire_pds_req *r = &h->u.req;
	int16_t off = (int16_t)rnd();

	r->clear_psn_offset = off > 0 ? (int16_t)-off : off;
	r->psn = (uint32_t)rnd();
	r->spdcid = (uint16_t)rnd();
	if (h->flags & UET_PDS_F_SYN) {
		r->use_rsv_pdc = rnd() & 1;
		r->psn_offset = (uint16_t)(rnd() & 0xFFF);
	} else {
		r->dpdcid = (uint16_t)rnd();
	}
	if (uet_wire_pds_type_is_cc_req(h->type)) {
		r->ccc_id = (uint8_t)rnd();
		r->credit_target = (uint32_t)(rnd() & 0xFFFFFF);
	}
}

static void
gen_cc_state(struct uet_wire_pds_ack *a)
{
	a->cc_type = (uint8_t)(rnd() & 1);
	if (a->cc_type == UET_CC_TYPE_NSCC) {
		a->cc.nscc.service_time = (uint16_t)rnd();
		a->cc.nscc.rc = rnd() & 1;
		a->cc.nscc.rcv_cwnd_pend = (uint8_t)(rnd() & 0x7F);
		a->cc.nscc.rcvd_bytes = (uint32_t)(rnd() & 0xFFFFFF);
		a->cc.nscc.ooo_count = (uint16_t)rnd();
	} else {
		a->cc.credit.credit = (uint32_t)(rnd() & 0xFFFFFF);
		a->cc.credit.ooo_count = (uint16_t)rnd();
	}
}

static void
gen_ack(struct uet_wire_pds_hdr *h)
{
	struct uet_wire_pds_ack *a = &h->u.ack;

	if (uet_wire_pds_ack_req_get(h) == 3)
		uet_wire_pds_ack_req_set(h, (unsigned int)(rnd() % 3));
	if (h->flags & UET_PDS_F_P)
		a->probe_opaque = (uint16_t)rnd();
	else
		a->ack_psn_offset = (int16_t)rnd();
	a->cack_psn = (uint32_t)rnd();
	a->spdcid = (uint16_t)rnd();
	a->dpdcid = (uint16_t)rnd();
	if (h->flags & UET_PDS_F_EPSN)
		a->expected_psn = (uint32_t)rnd();
	if (h->type == UET_PDS_TYPE_ACK)
		return;
	a->cc_flags = (uint8_t)(rnd() & 0xF);
	a->mpr = (uint8_t)rnd();
	a->sack_psn_offset = (int16_t)rnd();
	a->sack_bitmap = rnd();
	if (h->type == UET_PDS_TYPE_ACK_CC) {
		gen_cc_state(a);
	} else {
		a->cc_type = (uint8_t)(rnd() & 0xF);
		rnd_bytes(a->ccx_state, sizeof(a->ccx_state));
	}
}

static void
gen_nack(struct uet_wire_pds_hdr *h)
{
	struct uet_wire_pds_nack *n = &h->u.nack;

	n->code = valid_nack_codes[rnd() % sizeof(valid_nack_codes)];
	n->vendor_code = (uint8_t)rnd();
	n->psn = (uint32_t)rnd();
	n->spdcid = (uint16_t)rnd();
	n->dpdcid = (uint16_t)rnd();
	n->payload = (uint32_t)rnd();
	if (h->type != UET_PDS_TYPE_NACK_CCX)
		return;
	n->nccx_type = (uint8_t)(rnd() & 0xF);
	rnd_bytes(n->nccx_state, sizeof(n->nccx_state));
	n->nccx_state[0] &= 0x0F;
}

static void
gen_cp(struct uet_wire_pds_hdr *h)
{
	struct uet_wire_pds_cp *cp = &h->u.cp;

	cp->probe_opaque = (uint16_t)rnd();
	cp->psn = (uint32_t)rnd();
	cp->spdcid = (uint16_t)rnd();
	if (h->flags & UET_PDS_F_SYN) {
		cp->use_rsv_pdc = rnd() & 1;
		cp->psn_offset = (uint16_t)(rnd() & 0xFFF);
	} else {
		cp->dpdcid = (uint16_t)rnd();
	}
	cp->payload = (uint32_t)rnd();
}

/* A random legal header of @p type; fields its type does not use stay 0. */
static void
gen_hdr(unsigned int type, unsigned int iter, struct uet_wire_pds_hdr *h)
{
	memset(h, 0, sizeof(*h));
	h->type = (uint8_t)type;
	h->flags = (uint8_t)(rnd() & spec_flags(type));
	if (type == UET_PDS_TYPE_CP)
		h->next_hdr = (uint8_t)(iter % (UET_PDS_CTL_MAX + 1));
	else
		h->next_hdr = rnd_next_hdr(type);
	if (uet_wire_pds_type_is_req(type))
		gen_req(h);
	else if (uet_wire_pds_type_is_ack(type))
		gen_ack(h);
	else if (uet_wire_pds_type_is_nack(type))
		gen_nack(h);
	else if (type == UET_PDS_TYPE_CP)
		gen_cp(h);
	else if (type != UET_PDS_TYPE_UUD_REQ)
		h->u.rudi.pkt_id = (uint32_t)rnd();
}

static void
round_trip_type(unsigned int type)
{
	uet_rand_seed(&rng_state, rng_seed ^ ((uint64_t)type << 56));
	for (unsigned int i = 0; i < ITERATIONS; i++) {
		struct uet_wire_pds_hdr h, d;
		uint8_t buf[BUF_LEN], again[BUF_LEN];
		size_t len;
		int rc;

		gen_hdr(type, i, &h);
		len = uet_wire_pds_hdr_size(&h);
		rc = uet_wire_pds_hdr_encode(&h, buf, len);
		if (rc != (int)len)
			fail_msg("seed 0x%llx type %u iter %u: encode %d",
				 (unsigned long long)rng_seed, type, i, rc);
		rc = uet_wire_pds_hdr_decode(buf, len, &d);
		if (rc != (int)len || !hdr_same(&h, &d))
			fail_msg("seed 0x%llx type %u iter %u: decode %d",
				 (unsigned long long)rng_seed, type, i, rc);
		rc = uet_wire_pds_hdr_encode(&d, again, sizeof(again));
		if (rc != (int)len || memcmp(buf, again, len) != 0)
			fail_msg("seed 0x%llx type %u iter %u: re-encode",
				 (unsigned long long)rng_seed, type, i);
	}
}

#define ROUND_TRIP_TEST(fn, type)        \
	static void                        \
	fn(void **state)                   \
	{                                  \
		(void)state;               \
		round_trip_type(type);     \
	}

ROUND_TRIP_TEST(pds_hdr__round_trip_rud_req, UET_PDS_TYPE_RUD_REQ)
ROUND_TRIP_TEST(pds_hdr__round_trip_rod_req, UET_PDS_TYPE_ROD_REQ)
ROUND_TRIP_TEST(pds_hdr__round_trip_rud_cc_req, UET_PDS_TYPE_RUD_CC_REQ)
ROUND_TRIP_TEST(pds_hdr__round_trip_rod_cc_req, UET_PDS_TYPE_ROD_CC_REQ)
ROUND_TRIP_TEST(pds_hdr__round_trip_rudi_req, UET_PDS_TYPE_RUDI_REQ)
ROUND_TRIP_TEST(pds_hdr__round_trip_rudi_resp, UET_PDS_TYPE_RUDI_RESP)
ROUND_TRIP_TEST(pds_hdr__round_trip_uud, UET_PDS_TYPE_UUD_REQ)
ROUND_TRIP_TEST(pds_hdr__round_trip_ack, UET_PDS_TYPE_ACK)
ROUND_TRIP_TEST(pds_hdr__round_trip_ack_cc, UET_PDS_TYPE_ACK_CC)
ROUND_TRIP_TEST(pds_hdr__round_trip_ack_ccx, UET_PDS_TYPE_ACK_CCX)
ROUND_TRIP_TEST(pds_hdr__round_trip_nack, UET_PDS_TYPE_NACK)
ROUND_TRIP_TEST(pds_hdr__round_trip_nack_ccx, UET_PDS_TYPE_NACK_CCX)
ROUND_TRIP_TEST(pds_hdr__round_trip_cp, UET_PDS_TYPE_CP)

/* Whatever decode accepts re-encodes to the very same bytes. */
static void
pds_hdr_decode__random_bytes_canonical(void **state)
{
	unsigned int accepted = 0;

	(void)state;
	uet_rand_seed(&rng_state, rng_seed ^ UINT64_C(0xF00D));
	for (unsigned int i = 0; i < 13 * ITERATIONS; i++) {
		uint8_t buf[UET_PDS_HDR_MAX_LEN], again[BUF_LEN];
		unsigned int type = all_types[i % N_TYPES];
		size_t len = uet_wire_pds_hdr_len(type);
		struct uet_wire_pds_hdr h;
		int rc;

		rnd_bytes(buf, sizeof(buf));
		buf[0] = (uint8_t)(type << 3 | (buf[0] & 7));
		/* Keep the value checks passable often enough. */
		if (rnd() & 1)
			buf[1] &= (uint8_t)(0x80 | spec_flags(type));
		rc = uet_wire_pds_hdr_decode(buf, len, &h);
		if (rc < 0)
			continue;
		accepted++;
		rc = uet_wire_pds_hdr_encode(&h, again, sizeof(again));
		if (rc != (int)len || memcmp(buf, again, len) != 0)
			fail_msg("seed 0x%llx iter %u type %u not canonical",
				 (unsigned long long)rng_seed, i, type);
	}
	assert_true(accepted > ITERATIONS / 10);
}

static int
setup_seed(void **state)
{
	const char *s = getenv("UET_TEST_SEED");

	(void)state;
	if (s != NULL && *s != '\0')
		rng_seed = strtoull(s, NULL, 0);
	return 0;
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(pds_hdr_encode__golden),
		cmocka_unit_test(pds_hdr_decode__golden),
		cmocka_unit_test(pds_hdr_decode__trailing_bytes_ignored),
		cmocka_unit_test(pds_hdr_derived__golden_values),
		cmocka_unit_test(pds_ack_req__get_set),
		cmocka_unit_test(pds_hdr_len__every_type),
		cmocka_unit_test(pds_hdr_size__epsn_only_on_ack),
		cmocka_unit_test(entropy_hdr__golden),
		cmocka_unit_test(entropy_hdr__errors),
		cmocka_unit_test(pds_hdr_decode__every_truncation),
		cmocka_unit_test(pds_hdr_encode__every_short_cap),
		cmocka_unit_test(pds_hdr_decode__bad_type),
		cmocka_unit_test(pds_hdr_decode__tss_unsupported),
		cmocka_unit_test(pds_hdr_encode__bad_type),
		cmocka_unit_test(pds_hdr__next_hdr_sweep),
		cmocka_unit_test(pds_hdr_encode__next_hdr_out_of_field),
		cmocka_unit_test(pds_hdr__undefined_flag_bits),
		cmocka_unit_test(pds_hdr__bit_0_never_bit_6_only_ack_epsn),
		cmocka_unit_test(pds_hdr__ack_req_reserved),
		cmocka_unit_test(pds_hdr__uud_flags_all_zero),
		cmocka_unit_test(pds_hdr_decode__syn_rsvd_bits),
		cmocka_unit_test(pds_hdr_decode__non_syn_dpdcid_is_plain),
		cmocka_unit_test(pds_hdr_decode__rudi_uud_rsvd),
		cmocka_unit_test(pds_hdr_decode__credit_rsvd24),
		cmocka_unit_test(pds_hdr_encode__nccx_state_top_nibble),
		cmocka_unit_test(pds_hdr__ack_cc_type),
		cmocka_unit_test(pds_hdr__nack_codes),
		cmocka_unit_test(pds_hdr__clear_psn_offset_positive),
		cmocka_unit_test(pds_hdr_encode__field_ranges),
		cmocka_unit_test(pds_hdr__round_trip_rud_req),
		cmocka_unit_test(pds_hdr__round_trip_rod_req),
		cmocka_unit_test(pds_hdr__round_trip_rud_cc_req),
		cmocka_unit_test(pds_hdr__round_trip_rod_cc_req),
		cmocka_unit_test(pds_hdr__round_trip_rudi_req),
		cmocka_unit_test(pds_hdr__round_trip_rudi_resp),
		cmocka_unit_test(pds_hdr__round_trip_uud),
		cmocka_unit_test(pds_hdr__round_trip_ack),
		cmocka_unit_test(pds_hdr__round_trip_ack_cc),
		cmocka_unit_test(pds_hdr__round_trip_ack_ccx),
		cmocka_unit_test(pds_hdr__round_trip_nack),
		cmocka_unit_test(pds_hdr__round_trip_nack_ccx),
		cmocka_unit_test(pds_hdr__round_trip_cp),
		cmocka_unit_test(pds_hdr_decode__random_bytes_canonical),
	};

	return cmocka_run_group_tests(tests, setup_seed, NULL);
}
