/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Load balancing over entropy values (UEC 1.0 section 3.6.16): single
 * path, oblivious spraying and REPS. Sans-I/O: time is an argument, the
 * state is caller-owned per PDC, the configuration is shared.
 *
 * EVs are handled as offsets from ev_base, in [0, ev_count). The
 * oblivious order is a bijection on the next power of two, walked until
 * it lands inside the range (cycle walking keeps it a bijection).
 */

#include <errno.h>
#include <stddef.h>
#include <string.h>

#include <uet/uet_cms.h>
#include <uet/uet_rand.h>

/* UEC: REPS state under 25 bytes per PDC. */
_Static_assert(sizeof(struct uet_cms_reps) < 25, "REPS state too large");

/* The REPS freeze counts ticks in 8 bits; a tick is long enough that the
 * freeze (at most 120 + 1 ticks) stays below the 128 that a wrapping
 * 8-bit difference can tell apart. */
#define REPS_TICKS_PER_RTT 8
#define REPS_POS_FROZEN 0x80u
/* Fresh EVs explored after a freeze ends (htsim explore_counter). */
#define REPS_EXPLORE_AFTER_THAW 16

void
uet_cms_lb_config_default(struct uet_cms_lb_config *c)
{
	memset(c, 0, sizeof(*c));
	c->mode = UET_CMS_LB_REPS;
	c->ev_base = 49152;
	c->ev_count = UET_CMS_LB_SPRAY_EV_MIN;
	c->base_rtt_ns = 10000;
	c->single_hold_rtts = 10;
	c->reps_ring = UET_CMS_REPS_RING;
	c->freeze_ns = 10000000; /* htsim's exit_freeze_after */
}

int
uet_cms_lb_config_check(const struct uet_cms_lb_config *c, const char **why)
{
	const char *w = NULL;

	if (c == NULL)
		w = "config";
	else if ((unsigned int)c->mode > UET_CMS_LB_REPS)
		w = "mode (single, oblivious, reps)";
	else if (c->ev_count == 0 || c->ev_count > UET_CMS_LB_EV_MAX)
		w = "ev_count (1..65535)";
	else if (c->mode != UET_CMS_LB_SINGLE &&
		 c->ev_count < UET_CMS_LB_SPRAY_EV_MIN)
		w = "ev_count (at least 256 for spraying)";
	else if ((uint32_t)c->ev_base + c->ev_count > 65536)
		w = "ev_base (ev_base + ev_count <= 65536)";
	else if (c->base_rtt_ns < REPS_TICKS_PER_RTT)
		w = "base_rtt_ns (at least 8)";
	else if (c->single_hold_rtts == 0)
		w = "single_hold_rtts (at least 1)";
	else if (c->reps_ring == 0 || c->reps_ring > UET_CMS_REPS_RING)
		w = "reps_ring (1..8)";
	else if (c->freeze_ns == 0)
		w = "freeze_ns (> 0)";
	if (why != NULL)
		*why = w;
	return w == NULL ? 0 : -EINVAL;
}

/* 16-bit xorshift (period 65535 over non-zero states). */
static uint16_t
lb_xs16(uint16_t *s)
{
	uint16_t x = *s;

	x ^= (uint16_t)(x << 7);
	x ^= (uint16_t)(x >> 9);
	x ^= (uint16_t)(x << 8);
	*s = x;
	return x;
}

static uint16_t
lb_seed16(uint32_t salt, uint64_t tweak)
{
	uint64_t x = (uint64_t)salt << 32 ^ tweak;
	uint16_t s = (uint16_t)uet_rand_splitmix(&x);

	return s != 0 ? s : 0xACE1;
}

/* Bits of the smallest power of two >= count. */
static uint32_t
lb_bits(uint32_t count)
{
	return count > 1 ? 32 - (uint32_t)__builtin_clz(count - 1) : 0;
}

/*
 * A bijection of [0, 2^bits): multiply by an odd constant, add, and
 * xor-shift, twice, all modulo 2^bits; the constants come from the salt
 * and the round, so each PDC and round gets its own order.
 */
static uint32_t
lb_permute(uint32_t x, uint32_t bits, uint32_t salt, uint32_t round)
{
	uint64_t s = (uint64_t)salt << 32 | round;
	uint32_t mask = bits ? (uint32_t)((UINT64_C(1) << bits) - 1) : 0;
	uint32_t a1 = (uint32_t)uet_rand_splitmix(&s) | 1;
	uint32_t b = (uint32_t)uet_rand_splitmix(&s);
	uint32_t a2 = (uint32_t)uet_rand_splitmix(&s) | 1;
	uint32_t sh = (bits + 1) / 2;

	if (bits == 0)
		return 0;
	x = (x * a1 + b) & mask;
	x ^= x >> sh;
	x = (x * a2) & mask;
	x ^= x >> sh;
	return x;
}

/* Position @p x of the order of (salt, round) over [0, n): walk the
 * permutation of the enclosing power of two until inside the range; the
 * walk ends because x itself is on its cycle. */
static uint32_t
lb_order(uint32_t x, uint32_t n, uint32_t salt, uint32_t round)
{
	uint32_t bits = lb_bits(n);

	do {
		x = lb_permute(x, bits, salt, round);
	} while (x >= n);
	return x;
}

/* Uniform-enough value in [0, n) from a non-zero 16-bit draw. */
static uint16_t
lb_scale(uint16_t x, uint32_t n)
{
	return (uint16_t)(((uint32_t)(x - 1) * n) >> 16);
}

/* ---- REPS -------------------------------------------------------- */

static uint64_t
reps_tick_ns(const struct uet_cms_lb_config *c)
{
	uint64_t a = (c->base_rtt_ns + REPS_TICKS_PER_RTT - 1) /
		     REPS_TICKS_PER_RTT;
	uint64_t b = (c->freeze_ns + UET_CMS_REPS_FREEZE_TICKS - 1) /
		     UET_CMS_REPS_FREEZE_TICKS;

	return a > b ? a : b;
}

static uint8_t
reps_tick(const struct uet_cms_lb_config *c, uint64_t now)
{
	return (uint8_t)(now / reps_tick_ns(c));
}

/* Tick difference that guarantees at least @p ns have passed: the first
 * tick may be entered just before it ends, hence one more. */
static unsigned int
reps_ticks(const struct uet_cms_lb_config *c, uint64_t ns)
{
	uint64_t t = reps_tick_ns(c);

	return (unsigned int)((ns + t - 1) / t) + 1;
}

static unsigned int
reps_head(const struct uet_cms_reps *r)
{
	return r->pos & 7u;
}

static unsigned int
reps_count(const struct uet_cms_reps *r)
{
	return (r->pos >> 3) & 15u;
}

static void
reps_pos_set(struct uet_cms_reps *r, unsigned int head, unsigned int count)
{
	r->pos = (uint8_t)((r->pos & REPS_POS_FROZEN) | (head & 7u) |
			   count << 3);
}

/* Offsets are below 65535: "no EV" (an empty ring). */
#define REPS_EMPTY 0xFFFFu

/* EVs kept for freezing: the last ones added, whether consumed since or
 * not (htsim's CircularBufferREPS count, which only a thaw resets). They
 * end where the next one is written, head + count (a pop moves both). */
static unsigned int
reps_kept(const struct uet_cms_reps *r)
{
	return r->kept & 15u;
}

static void
reps_push(struct uet_cms_reps *r, const struct uet_cms_lb_config *c,
	  uint16_t off)
{
	unsigned int h = reps_head(r), n = reps_count(r);
	unsigned int k = reps_kept(r);

	if (n >= c->reps_ring) { /* forget the oldest */
		h = (h + 1) & 7u;
		n--;
	}
	r->ev[(h + n) & 7u] = off;
	reps_pos_set(r, h, n + 1);
	if (k < c->reps_ring)
		r->kept = (uint8_t)((r->kept & ~15u) | (k + 1));
}

/*
 * Frozen: the kept EVs in turn, consumed or not (htsim's remove_frozen()
 * walks the buffer's count, not its fresh entries), skipping those a loss
 * struck out; REPS_EMPTY when none is left. With only the unconsumed
 * ones, a source whose credit or window spent each cached EV as its ACK
 * brought it (RCCC sends at the pacer's rate, one ACK per 16 KiB) froze
 * with an empty ring and explored at random while frozen: half of its
 * packets went into a failed link.
 */
static uint16_t
reps_frozen_next(struct uet_cms_reps *r)
{
	unsigned int k = reps_kept(r), cur = (r->kept >> 4) & 7u, i;
	unsigned int end = reps_head(r) + reps_count(r);
	uint16_t off = REPS_EMPTY;

	for (i = 0; i < k && off == REPS_EMPTY; i++) {
		cur = cur < k ? cur : 0;
		off = r->ev[(end - k + cur) & 7u];
		cur++;
	}
	r->kept = (uint8_t)(k | (k ? cur % k : 0) << 4);
	return off;
}

/* Oldest unconsumed cached EV, consumed, or REPS_EMPTY. */
static uint16_t
reps_pop(struct uet_cms_reps *r)
{
	unsigned int h = reps_head(r), n = reps_count(r);
	uint16_t off = REPS_EMPTY;

	while (n > 0 && off == REPS_EMPTY) {
		off = r->ev[h];
		h = (h + 1) & 7u;
		n--;
	}
	reps_pos_set(r, h, n);
	return off;
}

/* A freeze ends freeze_ns after it began: the ring is emptied and the
 * next EVs explore fresh paths (htsim UecMpReps::processEv()). */
static void
reps_thaw(struct uet_cms_reps *r, const struct uet_cms_lb_config *c,
	  uint64_t now)
{
	if ((r->pos & REPS_POS_FROZEN) &&
	    (uint8_t)(reps_tick(c, now) - r->freeze_at) >=
	    reps_ticks(c, c->freeze_ns)) {
		r->pos = 0; /* not frozen, ring empty */
		r->kept = 0;
		r->exploring = REPS_EXPLORE_AFTER_THAW;
	}
}

static uint16_t
reps_explore(struct uet_cms_reps *r, const struct uet_cms_lb_config *c)
{
	return lb_scale(lb_xs16(&r->explore), c->ev_count);
}

/* htsim UecMpReps::nextEntropy(): fresh EVs while exploring; frozen,
 * the kept EVs in turn; otherwise the oldest unconsumed cached EV
 * (consumed); a random EV when there is none. */
static uint16_t
reps_next(struct uet_cms_reps *r, const struct uet_cms_lb_config *c,
	  uint64_t now)
{
	uint16_t off;

	reps_thaw(r, c, now);
	r->fresh = 1;
	if (r->exploring > 0) {
		r->exploring--;
		return reps_explore(r, c);
	}
	off = (r->pos & REPS_POS_FROZEN) ? reps_frozen_next(r) : reps_pop(r);
	if (off == REPS_EMPTY)
		return reps_explore(r, c);
	r->fresh = 0;
	return off;
}

/* A reply for @p off: an unmarked one recycles the EV, frozen or not; a
 * marked (or path-trimmed) one does not (htsim: only PATH_GOOD adds). */
static void
reps_feedback(struct uet_cms_reps *r, const struct uet_cms_lb_config *c,
	      uint16_t off, bool congested, uint64_t now)
{
	reps_thaw(r, c, now);
	if (!congested)
		reps_push(r, c, off);
}

/* A loss (timeout or SACK) freezes, unless frozen already or exploring
 * after a freeze (htsim): re-freezing would keep a failed link's PDCs
 * frozen for good and restart the timer on every loss. */
static void
reps_loss(struct uet_cms_reps *r, const struct uet_cms_lb_config *c,
	  uint16_t off, uint64_t now)
{
	unsigned int i, k = reps_kept(r), end = reps_head(r) + reps_count(r);
	bool other = false;

	reps_thaw(r, c, now);
	/* DECISION (htsim's timeout names no EV): the lost packet's EV is
	 * struck out of the cache, so that neither recycling nor freezing
	 * sends on it again until an ACK brings it back; but not the last
	 * EV kept, or a frozen PDC would explore, into the failed link. */
	for (i = 0; i < k && !other; i++) {
		uint16_t e = r->ev[(end - k + i) & 7u];

		other = e != off && e != REPS_EMPTY;
	}
	for (i = 0; other && i < 8; i++)
		if (r->ev[i] == off)
			r->ev[i] = REPS_EMPTY;
	if ((r->pos & REPS_POS_FROZEN) || r->exploring > 0)
		return;
	r->pos |= REPS_POS_FROZEN;
	r->freeze_at = reps_tick(c, now);
}

/* ---- single path ------------------------------------------------- */

static uint16_t
single_next(struct uet_cms_single *s, const struct uet_cms_lb_config *c,
	    uint64_t now, bool idle)
{
	uint32_t now_us = (uint32_t)(now / 1000);
	/* Both stamps are truncated to microseconds: one more makes sure a
	 * busy PDC never moves before the full hold time. */
	uint64_t hold_us = (c->base_rtt_ns * c->single_hold_rtts + 999) /
			   1000 + 1;
	uint16_t off;

	if (s->pending && (idle || now_us - s->changed_at_us >= hold_us)) {
		off = lb_scale(lb_xs16(&s->rng), c->ev_count);
		if (off == s->ev && c->ev_count > 1) /* another path */
			off = (uint16_t)((off + 1) % c->ev_count);
		s->ev = off;
		s->changed_at_us = now_us;
		s->pending = false;
	}
	return s->ev;
}

/* ---- common entry points ----------------------------------------- */

void
uet_cms_lb_init(struct uet_cms_lb *lb, const struct uet_cms_lb_config *c,
		uint32_t salt, bool ordered)
{
	memset(lb, 0, sizeof(*lb));
	lb->mode = (uint8_t)(ordered ? UET_CMS_LB_SINGLE : c->mode);
	switch (lb->mode) {
	case UET_CMS_LB_OBLIVIOUS:
		lb->u.oblivious.salt = salt;
		break;
	case UET_CMS_LB_REPS:
		lb->u.reps.explore = lb_seed16(salt, 0x5245);
		break;
	default:
		lb->u.single.rng = lb_seed16(salt, 0x5350);
		lb->u.single.ev = lb_scale(lb_xs16(&lb->u.single.rng),
					   c->ev_count);
		break;
	}
}

uint16_t
uet_cms_lb_next_ev(struct uet_cms_lb *lb, const struct uet_cms_lb_config *c,
		   uint64_t now, bool idle)
{
	struct uet_cms_oblivious *o = &lb->u.oblivious;
	uint32_t off;

	switch (lb->mode) {
	case UET_CMS_LB_OBLIVIOUS:
		off = lb_order(o->cursor, c->ev_count, o->salt, o->round);
		if (++o->cursor >= c->ev_count) {
			o->cursor = 0;
			o->round++;
		}
		break;
	case UET_CMS_LB_REPS:
		off = reps_next(&lb->u.reps, c, now);
		break;
	default:
		off = single_next(&lb->u.single, c, now, idle);
		break;
	}
	return (uint16_t)(c->ev_base + off);
}

static int
lb_offset(const struct uet_cms_lb_config *c, uint16_t ev, uint16_t *off)
{
	if (ev < c->ev_base || (uint32_t)(ev - c->ev_base) >= c->ev_count)
		return -ERANGE;
	*off = (uint16_t)(ev - c->ev_base);
	return 0;
}

int
uet_cms_lb_on_ack(struct uet_cms_lb *lb, const struct uet_cms_lb_config *c,
		  uint16_t ev, bool ecn, uint64_t now)
{
	uint16_t off;

	if (lb_offset(c, ev, &off) < 0)
		return -ERANGE;
	if (lb->mode == UET_CMS_LB_REPS)
		reps_feedback(&lb->u.reps, c, off, ecn, now);
	return 0;
}

int
uet_cms_lb_on_nack(struct uet_cms_lb *lb, const struct uet_cms_lb_config *c,
		   uint16_t ev, bool trimmed, bool lasthop, bool ecn,
		   uint64_t now)
{
	bool path_trim = trimmed && !lasthop;
	uint16_t off;

	if (lb_offset(c, ev, &off) < 0)
		return -ERANGE;
	if (lb->mode == UET_CMS_LB_REPS)
		reps_feedback(&lb->u.reps, c, off, path_trim || ecn, now);
	else if (lb->mode == UET_CMS_LB_SINGLE && path_trim)
		lb->u.single.pending = true;
	return 0;
}

int
uet_cms_lb_on_loss(struct uet_cms_lb *lb, const struct uet_cms_lb_config *c,
		   uint16_t ev, uint64_t now)
{
	uint16_t off;

	if (lb_offset(c, ev, &off) < 0)
		return -ERANGE;
	if (lb->mode == UET_CMS_LB_REPS)
		reps_loss(&lb->u.reps, c, off, now);
	else if (lb->mode == UET_CMS_LB_SINGLE)
		lb->u.single.pending = true;
	return 0;
}

unsigned int
uet_cms_lb_cached(const struct uet_cms_lb *lb)
{
	const struct uet_cms_reps *r = &lb->u.reps;
	unsigned int i, n = 0;

	if (lb->mode != UET_CMS_LB_REPS)
		return 0;
	for (i = 0; i < reps_count(r); i++)
		if (r->ev[(reps_head(r) + i) & 7u] != REPS_EMPTY)
			n++;
	return n;
}

bool
uet_cms_lb_explored(const struct uet_cms_lb *lb)
{
	return lb->mode == UET_CMS_LB_REPS && lb->u.reps.fresh != 0;
}

bool
uet_cms_lb_frozen(const struct uet_cms_lb *lb,
		  const struct uet_cms_lb_config *c, uint64_t now)
{
	struct uet_cms_reps r;

	if (lb->mode != UET_CMS_LB_REPS)
		return false;
	r = lb->u.reps;
	reps_thaw(&r, c, now);
	return (r.pos & REPS_POS_FROZEN) != 0;
}
