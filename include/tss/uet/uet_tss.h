/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef UET_TSS_H
#define UET_TSS_H

/**
 * @file
 * Transport security sublayer (UEC 1.0 section 3.7), the parts that need no
 * packet I/O: key derivation, the AES-GCM IV, the additional authenticated
 * data and the split of a protected packet, and the per-source replay
 * window. The per-packet AEAD runs through DPDK's cryptodev
 * (uet_tss_cdev.h, engine side). The choices made where the sources
 * disagree are in docs/WIRE-DECISIONS.md ("TSS header and protected
 * packet").
 *
 * Functions return 0 (or a length) on success and a negated errno.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <uet/uet_wire.h>

#ifdef __cplusplus
extern "C" {
#endif

/** AES-256 key bytes: secure-domain keys and derived keys. */
#define UET_TSS_KEY_LEN 32
/** AES-GCM IV bytes (96 bits). */
#define UET_TSS_IV_LEN 12
/** KDF output of the derived-key modes: a key, then an IV mask. */
#define UET_TSS_KDF_OUT_LEN (UET_TSS_KEY_LEN + UET_TSS_IV_LEN)
/** KDF context for an SSI or an IPv4 address. */
#define UET_TSS_KDF_CTX_V4_LEN 10
/** KDF context for an IPv6 address. */
#define UET_TSS_KDF_CTX_V6_LEN 26
/** KDF label of cluster mode's per-source key. */
#define UET_TSS_LABEL_CLUSTER "U1"
/** KDF label of client/server mode's per-client key (client to server). */
#define UET_TSS_LABEL_SERVER "U2"
/** KDF label of client/server mode's server-to-client key (a project
 * choice: docs/WIRE-DECISIONS.md, "Client/server mode"). */
#define UET_TSS_LABEL_DOWN "U3"
/** Largest AAD: IPv6 addresses, entropy header, TSS header with SSI. */
#define UET_TSS_AAD_MAX_LEN (32 + 4 + UET_TSS_HDR_MAX_LEN)

/* ------------------------------------------------------------------ */
/* Key derivation (NIST SP 800-108 counter mode, CMAC-AES-256)         */
/* ------------------------------------------------------------------ */

/**
 * The SP 800-108 counter-mode KDF with CMAC-AES-256 as PRF and a 32-bit
 * counter before @p fixed: out = PRF(key, [1] || fixed) || PRF(key, [2] ||
 * fixed) ..., cut to @p out_len. OpenSSL's KBKDF does the work.
 * @return
 *   0, -EINVAL (out_len 0), -EIO (libcrypto failed).
 */
int uet_tss_kdf_fixed(const uint8_t key[UET_TSS_KEY_LEN],
		      const uint8_t *fixed, size_t fixed_len, uint8_t *out,
		      size_t out_len);

/**
 * The KDF with the fixed input UEC uses: label || 0x00 || context ||
 * [out_len * 8]_32.
 * @return
 *   As uet_tss_kdf_fixed().
 */
int uet_tss_kdf(const uint8_t key[UET_TSS_KEY_LEN], const char *label,
		const uint8_t *ctx, size_t ctx_len, uint8_t *out,
		size_t out_len);

/**
 * Build the KDF context: epoch(16) | rekey(32) | source(32) for a 4-byte
 * source (an SSI or IPv4 address), 0(32) | epoch(16) | rekey(32) |
 * source(128) for an IPv6 address; big-endian, addresses as on the wire.
 * @param out
 *   At least UET_TSS_KDF_CTX_V6_LEN bytes.
 * @return
 *   The context length, or -EINVAL when @p src_len is not 4 or 16.
 */
int uet_tss_kdf_ctx(uint16_t epoch, uint32_t rekey, const uint8_t *src,
		    size_t src_len, uint8_t *out);

/* ------------------------------------------------------------------ */
/* IV, AAD and the protected packet                                    */
/* ------------------------------------------------------------------ */

/**
 * The 96-bit AES-GCM IV of a packet: @p src_id (the SSI, or the IPv4
 * source address) || epoch(16) || tsc(48), big-endian, XORed with @p mask
 * in the derived-key modes.
 * @param mask
 *   The IV mask (KDF output after the key), or NULL (direct mode).
 */
void uet_tss_iv(uint32_t src_id, uint16_t epoch, uint64_t tsc,
		const uint8_t *mask, uint8_t iv[UET_TSS_IV_LEN]);

/**
 * Build the additional authenticated data of a packet: IP source and
 * destination, a 4-byte entropy header (the native one, or the UDP source
 * port as entropy), then the TSS header bytes.
 * @param o
 *   The outer headers (ip_version, addresses, native, entropy/udp_sport).
 * @param tss
 *   The encoded TSS header, @p tss_len bytes.
 * @param aad
 *   Output, @p cap bytes (UET_TSS_AAD_MAX_LEN is always enough).
 * @return
 *   The AAD length, -EINVAL (IP version, TSS length), -ENOSPC.
 */
int uet_tss_aad(const struct uet_wire_outer *o, const uint8_t *tss,
		size_t tss_len, uint8_t *aad, size_t cap);

/** Where the parts of a protected packet are, from its TSS header. */
struct uet_tss_split {
	uint16_t hdr_len; /**< TSS header bytes (also the ciphertext offset) */
	uint16_t enc_len; /**< encrypted bytes: PDS header onward */
	uint16_t icv_off; /**< offset of the 16-byte ICV */
};

/**
 * Split the @p inner_len bytes after the outer headers of a protected
 * packet: TSS header, encrypted part, ICV.
 * @return
 *   0, or -EMSGSIZE when the bytes cannot hold the header, the smallest
 *   PDS header and the ICV (such a packet is dropped before any crypto).
 */
int uet_tss_split(size_t inner_len, bool sp, struct uet_tss_split *s);

/**
 * The parse of an opened packet, from the parse of the protected one: the
 * outer headers are those decoded before decryption (the AAD covered
 * them; only the lengths and the IPv4 header checksum changed when the
 * TSS header and the ICV were removed), then the PDS header, decoded in
 * place. Equals uet_wire_pkt_parse_pds() of the opened frame, without
 * decoding the outer headers twice.
 * @param sealed
 *   The outer headers of the protected packet (its inner_len: TSS header
 *   to ICV end).
 * @param removed
 *   The bytes removed: TSS header and ICV.
 * @param frame
 *   The opened frame: the same outer headers, then the PDS header.
 * @return
 *   0, -EINVAL (lengths that do not match @p sealed), or the PDS
 *   decoder's error (also in `p->err`, `p->err_layer`, as the parse).
 */
int uet_tss_opened_parse(const struct uet_wire_outer *sealed, size_t removed,
			 const uint8_t *frame, size_t len,
			 struct uet_wire_pkt *p);

/* ------------------------------------------------------------------ */
/* AEAD without an EAL (tools)                                         */
/* ------------------------------------------------------------------ */

/**
 * AES-GCM-256 encryption of @p len bytes with OpenSSL (uet-dump and
 * tests; the engine uses rte_cryptodev). @p ct may equal @p pt.
 * @return 0, -EINVAL, -ENOMEM, -EIO.
 */
int uet_tss_gcm_seal(const uint8_t key[UET_TSS_KEY_LEN],
		     const uint8_t iv[UET_TSS_IV_LEN], const uint8_t *aad,
		     size_t aad_len, const uint8_t *pt, size_t len,
		     uint8_t *ct, uint8_t tag[UET_TSS_ICV_LEN]);

/**
 * AES-GCM-256 decryption and verification; @p pt may equal @p ct.
 * @return 0, -EBADMSG (the tag does not verify: @p pt is not plaintext),
 *   -EINVAL, -ENOMEM, -EIO.
 */
int uet_tss_gcm_open(const uint8_t key[UET_TSS_KEY_LEN],
		     const uint8_t iv[UET_TSS_IV_LEN], const uint8_t *aad,
		     size_t aad_len, const uint8_t *ct, size_t len,
		     uint8_t *pt, const uint8_t tag[UET_TSS_ICV_LEN]);

/* ------------------------------------------------------------------ */
/* Replay window                                                       */
/* ------------------------------------------------------------------ */

/** Largest replay window, in TSC values. */
#define UET_TSS_REPLAY_MAX 4096

/**
 * A per-source sliding window over TSCs (RFC 4303 style): the highest TSC
 * accepted and a bitmap of the @c size TSCs up to it. The receiver checks
 * a packet before decrypting it and updates the window only once the ICV
 * verified, so forged packets cannot move it.
 */
struct uet_tss_replay {
	uint64_t top;  /**< highest TSC accepted */
	uint32_t size; /**< window in TSCs: a multiple of 64 */
	bool any;      /**< a TSC was accepted */
	uint64_t bits[UET_TSS_REPLAY_MAX / 64]; /**< bit tsc % size */
};

/**
 * Start an empty window.
 * @return
 *   0, or -EINVAL when @p size is 0, not a multiple of 64 or above
 *   UET_TSS_REPLAY_MAX.
 */
int uet_tss_replay_init(struct uet_tss_replay *w, uint32_t size);

/**
 * Check a received TSC without changing the window.
 * @return
 *   0 (new), -EEXIST (already accepted: a replay), -ERANGE (older than
 *   the window: cannot be told from a replay).
 */
int uet_tss_replay_check(const struct uet_tss_replay *w, uint64_t tsc);

/**
 * Record an authenticated TSC (one uet_tss_replay_check() accepted),
 * sliding the window when it is ahead of it.
 */
void uet_tss_replay_update(struct uet_tss_replay *w, uint64_t tsc);

/* ------------------------------------------------------------------ */
/* Epochs: generations of a secure domain's key                        */
/* ------------------------------------------------------------------ */

/** KDF label of a domain key's epoch number (docs/WIRE-DECISIONS.md). */
#define UET_TSS_LABEL_EPOCH "EP"

/**
 * The epoch number of a domain key: the first 16 bits of KDF(key, "EP"),
 * so that every host holding the same key file names it the same, with
 * no counter to agree on, and a new key gets another number (a new key
 * whose number equals its predecessor's is refused by the rotation).
 * @return 0 and @p epoch, or -EIO (libcrypto failed).
 */
int uet_tss_epoch_of_key(const uint8_t key[UET_TSS_KEY_LEN],
			 uint16_t *epoch);

/**
 * The key generations of one secure domain (UEC 1.0 3.7: the header's
 * epoch selects the key): two slots, the current key and the one before
 * it. A rotation installs a new key in the other slot; a receiver accepts
 * it at once, a sender seals with it from @c switch_ns on, and the old
 * key is accepted until @c retire_ns. Times are the caller's clock (ns).
 */
struct uet_tss_epochs {
	uint16_t epoch[2]; /**< epoch number of each slot */
	bool valid[2];     /**< slot holds a key */
	uint8_t cur;       /**< slot of the newest key */
	uint64_t switch_ns; /**< from then on, TX seals with slot cur */
	uint64_t retire_ns; /**< from then on, the other slot is refused */
};

/** Start with one key, epoch @p epoch, in slot 0, in use at once. */
void uet_tss_epochs_init(struct uet_tss_epochs *s, uint16_t epoch);

/**
 * Rotate to a key of epoch @p epoch at @p now: accepted on RX at once,
 * sealed with from @p now + @p delay_ns, the old key refused from @p now
 * + 2 * @p delay_ns. Returns the slot to put the new key in, -EEXIST (the
 * epoch of the current key: the same key, or a new one whose number
 * collides: nothing changes), -EBUSY (the previous rotation's old key is
 * not retired yet: nothing changes).
 */
int uet_tss_epochs_rotate(struct uet_tss_epochs *s, uint16_t epoch,
			  uint64_t now, uint64_t delay_ns);

/** The slot a sender seals with at @p now. */
unsigned int uet_tss_epochs_tx(const struct uet_tss_epochs *s, uint64_t now);

/**
 * The slot of a received packet's epoch at @p now, or -ENOKEY: no such
 * epoch, or a retired one (such a packet is dropped before any crypto).
 */
int uet_tss_epochs_rx(const struct uet_tss_epochs *s, uint16_t epoch,
		      uint64_t now);

/* ------------------------------------------------------------------ */
/* TSC reservation: a key's transmit security counters across restarts */
/* ------------------------------------------------------------------ */

/** KDF label of a key's fingerprint, the name of its state file. */
#define UET_TSS_LABEL_TSC "TS"
/** TSCs reserved on disk at a time (docs/TSS.md, "The TSC of a key"). */
#define UET_TSS_TSC_BLOCK (UINT64_C(1) << 20)
/** Bytes of a state file's name: source, '.', 32 hex digits, NUL. */
#define UET_TSS_TSC_NAME_LEN 96

/**
 * The TSCs one source may use under one key (UEC 1.0 3.7: the IV holds
 * the source and the TSC, and no IV may repeat under a key; the TSC only
 * grows per source as a replay window sees it). A file in the state
 * directory, named by the source (the engine's IPv4 address) and a
 * fingerprint of the key (a KDF output, never the key), holds the
 * lowest TSC not yet reserved: everything below it may have been used.
 * Opening resumes there; TSCs are reserved a block at a time, the file
 * written (a new file, fsync, rename, fsync of the directory) before any
 * of them is used. A lock file keeps a second opener out while one holds
 * the store. Not thread-safe: the caller serialises.
 */
struct uet_tss_tsc_store {
	int dir_fd;        /**< the state directory, -1: closed */
	int lock_fd;       /**< NAME.lock, flock()ed while open */
	char name[UET_TSS_TSC_NAME_LEN]; /**< SOURCE.FINGERPRINT */
	char fp[33];       /**< the fingerprint, hex */
	uint64_t limit;    /**< TSCs below it are reserved on disk */
	uint64_t max;      /**< the last TSC the key may use */
	uint64_t block;
	bool warned;       /**< uet_tss_tsc_reserve() reported 7/8 used */
};

/**
 * Open (create) the reservation of @p key for @p source in @p dir and
 * reserve the first block. @p dir must be a directory of the calling
 * user that group and others cannot access (0700); an existing state
 * file must be a regular file of that user, mode 0600, and read as
 * written (format, fingerprint, a TSC up to @p max + 1). Nothing is
 * guessed: any doubt refuses, and @p why says what and what to do.
 * @param max    the key's last TSC (UET_TSS_TSC_MAX; less in tests)
 * @param block  TSCs per reservation, 1 .. max
 * @param first  out: the first TSC to use (1 for a new key)
 * @return 0; -ENOENT, -ENOTDIR, -EACCES (the directory); -EPERM (owner or
 *   mode of the directory or the file); -EBUSY (another opener holds
 *   it); -EBADMSG (a file that does not read as written); -ENOSPC (the
 *   key is exhausted: rotate it); -EIO and other -errno (I/O).
 */
int uet_tss_tsc_open(struct uet_tss_tsc_store *s, const char *dir,
		     const char *source, const uint8_t key[UET_TSS_KEY_LEN],
		     uint64_t max, uint64_t block, uint64_t *first,
		     char *why, size_t why_len);

/**
 * Make @p tsc reserved: when it is not yet (@c limit <= @p tsc), write a
 * limit past it, whole blocks above the current one, at most @c max + 1.
 * @return 0; 1 when this reservation passed 7/8 of the key's TSCs (once
 *   per store: the caller warns that the key needs rotating); -ENOSPC
 *   (@p tsc is beyond @c max: the key is exhausted); -errno (I/O, the
 *   reservation unchanged).
 */
int uet_tss_tsc_reserve(struct uet_tss_tsc_store *s, uint64_t tsc);

/** Release the lock; the file stays (the key's TSCs stay reserved). */
void uet_tss_tsc_close(struct uet_tss_tsc_store *s);

/* ------------------------------------------------------------------ */
/* Client/server mode: a client's keys                                 */
/* ------------------------------------------------------------------ */

/** Bytes of a client key file's content: SSI, epoch, the two keys. */
#define UET_TSS_CLIENT_KEY_LEN (4 + 2 + 2 * UET_TSS_KDF_OUT_LEN)

/**
 * What a client of client/server mode holds (UEC 1.0 3.7): its SSI, the
 * epoch number of the domain key its keys come from, and two derived
 * keys with their IV masks: @c up = KDF(domain key, "U2", epoch | 0 |
 * SSI), which the client seals with, and @c down = the same with label
 * "U3", which the server seals its packets to this client with. A server
 * holding the domain key derives both from a packet's SSI.
 */
struct uet_tss_client_key {
	uint32_t ssi;
	uint16_t epoch;
	uint8_t up[UET_TSS_KDF_OUT_LEN];
	uint8_t down[UET_TSS_KDF_OUT_LEN];
};

/**
 * One client/server key: KDF(@p dkey, @p label, @p epoch | 0 | @p ssi),
 * 44 bytes (key, IV mask).
 * @return 0, -EINVAL (label), -EIO (libcrypto).
 */
int uet_tss_cs_derive(const uint8_t dkey[UET_TSS_KEY_LEN], const char *label,
		      uint16_t epoch, uint32_t ssi,
		      uint8_t out[UET_TSS_KDF_OUT_LEN]);

/**
 * The key of rekey counter @p rekey of a client/server key rotated
 * every [tss] rekey_interval TSCs (docs/TSS.md, "Key rotation in
 * client/server mode"): KDF(@p base's 256-bit key, @p label, @p epoch |
 * @p rekey | @p ssi), 44 bytes (key, IV mask), where @p base is the
 * uet_tss_cs_derive() output a client's key file holds (its @c up or
 * @c down). Every counter's key, 0 included, comes from @p base, which
 * itself seals nothing when rotation is on. @p out may be @p base.
 * @return 0, -EINVAL (label too long), -EIO (libcrypto).
 */
int uet_tss_cs_rekey(const uint8_t base[UET_TSS_KDF_OUT_LEN],
		     const char *label, uint16_t epoch, uint32_t rekey,
		     uint32_t ssi, uint8_t out[UET_TSS_KDF_OUT_LEN]);

/**
 * The keys of client @p ssi under domain key @p dkey (its epoch number
 * from uet_tss_epoch_of_key()). The caller wipes @p ck after use.
 * @return 0, -EINVAL (SSI 0), -EIO (libcrypto).
 */
int uet_tss_client_key_derive(const uint8_t dkey[UET_TSS_KEY_LEN],
			      uint32_t ssi, struct uet_tss_client_key *ck);

/**
 * Read a client key file: UET_TSS_CLIENT_KEY_LEN bytes in hexadecimal
 * (SSI and epoch big-endian, then up, then down), with the owner and
 * mode checks of every key file (uet_parse_key_file()).
 * @return 0, -errno of uet_parse_key_file(), -EINVAL (SSI 0).
 */
int uet_tss_client_key_read(const char *path, struct uet_tss_client_key *ck,
			    char *why, size_t why_len);

/**
 * Write @p ck as a new client key file @p path, mode 0600; an existing
 * file is not replaced.
 * @return 0, -EEXIST, -errno.
 */
int uet_tss_client_key_write(const char *path,
			     const struct uet_tss_client_key *ck);

#ifdef __cplusplus
}
#endif

#endif /* UET_TSS_H */
