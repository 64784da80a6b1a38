/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * NSCC and RCCC (UEC 1.0 sections 3.6.13, 3.6.14) behind the PDS's
 * struct uet_pds_cc_ops. The algorithms are the sans-I/O ones of
 * src/cms; this file keeps their state: congestion contexts shared by
 * the PDCs to one {peer, traffic class}, per-PDC counters, and the pull
 * pacer of the receiver. Layout and bounds: include/pds/uet/uet_pds_cc.h.
 */

#include <stdlib.h>

#include <uet/uet_pds_cc.h>

#include "pds_private.h"

#define CC_NIL UINT32_MAX
/* cc_pdc.ctx: this PDC has seen ACK_CC NSCC state from its peer, so
 * rcvd_bytes (cumulative) and not the PDS's own count releases inflight. */
#define CC_CTX_STATE 0x80000000u
/* cc_pdc.ctx: the PDC has a backlog (an active RCCC source of this
 * sender, among which credit targets are divided). */
#define CC_CTX_ACTIVE 0x40000000u
#define CC_CTX_MASK  0x3FFFFFFFu
#define CC_CTX_NONE  CC_CTX_MASK /* without NSCC */
#define CC_CTX(d)    ((d)->ctx & CC_CTX_MASK)
/* cc_pdc.at: PDC index in the low 17 bits (2 x 65536 PDCs at most), the
 * receiver's pacer slot above (15 bits, CC_SLOT_NONE: none). */
#define CC_PDC_BITS  17
#define CC_PDC_MASK  ((1u << CC_PDC_BITS) - 1)
#define CC_SLOT_NONE 0x7FFFu
#define CC_SLOT_MAX  CC_SLOT_NONE
#define CC_SLOT(d)   ((d)->at >> CC_PDC_BITS)
/* Pacer slots when uet_pds_cc_cms_config.max_sources is 0: the pacer's
 * round-robin scans them per grant, so they are few, not one per PDC. */
#define CC_SOURCES_DEFAULT 256
#define CC_PEND_DEFAULT 64

struct cc_ctx {
	struct uet_nscc n;
	struct uet_pds_fa peer;
	uint32_t refs;
	uint32_t next;   /* free list */
	uint8_t tc;
};

struct cc_inst {
	struct uet_pds_cc_cms_config cfg;
	struct cc_ctx *ctx;      /* [nctx + 1]; the last one is the overflow */
	uint32_t nctx;
	uint32_t hi;             /* contexts ever taken: [0, hi) is searched */
	uint32_t free;           /* free list head */
	struct uet_rccc_pacer pacer;
	struct uet_rccc_slot *slot;
	uint32_t *slot_pdc;      /* pacer slot -> PDC index */
	uint32_t *slot_free;     /* free pacer slots (stack) */
	uint32_t nslots, nfree;
	uint32_t active;         /* PDCs with a backlog (CC_CTX_ACTIVE) */
	bool pacer_idle;         /* nobody to grant: no deadline */
	struct uet_pds_cc_stats st;
};

/* The 32 bytes of CC state in each PDC. */
struct cc_pdc {
	uint32_t ctx;                 /* context (CC_CTX_MASK) | STATE */
	struct uet_nscc_rcvd rcvd;    /* sender: last rcvd_bytes */
	struct uet_rccc_src src;      /* sender: credit */
	uint32_t at;                  /* PDC index | pacer slot << 17 */
	int32_t net;                  /* sender: this PDC's share of the
				       * context's inflight */
	struct uet_nscc_rcv rcv;      /* receiver: ACK_CC counters */
};

_Static_assert(sizeof(struct cc_pdc) <= UET_PDS_CC_PRIV_MAX,
	       "NSCC + RCCC per-PDC state fits the PDC");

int
uet_pds_cc_cms_config_default(struct uet_pds_cc_cms_config *c, bool nscc,
			      bool rccc, uint32_t link_mbps,
			      uint32_t base_rtt_ns, uint32_t mtu, bool trimming)
{
	uint64_t bdp;
	int rc;

	if (c == NULL || mtu == 0 || mtu > UINT16_MAX)
		return -EINVAL;
	memset(c, 0, sizeof(*c));
	c->nscc = nscc;
	c->rccc = rccc;
	rc = uet_nscc_params_default(&c->nscc_params, link_mbps, base_rtt_ns,
				     mtu + UET_PDS_CC_NOMINAL_OVH, trimming);
	if (rc < 0)
		return rc;
	c->nscc_params.rccc = rccc;
	bdp = (uint64_t)link_mbps * base_rtt_ns / 8000;
	if (bdp > UINT32_MAX / 2)
		return -EINVAL;
	rc = uet_rccc_pacer_config_default(&c->pacer, link_mbps,
					   mtu + UET_PDS_CC_NOMINAL_OVH,
					   (uint32_t)bdp);
	/* An engine polls its pacer once per loop iteration, a few us apart
	 * under load: 16 quanta of catch-up (about 2 us at 100 Gb/s with a
	 * 1.5 KB MTU) keep the rate the pacer's, not the loop's. */
	c->pacer.burst = 16 * c->pacer.quantum;
	/* The pacer's share is of the wire: a full IPv4 packet's nominal
	 * size is its UDP length + 40, its wire size the IP MTU plus the
	 * Ethernet header, FCS, preamble and gap (14 + 24 B). */
	c->pacer.frame_ppm = (uint32_t)((uint64_t)(UET_ETH_HLEN + 24 +
						    UET_IPV4_HLEN -
						    UET_NSCC_NOMINAL_EXTRA) *
					1000000 / (mtu - UET_IPV4_HLEN +
						   UET_NSCC_NOMINAL_EXTRA));
	return rc;
}

int
uet_pds_cc_cms_config_check(const struct uet_pds_cc_cms_config *c,
			    const char **why)
{
	struct uet_rccc_pacer pc;
	struct uet_rccc_slot s;
	const char *w = NULL;

	if (c == NULL) {
		w = "config";
	} else if (!c->nscc && !c->rccc) {
		w = "nscc, rccc (one at least)";
	} else if (c->overload_pend > UET_NSCC_PEND_MAX) {
		w = "overload_pend (0..127)";
	} else if (uet_nscc_params_check(&c->nscc_params, &w) == 0 &&
		   c->nscc_params.rccc != c->rccc) {
		w = "nscc_params.rccc (must equal rccc)";
	} else if (w == NULL && c->rccc) {
		uet_rccc_pacer_init(&pc, &c->pacer, &s, 1, &w);
	}
	if (why != NULL)
		*why = w;
	return w == NULL ? 0 : -EINVAL;
}

/* ---- the instance ---- */

static void
cc_destroy(void *inst)
{
	struct cc_inst *ci = inst;

	if (ci == NULL)
		return;
	free(ci->slot);
	free(ci->slot_pdc);
	free(ci->slot_free);
	free(ci->ctx);
	free(ci);
}

/* The contexts (one per PDC unless max_contexts bounds them) and the
 * pacer's slots. */
static size_t
cc_inst_bytes(const void *inst)
{
	const struct cc_inst *ci = inst;

	return sizeof(*ci) + ((size_t)ci->nctx + 1) * sizeof(*ci->ctx) +
	       ci->nslots * (sizeof(*ci->slot) + sizeof(*ci->slot_pdc) +
			     sizeof(*ci->slot_free));
}

static void *
cc_create(const struct uet_pds_config *cfg, uint32_t npdc)
{
	const struct uet_pds_cc_cms_config *a = cfg->cc_arg;
	struct cc_inst *ci;
	uint32_t i, nslots;

	if (a == NULL || uet_pds_cc_cms_config_check(a, NULL) < 0) {
		errno = EINVAL;
		return NULL;
	}
	ci = calloc(1, sizeof(*ci));
	if (ci == NULL)
		return NULL;
	ci->cfg = *a;
	ci->nctx = a->max_contexts && a->max_contexts < npdc ?
		   a->max_contexts : npdc;
	ci->ctx = calloc((size_t)ci->nctx + 1, sizeof(*ci->ctx));
	nslots = a->max_sources ? a->max_sources : CC_SOURCES_DEFAULT;
	if (nslots > npdc)
		nslots = npdc;
	if (nslots > CC_SLOT_MAX || npdc > CC_PDC_MASK + 1) {
		errno = EINVAL;
		free(ci->ctx);
		free(ci);
		return NULL;
	}
	ci->slot = calloc(nslots, sizeof(*ci->slot));
	ci->slot_pdc = calloc(nslots, sizeof(*ci->slot_pdc));
	ci->slot_free = calloc(nslots, sizeof(*ci->slot_free));
	if (ci->ctx == NULL || ci->slot == NULL || ci->slot_pdc == NULL ||
	    ci->slot_free == NULL)
		goto err;
	ci->nslots = nslots;
	for (i = 0; i < nslots; i++)
		ci->slot_free[i] = nslots - 1 - i;
	ci->nfree = nslots;
	for (i = 0; i < ci->nctx; i++)
		ci->ctx[i].next = i + 1 < ci->nctx ? i + 1 : CC_NIL;
	ci->free = 0;
	uet_nscc_init(&ci->ctx[ci->nctx].n, &a->nscc_params);
	ci->st.ctx_max = ci->nctx;
	if (a->rccc &&
	    uet_rccc_pacer_init(&ci->pacer, &a->pacer, ci->slot, nslots,
				NULL) < 0)
		goto err;
	ci->pacer_idle = true;
	return ci;
err:
	cc_destroy(ci);
	errno = ENOMEM;
	return NULL;
}

/* The context of {peer, tc}: found, or taken from the free list, or the
 * overflow context when the table is full. Linear in the contexts taken
 * so far (the free list hands out the lowest indices first), at PDC
 * creation only. */
static uint32_t
cc_ctx_get(struct cc_inst *ci, const struct uet_pds_cc_pdc *pdc)
{
	struct cc_ctx *x;
	uint32_t i;

	for (i = 0; i < ci->hi; i++) {
		x = &ci->ctx[i];
		if (x->refs && x->tc == pdc->tc &&
		    memcmp(&x->peer, &pdc->peer, sizeof(x->peer)) == 0) {
			x->refs++;
			return i;
		}
	}
	if (ci->free == CC_NIL) {
		ci->st.ctx_overflow++;
		ci->ctx[ci->nctx].refs++;
		return ci->nctx;
	}
	i = ci->free;
	x = &ci->ctx[i];
	ci->free = x->next;
	if (i >= ci->hi)
		ci->hi = i + 1;
	uet_nscc_init(&x->n, &ci->cfg.nscc_params);
	x->peer = pdc->peer;
	x->tc = pdc->tc;
	x->refs = 1;
	ci->st.ctx_used++;
	return i;
}

static void
cc_ctx_put(struct cc_inst *ci, uint32_t i)
{
	struct cc_ctx *x = &ci->ctx[i];

	if (x->refs == 0 || --x->refs != 0 || i == ci->nctx)
		return;
	x->next = ci->free;
	ci->free = i;
	ci->st.ctx_used--;
}

static struct uet_nscc *
cc_n(struct cc_inst *ci, const struct cc_pdc *d)
{
	return CC_CTX(d) == CC_CTX_NONE ? NULL : &ci->ctx[CC_CTX(d)].n;
}

/* This PDC's share of the context's inflight, kept so that the PDC
 * takes exactly its own bytes with it when it goes (cc_fini). */
static void
cc_net(struct cc_pdc *d, int64_t delta)
{
	int64_t v = (int64_t)d->net + delta;

	d->net = v < INT32_MIN ? INT32_MIN : v > INT32_MAX ? INT32_MAX :
		(int32_t)v;
}

/* At most what this PDC still counts in flight leaves the context: a
 * packet NACKed, trimmed or declared lost, then acknowledged (or counted
 * by rcvd_bytes), must not leave it twice. */
static uint32_t
cc_share(const struct cc_pdc *d, uint32_t bytes)
{
	if ((int64_t)bytes <= d->net)
		return bytes;
	return d->net > 0 ? (uint32_t)d->net : 0;
}

static void
cc_init(void *inst, void *priv, const struct uet_pds_cc_pdc *pdc,
	uint64_t now)
{
	struct cc_inst *ci = inst;
	struct cc_pdc *d = priv;

	(void)now;
	memset(d, 0, sizeof(*d));
	d->ctx = ci->cfg.nscc ? cc_ctx_get(ci, pdc) : CC_CTX_NONE;
	d->at = pdc->idx | CC_SLOT_NONE << CC_PDC_BITS;
	if (ci->cfg.rccc)
		uet_rccc_src_init(&d->src, ci->cfg.spec_credit ?
				  ci->cfg.spec_credit :
				  ci->cfg.nscc_params.max_wnd);
	uet_nscc_rcv_init(&d->rcv);
}

/*
 * The PDC goes: whatever it still counts in the shared context leaves
 * (its packets in flight, and the up to 255 B per PDC by which the
 * rounded-up rcvd_bytes over-released), so that many short PDCs leave no
 * drift in a context that outlives them.
 */
static void
cc_fini(void *inst, void *priv, uint32_t inflight)
{
	struct cc_inst *ci = inst;
	struct cc_pdc *d = priv;
	struct uet_nscc *n;
	int64_t v;

	(void)inflight; /* d->net is the CC's own, exact count */
	if (d->ctx & CC_CTX_ACTIVE) {
		d->ctx &= ~CC_CTX_ACTIVE;
		ci->active--;
	}
	if (CC_CTX(d) != CC_CTX_NONE) {
		n = &ci->ctx[CC_CTX(d)].n;
		v = (int64_t)n->inflight - d->net;
		n->inflight = v < INT32_MIN ? INT32_MIN : v > INT32_MAX ?
			INT32_MAX : (int32_t)v;
		cc_ctx_put(ci, CC_CTX(d));
		d->ctx = CC_CTX_NONE;
	}
	if (CC_SLOT(d) != CC_SLOT_NONE) {
		uet_rccc_pacer_release(&ci->pacer, CC_SLOT(d));
		ci->slot_free[ci->nfree++] = CC_SLOT(d);
		d->at |= CC_SLOT_NONE << CC_PDC_BITS;
	}
}

static bool
cc_may_send(void *inst, const void *priv, uint32_t bytes, uint32_t inflight)
{
	struct cc_inst *ci = inst;
	const struct cc_pdc *d = priv;

	/* NSCC keeps its own inflight, in nominal bytes; the PDS's says
	 * whether this PDC has anything in flight: if not, no ACK of its
	 * would open the (possibly shared) window, which then lets one
	 * packet go, but RCCC's credit still decides (pds_initiator_gate). */
	return uet_cms_cc_may_send(inflight != 0 ? cc_n(ci, d) : NULL,
				   &ci->cfg.nscc_params,
				   ci->cfg.rccc ? &d->src : NULL,
				   bytes + UET_PDS_CC_NOMINAL_OVH);
}

static void
cc_on_send(void *inst, void *priv, uint32_t bytes, bool retx, uint64_t now)
{
	struct cc_inst *ci = inst;
	struct cc_pdc *d = priv;
	struct uet_nscc *n = cc_n(ci, d);

	(void)retx;
	(void)now;
	if (n != NULL) {
		uet_nscc_on_send(n, bytes);
		cc_net(d, bytes);
	}
	if (ci->cfg.rccc)
		uet_rccc_src_on_send(&d->src, bytes);
}

static void
cc_act(struct cc_inst *ci, enum uet_nscc_action act)
{
	if ((unsigned int)act < sizeof(ci->st.act) / sizeof(ci->st.act[0]))
		ci->st.act[act]++;
}

static void
cc_on_ack(void *inst, void *priv, const struct uet_pds_cc_ack *a,
	  uint64_t now)
{
	struct cc_inst *ci = inst;
	struct cc_pdc *d = priv;
	struct uet_nscc *n = cc_n(ci, d);
	struct uet_nscc_ack na = {
		.rtt_ns = a->rtt_ns,
		.ecn = a->ecn,
	};

	if (ci->cfg.rccc)
		uet_rccc_src_stop_speculating(&d->src);
	if (n == NULL)
		return;
	/* rcvd_bytes is cumulative: an ACK without it (cc_type CREDIT)
	 * is caught up by the next. A peer that never sends it (another
	 * CC) leaves the PDS's own count. */
	if (a->has_state) {
		d->ctx |= CC_CTX_STATE;
		na.bytes = uet_nscc_rcvd_delta(&d->rcvd, a->rcvd_bytes);
		na.rcv_cwnd_pend = a->rcv_cwnd_pend;
		na.restore = a->rc;
	} else if (!(d->ctx & CC_CTX_STATE)) {
		na.bytes = a->bytes;
	}
	/* The first rcvd_bytes also covers bytes that plain ACKs before it
	 * released (from the PDS's own count), and bytes a loss or trim
	 * already took out: released twice, the shared inflight went
	 * negative. */
	na.bytes = cc_share(d, na.bytes);
	cc_net(d, -(int64_t)na.bytes);
	cc_act(ci, uet_nscc_on_ack(n, &ci->cfg.nscc_params, &na, now));
}

/*
 * NACK NEW_START_PSN refuses the PDC, not the bytes (UEC 1.0 3.5 PDC
 * establishment; a target in its quiet time refuses every first SYN,
 * pds_target_syn.c): nothing of the burst reached the receiver's buffers
 * or its pacer, so it is no feedback that ends speculation (UEC 1.0
 * 3.6.14), and the renumbered burst is the same speculative burst: the
 * credit it spent comes back.
 */
static void
cc_refused(struct cc_inst *ci, struct cc_pdc *d, uint32_t bytes)
{
	int64_t v;

	if (!ci->cfg.rccc || !uet_rccc_src_speculating(&d->src))
		return;
	v = (int64_t)d->src.credit + bytes;
	d->src.credit = v > INT32_MAX ? INT32_MAX : (int32_t)v;
}

static void
cc_on_nack(void *inst, void *priv, uint32_t bytes, uint8_t code,
	   uint64_t now)
{
	struct cc_inst *ci = inst;
	struct uet_nscc *n = cc_n(ci, priv);

	if (code == UET_NACK_NEW_START_PSN)
		cc_refused(ci, priv, bytes);
	else if (ci->cfg.rccc)
		uet_rccc_src_stop_speculating(&((struct cc_pdc *)priv)->src);
	/* Not received, not a congestion signal of the network: a resource
	 * NACK's receiver speaks through rcv_cwnd_pend. */
	if (n != NULL) {
		bytes = cc_share(priv, bytes);
		uet_nscc_on_nack(n, bytes, now);
		cc_net(priv, -(int64_t)bytes);
	}
}

static void
cc_on_nack_rtt(void *inst, void *priv, uint64_t rtt_ns, uint64_t now)
{
	struct cc_inst *ci = inst;
	struct uet_nscc *n = cc_n(ci, priv);

	(void)now;
	if (n != NULL)
		uet_nscc_on_nack_rtt(n, &ci->cfg.nscc_params, rtt_ns);
}

static void
cc_on_trim(void *inst, void *priv, uint32_t bytes, bool lasthop,
	   uint64_t now)
{
	struct cc_inst *ci = inst;
	struct uet_nscc *n = cc_n(ci, priv);

	if (ci->cfg.rccc)
		uet_rccc_src_stop_speculating(&((struct cc_pdc *)priv)->src);
	if (n != NULL) {
		bytes = cc_share(priv, bytes);
		cc_act(ci, uet_nscc_on_trim(n, &ci->cfg.nscc_params, bytes,
					    lasthop, now));
		cc_net(priv, -(int64_t)bytes);
	}
}

static void
cc_on_loss(void *inst, void *priv, uint32_t bytes, uint64_t now)
{
	struct cc_inst *ci = inst;
	struct uet_nscc *n = cc_n(ci, priv);

	if (ci->cfg.rccc)
		uet_rccc_src_stop_speculating(&((struct cc_pdc *)priv)->src);
	if (n != NULL) {
		bytes = cc_share(priv, bytes);
		cc_act(ci, uet_nscc_on_loss(n, &ci->cfg.nscc_params, bytes,
					    now));
		cc_net(priv, -(int64_t)bytes);
	}
}

static uint32_t
cc_cwnd(void *inst, const void *priv)
{
	struct cc_inst *ci = inst;
	const struct cc_pdc *d = priv;

	if (CC_CTX(d) != CC_CTX_NONE)
		return ci->ctx[CC_CTX(d)].n.cwnd;
	return ci->cfg.nscc_params.max_wnd;
}

/* UEC 1.0 NSCC: AR when the window is nearly full; RCCC alone: when the
 * credit runs out (its grants ride on ACKs). */
static bool
cc_want_ar(void *inst, const void *priv, uint32_t inflight)
{
	struct cc_inst *ci = inst;
	const struct cc_pdc *d = priv;
	const struct uet_nscc *n = cc_n(ci, d);

	(void)inflight;
	if (n != NULL)
		return uet_nscc_want_ar(n, &ci->cfg.nscc_params);
	return (int64_t)d->src.credit < 2 * (int64_t)ci->cfg.nscc_params.mtu;
}

static uint32_t
cc_credit_target(void *inst, void *priv, uint32_t backlog,
		 uint32_t rtx_backlog, uint8_t *ccc_id)
{
	struct cc_inst *ci = inst;
	struct cc_pdc *d = priv;
	const struct uet_nscc_params *np = &ci->cfg.nscc_params;
	const struct uet_nscc *n = cc_n(ci, d);

	*ccc_id = 0;
	if (!ci->cfg.rccc)
		return 0;
	/* htsim divides a source's target among the sender's active
	 * sources (its NIC's), so that together they ask for one share. */
	if ((backlog + (uint64_t)rtx_backlog > 0) !=
	    !!(d->ctx & CC_CTX_ACTIVE)) {
		d->ctx ^= CC_CTX_ACTIVE;
		if (d->ctx & CC_CTX_ACTIVE)
			ci->active++;
		else
			ci->active--;
	}
	return uet_rccc_src_credit_target(&d->src, backlog, rtx_backlog,
					  n != NULL ? n->cwnd : np->max_wnd,
					  np->mtu, np->max_wnd, ci->active);
}

static void
cc_on_credit(void *inst, void *priv, uint32_t credit, uint64_t now)
{
	struct cc_inst *ci = inst;
	struct cc_pdc *d = priv;

	(void)now;
	if (ci->cfg.rccc)
		uet_rccc_src_on_credit(&d->src, credit,
				       ci->cfg.nscc_params.max_wnd);
}

/* UEC 1.0 RCCC: requests only update the pacer; grants come from
 * cc_poll_grant() at the pacer's rate. */
static uint32_t
cc_on_credit_request(void *inst, void *priv, uint32_t target, uint32_t bytes,
		     uint64_t now)
{
	struct cc_inst *ci = inst;
	struct cc_pdc *d = priv;
	uint32_t slot;

	(void)now;
	if (!ci->cfg.rccc)
		return 0;
	if (CC_SLOT(d) == CC_SLOT_NONE) {
		/* A source's first request takes a pacer slot; none free:
		 * it keeps its speculative credit only (counted). */
		if (ci->nfree == 0) {
			ci->st.src_full++;
			return 0;
		}
		slot = ci->slot_free[--ci->nfree];
		ci->slot_pdc[slot] = d->at & CC_PDC_MASK;
		d->at = (d->at & CC_PDC_MASK) | slot << CC_PDC_BITS;
	}
	(void)uet_rccc_pacer_request(&ci->pacer, CC_SLOT(d), target);
	if (bytes != 0)
		(void)uet_rccc_pacer_packet(&ci->pacer, CC_SLOT(d), bytes);
	ci->st.credit_req++;
	ci->pacer_idle = false;
	return 0;
}

static int
cc_poll_grant(void *inst, uint64_t now, uint32_t *idx, uint32_t *bytes)
{
	struct cc_inst *ci = inst;

	if (!ci->cfg.rccc || ci->pacer_idle)
		return 0;
	if (uet_rccc_pacer_poll(&ci->pacer, now, idx, bytes) == 1) {
		*idx = ci->slot_pdc[*idx];
		ci->st.grants++;
		ci->st.grant_bytes += *bytes;
		return 1;
	}
	/* Due and nothing granted: nobody wants credit. Sleep until a
	 * request comes, so an idle receiver has no deadline. */
	if (now >= uet_rccc_pacer_next(&ci->pacer))
		ci->pacer_idle = true;
	return 0;
}

static uint64_t
cc_next_deadline(const void *inst)
{
	const struct cc_inst *ci = inst;

	if (!ci->cfg.rccc || ci->pacer_idle)
		return UINT64_MAX;
	return uet_rccc_pacer_next(&ci->pacer);
}

static bool
cc_probe_due(void *inst, void *priv)
{
	struct cc_inst *ci = inst;
	struct uet_nscc *n = cc_n(ci, priv);

	if (n == NULL || !uet_nscc_probe_due(n))
		return false;
	uet_nscc_probe_sent(n);
	ci->st.probes++;
	return true;
}

static void
cc_on_probe_ack(void *inst, void *priv, uint64_t rtt_ns)
{
	struct cc_inst *ci = inst;
	struct uet_nscc *n = cc_n(ci, priv);

	if (n == NULL)
		return;
	ci->st.probe_acks++;
	uet_nscc_on_probe_ack(n, &ci->cfg.nscc_params, rtt_ns);
}

static void
cc_rx_data(void *inst, void *priv, uint32_t bytes, bool ooo, bool ce,
	   uint64_t now)
{
	struct cc_inst *ci = inst;
	struct cc_pdc *d = priv;
	int charged;

	(void)ooo; /* ooo_count is the PDS's (packets beyond CACK) */
	/* The library counts UDP length + 40; bytes is that already. */
	uet_nscc_rcv_on_data(&d->rcv, bytes - UET_NSCC_NOMINAL_EXTRA, false,
			     false);
	if (!ci->cfg.rccc || CC_SLOT(d) == CC_SLOT_NONE)
		return;
	charged = uet_rccc_pacer_arrival(&ci->pacer, CC_SLOT(d), bytes, ce,
					 now);
	if (charged > 0)
		ci->st.charged_bytes += (uint64_t)charged;
}

static void
cc_rx_overload(void *inst, void *priv, bool busy)
{
	struct cc_inst *ci = inst;
	struct cc_pdc *d = priv;
	uint32_t pend = ci->cfg.overload_pend ? ci->cfg.overload_pend :
		CC_PEND_DEFAULT;

	if (!busy && d->rcv.pend == 0)
		return;
	if (busy)
		ci->st.overload++;
	uet_nscc_rcv_overload(&d->rcv, busy ? pend : 0);
}

static void
cc_ack_state(void *inst, void *priv, uint64_t service_ns,
	     struct uet_wire_pds_nscc_state *st)
{
	(void)inst;
	uet_nscc_rcv_fill(&((struct cc_pdc *)priv)->rcv, service_ns, st);
}

const struct uet_pds_cc_ops uet_pds_cc_cms = {
	.name = "cms",
	.priv_size = sizeof(struct cc_pdc),
	.create = cc_create,
	.destroy = cc_destroy,
	.init = cc_init,
	.may_send = cc_may_send,
	.on_send = cc_on_send,
	.on_ack = cc_on_ack,
	.on_nack = cc_on_nack,
	.on_nack_rtt = cc_on_nack_rtt,
	.on_trim = cc_on_trim,
	.on_loss = cc_on_loss,
	.cwnd = cc_cwnd,
	.fini = cc_fini,
	.want_ar = cc_want_ar,
	.credit_target = cc_credit_target,
	.on_credit = cc_on_credit,
	.on_credit_request = cc_on_credit_request,
	.poll_grant = cc_poll_grant,
	.next_deadline = cc_next_deadline,
	.probe_due = cc_probe_due,
	.on_probe_ack = cc_on_probe_ack,
	.rx_data = cc_rx_data,
	.rx_overload = cc_rx_overload,
	.ack_state = cc_ack_state,
	.inst_bytes = cc_inst_bytes,
};

/* ---- queries ---- */

int
uet_pds_cc_info_get(const struct uet_pds *p, uint32_t handle,
		    struct uet_pds_cc_info *info)
{
	const struct pds_pdc *c = pds_handle_pdc((struct uet_pds *)p, handle);
	const struct cc_inst *ci = p->cc_inst;
	const struct cc_pdc *d;
	const struct cc_ctx *x;

	if (c == NULL)
		return -ENOENT;
	memset(info, 0, sizeof(*info));
	info->cwnd = p->cc->cwnd(p->cc_inst, pds_cc_priv(p, c));
	if (p->cc != &uet_pds_cc_cms)
		return 0;
	d = pds_cc_priv(p, c);
	info->credit = ci->cfg.rccc && d->src.credit > 0 ?
		       (uint32_t)d->src.credit : 0; /* a debt shows as 0 */
	info->ctx = CC_CTX(d) == CC_CTX_NONE ? UINT32_MAX : CC_CTX(d);
	if (CC_CTX(d) == CC_CTX_NONE)
		return 0;
	x = &ci->ctx[CC_CTX(d)];
	info->inflight = x->n.inflight;
	info->base_rtt_ns = x->n.base_rtt_ns;
	info->avg_delay_ns = (uint32_t)(x->n.avg_delay_q8 >> 8);
	info->max_wnd = x->n.max_wnd;
	info->ctx_refs = x->refs;
	return 0;
}

void
uet_pds_cc_stats_get(const struct uet_pds *p, struct uet_pds_cc_stats *st)
{
	const struct cc_inst *ci = p->cc_inst;

	memset(st, 0, sizeof(*st));
	if (p->cc == &uet_pds_cc_cms && ci != NULL)
		*st = ci->st;
}
