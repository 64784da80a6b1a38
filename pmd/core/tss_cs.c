/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Client/server mode on the engine (UEC 1.0 section 3.7, docs/TSS.md).
 * A client holds its own keys (a key file made by uet-tss-key derive)
 * and seals with the "U2" one, its SSI in the TSS header; a server holds
 * the domain key and derives a client's "U2" key from the header's SSI
 * (tss_key.c, cached with the client's replay window, both made only
 * once a frame verified). The server's frames to a client are sealed
 * with the client's "U3" key, a key of that direction alone, and carry
 * the client's SSI; their IV holds the server's address, so two servers
 * of a domain never meet under one IV (docs/WIRE-DECISIONS.md).
 *
 * A server learns which SSI a client address speaks for from that
 * address's first verified frame, per context, and keeps it: a frame
 * from the address naming another SSI is dropped (ssi) before any
 * crypto, so a client cannot have the server seal another client's
 * traffic under its own key by sending from that client's address.
 * Only verified frames make state, so forged SSIs take no table room.
 */

#include <errno.h>
#include <string.h>

#include <rte_hash.h>
#include <rte_malloc.h>

#include "tss_private.h"

static uint64_t
bind_key(unsigned int di, uint32_t addr)
{
	return (uint64_t)di << 32 | addr;
}

int
tss_cs_lcore_init(struct uet_engine_lcore *lc)
{
	struct engine_tss_lc *t = lc->tss;

	if (lc->eng->tss->role != UET_CONFIG_TSS_ROLE_SERVER)
		return 0;
	t->bind = tss_lc_hash(lc, "tssb");
	t->bind_ssi = rte_zmalloc("uet_tss_bind", sizeof(*t->bind_ssi) *
				  TSS_SOURCES, 0);
	t->downk = rte_zmalloc("uet_tss_down", sizeof(*t->downk) *
			       TSS_SOURCES, RTE_CACHE_LINE_SIZE);
	return t->bind == NULL || t->bind_ssi == NULL || t->downk == NULL ?
	       -ENOMEM : 0;
}

void
tss_cs_lcore_fini(struct engine_tss_lc *t)
{
	for (unsigned int b = 0; t->downk != NULL && b < TSS_SOURCES; b++)
		for (unsigned int s = 0; s < 2; s++)
			for (unsigned int a = 0; a < 2; a++)
				uet_tss_cdev_session_free(t->dev,
						t->downk[b][s][a].sess);
	rte_hash_free(t->bind);
	rte_free(t->bind_ssi);
	rte_free(t->downk);
	t->bind = NULL;
	t->bind_ssi = NULL;
	t->downk = NULL;
}

bool
tss_cs_rx_bound_ok(const struct engine_tss_lc *t, unsigned int di,
		   uint32_t addr, uint32_t ssi)
{
	uint64_t key = bind_key(di, addr);
	int b = rte_hash_lookup(t->bind, &key);

	return b < 0 || t->bind_ssi[b] == ssi;
}

void
tss_cs_rx_learn(struct engine_tss_lc *t, unsigned int di, uint32_t addr,
		uint32_t ssi)
{
	uint64_t key = bind_key(di, addr);
	int b = rte_hash_lookup(t->bind, &key);

	if (b >= 0)
		return; /* bound (to this SSI: tss_cs_rx_bound_ok) */
	b = rte_hash_add_key(t->bind, &key);
	if (b < 0)
		return; /* full: the server cannot answer this address */
	t->bind_ssi[b] = ssi;
	for (unsigned int s = 0; s < 2; s++)
		for (unsigned int a = 0; a < 2; a++) {
			uet_tss_cdev_session_free(t->dev,
						  t->downk[b][s][a].sess);
			memset(&t->downk[b][s][a], 0,
			       sizeof(t->downk[b][s][a]));
		}
}

/*
 * The down key of the client at @p dst for domain @p di's key in epoch
 * slot @p slot and rekey counter @p rekey (0 without rotation), derived
 * when this context has none for that epoch and counter; kept by AN, so
 * the keys before and after a rotation both serve a burst. A session
 * the burst being built uses (t->bs[0..pending)) is not replaced (NULL:
 * the frame is not sent).
 */
const struct tss_dkey *
tss_cs_tx_down(struct uet_engine_lcore *lc, unsigned int di,
	       unsigned int slot, uint32_t dst, uint32_t rekey,
	       uint16_t pending, uint32_t *ssi)
{
	struct engine_tss_lc *t = lc->tss;
	uint64_t key = bind_key(di, dst);
	int b = rte_hash_lookup(t->bind, &key);
	struct tss_dkey *k, fresh;

	if (b < 0)
		return NULL;
	*ssi = t->bind_ssi[b];
	k = &t->downk[b][slot][rekey & 1u];
	if (k->sess != NULL && k->epoch == t->dk[di].ep.epoch[slot] &&
	    k->rekey == rekey)
		return k;
	for (uint16_t i = 0; k->sess != NULL && i < pending; i++)
		if (t->bs[i] == k->sess)
			return NULL;
	if (tss_key_derive(t, di, slot, UET_TSS_LABEL_DOWN, *ssi, rekey, true,
			   &fresh) < 0)
		return NULL;
	uet_tss_cdev_session_free(t->dev, k->sess);
	*k = fresh;
	explicit_bzero(&fresh, sizeof(fresh));
	ENG_INC(lc->st.tss.tx_keys);
	return k;
}
