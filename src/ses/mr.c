/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Memory keys (UEC 1.0 SES memory key format) and the objects of the target
 * resolution table (UEC 1.0 SES target-side resolution): pids, job
 * authorizations, RI tables and memory entries. Everything is allocated in
 * uet_ses_mr_table_create().
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "mr_private.h"


int
uet_ses_mkey_encode(const struct uet_ses_mkey *k, uint64_t *key)
{
	uint64_t lim = k->optimized ? UET_MKEY_OPT_INDEX_MASK :
		       UET_MKEY_RKEY_MASK;

	if (k->rkey > lim)
		return -EINVAL;
	*key = (k->idempotent ? UET_MKEY_I : 0) |
	       (k->optimized ? UET_MKEY_O : 0) |
	       (uint64_t)k->vendor << UET_MKEY_VENDOR_SHIFT | k->rkey;
	return 0;
}

bool
uet_ses_mkey_valid(uint64_t key)
{
	if (key & UET_MKEY_RSVD_MASK)
		return false;
	return !(key & UET_MKEY_O) || !(key & UET_MKEY_OPT_RSVD_MASK);
}

int
uet_ses_mkey_decode(uint64_t key, struct uet_ses_mkey *k)
{
	k->idempotent = (key & UET_MKEY_I) != 0;
	k->optimized = (key & UET_MKEY_O) != 0;
	k->vendor = (uint8_t)(key >> UET_MKEY_VENDOR_SHIFT);
	k->rkey = key & UET_MKEY_RKEY_MASK;
	return uet_ses_mkey_valid(key) ? 0 : -EINVAL;
}

/*
 * A key is a capability (whoever holds it reaches the memory): its random
 * bits come from the kernel's CSPRNG, never from a generator whose state
 * a few keys give away. Read in batches (one system call per 51 keys).
 */
int
mr_rand40(struct uet_ses_mr_table *t, uint64_t *r)
{
	uint64_t v = 0;

	if (t->rnd_pos + 5 > sizeof(t->rnd)) {
		ssize_t n = getrandom(t->rnd, sizeof(t->rnd), GRND_NONBLOCK);

		if (n != (ssize_t)sizeof(t->rnd))
			return n < 0 ? -errno : -EAGAIN;
		t->rnd_pos = 0;
	}
	for (unsigned int i = 0; i < 5; i++)
		v = v << 8 | t->rnd[t->rnd_pos++];
	*r = v;
	return 0;
}

static int
mr_pool_init(struct mr_pool *p, uint32_t n)
{
	p->free = malloc(sizeof(*p->free) * n);
	if (p->free == NULL)
		return -ENOMEM;
	/* Pop order 0, 1, 2, ... */
	for (uint32_t i = 0; i < n; i++)
		p->free[i] = n - 1 - i;
	p->n_free = n;
	return 0;
}

static bool
mr_attr_ok(const struct uet_ses_mr_table_attr *a)
{
	return a != NULL && a->max_entries >= 1 &&
	       a->max_entries <= UET_SES_MR_MAX_ENTRIES && a->max_ri >= 1 &&
	       a->max_ri <= (1u << 20) && a->max_pids >= 1 &&
	       a->max_pids <= UET_SES_PID_MAX + 1 && a->max_auth >= 1 &&
	       a->max_auth <= (1u << 24);
}

struct uet_ses_mr_table *
uet_ses_mr_table_create(const struct uet_ses_mr_table_attr *attr)
{
	struct uet_ses_mr_table *t;

	if (!mr_attr_ok(attr)) {
		errno = EINVAL;
		return NULL;
	}
	t = calloc(1, sizeof(*t));
	if (t == NULL)
		goto fail;
	t->max_ri = attr->max_ri;
	t->max_entries = attr->max_entries;
	t->max_pids = attr->max_pids;
	t->max_auth = attr->max_auth;
	t->vendor = attr->vendor;
	t->rnd_pos = sizeof(t->rnd); /* read at the first key */
	t->ri = calloc(attr->max_ri, sizeof(*t->ri));
	t->slot = calloc(attr->max_entries, sizeof(*t->slot));
	t->memo = calloc(1, sizeof(*t->memo));
	if (t->ri == NULL || t->slot == NULL || t->memo == NULL ||
	    mr_pool_init(&t->ri_pool, attr->max_ri) != 0 ||
	    mr_pool_init(&t->slot_pool, attr->max_entries) != 0 ||
	    mr_hash_init(&t->idx, 2 * attr->max_ri + attr->max_entries +
			 attr->max_pids + attr->max_auth) != 0)
		goto free_table;
	t->memo->ri = -1;
	return t;
free_table:
	uet_ses_mr_table_free(t);
fail:
	errno = ENOMEM;
	return NULL;
}

void
uet_ses_mr_table_free(struct uet_ses_mr_table *t)
{
	if (t == NULL)
		return;
	mr_hash_fini(&t->idx);
	free(t->ri_pool.free);
	free(t->slot_pool.free);
	free(t->ri);
	free(t->slot);
	free(t->memo);
	free(t);
}

int
uet_ses_mr_pid_add(struct uet_ses_mr_table *t, uint16_t pid_on_fep)
{
	int rc;

	if (pid_on_fep > UET_SES_PID_MAX)
		return -EINVAL;
	if (t->n_pids == t->max_pids)
		return mr_hash_get(&t->idx, mr_key_pid(pid_on_fep)) >= 0 ?
		       -EEXIST : -ENOSPC;
	rc = mr_hash_put(&t->idx, mr_key_pid(pid_on_fep), 0);
	if (rc == 0)
		t->n_pids++;
	return rc;
}

int
uet_ses_mr_pid_del(struct uet_ses_mr_table *t, uint16_t pid_on_fep)
{
	int rc = mr_hash_del(&t->idx, mr_key_pid(pid_on_fep));

	if (rc == 0)
		t->n_pids--;
	return rc;
}

int
uet_ses_mr_auth_add(struct uet_ses_mr_table *t, uint32_t job_id,
		    uint16_t pid_on_fep)
{
	uint64_t k = mr_key_auth(job_id, pid_on_fep);
	int rc;

	if (job_id > UET_SES_JOB_ID_MAX || pid_on_fep > UET_SES_PID_MAX)
		return -EINVAL;
	if (t->n_auth == t->max_auth)
		return mr_hash_get(&t->idx, k) >= 0 ? -EEXIST : -ENOSPC;
	rc = mr_hash_put(&t->idx, k, 0);
	if (rc == 0)
		t->n_auth++;
	return rc;
}

int
uet_ses_mr_auth_del(struct uet_ses_mr_table *t, uint32_t job_id,
		    uint16_t pid_on_fep)
{
	int rc = mr_hash_del(&t->idx, mr_key_auth(job_id, pid_on_fep));

	if (rc == 0)
		t->n_auth--;
	return rc;
}

static struct mr_ri *
mr_ri_get(const struct uet_ses_mr_table *t, int ri)
{
	if (ri < 0 || (uint32_t)ri >= t->max_ri || !t->ri[ri].in_use)
		return NULL;
	return &t->ri[ri];
}

int
uet_ses_ri_add(struct uet_ses_mr_table *t, const struct uet_ses_ri_attr *attr)
{
	struct uet_ses_ri_attr a = *attr;
	uint32_t s;
	int rc;

	if (a.pid_on_fep > UET_SES_PID_MAX || a.resource_index > UET_SES_RI_MAX ||
	    (a.relative && a.job_id > UET_SES_JOB_ID_MAX) ||
	    (a.type != UET_SES_RI_RMA && a.type != UET_SES_RI_MSG))
		return -EINVAL;
	if (!a.relative)
		a.job_id = 0;
	if (t->ri_pool.n_free == 0)
		return mr_hash_get(&t->idx, mr_key_ri(a.relative, a.job_id,
			a.pid_on_fep, a.resource_index)) >= 0 ? -EEXIST : -ENOSPC;
	s = t->ri_pool.free[t->ri_pool.n_free - 1];
	rc = mr_hash_put(&t->idx, mr_key_ri(a.relative, a.job_id, a.pid_on_fep,
					    a.resource_index), s);
	if (rc != 0)
		return rc;
	t->ri_pool.n_free--;
	t->ri[s].in_use = true;
	t->ri[s].enabled = true;
	t->ri[s].attr = a;
	t->ri[s].n_entries = 0;
	if (a.generation_zero)
		t->ri[s].generation = 0;
	return (int)s;
}

int
uet_ses_ri_del(struct uet_ses_mr_table *t, int ri)
{
	struct mr_ri *r = mr_ri_get(t, ri);

	if (r == NULL)
		return -ENOENT;
	if (r->n_entries != 0 || r->n_alias != 0)
		return -EBUSY;
	mr_hash_del(&t->idx, mr_key_ri(r->attr.relative, r->attr.job_id,
				       r->attr.pid_on_fep,
				       r->attr.resource_index));
	r->in_use = false;
	r->generation++; /* stale MSG requests now fail BAD_GENERATION */
	t->ri_pool.free[t->ri_pool.n_free++] = (uint32_t)ri;
	return 0;
}

int
uet_ses_ri_alias_add(struct uet_ses_mr_table *t, int ri, uint16_t pid_on_fep,
		     uint16_t resource_index)
{
	struct mr_ri *r = mr_ri_get(t, ri);
	int rc;

	if (r == NULL)
		return -ENOENT;
	if (pid_on_fep > UET_SES_PID_MAX || resource_index > UET_SES_RI_MAX)
		return -EINVAL;
	if (t->n_alias >= t->max_ri)
		return -ENOSPC;
	rc = mr_hash_put(&t->idx, mr_key_ri(r->attr.relative, r->attr.job_id,
					    pid_on_fep, resource_index),
			 (uint32_t)ri);
	if (rc != 0)
		return rc;
	r->n_alias++;
	t->n_alias++;
	return 0;
}

int
uet_ses_ri_alias_del(struct uet_ses_mr_table *t, int ri, uint16_t pid_on_fep,
		     uint16_t resource_index)
{
	struct mr_ri *r = mr_ri_get(t, ri);
	uint64_t k;

	if (r == NULL || r->n_alias == 0 ||
	    (pid_on_fep == r->attr.pid_on_fep &&
	     resource_index == r->attr.resource_index))
		return -ENOENT;
	k = mr_key_ri(r->attr.relative, r->attr.job_id, pid_on_fep,
		      resource_index);
	if (mr_hash_get(&t->idx, k) != ri || mr_hash_del(&t->idx, k) != 0)
		return -ENOENT;
	r->n_alias--;
	t->n_alias--;
	return 0;
}

int
uet_ses_ri_enable(struct uet_ses_mr_table *t, int ri, bool enable)
{
	struct mr_ri *r = mr_ri_get(t, ri);

	if (r == NULL)
		return -ENOENT;
	r->enabled = enable;
	return 0;
}

int
uet_ses_ri_generation(const struct uet_ses_mr_table *t, int ri, uint8_t *gen)
{
	const struct mr_ri *r = mr_ri_get(t, ri);

	if (r == NULL)
		return -ENOENT;
	*gen = r->generation;
	return 0;
}
