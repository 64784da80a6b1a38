/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * TSS per-packet AEAD through rte_cryptodev (UEC 1.0 section 3.7:
 * AES-GCM-256, 96-bit IV, 16-byte ICV). See uet_tss_cdev.h.
 *
 * The IV and the AAD travel in the crypto op's private area, where the
 * device can reach them by IOVA; the ICV is written to / read from the
 * mbuf. One queue pair, synchronous: enqueue one op (or a burst of ops,
 * each with its own session), poll a bounded number of times for them.
 * A device that runs on the caller's CPU (the software PMDs that offer
 * RTE_CRYPTODEV_FF_SYM_CPU_CRYPTO: ipsec_mb's crypto_aesni_gcm) gets no
 * op at all: rte_cryptodev_sym_cpu_crypto_process() on a vector of the
 * packets of one session, the op pool and queue stay for the others.
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_crypto.h>
#include <rte_cryptodev.h>
#include <rte_dev.h>
#include <rte_errno.h>
#include <rte_mempool.h>

#include <uet/uet_tss_cdev.h>

#define QP_DEPTH   256
#define OP_POOL_N  511
/* op private area: the IV, then the AAD */
#define IV_OFF     (sizeof(struct rte_crypto_op) + \
		    sizeof(struct rte_crypto_sym_op))
#define AAD_OFF    (IV_OFF + 16)
#define IDX_OFF    (AAD_OFF + 64)
#define OP_PRIV    (16 + 64 + 8)
/* Software PMDs complete within the enqueue; a device gets this many
 * polls before the op counts as lost. */
#define POLL_MAX   10000000u
/* packets per call of the synchronous CPU crypto API */
#define CPU_VEC_MAX 32

_Static_assert(UET_TSS_CDEV_AAD_MAX <= 64, "AAD fits the op private area");

struct uet_tss_cdev {
	uint8_t dev_id;
	char name[64];
	char driver[48];
	struct rte_mempool *sess_pool;
	struct rte_mempool *op_pool;
	/* the device runs ops on the caller's CPU (RTE_CRYPTODEV_FF_SYM_CPU_CRYPTO:
	 * software PMDs): no crypto op, no queue round trip */
	bool cpu;
	struct uet_tss_cdev_stats st;
};

struct uet_tss_cdev_sess {
	void *cs;         /* cryptodev session */
	uint16_t aad_len;
	bool seal;
};

/* AES-GCM, 256-bit key, 96-bit IV, 16-byte tag, the AAD lengths TSS
 * uses: refuse a device that cannot do it rather than fail per packet. */
static int
cdev_check_caps(uint8_t dev_id)
{
	const struct rte_cryptodev_symmetric_capability *cap;
	struct rte_cryptodev_sym_capability_idx idx = {
		.type = RTE_CRYPTO_SYM_XFORM_AEAD,
		.algo.aead = RTE_CRYPTO_AEAD_AES_GCM,
	};

	cap = rte_cryptodev_sym_capability_get(dev_id, &idx);
	if (cap == NULL ||
	    rte_cryptodev_sym_capability_check_aead(cap, UET_TSS_CDEV_KEY_LEN,
			UET_TSS_CDEV_ICV_LEN, UET_TSS_CDEV_AAD_MAX,
			UET_TSS_CDEV_IV_LEN) != 0)
		return -ENOTSUP;
	return 0;
}

static bool
cdev_cpu_crypto(uint8_t dev_id)
{
	struct rte_cryptodev_info info;

	rte_cryptodev_info_get(dev_id, &info);
	return (info.feature_flags & RTE_CRYPTODEV_FF_SYM_CPU_CRYPTO) != 0;
}

static int
cdev_setup(struct uet_tss_cdev *d, int socket)
{
	struct rte_cryptodev_config conf = {
		.socket_id = socket,
		.nb_queue_pairs = 1,
		.ff_disable = RTE_CRYPTODEV_FF_ASYMMETRIC_CRYPTO |
			      RTE_CRYPTODEV_FF_SECURITY,
	};
	struct rte_cryptodev_qp_conf qp = {
		.nb_descriptors = QP_DEPTH,
		.mp_session = d->sess_pool,
	};
	int rc;

	rc = rte_cryptodev_configure(d->dev_id, &conf);
	if (rc == 0)
		rc = rte_cryptodev_queue_pair_setup(d->dev_id, 0, &qp, socket);
	if (rc == 0)
		rc = rte_cryptodev_start(d->dev_id);
	return rc < 0 ? rc : 0;
}

static int
cdev_pools(struct uet_tss_cdev *d, int socket, uint32_t nb_sessions)
{
	char name[RTE_MEMPOOL_NAMESIZE];
	unsigned int sz = rte_cryptodev_sym_get_private_session_size(d->dev_id);

	snprintf(name, sizeof(name), "tss_sess_%u", d->dev_id);
	d->sess_pool = rte_cryptodev_sym_session_pool_create(name,
			nb_sessions, sz, 0, 0, socket);
	snprintf(name, sizeof(name), "tss_op_%u", d->dev_id);
	d->op_pool = rte_crypto_op_pool_create(name,
			RTE_CRYPTO_OP_TYPE_SYMMETRIC, OP_POOL_N, 0, OP_PRIV,
			socket);
	return d->sess_pool != NULL && d->op_pool != NULL ? 0 : -ENOMEM;
}

int
uet_tss_cdev_create(const char *driver, const char *devargs, int socket,
		    uint32_t nb_sessions, struct uet_tss_cdev **out)
{
	static unsigned int seq;
	struct uet_tss_cdev *d;
	int rc, id;

	if (rte_cryptodev_driver_id_get(driver) < 0)
		return -ENODEV;
	if (nb_sessions == 0)
		return -EINVAL;
	d = calloc(1, sizeof(*d));
	if (d == NULL)
		return -ENOMEM;
	snprintf(d->driver, sizeof(d->driver), "%s", driver);
	snprintf(d->name, sizeof(d->name), "%s_tss%u", driver, seq++);
	/* hotplug, not rte_vdev_init(): the vdev bus library is not in
	 * libdpdk's pkg-config file */
	rc = rte_eal_hotplug_add("vdev", d->name,
				 devargs != NULL ? devargs : "");
	if (rc < 0)
		goto err_free;
	id = rte_cryptodev_get_dev_id(d->name);
	if (id < 0) {
		rc = -ENODEV;
		goto err_vdev;
	}
	d->dev_id = (uint8_t)id;
	rc = cdev_check_caps(d->dev_id);
	if (rc < 0)
		goto err_vdev;
	d->cpu = cdev_cpu_crypto(d->dev_id);
	rc = cdev_pools(d, socket, nb_sessions);
	if (rc < 0)
		goto err_pools;
	rc = cdev_setup(d, socket);
	if (rc < 0)
		goto err_pools;
	*out = d;
	return 0;
err_pools:
	rte_mempool_free(d->op_pool);
	rte_mempool_free(d->sess_pool);
err_vdev:
	rte_eal_hotplug_remove("vdev", d->name);
err_free:
	free(d);
	return rc;
}

void
uet_tss_cdev_destroy(struct uet_tss_cdev *d)
{
	if (d == NULL)
		return;
	rte_cryptodev_stop(d->dev_id);
	rte_cryptodev_close(d->dev_id);
	rte_eal_hotplug_remove("vdev", d->name);
	rte_mempool_free(d->op_pool);
	rte_mempool_free(d->sess_pool);
	free(d);
}

const char *
uet_tss_cdev_driver(const struct uet_tss_cdev *d)
{
	return d->driver;
}

bool
uet_tss_cdev_cpu(const struct uet_tss_cdev *d)
{
	return d->cpu;
}

void
uet_tss_cdev_stats_get(const struct uet_tss_cdev *d,
		       struct uet_tss_cdev_stats *s)
{
	*s = d->st;
}

int
uet_tss_cdev_session(struct uet_tss_cdev *d,
		     const uint8_t key[UET_TSS_CDEV_KEY_LEN], bool seal,
		     uint16_t aad_len, struct uet_tss_cdev_sess **sess)
{
	struct rte_crypto_sym_xform x = {
		.type = RTE_CRYPTO_SYM_XFORM_AEAD,
		.aead = {
			.op = seal ? RTE_CRYPTO_AEAD_OP_ENCRYPT :
				     RTE_CRYPTO_AEAD_OP_DECRYPT,
			.algo = RTE_CRYPTO_AEAD_AES_GCM,
			.key = { .data = key, .length = UET_TSS_CDEV_KEY_LEN },
			.iv = { .offset = IV_OFF,
				.length = UET_TSS_CDEV_IV_LEN },
			.digest_length = UET_TSS_CDEV_ICV_LEN,
			.aad_length = aad_len,
		},
	};
	struct uet_tss_cdev_sess *s;

	if (aad_len > UET_TSS_CDEV_AAD_MAX)
		return -EINVAL;
	s = calloc(1, sizeof(*s));
	if (s == NULL)
		return -ENOMEM;
	s->cs = rte_cryptodev_sym_session_create(d->dev_id, &x, d->sess_pool);
	if (s->cs == NULL) {
		free(s);
		return rte_errno != 0 ? -rte_errno : -ENOMEM;
	}
	s->aad_len = aad_len;
	s->seal = seal;
	*sess = s;
	return 0;
}

void
uet_tss_cdev_session_free(struct uet_tss_cdev *d,
			  struct uet_tss_cdev_sess *sess)
{
	if (sess == NULL)
		return;
	rte_cryptodev_sym_session_free(d->dev_id, sess->cs);
	free(sess);
}

static void
cdev_op_fill(struct rte_crypto_op *cop, const struct uet_tss_cdev_sess *s,
	     struct rte_mbuf *m, const struct uet_tss_cdev_op *op)
{
	struct rte_crypto_sym_op *sym = cop->sym;

	rte_crypto_op_attach_sym_session(cop, s->cs);
	sym->m_src = m;
	sym->m_dst = NULL; /* in place */
	sym->aead.data.offset = op->enc_off;
	sym->aead.data.length = op->enc_len;
	sym->aead.digest.data = rte_pktmbuf_mtod_offset(m, uint8_t *,
							op->icv_off);
	sym->aead.digest.phys_addr = rte_pktmbuf_iova_offset(m, op->icv_off);
	memcpy(rte_crypto_op_ctod_offset(cop, uint8_t *, IV_OFF), op->iv,
	       UET_TSS_CDEV_IV_LEN);
	sym->aead.aad.data = rte_crypto_op_ctod_offset(cop, uint8_t *,
						       AAD_OFF);
	sym->aead.aad.phys_addr = rte_crypto_op_ctophys_offset(cop, AAD_OFF);
	memcpy(sym->aead.aad.data, op->aad, s->aad_len);
}

/* The status of a CPU crypto element (0 or a positive errno, EBADMSG:
 * the ICV did not verify), counted as cdev_status() counts an op's. */
static int
cdev_cpu_status(struct uet_tss_cdev *d, int32_t st, bool seal)
{
	if (st == 0) {
		if (seal)
			d->st.sealed++;
		else
			d->st.opened++;
		return 0;
	}
	if (st == EBADMSG) {
		d->st.auth_fail++;
		return -EBADMSG;
	}
	d->st.errors++;
	return -EIO;
}

/*
 * @p n ops of one session on the caller's CPU, as one vector of the
 * synchronous API: each packet one segment, the encrypted part from
 * enc_off (the cipher and auth offsets are the vector's own), IV and AAD
 * read where the op points, no crypto op and no queue.
 */
static void
cdev_cpu_run(struct uet_tss_cdev *d, struct uet_tss_cdev_sess *sess,
	     struct rte_mbuf **m, const struct uet_tss_cdev_op *op,
	     uint16_t n, int *rc)
{
	struct rte_crypto_vec seg[CPU_VEC_MAX];
	struct rte_crypto_sgl sgl[CPU_VEC_MAX];
	struct rte_crypto_va_iova_ptr iv[CPU_VEC_MAX], icv[CPU_VEC_MAX];
	struct rte_crypto_va_iova_ptr aad[CPU_VEC_MAX];
	int32_t st[CPU_VEC_MAX];
	struct rte_crypto_sym_vec vec = {
		.num = n, .src_sgl = sgl, .iv = iv, .digest = icv, .aad = aad,
		.status = st,
	};
	union rte_crypto_sym_ofs ofs = { .raw = 0 };

	for (uint16_t i = 0; i < n; i++) {
		uint8_t *f = rte_pktmbuf_mtod(m[i], uint8_t *);

		seg[i] = (struct rte_crypto_vec){
			.base = f + op[i].enc_off,
			.iova = rte_pktmbuf_iova_offset(m[i], op[i].enc_off),
			.len = op[i].enc_len, .tot_len = op[i].enc_len,
		};
		sgl[i] = (struct rte_crypto_sgl){ .vec = &seg[i], .num = 1 };
		iv[i].va = (void *)(uintptr_t)op[i].iv;
		aad[i].va = (void *)(uintptr_t)op[i].aad;
		icv[i].va = f + op[i].icv_off;
		icv[i].iova = rte_pktmbuf_iova_offset(m[i], op[i].icv_off);
		st[i] = EIO;
	}
	(void)rte_cryptodev_sym_cpu_crypto_process(d->dev_id, sess->cs, ofs,
						   &vec);
	for (uint16_t i = 0; i < n; i++)
		rc[i] = cdev_cpu_status(d, st[i], sess->seal);
}

/* The pending ops of a burst (rc 1) on the CPU: runs of one session
 * (direct mode: all of a domain's), at most CPU_VEC_MAX at a time. */
static void
cdev_cpu_burst(struct uet_tss_cdev *d, struct uet_tss_cdev_sess **sess,
	       struct rte_mbuf **m, const struct uet_tss_cdev_op *op,
	       uint16_t n, int *rc)
{
	for (uint16_t base = 0; base < n;) {
		uint16_t c = 1;

		if (rc[base] != 1) {
			base++;
			continue;
		}
		while (base + c < n && c < CPU_VEC_MAX && rc[base + c] == 1 &&
		       sess[base + c] == sess[base])
			c++;
		cdev_cpu_run(d, sess[base], m + base, op + base, c, rc + base);
		base = (uint16_t)(base + c);
	}
}

/* Enqueue one op and poll for it: its status (0, -EBADMSG, -EIO), or
 * -ETIMEDOUT when the device kept it. */
static int
cdev_exec(struct uet_tss_cdev *d, struct rte_crypto_op *cop)
{
	struct rte_crypto_op *done = NULL;
	uint32_t i;

	if (rte_cryptodev_enqueue_burst(d->dev_id, 0, &cop, 1) != 1)
		return -EAGAIN;
	for (i = 0; i < POLL_MAX; i++) {
		if (rte_cryptodev_dequeue_burst(d->dev_id, 0, &done, 1) == 1)
			break;
	}
	if (done != cop)
		return -ETIMEDOUT;
	if (cop->status == RTE_CRYPTO_OP_STATUS_AUTH_FAILED)
		return -EBADMSG;
	return cop->status == RTE_CRYPTO_OP_STATUS_SUCCESS ? 0 : -EIO;
}

int
uet_tss_cdev_run(struct uet_tss_cdev *d, struct uet_tss_cdev_sess *sess,
		 struct rte_mbuf *m, const struct uet_tss_cdev_op *op)
{
	struct rte_crypto_op *cop;
	int rc;

	if (m->nb_segs != 1 ||
	    (uint64_t)op->enc_off + op->enc_len > op->icv_off ||
	    (uint64_t)op->icv_off + UET_TSS_CDEV_ICV_LEN > m->data_len) {
		d->st.errors++;
		return -EINVAL;
	}
	if (d->cpu) {
		rc = 1;
		cdev_cpu_run(d, sess, &m, op, 1, &rc);
		return rc;
	}
	cop = rte_crypto_op_alloc(d->op_pool, RTE_CRYPTO_OP_TYPE_SYMMETRIC);
	if (cop == NULL) {
		d->st.errors++;
		return -ENOMEM;
	}
	cdev_op_fill(cop, sess, m, op);
	rc = cdev_exec(d, cop);
	if (rc == -ETIMEDOUT) {
		/* not returned to the pool: the device still owns it */
		d->st.errors++;
		return -EIO;
	}
	rte_crypto_op_free(cop);
	if (rc == -EAGAIN || rc == -EIO) {
		d->st.errors++;
		return -EIO;
	}
	if (rc == -EBADMSG)
		d->st.auth_fail++;
	else if (sess->seal)
		d->st.sealed++;
	else
		d->st.opened++;
	return rc;
}

/* Fill the ops of a burst chunk; their index in the burst rides in the
 * op's private area, so that completions may come back in any order. */
static void
cdev_burst_fill(struct rte_crypto_op **cop, struct uet_tss_cdev_sess **sess,
		struct rte_mbuf **m, const struct uet_tss_cdev_op *op,
		uint16_t base, uint16_t n)
{
	for (uint16_t i = 0; i < n; i++) {
		cdev_op_fill(cop[i], sess[base + i], m[base + i],
			     &op[base + i]);
		*rte_crypto_op_ctod_offset(cop[i], uint32_t *, IDX_OFF) =
			(uint32_t)(base + i);
	}
}

static int
cdev_status(struct uet_tss_cdev *d, const struct rte_crypto_op *cop,
	    bool seal)
{
	if (cop->status == RTE_CRYPTO_OP_STATUS_SUCCESS) {
		if (seal)
			d->st.sealed++;
		else
			d->st.opened++;
		return 0;
	}
	if (cop->status == RTE_CRYPTO_OP_STATUS_AUTH_FAILED) {
		d->st.auth_fail++;
		return -EBADMSG;
	}
	d->st.errors++;
	return -EIO;
}

/* One chunk of at most QP_DEPTH ops: enqueue all, collect all (bounded). */
static void
cdev_burst_chunk(struct uet_tss_cdev *d, struct uet_tss_cdev_sess **sess,
		 struct rte_mbuf **m, const struct uet_tss_cdev_op *op,
		 uint16_t base, uint16_t n, int *rc)
{
	struct rte_crypto_op *cop[QP_DEPTH];
	uint16_t enq = 0, deq = 0;
	uint32_t polls = 0;

	if (rte_crypto_op_bulk_alloc(d->op_pool, RTE_CRYPTO_OP_TYPE_SYMMETRIC,
				     cop, n) != n) {
		for (uint16_t i = 0; i < n; i++)
			rc[base + i] = -ENOMEM;
		d->st.errors += n;
		return;
	}
	cdev_burst_fill(cop, sess, m, op, base, n);
	while (deq < n && polls++ < POLL_MAX) {
		struct rte_crypto_op *done[QP_DEPTH];
		uint16_t k;

		if (enq < n)
			enq += rte_cryptodev_enqueue_burst(d->dev_id, 0,
							   cop + enq,
							   n - enq);
		k = rte_cryptodev_dequeue_burst(d->dev_id, 0, done, n - deq);
		for (uint16_t j = 0; j < k; j++) {
			uint32_t i = *rte_crypto_op_ctod_offset(done[j],
					uint32_t *, IDX_OFF);

			rc[i] = cdev_status(d, done[j], sess[i]->seal);
			rte_crypto_op_free(done[j]);
		}
		deq += k;
	}
	/* not completed: the device keeps those ops (not freed) */
	for (uint16_t i = enq; i < n; i++)
		rte_crypto_op_free(cop[i]);
	if (deq < n) {
		for (uint16_t i = 0; i < n; i++)
			if (rc[base + i] == 1)
				rc[base + i] = -EIO;
		d->st.errors += n - deq;
	}
}

int
uet_tss_cdev_run_burst(struct uet_tss_cdev *d,
		       struct uet_tss_cdev_sess **sess, struct rte_mbuf **m,
		       const struct uet_tss_cdev_op *op, uint16_t n, int *rc)
{
	int ok = 0;

	for (uint16_t i = 0; i < n; i++) {
		const struct uet_tss_cdev_op *o = &op[i];

		rc[i] = 1; /* pending */
		if (m[i]->nb_segs != 1 ||
		    (uint64_t)o->enc_off + o->enc_len > o->icv_off ||
		    (uint64_t)o->icv_off + UET_TSS_CDEV_ICV_LEN >
		    m[i]->data_len) {
			d->st.errors++;
			rc[i] = -EINVAL;
		}
	}
	if (d->cpu)
		cdev_cpu_burst(d, sess, m, op, n, rc);
	/* invalid ops take no device slot: compact them out of the way */
	for (uint16_t base = 0; !d->cpu && base < n;) {
		uint16_t c = 0;

		while (base < n && rc[base] != 1)
			base++;
		while (base + c < n && rc[base + c] == 1 && c < QP_DEPTH)
			c++;
		if (c != 0)
			cdev_burst_chunk(d, sess, m, op, base, c, rc);
		base = (uint16_t)(base + c);
	}
	for (uint16_t i = 0; i < n; i++)
		ok += rc[i] == 0;
	return ok;
}
