/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The prompt's show commands: the settings of the next run, the
 * statistics of the last one, the PDCs and the ports of its engines.
 */

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <rte_ethdev.h>

#include <uet/uet_pds.h>

#include "cli_private.h"

void
cli_show_config(void)
{
	const struct perf_opts *o = &cli.o;

	cli_out("test %s, pds %s, size %u, count %lu, window %u, "
	    "duration %.3f s, loss %ld ppm%s, peers %u, interval %u ms, seed %lu, cc %s, "
	    "spray %s, ulp %s, op %s%s%s\n", cli.m->name,
	    perf_pds_name(o->pds_mode),
	    o->size ? o->size : cli.m->def_size,
	    (unsigned long)(o->count ? o->count : o->duration > 0 ?
			    PERF_MAX_COUNT : cli.m->def_count),
	    o->window ? o->window : o->ulp == PERF_ULP_SES ?
	    cli.m->def_ses_window : cli.m->def_window, o->duration,
	    (long)(o->loss_ppm >= 0 ? o->loss_ppm : cli.m->def_loss_ppm),
	    o->loss_ppm >= 0 ? "" : " (test default)",
	    o->peers ? o->peers : 2, o->interval_ms, (unsigned long)o->seed,
	    o->cc >= 0 ? perf_cc_name(o->cc) : "of the configuration",
	    o->spray < 0 ? "(config)" : perf_spray_name(o->spray),
	    o->ulp == PERF_ULP_SES ? "ses" : "raw", perf_op_name(o->op),
	    o->tagged ? ", tagged" : "", o->verify ? ", verify" : "");
	for (unsigned int k = 0; k < UET_CONFIG_FAULT_KINDS; k++)
		if (o->fault_ppm[k])
			cli_out("fault %s %u ppm on the senders' data\n",
			    perf_fault_name(k), o->fault_ppm[k]);
	if (o->fab.on)
		cli_out("fabric on (%s), pattern %s, flow size %llu: start "
		    "runs it instead of the test\n", o->fab.spec != NULL ?
		    o->fab.spec : "[fabric] defaults",
		    o->fab.pattern != NULL ? o->fab.pattern->name :
		    "permutation", (unsigned long long)(o->fab.flow_size ?
		    o->fab.flow_size : 2ull << 20));
	cli_show_runs();
}

void
cli_show_stats(void)
{
	if (cli.s == NULL) {
		cli_err("show stats: no run yet (start one)");
		return;
	}
	if (cli.running) {
		perf_sess_counters_print(cli.s, stdout);
		fflush(stdout);
		return;
	}
	cli.m->print(&cli.rep, stdout);
	cli_out("messages %lu delivered of %lu sent, %lu B, "
	    "retransmissions %lu, frames %lu, %s%s\n", (unsigned long)cli.rep.rx.rx_msgs,
	    (unsigned long)cli.rep.tx.msgs_sent,
	    (unsigned long)cli.rep.rx.rx_bytes, (unsigned long)cli.rep.retx,
	    (unsigned long)cli.rep.tx_frames,
	    cli.rep.complete ? "complete" : "incomplete",
	    cli.rep.stopped ? " (stopped)" : "");
	cli_show_runs();
}

static const char *
pdc_state(uint8_t s)
{
	static const char *const n[] = { "?", "SYN", "OPEN", "CLOSING",
					 "CLOSED" };

	return s < RTE_DIM(n) ? n[s] : "?";
}

struct show_pdc_arg {
	const struct uet_pds *pds;
	unsigned int nb;
};

static int
show_one_pdc(const struct uet_pds_pdc_info *i, void *arg)
{
	struct show_pdc_arg *a = arg;
	struct uet_pds_cc_info cc;

	a->nb++;
	if (uet_pds_cc_info_get(a->pds, i->handle, &cc) != 0)
		memset(&cc, 0, sizeof(cc));
	cli_out("  pdc %u %s %s %s peer %u.%u.%u.%u lid %u rid %u tx una "
	    "%u nxt %u inflight %u B retx %u cwnd %u rx cack %u ooo %u\n", i->handle,
	    i->role ? "target" : "initiator", pdc_state(i->state),
	    perf_pds_name(i->mode), i->peer.addr[0], i->peer.addr[1],
	    i->peer.addr[2], i->peer.addr[3], i->lid, i->rid, i->tx_una,
	    i->tx_nxt, i->tx_inflight, i->tx_retransmits, i->cwnd, i->rx_cack,
	    i->rx_ooo);
	/* NSCC context (shared per peer and TC) and RCCC credit */
	cli_out("    cc cwnd %u B inflight %d B credit %u B base_rtt %u ns "
	    "avg delay %u ns max_wnd %u B context %d (%u PDCs)\n", cc.cwnd,
	    cc.inflight, cc.credit, cc.base_rtt_ns, cc.avg_delay_ns,
	    cc.max_wnd, cc.ctx == UINT32_MAX ? -1 : (int)cc.ctx,
	    cc.ctx_refs);
	return 0;
}

void
cli_show_pdc(void)
{
	if (cli.s == NULL) {
		cli_err("show pdc: no engines yet (start a run)");
		return;
	}
	for (unsigned int e = 0; e < perf_sess_nb_engines(cli.s); e++) {
		struct uet_ulp_ctx *c =
			uet_ulp_ctx_get(perf_sess_engine(cli.s, e), 0);
		struct show_pdc_arg a = { .pds = uet_ulp_ctx_pds(c) };

		cli_out("%s engine%s:\n", e == 0 ? "receiver" : "sender",
		    e == 0 ? "" : "s");
		(void)uet_pds_pdc_foreach(a.pds, show_one_pdc, &a);
		if (a.nb == 0)
			cli_out("  no PDC\n");
	}
}

void
cli_show_port(void)
{
	if (cli.s == NULL) {
		cli_err("show port: no ports in use yet (start a run)");
		return;
	}
	for (unsigned int e = 0; e < perf_sess_nb_engines(cli.s); e++) {
		uint16_t pid = uet_engine_port_id(perf_sess_engine(cli.s, e), 0);
		struct rte_eth_stats st;
		char name[RTE_ETH_NAME_MAX_LEN] = "?";

		(void)rte_eth_dev_get_name_by_port(pid, name);
		if (rte_eth_stats_get(pid, &st) < 0) {
			cli_err("show port: port %u: no statistics", pid);
			continue;
		}
		cli_out("port %u (%s, %s): rx %" PRIu64 " pkts %" PRIu64
		    " B, tx %" PRIu64 " pkts %" PRIu64 " B, rx missed %" PRIu64 ", rx "
		    "errors %" PRIu64 ", tx errors %" PRIu64 "\n", pid, name,
		    e == 0 ? "receiver" : "sender", st.ipackets, st.ibytes,
		    st.opackets, st.obytes, st.imissed, st.ierrors,
		    st.oerrors);
	}
}

void
cli_show_port_info(void)
{
	if (cli.s == NULL) {
		cli_err("show port info: no ports in use yet (start a run)");
		return;
	}
	for (unsigned int e = 0; e < perf_sess_nb_engines(cli.s); e++) {
		uint16_t pid = uet_engine_port_id(perf_sess_engine(cli.s, e), 0);
		struct rte_eth_dev_info di;
		struct rte_ether_addr mac;
		struct rte_eth_link link;
		char name[RTE_ETH_NAME_MAX_LEN] = "?";
		char macs[RTE_ETHER_ADDR_FMT_SIZE] = "?";
		uint16_t mtu = 0;

		if (rte_eth_dev_info_get(pid, &di) < 0) {
			cli_err("show port info: port %u: no information", pid);
			continue;
		}
		(void)rte_eth_dev_get_name_by_port(pid, name);
		if (rte_eth_macaddr_get(pid, &mac) == 0)
			rte_ether_format_addr(macs, sizeof(macs), &mac);
		(void)rte_eth_dev_get_mtu(pid, &mtu);
		memset(&link, 0, sizeof(link));
		(void)rte_eth_link_get_nowait(pid, &link);
		cli_out("port %u (%s, %s): driver %s, MAC %s, link %s %u Mbps, "
		    "MTU %u, rx queues %u, tx queues %u, socket %d\n", pid,
		    name, e == 0 ? "receiver" : "sender", di.driver_name,
		    macs, link.link_status ? "up" : "down", link.link_speed,
		    mtu, di.nb_rx_queues, di.nb_tx_queues,
		    rte_eth_dev_socket_id(pid));
	}
}
