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
 *   RX: frames whose outer and PDS headers the engine decoded ->
 *       ulp.resp_expected() on the bytes after the PDS header ->
 *       uet_pds_rx() (metadata from the outer headers: FAs, EV, ECN CE,
 *       trimmed from DSCP) -> every PDS event -> ulp.event(): DELIVER
 *       with the bytes after the PDS header (SES header and payload,
 *       undecoded: the ULP decodes them, once), DONE with the response
 *   advance: uet_pds_advance(now) once per iteration
 *   TX: ulp.poll() (the ULP submits with uet_ulp_submit()), then
 *       uet_pds_tx_burst() -> one frame per descriptor built straight
 *       into an mbuf: outer headers (DSCP per class, ECT(0) on requests,
 *       EV), PDS header, then ulp.build() writes SES header + payload for
 *       NEW/RETX descriptors; control packets carry the PDS header and
 *       the stored SES response, if any.
 *
 * A ULP (the SES ULP, uet_ses_ulp.h; uet-perf's test traffic source)
 * keeps its messages and builds each request packet on demand from an
 * opaque 64-bit cookie (for example message + packet index): the PDS
 * keeps no packet copies, so a retransmission is another build() of the
 * same cookie. A target answers a request that expects a response with
 * uet_pds_respond() on uet_ulp_ctx_pds() (the PDS stores it and sends it
 * in an ACK: guaranteed delivery); the initiator gets it in the DONE
 * event.
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

struct rte_mbuf_ext_shared_info;

/** A payload sent by reference (uet_ulp_ops.build_ref). */
struct uet_ulp_ref {
	const void *addr; /**< first byte, in memory the ULP keeps valid */
	uint32_t len;     /**< bytes; 0: none, the packet was built whole */
	/** counts the frames referencing @c addr: the hook adds one per
	 * frame it attaches, the driver's free of the frame takes it off */
	struct rte_mbuf_ext_shared_info *shinfo;
};

/**
 * Upper-layer protocol callbacks. `build` and `event` are mandatory.
 * @p priv is the ULP's per-context state made by `init`.
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
	 *   the PDS retransmits it later). -ENOENT: the cookie is gone for
	 *   good (its operation was withdrawn with force), the packet can
	 *   never be built: its PDC fails (uet_pds_tx_unbuildable()).
	 */
	int (*build)(void *priv, uint64_t cookie, uint32_t psn, bool is_retx,
		     uint8_t *buf, size_t cap);
	/**
	 * Every PDS event, in order. DELIVER: a request for the ULP,
	 * delivered per its mode (RUD/ROD exactly once, ROD in order);
	 * @p ses / @p len are the bytes after the PDS header of its frame
	 * (SES header and payload; valid during the call only; NULL/0 when
	 * the frame is gone). DONE: a submitted cookie completed (@p ses
	 * NULL; status and SES response in @p ev). PDC_DOWN: a PDC failed.
	 */
	void (*event)(void *priv, struct uet_ulp_ctx *ctx,
		      const struct uet_pds_event *ev, const uint8_t *ses,
		      uint16_t len);
	/**
	 * Optional: does the request in @p ses / @p len (the bytes after
	 * the PDS header) need an SES response (guaranteed delivery)?
	 * Called before the PDS sees the packet. NULL: never.
	 */
	bool (*resp_expected)(void *priv, uint8_t pds_type, uint8_t next_hdr,
			      const uint8_t *ses, uint16_t len);
	/**
	 * Optional: once per iteration before transmission; the place to
	 * call uet_ulp_submit() until it returns -EAGAIN.
	 * @return units of work done (0 when idle, for idle detection).
	 */
	unsigned int (*poll)(void *priv, struct uet_ulp_ctx *ctx,
			     uint64_t now);
	/**
	 * Optional: the earliest engine time at which `poll` has timed work
	 * (the SES sends a lost DEFERRABLE_RTR or MSG_ERROR again after a
	 * wait), UINT64_MAX when none. The hook's next deadline is the
	 * earlier of this and the PDS timers', so that a sleeping lcore or
	 * a virtual clock stops there too. NULL: the ULP has no timers.
	 */
	uint64_t (*next_deadline)(void *priv, struct uet_ulp_ctx *ctx);
	/**
	 * Optional: `build`, and in @p sum the one's complement sum of the
	 * bytes written (uet_wire_csum_partial(), from @p buf), taken while
	 * the payload is copied (uet_wire_csum_copy()), so that a frame
	 * whose UDP checksum is computed in software reads its payload
	 * once. Called instead of `build` when the frame needs that sum.
	 * NULL: `build`, then a checksum pass over the frame.
	 */
	int (*build_csum)(void *priv, uint64_t cookie, uint32_t psn,
			  bool is_retx, uint8_t *buf, size_t cap,
			  uint32_t *sum);
	/**
	 * Optional, zero-copy transmit (port.tx_zero_copy): `build`, but a
	 * payload of at least @p min_ref bytes may be left where it is:
	 * only the bytes in front of it are written into @p buf (the
	 * return value) and @p ref names it; the hook sends it as a second
	 * segment attached to the frame (rte_pktmbuf_attach_extbuf). The
	 * ULP keeps the memory valid while ref->shinfo's count says a
	 * frame still holds it. Called instead of `build` when the port
	 * takes such frames and the frame needs no software checksum.
	 */
	int (*build_ref)(void *priv, uint64_t cookie, uint32_t psn,
			 bool is_retx, uint8_t *buf, size_t cap,
			 uint32_t min_ref, struct uet_ulp_ref *ref);
	/**
	 * Optional: `event` for a DELIVER whose frame is a chain of two
	 * segments (struct uet_engine_rx; a frame sent by reference over a
	 * ring port or local delivery): @p len bytes at @p ses (the SES
	 * header, whole, and maybe the start of the payload), then
	 * @p tail_len payload bytes at @p tail, for the ULP to place from
	 * where they are. NULL: such a frame is copied into its first
	 * segment and given to `event`.
	 */
	void (*event_tail)(void *priv, struct uet_ulp_ctx *ctx,
			   const struct uet_pds_event *ev, const uint8_t *ses,
			   uint16_t len, const uint8_t *tail,
			   uint32_t tail_len);
};

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

/**
 * Queue one request packet (struct uet_pds_submit: destination, job,
 * traffic class, mode, next header, flags, SES bytes build() writes,
 * cookie). Its EV, and that of every retransmission, is chosen by the
 * PDS's load balancer (`[spray]`, docs/CONFIG.md).
 * @return
 *   0, -EINVAL (len does not fit the MTU, bad mode or next header),
 *   -EAGAIN (PDS backpressure: retry after progress), -ENOENT.
 */
int uet_ulp_submit(struct uet_ulp_ctx *ctx, const struct uet_pds_submit *s);

/** Largest SES header + payload one request packet can carry on port 0. */
uint16_t uet_ulp_max_len(const struct uet_ulp_ctx *ctx);

/** Counters of the hook (one writer: the context's thread). */
struct uet_ulp_stats {
	uint64_t rx_pkts;        /**< frames given to the PDS */
	uint64_t rx_pds_bad;     /**< uet_pds_rx -EBADMSG */
	uint64_t rx_pds_nobufs;  /**< uet_pds_rx -ENOBUFS (event ring full) */
	uint64_t rx_trimmed;     /**< frames with a trimmed DSCP */
	uint64_t rx_ce;          /**< frames with ECN CE */
	uint64_t delivered;      /**< DELIVER events given to the ULP */
	uint64_t deliver_orphan; /**< DELIVER events without their frame */
	uint64_t done_ok;        /**< DONE events with status 0 */
	uint64_t done_err;       /**< DONE events with an error */
	uint64_t submit_ok;      /**< uet_ulp_submit() accepted */
	uint64_t submit_eagain;  /**< ... refused with -EAGAIN */
	uint64_t tx_new;         /**< request frames, first transmission */
	uint64_t tx_retx;        /**< request frames, retransmission */
	uint64_t tx_ctl;         /**< ACK/NACK/CP/RUDI_RESP frames */
	uint64_t tx_build_err;   /**< encode or ulp.build() failed: not sent */
	uint64_t tx_nombuf;      /**< no mbuf: not sent */
	uint64_t tx_ref;         /**< frames whose payload went by reference
				  *   (port.tx_zero_copy) */
	uint64_t tx_queue_err;   /**< uet_engine_tx_ip() refused: not sent */
};

/** Counters of @p ctx (read from its thread, or racy for tools). */
const struct uet_ulp_stats *uet_ulp_ctx_stats(const struct uet_ulp_ctx *ctx);

#ifdef __cplusplus
}
#endif

#endif /* UET_ULP_H */
