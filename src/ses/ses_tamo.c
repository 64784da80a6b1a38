/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Tagged atomics: TSEND_ATOMIC and TSEND_FETCH_ATOMIC (UEC 1.0 SES extension
 * headers, SES opcodes; HPC profile). The request is matched like a tagged
 * send, but only against posted receives (the fetch result is due in the
 * response, so there is no unexpected path: no receive -> NO_MATCH). The atomic
 * runs on the matched buffer at buffer_offset; the receive completes with the
 * request length. Exactly once: RUD/ROD deliver a request once and the
 * PDS replays the stored response (with the fetch result) to duplicates.
 */

#include <errno.h>
#include <string.h>

#include <uet/uet_ses_amo.h>

#include "ses_private.h"

/* Operand, datatype and size checks that need no target memory, so that
 * a malformed request consumes no receive. */
static enum uet_wire_ses_rc
ses_tamo_precheck(const struct uet_wire_ses_req *h, const uint8_t *pl,
		  uint32_t plen, const void **operand, const void **compare)
{
	_Alignas(16) uint8_t probe[16];
	bool fetch = h->opcode == UET_SES_OP_TSEND_FETCH_ATOMIC;
	enum uet_wire_ses_rc rc;

	rc = ses_target_amo_args(h, pl, plen, operand, compare);
	if (rc != UET_RC_OK)
		return rc;
	rc = uet_amo_check(h->atomic.op, h->atomic.datatype, probe,
			   h->request_length, h->atomic.semantic_control);
	if (rc != UET_RC_OK)
		return rc;
	if (fetch && h->request_length > SES_FETCH_MAX)
		return UET_RC_AMO_UNSUPPORTED_SIZE;
	return UET_RC_OK;
}

/* Run the atomic in the matched receive; the receive completes. */
static enum uet_wire_ses_rc
ses_tamo_exec(struct uet_ses *s, const struct uet_wire_ses_req *h,
	      const struct uet_ses_match_result *r, const void *operand,
	      const void *compare, uint8_t *old)
{
	uint64_t off = h->buffer_offset, len = h->request_length;
	enum uet_wire_ses_rc rc = UET_RC_OK;
	struct ses_rx_info ri;

	/* r->len = min(extent, receive space): short means out of range. */
	if (r->len < off + len)
		rc = off >= r->len ? UET_RC_BAD_ADDR : UET_RC_TOO_LONG;
	else
		rc = uet_amo_exec((enum uet_wire_amo_op)h->atomic.op,
				  (enum uet_wire_amo_dt)h->atomic.datatype,
				  (uint8_t *)r->buf + r->offset + off, operand,
				  compare, old, len,
				  h->atomic.semantic_control);
	memset(&ri, 0, sizeof(ri));
	ri.ctx = r->context;
	ri.len = rc == UET_RC_OK ? len : 0;
	ri.total = ri.len;
	ri.tag = h->match_bits;
	ri.src = h->initiator;
	ri.tagged = true;
	ri.flags = (r->flags & UET_SES_MATCH_F_RELEASED) ?
		   UET_SES_CQ_MULTI_RECV_DONE : 0;
	ri.status = rc == UET_RC_OK ? 0 : uet_ses_rc_errno(rc);
	ri.rc = rc;
	ses_recv_cqe(s, &ri);
	return rc;
}

int
ses_target_tamo(struct uet_ses *s, const struct uet_pds_event *ev,
	     const struct uet_wire_ses_req *h, const uint8_t *pl, uint32_t plen,
	     uint64_t now)
{
	bool fetch = h->opcode == UET_SES_OP_TSEND_FETCH_ATOMIC;
	const void *operand = NULL, *compare = NULL;
	struct uet_ses_match_arrival a;
	struct uet_ses_match_result r;
	struct uet_ses_match *m;
	uint8_t old[SES_FETCH_MAX];
	enum uet_wire_ses_rc rc;

	if (!(h->flags & UET_SES_F_SOM) || !(h->flags & UET_SES_F_EOM)) {
		s->st.rx_bad++;
		rc = UET_RC_AMO_UNSUPPORTED_SIZE; /* atomics are one packet */
	} else if (h->buffer_offset > UINT32_MAX - h->request_length) {
		rc = UET_RC_TOO_LONG;
	} else {
		rc = ses_tamo_precheck(h, pl, plen, &operand, &compare);
	}
	if (rc != UET_RC_OK)
		return ses_respond_rc(s, ev, h, rc, UET_SES_LIST_EXPECTED, now);
	ses_msg_from_req(h, &a.msg);
	/* The extent the atomic touches decides the receive's fit. */
	a.msg.total_len = (uint32_t)(h->buffer_offset + h->request_length);
	a.msg.hold_len = 0;
	a.data = NULL;
	a.data_len = 0;
	m = ses_match(s, h->pid_on_fep);
	if (m == NULL || uet_ses_match_arrival_posted(m, &a, &r) != 0) {
		rc = UET_RC_UNCOR;
	} else if (r.verdict != UET_SES_MATCH_EXPECTED) {
		s->st.unexp_drop++;
		rc = UET_RC_NO_MATCH;
	} else {
		rc = ses_tamo_exec(s, h, &r, operand, compare,
				   fetch ? old : NULL);
	}
	if (rc == UET_RC_OK && fetch)
		return ses_target_data_resp(s, ev, h, UET_SES_LIST_EXPECTED, old,
					 (uint16_t)h->request_length, now);
	return ses_respond_rc(s, ev, h, rc, UET_SES_LIST_EXPECTED, now);
}
