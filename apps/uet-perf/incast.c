/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * incast: N sender engines (--peers) to one receiver engine, all in this
 * process on ring ports; the senders share the receiver's RX ring and a
 * software switch returns the ACKs. Reports each flow's goodput (bytes
 * delivered / time to its last delivery) and Jain's fairness index over
 * them: (sum x)^2 / (N * sum x^2), 1 = fair.
 *
 *   S0..SN-1 --(ring "up", shared)--> R
 *   R --(ring "down")--> switch --> S_i by MAC
 *
 * The switch is a loop over "down" on the session's thread that moves
 * each frame to the RX ring of the sender owning its destination MAC
 * (mbufs are passed through, never copied or allocated).
 */

#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_eth_ring.h>
#include <rte_ether.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include "session.h"

#define SWITCH_BURST 32

/* Ring ports, made once per process. */
static struct rte_ring *up_ring, *down_ring, *sender_rx[PERF_MAX_PEERS];
static unsigned int senders_made;
static bool receiver_made;

/* ------------------------------------------------------------------ */
/* the switch topology                                                 */
/* ------------------------------------------------------------------ */

static unsigned int
switch_senders(const struct perf_opts *o)
{
	return o->peers ? o->peers : 2;
}

/* The receiver port and senders 0 .. n - 1 (made on demand). */
static int
ports_make(unsigned int n)
{
	char name[RTE_RING_NAMESIZE];

	if (!receiver_made) {
		up_ring = rte_ring_create("perf_inc_up", SESS_RING_SIZE,
					  SOCKET_ID_ANY, RING_F_SC_DEQ);
		down_ring = rte_ring_create("perf_inc_down", SESS_RING_SIZE,
					    SOCKET_ID_ANY,
					    RING_F_SP_ENQ | RING_F_SC_DEQ);
		if (up_ring == NULL || down_ring == NULL)
			return -ENOMEM;
		if (rte_eth_from_rings("perfR", &up_ring, 1, &down_ring, 1,
				       SOCKET_ID_ANY) < 0)
			return -rte_errno;
		receiver_made = true;
	}
	for (; senders_made < n; senders_made++) {
		unsigned int i = senders_made;

		snprintf(name, sizeof(name), "perf_inc_s%u", i);
		sender_rx[i] = rte_ring_create(name, SESS_RING_SIZE,
					       SOCKET_ID_ANY,
					       RING_F_SP_ENQ | RING_F_SC_DEQ);
		if (sender_rx[i] == NULL)
			return -ENOMEM;
		snprintf(name, sizeof(name), "perfS%u", i);
		if (rte_eth_from_rings(name, &sender_rx[i], 1, &up_ring, 1,
				       SOCKET_ID_ANY) < 0)
			return -rte_errno;
	}
	return 0;
}

/* Frames left in the incast rings by an earlier run. */
static void
ring_flush(struct rte_ring *r)
{
	void *objs[SWITCH_BURST];
	unsigned int n;

	if (r == NULL)
		return;
	while ((n = rte_ring_dequeue_burst(r, objs, RTE_DIM(objs), NULL)) > 0)
		rte_pktmbuf_free_bulk((struct rte_mbuf **)objs, n);
}

static void
sender_addr(unsigned int i, uint8_t ip[4], uint8_t mac[6])
{
	static const uint8_t base_mac[6] = { 0x02, 0, 0, 0, 0x01, 0 };

	ip[0] = 10;
	ip[1] = 0;
	ip[2] = 1;
	ip[3] = (uint8_t)(i + 1);
	memcpy(mac, base_mac, 6);
	mac[5] = (uint8_t)(i + 1);
}

/* Move the receiver's frames to the senders' RX rings by MAC. */
static void
switch_pump(struct perf_sess *s)
{
	struct rte_mbuf *m[SWITCH_BURST];
	unsigned int n, i;

	n = rte_ring_dequeue_burst(down_ring, (void **)m, RTE_DIM(m), NULL);
	for (i = 0; i < n; i++) {
		const struct rte_ether_hdr *eh =
			rte_pktmbuf_mtod(m[i], const struct rte_ether_hdr *);
		const uint8_t *d = eh->dst_addr.addr_bytes;
		unsigned int port = d[5] - 1u;

		if (d[0] != 0x02 || d[4] != 0x01 || d[5] == 0 ||
		    port >= s->nb_tx ||
		    rte_ring_enqueue(sender_rx[port], m[i]) != 0) {
			rte_pktmbuf_free(m[i]);
			s->sw_drops++;
		}
	}
}

/* Ports for @p n senders, emptied of an earlier run's frames. */
static int
switch_ports(unsigned int n)
{
	int rc = ports_make(n);

	if (rc < 0)
		return rc;
	ring_flush(up_ring);
	ring_flush(down_ring);
	for (unsigned int i = 0; i < senders_made; i++)
		ring_flush(sender_rx[i]);
	return 0;
}

static void
switch_sender(unsigned int i, char *dev, size_t len, uint8_t ip[4],
	      uint8_t mac[6])
{
	sender_addr(i, ip, mac);
	snprintf(dev, len, "net_ring_perfS%u", i);
}

/* The receiver counts each sender's flow: sequence numbers
 * [i x span, (i + 1) x span) are sender i's. */
static void
switch_raw_traffic(unsigned int senders, struct test_ulp_params *tx,
		   struct test_ulp_params *rx)
{
	rx->flows = senders;
	rx->flow_span = tx->count;
}

/* The senders' results, summed. */
static void
sender_results(struct perf_sess *s, struct test_ulp_result *tx)
{
	struct test_ulp_result one;

	test_ulp_result(s->ru[1], tx);
	for (unsigned int i = 2; i <= s->nb_tx; i++) {
		test_ulp_result(s->ru[i], &one);
		tx->msgs_sent += one.msgs_sent;
		tx->pkts_done_ok += one.pkts_done_ok;
		tx->pkts_done_err += one.pkts_done_err;
	}
}

/* Per sender: delivered, lost, goodput; Jain's index over them. */
static void
switch_flows(struct perf_sess *s)
{
	struct perf_report *r = s->r;
	double hz = (double)rte_get_tsc_hz(), sum = 0, sq = 0;
	struct test_ulp_result one;
	struct test_ulp_flow f;

	r->nb_flows = s->nb_tx;
	r->rx.rx_lost = 0;
	for (unsigned int i = 0; i < s->nb_tx; i++) {
		struct perf_flow *pf = &r->flow[i];

		test_ulp_result(s->ru[1 + i], &one);
		(void)test_ulp_flow_get(s->ru[0], i, one.msgs_sent, &f);
		pf->msgs_sent = one.msgs_sent;
		pf->msgs = f.msgs;
		pf->bytes = f.bytes;
		pf->lost = f.lost;
		r->rx.rx_lost += f.lost;
		pf->seconds = f.last_tsc > s->t0 ?
			      (double)(f.last_tsc - s->t0) / hz : 0;
		pf->gbytes_per_s = pf->seconds > 0 ?
				   (double)f.bytes / pf->seconds / 1e9 : 0;
		sum += pf->gbytes_per_s;
		sq += pf->gbytes_per_s * pf->gbytes_per_s;
	}
	r->jain = sq > 0 ? sum * sum / ((double)s->nb_tx * sq) : 0;
}

static void
switch_results(struct perf_sess *s)
{
	sender_results(s, &s->r->tx);
	test_ulp_result(s->ru[0], &s->r->rx);
	switch_flows(s);
}

static void
switch_counters_print(const struct perf_sess *s, FILE *f)
{
	fprintf(f, "switch: dropped %" PRIu64 "\n", s->sw_drops);
}

const struct perf_topology perf_topology_switch = {
	.senders = switch_senders,
	.ports = switch_ports,
	.receiver_dev = "net_ring_perfR",
	.sender = switch_sender,
	.count_per_sender = true,
	.raw_traffic = switch_raw_traffic,
	.pump = switch_pump,
	.results = switch_results,
	.counters_print = switch_counters_print,
};

/* ------------------------------------------------------------------ */
/* the mode                                                            */
/* ------------------------------------------------------------------ */

/* One process, one receiver: no --role. */
static const char *
incast_refuse(const struct perf_opts *o, const char **flag)
{
	*flag = "--mode incast";
	return o->role != PERF_ROLE_NONE ? "runs in one process (no --role)" :
	       NULL;
}

static void
incast_print(const struct perf_report *r, FILE *f)
{
	fprintf(f, "incast: %u senders -> 1 receiver, %lu x %u B over %s, "
		"window %u pkts each, loss %u ppm: %.3f GB/s, %.0f msgs/s "
		"(%.3f s)\n", r->nb_flows, (unsigned long)r->count, r->size,
		r->pds, r->window, r->loss_ppm, r->gbytes_per_s, r->msgs_per_s,
		r->seconds);
	for (unsigned int i = 0; i < r->nb_flows; i++)
		fprintf(f, "  flow %u: sent %lu, delivered %lu msgs, %lu B, "
			"lost pkts %lu, goodput %.3f GB/s (%.3f s)\n", i,
			(unsigned long)r->flow[i].msgs_sent,
			(unsigned long)r->flow[i].msgs,
			(unsigned long)r->flow[i].bytes,
			(unsigned long)r->flow[i].lost,
			r->flow[i].gbytes_per_s, r->flow[i].seconds);
	fprintf(f, "  Jain fairness index %.4f, retransmissions %lu, "
		"duplicates suppressed %lu, ACK frames %lu\n", r->jain,
		(unsigned long)r->retx, (unsigned long)r->dup_suppressed,
		(unsigned long)r->acks);
	perf_verified_print(r, f);
}

const struct perf_mode perf_mode_incast = {
	.name = "incast",
	.alone = true,
	.takes_peers = true,
	.def_size = 4096,
	.def_count = 20000,
	.def_window = 64,
	.def_ses_window = 0,
	.def_loss_ppm = 0,
	.topology = &perf_topology_switch,
	.refuse = incast_refuse,
	.ses_refusal = "incast runs over the raw ULP only",
	.print = incast_print,
};
