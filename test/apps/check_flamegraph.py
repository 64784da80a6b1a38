#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""scripts/flamegraph.py on a crafted `perf script` text: what it keeps
under --root, the widths it draws, the shares it prints, and its refusals.

usage: check_flamegraph.py <scripts/flamegraph.py>
"""

import re
import subprocess
import sys
import xml.etree.ElementTree as ET

SCRIPT = sys.argv[1]

# Four samples (frames innermost first, as perf script prints them): three
# pass through the root, one of them twice (recursion), one does not.
PERF = """\
uet-perf 100 1.000001:
\t    1a pds_rx_common+0x10 (/x/uet-perf)
\t    2b uet_engine_poll (/x/uet-perf)
\t    3c perf_sess_step (/x/uet-perf)
\t    4d main (/x/uet-perf)

uet-perf 100 1.000002:
\t    5e ses_target_send.constprop.0 (/x/uet-perf)
\t    2b uet_engine_poll (/x/uet-perf)
\t    3c perf_sess_step (/x/uet-perf)
\t    4d main (/x/uet-perf)
uet-perf 100 1.000003:
\t    6f __memmove_avx_unaligned_erms (/usr/lib/x86_64-linux-gnu/libc.so.6)
\t    3c perf_sess_step (/x/uet-perf)
\t    2b uet_engine_poll (/x/uet-perf)
\t    3c perf_sess_step (/x/uet-perf)
\t    4d main (/x/uet-perf)

uet-perf 100 1.000004:
\t    7a rte_eal_init (/usr/lib/x86_64-linux-gnu/librte_eal.so.23)
\t    4d main (/x/uet-perf)
this line is not a frame and is ignored
"""


def run(args, text):
    return subprocess.run([sys.executable, SCRIPT] + args, input=text,
                          capture_output=True, text=True)


def check(cond, what):
    if not cond:
        sys.exit("check_flamegraph: FAIL: " + what)


r = run(["--root", "perf_sess_step", "--table", "5", "--title", "t<&>"], PERF)
check(r.returncode == 0, "exit %d: %s" % (r.returncode, r.stderr))
svg = ET.fromstring(r.stdout)  # well-formed XML, title escaped
ns = "{http://www.w3.org/2000/svg}"
texts = [t.text for t in svg.iter(ns + "text")]
check("t<&> (3 samples)" in texts, "title with the sample count: %r" % texts)
tips = {}
for g in svg.iter(ns + "g"):  # the first box of each name: the outermost
    tips.setdefault(g.find(ns + "title").text.split(" (")[0], g)
check("rte_eal_init" not in tips and "main" not in tips,
      "only what is above the root is drawn: %r" % sorted(tips))
width = {n: float(g.find(ns + "rect").get("width")) for n, g in tips.items()}
check(abs(width["perf_sess_step"] - 1180.0) < 0.01, "root spans the width")
check(abs(width["uet_engine_poll"] - 1180.0) < 0.01, "every sample polls")
check(abs(width["pds_rx_common"] - 1180.0 / 3) < 0.1, "one sample of three")
check("ses_target_send" in tips, ".constprop suffix dropped")
check("PDS" in tips["pds_rx_common"].find(ns + "title").text, "PDS layer")
check("SES" in tips["ses_target_send"].find(ns + "title").text, "SES layer")
check("C library" in tips["__memmove_avx_unaligned_erms"].find(ns + "title").text,
      "layer from the object file")
err = r.stderr
check(re.search(r"100\.0\s+uet_engine_poll", err), "inclusive share:\n" + err)
check(re.search(r"33\.3\s+pds_rx_common", err), "self share:\n" + err)
check(re.search(r"33\.3\s+perf_sess_step", err),
      "the root's recursion counts as a frame above it:\n" + err)
check("engine, ports" not in err.split("layer:")[1], "no layer without samples")
check("PDS 33.3" in err and "SES 33.3" in err and "C library 33.3" in err,
      "self share by layer:\n" + err)
check("3 samples drawn, 1 without perf_sess_step" in err, err)

r = run([], PERF)
check(r.returncode == 0 and "4 samples drawn" in r.stderr, "no root: every sample")

r = run(["--root", "no_such_function"], PERF)
check(r.returncode != 0 and "no samples through no_such_function" in r.stderr,
      "a root no stack holds is refused: %d %s" % (r.returncode, r.stderr))
r = run([], "")
check(r.returncode != 0 and "no samples" in r.stderr, "empty input refused")
r = run(["--table", "-1"], PERF)
check(r.returncode == 2 and "--table" in r.stderr, "negative --table refused")
print("check_flamegraph: OK")
