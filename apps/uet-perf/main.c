/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * uet-perf batch mode: with no arguments, run every mode (msgrate,
 * latency, bw) between two engines in this process, joined by ring ports
 * (rte_eth_from_rings) back to back, both driven inline on this thread,
 * over the raw-PDS test ULP (--ulp raw) or the SES through front-end
 * channels (--ulp ses). See docs/UET-PERF.md. The command line is
 * options.c's; this file verifies and prints a run, brings the EAL up and
 * picks the transport (in process, the prompt, two processes, the
 * emulated fabric) once.
 */

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_common.h>

#include "perf.h"

#define PERF_EAL_DEFAULT "-l 0 --no-huge -m 1024 --no-pci --log-level=4"

/* ------------------------------------------------------------------ */
/* one run                                                             */
/* ------------------------------------------------------------------ */

const char *
perf_verify_why(const struct perf_report *r, uint8_t pds)
{
	const struct test_ulp_result *rx = &r->rx, *tx = &r->tx;
	bool rel = pds == UET_PDS_MODE_RUD || pds == UET_PDS_MODE_ROD;

	if (rx->rx_bad != 0 || tx->rx_bad != 0)
		return "bad payloads delivered";
	if (!r->complete)
		return "the run did not complete";
	if (tx->pkts_done_err != 0 && rel)
		/* the PDS gave up after its retries ([timers]): a peer
		 * silent that long is presumed gone, even if it was only
		 * descheduled and its copy arrives later */
		return "send completions failed";
	if (pds == UET_PDS_MODE_UUD) {
		if (rx->rx_dup != 0)
			return "messages duplicated";
	} else if (rx->rx_lost != 0 || (rel && r->lat_n && tx->rx_lost)) {
		return "messages lost";
	}
	if (rel && (rx->rx_dup != 0 || tx->rx_dup != 0))
		return "messages duplicated";
	if (rel && rx->rx_msgs != r->count)
		return "fewer messages delivered than sent";
	if (rel && (rx->rx_order_err != 0 || tx->rx_order_err != 0))
		return "order errors";
	if (r->ses.on && (r->ses.drv.cqe_err != 0 || r->ses.drv.cqe_bad != 0 ||
			  r->ses.drv.post_fail != 0 ||
			  r->rx.pkts_done_err != 0))
		return "SES completions failed or unexplained";
	return NULL;
}

bool
perf_verify(const struct perf_report *r, uint8_t pds)
{
	return perf_verify_why(r, pds) == NULL;
}

/* ------------------------------------------------------------------ */
/* output                                                              */
/* ------------------------------------------------------------------ */

/* Faults and what RX made of them, when any fault was injected. */
void
perf_verified_print(const struct perf_report *r, FILE *f)
{
	if (r->verified)
		fprintf(f, "  verified: yes\n");
	else
		fprintf(f, "  verified: NO (%s)\n",
			r->why_not != NULL ? r->why_not : "see above");
}

void
perf_wire_print(const struct perf_report *r, FILE *f)
{
	const struct perf_wire *w = &r->wire;
	uint64_t any = w->csum_bad + w->csum_none + w->trimmed + w->malformed;

	for (unsigned int k = 0; k < UET_CONFIG_FAULT_KINDS; k++)
		any += w->fault[k];
	if (any == 0)
		return;
	fprintf(f, "  wire: faults");
	for (unsigned int k = 0; k < UET_CONFIG_FAULT_KINDS; k++)
		fprintf(f, " %s %lu", perf_fault_name(k),
			(unsigned long)w->fault[k]);
	fprintf(f, "; rx checksum bad %lu, missing %lu, trimmed %lu, "
		"malformed %lu\n", (unsigned long)w->csum_bad,
		(unsigned long)w->csum_none, (unsigned long)w->trimmed,
		(unsigned long)w->malformed);
}

void
perf_ses_print(const struct perf_report *r, FILE *f)
{
	const struct perf_ses *x = &r->ses;

	if (!x->on)
		return;
	fprintf(f, "  ses: %s%s, completions %lu ok / %lu errors, fragments "
		"%lu (rebuilt %lu), read responses %lu, sqe held %lu, cq wait "
		"%lu, payload %s\n", perf_op_name(x->op),
		x->tagged ? " (tagged)" : "",
		(unsigned long)(x->ini.msg_ok + x->tgt.msg_ok),
		(unsigned long)x->drv.cqe_err,
		(unsigned long)(x->ini.frag_tx + x->tgt.frag_tx),
		(unsigned long)(x->ini.frag_rebuilt + x->tgt.frag_rebuilt),
		(unsigned long)x->tgt.ret_tx,
		(unsigned long)(x->ini.sqe_held + x->tgt.sqe_held),
		(unsigned long)(x->ini.cq_wait + x->tgt.cq_wait),
		x->payload_checked ? "checked byte by byte" :
				     "sequence numbers only");
}

/* A signal that ends the process: the EAL's runtime directory goes with
 * it (exit handlers do not run), then the default action. With --role,
 * SIGINT and SIGTERM stop the run instead (twoproc.c); SIGPIPE is a
 * reader of stdout or stderr gone (uet-perf | head). */
static void
on_fatal_signal(int sig)
{
	uet_engine_eal_rundir_purge();
	(void)raise(sig); /* SA_RESETHAND: the default action now */
}

static void
fatal_signals(void)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT,
				    SIGPIPE };
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_fatal_signal;
	sa.sa_flags = (int)SA_RESETHAND;
	for (unsigned int i = 0; i < RTE_DIM(sigs); i++)
		(void)sigaction(sigs[i], &sa, NULL);
}

/* EAL of the in-process modes: built-in or [eal] args of --config. */
static int
eal_up(const struct perf_opts *o)
{
	static struct uet_config cfg;
	struct uet_config_error cerr;
	const char *eal = PERF_EAL_DEFAULT;
	int rc;

	if (o->config != NULL) {
		uet_config_init_defaults(&cfg);
		if (uet_config_load(&cfg, o->config, &cerr) < 0 ||
		    uet_config_validate(&cfg, &cerr) < 0) {
			fprintf(stderr, "uet-perf: %s\n", cerr.msg);
			return 2;
		}
		eal = cfg.eal.args;
	}
	if (o->eal_args != NULL)
		eal = o->eal_args;
	rc = uet_engine_eal_init("uet-perf", eal, NULL);
	if (rc < 0) {
		fprintf(stderr, "uet-perf: EAL init failed: %s (the EAL's "
			"lines above say why; EAL options: %s)\n",
			strerror(-rc), eal);
		return 1;
	}
	return 0;
}

/* --capture, or else engine.capture of --config: writable now, or exit 2
 * with one line before any engine runs (the engine opens it again,
 * truncating, for each mode). A --config that does not load is reported
 * where it is used. */
static int
check_capture(struct perf_opts *o)
{
	static struct uet_config cfg;
	struct uet_config_error cerr;
	const char *path = o->capture, *what = "--capture";
	int fd;

	if (path == NULL && o->config != NULL) {
		uet_config_init_defaults(&cfg);
		if (uet_config_load(&cfg, o->config, &cerr) == 0 &&
		    cfg.engine.capture[0] != '\0') {
			path = cfg.engine.capture;
			what = "engine.capture";
		}
	}
	if (path == NULL)
		return 0;
	/* as the engine opens it: never through a link, its user's alone */
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC,
		  0600);
	if (fd < 0) {
		fprintf(stderr, "uet-perf: %s %s: %s\n", what, path,
			strerror(errno));
		return 2;
	}
	close(fd);
	return 0;
}

static int
open_csv(struct perf_opts *o)
{
	if (o->csv == NULL)
		return 0;
	o->csv_file = fopen(o->csv, "w");
	if (o->csv_file == NULL) {
		fprintf(stderr, "uet-perf: --csv %s: %s\n", o->csv,
			strerror(errno));
		return 2;
	}
	o->csv_ses = o->ulp == PERF_ULP_SES;
	if (!o->fab.on) /* the fabric's columns are its own (fabric_report.c) */
		perf_csv_header(o->csv_file, o->csv_ses);
	return 0;
}

/* One JSON line: the run's setting and every test's report. */
static int
batch_json(const struct perf_opts *o, const struct perf_report *rep,
	   unsigned int engines, bool all_ok)
{
	json_t *res = json_object();

	for (unsigned int i = 0; res != NULL && i < PERF_NB_MODES; i++)
		if (o->modes & (1u << i))
			json_object_set_new(res, rep[i].mode,
					    perf_json_report(&rep[i]));
	return perf_json_print(json_pack(
		"{s:s, s:s, s:I, s:b, s:i, s:i, s:s, s:o, s:b}",
		"tool", "uet-perf", "pds", perf_pds_name(o->pds_mode),
		"seed", (json_int_t)o->seed, "inline", true,
		"engines", (int)engines, "threads", 1,
		"ulp", o->ulp == PERF_ULP_SES ? "ses" : "raw",
		"results", res, "verified", all_ok));
}

/* Engines of the largest run: its senders and one receiver. */
static unsigned int
batch_engines(const struct perf_opts *o)
{
	unsigned int n = 1;

	for (unsigned int i = 0; i < PERF_NB_MODES; i++)
		if (o->modes & (1u << i))
			n = RTE_MAX(n, perf_modes[i]->topology->senders(o));
	return n + 1;
}

static int
batch_main(struct perf_opts *o)
{
	static struct perf_report rep[PERF_NB_MODES];
	unsigned int engines = batch_engines(o);
	bool all_ok = true;
	int rc;

	if (!o->json)
		printf("uet-perf: %u engines, 1 thread (inline), ring ports, "
		       "PDS %s, ULP %s, seed %lu\n", engines,
		       perf_pds_name(o->pds_mode),
		       o->ulp == PERF_ULP_SES ? "ses (channels)" : "raw",
		       (unsigned long)o->seed);
	for (unsigned int i = 0; i < PERF_NB_MODES; i++) {
		if (!(o->modes & (1u << i)))
			continue;
		rc = perf_run(perf_modes[i], o, &rep[i]);
		if (rc < 0) {
			fprintf(stderr, "uet-perf: %s: setup failed: %s\n",
				perf_modes[i]->name, strerror(-rc));
			return 1;
		}
		all_ok = all_ok && rep[i].verified;
		if (!o->json) {
			perf_modes[i]->print(&rep[i], stdout);
			fflush(stdout);
		}
	}
	if (o->json && batch_json(o, rep, engines, all_ok) < 0)
		return 1;
	return all_ok ? 0 : 1;
}

static int
twoproc_run(struct perf_opts *o)
{
	return perf_twoproc_main(o);
}

static int
fabric_run(struct perf_opts *o)
{
	return perf_fabric_main(o);
}

/*
 * Where the engines run, chosen once from the options (testpmd's
 * forwarding engines have the same shape): in this process (a batch of
 * modes, or the prompt), one engine in each of two processes, or one per
 * host of the emulated fabric.
 */
struct perf_transport {
	/* before anything runs: 0, or the exit code (error printed) */
	int (*check)(struct perf_opts *o);
	bool eal;                /* EAL up before run (else run brings it) */
	int (*run)(struct perf_opts *o); /* the exit code */
};

static const struct perf_transport perf_transport_batch = {
	.check = check_capture, .eal = true, .run = batch_main,
};
static const struct perf_transport perf_transport_prompt = {
	.check = check_capture, .eal = true, .run = perf_cli_main,
};
static const struct perf_transport perf_transport_twoproc = {
	.check = check_capture, .eal = false, .run = twoproc_run,
};
static const struct perf_transport perf_transport_fabric = {
	.check = perf_fabric_check, .eal = true, .run = fabric_run,
};

static const struct perf_transport *
transport_of(const struct perf_opts *o)
{
	if (o->fab.on)
		return &perf_transport_fabric;
	if (o->role != PERF_ROLE_NONE)
		return &perf_transport_twoproc;
	return o->interactive ? &perf_transport_prompt : &perf_transport_batch;
}

/*
 * "uet-perf EAL-OPTIONS -- OPTIONS", as DPDK applications take them: the
 * words before "--" become one EAL argument string (split on spaces by
 * the engine, so a word cannot hold a space). @return the index of "--"
 * (0: none), or -1 (error printed).
 */
static int
split_eal(int argc, char **argv, char *eal, size_t len)
{
	size_t used = 0;
	int k;

	for (k = 1; k < argc && strcmp(argv[k], "--") != 0; k++)
		;
	if (k == argc)
		return 0;
	eal[0] = '\0';
	for (int i = 1; i < k; i++) {
		int n;

		if (strpbrk(argv[i], " \t\n") != NULL) {
			fprintf(stderr, "uet-perf: EAL option '%s': no spaces "
				"inside one word\n", argv[i]);
			return -1;
		}
		n = snprintf(eal + used, len - used, "%s%s", i > 1 ? " " : "",
			     argv[i]);
		if (n < 0 || (size_t)n >= len - used) {
			fprintf(stderr, "uet-perf: EAL options longer than %zu "
				"characters\n", len - 1);
			return -1;
		}
		used += (size_t)n;
	}
	return k;
}

int
main(int argc, char **argv)
{
	static char eal[UET_CONFIG_STR_LEN];
	const struct perf_transport *t;
	static struct perf_opts o;
	int k, rc;

	k = split_eal(argc, argv, eal, sizeof(eal));
	if (k < 0)
		return 2;
	/* the options after "--"; "--" itself stands in for argv[0] */
	rc = k > 0 ? perf_parse_args(argc - k, argv + k, &o) :
		     perf_parse_args(argc, argv, &o);
	if (rc != 0)
		return rc == 1 ? 0 : 2;
	if (k > 1)
		o.eal_args = eal;
	fatal_signals();
	t = transport_of(&o);
	rc = t->check(&o);
	if (rc == 0)
		rc = open_csv(&o);
	if (rc == 0 && t->eal)
		rc = eal_up(&o);
	if (rc == 0)
		rc = t->run(&o);
	if (o.csv_file != NULL && fclose(o.csv_file) != 0 && rc == 0) {
		fprintf(stderr, "uet-perf: --csv %s: %s\n", o.csv,
			strerror(errno));
		rc = 1;
	}
	return rc;
}
