/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Output ports: a strict-priority control queue over a data queue,
 * serialisation at the link rate, and the switch behaviour recommended
 * for UET fabrics (UEC 1.0 congestion management, recommended switch
 * marking; the thresholds are fractions of the plane BDP): probabilistic ECN marking of the data queue between
 * ecn_min and ecn_max, trimming above the trim threshold (higher for the
 * trimmable-retransmit DSCP) or tail drop when trimming is off.
 *
 * A host's own port (its NIC) only serialises: the host sees
 * backpressure at inject instead of marks, trims or drops.
 */

#include "fabric_private.h"

void
fabric_frame_free(struct uet_fabric *fab, uint32_t fi)
{
	fab->frames[fi].next = fab->free_head;
	fab->free_head = fi;
	fab->st.frames_in_use--;
}

void
fabric_frame_drop(struct uet_fabric *fab, uint32_t fi, uint64_t *counter)
{
	if (counter != NULL)
		(*counter)++;
	fab->st.drops++;
	fabric_frame_free(fab, fi);
}

static void
fabric_queue_push(struct uet_fabric *fab, struct fabric_queue *q, uint32_t fi)
{
	fab->frames[fi].next = FAB_NIL;
	if (q->tail == FAB_NIL)
		q->head = fi;
	else
		fab->frames[q->tail].next = fi;
	q->tail = fi;
	q->bytes += fab->frames[fi].len;
	if (q->bytes > q->max)
		q->max = q->bytes;
}

static uint32_t
fabric_queue_pop(struct uet_fabric *fab, struct fabric_queue *q)
{
	uint32_t fi = q->head;

	if (fi != FAB_NIL) {
		q->head = fab->frames[fi].next;
		if (q->head == FAB_NIL)
			q->tail = FAB_NIL;
	}
	return fi;
}

/* Serialisation time of @p bytes at the link's current rate, carrying
 * the remainder so that a long run matches the rate exactly. */
static uint64_t
fabric_ser_ns(struct fabric_port *pt, const struct fabric_link *l, uint32_t bytes,
	   uint32_t overhead)
{
	uint64_t bitns = (uint64_t)(bytes + overhead) * 8 * UINT64_C(1000000000)
			 + pt->rem;

	pt->rem = bitns % l->rate_bps;
	return bitns / l->rate_bps;
}

/* Start serialising the next frame, control queue first. */
static void
fabric_port_start(struct uet_fabric *fab, uint32_t port, uint64_t now)
{
	struct fabric_port *pt = &fab->ports[port];
	const struct fabric_link *l = fabric_port_link(fab, port);
	uint32_t fi = fabric_queue_pop(fab, &pt->ctl);

	if (fi == FAB_NIL)
		fi = fabric_queue_pop(fab, &pt->data);
	if (fi == FAB_NIL)
		return;
	pt->cur = fi;
	fab->frames[fi].epoch = l->epoch;
	pt->cur_ns = fabric_ser_ns(pt, l, fab->frames[fi].len,
				fab->cfg.frame_overhead);
	/* Cannot fail: one TX_DONE per port is part of the heap's size. */
	(void)fabric_event_push(fab, now + pt->cur_ns, FAB_EV_TX_DONE, port, 0);
}

void
fabric_port_tx_done(struct uet_fabric *fab, uint32_t port, uint64_t now)
{
	struct fabric_port *pt = &fab->ports[port];
	const struct fabric_link *l = fabric_port_link(fab, port);
	uint32_t fi = pt->cur;
	struct fabric_frame *f = &fab->frames[fi];

	pt->cur = FAB_NIL;
	if (f->ctl)
		pt->ctl.bytes -= f->len;
	else
		pt->data.bytes -= f->len;
	pt->st.busy_ns += pt->cur_ns;
	if (!l->up || f->epoch != l->epoch) {
		fabric_frame_drop(fab, fi, &pt->st.drops_link);
	} else if (l->loss_ppm != 0 &&
		   uet_rand_below(&fab->rng, 1000000) < l->loss_ppm) {
		fabric_frame_drop(fab, fi, &pt->st.drops_loss);
	} else {
		pt->st.tx_frames++;
		pt->st.tx_bytes += f->len;
		(void)fabric_event_push(fab, now + l->delay_ns, FAB_EV_ARRIVE,
				     fi, port);
	}
	fabric_port_start(fab, port, now);
}

/* A failed link loses everything queued on it; the frame being
 * serialised is lost when its serialisation ends (its epoch is stale). */
void
fabric_port_flush(struct uet_fabric *fab, uint32_t port)
{
	struct fabric_port *pt = &fab->ports[port];
	struct fabric_queue *qs[2] = { &pt->ctl, &pt->data };
	uint32_t fi, i;

	for (i = 0; i < 2; i++) {
		while ((fi = fabric_queue_pop(fab, qs[i])) != FAB_NIL) {
			qs[i]->bytes -= fab->frames[fi].len;
			fabric_frame_drop(fab, fi, &pt->st.drops_link);
		}
	}
}

static void
fabric_hist_add(const struct uet_fabric *fab, struct fabric_port *pt, uint64_t occ)
{
	uint64_t w = fab->th.drop / (UET_FABRIC_HIST_BUCKETS - 1);
	uint64_t b = occ / (w ? w : 1);

	if (b >= UET_FABRIC_HIST_BUCKETS)
		b = UET_FABRIC_HIST_BUCKETS - 1;
	pt->hist[b]++;
	pt->st.samples++;
}

/* Mark with probability rising linearly from 0 at ecn_min to 1 at
 * ecn_max of the data-queue occupancy @p occ (RED-like). */
static void
fabric_ecn_maybe_mark(struct uet_fabric *fab, struct fabric_port *pt, uint8_t *b,
		   const struct fabric_frame *f, uint64_t occ)
{
	uint64_t span = fab->th.ecn_max - fab->th.ecn_min;

	if (!fab->cfg.ecn || occ <= fab->th.ecn_min ||
	    !fabric_frame_ecn_capable(b, f))
		return;
	if (occ < fab->th.ecn_max &&
	    (uet_rand_next(&fab->rng) >> 1) % span >= occ - fab->th.ecn_min)
		return;
	fabric_frame_mark_ce(b, f);
	pt->st.marks++;
	fab->st.marks++;
}

/*
 * Admission to the data queue. Returns true when the frame goes to the
 * data queue, false when it was trimmed (now a control-queue frame) or
 * dropped (*dropped set). A frame that stays is ECN-marked first, so a
 * trimmed header carries the mark its NACK echoes; a dropped one is not
 * counted as marked.
 */
static bool
fabric_data_admit(struct uet_fabric *fab, struct fabric_port *pt, uint32_t fi,
	       bool *dropped)
{
	struct fabric_frame *f = &fab->frames[fi];
	uint8_t *b = fabric_frame_bytes(fab, fi);
	uint64_t occ = pt->data.bytes;
	uint8_t dscp = fabric_frame_dscp(b, f);
	bool retx = dscp == fab->cfg.dscp.trimmable_retx;
	bool trimmable = retx || dscp == fab->cfg.dscp.data;
	uint64_t limit = !fab->cfg.trimming ? fab->th.drop :
			 retx ? fab->th.trim_retx : fab->th.trim;
	bool over = occ + f->len > limit;

	*dropped = false;
	fabric_hist_add(fab, pt, occ);
	if (over && (!fab->cfg.trimming || !trimmable || f->trim_len == 0)) {
		fabric_frame_drop(fab, fi, !fab->cfg.trimming ?
				&pt->st.drops_tail : &pt->st.drops_untrimmable);
		*dropped = true;
		return false;
	}
	fabric_ecn_maybe_mark(fab, pt, b, f, occ);
	if (!over)
		return true;
	fabric_frame_trim(b, f, pt->to_host ? fab->cfg.dscp.trimmed_lasthop :
					   fab->cfg.dscp.trimmed);
	pt->st.trims++;
	fab->st.trims++;
	return false;
}

/* Queue frame @p fi on @p port (its route's choice) at @p now. */
void
fabric_port_enqueue(struct uet_fabric *fab, uint32_t port, uint32_t fi,
		 uint64_t now)
{
	struct fabric_port *pt = &fab->ports[port];
	struct fabric_frame *f = &fab->frames[fi];
	uint8_t *b = fabric_frame_bytes(fab, fi);
	bool dropped = false;

	if (!fabric_port_link(fab, port)->up) {
		fabric_frame_drop(fab, fi, &pt->st.drops_link);
		return;
	}
	f->ctl = fabric_frame_is_ctl(fab, b, f);
	if (!pt->from_host && !f->ctl) {
		f->ctl = !fabric_data_admit(fab, pt, fi, &dropped);
		if (dropped)
			return;
	}
	if (f->ctl && !pt->from_host &&
	    pt->ctl.bytes + f->len > fab->th.control_drop) {
		fabric_frame_drop(fab, fi, &pt->st.drops_tail);
		return;
	}
	if (f->ctl)
		pt->st.control_frames++;
	fabric_queue_push(fab, f->ctl ? &pt->ctl : &pt->data, fi);
	if (pt->cur == FAB_NIL)
		fabric_port_start(fab, port, now);
}
