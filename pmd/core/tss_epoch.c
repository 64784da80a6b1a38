/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Rotating a secure domain's key without a restart (UEC 1.0 section 3.7:
 * the TSS header's epoch selects the key; docs/TSS.md, "Rotating a
 * domain key"). uet_engine_tss_reload() reads the key files again; a
 * domain whose key changed gets it as a new epoch (its number from the
 * key, src/tss/tss_epoch.c), accepted on RX at once, sealed with
 * [tss] epoch_switch later, the old key refused twice that later. Each
 * key has its own TSCs (tss_tsc.c) and, at a receiver, its own replay
 * window per source: a packet replayed from before the switch meets the
 * old key's window while that key is accepted, and is an epoch drop
 * after. A context forgets the windows of a key a rotation replaced.
 *
 * The engine's keys and epochs are written under a sequence number (odd
 * while written); a context copies them when the number moved, at the
 * start of a TX seal or an RX take or flush, and (direct mode) makes the
 * sessions of a slot whose epoch changed. Contexts never wait: a copy
 * that raced a write is retried at the next call.
 */

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_telemetry.h>

#include "tss_private.h"

/* Domain @p i's key file: the domain key and its epoch number, or (a
 * client of client/server mode) this client's keys, their epoch the
 * domain key's they were derived from, @p key their up key (what the
 * TSC reservation is named by). */
static int
key_file_read(const struct engine_tss *t, unsigned int i,
	      uint8_t key[UET_CONFIG_TSS_KEY_LEN],
	      struct uet_tss_client_key *ck, uint16_t *epoch, char *why,
	      size_t why_len)
{
	const char *path = t->cfg.domain[i].key_file;
	int rc;

	memset(ck, 0, sizeof(*ck));
	if (t->role != UET_CONFIG_TSS_ROLE_CLIENT) {
		rc = uet_config_tss_key_read(path, key, why, why_len);
		if (rc == 0 && uet_tss_epoch_of_key(key, epoch) < 0) {
			snprintf(why, why_len, "epoch number: libcrypto "
				 "failed");
			rc = -EIO;
		}
		return rc;
	}
	rc = uet_tss_client_key_read(path, ck, why, why_len);
	if (rc == 0 && ck->ssi != t->cfg.ssi) {
		snprintf(why, why_len, "derived for SSI %u, not this "
			 "client's (%u)", ck->ssi, t->cfg.ssi);
		rc = -EINVAL;
	}
	if (rc == 0) {
		memcpy(key, ck->up, UET_CONFIG_TSS_KEY_LEN);
		*epoch = ck->epoch;
	}
	return rc;
}

/* The epochs of every domain at start: each key file's key, in slot 0. */
int
tss_epochs_init(struct engine_tss *t)
{
	char why[160];
	int rc;

	for (unsigned int i = 0; i < t->cfg.nb_domains; i++) {
		struct tss_domain_keys *d = &t->dk[i];
		uint16_t epoch = 0;

		rc = key_file_read(t, i, d->key[0], &d->ck[0], &epoch, why,
				   sizeof(why));
		if (rc < 0) {
			ENG_LOG(ERR, "tss: domain %u: key file %s: %s",
				t->cfg.domain[i].sdi,
				t->cfg.domain[i].key_file, why);
			return rc;
		}
		uet_tss_epochs_init(&d->ep, epoch);
	}
	return 0;
}

/* Read every key file; the domains whose key changed rotate in @p next
 * (a copy of the engine's), and the TSC reservation of the new key
 * replaces the retired key's in its slot (tss_tsc.c): the new epoch's
 * TSCs start where that key's reservation ends, 1 for a key never used.
 * Returns the number rotated or -errno. */
static int
reload_prepare(struct uet_engine *eng, struct tss_domain_keys *next,
	       uint64_t now, char *why, size_t why_len)
{
	const struct engine_tss *t = eng->tss;
	uint8_t key[UET_CONFIG_TSS_KEY_LEN];
	struct uet_tss_client_key ck;
	char r[256];
	int n = 0, rc = 0;

	for (unsigned int i = 0; i < t->cfg.nb_domains && rc >= 0; i++) {
		struct tss_domain_keys *d = &next[i];
		uint16_t epoch = 0;

		rc = key_file_read(t, i, key, &ck, &epoch, r, sizeof(r));
		if (rc < 0) {
			snprintf(why, why_len, "domain %u: key file %s: %s",
				 t->cfg.domain[i].sdi,
				 t->cfg.domain[i].key_file, r);
			break;
		}
		if (memcmp(key, d->key[d->ep.cur], sizeof(key)) == 0)
			continue; /* unchanged */
		rc = uet_tss_epochs_rotate(&d->ep, epoch, now,
					   t->cfg.epoch_switch_ns);
		if (rc < 0) {
			snprintf(why, why_len, "domain %u: %s",
				 t->cfg.domain[i].sdi, rc == -EBUSY ?
				 "the previous key is still accepted (twice "
				 "epoch_switch after its rotation)" :
				 rc == -EEXIST ? "the new key's epoch number "
				 "equals the current key's: generate another "
				 "key" : "epoch number: libcrypto failed");
			break;
		}
		memcpy(d->key[rc], key, sizeof(key));
		d->ck[rc] = ck;
		d->gen[rc] = d->gen[rc ^ 1] + 1;
		/* the slot's old key is retired (rotate refuses before):
		 * no context takes its TSCs any more */
		rc = tss_tsc_open(eng, i, (unsigned int)rc, key, r, sizeof(r));
		if (rc < 0) {
			snprintf(why, why_len, "domain %u: %s",
				 t->cfg.domain[i].sdi, r);
			break;
		}
		n++;
	}
	explicit_bzero(key, sizeof(key));
	explicit_bzero(&ck, sizeof(ck));
	return rc < 0 ? rc : n;
}

int
uet_engine_tss_reload(struct uet_engine *e, char *why, size_t why_len)
{
	struct engine_tss *t = e->tss;
	char dummy[1];
	int n;

	if (why == NULL || why_len == 0) {
		why = dummy;
		why_len = sizeof(dummy);
	}
	why[0] = '\0';
	if (t == NULL) {
		snprintf(why, why_len, "[tss] is not enabled");
		return -ENOTSUP;
	}
	pthread_mutex_lock(&t->reload_lock);
	memcpy(t->next, t->dk, sizeof(t->next));
	n = reload_prepare(e, t->next, uet_engine_now(e), why, why_len);
	if (n > 0) {
		atomic_fetch_add_explicit(&t->seq, 1, memory_order_relaxed);
		atomic_thread_fence(memory_order_release);
		memcpy(t->dk, t->next, sizeof(t->dk));
		atomic_fetch_add_explicit(&t->seq, 1, memory_order_release);
		ENG_LOG(INFO, "tss: %d domain key(s) rotated", n);
	}
	explicit_bzero(t->next, sizeof(t->next));
	pthread_mutex_unlock(&t->reload_lock);
	return n;
}

/* /uet/tss_reload: {"rotated": N}, or {"error": why, "errno": -N} (the
 * engine's answer, not the telemetry's "not provided"). */
static int
tss_reload_tel(struct uet_engine *e, struct rte_tel_data *d)
{
	char why[RTE_TEL_MAX_STRING_LEN];
	int rc = uet_engine_tss_reload(e, why, sizeof(why));

	if (rc >= 0) {
		rte_tel_data_add_dict_u64(d, "rotated", (uint64_t)rc);
		return 0;
	}
	rte_tel_data_add_dict_string(d, "error", why);
	rte_tel_data_add_dict_int(d, "errno", rc);
	return 0;
}

void
tss_epoch_telemetry_register(void)
{
	int rc = uet_engine_telemetry_add("/uet/tss_reload", tss_reload_tel,
		"Read the [tss] key files again; a domain whose key changed "
		"rotates to it (docs/TSS.md). Parameter: engine index");

	if (rc < 0)
		ENG_LOG(WARNING, "tss: /uet/tss_reload: %s", strerror(-rc));
}

void
tss_epoch_sessions_free(struct engine_tss_lc *t)
{
	for (unsigned int i = 0; i < UET_CONFIG_TSS_DOMAINS_MAX; i++)
		for (unsigned int s = 0; s < 2; s++) {
			uet_tss_cdev_session_free(t->dev, t->seal[i][s]);
			uet_tss_cdev_session_free(t->dev, t->open[i][s]);
			t->seal[i][s] = NULL;
			t->open[i][s] = NULL;
		}
}

/* Direct mode: the sessions of the slots whose epoch changed (a client
 * of client/server mode: its up key seals, its down key opens). A slot
 * left without a session fails its frames (tx_fail, crypto) rather than
 * seal or open them with another key. */
void
tss_epoch_sessions_update(struct uet_engine_lcore *lc)
{
	struct engine_tss_lc *t = lc->tss;
	const struct engine_tss *e = lc->eng->tss;
	bool client = e->role == UET_CONFIG_TSS_ROLE_CLIENT;
	unsigned int nd = e->cfg.nb_domains;

	for (unsigned int i = 0; i < nd; i++)
		for (unsigned int s = 0; s < 2; s++) {
			const struct tss_domain_keys *d = &t->dk[i];

			if (!d->ep.valid[s] || (t->seal[i][s] != NULL &&
			    t->sess_epoch[i][s] == d->ep.epoch[s]))
				continue;
			uet_tss_cdev_session_free(t->dev, t->seal[i][s]);
			uet_tss_cdev_session_free(t->dev, t->open[i][s]);
			t->seal[i][s] = NULL;
			t->open[i][s] = NULL;
			if (uet_tss_cdev_session(t->dev, client ?
						 d->ck[s].up : d->key[s], true,
						 e->aad_len,
						 &t->seal[i][s]) < 0 ||
			    uet_tss_cdev_session(t->dev, client ?
						 d->ck[s].down : d->key[s],
						 false, e->aad_len,
						 &t->open[i][s]) < 0) {
				ENG_LOG(ERR, "tss: domain %u epoch %u: no "
					"session", lc->eng->tss->cfg.domain[i].sdi,
					d->ep.epoch[s]);
				continue;
			}
			t->sess_epoch[i][s] = d->ep.epoch[s];
		}
}

/* Note the keys whose windows the context holds; with @p purge, first
 * forget the windows of every key a rotation replaced since. */
static void
windows_follow(struct engine_tss_lc *t, unsigned int nd, bool purge)
{
	for (unsigned int i = 0; i < nd; i++)
		for (unsigned int s = 0; s < 2; s++) {
			const struct tss_domain_keys *d = &t->dk[i];

			if (purge && t->win_valid[i][s] &&
			    (!d->ep.valid[s] || d->gen[s] != t->win_gen[i][s]))
				tss_windows_purge(t, i, t->win_epoch[i][s]);
			t->win_valid[i][s] = d->ep.valid[s];
			t->win_epoch[i][s] = d->ep.epoch[s];
			t->win_gen[i][s] = d->gen[s];
		}
}

void
tss_epoch_sync_slow(struct uet_engine_lcore *lc)
{
	struct engine_tss *e = lc->eng->tss;
	struct engine_tss_lc *t = lc->tss;
	uint32_t seq = atomic_load_explicit(&e->seq, memory_order_acquire);

	if (seq & 1u)
		return; /* being written: next time */
	memcpy(t->dk, e->dk, sizeof(t->dk));
	atomic_thread_fence(memory_order_acquire);
	if (atomic_load_explicit(&e->seq, memory_order_relaxed) != seq)
		return;
	ENG_INC(lc->st.tss.epochs);
	t->seq = seq;
	windows_follow(t, e->cfg.nb_domains, true);
	if (!e->derive)
		tss_epoch_sessions_update(lc);
}

/* A new context: the engine's keys (no reload runs before the engine is
 * created) and, in direct mode, their sessions. */
int
tss_epoch_lcore_init(struct uet_engine_lcore *lc)
{
	struct engine_tss_lc *t = lc->tss;

	memcpy(t->dk, lc->eng->tss->dk, sizeof(t->dk));
	t->seq = atomic_load_explicit(&lc->eng->tss->seq,
				      memory_order_acquire);
	windows_follow(t, lc->eng->tss->cfg.nb_domains, false);
	if (lc->eng->tss->derive)
		return 0;
	tss_epoch_sessions_update(lc);
	for (unsigned int i = 0; i < lc->eng->tss->cfg.nb_domains; i++)
		if (t->seal[i][0] == NULL)
			return -ENOMEM;
	return 0;
}
