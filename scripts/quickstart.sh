#!/usr/bin/env bash
# The main job: install what is missing, build an optimised tree, and run the
# project's headline demo on an embedded default (no NIC needed).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"

bash scripts/install-deps.sh
# the docs test (scripts/docs-test.py) builds the same tree the same way
bash scripts/build.sh build/release -Dbuildtype=release -Dtests=enabled -Dapps=enabled

# The headline demo: uet-perf with its embedded default (no arguments, no
# NIC): two engines in this process over ring ports, inline progress on one
# thread; message rate under 1% injected loss (verified exactly once),
# latency ping-pong, bandwidth. See docs/UET-PERF.md.
build/release/apps/uet-perf/uet-perf
