# SPDX-License-Identifier: BSD-3-Clause
# Helpers of the service's attack suite (sourced by test_svc_attack.sh and
# any test that plays an unprivileged user against a uet-engine): a
# private directory, users and groups made for the test and removed on
# exit, a service started as root, commands run as a user, counters.
# Needs root (useradd, setpriv); without it a test exits 77 (skipped).
#
#   svc_lib_init ENGINE TOOL    check root, make $SVC_DIR, trap the cleanup
#   svc_group NAME              make a group (name unique to this run)
#   svc_user NAME [GROUP...]    make a user, in its own group + GROUPs;
#                               echoes its uid
#   svc_start [INI LINES]       start uet-engine, socket $SVC_SOCK, the
#                               lines appended to [service]
#   svc_stop                    SIGTERM, wait; its exit status in
#                               $SVC_STATUS
#   svc_bg CMD...               CMD in the background (killed at exit)
#   svc_as USER CMD...          run CMD as USER (its groups)
#   svc_atk USER ARGS...        svc_attack $SVC_SOCK ARGS as USER
#   svc_tel KEY                 a /uet/service counter of the service
#   svc_check WHAT COND...      one result: "ok"/"not ok" line, counted
#   svc_done                    exit status: 1 if a check failed

SVC_FAILS=0
SVC_USERS=()
SVC_GROUPS=()
SVC_BG=()
SVC_PID=
SVC_TAG=u$$

svc_cleanup() {
	if [ -n "$SVC_PID" ] && kill -0 "$SVC_PID" 2>/dev/null; then
		kill -TERM "$SVC_PID" 2>/dev/null
		wait "$SVC_PID" 2>/dev/null
	fi
	for p in "${SVC_BG[@]}"; do
		kill -KILL "$p" 2>/dev/null
		wait "$p" 2>/dev/null
	done
	for u in "${SVC_USERS[@]}"; do
		userdel "$u" 2>/dev/null
		groupdel "$u" 2>/dev/null
	done
	for g in "${SVC_GROUPS[@]}"; do
		groupdel "$g" 2>/dev/null
	done
	[ -n "${SVC_PREFIX:-}" ] && rm -rf "/var/run/dpdk/$SVC_PREFIX"
	[ -n "${SVC_DIR:-}" ] && rm -rf "$SVC_DIR"
}

svc_lib_init() {
	if [ "$(id -u)" != 0 ]; then
		echo "# not root: no users to make, skipped"
		exit 77
	fi
	for t in useradd userdel groupadd groupdel setpriv; do
		if ! command -v "$t" >/dev/null; then
			echo "# $t missing: skipped"
			exit 77
		fi
	done
	SVC_ENGINE=$1
	SVC_DIR=$(mktemp -d /tmp/uet-atk.XXXXXX) || exit 1
	trap svc_cleanup EXIT
	trap 'exit 1' INT TERM
	# other users reach the tool and the socket through it
	chmod 0755 "$SVC_DIR"
	cp "$2" "$SVC_DIR/svc_attack" || exit 1
	SVC_TOOL=$SVC_DIR/svc_attack
	SVC_SOCK=$SVC_DIR/run/uet-engine.sock
	SVC_PREFIX=svcatk$$
}

svc_group() {
	groupadd "${SVC_TAG}$1" || exit 1
	SVC_GROUPS+=("${SVC_TAG}$1")
}

svc_user() {
	local name=${SVC_TAG}$1 groups=
	shift
	for g in "$@"; do
		groups=${groups:+$groups,}${SVC_TAG}$g
	done
	useradd -M -U -d / -s /usr/sbin/nologin ${groups:+-G "$groups"} \
		"$name" || exit 1
	SVC_USERS+=("$name")
	id -u "$name"
}

# CMD in the background, killed (by its PID) at exit if still running
svc_bg() {
	"$@" &
	SVC_BG+=($!)
}

svc_start() {
	local conf=$SVC_DIR/svc.conf
	cat >"$conf" <<EOF
[eal]
args = -l 0-1 --no-huge -m 512 --no-pci --file-prefix=$SVC_PREFIX --log-level=5
[port0]
devargs = net_ring0
ipv4 = 10.0.0.1
mac = 02:00:00:00:00:01
[engine]
lcores = 1
[neighbor]
10.0.0.1 = 02:00:00:00:00:01
[service]
socket = $SVC_SOCK
$(printf '%s\n' "$@")
EOF
	"$SVC_ENGINE" -c "$conf" >"$SVC_DIR/engine.log" 2>&1 &
	SVC_PID=$!
	# the socket answers once the engine runs: at most 60 s
	for _ in $(seq 600); do
		[ -S "$SVC_SOCK" ] && svc_tel attaches >/dev/null 2>&1 && return 0
		kill -0 "$SVC_PID" 2>/dev/null || break
		sleep 0.1
	done
	echo "# uet-engine did not start:"
	sed 's/^/#   /' "$SVC_DIR/engine.log"
	exit 1
}

svc_stop() {
	SVC_STATUS=0
	kill -TERM "$SVC_PID"
	wait "$SVC_PID" || SVC_STATUS=$?
	SVC_PID=
}

svc_as() {
	local u=${SVC_TAG}$1
	shift
	setpriv --reuid="$u" --regid="$(id -g "$u")" --init-groups \
		--reset-env -- "$@"
}

# An attacker's move, then the service settled: a client that ends
# without BYE is released in the background, and what it held counts
# against its uid until that release ends (docs/SERVICE.md "Client death
# and cleanup"), so the next move of the same uid would see its quotas
# still taken.
svc_atk() {
	local u=$1 rc
	shift
	svc_as "$u" "$SVC_TOOL" "$SVC_SOCK" "$@"
	rc=$?
	svc_settled || rc=1
	return $rc
}

svc_tel() {
	"$SVC_TOOL" "$SVC_PREFIX" tel "$1"
}

# No departed client still being released (5 s at most).
svc_settled() {
	local i
	for i in $(seq 100); do
		[ "$(svc_tel releasing 2>/dev/null)" = 0 ] && return 0
		sleep 0.05
	done
	echo "# releases still under way after 5 s"
	return 1
}

svc_check() {
	local what=$1
	shift
	if "$@"; then
		echo "ok - $what"
	else
		echo "not ok - $what"
		SVC_FAILS=$((SVC_FAILS + 1))
	fi
}

svc_done() {
	[ "$SVC_FAILS" = 0 ]
}
