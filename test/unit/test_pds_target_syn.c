/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * PDC establishment at the target (src/pds/pds_target_syn.c): the Start_PSNs
 * refused with NACK NEW_START_PSN never open a PDC while a copy of their
 * SYN can be in the network, and the records of them stay bounded.
 */

#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "pds_fakewire.h"
#include "pds_private.h"

/* The target (side 1) holds a PDC of side 0's first PDC id; side 0
 * restarts with the same FA (seed @p seed) a quarter of the hold-off later
 * and submits @p cookie: its first SYN, under the same id, not injected. */
static struct uet_pds_tx
restarted_syn(uint64_t cookie, uint64_t seed)
{
	struct uet_pds_tx r0, a, s;
	struct uet_pds_config cfg;

	fakewire_past_start(&W);
	assert_int_equal(fakewire_submit(&W, UET_PDS_MODE_RUD, 1, 0), 0);
	assert_true(fakewire_take_type(&W, 0, UET_PDS_TYPE_RUD_REQ, &r0));
	fakewire_inject(&W, 1, &r0, false, false);
	assert_true(fakewire_take_type(&W, 1, UET_PDS_TYPE_ACK, &a));
	fakewire_inject(&W, 0, &a, false, false);
	uet_pds_free(W.pds[0]);
	fakewire_test_config(&cfg);
	cfg.seed = seed;
	W.pds[0] = uet_pds_create(&cfg);
	assert_non_null(W.pds[0]);
	W.now += W.pds[1]->cfg.syn_holdoff_ns / 4;
	assert_int_equal(fakewire_submit(&W, UET_PDS_MODE_RUD, cookie, 0), 0);
	assert_true(fakewire_take_type(&W, 0, UET_PDS_TYPE_RUD_REQ, &s));
	assert_int_equal(s.hdr.u.req.spdcid, r0.hdr.u.req.spdcid);
	assert_int_equal(s.hdr.u.req.psn_offset, 0);
	return s;
}

static void drain(void);

/* The target runs for @p ns (the records age by the time it runs,
 * pds_syn_tick): called every PDS_SYN_GAP_NS. */
static void
target_runs(uint64_t ns)
{
	uint64_t end = W.now + ns, d;

	while (W.now < end) {
		d = end - W.now;
		W.now += d < PDS_SYN_GAP_NS ? d : PDS_SYN_GAP_NS;
		uet_pds_advance(W.pds[1], W.now);
	}
}

/* @p s reaches the target and is refused: the Start_PSN its NACK names. */
static uint32_t
refused(const struct uet_pds_tx *s)
{
	struct uet_pds_tx nk;

	fakewire_inject(&W, 1, s, false, false);
	assert_true(fakewire_take_type(&W, 1, UET_PDS_TYPE_NACK, &nk));
	assert_int_equal(nk.hdr.u.nack.code, UET_NACK_NEW_START_PSN);
	assert_int_equal(nk.hdr.u.nack.psn, s->hdr.u.req.psn);
	return nk.hdr.u.nack.payload;
}

/* Refuse @p n Start_PSNs of the chain that begins with @p s, each the one
 * the NACK before named (as an initiator that renumbers does), into
 * @p chain, one an interval of the clock (a record names once an
 * interval); @p s becomes the SYN with the last one named. The
 * target's hold-off (syn_setup) outlasts the chain. */
static void
refuse_chain(struct uet_pds_tx *s, struct uet_pds_tx *chain, uint32_t n)
{
	uint32_t k, next;

	for (k = 0; k < n; k++) {
		W.now += FAKEWIRE_NAME_NS;
		chain[k] = *s;
		next = refused(s);
		assert_true(next - s->hdr.u.req.psn >= 0x10000);
		assert_int_equal(next % 0x10000, s->hdr.u.req.psn % 0x10000);
		s->hdr.u.req.psn = next;
	}
}

static void
free_target_pdc(const struct uet_pds_tx *s)
{
	struct pds_pdc *c;

	c = pds_tkey_find(W.pds[1], &W.fa[0], s->hdr.u.req.spdcid);
	assert_non_null(c);
	pds_pdc_free(W.pds[1], c);
}

/* uet-dst seed 583 of generator 3 (docs/DST.md): a restarted initiator
 * reopens its PDC id within the target's hold-off and is refused more
 * times than a bucket holds records; the last Start_PSN named opens a PDC
 * once the old one is quiet. Late copies of every refused SYN, while that
 * PDC lives and after it is gone, are refused: the message is delivered
 * once. */
static void
pds_target_syn__refused_start_psn_never_opens_later(void **state)
{
	enum { N = PDS_TOMB_WAYS + PDS_SYN_WAYS + 1 };
	struct uet_pds_tx s = restarted_syn(10, 0x5830583ull), chain[N];
	uint32_t k;

	(void)state;
	refuse_chain(&s, chain, N);
	assert_int_equal(W.delivered[10], 0);
	W.now += W.pds[1]->cfg.syn_holdoff_ns;
	fakewire_inject(&W, 1, &s, false, false);
	assert_int_equal(W.delivered[10], 1);
	assert_int_equal(fakewire_st(1)->syn_replace, 1);
	W.now += 2 * W.pds[1]->cfg.syn_holdoff_ns;
	for (k = 0; k < N; k++)
		fakewire_inject(&W, 1, &chain[k], false, false);
	assert_int_equal(W.delivered[10], 1);
	free_target_pdc(&s);
	W.now += 2 * W.pds[1]->cfg.syn_holdoff_ns;
	for (k = 0; k < N; k++)
		fakewire_inject(&W, 1, &chain[k], false, false);
	assert_int_equal(W.delivered[10], 1);
	assert_int_equal(fakewire_st(1)->pdc_open_tgt, 2);
	assert_int_equal(fakewire_st(1)->syn_refused, 2 * N);
}

static int
cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

/* A chain of refusals far longer than any bucket: every Start_PSN named is
 * new (none named twice, none the first), and none of them opens a PDC
 * but the last. */
static void
pds_target_syn__chain_longer_than_any_bucket(void **state)
{
	enum { N = 1000 };
	struct uet_pds_tx s = restarted_syn(11, 0x1234ull);
	struct uet_pds_tx *chain = calloc(N, sizeof(*chain));
	uint32_t *psn = calloc(N + 1, sizeof(*psn)), k;

	(void)state;
	assert_non_null(chain);
	assert_non_null(psn);
	refuse_chain(&s, chain, N);
	for (k = 0; k < N; k++)
		psn[k] = chain[k].hdr.u.req.psn;
	psn[N] = s.hdr.u.req.psn;
	qsort(psn, N + 1, sizeof(*psn), cmp_u32);
	for (k = 0; k < N; k++)
		assert_true(psn[k] != psn[k + 1]);
	W.now += W.pds[1]->cfg.syn_holdoff_ns;
	for (k = 0; k < N; k++)
		fakewire_inject(&W, 1, &chain[k], false, false);
	assert_int_equal(W.delivered[11], 0);
	assert_int_equal(fakewire_st(1)->syn_replace, 0);
	fakewire_inject(&W, 1, &s, false, false);
	assert_int_equal(W.delivered[11], 1);
	assert_int_equal(fakewire_st(1)->syn_replace, 1);
	free(chain);
	free(psn);
}

/* The incarnation the last Start_PSN opened: its late duplicates reach it
 * while it lives, are dropped as stale once it is freed, and are refused
 * even when the record of the freed incarnation was evicted (here wiped):
 * the Start_PSN opens a PDC once. */
static void
pds_target_syn__accepted_late_duplicates_not_delivered_again(void **state)
{
	struct uet_pds_tx s = restarted_syn(12, 0x77ull), chain[2];
	struct uet_pds *t;

	(void)state;
	refuse_chain(&s, chain, 2);
	W.now += W.pds[1]->cfg.syn_holdoff_ns;
	fakewire_inject(&W, 1, &s, false, false);
	fakewire_inject(&W, 1, &s, false, false);
	assert_int_equal(W.delivered[12], 1);
	assert_int_equal(fakewire_st(1)->dup_rx, 1);
	free_target_pdc(&s);
	fakewire_inject(&W, 1, &s, false, false);
	assert_int_equal(fakewire_st(1)->syn_stale, 1);
	t = W.pds[1];
	memset(t->tomb, 0, (t->tomb_mask + 1) * PDS_TOMB_WAYS *
			   sizeof(*t->tomb));
	fakewire_inject(&W, 1, &s, false, false);
	assert_int_equal(W.delivered[12], 1);
	assert_int_equal(fakewire_st(1)->pdc_open_tgt, 2);
	assert_int_equal(fakewire_st(1)->syn_refused, 1);
}

static bool
done_13(struct fakewire *w, void *arg)
{
	(void)arg;
	return w->done_ok[13] + w->done_err[13] != 0;
}

/* A peer that restarts again, with a fresh random Start_PSN: within
 * 2 x mpl_ns of the id's last SYN it is refused once, naming a Start_PSN,
 * and opens under that one; after it, the record is gone and it opens at
 * once. */
static void
pds_target_syn__restart_opens_within_and_after_mpl(void **state)
{
	struct uet_pds_tx s = restarted_syn(12, 0x99ull), chain[3], f;
	struct uet_pds_config cfg;
	uint64_t refusals;

	(void)state;
	refuse_chain(&s, chain, 3);
	W.now += W.pds[1]->cfg.syn_holdoff_ns;
	fakewire_inject(&W, 1, &s, false, false);
	assert_int_equal(W.delivered[12], 1);
	free_target_pdc(&s);
	/* Restart within the records' life: the protocol runs. */
	uet_pds_free(W.pds[0]);
	fakewire_test_config(&cfg);
	cfg.seed = 0xfeedull;
	W.pds[0] = uet_pds_create(&cfg);
	assert_non_null(W.pds[0]);
	drain();
	refusals = fakewire_st(1)->syn_refused;
	assert_int_equal(fakewire_submit(&W, UET_PDS_MODE_RUD, 13, 0), 0);
	assert_true(fakewire_run(&W, 1000, 100000000ull, done_13, NULL));
	assert_int_equal(W.done_ok[13], 1);
	assert_int_equal(W.delivered[13], 1);
	assert_int_equal(fakewire_st(1)->syn_refused, refusals + 1);
	assert_int_equal(fakewire_st(0)->new_start, 1);
	/* Restart after them: opens at once. */
	free_target_pdc(&s);
	target_runs(2 * W.pds[1]->cfg.mpl_ns);
	uet_pds_free(W.pds[0]);
	cfg.seed = 0xbeefull;
	W.pds[0] = uet_pds_create(&cfg);
	assert_non_null(W.pds[0]);
	assert_int_equal(fakewire_submit(&W, UET_PDS_MODE_RUD, 14, 0), 0);
	assert_true(fakewire_take_type(&W, 0, UET_PDS_TYPE_RUD_REQ, &f));
	fakewire_inject(&W, 1, &f, false, false);
	assert_int_equal(W.delivered[14], 1);
	assert_int_equal(fakewire_st(1)->syn_refused, refusals + 1);
}

static void
drain(void)
{
	struct uet_pds_tx tx[64];
	uint32_t n = 0;

	while ((fakewire_take(&W, 0, tx, 64) | fakewire_take(&W, 1, tx, 64)) &&
	       ++n < 100000)
		;
}

static uint32_t
hot_records(const struct uet_pds *p)
{
	uint32_t k, n = 0;

	for (k = 0; k < (p->syn_mask + 1) * PDS_SYN_WAYS; k++)
		n += p->syn_rec[k].used &&
		     p->syn_now - p->syn_rec[k].last_ns < 2 * p->cfg.mpl_ns;
	return n;
}

/* A hostile peer reopens one PDC id 10^5 times in 1 s, each with a fresh
 * random Start_PSN, while its PDC lives: one record for the id, nothing
 * opens, no Start_PSN is named twice, one is named an interval of the
 * clock at most (the other SYNs get no answer), the memory stays. */
static void
pds_target_syn__adversary_one_id_bounded(void **state)
{
	enum { N = 100000 };
	struct uet_pds_tx s = restarted_syn(15, 0x4242ull), h, nk = { 0 };
	size_t bytes = uet_pds_pdc_bytes(W.pds[1]);
	uint32_t *named = calloc(N, sizeof(*named)), k, n = 0, nacks = 0;
	uint64_t t0 = W.now, intervals;
	struct uet_rand rng;

	(void)state;
	assert_non_null(named);
	uet_rand_seed(&rng, 7);
	for (k = 0; k < N; k++) {
		W.now += 10000;
		h = s;
		h.hdr.u.req.psn = (uint32_t)uet_rand_next(&rng);
		fakewire_inject(&W, 1, &h, false, false);
		/* the rest of a burst hears the same Start_PSN again */
		if (fakewire_take_type(&W, 1, UET_PDS_TYPE_NACK, &nk) &&
		    (n == 0 || named[n - 1] != nk.hdr.u.nack.payload))
			named[n++] = nk.hdr.u.nack.payload;
		nacks += nk.hdr.u.nack.code == UET_NACK_NEW_START_PSN;
		nk.hdr.u.nack.code = 0;
		drain();
	}
	intervals = (W.now >> 20) - (t0 >> 20);
	assert_true(n >= intervals * 9 / 10 && n <= intervals + 1);
	qsort(named, n, sizeof(*named), cmp_u32);
	for (k = 0; k + 1 < n; k++)
		assert_true(named[k] != named[k + 1]);
	for (k = 0; k < n; k++)
		assert_true(named[k] & PDS_NAMED);
	assert_int_equal(fakewire_st(1)->syn_unnamed, N - nacks);
	assert_int_equal(hot_records(W.pds[1]), 1);
	assert_int_equal(W.delivered[15], 0);
	assert_int_equal(fakewire_st(1)->pdc_open_tgt, 1);
	assert_int_equal(uet_pds_pdc_bytes(W.pds[1]), bytes);
	/* Expired: the id opens again. */
	target_runs(2 * W.pds[1]->cfg.mpl_ns);
	free_target_pdc(&s);
	fakewire_inject(&W, 1, &s, false, false);
	assert_int_equal(W.delivered[15], 1);
	free(named);
}

/* More ids refused than the records hold: each opened (while its bucket
 * has not forgotten), then refused a second Start_PSN, then freed. The
 * records evicted leave their bucket refusing SYNs without a record: no
 * refused SYN opens a PDC, new ids are refused until the evicted records
 * would have expired, then open. */
static void
pds_target_syn__adversary_many_ids_bounded(void **state)
{
	enum { N = 200 };
	struct uet_pds_tx a = restarted_syn(16, 0x5151ull), b[N], h;
	struct uet_pds *t = W.pds[1];
	uint64_t opened, forgot;
	struct uet_rand rng;
	struct pds_pdc *c;
	uint32_t k;

	(void)state;
	uet_rand_seed(&rng, 9);
	drain();
	for (k = 0; k < N; k++) {
		h = a;
		h.hdr.u.req.spdcid = (uint16_t)(1000 + k);
		h.hdr.u.req.psn = (uint32_t)uet_rand_next(&rng);
		fakewire_inject(&W, 1, &h, false, false);
		b[k] = h;
		b[k].hdr.u.req.psn += 0x40000;
		fakewire_inject(&W, 1, &b[k], false, false);
		c = pds_tkey_find(t, &W.fa[0], h.hdr.u.req.spdcid);
		if (c != NULL)
			pds_pdc_free(t, c);
		drain();
	}
	assert_true(t->st.syn_rec_evict > 0);
	assert_true(t->st.syn_forgot > 0);
	assert_true(hot_records(t) <= (t->syn_mask + 1) * PDS_SYN_WAYS);
	opened = t->st.pdc_open_tgt;
	forgot = t->st.syn_forgot;
	W.now += t->cfg.syn_holdoff_ns;
	for (k = 0; k < N; k++)
		fakewire_inject(&W, 1, &b[k], false, false);
	for (k = 0; k < N; k++) {
		h = a;
		h.hdr.u.req.spdcid = (uint16_t)(5000 + k);
		fakewire_inject(&W, 1, &h, false, false);
		c = pds_tkey_find(t, &W.fa[0], h.hdr.u.req.spdcid);
		if (c != NULL)
			pds_pdc_free(t, c);
		drain();
	}
	assert_true(t->st.syn_forgot > forgot);
	assert_true(t->st.pdc_open_tgt < opened + N);
	target_runs(2 * t->cfg.mpl_ns);
	opened = t->st.pdc_open_tgt;
	for (k = 0; k < N; k++) {
		fakewire_inject(&W, 1, &b[k], false, false);
		c = pds_tkey_find(t, &W.fa[0], b[k].hdr.u.req.spdcid);
		assert_non_null(c);
		pds_pdc_free(t, c);
		drain();
	}
	assert_int_equal(t->st.pdc_open_tgt, opened + N);
}

/* Side 1 restarts (same FA, seed @p seed) with the quiet time
 * @p quiet. */
/* TSS's RANDOM_1RTT_START for the targets start_target() makes. */
static bool target_1rtt;
/* uet_pds_config.prev_alive_ns of the targets start_target() makes. */
static uint64_t target_prev_alive;

/* The target starts anew, its state lost: the restart of the one before
 * (@p restarted, as its owner would know), or its first start. */
static void
start_target(uint64_t seed, bool quiet, bool restarted)
{
	struct uet_pds_config cfg;

	uet_pds_free(W.pds[1]);
	fakewire_test_config(&cfg);
	cfg.syn_quiet = quiet;
	cfg.restarted = restarted;
	cfg.syn_1rtt = target_1rtt;
	cfg.prev_alive_ns = target_prev_alive;
	cfg.seed = seed;
	W.pds[1] = uet_pds_create(&cfg);
	assert_non_null(W.pds[1]);
}

static void
restart_target_with(uint64_t seed, bool quiet)
{
	start_target(seed, quiet, true);
}

static void
restart_target(uint64_t seed)
{
	restart_target_with(seed, true);
}

/* uet-dst seed 3058291 of generator 2 (docs/DST.md, `leak`): a SYN the
 * target's previous incarnation saw, delayed 35 ms in the network,
 * reaches it after it restarted. An eager send (@p flags 0) or any other
 * request, an atomic included, runs at most once: the restarted target
 * keeps no record of what its previous incarnation accepted, so for
 * 2 x mpl_ns a SYN it has no record of is refused (NEW_START_PSN). */
static void
syn_before_restart_with(uint64_t cookie, bool accepted_before, bool quiet)
{
	struct uet_pds_tx s, a;

	assert_int_equal(fakewire_submit(&W, UET_PDS_MODE_RUD, cookie, 0), 0);
	assert_true(fakewire_take_type(&W, 0, UET_PDS_TYPE_RUD_REQ, &s));
	if (accepted_before) {
		fakewire_inject(&W, 1, &s, false, false);
		assert_int_equal(W.delivered[cookie], 1);
		assert_true(fakewire_take_type(&W, 1, UET_PDS_TYPE_ACK, &a));
		fakewire_inject(&W, 0, &a, false, false);
	}
	restart_target_with(0x3058291ull, quiet);
	uet_pds_advance(W.pds[1], W.now);
	W.now += 35000000;
	fakewire_inject(&W, 1, &s, false, false);
	assert_int_equal(W.delivered[cookie], accepted_before ? 1 : 0);
	assert_int_equal(fakewire_st(1)->pdc_open_tgt, 0);
	assert_int_equal(fakewire_st(1)->syn_forgot, 1);
	assert_true(fakewire_take_type(&W, 1, UET_PDS_TYPE_NACK, &a));
	assert_int_equal(a.hdr.u.nack.code, UET_NACK_NEW_START_PSN);
	/* a copy after the record of that refusal and the quiet time are
	 * over is past the packet lifetime: not sent by this test */
	W.now += W.pds[1]->cfg.mpl_ns;
	fakewire_inject(&W, 1, &s, false, false);
	assert_int_equal(W.delivered[cookie], accepted_before ? 1 : 0);
	assert_int_equal(fakewire_st(1)->pdc_open_tgt, 0);
}

static void
syn_before_restart(uint64_t cookie, bool accepted_before)
{
	syn_before_restart_with(cookie, accepted_before, true);
}

/* The default configuration, the engine's: the quiet time is on
 * (uet_pds.h syn_quiet). */
static void
uet_pds_config_default__quiet_time_on(void **state)
{
	struct uet_pds_config def;

	(void)state;
	uet_pds_config_default(&def);
	assert_true(def.syn_quiet);
}

static void
pds_target_syn__restart_refuses_syn_of_previous_incarnation(void **state)
{
	(void)state;
	syn_before_restart(11, true);
}

/* The SYN was lost on its way to the previous incarnation and only its
 * copy arrives: it opens nothing either, its initiator (whose PDC is in
 * SYN state) moves to the Start_PSN named and sends again. */
static void
pds_target_syn__restart_refuses_unseen_syn_during_quiet(void **state)
{
	(void)state;
	syn_before_restart(12, false);
}

static bool
cookie_done(struct fakewire *w, void *arg)
{
	return w->done_ok[(uintptr_t)arg] == 1;
}

/* Virtual time from the submission of @p cookie (on a PDC of its own,
 * JobID @p job) to its completion at the initiator, against a target
 * started (and running: its clock ticks) 20 us before with the quiet
 * time @p quiet. Sooner, within the NACK's flight of the restart, the
 * initiator could not tell its PDC from one that may have reached the
 * target's previous incarnation, which it met: the PDC fails
 * (pds_target_syn__restart_fails_what_the_previous_incarnation_may_have_run). */
static uint64_t
first_completion_ns(bool quiet, uint64_t cookie, uint32_t job)
{
	uint64_t t0;

	restart_target_with(0x5eedull + job, quiet);
	uet_pds_advance(W.pds[1], W.now);
	W.now += FAKEWIRE_NAME_NS + 20000;
	t0 = W.now;
	assert_int_equal(fakewire_submit_job(&W, UET_PDS_MODE_RUD, cookie, 0,
					     job), 0);
	assert_true(fakewire_run(&W, 100, 10000000ull, cookie_done,
				 (void *)(uintptr_t)cookie));
	assert_int_equal(W.delivered[cookie], 1);
	return W.now - t0;
}

/* The quiet time costs the first PDC to a freshly started target one
 * NEW_START_PSN round trip, no wait (pds_initiator_new_start): the first
 * message completes at most one round trip (2 x delay_ns, plus a step of
 * the fake clock each way) later than with the quiet time off. Measured
 * here: 4.0 us off, 8.0 us on (one-way delay 2 us). */
static void
pds_target_syn__quiet_costs_one_round_trip(void **state)
{
	uint64_t off, on;

	(void)state;
	off = first_completion_ns(false, 13, 1);
	assert_int_equal(fakewire_st(1)->syn_forgot, 0);
	on = first_completion_ns(true, 15, 2);
	assert_int_equal(fakewire_st(1)->syn_forgot, 1);
	assert_int_equal(fakewire_st(1)->pdc_open_tgt, 1);
	assert_int_equal(fakewire_st(0)->new_start, 1);
	print_message("first message: %llu ns quiet off, %llu ns on\n",
		      (unsigned long long)off, (unsigned long long)on);
	assert_true(on > off);
	assert_true(on - off <= 2 * W.delay_ns + 2 * 100);
}

/* A SYN that reaches a target (quiet time on) in the interval of the
 * clock the target started in gets no answer: a previous incarnation
 * may have named Start_PSNs in that interval (struct pds_syn_rec). The
 * initiator's RTO resends it, the target names a Start_PSN then and the
 * message is delivered once: the cost is one retransmission. */
static void
pds_target_syn__no_name_in_the_interval_it_started_in(void **state)
{
	uint64_t t0, cookie = 17;

	(void)state;
	start_target(0x5eedull, true, false);
	uet_pds_advance(W.pds[1], W.now);
	t0 = W.now;
	assert_int_equal(fakewire_submit_job(&W, UET_PDS_MODE_RUD, cookie, 0,
					     4), 0);
	assert_true(fakewire_run(&W, 100, 100000000ull, cookie_done,
				 (void *)(uintptr_t)cookie));
	assert_int_equal(W.delivered[cookie], 1);
	assert_true(fakewire_st(1)->syn_unnamed >= 1);
	assert_int_equal(fakewire_st(1)->pdc_open_tgt, 1);
	assert_int_equal(fakewire_st(0)->new_start, 1);
	/* each SYN left unanswered was resent (a tail-loss probe, the
	 * RTO), the last one after the interval */
	assert_true(fakewire_retx_sent(0) >= fakewire_st(1)->syn_unnamed);
	print_message("first message within the start interval: %llu ns, "
		      "%llu SYNs unanswered\n",
		      (unsigned long long)(W.now - t0),
		      (unsigned long long)fakewire_st(1)->syn_unnamed);
	assert_true(W.now - t0 >= FAKEWIRE_NAME_NS);
}

/*
 * uet-dst generator 7 seed 19059085 (docs/DST.md, `write-once`): the
 * target's first incarnation refused the initiator's fresh Start_PSN S0
 * and named S1, under which the request ran. The target restarted in
 * the same interval of the clock; the network held copies of the SYNs
 * under S0 and S1. The new incarnation's record, made for the copy under
 * S1, names nothing in the interval it started in and then a Start_PSN
 * of a later interval: neither S1 (named by the previous incarnation in
 * an earlier one) nor S0 (picked by an initiator: PDS_NAMED clear). So
 * the copy under S0 is refused and the request does not run again.
 * (Before, the name's high half was the first refused one's plus a
 * random step: a restart drew the step that came back to S0 with odds
 * of 2^-15.)
 */
static void
pds_target_syn__restart_never_names_what_its_previous_incarnation_named(
	void **state)
{
	struct uet_pds_tx s0, s1, nk;
	uint64_t cookie = 60;
	uint32_t n1, n2;

	(void)state;
	start_target(0x19059085ull, true, false);
	uet_pds_advance(W.pds[1], W.now);
	W.now += FAKEWIRE_NAME_NS;
	assert_int_equal(fakewire_submit_job(&W, UET_PDS_MODE_RUD, cookie, 0,
					     6), 0);
	assert_true(fakewire_take_type(&W, 0, UET_PDS_TYPE_RUD_REQ, &s0));
	assert_int_equal(s0.hdr.u.req.psn & PDS_NAMED, 0);
	n1 = refused(&s0);
	assert_true(n1 & PDS_NAMED);
	s1 = s0;
	s1.hdr.u.req.psn = n1;
	fakewire_inject(&W, 1, &s1, false, false);
	assert_int_equal(W.delivered[cookie], 1);
	/* the restart, in the interval S1 was named in */
	start_target(0x19059086ull, true, true);
	uet_pds_advance(W.pds[1], W.now);
	fakewire_inject(&W, 1, &s1, false, false);
	assert_false(fakewire_take_type(&W, 1, UET_PDS_TYPE_NACK, &nk));
	assert_int_equal(fakewire_st(1)->syn_unnamed, 1);
	W.now += FAKEWIRE_NAME_NS;
	n2 = refused(&s1);
	assert_true(n2 & PDS_NAMED);
	assert_true(n2 != n1 && n2 != s0.hdr.u.req.psn);
	assert_true((int32_t)((n2 >> 16) - (n1 >> 16)) > 0);
	assert_int_equal(refused(&s0), n2);
	assert_int_equal(refused(&s1), n2);
	assert_int_equal(W.delivered[cookie], 1);
	assert_int_equal(fakewire_st(1)->pdc_open_tgt, 0);
}

/*
 * uet-dst generator 7 seed 19000913 (docs/DST.md "What it found"): a
 * request its target ran, whose ACK was lost, then the target restarted
 * (@p restarted: its owner knows, uet_pds_config.restarted; its quiet
 * time on). The initiator retransmits the SYN; the restarted target
 * refuses it knowing nothing of the id (NACK NEW_START_PSN, vendor_code
 * PDS_VC_RESTARTED and its age). The PDC opened before the target's
 * start: its request may have run at the previous incarnation, so the
 * PDC fails (-ECONNRESET, syn_restart) instead of renumbering and running
 * it a second time. A target that started for the first time (a client
 * started before its server, whose first transmission reached no one)
 * refuses as before: the PDC renumbers and the request runs once.
 */
/* The age a restarted target's refusal @p nk carries: @p ns, to the
 * microsecond below. */
static void
nack_age_is(const struct uet_pds_tx *nk, uint64_t ns)
{
	uint64_t age = pds_syn_vc_age_ns(nk->hdr.u.nack.vendor_code,
					 nk->hdr.u.nack.spdcid);

	assert_true(age <= ns && age + 1000 > ns);
}

/* The refusal @p nk reaches the initiator, which runs until @p cookie
 * completes (ok or failed; 10 ms at most). */
static void
answer_and_run(const struct uet_pds_tx *nk, uint64_t cookie)
{
	uint32_t i;

	fakewire_inject(&W, 0, nk, false, false);
	for (i = 0; i < 100 && W.done_ok[cookie] + W.done_err[cookie] == 0;
	     i++)
		fakewire_step(&W, 100000);
}

static void
restart_after_run(bool restarted, uint64_t cookie)
{
	struct uet_pds_tx s, a;

	assert_int_equal(fakewire_submit_job(&W, UET_PDS_MODE_RUD, cookie, 0,
					     3), 0);
	assert_true(fakewire_take_type(&W, 0, UET_PDS_TYPE_RUD_REQ, &s));
	if (restarted) {
		fakewire_inject(&W, 1, &s, false, false);
		assert_int_equal(W.delivered[cookie], 1);
		/* its ACK is lost */
		assert_true(fakewire_take_type(&W, 1, UET_PDS_TYPE_ACK, &a));
	}
	W.now += 50000;
	start_target(0x19000913ull, true, restarted);
	uet_pds_advance(W.pds[1], W.now);
	target_runs(FAKEWIRE_NAME_NS);
	/* the retransmission (or a copy of the first) reaches it */
	fakewire_inject(&W, 1, &s, false, false);
	assert_true(fakewire_take_type(&W, 1, UET_PDS_TYPE_NACK, &a));
	assert_int_equal(a.hdr.u.nack.code, UET_NACK_NEW_START_PSN);
	if (restarted) {
		assert_true(a.hdr.u.nack.vendor_code & PDS_VC_RESTARTED);
		/* its age, FAKEWIRE_NAME_NS */
		nack_age_is(&a, FAKEWIRE_NAME_NS);
	} else {
		assert_int_equal(a.hdr.u.nack.vendor_code, 0);
	}
	answer_and_run(&a, cookie);
	if (restarted) {
		assert_int_equal(W.done_err[cookie], 1);
		assert_int_equal(W.last_status[0], -ECONNRESET);
		assert_int_equal(fakewire_st(0)->syn_restart, 1);
		assert_int_equal(W.delivered[cookie], 1);
	} else {
		assert_int_equal(W.done_ok[cookie], 1);
		assert_int_equal(fakewire_st(0)->syn_restart, 0);
		assert_int_equal(W.delivered[cookie], 1);
	}
}

/*
 * The engine's alive file tells a restarted target when its previous
 * incarnation last ran (uet_pds_config.prev_alive_ns, D). A PDC opened
 * after D, while the target was down (an MPI job started again: the
 * first process to start opens its PDCs before its peers' engines run),
 * reached no one before: refused in the quiet time with the time since
 * D as the age, it renumbers and its message is delivered once (counted
 * from the new start instead, the age would have failed it), when it
 * opened later than D by more than the age's rounding (a microsecond;
 * here 30 us after D). A PDC opened before D (here 30 us) may have
 * reached the previous incarnation: it fails.
 */
#define PREV_ALIVE(opened, before) ((before) ? (opened) + 30000 \
					      : (opened) - 30000)

static void
prev_alive_case(uint64_t cookie, bool opened_before_death)
{
	struct uet_pds_tx s, a;
	uint64_t opened;

	fakewire_past_start(&W);
	W.now += 5000000; /* D may be before the PDC */
	opened = W.now;
	assert_int_equal(fakewire_submit_job(&W, UET_PDS_MODE_RUD, cookie, 0,
					     7), 0);
	assert_true(fakewire_take_type(&W, 0, UET_PDS_TYPE_RUD_REQ, &s));
	target_prev_alive = PREV_ALIVE(opened, opened_before_death);
	W.now += 300000;
	start_target(0x7a11e0ull, true, true);
	target_prev_alive = 0;
	uet_pds_advance(W.pds[1], W.now);
	target_runs(FAKEWIRE_NAME_NS);
	fakewire_inject(&W, 1, &s, false, false);
	assert_true(fakewire_take_type(&W, 1, UET_PDS_TYPE_NACK, &a));
	assert_int_equal(a.hdr.u.nack.code, UET_NACK_NEW_START_PSN);
	assert_true(a.hdr.u.nack.vendor_code & PDS_VC_RESTARTED);
	/* the time since D */
	nack_age_is(&a, W.now - PREV_ALIVE(opened, opened_before_death));
	answer_and_run(&a, cookie);
	if (opened_before_death) {
		assert_int_equal(W.done_err[cookie], 1);
		assert_int_equal(fakewire_st(0)->syn_restart, 1);
		assert_int_equal(W.delivered[cookie], 0);
	} else {
		assert_int_equal(W.done_ok[cookie], 1);
		assert_int_equal(fakewire_st(0)->syn_restart, 0);
		assert_int_equal(W.delivered[cookie], 1);
	}
}

static void
pds_target_syn__restart_age_from_the_previous_incarnation_renumbers_later_pdc(
	void **state)
{
	(void)state;
	prev_alive_case(45, false);
}

static void
pds_target_syn__restart_age_from_the_previous_incarnation_fails_earlier_pdc(
	void **state)
{
	(void)state;
	prev_alive_case(47, true);
}

static void
pds_target_syn__restart_fails_what_the_previous_incarnation_may_have_run(
	void **state)
{
	(void)state;
	restart_after_run(true, 41);
}

static void
pds_target_syn__target_started_late_renumbers(void **state)
{
	(void)state;
	restart_after_run(false, 43);
}

/*
 * TSS's RANDOM_1RTT_START (uet_pds_config.syn_1rtt, [tss] pdc_start =
 * random_1rtt): every new PDC is refused once with a Start_PSN the target
 * names and opens under it, one round trip later, the message delivered
 * once. A replay of its first SYN (a Start_PSN the target did not name)
 * opens nothing, at once or once the record of the refusal expired: a
 * replayed SYN never opens a PDC. Quiet time off: this alone refuses.
 */
static void
pds_target_syn__1rtt_refuses_every_new_pdc_once(void **state)
{
	struct uet_pds_tx s, nk;
	uint64_t cookie = 51;
	uint32_t i;

	(void)state;
	target_1rtt = true;
	start_target(0x1277ull, false, false);
	target_1rtt = false;
	uet_pds_advance(W.pds[1], W.now);
	W.now += FAKEWIRE_NAME_NS;
	assert_int_equal(fakewire_submit_job(&W, UET_PDS_MODE_RUD, cookie, 0,
					     5), 0);
	assert_true(fakewire_take_type(&W, 0, UET_PDS_TYPE_RUD_REQ, &s));
	fakewire_inject(&W, 1, &s, false, false);
	assert_int_equal(W.delivered[cookie], 0);
	assert_int_equal(fakewire_st(1)->syn_1rtt, 1);
	assert_int_equal(fakewire_st(1)->pdc_open_tgt, 0);
	assert_true(fakewire_take_type(&W, 1, UET_PDS_TYPE_NACK, &nk));
	assert_int_equal(nk.hdr.u.nack.code, UET_NACK_NEW_START_PSN);
	assert_int_equal(nk.hdr.u.nack.vendor_code, 0);
	fakewire_inject(&W, 0, &nk, false, false);
	assert_true(fakewire_run(&W, 100, 10000000ull, cookie_done,
				 (void *)(uintptr_t)cookie));
	assert_int_equal(W.delivered[cookie], 1);
	assert_int_equal(fakewire_st(1)->pdc_open_tgt, 1);
	assert_int_equal(fakewire_st(0)->new_start, 1);
	/* the first SYN replayed: now (the record refuses it), and once
	 * the record expired (2 x mpl_ns of the PDS's running time) */
	fakewire_inject(&W, 1, &s, false, false);
	for (i = 0; i < 3 * W.pds[1]->cfg.mpl_ns / 1000000; i++)
		fakewire_step(&W, 1000000);
	fakewire_inject(&W, 1, &s, false, false);
	assert_int_equal(W.delivered[cookie], 1);
	assert_int_equal(fakewire_st(1)->pdc_open_tgt, 1);
	assert_int_equal(fakewire_st(1)->syn_1rtt, 2);
}

/* A target just started (quiet time, seed @p seed) and a two-packet
 * burst of cookies @p cookie and @p cookie + 1 at the initiator: both
 * taken into @p s, the first delivered and refused, its NACK
 * NEW_START_PSN (@p nk) delivered back; the second still in hand. */
static void
burst_refused_once(uint64_t seed, uint64_t cookie, struct uet_pds_tx s[2],
		   struct uet_pds_tx *nk)
{
	restart_target(seed);
	uet_pds_advance(W.pds[1], W.now);
	W.now += FAKEWIRE_NAME_NS;
	assert_int_equal(fakewire_submit(&W, UET_PDS_MODE_RUD, cookie, 0), 0);
	assert_int_equal(fakewire_submit(&W, UET_PDS_MODE_RUD, cookie + 1, 0),
			 0);
	assert_int_equal(fakewire_take(&W, 0, s, 2), 2);
	fakewire_inject(&W, 1, &s[0], false, false);
	assert_true(fakewire_take_type(&W, 1, UET_PDS_TYPE_NACK, nk));
	fakewire_inject(&W, 0, nk, false, false);
}

/* A burst refused at a target in its quiet time, one NACK lost: the
 * initiator's RTO renumbers it to the Start_PSN the NACK that arrived
 * named (pds_initiator_rto), which opens, not to a fresh pick, which the
 * target refuses again (under steady loss of one answer a burst, never
 * opening: test_pds_property before this rule). */
static void
pds_target_syn__rto_after_refusal_moves_to_named(void **state)
{
	struct uet_pds_tx s[2], nk, r;
	uint32_t named;
	uint64_t k;

	(void)state;
	burst_refused_once(0x7e57ull, 20, s, &nk);
	assert_int_equal(s[1].hdr.type, UET_PDS_TYPE_RUD_REQ);
	named = nk.hdr.u.nack.payload;
	/* s2's answer is lost: only the RTO moves the burst */
	for (k = 0; k < 64; k++) {
		W.now += W.pds[0]->cfg.rto_init_ns / 4;
		uet_pds_advance(W.pds[0], W.now);
		/* (a tail-loss resend of s[1] under the old one first) */
		if (fakewire_take_type(&W, 0, UET_PDS_TYPE_RUD_REQ, &r) &&
		    r.hdr.u.req.psn - r.hdr.u.req.psn_offset !=
		    s[0].hdr.u.req.psn)
			break;
	}
	assert_true(k < 64);
	assert_int_equal(r.hdr.u.req.psn - r.hdr.u.req.psn_offset, named);
	fakewire_inject(&W, 1, &r, false, false);
	assert_int_equal(fakewire_st(1)->pdc_open_tgt, 1);
	assert_int_equal(W.delivered[20] + W.delivered[21], 1);
}

static bool
done_30_31(struct fakewire *w, void *arg)
{
	(void)arg;
	return w->done_ok[30] == 1 && w->done_ok[31] == 1;
}

/* uet-perf --mode incast with the quiet time on, on a loaded machine: a
 * burst refused at a target in its quiet time, renumbered to the
 * Start_PSN named and delivered under it; one packet of the refused
 * burst reached the target's receive queue and is read only after the
 * target was not called for 1 s (4 s in the incast run). The records of
 * the refusal age by the time the PDS ran (pds_syn_tick): it is refused,
 * not delivered a second time under a PDC of the old Start_PSN. */
static void
pds_target_syn__refused_syn_read_after_a_stall_opens_nothing(void **state)
{
	struct uet_pds_tx s[2], nk, r;
	uint64_t k;

	(void)state;
	burst_refused_once(0x1ca57ull, 30, s, &nk);
	assert_int_equal(s[1].hdr.u.req.psn - s[1].hdr.u.req.psn_offset,
			 s[0].hdr.u.req.psn);
	/* s[1] waits in the target's queue: the RTO renumbers the burst */
	for (k = 0; k < 64; k++) {
		W.now += W.pds[0]->cfg.rto_init_ns / 4;
		uet_pds_advance(W.pds[0], W.now);
		if (fakewire_take_type(&W, 0, UET_PDS_TYPE_RUD_REQ, &r) &&
		    r.hdr.u.req.psn - r.hdr.u.req.psn_offset ==
		    nk.hdr.u.nack.payload)
			break;
	}
	assert_true(k < 64);
	fakewire_inject(&W, 1, &r, false, false);
	assert_true(fakewire_run(&W, 100, 10000000ull, done_30_31, NULL));
	assert_int_equal(W.delivered[30], 1);
	assert_int_equal(W.delivered[31], 1);
	assert_int_equal(fakewire_st(1)->pdc_open_tgt, 1);
	/* the target runs again after 1 s and reads s[1] */
	W.now += 1000000000ull;
	fakewire_inject(&W, 1, &s[1], false, false);
	assert_int_equal(W.delivered[31], 1);
	assert_int_equal(fakewire_st(1)->pdc_open_tgt, 1);
	assert_int_equal(fakewire_st(1)->syn_replace, 0);
}

/* The hold-off outlasts refuse_chain()'s chains (one name an interval). */
static void
long_holdoff(struct uet_pds_config *cfg)
{
	cfg->syn_holdoff_ns = 2000000000ull;
}

static int
syn_setup(void **state)
{
	(void)state;
	return fakewire_setup_with(1, long_holdoff);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
#define T(f) FW_TEST(f, syn_setup)
		T(pds_target_syn__refused_start_psn_never_opens_later),
		T(pds_target_syn__chain_longer_than_any_bucket),
		T(pds_target_syn__accepted_late_duplicates_not_delivered_again),
		T(pds_target_syn__restart_opens_within_and_after_mpl),
		T(pds_target_syn__adversary_one_id_bounded),
		T(pds_target_syn__adversary_many_ids_bounded),
		T(pds_target_syn__restart_refuses_syn_of_previous_incarnation),
		T(pds_target_syn__restart_refuses_unseen_syn_during_quiet),
		T(pds_target_syn__quiet_costs_one_round_trip),
		T(pds_target_syn__no_name_in_the_interval_it_started_in),
		T(pds_target_syn__restart_never_names_what_its_previous_incarnation_named),
		T(pds_target_syn__restart_fails_what_the_previous_incarnation_may_have_run),
		T(pds_target_syn__target_started_late_renumbers),
		T(pds_target_syn__restart_age_from_the_previous_incarnation_renumbers_later_pdc),
		T(pds_target_syn__restart_age_from_the_previous_incarnation_fails_earlier_pdc),
		T(pds_target_syn__1rtt_refuses_every_new_pdc_once),
		T(pds_target_syn__rto_after_refusal_moves_to_named),
		T(pds_target_syn__refused_syn_read_after_a_stall_opens_nothing),
		T(uet_pds_config_default__quiet_time_on),
#undef T
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
