/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef UET_TEST_WIRE_FIXTURES_H
#define UET_TEST_WIRE_FIXTURES_H

/*
 * Hand-built frames of every PDS type and SES form, plus corrupt and
 * non-UET frames, each with the parse result it must give. Shared by
 * test_wire_packet.c, the pcap generator (test/apps/gen_pcap.c) and the
 * fuzz seeds, so the three agree on what "every header type" means.
 * Header-only (static inline) because test/unit builds one source per
 * program.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <uet/uet_wire.h>

#define WFX_FRAME_MAX 512
/* Offsets in the base frame: Ethernet + IPv4 + UDP, RUD_REQ (12 B). */
#define WFX_IP_OFF  14
#define WFX_PDS_OFF 42
#define WFX_SES_OFF 54

struct wfx {
	const char *name;
	void (*spec)(struct uet_wire_pkt *p, size_t *plen);
	size_t (*corrupt)(uint8_t *f, size_t len); /* NULL: keep as built */
	enum uet_wire_pkt_layer layer;                  /* expected failure */
	int err;                                   /* positive, or 0 */
	bool not_uet;                              /* not UET traffic */
	bool raw_ip;                               /* frame starts at IP */
};

/* ------------------------------------------------------------------ */
/* Spec helpers                                                        */
/* ------------------------------------------------------------------ */

static inline void
wfx_base(struct uet_wire_pkt *p, uint8_t type, uint8_t nh, uint8_t flags)
{
	memset(p, 0, sizeof(*p));
	uet_wire_outer_init(&p->outer, 4);
	p->outer.dst_mac[0] = 0x02;
	p->outer.dst_mac[5] = 0x02;
	p->outer.src_mac[0] = 0x02;
	p->outer.src_mac[5] = 0x01;
	p->outer.src_addr[0] = 10;
	p->outer.src_addr[3] = 1;
	p->outer.dst_addr[0] = 10;
	p->outer.dst_addr[3] = 2;
	p->outer.udp_sport = 49152;
	p->outer.ipv4_id = 1;
	p->pds.type = type;
	p->pds.next_hdr = nh;
	p->pds.flags = flags;
}

static inline void
wfx_req(struct uet_wire_pkt *p, uint8_t type, uint8_t nh, uint8_t flags)
{
	wfx_base(p, type, nh, flags);
	p->pds.u.req.clear_psn_offset = -3;
	p->pds.u.req.psn = 0x10000123;
	p->pds.u.req.spdcid = 0x11;
	if (flags & UET_PDS_F_SYN)
		p->pds.u.req.psn_offset = 5;
	else
		p->pds.u.req.dpdcid = 0x22;
	if (uet_wire_pds_type_is_cc_req(type)) {
		p->pds.u.req.ccc_id = 3;
		p->pds.u.req.credit_target = 0x100;
	}
}

static inline void
wfx_ses_common(struct uet_wire_ses_req *r, uint8_t op, uint8_t flags)
{
	r->opcode = op;
	r->version = UET_SES_VERSION;
	r->flags = flags | UET_SES_F_REL;
	r->ri_generation = 1;
	r->job_id = 0x123456;
	r->pid_on_fep = 0x42;
	r->resource_index = 0x5;
}

/* A standard request header; SOM packets get the SOM-only fields. */
static inline void
wfx_ses_std(struct uet_wire_pkt *p, uint8_t op, uint8_t flags, uint32_t len)
{
	struct uet_wire_ses_req *r = &p->req;

	wfx_ses_common(r, op, flags);
	r->message_id = 7;
	r->buffer_offset = 0x1000;
	r->initiator = 3;
	r->match_bits = 0xFEED;
	r->request_length = len;
}

static inline void
wfx_ack(struct uet_wire_pkt *p, uint8_t type, uint8_t nh, uint8_t flags)
{
	wfx_base(p, type, nh, flags);
	p->pds.u.ack.ack_psn_offset = 2;
	p->pds.u.ack.cack_psn = 0x10000120;
	p->pds.u.ack.spdcid = 0x22;
	p->pds.u.ack.dpdcid = 0x11;
	p->outer.dscp = 46;
}

static inline void
wfx_resp(struct uet_wire_pkt *p, enum uet_wire_ses_resp_fmt fmt, size_t plen)
{
	p->resp.fmt = fmt;
	p->resp.return_code = UET_RC_OK;
	p->resp.job_id = 0x123456;
	if (fmt == UET_SES_RESP_FMT_RESPONSE) {
		p->resp.opcode = UET_SES_RSP_RESPONSE;
		p->resp.message_id = 7;
		p->resp.ri_generation = 1;
		p->resp.modified_length = 64;
		return;
	}
	p->resp.opcode = UET_SES_RSP_RESPONSE_W_DATA;
	p->resp.payload_length = (uint16_t)plen;
	if (fmt == UET_SES_RESP_FMT_DATA) {
		p->resp.message_id = 9;
		p->resp.read_request_message_id = 7;
		p->resp.modified_length = (uint32_t)plen;
	} else {
		p->resp.original_request_psn = 0x10000123;
	}
}

/* ------------------------------------------------------------------ */
/* Valid frames: every PDS type                                        */
/* ------------------------------------------------------------------ */

#define SOM_EOM (UET_SES_F_SOM | UET_SES_F_EOM)

static inline void
wfx_rud_syn_send(struct uet_wire_pkt *p, size_t *plen)
{
	wfx_req(p, UET_PDS_TYPE_RUD_REQ, UET_PDS_NEXT_REQUEST_STD,
		UET_PDS_F_SYN | UET_PDS_F_AR);
	wfx_ses_std(p, UET_SES_OP_SEND, SOM_EOM, 64);
	*plen = 64;
}

static inline void
wfx_rod_send_cont(struct uet_wire_pkt *p, size_t *plen)
{
	wfx_req(p, UET_PDS_TYPE_ROD_REQ, UET_PDS_NEXT_REQUEST_STD, 0);
	wfx_ses_std(p, UET_SES_OP_SEND, UET_SES_F_EOM, 4128);
	p->req.payload_length = 32;
	p->req.message_offset = 4096;
	*plen = 32;
}

static inline void
wfx_rud_cc_write_medium(struct uet_wire_pkt *p, size_t *plen)
{
	wfx_req(p, UET_PDS_TYPE_RUD_CC_REQ, UET_PDS_NEXT_REQUEST_MEDIUM,
		UET_PDS_F_AR);
	wfx_ses_common(&p->req, UET_SES_OP_WRITE, SOM_EOM);
	p->req.buffer_offset = 0x2000;
	p->req.initiator = 3;
	p->req.match_bits = 0x00AB000000000042ull; /* memory key */
	p->req.request_length = 16;
	*plen = 16;
}

static inline void
wfx_rod_cc_read_small(struct uet_wire_pkt *p, size_t *plen)
{
	wfx_req(p, UET_PDS_TYPE_ROD_CC_REQ, UET_PDS_NEXT_REQUEST_SMALL,
		UET_PDS_F_RETX);
	wfx_ses_common(&p->req, UET_SES_OP_READ, SOM_EOM);
	p->req.buffer_offset = 0x3000;
	p->req.request_length = 256;
	*plen = 0;
}

static inline void
wfx_rudi_write_small(struct uet_wire_pkt *p, size_t *plen)
{
	wfx_base(p, UET_PDS_TYPE_RUDI_REQ, UET_PDS_NEXT_REQUEST_SMALL, 0);
	p->pds.u.rudi.pkt_id = 0x1001;
	wfx_ses_common(&p->req, UET_SES_OP_WRITE, SOM_EOM);
	p->req.buffer_offset = 0x40;
	p->req.request_length = 8;
	*plen = 8;
}

static inline void
wfx_rudi_resp(struct uet_wire_pkt *p, size_t *plen)
{
	wfx_base(p, UET_PDS_TYPE_RUDI_RESP, UET_PDS_NEXT_RESPONSE,
		 UET_PDS_F_M);
	p->pds.u.rudi.pkt_id = 0x1001;
	wfx_resp(p, UET_SES_RESP_FMT_RESPONSE, 0);
	*plen = 0;
}

static inline void
wfx_uud_datagram(struct uet_wire_pkt *p, size_t *plen)
{
	wfx_base(p, UET_PDS_TYPE_UUD_REQ, UET_PDS_NEXT_REQUEST_STD, 0);
	wfx_ses_std(p, UET_SES_OP_DATAGRAM_SEND, SOM_EOM, 32);
	p->req.message_id = 0;
	*plen = 32;
}

static inline void
wfx_ack_clear(struct uet_wire_pkt *p, size_t *plen)
{
	wfx_ack(p, UET_PDS_TYPE_ACK, UET_PDS_NEXT_NONE, 0);
	uet_wire_pds_ack_req_set(&p->pds, UET_PDS_ACK_REQ_CLEAR);
	*plen = 0;
}

static inline void
wfx_ack_cc_nscc(struct uet_wire_pkt *p, size_t *plen)
{
	struct uet_wire_pds_ack *a = &p->pds.u.ack;

	wfx_ack(p, UET_PDS_TYPE_ACK_CC, UET_PDS_NEXT_NONE, UET_PDS_F_M);
	a->cc_type = UET_CC_TYPE_NSCC;
	a->mpr = 6;
	a->sack_psn_offset = 4;
	a->sack_bitmap = 0xF0F0000000000001ull;
	a->cc.nscc.service_time = 77;
	a->cc.nscc.rc = true;
	a->cc.nscc.rcv_cwnd_pend = 5;
	a->cc.nscc.rcvd_bytes = 0x1234;
	a->cc.nscc.ooo_count = 2;
	*plen = 0;
}

static inline void
wfx_ack_cc_credit(struct uet_wire_pkt *p, size_t *plen)
{
	struct uet_wire_pds_ack *a = &p->pds.u.ack;

	wfx_ack(p, UET_PDS_TYPE_ACK_CC, UET_PDS_NEXT_NONE, 0);
	a->cc_type = UET_CC_TYPE_CREDIT;
	a->mpr = 8;
	a->cc.credit.credit = 0x4000;
	a->cc.credit.ooo_count = 1;
	*plen = 0;
}

static inline void
wfx_ack_ccx(struct uet_wire_pkt *p, size_t *plen)
{
	struct uet_wire_pds_ack *a = &p->pds.u.ack;
	size_t i;

	wfx_ack(p, UET_PDS_TYPE_ACK_CCX, UET_PDS_NEXT_NONE, UET_PDS_F_RETX);
	a->cc_type = 2;
	a->mpr = 7;
	for (i = 0; i < sizeof(a->ccx_state); i++)
		a->ccx_state[i] = (uint8_t)(0xA0 + i);
	*plen = 0;
}

static inline void
wfx_nack(struct uet_wire_pkt *p, size_t *plen)
{
	wfx_base(p, UET_PDS_TYPE_NACK, UET_PDS_NEXT_NONE, UET_PDS_F_M);
	p->pds.u.nack.code = UET_NACK_TRIMMED;
	p->pds.u.nack.psn = 0x10000124;
	p->pds.u.nack.spdcid = 0x22;
	p->pds.u.nack.dpdcid = 0x11;
	p->outer.dscp = 46;
	*plen = 0;
}

static inline void
wfx_nack_ccx(struct uet_wire_pkt *p, size_t *plen)
{
	wfx_nack(p, plen);
	p->pds.type = UET_PDS_TYPE_NACK_CCX;
	p->pds.u.nack.code = UET_NACK_NO_RESOURCE;
	p->pds.u.nack.vendor_code = 9;
	p->pds.u.nack.payload = 0xCAFE;
	p->pds.u.nack.nccx_type = 1;
	p->pds.u.nack.nccx_state[0] = 0x0F;
	p->pds.u.nack.nccx_state[15] = 0x55;
}

/* One control packet per ctl_type. */
static inline void
wfx_cp(struct uet_wire_pkt *p, unsigned int ctl)
{
	static const uint8_t flags[UET_PDS_CTL_MAX + 1] = {
		[UET_PDS_CTL_NOOP] = UET_PDS_F_SYN | UET_PDS_F_AR,
		[UET_PDS_CTL_ACK_REQ] = UET_PDS_F_AR,
		[UET_PDS_CTL_CLOSE] = UET_PDS_F_AR | UET_PDS_F_ISROD,
		[UET_PDS_CTL_PROBE] = UET_PDS_F_RETX,
	};
	struct uet_wire_pds_cp *cp = &p->pds.u.cp;

	wfx_base(p, UET_PDS_TYPE_CP, (uint8_t)ctl, flags[ctl]);
	cp->psn = 0x10000130 + ctl;
	cp->spdcid = 0x11;
	if (p->pds.flags & UET_PDS_F_SYN)
		cp->psn_offset = 1;
	else
		cp->dpdcid = 0x22;
	if (ctl == UET_PDS_CTL_PROBE)
		cp->probe_opaque = 0xBEEF;
	cp->payload = ctl == UET_PDS_CTL_CLEAR ? 0x10000100 : ctl;
}

#define WFX_CP(ctl, fn)							\
	static inline void						\
	fn(struct uet_wire_pkt *p, size_t *plen)				\
	{								\
		wfx_cp(p, ctl);						\
		*plen = 0;						\
	}
WFX_CP(UET_PDS_CTL_NOOP, wfx_cp_noop)
WFX_CP(UET_PDS_CTL_ACK_REQ, wfx_cp_ack_req)
WFX_CP(UET_PDS_CTL_CLEAR, wfx_cp_clear)
WFX_CP(UET_PDS_CTL_CLEAR_REQ, wfx_cp_clear_req)
WFX_CP(UET_PDS_CTL_CLOSE, wfx_cp_close)
WFX_CP(UET_PDS_CTL_CLOSE_REQ, wfx_cp_close_req)
WFX_CP(UET_PDS_CTL_PROBE, wfx_cp_probe)
WFX_CP(UET_PDS_CTL_CREDIT, wfx_cp_credit)
WFX_CP(UET_PDS_CTL_CREDIT_REQ, wfx_cp_credit_req)
WFX_CP(UET_PDS_CTL_NEGOTIATION, wfx_cp_negotiation)
#undef WFX_CP

/* ------------------------------------------------------------------ */
/* Valid frames: every SES form                                        */
/* ------------------------------------------------------------------ */

static inline void
wfx_deferrable(struct uet_wire_pkt *p, size_t *plen)
{
	wfx_req(p, UET_PDS_TYPE_RUD_REQ, UET_PDS_NEXT_REQUEST_STD, 0);
	wfx_ses_std(p, UET_SES_OP_DEFERRABLE_SEND, UET_SES_F_SOM, 65536);
	uet_wire_ses_req_set_tokens(&p->req, 0x1111, 0x2222);
	*plen = 64;
}

static inline void
wfx_rtr(struct uet_wire_pkt *p, size_t *plen)
{
	wfx_req(p, UET_PDS_TYPE_RUD_REQ, UET_PDS_NEXT_REQUEST_STD, 0);
	wfx_ses_std(p, UET_SES_OP_DEFERRABLE_RTR, SOM_EOM, 65536);
	uet_wire_ses_req_set_tokens(&p->req, 0x1111, 0x2222);
	uet_wire_ses_req_set_restart_offset(&p->req, 8192);
	*plen = 0;
}

static inline void
wfx_atomic(struct uet_wire_pkt *p, size_t *plen)
{
	wfx_req(p, UET_PDS_TYPE_RUD_REQ, UET_PDS_NEXT_REQUEST_STD, 0);
	wfx_ses_std(p, UET_SES_OP_ATOMIC, SOM_EOM, 8);
	p->req.ext = UET_SES_EXT_ATOMIC;
	p->req.atomic.op = UET_AMO_SUM;
	p->req.atomic.datatype = UET_AMO_DT_INT64;
	p->req.atomic.semantic_control = UET_SES_AMO_SC_CACHEABLE;
	*plen = 8;
}

static inline void
wfx_cas(struct uet_wire_pkt *p, size_t *plen)
{
	wfx_req(p, UET_PDS_TYPE_RUD_REQ, UET_PDS_NEXT_REQUEST_STD, 0);
	wfx_ses_std(p, UET_SES_OP_FETCHING_ATOMIC, SOM_EOM, 8);
	p->req.ext = UET_SES_EXT_ATOMIC_CAS;
	p->req.atomic.op = UET_AMO_CSWAP;
	p->req.atomic.datatype = UET_AMO_DT_UINT64;
	p->req.atomic.compare[15] = 1;
	p->req.atomic.swap[15] = 2;
	*plen = 0;
}

static inline void
wfx_rendezvous(struct uet_wire_pkt *p, size_t *plen)
{
	struct uet_wire_ses_rdv_ext *r = &p->req.rdv;

	wfx_req(p, UET_PDS_TYPE_RUD_REQ, UET_PDS_NEXT_REQUEST_STD, 0);
	wfx_ses_std(p, UET_SES_OP_RENDEZVOUS_SEND, SOM_EOM, 1 << 20);
	p->req.ext = UET_SES_EXT_RDV;
	r->eager_length = 64;
	r->read_ri_generation = 2;
	r->read_pid_on_fep = 0x43;
	r->read_resource_index = 0x6;
	r->read_offset = 64;
	r->read_key_or_match = 0xABCD;
	*plen = 64;
}

static inline void
wfx_tagged_hd(struct uet_wire_pkt *p, size_t *plen)
{
	wfx_req(p, UET_PDS_TYPE_ROD_REQ, UET_PDS_NEXT_REQUEST_STD, 0);
	wfx_ses_std(p, UET_SES_OP_TAGGED_SEND, SOM_EOM | UET_SES_F_HD, 16);
	p->req.header_data = 0x0102030405060708ull;
	*plen = 16;
}

static inline void
wfx_ack_response(struct uet_wire_pkt *p, size_t *plen)
{
	wfx_ack(p, UET_PDS_TYPE_ACK, UET_PDS_NEXT_RESPONSE, 0);
	wfx_resp(p, UET_SES_RESP_FMT_RESPONSE, 0);
	*plen = 0;
}

static inline void
wfx_response_data(struct uet_wire_pkt *p, size_t *plen)
{
	wfx_req(p, UET_PDS_TYPE_RUD_REQ, UET_PDS_NEXT_RESPONSE_DATA, 0);
	wfx_resp(p, UET_SES_RESP_FMT_DATA, 64);
	*plen = 64;
}

static inline void
wfx_response_data_small(struct uet_wire_pkt *p, size_t *plen)
{
	wfx_ack(p, UET_PDS_TYPE_ACK, UET_PDS_NEXT_RESPONSE_DATA_SMALL, 0);
	wfx_resp(p, UET_SES_RESP_FMT_DATA_SMALL, 16);
	*plen = 16;
}

/* ------------------------------------------------------------------ */
/* Valid frames: encapsulation variants                                */
/* ------------------------------------------------------------------ */

static inline void
wfx_v6_addrs(struct uet_wire_outer *o)
{
	static const uint8_t a[16] = { 0x20, 0x01, 0x0D, 0xB8 };

	o->ip_version = 6;
	o->ethertype = UET_ETHERTYPE_IPV6;
	o->ipv4_id = 0;
	o->ipv4_df = false;
	o->ipv6_flow = 0xABCDE;
	memcpy(o->src_addr, a, 16);
	memcpy(o->dst_addr, a, 16);
	o->src_addr[15] = 1;
	o->dst_addr[15] = 2;
}

static inline void
wfx_native_v4(struct uet_wire_pkt *p, size_t *plen)
{
	wfx_rud_syn_send(p, plen);
	p->outer.native = true;
	p->outer.ip_proto = UET_NATIVE_IP_PROTO_DEFAULT;
	p->outer.udp_sport = 0;
	p->outer.udp_dport = 0;
	p->outer.entropy = 0x5A5A;
}

static inline void
wfx_v6_vlan(struct uet_wire_pkt *p, size_t *plen)
{
	wfx_rud_syn_send(p, plen);
	wfx_v6_addrs(&p->outer);
	p->outer.has_vlan = true;
	p->outer.vlan_tci = 0x6064;
}

static inline void
wfx_native_v6(struct uet_wire_pkt *p, size_t *plen)
{
	wfx_ack_cc_nscc(p, plen);
	wfx_v6_addrs(&p->outer);
	p->outer.native = true;
	p->outer.ip_proto = UET_NATIVE_IP_PROTO_DEFAULT;
	p->outer.udp_sport = 0;
	p->outer.udp_dport = 0;
	p->outer.entropy = 0x1234;
}

static inline void
wfx_raw_ip(struct uet_wire_pkt *p, size_t *plen)
{
	wfx_ack_clear(p, plen);
	p->outer.raw_ip = true;
	memset(p->outer.dst_mac, 0, UET_ETH_ALEN);
	memset(p->outer.src_mac, 0, UET_ETH_ALEN);
}

/* ------------------------------------------------------------------ */
/* Corruptions                                                         */
/* ------------------------------------------------------------------ */

static inline void
wfx_ipv4_reseal(uint8_t *ip)
{
	uint32_t sum = 0;
	size_t i;

	ip[10] = 0;
	ip[11] = 0;
	for (i = 0; i < 20; i += 2)
		sum += (uint32_t)(ip[i] << 8 | ip[i + 1]);
	while (sum >> 16)
		sum = (sum & 0xFFFF) + (sum >> 16);
	ip[10] = (uint8_t)(~sum >> 8);
	ip[11] = (uint8_t)~sum;
}

/* A frame whose every length says it ends @p keep bytes after the outer
 * headers: a sender that cut its own packet (malformed). A trimming
 * switch leaves the UDP length alone instead (wfx_switch_trim). */
static inline size_t
wfx_cut_inner(uint8_t *f, size_t len, size_t keep)
{
	struct uet_wire_outer o;
	int hl = uet_wire_outer_decode(f, len, &o);

	if (hl < 0 || keep > o.inner_len)
		return len;
	o.inner_len = (uint16_t)keep;
	if (uet_wire_outer_encode(&o, f, len) != hl)
		return len;
	return (size_t)hl + keep;
}

/* DSCPs of the trimmed classes (config/uet.conf defaults). */
#define WFX_DSCP_TRIMMED 16
#define WFX_DSCP_TRIMMED_LH 18

/* What a trimming switch does (UEC 1.0 packet trimming): keep @p keep
 * bytes after the outer headers, DSCP trimmed, the IP length fixed if
 * @p fix_ip, the UDP length and checksum untouched. */
static inline size_t
wfx_switch_trim(uint8_t *f, size_t len, size_t keep, bool fix_ip)
{
	struct uet_wire_outer o;
	int rc;

	if (uet_wire_outer_decode(f, len, &o) < 0)
		return len;
	rc = uet_wire_outer_frame_trim(&o, f, len, keep, WFX_DSCP_TRIMMED, fix_ip);
	return rc < 0 ? len : (size_t)rc;
}

static inline void
wfx_prologue(uint8_t *f, unsigned int type, unsigned int nh,
	     unsigned int flags)
{
	f[WFX_PDS_OFF] = (uint8_t)(type << 3 | nh >> 1);
	f[WFX_PDS_OFF + 1] = (uint8_t)((nh & 1) << 7 | flags);
}

static inline size_t
wfx_cut_eth(uint8_t *f, size_t len)
{
	(void)f;
	(void)len;
	return 10;
}

static inline size_t
wfx_cut_ip_hdr(uint8_t *f, size_t len)
{
	(void)f;
	(void)len;
	return WFX_IP_OFF + 12;
}

/* A capture cut by the snap length: lengths still say more. */
static inline size_t
wfx_cut_capture(uint8_t *f, size_t len)
{
	(void)f;
	(void)len;
	return 60;
}

static inline size_t
wfx_cut_udp(uint8_t *f, size_t len)
{
	(void)len;
	f[WFX_IP_OFF + 2] = 0;
	f[WFX_IP_OFF + 3] = 24;
	wfx_ipv4_reseal(f + WFX_IP_OFF);
	return WFX_IP_OFF + 24;
}

static inline size_t
wfx_cut_pds(uint8_t *f, size_t len)
{
	return wfx_cut_inner(f, len, 6);
}

static inline size_t
wfx_cut_ses(uint8_t *f, size_t len)
{
	return wfx_cut_inner(f, len, 12 + 8);
}

static inline size_t
wfx_cut_payload(uint8_t *f, size_t len)
{
	return wfx_cut_inner(f, len, 12 + UET_SES_STD_LEN + 16);
}

static inline size_t
wfx_bad_ip_csum(uint8_t *f, size_t len)
{
	f[WFX_IP_OFF + 11] ^= 0x01;
	return len;
}

static inline size_t
wfx_bad_udp_csum(uint8_t *f, size_t len)
{
	f[len - 1] ^= 0x80; /* a payload bit under the IPv6 UDP checksum */
	return len;
}

static inline size_t
wfx_pds_reserved(uint8_t *f, size_t len)
{
	f[WFX_PDS_OFF + 3] = 0x01; /* UUD rsvd(16) */
	return len;
}

static inline size_t
wfx_ses_reserved(uint8_t *f, size_t len)
{
	f[WFX_SES_OFF] |= 0x80; /* rsvd(2) above the opcode */
	return len;
}

static inline size_t
wfx_bad_next_hdr(uint8_t *f, size_t len)
{
	wfx_prologue(f, UET_PDS_TYPE_RUD_REQ, 7, UET_PDS_F_SYN | UET_PDS_F_AR);
	return len;
}

static inline size_t
wfx_bad_opcode(uint8_t *f, size_t len)
{
	f[WFX_SES_OFF] = 0x3F;
	return len;
}

static inline size_t
wfx_bad_type(uint8_t *f, size_t len)
{
	wfx_prologue(f, 0x1F, UET_PDS_NEXT_REQUEST_STD, 0);
	return len;
}

static inline size_t
wfx_bad_flags(uint8_t *f, size_t len)
{
	f[WFX_PDS_OFF + 1] |= 0x01;
	return len;
}

static inline size_t
wfx_bad_nack_code(uint8_t *f, size_t len)
{
	f[WFX_PDS_OFF + 2] = UET_NACK_TRIMMED_ACK;
	return len;
}

static inline void
wfx_ack_extra(struct uet_wire_pkt *p, size_t *plen)
{
	wfx_ack_clear(p, plen);
	*plen = 8; /* bytes after a header that announces none */
}

static inline void
wfx_dns(struct uet_wire_pkt *p, size_t *plen)
{
	wfx_ack_clear(p, plen);
	p->outer.udp_dport = 53;
	*plen = 16;
}

static inline size_t
wfx_arp(uint8_t *f, size_t len)
{
	f[12] = 0x08;
	f[13] = 0x06;
	return len;
}

/* ------------------------------------------------------------------ */
/* The table                                                           */
/* ------------------------------------------------------------------ */

#define WFX_OK(n, s) { n, s, NULL, UET_PKT_LAYER_NONE, 0, false, false }
#define WFX_BAD(n, s, c, l, e) \
	{ n, s, c, UET_PKT_LAYER_##l, UET_WIRE_E_##e, false, false }

static const struct wfx wfx_table[] = {
	WFX_OK("rud_req_syn_send_som", wfx_rud_syn_send),
	WFX_OK("rod_req_send_continuation", wfx_rod_send_cont),
	WFX_OK("rud_cc_req_write_medium", wfx_rud_cc_write_medium),
	WFX_OK("rod_cc_req_read_small", wfx_rod_cc_read_small),
	WFX_OK("rudi_req_write_small", wfx_rudi_write_small),
	WFX_OK("rudi_resp_response", wfx_rudi_resp),
	WFX_OK("uud_req_datagram", wfx_uud_datagram),
	WFX_OK("ack_req_clear", wfx_ack_clear),
	WFX_OK("ack_cc_nscc", wfx_ack_cc_nscc),
	WFX_OK("ack_cc_credit", wfx_ack_cc_credit),
	WFX_OK("ack_ccx", wfx_ack_ccx),
	WFX_OK("nack_trimmed", wfx_nack),
	WFX_OK("nack_ccx", wfx_nack_ccx),
	WFX_OK("cp_noop_syn", wfx_cp_noop),
	WFX_OK("cp_ack_req", wfx_cp_ack_req),
	WFX_OK("cp_clear", wfx_cp_clear),
	WFX_OK("cp_clear_req", wfx_cp_clear_req),
	WFX_OK("cp_close", wfx_cp_close),
	WFX_OK("cp_close_req", wfx_cp_close_req),
	WFX_OK("cp_probe", wfx_cp_probe),
	WFX_OK("cp_credit", wfx_cp_credit),
	WFX_OK("cp_credit_req", wfx_cp_credit_req),
	WFX_OK("cp_negotiation", wfx_cp_negotiation),
	WFX_OK("ses_deferrable_send", wfx_deferrable),
	WFX_OK("ses_deferrable_rtr", wfx_rtr),
	WFX_OK("ses_atomic", wfx_atomic),
	WFX_OK("ses_atomic_cas", wfx_cas),
	WFX_OK("ses_rendezvous", wfx_rendezvous),
	WFX_OK("ses_tagged_header_data", wfx_tagged_hd),
	WFX_OK("ses_response", wfx_ack_response),
	WFX_OK("ses_response_data", wfx_response_data),
	WFX_OK("ses_response_data_small", wfx_response_data_small),
	WFX_OK("native_ipv4", wfx_native_v4),
	WFX_OK("ipv6_vlan", wfx_v6_vlan),
	WFX_OK("native_ipv6", wfx_native_v6),
	{ "raw_ip", wfx_raw_ip, NULL, UET_PKT_LAYER_NONE, 0, false, true },
	WFX_BAD("trunc_eth", wfx_rud_syn_send, wfx_cut_eth, ETH, TRUNCATED),
	WFX_BAD("trunc_ip_header", wfx_rud_syn_send, wfx_cut_ip_hdr, IP,
		TRUNCATED),
	WFX_BAD("trunc_capture", wfx_rud_syn_send, wfx_cut_capture, IP,
		TRUNCATED),
	WFX_BAD("trunc_udp", wfx_rud_syn_send, wfx_cut_udp, UDP, TRUNCATED),
	WFX_BAD("trunc_pds", wfx_rud_syn_send, wfx_cut_pds, PDS, TRUNCATED),
	WFX_BAD("trunc_ses", wfx_rud_syn_send, wfx_cut_ses, SES, TRUNCATED),
	WFX_BAD("trunc_payload", wfx_rod_send_cont, wfx_cut_payload, PAYLOAD,
		TRUNCATED),
	WFX_BAD("bad_ip_checksum", wfx_rud_syn_send, wfx_bad_ip_csum, IP,
		BAD_CHECKSUM),
	WFX_BAD("bad_udp_checksum", wfx_v6_vlan, wfx_bad_udp_csum, UDP,
		BAD_CHECKSUM),
	WFX_BAD("pds_reserved", wfx_uud_datagram, wfx_pds_reserved, PDS,
		RESERVED),
	WFX_BAD("ses_reserved", wfx_rud_syn_send, wfx_ses_reserved, SES,
		RESERVED),
	WFX_BAD("bad_next_hdr", wfx_rud_syn_send, wfx_bad_next_hdr, PDS,
		BAD_NEXT_HDR),
	WFX_BAD("bad_opcode", wfx_rud_syn_send, wfx_bad_opcode, SES,
		BAD_OPCODE),
	WFX_BAD("bad_pds_type", wfx_rud_syn_send, wfx_bad_type, PDS, BAD_TYPE),
	WFX_BAD("bad_pds_flags", wfx_rud_syn_send, wfx_bad_flags, PDS,
		BAD_FLAGS),
	WFX_BAD("bad_nack_code", wfx_nack, wfx_bad_nack_code, PDS,
		BAD_NACK_CODE),
	WFX_BAD("payload_after_bare_ack", wfx_ack_extra, NULL, PAYLOAD,
		BAD_LENGTH),
	{ "not_uet_udp", wfx_dns, NULL, UET_PKT_LAYER_UDP, UET_WIRE_E_NOT_UET,
	  true, false },
	{ "not_uet_arp", wfx_ack_clear, wfx_arp, UET_PKT_LAYER_ETH,
	  UET_WIRE_E_BAD_ETHERTYPE, true, false },
};

#undef WFX_OK
#undef WFX_BAD
#undef SOM_EOM

#define WFX_COUNT (sizeof(wfx_table) / sizeof(wfx_table[0]))

/* Deterministic payload bytes. */
static inline void
wfx_payload(uint8_t *buf, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		buf[i] = (uint8_t)(i * 7 + 1);
}

/*
 * Build fixture @p x into @p buf; @p spec receives the description it was
 * built from. Returns the frame length, or a negative build error.
 */
static inline int
wfx_frame(const struct wfx *x, struct uet_wire_pkt *spec, uint8_t *buf,
	  size_t cap)
{
	uint8_t payload[WFX_FRAME_MAX];
	size_t plen = 0;
	int len;

	x->spec(spec, &plen);
	wfx_payload(payload, plen);
	len = uet_wire_pkt_build(spec, payload, plen, buf, cap);
	if (len < 0 || x->corrupt == NULL)
		return len;
	return (int)x->corrupt(buf, (size_t)len);
}

#endif /* UET_TEST_WIRE_FIXTURES_H */
