/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * TSS on the RX path (see tss_path.c). Order of the checks, cheapest
 * first and nothing a forger controls before the ICV moves any state:
 * trimmed, header, SDI, AN/epoch, IP version, SSI (client/server mode),
 * replay window (check only, a source without one passes) -> queued;
 * then, per burst: decrypt and verify, the replay window of a new
 * source made (so forged sources take no room), replay window check
 * again (a duplicate within the burst) and update, strip, PDS decode,
 * domain of the JobID or PDC -> the hook.
 */

#include <string.h>

#include <rte_byteorder.h>
#include <rte_hash.h>
#include <rte_mbuf.h>

#include "tss_private.h"

static void
rx_drop(struct uet_engine_lcore *lc, struct rte_mbuf *m,
	enum uet_engine_tss_drop why)
{
	ENG_INC(lc->st.tss.rx_drop[why]);
	rte_pktmbuf_free(m);
}

static int
domain_of_sdi(const struct engine_tss *e, uint32_t sdi)
{
	for (unsigned int i = 0; i < e->cfg.nb_domains; i++)
		if (e->cfg.domain[i].sdi == sdi)
			return (int)i;
	return -1;
}

/* A replay window's key: a TSC space is a key's (tss_tsc.c), so a
 * window is a source's under one domain key (epoch). */
static uint64_t
window_key(unsigned int di, uint16_t epoch, uint32_t src)
{
	return (uint64_t)di << 48 | (uint64_t)epoch << 32 | src;
}

/* window_get() past the cache: the table, and a window made if @p make. */
static uint32_t
window_lookup(struct engine_tss_lc *t, uint64_t key, bool make)
{
	int rc = rte_hash_lookup(t->src, &key);

	if (rc < 0 && make) {
		rc = rte_hash_add_key(t->src, &key);
		if (rc >= 0)
			(void)uet_tss_replay_init(&t->win[rc],
						  t->win[rc].size);
	}
	if (rc < 0)
		return TSS_WIN_NONE;
	t->last_key = key;
	t->last_win = rc;
	return (uint32_t)rc;
}

/*
 * The replay window of {domain, epoch, source}; TSS_WIN_NONE when it has
 * none and @p make is false, or the table is full. Only a verified
 * frame makes one (@p make), so forged sources take no room (a window
 * is never taken from a source that has one). The last window found is
 * kept for a run of frames from one source: the cache names a window
 * that exists, so a lookup through it creates no state either.
 */
static __rte_always_inline uint32_t
window_get(struct engine_tss_lc *t, unsigned int di, uint16_t epoch,
	   uint32_t src, bool make)
{
	uint64_t key = window_key(di, epoch, src);

	if (likely(t->last_win >= 0 && t->last_key == key))
		return (uint32_t)t->last_win;
	return window_lookup(t, key, make);
}

/*
 * Forget the windows (and cluster mode's keys) of a retired key of
 * domain @p di, epoch @p epoch: its packets are refused by their epoch
 * from now on, and a later key with the same epoch number starts its
 * TSCs low again, which the old windows would take for old packets.
 */
void
tss_windows_purge(struct engine_tss_lc *t, unsigned int di, uint16_t epoch)
{
	static const uint64_t mask = UINT64_C(0xFFFFFFFF00000000);
	uint64_t gone[TSS_SOURCES];
	const void *key;
	unsigned int n = 0;
	uint32_t next = 0;
	void *data;
	int w;

	t->last_win = -1;
	while (n < TSS_SOURCES &&
	       rte_hash_iterate(t->src, &key, &data, &next) >= 0)
		if ((*(const uint64_t *)key & mask) == window_key(di, epoch, 0))
			gone[n++] = *(const uint64_t *)key;
	for (unsigned int i = 0; i < n; i++) {
		w = rte_hash_del_key(t->src, &gone[i]);
		if (w < 0 || t->rxk == NULL)
			continue;
		for (unsigned int a = 0; a < 2; a++) {
			uet_tss_cdev_session_free(t->dev, t->rxk[w][a].sess);
			memset(&t->rxk[w][a], 0, sizeof(t->rxk[w][a]));
		}
	}
}

static enum uet_engine_tss_drop
replay_reason(int rc)
{
	return rc == -EEXIST ? UET_ENGINE_TSS_DROP_REPLAY :
			       UET_ENGINE_TSS_DROP_OLD;
}

/* The session and IV that open the frame of @p it: at flush time, so
 * that no key a flush installs (and retires) is taken before it, nor an
 * epoch a reload since the take retired. 0 or a drop reason + 1. */
static int
rx_key(const struct uet_engine_lcore *lc, struct tss_rx_item *it)
{
	struct engine_tss_lc *t = lc->tss;
	int slot = uet_tss_epochs_rx(&t->dk[it->di].ep, it->epoch, lc->now);

	it->fresh = NULL;
	if (slot < 0)
		return 1 + UET_ENGINE_TSS_DROP_EPOCH;
	it->slot = (uint8_t)slot;
	if (lc->eng->tss->cluster)
		return tss_key_rx(t, UET_TSS_LABEL_CLUSTER, it->di, it->src,
				  it);
	if (lc->eng->tss->role == UET_CONFIG_TSS_ROLE_SERVER)
		return tss_key_rx(t, UET_TSS_LABEL_SERVER, it->di, it->src,
				  it);
	if (lc->eng->tss->derive)
		/* a client with rotation: its down key of the counter,
		 * derived for its own SSI; the server's address in the IV */
		return tss_key_rx(t, UET_TSS_LABEL_DOWN, it->di,
				  lc->eng->tss->cfg.ssi, it);
	it->sess = t->open[it->di][slot];
	if (it->sess == NULL)
		return 1 + UET_ENGINE_TSS_DROP_CRYPTO;
	/* a client: the server's down key, the server's address in the IV */
	uet_tss_iv(it->src, it->epoch, it->tsc,
		   lc->eng->tss->role == UET_CONFIG_TSS_ROLE_CLIENT ?
		   t->dk[it->di].ck[slot].down + UET_TSS_KEY_LEN : NULL,
		   it->iv);
	return 0;
}

/* The SSI of a frame (client/server mode; none in the others): a server
 * takes a client's, from an address that speaks for no other SSI; a
 * client only its own. Sets the source's identity of @p it. 0 or a drop
 * reason + 1. */
static int
rx_ssi(const struct engine_tss *e, const struct engine_tss_lc *t,
       const struct uet_wire_tss_hdr *h, unsigned int di,
       struct tss_rx_item *it)
{
	it->src = it->addr;
	if (e->role == UET_CONFIG_TSS_ROLE_NONE)
		return h->sp ? 1 + UET_ENGINE_TSS_DROP_UNSUPPORTED : 0;
	if (!h->sp)
		return 1 + UET_ENGINE_TSS_DROP_SSI;
	if (e->role == UET_CONFIG_TSS_ROLE_CLIENT)
		return h->ssi == e->cfg.ssi ? 0 : 1 + UET_ENGINE_TSS_DROP_SSI;
	if (h->ssi == 0 || !tss_cs_rx_bound_ok(t, di, it->addr, h->ssi))
		return 1 + UET_ENGINE_TSS_DROP_SSI;
	it->src = h->ssi;
	return 0;
}

/* Checks before any crypto; fills the queue item. 0 or a drop reason
 * + 1. */
static int
rx_check(const struct uet_engine_lcore *lc, const struct uet_wire_pkt *p,
	 const uint8_t *f, struct tss_rx_item *it)
{
	const struct engine_tss *e = lc->eng->tss;
	struct engine_tss_lc *t = lc->tss;
	struct uet_wire_tss_hdr h;
	struct uet_tss_split sp;
	uint32_t src;
	int di, rc;

	if (p->outer.trimmed)
		return 1 + UET_ENGINE_TSS_DROP_TRIMMED;
	if (uet_wire_tss_hdr_decode(f + p->outer.hdr_len, p->outer.inner_len,
			       &h) < 0 ||
	    uet_tss_split(p->outer.inner_len, h.sp, &sp) < 0)
		return 1 + UET_ENGINE_TSS_DROP_HEADER;
	di = domain_of_sdi(e, h.sdi);
	if (di < 0)
		return 1 + UET_ENGINE_TSS_DROP_SDI;
	/* an epoch in use (UEC 1.0 3.7: it selects the domain key), and the
	 * AN of the TSC's rekey counter (0 without rotation) */
	if (uet_tss_epochs_rx(&t->dk[di].ep, h.epoch, lc->now) < 0 ||
	    h.an != (tss_rekey_of(e, h.tsc) & 1u))
		return 1 + UET_ENGINE_TSS_DROP_EPOCH;
	if (p->outer.ip_version != 4)
		return 1 + UET_ENGINE_TSS_DROP_UNSUPPORTED;
	memcpy(&src, p->outer.src_addr, 4);
	it->addr = rte_be_to_cpu_32(src);
	rc = rx_ssi(e, t, &h, (unsigned int)di, it);
	if (rc != 0)
		return rc;
	it->win = window_get(t, (unsigned int)di, h.epoch, it->src, false);
	rc = it->win == TSS_WIN_NONE ? 0 :
	     uet_tss_replay_check(&t->win[it->win], h.tsc);
	if (rc < 0)
		return 1 + replay_reason(rc);
	if (uet_tss_aad(&p->outer, f + p->outer.hdr_len, e->hdr_len, it->aad,
			sizeof(it->aad)) != e->aad_len)
		return 1 + UET_ENGINE_TSS_DROP_HEADER;
	it->outer = p->outer;
	it->dom = DOM_OF(di);
	it->tsc = h.tsc;
	it->an = h.an;
	it->epoch = h.epoch;
	it->rekey = tss_rekey_of(e, h.tsc);
	it->di = (uint8_t)di;
	it->sess = NULL;
	it->fresh = NULL;
	return 0;
}

bool
engine_tss_rx_take(struct uet_engine_lcore *lc, uint16_t port, uint16_t queue,
		struct rte_mbuf *m, const struct uet_wire_pkt *p)
{
	struct engine_tss_lc *t = lc->tss;
	const uint8_t *f = rte_pktmbuf_mtod(m, const uint8_t *);
	struct tss_rx_item it;
	int rc;

	if (p->err_layer != UET_PKT_LAYER_PDS ||
	    !uet_wire_tss_hdr_present(f + p->outer.hdr_len, p->outer.inner_len))
		return false;
	tss_epoch_sync(lc);
	rc = rx_check(lc, p, f, &it);
	if (rc != 0) {
		rx_drop(lc, m, (enum uet_engine_tss_drop)(rc - 1));
		return true;
	}
	it.m = m;
	it.port = port;
	it.queue = queue;
	/* @p p is the hook's next RX slot, which a flush fills: checked
	 * first, flushed after */
	if (t->nb_rxq == TSS_RXQ)
		engine_tss_rx_flush(lc);
	t->rxq[t->nb_rxq++] = it;
	return true;
}

/*
 * The domain a decrypted (@p dom secure) or clear (DOM_CLEAR) frame must
 * have: its JobID's; without one, its PDC's if we know it. Learns the
 * PDC's domain from frames with a JobID. Returns false to drop: also an
 * SES header whose JobID cannot be read (with [tss] on, a clear frame
 * must show it is of no secure job).
 */
static bool
rx_dom_ok(const struct engine_tss *e, struct engine_tss_lc *t,
	  const struct uet_wire_pkt *p, const uint8_t *f, uint8_t dom)
{
	uint16_t src = 0, dst = 0;
	bool has_dst = false, pdc = tss_pdc_ids(&p->pds, &src, &dst, &has_dst);
	uint8_t want = DOM_UNKNOWN;
	int rc = tss_frame_job_dom(e, p, f, &want);

	if (rc == -2)
		return false;
	if (rc == 0) {
		if (want != dom)
			return false;
		if (pdc) {
			tss_peer_set(t, p->outer.src_addr, src, dom);
			if (has_dst)
				t->pdc_dom[dst] = dom;
		}
		return true;
	}
	if (!pdc || !has_dst)
		return true;
	want = t->pdc_dom[dst];
	return want == DOM_UNKNOWN || want == dom;
}

bool
engine_tss_rx_clear_ok(struct uet_engine_lcore *lc, struct rte_mbuf *m,
		    const struct uet_wire_pkt *p)
{
	if (rx_dom_ok(lc->eng->tss, lc->tss, p,
		      rte_pktmbuf_mtod(m, const uint8_t *), DOM_CLEAR))
		return true;
	rx_drop(lc, m, UET_ENGINE_TSS_DROP_CLEAR);
	return false;
}

/* Remove the TSS header and the ICV: the outer headers move up over the
 * header, their lengths shrink; the frame is then a plain UET frame. */
static void
rx_strip(struct rte_mbuf *m, const struct tss_rx_item *it, uint16_t hl)
{
	uint8_t *f = rte_pktmbuf_mtod(m, uint8_t *);
	uint16_t ol = it->outer.hdr_len;
	uint32_t len = (uint32_t)ol + it->outer.inner_len - hl -
		       UET_TSS_ICV_LEN;

	memmove(f + hl, f, ol);
	(void)rte_pktmbuf_adj(m, hl);
	/* the ICV and any link padding */
	(void)rte_pktmbuf_trim(m, (uint16_t)(rte_pktmbuf_data_len(m) - len));
	tss_lengths_adjust(rte_pktmbuf_mtod(m, uint8_t *), &it->outer,
			   -(hl + UET_TSS_ICV_LEN));
}

/* One opened frame: replay window, strip, decode (the PDS header: the
 * outer headers are those checked before decryption), domain; then the
 * hook's RX array. */
static void
rx_deliver(struct uet_engine_lcore *lc, struct tss_rx_item *it)
{
	struct engine_tss_lc *t = lc->tss;
	struct uet_engine_rx *r = &lc->rx[lc->nb_rx];
	uint16_t hl = lc->eng->tss->hdr_len;
	int rc;

	if (it->win == TSS_WIN_NONE) {
		rx_drop(lc, it->m, UET_ENGINE_TSS_DROP_SOURCES);
		return;
	}
	rc = uet_tss_replay_check(&t->win[it->win], it->tsc);
	if (rc < 0) {
		rx_drop(lc, it->m, replay_reason(rc));
		return;
	}
	uet_tss_replay_update(&t->win[it->win], it->tsc);
	if (t->bind != NULL)
		tss_cs_rx_learn(t, it->di, it->addr, it->src);
	rx_strip(it->m, it, hl);
	if (uet_tss_opened_parse(&it->outer, hl + UET_TSS_ICV_LEN,
				 rte_pktmbuf_mtod(it->m, const uint8_t *),
				 rte_pktmbuf_data_len(it->m), &r->pkt) < 0) {
		rx_drop(lc, it->m, UET_ENGINE_TSS_DROP_INNER);
		return;
	}
	if (!rx_dom_ok(lc->eng->tss, t, &r->pkt,
		       rte_pktmbuf_mtod(it->m, const uint8_t *), it->dom)) {
		rx_drop(lc, it->m, UET_ENGINE_TSS_DROP_JOB);
		return;
	}
	ENG_INC(lc->st.tss.rx_opened);
	engine_rx_deliver(lc, it->port, it->queue, it->m,
			  (uint8_t)(it->di + 1));
}

void
engine_tss_rx_flush(struct uet_engine_lcore *lc)
{
	struct engine_tss_lc *t = lc->tss;
	uint16_t n = 0, hl = lc->eng->tss->hdr_len;
	int rc;

	tss_epoch_sync(lc);
	for (uint16_t i = 0; i < t->nb_rxq; i++) {
		struct tss_rx_item *it = &t->rxq[i];
		uint16_t ol = it->outer.hdr_len;
		uint32_t el = (uint32_t)it->outer.inner_len - hl -
			      UET_TSS_ICV_LEN;

		rc = rx_key(lc, it);
		if (rc != 0) {
			rx_drop(lc, it->m, (enum uet_engine_tss_drop)(rc - 1));
			continue;
		}
		if (n != i) {
			t->rxq[n] = *it;
			it = &t->rxq[n];
		}
		t->bm[n] = it->m;
		t->bs[n] = it->sess;
		t->bop[n] = (struct uet_tss_cdev_op){
			.enc_off = (uint32_t)ol + hl,
			.enc_len = el,
			.icv_off = (uint32_t)ol + hl + el,
			.iv = it->iv,
			.aad = it->aad,
		};
		n++;
	}
	t->nb_rxq = 0;
	if (n == 0)
		return;
	(void)uet_tss_cdev_run_burst(t->dev, t->bs, t->bm, t->bop, n, t->brc);
	/* no op uses a session any more: a verified frame's source gets
	 * its replay window, keys derived for verified frames take their
	 * slots (cluster mode, a client/server server) */
	for (uint16_t i = 0; i < n; i++) {
		if (t->brc[i] == 0 && t->rxq[i].win == TSS_WIN_NONE)
			t->rxq[i].win = window_get(t, t->rxq[i].di,
						   t->rxq[i].epoch,
						   t->rxq[i].src, true);
		tss_key_rx_done(lc, &t->rxq[i], t->brc[i] == 0);
	}
	for (uint16_t i = 0; i < n; i++) {
		if (t->brc[i] == -EBADMSG)
			rx_drop(lc, t->rxq[i].m, UET_ENGINE_TSS_DROP_AUTH);
		else if (t->brc[i] != 0)
			rx_drop(lc, t->rxq[i].m, UET_ENGINE_TSS_DROP_CRYPTO);
		else
			rx_deliver(lc, &t->rxq[i]);
	}
}
