/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The engine loop of one context:
 *   now -> RX bursts, local queues -> [fault RX] -> decode -> hook rx_burst
 *   -> hook advance -> hook tx_ready -> neighbour timers -> [fault TX]
 *   -> TX bursts.
 * One timestamp per iteration; no allocation except mbufs; counters only.
 */

#include <errno.h>
#include <string.h>
#include <sys/prctl.h>

#include <rte_branch_prediction.h>
#include <rte_ethdev.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_pause.h>
#include <rte_prefetch.h>

#include <uet/uet_wire_csum.h>

/* Frames ahead whose headers are prefetched while one is decoded. */
#define ENG_RX_PREFETCH 4

#include "engine_private.h"

static enum uet_engine_pkt_class
pkt_class(unsigned int type)
{
	if (uet_wire_pds_type_is_ack(type) || type == UET_PDS_TYPE_RUDI_RESP)
		return UET_ENGINE_CLASS_ACK;
	if (uet_wire_pds_type_is_nack(type))
		return UET_ENGINE_CLASS_NACK;
	if (type == UET_PDS_TYPE_CP)
		return UET_ENGINE_CLASS_CP;
	return UET_ENGINE_CLASS_REQ;
}

static void
hook_rx_flush(struct uet_engine_lcore *lc)
{
	if (lc->nb_rx == 0)
		return;
	lc->eng->hook.rx_burst(lc->hook_priv, lc, lc->rx, lc->nb_rx, lc->now);
	lc->nb_rx = 0;
}

static void
rx_drop(struct uet_engine_lcore *lc, const struct uet_wire_pkt *p,
	struct rte_mbuf *m)
{
	if (p->err == UET_WIRE_E_NOT_UET || p->err == UET_WIRE_E_BAD_ETHERTYPE) {
		ENG_INC(lc->st.rx_non_uet);
	} else {
		ENG_INC(lc->st.rx_malformed);
		ENG_INC(lc->st.rx_err_layer[p->err_layer & 7]);
		if (p->err > 0 && p->err < UET_WIRE_E__COUNT)
			ENG_INC(lc->st.rx_err_code[p->err]);
	}
	rte_pktmbuf_free(m);
}

/*
 * UDP checksum of a UET frame whose outer headers decoded: the port's
 * offload verdict when it gave one, else DPDK's software check. A zero
 * checksum means "none": refused over IPv6 (RFC 8200 8.1) and over IPv4
 * when port.udp_checksum requires it. A trimmed frame cannot be checked
 * (the checksum covers the bytes the switch cut); the PDS only NACKs it.
 * Returns true when the frame may go on.
 */
int
engine_chain_pullup(struct rte_mbuf *m)
{
	struct rte_mbuf *t = m->next;
	uint32_t want, need;

	if (m->nb_segs != 2 || !RTE_MBUF_DIRECT(m) ||
	    rte_mbuf_refcnt_read(m) != 1)
		return -1;
	want = RTE_MIN(rte_pktmbuf_pkt_len(m), UET_ENGINE_RX_HDR_ROOM);
	need = want > m->data_len ? want - m->data_len : 0;
	if (need >= t->data_len || need > rte_pktmbuf_tailroom(m))
		return -1;
	rte_memcpy(rte_pktmbuf_mtod_offset(m, uint8_t *, m->data_len),
		   rte_pktmbuf_mtod(t, const uint8_t *), need);
	m->data_len = (uint16_t)(m->data_len + need);
	t->data_off = (uint16_t)(t->data_off + need);
	t->data_len = (uint16_t)(t->data_len - need);
	return 0;
}

/*
 * A chained frame (sent by reference, [portN] tx_zero_copy: a header
 * mbuf chained to the sender's buffer) of two segments stays chained
 * (engine_chain_pullup()), and the hook places the payload from the
 * second segment (struct uet_engine_rx), each byte copied once. Longer
 * chains and [tss] frames (decrypted in place) are copied into their
 * first segment.
 * @return 0, or -1 when the frame does not fit its first segment.
 */
static int
rx_chain_prepare(struct uet_engine_lcore *lc, struct rte_mbuf *m)
{
	if (lc->tss == NULL && engine_chain_pullup(m) == 0) {
		ENG_INC(lc->st.rx_chained);
		return 0;
	}
	ENG_INC(lc->st.rx_linearized);
	return rte_pktmbuf_linearize(m);
}

static bool
rx_csum_ok(struct uet_engine_lcore *lc, const struct engine_port *p,
	   struct rte_mbuf *m, const struct uet_wire_outer *o)
{
	const uint8_t *l4, *l3;
	uint64_t f;

	if (o->native || o->trimmed)
		return true;
	if (o->udp_csum == 0) {
		/* [tss]: a protected IPv4 frame has none, its ICV covers
		 * more (tss_tx.c) */
		if (o->ip_version == 4 && (!p->csum_v4 || (lc->tss != NULL &&
		    uet_wire_tss_hdr_present(rte_pktmbuf_mtod_offset(m,
				const uint8_t *, o->hdr_len), o->inner_len))))
			return true;
		ENG_INC(lc->st.rx_csum_none);
		return false;
	}
	f = m->ol_flags & RTE_MBUF_F_RX_L4_CKSUM_MASK;
	if (f == RTE_MBUF_F_RX_L4_CKSUM_GOOD)
		return true;
	if (f != RTE_MBUF_F_RX_L4_CKSUM_BAD) {
		/* the vectorised sum over the whole datagram: a chain is
		 * made one segment first (its first segment keeps its
		 * address, the parsed offsets stay valid) */
		if (unlikely(!rte_pktmbuf_is_contiguous(m))) {
			ENG_INC(lc->st.rx_linearized);
			if (rte_pktmbuf_linearize(m) < 0) {
				ENG_INC(lc->st.rx_csum_bad);
				return false;
			}
		}
		/* the vectorised sum: DPDK's rte_ipv4/6_udptcp_cksum_verify
		 * adds 16 bits per step, a third of a bulk frame's cost */
		l4 = rte_pktmbuf_mtod_offset(m, const uint8_t *,
					     o->hdr_len - UET_UDP_HLEN);
		l3 = l4 - o->ip_hlen;
		if (uet_wire_csum_fold(uet_wire_csum_udp(l3, l4)) == 0xFFFF)
			return true;
	}
	ENG_INC(lc->st.rx_csum_bad);
	return false;
}

/*
 * Receive-side classification of one frame (the trimming rules are the
 * wire decoder's, uet_wire_outer_opts.trim_dscps): not UET or malformed ->
 * dropped and counted; checksum wrong or missing -> dropped and counted
 * before the PDS sees it, so the sender's retransmission repairs it;
 * trimmed -> counted and handed on (the PDS NACKs it, UEC 1.0 packet trimming);
 * [tss]: a protected frame is queued for opening (tss_rx.c), a clear one
 * of a secure job dropped.
 * The bytes after the PDS header are not looked at: the hook's ULP (the
 * SES) decodes its own header, once, and refuses what is malformed.
 * Returns true when the frame goes to the hook.
 */
static bool
rx_classify(struct uet_engine_lcore *lc, const struct engine_port *p,
	    uint16_t queue, struct rte_mbuf *m, struct uet_wire_pkt *pkt, int rc)
{
	/* outer headers usable from the PDS layer on */
	if (pkt->err_layer == UET_PKT_LAYER_NONE ||
	    pkt->err_layer >= UET_PKT_LAYER_PDS) {
		if (!rx_csum_ok(lc, p, m, &pkt->outer)) {
			rte_pktmbuf_free(m);
			return false;
		}
	}
	if (rc < 0) {
		if (!(lc->tss != NULL &&
		      engine_tss_rx_take(lc, (uint16_t)(p - lc->eng->port),
				      queue, m, pkt)))
			rx_drop(lc, pkt, m);
		return false;
	}
	/* a frame from this engine itself (local_delivery.c) never was on a wire */
	if (lc->tss != NULL && !lc->rx_local &&
	    !engine_tss_rx_clear_ok(lc, m, pkt))
		return false;
	if (pkt->outer.trimmed)
		ENG_INC(lc->st.rx_trimmed);
	return true;
}

/*
 * A frame longer than this port's MTU allows: its sender has a larger
 * [portN] mtu. Nothing on a memif or ring link (no switch, no ICMP) tells
 * the sender, whose retransmissions would all be lost the same way, so
 * the frame is dropped, counted and, the first time per port and
 * context, logged with the key to set.
 */
static __rte_noinline void
rx_mtu_exceeded(struct uet_engine_lcore *lc, uint16_t port,
		const struct engine_port *p, struct rte_mbuf *m)
{
	const struct rte_ether_hdr *eh;
	char mac[RTE_ETHER_ADDR_FMT_SIZE] = "?";

	ENG_INC(lc->st.rx_mtu_exceeded);
	if (!(lc->rx_mtu_logged & (1u << (port & 7)))) {
		lc->rx_mtu_logged |= (uint8_t)(1u << (port & 7));
		if (rte_pktmbuf_data_len(m) >= sizeof(*eh)) {
			eh = rte_pktmbuf_mtod(m, const struct rte_ether_hdr *);
			rte_ether_format_addr(mac, sizeof(mac), &eh->src_addr);
		}
		ENG_LOG(ERR, "port%u (%s): dropped a %u-byte frame from %s, "
			"longer than the %u bytes port%u.mtu %u allows: the "
			"sender's MTU is larger; set [port%u] mtu alike at both "
			"ends (auto: %u on net_memif and net_ring ports)",
			port, p->name, rte_pktmbuf_pkt_len(m), mac,
			p->mtu + ENG_FRAME_OVERHEAD, port, p->mtu, port,
			UET_CONFIG_MTU_JUMBO);
	}
	rte_pktmbuf_free(m);
}

void
engine_rx_one(struct uet_engine_lcore *lc, uint16_t port, uint16_t queue,
	   struct rte_mbuf *m, uint64_t now)
{
	struct uet_engine_rx *r = &lc->rx[lc->nb_rx];
	const struct engine_port *p = &lc->eng->port[port];
	int rc;

	(void)now;
	if (unlikely(rte_pktmbuf_pkt_len(m) >
		     (uint32_t)p->mtu + ENG_FRAME_OVERHEAD)) {
		rx_mtu_exceeded(lc, port, p, m);
		return;
	}
	if (unlikely(m->nb_segs > 1) && rx_chain_prepare(lc, m) < 0) {
		r->pkt.err = UET_WIRE_E_TRUNCATED;
		r->pkt.err_layer = UET_PKT_LAYER_ETH;
		rx_drop(lc, &r->pkt, m);
		return;
	}
	if (unlikely(engine_neigh_candidate(m)) && engine_neigh_rx(lc, port, m) != 0)
		return;
	/* a chain: the headers are in the first segment, the parse reads
	 * no further (lengths are checked against the whole frame) */
	rc = uet_wire_pkt_parse_pds(rte_pktmbuf_mtod(m, const uint8_t *),
			       rte_pktmbuf_pkt_len(m), &p->opts, &r->pkt);
	if (!rx_classify(lc, p, queue, m, &r->pkt, rc))
		return;
	engine_rx_deliver(lc, port, queue, m, 0);
}

void
engine_rx_deliver(struct uet_engine_lcore *lc, uint16_t port, uint16_t queue,
	       struct rte_mbuf *m, uint8_t sdom)
{
	struct uet_engine_rx *r = &lc->rx[lc->nb_rx];

	r->m = m;
	r->sdom = sdom;
	r->port = port;
	r->queue = queue;
	ENG_INC(lc->st.rx_uet);
	ENG_INC(lc->st.rx_class[pkt_class(r->pkt.pds.type)]);
	if (++lc->nb_rx >= lc->burst)
		hook_rx_flush(lc);
}

/* A burst from RX queue @p queue of @p port (or from the context's
 * local queue of the port): capture, fault injection, decode. */
static void
rx_frames(struct uet_engine_lcore *lc, uint16_t port, uint16_t queue,
	  struct rte_mbuf **pkts, uint16_t n, uint64_t now)
{
	if (unlikely(lc->cap != NULL)) {
		struct rte_mbuf *c[UET_ENGINE_BURST_MAX];

		engine_capture_copy(lc, port, queue, pkts, n, false, c);
		engine_capture_write(lc, c, n, n);
	}
	lc->iter_rx += n;
	for (uint16_t j = 0; j < n && j < ENG_RX_PREFETCH; j++)
		rte_prefetch0(rte_pktmbuf_mtod(pkts[j], void *));
	for (uint16_t j = 0; j < n; j++) {
		if (j + ENG_RX_PREFETCH < n)
			rte_prefetch0(rte_pktmbuf_mtod(
				pkts[j + ENG_RX_PREFETCH], void *));
		if (lc->fault_on)
			engine_fault_apply(lc, UET_CONFIG_FAULT_RX, port, queue,
					pkts[j], now, engine_rx_one);
		else
			engine_rx_one(lc, port, queue, pkts[j], now);
	}
}

/* Frames sent to the engine's own addresses and steered to this context
 * (local_delivery.c), received on the port they were addressed to. Not behind
 * the port gate: no driver is involved. */
static void
rx_local(struct uet_engine_lcore *lc, uint64_t now)
{
	struct rte_mbuf *pkts[UET_ENGINE_BURST_MAX];

	if (likely(!engine_local_delivery_pending(lc)))
		return;
	for (uint16_t p = 0; p < lc->eng->nb_ports; p++) {
		uint16_t n = engine_local_delivery_rx(lc, p, pkts);

		if (n == 0)
			continue;
		lc->rx_local = true;
		rx_frames(lc, p, lc->tx[p].queue, pkts, n, now);
		lc->rx_local = false;
	}
}

static void
rx_poll(struct uet_engine_lcore *lc, uint64_t now, bool ports)
{
	struct rte_mbuf *pkts[UET_ENGINE_BURST_MAX];

	if (lc->fault_on)
		engine_fault_release(lc, UET_CONFIG_FAULT_RX, now, false,
				  engine_rx_one);
	for (uint16_t i = 0; ports && i < lc->nb_rxq; i++) {
		const struct engine_rxq *q = &lc->rxq[i];
		uint16_t n = engine_port_rx_burst(&lc->eng->port[q->port],
					       q->queue, pkts, lc->burst);
		uint64_t bytes = 0;

		if (n == 0)
			continue;
		for (uint16_t j = 0; j < n; j++)
			bytes += rte_pktmbuf_pkt_len(pkts[j]);
		ENG_ADD(lc->st.rx_pkts, n);
		ENG_ADD(lc->st.rx_bytes, bytes);
		rx_frames(lc, q->port, q->queue, pkts, n, now);
	}
	rx_local(lc, now);
	if (lc->tss != NULL)
		engine_tss_rx_flush(lc);
	hook_rx_flush(lc);
}

/*
 * TX sink after fault injection: the output list of the port being
 * flushed, else the release list (frames released from a hold are sent
 * as they are, never faulted twice).
 */
static void
tx_sink(struct uet_engine_lcore *lc, uint16_t port, uint16_t queue,
	struct rte_mbuf *m, uint64_t now)
{
	(void)queue;
	(void)now;
	if (port == lc->txo_port && lc->nb_txo < RTE_DIM(lc->txo)) {
		lc->txo[lc->nb_txo++] = m;
		return;
	}
	if (port != lc->txo_port && lc->nb_rel < RTE_DIM(lc->rel)) {
		lc->rel[lc->nb_rel].m = m;
		lc->rel[lc->nb_rel].port = port;
		lc->nb_rel++;
		return;
	}
	ENG_INC(lc->st.tx_full);
	rte_pktmbuf_free(m);
}

/* Move released frames of port @p lc->txo_port to the output list. */
static void
tx_take_released(struct uet_engine_lcore *lc)
{
	uint16_t keep = 0;

	for (uint16_t i = 0; i < lc->nb_rel; i++) {
		if (lc->rel[i].port == lc->txo_port &&
		    lc->nb_txo < RTE_DIM(lc->txo))
			lc->txo[lc->nb_txo++] = lc->rel[i].m;
		else
			lc->rel[keep++] = lc->rel[i];
	}
	lc->nb_rel = keep;
}

/* engine.capture: copies are taken before the PMD owns the frames; only
 * those of frames the queue took are written. */
static uint16_t
tx_burst_captured(struct uet_engine_lcore *lc, uint16_t port, uint16_t queue,
		  struct rte_mbuf **m, uint16_t n)
{
	struct rte_mbuf *c[RTE_DIM(lc->txo)];
	uint16_t sent;

	n = RTE_MIN(n, (uint16_t)RTE_DIM(c));
	engine_capture_copy(lc, port, queue, m, n, true, c);
	sent = engine_port_tx_burst(&lc->eng->port[port], queue, m, n);
	engine_capture_write(lc, c, sent, n);
	return sent;
}

/* Hand @p n frames to the TX queue; returns how many it took (the rest
 * stay with the caller). */
static uint16_t
tx_burst(struct uet_engine_lcore *lc, uint16_t port, uint16_t queue,
	 struct rte_mbuf **m, uint16_t n)
{
	uint64_t bytes = 0;
	uint16_t sent;

	if (n == 0)
		return 0;
	if (unlikely(lc->cap != NULL))
		sent = tx_burst_captured(lc, port, queue, m, n);
	else
		sent = engine_port_tx_burst(&lc->eng->port[port], queue, m, n);
	for (uint16_t i = 0; i < sent; i++)
		bytes += rte_pktmbuf_pkt_len(m[i]);
	ENG_ADD(lc->st.tx_pkts, sent);
	ENG_ADD(lc->st.tx_bytes, bytes);
	ENG_ADD(lc->st.tx_held, n - sent);
	return sent;
}

/*
 * Frames the TX queue refuses (full, or a link not up yet: net_memif
 * before its peer connects) wait in the staging array for the next
 * iteration. uet_engine_tx_space() then shrinks, so the PDS builds fewer
 * frames instead of losing them to the queue and retransmitting after an
 * RTO; UUD datagrams sent before the link came up are not lost either.
 */
static void
tx_flush_port(struct uet_engine_lcore *lc, struct engine_txbuf *b, uint16_t p)
{
	uint16_t sent = tx_burst(lc, p, b->queue, b->m, b->n);

	lc->iter_tx += sent;
	if (sent != 0 && sent < b->n)
		memmove(b->m, b->m + sent, (b->n - sent) * sizeof(b->m[0]));
	b->n = (uint16_t)(b->n - sent);
	b->sealed = b->n; /* what stays was sealed (or needs none) */
}

/* Fault path: what the queue refuses goes to the release list (sent
 * first at the next flush of the port, never faulted twice). */
static void
tx_flush_faulted(struct uet_engine_lcore *lc, uint16_t p, uint16_t queue)
{
	uint16_t sent = tx_burst(lc, p, queue, lc->txo, lc->nb_txo);

	lc->iter_tx += sent;
	for (uint16_t i = sent; i < lc->nb_txo; i++) {
		if (lc->nb_rel < RTE_DIM(lc->rel)) {
			lc->rel[lc->nb_rel].m = lc->txo[i];
			lc->rel[lc->nb_rel].port = p;
			lc->nb_rel++;
		} else {
			ENG_INC(lc->st.tx_full);
			rte_pktmbuf_free(lc->txo[i]);
		}
	}
	lc->nb_txo = 0;
}

static void
tx_flush(struct uet_engine_lcore *lc, uint64_t now)
{
	const struct uet_engine *e = lc->eng;

	if (lc->fault_on) {
		lc->txo_port = UINT16_MAX;
		engine_fault_release(lc, UET_CONFIG_FAULT_TX, now, false,
				  tx_sink);
	}
	for (uint16_t p = 0; p < e->nb_ports; p++) {
		struct engine_txbuf *b = &lc->tx[p];

		/* before the faults: they act on the wire */
		if (lc->tss != NULL)
			engine_tss_tx_seal(lc, p, b);
		if (!lc->fault_on) {
			tx_flush_port(lc, b, p);
			continue;
		}
		lc->txo_port = p;
		lc->nb_txo = 0;
		tx_take_released(lc);
		for (uint16_t i = 0; i < b->n; i++)
			engine_fault_apply(lc, UET_CONFIG_FAULT_TX, p, b->queue,
					b->m[i], now, tx_sink);
		b->n = 0;
		b->sealed = 0;
		tx_flush_faulted(lc, p, b->queue);
	}
	lc->txo_port = UINT16_MAX;
}

unsigned int
engine_lcore_iterate(struct uet_engine_lcore *lc)
{
	const struct uet_engine *e = lc->eng;
	uint64_t now = engine_now_ns(e);
	/* not while the port gate lets the interrupt thread out (gate.c):
	 * TX stays staged */
	bool ports = engine_gate_ports_enter(lc);
	unsigned int work;

	if (unlikely(now >= __atomic_load_n(&lc->eng->alive.next_ns,
					    __ATOMIC_RELAXED)))
		engine_alive_refresh(lc->eng, now);
	lc->now = now;
	lc->iter_rx = 0;
	lc->iter_tx = 0;
	rx_poll(lc, now, ports);
	e->hook.advance(lc->hook_priv, lc, now);
	work = e->hook.tx_ready(lc->hook_priv, lc, now);
	engine_neigh_advance(lc, now);
	if (ports)
		tx_flush(lc, now);
	/* frames staged while the gate was out wait for it, not for room */
	lc->tx_gated = !ports && engine_lcore_tx_staged(lc);
	engine_gate_ports_leave(lc, ports);
	work += lc->iter_rx + lc->iter_tx;
	ENG_INC(lc->st.iterations);
	if (work != 0)
		ENG_INC(lc->st.busy_iterations);
	return work;
}

/*
 * Idle behaviour of an AUTO lcore: busy-poll while there is work and
 * for engine.idle_spin after the last work, then sleep until a wake-up
 * (sleep.c). On a machine with fewer cores than busy threads (two engine
 * processes, applications polling their CQs) a lcore that never gives
 * its core away holds it for a whole scheduler slice (ms) while the
 * thread that has work waits. The timer slack of the lcore thread is set
 * to 1 us so that short sleeps are what was configured, not the default
 * 50 us slack. The lcore holds its context's progress lock while it is
 * awake; application threads take it only while it sleeps. An
 * application thread that polls the context while the lcore is awake
 * makes it sleep at its next iteration without work (no idle_spin): on a
 * machine with fewer CPUs than busy threads, a lcore kept awake by a
 * ping-pong's steady trickle of frames would otherwise compete with the
 * polling thread for good.
 */
static void
idle_backoff_init(void)
{
	(void)prctl(PR_SET_TIMERSLACK, 1000UL, 0UL, 0UL, 0UL);
}

int
engine_lcore_main(void *arg)
{
	struct uet_engine_lcore *lc = arg;
	struct uet_engine *e = lc->eng;
	const uint64_t spin = e->cfg.engine.idle_spin_ns;
	const bool sleeps = lc->wake.enabled;
	uint64_t last_work;

	if (sleeps)
		idle_backoff_init();
	engine_wake_lock(lc);
	last_work = engine_now_ns(e);
	while (!atomic_load_explicit(&e->stop, memory_order_acquire)) {
		if (engine_lcore_iterate(lc) != 0) {
			last_work = lc->now;
			continue;
		}
		/* an application thread that polls takes the loop over as
		 * soon as the lcore sleeps: no idle_spin beside it */
		if (!sleeps || (lc->now - last_work < spin &&
				!engine_app_polls(lc, lc->now))) {
			rte_pause();
			continue;
		}
		engine_lcore_sleep(lc);
		last_work = engine_now_ns(e);
	}
	engine_wake_unlock_awake(lc);
	return 0;
}

void
engine_lcore_drain(struct uet_engine_lcore *lc)
{
	for (unsigned int p = 0; p < UET_CONFIG_MAX_PORTS; p++) {
		struct engine_txbuf *b = &lc->tx[p];

		for (uint16_t i = 0; i < b->n; i++)
			rte_pktmbuf_free(b->m[i]);
		b->n = 0;
		b->sealed = 0;
	}
	for (uint16_t i = 0; i < lc->nb_rel; i++)
		rte_pktmbuf_free(lc->rel[i].m);
	lc->nb_rel = 0;
	engine_fault_flush(lc);
	engine_local_delivery_drain(lc);
}

/* ------------------------------------------------------------------ */
/* services for hooks                                                  */
/* ------------------------------------------------------------------ */

int
uet_engine_outer_prepare(const struct uet_engine_lcore *lc, unsigned int port,
			 unsigned int ip_version, const uint8_t dst_fa[16],
			 struct uet_wire_outer *o)
{
	const struct engine_port *p;

	if (port >= lc->eng->nb_ports || (ip_version != 4 && ip_version != 6))
		return -EINVAL;
	p = &lc->eng->port[port];
	if ((ip_version == 4 && !p->has_ipv4) ||
	    (ip_version == 6 && !p->has_ipv6))
		return -EAFNOSUPPORT;
	uet_wire_outer_init(o, ip_version);
	memcpy(o->src_mac, p->mac.addr_bytes, 6);
	if (ip_version == 4) {
		memcpy(o->src_addr, p->ipv4, 4);
		memcpy(o->dst_addr, dst_fa, 4);
	} else {
		memcpy(o->src_addr, p->ipv6, 16);
		memcpy(o->dst_addr, dst_fa, 16);
	}
	o->udp_dport = p->udp_port;
	if (p->native) {
		o->native = true;
		o->ip_proto = p->ip_proto;
	}
	return 0;
}

int
uet_engine_mbuf_alloc_bulk(struct uet_engine_lcore *lc, unsigned int port,
			   struct rte_mbuf **m, unsigned int n)
{
	if (port >= lc->eng->nb_ports)
		return -EINVAL;
	if (unlikely(rte_pktmbuf_alloc_bulk(lc->eng->port[port].pool, m,
					    n) != 0)) {
		ENG_ADD(lc->st.mbuf_alloc_fail, n);
		return -ENOMEM;
	}
	return 0;
}

struct rte_mbuf *
uet_engine_mbuf_alloc(struct uet_engine_lcore *lc, unsigned int port)
{
	struct rte_mbuf *m;

	if (port >= lc->eng->nb_ports)
		return NULL;
	m = rte_pktmbuf_alloc(lc->eng->port[port].pool);
	if (unlikely(m == NULL))
		ENG_INC(lc->st.mbuf_alloc_fail);
	return m;
}

/*
 * With [fault] on, staged frames go through the injector at each flush
 * and what the TX queue refuses waits in the release list (tx_sink), not
 * in the staging array, so the staging array's room says nothing of a
 * full queue. The room is then what the release list can still take:
 * what the holds may release first, and each staged frame twice (a
 * duplicate). Without this a full queue (a slower peer) filled the list
 * and every further frame was freed (tx_full): an ASan soak lost 376 000
 * frames that way, the RTO resent whole windows into the same full
 * queue, and 2 560 sends failed.
 */
static uint16_t
tx_fault_room(const struct uet_engine_lcore *lc)
{
	const struct engine_fault_dir *fd = &lc->fault[UET_CONFIG_FAULT_TX];
	int room = (int)RTE_DIM(lc->rel) - lc->nb_rel -
		   (int)(fd->reorder.count + fd->delay.count);

	for (uint16_t p = 0; p < lc->eng->nb_ports; p++)
		room -= 2 * lc->tx[p].n;
	return room > 0 ? (uint16_t)(room / 2) : 0;
}

uint16_t
uet_engine_tx_space(const struct uet_engine_lcore *lc, unsigned int port)
{
	uint16_t n;

	if (port >= lc->eng->nb_ports || !lc->tx[port].has_queue)
		return 0;
	n = (uint16_t)(ENG_TX_STAGE - lc->tx[port].n);
	if (lc->fault_on)
		n = RTE_MIN(n, tx_fault_room(lc));
	/* frames to our own address use the local queue instead: a
	 * builder that cannot tell them apart gets the smaller room */
	return RTE_MIN(n, engine_local_delivery_space(lc, port));
}

int
uet_engine_tx(struct uet_engine_lcore *lc, unsigned int port,
	      struct rte_mbuf *m)
{
	struct engine_txbuf *b;

	if (unlikely(port >= lc->eng->nb_ports || !lc->tx[port].has_queue)) {
		ENG_INC(lc->st.tx_no_queue);
		return -ENODEV;
	}
	b = &lc->tx[port];
	if (unlikely(b->n >= ENG_TX_STAGE)) {
		ENG_INC(lc->st.tx_staging_full);
		return -EAGAIN;
	}
	b->m[b->n++] = m;
	return 0;
}
