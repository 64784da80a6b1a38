/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef UET_CMS_H
#define UET_CMS_H

/**
 * @file
 * Congestion management sublayer (CMS), sans-I/O: events and the current
 * time come in as arguments, decisions go out as return values; no clock,
 * no I/O, no allocation.
 *
 * This part is load balancing (UEC 1.0 section 3.6.16): which entropy
 * value (EV, the UDP source port or native-IP entropy) each packet of a
 * PDC carries, fed back by the fate of earlier EVs as ACKs and NACKs echo
 * them. Three modes:
 *
 *  - single path: one EV per PDC; it changes after a loss or a trim
 *    before the last hop (not after an ECN mark), and only when the PDC
 *    has nothing in flight or at least single_hold_rtts after the
 *    previous change. Ordered (ROD) PDCs always use it.
 *  - oblivious spraying: every EV of the range once per round, in a
 *    pseudo-random order of its own per PDC (salt) and per round;
 *    feedback is ignored.
 *  - REPS (recycled entropy packet spraying), as htsim's UecMpReps:
 *    EVs that came back in unmarked replies are kept in a ring of up to
 *    8 and reused (each once); a marked or path-trimmed reply does not
 *    recycle its EV; with the ring empty a random EV is explored. A loss
 *    (timeout or SACK) freezes the ring for freeze_ns, unless frozen or
 *    exploring already: cached EVs are reused in turn without being
 *    consumed and nothing new is explored, which steers around a failed
 *    link. When the freeze ends the ring is emptied and the next 16 EVs
 *    are fresh random ones.
 *
 * The per-PDC state of REPS is 24 bytes (static assert in cms_lb.c).
 */

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Load-balancing modes (the `[spray] mode` setting). */
enum uet_cms_lb_mode {
	UET_CMS_LB_SINGLE = 0,   /**< one EV per PDC */
	UET_CMS_LB_OBLIVIOUS,    /**< each EV once per round */
	UET_CMS_LB_REPS,         /**< recycle EVs of unmarked ACKs */
};

/** Largest EV range (offset 0xFFFF marks an empty REPS slot). */
#define UET_CMS_LB_EV_MAX 65535
/** EVs at least for the spraying modes (UEC 1.0 section 3.6.16). */
#define UET_CMS_LB_SPRAY_EV_MIN 256
/** Largest REPS recycling ring (the UEC default). */
#define UET_CMS_REPS_RING 8
/** Longest REPS freeze, in ticks of the state's 8-bit clock. */
#define UET_CMS_REPS_FREEZE_TICKS 120

/** Shared (per engine) load-balancing parameters. */
struct uet_cms_lb_config {
	enum uet_cms_lb_mode mode;
	uint16_t ev_base;          /**< first EV */
	uint32_t ev_count;         /**< 1..65535, ev_base + count <= 65536 */
	uint64_t base_rtt_ns;      /**< RTT for the timers below (>= 8) */
	uint32_t single_hold_rtts; /**< single path: RTTs between changes (10) */
	uint32_t reps_ring;        /**< REPS ring entries, 1..8 (8) */
	uint64_t freeze_ns;        /**< REPS: freezing after a loss (10 ms,
				    *   htsim's) */
};

/**
 * Fill @p c: REPS over EVs 49152..49407 (256), 10 us RTT, ring of 8,
 * 10 ms freeze.
 */
void uet_cms_lb_config_default(struct uet_cms_lb_config *c);

/**
 * Check @p c.
 * @return
 *   0, or -EINVAL with @p why (if not NULL) naming the field and range.
 */
int uet_cms_lb_config_check(const struct uet_cms_lb_config *c,
			    const char **why);

/** REPS state of one PDC (24 bytes). */
struct uet_cms_reps {
	uint16_t ev[UET_CMS_REPS_RING]; /**< cached EV offsets (FIFO) */
	uint16_t explore;  /**< exploration generator state (non-zero) */
	uint16_t fresh;    /**< 1: the last EV given out was explored, not
			    *   reused (uet_cms_lb_explored()) */
	uint8_t pos;       /**< head (bits 0-2), count (3-6), frozen (7) */
	uint8_t exploring; /**< fresh EVs still to explore after a freeze */
	uint8_t freeze_at; /**< tick the freezing started */
	uint8_t kept;      /**< the last EVs added, consumed or not, which
			    *   freezing reuses: count (bits 0-3), cursor
			    *   (bits 4-6) */
};
/* Ticks: max(base_rtt / 8, freeze_ns / 120), so that an 8-bit difference
 * covers the freeze. */

/** Oblivious spraying state of one PDC. */
struct uet_cms_oblivious {
	uint32_t salt;     /**< per-PDC order */
	uint16_t cursor;   /**< position in this round */
	uint16_t round;    /**< round number (mixed into the order) */
};

/** Single-path state of one PDC. */
struct uet_cms_single {
	uint32_t changed_at_us; /**< time of the last change, microseconds */
	uint16_t ev;            /**< current EV offset */
	uint16_t rng;           /**< generator for the next EV (non-zero) */
	bool pending;           /**< a change was asked for */
};

/** Load-balancing state of one PDC (caller-owned). */
struct uet_cms_lb {
	uint8_t mode;  /**< enum uet_cms_lb_mode in effect for this PDC */
	union {
		struct uet_cms_reps reps;
		struct uet_cms_oblivious oblivious;
		struct uet_cms_single single;
	} u;
};

/**
 * Initialise the state of a new PDC.
 * @param salt
 *   Distinguishes PDCs (e.g. a hash of the PDC id and the engine seed):
 *   it picks the oblivious order, the first single-path EV and REPS's
 *   exploration sequence.
 * @param ordered
 *   ROD PDC: single path whatever the configured mode.
 */
void uet_cms_lb_init(struct uet_cms_lb *lb, const struct uet_cms_lb_config *c,
		     uint32_t salt, bool ordered);

/**
 * EV for the next packet of the PDC (called once per packet sent,
 * retransmissions included).
 * @param idle
 *   Nothing of this PDC is in flight (single path may move now).
 * @return
 *   The EV, in [ev_base, ev_base + ev_count).
 */
uint16_t uet_cms_lb_next_ev(struct uet_cms_lb *lb,
			    const struct uet_cms_lb_config *c, uint64_t now,
			    bool idle);

/**
 * An ACK echoed @p ev with M flag @p ecn.
 * @return
 *   0, or -ERANGE when @p ev is outside the configured range (ignored).
 */
int uet_cms_lb_on_ack(struct uet_cms_lb *lb, const struct uet_cms_lb_config *c,
		      uint16_t ev, bool ecn, uint64_t now);

/**
 * A NACK echoed @p ev: @p trimmed for TRIMMED / TRIMMED_LASTHOP codes
 * (@p lasthop for the latter), @p ecn its M flag. A trim before the last
 * hop counts against the path; a last-hop trim does not (every path
 * shares the destination's link) unless it carries M.
 * @return
 *   0 or -ERANGE.
 */
int uet_cms_lb_on_nack(struct uet_cms_lb *lb,
		       const struct uet_cms_lb_config *c, uint16_t ev,
		       bool trimmed, bool lasthop, bool ecn, uint64_t now);

/**
 * A packet sent on @p ev was lost (retransmission timeout or loss
 * inferred from SACK).
 * @return
 *   0 or -ERANGE.
 */
int uet_cms_lb_on_loss(struct uet_cms_lb *lb,
		       const struct uet_cms_lb_config *c, uint16_t ev,
		       uint64_t now);

/** REPS: EVs now cached in the ring (0 for the other modes). */
unsigned int uet_cms_lb_cached(const struct uet_cms_lb *lb);

/** REPS: the last EV uet_cms_lb_next_ev() gave out was a fresh one
 * (exploring), not a cached or, while frozen, a kept one reused (false
 * for the other modes). */
bool uet_cms_lb_explored(const struct uet_cms_lb *lb);

/** REPS: whether the PDC is in freezing mode at @p now. */
bool uet_cms_lb_frozen(const struct uet_cms_lb *lb,
		       const struct uet_cms_lb_config *c, uint64_t now);

#ifdef __cplusplus
}
#endif

#endif /* UET_CMS_H */
