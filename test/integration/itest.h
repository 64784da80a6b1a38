/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef UET_ITEST_H
#define UET_ITEST_H

/*
 * Helpers shared by the EAL integration tests (one test program per
 * translation unit): a CHECK that counts failures and goes on, the
 * configuration of one inline engine on a ring port with a static peer,
 * a pair of ring ports wired back to back, and the telemetry socket.
 */

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dirent.h>
#include <fcntl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <rte_eal.h>
#include <rte_eth_ring.h>
#include <rte_ring.h>

#include <uet/uet_config.h>
#include <uet/uet_engine.h>

static int failures;

#define CHECK(cond) do { \
	if (!(cond)) { \
		fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, \
			__LINE__, #cond); \
		failures++; \
	} \
} while (0)

/*
 * One port (@p dev, e.g. "net_ring_xA"), IPv4 @p ip and @p mac, a static
 * neighbour @p pip / @p pmac, inline progress on one context, no spraying,
 * no faults.
 */
static inline void
itest_cfg_ring(struct uet_config *c, const char *dev, const uint8_t *ip,
	       const uint8_t *mac, const uint8_t *pip, const uint8_t *pmac)
{
	uet_config_init_defaults(c);
	for (unsigned int i = 1; i < UET_CONFIG_MAX_PORTS; i++)
		c->port[i].defined = false;
	c->port[0].defined = true;
	snprintf(c->port[0].devargs, sizeof(c->port[0].devargs), "%s", dev);
	c->port[0].has_ipv4 = true;
	memcpy(&c->port[0].ipv4, ip, 4);
	c->port[0].has_ipv6 = false;
	c->port[0].has_mac = true;
	memcpy(c->port[0].mac, mac, 6);
	c->engine.progress = UET_CONFIG_PROGRESS_INLINE;
	c->engine.nb_lcores = 1;
	c->engine.lcores[0] = 0;
	c->engine.mbuf_pool_size = 4095;
	c->engine.mbuf_cache = 64;
	c->spray.mode = UET_CONFIG_SPRAY_SINGLE;
	c->nb_neighbors = 1;
	c->neighbor[0].ip.family = AF_INET;
	memcpy(&c->neighbor[0].ip.v4, pip, 4);
	memcpy(c->neighbor[0].mac, pmac, 6);
	c->fault.enabled = false;
}

/* Remove directory @p d, its files and its subdirectories' files (a
 * test's temporary directory). */
static inline void
itest_rm_dir(const char *d)
{
	char p[512];
	struct dirent *e;
	struct stat st;
	DIR *s = opendir(d);

	if (s == NULL)
		return;
	while ((e = readdir(s)) != NULL) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		if (snprintf(p, sizeof(p), "%s/%s", d, e->d_name) >=
		    (int)sizeof(p))
			continue;
		if (lstat(p, &st) == 0 && S_ISDIR(st.st_mode))
			itest_rm_dir(p);
		else
			(void)unlink(p);
	}
	closedir(s);
	(void)rmdir(d);
}

/*
 * [tss] on with one secure domain, SDI @p sdi, for every JobID (1-4095),
 * its key in @p key; replay window 256; TSCs reserved in @p state.
 */
static inline void
itest_tss_domain(struct uet_config_tss *t, uint32_t sdi, const char *key,
		 const char *state)
{
	t->enabled = true;
	t->replay_window = 256;
	t->nb_domains = 1;
	t->domain[0].sdi = sdi;
	t->domain[0].first[0] = 1;
	t->domain[0].last[0] = 4095;
	t->domain[0].nb_ranges = 1;
	snprintf(t->domain[0].key_file, sizeof(t->domain[0].key_file), "%s",
		 key);
	snprintf(t->state_dir, sizeof(t->state_dir), "%s", state);
}

/*
 * In the test's directory @p dir: a domain key file "sdi7.key" (mode
 * 0600, the 64 hex digits @p hex), its path in @p key, and the TSC state
 * directory "state" (0700), its path in @p state.
 */
static inline void
itest_tss_files(const char *dir, const char *hex, char *key, size_t klen,
		char *state, size_t slen)
{
	int fd;

	snprintf(key, klen, "%s/sdi7.key", dir);
	fd = open(key, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	CHECK(fd >= 0 && write(fd, hex, 64) == 64);
	if (fd >= 0)
		close(fd);
	snprintf(state, slen, "%s/state", dir);
	CHECK(mkdir(state, 0700) == 0);
}

/*
 * The test's temporary directory, made from template @p dir (mkdtemp),
 * and the EAL of test @p name (one lcore, no hugepages, no PCI).
 * @return 0, or -1 (said on stderr; the directory removed).
 */
static inline int
itest_tmp_eal(char *dir, const char *name)
{
	int rc;

	if (mkdtemp(dir) == NULL)
		return -1;
	rc = uet_engine_eal_init(name, "-l 0 --no-huge -m 512 --no-pci "
				 "--log-level=4", NULL);
	if (rc < 0) {
		fprintf(stderr, "EAL: %s\n", strerror(-rc));
		itest_rm_dir(dir);
		return -1;
	}
	return 0;
}

/*
 * Two single-queue ring ethdevs @p a and @p b, each transmitting into the
 * other's receive ring (1024 slots each way).
 * @return 0, or -1 (ring or port creation failed).
 */
static inline int
itest_ring_pair(const char *a, const char *b)
{
	char n_ab[RTE_RING_NAMESIZE], n_ba[RTE_RING_NAMESIZE];
	struct rte_ring *ab, *ba;

	snprintf(n_ab, sizeof(n_ab), "%s_%s", a, b);
	snprintf(n_ba, sizeof(n_ba), "%s_%s", b, a);
	ab = rte_ring_create(n_ab, 1024, SOCKET_ID_ANY,
			     RING_F_SP_ENQ | RING_F_SC_DEQ);
	ba = rte_ring_create(n_ba, 1024, SOCKET_ID_ANY,
			     RING_F_SP_ENQ | RING_F_SC_DEQ);
	if (ab == NULL || ba == NULL)
		return -1;
	if (rte_eth_from_rings(a, &ba, 1, &ab, 1, SOCKET_ID_ANY) < 0 ||
	    rte_eth_from_rings(b, &ab, 1, &ba, 1, SOCKET_ID_ANY) < 0)
		return -1;
	return 0;
}

/*
 * Ring ethdevs @p p"A" and @p p"B" with a ring in the middle: A sends into
 * @p p"_ab", which only the test reads (and passes on, or not, into
 * @p p"_mb"); B reads @p p"_mb" (@p mb_size slots) and sends into
 * @p p"_ba", which A reads.
 * @return 0, or -1 (ring or port creation failed).
 */
static inline int
itest_ring_pair_tapped(const char *p, unsigned int mb_size)
{
	char n_ab[RTE_RING_NAMESIZE], n_mb[RTE_RING_NAMESIZE];
	char n_ba[RTE_RING_NAMESIZE], n_a[32], n_b[32];
	struct rte_ring *ab, *mb, *ba;

	snprintf(n_ab, sizeof(n_ab), "%s_ab", p);
	snprintf(n_mb, sizeof(n_mb), "%s_mb", p);
	snprintf(n_ba, sizeof(n_ba), "%s_ba", p);
	snprintf(n_a, sizeof(n_a), "%sA", p);
	snprintf(n_b, sizeof(n_b), "%sB", p);
	ab = rte_ring_create(n_ab, 1024, SOCKET_ID_ANY,
			     RING_F_SP_ENQ | RING_F_SC_DEQ);
	mb = rte_ring_create(n_mb, mb_size, SOCKET_ID_ANY,
			     RING_F_SP_ENQ | RING_F_SC_DEQ);
	ba = rte_ring_create(n_ba, 1024, SOCKET_ID_ANY,
			     RING_F_SP_ENQ | RING_F_SC_DEQ);
	if (ab == NULL || mb == NULL || ba == NULL ||
	    rte_eth_from_rings(n_a, &ba, 1, &ab, 1, SOCKET_ID_ANY) < 0 ||
	    rte_eth_from_rings(n_b, &mb, 1, &ba, 1, SOCKET_ID_ANY) < 0)
		return -1;
	return 0;
}

/* This process's telemetry socket (the one dpdk-telemetry.py uses), past
 * its greeting in @p buf; -1 when the EAL runs without it. */
static inline int
itest_tel_open(char *buf, size_t len)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	int fd;

	snprintf(sun.sun_path, sizeof(sun.sun_path), "%s/dpdk_telemetry.v2",
		 rte_eal_get_runtime_dir());
	fd = socket(AF_UNIX, SOCK_SEQPACKET, 0);
	if (fd < 0)
		return -1;
	if (connect(fd, (struct sockaddr *)&sun, sizeof(sun)) < 0 ||
	    read(fd, buf, len) <= 0) {
		close(fd);
		printf("telemetry socket %s unavailable\n", sun.sun_path);
		return -1;
	}
	return fd;
}

/* One command; the JSON answer NUL-terminated in @p buf. */
static inline int
itest_tel_query(int fd, const char *cmd, char *buf, size_t len)
{
	ssize_t n;

	if (write(fd, cmd, strlen(cmd)) < 0)
		return -1;
	n = read(fd, buf, len - 1);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	return 0;
}

/* The number after "@p key": in a telemetry answer; -1 when absent. */
static inline long long
itest_tel_value(const char *json, const char *key)
{
	char pat[96];
	const char *p;

	snprintf(pat, sizeof(pat), "\"%s\":", key);
	p = strstr(json, pat);
	return p == NULL ? -1 : strtoll(p + strlen(pat), NULL, 10);
}

#endif /* UET_ITEST_H */
