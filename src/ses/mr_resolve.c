/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Target-side resolution of a request (UEC 1.0 SES target-side resolution): FEP
 * -> process {JobID, PIDonFEP} -> RI table -> memory entry -> host address.
 * Every failing step produces exactly one UET return code (UEC 1.0 SES
 * responses); the order and the choice of code are tabulated in docs/SES.md.
 */

#include "mr_private.h"

enum mr_op_class {
	MR_OP_NONE, /* NO_OP, MSG_ERROR, undefined: nothing to resolve */
	MR_OP_RMA,  /* addressed by memory key */
	MR_OP_MSG,  /* the send family, matched elsewhere */
};

static enum mr_op_class
mr_op_class(unsigned int opcode)
{
	switch (opcode) {
	case UET_SES_OP_WRITE:
	case UET_SES_OP_READ:
	case UET_SES_OP_ATOMIC:
	case UET_SES_OP_FETCHING_ATOMIC:
		return MR_OP_RMA;
	case UET_SES_OP_NO_OP:
	case UET_SES_OP_MSG_ERROR:
		return MR_OP_NONE;
	default:
		return opcode <= UET_SES_OP_MSG_ERROR ? MR_OP_MSG : MR_OP_NONE;
	}
}

/* Remote access each RMA opcode needs (fetching atomics read too). */
static uint32_t
mr_op_access(unsigned int opcode)
{
	switch (opcode) {
	case UET_SES_OP_WRITE:
		return UET_SES_MR_REMOTE_WRITE;
	case UET_SES_OP_READ:
		return UET_SES_MR_REMOTE_READ;
	case UET_SES_OP_ATOMIC:
		return UET_SES_MR_REMOTE_ATOMIC;
	default:
		return UET_SES_MR_REMOTE_ATOMIC | UET_SES_MR_REMOTE_READ;
	}
}

/* Steps 1-5: opcode, process, authorization, RI table, RI enabled. */
static enum uet_wire_ses_rc
mr_resolve_ri(const struct uet_ses_mr_table *t,
	      const struct uet_ses_resolve_req *in, int *ri)
{
	struct mr_ri_memo *mo = t->memo;
	uint64_t req = in->job_id | (uint64_t)in->pid_on_fep << 32 |
		       (uint64_t)in->resource_index << 48;
	int64_t v;

	if (mr_op_class(in->opcode) == MR_OP_NONE)
		return UET_RC_UNSUPPORTED_OP;
	/* steps 2-4 as the last time, the index unchanged since */
	if (mo->ri >= 0 && mo->req == req && mo->relative == in->relative &&
	    mo->gen == t->idx.gen) {
		v = mo->ri;
		goto enabled;
	}
	if (mr_hash_get(&t->idx, mr_key_pid(in->pid_on_fep)) < 0)
		return UET_RC_BAD_PID;
	if (in->job_id > UET_SES_JOB_ID_MAX ||
	    mr_hash_get(&t->idx, mr_key_auth(in->job_id, in->pid_on_fep)) < 0)
		return UET_RC_BAD_JOB_ID;
	/* REL=1: the job selects the process; REL=0: a global table. */
	v = mr_hash_get(&t->idx, mr_key_ri(in->relative, in->job_id,
					   in->pid_on_fep,
					   in->resource_index));
	if (in->resource_index > UET_SES_RI_MAX || v < 0)
		return UET_RC_BAD_INDEX;
	mo->req = req;
	mo->relative = in->relative;
	mo->gen = t->idx.gen;
	mo->ri = (int32_t)v;
enabled:
	if (!t->ri[v].enabled)
		return UET_RC_DISABLED;
	*ri = (int)v;
	return UET_RC_OK;
}

/*
 * RUDI may replay a packet, so only idempotent operations on regions
 * marked idempotent-safe (key I bit, UEC 1.0 SES memory key format) are
 * allowed.
 */
static bool
mr_rudi_ok(const struct uet_ses_resolve_req *in)
{
	if (!in->is_rudi)
		return true;
	if (in->opcode != UET_SES_OP_WRITE && in->opcode != UET_SES_OP_READ)
		return false;
	return (in->mkey & UET_MKEY_I) != 0;
}

/*
 * Bounds with no overflow: offset is compared with length before the
 * subtraction, so UINT64_MAX offsets or lengths cannot wrap.
 */
static enum uet_wire_ses_rc
mr_bounds(const struct uet_ses_mr_entry *e, uint64_t off, uint64_t len)
{
	if (off > e->length || (off == e->length && len != 0))
		return UET_RC_BAD_ADDR;
	if (len > e->length - off)
		return UET_RC_TOO_LONG;
	return UET_RC_OK;
}

static enum uet_wire_ses_rc
mr_resolve_key(const struct uet_ses_mr_table *t, int ri,
	       const struct uet_ses_resolve_req *in,
	       struct uet_ses_resolved *out)
{
	const struct mr_slot *s = mr_slot_find(t, ri, in->mkey);
	uint32_t need = mr_op_access(in->opcode);
	enum uet_wire_ses_rc rc;
	uint64_t off;

	if (s == NULL)
		return UET_RC_BAD_MKEY;
	if (in->ri_generation != s->e.generation)
		return UET_RC_BAD_GENERATION;
	if (!s->e.enabled)
		return UET_RC_DISABLED_GEN;
	if ((s->e.access & need) != need)
		return UET_RC_PERM_VIOLATION;
	off = in->offset;
	if (s->e.virt_addr) {
		/* FI_MR_VIRT_ADDR: the request names a host address */
		if (off < s->e.base)
			return UET_RC_BAD_ADDR;
		off -= s->e.base;
	}
	rc = mr_bounds(&s->e, off, in->length);
	if (rc != UET_RC_OK)
		return rc;
	out->addr = (void *)(s->e.base + (uintptr_t)off);
	out->entry = &s->e;
	out->ri = ri;
	return UET_RC_OK;
}

/* No oracle (uet_ses_ri_attr.opaque_errors): a right key used wrongly
 * answers what a wrong key does. */
static enum uet_wire_ses_rc
mr_resolve_rma(const struct uet_ses_mr_table *t, int ri,
	       const struct uet_ses_resolve_req *in,
	       struct uet_ses_resolved *out)
{
	enum uet_wire_ses_rc rc = mr_resolve_key(t, ri, in, out);

	if (rc != UET_RC_OK && t->ri[ri].attr.opaque_errors)
		return UET_RC_BAD_MKEY;
	return rc;
}

enum uet_wire_ses_rc
uet_ses_resolve(const struct uet_ses_mr_table *t,
		const struct uet_ses_resolve_req *in,
		struct uet_ses_resolved *out)
{
	const struct mr_ri *r;
	enum mr_op_class cls;
	enum uet_wire_ses_rc rc;
	int ri = -1;

	rc = mr_resolve_ri(t, in, &ri);
	if (rc != UET_RC_OK)
		return rc;
	r = &t->ri[ri];
	cls = mr_op_class(in->opcode);
	if ((cls == MR_OP_RMA) != (r->attr.type == UET_SES_RI_RMA))
		return UET_RC_OP_VIOLATION;
	if (!mr_rudi_ok(in))
		return UET_RC_OP_VIOLATION;
	if (cls == MR_OP_RMA)
		return mr_resolve_rma(t, ri, in, out);
	if (in->ri_generation != r->generation)
		return UET_RC_BAD_GENERATION;
	out->addr = NULL;
	out->entry = NULL;
	out->ri = ri;
	return UET_RC_OK;
}
