#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""uet-perf -i (cmdline prompt), driven twice:

  1. a script on stdin (not a terminal: each start runs to its end before
     the next command): settings, rejected values, a msgrate run, show
     stats / pdc / port, an incast run, quit;
  2. a pseudo-terminal (python pty), EAL options before "--": TAB
     completion of values, a long run started, live statistics lines,
     bad arguments during the run, `stop`, the stopped summary and quit.

Checks outputs (behaviour), never timings. Every read is bounded; the EAL
runtime directory of the pty run (own --file-prefix) is removed."""

import os
import pty
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time

SCRIPT = """help
set mode rod
set size 128
set count 3000
set window 16
set fault drop 5000
set cc fixed
set cc cubic
set cc nscc
set spray bogus
set spray reps
set bogus 1
set size abc
set window 0
set fault smoke 10
frobnicate
set size
show bogus
show stats
start
show stats
show pdc
show port
show port stats all
show port info all
set test incast
set peers 3
set mode rud
set count 400
start
show config
quit
"""


def script_run(perf, check):
    p = subprocess.run([perf, "-i", "--interval", "2"], input=SCRIPT,
                       capture_output=True, text=True, timeout=60)
    out = p.stdout
    check(p.returncode == 0, f"script: exit 0 ({p.returncode}) "
          + p.stderr[-400:])
    for want in ("mode = rod", "size = 128", "fault drop = 5000 ppm",
                 "cc = fixed", "cc = nscc",
                 "error: set cc: unknown 'cubic'",
                 "cc cwnd ", " base_rtt ",
                 "error: set spray: expected single, oblivious or reps",
                 "spray = reps",
                 "error: set bogus: unknown setting",
                 "error: set size: 'abc'",
                 "error: set window:",
                 "error: set fault: kind 'smoke'",
                 "error: 'frobnicate': unknown command or bad arguments",
                 "error: 'set size': unknown command or bad arguments",
                 "error: show bogus: expected stats, pdc, port or config",
                 "error: show stats: no run yet",
                 "msgrate started: pds rod, size 128, count 3000",
                 "msgrate: 3000 x 128 B over rod",
                 "delivered 3000, lost 0, duplicated 0, bad 0, order "
                 "errors 0",
                 "msgrate: done, verified",
                 "messages 3000 delivered of 3000 sent",
                 "initiator OPEN rod peer 10.0.0.2",
                 "target OPEN rod peer 10.0.0.1",
                 "(net_ring_perfA, sender)",
                 "(net_ring_perfA, sender): driver net_ring, MAC",
                 "incast: 3 senders -> 1 receiver, 1200 x 128 B over rud",
                 "flow 2: sent 400, delivered 400 msgs",
                 "Jain fairness index",
                 "incast: done, verified",
                 "test incast, pds rud, size 128, count 400",
                 "cc nscc, spray reps,",
                 "runs: 2, 0 failed; the last (incast) verified",
                 "bye (10 rejected commands, 0 of 2 runs failed)"):
        check(want in out, f"script output has {want!r}")
    check("Bad arguments" not in out and "Command not found" not in out,
          "script: every rejected line is answered by uet-perf (counted)")
    check(out.find("uet-perf interactive") < out.find("uet-perf> "),
          "script: the banner comes before the first prompt")
    # a last line without a newline is still a command
    p = subprocess.run([perf, "-i"], input="set size 96\nshow config",
                       capture_output=True, text=True, timeout=60)
    check(p.returncode == 0 and "size 96" in p.stdout.split("show config")[-1],
          "script: a last line without newline runs: "
          + p.stdout[-300:])
    check(out.count("msgs/s") >= 2, "script: live statistics lines")
    check(out.count("uet-perf> ") >= 20, "script: prompt after each command")


class Pty:
    def __init__(self, argv):
        self.pid, self.fd = pty.fork()
        if self.pid == 0:
            os.execv(argv[0], argv)
        self.buf = ""

    def send(self, line):
        os.write(self.fd, (line + "\r").encode())

    def expect(self, text, timeout):
        """Read until @text appears after the current mark; bounded."""
        end = time.monotonic() + timeout
        while text not in self.buf:
            left = end - time.monotonic()
            if left <= 0:
                return False
            r, _, _ = select.select([self.fd], [], [], left)
            if not r:
                continue
            try:
                data = os.read(self.fd, 4096)
            except OSError:
                return False
            if not data:
                return False
            self.buf += data.decode(errors="replace")
        return True

    def close(self):
        """Wait (bounded) for the exit after quit; SIGKILL otherwise."""
        end = time.monotonic() + 10
        while time.monotonic() < end:
            pid, st = os.waitpid(self.pid, os.WNOHANG)
            if pid != 0:
                break
            time.sleep(0.05)
        else:
            os.kill(self.pid, signal.SIGKILL)
            _, st = os.waitpid(self.pid, 0)
        os.close(self.fd)
        return st


def eal_rundirs(prefix):
    """Where the EAL keeps the runtime files of --file-prefix=prefix."""
    bases = ["/var/run/dpdk", "/tmp/dpdk"]
    if os.environ.get("XDG_RUNTIME_DIR"):
        bases.append(os.path.join(os.environ["XDG_RUNTIME_DIR"], "dpdk"))
    return [os.path.join(b, prefix) for b in bases]


def pty_run(perf, check):
    prefix = f"uetcli-{os.getpid()}"
    # EAL options first, as in testpmd; an own prefix to clean up
    t = Pty([perf, "-l", "0", "--no-huge", "-m", "1024", "--no-pci",
             "--no-shconf", f"--file-prefix={prefix}", "--log-level=4",
             "--", "-i", "--interval", "100"])
    try:
        check(t.expect("uet-perf> ", 10), "pty: prompt")
        # TAB completes the key and the value (not only the first word)
        os.write(t.fd, b"set mo\t")
        check(t.expect("set mode ", 10), "pty: TAB completes 'mode'")
        mark = len(t.buf)
        os.write(t.fd, b"ro\t")  # rdline echoes the completed rest
        check(t.expect("rod ", 10) and "rod " in t.buf[mark:],
              "pty: TAB completes 'rod'")
        t.send("")
        check(t.expect("mode = rod", 10), "pty: completed command runs")
        t.send("set count 100000000")
        t.send("set duration 20s")
        t.send("start")
        check(t.expect("msgrate started", 10), "pty: run started")
        mark = len(t.buf)
        check(t.expect("msgs/s", 10), "pty: live statistics line")
        check("[" in t.buf[mark:], "pty: live line has a timestamp")
        t.send("show stats")  # while running: counters of every engine
        check(t.expect("--- sender engine 0", 10), "pty: show stats live")
        check(t.expect("inline progress", 10) and
              "stopped" not in t.buf[mark:],
              "pty: running inline engines are not called stopped")
        t.send("set size abc")  # the bad value is named, run or not
        check(t.expect("error: set size: 'abc'", 10),
              "pty: bad argument reported during a run")
        t.send("set size 64")
        check(t.expect("a run is in progress", 10),
              "pty: good argument refused during a run")
        t.send("stop")
        check(t.expect("stopping", 10), "pty: stop acknowledged")
        check(t.expect("msgrate: done, verified", 20),
              "pty: stopped run ends verified")
        t.send("show stats")
        check(t.expect("(stopped)", 10), "pty: summary says stopped")
        t.send("quit")
        check(t.expect("bye", 10), "pty: quit")
    finally:
        st = t.close()
        left = [d for d in eal_rundirs(prefix) if os.path.exists(d)]
        for d in left:
            shutil.rmtree(d, ignore_errors=True)
    check(os.WIFEXITED(st) and os.WEXITSTATUS(st) == 0,
          "pty: process exited 0 after quit")
    check(not left, f"pty: no EAL runtime directory left ({left})")


def failed_run(perf, check):
    """A run that fails verification for real: without the UDP checksum,
    payload corrupted on the wire reaches the receiver, whose byte check
    sees it. The prompt says so at the run, in show stats and show
    config, and exits 1 like a batch run; a verified run after it does
    not make the exit 0."""
    with tempfile.TemporaryDirectory(prefix="uetp-cli-") as tmp:
        conf = os.path.join(tmp, "nocsum.conf")
        with open(conf, "w") as f:
            f.write("[eal]\nargs = -l 0 --no-huge -m 1024 --no-pci "
                    "--log-level=4\n[port0]\ndevargs = net_ring0\n"
                    "ipv4 = 10.0.0.1\nudp_checksum = false\n")
        script = ("set count 3000\nset fault corrupt 5000\nstart\n"
                  "show stats\nset fault corrupt 0\nstart\nshow config\n"
                  "quit\n")
        p = subprocess.run([perf, "-i", "--config", conf], input=script,
                           capture_output=True, text=True, timeout=60)
        out = p.stdout
        check(p.returncode == 1, f"failed run: prompt exit 1, got "
              f"{p.returncode}")
        for want in ("verified: NO", "msgrate: done, NOT verified",
                     "runs: 1, 1 failed; the last (msgrate) FAILED "
                     "verification (exit status 1 at quit)",
                     "msgrate: done, verified",
                     "runs: 2, 1 failed; the last (msgrate) verified",
                     "bye (0 rejected commands, 1 of 2 runs failed)"):
            check(want in out, f"failed run: output has {want!r}")
        # the same fault from the file: batch exits 1 too
        with open(conf, "a") as f:
            f.write("[fault]\nenabled = true\ntx_data_corrupt_ppm = 5000\n")
        p = subprocess.run([perf, "--config", conf, "--mode", "msgrate",
                            "--count", "3000"], capture_output=True,
                           text=True, timeout=60)
        check(p.returncode == 1 and "verified: NO" in p.stdout,
              f"failed run: batch exit 1, got {p.returncode}")


def set_checked(perf, check):
    """Every set is judged with the rest of the settings when typed, by
    the command line's rules (one function): refused at once, not at
    start, with the reason the command line gives."""
    script = ("set ulp ses\nset mode uud\nset test incast\n"
              "set window 5000\nset mode rod\nset op read\nset ulp raw\n"
              "set tagged on\nset ulp ses\nset tagged on\nset ulp raw\n"
              "show config\nquit\n")
    p = subprocess.run([perf, "-i"], input=script, capture_output=True,
                       text=True, timeout=60)
    out = p.stdout
    check(p.returncode == 0, f"set checks: exit 0, got {p.returncode}")
    reason = "--pds rud or rod (SES operations are reliable)"
    for want in ("ulp = ses",
                 "error: set mode uud: with the other settings (show "
                 "config), --ulp ses: " + reason,
                 "error: set test incast: with the other settings (show "
                 "config), --ulp ses: incast runs over the raw ULP only",
                 "error: set window 5000: with the other settings (show "
                 "config), --ulp ses: --window: at most 4096",
                 "mode = rod", "op = read", "ulp = raw",
                 "error: set tagged on: with the other settings (show "
                 "config), --op/--tagged: need --ulp ses",
                 "tagged = on",
                 "error: set ulp raw: with the other settings (show "
                 "config), --op/--tagged: need --ulp ses",
                 "test msgrate, pds rod,", "ulp ses, op read, tagged",
                 "bye (5 rejected commands, 0 of 0 runs failed)"):
        check(want in out, f"set checks: output has {want!r}")
    p = subprocess.run([perf, "--ulp", "ses", "--pds", "uud"],
                       capture_output=True, text=True, timeout=60)
    check(p.returncode == 2 and
          p.stderr.startswith("uet-perf: --ulp ses: " + reason),
          "set checks: the command line gives the same reason")


def main():
    perf = os.path.abspath(sys.argv[1])
    fails = 0

    def check(cond, what):
        nonlocal fails
        if not cond:
            print("CHECK failed:", what)
            fails += 1

    script_run(perf, check)
    failed_run(perf, check)
    set_checked(perf, check)
    pty_run(perf, check)
    print("PASS" if fails == 0 else f"FAIL: {fails}")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
