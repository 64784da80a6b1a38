/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Profile enforcement: the table of UEC 1.0 profiles, one row per
 * request opcode. UNSUPPORTED_OP: the opcode is not in the profile;
 * OP_VIOLATION: the opcode is, but not used this way (wildcard tagged
 * receive, RUDI delivery); TOO_LONG: the message is longer than the
 * profile's SEND limit.
 */

#include <uet/uet_ses_mr.h>

#define P_BASE (1u << UET_PROFILE_AI_BASE)
#define P_FULL (1u << UET_PROFILE_AI_FULL)
#define P_HPC (1u << UET_PROFILE_HPC)
#define P_ALL (P_BASE | P_FULL | P_HPC)

/* Profiles carrying each opcode (UEC 1.0 profiles, one row each). */
static const uint8_t prof_opcode[UET_SES_OP_MSG_ERROR + 1] = {
	[UET_SES_OP_NO_OP] = P_ALL,
	[UET_SES_OP_WRITE] = P_ALL,
	[UET_SES_OP_READ] = P_FULL | P_HPC,
	[UET_SES_OP_ATOMIC] = P_ALL,              /* non-fetching atomic */
	[UET_SES_OP_FETCHING_ATOMIC] = P_FULL | P_HPC,
	[UET_SES_OP_SEND] = P_ALL,                /* size limit below */
	[UET_SES_OP_RENDEZVOUS_SEND] = P_HPC,
	[UET_SES_OP_DATAGRAM_SEND] = P_ALL,
	[UET_SES_OP_DEFERRABLE_SEND] = P_FULL,
	[UET_SES_OP_TAGGED_SEND] = P_ALL,         /* exact; wildcard below */
	[UET_SES_OP_RENDEZVOUS_TSEND] = P_HPC,
	[UET_SES_OP_DEFERRABLE_TSEND] = P_FULL,
	[UET_SES_OP_DEFERRABLE_RTR] = P_FULL,     /* part of deferrable send */
	[UET_SES_OP_TSEND_ATOMIC] = P_HPC,        /* tagged atomics */
	[UET_SES_OP_TSEND_FETCH_ATOMIC] = P_HPC,
	[UET_SES_OP_MSG_ERROR] = P_ALL,
};

static bool
prof_is_tagged(unsigned int op)
{
	return op == UET_SES_OP_TAGGED_SEND ||
	       op == UET_SES_OP_RENDEZVOUS_TSEND ||
	       op == UET_SES_OP_DEFERRABLE_TSEND;
}

static bool
prof_is_send(unsigned int op)
{
	return op >= UET_SES_OP_SEND && op <= UET_SES_OP_DEFERRABLE_TSEND;
}

static enum uet_wire_ses_rc
prof_check(enum uet_wire_profile profile, unsigned int op, uint64_t size,
	   unsigned int flags, uint32_t mtu)
{
	unsigned int p = (unsigned int)profile;

	if (p < UET_PROFILE_AI_BASE || p > UET_PROFILE_HPC ||
	    op > UET_SES_OP_MSG_ERROR || !(prof_opcode[op] & (1u << p)))
		return UET_RC_UNSUPPORTED_OP;
	if ((flags & UET_SES_PROF_F_WILDCARD) && prof_is_tagged(op) &&
	    profile == UET_PROFILE_AI_BASE)
		return UET_RC_OP_VIOLATION;
	/* RUDI is a delivery mode of HPC only. */
	if ((flags & UET_SES_PROF_F_RUDI) && profile != UET_PROFILE_HPC)
		return UET_RC_OP_VIOLATION;
	if (prof_is_send(op) && size > UET_SES_MSG_MAX)
		return UET_RC_TOO_LONG;
	if (op == UET_SES_OP_SEND && profile == UET_PROFILE_AI_BASE &&
	    size > mtu)
		return UET_RC_TOO_LONG;
	return UET_RC_OK;
}

bool
uet_ses_profile_allows(enum uet_wire_profile profile, enum uet_wire_ses_opcode opcode,
		       uint64_t size, unsigned int flags, uint32_t mtu,
		       enum uet_wire_ses_rc *reason)
{
	enum uet_wire_ses_rc rc = prof_check(profile, opcode, size, flags, mtu);

	if (reason != NULL)
		*reason = rc;
	return rc == UET_RC_OK;
}
