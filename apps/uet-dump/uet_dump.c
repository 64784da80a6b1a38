/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * uet-dump: print every UET header of the packets in a pcap or pcapng file,
 * one line (or one JSON object) per packet. See docs/UET-DUMP.md.
 */

#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pcap/pcap.h>

#include <uet/uet_parse.h>
#include <uet/uet_tss.h>
#include <uet/uet_wire.h>

#define EXIT_USAGE 2
#define SLL_HLEN   16 /* Linux cooked capture v1 header */
#define SLL2_HLEN  20 /* Linux cooked capture v2 header */
#ifndef DLT_LINUX_SLL2
#define DLT_LINUX_SLL2 276
#endif
#ifndef DLT_IPV4
#define DLT_IPV4 228
#endif
#ifndef DLT_IPV6
#define DLT_IPV6 229
#endif

/* --tss-key SDI:FILE: a secure domain's key; --tss-client SDI:FILE: a
 * client's keys (client/server mode) */
#define DUMP_KEYS_MAX 16
struct dump_key {
	uint32_t sdi;
	uint8_t key[UET_TSS_KEY_LEN];
	bool client;
	struct uet_tss_client_key ck;
};

struct dump_opts {
	bool json;
	struct dump_key keys[DUMP_KEYS_MAX];
	unsigned int nb_keys;
	/* --tss-cluster REKEY: the keys are cluster mode's domain keys, a
	 * packet's key derived from its source and rekey counter */
	bool cluster;
	uint64_t rekey_interval;
	/* --tss-server: the --tss-key keys are client/server mode's domain
	 * keys, a packet's derived from its SSI */
	bool server;
	/* --tss-rekey N: client/server keys rotated every N TSCs (0: not) */
	uint64_t cs_rekey;
	uint64_t count;          /* 0: no limit */
	uint8_t native_proto;
	uint64_t trim_dscps;   /* DSCPs of trimmed frames (bit per DSCP) */
	bool trim_set;         /* --trim-dscp given: replaces the defaults */
	const char *file;
};

struct dump_stats {
	uint64_t packets;
	uint64_t uet;
	uint64_t malformed;
	uint64_t not_uet;
	uint64_t unknown; /* ended or broken before the UET headers */
};

/* ------------------------------------------------------------------ */
/* Output: the same calls write text (key=value) or JSON               */
/* ------------------------------------------------------------------ */

struct out {
	FILE *f;
	bool json;
	bool first;     /* no field yet in the current object / segment */
	bool first_sec; /* no section yet on this line (text) */
};

static void
json_str(FILE *f, const char *s)
{
	const unsigned char *p;

	fputc('"', f);
	for (p = (const unsigned char *)s; *p != '\0'; p++) {
		if (*p == '"' || *p == '\\')
			fprintf(f, "\\%c", *p);
		else if (*p < 0x20 || *p == 0x7F)
			fprintf(f, "\\u%04x", *p);
		else
			fputc(*p, f);
	}
	fputc('"', f);
}

static void
o_key(struct out *o, const char *k)
{
	if (o->json) {
		fputs(o->first ? "" : ",", o->f);
		json_str(o->f, k);
		fputc(':', o->f);
	} else {
		fputs(o->first ? "" : " ", o->f);
		fprintf(o->f, "%s=", k);
	}
	o->first = false;
}

static void
o_u(struct out *o, const char *k, uint64_t v)
{
	o_key(o, k);
	fprintf(o->f, "%" PRIu64, v);
}

static void
o_i(struct out *o, const char *k, int64_t v)
{
	o_key(o, k);
	fprintf(o->f, "%" PRId64, v);
}

/* Hexadecimal in text, a number in JSON. */
static void
o_x(struct out *o, const char *k, uint64_t v)
{
	o_key(o, k);
	fprintf(o->f, o->json ? "%" PRIu64 : "0x%" PRIx64, v);
}

static void
o_s(struct out *o, const char *k, const char *v)
{
	o_key(o, k);
	if (o->json)
		json_str(o->f, v);
	else
		fputs(v, o->f);
}

/* A quoted string in text too (free-form text such as reasons). */
static void
o_q(struct out *o, const char *k, const char *v)
{
	const char *p;

	if (o->json) {
		o_s(o, k, v);
		return;
	}
	o_key(o, k);
	fputc('"', o->f);
	for (p = v; *p != '\0'; p++)
		fputc(*p == '"' ? '\'' : *p, o->f);
	fputc('"', o->f);
}

/* A code-point name: bare word in text, "k":"NAME" in JSON. */
static void
o_name(struct out *o, const char *k, const char *name, unsigned int v)
{
	char num[16];

	if (name == NULL) {
		snprintf(num, sizeof(num), "0x%x", v);
		name = num;
	}
	if (o->json) {
		o_s(o, k, name);
		return;
	}
	fprintf(o->f, "%s%s", o->first ? "" : " ", name);
	o->first = false;
}

/* A flag: the bare key when set in text, a boolean in JSON. */
static void
o_bool(struct out *o, const char *k, bool v)
{
	if (o->json) {
		o_key(o, k);
		fputs(v ? "true" : "false", o->f);
	} else if (v) {
		fprintf(o->f, "%s%s", o->first ? "" : " ", k);
		o->first = false;
	}
}

static void
o_hex(struct out *o, const char *k, const uint8_t *p, size_t n)
{
	size_t i;

	o_key(o, k);
	fputs(o->json ? "\"" : "", o->f);
	for (i = 0; i < n; i++)
		fprintf(o->f, "%02x", p[i]);
	fputs(o->json ? "\"" : "", o->f);
}

static void
o_list(struct out *o, const char *k, const char *const *v, size_t n)
{
	size_t i;

	o_key(o, k);
	fputc('[', o->f);
	for (i = 0; i < n; i++) {
		fputs(i == 0 ? "" : ",", o->f);
		if (o->json)
			json_str(o->f, v[i]);
		else
			fputs(v[i], o->f);
	}
	fputc(']', o->f);
}

/* A section: " | " in text, a nested object in JSON. */
static void
o_sec(struct out *o, const char *name)
{
	if (o->json) {
		o_key(o, name);
		fputc('{', o->f);
	} else {
		fputs(o->first_sec ? " " : " | ", o->f);
	}
	o->first_sec = false;
	o->first = true;
}

static void
o_end(struct out *o)
{
	if (o->json)
		fputc('}', o->f);
	o->first = false;
}

/* ------------------------------------------------------------------ */
/* Outer headers                                                       */
/* ------------------------------------------------------------------ */

static const char *const ecn_names[] = { "NOT_ECT", "ECT1", "ECT0", "CE" };

static void
addr_str(const struct uet_wire_outer *o, const uint8_t *a, char *buf, size_t cap)
{
	if (inet_ntop(o->ip_version == 4 ? AF_INET : AF_INET6, a, buf,
		      (socklen_t)cap) == NULL)
		snprintf(buf, cap, "?");
}

static void
mac_str(const uint8_t *m, char *buf, size_t cap)
{
	snprintf(buf, cap, "%02x:%02x:%02x:%02x:%02x:%02x", m[0], m[1], m[2],
		 m[3], m[4], m[5]);
}

/* "10.0.0.1:49152 > 10.0.0.2:4793", brackets around IPv6 addresses. */
static void
print_endpoints(struct out *o, const struct uet_wire_outer *u)
{
	char s[INET6_ADDRSTRLEN], d[INET6_ADDRSTRLEN];
	const char *l = u->ip_version == 6 ? "[" : "";
	const char *r = u->ip_version == 6 ? "]" : "";

	addr_str(u, u->src_addr, s, sizeof(s));
	addr_str(u, u->dst_addr, d, sizeof(d));
	if (o->json) {
		o_s(o, "src", s);
		o_s(o, "dst", d);
		return;
	}
	if (u->native)
		fprintf(o->f, "%s > %s native", s, d);
	else
		fprintf(o->f, "%s%s%s:%u > %s%s%s:%u", l, s, r,
			u->udp_sport, l, d, r, u->udp_dport);
	o->first = false;
}

static void
print_link(struct out *o, const struct uet_wire_outer *u)
{
	char m[24];

	if (u->raw_ip)
		return;
	mac_str(u->src_mac, m, sizeof(m));
	o_s(o, "src_mac", m);
	mac_str(u->dst_mac, m, sizeof(m));
	o_s(o, "dst_mac", m);
	if (u->has_vlan) {
		o_u(o, "vlan", u->vlan_tci & 0x0FFF);
		o_u(o, "pcp", u->vlan_tci >> 13);
		o_u(o, "dei", (u->vlan_tci >> 12) & 1);
	}
}

static void
print_outer(struct out *o, const struct uet_wire_outer *u)
{
	o_sec(o, "outer");
	print_endpoints(o, u);
	o_u(o, "ip", u->ip_version);
	o_u(o, "dscp", u->dscp);
	o_s(o, "ecn", ecn_names[u->ecn & 3]);
	o_u(o, "ttl", u->ttl);
	if (u->ip_version == 4) {
		o_x(o, "ipv4_id", u->ipv4_id);
		o_bool(o, "df", u->ipv4_df);
		o_x(o, "ipv4_csum", u->ipv4_csum);
	} else {
		o_x(o, "flow", u->ipv6_flow);
	}
	o_u(o, "ip_len", u->ip_total_len);
	o_u(o, "proto", u->ip_proto);
	if (u->native) {
		o_x(o, "ev", u->entropy);
	} else {
		if (o->json) {
			o_u(o, "sport", u->udp_sport);
			o_u(o, "dport", u->udp_dport);
		}
		o_u(o, "udp_len", u->udp_len);
		o_x(o, "udp_csum", u->udp_csum);
	}
	if (u->trimmed)
		o_bool(o, "trimmed", true);
	print_link(o, u);
	o_end(o);
}

/* ------------------------------------------------------------------ */
/* PDS                                                                 */
/* ------------------------------------------------------------------ */

struct flag_name {
	uint8_t bit;
	const char *name;
};

static const struct flag_name req_flags[] = {
	{ UET_PDS_F_RETX, "RETX" }, { UET_PDS_F_AR, "AR" },
	{ UET_PDS_F_SYN, "SYN" }, { 0, NULL } };
static const struct flag_name ack_flags[] = {
	{ UET_PDS_F_M, "M" }, { UET_PDS_F_RETX, "RETX" },
	{ UET_PDS_F_P, "P" }, { UET_PDS_F_EPSN, "EPSN" }, { 0, NULL } };
static const struct flag_name nack_flags[] = {
	{ UET_PDS_F_M, "M" }, { UET_PDS_F_RETX, "RETX" },
	{ UET_PDS_F_NT, "NT" }, { 0, NULL } };
static const struct flag_name cp_flags[] = {
	{ UET_PDS_F_ISROD, "ISROD" }, { UET_PDS_F_RETX, "RETX" },
	{ UET_PDS_F_AR, "AR" }, { UET_PDS_F_SYN, "SYN" }, { 0, NULL } };
static const struct flag_name rudi_flags[] = {
	{ UET_PDS_F_M, "M" }, { UET_PDS_F_RETX, "RETX" }, { 0, NULL } };

static const struct flag_name *
pds_flag_table(unsigned int type)
{
	if (uet_wire_pds_type_is_req(type))
		return req_flags;
	if (uet_wire_pds_type_is_ack(type))
		return ack_flags;
	if (uet_wire_pds_type_is_nack(type))
		return nack_flags;
	if (type == UET_PDS_TYPE_CP)
		return cp_flags;
	if (type == UET_PDS_TYPE_RUDI_REQ || type == UET_PDS_TYPE_RUDI_RESP)
		return rudi_flags;
	return NULL;
}

static void
print_pds_flags(struct out *o, const struct uet_wire_pds_hdr *h)
{
	const struct flag_name *t = pds_flag_table(h->type);
	const char *names[8];
	size_t n = 0;

	for (; t != NULL && t->name != NULL; t++)
		if (h->flags & t->bit)
			names[n++] = t->name;
	o_list(o, "flags", names, n);
}

static void
print_syn_fields(struct out *o, bool use_rsv, uint16_t psn_offset,
		 uint32_t psn)
{
	o_bool(o, "use_rsv_pdc", use_rsv);
	o_u(o, "psn_offset", psn_offset);
	o_x(o, "start_psn", psn - psn_offset);
}

static void
print_pds_req(struct out *o, const struct uet_wire_pds_hdr *h)
{
	const struct uet_wire_pds_req *r = &h->u.req;

	o_x(o, "psn", r->psn);
	o_i(o, "clear_psn_off", r->clear_psn_offset);
	o_u(o, "spdcid", r->spdcid);
	if (h->flags & UET_PDS_F_SYN)
		print_syn_fields(o, r->use_rsv_pdc, r->psn_offset, r->psn);
	else
		o_u(o, "dpdcid", r->dpdcid);
	if (uet_wire_pds_type_is_cc_req(h->type)) {
		o_u(o, "ccc_id", r->ccc_id);
		o_u(o, "credit_target", r->credit_target);
	}
}

static void
print_ack_cc(struct out *o, const struct uet_wire_pds_hdr *h)
{
	const struct uet_wire_pds_ack *a = &h->u.ack;

	if (h->type == UET_PDS_TYPE_ACK_CC)
		o_s(o, "cc", a->cc_type == UET_CC_TYPE_NSCC ? "NSCC" :
							      "CREDIT");
	else
		o_u(o, "cc_type", a->cc_type);
	o_x(o, "cc_flags", a->cc_flags);
	o_u(o, "mpr", a->mpr);
	o_i(o, "sack_psn_off", a->sack_psn_offset);
	o_x(o, "sack_bitmap", a->sack_bitmap);
	if (h->type == UET_PDS_TYPE_ACK_CCX) {
		o_hex(o, "ccx_state", a->ccx_state, sizeof(a->ccx_state));
	} else if (a->cc_type == UET_CC_TYPE_NSCC) {
		o_u(o, "service_time", a->cc.nscc.service_time);
		o_u(o, "rc", a->cc.nscc.rc);
		o_u(o, "rcv_cwnd_pend", a->cc.nscc.rcv_cwnd_pend);
		o_u(o, "rcvd_bytes", a->cc.nscc.rcvd_bytes);
		o_u(o, "ooo_count", a->cc.nscc.ooo_count);
	} else {
		o_u(o, "credit", a->cc.credit.credit);
		o_u(o, "ooo_count", a->cc.credit.ooo_count);
	}
}

static void
print_pds_ack(struct out *o, const struct uet_wire_pds_hdr *h)
{
	static const char *const req_names[] = { "NONE", "CLEAR", "CLOSE" };
	const struct uet_wire_pds_ack *a = &h->u.ack;
	unsigned int req = uet_wire_pds_ack_req_get(h);

	o_s(o, "req", req < 3 ? req_names[req] : "?");
	if (h->flags & UET_PDS_F_P)
		o_x(o, "probe_opaque", a->probe_opaque);
	else
		o_i(o, "ack_psn_off", a->ack_psn_offset);
	o_x(o, "cack_psn", a->cack_psn);
	o_u(o, "spdcid", a->spdcid);
	o_u(o, "dpdcid", a->dpdcid);
	if (h->flags & UET_PDS_F_EPSN)
		o_x(o, "expected_psn", a->expected_psn);
	if (h->type != UET_PDS_TYPE_ACK)
		print_ack_cc(o, h);
}

static void
print_pds_nack(struct out *o, const struct uet_wire_pds_hdr *h)
{
	const struct uet_wire_pds_nack *n = &h->u.nack;

	o_s(o, "code", uet_wire_pds_nack_code_name(n->code) ?
		       uet_wire_pds_nack_code_name(n->code) : "?");
	o_x(o, "vendor_code", n->vendor_code);
	o_x(o, (h->flags & UET_PDS_F_NT) ? "pkt_id" : "psn", n->psn);
	o_u(o, "spdcid", n->spdcid);
	o_u(o, "dpdcid", n->dpdcid);
	o_x(o, "payload", n->payload);
	if (h->type == UET_PDS_TYPE_NACK_CCX) {
		o_u(o, "nccx_type", n->nccx_type);
		o_hex(o, "nccx_state", n->nccx_state, sizeof(n->nccx_state));
	}
}

static void
print_pds_cp(struct out *o, const struct uet_wire_pds_hdr *h)
{
	const struct uet_wire_pds_cp *c = &h->u.cp;

	o_x(o, "probe_opaque", c->probe_opaque);
	o_x(o, "psn", c->psn);
	o_u(o, "spdcid", c->spdcid);
	if (h->flags & UET_PDS_F_SYN)
		print_syn_fields(o, c->use_rsv_pdc, c->psn_offset, c->psn);
	else
		o_u(o, "dpdcid", c->dpdcid);
	o_x(o, "payload", c->payload);
}

static void
print_pds(struct out *o, const struct uet_wire_pds_hdr *h)
{
	o_sec(o, "pds");
	o_name(o, "type", uet_wire_pds_type_name(h->type), h->type);
	if (h->type == UET_PDS_TYPE_CP)
		o_name(o, "ctl", uet_wire_pds_ctl_type_name(h->next_hdr),
		       h->next_hdr);
	else
		o_s(o, "next", uet_wire_pds_next_hdr_name(h->next_hdr) ?
			       uet_wire_pds_next_hdr_name(h->next_hdr) : "?");
	print_pds_flags(o, h);
	if (uet_wire_pds_type_is_req(h->type))
		print_pds_req(o, h);
	else if (uet_wire_pds_type_is_ack(h->type))
		print_pds_ack(o, h);
	else if (uet_wire_pds_type_is_nack(h->type))
		print_pds_nack(o, h);
	else if (h->type == UET_PDS_TYPE_CP)
		print_pds_cp(o, h);
	else if (h->type != UET_PDS_TYPE_UUD_REQ)
		o_x(o, "pkt_id", h->u.rudi.pkt_id);
	o_end(o);
}

/* ------------------------------------------------------------------ */
/* SES                                                                 */
/* ------------------------------------------------------------------ */

static const char *
ses_fmt_name(enum uet_wire_ses_fmt fmt)
{
	switch (fmt) {
	case UET_SES_FMT_SMALL:
		return "small";
	case UET_SES_FMT_MEDIUM:
		return "medium";
	case UET_SES_FMT_STD:
		return "std";
	}
	return "?";
}

static void
print_req_flags(struct out *o, const struct uet_wire_ses_req *r)
{
	o_bool(o, "som", r->flags & UET_SES_F_SOM);
	o_bool(o, "eom", r->flags & UET_SES_F_EOM);
	o_bool(o, "hd", r->flags & UET_SES_F_HD);
	o_bool(o, "rel", r->flags & UET_SES_F_REL);
	o_bool(o, "ie", r->flags & UET_SES_F_IE);
	o_bool(o, "dc", r->flags & UET_SES_F_DC);
}

static bool
op_is_deferrable(unsigned int op)
{
	return op == UET_SES_OP_DEFERRABLE_SEND ||
	       op == UET_SES_OP_DEFERRABLE_TSEND ||
	       op == UET_SES_OP_DEFERRABLE_RTR;
}

static void
print_req_ext(struct out *o, const struct uet_wire_ses_req *r)
{
	const struct uet_wire_ses_atomic_ext *a = &r->atomic;
	const struct uet_wire_ses_rdv_ext *v = &r->rdv;

	if (r->ext == UET_SES_EXT_ATOMIC || r->ext == UET_SES_EXT_ATOMIC_CAS) {
		o_name(o, "amo", uet_wire_amo_op_name(a->op), a->op);
		o_name(o, "amo_dt", uet_wire_amo_dt_name(a->datatype), a->datatype);
		o_x(o, "amo_sc", a->semantic_control);
	}
	if (r->ext == UET_SES_EXT_ATOMIC_CAS) {
		o_hex(o, "compare", a->compare, sizeof(a->compare));
		o_hex(o, "swap", a->swap, sizeof(a->swap));
	}
	if (r->ext == UET_SES_EXT_RDV) {
		o_u(o, "eager_len", v->eager_length);
		o_u(o, "read_ri_gen", v->read_ri_generation);
		o_u(o, "read_pid", v->read_pid_on_fep);
		o_u(o, "read_ri", v->read_resource_index);
		o_x(o, "read_offset", v->read_offset);
		o_x(o, "read_key", v->read_key_or_match);
	}
}

/* The 64-bit slot at offset 12 and the SOM-dependent slot at 32. */
static void
print_req_slots(struct out *o, const struct uet_wire_ses_req *r,
		enum uet_wire_ses_fmt fmt)
{
	bool som = r->flags & UET_SES_F_SOM;

	if (op_is_deferrable(r->opcode)) {
		o_x(o, "init_token", uet_wire_ses_req_token_initiator(r));
		o_x(o, "target_token", uet_wire_ses_req_token_target(r));
	} else if (!(fmt == UET_SES_FMT_MEDIUM && (r->flags & UET_SES_F_HD))) {
		o_x(o, "buf_offset", r->buffer_offset);
	}
	if (r->opcode == UET_SES_OP_DEFERRABLE_RTR)
		o_u(o, "restart_offset", uet_wire_ses_req_restart_offset(r));
	else if (r->flags & UET_SES_F_HD)
		o_x(o, "header_data", r->header_data);
	if (fmt == UET_SES_FMT_STD && !som) {
		o_u(o, "payload_len", r->payload_length);
		o_u(o, "msg_offset", r->message_offset);
	}
}

static void
print_ses_req(struct out *o, const struct uet_wire_pkt *p)
{
	const struct uet_wire_ses_req *r = &p->req;

	o_sec(o, "ses");
	o_name(o, "opcode", uet_wire_ses_opcode_name(r->opcode), r->opcode);
	o_s(o, "fmt", ses_fmt_name(p->req_fmt));
	print_req_flags(o, r);
	o_u(o, "ver", r->version);
	if (p->req_fmt == UET_SES_FMT_STD)
		o_u(o, "msg_id", r->message_id);
	o_u(o, "ri_gen", r->ri_generation);
	o_x(o, "job", r->job_id);
	o_u(o, "pid", r->pid_on_fep);
	o_u(o, "ri", r->resource_index);
	print_req_slots(o, r, p->req_fmt);
	if (p->req_fmt != UET_SES_FMT_SMALL) {
		o_u(o, "initiator", r->initiator);
		o_x(o, "key_or_match", r->match_bits);
	}
	o_u(o, "len", r->request_length);
	print_req_ext(o, r);
	o_end(o);
}

static void
print_ses_resp(struct out *o, const struct uet_wire_pkt *p)
{
	const struct uet_wire_ses_resp *r = &p->resp;

	o_sec(o, "ses");
	o_name(o, "header", uet_wire_pds_next_hdr_name(r->fmt), r->fmt);
	o_s(o, "opcode", uet_wire_ses_resp_opcode_name(r->opcode) ?
			 uet_wire_ses_resp_opcode_name(r->opcode) : "?");
	o_s(o, "rc", uet_wire_ses_rc_name(r->return_code) ?
		     uet_wire_ses_rc_name(r->return_code) : "?");
	o_s(o, "list", r->list == UET_SES_LIST_OVERFLOW ? "OVERFLOW" :
							   "EXPECTED");
	o_u(o, "ver", r->version);
	o_x(o, "job", r->job_id);
	if (r->fmt != UET_SES_RESP_FMT_DATA_SMALL) {
		o_u(o, "msg_id", r->message_id);
		o_u(o, "modified_len", r->modified_length);
	}
	if (r->fmt == UET_SES_RESP_FMT_RESPONSE)
		o_u(o, "ri_gen", r->ri_generation);
	if (r->fmt == UET_SES_RESP_FMT_DATA) {
		o_u(o, "read_req_msg_id", r->read_request_message_id);
		o_u(o, "msg_offset", r->message_offset);
	}
	if (r->fmt != UET_SES_RESP_FMT_RESPONSE)
		o_u(o, "payload_len", r->payload_length);
	if (r->fmt == UET_SES_RESP_FMT_DATA_SMALL)
		o_x(o, "orig_req_psn", r->original_request_psn);
	o_end(o);
}

/* ------------------------------------------------------------------ */
/* One packet                                                          */
/* ------------------------------------------------------------------ */

static bool
pkt_is_not_uet(const struct uet_wire_pkt *p)
{
	return p->err == UET_WIRE_E_NOT_UET ||
	       p->err == UET_WIRE_E_BAD_ETHERTYPE;
}

/* A TSS-protected packet: parsed up to its TSS header (see print_tss()). */
static bool
pkt_is_tss(const struct uet_wire_pkt *p, const uint8_t *start)
{
	struct uet_wire_tss_hdr t;
	int n;

	if (p->err_layer != UET_PKT_LAYER_PDS ||
	    p->err != UET_WIRE_E_UNSUPPORTED)
		return false;
	n = uet_wire_tss_hdr_decode(start + p->err_off, p->err_avail, &t);
	return n >= 0 && p->err_avail >= (size_t)n + UET_TSS_ICV_LEN;
}

/* Whether the frame is UET is known only once the outer headers name it
 * (the UDP destination port, checked first; the native-IP protocol): a
 * frame that is empty, cut or broken before that is undetermined. */
static bool
pkt_is_unknown(const struct uet_wire_pkt *p)
{
	return p->err != 0 && (p->err_layer < UET_PKT_LAYER_UDP ||
			       (p->err_layer == UET_PKT_LAYER_UDP &&
				p->err == UET_WIRE_E_TRUNCATED));
}

static void
udp_str(const struct uet_wire_outer *u, char *buf, size_t cap)
{
	char s[INET6_ADDRSTRLEN], d[INET6_ADDRSTRLEN];

	addr_str(u, u->src_addr, s, sizeof(s));
	addr_str(u, u->dst_addr, d, sizeof(d));
	snprintf(buf, cap, "udp %s%s%s:%u > %s%s%s:%u",
		 u->ip_version == 6 ? "[" : "", s,
		 u->ip_version == 6 ? "]" : "", u->udp_sport,
		 u->ip_version == 6 ? "[" : "", d,
		 u->ip_version == 6 ? "]" : "", u->udp_dport);
}

static void
print_not_uet(struct out *o, const struct uet_wire_pkt *p, unsigned int etype)
{
	char why[2 * INET6_ADDRSTRLEN + 32];

	if (p->err == UET_WIRE_E_BAD_ETHERTYPE)
		snprintf(why, sizeof(why), "ethertype 0x%04x", etype);
	else if (p->err_layer == UET_PKT_LAYER_UDP)
		udp_str(&p->outer, why, sizeof(why));
	else if (p->err_layer == UET_PKT_LAYER_IP)
		snprintf(why, sizeof(why), "ip proto %u", p->outer.ip_proto);
	else
		snprintf(why, sizeof(why), "not ip");
	if (o->json) {
		o_key(o, "uet");
		fputs("false", o->f);
		o_s(o, "reason", why);
	} else {
		fprintf(o->f, " NOT-UET %s", why);
	}
}

static void
print_error(struct out *o, const struct uet_wire_pkt *p)
{
	char reason[160];

	uet_wire_pkt_err_format(p, reason, sizeof(reason));
	if (o->json) {
		o_s(o, "error", reason);
		o_s(o, "error_layer", uet_wire_pkt_layer_name(p->err_layer));
		o_s(o, "error_code", uet_wire_errname(p->err));
		return;
	}
	fputs(o->first_sec ? " " : " | ", o->f);
	fprintf(o->f, "MALFORMED layer=%s code=%s",
		uet_wire_pkt_layer_name(p->err_layer), uet_wire_errname(p->err));
	o->first = false;
	o_q(o, "reason", reason);
}

/*
 * A TSS-protected packet (UEC 1.0 section 3.7): the frame parser stops
 * where it finds the TSS header instead of a PDS header. Print that header
 * and the size of the protected part (PDS header onward, encrypted) and of
 * the ICV; without the domain's key nothing more can be shown. Returns
 * false when the packet is not such a packet.
 */
static void print_inner(struct out *o, const struct uet_wire_pkt *p);

static const struct dump_key *
tss_key_of(const struct dump_opts *opt, uint32_t sdi)
{
	for (unsigned int i = 0; i < opt->nb_keys; i++)
		if (opt->keys[i].sdi == sdi)
			return &opt->keys[i];
	return NULL;
}

/* A key to try on a packet: AES key, IV mask (NULL: none), the IV's
 * source identifier, and what it is ("key" in the output). */
struct tss_try {
	uint8_t k[UET_TSS_KDF_OUT_LEN];
	bool masked;
	uint32_t id;
	const char *what;
};

/*
 * Cluster mode (docs/TSS.md): the packet's key and IV mask, derived from
 * the domain key, its source (the SSI, else the IPv4 source address) and
 * the rekey counter of its TSC, as the engine derives them.
 */
static int
tss_cluster_key(const struct dump_opts *opt, const struct uet_wire_pkt *p,
		const struct uet_wire_tss_hdr *t, const uint8_t *sdk,
		uint8_t out[UET_TSS_KDF_OUT_LEN])
{
	uint8_t ctx[UET_TSS_KDF_CTX_V6_LEN], src[4];
	uint32_t rekey = opt->rekey_interval == 0 ? 0 :
			 (uint32_t)(t->tsc / opt->rekey_interval);
	uint32_t ssi = htonl(t->ssi);
	int n;

	if (!t->sp && p->outer.ip_version != 4)
		return -1;
	memcpy(src, t->sp ? (const uint8_t *)&ssi : p->outer.src_addr, 4);
	n = uet_tss_kdf_ctx(t->epoch, rekey, src, sizeof(src), ctx);
	if (n < 0)
		return -1;
	return uet_tss_kdf(sdk, UET_TSS_LABEL_CLUSTER, ctx, (size_t)n, out,
			   UET_TSS_KDF_OUT_LEN);
}

/*
 * Client/server mode (docs/TSS.md): a packet with the SSI is a client's
 * (its up key, label U2, the SSI in the IV) or the server's to it (its
 * down key, label U3, the server's IPv4 address in the IV); from the
 * domain key (--tss-server) or the client's own keys (--tss-client, a
 * packet of its SSI and epoch only), then (--tss-rekey) those of the
 * rekey counter of its TSC. Returns the keys to try.
 */
static unsigned int
tss_cs_keys(const struct dump_opts *opt, const struct dump_key *dk,
	    const struct uet_wire_tss_hdr *t, uint32_t src,
	    struct tss_try k[2])
{
	if (!t->sp)
		return 0;
	if (dk->client) {
		if (t->ssi != dk->ck.ssi || t->epoch != dk->ck.epoch)
			return 0;
		memcpy(k[0].k, dk->ck.up, UET_TSS_KDF_OUT_LEN);
		memcpy(k[1].k, dk->ck.down, UET_TSS_KDF_OUT_LEN);
	} else if (!opt->server ||
		   uet_tss_cs_derive(dk->key, UET_TSS_LABEL_SERVER, t->epoch,
				     t->ssi, k[0].k) < 0 ||
		   uet_tss_cs_derive(dk->key, UET_TSS_LABEL_DOWN, t->epoch,
				     t->ssi, k[1].k) < 0) {
		return 0;
	}
	if (opt->cs_rekey != 0 &&
	    (uet_tss_cs_rekey(k[0].k, UET_TSS_LABEL_SERVER, t->epoch,
			      (uint32_t)(t->tsc / opt->cs_rekey), t->ssi,
			      k[0].k) < 0 ||
	     uet_tss_cs_rekey(k[1].k, UET_TSS_LABEL_DOWN, t->epoch,
			      (uint32_t)(t->tsc / opt->cs_rekey), t->ssi,
			      k[1].k) < 0))
		return 0;
	k[0].masked = k[1].masked = true;
	k[0].id = t->ssi;
	k[0].what = "client";
	k[1].id = src;
	k[1].what = "server";
	return 2;
}

/* The keys to try on a packet: the domain's (direct mode), the one
 * derived from it for the packet's source (cluster mode), or a client's
 * and the server's (client/server mode). */
static unsigned int
tss_keys(const struct dump_opts *opt, const struct dump_key *dk,
	 const struct uet_wire_pkt *p, const struct uet_wire_tss_hdr *t,
	 struct tss_try k[2])
{
	uint32_t src;

	memcpy(&src, p->outer.src_addr, 4);
	src = ntohl(src);
	if (!t->sp && p->outer.ip_version != 4)
		return 0;
	if (dk->client || opt->server)
		return tss_cs_keys(opt, dk, t, src, k);
	k[0].masked = opt->cluster;
	k[0].id = t->sp ? t->ssi : src;
	k[0].what = NULL;
	if (!opt->cluster) {
		memcpy(k[0].k, dk->key, UET_TSS_KEY_LEN);
		return 1;
	}
	return tss_cluster_key(opt, p, t, dk->key, k[0].k) < 0 ? 0 : 1;
}

/*
 * Decrypt and verify the protected part with the keys of tss_keys(),
 * rebuild the plain frame (outer headers for the decrypted length, then
 * the plaintext) and print its PDS and SES layers. The ICV verdict is
 * printed either way.
 */
static void
print_tss_open(struct out *o, const struct dump_opts *opt,
	       const struct uet_wire_pkt *p, const uint8_t *inner,
	       const struct uet_wire_tss_hdr *t, size_t hl,
	       const struct dump_key *dk)
{
	static uint8_t frame[UET_OUTER_TPL_MAX + 65536];
	size_t len = p->err_avail - hl - UET_TSS_ICV_LEN;
	uint8_t aad[UET_TSS_AAD_MAX_LEN], iv[UET_TSS_IV_LEN];
	struct uet_wire_outer_opts po = { .raw_ip = p->outer.raw_ip,
				     .native_proto = p->outer.ip_proto,
				     .no_udp_csum = true };
	struct uet_wire_outer ob = p->outer;
	struct tss_try k[2];
	struct uet_wire_pkt q;
	unsigned int nk = tss_keys(opt, dk, p, t, k), i;
	const char *what;
	int al, ol;

	al = uet_tss_aad(&p->outer, inner, hl, aad, sizeof(aad));
	ob.inner_len = (uint16_t)len;
	ob.udp_csum = 0;
	ol = uet_wire_outer_encode(&ob, frame, sizeof(frame));
	for (i = 0; al >= 0 && ol >= 0 && (size_t)ol + len <= sizeof(frame) &&
		    i < nk; i++) {
		uet_tss_iv(k[i].id, t->epoch, t->tsc,
			   k[i].masked ? k[i].k + UET_TSS_KEY_LEN : NULL, iv);
		if (uet_tss_gcm_open(k[i].k, iv, aad, (size_t)al, inner + hl,
				     len, frame + ol, inner + hl + len) == 0)
			break;
	}
	what = i < nk ? k[i].what : NULL;
	explicit_bzero(k, sizeof(k));
	if (i >= nk) {
		o_s(o, "icv", "bad");
		o_end(o);
		return;
	}
	o_s(o, "icv", "ok");
	if (what != NULL)
		o_s(o, "key", what);
	o_end(o);
	uet_wire_pkt_parse_ex(frame, (size_t)ol + len, &po, &q);
	print_inner(o, &q);
}

static bool
print_tss(struct out *o, const struct dump_opts *opt, const struct uet_wire_pkt *p,
	  const uint8_t *inner)
{
	struct uet_wire_pkt bad = *p;
	const struct dump_key *key;
	struct uet_wire_tss_hdr t;
	size_t avail = p->err_avail;
	int n;

	if (p->err_layer != UET_PKT_LAYER_PDS ||
	    p->err != UET_WIRE_E_UNSUPPORTED ||
	    !uet_wire_tss_hdr_present(inner, avail))
		return false;
	print_outer(o, &p->outer);
	n = uet_wire_tss_hdr_decode(inner, avail, &t);
	if (n >= 0 && avail < (size_t)n + UET_TSS_ICV_LEN)
		n = -UET_WIRE_E_TRUNCATED;
	if (n < 0) {
		bad.err = -n;
		print_error(o, &bad);
		return true;
	}
	o_sec(o, "tss");
	o_name(o, "type", uet_wire_pds_type_name(UET_PDS_TYPE_TSS),
	       UET_PDS_TYPE_TSS);
	o_x(o, "sdi", t.sdi);
	o_u(o, "an", t.an);
	if (t.sp)
		o_x(o, "ssi", t.ssi);
	o_u(o, "epoch", t.epoch);
	o_u(o, "tsc", t.tsc);
	o_u(o, "encrypted", avail - (size_t)n - UET_TSS_ICV_LEN);
	key = tss_key_of(opt, t.sdi);
	if (key != NULL) {
		print_tss_open(o, opt, p, inner, &t, (size_t)n, key);
		return true;
	}
	o_u(o, "icv", UET_TSS_ICV_LEN);
	o_end(o);
	return true;
}

/* Print every layer the parser completed, then the error if any. */
static void
print_layers(struct out *o, const struct dump_opts *opt,
	     const struct uet_wire_pkt *p, const uint8_t *frame)
{
	if (print_tss(o, opt, p, frame + p->err_off))
		return;
	if (p->err == 0 || p->err_layer >= UET_PKT_LAYER_PDS)
		print_outer(o, &p->outer);
	print_inner(o, p);
}

/* The PDS layer onward, then the error if any. */
static void
print_inner(struct out *o, const struct uet_wire_pkt *p)
{
	unsigned int failed = p->err_layer;
	bool ok = p->err == 0;

	if (ok || failed >= UET_PKT_LAYER_SES)
		print_pds(o, &p->pds);
	if ((ok || failed >= UET_PKT_LAYER_PAYLOAD) &&
	    p->ses == UET_PKT_SES_REQ)
		print_ses_req(o, p);
	if ((ok || failed >= UET_PKT_LAYER_PAYLOAD) &&
	    p->ses == UET_PKT_SES_RESP)
		print_ses_resp(o, p);
	if (ok) {
		if (o->json)
			o_u(o, "payload", p->payload_len);
		else
			fprintf(o->f, " | payload %u", p->payload_len);
		return;
	}
	print_error(o, p);
}

/*
 * Bytes of link header to skip for @p dlt and whether IP follows directly.
 * Returns -1 when the capture is shorter than the link header; stores in
 * @p etype the protocol of a cooked capture (0 when not known).
 */
static int
link_offset(int dlt, const uint8_t *d, size_t len, bool *raw,
	    unsigned int *etype)
{
	*raw = true;
	*etype = 0;
	switch (dlt) {
	case DLT_EN10MB:
		*raw = false;
		return 0;
	case DLT_LINUX_SLL:
		if (len < SLL_HLEN)
			return -1;
		*etype = (unsigned int)(d[14] << 8 | d[15]);
		return SLL_HLEN;
	case DLT_LINUX_SLL2:
		if (len < SLL2_HLEN)
			return -1;
		*etype = (unsigned int)(d[0] << 8 | d[1]);
		return SLL2_HLEN;
	default: /* DLT_RAW, DLT_IPV4, DLT_IPV6 */
		return 0;
	}
}

static bool
dlt_supported(int dlt)
{
	return dlt == DLT_EN10MB || dlt == DLT_RAW || dlt == DLT_IPV4 ||
	       dlt == DLT_IPV6 || dlt == DLT_LINUX_SLL ||
	       dlt == DLT_LINUX_SLL2;
}

/*
 * Parse one frame into @p p; a short link header counts as truncated.
 * Returns where the parsed bytes start (after the link header).
 */
static const uint8_t *
parse_frame(const struct dump_opts *opt, int dlt, const uint8_t *d,
	    size_t caplen, struct uet_wire_pkt *p, unsigned int *etype)
{
	struct uet_wire_outer_opts po = {
		.native_proto = opt->native_proto,
		.trim_dscps = opt->trim_dscps,
	};
	int off = link_offset(dlt, d, caplen, &po.raw_ip, etype);

	if (off >= 0 && (*etype == 0 || *etype == UET_ETHERTYPE_IPV4 ||
			 *etype == UET_ETHERTYPE_IPV6)) {
		uet_wire_pkt_parse_ex(d + off, caplen - (size_t)off, &po, p);
		return d + off;
	}
	memset(p, 0, sizeof(*p));
	p->err_layer = UET_PKT_LAYER_ETH;
	p->err = off < 0 ? UET_WIRE_E_TRUNCATED : UET_WIRE_E_BAD_ETHERTYPE;
	p->err_avail = (uint32_t)caplen;
	return d;
}

static void
dump_packet(const struct dump_opts *opt, struct dump_stats *st, int dlt,
	    const struct pcap_pkthdr *h, const uint8_t *d, double t)
{
	struct out o = { stdout, opt->json, true, true };
	const uint8_t *start;
	unsigned int etype;
	struct uet_wire_pkt p;

	st->packets++;
	if (o.json) {
		fputc('{', o.f);
		o_u(&o, "n", st->packets);
		o_key(&o, "time");
		fprintf(o.f, "%.6f", t);
		o_u(&o, "len", h->len);
		o_u(&o, "caplen", h->caplen);
	} else {
		fprintf(o.f, "%" PRIu64 " %.6f", st->packets, t);
	}
	start = parse_frame(opt, dlt, d, h->caplen, &p, &etype);
	if (etype == 0 && dlt == DLT_EN10MB && h->caplen >= 14)
		etype = (unsigned int)(d[12] << 8 | d[13]);
	if (pkt_is_not_uet(&p)) {
		st->not_uet++;
		print_not_uet(&o, &p, etype);
	} else if (pkt_is_unknown(&p)) {
		st->unknown++;
		st->malformed++;
		if (o.json) {
			o_key(&o, "uet");
			fputs("false", o.f);
			o_s(&o, "reason", "undetermined: the frame ends or is "
			    "malformed before the UET headers");
		}
		print_error(&o, &p);
	} else {
		st->uet++;
		st->malformed += p.err != 0 && !pkt_is_tss(&p, start);
		if (o.json) {
			o_key(&o, "uet");
			fputs("true", o.f);
		}
		print_layers(&o, opt, &p, start);
	}
	fputs(o.json ? "}\n" : "\n", o.f);
}

/* ------------------------------------------------------------------ */
/* Main                                                                */
/* ------------------------------------------------------------------ */

static void
usage(FILE *f)
{
	fprintf(f,
		"usage: uet-dump [--json] [--count N] [--native-proto P] "
		"[--trim-dscp D]... [--tss-key SDI:FILE]... "
		"[--tss-cluster REKEY | --tss-server] [--tss-client SDI:FILE]... "
		"[--tss-rekey REKEY] FILE.pcap|FILE.pcapng\n"
		"  -j, --json            one JSON object per packet\n"
		"  -c, --count N         stop after N packets\n"
		"  -p, --native-proto P  IP protocol of native-IP UET "
		"(default %d)\n"
		"  -t, --trim-dscp D     a frame with DSCP D shorter than its "
		"UDP/IP\n"
		"                        length was trimmed by a switch "
		"(repeatable;\n"
		"                        default 16 and 18, the engine's "
		"[dscp])\n"
		"  -k, --tss-key SDI:FILE  decrypt and dissect the packets "
		"of secure\n"
		"                        domain SDI (direct mode) with the "
		"key in FILE\n"
		"                        (64 hex digits, mode 0600; "
		"repeatable)\n"
		"  -C, --tss-cluster REKEY  the --tss-key keys are cluster "
		"mode's: derive\n"
		"                        each packet's key from its source "
		"and TSC / REKEY\n"
		"                        ([tss] rekey_interval, 0: none)\n"
		"  -S, --tss-server      the --tss-key keys are "
		"client/server mode's:\n"
		"                        derive each packet's key from its "
		"SSI\n"
		"  -K, --tss-client SDI:FILE  decrypt the packets of a "
		"client/server client\n"
		"                        (both ways) with its key file "
		"(uet-tss-key derive;\n"
		"                        repeatable)\n"
		"  -R, --tss-rekey REKEY  the client/server keys rotate: "
		"derive each\n"
		"                        packet's from them and TSC / REKEY "
		"([tss]\n"
		"                        rekey_interval)\n"
		"  -h, --help            this text\n"
		"  --version             the uet-dump and libpcap versions\n"
		"Exit: 0 file read (even with malformed packets), 1 file not "
		"readable, 2 bad usage.\n", UET_NATIVE_IP_PROTO_DEFAULT);
}

/* A --tss-client key was given. */
static bool
has_client_key(const struct dump_opts *opt)
{
	for (unsigned int i = 0; i < opt->nb_keys; i++)
		if (opt->keys[i].client)
			return true;
	return false;
}

/* --tss-key SDI:FILE, --tss-client SDI:FILE (@p client) */
static int
tss_key_arg(struct dump_opts *opt, const char *arg, bool client)
{
	struct dump_key *k = &opt->keys[opt->nb_keys];
	struct uet_parse_err err;
	const char *colon = strchr(arg, ':');
	char sdi[16], why[128];

	if (opt->nb_keys == DUMP_KEYS_MAX) {
		fprintf(stderr, "uet-dump: --tss-key: at most %d keys\n",
			DUMP_KEYS_MAX);
		return -1;
	}
	if (colon == NULL || (size_t)(colon - arg) >= sizeof(sdi)) {
		fprintf(stderr, "uet-dump: --tss-key: expected SDI:FILE\n");
		return -1;
	}
	snprintf(sdi, sizeof(sdi), "%.*s", (int)(colon - arg), arg);
	if (uet_parse_u32(sdi, 1, UET_TSS_SDI_MAX, &k->sdi, &err) < 0) {
		fprintf(stderr, "uet-dump: --tss-key: SDI: %s\n", err.msg);
		return -1;
	}
	k->client = client;
	if ((client ? uet_tss_client_key_read(colon + 1, &k->ck, why,
					      sizeof(why)) :
		      uet_parse_key_file(colon + 1, k->key, sizeof(k->key),
					 why, sizeof(why))) < 0) {
		fprintf(stderr, "uet-dump: --tss-%s: %s: %s\n",
			client ? "client" : "key", colon + 1, why);
		return -1;
	}
	opt->nb_keys++;
	return 0;
}

static int
parse_args(int argc, char **argv, struct dump_opts *opt)
{
	static const struct option lopts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "count", required_argument, NULL, 'c' },
		{ "native-proto", required_argument, NULL, 'p' },
		{ "trim-dscp", required_argument, NULL, 't' },
		{ "tss-key", required_argument, NULL, 'k' },
		{ "tss-cluster", required_argument, NULL, 'C' },
		{ "tss-server", no_argument, NULL, 'S' },
		{ "tss-client", required_argument, NULL, 'K' },
		{ "tss-rekey", required_argument, NULL, 'R' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	struct uet_parse_err err;
	int c;

	uint8_t dscp;

	while ((c = getopt_long(argc, argv, "jc:p:t:k:C:SK:R:h", lopts, NULL)) !=
	       -1) {
		switch (c) {
		case 'j':
			opt->json = true;
			break;
		case 'c':
			if (uet_parse_u64(optarg, 1, UINT64_MAX, &opt->count,
					  &err) < 0) {
				fprintf(stderr, "uet-dump: --count: %s\n",
					err.msg);
				return -1;
			}
			break;
		case 'p':
			if (uet_parse_u8(optarg, 1, 255, &opt->native_proto,
					 &err) < 0 ||
			    opt->native_proto == UET_IPPROTO_UDP) {
				fprintf(stderr, "uet-dump: --native-proto: %s\n",
					opt->native_proto == UET_IPPROTO_UDP ?
					"17 is UDP" : err.msg);
				return -1;
			}
			break;
		case 't':
			if (uet_parse_u8(optarg, 0, 63, &dscp, &err) < 0) {
				fprintf(stderr, "uet-dump: --trim-dscp: %s\n",
					err.msg);
				return -1;
			}
			if (!opt->trim_set)
				opt->trim_dscps = 0;
			opt->trim_set = true;
			opt->trim_dscps |= UET_OUTER_DSCP_BIT(dscp);
			break;
		case 'k':
		case 'K':
			if (tss_key_arg(opt, optarg, c == 'K') < 0)
				return -1;
			break;
		case 'S':
			opt->server = true;
			break;
		case 'C':
			if (uet_parse_u64(optarg, 0, UET_TSS_TSC_MAX,
					  &opt->rekey_interval, &err) < 0) {
				fprintf(stderr, "uet-dump: --tss-cluster: %s\n",
					err.msg);
				return -1;
			}
			opt->cluster = true;
			break;
		case 'R':
			if (uet_parse_u64(optarg, 1, UET_TSS_TSC_MAX,
					  &opt->cs_rekey, &err) < 0) {
				fprintf(stderr, "uet-dump: --tss-rekey: %s\n",
					err.msg);
				return -1;
			}
			break;
		case 'h':
			usage(stdout);
			exit(EXIT_SUCCESS);
		case 'V':
			printf("uet-dump %s (%s)\n", UET_VERSION,
			       pcap_lib_version());
			exit(EXIT_SUCCESS);
		default:
			return -1;
		}
	}
	if (opt->cluster && opt->server) {
		fprintf(stderr, "uet-dump: --tss-cluster and --tss-server: "
			"one mode\n");
		return -1;
	}
	if (opt->cs_rekey != 0 && !opt->server && !has_client_key(opt)) {
		fprintf(stderr, "uet-dump: --tss-rekey: client/server keys "
			"only (--tss-server or --tss-client)\n");
		return -1;
	}
	if ((opt->cluster || opt->server) && opt->nb_keys == 0) {
		fprintf(stderr, "uet-dump: --tss-%s: no --tss-key to "
			"derive from\n", opt->cluster ? "cluster" : "server");
		return -1;
	}
	if (optind != argc - 1) {
		fprintf(stderr, "uet-dump: expected exactly one file\n");
		return -1;
	}
	opt->file = argv[optind];
	return 0;
}

static int
dump_file(const struct dump_opts *opt, struct dump_stats *st)
{
	char errbuf[PCAP_ERRBUF_SIZE];
	struct pcap_pkthdr *h;
	const uint8_t *d;
	double t0 = 0, t;
	pcap_t *pc;
	int rc, dlt;

	pc = pcap_open_offline(opt->file, errbuf);
	if (pc == NULL) {
		/* libpcap's message already names the file when it helps. */
		if (strstr(errbuf, opt->file) != NULL)
			fprintf(stderr, "uet-dump: %s\n", errbuf);
		else
			fprintf(stderr, "uet-dump: %s: %s\n", opt->file,
				errbuf);
		return -1;
	}
	dlt = pcap_datalink(pc);
	if (!dlt_supported(dlt)) {
		fprintf(stderr, "uet-dump: %s: unsupported link type %s\n",
			opt->file, pcap_datalink_val_to_name(dlt) ?
			pcap_datalink_val_to_name(dlt) : "?");
		pcap_close(pc);
		return -1;
	}
	rc = 0;
	while (opt->count == 0 || st->packets < opt->count) {
		rc = pcap_next_ex(pc, &h, &d);
		if (rc != 1)
			break;
		t = (double)h->ts.tv_sec + (double)h->ts.tv_usec / 1e6;
		if (st->packets == 0)
			t0 = t;
		dump_packet(opt, st, dlt, h, d, t - t0);
	}
	fflush(stdout);
	if (rc == PCAP_ERROR)
		fprintf(stderr, "uet-dump: %s: %s\n", opt->file,
			pcap_geterr(pc));
	fprintf(stderr,
		"uet-dump: %" PRIu64 " packets, %" PRIu64 " uet, %" PRIu64
		" malformed, %" PRIu64 " not uet, %" PRIu64 " undetermined\n",
		st->packets, st->uet, st->malformed, st->not_uet, st->unknown);
	pcap_close(pc);
	return rc == PCAP_ERROR ? -1 : 0;
}

int
main(int argc, char **argv)
{
	struct dump_opts opt = {
		.native_proto = UET_NATIVE_IP_PROTO_DEFAULT,
		.trim_dscps = UET_OUTER_DSCP_BIT(16) | UET_OUTER_DSCP_BIT(18),
	};
	struct dump_stats st = { 0 };
	int rc;

	if (parse_args(argc, argv, &opt) < 0) {
		usage(stderr);
		return EXIT_USAGE;
	}
	rc = dump_file(&opt, &st);
	explicit_bzero(opt.keys, sizeof(opt.keys));
	return rc < 0 ? EXIT_FAILURE : EXIT_SUCCESS;
}
