/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Fault injection ([fault] in the configuration, docs/ENGINE.md).
 *
 * Applied per direction (RX after the burst, TX before it) and per packet
 * class (requests = "data", ACK/NACK/CP/RUDI_RESP = "control"); frames that
 * are not UET (ARP, ND, anything else) pass untouched. Each context has
 * its own generator per direction, seeded from (seed, context, direction),
 * so a run with one context and a fixed seed is reproducible.
 *
 * Order of the decisions for one frame: drop; ECN-CE mark; trim; corrupt;
 * duplicate (a copy of the possibly modified frame); then the original is
 * either held back (reorder, then delay) or passed on. Holds are fixed
 * FIFOs of ENG_FAULT_HOLD frames; a full hold passes the frame and counts
 * the fault as skipped. A reordered frame leaves after reorder_depth more
 * frames of its direction, or after delay (1 ms when delay is 0) without
 * them, so a held frame never waits for traffic that does not come.
 */

#include <string.h>

#include <rte_mbuf.h>

#include <uet/uet_wire_tss.h>

#include "engine_private.h"

static const char *const fault_names[UET_CONFIG_FAULT_KINDS] = {
	[UET_CONFIG_FAULT_DROP] = "drop",
	[UET_CONFIG_FAULT_DUP] = "dup",
	[UET_CONFIG_FAULT_REORDER] = "reorder",
	[UET_CONFIG_FAULT_DELAY] = "delay",
	[UET_CONFIG_FAULT_ECN] = "ecn",
	[UET_CONFIG_FAULT_TRIM] = "trim",
	[UET_CONFIG_FAULT_CORRUPT] = "corrupt",
};

const char *
uet_engine_fault_name(unsigned int kind)
{
	return kind < UET_CONFIG_FAULT_KINDS ? fault_names[kind] : "unknown";
}

static bool
roll(struct engine_fault_dir *fd, uint32_t ppm)
{
	if (ppm == 0)
		return false;
	return (uet_rand_next(&fd->rng) >> 11) % 1000000u < ppm;
}

void
engine_fault_init(struct uet_engine_lcore *lc)
{
	const struct uet_config_fault *f = &lc->eng->cfg.fault;
	bool any = false;

	for (unsigned int d = 0; d < UET_CONFIG_FAULT_DIRS; d++)
		for (unsigned int c = 0; c < UET_CONFIG_FAULT_CLASSES; c++)
			for (unsigned int k = 0; k < UET_CONFIG_FAULT_KINDS; k++)
				any |= f->ppm[d][c][k] != 0;
	lc->fault_on = f->enabled && any;
	/* [fault] from/until: relative to the engine's creation */
	lc->fault_from = engine_now_ns(lc->eng) + f->from_ns;
	lc->fault_until = f->until_ns != 0 ?
			  lc->fault_from - f->from_ns + f->until_ns :
			  UINT64_MAX;
	for (unsigned int d = 0; d < UET_CONFIG_FAULT_DIRS; d++) {
		struct engine_fault_dir *fd = &lc->fault[d];
		uint64_t stream = lc->idx * 2u + d;

		memset(fd, 0, sizeof(*fd));
		/* one stream per lcore and direction, all from [fault] seed */
		uet_rand_seed(&fd->rng, f->seed ^ uet_rand_splitmix(&stream));
		for (unsigned int c = 0; c < UET_CONFIG_FAULT_CLASSES; c++)
			fd->mutates |= f->ppm[d][c][UET_CONFIG_FAULT_ECN] != 0 ||
				       f->ppm[d][c][UET_CONFIG_FAULT_TRIM] != 0 ||
				       f->ppm[d][c][UET_CONFIG_FAULT_CORRUPT] != 0;
	}
}

static bool
hold_push(const struct uet_engine_lcore *lc, struct engine_fault_queue *q,
	  struct rte_mbuf *m, uint16_t port, uint16_t queue, uint64_t due_ns,
	  uint64_t due_cnt)
{
	struct engine_fault_held *h;

	if (q->count >= ENG_FAULT_HOLD)
		return false;
	h = &q->h[(q->head + q->count) % ENG_FAULT_HOLD];
	h->m = m;
	h->port = port;
	h->queue = queue;
	h->due_ns = due_ns;
	h->due_cnt = due_cnt;
	h->local = lc->rx_local;
	q->count++;
	return true;
}

static void
hold_release(struct uet_engine_lcore *lc, struct engine_fault_dir *fd,
	     struct engine_fault_queue *q, uint64_t now, bool all,
	     struct uet_engine_fault_stats *st, engine_sink_fn sink)
{
	bool was_local;

	while (q->count > 0) {
		struct engine_fault_held *h = &q->h[q->head];

		if (!all && h->due_ns > now && h->due_cnt > fd->pkts)
			break;
		q->head = (q->head + 1) % ENG_FAULT_HOLD;
		q->count--;
		ENG_INC(st->released);
		/* a held frame keeps its origin: one from the engine's own
		 * address is released at the next poll, outside rx_local(),
		 * and one from the wire while local frames are received
		 * ([tss] checks a wire frame, never a local one) */
		was_local = lc->rx_local;
		lc->rx_local = h->local;
		sink(lc, h->port, h->queue, h->m, now);
		lc->rx_local = was_local;
	}
}

void
engine_fault_release(struct uet_engine_lcore *lc, unsigned int dir,
		  uint64_t now, bool all, engine_sink_fn sink)
{
	struct engine_fault_dir *fd = &lc->fault[dir];
	struct uet_engine_fault_stats *st = &lc->st.fault[dir];

	hold_release(lc, fd, &fd->reorder, now, all, st, sink);
	hold_release(lc, fd, &fd->delay, now, all, st, sink);
}

static void
hold_free(struct engine_fault_queue *q, struct uet_engine_fault_stats *st)
{
	while (q->count > 0) {
		rte_pktmbuf_free(q->h[q->head].m);
		q->head = (q->head + 1) % ENG_FAULT_HOLD;
		q->count--;
		ENG_INC(st->flushed);
	}
}

void
engine_fault_flush(struct uet_engine_lcore *lc)
{
	for (unsigned int d = 0; d < UET_CONFIG_FAULT_DIRS; d++) {
		hold_free(&lc->fault[d].reorder, &lc->st.fault[d]);
		hold_free(&lc->fault[d].delay, &lc->st.fault[d]);
	}
}

/*
 * Trim as a switch does (UEC 1.0 packet trimming; uet_wire_outer_frame_trim()): keep
 * the outer headers and the PDS header, DSCP "trimmed", the IP length
 * fixed on every other trim and left as it was on the others (a switch
 * fixes it at most), the UDP length and checksum untouched. Native-IP
 * frames have no UDP length to tell, so they are not trimmed.
 */
static bool
frame_trim(struct uet_engine_lcore *lc, struct engine_fault_dir *fd,
	   struct rte_mbuf *m, struct uet_wire_outer *o, int hdr_len)
{
	uint8_t *data = rte_pktmbuf_mtod(m, uint8_t *);
	unsigned int type = data[hdr_len] >> 3;
	/* a protected frame ([tss]): its TSS header stays, the PDS header
	 * is ciphertext a switch cannot tell */
	size_t pds_len = type == UET_PDS_TYPE_TSS ?
		uet_wire_tss_hdr_len((data[hdr_len] & 0x4) != 0) : /* S: SSI */
		uet_wire_pds_hdr_size_at(data + hdr_len, o->inner_len);
	int len;

	if (pds_len == 0 || o->native || o->inner_len <= pds_len)
		return false;
	len = uet_wire_outer_frame_trim(o, data, rte_pktmbuf_data_len(m), pds_len,
				   lc->eng->cfg.dscp.trimmed,
				   (uet_rand_next(&fd->rng) & 1) != 0);
	if (len < 0)
		return false;
	return rte_pktmbuf_trim(m, (uint16_t)(rte_pktmbuf_data_len(m) -
					      (uint16_t)len)) == 0;
}

static void
frame_corrupt(struct engine_fault_dir *fd, struct rte_mbuf *m)
{
	uint8_t *data = rte_pktmbuf_mtod(m, uint8_t *);
	uint32_t len = rte_pktmbuf_data_len(m);
	uint64_t r = uet_rand_next(&fd->rng);
	uint32_t off = UET_ETH_HLEN + (uint32_t)(r % (len - UET_ETH_HLEN));

	data[off] ^= (uint8_t)(1 + (r >> 32) % 255);
	/* an RX checksum verdict of the port no longer holds */
	m->ol_flags &= ~RTE_MBUF_F_RX_L4_CKSUM_MASK;
}

static void
fault_mutate(struct uet_engine_lcore *lc, struct engine_fault_dir *fd,
	     struct uet_engine_fault_stats *st, const uint32_t *ppm,
	     struct rte_mbuf *m, struct uet_wire_outer *o, int hdr_len)
{
	uint8_t *data = rte_pktmbuf_mtod(m, uint8_t *);

	if (roll(fd, ppm[UET_CONFIG_FAULT_ECN])) {
		if (o->ecn != UET_ECN_NOT_ECT &&
		    uet_wire_outer_frame_ecn_set(o, data, rte_pktmbuf_data_len(m),
					    UET_ECN_CE) == 0)
			ENG_INC(st->applied[UET_CONFIG_FAULT_ECN]);
		else
			ENG_INC(st->skipped[UET_CONFIG_FAULT_ECN]);
	}
	if (roll(fd, ppm[UET_CONFIG_FAULT_TRIM])) {
		if (frame_trim(lc, fd, m, o, hdr_len))
			ENG_INC(st->applied[UET_CONFIG_FAULT_TRIM]);
		else
			ENG_INC(st->skipped[UET_CONFIG_FAULT_TRIM]);
	}
	if (roll(fd, ppm[UET_CONFIG_FAULT_CORRUPT])) {
		frame_corrupt(fd, m);
		ENG_INC(st->applied[UET_CONFIG_FAULT_CORRUPT]);
	}
}

static bool
fault_hold(struct uet_engine_lcore *lc, struct engine_fault_dir *fd,
	   struct uet_engine_fault_stats *st, const uint32_t *ppm,
	   uint16_t port, uint16_t queue, struct rte_mbuf *m, uint64_t now)
{
	const struct uet_config_fault *f = &lc->eng->cfg.fault;

	if (roll(fd, ppm[UET_CONFIG_FAULT_REORDER])) {
		uint64_t limit = f->delay_ns != 0 ? f->delay_ns : 1000000u;

		if (hold_push(lc, &fd->reorder, m, port, queue, now + limit,
			      fd->pkts + f->reorder_depth)) {
			ENG_INC(st->applied[UET_CONFIG_FAULT_REORDER]);
			return true;
		}
		ENG_INC(st->skipped[UET_CONFIG_FAULT_REORDER]);
	}
	if (roll(fd, ppm[UET_CONFIG_FAULT_DELAY])) {
		if (hold_push(lc, &fd->delay, m, port, queue, now + f->delay_ns,
			      UINT64_MAX)) {
			ENG_INC(st->applied[UET_CONFIG_FAULT_DELAY]);
			return true;
		}
		ENG_INC(st->skipped[UET_CONFIG_FAULT_DELAY]);
	}
	return false;
}

void
engine_fault_apply(struct uet_engine_lcore *lc, unsigned int dir, uint16_t port,
		uint16_t queue, struct rte_mbuf *m, uint64_t now,
		engine_sink_fn sink)
{
	struct engine_fault_dir *fd = &lc->fault[dir];
	struct uet_engine_fault_stats *st = &lc->st.fault[dir];
	const struct engine_port *p = &lc->eng->port[port];
	const uint32_t *ppm;
	struct uet_wire_outer o;
	unsigned int type;
	int hdr_len;

	fd->pkts++;
	if (now < lc->fault_from || now >= lc->fault_until) {
		sink(lc, port, queue, m, now); /* outside from .. until */
		goto release;
	}
	/* A frame sent by reference (port.tx_zero_copy: headers chained to
	 * the application's buffer) stays chained, its headers in the first
	 * segment, as the receiving engine keeps it; it is copied into its
	 * first segment where this direction may rewrite frames (ECN,
	 * trimming, corruption: never into that buffer) or it is no such
	 * chain. */
	if (!rte_pktmbuf_is_contiguous(m) &&
	    (fd->mutates || engine_chain_pullup(m) != 0))
		(void)rte_pktmbuf_linearize(m); /* else: untouched, below */
	/* p->opts: trimmed frames (a released hold, a peer's) are UET; the
	 * headers of a chain are in its first segment */
	hdr_len = rte_pktmbuf_is_contiguous(m) || m->nb_segs == 2 ?
		uet_wire_outer_decode_ex(rte_pktmbuf_mtod(m, const uint8_t *),
				    rte_pktmbuf_pkt_len(m), &p->opts, &o) : -1;
	if (hdr_len < 0 || o.inner_len < 2) {
		sink(lc, port, queue, m, now); /* not UET: untouched */
		goto release;
	}
	type = rte_pktmbuf_mtod(m, const uint8_t *)[hdr_len] >> 3;
	/* a protected frame hides its PDS type: data, as a switch sees it */
	ppm = lc->eng->cfg.fault.ppm[dir][uet_wire_pds_type_is_req(type) ||
					  type == UET_PDS_TYPE_TSS ||
					  type == UET_PDS_TYPE_RUDI_REQ ||
					  type == UET_PDS_TYPE_UUD_REQ ?
					  UET_CONFIG_FAULT_DATA :
					  UET_CONFIG_FAULT_CONTROL];
	if (roll(fd, ppm[UET_CONFIG_FAULT_DROP])) {
		ENG_INC(st->applied[UET_CONFIG_FAULT_DROP]);
		rte_pktmbuf_free(m);
		goto release;
	}
	fault_mutate(lc, fd, st, ppm, m, &o, hdr_len);
	if (roll(fd, ppm[UET_CONFIG_FAULT_DUP])) {
		struct rte_mbuf *c = rte_pktmbuf_copy(m, p->pool, 0, UINT32_MAX);

		if (c != NULL) {
			ENG_INC(st->applied[UET_CONFIG_FAULT_DUP]);
			sink(lc, port, queue, c, now);
		} else {
			ENG_INC(st->skipped[UET_CONFIG_FAULT_DUP]);
		}
	}
	if (!fault_hold(lc, fd, st, ppm, port, queue, m, now))
		sink(lc, port, queue, m, now);
release:
	/* reordered frames leave once enough frames overtook them */
	hold_release(lc, fd, &fd->reorder, now, false, st, sink);
}
