#!/usr/bin/env bash
# The main job: install what is missing, build an optimised tree, and run the
# project's headline demo on an embedded default (no NIC needed).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"

bash scripts/install-deps.sh
bash scripts/build.sh build/release -Dbuildtype=release -Dtests=enabled -Dapps=enabled

# Until the engine's loopback benchmark lands, the main job dissects a capture
# holding one hand-built frame of every UET header type (plus corrupt ones).
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
build/release/test/apps/gen_pcap "$work/uet.pcap"
build/release/apps/uet-dump/uet-dump "$work/uet.pcap"
