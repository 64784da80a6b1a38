/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * uet-dst: run, replay and shrink deterministic simulations.
 *
 *   uet-dst --seed N [--ops LIST] [--faults LIST] [--shrink] [--trace]
 *   uet-dst --seeds FIRST:COUNT [--stop]
 *   uet-dst --replay FILE
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
	const char *replay;
	bool ops[DST_OPS_MAX], faults[DST_FAULTS_MAX];
	bool have_ops, have_faults;
	bool one, shrink, trace, stop, print_plan;
};

static struct dst_sim S;
static struct dst_plan P;

static void
usage(void)
{
	fprintf(stderr,
		"usage: uet-dst --seed N [--ops LIST] [--faults LIST] "
		"[--shrink] [--trace] [--plan]\n"
		"       uet-dst --seeds FIRST:COUNT [--stop]\n"
		"       uet-dst --replay FILE\n");
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

static int
parse(int argc, char **argv, struct opts *o)
{
	char *colon;
	int i;

	memset(o, 0, sizeof(*o));
	o->count = 1;
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
			    !parse_u64(colon + 1, &o->count))
				goto bad;
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
		} else if (strcmp(a, "--replay") == 0) {
			o->replay = v;
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
	dst_plan_gen(p, &src, seed);
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

static int
run_many(const struct opts *o)
{
	uint64_t k, pass = 0, fail = 0;
	double t0 = secs(), dt;

	for (k = 0; k < o->count; k++) {
		make_plan(&P, o->seed + k, o);
		if (dst_run(&S, &P) == 0) {
			pass++;
			continue;
		}
		fail++;
		printf("seed %" PRIu64 " FAILED: %s: %s\n", P.seed, S.inv,
		       S.why);
		fflush(stdout);
		if (o->stop)
			break;
	}
	dt = secs() - t0;
	printf("seeds %" PRIu64 "..%" PRIu64 ": %.1f s, %.0f seeds/hour\n",
	       o->seed, o->seed + k - (k == o->count), dt,
	       dt > 0 ? (double)(pass + fail) * 3600 / dt : 0.0);
	printf("%" PRIu64 " passed, %" PRIu64 " failed\n", pass, fail);
	return fail ? 1 : 0;
}

/* Each line: SEED [--ops LIST] [--faults LIST] [# comment]. */
static int
replay_line(char *line, uint64_t *pass, uint64_t *fail)
{
	char *argv[8], *tok, *hash = strchr(line, '#');
	struct opts o;
	int argc = 1;

	if (hash != NULL)
		*hash = '\0';
	argv[0] = "uet-dst";
	argv[argc++] = "--seed";
	for (tok = strtok(line, " \t\n"); tok != NULL && argc < 8;
	     tok = strtok(NULL, " \t\n"))
		argv[argc++] = tok;
	if (argc == 2)
		return 0; /* blank or comment */
	if (parse(argc, argv, &o) != 0)
		return -1;
	make_plan(&P, o.seed, &o);
	if (dst_run(&S, &P) == 0) {
		(*pass)++;
		return 0;
	}
	(*fail)++;
	report(&P, 40);
	return 0;
}

static int
run_replay(const char *path)
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
		if (replay_line(line, &pass, &fail) != 0) {
			fprintf(stderr, "uet-dst: %s:%d: bad line\n", path,
				lineno);
			fclose(f);
			return 2;
		}
	}
	fclose(f);
	printf("%" PRIu64 " passed, %" PRIu64 " failed\n", pass, fail);
	return fail || pass == 0 ? 1 : 0;
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
	if (o.replay != NULL)
		rc = run_replay(o.replay);
	else if (o.one)
		rc = run_one(&o);
	else
		rc = run_many(&o);
	dst_sim_fini(&S);
	return rc;
}
