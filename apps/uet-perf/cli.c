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

#include "cli_private.h"

struct cli cli;

void __attribute__((format(printf, 1, 2)))
cli_out(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	fflush(stdout);
}

void __attribute__((format(printf, 1, 2)))
cli_err(const char *fmt, ...)
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

void
cli_run_finish(void)
{
	perf_sess_end(cli.s);
	cli.running = false;
	cli.have_report = true;
	cli.m->print(&cli.rep, stdout);
	run_result(cli.m->name, cli.rep.verified, "FAILED verification");
	cli_out("%s: %s\n", cli.m->name, cli.rep.verified ? "done, verified" :
	    "done, NOT verified");
}

/* show stats / show config: how the runs so far went. */
void
cli_show_runs(void)
{
	if (cli.last == NULL) {
		cli_out("runs: none yet\n");
		return;
	}
	cli_out("runs: %lu, %lu failed; the last (%s) %s%s\n",
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
		cli_err("start: fabric settings refused (above)");
		return;
	}
	cli_out("fabric %s started\n", o.fab.pattern->name);
	rc = perf_fabric_main(&o);
	run_result("fabric", rc == 0, "FAILED verification");
	cli_out("fabric: %s\n", rc == 0 ? "done, verified" :
	    "done, NOT verified");
}

void
cli_start(void)
{
	if (cli.running) {
		cli_err("start: a %s run is in progress (stop it first)",
		    cli.m->name);
		return;
	}
	if (cli.o.fab.on) {
		fabric_start();
		return;
	}
	if (cli.o.ulp == PERF_ULP_SES &&
	    perf_ses_unsupported(cli.m, &cli.o) != NULL) {
		cli_err("start: %s over ses: %s", cli.m->name,
		    perf_ses_unsupported(cli.m, &cli.o));
		return;
	}
	perf_sess_free(cli.s);
	cli.s = NULL;
	cli.have_report = false;
	cli.s = perf_sess_begin(cli.m, &cli.o, &cli.rep);
	if (cli.s == NULL) {
		run_result(cli.m->name, false, "FAILED: could not be set up");
		cli_err("start: setup failed");
		return;
	}
	cli.running = true;
	cli_out("%s started: pds %s, size %u, count %lu, window %u, "
	    "loss %u ppm, ulp %s%s\n", cli.m->name, cli.rep.pds, cli.rep.size,
	    (unsigned long)cli.rep.count, cli.rep.window, cli.rep.loss_ppm,
	    cli.o.ulp == PERF_ULP_SES ? "ses" : "raw",
	    cli.o.duration > 0 ? ", duration bound" : "");
	if (!cli.tty) { /* scripts: the run ends before the next command */
		while (perf_sess_step(cli.s))
			;
		cli_run_finish();
	}
}

void
cli_stop(void)
{
	if (!cli.running) {
		cli_err("stop: no run in progress");
		return;
	}
	perf_sess_stop(cli.s);
	cli_out("%s: stopping (outstanding messages complete)\n", cli.m->name);
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
		cli_start();
	} else if (strcmp(r->word, "stop") == 0) {
		cli_stop();
	} else if (strcmp(r->word, "quit") == 0) {
		if (cli.running)
			perf_sess_stop(cli.s);
		cmdline_quit(cl);
	} else {
		char modes[128];

		cli_out("commands (TAB completes, ? lists the choices):\n"
		    "  start                 run the configured test\n"
		    "  stop                  end the run (outstanding messages "
		    "complete)\n"
		    "  show stats|pdc|port|config\n"
		    "  show port stats all | show port info all\n"
		    "  set test %s\n"
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
		    "  help | quit\n",
		    perf_mode_names(modes, sizeof(modes), "|", false));
	}
}

static void
cb_show(void *res, struct cmdline *cl, void *data)
{
	const struct res_show *r = res;

	(void)cl;
	(void)data;
	if (strcmp(r->what, "stats") == 0)
		cli_show_stats();
	else if (strcmp(r->what, "pdc") == 0)
		cli_show_pdc();
	else if (strcmp(r->what, "port") == 0)
		cli_show_port();
	else if (strcmp(r->what, "config") == 0)
		cli_show_config();
	else
		cli_err("show %s: expected stats, pdc, port or config",
			r->what);
}

static void
cb_show_port(void *res, struct cmdline *cl, void *data)
{
	const struct res_show_port *r = res;

	(void)cl;
	(void)data;
	if (strcmp(r->all, "all") != 0)
		cli_err("show port %s %s: expected all (every port in use)",
		    r->what, r->all);
	else if (strcmp(r->what, "stats") == 0)
		cli_show_port();
	else if (strcmp(r->what, "info") == 0)
		cli_show_port_info();
	else
		cli_err("show port %s: expected stats or info", r->what);
}

static void
cb_set(void *res, struct cmdline *cl, void *data)
{
	const struct res_set *r = res;

	(void)cl;
	(void)data;
	cli_set(r->key, r->val);
}

static void
cb_fault(void *res, struct cmdline *cl, void *data)
{
	const struct res_fault *r = res;

	(void)cl;
	(void)data;
	cli_set_fault(r->kind, r->rate);
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
	cli_err("'%s': unknown command or bad arguments (type help)", r->line);
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
/* the mode table's names: "#msgrate#latency..." past its first '#' */
#define MODE_HINT(name) "#" #name
SET_KEY(set_test, "test", &(PERF_MODES(MODE_HINT))[1]);
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
	cli_out("\n");
	(void)cmdline_parse(cli.cl, line);
	if (!cli.tty && cli.running) {
		while (perf_sess_step(cli.s))
			;
		cli_run_finish();
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
	cli_out("uet-perf interactive: test %s, pds %s (type help)\n",
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
				cli_run_finish();
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
		cli_run_finish();
	}
	cmdline_stdin_exit(cli.cl);
	perf_sess_free(cli.s);
	cli_out("\nbye (%lu rejected commands, %lu of %lu runs failed)\n",
	    (unsigned long)cli.errors, (unsigned long)cli.runs_failed,
	    (unsigned long)cli.runs);
	return cli.runs_failed ? 1 : 0;
}
