#!/usr/bin/env bash
# Build libfabric's fabtests (fi_rdm, fi_rdm_pingpong, runfabtests.sh ...)
# for the installed libfabric, from Debian's source package of that same
# libfabric, into PREFIX (default build/fabtests: binaries in PREFIX/bin).
#   scripts/fabtests.sh [PREFIX]
# Debian ships libfabric-bin (fi_info, fi_pingpong) but not fabtests. Only
# fabtests/ of the source package is built, against the installed
# libfabric-dev; nothing is fetched from outside Debian's archive. A
# deb-src entry for the archive is added (in a file of its own) when apt
# has none. Idempotent: does nothing when PREFIX already holds fabtests of
# the installed libfabric version. Needs root to install what is missing.
# FABTESTS_SRC=DIR builds DIR instead (the same libfabric version's source
# unpacked elsewhere, or its fabtests/ directory), for a host that cannot
# reach the archive's source packages.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
prefix=${1:-$top/build/fabtests}
mkdir -p "$prefix"
prefix=$(cd "$prefix" && pwd)
stamp=$prefix/.libfabric-version

version=$(dpkg-query -W -f='${Version}' libfabric-dev 2>/dev/null || true)
if [ -z "$version" ]; then
	echo "fabtests: libfabric-dev is not installed (bash scripts/install-deps.sh)" >&2
	exit 1
fi
if [ -x "$prefix/bin/fi_rdm" ] && [ -x "$prefix/bin/runfabtests.sh" ] &&
	[ "$(cat "$stamp" 2>/dev/null)" = "$version" ]; then
	echo "fabtests: $prefix/bin has fabtests of libfabric $version"
	exit 0
fi

need=(dpkg-dev autoconf automake libtool make gcc)
missing=()
for p in "${need[@]}"; do
	status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
	[ "$status" = "install ok installed" ] || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ] && [ "$(id -u)" -ne 0 ]; then
	echo "fabtests: missing packages: ${missing[*]}; run as root" >&2
	exit 1
fi

# apt-get source needs a deb-src entry; Debian's images have only deb.
# Returns 0 when it added one.
add_deb_src() {
	local list=/etc/apt/sources.list.d/uet-debian-src.sources codename
	if grep -rqsE '^(deb-src|Types:.*deb-src)' /etc/apt/sources.list /etc/apt/sources.list.d/; then
		return 1
	fi
	if [ "$(id -u)" -ne 0 ]; then
		echo "fabtests: apt has no deb-src entry; run as root to add one" >&2
		exit 1
	fi
	codename=$(. /etc/os-release && echo "$VERSION_CODENAME")
	echo "fabtests: adding $list (deb-src $codename)"
	{
		echo "# Added by uet's scripts/fabtests.sh: source packages (apt-get source)."
		echo "Types: deb-src"
		echo "URIs: http://deb.debian.org/debian"
		echo "Suites: $codename $codename-updates"
		echo "Components: main"
		echo "Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg"
	} >"$list"
}

export DEBIAN_FRONTEND=noninteractive
update=0
if [ -z "${FABTESTS_SRC:-}" ] && add_deb_src; then
	update=1
fi
if [ $update -eq 1 ] || [ ${#missing[@]} -gt 0 ]; then
	apt-get update -q
fi
if [ ${#missing[@]} -gt 0 ]; then
	echo "fabtests: installing ${missing[*]}"
	apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/uet-fabtests.XXXXXX")
trap 'rm -rf "$work"' EXIT
if [ -n "${FABTESTS_SRC:-}" ]; then
	src=$FABTESTS_SRC
	[ -f "$src/fabtests/configure.ac" ] && src=$src/fabtests
	if [ ! -f "$src/configure.ac" ] || [ ! -d "$src/functional" ]; then
		echo "fabtests: FABTESTS_SRC=$FABTESTS_SRC holds no fabtests source" >&2
		exit 1
	fi
	# autogen and configure write into the tree: build a copy
	cp -a "$src" "$work/fabtests"
	src=$work/fabtests
	from=$FABTESTS_SRC
else
	cd "$work"
	# As root, apt cannot hand the download to its sandbox user.
	if ! apt-get source -q -o APT::Sandbox::User=root "libfabric=$version" >source.log 2>&1; then
		cat source.log >&2
		echo "fabtests: apt-get source libfabric=$version failed; with that source" \
			"elsewhere, run: FABTESTS_SRC=DIR bash scripts/fabtests.sh" >&2
		exit 1
	fi
	src=$(find "$work" -maxdepth 2 -type d -name fabtests -path "$work/libfabric-*" | head -1)
	if [ -z "$src" ]; then
		echo "fabtests: Debian's libfabric $version source has no fabtests/" >&2
		exit 1
	fi
	from="Debian's libfabric $version source"
fi
cd "$src"
echo "fabtests: building fabtests/ of $from against the installed libfabric into $prefix"
./autogen.sh >autogen.log 2>&1 || { tail -30 autogen.log >&2; exit 1; }
./configure -q --prefix="$prefix" --with-libfabric=/usr >configure.log 2>&1 ||
	{ tail -30 configure.log >&2; exit 1; }
make -s -j"$(nproc)" >make.log 2>&1 || { tail -30 make.log >&2; exit 1; }
make -s install >install.log 2>&1 || { tail -30 install.log >&2; exit 1; }
echo "$version" >"$stamp"
echo "fabtests: $(ls "$prefix/bin" | wc -l) programs in $prefix/bin (fi_rdm, fi_rdm_pingpong, runfabtests.sh ...)"
