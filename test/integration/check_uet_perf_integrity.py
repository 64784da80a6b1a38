#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""uet-perf under the engine's fault injection: what reaches the
application is exactly what was sent, once.

usage: check_uet_perf_integrity.py UET_PERF GROUP [small | xN]
GROUP:
  corrupt  one byte of 0.2 % of the frames (data and ACKs, both engines)
           corrupted: no corrupted byte is delivered (raw RUD / ROD / bw,
           SES send / write / read), the UDP checksum drops them before
           the PDS (rx_csum_bad), retransmission repairs them (the ports
           set udp_checksum = true). Negative control: with udp_checksum
           = false the corrupted SES WRITEs are placed, and uet-perf's
           per-WRITE check reports them; with the default auto (no
           checksum on a ring port, but one while the fault injector
           corrupts) they are dropped on their checksum.
  trim     5 % of the data frames trimmed as a switch trims (UDP length
           and checksum of the original): received as trimmed (not
           malformed), NACKed (TRIMMED) and retransmitted, every message
           delivered exactly once.
  zerocopy SES WRITE and send with port.tx_zero_copy = true on the ring
           port, with and without loss, duplication and reordering:
           payloads of 1 KiB and more sent by reference (and rebuilt
           from the application's buffer when lost), shorter ones
           copied, every byte checked, exactly once; the receiver
           places each chained frame's payload from its second
           segment (rx_chained, rx_split), none copied whole first.
  soak     the exactly-once soak, with the default timers: 20 % loss of
           data and of ACKs, plus trimming, duplication and reordering
           (5 % each, data and ACKs but trimming on data only) and 0.1 %
           corruption, on both engines: raw RUD 10^6 small messages and
           multi-packet ones, raw ROD small and multi-packet, SES SEND,
           WRITE and READ small and multi-packet (1.2 x 10^6 messages in
           all); every byte checked, every message exactly once, no
           completion in error. `small` (sanitizer builds, about 10x
           slower) runs a tenth of every count, `xN` N times every count
           (scripts/soak.sh: the long variant).
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


def config(tmp, name, faults, slow=True,
           port="udp_checksum = true\n"):
    """An engine config: the batch EAL, a slow-build-proof RTO unless
    @slow is false (the checks are counts, not timings) and @faults
    ([fault] keys) on both engines. The UDP checksum is required (auto
    leaves a ring port without): corrupted frames must die on it; @port
    replaces that line."""
    path = os.path.join(tmp, name + ".conf")
    with open(path, "w") as f:
        f.write("[eal]\nargs = -l 0 --no-huge -m 1024 --no-pci "
                "--log-level=4\n[port0]\ndevargs = net_ring0\n"
                "ipv4 = 10.0.0.1\n" + port)
        if slow:
            f.write("[timers]\nrto_init = 10ms\nrto_max = 1s\n")
        f.write("[fault]\nenabled = true\n")
        for k, v in faults.items():
            f.write(f"{k} = {v}\n")
    return path


def run(perf, conf, mode, *args, loss=0, timeout=240):
    """One --json run; its result object or None."""
    cmd = [perf, "--config", conf, "--loss", str(loss), "--mode", mode,
           "--json", *args]
    what = " ".join(cmd[1:])
    try:
        p = subprocess.run(cmd, capture_output=True, text=True,
                           timeout=timeout)
    except subprocess.TimeoutExpired:
        check(False, f"{what}: bounded ({timeout} s)")
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
    check(rx.get("rx_order_err", 0) == 0, f"{what}: in order (ROD)")
    check(r["payload_checked"] is True, f"{what}: payload checked")
    if r["ulp"] == "ses":
        check(r["ses"]["completion_errors"] == 0,
              f"{what}: no completion error")
    if "wire" not in r:
        check(False, f"{what}: wire counters reported")
        r["wire"] = {"faults": {}, "rx_csum_bad": 0, "rx_trimmed": 0,
                     "rx_malformed": 0}
    w = r["wire"]
    print(f"{what}: {r['count']} msgs in {r['seconds']:.1f} s "
          f"({r['msgs_per_s']:.0f} msgs/s), faults {w['faults']}, rx_csum_bad "
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
    unprotected_writes(perf, tmp, "false")
    unprotected_writes(perf, tmp, "auto")


def write_conf(tmp, csum):
    """One ring engine whose WRITE frames are corrupted, its port's
    udp_checksum @csum (auto: the default, the key left out)."""
    conf = os.path.join(tmp, f"nocsum-{csum}.conf")
    key = "" if csum == "auto" else f"udp_checksum = {csum}\n"
    with open(conf, "w") as f:
        f.write("[eal]\nargs = -l 0 --no-huge -m 1024 --no-pci "
                "--log-level=4\n[port0]\ndevargs = net_ring0\n"
                f"ipv4 = 10.0.0.1\n{key}[timers]\n"
                "rto_init = 10ms\nrto_max = 1s\n[fault]\nenabled = true\n"
                "tx_data_corrupt_ppm = 2000\n")
    return conf


def unprotected_writes(perf, tmp, csum):
    """@csum false, the negative control: without the checksum,
    corrupted WRITEs are placed, and uet-perf's verification sees each of
    them at its completion (checking only the last WRITE into each of the
    16 region slots at the end saw 1 of 22 such writes). @csum auto, the
    default, which leaves a ring port without a checksum: not while the
    fault injector corrupts frames, so the same run is protected."""
    conf = write_conf(tmp, csum)
    cmd = [perf, "--config", conf, "--loss", "0", "--ulp", "ses", "--mode",
           "bw", "--op", "write", "--verify", "--size", "16K", "--count",
           "1000", "--seed", "3", "--json"]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=240)
    what = f"udp_checksum {csum}"
    want = 0 if csum == "auto" else 1
    check(p.returncode == want, f"{what}: exit {p.returncode}, want {want}")
    try:
        r = json.loads(p.stdout)["results"]["bw"]
    except (ValueError, KeyError):
        check(False, f"{what}: JSON: {p.stdout[-300:]}")
        return
    bad = r["receiver"]["rx_bad"]
    print(f"{what}: {r['wire']['faults']['corrupt']} corrupted frames, "
          f"{bad} bad writes seen, {r['wire']['rx_csum_bad']} checksum "
          f"failures")
    if csum == "auto":
        check(bad == 0, f"{what}: no corrupted write placed")
        check(r["wire"]["rx_csum_bad"] > 0,
              f"{what}: corrupted frames dropped on their checksum")
        return
    check(bad > 1, f"{what}: corrupted writes seen at their completion")
    check(r["wire"]["rx_csum_bad"] == 0, f"{what}: no checksum verified")


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
        # every trimmed frame is sent again (on its NACK, or earlier by
        # SACK or RTO when the machine is slow: counts, not timings)
        check(r["retransmissions"] >= w["rx_trimmed"],
              f"{what}: every trimmed frame resent")
        if r["ulp"] == "raw":
            check(r["recovery"]["retx_trim"] > 0,
                  f"{what}: trim NACKs acted on")


# SES runs whose payloads go by reference (port.tx_zero_copy = true):
# multi-packet and single-packet WRITEs and sends, small ones copied.
ZC_RUNS = [
    ("bw", ["--ulp", "ses", "--op", "write", "--verify", "--size", "64K",
            "--count", "400"]),
    ("bw", ["--ulp", "ses", "--op", "send", "--verify", "--size", "16K",
            "--count", "1000"]),
    ("bw", ["--ulp", "ses", "--op", "write", "--verify", "--size", "3000",
            "--count", "2000"]),
    ("bw", ["--ulp", "ses", "--op", "write", "--verify", "--size", "256",
            "--count", "2000"]),
]


def group_zerocopy(perf, tmp):
    """Zero-copy transmit on a ring port, without faults and under loss,
    duplication and reordering of data and ACKs (every lost frame is
    rebuilt from the application's buffer): every byte checked, exactly
    once, payloads of 1 KiB and more sent by reference, shorter ones
    copied."""
    port = "udp_checksum = false\ntx_zero_copy = true\n"
    faults = {"tx_data_drop_ppm": 20000, "tx_data_dup_ppm": 20000,
              "tx_data_reorder_ppm": 20000, "tx_control_drop_ppm": 20000}
    for name, fl in (("zc", {"tx_data_drop_ppm": 0}), ("zcfault", faults)):
        conf = config(tmp, name, fl, port=port)
        for mode, args in ZC_RUNS:
            r = run(perf, conf, mode, *args)
            if r is None:
                continue
            what = f"{name} {mode} {' '.join(args)}"
            ini = r["ses"]["initiator"]
            big = int(args[args.index("--size") + 1].rstrip("K")) * \
                (1024 if args[args.index("--size") + 1].endswith("K") else 1)
            print(f"{what}: frag_tx {ini['frag_tx']} tx_ref {ini['tx_ref']}"
                  f" msg_tx_wait {ini['msg_tx_wait']}")
            tgt, w = r["ses"]["target"], r["wire"]
            print(f"{what}: rx_chained {w['rx_chained']} rx_linearized "
                  f"{w['rx_linearized']} rx_split {tgt['rx_split']} "
                  f"rx_flat {tgt['rx_flat']}")
            if big >= 1024:
                check(ini["tx_ref"] >= ini["frag_tx"],
                      f"{what}: every fragment by reference "
                      f"({ini['tx_ref']} of {ini['frag_tx']})")
                # received as sent (the fault injector only drops,
                # duplicates and reorders): each payload placed from
                # the sender's segment, never copied whole first, but
                # where an injected duplicate (a copy, one segment)
                # arrived before its original
                dups = w["faults"]["dup"]
                check(w["rx_chained"] >= ini["frag_tx"] - dups and
                      tgt["rx_split"] >= ini["frag_tx"] - dups and
                      tgt["rx_split"] > 0,
                      f"{what}: every fragment placed from its chain "
                      f"({w['rx_chained']} chained, {tgt['rx_split']} "
                      f"placed, of {ini['frag_tx']}, {dups} duplicates)")
                check(w["rx_linearized"] == 0 and tgt["rx_flat"] == 0,
                      f"{what}: no chain copied whole first")
            else:
                check(ini["tx_ref"] == 0, f"{what}: short payloads copied")
                check(w["rx_chained"] == 0, f"{what}: no chains")
            if name == "zcfault":
                check(r["retransmissions"] > 0, f"{what}: retransmitted")


# The soak's fault mix, per engine and direction of transmission.
SOAK_FAULTS = {
    "tx_data_drop_ppm": 200000,       # --loss
    "tx_data_trim_ppm": 50000,
    "tx_data_dup_ppm": 50000,
    "tx_data_reorder_ppm": 50000,
    "tx_data_corrupt_ppm": 1000,
    "tx_control_drop_ppm": 200000,
    "tx_control_dup_ppm": 50000,
    "tx_control_reorder_ppm": 50000,
    "tx_control_corrupt_ppm": 1000,
}

# (mode, arguments, messages): small and multi-packet (4 KiB: 3 packets,
# 16 KiB: 12 packets at MTU 1500) over raw RUD and ROD and the SES.
SOAK_RUNS = [
    ("msgrate", ["--pds", "rud"], 1000000),
    ("bw", ["--pds", "rud", "--size", "4K", "--window", "64"], 20000),
    ("msgrate", ["--pds", "rod", "--window", "16"], 20000),
    ("bw", ["--pds", "rod", "--size", "4K", "--window", "16"], 2000),
    ("msgrate", ["--ulp", "ses", "--verify"], 100000),
    ("bw", ["--ulp", "ses", "--op", "send", "--verify", "--size", "16K"],
     5000),
    ("bw", ["--ulp", "ses", "--op", "write", "--verify", "--size", "64"],
     20000),
    ("bw", ["--ulp", "ses", "--op", "write", "--verify", "--size", "16K"],
     5000),
    ("bw", ["--ulp", "ses", "--op", "read", "--verify", "--size", "64"],
     20000),
    ("bw", ["--ulp", "ses", "--op", "read", "--verify", "--size", "16K"],
     5000),
]


def group_soak(perf, tmp, scale):
    # --seed 2 (fault injection and PDS seeds; it overrides the config's):
    # with the old defaults (5 retries) 10^6 raw RUD messages at 20 % data
    # loss failed 53 completions
    conf = config(tmp, "soak", SOAK_FAULTS, slow=False)
    total = 0
    faults = {}
    for mode, args, count in SOAK_RUNS:
        n = max(count // 10, 200) if scale == 0 else count * scale
        r = run(perf, conf, mode, "--count", str(n), "--seed", "2", *args,
                loss=SOAK_FAULTS["tx_data_drop_ppm"],
                timeout=240 * max(scale, 1))
        if r is None:
            continue
        what = f"{mode} {' '.join(args)}"
        check(r["count"] == n and r["receiver"]["rx_msgs"] == n,
              f"{what}: {n} messages delivered")
        check(r["sender"].get("done_err", 0) == 0,
              f"{what}: no completion in error")
        for k, v in r["wire"]["faults"].items():
            faults[k] = faults.get(k, 0) + v
        total += r["receiver"]["rx_msgs"]
    for k in ("drop", "trim", "dup", "reorder", "corrupt"):
        check(faults.get(k, 0) > 0, f"soak: {k} faults injected")
    print(f"soak: {total} messages delivered exactly once, faults {faults}")


def main():
    if len(sys.argv) not in (3, 4):
        print(__doc__)
        return 2
    perf, group = sys.argv[1], sys.argv[2]
    scale = 1
    if len(sys.argv) == 4:
        arg = sys.argv[3]
        if arg == "small":
            scale = 0
        elif arg[:1] == "x" and arg[1:].isdigit() and \
                1 <= int(arg[1:]) <= 100:
            scale = int(arg[1:])
        else:
            print(__doc__)
            return 2
    groups = {"corrupt": group_corrupt, "trim": group_trim,
              "zerocopy": group_zerocopy,
              "soak": lambda p, t: group_soak(p, t, scale)}
    if group not in groups:
        print(__doc__)
        return 2
    with tempfile.TemporaryDirectory(prefix=f"uetint{os.getpid()}") as tmp:
        groups[group](perf, tmp)
    print(f"{group}: {'ok' if fails == 0 else f'{fails} checks failed'}")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
