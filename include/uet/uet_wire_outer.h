/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef UET_WIRE_OUTER_H
#define UET_WIRE_OUTER_H
/* placeholder: being written */
#endif
