/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef UET_WIRE_SES_H
#define UET_WIRE_SES_H
/* placeholder: being written */
#endif
