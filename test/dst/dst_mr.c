/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * DST MR table management (generator 3, fault DST_F_MRCHURN): what an
 * engine does to a node's MR table while its peers' requests arrive. A
 * second process comes and goes (its PIDonFEP, its job's authorization),
 * names the node's RMA table through an alias, opens an RI table of its
 * own with memory in it; every call's result is checked against what
 * the API promises (include/ses/uet/uet_ses_mr.h), resolution through the
 * alias against the entry it names. Then the RMA table itself, or its
 * memory entries, go off for a while: a request that arrives meanwhile
 * is answered DISABLED or DISABLED_GEN (-EINVAL at its initiator).
 * Generator 8: half the time the node's own process goes instead (its
 * PIDonFEP out of the table, once, no flapping), as a process whose
 * engine runs before its endpoint exists: every request is answered
 * BAD_PID meanwhile (-EINVAL), and a send goes again until the process
 * is back when the node's pid_wait says so (dst_pid_wait_ns()).
 *
 * And what the node is told of its peers' requests on its memory
 * (uet_ses_config.remote_events, a WRITE's header data).
 */

#include <errno.h>
#include <string.h>

#include "dst.h"

#define MR_PID2 (DST_PID + 1)
#define MR_ALIAS_RI 9
#define MR_OWN_RI 10

#define CHECK(s, i, call, want) \
	mr_check(s, i, #call, (int)(call), (int)(want))

static bool
mr_check(struct dst_sim *s, int i, const char *what, int got, int want)
{
	if (got == want)
		return true;
	dst_fail(s, "mr-table", "n%d: %s returned %d, want %d", i, what, got,
		 want);
	return false;
}

/* What resolution answers for a WRITE through {pid, ri} and key. */
static enum uet_wire_ses_rc
mr_resolve(const struct dst_node *n, uint16_t pid, uint16_t ri,
	   uint64_t key, struct uet_ses_resolved *out)
{
	struct uet_ses_resolve_req q = {
		.relative = true, .job_id = DST_JOB, .pid_on_fep = pid,
		.resource_index = ri, .ri_generation = (uint8_t)(key >> 16),
		.mkey = key, .opcode = UET_SES_OP_WRITE, .offset = 64,
		.length = 8,
	};

	return uet_ses_resolve(n->mr, &q, out);
}

/* A second process: its PIDonFEP, its authorization, an alias of the
 * node's RMA table under its name. */
static bool
mr_second_process(struct dst_sim *s, int i)
{
	struct dst_node *n = &s->node[i];
	struct uet_ses_resolved r;

	if (!CHECK(s, i, uet_ses_mr_pid_add(n->mr, DST_PID), -EEXIST) ||
	    !CHECK(s, i, uet_ses_mr_pid_add(n->mr, MR_PID2), 0) ||
	    !CHECK(s, i, uet_ses_mr_auth_add(n->mr, DST_JOB, MR_PID2), 0) ||
	    !CHECK(s, i, uet_ses_mr_auth_add(n->mr, DST_JOB, MR_PID2),
		   -EEXIST) ||
	    !CHECK(s, i, uet_ses_ri_alias_add(n->mr, n->ri_rma, MR_PID2,
					      MR_ALIAS_RI), 0) ||
	    !CHECK(s, i, uet_ses_ri_alias_add(n->mr, n->ri_rma, MR_PID2,
					      MR_ALIAS_RI), -EEXIST) ||
	    !CHECK(s, i, uet_ses_ri_del(n->mr, n->ri_rma), -EBUSY))
		return false;
	/* the alias names the same table and memory */
	if (!CHECK(s, i, mr_resolve(n, MR_PID2, MR_ALIAS_RI, n->rkey, &r),
		   UET_RC_OK))
		return false;
	if (r.entry == NULL || r.entry->key != n->rkey ||
	    r.addr != n->mem + 64) {
		dst_fail(s, "mr-table", "n%d: the alias resolved to another "
			 "entry or address", i);
		return false;
	}
	return true;
}

/* Its own RI table with an entry: busy while the entry lives; the key
 * dies with deregistration. */
static bool
mr_own_table(struct dst_sim *s, int i)
{
	struct dst_node *n = &s->node[i];
	struct uet_ses_ri_attr ra = {
		.relative = true, .job_id = DST_JOB, .pid_on_fep = MR_PID2,
		.resource_index = MR_OWN_RI, .type = UET_SES_RI_RMA,
	};
	struct uet_ses_mr_attr ma = {
		.base = (uintptr_t)n->mem, .length = 4096,
		.access = UET_SES_MR_REMOTE_READ,
	};
	struct uet_ses_resolved r;
	uint64_t key = 0;
	int ri = uet_ses_ri_add(n->mr, &ra);

	if (ri < 0)
		return mr_check(s, i, "uet_ses_ri_add", ri, 0);
	ma.ri = ri;
	if (!CHECK(s, i, uet_ses_ri_add(n->mr, &ra), -EEXIST) ||
	    !CHECK(s, i, uet_ses_mr_reg(n->mr, &ma, &key), 0) ||
	    !CHECK(s, i, uet_ses_mr_lookup(n->mr, key) != NULL, 1) ||
	    !CHECK(s, i, uet_ses_mr_index(n->mr, key) >= 0, 1) ||
	    /* registered for remote reads only */
	    !CHECK(s, i, mr_resolve(n, MR_PID2, MR_OWN_RI, key, &r),
		   UET_RC_PERM_VIOLATION) ||
	    !CHECK(s, i, uet_ses_ri_del(n->mr, ri), -EBUSY) ||
	    !CHECK(s, i, uet_ses_mr_dereg(n->mr, key), 0) ||
	    !CHECK(s, i, uet_ses_mr_dereg(n->mr, key), -ENOENT) ||
	    !CHECK(s, i, uet_ses_mr_lookup(n->mr, key) == NULL, 1) ||
	    !CHECK(s, i, mr_resolve(n, MR_PID2, MR_OWN_RI, key, &r),
		   UET_RC_BAD_MKEY) ||
	    !CHECK(s, i, uet_ses_ri_del(n->mr, ri), 0) ||
	    !CHECK(s, i, uet_ses_ri_del(n->mr, ri), -ENOENT))
		return false;
	return true;
}

/* The second process goes: its names resolve no more. */
static bool
mr_second_gone(struct dst_sim *s, int i)
{
	struct dst_node *n = &s->node[i];
	struct uet_ses_resolved r;

	return CHECK(s, i, uet_ses_ri_alias_del(n->mr, n->ri_rma, MR_PID2,
						MR_ALIAS_RI), 0) &&
	       CHECK(s, i, uet_ses_ri_alias_del(n->mr, n->ri_rma, MR_PID2,
						MR_ALIAS_RI), -ENOENT) &&
	       CHECK(s, i, mr_resolve(n, MR_PID2, MR_ALIAS_RI, n->rkey, &r),
		     UET_RC_BAD_INDEX) &&
	       CHECK(s, i, uet_ses_mr_auth_del(n->mr, DST_JOB, MR_PID2), 0) &&
	       CHECK(s, i, uet_ses_mr_auth_del(n->mr, DST_JOB, MR_PID2),
		     -ENOENT) &&
	       CHECK(s, i, mr_resolve(n, MR_PID2, MR_ALIAS_RI, n->rkey, &r),
		     UET_RC_BAD_JOB_ID) &&
	       CHECK(s, i, uet_ses_mr_pid_del(n->mr, MR_PID2), 0) &&
	       CHECK(s, i, uet_ses_mr_pid_del(n->mr, MR_PID2), -ENOENT) &&
	       CHECK(s, i, mr_resolve(n, MR_PID2, MR_ALIAS_RI, n->rkey, &r),
		     UET_RC_BAD_PID);
}

static void
mr_keys(struct dst_node *n, uint64_t *keys[4])
{
	keys[0] = &n->rkey;
	keys[1] = &n->rkey_idem;
	keys[2] = &n->rkey_far;
	keys[3] = &n->rkey_gone;
}

/* The RMA table (how 1), its entries (how 2) or the process (how 3) on
 * or off. */
static void
mr_switch(struct dst_sim *s, int i, int how, bool on)
{
	struct dst_node *n = &s->node[i];
	uint64_t *keys[4];

	if (how == 3) {
		CHECK(s, i, on ? uet_ses_mr_pid_add(n->mr, DST_PID) :
				 uet_ses_mr_pid_del(n->mr, DST_PID), 0);
		return;
	}
	if (how == 1) {
		CHECK(s, i, uet_ses_ri_enable(n->mr, n->ri_rma, on), 0);
		return;
	}
	mr_keys(n, keys);
	for (unsigned int k = 0; k < 4; k++)
		CHECK(s, i, uet_ses_mr_enable(n->mr, *keys[k], on), 0);
}

void
dst_mr_churn(struct dst_sim *s, int i, const struct dst_fault_spec *f)
{
	struct dst_node *n = &s->node[i];

	/* one at a time: the checks assume the table on */
	if (n->mr_off_how != 0 || n->mr_flap_end != 0 ||
	    !mr_second_process(s, i) ||
	    !mr_own_table(s, i) || !mr_second_gone(s, i))
		return;
	n->mr_off_how = 1 + (int)(f->arg & 1);
	if (s->plan->gen >= 8 && (f->arg & 2))
		n->mr_off_how = 3;
	n->mr_off_until = s->now + f->dur;
	if (s->plan->gen >= 4 && n->mr_off_how != 3) {
		/* generator 4: off and on every 2 to 31 us for the fault's
		 * time (no draw: from its start), so that multi-packet
		 * requests straddle the edges, a packet refused and the next
		 * served; its error responses are lost meanwhile
		 * (dst_net.c) */
		n->mr_flap_how = n->mr_off_how;
		n->mr_flap_end = n->mr_off_until;
		n->mr_flap_ns = (2 + f->at / 1000 % 30) * 1000;
		n->mr_off_until = s->now + n->mr_flap_ns;
	}
	mr_switch(s, i, n->mr_off_how, false);
	/* requests in flight across the edges are not judged */
	n->keys++;
	dst_trace(s, "n%d manages its MR table; %s off for %llu us%s", i,
		  n->mr_off_how == 1 ? "its RMA table" :
		  n->mr_off_how == 2 ? "its memory entries" : "its process",
		  (unsigned long long)(f->dur / 1000),
		  n->mr_flap_end != 0 ? ", flapping" : "");
}

/* Generator 4: a flapping table goes off again. */
static void
mr_flap_off(struct dst_sim *s, int i)
{
	struct dst_node *n = &s->node[i];

	if (s->now >= n->mr_flap_end) {
		n->mr_flap_end = 0;
		return;
	}
	n->mr_off_how = n->mr_flap_how;
	n->mr_off_until = s->now + n->mr_flap_ns;
	if (n->mr_off_until > n->mr_flap_end)
		n->mr_off_until = n->mr_flap_end;
	mr_switch(s, i, n->mr_off_how, false);
	n->keys++;
}

void
dst_mr_poll(struct dst_sim *s, int i)
{
	struct dst_node *n = &s->node[i];

	if (n->mr_off_how == 0 && n->mr_flap_end != 0 &&
	    s->now >= n->mr_flap_next)
		mr_flap_off(s, i);
	if (n->mr_off_how == 0 || s->now < n->mr_off_until)
		return;
	mr_switch(s, i, n->mr_off_how, true);
	n->mr_off_how = 0;
	n->keys++;
	n->mr_flap_next = s->now + n->mr_flap_ns;
	/* the edges of a flapping table are not traced, its end is */
	if (n->mr_flap_end == 0 || n->mr_flap_next >= n->mr_flap_end)
		dst_trace(s, "n%d MR table on again", i);
}

int
dst_mr_off_rc(const struct dst_sim *s, uint32_t j)
{
	const struct dst_op_spec *o = &s->plan->op[j];
	bool rma = (o->kind >= DST_OP_WRITE && o->kind <= DST_OP_ATOMIC) ||
		   o->kind == DST_OP_AMO || o->kind == DST_OP_FAMO ||
		   o->kind == DST_OP_CSWAP;

	int how = s->node[o->dst].mr_off_how;

	/* no process: BAD_PID to every request that resolves one; a send
	 * goes again if its node waits for the process (it is back before
	 * the wait is over: churn lasts 5 ms at the most); a datagram has
	 * no answer, a NO_OP names no process */
	if (how == 3) {
		switch (o->kind) {
		case DST_OP_SEND:
		case DST_OP_TSEND:
		case DST_OP_RDV:
		case DST_OP_DEFER:
			return dst_pid_wait_ns(s->plan, o->src) != 0 ? 0 :
			       -EINVAL;
		case DST_OP_DGRAM:
		case DST_OP_NOP:
			return 0;
		default:
			return -EINVAL;
		}
	}
	/* resolution answers DISABLED (table) or DISABLED_GEN (entry)
	 * before the key's other checks, the bounds and the atomic's */
	return rma && how != 0 ? -EINVAL : 0;
}

/* The work request of an RMA operation kind, 0: none. */
static uint8_t
mr_wr_op(uint8_t kind)
{
	switch (kind) {
	case DST_OP_WRITE:
		return UET_SES_WR_WRITE;
	case DST_OP_READ:
		return UET_SES_WR_READ;
	case DST_OP_ATOMIC:
	case DST_OP_AMO:
		return UET_SES_WR_ATOMIC;
	case DST_OP_FETCH:
	case DST_OP_FAMO:
	case DST_OP_CSWAP:
		return UET_SES_WR_FETCH_ATOMIC;
	default:
		return 0;
	}
}

/* A WRITE's header data: once per target incarnation, its own length. */
static void
mr_imm_cqe(struct dst_sim *s, int i, const struct uet_ses_cqe *c)
{
	uint32_t j = (uint32_t)(c->data - DST_IMM_BASE) - 1;
	const struct dst_op_spec *o = &s->plan->op[j];

	if ((c->data & ~0xFFFFull) != DST_IMM_BASE || j >= s->plan->nop ||
	    !o->imm || o->dst != i || c->len != o->len ||
	    c->src != 100u + o->src) {
		dst_fail(s, "remote-event", "n%d: header data %llx of %llu B "
			 "from %llu names no WRITE sent here", i,
			 (unsigned long long)c->data,
			 (unsigned long long)c->len,
			 (unsigned long long)c->src);
		return;
	}
	if (s->op[j].dst_inc == s->node[i].inc && ++s->op[j].delivered > 1)
		dst_fail(s, "dup-delivery", "op %u WRITE's header data told "
			 "%u times at n%d", j, s->op[j].delivered, i);
}

void
dst_mr_remote_cqe(struct dst_sim *s, int i, const struct uet_ses_cqe *c)
{
	uint32_t j;

	if (c->flags & UET_SES_CQ_IMM) {
		mr_imm_cqe(s, i, c);
		return;
	}
	for (j = 0; j < s->plan->nop; j++) {
		const struct dst_op_spec *o = &s->plan->op[j];

		if (o->dst == i && c->src == 100u + o->src &&
		    c->op == mr_wr_op(o->kind) && c->len == o->len)
			return;
	}
	dst_fail(s, "remote-event", "n%d: remote %s event of %llu B from %llu "
		 "names no request sent here", i,
		 c->op == UET_SES_WR_WRITE ? "WRITE" :
		 c->op == UET_SES_WR_READ ? "READ" : "atomic",
		 (unsigned long long)c->len, (unsigned long long)c->src);
}
