/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Target memory of a memory entry, wherever it lives: plain loads and
 * stores for the memory of this process (owner 0), the accessor of
 * uet_ses_config.mem_ops for another process's (owner != 0; a service
 * engine reaches its clients' registered memory by cross-memory attach).
 *
 * A failed access is a target-side error of the request: the UEC 1.0 SES
 * return codes of host address translation (AT_*) say what went wrong in
 * the translation from a memory entry to host memory, which is what the
 * accessor does here; anything else is HOST_UNSUCCESS_CMPL.
 */

#include <errno.h>
#include <string.h>

#include <uet/uet_ses_amo.h>

#include "ses_private.h"

enum uet_wire_ses_rc
ses_mem_rc(struct uet_ses *s, int err)
{
	s->st.mem_err++;
	switch (err) {
	case -EFAULT: /* not mapped (or not writable) in the owner */
		return UET_RC_AT_NO_TRANS;
	case -EPERM:
	case -EACCES: /* not allowed to attach to the owner */
		return UET_RC_AT_PERM;
	case -ESRCH: /* the owner and its address space are gone */
		return UET_RC_AT_INVALID;
	default:
		return UET_RC_HOST_UNSUCCESS_CMPL;
	}
}

int
ses_mem_read_slow(struct uet_ses *s, pid_t owner, void *dst,
		  const void *src, size_t n)
{
	const struct uet_ses_mem_ops *o = s->cfg.mem_ops;

	s->st.mem_rd++;
	if (o == NULL || o->read == NULL)
		return -EOPNOTSUPP;
	return o->read(s->cfg.mem_arg, owner, dst, (uintptr_t)src, n);
}

int
ses_mem_write_slow(struct uet_ses *s, pid_t owner, void *dst,
		   const void *src, size_t n)
{
	const struct uet_ses_mem_ops *o = s->cfg.mem_ops;

	s->st.mem_wr++;
	if (o == NULL || o->write == NULL)
		return -EOPNOTSUPP;
	return o->write(s->cfg.mem_arg, owner, (uintptr_t)dst, src, n);
}

/*
 * An atomic on another process's memory: read the target range, run the
 * atomic on a local copy, write back what changed. Not atomic with
 * respect to the owner's own CPU accesses (libfabric promises atomicity
 * among fabric atomics only; all of them on an entry run on this lcore,
 * one after the other), hence a cpu-coherent request is refused rather
 * than silently weakened. A failed read writes nothing; the fetched
 * values are only valid when the whole operation succeeded.
 */
static enum uet_wire_ses_rc
ses_amo_remote(struct uet_ses *s, pid_t owner,
	       const struct ses_amo_args *a)
{
	_Alignas(16) uint8_t cur[UET_AMO_MAX_LEN], old[UET_AMO_MAX_LEN];
	enum uet_wire_ses_rc rc;
	int ret;

	/* alignment is that of the owner's address */
	rc = uet_amo_check(a->op, a->dt, a->target, a->len, a->flags);
	if (rc != UET_RC_OK)
		return rc;
	if (a->flags & UET_AMO_F_CPU_COHERENT) {
		s->st.mem_coherent++;
		return UET_RC_AMO_UNSUPPORTED_OP;
	}
	ret = ses_mem_read_slow(s, owner, cur, a->target, a->len);
	if (ret != 0)
		return ses_mem_rc(s, ret);
	memcpy(old, cur, a->len);
	rc = uet_amo_exec(a->op, a->dt, cur, a->operand, a->compare, a->fetch,
			  a->len, a->flags);
	if (rc != UET_RC_OK || memcmp(old, cur, a->len) == 0)
		return rc; /* READ, a failed CSWAP, MIN/MAX kept: no write */
	ret = ses_mem_write_slow(s, owner, a->target, cur, a->len);
	return ret == 0 ? UET_RC_OK : ses_mem_rc(s, ret);
}

enum uet_wire_ses_rc
ses_mem_amo(struct uet_ses *s, pid_t owner, const struct ses_amo_args *a)
{
	if (owner == 0)
		return uet_amo_exec(a->op, a->dt, a->target, a->operand,
				    a->compare, a->fetch, a->len, a->flags);
	return ses_amo_remote(s, owner, a);
}
