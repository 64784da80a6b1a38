/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer target for the wire module: the whole-frame parser (Ethernet
 * and raw-IP framing) and each decoder on its own. Whatever decodes must
 * re-encode to the same bytes (or, for the outer headers, to a struct
 * that decodes the same); a mismatch aborts so the fuzzer keeps the input.
 */

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <uet/uet_wire.h>

#define BUF_MAX 70000

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n);

static uint8_t out[BUF_MAX];

static void
fail(const char *what)
{
	fprintf(stderr, "fuzz_wire: round trip mismatch: %s\n", what);
	abort();
}

static void
fuzz_pds(const uint8_t *d, size_t n)
{
	struct uet_wire_pds_hdr h, h2;
	int rc, rc2;

	rc = uet_wire_pds_hdr_decode(d, n, &h);
	if (rc < 0)
		return;
	rc2 = uet_wire_pds_hdr_encode(&h, out, sizeof(out));
	if (rc2 != rc || memcmp(out, d, (size_t)rc) != 0)
		fail("pds bytes");
	if (uet_wire_pds_hdr_decode(out, (size_t)rc2, &h2) != rc ||
	    uet_wire_pds_hdr_encode(&h2, out, sizeof(out)) != rc ||
	    memcmp(out, d, (size_t)rc) != 0)
		fail("pds struct");
}

static void
fuzz_ses_req(const uint8_t *d, size_t n, enum uet_wire_ses_fmt fmt)
{
	struct uet_wire_ses_req h;
	uint32_t job = 0;
	uint16_t pid = 0;
	int rc, jrc, prc;

	/* the fields read in place below the SES (TSS: JobID, local
	 * delivery: PIDonFEP) agree with the decoder */
	jrc = uet_wire_ses_job_id(d, n, fmt, &job);
	prc = uet_wire_ses_req_pid(d, n, fmt, &pid);
	rc = uet_wire_ses_req_decode(d, n, fmt, &h);
	if (rc < 0)
		return;
	if (jrc != 0 || job != h.job_id)
		fail("ses request JobID");
	if (prc != 0 || pid != h.pid_on_fep)
		fail("ses request PIDonFEP");
	if (uet_wire_ses_req_encode(&h, fmt, out, sizeof(out)) != rc ||
	    memcmp(out, d, (size_t)rc) != 0)
		fail("ses request");
}

static void
fuzz_ses_resp(const uint8_t *d, size_t n, enum uet_wire_ses_resp_fmt fmt)
{
	struct uet_wire_ses_resp h;
	uint32_t job = 0;
	int rc, jrc;

	jrc = uet_wire_ses_job_id(d, n, fmt, &job);
	rc = uet_wire_ses_resp_decode(d, n, fmt, &h);
	if (rc < 0)
		return;
	if (jrc != 0 || job != h.job_id)
		fail("ses response JobID");
	if (h.fmt != fmt || uet_wire_ses_resp_encode(&h, out, sizeof(out)) != rc ||
	    memcmp(out, d, (size_t)rc) != 0)
		fail("ses response");
}

static void
fuzz_tss(const uint8_t *d, size_t n)
{
	struct uet_wire_tss_hdr h, h2;
	int rc;

	/* cleared so that the struct comparison sees no stale padding */
	memset(&h, 0, sizeof(h));
	memset(&h2, 0, sizeof(h2));
	rc = uet_wire_tss_hdr_decode(d, n, &h);
	if (rc < 0)
		return;
	if (uet_wire_tss_hdr_encode(&h, out, sizeof(out)) != rc ||
	    memcmp(out, d, (size_t)rc) != 0)
		fail("tss bytes");
	if (uet_wire_tss_hdr_decode(out, (size_t)rc, &h2) != rc ||
	    memcmp(&h, &h2, sizeof(h)) != 0)
		fail("tss struct");
}

/* Fields the encoder computes rather than copies. */
static void
outer_normalise(struct uet_wire_outer *o)
{
	o->ip_hlen = 0;
	o->ip_total_len = 0;
	o->ipv4_csum = 0;
	o->udp_csum = 0;
	o->hdr_len = 0;
}

static void
fuzz_outer(const uint8_t *d, size_t n, bool raw)
{
	struct uet_wire_outer_opts opts = { .raw_ip = raw };
	struct uet_wire_outer o, o2;
	int hl, hl2;

	hl = uet_wire_outer_decode_ex(d, n, &opts, &o);
	if (hl < 0)
		return;
	if ((size_t)hl + o.inner_len > n)
		fail("outer inner_len beyond the input");
	hl2 = uet_wire_outer_encode(&o, out, sizeof(out));
	if (hl2 < 0)
		fail("outer re-encode");
	memcpy(out + hl2, d + hl, o.inner_len);
	if (uet_wire_outer_udp_csum_fill(&o, out, (size_t)hl2 + o.inner_len) < 0 ||
	    uet_wire_outer_decode_ex(out, (size_t)hl2 + o.inner_len, &opts,
				&o2) != hl2)
		fail("outer re-decode");
	outer_normalise(&o);
	outer_normalise(&o2);
	if (memcmp(&o, &o2, sizeof(o)) != 0)
		fail("outer struct");
}

/* Trimmed-frame parsing (every DSCP a trim DSCP, checksum left to the
 * caller): a trimmed frame stays inside the input, carries a request's
 * PDS header and nothing after it. */
static void
fuzz_trimmed(const uint8_t *d, size_t n, bool raw)
{
	struct uet_wire_outer_opts opts = {
		.raw_ip = raw, .no_udp_csum = true, .trim_dscps = ~0ull,
	};
	struct uet_wire_pkt p;
	int rc;

	rc = uet_wire_pkt_parse_ex(d, n, &opts, &p);
	if (rc < 0) {
		if (p.err != -rc || p.err_layer == UET_PKT_LAYER_NONE)
			fail("trimmed: error bookkeeping");
		return;
	}
	if (!p.outer.trimmed)
		return;
	if ((size_t)p.pds_off + p.outer.inner_len > n ||
	    p.payload_len != 0 || p.ses != UET_PKT_SES_NONE)
		fail("trimmed: bytes beyond the input or after the PDS header");
	if (!uet_wire_pds_type_is_req(p.pds.type) &&
	    p.pds.type != UET_PDS_TYPE_RUDI_REQ &&
	    p.pds.type != UET_PDS_TYPE_UUD_REQ)
		fail("trimmed: not a request");
}

/* The engine's parse (up to the PDS header) agrees with the full one on
 * the layers both decode, and never points past the input. */
static void
fuzz_pkt_pds(const uint8_t *d, size_t n, bool raw, const struct uet_wire_pkt *full,
	     int full_rc)
{
	struct uet_wire_outer_opts opts = { .raw_ip = raw };
	struct uet_wire_pkt p;
	int rc;

	rc = uet_wire_pkt_parse_pds(d, n, &opts, &p);
	if (full_rc >= 0 || full->err_layer >= UET_PKT_LAYER_SES) {
		if (rc != 0 || p.pds_off != full->pds_off ||
		    p.ses_off != full->ses_off ||
		    memcmp(&p.pds, &full->pds, sizeof(p.pds)) != 0)
			fail("pkt_pds differs from the full parse");
		if ((size_t)p.payload_off + p.payload_len > n)
			fail("pkt_pds: bytes beyond the input");
	} else if (rc != full_rc || p.err_layer != full->err_layer) {
		fail("pkt_pds error differs from the full parse");
	}
}

static void
fuzz_pkt(const uint8_t *d, size_t n, bool raw)
{
	struct uet_wire_outer_opts opts = { .raw_ip = raw };
	struct uet_wire_pkt p, p2;
	size_t inner;
	int rc, len;

	rc = uet_wire_pkt_parse_ex(d, n, &opts, &p);
	fuzz_pkt_pds(d, n, raw, &p, rc);
	if (rc < 0) {
		if (p.err != -rc || p.err_layer == UET_PKT_LAYER_NONE)
			fail("pkt error bookkeeping");
		return;
	}
	len = uet_wire_pkt_build(&p, d + p.payload_off, p.payload_len, out,
			    sizeof(out));
	if (len < 0 || uet_wire_pkt_parse_ex(out, (size_t)len, &opts, &p2) != 0)
		fail("pkt rebuild");
	inner = p.outer.inner_len;
	if (p2.outer.inner_len != inner || p2.payload_len != p.payload_len ||
	    memcmp(out + p2.pds_off, d + p.pds_off, inner) != 0)
		fail("pkt inner bytes");
}

int
LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
	if (n > BUF_MAX / 2)
		return 0;
	fuzz_pkt(d, n, false);
	fuzz_pkt(d, n, true);
	fuzz_trimmed(d, n, false);
	fuzz_trimmed(d, n, true);
	fuzz_outer(d, n, false);
	fuzz_outer(d, n, true);
	fuzz_pds(d, n);
	fuzz_tss(d, n);
	fuzz_ses_req(d, n, UET_SES_FMT_SMALL);
	fuzz_ses_req(d, n, UET_SES_FMT_MEDIUM);
	fuzz_ses_req(d, n, UET_SES_FMT_STD);
	fuzz_ses_resp(d, n, UET_SES_RESP_FMT_RESPONSE);
	fuzz_ses_resp(d, n, UET_SES_RESP_FMT_DATA);
	fuzz_ses_resp(d, n, UET_SES_RESP_FMT_DATA_SMALL);
	/* Headers that follow a frame's outer headers, seen directly. */
	if (n > 42) {
		fuzz_pds(d + 42, n - 42);
		fuzz_tss(d + 42, n - 42);
		fuzz_ses_req(d + 54, n > 54 ? n - 54 : 0, UET_SES_FMT_STD);
	}
	return 0;
}
