/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * PDS header codec (UEC 1.0 PDS headers) and the native-IP entropy header
 * (UEC 1.0 encapsulation).
 *
 * Encode and decode share one set of legality checks on the host-order
 * struct (pds_check_prologue, pds_check_body), so anything encode accepts
 * decodes to the same struct, and anything decode accepts re-encodes to
 * the same bytes. Only reserved-bit checks are wire-side, because the
 * struct has no place to hold reserved bits.
 */

#include <string.h>

#include <uet/uet_wire.h>

#include "wire_be.h"

/* Byte offsets inside each header, prologue included. */
#define REQ_CLEAR_OFF   2
#define REQ_PSN         4
#define REQ_SPDCID      8
#define REQ_DPDCID      10
#define REQ_CCC_ID      12
#define REQ_CREDIT      13
#define ACK_OFFSET      2
#define ACK_CACK        4
#define ACK_SPDCID      8
#define ACK_DPDCID      10
#define ACK_EPSN        12
#define ACK_CC_TYPE     12
#define ACK_MPR         13
#define ACK_SACK_OFF    14
#define ACK_SACK_BITMAP 16
#define ACK_CC_STATE    24
#define NACK_CODE       2
#define NACK_VENDOR     3
#define NACK_PSN        4
#define NACK_SPDCID     8
#define NACK_DPDCID     10
#define NACK_PAYLOAD    12
#define NACK_CCX        16
#define CP_PROBE        2
#define CP_PSN          4
#define CP_SPDCID       8
#define CP_DPDCID       10
#define CP_PAYLOAD      12
#define RUDI_RSVD       2
#define RUDI_PKT_ID     4
#define UUD_RSVD        2

_Static_assert(UET_PDS_REQ_LEN == REQ_DPDCID + 2, "RUD/ROD request size");
_Static_assert(UET_PDS_CC_REQ_LEN == REQ_CREDIT + 3, "CC request size");
_Static_assert(UET_PDS_ACK_LEN == ACK_DPDCID + 2, "ACK size");
_Static_assert(UET_PDS_ACK_EPSN_LEN == ACK_EPSN + 4, "ACK with EPSN size");
_Static_assert(UET_PDS_ACK_CC_LEN == ACK_CC_STATE + 8, "ACK_CC size");
_Static_assert(UET_PDS_ACK_CCX_LEN == ACK_CC_STATE + UET_PDS_CCX_STATE_LEN,
	       "ACK_CCX size");
_Static_assert(UET_PDS_NACK_LEN == NACK_PAYLOAD + 4, "NACK size");
_Static_assert(UET_PDS_NACK_CCX_LEN == NACK_CCX + UET_PDS_CCX_STATE_LEN,
	       "NACK_CCX size");
_Static_assert(UET_PDS_CP_LEN == CP_PAYLOAD + 4, "CP size");
_Static_assert(UET_PDS_RUDI_LEN == RUDI_PKT_ID + 4, "RUDI size");
_Static_assert(UET_PDS_UUD_LEN == UUD_RSVD + 2, "UUD size");
_Static_assert(UET_PDS_HDR_MAX_LEN >= UET_PDS_NACK_CCX_LEN, "max size");

/* SYN variant of dpdcid: use_rsv_pdc[15] rsvd[14:12] psn_offset[11:0]. */
#define SYN_USE_RSV  0x8000u
#define SYN_RSVD     0x7000u

/* Defined flags per type (UEC 1.0 PDS prologue); bit 0 never is, bit 6
 * only as UET_PDS_F_EPSN of an ACK (pds_flags_allowed). */
#define FLAGS_REQ       (UET_PDS_F_RETX | UET_PDS_F_AR | UET_PDS_F_SYN)
#define FLAGS_ACK       (UET_PDS_F_M | UET_PDS_F_RETX | UET_PDS_F_P | \
			 (UET_PDS_ACK_REQ_MASK << UET_PDS_ACK_REQ_SHIFT))
#define FLAGS_NACK      (UET_PDS_F_M | UET_PDS_F_RETX | UET_PDS_F_NT)
#define FLAGS_CP        (UET_PDS_F_ISROD | UET_PDS_F_RETX | UET_PDS_F_AR | \
			 UET_PDS_F_SYN)
#define FLAGS_RUDI_REQ  UET_PDS_F_RETX
#define FLAGS_RUDI_RESP (UET_PDS_F_M | UET_PDS_F_RETX)

#define ACK_REQ_RESERVED 3u

static const uint8_t pds_len[UET_PDS_TYPE_MAX + 1] = {
	[UET_PDS_TYPE_RUD_REQ] = UET_PDS_REQ_LEN,
	[UET_PDS_TYPE_ROD_REQ] = UET_PDS_REQ_LEN,
	[UET_PDS_TYPE_RUDI_REQ] = UET_PDS_RUDI_LEN,
	[UET_PDS_TYPE_RUDI_RESP] = UET_PDS_RUDI_LEN,
	[UET_PDS_TYPE_UUD_REQ] = UET_PDS_UUD_LEN,
	[UET_PDS_TYPE_ACK] = UET_PDS_ACK_LEN,
	[UET_PDS_TYPE_ACK_CC] = UET_PDS_ACK_CC_LEN,
	[UET_PDS_TYPE_ACK_CCX] = UET_PDS_ACK_CCX_LEN,
	[UET_PDS_TYPE_NACK] = UET_PDS_NACK_LEN,
	[UET_PDS_TYPE_CP] = UET_PDS_CP_LEN,
	[UET_PDS_TYPE_NACK_CCX] = UET_PDS_NACK_CCX_LEN,
	[UET_PDS_TYPE_RUD_CC_REQ] = UET_PDS_CC_REQ_LEN,
	[UET_PDS_TYPE_ROD_CC_REQ] = UET_PDS_CC_REQ_LEN,
};

size_t
uet_wire_pds_hdr_len(unsigned int type)
{
	return type <= UET_PDS_TYPE_MAX ? pds_len[type] : 0;
}

static size_t
pds_size(unsigned int type, unsigned int flags)
{
	if (type == UET_PDS_TYPE_ACK && (flags & UET_PDS_F_EPSN))
		return UET_PDS_ACK_EPSN_LEN;
	return uet_wire_pds_hdr_len(type);
}

size_t
uet_wire_pds_hdr_size(const struct uet_wire_pds_hdr *h)
{
	return pds_size(h->type, h->flags);
}

size_t
uet_wire_pds_hdr_size_at(const uint8_t *buf, size_t len)
{
	if (len < UET_PDS_PROLOGUE_LEN)
		return 0;
	return pds_size(buf[0] >> 3, buf[1] & 0x7Fu);
}

static int
pds_check_type(unsigned int type)
{
	if (type == UET_PDS_TYPE_TSS)
		return -UET_WIRE_E_UNSUPPORTED;
	if (uet_wire_pds_hdr_len(type) == 0)
		return -UET_WIRE_E_BAD_TYPE;
	return 0;
}

/* Next header: requests carry 1-3, RUD/ROD requests in the return
 * direction of a PDC also 5-6; ACKs and RUDI responses 0 or 4-6; NACKs
 * nothing. */
static bool
pds_next_hdr_ok(unsigned int type, unsigned int nh)
{
	bool req = nh >= UET_PDS_NEXT_REQUEST_SMALL &&
		   nh <= UET_PDS_NEXT_REQUEST_STD;
	bool rsp = nh >= UET_PDS_NEXT_RESPONSE &&
		   nh <= UET_PDS_NEXT_RESPONSE_DATA_SMALL;
	bool rsp_data = nh == UET_PDS_NEXT_RESPONSE_DATA ||
			nh == UET_PDS_NEXT_RESPONSE_DATA_SMALL;

	if (uet_wire_pds_type_is_req(type))
		return req || rsp_data;
	if (type == UET_PDS_TYPE_RUDI_REQ || type == UET_PDS_TYPE_UUD_REQ)
		return req;
	if (uet_wire_pds_type_is_ack(type) || type == UET_PDS_TYPE_RUDI_RESP)
		return nh == UET_PDS_NEXT_NONE || rsp;
	return nh == UET_PDS_NEXT_NONE;
}

static unsigned int
pds_flags_allowed(unsigned int type)
{
	if (uet_wire_pds_type_is_req(type))
		return FLAGS_REQ;
	if (type == UET_PDS_TYPE_ACK)
		return FLAGS_ACK | UET_PDS_F_EPSN;
	if (uet_wire_pds_type_is_ack(type))
		return FLAGS_ACK;
	if (uet_wire_pds_type_is_nack(type))
		return FLAGS_NACK;
	if (type == UET_PDS_TYPE_CP)
		return FLAGS_CP;
	if (type == UET_PDS_TYPE_RUDI_REQ)
		return FLAGS_RUDI_REQ;
	if (type == UET_PDS_TYPE_RUDI_RESP)
		return FLAGS_RUDI_RESP;
	return 0; /* UUD */
}

/* Type must already be valid. */
static int
pds_check_prologue(const struct uet_wire_pds_hdr *h)
{
	if (h->type == UET_PDS_TYPE_CP) {
		if (h->next_hdr > UET_PDS_CTL_MAX)
			return -UET_WIRE_E_BAD_CTL_TYPE;
	} else if (!pds_next_hdr_ok(h->type, h->next_hdr)) {
		return -UET_WIRE_E_BAD_NEXT_HDR;
	}
	if (h->flags & ~pds_flags_allowed(h->type))
		return -UET_WIRE_E_BAD_FLAGS;
	if (uet_wire_pds_type_is_ack(h->type) &&
	    uet_wire_pds_ack_req_get(h) == ACK_REQ_RESERVED)
		return -UET_WIRE_E_BAD_FIELD;
	return 0;
}

static int
pds_check_req(const struct uet_wire_pds_hdr *h)
{
	const struct uet_wire_pds_req *r = &h->u.req;

	/* CLEAR_PSN never runs ahead of the packet's PSN (UEC 1.0 PDS header
	 * formats). */
	if (r->clear_psn_offset > 0)
		return -UET_WIRE_E_BAD_FIELD;
	if ((h->flags & UET_PDS_F_SYN) &&
	    r->psn_offset > UET_PDS_PSN_OFFSET_MAX)
		return -UET_WIRE_E_BAD_FIELD;
	if (uet_wire_pds_type_is_cc_req(h->type) &&
	    r->credit_target > UET_PDS_U24_MAX)
		return -UET_WIRE_E_BAD_FIELD;
	return 0;
}

static int
pds_check_cc_state(const struct uet_wire_pds_ack *a)
{
	if (a->cc_type == UET_CC_TYPE_NSCC) {
		if (a->cc.nscc.rcv_cwnd_pend > UET_PDS_RCV_CWND_PEND_MAX ||
		    a->cc.nscc.rcvd_bytes > UET_PDS_U24_MAX)
			return -UET_WIRE_E_BAD_FIELD;
		return 0;
	}
	if (a->cc_type == UET_CC_TYPE_CREDIT) {
		if (a->cc.credit.credit > UET_PDS_U24_MAX)
			return -UET_WIRE_E_BAD_FIELD;
		return 0;
	}
	return -UET_WIRE_E_BAD_CC_TYPE;
}

static int
pds_check_ack(const struct uet_wire_pds_hdr *h)
{
	const struct uet_wire_pds_ack *a = &h->u.ack;

	if (h->type == UET_PDS_TYPE_ACK)
		return 0;
	if (a->cc_flags > UET_PDS_U4_MAX)
		return -UET_WIRE_E_BAD_FIELD;
	if (h->type == UET_PDS_TYPE_ACK_CC)
		return pds_check_cc_state(a);
	/* ACK_CCX: the state is opaque, any 4-bit cc_type is legal. */
	if (a->cc_type > UET_PDS_U4_MAX)
		return -UET_WIRE_E_BAD_FIELD;
	return 0;
}

static bool
pds_nack_code_ok(unsigned int code)
{
	/* uet_wire_pds_nack_class() knows the defined codes; 0x03 is retired and
	 * classed INVALID (UEC 1.0 PDS NACK codes). */
	return uet_wire_pds_nack_class(code) != UET_NACK_CLASS_INVALID;
}

static int
pds_check_nack(const struct uet_wire_pds_hdr *h)
{
	const struct uet_wire_pds_nack *n = &h->u.nack;

	if (!pds_nack_code_ok(n->code))
		return -UET_WIRE_E_BAD_NACK_CODE;
	if (h->type != UET_PDS_TYPE_NACK_CCX)
		return 0;
	if (n->nccx_type > UET_PDS_U4_MAX)
		return -UET_WIRE_E_BAD_FIELD;
	/* The state is 124 bits: the top nibble of the first byte does not
	 * exist on the wire (the type sits there). */
	if (n->nccx_state[0] & 0xF0u)
		return -UET_WIRE_E_RESERVED;
	return 0;
}

static int
pds_check_body(const struct uet_wire_pds_hdr *h)
{
	if (uet_wire_pds_type_is_ack(h->type))
		return pds_check_ack(h);
	if (uet_wire_pds_type_is_req(h->type))
		return pds_check_req(h);
	if (uet_wire_pds_type_is_nack(h->type))
		return pds_check_nack(h);
	if (h->type == UET_PDS_TYPE_CP && (h->flags & UET_PDS_F_SYN) &&
	    h->u.cp.psn_offset > UET_PDS_PSN_OFFSET_MAX)
		return -UET_WIRE_E_BAD_FIELD;
	return 0;
}

/* ---------------------------------------------------------------- */
/* Encode                                                            */
/* ---------------------------------------------------------------- */

static uint16_t
pds_syn_word(bool use_rsv_pdc, uint16_t psn_offset)
{
	return (uint16_t)((use_rsv_pdc ? SYN_USE_RSV : 0) | psn_offset);
}

static void
pds_put_req(const struct uet_wire_pds_hdr *h, uint8_t *buf)
{
	const struct uet_wire_pds_req *r = &h->u.req;

	be16_store(buf + REQ_CLEAR_OFF, (uint16_t)r->clear_psn_offset);
	be32_store(buf + REQ_PSN, r->psn);
	be16_store(buf + REQ_SPDCID, r->spdcid);
	if (h->flags & UET_PDS_F_SYN)
		be16_store(buf + REQ_DPDCID,
			   pds_syn_word(r->use_rsv_pdc, r->psn_offset));
	else
		be16_store(buf + REQ_DPDCID, r->dpdcid);
	if (uet_wire_pds_type_is_cc_req(h->type)) {
		buf[REQ_CCC_ID] = r->ccc_id;
		be24_store(buf + REQ_CREDIT, r->credit_target);
	}
}

static void
pds_put_cc_state(const struct uet_wire_pds_ack *a, uint8_t *p)
{
	if (a->cc_type == UET_CC_TYPE_NSCC) {
		be16_store(p, a->cc.nscc.service_time);
		p[2] = (uint8_t)((a->cc.nscc.rc ? 0x80u : 0) |
				 a->cc.nscc.rcv_cwnd_pend);
		be24_store(p + 3, a->cc.nscc.rcvd_bytes);
		be16_store(p + 6, a->cc.nscc.ooo_count);
	} else {
		be24_store(p, a->cc.credit.credit);
		be24_store(p + 3, 0);
		be16_store(p + 6, a->cc.credit.ooo_count);
	}
}

static void
pds_put_ack(const struct uet_wire_pds_hdr *h, uint8_t *buf)
{
	const struct uet_wire_pds_ack *a = &h->u.ack;

	if (h->flags & UET_PDS_F_P)
		be16_store(buf + ACK_OFFSET, a->probe_opaque);
	else
		be16_store(buf + ACK_OFFSET, (uint16_t)a->ack_psn_offset);
	be32_store(buf + ACK_CACK, a->cack_psn);
	be16_store(buf + ACK_SPDCID, a->spdcid);
	be16_store(buf + ACK_DPDCID, a->dpdcid);
	if (h->type == UET_PDS_TYPE_ACK) {
		if (h->flags & UET_PDS_F_EPSN)
			be32_store(buf + ACK_EPSN, a->expected_psn);
		return;
	}
	buf[ACK_CC_TYPE] = (uint8_t)(a->cc_type << 4 | a->cc_flags);
	buf[ACK_MPR] = a->mpr;
	be16_store(buf + ACK_SACK_OFF, (uint16_t)a->sack_psn_offset);
	be64_store(buf + ACK_SACK_BITMAP, a->sack_bitmap);
	if (h->type == UET_PDS_TYPE_ACK_CC)
		pds_put_cc_state(a, buf + ACK_CC_STATE);
	else
		memcpy(buf + ACK_CC_STATE, a->ccx_state, UET_PDS_CCX_STATE_LEN);
}

static void
pds_put_nack(const struct uet_wire_pds_hdr *h, uint8_t *buf)
{
	const struct uet_wire_pds_nack *n = &h->u.nack;

	buf[NACK_CODE] = n->code;
	buf[NACK_VENDOR] = n->vendor_code;
	be32_store(buf + NACK_PSN, n->psn);
	be16_store(buf + NACK_SPDCID, n->spdcid);
	be16_store(buf + NACK_DPDCID, n->dpdcid);
	be32_store(buf + NACK_PAYLOAD, n->payload);
	if (h->type != UET_PDS_TYPE_NACK_CCX)
		return;
	memcpy(buf + NACK_CCX, n->nccx_state, UET_PDS_CCX_STATE_LEN);
	buf[NACK_CCX] = (uint8_t)(n->nccx_type << 4 | n->nccx_state[0]);
}

static void
pds_put_cp(const struct uet_wire_pds_hdr *h, uint8_t *buf)
{
	const struct uet_wire_pds_cp *cp = &h->u.cp;

	be16_store(buf + CP_PROBE, cp->probe_opaque);
	be32_store(buf + CP_PSN, cp->psn);
	be16_store(buf + CP_SPDCID, cp->spdcid);
	if (h->flags & UET_PDS_F_SYN)
		be16_store(buf + CP_DPDCID,
			   pds_syn_word(cp->use_rsv_pdc, cp->psn_offset));
	else
		be16_store(buf + CP_DPDCID, cp->dpdcid);
	be32_store(buf + CP_PAYLOAD, cp->payload);
}

static void
pds_put_body(const struct uet_wire_pds_hdr *h, uint8_t *buf)
{
	if (uet_wire_pds_type_is_req(h->type))
		pds_put_req(h, buf);
	else if (uet_wire_pds_type_is_ack(h->type))
		pds_put_ack(h, buf);
	else if (uet_wire_pds_type_is_nack(h->type))
		pds_put_nack(h, buf);
	else if (h->type == UET_PDS_TYPE_CP)
		pds_put_cp(h, buf);
	else if (h->type == UET_PDS_TYPE_UUD_REQ)
		be16_store(buf + UUD_RSVD, 0);
	else {
		be16_store(buf + RUDI_RSVD, 0);
		be32_store(buf + RUDI_PKT_ID, h->u.rudi.pkt_id);
	}
}

int
uet_wire_pds_hdr_encode(const struct uet_wire_pds_hdr *h, uint8_t *buf, size_t cap)
{
	size_t len;
	int rc;

	rc = pds_check_type(h->type);
	if (rc < 0)
		return rc;
	rc = pds_check_prologue(h);
	if (rc < 0)
		return rc;
	rc = pds_check_body(h);
	if (rc < 0)
		return rc;
	len = uet_wire_pds_hdr_size(h);
	if (cap < len)
		return -UET_WIRE_E_NOSPACE;
	/* UEC 1.0 PDS prologue: type[15:11] next_hdr[10:7] flags[6:0]. */
	be16_store(buf, (uint16_t)(h->type << 11 | h->next_hdr << 7 |
				   h->flags));
	pds_put_body(h, buf);
	return (int)len;
}

/* ---------------------------------------------------------------- */
/* Decode                                                            */
/* ---------------------------------------------------------------- */

static int
pds_get_syn_word(uint16_t w, bool *use_rsv_pdc, uint16_t *psn_offset)
{
	if (w & SYN_RSVD)
		return -UET_WIRE_E_RESERVED;
	*use_rsv_pdc = (w & SYN_USE_RSV) != 0;
	*psn_offset = w & UET_PDS_PSN_OFFSET_MAX;
	return 0;
}

static int
pds_get_req(const uint8_t *buf, struct uet_wire_pds_hdr *h)
{
	struct uet_wire_pds_req *r = &h->u.req;
	uint16_t w = be16_load(buf + REQ_DPDCID);
	int rc = 0;

	r->clear_psn_offset = (int16_t)be16_load(buf + REQ_CLEAR_OFF);
	r->psn = be32_load(buf + REQ_PSN);
	r->spdcid = be16_load(buf + REQ_SPDCID);
	if (h->flags & UET_PDS_F_SYN)
		rc = pds_get_syn_word(w, &r->use_rsv_pdc, &r->psn_offset);
	else
		r->dpdcid = w;
	if (uet_wire_pds_type_is_cc_req(h->type)) {
		r->ccc_id = buf[REQ_CCC_ID];
		r->credit_target = be24_load(buf + REQ_CREDIT);
	}
	return rc;
}

static int
pds_get_cc_state(const uint8_t *p, struct uet_wire_pds_ack *a)
{
	if (a->cc_type == UET_CC_TYPE_NSCC) {
		a->cc.nscc.service_time = be16_load(p);
		a->cc.nscc.rc = (p[2] & 0x80u) != 0;
		a->cc.nscc.rcv_cwnd_pend = p[2] & UET_PDS_RCV_CWND_PEND_MAX;
		a->cc.nscc.rcvd_bytes = be24_load(p + 3);
		a->cc.nscc.ooo_count = be16_load(p + 6);
	} else if (a->cc_type == UET_CC_TYPE_CREDIT) {
		a->cc.credit.credit = be24_load(p);
		if (be24_load(p + 3) != 0)
			return -UET_WIRE_E_RESERVED;
		a->cc.credit.ooo_count = be16_load(p + 6);
	}
	/* Other cc_types are rejected by pds_check_body. */
	return 0;
}

static int
pds_get_ack(const uint8_t *buf, struct uet_wire_pds_hdr *h)
{
	struct uet_wire_pds_ack *a = &h->u.ack;
	uint16_t w = be16_load(buf + ACK_OFFSET);

	if (h->flags & UET_PDS_F_P)
		a->probe_opaque = w;
	else
		a->ack_psn_offset = (int16_t)w;
	a->cack_psn = be32_load(buf + ACK_CACK);
	a->spdcid = be16_load(buf + ACK_SPDCID);
	a->dpdcid = be16_load(buf + ACK_DPDCID);
	if (h->type == UET_PDS_TYPE_ACK) {
		if (h->flags & UET_PDS_F_EPSN)
			a->expected_psn = be32_load(buf + ACK_EPSN);
		return 0;
	}
	a->cc_type = buf[ACK_CC_TYPE] >> 4;
	a->cc_flags = buf[ACK_CC_TYPE] & 0x0Fu;
	a->mpr = buf[ACK_MPR];
	a->sack_psn_offset = (int16_t)be16_load(buf + ACK_SACK_OFF);
	a->sack_bitmap = be64_load(buf + ACK_SACK_BITMAP);
	if (h->type == UET_PDS_TYPE_ACK_CC)
		return pds_get_cc_state(buf + ACK_CC_STATE, a);
	memcpy(a->ccx_state, buf + ACK_CC_STATE, UET_PDS_CCX_STATE_LEN);
	return 0;
}

static void
pds_get_nack(const uint8_t *buf, struct uet_wire_pds_hdr *h)
{
	struct uet_wire_pds_nack *n = &h->u.nack;

	n->code = buf[NACK_CODE];
	n->vendor_code = buf[NACK_VENDOR];
	n->psn = be32_load(buf + NACK_PSN);
	n->spdcid = be16_load(buf + NACK_SPDCID);
	n->dpdcid = be16_load(buf + NACK_DPDCID);
	n->payload = be32_load(buf + NACK_PAYLOAD);
	if (h->type != UET_PDS_TYPE_NACK_CCX)
		return;
	memcpy(n->nccx_state, buf + NACK_CCX, UET_PDS_CCX_STATE_LEN);
	n->nccx_type = n->nccx_state[0] >> 4;
	n->nccx_state[0] &= 0x0Fu;
}

static int
pds_get_cp(const uint8_t *buf, struct uet_wire_pds_hdr *h)
{
	struct uet_wire_pds_cp *cp = &h->u.cp;
	uint16_t w = be16_load(buf + CP_DPDCID);
	int rc = 0;

	cp->probe_opaque = be16_load(buf + CP_PROBE);
	cp->psn = be32_load(buf + CP_PSN);
	cp->spdcid = be16_load(buf + CP_SPDCID);
	if (h->flags & UET_PDS_F_SYN)
		rc = pds_get_syn_word(w, &cp->use_rsv_pdc, &cp->psn_offset);
	else
		cp->dpdcid = w;
	cp->payload = be32_load(buf + CP_PAYLOAD);
	return rc;
}

static int
pds_get_body(const uint8_t *buf, struct uet_wire_pds_hdr *h)
{
	if (uet_wire_pds_type_is_req(h->type))
		return pds_get_req(buf, h);
	if (uet_wire_pds_type_is_ack(h->type))
		return pds_get_ack(buf, h);
	if (uet_wire_pds_type_is_nack(h->type)) {
		pds_get_nack(buf, h);
		return 0;
	}
	if (h->type == UET_PDS_TYPE_CP)
		return pds_get_cp(buf, h);
	if (h->type == UET_PDS_TYPE_UUD_REQ)
		return be16_load(buf + UUD_RSVD) ? -UET_WIRE_E_RESERVED : 0;
	if (be16_load(buf + RUDI_RSVD) != 0)
		return -UET_WIRE_E_RESERVED;
	h->u.rudi.pkt_id = be32_load(buf + RUDI_PKT_ID);
	return 0;
}

int
uet_wire_pds_hdr_decode(const uint8_t *buf, size_t len, struct uet_wire_pds_hdr *h)
{
	uint16_t prologue;
	size_t need;
	int rc;

	memset(h, 0, sizeof(*h));
	if (len < UET_PDS_PROLOGUE_LEN)
		return -UET_WIRE_E_TRUNCATED;
	prologue = be16_load(buf);
	h->type = (uint8_t)(prologue >> 11);
	h->next_hdr = (uint8_t)((prologue >> 7) & 0x0Fu);
	h->flags = (uint8_t)(prologue & 0x7Fu);
	rc = pds_check_type(h->type);
	if (rc < 0)
		return rc;
	need = uet_wire_pds_hdr_size(h);
	if (len < need)
		return -UET_WIRE_E_TRUNCATED;
	rc = pds_check_prologue(h);
	if (rc < 0)
		return rc;
	rc = pds_get_body(buf, h);
	if (rc < 0)
		return rc;
	rc = pds_check_body(h);
	if (rc < 0)
		return rc;
	return (int)need;
}

/* ---------------------------------------------------------------- */
/* Entropy header (native-IP mode)                                    */
/* ---------------------------------------------------------------- */

int
uet_wire_entropy_hdr_encode(const struct uet_wire_entropy_hdr *h, uint8_t *buf,
		       size_t cap)
{
	if (cap < UET_ENTROPY_HDR_LEN)
		return -UET_WIRE_E_NOSPACE;
	be16_store(buf, h->entropy);
	be16_store(buf + 2, 0);
	return UET_ENTROPY_HDR_LEN;
}

int
uet_wire_entropy_hdr_decode(const uint8_t *buf, size_t len,
		       struct uet_wire_entropy_hdr *h)
{
	if (len < UET_ENTROPY_HDR_LEN)
		return -UET_WIRE_E_TRUNCATED;
	if (be16_load(buf + 2) != 0)
		return -UET_WIRE_E_RESERVED;
	h->entropy = be16_load(buf);
	return UET_ENTROPY_HDR_LEN;
}
