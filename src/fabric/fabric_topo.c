/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Topology: nodes, cables and ports of a leaf/spine or a K-ary fat tree,
 * shortest-path routes with every equal-cost next hop (ECMP groups), and
 * the per-switch ECMP choice. Routes are static: a failed link is not
 * withdrawn (frames hashed onto it are lost, as while a real fabric's
 * routing reconverges) unless the configuration asks for local failover.
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_jhash.h>

#include "fabric_private.h"

static uint32_t
fabric_node_id(const struct uet_fabric *fab, enum uet_fabric_tier t, uint32_t i)
{
	return fab->tier_first[t] + i;
}

static void
fabric_link_add(struct uet_fabric *fab, uint32_t a, uint32_t b)
{
	struct fabric_link *l = &fab->links[fab->nlinks++];

	l->end[0] = a;
	l->end[1] = b;
	l->rate_bps = fab->cfg.link_rate_bps;
	l->delay_ns = fab->cfg.link_delay_ns;
	l->loss_ppm = fab->cfg.loss_ppm;
	l->up = true;
}

static void
fabric_tiers_size(struct uet_fabric *fab)
{
	const struct uet_fabric_config *c = &fab->cfg;
	uint32_t t, half = c->k / 2;

	if (c->topo == UET_FABRIC_TOPO_FAT_TREE) {
		fab->tier_size[UET_FABRIC_TIER_HOST] = c->k * half * half;
		fab->tier_size[UET_FABRIC_TIER_LEAF] = c->k * half;
		fab->tier_size[UET_FABRIC_TIER_SPINE] = c->k * half;
		fab->tier_size[UET_FABRIC_TIER_CORE] = half * half;
	} else {
		fab->tier_size[UET_FABRIC_TIER_HOST] = c->hosts;
		fab->tier_size[UET_FABRIC_TIER_LEAF] =
			(c->hosts + c->hosts_per_leaf - 1) / c->hosts_per_leaf;
		fab->tier_size[UET_FABRIC_TIER_SPINE] = c->spines;
		fab->tier_size[UET_FABRIC_TIER_CORE] = 0;
	}
	fab->nnodes = 0;
	for (t = 0; t < 4; t++) {
		fab->tier_first[t] = fab->nnodes;
		fab->nnodes += fab->tier_size[t];
	}
	fab->hosts = fab->tier_size[UET_FABRIC_TIER_HOST];
}

static void
fabric_links_leaf_spine(struct uet_fabric *fab)
{
	uint32_t h, l, s;

	for (h = 0; h < fab->hosts; h++)
		fabric_link_add(fab, h, fabric_node_id(fab, UET_FABRIC_TIER_LEAF,
						 h / fab->cfg.hosts_per_leaf));
	for (l = 0; l < fab->tier_size[UET_FABRIC_TIER_LEAF]; l++)
		for (s = 0; s < fab->cfg.spines; s++)
			fabric_link_add(fab,
				     fabric_node_id(fab, UET_FABRIC_TIER_LEAF, l),
				     fabric_node_id(fab, UET_FABRIC_TIER_SPINE, s));
}

/* K pods of K/2 edge (leaf) and K/2 aggregation (spine) switches; the
 * j-th aggregation switch of every pod links to cores j*K/2 .. j*K/2+K/2-1. */
static void
fabric_links_fat_tree(struct uet_fabric *fab)
{
	uint32_t half = fab->cfg.k / 2, h, p, e, a, j;

	for (h = 0; h < fab->hosts; h++)
		fabric_link_add(fab, h, fabric_node_id(fab, UET_FABRIC_TIER_LEAF,
						 h / half));
	for (p = 0; p < fab->cfg.k; p++)
		for (e = 0; e < half; e++)
			for (a = 0; a < half; a++)
				fabric_link_add(fab,
					fabric_node_id(fab, UET_FABRIC_TIER_LEAF,
						    p * half + e),
					fabric_node_id(fab, UET_FABRIC_TIER_SPINE,
						    p * half + a));
	for (p = 0; p < fab->cfg.k; p++)
		for (a = 0; a < half; a++)
			for (j = 0; j < half; j++)
				fabric_link_add(fab,
					fabric_node_id(fab, UET_FABRIC_TIER_SPINE,
						    p * half + a),
					fabric_node_id(fab, UET_FABRIC_TIER_CORE,
						    a * half + j));
}

static uint32_t
fabric_links_count(const struct uet_fabric *fab)
{
	uint32_t half = fab->cfg.k / 2;

	if (fab->cfg.topo == UET_FABRIC_TOPO_FAT_TREE)
		return fab->hosts + 2 * fab->cfg.k * half * half;
	return fab->hosts + fab->tier_size[UET_FABRIC_TIER_LEAF] *
			    fab->cfg.spines;
}

static void
fabric_nodes_fill(struct uet_fabric *fab)
{
	uint32_t n, l, d, t;
	uint64_t sx = fab->cfg.seed ^ UINT64_C(0x5851F42D4C957F2D);

	for (n = 0, t = 0; n < fab->nnodes; n++) {
		while (t < 3 && n >= fab->tier_first[t + 1])
			t++;
		fab->nodes[n].tier = (enum uet_fabric_tier)t;
		fab->nodes[n].index = n - fab->tier_first[t];
		fab->nodes[n].seed = (uint32_t)uet_rand_splitmix(&sx);
	}
	for (l = 0; l < fab->nlinks; l++)
		for (d = 0; d < 2; d++)
			fab->nodes[fab->links[l].end[d]].nports++;
	for (n = 0, d = 0; n < fab->nnodes; n++) {
		fab->nodes[n].first = d;
		d += fab->nodes[n].nports;
		fab->nodes[n].nports = 0;
	}
	for (l = 0; l < fab->nlinks; l++) {
		for (d = 0; d < 2; d++) {
			struct fabric_node *nd = &fab->nodes[fab->links[l].end[d]];
			struct fabric_port *pt = &fab->ports[2 * l + d];

			fab->node_ports[nd->first + nd->nports++] = 2 * l + d;
			pt->node = fab->links[l].end[d];
			pt->peer = fab->links[l].end[d ^ 1];
			pt->link = l;
			pt->cur = FAB_NIL;
			pt->data.head = pt->data.tail = FAB_NIL;
			pt->ctl.head = pt->ctl.tail = FAB_NIL;
			pt->from_host = pt->node < fab->hosts;
			pt->to_host = pt->peer < fab->hosts;
			pt->hist = fab->hist +
				   (uint64_t)(2 * l + d) * UET_FABRIC_HIST_BUCKETS;
		}
	}
}

/* Allocate and wire nodes, links and ports for the configured shape. */
int
fabric_topo_build(struct uet_fabric *fab)
{
	uint32_t nl, n, maxdeg = 0;

	fabric_tiers_size(fab);
	nl = fabric_links_count(fab);
	fab->nodes = calloc(fab->nnodes, sizeof(*fab->nodes));
	fab->links = calloc(nl, sizeof(*fab->links));
	fab->ports = calloc(2 * (size_t)nl, sizeof(*fab->ports));
	fab->node_ports = calloc(2 * (size_t)nl, sizeof(uint32_t));
	fab->hist = calloc(2 * (size_t)nl * UET_FABRIC_HIST_BUCKETS,
			   sizeof(uint32_t));
	if (fab->nodes == NULL || fab->links == NULL || fab->ports == NULL ||
	    fab->node_ports == NULL || fab->hist == NULL)
		return -ENOMEM;
	if (fab->cfg.topo == UET_FABRIC_TOPO_FAT_TREE)
		fabric_links_fat_tree(fab);
	else
		fabric_links_leaf_spine(fab);
	fabric_nodes_fill(fab);
	for (n = 0; n < fab->nnodes; n++)
		if (fab->nodes[n].nports > maxdeg)
			maxdeg = fab->nodes[n].nports;
	return maxdeg <= UET_FABRIC_DEGREE_MAX ? 0 : -EINVAL;
}

/* Breadth-first distances (in links) from host @p dst to every node. */
static void
fabric_bfs(const struct uet_fabric *fab, uint32_t dst, uint32_t *dist,
	uint32_t *fifo)
{
	uint32_t head = 0, tail = 0, n, i, peer;

	for (n = 0; n < fab->nnodes; n++)
		dist[n] = UINT32_MAX;
	dist[dst] = 0;
	fifo[tail++] = dst;
	while (head < tail) {
		n = fifo[head++];
		for (i = 0; i < fab->nodes[n].nports; i++) {
			peer = fab->ports[fab->node_ports[fab->nodes[n].first +
							  i]].peer;
			if (dist[peer] != UINT32_MAX)
				continue;
			dist[peer] = dist[n] + 1;
			fifo[tail++] = peer;
		}
	}
}

static void
fabric_routes_fill(struct uet_fabric *fab, uint32_t dst, const uint32_t *dist)
{
	uint32_t n, i, peer;
	uint64_t mask;

	for (n = fab->hosts; n < fab->nnodes; n++) {
		mask = 0;
		for (i = 0; i < fab->nodes[n].nports; i++) {
			peer = fab->ports[fab->node_ports[fab->nodes[n].first +
							  i]].peer;
			if (dist[n] != UINT32_MAX && dist[peer] + 1 == dist[n])
				mask |= UINT64_C(1) << i;
		}
		fab->routes[(uint64_t)(n - fab->hosts) * fab->hosts + dst] =
			mask;
	}
}

/*
 * ECMP groups for every (switch, destination host): the ports whose peer
 * is one link closer to the destination. *max_hops receives the longest
 * host-to-host path (for the derived base RTT).
 */
int
fabric_routes_build(struct uet_fabric *fab, uint32_t *max_hops)
{
	uint32_t *dist = calloc(fab->nnodes, sizeof(uint32_t));
	uint32_t *fifo = calloc(fab->nnodes, sizeof(uint32_t));
	uint32_t dst, h;
	int rc = 0;

	fab->routes = calloc((size_t)(fab->nnodes - fab->hosts) * fab->hosts,
			     sizeof(uint64_t));
	if (dist == NULL || fifo == NULL || fab->routes == NULL) {
		rc = -ENOMEM;
		goto out;
	}
	*max_hops = 0;
	for (dst = 0; dst < fab->hosts; dst++) {
		fabric_bfs(fab, dst, dist, fifo);
		fabric_routes_fill(fab, dst, dist);
		for (h = 0; h < fab->hosts; h++)
			if (dist[h] != UINT32_MAX && dist[h] > *max_hops)
				*max_hops = dist[h];
	}
out:
	free(dist);
	free(fifo);
	return rc;
}

/* Bit position of the @p k-th (0-based) set bit of @p m. */
static uint32_t
fabric_nth_bit(uint64_t m, uint32_t k)
{
	while (k-- > 0)
		m &= m - 1;
	return (uint32_t)__builtin_ctzll(m);
}

/*
 * Output port at @p node for frame @p f, or FAB_NIL when no live port
 * leads to its destination. A host has one port; a switch hashes the
 * frame's 5-tuple hash with its own seed over its ECMP group, so that
 * consecutive tiers do not make correlated choices.
 */
uint32_t
fabric_route_port(struct uet_fabric *fab, uint32_t node,
	       const struct fabric_frame *f)
{
	const struct fabric_node *nd = &fab->nodes[node];
	uint64_t mask;
	uint32_t i, n;

	if (node < fab->hosts)
		return fab->node_ports[nd->first];
	mask = fab->routes[(uint64_t)(node - fab->hosts) * fab->hosts +
			   f->dst];
	if (fab->cfg.failover) {
		for (i = 0; i < nd->nports; i++)
			if (!fabric_port_link(fab, fab->node_ports[nd->first +
								i])->up)
				mask &= ~(UINT64_C(1) << i);
	}
	n = (uint32_t)__builtin_popcountll(mask);
	if (n == 0)
		return FAB_NIL;
	i = fabric_nth_bit(mask, rte_jhash_1word(f->hash, nd->seed) % n);
	return fab->node_ports[nd->first + i];
}

uint32_t
uet_fabric_tier_size(const struct uet_fabric *fab, enum uet_fabric_tier tier)
{
	if (fab == NULL || (unsigned int)tier > UET_FABRIC_TIER_CORE)
		return 0;
	return fab->tier_size[tier];
}

int
uet_fabric_link_find(const struct uet_fabric *fab, enum uet_fabric_tier ta,
		     uint32_t a, enum uet_fabric_tier tb, uint32_t b)
{
	uint32_t na, nb, i, p;

	if (fab == NULL || (unsigned int)ta > UET_FABRIC_TIER_CORE ||
	    (unsigned int)tb > UET_FABRIC_TIER_CORE ||
	    a >= fab->tier_size[ta] || b >= fab->tier_size[tb])
		return -ENOENT;
	na = fabric_node_id(fab, ta, a);
	nb = fabric_node_id(fab, tb, b);
	for (i = 0; i < fab->nodes[na].nports; i++) {
		p = fab->node_ports[fab->nodes[na].first + i];
		if (fab->ports[p].peer == nb)
			return (int)fab->ports[p].link;
	}
	return -ENOENT;
}
