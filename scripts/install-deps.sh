#!/usr/bin/env bash
# Install, from Debian's archive, every package the project needs to build,
# test and run. Idempotent: does nothing when all are present. Run as root.
set -euo pipefail

packages=(
	gcc
	clang
	libclang-rt-14-dev
	meson
	ninja-build
	pkg-config
	python3
	iproute2
	procps
	libdpdk-dev
	dpdk
	dpdk-dev
	libfabric-dev
	libfabric-bin
	libnuma-dev
	libcmocka-dev
	libpcap-dev
	libjansson-dev
	libssl-dev
	librte-crypto-ipsec-mb23
	librte-crypto-openssl23
	gnuplot-nox
	iperf3
	iputils-ping
	openmpi-bin
	libopenmpi-dev
)

missing=()
for p in "${packages[@]}"; do
	status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
	[ "$status" = "install ok installed" ] || missing+=("$p")
done

if [ ${#missing[@]} -eq 0 ]; then
	exit 0
fi

if [ "$(id -u)" -ne 0 ]; then
	echo "install-deps: missing packages: ${missing[*]}; run as root" >&2
	exit 1
fi

echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -q
apt-get install -y -q --no-install-recommends "${missing[@]}"
