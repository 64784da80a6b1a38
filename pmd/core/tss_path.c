/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The transport security sublayer on the engine's RX and TX paths (UEC 1.0
 * section 3.7, docs/TSS.md): direct mode, one AES-GCM-256 key per secure
 * domain, cluster mode, a key per source derived from the domain's
 * (tss_key.c, with key rotation), or client/server mode, keys per client
 * derived from its SSI (tss_cs.c); the domains and their JobIDs from
 * [tss].
 *
 * TX (engine_tss_tx_seal, once per port flush): every staged UET frame of a
 * secure job gets a TSS header after its outer headers and an ICV at its
 * end, and is encrypted in place, the whole stage as one cryptodev burst.
 * RX (engine_tss_rx_take, per frame; engine_tss_rx_flush, per poll): a
 * protected frame is checked (trim, header, SDI, AN and epoch, replay
 * window) and queued; the queue is decrypted as one burst; a frame whose
 * ICV verifies updates the replay window, loses its TSS header and ICV and
 * goes to the hook as a plain frame. A clear frame of a secure job or PDC
 * is dropped (engine_tss_rx_clear_ok). Every drop is counted by reason.
 *
 * Which domain a frame belongs to: the JobID of its SES header when it
 * has one (requests, ACKs carrying a response). A PDS control packet
 * without one (ACK, NACK, CP) belongs to its PDC, whose domain this file
 * learns from the frames with a JobID: per context, by our PDC id (set
 * when we send or receive a request of the PDC) and by the peer's
 * {address, PDC id} (set when we receive, for the first answer of a PDC
 * the peer opened). Frames to the engine's own addresses (local_delivery.c)
 * never leave it and stay clear.
 */

#include <errno.h>
#include <string.h>

#include <rte_hash.h>
#include <rte_jhash.h>
#include <rte_malloc.h>

#include "tss_private.h"

const char *
uet_engine_tss_drop_name(unsigned int reason)
{
	static const char *const names[UET_ENGINE_TSS_DROPS] = {
		"header", "sdi", "epoch", "replay", "old", "auth", "inner",
		"job", "clear", "trimmed", "unsupported", "sources", "crypto",
		"ssi",
	};

	return reason < UET_ENGINE_TSS_DROPS ? names[reason] : "?";
}

uint16_t
uet_engine_tss_overhead(const struct uet_config *cfg)
{
	if (!cfg->tss.enabled)
		return 0;
	return (cfg->tss.mode == UET_CONFIG_TSS_CLIENT_SERVER ?
		UET_TSS_HDR_SSI_LEN : UET_TSS_HDR_LEN) + UET_TSS_ICV_LEN;
}

/* ------------------------------------------------------------------ */
/* lifecycle                                                           */
/* ------------------------------------------------------------------ */

/* Each domain's key file read, its TSCs' reservation opened
 * (tss_tsc.c): a reservation that cannot be trusted refuses the engine,
 * as a bad key file does, rather than guess a first TSC. */
static int
tss_keys_init(struct uet_engine *e)
{
	struct engine_tss *t = e->tss;
	char why[256];
	int rc = tss_epochs_init(t);

	for (unsigned int i = 0; rc == 0 && i < t->cfg.nb_domains; i++) {
		rc = tss_tsc_open(e, i, 0, t->dk[i].key[0], why, sizeof(why));
		if (rc < 0)
			ENG_LOG(ERR, "tss: domain %u: %s",
				t->cfg.domain[i].sdi, why);
	}
	return rc;
}

int
engine_tss_init(struct uet_engine *e)
{
	struct engine_tss *t;
	int rc;

	if (!e->cfg.tss.enabled)
		return 0;
	t = rte_zmalloc("uet_tss", sizeof(*t), RTE_CACHE_LINE_SIZE);
	if (t == NULL)
		return -ENOMEM;
	t->cfg = e->cfg.tss;
	t->cluster = t->cfg.mode == UET_CONFIG_TSS_CLUSTER;
	tss_meta_register(t);
	t->role = t->cfg.role;
	t->derive = t->cluster || t->role == UET_CONFIG_TSS_ROLE_SERVER ||
		    (t->role == UET_CONFIG_TSS_ROLE_CLIENT &&
		     t->cfg.rekey_interval != 0);
	t->hdr_len = t->role == UET_CONFIG_TSS_ROLE_NONE ? UET_TSS_HDR_LEN :
			       UET_TSS_HDR_SSI_LEN;
	t->aad_len = (uint8_t)(8 + 4 + t->hdr_len);
	tss_tsc_init(t);
	pthread_mutex_init(&t->reload_lock, NULL);
	atomic_init(&t->seq, 0);
	e->tss = t;
	rc = tss_keys_init(e);
	if (rc < 0) {
		engine_tss_fini(e);
		return rc;
	}
	tss_epoch_telemetry_register();
	return 0;
}

void
engine_tss_fini(struct uet_engine *e)
{
	if (e->tss != NULL) {
		explicit_bzero(e->tss->dk, sizeof(e->tss->dk));
		tss_tsc_fini(e->tss);
		pthread_mutex_destroy(&e->tss->reload_lock);
	}
	rte_free(e->tss);
	e->tss = NULL;
}

struct rte_hash *
tss_lc_hash(const struct uet_engine_lcore *lc, const char *prefix)
{
	char name[RTE_HASH_NAMESIZE];
	struct rte_hash_parameters hp = {
		.name = name,
		.entries = TSS_SOURCES,
		.key_len = sizeof(uint64_t),
		.hash_func = rte_jhash,
		.socket_id = SOCKET_ID_ANY,
	};

	snprintf(name, sizeof(name), "%s_%s_%u", prefix, lc->eng->name,
		 lc->idx);
	return rte_hash_create(&hp);
}

static int
lc_windows(struct uet_engine_lcore *lc, struct engine_tss_lc *t,
	   uint32_t size)
{
	t->src = tss_lc_hash(lc, "tss");
	t->last_win = -1;
	t->win = rte_zmalloc("uet_tss_win", sizeof(*t->win) * TSS_SOURCES,
			     RTE_CACHE_LINE_SIZE);
	if (t->src == NULL || t->win == NULL)
		return -ENOMEM;
	if (lc->eng->tss->derive) {
		t->rxk = rte_zmalloc("uet_tss_rxk", sizeof(*t->rxk) *
				     TSS_SOURCES, RTE_CACHE_LINE_SIZE);
		if (t->rxk == NULL)
			return -ENOMEM;
	}
	for (unsigned int i = 0; i < TSS_SOURCES; i++)
		(void)uet_tss_replay_init(&t->win[i], size);
	return 0;
}

void
engine_tss_lcore_fini(struct uet_engine_lcore *lc)
{
	struct engine_tss_lc *t = lc->tss;

	if (t == NULL)
		return;
	tss_key_free_all(t);
	tss_cs_lcore_fini(t);
	for (uint16_t i = 0; i < t->nb_rxq; i++)
		rte_pktmbuf_free(t->rxq[i].m);
	tss_epoch_sessions_free(t);
	explicit_bzero(t->dk, sizeof(t->dk));
	uet_tss_cdev_destroy(t->dev);
	rte_hash_free(t->src);
	rte_free(t->win);
	rte_free(t->rxk);
	rte_free(t);
	lc->tss = NULL;
}

int
engine_tss_lcore_init(struct uet_engine_lcore *lc)
{
	const struct engine_tss *e = lc->eng->tss;
	struct engine_tss_lc *t;
	int rc;

	if (e == NULL)
		return 0;
	t = rte_zmalloc("uet_tss_lc", sizeof(*t), RTE_CACHE_LINE_SIZE);
	if (t == NULL)
		return -ENOMEM;
	lc->tss = t;
	t->e = e;
	rc = uet_tss_cdev_create(e->cfg.pmd, e->cfg.devargs, SOCKET_ID_ANY,
				 tss_key_sessions(e), &t->dev);
	if (rc < 0) {
		ENG_LOG(ERR, "tss: crypto device %s: %s%s", e->cfg.pmd,
			strerror(-rc), rc == -ENODEV ? " (driver not in this "
			"DPDK: is its PMD library installed?)" : "");
		goto fail;
	}
	rc = tss_epoch_lcore_init(lc);
	if (rc == 0)
		rc = lc_windows(lc, t, e->cfg.replay_window);
	if (rc == 0)
		rc = tss_cs_lcore_init(lc);
	if (rc == 0)
		return 0;
fail:
	engine_tss_lcore_fini(lc);
	return rc;
}
