/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The UET endpoint address (include/ofi/uet/uet_ofi.h) and its FI_SOCKADDR_IN
 * form: IPv4 FA + UDP-style port, where port = UET_OFI_PORT_BASE | PIDonFEP
 * and any port maps back to PIDonFEP = port & 0xFFF. FI_SOCKADDR is the
 * same sockaddr_in (the FA is an IPv4 address there).
 */
#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include "uet_ofi_private.h"

bool
uet_ofi_fmt_sin(uint32_t addr_format)
{
	return addr_format == FI_SOCKADDR_IN || addr_format == FI_SOCKADDR;
}

size_t
uet_ofi_addrlen(uint32_t addr_format)
{
	switch (addr_format) {
	case FI_SOCKADDR:
	case FI_SOCKADDR_IN:
		return sizeof(struct sockaddr_in);
	case UET_OFI_ADDR_FORMAT:
		return sizeof(struct uet_ofi_addr);
	default:
		return 0;
	}
}

/*
 * The format of the address at @p in, told by its first two bytes: a
 * sockaddr starts with its family (host order), a struct uet_ofi_addr
 * with its version (1) and flags (1 or 2), which read as a family are
 * never AF_INET nor AF_INET6 (0x0101/0x0201 little-endian, 0x01xx
 * big-endian). FI_FORMAT_UNSPEC when it is neither.
 */
uint32_t
uet_ofi_addr_format_of(const void *in)
{
	sa_family_t family;

	memcpy(&family, in, sizeof(family));
	if (family == AF_INET)
		return FI_SOCKADDR_IN;
	if (family == AF_INET6)
		return FI_SOCKADDR_IN6;
	if (((const uint8_t *)in)[0] == UET_OFI_ADDR_VERSION)
		return UET_OFI_ADDR_FORMAT;
	return FI_FORMAT_UNSPEC;
}

const char *
uet_ofi_addr_format_name(uint32_t addr_format)
{
	switch (addr_format) {
	case FI_SOCKADDR:
		return "FI_SOCKADDR";
	case FI_SOCKADDR_IN:
		return "FI_SOCKADDR_IN";
	case FI_SOCKADDR_IN6:
		return "FI_SOCKADDR_IN6";
	case UET_OFI_ADDR_FORMAT:
		return "UET_OFI_ADDR_FORMAT";
	default:
		return "unknown";
	}
}

uint16_t
uet_ofi_addr_pid(const struct uet_ofi_addr *a)
{
	return ntohs(a->pid_on_fep) & UET_OFI_PID_MASK;
}

/* Default SES initiator id: low 20 bits of the FA, then the PIDonFEP. */
uint32_t
uet_ofi_initiator_default(const struct uet_ofi_addr *a)
{
	const uint8_t *fa = a->fa;
	uint32_t low;

	if (a->flags & UET_OFI_ADDR_F_IPV6)
		low = ((uint32_t)fa[13] << 16) | ((uint32_t)fa[14] << 8) | fa[15];
	else
		low = ((uint32_t)fa[1] << 16) | ((uint32_t)fa[2] << 8) | fa[3];
	return ((low & 0xFFFFFu) << 12) | uet_ofi_addr_pid(a);
}

void
uet_ofi_addr_make(struct uet_ofi_addr *a, const uint8_t *fa, bool ipv6,
		  uint16_t pid, enum uet_wire_profile profile, uint16_t caps)
{
	const struct uet_ofi_params *p = uet_ofi_params();

	memset(a, 0, sizeof(*a));
	a->version = UET_OFI_ADDR_VERSION;
	a->flags = ipv6 ? UET_OFI_ADDR_F_IPV6 : UET_OFI_ADDR_F_IPV4;
	a->profile = (uint8_t)profile;
	a->caps = htons(caps);
	a->pid_on_fep = htons(pid & UET_OFI_PID_MASK);
	a->start_ri = htons(0);
	a->num_ri = htons(UET_OFI_RI_DEF);
	memcpy(a->fa, fa, ipv6 ? 16 : 4);
	a->initiator_id = htonl(p->has_initiator_id ? p->initiator_id :
				uet_ofi_initiator_default(a));
}

int
uet_ofi_addr_check(const struct uet_ofi_addr *a)
{
	unsigned int fam = a->flags & (UET_OFI_ADDR_F_IPV4 | UET_OFI_ADDR_F_IPV6);

	if (a->version != UET_OFI_ADDR_VERSION)
		return -FI_EINVAL;
	if (fam != UET_OFI_ADDR_F_IPV4 && fam != UET_OFI_ADDR_F_IPV6)
		return -FI_EINVAL;
	if (a->profile < UET_PROFILE_AI_BASE || a->profile > UET_PROFILE_HPC)
		return -FI_EINVAL;
	if (ntohs(a->pid_on_fep) > UET_OFI_PID_MASK ||
	    ntohs(a->start_ri) > 0xFFF)
		return -FI_EINVAL;
	return 0;
}

int
uet_ofi_addr_from_sin(const void *in, size_t len, enum uet_wire_profile profile,
		      uint16_t caps, struct uet_ofi_addr *a)
{
	struct sockaddr_in sin;
	uint8_t fa[16] = { 0 };
	uint32_t initiator;

	if (in == NULL || len < sizeof(sin))
		return -FI_EINVAL;
	memcpy(&sin, in, sizeof(sin));
	if (sin.sin_family != AF_INET)
		return -FI_EINVAL;
	memcpy(fa, &sin.sin_addr, 4);
	uet_ofi_addr_make(a, fa, false, ntohs(sin.sin_port) & UET_OFI_PID_MASK,
			  profile, caps);
	/* A peer's initiator id cannot travel in a sockaddr: derive it the
	 * same way the peer does by default. */
	initiator = uet_ofi_initiator_default(a);
	a->initiator_id = htonl(initiator);
	return 0;
}

int
uet_ofi_addr_to_sin(const struct uet_ofi_addr *a, void *out, size_t *len)
{
	struct sockaddr_in sin;

	if (!(a->flags & UET_OFI_ADDR_F_IPV4))
		return -FI_EADDRNOTAVAIL;
	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	memcpy(&sin.sin_addr, a->fa, 4);
	sin.sin_port = htons(UET_OFI_PORT_BASE | uet_ofi_addr_pid(a));
	memcpy(out, &sin, *len < sizeof(sin) ? *len : sizeof(sin));
	if (*len < sizeof(sin)) {
		*len = sizeof(sin);
		return -FI_ETOOSMALL;
	}
	*len = sizeof(sin);
	return 0;
}

int
uet_ofi_addr_export(const struct uet_ofi_addr *a, uint32_t format, void *out,
		    size_t *len)
{
	size_t n;

	if (len == NULL)
		return -FI_EINVAL;
	if (uet_ofi_fmt_sin(format))
		return uet_ofi_addr_to_sin(a, out, len);
	n = sizeof(*a);
	if (out != NULL)
		memcpy(out, a, *len < n ? *len : n);
	if (*len < n) {
		*len = n;
		return -FI_ETOOSMALL;
	}
	*len = n;
	return 0;
}

int
uet_ofi_addr_import(const void *in, size_t len, uint32_t format,
		    enum uet_wire_profile profile, uint16_t caps,
		    struct uet_ofi_addr *a)
{
	if (uet_ofi_fmt_sin(format))
		return uet_ofi_addr_from_sin(in, len, profile, caps, a);
	if (in == NULL || len < sizeof(*a))
		return -FI_EINVAL;
	memcpy(a, in, sizeof(*a));
	return uet_ofi_addr_check(a);
}

static const char *
profile_tag(unsigned int p)
{
	switch (p) {
	case UET_PROFILE_AI_BASE:
		return "ai_base";
	case UET_PROFILE_AI_FULL:
		return "ai_full";
	case UET_PROFILE_HPC:
		return "hpc";
	default:
		return "?";
	}
}

/* "fi_addr_uet://<fa>/pid=<n>,ri=<start>+<n>,init=0x<id>,prof=<p>" */
const char *
uet_ofi_addr_str(const struct uet_ofi_addr *a, char *buf, size_t *len)
{
	char ip[INET6_ADDRSTRLEN] = "?";
	char tmp[160];
	int n;

	if (a->flags & UET_OFI_ADDR_F_IPV6)
		inet_ntop(AF_INET6, a->fa, ip, sizeof(ip));
	else
		inet_ntop(AF_INET, a->fa, ip, sizeof(ip));
	n = snprintf(tmp, sizeof(tmp),
		     "fi_addr_uet://%s%s%s/pid=%u,ri=%u+%u,init=0x%x,prof=%s,"
		     "caps=0x%x",
		     (a->flags & UET_OFI_ADDR_F_IPV6) ? "[" : "", ip,
		     (a->flags & UET_OFI_ADDR_F_IPV6) ? "]" : "",
		     uet_ofi_addr_pid(a), ntohs(a->start_ri), ntohs(a->num_ri),
		     ntohl(a->initiator_id), profile_tag(a->profile),
		     ntohs(a->caps));
	if (buf != NULL && *len > 0)
		snprintf(buf, *len, "%s", tmp);
	*len = (size_t)n + 1;
	return buf;
}

int
uet_ofi_resolve(const char *node, const char *service, void *out)
{
	struct addrinfo hints, *res = NULL;
	struct sockaddr_in sin;
	int rc;

	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	memset(&hints, 0, sizeof(hints));
	hints.ai_family = AF_INET;
	hints.ai_socktype = SOCK_DGRAM;
	if (node == NULL)
		hints.ai_flags = AI_PASSIVE;
	/* numeric first: no resolver round trip for the common case */
	hints.ai_flags |= AI_NUMERICHOST;
	rc = getaddrinfo(node, service, &hints, &res);
	if (rc == EAI_NONAME && node != NULL) {
		hints.ai_flags &= ~AI_NUMERICHOST;
		rc = getaddrinfo(node, service, &hints, &res);
	}
	if (rc != 0 || res == NULL) {
		FI_INFO(&uet_prov, FI_LOG_CORE, "cannot resolve %s:%s: %s\n",
			node ? node : "*", service ? service : "*",
			gai_strerror(rc));
		return -FI_ENODATA;
	}
	memcpy(&sin, res->ai_addr, sizeof(sin));
	freeaddrinfo(res);
	memcpy(out, &sin, sizeof(sin));
	return 0;
}

uint16_t
uet_ofi_addr_caps(uint64_t caps, enum fi_ep_type type, enum uet_wire_profile prof)
{
	uint16_t c = 0;

	if (type == FI_EP_DGRAM)
		return UET_OFI_ADDR_C_DGRAM | UET_OFI_ADDR_C_MSG;
	if (caps & FI_MSG)
		c |= UET_OFI_ADDR_C_MSG;
	if (caps & FI_TAGGED)
		c |= UET_OFI_ADDR_C_TAGGED;
	if (caps & FI_RMA)
		c |= UET_OFI_ADDR_C_RMA;
	if (caps & FI_ATOMIC)
		c |= UET_OFI_ADDR_C_ATOMIC;
	if (prof == UET_PROFILE_HPC)
		c |= UET_OFI_ADDR_C_RUDI;
	return c;
}
