#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""uet-perf --pdcs: 10 000 PDCs between the two in-process engines, 0.1 %
loss: every message delivered exactly once, as many PDCs open at A as at
B, all of them closed afterwards (no PDC left on either engine); the PDS
state per PDC id bounded; values the configuration cannot hold and runs
--pdcs does not take rejected with a message naming the key; with
--pdc-burst the same, and the ACKs coalesced."""

import json
import os
import subprocess
import sys
import tempfile


def run(perf, *args):
    return subprocess.run([perf, *args], capture_output=True, text=True,
                          timeout=240)


def check(cond, what):
    if not cond:
        print("FAIL: " + what)
        sys.exit(1)


def msgrate(perf, what, count, *args):
    """One uet-perf msgrate run of @count messages: it exits 0 and every
    message arrives once. Returns its msgrate results."""
    p = run(perf, "--mode", "msgrate", "--count", str(count), "--json",
            *args)
    check(p.returncode == 0, f"{what}: exit 0, stderr: " + p.stderr[-300:])
    d = json.loads(p.stdout)["results"]["msgrate"]
    rx = d["receiver"]
    check(d["verified"] is True and rx["rx_msgs"] == count and
          rx["rx_dup"] == 0 and rx["rx_lost"] == 0 and rx["rx_bad"] == 0,
          f"{what}: verified, exactly once: {d.get('why_not')} {rx}")
    return d


def main():
    perf = sys.argv[1]
    tmpd = tempfile.TemporaryDirectory(prefix="uetp-pdcs-")
    conf = os.path.join(tmpd.name, "pdcs.conf")
    # Pools for 10 000 PDCs per role; no idle close while the run goes
    # round the PDCs (uet-perf closes them); a long RTO for slow builds.
    with open(conf, "w") as f:
        f.write("[eal]\nargs = -l 0 --no-huge -m 1024 --no-pci "
                "--log-level=4\n[engine]\npdc_pool_general = 12000\n"
                "max_pdcs = 16384\n[timers]\nrto_init = 10ms\n"
                "rto_max = 1s\nrto_max_retries = 12\nclose_idle = 0\n"
                "close_req_idle = 0\n")

    n, count = 10000, 20000
    d = msgrate(perf, "run", count, "--loss", "1000", "--pdcs", str(n),
                "--config", conf)
    x = d["pdcs"]
    check(x["asked"] == n and x["open_a"] == n and x["open_b"] == n,
          f"{n} PDCs open at A and at B: {x}")
    check(x["closed"] == n and x["all_closed"] is True,
          f"every PDC closed, none left: {x}")
    check(x["opened_in_run"] == n and x["closed_in_run"] == 0,
          f"each PDC opened once, none closed idle: {x}")
    check(0 < x["bytes_per_id_a"] <= 384, f"PDS bytes per PDC id: {x}")
    print(f"{n} PDCs: {count} messages once each, {d['retransmissions']} "
          f"retransmissions, closed in {x['close_seconds']:.3f} s, "
          f"{x['bytes_per_id_a']} B per PDC id")

    # --pdc-burst 16: sixteen messages in a row on each PDC, as an
    # application's messages to one peer; still exactly once, every PDC
    # opened once and closed, and the receiver coalesces ACKs again
    # (fewer ACK frames than messages; one per message with one message
    # per PDC in turn, docs/PERFORMANCE.md "Rate with many PDCs").
    n, count = 1000, 32000
    d = msgrate(perf, "burst", count, "--loss", "0", "--pdcs", str(n),
                "--pdc-burst", "16", "--config", conf)
    x = d["pdcs"]
    check(x["burst"] == 16 and x["open_a"] == n and x["open_b"] == n and
          x["opened_in_run"] == n and x["all_closed"] is True,
          f"burst: {n} PDCs open at A and B, each opened once, none "
          f"left: {x}")
    acks = d["acks"]  # control frames B (the receiver) sent
    check(0 < acks < count / 2,
          f"burst: ACKs coalesced ({acks} ACK frames for {count} messages)")
    print(f"burst 16: {n} PDCs, {count} messages once each, {acks} ACK "
          f"frames")

    # Idle close shorter than a round of the run: PDCs close idle and
    # re-open with their next message (churn). Still exactly once, the
    # opens and closes counted, none left.
    churn = os.path.join(tmpd.name, "churn.conf")
    with open(churn, "w") as f:
        f.write("[eal]\nargs = -l 0 --no-huge -m 512 --no-pci "
                "--log-level=4\n[timers]\nrto_init = 200us\n"
                "rto_max = 1s\ntlp_timeout = 0\nclose_idle = 200us\n")
    # A round of 4000 messages takes more than 200 us on any machine.
    n, count = 4000, 8000
    d = msgrate(perf, "churn", count, "--loss", "0", "--pdcs", str(n),
                "--config", churn)
    x = d["pdcs"]
    check(x["closed_in_run"] > 0 and x["opened_in_run"] > n and
          x["opened_in_run"] - x["closed_in_run"] == x["open_a"] and
          x["all_closed"] is True,
          f"churn: opens and idle closes counted, none left: {x}")
    print(f"churn: {x['opened_in_run']} opens and {x['closed_in_run']} "
          f"idle closes for {n} PDCs, {count} messages once each")

    # The built-in configuration holds 4096 PDCs per role.
    p = run(perf, "--mode", "msgrate", "--count", "100", "--pdcs", "5000")
    check(p.returncode != 0 and "pdc_pool_general" in p.stderr,
          "--pdcs past the pools: refused naming the key: " + p.stderr)
    for bad in (["--pdcs", "0"], ["--pdcs", "70000"],
                ["--pdcs", "8", "--ulp", "ses", "--mode", "msgrate"],
                ["--pdcs", "8", "--mode", "latency"]):
        p = run(perf, *bad)
        check(p.returncode == 2 and "--pdcs" in p.stderr,
              f"{bad}: usage error naming --pdcs: {p.stderr}")
    for bad in (["--pdc-burst", "4"], ["--pdcs", "8", "--pdc-burst", "0"],
                ["--pdcs", "8", "--pdc-burst", "5000"],
                ["--pdcs", "8", "--pdc-burst", "x"]):
        p = run(perf, "--mode", "msgrate", *bad)
        check(p.returncode == 2 and "--pdc-burst" in p.stderr,
              f"{bad}: usage error naming --pdc-burst: {p.stderr}")
    print("refusals: ok")


if __name__ == "__main__":
    main()
