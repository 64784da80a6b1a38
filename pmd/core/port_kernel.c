/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Ports backed by a kernel interface (net_af_packet, net_af_xdp): frame
 * geometry from the configured MTU, and the checks that turn the PMDs'
 * bare errors into messages naming the setting to change.
 *
 * net_af_packet (DPDK 22.11) copies every frame through a PACKET_MMAP
 * ring (TPACKET_V2) of `framecnt` slots of `framesz` bytes, grouped in
 * blocks of `blocksz` bytes. The PMD addresses slot i at i * framesz
 * from the start of the ring, so a block must hold whole slots with no
 * gap (blocksz a multiple of framesz), or frames go to the wrong place
 * after the first block. A received frame starts at offset
 * TPACKET_ALIGN(TPACKET2_HDRLEN + 16) - 14 of its slot (the kernel's
 * tpacket_rcv() places the network header on an aligned boundary) and a
 * longer frame is silently truncated to the slot, so a slot must hold
 * TPACKET_ALIGN(TPACKET2_HDRLEN + 16) + mtu bytes. The kernel also wants
 * blocksz a multiple of the page size and framecnt a multiple of the
 * frames per block, and the PMD refuses an RX pool whose mbufs are
 * smaller than framesz - (TPACKET2_HDRLEN - sizeof(sockaddr_ll)).
 * Its dev_info reports a fixed 1518-byte maximum frame, so an MTU above
 * 1500 cannot go through rte_eth_dev_set_mtu(): the interface's own MTU
 * (set with ip link) is what the kernel enforces, and is checked here.
 *
 * net_af_xdp (DPDK 22.11) registers the memory of the RX queue's mbuf
 * pool as the UMEM of its AF_XDP socket, so such a port gets a pool of
 * its own, and a queue whose previous socket is not released yet is
 * waited for (engine_afx_rxq_setup()).
 */

#include <errno.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <linux/if_packet.h>

#include <rte_common.h>
#include <rte_dev.h>
#include <rte_devargs.h>
#include <rte_ethdev.h>
#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_kvargs.h>
#include <rte_mbuf.h>

#include "engine_private.h"

/* PMD defaults (drivers/net/af_packet: DFLT_FRAME_SIZE, _COUNT) */
#define AFP_DFLT_FRAMESZ 2048u
#define AFP_DFLT_FRAMECNT 512u
/* jumbo slots: a multiple of 128 bytes, so that a block of whole slots
 * that is also whole pages (their least common multiple) holds at most 32
 * slots (4096 / 128) */
#define AFP_JUMBO_ALIGN 128u
/* slot bytes in front of the Ethernet header of a received frame */
#define AFP_RX_NETOFF TPACKET_ALIGN(TPACKET2_HDRLEN + 16)
/* slot bytes in front of a frame for the PMD (its TX and RX data size) */
#define AFP_TX_HDR (TPACKET2_HDRLEN - sizeof(struct sockaddr_ll))

bool
engine_afp_is(const char *devargs)
{
	return strncmp(devargs, "net_af_packet", 13) == 0 ||
	       strncmp(devargs, "eth_af_packet", 13) == 0;
}

static unsigned int
gcd(unsigned int a, unsigned int b)
{
	while (b != 0) {
		unsigned int t = a % b;

		a = b;
		b = t;
	}
	return a;
}

unsigned int
engine_afp_framesz_min(unsigned int mtu)
{
	return RTE_ALIGN_CEIL(AFP_RX_NETOFF + mtu, TPACKET_ALIGNMENT);
}

unsigned int
engine_afp_mbuf_room_min(unsigned int framesz)
{
	return framesz - (unsigned int)AFP_TX_HDR;
}

void
engine_afp_geometry(unsigned int mtu, struct engine_afp_geo *g)
{
	unsigned int fsz = engine_afp_framesz_min(mtu);
	unsigned int page = (unsigned int)getpagesize();
	unsigned int per_block;

	if (fsz <= AFP_DFLT_FRAMESZ) {
		/* the PMD's defaults hold a standard frame */
		g->framesz = AFP_DFLT_FRAMESZ;
		g->blocksz = page;
		g->framecnt = AFP_DFLT_FRAMECNT;
		return;
	}
	g->framesz = RTE_ALIGN_CEIL(fsz, AFP_JUMBO_ALIGN);
	g->blocksz = g->framesz / gcd(g->framesz, page) * page;
	per_block = g->blocksz / g->framesz;
	/* at least the default frame count, whole blocks */
	g->framecnt = RTE_ALIGN_MUL_CEIL(AFP_DFLT_FRAMECNT, per_block);
}

bool
engine_devargs_has_key(const char *devargs, const char *key)
{
	size_t n = strlen(key);

	for (const char *s = strchr(devargs, ','); s != NULL;
	     s = strchr(s + 1, ','))
		if (strncmp(s + 1, key, n) == 0 && s[1 + n] == '=')
			return true;
	return false;
}

int
engine_afp_devargs(const char *devargs, unsigned int mtu, char *out, size_t n)
{
	struct engine_afp_geo g;
	int len;

	/* the user's geometry stands (checked after the probe) */
	if (!engine_afp_is(devargs) || engine_devargs_has_key(devargs, "framesz") ||
	    engine_devargs_has_key(devargs, "blocksz") ||
	    engine_devargs_has_key(devargs, "framecnt")) {
		len = snprintf(out, n, "%s", devargs);
	} else {
		engine_afp_geometry(mtu, &g);
		if (g.framesz == AFP_DFLT_FRAMESZ)
			len = snprintf(out, n, "%s", devargs);
		else
			len = snprintf(out, n, "%s,framesz=%u,blocksz=%u,"
				       "framecnt=%u", devargs, g.framesz,
				       g.blocksz, g.framecnt);
	}
	return len < 0 || (size_t)len >= n ? -ENAMETOOLONG : 0;
}

static int
kv_uint(const char *key __rte_unused, const char *value, void *arg)
{
	*(unsigned int *)arg = (unsigned int)strtoul(value, NULL, 0);
	return 0;
}

/* Ring geometry of a probed net_af_packet device, from its devargs. */
static void
afp_probed_geometry(const struct rte_eth_dev_info *info,
		    struct engine_afp_geo *g)
{
	const struct rte_devargs *da = rte_dev_devargs(info->device);
	struct rte_kvargs *kv;

	g->framesz = AFP_DFLT_FRAMESZ;
	g->blocksz = (unsigned int)getpagesize();
	g->framecnt = AFP_DFLT_FRAMECNT;
	if (da == NULL || da->args == NULL)
		return;
	kv = rte_kvargs_parse(da->args, NULL);
	if (kv == NULL)
		return;
	(void)rte_kvargs_process(kv, "framesz", kv_uint, &g->framesz);
	(void)rte_kvargs_process(kv, "blocksz", kv_uint, &g->blocksz);
	rte_kvargs_free(kv);
}

int
engine_afp_check(unsigned int port, unsigned int mtu, unsigned int framesz,
	      unsigned int blocksz, unsigned int mbuf_size, char *msg,
	      size_t n)
{
	unsigned int need = engine_afp_framesz_min(mtu);
	unsigned int room = mbuf_size - RTE_PKTMBUF_HEADROOM;

	if (framesz == 0 || blocksz % framesz != 0) {
		snprintf(msg, n, "net_af_packet blocksz %u is not a multiple "
			 "of framesz %u (the PMD would misplace frames): leave "
			 "framesz, blocksz and framecnt out of the devargs "
			 "(the engine derives them from port%u.mtu)", blocksz,
			 framesz, port);
		return -EINVAL;
	}
	if (framesz < need) {
		snprintf(msg, n, "port%u.mtu %u needs net_af_packet frames of "
			 "%u bytes but framesz is %u: leave framesz, blocksz "
			 "and framecnt out of the devargs (the engine derives "
			 "them from the MTU), or lower port%u.mtu", port, mtu,
			 need, framesz, port);
		return -EINVAL;
	}
	if (engine_afp_mbuf_room_min(framesz) > room) {
		snprintf(msg, n, "net_af_packet framesz %u needs mbufs of %u "
			 "data bytes but engine.mbuf_size %u leaves %u: set "
			 "engine.mbuf_size to at least %u", framesz,
			 engine_afp_mbuf_room_min(framesz), mbuf_size, room,
			 engine_afp_mbuf_room_min(framesz) +
			 RTE_PKTMBUF_HEADROOM);
		return -EINVAL;
	}
	return 0;
}

/*
 * net_af_packet's qpairs devarg opens that many packet sockets and joins
 * them in one PACKET_FANOUT group whose mode the 22.11 PMD fixes to
 * PACKET_FANOUT_HASH | _FLAG_DEFRAG | _FLAG_ROLLOVER (no devarg changes
 * it): the kernel spreads frames by the flow hash of the IP addresses and
 * UDP ports, so one PDC, whose entropy value is the UDP source port
 * (uet_wire_outer_ev_get()), lands on several queues, and frames hashed
 * to a socket
 * the engine does not poll wait in its ring until it is full. Every
 * socket must be one of the engine's queues.
 */
int
engine_afp_queues(unsigned int port, const struct rte_eth_dev_info *info,
		  unsigned int nb_rxq, char *msg, size_t n)
{
	if (strcmp(info->driver_name, "net_af_packet") != 0 ||
	    info->max_rx_queues <= nb_rxq)
		return 0;
	snprintf(msg, n, "net_af_packet qpairs=%u opens %u packet sockets in "
		 "one PACKET_FANOUT_HASH group but port%u polls %u queue(s): "
		 "the kernel would leave the frames it hashes to the others "
		 "unread; set qpairs=%u", info->max_rx_queues,
		 info->max_rx_queues, port, nb_rxq, nb_rxq);
	return -EINVAL;
}

/* MTU of the kernel interface @ifindex, or -errno. */
static int
kernel_mtu(unsigned int ifindex, char *name)
{
	struct ifreq ifr;
	int s, rc;

	if (if_indextoname(ifindex, name) == NULL)
		return -errno;
	s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (s < 0)
		return -errno;
	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", name);
	rc = ioctl(s, SIOCGIFMTU, &ifr) < 0 ? -errno : ifr.ifr_mtu;
	close(s);
	return rc;
}

/* net_af_packet above the PMD's 1500: the kernel interface must carry it. */
static int
afp_mtu_kernel(unsigned int port, const struct engine_port *p,
	       const struct uet_config_port *c,
	       const struct rte_eth_dev_info *info)
{
	char ifname[IF_NAMESIZE];
	int kmtu = kernel_mtu(info->if_index, ifname);

	if (kmtu < 0) {
		ENG_LOG(ERR, "%s: MTU of interface %u: %s", p->name,
			info->if_index, strerror(-kmtu));
		return kmtu;
	}
	if ((unsigned int)kmtu < c->mtu) {
		ENG_LOG(ERR, "port%u.mtu %u exceeds the MTU %d of interface "
			"%s: raise it (ip link set dev %s mtu %u) or lower "
			"port%u.mtu", port, c->mtu, kmtu, ifname, ifname,
			c->mtu, port);
		return -EINVAL;
	}
	return 0;
}

/*
 * Largest MTU ethdev lets through rte_eth_dev_set_mtu(): max_mtu where
 * the driver reports one, else max_rx_pktlen less the Ethernet header and
 * CRC (DPDK 22.11 eth_dev_validate_mtu()).
 */
static unsigned int
dev_max_mtu(const struct rte_eth_dev_info *info)
{
	unsigned int overhead = RTE_ETHER_HDR_LEN + RTE_ETHER_CRC_LEN;

	if (info->max_mtu != UINT16_MAX &&
	    info->max_rx_pktlen > info->max_mtu)
		overhead = info->max_rx_pktlen - info->max_mtu;
	return RTE_MIN((unsigned int)info->max_mtu,
		       info->max_rx_pktlen > overhead ?
		       info->max_rx_pktlen - overhead : 0u);
}

int
engine_port_mtu(const struct uet_engine *e, unsigned int port,
	     const struct rte_eth_dev_info *info)
{
	const struct uet_config_port *c = &e->cfg.port[port];
	const struct engine_port *p = &e->port[port];
	bool afp = strcmp(info->driver_name, "net_af_packet") == 0;
	/* net_memif carries any frame (pmd/core/port_memif.c) */
	unsigned int max_mtu = strcmp(info->driver_name, "net_memif") == 0 ?
			       ENG_MEMIF_MTU_MAX : dev_max_mtu(info);
	struct engine_afp_geo g;
	char msg[384];
	int rc;

	if (afp) {
		afp_probed_geometry(info, &g);
		rc = engine_afp_check(port, c->mtu, g.framesz, g.blocksz,
				   e->cfg.engine.mbuf_size, msg, sizeof(msg));
		if (rc < 0) {
			ENG_LOG(ERR, "%s: %s", p->name, msg);
			return rc;
		}
		if (c->mtu > max_mtu)
			return afp_mtu_kernel(port, p, c, info);
	}
	if (c->mtu > max_mtu) {
		ENG_LOG(ERR, "port%u.mtu %u exceeds the %s maximum of %u: "
			"lower port%u.mtu", port, c->mtu, info->driver_name,
			max_mtu, port);
		return -EINVAL;
	}
	rc = rte_eth_dev_set_mtu(p->port_id, c->mtu);
	if (rc < 0 && rc != -ENOTSUP) {
		ENG_LOG(ERR, "port%u (%s): MTU %u: %s", port, p->name, c->mtu,
			rte_strerror(-rc));
		return rc;
	}
	return 0;
}

/* net_af_xdp: how long a busy queue is waited for, first pause, longest */
#define AFX_BUSY_WAIT_MS 5000u
#define AFX_RETRY_FIRST_MS 20u
#define AFX_RETRY_MAX_MS 1000u

bool
engine_afx_is(const struct rte_eth_dev_info *info)
{
	return strcmp(info->driver_name, "net_af_xdp") == 0;
}

int
engine_afx_pool(struct uet_engine *e, unsigned int port)
{
	const struct uet_config_engine *c = &e->cfg.engine;
	struct engine_port *p = &e->port[port];
	char name[RTE_MEMPOOL_NAMESIZE];

	if (p->own_pool)
		rte_mempool_free(p->pool);
	snprintf(name, sizeof(name), "uetx_%s_%u", e->name, port);
	p->pool = rte_pktmbuf_pool_create(name, c->mbuf_pool_size,
					  c->mbuf_cache, 0, c->mbuf_size,
					  p->socket);
	p->own_pool = p->pool != NULL;
	engine_pool_fault_in(p->pool);
	if (p->pool == NULL) {
		ENG_LOG(ERR, "mbuf pool %s (%u x %u B) on socket %d: %s", name,
			c->mbuf_pool_size, c->mbuf_size, p->socket,
			rte_strerror(rte_errno));
		return -rte_errno;
	}
	return 0;
}

/*
 * A net_af_xdp port whose configuration failed: whether to probe it again
 * after a pause (true, having paused); false once AFX_BUSY_WAIT_MS are
 * spent. @p waited and @p pause (ms) start at 0.
 *
 * The kernel releases a closed AF_XDP socket's hold on its queue late:
 * the socket is freed after an RCU grace period (SOCK_RCU_FREE), and its
 * buffer pool is detached from the queue by deferred work that takes the
 * RTNL lock (xsk_destruct() -> xp_put_pool() -> xp_release_deferred(),
 * net/xdp/). Until then a new socket's bind() on that queue fails with
 * EBUSY, which the 22.11 PMD reports as EINVAL from the RX queue setup;
 * with network namespaces being torn down elsewhere (they hold the RTNL
 * lock) that lasted over a second here. Setting the queue up again on the
 * same ethdev is not safe: the PMD keeps the failed attempt's fill-ring
 * producer index (libxdp resets the consumer side only), so the next
 * fill ring would start 2048 entries ahead of what the kernel reads, and
 * it keeps that attempt's 2048 fill mbufs out of the pool. The caller
 * closes the port, gets a fresh pool and probes it again instead.
 */
bool
engine_afx_pause(const struct engine_port *p, unsigned int *waited,
	      unsigned int *pause)
{
	if (*waited >= AFX_BUSY_WAIT_MS) {
		ENG_LOG(ERR, "%s: no AF_XDP socket on its queue after %u ms: "
			"another AF_XDP socket holds the interface queue "
			"(another process?), or the kernel has not released one "
			"closed before; retry later", p->name, *waited);
		return false;
	}
	if (*pause == 0)
		ENG_LOG(INFO, "%s: AF_XDP socket refused (its queue not "
			"released yet by the kernel?): probing again for up to "
			"%u ms", p->name, AFX_BUSY_WAIT_MS);
	*pause = *pause == 0 ? AFX_RETRY_FIRST_MS :
		 RTE_MIN(*pause * 2, AFX_RETRY_MAX_MS);
	rte_delay_us_sleep(*pause * 1000);
	*waited += *pause;
	return true;
}
