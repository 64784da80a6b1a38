/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef UET_OFI_H
#define UET_OFI_H

/**
 * @file
 * Public definitions of the libfabric provider `uet` (libuet-fi.so) that
 * applications and the engine share: the UET endpoint address returned by
 * fi_getname() and inserted into address vectors, the provider-specific
 * address format, and the provider extension opened with fi_open_ops().
 * docs/PROVIDER.md describes the provider.
 *
 * The engine never reads these structures: the address vector registers
 * each address with the engine by value and channel descriptors carry the
 * handle it got (uet_ses_ulp.h, UET_SES_ULP_PEER_ADD).
 */

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Provider-specific address format (fi_info.addr_format): FI_PROV_SPECIFIC
 * (bit 31) | 'U' 'E' 'T'. Addresses are struct uet_ofi_addr.
 */
#define UET_OFI_ADDR_FORMAT (0x80000000u | 0x554554u)

/** Version of struct uet_ofi_addr. */
#define UET_OFI_ADDR_VERSION 1

/**
 * ep_attr->mem_tag_format of the tagged (RDM) entries: every one of the 64
 * tag bits is the application's, each its own field (libfabric's generic
 * format, what its software providers report), so an MPI layer may lay
 * out its communicator, rank and tag fields as it likes.
 */
#define UET_OFI_MEM_TAG_FORMAT UINT64_C(0xAAAAAAAAAAAAAAAA)

/* struct uet_ofi_addr.flags */
#define UET_OFI_ADDR_F_IPV4 0x01u /**< fa holds an IPv4 address (bytes 0..3) */
#define UET_OFI_ADDR_F_IPV6 0x02u /**< fa holds an IPv6 address */

/* struct uet_ofi_addr.caps: what the endpoint serves */
#define UET_OFI_ADDR_C_MSG    0x0001u /**< SEND family */
#define UET_OFI_ADDR_C_TAGGED 0x0002u /**< TAGGED_SEND family */
#define UET_OFI_ADDR_C_RMA    0x0004u /**< WRITE / READ target */
#define UET_OFI_ADDR_C_ATOMIC 0x0008u /**< atomic target */
#define UET_OFI_ADDR_C_DGRAM  0x0010u /**< DATAGRAM_SEND over UUD */
#define UET_OFI_ADDR_C_RUDI   0x0020u /**< idempotent ops over RUDI */

/**
 * UET endpoint address, 32 bytes. Multi-byte fields are big-endian (it
 * crosses hosts through out-of-band exchanges).
 */
struct uet_ofi_addr {
	uint8_t version;       /**< UET_OFI_ADDR_VERSION */
	uint8_t flags;         /**< UET_OFI_ADDR_F_* */
	uint8_t profile;       /**< enum uet_wire_profile (1 AI Base, 2 AI Full, 3 HPC) */
	uint8_t rsvd0;         /**< zero */
	uint16_t caps;         /**< UET_OFI_ADDR_C_*, big-endian */
	uint16_t pid_on_fep;   /**< 12 bits, big-endian */
	uint16_t start_ri;     /**< first resource index (12 bits), big-endian */
	uint16_t num_ri;       /**< resource indices served, big-endian */
	uint32_t initiator_id; /**< SES initiator id, big-endian */
	uint8_t fa[16];        /**< fabric address; IPv4 in bytes 0..3 */
};

_Static_assert(sizeof(struct uet_ofi_addr) == 32, "uet_ofi_addr layout");

/**
 * fi_eq_write() flag: @p buf is a struct fi_eq_err_entry queued as an
 * error (read back with fi_eq_readerr()). Bit 60, as libfabric's own
 * utility providers use for the same purpose.
 */
#define UET_OFI_EQ_WRITE_ERR (1ULL << 60)

/** Name given to fi_open_ops() on a CQ fid for struct uet_ofi_cq_ops. */
#define UET_OFI_CQ_OPS_NAME "uet_cq_ops_v1"

/**
 * CQ extension: queue a completion or an error completion as if the engine
 * had produced it (diagnostics and tests; libfabric has no fi_cq_write).
 * Both return 0, or -FI_EAGAIN when the CQ has no free (unreserved) slot.
 */
struct uet_ofi_cq_ops {
	size_t size; /**< sizeof(struct uet_ofi_cq_ops) */
	int (*write)(void *cq_fid, void *op_context, uint64_t flags,
		     size_t len, void *buf, uint64_t data, uint64_t tag,
		     uint64_t src_addr);
	int (*writeerr)(void *cq_fid, void *op_context, uint64_t flags,
			int err, int prov_errno, size_t olen);
};

#ifdef __cplusplus
}
#endif

#endif /* UET_OFI_H */
