/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * TX side of the PDS hook: PDS descriptors become frames built straight
 * into mbufs (outer headers from a cached per-destination template, PDS
 * header, then the ULP's SES header + payload or the stored response).
 * Bursts of PROTO_BURST, mbufs allocated in bulk, no other allocation.
 */

#include <errno.h>
#include <string.h>

#include <rte_branch_prediction.h>
#include <rte_ip.h>
#include <rte_jhash.h>
#include <rte_mbuf.h>
#include <rte_udp.h>

#include <uet/uet_wire_csum.h>

#include "proto_private.h"

bool
proto_fa_is_v4(const uint8_t fa[16])
{
	static const uint8_t zero[12];

	/* struct uet_pds_fa: IPv4 in the first 4 bytes, the rest zero */
	return memcmp(fa + 4, zero, sizeof(zero)) == 0;
}

static uint32_t
fa_hash(const uint8_t fa[16])
{
	return rte_jhash(fa, 16, 0x55e7);
}

/* The outer header template of @p fa: the last one used, else the
 * direct-mapped cache, else built (engine addresses, neighbour-free). */
static const struct proto_dst *
dst_template(struct uet_ulp_ctx *ctx, const uint8_t fa[16])
{
	struct proto_dst *d = ctx->dst_last;

	if (likely(d != NULL && memcmp(d->fa, fa, 16) == 0))
		return d;
	d = &ctx->dst[fa_hash(fa) % PROTO_DST_CACHE];
	if (likely(d->valid && memcmp(d->fa, fa, 16) == 0)) {
		ctx->dst_last = d;
		return d;
	}
	if (d == ctx->dst_last)
		ctx->dst_last = NULL;
	d->valid = false;
	if (uet_engine_outer_prepare(ctx->lc, ctx->port,
				     proto_fa_is_v4(fa) ? 4 : 6, fa,
				     &d->o) < 0 ||
	    uet_wire_outer_tpl_init(&d->tpl, &d->o) < 0)
		return NULL;
	memcpy(d->fa, fa, 16);
	d->valid = true;
	ctx->dst_last = d;
	return d;
}

static uint32_t
req_psn(const struct uet_wire_pds_hdr *h)
{
	if (uet_wire_pds_type_is_req(h->type))
		return h->u.req.psn;
	if (h->type == UET_PDS_TYPE_RUDI_REQ)
		return h->u.rudi.pkt_id;
	return 0;
}

/*
 * Whether the checksum of a frame to @p t is requested as from the port's
 * offload: the port's, or [tss] over IPv4, where the sealer decides
 * (tss_tx.c): a protected frame carries none (its ICV covers more,
 * docs/WIRE-DECISIONS.md), one that stays clear is completed there (or by
 * local delivery); no sum is computed here that sealing would throw away.
 */
static bool
csum_deferred(const struct uet_ulp_ctx *ctx, const struct uet_wire_outer_tpl *t)
{
	return ctx->csum_offload || (ctx->tss && t->ip_version == 4);
}

/*
 * UDP checksum of a built frame (port.udp_checksum; IPv6 always): the
 * port's offload (pseudo-header sum in the field, as DPDK's offload
 * contract says; also [tss] over IPv4: csum_deferred()) or the vectorised
 * software sum (uet_wire_csum_udp(); DPDK's rte_ipv4/6_udptcp_cksum add
 * 16 bits per step). @p ulp_sum, when not NULL, is the sum of the bytes
 * from @p ulp_off on, taken by the ULP while it copied them: only the
 * headers are summed here. Native-IP frames have none.
 */
static void
udp_csum_fill(const struct uet_ulp_ctx *ctx, const struct uet_wire_outer_tpl *t,
	      struct rte_mbuf *m, uint8_t *buf, const uint32_t *ulp_sum,
	      size_t ulp_off)
{
	struct rte_udp_hdr *udp = (struct rte_udp_hdr *)(buf + t->l4_off);
	const void *ip = buf + t->l3_off;
	bool v4 = t->ip_version == 4;
	uint32_t sum, len;
	uint16_t c;

	if (csum_deferred(ctx, t)) {
		m->l2_len = t->l3_off;
		m->l3_len = (uint16_t)(t->l4_off - t->l3_off);
		m->ol_flags |= RTE_MBUF_F_TX_UDP_CKSUM |
			       (v4 ? RTE_MBUF_F_TX_IPV4 : RTE_MBUF_F_TX_IPV6);
		udp->dgram_cksum = v4 ? rte_ipv4_phdr_cksum(ip, m->ol_flags) :
					rte_ipv6_phdr_cksum(ip, m->ol_flags);
		return;
	}
	udp->dgram_cksum = 0;
	if (ulp_sum != NULL) {
		sum = uet_wire_csum_pseudo(ip, &len);
		sum = uet_wire_csum_partial(udp, ulp_off - t->l4_off, sum);
		sum += *ulp_sum;
	} else {
		sum = uet_wire_csum_udp(ip, udp);
	}
	c = (uint16_t)~uet_wire_csum_fold(sum);
	/* RFC 768: a computed zero is sent as all ones */
	udp->dgram_cksum = c == 0 ? 0xFFFF : c;
}

/*
 * The SES header and payload of request @p t into @p dst. When the frame's
 * checksum is computed here (@p sum not NULL) and the ULP sums while it
 * copies, *sum is their sum and stays set; else *sum is cleared (NULL) and
 * the checksum pass reads the frame.
 */
static int
ulp_build(struct uet_ulp_ctx *ctx, const struct uet_pds_tx *t, uint8_t *dst,
	  size_t cap, uint32_t **sum)
{
	bool retx = t->kind == UET_PDS_TX_RETX;

	if (*sum != NULL && ctx->ulp->build_csum != NULL)
		return ctx->ulp->build_csum(ctx->ulp_priv, t->cookie,
					    req_psn(&t->hdr), retx, dst, cap,
					    *sum);
	*sum = NULL;
	return ctx->ulp->build(ctx->ulp_priv, t->cookie, req_psn(&t->hdr),
			       retx, dst, cap);
}

/*
 * Zero-copy transmit (port.tx_zero_copy): the ULP writes its header
 * behind the @p off header bytes already in @p m and, for a large
 * payload, names it instead of copying it; that payload becomes a second
 * segment, an mbuf attached to it (no IOVA: port.c allows this only on
 * drivers that read frames by virtual address), one more reference
 * counted on the ULP's shared info until the driver frees the frame.
 */
static int
frame_build_ref(struct uet_ulp_ctx *ctx, const struct uet_pds_tx *t,
		struct rte_mbuf *m, size_t off, uint16_t body)
{
	uint8_t *buf = rte_pktmbuf_mtod(m, uint8_t *);
	struct uet_ulp_ref ref = { .len = 0 };
	struct rte_mbuf *seg;
	int bl;

	bl = ctx->ulp->build_ref(ctx->ulp_priv, t->cookie, req_psn(&t->hdr),
				 t->kind == UET_PDS_TX_RETX, buf + off,
				 rte_pktmbuf_tailroom(m) - off,
				 PROTO_TX_REF_MIN, &ref);
	if (unlikely(bl == -ENOENT))
		return -ENOENT; /* gone for good: uet_pds_tx_unbuildable() */
	if (unlikely(bl < 0 || (uint32_t)bl + ref.len != body ||
		     ref.len > UINT16_MAX))
		return -EINVAL;
	if (rte_pktmbuf_append(m, (uint16_t)(off + (size_t)bl)) == NULL)
		return -ENOSPC;
	if (ref.len == 0)
		return 0;
	if (unlikely(uet_engine_mbuf_alloc_bulk(ctx->lc, ctx->port, &seg,
						1) != 0))
		return -ENOBUFS;
	rte_mbuf_ext_refcnt_update(ref.shinfo, 1);
	rte_pktmbuf_attach_extbuf(seg, (void *)(uintptr_t)ref.addr,
				  RTE_BAD_IOVA, (uint16_t)ref.len, ref.shinfo);
	seg->data_len = (uint16_t)ref.len;
	seg->pkt_len = ref.len;
	if (unlikely(rte_pktmbuf_chain(m, seg) != 0)) {
		rte_pktmbuf_free(seg);
		return -EOVERFLOW;
	}
	PROTO_INC(ctx->st.tx_ref);
	return 0;
}

/* Build the frame of descriptor @p t into @p m; 0 or -errno (-ENOENT: the
 * ULP no longer knows the cookie). */
static int
frame_build(struct uet_ulp_ctx *ctx, const struct uet_pds_tx *t,
	    struct rte_mbuf *m)
{
	const struct proto_dst *d = dst_template(ctx, t->dst.addr);
	uint8_t *buf = rte_pktmbuf_mtod(m, uint8_t *);
	size_t cap = rte_pktmbuf_tailroom(m);
	size_t hl = uet_wire_pds_hdr_size(&t->hdr);
	bool ctl = t->kind == UET_PDS_TX_CTL;
	uint16_t body = ctl ? t->resp_len : t->len;
	bool csum = d != NULL &&
		    (d->tpl.ip_version == 6 ? ctx->csum_v6 : ctx->csum_v4);
	uint32_t sum, *ulp_sum = NULL;
	uint8_t dscp, ecn;
	size_t ol;
	int pl, bl;

	if (unlikely(d == NULL || hl == 0 ||
		     d->tpl.len + hl + body > cap ||
		     hl + body > UINT16_MAX - UET_IPV6_HLEN - UET_UDP_HLEN))
		return -EINVAL;
	/* UEC 1.0 DSCP classes: DSCP per class, data ECT(0) */
	if (ctl) {
		dscp = ctx->dscp_ctl;
		ecn = UET_ECN_NOT_ECT;
	} else {
		dscp = t->kind == UET_PDS_TX_RETX ? ctx->dscp_retx :
						    ctx->dscp_data;
		ecn = UET_ECN_ECT0;
	}
	/* The EV as the PDS gave it: the CMS chose it (requests) or it
	 * echoes the answered packet's (ACKs, NACKs); nothing here
	 * rewrites it (UEC 1.0 section 3.6.16). */
	ol = uet_wire_outer_tpl_write(&d->tpl, buf, (uint16_t)(hl + body), dscp,
				 ecn, t->ev);
	pl = uet_wire_pds_hdr_encode(&t->hdr, buf + ol, cap - ol);
	if (unlikely(pl < 0 || (size_t)pl != hl))
		return -EINVAL;
	/* the ULP's sum adds to the headers' when its bytes start at an
	 * even offset of the datagram (PDS headers are 4-byte multiples) */
	if (csum && !csum_deferred(ctx, &d->tpl) &&
	    ((ol + hl - d->tpl.l4_off) & 1) == 0)
		ulp_sum = &sum;
	if (ctl) {
		if (body != 0)
			memcpy(buf + ol + hl, t->resp, body);
	} else if (ctx->tx_ref && !csum && ctx->ulp->build_ref != NULL) {
		return frame_build_ref(ctx, t, m, ol + hl, body);
	} else {
		bl = ulp_build(ctx, t, buf + ol + hl, cap - (ol + hl), &ulp_sum);
		if (unlikely(bl != (int)body))
			return bl == -ENOENT ? -ENOENT : -EINVAL;
	}
	if (rte_pktmbuf_append(m, (uint16_t)(ol + hl + body)) == NULL)
		return -ENOSPC;
	if (csum)
		udp_csum_fill(ctx, &d->tpl, m, buf, ctl ? NULL : ulp_sum,
			      ol + hl);
	if (ctx->tss)
		uet_engine_tx_meta_set(ctx->lc, m, &d->tpl, &t->hdr);
	return 0;
}

static void
tx_count(struct uet_ulp_ctx *ctx, uint8_t kind)
{
	if (kind == UET_PDS_TX_NEW)
		PROTO_INC(ctx->st.tx_new);
	else if (kind == UET_PDS_TX_RETX)
		PROTO_INC(ctx->st.tx_retx);
	else
		PROTO_INC(ctx->st.tx_ctl);
}

/* Send @p n descriptors of ctx->txd; returns frames queued. */
static uint16_t
tx_descs(struct uet_ulp_ctx *ctx, uint16_t n)
{
	uint16_t queued = 0;

	/* A descriptor taken from the PDS and not sent is a loss on the
	 * wire for the PDS: it retransmits (requests) or the peer asks
	 * again (ACKs). */
	if (unlikely(uet_engine_mbuf_alloc_bulk(ctx->lc, ctx->port, ctx->mb,
						n) != 0)) {
		PROTO_ADD(ctx->st.tx_nombuf, n);
		return 0;
	}
	for (uint16_t i = 0; i < n; i++) {
		const struct uet_pds_tx *t = &ctx->txd[i];
		struct rte_mbuf *m = ctx->mb[i];

		int rc = frame_build(ctx, t, m);

		if (unlikely(rc < 0)) {
			PROTO_INC(ctx->st.tx_build_err);
			/* never buildable again (an operation withdrawn
			 * with force): its PDC fails instead of resending
			 * it for good */
			if (rc == -ENOENT)
				(void)uet_pds_tx_unbuildable(ctx->pds, t,
							     ctx->now);
			rte_pktmbuf_free(m);
			continue;
		}
		if (unlikely(uet_engine_tx_ip(ctx->lc, ctx->port, m) < 0)) {
			PROTO_INC(ctx->st.tx_queue_err);
			rte_pktmbuf_free(m);
			continue;
		}
		tx_count(ctx, t->kind);
		queued++;
	}
	return queued;
}

uint16_t
proto_tx_ready(void *priv, struct uet_engine_lcore *lc, uint64_t now)
{
	struct uet_ulp_ctx *ctx = priv;
	unsigned int work = 0;
	uint16_t queued = 0;

	ctx->now = now;
	if (ctx->ulp->poll != NULL)
		work = ctx->ulp->poll(ctx->ulp_priv, ctx, now);
	for (;;) {
		uint16_t space = uet_engine_tx_space(lc, ctx->port);
		uint16_t want = space < PROTO_BURST ? space : PROTO_BURST;
		uint16_t n;

		if (want == 0)
			break;
		n = uet_pds_tx_burst(ctx->pds, now, ctx->txd, want);
		if (n == 0)
			break;
		queued += tx_descs(ctx, n);
		if (n < want)
			break;
	}
	/* UUD completes on transmission */
	work += proto_events(ctx);
	return (uint16_t)RTE_MIN(queued + work, (unsigned int)UINT16_MAX);
}
