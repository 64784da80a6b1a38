/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * TSS header codec (UEC 1.0 section 3.7). Layout in uet_wire_tss.h; the
 * choices made where sources disagree are in docs/WIRE-DECISIONS.md.
 *
 * The struct has no room for the reserved bit, so decode rejects it set
 * and encode always writes it zero: whatever decodes re-encodes to the
 * same bytes.
 */

#include <uet/uet_wire.h>

#include "wire_be.h"

/* First word: type[31:27] sp[26] rsvd[25] an[24] sdi[23:0]. */
#define TSS_TYPE_SHIFT 27
#define TSS_SP         (UINT32_C(1) << 26)
#define TSS_RSVD       (UINT32_C(1) << 25)
#define TSS_AN         (UINT32_C(1) << 24)
#define TSS_SDI_MASK   UET_TSS_SDI_MAX
/* Last eight bytes: epoch[63:48] tsc[47:0]. */
#define TSS_EPOCH_SHIFT 48

size_t
uet_wire_tss_hdr_len(bool sp)
{
	return sp ? UET_TSS_HDR_SSI_LEN : UET_TSS_HDR_LEN;
}

bool
uet_wire_tss_hdr_present(const uint8_t *buf, size_t len)
{
	return len > 0 && (buf[0] >> 3) == UET_PDS_TYPE_TSS;
}

static int
tss_check(const struct uet_wire_tss_hdr *h)
{
	if (h->an > 1 || h->sdi > UET_TSS_SDI_MAX || h->tsc > UET_TSS_TSC_MAX)
		return -UET_WIRE_E_BAD_FIELD;
	if (!h->sp && h->ssi != 0)
		return -UET_WIRE_E_BAD_COMBINATION;
	return 0;
}

int
uet_wire_tss_hdr_encode(const struct uet_wire_tss_hdr *h, uint8_t *buf, size_t cap)
{
	size_t len = uet_wire_tss_hdr_len(h->sp);
	uint32_t w0;
	int rc;

	rc = tss_check(h);
	if (rc < 0)
		return rc;
	if (cap < len)
		return -UET_WIRE_E_NOSPACE;
	w0 = ((uint32_t)UET_PDS_TYPE_TSS << TSS_TYPE_SHIFT) | h->sdi;
	if (h->sp)
		w0 |= TSS_SP;
	if (h->an)
		w0 |= TSS_AN;
	be32_store(buf, w0);
	if (h->sp)
		be32_store(buf + 4, h->ssi);
	be64_store(buf + len - 8,
		   ((uint64_t)h->epoch << TSS_EPOCH_SHIFT) | h->tsc);
	return (int)len;
}

int
uet_wire_tss_hdr_decode(const uint8_t *buf, size_t len, struct uet_wire_tss_hdr *h)
{
	uint64_t et;
	uint32_t w0;
	size_t hl;

	if (len < UET_TSS_HDR_LEN)
		return -UET_WIRE_E_TRUNCATED;
	w0 = be32_load(buf);
	if ((w0 >> TSS_TYPE_SHIFT) != UET_PDS_TYPE_TSS)
		return -UET_WIRE_E_BAD_TYPE;
	if (w0 & TSS_RSVD)
		return -UET_WIRE_E_RESERVED;
	hl = uet_wire_tss_hdr_len((w0 & TSS_SP) != 0);
	if (len < hl)
		return -UET_WIRE_E_TRUNCATED;
	h->sp = (w0 & TSS_SP) != 0;
	h->an = (w0 & TSS_AN) ? 1 : 0;
	h->sdi = w0 & TSS_SDI_MASK;
	h->ssi = h->sp ? be32_load(buf + 4) : 0;
	et = be64_load(buf + hl - 8);
	h->epoch = (uint16_t)(et >> TSS_EPOCH_SHIFT);
	h->tsc = et & UET_TSS_TSC_MAX;
	return (int)hl;
}
