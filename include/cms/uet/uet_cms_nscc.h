/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef UET_CMS_NSCC_H
#define UET_CMS_NSCC_H

/**
 * @file
 * NSCC, the network-signal congestion control of UEC 1.0 (section
 * 3.6.13): a sender window driven by ECN marks, queueing delay, trims and
 * losses, plus the destination's share (the rcvd_bytes, service_time,
 * ooo_count and penalty fields of ACK_CC cc_type 0).
 *
 * Sans-I/O like the rest of the CMS: the caller passes the time (ns) and
 * the events; nothing here reads a clock, allocates or logs.
 *
 * Units (all integers):
 *  - bytes are "nominal" packet sizes, the UDP length + 40
 *    (uet_nscc_nominal()), the same measure on both ends so that the
 *    receiver's rcvd_bytes cancels the sender's inflight;
 *  - times in nanoseconds, link rates in Mb/s;
 *  - gamma and max_md_jump in thousandths, fi_scale and alpha in 1/65536
 *    (alpha in bytes per ns), the delay average in 1/256 ns;
 *  - inc_bytes is bytes x bytes (divided by cwnd when applied).
 *
 * One struct uet_nscc is a congestion context: it may serve every PDC to
 * one destination. Per PDC only the last rcvd_bytes seen is kept
 * (struct uet_nscc_rcvd).
 */

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct uet_wire_pds_nscc_state;

/** Nominal size counted by both ends: UDP length + 40 (UEC 3.6.13). */
#define UET_NSCC_NOMINAL_EXTRA 40
/** Largest rcv_cwnd_pend (7 bits): about one packet per RTT. */
#define UET_NSCC_PEND_MAX 127
/** service_time unit on the wire, ns. */
#define UET_NSCC_SERVICE_UNIT_NS 128
/** Reference BDP of the parameter scaling "a" (bytes). */
#define UET_NSCC_SCALE_A_BDP 150000
/** Reference delay of the parameter scaling "b" (ns). */
#define UET_NSCC_SCALE_B_NS 12000
/** Delay average gain 1/80 = 0.0125. */
#define UET_NSCC_EWMA_DIV 80

/** NSCC parameters, shared by the contexts of an engine. */
struct uet_nscc_params {
	uint32_t link_mbps;        /**< sender link rate, Mb/s */
	uint32_t base_rtt_ns;      /**< configured base RTT (config_base_rtt) */
	uint32_t mtu;              /**< nominal bytes of a full packet */
	bool trimming;             /**< the fabric trims (target 0.75 RTT) */
	bool rccc;                 /**< RCCC runs too: last-hop trims ignored */
	uint32_t target_qdelay_ns; /**< queueing delay target */
	uint32_t max_wnd;          /**< bytes: initial cwnd and cap */
	uint32_t gamma_milli;      /**< MD strength (800) */
	uint32_t max_md_jump_milli; /**< least MD factor (500) */
	uint32_t fi_bytes;         /**< fair increase per acked byte, bytes */
	uint32_t fi_scale_q16;     /**< fast increase per acked byte, /65536 */
	uint32_t fi_thresh_ns;     /**< "no delay" for fast increase (1 us) */
	uint32_t eta_bytes;        /**< additive increase per adjust period */
	uint32_t alpha_q16;        /**< proportional gain, bytes/ns /65536 */
	uint32_t qa_gate;          /**< QA if achieved < max_wnd >> qa_gate */
	uint32_t qa_threshold_ns;  /**< delay that triggers QA; 0: off */
	uint32_t adjust_bytes;     /**< apply inc_bytes after these bytes */
	uint32_t adjust_period_ns; /**< ... or after this time (and add eta) */
	uint32_t ack_trigger;      /**< AR when cwnd < this (ACK threshold) */
};

/**
 * Fill @p p with the UEC defaults for a link of @p link_mbps, a base RTT
 * of @p base_rtt_ns and a nominal MTU of @p mtu (the table of the UEC
 * 1.0 section 3.6.13 defaults): BDP = rate x base RTT,
 * a = BDP / 150000 B, b = target_qdelay / 12 us, target_qdelay 0.75 (with
 * @p trimming) or 1.0 base RTT, max_wnd 1.5 BDP, gamma 0.8, max_md_jump
 * 0.5, fi 5 MTU a, fi_scale 0.25 a, eta 0.15 MTU a,
 * alpha 4 a b MTU / target_qdelay, qa_gate 3, qa_threshold 4
 * target_qdelay without trimming (off with it), adjust 8 MTU or 1 base
 * RTT, ack_trigger 16 KiB. Fractions are rounded down.
 * @return
 *   0, or -EINVAL when the inputs are zero or the results overflow.
 */
int uet_nscc_params_default(struct uet_nscc_params *p, uint32_t link_mbps,
			    uint32_t base_rtt_ns, uint32_t mtu, bool trimming);

/**
 * Check @p p.
 * @return
 *   0, or -EINVAL with @p why (if not NULL) naming the field and range.
 */
int uet_nscc_params_check(const struct uet_nscc_params *p, const char **why);

/** Sender state of one congestion context (88 bytes, static assert). */
struct uet_nscc {
	int32_t inflight;         /**< signed: rcvd_bytes is rounded up */
	uint32_t cwnd;            /**< bytes */
	uint32_t max_wnd;         /**< 1.5 x link rate x base_rtt */
	uint32_t base_rtt_ns;     /**< smallest RTT sample (from the config) */
	uint32_t saved_cwnd;      /**< cwnd before the penalty; 0 none */
	uint32_t fi_count;        /**< bytes acked with no delay */
	uint32_t received_bytes;  /**< since the last adjustment */
	uint32_t achieved_bytes;  /**< in the current quick-adapt interval */
	uint32_t bytes_to_ignore; /**< feedback skipped after QA */
	uint32_t bytes_ignored;   /**< ... so far */
	uint64_t avg_delay_q8;    /**< delay EWMA, 1/256 ns */
	uint64_t inc_bytes;       /**< pending increase, bytes x bytes */
	uint64_t last_adjust;     /**< ns of the last periodic eta */
	uint64_t last_md;         /**< ns of the last multiplicative decrease */
	uint64_t qa_end;          /**< end of the QA interval; 0 none */
	uint32_t flags;           /**< UET_NSCC_F_* */
	uint32_t pad;
};

#define UET_NSCC_F_FAST       0x01u /**< fast increase running */
#define UET_NSCC_F_QA_TRIGGER 0x02u /**< trigger_qa: a trim since the last QA */
#define UET_NSCC_F_RCV_LIMIT  0x04u /**< receiver penalty in force */
#define UET_NSCC_F_PROBE_DUE  0x08u /**< a base_rtt PROBE should go out */
#define UET_NSCC_F_PROBED     0x10u /**< the PROBE went out */
#define UET_NSCC_F_PROBE_RTT  0x20u /**< the PROBE came back */
#define UET_NSCC_F_MD_DONE    0x40u /**< last_md is valid */
#define UET_NSCC_F_FEEDBACK   0x80u /**< some ACK or NACK was seen */

/** What one ACK (or ACK_CC) tells the sender. */
struct uet_nscc_ack {
	uint32_t bytes;        /**< newly received bytes (rcvd_bytes delta) */
	uint64_t rtt_ns;       /**< uet_nscc_rtt_sample(); 0: no sample */
	bool ecn;              /**< M flag */
	uint8_t rcv_cwnd_pend; /**< 0..127 */
	bool restore;          /**< rc: restore the cwnd saved by a penalty */
};

/** Outcome of an NSCC step, for counters and tests. */
enum uet_nscc_action {
	UET_NSCC_NONE = 0,     /**< nothing (no sample, or no change cell) */
	UET_NSCC_IGNORED,      /**< feedback skipped (bytes_to_ignore) */
	UET_NSCC_QUICK_ADAPT,  /**< quick adapt set cwnd */
	UET_NSCC_FAIR,         /**< fair increase accumulated */
	UET_NSCC_PROPORTIONAL, /**< proportional increase accumulated */
	UET_NSCC_FAST,         /**< fast increase applied */
	UET_NSCC_MD,           /**< multiplicative decrease applied */
	UET_NSCC_MD_HELD,      /**< MD cell, but not due (once per base_rtt) */
	UET_NSCC_PENALTY,      /**< receiver penalty applied */
	UET_NSCC_RESTORED,     /**< saved cwnd restored */
	UET_NSCC_DECREASE,     /**< cwnd reduced by a packet (trim / loss) */
};

/** Initialise @p n: cwnd = max_wnd, base_rtt from @p p. */
void uet_nscc_init(struct uet_nscc *n, const struct uet_nscc_params *p);

/** Nominal size of a packet of UDP length @p udp_len. */
static inline uint32_t
uet_nscc_nominal(uint32_t udp_len)
{
	return udp_len + UET_NSCC_NOMINAL_EXTRA;
}

/**
 * RTT sample of an ACK: @p now - (@p tx_time + service time), valid only
 * for a packet sent once (@p tx_count 1, ACK without RETX) or for the
 * ACK echoing RETX of its single retransmission (@p tx_count 2, @p tx_time
 * of the retransmission).
 * @param service_units
 *   The ACK_CC service_time, 128 ns units.
 * @return
 *   The RTT in ns, or 0 when there is no valid sample (also when the
 *   service time is at least the time measured, or saturated: 0xFFFF
 *   says the receiver does not know it).
 */
uint64_t uet_nscc_rtt_sample(uint64_t tx_time, uint32_t tx_count,
			     bool ack_retx, uint16_t service_units,
			     uint64_t now);

/** Window gate: inflight + MTU <= cwnd. */
bool uet_nscc_may_send(const struct uet_nscc *n,
		       const struct uet_nscc_params *p);

/** Set AR: cwnd - inflight < MTU, or cwnd below the ACK trigger. */
bool uet_nscc_want_ar(const struct uet_nscc *n,
		      const struct uet_nscc_params *p);

/** A packet of @p bytes (nominal, retransmissions too) left. */
void uet_nscc_on_send(struct uet_nscc *n, uint32_t bytes);

/**
 * An ACK, UEC 1.0 NSCC.OnACK: inflight and the byte counters, the
 * receiver penalty (or restore), then with an RTT sample base_rtt, the
 * delay average, quick adapt (ECN-marked ACKs ignored while
 * bytes_to_ignore lasts), the ECN x delay matrix (the increases skipped
 * while the destination limits) and fulfill_adjustment.
 */
enum uet_nscc_action uet_nscc_on_ack(struct uet_nscc *n,
				     const struct uet_nscc_params *p,
				     const struct uet_nscc_ack *a,
				     uint64_t now);

/**
 * A trim NACK for a packet of @p bytes (TRIMMED, or TRIMMED_LASTHOP when
 * @p lasthop), UEC 1.0 NSCC.OnNACK: the bytes leave inflight, the delay
 * average takes a sample of config_base_rtt; unless it is a last-hop
 * trim with RCCC on, trigger_qa is set and quick adapt runs (as a loss,
 * ECN-marked), else cwnd loses the packet (at least one MTU stays).
 * Call uet_nscc_on_nack_rtt() first when the NACK gives an RTT sample.
 */
enum uet_nscc_action uet_nscc_on_trim(struct uet_nscc *n,
				      const struct uet_nscc_params *p,
				      uint32_t bytes, bool lasthop,
				      uint64_t now);

/**
 * A NACK of another reason for a packet of @p bytes (not received, not a
 * congestion signal): the bytes leave inflight (UEC 1.0 NSCC.OnNACK).
 */
void uet_nscc_on_nack(struct uet_nscc *n, uint32_t bytes, uint64_t now);

/**
 * The RTT sample of a NACK (uet_nscc_rtt_sample() with service time 0;
 * 0: none) lowers base_rtt like an ACK's; it is not a delay sample
 * (UEC 1.0 NSCC.OnNACK).
 */
void uet_nscc_on_nack_rtt(struct uet_nscc *n, const struct uet_nscc_params *p,
			  uint64_t rtt_ns);

/**
 * A packet of @p bytes was lost (SACK-inferred or retransmit timeout),
 * UEC 1.0 NSCC.OnInferredLoss: cwnd = max(cwnd - bytes, MTU), the bytes
 * leave inflight and count as ignored; no quick adapt.
 */
enum uet_nscc_action uet_nscc_on_loss(struct uet_nscc *n,
				      const struct uet_nscc_params *p,
				      uint32_t bytes, uint64_t now);

/**
 * A PROBE should be sent (once, after the first ACK or NACK) to sample a
 * clean base_rtt in the control traffic class.
 */
bool uet_nscc_probe_due(const struct uet_nscc *n);

/** The PROBE asked for by uet_nscc_probe_due() was sent. */
void uet_nscc_probe_sent(struct uet_nscc *n);

/**
 * The PROBE's ACK came back with RTT sample @p rtt_ns: like any sample it
 * lowers base_rtt (and max_wnd) only when smaller (UEC 1.0 section
 * 3.6.13.6 update_base_rtt). 0 is ignored.
 */
void uet_nscc_on_probe_ack(struct uet_nscc *n,
			   const struct uet_nscc_params *p, uint64_t rtt_ns);

/** Per-PDC tracker of the receiver's rcvd_bytes (24-bit, 256 B units). */
struct uet_nscc_rcvd {
	uint32_t last; /**< last rcvd_bytes seen */
};

/**
 * Bytes newly received according to rcvd_bytes @p units of an ACK_CC,
 * modulo 2^24 units; a value that moves backwards (an older ACK) gives 0.
 */
uint32_t uet_nscc_rcvd_delta(struct uet_nscc_rcvd *r, uint32_t units);

/* ---- Destination side ---- */

/** Destination state of one PDC (8 bytes, static assert). */
struct uet_nscc_rcv {
	/** Nominal bytes of new untrimmed packets modulo 2^32: exactly the
	 * 2^24 units of 256 B that rcvd_bytes carries. */
	uint32_t rcvd_bytes;
	uint8_t pend;          /**< rcv_cwnd_pend to report */
	uint8_t restore;       /**< rc owed (penalty ended) */
	uint16_t pad;
};

/** Initialise @p r (a new PDC). */
void uet_nscc_rcv_init(struct uet_nscc_rcv *r);

/**
 * A data packet of UDP length @p udp_len arrived. Only a new, untrimmed,
 * non-duplicate packet counts in rcvd_bytes (UEC 1.0 section 3.6.13.9).
 */
void uet_nscc_rcv_on_data(struct uet_nscc_rcv *r, uint32_t udp_len,
			  bool trimmed, bool duplicate);

/**
 * Receiver load: 0 when it keeps up, up to 127 when its SES refuses or
 * its rings fill. Going from non-zero to 0 owes the sender one rc.
 * @return
 *   0, or -EINVAL above 127.
 */
int uet_nscc_rcv_overload(struct uet_nscc_rcv *r, uint32_t pend);

/**
 * Fill the cc_type 0 state of an ACK_CC: service_time from
 * @p service_ns (128 ns units, rounded down, saturated), rcvd_bytes as
 * (bytes + 255) >> 8 modulo 2^24, rcv_cwnd_pend and rc (consumed: one
 * ACK carries it). ooo_count is left to the caller, who knows the
 * receive window: the packets received beyond the cumulative ACK now
 * (as htsim counts them).
 */
void uet_nscc_rcv_fill(struct uet_nscc_rcv *r, uint64_t service_ns,
		       struct uet_wire_pds_nscc_state *st);

#ifdef __cplusplus
}
#endif

#endif /* UET_CMS_NSCC_H */
