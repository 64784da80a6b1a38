/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * uet-engine: the engine as a host service (docs/SERVICE.md). Owns the
 * ports, the lcores and the PDS/SES state of one configuration file;
 * processes attach over a UNIX socket and get their channels, PIDonFEPs
 * and a shared data window. Foreground, logs on stderr; SIGINT/SIGTERM:
 * no new clients, every client released, engine stopped, socket
 * unlinked, the EAL's runtime files removed, exit 0.
 */

#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <grp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include <rte_common.h>
#include <rte_eal.h>
#include <rte_errno.h>

#include <uet/uet_cma_worker.h>
#include <uet/uet_config.h>
#include <uet/uet_engine.h>
#include <uet/uet_ses_ulp.h>
#include <uet/uet_svc_server.h>
#include <uet/uet_ulp.h>

/* PIDonFEP of engine context 0; clients' follow the contexts' own */
#define ENGINE_PID_BASE 1u
#define EAL_ARGS_LEN 2048

struct opts {
	const char *config;
	const char *socket;
	char eal[EAL_ARGS_LEN]; /* after --, joined; "" = [eal] args */
};

static void
usage(FILE *f)
{
	fprintf(f,
"usage: uet-engine -c FILE [--socket PATH] [-- EAL arguments]\n"
"  -c, --config FILE  engine configuration (INI, config/uet.conf);\n"
"                     [service] sets the socket, window and limits\n"
"  -s, --socket PATH  UNIX socket clients attach to ([service] socket)\n"
"  -h, --help         this text\n"
"  EAL arguments after -- replace [eal] args of FILE.\n"
"  Runs in the foreground until SIGINT or SIGTERM; see docs/SERVICE.md.\n");
}

static int
opts_parse(int argc, char **argv, struct opts *o)
{
	static const struct option lo[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "socket", required_argument, NULL, 's' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	size_t used = 0;
	int c;

	memset(o, 0, sizeof(*o));
	while ((c = getopt_long(argc, argv, "c:s:h", lo, NULL)) != -1) {
		switch (c) {
		case 'c':
			o->config = optarg;
			break;
		case 's':
			o->socket = optarg;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		default:
			usage(stderr);
			return -EINVAL;
		}
	}
	if (o->config == NULL) {
		fprintf(stderr, "uet-engine: -c FILE is required\n");
		usage(stderr);
		return -EINVAL;
	}
	/* getopt stops at "--": what follows is for the EAL */
	for (int i = optind; i < argc; i++) {
		int n = snprintf(o->eal + used, sizeof(o->eal) - used, "%s%s",
				 used ? " " : "", argv[i]);

		if (n < 0 || (size_t)n >= sizeof(o->eal) - used) {
			fprintf(stderr, "uet-engine: EAL arguments too long\n");
			return -E2BIG;
		}
		used += (size_t)n;
	}
	if (optind < argc && strcmp(argv[optind - 1], "--") != 0) {
		fprintf(stderr, "uet-engine: unexpected argument '%s' (EAL "
			"arguments go after --)\n", argv[optind]);
		return -EINVAL;
	}
	return 0;
}

static int
config_get(const struct opts *o, struct uet_config *cfg)
{
	struct uet_config_error err;

	if (uet_config_load(cfg, o->config, &err) < 0 ||
	    (o->socket != NULL &&
	     snprintf(cfg->service.socket, sizeof(cfg->service.socket), "%s",
		      o->socket) >= (int)sizeof(cfg->service.socket)) ||
	    uet_config_validate(cfg, &err) < 0) {
		fprintf(stderr, "uet-engine: %s\n",
			o->socket != NULL && strlen(o->socket) >=
			sizeof(cfg->service.socket) ?
			"--socket: path too long (at most 107 bytes)" :
			err.msg);
		return -EINVAL;
	}
	/* the clients post and return: engine lcores must progress */
	if (cfg->engine.progress != UET_CONFIG_PROGRESS_AUTO) {
		fprintf(stderr, "uet-engine: %s: [engine] progress must be "
			"auto for a service (nobody would drive an inline "
			"engine)\n", o->config);
		return -EINVAL;
	}
	return 0;
}

/* The lcores reach clients' memory through workers, waiting a bounded
 * time (docs/SERVICE.md "Memory access"). */
static struct uet_cma_async *
cma_make(const struct uet_config *cfg)
{
	struct uet_cma_async_params p = {
		/* releasing clients keep theirs until their keys are gone */
		.max_handles = 2 * cfg->service.max_clients,
		.timeout_us = (uint32_t)(cfg->service.mem_timeout_ns / 1000),
		.hold_off_us = (uint32_t)(cfg->service.mem_hold_off_ns / 1000),
	};
	struct uet_cma_async *a = uet_cma_async_create(&p);

	if (a == NULL)
		fprintf(stderr, "uet-engine: memory access: %s\n",
			strerror(errno));
	return a;
}

static struct uet_engine *
engine_make(const struct uet_config *cfg, struct uet_ses_ulp_params *sul,
	    struct uet_proto_params *proto, struct uet_cma_async *cma)
{
	struct uet_engine_params ep;
	struct uet_engine *e;

	memset(sul, 0, sizeof(*sul));
	sul->pid_base = ENGINE_PID_BASE;
	sul->start_ri = 0;
	sul->mem_ops = &uet_cma_async_mem_ops;
	sul->mem_arg = cma;
	memset(proto, 0, sizeof(*proto));
	proto->ulp = &uet_ses_ulp_ops;
	proto->ulp_arg = sul;
	memset(&ep, 0, sizeof(ep));
	ep.cfg = cfg;
	ep.hook = &uet_proto_hook_ops;
	ep.hook_arg = proto;
	ep.name = "uetsvc";
	e = uet_engine_create(&ep);
	if (e == NULL)
		fprintf(stderr, "uet-engine: engine: %s\n",
			rte_strerror(rte_errno));
	return e;
}

/* [service] socket_group: a name or a number; "" the service's own. */
static int
socket_gid(const char *name, uint32_t *gid)
{
	char buf[4096];
	struct group g, *r = NULL;
	char *end;
	unsigned long v;

	*gid = UET_SVC_GID_KEEP;
	if (name[0] == '\0')
		return 0;
	if (name[0] >= '0' && name[0] <= '9') {
		errno = 0;
		v = strtoul(name, &end, 10);
		if (errno != 0 || *end != '\0' || v >= UET_SVC_GID_KEEP)
			goto bad;
		*gid = (uint32_t)v;
		return 0;
	}
	if (getgrnam_r(name, &g, buf, sizeof(buf), &r) != 0 || r == NULL)
		goto bad;
	*gid = (uint32_t)g.gr_gid;
	return 0;
bad:
	fprintf(stderr, "uet-engine: [service] socket_group: '%s': no such "
		"group\n", name);
	return -EINVAL;
}

/* [service] job.N lines, as the server takes them. */
static void
server_acl(const struct uet_config_service *v, struct uet_svc_acl *acl)
{
	for (unsigned int i = 0; i < v->nb_acl; i++) {
		acl[i].first = v->acl[i].first;
		acl[i].last = v->acl[i].last;
		acl[i].nb = v->acl[i].nb;
		for (unsigned int k = 0; k < v->acl[i].nb; k++) {
			acl[i].m[k].id = v->acl[i].m[k].id;
			acl[i].m[k].gid = v->acl[i].m[k].gid;
		}
	}
}

static uint32_t
ns_to_ms(uint64_t ns)
{
	return (uint32_t)RTE_MIN((ns + 999999) / 1000000, (uint64_t)UINT32_MAX);
}

static void
server_limits(const struct uet_config_service *v,
	      struct uet_svc_server_params *p)
{
	p->quota.clients = v->user_clients;
	p->quota.pids = v->user_pids;
	p->quota.jobs = v->user_jobs;
	p->quota.mrs = v->user_mrs;
	p->quota.peers = v->user_peers;
	p->quota.window = v->user_window;
	p->hello_timeout_ms = ns_to_ms(v->hello_timeout_ns);
	p->idle_timeout_ms = ns_to_ms(v->idle_timeout_ns);
	p->pid_ops = v->pid_ops;
}

static int
server_params(const struct uet_config *cfg, struct uet_engine *e,
	      struct uet_svc_server_params *p)
{
	static struct uet_svc_acl acl[UET_CONFIG_SVC_ACL_MAX];
	const struct uet_config_port *p0 = &cfg->port[0];
	uint32_t a[UET_CONFIG_JOB_RANGES_MAX], b[UET_CONFIG_JOB_RANGES_MAX];
	unsigned int n;

	memset(p, 0, sizeof(*p));
	p->engine = e;
	p->socket_path = cfg->service.socket;
	p->pid_base = ENGINE_PID_BASE;
	p->start_ri = 0;
	p->is_v6 = !p0->has_ipv4;
	if (p->is_v6)
		memcpy(p->fa, &p0->ipv6, 16);
	else
		memcpy(p->fa, &p0->ipv4, 4);
	p->mtu = uet_config_port_mtu(p0);
	p->window_size = cfg->service.window_size;
	p->max_clients = cfg->service.max_clients;
	p->max_chans = cfg->service.max_chans;
	p->max_pids = cfg->service.max_pids;
	/* validated with the configuration */
	p->socket_mode = (uint32_t)uet_config_socket_mode(
		cfg->service.socket_mode);
	if (socket_gid(cfg->service.socket_group, &p->socket_gid) < 0)
		return -EINVAL;
	server_acl(&cfg->service, acl);
	p->acl = acl;
	p->nb_acl = cfg->service.nb_acl;
	server_limits(&cfg->service, p);
	if (uet_config_jobs_parse(cfg->service.jobs, a, b,
				  UET_CONFIG_JOB_RANGES_MAX, &n, NULL, 0) < 0)
		return -EINVAL;
	p->jobs.nb = n;
	for (unsigned int i = 0; i < n; i++) {
		p->jobs.r[i].first = a[i];
		p->jobs.r[i].last = b[i];
	}
	return 0;
}

/* SIGINT/SIGTERM as a file descriptor: blocked before the EAL starts
 * its threads (they inherit the mask), so none of them takes it. */
static int
signals_fd(void)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	if (sigprocmask(SIG_BLOCK, &set, NULL) != 0)
		return -errno;
	(void)signal(SIGPIPE, SIG_IGN);
	return signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
}

static int
serve(struct uet_svc_server *s, int sfd)
{
	struct epoll_event ev = { .events = EPOLLIN }, out[2];
	int ep = epoll_create1(EPOLL_CLOEXEC);
	int rc = 0;

	if (ep < 0)
		return -errno;
	ev.data.fd = sfd;
	if (epoll_ctl(ep, EPOLL_CTL_ADD, sfd, &ev) != 0)
		rc = -errno;
	ev.data.fd = uet_svc_server_fd(s);
	if (rc == 0 && epoll_ctl(ep, EPOLL_CTL_ADD, ev.data.fd, &ev) != 0)
		rc = -errno;
	while (rc == 0) {
		int n = epoll_wait(ep, out, 2, -1);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			rc = -errno;
			break;
		}
		for (int i = 0; i < n; i++) {
			if (out[i].data.fd == sfd) {
				struct signalfd_siginfo si;

				if (read(sfd, &si, sizeof(si)) == sizeof(si))
					fprintf(stderr, "uet-engine: signal %u: "
						"shutting down\n", si.ssi_signo);
				close(ep);
				return 0;
			}
			(void)uet_svc_server_run(s, 0);
		}
	}
	close(ep);
	return rc;
}

/* The EAL leaves its runtime files (config, memory maps, the mp and
 * telemetry sockets) in its runtime directory; ours goes with us. */
static void
runtime_dir_remove(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;

	if (d == NULL)
		return;
	while ((de = readdir(d)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 ||
		    strcmp(de->d_name, "..") == 0)
			continue;
		(void)unlinkat(dirfd(d), de->d_name, 0);
	}
	closedir(d);
	(void)rmdir(dir);
}

int
main(int argc, char **argv)
{
	static struct uet_config cfg;
	struct uet_ses_ulp_params sul;
	struct uet_proto_params proto;
	struct uet_svc_server_params sp;
	struct uet_svc_server *s = NULL;
	struct uet_engine *e = NULL;
	struct uet_cma_async *cma = NULL;
	char rundir[4096] = "";
	struct opts o;
	int rc, sfd, status = 1;

	if (opts_parse(argc, argv, &o) < 0 || config_get(&o, &cfg) < 0)
		return 2;
	sfd = signals_fd();
	if (sfd < 0) {
		fprintf(stderr, "uet-engine: signalfd: %s\n", strerror(-sfd));
		return 1;
	}
	rc = uet_engine_eal_init("uet-engine", o.eal[0] ? o.eal :
				 cfg.eal.args, NULL);
	if (rc < 0) {
		fprintf(stderr, "uet-engine: EAL: %s\n", rte_strerror(-rc));
		return 1;
	}
	snprintf(rundir, sizeof(rundir), "%s", rte_eal_get_runtime_dir());
	cma = cma_make(&cfg);
	if (cma == NULL)
		goto out;
	e = engine_make(&cfg, &sul, &proto, cma);
	if (e == NULL || server_params(&cfg, e, &sp) < 0)
		goto out;
	sp.cma = cma;
	s = uet_svc_server_create(&sp, &rc);
	if (s == NULL) {
		fprintf(stderr, "uet-engine: %s: %s\n", sp.socket_path,
			strerror(-rc));
		goto out;
	}
	rc = uet_engine_start(e);
	if (rc < 0) {
		fprintf(stderr, "uet-engine: engine start: %s\n",
			strerror(-rc));
		goto out;
	}
	fprintf(stderr, "uet-engine: serving %s (pid %d)\n", sp.socket_path,
		(int)getpid());
	rc = serve(s, sfd);
	if (rc < 0)
		fprintf(stderr, "uet-engine: %s\n", strerror(-rc));
	else
		status = 0;
out:
	/* clients are released while the lcores still answer control
	 * requests; then the engine stops and the page can go */
	uet_svc_server_shutdown(s);
	if (e != NULL)
		(void)uet_engine_stop(e);
	uet_svc_server_free(s);
	uet_engine_free(e);
	/* after the lcores: a worker stuck in a client's page is left */
	uet_cma_async_destroy(cma);
	(void)rte_eal_cleanup();
	if (rundir[0] != '\0')
		runtime_dir_remove(rundir);
	close(sfd);
	return status;
}
