#!/usr/bin/env python3
"""Name the guest-kernel addresses in a hypervisor log (issue 17: a hang
explains itself). The watchdog dump prints, per vCPU, the RIP of its last
HLT and PAUSE-loop exit and the kernel-text words of its stack; this adds
"<symbol+0xoff>" after every 0xffffffff8... address, using the symbol table
of the cached guest kernel (no KASLR in guest-shim/linux/guest.config).

usage: tools/linux/symbolize.py LOG [--vmlinux PATH] [--all]
  LOG        serial log (e.g. stealtest.py --keep); '-' reads stdin
  --vmlinux  default: the vmlinux next to tools/linux/build-kernel.sh's bzImage
  --all      print every line, not only the watchdog's
"""
import argparse
import bisect
import os
import re
import subprocess
import sys

ADDR = re.compile(r"0x(ffffffff[0-9a-f]{8})")


def default_vmlinux():
    top = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    frag = os.path.join(top, "guest-shim", "linux", "guest.config")
    try:
        out = subprocess.run([os.path.join(top, "tools", "linux", "build-kernel.sh"), frag],
                             capture_output=True, text=True, check=True, cwd=top).stdout
    except (OSError, subprocess.CalledProcessError):
        return None
    path = os.path.join(os.path.dirname(out.strip().splitlines()[-1]), "vmlinux")
    return path if os.path.exists(path) else None


def load_symbols(vmlinux):
    out = subprocess.run(["nm", "-n", vmlinux], capture_output=True, text=True, check=True).stdout
    addrs, names = [], []
    for line in out.splitlines():
        parts = line.split()
        if len(parts) >= 3 and parts[1] in "tTwW":
            addrs.append(int(parts[0], 16))
            names.append(parts[2])
    return addrs, names


def name(addrs, names, a):
    i = bisect.bisect_right(addrs, a) - 1
    if i < 0:
        return None
    return "%s+%#x" % (names[i], a - addrs[i])


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("log")
    ap.add_argument("--vmlinux")
    ap.add_argument("--all", action="store_true")
    a = ap.parse_args()
    vml = a.vmlinux or default_vmlinux()
    if not vml:
        sys.exit("symbolize: no vmlinux (give --vmlinux)")
    addrs, names = load_symbols(vml)
    f = sys.stdin if a.log == "-" else open(a.log, errors="replace")
    for line in f:
        if not a.all and not line.startswith("watchdog:"):
            continue
        if "EPT violation" in line:
            continue
        line = ADDR.sub(lambda m: "%s<%s>" % (m.group(0), name(addrs, names, int(m.group(1), 16))
                                             or "?"), line)
        sys.stdout.write(line)


if __name__ == "__main__":
    main()
