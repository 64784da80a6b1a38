/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The parts of a TSS-protected packet (UEC 1.0 section 3.7): the AES-GCM
 * IV, the additional authenticated data and the split into header,
 * ciphertext and ICV. docs/WIRE-DECISIONS.md says where each choice comes
 * from.
 */

#include <endian.h>
#include <errno.h>
#include <string.h>

#include <uet/uet_tss.h>

/* per packet: two big-endian stores, the mask as two words */
void
uet_tss_iv(uint32_t src_id, uint16_t epoch, uint64_t tsc,
	   const uint8_t *mask, uint8_t iv[UET_TSS_IV_LEN])
{
	uint32_t s = htobe32(src_id);
	uint64_t et = htobe64(((uint64_t)epoch << 48) |
			      (tsc & UET_TSS_TSC_MAX));
	uint32_t ms;
	uint64_t me;

	if (mask != NULL) {
		memcpy(&ms, mask, 4);
		memcpy(&me, mask + 4, 8);
		s ^= ms;
		et ^= me;
	}
	memcpy(iv, &s, 4);
	memcpy(iv + 4, &et, 8);
}

int
uet_tss_aad(const struct uet_wire_outer *o, const uint8_t *tss, size_t tss_len,
	    uint8_t *aad, size_t cap)
{
	size_t al = o->ip_version == 4 ? 4 : 16, n;
	uint16_t ev = o->native ? o->entropy : o->udp_sport;

	if ((o->ip_version != 4 && o->ip_version != 6) ||
	    (tss_len != UET_TSS_HDR_LEN && tss_len != UET_TSS_HDR_SSI_LEN))
		return -EINVAL;
	n = 2 * al + 4 + tss_len;
	if (cap < n)
		return -ENOSPC;
	memcpy(aad, o->src_addr, al);
	memcpy(aad + al, o->dst_addr, al);
	/* the native-IP entropy header: entropy(16) | reserved(16) = 0 */
	aad[2 * al] = (uint8_t)(ev >> 8);
	aad[2 * al + 1] = (uint8_t)ev;
	aad[2 * al + 2] = 0;
	aad[2 * al + 3] = 0;
	memcpy(aad + 2 * al + 4, tss, tss_len);
	return (int)n;
}

int
uet_tss_split(size_t inner_len, bool sp, struct uet_tss_split *s)
{
	size_t hl = uet_wire_tss_hdr_len(sp);

	if (inner_len < hl + UET_PDS_UUD_LEN + UET_TSS_ICV_LEN ||
	    inner_len > UINT16_MAX)
		return -EMSGSIZE;
	s->hdr_len = (uint16_t)hl;
	s->enc_len = (uint16_t)(inner_len - hl - UET_TSS_ICV_LEN);
	s->icv_off = (uint16_t)(inner_len - UET_TSS_ICV_LEN);
	return 0;
}

/* The lengths of @p sealed less the @p removed bytes: what rx_strip's
 * adjustment wrote, and the header checksum it computed. */
static void
opened_outer(struct uet_wire_outer *o, size_t removed, const uint8_t *frame)
{
	size_t l4 = o->hdr_len - (o->native ? UET_ENTROPY_HDR_LEN :
					      UET_UDP_HLEN);
	const uint8_t *l3 = frame + l4 - o->ip_hlen;

	o->inner_len = (uint16_t)(o->inner_len - removed);
	o->ip_total_len -= (uint32_t)removed;
	if (!o->native)
		o->udp_len = (uint16_t)(o->udp_len - removed);
	if (o->ip_version == 4)
		o->ipv4_csum = (uint16_t)(l3[10] << 8 | l3[11]);
}

int
uet_tss_opened_parse(const struct uet_wire_outer *sealed, size_t removed,
		     const uint8_t *frame, size_t len, struct uet_wire_pkt *p)
{
	int rc;

	if (sealed->inner_len < removed ||
	    (size_t)sealed->hdr_len + sealed->inner_len - removed > len)
		return -EINVAL;
	p->outer = *sealed;
	opened_outer(&p->outer, removed, frame);
	p->ses = UET_PKT_SES_NONE;
	p->req_fmt = (enum uet_wire_ses_fmt)0;
	p->pds_off = p->outer.hdr_len;
	p->ses_len = 0;
	p->err_layer = UET_PKT_LAYER_NONE;
	p->err = 0;
	p->err_off = 0;
	p->err_avail = 0;
	rc = uet_wire_pds_hdr_decode(frame + p->pds_off, p->outer.inner_len,
				     &p->pds);
	if (rc < 0) {
		p->ses_off = 0;
		p->payload_off = 0;
		p->payload_len = 0;
		p->err_layer = UET_PKT_LAYER_PDS;
		p->err = -rc;
		p->err_off = p->pds_off;
		p->err_avail = p->outer.inner_len;
		return rc;
	}
	p->ses_off = (uint16_t)(p->pds_off + rc);
	p->payload_off = p->ses_off;
	p->payload_len = (uint16_t)(p->outer.inner_len - rc);
	return 0;
}
