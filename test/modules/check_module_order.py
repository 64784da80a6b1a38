#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Builds the include probes of test/modules/meson.build, which are not
built by default, and checks that each one compiles or fails as its module
allows: an include against the module order must fail because the header
is not found, and an allowed include must compile.

usage: check_module_order.py NINJA BUILD_ROOT {ok|forbidden}:HEADER:TARGET...
"""
import os
import subprocess
import sys


def build(ninja, root, target):
    rel = os.path.relpath(target, root)
    proc = subprocess.run([ninja, '-C', root, rel], stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True, timeout=300)
    return proc.returncode, proc.stdout


def main():
    ninja, root, cases = sys.argv[1], sys.argv[2], sys.argv[3:]
    failed = 0
    for case in cases:
        expect, header, target = case.split(':', 2)
        rc, out = build(ninja, root, target)
        name = os.path.basename(target)
        if expect == 'ok':
            good = rc == 0
            why = 'compiles' if good else 'does not compile:\n' + out
        else:
            # gcc: "uet/x.h: No such file or directory";
            # clang: "'uet/x.h' file not found"
            missing = header in out and ('No such file' in out or
                                         'file not found' in out)
            good = rc != 0 and missing
            why = ('rejected, header not found' if good else
                   'compiled' if rc == 0 else
                   'failed for another reason:\n' + out)
        print('%s %s (%s <%s>): %s' % ('ok  ' if good else 'FAIL', name,
                                       expect, header, why))
        failed += not good
    print('%d of %d probes as expected' % (len(cases) - failed, len(cases)))
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
