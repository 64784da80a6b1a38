#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""uet-perf with the transport security sublayer on ([tss], direct mode,
and cluster mode with a key rotation every 1024 TSCs, docs/TSS.md), in
one process over ring ports, under the engine's fault
injector acting on the protected frames as a hostile wire would: loss,
duplication (replays), reordering, bit flips (forged ICVs; the UDP
checksum off, so that the ICV is what catches them) and switch trimming, on data and ACKs of both engines. And, without faults, with
the UDP checksum on: protected frames and those of a job in no domain
(which stay clear) all arrive with a right checksum or, protected, none.

Checked, per PMD present (crypto_aesni_gcm, crypto_openssl; cluster
mode with crypto_aesni_gcm, at half the counts): every
message delivered exactly once and byte exact (raw RUD, raw ROD, SES
SEND and WRITE); every protected frame that arrived either opened or
dropped by a named reason; the duplicates dropped as replays, the
flipped frames dropped as failed ICVs, the trimmed ones as trimmed
(a trimmed protected frame cannot be authenticated), none of them given
to the PDS; in cluster mode, keys derived on both sides, several
rotations each run (exactly once across them). Counts, never timings.

usage: check_uet_perf_tss.py UET_PERF [small]
small (sanitizer builds, about 5x slower): a quarter of every count."""

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


def config(tmp, pmd, cluster):
    key = os.path.join(tmp, "sdi7.key")
    with open(key, "w") as f:
        f.write(os.urandom(32).hex() + "\n")
    os.chmod(key, 0o600)
    # the TSC reservations (one file per engine address and key)
    state = os.path.join(tmp, "state")
    os.makedirs(state, mode=0o700, exist_ok=True)
    path = os.path.join(tmp, pmd + ("_cluster" if cluster else "") +
                        ".conf")
    with open(path, "w") as f:
        # no UDP checksum: the flipped bits reach the TSS, whose ICV
        # must catch them (with it, the checksum drops them first)
        f.write("[eal]\nargs = -l 0 --no-huge -m 1024 --no-pci "
                "--log-level=4\n[port0]\ndevargs = net_ring0\n"
                "ipv4 = 10.0.0.1\nudp_checksum = false\n")
        f.write("[timers]\nrto_init = 10ms\nrto_max = 1s\n")
        f.write(f"[tss]\nenabled = true\npmd = {pmd}\nstate_dir = {state}\n"
                f"replay_window = 256\ndomain.7 = 1-4095 {key}\n")
        if cluster:
            f.write(f"mode = cluster\nrekey_interval = {REKEY}\n")
        f.write("[fault]\nenabled = true\n")
        for cls in ("data", "control"):
            f.write(f"tx_{cls}_drop_ppm = 20000\n"
                    f"tx_{cls}_dup_ppm = 20000\n"
                    f"tx_{cls}_reorder_ppm = 20000\n"
                    f"tx_{cls}_corrupt_ppm = 5000\n")
        f.write("tx_data_trim_ppm = 20000\n")
    return path


REKEY = 1024  # [tss] rekey_interval of the cluster configuration


def config_csum(tmp, jobs):
    """UDP checksums on, no faults, domain 7 for JobIDs @jobs."""
    key = os.path.join(tmp, "csum.key")
    with open(key, "w") as f:
        f.write(os.urandom(32).hex() + "\n")
    os.chmod(key, 0o600)
    state = os.path.join(tmp, "state")
    os.makedirs(state, mode=0o700, exist_ok=True)
    path = os.path.join(tmp, f"csum_{jobs}.conf")
    with open(path, "w") as f:
        f.write("[eal]\nargs = -l 0 --no-huge -m 1024 --no-pci "
                "--log-level=4\n[port0]\ndevargs = net_ring0\n"
                "ipv4 = 10.0.0.1\nudp_checksum = true\n")
        f.write("[tss]\nenabled = true\npmd = crypto_aesni_gcm\n"
                f"state_dir = {state}\ndomain.7 = {jobs} {key}\n")
    return path


CSUM_RUNS = [
    ("msgrate", ["--ulp", "ses", "--verify", "--count", "2000"]),
]


def csum_runs(perf, tmp):
    """The UDP checksum with [tss] on: the builder leaves it to the
    sealer, which sends a protected frame without one and completes it
    for a frame that stays clear (a job in no domain): every frame
    arrives with a right one or, protected, none."""
    for jobs, secure in (("1-4095", True), ("4000-4095", False)):
        conf = config_csum(tmp, jobs)
        for mode, args in CSUM_RUNS:
            r = run(perf, conf, mode, args)
            if r is None:
                continue
            w = r["wire"]
            what = f"checksum on, domain 7 = {jobs}, {mode}"
            check(w["rx_csum_bad"] == 0 and w["rx_csum_none"] == 0,
                  f"{what}: no checksum drop ({w['rx_csum_bad']}, "
                  f"{w['rx_csum_none']})")
            check((w["tss"]["sealed"] > 0) == secure,
                  f"{what}: sealed {w['tss']['sealed']}")

RUNS = [
    ("msgrate", ["--pds", "rud", "--count", "20000"]),
    ("msgrate", ["--pds", "rod", "--window", "32", "--count", "5000"]),
    ("msgrate", ["--ulp", "ses", "--verify", "--count", "5000"]),
    ("bw", ["--ulp", "ses", "--op", "write", "--verify", "--size", "16K",
            "--count", "300"]),
]


def scaled(args, div):
    """--count N of @args divided by @div."""
    out = list(args)
    i = out.index("--count")
    out[i + 1] = str(max(int(out[i + 1]) // div, 100))
    return out


def run(perf, conf, mode, args):
    cmd = [perf, "--config", conf, "--loss", "0", "--mode", mode, "--json",
           *args]
    what = " ".join(cmd[2:])
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=240)
    except subprocess.TimeoutExpired:
        check(False, f"{what}: bounded (240 s)")
        return None
    check(p.returncode == 0, f"{what}: exit 0 (got {p.returncode}): "
          f"{p.stderr[-400:]}")
    try:
        r = json.loads(p.stdout)["results"][mode]
    except (ValueError, KeyError):
        check(False, f"{what}: JSON: {p.stdout[-300:]}")
        return None
    rx = r["receiver"]
    check(r["verified"] is True and r["complete"] is True,
          f"{what}: verified, complete")
    for k in ("rx_bad", "rx_dup", "rx_lost", "rx_order_err"):
        check(rx.get(k, 0) == 0, f"{what}: {k} 0 (got {rx.get(k)})")
    if r["ulp"] == "ses":
        check(r["ses"]["completion_errors"] == 0, f"{what}: no completion "
              "error")
    w = r["wire"]
    t = w["tss"]
    print(f"{what}: faults {w['faults']}, tss {t}")
    return r


def totals(rs):
    f, d = {}, {}
    sealed = opened = keys = 0
    for r in rs:
        for k, v in r["wire"]["faults"].items():
            f[k] = f.get(k, 0) + v
        for k, v in r["wire"]["tss"]["drop"].items():
            d[k] = d.get(k, 0) + v
        sealed += r["wire"]["tss"]["sealed"]
        opened += r["wire"]["tss"]["opened"]
        keys += r["wire"]["tss"]["keys"]
    return f, d, sealed, opened, keys


def main():
    perf = sys.argv[1]
    div = 4 if len(sys.argv) > 2 and sys.argv[2] == "small" else 1
    setups = [("crypto_aesni_gcm", False), ("crypto_openssl", False),
              ("crypto_aesni_gcm", True)]
    with tempfile.TemporaryDirectory() as tmp:
        csum_runs(perf, tmp)
        for pmd, cluster in setups:
            conf = config(tmp, pmd, cluster)
            rs = [r for r in (run(perf, conf, m,
                                  scaled(a, div * (2 if cluster else 1)))
                              for m, a in RUNS)
                  if r is not None]
            if len(rs) != len(RUNS):
                continue
            f, d, sealed, opened, keys = totals(rs)
            if cluster:
                pmd += " cluster"
                # per run, four keys to start (each engine's own and
                # the peer's), two more each time one source rotates
                # (its new key, derived on both sides). How the frames
                # split between the two sources depends on ACK
                # coalescing, but one of them sealed at least half:
                # more than REKEY of them is a rotation for certain.
                need = sum(4 + 2 * (((r["wire"]["tss"]["sealed"] + 1) // 2
                                     - 1) // REKEY) for r in rs)
                check(keys >= need and keys > 4 * len(RUNS),
                      f"{pmd}: keys derived across rotations ({keys}, "
                      f"at least {need} and one rotation)")
            else:
                check(keys == 0, f"{pmd}: no key derived ({keys})")
            check(sealed > 0 and opened > 0, f"{pmd}: frames protected")
            check(f["dup"] > 0 and d["replay"] + d["old"] > 0,
                  f"{pmd}: duplicates dropped as replays ({d})")
            check(f["corrupt"] > 0 and d["auth"] > 0,
                  f"{pmd}: flipped frames dropped on their ICV ({d})")
            check(f["trim"] > 0 and d["trimmed"] > 0,
                  f"{pmd}: trimmed frames dropped ({d})")
            # no protected frame counted twice: at most those put on the
            # wire (sealed, plus the duplicates, minus the drops; a flip
            # in the outer headers is dropped before the TSS, and frames
            # still held by a reorder fault at the end never arrive)
            arrived = sealed + f["dup"] - f["drop"]
            dropped = sum(d.values())
            check(opened + dropped <= arrived,
                  f"{pmd}: opened {opened} + dropped {dropped} <= "
                  f"arrived {arrived}")
            # (a flip in the clear TSS header is dropped as "sdi",
            # "epoch", "header" or "old": legitimate; these are not)
            for k in ("inner", "job", "clear", "crypto", "sources",
                      "unsupported"):
                check(d[k] == 0, f"{pmd}: no {k} drop ({d[k]})")
    print("FAILED" if fails else "OK")
    return 1 if fails else 0


sys.exit(main())
