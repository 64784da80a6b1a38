/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * -FI_ENOSYS stubs: every fid op table is complete, so no libfabric call
 * ever reaches a NULL pointer. Tables an object does not support are
 * these; unsupported single calls point at the matching stub.
 */
#include "uet_ofi_private.h"

#include <rdma/fi_collective.h>

int
uet_ofi_fid_bind_enosys(struct fid *fid, struct fid *bfid, uint64_t flags)
{
	(void)fid; (void)bfid; (void)flags;
	return -FI_ENOSYS;
}

int
uet_ofi_fid_control_enosys(struct fid *fid, int command, void *arg)
{
	(void)fid; (void)command; (void)arg;
	return -FI_ENOSYS;
}

int
uet_ofi_fid_ops_open_enosys(struct fid *fid, const char *name,
			    uint64_t flags, void **ops, void *context)
{
	(void)fid; (void)name; (void)flags; (void)ops; (void)context;
	return -FI_ENOSYS;
}

int
uet_ofi_fid_tostr_enosys(const struct fid *fid, char *buf, size_t len)
{
	(void)fid; (void)buf; (void)len;
	return -FI_ENOSYS;
}

int
uet_ofi_fid_ops_set_enosys(struct fid *fid, const char *name, uint64_t flags,
			   void *ops, void *context)
{
	(void)fid; (void)name; (void)flags; (void)ops; (void)context;
	return -FI_ENOSYS;
}

/* ---- CM ---- */

static int
cm_setname(fid_t fid, void *addr, size_t addrlen)
{
	(void)fid; (void)addr; (void)addrlen;
	return -FI_ENOSYS;
}

static int
cm_getname(fid_t fid, void *addr, size_t *addrlen)
{
	(void)fid; (void)addr; (void)addrlen;
	return -FI_ENOSYS;
}

static int
cm_getpeer(struct fid_ep *ep, void *addr, size_t *addrlen)
{
	(void)ep; (void)addr; (void)addrlen;
	return -FI_ENOSYS;
}

static int
cm_connect(struct fid_ep *ep, const void *addr, const void *param,
	   size_t paramlen)
{
	(void)ep; (void)addr; (void)param; (void)paramlen;
	return -FI_ENOSYS;
}

static int
cm_listen(struct fid_pep *pep)
{
	(void)pep;
	return -FI_ENOSYS;
}

static int
cm_accept(struct fid_ep *ep, const void *param, size_t paramlen)
{
	(void)ep; (void)param; (void)paramlen;
	return -FI_ENOSYS;
}

static int
cm_reject(struct fid_pep *pep, fid_t handle, const void *param,
	  size_t paramlen)
{
	(void)pep; (void)handle; (void)param; (void)paramlen;
	return -FI_ENOSYS;
}

static int
cm_shutdown(struct fid_ep *ep, uint64_t flags)
{
	(void)ep; (void)flags;
	return -FI_ENOSYS;
}

static int
cm_join(struct fid_ep *ep, const void *addr, uint64_t flags,
	struct fid_mc **mc, void *context)
{
	(void)ep; (void)addr; (void)flags; (void)mc; (void)context;
	return -FI_ENOSYS;
}

const struct fi_ops_cm uet_ofi_cm_enosys = {
	.size = sizeof(struct fi_ops_cm),
	.setname = cm_setname,
	.getname = cm_getname,
	.getpeer = cm_getpeer,
	.connect = cm_connect,
	.listen = cm_listen,
	.accept = cm_accept,
	.reject = cm_reject,
	.shutdown = cm_shutdown,
	.join = cm_join,
};

/* ---- MSG ---- */

static ssize_t
msg_recv(struct fid_ep *ep, void *buf, size_t len, void *desc,
	 fi_addr_t src, void *context)
{
	(void)ep; (void)buf; (void)len; (void)desc; (void)src; (void)context;
	return -FI_ENOSYS;
}

static ssize_t
msg_recvv(struct fid_ep *ep, const struct iovec *iov, void **desc,
	  size_t count, fi_addr_t src, void *context)
{
	(void)ep; (void)iov; (void)desc; (void)count; (void)src;
	(void)context;
	return -FI_ENOSYS;
}

static ssize_t
msg_recvmsg(struct fid_ep *ep, const struct fi_msg *msg, uint64_t flags)
{
	(void)ep; (void)msg; (void)flags;
	return -FI_ENOSYS;
}

static ssize_t
msg_send(struct fid_ep *ep, const void *buf, size_t len, void *desc,
	 fi_addr_t dest, void *context)
{
	(void)ep; (void)buf; (void)len; (void)desc; (void)dest; (void)context;
	return -FI_ENOSYS;
}

static ssize_t
msg_sendmsg(struct fid_ep *ep, const struct fi_msg *msg, uint64_t flags)
{
	(void)ep; (void)msg; (void)flags;
	return -FI_ENOSYS;
}

static ssize_t
msg_inject(struct fid_ep *ep, const void *buf, size_t len, fi_addr_t dest)
{
	(void)ep; (void)buf; (void)len; (void)dest;
	return -FI_ENOSYS;
}

static ssize_t
msg_senddata(struct fid_ep *ep, const void *buf, size_t len, void *desc,
	     uint64_t data, fi_addr_t dest, void *context)
{
	(void)ep; (void)buf; (void)len; (void)desc; (void)data; (void)dest;
	(void)context;
	return -FI_ENOSYS;
}

static ssize_t
msg_injectdata(struct fid_ep *ep, const void *buf, size_t len, uint64_t data,
	       fi_addr_t dest)
{
	(void)ep; (void)buf; (void)len; (void)data; (void)dest;
	return -FI_ENOSYS;
}

const struct fi_ops_msg uet_ofi_msg_enosys = {
	.size = sizeof(struct fi_ops_msg),
	.recv = msg_recv,
	.recvv = msg_recvv,
	.recvmsg = msg_recvmsg,
	.send = msg_send,
	.sendv = msg_recvv, /* same signature */
	.sendmsg = msg_sendmsg,
	.inject = msg_inject,
	.senddata = msg_senddata,
	.injectdata = msg_injectdata,
};

/* ---- TAGGED ---- */

static ssize_t
tagged_recv(struct fid_ep *ep, void *buf, size_t len, void *desc, fi_addr_t src,
	uint64_t tag, uint64_t ignore, void *context)
{
	(void)ep; (void)buf; (void)len; (void)desc; (void)src; (void)tag;
	(void)ignore; (void)context;
	return -FI_ENOSYS;
}

static ssize_t
tagged_recvv(struct fid_ep *ep, const struct iovec *iov, void **desc,
	 size_t count, fi_addr_t src, uint64_t tag, uint64_t ignore,
	 void *context)
{
	(void)ep; (void)iov; (void)desc; (void)count; (void)src; (void)tag;
	(void)ignore; (void)context;
	return -FI_ENOSYS;
}

static ssize_t
tagged_msg(struct fid_ep *ep, const struct fi_msg_tagged *msg, uint64_t flags)
{
	(void)ep; (void)msg; (void)flags;
	return -FI_ENOSYS;
}

static ssize_t
tagged_send(struct fid_ep *ep, const void *buf, size_t len, void *desc,
	fi_addr_t dest, uint64_t tag, void *context)
{
	(void)ep; (void)buf; (void)len; (void)desc; (void)dest; (void)tag;
	(void)context;
	return -FI_ENOSYS;
}

static ssize_t
tagged_sendv(struct fid_ep *ep, const struct iovec *iov, void **desc,
	 size_t count, fi_addr_t dest, uint64_t tag, void *context)
{
	(void)ep; (void)iov; (void)desc; (void)count; (void)dest; (void)tag;
	(void)context;
	return -FI_ENOSYS;
}

static ssize_t
tagged_inject(struct fid_ep *ep, const void *buf, size_t len, fi_addr_t dest,
	  uint64_t tag)
{
	(void)ep; (void)buf; (void)len; (void)dest; (void)tag;
	return -FI_ENOSYS;
}

static ssize_t
tagged_senddata(struct fid_ep *ep, const void *buf, size_t len, void *desc,
	    uint64_t data, fi_addr_t dest, uint64_t tag, void *context)
{
	(void)ep; (void)buf; (void)len; (void)desc; (void)data; (void)dest;
	(void)tag; (void)context;
	return -FI_ENOSYS;
}

static ssize_t
tagged_injectdata(struct fid_ep *ep, const void *buf, size_t len, uint64_t data,
	      fi_addr_t dest, uint64_t tag)
{
	(void)ep; (void)buf; (void)len; (void)data; (void)dest; (void)tag;
	return -FI_ENOSYS;
}

const struct fi_ops_tagged uet_ofi_tagged_enosys = {
	.size = sizeof(struct fi_ops_tagged),
	.recv = tagged_recv,
	.recvv = tagged_recvv,
	.recvmsg = tagged_msg,
	.send = tagged_send,
	.sendv = tagged_sendv,
	.sendmsg = tagged_msg,
	.inject = tagged_inject,
	.senddata = tagged_senddata,
	.injectdata = tagged_injectdata,
};

/* ---- RMA ---- */

static ssize_t
rma_rw(struct fid_ep *ep, void *buf, size_t len, void *desc, fi_addr_t a,
       uint64_t addr, uint64_t key, void *context)
{
	(void)ep; (void)buf; (void)len; (void)desc; (void)a; (void)addr;
	(void)key; (void)context;
	return -FI_ENOSYS;
}

static ssize_t
rma_write(struct fid_ep *ep, const void *buf, size_t len, void *desc,
	  fi_addr_t a, uint64_t addr, uint64_t key, void *context)
{
	(void)ep; (void)buf; (void)len; (void)desc; (void)a; (void)addr;
	(void)key; (void)context;
	return -FI_ENOSYS;
}

static ssize_t
rma_rwv(struct fid_ep *ep, const struct iovec *iov, void **desc, size_t count,
	fi_addr_t a, uint64_t addr, uint64_t key, void *context)
{
	(void)ep; (void)iov; (void)desc; (void)count; (void)a; (void)addr;
	(void)key; (void)context;
	return -FI_ENOSYS;
}

static ssize_t
rma_msg(struct fid_ep *ep, const struct fi_msg_rma *msg, uint64_t flags)
{
	(void)ep; (void)msg; (void)flags;
	return -FI_ENOSYS;
}

static ssize_t
rma_inject(struct fid_ep *ep, const void *buf, size_t len, fi_addr_t a,
	   uint64_t addr, uint64_t key)
{
	(void)ep; (void)buf; (void)len; (void)a; (void)addr; (void)key;
	return -FI_ENOSYS;
}

static ssize_t
rma_writedata(struct fid_ep *ep, const void *buf, size_t len, void *desc,
	      uint64_t data, fi_addr_t a, uint64_t addr, uint64_t key,
	      void *context)
{
	(void)ep; (void)buf; (void)len; (void)desc; (void)data; (void)a;
	(void)addr; (void)key; (void)context;
	return -FI_ENOSYS;
}

static ssize_t
rma_injectdata(struct fid_ep *ep, const void *buf, size_t len, uint64_t data,
	       fi_addr_t a, uint64_t addr, uint64_t key)
{
	(void)ep; (void)buf; (void)len; (void)data; (void)a; (void)addr;
	(void)key;
	return -FI_ENOSYS;
}

const struct fi_ops_rma uet_ofi_rma_enosys = {
	.size = sizeof(struct fi_ops_rma),
	.read = rma_rw,
	.readv = rma_rwv,
	.readmsg = rma_msg,
	.write = rma_write,
	.writev = rma_rwv,
	.writemsg = rma_msg,
	.inject = rma_inject,
	.writedata = rma_writedata,
	.injectdata = rma_injectdata,
};

/* ---- ATOMIC ---- */

static ssize_t
atomic_write(struct fid_ep *ep, const void *buf, size_t count, void *desc,
	 fi_addr_t a, uint64_t addr, uint64_t key, enum fi_datatype dt,
	 enum fi_op op, void *context)
{
	(void)ep; (void)buf; (void)count; (void)desc; (void)a; (void)addr;
	(void)key; (void)dt; (void)op; (void)context;
	return -FI_ENOSYS;
}

static ssize_t
atomic_writev(struct fid_ep *ep, const struct fi_ioc *iov, void **desc,
	  size_t count, fi_addr_t a, uint64_t addr, uint64_t key,
	  enum fi_datatype dt, enum fi_op op, void *context)
{
	(void)ep; (void)iov; (void)desc; (void)count; (void)a; (void)addr;
	(void)key; (void)dt; (void)op; (void)context;
	return -FI_ENOSYS;
}

static ssize_t
atomic_writemsg(struct fid_ep *ep, const struct fi_msg_atomic *msg,
	    uint64_t flags)
{
	(void)ep; (void)msg; (void)flags;
	return -FI_ENOSYS;
}

static ssize_t
atomic_inject(struct fid_ep *ep, const void *buf, size_t count, fi_addr_t a,
	  uint64_t addr, uint64_t key, enum fi_datatype dt, enum fi_op op)
{
	(void)ep; (void)buf; (void)count; (void)a; (void)addr; (void)key;
	(void)dt; (void)op;
	return -FI_ENOSYS;
}

static ssize_t
atomic_readwrite(struct fid_ep *ep, const void *buf, size_t count, void *desc,
	     void *result, void *result_desc, fi_addr_t a, uint64_t addr,
	     uint64_t key, enum fi_datatype dt, enum fi_op op, void *context)
{
	(void)ep; (void)buf; (void)count; (void)desc; (void)result;
	(void)result_desc; (void)a; (void)addr; (void)key; (void)dt; (void)op;
	(void)context;
	return -FI_ENOSYS;
}

static ssize_t
atomic_readwritev(struct fid_ep *ep, const struct fi_ioc *iov, void **desc,
	      size_t count, struct fi_ioc *resultv, void **result_desc,
	      size_t result_count, fi_addr_t a, uint64_t addr, uint64_t key,
	      enum fi_datatype dt, enum fi_op op, void *context)
{
	(void)ep; (void)iov; (void)desc; (void)count; (void)resultv;
	(void)result_desc; (void)result_count; (void)a; (void)addr; (void)key;
	(void)dt; (void)op; (void)context;
	return -FI_ENOSYS;
}

static ssize_t
atomic_readwritemsg(struct fid_ep *ep, const struct fi_msg_atomic *msg,
		struct fi_ioc *resultv, void **result_desc,
		size_t result_count, uint64_t flags)
{
	(void)ep; (void)msg; (void)resultv; (void)result_desc;
	(void)result_count; (void)flags;
	return -FI_ENOSYS;
}

static ssize_t
atomic_compwrite(struct fid_ep *ep, const void *buf, size_t count, void *desc,
	     const void *compare, void *compare_desc, void *result,
	     void *result_desc, fi_addr_t a, uint64_t addr, uint64_t key,
	     enum fi_datatype dt, enum fi_op op, void *context)
{
	(void)ep; (void)buf; (void)count; (void)desc; (void)compare;
	(void)compare_desc; (void)result; (void)result_desc; (void)a;
	(void)addr; (void)key; (void)dt; (void)op; (void)context;
	return -FI_ENOSYS;
}

static ssize_t
atomic_compwritev(struct fid_ep *ep, const struct fi_ioc *iov, void **desc,
	      size_t count, const struct fi_ioc *comparev,
	      void **compare_desc, size_t compare_count,
	      struct fi_ioc *resultv, void **result_desc,
	      size_t result_count, fi_addr_t a, uint64_t addr, uint64_t key,
	      enum fi_datatype dt, enum fi_op op, void *context)
{
	(void)ep; (void)iov; (void)desc; (void)count; (void)comparev;
	(void)compare_desc; (void)compare_count; (void)resultv;
	(void)result_desc; (void)result_count; (void)a; (void)addr;
	(void)key; (void)dt; (void)op; (void)context;
	return -FI_ENOSYS;
}

static ssize_t
atomic_compwritemsg(struct fid_ep *ep, const struct fi_msg_atomic *msg,
		const struct fi_ioc *comparev, void **compare_desc,
		size_t compare_count, struct fi_ioc *resultv,
		void **result_desc, size_t result_count, uint64_t flags)
{
	(void)ep; (void)msg; (void)comparev; (void)compare_desc;
	(void)compare_count; (void)resultv; (void)result_desc;
	(void)result_count; (void)flags;
	return -FI_ENOSYS;
}

static int
atomic_valid(struct fid_ep *ep, enum fi_datatype dt, enum fi_op op,
	 size_t *count)
{
	(void)ep; (void)dt; (void)op; (void)count;
	return -FI_ENOSYS;
}

const struct fi_ops_atomic uet_ofi_atomic_enosys = {
	.size = sizeof(struct fi_ops_atomic),
	.write = atomic_write,
	.writev = atomic_writev,
	.writemsg = atomic_writemsg,
	.inject = atomic_inject,
	.readwrite = atomic_readwrite,
	.readwritev = atomic_readwritev,
	.readwritemsg = atomic_readwritemsg,
	.compwrite = atomic_compwrite,
	.compwritev = atomic_compwritev,
	.compwritemsg = atomic_compwritemsg,
	.writevalid = atomic_valid,
	.readwritevalid = atomic_valid,
	.compwritevalid = atomic_valid,
};

/* ---- COLLECTIVE (not supported by this provider) ---- */

static ssize_t
co_barrier(struct fid_ep *ep, fi_addr_t coll_addr, void *context)
{
	(void)ep; (void)coll_addr; (void)context;
	return -FI_ENOSYS;
}

static ssize_t
co_broadcast(struct fid_ep *ep, void *buf, size_t count, void *desc,
	     fi_addr_t coll_addr, fi_addr_t root_addr, enum fi_datatype dt,
	     uint64_t flags, void *context)
{
	(void)ep; (void)buf; (void)count; (void)desc; (void)coll_addr;
	(void)root_addr; (void)dt; (void)flags; (void)context;
	return -FI_ENOSYS;
}

static ssize_t
co_alltoall(struct fid_ep *ep, const void *buf, size_t count, void *desc,
	    void *result, void *result_desc, fi_addr_t coll_addr,
	    enum fi_datatype dt, uint64_t flags, void *context)
{
	(void)ep; (void)buf; (void)count; (void)desc; (void)result;
	(void)result_desc; (void)coll_addr; (void)dt; (void)flags;
	(void)context;
	return -FI_ENOSYS;
}

static ssize_t
co_allreduce(struct fid_ep *ep, const void *buf, size_t count, void *desc,
	     void *result, void *result_desc, fi_addr_t coll_addr,
	     enum fi_datatype dt, enum fi_op op, uint64_t flags,
	     void *context)
{
	(void)ep; (void)buf; (void)count; (void)desc; (void)result;
	(void)result_desc; (void)coll_addr; (void)dt; (void)op; (void)flags;
	(void)context;
	return -FI_ENOSYS;
}

static ssize_t
co_reduce(struct fid_ep *ep, const void *buf, size_t count, void *desc,
	  void *result, void *result_desc, fi_addr_t coll_addr,
	  fi_addr_t root_addr, enum fi_datatype dt, enum fi_op op,
	  uint64_t flags, void *context)
{
	(void)ep; (void)buf; (void)count; (void)desc; (void)result;
	(void)result_desc; (void)coll_addr; (void)root_addr; (void)dt;
	(void)op; (void)flags; (void)context;
	return -FI_ENOSYS;
}

static ssize_t
co_scatter(struct fid_ep *ep, const void *buf, size_t count, void *desc,
	   void *result, void *result_desc, fi_addr_t coll_addr,
	   fi_addr_t root_addr, enum fi_datatype dt, uint64_t flags,
	   void *context)
{
	(void)ep; (void)buf; (void)count; (void)desc; (void)result;
	(void)result_desc; (void)coll_addr; (void)root_addr; (void)dt;
	(void)flags; (void)context;
	return -FI_ENOSYS;
}

static ssize_t
co_msg(struct fid_ep *ep, const struct fi_msg_collective *msg,
       struct fi_ioc *resultv, void **result_desc, size_t result_count,
       uint64_t flags)
{
	(void)ep; (void)msg; (void)resultv; (void)result_desc;
	(void)result_count; (void)flags;
	return -FI_ENOSYS;
}

static ssize_t
co_barrier2(struct fid_ep *ep, fi_addr_t coll_addr, uint64_t flags,
	    void *context)
{
	(void)ep; (void)coll_addr; (void)flags; (void)context;
	return -FI_ENOSYS;
}

const struct fi_ops_collective uet_ofi_coll_enosys = {
	.size = sizeof(struct fi_ops_collective),
	.barrier = co_barrier,
	.broadcast = co_broadcast,
	.alltoall = co_alltoall,
	.allreduce = co_allreduce,
	.allgather = co_alltoall,      /* same signature */
	.reduce_scatter = co_allreduce, /* same signature */
	.reduce = co_reduce,
	.scatter = co_scatter,
	.gather = co_scatter,          /* same signature */
	.msg = co_msg,
	.barrier2 = co_barrier2,
};
