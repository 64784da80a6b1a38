/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The TSCs a sender seals with (UEC 1.0 section 3.7: the IV holds the
 * source and the TSC, and no IV may repeat under a key; the receiver's
 * replay window wants a source's TSCs to grow). The TSC space belongs to
 * a key: each domain's epoch slot has its own counter, started from that
 * key's reservation on disk (src/tss/tss_tsc.c, [tss] state_dir), so a
 * new key starts low, a restarted engine goes on above every TSC it could
 * have used, and a key used again finds its reservation. The contexts
 * share a slot's counter (one atomic add per frame); a context whose TSC
 * comes within half a block of the reservation's end extends it (a file
 * written and synced, once per UET_TSS_TSC_BLOCK / 2 frames), so that the
 * others never wait unless they outrun the disk. A TSC past the key's
 * last is refused (tx_key_exhausted) until the key is rotated.
 */

#include <arpa/inet.h>
#include <errno.h>
#include <string.h>

#include "tss_private.h"

#define AHEAD (UET_TSS_TSC_BLOCK / 2)

/* The engine's IPv4 addresses, each once, dotted: the sources its
 * frames carry, and so the names of its reservations. */
static unsigned int
sources(const struct uet_engine *eng, char (*name)[INET_ADDRSTRLEN])
{
	unsigned int n = 0;

	for (unsigned int p = 0; p < UET_CONFIG_MAX_PORTS; p++) {
		const struct uet_config_port *c = &eng->cfg.port[p];
		char a[INET_ADDRSTRLEN];
		bool dup = false;

		if (!c->defined || !c->has_ipv4 ||
		    inet_ntop(AF_INET, &c->ipv4, a, sizeof(a)) == NULL)
			continue;
		for (unsigned int i = 0; i < n; i++)
			dup = dup || strcmp(name[i], a) == 0;
		if (!dup)
			snprintf(name[n++], INET_ADDRSTRLEN, "%s", a);
	}
	return n;
}

/* The end of the reservation every source has: the least of theirs. */
static uint64_t
limit_of(const struct tss_tsc *a)
{
	uint64_t l = a->nst == 0 ? 0 : UINT64_MAX;

	for (unsigned int i = 0; i < a->nst; i++)
		l = RTE_MIN(l, a->st[i].limit);
	return l;
}

/* Reserve @p tsc in every source's store: 0, 1 (a store passed 7/8 of
 * the key's TSCs) or the first error. */
static int
reserve_all(struct tss_tsc *a, uint64_t tsc)
{
	int rc, ret = 0;

	for (unsigned int i = 0; i < a->nst; i++) {
		rc = uet_tss_tsc_reserve(&a->st[i], tsc);
		if (rc < 0)
			return rc;
		ret = ret || rc;
	}
	return ret;
}

static void
close_all(struct tss_tsc *a)
{
	for (unsigned int i = 0; i < a->nst; i++)
		uet_tss_tsc_close(&a->st[i]);
	a->nst = 0;
}

/*
 * Open the reservations of @p key for domain @p di's epoch slot @p slot,
 * replacing the slot's (its key retired: no context seals with it). A
 * source's TSCs are what must not repeat under the key (the IV holds
 * both), so there is one reservation per {key, source address}: an
 * engine restarted with other ports keeps the TSCs of the addresses it
 * had, and two engines of one address and key refuse each other. The
 * counter starts above the highest.
 */
int
tss_tsc_open(struct uet_engine *eng, unsigned int di, unsigned int slot,
	     const uint8_t key[UET_CONFIG_TSS_KEY_LEN], char *why,
	     size_t why_len)
{
	char name[UET_CONFIG_MAX_PORTS][INET_ADDRSTRLEN];
	struct engine_tss *e = eng->tss;
	struct tss_tsc *a = &e->tsc[di][slot];
	unsigned int n = sources(eng, name);
	uint64_t first = 1, f;
	int rc = 0;

	pthread_mutex_lock(&a->lock);
	close_all(a);
	atomic_store_explicit(&a->limit, 0, memory_order_release);
	for (unsigned int i = 0; i < n && rc == 0; i++) {
		rc = uet_tss_tsc_open(&a->st[i], e->cfg.state_dir, name[i],
				      key, UET_TSS_TSC_MAX, UET_TSS_TSC_BLOCK,
				      &f, why, why_len);
		if (rc == 0) {
			a->nst++;
			first = RTE_MAX(first, f);
		}
	}
	if (rc == 0)
		rc = reserve_all(a, first);
	if (rc < 0) {
		if (a->nst == n) /* else the open said why */
			snprintf(why, why_len, "TSC reservation in %s: %s",
				 e->cfg.state_dir, strerror(-rc));
		close_all(a);
	} else {
		atomic_store_explicit(&a->next, first, memory_order_relaxed);
		atomic_store_explicit(&a->limit, limit_of(a),
				      memory_order_release);
		atomic_store_explicit(&a->told, false, memory_order_relaxed);
		rc = 0;
	}
	pthread_mutex_unlock(&a->lock);
	return rc;
}

void
tss_tsc_init(struct engine_tss *e)
{
	for (unsigned int i = 0; i < UET_CONFIG_TSS_DOMAINS_MAX; i++)
		for (unsigned int s = 0; s < 2; s++) {
			struct tss_tsc *a = &e->tsc[i][s];

			pthread_mutex_init(&a->lock, NULL);
			a->nst = 0;
			atomic_init(&a->next, 0);
			atomic_init(&a->limit, 0);
			atomic_init(&a->told, false);
		}
}

void
tss_tsc_fini(struct engine_tss *e)
{
	for (unsigned int i = 0; i < UET_CONFIG_TSS_DOMAINS_MAX; i++)
		for (unsigned int s = 0; s < 2; s++) {
			close_all(&e->tsc[i][s]);
			pthread_mutex_destroy(&e->tsc[i][s].lock);
		}
}

/* Why @p tsc has no reservation, told once per key. */
static int
slow_fail(struct uet_engine_lcore *lc, struct tss_tsc *a, unsigned int di,
	  uint16_t epoch, uint64_t tsc, int rc)
{
	const struct engine_tss *e = lc->eng->tss;

	if (!atomic_exchange_explicit(&a->told, true, memory_order_relaxed)) {
		if (tsc > UET_TSS_TSC_MAX)
			ENG_LOG(ERR, "tss: domain %u epoch %u: key exhausted "
				"(its 2^48 TSCs used): nothing of the domain "
				"is sent until its key is rotated",
				e->cfg.domain[di].sdi, epoch);
		else
			ENG_LOG(ERR, "tss: domain %u epoch %u: TSC "
				"reservation in %s: %s: nothing of the domain "
				"is sent", e->cfg.domain[di].sdi, epoch,
				e->cfg.state_dir, strerror(-rc));
	}
	return tsc > UET_TSS_TSC_MAX ? -ENOSPC : -EIO;
}

int
tss_tsc_slow(struct uet_engine_lcore *lc, unsigned int di, unsigned int slot,
	     uint64_t tsc)
{
	struct engine_tss *e = lc->eng->tss;
	struct tss_tsc *a = &e->tsc[di][slot];
	uint16_t epoch = lc->tss->dk[di].ep.epoch[slot];
	uint64_t limit = atomic_load_explicit(&a->limit, memory_order_acquire);
	int rc;

	if (tsc > UET_TSS_TSC_MAX)
		return slow_fail(lc, a, di, epoch, tsc, -ENOSPC);
	if (tsc < limit) {
		/* ahead of need: one context extends, the others go on */
		if (pthread_mutex_trylock(&a->lock) != 0)
			return 0;
	} else {
		pthread_mutex_lock(&a->lock);
	}
	rc = a->nst == 0 ? -ENXIO : reserve_all(a, RTE_MIN(tsc + AHEAD,
							   UET_TSS_TSC_MAX));
	if (rc == 1)
		ENG_LOG(WARNING, "tss: domain %u epoch %u: 7/8 of the key's "
			"2^48 TSCs reserved: rotate the key before they run "
			"out", e->cfg.domain[di].sdi, epoch);
	limit = limit_of(a);
	atomic_store_explicit(&a->limit, limit, memory_order_release);
	if (tsc >= limit)
		rc = slow_fail(lc, a, di, epoch, tsc, rc < 0 ? rc : -EIO);
	else
		rc = 0;
	pthread_mutex_unlock(&a->lock);
	return rc;
}
