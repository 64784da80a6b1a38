/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The service's policy and quotas (src/svc/svc_policy.c) on a server
 * built by hand: who may use which JobID, per-uid quotas, the JobIDs a
 * channel's SQEs may name, the socket's directory. No engine, no EAL:
 * what the attack suite (test/service/test_svc_attack.sh, root only)
 * checks end to end, here for any user.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include <rte_common.h>

#include "../../src/svc/svc_server_private.h"

#define SVC_UID 4242u /* the service's own uid in these tests */

static struct uet_svc_server srv;
static struct uet_svc_acl acl[2];
static struct svc_user users[8]; /* 2 * max_clients, as the server sizes it */
static struct svc_job jobs_a[UET_CHAN_JOB_RANGES_MAX + 1];

static int
setup(void **state)
{
	(void)state;
	memset(&srv, 0, sizeof(srv));
	memset(users, 0, sizeof(users));
	srv.p.max_clients = 4;
	srv.p.max_chans = 2;
	srv.users = users;
	srv.euid = SVC_UID;
	srv.p.jobs.nb = 1;
	srv.p.jobs.r[0].first = 1;
	srv.p.jobs.r[0].last = 100;
	/* job.50 = gid:77; job.60-61 = uid:1000 */
	memset(acl, 0, sizeof(acl));
	acl[0] = (struct uet_svc_acl){ .first = 50, .last = 50, .nb = 1 };
	acl[0].m[0].id = 77;
	acl[0].m[0].gid = true;
	acl[1] = (struct uet_svc_acl){ .first = 60, .last = 61, .nb = 1 };
	acl[1].m[0].id = 1000;
	srv.acl = acl;
	srv.p.nb_acl = 2;
	srv.p.quota = (struct uet_svc_quota){ .clients = 2, .pids = 3,
					      .window = 100 };
	return 0;
}

static int
teardown(void **state)
{
	(void)state;
	free(srv.owners);
	srv.owners = NULL;
	srv.nb_owners = srv.cap_owners = 0;
	return 0;
}

static struct svc_client
client(uid_t uid, gid_t gid)
{
	struct svc_client c;

	memset(&c, 0, sizeof(c));
	c.uid = uid;
	c.gid = gid;
	c.fd = -1;
	return c;
}

/* A JobID no line covers is the first uid's while it holds it. */
static void
svc_job_allowed__first_uid_owns_an_uncovered_jobid(void **state)
{
	struct svc_client a = client(1000, 1000), a2 = client(1000, 1000),
			  b = client(1001, 1001);

	(void)state;
	assert_int_equal(svc_job_allowed(&srv, &b, 5), 0);
	assert_int_equal(svc_job_claim(&srv, &a, 5), 0);
	assert_int_equal(svc_job_allowed(&srv, &b, 5), -EACCES);
	assert_int_equal(svc_job_allowed(&srv, &a2, 5), 0);
	assert_int_equal(svc_job_claim(&srv, &a2, 5), 0);
	svc_job_unclaim(&srv, &a, 5);
	/* another connection of the uid still holds it */
	assert_int_equal(svc_job_allowed(&srv, &b, 5), -EACCES);
	/* b cannot release what it does not own */
	svc_job_unclaim(&srv, &b, 5);
	assert_int_equal(svc_job_allowed(&srv, &b, 5), -EACCES);
	svc_job_unclaim(&srv, &a2, 5);
	assert_int_equal(svc_job_allowed(&srv, &b, 5), 0);
	assert_int_equal(srv.nb_owners, 0);
}

/* job.N lines: members only, by uid, primary or supplementary group. */
static void
svc_job_allowed__members_of_a_job_line(void **state)
{
	struct svc_client u = client(1000, 1000), g = client(1001, 77),
			  sup = client(1002, 1002), no = client(1003, 1003);

	(void)state;
	sup.groups[0] = 12;
	sup.groups[1] = 77;
	sup.nb_groups = 2;
	assert_int_equal(svc_job_allowed(&srv, &g, 50), 0);
	assert_int_equal(svc_job_allowed(&srv, &sup, 50), 0);
	assert_int_equal(svc_job_allowed(&srv, &u, 50), -EACCES);
	assert_int_equal(svc_job_allowed(&srv, &u, 61), 0);
	assert_int_equal(svc_job_allowed(&srv, &no, 60), -EACCES);
	/* a covered JobID is never owned: members share it */
	assert_int_equal(svc_job_claim(&srv, &g, 50), 0);
	assert_int_equal(srv.nb_owners, 0);
	assert_int_equal(svc_job_allowed(&srv, &sup, 50), 0);
}

/*
 * Root and the service's uid: any JobID, another's included (without
 * taking it over), no quota. An unlisted JobID root takes first is
 * root's: the security review's user joined root's unlisted JobID and
 * sent into its processes.
 */
static void
svc_job_allowed__root_and_the_service_uid(void **state)
{
	struct svc_client a = client(1000, 1000), r = client(0, 0),
			  s = client(SVC_UID, SVC_UID);

	(void)state;
	assert_int_equal(svc_job_claim(&srv, &a, 7), 0);
	assert_int_equal(svc_job_allowed(&srv, &r, 7), 0);
	assert_int_equal(svc_job_allowed(&srv, &s, 61), 0);
	/* root uses a's JobID: a keeps it, root owns nothing of it */
	assert_int_equal(svc_job_claim(&srv, &r, 7), 0);
	assert_int_equal(srv.nb_owners, 1);
	svc_job_unclaim(&srv, &r, 7);
	assert_int_equal(srv.nb_owners, 1);
	/* root takes an unlisted JobID first: the user is kept out */
	assert_int_equal(svc_job_claim(&srv, &r, 8), 0);
	assert_int_equal(srv.nb_owners, 2);
	assert_int_equal(svc_job_allowed(&srv, &a, 8), -EACCES);
	assert_int_equal(svc_job_allowed(&srv, &s, 8), 0);
	svc_job_unclaim(&srv, &r, 8);
	assert_int_equal(svc_job_allowed(&srv, &a, 8), 0);
	assert_int_equal(svc_user_attach(&srv, &r), 0);
	assert_int_equal(svc_quota_take(&srv, &r, SVC_Q_PIDS, 1000), 0);
	svc_quota_put(&r, SVC_Q_PIDS, 1000);
	svc_user_detach(&srv, &r);
	svc_job_unclaim(&srv, &a, 7);
}

/* Quotas are per uid, over all its connections. */
static void
svc_quota_take__per_uid_over_its_connections(void **state)
{
	struct svc_client a = client(1000, 1000), a2 = client(1000, 1000),
			  a3 = client(1000, 1000), b = client(1001, 1001);

	(void)state;
	assert_int_equal(svc_user_attach(&srv, &a), 0);
	assert_int_equal(svc_user_attach(&srv, &a2), 0);
	assert_int_equal(svc_user_attach(&srv, &a3), -EDQUOT);
	assert_int_equal(svc_user_attach(&srv, &b), 0);
	assert_ptr_equal(a.user, a2.user);
	assert_int_equal(svc_quota_take(&srv, &a, SVC_Q_PIDS, 2), 0);
	assert_int_equal(svc_quota_take(&srv, &a2, SVC_Q_PIDS, 1), 0);
	assert_int_equal(svc_quota_take(&srv, &a2, SVC_Q_PIDS, 1), -EDQUOT);
	assert_int_equal(svc_quota_take(&srv, &b, SVC_Q_PIDS, 3), 0);
	assert_int_equal(svc_quota_take(&srv, &a, SVC_Q_WINDOW, 60), 0);
	assert_int_equal(svc_quota_take(&srv, &a2, SVC_Q_WINDOW, 41),
			 -EDQUOT);
	assert_int_equal(svc_quota_take(&srv, &a, SVC_Q_WINDOW, UINT64_MAX),
			 -EDQUOT);
	/* unlimited (0): jobs */
	assert_int_equal(svc_quota_take(&srv, &a, SVC_Q_JOBS, 1000000), 0);
	svc_quota_put(&a, SVC_Q_PIDS, 1);
	assert_int_equal(svc_quota_take(&srv, &a2, SVC_Q_PIDS, 1), 0);
	svc_user_detach(&srv, &a2);
	assert_int_equal(svc_user_attach(&srv, &a3), 0);
	svc_user_detach(&srv, &a);
	svc_user_detach(&srv, &a3);
	svc_user_detach(&srv, &b);
	for (unsigned int i = 0; i < RTE_DIM(users); i++)
		assert_int_equal(users[i].clients, 0);
}

/* A user's channel names only what it authorised on its PIDonFEP; the
 * table the lcore reads is swapped, never rewritten in place. */
static void
svc_chan_jobs__the_jobids_its_client_authorised(void **state)
{
	struct svc_client a = client(1000, 1000), r = client(0, 0);
	struct svc_chan ch;
	const struct uet_chan_jobs *before;

	(void)state;
	memset(&ch, 0, sizeof(ch));
	ch.pid = 9;
	a.jobs = jobs_a;
	a.jobs[0] = (struct svc_job){ .job = 5, .pid = 9, .ref = 1 };
	a.jobs[1] = (struct svc_job){ .job = 6, .pid = 10, .ref = 1 };
	a.nb_jobs = 2;
	assert_int_equal(svc_chan_jobs(&srv, &a, &ch, false), 0);
	assert_int_equal(ch.ch.jobs->nb, 1);
	assert_int_equal(ch.ch.jobs->r[0].first, 5);
	assert_int_equal(ch.ch.jobs->r[0].last, 5);
	before = ch.ch.jobs;
	a.jobs[1].pid = 9;
	assert_int_equal(svc_chan_jobs(&srv, &a, &ch, true), 0);
	assert_ptr_not_equal(ch.ch.jobs, before);
	assert_int_equal(before->nb, 1);
	assert_int_equal(ch.ch.jobs->nb, 2);
	/* a 17th JobID on the PIDonFEP does not fit */
	for (unsigned int i = 0; i < RTE_DIM(jobs_a); i++)
		a.jobs[i] = (struct svc_job){ .job = 20 + i, .pid = 9 };
	a.nb_jobs = UET_CHAN_JOB_RANGES_MAX - 1;
	assert_int_equal(svc_chan_jobs_room(&srv, &a, 9), 0);
	a.nb_jobs = UET_CHAN_JOB_RANGES_MAX;
	assert_int_equal(svc_chan_jobs_room(&srv, &a, 9), -ENOSPC);
	assert_int_equal(svc_chan_jobs(&srv, &a, &ch, true), 0);
	assert_int_equal(ch.ch.jobs->nb, UET_CHAN_JOB_RANGES_MAX);
	a.nb_jobs = UET_CHAN_JOB_RANGES_MAX + 1;
	assert_int_equal(svc_chan_jobs(&srv, &a, &ch, true), -ENOSPC);
	/* root: no such limit */
	assert_int_equal(svc_chan_jobs_room(&srv, &r, 9), 0);
	/* root: the service's grant */
	assert_int_equal(svc_chan_jobs(&srv, &r, &ch, true), 0);
	assert_ptr_equal(ch.ch.jobs, &srv.p.jobs);
}

/* Set by a test: the directory mkdir() makes is replaced at once by a
 * symbolic link to this path (another user who may write its parent,
 * winning the race between the service's mkdir and what follows). */
static const char *mkdir_swap_to;

int __real_mkdir(const char *path, mode_t mode);
int __wrap_mkdir(const char *path, mode_t mode);

int
__wrap_mkdir(const char *path, mode_t mode)
{
	int rc = __real_mkdir(path, mode);

	if (rc == 0 && mkdir_swap_to != NULL &&
	    (rmdir(path) != 0 || symlink(mkdir_swap_to, path) != 0))
		return -1;
	return rc;
}

/* The security review's local-root race: the directory the service made
 * swapped for a symbolic link to a file of root's before its mode was
 * set. Refused, and the file's mode untouched (a chmod by path made it
 * 0755). */
static void
svc_sock_dir_check__symlink_raced_in_is_not_followed(void **state)
{
	char dir[] = "/tmp/uet-svcpol-XXXXXX", path[128], sub[64], target[64];
	struct stat st;
	int fd;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(target, sizeof(target), "%s/target", dir);
	fd = open(target, O_WRONLY | O_CREAT | O_EXCL, 0600);
	assert_true(fd >= 0);
	close(fd);
	snprintf(sub, sizeof(sub), "%s/new", dir);
	snprintf(path, sizeof(path), "%s/s.sock", sub);
	mkdir_swap_to = target;
	assert_int_equal(svc_sock_dir_check(path), -ENOTDIR);
	mkdir_swap_to = NULL;
	assert_int_equal(stat(target, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0600);
	assert_int_equal(unlink(sub), 0);
	assert_int_equal(unlink(target), 0);
	assert_int_equal(rmdir(dir), 0);
}

/* The socket's directory: created 0755 when absent; refused when others
 * may write it or it is not a directory. */
static void
svc_sock_dir_check__unsafe_directories(void **state)
{
	char dir[] = "/tmp/uet-svcpol-XXXXXX", path[128], sub[64];
	struct stat st;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/s.sock", dir);
	assert_int_equal(svc_sock_dir_check(path), 0);
	snprintf(sub, sizeof(sub), "%s/new", dir);
	snprintf(path, sizeof(path), "%s/s.sock", sub);
	assert_int_equal(svc_sock_dir_check(path), 0);
	assert_int_equal(stat(sub, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0755);
	assert_int_equal(chmod(sub, 0775), 0);
	assert_int_equal(svc_sock_dir_check(path), -EPERM);
	assert_int_equal(chmod(sub, 01777), 0);
	assert_int_equal(svc_sock_dir_check(path), -EPERM);
	assert_int_equal(rmdir(sub), 0);
	assert_int_equal(symlink(dir, sub), 0);
	assert_int_equal(svc_sock_dir_check(path), -ENOTDIR);
	assert_int_equal(unlink(sub), 0);
	assert_int_equal(rmdir(dir), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(
			svc_job_allowed__first_uid_owns_an_uncovered_jobid,
			setup, teardown),
		cmocka_unit_test_setup_teardown(
			svc_job_allowed__members_of_a_job_line, setup,
			teardown),
		cmocka_unit_test_setup_teardown(
			svc_job_allowed__root_and_the_service_uid, setup,
			teardown),
		cmocka_unit_test_setup_teardown(
			svc_quota_take__per_uid_over_its_connections, setup,
			teardown),
		cmocka_unit_test_setup_teardown(
			svc_chan_jobs__the_jobids_its_client_authorised, setup,
			teardown),
		cmocka_unit_test_setup_teardown(
			svc_sock_dir_check__unsafe_directories, setup,
			teardown),
		cmocka_unit_test_setup_teardown(
			svc_sock_dir_check__symlink_raced_in_is_not_followed,
			setup,
			teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
