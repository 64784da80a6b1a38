/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef UET_CMS_RCCC_H
#define UET_CMS_RCCC_H

/**
 * @file
 * RCCC, the receiver-credit congestion control of UEC 1.0 (section
 * 3.6.14, from EQDS): a source sends only with credit; it starts with a
 * speculative max_wnd and asks for more (credit_target in RUD/ROD_CC_REQ
 * headers or a CREDIT_REQ CP); the destination's pull pacer grants credit
 * round-robin across its active sources at about its line rate (ACK_CC
 * cc_type 1 or a CREDIT CP).
 *
 * Sans-I/O: time (ns) is an argument; the pacer's per-source slots are a
 * caller-owned array. Credit is counted in bytes here and carried in
 * 256-byte units on the wire (uet_rccc_units()).
 *
 * With NSCC as well, a packet goes when both allow it
 * (uet_cms_cc_may_send()); NSCC then ignores last-hop trims
 * (uet_nscc_params.rccc) since the receiver paces its own link.
 */

#include <stdbool.h>
#include <stdint.h>

#include <uet/uet_cms_nscc.h>

#ifdef __cplusplus
extern "C" {
#endif

struct uet_wire_pds_credit_state;

/** Bytes per credit unit on the wire. */
#define UET_RCCC_UNIT 256
/** Largest credit or credit_target on the wire (24 bits of units). */
#define UET_RCCC_UNITS_MAX 0xFFFFFFu
/** Default pacing: 990 / 1000 of the line rate. */
#define UET_RCCC_RATE_MILLI 990

/** Wire units for @p bytes: rounded up, saturated at 24 bits. */
static inline uint32_t
uet_rccc_units(uint64_t bytes)
{
	uint64_t u = (bytes + UET_RCCC_UNIT - 1) / UET_RCCC_UNIT;

	return u > UET_RCCC_UNITS_MAX ? UET_RCCC_UNITS_MAX : (uint32_t)u;
}

/** Bytes of @p units wire units (24 bits used). */
static inline uint32_t
uet_rccc_bytes(uint32_t units)
{
	return (units & UET_RCCC_UNITS_MAX) * UET_RCCC_UNIT;
}

/* ---- Source ---- */

/** Credit held by one source (one PDC), 8 bytes. */
struct uet_rccc_src {
	/** Bytes the source may still send; below zero, a debt: the
	 * packet sent on the last bytes of credit overdraws by less than
	 * its size, paid back by the next grants (htsim's signed
	 * _credit). */
	int32_t credit;
	/** Credit granted so far, bytes modulo 2^32 (grants are whole
	 * 256 B units, so bit 0 is free): bit 0 set while the source still
	 * speculates (no feedback yet). */
	uint32_t pulled;
};

/** Start speculating with credit of @p max_wnd bytes. */
void uet_rccc_src_init(struct uet_rccc_src *s, uint32_t max_wnd);

/** The source still holds its speculative credit (no feedback yet). */
static inline bool
uet_rccc_src_speculating(const struct uet_rccc_src *s)
{
	return (s->pulled & 1u) != 0;
}

/**
 * Cumulative credit target (htsim's computePullTarget(); UEC 1.0 leaves
 * RCCC's source to the implementation): want = min(@p backlog +
 * @p rtx_backlog, @p cwnd + @p mtu, @p max_wnd) - credit, at least one
 * MTU while speculating with a backlog, divided among the @p active
 * sources of this sender (1 or more), added to the credit granted so far
 * and rounded up to 256 B, modulo 2^32. Without NSCC pass cwnd = max_wnd.
 * @return
 *   The target in bytes (a multiple of 256), or 0 when nothing is
 *   wanted (or, once per 2^32 bytes, when the target is 0 modulo 2^32:
 *   the next request asks).
 */
uint32_t uet_rccc_src_credit_target(const struct uet_rccc_src *s,
				    uint64_t backlog, uint64_t rtx_backlog,
				    uint32_t cwnd, uint32_t mtu,
				    uint32_t max_wnd, uint32_t active);

/**
 * The first feedback (ACK, NACK or grant) ends speculation: unspent
 * speculative credit is dropped, a debt kept (htsim's stopSpeculating()).
 */
void uet_rccc_src_stop_speculating(struct uet_rccc_src *s);

/** A packet may go: any credit at all, credit > 0, whatever its size
 * @p bytes (htsim's can_send_RCCC()); the send may leave a debt. */
bool uet_rccc_src_may_send(const struct uet_rccc_src *s, uint32_t bytes);

/** A packet of @p bytes (retransmissions too) consumed credit; one sent
 * on less credit than its size leaves a debt, saturated at INT32_MIN. */
void uet_rccc_src_on_send(struct uet_rccc_src *s, uint32_t bytes);

/**
 * The destination has granted @p pulled bytes in all (cumulative, modulo
 * 2^32, whole 256 B units: htsim's pull number): what is new over the
 * last total is added to credit, capped at @p max_wnd (htsim's
 * handlePull()); a lost grant is made up by the next, an older one is
 * ignored. Speculation ends first.
 */
void uet_rccc_src_on_credit(struct uet_rccc_src *s, uint32_t pulled,
			    uint32_t max_wnd);

/**
 * Combined gate: a packet of @p bytes goes when NSCC's window and RCCC's
 * credit both allow it. Either side may be NULL (not running).
 */
bool uet_cms_cc_may_send(const struct uet_nscc *n,
			 const struct uet_nscc_params *p,
			 const struct uet_rccc_src *s, uint32_t bytes);

/* ---- Destination: the pull pacer ---- */

/** Pacer parameters. */
struct uet_rccc_pacer_config {
	uint32_t link_mbps;  /**< the destination's link, Mb/s */
	uint32_t rate_milli; /**< share of it to grant (990), 1..1000 */
	uint32_t quantum;    /**< bytes per grant, multiple of 256 */
	uint32_t spec_max;   /**< speculative credit per idle source
			      *   (1 BDP); 0: none */
	/** Grants a late poll may catch up, bytes (0: one quantum). A
	 * real-time loop that polls every few microseconds needs several
	 * quanta, or the poll period and not the rate sets the pace. */
	uint32_t burst;
	/** Wire bytes the granted (nominal) bytes leave out (framing,
	 * preamble, gap), per million nominal bytes, paced too, so that
	 * rate_milli is a share of the wire as in htsim's pacer;
	 * 0..1000000 (0: pace nominal bytes). */
	uint32_t frame_ppm;
	/** 1: an ECN-marked arrival beyond its source's grants takes its
	 * wire time from the grants (uet_rccc_pacer_arrival()); 0: the
	 * pacer ignores arrivals. */
	uint32_t charge_marked;
};

/** One source as the pacer sees it (24 bytes). */
struct uet_rccc_slot {
	uint32_t target;  /**< highest cumulative target, bytes mod 2^32 */
	uint32_t granted; /**< granted so far, bytes mod 2^32 */
	uint32_t spec;    /**< speculative credit granted while idle */
	uint8_t known;    /**< the slot belongs to a source */
	uint8_t pad;
	uint16_t pkt;     /**< nominal bytes of the source's latest packet
			   * (uet_rccc_pacer_packet()), 0: unknown */
	uint32_t rcvd;    /**< new data received, bytes mod 2^32 */
	uint32_t settled; /**< of it beyond the grants, accounted for:
			   *   charged to the pacer when it came marked,
			   *   let go otherwise (uet_rccc_pacer_arrival()) */
};

/** The pull pacer of one destination. */
struct uet_rccc_pacer {
	struct uet_rccc_pacer_config cfg;
	struct uet_rccc_slot *slot; /**< caller's array */
	uint32_t nslots;
	uint32_t cursor;   /**< next slot the round-robin looks at */
	uint32_t next_frac_ps; /**< sub-ns part of next_ns, 0..999 ps */
	uint32_t pad;
	uint64_t next_ns;  /**< earliest next grant (+ next_frac_ps) */
	uint64_t granted;  /**< bytes granted in total */
};

/**
 * Defaults for a link of @p link_mbps, an MTU of @p mtu bytes and a BDP
 * of @p bdp bytes: 0.99 of the line, a quantum of the MTU rounded up to
 * 256 B, speculative credit up to the BDP, marked arrivals beyond the
 * grants charged.
 * @return
 *   0, or -EINVAL.
 */
int uet_rccc_pacer_config_default(struct uet_rccc_pacer_config *c,
				  uint32_t link_mbps, uint32_t mtu,
				  uint32_t bdp);

/**
 * Set up @p pc over @p nslots caller-owned @p slots (cleared here).
 * @return
 *   0, or -EINVAL with @p why (if not NULL) naming the bad field.
 */
int uet_rccc_pacer_init(struct uet_rccc_pacer *pc,
			const struct uet_rccc_pacer_config *c,
			struct uet_rccc_slot *slots, uint32_t nslots,
			const char **why);

/**
 * Source @p idx sent cumulative target @p credit_target (bytes mod 2^32,
 * uet_rccc_src_credit_target()): the pacer grants up to the highest
 * target seen, less what it granted already, so credit on its way is not
 * granted twice. A target at or below the granted credit leaves the
 * source idle; 0 says nothing.
 * @return
 *   0, or -ERANGE for a slot out of range.
 */
int uet_rccc_pacer_request(struct uet_rccc_pacer *pc, uint32_t idx,
			   uint32_t credit_target);

/**
 * Source @p idx sends packets of @p bytes (nominal; the latest request's
 * size): its grants are that size, one packet each, instead of a
 * quantum. 0 (or above the quantum): quanta again.
 * @return
 *   0, or -ERANGE.
 */
int uet_rccc_pacer_packet(struct uet_rccc_pacer *pc, uint32_t idx,
			  uint32_t bytes);

/**
 * Source @p idx's new data of @p bytes (nominal) arrived at @p now, @p ce
 * whether ECN-marked. The bytes of it beyond what the pacer granted the
 * source (its speculative start, above all) reached the link without
 * the pacer: with charge_marked and @p ce (they met a queue on the way,
 * the last hop's in an incast), the next grant waits their wire time, as
 * if they had been granted now: the queue they built drains in the time
 * the grants leave free, not only in the 1 - rate_milli of the line the
 * pacer never grants. Unmarked ones (a lone flow's first window, which
 * the grants follow one round trip later) cost nothing, then or later:
 * each byte beyond the grants is looked at once, when it arrives.
 * @return
 *   the bytes charged, or -ERANGE.
 */
int uet_rccc_pacer_arrival(struct uet_rccc_pacer *pc, uint32_t idx,
			   uint32_t bytes, bool ce, uint64_t now);

/**
 * Source @p idx is gone (its PDC closed): no more grants.
 * @return
 *   0, or -ERANGE.
 */
int uet_rccc_pacer_release(struct uet_rccc_pacer *pc, uint32_t idx);

/**
 * One grant due at @p now: the next active source in round-robin order
 * gets min(target - granted, its packet size), or with no packet size
 * min(target - granted, quantum) rounded up to 256 B; with no
 * active source an
 * idle known source below spec_max gets a quantum of speculative credit.
 * Grants are spaced at quantum / (rate x line rate); after a late call at
 * most burst bytes (one quantum by default) of backlog are caught up. Call until it returns 0.
 * @return
 *   1 with @p idx and @p bytes set, or 0 (not yet time, or nobody to
 *   grant).
 */
int uet_rccc_pacer_poll(struct uet_rccc_pacer *pc, uint64_t now,
			uint32_t *idx, uint32_t *bytes);

/** Earliest time (ns, rounded up) the next grant may be due. */
uint64_t uet_rccc_pacer_next(const struct uet_rccc_pacer *pc);

/** Fill an ACK_CC cc_type 1 state: @p bytes of credit, @p ooo_count. */
void uet_rccc_fill(struct uet_wire_pds_credit_state *st, uint32_t bytes,
		   uint16_t ooo_count);

#ifdef __cplusplus
}
#endif

#endif /* UET_CMS_RCCC_H */
