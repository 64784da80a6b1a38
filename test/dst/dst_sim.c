/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * DST event loop: virtual time jumps from one event to the next (a packet
 * arriving, a PDS timer, an operation or fault due), the nodes run in a
 * fixed order, and nothing reads a clock, so a plan replays exactly.
 * Also the trace, the failure record and the shrinker.
 */

#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dst.h"

#define DST_TRACE_LINES 512
/* Virtual time the run may take after its last op or fault. */
#define DST_DRAIN_NS 2000000000ull
/* Invariants that scan every PDC are checked every this many turns. */
#define DST_CHECK_EVERY 64

int
dst_sim_init(struct dst_sim *s)
{
	int i;

	/* Every run creates and frees each node's PDS, SES and matching
	 * context: dozens of pools of 10 to 400 KB and a 2 MB matching
	 * store. Pools from a heap that stays grown are memset by
	 * calloc(); mmapped ones come zeroed from the kernel page by page,
	 * but cost a map, page faults and an unmap with its TLB flush at
	 * every run, which on this project's virtual machine is dearer than
	 * the memset. So only what is 1 MB or more is mmapped (the
	 * matching store, little of which a run touches) and the heap is
	 * never trimmed (uet-dst and fuzz_dst alike; a no-op under ASan). */
	mallopt(M_MMAP_THRESHOLD, 1024 * 1024);
	mallopt(M_TRIM_THRESHOLD, INT32_MAX);
	memset(s, 0, sizeof(*s));
	s->syn_quiet = -1;
	s->trace = calloc(DST_TRACE_LINES, sizeof(*s->trace));
	for (i = 0; i < DST_NODES_MAX; i++) {
		s->node[i].mem = calloc(1, DST_MEM);
		if (s->node[i].mem == NULL)
			return -1;
	}
	return s->trace == NULL ? -1 : dst_net_init(s);
}

void
dst_sim_fini(struct dst_sim *s)
{
	int i;

	for (i = 0; i < DST_NODES_MAX; i++)
		free(s->node[i].mem);
	free(s->trace);
	dst_net_fini(s);
}

void
dst_trace(struct dst_sim *s, const char *fmt, ...)
{
	char *line;
	va_list ap;
	int n;

	if (!dst_tracing(s))
		return;
	line = s->trace[s->ntrace++ % DST_TRACE_LINES];
	n = snprintf(line, 128, "%10.3f ms  ", (double)s->now / 1e6);
	va_start(ap, fmt);
	vsnprintf(line + n, (size_t)(128 - n), fmt, ap);
	va_end(ap);
	if (s->trace_live)
		printf("%s\n", line);
}

void
dst_fail(struct dst_sim *s, const char *inv, const char *fmt, ...)
{
	va_list ap;

	if (s->failed)
		return;
	s->failed = true;
	snprintf(s->inv, sizeof(s->inv), "%s", inv);
	va_start(ap, fmt);
	vsnprintf(s->why, sizeof(s->why), fmt, ap);
	va_end(ap);
	dst_trace(s, "FAIL %s: %s", s->inv, s->why);
}

void
dst_trace_dump(const struct dst_sim *s, void *out, uint32_t last)
{
	uint32_t n = s->ntrace < DST_TRACE_LINES ? s->ntrace : DST_TRACE_LINES;
	uint32_t k;

	if (last < n)
		n = last;
	for (k = s->ntrace - n; k != s->ntrace; k++)
		fprintf(out, "  %s\n", s->trace[k % DST_TRACE_LINES]);
}

/* ---- node faults (actions at a point in time) ---- */

/* Work requests only (a receive bound to a message is the target's). */
static bool
odd_op(void *arg, uint64_t context)
{
	(void)arg;
	return context < (1ull << 40) && (context & 1);
}

static void
node_fault(struct dst_sim *s, const struct dst_fault_spec *f)
{
	int a = f->a;

	switch (f->kind) {
	case DST_F_CLOSE_INIT:
	case DST_F_CLOSE_TGT:
		dst_node_close_all(s, a, f->kind == DST_F_CLOSE_TGT);
		break;
	case DST_F_RESTART:
		dst_trace(s, "n%d restarts (incarnation %u)", a,
			  s->node[a].inc + 1);
		dst_node_down(s, a);
		s->node[a].inc++;
		s->node[a].inc_ns = s->now;
		dst_work_restart(s, a);
		if (s->plan->gen >= 7)
			dst_work_stale_fill(s, a);
		if (dst_node_up(s, a) != 0)
			dst_fail(s, "setup", "n%d cannot restart", a);
		dst_net_release(s, a);
		break;
	case DST_F_WITHDRAW:
		dst_trace(s, "n%d withdraws its odd operations%s (%u left)", a,
			  f->arg & 1 ? ", forced" : "",
			  uet_ses_withdraw(s->node[a].ses, odd_op, NULL,
					   f->arg & 1));
		break;
	case DST_F_REREG:
		dst_node_rereg(s, a);
		break;
	case DST_F_MRCHURN:
		dst_mr_churn(s, a, f);
		break;
	case DST_F_STALL:
		if (s->now + f->dur > s->node[a].stall_until)
			s->node[a].stall_until = s->now + f->dur;
		dst_trace(s, "n%d stalls for %llu us (clock jump)", a,
			  (unsigned long long)(f->dur / 1000));
		break;
	default:
		break;
	}
}

static bool
is_node_fault(uint8_t kind)
{
	return kind >= DST_F_CLOSE_INIT && kind != DST_F_HOLD;
}

/* When node fault @p i acts: at its time, but a restart of generator 6
 * at its node's first answer with read data (dst_net.c,
 * restart_on_answer), else at the end of its duration. */
static uint64_t
node_fault_at(const struct dst_sim *s, uint32_t i)
{
	const struct dst_fault_spec *f = &s->plan->fault[i];

	if (s->plan->gen < 6 || f->kind != DST_F_RESTART)
		return f->at;
	return (s->restart_now >> i) & 1 ? s->now : f->at + f->dur;
}

/* Run the node faults due now; returns the time of the next one. */
static uint64_t
node_faults(struct dst_sim *s)
{
	const struct dst_plan *p = s->plan;
	uint64_t next = UINT64_MAX, at;
	uint32_t i;

	for (i = 0; i < p->nfault && !s->failed; i++) {
		const struct dst_fault_spec *f = &p->fault[i];

		if (!is_node_fault(f->kind) || (s->fault_done >> i) & 1)
			continue;
		at = node_fault_at(s, i);
		if (at <= s->now) {
			s->fault_done |= 1ull << i;
			if (p->gen >= 6 && f->kind == DST_F_RESTART)
				dst_trace(s, "n%d restarts %s", f->a,
					  (s->restart_now >> i) & 1 ?
					  "on an answer, its ACK lost" :
					  f->dur == 0 ? "at its time" :
					  "at the end of its fault");
			node_fault(s, f);
		} else if (at < next) {
			next = at;
		}
	}
	return next;
}

/* Network fault windows open and close: the loop stops at each edge so a
 * fault acts from its start (packets are judged when sent). */
static uint64_t
fault_edges(const struct dst_sim *s)
{
	const struct dst_plan *p = s->plan;
	uint64_t next = UINT64_MAX, e;
	uint32_t i;

	for (i = 0; i < p->nfault; i++) {
		const struct dst_fault_spec *f = &p->fault[i];

		e = f->at > s->now ? f->at : f->at + f->dur;
		if (e > s->now && e < next)
			next = e;
	}
	return next;
}

static uint64_t
min64(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

static uint64_t
next_time(struct dst_sim *s, uint64_t nf)
{
	uint64_t t = min64(dst_net_next(s), dst_work_next(s)), d;
	int i;

	t = min64(t, min64(nf, fault_edges(s)));
	if (dst_mrecv_due(s))
		return s->now + 1;
	for (i = 0; i < s->plan->nnodes; i++) {
		if (s->node[i].stall_until > s->now) {
			t = min64(t, s->node[i].stall_until);
			continue;
		}
		d = uet_pds_next_deadline(s->node[i].pds);
		t = min64(t, d);
		t = min64(t, uet_ses_next_deadline(s->node[i].ses));
	}
	return t <= s->now ? s->now + 1 : t;
}

static bool
all_idle(struct dst_sim *s)
{
	int i;

	if (s->nheap > 0 || !dst_work_done(s))
		return false;
	for (i = 0; i < s->plan->nnodes; i++)
		if (!dst_node_idle(s, i, NULL, 0))
			return false;
	return true;
}

static void
set_horizon(struct dst_sim *s)
{
	const struct dst_plan *p = s->plan;
	uint64_t h = 0;
	uint32_t i;

	for (i = 0; i < p->nop; i++)
		h = min64(UINT64_MAX, p->op[i].at > h ? p->op[i].at : h);
	for (i = 0; i < p->nfault; i++)
		if (p->fault[i].at + p->fault[i].dur > h)
			h = p->fault[i].at + p->fault[i].dur;
	s->horizon = s->now + h + 3000000;
	s->end = s->horizon + DST_DRAIN_NS;
}

/* What must hold once everything is over. */
static void
final_checks(struct dst_sim *s)
{
	char why[200];
	int i;

	dst_work_final(s);
	/* (ses-rx-bad is judged at each delivery, dst_node.c) */
	for (i = 0; i < s->plan->nnodes && !s->failed; i++)
		if (!dst_node_idle(s, i, why, sizeof(why)))
			dst_fail(s, "leak", "state left after every PDC "
				 "closed: %s", why);
}

static void
loop(struct dst_sim *s)
{
	uint64_t nf;
	int i;

	s->fault_done = 0;
	s->restart_now = 0;
	while (!s->failed) {
		dst_net_deliver(s);
		nf = node_faults(s);
		dst_work_poll(s);
		for (i = 0; i < s->plan->nnodes && !s->failed; i++)
			dst_node_poll(s, i);
		if (++s->steps % DST_CHECK_EVERY == 0) {
			for (i = 0; i < s->plan->nnodes && !s->failed; i++)
				dst_node_check_cc(s, i);
			dst_work_check_hang(s);
		}
		if (s->failed || (s->now > s->horizon && all_idle(s)))
			break;
		/* a restart an answer made due (generator 6) acts now */
		if (s->restart_now & ~s->fault_done)
			nf = s->now;
		nf = next_time(s, nf);
		if (nf > s->end) {
			s->now = s->end;
			dst_work_check_hang(s);
			break;
		}
		s->now = nf;
	}
}

int
dst_run(struct dst_sim *s, const struct dst_plan *plan)
{
	int i, rc = 0;

	s->plan = plan;
	s->failed = false;
	s->inv[0] = 0;
	s->why[0] = 0;
	s->ntrace = 0;
	s->seq = 0;
	s->steps = 0;
	s->sent = s->dropped = s->corrupt_rejected = 0;
	s->held = s->expired = 0;
	s->now = 1000000;
	uet_rand_seed(&s->rng, plan->seed ^ 0x5DEECE66Dull);
	dst_net_reset(s);
	for (i = 0; i < plan->nnodes; i++) {
		s->node[i].inc = 0;
		s->node[i].inc_ns = s->now;
		s->node[i].keys = 0;
		s->node[i].mem_next = 0;
		if (rc == 0)
			rc = dst_node_up(s, i);
	}
	if (rc != 0) {
		dst_fail(s, "setup", "node creation failed: %d", rc);
	} else {
		dst_work_start(s);
		set_horizon(s);
		loop(s);
		if (!s->failed)
			final_checks(s);
		dst_work_fini(s);
	}
	for (i = 0; i < plan->nnodes; i++)
		dst_node_down(s, i);
	return s->failed ? -1 : 0;
}

/* ---- shrinker ---- */

static bool
still_fails(struct dst_sim *s, const struct dst_plan *p, const char *inv,
	    uint32_t *runs)
{
	bool live = s->trace_live, off = s->trace_off;
	bool f;

	(*runs)++;
	s->trace_live = false;
	s->trace_off = true;
	f = dst_run(s, p) != 0 && strcmp(s->inv, inv) == 0;
	s->trace_live = live;
	s->trace_off = off;
	return f;
}

static void
drop_ops(struct dst_plan *p, uint32_t at, uint32_t n)
{
	memmove(&p->op[at], &p->op[at + n],
		(p->nop - at - n) * sizeof(p->op[0]));
	memmove(&p->op_id[at], &p->op_id[at + n],
		(p->nop - at - n) * sizeof(p->op_id[0]));
	p->nop -= n;
}

static void
drop_fault(struct dst_plan *p, uint32_t at)
{
	memmove(&p->fault[at], &p->fault[at + 1],
		(p->nfault - at - 1) * sizeof(p->fault[0]));
	memmove(&p->fault_id[at], &p->fault_id[at + 1],
		(p->nfault - at - 1) * sizeof(p->fault_id[0]));
	p->nfault--;
}

uint32_t
dst_shrink(struct dst_sim *s, struct dst_plan *p, const char *inv,
	   uint32_t budget)
{
	static struct dst_plan t;
	char want[sizeof(s->inv)];
	uint32_t runs = 0, chunk, at, k;

	snprintf(want, sizeof(want), "%s", inv);
	/* faults one by one, last first */
	for (k = p->nfault; k-- > 0 && runs < budget;) {
		t = *p;
		drop_fault(&t, k);
		if (still_fails(s, &t, want, &runs))
			*p = t;
	}
	/* operations: halves, then quarters, ... (delta debugging) */
	for (chunk = p->nop / 2; chunk >= 1 && runs < budget; chunk /= 2) {
		for (at = 0; at + chunk <= p->nop && runs < budget;) {
			t = *p;
			drop_ops(&t, at, chunk);
			if (t.nop > 0 && still_fails(s, &t, want, &runs))
				*p = t;
			else
				at += chunk;
		}
	}
	/* the faults again: fewer operations may need fewer of them */
	for (k = p->nfault; k-- > 0 && runs < budget;) {
		t = *p;
		drop_fault(&t, k);
		if (still_fails(s, &t, want, &runs))
			*p = t;
	}
	/* leave s describing the shrunk failure */
	dst_run(s, p);
	return runs + 1;
}
