#!/usr/bin/env bash
# libfabric's own fabtests driver, runfabtests.sh (fabtests 1.17), against
# the uet provider as server/client pairs of processes joined by
# net_memif, and against tcp and "udp;ofi_rxd" over loopback in the same
# run, then one table of the three side by side.
#
#   FT_BIN=DIR scripts/runfabtests-uet.sh [-t SETS] [-o OUT] [-b BUILD]
#       [-P PROVIDERS] [-T SECONDS] [-U SECONDS] [-e PATTERNS] [-C CONFIG]
#       [-L ADDR] [-l LEVEL]
#
# FT_BIN: fabtests' bin directory (default build/fabtests/bin, what
# scripts/fabtests.sh builds); its ../share/fabtests holds the test
# configurations and exclude lists. SETS: runfabtests.sh's -t (default
# quick; "all" here means unit,regression,functional,standard,complex:
# runfabtests' "all" adds multinode, 3 processes that a memif link, which
# joins two, cannot mesh). BUILD: the build whose src/ofi holds
# libuet-fi.so (default build/release; uet only). OUT: a directory for the logs and
# the table (default a temporary one, printed). PROVIDERS: which of
# uet, tcp, "udp;ofi_rxd" to run, space separated (default all three; the
# table takes the logs OUT already has for the others: runs of different
# providers may go in parallel, with the same OUT). -T: runfabtests'
# bound of each test (default 900, not runfabtests' 120: the standard
# set's fi_rdm_atomic -o all -I 1000, 242 operation and datatype pairs
# of 1000 round trips each, took ~10 min on 2 CPUs at load 40). -U: the bound of the complex set,
# fi_ubertest, which runs its whole configuration as one test (uet's has
# 101; default 1200): when one of its tests fails, fi_ubertest's server
# may poll for good for a client that went on, and only this bound ends
# the pair (runfabtests kills both and reports the failure). -e: more
# tests to exclude, runfabtests' -e (comma-separated regular expressions
# matched against each test's command line; may be repeated), e.g. to run
# again the tests of a set a stopped run did not reach. -C: uet's
# fi_ubertest configuration (default scripts/ubertest-uet.test), e.g. one
# of its sections alone, to run it again and again. -L: the address of
# a run of one provider (-P), so that a second run of it (e.g. -t complex
# beside the other sets) goes in parallel with the same OUT: tcp's and
# udp;ofi_rxd's loopback address, in 127.0.0.0/24 (default 127.0.0.1
# and 127.0.0.3), uet's server FA in 127.0.1.0/24, the client's the next
# one (default 127.0.1.1 and .2); its logs are named PROV-ADDR (e.g.
# OUT/uet-127.0.1.3.log) and the table takes them all. -l: libfabric's
# log level for every program of the run (FI_LOG_LEVEL: warn, trace,
# info or debug; runfabtests gives servers "error"), so that a failing
# pair's output (OUT/pairs.*.out, OUT/fi_ubertest.*.out) has the
# provider's warnings.
#
# runfabtests.sh gives the server and the client the same environment;
# each uet process needs its own engine configuration. Every fabtests
# program is run through a wrapper that sets FI_UET_PROVIDER_LOCAL_RANK
# (the %{a,b} tokens of the one configuration file, docs/PROVIDER.md):
# 1 for a client (its arguments name the client's address 127.0.1.2, or
# a -u configuration: fi_ubertest's client), else 0. Rank 0 is the memif
# server with FA 127.0.1.1, rank 1 the client with 127.0.1.2 (-L: other
# FAs).
#
# runfabtests.sh ends its runs with "ps | grep ^fi_ | xargs kill -9": in
# the wrapper directory a "ps" lists only the processes of this run's
# session, so that other fabtests on the host are left alone.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
sets=quick
out=""
build=$top/build/release
provs="uet tcp udp;ofi_rxd"
tmo=900
utmo=1200
excl_in=()
ubcfg=$top/scripts/ubertest-uet.test
lo=""
loglevel=""
while getopts "t:o:b:P:T:U:e:C:L:l:h" opt; do
	case $opt in
	t) sets=$OPTARG ;;
	o) out=$OPTARG ;;
	b) build=$OPTARG ;;
	P) provs=$OPTARG ;;
	T) tmo=$OPTARG ;;
	U) utmo=$OPTARG ;;
	e) excl_in+=(-e "$OPTARG") ;;
	C) ubcfg=$OPTARG ;;
	L) lo=$OPTARG ;;
	l) loglevel=$OPTARG ;;
	*) awk 'NR > 1 && !/^#/ { exit } NR > 1' "$0"; exit 2 ;;
	esac
done
case $sets in
all) sets=unit,regression,functional,standard,complex ;;
quick+all) sets=unit,regression,functional,short,standard,complex ;;
esac
case $loglevel in
""|warn|trace|info|debug) ;;
*) echo "-l: warn, trace, info or debug, not '$loglevel'" >&2; exit 2 ;;
esac
for n in "$tmo" "$utmo"; do
	[[ $n =~ ^[1-9][0-9]*$ ]] || { echo "-T/-U: seconds, not '$n'" >&2; exit 2; }
done
# uet's FAs, server and client: 127.0.1.$na and .$nb
na=1
if [ -n "$lo" ]; then
	read -ra pv <<< "$provs"
	[ ${#pv[@]} -eq 1 ] || { echo "-L: with one provider (-P)" >&2; exit 2; }
	n='([1-9]|[1-9][0-9]|1[0-9][0-9]|2[0-4][0-9]|25[0-3])'
	if [ "${pv[0]}" = uet ]; then
		[[ $lo =~ ^127\.0\.1\.$n$ ]] || {
			echo "-L: uet's server FA, 127.0.1.1 to .253, not '$lo'" >&2
			exit 2
		}
		na=${lo##*.}
	else
		[[ $lo =~ ^127\.0\.0\.$n$ ]] || {
			echo "-L: an address of 127.0.0.1 to .253, not '$lo'" >&2
			exit 2
		}
	fi
fi
nb=$((na + 1))
# a run on an address of its own (-L) names its logs after it
sfx=${lo:+-$lo}
# the complex set runs on its own, under -U
complex=0
other=""
for s in ${sets//,/ }; do
	if [ "$s" = complex ]; then complex=1; else other+=${other:+,}$s; fi
done
[ -f "$ubcfg" ] || { echo "-C: no file '$ubcfg'" >&2; exit 2; }
ubcfg=$(cd "$(dirname "$ubcfg")" && pwd)/${ubcfg##*/}
ft_bin=$(cd "${FT_BIN:-$top/build/fabtests/bin}" 2>/dev/null && pwd) || {
	echo "no fabtests at ${FT_BIN:-$top/build/fabtests/bin}:" \
		"bash scripts/fabtests.sh, or FT_BIN=DIR" >&2
	exit 1
}
ft_share=$(cd "$ft_bin/../share/fabtests" && pwd)
[ -x "$ft_bin/runfabtests.sh" ] || { echo "no $ft_bin/runfabtests.sh" >&2; exit 1; }
# the provider's build: for uet only
provdir=""
for prov in $provs; do
	[ "$prov" = uet ] || continue
	[ -f "$build/src/ofi/libuet-fi.so" ] || {
		echo "no $build/src/ofi/libuet-fi.so (-b BUILD)" >&2
		exit 1
	}
	provdir=$(cd "$build/src/ofi" && pwd)
done

tmp=$(mktemp -d /tmp/uet-rft.XXXXXX)
[ -n "$out" ] || out=$tmp/out
mkdir -p "$out"
out=$(cd "$out" && pwd)
tag="uetrft$$"
cleanup() {
	# the socket file of a memif server runfabtests killed (the
	# engine removes it before the next server starts)
	rm -rf "$tmp/wrap" "$tmp/cwd" "$tmp/memif.sock"
	# EAL runtime directories of processes runfabtests killed (one that
	# exits removes its own)
	rm -rf /var/run/dpdk/"$tag"p* "${XDG_RUNTIME_DIR:-/nonexistent}"/dpdk/"$tag"p*
	[ "$out" = "$tmp/out" ] || rm -rf "$tmp"
}
trap cleanup EXIT

# one engine configuration for both sides (%{server,client} by local rank)
cat > "$tmp/uet.conf" <<EOF
[eal]
args = -l %{0,1} --no-huge -m 256 --no-pci --file-prefix=${tag}p%p --log-level=lib.eal:error
[port0]
devargs = net_memif0,role=%{server,client},id=0,socket=$tmp/memif.sock,socket-abstract=no
mtu = 1500
ipv4 = 127.0.1.%{$na,$nb}
ipv6 = none
mac = 02:00:00:00:07:%{01,02}
[engine]
lcores = %{0,1}
progress = inline
mbuf_pool_size = 4095
mbuf_cache = 32
# two busy-polling processes per pair on a host of two CPUs, beside
# other work, are descheduled for seconds at a time, and a program that
# does not call the provider does not progress (inline): fabtests
# allocate and clear up to 1 GiB per side (ft_alloc_msgs, seen taking
# more than 25 s at load 47) while the peer already sends. Give the
# PDS ~84 s of retries (2 ms doubling to 4 s, 30 times; default 1.93
# s), or a live peer is declared dead (ETIMEDOUT)
[timers]
rto_init = 2ms
rto_max = 4s
rto_max_retries = 30
[neighbor]
127.0.1.%{$nb,$na} = 02:00:00:00:07:%{02,01}
EOF

mkdir -p "$tmp/wrap" "$tmp/cwd"
ubport=$(python3 -c 'import socket; s = socket.socket(); s.bind(("0.0.0.0", 0)); print(s.getsockname()[1])')
ln -s "$ft_share/test_configs" "$tmp/cwd/test_configs"
for p in "$ft_bin"/fi_* "$ft_bin"/sighandler_test; do
	[ -x "$p" ] || continue
	# fi_ubertest's output is kept too (OUT/fi_ubertest.PROV.RANK.out,
	# its errors with it): runfabtests prints only its count of the
	# client's result lines.
	# Its server listens on 0.0.0.0 (runfabtests gives it no address)
	# at a fixed port, 2710: the runs of other providers in parallel
	# would meet there, so each run's fi_ubertest gets a port of its own
	# Every other program's output goes to OUT/pairs.PROV.SIDE.out (s:
	# server, c: client, which names the server's address last), each
	# run under a line naming it (runfabtests keeps none of it without
	# -v, which changes its report's format); exec: runfabtests' signals
	# reach the program itself
	run="echo \"# \$(date -u +%T) ${p##*/} \$*\" >> \"\$log\"; exec \"$p\" \"\$@\" >> \"\$log\" 2>&1"
	[ "${p##*/}" = fi_ubertest ] &&
		run="\"$p\" -q $ubport \"\$@\" 2>&1 | tee -a \"$out/fi_ubertest.\${UET_RFT_PROV##*;}$sfx.\$rank.out\"; exit \${PIPESTATUS[0]}"
	cat > "$tmp/wrap/${p##*/}" <<EOF
#!/bin/bash
rank=0 prev=
for a in "\$@"; do
	[ "\$a" = 127.0.1.$nb ] || [ "\$prev" = -u ] && rank=1
	prev=\$a
done
export FI_UET_PROVIDER_LOCAL_RANK=\$rank
${loglevel:+export FI_LOG_LEVEL=$loglevel}
side=s
[[ \${@: -1} =~ ^[0-9.]+\$ && \${@: -2:1} != -* ]] && side=c
log="$out/pairs.\${UET_RFT_PROV##*;}$sfx.\$side.out"
# uet: a server (or a program of its own) starts once the programs of
# the test before it are gone (bounded, 60 s): runfabtests kills a failed
# test's pair with -9 and goes on, and a memif server still exiting
# holds its socket (the next server's probe: "Address already in use")
if [ \$side = s ] && [ "\$UET_RFT_PROV" = uet ]; then
	for i in \$(seq 300); do
		/bin/ps -e -o comm=,pid=,sid= | awk -v s="\$UET_RFT_SID" \\
			-v me=\$\$ '\$3 == s && \$2 != me && \$1 ~ /^fi_/ { n++ } END { exit !n }' ||
			break
		sleep 0.2
	done
fi
$run
EOF
	chmod +x "$tmp/wrap/${p##*/}"
done
cat > "$tmp/wrap/ps" <<'EOF'
#!/bin/sh
# runfabtests' cleanup: only the fi_ processes of this run's session
exec /bin/ps -e -o comm=,pid=,sid= | awk -v s="$UET_RFT_SID" '$3 == s { print $1, $2 }'
EOF
chmod +x "$tmp/wrap/ps"

# runset PROVIDER LOG SETS SECONDS [runfabtests options...]: one
# runfabtests.sh in a session of its own, appended to LOG
runset() {
	local prov=$1 log=$2 sets=$3 bound=$4 name excl=()
	shift 4
	name=${prov##*;} # the utility provider's, as runfabtests picks it
	[ -f "$ft_share/test_configs/$name/$name.exclude" ] &&
		excl=(-f "$ft_share/test_configs/$name/$name.exclude")
	echo "# runfabtests.sh -t $sets -T $bound ${excl[*]} $* $prov" >> "$log"
	(
		# runfabtests reads ./test_configs and leaves its output
		# files in the current directory: a scratch one
		cd "$tmp/cwd"
		PATH=$tmp/wrap:$PATH setsid bash -c \
			'UET_RFT_SID=$$ exec "$0" "$@"' "$ft_bin/runfabtests.sh" \
			-p "$tmp/wrap" -t "$sets" -T "$bound" "${excl[@]}" "$@" "$prov"
	) >> "$log" 2>&1 || true
}

# sighandler_test (regression set) checks that a process SIGINT ends
# dies of SIGINT. A libfabric linked with PSM (Debian's is) loads
# libinfinipath, whose constructor installs a SIGINT handler that exits
# with status 1 before main() runs: the test fails with every provider,
# before any of them is opened. Excluded for all three on such a host.
sigexcl=()
# (grep reads all of ldd's output: with -q, ldd could die of SIGPIPE and
# pipefail would make the test false)
if ldd "$ft_bin/sighandler_test" 2>/dev/null | grep 'libinfinipath\.so' > /dev/null; then
	sigexcl=(-e sighandler_test)
	echo "sighandler_test excluded: its libfabric loads libinfinipath," \
		"whose SIGINT handler exits 1 (docs/PROVIDER.md \"fabtests\")"
fi

# run PROVIDER LOG [runfabtests options...]: the sets, then the complex
# one under its own bound
run() {
	local prov=$1 log=$2
	shift 2
	export UET_RFT_PROV=$prov # the wrapper's name for fi_ubertest's output
	: > "$log"
	[ -z "$other" ] || runset "$prov" "$log" "$other" "$tmo" \
		"${sigexcl[@]}" "${excl_in[@]}" "$@"
	[ $complex -eq 0 ] || runset "$prov" "$log" complex "$utmo" \
		"${excl_in[@]}" "$@"
	grep -E "^# Total" "$log" | sed "s/^/$prov: /"
}

# runfabtests' -E works over ssh only ("timeout export ..." locally): the
# processes inherit the environment instead
# (each provider on addresses of its own: their runs may go in parallel)
unset FI_PROVIDER FI_UET_PROVIDER_PROFILES FI_UET_PROVIDER_EAL_ARGS
for prov in $provs; do
	case $prov in
	uet)
		FI_PROVIDER_PATH=$provdir FI_UET_PROVIDER_CONFIG=$tmp/uet.conf \
			run uet "$out/uet$sfx.log" -s 127.0.1.$na -c 127.0.1.$nb \
			-f "$top/scripts/fabtests-uet.exclude" \
			-u "$ubcfg" ;;
	tcp) run tcp "$out/tcp$sfx.log" -s "${lo:-127.0.0.1}" -c "${lo:-127.0.0.1}" ;;
	"udp;ofi_rxd")
		run "udp;ofi_rxd" "$out/rxd$sfx.log" -s "${lo:-127.0.0.3}" \
			-c "${lo:-127.0.0.3}" ;;
	*) echo "unknown provider $prov" >&2; exit 2 ;;
	esac
done

# the table: one row per test (with its runfabtests.sh set), the result
# of each provider
python3 - "$out" "$ft_bin/runfabtests.sh" > "$out/table.md" <<'EOF'
import glob, re, sys
out, rft = sys.argv[1], open(sys.argv[2]).read()
sets = {}
for name, body in re.findall(r'^(\w+)_tests=\(\s*\\?\n(.*?)^\)', rft, re.M | re.S):
    for t in re.findall(r'"([^"]+)"', body):
        sets.setdefault(re.sub(r'(GOOD|SERVER)_ADDR', 'ADDR', t), name)
provs = [("uet", "uet"), ("tcp", "tcp"), ("udp;ofi_rxd", "rxd")]
rows, res = [], {}
for prov, f in provs:
    # PROV.log, and PROV-ADDR.log of runs on another address (-L)
    lines = []
    for path in sorted(glob.glob(f"{out}/{f}.log") + glob.glob(f"{out}/{f}-*.log")):
        lines += open(path, errors="replace").readlines()
    for line in lines:
        m = re.match(r'^(\S.*?) -p "?[^" ]+"?(.*?):\s+(Pass.*|Fail.*|Notrun|Excluded)\s*$', line)
        m2 = re.match(r'^(fi_ubertest):\s+(Pass.*|Fail.*|Notrun|Excluded)\s*$', line)
        if m:
            name, result = (m.group(1) + m.group(2)).strip(), m.group(3)
        elif m2:
            name, result = m2.group(1), m2.group(2)
        else:
            continue
        name = re.sub(r'127\.0\.[01]\.\d+', 'ADDR', name)
        if name not in res:
            rows.append(name)
            res[name] = {}
        res[name][prov] = result.lower()
print("| test | set | " + " | ".join(p for p, _ in provs) + " |")
print("|---|---|" + "---|" * len(provs))
tot = {p: {} for p, _ in provs}
for n in rows:
    st = sets.get(n, "complex" if n == "fi_ubertest" else "?")
    print(f"| {n} | {st} | " + " | ".join(res[n].get(p, "-") for p, _ in provs) + " |")
    for p, _ in provs:
        r = res[n].get(p, "-").split(" ")[0]
        tot[p][r] = tot[p].get(r, 0) + 1
print("| total | | " + " | ".join(
    ", ".join(f"{v} {k}" for k, v in sorted(tot[p].items())) for p, _ in provs) + " |")
EOF
echo "logs and table: $out (table.md)"
cat "$out/table.md"
