#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The service against its own users (docs/SERVICE.md "Security"): root
# starts a uet-engine whose socket is open to a group; users made for the
# test attack it with a raw protocol client (svc_attack, run through
# setpriv) while a victim of another uid sends to itself through the
# service, every byte checked. Each attack must fail with its errno and
# raise its counter in /uet/service; the victim must not notice. The
# service protects JobIDs 50, 60-61 and 90 with [tss] (secure domain 7,
# its key file root's): the JobID a client names selects the domain, the
# service's job.N policy decides who may, and no user reads the key.
#   test_svc_attack.sh UET_ENGINE SVC_ATTACK [FI_PINGPONG PROVIDER_DIR]
# With fi_pingpong and the provider's directory, a fi_pingpong of a
# third user (libfabric provider attached to the service) runs through
# the attacks as well, and must finish. Root only (skipped otherwise).
# Users, groups, the service and its files go at exit.
set -u
. "$(dirname "$0")/svc_lib.sh"
svc_lib_init "$1" "$2"

EPERM=-1 EACCES=-13 EADDRINUSE=-98 ETIMEDOUT=-110 EDQUOT=-122

svc_group svc # may connect: the socket's group
svc_group hpc # job.50's members
svc_user vic svc >/dev/null
svc_user atk svc >/dev/null
svc_user mate svc hpc >/dev/null
svc_user out >/dev/null # not in the socket's group
svc_user pp svc >/dev/null # fi_pingpong's

# one client region: 2 channel slots and a 1 MiB window; a user may have
# four and a half of them
region=$("$SVC_TOOL" - region 2 1048576)
# the secure domain's key: the service's alone
( umask 077 && openssl rand -hex 32 > "$SVC_DIR/sdi7.key" &&
	mkdir "$SVC_DIR/tss-state" ) || exit 1
svc_start "socket_mode = 0660" "socket_group = ${SVC_TAG}svc" \
	"jobs = 1-100" "window_size = 1M" "max_chans = 2" \
	"job.50 = gid:${SVC_TAG}hpc" "job.60-61 = uid:${SVC_TAG}vic" \
	"user_clients = 6" "user_pids = 3" "user_jobs = 4" "user_mrs = 4" \
	"user_peers = 4" "user_window = $((region * 9 / 2))" \
	"hello_timeout = 3s" "idle_timeout = 3s" "pid_ops = 64" \
	"[tss]" "enabled = true" "state_dir = $SVC_DIR/tss-state" \
	"domain.7 = 50,60-61,90 $SVC_DIR/sdi7.key"
echo "# service pid $SVC_PID, socket $SVC_SOCK, region $region bytes"

tel_is() { [ "$(svc_tel "$1")" "$2" "$3" ]; }
cannot() { ! "$@" 2>/dev/null; }

# ---- 9: the socket ----
svc_check "socket directory made root's, 0755" \
	[ "$(stat -c '%U %a' "$SVC_DIR/run")" = "root 755" ]
svc_check "socket mode 0660, group from the configuration" \
	[ "$(stat -c '%G %a' "$SVC_SOCK")" = "${SVC_TAG}svc 660" ]
svc_check "a user outside the group cannot connect (EACCES)" \
	svc_atk out connect $EACCES
svc_check "a user cannot write the socket's directory" \
	cannot svc_as atk touch "$SVC_DIR/run/squat"
mkdir "$SVC_DIR/atk" && chown "${SVC_TAG}atk" "$SVC_DIR/atk"
svc_as atk "$SVC_TOOL" "$SVC_DIR/atk/s.sock" squat >"$SVC_DIR/squat.out" &
squat=$!
SVC_BG+=($squat)
for _ in $(seq 300); do
	[ -S "$SVC_DIR/atk/s.sock" ] && break
	sleep 0.1
done
svc_check "a client does not talk to a socket another user serves (EPERM)" \
	svc_as vic "$SVC_TOOL" "$SVC_DIR/atk/s.sock" attach $EPERM
svc_check "... and sent it nothing" wait $squat

# ---- the victim: job 90, sending to itself until told to stop ----
svc_atk vic victim 90 "$SVC_DIR/stop" >"$SVC_DIR/victim.out" &
victim=$!
SVC_BG+=($victim)
for _ in $(seq 300); do
	grep -q '^ready' "$SVC_DIR/victim.out" && break
	kill -0 $victim 2>/dev/null || break
	sleep 0.1
done
vpid=$(awk '/^ready/ { print $2 }' "$SVC_DIR/victim.out")
svc_check "victim attached (PIDonFEP ${vpid:-none})" [ -n "$vpid" ]

# ---- and fi_pingpong of user pp (JobID 1, the provider's fallback) ----
pingpong() {
	local pre=()
	[ -n "${UET_ATK_PRELOAD:-}" ] &&
		pre=(LD_PRELOAD="$UET_ATK_PRELOAD" ASAN_OPTIONS=detect_leaks=0)
	svc_as pp env "${pre[@]}" FI_PROVIDER_PATH="$PROV" \
		FI_UET_PROVIDER_SERVICE_PATH="$SVC_SOCK" timeout 120 \
		"$PINGPONG" -p uet -e rdm -d svc-hpc -S 4096 -I 500 "$@"
}
PINGPONG=${3:-}
PROV=${4:-}
if [ -n "$PINGPONG" ]; then
	port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
	svc_bg pingpong -B "$port" >"$SVC_DIR/pps.out" 2>&1
	pps=$!
	sleep 1
	svc_bg pingpong -P "$port" 127.0.0.1 >"$SVC_DIR/ppc.out" 2>&1
	ppc=$!
else
	echo "# no provider or fi_pingpong: no fi_pingpong victim"
fi

# ---- [tss]: the secure domain's key is the service's ----
svc_check "the service runs [tss] (its counters in /uet/stats)" \
	[ -n "$("$SVC_TOOL" "$SVC_PREFIX" tel /uet/stats tss_rx_drop_clear)" ]
svc_check "a user cannot read the secure domain's key file" \
	cannot svc_as atk cat "$SVC_DIR/sdi7.key"

# ---- 3: JobIDs and PIDonFEPs (50, 60, 61, 90: secure domain 7) ----
p0=$(svc_tel policy)
svc_check "another user's job (JOB_ADD, MR_REG: EACCES)" \
	svc_atk atk job 90 $EACCES
svc_check "a job.N line for another uid: EACCES" svc_atk atk job 61 $EACCES
svc_check "a job.N line for a group it is not in: EACCES" \
	svc_atk atk job 50 $EACCES
svc_check "policy counts the 6 refusals" tel_is policy -eq $((p0 + 6))
svc_check "a member of that group: allowed" svc_atk mate job 50 0
svc_check "the uid of a job.N line: allowed" svc_atk vic job 60 0
svc_check "root may use any job" "$SVC_TOOL" "$SVC_SOCK" job 90 0
d0=$(svc_tel denied)
svc_check "another client's PIDonFEP: EADDRINUSE, PID_PUT EPERM" \
	svc_atk atk pid-steal "$vpid"
svc_check "denied counts the PID_PUT" tel_is denied -eq $((d0 + 1))
b0=$("$SVC_TOOL" "$SVC_PREFIX" tel /uet/ses,0 ctx0_job_bad)
svc_check "a SEND in another user's job, to its PIDonFEP: EPERM" \
	svc_atk atk send-into 90 "$vpid"
svc_check "job_bad of /uet/ses counts it" \
	[ "$("$SVC_TOOL" "$SVC_PREFIX" tel /uet/ses,0 ctx0_job_bad)" -eq $((b0 + 1)) ]
svc_check "a job its owner let go of is free again" svc_atk atk job 20 0
svc_check "... for another user" svc_atk mate job 20 0

# ---- 5: quotas ----
q0=$(svc_tel quota)
r0=$(svc_tel refused)
svc_check "user_clients: 6 connections, the 7th EDQUOT" svc_atk atk conns 6
svc_check "refused counts it" tel_is refused -eq $((r0 + 1))
svc_check "user_window: the fifth region EDQUOT" svc_atk atk window 6
svc_check "user_pids: 3, then EDQUOT" svc_atk atk pids 3
svc_check "user_jobs: 4, then EDQUOT" svc_atk atk jobs 4
svc_check "user_mrs: 4, then EDQUOT" svc_atk atk mrs 4
svc_check "user_peers: 4, then EDQUOT" svc_atk atk peers 4
svc_check "quota counts the 6 refusals" tel_is quota -eq $((q0 + 6))
o0=$("$SVC_TOOL" "$SVC_PREFIX" tel /uet/ses,0 ctx0_ops_quota)
svc_check "pid_ops: 64 receives held, the next 4 ENOSPC" svc_atk atk ops 64
svc_check "ops_quota of /uet/ses counts them" \
	[ "$("$SVC_TOOL" "$SVC_PREFIX" tel /uet/ses,0 ctx0_ops_quota)" -eq $((o0 + 4)) ]
t0=$(svc_tel timeouts)
svc_bg svc_atk atk hello-late >"$SVC_DIR/late.out"
late=$!
svc_check "idle_timeout: a connection holding nothing is closed" \
	svc_atk atk idle
svc_check "hello_timeout: no HELLO, closed (ETIMEDOUT)" wait $late
svc_check "timeouts counts both" tel_is timeouts -eq $((t0 + 2))

# ---- the victims kept working ----
touch "$SVC_DIR/stop"
svc_check "victim: every message arrived intact" wait $victim
sed 's/^/# /' "$SVC_DIR/victim.out"
if [ -n "$PINGPONG" ]; then
	svc_check "fi_pingpong of another user: server done" wait $pps
	svc_check "fi_pingpong of another user: client done" wait $ppc
	tail -3 "$SVC_DIR/ppc.out" | sed 's/^/# /'
fi
for k in clients pids jobs mrs peers; do
	for _ in $(seq 100); do
		[ "$(svc_tel $k)" = 0 ] && break
		sleep 0.1
	done
	svc_check "$k back to 0" tel_is $k -eq 0
done
svc_stop
svc_check "SIGTERM: exit 0" [ "$SVC_STATUS" = 0 ]
svc_check "socket removed" [ ! -e "$SVC_SOCK" ]
if [ "$SVC_FAILS" != 0 ]; then
	for f in pps ppc; do
		[ -f "$SVC_DIR/$f.out" ] || continue
		echo "# $f:"
		tail -20 "$SVC_DIR/$f.out" | sed 's/^/#   /'
	done
	echo "# service log:"
	sed 's/^/#   /' "$SVC_DIR/engine.log" | tail -40
fi
svc_done
