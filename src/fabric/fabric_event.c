/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The discrete-event core: a binary min-heap of events ordered by time,
 * ties broken by the order they were scheduled, so a run is a pure
 * function of its inputs and seed. The heap is sized at creation for
 * the worst case (one event per frame buffer, one per port, one per
 * schedule slot), so pushing never fails in a consistent fabric.
 */

#include <errno.h>
#include <string.h>

#include "fabric_private.h"

static bool
fabric_ev_before(const struct fabric_event *x, const struct fabric_event *y)
{
	return x->time < y->time || (x->time == y->time && x->seq < y->seq);
}

static void
fabric_heap_swap(struct fabric_event *h, uint32_t i, uint32_t j)
{
	struct fabric_event t = h[i];

	h[i] = h[j];
	h[j] = t;
}

int
fabric_event_push(struct uet_fabric *fab, uint64_t time, uint32_t kind,
	       uint32_t a, uint32_t b)
{
	struct fabric_event *h = fab->heap;
	uint32_t i = fab->heap_len, up;

	if (i == fab->heap_cap)
		return -ENOSPC;
	h[i].time = time;
	h[i].seq = fab->seq++;
	h[i].kind = kind;
	h[i].a = a;
	h[i].b = b;
	fab->heap_len++;
	while (i > 0) {
		up = (i - 1) / 2;
		if (!fabric_ev_before(&h[i], &h[up]))
			break;
		fabric_heap_swap(h, i, up);
		i = up;
	}
	return 0;
}

static struct fabric_event
fabric_event_pop(struct uet_fabric *fab)
{
	struct fabric_event *h = fab->heap, top = h[0];
	uint32_t i = 0, l, m, n = --fab->heap_len;

	h[0] = h[n];
	for (;;) {
		l = 2 * i + 1;
		if (l >= n)
			break;
		m = l + 1 < n && fabric_ev_before(&h[l + 1], &h[l]) ? l + 1 : l;
		if (!fabric_ev_before(&h[m], &h[i]))
			break;
		fabric_heap_swap(h, i, m);
		i = m;
	}
	return top;
}

uint64_t
uet_fabric_next_event_time(const struct uet_fabric *fab)
{
	return fab->heap_len > 0 ? fab->heap[0].time : UINT64_MAX;
}

uint64_t
uet_fabric_now(const struct uet_fabric *fab)
{
	return fab->now;
}

/* A frame reaches the far end of the link behind @p port. */
static void
fabric_arrive(struct uet_fabric *fab, uint32_t fi, uint32_t port, uint64_t now)
{
	struct fabric_port *pt = &fab->ports[port];
	const struct fabric_link *l = fabric_port_link(fab, port);
	struct fabric_frame *f = &fab->frames[fi];
	uint32_t next;

	if (!l->up || f->epoch != l->epoch) {
		fabric_frame_drop(fab, fi, &pt->st.drops_link);
		return;
	}
	if (pt->to_host) {
		fab->st.delivered++;
		fab->st.delivered_bytes += f->len;
		fab->cfg.deliver(fab->cfg.deliver_arg, pt->peer,
				 fabric_frame_bytes(fab, fi), f->len, now);
		fabric_frame_free(fab, fi);
		return;
	}
	next = fabric_route_port(fab, pt->peer, f);
	if (next == FAB_NIL) {
		fab->st.no_route++;
		fabric_frame_drop(fab, fi, NULL);
		return;
	}
	fabric_port_enqueue(fab, next, fi, now);
}

static void
fabric_link_apply(struct uet_fabric *fab, uint32_t slot)
{
	struct fabric_sched *s = &fab->sched[slot];
	struct fabric_link *l = &fab->links[s->link];

	switch (s->action) {
	case UET_FABRIC_LINK_FAIL:
		if (l->up) {
			l->up = false;
			l->epoch++;
			fabric_port_flush(fab, 2 * s->link);
			fabric_port_flush(fab, 2 * s->link + 1);
		}
		break;
	case UET_FABRIC_LINK_RESTORE:
		l->up = true;
		break;
	default:
		/* The carried remainder is a fraction of a nanosecond at the
		 * old rate: drop it rather than rescale it. */
		l->rate_bps = s->rate_bps;
		fab->ports[2 * s->link].rem = 0;
		fab->ports[2 * s->link + 1].rem = 0;
		break;
	}
	s->link = FAB_NIL;
}

static void
fabric_dispatch(struct uet_fabric *fab, const struct fabric_event *e)
{
	switch (e->kind) {
	case FAB_EV_INJECT:
		fab->ports[e->b].pending -= fab->frames[e->a].len;
		fabric_port_enqueue(fab, e->b, e->a, e->time);
		break;
	case FAB_EV_TX_DONE:
		fabric_port_tx_done(fab, e->a, e->time);
		break;
	case FAB_EV_ARRIVE:
		fabric_arrive(fab, e->a, e->b, e->time);
		break;
	default:
		fabric_link_apply(fab, e->a);
		break;
	}
}

/* Fire the sample hook for every period boundary up to @p t. */
static void
fabric_sample_until(struct uet_fabric *fab, uint64_t t)
{
	if (fab->cfg.sample == NULL || fab->cfg.sample_ns == 0)
		return;
	while (fab->next_sample <= t) {
		fab->cfg.sample(fab->cfg.sample_arg, fab, fab->next_sample);
		fab->next_sample += fab->cfg.sample_ns;
	}
}

uint32_t
uet_fabric_advance(struct uet_fabric *fab, uint64_t now)
{
	struct fabric_event e;
	uint32_t n = 0;

	if (now < fab->now)
		now = fab->now;
	while (fab->heap_len > 0 && fab->heap[0].time <= now) {
		e = fabric_event_pop(fab);
		/* Samples at a boundary see every event up to it. */
		if (e.time > 0)
			fabric_sample_until(fab, e.time - 1);
		fab->now = e.time;
		fabric_dispatch(fab, &e);
		n++;
	}
	fabric_sample_until(fab, now);
	fab->now = now;
	fab->st.events += n;
	return n;
}

int
uet_fabric_inject(struct uet_fabric *fab, uint32_t host, const uint8_t *frame,
		  uint32_t len, uint64_t now)
{
	struct fabric_port *pt;
	struct fabric_frame *f;
	uint32_t fi, port;
	int rc;

	if (fab == NULL || frame == NULL || host >= fab->hosts || len == 0 ||
	    len > fab->cfg.mtu)
		return -EINVAL;
	if (now < fab->now)
		now = fab->now;
	port = fab->node_ports[fab->nodes[host].first];
	pt = &fab->ports[port];
	if (pt->data.bytes + pt->ctl.bytes + pt->pending + len >
	    fab->cfg.host_queue_bytes) {
		fab->st.host_full++;
		return -ENOBUFS;
	}
	fi = fab->free_head;
	if (fi == FAB_NIL) {
		fab->st.pool_empty++;
		return -ENOBUFS;
	}
	f = &fab->frames[fi];
	fab->free_head = f->next;
	if (++fab->st.frames_in_use > fab->st.frames_max)
		fab->st.frames_max = fab->st.frames_in_use;
	memcpy(fabric_frame_bytes(fab, fi), frame, len);
	rc = fabric_frame_parse(fab, f, fabric_frame_bytes(fab, fi), len);
	if (rc < 0) {
		if (rc == -EHOSTUNREACH)
			fab->st.no_route++;
		else
			fab->st.bad_frame++;
		fabric_frame_drop(fab, fi, NULL);
		return 0;
	}
	/* The heap holds one event per frame buffer: this cannot fail
	 * unless the fabric is corrupt, and then the frame is not leaked. */
	rc = fabric_event_push(fab, now, FAB_EV_INJECT, fi, port);
	if (rc < 0) {
		fabric_frame_free(fab, fi);
		return rc;
	}
	fab->st.injected++;
	pt->pending += len;
	return 0;
}

int
uet_fabric_link_schedule(struct uet_fabric *fab, uint32_t link, uint64_t at,
			 enum uet_fabric_link_action action, uint64_t rate_bps)
{
	uint32_t i;

	if (fab == NULL || link >= fab->nlinks || at < fab->now ||
	    (unsigned int)action > UET_FABRIC_LINK_RATE ||
	    (action == UET_FABRIC_LINK_RATE && rate_bps == 0))
		return -EINVAL;
	for (i = 0; i < fab->cfg.schedule_max; i++)
		if (fab->sched[i].link == FAB_NIL)
			break;
	if (i == fab->cfg.schedule_max)
		return -ENOSPC;
	fab->sched[i].link = link;
	fab->sched[i].action = action;
	fab->sched[i].rate_bps = rate_bps;
	return fabric_event_push(fab, at, FAB_EV_LINK, i, 0);
}
