#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""uet-perf batch mode with tiny counts: the --json object parses, traffic
flowed and was verified in every mode, and bad flags exit 2 with a usage.
Numbers (rates, latencies) are printed, never asserted."""

import json
import subprocess
import sys


def run(perf, *args):
    return subprocess.run([perf, *args], capture_output=True, text=True,
                          timeout=240)


def main():
    perf = sys.argv[1]
    fails = 0

    def check(cond, what):
        nonlocal fails
        if not cond:
            print("CHECK failed:", what)
            fails += 1

    p = run(perf, "--count", "2000", "--json", "--seed", "3")
    check(p.returncode == 0, "exit 0, stderr: " + p.stderr[-500:])
    doc = json.loads(p.stdout)
    check(doc["verified"] is True, "verified")
    res = doc["results"]
    check(set(res) == {"msgrate", "latency", "bw"}, "all modes ran")
    m = res["msgrate"]
    check(m["receiver"]["rx_msgs"] == 2000, "msgrate delivered 2000")
    check(m["receiver"]["rx_lost"] == 0 and m["receiver"]["rx_dup"] == 0,
          "msgrate exactly once")
    check(m["loss_ppm"] == 10000 and m["faults_dropped"] > 0,
          "msgrate default loss injected")
    check(m["retransmissions"] >= m["faults_dropped"] > 0,
          "msgrate retransmitted what was dropped")
    lat = res["latency"]
    check(lat["latency_ns"]["n"] == 2000, "latency samples")
    check(lat["latency_ns"]["min"] <= lat["latency_ns"]["p50"]
          <= lat["latency_ns"]["max"], "latency order")
    bw = res["bw"]
    check(bw["pkts_per_msg"] > 1, "bw multi-packet messages")
    check(bw["receiver"]["rx_bytes"] == 2000 * bw["size"], "bw bytes")
    for name, r in res.items():
        print(f"{name}: {r['msgs_per_s']:.0f} msgs/s, "
              f"{r['gbytes_per_s']:.3f} GB/s, retx {r['retransmissions']}")

    for pds in ("rod", "rudi", "uud"):
        p = run(perf, "--mode", "msgrate", "--pds", pds, "--count", "500",
                "--window", "16", "--json")
        check(p.returncode == 0, f"{pds}: exit 0")
        check(json.loads(p.stdout)["verified"] is True, f"{pds}: verified")

    p = run(perf, "--bogus")
    check(p.returncode == 2, "bad flag exits 2")
    check("usage:" in p.stderr and p.stderr.startswith("uet-perf:"),
          "bad flag: one-line error + usage")
    p = run(perf, "--size", "7")
    check(p.returncode == 2, "size below 16 exits 2")
    p = run(perf, "--help")
    check(p.returncode == 0 and "--mode" in p.stdout, "--help")

    print("PASS" if fails == 0 else f"FAIL: {fails}")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
