/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef UET_TSS_CDEV_H
#define UET_TSS_CDEV_H

/**
 * @file
 * Per-packet AEAD of the transport security sublayer (UEC 1.0 section 3.7)
 * through DPDK's cryptodev: AES-GCM-256 in place on an mbuf. A software
 * vdev (crypto_aesni_gcm / crypto_aesni_mb from the ipsec_mb driver,
 * AES-NI/VAES; crypto_openssl) or any cryptodev offering AES-GCM-256
 * serves it through the same calls.
 *
 * This lives on the engine side (pmd/) because it works on mbufs and needs
 * an EAL; the key derivation, IV and AAD it is fed come from the DPDK-free
 * src/tss (uet_tss.h). One queue pair, one operation or one burst at a
 * time: the caller is the engine's lcore that owns the device.
 */

#include <stdbool.h>
#include <stdint.h>

#include <rte_mbuf.h>

#ifdef __cplusplus
extern "C" {
#endif

struct uet_tss_cdev;
struct uet_tss_cdev_sess;

/** AES-GCM-256 sizes of the TSS. */
#define UET_TSS_CDEV_KEY_LEN 32
#define UET_TSS_CDEV_IV_LEN  12
#define UET_TSS_CDEV_ICV_LEN 16
/** Largest AAD a session accepts (IPv6, entropy, TSS header with SSI). */
#define UET_TSS_CDEV_AAD_MAX 52

/** Counters of one device. */
struct uet_tss_cdev_stats {
	uint64_t sealed;    /**< packets encrypted */
	uint64_t opened;    /**< packets decrypted and authenticated */
	uint64_t auth_fail; /**< ICV mismatch: forged or corrupted */
	uint64_t errors;    /**< bad arguments, enqueue/dequeue failures */
};

/**
 * Create and start a crypto vdev for the TSS.
 * @param driver
 *   Cryptodev driver name: "crypto_aesni_gcm", "crypto_aesni_mb",
 *   "crypto_openssl", ...
 * @param devargs
 *   Its devargs ("" or NULL for none).
 * @param socket
 *   NUMA socket of the pools (SOCKET_ID_ANY allowed).
 * @param nb_sessions
 *   Sessions the pool holds (two per key: seal and open).
 * @param out
 *   The device.
 * @return
 *   0; -ENODEV when the driver is not in this DPDK (its PMD library is
 *   not installed or loaded); -ENOTSUP when the device lacks AES-GCM with
 *   a 256-bit key, 96-bit IV, 16-byte tag and AAD up to
 *   UET_TSS_CDEV_AAD_MAX; -ENOMEM; another negated errno from the
 *   cryptodev calls.
 */
int uet_tss_cdev_create(const char *driver, const char *devargs, int socket,
			uint32_t nb_sessions, struct uet_tss_cdev **out);

/** Stop and remove the device, free its pools (NULL: no-op). */
void uet_tss_cdev_destroy(struct uet_tss_cdev *d);

/** The device's cryptodev driver name. */
const char *uet_tss_cdev_driver(const struct uet_tss_cdev *d);

/** The device's counters. */
void uet_tss_cdev_stats_get(const struct uet_tss_cdev *d,
			    struct uet_tss_cdev_stats *s);

/**
 * A session: one key, one direction, one AAD length (cryptodev fixes the
 * AAD length per session; a secure domain's packets share it).
 * @param seal
 *   true to encrypt, false to decrypt and verify.
 * @return
 *   0, -EINVAL (AAD length), -ENOMEM (session pool full) or another
 *   negated errno.
 */
int uet_tss_cdev_session(struct uet_tss_cdev *d,
			 const uint8_t key[UET_TSS_CDEV_KEY_LEN], bool seal,
			 uint16_t aad_len, struct uet_tss_cdev_sess **sess);

/** Free a session (NULL: no-op). */
void uet_tss_cdev_session_free(struct uet_tss_cdev *d,
			       struct uet_tss_cdev_sess *sess);

/**
 * Whether @p d runs on the caller's CPU through the synchronous API
 * (RTE_CRYPTODEV_FF_SYM_CPU_CRYPTO: no crypto op, no queue), else through
 * its queue pair.
 */
bool uet_tss_cdev_cpu(const struct uet_tss_cdev *d);

/** Where the AEAD works in a packet. */
struct uet_tss_cdev_op {
	uint32_t enc_off; /**< first encrypted byte (mbuf data offset) */
	uint32_t enc_len; /**< encrypted bytes */
	uint32_t icv_off; /**< the ICV: written (seal) or checked (open) */
	const uint8_t *iv;  /**< UET_TSS_CDEV_IV_LEN bytes */
	const uint8_t *aad; /**< the session's AAD length in bytes */
};

/**
 * Encrypt or decrypt-and-verify, in place, one single-segment mbuf.
 * @return
 *   0; -EBADMSG when the ICV does not verify (the packet must be dropped:
 *   its bytes are not plaintext); -EINVAL (the encrypted part overlaps
 *   the ICV, the ICV is outside the data, chained mbuf); -EIO (the
 *   device failed or did not complete).
 */
int uet_tss_cdev_run(struct uet_tss_cdev *d, struct uet_tss_cdev_sess *sess,
		     struct rte_mbuf *m, const struct uet_tss_cdev_op *op);

/**
 * uet_tss_cdev_run() on a burst: @p n packets, each with its own session
 * (seal or open) and op, enqueued and dequeued in bursts of up to the
 * queue pair's depth, or on the CPU, a vector per run of packets of one
 * session (uet_tss_cdev_cpu()). One packet's failure is its own.
 * @param rc
 *   Out, @p n results as uet_tss_cdev_run() returns them.
 * @return
 *   How many succeeded.
 */
int uet_tss_cdev_run_burst(struct uet_tss_cdev *d,
			   struct uet_tss_cdev_sess **sess,
			   struct rte_mbuf **m,
			   const struct uet_tss_cdev_op *op, uint16_t n,
			   int *rc);

#ifdef __cplusplus
}
#endif

#endif /* UET_TSS_CDEV_H */
