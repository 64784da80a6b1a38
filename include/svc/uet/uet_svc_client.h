/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef UET_SVC_CLIENT_H
#define UET_SVC_CLIENT_H

/**
 * @file
 * Client side of the uet-engine service (docs/SERVICE.md): what a process
 * (the libfabric provider) needs to use an engine that runs in another
 * process. No EAL: the channel rings live in a region the service shares
 * and are used with the rte_ring inline functions on this process's
 * mapping.
 *
 * uet_svc_client_attach() connects to the service's UNIX socket, says
 * HELLO, receives the region, the service page and one eventfd per engine
 * context (SCM_RIGHTS), and maps the region read-write and the page
 * read-only. Requests are synchronous (uet_svc_client_request()): one at
 * a time per client (a mutex), matched by sequence number, each wait
 * bounded. The service's death (EOF or a hang-up on the socket) is seen
 * by every request and by uet_svc_client_check(); after it the client is
 * "lost": every request fails -ENOTCONN at once, the mappings stay valid
 * (the memory outlives the service) until uet_svc_client_detach().
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <uet/uet_chan.h>
#include <uet/uet_svc.h>

#ifdef __cplusplus
extern "C" {
#endif

/** An attachment to a service (opaque). */
struct uet_svc_client;

/**
 * Attach to the service listening on @p path.
 * @param timeout_ms
 *   Bound of every wait for a reply (0: UET_SVC_TIMEOUT_MS).
 * @param out
 *   The client, on success.
 * @return
 *   0, or -EINVAL (path empty or too long), -ENOENT / -ECONNREFUSED (no
 *   service there), -EPERM (the socket's server runs as a uid that is
 *   neither root nor this process's: nothing was sent to it),
 *   -ETIMEDOUT (no HELLO reply in time), -EPROTO (a reply that does not
 *   follow the protocol: wrong fds, sizes, layout), the service's
 *   refusal (its rc: -EDQUOT, -EUSERS), -ENOMEM, or another
 *   connect/mmap errno.
 */
int uet_svc_client_attach(const char *path, unsigned int timeout_ms,
			  struct uet_svc_client **out);

/** uet_svc_client_attach_uid(): no service uid besides root and ours. */
#define UET_SVC_UID_NONE UINT32_MAX

/**
 * uet_svc_client_attach(), also trusting a service that runs as
 * @p service_uid (UET_SVC_UID_NONE: none). The server's credentials
 * (SO_PEERCRED, read by the kernel when it called listen()) are checked
 * before HELLO: a socket another user bound (squatted) gets nothing.
 */
int uet_svc_client_attach_uid(const char *path, unsigned int timeout_ms,
			      uint32_t service_uid,
			      struct uet_svc_client **out);

/**
 * Say BYE (when still attached), unmap the region and the page, close
 * the socket and the eventfds, free @p c. NULL is a no-op. Channels made
 * by uet_svc_client_chan_map() must not be used afterwards.
 */
void uet_svc_client_detach(struct uet_svc_client *c);

/** The service's HELLO reply (limits, capabilities, FA, jobs). */
const struct uet_svc_hello_rep *
uet_svc_client_hello(const struct uet_svc_client *c);

/** This process's mapping of the data window (window_len bytes). */
uint8_t *uet_svc_client_window(const struct uet_svc_client *c);

/**
 * One request and its reply.
 * @param op
 *   enum uet_svc_op, not HELLO (attach says it).
 * @param req
 *   Request body (uet_svc_body_len(op, false) bytes; NULL when 0).
 * @param rep
 *   Reply body out (uet_svc_body_len(op, true) bytes; NULL when 0).
 * @return
 *   The service's rc (0 or -errno), or -EINVAL (unknown op), -ETIMEDOUT
 *   (no reply within the bound; the client stays attached and drops the
 *   late reply), -ENOTCONN (the service is gone: lost), -EPROTO (a reply
 *   that breaks the protocol: the client detaches from it, lost).
 */
int uet_svc_client_request(struct uet_svc_client *c, unsigned int op,
			   const void *req, void *rep);

/**
 * Whether the service is still there: one poll() of the socket, without
 * waiting. Returns at once when another thread is in a request (that one
 * sees the death itself).
 * @return 0 (attached) or -ENOTCONN (lost).
 */
int uet_svc_client_check(struct uet_svc_client *c);

/** True once the service was seen gone (no syscall). */
bool uet_svc_client_lost(const struct uet_svc_client *c);

/** The socket (readable or hung up when the service goes away). */
int uet_svc_client_fd(const struct uet_svc_client *c);

/**
 * Fill @p chan over the rings of a CHAN_OPEN reply: the offsets are
 * checked against the region, the rings against the sizes asked for;
 * the channel wakes a sleeping context through the service page and the
 * context's eventfd (UET_SVC_CAP_WAKE), and is windowed (its descriptors
 * carry offsets into the data window).
 * @param req
 *   The CHAN_OPEN request (sizes, flags).
 * @param rep
 *   Its reply.
 * @return 0, or -EPROTO (offsets or rings do not match), -EINVAL.
 */
int uet_svc_client_chan_map(struct uet_svc_client *c, const char *name,
			    const struct uet_svc_chan_open_req *req,
			    const struct uet_svc_chan_open_rep *rep,
			    struct uet_chan *chan);

#ifdef __cplusplus
}
#endif

#endif /* UET_SVC_CLIENT_H */
