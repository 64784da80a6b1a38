#!/usr/bin/env python3
"""Add up meson's test logs into one line: 'N passed, N failed[, N skipped]'.

    scripts/test-summary.py DIR[:LOGBASE]...

Each argument names a build directory and the base name of one of its logs
(meson test --logbase; default testlog): DIR/meson-logs/LOGBASE.json.
Exit 1 if anything failed or a log is missing."""
import json
import os
import sys

passed = failed = skipped = 0
missing = []
for arg in sys.argv[1:]:
    build, _, logbase = arg.partition(":")
    path = os.path.join(build, "meson-logs", (logbase or "testlog") + ".json")
    if not os.path.exists(path):
        missing.append(path)
        continue
    with open(path) as f:
        for line in f:
            line = line.strip()
            if not line:
                continue
            result = json.loads(line).get("result", "")
            if result in ("OK", "EXPECTEDFAIL"):
                passed += 1
            elif result == "SKIP":
                skipped += 1
            else:
                failed += 1
                print(f"FAILED: {build}: {json.loads(line).get('name')} ({result})")

for path in missing:
    print(f"no test log {path}: its build or test run did not happen")
    failed += 1

line = f"{passed} passed, {failed} failed"
if skipped:
    line += f", {skipped} skipped"
print(line)
sys.exit(1 if failed else 0)
