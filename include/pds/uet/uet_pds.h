/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef UET_PDS_H
#define UET_PDS_H

/**
 * @file
 * Packet Delivery Sublayer (UEC 1.0 PDS), sans-I/O.
 *
 * One `struct uet_pds` per engine lcore (shared-nothing, not thread safe).
 * The library does no I/O and reads no clock: the caller passes decoded
 * PDS headers with their metadata and the current time (ns) in, and drains
 * packets to send and events for the upper layer (SES) out.
 *
 * Per loop iteration the engine does:
 *  - for every received UET packet: decode the PDS header and call
 *    uet_pds_rx();
 *  - uet_pds_advance(now) once (timer wheel: RTO, tail-loss probe,
 *    resource back-off, delayed ACK, idle close);
 *  - uet_pds_tx_burst() while it returns a full burst: each descriptor is
 *    a PDS header to encode plus what the engine needs to build the frame
 *    (destination, EV, the SES cookie to regenerate a request's payload);
 *  - uet_pds_events() to drain completions and deliveries into the SES.
 *
 * The PDS keeps no packet copies: a retransmission is a descriptor "send
 * cookie X as PSN Y" and the caller rebuilds the payload from its (still
 * pinned) buffer.
 *
 * All memory is allocated by uet_pds_create(); nothing is allocated on the
 * per-packet path. Exhaustion is reported as -EAGAIN (initiator) or as a
 * resource NACK (target), never a crash.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <uet/uet_cms.h>
#include <uet/uet_wire.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Largest SES response carried in an ACK (guaranteed delivery) or a
 * RUDI_RESP: a 12-byte RESPONSE_DATA_SMALL header plus up to
 * UET_PDS_RESP_DATA_MAX bytes of small READ / fetching-atomic data.
 * Storage is pooled, never per PDC: uet_pds_config.resp_entries buffers
 * of uet_pds_config.resp_max bytes each (default this value), plus this
 * many bytes in each entry of the event ring (uet_pds_event.resp).
 */
#define UET_PDS_RESP_MAX 268
/** Small-data bytes after a RESPONSE_DATA_SMALL header (SES responses). */
#define UET_PDS_RESP_DATA_MAX 256
/** The pdc handle of DELIVER events of PDC-less modes (RUDI, UUD). */
#define UET_PDS_PDC_NONE UINT32_MAX
/** Bytes of per-PDC congestion-control private state. */
#define UET_PDS_CC_PRIV_MAX 32
/** Largest transmit window in PSNs (SYN psn_offset is 12 bits). */
#define UET_PDS_TX_WINDOW_MAX 4096
/** Largest PDC pool per role (PDC ids are 16 bits, owner bits included). */
#define UET_PDS_PDC_MAX 65536
/** Secure domains the PDS keeps an Expected_PSN for (syn_expected). */
#define UET_PDS_SDOM_MAX 16

/** A fabric address: IPv6, or IPv4 in the first 4 bytes, rest zero. */
struct uet_pds_fa {
	uint8_t addr[16];
};

struct uet_pds;
struct uet_pds_config;

/**
 * Nominal size of a request as both ends of a PDC count it for congestion
 * control (UEC 1.0 NSCC: UDP length + 40): SES length plus this. DECISION:
 * the UDP length is that of a RUD/ROD_REQ header (8 + 12 bytes), also for
 * the 4 bytes longer CC_REQ variants, so that sender and receiver agree
 * without the receiver remembering each packet's header type.
 */
#define UET_PDS_CC_NOMINAL_OVH (8 + 12 + 40)

/** What a new PDC tells uet_pds_cc_ops.init. */
struct uet_pds_cc_pdc {
	struct uet_pds_fa peer; /**< the other end */
	uint32_t idx;   /**< PDC index, < 2 x (max_pdcs + max_rsv_pdcs),
			 *   stable while the PDC lives (per-PDC tables) */
	uint32_t mtu;   /**< uet_pds_config.mtu (SES bytes) */
	uint32_t param; /**< uet_pds_config.cc_param */
	uint8_t tc;     /**< traffic class */
	uint8_t role;   /**< 0 initiator, 1 target */
};

/** What one ACK tells the sender's congestion control. */
struct uet_pds_cc_ack {
	uint32_t bytes;      /**< nominal bytes the PDS saw newly acknowledged
			      *   (CACK / SACK / ACK_PSN) */
	/** RTT of the ACK_PSN packet minus the receiver's service time
	 * (uet_nscc_rtt_sample()); 0: no valid sample (the packet was
	 * retransmitted, or a PROBE reply) */
	uint64_t rtt_ns;
	bool ecn;            /**< M flag */
	bool has_state;      /**< ACK_CC cc_type NSCC: the fields below */
	bool rc;             /**< restore (penalty over) */
	uint8_t rcv_cwnd_pend; /**< receiver penalty, 0..127 */
	uint16_t ooo_count;  /**< receiver's out-of-order count */
	uint32_t rcvd_bytes; /**< cumulative, 256 B units, 24 bits */
	uint16_t service_time; /**< 128 ns units */
};

/**
 * Congestion control (UEC 1.0 NSCC, RCCC) as the PDS sees it. One
 * instance per PDS (create/destroy, optional: NULL gives a NULL instance)
 * and priv_size bytes of private state per PDC, shared by its sending and
 * receiving sides. Byte counts are nominal
 * (UET_PDS_CC_NOMINAL_OVH) except in may_send() and cwnd(), which work in
 * the SES bytes of the PDS's own inflight. The hooks up to @c cwnd are
 * mandatory; every later one is optional (NULL: not used).
 */
struct uet_pds_cc_ops {
	const char *name;
	/** Bytes of private state per PDC, at most UET_PDS_CC_PRIV_MAX (0:
	 * UET_PDS_CC_PRIV_MAX). The PDS keeps it in a table beside its PDC
	 * records, so what a CC does not need costs no PDC anything; each
	 * PDC's state is 8-byte aligned when priv_size is 8 or more, else
	 * 4-byte aligned. */
	uint32_t priv_size;
	/** The per-PDS instance, for @p npdc PDC indices; called by
	 * uet_pds_create(), NULL fails it with ENOMEM. */
	void *(*create)(const struct uet_pds_config *cfg, uint32_t npdc);
	/** Free the instance (uet_pds_free()). */
	void (*destroy)(void *inst);
	/** Initialise @p priv for a new PDC. */
	void (*init)(void *inst, void *priv, const struct uet_pds_cc_pdc *pdc,
		     uint64_t now);
	/** May a packet of @p bytes (SES) go with @p inflight SES bytes
	 * outstanding? Not asked with @p inflight 0 (one packet goes) unless
	 * the CC is credit-based (credit_target set) and the PDC an
	 * established initiator: then it answers for its credit, and lets
	 * a window pass (no ACK would open it). */
	bool (*may_send)(void *inst, const void *priv, uint32_t bytes,
			 uint32_t inflight);
	/** A packet of @p bytes (nominal) left (@p retx: a retransmission). */
	void (*on_send)(void *inst, void *priv, uint32_t bytes, bool retx,
			uint64_t now);
	/** An ACK of this PDC arrived. */
	void (*on_ack)(void *inst, void *priv, const struct uet_pds_cc_ack *a,
		       uint64_t now);
	/** A NACK of class retransmit or resource for @p bytes (nominal):
	 * the packet was not received. */
	void (*on_nack)(void *inst, void *priv, uint32_t bytes, uint8_t code,
			uint64_t now);
	/** A NACK named a packet sent once, @p rtt_ns ago (optional; UEC
	 * 1.0 NSCC.OnNACK: a base_rtt sample); before on_trim / on_nack. */
	void (*on_nack_rtt)(void *inst, void *priv, uint64_t rtt_ns,
			    uint64_t now);
	/** A trim NACK for a packet of @p bytes (nominal). */
	void (*on_trim)(void *inst, void *priv, uint32_t bytes, bool lasthop,
			uint64_t now);
	/** Packets of @p bytes (nominal) are presumed lost: the
	 * retransmission timer fired or SACK inferred the loss. */
	void (*on_loss)(void *inst, void *priv, uint32_t bytes, uint64_t now);
	/** Current congestion window in SES bytes (AR rule, show pdc). */
	uint32_t (*cwnd)(void *inst, const void *priv);
	/** The PDC is freed with @p inflight nominal bytes never
	 * acknowledged nor reported lost (optional). */
	void (*fini)(void *inst, void *priv, uint32_t inflight);
	/** AR on the next request? (optional; NULL: cwnd - inflight < MTU or
	 * cwnd below the ACK threshold, UEC 1.0 PDS ACK generation). */
	bool (*want_ar)(void *inst, const void *priv, uint32_t inflight);
	/**
	 * Sender, credit-based CC (UEC 1.0 RCCC): credit to ask for with
	 * @p backlog bytes queued or in flight and @p rtx_backlog bytes
	 * marked for retransmission, in bytes; 0 asks for none.
	 * Non-zero sends the request as RUD_CC_REQ / ROD_CC_REQ with
	 * credit_target (256 B units) and @p *ccc_id, and lets the PDS send
	 * a CREDIT_REQ CP when may_send() blocks with data queued.
	 */
	uint32_t (*credit_target)(void *inst, void *priv, uint32_t backlog,
				  uint32_t rtx_backlog, uint8_t *ccc_id);
	/** Sender: the receiver has granted @p credit bytes in all
	 * (cumulative modulo 2^32, from ACK_CC cc_type CREDIT or a CREDIT
	 * CP). */
	void (*on_credit)(void *inst, void *priv, uint32_t credit,
			  uint64_t now);
	/**
	 * Receiver: the peer asks for @p credit_target bytes (CC request or
	 * CREDIT_REQ CP); @p bytes is the nominal size of the request that
	 * carried it (0: a CP). @return bytes granted now (0: none, or later
	 * from poll_grant()); the PDS sends them in an ACK_CC with cc_type
	 * CREDIT, or in a CREDIT CP when the request came in a CREDIT_REQ.
	 */
	uint32_t (*on_credit_request)(void *inst, void *priv,
				      uint32_t credit_target, uint32_t bytes,
				      uint64_t now);
	/** Receiver: one grant due at @p now for the PDC of index @p *idx
	 * (polled by uet_pds_advance() until 0; the PDS sends it in the
	 * next ACK_CC cc_type CREDIT). @return 1 or 0. */
	int (*poll_grant)(void *inst, uint64_t now, uint32_t *idx,
			  uint32_t *bytes);
	/** Earliest time poll_grant() may have work (UINT64_MAX: none);
	 * part of uet_pds_next_deadline(). */
	uint64_t (*next_deadline)(const void *inst);
	/** Sender: send a PROBE for a base-RTT sample now? (asked after
	 * each ACK; true once per request). */
	bool (*probe_due)(void *inst, void *priv);
	/** Sender: the P-flag ACK of that PROBE, @p rtt_ns after it left. */
	void (*on_probe_ack)(void *inst, void *priv, uint64_t rtt_ns);
	/** Receiver: a new request of @p bytes (nominal) was accepted
	 * (never for duplicates or trimmed packets); @p ce: it arrived
	 * ECN-marked. */
	void (*rx_data)(void *inst, void *priv, uint32_t bytes, bool ooo,
			bool ce, uint64_t now);
	/** Receiver: its SES refused a request or its event ring was full
	 * (@p busy), or it accepted one again. */
	void (*rx_overload)(void *inst, void *priv, bool busy);
	/** Receiver: fill the ACK_CC cc_type NSCC state; non-NULL makes
	 * every ACK an ACK_CC. @p service_ns: since the ACK_PSN arrived. */
	void (*ack_state)(void *inst, void *priv, uint64_t service_ns,
			  struct uet_wire_pds_nscc_state *st);
	/** Bytes the instance allocated for @p npdc PDC indices at create()
	 * (optional: NULL, none); counted by uet_pds_pdc_bytes(). */
	size_t (*inst_bytes)(const void *inst);
};

/** Fixed-window gate: cwnd = param bytes (default 64 KiB). */
extern const struct uet_pds_cc_ops uet_pds_cc_fixed;

/** Largest uet_pds_config.max_retries. */
#define UET_PDS_MAX_RETRIES 30

/** Creation parameters; uet_pds_config_default() fills every field. */
struct uet_pds_config {
	uint32_t owner_id;     /**< encoded in the top @c owner_bits of PDC ids */
	uint32_t owner_bits;   /**< 0..8 */
	uint32_t max_pdcs;     /**< general pool, per role (initiator/target) */
	uint32_t max_rsv_pdcs; /**< reserved pool, per role */
	uint32_t tx_window;    /**< PSNs per transmit block, power of 2 <= 4096 */
	uint32_t rx_window;    /**< PSNs per receive block, power of 2 >= 64 */
	uint32_t tx_blocks;    /**< PDCs that may have requests in flight */
	uint32_t rx_blocks;    /**< PDCs that may have out-of-order state */
	uint32_t resp_entries; /**< stored guaranteed-delivery responses */
	uint32_t rudi_slots;   /**< outstanding RUDI requests */
	uint32_t dgram_queue;  /**< queued UUD/RUDI transmissions (power of 2) */
	uint32_t ctl_queue;    /**< queued NACKs/response ACKs (power of 2) */
	uint32_t event_queue;  /**< event ring (power of 2) */
	uint32_t mtu;          /**< payload MTU for the AR rule */
	uint32_t ack_min_bytes;  /**< per-packet ACK credit floor (1 KiB) */
	uint32_t ack_threshold;  /**< ACK when credit reaches this (16 KiB) */
	bool ack_cc_always;      /**< send ACK_CC even without SACK holes */
	uint64_t ack_delay_ns;   /**< delayed ACK for coalesced bytes */
	uint64_t rto_init_ns;    /**< RTO_INIT (1 ms) */
	/** RTO cap: RTO = min(rto_init << retry, max(rto_max, rto_init))
	 *  (100 ms) */
	uint64_t rto_max_ns;
	/** RTO rounds without progress before failing (24, at most
	 *  UET_PDS_MAX_RETRIES) */
	uint32_t max_retries;
	/** NACK-driven retransmissions of one PSN (trimmed, PSN_OOR_WINDOW,
	 * ROD_OOO, ...) before its PDC fails with -ETIMEDOUT (32, 1..255),
	 * or of one RUDI request before it fails so: a packet NACKed
	 * forever does not loop forever. */
	uint32_t max_nack_retx;
	uint64_t tlp_ns;         /**< tail-loss probe delay; 0 disables */
	uint32_t sack_reorder;   /**< PSNs past a hole before inferring loss */
	uint64_t backoff_init_ns; /**< resource NACK back-off start */
	uint64_t backoff_max_ns;  /**< resource NACK back-off cap */
	uint32_t max_backoffs;    /**< resource NACKs of one packet (its
				   *   waits grow with them) before its PDC
				   *   fails; moves of one packet to a new PDC
				   *   (NACK CLOSING) before it fails; of a
				   *   SYN-state PDC, NEW_START_PSN refusals in
				   *   a row (16, at most 255) */
	uint64_t idle_close_ns;   /**< initiator closes an idle PDC; 0 never */
	uint64_t tgt_close_req_ns; /**< target asks to close when idle (1 s),
				    *   repeats CLOSE_REQ after rto_init_ns
				    *   doubling, frees the PDC with NACK
				    *   CLOSING_IN_ERR after max_retries
				    *   unanswered repeats; 0 never */
	uint64_t timer_tick_ns;   /**< timer wheel granularity */
	uint32_t timer_slots;     /**< timer wheel slots (power of 2, at most 32 768) */
	uint64_t seed;            /**< PRNG seed (Start_PSN, RUDI pkt ids) */
	const struct uet_pds_cc_ops *cc; /**< NULL: uet_pds_cc_fixed */
	uint32_t cc_param;        /**< passed to cc->init (window bytes) */
	/** The CC's own configuration, read by cc->create() (e.g. a
	 * struct uet_pds_cc_cms_config for uet_pds_cc_cms); the pointee
	 * must outlive uet_pds_create() only. */
	const void *cc_arg;
	/** Tail-loss probe of an established PDC is a PROBE CP whose
	 * P-flag ACK reports CACK/SACK (UEC 1.0 PDS control packets); false:
	 * ACK_REQ. */
	bool tlp_probe;
	/** Stored responses in the pool at which the target sends CLEAR_REQ
	 * (UEC 1.0 CLEAR_REQ); 0: 3/4 of resp_entries; UINT32_MAX: never. */
	uint32_t resp_high_water;
	/** A SYN with a new Start_PSN replaces a target PDC only after it
	 * was quiet this long; before, NACK NEW_START_PSN (WIRE-DECISIONS). */
	uint64_t syn_holdoff_ns;
	/** Maximum packet lifetime of the network (UEC 1.0 MPL): a copy of
	 * a packet arrives within this long of being sent, or never. A
	 * target remembers the Start_PSNs it refused with NEW_START_PSN
	 * for 2 x mpl_ns after the last SYN of that PDC id (WIRE-DECISIONS).
	 * Non-zero, at most 4 s (the Start_PSNs a target names come back
	 * after 34 s). */
	uint64_t mpl_ns;
	/** Quiet time after start: for 2 x mpl_ns after its first SYN the
	 * target refuses every SYN it has no record of with NACK
	 * NEW_START_PSN, so a SYN sent to a previous incarnation of this
	 * node (a restart) never opens a PDC (WIRE-DECISIONS). Default on;
	 * off only where no earlier incarnation can have sent anything (a
	 * unit test that drives one incarnation by hand). */
	bool syn_quiet;
	/** This PDS replaces an incarnation at its fabric address that ran
	 * moments ago (its initiators may still retransmit to it) and whose
	 * state was lost, as an owner that keeps state across its restarts
	 * knows. Its refusals in the quiet time say so (NACK NEW_START_PSN
	 * vendor_code PDS_VC_RESTARTED and its age), and an initiator fails
	 * what it sent before this start instead of sending it again: the
	 * previous incarnation may have run it (WIRE-DECISIONS "A SYN that
	 * reaches a restarted target"). Default false: a first start, or
	 * not known. */
	bool restarted;
	/** With restarted: the caller's clock when the previous incarnation
	 * was last known to run (its owner's record: the engine's alive
	 * file, docs/WIRE-DECISIONS.md), no later than this PDS's first
	 * call; 0 = not known. A refusal's age then counts from it, so an
	 * initiator fails only what it sent while that incarnation ran, not
	 * what it sent to no one while this one started. */
	uint64_t prev_alive_ns;
	/** Every PDC established in one round trip (TSS's RANDOM_1RTT_START,
	 * docs/TSS.md): a SYN of an id the target has no record of is
	 * refused with NACK NEW_START_PSN naming a Start_PSN it chose, the
	 * only one that then opens a PDC, once; so a replayed SYN never
	 * opens one, a restart of the target's included. Default false:
	 * a new PDC opens at once (0-RTT) outside the quiet time. */
	bool syn_1rtt;
	/** Secure PDC establishment by Expected_PSN (TSS's
	 * EXPECTED_0RTT_START, docs/TSS.md). Target: a secure domain's
	 * Expected_PSN moves 2^16 past every PSN of a target PDC of the
	 * domain (uet_pds_rx_meta.sdom of the SYN that opened it) when the
	 * PDC goes (closed, failed, replaced), and the ACK of a CLOSE
	 * carries it (UET_PDS_F_EPSN); a SYN of the domain an id has no
	 * record of opens at once at or after it (serial order), and is
	 * refused below it with NACK NEW_START_PSN naming a Start_PSN, as
	 * syn_1rtt refuses (a replayed SYN of a PDC that went never opens
	 * one). Until a PDC of the domain went, the rules of the default.
	 * Initiator: the Expected_PSN an ACK of our CLOSE carries is the
	 * domain's (sdom_of) floor for our next PDCs' Start_PSNs.
	 * uet_pds_create() refuses it with syn_1rtt. */
	bool syn_expected;
	/** With syn_expected: the secure domain of JobID @p job,
	 * 1..UET_PDS_SDOM_MAX, 0 when its traffic is clear. */
	uint8_t (*sdom_of)(void *arg, uint32_t job);
	void *sdom_arg;
	/** ROD: retransmissions arriving past the hole before the expected
	 * PSN is NACKed again (its resend was lost too); 0: never. */
	uint32_t rod_renack;
	/** ROD go-back-N window, in packets: every go-back-N (a NACK
	 * ROD_OOO that is not stale) halves the packets a ROD PDC keeps in
	 * flight, down to this floor; each window's worth of packets
	 * acknowledged adds one, up to tx_window. Go-back-N resends what
	 * flew past the hole, so this bounds the cost of a loss; 0: no
	 * ROD window (tx_window and the CC alone); tx_window or more: the
	 * window never goes below tx_window. */
	uint32_t rod_wnd_min;
	/** Bytes per pooled response buffer (stored guaranteed-delivery
	 * responses, RUDI_RESP responses); 0: UET_PDS_RESP_MAX. At most
	 * UET_PDS_RESP_MAX. Memory: resp_entries x resp_max bytes. */
	uint32_t resp_max;
	/** Queue an UET_PDS_EV_PDC_DOWN event when a PDC fails (retries or
	 * back-offs exhausted, fatal NACK), and UET_PDS_EV_PDC_CLOSED when a
	 * target PDC goes; false (default): none. */
	bool pdc_events;
	/**
	 * Load balancing (UEC 1.0 section 3.6.16, src/cms): the EV of every
	 * packet the transmit side of a PDC sends (requests, first and
	 * again, and its CPs) comes from uet_cms_lb_next_ev() on the PDC's
	 * own state; ACKs, NACKs and losses feed it. ACKs and NACKs echo
	 * the EV of the packet they answer. Datagrams (UUD, RUDI) have no
	 * PDC: see uet_pds_submit. Checked by uet_cms_lb_config_check().
	 * Default: single path over EVs 49152..49407.
	 */
	struct uet_cms_lb_config lb;
};

/** Fill @p cfg with the defaults (UEC 1.0 PDS default values). */
void uet_pds_config_default(struct uet_pds_config *cfg);

/**
 * Create a PDS instance; all memory is allocated here.
 * @return
 *   The instance, or NULL with errno EINVAL (bad config) or ENOMEM.
 */
struct uet_pds *uet_pds_create(const struct uet_pds_config *cfg);

/** Free an instance; NULL is a no-op. Pending operations are dropped. */
void uet_pds_free(struct uet_pds *p);

/** Submission flags. */
#define UET_PDS_SUBMIT_RSV  0x01u /**< open the PDC from the reserved pool */
/** Complete on the SES response, or on CACK passing the request (the
 * default response, UEC 1.0 3.5.20.2: a target holds CACK below a
 * response it stores). */
#define UET_PDS_SUBMIT_RESP 0x02u
/**
 * Send in the return direction of an existing target PDC, named by
 * uet_pds_submit.pdc (the handle of a DELIVER event): read response data
 * as requests with next_hdr RESPONSE_DATA or RESPONSE_DATA_SMALL, in the
 * PDC's own return PSN space (UEC 1.0 PDS return-direction read responses). The
 * initiator end delivers them once (UET_PDS_EV_DELIVER with that
 * next_hdr) and acknowledges them. dst, job, tc and mode are ignored.
 */
#define UET_PDS_SUBMIT_PDC  0x04u
/**
 * Set AR on this packet: the receiver acknowledges it at once instead of
 * coalescing. For the last packet of a read response: its initiator has
 * no SES response to send, and an application polling inline may not
 * give its engine another turn for the delayed ACK.
 */
#define UET_PDS_SUBMIT_AR   0x08u
/**
 * The first packet of a message of several (UEC 1.0 ses_pds_tx_req som
 * without eom). All packets of a message go on one PDC (UEC 1.0 3.5.20):
 * the message's later packets go to the PDC that took this one, and that
 * PDC does not close (uet_pds_pdc_close(), idle close, a target's
 * CLOSE_REQ or NACK CLOSING of another request) until the packet with
 * UET_PDS_SUBMIT_EOM of the message is queued on it (or
 * uet_pds_msg_abandon()); a close asked for meanwhile happens then, and,
 * on a RUD PDC, the key's other requests go on a new PDC until it does.
 * The caller hands over the packets of one message of a key at a time:
 * between SOM and EOM, a packet it submits to the key without SOM is one
 * of that message. A packet of a single-packet message carries neither
 * flag (or both). RUD and ROD only.
 */
#define UET_PDS_SUBMIT_SOM  0x10u
/** The last packet of a message begun with UET_PDS_SUBMIT_SOM (UEC 1.0
 * ses_pds_tx_req eom without som). */
#define UET_PDS_SUBMIT_EOM  0x20u

/** One request packet handed to the PDS by the SES. */
struct uet_pds_submit {
	struct uet_pds_fa dst; /**< destination FA */
	uint32_t job;          /**< JobID (24 bits), part of the PDC key */
	uint8_t tc;            /**< traffic class, part of the PDC key */
	uint8_t mode;          /**< enum uet_wire_pds_mode */
	uint8_t next_hdr;      /**< enum uet_wire_pds_next_hdr of the SES header */
	uint8_t flags;         /**< UET_PDS_SUBMIT_* */
	uint16_t len;          /**< SES header + payload bytes */
	uint32_t pdc;          /**< UET_PDS_SUBMIT_PDC: target PDC handle */
	uint64_t cookie;       /**< opaque, returned in descriptors and events */
};

/**
 * Queue one request. RUD/ROD open a PDC on first use (0-RTT); RUDI and
 * UUD need none.
 * @return
 *   0, or -EINVAL (bad mode/len/next_hdr: forward requests carry
 *   REQUEST_SMALL..REQUEST_STD, return-direction ones RESPONSE_DATA or
 *   RESPONSE_DATA_SMALL), -ENOENT (UET_PDS_SUBMIT_PDC: no such target
 *   PDC; a PDC the initiator is closing still accepts data until it
 *   drains), -EAGAIN (PDC pool, transmit block, window, RUDI slot
 *   or queue exhausted: retry later).
 */
int uet_pds_submit(struct uet_pds *p, const struct uet_pds_submit *s,
		   uint64_t now);

/**
 * The SES sends no more packets of the message it began with
 * UET_PDS_SUBMIT_SOM on the key of @p s (dst, job, tc, mode): it gave up
 * the rest (withdrawn, failed). Its PDC may close again. A message must
 * end either way, by its UET_PDS_SUBMIT_EOM packet or by this call: the
 * PDC would otherwise never close. No-op when the key has no PDC or none
 * with a message open.
 */
void uet_pds_msg_abandon(struct uet_pds *p, const struct uet_pds_submit *s,
			 uint64_t now);

/** Metadata of a received packet, next to its decoded PDS header. */
struct uet_pds_rx_meta {
	struct uet_pds_fa src; /**< source FA (peer) */
	struct uet_pds_fa dst; /**< destination FA (local) */
	const uint8_t *ses;    /**< bytes after the PDS header (responses) */
	uint16_t ses_len;      /**< their length (what survived a trim) */
	uint16_t len;          /**< SES length before trimming (for credit) */
	uint16_t ev;           /**< UDP source port */
	bool ce;               /**< IP ECN was CE */
	bool trimmed;          /**< DSCP said TRIMMED */
	bool trimmed_lasthop;  /**< DSCP said TRIMMED_LASTHOP */
	bool resp_expected;    /**< SES says this request needs a response */
	uint8_t sdom;          /**< secure domain the frame was authenticated
				*   in (TSS), 1..UET_PDS_SDOM_MAX; 0: clear */
	uint64_t pkt_cookie;   /**< opaque, echoed in the delivery event */
};

/**
 * Process one received PDS packet.
 *
 * A delivered request (return 1) is not yet recorded as received: its
 * PSN is neither ACKed nor counted until the SES decided, i.e. until the
 * next call of uet_pds_rx(), uet_pds_advance(), uet_pds_tx_burst(),
 * uet_pds_pdc_close() or a uet_pds_respond() for it. Before that the SES
 * may refuse it with uet_pds_refuse(). Likewise the RUDI_RESP of a RUDI
 * request leaves then, carrying the response given by uet_pds_respond()
 * in between, if any. The engine therefore drains the DELIVER event of a
 * packet into the SES right after uet_pds_rx() (as it must anyway, the
 * SES bytes live in the packet).
 * @return
 *   1 when the request is to be delivered to the SES (an
 *   UET_PDS_EV_DELIVER event was queued), 0 when the PDS consumed it, or
 *   -EBADMSG (malformed or stale, counted), -ENOBUFS (event ring too full
 *   to process it safely: dropped, the peer retransmits).
 */
int uet_pds_rx(struct uet_pds *p, const struct uet_wire_pds_hdr *h,
	       const struct uet_pds_rx_meta *m, uint64_t now);

/**
 * Prefetch the record of the PDC a received packet names by its
 * destination PDC id (a request without SYN: the target PDC; an ACK or
 * NACK: the initiator PDC), so that a burst's records are loaded while
 * the packets before them are processed. A hint: it changes no state
 * and accepts any header (nothing is prefetched for other types or an
 * id out of range, nor while a few hundred PDCs or fewer are open, whose
 * records stay in the cache).
 */
void uet_pds_rx_prefetch(const struct uet_pds *p,
			 const struct uet_wire_pds_hdr *h);

/** What a transmit descriptor is. */
enum uet_pds_tx_kind {
	UET_PDS_TX_NEW = 0, /**< first transmission of a request */
	UET_PDS_TX_RETX,    /**< retransmission of a request */
	UET_PDS_TX_CTL,     /**< ACK / NACK / CP / RUDI_RESP: no payload */
};

/** One packet to send. */
struct uet_pds_tx {
	struct uet_wire_pds_hdr hdr; /**< to encode with uet_wire_pds_hdr_encode() */
	struct uet_pds_fa dst;  /**< destination FA */
	uint64_t cookie;        /**< NEW/RETX: the submit cookie */
	const uint8_t *resp;    /**< ACK with SES response: its bytes */
	uint16_t resp_len;      /**< ... valid until the next PDS call */
	/** Entropy value, to be sent as is (UDP source port or native-IP
	 *  entropy header): chosen by the load balancer for requests and
	 *  the initiator's CPs, echoed from the answered packet for ACKs
	 *  and NACKs. */
	uint16_t ev;
	uint16_t len;           /**< NEW/RETX: SES length */
	uint8_t kind;           /**< enum uet_pds_tx_kind */
};

/**
 * Fill up to @p n descriptors: NACKs and responses first, then ACKs,
 * datagrams (RUDI/UUD), then requests of PDCs round-robin
 * (retransmissions before new data, gated by the CC window).
 * @return
 *   Number of descriptors written.
 */
uint16_t uet_pds_tx_burst(struct uet_pds *p, uint64_t now,
			  struct uet_pds_tx *tx, uint16_t n);

/**
 * Descriptor @p t of the last uet_pds_tx_burst() is a request whose
 * packet can never be built again: its SES no longer knows the cookie
 * (the build returned -ENOENT: an operation withdrawn with force,
 * uet_ses_withdraw()). Call it before the next PDS call. The PDS keeps no
 * copy of a packet, so its PSN can never be delivered and no ACK moves
 * the window past it: the PDC fails, as for any error it cannot recover
 * from (UEC 1.0 3.5 PDS-SES interface, pds_ses_error: every
 * unacknowledged request of the PDC completes with the error), instead
 * of resending the PSN every RTO for as long as the peer answers. It
 * fails when the PSN is the oldest outstanding one, at once or at the
 * first RTO after what was sent before it completed (meanwhile it is not
 * resent). Its cookies complete with -ECONNRESET (the unbuildable one
 * too), a PDC_DOWN event follows, and the return direction tells the
 * READ's initiator (NACK CLOSING_IN_ERR) as after its retries. Counted
 * in uet_pds_stats.tx_unbuildable.
 * @return
 *   0 when taken; -EINVAL for a descriptor that is no request of a PDC
 *   (a control packet, RUDI or UUD: a RUDI request ends with its own
 *   retries); -ENOENT when it names no packet of a live PDC just sent
 *   (its PDC failed already).
 */
int uet_pds_tx_unbuildable(struct uet_pds *p, const struct uet_pds_tx *t,
			   uint64_t now);

/** Advance the timer wheel to @p now; call once per loop iteration. */
void uet_pds_advance(struct uet_pds *p, uint64_t now);

/**
 * The earliest time at which uet_pds_advance() has timer work: the
 * deadline of the first armed timer, or the start of the wheel tick in
 * which a timer parked beyond the wheel's horizon is re-filed. Never
 * later than the true next deadline, so a virtual clock that jumps here
 * when nothing else happens misses no timer.
 * @return
 *   Time in ns (may be at or before the last advance() time when the
 *   wheel is behind, see uet_pds_advance()), or UINT64_MAX when no timer
 *   is armed.
 */
uint64_t uet_pds_next_deadline(const struct uet_pds *p);

/** Event types. */
enum uet_pds_event_type {
	UET_PDS_EV_DONE = 1,  /**< a submitted cookie completed (status) */
	UET_PDS_EV_DELIVER,   /**< a received request for the SES */
	/**
	 * A PDC failed and is gone (only with uet_pds_config.pdc_events):
	 * pdc (its last handle), peer, mode, status (-ETIMEDOUT: retries
	 * exhausted, here or at the peer; -ECONNRESET: PDC-fatal NACK, or
	 * a request that could not be built (uet_pds_tx_unbuildable);
	 * -ECONNREFUSED: back-offs exhausted; -EPIPE: a closing PDC the
	 * target no longer knows, every request of ours done, so only its
	 * return-direction data may be missing). Its submitted cookies were
	 * completed with DONE events before. The SES fails what it still
	 * expects on that PDC from the peer (e.g. the return-direction data
	 * of a large READ).
	 */
	UET_PDS_EV_PDC_DOWN,
	/**
	 * A SES response (resp, resp_len, next_hdr) for a submitted cookie
	 * that already completed: a target may answer a packet that was not
	 * the last of its message (e.g. an error reported early) after the
	 * packet was acknowledged. Not a completion: the cookie had its DONE.
	 */
	UET_PDS_EV_RESP,
	/**
	 * A target PDC is gone (only with uet_pds_config.pdc_events): closed
	 * by its initiator, given up after unanswered CLOSE_REQs (the
	 * initiator failed or went), or replaced by a new SYN of a
	 * restarted initiator. pdc (the handle its DELIVER events named),
	 * peer, mode; status 0 when closed by its initiator, -ECONNRESET
	 * otherwise. No packet comes on it any more: the SES drops what it
	 * still reassembles from it (a message whose initiator gave up).
	 */
	UET_PDS_EV_PDC_CLOSED,
	/**
	 * A stored response watched with uet_pds_resp_watch() left: status
	 * 0 (cleared: its initiator has it) or -ECONNRESET (its PDC went
	 * without it being cleared); pdc, psn, cookie (the watch's), peer,
	 * mode.
	 */
	UET_PDS_EV_CLEARED,
};

/** One event for the SES. */
struct uet_pds_event {
	uint8_t type;       /**< enum uet_pds_event_type */
	uint8_t mode;       /**< enum uet_wire_pds_mode */
	uint8_t next_hdr;   /**< DONE: response next header; DELIVER: request's */
	uint16_t resp_len;  /**< DONE: bytes in @c resp */
	int32_t status;     /**< DONE: 0, -ETIMEDOUT, -ECONNRESET, -ECONNABORTED */
	uint32_t pdc;       /**< DELIVER: handle for uet_pds_respond();
			     *   DONE, RESP: the PDC that carried the cookie
			     *   (as a later PDC_DOWN names it); PDC_DOWN,
			     *   PDC_CLOSED: that PDC. UET_PDS_PDC_NONE for
			     *   RUDI and UUD */
	uint32_t psn;       /**< PSN (RUDI: pkt_id) */
	uint64_t cookie;    /**< DONE: submit cookie; DELIVER: pkt_cookie */
	struct uet_pds_fa peer; /**< DELIVER: source FA */
	uint8_t resp[UET_PDS_RESP_MAX]; /**< DONE: SES response from the ACK */
};

/**
 * Drain up to @p n events. Only the first @c resp_len bytes of @c resp
 * are written; the rest of the array is left as it was.
 * @return
 *   Number of events written.
 */
uint16_t uet_pds_events(struct uet_pds *p, struct uet_pds_event *ev,
			uint16_t n);

/**
 * Give the SES response to a delivered request that had
 * uet_pds_rx_meta.resp_expected set, or to the request just delivered
 * (see uet_pds_rx()) even without it (an error met before the last
 * packet of a message). The PDS stores it until CLEAR_PSN passes the
 * request, sends it in an ACK with REQ=CLEAR (3), and keeps the CACK it
 * reports below the request meanwhile (UEC 1.0 3.5.20.2.2).
 *
 * RUDI (@p pdc UET_PDS_PDC_NONE, @p psn the pkt_id of the DELIVER event):
 * the response rides in the request's RUDI_RESP (next_hdr RESPONSE or
 * RESPONSE_DATA_SMALL) and reaches the initiator in its DONE event. Only
 * for the request just delivered (see uet_pds_rx()); nothing is stored,
 * a retransmitted request is delivered and answered again.
 * @return
 *   0, -EINVAL (len above resp_max, bad next_hdr), -ENOENT (PDC gone,
 *   no response pending for @p psn, RUDI request no longer pending),
 *   -EAGAIN (response pool empty: RUDI sends no RUDI_RESP, the initiator
 *   retransmits; the request just delivered, with no response reserved
 *   at its arrival, is refused with NACK NO_GTD_DEL_AVAIL instead of
 *   accepted, and its initiator sends it again: the SES must take it as
 *   not received).
 */
int uet_pds_respond(struct uet_pds *p, uint32_t pdc, uint32_t psn,
		    uint8_t next_hdr, const void *resp, uint16_t len,
		    uint64_t now);

/**
 * Answer a delivered request that had uet_pds_rx_meta.resp_expected set
 * with the default response (UEC 1.0 3.5.20.2: OK, nothing modified, no
 * data): nothing is stored and no response travels; the request is
 * acknowledged like any other and CACK passing its PSN tells the
 * initiator it succeeded. Requests that need a guaranteed-delivery
 * response (errors, unexpected-list deliveries, read and atomic results)
 * use uet_pds_respond(). Until either call, CACK does not pass the PSN.
 * @return
 *   0, -EINVAL (@p pdc UET_PDS_PDC_NONE: RUDI has no CACK, its answer
 *   rides in the RUDI_RESP, uet_pds_respond()), -ENOENT (PDC gone, no
 *   response pending for @p psn).
 */
int uet_pds_respond_default(struct uet_pds *p, uint32_t pdc, uint32_t psn,
			    uint64_t now);

/**
 * Ask for UET_PDS_EV_CLEARED when the stored response given for @p psn
 * (uet_pds_respond()) leaves: status 0 once CLEAR_PSN passes it (its
 * initiator has it, UEC 1.0 3.5.20.2.2) or its PDC closes by CLOSE (sent
 * once every request was answered); -ECONNRESET when the PDC goes any
 * other way with it uncleared (given up, replaced by a restarted
 * initiator's SYN): it may never have arrived. @p cookie comes back in
 * the event. One event per call.
 * @return
 *   0, or -ENOENT (RUDI, PDC gone, no response given for @p psn, or
 *   already cleared).
 */
int uet_pds_resp_watch(struct uet_pds *p, uint32_t pdc, uint32_t psn,
		       uint64_t cookie);

/**
 * Refuse the request just delivered (uet_pds_rx() returned 1 and no other
 * call was made since, see there): the PDS does not record its PSN, sends
 * NACK @p code (RUDI: with NT) and forgets a reserved response. The
 * initiator backs off (resource class, UEC 1.0 PDS NACK codes) and retransmits;
 * after uet_pds_config.max_backoffs refusals of one packet the cookies of
 * its PDC fail with -ECONNREFUSED. @p pdc and @p psn are those of the DELIVER event
 * (RUDI: UET_PDS_PDC_NONE and the pkt_id).
 * @return
 *   0, -EINVAL (@p code not a resource NACK 0x04..0x0A, e.g.
 *   UET_NACK_NO_SES_MSG_AVAIL or UET_NACK_NO_RESOURCE), -ENOENT (not the
 *   pending delivery: too late, the PSN is recorded; answer in the SES).
 */
int uet_pds_refuse(struct uet_pds *p, uint32_t pdc, uint32_t psn,
		   uint8_t code);

/**
 * Does a request that reaches a target PDC this PDS asked to close
 * (CLOSE_REQ) continue a message its ULP has begun on that PDC? All
 * packets of a message go on one PDC (UEC 1.0 3.5.20), and a PDC does not
 * close under a message still arriving: such a request is taken, any
 * other new one is refused with NACK CLOSING and moves to a new PDC.
 * @p pdc is the handle events name, @p next_hdr the request's SES
 * header format, @p ses / @p len its SES bytes (at least the header).
 */
typedef bool (*uet_pds_continues_fn)(void *arg, uint32_t pdc,
				     uint8_t next_hdr, const uint8_t *ses,
				     uint16_t len);

/**
 * The multi-packet message the request @p cookie (as submitted) is a
 * packet of, if the target's ULP takes its packets as one message (a
 * send), not each on its own: a key, not 0, that names it among the ULP's
 * messages in flight; 0 for any other request. For a request of any
 * message submitted with UET_PDS_SUBMIT_SOM, even one whose packets stand
 * alone (key 0), @p last is set when the request is the message's last
 * packet, @p open when the ULP still has packets of it to submit (it ends
 * it later with UET_PDS_SUBMIT_EOM or uet_pds_msg_abandon()). A RUD request a closing target refused (NACK
 * CLOSING) moves to a new PDC with every packet of its message not yet
 * acknowledged, so that the message stays on one PDC (UEC 1.0 3.5.20).
 */
typedef uint64_t (*uet_pds_msg_of_fn)(void *arg, uint64_t cookie,
				      bool *last, bool *open);

/** What the PDS asks its ULP (the SES installs it, one per PDS). */
struct uet_pds_ulp {
	uet_pds_continues_fn continues; /**< target: NULL refuses every new
					 *   request on a closing PDC */
	uet_pds_msg_of_fn msg_of;       /**< initiator: NULL moves a refused
					 *   request alone */
	void *arg;                      /**< passed to both */
};

/**
 * Install @p ulp (copied). @p ulp with both functions NULL removes the one
 * installed with the same arg.
 * @return
 *   0, or -EBUSY (another one is installed).
 */
int uet_pds_set_ulp(struct uet_pds *p, const struct uet_pds_ulp *ulp);

/** Response buffer size of @p p (uet_pds_config.resp_max resolved). */
uint32_t uet_pds_resp_max(const struct uet_pds *p);

/**
 * Close the PDC behind an event handle: an initiator sends CLOSE once idle,
 * a target asks the initiator with ACK REQ=CLOSE / CLOSE_REQ (3).
 * @return
 *   0 or -ENOENT.
 */
int uet_pds_pdc_close(struct uet_pds *p, uint32_t pdc, uint64_t now);

/**
 * Keep PDC @p pdc from closing for being idle while a large READ's data is
 * still to come back on it (UEC 1.0 ses_pds_tx_req lock_pdc,
 * ses_pds_unlock: a counter per PDC, which closes only at zero). That
 * data comes on the PDC that carried the request: an initiator locks it
 * (a DONE event's handle) until the data is in, so it sends no idle
 * CLOSE; a target locks it (a DELIVER event's handle) until the data is
 * sent, so it sends no idle CLOSE_REQ and holds the ACK of its
 * initiator's CLOSE until the data is sent and acknowledged. A close the
 * peer asks for, or uet_pds_pdc_close(), still closes it (at the target
 * once the data went); a lock dies with its PDC. A locked idle initiator
 * PDC asks the target whether it still has the PDC (a CLEAR with AR every
 * idle_close_ns, or every rto_init_ns when PDCs do not close for being
 * idle) and fails with -ETIMEDOUT once the target has answered nothing
 * for as long as the RTO rounds would wait for it (lock_silent).
 * @return
 *   0, -ENOENT (no such PDC) or -EOVERFLOW (255 locks).
 */
int uet_pds_pdc_lock(struct uet_pds *p, uint32_t pdc);

/**
 * Undo one uet_pds_pdc_lock(); at zero the idle close is armed again.
 * @return
 *   0, -ENOENT (PDC gone: its locks went with it) or -EINVAL (not
 *   locked).
 */
int uet_pds_pdc_unlock(struct uet_pds *p, uint32_t pdc, uint64_t now);

/** Counters; written only by the owner lcore. */
struct uet_pds_stats {
	uint64_t tx_type[16];      /**< descriptors out, by PDS type */
	uint64_t rx_type[16];      /**< packets in, by PDS type */
	uint64_t tx_ctl[16];       /**< CPs out, by ctl_type */
	uint64_t rx_ctl[16];       /**< CPs in, by ctl_type */
	uint64_t nack_tx[32];      /**< NACKs sent, by code (0xFD-FF in [31]) */
	uint64_t nack_rx[32];      /**< NACKs received, by code */
	/** requests a closing target PDC took: they continue a message
	 * begun on it (uet_pds_ulp.continues) */
	uint64_t closing_continued;
	/** PSNs a closing target PDC counted received because its
	 * initiator's CLEAR_PSN passed them: requests it refused (NACK
	 * CLOSING) and their initiator moved to another PDC */
	uint64_t closing_cleared;
	/** closes of an initiator PDC (asked by uet_pds_pdc_close(), the
	 * idle timer or the target's CLOSE_REQ) held until the message
	 * open on it (UET_PDS_SUBMIT_SOM) had its last packet queued */
	uint64_t close_held;
	/** requests refused by a closing target (NACK CLOSING) that found
	 * no room on their key's PDC and waited for it */
	uint64_t move_waited;
	/** requests refused by a closing target failed (-ECONNABORTED)
	 * because too many waited for room already (2 x tx_window) */
	uint64_t move_dropped;
	/** requests failed (-ECONNREFUSED) for a NACK CLOSING after they
	 * had moved max_backoffs times: a target refusing them on every
	 * new PDC */
	uint64_t move_limit;
	/* Retransmissions (retx_*, further below too) are counted by
	 * reason when their descriptor leaves uet_pds_tx_burst(); a packet
	 * marked for resend and acknowledged before it left counts in
	 * resend_cancelled only. All retx_* together are the
	 * UET_PDS_TX_RETX descriptors handed out plus the reliable control
	 * packets (CLOSE) sent again (UET_PDS_TX_CTL with the RETX flag). */
	uint64_t retx_sack;        /**< retransmits: SACK-inferred loss */
	uint64_t retx_nack;        /**< retransmits: retransmit-class NACK
				    *   other than a trim (PSN_OOR_WINDOW,
				    *   ROD_OOO go-back-N, ...) */
	uint64_t retx_rto;         /**< retransmits: RTO (the oldest packet,
				    *   then what the next ACK shows lost) */
	uint64_t retx_backoff;     /**< retransmits after resource back-off */
	uint64_t rto_fires;        /**< RTO expiries */
	uint64_t tlp_fires;        /**< tail-loss probes */
	uint64_t dup_rx;           /**< duplicate requests (re-ACKed) */
	uint64_t ooo_rx;           /**< out-of-order requests (RUD) */
	uint64_t acks_coalesced;   /**< requests not ACKed on their own */
	uint64_t resp_resent;      /**< stored responses sent again */
	uint64_t resp_default;     /**< target: default responses (nothing
				    *   stored, folded into CACK) */
	uint64_t done_default;     /**< initiator: completed by CACK passing
				    *   a request that wanted a response */
	uint64_t resp_late;        /**< initiator: responses for requests
				    *   already completed (UET_PDS_EV_RESP) */
	uint64_t pdc_open_init;    /**< initiator PDCs opened */
	uint64_t pdc_open_tgt;     /**< target PDCs opened */
	uint64_t pdc_close_init;   /**< initiator PDCs closed */
	uint64_t pdc_close_tgt;    /**< target PDCs closed */
	uint64_t pdc_fail;         /**< PDCs closed in error */
	uint64_t done_ok;          /**< cookies completed */
	uint64_t done_err;         /**< cookies failed */
	uint64_t delivered;        /**< requests delivered to the SES */
	uint64_t exhaust_pdc;      /**< PDC pool empty */
	uint64_t exhaust_txblk;    /**< transmit block pool empty */
	uint64_t exhaust_rxblk;    /**< receive block pool empty */
	uint64_t exhaust_resp;     /**< response pool empty */
	uint64_t exhaust_rudi;     /**< RUDI slots empty */
	uint64_t exhaust_queue;    /**< dgram/ctl queue full (submit/NACK lost) */
	uint64_t ev_full;          /**< packets dropped: event ring too full */
	uint64_t rx_bad;           /**< malformed/unexpected packets */
	uint64_t rx_stale;         /**< ACK/NACK outside the window */
	uint64_t retx_probe;       /**< retransmits: PROBE reply */
	uint64_t syn_conflict;     /**< SYN with another Start_PSN, PDC kept */
	uint64_t syn_replace;      /**< SYN with another Start_PSN, PDC replaced */
	uint64_t syn_stale;        /**< SYN of a target PDC already freed:
				    *   a late duplicate, dropped */
	uint64_t close_req_giveup; /**< target PDCs freed after their
				    *   CLOSE_REQs went unanswered */
	uint64_t close_nack;       /**< closing initiator PDCs freed on a
				    *   PDC-fatal NACK (the target had
				    *   already closed them) */
	uint64_t lock_keepalive;   /**< CLEARs with AR of idle PDCs kept
				    *   open by uet_pds_pdc_lock() */
	uint64_t new_start;        /**< Start_PSN re-picked on NEW_START_PSN */
	uint64_t rod_renack;       /**< ROD_OOO NACKs repeated for one PSN */
	uint64_t clear_req_tx;     /**< CLEAR_REQ CPs (high-water mark, quiet) */
	uint64_t credit_req_tx;    /**< credit requests (CC_REQ or CP) */
	uint64_t credit_rx;        /**< credit grants received */
	uint64_t credit_cp_tx;     /**< grants sent in a CREDIT CP (the
				    *   source asked with CREDIT_REQ) */
	uint64_t refused;          /**< deliveries refused by the SES */
	uint64_t rudi_resp_data;   /**< RUDI_RESPs sent with an SES response */
	uint64_t clear_idle;       /**< CLEAR CPs sent when idle */
	uint64_t retx_again;       /**< RUD: a retransmission presumed lost
				    *   too (a packet sent after it was
				    *   acknowledged first) */
	uint64_t rod_goback;       /**< ROD: go-back-N restarts on a NACK */
	uint64_t rod_nack_stale;   /**< ROD: NACKs ignored, the hole's resend
				    *   left less than 1.25 SRTT before */
	uint64_t rtt_samples;      /**< RTT samples taken (SRTT) */
	uint64_t nack_retx_limit;  /**< PDCs failed: a PSN NACKed for
				    *   retransmission max_nack_retx times */
	uint64_t rto_spurious;     /**< RTOs undone: the next ACK covered
				    *   packets never retransmitted (F-RTO) */
	uint64_t rto_unblock;      /**< RTOs that presumed lost every packet
				    *   in flight for RTO_INIT: resends
				    *   waited behind a shut CC gate */
	uint64_t lb_recycled;      /**< REPS: packets sent on a cached EV */
	uint64_t lb_explored;      /**< REPS: packets sent on a new random EV */
	uint64_t lb_freezes;       /**< REPS: freezing entered on a loss */
	uint64_t lb_ev_foreign;    /**< ACK/NACK echoing an EV outside the
				    *   configured range (no feedback) */
	uint64_t retx_trim;        /**< retransmits: TRIMMED or
				    *   TRIMMED_LASTHOP NACK */
	uint64_t retx_tlp;         /**< retransmits: tail-loss probe resending
				    *   the newest packet (no CP possible) */
	uint64_t resend_cancelled; /**< packets marked for retransmission but
				    *   acknowledged (or completed) before
				    *   they left: not sent, not counted */
	uint64_t ack_ev_split;     /**< ACKs sent early so that a CE mark is
				    *   echoed with the EV it arrived on */
	uint64_t syn_refused;      /**< SYNs of an incarnation refused with
				    *   NEW_START_PSN before, refused again */
	uint64_t tomb_evict;       /**< closed-PDC records evicted before
				    *   the hold-off passed */
	uint64_t mpr_limited;      /**< times new data waited for the
				    *   peer's CACK to move: its MP_Range
				    *   reached */
	uint64_t nack_to_rto;      /**< retransmit NACKs of a PSN NACKed
				    *   max_nack_retx times already: not
				    *   resent at once, left to the RTO */
	uint64_t lock_silent;      /**< locked idle initiator PDCs failed:
				    *   their keepalives went unanswered
				    *   for the RTO rounds' time */
	uint64_t syn_rec_evict;    /**< records of refused Start_PSNs
				    *   evicted within 2 x mpl_ns: their
				    *   hash bucket refuses new SYNs until
				    *   then */
	uint64_t syn_forgot;       /**< SYNs refused because a record of
				    *   their bucket was evicted, or their
				    *   id ran out of Start_PSNs to hand out */
	uint64_t tx_unbuildable;   /**< PDCs failed: their oldest request
				    *   could not be built any more
				    *   (uet_pds_tx_unbuildable) */
	uint64_t syn_1rtt;         /**< SYNs of an id without a record
				    *   refused with a Start_PSN named
				    *   (uet_pds_config.syn_1rtt) */
	uint64_t syn_expected_old; /**< SYNs of an id without a record
				    *   refused: their Start_PSN before
				    *   the domain's Expected_PSN
				    *   (uet_pds_config.syn_expected) */
	uint64_t epsn_tx;          /**< ACKs of a CLOSE carrying the
				    *   domain's Expected_PSN */
	uint64_t epsn_rx;          /**< Expected_PSNs taken as a domain's
				    *   Start_PSN floor */
	uint64_t epsn_ignored;     /**< EPSN ACKs not taken: not of our
				    *   CLOSE, no secure domain, or
				    *   syn_expected off */
	uint64_t syn_restart;      /**< initiator PDCs in SYN state failed
				    *   (-ECONNRESET): refused by a target
				    *   that restarted since they opened,
				    *   whose previous incarnation may have
				    *   run their requests */
	uint64_t syn_unnamed;      /**< SYNs to refuse left unanswered: no
				    *   Start_PSN could be named to their id
				    *   yet (one per id per PDS_NAME_NS, none
				    *   in the interval this PDS started in);
				    *   their initiators retransmit */
};

/** Counters of an instance. */
const struct uet_pds_stats *uet_pds_stats_get(const struct uet_pds *p);

/** Pool occupancy, for leak checks and telemetry. */
struct uet_pds_pool_info {
	uint32_t pdc_used[2];  /**< [0] initiator, [1] target */
	uint32_t tx_blk_used;
	uint32_t rx_blk_used;
	uint32_t resp_used;
	uint32_t rudi_used;
	uint32_t events;       /**< undrained events */
};

/** Current pool occupancy of @p p. */
void uet_pds_pool_info_get(const struct uet_pds *p,
			   struct uet_pds_pool_info *info);

/**
 * Bytes of PDS state per PDC id of @p p: the PDC table (both roles), the
 * congestion control's per-PDC state and instance, the load-balancing
 * state, the timer nodes, the id pools, the key hash tables and the
 * closed target records, all sized by uet_pds_config.max_pdcs +
 * max_rsv_pdcs at creation and divided by the ids they serve. Per-packet
 * blocks (tx/rx windows, stored responses) are pooled separately and
 * attached to a PDC only while it has traffic: an idle PDC holds none of
 * them.
 */
size_t uet_pds_pdc_bytes(const struct uet_pds *p);

/** PDC state as reported by uet_pds_pdc_info_get(). */
enum uet_pds_pdc_state {
	UET_PDS_PDC_SYN = 1, /**< initiator: no ACK yet, requests carry SYN */
	UET_PDS_PDC_OPEN,    /**< established */
	UET_PDS_PDC_CLOSING, /**< initiator: CLOSE sent; target: close asked */
	UET_PDS_PDC_CLOSED,  /**< target: CLOSE received, ACK not yet sent */
};

/**
 * Read-only view of one PDC (for `show pdc`). A PDC has a transmit PSN
 * space (forward requests at the initiator, return-direction requests at
 * the target) and a receive PSN space (UEC 1.0 PDS).
 */
struct uet_pds_pdc_info {
	struct uet_pds_fa peer; /**< the other end's FA */
	uint32_t handle;        /**< as in events; for uet_pds_pdc_close() */
	uint32_t job;           /**< initiator: JobID of the PDC key */
	uint16_t lid;           /**< our PDC id on the wire */
	uint16_t rid;           /**< the peer's PDC id (0 while SYN) */
	uint8_t role;           /**< 0 initiator, 1 target */
	uint8_t state;          /**< enum uet_pds_pdc_state */
	uint8_t mode;           /**< enum uet_wire_pds_mode */
	uint8_t tc;             /**< traffic class */
	uint32_t start_psn;     /**< Start_PSN (both PSN spaces start here) */
	uint32_t tx_una;        /**< first transmit PSN not complete */
	uint32_t tx_nxt;        /**< next transmit PSN to assign */
	uint32_t tx_inflight;   /**< bytes sent and not acknowledged */
	uint32_t tx_retransmits; /**< retransmissions sent on this PDC
				  *   (saturates at 65535) */
	uint32_t cwnd;          /**< congestion window from the cc ops */
	uint32_t rx_cack;       /**< receive side cumulative ACK PSN */
	uint32_t rx_ooo;        /**< PSNs held out of order past rx_cack */
	uint8_t retries;        /**< RTO rounds without progress */
	uint8_t backoffs;       /**< most refusals of one packet (or SYN
				 *   refusals) since the last progress */
	uint16_t stored_resp;   /**< target: guaranteed-delivery responses held */
	uint32_t srtt_ns;       /**< smoothed RTT of the transmit side, 0: none */
};

/**
 * Describe the PDC behind @p handle.
 * @return
 *   0, or -ENOENT (no such PDC).
 */
int uet_pds_pdc_info_get(const struct uet_pds *p, uint32_t handle,
			 struct uet_pds_pdc_info *info);

/**
 * Handle of the initiator PDC that uet_pds_submit() uses for
 * {@p dst, @p job, @p tc, @p mode} (RUD/ROD), e.g. to match what comes
 * back in that PDC's return direction to the request just submitted.
 * @return
 *   0, or -ENOENT (no such PDC open).
 */
int uet_pds_pdc_find(struct uet_pds *p, const struct uet_pds_fa *dst,
		     uint32_t job, uint8_t tc, uint8_t mode, uint32_t *handle);

/**
 * Call @p cb for every live PDC, initiators first, until it returns
 * non-zero. The PDS must not be modified from @p cb.
 * @return
 *   The first non-zero value of @p cb, or 0.
 */
int uet_pds_pdc_foreach(const struct uet_pds *p,
			int (*cb)(const struct uet_pds_pdc_info *info,
				  void *arg),
			void *arg);

/** Owner id encoded in a PDC id (for the engine's steering). */
static inline uint32_t
uet_pds_pdcid_owner(uint16_t pdcid, uint32_t owner_bits)
{
	return owner_bits == 0 ? 0 : (uint32_t)pdcid >> (16 - owner_bits);
}

#ifdef __cplusplus
}
#endif

#endif /* UET_PDS_H */
