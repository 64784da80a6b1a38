/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of the uet-engine service protocol helpers (src/svc/
 * svc_proto.c): body sizes per op and the header checks both sides run on
 * every message they receive.
 */

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <errno.h>
#include <string.h>
#include <cmocka.h>

#include <uet/uet_svc.h>

static void
uet_svc_body_len__every_op(void **state)
{
	(void)state;
	assert_int_equal(uet_svc_body_len(UET_SVC_OP_HELLO, false), 16);
	assert_int_equal(uet_svc_body_len(UET_SVC_OP_HELLO, true),
			 (int)sizeof(struct uet_svc_hello_rep));
	assert_int_equal(uet_svc_body_len(UET_SVC_OP_CHAN_OPEN, false), 24);
	assert_int_equal(uet_svc_body_len(UET_SVC_OP_CHAN_OPEN, true), 32);
	assert_int_equal(uet_svc_body_len(UET_SVC_OP_PEER_ADD, false), 32);
	assert_int_equal(uet_svc_body_len(UET_SVC_OP_MR_REG, true), 8);
	assert_int_equal(uet_svc_body_len(UET_SVC_OP_MR_DEREG, true), 0);
	assert_int_equal(uet_svc_body_len(UET_SVC_OP_BYE, false), 0);
	for (unsigned int op = 1; op < UET_SVC_OP__COUNT; op++) {
		assert_true(uet_svc_body_len(op, false) >= 0);
		assert_true(uet_svc_body_len(op, true) >= 0);
		assert_string_not_equal(uet_svc_op_name(op), "?");
	}
}

static void
uet_svc_body_len__unknown_op(void **state)
{
	(void)state;
	assert_int_equal(uet_svc_body_len(0, false), -EINVAL);
	assert_int_equal(uet_svc_body_len(UET_SVC_OP__COUNT, false), -EINVAL);
	assert_int_equal(uet_svc_body_len(0xFFFF, true), -EINVAL);
	assert_string_equal(uet_svc_op_name(0), "?");
	assert_string_equal(uet_svc_op_name(UET_SVC_OP__COUNT), "?");
}

static void
uet_svc_hdr_check__good_request_and_reply(void **state)
{
	struct uet_svc_hdr h;

	(void)state;
	uet_svc_hdr_init(&h, UET_SVC_OP_PID_GET, 8, 7, 0);
	assert_int_equal(uet_svc_hdr_check(&h, sizeof(h) + 8, false), 0);
	uet_svc_hdr_init(&h, UET_SVC_OP_PID_GET | UET_SVC_OP_REPLY, 8, 7, 0);
	assert_int_equal(uet_svc_hdr_check(&h, sizeof(h) + 8, true), 0);
	/* an error reply carries no body */
	uet_svc_hdr_init(&h, UET_SVC_OP_PID_GET | UET_SVC_OP_REPLY, 0, 7,
			 -ENOSPC);
	assert_int_equal(uet_svc_hdr_check(&h, sizeof(h), true), 0);
}

static void
uet_svc_hdr_check__malformed(void **state)
{
	struct uet_svc_hdr h;

	(void)state;
	assert_int_equal(uet_svc_hdr_check(NULL, 24, false), -EINVAL);
	uet_svc_hdr_init(&h, UET_SVC_OP_PID_GET, 8, 1, 0);
	/* short datagram */
	assert_int_equal(uet_svc_hdr_check(&h, sizeof(h) - 1, false),
			 -EINVAL);
	/* len disagrees with the datagram, then with the op's body */
	assert_int_equal(uet_svc_hdr_check(&h, sizeof(h) + 4, false),
			 -EINVAL);
	h.len = 4;
	assert_int_equal(uet_svc_hdr_check(&h, sizeof(h) + 4, false),
			 -EINVAL);
	/* reserved field, rc in a request, reply bit in a request */
	uet_svc_hdr_init(&h, UET_SVC_OP_PID_GET, 8, 1, 0);
	h.rsvd = 1;
	assert_int_equal(uet_svc_hdr_check(&h, sizeof(h) + 8, false),
			 -EINVAL);
	uet_svc_hdr_init(&h, UET_SVC_OP_PID_GET, 8, 1, -1);
	assert_int_equal(uet_svc_hdr_check(&h, sizeof(h) + 8, false),
			 -EINVAL);
	uet_svc_hdr_init(&h, UET_SVC_OP_PID_GET | UET_SVC_OP_REPLY, 8, 1, 0);
	assert_int_equal(uet_svc_hdr_check(&h, sizeof(h) + 8, false),
			 -EINVAL);
	/* positive rc, error reply with a body */
	assert_int_equal(uet_svc_hdr_check(&h, sizeof(h) + 8, true), 0);
	h.rc = 3;
	assert_int_equal(uet_svc_hdr_check(&h, sizeof(h) + 8, true),
			 -EINVAL);
	h.rc = -EINVAL;
	assert_int_equal(uet_svc_hdr_check(&h, sizeof(h) + 8, true),
			 -EINVAL);
}

static void
uet_svc_hdr_check__magic_version_unknown(void **state)
{
	struct uet_svc_hdr h;

	(void)state;
	uet_svc_hdr_init(&h, UET_SVC_OP_BYE, 0, 1, 0);
	h.magic ^= 1;
	assert_int_equal(uet_svc_hdr_check(&h, sizeof(h), false), -EPROTO);
	uet_svc_hdr_init(&h, UET_SVC_OP_BYE, 0, 1, 0);
	h.version = UET_SVC_VERSION + 1;
	assert_int_equal(uet_svc_hdr_check(&h, sizeof(h), false), -EPROTO);
	uet_svc_hdr_init(&h, 0x1234, 0, 1, 0);
	assert_int_equal(uet_svc_hdr_check(&h, sizeof(h), false), -ENOSYS);
	uet_svc_hdr_init(&h, 0, 0, 1, 0);
	assert_int_equal(uet_svc_hdr_check(&h, sizeof(h), false), -ENOSYS);
	/* the error reply to it echoes the op */
	uet_svc_hdr_init(&h, 0x1234 | UET_SVC_OP_REPLY, 0, 1, -EINVAL);
	assert_int_equal(uet_svc_hdr_check(&h, sizeof(h), true), 0);
	uet_svc_hdr_init(&h, 0x1234 | UET_SVC_OP_REPLY, 0, 1, 0);
	assert_int_equal(uet_svc_hdr_check(&h, sizeof(h), true), -ENOSYS);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(uet_svc_body_len__every_op),
		cmocka_unit_test(uet_svc_body_len__unknown_op),
		cmocka_unit_test(uet_svc_hdr_check__good_request_and_reply),
		cmocka_unit_test(uet_svc_hdr_check__malformed),
		cmocka_unit_test(uet_svc_hdr_check__magic_version_unknown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
