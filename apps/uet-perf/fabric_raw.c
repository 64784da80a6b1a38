/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * --fabric --ulp raw (the default): one raw-PDS test ULP (test_ulp.c) per
 * host, with a destination per flow out (its own window and start time)
 * and the flows in numbered by sender, each packet checked byte for byte
 * and counted.
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fabric.h"

static int
raw_hosts(struct fabric_run *p)
{
	uint8_t a[16];

	p->r = calloc(p->hosts, sizeof(*p->r));
	p->dests = calloc(p->hosts, sizeof(*p->dests));
	if (p->r == NULL || p->dests == NULL)
		return -ENOMEM;
	for (uint32_t h = 0; h < p->hosts; h++) {
		p->dests[h] = calloc(p->nd[h] ? p->nd[h] : 1,
				     sizeof(*p->dests[h]));
		if (p->dests[h] == NULL)
			return -ENOMEM;
	}
	for (uint32_t i = 0; i < p->nflows; i++) {
		const struct fabric_flow *f = &p->flow[i];
		struct test_ulp_dest *d = &p->dests[f->spec.src][f->tx_index];

		(void)uet_fabric_host_addr_get(p->fab, f->spec.dst, false, a);
		memset(&d->peer, 0, sizeof(d->peer));
		memcpy(d->peer.addr, a, 4);
		d->seq_base = f->rx_index * p->count;
		d->count = p->count;
		d->start_ns = UINT64_MAX; /* set when the run starts */
	}
	for (uint32_t h = 0; h < p->hosts; h++) {
		struct test_ulp_params rp = {
			.mode = p->o->pds_mode, .size = p->size,
			.window = p->window, .expect = p->nrx[h] * p->count,
			.expect_size = p->size, .flows = p->nrx[h],
			.flow_span = p->count, .dests = p->dests[h],
			.nb_dests = p->nd[h],
		};

		p->r[h] = test_ulp_create(&rp);
		if (p->r[h] == NULL)
			return -ENOMEM;
		p->pp[h] = (struct uet_proto_params){ .ulp = &test_ulp_ops,
						      .ulp_arg = p->r[h] };
	}
	return 0;
}

/* The run starts now: the flows' start times on the engine clock. */
static int
raw_start(struct fabric_run *p)
{
	for (uint32_t i = 0; i < p->nflows; i++)
		p->dests[p->flow[i].spec.src][p->flow[i].tx_index].start_ns =
			p->t0 + p->flow[i].spec.start_ns;
	return 0;
}

static bool
raw_done(const struct fabric_run *p)
{
	for (uint32_t h = 0; h < p->hosts; h++) {
		if (!test_ulp_send_finished(p->r[h]))
			return false;
		if (test_ulp_live(p->r[h])->rx_msgs < p->nrx[h] * p->count)
			return false;
	}
	return true;
}

static uint64_t
raw_flow_bytes(const struct fabric_run *p, uint32_t i)
{
	const struct fabric_flow *f = &p->flow[i];
	const struct test_ulp_flow *rx = test_ulp_flow_live(p->r[f->spec.dst],
							    f->rx_index);

	return rx != NULL ? rx->bytes : 0;
}

static void
raw_flow_out(struct fabric_run *p, uint32_t i, struct fabric_flow_out *out)
{
	const struct fabric_flow *f = &p->flow[i];
	struct test_ulp_flow fl;

	memset(&fl, 0, sizeof(fl));
	(void)test_ulp_flow_get(p->r[f->spec.dst], f->rx_index, p->count, &fl);
	out->bytes = fl.bytes;
	out->msgs = fl.msgs;
	out->lost = fl.lost;
	out->done_ns = fl.last_ns;
	out->complete = fl.msgs == p->count;
}

static void
raw_delivery(struct fabric_run *p, struct fabric_delivery *d)
{
	memset(d, 0, sizeof(*d));
	for (uint32_t h = 0; h < p->hosts; h++) {
		struct test_ulp_result rr;

		test_ulp_result(p->r[h], &rr);
		d->rx_msgs += rr.rx_msgs;
		d->rx_dup += rr.rx_dup;
		d->rx_bad += rr.rx_bad;
		d->rx_lost += rr.rx_lost;
		d->rx_order_err += rr.rx_order_err;
		d->done_err += rr.pkts_done_err;
	}
}

static void
raw_release(struct fabric_run *p)
{
	for (uint32_t h = 0; h < p->hosts; h++) {
		if (p->r != NULL)
			test_ulp_free(p->r[h]);
		if (p->dests != NULL)
			free(p->dests[h]);
	}
	free(p->r);
	free(p->dests);
	p->r = NULL;
	p->dests = NULL;
}

const struct fabric_transport fabric_transport_raw = {
	.name = "raw",
	.hosts = raw_hosts,
	.start = raw_start,
	.done = raw_done,
	.flow_bytes = raw_flow_bytes,
	.flow_out = raw_flow_out,
	.delivery = raw_delivery,
	.release = raw_release,
};
