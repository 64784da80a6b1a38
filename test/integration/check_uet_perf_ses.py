#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""uet-perf --ulp ses: batch runs over the SES ULP through front-end
channels, small counts, --json checked: every operation completed, the
payloads were checked byte by byte (--verify) and nothing went wrong.
Rates and latencies are printed, never asserted.

usage: check_uet_perf_ses.py UET_PERF GROUP
GROUP: msgrate | latency | bw | loss | cli (one meson test each)."""

import csv
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


def run(perf, *args, stdin=None):
    return subprocess.run([perf, *args], capture_output=True, text=True,
                          timeout=60, input=stdin)


def slow_config(tmp):
    """Slow builds (ASan) poll slowly: a longer RTO and more retries keep
    the PDS from giving up on late ACKs (the checks are not timings)."""
    path = os.path.join(tmp, "slow.conf")
    with open(path, "w") as f:
        f.write("[eal]\nargs = -l 0 --no-huge -m 1024 --no-pci "
                "--log-level=4\n[timers]\nrto_init = 10ms\nrto_max = 1s\n"
                "rto_max_retries = 12\n")
    return path


def batch(perf, conf, mode, *args):
    """One --json run of @mode over the SES; its result object."""
    p = run(perf, "--ulp", "ses", "--mode", mode, "--verify", "--json",
            "--config", conf, *args)
    what = f"{mode} {' '.join(args)}"
    check(p.returncode == 0, f"{what}: exit 0, stderr: {p.stderr[-400:]}")
    try:
        doc = json.loads(p.stdout)
    except ValueError:
        check(False, f"{what}: JSON: {p.stdout[-300:]}")
        return None
    check(doc.get("ulp") == "ses" and doc.get("verified") is True,
          f"{what}: top level ses, verified")
    r = doc["results"][mode]
    ses = r["ses"]
    check(r["ulp"] == "ses" and r["payload_checked"] is True,
          f"{what}: payload checked")
    check(r["complete"] is True and r["verified"] is True,
          f"{what}: completed and verified")
    check(ses["completion_errors"] == 0 and
          ses["unknown_completions"] == 0 and ses["post_failures"] == 0,
          f"{what}: no completion error")
    check(r["sender"]["done_err"] == 0 and r["receiver"]["rx_bad"] == 0 and
          r["receiver"]["rx_dup"] == 0 and r["receiver"]["rx_lost"] == 0,
          f"{what}: no error, duplicate or loss")
    ini = ses["initiator"]
    check(ini["msg_err"] == 0 and ini["sqe_rejected"] == 0 and
          ses["target"]["msg_err"] == 0, f"{what}: SES counted no error")
    check(ini["wr_submitted"] == r["count"] == r["sender"]["msgs_sent"],
          f"{what}: every operation went through the SES")
    print(f"{what}: {r['msgs_per_s']:.0f} msgs/s, "
          f"{r['gbytes_per_s']:.3f} GB/s, retx {r['retransmissions']}, "
          f"dropped {r['faults_dropped']}")
    return r


def group_msgrate(perf, conf):
    r = batch(perf, conf, "msgrate", "--count", "3000", "--loss", "0")
    if r:
        check(r["receiver"]["rx_msgs"] == 3000 and
              r["receiver"]["rx_bytes"] == 3000 * 64,
              "msgrate: 3000 messages received")
        check(r["op"] == "send" and r["tagged"] is False, "msgrate: SEND")
        check(r["ses"]["target"]["rqe"] >= 3000, "msgrate: receives posted")
    r = batch(perf, conf, "msgrate", "--count", "2000", "--loss", "0",
              "--tagged", "--size", "300")
    if r:
        check(r["tagged"] is True and r["receiver"]["rx_msgs"] == 2000,
              "msgrate --tagged: 2000 tagged messages")
    r = batch(perf, conf, "msgrate", "--count", "2000", "--loss", "0",
              "--pds", "rod", "--window", "32")
    if r:
        check(r["pds"] == "rod" and r["receiver"]["rx_order_err"] == 0 and
              r["receiver"]["rx_msgs"] == 2000, "msgrate rod: in order")


def group_latency(perf, conf):
    r = batch(perf, conf, "latency", "--count", "500", "--size", "256")
    if r:
        lat = r["latency_ns"]
        check(lat["n"] == 500, "latency: 500 samples")
        check(0 < lat["min"] <= lat["p50"] <= lat["p99"] <= lat["max"],
              "latency: ordered percentiles")
        check(r["sender"]["pongs"] == 500 and
              r["receiver"]["rx_msgs"] == 500, "latency: 500 round trips")
        check(r["ses"]["target"]["wr_submitted"] == 500,
              "latency: the target answered with SES sends")


def group_bw(perf, conf):
    for op in ("write", "read", "send"):
        r = batch(perf, conf, "bw", "--op", op, "--count", "200",
                  "--size", "32K", "--window", "8")
        if not r:
            continue
        check(r["op"] == op, f"bw {op}: op")
        check(r["receiver"]["rx_msgs"] == 200 and
              r["receiver"]["rx_bytes"] == 200 * 32768,
              f"bw {op}: every byte delivered")
        check(r["pkts_per_msg"] > 1, f"bw {op}: multi-packet operations")
        if op == "read":
            check(r["ses"]["target"]["ret_tx"] >= 200 * 2,
                  "bw read: the target sent read responses")
        else:
            check(r["ses"]["initiator"]["frag_tx"] >= 200 * 2,
                  f"bw {op}: fragments from the initiator")


def group_loss(perf, conf):
    """1 % loss on the initiator's data (and the target's for read)."""
    runs = [("msgrate", "--count", "3000"),
            ("latency", "--count", "300"),
            ("bw", "--op", "write", "--count", "100", "--size", "16K",
             "--window", "8"),
            ("bw", "--op", "read", "--count", "100", "--size", "16K",
             "--window", "8"),
            ("bw", "--op", "send", "--count", "100", "--size", "16K",
             "--window", "8")]
    dropped = 0
    for mode, *args in runs:
        r = batch(perf, conf, mode, "--loss", "10000", *args)
        if not r:
            continue
        check(r["loss_ppm"] == 10000, f"{mode} {args}: 1% loss")
        check(r["retransmissions"] >= r["faults_dropped"],
              f"{mode} {args}: what was dropped was retransmitted")
        dropped += r["faults_dropped"]
    check(dropped > 0, "loss: frames were dropped")
    # --csv: SES columns, one row at least, last row has every message
    with tempfile.TemporaryDirectory(prefix="uetp-") as tmp:
        path = os.path.join(tmp, "ses.csv")
        p = run(perf, "--ulp", "ses", "--mode", "msgrate", "--count",
                "2000", "--interval", "1", "--csv", path, "--config", conf)
        check(p.returncode == 0, "csv: exit 0")
        check("ses frags" in p.stdout, "csv: live line with SES counters")
        with open(path) as f:
            rows = list(csv.DictReader(f))
        check(rows and "completion_errors_interval" in rows[0] and
              "ses_fragments_interval" in rows[0], "csv: SES columns")
        check(rows and int(rows[-1]["msgs_total"]) == 2000,
              "csv: last row has every message")
        check(sum(int(x["completion_errors_interval"]) for x in rows) == 0,
              "csv: no completion error")


def group_cli(perf, conf):
    script = ("set ulp ses\nset test bw\nset op read\nset size 16K\n"
              "set count 100\nset verify on\nshow config\nstart\n"
              "set op nope\nset ulp nope\nset verify maybe\n"
              "set op send\nset tagged on\nstart\n"
              "set test incast\n"
              "set test latency\nset count 100\nstart\nquit\n")
    p = run(perf, "-i", "--config", conf, stdin=script)
    out = p.stdout
    check(p.returncode == 0, "cli: exit 0")
    check("test bw, pds rud, size 16384, count 100" in out and
          "ulp ses, op read, verify" in out, "cli: show config")
    check(out.count("bw: done, verified") == 2, "cli: two bw runs verified")
    check("ses: read, completions 100 ok / 0 errors" in out,
          "cli: read over the SES")
    check("ses: send (tagged), completions 100 ok / 0 errors" in out,
          "cli: tagged sends over the SES")
    check("latency: done, verified" in out, "cli: latency over the SES")
    check("error: set op: expected" in out and
          "error: set ulp: expected" in out and
          "error: set verify: expected on or off" in out,
          "cli: bad values rejected")
    check("error: set test incast: with the other settings (show config), "
          "--ulp ses: incast runs over the raw ULP only" in out,
          "cli: incast refused when set")
    check("(4 rejected commands, 0 of 3 runs failed)" in out,
          "cli: rejections counted")
    bad = [["--ulp", "nope"],
           ["--op", "write"],                       # needs --ulp ses
           ["--tagged"],
           ["--ulp", "ses", "--op", "nope"],
           ["--ulp", "ses", "--mode", "msgrate", "--op", "read"],
           ["--ulp", "ses", "--mode", "bw", "--op", "read", "--tagged"],
           ["--ulp", "ses", "--pds", "uud"],
           ["--ulp", "ses", "--mode", "incast"],
           ["--ulp", "ses", "--mode", "bw", "--window", "5000"],
           ["--ulp", "ses", "--mode", "bw", "--size", "16M", "--window",
            "8"],
           ["--ulp", "ses", "--role", "client", "--config", conf, "--ctl",
            "127.0.0.1:1"]]
    for args in bad:
        p = run(perf, *args)
        check(p.returncode == 2 and p.stderr.startswith("uet-perf: ") and
              "usage:" in p.stderr, f"bad flags {args}: exit 2 + usage")


def main():
    perf, group = sys.argv[1], sys.argv[2]
    groups = {"msgrate": group_msgrate, "latency": group_latency,
              "bw": group_bw, "loss": group_loss, "cli": group_cli}
    if group not in groups:
        print("unknown group", group)
        return 2
    with tempfile.TemporaryDirectory(prefix="uetp-") as tmp:
        groups[group](perf, slow_config(tmp))
    print("PASS" if fails == 0 else f"FAIL: {fails} check(s)")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
