/* SPDX-License-Identifier: BSD-3-Clause */
/* placeholder: being written */
#include <uet/uet_wire.h>
