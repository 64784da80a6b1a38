/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * DST profiles (generator 3): each node's process has a profile of its
 * own (uet_ses_config.profile_of), and the simulator predicts, from the
 * operation alone, what the profiles allow (UEC 1.0 SES profiles: AI
 * Base carries WRITE, non-fetching atomics, SEND of one packet, exact
 * tagged sends, datagrams; AI Full adds READ, fetching atomics and the
 * deferrable sends; HPC adds READ, fetching atomics, rendezvous and
 * tagged atomics, and RUDI delivery): the initiator's profile at
 * submit, the target's on arrival (UNSUPPORTED_OP or TOO_LONG before
 * anything else, OP_VIOLATION for RUDI outside HPC).
 */

#include <errno.h>

#include "dst.h"

#define PB (1u << UET_PROFILE_AI_BASE)
#define PF (1u << UET_PROFILE_AI_FULL)
#define PH (1u << UET_PROFILE_HPC)

/* The profiles that carry each operation of the workload. */
static const uint8_t kind_profiles[DST_OP__COUNT] = {
	[DST_OP_SEND] = PB | PF | PH,   /* AI Base: one packet */
	[DST_OP_TSEND] = PB | PF | PH,
	[DST_OP_RDV] = PH,
	[DST_OP_DEFER] = PF,
	[DST_OP_WRITE] = PB | PF | PH,
	[DST_OP_READ] = PF | PH,
	[DST_OP_FETCH] = PF | PH,
	[DST_OP_ATOMIC] = PB | PF | PH,
	[DST_OP_DGRAM] = PB | PF | PH,
	[DST_OP_AMO] = PB | PF | PH,
	[DST_OP_FAMO] = PF | PH,
	[DST_OP_CSWAP] = PF | PH,
	[DST_OP_TAMO] = PH,
	[DST_OP_TFAMO] = PH,
	[DST_OP_NOP] = PB | PF | PH,
};

bool
dst_profile_allows(uint8_t profile, uint8_t kind)
{
	return kind < DST_OP__COUNT && (kind_profiles[kind] >> profile) & 1;
}

enum uet_wire_profile
dst_profile_of(void *arg, uint16_t pid_on_fep)
{
	const struct dst_node_spec *n = arg;

	(void)pid_on_fep;
	return (enum uet_wire_profile)n->profile;
}

/* What profile @p pr refuses @p o with: an operation it does not carry,
 * an AI Base SEND longer than one packet; 0: none. */
static int
profile_rc(const struct dst_sim *s, uint8_t pr, const struct dst_op_spec *o)
{
	if (s->plan->gen < 3)
		return 0;
	if (!dst_profile_allows(pr, o->kind))
		return -EOPNOTSUPP;
	return pr == UET_PROFILE_AI_BASE && o->kind == DST_OP_SEND &&
	       o->len > DST_MTU - UET_SES_MEDIUM_LEN ? -EMSGSIZE : 0;
}

int
dst_profile_submit_rc(const struct dst_sim *s, uint32_t j)
{
	const struct dst_op_spec *o = &s->plan->op[j];

	return profile_rc(s, s->plan->node[o->src].profile, o);
}

/* The initiator sends it RUDI: an idempotent WRITE without header data
 * or small READ of an HPC process (uet_ses_config.rudi, the idempotent
 * key). */
static bool
rudi(const struct dst_sim *s, const struct dst_op_spec *o)
{
	/* a far or gone key has no I bit; a wrong key keeps it */
	return s->plan->node[o->src].profile == UET_PROFILE_HPC && o->idem &&
	       !o->far && o->err != DST_E_GONE &&
	       ((o->kind == DST_OP_WRITE && !o->imm) ||
		(o->kind == DST_OP_READ &&
		 o->len <= UET_PDS_RESP_MAX - UET_SES_RESPONSE_DATA_SMALL_LEN));
}

int
dst_profile_target_rc(const struct dst_sim *s, uint32_t j)
{
	const struct dst_op_spec *o = &s->plan->op[j];
	uint8_t pr = s->plan->node[o->dst].profile;
	int rc;

	/* a datagram's refusal goes unanswered (UUD) */
	if (o->kind == DST_OP_DGRAM)
		return 0;
	rc = profile_rc(s, pr, o);
	if (rc == 0 && rudi(s, o) && pr != UET_PROFILE_HPC)
		rc = -EACCES;
	return rc;
}

void
dst_profile_check_submit(struct dst_sim *s, uint32_t j, int r)
{
	const struct dst_op_spec *o = &s->plan->op[j];
	int want = s->op[j].submit_want;

	if (s->plan->gen < 3 || r == -EAGAIN)
		return;
	if (want != 0 ? r != want :
	    r == -EOPNOTSUPP || r == -EMSGSIZE)
		dst_fail(s, "profile", "op %u %s %u B from a %s process: "
			 "submit returned %d, the model says %d", j,
			 dst_op_name(o->kind), o->len,
			 s->plan->node[o->src].profile == UET_PROFILE_HPC ?
			 "HPC" : s->plan->node[o->src].profile ==
			 UET_PROFILE_AI_FULL ? "AI Full" : "AI Base", r, want);
}
