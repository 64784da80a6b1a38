/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of keys, RI tables, resolution and profiles (src/ses/mr.c,
 * mr_entry.c, mr_hash.c, mr_resolve.c, profile.c). Each return code of
 * uet_ses_resolve() has its own test named after it.
 */

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <uet/uet_ses_mr.h>

#define JOB 0x123456u
#define PID 0x42u
#define RI_IDX 7u
#define VENDOR 0xA5u
#define REGION_LEN 4096u

static uint64_t seed = 0x5eed5eedULL;

struct fx {
	struct uet_ses_mr_table *t;
	int ri;         /* relative RMA RI */
	int ri_msg;     /* relative MSG RI, index RI_IDX + 1 */
	uint64_t key;   /* all remote access, idempotent */
	uint64_t key_w; /* remote write only, not idempotent */
	uint8_t mem[REGION_LEN];
};

static struct fx fx;

static int
setup(void **state)
{
	struct uet_ses_mr_table_attr ta = {
		.max_entries = 64, .max_ri = 8, .max_pids = 4, .max_auth = 8,
		.vendor = VENDOR,
	};
	struct uet_ses_ri_attr ra = {
		.relative = true, .job_id = JOB, .pid_on_fep = PID,
		.resource_index = RI_IDX, .type = UET_SES_RI_RMA,
	};
	struct uet_ses_mr_attr ma = {
		.length = REGION_LEN, .idempotent = true,
		.access = UET_SES_MR_REMOTE_READ | UET_SES_MR_REMOTE_WRITE |
			  UET_SES_MR_REMOTE_ATOMIC,
	};

	memset(&fx, 0, sizeof(fx));
	fx.t = uet_ses_mr_table_create(&ta);
	assert_non_null(fx.t);
	assert_int_equal(uet_ses_mr_pid_add(fx.t, PID), 0);
	assert_int_equal(uet_ses_mr_auth_add(fx.t, JOB, PID), 0);
	fx.ri = uet_ses_ri_add(fx.t, &ra);
	assert_true(fx.ri >= 0);
	ra.resource_index = RI_IDX + 1;
	ra.type = UET_SES_RI_MSG;
	fx.ri_msg = uet_ses_ri_add(fx.t, &ra);
	assert_true(fx.ri_msg >= 0);
	ma.ri = fx.ri;
	ma.base = (uintptr_t)fx.mem;
	assert_int_equal(uet_ses_mr_reg(fx.t, &ma, &fx.key), 0);
	ma.access = UET_SES_MR_REMOTE_WRITE;
	ma.idempotent = false;
	assert_int_equal(uet_ses_mr_reg(fx.t, &ma, &fx.key_w), 0);
	*state = &fx;
	return 0;
}

static int
teardown(void **state)
{
	(void)state;
	uet_ses_mr_table_free(fx.t);
	return 0;
}

/* A WRITE of 8 bytes at offset 16 through fx.key: resolves OK. */
static struct uet_ses_resolve_req
good_req(void)
{
	const struct uet_ses_mr_entry *e = uet_ses_mr_lookup(fx.t, fx.key);
	struct uet_ses_resolve_req r = {
		.relative = true, .job_id = JOB, .pid_on_fep = PID,
		.resource_index = RI_IDX, .mkey = fx.key,
		.opcode = UET_SES_OP_WRITE, .offset = 16, .length = 8,
	};

	assert_non_null(e);
	r.ri_generation = e->generation;
	return r;
}

static enum uet_wire_ses_rc
resolve(const struct uet_ses_resolve_req *r)
{
	struct uet_ses_resolved out;

	return uet_ses_resolve(fx.t, r, &out);
}

#define EXPECT_RC(req, rc) do {						\
	enum uet_wire_ses_rc got_ = resolve(&(req));				\
	if (got_ != (rc))						\
		fail_msg("rc %s, want %s", uet_wire_ses_rc_name(got_),	\
			 uet_wire_ses_rc_name(rc));				\
} while (0)

/* ---------------------------------------------------------------- */
/* Keys                                                              */
/* ---------------------------------------------------------------- */

static void
mkey__round_trip(void **state)
{
	struct uet_ses_mkey k = { true, false, 0x5A, 0xABCDEF012345ULL }, d;
	uint64_t key;

	(void)state;
	assert_int_equal(uet_ses_mkey_encode(&k, &key), 0);
	assert_true(key == (UET_MKEY_I | 0x005AABCDEF012345ULL));
	assert_int_equal(uet_ses_mkey_decode(key, &d), 0);
	assert_true(d.idempotent && !d.optimized && d.vendor == 0x5A &&
		    d.rkey == k.rkey);
	k = (struct uet_ses_mkey){ false, true, 1, 0xFFF };
	assert_int_equal(uet_ses_mkey_encode(&k, &key), 0);
	assert_int_equal(uet_ses_mkey_decode(key, &d), 0);
	assert_true(d.optimized && !d.idempotent && d.rkey == 0xFFF);
	/* too wide */
	k.rkey = 0x1000;
	assert_int_equal(uet_ses_mkey_encode(&k, &key), -EINVAL);
	k = (struct uet_ses_mkey){ false, false, 0, 1ULL << 48 };
	assert_int_equal(uet_ses_mkey_encode(&k, &key), -EINVAL);
	/* reserved bits */
	assert_int_equal(uet_ses_mkey_decode(1ULL << 56, &d), -EINVAL);
	assert_int_equal(uet_ses_mkey_decode(UET_MKEY_O | 0x1000, &d),
			 -EINVAL);
	assert_true(uet_ses_mkey_valid(0x1000));
	assert_false(uet_ses_mkey_valid(1ULL << 61));
}

static void
mkey__provider_keys_unique_and_generation(void **state)
{
	struct uet_ses_mr_attr ma = {
		.ri = fx.ri, .base = (uintptr_t)fx.mem, .length = 8,
		.access = UET_SES_MR_REMOTE_WRITE,
	};
	uint64_t keys[62], old;
	struct uet_ses_mkey d;
	int64_t slot;
	uint8_t gen;

	(void)state;
	for (int i = 0; i < 62; i++) {
		assert_int_equal(uet_ses_mr_reg(fx.t, &ma, &keys[i]), 0);
		assert_int_equal(uet_ses_mkey_decode(keys[i], &d), 0);
		assert_int_equal(d.vendor, VENDOR);
		for (int j = 0; j < i; j++)
			assert_true(keys[i] != keys[j]);
	}
	/* table full */
	assert_int_equal(uet_ses_mr_reg(fx.t, &ma, &old), -ENOSPC);
	/* dereg bumps the slot generation; the old key is dead */
	old = keys[0];
	gen = uet_ses_mr_lookup(fx.t, old)->generation;
	slot = uet_ses_mr_index(fx.t, old);
	assert_true(slot >= 0);
	assert_int_equal(uet_ses_mr_dereg(fx.t, old), 0);
	assert_null(uet_ses_mr_lookup(fx.t, old));
	assert_int_equal(uet_ses_mr_index(fx.t, old), -1);
	assert_int_equal(uet_ses_mr_dereg(fx.t, old), -ENOENT);
	assert_int_equal(uet_ses_mr_reg(fx.t, &ma, &keys[0]), 0);
	assert_true(keys[0] != old);
	assert_int_equal(uet_ses_mr_index(fx.t, keys[0]), slot); /* reused */
	assert_int_equal(uet_ses_mr_lookup(fx.t, keys[0])->generation,
			 (uint8_t)(gen + 1));
}

/* 40 random bits (getrandom): over 62 keys every one of them varies;
 * the generation byte is the slot's, the same for every fresh slot. */
static void
mkey__random_bits_cover_rkey(void **state)
{
	struct uet_ses_mr_attr ma = {
		.ri = fx.ri, .base = (uintptr_t)fx.mem, .length = 8,
		.access = UET_SES_MR_REMOTE_READ,
	};
	const uint64_t rnd = UET_MKEY_RKEY_MASK & ~(UINT64_C(0xFF) << 16);
	uint64_t keys[62], diff = 0;

	(void)state;
	for (int i = 0; i < 62; i++) {
		assert_int_equal(uet_ses_mr_reg(fx.t, &ma, &keys[i]), 0);
		diff |= keys[i] ^ keys[0];
	}
	assert_int_equal(diff & rnd, rnd);
	assert_int_equal(diff & ~rnd, 0);
}

/* A table with opaque_errors: whatever fails once the key matched
 * answers BAD_MKEY, as a wrong key does; a right request resolves. */
static void
resolve__opaque_errors_no_oracle(void **state)
{
	struct uet_ses_ri_attr ra = {
		.relative = true, .job_id = JOB, .pid_on_fep = PID,
		.resource_index = RI_IDX + 2, .type = UET_SES_RI_RMA,
		.opaque_errors = true,
	};
	struct uet_ses_mr_attr ma = {
		.base = (uintptr_t)fx.mem, .length = REGION_LEN,
		.access = UET_SES_MR_REMOTE_READ,
	};
	struct uet_ses_resolve_req r;
	uint64_t key;

	(void)state;
	ma.ri = uet_ses_ri_add(fx.t, &ra);
	assert_true(ma.ri >= 0);
	assert_int_equal(uet_ses_mr_reg(fx.t, &ma, &key), 0);
	memset(&r, 0, sizeof(r));
	r.relative = true;
	r.job_id = JOB;
	r.pid_on_fep = PID;
	r.resource_index = RI_IDX + 2;
	r.mkey = key;
	r.ri_generation = uet_ses_mr_lookup(fx.t, key)->generation;
	r.opcode = UET_SES_OP_READ;
	r.offset = 16;
	r.length = 8;
	EXPECT_RC(r, UET_RC_OK);
	r.mkey = key ^ (UINT64_C(1) << 40);
	EXPECT_RC(r, UET_RC_BAD_MKEY);
	r.mkey = key;
	r.offset = REGION_LEN; /* BAD_ADDR elsewhere */
	EXPECT_RC(r, UET_RC_BAD_MKEY);
	r.offset = REGION_LEN - 1; /* TOO_LONG elsewhere */
	EXPECT_RC(r, UET_RC_BAD_MKEY);
	r.offset = 16;
	r.opcode = UET_SES_OP_WRITE; /* PERM_VIOLATION elsewhere */
	EXPECT_RC(r, UET_RC_BAD_MKEY);
	r.opcode = UET_SES_OP_READ;
	r.ri_generation++; /* BAD_GENERATION elsewhere */
	EXPECT_RC(r, UET_RC_BAD_MKEY);
	r.ri_generation--;
	assert_int_equal(uet_ses_mr_enable(fx.t, key, false), 0);
	EXPECT_RC(r, UET_RC_BAD_MKEY); /* DISABLED_GEN elsewhere */
	assert_int_equal(uet_ses_mr_enable(fx.t, key, true), 0);
	EXPECT_RC(r, UET_RC_OK);
	assert_int_equal(uet_ses_mr_dereg(fx.t, key), 0);
}

static void
table__create_args_and_capacity(void **state)
{
	struct uet_ses_mr_table_attr ta = { .max_entries = 0, .max_ri = 1,
					    .max_pids = 1, .max_auth = 1 };
	struct uet_ses_ri_attr ra = { .relative = false, .pid_on_fep = PID,
				      .resource_index = 1 };
	struct uet_ses_mr_table *t;

	(void)state;
	errno = 0;
	assert_null(uet_ses_mr_table_create(&ta));
	assert_int_equal(errno, EINVAL);
	ta.max_entries = UET_SES_MR_MAX_ENTRIES + 1;
	assert_null(uet_ses_mr_table_create(&ta));
	assert_null(uet_ses_mr_table_create(NULL));
	uet_ses_mr_table_free(NULL);
	ta.max_entries = 1;
	t = uet_ses_mr_table_create(&ta);
	assert_non_null(t);
	assert_int_equal(uet_ses_mr_pid_add(t, 0x1000), -EINVAL);
	assert_int_equal(uet_ses_mr_pid_add(t, 1), 0);
	assert_int_equal(uet_ses_mr_pid_add(t, 1), -EEXIST);
	assert_int_equal(uet_ses_mr_pid_add(t, 2), -ENOSPC);
	assert_int_equal(uet_ses_mr_auth_add(t, 0x1000000, 1), -EINVAL);
	assert_int_equal(uet_ses_mr_auth_add(t, 5, 1), 0);
	assert_int_equal(uet_ses_mr_auth_add(t, 5, 1), -EEXIST);
	assert_int_equal(uet_ses_mr_auth_add(t, 6, 1), -ENOSPC);
	assert_int_equal(uet_ses_mr_auth_del(t, 6, 1), -ENOENT);
	assert_int_equal(uet_ses_ri_add(t, &ra), 0);
	assert_int_equal(uet_ses_ri_add(t, &ra), -EEXIST);
	ra.resource_index = 2;
	assert_int_equal(uet_ses_ri_add(t, &ra), -ENOSPC);
	ra.resource_index = 0x1000;
	assert_int_equal(uet_ses_ri_add(t, &ra), -EINVAL);
	assert_int_equal(uet_ses_ri_del(t, 5), -ENOENT);
	assert_int_equal(uet_ses_ri_del(t, 0), 0);
	assert_int_equal(uet_ses_mr_pid_del(t, 1), 0);
	assert_int_equal(uet_ses_mr_pid_del(t, 1), -ENOENT);
	uet_ses_mr_table_free(t);
}

static void
reg__rejects_bad_attrs(void **state)
{
	struct uet_ses_mr_attr ma = {
		.ri = fx.ri, .base = UINTPTR_MAX - 10, .length = 11,
		.access = UET_SES_MR_REMOTE_READ,
	};
	uint64_t k;

	(void)state;
	assert_int_equal(uet_ses_mr_reg(fx.t, &ma, &k), -EINVAL); /* wraps */
	ma.length = 10;
	assert_int_equal(uet_ses_mr_reg(fx.t, &ma, &k), 0);
	ma.access = 0x80;
	assert_int_equal(uet_ses_mr_reg(fx.t, &ma, &k), -EINVAL);
	ma.access = UET_SES_MR_REMOTE_READ;
	ma.ri = fx.ri_msg; /* not an RMA table */
	assert_int_equal(uet_ses_mr_reg(fx.t, &ma, &k), -EINVAL);
	ma.ri = 99;
	assert_int_equal(uet_ses_mr_reg(fx.t, &ma, &k), -EINVAL);
	ma.ri = fx.ri;
	ma.optimized = true;
	ma.opt_index = 0x1000;
	assert_int_equal(uet_ses_mr_reg(fx.t, &ma, &k), -EINVAL);
	ma.opt_index = 3;
	assert_int_equal(uet_ses_mr_reg(fx.t, &ma, &k), 0);
	assert_int_equal(uet_ses_mr_reg(fx.t, &ma, &k), -EEXIST);
	/* an RI table with entries cannot go */
	assert_int_equal(uet_ses_ri_del(fx.t, fx.ri), -EBUSY);
}

/* ---------------------------------------------------------------- */
/* Resolution: one test per return code                              */
/* ---------------------------------------------------------------- */

static void
resolve__ok_relative(void **state)
{
	struct uet_ses_resolve_req r = good_req();
	struct uet_ses_resolved out;

	(void)state;
	assert_int_equal(uet_ses_resolve(fx.t, &r, &out), UET_RC_OK);
	assert_ptr_equal(out.addr, fx.mem + 16);
	assert_int_equal(out.entry->key, fx.key);
	assert_int_equal(out.ri, fx.ri);
	/* each opcode with full access */
	r.opcode = UET_SES_OP_READ;
	EXPECT_RC(r, UET_RC_OK);
	r.opcode = UET_SES_OP_ATOMIC;
	EXPECT_RC(r, UET_RC_OK);
	r.opcode = UET_SES_OP_FETCHING_ATOMIC;
	EXPECT_RC(r, UET_RC_OK);
	/* whole region; empty access at its end */
	r.offset = 0;
	r.length = REGION_LEN;
	EXPECT_RC(r, UET_RC_OK);
	r.offset = REGION_LEN;
	r.length = 0;
	EXPECT_RC(r, UET_RC_OK);
}

/* An alias {job, PID2, RI 9} of the RMA table resolves to the same
 * entries (once PID2 and the job for it are authorised); the table cannot
 * go while aliased; a deleted alias no longer resolves. */
static void
resolve__ri_alias(void **state)
{
	struct uet_ses_resolve_req r = good_req();
	struct uet_ses_resolved out;

	(void)state;
	assert_int_equal(uet_ses_ri_alias_add(fx.t, fx.ri, PID + 1, 9), 0);
	assert_int_equal(uet_ses_ri_alias_add(fx.t, fx.ri, PID + 1, 9),
			 -EEXIST);
	assert_int_equal(uet_ses_ri_alias_add(fx.t, fx.ri, PID, RI_IDX),
			 -EEXIST);
	assert_int_equal(uet_ses_ri_alias_add(fx.t, 99, PID + 1, 9), -ENOENT);
	assert_int_equal(uet_ses_ri_alias_add(fx.t, fx.ri, 0x1000, 9),
			 -EINVAL);
	r.pid_on_fep = PID + 1;
	r.resource_index = 9;
	EXPECT_RC(r, UET_RC_BAD_PID);
	assert_int_equal(uet_ses_mr_pid_add(fx.t, PID + 1), 0);
	EXPECT_RC(r, UET_RC_BAD_JOB_ID);
	assert_int_equal(uet_ses_mr_auth_add(fx.t, JOB, PID + 1), 0);
	assert_int_equal(uet_ses_resolve(fx.t, &r, &out), UET_RC_OK);
	assert_ptr_equal(out.addr, fx.mem + 16);
	assert_int_equal(out.ri, fx.ri);
	/* another job on the alias name is not the table's */
	r.job_id = JOB + 1;
	EXPECT_RC(r, UET_RC_BAD_JOB_ID);
	r.job_id = JOB;
	assert_int_equal(uet_ses_mr_dereg(fx.t, fx.key), 0);
	assert_int_equal(uet_ses_mr_dereg(fx.t, fx.key_w), 0);
	assert_int_equal(uet_ses_ri_del(fx.t, fx.ri), -EBUSY);
	assert_int_equal(uet_ses_ri_alias_del(fx.t, fx.ri, PID, RI_IDX),
			 -ENOENT);
	assert_int_equal(uet_ses_ri_alias_del(fx.t, fx.ri, PID + 1, 9), 0);
	assert_int_equal(uet_ses_ri_alias_del(fx.t, fx.ri, PID + 1, 9),
			 -ENOENT);
	EXPECT_RC(r, UET_RC_BAD_INDEX);
	assert_int_equal(uet_ses_ri_del(fx.t, fx.ri), 0);
}

static void
resolve__ok_absolute_job_only_authorises(void **state)
{
	struct uet_ses_ri_attr ra = { .relative = false, .pid_on_fep = PID,
				      .resource_index = 3,
				      .type = UET_SES_RI_RMA };
	struct uet_ses_mr_attr ma = { .base = (uintptr_t)fx.mem, .length = 64,
				      .access = UET_SES_MR_REMOTE_READ };
	struct uet_ses_resolve_req r;
	uint64_t k;

	(void)state;
	ma.ri = uet_ses_ri_add(fx.t, &ra);
	assert_true(ma.ri >= 0);
	assert_int_equal(uet_ses_mr_reg(fx.t, &ma, &k), 0);
	assert_int_equal(uet_ses_mr_auth_add(fx.t, 77, PID), 0);
	r = (struct uet_ses_resolve_req){ .relative = false, .job_id = 77,
		.pid_on_fep = PID, .resource_index = 3, .mkey = k,
		.opcode = UET_SES_OP_READ, .length = 64,
		.ri_generation = uet_ses_mr_lookup(fx.t, k)->generation };
	EXPECT_RC(r, UET_RC_OK);
	r.job_id = JOB; /* any authorised job reaches the global table */
	EXPECT_RC(r, UET_RC_OK);
	/* the relative table of RI 3 does not exist */
	r.relative = true;
	EXPECT_RC(r, UET_RC_BAD_INDEX);
}

static void
resolve__bad_pid(void **state)
{
	struct uet_ses_resolve_req r = good_req();

	(void)state;
	r.pid_on_fep = PID + 1;
	EXPECT_RC(r, UET_RC_BAD_PID);
}

static void
resolve__bad_job_id(void **state)
{
	struct uet_ses_resolve_req r = good_req();

	(void)state;
	r.job_id = JOB + 1;
	EXPECT_RC(r, UET_RC_BAD_JOB_ID);
	r.job_id = 0x1000000; /* wider than 24 bits */
	EXPECT_RC(r, UET_RC_BAD_JOB_ID);
	/* withdrawn authorization */
	r.job_id = JOB;
	assert_int_equal(uet_ses_mr_auth_del(fx.t, JOB, PID), 0);
	EXPECT_RC(r, UET_RC_BAD_JOB_ID);
}

static void
resolve__bad_index(void **state)
{
	struct uet_ses_resolve_req r = good_req();

	(void)state;
	r.resource_index = RI_IDX + 2;
	EXPECT_RC(r, UET_RC_BAD_INDEX);
	r.resource_index = 0xFFFF;
	EXPECT_RC(r, UET_RC_BAD_INDEX);
	/* another authorised job has no relative table of its own */
	assert_int_equal(uet_ses_mr_auth_add(fx.t, 9, PID), 0);
	r = good_req();
	r.job_id = 9;
	EXPECT_RC(r, UET_RC_BAD_INDEX);
}

static void
resolve__disabled(void **state)
{
	struct uet_ses_resolve_req r = good_req();

	(void)state;
	assert_int_equal(uet_ses_ri_enable(fx.t, fx.ri, false), 0);
	EXPECT_RC(r, UET_RC_DISABLED);
	assert_int_equal(uet_ses_ri_enable(fx.t, fx.ri, true), 0);
	EXPECT_RC(r, UET_RC_OK);
	assert_int_equal(uet_ses_ri_enable(fx.t, 99, true), -ENOENT);
}

static void
resolve__disabled_gen(void **state)
{
	struct uet_ses_resolve_req r = good_req();

	(void)state;
	assert_int_equal(uet_ses_mr_enable(fx.t, fx.key, false), 0);
	EXPECT_RC(r, UET_RC_DISABLED_GEN);
	assert_int_equal(uet_ses_mr_enable(fx.t, fx.key, true), 0);
	EXPECT_RC(r, UET_RC_OK);
	assert_int_equal(uet_ses_mr_enable(fx.t, fx.key ^ 1, true), -ENOENT);
}

static void
resolve__bad_generation(void **state)
{
	struct uet_ses_resolve_req r = good_req();

	(void)state;
	r.ri_generation++;
	EXPECT_RC(r, UET_RC_BAD_GENERATION);
}

static void
resolve__bad_mkey(void **state)
{
	struct uet_ses_resolve_req r = good_req();
	struct uet_ses_ri_attr ra = { .relative = true, .job_id = JOB,
				      .pid_on_fep = PID,
				      .resource_index = RI_IDX + 2,
				      .type = UET_SES_RI_RMA };
	struct uet_ses_mr_attr ma = { .base = (uintptr_t)fx.mem, .length = 64,
				      .access = UET_SES_MR_REMOTE_WRITE,
				      .idempotent = true };
	uint64_t old = fx.key, other;

	(void)state;
	r.mkey = fx.key ^ (1ULL << 40); /* random part */
	EXPECT_RC(r, UET_RC_BAD_MKEY);
	r.mkey = fx.key | (1ULL << 57); /* reserved bit */
	EXPECT_RC(r, UET_RC_BAD_MKEY);
	r.mkey = fx.key ^ UET_MKEY_I; /* I bit is part of the key */
	EXPECT_RC(r, UET_RC_BAD_MKEY);
	r.mkey = fx.key ^ (1ULL << 48); /* vendor */
	EXPECT_RC(r, UET_RC_BAD_MKEY);
	r.mkey = (fx.key & ~0xFFFFULL) | 63; /* free slot */
	EXPECT_RC(r, UET_RC_BAD_MKEY);
	r.mkey = (fx.key & ~0xFFFFULL) | 0xFFFF; /* beyond the table */
	EXPECT_RC(r, UET_RC_BAD_MKEY);
	r.mkey = UET_MKEY_O | ((uint64_t)VENDOR << 48) | 5; /* no such index */
	EXPECT_RC(r, UET_RC_BAD_MKEY);
	/* a live key of another RI table of the same process */
	ma.ri = uet_ses_ri_add(fx.t, &ra);
	assert_true(ma.ri >= 0);
	assert_int_equal(uet_ses_mr_reg(fx.t, &ma, &other), 0);
	r = good_req();
	r.mkey = other;
	r.ri_generation = uet_ses_mr_lookup(fx.t, other)->generation;
	EXPECT_RC(r, UET_RC_BAD_MKEY);
	r.resource_index = RI_IDX + 2;
	EXPECT_RC(r, UET_RC_OK);
	r = good_req();
	assert_int_equal(uet_ses_mr_dereg(fx.t, old), 0);
	/* deregistered: the old key is gone */
	EXPECT_RC(r, UET_RC_BAD_MKEY);
}

static void
resolve__perm_violation(void **state)
{
	struct uet_ses_resolve_req r = good_req();

	(void)state;
	r.mkey = fx.key_w;
	r.ri_generation = uet_ses_mr_lookup(fx.t, fx.key_w)->generation;
	EXPECT_RC(r, UET_RC_OK);
	r.opcode = UET_SES_OP_READ;
	EXPECT_RC(r, UET_RC_PERM_VIOLATION);
	r.opcode = UET_SES_OP_ATOMIC;
	EXPECT_RC(r, UET_RC_PERM_VIOLATION);
	r.opcode = UET_SES_OP_FETCHING_ATOMIC;
	EXPECT_RC(r, UET_RC_PERM_VIOLATION);
}

static void
resolve__perm_fetching_atomic_needs_read(void **state)
{
	struct uet_ses_mr_attr ma = { .ri = fx.ri, .base = (uintptr_t)fx.mem,
				      .length = 64,
				      .access = UET_SES_MR_REMOTE_ATOMIC };
	struct uet_ses_resolve_req r = good_req();

	(void)state;
	assert_int_equal(uet_ses_mr_reg(fx.t, &ma, &r.mkey), 0);
	r.ri_generation = uet_ses_mr_lookup(fx.t, r.mkey)->generation;
	r.opcode = UET_SES_OP_ATOMIC;
	EXPECT_RC(r, UET_RC_OK);
	r.opcode = UET_SES_OP_FETCHING_ATOMIC;
	EXPECT_RC(r, UET_RC_PERM_VIOLATION);
	r.opcode = UET_SES_OP_WRITE;
	EXPECT_RC(r, UET_RC_PERM_VIOLATION);
}

static void
resolve__op_violation(void **state)
{
	struct uet_ses_resolve_req r = good_req();

	(void)state;
	/* send to an RMA table, WRITE to a MSG table */
	r.opcode = UET_SES_OP_SEND;
	EXPECT_RC(r, UET_RC_OP_VIOLATION);
	r = good_req();
	r.resource_index = RI_IDX + 1;
	EXPECT_RC(r, UET_RC_OP_VIOLATION);
	/* RUDI: WRITE on an I=1 key fine; atomics and I=0 keys not */
	r = good_req();
	r.is_rudi = true;
	EXPECT_RC(r, UET_RC_OK);
	r.opcode = UET_SES_OP_ATOMIC;
	EXPECT_RC(r, UET_RC_OP_VIOLATION);
	r.opcode = UET_SES_OP_WRITE;
	r.mkey = fx.key_w;
	r.ri_generation = uet_ses_mr_lookup(fx.t, fx.key_w)->generation;
	EXPECT_RC(r, UET_RC_OP_VIOLATION);
	r.is_rudi = false;
	EXPECT_RC(r, UET_RC_OK);
}

static void
resolve__unsupported_op(void **state)
{
	struct uet_ses_resolve_req r = good_req();

	(void)state;
	r.opcode = UET_SES_OP_NO_OP;
	EXPECT_RC(r, UET_RC_UNSUPPORTED_OP);
	r.opcode = UET_SES_OP_MSG_ERROR;
	EXPECT_RC(r, UET_RC_UNSUPPORTED_OP);
	r.opcode = 0x10;
	EXPECT_RC(r, UET_RC_UNSUPPORTED_OP);
}

static void
resolve__msg_table_generation(void **state)
{
	struct uet_ses_resolve_req r = good_req();
	struct uet_ses_resolved out;
	uint8_t g;

	(void)state;
	r.resource_index = RI_IDX + 1;
	r.opcode = UET_SES_OP_TAGGED_SEND;
	assert_int_equal(uet_ses_ri_generation(fx.t, fx.ri_msg, &g), 0);
	r.ri_generation = g;
	assert_int_equal(uet_ses_resolve(fx.t, &r, &out), UET_RC_OK);
	assert_null(out.addr);
	assert_null(out.entry);
	assert_int_equal(out.ri, fx.ri_msg);
	r.ri_generation = (uint8_t)(g + 1);
	EXPECT_RC(r, UET_RC_BAD_GENERATION);
	/* re-created table: new generation, the old one fails */
	{
		struct uet_ses_ri_attr ra = { .relative = true, .job_id = JOB,
			.pid_on_fep = PID, .resource_index = RI_IDX + 1,
			.type = UET_SES_RI_MSG };
		int ri;

		assert_int_equal(uet_ses_ri_del(fx.t, fx.ri_msg), 0);
		EXPECT_RC(r, UET_RC_BAD_INDEX);
		ri = uet_ses_ri_add(fx.t, &ra);
		assert_int_equal(ri, fx.ri_msg);
		r.ri_generation = g;
		EXPECT_RC(r, UET_RC_BAD_GENERATION);
	}
}

/* The last resolution is remembered (mr_ri_memo) only while the tables
 * are unchanged, and only for the very same {REL, JobID, PIDonFEP, RI}. */
static void
resolve__memo_follows_the_tables(void **state)
{
	struct uet_ses_resolve_req r = good_req();
	uint8_t g;

	(void)state;
	r.resource_index = RI_IDX + 1;
	r.opcode = UET_SES_OP_SEND;
	assert_int_equal(uet_ses_ri_generation(fx.t, fx.ri_msg, &g), 0);
	r.ri_generation = g;
	EXPECT_RC(r, UET_RC_OK);
	EXPECT_RC(r, UET_RC_OK);
	/* the same request after each change of the tables */
	assert_int_equal(uet_ses_mr_auth_del(fx.t, JOB, PID), 0);
	EXPECT_RC(r, UET_RC_BAD_JOB_ID);
	assert_int_equal(uet_ses_mr_auth_add(fx.t, JOB, PID), 0);
	EXPECT_RC(r, UET_RC_OK);
	assert_int_equal(uet_ses_ri_enable(fx.t, fx.ri_msg, false), 0);
	EXPECT_RC(r, UET_RC_DISABLED);
	assert_int_equal(uet_ses_ri_enable(fx.t, fx.ri_msg, true), 0);
	EXPECT_RC(r, UET_RC_OK);
	/* requests that differ from the remembered one in one field */
	r.pid_on_fep = PID + 1;
	EXPECT_RC(r, UET_RC_BAD_PID);
	r.pid_on_fep = PID;
	EXPECT_RC(r, UET_RC_OK);
	r.job_id = JOB | 0x1000000; /* the same 24 bits, wider */
	EXPECT_RC(r, UET_RC_BAD_JOB_ID);
	r.job_id = JOB;
	EXPECT_RC(r, UET_RC_OK);
	r.resource_index = RI_IDX + 2;
	EXPECT_RC(r, UET_RC_BAD_INDEX);
	r.resource_index = RI_IDX + 1;
	EXPECT_RC(r, UET_RC_OK);
	r.relative = false; /* no absolute table at this index */
	EXPECT_RC(r, UET_RC_BAD_INDEX);
	r.relative = true;
	EXPECT_RC(r, UET_RC_OK);
	assert_int_equal(uet_ses_ri_del(fx.t, fx.ri_msg), 0);
	EXPECT_RC(r, UET_RC_BAD_INDEX);
}

/*
 * The remembered RI resolution never outlives a change that reuses what
 * it points at: a region closed and registered again (its entry slot
 * reused, a new key and generation), and an RI table deleted, its slot
 * taken by another table and the table re-created in another slot. The
 * same request is resolved while warm before and after each change.
 */
static void
resolve__memo_after_slot_reuse(void **state)
{
	struct uet_ses_resolve_req r = good_req();
	struct uet_ses_mr_attr ma = {
		.length = REGION_LEN, .base = (uintptr_t)fx.mem,
		.access = UET_SES_MR_REMOTE_WRITE, .idempotent = true,
	};
	struct uet_ses_ri_attr ra = {
		.relative = true, .job_id = JOB, .pid_on_fep = PID,
		.resource_index = RI_IDX + 3, .type = UET_SES_RI_RMA,
	};
	struct uet_ses_resolved out;
	uint64_t old = fx.key, k2, k3;
	int64_t slot = uet_ses_mr_index(fx.t, fx.key);
	int other, ri2;

	(void)state;
	EXPECT_RC(r, UET_RC_OK);
	EXPECT_RC(r, UET_RC_OK); /* from the memo */
	/* close + register again: the entry slot is reused */
	assert_int_equal(uet_ses_mr_dereg(fx.t, old), 0);
	ma.ri = fx.ri;
	assert_int_equal(uet_ses_mr_reg(fx.t, &ma, &k2), 0);
	assert_int_equal(uet_ses_mr_index(fx.t, k2), slot);
	assert_true(k2 != old);
	EXPECT_RC(r, UET_RC_BAD_MKEY); /* the old key, its generation */
	r.mkey = k2;
	r.ri_generation = uet_ses_mr_lookup(fx.t, k2)->generation;
	EXPECT_RC(r, UET_RC_OK);
	/* the RI table goes, another takes its slot, it comes back
	 * elsewhere: the request reaches the new table, never the slot */
	assert_int_equal(uet_ses_mr_dereg(fx.t, k2), 0);
	assert_int_equal(uet_ses_mr_dereg(fx.t, fx.key_w), 0);
	assert_int_equal(uet_ses_ri_del(fx.t, fx.ri), 0);
	EXPECT_RC(r, UET_RC_BAD_INDEX);
	other = uet_ses_ri_add(fx.t, &ra);
	assert_int_equal(other, fx.ri);
	ma.ri = other;
	assert_int_equal(uet_ses_mr_reg(fx.t, &ma, &k3), 0);
	ra.resource_index = RI_IDX;
	ri2 = uet_ses_ri_add(fx.t, &ra);
	assert_true(ri2 >= 0 && ri2 != fx.ri);
	/* another table's live key through this table's address: a memo
	 * still naming the old slot would accept it */
	r.mkey = k3;
	r.ri_generation = uet_ses_mr_lookup(fx.t, k3)->generation;
	EXPECT_RC(r, UET_RC_BAD_MKEY);
	ma.ri = ri2;
	assert_int_equal(uet_ses_mr_reg(fx.t, &ma, &k2), 0);
	r.mkey = k2;
	r.ri_generation = uet_ses_mr_lookup(fx.t, k2)->generation;
	assert_int_equal(uet_ses_resolve(fx.t, &r, &out), UET_RC_OK);
	assert_int_equal(out.ri, ri2);
	fx.key = fx.key_w = 0; /* gone: teardown frees the table */
}

/* generation_zero: the re-created MSG table answers generation 0 again */
static void
ri_add__generation_zero(void **state)
{
	struct uet_ses_resolve_req r = good_req();
	struct uet_ses_ri_attr ra = { .relative = true, .job_id = JOB,
		.pid_on_fep = PID, .resource_index = RI_IDX + 1,
		.type = UET_SES_RI_MSG, .generation_zero = true };
	struct uet_ses_resolved out;
	uint8_t g;
	int ri;

	(void)state;
	r.resource_index = RI_IDX + 1;
	r.opcode = UET_SES_OP_SEND;
	r.ri_generation = 0;
	assert_int_equal(uet_ses_ri_del(fx.t, fx.ri_msg), 0);
	ri = uet_ses_ri_add(fx.t, &ra);
	assert_int_equal(ri, fx.ri_msg); /* the same slot, reused */
	assert_int_equal(uet_ses_ri_generation(fx.t, ri, &g), 0);
	assert_int_equal(g, 0);
	assert_int_equal(uet_ses_resolve(fx.t, &r, &out), UET_RC_OK);
	assert_int_equal(out.ri, ri);
	r.ri_generation = 1;
	EXPECT_RC(r, UET_RC_BAD_GENERATION);
}

static void
resolve__bad_addr_and_too_long(void **state)
{
	struct uet_ses_resolve_req r = good_req();

	(void)state;
	r.offset = REGION_LEN;
	r.length = 1;
	EXPECT_RC(r, UET_RC_BAD_ADDR);
	r.offset = UINT64_MAX;
	EXPECT_RC(r, UET_RC_BAD_ADDR);
	r.offset = REGION_LEN + 1;
	r.length = 0;
	EXPECT_RC(r, UET_RC_BAD_ADDR);
	r.offset = REGION_LEN - 1;
	r.length = 2;
	EXPECT_RC(r, UET_RC_TOO_LONG);
	r.offset = 1;
	r.length = UINT64_MAX; /* offset + length wraps */
	EXPECT_RC(r, UET_RC_TOO_LONG);
	r.offset = 0;
	r.length = REGION_LEN + 1;
	EXPECT_RC(r, UET_RC_TOO_LONG);
}

/* Whatever the offset/length, an OK result lies inside the region. */
static void
resolve__never_outside_region(void **state)
{
	static const uint64_t edge[] = { 0, 1, REGION_LEN - 1, REGION_LEN,
		REGION_LEN + 1, UINT64_MAX, UINT64_MAX - 1,
		UINT64_MAX - REGION_LEN, 1ULL << 63, UINT32_MAX };
	struct uet_ses_resolve_req r = good_req();
	struct uet_ses_resolved out;
	uint64_t rng = seed;

	(void)state;
	for (int i = 0; i < 200000; i++) {
		rng ^= rng << 13;
		rng ^= rng >> 7;
		rng ^= rng << 17;
		r.offset = i % 3 == 0 ? edge[rng % 10] :
			   i % 3 == 1 ? rng % (2 * REGION_LEN) : rng;
		r.length = (rng >> 20) % 4 == 0 ? edge[(rng >> 8) % 10] :
			   (rng >> 24) % (2 * REGION_LEN);
		if (uet_ses_resolve(fx.t, &r, &out) != UET_RC_OK)
			continue;
		if ((uint8_t *)out.addr < fx.mem ||
		    (uint8_t *)out.addr > fx.mem + REGION_LEN ||
		    r.length > (uint64_t)(fx.mem + REGION_LEN -
					  (uint8_t *)out.addr))
			fail_msg("seed 0x%llx: off %llu len %llu escaped",
				 (unsigned long long)seed,
				 (unsigned long long)r.offset,
				 (unsigned long long)r.length);
	}
}

static void
resolve__optimized_key(void **state)
{
	struct uet_ses_mr_attr ma = { .ri = fx.ri, .base = (uintptr_t)fx.mem,
				      .length = 128, .optimized = true,
				      .opt_index = 0xABC, .idempotent = true,
				      .access = UET_SES_MR_REMOTE_READ };
	struct uet_ses_resolve_req r = good_req();
	uint64_t k;

	(void)state;
	assert_int_equal(uet_ses_mr_reg(fx.t, &ma, &k), 0);
	assert_true(k == (UET_MKEY_I | UET_MKEY_O |
			  ((uint64_t)VENDOR << 48) | 0xABC));
	r.mkey = k;
	r.opcode = UET_SES_OP_READ;
	r.ri_generation = uet_ses_mr_lookup(fx.t, k)->generation;
	EXPECT_RC(r, UET_RC_OK);
	r.mkey = k | (1ULL << 20); /* reserved bits of an optimized key */
	EXPECT_RC(r, UET_RC_BAD_MKEY);
	r.mkey = k & ~UET_MKEY_I; /* optimized key mismatch */
	EXPECT_RC(r, UET_RC_BAD_MKEY);
	r.mkey = k;
	assert_int_equal(uet_ses_mr_dereg(fx.t, k), 0);
	EXPECT_RC(r, UET_RC_BAD_MKEY);
	/* same index again: new generation; old generation refused */
	assert_int_equal(uet_ses_mr_reg(fx.t, &ma, &k), 0);
	EXPECT_RC(r, UET_RC_BAD_GENERATION);
}

/* ---------------------------------------------------------------- */
/* Profiles (UEC 1.0 profiles)                                  */
/* ---------------------------------------------------------------- */

static void
profile__table(void **state)
{
	/* Allowed per opcode: bit 0 AI Base, bit 1 AI Full, bit 2 HPC. */
	static const uint8_t want[16] = {
		[UET_SES_OP_NO_OP] = 7, [UET_SES_OP_WRITE] = 7,
		[UET_SES_OP_READ] = 6, [UET_SES_OP_ATOMIC] = 7,
		[UET_SES_OP_FETCHING_ATOMIC] = 6, [UET_SES_OP_SEND] = 7,
		[UET_SES_OP_RENDEZVOUS_SEND] = 4,
		[UET_SES_OP_DATAGRAM_SEND] = 7,
		[UET_SES_OP_DEFERRABLE_SEND] = 2,
		[UET_SES_OP_TAGGED_SEND] = 7,
		[UET_SES_OP_RENDEZVOUS_TSEND] = 4,
		[UET_SES_OP_DEFERRABLE_TSEND] = 2,
		[UET_SES_OP_DEFERRABLE_RTR] = 2,
		[UET_SES_OP_TSEND_ATOMIC] = 4,
		[UET_SES_OP_TSEND_FETCH_ATOMIC] = 4,
		[UET_SES_OP_MSG_ERROR] = 7,
	};
	enum uet_wire_ses_rc why;

	(void)state;
	for (unsigned int op = 0; op < 16; op++) {
		for (unsigned int p = 1; p <= 3; p++) {
			bool ok = uet_ses_profile_allows(p, op, 64, 0, 4096,
							 &why);

			if (ok != ((want[op] >> (p - 1)) & 1))
				fail_msg("op %s profile %s: %d",
					 uet_wire_ses_opcode_name(op),
					 uet_wire_profile_name(p), ok);
			assert_int_equal(why, ok ? UET_RC_OK :
					 UET_RC_UNSUPPORTED_OP);
		}
	}
	assert_false(uet_ses_profile_allows(UET_PROFILE_HPC, 0x10, 0, 0, 4096,
					    &why));
	assert_int_equal(why, UET_RC_UNSUPPORTED_OP);
	assert_false(uet_ses_profile_allows(0, UET_SES_OP_WRITE, 0, 0, 4096,
					    NULL));
	assert_false(uet_ses_profile_allows(4, UET_SES_OP_WRITE, 0, 0, 4096,
					    NULL));
}

static void
profile__sizes_wildcard_rudi(void **state)
{
	enum uet_wire_ses_rc why;

	(void)state;
	/* AI Base: SEND up to one MTU */
	assert_true(uet_ses_profile_allows(UET_PROFILE_AI_BASE,
		UET_SES_OP_SEND, 4096, 0, 4096, &why));
	assert_false(uet_ses_profile_allows(UET_PROFILE_AI_BASE,
		UET_SES_OP_SEND, 4097, 0, 4096, &why));
	assert_int_equal(why, UET_RC_TOO_LONG);
	assert_true(uet_ses_profile_allows(UET_PROFILE_AI_FULL,
		UET_SES_OP_SEND, UET_SES_MSG_MAX, 0, 4096, &why));
	assert_false(uet_ses_profile_allows(UET_PROFILE_HPC,
		UET_SES_OP_SEND, UET_SES_MSG_MAX + 1, 0, 4096, &why));
	assert_int_equal(why, UET_RC_TOO_LONG);
	/* wildcard tagged receive: not in AI Base */
	assert_false(uet_ses_profile_allows(UET_PROFILE_AI_BASE,
		UET_SES_OP_TAGGED_SEND, 8, UET_SES_PROF_F_WILDCARD, 4096,
		&why));
	assert_int_equal(why, UET_RC_OP_VIOLATION);
	assert_true(uet_ses_profile_allows(UET_PROFILE_AI_FULL,
		UET_SES_OP_TAGGED_SEND, 8, UET_SES_PROF_F_WILDCARD, 4096,
		&why));
	/* RUDI: HPC only */
	assert_false(uet_ses_profile_allows(UET_PROFILE_AI_FULL,
		UET_SES_OP_WRITE, 8, UET_SES_PROF_F_RUDI, 4096, &why));
	assert_int_equal(why, UET_RC_OP_VIOLATION);
	assert_true(uet_ses_profile_allows(UET_PROFILE_HPC, UET_SES_OP_WRITE,
		8, UET_SES_PROF_F_RUDI, 4096, &why));
}

#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(mkey__round_trip),
		T(mkey__provider_keys_unique_and_generation),
		T(mkey__random_bits_cover_rkey),
		T(resolve__opaque_errors_no_oracle),
		cmocka_unit_test(table__create_args_and_capacity),
		T(reg__rejects_bad_attrs),
		T(resolve__ok_relative),
		T(resolve__ri_alias),
		T(resolve__ok_absolute_job_only_authorises),
		T(resolve__bad_pid),
		T(resolve__bad_job_id),
		T(resolve__bad_index),
		T(resolve__disabled),
		T(resolve__disabled_gen),
		T(resolve__bad_generation),
		T(resolve__bad_mkey),
		T(resolve__perm_violation),
		T(resolve__perm_fetching_atomic_needs_read),
		T(resolve__op_violation),
		T(resolve__unsupported_op),
		T(resolve__msg_table_generation),
		T(ri_add__generation_zero),
		T(resolve__memo_follows_the_tables),
		T(resolve__memo_after_slot_reuse),
		T(resolve__bad_addr_and_too_long),
		T(resolve__never_outside_region),
		T(resolve__optimized_key),
		cmocka_unit_test(profile__table),
		cmocka_unit_test(profile__sizes_wildcard_rudi),
	};
	const char *s = getenv("UET_TEST_SEED");

	if (s != NULL)
		seed = strtoull(s, NULL, 0);
	printf("# test_ses_mr seed 0x%llx\n", (unsigned long long)seed);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
