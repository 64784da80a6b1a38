/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Local delivery (docs/ENGINE.md "Frames to the engine's own
 * addresses"): a frame whose destination IP address is one of the
 * engine's own port addresses never goes to a TX queue. No driver brings
 * a port's own frames back (net_ring, net_memif, net_tap, af_packet do
 * not; a NIC would send them to the switch), so two processes of one FEP
 * (PIDonFEPs of one engine) could not reach each other.
 *
 * Each context has one bounded ring per port, its local queue on that
 * port: uet_engine_tx_ip() puts such a frame there instead of resolving
 * its neighbour and staging it, and the receiving context's next
 * iteration takes it out beside its RX queues, through the same RX path
 * as a received frame (capture, RX fault injection, decode and
 * classification, the hook). A full ring drops the frame (local_delivery_drop):
 * a loss for the PDS, which retransmits.
 *
 * Which context receives it. With one context, that one. With several,
 * the one a NIC would have to pick to keep the PDS consistent:
 *   - a frame of an established PDC (requests without SYN, ACKs, NACKs,
 *     CPs) goes to the context that owns its destination PDC, named by
 *     the top bits of the PDC id (the PDS hook's owner_bits);
 *   - a DEFERRABLE_RTR that opens a PDC goes to the context named as
 *     owner in its initiator restart token (the one holding the deferred
 *     send: the RTR's PIDonFEP is the deferred send's, its own sender's);
 *   - a frame that opens a PDC or is a datagram (SYN request, RUDI, UUD)
 *     goes to the context that serves the destination PIDonFEP of its SES
 *     header (uet_engine_pid_context_set(), kept by the SES ULP); the
 *     target side of a PDC is then created where the process lives;
 *   - a RUDI response or a RUDI NACK, which name neither, goes to the
 *     context that last opened to the sender that way;
 *   - anything else stays on the sending context.
 * Rings are multi-producer (any context of the engine), single-consumer;
 * a producer that fills another context's ring wakes it if it sleeps
 * (the same handshake as a channel post, sleep.c).
 */

#include <errno.h>
#include <string.h>

#include <rte_atomic.h>
#include <rte_ip.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_ring.h>
#include <rte_udp.h>

#include <uet/uet_pds.h>
#include <uet/uet_wire_csum.h>
#include <uet/uet_wire_ses.h>

#include "engine_private.h"

int
engine_local_delivery_init(struct uet_engine_lcore *lc)
{
	const struct uet_engine *e = lc->eng;
	ssize_t sz = rte_ring_get_memsize(ENG_HAIRPIN_RING);
	int socket = lc->lcore_id == UINT32_MAX ? SOCKET_ID_ANY :
		     (int)rte_lcore_to_socket_id(lc->lcore_id);

	if (sz < 0)
		return (int)sz;
	for (unsigned int p = 0; p < e->nb_ports; p++) {
		struct rte_ring *r;
		char name[RTE_RING_NAMESIZE];
		int rc;

		r = rte_zmalloc_socket("uet_local", (size_t)sz,
				       RTE_CACHE_LINE_SIZE, socket);
		if (r == NULL) {
			engine_local_delivery_fini(lc);
			return -ENOMEM;
		}
		/* not looked up by name: rte_ring_init() registers nothing */
		snprintf(name, sizeof(name), "hp%u.%u", lc->idx, p);
		rc = rte_ring_init(r, name, ENG_HAIRPIN_RING, RING_F_SC_DEQ);
		if (rc < 0) {
			rte_free(r);
			engine_local_delivery_fini(lc);
			return rc;
		}
		lc->local_ring[p] = r;
	}
	return 0;
}

void
engine_local_delivery_drain(struct uet_engine_lcore *lc)
{
	struct rte_mbuf *m[32];
	unsigned int n;

	for (unsigned int p = 0; p < UET_CONFIG_MAX_PORTS; p++) {
		if (lc->local_ring[p] == NULL)
			continue;
		while ((n = rte_ring_sc_dequeue_burst(lc->local_ring[p],
						      (void **)m, RTE_DIM(m),
						      NULL)) != 0)
			rte_pktmbuf_free_bulk(m, n);
	}
	__atomic_store_n(&lc->local_delivery_queued, 0, __ATOMIC_RELAXED);
}

void
engine_local_delivery_fini(struct uet_engine_lcore *lc)
{
	engine_local_delivery_drain(lc);
	for (unsigned int p = 0; p < UET_CONFIG_MAX_PORTS; p++) {
		rte_free(lc->local_ring[p]);
		lc->local_ring[p] = NULL;
	}
}

int
engine_local_delivery_port(const struct uet_engine *e, unsigned int ipver,
		 const uint8_t *dst)
{
	for (unsigned int p = 0; p < e->nb_ports; p++) {
		const struct engine_port *ep = &e->port[p];

		if (ipver == 4 ? ep->has_ipv4 && memcmp(dst, ep->ipv4, 4) == 0 :
				 ep->has_ipv6 && memcmp(dst, ep->ipv6, 16) == 0)
			return (int)p;
	}
	return -1;
}

/*
 * What the frame would be once received: the UDP checksum complete (a
 * frame built for the port's checksum offload carries only the
 * pseudo-header sum, which the NIC would have finished), no TX offload
 * request left, the receiving port's ethdev id.
 */
static void
local_delivery_as_received(const struct uet_engine *e, unsigned int to,
		    struct rte_mbuf *m, unsigned int l3off, unsigned int ipver)
{
	uint8_t *d = rte_pktmbuf_mtod(m, uint8_t *);

	if (m->ol_flags & RTE_MBUF_F_TX_UDP_CKSUM) {
		void *ip = d + l3off;
		unsigned int ihl = ipver == 4 ? (d[l3off] & 0x0fu) * 4u :
						UET_IPV6_HLEN;
		struct rte_udp_hdr *udp = (struct rte_udp_hdr *)
			(d + l3off + ihl);
		uint16_t c;

		udp->dgram_cksum = 0;
		c = (uint16_t)~uet_wire_csum_fold(uet_wire_csum_udp(ip, udp));
		udp->dgram_cksum = c == 0 ? 0xFFFF : c;
	}
	m->ol_flags = 0;
	m->packet_type = 0;
	m->port = e->port[to].port_id;
	/* the destination MAC is the receiving port's own */
	memcpy(d, e->port[to].mac.addr_bytes, 6);
}

/* The context that serves PIDonFEP @p pid, else @p dflt. */
static struct uet_engine_lcore *
ctx_of_pid(struct uet_engine *e, uint16_t pid, struct uet_engine_lcore *dflt)
{
	uint8_t v = __atomic_load_n(&e->pid_ctx[pid & 0xFFF], __ATOMIC_RELAXED);

	return v != 0 && v <= e->nb_lcores ? e->lc[v - 1] : dflt;
}

static struct uet_engine_lcore *
ctx_of_pdc(struct uet_engine *e, uint16_t pdcid, struct uet_engine_lcore *dflt)
{
	uint32_t o = uet_pds_pdcid_owner(pdcid,
					 uet_engine_owner_bits(e->nb_lcores));

	return o < e->nb_lcores ? e->lc[o] : dflt;
}

/* A DEFERRABLE_RTR that opens a PDC: its PIDonFEP is that of the
 * deferred send (the RTR's own sender), so the context that holds the
 * deferred send is the owner in its initiator restart token (the SES ULP
 * puts it there, uet_wire_ses_token_owner()); NULL for any other frame. */
static struct uet_engine_lcore *
ctx_of_rtr(struct uet_engine *e, const uint8_t *ses, size_t len,
	   unsigned int next_hdr)
{
	struct uet_wire_ses_req h;
	uint32_t o;

	if (len == 0 || ses[0] != UET_SES_OP_DEFERRABLE_RTR ||
	    uet_wire_ses_req_decode(ses, len, (enum uet_wire_ses_fmt)next_hdr,
				    &h) < 0 ||
	    h.opcode != UET_SES_OP_DEFERRABLE_RTR)
		return NULL;
	o = uet_wire_ses_token_owner(uet_wire_ses_req_token_initiator(&h),
				     uet_engine_owner_bits(e->nb_lcores));
	return o < e->nb_lcores ? e->lc[o] : NULL;
}

/* Several contexts: which one receives frame @p m (see the top). */
static struct uet_engine_lcore *
local_delivery_steer(struct uet_engine_lcore *lc, unsigned int to,
	      const struct rte_mbuf *m)
{
	struct uet_engine *e = lc->eng;
	const uint8_t *f = rte_pktmbuf_mtod(m, const uint8_t *);
	const struct uet_wire_pds_hdr *h;
	struct uet_engine_lcore *t;
	struct uet_wire_pkt pkt;
	uint16_t pid;
	uint8_t r;

	if (uet_wire_pkt_parse_pds(f, rte_pktmbuf_data_len(m),
				   &e->port[to].opts, &pkt) < 0)
		return lc;
	h = &pkt.pds;
	if (uet_wire_pds_type_is_ack(h->type))
		return ctx_of_pdc(e, h->u.ack.dpdcid, lc);
	if (uet_wire_pds_type_is_nack(h->type) && !(h->flags & UET_PDS_F_NT))
		return ctx_of_pdc(e, h->u.nack.dpdcid, lc);
	if (uet_wire_pds_type_is_req(h->type) && !(h->flags & UET_PDS_F_SYN))
		return ctx_of_pdc(e, h->u.req.dpdcid, lc);
	if (h->type == UET_PDS_TYPE_CP && !(h->flags & UET_PDS_F_SYN))
		return ctx_of_pdc(e, h->u.cp.dpdcid, lc);
	if (uet_wire_pds_type_is_req(h->type) &&
	    (t = ctx_of_rtr(e, f + pkt.ses_off, pkt.payload_len,
			    h->next_hdr)) != NULL)
		return t;
	/* the SES header's PIDonFEP, read in place: the receiving context's
	 * SES decodes the header */
	if (h->type != UET_PDS_TYPE_CP &&
	    uet_wire_ses_req_pid(f + pkt.ses_off, pkt.payload_len, h->next_hdr,
				 &pid) == 0) {
		t = ctx_of_pid(e, pid, lc);
		/* where a RUDI response of the target goes back to */
		__atomic_store_n(&t->local_delivery_reply, (uint8_t)(lc->idx + 1),
				 __ATOMIC_RELAXED);
		return t;
	}
	r = __atomic_load_n(&lc->local_delivery_reply, __ATOMIC_RELAXED);
	return r != 0 && r <= e->nb_lcores ? e->lc[r - 1] : lc;
}

/* A frame for another context: wake it if it sleeps. The counter was
 * raised before the fence; the sleeper sets its flag before its last
 * look at the counter (sleep.c), so one of the two sees the other. */
static void
local_delivery_wake(struct uet_engine_lcore *lc, struct uet_engine_lcore *t)
{
	if (!t->wake.enabled)
		return;
	rte_atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (__atomic_load_n(&t->wake.w.sleeping, __ATOMIC_RELAXED) != 0) {
		engine_wake_kick(t, false);
		ENG_INC(lc->st.local_delivery_wake);
	}
}

int
engine_local_delivery_tx(struct uet_engine_lcore *lc, unsigned int from,
	       unsigned int to, struct rte_mbuf *m, unsigned int l3off,
	       unsigned int ipver)
{
	struct uet_engine_lcore *t = lc;
	struct rte_mbuf *c = NULL;
	int rc;

	memcpy(rte_pktmbuf_mtod_offset(m, uint8_t *, 6),
	       lc->eng->port[from].mac.addr_bytes, 6);
	local_delivery_as_received(lc->eng, to, m, l3off, ipver);
	/* a frame sent by reference (port.tx_zero_copy) is read whole to
	 * be steered; the receiving context would copy it anyway */
	if (lc->eng->nb_lcores > 1 && !rte_pktmbuf_is_contiguous(m) &&
	    rte_pktmbuf_linearize(m) < 0) {
		ENG_INC(lc->st.local_delivery_drop[to]);
		rte_pktmbuf_free(m);
		return 0;
	}
	if (lc->eng->nb_lcores > 1)
		t = local_delivery_steer(lc, to, m);
	if (unlikely(lc->cap != NULL))
		engine_capture_copy(lc, (uint16_t)from, lc->tx[from].queue, &m, 1,
				 true, &c);
	rc = rte_ring_mp_enqueue(t->local_ring[to], m);
	if (unlikely(lc->cap != NULL))
		engine_capture_write(lc, &c, rc == 0 ? 1 : 0, 1);
	if (unlikely(rc != 0)) {
		/* a loss for the PDS: it retransmits (or the peer asks
		 * again, for an ACK) */
		ENG_INC(lc->st.local_delivery_drop[to]);
		rte_pktmbuf_free(m);
		return 0;
	}
	(void)__atomic_fetch_add(&t->local_delivery_queued, 1, __ATOMIC_RELEASE);
	ENG_INC(lc->st.local_delivery_tx[to]);
	lc->iter_tx++;
	if (t != lc)
		local_delivery_wake(lc, t);
	return 0;
}

int
uet_engine_pid_context_set(struct uet_engine *e, uint16_t pid,
			   unsigned int ctx_idx)
{
	if (e == NULL || pid > 0xFFF ||
	    (ctx_idx != UINT32_MAX && ctx_idx >= e->nb_lcores))
		return -EINVAL;
	__atomic_store_n(&e->pid_ctx[pid],
			 (uint8_t)(ctx_idx == UINT32_MAX ? 0 : ctx_idx + 1),
			 __ATOMIC_RELAXED);
	return 0;
}

uint16_t
engine_local_delivery_rx(struct uet_engine_lcore *lc, uint16_t port,
	       struct rte_mbuf **pkts)
{
	unsigned int n;

	if (lc->local_ring[port] == NULL)
		return 0;
	n = rte_ring_sc_dequeue_burst(lc->local_ring[port], (void **)pkts,
				      lc->burst, NULL);
	if (n == 0)
		return 0;
	(void)__atomic_fetch_sub(&lc->local_delivery_queued, n, __ATOMIC_RELAXED);
	ENG_ADD(lc->st.local_delivery_rx[port], n);
	return (uint16_t)n;
}

uint16_t
engine_local_delivery_space(const struct uet_engine_lcore *lc, unsigned int port)
{
	unsigned int n;

	if (lc->local_ring[port] == NULL)
		return 0;
	n = rte_ring_free_count(lc->local_ring[port]);
	return (uint16_t)RTE_MIN(n, (unsigned int)UINT16_MAX);
}
