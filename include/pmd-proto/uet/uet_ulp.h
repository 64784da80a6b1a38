/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef UET_ULP_H
#define UET_ULP_H

/**
 * @file
 * The PDS protocol hook of the engine and the upper-layer protocol (ULP)
 * interface it drives.
 *
 * `uet_proto_hook_ops` is a struct uet_engine_hook_ops that runs one
 * sans-I/O PDS instance (uet_pds.h) per engine lcore context:
 *
 *   RX: decoded UET frames -> uet_pds_rx() (metadata from the outer
 *       headers: FAs, EV, ECN CE, trimmed from DSCP) -> DELIVER events
 *       -> ulp.deliver(); DONE events -> ulp.done()
 *   advance: uet_pds_advance(now) once per iteration
 *   TX: ulp.poll() (the ULP submits with uet_ulp_submit()), then
 *       uet_pds_tx_burst() -> one frame per descriptor built straight
 *       into an mbuf: outer headers (DSCP per class, ECT(0) on requests,
 *       EV), PDS header, then ulp.build() writes SES header + payload for
 *       NEW/RETX descriptors; control packets carry the PDS header and
 *       the stored SES response, if any.
 *
 * The ULP is what the SES will be: it keeps its messages, and builds each
 * request packet on demand from an opaque 64-bit cookie (for example
 * message + packet index) — the PDS keeps no packet copies, so a
 * retransmission is simply another build() of the same cookie. A target
 * delivery may produce an SES response with uet_ulp_respond(); the PDS
 * stores it and sends it in an ACK (guaranteed delivery), and the
 * initiator gets it in done().
 *
 * Everything runs on the thread of the engine context; nothing allocates
 * after uet_engine_create(). Counters, no logs, on the data path.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <uet/uet_engine.h>
#include <uet/uet_pds.h>
#include <uet/uet_pds_cc.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Per-lcore context of the PDS hook (owns one struct uet_pds). */
struct uet_ulp_ctx;

/** Who sent a delivered request, and the handle to answer it. */
struct uet_ulp_peer {
	struct uet_pds_fa fa; /**< source FA */
	uint32_t pdc;         /**< PDC handle (UINT32_MAX for RUDI/UUD) */
	uint32_t psn;         /**< PSN (RUDI: pkt_id) */
	uint8_t mode;         /**< enum uet_pds_mode */
	uint8_t next_hdr;     /**< PDS next header of the request */
	uint16_t ev;          /**< entropy value it arrived with */
};

/**
 * Upper-layer protocol callbacks (the SES, or a test traffic source).
 * `build` is mandatory, and either `deliver` and `done` or `event`. @p priv is the ULP's
 * per-context state made by `init`.
 */
struct uet_ulp_ops {
	size_t size;      /**< sizeof(struct uet_ulp_ops) */
	const char *name; /**< for logs and stats */
	/** At engine creation (control thread): per-context state. */
	int (*init)(struct uet_ulp_ctx *ctx, void *arg, void **priv);
	/** At engine free (control thread). */
	void (*fini)(struct uet_ulp_ctx *ctx, void *priv);
	/**
	 * Write the SES header and payload of the request packet @p cookie
	 * into @p buf (at most @p cap bytes).
	 * @return
	 *   Bytes written, which must equal the `len` it was submitted
	 *   with, or a negative errno (the packet is not sent and counted;
	 *   the PDS retransmits it later).
	 */
	int (*build)(void *priv, uint64_t cookie, uint32_t psn, bool is_retx,
		     uint8_t *buf, size_t cap);
	/**
	 * Optional: does this request need an SES response (guaranteed
	 * delivery)? Called before the PDS sees the packet. NULL: never.
	 */
	bool (*resp_expected)(void *priv, const struct uet_pkt *pkt);
	/**
	 * A request for the ULP, delivered by the PDS per its mode (RUD/ROD
	 * exactly once, ROD in order). @p pkt is the parsed frame (SES
	 * header in pkt->req); @p payload / @p len the bytes after the SES
	 * header; all valid during the call only. With resp_expected, call
	 * uet_ulp_respond() (now or later).
	 */
	void (*deliver)(void *priv, struct uet_ulp_ctx *ctx,
			const struct uet_pkt *pkt, const uint8_t *payload,
			uint16_t len, const struct uet_ulp_peer *peer);
	/**
	 * A submitted cookie completed: @p status 0 (acknowledged; for UUD:
	 * sent), -ETIMEDOUT, -ECONNRESET, -ECONNABORTED, -ECONNREFUSED.
	 * @p resp is the SES response from the ACK or the RUDI_RESP, up to
	 * UET_PDS_RESP_MAX bytes (@p resp_len 0 if none).
	 */
	void (*done)(void *priv, struct uet_ulp_ctx *ctx, uint64_t cookie,
		     int status, const uint8_t *resp, uint16_t resp_len,
		     uint8_t resp_next_hdr);
	/**
	 * Optional: once per iteration before transmission; the place to
	 * call uet_ulp_submit() until it returns -EAGAIN.
	 * @return units of work done (0 when idle, for idle detection).
	 */
	unsigned int (*poll)(void *priv, struct uet_ulp_ctx *ctx,
			     uint64_t now);
	/**
	 * Optional raw-event path (the SES glue): when set, every PDS event
	 * goes here instead of deliver()/done(), which may then be NULL.
	 * DELIVER: @p ses / @p len are the bytes after the PDS header of the
	 * delivered frame (valid during the call only; NULL/0 when the frame
	 * is gone). DONE: @p ses NULL, the response is in @p ev.
	 */
	void (*event)(void *priv, struct uet_ulp_ctx *ctx,
		      const struct uet_pds_event *ev, const uint8_t *ses,
		      uint16_t len);
	/**
	 * Optional, with @c event: resp_expected from the raw bytes after
	 * the PDS header (takes precedence over resp_expected).
	 */
	bool (*resp_expected_raw)(void *priv, uint8_t pds_type,
				  uint8_t next_hdr, const uint8_t *ses,
				  uint16_t len);
};

/** Whether @p ops (of size ops->size) has the raw-event path. */
#define UET_ULP_HAS_EVENT(ops) \
	((ops)->size >= offsetof(struct uet_ulp_ops, resp_expected_raw) + \
	 sizeof(void *) && (ops)->event != NULL)

/** What uet_proto_hook_ops takes as uet_engine_params.hook_arg. */
struct uet_proto_params {
	const struct uet_ulp_ops *ulp; /**< the upper layer */
	void *ulp_arg;                 /**< passed to ulp->init */
	/**
	 * PDS parameters; NULL: uet_proto_pds_config() of the engine's
	 * configuration. owner_id is set per context.
	 */
	const struct uet_pds_config *pds;
};

/** The PDS protocol hook: pass it as uet_engine_params.hook. */
extern const struct uet_engine_hook_ops uet_proto_hook_ops;

/**
 * PDS parameters from an engine configuration: [timers] (rto_init,
 * rto_max_retries, ack_coalesce_bytes, ack_min_add, tlp_timeout,
 * close_idle, tick), [engine] max_pdcs/pdc pools, port0.mtu, [spray]
 * (uet_proto_lb_config()), and windows and queues sized for bursts of
 * UET_ENGINE_BURST_MAX.
 */
void uet_proto_pds_config(const struct uet_config *cfg,
			  struct uet_pds_config *out);

/**
 * Load-balancing parameters from an engine configuration: [spray] mode,
 * ev_base, num_evs, single_hold_rtts, reps_cache_size, reps_freeze and
 * [cc] base_rtt.
 */
void uet_proto_lb_config(const struct uet_config *cfg,
			 struct uet_cms_lb_config *out);

/**
 * The NSCC/RCCC configuration of [cc] (cc.algorithm nscc, rccc or
 * nscc+rccc; fixed gives -ENOENT): uet_pds_cc_cms_config_default() of
 * link_speed_mbps, base_rtt, port0.mtu and trimming, then every key that
 * is not auto. uet_proto_pds_config() selects uet_pds_cc_cms for these
 * algorithms and each engine context builds its cc_arg with this.
 * @return
 *   0, -ENOENT, or -EINVAL with @p why (if not NULL) naming the field.
 */
int uet_proto_cc_config(const struct uet_config *cfg,
			struct uet_pds_cc_cms_config *out, const char **why);

/** Context @p idx of an engine created with uet_proto_hook_ops, or NULL. */
struct uet_ulp_ctx *uet_ulp_ctx_get(struct uet_engine *e, unsigned int idx);

/** The ULP's private state of @p ctx. */
void *uet_ulp_ctx_priv(const struct uet_ulp_ctx *ctx);

/** The ULP @p ctx runs (uet_proto_params.ulp). */
const struct uet_ulp_ops *uet_ulp_ctx_ops(const struct uet_ulp_ctx *ctx);

/** The engine context @p ctx runs on. */
struct uet_engine_lcore *uet_ulp_ctx_lcore(struct uet_ulp_ctx *ctx);

/** The PDS instance of @p ctx (stats, pool info, PDC info). */
struct uet_pds *uet_ulp_ctx_pds(struct uet_ulp_ctx *ctx);

/** Time (ns) of the current engine iteration. */
uint64_t uet_ulp_now(const struct uet_ulp_ctx *ctx);

/** One request packet to send (a message is one or more of these). */
struct uet_ulp_req {
	struct uet_pds_fa dst; /**< destination FA */
	uint32_t job;          /**< JobID (PDC key) */
	uint8_t tc;            /**< traffic class (PDC key) */
	uint8_t mode;          /**< enum uet_pds_mode */
	uint8_t next_hdr;      /**< REQUEST_SMALL/MEDIUM/STD (or RESPONSE_DATA*
				    with UET_PDS_SUBMIT_PDC) */
	uint8_t flags;         /**< UET_PDS_SUBMIT_* */
	uint16_t len;          /**< SES header + payload bytes build() writes */
	uint32_t pdc;          /**< UET_PDS_SUBMIT_PDC: the PDC handle */
	uint64_t cookie;       /**< handed back to build() and done() */
};

/**
 * Queue one request packet. Its EV, and that of every retransmission,
 * is chosen by the PDS's load balancer (`[spray]`, docs/CONFIG.md).
 * @return
 *   0, -EINVAL (len does not fit the MTU, bad mode or next header),
 *   -EAGAIN (PDS backpressure: retry after progress), -ENOENT.
 */
int uet_ulp_submit(struct uet_ulp_ctx *ctx, const struct uet_ulp_req *r);

/**
 * Answer a delivered request that had resp_expected (stored by the PDS
 * and sent in an ACK until the initiator clears it).
 * @return 0 or the -errno of uet_pds_respond().
 */
int uet_ulp_respond(struct uet_ulp_ctx *ctx, const struct uet_ulp_peer *peer,
		    uint8_t next_hdr, const void *resp, uint16_t len);

/** Largest SES header + payload one request packet can carry on port 0. */
uint16_t uet_ulp_max_len(const struct uet_ulp_ctx *ctx);

/** Counters of the hook (one writer: the context's thread). */
struct uet_ulp_stats {
	uint64_t rx_pkts;        /**< frames given to the PDS */
	uint64_t rx_pds_bad;     /**< uet_pds_rx -EBADMSG */
	uint64_t rx_pds_nobufs;  /**< uet_pds_rx -ENOBUFS (event ring full) */
	uint64_t rx_trimmed;     /**< frames with a trimmed DSCP */
	uint64_t rx_ce;          /**< frames with ECN CE */
	uint64_t delivered;      /**< ulp.deliver() calls */
	uint64_t deliver_orphan; /**< DELIVER events without their frame */
	uint64_t done_ok;        /**< ulp.done() with status 0 */
	uint64_t done_err;       /**< ulp.done() with an error */
	uint64_t submit_ok;      /**< uet_ulp_submit() accepted */
	uint64_t submit_eagain;  /**< ... refused with -EAGAIN */
	uint64_t tx_new;         /**< request frames, first transmission */
	uint64_t tx_retx;        /**< request frames, retransmission */
	uint64_t tx_ctl;         /**< ACK/NACK/CP/RUDI_RESP frames */
	uint64_t tx_build_err;   /**< encode or ulp.build() failed: not sent */
	uint64_t tx_nombuf;      /**< no mbuf: not sent */
	uint64_t tx_queue_err;   /**< uet_engine_tx_ip() refused: not sent */
};

/** Counters of @p ctx (read from its thread, or racy for tools). */
const struct uet_ulp_stats *uet_ulp_ctx_stats(const struct uet_ulp_ctx *ctx);

#ifdef __cplusplus
}
#endif

#endif /* UET_ULP_H */
