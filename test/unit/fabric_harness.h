/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef UET_TEST_FABRIC_HARNESS_H
#define UET_TEST_FABRIC_HARNESS_H

/*
 * Shared by the fabric unit tests: UET frames built with the wire codec
 * (a RUD request carrying a SEND), a delivery recorder, and a virtual
 * clock that jumps from event to event. Header-only because test/unit
 * builds one source per program.
 */

#include <stdint.h>
#include <string.h>

#include <uet/uet_fabric.h>
#include <uet/uet_wire.h>

#include "wire_fixtures.h"

#define FH_FRAME_MAX 9216
#define FH_LOG_MAX 8192

struct fh_rec {
	uint64_t time;
	uint32_t host;
	uint32_t len;
	uint32_t psn;
	uint16_t ev;
	uint8_t tos;
};

struct fh {
	struct uet_fabric *fab;
	uint64_t per_host[UET_FABRIC_HOSTS_MAX];
	uint32_t n;                  /* deliveries recorded in log */
	uint64_t total;              /* all deliveries */
	uint64_t digest;             /* order-sensitive hash of deliveries */
	struct fh_rec log[FH_LOG_MAX];
	uint8_t last[FH_FRAME_MAX];  /* bytes of the last delivery */
	uint32_t last_len;
	int cap_dscp;                /* >= 0: keep the first frame with it */
	uint32_t cap_short;          /* > 0: or the first this short */
	uint8_t cap[FH_FRAME_MAX];
	uint32_t cap_len;            /* 0 until captured */
	uint32_t cap_psn;
};

/* IPv4/Ethernet offsets of a frame built by fh_frame(). */
#define FH_IP_OFF  14
#define FH_UDP_OFF 34
#define FH_PDS_OFF 42

static inline void
fh_deliver(void *arg, uint32_t host, const uint8_t *frame, uint32_t len,
	   uint64_t now)
{
	struct fh *h = arg;
	struct fh_rec r = { .time = now, .host = host, .len = len };
	uint32_t i;

	/* Ethernet + IPv4 + UDP layout; other framings leave them 0. */
	if (len >= FH_PDS_OFF + 8) {
		r.tos = frame[FH_IP_OFF + 1];
		r.ev = (uint16_t)(frame[FH_UDP_OFF] << 8 |
				  frame[FH_UDP_OFF + 1]);
		r.psn = (uint32_t)frame[FH_PDS_OFF + 4] << 24 |
			(uint32_t)frame[FH_PDS_OFF + 5] << 16 |
			(uint32_t)frame[FH_PDS_OFF + 6] << 8 |
			frame[FH_PDS_OFF + 7];
	}
	h->per_host[host]++;
	h->total++;
	if (h->n < FH_LOG_MAX)
		h->log[h->n++] = r;
	h->digest = h->digest * 1099511628211ULL ^ now ^ (uint64_t)host << 48;
	for (i = 0; i < len; i++)
		h->digest = (h->digest ^ frame[i]) * 1099511628211ULL;
	memcpy(h->last, frame, len < FH_FRAME_MAX ? len : FH_FRAME_MAX);
	h->last_len = len;
	if (h->cap_len == 0 && len <= FH_FRAME_MAX &&
	    ((h->cap_dscp >= 0 && r.tos >> 2 == h->cap_dscp) ||
	     len <= h->cap_short)) {
		memcpy(h->cap, frame, len);
		h->cap_len = len;
		h->cap_psn = r.psn;
	}
}

static inline void
fh_config(struct uet_fabric_config *c, struct fh *h)
{
	uet_fabric_config_default(c);
	c->deliver = fh_deliver;
	c->deliver_arg = h;
	h->cap_dscp = -1;
}

/*
 * Build a RUD request (SEND, SOM+EOM) from host @p src to @p dst on
 * entropy value @p ev with @p dscp, PSN @p psn and @p payload bytes.
 * Returns the frame length.
 */
/* A fabric recording into @p h from scratch (needs cmocka's asserts). */
static inline struct uet_fabric *
fh_make(struct fh *h, const struct uet_fabric_config *c)
{
	struct uet_fabric *fab;
	int err = 0;

	memset(h, 0, sizeof(*h));
	h->cap_dscp = -1;
	fab = uet_fabric_create(c, &err);
	assert_non_null(fab);
	h->fab = fab;
	return fab;
}

static inline int
fh_frame(const struct uet_fabric *fab, uint8_t *buf, uint32_t src,
	 uint32_t dst, uint16_t ev, uint8_t dscp, uint32_t psn,
	 uint32_t payload)
{
	static uint8_t data[FH_FRAME_MAX];
	struct uet_wire_pkt p;
	uint32_t i;

	for (i = 0; i < payload && i < FH_FRAME_MAX; i++)
		data[i] = (uint8_t)(i * 7 + psn);
	wfx_req(&p, UET_PDS_TYPE_RUD_REQ, UET_PDS_NEXT_REQUEST_STD, 0);
	wfx_ses_std(&p, UET_SES_OP_SEND, UET_SES_F_SOM | UET_SES_F_EOM,
		    payload);
	p.pds.u.req.psn = psn;
	p.outer.udp_sport = ev;
	p.outer.dscp = dscp;
	uet_fabric_host_addr_get(fab, src, false, p.outer.src_addr);
	uet_fabric_host_addr_get(fab, dst, false, p.outer.dst_addr);
	return uet_wire_pkt_build(&p, data, payload, buf, FH_FRAME_MAX);
}

/*
 * As fh_frame() with other framing: IPv6 addresses when @p ipv6, no
 * Ethernet header when @p raw_ip.
 */
static inline int
fh_frame_ex(const struct uet_fabric *fab, uint8_t *buf, uint32_t src,
	    uint32_t dst, uint16_t ev, uint32_t psn, uint32_t payload,
	    bool ipv6, bool raw_ip)
{
	static uint8_t data[FH_FRAME_MAX];
	struct uet_wire_pkt p;
	uint32_t i;

	for (i = 0; i < payload && i < FH_FRAME_MAX; i++)
		data[i] = (uint8_t)(i * 7 + psn);
	wfx_req(&p, UET_PDS_TYPE_RUD_REQ, UET_PDS_NEXT_REQUEST_STD, 0);
	wfx_ses_std(&p, UET_SES_OP_SEND, UET_SES_F_SOM | UET_SES_F_EOM,
		    payload);
	if (ipv6)
		uet_wire_outer_init(&p.outer, 6);
	p.outer.raw_ip = raw_ip;
	p.pds.u.req.psn = psn;
	p.outer.udp_sport = ev;
	uet_fabric_host_addr_get(fab, src, ipv6, p.outer.src_addr);
	uet_fabric_host_addr_get(fab, dst, ipv6, p.outer.dst_addr);
	return uet_wire_pkt_build(&p, data, payload, buf, FH_FRAME_MAX);
}

/* Run the fabric in virtual time until it is idle or @p until. */
static inline void
fh_run(struct uet_fabric *fab, uint64_t until)
{
	uint64_t t;

	while ((t = uet_fabric_next_event_time(fab)) != UINT64_MAX &&
	       t <= until)
		uet_fabric_advance(fab, t);
	if (until != UINT64_MAX)
		uet_fabric_advance(fab, until);
}

/* Port of the link between two nodes, in the direction a -> b. */
static inline uint32_t
fh_port(const struct uet_fabric *fab, enum uet_fabric_tier ta, uint32_t a,
	enum uet_fabric_tier tb, uint32_t b)
{
	struct uet_fabric_link_info li;
	int link = uet_fabric_link_find(fab, ta, a, tb, b);

	if (link < 0 || uet_fabric_link_info(fab, (uint32_t)link, &li) < 0)
		return UINT32_MAX;
	return li.tier[0] == ta && li.index[0] == a ? li.port[0] : li.port[1];
}

static inline uint64_t
fh_tx(const struct uet_fabric *fab, uint32_t port)
{
	struct uet_fabric_port_stats s;

	if (uet_fabric_port_stats(fab, port, &s) < 0)
		return UINT64_MAX;
	return s.tx_frames;
}

#endif /* UET_TEST_FABRIC_HARNESS_H */
