/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef UET_PDS_CC_H
#define UET_PDS_CC_H

/**
 * @file
 * NSCC and RCCC (UEC 1.0 sections 3.6.13, 3.6.14) as the congestion
 * control of a PDS: uet_pds_cc_cms is a struct uet_pds_cc_ops over the
 * sans-I/O algorithms of uet_cms_nscc.h and uet_cms_rccc.h.
 *
 * State, all allocated by uet_pds_create():
 *  - NSCC congestion contexts (struct uet_nscc, 88 bytes each) in a table
 *    of the PDS instance, one per {peer FA, traffic class}, shared and
 *    refcounted by the PDCs of both roles to that peer; freed when the
 *    last one goes. The table holds max_contexts entries (0: one per PDC
 *    the PDS can hold, so it never fills); when it is full, new PDCs
 *    share one overflow context (one window for all of them, counted in
 *    uet_pds_cc_stats.ctx_overflow).
 *  - Per PDC, in its 32 bytes of CC state: the context index, the last
 *    rcvd_bytes seen, the RCCC credit held and granted so far, the PDC's
 *    share of the context's inflight (sender), its pull pacer slot and
 *    the NSCC destination counters (receiver).
 *  - RCCC's pull pacer (one per PDS, i.e. per engine lcore): 24 bytes per
 *    source slot (max_sources, 256 by default; a PDC takes one at its
 *    first credit request, keeps it until it goes; with none free its
 *    requests are ignored and it sends with its speculative credit
 *    only), granting round-robin at pacer.rate_milli of pacer.link_mbps
 *    from uet_pds_advance(); its next grant is part of
 *    uet_pds_next_deadline().
 */

#include <stdbool.h>
#include <stdint.h>

#include <uet/uet_cms_nscc.h>
#include <uet/uet_cms_rccc.h>
#include <uet/uet_pds.h>

#ifdef __cplusplus
extern "C" {
#endif

/** uet_pds_config.cc_arg of uet_pds_cc_cms. */
struct uet_pds_cc_cms_config {
	bool nscc;  /**< NSCC window on the sender */
	bool rccc;  /**< RCCC credit on the sender, pull pacer at the
		     *   receiver; with nscc a packet goes when both allow */
	/** NSCC parameters (nominal bytes); with RCCC alone max_wnd is the
	 * speculative credit and mtu the nominal MTU. */
	struct uet_nscc_params nscc_params;
	struct uet_rccc_pacer_config pacer; /**< receiver pacer (rccc) */
	uint32_t max_contexts; /**< NSCC contexts; 0: one per PDC */
	/** Sources the receiver's pacer serves at once (a slot taken at a
	 * PDC's first credit request, given back when it goes); 0: 256.
	 * The round-robin scans them per grant. */
	uint32_t max_sources;
	/** RCCC credit of a new PDC before any grant (speculative, bytes);
	 * 0: nscc_params.max_wnd */
	uint32_t spec_credit;
	/** rcv_cwnd_pend reported while the SES refuses requests
	 * (1..127; 0: 64, i.e. cwnd halved per window acknowledged). */
	uint8_t overload_pend;
};

/**
 * Fill @p c from the link rate, base RTT, payload MTU (SES bytes, the
 * PDS's mtu) and whether the fabric trims: uet_nscc_params_default() on
 * the nominal MTU, and uet_rccc_pacer_config_default() with the BDP of
 * that link and RTT.
 * @return
 *   0, or -EINVAL (zero or out-of-range inputs).
 */
int uet_pds_cc_cms_config_default(struct uet_pds_cc_cms_config *c,
				  bool nscc, bool rccc, uint32_t link_mbps,
				  uint32_t base_rtt_ns, uint32_t mtu,
				  bool trimming);

/**
 * Check @p c.
 * @return
 *   0, or -EINVAL with @p why (if not NULL) naming the bad field.
 */
int uet_pds_cc_cms_config_check(const struct uet_pds_cc_cms_config *c,
				const char **why);

/** NSCC + RCCC congestion control; cc_arg: struct uet_pds_cc_cms_config. */
extern const struct uet_pds_cc_ops uet_pds_cc_cms;

/** Congestion state of one PDC (uet_pds_cc_info_get()). */
struct uet_pds_cc_info {
	uint32_t cwnd;         /**< window, nominal bytes (fixed: SES) */
	int32_t inflight;      /**< NSCC inflight of the context */
	uint32_t credit;       /**< RCCC credit held, bytes */
	uint32_t base_rtt_ns;  /**< NSCC base RTT of the context */
	uint32_t avg_delay_ns; /**< NSCC queueing delay average */
	uint32_t max_wnd;      /**< NSCC max_wnd of the context */
	uint32_t ctx;          /**< context index (shared by PDCs) */
	uint32_t ctx_refs;     /**< PDCs on that context */
};

/**
 * The congestion state of the PDC behind @p handle. With another CC
 * than uet_pds_cc_cms only cwnd is filled (cc->cwnd()).
 * @return
 *   0, or -ENOENT.
 */
int uet_pds_cc_info_get(const struct uet_pds *p, uint32_t handle,
			struct uet_pds_cc_info *info);

/** Counters of uet_pds_cc_cms in one PDS (all zero with another CC). */
struct uet_pds_cc_stats {
	uint64_t ctx_used;      /**< contexts in use now */
	uint64_t ctx_max;       /**< table size */
	uint64_t ctx_overflow;  /**< PDCs put on the overflow context */
	uint64_t act[11];       /**< NSCC steps by enum uet_nscc_action */
	uint64_t probes;        /**< base-RTT PROBEs asked for */
	uint64_t probe_acks;    /**< ... answered */
	uint64_t credit_req;    /**< credit requests received (pacer) */
	uint64_t grants;        /**< pacer grants sent */
	uint64_t grant_bytes;   /**< ... bytes */
	uint64_t charged_bytes; /**< ECN-marked data beyond its source's
				 *   grants, charged to the pacer
				 *   (uet_rccc_pacer_arrival()) */
	uint64_t overload;      /**< refusals reported as rcv_cwnd_pend */
	uint64_t src_full;      /**< credit requests of sources without a
				 *   pacer slot (all taken): ignored */
};

/** Counters of @p p (zeroes with another CC). */
void uet_pds_cc_stats_get(const struct uet_pds *p,
			  struct uet_pds_cc_stats *st);

#ifdef __cplusplus
}
#endif

#endif /* UET_PDS_CC_H */
