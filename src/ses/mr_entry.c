/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Memory entries of RMA RI tables and their keys (UEC 1.0 SES target-side
 * resolution, SES memory key format).
 *
 * Provider keys (O=0) are 40 random bits (getrandom) around the 8-bit
 * generation, found through the index hash (MR_TAG_MKEY), then compared
 * whole: a key is only accepted if it is bit for bit the one handed out,
 * which also covers the I bit and the vendor byte. Nothing in a key says
 * where its entry is or what a neighbour's is. Optimized keys (O=1) name
 * a 12-bit index inside their RI table, found through the same hash.
 */

#include <errno.h>
#include <string.h>

#include "mr_private.h"


const struct mr_slot *
mr_slot_of_key(const struct uet_ses_mr_table *t, uint64_t key)
{
	const struct mr_slot *s;
	int64_t v;

	if (!uet_ses_mkey_valid(key))
		return NULL;
	if (key & UET_MKEY_O)
		return NULL; /* optimized keys need their RI table */
	v = mr_hash_get(&t->idx, mr_key_mkey(key));
	if (v < 0)
		return NULL;
	s = &t->slot[v];
	return s->in_use && s->e.key == key ? s : NULL;
}

/* Entry of an optimized key within RI slot @p ri, or NULL. */
static const struct mr_slot *
mr_slot_of_opt(const struct uet_ses_mr_table *t, int ri, uint64_t key)
{
	const struct mr_slot *s;
	int64_t v;

	if (!uet_ses_mkey_valid(key) || !(key & UET_MKEY_O))
		return NULL;
	v = mr_hash_get(&t->idx, mr_key_opt((uint32_t)ri,
			(uint16_t)(key & UET_MKEY_OPT_INDEX_MASK)));
	if (v < 0)
		return NULL;
	s = &t->slot[v];
	return s->in_use && s->e.key == key ? s : NULL;
}

const struct mr_slot *
mr_slot_find(const struct uet_ses_mr_table *t, int ri, uint64_t key)
{
	const struct mr_slot *s;

	s = (key & UET_MKEY_O) ? mr_slot_of_opt(t, ri, key) :
				 mr_slot_of_key(t, key);
	return s != NULL && s->e.ri == ri ? s : NULL;
}

static int
mr_reg_check(const struct uet_ses_mr_table *t, const struct uet_ses_mr_attr *a)
{
	if (a->ri < 0 || (uint32_t)a->ri >= t->max_ri || !t->ri[a->ri].in_use ||
	    t->ri[a->ri].attr.type != UET_SES_RI_RMA)
		return -EINVAL;
	if (a->access & ~UET_SES_MR_ACCESS_MASK)
		return -EINVAL;
	/* Resolution adds offsets to base: the region itself must not wrap. */
	if (a->length > UINTPTR_MAX - a->base)
		return -EINVAL;
	if (a->optimized && a->opt_index > UET_MKEY_OPT_INDEX_MASK)
		return -EINVAL;
	return 0;
}

/* The key of a new entry in @p slot, entered in the index. A random key
 * equal to a live one (odds 2^-40 per live key) is drawn again. */
static int
mr_make_key(struct uet_ses_mr_table *t, const struct uet_ses_mr_attr *a,
	    uint32_t slot, uint8_t gen, uint64_t *key)
{
	struct uet_ses_mkey k = {
		.idempotent = a->idempotent,
		.optimized = a->optimized,
		.vendor = t->vendor,
	};
	uint64_t r;
	int rc = -EEXIST;

	if (a->optimized) {
		k.rkey = a->opt_index;
		(void)uet_ses_mkey_encode(&k, key); /* fits by construction */
		return mr_hash_put(&t->idx, mr_key_opt((uint32_t)a->ri,
				   a->opt_index), slot);
	}
	for (unsigned int i = 0; i < 4 && rc == -EEXIST; i++) {
		rc = mr_rand40(t, &r);
		if (rc != 0)
			return rc;
		k.rkey = (r >> 16) << MR_RKEY_RAND_HI_SHIFT |
			 (uint64_t)gen << MR_RKEY_GEN_SHIFT |
			 (r & MR_RKEY_RAND_LO_MASK);
		(void)uet_ses_mkey_encode(&k, key);
		rc = mr_hash_put(&t->idx, mr_key_mkey(*key), slot);
	}
	return rc;
}

int
uet_ses_mr_reg(struct uet_ses_mr_table *t, const struct uet_ses_mr_attr *attr,
	       uint64_t *key)
{
	const struct mr_ri *r;
	struct mr_slot *s;
	uint32_t n;
	int rc;

	rc = mr_reg_check(t, attr);
	if (rc != 0)
		return rc;
	if (t->slot_pool.n_free == 0)
		return -ENOSPC;
	n = t->slot_pool.free[t->slot_pool.n_free - 1];
	s = &t->slot[n];
	rc = mr_make_key(t, attr, n, s->e.generation, &s->e.key);
	if (rc != 0)
		return rc;
	t->slot_pool.n_free--;
	r = &t->ri[attr->ri];
	s->in_use = true;
	s->e.base = attr->base;
	s->e.length = attr->length;
	s->e.access = attr->access;
	s->e.idempotent = attr->idempotent;
	s->e.virt_addr = attr->virt_addr;
	s->e.owner = attr->owner;
	s->e.enabled = true;
	s->e.job_id = r->attr.job_id;
	s->e.pid_on_fep = r->attr.pid_on_fep;
	s->e.resource_index = r->attr.resource_index;
	s->e.ri = attr->ri;
	t->ri[attr->ri].n_entries++;
	*key = s->e.key;
	return 0;
}

/*
 * Slot number of a live key, or -1. Control path: an optimized key does
 * not say its RI table, so every RI table is tried.
 */
static int64_t
mr_slot_index(const struct uet_ses_mr_table *t, uint64_t key)
{
	const struct mr_slot *s;

	if (!(key & UET_MKEY_O)) {
		s = mr_slot_of_key(t, key);
		return s != NULL ? s - t->slot : -1;
	}
	for (uint32_t i = 0; i < t->max_ri; i++) {
		if (!t->ri[i].in_use)
			continue;
		s = mr_slot_of_opt(t, (int)i, key);
		if (s != NULL)
			return s - t->slot;
	}
	return -1;
}

int
uet_ses_mr_dereg(struct uet_ses_mr_table *t, uint64_t key)
{
	int64_t i = mr_slot_index(t, key);
	struct mr_slot *s;
	uint32_t n;

	if (i < 0)
		return -ENOENT;
	n = (uint32_t)i;
	s = &t->slot[n];
	if (key & UET_MKEY_O)
		mr_hash_del(&t->idx, mr_key_opt((uint32_t)s->e.ri,
			    (uint16_t)(key & UET_MKEY_OPT_INDEX_MASK)));
	else
		mr_hash_del(&t->idx, mr_key_mkey(key));
	t->ri[s->e.ri].n_entries--;
	s->in_use = false;
	/* A new generation: requests still carrying the old one fail. */
	s->e.generation++;
	s->e.key = 0;
	t->slot_pool.free[t->slot_pool.n_free++] = n;
	return 0;
}

int
uet_ses_mr_enable(struct uet_ses_mr_table *t, uint64_t key, bool enable)
{
	int64_t i = mr_slot_index(t, key);

	if (i < 0)
		return -ENOENT;
	t->slot[i].e.enabled = enable;
	return 0;
}

const struct uet_ses_mr_entry *
uet_ses_mr_lookup(const struct uet_ses_mr_table *t, uint64_t key)
{
	int64_t i = mr_slot_index(t, key);

	return i >= 0 ? &t->slot[i].e : NULL;
}

int64_t
uet_ses_mr_index(const struct uet_ses_mr_table *t, uint64_t key)
{
	return mr_slot_index(t, key);
}
