/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * [fabric]: defaults, the schedule lines (fail / restore / rate, which may
 * repeat, unlike table keys) and the cross-field checks of the emulated
 * network's shape. The key rows themselves are in config_keys.c with the
 * other sections.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <rte_cfgfile.h>
#include <rte_common.h>

#include <uet/uet_fabric_defaults.h>

#include "config_private.h"

#define SEC(x) ((uint64_t)(x) * 1000000000ULL)

static const char *const tier_names[] = {
	[UET_CONFIG_FABRIC_HOST] = "host",
	[UET_CONFIG_FABRIC_LEAF] = "leaf",
	[UET_CONFIG_FABRIC_SPINE] = "spine",
	[UET_CONFIG_FABRIC_CORE] = "core",
};

static const char *const action_names[] = {
	[UET_CONFIG_FABRIC_FAIL] = "fail",
	[UET_CONFIG_FABRIC_RESTORE] = "restore",
	[UET_CONFIG_FABRIC_RATE] = "rate",
};

void
config_fabric_defaults(struct uet_config_fabric *f)
{
	memset(f, 0, sizeof(*f));
	f->topology = UET_CONFIG_FABRIC_LEAF_SPINE;
	f->hosts = UET_FABRIC_DEFAULT_HOSTS;
	f->hosts_per_leaf = UET_FABRIC_DEFAULT_HOSTS_PER_LEAF;
	f->spines = UET_FABRIC_DEFAULT_SPINES;
	f->k = UET_FABRIC_DEFAULT_K;
	f->link_rate_mbps = UET_FABRIC_DEFAULT_LINK_RATE_MBPS;
	f->link_delay_ns = UET_FABRIC_DEFAULT_LINK_DELAY_NS;
	f->mtu = UET_FABRIC_DEFAULT_IP_MTU;
	f->frame_pool = UET_FABRIC_DEFAULT_FRAME_POOL;
	f->host_queue = UET_FABRIC_DEFAULT_HOST_QUEUE_BYTES;
	f->trimming = true;
	f->ecn = true;
	f->ecn_min = UET_FABRIC_DEFAULT_ECN_MIN_MILLI / 1000.0;
	f->ecn_max = UET_FABRIC_DEFAULT_ECN_MAX_MILLI / 1000.0;
	f->trim = UET_FABRIC_DEFAULT_TRIM_MILLI / 1000.0;
	f->trim_retx = UET_FABRIC_DEFAULT_TRIM_RETX_MILLI / 1000.0;
	f->queue = UET_FABRIC_DEFAULT_DROP_MILLI / 1000.0;
	f->seed = UET_FABRIC_DEFAULT_SEED;
}

bool
config_fabric_is_event_key(const char *key)
{
	for (unsigned int i = 0; i < RTE_DIM(action_names); i++)
		if (strcmp(key, action_names[i]) == 0)
			return true;
	return false;
}

/* "leaf12" -> tier, index; @p end is the first character after it. */
static int
parse_node(const char *s, uint8_t *tier, uint32_t *index, const char **end)
{
	for (unsigned int t = 0; t < RTE_DIM(tier_names); t++) {
		size_t n = strlen(tier_names[t]);
		uint32_t v = 0;
		const char *p = s + n;

		if (strncmp(s, tier_names[t], n) != 0 || *p < '0' || *p > '9')
			continue;
		if (p[0] == '0' && p[1] >= '0' && p[1] <= '9')
			return -EINVAL; /* no leading zeros: one spelling */
		while (*p >= '0' && *p <= '9' && v <= 100000)
			v = v * 10 + (uint32_t)(*p++ - '0');
		if (v > 100000)
			return -ERANGE;
		*tier = (uint8_t)t;
		*index = v;
		*end = p;
		return 0;
	}
	return -EINVAL;
}

/* "leaf0-spine1" */
static int
parse_link(const char *s, struct uet_config_fabric_event *e,
	   struct uet_parse_err *pe)
{
	const char *p;

	if (parse_node(s, &e->tier[0], &e->index[0], &p) < 0 || *p != '-' ||
	    parse_node(p + 1, &e->tier[1], &e->index[1], &p) < 0 ||
	    *p != '\0') {
		uet_parse_err_set(pe, "'%.40s' is not a link (expected e.g. "
				  "leaf0-spine1: host, leaf, spine or core "
				  "and an index, twice)", s);
		return -EINVAL;
	}
	return 0;
}

/* Split "A B at T" (or "A B@T") into words; @return the word count. */
static unsigned int
split_words(char *s, char **w, unsigned int max)
{
	unsigned int n = 0;
	char *at = strchr(s, '@');

	if (at != NULL)
		*at = ' ';
	for (char *tok = strtok(s, " \t"); tok != NULL;
	     tok = strtok(NULL, " \t")) {
		if (n == max)
			return max + 1;
		w[n++] = tok;
	}
	if (at != NULL && n < max + 1) {
		/* "X@T" is "X at T": put the "at" back in */
		if (n == max)
			return max + 1;
		w[n] = w[n - 1];
		w[n - 1] = (char *)"at";
		n++;
	}
	return n;
}

int
config_fabric_event_add(struct uet_config_fabric *f, const char *key,
		     const char *value, struct uet_parse_err *pe)
{
	struct uet_config_fabric_event e = { 0 };
	char buf[CFG_VALUE_LEN];
	char *w[4];
	unsigned int n, want, a;
	uint64_t v;
	int rc;

	for (a = 0; a < RTE_DIM(action_names); a++)
		if (strcmp(key, action_names[a]) == 0)
			break;
	if (a == RTE_DIM(action_names)) {
		uet_parse_err_set(pe, "unknown key (see docs/CONFIG.md)");
		return -EINVAL;
	}
	e.action = (uint8_t)a;
	want = a == UET_CONFIG_FABRIC_RATE ? 4 : 3;
	snprintf(buf, sizeof(buf), "%s", value);
	n = split_words(buf, w, want);
	if (n != want || strcmp(w[want - 2], "at") != 0) {
		uet_parse_err_set(pe, "expected '%s'", a ==
				  UET_CONFIG_FABRIC_RATE ?
				  "LINK MBPS at TIME' (e.g. leaf0-spine1 "
				  "25000 at 100us" :
				  "LINK at TIME' (e.g. leaf0-spine1 at 50us");
		return -EINVAL;
	}
	rc = parse_link(w[0], &e, pe);
	if (rc < 0)
		return rc;
	if (a == UET_CONFIG_FABRIC_RATE) {
		rc = uet_parse_u64(w[1], 1, 1600000, &v, pe);
		if (rc < 0)
			return rc;
		e.rate_mbps = (uint32_t)v;
	}
	rc = uet_parse_duration_ns(w[want - 1], 0, SEC(3600), &e.at_ns, pe);
	if (rc < 0)
		return rc;
	if (f->nb_events == UET_CONFIG_FABRIC_EVENTS_MAX) {
		uet_parse_err_set(pe, "too many schedule lines (at most %d)",
				  UET_CONFIG_FABRIC_EVENTS_MAX);
		return -ERANGE;
	}
	f->event[f->nb_events++] = e;
	return 0;
}

int
config_fabric_event_format(const struct uet_config_fabric_event *e,
			char *key, size_t key_len, char *buf, size_t len)
{
	char rate[16] = "";

	if (e->action >= RTE_DIM(action_names) ||
	    e->tier[0] >= RTE_DIM(tier_names) ||
	    e->tier[1] >= RTE_DIM(tier_names))
		return -EINVAL;
	snprintf(key, key_len, "%s", action_names[e->action]);
	if (e->action == UET_CONFIG_FABRIC_RATE)
		snprintf(rate, sizeof(rate), " %" PRIu32, e->rate_mbps);
	/* ns: exact, and the dump loads back to the same value */
	snprintf(buf, len, "%s%" PRIu32 "-%s%" PRIu32 "%s at %" PRIu64 "ns",
		 tier_names[e->tier[0]], e->index[0], tier_names[e->tier[1]],
		 e->index[1], rate, e->at_ns);
	return 0;
}

/* Nodes per tier of the shape. */
static void
tier_sizes(const struct uet_config_fabric *f, uint32_t n[4])
{
	if (f->topology == UET_CONFIG_FABRIC_FAT_TREE) {
		n[UET_CONFIG_FABRIC_HOST] = f->k * f->k * f->k / 4;
		n[UET_CONFIG_FABRIC_LEAF] = f->k * f->k / 2;
		n[UET_CONFIG_FABRIC_SPINE] = f->k * f->k / 2;
		n[UET_CONFIG_FABRIC_CORE] = f->k * f->k / 4;
		return;
	}
	n[UET_CONFIG_FABRIC_HOST] = f->hosts;
	n[UET_CONFIG_FABRIC_LEAF] = (f->hosts + f->hosts_per_leaf - 1) /
				    f->hosts_per_leaf;
	n[UET_CONFIG_FABRIC_SPINE] = f->spines;
	n[UET_CONFIG_FABRIC_CORE] = 0;
}

/* Does the cable between a (lower tier) and b (next tier up) exist? */
static bool
adjacent(const struct uet_config_fabric *f, unsigned int ta, uint32_t a,
	 uint32_t b)
{
	uint32_t half = f->k / 2;

	if (ta == UET_CONFIG_FABRIC_HOST)
		return f->topology == UET_CONFIG_FABRIC_FAT_TREE ?
		       a / half == b : a / f->hosts_per_leaf == b;
	if (f->topology != UET_CONFIG_FABRIC_FAT_TREE)
		return true; /* every leaf to every spine */
	if (ta == UET_CONFIG_FABRIC_LEAF) /* same pod */
		return a / half == b / half;
	/* aggregation switch j of a pod links to cores j*K/2 .. +K/2-1 */
	return b / half == a % half;
}

static int
check_event(const struct uet_config_fabric *f,
	    const struct uet_config_fabric_event *e, unsigned int i,
	    struct uet_config_error *err)
{
	char key[16], val[96];
	uint32_t n[4];
	unsigned int lo = e->tier[0] <= e->tier[1] ? 0 : 1;

	tier_sizes(f, n);
	(void)config_fabric_event_format(e, key, sizeof(key), val, sizeof(val));
	for (unsigned int s = 0; s < 2; s++)
		if (e->index[s] >= n[e->tier[s]])
			return config_error(err, -EINVAL, NULL, 0, "fabric", key,
					 "line %u (%s): %s%u does not exist "
					 "(%u in that tier)", i + 1, val,
					 tier_names[e->tier[s]], e->index[s],
					 n[e->tier[s]]);
	if (e->tier[1 - lo] != e->tier[lo] + 1 ||
	    !adjacent(f, e->tier[lo], e->index[lo], e->index[1 - lo]))
		return config_error(err, -EINVAL, NULL, 0, "fabric", key,
				 "line %u (%s): no cable between those "
				 "nodes", i + 1, val);
	return 0;
}

static int
check_shape(const struct uet_config_fabric *f, struct uet_config_error *err)
{
	struct uet_config_fabric d;

	config_fabric_defaults(&d);
	if (f->topology == UET_CONFIG_FABRIC_FAT_TREE) {
		if (f->k % 2 != 0)
			return config_error(err, -EINVAL, NULL, 0, "fabric", "k",
					 "must be even");
		if (f->hosts != f->k * f->k * f->k / 4)
			return config_error(err, -EINVAL, NULL, 0, "fabric",
					 "hosts", "a fat tree of k = %u has "
					 "%u hosts", f->k,
					 f->k * f->k * f->k / 4);
		if (f->hosts_per_leaf != d.hosts_per_leaf ||
		    f->spines != d.spines)
			return config_error(err, -EINVAL, NULL, 0, "fabric",
					 f->spines != d.spines ? "spines" :
					 "hosts_per_leaf", "applies to "
					 "topology leaf_spine only (a fat "
					 "tree is set by k)");
		return 0;
	}
	if (f->k != d.k)
		return config_error(err, -EINVAL, NULL, 0, "fabric", "k",
				 "applies to topology fat_tree only");
	if (f->hosts_per_leaf + f->spines > 64)
		return config_error(err, -EINVAL, NULL, 0, "fabric", "spines",
				 "a leaf has at most 64 ports: "
				 "hosts_per_leaf + spines <= 64");
	if ((f->hosts + f->hosts_per_leaf - 1) / f->hosts_per_leaf > 64)
		return config_error(err, -EINVAL, NULL, 0, "fabric",
				 "hosts_per_leaf", "at most 64 leaves (a "
				 "spine has 64 ports)");
	return 0;
}

int
config_fabric_validate(const struct uet_config_fabric *f,
		    struct uet_config_error *err)
{
	int rc = check_shape(f, err);

	if (rc < 0)
		return rc;
	if (f->ecn_min >= f->ecn_max)
		return config_error(err, -EINVAL, NULL, 0, "fabric", "ecn_min",
				 "must be below ecn_max");
	if (f->trim_retx < f->trim)
		return config_error(err, -EINVAL, NULL, 0, "fabric", "trim_retx",
				 "must not be below trim");
	if (f->host_queue < f->mtu + UET_FABRIC_L2_BYTES)
		return config_error(err, -EINVAL, NULL, 0, "fabric", "host_queue",
				 "must hold one frame (mtu + 18 bytes)");
	for (unsigned int i = 0; i < f->nb_events; i++) {
		rc = check_event(f, &f->event[i], i, err);
		if (rc < 0)
			return rc;
	}
	return 0;
}
