/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Where the SES header fields sit (UEC 1.0 SES headers): shared by the
 * codec (ses.c) and the fields read in place below the SES
 * (ses_inplace.c).
 */

#ifndef UET_WIRE_SES_PRIVATE_H
#define UET_WIRE_SES_PRIVATE_H

/* Byte offsets inside the common 12 bytes of every request. */
#define SES_OFF_OPCODE 0
#define SES_OFF_FLAGS 1
#define SES_OFF_MSG_ID 2      /* STD: message_id; SMALL/MEDIUM: request_length */
#define SES_OFF_RI_GEN 4
#define SES_OFF_JOB_ID 5
#define SES_OFF_PID 8
#define SES_OFF_RI 10

/* Standard request (44 bytes). */
#define SES_STD_OFF_BUF_OFFSET 12
#define SES_STD_OFF_INITIATOR 20
#define SES_STD_OFF_MATCH 24
#define SES_STD_OFF_HDR_DATA 32 /* SOM=1 */
#define SES_STD_OFF_PAYLOAD_LEN 32 /* SOM=0: rsvd(18) payload_length(14) */
#define SES_STD_OFF_MSG_OFFSET 36  /* SOM=0 */
#define SES_STD_OFF_REQ_LEN 40

/* Medium (32 bytes) and small (20 bytes) requests. */
#define SES_MED_OFF_HD_OR_BUF 12
#define SES_MED_OFF_INITIATOR 20
#define SES_MED_OFF_MATCH 24
#define SES_SMALL_OFF_BUF_OFFSET 12

/* Sub-byte fields. */
#define SES_RSVD2_MASK 0xC0u     /* rsvd(2) above a 6-bit or 14-bit field */
#define SES_LOW6_MASK 0x3Fu
#define SES_VERSION_SHIFT 6
#define SES_RSVD4_MASK 0xF0u     /* rsvd(4) above a 12-bit field */
#define SES_LIST_SHIFT 6

/* Atomic extension (4 bytes; 36 with the compare-and-swap operands). */
#define SES_AMO_OFF_OP 0
#define SES_AMO_OFF_DT 1
#define SES_AMO_OFF_SC 2
#define SES_AMO_OFF_RSVD 3
#define SES_AMO_OFF_COMPARE 4
#define SES_AMO_OFF_SWAP 20

/* Rendezvous extension (24 bytes). */
#define SES_RDV_OFF_EAGER 0
#define SES_RDV_OFF_RI_GEN 4
#define SES_RDV_OFF_PID_RI 5 /* read_pid_on_fep(12) read_resource_index(12) */
#define SES_RDV_OFF_OFFSET 8
#define SES_RDV_OFF_KEY 16

/* Responses: RESPONSE, RESPONSE_DATA, RESPONSE_DATA_SMALL. */
#define SES_RSP_OFF_MSG_ID 2
#define SES_RSP_OFF_RI_GEN 4   /* RESPONSE; rsvd(8) in the two data forms */
#define SES_RSP_OFF_JOB_ID 5
#define SES_RSP_OFF_MOD_LEN 8  /* RESPONSE */
#define SES_RSPD_OFF_READ_ID 8
#define SES_RSPD_OFF_PAYLOAD 10
#define SES_RSPD_OFF_MOD_LEN 12
#define SES_RSPD_OFF_MSG_OFFSET 16
#define SES_RSPS_OFF_PAYLOAD 2
#define SES_RSPS_OFF_PSN 8

#endif /* UET_WIRE_SES_PRIVATE_H */
