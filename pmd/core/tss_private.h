/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef UET_TSS_PRIVATE_H
#define UET_TSS_PRIVATE_H

/*
 * State of the transport security sublayer on the engine paths
 * (tss_path.c: lifecycle, tss_tx.c, tss_rx.c). See tss_path.c.
 */

#include <pthread.h>
#include <stdatomic.h>

#include <uet/uet_tss.h>
#include <uet/uet_tss_cdev.h>

#include "engine_private.h"

#define TSS_SOURCES  1024  /* replay windows per context */
#define TSS_PEERS    4096  /* {peer address, peer PDC id} -> domain */
#define TSS_RXQ      UET_ENGINE_BURST_MAX
/* pdc_dom values: 0 not known, 1 clear, 2 + domain index */
#define DOM_UNKNOWN  0
#define DOM_CLEAR    1
#define DOM_OF(i)    ((uint8_t)(2 + (i)))
/* AAD of an IPv4 frame without SSI: addresses, entropy, TSS header */
#define AAD_V4       (8 + 4 + UET_TSS_HDR_LEN)
/* the same with the SSI (client/server mode) */
#define AAD_V4_SSI   (8 + 4 + UET_TSS_HDR_SSI_LEN)
/* a replay window not created yet (tss_rx.c: only for a verified frame) */
#define TSS_WIN_NONE UINT32_MAX

/*
 * A derived key of cluster mode (UEC 1.0 3.7): the AEAD session of one
 * {domain, source, rekey counter}, and its IV mask. Kept in two slots per
 * {domain, source}, by association number (the rekey counter's low bit):
 * the key in use and the one before or after it, both valid across a
 * rotation (tss_key.c).
 */
struct tss_dkey {
	struct uet_tss_cdev_sess *sess; /* NULL: slot empty */
	uint32_t src;                   /* TX: the source it was made for */
	uint32_t rekey;
	uint16_t epoch;                 /* of the domain key it comes from */
	uint8_t mask[UET_TSS_IV_LEN];
};

struct tss_peer {
	uint8_t fa[16];
	uint16_t pdcid;
	uint8_t dom;
};

struct tss_rx_item {
	struct rte_mbuf *m;
	uint16_t port;
	uint16_t queue;
	/* the outer headers as decoded before decryption (hdr_len: where
	 * the TSS header is; inner_len: TSS header to ICV end, no link
	 * padding): the opened frame's parse starts from them */
	struct uet_wire_outer outer;
	uint8_t dom;
	uint32_t win;      /* replay window index, TSS_WIN_NONE: none yet */
	uint8_t an;        /* association number: slot of the derived key */
	uint8_t slot;      /* epoch slot of the domain key (tss_epoch_slot) */
	uint16_t epoch;    /* the header's epoch */
	uint8_t di;        /* domain index */
	uint32_t src;      /* the source's identity (window, IV, KDF): the
			    * SSI at a server, else the IPv4 source address,
			    * host order */
	uint32_t addr;     /* IPv4 source address, host order */
	uint32_t rekey;    /* cluster: the rekey counter of the TSC */
	struct uet_tss_cdev_sess *sess;  /* the AEAD session to open it */
	struct uet_tss_cdev_sess *fresh; /* derived for it: installed in the
					  * source's slot once it verifies */
	uint8_t mask[UET_TSS_IV_LEN];    /* fresh's IV mask */
	uint64_t tsc;
	uint8_t iv[UET_TSS_IV_LEN];
	uint8_t aad[AAD_V4_SSI];
};

/*
 * The generations of a domain key (src/tss/tss_epoch.c): the key of each
 * epoch slot and the epochs' phases. The engine's copy is written by
 * uet_engine_tss_reload(); each context works on its own copy, taken
 * when the engine's sequence number moved (tss_epoch_sync).
 */
struct tss_domain_keys {
	uint8_t key[2][UET_CONFIG_TSS_KEY_LEN];
	struct uet_tss_epochs ep;
	uint32_t gen[2];  /* the rotation that put each slot's key there */
	/* role = client: this client's keys by epoch slot (key[] holds
	 * their up key: the TSC reservation's fingerprint) */
	struct uet_tss_client_key ck[2];
};

struct engine_tss_lc {
	const struct engine_tss *e;
	struct uet_tss_cdev *dev;
	/* direct mode: the sessions of each domain's epoch slots, and the
	 * epoch each was made for */
	struct uet_tss_cdev_sess *seal[UET_CONFIG_TSS_DOMAINS_MAX][2];
	struct uet_tss_cdev_sess *open[UET_CONFIG_TSS_DOMAINS_MAX][2];
	uint16_t sess_epoch[UET_CONFIG_TSS_DOMAINS_MAX][2];
	uint32_t seq;   /* engine_tss.seq of the copy below */
	struct tss_domain_keys dk[UET_CONFIG_TSS_DOMAINS_MAX];
	/* the keys whose replay windows this context holds, by domain
	 * and slot (tss_epoch_sync_slow purges a replaced key's) */
	uint16_t win_epoch[UET_CONFIG_TSS_DOMAINS_MAX][2];
	uint32_t win_gen[UET_CONFIG_TSS_DOMAINS_MAX][2];
	bool win_valid[UET_CONFIG_TSS_DOMAINS_MAX][2];
	struct rte_hash *src;   /* {domain, epoch, source} -> window */
	uint64_t last_key;      /* the last window looked up, -1: none */
	int32_t last_win;
	struct uet_tss_replay *win;
	/* derived keys (engine_tss.derive): per window, by AN */
	struct tss_dkey (*rxk)[2];
	/* derived keys: those this context seals with, per port and domain
	 * (a client's: its own SSI's, whatever the port) */
	struct tss_dkey txk[UET_CONFIG_MAX_PORTS][UET_CONFIG_TSS_DOMAINS_MAX][2];
	uint16_t nb_rxq;
	struct tss_rx_item rxq[TSS_RXQ];
	/* scratch of one crypto burst */
	struct uet_tss_cdev_sess *bs[ENG_TX_STAGE];
	struct rte_mbuf *bm[ENG_TX_STAGE];
	uint16_t bcs[ENG_TX_STAGE];   /* UDP header offset to checksum, 0 */
	uint8_t bhl[ENG_TX_STAGE];    /* IP header length */
	struct uet_tss_cdev_op bop[ENG_TX_STAGE];
	int brc[ENG_TX_STAGE];
	uint8_t biv[ENG_TX_STAGE][UET_TSS_IV_LEN];
	uint8_t baad[ENG_TX_STAGE][AAD_V4_SSI];
	/* role = server: the SSI each client address speaks for, learnt
	 * from its verified frames ({domain, address} -> index), and the
	 * keys this context seals to it with, by epoch slot and AN
	 * (tss_cs.c) */
	struct rte_hash *bind;
	uint32_t *bind_ssi;
	struct tss_dkey (*downk)[2][2];
	struct tss_peer peer[TSS_PEERS];
	struct tss_peer *peer_last;  /* the entry tss_peer_set last wrote */
	uint8_t pdc_dom[65536];  /* by our PDC id */
};

/*
 * The TSCs of one key (a domain's epoch slot, tss_tsc.c): the next one to
 * take, shared by the contexts, and the end of its reservations on disk.
 */
struct tss_tsc {
	_Atomic uint64_t next;
	_Atomic uint64_t limit;  /* TSCs below it are reserved (0: none) */
	_Atomic bool told;       /* a failure was logged */
	pthread_mutex_t lock;    /* the stores, extending the reservation */
	/* one per source address of the engine (tss_tsc_open) */
	struct uet_tss_tsc_store st[UET_CONFIG_MAX_PORTS];
	uint8_t nst;
};

/*
 * Where the headers of a frame to seal are, as its builder told
 * (uet_engine_tx_meta_set): an mbuf dynamic field, valid while the
 * engine's dynamic flag is set in ol_flags.
 */
struct tss_tx_meta {
	uint16_t pds_off;   /* outer headers' length */
	uint16_t src, dst;  /* PDC ids (tss_pdc_ids) */
	uint8_t ip_hlen;
	uint8_t pds_len;    /* PDS header bytes */
	uint8_t type;       /* PDS type */
	uint8_t next_hdr;   /* PDS next header */
	uint8_t bits;       /* TSS_META_* */
};
#define TSS_META_NATIVE 0x1  /* entropy header, no UDP */
#define TSS_META_PDC    0x2  /* src is valid */
#define TSS_META_DST    0x4  /* dst is valid */

/*
 * What sealing reads of a frame: from its parse, or from its builder's
 * tss_tx_meta without one. Of the outer headers, those the AAD, the
 * length fields and the checksum need.
 */
struct tss_tx_view {
	struct uet_wire_outer o;
	uint16_t ses_off;      /* after the PDS header */
	uint16_t payload_len;  /* bytes after the PDS header */
	uint8_t type;
	uint8_t next_hdr;
	bool pdc, has_dst;
	uint16_t src, dst;
};

struct engine_tss {
	struct uet_config_tss cfg;
	bool cluster;      /* keys derived per source (mode = cluster) */
	/* keys derived per source and rekey counter, kept by AN (rxk,
	 * txk): cluster mode, a server, a client with rekey_interval */
	bool derive;
	/* struct tss_tx_meta in the mbuf: offset, flag (0: not registered,
	 * every frame is parsed) */
	int meta_off;
	uint64_t meta_flag;
	enum uet_config_tss_role role; /* client_server mode's side */
	uint8_t hdr_len;   /* TSS header: with the SSI in client_server */
	uint8_t aad_len;
	/* the domain keys by epoch slot (wiped at fini), written by
	 * uet_engine_tss_reload under seq, odd while it writes (a seqlock:
	 * the contexts copy them, never wait) */
	_Atomic uint32_t seq;
	pthread_mutex_t reload_lock;  /* one reload at a time */
	struct tss_domain_keys dk[UET_CONFIG_TSS_DOMAINS_MAX];
	/* a reload's work copy (under reload_lock; wiped after use) */
	struct tss_domain_keys next[UET_CONFIG_TSS_DOMAINS_MAX];
	/* the TSCs of each domain key, by epoch slot (UEC 1.0 3.7: a TSC
	 * never repeats under a key) */
	struct tss_tsc tsc[UET_CONFIG_TSS_DOMAINS_MAX][2];
};

/* The domain (DOM_*) of a frame decoded up to its PDS header (type @p
 * type, next header @p next_hdr, @p len bytes @p ses after it): from the
 * JobID field of its SES header (read in place; the SES decodes the
 * header); -1: no SES header; -2: an SES header too short for its format
 * (its JobID unknown). */
int tss_job_dom(const struct engine_tss *e, uint8_t type, bool trimmed,
		const uint8_t *ses, size_t len, unsigned int next_hdr,
		uint8_t *dom);
/* tss_job_dom() of a parsed frame */
int tss_frame_job_dom(const struct engine_tss *e, const struct uet_wire_pkt *p,
		      const uint8_t *frame, uint8_t *dom);
/* tss_tx.c: the dynamic field of struct tss_tx_meta (engine_tss_init) */
void tss_meta_register(struct engine_tss *e);

/* PDC ids of a PDS header: @p src (always), @p dst (false for SYN
 * requests). Returns false for datagrams (no PDC). */
bool tss_pdc_ids(const struct uet_wire_pds_hdr *h, uint16_t *src, uint16_t *dst,
		 bool *has_dst);

uint8_t tss_peer_get(const struct engine_tss_lc *t, const uint8_t fa[16],
		     uint16_t pdcid);
void tss_peer_set(struct engine_tss_lc *t, const uint8_t fa[16],
		  uint16_t pdcid, uint8_t dom);

/* tss_rx.c: forget a retired key's replay windows */
void tss_windows_purge(struct engine_tss_lc *t, unsigned int di,
		       uint16_t epoch);

/* tss_epoch.c: domain key generations on the engine */
int tss_epochs_init(struct engine_tss *t);
void tss_epoch_sync_slow(struct uet_engine_lcore *lc);
/* Take up a reload the context has not seen yet (one atomic load). */
static inline void
tss_epoch_sync(struct uet_engine_lcore *lc)
{
	if (atomic_load_explicit(&lc->eng->tss->seq, memory_order_acquire) !=
	    lc->tss->seq)
		tss_epoch_sync_slow(lc);
}
void tss_epoch_sessions_free(struct engine_tss_lc *t);
void tss_epoch_sessions_update(struct uet_engine_lcore *lc);
int tss_epoch_lcore_init(struct uet_engine_lcore *lc);
void tss_epoch_telemetry_register(void);

/* tss_tsc.c: the TSCs of each key, reserved on disk */
void tss_tsc_init(struct engine_tss *e);
void tss_tsc_fini(struct engine_tss *e);
int tss_tsc_open(struct uet_engine *eng, unsigned int di, unsigned int slot,
		 const uint8_t key[UET_CONFIG_TSS_KEY_LEN], char *why,
		 size_t why_len);
int tss_tsc_slow(struct uet_engine_lcore *lc, unsigned int di,
		 unsigned int slot, uint64_t tsc);
/* The next TSC of domain @p di's key in @p slot: 0, -ENOSPC (the key is
 * exhausted), -EIO (no reservation). One atomic add unless the
 * reservation needs extending. */
static inline int
tss_tsc_take(struct uet_engine_lcore *lc, unsigned int di, unsigned int slot,
	     uint64_t *tsc)
{
	struct tss_tsc *a = &lc->eng->tss->tsc[di][slot];

	*tsc = atomic_fetch_add_explicit(&a->next, 1, memory_order_relaxed);
	if (likely(*tsc + UET_TSS_TSC_BLOCK / 2 <
		   atomic_load_explicit(&a->limit, memory_order_acquire)))
		return 0;
	return tss_tsc_slow(lc, di, slot, *tsc);
}

/* tss_key.c: cluster mode's derived keys and the rekey counter */
uint32_t tss_rekey_of(const struct engine_tss *e, uint64_t tsc);
struct tss_dkey *tss_key_tx(struct uet_engine_lcore *lc, uint16_t port,
			    unsigned int di, unsigned int slot, uint32_t src,
			    uint32_t rekey, uint16_t pending);
int tss_key_rx(struct engine_tss_lc *t, const char *label, unsigned int di,
	       uint32_t id, struct tss_rx_item *it);
void tss_key_rx_done(struct uet_engine_lcore *lc, struct tss_rx_item *it,
		     bool verified);
void tss_key_free_all(struct engine_tss_lc *t);
int tss_key_derive(struct engine_tss_lc *t, unsigned int di,
		   unsigned int slot, const char *label, uint32_t id,
		   uint32_t rekey, bool seal, struct tss_dkey *k);

/* tss_cs.c: client/server mode (UEC 1.0 3.7, docs/TSS.md) */
/* A table of context @p lc keyed by 64-bit values, TSS_SOURCES entries,
 * named from @p prefix, the engine and the context; NULL on failure. */
struct rte_hash *tss_lc_hash(const struct uet_engine_lcore *lc,
			     const char *prefix);
int tss_cs_lcore_init(struct uet_engine_lcore *lc);
void tss_cs_lcore_fini(struct engine_tss_lc *t);
/* Server: the SSI and key (rekey counter @p rekey) to seal a frame of
 * domain @p di to @p dst (IPv4, host order) with; NULL: no client of that address is known
 * (a server answers, it does not call first). */
const struct tss_dkey *tss_cs_tx_down(struct uet_engine_lcore *lc,
				      unsigned int di, unsigned int slot,
				      uint32_t dst, uint32_t rekey,
				      uint16_t pending, uint32_t *ssi);
/* Server: drop before any crypto a frame whose address speaks for
 * another SSI (false). */
bool tss_cs_rx_bound_ok(const struct engine_tss_lc *t, unsigned int di,
			uint32_t addr, uint32_t ssi);
/* Server: learn the SSI of a verified frame's address. */
void tss_cs_rx_learn(struct engine_tss_lc *t, unsigned int di, uint32_t addr,
		     uint32_t ssi);
uint32_t tss_key_sessions(const struct engine_tss *e);

/* Add (delta > 0) or remove bytes after the outer headers: IP and UDP
 * lengths and the IPv4 header checksum follow. */
void tss_lengths_adjust(uint8_t *frame, const struct uet_wire_outer *o, int delta);

#endif /* UET_TSS_PRIVATE_H */
