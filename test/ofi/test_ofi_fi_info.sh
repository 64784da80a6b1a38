#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Debian's fi_info lists the provider, its profiles and every parameter.
set -u
FI_INFO=${1:-fi_info}
fail=0
# by default one RDM profile, HPC (Open MPI spreads ranks over entries
# that look alike); the others when FI_UET_PROVIDER_PROFILES lists them
out=$(env -u FI_UET_PROVIDER_PROFILES "$FI_INFO" -p uet 2>&1)
echo "$out" | grep -aq "domain: net_ring0-hpc" ||
	{ echo "default: no HPC entry"; fail=1; }
[ "$(echo "$out" | grep -ac -- "-ai_")" -eq 1 ] ||
	{ echo "default: AI RDM entries listed (only the DGRAM one's name has -ai_)"; fail=1; }
out=$(FI_UET_PROVIDER_PROFILES=hpc,ai_full,ai_base "$FI_INFO" -p uet -v 2>&1) ||
	{ echo "fi_info -p uet failed"; fail=1; }
for want in "prov_name: uet" "name: net_ring0-hpc" "name: net_ring0-ai_full" \
	    "name: net_ring0-ai_base" "type: FI_EP_RDM" "type: FI_EP_DGRAM" \
	    "addr_format: Provider specific" "resource_mgmt: FI_RM_ENABLED" \
	    "threading: FI_THREAD_SAFE" "FI_MR_PROV_KEY"; do
	echo "$out" | grep -aq -- "$want" || { echo "missing: $want"; fail=1; }
done
params=$("$FI_INFO" -e 2>&1)
for p in SERVICE_PATH SERVICE_TIMEOUT MSG_RENDEZVOUS_SIZE TAGGED_RENDEZVOUS_SIZE \
	 MAX_EAGER_SIZE DEF_DATA_DC FALLBACK_JOBID_SUPPORT FALLBACK_JOBID \
	 INITIATOR_ID EAL_ARGS PROGRESS CONFIG; do
	echo "$params" | grep -aq "FI_UET_PROVIDER_$p\b" ||
		{ echo "fi_info -e: missing FI_UET_PROVIDER_$p"; fail=1; }
done
# a rejected configuration says why without FI_LOG_LEVEL
tmp=$(mktemp -d /tmp/uet-fiinfo.XXXXXX) || exit 1
trap 'rm -rf "$tmp"' EXIT
printf '[port0]\nmtu = 99999\n' > "$tmp/bad.conf"
err=$(env -u FI_LOG_LEVEL FI_UET_PROVIDER_CONFIG="$tmp/bad.conf" \
	"$FI_INFO" -p uet 2>&1)
echo "$err" | grep -q "configuration $tmp/bad.conf rejected: .*mtu" ||
	{ echo "bad configuration not explained: $err"; fail=1; }
[ $fail -eq 0 ] && echo "fi_info: ok"
exit $fail
