# SPDX-License-Identifier: BSD-3-Clause
# Sourced by test/ofi/test_ofi_mpi.sh and scripts/mpi-bench.sh.
#
# mpi_job_conf FILE DIR TAG [MTU]: one engine configuration for both ranks of a
# two-rank job on this host (per-rank values with the provider's %{a,b}
# and %r tokens, docs/PROVIDER.md): rank 0 is the memif server on lcore 0
# with FA 10.0.5.1, rank 1 the client on lcore 1 with 10.0.5.2, the memif
# socket in DIR; each process has its own EAL runtime (file prefix TAG
# plus the rank: /var/run/dpdk/TAGr0 and TAGr1, the caller removes them).
# MTU, the fourth argument, is the memif port's (default 1500, what the
# tests run; the benchmark passes auto, the port's default: 9000).
mpi_job_conf() {
	cat > "$1" <<EOF
[eal]
args = -l %{0,1} --no-huge -m 256 --no-pci --file-prefix=${3}r%r --log-level=lib.eal:error
[port0]
devargs = net_memif0,role=%{server,client},id=0,socket=$2/memif.sock
mtu = ${4:-1500}
ipv4 = 10.0.5.%{1,2}
mac = 02:00:00:00:05:%{01,02}
[engine]
lcores = %{0,1}
progress = inline
mbuf_pool_size = 4095
mbuf_cache = 32
[neighbor]
10.0.5.%{2,1} = 02:00:00:00:05:%{02,01}
EOF
}
