#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The tables of docs/CONGESTION.md "Results", from runs of today's code.

Each table sits in the doc between <!-- results:NAME begin --> and
<!-- results:NAME end -->, with the command that makes it. The runs are
scripts/bench-cc.sh's (uet-perf --fabric in virtual time: the same
command gives the same numbers on any machine); htsim's reference
columns come from scripts/data/htsim-cc.json, which says how they were
obtained.

usage: scripts/cc-results.py [--only NAME[,NAME...]] [--check] [--list]
           [--perf PATH] [--doc FILE] [--keep DIR] [--from DIR]
  (none)    run every table's scenarios and rewrite its block in the doc
  --only    these tables only (--list names them)
  --check   run the cheap tables (or those of --only) and compare them
            with the doc, byte for byte; exit 1 on any difference
  --list    the tables, their scenarios and runs, nothing run
  --perf    uet-perf to run (default build/release/apps/uet-perf/uet-perf)
  --keep    keep every run's JSON in DIR/TABLE
  --from    take the runs' JSON from DIR/TABLE (a --keep of before)
            instead of running them
  --summary DIR --names A,B --seeds "1 2" --ccs "nscc rccc": print the
            table of the bench-cc.sh runs in DIR (what bench-cc.sh shows)
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(HERE)
CCS = ["nscc", "rccc", "nscc+rccc"]

# name: bench-cc.sh scenarios, seeds, quick (256 KiB flows), htsim
# columns, cheap (--check runs it by default; seconds of CPU)
TABLES = {
    "scenarios": dict(names=[], seeds=[], cheap=True),
    "quick": dict(names=["incast15", "perm-reps"], seeds=["1"],
                  quick=True, cheap=True),
    "fat-tree": dict(names=["incast15", "incast15-loss", "perm-reps",
                            "perm-oblivious", "perm-reps-fail"],
                     seeds=["1", "2", "3"], htsim=True),
    "leaf-spine": dict(names=["incast31", "incast63"],
                       seeds=["1", "2", "3"], htsim=True),
    "k8": dict(names=["incast64-k8"], seeds=["1", "2", "3"], htsim=True),
    "pictures": dict(names=[], seeds=["1"], pictures=True),
    "spray": dict(names=["perm-single", "perm-oblivious", "perm-reps",
                         "perm-single-fail", "perm-reps-fail"],
                  seeds=["1", "2", "3"], ccs=["fixed"]),
    # computed from the runs of these tables (--keep or --from DIR, or
    # the same invocation), nothing run of its own
    "targets": dict(names=[], seeds=[], of=["fat-tree", "leaf-spine",
                                            "k8"]),
}


def ccs_of(t):
    return t.get("ccs", CCS)


def nb_runs(t):
    return len(t["names"]) * len(ccs_of(t)) * len(t["seeds"])


def die(msg, code=2):
    print("cc-results.py: " + msg, file=sys.stderr)
    sys.exit(code)


# ------------------------------------------------------------------ runs

def metrics(j):
    """last/ideal, first/last, retx %, q p50 and p99 in BDPs, port."""
    c = j["completion_us"]
    p = j["packets"]
    bdp = j["fabric"]["bdp_bytes"]
    port = j["bottleneck"]["port"]
    q = next((x for x in j["ports"] if x["port"] == port), None)
    return (c["ratio"], c["first"] / c["last"] if c["last"] else 0.0,
            100.0 * p["retransmitted"] / p["new"] if p["new"] else 0.0,
            q["queue_p50"] / bdp if q else 0.0,
            q["queue_p99"] / bdp if q else 0.0, port)


def load_runs(d, names, ccs, seeds):
    """{(name, cc): [metrics per seed]}; a missing run is an error."""
    out = {}
    for n in names:
        for cc in ccs:
            m = []
            for s in seeds:
                path = os.path.join(d, "%s.%s.%s.json" % (n, cc, s))
                try:
                    with open(path) as f:
                        m.append(metrics(json.load(f)))
                except (OSError, ValueError, KeyError) as e:
                    die("%s: %s" % (path, e), 1)
            out[(n, cc)] = m
    return out


def summary(runs, names, ccs, seeds):
    """bench-cc.sh's table: uet-perf's numbers only."""
    rows = ["| scenario | CC | last/ideal (seeds %s) | first/last | retx %% "
            "| bottleneck | q p50 / p99 (BDP) |" % " / ".join(seeds),
            "|---|---|---|---|---|---|---|"]
    for n in names:
        for cc in ccs:
            m = runs.get((n, cc))
            if not m:
                continue
            k = len(m)
            rows.append("| %s | %s | %s | %.2f-%.2f | %.1f | %s | "
                        "%.2f / %.2f |" % (
                            n, cc, " / ".join("%.3f" % x[0] for x in m),
                            min(x[1] for x in m), max(x[1] for x in m),
                            sum(x[2] for x in m) / k, m[0][5],
                            sum(x[3] for x in m) / k,
                            sum(x[4] for x in m) / k))
    return rows


def beside_htsim(runs, names, seeds, htsim):
    rows = ["| scenario | CC | last/ideal, seeds %s: htsim | uet "
            "| first/last: htsim | uet | retx %%: htsim | uet "
            "| bottleneck (uet) | p50 / p99 (BDP) |" % " / ".join(seeds),
            "|---|---|---|---|---|---|---|---|---|---|"]
    for n in names:
        for cc in CCS:
            m = runs[(n, cc)]
            h = htsim["scenarios"].get(n, {}).get(cc)
            if h is None or len(h["last_ideal"]) != len(seeds):
                die("scripts/data/htsim-cc.json: no %s %s for seeds %s"
                    % (n, cc, " ".join(seeds)), 1)
            k = len(m)
            rows.append(
                "| %s | %s | %s | %s | %.2f-%.2f | %.2f-%.2f | %.1f | %.1f "
                "| %s | %.2f / %.2f |" % (
                    n, cc, " / ".join("%.3f" % x for x in h["last_ideal"]),
                    " / ".join("%.3f" % x[0] for x in m),
                    h["first_last"][0], h["first_last"][1],
                    min(x[1] for x in m), max(x[1] for x in m),
                    h["retx_pct"], sum(x[2] for x in m) / k, m[0][5],
                    sum(x[3] for x in m) / k, sum(x[4] for x in m) / k))
    return rows


def verdict(misses, total):
    return "met (%d of %d)" % (total, total) if not misses else \
        "**missed** in %d of %d: %s" % (len(misses), total,
                                       "; ".join(misses))


def targets(runs, htsim):
    """The table of the targets (docs/CONGESTION.md), from the runs of
    the tables TABLES["targets"]["of"] and htsim's numbers."""
    def h(n, cc):
        return htsim["scenarios"][n][cc]

    def seeds(n, cc):
        return runs[(n, cc)]

    def ratios(n, ref, bound, miss):
        """Scenario @n's last flow over ref(cc, seed index), per CC and
        seed: those above @bound appended to @miss; how many looked at."""
        total = 0
        for cc in CCS:
            for k, m in enumerate(seeds(n, cc)):
                total += 1
                r = m[0] / ref(cc, k)
                if r > bound:
                    miss.append("%s %s seed %d %.3fx" % (n, cc, k + 1, r))
        return total

    rows = ["| target | scenarios | result |", "|---|---|---|"]
    beside = [n for n in ("incast15", "incast15-loss", "perm-reps",
                          "perm-oblivious", "perm-reps-fail", "incast31",
                          "incast63", "incast64-k8") if (n, "rccc") in runs]
    miss, total = [], 0
    for n in beside:
        total += ratios(n, lambda cc, k, n=n: h(n, cc)["last_ideal"][k],
                        1.02, miss)
    rows.append("| last flow within 1.02x of htsim's | every one beside "
                "htsim, per CC and seed | %s |" % verdict(miss, total))
    miss, total = [], 0
    for n in beside:
        for cc in CCS:
            total += 1
            lo = min(x[1] for x in seeds(n, cc))
            if lo < h(n, cc)["first_last"][0]:
                miss.append("%s %s %.2f (htsim %.2f)" % (
                    n, cc, lo, h(n, cc)["first_last"][0]))
    rows.append("| first/last at least htsim's (lowest of the seeds) | "
                "every one beside htsim, per CC | %s |" %
                verdict(miss, total))
    miss, total = [], 0
    for n in beside:
        for k, m in enumerate(seeds(n, "nscc+rccc")):
            total += 1
            best = min(seeds(n, "nscc")[k][0], seeds(n, "rccc")[k][0])
            if m[0] > best:
                miss.append("%s seed %d %.3f (best alone %.3f)" % (
                    n, k + 1, m[0], best))
    rows.append("| NSCC+RCCC's last flow never later than the better of "
                "NSCC and RCCC alone | every one beside htsim, per seed | "
                "%s |" % verdict(miss, total))
    miss = []
    total = ratios("incast15-loss",
                   lambda cc, k: seeds("incast15", cc)[k][0], 1.1, miss)
    rows.append("| 1 %% loss within 1.1x of the loss-free time | "
                "incast15-loss over incast15, per CC and seed | %s |" %
                verdict(miss, total))
    miss = []
    total = ratios("perm-reps-fail",
                   lambda cc, k: h("perm-reps-fail", cc)["last_ideal"][k],
                   1.2, miss)
    rows.append("| link failure with REPS within 1.2x of htsim | "
                "perm-reps-fail, per CC and seed | %s |" %
                verdict(miss, total))
    miss, total = [], 0
    for n in beside:
        if not n.startswith("incast"):
            continue
        total += 1
        m = seeds(n, "rccc")
        p50 = sum(x[3] for x in m) / len(m)
        if p50 > 0.3:
            miss.append("%s %.2f BDP" % (n, p50))
    rows.append("| RCCC's bottleneck queue median at most 0.3 BDP in an "
                "incast | the incasts, mean of the seeds | %s |" %
                verdict(miss, total))
    miss, total = [], 0
    for cc in ("nscc", "rccc"):
        for k, m in enumerate(seeds("incast64-k8", cc)):
            total += 1
            if m[0] > 1.02:
                miss.append("%s seed %d %.3f" % (cc, k + 1, m[0]))
    rows.append("| 64:1 on 128 hosts within 1.02x of the ideal, NSCC and "
                "RCCC | incast64-k8, per seed | %s |" % verdict(miss, total))
    return rows


def bench(args):
    return [os.path.join(HERE, "bench-cc.sh"), "--perf", args.perf]


def scenario_rows(args):
    """The scenarios and their uet-perf arguments (bench-cc.sh --list)."""
    out = subprocess.run(bench(args) + ["--list"], check=True,
                         stdout=subprocess.PIPE, text=True).stdout
    rows = ["| scenario | uet-perf arguments (then `--cc CC --seed S`) |",
            "|---|---|"]
    for line in out.splitlines():
        name, cmd = line.split(": ", 1)
        cmd = cmd.replace("uet-perf ", "", 1).replace(" --cc CC --seed S",
                                                       "")
        rows.append("| %s | `%s` |" % (name, cmd))
    return rows


def table_runs(args, name, t, d):
    """Run the table's scenarios into @d (unless --from)."""
    if args.from_dir:
        return
    cmd = bench(args) + ["--only", ",".join(t["names"]), "--out", d]
    if t.get("quick"):
        cmd.append("--quick")
    else:
        cmd += ["--seeds", " ".join(t["seeds"])]
    if ccs_of(t) != CCS:
        cmd += ["--cc", " ".join(ccs_of(t))]
    start = time.monotonic()
    r = subprocess.run(cmd, stdout=subprocess.DEVNULL)
    print("cc-results.py: %s: %d runs, %.0f s wall" % (
        name, nb_runs(t),
        time.monotonic() - start), file=sys.stderr)
    if r.returncode != 0:
        die("%s: bench-cc.sh failed (exit %d): a run did not deliver "
            "every message exactly once" % (name, r.returncode), 1)


def command_line(name, t):
    if t.get("of"):
        return "`scripts/cc-results.py --only %s` (from the runs of the " \
            "tables %s and htsim's numbers):" % (name, ", ".join(t["of"]))
    if t.get("pictures"):
        return "`scripts/cc-results.py --only pictures`: `uet-perf %s " \
            "--cc CC --csv FILE` plotted by `scripts/plot-fabric.sh`:" % \
            " ".join(PICTURE_RUN)
    if not t["names"]:
        return "`scripts/bench-cc.sh --list`, rendered by " \
               "`scripts/cc-results.py --only scenarios`:"
    if t.get("quick"):
        runs = "`scripts/bench-cc.sh --quick`"
    else:
        runs = "`scripts/bench-cc.sh --only %s --seeds \"%s\"%s`" % (
            ",".join(t["names"]), " ".join(t["seeds"]),
            "" if ccs_of(t) == CCS else " --cc " + " ".join(ccs_of(t)))
    return "`scripts/cc-results.py --only %s` (the runs of %s, %d of them):" \
        % (name, runs, nb_runs(t))


# the pictures: the incast15 run of seed 1 plotted by scripts/plot-fabric.sh
# (docs/img/NAME.png from OUTPREFIX-KIND.png)
PICTURES = [
    ("nscc", "cwnd", "incast-15to1-nscc-cwnd",
     "15:1 incast with NSCC, congestion window per flow"),
    ("nscc", "queues", "incast-15to1-nscc-queues",
     "15:1 incast with NSCC, switch queues"),
    ("rccc", "rates", "incast-15to1-rccc-rates",
     "15:1 incast with RCCC, delivery rate per flow"),
]
PICTURE_RUN = ["--fabric", "topology=fat_tree,k=4,hosts=16", "--pattern",
               "incast", "--spray", "single", "--seed", "1"]


def pictures(args):
    """Run and plot; the images go to docs/img/. The block's lines."""
    rows = []
    with tempfile.TemporaryDirectory(prefix="cc-results.") as tmp:
        for cc in sorted({p[0] for p in PICTURES}):
            csv = os.path.join(tmp, cc + ".csv")
            subprocess.run([args.perf] + PICTURE_RUN +
                           ["--cc", cc, "--csv", csv], check=True,
                           stdout=subprocess.DEVNULL)
            r = subprocess.run(["bash", os.path.join(HERE, "plot-fabric.sh"),
                                "--title", "15:1 incast, K=4 fat tree, " + cc,
                                csv, os.path.join(tmp, cc)],
                               stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True)
            if r.returncode != 0:  # gnuplot's warnings only then
                die("plot-fabric.sh %s failed:\n%s" % (cc, r.stdout), 1)
        for cc, kind, img, alt in PICTURES:
            dst = os.path.join(TOP, "docs", "img", img + ".png")
            if not args.check:  # --check compares the links only
                with open(os.path.join(tmp, "%s-%s.png" % (cc, kind)),
                          "rb") as f, open(dst, "wb") as g:
                    g.write(f.read())
            rows += ["![%s](img/%s.png)" % (alt, img), ""]
    return rows[:-1]


def render(args, name, htsim):
    """The block of table @name: its command, a blank line, the table."""
    t = TABLES[name]
    if t.get("pictures"):
        rows = pictures(args)
    elif t.get("of"):
        base = args.from_dir or args.keep
        runs = {}
        for o in t["of"]:
            d = os.path.join(base, o) if base else ""
            if not os.path.isdir(d):
                die("targets: no runs of the table %s (name it in the same "
                    "invocation, or give --keep DIR or --from DIR holding "
                    "them)" % o, 1)
            ot = TABLES[o]
            runs.update(load_runs(d, ot["names"], ccs_of(ot), ot["seeds"]))
        rows = targets(runs, htsim)
    elif not t["names"]:
        rows = scenario_rows(args)
    else:
        base = args.from_dir or args.keep
        with tempfile.TemporaryDirectory(prefix="cc-results.") as tmp:
            d = os.path.join(base, name) if base else tmp
            os.makedirs(d, exist_ok=True)
            table_runs(args, name, t, d)
            runs = load_runs(d, t["names"], ccs_of(t), t["seeds"])
        if t.get("htsim"):
            rows = beside_htsim(runs, t["names"], t["seeds"], htsim)
        else:
            rows = summary(runs, t["names"], ccs_of(t), t["seeds"])
    return "\n".join([command_line(name, t), ""] + rows) + "\n"


# ------------------------------------------------------------------ doc

def markers(name):
    return ("<!-- results:%s begin -->\n" % name,
            "<!-- results:%s end -->" % name)


def block_of(doc, name):
    b, e = markers(name)
    i = doc.find(b)
    j = doc.find(e, i + len(b)) if i >= 0 else -1
    if i < 0 or j < 0:
        die("no %s...%s in the doc" % (b.strip(), e.strip()), 1)
    return i + len(b), j


def main():
    ap = argparse.ArgumentParser(add_help=False)
    ap.add_argument("--only")
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--list", action="store_true")
    ap.add_argument("--perf",
                    default=os.path.join(TOP, "build", "release", "apps",
                                         "uet-perf", "uet-perf"))
    ap.add_argument("--doc", default=os.path.join(TOP, "docs",
                                                  "CONGESTION.md"))
    ap.add_argument("--keep")
    ap.add_argument("--from", dest="from_dir")
    ap.add_argument("--summary")
    ap.add_argument("--names", default="")
    ap.add_argument("--seeds", default="1 2 3")
    ap.add_argument("--ccs", default=" ".join(CCS))
    ap.add_argument("-h", "--help", action="store_true")
    args, rest = ap.parse_known_args()
    if args.help:
        print(__doc__.strip())
        return 0
    if rest:
        die("unknown argument '%s' (--help)" % rest[0])

    if args.summary:
        names = [n for n in args.names.split(",") if n]
        ccs, seeds = args.ccs.split(), args.seeds.split()
        runs = {}
        for n in names:
            for cc in ccs:
                got = [s for s in seeds if os.path.exists(os.path.join(
                    args.summary, "%s.%s.%s.json" % (n, cc, s)))]
                runs.update(load_runs(args.summary, [n], [cc], got))
        print("\n".join(summary(runs, names, ccs, seeds)))
        return 0

    names = args.only.split(",") if args.only else None
    for n in names or []:
        if n not in TABLES:
            die("--only: no table '%s' (--list)" % n)
    if args.list:
        for n, t in TABLES.items():
            if names and n not in names:
                continue
            print("%s: %s%s" % (n, command_line(n, t).rstrip(":"),
                                "" if t.get("cheap") else
                                " (not in --check unless named)"))
        return 0
    if names is None:
        names = [n for n, t in TABLES.items()
                 if t.get("cheap") or not args.check]
    if not os.access(args.perf, os.X_OK):
        die("no uet-perf at %s (bash scripts/quickstart.sh builds it, or "
            "give --perf PATH)" % args.perf)
    with open(os.path.join(HERE, "data", "htsim-cc.json")) as f:
        htsim = json.load(f)
    # the runs of one invocation stay until its end (the targets table
    # reads those of the tables before it)
    keep_tmp = None
    if not args.keep and not args.from_dir:
        keep_tmp = tempfile.TemporaryDirectory(prefix="cc-results.")
        args.keep = keep_tmp.name
    with open(args.doc) as f:
        doc = f.read()

    bad = 0
    for n in names:
        i, j = block_of(doc, n)
        new = render(args, n, htsim)
        if args.check:
            if doc[i:j] != new:
                bad += 1
                print("cc-results.py: %s: the doc differs from today's "
                      "runs:" % n)
                old, now = doc[i:j].splitlines(), new.splitlines()
                for a, b in zip(old, now):
                    if a != b:
                        print("  doc: " + a + "\n  now: " + b)
                if len(old) != len(now):
                    print("  doc: %d lines, now: %d" % (len(old), len(now)))
            else:
                print("cc-results.py: %s: as in the doc" % n)
        else:
            doc = doc[:i] + new + doc[j:]
            with open(args.doc, "w") as f:
                f.write(doc)
            print("cc-results.py: %s: written" % n)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
