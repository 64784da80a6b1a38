/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef SVC_RAWCLI_H
#define SVC_RAWCLI_H

/*
 * A raw client of the uet-engine service for the server's tests, written
 * against the protocol (include/svc/uet/uet_svc.h) only: no provider, no
 * EAL. It also starts and stops a uet-engine process and reads its
 * telemetry.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <uet/uet_chan.h>
#include <uet/uet_svc.h>

extern int failures;

#define CHECK(c)                                                         \
	do {                                                             \
		if (!(c)) {                                              \
			fprintf(stderr, "%s:%d: CHECK failed: %s\n",     \
				__FILE__, __LINE__, #c);                 \
			failures++;                                      \
		}                                                        \
	} while (0)

struct rc_client {
	int fd;
	uint32_t seq;
	struct uet_svc_hello_rep hello;
	int memfd;
	int pagefd;
	int efd[UET_SVC_CTX_MAX];
	unsigned int nb_efd;
	uint8_t *region;
	const struct uet_svc_page *page;
	uint8_t *win;
};

struct rc_chan {
	struct uet_chan ch;
	uint32_t slot;
	uint16_t ctx;
};

/* A uet-engine process of a test. */
struct rc_service {
	pid_t pid;
	char dir[64];    /* root's, 0755: the socket and the configuration */
	char sock[108];
	char prefix[64];
	char conf[128];
};

/* Write a configuration (loopback net_ring0 port, FA 10.0.0.1, its own
 * MAC as neighbour) in a new directory of ours (mode 0755, as the
 * service wants its socket's directory) and start uet-engine on it;
 * wait for its socket.
 * @p engine, @p service: more INI lines for [engine] and [service] (may
 * be NULL). */
int rc_service_start(struct rc_service *s, const char *engine_bin,
		     const char *tag, const char *engine,
		     const char *service);
/* SIGTERM, wait, remove the directory; @return its exit status (or -1 /
 * 128 + signal). */
int rc_service_stop(struct rc_service *s);
/* Read counter @p key of telemetry command @p cmd ("/uet/service").
 * @return 0 or -errno. */
int rc_tel(const struct rc_service *s, const char *cmd, const char *key,
	   uint64_t *v);
/* Open fds and resident set (KiB) of process @p pid. */
int rc_proc_fds(pid_t pid);
long rc_proc_rss_kib(pid_t pid);

int rc_connect(struct rc_client *c, const char *path);
void rc_close(struct rc_client *c);
/* Send raw bytes as one message (fuzzing), optionally with one fd. */
int rc_send_raw(struct rc_client *c, const void *buf, size_t len, int fd);
/* ... with @p nb_fds descriptors (at most RC_SEND_FDS_MAX). */
#define RC_SEND_FDS_MAX 16
int rc_send_fds(struct rc_client *c, const void *buf, size_t len,
		const int *fds, unsigned int nb_fds);
/* Wait (bounded) for one reply; @return its length or -errno. */
int rc_recv_raw(struct rc_client *c, void *buf, size_t cap, int *fds,
		unsigned int *nb_fds);
/* One request and its reply: @return the reply's rc (0 / -errno), the
 * rc of a notice (sequence 0: the service closes the connection), or
 * -EPROTO when the reply is malformed or -ETIMEDOUT. */
int rc_request(struct rc_client *c, unsigned int op, const void *body,
	       uint32_t len, void *rep, uint32_t rep_len, int *fds,
	       unsigned int *nb_fds);

/* One request carrying descriptor @p fd (-1: none). */
int rc_request_fd(struct rc_client *c, unsigned int op, const void *body,
		  uint32_t len, int fd, void *rep, uint32_t rep_len, int *fds,
		  unsigned int *nb_fds);

/* The two halves of rc_request_fd(): send request @p op (0 or -errno),
 * then read its reply (@p send_rc: what the send returned). */
int rc_request_send(struct rc_client *c, unsigned int op, const void *body,
		    uint32_t len, int fd);
int rc_reply_recv(struct rc_client *c, unsigned int op, int send_rc,
		  void *rep, uint32_t rep_len, int *fds, unsigned int *nb_fds);

/* HELLO with our /proc/self/mem (UET_SVC_HELLO_F_MEM), then map the
 * region and the service page. */
int rc_hello(struct rc_client *c);
/* HELLO with @p flags and descriptor @p mem (-1: none). */
int rc_hello_mem(struct rc_client *c, uint32_t flags, int mem);
int rc_pid_get(struct rc_client *c, uint16_t want, uint16_t ctx,
	       struct uet_svc_pid_get_rep *r);
int rc_job(struct rc_client *c, bool add, uint32_t job, uint16_t pid);
int rc_chan_open(struct rc_client *c, uint16_t pid, unsigned int size,
		 struct rc_chan *ch);
/* Rings of @p sq, @p rq and @p cq entries. */
int rc_chan_open_sizes(struct rc_client *c, uint16_t pid, unsigned int sq,
		       unsigned int rq, unsigned int cq, struct rc_chan *ch);
int rc_chan_close(struct rc_client *c, struct rc_chan *ch);
int rc_peer_add(struct rc_client *c, uint16_t ctx, uint16_t pid,
		uint32_t initiator, uint64_t *handle);
int rc_peer_del(struct rc_client *c, uint16_t ctx, uint64_t handle);
int rc_bye(struct rc_client *c);

/* Wait (bounded) for one CQE. @return true when one came. */
bool rc_cq_wait(struct rc_chan *ch, struct uet_chan_cqe *e);

#endif /* SVC_RAWCLI_H */
