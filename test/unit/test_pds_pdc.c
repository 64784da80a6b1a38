/* SPDX-License-Identifier: BSD-3-Clause */
/* PDC manager (src/pds/pdc.c): pools, ids, lookup tables, blocks. */

#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include <uet/uet_pds_cc.h>

#include "pds_private.h"

static struct uet_pds *
mk(uint32_t owner, uint32_t bits, uint32_t n)
{
	struct uet_pds_config cfg;

	uet_pds_config_default(&cfg);
	cfg.owner_id = owner;
	cfg.owner_bits = bits;
	cfg.max_pdcs = n;
	cfg.max_rsv_pdcs = 4;
	return uet_pds_create(&cfg);
}

static void
pds_pdc_alloc__owner_bits_in_id(void **state)
{
	struct uet_pds *p = mk(5, 3, 100);
	struct pds_pdc *c;

	(void)state;
	assert_non_null(p);
	c = pds_pdc_alloc(p, PDS_ROLE_TGT, false, 0);
	assert_non_null(c);
	assert_int_equal(uet_pds_pdcid_owner(c->lid, 3), 5);
	c->state = PDC_OPEN;
	assert_ptr_equal(pds_pdc_by_lid(p, PDS_ROLE_TGT, c->lid), c);
	/* Another owner's id is not ours. */
	assert_null(pds_pdc_by_lid(p, PDS_ROLE_TGT, c->lid ^ 0x2000));
	pds_tkey_add(p, c);
	pds_pdc_free(p, c);
	assert_null(pds_pdc_by_lid(p, PDS_ROLE_TGT, c->lid));
	uet_pds_free(p);
}

static void
pds_pdc_alloc__general_then_reserved_exhaustion(void **state)
{
	struct uet_pds *p = mk(0, 0, 2);
	struct pds_pdc *c[3];

	(void)state;
	c[0] = pds_pdc_alloc(p, PDS_ROLE_INIT, false, 0);
	c[1] = pds_pdc_alloc(p, PDS_ROLE_INIT, false, 0);
	assert_non_null(c[0]);
	assert_non_null(c[1]);
	assert_null(pds_pdc_alloc(p, PDS_ROLE_INIT, false, 0));
	c[2] = pds_pdc_alloc(p, PDS_ROLE_INIT, true, 0);
	assert_non_null(c[2]);
	assert_true((c[2]->lid & p->id_mask) >= 2);
	assert_int_equal(p->st.exhaust_pdc, 1);
	uet_pds_free(p);
}

/* A freed PDC id comes back only after every other free id was used
 * (pdc.c DECISION: a late SYN of an old incarnation still finds the
 * target's record of it); the reserved pool alike. */
static void
pds_pdc_alloc__freed_id_comes_back_last(void **state)
{
	struct uet_pds *p = mk(0, 0, 3);
	struct pds_pdc *c;
	uint16_t seen[7], k;

	(void)state;
	assert_non_null(p);
	for (k = 0; k < 7; k++) {
		c = pds_pdc_alloc(p, PDS_ROLE_INIT, false, 0);
		assert_non_null(c);
		seen[k] = c->lid;
		pds_pdc_free(p, c);
	}
	/* 0, 1, 2, 0, 1, 2, 0: never the id just freed. */
	for (k = 0; k < 7; k++)
		assert_int_equal(seen[k], seen[k % 3]);
	assert_true(seen[0] != seen[1] && seen[1] != seen[2] &&
		    seen[0] != seen[2]);
	/* Two held, one cycled: the held ones are not handed out. */
	c = pds_pdc_alloc(p, PDS_ROLE_INIT, false, 0);
	assert_int_equal(c->lid, seen[1]);
	assert_int_equal(pds_pdc_alloc(p, PDS_ROLE_INIT, false, 0)->lid,
			 seen[2]);
	pds_pdc_free(p, c);
	c = pds_pdc_alloc(p, PDS_ROLE_INIT, false, 0);
	assert_int_equal(c->lid, seen[0]);
	c = pds_pdc_alloc(p, PDS_ROLE_INIT, false, 0);
	assert_int_equal(c->lid, seen[1]);
	assert_null(pds_pdc_alloc(p, PDS_ROLE_INIT, false, 0));
	for (k = 0; k < 3; k++) {
		c = pds_pdc_alloc(p, PDS_ROLE_TGT, true, 0);
		assert_non_null(c);
		seen[k] = c->lid;
		pds_pdc_free(p, c);
	}
	assert_true(seen[0] != seen[1] && seen[1] != seen[2]);
	uet_pds_free(p);
}

static void
pds_ikey__add_find_delete_many(void **state)
{
	struct uet_pds *p = mk(0, 0, 4000);
	struct pds_pdc *c;
	struct uet_pds_fa fa;
	uint32_t i;

	(void)state;
	assert_non_null(p);
	memset(&fa, 0, sizeof(fa));
	for (i = 0; i < 4000; i++) {
		c = pds_pdc_alloc(p, PDS_ROLE_INIT, false, 0);
		assert_non_null(c);
		fa.addr[2] = (uint8_t)(i >> 8);
		fa.addr[3] = (uint8_t)i;
		c->peer = fa;
		c->job = i % 7;
		c->state = PDC_OPEN;
		pds_ikey_add(p, c);
	}
	/* Delete every other one: backward shift keeps the rest findable. */
	for (i = 0; i < 4000; i += 2) {
		fa.addr[2] = (uint8_t)(i >> 8);
		fa.addr[3] = (uint8_t)i;
		c = pds_ikey_find(p, &fa, i % 7, 0, 0);
		assert_non_null(c);
		pds_ikey_del(p, c);
	}
	for (i = 0; i < 4000; i++) {
		fa.addr[2] = (uint8_t)(i >> 8);
		fa.addr[3] = (uint8_t)i;
		c = pds_ikey_find(p, &fa, i % 7, 0, 0);
		if (i % 2)
			assert_non_null(c);
		else
			assert_null(c);
	}
	uet_pds_free(p);
}

static void
uet_pds_create__bad_config_and_large_scale(void **state)
{
	struct uet_pds_config cfg;
	struct uet_pds *p;

	(void)state;
	uet_pds_config_default(&cfg);
	cfg.tx_window = 100;
	assert_null(uet_pds_create(&cfg));
	uet_pds_config_default(&cfg);
	cfg.owner_bits = 2;
	cfg.owner_id = 4;
	assert_null(uet_pds_create(&cfg));
	uet_pds_config_default(&cfg);
	cfg.max_pdcs = 65536;
	assert_null(uet_pds_create(&cfg)); /* + reserved > 16-bit ids */
	/* The timer node's slot is 16 bits: 32 768 slots at most. */
	uet_pds_config_default(&cfg);
	cfg.timer_slots = 65536;
	assert_null(uet_pds_create(&cfg));
	cfg.timer_slots = 32768;
	p = uet_pds_create(&cfg);
	assert_non_null(p);
	uet_pds_free(p);
	uet_pds_config_default(&cfg);
	/* 2 x 50 000 PDCs: 100 000 per instance (initiator + target). */
	cfg.max_pdcs = 50000;
	cfg.max_rsv_pdcs = 1000;
	p = uet_pds_create(&cfg);
	assert_non_null(p);
	uet_pds_free(p);
	uet_pds_free(NULL);
	assert_true(sizeof(struct pds_pdc) <= 256);
}

static void
pds_tx_blk__pool_round_trip(void **state)
{
	struct uet_pds *p = mk(0, 0, 8);
	struct pds_pdc *c = pds_pdc_alloc(p, PDS_ROLE_INIT, false, 0);
	struct uet_pds_pool_info pi;

	(void)state;
	assert_true(pds_tx_blk_attach(p, c));
	uet_pds_pool_info_get(p, &pi);
	assert_int_equal(pi.tx_blk_used, 1);
	pds_tx_blk_detach(p, c);
	uet_pds_pool_info_get(p, &pi);
	assert_int_equal(pi.tx_blk_used, 0);
	uet_pds_free(p);
}

/* Bytes of the per-id tables besides the PDC record, as pdc.c sizes
 * them: a hash table is a power of two at least twice the ids of a role,
 * the closed-target records as many, the refused-Start_PSN records a
 * quarter of that (pds_target_syn.c). */
static size_t
tables_bytes(const struct uet_pds *p)
{
	size_t hsz = 64;

	while (hsz < 2 * (size_t)p->cap)
		hsz <<= 1;
	return 2 * hsz * sizeof(uint32_t) + hsz * sizeof(struct pds_tomb) +
	       hsz / 4 * sizeof(struct pds_syn_rec) +
	       hsz / 4 / PDS_SYN_WAYS * sizeof(uint64_t);
}

/*
 * What uet_pds_pdc_bytes() counts (the number docs/PERFORMANCE.md
 * "Scale" quotes from uet-perf --pdcs): every array the PDS sizes by its
 * PDC ids. The PDC record holds no CC state: the fixed window's 4 bytes
 * take a 4-byte entry of the CC table.
 */
static void
uet_pds_pdc_bytes__counts_every_per_id_array(void **state)
{
	struct uet_pds *p = mk(0, 0, 60000);
	size_t ids, per_id;

	(void)state;
	assert_non_null(p);
	assert_int_equal(sizeof(struct pds_pdc), 224);
	assert_int_equal(p->cc_stride, 4);
	assert_int_equal(sizeof(struct pds_tnode), 16);
	assert_int_equal(sizeof(struct pds_tomb), 16);
	ids = 2 * (size_t)p->cap;
	per_id = sizeof(struct pds_pdc) + p->cc_stride +
		 sizeof(struct uet_cms_lb) + sizeof(struct pds_tnode) +
		 sizeof(uint32_t); /* id pool */
	assert_int_equal(uet_pds_pdc_bytes(p),
			 (ids * per_id + tables_bytes(p)) / ids);
	/* 60 000 ids per role: 224 + 4 + 28 + 16 + 4 + 8.7 + 17.5 + 7.1 */
	assert_int_equal(uet_pds_pdc_bytes(p), 309);
	uet_pds_free(p);
}

/*
 * Closed-target records keep {FA, spdcid} as a tag: a record matches only
 * its own FA, spdcid and Start_PSN; a bucket's oldest record goes first;
 * the insertion counter never hands out 0, which marks a free record.
 */
static void
pds_tomb__matches_its_own_incarnation_only(void **state)
{
	struct uet_pds *p = mk(0, 0, 100);
	struct uet_pds_fa a = { { 10, 0, 0, 1 } }, b = { { 10, 0, 0, 2 } };
	uint32_t k;

	(void)state;
	assert_non_null(p);
	pds_tomb_add(p, &a, 5, 1000);
	assert_non_null(pds_tomb_find(p, &a, 5, 1000));
	assert_null(pds_tomb_find(p, &b, 5, 1000));   /* another FA */
	assert_null(pds_tomb_find(p, &a, 6, 1000));   /* another id */
	assert_null(pds_tomb_find(p, &a, 5, 1001));   /* another Start_PSN */
	/* Added again: in place, nothing evicted. */
	pds_tomb_add(p, &a, 5, 1000);
	assert_int_equal(p->st.tomb_evict, 0);
	/* Five incarnations of one pair in its bucket of four: the first
	 * is evicted, the last four stay. */
	for (k = 1; k <= 4; k++)
		pds_tomb_add(p, &a, 5, 1000 + k * 65536);
	assert_int_equal(p->st.tomb_evict, 1);
	assert_null(pds_tomb_find(p, &a, 5, 1000));
	for (k = 1; k <= 4; k++)
		assert_non_null(pds_tomb_find(p, &a, 5, 1000 + k * 65536));
	/* The counter wraps past 0, which marks a free record: the record
	 * added then takes 1 and is found. */
	p->tomb_seq = UINT32_MAX;
	pds_tomb_add(p, &b, 7, 42);
	assert_int_equal(pds_tomb_find(p, &b, 7, 42)->seq, 1);
	uet_pds_free(p);
}

/* A CC with more per-PDC state, and an instance sized by the PDCs, is
 * counted too: NSCC's 32 bytes and its contexts, one per PDC id when
 * max_contexts is 0. */
static void
uet_pds_pdc_bytes__counts_the_cc(void **state)
{
	struct uet_pds_cc_cms_config a;
	struct uet_pds_config cfg;
	struct uet_pds *fixed = mk(0, 0, 1000), *cms;

	(void)state;
	uet_pds_config_default(&cfg);
	cfg.max_pdcs = 1000;
	cfg.max_rsv_pdcs = 4;
	assert_int_equal(uet_pds_cc_cms_config_default(&a, true, false,
						       100000, 12000, 4096,
						       true), 0);
	cfg.cc = &uet_pds_cc_cms;
	cfg.cc_arg = &a;
	cms = uet_pds_create(&cfg);
	assert_non_null(fixed);
	assert_non_null(cms);
	assert_int_equal(cms->cc_stride, UET_PDS_CC_PRIV_MAX);
	assert_true(uet_pds_pdc_bytes(cms) >= uet_pds_pdc_bytes(fixed) +
		    UET_PDS_CC_PRIV_MAX - 8 + sizeof(struct uet_nscc));
	uet_pds_free(fixed);
	uet_pds_free(cms);
}

/*
 * The receive prefetch is a hint: whatever header it is given (a request
 * or an ACK naming a live PDC, a foreign or out-of-range id, a SYN, every
 * other type), it changes no PDC record and no counter. It runs only
 * with PDS_PREFETCH_PDCS records in use, which alloc and free count.
 */
static void
uet_pds_rx_prefetch__any_header_changes_nothing(void **state)
{
	struct uet_pds *p = mk(5, 3, PDS_PREFETCH_PDCS + 4);
	struct uet_wire_pds_hdr h;
	struct uet_pds_stats st;
	struct pds_pdc *c = NULL, *d, rec;
	const uint16_t lids[] = { 0, 0x2000, 0xFFFF, 99, 600 };
	const size_t nlids = sizeof(lids) / sizeof(lids[0]);

	(void)state;
	assert_non_null(p);
	for (uint32_t i = 0; i < PDS_PREFETCH_PDCS; i++) {
		c = pds_pdc_alloc(p, PDS_ROLE_TGT, false, 0);
		assert_non_null(c);
		c->state = PDC_OPEN;
	}
	assert_int_equal(p->pdcs_open, PDS_PREFETCH_PDCS);
	d = pds_pdc_alloc(p, PDS_ROLE_INIT, false, 0);
	assert_non_null(d);
	assert_int_equal(p->pdcs_open, PDS_PREFETCH_PDCS + 1);
	pds_pdc_free(p, d);
	assert_int_equal(p->pdcs_open, PDS_PREFETCH_PDCS);
	rec = *c;
	st = p->st;
	for (unsigned int type = 0; type < 16; type++) {
		for (unsigned int f = 0; f < 2; f++) {
			for (size_t i = 0; i <= nlids; i++) {
				uint16_t lid = i < nlids ? lids[i] : c->lid;

				memset(&h, 0, sizeof(h));
				h.type = (uint8_t)type;
				h.flags = f ? UET_PDS_F_SYN : 0;
				h.u.req.dpdcid = lid;
				uet_pds_rx_prefetch(p, &h);
				memset(&h, 0, sizeof(h));
				h.type = (uint8_t)type;
				h.u.ack.dpdcid = lid;
				uet_pds_rx_prefetch(p, &h);
				h.type = UET_PDS_TYPE_NACK;
				h.u.nack.dpdcid = lid;
				uet_pds_rx_prefetch(p, &h);
			}
		}
	}
	assert_memory_equal(c, &rec, sizeof(rec));
	assert_memory_equal(&p->st, &st, sizeof(st));
	assert_ptr_equal(pds_pdc_by_lid(p, PDS_ROLE_TGT, c->lid), c);
	uet_pds_free(p);
}

/* A CC that asks for more private state than a PDC offers is refused. */
static void
uet_pds_create__cc_priv_size_too_large(void **state)
{
	struct uet_pds_cc_ops big = uet_pds_cc_fixed;
	struct uet_pds_config cfg;

	(void)state;
	uet_pds_config_default(&cfg);
	big.priv_size = UET_PDS_CC_PRIV_MAX + 1;
	cfg.cc = &big;
	errno = 0;
	assert_null(uet_pds_create(&cfg));
	assert_int_equal(errno, EINVAL);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(pds_pdc_alloc__owner_bits_in_id),
		cmocka_unit_test(pds_pdc_alloc__general_then_reserved_exhaustion),
		cmocka_unit_test(pds_pdc_alloc__freed_id_comes_back_last),
		cmocka_unit_test(pds_ikey__add_find_delete_many),
		cmocka_unit_test(uet_pds_create__bad_config_and_large_scale),
		cmocka_unit_test(pds_tx_blk__pool_round_trip),
		cmocka_unit_test(uet_pds_pdc_bytes__counts_every_per_id_array),
		cmocka_unit_test(uet_pds_pdc_bytes__counts_the_cc),
		cmocka_unit_test(pds_tomb__matches_its_own_incarnation_only),
		cmocka_unit_test(uet_pds_create__cc_priv_size_too_large),
		cmocka_unit_test(uet_pds_rx_prefetch__any_header_changes_nothing),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
