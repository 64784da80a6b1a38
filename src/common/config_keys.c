/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The key tables: name, type, storage, range and help of every key. The
 * loader, the override path and the dump all go through these rows, and
 * config/uet.conf is checked against uet_config_init_defaults() by a unit
 * test, so documentation and code cannot drift apart silently.
 */

#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_common.h>
#include <rte_config.h>

#include "config_private.h"

#define KB(x) ((uint64_t)(x) << 10)
#define MB(x) ((uint64_t)(x) << 20)
#define GB(x) ((uint64_t)(x) << 30)
#define US(x) ((uint64_t)(x) * 1000ULL)
#define MS(x) ((uint64_t)(x) * 1000000ULL)
#define SEC(x) ((uint64_t)(x) * 1000000000ULL)

#define FIELD(st, f) \
	.off = offsetof(st, f), .width = sizeof(((st *)0)->f)
#define AUX(st, f) .aux_off = offsetof(st, f)

/* Unsigned integer, size and duration rows. */
#define K_UINT(st, f, lo, hi, h) { .name = #f, .type = CFG_T_UINT, \
	FIELD(st, f), .min = (lo), .max = (hi), .help = (h) }
#define K_SIZE(st, f, lo, hi, fl, h) { .name = #f, .type = CFG_T_SIZE, \
	FIELD(st, f), .min = (lo), .max = (hi), .flags = (fl), .help = (h) }
#define K_DUR(n, st, f, lo, hi, fl, h) { .name = (n), .type = CFG_T_DUR, \
	FIELD(st, f), .min = (lo), .max = (hi), .flags = (fl), .help = (h) }
#define K_DBL(st, f, lo, hi, fl, h) { .name = #f, .type = CFG_T_DBL, \
	FIELD(st, f), .dmin = (lo), .dmax = (hi), .flags = (fl), .help = (h) }
#define K_BOOL(st, f, h) { .name = #f, .type = CFG_T_BOOL, FIELD(st, f), \
	.help = (h) }
#define K_ENUM(st, f, t, h) { .name = #f, .type = CFG_T_ENUM, \
	FIELD(st, f), .names = (t), .help = (h) }

static const struct uet_parse_name progress_names[] = {
	{ "auto", UET_CONFIG_PROGRESS_AUTO },
	{ "inline", UET_CONFIG_PROGRESS_INLINE },
	{ NULL, 0 },
};

/* the spellings of a boolean row, and auto */
static const struct uet_parse_name tx_zc_names[] = {
	{ "auto", UET_CONFIG_TX_ZC_AUTO },
	{ "true", UET_CONFIG_TX_ZC_ON },
	{ "false", UET_CONFIG_TX_ZC_OFF },
	{ "yes", UET_CONFIG_TX_ZC_ON },
	{ "no", UET_CONFIG_TX_ZC_OFF },
	{ "on", UET_CONFIG_TX_ZC_ON },
	{ "off", UET_CONFIG_TX_ZC_OFF },
	{ "1", UET_CONFIG_TX_ZC_ON },
	{ "0", UET_CONFIG_TX_ZC_OFF },
	{ NULL, 0 },
};

static const struct uet_parse_name udp_csum_names[] = {
	{ "auto", UET_CONFIG_UDP_CSUM_AUTO },
	{ "true", UET_CONFIG_UDP_CSUM_ON },
	{ "false", UET_CONFIG_UDP_CSUM_OFF },
	{ "yes", UET_CONFIG_UDP_CSUM_ON },
	{ "no", UET_CONFIG_UDP_CSUM_OFF },
	{ "on", UET_CONFIG_UDP_CSUM_ON },
	{ "off", UET_CONFIG_UDP_CSUM_OFF },
	{ "1", UET_CONFIG_UDP_CSUM_ON },
	{ "0", UET_CONFIG_UDP_CSUM_OFF },
	{ NULL, 0 },
};

static const struct uet_parse_name cc_names[] = {
	{ "fixed", UET_CONFIG_CC_NONE },
	{ "nscc", UET_CONFIG_CC_NSCC },
	{ "rccc", UET_CONFIG_CC_RCCC },
	{ "nscc+rccc", UET_CONFIG_CC_BOTH },
	{ "none", UET_CONFIG_CC_NONE },   /* earlier spellings */
	{ "both", UET_CONFIG_CC_BOTH },
	{ NULL, 0 },
};

static const struct uet_parse_name spray_names[] = {
	{ "single", UET_CONFIG_SPRAY_SINGLE },
	{ "oblivious", UET_CONFIG_SPRAY_OBLIVIOUS },
	{ "reps", UET_CONFIG_SPRAY_REPS },
	{ NULL, 0 },
};

static const struct uet_parse_name fabric_topo_names[] = {
	{ "leaf_spine", UET_CONFIG_FABRIC_LEAF_SPINE },
	{ "fat_tree", UET_CONFIG_FABRIC_FAT_TREE },
	{ NULL, 0 },
};

_Static_assert(sizeof(enum uet_config_fabric_topo) == sizeof(int),
	       "enum keys are stored as int");
_Static_assert(sizeof(enum uet_config_progress) == sizeof(int),
	       "enum keys are stored as int");
_Static_assert(sizeof(enum uet_config_cc_algo) == sizeof(int),
	       "enum keys are stored as int");
_Static_assert(sizeof(enum uet_config_spray_mode) == sizeof(int),
	       "enum keys are stored as int");
_Static_assert(UET_CONFIG_MAX_LCORES <= RTE_MAX_LCORE,
	       "engine.lcores cannot name more lcores than EAL supports");

static const struct config_key eal_keys[] = {
	{ .name = "args", .type = CFG_T_STR, FIELD(struct uet_config_eal, args),
	  .help = "arguments for rte_eal_init, split on spaces (no quoting)" },
};

#define P struct uet_config_port
static const struct config_key port_keys[] = {
	{ .name = "devargs", .type = CFG_T_STR, FIELD(P, devargs),
	  .help = "device: vdev string (net_ring0, net_memif0,role=client) "
		  "or PCI address; required" },
	K_UINT(P, rx_queues, 1, 64, "RX queues (RSS on L3 addresses)"),
	K_UINT(P, tx_queues, 1, 64, "TX queues"),
	K_UINT(P, rx_desc, 32, 16384, "descriptors per RX queue"),
	K_UINT(P, tx_desc, 32, 16384, "descriptors per TX queue"),
	{ .name = "mtu", .type = CFG_T_UINT, FIELD(P, mtu), .min = 68,
	  .max = 9216, .flags = CFG_F_AUTO,
	  .help = "IP MTU in bytes, the same at both ends of a link; auto: "
		  "9000 on net_memif and net_ring ports, 1500 on others" },
	K_UINT(P, udp_port, 1, 65535, "UET UDP destination port"),
	{ .name = "ipv4", .type = CFG_T_IPV4, .flags = CFG_F_NONE,
	  FIELD(P, ipv4), AUX(P, has_ipv4),
	  .help = "local fabric address (FA), IPv4" },
	{ .name = "ipv6", .type = CFG_T_IPV6, .flags = CFG_F_NONE,
	  FIELD(P, ipv6), AUX(P, has_ipv6),
	  .help = "local fabric address (FA), IPv6" },
	{ .name = "mac", .type = CFG_T_MAC, .flags = CFG_F_NONE,
	  FIELD(P, mac), AUX(P, has_mac),
	  .help = "source MAC override (unicast); none = the port's MAC" },
	K_BOOL(P, native_ip, "native-IP encapsulation (IP / entropy header / "
	       "PDS) instead of UDP"),
	K_UINT(P, ip_proto, 0, 255, "IP protocol number in native-IP mode"),
	K_ENUM(P, udp_checksum, udp_csum_names, "IPv4 frames: true computes "
	       "the UDP checksum and requires it; false sends 0 and verifies "
	       "only non-zero ones (RFC 768); auto: false on net_ring, "
	       "net_memif and native-IP ports, true on others and while "
	       "[fault] corrupts. IPv6 always sums"),
	K_ENUM(P, tx_zero_copy, tx_zc_names, "payloads of 1 KiB and more "
	       "attached to the frame from the application's buffer, not "
	       "copied: true on net_ring, net_memif, net_af_packet; auto: on "
	       "net_memif and net_af_packet; copied anyway under a software "
	       "UDP checksum or [tss]"),
};
#undef P

#define E struct uet_config_engine
static const struct config_key engine_keys[] = {
	{ .name = "lcores", .type = CFG_T_LCORES, FIELD(E, lcores),
	  AUX(E, nb_lcores), .max = RTE_MAX_LCORE - 1,
	  .help = "engine lcores, e.g. 1-3,5; must be enabled in eal.args" },
	K_ENUM(E, progress, progress_names, "auto: engine lcores progress; "
	       "inline: the application thread polls"),
	{ .name = "mbuf_pool_size", .type = CFG_T_UINT,
	  FIELD(E, mbuf_pool_size), .min = 1023, .max = 16777215,
	  .flags = CFG_F_AUTO,
	  .help = "mbufs in the packet pool; auto: 16383, fewer when mbufs "
		  "are large (at most 64 MiB), never fewer than the rings and "
		  "caches need" },
	K_UINT(E, mbuf_cache, 0, 512, "per-lcore mempool cache, mbufs"),
	{ .name = "mbuf_size", .type = CFG_T_UINT, FIELD(E, mbuf_size),
	  .min = 256, .max = 65535, .flags = CFG_F_AUTO,
	  .help = "mbuf data room in bytes, including the 128-byte "
		  "headroom; auto: the largest port mtu + 80 rounded up to "
		  "128, at least 2048, + 128" },
	K_UINT(E, burst, 1, 64, "RX/TX burst size, packets"),
	K_UINT(E, pdc_pool_general, 1, 65535, "PDC ids in the general pool"),
	K_UINT(E, pdc_pool_reserved, 0, 65535, "PDC ids in the reserved pool"),
	K_UINT(E, max_pdcs, 1, 1048576, "PDC state objects (all ports)"),
	K_UINT(E, msg_pool_size, 64, 16777216, "message descriptors"),
	K_UINT(E, retx_pool_size, 64, 16777216, "retransmit state entries"),
	K_DUR("idle_spin", E, idle_spin_ns, 0, MS(100), 0, "auto progress: "
	      "busy-poll this long without work before idle_sleep"),
	K_DUR("idle_sleep", E, idle_sleep_ns, 0, MS(1), 0, "auto progress: "
	      "first sleep of an idle lcore (doubled per idle wake-up up to "
	      "idle_sleep_max); 0 = never sleep, always busy-poll"),
	K_DUR("idle_sleep_max", E, idle_sleep_max_ns, US(1), SEC(1), 0,
	      "auto progress: longest sleep of an idle lcore without a "
	      "wake-up (a port without RX interrupts is polled that often), "
	      "and how long it leaves progress to an application thread that "
	      "polls; at least idle_sleep"),
	K_BOOL(E, rx_intr, "auto progress: a sleeping lcore is woken by the "
	       "RX queue interrupts of ports that have them (net_tap, NICs); "
	       "false: never ask ports for RX interrupts"),
	K_DUR("pid_wait", E, pid_wait_ns, 0, SEC(60), 0, "a send its target "
	      "answers BAD_PID (no process of that PIDonFEP there, or not "
	      "yet: a peer still setting up its endpoint) goes again, whole, "
	      "1 ms later, the wait doubling up to 64 ms, until this long "
	      "after the first BAD_PID, then fails with it; 0 = it fails at "
	      "once"),
	{ .name = "capture", .type = CFG_T_STR, .flags = CFG_F_EMPTY,
	  FIELD(E, capture),
	  .help = "pcapng file of every frame received and sent (uet-dump "
		  "reads it); empty = no capture; context N > 0 writes "
		  "PATH.N" },
};
#undef E

#define T struct uet_config_timers
static const struct config_key timers_keys[] = {
	K_DUR("rto_init", T, rto_init_ns, US(1), SEC(60), 0,
	      "retransmit timeout floor; RTO = min(max(rto_init, 2 x SRTT), "
	      "rto_max), the same at every retry"),
	K_DUR("rto_max", T, rto_max_ns, US(1), SEC(60), 0,
	      "cap of the RTT-derived RTO (at least rto_init), and of "
	      "the doubling terms of the dead-peer time"),
	K_UINT(T, rto_max_retries, 0, 30, "RTO expiries without progress "
	       "(Max_RTO_Retx_Cnt); past them the operations fail and the "
	       "PDC closes once the peer was also silent for sum(min(rto_init "
	       "x 2^k, rto_max), k = 0..rto_max_retries) (defaults: 1.93 s)"),
	K_SIZE(T, ack_coalesce_bytes, 1, MB(16), 0, "ACK when this many "
	       "bytes were counted since the last ACK"),
	K_SIZE(T, ack_min_add, 1, MB(1), 0, "bytes counted per packet at "
	       "least (max(ack_min_add, length))"),
	K_DUR("tlp_timeout", T, tlp_timeout_ns, 0, SEC(60), 0,
	      "tail-loss probe (PROBE CP) after this idle time; 0 = off"),
	K_DUR("close_idle", T, close_idle_ns, 0, SEC(3600), 0,
	      "close a PDC idle this long; 0 = never"),
	K_DUR("close_req_idle", T, close_req_idle_ns, 0, SEC(3600), 0,
	      "target: ask the initiator to close a PDC idle this long "
	      "(CLOSE_REQ, repeated, the PDC freed after rto_max_retries "
	      "unanswered); 0 = never"),
	K_DUR("tick", T, tick_ns, US(1), MS(100), 0,
	      "timer wheel granularity"),
	K_BOOL(T, syn_quiet, "for 200 ms after its first SYN the target "
	       "refuses every SYN it has no record of (NACK NEW_START_PSN, "
	       "one round trip), so a SYN sent before a restart is not run "
	       "twice (docs/WIRE-DECISIONS.md); off only where nothing can "
	       "have been sent to an earlier incarnation"),
	{ .name = "alive_dir", .type = CFG_T_STR, FIELD(T, alive_dir),
	  .help = "directory (0700) of a file per address with the time "
		  "the engine last ran, so that a restart is told to peers "
		  "(docs/CONFIG.md); auto: /run/uet-alive as root, else "
		  "$XDG_RUNTIME_DIR/uet-alive or /tmp/uet-alive-UID; off: "
		  "none" },
};
#undef T

#define C struct uet_config_cc
static const struct config_key cc_keys[] = {
	K_ENUM(C, algorithm, cc_names, "congestion control: fixed window "
	       "(engine: a full PSN window), NSCC, RCCC or both (a packet "
	       "goes when both allow)"),
	K_DUR("base_rtt", C, base_rtt_ns, US(1), SEC(1), 0,
	      "unloaded fabric round-trip time"),
	K_UINT(C, link_speed_mbps, 1, 1600000, "link speed, Mbit/s (BDP = "
	       "link_speed * base_rtt)"),
	K_BOOL(C, trimming, "the fabric trims packets (target_qdelay auto = "
	       "0.75 base_rtt, else 1.0 base_rtt)"),
	K_DUR("target_qdelay", C, target_qdelay_ns, 1, SEC(1), CFG_F_AUTO,
	      "NSCC target queueing delay"),
	K_SIZE(C, max_wnd, 1, GB(1), CFG_F_AUTO, "NSCC maximum and initial "
	       "window, bytes; auto = 1.5 BDP"),
	K_DBL(C, gamma, 0.001, 1.0, 0, "NSCC multiplicative decrease gain"),
	K_DBL(C, max_md_jump, 0.01, 1.0, 0, "NSCC smallest factor of one "
	      "decrease"),
	K_SIZE(C, fair_increase, 1, GB(1), CFG_F_AUTO, "NSCC fair increase "
	       "per period, bytes; auto = 5 MTU a"),
	K_DBL(C, fast_increase_scale, 1e-6, 1000.0, CFG_F_AUTO, "NSCC fast "
	      "increase scale; auto = 0.25 a"),
	K_SIZE(C, eta, 1, GB(1), CFG_F_AUTO, "NSCC additive increase per "
	       "period, bytes; auto = 0.15 MTU a"),
	K_DBL(C, alpha, 1e-6, 1e9, CFG_F_AUTO, "NSCC proportional increase, "
	      "bytes per us below target; auto = 4 a b MTU / target_qdelay"),
	K_UINT(C, qa_gate, 0, 16, "NSCC quick adapt when achieved < max_wnd "
	       ">> qa_gate"),
	K_DUR("qa_threshold", C, qa_threshold_ns, 1, SEC(1), CFG_F_AUTO,
	      "NSCC quick adapt delay threshold; auto = 4 target_qdelay "
	      "without trimming, off with it (trims trigger quick adapt)"),
	K_SIZE(C, adjust_bytes, 1, GB(1), CFG_F_AUTO, "NSCC apply increases "
	       "every this many bytes; auto = 8 MTU"),
	K_DUR("adjust_period", C, adjust_period_ns, 1, SEC(1), CFG_F_AUTO,
	      "NSCC apply increases at least this often; auto = base_rtt"),
	{ .name = "rccc_rate_mbps", .type = CFG_T_UINT, .flags = CFG_F_AUTO,
	  FIELD(C, rccc_rate_mbps), .min = 1, .max = 1600000,
	  .help = "RCCC pull pacer: grants 0.99 of this rate, Mbit/s; auto = "
		  "link_speed_mbps" },
	K_SIZE(C, rccc_quantum, 256, MB(16), CFG_F_AUTO, "RCCC credit granted "
	       "per source per round, bytes, a multiple of 256; auto = the "
	       "nominal MTU rounded up to 256"),
	K_SIZE(C, rccc_spec_credit, 256, GB(1), CFG_F_AUTO, "RCCC speculative "
	       "credit of a new PDC, bytes; auto = max_wnd"),
	K_BOOL(C, rccc_charge_marked, "RCCC pull pacer: ECN-marked data "
	       "beyond its source's grants (a speculative start that met a "
	       "queue) delays the next grants by its wire time"),
};
#undef C

#define S struct uet_config_spray
static const struct config_key spray_keys[] = {
	K_ENUM(S, mode, spray_names, "entropy (UDP source port) of each "
	       "packet: one per PDC (single), each EV once per round "
	       "(oblivious), recycled from unmarked ACKs (reps); ROD PDCs "
	       "always use a single path"),
	K_UINT(S, num_evs, 1, 65535, "EVs used (oblivious and reps need "
	       ">= 256)"),
	K_UINT(S, ev_base, 1, 65535, "first EV; EVs are ev_base .. ev_base + "
	       "num_evs - 1"),
	K_UINT(S, single_hold_rtts, 10, 1000000, "single path: a busy PDC "
	       "moves to another EV after a loss at most once per this many "
	       "RTTs ([cc] base_rtt); an idle one at once"),
	K_UINT(S, reps_cache_size, 1, 8, "REPS ring of recycled EVs"),
	K_DUR("reps_freeze_duration", S, reps_freeze_duration_ns, US(1),
	      SEC(10), 0, "after a loss (timeout or SACK), REPS reuses only "
	      "cached EVs and explores none for this long (htsim's 10 ms); "
	      "then it empties its ring and explores 16 fresh EVs"),
};
#undef S

#define D struct uet_config_dscp
static const struct config_key dscp_keys[] = {
	K_UINT(D, data, 0, 63, "DSCP of data packets (trimmable)"),
	K_UINT(D, control, 0, 63, "DSCP of ACK/NACK/CP packets"),
	K_UINT(D, trimmed, 0, 63, "DSCP a switch gives a trimmed packet"),
	K_UINT(D, trimmed_lasthop, 0, 63, "DSCP of a packet trimmed at the "
	       "last hop"),
	K_UINT(D, trimmable_retx, 0, 63, "DSCP of trimmable retransmissions"),
};
#undef D

#define F struct uet_config_fault
#define K_PPM(dir, cls, kind, DIR, CLS, KIND) { \
	.name = #dir "_" #cls "_" #kind "_ppm", .type = CFG_T_UINT, \
	FIELD(F, ppm[UET_CONFIG_FAULT_##DIR][UET_CONFIG_FAULT_##CLS] \
		    [UET_CONFIG_FAULT_##KIND]), \
	.min = 0, .max = 1000000, \
	.help = #kind " rate of " #dir " " #cls " packets, parts per million" }
#define K_PPM_ALL(dir, cls, DIR, CLS) \
	K_PPM(dir, cls, drop, DIR, CLS, DROP), \
	K_PPM(dir, cls, dup, DIR, CLS, DUP), \
	K_PPM(dir, cls, reorder, DIR, CLS, REORDER), \
	K_PPM(dir, cls, delay, DIR, CLS, DELAY), \
	K_PPM(dir, cls, ecn, DIR, CLS, ECN), \
	K_PPM(dir, cls, trim, DIR, CLS, TRIM), \
	K_PPM(dir, cls, corrupt, DIR, CLS, CORRUPT)
static const struct config_key fault_keys[] = {
	K_BOOL(F, enabled, "inject the faults below (every build: uet-perf "
	       "--loss uses it)"),
	K_UINT(F, seed, 0, UINT64_MAX, "random seed"),
	K_DUR("delay", F, delay_ns, 0, SEC(1), 0, "latency added by a delay "
	      "fault"),
	K_UINT(F, reorder_depth, 1, 1024, "packets a reorder fault lets "
	       "overtake the held one"),
	K_DUR("from", F, from_ns, 0, SEC(3600), 0, "faults apply from this "
	      "time after the engine's creation (0: from the start)"),
	K_DUR("until", F, until_ns, 0, SEC(3600), 0, "faults stop this "
	      "time after the engine's creation (0: never); frames outside "
	      "from .. until pass untouched"),
	K_PPM_ALL(rx, data, RX, DATA),
	K_PPM_ALL(rx, control, RX, CONTROL),
	K_PPM_ALL(tx, data, TX, DATA),
	K_PPM_ALL(tx, control, TX, CONTROL),
};
#undef F

/* fail, restore and rate lines are not table rows: config_fabric.c */
#define B struct uet_config_fabric
static const struct config_key fabric_keys[] = {
	K_ENUM(B, topology, fabric_topo_names, "shape of the emulated "
	       "network"),
	K_UINT(B, hosts, 2, 1024, "emulated hosts (fat_tree: must be "
	       "k^3/4)"),
	K_UINT(B, hosts_per_leaf, 1, 63, "leaf_spine only: hosts on each "
	       "leaf"),
	K_UINT(B, spines, 1, 63, "leaf_spine only: spines, each linked to "
	       "every leaf"),
	K_UINT(B, k, 2, 16, "fat_tree only: even K (K pods, K^3/4 hosts)"),
	K_UINT(B, link_rate_mbps, 1, 1600000, "rate of every link, Mbit/s"),
	K_DUR("link_delay", B, link_delay_ns, 0, SEC(1), 0, "propagation "
	      "delay of every link"),
	K_DUR("base_rtt", B, base_rtt_ns, 1, SEC(1), CFG_F_AUTO, "base RTT "
	      "of the plane BDP (rate x base_rtt); auto = unloaded round "
	      "trip of the longest path"),
	K_UINT(B, mtu, 68, 9216, "IP MTU of the hosts; the fabric carries "
	       "frames of mtu + 18 bytes"),
	K_UINT(B, frame_pool, 64, 1u << 24, "frames the fabric holds at "
	       "once (queues and links)"),
	K_SIZE(B, host_queue, KB(1), GB(1), 0, "a host's NIC queue, bytes "
	       "(backpressure beyond it)"),
	K_BOOL(B, trimming, "switches trim data packets above trim (else "
	       "tail drop above queue)"),
	K_BOOL(B, ecn, "switches mark ECN between ecn_min and ecn_max"),
	K_DBL(B, ecn_min, 0, 10, 0, "ECN marking starts, BDP"),
	K_DBL(B, ecn_max, 0.001, 10, 0, "ECN marking probability reaches 1, "
	      "BDP"),
	K_DBL(B, trim, 0.001, 10, 0, "trim threshold of the data queue, BDP"),
	K_DBL(B, trim_retx, 0.001, 10, 0, "trim threshold for the "
	      "trimmable-retransmit DSCP, BDP"),
	K_DBL(B, queue, 2, 5, 0, "tail drop (data and control queues) "
	      "above this, BDP"),
	K_UINT(B, loss_ppm, 0, 1000000, "random loss per link traversal, "
	       "parts per million"),
	K_BOOL(B, failover, "switches leave failed links out of ECMP (else "
	       "frames hashed onto them are lost)"),
	K_UINT(B, seed, 0, UINT64_MAX, "ECMP hash and random loss seed"),
};
#undef B

#define V struct uet_config_service
static const struct config_key service_keys[] = {
	{ .name = "socket", .type = CFG_T_STR, FIELD(V, socket),
	  .help = "UNIX socket clients attach to (uet-engine --socket "
		  "overrides it); its directory must belong to root or the "
		  "service's user and be writable by nobody else (created "
		  "0755 when absent)" },
	{ .name = "socket_mode", .type = CFG_T_STR, FIELD(V, socket_mode),
	  .help = "permissions of the socket file, octal 0000..0777: who "
		  "may connect (write permission)" },
	{ .name = "socket_group", .type = CFG_T_STR, .flags = CFG_F_EMPTY,
	  FIELD(V, socket_group),
	  .help = "group of the socket file, a name or a number; empty = "
		  "the service's group" },
	K_SIZE(V, window_size, KB(64), GB(1), 0, "data window of each client "
	       "(payload staging shared with the engine), a multiple of 4K; "
	       "also the largest message of a client"),
	K_UINT(V, max_clients, 1, 1024, "clients attached at once (more are "
	       "refused)"),
	K_UINT(V, max_chans, 1, 64, "channels (endpoints) per client"),
	K_UINT(V, max_pids, 1, 224, "PIDonFEPs per client (each engine "
	       "context hosts 7 for clients)"),
	{ .name = "jobs", .type = CFG_T_STR, FIELD(V, jobs),
	  .help = "JobIDs the service grants: JobIDs and ranges, "
		  "comma-separated (1-100,200), at most 16; who may use "
		  "which: job.N lines, else the first user to take it" },
	K_UINT(V, user_clients, 1, 1024, "connections of one user (uid) at "
	       "once"),
	K_UINT(V, user_pids, 1, 7168, "PIDonFEPs of one user, all its "
	       "connections together"),
	K_UINT(V, user_jobs, 1, 262144, "{JobID, PIDonFEP} authorisations "
	       "of one user"),
	K_UINT(V, user_mrs, 1, 4194304, "memory keys of one user"),
	K_UINT(V, user_peers, 1, 67108864, "peer handles of one user"),
	K_UINT(V, pid_ops, 1, 1048576, "operations in progress (sends and "
	       "posted receives) of one client PIDonFEP on its engine "
	       "context; past it a receive completes with ENOSPC and sends "
	       "wait"),
	K_SIZE(V, user_window, KB(64), GB(1024), 0, "shared memory of one "
	       "user's connections (each takes its data window, its rings "
	       "and a page)"),
	K_DUR("hello_timeout", V, hello_timeout_ns, MS(1), SEC(60), 0,
	      "a connection that has not said HELLO by then is closed"),
	K_DUR("idle_timeout", V, idle_timeout_ns, MS(1), SEC(86400), 0,
	      "a connection that holds no PIDonFEP and sends nothing for "
	      "this long is closed"),
	K_DUR("mem_timeout", V, mem_timeout_ns, US(10), SEC(1), 0,
	      "longest an engine lcore waits for an access to a client's "
	      "memory; a slower one fails as a memory fault"),
	K_DUR("mem_hold_off", V, mem_hold_off_ns, 0, SEC(60), 0,
	      "after an access timed out, that user's accesses fail at once "
	      "until it finished and this long after"),
};
#undef V

static const struct uet_parse_name tss_mode_names[] = {
	{ "direct", UET_CONFIG_TSS_DIRECT },
	{ "cluster", UET_CONFIG_TSS_CLUSTER },
	{ "client_server", UET_CONFIG_TSS_CLIENT_SERVER },
	{ NULL, 0 },
};

static const struct uet_parse_name tss_pdc_start_names[] = {
	{ "pds", UET_CONFIG_TSS_START_PDS },
	{ "random_1rtt", UET_CONFIG_TSS_START_RANDOM_1RTT },
	{ "expected_0rtt", UET_CONFIG_TSS_START_EXPECTED_0RTT },
	{ NULL, 0 },
};

static const struct uet_parse_name tss_role_names[] = {
	{ "none", UET_CONFIG_TSS_ROLE_NONE },
	{ "server", UET_CONFIG_TSS_ROLE_SERVER },
	{ "client", UET_CONFIG_TSS_ROLE_CLIENT },
	{ NULL, 0 },
};

_Static_assert(sizeof(enum uet_config_tss_pdc_start) == sizeof(int),
	       "enum keys are stored as int");
_Static_assert(sizeof(enum uet_config_tss_mode) == sizeof(int),
	       "enum keys are stored as int");
_Static_assert(sizeof(enum uet_config_tss_role) == sizeof(int),
	       "enum keys are stored as int");

#define T struct uet_config_tss
static const struct config_key tss_keys[] = {
	K_BOOL(T, enabled, "protect the jobs of the domain.SDI lines: "
	       "AES-GCM-256 over every packet of theirs, the others' "
	       "refused"),
	K_ENUM(T, mode, tss_mode_names, "direct: one key per domain; "
	       "cluster: a key per source derived from it; client_server: "
	       "clients hold keys derived for their SSI, servers the "
	       "domain key"),
	K_ENUM(T, role, tss_role_names, "client_server mode: server (the "
	       "domain.SDI key files hold domain keys) or client (they hold "
	       "this client's keys, from uet-tss-key derive); none "
	       "otherwise"),
	K_UINT(T, ssi, 0, UINT32_MAX, "client_server mode, role = client: "
	       "this client's SSI, the one its key files were derived for; "
	       "0 = unset"),
	{ .name = "pmd", .type = CFG_T_STR, FIELD(T, pmd),
	  .help = "cryptodev driver of the AEAD: crypto_aesni_gcm, "
		  "crypto_aesni_mb (ipsec_mb), crypto_openssl, ..." },
	{ .name = "pmd_devargs", .type = CFG_T_STR, .flags = CFG_F_EMPTY,
	  FIELD(T, devargs),
	  .help = "arguments of the crypto vdev; empty = none" },
	K_UINT(T, replay_window, 64, 4096, "per-source replay window, in "
	       "TSCs, a multiple of 64"),
	K_UINT(T, rekey_interval, 0, UINT64_MAX, "TSCs between key "
	       "rotations (cluster mode, at least replay_window); 0 = off"),
	{ .name = "state_dir", .type = CFG_T_STR, .flags = CFG_F_EMPTY,
	  FIELD(T, state_dir),
	  .help = "directory (0700, the engine's user's) of each key's TSC "
		  "reservation, so that a restart never reuses an IV; "
		  "required with enabled" },
	K_DUR("epoch_switch", T, epoch_switch_ns, MS(1), SEC(3600), 0,
	      "after a reload brought a new domain key: its packets are "
	      "accepted at once, sent this long after, and the old key's "
	      "refused twice this long after (every host reloads within it)"),
	K_ENUM(T, pdc_start, tss_pdc_start_names, "a new PDC opens: pds, at "
	       "once under the PDS's rules; random_1rtt, refused once, "
	       "under the Start_PSN named; expected_0rtt, at once at or "
	       "after its domain's Expected_PSN, which closes move on, "
	       "else refused once (docs/TSS.md)"),
};
#undef T

#define SEC_ROW(n, id, k, field, h) \
	[id] = { n, id, k, RTE_DIM(k), offsetof(struct uet_config, field), h }

const struct config_section config_sections[CFG_S_COUNT] = {
	SEC_ROW("eal", CFG_S_EAL, eal_keys, eal,
		"EAL initialisation"),
	SEC_ROW("port", CFG_S_PORT, port_keys, port,
		"ports [port0] .. [port7], numbered from 0 without gaps; a "
		"[portN] section in a file replaces the default port set"),
	SEC_ROW("engine", CFG_S_ENGINE, engine_keys, engine,
		"engine lcores and pools"),
	SEC_ROW("timers", CFG_S_TIMERS, timers_keys, timers,
		"PDS timers and ACK coalescing"),
	SEC_ROW("cc", CFG_S_CC, cc_keys, cc,
		"congestion control (UEC 1.0 NSCC, RCCC); auto values derive "
		"from link_speed_mbps, base_rtt and port0.mtu"),
	SEC_ROW("spray", CFG_S_SPRAY, spray_keys, spray,
		"load balancing: the EV (UDP source port) of every packet "
		"(UEC 1.0 3.6.16)"),
	SEC_ROW("dscp", CFG_S_DSCP, dscp_keys, dscp,
		"DSCP per traffic class"),
	[CFG_S_NEIGHBOR] = { "neighbor", CFG_S_NEIGHBOR, NULL, 0,
		offsetof(struct uet_config, neighbor),
		"static ARP/ND entries, one per line: <ipv4 or ipv6> = <mac>; "
		"at most 64" },
	SEC_ROW("fault", CFG_S_FAULT, fault_keys, fault,
		"fault injection (tests, uet-perf --loss); rates in parts per "
		"million"),
	SEC_ROW("fabric", CFG_S_FABRIC, fabric_keys, fabric,
		"the emulated fabric of uet-perf --fabric (an engine on real "
		"ports does not read it); besides the keys, any number (at "
		"most 16) of schedule lines: fail = LINK at T, restore = LINK "
		"at T, rate = LINK MBPS at T, LINK as leaf0-spine1"),
	SEC_ROW("service", CFG_S_SERVICE, service_keys, service,
		"the uet-engine service (apps/uet-engine, docs/SERVICE.md); "
		"other programs do not read it"),
	SEC_ROW("tss", CFG_S_TSS, tss_keys, tss,
		"transport security (docs/TSS.md); besides the keys, one line "
		"per secure domain (at most 16): domain.SDI = JOBS KEYFILE, "
		"JobIDs as 1-100,200, the key file 64 hex digits, mode 0600"),
};

void
config_port_defaults(struct uet_config_port *p)
{
	memset(p, 0, sizeof(*p));
	p->rx_queues = 1;
	p->tx_queues = 1;
	p->rx_desc = 1024;
	p->tx_desc = 1024;
	p->mtu = 0; /* auto: by port type */
	p->udp_port = 4793;
	p->ip_proto = 253;
	p->udp_checksum = UET_CONFIG_UDP_CSUM_AUTO;
	p->tx_zero_copy = UET_CONFIG_TX_ZC_AUTO;
}

/* The fixed window by default; the NSCC and RCCC values are UEC 1.0's
 * (most derived, "auto"). */
void
config_cc_defaults(struct uet_config_cc *c)
{
	memset(c, 0, sizeof(*c));
	c->algorithm = UET_CONFIG_CC_NONE;
	c->base_rtt_ns = US(12);
	c->link_speed_mbps = 100000;
	c->trimming = true;
	c->gamma = 0.8;
	c->max_md_jump = 0.5;
	c->qa_gate = 3;
	c->rccc_charge_marked = true;
}

void
config_spray_defaults(struct uet_config_spray *s)
{
	memset(s, 0, sizeof(*s));
	s->mode = UET_CONFIG_SPRAY_SINGLE;
	s->num_evs = 256;
	s->ev_base = 49152;
	s->single_hold_rtts = 10;
	s->reps_cache_size = 8;
	s->reps_freeze_duration_ns = MS(10); /* htsim's */
}

const char *
config_key_unbuilt(const struct config_section *sec, const struct config_key *k)
{
	/* every key of a built section is built today; the mechanism stays
	 * for sections that land before their implementation */
	(void)sec;
	(void)k;
	return NULL;
}

void
uet_config_init_defaults(struct uet_config *cfg)
{
	unsigned int i;

	memset(cfg, 0, sizeof(*cfg));
	/*
	 * --no-huge/-m: runs in containers and CI without hugepages;
	 * --no-shconf: no shared runtime files, so two processes never
	 * collide (DPDK 22.11 refuses --in-memory with --no-huge; with
	 * hugepages use --in-memory instead);
	 * --no-pci: the default port is a vdev. Real NICs: drop --no-pci
	 * and --no-huge.
	 */
	strcpy(cfg->eal.args, "-l 0-1 --no-huge -m 512 --no-shconf --no-pci");

	for (i = 0; i < UET_CONFIG_MAX_PORTS; i++)
		config_port_defaults(&cfg->port[i]);
	/* A self-contained loopback port: net_ring0 receives what it sends. */
	cfg->port[0].defined = true;
	strcpy(cfg->port[0].devargs, "net_ring0");
	cfg->port[0].has_ipv4 = true;
	cfg->port[0].ipv4.s_addr = htonl(0x0a000001); /* 10.0.0.1 */

	cfg->engine.lcores[0] = 1;
	cfg->engine.nb_lcores = 1;
	cfg->engine.progress = UET_CONFIG_PROGRESS_AUTO;
	cfg->engine.mbuf_pool_size = 0; /* auto: from the mbuf size */
	cfg->engine.mbuf_cache = 256;
	cfg->engine.idle_spin_ns = US(20);
	cfg->engine.idle_sleep_ns = US(10);
	cfg->engine.idle_sleep_max_ns = MS(1);
	cfg->engine.rx_intr = true;
	cfg->engine.pid_wait_ns = SEC(2);
	cfg->engine.mbuf_size = 0; /* auto: from the port MTUs */
	cfg->engine.burst = 32;
	cfg->engine.pdc_pool_general = 4096;
	cfg->engine.pdc_pool_reserved = 256;
	cfg->engine.max_pdcs = 8192;
	cfg->engine.msg_pool_size = 65536;
	cfg->engine.retx_pool_size = 65536;

	cfg->timers.rto_init_ns = MS(1);
	cfg->timers.rto_max_ns = MS(100);
	cfg->timers.rto_max_retries = 24;
	cfg->timers.ack_coalesce_bytes = KB(16);
	cfg->timers.ack_min_add = KB(1);
	cfg->timers.tlp_timeout_ns = US(500);
	cfg->timers.close_idle_ns = MS(100);
	cfg->timers.close_req_idle_ns = SEC(1);
	cfg->timers.tick_ns = US(10);
	cfg->timers.syn_quiet = true; /* uet_pds_config_default() */
	snprintf(cfg->timers.alive_dir, sizeof(cfg->timers.alive_dir), "auto");

	config_cc_defaults(&cfg->cc);
	config_spray_defaults(&cfg->spray);
	config_fabric_defaults(&cfg->fabric);
	config_tss_defaults(&cfg->tss);

	cfg->dscp.data = 0;
	cfg->dscp.control = 46;
	cfg->dscp.trimmed = 16;
	cfg->dscp.trimmed_lasthop = 18;
	cfg->dscp.trimmable_retx = 8;

	cfg->fault.enabled = false;
	cfg->fault.seed = 1;
	cfg->fault.delay_ns = US(10);
	cfg->fault.reorder_depth = 4;

	snprintf(cfg->service.socket, sizeof(cfg->service.socket), "%s",
		 "/run/uet-engine/uet-engine.sock");
	snprintf(cfg->service.socket_mode, sizeof(cfg->service.socket_mode),
		 "%s", "0660");
	cfg->service.window_size = MB(16);
	cfg->service.max_clients = 64;
	cfg->service.max_chans = 16;
	cfg->service.max_pids = 8;
	snprintf(cfg->service.jobs, sizeof(cfg->service.jobs), "%s", "1");
	/* one user at most a quarter of the connections and about half of
	 * what one engine context holds (7 client PIDonFEPs, 16 jobs, 1024
	 * keys, 65536 peers) */
	cfg->service.user_clients = 16;
	cfg->service.user_pids = 4;
	cfg->service.user_jobs = 8;
	cfg->service.user_mrs = 512;
	cfg->service.user_peers = 32768;
	cfg->service.user_window = GB(1);
	cfg->service.hello_timeout_ns = SEC(2);
	cfg->service.idle_timeout_ns = SEC(60);
	cfg->service.mem_timeout_ns = MS(1);
	cfg->service.pid_ops = 512;
	cfg->service.mem_hold_off_ns = SEC(1);
}

const struct config_key *
config_key_find(const struct config_section *sec, const char *name)
{
	unsigned int i;

	for (i = 0; i < sec->nb_keys; i++) {
		if (strcmp(sec->keys[i].name, name) == 0)
			return &sec->keys[i];
	}
	return NULL;
}

static void
store_uint(void *field, unsigned int width, uint64_t v)
{
	uint8_t u8 = (uint8_t)v;
	uint16_t u16 = (uint16_t)v;
	uint32_t u32 = (uint32_t)v;

	switch (width) {
	case 1:
		memcpy(field, &u8, 1);
		break;
	case 2:
		memcpy(field, &u16, 2);
		break;
	case 4:
		memcpy(field, &u32, 4);
		break;
	default:
		memcpy(field, &v, 8);
		break;
	}
}

/* Largest value a field of @width bytes can hold, clamped to the row. */
static uint64_t
width_max(const struct config_key *k)
{
	uint64_t m = k->width >= 8 ? UINT64_MAX :
		     (1ULL << (8 * k->width)) - 1;

	return k->max < m ? k->max : m;
}

static int
check_string(const struct config_key *k, const char *value,
	     struct uet_parse_err *pe)
{
	size_t i, n = strlen(value);

	if (n >= k->width) {
		uet_parse_err_set(pe, "string of %zu characters is too long "
				  "(at most %u)", n, k->width - 1u);
		return -ERANGE;
	}
	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)value[i];

		/* '#' would start a comment when the dump is loaded again. */
		if (c < 0x20 || c == 0x7f || c == CFG_COMMENT_CHAR) {
			uet_parse_err_set(pe, "character %u at offset %zu is "
					  "not allowed in a string", c, i);
			return -EINVAL;
		}
	}
	if (n > 0 && (value[0] == ' ' || value[n - 1] == ' ')) {
		uet_parse_err_set(pe, "leading or trailing whitespace");
		return -EINVAL;
	}
	return 0;
}

static bool
mac_is_unicast(const uint8_t mac[6])
{
	static const uint8_t zero[6];

	return (mac[0] & 0x01) == 0 && memcmp(mac, zero, 6) != 0;
}

static int
parse_unicast_mac(const char *value, uint8_t mac[6],
		  struct uet_parse_err *pe)
{
	int rc;

	rc = uet_parse_mac(value, mac, pe);
	if (rc == 0 && !mac_is_unicast(mac)) {
		uet_parse_err_set(pe, "'%s' is not a unicast MAC address",
				  value);
		rc = -EINVAL;
	}
	return rc;
}

/* Parse a numeric row into @v; the caller stores it. */
static int
parse_number(const struct config_key *k, const char *value, uint64_t *v,
	     double *d, struct uet_parse_err *pe)
{
	switch (k->type) {
	case CFG_T_UINT:
		return uet_parse_u64(value, k->min, width_max(k), v, pe);
	case CFG_T_SIZE:
		return uet_parse_size(value, k->min, width_max(k), v, pe);
	case CFG_T_DUR:
		return uet_parse_duration_ns(value, k->min, k->max, v, pe);
	default:
		return uet_parse_double(value, k->dmin, k->dmax, d, pe);
	}
}

static int
set_typed(const struct config_key *k, char *field, char *aux, const char *value,
	  struct uet_parse_err *pe)
{
	uint16_t lcores[UET_CONFIG_MAX_LCORES];
	struct in6_addr a6;
	struct in_addr a4;
	unsigned int n;
	uint8_t mac[6];
	uint64_t v = 0;
	uint16_t n16;
	double d = 0;
	bool b;
	int e, rc;

	switch (k->type) {
	case CFG_T_STR:
		rc = check_string(k, value, pe);
		if (rc == 0)
			strcpy(field, value);
		return rc;
	case CFG_T_BOOL:
		rc = uet_parse_bool(value, &b, pe);
		if (rc == 0)
			memcpy(field, &b, sizeof(b));
		return rc;
	case CFG_T_ENUM:
		rc = uet_parse_enum(value, k->names, &e, pe);
		if (rc == 0)
			memcpy(field, &e, sizeof(e));
		return rc;
	case CFG_T_IPV4:
		rc = uet_parse_ipv4(value, &a4, pe);
		if (rc == 0)
			memcpy(field, &a4, sizeof(a4));
		break;
	case CFG_T_IPV6:
		rc = uet_parse_ipv6(value, &a6, pe);
		if (rc == 0)
			memcpy(field, &a6, sizeof(a6));
		break;
	case CFG_T_MAC:
		rc = parse_unicast_mac(value, mac, pe);
		if (rc == 0)
			memcpy(field, mac, sizeof(mac));
		break;
	case CFG_T_LCORES:
		rc = uet_parse_lcore_list(value, (unsigned int)k->max, lcores,
					  UET_CONFIG_MAX_LCORES, &n, pe);
		if (rc == 0) {
			n16 = (uint16_t)n;
			memcpy(field, lcores, n * sizeof(lcores[0]));
			memcpy(aux, &n16, sizeof(n16));
		}
		return rc;
	case CFG_T_DBL:
		rc = parse_number(k, value, &v, &d, pe);
		if (rc == 0)
			memcpy(field, &d, sizeof(d));
		return rc;
	default:
		rc = parse_number(k, value, &v, &d, pe);
		if (rc == 0)
			store_uint(field, k->width, v);
		return rc;
	}
	/* Address rows: the has-flag follows the value. */
	if (rc == 0) {
		b = true;
		memcpy(aux, &b, sizeof(b));
	}
	return rc;
}

int
config_empty_value(struct uet_parse_err *pe)
{
	uet_parse_err_set(pe, "empty value (give one, or remove the line for "
			  "the default; see docs/CONFIG.md)");
	return -EINVAL;
}

int
config_key_set(const struct config_key *k, void *base, const char *value,
	    struct uet_parse_err *pe)
{
	char *field = (char *)base + k->off;
	char *aux = (char *)base + k->aux_off;
	size_t used;
	bool b = false;
	int rc;

	if (value[0] == '\0' && !(k->flags & CFG_F_EMPTY))
		return config_empty_value(pe);
	if ((k->flags & CFG_F_AUTO) && strcmp(value, "auto") == 0) {
		memset(field, 0, k->width);
		return 0;
	}
	if ((k->flags & CFG_F_NONE) && strcmp(value, "none") == 0) {
		memset(field, 0, k->width);
		memcpy(aux, &b, sizeof(b));
		return 0;
	}
	rc = set_typed(k, field, aux, value, pe);
	if (rc < 0 && pe != NULL && (k->flags & (CFG_F_AUTO | CFG_F_NONE))) {
		used = strlen(pe->msg);
		snprintf(pe->msg + used, sizeof(pe->msg) - used, "; or '%s'",
			 (k->flags & CFG_F_AUTO) ? "auto" : "none");
	}
	return rc;
}

static bool
ip_equal(const struct uet_parse_ipaddr *a, const struct uet_parse_ipaddr *b)
{
	if (a->family != b->family)
		return false;
	if (a->family == AF_INET)
		return a->v4.s_addr == b->v4.s_addr;
	return memcmp(&a->v6, &b->v6, sizeof(a->v6)) == 0;
}

int
config_neighbor_set(struct uet_config *cfg, const char *ip, const char *mac,
		 bool replace, struct uet_parse_err *pe)
{
	struct uet_config_neighbor nb;
	unsigned int i;
	int rc;

	memset(&nb, 0, sizeof(nb));
	rc = uet_parse_ip(ip, &nb.ip, pe);
	if (rc < 0)
		return rc;
	rc = parse_unicast_mac(mac, nb.mac, pe);
	if (rc < 0)
		return rc;
	for (i = 0; i < cfg->nb_neighbors; i++) {
		if (ip_equal(&cfg->neighbor[i].ip, &nb.ip)) {
			if (!replace) {
				uet_parse_err_set(pe, "duplicate entry for "
						  "address %s", ip);
				return -EINVAL;
			}
			cfg->neighbor[i] = nb;
			return 0;
		}
	}
	if (cfg->nb_neighbors == UET_CONFIG_MAX_NEIGHBORS) {
		uet_parse_err_set(pe, "too many neighbor entries (at most %d)",
				  UET_CONFIG_MAX_NEIGHBORS);
		return -ERANGE;
	}
	cfg->neighbor[cfg->nb_neighbors++] = nb;
	return 0;
}
