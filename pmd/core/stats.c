/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Counter snapshots. Every counter has one writer (the thread running its
 * context); readers load each 64-bit word with a relaxed atomic load, so
 * a snapshot is per-counter consistent, not a global cut.
 */

#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "engine_private.h"

#define NB_WORDS (sizeof(struct uet_engine_lcore_stats) / sizeof(uint64_t))
_Static_assert(sizeof(struct uet_engine_lcore_stats) % sizeof(uint64_t) == 0,
	       "stats are an array of 64-bit counters");

void
engine_lcore_stats_read(const struct uet_engine_lcore *lc,
		     struct uet_engine_lcore_stats *out)
{
	const uint64_t *src = (const uint64_t *)&lc->st;
	uint64_t *dst = (uint64_t *)out;

	for (size_t i = 0; i < NB_WORDS; i++)
		dst[i] = __atomic_load_n(&src[i], __ATOMIC_RELAXED);
}

static void
stats_add(struct uet_engine_lcore_stats *sum,
	  const struct uet_engine_lcore_stats *s)
{
	uint64_t *d = (uint64_t *)sum;
	const uint64_t *a = (const uint64_t *)s;

	for (size_t i = 0; i < NB_WORDS; i++)
		d[i] += a[i];
}

int
uet_engine_stats_get(const struct uet_engine *e, struct uet_engine_stats *s)
{
	if (e == NULL || s == NULL)
		return -EINVAL;
	memset(s, 0, sizeof(*s));
	s->nb_lcores = e->nb_lcores;
	s->nb_ports = e->nb_ports;
	s->running = e->running;
	s->inline_progress = e->cfg.engine.progress ==
			     UET_CONFIG_PROGRESS_INLINE;
	for (unsigned int i = 0; i < e->nb_lcores; i++) {
		engine_lcore_stats_read(e->lc[i], &s->lcore[i]);
		stats_add(&s->total, &s->lcore[i]);
	}
	return 0;
}

static const char *const class_names[UET_ENGINE_CLASSES] = {
	"req", "ack", "nack", "cp",
};

#define PR(f, s, field) do { \
	if ((s)->field != 0) \
		fprintf(f, "  %-22s %" PRIu64 "\n", #field, (s)->field); \
} while (0)

static void
print_one(const struct uet_engine_lcore_stats *s, FILE *f)
{
	PR(f, s, iterations);
	PR(f, s, busy_iterations);
	PR(f, s, idle_sleeps);
	PR(f, s, wake_post);
	PR(f, s, wake_rx);
	PR(f, s, wake_timer);
	PR(f, s, wake_poll);
	PR(f, s, app_iterations);
	PR(f, s, rx_pkts);
	PR(f, s, rx_bytes);
	PR(f, s, rx_uet);
	for (unsigned int c = 0; c < UET_ENGINE_CLASSES; c++)
		if (s->rx_class[c] != 0)
			fprintf(f, "  rx_class.%-12s %" PRIu64 "\n",
				class_names[c], s->rx_class[c]);
	PR(f, s, rx_arp);
	PR(f, s, rx_nd);
	PR(f, s, rx_non_uet);
	PR(f, s, rx_malformed);
	PR(f, s, rx_trimmed);
	PR(f, s, rx_csum_bad);
	PR(f, s, rx_csum_none);
	PR(f, s, rx_mtu_exceeded);
	PR(f, s, rx_chained);
	PR(f, s, rx_linearized);
	for (unsigned int l = 0; l < 8; l++)
		if (s->rx_err_layer[l] != 0)
			fprintf(f, "  rx_err_layer.%-9s %" PRIu64 "\n",
				uet_wire_pkt_layer_name(l), s->rx_err_layer[l]);
	for (unsigned int c = 0; c < UET_WIRE_E__COUNT; c++)
		if (s->rx_err_code[c] != 0)
			fprintf(f, "  rx_err.%-15s %" PRIu64 "\n",
				uet_wire_errname((int)c), s->rx_err_code[c]);
	PR(f, s, tx_pkts);
	PR(f, s, tx_bytes);
	PR(f, s, tx_full);
	PR(f, s, tx_held);
	PR(f, s, tx_gate_waits);
	PR(f, s, capture_pkts);
	PR(f, s, capture_fail);
	PR(f, s, tx_staging_full);
	PR(f, s, tx_no_queue);
	PR(f, s, arp_req_rx);
	PR(f, s, arp_reply_rx);
	PR(f, s, arp_req_tx);
	PR(f, s, nd_ns_rx);
	PR(f, s, nd_na_rx);
	PR(f, s, nd_ns_tx);
	PR(f, s, nd_bad);
	PR(f, s, neigh_hit);
	PR(f, s, neigh_miss);
	PR(f, s, neigh_hold_drop);
	PR(f, s, neigh_full);
	PR(f, s, neigh_updates);
	PR(f, s, mbuf_alloc_fail);
	PR(f, s, local_delivery_wake);
	PR(f, s, tss.tx_sealed);
	PR(f, s, tss.tx_clear);
	PR(f, s, tss.tx_fail);
	PR(f, s, tss.tx_key_exhausted);
	PR(f, s, tss.rx_opened);
	PR(f, s, tss.tx_keys);
	PR(f, s, tss.rx_keys);
	PR(f, s, tss.epochs);
	for (unsigned int r = 0; r < UET_ENGINE_TSS_DROPS; r++)
		if (s->tss.rx_drop[r] != 0)
			fprintf(f, "  tss.rx_drop.%-10s %" PRIu64 "\n",
				uet_engine_tss_drop_name(r), s->tss.rx_drop[r]);
	for (unsigned int p = 0; p < UET_CONFIG_MAX_PORTS; p++) {
		if (s->local_delivery_tx[p] != 0)
			fprintf(f, "  local_delivery_tx.port%u     %" PRIu64 "\n", p,
				s->local_delivery_tx[p]);
		if (s->local_delivery_rx[p] != 0)
			fprintf(f, "  local_delivery_rx.port%u     %" PRIu64 "\n", p,
				s->local_delivery_rx[p]);
		if (s->local_delivery_drop[p] != 0)
			fprintf(f, "  local_delivery_drop.port%u   %" PRIu64 "\n", p,
				s->local_delivery_drop[p]);
	}
	for (unsigned int d = 0; d < UET_CONFIG_FAULT_DIRS; d++) {
		const struct uet_engine_fault_stats *fs = &s->fault[d];
		const char *dir = d == UET_CONFIG_FAULT_RX ? "rx" : "tx";

		for (unsigned int k = 0; k < UET_CONFIG_FAULT_KINDS; k++) {
			if (fs->applied[k] != 0)
				fprintf(f, "  fault.%s.%-12s %" PRIu64 "\n", dir,
					uet_engine_fault_name(k),
					fs->applied[k]);
			if (fs->skipped[k] != 0)
				fprintf(f, "  fault.%s.%s_skipped %" PRIu64 "\n",
					dir, uet_engine_fault_name(k),
					fs->skipped[k]);
		}
		if (fs->released != 0)
			fprintf(f, "  fault.%s.released  %" PRIu64 "\n", dir,
				fs->released);
		if (fs->flushed != 0)
			fprintf(f, "  fault.%s.flushed   %" PRIu64 "\n", dir,
				fs->flushed);
	}
}

void
uet_engine_stats_print(const struct uet_engine_stats *s, FILE *f)
{
	/* an inline engine has no lcores to run: it progresses when the
	 * application polls it */
	fprintf(f, "engine: %u lcore contexts, %u ports, %s\n", s->nb_lcores,
		s->nb_ports, s->inline_progress ?
		"inline progress (polled by the application)" :
		s->running ? "lcores running" : "lcores stopped");
	fprintf(f, "total:\n");
	print_one(&s->total, f);
	if (s->nb_lcores < 2)
		return;
	for (unsigned int i = 0; i < s->nb_lcores; i++) {
		fprintf(f, "context %u:\n", i);
		print_one(&s->lcore[i], f);
	}
}
