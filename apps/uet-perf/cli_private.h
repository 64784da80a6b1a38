/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The uet-perf prompt (cli.c: start, stop and the cmdline glue;
 * cli_show.c: show; cli_set.c: set): its state and what the parts share.
 */

#ifndef UET_PERF_CLI_PRIVATE_H
#define UET_PERF_CLI_PRIVATE_H

#include <stdbool.h>
#include <stdint.h>

#include <cmdline.h>

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

/* The one prompt of the process. */
extern struct cli cli;

/* A line of output / an error (counted in cli.errors), flushed. */
void cli_out(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void cli_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void cli_run_finish(void);
/* show stats / show config: how the runs so far went. */
void cli_show_runs(void);
/* start / stop (cli.c) */
void cli_start(void);
void cli_stop(void);
/* show ... (cli_show.c) */
void cli_show_config(void);
void cli_show_stats(void);
void cli_show_pdc(void);
void cli_show_port(void);
void cli_show_port_info(void);
/* set KEY VALUE, set fault KIND RATE (cli_set.c) */
void cli_set(const char *key, const char *v);
void cli_set_fault(const char *kind, const char *rate);

#endif /* UET_PERF_CLI_PRIVATE_H */
