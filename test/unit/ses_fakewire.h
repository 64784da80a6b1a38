/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef SES_FAKEWIRE_H
#define SES_FAKEWIRE_H

/*
 * Two {PDS, SES, MR table, match context} stacks joined by a fake lossy
 * wire and clock (same fault model as pds_fakewire.h, but packets carry
 * real SES bytes built by uet_ses_build()). Node 0 and node 1 are both
 * initiator and target. Each node hosts pid 1 with job 42 authorised, an
 * RMA RI table (RI 1), a MSG RI table (RI 2) and the RMA table where its
 * SES exposes rendezvous source buffers (RI 3), relative addressing.
 */

#include <stdbool.h>
#include <stdint.h>

#include <uet/uet_ses.h>
#include <uet/uet_rand.h>

#define SFW_MTU 1024
#define SFW_PKT_MAX (UET_PDS_HDR_MAX_LEN + SFW_MTU)
#define SFW_QUEUE 16384
#define SFW_JOB 42
#define SFW_PID 1
#define SFW_RI_RMA 1
#define SFW_RI_MSG 2
#define SFW_RI_RDV 3      /* rendezvous read-back RMA table */
#define SFW_RDV_EAGER 200 /* eager bytes of a rendezvous send */
#define SFW_CQ 4096

struct ses_fakewire_opts;

struct ses_fakewire_faults {
	uint32_t drop;    /* ppm */
	uint32_t dup;
	uint32_t reorder;
};

struct ses_fakewire_pkt {
	uint64_t at;
	uint16_t len;
	uint8_t bytes[SFW_PKT_MAX];
};

struct ses_fakewire_node {
	struct uet_pds *pds;
	struct uet_ses *ses;
	struct uet_ses_mr_table *mr;
	struct uet_ses_match *match;
	struct uet_ses_match *match2; /* ses_fakewire_two_pids: of SFW_PID + 1 */
	struct uet_pds_fa fa;
	int ri_rma;
	int ri_msg;
	int ri_rdv;
	struct uet_ses_cqe cq[SFW_CQ];
	uint32_t ncq;
};

struct sfw {
	struct ses_fakewire_node n[2];
	enum uet_wire_profile profile; /* as given to init, for restarts */
	struct ses_fakewire_opts *opts;
	uint64_t seed;
	uint32_t restarts;
	struct ses_fakewire_faults f[2];
	struct ses_fakewire_pkt *q[2];
	uint32_t nq[2];
	uint64_t now;
	struct uet_rand rng;
	uint64_t delay_ns;
	uint64_t jitter_ns;
	uint32_t build_err;
	uint32_t rx_err;
	/* Targeted loss: drop what node @p from sends when this says so. */
	bool (*drop_fn)(struct sfw *w, int from, const struct uet_pds_tx *t);
	/* Targeted delay: what node @p from sends arrives this much later
	 * (ns) than delay_ns says. */
	uint64_t (*delay_fn)(struct sfw *w, int from, const struct uet_pds_tx *t);
	/* A stalled node (a process descheduled) runs nothing: no timer, no
	 * send; what is sent to it waits on the wire until it runs again,
	 * its clock then jumped forward. */
	bool stalled[2];
};

int ses_fakewire_init(struct sfw *w, enum uet_wire_profile profile, uint64_t seed);
/* Same, with SEND/TSEND above @p rdv_threshold going rendezvous (HPC). */
int ses_fakewire_init_rdv(struct sfw *w, enum uet_wire_profile profile, uint64_t seed,
		 uint32_t rdv_threshold);
/* Sizing knobs; 0 keeps the default. */
struct ses_fakewire_opts {
	uint32_t rdv_threshold; /* 0: UINT32_MAX (no rendezvous by size) */
	uint32_t unexp_max;     /* unexpected records (1024) */
	uint32_t unexp_chunks;  /* 1 KiB unexpected-data chunks (4096) */
	uint32_t max_tgt_msgs;  /* target multi-packet records (256) */
	uint32_t max_msgs;      /* initiator messages (2048) */
	uint32_t max_backoffs;  /* PDS resource back-offs (16) */
	uint32_t resp_entries;  /* PDS stored responses (256) */
	/* uet_ses_config.token_owner_bits (0); node i is owner i + 1 */
	uint32_t token_owner_bits;
	uint64_t pid_wait_ns;   /* uet_ses_config.pid_wait_ns (0) */
};
int ses_fakewire_init_opts(struct sfw *w, enum uet_wire_profile profile, uint64_t seed,
		  const struct ses_fakewire_opts *o);

/* When set before ses_fakewire_init*(): the nodes name their rendezvous table
 * through uet_ses_config.rdv_ri_of (SFW_JOB only; other jobs: none). */
extern bool ses_fakewire_rdv_by_job;

/* When set before ses_fakewire_init*(): each node also hosts PIDonFEP SFW_PID + 1
 * (MSG table SFW_RI_MSG, its own receive context match2, chosen through
 * uet_ses_config.match_of). */
extern bool ses_fakewire_two_pids;

/* With ses_fakewire_two_pids, when not 0: the profile of SFW_PID + 1 on both nodes
 * (uet_ses_config.profile_of; SFW_PID keeps the node's profile). */
extern enum uet_wire_profile ses_fakewire_pid2_profile;

/* When set before ses_fakewire_init*(): uet_ses_config.submit of both nodes (the
 * argument is the struct ses_fakewire_node); NULL: straight to the PDS. */
extern int (*ses_fakewire_submit)(void *arg, const struct uet_pds_submit *ps,
			 uint64_t now);

/* When set before ses_fakewire_init*(): uet_ses_config.tx_busy of both
 * nodes (the argument is the struct ses_fakewire_node). */
extern bool (*ses_fakewire_tx_busy)(void *arg, uint32_t msg);

/* When set before ses_fakewire_init*(): uet_ses_config.remote_events. */
extern bool ses_fakewire_remote_events;

/* When set: every delivered request reaches the SES in two pieces
 * (uet_ses_event_tail(), as a chained frame of zero-copy transmit does),
 * split at a point after its header chosen per packet, each piece in a
 * buffer of its own length (a read past either is a fault under ASan);
 * one packet in eight stays whole. */
extern bool ses_fakewire_split;

/* When set before ses_fakewire_init*(): uet_ses_config.mem_ops / mem_arg of both
 * nodes (memory entries of another process). */
extern const struct uet_ses_mem_ops *ses_fakewire_mem_ops;
extern void *ses_fakewire_mem_arg;
void ses_fakewire_fini(struct sfw *w);

/* Node @p node restarts: its PDS, SES and tables are created anew with
 * the same address (what was in flight to it still arrives); its
 * completions are gone. */
int ses_fakewire_restart(struct sfw *w, int node);

/* A work request from node @p from to the other node, job/pid/RI set. */
void ses_fakewire_wr(struct sfw *w, int from, struct uet_ses_wr *wr, uint8_t op,
	    void *buf, uint64_t len);

/* Register @p len bytes at @p base on node @p node; returns the key. */
uint64_t ses_fakewire_mr(struct sfw *w, int node, void *base, uint64_t len,
		uint32_t access, bool idempotent);

void ses_fakewire_step(struct sfw *w, uint64_t dt);

/* Run until node @p node has @p ncq completions or @p max_ns pass. */
bool ses_fakewire_run_cq(struct sfw *w, int node, uint32_t ncq, uint64_t max_ns);

/* Run until both SES and PDS pools of both nodes are idle. */
bool ses_fakewire_run_idle(struct sfw *w, uint64_t max_ns);

/* Index of the completion with @p ctx on @p node, or -1. */
int ses_fakewire_cq_find(const struct sfw *w, int node, uint64_t ctx);

/* The completion with @p ctx on @p node, or NULL (said on stderr). */
const struct uet_ses_cqe *ses_fakewire_cqe(const struct sfw *w, int node,
				  uint64_t ctx);

/* How many completions with @p ctx @p node has (exactly-once checks). */
uint32_t ses_fakewire_cq_count(const struct sfw *w, int node, uint64_t ctx);

/* A cmocka teardown: ses_fakewire_fini() of the wire the test's setup
 * left in *state. */
int ses_fakewire_teardown(void **state);

/* @p n pseudo-random bytes from @p salt (xorshift: payloads that differ
 * at every offset and between salts). */
void ses_fakewire_fill(uint8_t *b, size_t n, uint64_t salt);

/* Node @p node posts a receive (op @p op: UET_SES_WR_SEND's 1 or TSEND's
 * 2, @p tag / @p ignore) of @p len bytes at @p buf under context @p ctx:
 * what uet_ses_recv_post() returned. */
int ses_fakewire_recv(struct sfw *w, int node, uint8_t op, uint64_t ctx,
		      void *buf, uint64_t len, uint64_t tag, uint64_t ignore);

/* The READ fixture: node 1 exposes SFW_READ_MEM bytes at *mem, filled
 * from @p salt, for remote READ under *key; node 0 reads them into *rbuf
 * (as large, zeroed). 0, or -1 with nothing left to free but the wire. */
#define SFW_READ_MEM 65536
int ses_fakewire_read_init(struct sfw *w, uint64_t salt, uint8_t **mem,
			   uint8_t **rbuf, uint64_t *key);
/* Frees what ses_fakewire_read_init() allocated and the wire. */
void ses_fakewire_read_fini(struct sfw *w, uint8_t *mem, uint8_t *rbuf);

/* Node 0 READs @p len bytes at offset @p off of node 1's region @p key
 * into @p rbuf + @p off; its completion carries @p ctx. Returns what
 * uet_ses_submit() returned. */
int ses_fakewire_read(struct sfw *w, uint64_t key, uint8_t *rbuf,
		      uint64_t ctx, uint64_t off, uint64_t len);

/* A uet_pds_pdc_foreach() callback: the handle of the first target PDC
 * into *(uint32_t *)arg. */
int ses_fakewire_tgt_handle(const struct uet_pds_pdc_info *i, void *arg);

#endif /* SES_FAKEWIRE_H */
