/* SPDX-License-Identifier: BSD-3-Clause */
/* Two SES+PDS stacks over a fake lossy wire (see ses_fakewire.h). */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ses_fakewire.h"

static uint64_t
ses_fakewire_rand(struct sfw *w)
{
	return uet_rand_next(&w->rng);
}

static bool
ses_fakewire_chance(struct sfw *w, uint32_t ppm)
{
	return ppm && (ses_fakewire_rand(w) % 1000000) < ppm;
}

static uint32_t
ses_fakewire_or(uint32_t v, uint32_t dflt)
{
	return v != 0 ? v : dflt;
}

static int
ses_fakewire_node_tables(struct ses_fakewire_node *n, const struct ses_fakewire_opts *o)
{
	struct uet_ses_mr_table_attr ta = {
		.max_entries = 64, .max_ri = 8, .max_pids = 4, .max_auth = 8,
		.vendor = 0,
	};
	struct uet_ses_ri_attr ra = {
		.relative = true, .job_id = SFW_JOB, .pid_on_fep = SFW_PID,
		.resource_index = SFW_RI_RMA, .type = UET_SES_RI_RMA,
	};
	struct uet_ses_match_config mc;

	n->mr = uet_ses_mr_table_create(&ta);
	uet_ses_match_config_default(&mc);
	/* 4 MiB of unexpected data at 1 KiB chunks by default */
	mc.chunks = ses_fakewire_or(o->unexp_chunks, 4096);
	mc.chunk_size = 1024;
	mc.max_unexpected = ses_fakewire_or(o->unexp_max, mc.max_unexpected);
	n->match = uet_ses_match_create(&mc);
	if (n->mr == NULL || n->match == NULL)
		return -1;
	if (uet_ses_mr_pid_add(n->mr, SFW_PID) != 0 ||
	    uet_ses_mr_auth_add(n->mr, SFW_JOB, SFW_PID) != 0)
		return -1;
	n->ri_rma = uet_ses_ri_add(n->mr, &ra);
	ra.resource_index = SFW_RI_MSG;
	ra.type = UET_SES_RI_MSG;
	n->ri_msg = uet_ses_ri_add(n->mr, &ra);
	/* Rendezvous source buffers, read back by the peer. */
	ra.resource_index = SFW_RI_RDV;
	ra.type = UET_SES_RI_RMA;
	n->ri_rdv = uet_ses_ri_add(n->mr, &ra);
	return n->ri_rma < 0 || n->ri_msg < 0 || n->ri_rdv < 0 ? -1 : 0;
}

bool ses_fakewire_rdv_by_job;
bool ses_fakewire_two_pids;
bool ses_fakewire_remote_events;
bool ses_fakewire_split;
const struct uet_ses_mem_ops *ses_fakewire_mem_ops;
void *ses_fakewire_mem_arg;
int (*ses_fakewire_submit)(void *arg, const struct uet_pds_submit *ps, uint64_t now);
bool (*ses_fakewire_tx_busy)(void *arg, uint32_t msg);
enum uet_wire_profile ses_fakewire_pid2_profile;
/* the profiles the current nodes were made with */
static enum uet_wire_profile ses_fakewire_profile_now, ses_fakewire_pid2_now;

static enum uet_wire_profile
ses_fakewire_profile_of(void *arg, uint16_t pid)
{
	(void)arg;
	return pid == SFW_PID + 1 ? ses_fakewire_pid2_now : ses_fakewire_profile_now;
}

static int
ses_fakewire_rdv_ri_of(void *arg, uint32_t job, uint16_t pid)
{
	const struct ses_fakewire_node *n = arg;

	return job == SFW_JOB && pid == SFW_PID ? n->ri_rdv : -1;
}

static struct uet_ses_match *
ses_fakewire_match_of(void *arg, uint16_t pid)
{
	struct ses_fakewire_node *n = arg;

	if (pid == SFW_PID)
		return n->match;
	return pid == SFW_PID + 1 ? n->match2 : NULL;
}

/* The second process of a node (ses_fakewire_two_pids). */
static int
ses_fakewire_node_pid2(struct ses_fakewire_node *n)
{
	struct uet_ses_match_config mc;
	struct uet_ses_ri_attr ra = {
		.relative = true, .job_id = SFW_JOB, .pid_on_fep = SFW_PID + 1,
		.resource_index = SFW_RI_MSG, .type = UET_SES_RI_MSG,
	};

	uet_ses_match_config_default(&mc);
	mc.chunks = 1024;
	mc.chunk_size = 1024;
	n->match2 = uet_ses_match_create(&mc);
	if (n->match2 == NULL || uet_ses_mr_pid_add(n->mr, SFW_PID + 1) != 0 ||
	    uet_ses_mr_auth_add(n->mr, SFW_JOB, SFW_PID + 1) != 0)
		return -1;
	return uet_ses_ri_add(n->mr, &ra) < 0 ? -1 : 0;
}

static int
ses_fakewire_node_init(struct sfw *w, int i, enum uet_wire_profile profile, uint64_t seed,
	      const struct ses_fakewire_opts *o)
{
	struct ses_fakewire_node *n = &w->n[i];
	struct uet_pds_config pc;
	struct uet_ses_config sc;

	uet_pds_config_default(&pc);
	pc.max_pdcs = 16;
	pc.max_rsv_pdcs = 2;
	pc.tx_window = 128;
	pc.rx_window = 128;
	pc.tx_blocks = 8;
	pc.rx_blocks = 8;
	pc.resp_entries = 256;
	pc.event_queue = 1024;
	pc.mtu = SFW_MTU;
	pc.cc_param = 128 * 1024;
	pc.seed = seed * 31 + (uint64_t)i + 1;
	/* The first incarnation of a node: its first SYN opens, as the
	 * tests that count packets expect (the quiet time has tests of its
	 * own). A restarted node has the quiet time on: it is what makes a
	 * restart safe (test_ses_e2e.c restart__*). */
	pc.syn_quiet = w->restarts != 0;
	pc.max_backoffs = ses_fakewire_or(o->max_backoffs, pc.max_backoffs);
	pc.resp_entries = ses_fakewire_or(o->resp_entries, pc.resp_entries);
	pc.pdc_events = true; /* the SES acts on PDC_DOWN (docs/SES.md) */
	n->pds = uet_pds_create(&pc);
	if (n->pds == NULL ||
	    ses_fakewire_node_tables(n, o) != 0)
		return -1;
	uet_ses_config_default(&sc);
	sc.profile = profile;
	sc.mtu = SFW_MTU;
	sc.max_msgs = ses_fakewire_or(o->max_msgs, 2048);
	sc.max_tgt_msgs = ses_fakewire_or(o->max_tgt_msgs, 256);
	sc.cq_size = 4096;
	sc.initiator_id = 100 + (uint32_t)i;
	sc.seed = seed * 2654435761u + (uint64_t)i + 1; /* per incarnation */
	sc.pid_on_fep = SFW_PID;
	sc.token_owner_bits = o->token_owner_bits;
	sc.token_owner_id = o->token_owner_bits != 0 ? (uint32_t)i + 1 : 0;
	sc.rdv_ri = n->ri_rdv;
	sc.remote_events = ses_fakewire_remote_events;
	sc.pid_wait_ns = o->pid_wait_ns;
	sc.mem_ops = ses_fakewire_mem_ops;
	sc.mem_arg = ses_fakewire_mem_arg;
	sc.submit = ses_fakewire_submit;
	sc.submit_arg = n;
	sc.tx_busy = ses_fakewire_tx_busy;
	sc.tx_busy_arg = n;
	if (ses_fakewire_two_pids) {
		if (ses_fakewire_node_pid2(n) != 0)
			return -1;
		sc.match_of = ses_fakewire_match_of;
		sc.match_arg = n;
		if (ses_fakewire_pid2_profile != 0) {
			ses_fakewire_profile_now = profile;
			ses_fakewire_pid2_now = ses_fakewire_pid2_profile;
			sc.profile_of = ses_fakewire_profile_of;
		}
	}
	if (ses_fakewire_rdv_by_job) {
		sc.rdv_ri = -1;
		sc.rdv_ri_of = ses_fakewire_rdv_ri_of;
		sc.rdv_ri_arg = n;
	}
	sc.rdv_resource_index = SFW_RI_RDV;
	sc.rdv_threshold = ses_fakewire_or(o->rdv_threshold, UINT32_MAX);
	sc.rdv_eager = SFW_RDV_EAGER;
	sc.pds = n->pds;
	sc.mr = n->mr;
	sc.match = n->match;
	n->ses = uet_ses_create(&sc);
	n->fa.addr[0] = 10;
	n->fa.addr[3] = (uint8_t)(i + 1);
	return n->ses == NULL ? -1 : 0;
}

int
ses_fakewire_init(struct sfw *w, enum uet_wire_profile profile, uint64_t seed)
{
	return ses_fakewire_init_rdv(w, profile, seed, UINT32_MAX);
}

int
ses_fakewire_init_rdv(struct sfw *w, enum uet_wire_profile profile, uint64_t seed,
	     uint32_t rdv_threshold)
{
	struct ses_fakewire_opts o;

	memset(&o, 0, sizeof(o));
	o.rdv_threshold = rdv_threshold;
	return ses_fakewire_init_opts(w, profile, seed, &o);
}

int
ses_fakewire_init_opts(struct sfw *w, enum uet_wire_profile profile, uint64_t seed,
	      const struct ses_fakewire_opts *o)
{
	int i;

	memset(w, 0, sizeof(*w));
	w->profile = profile;
	w->seed = seed;
	w->opts = malloc(sizeof(*w->opts));
	if (w->opts == NULL)
		return -1;
	*w->opts = *o;
	w->rng.s = seed * 2654435761u + 7;
	w->delay_ns = 2000;
	w->jitter_ns = 20000;
	w->now = 1000000;
	for (i = 0; i < 2; i++) {
		w->q[i] = calloc(SFW_QUEUE, sizeof(struct ses_fakewire_pkt));
		if (w->q[i] == NULL ||
		    ses_fakewire_node_init(w, i, profile, seed, o) != 0)
			return -1;
	}
	return 0;
}

static void
ses_fakewire_node_free(struct ses_fakewire_node *n)
{
	uet_ses_free(n->ses);
	uet_pds_free(n->pds);
	uet_ses_match_free(n->match);
	uet_ses_match_free(n->match2);
	uet_ses_mr_table_free(n->mr);
	memset(n, 0, sizeof(*n));
}

void
ses_fakewire_fini(struct sfw *w)
{
	int i;

	for (i = 0; i < 2; i++) {
		ses_fakewire_node_free(&w->n[i]);
		free(w->q[i]);
	}
	free(w->opts);
}

int
ses_fakewire_restart(struct sfw *w, int node)
{
	ses_fakewire_node_free(&w->n[node]);
	w->restarts++;
	return ses_fakewire_node_init(w, node, w->profile,
				      w->seed + 1000 * w->restarts, w->opts);
}

void
ses_fakewire_wr(struct sfw *w, int from, struct uet_ses_wr *wr, uint8_t op, void *buf,
       uint64_t len)
{
	bool rma = op == UET_SES_WR_WRITE || op == UET_SES_WR_READ ||
		   op == UET_SES_WR_ATOMIC || op == UET_SES_WR_FETCH_ATOMIC ||
		   op == UET_SES_WR_CSWAP;

	memset(wr, 0, sizeof(*wr));
	wr->op = op;
	wr->buf = buf;
	wr->len = len;
	wr->job = SFW_JOB;
	wr->tc = 1;
	wr->dest.fa = w->n[1 - from].fa;
	wr->dest.pid_on_fep = SFW_PID;
	wr->dest.resource_index = rma ? SFW_RI_RMA : SFW_RI_MSG;
	wr->dest.relative = true;
	wr->flags = UET_SES_WR_F_COMPLETION;
}

uint64_t
ses_fakewire_mr(struct sfw *w, int node, void *base, uint64_t len, uint32_t access,
       bool idempotent)
{
	struct uet_ses_mr_attr a = {
		.ri = w->n[node].ri_rma, .base = (uintptr_t)base,
		.length = len, .access = access, .idempotent = idempotent,
	};
	uint64_t key = 0;

	if (uet_ses_mr_reg(w->n[node].mr, &a, &key) != 0)
		return 0;
	return key;
}

/* ---- wire ---- */

static int
ses_fakewire_encode(struct sfw *w, int from, const struct uet_pds_tx *t,
	   struct ses_fakewire_pkt *pk)
{
	int n = uet_wire_pds_hdr_encode(&t->hdr, pk->bytes, sizeof(pk->bytes));
	int pl = 0;

	if (n < 0)
		return n;
	if (t->kind != UET_PDS_TX_CTL) {
		pl = uet_ses_build(w->n[from].ses, t->cookie,
				   t->hdr.u.req.psn, pk->bytes + n,
				   sizeof(pk->bytes) - (size_t)n);
		if (pl != t->len) {
			w->build_err++;
			/* gone for good: its PDC fails, as in the engine */
			if (pl == -ENOENT)
				(void)uet_pds_tx_unbuildable(w->n[from].pds, t,
							     w->now);
			return -1;
		}
	} else if (t->resp_len) {
		memcpy(pk->bytes + n, t->resp, t->resp_len);
		pl = t->resp_len;
	}
	pk->len = (uint16_t)(n + pl);
	return n;
}

static void
ses_fakewire_enqueue(struct sfw *w, int dir, const struct ses_fakewire_pkt *pk, bool extra,
		     uint64_t later)
{
	struct ses_fakewire_pkt *d;

	if (w->nq[dir] == SFW_QUEUE)
		return;
	d = &w->q[dir][w->nq[dir]++];
	*d = *pk;
	d->at = w->now + w->delay_ns + later;
	if (extra && w->jitter_ns)
		d->at += ses_fakewire_rand(w) % w->jitter_ns;
}

static void
ses_fakewire_send(struct sfw *w, int from, const struct uet_pds_tx *t)
{
	const struct ses_fakewire_faults *f = &w->f[from];
	static struct ses_fakewire_pkt pk;
	uint64_t later;

	if (ses_fakewire_encode(w, from, t, &pk) < 0)
		return;
	if (w->drop_fn != NULL && w->drop_fn(w, from, t))
		return;
	if (ses_fakewire_chance(w, f->drop))
		return;
	later = w->delay_fn != NULL ? w->delay_fn(w, from, t) : 0;
	ses_fakewire_enqueue(w, from, &pk, ses_fakewire_chance(w, f->reorder), later);
	if (ses_fakewire_chance(w, f->dup))
		ses_fakewire_enqueue(w, from, &pk, true, later);
}

static void
ses_fakewire_cq_drain(struct sfw *w, int s)
{
	struct ses_fakewire_node *n = &w->n[s];

	while (n->ncq < SFW_CQ &&
	       uet_ses_cq_poll(n->ses, &n->cq[n->ncq], 1) == 1)
		n->ncq++;
}

/* ses_fakewire_split: delivery @p ev of packet @p pkt in two pieces, the
 * first at least its request header (else the largest one, or the whole
 * packet). */
static void
ses_fakewire_event_split(struct sfw *w, int s, const struct uet_pds_event *ev,
			 const uint8_t *ses, uint16_t len, uint64_t pkt)
{
	uint64_t h = (pkt + 1) * 0x9E3779B97F4A7C15ull;
	int fmt = uet_wire_ses_fmt_from_next_hdr(ev->next_hdr), n = -1;
	uint16_t head = len < UET_SES_REQ_MAX_LEN ? len : UET_SES_REQ_MAX_LEN;
	struct uet_wire_ses_req req;
	uint8_t *a, *b;

	if (fmt >= 0)
		n = uet_wire_ses_req_decode(ses, len, (enum uet_wire_ses_fmt)fmt,
					    &req);
	if (n >= 0)
		head = (uint16_t)n;

	head = (uint16_t)(head + (h >> 32) % ((uint32_t)(len - head) + 1));
	if ((h & 7) == 0 || head == len) {
		uet_ses_event(w->n[s].ses, ev, ses, len, w->now);
		return;
	}
	a = malloc(head);
	b = malloc((size_t)(len - head));
	if (a == NULL || b == NULL) {
		w->rx_err++;
	} else {
		memcpy(a, ses, head);
		memcpy(b, ses + head, (size_t)(len - head));
		uet_ses_event_tail(w->n[s].ses, ev, a, head, b,
				   (uint32_t)(len - head), w->now);
	}
	free(a);
	free(b);
}

static void
ses_fakewire_events(struct sfw *w, int s, const uint8_t *ses, uint16_t len,
	   uint64_t pkt)
{
	struct uet_pds_event ev[32];
	uint16_t k, i;

	do {
		k = uet_pds_events(w->n[s].pds, ev, 32);
		for (i = 0; i < k; i++) {
			if (ev[i].type == UET_PDS_EV_DELIVER &&
			    (ses == NULL || ev[i].cookie != pkt)) {
				w->rx_err++;
				continue;
			}
			if (ses_fakewire_split && ses != NULL)
				ses_fakewire_event_split(w, s, &ev[i], ses,
							 len, pkt);
			else
				uet_ses_event(w->n[s].ses, &ev[i], ses, len,
					      w->now);
		}
	} while (k == 32);
}

static void
ses_fakewire_rx(struct sfw *w, int to, const struct ses_fakewire_pkt *pk, uint64_t id)
{
	struct uet_wire_pds_hdr h;
	struct uet_pds_rx_meta m;
	int n = uet_wire_pds_hdr_decode(pk->bytes, pk->len, &h);

	if (n < 0) {
		w->rx_err++;
		return;
	}
	memset(&m, 0, sizeof(m));
	m.src = w->n[1 - to].fa;
	m.dst = w->n[to].fa;
	m.ses = pk->bytes + n;
	m.ses_len = (uint16_t)(pk->len - n);
	m.len = m.ses_len;
	m.ev = 0xC000;
	m.resp_expected = uet_ses_rx_resp_expected(h.type, h.next_hdr, m.ses,
						   m.ses_len);
	m.pkt_cookie = id;
	uet_pds_rx(w->n[to].pds, &h, &m, w->now);
	/* Deliveries name this packet: hand them over while it exists. */
	ses_fakewire_events(w, to, m.ses, m.ses_len, id);
}

static void
ses_fakewire_deliver(struct sfw *w, int dir)
{
	static struct ses_fakewire_pkt due[SFW_QUEUE];
	static uint64_t ids;
	uint32_t i, j = 0, k = 0;

	for (i = 0; i < w->nq[dir]; i++) {
		if (w->q[dir][i].at <= w->now)
			due[k++] = w->q[dir][i];
		else
			w->q[dir][j++] = w->q[dir][i];
	}
	w->nq[dir] = j;
	for (i = 0; i < k; i++)
		ses_fakewire_rx(w, 1 - dir, &due[i], ++ids);
}

void
ses_fakewire_step(struct sfw *w, uint64_t dt)
{
	struct uet_pds_tx tx[32];
	uint16_t n, i;
	int s;

	for (s = 0; s < 2; s++) {
		if (w->stalled[s])
			continue;
		uet_ses_progress(w->n[s].ses, w->now);
		do {
			n = uet_pds_tx_burst(w->n[s].pds, w->now, tx, 32);
			for (i = 0; i < n; i++)
				ses_fakewire_send(w, s, &tx[i]);
		} while (n == 32);
	}
	w->now += dt;
	for (s = 0; s < 2; s++)
		if (!w->stalled[1 - s])
			ses_fakewire_deliver(w, s);
	for (s = 0; s < 2; s++) {
		if (w->stalled[s])
			continue;
		uet_pds_advance(w->n[s].pds, w->now);
		ses_fakewire_events(w, s, NULL, 0, 0);
		ses_fakewire_cq_drain(w, s);
	}
}

bool
ses_fakewire_run_cq(struct sfw *w, int node, uint32_t ncq, uint64_t max_ns)
{
	uint64_t end = w->now + max_ns;

	while (w->now < end) {
		ses_fakewire_step(w, 1000);
		if (w->n[node].ncq >= ncq)
			return true;
	}
	return false;
}

static bool
ses_fakewire_idle(struct sfw *w)
{
	struct uet_ses_pool_info si;
	struct uet_pds_pool_info pi;
	int s;

	for (s = 0; s < 2; s++) {
		uet_ses_pool_info_get(w->n[s].ses, &si);
		uet_pds_pool_info_get(w->n[s].pds, &pi);
		/* Stored PDS responses are freed by CLEAR_PSN, which the
		 * initiator advances when idle (CLEAR CP), or by CLOSE. */
		if (si.msgs_used || si.tgt_used || si.ret_used ||
		    pi.tx_blk_used || pi.resp_used || w->nq[s])
			return false;
	}
	return true;
}

bool
ses_fakewire_run_idle(struct sfw *w, uint64_t max_ns)
{
	uint64_t end = w->now + max_ns;

	struct uet_ses_pool_info si;
	struct uet_pds_pool_info pi;
	int s;

	while (w->now < end) {
		ses_fakewire_step(w, 1000);
		if (ses_fakewire_idle(w))
			return true;
	}
	for (s = 0; s < 2; s++) {
		uet_ses_pool_info_get(w->n[s].ses, &si);
		uet_pds_pool_info_get(w->n[s].pds, &pi);
		fprintf(stderr, "# node %d: msgs %u tgt %u ret %u txblk %u "
			"resp %u queued %u\n", s, si.msgs_used, si.tgt_used,
			si.ret_used, pi.tx_blk_used, pi.resp_used, w->nq[s]);
	}
	return false;
}

int
ses_fakewire_cq_find(const struct sfw *w, int node, uint64_t ctx)
{
	uint32_t i;

	for (i = 0; i < w->n[node].ncq; i++)
		if (w->n[node].cq[i].context == ctx)
			return (int)i;
	return -1;
}

const struct uet_ses_cqe *
ses_fakewire_cqe(const struct sfw *w, int node, uint64_t ctx)
{
	int i = ses_fakewire_cq_find(w, node, ctx);

	if (i >= 0)
		return &w->n[node].cq[i];
	fprintf(stderr, "node %d: no completion %llu\n", node,
		(unsigned long long)ctx);
	return NULL;
}

uint32_t
ses_fakewire_cq_count(const struct sfw *w, int node, uint64_t ctx)
{
	uint32_t i, n = 0;

	for (i = 0; i < w->n[node].ncq; i++)
		n += w->n[node].cq[i].context == ctx;
	return n;
}

int
ses_fakewire_teardown(void **state)
{
	ses_fakewire_fini(*state);
	return 0;
}

void
ses_fakewire_fill(uint8_t *b, size_t n, uint64_t salt)
{
	uint64_t x = salt * 0x9E3779B97F4A7C15ull + 1;

	for (size_t i = 0; i < n; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		b[i] = (uint8_t)x;
	}
}

int
ses_fakewire_recv(struct sfw *w, int node, uint8_t op, uint64_t ctx,
		  void *buf, uint64_t len, uint64_t tag, uint64_t ignore)
{
	struct uet_ses_recv r;

	memset(&r, 0, sizeof(r));
	r.op = op;
	r.context = ctx;
	r.buf = buf;
	r.len = len;
	r.tag = tag;
	r.ignore = ignore;
	return uet_ses_recv_post(w->n[node].ses, &r, w->now);
}

int
ses_fakewire_read_init(struct sfw *w, uint64_t salt, uint8_t **mem,
		       uint8_t **rbuf, uint64_t *key)
{
	*mem = calloc(1, SFW_READ_MEM);
	*rbuf = calloc(1, SFW_READ_MEM);
	if (*mem == NULL || *rbuf == NULL)
		return -1;
	ses_fakewire_fill(*mem, SFW_READ_MEM, salt);
	*key = ses_fakewire_mr(w, 1, *mem, SFW_READ_MEM, UET_SES_MR_REMOTE_READ,
			       false);
	return 0;
}

void
ses_fakewire_read_fini(struct sfw *w, uint8_t *mem, uint8_t *rbuf)
{
	ses_fakewire_fini(w);
	free(mem);
	free(rbuf);
}

int
ses_fakewire_read(struct sfw *w, uint64_t key, uint8_t *rbuf, uint64_t ctx,
		  uint64_t off, uint64_t len)
{
	struct uet_ses_wr wr;

	ses_fakewire_wr(w, 0, &wr, UET_SES_WR_READ, rbuf + off, len);
	wr.rkey = key;
	wr.roffset = off;
	wr.context = ctx;
	return uet_ses_submit(w->n[0].ses, &wr, NULL);
}

int
ses_fakewire_tgt_handle(const struct uet_pds_pdc_info *i, void *arg)
{
	if (i->role != 1)
		return 0;
	*(uint32_t *)arg = i->handle;
	return 1;
}
