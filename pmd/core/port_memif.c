/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * net_memif ports: jumbo frames, one buffer per frame.
 *
 * net_memif (DPDK 22.11, copy mode) copies every frame through the
 * shared-memory buffers of its rings, `bsize` bytes each (default 2048).
 * A longer frame takes several buffers chained with MEMIF_DESC_FLAG_NEXT
 * on TX and becomes a chain of mbufs on RX (which the engine linearises),
 * so the PMD carries any frame length; yet its dev_info claims a fixed
 * 1518-byte maximum frame and it has no MTU operation. The engine
 * therefore takes any `mtu` of the key's range for a memif port and, when
 * it probes the port itself and the devargs name no `bsize`, sizes the
 * buffers from the MTU so that a frame is one buffer and one copy: the
 * frame (MTU + Ethernet header + one VLAN tag) rounded up to 128 bytes.
 * Both ends of a link read the same MTU, so they size their buffers alike
 * (the client's buffers are the ones the link uses).
 */

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_common.h>

#include "engine_private.h"

/* PMD default (drivers/net/memif: ETH_MEMIF_DEFAULT_PKT_BUFFER_SIZE) */
#define MEMIF_DFLT_BSIZE 2048u
/* Ethernet header and one VLAN tag in front of the IP packet */
#define MEMIF_L2_BYTES 18u
#define MEMIF_BSIZE_ALIGN 128u

bool
engine_memif_is(const char *devargs)
{
	return strncmp(devargs, "net_memif", 9) == 0;
}

unsigned int
engine_memif_bsize(unsigned int mtu)
{
	unsigned int frame = mtu + MEMIF_L2_BYTES;

	if (frame <= MEMIF_DFLT_BSIZE)
		return MEMIF_DFLT_BSIZE;
	return RTE_ALIGN_CEIL(frame, MEMIF_BSIZE_ALIGN);
}

int
engine_memif_devargs(const char *devargs, unsigned int mtu, char *out, size_t n)
{
	unsigned int bsize = engine_memif_bsize(mtu);
	int len;

	/* the user's bsize stands (a frame then spans several buffers) */
	if (!engine_memif_is(devargs) || engine_devargs_has_key(devargs, "bsize") ||
	    bsize == MEMIF_DFLT_BSIZE)
		len = snprintf(out, n, "%s", devargs);
	else
		len = snprintf(out, n, "%s,bsize=%u", devargs, bsize);
	return len < 0 || (size_t)len >= n ? -ENAMETOOLONG : 0;
}
