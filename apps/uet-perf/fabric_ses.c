/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * --fabric --ulp ses: every host runs the engine's SES ULP; each flow is
 * one SES driver (ses_driver.c) sending tagged messages (TSEND / TRECV) from
 * its source to its destination through front-end channels of its own,
 * as the libfabric provider drives the SES. A host takes part in several
 * flows: its flows out send as its process 64 and its flows in receive as
 * its process 65 (PIDonFEPs bound to the channels with EP_ADD; an engine
 * context has at most 8 processes, 64 channels), and each flow's sends
 * carry match bits of their own, so a receive buffer of one flow never
 * takes another's message. The drivers' work counts for the virtual
 * clock (ses_driver_poll()).
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>

#include "fabric.h"

#define SES_PID_SEND 64u
#define SES_PID_RECV 65u
#define SES_TAG_BASE 0x7065726600000000ull /* "perf" and the flow */

static int
ses_hosts(struct fabric_run *p)
{
	for (uint32_t h = 0; h < p->hosts; h++)
		if (p->nd[h] + p->nrx[h] > UET_ENGINE_CHANS_MAX) {
			fprintf(stderr, "uet-perf: --ulp ses: host %u has %u "
				"flows, at most %u (a channel each)\n", h,
				p->nd[h] + p->nrx[h], UET_ENGINE_CHANS_MAX);
			return -E2BIG;
		}
	p->sp = calloc(p->hosts, sizeof(*p->sp));
	p->sd = calloc(p->nflows, sizeof(*p->sd));
	p->done_ns = calloc(p->nflows, sizeof(*p->done_ns));
	if (p->sp == NULL || p->sd == NULL || p->done_ns == NULL)
		return -ENOMEM;
	for (uint32_t h = 0; h < p->hosts; h++) {
		uint32_t ends = p->nd[h] + p->nrx[h];
		uint32_t ops = ends * (2 * p->window + 8) + 64;

		p->sp[h] = (struct uet_ses_ulp_params){
			.pid_base = 1,
			.max_msgs = RTE_MAX(ops, 1024u),
			.max_posted = RTE_MAX(ops, 1024u),
			.max_jobs = 8,
		};
		p->pp[h] = (struct uet_proto_params){
			.ulp = &uet_ses_ulp_ops, .ulp_arg = &p->sp[h],
		};
	}
	return 0;
}

static int
ses_start(struct fabric_run *p)
{
	for (uint32_t i = 0; i < p->nflows; i++) {
		const struct fabric_flow *f = &p->flow[i];
		struct ses_driver_params sp = {
			.ea = p->eng[f->spec.src], .eb = p->eng[f->spec.dst],
			.op = PERF_OP_SEND, .tagged = true,
			.match_bits = SES_TAG_BASE | i,
			.rod = p->o->pds_mode == UET_PDS_MODE_ROD,
			.verify = p->o->verify, .size = p->size,
			.count = p->count, .window = p->window,
			.pid_a = SES_PID_SEND, .pid_b = SES_PID_RECV,
			/* initiator ids unique in the fabric: host, process */
			.ini_a = (f->spec.src + 1) << 12 | SES_PID_SEND,
			.ini_b = (f->spec.dst + 1) << 12 | SES_PID_RECV,
		};
		uint8_t a[16];
		char tag[16];

		(void)uet_fabric_host_addr_get(p->fab, f->spec.src, false, a);
		memcpy(sp.fa_a, a, 4);
		(void)uet_fabric_host_addr_get(p->fab, f->spec.dst, false, a);
		memcpy(sp.fa_b, a, 4);
		snprintf(tag, sizeof(tag), "f%u", i);
		sp.tag = tag;
		p->sd[i] = ses_driver_create(&sp);
		if (p->sd[i] == NULL)
			return -ENOMEM;
	}
	return 0;
}

/* The drivers of the flows that started; a flow's last message noted. */
static unsigned int
ses_poll(struct fabric_run *p, uint64_t now)
{
	unsigned int work = 0;

	for (uint32_t i = 0; i < p->nflows; i++) {
		if (now < p->t0 + p->flow[i].spec.start_ns)
			continue;
		work += ses_driver_poll(p->sd[i]);
		if (p->done_ns[i] == 0 &&
		    ses_driver_live(p->sd[i])->rx_msgs >= p->count)
			p->done_ns[i] = now;
	}
	return work;
}

static bool
ses_done(const struct fabric_run *p)
{
	for (uint32_t i = 0; i < p->nflows; i++)
		if (p->done_ns[i] == 0 || !ses_driver_finished(p->sd[i]))
			return false;
	return true;
}

static uint64_t
ses_flow_bytes(const struct fabric_run *p, uint32_t i)
{
	return ses_driver_live(p->sd[i])->rx_bytes;
}

static void
ses_flow_out(struct fabric_run *p, uint32_t i, struct fabric_flow_out *out)
{
	struct test_ulp_result tx, rx;

	ses_driver_result(p->sd[i], &tx, &rx);
	out->bytes = rx.rx_bytes;
	out->msgs = rx.rx_msgs;
	out->lost = rx.rx_lost;
	out->done_ns = p->done_ns[i];
	out->complete = rx.rx_msgs == p->count && p->done_ns[i] != 0;
}

static void
ses_delivery(struct fabric_run *p, struct fabric_delivery *d)
{
	memset(d, 0, sizeof(*d));
	for (uint32_t i = 0; i < p->nflows; i++) {
		const struct ses_driver_counters *c =
			ses_driver_counters(p->sd[i]);
		struct test_ulp_result tx, rx;

		ses_driver_result(p->sd[i], &tx, &rx);
		d->rx_msgs += rx.rx_msgs;
		d->rx_dup += rx.rx_dup;
		d->rx_bad += rx.rx_bad + tx.rx_bad;
		d->rx_lost += rx.rx_lost;
		d->rx_order_err += rx.rx_order_err;
		/* a failed completion, one nobody asked for, a refused post */
		d->done_err += tx.pkts_done_err + c->cqe_err + c->cqe_bad +
			       c->post_fail;
	}
}

static void
ses_detach(struct fabric_run *p)
{
	for (uint32_t i = 0; p->sd != NULL && i < p->nflows; i++)
		ses_driver_detach(p->sd[i]);
}

static void
ses_release(struct fabric_run *p)
{
	for (uint32_t i = 0; p->sd != NULL && i < p->nflows; i++)
		ses_driver_free(p->sd[i]);
	free(p->sd);
	free(p->sp);
	free(p->done_ns);
	p->sd = NULL;
	p->sp = NULL;
	p->done_ns = NULL;
}

const struct fabric_transport fabric_transport_ses = {
	.name = "ses",
	.hosts = ses_hosts,
	.start = ses_start,
	.poll = ses_poll,
	.done = ses_done,
	.flow_bytes = ses_flow_bytes,
	.flow_out = ses_flow_out,
	.delivery = ses_delivery,
	.detach = ses_detach,
	.release = ses_release,
};
