/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A channel whose EP_DEL the engine did not take or answer in time
 * (src/svc/svc_srv_ops.c chan_unbind): the SES may still write its rings
 * in the client's region and read its struct. CHAN_CLOSE fails with the
 * error and the channel stays open (its slot not reused); a client
 * released meanwhile keeps its region mapped. Before, the channel was
 * marked closed whatever EP_DEL said: its slot open to the next
 * CHAN_OPEN and the region unmapped at the client's release, under a SES
 * still holding them.
 *
 * CHAN_CLOSE posts its EP_DEL (uet_ses_ulp_ctl_post) and polls for the
 * answer; one never posted (the context's control ring full, -EAGAIN, or
 * -ENOMEM) was taken as done by the first waiting version: the channel
 * freed under a SES still holding it.
 *
 * The engine calls are stand-ins (--wrap): uet_ses_ulp_ctl and the post
 * answer as the test says, the poll answers at once with rc 0, the
 * detach does nothing, munmap is counted.
 */

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include <cmocka.h>

#include <uet/uet_ses_ulp.h>

#include "../../src/svc/svc_server_private.h"

/* what the next uet_ses_ulp_ctl() returns */
static int ctl_rc;
static unsigned int ctl_calls, munmaps;

int __wrap_uet_ses_ulp_ctl(struct uet_engine *e, unsigned int ctx,
			   struct uet_ses_ulp_ctl *req, void (*progress)(void *),
			   void *arg);
int
__wrap_uet_ses_ulp_ctl(struct uet_engine *e, unsigned int ctx,
		       struct uet_ses_ulp_ctl *req, void (*progress)(void *),
		       void *arg)
{
	(void)e;
	(void)ctx;
	(void)progress;
	(void)arg;
	ctl_calls++;
	req->rc = 0;
	return ctl_rc;
}

/* what the next uet_ses_ulp_ctl_post() returns; a posted request is
 * answered 0 at its first poll */
static int post_rc;
static unsigned int posts;

int __wrap_uet_ses_ulp_ctl_post(struct uet_engine *e, unsigned int ctx,
				const struct uet_ses_ulp_ctl *req,
				struct uet_ses_ulp_ctl_pending **op);
int
__wrap_uet_ses_ulp_ctl_post(struct uet_engine *e, unsigned int ctx,
			    const struct uet_ses_ulp_ctl *req,
			    struct uet_ses_ulp_ctl_pending **op)
{
	(void)e;
	(void)ctx;
	(void)req;
	posts++;
	*op = (struct uet_ses_ulp_ctl_pending *)&posts;
	return post_rc;
}

int __wrap_uet_ses_ulp_ctl_poll(struct uet_ses_ulp_ctl_pending *op,
				struct uet_ses_ulp_ctl *req);
int
__wrap_uet_ses_ulp_ctl_poll(struct uet_ses_ulp_ctl_pending *op,
			    struct uet_ses_ulp_ctl *req)
{
	(void)op;
	req->rc = 0;
	return 0;
}

bool __wrap_uet_engine_running(const struct uet_engine *e);
bool
__wrap_uet_engine_running(const struct uet_engine *e)
{
	(void)e;
	return false;
}

int __wrap_uet_engine_chan_detach(struct uet_engine *e, struct uet_chan *ch);
int
__wrap_uet_engine_chan_detach(struct uet_engine *e, struct uet_chan *ch)
{
	(void)e;
	(void)ch;
	return 0;
}

int __wrap_munmap(void *addr, size_t len);
int
__wrap_munmap(void *addr, size_t len)
{
	(void)addr;
	(void)len;
	munmaps++;
	return 0;
}

static struct uet_svc_server srv;
static struct svc_client cli;
static struct uet_svc_region region;

static void
setup_one_chan(void)
{
	memset(&srv, 0, sizeof(srv));
	memset(&cli, 0, sizeof(cli));
	memset(&region, 0, sizeof(region));
	srv.p.max_chans = 4;
	srv.st.chans = 1;
	cli.hello = true;
	cli.memfd = -1;
	cli.as_fd = -1;
	cli.region = (uint8_t *)&region;
	cli.region_size = sizeof(region);
	cli.chans = calloc(srv.p.max_chans, sizeof(*cli.chans));
	assert_non_null(cli.chans);
	cli.chans[0].open = true;
	region.chan[0].state = UET_SVC_CHAN_OPEN;
	ctl_calls = 0;
	munmaps = 0;
}

static int
chan_close(unsigned int slot)
{
	struct uet_svc_chan_close_req q = { .slot = slot };
	uint8_t rep[64];
	uint32_t rep_len;
	unsigned int nb_fds;
	int fds[4];

	return svc_op(&srv, &cli, UET_SVC_OP_CHAN_CLOSE, &q, rep, &rep_len,
		      fds, &nb_fds);
}

/* EP_DEL not posted (the ring full: -EAGAIN; -ENOMEM): the channel
 * stays open and its slot says so; posted and answered, it closes. */
static void
chan_close__ep_del_not_posted_keeps_the_channel(void **state)
{
	(void)state;
	setup_one_chan();
	posts = 0;
	post_rc = -EAGAIN;
	assert_int_equal(chan_close(0), -EAGAIN);
	assert_true(cli.chans[0].open);
	assert_int_equal(region.chan[0].state, UET_SVC_CHAN_OPEN);
	assert_int_equal(srv.st.chans, 1);
	post_rc = -ENOMEM;
	assert_int_equal(chan_close(0), -ENOMEM);
	assert_true(cli.chans[0].open);
	assert_int_equal(srv.st.chan_held, 2);
	post_rc = 0;
	assert_int_equal(chan_close(0), 0);
	assert_false(cli.chans[0].open);
	assert_int_equal(region.chan[0].state, 0);
	assert_int_equal(srv.st.chans, 0);
	assert_int_equal(chan_close(0), -ENOENT);
	/* never the synchronous call that would wait behind the ring */
	assert_int_equal(posts, 3);
	assert_int_equal(ctl_calls, 0);
	free(cli.chans);
}

/* A client released while its channel's EP_DEL goes unanswered: the
 * region is not unmapped, the channel still open; answered, the region
 * goes. */
static void
client_release__unanswered_ep_del_keeps_the_region(void **state)
{
	(void)state;
	setup_one_chan();
	ctl_rc = -ETIMEDOUT;
	svc_client_release(&srv, &cli);
	assert_int_equal(munmaps, 0);
	assert_true(cli.chans[0].open);
	assert_int_equal(srv.st.chan_held, 1);
	free(cli.chans);
	setup_one_chan();
	ctl_rc = 0;
	svc_client_release(&srv, &cli);
	assert_int_equal(munmaps, 1);
	assert_false(cli.chans[0].open);
	free(cli.chans);
}

/* A key whose MR_DEREG the engine did not answer at the client's
 * release: the address space descriptor is kept for it, but the uid's
 * quota of keys comes back, as in the background release (before, the
 * synchronous release kept it counted for good). */
static void
client_release__kept_key_gives_back_its_quota(void **state)
{
	struct svc_user u = { .uid = 1000, .mrs = 1 };
	struct svc_mr mr = { .key = 7, .ctx = 0, .local = false };

	(void)state;
	setup_one_chan();
	cli.user = &u;
	cli.mrs = &mr;
	cli.nb_mrs = 1;
	srv.st.mrs = 1;
	ctl_rc = -ETIMEDOUT;
	svc_client_release(&srv, &cli);
	assert_int_equal(cli.nb_mrs, 0);
	assert_int_equal(srv.st.mrs, 0);
	assert_int_equal(u.mrs, 0);
	free(cli.chans);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(chan_close__ep_del_not_posted_keeps_the_channel),
		cmocka_unit_test(client_release__unanswered_ep_del_keeps_the_region),
		cmocka_unit_test(client_release__kept_key_gives_back_its_quota),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
