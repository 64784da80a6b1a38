/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The modes of uet-perf (testpmd's forwarding engines), one file each,
 * and what is decided across them: the table --mode picks from, the
 * settings a selection of modes cannot run with (the same rules for the
 * command line and for `set` at the prompt), a run's defaults, and what
 * a mode asks of the SES driver.
 */

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_common.h>

#include "perf.h"

/* --ulp ses: buffers of the operations in flight, at most */
#define PERF_SES_MAX_WINDOW 4096u
#define PERF_SES_MAX_INFLIGHT_BYTES (64ull << 20)

/* The modes (testpmd's fwd_engines), one file each, perf_mode_<name>
 * in <name>.c, listed in meson.build (PERF_MODES): --mode picks them by
 * name, once. */
#define PERF_MODE_EXTERN(name) extern const struct perf_mode perf_mode_##name;
PERF_MODES(PERF_MODE_EXTERN)

#define PERF_MODE_ENTRY(name) &perf_mode_##name,
const struct perf_mode *const perf_modes[] = {
	PERF_MODES(PERF_MODE_ENTRY)
};
_Static_assert(RTE_DIM(perf_modes) == PERF_NB_MODES,
	       "PERF_NB_MODES: the number of perf_modes");

int
perf_mode_find(const char *name, size_t len)
{
	for (unsigned int i = 0; i < PERF_NB_MODES; i++)
		if (strlen(perf_modes[i]->name) == len &&
		    strncmp(name, perf_modes[i]->name, len) == 0)
			return (int)i;
	return -EINVAL;
}

char *
perf_mode_names(char *buf, size_t n, const char *sep, bool in_all)
{
	size_t off = 0;

	buf[0] = '\0';
	for (unsigned int i = 0; i < PERF_NB_MODES; i++) {
		int w;

		if (in_all && !perf_modes[i]->in_all)
			continue;
		w = snprintf(buf + off, n - off, "%s%s", off ? sep : "",
			     perf_modes[i]->name);
		if (w < 0 || (size_t)w >= n - off)
			break;
		off += (size_t)w;
	}
	return buf;
}

unsigned int
perf_modes_count(const struct perf_opts *o)
{
	return (unsigned int)__builtin_popcount(o->modes);
}

unsigned int
perf_modes_all(void)
{
	unsigned int set = 0;

	for (unsigned int i = 0; i < PERF_NB_MODES; i++)
		if (perf_modes[i]->in_all)
			set |= 1u << i;
	return set;
}

void
perf_ses_traffic(const struct perf_mode *m, const struct perf_opts *o,
		 uint32_t size, uint32_t window, struct ses_driver_params *p)
{
	memset(p, 0, sizeof(*p));
	p->op = PERF_OP_SEND;
	p->tagged = o->tagged;
	p->rod = o->pds_mode == UET_PDS_MODE_ROD;
	p->verify = o->verify;
	p->size = size;
	p->window = window;
	if (m->ses_traffic != NULL)
		m->ses_traffic(o, p);
}

const char *
perf_ses_unsupported(const struct perf_mode *m, const struct perf_opts *o)
{
	struct ses_driver_params p;

	if (m->ses_refusal != NULL)
		return m->ses_refusal;
	if (o->pds_mode != UET_PDS_MODE_RUD && o->pds_mode != UET_PDS_MODE_ROD)
		return "--pds rud or rod (SES operations are reliable)";
	/* the buffers of the operations in flight, as the mode sets them */
	perf_ses_traffic(m, o, o->size ? o->size : m->def_size,
			 o->window ? o->window : m->def_ses_window, &p);
	if (p.window > PERF_SES_MAX_WINDOW)
		return "--window: at most 4096 operations in flight";
	if ((uint64_t)p.window * p.size > PERF_SES_MAX_INFLIGHT_BYTES)
		return "--window x --size: at most 64 MiB in flight";
	return NULL;
}

/* The selected mode that runs alone, in a list: why, else NULL. */
static const char *
modes_alone(const struct perf_opts *o)
{
	static char why[64];

	for (unsigned int i = 0; i < PERF_NB_MODES; i++)
		if ((o->modes & (1u << i)) && perf_modes[i]->alone &&
		    perf_modes_count(o) > 1) {
			snprintf(why, sizeof(why), "%s runs alone (not in a "
				 "list)", perf_modes[i]->name);
			return why;
		}
	return NULL;
}

/* Whether a selected mode takes --peers (@p peers) or --op. */
static bool
modes_take(const struct perf_opts *o, bool peers)
{
	for (unsigned int i = 0; i < PERF_NB_MODES; i++)
		if ((o->modes & (1u << i)) &&
		    (peers ? perf_modes[i]->takes_peers :
			     perf_modes[i]->takes_op))
			return true;
	return false;
}

/* The first selected mode that cannot run over the SES with @p o: why. */
static const char *
modes_ses(const struct perf_opts *o)
{
	const char *why;

	for (unsigned int i = 0; o->ulp == PERF_ULP_SES && i < PERF_NB_MODES;
	     i++) {
		why = (o->modes & (1u << i)) ?
		      perf_ses_unsupported(perf_modes[i], o) : NULL;
		if (why != NULL)
			return why;
	}
	return NULL;
}

/* The first selected mode that refuses @p o: why, *@p flag its option. */
static const char *
modes_refuse(const struct perf_opts *o, const char **flag)
{
	const char *why;

	for (unsigned int i = 0; i < PERF_NB_MODES; i++) {
		if (!(o->modes & (1u << i)) || perf_modes[i]->refuse == NULL)
			continue;
		why = perf_modes[i]->refuse(o, flag);
		if (why != NULL)
			return why;
	}
	return NULL;
}

const char *
perf_settings_conflict(const struct perf_opts *o, unsigned int given,
		       const char **flag)
{
	const char *why;

	*flag = "--mode";
	why = modes_alone(o);
	if (why != NULL)
		return why;
	*flag = "--peers";
	if (o->peers && !modes_take(o, true) && !o->interactive)
		return "needs --mode incast";
	*flag = "--ulp ses";
	why = modes_ses(o);
	if (why != NULL)
		return why;
	*flag = "--op/--tagged";
	if (((given & PERF_SET_OP) || o->tagged) && o->ulp != PERF_ULP_SES)
		return "need --ulp ses";
	*flag = "--op";
	if ((given & PERF_SET_OP) && !o->interactive && !modes_take(o, false))
		return "applies to --mode bw (msgrate and latency send)";
	why = modes_refuse(o, flag);
	if (why == NULL)
		*flag = NULL;
	return why;
}

void
perf_report_init(struct perf_report *r, const struct perf_mode *m,
		 const struct perf_opts *o, uint32_t def_loss)
{
	memset(r, 0, sizeof(*r));
	r->mode = m->name;
	r->pds = perf_pds_name(o->pds_mode);
	r->size = o->size ? o->size : m->def_size;
	/* --duration alone runs for that long (iperf -t): no count bound
	 * but the largest one */
	r->count = o->count ? o->count :
		   o->duration > 0 ? PERF_MAX_COUNT : m->def_count;
	r->window = o->window ? o->window :
		    o->ulp == PERF_ULP_SES ? m->def_ses_window : m->def_window;
	r->loss_ppm = (uint32_t)(o->loss_ppm >= 0 ? o->loss_ppm : def_loss);
}
