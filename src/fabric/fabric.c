/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Fabric lifecycle and queries: configuration defaults and checks,
 * creation of every fixed array, the plane BDP and the thresholds
 * derived from it (UEC 1.0 recommended switch marking: Plane_BDP = min
 * link rate x base RTT), link settings and counters.
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <uet/uet_fabric_defaults.h>

#include "fabric_private.h"

void
uet_fabric_config_default(struct uet_fabric_config *c)
{
	memset(c, 0, sizeof(*c));
	c->topo = UET_FABRIC_TOPO_LEAF_SPINE;
	c->hosts = UET_FABRIC_DEFAULT_HOSTS;
	c->hosts_per_leaf = UET_FABRIC_DEFAULT_HOSTS_PER_LEAF;
	c->spines = UET_FABRIC_DEFAULT_SPINES;
	c->k = UET_FABRIC_DEFAULT_K;
	c->link_rate_bps = UET_FABRIC_DEFAULT_LINK_RATE_MBPS * UINT64_C(1000000);
	c->link_delay_ns = UET_FABRIC_DEFAULT_LINK_DELAY_NS;
	c->mtu = UET_FABRIC_DEFAULT_IP_MTU + UET_FABRIC_L2_BYTES;
	c->frame_overhead = 24;
	c->frame_pool = UET_FABRIC_DEFAULT_FRAME_POOL;
	c->host_queue_bytes = UET_FABRIC_DEFAULT_HOST_QUEUE_BYTES;
	c->trimming = true;
	c->ecn = true;
	c->ecn_min_milli = UET_FABRIC_DEFAULT_ECN_MIN_MILLI;
	c->ecn_max_milli = UET_FABRIC_DEFAULT_ECN_MAX_MILLI;
	c->trim_milli = UET_FABRIC_DEFAULT_TRIM_MILLI;
	c->trim_retx_milli = UET_FABRIC_DEFAULT_TRIM_RETX_MILLI;
	c->drop_milli = UET_FABRIC_DEFAULT_DROP_MILLI;
	c->control_drop_milli = UET_FABRIC_DEFAULT_DROP_MILLI;
	c->dscp.data = 0;
	c->dscp.control = 46;
	c->dscp.trimmed = 16;
	c->dscp.trimmed_lasthop = 18;
	c->dscp.trimmable_retx = 8;
	c->schedule_max = 64;
	c->seed = UET_FABRIC_DEFAULT_SEED;
}

static const char *
fabric_check_shape(const struct uet_fabric_config *c)
{
	if (c->topo == UET_FABRIC_TOPO_FAT_TREE) {
		if (c->k < 2 || c->k > 16 || c->k % 2 != 0)
			return "k (even, 2..16)";
		return NULL;
	}
	if (c->topo != UET_FABRIC_TOPO_LEAF_SPINE)
		return "topo";
	if (c->hosts < 2 || c->hosts > UET_FABRIC_HOSTS_MAX)
		return "hosts (2..1024)";
	if (c->hosts_per_leaf < 1 ||
	    c->hosts_per_leaf + c->spines > UET_FABRIC_DEGREE_MAX)
		return "hosts_per_leaf (1..64 ports per leaf with the spines)";
	if (c->spines < 1 ||
	    (c->hosts + c->hosts_per_leaf - 1) / c->hosts_per_leaf >
	    UET_FABRIC_DEGREE_MAX)
		return "spines (1..63; at most 64 leaves)";
	return NULL;
}

static const char *
fabric_check_dscp(const struct uet_fabric_dscp *d)
{
	const uint8_t v[5] = { d->data, d->control, d->trimmed,
			       d->trimmed_lasthop, d->trimmable_retx };
	unsigned int i, j;

	for (i = 0; i < 5; i++) {
		if (v[i] > 63)
			return "dscp (0..63)";
		for (j = 0; j < i; j++)
			if (v[i] == v[j])
				return "dscp (distinct per class)";
	}
	return NULL;
}

static const char *
fabric_check_thresholds(const struct uet_fabric_config *c)
{
	if (c->ecn_min_milli >= c->ecn_max_milli)
		return "ecn_min_milli (below ecn_max_milli)";
	if (c->trim_milli == 0 || c->trim_retx_milli < c->trim_milli)
		return "trim_milli / trim_retx_milli";
	if (c->drop_milli < 2000 || c->drop_milli > 5000)
		return "drop_milli (2000..5000)";
	if (c->control_drop_milli == 0)
		return "control_drop_milli";
	if (c->loss_ppm > 1000000)
		return "loss_ppm (0..1000000)";
	return NULL;
}

int
uet_fabric_config_check(const struct uet_fabric_config *c, const char **why)
{
	const char *w = NULL;

	if (c == NULL)
		w = "config";
	else if ((w = fabric_check_shape(c)) != NULL)
		;
	else if (c->link_rate_bps == 0)
		w = "link_rate_bps";
	else if (c->mtu < 64 || c->mtu > 65535)
		w = "mtu (64..65535)";
	else if (c->frame_pool < 1 || c->frame_pool > (1u << 24))
		w = "frame_pool (1..16M)";
	else if (c->host_queue_bytes < c->mtu)
		w = "host_queue_bytes (at least mtu)";
	else if ((w = fabric_check_dscp(&c->dscp)) != NULL)
		;
	else if ((w = fabric_check_thresholds(c)) != NULL)
		;
	else if (c->schedule_max > (1u << 20))
		w = "schedule_max (0..1M)";
	else if (c->deliver == NULL)
		w = "deliver";
	else if ((c->sample != NULL) != (c->sample_ns != 0))
		w = "sample_ns (non-zero exactly when sample is set)";
	if (why != NULL)
		*why = w;
	return w == NULL ? 0 : -EINVAL;
}

static uint64_t
fabric_ser_once(uint32_t bytes, uint64_t rate)
{
	return ((uint64_t)bytes * 8 * UINT64_C(1000000000) + rate - 1) / rate;
}

/* Thresholds from the plane BDP; the derived base RTT is the unloaded
 * round trip of the longest path: an mtu frame out, a 64-byte reply
 * back, store-and-forward at every hop. */
static void
fabric_thresholds_init(struct uet_fabric *fab, uint32_t max_hops)
{
	const struct uet_fabric_config *c = &fab->cfg;
	struct uet_fabric_thresholds *t = &fab->th;
	uint64_t rate = c->link_rate_bps;

	t->base_rtt_ns = c->base_rtt_ns;
	if (t->base_rtt_ns == 0)
		t->base_rtt_ns = max_hops *
			(2 * c->link_delay_ns +
			 fabric_ser_once(c->mtu + c->frame_overhead, rate) +
			 fabric_ser_once(64 + c->frame_overhead, rate));
	t->bdp = (uint64_t)((unsigned __int128)rate * t->base_rtt_ns /
			    UINT64_C(8000000000));
	t->ecn_min = t->bdp * c->ecn_min_milli / 1000;
	t->ecn_max = t->bdp * c->ecn_max_milli / 1000;
	t->trim = t->bdp * c->trim_milli / 1000;
	t->trim_retx = t->bdp * c->trim_retx_milli / 1000;
	t->drop = t->bdp * c->drop_milli / 1000;
	t->control_drop = t->bdp * c->control_drop_milli / 1000;
}

static int
fabric_pools_init(struct uet_fabric *fab)
{
	const struct uet_fabric_config *c = &fab->cfg;
	uint32_t i;

	fab->frames = calloc(c->frame_pool, sizeof(*fab->frames));
	fab->buf = malloc((size_t)c->frame_pool * c->mtu);
	fab->heap_cap = c->frame_pool + 2 * fab->nlinks + c->schedule_max;
	fab->heap = calloc(fab->heap_cap, sizeof(*fab->heap));
	fab->sched = calloc(c->schedule_max ? c->schedule_max : 1,
			    sizeof(*fab->sched));
	if (fab->frames == NULL || fab->buf == NULL || fab->heap == NULL ||
	    fab->sched == NULL)
		return -ENOMEM;
	for (i = 0; i < c->frame_pool; i++)
		fab->frames[i].next = i + 1 < c->frame_pool ? i + 1 : FAB_NIL;
	fab->free_head = 0;
	for (i = 0; i < c->schedule_max; i++)
		fab->sched[i].link = FAB_NIL;
	return 0;
}

struct uet_fabric *
uet_fabric_create(const struct uet_fabric_config *c, int *err)
{
	struct uet_fabric *fab;
	uint32_t max_hops = 0;
	int rc = uet_fabric_config_check(c, NULL);

	if (rc < 0)
		goto fail;
	fab = calloc(1, sizeof(*fab));
	if (fab == NULL) {
		rc = -ENOMEM;
		goto fail;
	}
	fab->cfg = *c;
	uet_rand_seed(&fab->rng, c->seed);
	fab->next_sample = c->sample_ns;
	rc = fabric_topo_build(fab);
	if (rc == 0)
		rc = fabric_routes_build(fab, &max_hops);
	if (rc == 0)
		rc = fabric_addr_init(fab);
	if (rc == 0)
		rc = fabric_pools_init(fab);
	if (rc < 0)
		goto free_fab;
	fabric_thresholds_init(fab, max_hops);
	return fab;
free_fab:
	uet_fabric_free(fab);
fail:
	if (err != NULL)
		*err = rc;
	return NULL;
}

void
uet_fabric_free(struct uet_fabric *fab)
{
	if (fab == NULL)
		return;
	free(fab->nodes);
	free(fab->node_ports);
	free(fab->routes);
	free(fab->links);
	free(fab->ports);
	free(fab->hist);
	free(fab->frames);
	free(fab->buf);
	free(fab->heap);
	free(fab->sched);
	free(fab->addr);
	free(fab->addr_tab);
	free(fab);
}

uint32_t
uet_fabric_hosts(const struct uet_fabric *fab)
{
	return fab->hosts;
}

void
uet_fabric_thresholds_get(const struct uet_fabric *fab,
			  struct uet_fabric_thresholds *t)
{
	*t = fab->th;
}

uint32_t
uet_fabric_links(const struct uet_fabric *fab)
{
	return fab->nlinks;
}

int
uet_fabric_link_info(const struct uet_fabric *fab, uint32_t link,
		     struct uet_fabric_link_info *info)
{
	const struct fabric_link *l;
	uint32_t d;

	if (fab == NULL || info == NULL || link >= fab->nlinks)
		return -EINVAL;
	l = &fab->links[link];
	for (d = 0; d < 2; d++) {
		info->tier[d] = fab->nodes[l->end[d]].tier;
		info->index[d] = fab->nodes[l->end[d]].index;
		info->port[d] = 2 * link + d;
	}
	info->rate_bps = l->rate_bps;
	info->delay_ns = l->delay_ns;
	info->up = l->up;
	return 0;
}

int
uet_fabric_link_set(struct uet_fabric *fab, uint32_t link, uint64_t rate_bps,
		    uint64_t delay_ns, uint32_t loss_ppm)
{
	if (fab == NULL || link >= fab->nlinks || rate_bps == 0 ||
	    loss_ppm > 1000000)
		return -EINVAL;
	fab->links[link].rate_bps = rate_bps;
	fab->ports[2 * link].rem = 0;
	fab->ports[2 * link + 1].rem = 0;
	fab->links[link].delay_ns = delay_ns;
	fab->links[link].loss_ppm = loss_ppm;
	return 0;
}

/* Upper edge of the bucket holding quantile @p q (per mille). */
static uint64_t
fabric_hist_quantile(const struct uet_fabric *fab, const struct fabric_port *pt,
		  uint32_t q)
{
	uint64_t w = fab->th.drop / (UET_FABRIC_HIST_BUCKETS - 1);
	uint64_t want, sum = 0;
	uint32_t b;

	if (pt->st.samples == 0)
		return 0;
	want = (pt->st.samples * q + 999) / 1000;
	for (b = 0; b < UET_FABRIC_HIST_BUCKETS; b++) {
		sum += pt->hist[b];
		if (sum >= want)
			break;
	}
	if (b >= UET_FABRIC_HIST_BUCKETS - 1)
		return pt->data.max;
	return (b + 1) * (w ? w : 1);
}

int
uet_fabric_port_stats(const struct uet_fabric *fab, uint32_t port,
		      struct uet_fabric_port_stats *s)
{
	const struct fabric_port *pt;

	if (fab == NULL || s == NULL || port >= 2 * fab->nlinks)
		return -EINVAL;
	pt = &fab->ports[port];
	*s = pt->st;
	s->data_bytes = pt->data.bytes;
	s->control_bytes = pt->ctl.bytes;
	s->data_max = pt->data.max;
	s->control_max = pt->ctl.max;
	s->data_p50 = fabric_hist_quantile(fab, pt, 500);
	s->data_p99 = fabric_hist_quantile(fab, pt, 990);
	return 0;
}

void
uet_fabric_stats_get(const struct uet_fabric *fab, struct uet_fabric_stats *s)
{
	*s = fab->st;
}
