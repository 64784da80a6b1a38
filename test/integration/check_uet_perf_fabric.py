#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""uet-perf --fabric: tiny runs over the emulated fabric in virtual time.

  ses      the same incast and an all-to-all over the SES ULP through
           channels (a driver per flow): exactly once, every trim
           NACKed, deterministic
  incast   4 hosts (2 leaves of 2, 2 spines), 3 flows into host 0 with
           trimming on: every flow complete exactly once, every trim
           received and NACKed; a second run gives the same JSON (virtual
           time is deterministic) but for the wall-clock fields
  plot     the --csv of that run through scripts/plot-fabric.sh: a PNG
           and an SVG, each non-empty and of the right kind
  staggered  staggered starts: the completion line's two origins
           (per flow / from the run's start); no port stopped twice
  failure  a spine link fails during a permutation (schedule line of
           --fabric): frames are lost on it, still every flow exactly once
  prompt   set fabric / pattern / flow-size at the uet-perf -i prompt,
           a run started there, bad values rejected
  errors   bad --fabric keys, values and links, flags --fabric does not
           take, fabric flags without --fabric: exit 2 with the reason

Checks behaviour and counted results, never wall-clock times. Files go to
a private temporary directory, removed at the end."""

import json
import os
import shutil
import subprocess
import sys
import tempfile

FAILS = []


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what)
    if not cond:
        FAILS.append(what)


def run(perf, args, timeout=120):
    return subprocess.run([perf] + args, capture_output=True, text=True,
                          timeout=timeout)


SMALL = "hosts=4,hosts_per_leaf=2,spines=2"
# every number of a run but the wall-clock ones and the process's memory
WALL = ("wall_s", "cpu_s", "frames_per_wall_s")


def strip_wall(d):
    e = dict(d["emulator"])
    for k in WALL:
        e.pop(k, None)
    d = dict(d)
    d["emulator"] = e
    d.pop("memory", None)
    return d


def incast(perf, tmp):
    js = [os.path.join(tmp, "a.json"), os.path.join(tmp, "b.json")]
    csv = os.path.join(tmp, "incast.csv")
    base = ["--fabric", SMALL, "--pattern", "incast", "--flow-size",
            "256K", "--size", "16K", "--sample", "2us"]
    p = run(perf, base + ["--json", js[0], "--csv", csv])
    check(p.returncode == 0, f"incast: exit 0 ({p.returncode}) "
          f"{p.stderr.strip()[:300]}")
    check("every flow complete, exactly once" in p.stdout,
          "incast: summary says exactly once")
    q = run(perf, base + ["--json", js[1]])
    check(q.returncode == 0, "incast: second run exit 0")
    try:
        a = json.load(open(js[0]))
        b = json.load(open(js[1]))
    except (OSError, ValueError) as e:
        check(False, f"incast: JSON files load ({e})")
        return csv
    check(a["verified"] is True, "incast: verified")
    check(a["traffic"]["flows"] == 3 and len(a["flow"]) == 3,
          "incast: 3 flows")
    check(all(f["complete"] and f["dst"] == 0 and
              f["bytes"] == 256 * 1024 for f in a["flow"]),
          "incast: every flow delivered 256 KiB to host 0")
    d = a["delivery"]
    check(d["exactly_once"] and d["duplicates"] == 0 and
          d["lost_packets"] == 0 and d["messages"] == 3 * 16,
          "incast: 48 messages exactly once")
    k = a["packets"]
    check(k["trims"] > 0, f"incast: the fabric trimmed ({k['trims']})")
    check(k["trimmed_received"] == k["trims"],
          "incast: every trim reached its receiver")
    check(k["trim_nacks_sent"] == k["trims"] and
          k["trim_nacks_received"] == k["trims"],
          "incast: every trim NACKed, every NACK received")
    check(k["retransmitted"] >= k["trims"],
          "incast: each trimmed packet retransmitted")
    by_reason = sum(k[r] for r in ("retx_trim", "retx_nack", "retx_rto",
                                   "retx_sack", "retx_again", "retx_probe",
                                   "retx_tlp", "retx_backoff"))
    check(by_reason == k["retransmitted"],
          f"incast: retransmissions by reason ({by_reason}) are the "
          f"frames retransmitted ({k['retransmitted']})")
    c = a["completion_us"]
    check(0 < c["first"] <= c["p50"] <= c["max"] == c["last"] and
          c["last"] >= c["ideal_last"] > 0,
          "incast: completion times ordered, last above the ideal")
    check(0 < a["jain"] <= 1.0, "incast: Jain index in (0, 1]")
    bn = a["bottleneck"]
    check(bn["port"] == "leaf0>host0",
          f"incast: the bottleneck is leaf0>host0 ({bn['port']})")
    check(a["emulator"]["frames"] > 0 and
          a["emulator"]["frames_per_wall_s"] > 0,
          "incast: emulator speed reported")
    check(strip_wall(a) == strip_wall(b),
          "incast: a second run gives the same numbers (virtual time)")
    return csv


def loss_nscc(perf, tmp):
    # The 1 %-loss NSCC stall: 15:1 incast on the K=4 fat tree, 1 % loss
    # per link. Flows stuck with a one-MTU window (no RTT sample from a
    # retransmission) behind a CC gate that the RTO never reopened ran
    # 31x the ideal until their PDCs timed out; virtual time, so the
    # numbers are exact.
    conf = os.path.join(tmp, "cc.conf")
    with open(conf, "w") as f:
        f.write("[cc]\nbase_rtt = 14us\n")
    js = os.path.join(tmp, "loss.json")
    p = run(perf, ["--fabric", "topology=fat_tree,k=4,hosts=16,"
                   "loss_ppm=10000", "--pattern", "incast", "--cc", "nscc",
                   "--window", "512", "--config", conf, "--json", js],
            timeout=300)
    check(p.returncode == 0, f"loss nscc: exit 0 ({p.returncode}) "
          f"{p.stderr.strip()[:300]}")
    try:
        a = json.load(open(js))
    except (OSError, ValueError) as e:
        check(False, f"loss nscc: JSON loads ({e})")
        return
    check(a["verified"] and a["delivery"]["exactly_once"],
          "loss nscc: every message exactly once, no PDC failed")
    # The RTO from the fabric (unloaded RTT + 6 full queues), not the
    # engine's 1 ms: a lost packet of a few-packet window has no SACK
    # behind it. Loss-free this run is 1.01x; with 1 % loss 1.03x.
    f = a["fabric"]
    drain = f["bdp_bytes"] * 8 // int(f["link_gbps"])
    check(a["traffic"]["rto_init_ns"] < 200000 and
          a["traffic"]["tlp_timeout_ns"] == a["traffic"]["rto_init_ns"] // 2,
          f"loss nscc: RTO from the fabric ({a['traffic']['rto_init_ns']} "
          f"ns, about {f['base_rtt_ns'] + 6 * drain} ns)")
    c = a["completion_us"]
    check(c["last"] < 1.1 * c["ideal_last"],
          f"loss nscc: last flow within 1.1x the ideal ({c['last']} us, "
          f"ideal {c['ideal_last']} us)")


def incast_rod(perf):
    # ROD: in order per flow (the receiver's check is per sender)
    p = run(perf, ["--fabric", SMALL, "--pattern", "incast", "--pds",
                   "rod", "--flow-size", "128K", "--size", "16K", "--json"])
    check(p.returncode == 0, f"incast rod: exit 0 ({p.returncode})")
    try:
        a = json.loads(p.stdout)
    except ValueError:
        check(False, "incast rod: JSON on stdout")
        return
    check(a["verified"] and a["traffic"]["pds"] == "rod" and
          a["delivery"]["messages"] == 24, "incast rod: verified")


def staggered(perf, tmp):
    # Two origins in the completion line: per flow from the flow's start,
    # first/last from the run's; staggered starts put the first completion
    # after the median flow time. With a --config that leaves the EAL at
    # its default log level, closing the hosts' ports logs nothing (the
    # adapter used to stop every port again: "already stopped" per host).
    conf = os.path.join(tmp, "cc.conf")
    with open(conf, "w") as f:
        f.write("[cc]\nalgorithm = fixed\n")
    p = run(perf, ["--fabric", SMALL, "--pattern", "permutation",
                   "--start", "staggered:100us", "--flow-size", "128K",
                   "--size", "16K", "--config", conf])
    check(p.returncode == 0, f"staggered: exit 0 ({p.returncode})")
    check("already stopped" not in p.stderr,
          "fabric --config: no port stopped twice at the end")
    line = [l for l in p.stdout.splitlines() if "completion (us)" in l]
    check(len(line) == 1 and "per flow min" in line[0] and
          "from the start of the run first" in line[0],
          "staggered: the completion line names both origins")
    p = run(perf, ["--fabric", SMALL, "--pattern", "permutation",
                   "--start", "staggered:100us", "--flow-size", "128K",
                   "--size", "16K", "--json"])
    try:
        c = json.loads(p.stdout)["completion_us"]
    except (ValueError, KeyError):
        check(False, "staggered: JSON on stdout")
        return
    check(0 < c["min"] <= c["p50"] <= c["max"] and
          c["min"] <= c["first"] <= c["last"],
          f"staggered: per-flow times ordered, first after min ({c})")
    check(c["first"] > c["p50"],
          "staggered: first (from the run's start) after the median flow time")


def ses(perf, tmp):
    # the SES ULP through channels, a driver per flow (tagged sends)
    js = [os.path.join(tmp, "s1.json"), os.path.join(tmp, "s2.json")]
    args = ["--fabric", SMALL, "--pattern", "incast", "--flow-size", "256K",
            "--size", "16K", "--ulp", "ses", "--verify", "--json"]
    p = run(perf, args + [js[0]])
    check(p.returncode == 0, f"ses incast: exit 0 ({p.returncode}) "
          f"{p.stderr.strip()[:300]}")
    q = run(perf, args + [js[1]])
    try:
        a = json.load(open(js[0]))
        b = json.load(open(js[1]))
    except (OSError, ValueError):
        check(False, "ses incast: JSON files load")
        return
    k = a["packets"]
    check(a["verified"] and a["traffic"]["ulp"] == "ses" and
          a["traffic"]["window_unit"] == "operations" and
          a["delivery"]["messages"] == 48 and a["delivery"]["exactly_once"],
          "ses incast: 48 messages exactly once")
    check(k["trims"] > 0 and k["trim_nacks_sent"] == k["trims"] and
          k["trimmed_received"] == k["trims"],
          "ses incast: trimmed and every trim NACKed")
    check(q.returncode == 0 and strip_wall(a) == strip_wall(b),
          "ses incast: a second run gives the same numbers")
    # all-to-all: every host sends and receives several flows
    p = run(perf, ["--fabric", SMALL, "--pattern", "all-to-all",
                   "--flow-size", "64K", "--size", "16K", "--ulp", "ses",
                   "--json"])
    check(p.returncode == 0 and json.loads(p.stdout)["verified"] and
          json.loads(p.stdout)["delivery"]["messages"] == 12 * 4,
          "ses all-to-all: 12 flows verified")


def plot(tmp, csv, srcdir):
    script = os.path.join(srcdir, "scripts", "plot-fabric.sh")
    try:
        head = open(csv).readline()
    except OSError:
        head = ""
    check(head.startswith("time_us,rate_gbps_1_0,rate_gbps_2_0,"
                          "rate_gbps_3_0,cwnd_1_0,cwnd_2_0,cwnd_3_0,"
                          "srtt_us_1_0,srtt_us_2_0,srtt_us_3_0,"
                          "queue_max_bytes,link_drops,q_leaf0_host0"),
          "csv: header has flow rates, windows, RTTs and switch queues")
    rows = sum(1 for _ in open(csv)) - 1 if head else 0
    check(rows >= 10, f"csv: rows every 2 us ({rows})")
    if shutil.which("gnuplot") is None:
        check(False, "plot: gnuplot installed (scripts/install-deps.sh)")
        return
    for fmt, magic in (("png", b"\x89PNG\r\n\x1a\n"), ("svg", b"<svg")):
        out = os.path.join(tmp, "incast")
        p = subprocess.run(["bash", script, "--format", fmt, csv, out],
                           capture_output=True, text=True, timeout=60)
        check(p.returncode == 0, f"plot {fmt}: exit 0 ({p.returncode}) "
              f"{p.stderr.strip()[:200]}")
        for kind in ("queues", "rates", "cwnd"):
            f = f"{out}-{kind}.{fmt}"
            data = open(f, "rb").read() if os.path.exists(f) else b""
            ok = data.startswith(magic) if fmt == "png" else \
                magic in data[:400]
            check(len(data) > 1000 and ok,
                  f"plot {fmt}: {kind} image is a non-empty {fmt}")
    p = subprocess.run(["bash", script, os.path.join(tmp, "a.json"),
                        os.path.join(tmp, "x")], capture_output=True,
                       text=True, timeout=60)
    check(p.returncode == 1 and "not a uet-perf" in p.stderr,
          "plot: a file that is not the CSV is refused")


def failure(perf, tmp):
    js = os.path.join(tmp, "fail.json")
    csv = os.path.join(tmp, "fail.csv")
    p = run(perf, ["--fabric", "hosts=8,hosts_per_leaf=2,spines=2,"
                   "trimming=off,fail=leaf0-spine1@10us",
                   "--pattern", "shift", "--flow-size", "512K",
                   "--json", js, "--csv", csv, "--sample", "1us"])
    check(p.returncode == 0, f"failure: exit 0 ({p.returncode}) "
          f"{p.stderr.strip()[:300]}")
    try:
        a = json.load(open(js))
    except (OSError, ValueError):
        check(False, "failure: JSON loads")
        return
    lost = sum(x["drops_link"] for x in a["ports"])
    check(lost > 0, f"failure: frames lost on the failed link ({lost})")
    rows = [r.split(",") for r in open(csv).read().split("\n")[1:] if r]
    col = open(csv).readline().split(",").index("link_drops")
    before = [int(r[col]) for r in rows if float(r[0]) < 10.0]
    # the JSON counts until the last flow is done, the last CSV row
    # until the end of the quiet tail (ACKs may still die there)
    check(before and max(before) == 0 and int(rows[-1][col]) >= lost,
          "failure: csv link_drops 0 before the failure, at least the "
          "run's total at the end")
    check(a["verified"] and a["delivery"]["exactly_once"],
          "failure: every flow complete exactly once")
    check(a["packets"]["retransmitted"] > 0,
          "failure: losses recovered by retransmission")


def time_limit(perf, tmp):
    """The emulated time limit is reported as such (strerror(ETIMEDOUT)
    read "Connection timed out", as if a PDC had failed), and a PDC
    whose retransmissions and ACKs keep meeting a failed link recovers
    on its own: on this run (K = 4 fat tree, a spine link failed,
    oblivious spraying, seed 2) every message is delivered by 63 ms,
    but one sender waits for an ACK until about 1.2 s of emulated time,
    its RTO doubled to rto_max (100 ms) while each round trip had about
    one chance in four to avoid the failed link both ways."""
    p = run(perf, ["--fabric", SMALL, "--pattern", "incast",
                   "--time-limit", "5us"])
    check(p.returncode != 0 and "the emulated time limit (5 us, "
          "--time-limit) passed with messages still to deliver" in p.stdout
          and "Connection timed out" not in p.stdout,
          f"time limit: reported as the emulated limit "
          f"({p.stdout.strip()[-200:]})")
    js = os.path.join(tmp, "limit.json")
    p = run(perf, ["--fabric", "topology=fat_tree,k=4,hosts=16,"
                   "fail=leaf0-spine1@50us", "--pattern", "permutation",
                   "--spray", "oblivious", "--cc", "fixed", "--seed", "2",
                   "--time-limit", "5s", "--json", js])
    check(p.returncode == 0, f"time limit: failed-link run exit 0 "
          f"({p.returncode}) {p.stdout.strip()[-300:]}")
    try:
        a = json.load(open(js))
    except (OSError, ValueError):
        check(False, "time limit: JSON loads")
        return
    check(a["verified"] and a["delivery"]["exactly_once"] and
          a["emulator"]["emulated_us"] < 5e6,
          "time limit: the failed-link run completes before the limit "
          f"({a['emulator']['emulated_us']:.0f} us emulated)")


PROMPT = f"""set fabric {SMALL}
set pattern incast
set flow-size 128K
set size 16K
set fabric bogus=1
set pattern ring
set flow-size lots
start
set fabric off
quit
"""


def prompt(perf):
    p = subprocess.run([perf, "-i"], input=PROMPT, capture_output=True,
                       text=True, timeout=60)
    out = p.stdout
    check(p.returncode == 0, f"prompt: exit 0 ({p.returncode})")
    check("fabric incast started" in out and
          "3 flows of 131072 B" in out and
          "every flow complete, exactly once" in out and
          "fabric: done, verified" in out,
          "prompt: the incast ran over the fabric, verified")
    check("bogus: unknown key" in p.stderr + out and
          "set pattern: expected" in out and "set flow-size:" in out,
          "prompt: bad fabric, pattern and flow-size refused")
    check("bye (3 rejected commands, 0 of 1 runs failed)" in out,
          "prompt: 3 rejected commands counted")


def errors(perf):
    cases = [
        (["--fabric", "hosts=1"], "hosts"),
        (["--fabric", "bogus=1"], "unknown key"),
        (["--fabric", "hosts"], "KEY=VALUE"),
        (["--fabric", "fail=leaf0-spine9@5us"], "spine9 does not exist"),
        (["--fabric", "k=8"], "fat_tree only"),
        (["--fabric", "--pattern", "ring"], "--pattern"),
        (["--fabric", "--clock", "sundial"], "--clock"),
        (["--fabric", "--start", "later"], "staggered"),
        (["--fabric", "--flow-size", "1K", "--size", "4K"],
         "--flow-size"),
        (["--fabric", "--mode", "bw"], "--pattern"),
        (["--fabric", "--ulp", "ses", "--op", "write"], "flows are sends"),
        (["--fabric", "--ulp", "ses", "--tagged"], "always tagged"),
        (["--fabric", "--verify"], "need --ulp ses"),
        (["--fabric", "--loss", "10"], "loss_ppm"),
        (["--fabric", "--pds", "uud"], "--pds"),
        (["--pattern", "incast"], "need --fabric"),
        (["--json", "out.json"], "needs --fabric"),
    ]
    for args, why in cases:
        p = run(perf, args, timeout=30)
        check(p.returncode == 2 and why in p.stderr,
              f"error {' '.join(args)}: exit 2 naming '{why}' "
              f"({p.returncode}: {p.stderr.strip()[:120]})")


def main():
    perf = sys.argv[1]
    srcdir = os.path.normpath(os.path.join(os.path.dirname(
        os.path.abspath(__file__)), "..", ".."))
    tmp = tempfile.mkdtemp(prefix=f"uet-perf-fabric-{os.getpid()}-")
    try:
        csv = incast(perf, tmp)
        incast_rod(perf)
        staggered(perf, tmp)
        loss_nscc(perf, tmp)
        ses(perf, tmp)
        plot(tmp, csv, srcdir)
        failure(perf, tmp)
        time_limit(perf, tmp)
        prompt(perf)
        errors(perf)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print(f"{'FAIL' if FAILS else 'PASS'}: {len(FAILS)} failure(s)")
    return 1 if FAILS else 0


if __name__ == "__main__":
    sys.exit(main())
