/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The simulated network: Ethernet/IPv6/UDP frames built and parsed with
 * the real wire codecs (src/wire), a heap of packets ordered by arrival
 * time, and the adversary's network faults. IPv6 so that the UDP checksum
 * is always there: a flipped bit is caught by the receive path as the
 * engine's (pmd/core/loop.c) catches it, never handed on as good data.
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dst.h"

#define DST_DSCP_DATA 10
/* Copies DST_F_HOLD keeps in a run at most (the pool is the network's) */
#define DST_HELD_MAX 256

int
dst_net_init(struct dst_sim *s)
{
	uint32_t i;

	s->pool = calloc(DST_PKTS_MAX, sizeof(*s->pool));
	s->heap = calloc(DST_PKTS_MAX, sizeof(*s->heap));
	s->free = calloc(DST_PKTS_MAX, sizeof(*s->free));
	if (s->pool == NULL || s->heap == NULL || s->free == NULL)
		return -ENOMEM;
	for (i = 0; i < DST_PKTS_MAX; i++)
		s->free[i] = &s->pool[i];
	s->nfree = DST_PKTS_MAX;
	return 0;
}

void
dst_net_fini(struct dst_sim *s)
{
	free(s->pool);
	free(s->heap);
	free(s->free);
}

void
dst_net_reset(struct dst_sim *s)
{
	while (s->nheap > 0)
		s->free[s->nfree++] = s->heap[--s->nheap];
}

static bool
pkt_before(const struct dst_pkt *a, const struct dst_pkt *b)
{
	return a->at < b->at || (a->at == b->at && a->seq < b->seq);
}

static void
heap_push(struct dst_sim *s, struct dst_pkt *p)
{
	uint32_t i = s->nheap++, up;

	while (i > 0) {
		up = (i - 1) / 2;
		if (!pkt_before(p, s->heap[up]))
			break;
		s->heap[i] = s->heap[up];
		i = up;
	}
	s->heap[i] = p;
}

static struct dst_pkt *
heap_pop(struct dst_sim *s)
{
	struct dst_pkt *top = s->heap[0], *last = s->heap[--s->nheap];
	uint32_t i = 0, c;

	while ((c = 2 * i + 1) < s->nheap) {
		if (c + 1 < s->nheap && pkt_before(s->heap[c + 1], s->heap[c]))
			c++;
		if (!pkt_before(s->heap[c], last))
			break;
		s->heap[i] = s->heap[c];
		i = c;
	}
	if (s->nheap > 0)
		s->heap[i] = last;
	return top;
}

uint64_t
dst_net_next(const struct dst_sim *s)
{
	return s->nheap ? s->heap[0]->at : UINT64_MAX;
}

int
dst_node_of(const struct dst_sim *s, const struct uet_pds_fa *fa)
{
	int i;

	for (i = 0; i < s->plan->nnodes; i++)
		if (memcmp(&s->node[i].fa, fa, sizeof(*fa)) == 0)
			return i;
	return -1;
}

static bool
link_match(const struct dst_fault_spec *f, int a, int b)
{
	if (f->kind == DST_F_PARTITION)
		return (f->a == a && (f->b == 0xFF || f->b == b)) ||
		       (f->a == b && (f->b == 0xFF || f->b == a));
	return f->a == a && (f->b == 0xFF || f->b == b);
}

bool
dst_fault_on(const struct dst_sim *s, unsigned int kind, int a, int b,
	     const struct dst_fault_spec **out)
{
	const struct dst_plan *p = s->plan;
	uint32_t i;

	for (i = 0; i < p->nfault; i++) {
		const struct dst_fault_spec *f = &p->fault[i];

		if (f->kind != kind || s->now < f->at ||
		    s->now >= f->at + f->dur || !link_match(f, a, b))
			continue;
		if (out != NULL)
			*out = f;
		return true;
	}
	return false;
}

static bool
chance(struct dst_sim *s, uint32_t ppm)
{
	return ppm >= 1000000 || uet_rand_below(&s->rng, 1000000) < ppm;
}

/* A fault of @p kind on a -> b fires for this packet. */
static bool
fault_hits(struct dst_sim *s, unsigned int kind, int a, int b,
	   const struct dst_fault_spec **f)
{
	const struct dst_fault_spec *x;

	if (!dst_fault_on(s, kind, a, b, &x))
		return false;
	if (f != NULL)
		*f = x;
	return chance(s, x->ppm);
}

/* Ethernet / IPv6 / UDP around the PDS header and the SES bytes. */
static int
build_frame(struct dst_sim *s, int from, int to, const struct uet_pds_tx *t,
	    struct dst_pkt *pk, struct uet_wire_outer *o)
{
	size_t hl = uet_wire_pds_hdr_size(&t->hdr);
	int off, n, pl = t->kind == UET_PDS_TX_CTL ? t->resp_len : t->len;

	uet_wire_outer_init(o, 6);
	memcpy(o->src_addr, s->node[from].fa.addr, 16);
	memcpy(o->dst_addr, s->node[to].fa.addr, 16);
	o->src_mac[5] = (uint8_t)from;
	o->dst_mac[5] = (uint8_t)to;
	o->dscp = DST_DSCP_DATA;
	o->udp_sport = t->ev;
	o->inner_len = (uint16_t)(hl + (size_t)pl);
	off = uet_wire_outer_encode(o, pk->frame, sizeof(pk->frame));
	if (off < 0)
		return off;
	o->hdr_len = (uint16_t)off;
	n = uet_wire_pds_hdr_encode(&t->hdr, pk->frame + off,
			       sizeof(pk->frame) - (size_t)off);
	if (n < 0)
		return n;
	off += n;
	if (t->kind != UET_PDS_TX_CTL) {
		n = uet_ses_build(s->node[from].ses, t->cookie,
				  t->hdr.u.req.psn, pk->frame + off,
				  sizeof(pk->frame) - (size_t)off);
		if (n != pl)
			return n < 0 ? n : -EBADMSG;
	} else if (pl > 0) {
		memcpy(pk->frame + off, t->resp, (size_t)pl);
	}
	pk->len = (uint16_t)(off + pl);
	return uet_wire_outer_udp_csum_fill(o, pk->frame, pk->len);
}

static struct dst_pkt *
enqueue(struct dst_sim *s, const struct dst_pkt *src, uint64_t at)
{
	struct dst_pkt *p;

	if (s->nfree == 0) {
		s->dropped++;
		return NULL;
	}
	p = s->free[--s->nfree];
	*p = *src;
	p->at = at;
	p->born = s->now;
	p->held = false;
	p->seq = ++s->seq;
	heap_push(s, p);
	return p;
}

static bool
is_pdc_request(uint8_t type)
{
	return type == UET_PDS_TYPE_RUD_REQ || type == UET_PDS_TYPE_ROD_REQ ||
	       type == UET_PDS_TYPE_RUD_CC_REQ ||
	       type == UET_PDS_TYPE_ROD_CC_REQ;
}

/*
 * Generator 7 (DST_F_HOLD): the network keeps a copy of a request sent on
 * a PDC and lets it go late: just after its receiver restarts
 * (dst_net_release()), else at the fault's end, and never later than the
 * maximum packet lifetime after it was sent (UEC 1.0 3.5 PDC
 * establishment: a network that keeps a packet longer is outside the
 * spec, and the receiver's quiet time counts on it). A copy of a SYN sent
 * to a node's previous incarnation so reaches the new one, which keeps no
 * record of what its predecessor accepted.
 */
static void
hold(struct dst_sim *s, int from, int to, const struct uet_pds_tx *t,
     const struct dst_pkt *pk)
{
	const struct dst_fault_spec *f;
	struct dst_pkt *c;
	uint64_t at;

	if (!is_pdc_request(t->hdr.type) || s->held >= DST_HELD_MAX ||
	    !fault_hits(s, DST_F_HOLD, from, to, &f))
		return;
	at = f->at + f->dur + s->plan->node[from].delay_ns;
	if (at >= s->now + DST_MPL_NS)
		at = s->now + DST_MPL_NS - 1;
	c = enqueue(s, pk, at);
	if (c == NULL)
		return;
	c->held = true;
	s->held++;
	dst_trace(s, "n%d>n%d psn %u%s: a copy HELD until %.3f ms or n%d "
		  "restarts", from, to, t->hdr.u.req.psn,
		  t->hdr.flags & UET_PDS_F_SYN ? " SYN" : "", (double)at / 1e6,
		  to);
}

/* Restore the heap property of the whole heap (after times changed). */
static void
heap_rebuild(struct dst_sim *s)
{
	uint32_t n = s->nheap, i;

	s->nheap = 0;
	for (i = 0; i < n; i++)
		heap_push(s, s->heap[i]);
}

void
dst_net_release(struct dst_sim *s, int to)
{
	uint32_t i, n = 0;

	for (i = 0; i < s->nheap; i++) {
		struct dst_pkt *p = s->heap[i];

		if (!p->held || p->to != to)
			continue;
		/* the path's delay and a few us: the node is up by then */
		p->at = s->now + s->plan->node[p->from].delay_ns +
			uet_rand_below(&s->rng, 20000);
		if (p->at >= p->born + DST_MPL_NS)
			p->at = p->born + DST_MPL_NS - 1;
		p->held = false;
		n++;
	}
	if (n == 0)
		return;
	heap_rebuild(s);
	dst_trace(s, "n%d restarted: %u held copies released", to, n);
}

/* Switch trimming (UEC 1.0 packet trimming): keep the PDS header, re-mark
 * the DSCP; a variant also rewrites the UDP length (and zeroes the UDP
 * checksum it can no longer vouch for). */
static void
trim(struct dst_pkt *pk, struct uet_wire_outer *o, uint8_t type, uint32_t how)
{
	size_t keep = uet_wire_pds_hdr_len(type);
	int n = uet_wire_outer_frame_trim(o, pk->frame, pk->len, keep,
				     DST_TRIM_DSCP, (how & 1) != 0);
	uint8_t *udp;
	uint16_t ul;

	if (n < 0)
		return;
	pk->len = (uint16_t)n;
	if (how & 2) {
		udp = pk->frame + o->hdr_len - UET_UDP_HLEN;
		ul = (uint16_t)(UET_UDP_HLEN + keep);
		udp[4] = (uint8_t)(ul >> 8);
		udp[5] = (uint8_t)ul;
		udp[6] = 0;
		udp[7] = 0;
	}
}

/* The sender's link serializes its packets (a burst spreads out in
 * time), then the path adds its delay and the faults theirs. */
static uint64_t
delay_of(struct dst_sim *s, int from, int to, uint16_t len)
{
	const struct dst_node_spec *ns = &s->plan->node[from];
	struct dst_node *n = &s->node[from];
	const struct dst_fault_spec *f;
	uint64_t start = n->link_free > s->now ? n->link_free : s->now;
	uint64_t d;

	n->link_free = start + (uint64_t)len * 8 / ns->gbps;
	d = n->link_free - s->now + ns->delay_ns;

	if (fault_hits(s, DST_F_REORDER, from, to, &f))
		d += uet_rand_below(&s->rng, f->arg * 1000 + 1);
	if (fault_hits(s, DST_F_SPIKE, from, to, &f))
		d += (uint64_t)f->arg * 1000000;
	return d;
}

static bool
lost(struct dst_sim *s, int from, int to, uint16_t ev)
{
	const struct dst_fault_spec *f;

	if (dst_fault_on(s, DST_F_PARTITION, from, to, NULL))
		return true;
	if (dst_fault_on(s, DST_F_PATH, from, to, &f) &&
	    (ev & 7u) == (f->arg & 7u))
		return true;
	return fault_hits(s, DST_F_LOSS, from, to, NULL);
}

/* Generator 4: while a node's MR table is off (flapping), the ACKs that
 * carry its SES responses (its refusals) are lost, so the initiator must
 * get each again from the target's stored copy (UEC 1.0 3.5.20.1 3.b). */
static bool
resp_lost(const struct dst_sim *s, int from, const struct uet_pds_tx *t)
{
	return s->plan->gen >= 4 && s->node[from].mr_off_how != 0 &&
	       t->resp_len != 0 && (t->hdr.type == UET_PDS_TYPE_ACK ||
				    t->hdr.type == UET_PDS_TYPE_ACK_CC);
}

/* Generator 6: a node with a restart fault restarts right after it sends
 * an ACK carrying read data (RESPONSE_DATA_SMALL: a small READ, a fetching
 * atomic, a rendezvous read-back), from the start of the run to the end
 * of the fault, and that ACK is lost: the reader can get the data only
 * from the stored copy the restart takes away (UEC 1.0 3.5.20.2.2), so
 * whatever the node took as done on answering shows (a rendezvous send
 * answered in the READ's ACK, generator 3 seed 1009800). Without such an
 * ACK the node restarts at the end of the fault. A restart of no duration
 * (a scenario's, generator 7) acts at its time only. */
static bool
restart_on_answer(struct dst_sim *s, int from, const struct uet_pds_tx *t)
{
	const struct dst_plan *p = s->plan;
	uint32_t i;

	if (p->gen < 6 || t->resp_len == 0 ||
	    t->hdr.next_hdr != UET_PDS_NEXT_RESPONSE_DATA_SMALL ||
	    (t->hdr.type != UET_PDS_TYPE_ACK &&
	     t->hdr.type != UET_PDS_TYPE_ACK_CC))
		return false;
	for (i = 0; i < p->nfault; i++) {
		const struct dst_fault_spec *f = &p->fault[i];

		if (f->kind != DST_F_RESTART || f->a != from ||
		    f->dur == 0 || s->now >= f->at + f->dur ||
		    ((s->fault_done | s->restart_now) >> i) & 1)
			continue;
		s->restart_now |= 1ull << i;
		return true;
	}
	return false;
}

/* The SES response an ACK carries: its opcode, code and length. */
static const char *
resp_str(const struct uet_pds_tx *t, char *buf)
{
	struct uet_wire_ses_resp r;

	buf[0] = '\0';
	if (t->resp_len == 0 ||
	    uet_wire_ses_resp_decode(t->resp, t->resp_len,
				     (enum uet_wire_ses_resp_fmt)t->hdr.next_hdr,
				     &r) < 0)
		return buf;
	snprintf(buf, 64, " resp op %u rc %u msg %u len %u", r.opcode,
		 r.return_code, r.message_id, r.modified_length);
	return buf;
}

/* One line per packet sent: who, what, and what the network did to it. */
static void
trace_tx(struct dst_sim *s, int from, int to, const struct uet_pds_tx *t,
	 const char *what)
{
	const struct uet_wire_pds_hdr *h = &t->hdr;
	char f[32], r[64];

	if (!dst_tracing(s))
		return;
	snprintf(f, sizeof(f), "%s%s%s%s", h->flags & UET_PDS_F_SYN ? " SYN" :
		 "", h->flags & UET_PDS_F_RETX ? " RETX" : "",
		 h->flags & UET_PDS_F_M ? " M" : "",
		 h->flags & UET_PDS_F_AR ? " AR" : "");
	switch (h->type) {
	case UET_PDS_TYPE_RUD_REQ:
	case UET_PDS_TYPE_ROD_REQ:
	case UET_PDS_TYPE_RUD_CC_REQ:
	case UET_PDS_TYPE_ROD_CC_REQ:
		dst_trace(s, "n%d>n%d %s spdc %u dpdc %u psn %u len %u ev %u%s "
			  "%s", from, to, uet_wire_pds_type_name(h->type),
			  h->u.req.spdcid, h->u.req.dpdcid, h->u.req.psn,
			  t->len, t->ev, f, what);
		break;
	case UET_PDS_TYPE_ACK:
	case UET_PDS_TYPE_ACK_CC:
	case UET_PDS_TYPE_ACK_CCX:
		dst_trace(s, "n%d>n%d %s spdc %u dpdc %u cack %u ack %+d ev %u"
			  "%s%s %s", from, to, uet_wire_pds_type_name(h->type),
			  h->u.ack.spdcid, h->u.ack.dpdcid, h->u.ack.cack_psn,
			  h->u.ack.ack_psn_offset, t->ev, f, resp_str(t, r),
			  what);
		break;
	case UET_PDS_TYPE_NACK:
		dst_trace(s, "n%d>n%d NACK %s spdc %u dpdc %u psn %u ev %u%s %s",
			  from, to, uet_wire_pds_nack_code_name(h->u.nack.code),
			  h->u.nack.spdcid, h->u.nack.dpdcid, h->u.nack.psn,
			  t->ev, f, what);
		break;
	case UET_PDS_TYPE_CP:
		dst_trace(s, "n%d>n%d CP %s spdc %u dpdc %u psn %u ev %u%s %s",
			  from, to, uet_wire_pds_ctl_type_name(h->next_hdr),
			  h->u.cp.spdcid, h->u.cp.dpdcid, h->u.cp.psn, t->ev, f,
			  what);
		break;
	default:
		dst_trace(s, "n%d>n%d %s%s %s", from, to,
			  uet_wire_pds_type_name(h->type), f, what);
		break;
	}
}

void
dst_net_send(struct dst_sim *s, int from, const struct uet_pds_tx *t)
{
	static struct dst_pkt pk;
	const struct dst_fault_spec *f;
	const char *what = "";
	struct uet_wire_outer o;
	int to = dst_node_of(s, &t->dst), rc;
	uint64_t at;

	s->sent++;
	if (to < 0) {
		dst_fail(s, "tx-dest", "node %d sends to an unknown FA", from);
		return;
	}
	rc = build_frame(s, from, to, t, &pk, &o);
	if (rc < 0) {
		/* a cookie the SES no longer knows (an operation withdrawn
		 * with force): the PDS fails the PDC, as the engine has it */
		dst_trace(s, "n%d build failed rc %d type %u cookie %llu", from,
			  rc, t->hdr.type, (unsigned long long)t->cookie);
		if (rc == -ENOENT)
			(void)uet_pds_tx_unbuildable(s->node[from].pds, t,
						     s->now);
		s->dropped++;
		return;
	}
	pk.from = (uint8_t)from;
	pk.to = (uint8_t)to;
	dst_tap_tx(s, from, to, t);
	if (lost(s, from, to, t->ev) || resp_lost(s, from, t) ||
	    restart_on_answer(s, from, t)) {
		s->dropped++;
		trace_tx(s, from, to, t, "LOST");
		return;
	}
	if (t->kind != UET_PDS_TX_CTL &&
	    fault_hits(s, DST_F_TRIM, from, to, &f)) {
		trim(&pk, &o, t->hdr.type, f->arg);
		what = "TRIMMED";
	}
	if (fault_hits(s, DST_F_CE, from, to, &f) &&
	    (t->ev & 3u) == (f->arg & 3u)) {
		uet_wire_outer_frame_ecn_set(&o, pk.frame, pk.len, UET_ECN_CE);
		what = what[0] ? "TRIMMED CE" : "CE";
	}
	/* A trimmed frame has no checksum the receiver can verify (only the
	 * link's FCS would catch a flip): bits flip in whole frames only. */
	if (what[0] == '\0' && fault_hits(s, DST_F_CORRUPT, from, to, NULL)) {
		rc = (int)uet_rand_below(&s->rng, pk.len);
		pk.frame[rc] ^= (uint8_t)(1u << uet_rand_below(&s->rng, 8));
		what = "CORRUPTED";
	}
	at = s->now + delay_of(s, from, to, pk.len);
	enqueue(s, &pk, at);
	hold(s, from, to, t, &pk);
	if (fault_hits(s, DST_F_DUP, from, to, NULL)) {
		enqueue(s, &pk, s->now + delay_of(s, from, to, pk.len));
		what = "DUPLICATED";
	}
	if (at > s->now + 1000000)
		what = "DELAYED";
	trace_tx(s, from, to, t, what);
}

/* The receive classification of the engine (pmd/core/loop.c rx_classify). */
static bool
rx_accept(struct dst_sim *s, const struct uet_wire_pkt *pkt, int rc)
{
	if ((pkt->err_layer == UET_PKT_LAYER_NONE ||
	     pkt->err_layer >= UET_PKT_LAYER_PDS) &&
	    !pkt->outer.trimmed && pkt->outer.udp_csum == 0)
		return false; /* IPv6 without UDP checksum (RFC 8200) */
	if (rc < 0 && pkt->err_layer < UET_PKT_LAYER_SES) {
		s->corrupt_rejected++;
		return false;
	}
	return true;
}

uint32_t
dst_net_deliver(struct dst_sim *s)
{
	static const struct uet_wire_outer_opts opts = {
		.trim_dscps = UET_OUTER_DSCP_BIT(DST_TRIM_DSCP),
	};
	struct uet_wire_pkt pkt;
	struct dst_pkt *p;
	uint32_t n = 0;
	int rc;

	while (s->nheap > 0 && s->heap[0]->at <= s->now && !s->failed) {
		p = heap_pop(s);
		if (s->now - p->born >= DST_MPL_NS) {
			/* past its lifetime: the network has dropped it */
			s->expired++;
			dst_trace(s, "n%d>n%d packet sent at %.3f ms EXPIRED",
				  p->from, p->to, (double)p->born / 1e6);
			s->free[s->nfree++] = p;
			continue;
		}
		if (s->node[p->to].stall_until > s->now) {
			/* the node is not running: it finds the packet in its
			 * queue when it wakes, in arrival order */
			p->at = s->node[p->to].stall_until;
			heap_push(s, p);
			continue;
		}
		rc = uet_wire_pkt_parse_ex(p->frame, p->len, &opts, &pkt);
		if (rx_accept(s, &pkt, rc)) {
			dst_node_rx(s, p->to, p->from, p->frame, &pkt);
			n++;
		}
		s->free[s->nfree++] = p;
	}
	return n;
}
