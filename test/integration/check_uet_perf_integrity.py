#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""uet-perf under the engine's fault injection: what reaches the
application is exactly what was sent, once.

usage: check_uet_perf_integrity.py UET_PERF GROUP
GROUP:
  corrupt  one byte of 0.2 % of the frames (data and ACKs, both engines)
           corrupted: no corrupted byte is delivered (raw RUD / ROD / bw,
           SES send / write / read), the UDP checksum drops them before
           the PDS (rx_csum_bad), retransmission repairs them.
  trim     5 % of the data frames trimmed as a switch trims (UDP length
           and checksum of the original): received as trimmed (not
           malformed), NACKed (TRIMMED) and retransmitted, every message
           delivered exactly once.
Counts, never timings, are checked."""

import json
import os
import subprocess
import sys
import tempfile

fails = 0


def check(cond, what):
    global fails
    if not cond:
        print("CHECK failed:", what)
        fails += 1


def config(tmp, name, faults):
    """An engine config: the batch EAL, a slow-build-proof RTO (the checks
    are counts, not timings) and @faults ([fault] keys) on both engines."""
    path = os.path.join(tmp, name + ".conf")
    with open(path, "w") as f:
        f.write("[eal]\nargs = -l 0 --no-huge -m 1024 --no-pci "
                "--log-level=4\n[timers]\nrto_init = 10ms\nrto_max = 1s\n"
                "[fault]\nenabled = true\nseed = 7\n")
        for k, v in faults.items():
            f.write(f"{k} = {v}\n")
    return path


def run(perf, conf, mode, *args):
    """One --json run; (result object, top-level document) or None."""
    cmd = [perf, "--config", conf, "--loss", "0", "--mode", mode, "--json",
           *args]
    what = " ".join(cmd[1:])
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=240)
    except subprocess.TimeoutExpired:
        check(False, f"{what}: bounded (240 s)")
        return None
    check(p.returncode == 0,
          f"{what}: exit 0 (got {p.returncode}), stderr: {p.stderr[-400:]}")
    try:
        doc = json.loads(p.stdout)
    except ValueError:
        check(False, f"{what}: JSON: {p.stdout[-300:]}")
        return None
    r = doc["results"][mode]
    rx = r["receiver"]
    check(doc["verified"] is True and r["verified"] is True,
          f"{what}: verified")
    check(r["complete"] is True, f"{what}: complete")
    check(rx.get("rx_bad", 0) == 0, f"{what}: no bad payload "
          f"(rx_bad {rx.get('rx_bad')})")
    check(rx.get("rx_dup", 0) == 0, f"{what}: no duplicate delivered")
    check(rx.get("rx_lost", 0) == 0, f"{what}: nothing lost")
    check(r["payload_checked"] is True, f"{what}: payload checked")
    if r["ulp"] == "ses":
        check(r["ses"]["completion_errors"] == 0,
              f"{what}: no completion error")
    if "wire" not in r:
        check(False, f"{what}: wire counters reported")
        r["wire"] = {"faults": {}, "rx_csum_bad": 0, "rx_trimmed": 0,
                     "rx_malformed": 0}
    w = r["wire"]
    print(f"{what}: {r['count']} msgs, faults {w['faults']}, rx_csum_bad "
          f"{w['rx_csum_bad']}, rx_trimmed {w['rx_trimmed']}, "
          f"rx_malformed {w['rx_malformed']}, retx {r['retransmissions']}")
    return r


# (mode, arguments): raw RUD and ROD, raw multi-packet, SES send, WRITE,
# READ (small and multi-packet).
RUNS = [
    ("msgrate", ["--pds", "rud", "--count", "100000"]),
    ("msgrate", ["--pds", "rod", "--window", "32", "--count", "20000"]),
    ("bw", ["--size", "16K", "--count", "1000", "--window", "128"]),
    ("msgrate", ["--ulp", "ses", "--verify", "--count", "10000"]),
    ("bw", ["--ulp", "ses", "--op", "write", "--verify", "--size", "16K",
            "--count", "1000"]),
    ("bw", ["--ulp", "ses", "--op", "read", "--verify", "--size", "16K",
            "--count", "1000"]),
]


def group_corrupt(perf, tmp):
    conf = config(tmp, "corrupt", {"tx_data_corrupt_ppm": 2000,
                                   "tx_control_corrupt_ppm": 2000})
    total_bad = 0
    for mode, args in RUNS:
        r = run(perf, conf, mode, *args)
        if r is None:
            continue
        w = r["wire"]
        check(w["faults"].get("corrupt", 0) > 0,
              f"{mode} {args}: corrupted")
        total_bad += w["rx_csum_bad"]
    # most corruptions land after the IP header: the UDP checksum
    check(total_bad > 0, "UDP checksum failures counted")


def group_trim(perf, tmp):
    conf = config(tmp, "trim", {"tx_data_trim_ppm": 50000})
    for mode, args in RUNS:
        r = run(perf, conf, mode, *args)
        if r is None:
            continue
        w = r["wire"]
        what = f"{mode} {' '.join(args)}"
        trims = w["faults"].get("trim", 0)
        check(trims > 0, f"{what}: trimmed")
        check(w["rx_trimmed"] == trims,
              f"{what}: every trimmed frame received as trimmed "
              f"({w['rx_trimmed']} of {trims})")
        check(w["rx_malformed"] == 0, f"{what}: none malformed")
        if r["ulp"] == "raw" and r["pds"] == "rud":
            check(r["recovery"]["retx_nack"] >= w["rx_trimmed"],
                  f"{what}: every trim NACKed and resent "
                  f"({r['recovery']['retx_nack']})")


def main():
    if len(sys.argv) != 3:
        print(__doc__)
        return 2
    perf, group = sys.argv[1], sys.argv[2]
    groups = {"corrupt": group_corrupt, "trim": group_trim}
    if group not in groups:
        print(__doc__)
        return 2
    with tempfile.TemporaryDirectory(prefix=f"uetint{os.getpid()}") as tmp:
        groups[group](perf, tmp)
    print(f"{group}: {'ok' if fails == 0 else f'{fails} checks failed'}")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
