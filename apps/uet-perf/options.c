/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * uet-perf's command line: the usage text, the options parsed into a
 * struct perf_opts and the combinations refused (one set of rules with
 * `set` at the prompt, perf_settings_conflict()), and the names of the
 * enumerations the options take (PDS mode, spray, congestion control,
 * fault kinds), shared with the prompt (cli.c) and the reports.
 */

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cfgfile.h>
#include <rte_common.h>
#include <rte_version.h>

#include <uet/uet_parse.h>

#include "perf.h"


/* ------------------------------------------------------------------ */
/* command line                                                        */
/* ------------------------------------------------------------------ */

/* Help column of an option's text, and the width of a line. */
#define USAGE_INDENT 17
#define USAGE_WIDTH 78

/* --mode: the names of the mode table (the engines), not a copy. */
static void
usage_modes(FILE *f)
{
	char all[128], in_all[128];

	fprintf(f, "  --mode M       %s | all (%s)\n"
		"%*sor a comma list of them\n",
		perf_mode_names(all, sizeof(all), " | ", false),
		perf_mode_names(in_all, sizeof(in_all), ",", true),
		USAGE_INDENT, "");
}

/* "@p head (default: msgrate 64, ...)": each mode's default size, or
 * count with @p count, from the mode table, wrapped at USAGE_WIDTH. */
static void
usage_mode_defaults(FILE *f, const char *head, bool count)
{
	int col = fprintf(f, "%s (default:", head);

	for (unsigned int i = 0; i < PERF_NB_MODES; i++) {
		const struct perf_mode *m = perf_modes[i];
		char item[64];
		int w;

		if (count)
			w = snprintf(item, sizeof(item), "%s %lu%s", m->name,
				     (unsigned long)m->def_count,
				     m->takes_peers ? " per sender" : "");
		else
			w = snprintf(item, sizeof(item),
				     m->def_size % 1024 ? "%s %u" : "%s %uK",
				     m->name, m->def_size % 1024 ?
				     m->def_size : m->def_size / 1024);
		if (i > 0)
			col += fprintf(f, ",");
		if (col + 1 + w + 1 > USAGE_WIDTH)
			col = fprintf(f, "\n%*s", USAGE_INDENT, "") - 1;
		else
			col += fprintf(f, " ");
		col += fprintf(f, "%s", item);
	}
	fprintf(f, ")\n");
}

static void
usage(FILE *f)
{
	fprintf(f,
"usage: uet-perf [EAL options --] [options]      batch: 2 engines, 1 process\n"
"       uet-perf --mode incast --peers N [options] N senders, 1 receiver\n"
"       uet-perf -i [options]                     interactive prompt\n"
"       uet-perf --role server --config FILE [--ctl [ADDR:]PORT] ...\n"
"       uet-perf --role client --config FILE --ctl HOST:PORT [test]\n"
"  EAL options (-l 0-1 --vdev ... --file-prefix ...), as in every DPDK\n"
"  application, come first and end with --; they replace the built-in\n"
"  EAL arguments and the [eal] args of --config.\n"
"  Without --role: engines in one process (ring ports, inline, 1 core).\n"
"  With --role: one engine per process, ports from --config, a TCP\n"
"  control connection (default port 47592; server --ctl 0 picks one).\n");
	usage_modes(f);
	fprintf(f,
"  --pds P        rud | rod | rudi | uud (default rud)\n");
	usage_mode_defaults(f, "  --size BYTES   message size", false);
	usage_mode_defaults(f, "  --count N      messages", true);
	fprintf(f,
"  --duration T   per mode: submit for T (e.g. 5s) from the moment the\n"
"                 engines run; without --count, for exactly T\n"
"  --window N     raw: packets in flight per sender (default 512, incast\n"
"                 64); ses: operations in flight (msgrate 32, bw 16)\n"
"  --loss PPM     drop rate on the senders' data (default: msgrate 10000,\n"
"                 else 0)\n"
"  --seed N       PDS and fault injection seed (default 1)\n"
"  --spray M      load balancing: single | oblivious | reps (default:\n"
"                 [spray] mode of --config, single)\n"
"  --cc CC        congestion control: fixed | nscc | rccc | nscc+rccc\n"
"                 (default: [cc] algorithm of --config, i.e. fixed)\n"
"  --ulp U        raw (default: raw-PDS test ULP) | ses (the SES ULP\n"
"                 through front-end channels; in-process runs)\n"
"  --op OP        ses, bw: write (default, RMA WRITE into a registered\n"
"                 region) | send | read\n"
"  --tagged       ses: sends are tagged (TSEND / TRECV)\n"
"  --verify       ses: fill and check every payload byte (raw: always)\n"
"  --peers N      incast: senders, 1..8 (default 2)\n"
"  --pdcs N       msgrate, raw: spread the messages over N PDCs (one job\n"
"                 each), close them all after the run; the [engine]\n"
"                 PDC pools must hold N (default 1)\n"
"  --pdc-burst K  with --pdcs: K messages in a row on each PDC before the\n"
"                 next (default 1: one message per PDC in turn)\n"
"  --interval MS  live statistics line every MS ms (default: off; -i 1000)\n"
"  --csv FILE     time series per interval (default interval 1000 ms)\n"
"  --capture FILE pcapng of every frame of the (first) sender's engine,\n"
"                 or of this process's engine with --role; for uet-dump\n"
"  --config FILE  engine configuration ([eal], [timers], [fault], ...)\n"
"  --json [FILE]  print one JSON object with every number (FILE: with\n"
"                 --fabric, written there, the summary still printed)\n"
"  --verbose      print engine, hook and PDS counters after each mode\n"
"  -i, --interactive  prompt (start, stop, show, set ...; type help)\n"
"  --role R       server | client (two processes; needs --config)\n"
"  --ctl A        server: [ADDR:]PORT to listen on (default 0.0.0.0:47592,\n"
"                 0: any free port, printed); client: HOST[:PORT] of it\n"
"  --progress P   auto | inline (default: engine.progress of --config)\n"
"  --idle-sleep-us N  inline: sleep up to N us when idle (default 0)\n"
"  --ctl-timeout T    bound of every control socket step (default 10s)\n"
"                 and of the server's wait for its client (default 60s)\n"
"  --arp          no static neighbour from the exchange (resolve by ARP)\n"
"  --fabric [K=V,...]  run --pattern over the emulated fabric: one engine\n"
"                 per emulated host in this process; K=V are [fabric] keys\n"
"                 of docs/CONFIG.md (hosts=16,spines=4,fail=leaf0-spine1@50us)\n"
"  --pattern P    fabric: permutation (default) | shift | incast | all-to-all;\n"
"                 incast:N, N senders (hosts 1..N; default every other host)\n"
"  --flow-size B  fabric: bytes per flow, whole --size messages (default 2M;\n"
"                 --size defaults to 64K there)\n"
"  --start S      fabric: zero (default: every flow at 0) | staggered:T\n"
"                 (flow i starts at i x T)\n"
"  --clock C      fabric: virtual (default, deterministic) | real (TSC)\n"
"  --sample T     fabric: --csv row every T of emulated time (default 10us)\n"
"  --time-limit T fabric: stop after T of emulated time (default 1s)\n"
"  -h, --help     this text\n"
"  --version      the uet-perf and DPDK versions\n");
}

static int
bad_arg(const char *opt, const char *why)
{
	fprintf(stderr, "uet-perf: %s: %s\n", opt, why);
	usage(stderr);
	return 2;
}

/* An unknown --mode: the names it takes, from the mode table. */
static int
bad_mode(void)
{
	char names[128], why[192];

	snprintf(why, sizeof(why), "expected %s, all or a comma list of "
		 "them", perf_mode_names(names, sizeof(names), ", ", false));
	return bad_arg("--mode", why);
}

/* "all" or a comma-separated list of mode names. */
static int
parse_mode(const char *s, unsigned int *out)
{
	unsigned int set = 0;

	if (strcmp(s, "all") == 0) {
		*out = perf_modes_all();
		return 0;
	}
	while (*s != '\0') {
		size_t n = strcspn(s, ",");
		int i = perf_mode_find(s, n);

		if (i < 0)
			return -EINVAL;
		set |= 1u << i;
		s += n;
		if (*s == ',' && *++s == '\0')
			return -EINVAL;
	}
	if (set == 0)
		return -EINVAL;
	*out = set;
	return 0;
}

int
perf_parse_pds(const char *s, uint8_t *out)
{
	static const char *const names[] = { "rud", "rod", "rudi", "uud" };

	for (unsigned int i = 0; i < RTE_DIM(names); i++)
		if (strcmp(s, names[i]) == 0) {
			*out = (uint8_t)i; /* enum uet_wire_pds_mode order */
			return 0;
		}
	return -EINVAL;
}

/* Index of @p s in @p names (its enum value) and its name back. */
static int
name_index(const char *const *names, unsigned int n, const char *s, int *out)
{
	for (unsigned int i = 0; i < n; i++)
		if (strcmp(s, names[i]) == 0) {
			*out = (int)i;
			return 0;
		}
	return -EINVAL;
}

static const char *
name_of(const char *const *names, unsigned int n, int i)
{
	return i >= 0 && (unsigned int)i < n ? names[i] : "?";
}

/* enum uet_config_spray_mode order */
static const char *const spray_names[] = { "single", "oblivious", "reps" };

int
perf_parse_spray(const char *s, int *out)
{
	return name_index(spray_names, RTE_DIM(spray_names), s, out);
}

const char *
perf_spray_name(int m)
{
	return name_of(spray_names, RTE_DIM(spray_names), m);
}

/* Does the --config file set [@p section] @p key? (false without one;
 * the file loaded already, so it reads) */
bool
perf_config_sets(const struct perf_opts *o, const char *section,
		 const char *key)
{
	static const struct rte_cfgfile_parameters params = {
		.comment_character = '#', /* as uet_config_load() */
	};
	struct rte_cfgfile *f;
	bool set;

	if (o->config == NULL)
		return false;
	f = rte_cfgfile_load_with_params(o->config, CFG_FLAG_EMPTY_VALUES,
					 &params);
	if (f == NULL)
		return false;
	set = rte_cfgfile_has_entry(f, section, key) != 0;
	rte_cfgfile_close(f);
	return set;
}

int
perf_spray_apply(const struct perf_opts *o, struct uet_config *c)
{
	struct uet_config_error err;

	if (o->spray < 0)
		return 0;
	c->spray.mode = (enum uet_config_spray_mode)o->spray;
	if (uet_config_validate(c, &err) < 0) {
		fprintf(stderr, "uet-perf: --spray %s: %s\n",
			perf_spray_name(o->spray), err.msg);
		return -EINVAL;
	}
	return 0;
}

/* enum uet_config_cc_algo order */
static const char *const cc_names[] = { "fixed", "nscc", "rccc",
					"nscc+rccc" };

int
perf_parse_cc(const char *s, int *out)
{
	return name_index(cc_names, RTE_DIM(cc_names), s, out);
}

const char *
perf_cc_name(int cc)
{
	return name_of(cc_names, RTE_DIM(cc_names), cc);
}

int
perf_cc_apply(const struct perf_opts *o, struct uet_config *cfg)
{
	struct uet_pds_cc_cms_config cc;
	const char *why = NULL;

	if (o->cc >= 0)
		cfg->cc.algorithm = (enum uet_config_cc_algo)o->cc;
	if (cfg->cc.algorithm == UET_CONFIG_CC_NONE)
		return 0;
	if (uet_proto_cc_config(cfg, &cc, &why) < 0) {
		fprintf(stderr, "uet-perf: [cc] %s: bad value of %s\n",
			perf_cc_name((int)cfg->cc.algorithm),
			why ? why : "?");
		return -EINVAL;
	}
	return 0;
}

const char *
perf_pds_name(uint8_t m)
{
	static const char *const names[] = { "rud", "rod", "rudi", "uud" };

	return m < RTE_DIM(names) ? names[m] : "?";
}

const char *
perf_fault_name(unsigned int kind)
{
	static const char *const names[UET_CONFIG_FAULT_KINDS] = {
		"drop", "dup", "reorder", "delay", "ecn", "trim", "corrupt",
	};

	return kind < RTE_DIM(names) ? names[kind] : "?";
}

/* Flags that only make sense with (or without) a role. */
static int
check_roles(const struct perf_opts *o, unsigned int twoproc_flags,
	    unsigned int test_flags)
{
	int rc;

	if (o->role == PERF_ROLE_NONE) {
		if (o->ctl != NULL)
			return bad_arg("--ctl", "needs --role server|client");
		if (twoproc_flags)
			return bad_arg("--progress/--idle-sleep-us/"
				       "--ctl-timeout/--arp", "need --role");
		return 0;
	}
	if (o->config == NULL)
		return bad_arg("--role", "needs --config FILE (the ports "
			       "and the local FA)");
	rc = o->ctl != NULL ? perf_ctl_check_spec(o->ctl,
			o->role == PERF_ROLE_SERVER) : 0;
	if (rc == -EHOSTUNREACH)
		return bad_arg("--ctl", o->role == PERF_ROLE_SERVER ?
			       "ADDR is not a numeric address of this host "
			       "(expected [ADDR:]PORT)" :
			       "HOST does not resolve (expected HOST[:PORT])");
	if (rc < 0)
		return bad_arg("--ctl", o->role == PERF_ROLE_SERVER ?
			       "expected [ADDR:]PORT, port 0..65535" :
			       "expected HOST[:PORT] ([IPv6]:PORT), port "
			       "1..65535");
	if (o->role == PERF_ROLE_SERVER && test_flags)
		return bad_arg("--role server", "test parameters (--mode, "
			       "--pds, --size, ...) are given to the client");
	if (o->role == PERF_ROLE_CLIENT && o->ctl == NULL)
		return bad_arg("--role client", "needs --ctl HOST[:PORT]");
	return 0;
}

/* Impossible combinations of otherwise valid flags. */
static int
check_combos(struct perf_opts *o, unsigned int twoproc_flags,
	     unsigned int test_flags, unsigned int ses_flags)
{
	const char *why, *flag;

	why = perf_settings_conflict(o, (ses_flags & 1) ? PERF_SET_OP : 0,
				     &flag);
	if (why != NULL)
		return bad_arg(flag, why);
	if (o->role != PERF_ROLE_NONE) {
		if (o->interactive)
			return bad_arg("--interactive", "runs in one process "
				       "(no --role)");
		if (o->role == PERF_ROLE_SERVER &&
		    (o->csv != NULL || o->interval_ms))
			return bad_arg("--csv/--interval", "are for the client "
				       "(or in-process runs)");
	}
	if (o->interactive && o->json)
		return bad_arg("--json", "is for batch runs (not with -i)");
	if (o->ulp == PERF_ULP_SES && o->role != PERF_ROLE_NONE)
		return bad_arg("--ulp ses", "runs in one process (no --role)");
	if (perf_pdcs_opts_check(o) < 0)
		return bad_arg("--pdcs", "is for --mode msgrate with --ulp raw "
			       "in one process (no --role, --fabric, -i)");
	if (o->pdc_burst > 1 && o->pdcs <= 1)
		return bad_arg("--pdc-burst", "needs --pdcs N > 1");
	if (o->csv != NULL && o->interval_ms == 0)
		o->interval_ms = 1000;
	return check_roles(o, twoproc_flags, test_flags);
}

/* --start zero | staggered:T */
static int
parse_start(const char *s, uint64_t *stagger)
{
	struct uet_parse_err err;

	if (strcmp(s, "zero") == 0) {
		*stagger = 0;
		return 0;
	}
	if (strncmp(s, "staggered:", 10) != 0)
		return bad_arg("--start", "expected zero or staggered:T "
			       "(e.g. staggered:5us)");
	if (uet_parse_duration_ns(s + 10, 1, 1000000000ull, stagger,
				  &err) < 0)
		return bad_arg("--start", err.msg);
	return 0;
}

/* The --fabric options; -1: @p c is not one of them. */

/* --pattern NAME, or incast:N (the first N senders of the incast). */
static int
pattern_arg(struct perf_fabric_opts *f, const char *v)
{
	struct uet_parse_err err;
	uint64_t n;

	f->senders = 0;
	if (strncmp(v, "incast:", 7) == 0) {
		if (uet_parse_u64(v + 7, 1, PERF_FABRIC_MAX_HOSTS - 1, &n,
				  &err) < 0)
			return bad_arg("--pattern", "incast:N takes 1..1023 "
				       "senders");
		f->senders = (uint32_t)n;
		v = "incast";
	}
	f->pattern = perf_pattern_find(v);
	return f->pattern != NULL ? 0 : bad_arg("--pattern",
		"expected permutation, shift, incast[:N] or all-to-all");
}

static int
parse_fabric_opt(int c, int argc, char **argv, struct perf_opts *o)
{
	struct perf_fabric_opts *f = &o->fab;
	struct uet_parse_err err;

	switch (c) {
	case 'F':
		f->on = true;
		/* an optional word: the [fabric] pairs */
		if (optind < argc && argv[optind][0] != '-')
			f->spec = argv[optind++];
		return 0;
	case 'W':
		return pattern_arg(f, optarg);
	case 'Z':
		return uet_parse_size(optarg, 16, 1ull << 34, &f->flow_size,
				      &err) < 0 ? bad_arg("--flow-size",
							  err.msg) : 0;
	case 'Y':
		return parse_start(optarg, &f->stagger_ns);
	case 'K':
		if (strcmp(optarg, "real") != 0 &&
		    strcmp(optarg, "virtual") != 0)
			return bad_arg("--clock", "expected real or virtual");
		f->real_clock = strcmp(optarg, "real") == 0;
		return 0;
	case 'Q':
		return uet_parse_duration_ns(optarg, 100, 1000000000ull,
					     &f->sample_ns, &err) < 0 ?
		       bad_arg("--sample", err.msg) : 0;
	case 'L':
		return uet_parse_duration_ns(optarg, 1000, 3600000000000ull,
					     &f->limit_ns, &err) < 0 ?
		       bad_arg("--time-limit", err.msg) : 0;
	default:
		return -1;
	}
}

/* Fabric-only flags without --fabric, flags --fabric does not take;
 * @p ses_flags: 1 --op, 2 --tagged given. */
static int
check_fabric(struct perf_opts *o, bool mode_given, bool fabric_flags,
	     unsigned int ses_flags)
{
	if (!o->fab.on) {
		if (fabric_flags)
			return bad_arg("--pattern/--flow-size/--start/--clock/"
				       "--sample/--time-limit", "need --fabric");
		if (o->json_path != NULL)
			return bad_arg("--json FILE", "needs --fabric (the "
				       "other runs print JSON to stdout)");
		return 0;
	}
	if (mode_given)
		return bad_arg("--mode", "with --fabric the traffic is "
			       "--pattern");
	if (o->interactive)
		return bad_arg("--fabric", "at the prompt: set fabric ...");
	if ((ses_flags || o->verify) && o->ulp != PERF_ULP_SES)
		return bad_arg("--op/--tagged/--verify", "need --ulp ses");
	if (o->ulp == PERF_ULP_SES && !(ses_flags & 1))
		o->op = PERF_OP_SEND; /* a flow is sends */
	return 0;
}

int
perf_parse_args(int argc, char **argv, struct perf_opts *o)
{
	static const struct option lopts[] = {
		{ "mode", required_argument, NULL, 'm' },
		{ "pds", required_argument, NULL, 'p' },
		{ "size", required_argument, NULL, 's' },
		{ "count", required_argument, NULL, 'c' },
		{ "duration", required_argument, NULL, 'd' },
		{ "window", required_argument, NULL, 'w' },
		{ "loss", required_argument, NULL, 'l' },
		{ "seed", required_argument, NULL, 'S' },
		{ "config", required_argument, NULL, 'f' },
		{ "json", no_argument, NULL, 'j' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'E' },
		{ "role", required_argument, NULL, 'R' },
		{ "ctl", required_argument, NULL, 'C' },
		{ "progress", required_argument, NULL, 'G' },
		{ "cc", required_argument, NULL, 'J' },
		{ "idle-sleep-us", required_argument, NULL, 'I' },
		{ "ctl-timeout", required_argument, NULL, 'T' },
		{ "arp", no_argument, NULL, 'A' },
		{ "peers", required_argument, NULL, 'N' },
		{ "interval", required_argument, NULL, 'V' },
		{ "csv", required_argument, NULL, 'X' },
		{ "capture", required_argument, NULL, 'P' },
		{ "interactive", no_argument, NULL, 'i' },
		{ "ulp", required_argument, NULL, 'U' },
		{ "op", required_argument, NULL, 'O' },
		{ "tagged", no_argument, NULL, 'g' },
		{ "verify", no_argument, NULL, 'y' },
		{ "spray", required_argument, NULL, 'B' },
		{ "fabric", no_argument, NULL, 'F' },
		{ "pattern", required_argument, NULL, 'W' },
		{ "flow-size", required_argument, NULL, 'Z' },
		{ "start", required_argument, NULL, 'Y' },
		{ "clock", required_argument, NULL, 'K' },
		{ "sample", required_argument, NULL, 'Q' },
		{ "time-limit", required_argument, NULL, 'L' },
		{ "pdcs", required_argument, NULL, 'D' },
		{ "pdc-burst", required_argument, NULL, 'u' },
		{ NULL, 0, NULL, 0 },
	};
	unsigned int test_flags = 0; /* client-only flags given */
	unsigned int twoproc_flags = 0; /* two-process flags given */
	unsigned int ses_flags = 0; /* 1: --op, 2: --tagged */
	bool mode_given = false, fabric_flags = false;
	struct uet_parse_err err;
	uint64_t v;
	int c, rc;

	memset(o, 0, sizeof(*o));
	o->modes = perf_modes_all();
	o->pds_mode = UET_PDS_MODE_RUD;
	o->loss_ppm = -1;
	o->seed = 1;
	o->progress = -1;
	o->spray = -1;
	o->cc = -1;
	o->ctl_timeout_ms = 10000;
	o->accept_ms = 60000;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+ih", lopts, NULL)) != -1) {
		rc = parse_fabric_opt(c, argc, argv, o);
		if (rc >= 0) {
			if (rc != 0)
				return rc;
			fabric_flags |= c != 'F';
			continue;
		}
		switch (c) {
		case 'm':
			mode_given = true;
			test_flags |= 1;
			if (parse_mode(optarg, &o->modes) < 0)
				return bad_mode();
			break;
		case 'p':
			test_flags |= 1;
			if (perf_parse_pds(optarg, &o->pds_mode) < 0)
				return bad_arg("--pds", "expected rud, rod, "
					       "rudi or uud");
			break;
		case 's':
			test_flags |= 1;
			if (uet_parse_size(optarg, 16, 1u << 24, &v, &err) < 0)
				return bad_arg("--size", err.msg);
			o->size = (uint32_t)v;
			break;
		case 'c':
			test_flags |= 1;
			if (uet_parse_u64(optarg, 1, PERF_MAX_COUNT, &o->count,
					  &err) < 0)
				return bad_arg("--count", err.msg);
			break;
		case 'd':
			test_flags |= 1;
			if (uet_parse_duration_ns(optarg, 1000000,
						  3600ull * 1000000000, &v,
						  &err) < 0)
				return bad_arg("--duration", err.msg);
			o->duration = (double)v / 1e9;
			break;
		case 'w':
			test_flags |= 1;
			if (uet_parse_u64(optarg, 1, 65536, &v, &err) < 0)
				return bad_arg("--window", err.msg);
			o->window = (uint32_t)v;
			break;
		case 'l':
			test_flags |= 1;
			if (uet_parse_u64(optarg, 0, 1000000, &v, &err) < 0)
				return bad_arg("--loss", err.msg);
			o->loss_ppm = (int64_t)v;
			break;
		case 'S':
			test_flags |= 1;
			if (uet_parse_u64(optarg, 0, UINT64_MAX, &o->seed,
					  &err) < 0)
				return bad_arg("--seed", err.msg);
			break;
		case 'f':
			o->config = optarg;
			break;
		case 'B':
			if (perf_parse_spray(optarg, &o->spray) < 0)
				return bad_arg("--spray", "expected single, "
					       "oblivious or reps");
			break;
		case 'j':
			o->json = true;
			/* an optional word: the file */
			if (optind < argc && argv[optind][0] != '-')
				o->json_path = argv[optind++];
			break;
		case 'v':
			o->verbose = true;
			break;
		case 'h':
			usage(stdout);
			return 1;
		case 'E':
			printf("uet-perf %s (%s)\n", UET_VERSION, rte_version());
			return 1;
		case 'R':
			if (strcmp(optarg, "server") == 0)
				o->role = PERF_ROLE_SERVER;
			else if (strcmp(optarg, "client") == 0)
				o->role = PERF_ROLE_CLIENT;
			else
				return bad_arg("--role", "expected server or "
					       "client");
			break;
		case 'C':
			o->ctl = optarg;
			break;
		case 'J':
			if (perf_parse_cc(optarg, &o->cc) < 0)
				return bad_arg("--cc", "expected fixed, nscc, "
					       "rccc or nscc+rccc");
			break;
		case 'G':
			if (strcmp(optarg, "auto") == 0)
				o->progress = UET_CONFIG_PROGRESS_AUTO;
			else if (strcmp(optarg, "inline") == 0)
				o->progress = UET_CONFIG_PROGRESS_INLINE;
			else
				return bad_arg("--progress", "expected auto "
					       "or inline");
			twoproc_flags |= 1;
			break;
		case 'I':
			if (uet_parse_u32(optarg, 0, 1000000,
					  &o->idle_sleep_us, &err) < 0)
				return bad_arg("--idle-sleep-us", err.msg);
			twoproc_flags |= 1;
			break;
		case 'T':
			if (uet_parse_duration_ns(optarg, 100000000,
						  3600ull * 1000000000, &v,
						  &err) < 0)
				return bad_arg("--ctl-timeout", err.msg);
			o->ctl_timeout_ms = (uint32_t)(v / 1000000);
			o->accept_ms = o->ctl_timeout_ms;
			twoproc_flags |= 1;
			break;
		case 'A':
			o->arp = true;
			twoproc_flags |= 1;
			break;
		case 'N':
			if (uet_parse_u32(optarg, 1, PERF_MAX_PEERS, &o->peers,
					  &err) < 0)
				return bad_arg("--peers", err.msg);
			break;
		case 'V':
			if (uet_parse_u32(optarg, 1, 3600000, &o->interval_ms,
					  &err) < 0)
				return bad_arg("--interval", err.msg);
			break;
		case 'X':
			o->csv = optarg;
			break;
		case 'P':
			if (optarg[0] == '\0' || strlen(optarg) >=
			    sizeof(((struct uet_config_engine *)0)->capture))
				return bad_arg("--capture",
					       "empty or longer than 255 "
					       "characters");
			o->capture = optarg;
			break;
		case 'i':
			o->interactive = true;
			break;
		case 'D':
			test_flags |= 1;
			if (uet_parse_u32(optarg, 1, PERF_MAX_PDCS, &o->pdcs,
					  &err) < 0)
				return bad_arg("--pdcs", err.msg);
			break;
		case 'u':
			test_flags |= 1;
			if (uet_parse_u32(optarg, 1, PERF_MAX_PDC_BURST,
					  &o->pdc_burst, &err) < 0)
				return bad_arg("--pdc-burst", err.msg);
			break;
		case 'U':
			test_flags |= 1;
			if (strcmp(optarg, "raw") == 0)
				o->ulp = PERF_ULP_RAW;
			else if (strcmp(optarg, "ses") == 0)
				o->ulp = PERF_ULP_SES;
			else
				return bad_arg("--ulp", "expected raw or ses");
			break;
		case 'O':
			test_flags |= 1;
			ses_flags |= 1;
			if (perf_parse_op(optarg, &o->op) < 0)
				return bad_arg("--op", "expected write, send "
					       "or read");
			break;
		case 'g':
			test_flags |= 1;
			ses_flags |= 2;
			o->tagged = true;
			break;
		case 'y':
			test_flags |= 1;
			o->verify = true;
			break;
		default:
			return bad_arg(argv[optind - 1] ? argv[optind - 1] :
				       "?", "unknown option or missing value "
				       "(EAL options come first, ended by --)");
		}
	}
	if (optind < argc)
		return bad_arg(argv[optind], "unexpected argument");
	rc = check_fabric(o, mode_given, fabric_flags, ses_flags);
	if (rc != 0 || o->fab.on)
		return rc; /* the rest: perf_fabric_check() */
	return check_combos(o, twoproc_flags, test_flags, ses_flags);
}
