#!/usr/bin/env python3
"""Run check-based unit test binaries and print one summary line.

Each binary prints check's "NN%: Checks: C, Failures: F, Errors: E" line;
we add them up and print "unit: N passed, N failed" (the plain closing line CI reads).
"""
import re
import subprocess
import sys

TIMEOUT = 300  # seconds per test binary; a hang is a failure
LINE = re.compile(r"(\d+)%: Checks: (\d+), Failures: (\d+), Errors: (\d+)")


def main(binaries):
    passed = failed = 0
    bad = []
    for b in binaries:
        try:
            p = subprocess.run([b], capture_output=True, text=True, timeout=TIMEOUT,
                               env={"CK_FORK": "yes", "PATH": "/usr/bin:/bin"})
        except subprocess.TimeoutExpired:
            bad.append(b)
            failed += 1
            print(f"{b}: timed out after {TIMEOUT} s")
            continue
        out = p.stdout + p.stderr
        # A binary may run its suite more than once (test_sched_conform: once
        # per preemption mode) and print one summary per run: add them all.
        runs = LINE.findall(out)
        if not runs:
            bad.append(b)
            failed += 1
            sys.stdout.write(f"{b}: no check summary (exit {p.returncode})\n{out}\n")
            continue
        checks = sum(int(r[1]) for r in runs)
        fails = sum(int(r[2]) for r in runs)
        errs = sum(int(r[3]) for r in runs)
        failed += fails + errs
        passed += checks - fails - errs
        if fails or errs or p.returncode:
            bad.append(b)
            sys.stdout.write(out)
        else:
            print(f"  {b.split('/')[-1]}: {checks} checks ok")
    print(f"unit: {passed} passed, {failed} failed")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
