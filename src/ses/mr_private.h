/* SPDX-License-Identifier: BSD-3-Clause */
/* Private layout of struct uet_ses_mr_table (mr.c, mr_hash.c, mr_resolve.c). */
#ifndef UET_SES_MR_PRIV_H
#define UET_SES_MR_PRIV_H

#include <uet/uet_ses_mr.h>

/*
 * One open-addressing index serves every {tuple} -> slot lookup; the top
 * four bits of a key say which tuple it is, so no valid key is 0 (empty)
 * or all ones (tombstone).
 */
#define MR_TAG_SHIFT 60
enum mr_tag {
	MR_TAG_PID = 1,    /* pid                 -> 0 */
	MR_TAG_AUTH = 2,   /* job, pid            -> 0 */
	MR_TAG_RI_REL = 3, /* job, pid, RI        -> RI slot */
	MR_TAG_RI_ABS = 4, /* pid, RI             -> RI slot */
	MR_TAG_OPT = 5,    /* RI slot, opt index  -> entry slot */
	MR_TAG_MKEY = 6,   /* provider rkey       -> entry slot */
};
#define MR_HASH_EMPTY 0
#define MR_HASH_TOMB UINT64_MAX

struct mr_hash {
	uint64_t *keys;
	uint32_t *vals;
	uint32_t mask; /* capacity - 1, capacity a power of two */
	/* bumped by every put and del (mr_ri_memo): 64 bits, so that no
	 * sequence of changes brings an old value back while a memo made
	 * at it is still held (a 32-bit one would after 2^32 registrations
	 * and deregistrations, which a service client can issue) */
	uint64_t gen;
};

/*
 * The last request that resolved to an RI table (steps 1-5 of
 * mr_resolve_ri: three index lookups), valid while the index is
 * unchanged: the messages of a stream name the same {JobID, PIDonFEP,
 * RI}, and an index lookup each is most of their resolution.
 */
struct mr_ri_memo {
	uint64_t req;  /* job | pid << 32 | ri << 48 */
	uint64_t gen;  /* mr_hash.gen it was made at */
	int32_t ri;    /* the RI slot; -1: no memo */
	bool relative;
};

struct mr_ri {
	bool in_use;
	bool enabled;
	uint8_t generation;
	struct uet_ses_ri_attr attr;
	uint32_t n_entries;
	uint32_t n_alias;        /* other names (uet_ses_ri_alias_add) */
};

struct mr_slot {
	bool in_use;
	struct uet_ses_mr_entry e;
};

/* A fixed pool of slot numbers. */
struct mr_pool {
	uint32_t *free; /* stack of free slot numbers */
	uint32_t n_free;
};

struct uet_ses_mr_table {
	struct mr_hash idx;
	/* written by lookups, which take the table const */
	struct mr_ri_memo *memo;
	struct mr_ri *ri;
	struct mr_slot *slot;
	struct mr_pool ri_pool;
	struct mr_pool slot_pool;
	uint32_t max_ri, max_entries, max_pids, max_auth;
	uint32_t n_pids, n_auth;
	uint32_t n_alias;
	/* random bytes of getrandom(), taken 5 per key */
	uint8_t rnd[255];
	uint32_t rnd_pos;
	uint8_t vendor;
};

uint64_t mr_key_pid(uint16_t pid);
uint64_t mr_key_auth(uint32_t job, uint16_t pid);
uint64_t mr_key_ri(bool relative, uint32_t job, uint16_t pid, uint16_t ri);
uint64_t mr_key_opt(uint32_t ri_slot, uint16_t index);
uint64_t mr_key_mkey(uint64_t key);

int mr_hash_init(struct mr_hash *h, uint32_t min_items);
void mr_hash_fini(struct mr_hash *h);
/* Value of @p key, or -ENOENT. */
int64_t mr_hash_get(const struct mr_hash *h, uint64_t key);
/* 0, -EEXIST; the caller bounds the item count so it never fills. */
int mr_hash_put(struct mr_hash *h, uint64_t key, uint32_t val);
/* 0 or -ENOENT. */
int mr_hash_del(struct mr_hash *h, uint64_t key);

/* Provider rkey: random(24) | generation(8) | random(16); the entry is
 * found through the index (MR_TAG_MKEY). The generation sits where the
 * initiator takes the request's ri_generation from. */
#define MR_RKEY_GEN_SHIFT 16
#define MR_RKEY_RAND_LO_MASK 0xFFFFu
#define MR_RKEY_RAND_HI_SHIFT 24

/* 40 bits from getrandom(2) into *r. @return 0 or -errno (no entropy
 * yet: -EAGAIN). */
int mr_rand40(struct uet_ses_mr_table *t, uint64_t *r);
/* Slot of a provider (O=0) key, or NULL (reserved bits, unknown, stale). */
const struct mr_slot *mr_slot_of_key(const struct uet_ses_mr_table *t,
				     uint64_t key);
/* Slot of any key within RI slot @p ri, or NULL. */
const struct mr_slot *mr_slot_find(const struct uet_ses_mr_table *t, int ri,
				   uint64_t key);

#endif /* UET_SES_MR_PRIV_H */
