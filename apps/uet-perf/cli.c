/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Interactive uet-perf (-i), testpmd style, on DPDK's cmdline library.
 * `start` sets up the configured test (in-process engines, session.c)
 * and returns to the prompt; the main loop polls the engines between
 * keystrokes, prints a live statistics line every interval and the
 * summary at the end; `stop` ends a run early. When stdin is not a
 * terminal (a script), `start` runs to its end before the next command
 * is read, so scripts are deterministic. Bad values and unknown commands
 * print one line and the prompt continues.
 */

#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <cmdline.h>
#include <cmdline_parse.h>
#include <cmdline_parse_string.h>
#include <cmdline_rdline.h>
#include <cmdline_socket.h>

#include <rte_ethdev.h>

#include <uet/uet_pds.h>

#include "perf.h"

#define CLI_PROMPT "uet-perf> "
/* rdline keeps at most this much of a line (RDLINE_BUF_SIZE) */
#define CLI_LINE_MAX 512

struct cli {
	struct perf_opts o;
	const struct perf_mode *m;  /* test of the next start */
	struct perf_sess *s;        /* last or running session */
	struct perf_report rep;
	struct cmdline *cl;
	bool running;
	bool have_report;
	bool tty;
	uint64_t errors;            /* rejected commands (counter) */
	uint64_t runs;              /* runs started (counter) */
	uint64_t runs_failed;       /* ... not verified or not set up */
	const char *last;           /* the last run's test, NULL: none */
	const char *last_result;    /* ... "verified" or how it failed */
};

static struct cli cli;

static void __attribute__((format(printf, 1, 2)))
out(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	fflush(stdout);
}

static void __attribute__((format(printf, 1, 2)))
err(const char *fmt, ...)
{
	va_list ap;

	cli.errors++;
	fputs("error: ", stdout);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	fputc('\n', stdout);
	fflush(stdout);
}

/* ------------------------------------------------------------------ */
/* runs                                                                */
/* ------------------------------------------------------------------ */

/* A run ended (or could not start): counted; a failed one makes the
 * prompt exit 1 at the end, as a batch run would. */
static void
run_result(const char *test, bool ok, const char *failure)
{
	cli.runs++;
	cli.last = test;
	cli.last_result = ok ? "verified" : failure;
	if (!ok)
		cli.runs_failed++;
}

static void
run_finish(void)
{
	perf_sess_end(cli.s);
	cli.running = false;
	cli.have_report = true;
	cli.m->print(&cli.rep, stdout);
	run_result(cli.m->name, cli.rep.verified, "FAILED verification");
	out("%s: %s\n", cli.m->name, cli.rep.verified ? "done, verified" :
	    "done, NOT verified");
}

/* show stats / show config: how the runs so far went. */
static void
show_runs(void)
{
	if (cli.last == NULL) {
		out("runs: none yet\n");
		return;
	}
	out("runs: %lu, %lu failed; the last (%s) %s%s\n",
	    (unsigned long)cli.runs, (unsigned long)cli.runs_failed, cli.last,
	    cli.last_result, cli.runs_failed ? " (exit status 1 at quit)" :
	    "");
}

/* A --fabric run, synchronous (fabric.c); JSON and CSV are batch-only. */
static void
fabric_start(void)
{
	struct perf_opts o = cli.o;
	int rc;

	o.json = false;
	o.json_path = NULL;
	o.csv_file = NULL;
	if (perf_fabric_check(&o) != 0) {
		err("start: fabric settings refused (above)");
		return;
	}
	out("fabric %s started\n", o.fab.pattern->name);
	rc = perf_fabric_main(&o);
	run_result("fabric", rc == 0, "FAILED verification");
	out("fabric: %s\n", rc == 0 ? "done, verified" :
	    "done, NOT verified");
}

static void
cmd_start(void)
{
	if (cli.running) {
		err("start: a %s run is in progress (stop it first)",
		    cli.m->name);
		return;
	}
	if (cli.o.fab.on) {
		fabric_start();
		return;
	}
	if (cli.o.ulp == PERF_ULP_SES &&
	    perf_ses_unsupported(cli.m, &cli.o) != NULL) {
		err("start: %s over ses: %s", cli.m->name,
		    perf_ses_unsupported(cli.m, &cli.o));
		return;
	}
	perf_sess_free(cli.s);
	cli.s = NULL;
	cli.have_report = false;
	cli.s = perf_sess_begin(cli.m, &cli.o, &cli.rep);
	if (cli.s == NULL) {
		run_result(cli.m->name, false, "FAILED: could not be set up");
		err("start: setup failed");
		return;
	}
	cli.running = true;
	out("%s started: pds %s, size %u, count %lu, window %u, loss %u ppm, "
	    "ulp %s%s\n", cli.m->name, cli.rep.pds, cli.rep.size,
	    (unsigned long)cli.rep.count, cli.rep.window, cli.rep.loss_ppm,
	    cli.o.ulp == PERF_ULP_SES ? "ses" : "raw",
	    cli.o.duration > 0 ? ", duration bound" : "");
	if (!cli.tty) { /* scripts: the run ends before the next command */
		while (perf_sess_step(cli.s))
			;
		run_finish();
	}
}

static void
cmd_stop(void)
{
	if (!cli.running) {
		err("stop: no run in progress");
		return;
	}
	perf_sess_stop(cli.s);
	out("%s: stopping (outstanding messages complete)\n", cli.m->name);
}

/* ------------------------------------------------------------------ */
/* show                                                                */
/* ------------------------------------------------------------------ */

static void
show_config(void)
{
	const struct perf_opts *o = &cli.o;

	out("test %s, pds %s, size %u, count %lu, window %u, duration %.3f s,"
	    " loss %ld ppm%s, peers %u, interval %u ms, seed %lu, cc %s, "
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
			out("fault %s %u ppm on the senders' data\n",
			    perf_fault_name(k), o->fault_ppm[k]);
	if (o->fab.on)
		out("fabric on (%s), pattern %s, flow size %llu: start runs "
		    "it instead of the test\n", o->fab.spec != NULL ?
		    o->fab.spec : "[fabric] defaults",
		    o->fab.pattern != NULL ? o->fab.pattern->name :
		    "permutation", (unsigned long long)(o->fab.flow_size ?
		    o->fab.flow_size : 2ull << 20));
	show_runs();
}

static void
show_stats(void)
{
	if (cli.s == NULL) {
		err("show stats: no run yet (start one)");
		return;
	}
	if (cli.running) {
		perf_sess_counters_print(cli.s, stdout);
		fflush(stdout);
		return;
	}
	cli.m->print(&cli.rep, stdout);
	out("messages %lu delivered of %lu sent, %lu B, retransmissions %lu,"
	    " frames %lu, %s%s\n", (unsigned long)cli.rep.rx.rx_msgs,
	    (unsigned long)cli.rep.tx.msgs_sent,
	    (unsigned long)cli.rep.rx.rx_bytes, (unsigned long)cli.rep.retx,
	    (unsigned long)cli.rep.tx_frames,
	    cli.rep.complete ? "complete" : "incomplete",
	    cli.rep.stopped ? " (stopped)" : "");
	show_runs();
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
	out("  pdc %u %s %s %s peer %u.%u.%u.%u lid %u rid %u tx una %u nxt "
	    "%u inflight %u B retx %u cwnd %u rx cack %u ooo %u\n", i->handle,
	    i->role ? "target" : "initiator", pdc_state(i->state),
	    perf_pds_name(i->mode), i->peer.addr[0], i->peer.addr[1],
	    i->peer.addr[2], i->peer.addr[3], i->lid, i->rid, i->tx_una,
	    i->tx_nxt, i->tx_inflight, i->tx_retransmits, i->cwnd, i->rx_cack,
	    i->rx_ooo);
	/* NSCC context (shared per peer and TC) and RCCC credit */
	out("    cc cwnd %u B inflight %d B credit %u B base_rtt %u ns "
	    "avg delay %u ns max_wnd %u B context %d (%u PDCs)\n", cc.cwnd,
	    cc.inflight, cc.credit, cc.base_rtt_ns, cc.avg_delay_ns,
	    cc.max_wnd, cc.ctx == UINT32_MAX ? -1 : (int)cc.ctx,
	    cc.ctx_refs);
	return 0;
}

static void
show_pdc(void)
{
	if (cli.s == NULL) {
		err("show pdc: no engines yet (start a run)");
		return;
	}
	for (unsigned int e = 0; e < perf_sess_nb_engines(cli.s); e++) {
		struct uet_ulp_ctx *c =
			uet_ulp_ctx_get(perf_sess_engine(cli.s, e), 0);
		struct show_pdc_arg a = { .pds = uet_ulp_ctx_pds(c) };

		out("%s engine%s:\n", e == 0 ? "receiver" : "sender",
		    e == 0 ? "" : "s");
		(void)uet_pds_pdc_foreach(a.pds, show_one_pdc, &a);
		if (a.nb == 0)
			out("  no PDC\n");
	}
}

static void
show_port(void)
{
	if (cli.s == NULL) {
		err("show port: no ports in use yet (start a run)");
		return;
	}
	for (unsigned int e = 0; e < perf_sess_nb_engines(cli.s); e++) {
		uint16_t pid = uet_engine_port_id(perf_sess_engine(cli.s, e), 0);
		struct rte_eth_stats st;
		char name[RTE_ETH_NAME_MAX_LEN] = "?";

		(void)rte_eth_dev_get_name_by_port(pid, name);
		if (rte_eth_stats_get(pid, &st) < 0) {
			err("show port: port %u: no statistics", pid);
			continue;
		}
		out("port %u (%s, %s): rx %" PRIu64 " pkts %" PRIu64 " B, tx %"
		    PRIu64 " pkts %" PRIu64 " B, rx missed %" PRIu64 ", rx "
		    "errors %" PRIu64 ", tx errors %" PRIu64 "\n", pid, name,
		    e == 0 ? "receiver" : "sender", st.ipackets, st.ibytes,
		    st.opackets, st.obytes, st.imissed, st.ierrors,
		    st.oerrors);
	}
}

static void
show_port_info(void)
{
	if (cli.s == NULL) {
		err("show port info: no ports in use yet (start a run)");
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
			err("show port info: port %u: no information", pid);
			continue;
		}
		(void)rte_eth_dev_get_name_by_port(pid, name);
		if (rte_eth_macaddr_get(pid, &mac) == 0)
			rte_ether_format_addr(macs, sizeof(macs), &mac);
		(void)rte_eth_dev_get_mtu(pid, &mtu);
		memset(&link, 0, sizeof(link));
		(void)rte_eth_link_get_nowait(pid, &link);
		out("port %u (%s, %s): driver %s, MAC %s, link %s %u Mbps, "
		    "MTU %u, rx queues %u, tx queues %u, socket %d\n", pid,
		    name, e == 0 ? "receiver" : "sender", di.driver_name,
		    macs, link.link_status ? "up" : "down", link.link_speed,
		    mtu, di.nb_rx_queues, di.nb_tx_queues,
		    rte_eth_dev_socket_id(pid));
	}
}

/* ------------------------------------------------------------------ */
/* set                                                                 */
/* ------------------------------------------------------------------ */

static int
set_u64(const char *key, const char *v, uint64_t min, uint64_t max,
	uint64_t *out_v)
{
	struct uet_parse_err e;

	if (uet_parse_u64(v, min, max, out_v, &e) < 0) {
		err("set %s: %s", key, e.msg);
		return -EINVAL;
	}
	return 0;
}

/* set cc: the congestion control of the next run (docs/CONFIG.md, [cc]). */
static int
parse_cc(const char *v, struct perf_opts *o)
{
	if (perf_parse_cc(v, &o->cc) == 0)
		return 0;
	err("set cc: unknown '%s' (fixed, nscc, rccc or nscc+rccc)", v);
	return -EINVAL;
}

/* The settings @p o as a fabric run takes them (perf_fabric_check, which
 * prints why not): the test's count, duration, loss and peers are not
 * the fabric's. */
static bool
fabric_refused(const struct perf_opts *o)
{
	struct perf_opts t = *o;

	t.fab.on = true;
	t.count = 0;
	t.duration = 0;
	t.loss_ppm = -1;
	t.peers = 0;
	return perf_fabric_check(&t) != 0;
}

/* set fabric on|off|K=V,...: the pairs checked now, kept for start. */
static int
set_fabric(const char *v, struct perf_opts *o)
{
	static char spec[2][STR_TOKEN_SIZE];
	static unsigned int cur;
	struct perf_opts t = *o;

	if (strcmp(v, "off") == 0) {
		o->fab.on = false;
		return 0;
	}
	t.fab.spec = strcmp(v, "on") == 0 ? NULL : v;
	if (fabric_refused(&t)) {
		err("set fabric: refused (above)");
		return -EINVAL;
	}
	o->fab.on = true;
	o->fab.spec = NULL;
	if (t.fab.spec != NULL) {
		/* two buffers: the previous spec stays valid until cli.o is
		 * replaced */
		cur ^= 1;
		snprintf(spec[cur], sizeof(spec[cur]), "%s", v);
		o->fab.spec = spec[cur];
	}
	return 0;
}

/* Parse "set KEY VALUE" into @p o / @p m; 0 or -EINVAL (error printed). */
static int
parse_set(const char *key, const char *v, struct perf_opts *o,
	  const struct perf_mode **m)
{
	struct uet_parse_err e;
	uint64_t x;

	if (strcmp(key, "mode") == 0) {
		if (perf_parse_pds(v, &o->pds_mode) < 0)
			goto bad_mode;
	} else if (strcmp(key, "test") == 0) {
		unsigned int i;

		for (i = 0; i < PERF_NB_MODES; i++)
			if (strcmp(v, perf_modes[i]->name) == 0)
				break;
		if (i == PERF_NB_MODES) {
			err("set test: expected msgrate, latency, bw or "
			    "incast");
			return -EINVAL;
		}
		*m = perf_modes[i];
	} else if (strcmp(key, "ulp") == 0) {
		if (strcmp(v, "raw") == 0) {
			o->ulp = PERF_ULP_RAW;
		} else if (strcmp(v, "ses") == 0) {
			o->ulp = PERF_ULP_SES;
		} else {
			err("set ulp: expected raw or ses");
			return -EINVAL;
		}
	} else if (strcmp(key, "op") == 0) {
		if (perf_parse_op(v, &o->op) < 0) {
			err("set op: expected send, write or read");
			return -EINVAL;
		}
	} else if (strcmp(key, "tagged") == 0 || strcmp(key, "verify") == 0) {
		bool on = strcmp(v, "on") == 0;

		if (!on && strcmp(v, "off") != 0) {
			err("set %s: expected on or off", key);
			return -EINVAL;
		}
		if (key[0] == 't')
			o->tagged = on;
		else
			o->verify = on;
	} else if (strcmp(key, "size") == 0) {
		if (uet_parse_size(v, 16, 1u << 24, &x, &e) < 0) {
			err("set size: %s", e.msg);
			return -EINVAL;
		}
		o->size = (uint32_t)x;
	} else if (strcmp(key, "window") == 0) {
		if (set_u64(key, v, 1, 65536, &x) < 0)
			return -EINVAL;
		o->window = (uint32_t)x;
	} else if (strcmp(key, "count") == 0) {
		if (set_u64(key, v, 1, PERF_MAX_COUNT, &o->count) < 0)
			return -EINVAL;
	} else if (strcmp(key, "duration") == 0) {
		if (strcmp(v, "0") == 0) {
			o->duration = 0;
		} else if (uet_parse_duration_ns(v, 1000000,
						 3600ull * 1000000000, &x,
						 &e) < 0) {
			err("set duration: %s (or 0: none)", e.msg);
			return -EINVAL;
		} else {
			o->duration = (double)x / 1e9;
		}
	} else if (strcmp(key, "peers") == 0) {
		if (set_u64(key, v, 1, PERF_MAX_PEERS, &x) < 0)
			return -EINVAL;
		o->peers = (uint32_t)x;
	} else if (strcmp(key, "interval") == 0) {
		if (set_u64(key, v, 0, 3600000, &x) < 0)
			return -EINVAL;
		o->interval_ms = (uint32_t)x;
	} else if (strcmp(key, "seed") == 0) {
		if (set_u64(key, v, 0, UINT64_MAX, &o->seed) < 0)
			return -EINVAL;
	} else if (strcmp(key, "cc") == 0) {
		return parse_cc(v, o);
	} else if (strcmp(key, "spray") == 0) {
		if (perf_parse_spray(v, &o->spray) < 0) {
			err("set spray: expected single, oblivious or reps");
			return -EINVAL;
		}
	} else if (strcmp(key, "fabric") == 0) {
		return set_fabric(v, o);
	} else if (strcmp(key, "pattern") == 0) {
		o->fab.pattern = perf_pattern_find(v);
		if (o->fab.pattern == NULL) {
			err("set pattern: expected permutation, shift, incast "
			    "or all-to-all");
			return -EINVAL;
		}
	} else if (strcmp(key, "flow-size") == 0) {
		if (uet_parse_size(v, 16, 1ull << 34, &o->fab.flow_size,
				   &e) < 0) {
			err("set flow-size: %s", e.msg);
			return -EINVAL;
		}
	} else if (strcmp(key, "fault") == 0) {
		err("set fault: expected set fault KIND PPM");
		return -EINVAL;
	} else {
		err("set %s: unknown setting (try help)", key);
		return -EINVAL;
	}
	return 0;
bad_mode:
	err("set mode: expected rud, rod, rudi or uud");
	return -EINVAL;
}

/*
 * The settings after `set KEY VALUE` (@p o, @p m), judged as the command
 * line judges its flags (perf_settings_conflict, the same function), or,
 * with the fabric on, as `set fabric` judges them: true (error printed)
 * when the next start could not run them, so that a combination is
 * refused when typed, not at start.
 */
static bool
settings_refused(const char *key, const char *v, const struct perf_opts *o,
		 const struct perf_mode *m)
{
	struct perf_opts t = *o;
	const char *why, *flag;

	if (t.fab.on) {
		/* set fabric checked them already */
		if (strcmp(key, "fabric") == 0 || !fabric_refused(&t))
			return false;
		err("set %s %s: refused by the fabric run (above)", key, v);
		return true;
	}
	t.interactive = true;
	t.modes = 1u << perf_mode_find(m->name, strlen(m->name));
	why = perf_settings_conflict(&t, strcmp(key, "op") == 0 ?
				     PERF_SET_OP : 0, &flag);
	if (why == NULL)
		return false;
	err("set %s %s: with the other settings (show config), %s: %s", key,
	    v, flag, why);
	return true;
}

static void
cmd_set(const char *key, const char *v)
{
	struct perf_opts o = cli.o;
	const struct perf_mode *m = cli.m;

	/* the arguments first: a bad one is reported as such, running or
	 * not */
	if (parse_set(key, v, &o, &m) < 0)
		return;
	if (cli.running) {
		err("set %s: a run is in progress (stop it first)", key);
		return;
	}
	if (settings_refused(key, v, &o, m))
		return;
	cli.o = o;
	cli.m = m;
	out("%s = %s\n", key, v);
}

static void
cmd_set_fault(const char *kind, const char *rate)
{
	struct uet_parse_err e;
	unsigned int k;
	uint32_t ppm;

	for (k = 0; k < UET_CONFIG_FAULT_KINDS; k++)
		if (strcmp(kind, perf_fault_name(k)) == 0)
			break;
	if (k == UET_CONFIG_FAULT_KINDS) {
		err("set fault: kind '%s': expected drop, dup, reorder, "
		    "delay, ecn, trim or corrupt", kind);
		return;
	}
	if (uet_parse_u32(rate, 0, 1000000, &ppm, &e) < 0) {
		err("set fault %s: rate (ppm): %s", kind, e.msg);
		return;
	}
	if (cli.running) {
		err("set fault: a run is in progress (stop it first)");
		return;
	}
	if (k == UET_CONFIG_FAULT_DROP)
		cli.o.loss_ppm = ppm;
	else
		cli.o.fault_ppm[k] = ppm;
	out("fault %s = %u ppm on the senders' data\n", kind, ppm);
}

/* ------------------------------------------------------------------ */
/* cmdline glue                                                        */
/* ------------------------------------------------------------------ */

struct res_word {
	cmdline_fixed_string_t word;
};

struct res_show {
	cmdline_fixed_string_t show;
	cmdline_fixed_string_t what;
};

struct res_show_port {
	cmdline_fixed_string_t show;
	cmdline_fixed_string_t port;
	cmdline_fixed_string_t what;
	cmdline_fixed_string_t all;
};

struct res_set {
	cmdline_fixed_string_t set;
	cmdline_fixed_string_t key;
	cmdline_fixed_string_t val;
};

struct res_fault {
	cmdline_fixed_string_t set;
	cmdline_fixed_string_t fault;
	cmdline_fixed_string_t kind;
	cmdline_fixed_string_t rate;
};

struct res_line {
	cmdline_multi_string_t line;
};

static void
cb_word(void *res, struct cmdline *cl, void *data)
{
	const struct res_word *r = res;

	(void)data;
	if (strcmp(r->word, "start") == 0) {
		cmd_start();
	} else if (strcmp(r->word, "stop") == 0) {
		cmd_stop();
	} else if (strcmp(r->word, "quit") == 0) {
		if (cli.running)
			perf_sess_stop(cli.s);
		cmdline_quit(cl);
	} else {
		out("commands (TAB completes, ? lists the choices):\n"
		    "  start                 run the configured test\n"
		    "  stop                  end the run (outstanding messages "
		    "complete)\n"
		    "  show stats|pdc|port|config\n"
		    "  show port stats all | show port info all\n"
		    "  set test msgrate|latency|bw|incast\n"
		    "  set mode rud|rod|rudi|uud   PDS delivery mode\n"
		    "  set ulp raw|ses       traffic source (ses: rud, rod)\n"
		    "  set op send|write|read      bw over the SES\n"
		    "  set tagged on|off | verify on|off   SES sends, checks\n"
		    "  set size N | window N | count N | duration T (0: none)\n"
		    "  set peers N           incast senders (1..8)\n"
		    "  set interval MS       live statistics period (0: off)\n"
		    "  set seed N\n"
		    "  set fault drop|dup|reorder|delay|ecn|trim|corrupt PPM\n"
		    "  set cc NAME           fixed | nscc | rccc | nscc+rccc\n"
		    "  set spray single|oblivious|reps  load balancing\n"
		    "  set fabric on|off|K=V,...   start runs the pattern over "
		    "the emulated\n"
		    "                        fabric ([fabric] keys; X@T for "
		    "schedule times)\n"
		    "  set pattern permutation|shift|incast|all-to-all\n"
		    "  set flow-size BYTES   bytes per flow of a fabric run\n"
		    "  help | quit\n");
	}
}

static void
cb_show(void *res, struct cmdline *cl, void *data)
{
	const struct res_show *r = res;

	(void)cl;
	(void)data;
	if (strcmp(r->what, "stats") == 0)
		show_stats();
	else if (strcmp(r->what, "pdc") == 0)
		show_pdc();
	else if (strcmp(r->what, "port") == 0)
		show_port();
	else if (strcmp(r->what, "config") == 0)
		show_config();
	else
		err("show %s: expected stats, pdc, port or config", r->what);
}

static void
cb_show_port(void *res, struct cmdline *cl, void *data)
{
	const struct res_show_port *r = res;

	(void)cl;
	(void)data;
	if (strcmp(r->all, "all") != 0)
		err("show port %s %s: expected all (every port in use)",
		    r->what, r->all);
	else if (strcmp(r->what, "stats") == 0)
		show_port();
	else if (strcmp(r->what, "info") == 0)
		show_port_info();
	else
		err("show port %s: expected stats or info", r->what);
}

static void
cb_set(void *res, struct cmdline *cl, void *data)
{
	const struct res_set *r = res;

	(void)cl;
	(void)data;
	cmd_set(r->key, r->val);
}

static void
cb_fault(void *res, struct cmdline *cl, void *data)
{
	const struct res_fault *r = res;

	(void)cl;
	(void)data;
	cmd_set_fault(r->kind, r->rate);
}

/* ---- token types: TAB completes a choice, the handler judges the word */

/* Any word; the completion offers the '#'-separated choices of the
 * token's string (a bad word reaches the handler, which says what is
 * expected, instead of cmdline's bare "Bad arguments"). */
static int
hint_parse(cmdline_parse_token_hdr_t *tk, const char *buf, void *res,
	   unsigned int ressize)
{
	static struct cmdline_token_string any = {
		.hdr = { .ops = &cmdline_token_string_ops },
		.string_data = { .str = NULL },
	};

	(void)tk;
	return cmdline_parse_string(&any.hdr, buf, res, ressize);
}

static struct cmdline_token_ops hint_ops = {
	.parse = hint_parse,
	.complete_get_nb = cmdline_complete_get_nb_string,
	.complete_get_elt = cmdline_complete_get_elt_string,
	.get_help = cmdline_get_help_string,
};

#define TOKEN_HINT(st, field, choices) { \
	.hdr = { .ops = &hint_ops, .offset = offsetof(st, field) }, \
	.string_data = { .str = (choices) }, \
}

#define SET_KEYS "test#mode#ulp#op#tagged#verify#cc#spray#fault#size#" \
		 "window#count#duration#peers#interval#seed#fabric#pattern#" \
		 "flow-size"

/* Any word but a known setting (those have their own instances). */
static int
other_key_parse(cmdline_parse_token_hdr_t *tk, const char *buf, void *res,
		unsigned int ressize)
{
	static struct cmdline_token_string known = {
		.hdr = { .ops = &cmdline_token_string_ops },
		.string_data = { .str = SET_KEYS },
	};

	if (cmdline_parse_string(&known.hdr, buf, NULL, 0) > 0)
		return -1;
	return hint_parse(tk, buf, res, ressize);
}

static struct cmdline_token_ops other_key_ops = {
	.parse = other_key_parse,
	.get_help = cmdline_get_help_string,
};

/* the context below (set before the prompt starts): the rest token
 * tries every other command */
static cmdline_parse_ctx_t *cli_cmds;

static bool
end_of_command(char c)
{
	return c == '\0' || c == '\n' || c == '\r' || c == '#';
}

/* Does instance @p inst take the whole of @p buf? */
static bool
inst_matches(cmdline_parse_inst_t *inst, const char *buf)
{
	for (unsigned int t = 0; inst->tokens[t] != NULL; t++) {
		cmdline_parse_token_hdr_t *tk = inst->tokens[t];
		int n;

		buf += strspn(buf, " \t");
		if (end_of_command(*buf))
			return false;
		n = tk->ops->parse(tk, buf, NULL, 0);
		if (n <= 0)
			return false;
		buf += n;
	}
	buf += strspn(buf, " \t");
	return end_of_command(*buf);
}

/* The rest: a line that no command takes (so that cmdline never answers
 * "Bad arguments" or "Command not found" itself, uncounted). */
static int
rest_parse(cmdline_parse_token_hdr_t *tk, const char *buf, void *res,
	   unsigned int ressize)
{
	size_t n;

	for (unsigned int i = 0; cli_cmds[i] != NULL; i++)
		if (cli_cmds[i]->tokens[0] != tk &&
		    inst_matches(cli_cmds[i], buf))
			return -1;
	n = strcspn(buf, "\r\n"); /* cmdline wants the end of line left */
	while (n > 0 && (buf[n - 1] == ' ' || buf[n - 1] == '\t'))
		n--;
	if (res != NULL && ressize > 0)
		snprintf(res, ressize, "%.*s", (int)n, buf);
	return (int)n;
}

static struct cmdline_token_ops rest_ops = {
	.parse = rest_parse,
};

static void
cb_line(void *res, struct cmdline *cl, void *data)
{
	const struct res_line *r = res;

	(void)cl;
	(void)data;
	err("'%s': unknown command or bad arguments (type help)", r->line);
}

static cmdline_parse_token_string_t tok_word =
	TOKEN_STRING_INITIALIZER(struct res_word, word,
				 "start#stop#help#quit");
static cmdline_parse_inst_t cmd_word = {
	.f = cb_word,
	.help_str = "start | stop | help | quit",
	.tokens = { (void *)&tok_word, NULL },
};

static cmdline_parse_token_string_t tok_show =
	TOKEN_STRING_INITIALIZER(struct res_show, show, "show");
static cmdline_parse_token_string_t tok_show_what =
	TOKEN_HINT(struct res_show, what, "stats#pdc#port#config");
static cmdline_parse_inst_t cmd_show = {
	.f = cb_show,
	.help_str = "show stats|pdc|port|config",
	.tokens = { (void *)&tok_show, (void *)&tok_show_what, NULL },
};

/* testpmd's spelling */
static cmdline_parse_token_string_t tok_sp_show =
	TOKEN_STRING_INITIALIZER(struct res_show_port, show, "show");
static cmdline_parse_token_string_t tok_sp_port =
	TOKEN_STRING_INITIALIZER(struct res_show_port, port, "port");
static cmdline_parse_token_string_t tok_sp_what =
	TOKEN_HINT(struct res_show_port, what, "stats#info");
static cmdline_parse_token_string_t tok_sp_all =
	TOKEN_HINT(struct res_show_port, all, "all");
static cmdline_parse_inst_t cmd_show_port = {
	.f = cb_show_port,
	.help_str = "show port stats|info all",
	.tokens = { (void *)&tok_sp_show, (void *)&tok_sp_port,
		    (void *)&tok_sp_what, (void *)&tok_sp_all, NULL },
};

/* "set KEY VALUE": one instance per key (TAB completes the key, then
 * its values), one for any other key (the handler names it unknown). */
#define SET_KEY(name, keys, vals) \
	static cmdline_parse_token_string_t tok_##name##_set = \
		TOKEN_STRING_INITIALIZER(struct res_set, set, "set"); \
	static cmdline_parse_token_string_t tok_##name##_key = \
		TOKEN_STRING_INITIALIZER(struct res_set, key, keys); \
	static cmdline_parse_token_string_t tok_##name##_val = \
		TOKEN_HINT(struct res_set, val, vals); \
	static cmdline_parse_inst_t cmd_##name = { \
		.f = cb_set, \
		.help_str = "set " keys " VALUE", \
		.tokens = { (void *)&tok_##name##_set, \
			    (void *)&tok_##name##_key, \
			    (void *)&tok_##name##_val, NULL }, \
	}
SET_KEY(set_test, "test", "msgrate#latency#bw#incast");
SET_KEY(set_mode, "mode", "rud#rod#rudi#uud");
SET_KEY(set_ulp, "ulp", "raw#ses");
SET_KEY(set_op, "op", "send#write#read");
SET_KEY(set_onoff, "tagged#verify", "on#off");
SET_KEY(set_cc, "cc", "fixed#none#nscc#rccc#both");
SET_KEY(set_spray, "spray", "single#oblivious#reps");
SET_KEY(set_fault3, "fault", NULL);
SET_KEY(set_num, "size#window#count#duration#peers#interval#seed", NULL);
SET_KEY(set_fab, "fabric", "on#off");
SET_KEY(set_pattern, "pattern", "permutation#shift#incast#all-to-all");
SET_KEY(set_flow, "flow-size", NULL);

static cmdline_parse_token_string_t tok_set =
	TOKEN_STRING_INITIALIZER(struct res_set, set, "set");
static cmdline_parse_token_string_t tok_set_other = {
	.hdr = { .ops = &other_key_ops,
		 .offset = offsetof(struct res_set, key) },
	.string_data = { .str = NULL },
};
static cmdline_parse_token_string_t tok_set_val =
	TOKEN_STRING_INITIALIZER(struct res_set, val, NULL);
static cmdline_parse_inst_t cmd_set_other = {
	.f = cb_set,
	.help_str = "set KEY VALUE (help lists them)",
	.tokens = { (void *)&tok_set, (void *)&tok_set_other,
		    (void *)&tok_set_val, NULL },
};

static cmdline_parse_token_string_t tok_fset =
	TOKEN_STRING_INITIALIZER(struct res_fault, set, "set");
static cmdline_parse_token_string_t tok_fault =
	TOKEN_STRING_INITIALIZER(struct res_fault, fault, "fault");
static cmdline_parse_token_string_t tok_fkind =
	TOKEN_HINT(struct res_fault, kind,
		   "drop#dup#reorder#delay#ecn#trim#corrupt");
static cmdline_parse_token_string_t tok_frate =
	TOKEN_STRING_INITIALIZER(struct res_fault, rate, NULL);
static cmdline_parse_inst_t cmd_fault = {
	.f = cb_fault,
	.help_str = "set fault drop|dup|reorder|delay|ecn|trim|corrupt PPM",
	.tokens = { (void *)&tok_fset, (void *)&tok_fault, (void *)&tok_fkind,
		    (void *)&tok_frate, NULL },
};

static cmdline_parse_token_string_t tok_line = {
	.hdr = { .ops = &rest_ops, .offset = offsetof(struct res_line, line) },
};
static cmdline_parse_inst_t cmd_line = {
	.f = cb_line,
	.help_str = NULL,
	.tokens = { (void *)&tok_line, NULL },
};

/* No two instances take the same line (cmdline refuses it as ambiguous). */
static cmdline_parse_ctx_t cli_ctx[] = {
	(cmdline_parse_inst_t *)&cmd_word,
	(cmdline_parse_inst_t *)&cmd_show,
	(cmdline_parse_inst_t *)&cmd_show_port,
	(cmdline_parse_inst_t *)&cmd_set_test,
	(cmdline_parse_inst_t *)&cmd_set_mode,
	(cmdline_parse_inst_t *)&cmd_set_ulp,
	(cmdline_parse_inst_t *)&cmd_set_op,
	(cmdline_parse_inst_t *)&cmd_set_onoff,
	(cmdline_parse_inst_t *)&cmd_set_cc,
	(cmdline_parse_inst_t *)&cmd_set_spray,
	(cmdline_parse_inst_t *)&cmd_set_fault3,
	(cmdline_parse_inst_t *)&cmd_set_num,
	(cmdline_parse_inst_t *)&cmd_set_fab,
	(cmdline_parse_inst_t *)&cmd_set_pattern,
	(cmdline_parse_inst_t *)&cmd_set_flow,
	(cmdline_parse_inst_t *)&cmd_set_other,
	(cmdline_parse_inst_t *)&cmd_fault,
	(cmdline_parse_inst_t *)&cmd_line,
	NULL,
};

/* Feed what stdin has (up to @p wait_ms for the first byte). */
static int
feed(int wait_ms)
{
	struct pollfd p = { .fd = STDIN_FILENO, .events = POLLIN };
	int st = RDLINE_RUNNING;

	if (poll(&p, 1, wait_ms) <= 0)
		return st;
	do {
		st = cmdline_poll(cli.cl);
		if (st < 0 || st == RDLINE_EXITED)
			return RDLINE_EXITED;
		if (!cli.tty && cli.running)
			break; /* script: finish the run first (cmd_start) */
	} while (poll(&p, 1, 0) > 0);
	return st;
}

/* End of input after a last line without a newline: the line is still a
 * command (rdline keeps it until a newline that never comes). */
static void
last_line(void)
{
	char line[CLI_LINE_MAX];
	const char *rest = rdline_get_buffer(cmdline_get_rdline(cli.cl));

	if (rest == NULL || rest[strspn(rest, " \t\r")] == '\0')
		return;
	snprintf(line, sizeof(line), "%s\n", rest);
	out("\n");
	(void)cmdline_parse(cli.cl, line);
	if (!cli.tty && cli.running) {
		while (perf_sess_step(cli.s))
			;
		run_finish();
	}
}

int
perf_cli_main(struct perf_opts *o)
{
	cli.o = *o;
	if (cli.o.interval_ms == 0)
		cli.o.interval_ms = 1000;
	/* one --mode: that test; else (all, a list) the first */
	cli.m = perf_modes[perf_modes_count(o) == 1 ?
			   __builtin_ctz(o->modes) : 0];
	cli.tty = isatty(STDIN_FILENO) == 1;
	/* the banner before the prompt (cmdline_stdin_new prints it) */
	out("uet-perf interactive: test %s, pds %s (type help)\n",
	    cli.m->name, perf_pds_name(cli.o.pds_mode));
	cli_cmds = cli_ctx;
	cli.cl = cmdline_stdin_new(cli_ctx, CLI_PROMPT);
	if (cli.cl == NULL) {
		fprintf(stderr, "uet-perf: cmdline: cannot start\n");
		return 1;
	}
	for (;;) {
		if (cli.running) {
			if (!perf_sess_step(cli.s)) {
				run_finish();
				rdline_redisplay(cmdline_get_rdline(cli.cl));
			}
			if (feed(0) == RDLINE_EXITED)
				break;
		} else if (feed(100) == RDLINE_EXITED) {
			break;
		}
	}
	last_line();
	if (cli.running) { /* quit or end of input during a run */
		perf_sess_stop(cli.s);
		while (perf_sess_step(cli.s))
			;
		run_finish();
	}
	cmdline_stdin_exit(cli.cl);
	perf_sess_free(cli.s);
	out("\nbye (%lu rejected commands, %lu of %lu runs failed)\n",
	    (unsigned long)cli.errors, (unsigned long)cli.runs_failed,
	    (unsigned long)cli.runs);
	return cli.runs_failed ? 1 : 0;
}
