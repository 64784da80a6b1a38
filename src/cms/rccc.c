/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * RCCC, receiver-credit congestion control (UEC 1.0 section 3.6.14,
 * derived from EQDS): the source's credit and credit_target, the
 * destination's pull pacer, and the gate combining it with NSCC.
 * Sans-I/O: time is an argument, the pacer's slots are caller-owned.
 */

#include <errno.h>
#include <stdint.h>
#include <stddef.h>
#include <string.h>

#include <uet/uet_cms_rccc.h>
#include <uet/uet_wire.h>

_Static_assert(sizeof(struct uet_rccc_slot) == 24, "pacer slot is 24 bytes");
_Static_assert(sizeof(struct uet_rccc_src) == 8, "source credit is 8 bytes");

#define RCCC_CREDIT_MAX ((uint32_t)INT32_MAX)
#define RCCC_SPEC 1u /* uet_rccc_src.pulled bit 0 */
#define RCCC_UNIT_MASK (~(uint32_t)(UET_RCCC_UNIT - 1))

/* a - b > 0 modulo 2^32 (half the space ahead). */
static bool
rccc_after(uint32_t a, uint32_t b)
{
	return (int32_t)(a - b) > 0;
}
#define RCCC_LINK_MAX_MBPS 3200000u
#define RCCC_SLOTS_MAX 65536u

void
uet_rccc_src_init(struct uet_rccc_src *s, uint32_t max_wnd)
{
	/* Speculative: the first max_wnd goes before any grant. */
	s->credit = (int32_t)(max_wnd < RCCC_CREDIT_MAX ? max_wnd :
			      RCCC_CREDIT_MAX);
	s->pulled = RCCC_SPEC;
}

uint32_t
uet_rccc_src_credit_target(const struct uet_rccc_src *s, uint64_t backlog,
			   uint64_t rtx_backlog, uint32_t cwnd, uint32_t mtu,
			   uint32_t max_wnd, uint32_t active)
{
	uint64_t want = backlog + rtx_backlog;
	uint64_t w = (uint64_t)cwnd + mtu;
	uint32_t t;

	if (want > w)
		want = w;
	if (want > max_wnd)
		want = max_wnd;
	/* A debt is asked for on top (htsim: pull_target -= _credit). */
	want = (int64_t)want > s->credit ? (uint64_t)((int64_t)want -
						      s->credit) : 0;
	/* A short transfer gets going without waiting out its speculation
	 * (htsim: "saves our bacon for short transfers"). */
	if (uet_rccc_src_speculating(s) && want < mtu && backlog > 0)
		want = mtu;
	if (active > 1)
		want /= active;
	if (want == 0)
		return 0;
	t = (s->pulled & RCCC_UNIT_MASK) +
	    uet_rccc_units(want) * UET_RCCC_UNIT;
	return t;
}

void
uet_rccc_src_stop_speculating(struct uet_rccc_src *s)
{
	if (s->pulled & RCCC_SPEC) {
		s->pulled &= ~RCCC_SPEC;
		if (s->credit > 0)
			s->credit = 0;
	}
}

/* Any credit lets a packet go, whatever its size (htsim's
 * can_send_RCCC(): credit > 0): the overdraft, under one packet, is a
 * debt the next target asks for and the next grants pay back. Waiting
 * for a whole packet's credit would idle a source whose grants come in
 * shares below a packet (targets divided among its active sources). */
bool
uet_rccc_src_may_send(const struct uet_rccc_src *s, uint32_t bytes)
{
	(void)bytes;
	return s->credit > 0;
}

/* Signed, as htsim's _credit: a send on the last bytes of credit leaves
 * a debt that the next target asks for on top. */
void
uet_rccc_src_on_send(struct uet_rccc_src *s, uint32_t bytes)
{
	int64_t v = (int64_t)s->credit - bytes;

	s->credit = v < INT32_MIN ? INT32_MIN : (int32_t)v;
}

void
uet_rccc_src_on_credit(struct uet_rccc_src *s, uint32_t pulled,
		       uint32_t max_wnd)
{
	uint32_t d;
	int64_t c, cap = max_wnd < RCCC_CREDIT_MAX ? max_wnd : RCCC_CREDIT_MAX;

	uet_rccc_src_stop_speculating(s);
	pulled &= RCCC_UNIT_MASK;
	if (!rccc_after(pulled, s->pulled))
		return; /* nothing new: a late or repeated grant */
	d = pulled - s->pulled;
	s->pulled = pulled;
	c = (int64_t)s->credit + d;
	s->credit = (int32_t)(c > cap ? cap : c);
}

bool
uet_cms_cc_may_send(const struct uet_nscc *n, const struct uet_nscc_params *p,
		    const struct uet_rccc_src *s, uint32_t bytes)
{
	if (n != NULL && !uet_nscc_may_send(n, p))
		return false;
	return s == NULL || uet_rccc_src_may_send(s, bytes);
}

int
uet_rccc_pacer_config_default(struct uet_rccc_pacer_config *c,
			      uint32_t link_mbps, uint32_t mtu, uint32_t bdp)
{
	if (c == NULL || link_mbps == 0 || link_mbps > RCCC_LINK_MAX_MBPS ||
	    mtu == 0 || mtu > UET_RCCC_UNITS_MAX)
		return -EINVAL;
	memset(c, 0, sizeof(*c));
	c->link_mbps = link_mbps;
	c->rate_milli = UET_RCCC_RATE_MILLI;
	c->quantum = uet_rccc_units(mtu) * UET_RCCC_UNIT;
	c->spec_max = bdp;
	c->charge_marked = 1;
	return 0;
}

static const char *
rccc_config_why(const struct uet_rccc_pacer_config *c)
{
	if (c->link_mbps == 0 || c->link_mbps > RCCC_LINK_MAX_MBPS)
		return "link_mbps (1..3200000)";
	if (c->rate_milli == 0 || c->rate_milli > 1000)
		return "rate_milli (1..1000)";
	if (c->quantum == 0 || c->quantum % UET_RCCC_UNIT != 0 ||
	    c->quantum > (1u << 24))
		return "quantum (256..16 MiB, a multiple of 256)";
	if (c->spec_max >= RCCC_CREDIT_MAX)
		return "spec_max (0..2^31)";
	if (c->burst >= RCCC_CREDIT_MAX)
		return "burst (0..2^31)";
	if (c->frame_ppm > 1000000)
		return "frame_ppm (0..1000000)";
	if (c->charge_marked > 1)
		return "charge_marked (0 or 1)";
	return NULL;
}

int
uet_rccc_pacer_init(struct uet_rccc_pacer *pc,
		    const struct uet_rccc_pacer_config *c,
		    struct uet_rccc_slot *slots, uint32_t nslots,
		    const char **why)
{
	const char *w = NULL;

	if (pc == NULL || c == NULL)
		w = "pacer";
	else if (slots == NULL || nslots == 0 || nslots > RCCC_SLOTS_MAX)
		w = "slots (1..65536)";
	else
		w = rccc_config_why(c);
	if (why != NULL)
		*why = w;
	if (w != NULL)
		return -EINVAL;
	memset(pc, 0, sizeof(*pc));
	pc->cfg = *c;
	pc->slot = slots;
	pc->nslots = nslots;
	memset(slots, 0, sizeof(*slots) * nslots);
	return 0;
}

int
uet_rccc_pacer_request(struct uet_rccc_pacer *pc, uint32_t idx,
		       uint32_t credit_target)
{
	struct uet_rccc_slot *s;

	if (idx >= pc->nslots)
		return -ERANGE;
	s = &pc->slot[idx];
	s->known = 1;
	/* Cumulative: only a target beyond the highest seen says more. The
	 * target accounts for the credit the source holds, speculative
	 * grants included: a new busy period starts from nothing. */
	if (credit_target != 0 && rccc_after(credit_target, s->target)) {
		s->target = credit_target;
		if (rccc_after(s->target, s->granted))
			s->spec = 0;
	}
	return 0;
}

/*
 * A grant of one packet, exactly: a source whose packets are smaller
 * than the quantum (a 64 KiB message cut into 17 packets of 3959 nominal
 * bytes; quanta of 4352 B) sends a second packet on every tenth grant,
 * and sources whose credit started alike (speculation ends at 0 for all)
 * do so in the same round: 63 sources sent 63 packets more in one round
 * and 10 % less in the nine others, the last-hop queue swung from empty
 * (the link idle) to the trim threshold, and a 63:1 incast ran at 0.966
 * of the line behind a pacer at 0.99. Granted one packet at a time, a
 * source sends one packet per grant (htsim's pull of whole packets: its
 * credit per pull is 4 MSS and its packets are full).
 */
int
uet_rccc_pacer_packet(struct uet_rccc_pacer *pc, uint32_t idx, uint32_t bytes)
{
	if (idx >= pc->nslots)
		return -ERANGE;
	/* At least a unit: the credit field counts whole units, and a
	 * source of tiny packets would see nothing of its first grant. */
	if (bytes != 0 && bytes < UET_RCCC_UNIT)
		bytes = UET_RCCC_UNIT;
	pc->slot[idx].pkt = (uint16_t)(bytes <= pc->cfg.quantum &&
				       bytes <= UINT16_MAX ? bytes : 0);
	return 0;
}

int
uet_rccc_pacer_release(struct uet_rccc_pacer *pc, uint32_t idx)
{
	if (idx >= pc->nslots)
		return -ERANGE;
	memset(&pc->slot[idx], 0, sizeof(pc->slot[idx]));
	return 0;
}

/* Picoseconds to serialise @p bytes at rate_milli of the line. */
static uint64_t
rccc_ps(const struct uet_rccc_pacer_config *c, uint64_t bytes)
{
	return bytes * 8000000000ull /
	       ((uint64_t)c->link_mbps * c->rate_milli);
}

/* The wire bytes a grant of @p bytes brings (frame_ppm). Paced in nominal bytes alone, the pacer at 0.99 ran the
 * last hop at 0.994 of the wire (IPv4, 4 KB MTU): the first round
 * trip's speculative queue drained at 0.6 % of the line, a median of
 * 0.55 BDP through a 15:1 incast (htsim, pacing wire bytes: 0.2). */
static uint64_t
rccc_wire(const struct uet_rccc_pacer_config *c, uint32_t bytes)
{
	return bytes + ((uint64_t)c->frame_ppm * bytes + 999999) / 1000000;
}

/* Round-robin from the cursor: the first slot @p want accepts. */
static bool
rccc_pick(const struct uet_rccc_pacer *pc, bool spec, uint32_t *idx)
{
	const struct uet_rccc_slot *s;
	uint32_t i, k;

	for (k = 0; k < pc->nslots; k++) {
		i = (pc->cursor + k) % pc->nslots;
		s = &pc->slot[i];
		if (spec ? (s->known && !rccc_after(s->target, s->granted) &&
			    s->spec < pc->cfg.spec_max) :
		    rccc_after(s->target, s->granted)) {
			*idx = i;
			return true;
		}
	}
	return false;
}

/* Due at @p now: now >= next_ns + next_frac_ps / 1000. */
static bool
rccc_due(const struct uet_rccc_pacer *pc, uint64_t now)
{
	return now > pc->next_ns ||
	       (now == pc->next_ns && pc->next_frac_ps == 0);
}

/* Pace from the schedule, not from the call: a late call catches up at
 * most cfg.burst (one quantum by default), an idle pacer banks no more.
 * Times stay in ns with a picosecond remainder, so no clock value
 * overflows. */
static void
rccc_advance(struct uet_rccc_pacer *pc, uint64_t now, uint32_t bytes)
{
	uint32_t b = pc->cfg.burst > pc->cfg.quantum ? pc->cfg.burst :
		     pc->cfg.quantum;
	uint64_t q_ns = (rccc_ps(&pc->cfg, b) + 999) / 1000;
	uint64_t ps = rccc_ps(&pc->cfg, rccc_wire(&pc->cfg, bytes)) +
		      pc->next_frac_ps;

	if (now > pc->next_ns + q_ns) {
		pc->next_ns = now - q_ns;
		ps -= pc->next_frac_ps;
	}
	pc->next_ns += ps / 1000;
	pc->next_frac_ps = (uint32_t)(ps % 1000);
}

int
uet_rccc_pacer_poll(struct uet_rccc_pacer *pc, uint64_t now, uint32_t *idx,
		    uint32_t *bytes)
{
	struct uet_rccc_slot *s;
	uint32_t i, g;
	bool spec = false;

	if (!rccc_due(pc, now))
		return 0;
	if (!rccc_pick(pc, false, &i)) {
		if (pc->cfg.spec_max == 0 || !rccc_pick(pc, true, &i))
			return 0;
		spec = true;
	}
	s = &pc->slot[i];
	if (spec) {
		g = pc->cfg.spec_max - s->spec;
		g = g < pc->cfg.quantum ? g : pc->cfg.quantum;
		g = uet_rccc_units(g) * UET_RCCC_UNIT;
		s->spec = s->spec + g > pc->cfg.spec_max ? pc->cfg.spec_max :
			s->spec + g;
	} else {
		g = s->target - s->granted;
		if (s->pkt != 0) {
			g = g < s->pkt ? g : s->pkt;
		} else {
			g = g < pc->cfg.quantum ? g : pc->cfg.quantum;
			g = uet_rccc_units(g) * UET_RCCC_UNIT;
		}
	}
	/* Speculative grants too: the source counts every grant in its
	 * pulled total, on which its next target builds. */
	s->granted += g;
	rccc_advance(pc, now, g);
	pc->cursor = (i + 1) % pc->nslots;
	pc->granted += g;
	*idx = i;
	*bytes = g;
	return 1;
}

int
uet_rccc_pacer_arrival(struct uet_rccc_pacer *pc, uint32_t idx,
		       uint32_t bytes, bool ce, uint64_t now)
{
	struct uet_rccc_slot *s;
	int32_t d;

	if (idx >= pc->nslots)
		return -ERANGE;
	s = &pc->slot[idx];
	s->rcvd += bytes;
	/* Mod 2^32 like the grants (at most 2^31 apart). What went beyond
	 * them before is settled, so d is this packet's part at most. */
	d = (int32_t)(s->rcvd - s->granted - s->settled);
	if (d <= 0)
		return 0;
	s->settled += (uint32_t)d;
	if (!ce || !pc->cfg.charge_marked)
		return 0;
	rccc_advance(pc, now, (uint32_t)d);
	return d;
}

uint64_t
uet_rccc_pacer_next(const struct uet_rccc_pacer *pc)
{
	return pc->next_ns + (pc->next_frac_ps != 0);
}

void
uet_rccc_fill(struct uet_wire_pds_credit_state *st, uint32_t bytes,
	      uint16_t ooo_count)
{
	st->credit = uet_rccc_units(bytes);
	st->ooo_count = ooo_count;
}
