/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef UET_FABRIC_DEFAULTS_H
#define UET_FABRIC_DEFAULTS_H

/**
 * @file
 * The emulated fabric's defaults, in one place: the fabric model
 * (uet_fabric_config_default) and the engine configuration's [fabric]
 * section start from these numbers, so a model driven directly by a test
 * and a model built from a configuration file agree.
 *
 * Thresholds are in thousandths of a BDP of the bottleneck path.
 */

/** Ethernet header and one VLAN tag: a host frame is IP MTU + 18 bytes. */
#define UET_FABRIC_L2_BYTES 18u

#define UET_FABRIC_DEFAULT_HOSTS 16u
#define UET_FABRIC_DEFAULT_HOSTS_PER_LEAF 4u
#define UET_FABRIC_DEFAULT_SPINES 4u
#define UET_FABRIC_DEFAULT_K 4u
#define UET_FABRIC_DEFAULT_LINK_RATE_MBPS 100000u
#define UET_FABRIC_DEFAULT_LINK_DELAY_NS 1000u
/** IP MTU of the emulated hosts (frames are this + UET_FABRIC_L2_BYTES). */
#define UET_FABRIC_DEFAULT_IP_MTU 4096u
#define UET_FABRIC_DEFAULT_FRAME_POOL 8192u
#define UET_FABRIC_DEFAULT_HOST_QUEUE_BYTES (1u << 20)
#define UET_FABRIC_DEFAULT_ECN_MIN_MILLI 200u
#define UET_FABRIC_DEFAULT_ECN_MAX_MILLI 800u
#define UET_FABRIC_DEFAULT_TRIM_MILLI 1000u
#define UET_FABRIC_DEFAULT_TRIM_RETX_MILLI 1500u
/** Tail drop of the data and control queues. */
#define UET_FABRIC_DEFAULT_DROP_MILLI 3000u
#define UET_FABRIC_DEFAULT_SEED 1u

#endif /* UET_FABRIC_DEFAULTS_H */
