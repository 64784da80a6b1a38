#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""uet-perf never leaves an EAL runtime directory behind, whatever ends it:
a configuration error, an EAL that fails half-way (after making its
directory), a normal exit, SIGTERM or SIGINT during a run; a directory that
was there before (a shared --file-prefix) keeps what it holds; the reader
of its output gone (SIGPIPE) too. The EAL is
pointed at a directory of the test's own with RUNTIME_DIRECTORY (DPDK's
systemd convention), so the test sees only its own processes and leaves
nothing in /var/run/dpdk."""

import os
import signal
import subprocess
import sys
import tempfile
import time

# two engines with the default pool of jumbo mbufs (net_ring at mtu
# auto: 2 x 152 MB)
EAL = "-l 0 --no-huge -m 512 --no-pci --log-level=4"


def main():
    perf = sys.argv[1]
    fails = 0
    tmpd = tempfile.TemporaryDirectory(prefix="uetp-eal-")
    rundir = os.path.join(tmpd.name, "run")
    dpdk = os.path.join(rundir, "dpdk")
    os.mkdir(rundir)
    env = dict(os.environ, RUNTIME_DIRECTORY=rundir)

    def check(cond, what):
        nonlocal fails
        if not cond:
            print("CHECK failed:", what)
            fails += 1

    def left():
        return sorted(os.listdir(dpdk)) if os.path.isdir(dpdk) else []

    def run(*args):
        p = subprocess.Popen([perf, *args], env=env, text=True,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        out, err = p.communicate(timeout=120)
        return p.pid, p.returncode, out, err

    # an empty value: refused with the key named, before any EAL
    conf = os.path.join(tmpd.name, "empty.conf")
    with open(conf, "w") as f:
        f.write("[eal]\nargs =\n")
    pid, rc, _, err = run("--config", conf, "--mode", "latency",
                          "--count", "10")
    check(rc == 2, f"empty [eal] args: exit 2, got {rc}")
    check("[eal] args: empty value" in err and conf + ":2:" in err,
          "empty [eal] args: file, line, section and key named: " + err)
    check(left() == [], f"empty [eal] args: left {left()}")

    # the EAL fails after making its directory (100 TB of memory)
    for extra in ([], ["--file-prefix=uetprobe"]):
        args = ["-l", "0", "--no-huge", "-m", "100000000", "--no-pci",
                *extra, "--", "--mode", "latency", "--count", "10"]
        pid, rc, _, err = run(*args)
        check(rc == 1, f"EAL failure {extra}: exit 1, got {rc}")
        check("EAL init failed: Cannot allocate memory" in err,
              f"EAL failure {extra}: reason: " + err[-300:])
        check(left() == [], f"EAL failure {extra}: left {left()}")

    # a directory that was there before is not this process's to empty
    # (the EAL's own files in it stay too, as DPDK leaves them)
    shared = os.path.join(dpdk, "uetshared")
    os.makedirs(shared)
    with open(os.path.join(shared, "keep"), "w") as f:
        f.write("another process's file\n")
    pid, rc, _, _ = run("-l", "0", "--no-huge", "-m", "100000000",
                        "--no-pci", "--file-prefix=uetshared", "--",
                        "--mode", "latency", "--count", "10")
    check(rc == 1 and "keep" in os.listdir(shared),
          f"shared prefix: kept ({rc}, {os.listdir(shared)})")
    subprocess.run(["rm", "-rf", shared], check=True)

    pid, rc, out, err = run(*EAL.split(), "--", "--mode", "latency",
                            "--count", "200")
    check(rc == 0 and "verified: yes" in out, f"normal run: {rc} {err}")
    check(left() == [], f"normal run: left {left()}")

    # a signal during a run (the EAL's telemetry socket is in there)
    for sig in (signal.SIGTERM, signal.SIGINT):
        p = subprocess.Popen([perf, *EAL.split(), "--", "--mode", "msgrate",
                              "--duration", "60s"], env=env,
                             stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL)
        mine = os.path.join(dpdk, f"uet{p.pid}")
        for _ in range(200):  # up to 20 s for the EAL to come up
            if os.path.exists(os.path.join(mine, "dpdk_telemetry.v2")):
                break
            time.sleep(0.1)
        check(os.path.isdir(mine), f"{sig.name}: the run made {mine}")
        time.sleep(0.2)
        p.send_signal(sig)
        try:
            rc = p.wait(timeout=30)
        except subprocess.TimeoutExpired:
            p.kill()
            rc = p.wait()
        check(rc == -sig, f"{sig.name}: ended by it, got {rc}")
        check(left() == [], f"{sig.name}: left {left()}")

    # the reader of its output gone (uet-perf ... | head -1): SIGPIPE
    p = subprocess.Popen([perf, *EAL.split(), "--", "--mode", "msgrate",
                          "--duration", "60s", "--interval", "20"], env=env,
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    first = p.stdout.readline()
    p.stdout.close()
    try:
        rc = p.wait(timeout=30)
    except subprocess.TimeoutExpired:
        p.kill()
        rc = p.wait()
    check(first.startswith(b"uet-perf:") and rc == -signal.SIGPIPE,
          f"SIGPIPE: ended by it, got {rc} after {first[:40]!r}")
    check(left() == [], f"SIGPIPE: left {left()}")

    for name in left():  # never leave anything, even on failure
        subprocess.run(["rm", "-rf", os.path.join(dpdk, name)], check=False)
    print("eal runtime directory checks:", "FAIL" if fails else "ok")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
