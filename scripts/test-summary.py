#!/usr/bin/env python3
"""Add up meson's testlog.json of each build directory into one line:
'N passed, N failed[, N skipped]'. Exit 1 if anything failed or a log is missing."""
import json
import os
import sys

passed = failed = skipped = 0
missing = []
for build in sys.argv[1:]:
    path = os.path.join(build, "meson-logs", "testlog.json")
    if not os.path.exists(path):
        missing.append(build)
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

for build in missing:
    print(f"no test log in {build}: its build or test run did not happen")
    failed += 1

line = f"{passed} passed, {failed} failed"
if skipped:
    line += f", {skipped} skipped"
print(line)
sys.exit(1 if failed else 0)
