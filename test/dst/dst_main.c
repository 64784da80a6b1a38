/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * uet-dst: run, replay and shrink deterministic simulations.
 *
 *   uet-dst --seed N [--ops LIST] [--faults LIST] [--shrink] [--trace]
 *   uet-dst --seeds FIRST:LAST [--stop] [--open FILE]   (both included)
 *   uet-dst --replay FILE
 *   uet-dst --replay FILE --expect-fail
 *   any of them with --pds syn_quiet=0|1 (uet_pds_config.syn_quiet)
 *
 * --gen 2 draws plans with generator 2 (every atomic, tagged atomics,
 * PEEK/CLAIM receives, NO_OP, errors on purpose); the default, 1, draws
 * the plans the seeds of seeds.txt and open.txt were found with.
 *
 * --open names the bugs found and not yet fixed (test/dst/open.txt: lines
 * "INVARIANT SEED [--ops LIST] [--faults LIST]"): a seed of the block that
 * such a line names without --ops/--faults must still fail with that
 * invariant (counted "known open"); failing otherwise, or passing, fails
 * the block, so the list cannot go stale. --replay FILE --expect-fail
 * runs such a file: every line must fail with its invariant.
 *
 * A failing seed prints its invariant, the plan and the end of its event
 * trace; --shrink reduces the plan to a minimal one that fails the same
 * invariant and prints the command that replays it. The last line of a
 * batch is "N passed, M failed".
 */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "dst.h"

struct opts {
	uint64_t seed, count;
	uint64_t gen;
	const char *replay, *open;
	bool ops[DST_OPS_MAX], faults[DST_FAULTS_MAX];
	bool have_ops, have_faults;
	bool one, shrink, trace, stop, print_plan, expect_fail;
	int syn_quiet;  /* --pds syn_quiet=0|1; -1: the PDS default */
};

/* Known-open seeds of --open: the invariant each must still fail. */
#define OPEN_MAX 1024
static struct {
	uint64_t seed;
	unsigned int gen;
	char inv[32];
} open_seeds[OPEN_MAX];
static unsigned int nb_open;

static struct dst_sim S;
static struct dst_plan P;

static void
usage(void)
{
	fprintf(stderr,
		"usage: uet-dst --seed N [--ops LIST] [--faults LIST] "
		"[--shrink] [--trace] [--plan] [--gen G]\n"
		"       uet-dst --seeds FIRST:LAST [--stop] [--open FILE] "
		"[--gen G]\n"
		"       uet-dst --replay FILE [--expect-fail] [--pds KEY=VALUE]\n"
		"--seeds FIRST:LAST runs seeds FIRST to LAST, both included "
		"(1:2000 is 2000 seeds)\n"
		"G: plan generator, 1 (default) to %u\n"
		"--pds syn_quiet=0|1 sets uet_pds_config.syn_quiet of every "
		"node (default: the PDS default)\n", DST_GEN_LAST);
}

/* "1,4,7" -> flags; false on a bad list. */
static bool
parse_list(const char *s, bool *set, uint32_t max)
{
	char *end;
	unsigned long v;

	memset(set, 0, max * sizeof(*set));
	if (*s == '\0' || strcmp(s, "none") == 0)
		return true;
	for (;;) {
		errno = 0;
		v = strtoul(s, &end, 10);
		if (errno || end == s || v >= max)
			return false;
		set[v] = true;
		if (*end == '\0')
			return true;
		if (*end != ',')
			return false;
		s = end + 1;
	}
}

static bool
parse_u64(const char *s, uint64_t *v)
{
	char *end;

	errno = 0;
	*v = strtoull(s, &end, 0);
	return errno == 0 && end != s && *end == '\0';
}

/* "--pds KEY=VALUE": the PDS settings a run may change (every node). */
static bool
parse_pds(const char *s, struct opts *o)
{
	if (strcmp(s, "syn_quiet=0") == 0)
		o->syn_quiet = 0;
	else if (strcmp(s, "syn_quiet=1") == 0)
		o->syn_quiet = 1;
	else
		return false;
	return true;
}

static int
parse(int argc, char **argv, struct opts *o)
{
	uint64_t last;
	char *colon;
	int i;

	memset(o, 0, sizeof(*o));
	o->count = 1;
	o->gen = 1;
	o->syn_quiet = -1;
	for (i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (strcmp(a, "--shrink") == 0) {
			o->shrink = true;
		} else if (strcmp(a, "--trace") == 0) {
			o->trace = true;
		} else if (strcmp(a, "--stop") == 0) {
			o->stop = true;
		} else if (strcmp(a, "--plan") == 0) {
			o->print_plan = true;
		} else if (strcmp(a, "--expect-fail") == 0) {
			o->expect_fail = true;
		} else if (v == NULL) {
			fprintf(stderr, "uet-dst: %s needs a value\n", a);
			return -1;
		} else if (strcmp(a, "--seed") == 0) {
			o->one = true;
			if (!parse_u64(v, &o->seed))
				goto bad;
			i++;
		} else if (strcmp(a, "--seeds") == 0) {
			colon = strchr(v, ':');
			if (colon == NULL || colon[1] == '\0')
				goto bad;
			*colon = '\0';
			if (!parse_u64(v, &o->seed) ||
			    !parse_u64(colon + 1, &last) || last < o->seed ||
			    last - o->seed == UINT64_MAX) {
				*colon = ':';
				goto bad;
			}
			o->count = last - o->seed + 1;
			i++;
		} else if (strcmp(a, "--ops") == 0) {
			o->have_ops = true;
			if (!parse_list(v, o->ops, DST_OPS_MAX))
				goto bad;
			i++;
		} else if (strcmp(a, "--faults") == 0) {
			o->have_faults = true;
			if (!parse_list(v, o->faults, DST_FAULTS_MAX))
				goto bad;
			i++;
		} else if (strcmp(a, "--gen") == 0) {
			if (!parse_u64(v, &o->gen) || o->gen < 1 ||
			    o->gen > DST_GEN_LAST)
				goto bad;
			i++;
		} else if (strcmp(a, "--pds") == 0) {
			if (!parse_pds(v, o)) {
				fprintf(stderr, "uet-dst: --pds %s: only "
					"syn_quiet=0 or syn_quiet=1\n", v);
				return -1;
			}
			i++;
		} else if (strcmp(a, "--replay") == 0) {
			o->replay = v;
			i++;
		} else if (strcmp(a, "--open") == 0) {
			o->open = v;
			i++;
		} else {
			fprintf(stderr, "uet-dst: unknown option %s\n", a);
			return -1;
		}
		continue;
bad:
		fprintf(stderr, "uet-dst: bad value for %s: %s\n", a, v);
		return -1;
	}
	return 0;
}

static void
make_plan(struct dst_plan *p, uint64_t seed, const struct opts *o)
{
	struct dst_src src;

	dst_src_seed(&src, seed);
	dst_plan_gen(p, &src, seed, (uint8_t)o->gen);
	dst_plan_filter(p, o->have_ops ? o->ops : NULL,
			o->have_faults ? o->faults : NULL);
}

static void
print_ids(const char *name, const uint8_t *id, uint32_t n)
{
	uint32_t i;

	printf(" %s ", name);
	if (n == 0)
		printf("none");
	for (i = 0; i < n; i++)
		printf("%s%u", i ? "," : "", id[i]);
}

static void
report(const struct dst_plan *p, uint32_t trace_lines)
{
	printf("seed %" PRIu64 " FAILED: %s: %s\n", p->seed, S.inv, S.why);
	dst_plan_print(p, stdout);
	printf("trace (last %u events):\n", trace_lines);
	dst_trace_dump(&S, stdout, trace_lines);
	printf("replay: uet-dst --seed %" PRIu64, p->seed);
	if (p->gen != 1)
		printf(" --gen %u", p->gen);
	if (S.syn_quiet >= 0)
		printf(" --pds syn_quiet=%d", S.syn_quiet);
	print_ids("--ops", p->op_id, p->nop);
	print_ids("--faults", p->fault_id, p->nfault);
	printf("\n");
}

static int
run_one(const struct opts *o)
{
	char inv[sizeof(S.inv)];
	uint32_t runs;

	make_plan(&P, o->seed, o);
	S.trace_live = o->trace;
	if (o->print_plan)
		dst_plan_print(&P, stdout);
	if (dst_run(&S, &P) == 0) {
		printf("seed %" PRIu64 ": ok (%" PRIu64 " packets, %.3f ms "
		       "virtual)\n1 passed, 0 failed\n", o->seed, S.sent,
		       (double)S.now / 1e6);
		return 0;
	}
	report(&P, 80);
	if (o->shrink) {
		snprintf(inv, sizeof(inv), "%s", S.inv);
		runs = dst_shrink(&S, &P, inv, 400);
		printf("\nshrunk in %u runs to %u ops and %u faults:\n", runs,
		       P.nop, P.nfault);
		report(&P, 200);
	}
	printf("0 passed, 1 failed\n");
	return 1;
}

static double
secs(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static const char *
open_inv(uint64_t seed, unsigned int gen)
{
	for (unsigned int i = 0; i < nb_open; i++)
		if (open_seeds[i].seed == seed && open_seeds[i].gen == gen)
			return open_seeds[i].inv;
	return NULL;
}

/* The whole seeds of an --open file, with their generator ("--gen G"
 * the only option); lines with --ops or --faults are for --replay
 * --expect-fail only. @return 0, or -1 on a bad file. */
static int
open_load(const char *path)
{
	char line[1024], inv[32], rest[16], more[16];
	unsigned long long seed;
	FILE *f = fopen(path, "r");
	unsigned int gen;
	int n;

	if (f == NULL) {
		fprintf(stderr, "uet-dst: %s: %s\n", path, strerror(errno));
		return -1;
	}
	while (fgets(line, sizeof(line), f) != NULL) {
		char *hash = strchr(line, '#');

		if (hash != NULL)
			*hash = '\0';
		n = sscanf(line, "%31s %llu %15s %u %15s", inv, &seed, rest,
			   &gen, more);
		if (n <= 0)
			continue;
		if (n < 2 || nb_open == OPEN_MAX) {
			fprintf(stderr, "uet-dst: %s: bad line: %s", path,
				line);
			fclose(f);
			return -1;
		}
		if (n == 2)
			gen = 1;
		else if (n != 4 || strcmp(rest, "--gen") != 0)
			continue;
		open_seeds[nb_open].seed = seed;
		open_seeds[nb_open].gen = gen;
		snprintf(open_seeds[nb_open].inv, sizeof(open_seeds[0].inv),
			 "%s", inv);
		nb_open++;
	}
	fclose(f);
	return 0;
}

static int
run_many(const struct opts *o)
{
	uint64_t k, pass = 0, fail = 0, nopen = 0;
	double t0 = secs(), dt;

	for (k = 0; k < o->count; k++) {
		const char *known;
		bool ok;

		make_plan(&P, o->seed + k, o);
		S.trace_off = true; /* a block prints no trace */
		ok = dst_run(&S, &P) == 0;
		known = open_inv(o->seed + k, (unsigned int)o->gen);
		if (ok && known == NULL) {
			pass++;
			continue;
		}
		if (!ok && known != NULL && strcmp(known, S.inv) == 0) {
			nopen++;
			continue;
		}
		fail++;
		if (ok)
			printf("seed %" PRIu64 " passes now: its %s bug is "
			       "fixed? remove it from %s\n", P.seed, known,
			       o->open);
		else
			printf("seed %" PRIu64 " FAILED: %s: %s\n", P.seed,
			       S.inv, S.why);
		fflush(stdout);
		if (o->stop)
			break;
	}
	dt = secs() - t0;
	printf("seeds %" PRIu64 "..%" PRIu64 ": %.1f s, %.0f seeds/hour\n",
	       o->seed, o->seed + k - (k == o->count), dt,
	       dt > 0 ? (double)(pass + fail + nopen) * 3600 / dt : 0.0);
	if (nopen != 0)
		printf("%" PRIu64 " known open (%s): they fail as listed\n",
		       nopen, o->open);
	printf("%" PRIu64 " passed, %" PRIu64 " failed\n", pass, fail);
	return fail ? 1 : 0;
}

/* Each line: [INVARIANT] SEED [--ops LIST] [--faults LIST] [# comment];
 * with @p expect_fail, INVARIANT first, and the line passes when the run
 * fails with that invariant; without, every line must pass (an open.txt
 * run with a setting that avoids its bugs, --pds syn_quiet=1). */
static int
replay_line(char *line, bool expect_fail, int syn_quiet, uint64_t *pass,
	    uint64_t *fail)
{
	char *argv[12], *tok, *hash = strchr(line, '#'), *inv = NULL;
	struct opts o;
	int argc = 1;

	if (hash != NULL)
		*hash = '\0';
	argv[0] = "uet-dst";
	argv[argc++] = "--seed";
	for (tok = strtok(line, " \t\n"); tok != NULL && argc < 12;
	     tok = strtok(NULL, " \t\n")) {
		/* the invariant an open.txt line leads with: expected with
		 * --expect-fail, else read past (the line must pass: its bug
		 * fixed, or a --pds setting that avoids it) */
		if (inv == NULL && argc == 2 &&
		    (expect_fail || (*tok < '0' || *tok > '9'))) {
			inv = tok;
			continue;
		}
		argv[argc++] = tok;
	}
	if (argc == 2)
		return inv == NULL ? 0 : -1; /* blank or comment */
	if (!expect_fail)
		inv = NULL;
	if (parse(argc, argv, &o) != 0)
		return -1;
	/* the line's --pds, else the command's */
	S.syn_quiet = o.syn_quiet >= 0 ? o.syn_quiet : syn_quiet;
	make_plan(&P, o.seed, &o);
	S.trace_off = true;
	if (dst_run(&S, &P) == 0) {
		if (!expect_fail) {
			(*pass)++;
			return 0;
		}
		(*fail)++;
		printf("seed %" PRIu64 " passes now: its %s bug is fixed? "
		       "move the line to seeds.txt\n", P.seed, inv);
		return 0;
	}
	if (expect_fail && strcmp(inv, S.inv) == 0) {
		(*pass)++;
		return 0;
	}
	(*fail)++;
	/* the same run again, its trace kept this time */
	S.trace_off = false;
	dst_run(&S, &P);
	report(&P, 40);
	return 0;
}

static int
run_replay(const char *path, bool expect_fail, int syn_quiet)
{
	uint64_t pass = 0, fail = 0;
	char line[1024];
	FILE *f = fopen(path, "r");
	int lineno = 0;

	if (f == NULL) {
		fprintf(stderr, "uet-dst: %s: %s\n", path, strerror(errno));
		return 2;
	}
	while (fgets(line, sizeof(line), f) != NULL) {
		lineno++;
		if (replay_line(line, expect_fail, syn_quiet, &pass,
				&fail) != 0) {
			fprintf(stderr, "uet-dst: %s:%d: bad line\n", path,
				lineno);
			fclose(f);
			return 2;
		}
	}
	fclose(f);
	printf("%" PRIu64 " passed, %" PRIu64 " failed\n", pass, fail);
	/* An empty replay list is a mistake; an empty open list is the goal. */
	return fail || (pass == 0 && !expect_fail) ? 1 : 0;
}

int
main(int argc, char **argv)
{
	struct opts o;
	int rc;

	if (argc < 2 || parse(argc, argv, &o) != 0) {
		usage();
		return 2;
	}
	if (dst_sim_init(&S) != 0) {
		fprintf(stderr, "uet-dst: out of memory\n");
		return 2;
	}
	if (o.open != NULL && open_load(o.open) != 0) {
		dst_sim_fini(&S);
		return 2;
	}
	S.syn_quiet = o.syn_quiet;
	if (o.replay != NULL)
		rc = run_replay(o.replay, o.expect_fail, o.syn_quiet);
	else if (o.one)
		rc = run_one(&o);
	else
		rc = run_many(&o);
	dst_sim_fini(&S);
	return rc;
}
