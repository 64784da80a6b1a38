#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""uet-perf --fabric at 128 emulated hosts (a K = 8 fat tree), beyond the
32 ethdevs DPDK allows: each host is a ring pair (pmd/fabric/fabric_eth.c).

  incast   64:1 (--pattern incast:64) of 64 KiB flows with NSCC, twice:
           every flow complete with its exact bytes, exactly once, the
           last flow no earlier than the ideal; the second run's JSON is
           the first's but for the wall-clock fields (virtual time is
           deterministic); the JSON names the CC and the load balancer,
           and [cc] base_rtt, not configured, is the fabric's round trip;
           the memory per emulated host is reported
  errors   --pattern incast:0 and incast:x refused (exit 2)

Checks counted results, never wall-clock times. Files go to a private
temporary directory, removed at the end."""

import json
import os
import shutil
import subprocess
import sys
import tempfile

FAILS = []
WALL = ("wall_s", "cpu_s", "frames_per_wall_s")
K8 = "topology=fat_tree,k=8,hosts=128"
FLOW = 65536


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what)
    if not cond:
        FAILS.append(what)


def run(perf, args, timeout=120):
    return subprocess.run([perf] + args, capture_output=True, text=True,
                          timeout=timeout)


def strip_wall(d):
    d = dict(d)
    d["emulator"] = {k: v for k, v in d["emulator"].items() if k not in WALL}
    d.pop("memory", None)
    return d


def incast(perf, tmp):
    js = [os.path.join(tmp, "a.json"), os.path.join(tmp, "b.json")]
    base = ["--fabric", K8, "--pattern", "incast:64", "--cc", "nscc",
            "--flow-size", "64K", "--seed", "3"]
    for j in js:
        p = run(perf, base + ["--json", j])
        check(p.returncode == 0, f"incast: exit 0 ({p.returncode}) "
              f"{p.stderr.strip()[:300]}")
    try:
        a, b = (json.load(open(j)) for j in js)
    except (OSError, ValueError) as e:
        check(False, f"incast: JSON files load ({e})")
        return
    fl = a["flow"]
    check(a["fabric"]["hosts"] == 128, "incast: 128 hosts")
    check(a["traffic"]["flows"] == 64 and len(fl) == 64,
          "incast: 64 flows")
    check(sorted(f["src"] for f in fl) == list(range(1, 65)) and
          all(f["dst"] == 0 for f in fl), "incast: hosts 1..64 to host 0")
    check(all(f["complete"] and f["bytes"] == FLOW for f in fl),
          f"incast: every flow complete with exactly {FLOW} bytes")
    check(a["delivery"]["messages"] == 64 and
          a["delivery"]["exactly_once"] and a["verified"],
          "incast: 64 messages, exactly once, verified")
    c = a["completion_us"]
    check(c["last"] >= c["ideal_last"] > 0,
          f"incast: last flow {c['last']} us not before the ideal "
          f"{c['ideal_last']} us")
    check(a["bottleneck"]["port"] == "leaf0>host0",
          f"incast: bottleneck leaf0>host0 ({a['bottleneck']['port']})")
    m = a["memory"]
    check(0 < m["rss_before_bytes"] < m["rss_built_bytes"] <=
          m["rss_peak_bytes"] and m["per_host_bytes"] ==
          (m["rss_peak_bytes"] - m["rss_before_bytes"]) // 128 > 0,
          f"incast: memory per emulated host reported "
          f"({m['per_host_bytes'] / 2**20:.2f} MiB)")
    t = a["traffic"]
    check(t["cc"] == "nscc" and t["load_balancing"] == "single",
          f"incast: JSON names cc and load balancing ({t['cc']}, "
          f"{t['load_balancing']})")
    check(t["cc_base_rtt_ns"] == a["fabric"]["base_rtt_ns"],
          f"incast: [cc] base_rtt is the fabric's "
          f"({t['cc_base_rtt_ns']} ns)")
    check(strip_wall(a) == strip_wall(b),
          "incast: a second run gives the same JSON but for wall clock")


def errors(perf):
    for bad in ("incast:0", "incast:x", "incast:"):
        p = run(perf, ["--fabric", "--pattern", bad])
        check(p.returncode == 2 and "--pattern" in p.stderr,
              f"errors: --pattern {bad} refused, exit 2 ({p.returncode})")


def main():
    perf = sys.argv[1]
    tmp = tempfile.mkdtemp(prefix="uetp128-")
    try:
        incast(perf, tmp)
        errors(perf)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    if FAILS:
        print(f"{len(FAILS)} check(s) failed")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
