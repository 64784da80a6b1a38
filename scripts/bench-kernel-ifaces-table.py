#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""
The table of scripts/bench-kernel-ifaces.sh, from its rows on stdin
("REP MTU PATH BW RATE P50 P99", "-" for a failed measurement, "n/a" for
one that does not apply): each repetition's rows as measured, then per
MTU and path the median of each number over the repetitions with its
range, and the ratio to the kernel row of the same MTU as the median of
the ratios within each repetition (the load changes between
repetitions; within one, the rows follow each other). Exit 1 when a
measurement failed.
"""
import statistics
import sys

FMT = "%5s %-12s %8s %7s %9s %7s %10s %8s %8s"
HEAD = ("MTU", "path", "bw GB/s", "vs TCP", "msgs k/s", "vs UDP",
        "RTT p50 us", "p99 us", "vs ICMP")


def num(s):
    try:
        return float(s)
    except ValueError:
        return None


def spread(vals, fmt):
    """median [min-max] of the numbers among vals, or the first string"""
    v = [num(x) for x in vals]
    if None in v:
        return vals[0] if all(x == vals[0] for x in vals) else "-"
    med = statistics.median(v)
    if len(v) == 1:
        return format(med, fmt)
    return "%s [%s-%s]" % (format(med, fmt), format(min(v), fmt),
                           format(max(v), fmt))


def ratio(a, b):
    a, b = num(a), num(b)
    return a / b if a is not None and b else None


def main():
    rows = [l.split() for l in sys.stdin if l.strip()]
    bad = 0
    ref = {}  # (rep, mtu) -> kernel row
    for rep, m, path, *v in rows:
        if path == "kernel":
            ref[(rep, m)] = v
        bad += "-" in v
    print("# each repetition")
    print("  rep " + FMT % HEAD)
    for rep, m, path, bw, rate, p50, p99 in rows:
        k = ref.get((rep, m), ["-"] * 4)
        r = [ratio(bw, k[0]), ratio(rate, k[1]), ratio(p50, k[2])]
        r = ["%.2fx" % x if x is not None else "-" for x in r]
        print("%5s " % rep + FMT % (m, path, bw, r[0], rate, r[1], p50,
                                    p99, r[2]))
    groups = {}
    for rep, m, path, *v in rows:
        groups.setdefault((m, path), []).append((rep, v))
    reps = len({r[0] for r in rows})
    print("# median [min-max] over %d repetitions; ratios: median of each"
          " repetition's ratio" % reps)
    wide = "%5s %-12s %-21s %6s %-15s %6s %-16s %-25s %6s"
    print(wide % HEAD)
    for (m, path), runs in groups.items():
        cols = list(zip(*(v for _, v in runs)))
        rat = []
        for i in range(3):
            x = [ratio(v[i], ref.get((rep, m), ["-"] * 4)[i])
                 for rep, v in runs]
            x = [y for y in x if y is not None]
            rat.append("%.2fx" % statistics.median(x) if x else "-")
        print(wide % (m, path, spread(cols[0], ".3f"), rat[0],
                      spread(cols[1], ".0f"), rat[1], spread(cols[2], ".1f"),
                      spread(cols[3], ".1f"), rat[2]))
    for m in dict.fromkeys(r[1] for r in rows):
        for base in ("af_packet", "af_packet+tc"):
            x = []
            for rep, v in groups.get((m, "af_xdp"), []):
                a = dict(groups.get((m, base), [])).get(rep)
                if a is not None and ratio(v[2], a[2]) is not None:
                    x.append(ratio(v[2], a[2]))
            if x:
                print("# MTU %s: af_xdp RTT p50 = %.2fx %s (median of %d)" %
                      (m, statistics.median(x), base, len(x)))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
