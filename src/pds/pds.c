/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * PDS instance: creation, configuration, the event and control rings, and
 * the per-packet entry points that dispatch to the initiator (pds_initiator.c),
 * target (pds_target.c) and datagram (pds_dgram.c) state machines.
 */

#include <stdlib.h>

#include <uet/uet_pow2.h>

#include "pds_private.h"

void
uet_pds_config_default(struct uet_pds_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->max_pdcs = 1024;
	cfg->max_rsv_pdcs = 64;
	cfg->tx_window = 256;
	cfg->rx_window = 256;
	cfg->tx_blocks = 256;
	cfg->rx_blocks = 256;
	cfg->resp_entries = 1024;
	cfg->rudi_slots = 1024;
	cfg->dgram_queue = 1024;
	cfg->ctl_queue = 1024;
	cfg->event_queue = 4096;
	cfg->mtu = 4096;
	/* UEC 1.0 PDS ACK generation: ACK credit max(1 KiB, len), ACK at >= 16
	 * KiB. */
	cfg->ack_min_bytes = 1024;
	cfg->ack_threshold = 16384;
	cfg->ack_delay_ns = 50000;
	/* UEC 1.0 PDS retransmission: RTO_INIT 1 ms. The back-off is capped and
	 * the retries many enough that 20 % loss in both directions does not
	 * declare a live peer dead (config/uet.conf [timers]). */
	cfg->rto_init_ns = 1000000;
	cfg->rto_max_ns = 100000000;
	cfg->max_retries = 24;
	cfg->max_nack_retx = 32;
	cfg->tlp_ns = 500000;
	cfg->sack_reorder = 3;
	cfg->backoff_init_ns = 100000;
	cfg->backoff_max_ns = 4000000;
	cfg->max_backoffs = 16;
	cfg->idle_close_ns = 0;
	/* Idle target PDCs are reclaimed (pds_target_ack.c): a PDC opened by
	 * a late duplicate SYN has no initiator to close it. */
	cfg->tgt_close_req_ns = 1000000000;
	cfg->timer_tick_ns = 16384;
	cfg->timer_slots = 1024;
	cfg->seed = 0x9e3779b97f4a7c15ull;
	cfg->cc = NULL;
	cfg->cc_param = 65536;
	cfg->tlp_probe = true;
	cfg->resp_high_water = 0;
	cfg->syn_holdoff_ns = 1000000;
	cfg->mpl_ns = 100000000;
	/* On: a restarted target must not take a SYN sent to its previous
	 * incarnation (docs/WIRE-DECISIONS.md "A SYN that reaches a
	 * restarted target"); the first PDC of each initiator id within
	 * the quiet time costs one round trip more. */
	cfg->syn_quiet = true;
	cfg->rod_renack = 4;
	/* At 1 % loss the halving holds a dropped frame to 9 retransmissions
	 * in uet-perf msgrate, against 85 without the ROD window
	 * (docs/PERFORMANCE.md, "ROD under loss"). The packet that fills the
	 * window carries AR, so a small window does not wait for the delayed
	 * ACK (pds_initiator_hdr_req). */
	cfg->rod_wnd_min = 8;
	/* One EV per PDC unless configured otherwise (config [spray]). */
	uet_cms_lb_config_default(&cfg->lb);
	cfg->lb.mode = UET_CMS_LB_SINGLE;
}

static bool
pds_config_ok(const struct uet_pds_config *c)
{
	uint64_t ids = (uint64_t)c->max_pdcs + c->max_rsv_pdcs;

	if (c->owner_bits > 8 || c->owner_id >= (1u << c->owner_bits))
		return false;
	if (c->max_pdcs == 0 ||
	    ids > (uint64_t)(UET_PDS_PDC_MAX >> c->owner_bits))
		return false;
	if (!uet_is_pow2(c->tx_window) || c->tx_window > UET_PDS_TX_WINDOW_MAX ||
	    c->tx_window < 4)
		return false;
	if (!uet_is_pow2(c->rx_window) || c->rx_window < UET_PSN_SACK_BITS ||
	    c->rx_window > 32768)
		return false;
	if (!uet_is_pow2(c->dgram_queue) || !uet_is_pow2(c->ctl_queue) ||
	    !uet_is_pow2(c->event_queue) || !uet_is_pow2(c->timer_slots) ||
	    c->timer_slots > PDS_TIMER_SLOTS_MAX)
		return false;
	/* A fatal close emits one event per window slot at once. */
	if (c->event_queue < 2 * c->tx_window)
		return false;
	if (c->rudi_slots > 65536 || c->resp_max > UET_PDS_RESP_MAX)
		return false;
	if (c->cc != NULL && c->cc->priv_size > UET_PDS_CC_PRIV_MAX)
		return false;
	if (c->tx_blocks == 0 || c->rx_blocks == 0 || c->mtu == 0 ||
	    c->timer_tick_ns == 0 || c->rto_init_ns == 0 ||
	    c->mpl_ns == 0 || c->mpl_ns > PDS_MPL_MAX_NS ||
	    c->max_retries > UET_PDS_MAX_RETRIES || c->max_backoffs > 255 ||
	    c->max_nack_retx == 0 || c->max_nack_retx > 255 ||
	    c->ack_threshold == 0)
		return false;
	/* two ways of establishing a PDC: one at most */
	if (c->syn_1rtt && c->syn_expected)
		return false;
	return uet_cms_lb_config_check(&c->lb, NULL) == 0;
}

static int
pds_alloc_arrays(struct uet_pds *p)
{
	const struct uet_pds_config *c = &p->cfg;

	p->pdc = calloc(2 * (size_t)p->cap, sizeof(*p->pdc));
	p->cc_priv = calloc(2 * (size_t)p->cap, p->cc_stride);
	p->lb = calloc(2 * (size_t)p->cap, sizeof(*p->lb));
	p->tx_blk = calloc((size_t)c->tx_blocks * c->tx_window,
			   sizeof(*p->tx_blk));
	/* Room for every block's worth of waiters four times over; more
	 * wait for their timer (pds_initiator_close). */
	p->blk_wait_r.mask = uet_pow2_ceil(c->tx_blocks < (1u << 20) ?
					   4 * c->tx_blocks : 1u << 22) - 1;
	p->blk_wait = calloc(p->blk_wait_r.mask + 1, sizeof(*p->blk_wait));
	p->rx_blk = calloc((size_t)c->rx_blocks * p->rx_words,
			   sizeof(*p->rx_blk));
	p->resp = calloc(c->resp_entries ? c->resp_entries : 1,
			 sizeof(*p->resp));
	p->resp_data = calloc(c->resp_entries ? c->resp_entries : 1,
			      p->resp_max);
	p->rudi = calloc(c->rudi_slots ? c->rudi_slots : 1, sizeof(*p->rudi));
	p->dgram = calloc(c->dgram_queue, sizeof(*p->dgram));
	p->ctl = calloc(c->ctl_queue, sizeof(*p->ctl));
	p->ev = calloc(c->event_queue, sizeof(*p->ev));
	p->ev_resp = calloc(c->event_queue, UET_PDS_RESP_MAX);
	/* moves waiting for room (pds_move.c): a window of one PDC twice */
	p->mv_cap = 2 * c->tx_window;
	p->mv = calloc(p->mv_cap, sizeof(*p->mv));
	if (!p->pdc || !p->cc_priv || !p->lb || !p->tx_blk || !p->blk_wait ||
	    !p->rx_blk || !p->resp || !p->resp_data || !p->rudi ||
	    !p->dgram || !p->ctl || !p->ev || !p->ev_resp || !p->mv)
		return -ENOMEM;
	if (pds_pool_init(&p->tx_pool, c->tx_blocks) ||
	    pds_pool_init(&p->rx_pool, c->rx_blocks) ||
	    pds_pool_init(&p->resp_pool, c->resp_entries) ||
	    pds_pool_init(&p->rudi_pool, c->rudi_slots))
		return -ENOMEM;
	p->dgram_r.mask = c->dgram_queue - 1;
	p->ctl_r.mask = c->ctl_queue - 1;
	p->ev_r.mask = c->event_queue - 1;
	return 0;
}

static void
pds_free_arrays(struct uet_pds *p)
{
	pds_pool_fini(&p->tx_pool);
	pds_pool_fini(&p->rx_pool);
	pds_pool_fini(&p->resp_pool);
	pds_pool_fini(&p->rudi_pool);
	free(p->pdc);
	free(p->cc_priv);
	free(p->lb);
	free(p->tx_blk);
	free(p->blk_wait);
	free(p->rx_blk);
	free(p->resp);
	free(p->resp_data);
	free(p->rudi);
	free(p->dgram);
	free(p->ctl);
	free(p->ev);
	free(p->ev_resp);
	free(p->mv);
}

struct uet_pds *
uet_pds_create(const struct uet_pds_config *cfg)
{
	struct uet_pds *p;
	int err = ENOMEM;

	if (cfg == NULL || !pds_config_ok(cfg)) {
		errno = EINVAL;
		return NULL;
	}
	p = calloc(1, sizeof(*p));
	if (p == NULL)
		goto err_nomem;
	p->cfg = *cfg;
	p->cc = cfg->cc ? cfg->cc : &uet_pds_cc_fixed;
	/* 8-byte aligned entries when the CC's state may hold 64-bit
	 * fields (8 bytes or more), else 4-byte aligned: the fixed window's
	 * 4 bytes take 4 per PDC, not 8 (uet_pds_cc_ops.priv_size). */
	p->cc_stride = p->cc->priv_size ? p->cc->priv_size : UET_PDS_CC_PRIV_MAX;
	p->cc_stride = p->cc_stride >= 8 ? (p->cc_stride + 7u) & ~7u :
					   (p->cc_stride + 3u) & ~3u;
	p->cap = cfg->max_pdcs + cfg->max_rsv_pdcs;
	p->id_mask = (UET_PDS_PDC_MAX >> cfg->owner_bits) - 1;
	/* Target ids follow the initiator ids when both fit in the id
	 * space, so every id names one PDC (pdc.c) */
	p->id_tgt_base = 2 * p->cap <= p->id_mask + 1 ? p->cap : 0;
	p->id_owner = (uint16_t)(cfg->owner_bits ?
		cfg->owner_id << (16 - cfg->owner_bits) : 0);
	p->tx_shift = (uint32_t)__builtin_ctz(cfg->tx_window);
	p->rx_words = cfg->rx_window / 64;
	p->rng.s = cfg->seed ? cfg->seed : 1;
	p->resp_hw = cfg->resp_high_water ? cfg->resp_high_water :
		     cfg->resp_entries - cfg->resp_entries / 4;
	p->resp_max = cfg->resp_max ? cfg->resp_max : UET_PDS_RESP_MAX;
	p->resp_defer = PDS_NIL;
	p->rudi_seq = (uint32_t)pds_rand(p);
	p->last_start = (uint32_t)pds_rand(p) & ~PDS_NAMED;
	if (pds_alloc_arrays(p) < 0)
		goto err_arrays;
	pds_lb_create(p);
	if (pds_pdc_mgr_init(p) < 0)
		goto err_arrays;
	if (pds_timer_init(p, 0) < 0)
		goto err_mgr;
	if (p->cc->create != NULL &&
	    (p->cc_inst = p->cc->create(cfg, 2 * p->cap)) == NULL) {
		err = errno == EINVAL ? EINVAL : ENOMEM;
		goto err_timer;
	}
	p->active.head = p->active.tail = PDS_NIL;
	p->acks.head = p->acks.tail = PDS_NIL;
	return p;
err_timer:
	pds_timer_fini(p);
err_mgr:
	pds_pdc_mgr_fini(p);
err_arrays:
	pds_free_arrays(p);
	free(p);
err_nomem:
	errno = err;
	return NULL;
}

void
uet_pds_free(struct uet_pds *p)
{
	if (p == NULL)
		return;
	if (p->cc->destroy != NULL)
		p->cc->destroy(p->cc_inst);
	pds_timer_fini(p);
	pds_pdc_mgr_fini(p);
	pds_free_arrays(p);
	free(p);
}

/* Deterministic from the configured seed (no clock reads). */
uint64_t
pds_rand(struct uet_pds *p)
{
	return uet_rand_next(&p->rng);
}

uint32_t
pds_event_room(const struct uet_pds *p)
{
	return p->ev_r.mask + 1 - pds_ring_count(&p->ev_r);
}

struct pds_event *
pds_event_push(struct uet_pds *p)
{
	struct pds_event *e;

	/* Callers reserve room first (pds_event_room); a full ring here is
	 * an invariant violation, reported by dropping and counting. */
	if (pds_ring_full(&p->ev_r)) {
		p->st.ev_full++;
		return NULL;
	}
	e = &p->ev[p->ev_r.head & p->ev_r.mask];
	p->ev_r.head++;
	memset(e, 0, sizeof(*e));
	return e;
}

/* Response bytes of event @p e (UET_PDS_RESP_MAX of room). */
uint8_t *
pds_event_resp(struct uet_pds *p, const struct pds_event *e)
{
	return p->ev_resp + (size_t)(e - p->ev) * UET_PDS_RESP_MAX;
}

void
pds_done(struct uet_pds *p, uint8_t mode, uint32_t pdc, uint64_t cookie,
	 int status, uint32_t psn)
{
	struct pds_event *e = pds_event_push(p);

	if (status == 0)
		p->st.done_ok++;
	else
		p->st.done_err++;
	if (e == NULL)
		return;
	e->type = UET_PDS_EV_DONE;
	e->mode = mode;
	e->status = status;
	e->pdc = pdc;
	e->cookie = cookie;
	e->psn = psn;
}

/* The DONE of a cookie submitted on @p c: the event names the PDC, so that
 * the SES knows what a later PDC_DOWN of it takes away (large READ data). */
void
pds_done_pdc(struct uet_pds *p, struct pds_pdc *c, uint64_t cookie,
	     int status, uint32_t psn)
{
	pds_done(p, c->mode, pds_handle(p, pds_idx(p, c)), cookie, status,
		 psn);
}

/* A failed PDC, for an SES that asked (uet_pds_config.pdc_events). */
void
pds_pdc_down(struct uet_pds *p, struct pds_pdc *c, int status)
{
	struct pds_event *e;

	if (!p->cfg.pdc_events || (e = pds_event_push(p)) == NULL)
		return;
	e->type = UET_PDS_EV_PDC_DOWN;
	e->mode = c->mode;
	e->status = status;
	e->pdc = pds_handle(p, pds_idx(p, c));
	e->peer = c->peer;
}

/* A target PDC going away, for an SES that asked: what it reassembles
 * from that PDC will get no more packets. Closed by its initiator's
 * CLOSE (status 0), or not (given up, failed, replaced: -ECONNRESET). */
void
pds_target_gone(struct uet_pds *p, struct pds_pdc *c)
{
	struct pds_event *e;

	if (!p->cfg.pdc_events || (e = pds_event_push(p)) == NULL)
		return;
	e->type = UET_PDS_EV_PDC_CLOSED;
	e->status = c->state == PDC_CLOSED ? 0 : -ECONNRESET;
	e->mode = c->mode;
	e->pdc = pds_handle(p, pds_idx(p, c));
	e->peer = c->peer;
}

/* A watched stored response left (uet_pds_resp_watch): cleared (0) or
 * dropped with its PDC (-ECONNRESET). */
void
pds_resp_cleared(struct uet_pds *p, const struct pds_pdc *c, uint32_t r,
		 int status)
{
	struct pds_event *e = pds_event_push(p);

	p->resp[r].watch = 0;
	if (e == NULL)
		return;
	e->type = UET_PDS_EV_CLEARED;
	e->mode = c->mode;
	e->status = status;
	e->pdc = pds_handle(p, pds_idx(p, c));
	e->psn = p->resp[r].psn;
	e->cookie = p->resp[r].cookie;
	e->peer = c->peer;
}

/* The SES had its chance to refuse the last delivery (uet_pds_rx()):
 * record it, and let a pending RUDI_RESP go. Every entry point with a
 * clock comes here first: the records' clock ticks (pds_syn_tick). */
void
pds_commit(struct uet_pds *p, uint64_t now)
{
	pds_syn_tick(p, now);
	if (p->pend.valid)
		pds_target_commit(p, now);
	if (p->rpend.valid)
		pds_rudi_commit(p);
	if (p->mv_n != 0)
		pds_move_drain(p, now);
}

uint16_t
uet_pds_events(struct uet_pds *p, struct uet_pds_event *ev, uint16_t n)
{
	uint16_t i;

	for (i = 0; i < n && pds_ring_count(&p->ev_r) > 0; i++) {
		const struct pds_event *e = &p->ev[p->ev_r.tail & p->ev_r.mask];
		struct uet_pds_event *o = &ev[i];

		o->type = e->type;
		o->mode = e->mode;
		o->next_hdr = e->next_hdr;
		o->resp_len = e->resp_len;
		o->status = e->status;
		o->pdc = e->pdc;
		o->psn = e->psn;
		o->cookie = e->cookie;
		o->peer = e->peer;
		/* only the response bytes in use (most events have none) */
		if (e->resp_len != 0)
			memcpy(o->resp, pds_event_resp(p, e),
			       e->resp_len < UET_PDS_RESP_MAX ? e->resp_len :
							       UET_PDS_RESP_MAX);
		p->ev_r.tail++;
	}
	return i;
}

struct uet_pds_tx *
pds_ctl_push(struct uet_pds *p)
{
	struct uet_pds_tx *t;

	if (pds_ring_full(&p->ctl_r)) {
		p->st.exhaust_queue++;
		return NULL;
	}
	t = &p->ctl[p->ctl_r.head & p->ctl_r.mask];
	p->ctl_r.head++;
	memset(t, 0, sizeof(*t));
	t->kind = UET_PDS_TX_CTL;
	return t;
}

struct uet_pds_tx *
pds_nack_tx(struct uet_pds *p, const struct uet_pds_fa *dst, uint16_t ev,
	    uint8_t code, uint32_t psn, uint16_t spdcid, uint16_t dpdcid,
	    uint8_t flags)
{
	struct uet_pds_tx *t = pds_ctl_push(p);

	if (t == NULL)
		return NULL;
	t->hdr.type = UET_PDS_TYPE_NACK;
	t->hdr.flags = flags;
	t->hdr.u.nack.code = code;
	t->hdr.u.nack.psn = psn;
	t->hdr.u.nack.spdcid = spdcid;
	t->hdr.u.nack.dpdcid = dpdcid;
	t->dst = *dst;
	t->ev = ev;
	p->st.nack_tx[pds_code_idx(code)]++;
	return t;
}

/* Handles: PDC index in the low 17 bits, generation above, so a handle
 * held by the SES never reaches a recycled PDC. */
uint32_t
pds_handle(const struct uet_pds *p, uint32_t idx)
{
	return ((uint32_t)p->pdc[idx].gen << 17) | idx;
}

struct pds_pdc *
pds_handle_pdc(struct uet_pds *p, uint32_t handle)
{
	uint32_t idx = handle & 0x1FFFFu;
	struct pds_pdc *c;

	if (idx >= 2 * p->cap)
		return NULL;
	c = &p->pdc[idx];
	if (c->state == PDC_FREE || c->gen != (uint16_t)(handle >> 17))
		return NULL;
	return c;
}

/* A PDC may sit on both lists at once (it sends and receives), so each
 * list has its own link and flag. */
static uint32_t *
pds_list_link(struct uet_pds *p, const struct pds_list *l, uint32_t idx,
	      uint16_t *flag)
{
	if (l == &p->acks) {
		*flag = PDC_F_ALISTED;
		return &p->pdc[idx].anext;
	}
	*flag = PDC_F_LISTED;
	return &p->pdc[idx].next;
}

void
pds_list_push(struct uet_pds *p, struct pds_list *l, uint32_t idx)
{
	struct pds_pdc *c = &p->pdc[idx];
	uint16_t flag;
	uint32_t *link = pds_list_link(p, l, idx, &flag);

	if (c->flags & flag)
		return;
	c->flags |= flag;
	*link = PDS_NIL;
	if (l->tail == PDS_NIL)
		l->head = idx;
	else
		*pds_list_link(p, l, l->tail, &flag) = idx;
	l->tail = idx;
}

uint32_t
pds_list_pop(struct uet_pds *p, struct pds_list *l)
{
	uint32_t idx = l->head;
	uint16_t flag;

	if (idx == PDS_NIL)
		return PDS_NIL;
	l->head = *pds_list_link(p, l, idx, &flag);
	if (l->head == PDS_NIL)
		l->tail = PDS_NIL;
	p->pdc[idx].flags &= (uint16_t)~flag;
	return idx;
}

int
uet_pds_submit(struct uet_pds *p, const struct uet_pds_submit *s,
	       uint64_t now)
{
	if (s->flags & UET_PDS_SUBMIT_PDC)
		return pds_initiator_submit_ret(p, s, now);
	if (s->mode == UET_PDS_MODE_RUD || s->mode == UET_PDS_MODE_ROD) {
		/* requests moved to this key go first (pds_move.c) */
		if (p->mv_n != 0) {
			pds_move_drain(p, now);
			if (pds_move_waiting(p, s))
				return -EAGAIN;
		}
		return pds_initiator_submit(p, s, now);
	}
	if (s->mode == UET_PDS_MODE_RUDI || s->mode == UET_PDS_MODE_UUD)
		return pds_dgram_submit(p, s, now);
	return -EINVAL;
}

/*
 * UEC 1.0 PDS control packets: NOOP, CLOSE and NEGOTIATION are reliable
 * (they consume a PSN of the sender's space, are ACKed and resent like
 * requests); the others are unreliable: they consume no PSN, are not
 * resent as such, and their psn field is not recorded (ACK_REQ names
 * the PSN it asks about in it). Those the sender sends go to its peer's
 * receive side (pds_target_cp_unseq), those the receiver sends to the
 * sender (pds_initiator_cp).
 */
static bool
pds_cp_to_sender(uint8_t ctl)
{
	return ctl == UET_PDS_CTL_CLOSE_REQ || ctl == UET_PDS_CTL_CLEAR_REQ ||
	       ctl == UET_PDS_CTL_CREDIT;
}

static bool
pds_cp_to_receiver(uint8_t ctl)
{
	return ctl == UET_PDS_CTL_PROBE || ctl == UET_PDS_CTL_CREDIT_REQ ||
	       ctl == UET_PDS_CTL_ACK_REQ || ctl == UET_PDS_CTL_CLEAR;
}

/* Requests in the return direction of a PDC carry RESPONSE_DATA next
 * headers (UEC 1.0 PDS next-header values) and address an initiator PDC; all
 * other requests and CPs address a target PDC (the return direction sends no
 * CPs: its tail-loss probe is a retransmission, pds_initiator.c). */
static int
pds_rx_seq(struct uet_pds *p, const struct uet_wire_pds_hdr *h,
	   const struct uet_pds_rx_meta *m, uint64_t now)
{
	if (h->type != UET_PDS_TYPE_CP &&
	    (h->next_hdr == UET_PDS_NEXT_RESPONSE_DATA ||
	     h->next_hdr == UET_PDS_NEXT_RESPONSE_DATA_SMALL))
		return pds_ret_rx(p, h, m, now);
	return pds_target_rx(p, h, m, now);
}

int
uet_pds_rx(struct uet_pds *p, const struct uet_wire_pds_hdr *h,
	   const struct uet_pds_rx_meta *m, uint64_t now)
{
	p->cc_now = now;
	pds_commit(p, now);
	/* Worst case one packet completes a whole window (fatal NACK). */
	if (pds_event_room(p) < p->cfg.tx_window + 2) {
		p->st.ev_full++;
		return -ENOBUFS;
	}
	p->st.rx_type[h->type & 15]++;
	if (uet_wire_pds_type_is_req(h->type))
		return pds_rx_seq(p, h, m, now);
	if (uet_wire_pds_type_is_ack(h->type))
		return pds_initiator_ack(p, h, m, now);
	if (uet_wire_pds_type_is_nack(h->type)) {
		if (h->flags & UET_PDS_F_NT)
			return pds_dgram_rx(p, h, m, now);
		return pds_initiator_nack(p, h, m, now);
	}
	if (h->type == UET_PDS_TYPE_CP) {
		p->st.rx_ctl[h->next_hdr & 15]++;
		if (pds_cp_to_receiver(h->next_hdr))
			return pds_target_cp_unseq(p, h, m, now);
		if (pds_cp_to_sender(h->next_hdr))
			return pds_initiator_cp(p, h, m, now);
		return pds_rx_seq(p, h, m, now);
	}
	if (h->type == UET_PDS_TYPE_RUDI_REQ ||
	    h->type == UET_PDS_TYPE_RUDI_RESP || h->type == UET_PDS_TYPE_UUD_REQ)
		return pds_dgram_rx(p, h, m, now);
	p->st.rx_bad++;
	return -EBADMSG;
}

void
pds_retx_sent(struct uet_pds *p, enum pds_why why)
{
	struct uet_pds_stats *st = &p->st;

	switch (why) {
	case PDS_WHY_NACK:
		st->retx_nack++;
		break;
	case PDS_WHY_TRIM:
		st->retx_trim++;
		break;
	case PDS_WHY_SACK:
		st->retx_sack++;
		break;
	case PDS_WHY_AGAIN:
		st->retx_again++;
		break;
	case PDS_WHY_PROBE:
		st->retx_probe++;
		break;
	case PDS_WHY_BACKOFF:
		st->retx_backoff++;
		break;
	case PDS_WHY_TLP:
		st->retx_tlp++;
		break;
	default:
		/* PDS_WHY_RTO; every mark names its reason (pds_slot_mark) */
		st->retx_rto++;
		break;
	}
}

static void
pds_tx_count(struct uet_pds *p, const struct uet_pds_tx *t, uint16_t n)
{
	uint16_t i;

	for (i = 0; i < n; i++) {
		p->st.tx_type[t[i].hdr.type & 15]++;
		if (t[i].hdr.type == UET_PDS_TYPE_CP)
			p->st.tx_ctl[t[i].hdr.next_hdr & 15]++;
	}
}

static uint16_t
pds_tx_ctl(struct uet_pds *p, struct uet_pds_tx *tx, uint16_t n)
{
	uint16_t k = 0;

	while (k < n && pds_ring_count(&p->ctl_r) > 0) {
		tx[k] = p->ctl[p->ctl_r.tail & p->ctl_r.mask];
		p->ctl_r.tail++;
		if (tx[k].hdr.type == UET_PDS_TYPE_RUDI_RESP && tx[k].resp_len)
			pds_rudi_handed_out(p, &tx[k]);
		k++;
	}
	return k;
}

static uint16_t
pds_tx_acks(struct uet_pds *p, uint64_t now, struct uet_pds_tx *tx,
	    uint16_t n)
{
	uint16_t k = 0;
	uint32_t idx;

	while (k < n && (idx = pds_list_pop(p, &p->acks)) != PDS_NIL) {
		if (pds_target_ack_tx(p, &p->pdc[idx], now, &tx[k]))
			k++;
	}
	return k;
}

/* Round-robin over initiator PDCs; each gets a small quantum per turn so
 * one busy PDC cannot starve the others (bounded by the active count). */
static uint16_t
pds_tx_reqs(struct uet_pds *p, uint64_t now, struct uet_pds_tx *tx,
	    uint16_t n)
{
	uint16_t k = 0, q;
	uint32_t idx, tail = p->active.tail;
	struct pds_pdc *c;

	while (k < n && (idx = pds_list_pop(p, &p->active)) != PDS_NIL) {
		c = &p->pdc[idx];
		q = (uint16_t)(n - k < 8 ? n - k : 8);
		k += pds_initiator_tx(p, c, now, &tx[k], q);
		if (pds_initiator_has_work(p, c, now))
			pds_list_push(p, &p->active, idx);
		if (idx == tail)
			break;
	}
	return k;
}

uint16_t
uet_pds_tx_burst(struct uet_pds *p, uint64_t now, struct uet_pds_tx *tx,
		 uint16_t n)
{
	uint16_t k, prev;

	p->cc_now = now;
	pds_commit(p, now);
	/* RUDI responses handed out last time were valid until now. */
	pds_rudi_defer_free(p);
	k = pds_tx_ctl(p, tx, n);
	k += pds_tx_acks(p, now, tx + k, (uint16_t)(n - k));
	k += pds_dgram_tx(p, now, tx + k, (uint16_t)(n - k));
	do {
		prev = k;
		k += pds_tx_reqs(p, now, tx + k, (uint16_t)(n - k));
	} while (k < n && k != prev);
	/* CPs the pump queued on its way (CREDIT_REQ) leave in this burst. */
	k += pds_tx_ctl(p, tx + k, (uint16_t)(n - k));
	pds_tx_count(p, tx, k);
	return k;
}

int
uet_pds_tx_unbuildable(struct uet_pds *p, const struct uet_pds_tx *t,
		       uint64_t now)
{
	const struct uet_wire_pds_req *r = &t->hdr.u.req;
	struct pds_pdc *c;
	unsigned int role;

	if (t->kind == UET_PDS_TX_CTL ||
	    (t->hdr.type != UET_PDS_TYPE_RUD_REQ &&
	     t->hdr.type != UET_PDS_TYPE_ROD_REQ &&
	     t->hdr.type != UET_PDS_TYPE_RUD_CC_REQ &&
	     t->hdr.type != UET_PDS_TYPE_ROD_CC_REQ))
		return -EINVAL;
	/* return-direction data leaves from a target PDC (its own PSNs) */
	role = t->hdr.next_hdr == UET_PDS_NEXT_RESPONSE_DATA ||
	       t->hdr.next_hdr == UET_PDS_NEXT_RESPONSE_DATA_SMALL ?
	       PDS_ROLE_TGT : PDS_ROLE_INIT;
	c = pds_pdc_by_lid(p, role, r->spdcid);
	if (c == NULL)
		return -ENOENT;
	return pds_initiator_unbuildable(p, c, r->psn, t->cookie, now);
}

int
uet_pds_respond(struct uet_pds *p, uint32_t pdc, uint32_t psn,
		uint8_t next_hdr, const void *resp, uint16_t len, uint64_t now)
{
	struct pds_pdc *c;
	int rc;

	if (len > p->resp_max || next_hdr < UET_PDS_NEXT_RESPONSE ||
	    next_hdr > UET_PDS_NEXT_RESPONSE_DATA_SMALL)
		return -EINVAL;
	if (pdc == UET_PDS_PDC_NONE)
		return pds_rudi_respond(p, psn, next_hdr, resp, len);
	c = pds_handle_pdc(p, pdc);
	if (c == NULL || c->role != PDS_ROLE_TGT)
		return -ENOENT;
	/* Responding accepts the request just delivered (the ACK carrying
	 * the response reports the PSN), once its response has room. */
	if (p->pend.valid && p->pend.handle == pdc && p->pend.psn == psn) {
		rc = pds_target_accept_answered(p, c, psn, now);
		if (rc != 0)
			return rc;
	}
	return pds_target_respond(p, c, psn, next_hdr, resp, len);
}

int
uet_pds_resp_watch(struct uet_pds *p, uint32_t pdc, uint32_t psn,
		   uint64_t cookie)
{
	struct pds_pdc *c = pdc == UET_PDS_PDC_NONE ? NULL :
			    pds_handle_pdc(p, pdc);

	if (c == NULL || c->role != PDS_ROLE_TGT)
		return -ENOENT;
	return pds_target_resp_watch(p, c, psn, cookie);
}

int
uet_pds_respond_default(struct uet_pds *p, uint32_t pdc, uint32_t psn,
			uint64_t now)
{
	struct pds_pdc *c;

	/* RUDI has no CACK: the SES answers in the RUDI_RESP. */
	if (pdc == UET_PDS_PDC_NONE)
		return -EINVAL;
	if (p->pend.valid && p->pend.handle == pdc && p->pend.psn == psn)
		pds_target_commit(p, now);
	c = pds_handle_pdc(p, pdc);
	if (c == NULL || c->role != PDS_ROLE_TGT)
		return -ENOENT;
	return pds_target_respond_default(p, c, psn);
}

int
uet_pds_refuse(struct uet_pds *p, uint32_t pdc, uint32_t psn, uint8_t code)
{
	struct pds_pdc *c;

	/* UEC 1.0 NACK codes, DECISION: resource NACKs back off and retry. */
	if (uet_wire_pds_nack_class(code) != UET_NACK_CLASS_RESOURCE)
		return -EINVAL;
	if (pdc == UET_PDS_PDC_NONE)
		return pds_rudi_refuse(p, psn, code);
	if (!p->pend.valid || p->pend.handle != pdc || p->pend.psn != psn)
		return -ENOENT;
	c = pds_handle_pdc(p, pdc);
	if (c == NULL) {
		p->pend.valid = false;
		return -ENOENT;
	}
	return pds_target_refuse(p, c, psn, code);
}

int
uet_pds_set_ulp(struct uet_pds *p, const struct uet_pds_ulp *ulp)
{
	if (ulp->continues == NULL && ulp->msg_of == NULL) {
		if (p->ulp.arg == ulp->arg)
			memset(&p->ulp, 0, sizeof(p->ulp));
		return 0;
	}
	if (p->ulp.continues != NULL || p->ulp.msg_of != NULL)
		return -EBUSY;
	p->ulp = *ulp;
	return 0;
}

uint32_t
uet_pds_resp_max(const struct uet_pds *p)
{
	return p->resp_max;
}

int
uet_pds_pdc_close(struct uet_pds *p, uint32_t pdc, uint64_t now)
{
	struct pds_pdc *c;

	pds_commit(p, now);
	c = pds_handle_pdc(p, pdc);
	if (c == NULL)
		return -ENOENT;
	if (c->role == PDS_ROLE_TGT) {
		pds_target_close_req(p, c, now);
		return 0;
	}
	return pds_initiator_close(p, c, now);
}

int
uet_pds_pdc_lock(struct uet_pds *p, uint32_t pdc)
{
	struct pds_pdc *c = pds_handle_pdc(p, pdc);

	if (c == NULL)
		return -ENOENT;
	if (c->u.i.locks == UINT8_MAX)
		return -EOVERFLOW;
	/* An idle initiator PDC now sends keepalives (pds_initiator_idle). */
	if (c->u.i.locks++ == 0)
		pds_pdc_timer_update(p, c, 0);
	return 0;
}

int
uet_pds_pdc_unlock(struct uet_pds *p, uint32_t pdc, uint64_t now)
{
	struct pds_pdc *c = pds_handle_pdc(p, pdc);

	if (c == NULL)
		return -ENOENT;
	if (c->u.i.locks == 0)
		return -EINVAL;
	if (--c->u.i.locks != 0)
		return 0;
	pds_pdc_timer_update(p, c, now);
	/* the last READ's data is handed over: a held CLOSE ACK may go
	 * once it drains (pds_target_ack_tx) */
	if (c->role == PDS_ROLE_TGT && c->state == PDC_CLOSED &&
	    c->u.i.una == c->u.i.nxt)
		pds_target_ack_kick(p, c);
	return 0;
}

const struct uet_pds_stats *
uet_pds_stats_get(const struct uet_pds *p)
{
	return &p->st;
}

void
uet_pds_pool_info_get(const struct uet_pds *p, struct uet_pds_pool_info *info)
{
	unsigned int r;

	memset(info, 0, sizeof(*info));
	for (r = 0; r < 2; r++)
		info->pdc_used[r] = p->pdc_pool[r][0].cap -
				    p->pdc_pool[r][0].nfree +
				    p->pdc_pool[r][1].cap -
				    p->pdc_pool[r][1].nfree;
	info->tx_blk_used = p->tx_pool.cap - p->tx_pool.nfree;
	info->rx_blk_used = p->rx_pool.cap - p->rx_pool.nfree;
	info->resp_used = p->resp_pool.cap - p->resp_pool.nfree;
	info->rudi_used = p->rudi_pool.cap - p->rudi_pool.nfree;
	info->events = pds_ring_count(&p->ev_r);
}

_Static_assert(UET_PDS_PDC_SYN == (int)PDC_SYN &&
	       UET_PDS_PDC_CLOSED == (int)PDC_CLOSED, "public PDC states");

static void
pds_pdc_info_fill(const struct uet_pds *p, uint32_t idx,
		  struct uet_pds_pdc_info *info)
{
	const struct pds_pdc *c = &p->pdc[idx];
	uint32_t r;

	memset(info, 0, sizeof(*info));
	info->peer = c->peer;
	info->handle = pds_handle(p, idx);
	info->job = c->job;
	info->lid = c->lid;
	info->rid = c->rid;
	info->role = c->role;
	info->state = c->state;
	info->mode = c->mode;
	info->tc = c->tc;
	info->start_psn = c->start_psn;
	info->tx_una = c->u.i.una;
	info->tx_nxt = c->u.i.nxt;
	info->tx_inflight = c->u.i.inflight;
	info->tx_retransmits = c->u.i.nretx;
	info->srtt_ns = c->u.i.srtt_ns;
	info->cwnd = p->cc->cwnd(p->cc_inst, pds_cc_priv(p, c));
	info->rx_cack = c->u.t.cack;
	info->rx_ooo = c->u.t.nbits;
	info->retries = c->u.i.retries;
	info->backoffs = c->u.i.backoffs;
	for (r = c->resp; r != PDS_NIL && info->stored_resp < UINT16_MAX;
	     r = p->resp[r].next)
		info->stored_resp++;
}

int
uet_pds_pdc_info_get(const struct uet_pds *p, uint32_t handle,
		     struct uet_pds_pdc_info *info)
{
	uint32_t idx = handle & 0x1FFFFu;

	if (idx >= 2 * p->cap || p->pdc[idx].state == PDC_FREE ||
	    p->pdc[idx].gen != (uint16_t)(handle >> 17))
		return -ENOENT;
	pds_pdc_info_fill(p, idx, info);
	return 0;
}

int
uet_pds_pdc_find(struct uet_pds *p, const struct uet_pds_fa *dst,
		 uint32_t job, uint8_t tc, uint8_t mode, uint32_t *handle)
{
	struct pds_pdc *c = pds_ikey_find(p, dst, job, tc, mode);

	if (c == NULL)
		return -ENOENT;
	*handle = pds_handle(p, pds_idx(p, c));
	return 0;
}

int
uet_pds_pdc_foreach(const struct uet_pds *p,
		    int (*cb)(const struct uet_pds_pdc_info *info, void *arg),
		    void *arg)
{
	struct uet_pds_pdc_info info;
	uint32_t idx;
	int rc;

	for (idx = 0; idx < 2 * p->cap; idx++) {
		if (p->pdc[idx].state == PDC_FREE)
			continue;
		pds_pdc_info_fill(p, idx, &info);
		rc = cb(&info, arg);
		if (rc != 0)
			return rc;
	}
	return 0;
}
