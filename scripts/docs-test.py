#!/usr/bin/env python3
"""Run every ```sh block of README.md and docs/*.md as a newcomer would.

    scripts/docs-test.py [--list] [--timeout S] [--no-build] [FILE[:LINE] ...]

Each block runs in a fresh shell (`env -i`, a plain PATH, `bash -e`, no
profile), from the top of the clone, against the quick start's tree
build/release (built first, with the quick start's options, when absent
or out of date). A block fails on a non-zero exit, on its timeout
(DOCS_TEST_TIMEOUT seconds, default 120) and when it leaves a process
running or a DPDK runtime directory, network namespace or network
interface it named behind.
Files it creates in the clone are removed after it (and listed).

A block preceded by the line `<!-- docs-test: skip: REASON -->` is not
run; the reason is printed. `<!-- docs-test: needs: PATH -->` runs the
block only when PATH (from the top of the clone) exists, e.g. what an
optional script builds (`bash scripts/fabtests.sh`), and skips it
otherwise, saying so. Any other `docs-test:` marker is an error.
With FILE:LINE (the line of the opening fence) only that block runs.
Exit 0 when every block passed, 1 otherwise, 2 on bad input, 77 (skipped)
when not run as root.
"""
import argparse
import fcntl
import glob
import os
import re
import signal
import subprocess
import sys
import tempfile
import time

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUILD = "build/release"
# Keep in step with scripts/quickstart.sh.
BUILD_OPTS = ["-Dbuildtype=release", "-Dtests=enabled", "-Dapps=enabled"]
PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
MARKER = re.compile(r"^<!--\s*docs-test:\s*(.*?)\s*-->\s*$")
DPDK_RUN = "/var/run/dpdk"


class Block:
    def __init__(self, path, line, text, marker):
        self.path, self.line, self.text = path, line, text
        self.skip = self.needs = None
        if marker and marker[0] == "skip":
            self.skip = marker[1]
        elif marker:
            self.needs = marker[1]

    @property
    def name(self):
        return f"{os.path.relpath(self.path, TOP)}:{self.line}"


def parse(path):
    """The ```sh blocks of one Markdown file, with their markers."""
    blocks, errors = [], []
    with open(path) as f:
        lines = f.read().split("\n")
    i, pending = 0, None
    rel = os.path.relpath(path, TOP)
    while i < len(lines):
        line = lines[i]
        m = MARKER.match(line.strip())
        if m:
            kind, _, arg = m.group(1).partition(":")
            if kind in ("skip", "needs") and arg.strip():
                if pending:
                    errors.append(f"{rel}:{pending[0]}: marker followed by another marker")
                pending = (i + 1, kind, arg.strip())
            else:
                errors.append(f"{rel}:{i + 1}: unknown docs-test marker '{m.group(1)}' "
                              "(known: 'skip: REASON', 'needs: PATH')")
            i += 1
            continue
        if line.startswith("```"):
            lang = line[3:].strip()
            start = i + 1
            j = i + 1
            while j < len(lines) and not lines[j].startswith("```"):
                j += 1
            if j == len(lines):
                errors.append(f"{rel}:{start}: code block never closed")
                break
            if lang == "sh":
                blocks.append(Block(path, start, "\n".join(lines[i + 1:j]) + "\n",
                                    pending[1:] if pending else None))
            elif pending:
                errors.append(f"{rel}:{pending[0]}: marker before a "
                              f"'{lang or 'plain'}' block (only sh blocks run)")
            pending = None
            i = j + 1
            continue
        if pending and line.strip():
            errors.append(f"{rel}:{pending[0]}: marker not followed by a code block")
            pending = None
        i += 1
    return blocks, errors


def build():
    """Build the quick start's tree as scripts/quickstart.sh does when it is
    absent, else bring it up to date (ninja alone: its options stay)."""
    if os.path.exists(os.path.join(TOP, BUILD, "build.ninja")):
        cmd = ["ninja", "-C", BUILD]
    else:
        cmd = ["bash", "scripts/build.sh", BUILD] + BUILD_OPTS
    print(f"docs-test: {' '.join(cmd)}", flush=True)
    r = subprocess.run(cmd, cwd=TOP,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if r.returncode != 0:
        print(r.stdout[-4000:])
        print(f"docs-test: building {BUILD} failed")
        return False
    return True


def untracked():
    r = subprocess.run(["git", "-C", TOP, "status", "--porcelain", "-z",
                        "--untracked-files=all", "--ignored"],
                       stdout=subprocess.PIPE, text=True, check=False)
    out = set()
    for entry in r.stdout.split("\0"):
        if entry[:3] in ("?? ", "!! ") and not entry[3:].startswith("build"):
            out.add(entry[3:])
    return out


def netns():
    r = subprocess.run(["ip", "netns", "list"], stdout=subprocess.PIPE,
                       stderr=subprocess.DEVNULL, text=True, check=False)
    return {l.split()[0] for l in r.stdout.splitlines() if l.strip()}


def links():
    r = subprocess.run(["ip", "-o", "link", "show"], stdout=subprocess.PIPE,
                       stderr=subprocess.DEVNULL, text=True, check=False)
    return {l.split(":")[1].strip().split("@")[0]
            for l in r.stdout.splitlines() if l.count(":") >= 2}


def dpdk_dirs():
    try:
        return set(os.listdir(DPDK_RUN))
    except OSError:
        return set()


def group_alive(pgid):
    try:
        os.killpg(pgid, 0)
        return True
    except ProcessLookupError:
        return False


def kill_group(pgid):
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(pgid, sig)
        except ProcessLookupError:
            return
        for _ in range(20):
            if not group_alive(pgid):
                return
            time.sleep(0.1)


def named(entry, text):
    """Whether a leftover is the block's own: its name, less a trailing
    number (per-rank prefixes), is a word of the block. Other processes
    of the host (other test runs) make such directories too."""
    stem = re.sub(r"\d+$", "", entry)
    if stem == "uet":  # uet<pid>: any engine's default prefix, not the block's
        return False
    return bool(stem) and re.search(r"(?<![\w-])" + re.escape(stem) + r"(?![\w-])",
                                    text) is not None


def run(block, timeout, logdir):
    files0, ns0, dpdk0, links0 = untracked(), netns(), dpdk_dirs(), links()
    env = {"PATH": PATH, "HOME": os.environ.get("HOME", "/root"),
           "USER": "root", "LOGNAME": "root", "SHELL": "/bin/bash",
           "LANG": "C.UTF-8", "TERM": "dumb"}
    script = os.path.join(logdir, "block.sh")
    with open(script, "w") as f:
        f.write(block.text)
    log = os.path.join(logdir, block.name.replace("/", "_") + ".log")
    problems = []
    t0 = time.monotonic()
    with open(log, "w") as out:
        p = subprocess.Popen(["bash", "--noprofile", "--norc", "-e", script],
                             cwd=TOP, env=env, stdin=subprocess.DEVNULL,
                             stdout=out, stderr=subprocess.STDOUT,
                             start_new_session=True)
        try:
            rc = p.wait(timeout=timeout)
            if rc != 0:
                problems.append(f"exit {rc}")
        except subprocess.TimeoutExpired:
            problems.append(f"timeout after {timeout} s")
        # Anything still in the block's session was left running.
        if group_alive(p.pid):
            if not problems:
                problems.append("left processes running")
            kill_group(p.pid)
            p.wait()
    elapsed = time.monotonic() - t0
    for path in sorted(untracked() - files0):
        print(f"  removed {path} (created by the block)")
        try:
            os.unlink(os.path.join(TOP, path))
            os.removedirs(os.path.dirname(os.path.join(TOP, path)))
        except OSError:
            pass
    for ns in sorted(netns() - ns0):
        if named(ns, block.text):
            problems.append(f"left network namespace {ns}")
            subprocess.run(["ip", "netns", "delete", ns], check=False)
    for link in sorted(links() - links0):
        if re.search(r"(?<![\w-])" + re.escape(link) + r"(?![\w-])", block.text):
            problems.append(f"left network interface {link}")
            subprocess.run(["ip", "link", "delete", link], check=False)
    for d in sorted(dpdk_dirs() - dpdk0):
        if named(d, block.text):
            problems.append(f"left {DPDK_RUN}/{d}")
            subprocess.run(["rm", "-rf", os.path.join(DPDK_RUN, d)], check=False)
    return problems, elapsed, log


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("targets", nargs="*", help="FILE or FILE:LINE")
    ap.add_argument("--list", action="store_true", help="list the blocks and exit")
    ap.add_argument("--no-build", action="store_true",
                    help=f"do not build {BUILD} first")
    ap.add_argument("--logs", metavar="DIR",
                    help="keep every block's output in DIR (default: a temporary directory)")
    ap.add_argument("--timeout", type=float,
                    default=float(os.environ.get("DOCS_TEST_TIMEOUT", "120")))
    args = ap.parse_args()

    files = [os.path.join(TOP, "README.md")] + sorted(glob.glob(os.path.join(TOP, "docs", "*.md")))
    only = set()
    if args.targets:
        files = []
        for t in args.targets:
            path, _, line = t.partition(":")
            path = os.path.abspath(path)
            if not os.path.isfile(path):
                print(f"docs-test: {t}: no such file", file=sys.stderr)
                return 2
            if path not in files:
                files.append(path)
            if line:
                only.add(f"{os.path.relpath(path, TOP)}:{line}")
    blocks, errors = [], []
    for path in files:
        b, e = parse(path)
        blocks += b
        errors += e
    for e in errors:
        print(f"docs-test: {e}", file=sys.stderr)
    if errors:
        return 2
    if only:
        blocks = [b for b in blocks if b.name in only]
        missing = only - {b.name for b in blocks}
        if missing:
            print(f"docs-test: no sh block opens at {', '.join(sorted(missing))}",
                  file=sys.stderr)
            return 2
    if args.list:
        for b in blocks:
            print(f"{b.name}: {'skip: ' + b.skip if b.skip else 'needs ' + b.needs if b.needs else 'run'}")
        return 0

    if os.geteuid() != 0:
        # exit 77: meson counts the test as skipped, not passed
        print("docs-test: skipped: the examples are written for root "
              "(network namespaces, /var/run/dpdk)", file=sys.stderr)
        return 77
    # Blocks share the clone (files they create are removed after each):
    # one docs test at a time in it.
    os.makedirs(os.path.join(TOP, "build"), exist_ok=True)
    lock = open(os.path.join(TOP, "build", ".docs-test.lock"), "w")
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        print("docs-test: another docs test runs in this clone; waiting", flush=True)
        fcntl.flock(lock, fcntl.LOCK_EX)
    if not args.no_build and not build():
        return 1

    passed = failed = skipped = 0
    with tempfile.TemporaryDirectory(prefix="docs-test.") as tmp:
        logdir = args.logs or tmp
        os.makedirs(logdir, exist_ok=True)
        for b in blocks:
            if b.skip:
                print(f"SKIP {b.name}: {b.skip}", flush=True)
                skipped += 1
                continue
            if b.needs and not os.path.exists(os.path.join(TOP, b.needs)):
                print(f"SKIP {b.name}: needs {b.needs}, absent", flush=True)
                skipped += 1
                continue
            problems, elapsed, log = run(b, args.timeout, logdir)
            if problems:
                failed += 1
                print(f"FAIL {b.name} ({elapsed:.1f} s): {'; '.join(problems)}")
                print("  --- block ---")
                print("  " + b.text.rstrip().replace("\n", "\n  "))
                print("  --- output (last 40 lines) ---")
                with open(log, errors="replace") as f:
                    tail = f.read().rstrip().split("\n")[-40:]
                print("  " + "\n  ".join(tail), flush=True)
            else:
                passed += 1
                print(f"ok   {b.name} ({elapsed:.1f} s)", flush=True)
    print(f"docs-test: {passed} passed, {failed} failed, {skipped} skipped")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
