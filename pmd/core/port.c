/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Ports and mbuf pools from the configuration.
 *
 * A port is found, in order, as an existing ethdev of that name (made by
 * the application, e.g. rte_eth_from_rings(), or by an EAL --vdev), or
 * probed with rte_dev_probe() (vdev string or PCI address). RSS hashes on
 * L3 addresses only, so that spraying over UDP source ports never moves a
 * PDC to another queue: one PDC stays on one engine lcore. Pools are per NUMA
 * socket.
 */

#include <errno.h>
#include <inttypes.h>
#include <string.h>
#include <unistd.h>

#include <numa.h>
#include <sched.h>

#include <rte_bus.h>
#include <rte_cycles.h>
#include <rte_dev.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_eal.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>
#include <rte_mbuf_pool_ops.h>
#include <rte_string_fns.h>

#include "engine_private.h"

#define PORT_RINGS "rings:"

static void
devname_of(const char *devargs, char *name, size_t n)
{
	size_t len = strcspn(devargs, ",");

	if (len >= n)
		len = n - 1;
	memcpy(name, devargs, len);
	name[len] = '\0';
}

/*
 * A net_memif port probed before the engine existed (an EAL --vdev) is
 * not the engine's to close, so the port gate (gate.c) covers neither its
 * probe nor its close: a client may connect before the server's start
 * (refused for good), and its close at rte_eal_cleanup() meets the
 * interrupt thread serving the peer's disconnect (and unmaps the memory of
 * memif's interrupt sources under that thread: a SIGSEGV at exit).
 */
static void
port_warn_memif_found(const struct engine_port *p)
{
	struct rte_eth_dev_info info;

	if (rte_eth_dev_info_get(p->port_id, &info) == 0 &&
	    strcmp(info.driver_name, "net_memif") == 0)
		ENG_LOG(WARNING,
			"%s: memif port probed before the engine (EAL --vdev?): "
			"its start and close are not guarded against the memif "
			"control channel; give the whole memif devargs in "
			"[port] devargs instead", p->name);
}

/* Find or probe the ethdev of @p devargs. */
static int
port_find(struct engine_port *p, const struct uet_config_port *c)
{
	char name[RTE_ETH_NAME_MAX_LEN];
	char afp[UET_CONFIG_STR_LEN + 64], devargs[UET_CONFIG_STR_LEN + 80];
	uint16_t id;
	int rc;

	devname_of(c->devargs, name, sizeof(name));
	if (rte_eth_dev_get_port_by_name(name, &id) == 0) {
		p->port_id = id;
		port_warn_memif_found(p);
		return 0;
	}
	/* net_af_packet: ring frames that hold the configured MTU;
	 * net_memif: buffers that do */
	rc = engine_afp_devargs(c->devargs, c->mtu, afp, sizeof(afp));
	if (rc == 0)
		rc = engine_memif_devargs(afp, c->mtu, devargs, sizeof(devargs));
	if (rc < 0)
		return rc;
	if (p->memif_lock < 0) {
		rc = engine_memif_stale_socket(devargs, &p->memif_lock);
		if (rc < 0)
			return rc;
	}
	rc = rte_dev_probe(devargs);
	if (rc < 0 && rc != -EEXIST) {
		ENG_LOG(ERR, "probe of '%s' failed: %s", devargs,
			rte_strerror(-rc));
		return rc;
	}
	if (rte_eth_dev_get_port_by_name(name, &id) != 0) {
		ENG_LOG(ERR, "'%s' probed but no ethdev named '%s'", devargs,
			name);
		return -ENODEV;
	}
	p->port_id = id;
	p->probed = rc == 0;
	return 0;
}

/* Socket of a port; SOCKET_ID_ANY (vdevs) -> socket of the serving CPU. */
int
engine_port_socket(const struct uet_engine *e, unsigned int port)
{
	int s = e->port[port].ring_rx != NULL ? SOCKET_ID_ANY :
		rte_eth_dev_socket_id(e->port[port].port_id);

	if (s >= 0)
		return s;
	if (!e->inline_mode && e->cfg.engine.nb_lcores > 0) {
		unsigned int l = e->cfg.engine.lcores[0];

		if (l < RTE_MAX_LCORE && rte_lcore_is_enabled(l))
			return (int)rte_lcore_to_socket_id(l);
	}
	/* inline mode: the caller's thread runs the loop */
	if (numa_available() >= 0) {
		int cpu = sched_getcpu();

		if (cpu >= 0 && numa_node_of_cpu(cpu) >= 0)
			return numa_node_of_cpu(cpu);
	}
	return 0;
}

/*
 * An mbuf pool that no device reads: objects may cross page boundaries
 * (RTE_MEMPOOL_F_NO_IOVA_CONTIG). rte_pktmbuf_pool_create() keeps each
 * object within a page where it can, and with 4 KiB pages (--no-huge) a
 * 4.5 KB mbuf then takes two pages: 45 % of such a pool is padding.
 */
struct rte_mempool *
uet_engine_mbuf_pool_cpu(const char *name, unsigned int n,
			 unsigned int cache, uint16_t room, int socket)
{
	struct rte_pktmbuf_pool_private priv = {
		.mbuf_data_room_size = room,
	};
	struct rte_mempool *mp;

	mp = rte_mempool_create_empty(name, n, sizeof(struct rte_mbuf) + room,
				      cache, sizeof(priv), socket,
				      RTE_MEMPOOL_F_NO_IOVA_CONTIG);
	if (mp == NULL)
		return NULL;
	if (rte_mempool_set_ops_byname(mp, rte_mbuf_best_mempool_ops(),
				       NULL) != 0)
		goto fail;
	rte_pktmbuf_pool_init(mp, &priv);
	if (rte_mempool_populate_default(mp) < 0)
		goto fail;
	rte_mempool_obj_iter(mp, rte_pktmbuf_init, NULL);
	return mp;
fail:
	rte_mempool_free(mp);
	rte_errno = ENOMEM;
	return NULL;
}

static void
pool_chunk_fault_in(struct rte_mempool *mp, void *arg,
		    struct rte_mempool_memhdr *memhdr, unsigned int idx)
{
	volatile uint8_t *b = memhdr->addr;
	size_t pg = *(const size_t *)arg;

	(void)mp;
	(void)idx;
	for (size_t off = 0; off < memhdr->len; off += pg)
		b[off] = b[off];
}

/*
 * Without hugepages (--no-huge) the EAL's memory is mapped but not
 * backed: a page of the pool is faulted in the first time an mbuf on it
 * is written, a few microseconds (tens in a virtual machine) that the
 * first pass of traffic through the pool pays, frame by frame (a 256 MB
 * transfer between two processes spent most of its time so). Write each
 * page once now instead; hugepages come backed. DPDK clears a pool's
 * memory when it is freed, which faults in every page not yet touched:
 * over the engine's life the cost is the same, moved out of the traffic.
 */
void
engine_pool_fault_in(struct rte_mempool *mp)
{
	long sz = sysconf(_SC_PAGESIZE);
	size_t pg = sz > 0 ? (size_t)sz : 4096;

	if (mp == NULL || rte_eal_has_hugepages())
		return;
	rte_mempool_mem_iter(mp, pool_chunk_fault_in, &pg);
}

/* Whether every port is a ring pair: no device reads the engine's mbufs. */
static bool
ports_all_rings(const struct uet_engine *e)
{
	for (unsigned int i = 0; i < uet_config_nb_ports(&e->cfg); i++)
		if (strncmp(e->cfg.port[i].devargs, PORT_RINGS,
			    strlen(PORT_RINGS)) != 0)
			return false;
	return true;
}

static struct rte_mempool *
pool_get(struct uet_engine *e, int socket)
{
	char name[RTE_MEMPOOL_NAMESIZE];
	const struct uet_config_engine *c = &e->cfg.engine;

	if (socket < 0 || socket >= RTE_MAX_NUMA_NODES)
		socket = 0;
	if (e->pools[socket] != NULL)
		return e->pools[socket];
	snprintf(name, sizeof(name), "uetmb_%s_%d", e->name, socket);
	if (ports_all_rings(e))
		e->pools[socket] = uet_engine_mbuf_pool_cpu(name,
				c->mbuf_pool_size, c->mbuf_cache, c->mbuf_size,
				socket);
	else
		e->pools[socket] = rte_pktmbuf_pool_create(name,
			c->mbuf_pool_size, c->mbuf_cache, 0, c->mbuf_size,
			socket);
	engine_pool_fault_in(e->pools[socket]);
	/* jumbo mbufs (mtu auto on a ring or memif port) make the default
	 * pool 152 MB: say which keys size it */
	if (e->pools[socket] == NULL)
		ENG_LOG(ERR, "mbuf pool %s (%u x %u B, %" PRIu64 " MiB) on socket "
			"%d: %s%s", name, c->mbuf_pool_size, c->mbuf_size,
			(uint64_t)c->mbuf_pool_size * c->mbuf_size >> 20, socket,
			rte_strerror(rte_errno), rte_errno != ENOMEM ? "" :
			": give the EAL more memory (eal.args -m) or lower "
			"engine.mbuf_pool_size, or the ports' mtu (auto: 9000 "
			"on net_memif and net_ring ports)");
	return e->pools[socket];
}

/*
 * UDP checksum (port.udp_checksum, IPv6 always): the port's offloads
 * where it has them, software (DPDK's rte_ipv4/6_udptcp_cksum) otherwise
 * (loop.c verifies, pmd/proto/proto_tx.c fills). Native-IP frames carry
 * none.
 */
static void
port_csum_offloads(const struct uet_engine *e, struct engine_port *p,
		   const struct uet_config_port *c,
		   const struct rte_eth_dev_info *info,
		   struct rte_eth_conf *conf)
{
	bool v4 = uet_config_port_udp_csum(&e->cfg, c);
	bool any = !c->native_ip && (v4 || c->has_ipv6);

	p->csum_v4 = v4;
	p->csum_tx_offload = any &&
		(info->tx_offload_capa & RTE_ETH_TX_OFFLOAD_UDP_CKSUM) != 0;
	p->csum_rx_offload = any &&
		(info->rx_offload_capa & RTE_ETH_RX_OFFLOAD_UDP_CKSUM) != 0;
	if (p->csum_tx_offload)
		conf->txmode.offloads |= RTE_ETH_TX_OFFLOAD_UDP_CKSUM;
	if (p->csum_rx_offload)
		conf->rxmode.offloads |= RTE_ETH_RX_OFFLOAD_UDP_CKSUM;
}

/*
 * Zero-copy transmit (port.tx_zero_copy): a frame of a header mbuf chained
 * to one attached to the application's buffer (rte_pktmbuf_attach_extbuf,
 * no IOVA: only drivers that read a frame by its virtual address take it).
 * net_memif (in copy mode: not with its zero-copy=yes, whose rings are
 * its own pool's buffers) and net_af_packet copy each segment into their
 * rings on TX and free the frame there, where they declare multi-segment
 * TX: the engine's copy is saved, auto turns it on. net_ring passes the
 * chain itself to the receiving engine, which linearizes it (the copy
 * moves there): only when asked for.
 */
static int
port_tx_ref(const struct uet_engine *e, struct engine_port *p,
	    const struct uet_config_port *c, const char *driver,
	    uint64_t tx_capa)
{
	bool copies = (strcmp(driver, "net_af_packet") == 0 ||
		       (strcmp(driver, "net_memif") == 0 &&
			strstr(c->devargs, "zero-copy=yes") == NULL)) &&
		      (tx_capa & RTE_ETH_TX_OFFLOAD_MULTI_SEGS) != 0;
	bool takes = copies || strcmp(driver, "net_ring") == 0;

	p->tx_ref = false;
	if (c->tx_zero_copy == UET_CONFIG_TX_ZC_ON && !takes) {
		ENG_LOG(ERR, "%s: tx_zero_copy = true: driver %s cannot send "
			"frames attached to application memory (net_ring, and "
			"net_memif in copy mode and net_af_packet with "
			"multi-segment TX, can); set it to auto or false",
			p->name, driver);
		return -ENOTSUP;
	}
	if (e->cfg.tss.enabled || c->tx_zero_copy == UET_CONFIG_TX_ZC_OFF)
		return 0;
	p->tx_ref = c->tx_zero_copy == UET_CONFIG_TX_ZC_ON || copies;
	ENG_LOG(INFO, "%s: tx_zero_copy %s (driver %s, multi-segment TX %s)",
		p->name, p->tx_ref ? "on" : "off", driver,
		(tx_capa & RTE_ETH_TX_OFFLOAD_MULTI_SEGS) ? "declared" :
							    "not declared");
	return 0;
}

static int
port_configure(struct uet_engine *e, struct engine_port *p,
	       const struct uet_config_port *c)
{
	struct rte_eth_conf conf;
	struct rte_eth_dev_info info;
	char msg[256];
	int rc;

	rc = rte_eth_dev_info_get(p->port_id, &info);
	if (rc < 0)
		return rc;
	if (c->rx_queues > info.max_rx_queues ||
	    c->rx_queues > info.max_tx_queues) {
		ENG_LOG(ERR, "%s: %u queues, device has %u rx / %u tx", p->name,
			c->rx_queues, info.max_rx_queues, info.max_tx_queues);
		return -EINVAL;
	}
	if (engine_afp_queues((unsigned int)(p - e->port), &info, c->rx_queues,
			      msg, sizeof(msg)) < 0) {
		ENG_LOG(ERR, "%s: %s", p->name, msg);
		return -EINVAL;
	}
	memset(&conf, 0, sizeof(conf));
	if (c->rx_queues > 1) {
		/* L3 only: UDP source port (EV) must not pick the queue */
		uint64_t hf = (RTE_ETH_RSS_IPV4 | RTE_ETH_RSS_IPV6 |
			       RTE_ETH_RSS_NONFRAG_IPV4_OTHER |
			       RTE_ETH_RSS_NONFRAG_IPV6_OTHER) &
			      info.flow_type_rss_offloads;

		/* ring ports: each queue is the ring the application wired
		 * (e.g. crossed queues between two contexts in tests) */
		bool wired = strcmp(info.driver_name, "net_ring") == 0;

		if (hf == 0 && !wired) {
			ENG_LOG(ERR, "%s: %u queues need L3 RSS", p->name,
				c->rx_queues);
			return -ENOTSUP;
		}
		if (hf != 0) {
			conf.rxmode.mq_mode = RTE_ETH_MQ_RX_RSS;
			conf.rx_adv_conf.rss_conf.rss_hf = hf;
		}
	}
	port_csum_offloads(e, p, c, &info, &conf);
	rc = port_tx_ref(e, p, c, info.driver_name, info.tx_offload_capa);
	if (rc < 0)
		return rc;
	if (p->tx_ref)
		conf.txmode.offloads |= info.tx_offload_capa &
					RTE_ETH_TX_OFFLOAD_MULTI_SEGS;
	p->nb_rxq = c->rx_queues;
	p->nb_txq = c->rx_queues;
	/* RX interrupts wake sleeping AUTO lcores (sleep.c); drivers
	 * without them ignore the request, one that refuses it is
	 * configured again without */
	conf.intr_conf.rxq = engine_rx_intr_wanted(e) ? 1 : 0;
	rc = rte_eth_dev_configure(p->port_id, p->nb_rxq, p->nb_txq, &conf);
	if (rc < 0 && conf.intr_conf.rxq) {
		ENG_LOG(INFO, "%s: no RX interrupts (%s): polled when idle",
			p->name, rte_strerror(-rc));
		conf.intr_conf.rxq = 0;
		rc = rte_eth_dev_configure(p->port_id, p->nb_rxq, p->nb_txq,
					   &conf);
	}
	if (rc < 0)
		return rc;
	rc = engine_port_mtu(e, (unsigned int)(p - e->port), &info);
	if (rc < 0)
		return rc;
	p->socket = engine_port_socket(e, (unsigned int)(p - e->port));
	if (engine_afx_is(&info)) {
		/* its UMEM is the pool's memory (port_kernel.c) */
		rc = engine_afx_pool(e, (unsigned int)(p - e->port));
		if (rc < 0)
			return rc;
	} else {
		p->pool = pool_get(e, p->socket);
		if (p->pool == NULL)
			return -rte_errno;
	}
	for (uint16_t q = 0; q < p->nb_rxq; q++) {
		uint16_t nrx = c->rx_desc, ntx = c->tx_desc;

		rc = rte_eth_dev_adjust_nb_rx_tx_desc(p->port_id, &nrx, &ntx);
		if (rc < 0)
			return rc;
		rc = rte_eth_rx_queue_setup(p->port_id, q, nrx,
					    (unsigned int)p->socket, NULL,
					    p->pool);
		/* net_af_xdp's EINVAL: most likely its AF_XDP socket's
		 * bind() found the queue busy (engine_afx_pause()) */
		if (rc < 0 && p->own_pool)
			return -EBUSY;
		if (rc < 0)
			return rc;
		rc = rte_eth_tx_queue_setup(p->port_id, q, ntx,
					    (unsigned int)p->socket, NULL);
		if (rc < 0)
			return rc;
	}
	return 0;
}

/* Addresses and frame options of a port, but its MAC. */
static void
port_fields(struct engine_port *p, const struct uet_config_port *c,
	    const struct uet_config_dscp *dscp)
{
	p->has_ipv4 = c->has_ipv4;
	memcpy(p->ipv4, &c->ipv4, 4);
	p->has_ipv6 = c->has_ipv6;
	memcpy(p->ipv6, &c->ipv6, 16);
	p->udp_port = c->udp_port;
	p->native = c->native_ip;
	p->ip_proto = c->ip_proto;
	p->mtu = c->mtu;
	p->opts.raw_ip = false;
	p->opts.native_proto = c->native_ip ? c->ip_proto : 0;
	/* the engine checks UDP checksums itself (loop.c), and knows the
	 * DSCPs a trimming switch marks (UEC 1.0 packet trimming) */
	p->opts.no_udp_csum = true;
	p->opts.trim_dscps = UET_OUTER_DSCP_BIT(dscp->trimmed) |
			     UET_OUTER_DSCP_BIT(dscp->trimmed_lasthop);
}

static int
port_addresses(struct engine_port *p, const struct uet_config_port *c,
	       const struct uet_config_dscp *dscp)
{
	int rc;

	port_fields(p, c, dscp);
	if (c->has_mac) {
		memcpy(p->mac.addr_bytes, c->mac, 6);
		/* accept frames for the override even if the NIC cannot */
		if (rte_eth_dev_default_mac_addr_set(p->port_id, &p->mac) < 0) {
			rc = rte_eth_promiscuous_enable(p->port_id);
			if (rc < 0 && rc != -ENOTSUP)
				return rc;
		}
		return 0;
	}
	return rte_eth_macaddr_get(p->port_id, &p->mac);
}

/*
 * A memif client whose server has not created its socket yet fails to
 * start (the processes of a job start in any order): try again every
 * PORT_START_RETRY_MS for PORT_START_WAIT_MS. Other devices fail at once.
 */
#define PORT_START_RETRY_MS 10
#define PORT_START_WAIT_MS 10000

static int
port_start(struct engine_port *p)
{
	struct rte_eth_dev_info info;
	unsigned int waited = 0;
	int rc = rte_eth_dev_start(p->port_id);

	if (rc == 0 || rte_eth_dev_info_get(p->port_id, &info) != 0 ||
	    strcmp(info.driver_name, "net_memif") != 0)
		return rc;
	ENG_LOG(INFO, "%s: memif peer not there yet, waiting up to %u ms",
		p->name, PORT_START_WAIT_MS);
	while (rc < 0 && waited < PORT_START_WAIT_MS) {
		rte_delay_us_sleep(PORT_START_RETRY_MS * 1000);
		waited += PORT_START_RETRY_MS;
		rc = rte_eth_dev_start(p->port_id);
	}
	return rc;
}

/* A "rings:NAME" port: the application's rings, a pool, the addresses. */
static int
port_rings_setup(struct uet_engine *e, struct engine_port *p,
		 const struct uet_config_port *c)
{
	const char *base = c->devargs + strlen(PORT_RINGS);
	char n[RTE_RING_NAMESIZE];
	struct rte_eth_conf conf;
	struct rte_eth_dev_info none;

	if (c->rx_queues != 1 || !c->has_mac) {
		ENG_LOG(ERR, "%s: a ring pair has one queue and needs the "
			"port's mac", p->name);
		return -EINVAL;
	}
	p->port_id = UINT16_MAX;
	snprintf(n, sizeof(n), "%srx", base);
	p->ring_rx = rte_ring_lookup(n);
	snprintf(n, sizeof(n), "%stx", base);
	p->ring_tx = rte_ring_lookup(n);
	if (p->ring_rx == NULL || p->ring_tx == NULL) {
		ENG_LOG(ERR, "%s: no rte_rings %srx and %stx", p->name, base,
			base);
		p->ring_rx = NULL;
		p->ring_tx = NULL;
		return -ENODEV;
	}
	memset(&conf, 0, sizeof(conf));
	memset(&none, 0, sizeof(none));
	port_csum_offloads(e, p, c, &none, &conf);
	if (port_tx_ref(e, p, c, "rings", 0) < 0)
		return -ENOTSUP;
	p->nb_rxq = 1;
	p->nb_txq = 1;
	p->socket = engine_port_socket(e, (unsigned int)(p - e->port));
	p->pool = pool_get(e, p->socket);
	if (p->pool == NULL)
		return -rte_errno;
	port_fields(p, c, &e->cfg.dscp);
	memcpy(p->mac.addr_bytes, c->mac, 6);
	return 0;
}

/* Close and remove a port we probed (its rte_device outlives the ethdev). */
static void
port_remove(struct engine_port *p)
{
	struct rte_eth_dev_info info;

	if (!p->probed)
		return;
	if (rte_eth_dev_info_get(p->port_id, &info) == 0) {
		(void)rte_eth_dev_close(p->port_id);
		(void)rte_dev_remove(info.device);
	}
	p->probed = false;
}

/* A net_af_xdp port we probed, whose RX queue setup failed (-EBUSY from
 * port_configure()): see engine_afx_pause() (port_kernel.c). */
static int
port_configure_again(struct uet_engine *e, struct engine_port *p,
		     const struct uet_config_port *c, int rc)
{
	unsigned int waited = 0, pause = 0;

	if (!p->own_pool || !p->probed)
		return rc;
	while (rc == -EBUSY && engine_afx_pause(p, &waited, &pause)) {
		port_remove(p);
		rc = port_find(p, c);
		if (rc < 0)
			return rc;
		rc = port_configure(e, p, c);
	}
	if (rc == 0 && waited != 0)
		ENG_LOG(INFO, "%s: AF_XDP socket created after %u ms", p->name,
			waited);
	return rc;
}

int
engine_ports_setup(struct uet_engine *e)
{
	int rc;

	e->nb_ports = uet_config_nb_ports(&e->cfg);
	if (e->nb_ports == 0)
		return -EINVAL;
	for (unsigned int i = 0; i < e->nb_ports; i++)
		e->port[i].memif_lock = -1;
	for (unsigned int i = 0; i < e->nb_ports; i++) {
		const struct uet_config_port *c = &e->cfg.port[i];
		struct engine_port *p = &e->port[i];

		/* truncates as snprintf("%s") would, which gcc 12 flags
		 * as a restrict overlap once port_rings_setup() is inlined */
		(void)rte_strscpy(p->name, c->devargs, sizeof(p->name));
		if (strncmp(c->devargs, PORT_RINGS, strlen(PORT_RINGS)) == 0) {
			rc = port_rings_setup(e, p, c);
			if (rc < 0)
				return rc;
			continue;
		}
		rc = port_find(p, c);
		if (rc < 0)
			return rc;
		rc = port_configure(e, p, c);
		rc = port_configure_again(e, p, c, rc);
		if (rc < 0) {
			ENG_LOG(ERR, "port %u (%s): configure: %s", i, p->name,
				rte_strerror(-rc));
			return rc;
		}
		rc = port_addresses(p, c, &e->cfg.dscp);
		if (rc < 0)
			return rc;
		rc = port_start(p);
		if (rc < 0) {
			ENG_LOG(ERR, "port %u (%s): start: %s", i, p->name,
				rte_strerror(-rc));
			return rc;
		}
		p->started = true;
	}
	return 0;
}

void
engine_ports_close(struct uet_engine *e)
{
	/* memif: nothing of the peer's disconnect may run meanwhile */
	if (engine_gate_hold(e) < 0)
		ENG_LOG(ERR, "ports closed with the interrupt thread free");
	for (unsigned int i = 0; i < e->nb_ports; i++) {
		struct engine_port *p = &e->port[i];

		if (p->started)
			(void)rte_eth_dev_stop(p->port_id);
		p->started = false;
		port_remove(p);
		engine_memif_unlock(e->cfg.port[i].devargs, p->memif_lock);
		p->memif_lock = -1;
	}
	for (unsigned int i = 0; i < e->nb_ports; i++) {
		struct engine_port *p = &e->port[i];

		if (p->own_pool)
			rte_mempool_free(p->pool);
		p->own_pool = false;
		p->pool = NULL;
	}
	for (unsigned int s = 0; s < RTE_MAX_NUMA_NODES; s++) {
		rte_mempool_free(e->pools[s]);
		e->pools[s] = NULL;
	}
	engine_gate_close(e);
}
