/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Secure PDC establishment by Expected_PSN (uet_pds_config.syn_expected,
 * src/pds/pds_sdom.c): a target's secure domain keeps an Expected_PSN
 * past every PDC of the domain that went, returned in the ACK of a close;
 * an initiator's next PDCs start there and open at once; a replayed SYN
 * of a PDC that went never opens one again, also once its closed-PDC
 * record is gone.
 */

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "pds_fakewire.h"
#include "pds_private.h"

#define SDOM 3
#define JOB 42 /* fakewire_submit()'s */

static uint8_t
sdom_of(void *arg, uint32_t job)
{
	(void)arg;
	return job == JOB ? SDOM : 0;
}

static void
expected_cfg(struct uet_pds_config *cfg)
{
	cfg->syn_expected = true;
	cfg->sdom_of = sdom_of;
}

static int
setup_expected(void **state)
{
	(void)state;
	if (fakewire_setup_with(7, expected_cfg) != 0)
		return -1;
	W.sdom = SDOM;
	fakewire_past_start(&W);
	return 0;
}

static int
setup_default(void **state)
{
	(void)state;
	if (fakewire_setup_with(7, NULL) != 0)
		return -1;
	W.sdom = SDOM;
	fakewire_past_start(&W);
	return 0;
}

/* Send @p cookie on a new PDC, keep a copy of its SYN in @p syn, and
 * close the PDC once done; the wire is idle after. */
static void
pdc_once(uint64_t cookie, struct uet_pds_tx *syn)
{
	struct pds_pdc *c;

	assert_int_equal(fakewire_submit(&W, UET_PDS_MODE_RUD, cookie, 0), 0);
	assert_true(fakewire_take_type(&W, 0, UET_PDS_TYPE_RUD_REQ, syn));
	assert_true(syn->hdr.flags & UET_PDS_F_SYN);
	fakewire_inject(&W, 1, syn, false, false);
	while (W.done_ok[cookie] == 0 && W.now < 100000000ull)
		fakewire_step(&W, 1000);
	assert_int_equal(W.done_ok[cookie], 1);
	c = pds_ikey_find(W.pds[0], &W.fa[1], JOB, 1, UET_PDS_MODE_RUD);
	assert_non_null(c);
	assert_int_equal(uet_pds_pdc_close(W.pds[0],
					   pds_handle(W.pds[0],
						      pds_idx(W.pds[0], c)),
					   W.now), 0);
	while (!fakewire_pools_idle(&W) && W.now < 200000000ull)
		fakewire_step(&W, 1000);
	assert_true(fakewire_pools_idle(&W));
}

/* PDCs opened and closed in turn until the first one's closed-PDC record
 * was evicted by later ones (PDS_TOMB_WAYS to a bucket); then the first
 * one's SYN, replayed. Returns the deliveries of cookie 1; the PDCs
 * opened in @p n. */
static uint32_t
replay_after_eviction(uint32_t *n)
{
	struct uet_pds_tx first, syn;
	uint64_t k;

	pdc_once(1, &first);
	for (k = 2; k < 300 && pds_tomb_find(W.pds[1], &W.fa[0],
					       first.hdr.u.req.spdcid,
					       first.hdr.u.req.psn -
					       first.hdr.u.req.psn_offset);
	     k++)
		pdc_once(k, &syn);
	assert_true(k < 300);
	*n = (uint32_t)k - 1;
	fakewire_inject(&W, 1, &first, false, false);
	fakewire_step(&W, 1000);
	return W.delivered[1];
}

/*
 * With the Expected_PSN, the replay is refused (NEW_START_PSN), nothing
 * delivered; every PDC after the first learnt the Expected_PSN from the
 * ACK of the close before it and opened at once (no NEW_START_PSN).
 */
static void
pds_sdom__replayed_syn_of_closed_pdc_never_opens(void **state)
{
	uint32_t n;

	(void)state;
	assert_int_equal(replay_after_eviction(&n), 1);
	assert_int_equal(fakewire_st(1)->syn_expected_old, 1);
	assert_int_equal(fakewire_st(1)->pdc_open_tgt, n);
	assert_int_equal(fakewire_st(1)->epsn_tx, n);
	assert_int_equal(fakewire_st(0)->epsn_rx, n);
	assert_int_equal(fakewire_st(0)->epsn_ignored, 0);
	assert_int_equal(fakewire_st(0)->new_start, 0);
}

/* The same run without it (the default rules): the replay opens a PDC and
 * delivers its request a second time. What the method is for. */
static void
pds_sdom__default_rules_deliver_the_replay(void **state)
{
	uint32_t n;

	(void)state;
	assert_int_equal(replay_after_eviction(&n), 2);
	assert_int_equal(fakewire_st(1)->syn_expected_old, 0);
	assert_int_equal(fakewire_st(1)->epsn_tx, 0);
}

/*
 * A SYN below the Expected_PSN from an initiator that never learnt it (a
 * restarted one, or of another vendor): refused, naming a Start_PSN, and
 * its request delivered once under it, one round trip later.
 */
static void
pds_sdom__fresh_initiator_below_expected_renumbers_once(void **state)
{
	struct uet_pds_tx syn, nk;
	uint32_t e;

	(void)state;
	pdc_once(1, &syn);
	assert_true(W.pds[1]->sdom_exp_set & 1u << SDOM);
	e = W.pds[1]->sdom_exp[SDOM];
	/* the initiator forgets the floor; its next pick lies below */
	W.pds[0]->sdom_floor_set = 0;
	W.pds[0]->test_start_set = true;
	W.pds[0]->test_start_psn = e - 70000;
	assert_int_equal(fakewire_submit(&W, UET_PDS_MODE_RUD, 2, 0), 0);
	assert_true(fakewire_take_type(&W, 0, UET_PDS_TYPE_RUD_REQ, &syn));
	assert_int_equal(syn.hdr.u.req.psn - syn.hdr.u.req.psn_offset,
			 e - 70000);
	fakewire_inject(&W, 1, &syn, false, false);
	assert_int_equal(fakewire_st(1)->syn_expected_old, 1);
	assert_int_equal(W.delivered[2], 0);
	assert_true(fakewire_take_type(&W, 1, UET_PDS_TYPE_NACK, &nk));
	assert_int_equal(nk.hdr.u.nack.code, UET_NACK_NEW_START_PSN);
	fakewire_inject(&W, 0, &nk, false, false);
	while (W.done_ok[2] == 0 && W.now < 100000000ull)
		fakewire_step(&W, 1000);
	assert_int_equal(W.delivered[2], 1);
	assert_int_equal(W.done_ok[2], 1);
	assert_int_equal(fakewire_st(0)->new_start, 1);
}

/* An EPSN ACK that does not answer our CLOSE (a member of the domain
 * pushing our floor) is not taken; nor one of a job of no domain. */
static void
pds_sdom__epsn_only_from_the_ack_of_our_close(void **state)
{
	struct uet_pds_tx syn, ack;
	struct pds_pdc *c;

	(void)state;
	assert_int_equal(fakewire_submit(&W, UET_PDS_MODE_RUD, 1, 0), 0);
	assert_true(fakewire_take_type(&W, 0, UET_PDS_TYPE_RUD_REQ, &syn));
	fakewire_inject(&W, 1, &syn, false, false);
	assert_true(fakewire_take_type(&W, 1, UET_PDS_TYPE_ACK, &ack) ||
		    fakewire_take_type(&W, 1, UET_PDS_TYPE_ACK_CC, &ack));
	ack.hdr.type = UET_PDS_TYPE_ACK;
	ack.hdr.flags |= UET_PDS_F_EPSN;
	ack.hdr.u.ack.expected_psn = 0x40000000u;
	fakewire_inject(&W, 0, &ack, false, false);
	assert_int_equal(fakewire_st(0)->epsn_ignored, 1);
	assert_int_equal(fakewire_st(0)->epsn_rx, 0);
	assert_false(W.pds[0]->sdom_floor_set & 1u << SDOM);
	c = pds_ikey_find(W.pds[0], &W.fa[1], JOB, 1, UET_PDS_MODE_RUD);
	assert_non_null(c);
}

/*
 * The Expected_PSN stays in the half of the PSN space with bit 31 clear:
 * past a PDC that started just below 2^31 it wraps to the bottom of that
 * half (serial order mod 2^31), not into the half of the Start_PSNs a
 * target names. The next PDC starts there and opens at once. (It went
 * into the names' half: a floor there was the name of a later interval,
 * and a restarted target named it for another copy of the same id.)
 */
static void
pds_sdom__expected_psn_stays_below_the_names(void **state)
{
	struct uet_pds_tx syn;
	uint32_t e;

	(void)state;
	W.pds[0]->test_start_set = true;
	W.pds[0]->test_start_psn = 0x7FFFF000u;
	pdc_once(1, &syn);
	assert_int_equal(syn.hdr.u.req.psn - syn.hdr.u.req.psn_offset,
			 0x7FFFF000u);
	assert_true(W.pds[1]->sdom_exp_set & 1u << SDOM);
	e = W.pds[1]->sdom_exp[SDOM];
	assert_int_equal(e & PDS_NAMED, 0);
	assert_true(e >= 0xF000u && e < 0x10000u + 0xF000u);
	assert_int_equal(W.pds[0]->sdom_floor[SDOM], e);
	/* an own pick behind the floor (mod 2^31): the floor is taken */
	W.pds[0]->test_start_set = true;
	W.pds[0]->test_start_psn = 0x7FFFF002u;
	pdc_once(2, &syn);
	assert_int_equal(syn.hdr.u.req.psn - syn.hdr.u.req.psn_offset, e);
	assert_int_equal(W.delivered[2], 1);
	assert_int_equal(fakewire_st(0)->new_start, 0);
	assert_int_equal(fakewire_st(1)->syn_expected_old, 0);
}

/*
 * A fresh SYN of the domain with bit 31 set (a peer of another vendor may
 * pick one) has no record: refused, though after the Expected_PSN mod
 * 2^32, and its request delivered once under the Start_PSN named. The
 * PDC, opened under a name, moves no Expected_PSN when it closes; the ACK
 * of its close carries the one the domain has.
 */
static void
pds_sdom__start_in_the_names_half_opens_only_under_a_name(void **state)
{
	struct uet_pds_tx syn;
	uint32_t e;

	(void)state;
	pdc_once(1, &syn);
	e = W.pds[1]->sdom_exp[SDOM];
	W.pds[0]->sdom_floor_set = 0;
	W.pds[0]->test_start_set = true;
	W.pds[0]->test_start_psn = PDS_NAMED | (e + 0x20000u);
	pdc_once(2, &syn);
	assert_int_equal(syn.hdr.u.req.psn - syn.hdr.u.req.psn_offset,
			 PDS_NAMED | (e + 0x20000u));
	assert_int_equal(fakewire_st(1)->syn_expected_old, 1);
	assert_int_equal(fakewire_st(0)->new_start, 1);
	assert_int_equal(W.delivered[2], 1);
	assert_int_equal(W.pds[1]->sdom_exp[SDOM], e);
	assert_int_equal(fakewire_st(1)->epsn_tx, 2);
	assert_int_equal(W.pds[0]->sdom_floor[SDOM], e);
}

/* Two ways of establishing a PDC at once: refused at creation. */
static void
pds_sdom__with_1rtt_refused(void **state)
{
	struct uet_pds_config cfg;
	struct uet_pds *p;

	(void)state;
	fakewire_test_config(&cfg);
	expected_cfg(&cfg);
	p = uet_pds_create(&cfg);
	assert_non_null(p);
	uet_pds_free(p);
	cfg.syn_1rtt = true;
	assert_null(uet_pds_create(&cfg));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(pds_sdom__with_1rtt_refused),
		cmocka_unit_test_setup_teardown(
			pds_sdom__replayed_syn_of_closed_pdc_never_opens,
			setup_expected, fakewire_teardown),
		cmocka_unit_test_setup_teardown(
			pds_sdom__default_rules_deliver_the_replay,
			setup_default, fakewire_teardown),
		cmocka_unit_test_setup_teardown(
			pds_sdom__fresh_initiator_below_expected_renumbers_once,
			setup_expected, fakewire_teardown),
		cmocka_unit_test_setup_teardown(
			pds_sdom__epsn_only_from_the_ack_of_our_close,
			setup_expected, fakewire_teardown),
		cmocka_unit_test_setup_teardown(
			pds_sdom__expected_psn_stays_below_the_names,
			setup_expected, fakewire_teardown),
		cmocka_unit_test_setup_teardown(
			pds_sdom__start_in_the_names_half_opens_only_under_a_name,
			setup_expected, fakewire_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
