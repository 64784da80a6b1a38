/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The prompt's set commands: one setting of the next run, checked with
 * the rules of the command line (perf_settings_conflict()).
 */

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <cmdline_parse_string.h>

#include <uet/uet_parse.h>

#include "cli_private.h"

static int
set_u64(const char *key, const char *v, uint64_t min, uint64_t max,
	uint64_t *out_v)
{
	struct uet_parse_err e;

	if (uet_parse_u64(v, min, max, out_v, &e) < 0) {
		cli_err("set %s: %s", key, e.msg);
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
	cli_err("set cc: unknown '%s' (fixed, nscc, rccc or nscc+rccc)", v);
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
		cli_err("set fabric: refused (above)");
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
			char names[128];

			cli_err("set test: expected %s", perf_mode_names(
				names, sizeof(names), ", ", false));
			return -EINVAL;
		}
		*m = perf_modes[i];
	} else if (strcmp(key, "ulp") == 0) {
		if (strcmp(v, "raw") == 0) {
			o->ulp = PERF_ULP_RAW;
		} else if (strcmp(v, "ses") == 0) {
			o->ulp = PERF_ULP_SES;
		} else {
			cli_err("set ulp: expected raw or ses");
			return -EINVAL;
		}
	} else if (strcmp(key, "op") == 0) {
		if (perf_parse_op(v, &o->op) < 0) {
			cli_err("set op: expected send, write or read");
			return -EINVAL;
		}
	} else if (strcmp(key, "tagged") == 0 || strcmp(key, "verify") == 0) {
		bool on = strcmp(v, "on") == 0;

		if (!on && strcmp(v, "off") != 0) {
			cli_err("set %s: expected on or off", key);
			return -EINVAL;
		}
		if (key[0] == 't')
			o->tagged = on;
		else
			o->verify = on;
	} else if (strcmp(key, "size") == 0) {
		if (uet_parse_size(v, 16, 1u << 24, &x, &e) < 0) {
			cli_err("set size: %s", e.msg);
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
			cli_err("set duration: %s (or 0: none)", e.msg);
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
			cli_err("set spray: expected single, oblivious or "
				"reps");
			return -EINVAL;
		}
	} else if (strcmp(key, "fabric") == 0) {
		return set_fabric(v, o);
	} else if (strcmp(key, "pattern") == 0) {
		o->fab.pattern = perf_pattern_find(v);
		if (o->fab.pattern == NULL) {
			cli_err("set pattern: expected permutation, shift, "
			    "incast or all-to-all");
			return -EINVAL;
		}
	} else if (strcmp(key, "flow-size") == 0) {
		if (uet_parse_size(v, 16, 1ull << 34, &o->fab.flow_size,
				   &e) < 0) {
			cli_err("set flow-size: %s", e.msg);
			return -EINVAL;
		}
	} else if (strcmp(key, "fault") == 0) {
		cli_err("set fault: expected set fault KIND PPM");
		return -EINVAL;
	} else {
		cli_err("set %s: unknown setting (try help)", key);
		return -EINVAL;
	}
	return 0;
bad_mode:
	cli_err("set mode: expected rud, rod, rudi or uud");
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
		cli_err("set %s %s: refused by the fabric run (above)", key, v);
		return true;
	}
	t.interactive = true;
	t.modes = 1u << perf_mode_find(m->name, strlen(m->name));
	why = perf_settings_conflict(&t, strcmp(key, "op") == 0 ?
				     PERF_SET_OP : 0, &flag);
	if (why == NULL)
		return false;
	cli_err("set %s %s: with the other settings (show config), %s: %s", key,
	    v, flag, why);
	return true;
}

void
cli_set(const char *key, const char *v)
{
	struct perf_opts o = cli.o;
	const struct perf_mode *m = cli.m;

	/* the arguments first: a bad one is reported as such, running or
	 * not */
	if (parse_set(key, v, &o, &m) < 0)
		return;
	if (cli.running) {
		cli_err("set %s: a run is in progress (stop it first)", key);
		return;
	}
	if (settings_refused(key, v, &o, m))
		return;
	cli.o = o;
	cli.m = m;
	cli_out("%s = %s\n", key, v);
}

void
cli_set_fault(const char *kind, const char *rate)
{
	struct uet_parse_err e;
	unsigned int k;
	uint32_t ppm;

	for (k = 0; k < UET_CONFIG_FAULT_KINDS; k++)
		if (strcmp(kind, perf_fault_name(k)) == 0)
			break;
	if (k == UET_CONFIG_FAULT_KINDS) {
		cli_err("set fault: kind '%s': expected drop, dup, reorder, "
		    "delay, ecn, trim or corrupt", kind);
		return;
	}
	if (uet_parse_u32(rate, 0, 1000000, &ppm, &e) < 0) {
		cli_err("set fault %s: rate (ppm): %s", kind, e.msg);
		return;
	}
	if (cli.running) {
		cli_err("set fault: a run is in progress (stop it first)");
		return;
	}
	if (k == UET_CONFIG_FAULT_DROP)
		cli.o.loss_ppm = ppm;
	else
		cli.o.fault_ppm[k] = ppm;
	cli_out("fault %s = %u ppm on the senders' data\n", kind, ppm);
}
