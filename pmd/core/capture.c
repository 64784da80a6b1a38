/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Packet capture (engine.capture): the frames a context receives, before
 * RX fault injection, and the frames a TX queue takes, after TX fault
 * injection (the wire as the ports see it), written with DPDK's
 * rte_pcapng into one pcapng file per context; uet-dump dissects it.
 * A debugging aid: each burst costs a copy per frame and one write().
 *
 * Timestamps: DPDK 22.11's rte_pcapng takes its wall-clock reference
 * lazily, at the first conversion, and converts a TSC reading taken
 * before that reference as a negative delta wrapped to 2^64 cycles
 * (about 230 years ahead). The engine therefore stamps each block
 * itself from its own reference, taken when the file is opened.
 */

#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>
#include <rte_pcapng.h>
#include <rte_time.h>

#include "engine_private.h"

/* Copies in flight are written at once: a burst's worth is plenty. */
#define CAP_POOL_SIZE 1023
/* Enhanced Packet Block (pcapng, draft-ietf-opsawg-pcapng section 4.3):
 * timestamp upper and lower 32 bits, in the writer's byte order, in the
 * units of if_tsresol (rte_pcapng declares nanoseconds). */
#define EPB_TS_HI_OFF 12
#define EPB_TS_LO_OFF 16

/* The wall-clock reference of the capture timestamps. */
static void
cap_clock_ref(struct uet_engine_lcore *lc)
{
	struct timespec ts;
	uint64_t t0 = rte_get_tsc_cycles();

	clock_gettime(CLOCK_REALTIME, &ts);
	lc->cap_ref_tsc = t0 / 2 + rte_get_tsc_cycles() / 2;
	lc->cap_ref_ns = (uint64_t)ts.tv_sec * NSEC_PER_SEC + (uint64_t)ts.tv_nsec;
}

/* @p tsc (not before the reference) as ns since the epoch; whole seconds
 * apart so that the product cannot overflow. */
static uint64_t
cap_tsc_to_ns(const struct uet_engine_lcore *lc, uint64_t tsc)
{
	uint64_t hz = rte_get_tsc_hz();
	uint64_t d = tsc > lc->cap_ref_tsc ? tsc - lc->cap_ref_tsc : 0;

	return lc->cap_ref_ns + d / hz * NSEC_PER_SEC + d % hz * NSEC_PER_SEC / hz;
}

static void
cap_stamp(struct rte_mbuf *c, uint64_t ns)
{
	uint8_t *epb = rte_pktmbuf_mtod(c, uint8_t *);
	uint32_t hi = (uint32_t)(ns >> 32), lo = (uint32_t)ns;

	memcpy(epb + EPB_TS_HI_OFF, &hi, sizeof(hi));
	memcpy(epb + EPB_TS_LO_OFF, &lo, sizeof(lo));
}

int
engine_capture_open(struct uet_engine_lcore *lc)
{
	static atomic_uint seq;
	const struct uet_engine *e = lc->eng;
	const char *base = e->cfg.engine.capture;
	char path[sizeof(e->cfg.engine.capture) + 16];
	char pool[RTE_MEMPOOL_NAMESIZE];
	int fd, socket = SOCKET_ID_ANY;
	struct stat st;

	if (base[0] == '\0')
		return 0;
	if (lc->idx == 0)
		snprintf(path, sizeof(path), "%s", base);
	else
		snprintf(path, sizeof(path), "%s.%u", base, lc->idx);
	/* every frame of the port, payloads of every process the engine
	 * serves included: readable by the engine's user only, and never
	 * written through a link someone put where the file goes */
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW,
		  0600);
	if (fd < 0) {
		int err = errno;

		ENG_LOG(ERR, "engine.capture %s: %s", path, strerror(err));
		return -err;
	}
	/* a file that was there already: ours, and ours only */
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) ||
	    st.st_uid != geteuid() || fchmod(fd, 0600) != 0) {
		ENG_LOG(ERR, "engine.capture %s: not a regular file of uid %u",
			path, (unsigned int)geteuid());
		close(fd);
		return -EPERM;
	}
	/* fdopen writes the header and one interface block per port */
	cap_clock_ref(lc);
	lc->cap = rte_pcapng_fdopen(fd, NULL, NULL, "uet engine", NULL);
	if (lc->cap == NULL) {
		ENG_LOG(ERR, "engine.capture %s: %s", path,
			rte_strerror(rte_errno));
		close(fd);
		return -EIO;
	}
	if (lc->lcore_id != UINT32_MAX)
		socket = (int)rte_lcore_to_socket_id(lc->lcore_id);
	snprintf(pool, sizeof(pool), "uetcap%u", atomic_fetch_add(&seq, 1));
	/* a frame longer than one copy mbuf is chained from the same pool */
	lc->cap_pool = rte_pktmbuf_pool_create(pool, CAP_POOL_SIZE, 0, 0,
		(uint16_t)RTE_MIN(rte_pcapng_mbuf_size(e->cfg.engine.mbuf_size),
				  (uint32_t)UINT16_MAX), socket);
	if (lc->cap_pool == NULL) {
		engine_capture_close(lc);
		return -ENOMEM;
	}
	return 0;
}

void
engine_capture_close(struct uet_engine_lcore *lc)
{
	if (lc->cap != NULL)
		rte_pcapng_close(lc->cap); /* closes the file */
	lc->cap = NULL;
	rte_mempool_free(lc->cap_pool);
	lc->cap_pool = NULL;
}

/* Copy @p n frames into @p out (NULL where the copy pool ran dry): taken
 * before a TX queue owns the frames, written once it is known which it
 * took. */
void
engine_capture_copy(struct uet_engine_lcore *lc, uint16_t port, uint16_t queue,
		 struct rte_mbuf *const *m, uint16_t n, bool tx,
		 struct rte_mbuf **out)
{
	uint16_t port_id = lc->eng->port[port].port_id;
	uint64_t tsc = rte_rdtsc();
	uint64_t ns = cap_tsc_to_ns(lc, tsc);

	for (uint16_t i = 0; i < n; i++) {
		out[i] = rte_pcapng_copy(port_id, queue, m[i], lc->cap_pool,
					 UINT32_MAX, tsc,
					 tx ? RTE_PCAPNG_DIRECTION_OUT :
					      RTE_PCAPNG_DIRECTION_IN);
		if (out[i] == NULL)
			ENG_INC(lc->st.capture_fail);
		else
			cap_stamp(out[i], ns);
	}
}

/* Write the copies of the first @p n_write frames, free the other
 * copies up to @p n. */
void
engine_capture_write(struct uet_engine_lcore *lc, struct rte_mbuf **c,
		  uint16_t n_write, uint16_t n)
{
	uint16_t k = 0;

	for (uint16_t i = 0; i < n; i++) {
		if (c[i] == NULL)
			continue;
		if (i < n_write)
			c[k++] = c[i];
		else
			rte_pktmbuf_free(c[i]);
	}
	if (k == 0)
		return;
	if (rte_pcapng_write_packets(lc->cap, c, k) < 0)
		ENG_ADD(lc->st.capture_fail, k);
	else
		ENG_ADD(lc->st.capture_pkts, k);
	/* DPDK 22.11's rte_pcapng_write_packets() leaves them to the caller
	 * (dpdk-dumpcap frees them too), whatever its comment says */
	rte_pktmbuf_free_bulk(c, k);
}
