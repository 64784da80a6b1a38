#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""uet-perf --role server|client: two processes, each with its own EAL
(--no-shconf, own --file-prefix, --no-huge) pinned to its own core, that
exchange UET traffic through their engines.

  check_uet_perf_2proc.py UET_PERF memif   two processes over net_memif;
                                           at its default MTU (auto:
                                           9000) 8000-byte messages
                                           travel as one frame each; a
                                           side at 1500 is refused at
                                           start-up
  check_uet_perf_2proc.py UET_PERF netns   two network namespaces joined by
                                           a veth pair, net_af_packet
  check_uet_perf_2proc.py UET_PERF jumbo   the same at MTU 9000 (veth and
                                           port0.mtu): 8000-byte messages
                                           travel as one frame each
  check_uet_perf_2proc.py UET_PERF afxdp   net_af_xdp on the veth pair (its
                                           XDP program takes every frame),
                                           control over a second veth pair;
                                           the server's queue held by
                                           another AF_XDP socket for a
                                           second, then for good

The checks are behaviour only: traffic flowed through both engines, every
payload byte was verified, loss was injected and repaired. Timings are
printed, never asserted. Exit 77 (skip) for netns when not root or without
`ip netns`. Everything created (temp dir, namespaces) is removed."""

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

COUNT = 2000
# runs that a kill or a SIGSTOP ends: --duration alone would make the
# server track 100 M messages (300 MB of calloc(), which MALLOC_PERTURB_,
# set by meson test, turns into a memset of seconds on a loaded machine,
# longer than the --ctl-timeout the client waits for READY)
LONG_COUNT = 5000000
MEMIF_COUNT = 300  # 8000-byte messages over memif, per mode
BW_COUNT = 200
DEADLINE = 50.0  # whole test, seconds (afxdp: AFXDP_DEADLINE)
AFXDP_DEADLINE = 70.0


def conf(path, core, prefix, devargs, fa, mac, mtu=1500):
    """The engine probes the port itself (not an EAL --vdev): a memif
    port is then probed, started, stopped and closed with the engine's
    port gate holding memif's control channel off it (docs/ENGINE.md).
    @mtu None: no mtu key (auto)."""
    mtu_line = "" if mtu is None else f"mtu = {mtu}\n"
    with open(path, "w") as f:
        f.write(f"""[eal]
args = -l {core} --no-shconf --file-prefix={prefix} --no-huge -m 256 \
--no-pci --log-level=4

[port0]
devargs = {devargs}
ipv4 = {fa}
mac = {mac}
{mtu_line}
[engine]
lcores = {core}
progress = inline
mbuf_pool_size = 8191

# slow builds (ASan) under load answer late: do not give up on a PDC
[timers]
rto_init = 10ms
rto_max = 1s
rto_max_retries = 12
""")


class Run:
    def __init__(self, deadline):
        self.procs = []
        self.fails = 0
        self.t_end = time.monotonic() + deadline

    def check(self, cond, what):
        if not cond:
            print("CHECK failed:", what)
            self.fails += 1

    def left(self):
        return max(1.0, self.t_end - time.monotonic())

    def spawn(self, argv):
        p = subprocess.Popen(argv, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
        self.procs.append(p)
        return p

    def kill_all(self):
        for p in self.procs:
            if p.poll() is None:
                p.kill()
            p.wait()

    def server_port(self, srv):
        """First stdout line of the server: 'listening on port N'."""
        line = srv.stdout.readline()  # bounded: server accept times out
        if "listening on port" not in line:
            srv.wait(timeout=5) if line == "" else None
            err = srv.stderr.read() if srv.poll() is not None else ""
            print("server did not listen:", line.strip(), err.strip())
            return None
        return int(line.split()[-1])

    def pair(self, prefix, srv_conf, cli_conf, ctl_host, extra=(),
             cli_extra=(), count=COUNT, loss=10000):
        """Server + client session of @count messages per mode; checks
        of both sides. @extra goes to both, @cli_extra to the client
        only."""
        srv = self.spawn([*prefix[0], PERF, "--role", "server",
                          "--config", srv_conf, "--ctl", f"{ctl_host}:0",
                          "--ctl-timeout", "5s", "--json", *extra])
        port = self.server_port(srv)
        self.check(port is not None, "server printed its control port")
        if port is None:
            return
        cli = self.spawn([*prefix[1], PERF, "--role", "client",
                          "--config", cli_conf, "--ctl", f"{ctl_host}:{port}",
                          "--ctl-timeout", "5s", "--mode", "msgrate,latency",
                          "--count", str(count), "--loss", str(loss),
                          "--window", "128", "--json", *extra, *cli_extra])
        try:
            cout, cerr = cli.communicate(timeout=self.left())
            sout, serr = srv.communicate(timeout=self.left())
        except subprocess.TimeoutExpired:
            self.check(False, "client and server finished in time")
            return
        self.check(cli.returncode == 0, f"client exit 0 (got "
                   f"{cli.returncode}), stderr: {cerr[-800:]}")
        self.check(srv.returncode == 0, f"server exit 0 (got "
                   f"{srv.returncode}), stderr: {serr[-800:]}")
        try:
            doc = json.loads(cout)
            sdoc = json.loads(sout.strip().splitlines()[-1])
        except (ValueError, IndexError):
            self.check(False, "client and server print JSON: "
                       + cout[-300:] + " / " + sout[-300:])
            return
        self.check(doc["verified"] is True and sdoc["verified"] is True,
                   "both sides verified")
        self.check(doc["processes"] == 2, "two processes")
        runs = {x["mode"]: x for x in sdoc.get("runs", [])}
        self.check(set(runs) == {"msgrate", "latency"} and
                   runs["msgrate"]["rx_msgs"] == count and
                   runs["msgrate"]["rx_bad"] == 0 and
                   runs["latency"]["msgs_sent"] == count,
                   "server JSON: what it received and answered")
        self.check(doc["static_neighbor"] is ("--arp" not in extra),
                   "neighbour resolution as asked")
        res = doc["results"]
        self.check(set(res) == {"msgrate", "latency"}, "both modes ran")
        m = res["msgrate"]
        rx = m["receiver"]
        self.check(rx["rx_msgs"] == count and rx["rx_lost"] == 0 and
                   rx["rx_dup"] == 0 and rx["rx_bad"] == 0,
                   "msgrate: server got every message once, bytes verified")
        self.check(rx["rx_bytes"] == count * m["size"], "msgrate bytes")
        self.check(m["faults_dropped"] > 0 and
                   m["retransmissions"] >= m["faults_dropped"],
                   "msgrate: injected loss was retransmitted")
        self.check(m["acks"] > 0, "msgrate: the server's PDS sent ACKs")
        # the sender's (this side's) retransmissions by reason: they
        # printed 0 in two processes whatever was resent
        rec = m["recovery"]
        resent = sum(rec[k] for k in ("retx_sack", "retx_again", "retx_nack",
                                      "retx_trim", "retx_rto", "retx_probe",
                                      "retx_tlp", "retx_backoff"))
        self.check(0 < resent <= m["retransmissions"],
                   f"msgrate: recovery counters say why the sender resent "
                   f"({resent} of {m['retransmissions']})")
        lat = res["latency"]
        self.check(lat["latency_ns"]["n"] == count and
                   lat["sender"]["pongs"] == count and
                   lat["sender"]["rx_bad"] == 0 and
                   lat["receiver"]["rx_msgs"] == count and
                   lat["receiver"]["msgs_sent"] == count,
                   "latency: every ping answered, both directions verified")
        print(f"msgrate {m['msgs_per_s']:.0f} msgs/s retx "
              f"{m['retransmissions']} ({resent} by reason); latency p50 "
              f"{lat['latency_ns']['p50']:.0f} ns")
        return doc


    def peer_dies(self, prefix, srv_conf, cli_conf, ctl_host, victim):
        """Kill one side mid-run: the other exits 1 with one line, soon.
        The death is seen on the control socket at once; --ctl-timeout
        only bounds the start (6 s: a loaded host took over 3 s to get
        the first messages through)."""
        srv = self.spawn([*prefix[0], PERF, "--role", "server",
                          "--config", srv_conf, "--ctl", f"{ctl_host}:0",
                          "--ctl-timeout", "6s"])
        port = self.server_port(srv)
        if port is None:
            self.check(False, f"{victim} dies: server started")
            return
        cli = self.spawn([*prefix[1], PERF, "--role", "client",
                          "--config", cli_conf,
                          "--ctl", f"{ctl_host}:{port}", "--ctl-timeout", "6s",
                          "--mode", "msgrate", "--duration", "20s",
                          "--count", str(LONG_COUNT), "--interval", "50"])
        line = cli.stdout.readline()  # client banner
        line = cli.stdout.readline()  # first live statistics line
        self.check("msgs/s" in line, f"{victim} dies: traffic was running "
                   f"({line.strip()!r}" + ("" if line else ", client: " +
                   cli.stderr.read()[-600:]) + ")")
        dead, other = (srv, cli) if victim == "server" else (cli, srv)
        dead.kill()
        dead.wait()
        try:
            _, err = other.communicate(timeout=min(10.0, self.left()))
        except subprocess.TimeoutExpired:
            self.check(False, f"{victim} dies: the other side exits "
                       "(no hang)")
            return
        lines = [x for x in err.splitlines() if x.startswith("uet-perf:")]
        self.check(other.returncode == 1 and len(lines) == 1,
                   f"{victim} dies: other side exit 1 with one line (got "
                   f"{other.returncode}: {err.strip()!r})")


    def peer_freezes(self, prefix, srv_conf, cli_conf, ctl_host):
        """SIGSTOP the client mid-run: its socket stays open, so only the
        data path tells; the server ends with one line, exit 1, within
        its --ctl-timeout (not the run limit of duration + 10 s)."""
        srv = self.spawn([*prefix[0], PERF, "--role", "server",
                          "--config", srv_conf, "--ctl", f"{ctl_host}:0",
                          "--ctl-timeout", "2s"])
        port = self.server_port(srv)
        if port is None:
            self.check(False, "client freezes: server started")
            return
        cli = self.spawn([*prefix[1], PERF, "--role", "client",
                          "--config", cli_conf,
                          "--ctl", f"{ctl_host}:{port}", "--ctl-timeout", "2s",
                          "--mode", "msgrate", "--duration", "60s",
                          "--count", str(LONG_COUNT), "--interval", "50"])
        cli.stdout.readline()  # client banner
        line = cli.stdout.readline()  # first live statistics line
        self.check("msgs/s" in line, "client freezes: traffic was running "
                   f"({line.strip()!r})")
        os.kill(cli.pid, signal.SIGSTOP)
        try:
            _, err = srv.communicate(timeout=min(15.0, self.left()))
        except subprocess.TimeoutExpired:
            self.check(False, "client freezes: the server ends in bounded "
                       "time (no wait for the 70 s run limit)")
            err = ""
        finally:
            cli.kill()  # SIGKILL ends a stopped process too
            cli.wait()
        lines = [x for x in err.splitlines() if x.startswith("uet-perf:")]
        self.check(srv.returncode == 1 and len(lines) == 1 and
                   "no traffic progress" in lines[0],
                   f"client freezes: server exit 1, one line naming the "
                   f"stall (got {srv.returncode}: {err.strip()!r})")


def no_client(r, srv_conf):
    """A server that no client joins gives up after its --ctl-timeout
    (1 s here; 60 s without the flag), exit 1 with one line."""
    srv = r.spawn([PERF, "--role", "server", "--config", srv_conf,
                   "--ctl", "127.0.0.1:0", "--ctl-timeout", "1s"])
    port = r.server_port(srv)
    r.check(port is not None, "no client: server listened")
    t0 = time.monotonic()
    try:
        _, err = srv.communicate(timeout=min(30.0, r.left()))
    except subprocess.TimeoutExpired:
        r.check(False, "no client: the server gave up within its "
                "--ctl-timeout (not the 60 s default)")
        return
    waited = time.monotonic() - t0
    lines = [x for x in err.splitlines() if x.startswith("uet-perf:")]
    r.check(srv.returncode == 1 and len(lines) == 1 and
            "no client connected within 1000 ms" in lines[0],
            f"no client: server exit 1, one line naming the wait (got "
            f"{srv.returncode}: {err.strip()!r})")
    print(f"no client: the server gave up {waited:.1f} s after listening")


class Ctl:
    """The client's end of the control protocol (twoproc.c), by hand:
    one line out, one line back, every read bounded."""

    def __init__(self, port):
        self.s = socket.create_connection(("127.0.0.1", port), timeout=10)
        self.f = self.s.makefile("r")

    def ask(self, line):
        self.s.sendall(line.encode() + b"\n")
        try:
            return self.f.readline().strip()
        except OSError:  # the socket timeout: no answer
            return ""

    def close(self):
        self.f.close()
        self.s.close()


GOOD_RUN = "RUN mode=msgrate pds=rud size=64 count=10 window=8 echo=0 " \
    "limit_ms=1000"


def refusals(r, tmp):
    """The server refuses each control line it does not serve with an
    ERR naming the reason, counts it (--json "refused"), and still serves
    a good RUN and BYE after them. The peer is this script: a net_ring
    port (always up, frames loop back), no traffic (FIN sent=0). Bounded
    on its own (15 s), not by what the busy-polling cases before it left
    of DEADLINE: 3 s in an ASan build at a load average of 47."""
    path = os.path.join(tmp, "ring.conf")
    with open(path, "w") as f:
        f.write(f"[eal]\nargs = -l 0 --no-shconf --file-prefix=uetp-ref-"
                f"{os.getpid()} --no-huge -m 256 --no-pci --log-level=4\n"
                "[port0]\ndevargs = net_ring0\nipv4 = 10.0.0.1\n"
                "mac = 02:00:00:00:00:01\nudp_port = 4793\nmtu = 1500\n"
                "[engine]\nprogress = inline\n")
    srv = r.spawn([PERF, "--role", "server", "--config", path, "--ctl",
                   "127.0.0.1:0", "--ctl-timeout", "5s", "--json"])
    port = r.server_port(srv)
    r.check(port is not None, "refusals: server listened")
    if port is None:
        return
    c = Ctl(port)
    hello = "HELLO v=1 fa=10.0.0.2 mac=02:00:00:00:00:02 udp=4793 " \
        "job=66 mtu=1500"
    bad = [  # (line, what the ERR names)
        (GOOD_RUN, "HELLO first"),  # RUN before HELLO
        ("x" * 5000, "line too long"),  # over PERF_CTL_LINE and the buffer
    ]
    for line, why in bad:
        got = c.ask(line)
        r.check(got.startswith("ERR ") and why in got,
                f"refusals: {line[:40]!r}: ERR naming {why!r} (got {got!r})")
    got = c.ask(hello)
    r.check(got.startswith("HELLO v=1 fa=10.0.0.1"), f"refusals: HELLO "
            f"answered after the refusals (got {got!r})")
    bad = [
        ("RUN mode=msgrate", "bad RUN line (pds"),
        (GOOD_RUN.replace("size=64", "size=8"), "(size: 16.."),
        (GOOD_RUN.replace("count=10", "count=0"), "(count: 1.."),
        (GOOD_RUN.replace(" window=8", ""), "(window: 1.."),
        (GOOD_RUN.replace("mode=msgrate", "mode=nope"), "(mode"),
        (GOOD_RUN.replace("mode=msgrate ", ""), "(mode"),
        (GOOD_RUN.replace("echo=0", "echo=1"), "(echo: mode msgrate takes "
         "echo=0)"),
        (GOOD_RUN.replace("mode=msgrate", "mode=latency"), "(echo: mode "
         "latency takes echo=1)"),
        (GOOD_RUN.replace("limit_ms=1000", "limit_ms=0"), "(limit_ms: 1.."),
        ("RUN " + "k=v " * 300, "line too long"),  # 1204 B: fits the buffer
        ("FROB", "unexpected line"),
    ]
    for line, why in bad:
        got = c.ask(line)
        r.check(got.startswith("ERR ") and why in got,
                f"refusals: {line[:50]!r}: ERR naming {why!r} (got {got!r})")
    for i in range(9):  # 8 served a session, the 9th refused
        got = c.ask(GOOD_RUN)
        if i == 8:
            r.check(got.startswith("ERR too many runs"), f"refusals: RUN "
                    f"9 refused as too many (got {got!r})")
            break
        r.check(got == "READY", f"refusals: good RUN {i + 1} served after "
                f"the refusals (got {got!r})")
        got = c.ask("FIN sent=0 complete=1")
        r.check(got.startswith("RESULT ") and "rx_msgs=0" in got,
                f"refusals: RUN {i + 1}: RESULT (got {got[:80]!r})")
    got = c.ask("BYE verified=1")
    r.check(got == "BYE", f"refusals: BYE answered (got {got!r})")
    c.close()
    try:
        out, err = srv.communicate(timeout=15.0)
    except subprocess.TimeoutExpired:
        r.check(False, "refusals: the server ended after BYE")
        return
    nbad = 2 + 11 + 1
    try:
        doc = json.loads(out.strip().splitlines()[-1])
    except (ValueError, IndexError):
        doc = {}
    r.check(srv.returncode == 0 and doc.get("refused") == nbad and
            len(doc.get("runs", [])) == 8,
            f"refusals: server exit 0, --json refused {nbad}, 8 runs (got "
            f"{srv.returncode}, {out[-300:]!r}, {err[-300:]!r})")
    print(f"refusals: {doc.get('refused')} lines refused, "
          f"{len(doc.get('runs', []))} runs served")


def flood(r, tmp):
    """A client that sends nothing but bad lines: the server ends the
    session after TWOPROC_MAX_REFUSED (16) refusals, exit 1, one line."""
    srv = r.spawn([PERF, "--role", "server", "--config",
                   os.path.join(tmp, "ring.conf"), "--ctl", "127.0.0.1:0",
                   "--ctl-timeout", "5s"])
    port = r.server_port(srv)
    if port is None:
        r.check(False, "flood: server listened")
        return
    c = Ctl(port)
    t0 = time.monotonic()
    answers = [c.ask("RUN") for _ in range(17)]
    c.close()
    try:
        _, err = srv.communicate(timeout=15.0)
    except subprocess.TimeoutExpired:
        r.check(False, "flood: the server ended")
        return
    lines = [x for x in err.splitlines() if x.startswith("uet-perf:")]
    r.check(all(a == "ERR HELLO first" for a in answers[:16]) and
            "session over" in answers[16] and srv.returncode == 1 and
            len(lines) == 1 and "16 control lines refused" in lines[0],
            f"flood: 16 refusals, then the session ends, one line (got "
            f"{answers[15:]}, {srv.returncode}: {err.strip()!r})")
    print(f"flood: session over after {len(answers)} lines, "
          f"{time.monotonic() - t0:.1f} s")


def more_queues(r, srv_conf):
    """[port0] rx_queues 2: --role runs one queue pair, so the setting is
    refused (exit 2 like other --config errors, one line), not ignored."""
    path = srv_conf + ".q2"
    with open(srv_conf) as f:
        text = f.read().replace("[port0]\n", "[port0]\nrx_queues = 2\n")
    with open(path, "w") as f:
        f.write(text)
    p = subprocess.run([PERF, "--role", "server", "--config", path, "--ctl",
                        "127.0.0.1:0"], capture_output=True, text=True,
                       timeout=r.left())
    lines = [x for x in p.stderr.splitlines() if x.startswith("uet-perf:")]
    r.check(p.returncode == 2 and len(lines) == 1 and
            "one queue pair" in lines[0] and "listening" not in p.stdout,
            f"rx_queues 2 refused (got {p.returncode}: {p.stderr!r})")


def mtu_mismatch(r, srv_conf, path):
    """A client at mtu 1500 (@path) against a server at auto (9000):
    refused at start-up by both, naming the key, before any frame is
    lost."""
    srv = r.spawn([PERF, "--role", "server", "--config", srv_conf,
                   "--ctl", "127.0.0.1:0", "--ctl-timeout", "5s"])
    port = r.server_port(srv)
    if port is None:
        r.check(False, "mtu mismatch: server listened")
        return
    cli = r.spawn([PERF, "--role", "client", "--config", path, "--ctl",
                   f"127.0.0.1:{port}", "--ctl-timeout", "5s", "--count",
                   "10"])
    try:
        _, cerr = cli.communicate(timeout=min(20.0, r.left()))
        _, serr = srv.communicate(timeout=min(20.0, r.left()))
    except subprocess.TimeoutExpired:
        r.check(False, "mtu mismatch: both sides ended")
        return
    r.check(cli.returncode != 0 and srv.returncode != 0 and
            "mtu differs (set port0.mtu alike" in cerr + serr,
            f"mtu mismatch: refused naming port0.mtu (got {cli.returncode}"
            f"/{srv.returncode}: {cerr.strip()[-300:]!r} "
            f"{serr.strip()[-300:]!r})")


def second_server(r, tmp):
    """A second memif server on the socket file of a running one is
    refused ("in use by a running server", exit 1) without touching it:
    the engine's stale-socket check used to connect() to the socket, and
    the running server's memif took that for a client, and its EAL
    interrupt thread panicked when the connection closed. SIGTERM then
    ends the first one's wait for a client at once, and its port's close
    removes the socket and the lock file."""
    sock = os.path.join(tmp, "busy.sock")
    tag = f"uetp2-{os.getpid()}"
    for name in ("a", "b"):
        conf(os.path.join(tmp, f"busy-{name}.conf"), 0, f"{tag}-{name}",
             f"net_memif0,role=server,id=0,socket={sock},"
             "socket-abstract=no", "10.0.0.1", "02:00:00:00:00:01")
    first = r.spawn([PERF, "--role", "server", "--config",
                     os.path.join(tmp, "busy-a.conf"),
                     "--ctl", "127.0.0.1:0"])
    if r.server_port(first) is None:
        r.check(False, "second server: the first one listened")
        return
    second = subprocess.run([PERF, "--role", "server", "--config",
                             os.path.join(tmp, "busy-b.conf"),
                             "--ctl", "127.0.0.1:0"],
                            capture_output=True, text=True,
                            timeout=min(30.0, r.left()))
    r.check(second.returncode == 1 and
            "in use by a running server" in second.stderr,
            f"second server: refused, naming the running one (got "
            f"{second.returncode}: {second.stderr.strip()!r})")
    time.sleep(0.5)
    r.check(first.poll() is None, "second server: the first still runs")
    first.send_signal(signal.SIGTERM)
    try:
        _, err = first.communicate(timeout=min(10.0, r.left()))
    except subprocess.TimeoutExpired:
        r.check(False, "second server: SIGTERM ended the first one's wait")
        return
    r.check(first.returncode == 1 and "stopped" in err and
            "PANIC" not in err,
            f"second server: the first stopped on SIGTERM, no panic (got "
            f"{first.returncode}: {err.strip()!r})")
    r.check(not os.path.exists(sock) and
            not os.path.exists(sock + ".lock"),
            "second server: socket and lock file removed at close")


def memif(r, tmp):
    sock = os.path.join(tmp, "memif.sock")
    tag = f"uetp-{os.getpid()}"
    for mtu, suffix in ((1500, ""), (None, "j")):
        conf(os.path.join(tmp, f"srv{suffix}.conf"), 0, tag + "-s",
             f"net_memif0,role=server,id=0,socket={sock}",
             "10.0.0.1", "02:00:00:00:00:01", mtu=mtu)
        conf(os.path.join(tmp, f"cli{suffix}.conf"), 1, tag + "-c",
             f"net_memif0,role=client,id=0,socket={sock}",
             "10.0.0.2", "02:00:00:00:00:02", mtu=mtu)
    # the default MTU (auto: 9000): every 8000-byte message is one frame
    # (six at 1500), and arrives once, byte-exact (pair() checks rx_bad);
    # MEMIF_COUNT of them (8000-byte copies and checks under ASan at
    # load), at 5 % loss so that some are lost and repaired
    n = MEMIF_COUNT
    doc = r.pair(([], []), os.path.join(tmp, "srvj.conf"),
                 os.path.join(tmp, "clij.conf"), "127.0.0.1",
                 cli_extra=("--size", str(JUMBO_SIZE)), count=n, loss=50000)
    if doc is not None:
        m = doc["results"]["msgrate"]
        r.check(m["size"] == JUMBO_SIZE and 0 < m["tx_frames"] < 4 * n,
                f"memif jumbo: {m['tx_frames']} frames (both sides, ACKs "
                f"and retransmissions included) for {n} messages of "
                f"{m['size']} B: one frame each")
        print(f"memif jumbo: {m['tx_frames']} frames for {n} messages")
    mtu_mismatch(r, os.path.join(tmp, "srvj.conf"),
                 os.path.join(tmp, "cli.conf"))
    # a frozen client: the server gives up on its own (it is the survivor
    # that closes net_memif here, so the teardown fault below is avoided)
    r.peer_freezes(([], []), os.path.join(tmp, "srv.conf"),
                   os.path.join(tmp, "cli.conf"), "127.0.0.1")
    no_client(r, os.path.join(tmp, "srv.conf"))
    second_server(r, tmp)
    more_queues(r, os.path.join(tmp, "srv.conf"))
    refusals(r, tmp)
    flood(r, tmp)
    # no peer-death case here: DPDK 22.11's net_memif unmaps the shared
    # rings from its interrupt thread when the peer's socket closes, while
    # the data path may be inside rte_eth_rx_burst on them; the survivor
    # then faults inside the PMD. The netns case covers peer death.
    return 0


def sh(*argv):
    subprocess.run(argv, check=True, timeout=10, capture_output=True)


def veth_stat(ns, dev, what):
    """A kernel counter of @dev in namespace @ns."""
    out = subprocess.run(["ip", "netns", "exec", ns, "cat",
                          f"/sys/class/net/{dev}/statistics/{what}"],
                         capture_output=True, text=True, timeout=10)
    return int(out.stdout) if out.returncode == 0 else -1


def netns_cases(r, prefix, confs, ctl):
    for extra in ((), ("--arp",)):  # static neighbours, then ARP
        r.pair(prefix, *confs, ctl, extra)
    for victim in ("server", "client"):
        r.peer_dies(prefix, *confs, ctl, victim)
    r.peer_freezes(prefix, *confs, ctl)


JUMBO_SIZE = 8000


def jumbo_cases(r, prefix, confs, ctl, ns, veth):
    """MTU 9000: every message of JUMBO_SIZE bytes is one frame (at MTU
    1500 it would be six), and arrives once, byte-exact."""
    before = veth_stat(ns[1], veth[1], "tx_packets")
    r.pair(prefix, *confs, ctl, cli_extra=("--size", str(JUMBO_SIZE)))
    sent = veth_stat(ns[1], veth[1], "tx_packets") - before
    print(f"jumbo: client veth sent {sent} frames")
    # msgrate + latency: 2 * COUNT messages from the client, plus ACKs,
    # control and retransmissions; six frames a message would be 12 * COUNT
    r.check(0 < sent < 4 * COUNT, f"jumbo: client sent {sent} frames for "
            f"{2 * COUNT} messages of {JUMBO_SIZE} B (one frame each)")


AF_XDP = 44  # linux/socket.h


def xdp_refused():
    """The kernel's refusal of AF_XDP sockets here, or None. (XDP on veth,
    native, is in every kernel that has AF_XDP.)"""
    try:
        socket.socket(AF_XDP, socket.SOCK_RAW, 0).close()
    except OSError as e:
        return f"socket(AF_XDP): {e.strerror}"
    return None


# Run in a namespace: bind an AF_XDP socket (copy mode, a 64 KiB UMEM) to
# queue 0 of argv[1], print "held", keep it argv[2] seconds.
XSK_HOLDER = r"""
import ctypes, mmap, socket, struct, sys, time
AF_XDP, SOL_XDP = 44, 283
s = socket.socket(AF_XDP, socket.SOCK_RAW, 0)
buf = mmap.mmap(-1, 16 * 4096)
addr = ctypes.addressof(ctypes.c_char.from_buffer(buf))
s.setsockopt(SOL_XDP, 4, struct.pack("QQIII4x", addr, len(buf), 4096, 0, 0))
for opt in (5, 6, 2):  # fill, completion, RX rings
    s.setsockopt(SOL_XDP, opt, struct.pack("I", 64))
sxdp = struct.pack("HHIII", AF_XDP, 2, socket.if_nametoindex(sys.argv[1]),
                   0, 0)
libc = ctypes.CDLL(None, use_errno=True)
if libc.bind(s.fileno(), ctypes.c_char_p(sxdp), len(sxdp)) != 0:
    sys.exit("bind: errno %d" % ctypes.get_errno())
print("held", flush=True)
time.sleep(float(sys.argv[2]))
"""


def hold_queue(r, ns_prefix, iface, secs):
    """Another AF_XDP socket on the veth's queue 0 for @secs, like one a
    process closed that the kernel has not released yet."""
    h = r.spawn([*ns_prefix, sys.executable, "-c", XSK_HOLDER, iface,
                 str(secs)])
    line = h.stdout.readline()
    r.check(line.strip() == "held", f"AF_XDP queue held ({line.strip()!r}"
            f" {h.stderr.read() if h.poll() is not None else ''})")
    return h


def afxdp_busy(r, prefix, srv_conf, ctl, veth):
    """A queue that stays busy: the server gives up after its retries
    with one line naming the cause, instead of a bare EINVAL."""
    h = hold_queue(r, prefix[0], veth, 30)
    srv = r.spawn([*prefix[0], PERF, "--role", "server", "--config",
                   srv_conf, "--ctl", f"{ctl}:0", "--ctl-timeout", "3s"])
    try:
        out, err = srv.communicate(timeout=min(30.0, r.left()))
    except subprocess.TimeoutExpired:
        r.check(False, "busy queue: the server gave up in time")
        return
    finally:
        h.kill()
        h.wait()
    r.check(srv.returncode == 1 and "listening" not in out and
            "holds the interface queue" in err,
            f"busy queue: server exit 1 naming the held queue (got "
            f"{srv.returncode}: {err.strip()[-600:]!r})")


def afxdp_cases(r, prefix, confs, ctl, veth):
    why = xdp_refused()
    if why is not None:
        print("SKIP: the kernel refused AF_XDP on veth:", why)
        return 77
    # the server's queue busy for its first second: it probes the port
    # again until the queue is free, then runs as usual
    h = hold_queue(r, prefix[0], veth[0], 1.0)
    r.pair(prefix, *confs, ctl)
    h.wait()
    r.pair(prefix, *confs, ctl, ("--arp",))
    r.peer_dies(prefix, *confs, ctl, "server")
    afxdp_busy(r, prefix, confs[0], ctl, veth[0])
    return 0


def netns(r, tmp, mtu=1500, pmd="af_packet"):
    if os.geteuid() != 0 or shutil.which("ip") is None:
        print("SKIP: needs root and iproute2")
        return 77
    if subprocess.run(["ip", "netns", "list"], capture_output=True,
                      timeout=10).returncode != 0:
        print("SKIP: ip netns unavailable")
        return 77
    pid = os.getpid()
    ns = [f"uetp-{pid}-a", f"uetp-{pid}-b"]
    veth = [f"uetp{pid}a", f"uetp{pid}b"]
    # af_xdp: the XDP program takes every frame of the data veth, so the
    # control connection needs its own pair
    cveth = [f"uetc{pid}a", f"uetc{pid}b"] if pmd == "af_xdp" else veth
    made = []
    rc = 0
    probe = subprocess.run(["ip", "netns", "add", ns[0]],
                           capture_output=True, text=True, timeout=10)
    if probe.returncode != 0:  # no CAP_SYS_ADMIN / no netns support
        print("SKIP: ip netns add:", probe.stderr.strip())
        return 77
    made.append(ns[0])
    try:
        sh("ip", "netns", "add", ns[1])
        made.append(ns[1])
        for pair in {tuple(veth), tuple(cveth)}:
            sh("ip", "link", "add", pair[0], "netns", ns[0], "type", "veth",
               "peer", "name", pair[1], "netns", ns[1])
        for i in range(2):
            # control connection over the kernel stack on other addresses
            # than the FAs, so the kernel never answers UET frames
            sh("ip", "-n", ns[i], "addr", "add", f"172.31.{pid % 250}.{i + 1}"
               "/24", "dev", cveth[i])
            sh("ip", "-n", ns[i], "link", "set", veth[i], "mtu", str(mtu))
            for dev in {veth[i], cveth[i], "lo"}:
                sh("ip", "-n", ns[i], "link", "set", dev, "up")
        for i, role in enumerate(("s", "c")):
            devargs = (f"net_af_xdp0,iface={veth[i]},start_queue=0,"
                       "queue_count=1" if pmd == "af_xdp" else
                       f"net_af_packet0,iface={veth[i]},qpairs=1")
            conf(os.path.join(tmp, f"{role}.conf"), i,
                 f"uetp-{pid}-{role}", devargs,
                 f"10.0.0.{i + 1}", "none", mtu)
        # "mac = none": each engine uses its veth's MAC, learned by the
        # peer in the HELLO exchange
        for i in range(2):
            path = os.path.join(tmp, ("s", "c")[i] + ".conf")
            with open(path) as f:
                text = f.read().replace("mac = none\n", "")
            with open(path, "w") as f:
                f.write(text)
        prefix = (["ip", "netns", "exec", ns[0]],
                  ["ip", "netns", "exec", ns[1]])
        confs = (os.path.join(tmp, "s.conf"), os.path.join(tmp, "c.conf"))
        ctl = f"172.31.{pid % 250}.1"
        if pmd == "af_xdp":
            rc = afxdp_cases(r, prefix, confs, ctl, veth)
        elif mtu == 1500:
            netns_cases(r, prefix, confs, ctl)
        else:
            jumbo_cases(r, prefix, confs, ctl, ns, veth)
    except subprocess.SubprocessError as e:
        r.check(False, f"namespace setup: {e}")
    finally:
        r.kill_all()
        for n in made:
            subprocess.run(["ip", "netns", "del", n], timeout=10,
                           capture_output=True)
    return rc


def runtime_clean(pid):
    """EAL runtime directories of this run's --file-prefix values: a
    killed process (peer-death cases) leaves its sockets behind."""
    bases = ["/var/run/dpdk", "/tmp/dpdk"]
    if os.environ.get("XDG_RUNTIME_DIR"):
        bases.append(os.path.join(os.environ["XDG_RUNTIME_DIR"], "dpdk"))
    for base in bases:
        for role in ("s", "c"):
            shutil.rmtree(os.path.join(base, f"uetp-{pid}-{role}"),
                          ignore_errors=True)


def main():
    global PERF
    PERF = os.path.abspath(sys.argv[1])
    what = sys.argv[2]
    r = Run(AFXDP_DEADLINE if what == "afxdp" else DEADLINE)
    tmp = tempfile.mkdtemp(prefix="uetp-")
    try:
        rc = {"memif": memif, "netns": netns,
              "jumbo": lambda r, tmp: netns(r, tmp, 9000),
              "afxdp": lambda r, tmp: netns(r, tmp, pmd="af_xdp")}[what](
                  r, tmp)
    finally:
        r.kill_all()
        shutil.rmtree(tmp, ignore_errors=True)
        runtime_clean(os.getpid())
    if rc == 77:
        return 77
    print("PASS" if r.fails == 0 else f"FAIL: {r.fails}")
    return 1 if r.fails else 0


PERF = None

if __name__ == "__main__":
    sys.exit(main())
