#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Fold the call stacks of `perf script` and draw them as a flame graph.

Reads `perf script -F comm,tid,ip,sym,dso` output (a header line per
sample, then one frame per line, innermost first) and writes an SVG: one
box per function on a call path, as wide as the share of the samples
that passed through it, callers below their callees. Hovering a box
shows its name, samples and share. Boxes are coloured by layer
(uet-perf's drivers, PDS, CMS, SES, channels, wire codec, engine and
ports, DPDK, the C library, kernel, other) from the function's name
and object file.

--root F keeps only the samples whose stack holds function F and draws
them from F's outermost frame upward (e.g. uet-perf's measured loop,
without start-up and tear-down). --table N also prints, on standard
error, the N functions with the most samples on their stack (inclusive)
and the N with the most samples of their own (self), in percent of the
drawn samples, and the self share of each layer.

usage: perf script -F comm,tid,ip,sym,dso -i perf.data |
       scripts/flamegraph.py [--root F] [--title T] [--table N] > out.svg
"""

import argparse
import html
import re
import sys
import zlib

ROW = 16          # height of a box, pixels
WIDTH = 1200      # width of the drawing, pixels
PAD = 10          # margin, pixels
CHAR = 6.6        # width of a character of the 11 px label font

SUFFIX = re.compile(r"(\.(constprop|isra|part|cold|lto_priv)(\.\d+)?)+$")
FRAME = re.compile(r"^\s*[0-9a-fA-F]+\s+(.*?)\s+\((.*)\)\s*$")

# Layer of a frame: first match on the function name (or on the object
# file, for the last rows), and its base colour (R, G, B).
LAYERS = [
    ("uet-perf's ULP drivers", re.compile(r"^(test_ulp_|ses_driver_|perf_)"),
     (120, 120, 60)),
    ("PDS", re.compile(r"^(uet_)?pds_|^uet_pds"), (86, 140, 214)),
    ("CMS", re.compile(r"^(uet_)?cms_|^cc_"), (60, 90, 170)),
    ("SES", re.compile(r"^(uet_)?ses_|^uet_ses|^(sqe|rqe)_"), (84, 168, 92)),
    ("channels", re.compile(r"^uet_chan|^chan_|^cqe_"), (160, 110, 200)),
    ("wire", re.compile(r"^uet_wire"), (70, 170, 170)),
    ("engine, ports", re.compile(r"^(uet_engine|engine_|proto_|rx_|tx_|port_|"
                                 r"uet_port)"), (226, 130, 50)),
    ("DPDK", re.compile(r"^(rte_|eth_|ring_|common_ring|bucket_|mempool_)"),
     (196, 80, 110)),
]
DSO_LAYERS = [
    ("DPDK", re.compile(r"librte_"), (196, 80, 110)),
    ("C library", re.compile(r"libc\.so|ld-linux"), (150, 150, 150)),
    ("kernel", re.compile(r"kernel\.kallsyms|\[kernel|vmlinux"), (200, 170, 60)),
]
OTHER = ("other", (222, 180, 110))


def layer(name, dso):
    for label, rx, rgb in LAYERS:
        if rx.search(name):
            return label, rgb
    for label, rx, rgb in DSO_LAYERS:
        if rx.search(dso):
            return label, rgb
    return OTHER


def samples(stream):
    """Yield each sample's frames as [(function, object)], outermost first."""
    frames = []
    for line in stream:
        if not line.strip():
            if frames:
                yield frames[::-1]
            frames = []
            continue
        if not line[0].isspace():  # a sample's header line
            if frames:
                yield frames[::-1]
            frames = []
            continue
        m = FRAME.match(line)
        if m is None:
            continue
        name = SUFFIX.sub("", m.group(1).split("+0x")[0]) or "[unknown]"
        frames.append((name, m.group(2)))
    if frames:
        yield frames[::-1]


class Node:
    __slots__ = ("name", "dso", "total", "kids")

    def __init__(self, name, dso):
        self.name, self.dso, self.total, self.kids = name, dso, 0, {}


def fold(stream, root):
    top = Node(root or "all samples", "")
    dropped = 0
    for frames in samples(stream):
        if root is not None:
            idx = next((i for i, f in enumerate(frames) if f[0] == root), None)
            if idx is None:
                dropped += 1
                continue
            frames = frames[idx + 1:]
        top.total += 1
        node = top
        for name, dso in frames:
            kid = node.kids.get(name)
            if kid is None:
                kid = node.kids[name] = Node(name, dso)
            kid.total += 1
            node = kid
    return top, dropped


def depth(node):
    return 1 + max((depth(k) for k in node.kids.values()), default=0)


def colour(name, rgb):
    # Vary the layer's colour a little by name, so neighbours differ.
    h = zlib.crc32(name.encode()) & 0xff
    d = (h % 41) - 20
    return "rgb(%d,%d,%d)" % tuple(max(0, min(255, c + d)) for c in rgb)


def draw(top, title, out):
    rows = depth(top)
    height = rows * ROW + 3 * PAD + 2 * ROW
    scale = (WIDTH - 2 * PAD) / max(top.total, 1)
    boxes = []

    def box(node, x, level):
        w = node.total * scale
        if w < 0.3:
            return
        y = height - PAD - ROW * (level + 1) - ROW
        label, rgb = layer(node.name, node.dso) if level else ("", (235, 120, 90))
        pct = 100.0 * node.total / max(top.total, 1)
        tip = "%s (%s): %d samples, %.2f %%" % (node.name, label or "root",
                                                node.total, pct)
        text = ""
        if w > 4 * CHAR:
            n = int(w / CHAR)
            s = node.name if len(node.name) <= n else node.name[:n - 2] + ".."
            text = ('<text x="%.1f" y="%.1f">%s</text>'
                    % (x + 3, y + ROW - 4, html.escape(s)))
        boxes.append('<g><title>%s</title><rect x="%.1f" y="%.1f" width="%.1f" '
                     'height="%d" fill="%s" rx="2"/>%s</g>'
                     % (html.escape(tip), x, y, w, ROW - 1,
                        colour(node.name, rgb), text))
        cx = x
        for kid in sorted(node.kids.values(), key=lambda k: k.name):
            box(kid, cx, level + 1)
            cx += kid.total * scale

    box(top, PAD, 0)
    legend = []
    lx = PAD
    seen = set()
    for label, rgb in [(l, c) for l, _, c in LAYERS + DSO_LAYERS] + [OTHER]:
        if label in seen:
            continue
        seen.add(label)
        legend.append('<rect x="%d" y="%d" width="12" height="12" fill="rgb%s"/>'
                      '<text x="%d" y="%d">%s</text>'
                      % (lx, PAD + ROW + 4, str(rgb), lx + 16, PAD + ROW + 14,
                         html.escape(label)))
        lx += 16 + int(len(label) * CHAR) + 18
    out.write('<?xml version="1.0" standalone="no"?>\n'
              '<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" '
              'font-family="Verdana, sans-serif" font-size="11">\n'
              '<rect width="100%%" height="100%%" fill="#fdfdf8"/>\n'
              '<text x="%d" y="%d" font-size="14">%s (%d samples)</text>\n'
              % (WIDTH, height, PAD, PAD + 12, html.escape(title), top.total))
    out.write("\n".join(legend) + "\n")
    out.write("\n".join(boxes) + "\n</svg>\n")


def table(top, n, err):
    incl, self_, layers = {}, {}, {}

    def walk(node, path):
        own = node.total - sum(k.total for k in node.kids.values())
        self_[node.name] = self_.get(node.name, 0) + own
        label = layer(node.name, node.dso)[0]
        layers[label] = layers.get(label, 0) + own
        if node.name not in path:  # a recursive frame counts once
            incl[node.name] = incl.get(node.name, 0) + node.total
        for kid in node.kids.values():
            walk(kid, path | {node.name})

    for kid in top.kids.values():
        walk(kid, frozenset())
    total = max(top.total, 1)
    err.write("%-8s %-44s %-8s %s\n" % ("incl %", "function", "self %", "function"))
    a = sorted(incl.items(), key=lambda kv: -kv[1])[:n]
    b = sorted(((k, v) for k, v in self_.items() if v),
               key=lambda kv: -kv[1])[:n]
    for i in range(max(len(a), len(b))):
        ia = "%6.1f   %-44s" % (100.0 * a[i][1] / total, a[i][0]) if i < len(a) else " " * 53
        ib = "%6.1f   %s" % (100.0 * b[i][1] / total, b[i][0]) if i < len(b) else ""
        err.write("%s %s\n" % (ia, ib))
    err.write("self %% by layer: %s\n" % ", ".join(
        "%s %.1f" % (k, 100.0 * v / total)
        for k, v in sorted(layers.items(), key=lambda kv: -kv[1]) if v))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--root", help="keep only stacks through this function, "
                    "drawn from its outermost frame")
    ap.add_argument("--title", default="flame graph")
    ap.add_argument("--table", type=int, default=0, metavar="N",
                    help="print the N largest functions (inclusive, self) "
                    "on standard error")
    args = ap.parse_args()
    if args.table < 0:
        ap.error("--table: N must be 0 or more")
    top, dropped = fold(sys.stdin, args.root)
    if top.total == 0:
        sys.exit("flamegraph.py: no samples%s" %
                 (" through %s (%d others)" % (args.root, dropped)
                  if args.root else ""))
    draw(top, args.title, sys.stdout)
    if args.table:
        table(top, args.table, sys.stderr)
    sys.stderr.write("flamegraph.py: %d samples drawn, %d without %s\n"
                     % (top.total, dropped, args.root or "a stack"))


if __name__ == "__main__":
    main()
