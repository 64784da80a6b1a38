/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef UET_WIRE_PDS_H
#define UET_WIRE_PDS_H
/* placeholder: being written */
#endif
