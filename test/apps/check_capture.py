#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""engine.capture end to end: uet-perf --capture writes the first sender's
wire (both directions) with rte_pcapng; uet-dump decodes every frame, and
the capture holds exactly what uet-perf reports: every message's PSN, the
retransmissions flagged RETX, the requests that fault injection did not
drop, and the receiver's ACKs; and libpcap reads the first frame's
timestamp as wall-clock time of the run (a tolerance of minutes: a check
of the clock reference, not a timing)."""

import collections
import json
import os
import subprocess
import sys
import tempfile
import time

COUNT = 2000
# seconds: the first frame is stamped within the run (plus clock slack)
CLOCK_SLACK = 600


def trimmed_capture(perf, dump, tmp, check):
    """Frames the sender's fault injection trimmed as a switch does (UDP
    length of the original) are shown as trimmed RUD requests with only
    a PDS header; --trim-dscp 5 alone makes them short frames instead."""
    conf = os.path.join(tmp, "trim.conf")
    with open(conf, "w") as f:
        f.write("[eal]\nargs = -l 0 --no-huge -m 1024 --no-pci "
                "--log-level=4\n[fault]\nenabled = true\n"
                "tx_data_trim_ppm = 100000\n")
    cap = os.path.join(tmp, "t.pcapng")
    p = subprocess.run([perf, "--config", conf, "--mode", "msgrate",
                        "--loss", "0", "--count", "500", "--capture", cap,
                        "--json"], capture_output=True, text=True,
                       timeout=120)
    check(p.returncode == 0, "trim run: uet-perf exit 0: " + p.stderr[-400:])
    if p.returncode != 0:
        return
    trims = json.loads(p.stdout)["results"]["msgrate"]["wire"]["faults"][
        "trim"]
    d = subprocess.run([dump, "--json", cap], capture_output=True,
                       text=True, timeout=60)
    shown = 0
    for line in d.stdout.splitlines():
        pkt = json.loads(line)
        if pkt.get("outer", {}).get("trimmed"):
            shown += 1
            check(pkt.get("pds", {}).get("type") == "RUD_REQ" and
                  "ses" not in pkt, "a trimmed frame: RUD_REQ, no SES")
    print(f"# trimmed: {trims} by fault injection, {shown} in the capture")
    check(trims > 0 and shown == trims, "every trimmed frame shown trimmed")
    check(" 0 malformed" in d.stderr, "trimmed frames are not malformed")
    d = subprocess.run([dump, "--trim-dscp", "5", cap], capture_output=True,
                       text=True, timeout=60)
    check(f" {trims} malformed" in d.stderr,
          "with other trim DSCPs they are short frames: " + d.stderr)
    d = subprocess.run([dump, "--trim-dscp", "64", cap], capture_output=True,
                       text=True, timeout=60)
    check(d.returncode == 2, "--trim-dscp 64 refused")


def tss_capture(perf, dump, tmp, check):
    """[tss] on: the capture holds protected frames only; uet-dump shows
    their TSS header, and with the domain's key (--tss-key) verifies
    every ICV and dissects the PDS and SES headers inside; with another
    key every ICV fails; a missing or group-readable key file is refused
    (exit 2)."""
    key, other = os.path.join(tmp, "k7"), os.path.join(tmp, "k7x")
    for path in (key, other):
        with open(path, "w") as f:
            f.write(os.urandom(32).hex() + "\n")
        os.chmod(path, 0o600)
    state = os.path.join(tmp, "state")
    os.makedirs(state, mode=0o700, exist_ok=True)
    conf = os.path.join(tmp, "tss.conf")
    with open(conf, "w") as f:
        f.write("[eal]\nargs = -l 0 --no-huge -m 1024 --no-pci "
                f"--log-level=4\n[tss]\nenabled = true\n"
                f"state_dir = {state}\n"
                f"domain.7 = 1-4095 {key}\n"
                # one request a message: no first window refused by the
                # target's quiet time and resent under new PSNs
                "[timers]\nsyn_quiet = false\n")
    cap = os.path.join(tmp, "tss.pcapng")
    p = subprocess.run([perf, "--config", conf, "--mode", "msgrate",
                        "--loss", "0", "--count", "300", "--capture", cap,
                        "--json"], capture_output=True, text=True,
                       timeout=120)
    check(p.returncode == 0, "tss run: uet-perf exit 0: " + p.stderr[-400:])
    if p.returncode != 0:
        return

    def dump_json(*args):
        d = subprocess.run([dump, "--json", *args, cap], capture_output=True,
                           text=True, timeout=60)
        check(d.returncode == 0, f"uet-dump {args}: exit 0: {d.stderr}")
        return [json.loads(line) for line in d.stdout.splitlines()]

    plain = dump_json()
    check(len(plain) > 300 and all("tss" in k and "pds" not in k
                                   for k in plain),
          "without the key: TSS headers only")
    opened = dump_json("--tss-key", f"7:{key}")
    reqs = [k for k in opened if k.get("pds", {}).get("type") == "RUD_REQ"]
    acks = [k for k in opened if k.get("pds", {}).get("type") == "ACK"]
    check(all(k["tss"].get("icv") == "ok" for k in opened),
          "with the key: every ICV verifies")
    check(len(reqs) == 300 and all(k.get("ses", {}).get("job") == 0x42
                                   for k in reqs),
          f"with the key: 300 requests of job 0x42 ({len(reqs)})")
    check(len(acks) > 0, "with the key: the ACKs")
    wrong = dump_json("--tss-key", f"7:{other}")
    check(all(k["tss"].get("icv") == "bad" and "pds" not in k
              for k in wrong), "another key: every ICV fails")
    os.chmod(other, 0o640)
    for arg in (f"7:{other}", f"7:{tmp}/none", f"0:{key}", key):
        d = subprocess.run([dump, "--tss-key", arg, cap],
                           capture_output=True, text=True, timeout=60)
        check(d.returncode == 2 and "--tss-key" in d.stderr,
              f"--tss-key {arg}: refused ({d.returncode}: {d.stderr})")
    print(f"# tss: {len(opened)} frames opened, {len(reqs)} requests, "
          f"{len(acks)} ACKs")


def main():
    perf, dump, gen = sys.argv[1], sys.argv[2], sys.argv[3]
    fails = 0

    def check(cond, what):
        nonlocal fails
        if not cond:
            print("CHECK failed:", what)
            fails += 1

    with tempfile.TemporaryDirectory(prefix="uetcap-") as tmp:
        cap = os.path.join(tmp, "a.pcapng")
        # the counts below are per message: without the target's quiet
        # time, whose refusal of the first window would send it again
        # under new PSNs (docs/WIRE-DECISIONS.md)
        conf = os.path.join(tmp, "a.conf")
        with open(conf, "w") as f:
            f.write("[eal]\nargs = -l 0 --no-huge -m 1024 --no-pci "
                    "--log-level=4\n[timers]\nsyn_quiet = false\n")
        t0 = time.time()
        p = subprocess.run([perf, "--config", conf, "--mode", "msgrate",
                            "--count", str(COUNT), "--seed", "5",
                            "--capture", cap, "--json"],
                           capture_output=True, text=True, timeout=120)
        check(p.returncode == 0, "uet-perf exit 0: " + p.stderr[-400:])
        if p.returncode != 0:
            return 1
        t1 = time.time()
        m = json.loads(p.stdout)["results"]["msgrate"]
        # every payload of the port: its user's alone (the security
        # review found captures world-readable)
        mode = os.stat(cap).st_mode & 0o777
        check(mode == 0o600, f"capture mode {mode:o}, want 600")
        # a link where the capture goes is not followed
        other = os.path.join(tmp, "other")
        with open(other, "w") as f:
            f.write("x")
        link = os.path.join(tmp, "l.pcapng")
        os.symlink(other, link)
        q = subprocess.run([perf, "--config", conf, "--mode", "msgrate",
                            "--count", "10", "--capture", link],
                           capture_output=True, text=True, timeout=120)
        check(q.returncode != 0 and open(other).read() == "x",
              "a symbolic link as capture path refused, its target intact")
        ft = subprocess.run([gen, "--first-time", cap], capture_output=True,
                            text=True, timeout=60)
        check(ft.returncode == 0, "libpcap reads it: " + ft.stderr)
        first = float(ft.stdout or "0")
        print(f"# first frame at {first:.6f}, run {t0:.3f} .. {t1:.3f}")
        check(t0 - CLOCK_SLACK <= first <= t1 + CLOCK_SLACK,
              f"first frame's time {time.ctime(first)} is the run's "
              f"({time.ctime(t0)})")
        d = subprocess.run([dump, "--json", cap], capture_output=True,
                           text=True, timeout=60)
        check(d.returncode == 0, "uet-dump exit 0: " + d.stderr[-400:])
        check(" 0 malformed, 0 not uet" in d.stderr,
              "every frame decodes: " + d.stderr.strip())
        types = collections.Counter()
        psns, retx = set(), 0
        for line in d.stdout.splitlines():
            pkt = json.loads(line)
            pds = pkt.get("pds", {})
            types[pds.get("type")] += 1
            if pds.get("type") == "RUD_REQ":
                psns.add(pds["psn"])
                retx += "RETX" in pds.get("flags", [])
        print(f"# uet-perf: retx {m['retransmissions']} dropped "
              f"{m['faults_dropped']} acks {m['acks']}; capture: {dict(types)}"
              f", RETX {retx}")
        check(len(psns) == COUNT, f"{len(psns)} distinct PSNs")
        check(types["RUD_REQ"] == COUNT + m["retransmissions"] -
              m["faults_dropped"], "requests on the wire")
        check(0 < retx <= m["retransmissions"], "retransmissions flagged")
        check(types["ACK"] + types["ACK_CC"] == m["acks"], "ACKs")
        trimmed_capture(perf, dump, tmp, check)
        tss_capture(perf, dump, tmp, check)
    print("PASS" if fails == 0 else f"FAIL: {fails}")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
