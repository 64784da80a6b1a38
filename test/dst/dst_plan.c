/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * DST plans: configuration, workload and fault schedule drawn from one
 * source (a seed or the fuzzer's bytes), so that a seed names a whole run.
 */

#include <stdio.h>
#include <string.h>

#include "dst.h"

void
dst_src_seed(struct dst_src *s, uint64_t seed)
{
	memset(s, 0, sizeof(*s));
	uet_rand_seed(&s->rng, seed);
}

void
dst_src_bytes(struct dst_src *s, const uint8_t *data, size_t size)
{
	memset(s, 0, sizeof(*s));
	s->bytes = true;
	s->data = data;
	s->size = size;
}

uint32_t
dst_draw(struct dst_src *s, uint32_t n)
{
	uint32_t v = 0;
	int i;

	if (n <= 1)
		return 0;
	if (!s->bytes)
		return uet_rand_below(&s->rng, n);
	/* as many bytes as n needs, little endian; zero past the end */
	for (i = 0; i < 4 && (n - 1) >> (8 * i); i++)
		if (s->pos < s->size)
			v |= (uint32_t)s->data[s->pos++] << (8 * i);
	return v % n;
}

static uint32_t
dst_range(struct dst_src *s, uint32_t lo, uint32_t hi)
{
	return lo + dst_draw(s, hi - lo + 1);
}

static const char *const op_names[DST_OP__COUNT] = {
	"send", "tsend", "rdv", "defer", "write", "read", "fetch", "atomic",
	"dgram", "amo", "famo", "cswap", "tamo", "tfamo", "nop",
};

static const char *const err_names[DST_E__COUNT] = {
	"", " bad-key", " bad-addr", " unaligned", " owner-gone",
};

static const char *const rmode_names[DST_R__COUNT] = {
	"", " peek-claim", " peek", " peek-claim-discard", " peek-discard",
};

static const char *const fault_names[DST_F__COUNT] = {
	"loss", "dup", "reorder", "spike", "trim", "corrupt", "ce",
	"partition", "path", "close-init", "close-tgt", "restart", "stall",
	"withdraw", "rereg", "mr-churn", "hold",
};

const char *
dst_op_name(unsigned int kind)
{
	return kind < DST_OP__COUNT ? op_names[kind] : "?";
}

const char *
dst_fault_name(unsigned int kind)
{
	return kind < DST_F__COUNT ? fault_names[kind] : "?";
}

static void
gen_node(struct dst_node_spec *n, struct dst_src *s)
{
	static const uint16_t win[] = { 64, 128, 256 };

	n->tx_window = win[dst_draw(s, 3)];
	n->rx_window = win[dst_draw(s, 3)];
	n->rto_init_us = dst_range(s, 50, 1000);
	n->rto_max_us = n->rto_init_us * dst_range(s, 4, 16);
	n->idle_close_us = dst_range(s, 200, 3000);
	n->close_req_us = dst_range(s, 500, 5000);
	n->holdoff_us = dst_range(s, 200, 2000);
	n->delay_ns = dst_range(s, 1000, 10000);
	n->gbps = 10u << dst_draw(s, 4); /* 10 .. 80 Gb/s */
	n->max_retries = (uint8_t)dst_range(s, 4, 8);
	n->max_nack_retx = (uint8_t)dst_range(s, 8, 32);
	n->max_backoffs = (uint8_t)dst_range(s, 4, 16);
	n->ack_cc_always = dst_draw(s, 2);
	n->tlp_probe = dst_draw(s, 2);
	n->small_unexp = dst_draw(s, 4) == 0;
}

/* Generator 3: each node's process has a profile of its own, and
 * untagged receives may go to a multi-recv buffer. */
static void
gen_node3(struct dst_node_spec *n, struct dst_src *s)
{
	static const uint8_t prof[] = {
		UET_PROFILE_AI_BASE, UET_PROFILE_AI_FULL, UET_PROFILE_HPC,
	};

	n->profile = prof[dst_draw(s, 3)];
	if (dst_draw(s, 2) == 0)
		return;
	/* min_free at least the longest untagged send: no message is
	 * truncated, and a buffer takes one to a few before it goes */
	n->mrecv_min = dst_range(s, DST_UNTAGGED_MAX, 2 * DST_UNTAGGED_MAX);
	n->mrecv_len = n->mrecv_min + dst_range(s, 1, 3 * DST_UNTAGGED_MAX);
}

/* Generator 2: every operation; tagged atomics are HPC only, the
 * rest of the new ones in both profiles (UEC 1.0 SES profiles). */
static uint8_t
gen_kind2(struct dst_src *s, uint8_t profile)
{
	static const uint8_t hpc[] = {
		DST_OP_SEND, DST_OP_TSEND, DST_OP_RDV, DST_OP_WRITE,
		DST_OP_READ, DST_OP_FETCH, DST_OP_ATOMIC, DST_OP_DGRAM,
		DST_OP_AMO, DST_OP_FAMO, DST_OP_CSWAP, DST_OP_TAMO,
		DST_OP_TFAMO, DST_OP_NOP, DST_OP_TSEND, DST_OP_RDV,
	};
	static const uint8_t full[] = {
		DST_OP_SEND, DST_OP_TSEND, DST_OP_DEFER, DST_OP_WRITE,
		DST_OP_READ, DST_OP_FETCH, DST_OP_ATOMIC, DST_OP_DGRAM,
		DST_OP_AMO, DST_OP_FAMO, DST_OP_CSWAP, DST_OP_NOP,
		DST_OP_TSEND, DST_OP_DEFER, DST_OP_AMO, DST_OP_WRITE,
	};

	return profile == UET_PROFILE_HPC ? hpc[dst_draw(s, 16)] :
					   full[dst_draw(s, 16)];
}

/* Operations the profile allows (UEC 1.0 SES profiles). */
static uint8_t
gen_kind(struct dst_src *s, uint8_t profile)
{
	static const uint8_t hpc[] = {
		DST_OP_SEND, DST_OP_TSEND, DST_OP_RDV, DST_OP_WRITE,
		DST_OP_READ, DST_OP_FETCH, DST_OP_ATOMIC, DST_OP_DGRAM,
	};
	static const uint8_t full[] = {
		DST_OP_SEND, DST_OP_TSEND, DST_OP_DEFER, DST_OP_WRITE,
		DST_OP_READ, DST_OP_FETCH, DST_OP_ATOMIC, DST_OP_DGRAM,
	};

	return profile == UET_PROFILE_HPC ? hpc[dst_draw(s, 8)] :
					   full[dst_draw(s, 8)];
}

static uint32_t
gen_len(struct dst_src *s, uint8_t kind)
{
	bool big = dst_draw(s, 4) == 0, bulk = dst_draw(s, 16) == 0;

	switch (kind) {
	case DST_OP_FETCH:
	case DST_OP_ATOMIC:
		return 8;
	case DST_OP_DGRAM:
		return dst_range(s, 8, 1024);
	case DST_OP_SEND:
		return big ? dst_range(s, 8, DST_UNTAGGED_MAX) :
			     dst_range(s, 8, 1500);
	case DST_OP_RDV:
		return dst_range(s, 1024, big ? 40000 : 6000);
	case DST_OP_WRITE:
	case DST_OP_READ:
	case DST_OP_TSEND:
		/* bulk: more packets than a receive window */
		if (bulk)
			return dst_range(s, 100000, 200000);
		/* fall through */
	default:
		return big ? dst_range(s, 8, 24000) : dst_range(s, 8, 3000);
	}
}

static bool
is_amo2(uint8_t kind)
{
	return kind >= DST_OP_AMO && kind <= DST_OP_TFAMO;
}

/* Operation, datatype and elements of an atomic of generator 2, within
 * what the initiator accepts (uet_ses_submit(): one element of <= 16
 * bytes for the CAS forms, <= 32 bytes fetched); about one in eight on a
 * datatype that does not define the operation. */
static void
gen_amo(struct dst_op_spec *o, struct dst_src *s)
{
	bool fetch = o->kind == DST_OP_FAMO || o->kind == DST_OP_TFAMO;
	uint32_t esz, max;

	o->amo_dt = (uint8_t)dst_draw(s, UET_AMO_DT_FP16 + 1);
	if (o->kind == DST_OP_CSWAP)
		o->amo_op = (uint8_t)(UET_AMO_CSWAP +
				      dst_draw(s, UET_AMO_MSWAP -
						  UET_AMO_CSWAP + 1));
	else if (o->kind == DST_OP_FAMO)
		o->amo_op = (uint8_t)dst_draw(s, UET_AMO_WRITE + 1);
	else
		o->amo_op = (uint8_t)dst_draw(s, UET_AMO_MSWAP + 1);
	for (uint32_t k = 0; k < 4 &&
	     !dst_amo_supported(o->amo_op, o->amo_dt) && dst_draw(s, 8) != 0;
	     k++)
		o->amo_dt = (uint8_t)dst_draw(s, UET_AMO_DT_FP16 + 1);
	esz = dst_amo_size(o->amo_dt);
	if (o->amo_op >= UET_AMO_CSWAP && esz > 16) {
		o->amo_dt = UET_AMO_DT_DOUBLE_COMPLEX;
		esz = 16;
	}
	max = fetch ? 32 / esz : 8;
	o->amo_n = o->amo_op >= UET_AMO_CSWAP ? 1 :
		   (uint8_t)dst_range(s, 1, max);
	o->len = o->amo_n * esz;
}

/* Generator 2's additions to an operation: atomics' operands, errors on
 * purpose, PEEK/CLAIM receives. */
static void
gen_op2(struct dst_op_spec *o, struct dst_src *s)
{
	if (is_amo2(o->kind))
		gen_amo(o, s);
	if (o->kind == DST_OP_NOP)
		o->len = 0;
	bool rma = o->kind == DST_OP_WRITE || o->kind == DST_OP_READ ||
		   o->kind == DST_OP_FETCH || o->kind == DST_OP_ATOMIC ||
		   (is_amo2(o->kind) && o->kind < DST_OP_TAMO);

	if (rma && dst_draw(s, 8) == 0)
		o->err = (uint8_t)(DST_E_KEY + dst_draw(s, 4));
	if ((o->err == DST_E_ALIGN && !is_amo2(o->kind)) ||
	    (o->err == DST_E_ALIGN && dst_amo_size(o->amo_dt) == 1))
		o->err = DST_E_NONE;
	o->far = rma && dst_draw(s, 4) == 0;
	if (o->kind >= DST_OP_TSEND && o->kind <= DST_OP_DEFER &&
	    dst_draw(s, 2))
		o->rmode = (uint8_t)(DST_R_CLAIM + dst_draw(s, 4));
	/* a tagged atomic needs its receive first: mostly posted early */
	if ((o->kind == DST_OP_TAMO || o->kind == DST_OP_TFAMO) &&
	    dst_draw(s, 4) != 0)
		o->recv_us = -(int32_t)dst_range(s, 1, 500);
}

/* Generator 3: mostly what the initiator's profile allows (the rest is
 * refused at submit), and mostly to a target whose profile allows it too
 * (the rest is refused by the target). */
static void
gen_op3(struct dst_plan *p, struct dst_op_spec *o, struct dst_src *s)
{
	uint64_t x;
	uint32_t k;

	for (k = 0; k < 4 && dst_draw(s, 8) != 0 &&
	     !dst_profile_allows(p->node[o->src].profile, o->kind); k++) {
		o->kind = gen_kind2(s, dst_draw(s, 2) ? UET_PROFILE_HPC :
						       UET_PROFILE_AI_FULL);
		o->len = gen_len(s, o->kind);
	}
	for (k = 0; k < p->nnodes && dst_draw(s, 4) != 0 &&
	     !dst_profile_allows(p->node[o->dst].profile, o->kind); k++)
		o->dst = (uint8_t)((o->dst + 1 + (o->dst + 1 == o->src)) %
				   p->nnodes);
	if (o->dst == o->src)
		o->dst = (uint8_t)((o->src + 1) % p->nnodes);
	/* from the seed and the op's place, not from the plan's numbers:
	 * the plans the first generator 3 seeds were found with stay */
	x = p->seed * 0x9E3779B97F4A7C15ull + (uint64_t)(o - p->op);
	x = uet_rand_splitmix(&x);
	o->trunc = (x & 7) == 0;
	o->imm = o->kind == DST_OP_WRITE && ((x >> 3) & 3) == 0;
}

static void
gen_op(struct dst_plan *p, struct dst_op_spec *o, struct dst_src *s,
       uint32_t window_us)
{
	o->at = (uint64_t)dst_draw(s, window_us) * 1000;
	o->kind = p->gen >= 2 ? gen_kind2(s, p->profile) :
				gen_kind(s, p->profile);
	o->len = gen_len(s, o->kind);
	o->src = (uint8_t)dst_draw(s, p->nnodes);
	o->dst = (uint8_t)((o->src + 1 + dst_draw(s, p->nnodes - 1u)) %
			   p->nnodes);
	o->tc = (uint8_t)dst_draw(s, 2);
	o->ordered = dst_draw(s, 4) == 0;
	o->recv_us = (int32_t)dst_draw(s, 2500) - 500;
	o->idem = dst_draw(s, 3) == 0;
	if (p->gen >= 3)
		gen_op3(p, o, s);
	if (p->gen >= 2)
		gen_op2(o, s);
}

static uint32_t
gen_ppm(struct dst_src *s, uint8_t kind)
{
	switch (kind) {
	case DST_F_LOSS:
		return dst_range(s, 10000, 300000);
	case DST_F_TRIM:
		return dst_draw(s, 3) == 0 ? 1000000 :
					     dst_range(s, 20000, 500000);
	case DST_F_CE:
		return dst_range(s, 100000, 1000000);
	case DST_F_SPIKE:
		return dst_range(s, 5000, 100000);
	default:
		return dst_range(s, 10000, 200000);
	}
}

static void
gen_fault(struct dst_plan *p, struct dst_fault_spec *f, struct dst_src *s,
	  uint32_t window_us)
{
	f->kind = (uint8_t)dst_draw(s, DST_F_WITHDRAW + (p->gen >= 3 ? 2 : 1));
	if (f->kind == DST_F_WITHDRAW + 1)
		f->kind = DST_F_MRCHURN;
	f->at = (uint64_t)dst_draw(s, window_us) * 1000;
	/* now and then a long one: a link that trims or drops for good */
	f->dur = (uint64_t)dst_range(s, 100, dst_draw(s, 8) ? 20000 : 200000) *
		 1000;
	f->a = (uint8_t)dst_draw(s, p->nnodes);
	f->b = (uint8_t)dst_draw(s, p->nnodes + 1u);
	if (f->b == p->nnodes || f->b == f->a)
		f->b = 0xFF;
	f->ppm = gen_ppm(s, f->kind);
	switch (f->kind) {
	case DST_F_REORDER:
		f->arg = dst_range(s, 5, 200);  /* us */
		break;
	case DST_F_SPIKE:
		f->arg = dst_range(s, 2, 60);   /* ms */
		break;
	case DST_F_TRIM:
		f->arg = dst_draw(s, 3);
		break;
	default:
		f->arg = dst_draw(s, 8);
		break;
	}
	/* generator 2: half the withdrawals re-register memory instead
	 * (a kind of its own, drawn without a draw more, so that the
	 * generator's seeds keep their plans) */
	if (p->gen >= 2 && f->kind == DST_F_WITHDRAW && (f->arg & 4))
		f->kind = DST_F_REREG;
	/* generator 7: half the duplications keep their copy for late
	 * (the same way, no draw more) */
	if (p->gen >= 7 && f->kind == DST_F_DUP && (f->arg & 1))
		f->kind = DST_F_HOLD;
	/* a table or memory off for a few ms at the most */
	if (f->kind == DST_F_MRCHURN && f->dur > 5000000)
		f->dur = 5000000;
}

/* Traffic right after a node came back or a partition healed: a restarted
 * process talks again at once, reopening PDCs its peers may still hold. */
static void
gen_follow(struct dst_plan *p, const struct dst_fault_spec *f,
	   struct dst_src *s)
{
	uint32_t k, n = dst_draw(s, 3);
	uint64_t at = f->kind == DST_F_RESTART ? f->at : f->at + f->dur;

	if (f->kind != DST_F_RESTART && f->kind != DST_F_PARTITION)
		return;
	for (k = 0; k < n && p->nop < DST_OPS_MAX; k++) {
		struct dst_op_spec *o = &p->op[p->nop];

		gen_op(p, o, s, 1);
		o->at = at + (uint64_t)dst_draw(s, 3000) * 1000;
		o->src = f->a;
		o->dst = (uint8_t)((o->src + 1 + dst_draw(s, p->nnodes - 1u)) %
				   p->nnodes);
		if (dst_draw(s, 2)) {
			o->kind = dst_draw(s, 2) ? DST_OP_WRITE : DST_OP_TSEND;
			o->len = dst_range(s, 8000, 150000);
			o->err = DST_E_NONE;
			o->rmode = DST_R_PLAIN;
		}
		p->op_id[p->nop] = (uint8_t)p->nop;
		p->nop++;
	}
}

static void
add_op(struct dst_plan *p, struct dst_src *s, uint8_t a, uint8_t b,
       uint64_t at)
{
	struct dst_op_spec *o = &p->op[p->nop];

	gen_op(p, o, s, 1);
	o->at = at;
	o->src = a;
	o->dst = b;
	p->op_id[p->nop] = (uint8_t)p->nop;
	p->nop++;
}

static void
add_fault(struct dst_plan *p, uint8_t kind, uint8_t a, uint8_t b,
	  uint64_t at, uint64_t dur)
{
	struct dst_fault_spec *f = &p->fault[p->nfault];

	memset(f, 0, sizeof(*f));
	f->kind = kind;
	f->a = a;
	f->b = b;
	f->at = at;
	f->dur = dur;
	p->fault_id[p->nfault] = (uint8_t)p->nfault;
	p->nfault++;
}

/*
 * Generator 5: on top of generator 4's plan, a node a talks to b at the
 * start, restarts while b still holds that PDC and reopens it at once
 * (the same first PDC id). b's hold-off is long, so a's SYNs are refused
 * NEW_START_PSN many times in a row; a spike on a -> b delays some of
 * those SYNs past the PDC a finally opens and its quiet time (UEC 1.0 3.5
 * PDC establishment: a refused Start_PSN must not open a PDC later).
 */
static void
gen_refusal_storm(struct dst_plan *p, struct dst_src *s)
{
	uint8_t a = (uint8_t)dst_draw(s, p->nnodes);
	uint8_t b = (uint8_t)((a + 1 + dst_draw(s, p->nnodes - 1u)) %
			      p->nnodes);
	uint64_t t0 = 1000000; /* the simulation starts at 1 ms */
	uint64_t restart = t0 + (uint64_t)dst_range(s, 20, 400) * 1000;
	uint32_t hold_us = dst_range(s, 3000, 10000), k, n;

	if (p->nop + 8 > DST_OPS_MAX || p->nfault + 2 > DST_FAULTS_MAX)
		return;
	p->node[b].holdoff_us = hold_us;
	add_op(p, s, a, b, t0);
	add_fault(p, DST_F_RESTART, a, 0xFF, restart, 0);
	n = dst_range(s, 1, 6);
	for (k = 0; k < n; k++)
		add_op(p, s, a, b, restart + (uint64_t)dst_draw(s, 50) * 1000);
	add_fault(p, DST_F_SPIKE, a, b, restart,
		  (uint64_t)hold_us * 1000);
	p->fault[p->nfault - 1].ppm = dst_range(s, 100000, 500000);
	p->fault[p->nfault - 1].arg = hold_us / 1000 + dst_range(s, 4, 25);
}

/* Generator 7's kinds for the scenario: eager sends, WRITEs, atomics. */
static uint8_t
gen_stale_kind(struct dst_src *s, const struct dst_op_spec *o)
{
	static const uint8_t kinds[] = {
		DST_OP_SEND, DST_OP_TSEND, DST_OP_WRITE, DST_OP_ATOMIC,
		DST_OP_FETCH, DST_OP_AMO, DST_OP_SEND, DST_OP_WRITE,
	};
	uint8_t k = kinds[dst_draw(s, 8)];

	/* keep a drawn atomic of generator 2 (its operands are drawn) */
	return k == DST_OP_AMO && !is_amo2(o->kind) ? DST_OP_ATOMIC : k;
}

/*
 * Generator 7: on top of generator 6's plan, a node a sends 1 to 6 eager
 * sends, WRITEs or atomics to b at the start, while the network keeps
 * copies of some of their packets (DST_F_HOLD on a -> b, 30 to 100 % of
 * them); b restarts 100 us to 3 ms later, once most of them are over,
 * and the copies arrive just after it is up. Each copy that carries a
 * SYN was sent to b's previous incarnation, and the new one keeps no
 * record of what that one accepted (UEC 1.0 3.5 PDC establishment:
 * quiet time, maximum packet lifetime).
 */
static void
gen_stale_syn(struct dst_plan *p, struct dst_src *s)
{
	uint8_t a = (uint8_t)dst_draw(s, p->nnodes);
	uint8_t b = (uint8_t)((a + 1 + dst_draw(s, p->nnodes - 1u)) %
			      p->nnodes);
	uint64_t t0 = 1000000; /* the simulation starts at 1 ms */
	uint64_t restart = t0 + (uint64_t)dst_range(s, 100, 3000) * 1000;
	uint32_t k, n = dst_range(s, 1, 6);

	if (p->nop + n > DST_OPS_MAX || p->nfault + 2 > DST_FAULTS_MAX)
		return;
	for (k = 0; k < n; k++) {
		struct dst_op_spec *o = &p->op[p->nop];

		add_op(p, s, a, b, t0 + (uint64_t)dst_draw(s, 50) * 1000);
		o->kind = gen_stale_kind(s, o);
		if (o->kind == DST_OP_ATOMIC || o->kind == DST_OP_FETCH)
			o->len = 8;
		else if (o->kind != DST_OP_AMO)
			o->len = dst_range(s, 8, 2 * DST_MTU);
		o->err = DST_E_NONE;
		o->idem = false;
		o->rmode = DST_R_PLAIN;
		o->trunc = false;
		o->imm = o->imm && o->kind == DST_OP_WRITE;
		o->recv_us = -(int32_t)dst_range(s, 1, 100);
	}
	add_fault(p, DST_F_HOLD, a, b, t0, restart - t0 + 1000000);
	p->fault[p->nfault - 1].ppm = dst_range(s, 300000, 1000000);
	add_fault(p, DST_F_RESTART, b, 0xFF, restart, 0);
}

void
dst_plan_gen(struct dst_plan *p, struct dst_src *s, uint64_t seed,
	     uint8_t gen)
{
	uint32_t i, window_us;

	memset(p, 0, sizeof(*p));
	p->seed = seed;
	p->gen = gen;
	p->nnodes = (uint8_t)(dst_draw(s, 8) == 0 ? dst_range(s, 2, 16) :
						   dst_range(s, 2, 4));
	p->cc = (uint8_t)dst_draw(s, 4);
	p->lb = (uint8_t)dst_draw(s, 3);
	p->profile = dst_draw(s, 2) ? UET_PROFILE_HPC : UET_PROFILE_AI_FULL;
	for (i = 0; i < p->nnodes; i++)
		gen_node(&p->node[i], s);
	for (i = 0; p->gen >= 3 && i < p->nnodes; i++)
		gen_node3(&p->node[i], s);
	window_us = dst_range(s, 500, 30000);
	p->nop = dst_range(s, 2, dst_draw(s, 8) == 0 ? DST_OPS_MAX : 48);
	for (i = 0; i < p->nop; i++) {
		gen_op(p, &p->op[i], s, window_us);
		p->op_id[i] = (uint8_t)i;
	}
	p->nfault = dst_draw(s, 4) == 0 ? 0 : dst_range(s, 1, 12);
	for (i = 0; i < p->nfault; i++) {
		gen_fault(p, &p->fault[i], s, window_us);
		p->fault_id[i] = (uint8_t)i;
	}
	for (i = 0; i < p->nfault; i++)
		gen_follow(p, &p->fault[i], s);
	if (p->gen == 5)
		gen_refusal_storm(p, s);
	if (p->gen >= 7)
		gen_stale_syn(p, s);
}

void
dst_plan_filter(struct dst_plan *p, const bool *ops, const bool *faults)
{
	uint32_t i, n = 0;

	for (i = 0; ops != NULL && i < p->nop; i++) {
		if (!ops[p->op_id[i]])
			continue;
		p->op[n] = p->op[i];
		p->op_id[n++] = p->op_id[i];
	}
	if (ops != NULL)
		p->nop = n;
	n = 0;
	for (i = 0; faults != NULL && i < p->nfault; i++) {
		if (!faults[p->fault_id[i]])
			continue;
		p->fault[n] = p->fault[i];
		p->fault_id[n++] = p->fault_id[i];
	}
	if (faults != NULL)
		p->nfault = n;
}

/* Generator 8: how long node @p i's sends answered BAD_PID go again
 * (uet_ses_config.pid_wait_ns): the engine's 2 s default, or 0 (fail at
 * once), by a bit of the seed (no draw: generator 7's plans stay). */
uint64_t
dst_pid_wait_ns(const struct dst_plan *p, unsigned int i)
{
	if (p->gen < 8 || ((p->seed >> (i % 64)) & 1))
		return 0;
	return 2000000000ull;
}

/* Generator 9: secure PDC establishment by Expected_PSN
 * (uet_pds_config.syn_expected; every job in one secure domain), in half
 * the plans, by a bit of the seed (no draw: generator 8's plans stay). */
bool
dst_syn_expected(const struct dst_plan *p)
{
	return p->gen >= 9 && (p->seed * 0x9E3779B97F4A7C15ull) >> 63;
}

static void
print_node(FILE *f, unsigned int i, const struct dst_node_spec *n,
	   uint8_t gen, uint64_t pid_wait_ns)
{
	static const char *const prof[] = { "?", "ai_base", "ai_full", "hpc" };

	fprintf(f, "  node %u: tx_window %u rx_window %u rto %u..%u us "
		"retries %u nack_retx %u backoffs %u idle_close %u us "
		"close_req %u us holdoff %u us delay %u ns %u Gb/s%s%s%s\n",
		i,
		n->tx_window, n->rx_window, n->rto_init_us, n->rto_max_us,
		n->max_retries, n->max_nack_retx, n->max_backoffs,
		n->idle_close_us, n->close_req_us, n->holdoff_us, n->delay_ns,
		n->gbps,
		n->ack_cc_always ? " ack_cc" : "",
		n->tlp_probe ? " tlp_probe" : "",
		n->small_unexp ? " small_unexp" : "");
	if (gen < 3)
		return;
	fprintf(f, "    profile %s", prof[n->profile & 3]);
	if (n->mrecv_len != 0)
		fprintf(f, " multi-recv %u B min_free %u", n->mrecv_len,
			n->mrecv_min);
	if (gen >= 8)
		fprintf(f, " pid_wait %llu ms",
			(unsigned long long)(pid_wait_ns / 1000000));
	fprintf(f, "\n");
}

void
dst_plan_print(const struct dst_plan *p, void *out)
{
	static const char *const cc[] = { "fixed", "nscc", "rccc", "both" };
	static const char *const lb[] = { "single", "oblivious", "reps" };
	FILE *f = out;
	uint32_t i;

	fprintf(f, "plan seed %llu (generator %u): %u nodes, cc %s, lb %s, "
		"profile %s, %u ops, %u faults\n",
		(unsigned long long)p->seed, p->gen, p->nnodes, cc[p->cc & 3], lb[p->lb % 3],
		p->profile == UET_PROFILE_HPC ? "hpc" : "ai_full", p->nop,
		p->nfault);
	if (dst_syn_expected(p))
		fprintf(f, "  secure PDC establishment: expected_0rtt\n");
	for (i = 0; i < p->nnodes; i++)
		print_node(f, i, &p->node[i], p->gen,
			   dst_pid_wait_ns(p, i));
	for (i = 0; i < p->nop; i++) {
		const struct dst_op_spec *o = &p->op[i];

		fprintf(f, "  op %u (#%u): t=%lluus %s %u B %u->%u tc %u%s "
			"recv %+dus", i, p->op_id[i],
			(unsigned long long)(o->at / 1000),
			dst_op_name(o->kind), o->len, o->src, o->dst, o->tc,
			o->ordered ? " rod" : o->idem ? " idem" : "", o->recv_us);
		if (o->kind >= DST_OP_AMO && o->kind <= DST_OP_TFAMO)
			fprintf(f, " op %s dt %s x%u", uet_wire_amo_op_name(o->amo_op),
				uet_wire_amo_dt_name(o->amo_dt), o->amo_n);
		fprintf(f, "%s%s%s%s\n", err_names[o->err % DST_E__COUNT],
			rmode_names[o->rmode % DST_R__COUNT],
			dst_op_truncated(o) ? " truncated" : "",
			o->imm ? " imm" : "");
	}
	for (i = 0; i < p->nfault; i++) {
		const struct dst_fault_spec *x = &p->fault[i];

		fprintf(f, "  fault %u (#%u): t=%lluus +%lluus %s node %u -> ",
			i, p->fault_id[i],
			(unsigned long long)(x->at / 1000),
			(unsigned long long)(x->dur / 1000),
			dst_fault_name(x->kind), x->a);
		if (x->b == 0xFF)
			fprintf(f, "any");
		else
			fprintf(f, "%u", x->b);
		fprintf(f, " ppm %u arg %u\n", x->ppm, x->arg);
	}
}
