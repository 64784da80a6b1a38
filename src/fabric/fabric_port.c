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
fab_frame_free(struct uet_fabric *fab, uint32_t fi)
{
	fab->frames[fi].next = fab->free_head;
	fab->free_head = fi;
	fab->st.frames_in_use--;
}

void
fab_frame_drop(struct uet_fabric *fab, uint32_t fi, uint64_t *counter)
{
	if (counter != NULL)
		(*counter)++;
	fab->st.drops++;
	fab_frame_free(fab, fi);
}

static void
fab_queue_push(struct uet_fabric *fab, struct fab_queue *q, uint32_t fi)
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
fab_queue_pop(struct uet_fabric *fab, struct fab_queue *q)
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
fab_ser_ns(struct fab_port *pt, const struct fab_link *l, uint32_t bytes,
	   uint32_t overhead)
{
	uint64_t bitns = (uint64_t)(bytes + overhead) * 8 * UINT64_C(1000000000)
			 + pt->rem;

	pt->rem = bitns % l->rate_bps;
	return bitns / l->rate_bps;
}

/* Start serialising the next frame, control queue first. */
static void
fab_port_start(struct uet_fabric *fab, uint32_t port, uint64_t now)
{
	struct fab_port *pt = &fab->ports[port];
	const struct fab_link *l = fab_port_link(fab, port);
	uint32_t fi = fab_queue_pop(fab, &pt->ctl);

	if (fi == FAB_NIL)
		fi = fab_queue_pop(fab, &pt->data);
	if (fi == FAB_NIL)
		return;
	pt->cur = fi;
	fab->frames[fi].epoch = l->epoch;
	pt->cur_ns = fab_ser_ns(pt, l, fab->frames[fi].len,
				fab->cfg.frame_overhead);
	/* Cannot fail: one TX_DONE per port is part of the heap's size. */
	(void)fab_event_push(fab, now + pt->cur_ns, FAB_EV_TX_DONE, port, 0);
}

void
fab_port_tx_done(struct uet_fabric *fab, uint32_t port, uint64_t now)
{
	struct fab_port *pt = &fab->ports[port];
	const struct fab_link *l = fab_port_link(fab, port);
	uint32_t fi = pt->cur;
	struct fab_frame *f = &fab->frames[fi];

	pt->cur = FAB_NIL;
	if (f->ctl)
		pt->ctl.bytes -= f->len;
	else
		pt->data.bytes -= f->len;
	pt->st.busy_ns += pt->cur_ns;
	if (!l->up || f->epoch != l->epoch) {
		fab_frame_drop(fab, fi, &pt->st.drops_link);
	} else if (l->loss_ppm != 0 &&
		   uet_rand_below(&fab->rng, 1000000) < l->loss_ppm) {
		fab_frame_drop(fab, fi, &pt->st.drops_loss);
	} else {
		pt->st.tx_frames++;
		pt->st.tx_bytes += f->len;
		(void)fab_event_push(fab, now + l->delay_ns, FAB_EV_ARRIVE,
				     fi, port);
	}
	fab_port_start(fab, port, now);
}

/* A failed link loses everything queued on it; the frame being
 * serialised is lost when its serialisation ends (its epoch is stale). */
void
fab_port_flush(struct uet_fabric *fab, uint32_t port)
{
	struct fab_port *pt = &fab->ports[port];
	struct fab_queue *qs[2] = { &pt->ctl, &pt->data };
	uint32_t fi, i;

	for (i = 0; i < 2; i++) {
		while ((fi = fab_queue_pop(fab, qs[i])) != FAB_NIL) {
			qs[i]->bytes -= fab->frames[fi].len;
			fab_frame_drop(fab, fi, &pt->st.drops_link);
		}
	}
}

static void
fab_hist_add(const struct uet_fabric *fab, struct fab_port *pt, uint64_t occ)
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
fab_ecn_maybe_mark(struct uet_fabric *fab, struct fab_port *pt, uint8_t *b,
		   const struct fab_frame *f, uint64_t occ)
{
	uint64_t span = fab->th.ecn_max - fab->th.ecn_min;

	if (!fab->cfg.ecn || occ <= fab->th.ecn_min ||
	    !fab_frame_ecn_capable(b, f))
		return;
	if (occ < fab->th.ecn_max &&
	    (uet_rand_next(&fab->rng) >> 1) % span >= occ - fab->th.ecn_min)
		return;
	fab_frame_mark_ce(b, f);
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
fab_data_admit(struct uet_fabric *fab, struct fab_port *pt, uint32_t fi,
	       bool *dropped)
{
	struct fab_frame *f = &fab->frames[fi];
	uint8_t *b = fab_frame_bytes(fab, fi);
	uint64_t occ = pt->data.bytes;
	uint8_t dscp = fab_frame_dscp(b, f);
	bool retx = dscp == fab->cfg.dscp.trimmable_retx;
	bool trimmable = retx || dscp == fab->cfg.dscp.data;
	uint64_t limit = !fab->cfg.trimming ? fab->th.drop :
			 retx ? fab->th.trim_retx : fab->th.trim;
	bool over = occ + f->len > limit;

	*dropped = false;
	fab_hist_add(fab, pt, occ);
	if (over && (!fab->cfg.trimming || !trimmable || f->trim_len == 0)) {
		fab_frame_drop(fab, fi, !fab->cfg.trimming ?
				&pt->st.drops_tail : &pt->st.drops_untrimmable);
		*dropped = true;
		return false;
	}
	fab_ecn_maybe_mark(fab, pt, b, f, occ);
	if (!over)
		return true;
	fab_frame_trim(b, f, pt->to_host ? fab->cfg.dscp.trimmed_lasthop :
					   fab->cfg.dscp.trimmed);
	pt->st.trims++;
	fab->st.trims++;
	return false;
}

/* Queue frame @p fi on @p port (its route's choice) at @p now. */
void
fab_port_enqueue(struct uet_fabric *fab, uint32_t port, uint32_t fi,
		 uint64_t now)
{
	struct fab_port *pt = &fab->ports[port];
	struct fab_frame *f = &fab->frames[fi];
	uint8_t *b = fab_frame_bytes(fab, fi);
	bool dropped = false;

	if (!fab_port_link(fab, port)->up) {
		fab_frame_drop(fab, fi, &pt->st.drops_link);
		return;
	}
	f->ctl = fab_frame_is_ctl(fab, b, f);
	if (!pt->from_host && !f->ctl) {
		f->ctl = !fab_data_admit(fab, pt, fi, &dropped);
		if (dropped)
			return;
	}
	if (f->ctl && !pt->from_host &&
	    pt->ctl.bytes + f->len > fab->th.control_drop) {
		fab_frame_drop(fab, fi, &pt->st.drops_tail);
		return;
	}
	if (f->ctl)
		pt->st.control_frames++;
	fab_queue_push(fab, f->ctl ? &pt->ctl : &pt->data, fi);
	if (pt->cur == FAB_NIL)
		fab_port_start(fab, port, now);
}
