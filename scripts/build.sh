#!/usr/bin/env bash
# Configure (once) and build one flavour of the project.
#   scripts/build.sh DIR [meson setup options...]
# Re-running with the same DIR rebuilds incrementally.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
dir=$1
shift

if [ -f "$dir/build.ninja" ]; then
	meson configure "$dir" "$@" >/dev/null
else
	meson setup "$dir" "$top" "$@"
fi
ninja -C "$dir"
