/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Fixed-capacity open-addressing index of the resolution table. Sized at
 * create for twice the most items it can hold, so a probe always meets an
 * empty slot; deletions leave tombstones that inserts reuse.
 */

#include <errno.h>
#include <stdlib.h>

#include "mr_private.h"

uint64_t
mr_key_pid(uint16_t pid)
{
	return (uint64_t)MR_TAG_PID << MR_TAG_SHIFT | pid;
}

uint64_t
mr_key_auth(uint32_t job, uint16_t pid)
{
	return (uint64_t)MR_TAG_AUTH << MR_TAG_SHIFT | (uint64_t)job << 12 |
	       pid;
}

/* Absolute RI tables ignore the job: it only authorises (UEC 1.0 SES
 * target-side resolution). */
uint64_t
mr_key_ri(bool relative, uint32_t job, uint16_t pid, uint16_t ri)
{
	if (!relative)
		return (uint64_t)MR_TAG_RI_ABS << MR_TAG_SHIFT |
		       (uint64_t)pid << 12 | ri;
	return (uint64_t)MR_TAG_RI_REL << MR_TAG_SHIFT | (uint64_t)job << 24 |
	       (uint64_t)pid << 12 | ri;
}

uint64_t
mr_key_opt(uint32_t ri_slot, uint16_t index)
{
	return (uint64_t)MR_TAG_OPT << MR_TAG_SHIFT | (uint64_t)ri_slot << 12 |
	       index;
}

uint64_t
mr_key_mkey(uint64_t key)
{
	return (uint64_t)MR_TAG_MKEY << MR_TAG_SHIFT |
	       (key & UET_MKEY_RKEY_MASK);
}

static uint32_t
mr_hash_mix(uint64_t k)
{
	k ^= k >> 33;
	k *= UINT64_C(0xff51afd7ed558ccd);
	k ^= k >> 33;
	k *= UINT64_C(0xc4ceb9fe1a85ec53);
	k ^= k >> 33;
	return (uint32_t)k;
}

int
mr_hash_init(struct mr_hash *h, uint32_t min_items)
{
	uint64_t cap = 16;

	while (cap < 2 * (uint64_t)min_items)
		cap <<= 1;
	if (cap > UINT32_MAX)
		return -EINVAL;
	h->keys = calloc(cap, sizeof(*h->keys));
	h->vals = calloc(cap, sizeof(*h->vals));
	if (h->keys == NULL || h->vals == NULL) {
		mr_hash_fini(h);
		return -ENOMEM;
	}
	h->mask = (uint32_t)(cap - 1);
	return 0;
}

void
mr_hash_fini(struct mr_hash *h)
{
	free(h->keys);
	free(h->vals);
	h->keys = NULL;
	h->vals = NULL;
}

/* Position of @p key, or of the empty slot ending its probe sequence. */
static uint32_t
mr_hash_find(const struct mr_hash *h, uint64_t key)
{
	uint32_t i = mr_hash_mix(key) & h->mask;

	for (uint32_t n = 0; n <= h->mask; n++, i = (i + 1) & h->mask) {
		if (h->keys[i] == key || h->keys[i] == MR_HASH_EMPTY)
			return i;
	}
	return UINT32_MAX; /* unreachable: the index is never full */
}

int64_t
mr_hash_get(const struct mr_hash *h, uint64_t key)
{
	uint32_t i = mr_hash_find(h, key);

	if (i == UINT32_MAX || h->keys[i] != key)
		return -ENOENT;
	return h->vals[i];
}

int
mr_hash_put(struct mr_hash *h, uint64_t key, uint32_t val)
{
	uint32_t i = mr_hash_mix(key) & h->mask, tomb = UINT32_MAX;

	for (uint32_t n = 0; n <= h->mask; n++, i = (i + 1) & h->mask) {
		if (h->keys[i] == key)
			return -EEXIST;
		if (h->keys[i] == MR_HASH_TOMB && tomb == UINT32_MAX)
			tomb = i;
		if (h->keys[i] == MR_HASH_EMPTY)
			break;
	}
	if (tomb != UINT32_MAX)
		i = tomb;
	h->keys[i] = key;
	h->vals[i] = val;
	h->gen++;
	return 0;
}

int
mr_hash_del(struct mr_hash *h, uint64_t key)
{
	uint32_t i = mr_hash_find(h, key);

	if (i == UINT32_MAX || h->keys[i] != key)
		return -ENOENT;
	/* A tombstone keeps later keys of the same probe run reachable. */
	h->keys[i] = h->keys[(i + 1) & h->mask] == MR_HASH_EMPTY ?
		     MR_HASH_EMPTY : MR_HASH_TOMB;
	h->gen++;
	return 0;
}
