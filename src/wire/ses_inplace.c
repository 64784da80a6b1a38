/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * SES header fields read in place, for the layers below the SES that
 * need one field of a frame (TSS: the JobID; local delivery: the
 * PIDonFEP) while only the SES decodes the header (ses.c).
 */

#include <uet/uet_wire.h>

#include "wire_be.h"
#include "ses_private.h"

/*
 * What a field read in place rests on, rejected as the decoder rejects
 * it (ses_get_common(), ses_req_check()): the header is all there, its
 * opcode is one the format carries (UEC 1.0 SES request formats), and
 * its version is this one (another version may place the field
 * elsewhere). The other fields are the SES's to check when it decodes
 * the header; so a header this accepts may still fail the decoder, and
 * one it refuses always does.
 */
static int
ses_req_head_check(const uint8_t *p, size_t len, enum uet_wire_ses_fmt fmt)
{
	size_t hlen = uet_wire_ses_fmt_len(fmt);

	if (hlen == 0)
		return -UET_WIRE_E_BAD_NEXT_HDR;
	if (len < hlen)
		return -UET_WIRE_E_TRUNCATED;
	if (p[SES_OFF_OPCODE] & SES_RSVD2_MASK)
		return -UET_WIRE_E_RESERVED;
	if (p[SES_OFF_OPCODE] > UET_SES_OP_MSG_ERROR)
		return -UET_WIRE_E_BAD_OPCODE;
	if (p[SES_OFF_FLAGS] >> SES_VERSION_SHIFT != UET_SES_VERSION)
		return -UET_WIRE_E_BAD_VERSION;
	if (!uet_wire_ses_fmt_allows(fmt, p[SES_OFF_OPCODE]))
		return -UET_WIRE_E_BAD_COMBINATION;
	return 0;
}

/* The same for a response (ses_resp_check()): a response opcode, this
 * version, data only in the two data formats. */
static int
ses_resp_head_check(const uint8_t *p, size_t len,
		    enum uet_wire_ses_resp_fmt fmt)
{
	size_t hlen = uet_wire_ses_resp_fmt_len(fmt);
	unsigned int opcode;

	if (hlen == 0)
		return -UET_WIRE_E_BAD_NEXT_HDR;
	if (len < hlen)
		return -UET_WIRE_E_TRUNCATED;
	opcode = p[0] & SES_LOW6_MASK;
	if (opcode > UET_SES_RSP_NO_RESPONSE)
		return -UET_WIRE_E_BAD_OPCODE;
	if (p[1] >> SES_VERSION_SHIFT != UET_SES_VERSION)
		return -UET_WIRE_E_BAD_VERSION;
	if ((fmt != UET_SES_RESP_FMT_RESPONSE) !=
	    (opcode == UET_SES_RSP_RESPONSE_W_DATA))
		return -UET_WIRE_E_BAD_COMBINATION;
	return 0;
}

int
uet_wire_ses_job_id(const uint8_t *buf, size_t len, unsigned int next_hdr,
		    uint32_t *job_id)
{
	int rc;

	if (uet_wire_ses_fmt_len((enum uet_wire_ses_fmt)next_hdr) != 0)
		rc = ses_req_head_check(buf, len,
					(enum uet_wire_ses_fmt)next_hdr);
	else
		rc = ses_resp_head_check(buf, len,
					 (enum uet_wire_ses_resp_fmt)next_hdr);
	if (rc < 0)
		return rc;
	_Static_assert(SES_OFF_JOB_ID == SES_RSP_OFF_JOB_ID,
		       "one JobID offset in requests and responses");
	*job_id = be24_load(buf + SES_OFF_JOB_ID);
	return 0;
}

int
uet_wire_ses_req_pid(const uint8_t *buf, size_t len, unsigned int next_hdr,
		     uint16_t *pid)
{
	int rc = ses_req_head_check(buf, len, (enum uet_wire_ses_fmt)next_hdr);

	if (rc < 0)
		return rc;
	if (buf[SES_OFF_PID] & SES_RSVD4_MASK)
		return -UET_WIRE_E_RESERVED;
	*pid = be16_load(buf + SES_OFF_PID);
	return 0;
}
