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
#include <rte_udp.h>

#include "tss_private.h"

/* ------------------------------------------------------------------ */
/* the domain of a frame                                               */
/* ------------------------------------------------------------------ */

int
tss_frame_job_dom(const struct engine_tss *e, const struct uet_wire_pkt *p,
		  const uint8_t *frame, uint8_t *dom)
{
	uint32_t job;
	int d, rc;

	if (p->pds.type == UET_PDS_TYPE_CP || p->outer.trimmed)
		return -1;
	/* the JobID field only: the SES above decodes the header */
	rc = uet_wire_ses_job_id(frame + p->ses_off, p->payload_len,
				 p->pds.next_hdr, &job);
	if (rc == -UET_WIRE_E_BAD_NEXT_HDR)
		return -1;
	if (rc < 0)
		return -2;
	d = uet_config_tss_domain_of(&e->cfg, job);
	*dom = d < 0 ? DOM_CLEAR : DOM_OF(d);
	return 0;
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
 * over once we answered on it. */
void
tss_peer_set(struct engine_tss_lc *t, const uint8_t fa[16], uint16_t pdcid,
	     uint8_t dom)
{
	struct tss_peer *p = peer_slot(t, fa, pdcid);

	memcpy(p->fa, fa, 16);
	p->pdcid = pdcid;
	p->dom = dom;
}

/*
 * TX: the JobID decides and is remembered for the PDC; a frame without
 * one follows its PDC: the peer's {address, PDC id} as learnt from what
 * it sent (the first answers of a PDC it opened), else our PDC id.
 */
static uint8_t
tx_dom(const struct engine_tss *e, struct engine_tss_lc *t,
       const struct uet_wire_pkt *p, const uint8_t *frame)
{
	uint16_t src = 0, dst = 0;
	bool has_dst = false, pdc = tss_pdc_ids(&p->pds, &src, &dst, &has_dst);
	uint8_t dom = DOM_UNKNOWN, peer;

	if (tss_frame_job_dom(e, p, frame, &dom) == 0) {
		if (pdc)
			t->pdc_dom[src] = dom;
		return dom;
	}
	if (!pdc)
		return DOM_CLEAR;
	peer = has_dst ? tss_peer_get(t, p->outer.dst_addr, dst) : DOM_UNKNOWN;
	if (peer != DOM_UNKNOWN) {
		t->pdc_dom[src] = peer;
		return peer;
	}
	return t->pdc_dom[src] == DOM_UNKNOWN ? DOM_CLEAR : t->pdc_dom[src];
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

		ip->total_length = rte_cpu_to_be_16((uint16_t)
			(rte_be_to_cpu_16(ip->total_length) + delta));
		ip->hdr_checksum = 0;
		ip->hdr_checksum = rte_ipv4_cksum(ip);
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
seal_key_cs(struct uet_engine_lcore *lc, unsigned int di, unsigned int slot,
	    uint32_t src, uint32_t dst, uint64_t tsc, uint16_t k,
	    struct uet_wire_tss_hdr *h)
{
	const struct engine_tss *e = lc->eng->tss;
	struct engine_tss_lc *t = lc->tss;
	const struct tss_dkey *dk;

	h->sp = true;
	if (e->role == UET_CONFIG_TSS_ROLE_CLIENT) {
		h->ssi = e->cfg.ssi;
		t->bs[k] = t->seal[di][slot];
		uet_tss_iv(h->ssi, h->epoch, tsc,
			   t->dk[di].ck[slot].up + UET_TSS_KEY_LEN, t->biv[k]);
		return t->bs[k] == NULL ? -EIO : 0;
	}
	dk = tss_cs_tx_down(lc, di, slot, dst, k, &h->ssi);
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
		return seal_key_cs(lc, di, slot, src, dst, tsc, k, h);
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
	     const struct uet_wire_pkt *p, uint16_t port, unsigned int di,
	     unsigned int slot, uint64_t tsc, uint16_t k)
{
	const struct engine_tss *e = lc->eng->tss;
	struct engine_tss_lc *t = lc->tss;
	struct uet_wire_tss_hdr h = { .sdi = 0, .tsc = tsc };
	uint16_t ol = p->outer.hdr_len, il = p->outer.inner_len;
	uint16_t hl = e->hdr_len;
	uint32_t src, dst;
	uint8_t *f;

	if (p->outer.ip_version != 4 || m->nb_segs != 1 ||
	    rte_pktmbuf_headroom(m) < hl ||
	    rte_pktmbuf_tailroom(m) < UET_TSS_ICV_LEN ||
	    rte_pktmbuf_data_len(m) != (uint32_t)ol + il)
		return -EINVAL;
	memcpy(&src, p->outer.src_addr, 4);
	src = rte_be_to_cpu_32(src);
	memcpy(&dst, p->outer.dst_addr, 4);
	dst = rte_be_to_cpu_32(dst);
	if (seal_key(lc, port, di, slot, src, dst, tsc, k, &h) < 0)
		return -EIO;
	f = (uint8_t *)rte_pktmbuf_prepend(m, hl);
	memmove(f, f + hl, ol);
	(void)rte_pktmbuf_append(m, UET_TSS_ICV_LEN);
	h.sdi = e->cfg.domain[di].sdi;
	if (uet_wire_tss_hdr_encode(&h, f + ol, hl) < 0 ||
	    uet_tss_aad(&p->outer, f + ol, hl, t->baad[k],
			sizeof(t->baad[k])) != e->aad_len)
		return -EINVAL;
	tss_lengths_adjust(f, &p->outer, hl + UET_TSS_ICV_LEN);
	/* no UDP checksum over IPv4 (zero: none): the ICV covers the
	 * addresses, the entropy and every byte after the TSS header
	 * (docs/WIRE-DECISIONS.md); a port's offload gets its pseudo-header
	 * sum, at no CPU cost */
	t->bcs[k] = 0;
	if (!p->outer.native && (m->ol_flags & RTE_MBUF_F_TX_UDP_CKSUM))
		t->bcs[k] = (uint16_t)(ol - UET_UDP_HLEN);
	else if (!p->outer.native)
		((struct rte_udp_hdr *)(f + ol - UET_UDP_HLEN))->dgram_cksum = 0;
	t->bhl[k] = p->outer.ip_hlen;
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
	struct uet_wire_pkt p;
	uint16_t k = 0;

	for (uint16_t i = 0; i < n; i++) {
		const uint8_t *f = rte_pktmbuf_mtod(m[i], const uint8_t *);
		unsigned int slot;
		uint64_t tsc;
		uint8_t dom;

		if (uet_wire_pkt_parse_pds(f, rte_pktmbuf_data_len(m[i]),
				      &port->opts, &p) < 0) {
			if (p.err_layer < UET_PKT_LAYER_PDS)
				continue; /* ARP/ND, not UET */
			/* UET whose PDS header we cannot read: it might be
			 * a secure job's, so it does not go out in clear */
			ENG_INC(lc->st.tss.tx_fail);
			rte_pktmbuf_free(m[i]);
			m[i] = NULL;
			continue;
		}
		dom = tx_dom(e, t, &p, f);
		if (dom == DOM_CLEAR) {
			ENG_INC(lc->st.tss.tx_clear);
			continue;
		}
		if (seal_tsc(lc, dom - 2u, &slot, &tsc) < 0 ||
		    seal_prepare(lc, m[i], &p, pi, dom - 2u, slot, tsc,
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
