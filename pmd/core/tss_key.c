/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Cluster mode's keys (UEC 1.0 section 3.7, docs/TSS.md): each source
 * seals with a key derived from the domain key and its source identifier
 * (here its IPv4 address), KDF label "U1", context epoch | rekey |
 * source (src/tss/tss_kdf.c, docs/WIRE-DECISIONS.md); a receiver derives
 * the same key from the header's SDI and the packet's source address.
 *
 * Rotation: with rekey_interval N, the rekey counter of a packet is its
 * TSC / N, and its association number (the header's A bit) the counter's
 * low bit. The TSC never repeats under a domain, so the counter only
 * grows: a sender moves to the next key every N TSCs without a message,
 * and a receiver keeps the key of each association number, so the old
 * and the new key are both accepted across the switch; a key is retired
 * when the next-but-one replaces its slot. The replay window runs on
 * across rotations (one TSC space), so a packet replayed from before a
 * rotation is a replay or older than the window.
 *
 * Client/server mode's keys are kept the same way (a server: each
 * client's up keys per window, its down keys in tss_cs.c; a client with
 * rotation: its own up keys per port, the server's down keys per
 * window): labels "U2" and "U3", the SSI in the context, and with
 * rotation each counter's key derived from the client's key of its
 * direction (uet_tss_cs_rekey), which a client holds and a server
 * derives from the domain key.
 *
 * A receiver derives a key for a source or a counter it has no key for
 * into the packet's own session, and installs it in the source's slot
 * only once the packet's ICV verified: a forged packet cannot evict the
 * key legitimate packets use.
 */

#include <string.h>

#include <rte_byteorder.h>

#include "tss_private.h"

uint32_t
tss_rekey_of(const struct engine_tss *e, uint64_t tsc)
{
	/* the KDF context's counter is 32 bits: a counter that wraps
	 * repeats a key only with other TSCs, so never an IV under it */
	return e->cfg.rekey_interval == 0 ? 0 :
	       (uint32_t)(tsc / e->cfg.rekey_interval);
}

uint32_t
tss_key_sessions(const struct engine_tss *e)
{
	if (e->role == UET_CONFIG_TSS_ROLE_SERVER)
		/* RX: two per client window and one per queued packet;
		 * TX: four per known client address (tss_cs.c) */
		return 6u * TSS_SOURCES + TSS_RXQ;
	if (!e->derive)
		/* direct mode, a client without rotation: seal, open per
		 * domain and epoch slot */
		return 4u * e->cfg.nb_domains;
	/* RX: two per source window and one per queued packet; TX: two
	 * per port and domain */
	return 2u * TSS_SOURCES + TSS_RXQ +
	       2u * UET_CONFIG_MAX_PORTS * e->cfg.nb_domains;
}

/* @p a is a later rekey counter than @p b (serial arithmetic: the
 * counter is the TSC / interval cut to the KDF's 32 bits) */
static bool
later(uint32_t a, uint32_t b)
{
	return (int32_t)(a - b) > 0;
}

/* The 44 bytes of a client/server key (@p label U2 or U3) of client
 * @p ssi and rekey counter @p rekey: a server derives the client's key
 * from the domain key, a client holds it (its key file); with rotation,
 * each counter's key is derived from that one (uet_tss_cs_rekey). */
static int
cs_key(const struct engine_tss_lc *t, const struct tss_domain_keys *d,
       unsigned int slot, const char *label, uint32_t ssi, uint32_t rekey,
       uint8_t out[UET_TSS_KDF_OUT_LEN])
{
	bool up = strcmp(label, UET_TSS_LABEL_SERVER) == 0;
	int rc = 0;

	if (t->e->role == UET_CONFIG_TSS_ROLE_CLIENT)
		memcpy(out, up ? d->ck[slot].up : d->ck[slot].down,
		       UET_TSS_KDF_OUT_LEN);
	else
		rc = uet_tss_cs_derive(d->key[slot], label, d->ep.epoch[slot],
				       ssi, out);
	if (rc == 0 && t->e->cfg.rekey_interval != 0)
		rc = uet_tss_cs_rekey(out, label, d->ep.epoch[slot], rekey,
				      ssi, out);
	return rc;
}

/* Derive the key of {domain di's key of epoch slot @p slot, @p label,
 * source id (cluster mode: the IPv4 address; client/server: the SSI),
 * rekey} and make its session; the key bytes live on the stack only
 * while the session is made. */
int
tss_key_derive(struct engine_tss_lc *t, unsigned int di, unsigned int slot,
	       const char *label, uint32_t id, uint32_t rekey, bool seal,
	       struct tss_dkey *k)
{
	uint8_t ctx[UET_TSS_KDF_CTX_V6_LEN], out[UET_TSS_KDF_OUT_LEN];
	const struct tss_domain_keys *d = &t->dk[di];
	uint32_t be = rte_cpu_to_be_32(id);
	/* cluster mode's keys protect frames without an SSI, client/server
	 * mode's (U2, U3) frames with one: the AAD holds the TSS header */
	bool cluster = strcmp(label, UET_TSS_LABEL_CLUSTER) == 0;
	uint8_t aad = cluster ? AAD_V4 : AAD_V4_SSI;
	int n, rc;

	if (cluster) {
		n = uet_tss_kdf_ctx(d->ep.epoch[slot], rekey,
				    (const uint8_t *)&be, sizeof(be), ctx);
		rc = n < 0 ? n : uet_tss_kdf(d->key[slot], label, ctx,
					     (size_t)n, out, sizeof(out));
	} else {
		rc = cs_key(t, d, slot, label, id, rekey, out);
	}
	if (rc == 0)
		rc = uet_tss_cdev_session(t->dev, out, seal, aad, &k->sess);
	if (rc == 0) {
		memcpy(k->mask, out + UET_TSS_KEY_LEN, UET_TSS_IV_LEN);
		k->src = id;
		k->rekey = rekey;
		k->epoch = d->ep.epoch[slot];
	}
	explicit_bzero(out, sizeof(out));
	return rc;
}

/*
 * The key this context seals a frame of domain @p di from @p src with,
 * derived when the rekey counter moved on. @p pending: the sessions of
 * the burst being built (t->bs[0..pending)), which must outlive it: a
 * slot one of them uses is not replaced (NULL, the frame is not sent;
 * only a sender whose TSCs moved two intervals within one burst of its
 * own gets there).
 */
struct tss_dkey *
tss_key_tx(struct uet_engine_lcore *lc, uint16_t port, unsigned int di,
	   unsigned int slot, uint32_t src, uint32_t rekey, uint16_t pending)
{
	struct engine_tss_lc *t = lc->tss;
	struct tss_dkey *k = &t->txk[port][di][rekey & 1u];
	struct tss_dkey fresh;

	if (k->sess != NULL && k->rekey == rekey && k->src == src &&
	    k->epoch == t->dk[di].ep.epoch[slot])
		return k;
	for (uint16_t i = 0; k->sess != NULL && i < pending; i++)
		if (t->bs[i] == k->sess)
			return NULL;
	/* cluster mode: this source's key; a client: its up key */
	if (tss_key_derive(t, di, slot, t->e->cluster ? UET_TSS_LABEL_CLUSTER :
			   UET_TSS_LABEL_SERVER, src, rekey, true, &fresh) < 0)
		return NULL;
	uet_tss_cdev_session_free(t->dev, k->sess);
	*k = fresh;
	explicit_bzero(&fresh, sizeof(fresh));
	ENG_INC(lc->st.tss.tx_keys);
	return k;
}

/*
 * The session and IV mask to open a frame of @p it (its an, rekey,
 * win and src set), its key derived for @p id (cluster mode: the
 * source's address; a client/server server: the client's SSI, label
 * "U2"; a client with rotation: its own SSI, label "U3"; the IV takes
 * it->src, the server's address): the source's slot when it holds that
 * key, else a key derived for this frame alone (it->fresh; always for
 * a source without a window yet: windows are made for verified frames
 * only). Returns 0, or a drop
 * reason + 1: the slot holds a later key of the same domain key (this
 * one is retired), or the derivation failed. A slot holding a key of
 * another epoch (a domain key rotation) is not compared: the epoch is
 * checked before (tss_rx.c), and frames of the old epoch in flight
 * across the switch each derive their own key.
 */
int
tss_key_rx(struct engine_tss_lc *t, const char *label, unsigned int di,
	   uint32_t id, struct tss_rx_item *it)
{
	static const struct tss_dkey none;
	const struct tss_dkey *k = it->win == TSS_WIN_NONE ? &none :
				   &t->rxk[it->win][it->an];
	bool same = k->sess != NULL && k->epoch == it->epoch;
	struct tss_dkey fresh;

	it->fresh = NULL;
	if (same && k->rekey == it->rekey) {
		it->sess = k->sess;
		uet_tss_iv(it->src, it->epoch, it->tsc, k->mask, it->iv);
		return 0;
	}
	if (same && later(k->rekey, it->rekey))
		return 1 + UET_ENGINE_TSS_DROP_EPOCH;
	if (tss_key_derive(t, di, it->slot, label, id, it->rekey, false,
			   &fresh) < 0)
		return 1 + UET_ENGINE_TSS_DROP_CRYPTO;
	it->sess = fresh.sess;
	it->fresh = fresh.sess;
	memcpy(it->mask, fresh.mask, sizeof(it->mask));
	explicit_bzero(&fresh, sizeof(fresh));
	uet_tss_iv(it->src, it->epoch, it->tsc, it->mask, it->iv);
	return 0;
}

/*
 * After the burst ran (no op uses a session any more): a key derived
 * for a frame whose ICV verified takes its slot when it is later than
 * the slot's (the one it replaces, two rotations old, is retired) or
 * the slot's is of an older domain key; any other is freed (also one
 * of a domain key on its way out).
 */
void
tss_key_rx_done(struct uet_engine_lcore *lc, struct tss_rx_item *it,
		bool verified)
{
	struct engine_tss_lc *t = lc->tss;
	struct tss_dkey *k;

	if (it->fresh == NULL)
		return;
	if (it->win == TSS_WIN_NONE) {
		/* no window could be made for it: dropped (sources) */
		uet_tss_cdev_session_free(t->dev, it->fresh);
		it->fresh = NULL;
		return;
	}
	k = &t->rxk[it->win][it->an];
	if (verified && it->slot == t->dk[it->di].ep.cur &&
	    (k->sess == NULL || k->epoch != it->epoch ||
	     later(it->rekey, k->rekey))) {
		uet_tss_cdev_session_free(t->dev, k->sess);
		k->sess = it->fresh;
		k->rekey = it->rekey;
		k->epoch = it->epoch;
		memcpy(k->mask, it->mask, sizeof(k->mask));
		ENG_INC(lc->st.tss.rx_keys);
	} else {
		uet_tss_cdev_session_free(t->dev, it->fresh);
	}
	it->fresh = NULL;
}

/* The derived keys' sessions (a frame's fresh one never outlives the
 * flush that made it). */
void
tss_key_free_all(struct engine_tss_lc *t)
{
	for (unsigned int p = 0; p < UET_CONFIG_MAX_PORTS; p++)
		for (unsigned int d = 0; d < UET_CONFIG_TSS_DOMAINS_MAX; d++)
			for (unsigned int a = 0; a < 2; a++)
				uet_tss_cdev_session_free(t->dev,
						t->txk[p][d][a].sess);
	for (unsigned int w = 0; t->rxk != NULL && w < TSS_SOURCES; w++)
		for (unsigned int a = 0; a < 2; a++)
			uet_tss_cdev_session_free(t->dev, t->rxk[w][a].sess);
	explicit_bzero(t->txk, sizeof(t->txk));
}
