/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Whole-frame parse and build. The parser runs the layer decoders in wire
 * order and stops at the first failure, recording the layer so that tools
 * can say where a frame went wrong and the engine can still use the
 * layers before it (a trimmed packet keeps its PDS header: a congested
 * switch cuts the rest).
 */

#include <stdio.h>
#include <string.h>

#include <uet/uet_wire.h>

static const char *const layer_names[] = {
	[UET_PKT_LAYER_NONE] = "none",
	[UET_PKT_LAYER_ETH] = "eth",
	[UET_PKT_LAYER_IP] = "ip",
	[UET_PKT_LAYER_UDP] = "udp",
	[UET_PKT_LAYER_ENTROPY] = "entropy",
	[UET_PKT_LAYER_PDS] = "pds",
	[UET_PKT_LAYER_SES] = "ses",
	[UET_PKT_LAYER_PAYLOAD] = "payload",
};

const char *
uet_wire_pkt_layer_name(unsigned int layer)
{
	if (layer >= sizeof(layer_names) / sizeof(layer_names[0]))
		return "unknown";
	return layer_names[layer];
}

/* The PDS header alone (next_hdr) says which SES header follows. */
static enum uet_wire_pkt_ses
pkt_ses_kind(const struct uet_wire_pds_hdr *h)
{
	if (h->type == UET_PDS_TYPE_CP)
		return UET_PKT_SES_NONE;
	if (uet_wire_ses_fmt_from_next_hdr(h->next_hdr) >= 0)
		return UET_PKT_SES_REQ;
	if (uet_wire_ses_resp_fmt_from_next_hdr(h->next_hdr) >= 0)
		return UET_PKT_SES_RESP;
	return UET_PKT_SES_NONE;
}

/* Packets a switch may trim: the data classes (requests, RUDI and UUD
 * requests); control packets travel in a class that is never trimmed. */
static bool
pkt_trimmable(unsigned int type)
{
	return uet_wire_pds_type_is_req(type) || type == UET_PDS_TYPE_RUDI_REQ ||
	       type == UET_PDS_TYPE_UUD_REQ;
}

static int
pkt_fail(struct uet_wire_pkt *p, enum uet_wire_pkt_layer layer, int rc, size_t off,
	 size_t avail)
{
	p->err_layer = layer;
	p->err = -rc;
	p->err_off = (uint16_t)off;
	p->err_avail = (uint32_t)avail;
	return rc;
}

/* ------------------------------------------------------------------ */
/* Parse                                                               */
/* ------------------------------------------------------------------ */

static int
pkt_parse_outer(const uint8_t *frame, size_t len,
		const struct uet_wire_outer_opts *opts, struct uet_wire_pkt *p)
{
	struct uet_wire_outer *o = &p->outer;
	size_t off = 0, avail;
	int rc;

	if (opts != NULL && opts->raw_ip) {
		o->raw_ip = true;
	} else {
		rc = uet_wire_outer_eth_decode(frame, len, o);
		if (rc < 0)
			return pkt_fail(p, UET_PKT_LAYER_ETH, rc, 0, len);
		off = (size_t)rc;
	}
	rc = uet_wire_outer_ip_decode_ex(frame + off, len - off, opts, o);
	if (rc < 0)
		return pkt_fail(p, UET_PKT_LAYER_IP, rc, off, len - off);
	o->ethertype = o->ip_version == 4 ? UET_ETHERTYPE_IPV4 :
					    UET_ETHERTYPE_IPV6;
	avail = uet_wire_outer_ip_avail(o, len - off);
	off += o->ip_hlen;
	rc = uet_wire_outer_l4_decode_ex(frame + off, avail, opts, o);
	if (rc < 0)
		return pkt_fail(p, o->native ? UET_PKT_LAYER_ENTROPY :
				UET_PKT_LAYER_UDP, rc, off, avail);
	o->hdr_len = (uint16_t)(off + (size_t)rc);
	return 0;
}

static int
pkt_parse_ses(const uint8_t *frame, size_t end, struct uet_wire_pkt *p)
{
	size_t avail = end - p->ses_off;
	const uint8_t *b = frame + p->ses_off;
	int rc = 0;

	/* The struct of the kind not present stays zero. The request
	 * decoder clears its struct unless it stops at the length checks
	 * (then the struct is cleared here); the response one is cleared
	 * here (responses are rare). */
	p->ses = pkt_ses_kind(&p->pds);
	memset(&p->resp, 0, sizeof(p->resp));
	if (p->ses == UET_PKT_SES_REQ) {
		size_t hl;

		p->req_fmt = (enum uet_wire_ses_fmt)p->pds.next_hdr;
		hl = uet_wire_ses_fmt_len(p->req_fmt);
		if (hl == 0 || avail < hl)
			memset(&p->req, 0, sizeof(p->req));
		rc = uet_wire_ses_req_decode(b, avail, p->req_fmt, &p->req);
	} else {
		memset(&p->req, 0, sizeof(p->req));
		if (p->ses == UET_PKT_SES_RESP)
			rc = uet_wire_ses_resp_decode(b, avail,
				(enum uet_wire_ses_resp_fmt)p->pds.next_hdr,
				&p->resp);
	}
	if (rc < 0)
		return pkt_fail(p, UET_PKT_LAYER_SES, rc, p->ses_off, avail);
	p->ses_len = (uint16_t)rc;
	return 0;
}

/*
 * Bytes of payload the SES header announces, or -1 when it has no such
 * field: standard continuation packets (SOM=0) and the data
 * responses (UEC 1.0 SES responses) say it; a packet without SES header and a
 * plain RESPONSE carry none.
 */
static long
pkt_payload_declared(const struct uet_wire_pkt *p)
{
	if (p->ses == UET_PKT_SES_NONE)
		return 0;
	if (p->ses == UET_PKT_SES_REQ) {
		if (p->req_fmt == UET_SES_FMT_STD &&
		    !(p->req.flags & UET_SES_F_SOM))
			return p->req.payload_length;
		return -1;
	}
	if (p->resp.fmt == UET_SES_RESP_FMT_RESPONSE)
		return 0;
	return p->resp.payload_length;
}

static int
pkt_check_payload(struct uet_wire_pkt *p)
{
	long want = pkt_payload_declared(p);

	if (want < 0 || want == p->payload_len)
		return 0;
	return pkt_fail(p, UET_PKT_LAYER_PAYLOAD,
			want > p->payload_len ? -UET_WIRE_E_TRUNCATED :
						-UET_WIRE_E_BAD_LENGTH,
			p->payload_off, p->payload_len);
}

int
uet_wire_pkt_parse(const uint8_t *frame, size_t len, struct uet_wire_pkt *p)
{
	return uet_wire_pkt_parse_ex(frame, len, NULL, p);
}

/*
 * What a parse leaves zero: everything but the layers it decoded (their
 * decoders clear their own structs). Cheaper than clearing the whole
 * struct per frame, most of which the decoders overwrite anyway.
 */
static void
pkt_parse_reset(struct uet_wire_pkt *p)
{
	/* a copy, not memset(): gcc makes a `rep stos` of that one */
	static const struct uet_wire_outer zero;

	p->outer = zero;
	p->ses = UET_PKT_SES_NONE;
	p->req_fmt = (enum uet_wire_ses_fmt)0;
	p->pds_off = 0;
	p->ses_off = 0;
	p->ses_len = 0;
	p->payload_off = 0;
	p->payload_len = 0;
	p->err_layer = UET_PKT_LAYER_NONE;
	p->err = 0;
	p->err_off = 0;
	p->err_avail = 0;
}

/*
 * Outer and PDS headers. @p end: out, the end of the UET data (link
 * padding after it is ignored). A trimmed frame stops here, as does a
 * failure (0 or -error as uet_wire_pkt_parse_ex()); 1: an SES header follows.
 */
static int
pkt_parse_to_pds(const uint8_t *frame, size_t len,
		 const struct uet_wire_outer_opts *opts, struct uet_wire_pkt *p,
		 size_t *end)
{
	int rc;

	pkt_parse_reset(p);
	rc = pkt_parse_outer(frame, len, opts, p);
	if (rc < 0) {
		memset(&p->pds, 0, sizeof(p->pds));
		return rc;
	}
	p->pds_off = p->outer.hdr_len;
	*end = (size_t)p->pds_off + p->outer.inner_len;
	rc = uet_wire_pds_hdr_decode(frame + p->pds_off, p->outer.inner_len,
				&p->pds);
	if (rc < 0)
		return pkt_fail(p, UET_PKT_LAYER_PDS, rc, p->pds_off,
				p->outer.inner_len);
	p->ses_off = (uint16_t)(p->pds_off + rc);
	if (!p->outer.trimmed)
		return 1;
	/* What is left of a trimmed frame is its PDS header; only requests
	 * are trimmable (data DSCP, UEC 1.0 encapsulation and DSCP
	 * classes). */
	if (!pkt_trimmable(p->pds.type))
		return pkt_fail(p, UET_PKT_LAYER_PDS,
				-UET_WIRE_E_BAD_COMBINATION, p->pds_off,
				p->outer.inner_len);
	p->payload_off = p->ses_off;
	*end = p->ses_off;
	return 0;
}

int
uet_wire_pkt_parse_ex(const uint8_t *frame, size_t len,
		 const struct uet_wire_outer_opts *opts, struct uet_wire_pkt *p)
{
	size_t end = 0;
	int rc;

	rc = pkt_parse_to_pds(frame, len, opts, p, &end);
	if (rc <= 0) {
		memset(&p->req, 0, sizeof(p->req));
		memset(&p->resp, 0, sizeof(p->resp));
		return rc;
	}
	rc = pkt_parse_ses(frame, end, p);
	if (rc < 0)
		return rc;
	p->payload_off = (uint16_t)(p->ses_off + p->ses_len);
	p->payload_len = (uint16_t)(end - p->payload_off);
	return pkt_check_payload(p);
}

int
uet_wire_pkt_parse_pds(const uint8_t *frame, size_t len,
		  const struct uet_wire_outer_opts *opts, struct uet_wire_pkt *p)
{
	size_t end = 0;
	int rc;

	rc = pkt_parse_to_pds(frame, len, opts, p, &end);
	if (rc < 0)
		return rc;
	p->payload_off = p->ses_off;
	p->payload_len = (uint16_t)(end - p->ses_off);
	return 0;
}

/* ------------------------------------------------------------------ */
/* Build                                                               */
/* ------------------------------------------------------------------ */

static int
pkt_ses_len(const struct uet_wire_pkt *p, size_t *len)
{
	*len = 0;
	switch (pkt_ses_kind(&p->pds)) {
	case UET_PKT_SES_REQ:
		*len = uet_wire_ses_req_len(&p->req,
				       (enum uet_wire_ses_fmt)p->pds.next_hdr);
		break;
	case UET_PKT_SES_RESP:
		if ((unsigned int)p->resp.fmt != p->pds.next_hdr)
			return -UET_WIRE_E_BAD_COMBINATION;
		*len = uet_wire_ses_resp_fmt_len(p->resp.fmt);
		break;
	case UET_PKT_SES_NONE:
		break;
	}
	return 0;
}

static int
pkt_ses_encode(const struct uet_wire_pkt *p, uint8_t *buf, size_t cap)
{
	switch (pkt_ses_kind(&p->pds)) {
	case UET_PKT_SES_REQ:
		return uet_wire_ses_req_encode(&p->req,
					  (enum uet_wire_ses_fmt)p->pds.next_hdr,
					  buf, cap);
	case UET_PKT_SES_RESP:
		return uet_wire_ses_resp_encode(&p->resp, buf, cap);
	case UET_PKT_SES_NONE:
		break;
	}
	return 0;
}

int
uet_wire_pkt_build(const struct uet_wire_pkt *p, const uint8_t *payload,
	      size_t payload_len, uint8_t *buf, size_t cap)
{
	struct uet_wire_outer o = p->outer;
	size_t ses_len, inner, off;
	int rc;

	rc = pkt_ses_len(p, &ses_len);
	if (rc < 0)
		return rc;
	inner = uet_wire_pds_hdr_size(&p->pds) + ses_len + payload_len;
	if (inner > UINT16_MAX)
		return -UET_WIRE_E_BAD_LENGTH;
	o.inner_len = (uint16_t)inner;
	o.ip_hlen = 0; /* the encoder writes no IPv4 options */
	rc = uet_wire_outer_encode(&o, buf, cap);
	if (rc < 0)
		return rc;
	off = (size_t)rc;
	rc = uet_wire_pds_hdr_encode(&p->pds, buf + off, cap - off);
	if (rc < 0)
		return rc;
	off += (size_t)rc;
	rc = pkt_ses_encode(p, buf + off, cap - off);
	if (rc < 0)
		return rc;
	off += (size_t)rc;
	if (cap - off < payload_len)
		return -UET_WIRE_E_NOSPACE;
	if (payload_len > 0)
		memcpy(buf + off, payload, payload_len);
	off += payload_len;
	rc = uet_wire_outer_udp_csum_fill(&o, buf, off);
	return rc < 0 ? rc : (int)off;
}

/* ------------------------------------------------------------------ */
/* Error text                                                          */
/* ------------------------------------------------------------------ */

static const char *
pkt_err_text(const struct uet_wire_pkt *p)
{
	/* The shared table words BAD_CHECKSUM for the IPv4 header. */
	if (p->err == UET_WIRE_E_BAD_CHECKSUM &&
	    p->err_layer == UET_PKT_LAYER_UDP)
		return "UDP checksum mismatch";
	return uet_wire_strerror(p->err);
}

int
uet_wire_pkt_err_format(const struct uet_wire_pkt *p, char *buf, size_t cap)
{
	const char *what = pkt_err_text(p);
	long want;

	if (p->err == 0)
		return snprintf(buf, cap, "ok");
	if (p->err_layer == UET_PKT_LAYER_IP &&
	    p->err == UET_WIRE_E_TRUNCATED && p->outer.ip_total_len != 0 &&
	    p->outer.ip_total_len > p->err_avail)
		return snprintf(buf, cap,
				"%s (ip total length %u, %u bytes captured)",
				what, (unsigned int)p->outer.ip_total_len,
				(unsigned int)p->err_avail);
	if (p->err_layer == UET_PKT_LAYER_PAYLOAD) {
		want = pkt_payload_declared(p);
		return snprintf(buf, cap,
				"%s (header says %ld payload bytes, %u present)",
				what, want, (unsigned int)p->err_avail);
	}
	return snprintf(buf, cap, "%s (%s at offset %u, %u bytes available)",
			what, uet_wire_pkt_layer_name(p->err_layer),
			(unsigned int)p->err_off, (unsigned int)p->err_avail);
}
