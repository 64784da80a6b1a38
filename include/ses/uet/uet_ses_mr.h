/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef UET_SES_MR_H
#define UET_SES_MR_H

/**
 * @file
 * Target-side resolution (UEC 1.0 SES target-side resolution, SES memory key
 * format, profiles): memory keys, memory-region entries, resource-index (RI)
 * tables, job authorization and profile enforcement. Sans-I/O and
 * allocation-free after uet_ses_mr_table_create(). Single owner: no internal
 * locking.
 *
 * The objects of one table:
 *  - pids: the PIDonFEP values hosted on this FEP;
 *  - authorizations: which job ids may reach which pid;
 *  - RI tables: relative ones keyed {job, pid, RI}, absolute (global) ones
 *    keyed {pid, RI}; type RMA (holds memory entries) or MSG (target of
 *    the send family);
 *  - memory entries inside RMA RI tables, named by their memory key.
 * The return-code decisions are tabulated in docs/SES.md, "Memory keys
 * and RI tables".
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <uet/uet_wire.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ */
/* Memory keys (UEC 1.0 SES memory key format): I(1) O(1) rsvd(6) vendor(8)
 * rkey(48)  */
/* ------------------------------------------------------------------ */

#define UET_MKEY_I (UINT64_C(1) << 63)               /**< idempotent-safe */
#define UET_MKEY_O (UINT64_C(1) << 62)               /**< optimized */
#define UET_MKEY_RSVD_MASK (UINT64_C(0x3F) << 56)    /**< must be zero */
#define UET_MKEY_VENDOR_SHIFT 48
#define UET_MKEY_VENDOR_MASK (UINT64_C(0xFF) << 48)
#define UET_MKEY_RKEY_MASK ((UINT64_C(1) << 48) - 1)
/** Optimized keys: RI-table index in the low 12 bits... */
#define UET_MKEY_OPT_INDEX_MASK UINT64_C(0xFFF)
/** ...and bits 47..12 reserved. */
#define UET_MKEY_OPT_RSVD_MASK (UET_MKEY_RKEY_MASK & ~UET_MKEY_OPT_INDEX_MASK)

/** Decoded memory key. */
struct uet_ses_mkey {
	bool idempotent; /**< I bit: may be the target of RUDI operations */
	bool optimized;  /**< O bit: rkey is a 12-bit RI-table index */
	uint8_t vendor;  /**< vendor byte */
	uint64_t rkey;   /**< 48 bits; 12 bits when optimized */
};

/**
 * Build a 64-bit key.
 * @return
 *   0, or -EINVAL when rkey does not fit (48 bits, 12 when optimized);
 *   @p key is not written then.
 */
int uet_ses_mkey_encode(const struct uet_ses_mkey *k, uint64_t *key);

/**
 * Split a 64-bit key; always fills @p k.
 * @return
 *   0, or -EINVAL when reserved bits are set (bits 61..56, or bits
 *   47..12 of an optimized key).
 */
int uet_ses_mkey_decode(uint64_t key, struct uet_ses_mkey *k);

/** Whether @p key has no reserved bit set. */
bool uet_ses_mkey_valid(uint64_t key);

/* ------------------------------------------------------------------ */
/* Table                                                               */
/* ------------------------------------------------------------------ */

/* Access bits of a memory entry, per operation class. */
#define UET_SES_MR_LOCAL_READ    0x01u
#define UET_SES_MR_LOCAL_WRITE   0x02u
#define UET_SES_MR_LOCAL_ATOMIC  0x04u
#define UET_SES_MR_REMOTE_READ   0x10u
#define UET_SES_MR_REMOTE_WRITE  0x20u
#define UET_SES_MR_REMOTE_ATOMIC 0x40u
#define UET_SES_MR_ACCESS_MASK   0x77u

/** Most memory entries a table holds. */
#define UET_SES_MR_MAX_ENTRIES 65536u

/** Sizes and identity of a table. */
struct uet_ses_mr_table_attr {
	uint32_t max_entries; /**< memory entries, 1..UET_SES_MR_MAX_ENTRIES */
	uint32_t max_ri;      /**< RI tables, >= 1 */
	uint32_t max_pids;    /**< pids on this FEP, >= 1 */
	uint32_t max_auth;    /**< {job, pid} authorizations, >= 1 */
	uint8_t vendor;       /**< vendor byte put in (and required of) keys */
};

struct uet_ses_mr_table;

/**
 * Create a table; all memory is allocated here.
 * @return
 *   The table, or NULL with errno EINVAL (a size out of range) or ENOMEM.
 */
struct uet_ses_mr_table *
uet_ses_mr_table_create(const struct uet_ses_mr_table_attr *attr);

/** Free a table; NULL is a no-op. */
void uet_ses_mr_table_free(struct uet_ses_mr_table *t);

/**
 * Declare a pid as hosted on this FEP.
 * @return 0, -EINVAL (pid above 12 bits), -EEXIST, -ENOSPC.
 */
int uet_ses_mr_pid_add(struct uet_ses_mr_table *t, uint16_t pid_on_fep);

/** Remove a pid. @return 0 or -ENOENT. */
int uet_ses_mr_pid_del(struct uet_ses_mr_table *t, uint16_t pid_on_fep);

/**
 * Authorize @p job_id to reach @p pid_on_fep (both addressing modes).
 * @return 0, -EINVAL (field too wide), -EEXIST, -ENOSPC.
 */
int uet_ses_mr_auth_add(struct uet_ses_mr_table *t, uint32_t job_id,
			uint16_t pid_on_fep);

/** Withdraw an authorization. @return 0 or -ENOENT. */
int uet_ses_mr_auth_del(struct uet_ses_mr_table *t, uint32_t job_id,
			uint16_t pid_on_fep);

/** What an RI table serves. */
enum uet_ses_ri_type {
	UET_SES_RI_RMA = 0, /**< memory entries: WRITE, READ, atomics */
	UET_SES_RI_MSG = 1, /**< the send family (matching is elsewhere) */
};

/** Identity of an RI table. */
struct uet_ses_ri_attr {
	bool relative;           /**< keyed {job, pid, RI}; else {pid, RI} */
	uint32_t job_id;         /**< 24 bits; ignored when !relative */
	uint16_t pid_on_fep;     /**< 12 bits */
	uint16_t resource_index; /**< 12 bits */
	enum uet_ses_ri_type type;
	/**
	 * Generation 0 whatever the slot's history: for a MSG table whose
	 * initiators cannot learn its generation (an address made from
	 * node:service carries none), so that a process re-created under
	 * the same {job, PIDonFEP, RI} is reachable again.
	 */
	bool generation_zero;
	/**
	 * RMA: every failure once a request named a live key of this table
	 * (BAD_GENERATION, DISABLED, PERM_VIOLATION, BAD_ADDR, TOO_LONG, ...)
	 * is answered BAD_MKEY, as a wrong key is: a peer guessing keys
	 * learns nothing until it has a right key and a right address. For
	 * tables whose initiators are not trusted with the details (the
	 * service's clients).
	 */
	bool opaque_errors;
};

/**
 * Add an RI table, enabled. Its generation (used by MSG tables) comes
 * from the slot and changes every time a slot is reused, unless
 * @c generation_zero.
 * @return
 *   A handle >= 0, or -EINVAL (field too wide, bad type), -EEXIST,
 *   -ENOSPC.
 */
int uet_ses_ri_add(struct uet_ses_mr_table *t,
		   const struct uet_ses_ri_attr *attr);

/**
 * Remove an RI table.
 * @return 0, -ENOENT (bad handle), -EBUSY (memory entries remain).
 */
int uet_ses_ri_del(struct uet_ses_mr_table *t, int ri);

/**
 * Give RI table @p ri a second name {job (the table's, when relative),
 * @p pid_on_fep, @p resource_index}: requests naming it resolve to the
 * same table and memory entries (processes of one engine context that
 * share memory regions). The table cannot be removed while it has
 * aliases. At most max_ri aliases per table set.
 * @return
 *   0, -ENOENT (bad handle), -EINVAL (field too wide), -EEXIST (name in
 *   use), -ENOSPC.
 */
int uet_ses_ri_alias_add(struct uet_ses_mr_table *t, int ri,
			 uint16_t pid_on_fep, uint16_t resource_index);

/** Remove an alias of RI table @p ri. @return 0 or -ENOENT. */
int uet_ses_ri_alias_del(struct uet_ses_mr_table *t, int ri,
			 uint16_t pid_on_fep, uint16_t resource_index);

/** Enable or disable an RI table. @return 0 or -ENOENT. */
int uet_ses_ri_enable(struct uet_ses_mr_table *t, int ri, bool enable);

/** Generation of an RI table (what MSG requests must carry). */
int uet_ses_ri_generation(const struct uet_ses_mr_table *t, int ri,
			  uint8_t *gen);

/** A memory entry as resolution sees it (read-only for callers). */
struct uet_ses_mr_entry {
	uint64_t key;            /**< full 64-bit memory key */
	uintptr_t base;          /**< host address of byte 0 */
	uint64_t length;         /**< bytes */
	uint32_t access;         /**< UET_SES_MR_* bits */
	bool idempotent;         /**< RUDI-safe; equals the key's I bit */
	bool virt_addr;          /**< offsets are host addresses (base..) */
	bool enabled;
	uint8_t generation;      /**< must equal the request's ri_generation */
	uint32_t job_id;         /**< of its RI table (0 when absolute) */
	uint16_t pid_on_fep;
	uint16_t resource_index;
	int ri;                  /**< RI table handle */
	/** address space @c base lives in: 0 this process (plain loads
	 * and stores), else the handle the SES's memory accessor
	 * (uet_ses_config.mem_ops) reaches it by */
	pid_t owner;
};

/** Registration request. */
struct uet_ses_mr_attr {
	int ri;             /**< handle of an RMA RI table */
	uintptr_t base;     /**< region start */
	uint64_t length;    /**< bytes; base + length must not wrap */
	uint32_t access;    /**< UET_SES_MR_* bits */
	bool idempotent;    /**< sets the key's I bit */
	bool optimized;     /**< O=1 key naming @p opt_index */
	uint16_t opt_index; /**< 12 bits, unique within the RI table */
	/**
	 * FI_MR_VIRT_ADDR: requests carry host addresses in [base,
	 * base + length) instead of offsets from 0; resolution subtracts
	 * @p base (an address below it is BAD_ADDR).
	 */
	bool virt_addr;
	/**
	 * 0: the region is memory of this process. Otherwise the handle
	 * (for the engine's accessor: a /proc/PID/mem descriptor) of the
	 * address space @p base and @p length name: the SES reads and
	 * writes it only through uet_ses_config.mem_ops (docs/SES.md
	 * "Memory of another process"). Not validated here.
	 */
	pid_t owner;
};

/**
 * Register a region, enabled. Provider keys (O=0) carry
 * rkey = random(24) | generation(8) | random(16): 40 bits from
 * getrandom(2), every bit of the 48-bit rkey but the generation the
 * initiator copies into the request's ri_generation; unique in the
 * table, found through a hash (O(1)), and a key survives neither
 * deregistration nor reuse of its slot.
 * @param key
 *   Output: the memory key.
 * @return
 *   0, -EINVAL (bad RI handle, RI not RMA, bad access bits, region
 *   wraps, opt_index too wide), -EEXIST (optimized index in use),
 *   -ENOSPC (table full), -EAGAIN (the kernel's random pool not ready).
 */
int uet_ses_mr_reg(struct uet_ses_mr_table *t,
		   const struct uet_ses_mr_attr *attr, uint64_t *key);

/**
 * Deregister; the slot's generation is bumped so neither the old key nor
 * the old generation resolves any more. @return 0 or -ENOENT.
 */
int uet_ses_mr_dereg(struct uet_ses_mr_table *t, uint64_t key);

/** Slot of a live key's entry, in [0, max_entries), or -1: an index
 * for per-entry side tables of the caller. */
int64_t uet_ses_mr_index(const struct uet_ses_mr_table *t, uint64_t key);

/** Enable or disable an entry (generation unchanged). @return 0/-ENOENT. */
int uet_ses_mr_enable(struct uet_ses_mr_table *t, uint64_t key,
		      bool enable);

/** The entry of a key, or NULL. */
const struct uet_ses_mr_entry *
uet_ses_mr_lookup(const struct uet_ses_mr_table *t, uint64_t key);

/* ------------------------------------------------------------------ */
/* Resolution                                                          */
/* ------------------------------------------------------------------ */

/** What a request asks for, from its SES header. */
struct uet_ses_resolve_req {
	bool relative;           /**< REL flag */
	uint32_t job_id;
	uint16_t pid_on_fep;
	uint16_t resource_index;
	uint8_t ri_generation;
	uint64_t mkey;           /**< memory key (RMA opcodes) */
	uint8_t opcode;          /**< enum uet_wire_ses_opcode */
	uint64_t offset;         /**< buffer_offset (+ message_offset) */
	uint64_t length;         /**< bytes this packet touches */
	bool is_rudi;            /**< arrived on a RUDI PDC */
};

/** Result of a successful resolution. */
struct uet_ses_resolved {
	void *addr;                            /**< RMA: base + offset */
	const struct uet_ses_mr_entry *entry;  /**< RMA entry; NULL for MSG */
	int ri;                                /**< RI table handle */
};

/**
 * Resolve a request to a host address (UEC 1.0 SES target-side resolution),
 * checking in this order: opcode, pid, job authorization, RI table, RI enabled,
 * RI type, RUDI, then for RMA the key, generation, entry enabled, access,
 * bounds; for MSG the RI generation.
 * @return
 *   UET_RC_OK (then @p out is filled) or exactly one of:
 *   UNSUPPORTED_OP (NO_OP, MSG_ERROR, undefined opcode), BAD_PID,
 *   BAD_JOB_ID, BAD_INDEX, DISABLED (RI table disabled), OP_VIOLATION
 *   (opcode not served by the RI type; RUDI with an opcode other than
 *   WRITE/READ or a key without the I bit), BAD_MKEY, BAD_GENERATION,
 *   DISABLED_GEN (entry disabled), PERM_VIOLATION, BAD_ADDR (first byte
 *   outside the region), TOO_LONG (first byte inside, last outside).
 */
enum uet_wire_ses_rc uet_ses_resolve(const struct uet_ses_mr_table *t,
				const struct uet_ses_resolve_req *in,
				struct uet_ses_resolved *out);

/* ------------------------------------------------------------------ */
/* Profiles (UEC 1.0 profiles)                                    */
/* ------------------------------------------------------------------ */

/** TAGGED_SEND (or its variants) uses wildcard matching. */
#define UET_SES_PROF_F_WILDCARD 0x1u
/** The request travels on a RUDI PDC. */
#define UET_SES_PROF_F_RUDI 0x2u

/** Largest message of any send (4 GiB - 1). */
#define UET_SES_MSG_MAX UINT64_C(0xFFFFFFFF)

/**
 * Whether @p profile allows a request.
 * @param size
 *   Message length in bytes.
 * @param flags
 *   UET_SES_PROF_F_* bits.
 * @param mtu
 *   Payload bytes of one packet (AI Base limits SEND to one).
 * @param reason
 *   Optional; set to UET_RC_OK when allowed, else UET_RC_UNSUPPORTED_OP
 *   (opcode or profile not in the profile's table), UET_RC_OP_VIOLATION
 *   (opcode allowed but not this way: wildcard, RUDI) or UET_RC_TOO_LONG.
 */
bool uet_ses_profile_allows(enum uet_wire_profile profile,
			    enum uet_wire_ses_opcode opcode, uint64_t size,
			    unsigned int flags, uint32_t mtu,
			    enum uet_wire_ses_rc *reason);

#ifdef __cplusplus
}
#endif

#endif /* UET_SES_MR_H */
