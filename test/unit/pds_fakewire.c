/* SPDX-License-Identifier: BSD-3-Clause */
/* Fake lossy wire and clock for PDS tests (see pds_fakewire.h). */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "pds_fakewire.h"

static uint64_t
fakewire_rand(struct fakewire *w)
{
	return uet_rand_next(&w->rng);
}

static bool
fakewire_chance(struct fakewire *w, uint32_t ppm)
{
	return ppm && (fakewire_rand(w) % 1000000) < ppm;
}

uint16_t
fakewire_payload(uint64_t cookie, uint8_t *buf)
{
	uint16_t len = (uint16_t)(8 + (cookie * 7919u) % 56u), i;
	uint64_t x = cookie * 0x9E3779B97F4A7C15ull + 1;

	memcpy(buf, &cookie, 8);
	for (i = 8; i < len; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		buf[i] = (uint8_t)x;
	}
	return len;
}

int
fakewire_init(struct fakewire *w, const struct uet_pds_config *cfg, uint64_t seed)
{
	struct uet_pds_config c = *cfg;
	int s;

	memset(w, 0, sizeof(*w));
	w->rng.s = seed * 2654435761u + 7;
	w->delay_ns = 2000;
	w->jitter_ns = 20000;
	for (s = 0; s < 2; s++) {
		c.seed = seed * 31 + (uint64_t)s + 1;
		w->pds[s] = uet_pds_create(&c);
		w->q[s] = calloc(FW_QUEUE, sizeof(struct fakewire_pkt));
		if (w->pds[s] == NULL || w->q[s] == NULL)
			return -1;
		w->fa[s].addr[0] = 10;
		w->fa[s].addr[3] = (uint8_t)(s + 1);
	}
	return 0;
}

void
fakewire_past_start(struct fakewire *w)
{
	int s;

	for (s = 0; s < 2; s++)
		uet_pds_advance(w->pds[s], w->now);
	w->now += FAKEWIRE_NAME_NS;
}

void
fakewire_fini(struct fakewire *w)
{
	int s;

	for (s = 0; s < 2; s++) {
		uet_pds_free(w->pds[s]);
		free(w->q[s]);
	}
}

int
fakewire_submit(struct fakewire *w, uint8_t mode, uint64_t cookie, uint8_t flags)
{
	return fakewire_submit_job(w, mode, cookie, flags, 42);
}

int
fakewire_submit_job(struct fakewire *w, uint8_t mode, uint64_t cookie,
	      uint8_t flags, uint32_t job)
{
	struct uet_pds_submit s;
	uint8_t buf[FW_PAYLOAD_MAX];

	memset(&s, 0, sizeof(s));
	s.dst = w->fa[1];
	s.job = job;
	s.tc = 1;
	s.mode = mode;
	s.next_hdr = UET_PDS_NEXT_REQUEST_SMALL;
	s.flags = flags;
	s.len = fakewire_payload(cookie, buf);
	s.cookie = cookie;
	return uet_pds_submit(w->pds[0], &s, w->now);
}

/* Encode a descriptor with its payload into @p pk. */
static int
fakewire_encode(const struct uet_pds_tx *t, struct fakewire_pkt *pk)
{
	int n = uet_wire_pds_hdr_encode(&t->hdr, pk->bytes, sizeof(pk->bytes));
	uint16_t pl = 0;

	if (n < 0)
		return n;
	if (t->kind != UET_PDS_TX_CTL)
		pl = fakewire_payload(t->cookie, pk->bytes + n);
	else if (t->resp_len)
		memcpy(pk->bytes + n, t->resp, pl = t->resp_len);
	pk->len = (uint16_t)(n + pl);
	pk->full_len = pl;
	pk->ev = t->ev;
	pk->ce = false;
	pk->trimmed = false;
	return n;
}

static void
fakewire_enqueue(struct fakewire *w, int dir, const struct fakewire_pkt *pk, bool extra)
{
	struct fakewire_pkt *d;

	if (w->nq[dir] == FW_QUEUE) {
		w->dropped[dir]++;
		return;
	}
	d = &w->q[dir][w->nq[dir]++];
	*d = *pk;
	d->at = w->now + w->delay_ns;
	if (extra && w->jitter_ns)
		d->at += fakewire_rand(w) % w->jitter_ns;
}

static void
fakewire_send(struct fakewire *w, int from, const struct uet_pds_tx *t)
{
	const struct fakewire_faults *f = &w->f[from];
	struct fakewire_pkt pk;
	int n = fakewire_encode(t, &pk);

	w->tx_pkts[from]++;
	/* requests, and reliable CPs (CLOSE) sent again */
	if (t->kind == UET_PDS_TX_RETX ||
	    (t->hdr.type == UET_PDS_TYPE_CP && (t->hdr.flags & UET_PDS_F_RETX)))
		w->tx_retx[from]++;
	if (n < 0) {
		w->bad_payload++;
		return;
	}
	if (f->dead || fakewire_chance(w, f->drop) ||
	    (w->drop_fn != NULL && w->drop_fn(w, from, t))) {
		w->dropped[from]++;
		return;
	}
	/* Only data is trimmable (UEC 1.0 encapsulation and DSCP classes). */
	if (t->kind != UET_PDS_TX_CTL && fakewire_chance(w, f->trim)) {
		pk.len = (uint16_t)n;
		pk.trimmed = true;
	}
	pk.ce = fakewire_chance(w, f->ce);
	fakewire_enqueue(w, from, &pk, fakewire_chance(w, f->reorder));
	if (fakewire_chance(w, f->dup))
		fakewire_enqueue(w, from, &pk, true);
}

static void
fakewire_rx(struct fakewire *w, int to, const struct fakewire_pkt *pk)
{
	struct uet_wire_pds_hdr h;
	struct uet_pds_rx_meta m;
	uint8_t ref[FW_PAYLOAD_MAX];
	uint64_t cookie = 0;
	int n = uet_wire_pds_hdr_decode(pk->bytes, pk->len, &h);

	if (n < 0) {
		w->bad_payload++;
		return;
	}
	memset(&m, 0, sizeof(m));
	m.src = w->fa[1 - to];
	m.dst = w->fa[to];
	m.ses = pk->bytes + n;
	m.ses_len = (uint16_t)(pk->len - n);
	m.len = pk->full_len;
	m.ev = pk->ev;
	m.ce = pk->ce;
	m.trimmed = pk->trimmed;
	m.resp_expected = w->resp_expected;
	m.sdom = w->sdom;
	if (m.ses_len >= 8 && !pk->trimmed &&
	    h.type != UET_PDS_TYPE_CP && h.type != UET_PDS_TYPE_RUDI_RESP &&
	    !uet_wire_pds_type_is_ack(h.type)) {
		memcpy(&cookie, m.ses, 8);
		if (cookie >= FW_COOKIES ||
		    fakewire_payload(cookie, ref) != m.ses_len ||
		    memcmp(ref, m.ses, m.ses_len) != 0)
			w->bad_payload++;
	}
	m.pkt_cookie = cookie;
	uet_pds_rx(w->pds[to], &h, &m, w->now);
}

static void fakewire_drain(struct fakewire *w, int side);

static void
fakewire_deliver(struct fakewire *w, int dir)
{
	static struct fakewire_pkt due[FW_QUEUE];
	uint32_t i, j = 0, k = 0;

	for (i = 0; i < w->nq[dir]; i++) {
		if (w->q[dir][i].at <= w->now)
			due[k++] = w->q[dir][i];
		else
			w->q[dir][j++] = w->q[dir][i];
	}
	w->nq[dir] = j;
	/* Drain after every packet, as the engine does: the SES decides on
	 * a delivery (respond, refuse) before the PDS sees the next one. */
	for (i = 0; i < k; i++) {
		fakewire_rx(w, 1 - dir, &due[i]);
		fakewire_drain(w, 1 - dir);
	}
}

/* Submit pending return-direction data in order; stop at -EAGAIN. */
static void
fakewire_ret_flush(struct fakewire *w)
{
	struct uet_pds_submit s;
	uint8_t buf[FW_PAYLOAD_MAX];
	uint32_t i;
	int rc;

	while (w->ret_head != w->ret_tail) {
		i = w->ret_head % FW_COOKIES;
		memset(&s, 0, sizeof(s));
		s.flags = UET_PDS_SUBMIT_PDC;
		s.pdc = w->ret_pdc[i];
		s.next_hdr = UET_PDS_NEXT_RESPONSE_DATA;
		s.cookie = w->ret_cookie[i];
		s.len = fakewire_payload(s.cookie, buf);
		rc = uet_pds_submit(w->pds[1], &s, w->now);
		if (rc == -EAGAIN)
			return;
		if (rc == -ENOENT) {
			w->ret_enoent++;
			w->ret_refused[s.cookie] = 1;
		}
		else if (rc != 0)
			w->bad_payload++;
		w->ret_head++;
	}
}

static bool
fakewire_ret_event(struct fakewire *w, int side, const struct uet_pds_event *e)
{
	uint32_t i;

	if (e->type != UET_PDS_EV_DELIVER || !w->ret_data)
		return false;
	if (side == 1 && e->cookie < FW_RET_BASE) {
		i = w->ret_tail++ % FW_COOKIES;
		w->ret_pdc[i] = e->pdc;
		w->ret_cookie[i] = (uint32_t)e->cookie + FW_RET_BASE;
		return false;
	}
	if (side != 0 || e->cookie < FW_RET_BASE)
		return false;
	if (e->next_hdr != UET_PDS_NEXT_RESPONSE_DATA)
		w->bad_payload++;
	w->delivered[e->cookie]++;
	w->rorder_pdc[w->nrorder % FW_COOKIES] = e->pdc;
	w->rorder[w->nrorder++ % FW_COOKIES] = (uint32_t)e->cookie;
	return true;
}

/* The SES stand-in's say on a delivery; true when it was refused. */
static bool
fakewire_decide(struct fakewire *w, int side, const struct uet_pds_event *e)
{
	uint8_t resp[UET_PDS_RESP_MAX];

	if (side == 1 && w->refuse_left > 0) {
		if (uet_pds_refuse(w->pds[side], e->pdc, e->psn,
				   w->refuse_code) != 0) {
			w->bad_payload++;
			return false;
		}
		w->refuse_left--;
		w->refusals++;
		return true;
	}
	if (e->pdc == UET_PDS_PDC_NONE && e->mode == UET_PDS_MODE_RUDI &&
	    w->rudi_resp_len >= 8) {
		memset(resp, 0xa5, sizeof(resp));
		memcpy(resp, &e->cookie, 8);
		if (uet_pds_respond(w->pds[side], e->pdc, e->psn,
				    UET_PDS_NEXT_RESPONSE_DATA_SMALL, resp,
				    w->rudi_resp_len, w->now) != 0)
			w->bad_payload++;
	}
	return false;
}

static void
fakewire_event(struct fakewire *w, int side, const struct uet_pds_event *e)
{
	uint8_t resp[8];

	w->events[side]++;
	if (e->type == UET_PDS_EV_PDC_DOWN) {
		w->pdc_down[side]++;
		w->pdc_down_status[side] = e->status;
		return;
	}
	if (e->cookie >= FW_COOKIES)
		return;
	if (e->type == UET_PDS_EV_DELIVER && fakewire_decide(w, side, e))
		return;
	if (fakewire_ret_event(w, side, e))
		return;
	if (e->type == UET_PDS_EV_DELIVER) {
		w->last_pdc[side] = e->pdc;
		w->last_psn[side] = e->psn;
		w->delivered[e->cookie]++;
		w->order[w->norder++ % FW_COOKIES] = (uint32_t)e->cookie;
		if (w->resp_hold)
			return;
		if (w->resp_expected && w->resp_default &&
		    e->pdc != UINT32_MAX) {
			if (uet_pds_respond_default(w->pds[side], e->pdc,
						    e->psn, w->now) != 0)
				w->bad_payload++;
		} else if ((w->resp_expected || w->resp_unreserved) &&
			   e->pdc != UINT32_MAX) {
			memcpy(resp, &e->cookie, 8);
			if (uet_pds_respond(w->pds[side], e->pdc, e->psn,
					    UET_PDS_NEXT_RESPONSE, resp, 8,
					    w->now) == -EAGAIN)
				w->resp_again++;
		}
		return;
	}
	w->last_status[side] = e->status;
	w->last_resp_len[side] = e->resp_len;
	memcpy(w->last_resp[side], e->resp, e->resp_len);
	if (e->type == UET_PDS_EV_RESP) {
		w->late_resp[e->cookie]++;
		return;
	}
	if (e->status != 0) {
		w->done_err[e->cookie]++;
		return;
	}
	w->done_ok[e->cookie]++;
	if (e->resp_len && (e->resp_len < 8 ||
			    memcmp(e->resp, &e->cookie, 8) != 0))
		w->bad_payload++;
}

static void
fakewire_drain(struct fakewire *w, int side)
{
	struct uet_pds_event ev[32];
	uint16_t n, i;

	do {
		n = uet_pds_events(w->pds[side], ev, 32);
		for (i = 0; i < n; i++)
			fakewire_event(w, side, &ev[i]);
	} while (n == 32);
}

void
fakewire_step(struct fakewire *w, uint64_t dt)
{
	struct uet_pds_tx tx[32];
	uint16_t n, i;
	int s;

	fakewire_ret_flush(w);
	for (s = 0; s < 2; s++) {
		do {
			n = uet_pds_tx_burst(w->pds[s], w->now, tx, 32);
			for (i = 0; i < n; i++)
				fakewire_send(w, s, &tx[i]);
		} while (n == 32);
	}
	w->now += dt;
	for (s = 0; s < 2; s++)
		fakewire_deliver(w, s);
	for (s = 0; s < 2; s++) {
		uet_pds_advance(w->pds[s], w->now);
		fakewire_drain(w, s);
	}
}

bool
fakewire_run(struct fakewire *w, uint64_t dt, uint64_t max_ns,
       bool (*pred)(struct fakewire *w, void *arg), void *arg)
{
	uint64_t end = w->now + max_ns;

	while (w->now < end) {
		fakewire_step(w, dt);
		if (pred(w, arg))
			return true;
	}
	return false;
}

int
fakewire_inject(struct fakewire *w, int to, const struct uet_pds_tx *t,
	  bool trimmed, bool ce)
{
	struct fakewire_pkt pk;
	int n = fakewire_encode(t, &pk);

	if (n < 0)
		return n;
	if (trimmed) {
		pk.len = (uint16_t)n;
		pk.trimmed = true;
	}
	pk.ce = ce;
	fakewire_rx(w, to, &pk);
	fakewire_drain(w, to);
	return 0;
}

uint16_t
fakewire_take(struct fakewire *w, int from, struct uet_pds_tx *tx, uint16_t n)
{
	return uet_pds_tx_burst(w->pds[from], w->now, tx, n);
}

bool
fakewire_pools_idle(struct fakewire *w)
{
	struct uet_pds_pool_info pi;
	int s;

	for (s = 0; s < 2; s++) {
		uet_pds_pool_info_get(w->pds[s], &pi);
		if (pi.pdc_used[0] || pi.pdc_used[1] || pi.tx_blk_used ||
		    pi.rx_blk_used || pi.resp_used || pi.rudi_used ||
		    pi.events)
			return false;
	}
	return true;
}

void
fakewire_test_config(struct uet_pds_config *cfg)
{
	uet_pds_config_default(cfg);
	cfg->max_pdcs = 8;
	cfg->max_rsv_pdcs = 2;
	cfg->tx_window = 64;
	cfg->rx_window = 64;
	cfg->tx_blocks = 4;
	cfg->rx_blocks = 4;
	cfg->resp_entries = 4;
	cfg->rudi_slots = 8;
	cfg->event_queue = 512;
	cfg->ctl_queue = 64;
	cfg->dgram_queue = 64;
	cfg->mtu = 1024;
	cfg->cc_param = 64 * 1024;
	cfg->tgt_close_req_ns = 0;
	/* one incarnation per node unless a test restarts one: the
	 * first SYN opens (the quiet time has tests of its own) */
	cfg->syn_quiet = false;
	/* failure paths are driven through 5 RTO rounds (6 expiries, 63 ms
	 * of fake time), not the default 24 */
	cfg->max_retries = 5;
}

struct fakewire W;

int
fakewire_setup_with(uint64_t seed, void (*tweak)(struct uet_pds_config *cfg))
{
	struct uet_pds_config cfg;

	fakewire_test_config(&cfg);
	if (tweak != NULL)
		tweak(&cfg);
	return fakewire_init(&W, &cfg, seed);
}

int
fakewire_setup(void **state)
{
	(void)state;
	return fakewire_setup_with(1, NULL);
}

int
fakewire_teardown(void **state)
{
	(void)state;
	fakewire_fini(&W);
	return 0;
}

const struct uet_pds_stats *
fakewire_st(int side)
{
	return uet_pds_stats_get(W.pds[side]);
}

uint64_t
fakewire_retx_sent(int side)
{
	return fakewire_retx_of(fakewire_st(side));
}

uint64_t
fakewire_retx_of(const struct uet_pds_stats *s)
{
	return s->retx_sack + s->retx_nack + s->retx_trim + s->retx_rto +
	       s->retx_backoff + s->retx_probe + s->retx_again + s->retx_tlp;
}

uint16_t
fakewire_window_acks_held(struct fakewire *w, uint32_t first, uint16_t n,
		    uint8_t flags, struct uet_pds_tx *acks, uint16_t max)
{
	struct uet_pds_tx tx[64];
	uint16_t k, i;

	if (n > 64)
		return 0;
	for (i = 0; i < n; i++)
		if (fakewire_submit(w, UET_PDS_MODE_RUD, first + i, flags) != 0)
			return 0;
	k = fakewire_take(w, 0, tx, n);
	if (k != n)
		return 0;
	for (i = 0; i < k; i++)
		fakewire_inject(w, 1, &tx[i], false, false);
	/* the coalesced tail's delayed ACK too (ack_delay_ns is 50 us) */
	w->now += 1000000;
	uet_pds_advance(w->pds[1], w->now);
	fakewire_drain(w, 1);
	return fakewire_take(w, 1, acks, max);
}

bool
fakewire_take_type(struct fakewire *w, int from, uint8_t type,
	     struct uet_pds_tx *out)
{
	struct uet_pds_tx tx[64];
	uint16_t n = fakewire_take(w, from, tx, 64), i;

	for (i = 0; i < n; i++) {
		if (tx[i].hdr.type == type) {
			*out = tx[i];
			return true;
		}
	}
	return false;
}
