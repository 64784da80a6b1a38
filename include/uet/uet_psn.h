/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef UET_PSN_H
#define UET_PSN_H
/* placeholder: being written */
#endif
