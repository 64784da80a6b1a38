/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef UET_CONFIG_H
#define UET_CONFIG_H

/**
 * @file
 * Engine configuration: a plain struct with documented defaults, loaded from
 * an INI file (rte_cfgfile; no EAL needed), adjusted by "section.key=value"
 * overrides, checked across fields and dumped back in INI form.
 *
 * Typical use:
 * @code
 *	struct uet_config cfg;
 *	struct uet_config_error err;
 *
 *	if (uet_config_load(&cfg, path, &err) < 0 ||
 *	    uet_config_override(&cfg, "port0.mtu=9000", &err) < 0 ||
 *	    uet_config_validate(&cfg, &err) < 0)
 *		report(err.msg);
 * @endcode
 *
 * Every key, its default and range are listed in docs/CONFIG.md and in
 * config/uet.conf.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <netinet/in.h>

#include <uet/uet_parse.h>

#ifdef __cplusplus
extern "C" {
#endif

#define UET_CONFIG_MAX_PORTS 8       /**< [port0] .. [port7] */
#define UET_CONFIG_MAX_NEIGHBORS 64  /**< entries in [neighbor] */
#define UET_CONFIG_MAX_LCORES 128    /**< ids in engine.lcores */
#define UET_CONFIG_STR_LEN 256       /**< eal.args, portN.devargs (with NUL) */
#define UET_CONFIG_FABRIC_EVENTS_MAX 16 /**< fail/restore/rate lines in [fabric] */

/** engine.progress */
enum uet_config_progress {
	UET_CONFIG_PROGRESS_AUTO = 0,   /**< engine lcores drive progress */
	UET_CONFIG_PROGRESS_INLINE = 1, /**< the caller's thread polls */
};

/** portN.udp_checksum */
enum uet_config_udp_csum {
	UET_CONFIG_UDP_CSUM_OFF = 0,  /**< IPv4: send 0, verify non-zero */
	UET_CONFIG_UDP_CSUM_ON = 1,   /**< IPv4: compute, require, verify */
	/** off on a shared-memory port (net_ring, net_memif), else on */
	UET_CONFIG_UDP_CSUM_AUTO = 2,
};

/** portN.tx_zero_copy */
enum uet_config_tx_zc {
	UET_CONFIG_TX_ZC_OFF = 0,  /**< every payload copied into the frame */
	UET_CONFIG_TX_ZC_ON = 1,   /**< large payloads attached by reference */
	/** on where the driver copies the frame on TX (net_memif,
	 * net_af_packet), off elsewhere */
	UET_CONFIG_TX_ZC_AUTO = 2,
};

/** cc.algorithm */
enum uet_config_cc_algo {
	UET_CONFIG_CC_NONE = 0, /**< no congestion control (fixed window) */
	UET_CONFIG_CC_NSCC = 1, /**< sender-based NSCC (UEC 1.0 3.6.13) */
	UET_CONFIG_CC_RCCC = 2, /**< receiver credit RCCC (UEC 1.0 3.6.14) */
	UET_CONFIG_CC_BOTH = 3, /**< NSCC and RCCC together */
};

/** spray.mode */
enum uet_config_spray_mode {
	UET_CONFIG_SPRAY_SINGLE = 0,    /**< one EV per PDC */
	UET_CONFIG_SPRAY_OBLIVIOUS = 1, /**< each of num_evs EVs once a round */
	UET_CONFIG_SPRAY_REPS = 2,      /**< recycled EVs (REPS, UEC 1.0 3.6.16) */
};

/** Fault injection direction (first index of uet_config_fault.ppm). */
enum uet_config_fault_dir {
	UET_CONFIG_FAULT_RX = 0,
	UET_CONFIG_FAULT_TX = 1,
	UET_CONFIG_FAULT_DIRS = 2,
};

/** Fault injection packet class (second index of uet_config_fault.ppm). */
enum uet_config_fault_class {
	UET_CONFIG_FAULT_DATA = 0,    /**< requests (carry SES payload) */
	UET_CONFIG_FAULT_CONTROL = 1, /**< ACK, NACK, CP */
	UET_CONFIG_FAULT_CLASSES = 2,
};

/** Fault kind (third index of uet_config_fault.ppm). */
enum uet_config_fault_kind {
	UET_CONFIG_FAULT_DROP = 0,
	UET_CONFIG_FAULT_DUP = 1,
	UET_CONFIG_FAULT_REORDER = 2,
	UET_CONFIG_FAULT_DELAY = 3,
	UET_CONFIG_FAULT_ECN = 4,
	UET_CONFIG_FAULT_TRIM = 5,
	UET_CONFIG_FAULT_CORRUPT = 6,
	UET_CONFIG_FAULT_KINDS = 7,
};

/** [eal] */
struct uet_config_eal {
	char args[UET_CONFIG_STR_LEN]; /**< argv for rte_eal_init, split on spaces */
};

/** [portN] */
struct uet_config_port {
	bool defined;                     /**< section present */
	char devargs[UET_CONFIG_STR_LEN]; /**< vdev string or PCI address */
	uint16_t rx_queues;
	uint16_t tx_queues;
	uint16_t rx_desc;
	uint16_t tx_desc;
	/** IP MTU in bytes; 0 auto: uet_config_port_mtu() resolves it */
	uint16_t mtu;
	uint16_t udp_port;                /**< UET UDP destination port */
	bool has_ipv4;                    /**< ipv4 set (not "none") */
	struct in_addr ipv4;              /**< local FA, network order */
	bool has_ipv6;
	struct in6_addr ipv6;
	bool has_mac;                     /**< mac override set */
	uint8_t mac[6];
	bool native_ip;                   /**< IP / entropy header / PDS */
	uint8_t ip_proto;                 /**< IP protocol in native-IP mode */
	/** the UDP checksum over IPv4 (IPv6: always);
	 * uet_config_port_udp_csum() resolves auto */
	enum uet_config_udp_csum udp_checksum;
	/** payload by reference on TX; uet_config_port_tx_zero_copy()
	 * resolves auto */
	enum uet_config_tx_zc tx_zero_copy;
};

/** [engine] */
struct uet_config_engine {
	uint16_t lcores[UET_CONFIG_MAX_LCORES];
	uint16_t nb_lcores;
	enum uet_config_progress progress;
	uint32_t mbuf_pool_size;   /* 0: auto (uet_config_mbuf_pool_size) */
	uint16_t mbuf_cache;
	uint16_t mbuf_size;        /**< data room incl. headroom, bytes; 0 auto */
	uint16_t burst;
	uint32_t pdc_pool_general; /**< PDC ids, general pool */
	uint32_t pdc_pool_reserved;
	uint32_t max_pdcs;         /**< PDC state objects */
	uint32_t msg_pool_size;
	uint32_t retx_pool_size;
	/** AUTO progress: spin this long without work before backing off */
	uint64_t idle_spin_ns;
	/** AUTO progress: first sleep of an idle lcore, doubled per idle
	 * wake-up (0: never sleep, busy-poll with rte_pause) */
	uint64_t idle_sleep_ns;
	/** AUTO progress: longest sleep without a wake-up; also how long an
	 * application thread that progressed a context keeps it */
	uint64_t idle_sleep_max_ns;
	/** AUTO progress: wake sleeping lcores with RX queue interrupts where
	 * a port has them */
	bool rx_intr;
	/** SES ULP: how long a send answered BAD_PID goes again
	 * (uet_ses_config.pid_wait_ns) */
	uint64_t pid_wait_ns;
	/** pcapng file of every frame on the wire ("": no capture); context
	 * N > 0 writes PATH.N */
	char capture[256];
};

/** [timers], durations in nanoseconds */
struct uet_config_timers {
	uint64_t rto_init_ns;
	uint64_t rto_max_ns;       /**< cap of the doubling RTO */
	uint32_t rto_max_retries;
	uint32_t ack_coalesce_bytes;
	uint32_t ack_min_add;
	uint64_t tlp_timeout_ns;   /**< 0: no tail-loss probe */
	uint64_t close_idle_ns;    /**< 0: never close idle PDCs */
	uint64_t close_req_idle_ns; /**< target asks to close; 0: never */
	uint64_t tick_ns;
	bool syn_quiet;            /**< PDS quiet time after start (uet_pds.h) */
	/** directory of the engine's alive files: "auto", "off" or an
	 * absolute path (docs/CONFIG.md) */
	char alive_dir[UET_CONFIG_STR_LEN];
};

/** [cc] (docs/CONFIG.md); 0 in an "auto" field means "derived as NSCC
 * (UEC 1.0 3.6.13) or RCCC (3.6.14) derive it" */
struct uet_config_cc {
	enum uet_config_cc_algo algorithm;
	uint64_t base_rtt_ns;
	uint32_t link_speed_mbps;
	bool trimming;
	uint64_t target_qdelay_ns;  /**< auto */
	uint64_t max_wnd;           /**< bytes, auto */
	double gamma;
	double max_md_jump;
	uint64_t fair_increase;     /**< bytes, auto */
	double fast_increase_scale; /**< auto */
	uint64_t eta;               /**< bytes, auto */
	double alpha;               /**< bytes per us of delay, auto */
	uint32_t qa_gate;
	uint64_t qa_threshold_ns;   /**< auto */
	uint64_t adjust_bytes;      /**< auto */
	uint64_t adjust_period_ns;  /**< auto */
	uint32_t rccc_rate_mbps;    /**< auto */
	uint64_t rccc_quantum;      /**< bytes, multiple of 256, auto */
	uint64_t rccc_spec_credit;  /**< bytes, auto */
	bool rccc_charge_marked;    /**< uet_rccc_pacer_config.charge_marked */
};

/** [spray] (load balancing, UEC 1.0 section 3.6.16) */
struct uet_config_spray {
	enum uet_config_spray_mode mode;
	uint32_t num_evs;             /**< EVs, >= 256 for oblivious/reps */
	uint16_t ev_base;             /**< first EV */
	uint32_t single_hold_rtts;    /**< single path: RTTs between moves */
	uint32_t reps_cache_size;     /**< REPS ring, 1..8 */
	uint64_t reps_freeze_duration_ns; /**< REPS freezing after a loss */
};

/** [dscp] */
struct uet_config_dscp {
	uint8_t data;
	uint8_t control;
	uint8_t trimmed;
	uint8_t trimmed_lasthop;
	uint8_t trimmable_retx;
};

/** One static [neighbor] entry: ip = mac */
struct uet_config_neighbor {
	struct uet_parse_ipaddr ip;
	uint8_t mac[6];
};

/** [fault], rates in parts per million */
struct uet_config_fault {
	bool enabled;
	uint64_t seed;
	uint64_t delay_ns;       /**< added latency of a "delay" fault */
	uint32_t reorder_depth;  /**< packets a "reorder" fault holds back */
	/** faults apply from this time after the engine's creation ... */
	uint64_t from_ns;
	/** ... until this time after it (0: no end); outside, frames pass
	 * untouched */
	uint64_t until_ns;
	uint32_t ppm[UET_CONFIG_FAULT_DIRS][UET_CONFIG_FAULT_CLASSES]
		    [UET_CONFIG_FAULT_KINDS];
};

/** fabric.topology */
enum uet_config_fabric_topo {
	UET_CONFIG_FABRIC_LEAF_SPINE = 0, /**< hosts / leaves / spines */
	UET_CONFIG_FABRIC_FAT_TREE = 1,   /**< K-ary three-tier fat tree */
};

/** Tiers of a [fabric] link name (host3, leaf0, spine1, core2). */
enum uet_config_fabric_tier {
	UET_CONFIG_FABRIC_HOST = 0,
	UET_CONFIG_FABRIC_LEAF = 1,
	UET_CONFIG_FABRIC_SPINE = 2,
	UET_CONFIG_FABRIC_CORE = 3,
};

/** What a [fabric] schedule line does to its link. */
enum uet_config_fabric_action {
	UET_CONFIG_FABRIC_FAIL = 0,    /**< fail = LINK at T */
	UET_CONFIG_FABRIC_RESTORE = 1, /**< restore = LINK at T */
	UET_CONFIG_FABRIC_RATE = 2,    /**< rate = LINK MBPS at T */
};

/** One scheduled link event of [fabric]. */
struct uet_config_fabric_event {
	uint8_t action;     /**< enum uet_config_fabric_action */
	uint8_t tier[2];    /**< enum uet_config_fabric_tier of each end */
	uint32_t index[2];  /**< index of each end in its tier */
	uint64_t at_ns;     /**< time from the start of the run */
	uint32_t rate_mbps; /**< RATE: the new link rate */
};

/**
 * [fabric]: the emulated network (src/fabric) that programs hosting
 * engines on it read (uet-perf --fabric); an engine on real ports does not
 * use it. Thresholds are multiples of the plane BDP.
 */
struct uet_config_fabric {
	enum uet_config_fabric_topo topology;
	uint32_t hosts;           /**< leaf/spine host count; fat tree: k^3/4 */
	uint32_t hosts_per_leaf;  /**< leaf/spine only */
	uint32_t spines;          /**< leaf/spine only */
	uint32_t k;               /**< fat tree only */
	uint32_t link_rate_mbps;
	uint64_t link_delay_ns;
	uint64_t base_rtt_ns;     /**< 0: derived (unloaded longest path) */
	uint32_t mtu;             /**< hosts' IP MTU; frames up to mtu + 18 */
	uint32_t frame_pool;      /**< frames inside the fabric at most */
	uint64_t host_queue;      /**< bytes of a host's NIC queue */
	bool trimming;
	bool ecn;
	double ecn_min;           /**< BDP */
	double ecn_max;
	double trim;
	double trim_retx;
	double queue;             /**< tail drop above this many BDP */
	uint32_t loss_ppm;        /**< random loss per link traversal */
	bool failover;            /**< switches skip failed links in ECMP */
	uint64_t seed;
	struct uet_config_fabric_event event[UET_CONFIG_FABRIC_EVENTS_MAX];
	uint16_t nb_events;
};

/** Largest number of JobID ranges of [service] jobs. */
#define UET_CONFIG_JOB_RANGES_MAX 16

/**
 * [service]: the uet-engine service (apps/uet-engine, docs/SERVICE.md);
 * other programs do not read it.
 */
/** Largest number of job.N lines of [service]. */
#define UET_CONFIG_SVC_ACL_MAX 32
/** Largest number of members of one job.N line. */
#define UET_CONFIG_SVC_MEMBERS_MAX 16

/** One member of a job.N line: a uid or a gid (names resolved at load). */
struct uet_config_svc_member {
	uint32_t id;
	bool gid;  /**< a group (gid:), else a user (uid:) */
};

/** [service] job.N = uid:U, gid:G, ...: who may use JobIDs N (N-M). */
struct uet_config_svc_acl {
	uint32_t first, last;  /**< JobIDs, inclusive */
	uint16_t nb;           /**< members */
	struct uet_config_svc_member m[UET_CONFIG_SVC_MEMBERS_MAX];
};

struct uet_config_service {
	char socket[108];        /**< UNIX socket path */
	/** socket file mode, octal text ("0660") */
	char socket_mode[8];
	/** group of the socket file (name or number); "" = the service's */
	char socket_group[64];
	uint64_t window_size;    /**< data window per client, bytes */
	uint32_t max_clients;    /**< clients attached at once */
	uint32_t max_chans;      /**< channels per client */
	uint32_t max_pids;       /**< PIDonFEPs per client */
	/** JobIDs clients may use: "1-100,200" (uet_config_jobs_parse()) */
	char jobs[128];
	/* per uid, over all its connections (quotas) */
	uint32_t user_clients;   /**< connections */
	uint32_t user_pids;      /**< PIDonFEPs */
	uint32_t user_jobs;      /**< {JobID, PIDonFEP} authorisations */
	uint32_t user_mrs;       /**< memory keys */
	uint32_t user_peers;     /**< peer handles */
	uint64_t user_window;    /**< shared region bytes (window + rings) */
	uint32_t pid_ops;        /**< op records of one client PIDonFEP */
	uint64_t hello_timeout_ns; /**< connect to HELLO */
	uint64_t idle_timeout_ns;  /**< a connection holding no PIDonFEP */
	/** an lcore's wait for an access to a client's memory */
	uint64_t mem_timeout_ns;
	/** a uid's accesses fail at once this long after a slow one */
	uint64_t mem_hold_off_ns;
	struct uet_config_svc_acl acl[UET_CONFIG_SVC_ACL_MAX];
	uint16_t nb_acl;
};

/** tss.mode: how the AES-GCM key of a packet is found (UEC 1.0 3.7). */
enum uet_config_tss_mode {
	UET_CONFIG_TSS_DIRECT = 0,        /**< one key per secure domain */
	UET_CONFIG_TSS_CLUSTER = 1,       /**< per-source key from the KDF */
	UET_CONFIG_TSS_CLIENT_SERVER = 2, /**< per-client key from the KDF */
};

/** tss.pdc_start: how a secure PDC's Start_PSN is established. */
enum uet_config_tss_pdc_start {
	/** the PDS's own rules, 0-RTT (records of refused Start_PSNs, the
	 * quiet time after a start) */
	UET_CONFIG_TSS_START_PDS = 0,
	/** every new PDC refused once with NACK NEW_START_PSN naming a
	 * random Start_PSN, the only one that opens it (RANDOM_1RTT_START) */
	UET_CONFIG_TSS_START_RANDOM_1RTT = 1,
	/** a domain's Expected_PSN: a new PDC at or after it opens at once,
	 * one below refused once; every PDC of the domain that goes moves
	 * it on, and the ACK of a close returns it to the initiator
	 * (EXPECTED_0RTT_START) */
	UET_CONFIG_TSS_START_EXPECTED_0RTT = 2,
};

/** tss.role: which side of client/server mode an engine is. */
enum uet_config_tss_role {
	UET_CONFIG_TSS_ROLE_NONE = 0,   /**< direct and cluster modes */
	UET_CONFIG_TSS_ROLE_SERVER = 1, /**< holds the domain keys */
	UET_CONFIG_TSS_ROLE_CLIENT = 2, /**< holds its own derived keys */
};

/** Largest number of domain.N lines of [tss]. */
#define UET_CONFIG_TSS_DOMAINS_MAX 16
/** Bytes of a path in [tss] (with NUL). */
#define UET_CONFIG_TSS_PATH_LEN 192

/** [tss] domain.SDI = JOBS KEYFILE: a secure domain. */
struct uet_config_tss_domain {
	uint32_t sdi;                        /**< secure domain index */
	uint32_t first[UET_CONFIG_JOB_RANGES_MAX]; /**< its JobIDs ... */
	uint32_t last[UET_CONFIG_JOB_RANGES_MAX];  /**< ... inclusive */
	uint16_t nb_ranges;
	/** mode 0600: 64 hex digits (the domain key), or a client's 188
	 * (role = client: uet_tss_client_key_read()) */
	char key_file[UET_CONFIG_TSS_PATH_LEN];
};

/** [tss]: the transport security sublayer (docs/TSS.md). */
struct uet_config_tss {
	bool enabled;
	enum uet_config_tss_mode mode;
	enum uet_config_tss_role role;     /**< client_server mode only */
	uint32_t ssi;                      /**< a client's SSI, 0 unset */
	char pmd[48];                      /**< cryptodev driver name */
	char devargs[UET_CONFIG_STR_LEN];  /**< its vdev arguments */
	uint32_t replay_window;            /**< TSCs, multiple of 64 */
	uint64_t rekey_interval;           /**< TSCs between rekeys, 0 off */
	/** a reloaded domain key: sent with this long after, the old one
	 * accepted twice this long after (docs/TSS.md) */
	uint64_t epoch_switch_ns;
	/** Start_PSN establishment of the engine's PDCs (docs/TSS.md) */
	enum uet_config_tss_pdc_start pdc_start;
	/** where the engine keeps each key's TSC reservation (0700, the
	 * engine's user's); required with @c enabled (docs/TSS.md) */
	char state_dir[UET_CONFIG_STR_LEN];
	struct uet_config_tss_domain domain[UET_CONFIG_TSS_DOMAINS_MAX];
	uint16_t nb_domains;
};

/** Bytes of a secure domain key (AES-256). */
#define UET_CONFIG_TSS_KEY_LEN 32
/** Bytes of a client key file (UET_TSS_CLIENT_KEY_LEN: SSI, epoch, two
 * derived keys with their IV masks). */
#define UET_CONFIG_TSS_CLIENT_KEY_LEN 94

/**
 * Read a secure domain key file: 64 hexadecimal digits (an optional
 * newline after them), a regular file of the calling user (or root) that
 * neither group nor others may access (mode 0600 or 0400). The key is
 * never written anywhere else; the caller wipes @p key after use.
 * @param why  Out on error (may be NULL): the reason, without key bytes.
 * @return 0, -ENOENT/-EACCES/... (open), -EPERM (owner or mode),
 *   -EINVAL (content).
 */
int
uet_config_tss_key_read(const char *path,
			uint8_t key[UET_CONFIG_TSS_KEY_LEN], char *why,
			size_t why_len);

/**
 * The domain of JobID @p job in @p t, or -1 when no domain lists it.
 */
int
uet_config_tss_domain_of(const struct uet_config_tss *t, uint32_t job);

/** The whole engine configuration. Plain data: copy with assignment. */
struct uet_config {
	struct uet_config_eal eal;
	struct uet_config_port port[UET_CONFIG_MAX_PORTS];
	struct uet_config_engine engine;
	struct uet_config_timers timers;
	struct uet_config_cc cc;
	struct uet_config_spray spray;
	struct uet_config_dscp dscp;
	struct uet_config_neighbor neighbor[UET_CONFIG_MAX_NEIGHBORS];
	uint16_t nb_neighbors;
	struct uet_config_fault fault;
	struct uet_config_fabric fabric;
	struct uet_config_service service;
	struct uet_config_tss tss;
};

/**
 * Parse [service] socket_mode: "0" then up to three octal digits.
 * @return The mode (0 .. 0777) or -EINVAL.
 */
int uet_config_socket_mode(const char *s);

/** Where and why loading, overriding or validating failed. */
struct uet_config_error {
	int code;            /**< same -errno as returned */
	unsigned int line;   /**< 1-based line in file, 0 if unknown */
	char file[256];      /**< path, "<override>", or "" (validate) */
	char section[64];    /**< section name, "" if none */
	char key[64];        /**< key name, "" if none */
	char reason[UET_PARSE_ERR_LEN]; /**< why, including the accepted range */
	/** "file:line: [section] key: reason", absent parts omitted */
	char msg[640];
};

/**
 * Parse a JobID grant: comma-separated JobIDs and inclusive ranges,
 * "1-100,200" (JobIDs are 24 bits: 0 .. 16777215; each range first <=
 * last; at most @p max entries).
 * @param first, last  Out: the ranges (@p max entries each).
 * @param n            Out: how many.
 * @param why          Out on error (may be NULL): the reason.
 * @return 0 or -EINVAL.
 */
int
uet_config_jobs_parse(const char *s, uint32_t *first, uint32_t *last,
		      unsigned int max, unsigned int *n, char *why,
		      size_t why_len);

/** Flags for uet_config_dump(). */
#define UET_CONFIG_DUMP_COMMENTS 0x1 /**< add a comment line per key */

/** Fill @p cfg with the documented defaults (those of config/uet.conf). */
void
uet_config_init_defaults(struct uet_config *cfg);

/**
 * Load an INI file: @p cfg is set to the defaults, then every entry of the
 * file is applied. A [portN] section in the file replaces the default port
 * set (ports not in the file become undefined); [neighbor] entries are
 * added to the (empty by default) table. Cross-field checks are left to
 * uet_config_validate(), to be called after any overrides.
 * On error @p cfg is unchanged.
 * @param err  may be NULL.
 * @return 0, -EINVAL (syntax, unknown section/key, duplicate, bad value),
 *   -ERANGE (value out of range), -ENOENT/-EACCES/... (cannot open file),
 *   -ENOMEM.
 */
int
uet_config_load(struct uet_config *cfg, const char *path,
		struct uet_config_error *err);

/**
 * Apply one "section.key=value" override (e.g. "port0.mtu=9000",
 * "neighbor.10.0.0.2=02:00:00:00:00:02"), with the same validation as the
 * file. Setting a key of an undefined [portN] defines that port with the
 * port defaults. On error @p cfg is unchanged.
 * @return 0, -EINVAL, -ERANGE.
 */
int
uet_config_override(struct uet_config *cfg, const char *assignment,
		    struct uet_config_error *err);

/**
 * Cross-field checks: port numbering and addresses, MTU versus mbuf data
 * room, pool sizes versus descriptors and caches, lcores versus queues,
 * timer ordering, DSCP distinctness, spraying EV range, the [fabric]
 * shape, thresholds and schedule lines (links that exist in the shape).
 * @return 0, -EINVAL (the error names the offending key).
 */
int
uet_config_validate(const struct uet_config *cfg,
		    struct uet_config_error *err);

/**
 * Write the configuration in INI form (loadable by uet_config_load()).
 * An empty string where an empty value is refused (a [portN] without
 * devargs) is written as a comment: loading gives the key's default.
 * Behaves like snprintf: writes at most @p size bytes including the NUL.
 * @param flags  0 or UET_CONFIG_DUMP_COMMENTS.
 * @return length of the full text (excluding the NUL), or -EINVAL.
 */
int
uet_config_dump(const struct uet_config *cfg, unsigned int flags, char *buf,
		size_t size);

/**
 * mbuf data room (headroom included) the engine uses: engine.mbuf_size,
 * or when that is auto (0) one that holds a frame of the largest port MTU
 * with room for kernel-interface PMDs' per-frame headers (net_af_packet
 * copies its ring slot: MTU + 80 rounded up to 128, less 32 bytes), at
 * least 2048 + headroom.
 */
unsigned int
uet_config_mbuf_size(const struct uet_config *cfg);

/**
 * mbufs the engine's packet pool needs at least: every RX and TX
 * descriptor of the ports plus, per engine lcore, the mempool cache and
 * one burst.
 */
uint64_t
uet_config_mbuf_need(const struct uet_config *cfg);

/**
 * mbufs in the engine's packet pool: engine.mbuf_pool_size, or when that
 * is auto (0) 16383, fewer when the mbufs are large so that the pool
 * stays within 64 MiB (an engine with jumbo frames, several engines in
 * one process), never fewer than uet_config_mbuf_need().
 */
unsigned int
uet_config_mbuf_pool_size(const struct uet_config *cfg);

/**
 * Whether port @p p computes and requires the UDP checksum on IPv4 frames
 * (IPv6 frames always carry one): udp_checksum, with auto resolved by
 * port type, off on a shared-memory port (devargs net_ring*, net_memif*:
 * both copies of a frame are in this host's memory, no link between them)
 * and on a native-IP port, on everywhere else; on also on a
 * shared-memory port when @p cfg's fault injector corrupts frames (a
 * corruption nothing could detect would be delivered as data).
 */
bool
uet_config_port_udp_csum(const struct uet_config *cfg,
			 const struct uet_config_port *p);

/** IP MTU `mtu = auto` gives a shared-memory port (net_memif*, net_ring*) */
#define UET_CONFIG_MTU_JUMBO 9000
/** IP MTU `mtu = auto` gives every other port (a NIC, a kernel interface) */
#define UET_CONFIG_MTU_ETHERNET 1500

/**
 * IP MTU of port @p p: its mtu, or when that is auto (0) one by port
 * type: UET_CONFIG_MTU_JUMBO on a shared-memory port (devargs net_memif*,
 * net_ring*: no switch or kernel interface in between, and fewer, longer
 * frames are the cheapest way to move bulk data), UET_CONFIG_MTU_ETHERNET
 * on any other (whose link and switches only the operator knows). Both
 * ends of a link need the same value (a longer frame is dropped by the
 * receiver, which logs the key to set).
 */
unsigned int
uet_config_port_mtu(const struct uet_config_port *p);

/** Number of defined ports (they are numbered 0..n-1 once validated). */
unsigned int
uet_config_nb_ports(const struct uet_config *cfg);

#ifdef __cplusplus
}
#endif

#endif /* UET_CONFIG_H */
