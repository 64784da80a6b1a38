/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The parts of a TSS-protected packet (UEC 1.0 section 3.7): the AES-GCM
 * IV, the additional authenticated data and the split into header,
 * ciphertext and ICV. docs/WIRE-DECISIONS.md says where each choice comes
 * from.
 */

#include <errno.h>
#include <string.h>

#include <uet/uet_tss.h>

void
uet_tss_iv(uint32_t src_id, uint16_t epoch, uint64_t tsc,
	   const uint8_t *mask, uint8_t iv[UET_TSS_IV_LEN])
{
	uint64_t et = ((uint64_t)epoch << 48) | (tsc & UET_TSS_TSC_MAX);
	int i;

	for (i = 0; i < 4; i++)
		iv[i] = (uint8_t)(src_id >> (24 - 8 * i));
	for (i = 0; i < 8; i++)
		iv[4 + i] = (uint8_t)(et >> (56 - 8 * i));
	if (mask == NULL)
		return;
	for (i = 0; i < UET_TSS_IV_LEN; i++)
		iv[i] ^= mask[i];
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
