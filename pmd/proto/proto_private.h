/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef UET_PROTO_PRIVATE_H
#define UET_PROTO_PRIVATE_H

/*
 * Private state of the PDS protocol hook (proto.c: lifecycle, RX, events;
 * proto_tx.c: frame building and TX). One struct uet_ulp_ctx per engine
 * context; only that context's thread touches it.
 */

#include <stdbool.h>
#include <stdint.h>

#include <rte_mbuf.h>

#include <uet/uet_engine.h>
#include <uet/uet_pds.h>
#include <uet/uet_ulp.h>

/* Descriptors / events taken from the PDS per call. */
#define PROTO_BURST 32
/* Outer header templates cached per context (direct mapped). */
#define PROTO_DST_CACHE 16

/* Single-writer counter update, read with relaxed loads. */
#define PROTO_ADD(ctr, n) \
	__atomic_store_n(&(ctr), (ctr) + (uint64_t)(n), __ATOMIC_RELAXED)
#define PROTO_INC(ctr) PROTO_ADD(ctr, 1)

struct proto_dst {
	bool valid;
	uint8_t fa[16];
	struct uet_wire_outer_tpl tpl; /* header bytes, patched per frame */
	struct uet_wire_outer o;       /* the fields (IPv6 UDP checksum) */
};

struct uet_ulp_ctx {
	struct uet_engine_lcore *lc;
	struct uet_pds *pds;
	const struct uet_ulp_ops *ulp;
	void *ulp_priv;
	uint64_t now;
	uint16_t port;          /* engine port used for TX */
	uint16_t max_len;       /* SES bytes per request packet */
	struct proto_dst *dst_last; /* last template used (NULL: none) */
	uint8_t dscp_data;
	uint8_t dscp_retx;
	uint8_t dscp_ctl;
	uint8_t dscp_trimmed;
	uint8_t dscp_trimmed_lh;
	/* UDP checksum of frames sent (port.udp_checksum; IPv6 always) */
	bool csum_v4;
	bool csum_v6;
	bool csum_offload;      /* by the port, else in software */
	/* [tss] on: IPv4 checksums left to the sealer, and where the
	 * headers are told to it (proto_tx.c) */
	bool tss;
	bool tx_ref;            /* payloads by reference (port.tx_zero_copy) */
	/* RX burst being processed (DELIVER events point into it) */
	struct uet_engine_rx *rx;
	uint16_t nb_rx;
	struct uet_ulp_stats st;
	struct proto_dst dst[PROTO_DST_CACHE];
	struct uet_pds_tx txd[PROTO_BURST];
	struct uet_pds_event ev[PROTO_BURST];
	struct rte_mbuf *mb[PROTO_BURST];
	struct rte_mbuf *mb_rx[UET_ENGINE_BURST_MAX]; /* RX burst to free */
};

/* proto.c */
unsigned int proto_events(struct uet_ulp_ctx *ctx);
const uint8_t *proto_ses_bytes(const struct uet_engine_rx *r, uint16_t *len,
			       const uint8_t **tail, uint32_t *tail_len);

/* proto_telemetry.c: add /uet/pds and /uet/cc (idempotent) */
int proto_telemetry_add(void);

/* proto_tx.c */
uint16_t proto_tx_ready(void *priv, struct uet_engine_lcore *lc,
			uint64_t now);
bool proto_fa_is_v4(const uint8_t fa[16]);

/*
 * Smallest payload sent by reference (port.tx_zero_copy): below it the
 * copy costs less than the second mbuf (allocation, attach, chain, the
 * driver's second segment, the free and its shared-info count).
 */
#define PROTO_TX_REF_MIN 1024

#endif /* UET_PROTO_PRIVATE_H */
