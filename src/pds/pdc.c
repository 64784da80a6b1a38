/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * PDC manager (UEC 1.0 PDS PDC lookup): general and reserved PDC-id
 * pools per role, the initiator table {job, destination FA, TC, mode}, the
 * target table {source FA, spdcid}, and the pooled per-PSN blocks that are
 * attached to a PDC only while it has traffic in flight.
 *
 * PDC ids: the top owner_bits are the owner (engine lcore) so the engine can
 * steer ACKs and requests to the lcore that owns the PDC; the rest is the
 * pool index, target ids after the initiator ids (id_tgt_base) whenever
 * both pools fit in the id space. Then every id names exactly one PDC: an
 * ACK addresses either an initiator PDC (forward data) or a target PDC
 * (return-direction read data), and the peer has PDCs both ways with
 * independent PSN spaces. Only pools too large for that (more than half
 * the id space per role) share the id numbers between the roles; an ACK
 * is then matched by its peer, spdcid and PSN range (pds_ack.c).
 */

#include <stdlib.h>

#include <rte_jhash.h>
#include <rte_prefetch.h>

#include "pds_private.h"

int
pds_pool_init(struct pds_pool *pl, uint32_t cap)
{
	uint32_t i;

	pl->cap = cap;
	pl->nfree = cap;
	pl->head = cap ? cap - 1 : 0;
	pl->fifo = false;
	pl->free = malloc((cap ? cap : 1) * sizeof(*pl->free));
	if (pl->free == NULL)
		return -ENOMEM;
	/* Pop order is ascending indices: deterministic for tests. */
	for (i = 0; i < cap; i++)
		pl->free[i] = cap - 1 - i;
	return 0;
}

void
pds_pool_fini(struct pds_pool *pl)
{
	free(pl->free);
	pl->free = NULL;
}

/* LIFO (the index freed last comes back first: its memory is warm), or,
 * for a FIFO pool, the index freed longest ago. */
uint32_t
pds_pool_get(struct pds_pool *pl)
{
	uint32_t idx;

	if (pl->nfree == 0)
		return PDS_NIL;
	if (!pl->fifo)
		return pl->free[--pl->nfree];
	/* Initialised descending, like a LIFO pool: the ring runs down. */
	idx = pl->free[pl->head];
	pl->head = (pl->head == 0 ? pl->cap : pl->head) - 1;
	pl->nfree--;
	return idx;
}

void
pds_pool_put(struct pds_pool *pl, uint32_t idx)
{
	if (!pl->fifo) {
		pl->free[pl->nfree++] = idx;
		return;
	}
	/* The slot nfree places behind head (downwards, mod cap). */
	pl->free[(pl->head + pl->cap - pl->nfree) % pl->cap] = idx;
	pl->nfree++;
}

static uint32_t
pds_htab_size(uint32_t n)
{
	uint32_t s = 64;

	while (s < 2 * n)
		s <<= 1;
	return s;
}

int
pds_pdc_mgr_init(struct uet_pds *p)
{
	const struct uet_pds_config *c = &p->cfg;
	uint32_t sz = pds_htab_size(p->cap);
	unsigned int r;

	for (r = 0; r < 2; r++) {
		if (pds_pool_init(&p->pdc_pool[r][0], c->max_pdcs) ||
		    pds_pool_init(&p->pdc_pool[r][1], c->max_rsv_pdcs))
			return -ENOMEM;
		/* DECISION (docs/WIRE-DECISIONS.md "A late duplicate SYN of a
		 * closed target PDC"): a PDC id comes back only after every
		 * other free id was used, so that a very late SYN of an old
		 * incarnation finds its target record (struct pds_tomb) not
		 * evicted by newer incarnations of the same id. */
		p->pdc_pool[r][0].fifo = true;
		p->pdc_pool[r][1].fifo = true;
	}
	p->ikey.ent = calloc(sz, sizeof(uint32_t));
	p->tkey.ent = calloc(sz, sizeof(uint32_t));
	if (p->ikey.ent == NULL || p->tkey.ent == NULL)
		return -ENOMEM;
	p->ikey.mask = sz - 1;
	p->tkey.mask = sz - 1;
	/* At least two records per target PDC, four to a bucket. */
	p->tomb = calloc(sz, sizeof(*p->tomb));
	if (p->tomb == NULL)
		return -ENOMEM;
	p->tomb_mask = sz / PDS_TOMB_WAYS - 1;
	p->ikey_last = PDS_NIL;
	return pds_syn_rec_init(p, sz);
}

size_t
uet_pds_pdc_bytes(const struct uet_pds *p)
{
	/* What pds_alloc_arrays(), pds_pdc_mgr_init(), pds_timer_init() and
	 * the CC's create() size by capacity. */
	size_t ids = 2 * (size_t)p->cap, hsz = pds_htab_size(p->cap);
	size_t total = ids * (sizeof(*p->pdc) + p->cc_stride +
			      sizeof(*p->lb) + sizeof(*p->tnode)) +
		       ids * sizeof(uint32_t) +          /* id pools */
		       2 * hsz * sizeof(uint32_t) +      /* ikey, tkey */
		       hsz * sizeof(*p->tomb) + pds_syn_rec_bytes(p);

	if (p->cc->inst_bytes != NULL)
		total += p->cc->inst_bytes(p->cc_inst);

	return total / ids;
}

void
pds_pdc_mgr_fini(struct uet_pds *p)
{
	unsigned int r;

	for (r = 0; r < 2; r++) {
		pds_pool_fini(&p->pdc_pool[r][0]);
		pds_pool_fini(&p->pdc_pool[r][1]);
	}
	free(p->ikey.ent);
	free(p->tkey.ent);
	free(p->tomb);
	pds_syn_rec_fini(p);
	p->ikey.ent = NULL;
	p->tkey.ent = NULL;
	p->tomb = NULL;
}

struct pds_pdc *
pds_pdc_alloc(struct uet_pds *p, unsigned int role, bool rsv, uint64_t now)
{
	uint32_t local = pds_pool_get(&p->pdc_pool[role][rsv]);
	struct pds_pdc *c;
	uint32_t next, anext;
	uint16_t listed, gen;

	if (local == PDS_NIL) {
		p->st.exhaust_pdc++;
		return NULL;
	}
	if (rsv)
		local += p->cfg.max_pdcs;
	c = &p->pdc[role * p->cap + local];
	/* A freed PDC may still sit on a list: keep the links, the list pop
	 * skips or serves it. */
	listed = c->flags & (PDC_F_LISTED | PDC_F_ALISTED);
	next = c->next;
	anext = c->anext;
	gen = c->gen;
	pds_ulp_open_set(p, c, false); /* (a freed record may keep it) */
	memset(c, 0, sizeof(*c));
	memset(pds_cc_priv(p, c), 0, p->cc_stride);
	c->flags = (uint16_t)(listed | (rsv ? PDC_F_RSV : 0));
	c->next = next;
	c->anext = anext;
	c->gen = gen;
	c->role = (uint8_t)role;
	c->lid = (uint16_t)(p->id_owner | (role * p->id_tgt_base + local));
	c->tblk = PDS_NIL;
	c->rblk = PDS_NIL;
	c->resp = PDS_NIL;
	c->resp_tail = PDS_NIL;
	c->last_ns = now;
	p->pdcs_open++;
	return c;
}

void
pds_pdc_free(struct uet_pds *p, struct pds_pdc *c)
{
	uint32_t local = (c->lid & p->id_mask) - c->role * p->id_tgt_base;
	bool rsv = (c->flags & PDC_F_RSV) != 0;

	pds_timer_cancel(p, pds_idx(p, c));
	if (p->cc->fini != NULL)
		p->cc->fini(p->cc_inst, pds_cc_priv(p, c),
			    pds_cc_inflight(p, c));
	/* Every submitted cookie completes, even when the PDC goes away. */
	pds_initiator_abort(p, c, -ECONNABORTED);
	if (p->mv_n != 0 && c->role == PDS_ROLE_INIT)
		pds_move_unhold(p, c, -ECONNABORTED);
	pds_tx_blk_detach(p, c);
	pds_rx_blk_detach(p, c);
	if (c->role == PDS_ROLE_INIT) {
		p->st.pdc_close_init++;
	} else {
		pds_sdom_retire(p, c);
		pds_target_gone(p, c);
		pds_target_release(p, c);
		p->st.pdc_close_tgt++;
	}
	c->state = PDC_FREE;
	c->gen = (uint16_t)((c->gen + 1) & 0x7FFF);
	if (rsv)
		local -= p->cfg.max_pdcs;
	pds_pool_put(&p->pdc_pool[c->role][rsv], local);
	p->pdcs_open--;
}

/* The record of @p role's id @p lid, free or not; NULL: not our id. */
static struct pds_pdc *
pds_pdc_slot(const struct uet_pds *p, unsigned int role, uint16_t lid)
{
	uint32_t local = (lid & p->id_mask) - role * p->id_tgt_base;

	/* below the role's base, local wraps around and fails the bound */
	if ((lid & ~p->id_mask) != p->id_owner || local >= p->cap)
		return NULL;
	return &p->pdc[role * p->cap + local];
}

struct pds_pdc *
pds_pdc_by_lid(struct uet_pds *p, unsigned int role, uint16_t lid)
{
	struct pds_pdc *c = pds_pdc_slot(p, role, lid);

	return c == NULL || c->state == PDC_FREE ? NULL : c;
}

void
uet_pds_rx_prefetch(const struct uet_pds *p, const struct uet_wire_pds_hdr *h)
{
	const char *c;
	unsigned int role;
	uint16_t lid;

	if (p->pdcs_open < PDS_PREFETCH_PDCS)
		return;
	if (uet_wire_pds_type_is_req(h->type) && !(h->flags & UET_PDS_F_SYN)) {
		lid = h->u.req.dpdcid;
		role = PDS_ROLE_TGT;
	} else if (uet_wire_pds_type_is_ack(h->type)) {
		lid = h->u.ack.dpdcid;
		role = PDS_ROLE_INIT;
	} else if (uet_wire_pds_type_is_nack(h->type)) {
		lid = h->u.nack.dpdcid;
		role = PDS_ROLE_INIT;
	} else {
		return;
	}
	c = (const char *)pds_pdc_slot(p, role, lid);
	if (c == NULL)
		return;
	/* the record spans four or five cache lines */
	rte_prefetch0(c);
	rte_prefetch0(c + 64);
	rte_prefetch0(c + 128);
	rte_prefetch0(c + 192);
	rte_prefetch0(c + sizeof(struct pds_pdc) - 1);
}

/* ---- open addressing, linear probing, backward-shift deletion ---- */

struct pds_ikey_bytes {
	uint8_t fa[16];
	uint32_t job;
	uint32_t tcmode;
};

static uint32_t
pds_ikey_hash(const struct uet_pds_fa *fa, uint32_t job, uint8_t tc,
	      uint8_t mode)
{
	struct pds_ikey_bytes k;

	memcpy(k.fa, fa->addr, 16);
	k.job = job;
	k.tcmode = (uint32_t)tc | (uint32_t)mode << 8;
	return rte_jhash(&k, sizeof(k), 0x5eed);
}

/* {@p fa, @p spdcid} as the words the target key hash and the
 * closed-target tag are taken over. */
static void
pds_tkey_words(uint32_t w[5], const struct uet_pds_fa *fa, uint16_t spdcid)
{
	memcpy(w, fa->addr, 16);
	w[4] = spdcid;
}

uint32_t
pds_tkey_hash(const struct uet_pds_fa *fa, uint16_t spdcid)
{
	uint32_t w[5];

	pds_tkey_words(w, fa, spdcid);
	return rte_jhash_32b(w, 5, 0x7a29);
}

static uint32_t
pds_home(struct uet_pds *p, const struct pds_htab *t, uint32_t idx)
{
	const struct pds_pdc *c = &p->pdc[idx];

	if (t == &p->ikey)
		return pds_ikey_hash(&c->peer, c->job, c->tc, c->mode) & t->mask;
	return pds_tkey_hash(&c->peer, c->rid) & t->mask;
}

static void
pds_htab_add(struct pds_htab *t, uint32_t h, uint32_t idx)
{
	uint32_t i = h & t->mask;

	while (t->ent[i] != 0)
		i = (i + 1) & t->mask;
	t->ent[i] = idx + 1;
}

static void
pds_htab_del(struct uet_pds *p, struct pds_htab *t, uint32_t h, uint32_t idx)
{
	uint32_t i = h & t->mask, j, k;

	while (t->ent[i] != 0 && t->ent[i] != idx + 1)
		i = (i + 1) & t->mask;
	if (t->ent[i] == 0)
		return;
	/* Shift back every later entry of the cluster whose home slot is
	 * not cyclically in (i, j]. */
	j = i;
	for (;;) {
		j = (j + 1) & t->mask;
		if (t->ent[j] == 0)
			break;
		k = pds_home(p, t, t->ent[j] - 1);
		if (i <= j ? (i < k && k <= j) : (i < k || k <= j))
			continue;
		t->ent[i] = t->ent[j];
		i = j;
	}
	t->ent[i] = 0;
}

/* The initiator PDC of a key that @p want says: the key's (new messages,
 * moves) or the one the ULP's open message is on. */
enum pds_key_want { PDS_KEY_NEW, PDS_KEY_OPEN };

static bool
pds_ikey_is(const struct pds_pdc *c, const struct uet_pds_fa *fa, uint32_t job,
	    uint8_t tc, uint8_t mode, enum pds_key_want want)
{
	if (c->job != job || c->tc != tc || c->mode != mode ||
	    memcmp(&c->peer, fa, sizeof(*fa)) != 0)
		return false;
	return want == PDS_KEY_OPEN ? c->ulp_open : !pds_pdc_held(c);
}

static struct pds_pdc *
pds_ikey_lookup(struct uet_pds *p, const struct uet_pds_fa *fa, uint32_t job,
		uint8_t tc, uint8_t mode, enum pds_key_want want)
{
	uint32_t i;
	struct pds_pdc *c;

	/* No message open anywhere: the usual case of one-packet messages,
	 * which look for one first (pds_initiator_submit) and would walk
	 * their key's whole probe chain to find none. */
	if (want == PDS_KEY_OPEN && p->ulp_open_n == 0)
		return NULL;
	/* submissions come in runs to one PDC: try the last hit first
	 * (pds_ikey_del() forgets it) */
	if (p->ikey_last != PDS_NIL &&
	    pds_ikey_is(&p->pdc[p->ikey_last], fa, job, tc, mode, want))
		return &p->pdc[p->ikey_last];
	i = pds_ikey_hash(fa, job, tc, mode) & p->ikey.mask;
	while (p->ikey.ent[i] != 0) {
		c = &p->pdc[p->ikey.ent[i] - 1];
		if (pds_ikey_is(c, fa, job, tc, mode, want)) {
			p->ikey_last = p->ikey.ent[i] - 1;
			return c;
		}
		i = (i + 1) & p->ikey.mask;
	}
	return NULL;
}

/* The PDC of a key that takes new requests: a held one (pds_pdc_held)
 * takes only the rest of its open message; a key may then have both. */
struct pds_pdc *
pds_ikey_find(struct uet_pds *p, const struct uet_pds_fa *fa, uint32_t job,
	      uint8_t tc, uint8_t mode)
{
	return pds_ikey_lookup(p, fa, job, tc, mode, PDS_KEY_NEW);
}

/* The PDC of a key the ULP's open message is on (its packets without
 * UET_PDS_SUBMIT_SOM go there), or NULL. */
struct pds_pdc *
pds_ikey_find_open(struct uet_pds *p, const struct uet_pds_fa *fa,
		   uint32_t job, uint8_t tc, uint8_t mode)
{
	return pds_ikey_lookup(p, fa, job, tc, mode, PDS_KEY_OPEN);
}

void
pds_ikey_add(struct uet_pds *p, struct pds_pdc *c)
{
	pds_htab_add(&p->ikey, pds_ikey_hash(&c->peer, c->job, c->tc, c->mode),
		     pds_idx(p, c));
}

void
pds_ikey_del(struct uet_pds *p, struct pds_pdc *c)
{
	if (p->ikey_last == pds_idx(p, c))
		p->ikey_last = PDS_NIL;
	pds_htab_del(p, &p->ikey,
		     pds_ikey_hash(&c->peer, c->job, c->tc, c->mode),
		     pds_idx(p, c));
}

struct pds_pdc *
pds_tkey_find(struct uet_pds *p, const struct uet_pds_fa *fa, uint16_t spdcid)
{
	uint32_t i = pds_tkey_hash(fa, spdcid) & p->tkey.mask;
	struct pds_pdc *c;

	while (p->tkey.ent[i] != 0) {
		c = &p->pdc[p->tkey.ent[i] - 1];
		if (c->rid == spdcid && memcmp(&c->peer, fa, sizeof(*fa)) == 0)
			return c;
		i = (i + 1) & p->tkey.mask;
	}
	return NULL;
}

void
pds_tkey_add(struct uet_pds *p, struct pds_pdc *c)
{
	pds_htab_add(&p->tkey, pds_tkey_hash(&c->peer, c->rid), pds_idx(p, c));
}

void
pds_tkey_del(struct uet_pds *p, struct pds_pdc *c)
{
	pds_htab_del(p, &p->tkey, pds_tkey_hash(&c->peer, c->rid),
		     pds_idx(p, c));
}

/* The tag of {@p fa, @p spdcid} in a closed-target record. */
static uint64_t
pds_tomb_tag(const struct uet_pds_fa *fa, uint16_t spdcid)
{
	uint32_t w[5];

	pds_tkey_words(w, fa, spdcid);
	return (uint64_t)rte_jhash_32b(w, 5, 0x70b5) << 32 |
	       rte_jhash_32b(w, 5, 0xc105ed);
}

static bool
pds_tomb_is(const struct pds_tomb *t, uint64_t tag, uint32_t start_psn)
{
	return t->seq != 0 && t->tag == tag && t->start_psn == start_psn;
}

static struct pds_tomb *
pds_tomb_bucket(const struct uet_pds *p, const struct uet_pds_fa *fa,
		uint16_t spdcid)
{
	return &p->tomb[(size_t)(pds_tkey_hash(fa, spdcid) & p->tomb_mask) *
			PDS_TOMB_WAYS];
}

/* Record incarnation {@p fa, @p spdcid, @p start_psn} (struct pds_tomb):
 * in place if known, else in a free way, else over the oldest record. */
void
pds_tomb_add(struct uet_pds *p, const struct uet_pds_fa *fa, uint16_t spdcid,
	     uint32_t start_psn)
{
	struct pds_tomb *b = pds_tomb_bucket(p, fa, spdcid), *t = NULL;
	uint64_t tag = pds_tomb_tag(fa, spdcid);
	unsigned int k;

	for (k = 0; k < PDS_TOMB_WAYS; k++) {
		if (b[k].seq == 0 || pds_tomb_is(&b[k], tag, start_psn)) {
			t = &b[k];
			break;
		}
		if (t == NULL || (int32_t)(b[k].seq - t->seq) < 0)
			t = &b[k];
	}
	if (t->seq != 0 && !pds_tomb_is(t, tag, start_psn))
		p->st.tomb_evict++;
	t->tag = tag;
	t->start_psn = start_psn;
	if (++p->tomb_seq == 0) /* 0 marks a free record */
		p->tomb_seq = 1;
	t->seq = p->tomb_seq;
}

/* The record of incarnation {@p fa, @p spdcid, @p start_psn}, or NULL. */
const struct pds_tomb *
pds_tomb_find(const struct uet_pds *p, const struct uet_pds_fa *fa,
	      uint16_t spdcid, uint32_t start_psn)
{
	const struct pds_tomb *b = pds_tomb_bucket(p, fa, spdcid);
	uint64_t tag = pds_tomb_tag(fa, spdcid);
	unsigned int k;

	for (k = 0; k < PDS_TOMB_WAYS; k++)
		if (pds_tomb_is(&b[k], tag, start_psn))
			return &b[k];
	return NULL;
}

/* ---- per-PSN blocks, attached only while traffic is in flight ---- */

/*
 * A CLOSE takes a PSN, so a PDC needs a transmit block to close: with
 * more PDCs closing than blocks (thousands closing idle, uet-perf
 * --pdcs) the others wait in line, each woken when a block is released.
 * Their timer retries after RTO_INIT too, for a full line.
 */
void
pds_blk_wait(struct uet_pds *p, struct pds_pdc *c)
{
	struct pds_ring *r = &p->blk_wait_r;

	if ((c->flags & PDC_F_BLKWAIT) || pds_ring_full(r))
		return;
	p->blk_wait[r->head++ & r->mask] = pds_handle(p, pds_idx(p, c));
	c->flags |= PDC_F_BLKWAIT;
}

/* A block was released: the oldest PDC still waiting retries its close
 * at the next tick (pds_initiator_idle), not from inside this caller. */
static void
pds_blk_wake(struct uet_pds *p)
{
	struct pds_ring *r = &p->blk_wait_r;
	struct pds_pdc *c;

	while (pds_ring_count(r) != 0) {
		c = pds_handle_pdc(p, p->blk_wait[r->tail++ & r->mask]);
		if (c == NULL || !(c->flags & PDC_F_BLKWAIT) ||
		    c->state == PDC_CLOSING)
			continue; /* freed or closed since */
		c->flags &= (uint16_t)~PDC_F_BLKWAIT;
		c->last_ns = p->cc_now;
		pds_pdc_timer_update(p, c, p->cc_now);
		return;
	}
}

bool
pds_tx_blk_attach(struct uet_pds *p, struct pds_pdc *c)
{
	if (c->tblk != PDS_NIL)
		return true;
	c->tblk = pds_pool_get(&p->tx_pool);
	if (c->tblk == PDS_NIL) {
		p->st.exhaust_txblk++;
		return false;
	}
	return true;
}

void
pds_tx_blk_detach(struct uet_pds *p, struct pds_pdc *c)
{
	if (c->tblk == PDS_NIL)
		return;
	pds_pool_put(&p->tx_pool, c->tblk);
	c->tblk = PDS_NIL;
	pds_blk_wake(p);
}

bool
pds_rx_blk_attach(struct uet_pds *p, struct pds_pdc *c)
{
	if (c->rblk != PDS_NIL)
		return true;
	c->rblk = pds_pool_get(&p->rx_pool);
	if (c->rblk == PDS_NIL) {
		p->st.exhaust_rxblk++;
		return false;
	}
	return true;
}

void
pds_rx_blk_detach(struct uet_pds *p, struct pds_pdc *c)
{
	if (c->rblk == PDS_NIL)
		return;
	/* Blocks return to the pool all-zero. */
	if (c->u.t.nbits)
		memset(pds_rx_bits(p, c), 0, p->rx_words * sizeof(uint64_t));
	c->u.t.nbits = 0;
	pds_pool_put(&p->rx_pool, c->rblk);
	c->rblk = PDS_NIL;
}
