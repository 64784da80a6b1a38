#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""uet-perf batch mode with tiny counts: the --json object parses, traffic
flowed and was verified in every mode, and bad flags exit 2 with a usage.
Numbers (rates, latencies) are printed, never asserted.

  check_uet_perf.py UET_PERF MODES   MODES: the mode files' names, comma
                                     separated (meson's perf_mode_names)"""

import csv
import json
import os
import subprocess
import sys
import tempfile


def run(perf, *args):
    return subprocess.run([perf, *args], capture_output=True, text=True,
                          timeout=240)


def help_modes(perf, modes, check):
    """--help lists the modes of the table the build makes from the mode
    files (MODES), each is accepted by --mode, and an unknown --mode is
    refused with that list (one line, exit 2)."""
    p = run(perf, "--help")
    line = next((x for x in p.stdout.splitlines()
                 if x.startswith("  --mode M ")), "")
    listed = line.split(None, 2)[-1].split(" | all")[0].split(" | ")
    check(listed == modes, f"--help --mode line lists {modes}, in table "
          f"order (got {line!r})")
    for opt in ("--size BYTES", "--count N"):
        text = " ".join(x.strip() for x in p.stdout.split(opt, 1)[-1]
                        .split("\n  --", 1)[0].splitlines())
        check(all(f" {m} " in text for m in modes),
              f"--help {opt}: a default for every mode ({text!r})")
    for m in modes:
        # --mode parses before --bogus: a refusal names --bogus, not --mode
        q = run(perf, "--mode", m, "--bogus")
        check(q.returncode == 2 and q.stderr.startswith("uet-perf: --bogus"),
              f"--mode {m} accepted (got {q.stderr.splitlines()[:1]})")
    q = run(perf, "--mode", "nope")
    first = q.stderr.split("\n")[0]
    check(q.returncode == 2 and first.startswith("uet-perf: --mode: ") and
          all(m in first for m in modes) and "all" in first,
          f"unknown --mode refused with the list of modes (got {first!r})")


def main():
    perf = sys.argv[1]
    modes = sys.argv[2].split(",")
    fails = 0

    def check(cond, what):
        nonlocal fails
        if not cond:
            print("CHECK failed:", what)
            fails += 1

    help_modes(perf, modes, check)

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

    # --duration without --count submits for the whole duration, counted
    # from the moment the engines run (setup was once inside it: 1 s of
    # traffic measured 0.7 s); it cannot end earlier than stated.
    p = run(perf, "--mode", "msgrate", "--duration", "1s", "--json")
    check(p.returncode == 0, "duration: exit 0, stderr: " + p.stderr[-300:])
    d = json.loads(p.stdout)["results"]["msgrate"]
    check(d["seconds"] >= 1.0, f"--duration 1s ran {d['seconds']} s")
    check(d["verified"] is True and d["count"] > 0 and
          d["receiver"]["rx_msgs"] == d["count"],
          "duration: every message sent was delivered once")
    print(f"duration 1s: {d['seconds']:.6f} s, {d['count']} messages")

    # Slow builds (ASan) poll slowly: a longer RTO and more retries keep
    # the PDS from giving up on late ACKs (the checks are not timings).
    tmpd = tempfile.TemporaryDirectory(prefix="uetp-")
    slow = os.path.join(tmpd.name, "slow.conf")
    with open(slow, "w") as f:
        f.write("[eal]\nargs = -l 0 --no-huge -m 1024 --no-pci "
                "--log-level=4\n[timers]\nrto_init = 10ms\nrto_max = 1s\n"
                "rto_max_retries = 12\n")

    # incast: 3 sender engines -> 1 receiver over ring ports + switch
    p = run(perf, "--mode", "incast", "--peers", "3", "--count", "500",
            "--loss", "2000", "--json", "--config", slow)
    check(p.returncode == 0, "incast: exit 0, stderr: " + p.stderr[-300:])
    inc = json.loads(p.stdout)["results"]["incast"]
    check(inc["verified"] is True and inc["peers"] == 3, "incast verified")
    check(len(inc["flows"]) == 3 and
          all(f["msgs"] == 500 and f["msgs_sent"] == 500 and
              f["lost_pkts"] == 0 and f["bytes"] == 500 * inc["size"]
              for f in inc["flows"]), "incast: every flow delivered")
    check(inc["receiver"]["rx_msgs"] == 1500, "incast: receiver got 1500")
    check(0 < inc["jain_index"] <= 1.0, "incast: Jain index in (0, 1]")
    print(f"incast: Jain {inc['jain_index']:.4f}, "
          f"{inc['gbytes_per_s']:.3f} GB/s")

    # ROD incast: each sender's PDC is in order, their interleaving is
    # not (it used to be counted as order errors: never verified)
    p = run(perf, "--mode", "incast", "--peers", "3", "--count", "300",
            "--pds", "rod", "--json")
    check(p.returncode == 0, "incast rod: exit 0, stderr: " +
          p.stderr[-300:])
    inc = json.loads(p.stdout)["results"]["incast"]
    check(inc["verified"] is True and
          inc["receiver"]["rx_order_err"] == 0 and
          inc["receiver"]["rx_msgs"] == 900,
          "incast rod: verified, no order error, 900 messages")

    # incast without --count: the default count (20 000) is per sender
    # too (it used to be split over the senders: 6 666 each for 3)
    p = run(perf, "--mode", "incast", "--peers", "3", "--size", "64",
            "--json")
    check(p.returncode == 0, "incast default count: exit 0, stderr: " +
          p.stderr[-300:])
    inc = json.loads(p.stdout)["results"]["incast"]
    check(inc["verified"] is True and
          all(f["msgs_sent"] == 20000 and f["msgs"] == 20000
              for f in inc["flows"]) and
          inc["receiver"]["rx_msgs"] == 60000,
          "incast default count: 20 000 per sender, 60 000 received")

    # --csv time series and live lines (--interval)
    with tempfile.TemporaryDirectory(prefix="uetp-") as tmp:
        csv_path = os.path.join(tmp, "series.csv")
        p = run(perf, "--mode", "msgrate", "--count", "20000",
                "--interval", "1", "--csv", csv_path, "--config", slow)
        check(p.returncode == 0, "csv run: exit 0")
        check("msgs/s" in p.stdout.split("msgrate:")[0],
              "live statistics lines before the summary")
        with open(csv_path) as f:
            rows = list(csv.DictReader(f))
        check(len(rows) >= 1, "csv has rows")
        # the names say which columns are running totals and which are
        # per interval
        check(rows and set(rows[0]) == {
            "time_s", "mode", "msgs_total", "bytes_total",
            "msgs_per_s_interval", "bytes_per_s_interval",
            "retransmissions_interval", "drops_interval", "cwnd_bytes",
            "srtt_ns"}, "csv columns")
        check(rows and any(int(r["cwnd_bytes"]) > 0 for r in rows) and
              any(int(r["srtt_ns"]) > 0 for r in rows),
              "csv: the first sender's window and RTT")
        check(rows and int(rows[-1]["msgs_total"]) == 20000,
              "csv last row has every message")
        tot = [int(r["msgs_total"]) for r in rows]
        check(tot == sorted(tot), "csv: msgs_total never decreases")
        check(sum(int(r["drops_interval"]) for r in rows) > 0 and
              sum(int(r["retransmissions_interval"]) for r in rows) > 0,
              "csv: drops and retransmissions per interval")
        t = [float(r["time_s"]) for r in rows]
        check(t == sorted(t), "csv times increase")
        p = run(perf, "--csv", os.path.join(tmp, "no", "such", "x.csv"))
        check(p.returncode == 2 and p.stderr.count("\n") == 1,
              "unwritable --csv: one line, exit 2")
        nowhere = os.path.join(tmp, "no", "such", "x.pcapng")
        for args in (["--mode", "msgrate"],
                     ["--role", "server", "--config", slow]):
            p = run(perf, *args, "--capture", nowhere)
            check(p.returncode == 2 and p.stderr.count("\n") == 1 and
                  p.stderr.startswith("uet-perf: --capture "),
                  f"unwritable --capture {args}: one line, exit 2 (got "
                  f"{p.returncode}: {p.stderr!r})")
        # the same file named by engine.capture in --config (it was three
        # errno lines and exit 1, from inside the engine setup)
        capconf = os.path.join(tmp, "cap.conf")
        with open(capconf, "w") as f:
            f.write(f"[engine]\ncapture = {nowhere}\n")
        p = run(perf, "--mode", "msgrate", "--count", "10", "--config",
                capconf)
        check(p.returncode == 2 and p.stderr.count("\n") == 1 and
              p.stderr.startswith("uet-perf: engine.capture "),
              f"unwritable engine.capture: one line, exit 2 (got "
              f"{p.returncode}: {p.stderr!r})")

    # a client without a server: one line, exit 1, bounded
    p = run(perf, "--role", "client", "--config", os.devnull, "--ctl",
            "127.0.0.1:1", "--ctl-timeout", "1s")
    check(p.returncode == 1 and "uet-perf:" in p.stderr,
          "client with no server fails (bounded)")

    bad = [
        ["--bogus"],
        ["--size", "7"],
        ["--mode", "nope"],
        ["--mode", "msgrate,"],
        ["--pds", "xyz"],
        ["--count", "0"],
        ["--window", "abc"],
        ["--peers", "9", "--mode", "incast"],
        ["--peers", "3"],                       # needs --mode incast
        ["--mode", "incast,msgrate"],           # incast runs alone
        ["--interval", "0"],
        ["--role", "both"],
        ["--role", "client", "--config", "x"],  # needs --ctl
        ["--role", "server"],                   # needs --config
        ["--role", "server", "--config", "x", "--count", "5"],
        ["--role", "client", "--config", "x", "--ctl", "h:1",
         "--mode", "incast"],
        ["--role", "client", "--config", "x", "--ctl", "h:99999"],
        ["--role", "client", "--config", "x", "--ctl", "h:1", "-i"],
        ["--ctl", "h:1"],                       # needs --role
        # the host is part of the syntax check (not a failure later)
        ["--role", "client", "--config", "x", "--ctl",
         "no-such-host.invalid"],
        ["--role", "server", "--config", "x", "--ctl", "abc"],
        ["-i", "--json"],
        ["--arp"],                              # needs --role
        ["stray"],
    ]
    for args in bad:
        p = run(perf, *args)
        first = p.stderr.split("\n")[0]
        check(p.returncode == 2 and first.startswith("uet-perf: ") and
              "usage:" in p.stderr, f"{args}: exit 2, one line + usage "
              f"(got {p.returncode}: {first!r})")
    p = run(perf, "--help")
    check(p.returncode == 0 and "--mode" in p.stdout, "--help")
    p = run(perf, "-h")
    check(p.returncode == 0 and "--mode" in p.stdout, "-h")
    p = run(perf, "--version")
    check(p.returncode == 0 and p.stdout.startswith("uet-perf ") and
          "DPDK" in p.stdout, "--version: " + p.stdout)
    # EAL options before "--", as DPDK applications take them
    prefix = f"uetb-{os.getpid()}"
    p = run(perf, "-l", "0", "--no-huge", "-m", "1024", "--no-pci",
            "--no-shconf", f"--file-prefix={prefix}", "--log-level=4", "--",
            "--mode", "msgrate", "--count", "500", "--json")
    check(p.returncode == 0 and json.loads(p.stdout)["verified"] is True,
          "EAL options before --: " + p.stderr[-300:])
    p = run(perf, "-l", "0", "--mode", "msgrate")
    check(p.returncode == 2 and "EAL options come first" in p.stderr,
          "an EAL option without --: exit 2 and the hint")

    tmpd.cleanup()
    print("PASS" if fails == 0 else f"FAIL: {fails}")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
