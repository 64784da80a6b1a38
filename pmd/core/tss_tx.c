/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * TSS on the TX path (see tss_path.c): the domain of a frame, and the
 * staged frames of a port sealed as one cryptodev burst before they go
 * out (and before TX fault injection, which then acts on the wire).
 */

#include <errno.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_ip.h>
#include <rte_jhash.h>
#include <rte_mbuf.h>
#include <rte_mbuf_dyn.h>
#include <rte_udp.h>

#include <uet/uet_wire_csum.h>

#include "tss_private.h"

/* ------------------------------------------------------------------ */
/* the domain of a frame                                               */
/* ------------------------------------------------------------------ */

int
tss_job_dom(const struct engine_tss *e, uint8_t type, bool trimmed,
	    const uint8_t *ses, size_t len, unsigned int next_hdr, uint8_t *dom)
{
	uint32_t job;
	int d, rc;

	if (type == UET_PDS_TYPE_CP || trimmed)
		return -1;
	/* the JobID field only: the SES above decodes the header */
	rc = uet_wire_ses_job_id(ses, len, next_hdr, &job);
	if (rc == -UET_WIRE_E_BAD_NEXT_HDR)
		return -1;
	if (rc < 0)
		return -2;
	d = uet_config_tss_domain_of(&e->cfg, job);
	*dom = d < 0 ? DOM_CLEAR : DOM_OF(d);
	return 0;
}

int
tss_frame_job_dom(const struct engine_tss *e, const struct uet_wire_pkt *p,
		  const uint8_t *frame, uint8_t *dom)
{
	return tss_job_dom(e, p->pds.type, p->outer.trimmed,
			   frame + p->ses_off, p->payload_len, p->pds.next_hdr,
			   dom);
}

bool
tss_pdc_ids(const struct uet_wire_pds_hdr *h, uint16_t *src, uint16_t *dst,
	    bool *has_dst)
{
	*has_dst = true;
	if (uet_wire_pds_type_is_req(h->type)) {
		*src = h->u.req.spdcid;
		*dst = h->u.req.dpdcid;
		*has_dst = (h->flags & UET_PDS_F_SYN) == 0;
	} else if (uet_wire_pds_type_is_ack(h->type)) {
		*src = h->u.ack.spdcid;
		*dst = h->u.ack.dpdcid;
	} else if (uet_wire_pds_type_is_nack(h->type)) {
		*src = h->u.nack.spdcid;
		*dst = h->u.nack.dpdcid;
	} else if (h->type == UET_PDS_TYPE_CP) {
		*src = h->u.cp.spdcid;
		*dst = h->u.cp.dpdcid;
		*has_dst = (h->flags & UET_PDS_F_SYN) == 0;
	} else {
		return false;
	}
	return true;
}

static struct tss_peer *
peer_slot(const struct engine_tss_lc *t, const uint8_t fa[16], uint16_t pdcid)
{
	/* the address may sit unaligned in a decoded frame: rte_jhash
	 * reads 32-bit words */
	uint32_t key[4], h;

	memcpy(key, fa, sizeof(key));
	h = rte_jhash_32b(key, RTE_DIM(key), pdcid);
	return (struct tss_peer *)&t->peer[h % TSS_PEERS];
}

uint8_t
tss_peer_get(const struct engine_tss_lc *t, const uint8_t fa[16],
	     uint16_t pdcid)
{
	const struct tss_peer *p = peer_slot(t, fa, pdcid);

	if (p->dom != DOM_UNKNOWN && p->pdcid == pdcid &&
	    memcmp(p->fa, fa, 16) == 0)
		return p->dom;
	return DOM_UNKNOWN;
}

/* A collision replaces the older entry: the PDC's own id (pdc_dom) takes
 * over once we answered on it. A run of frames of one PDC finds its entry
 * as the last one set, without hashing. */
void
tss_peer_set(struct engine_tss_lc *t, const uint8_t fa[16], uint16_t pdcid,
	     uint8_t dom)
{
	struct tss_peer *p = t->peer_last;

	if (p != NULL && p->dom == dom && p->pdcid == pdcid &&
	    memcmp(p->fa, fa, 16) == 0)
		return;
	p = peer_slot(t, fa, pdcid);
	t->peer_last = p;

	memcpy(p->fa, fa, 16);
	p->pdcid = pdcid;
	p->dom = dom;
}

/* ------------------------------------------------------------------ */
/* what sealing reads of a frame                                       */
/* ------------------------------------------------------------------ */

void
tss_meta_register(struct engine_tss *e)
{
	static const struct rte_mbuf_dynfield field = {
		.name = "uet_tss_tx_meta",
		.size = sizeof(struct tss_tx_meta),
		.align = __alignof__(struct tss_tx_meta),
	};
	static const struct rte_mbuf_dynflag flag = {
		.name = "uet_tss_tx_meta",
	};
	int off = rte_mbuf_dynfield_register(&field);
	int bit = rte_mbuf_dynflag_register(&flag);

	/* none left: every frame is parsed, as without a builder's word */
	e->meta_off = off;
	e->meta_flag = off < 0 || bit < 0 ? 0 : UINT64_C(1) << bit;
}

void
uet_engine_tx_meta_set(struct uet_engine_lcore *lc, struct rte_mbuf *m,
		       const struct uet_wire_outer_tpl *t,
		       const struct uet_wire_pds_hdr *h)
{
	const struct engine_tss *e = lc->eng->tss;
	struct tss_tx_meta *x;
	uint16_t src = 0, dst = 0;
	bool has_dst = false, pdc;

	if (e == NULL || e->meta_flag == 0 || t->ip_version != 4)
		return;
	x = RTE_MBUF_DYNFIELD(m, e->meta_off, struct tss_tx_meta *);
	pdc = tss_pdc_ids(h, &src, &dst, &has_dst);
	*x = (struct tss_tx_meta){
		.pds_off = t->len,
		.src = src,
		.dst = dst,
		.ip_hlen = (uint8_t)(t->l4_off - t->l3_off),
		.pds_len = (uint8_t)uet_wire_pds_hdr_size(h),
		.type = h->type,
		.next_hdr = h->next_hdr,
		.bits = (uint8_t)((t->native ? TSS_META_NATIVE : 0) |
				  (pdc ? TSS_META_PDC : 0) |
				  (pdc && has_dst ? TSS_META_DST : 0)),
	};
	m->ol_flags |= e->meta_flag;
}

/* The view of a frame its builder described: the outer fields sealing
 * reads from the frame's IPv4 and UDP (or entropy) headers. */
static void
view_meta(const struct engine_tss *e, struct rte_mbuf *m,
	  struct tss_tx_view *v)
{
	static const struct uet_wire_outer zero;
	const struct tss_tx_meta *x = RTE_MBUF_DYNFIELD(m, e->meta_off,
						const struct tss_tx_meta *);
	const uint8_t *f = rte_pktmbuf_mtod(m, const uint8_t *);
	bool native = (x->bits & TSS_META_NATIVE) != 0;
	const uint8_t *l4 = f + x->pds_off - (native ? UET_ENTROPY_HDR_LEN :
							UET_UDP_HLEN);
	const uint8_t *l3 = l4 - x->ip_hlen;
	uint16_t ev = (uint16_t)(l4[0] << 8 | l4[1]);

	m->ol_flags &= ~e->meta_flag;
	v->o = zero;
	v->o.ip_version = 4;
	v->o.native = native;
	v->o.ip_hlen = x->ip_hlen;
	v->o.hdr_len = x->pds_off;
	v->o.inner_len = (uint16_t)(rte_pktmbuf_data_len(m) - x->pds_off);
	memcpy(v->o.src_addr, l3 + 12, 4);
	memcpy(v->o.dst_addr, l3 + 16, 4);
	if (native)
		v->o.entropy = ev;
	else
		v->o.udp_sport = ev;
	v->ses_off = (uint16_t)(x->pds_off + x->pds_len);
	v->payload_len = (uint16_t)(v->o.inner_len - x->pds_len);
	v->type = x->type;
	v->next_hdr = x->next_hdr;
	v->pdc = (x->bits & TSS_META_PDC) != 0;
	v->has_dst = (x->bits & TSS_META_DST) != 0;
	v->src = x->src;
	v->dst = x->dst;
}

/* The view of a frame from its parse: 0; 1: not UET (ARP, ND), stays
 * as it is; -1: UET whose PDS header does not decode. */
static int
view_parse(const struct engine_port *port, struct rte_mbuf *m,
	   struct tss_tx_view *v)
{
	struct uet_wire_pkt p;

	if (uet_wire_pkt_parse_pds(rte_pktmbuf_mtod(m, const uint8_t *),
				   rte_pktmbuf_data_len(m), &port->opts,
				   &p) < 0)
		return p.err_layer < UET_PKT_LAYER_PDS ? 1 : -1;
	v->o = p.outer;
	v->ses_off = p.ses_off;
	v->payload_len = p.payload_len;
	v->type = p.pds.type;
	v->next_hdr = p.pds.next_hdr;
	v->pdc = tss_pdc_ids(&p.pds, &v->src, &v->dst, &v->has_dst);
	return 0;
}

/* The view of staged frame @p m, from its builder's word if it left one;
 * as view_parse(). */
static int
tx_view(const struct engine_tss *e, const struct engine_port *port,
	struct rte_mbuf *m, struct tss_tx_view *v)
{
	if (likely(m->ol_flags & e->meta_flag)) {
		view_meta(e, m, v);
		return 0;
	}
	return view_parse(port, m, v);
}

/*
 * TX: the JobID decides and is remembered for the PDC; a frame without
 * one follows its PDC: the peer's {address, PDC id} as learnt from what
 * it sent (the first answers of a PDC it opened), else our PDC id.
 */
static uint8_t
tx_dom(const struct engine_tss *e, struct engine_tss_lc *t,
       const struct tss_tx_view *v, const uint8_t *frame)
{
	uint8_t dom = DOM_UNKNOWN, peer;

	if (tss_job_dom(e, v->type, v->o.trimmed, frame + v->ses_off,
			v->payload_len, v->next_hdr, &dom) == 0) {
		if (v->pdc)
			t->pdc_dom[v->src] = dom;
		return dom;
	}
	if (!v->pdc)
		return DOM_CLEAR;
	peer = v->has_dst ? tss_peer_get(t, v->o.dst_addr, v->dst) :
			    DOM_UNKNOWN;
	if (peer != DOM_UNKNOWN) {
		t->pdc_dom[v->src] = peer;
		return peer;
	}
	return t->pdc_dom[v->src] == DOM_UNKNOWN ? DOM_CLEAR :
						   t->pdc_dom[v->src];
}

/* ------------------------------------------------------------------ */
/* sealing                                                             */
/* ------------------------------------------------------------------ */

void
tss_lengths_adjust(uint8_t *frame, const struct uet_wire_outer *o, int delta)
{
	size_t l4 = o->hdr_len - (o->native ? UET_ENTROPY_HDR_LEN :
					      UET_UDP_HLEN);
	uint8_t *l3 = frame + l4 - o->ip_hlen;

	if (o->ip_version == 4) {
		struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)l3;
		uint16_t was = rte_be_to_cpu_16(ip->total_length);
		uint16_t now = (uint16_t)(was + delta);
		uint32_t sum;

		ip->total_length = rte_cpu_to_be_16(now);
		/* the header checksum updated for the one field that
		 * changed (RFC 1624, eqn. 3: HC' = ~(~HC + ~m + m')) */
		sum = (uint16_t)~rte_be_to_cpu_16(ip->hdr_checksum) +
		      (uint32_t)(uint16_t)~was + now;
		sum = (sum & 0xFFFF) + (sum >> 16);
		sum = (sum & 0xFFFF) + (sum >> 16);
		ip->hdr_checksum = rte_cpu_to_be_16((uint16_t)~sum);
	} else {
		struct rte_ipv6_hdr *ip = (struct rte_ipv6_hdr *)l3;

		ip->payload_len = rte_cpu_to_be_16((uint16_t)
			(rte_be_to_cpu_16(ip->payload_len) + delta));
	}
	if (!o->native) {
		struct rte_udp_hdr *u = (struct rte_udp_hdr *)(frame + l4);

		u->dgram_len = rte_cpu_to_be_16((uint16_t)
			(rte_be_to_cpu_16(u->dgram_len) + delta));
	}
}

/*
 * Client/server mode (tss_cs.c): a client seals with its up key, its
 * SSI in the header and the IV; a server with the down key of the
 * client at @p dst, that client's SSI in the header, its own address in
 * the IV.
 */
static int
seal_key_cs(struct uet_engine_lcore *lc, uint16_t port, unsigned int di,
	    unsigned int slot, uint32_t src, uint32_t dst, uint64_t tsc,
	    uint32_t rekey, uint16_t k, struct uet_wire_tss_hdr *h)
{
	const struct engine_tss *e = lc->eng->tss;
	struct engine_tss_lc *t = lc->tss;
	const struct tss_dkey *dk;

	h->sp = true;
	if (e->role == UET_CONFIG_TSS_ROLE_CLIENT && e->derive) {
		/* rotation: the key of the TSC's counter (tss_key.c) */
		h->ssi = e->cfg.ssi;
		dk = tss_key_tx(lc, port, di, slot, h->ssi, rekey, k);
		if (dk == NULL)
			return -EIO;
		t->bs[k] = dk->sess;
		uet_tss_iv(h->ssi, h->epoch, tsc, dk->mask, t->biv[k]);
		return 0;
	}
	if (e->role == UET_CONFIG_TSS_ROLE_CLIENT) {
		h->ssi = e->cfg.ssi;
		t->bs[k] = t->seal[di][slot];
		uet_tss_iv(h->ssi, h->epoch, tsc,
			   t->dk[di].ck[slot].up + UET_TSS_KEY_LEN, t->biv[k]);
		return t->bs[k] == NULL ? -EIO : 0;
	}
	dk = tss_cs_tx_down(lc, di, slot, dst, rekey, k, &h->ssi);
	if (dk == NULL)
		return -EIO;
	t->bs[k] = dk->sess;
	uet_tss_iv(src, h->epoch, tsc, dk->mask, t->biv[k]);
	return 0;
}

/*
 * The session and the IV of a frame from @p src to @p dst with @p tsc,
 * its epoch and association number: the domain's key of epoch slot
 * @p slot (direct mode), the key derived from it for this source and the
 * TSC's rekey counter (cluster mode, tss_key.c), or a client's
 * (client/server mode).
 */
static int
seal_key(struct uet_engine_lcore *lc, uint16_t port, unsigned int di,
	 unsigned int slot, uint32_t src, uint32_t dst, uint64_t tsc,
	 uint16_t k, struct uet_wire_tss_hdr *h)
{
	const struct engine_tss *e = lc->eng->tss;
	struct engine_tss_lc *t = lc->tss;
	uint32_t rekey = tss_rekey_of(e, tsc);
	const struct tss_dkey *dk;

	h->an = (uint8_t)(rekey & 1u);
	h->epoch = t->dk[di].ep.epoch[slot];
	if (e->role != UET_CONFIG_TSS_ROLE_NONE)
		return seal_key_cs(lc, port, di, slot, src, dst, tsc, rekey,
				   k, h);
	if (!e->cluster) {
		t->bs[k] = t->seal[di][slot];
		uet_tss_iv(src, h->epoch, tsc, NULL, t->biv[k]);
		return t->bs[k] == NULL ? -EIO : 0;
	}
	dk = tss_key_tx(lc, port, di, slot, src, rekey, k);
	if (dk == NULL)
		return -EIO;
	t->bs[k] = dk->sess;
	uet_tss_iv(src, h->epoch, tsc, dk->mask, t->biv[k]);
	return 0;
}

/*
 * Make room in @p m for the TSS header (after the outer headers, which
 * move forward into the headroom) and the ICV (at the end), write the
 * header, and describe the AEAD of the frame in slot @p k of the burst.
 */
static int
seal_prepare(struct uet_engine_lcore *lc, struct rte_mbuf *m,
	     const struct tss_tx_view *v, uint16_t port, unsigned int di,
	     unsigned int slot, uint64_t tsc, uint16_t k)
{
	const struct engine_tss *e = lc->eng->tss;
	struct engine_tss_lc *t = lc->tss;
	const struct uet_wire_outer *o = &v->o;
	struct uet_wire_tss_hdr h = { .sdi = 0, .tsc = tsc };
	uint16_t ol = o->hdr_len, il = o->inner_len;
	uint16_t hl = e->hdr_len;
	uint32_t src, dst;
	uint8_t *f;

	if (o->ip_version != 4 || m->nb_segs != 1 ||
	    rte_pktmbuf_headroom(m) < hl ||
	    rte_pktmbuf_tailroom(m) < UET_TSS_ICV_LEN ||
	    rte_pktmbuf_data_len(m) != (uint32_t)ol + il)
		return -EINVAL;
	memcpy(&src, o->src_addr, 4);
	src = rte_be_to_cpu_32(src);
	memcpy(&dst, o->dst_addr, 4);
	dst = rte_be_to_cpu_32(dst);
	if (seal_key(lc, port, di, slot, src, dst, tsc, k, &h) < 0)
		return -EIO;
	f = (uint8_t *)rte_pktmbuf_prepend(m, hl);
	memmove(f, f + hl, ol);
	(void)rte_pktmbuf_append(m, UET_TSS_ICV_LEN);
	h.sdi = e->cfg.domain[di].sdi;
	if (uet_wire_tss_hdr_encode(&h, f + ol, hl) < 0 ||
	    uet_tss_aad(o, f + ol, hl, t->baad[k],
			sizeof(t->baad[k])) != e->aad_len)
		return -EINVAL;
	tss_lengths_adjust(f, o, hl + UET_TSS_ICV_LEN);
	/* no UDP checksum over IPv4 (zero: none): the ICV covers the
	 * addresses, the entropy and every byte after the TSS header
	 * (docs/WIRE-DECISIONS.md); a port's offload gets its pseudo-header
	 * sum, at no CPU cost. A request for it on a port without the
	 * offload is the builder's deferral (proto_tx.c): withdrawn. */
	t->bcs[k] = 0;
	if (!o->native && (m->ol_flags & RTE_MBUF_F_TX_UDP_CKSUM) &&
	    lc->eng->port[port].csum_tx_offload) {
		t->bcs[k] = (uint16_t)(ol - UET_UDP_HLEN);
	} else if (!o->native) {
		((struct rte_udp_hdr *)(f + ol - UET_UDP_HLEN))->dgram_cksum = 0;
		m->ol_flags &= ~RTE_MBUF_F_TX_L4_MASK;
	}
	t->bhl[k] = o->ip_hlen;
	t->bop[k] = (struct uet_tss_cdev_op){
		.enc_off = (uint32_t)ol + hl,
		.enc_len = il,
		.icv_off = (uint32_t)ol + hl + il,
		.iv = t->biv[k],
		.aad = t->baad[k],
	};
	return 0;
}

/* The port's UDP checksum offload covers the ciphertext: the
 * pseudo-header sum with the new length. */
static void
seal_csum(struct rte_mbuf *m, uint16_t l4_off, uint8_t ip_hlen)
{
	uint8_t *f = rte_pktmbuf_mtod(m, uint8_t *);
	struct rte_udp_hdr *u = (struct rte_udp_hdr *)(f + l4_off);
	const void *ip = f + l4_off - ip_hlen;

	u->dgram_cksum = rte_ipv4_phdr_cksum(ip, m->ol_flags);
}

/* A frame that stays clear, whose builder left its UDP checksum to the
 * sealer (proto_tx.c) on a port without the offload: completed here. */
static void
clear_csum(const struct engine_port *port, struct rte_mbuf *m,
	   const struct uet_wire_outer *o)
{
	uint8_t *l4 = rte_pktmbuf_mtod_offset(m, uint8_t *,
					      o->hdr_len - UET_UDP_HLEN);
	struct rte_udp_hdr *u = (struct rte_udp_hdr *)l4;
	uint16_t c;

	if (!(m->ol_flags & RTE_MBUF_F_TX_UDP_CKSUM) || o->native ||
	    port->csum_tx_offload)
		return;
	u->dgram_cksum = 0;
	c = (uint16_t)~uet_wire_csum_fold(uet_wire_csum_udp(l4 - o->ip_hlen,
							    l4));
	/* RFC 768: a computed zero is sent as all ones */
	u->dgram_cksum = c == 0 ? 0xFFFF : c;
	m->ol_flags &= ~RTE_MBUF_F_TX_L4_MASK;
}

/* A TSC for a frame of domain @p di: its key's (the epoch slot it is
 * sealed with now), counted when there is none. */
static int
seal_tsc(struct uet_engine_lcore *lc, unsigned int di, unsigned int *slot,
	 uint64_t *tsc)
{
	int rc;

	*slot = uet_tss_epochs_tx(&lc->tss->dk[di].ep, lc->now);
	rc = tss_tsc_take(lc, di, *slot, tsc);
	if (rc == -ENOSPC)
		ENG_INC(lc->st.tss.tx_key_exhausted);
	return rc;
}

/* The frames of the burst whose domain is a secure one: TSCs taken,
 * room made, ops described. Clear frames stay where they are; a frame
 * that cannot be sealed is dropped (never sent in clear). */
static uint16_t
seal_collect(struct uet_engine_lcore *lc, uint16_t pi, struct rte_mbuf **m,
	     uint16_t n, uint16_t *idx)
{
	const struct engine_port *port = &lc->eng->port[pi];
	struct engine_tss *e = lc->eng->tss;
	struct engine_tss_lc *t = lc->tss;
	struct tss_tx_view v;
	uint16_t k = 0;

	for (uint16_t i = 0; i < n; i++) {
		const uint8_t *f = rte_pktmbuf_mtod(m[i], const uint8_t *);
		unsigned int slot;
		uint64_t tsc;
		uint8_t dom;
		int rc = tx_view(e, port, m[i], &v);

		if (rc > 0)
			continue; /* ARP/ND, not UET */
		if (rc < 0) {
			/* UET whose PDS header we cannot read: it might be
			 * a secure job's, so it does not go out in clear */
			ENG_INC(lc->st.tss.tx_fail);
			rte_pktmbuf_free(m[i]);
			m[i] = NULL;
			continue;
		}
		dom = tx_dom(e, t, &v, f);
		if (dom == DOM_CLEAR) {
			clear_csum(port, m[i], &v.o);
			ENG_INC(lc->st.tss.tx_clear);
			continue;
		}
		if (seal_tsc(lc, dom - 2u, &slot, &tsc) < 0 ||
		    seal_prepare(lc, m[i], &v, pi, dom - 2u, slot, tsc,
				 k) < 0) {
			ENG_INC(lc->st.tss.tx_fail);
			rte_pktmbuf_free(m[i]);
			m[i] = NULL;
			continue;
		}
		t->bm[k] = m[i];
		idx[k++] = i;
	}
	return k;
}

void
engine_tss_tx_seal(struct uet_engine_lcore *lc, uint16_t port,
		struct engine_txbuf *b)
{
	struct engine_tss_lc *t = lc->tss;
	uint16_t idx[ENG_TX_STAGE], k, keep = b->sealed;

	if (b->sealed >= b->n)
		return;
	tss_epoch_sync(lc);
	k = seal_collect(lc, port, b->m + b->sealed,
			 (uint16_t)(b->n - b->sealed), idx);
	if (k != 0)
		(void)uet_tss_cdev_run_burst(t->dev, t->bs, t->bm, t->bop, k,
					     t->brc);
	for (uint16_t j = 0; j < k; j++) {
		struct rte_mbuf **slot = &b->m[b->sealed + idx[j]];

		if (t->brc[j] != 0) {
			ENG_INC(lc->st.tss.tx_fail);
			rte_pktmbuf_free(*slot);
			*slot = NULL;
			continue;
		}
		if (t->bcs[j] != 0)
			seal_csum(*slot, t->bcs[j], t->bhl[j]);
		ENG_INC(lc->st.tss.tx_sealed);
	}
	/* drop the holes of frames not sent */
	for (uint16_t i = b->sealed; i < b->n; i++)
		if (b->m[i] != NULL)
			b->m[keep++] = b->m[i];
	b->n = keep;
	b->sealed = keep;
}
