/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The uet-engine service protocol: body sizes and header checks shared by
 * the server and the client (include/svc/uet/uet_svc.h).
 */

#include <errno.h>

#include <uet/uet_svc.h>

struct svc_op_desc {
	const char *name;
	uint32_t req; /* request body bytes */
	uint32_t rep; /* reply body bytes (rc 0) */
};

static const struct svc_op_desc svc_ops[UET_SVC_OP__COUNT] = {
	[UET_SVC_OP_HELLO] = { "hello", sizeof(struct uet_svc_hello_req),
			       sizeof(struct uet_svc_hello_rep) },
	[UET_SVC_OP_PID_GET] = { "pid_get",
				 sizeof(struct uet_svc_pid_get_req),
				 sizeof(struct uet_svc_pid_get_rep) },
	[UET_SVC_OP_PID_PUT] = { "pid_put",
				 sizeof(struct uet_svc_pid_put_req), 0 },
	[UET_SVC_OP_CHAN_OPEN] = { "chan_open",
				   sizeof(struct uet_svc_chan_open_req),
				   sizeof(struct uet_svc_chan_open_rep) },
	[UET_SVC_OP_CHAN_CLOSE] = { "chan_close",
				    sizeof(struct uet_svc_chan_close_req),
				    0 },
	[UET_SVC_OP_JOB_ADD] = { "job_add", sizeof(struct uet_svc_job_req),
				 0 },
	[UET_SVC_OP_JOB_DEL] = { "job_del", sizeof(struct uet_svc_job_req),
				 0 },
	[UET_SVC_OP_PEER_ADD] = { "peer_add",
				  sizeof(struct uet_svc_peer_add_req),
				  sizeof(struct uet_svc_peer_add_rep) },
	[UET_SVC_OP_PEER_DEL] = { "peer_del",
				  sizeof(struct uet_svc_peer_del_req), 0 },
	[UET_SVC_OP_MR_REG] = { "mr_reg", sizeof(struct uet_svc_mr_reg_req),
				sizeof(struct uet_svc_mr_reg_rep) },
	[UET_SVC_OP_MR_DEREG] = { "mr_dereg",
				  sizeof(struct uet_svc_mr_key_req), 0 },
	[UET_SVC_OP_MR_ENABLE] = { "mr_enable",
				   sizeof(struct uet_svc_mr_key_req), 0 },
	[UET_SVC_OP_BYE] = { "bye", 0, 0 },
};

static const struct svc_op_desc *
op_desc(unsigned int op)
{
	if (op >= UET_SVC_OP__COUNT || svc_ops[op].name == NULL)
		return NULL;
	return &svc_ops[op];
}

int
uet_svc_body_len(unsigned int op, bool reply)
{
	const struct svc_op_desc *d = op_desc(op);

	if (d == NULL)
		return -EINVAL;
	return (int)(reply ? d->rep : d->req);
}

const char *
uet_svc_op_name(unsigned int op)
{
	const struct svc_op_desc *d = op_desc(op & ~UET_SVC_OP_REPLY);

	return d != NULL ? d->name : "?";
}

void
uet_svc_hdr_init(struct uet_svc_hdr *h, unsigned int op, uint32_t len,
		 uint32_t seq, int32_t rc)
{
	h->magic = UET_SVC_MAGIC;
	h->version = UET_SVC_VERSION;
	h->op = (uint16_t)op;
	h->len = len;
	h->seq = seq;
	h->rc = rc;
	h->rsvd = 0;
}

int
uet_svc_hdr_check(const struct uet_svc_hdr *h, size_t msg_len, bool reply)
{
	unsigned int op;
	int want;

	if (h == NULL || msg_len < sizeof(*h))
		return -EINVAL;
	if (h->magic != UET_SVC_MAGIC || h->version != UET_SVC_VERSION)
		return -EPROTO;
	if (h->rsvd != 0 || (size_t)h->len != msg_len - sizeof(*h))
		return -EINVAL;
	op = h->op;
	if (reply != ((op & UET_SVC_OP_REPLY) != 0))
		return -EINVAL;
	op &= ~UET_SVC_OP_REPLY;
	want = uet_svc_body_len(op, reply);
	/* an error reply echoes the op of the request, known or not */
	if (reply && h->rc < 0 && want < 0)
		return h->len == 0 ? 0 : -EINVAL;
	if (want < 0)
		return -ENOSYS;
	if (!reply && h->rc != 0)
		return -EINVAL;
	if (reply && h->rc > 0)
		return -EINVAL;
	/* an error reply has no body */
	if (reply && h->rc < 0)
		return h->len == 0 ? 0 : -EINVAL;
	return h->len == (uint32_t)want ? 0 : -EINVAL;
}
