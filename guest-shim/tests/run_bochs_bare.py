#!/usr/bin/env python3
"""Run guest test images on bare Bochs (no hypervisor) through GRUB.

Manual tool (too slow for make test): Bochs' CPU models have what QEMU 7.2 TCG
lacks (x2APIC, TSC-deadline, #GP on unknown MSRs), so this exercises those
checks before the hypervisor can. Bochs has no isa-debug-exit or fw_cfg: the
images end it through port 0x8900 ("Shutdown") and count CPUs from the MADT.

usage: run_bochs_bare.py IMAGE [--cpus N] [--model M] [--timeout S]
Prints the serial output; exit 0 if a SUMMARY line appeared.
"""
import argparse
import os
import pty
import select
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tools"))
from hvrun_lib.bochsrc import bochsrc  # noqa: E402

GRUB = """set timeout=0
menuentry guest {{
  multiboot /boot/{name} bochs=1
  boot
}}
"""


def rc_text(model, cpus, iso, serial, log):
    return bochsrc(mem=128, iso=iso, serial=serial, log=log, model=model, cpus=cpus,
                   ips=10000000, sound=False, info="ignore")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("image")
    ap.add_argument("--cpus", type=int, default=4)
    ap.add_argument("--model", default="corei7_icelake_u")
    ap.add_argument("--timeout", type=int, default=300)
    a = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="guest-bochs-") as tmp:
        t = Path(tmp)
        root = t / "root" / "boot" / "grub"
        root.mkdir(parents=True)
        name = Path(a.image).name
        shutil.copyfile(a.image, t / "root" / "boot" / name)
        (root / "grub.cfg").write_text(GRUB.format(name=name))
        iso = t / "g.iso"
        subprocess.run(["grub-mkrescue", "-o", str(iso), str(t / "root")], check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        serial = t / "serial.txt"
        (t / "bochsrc").write_text(rc_text(a.model, a.cpus, iso, serial, t / "bochs.log"))
        (t / "cont").write_text("c\nquit\n")
        master, slave = pty.openpty()
        p = subprocess.Popen(["bochs-bin", "-q", "-f", str(t / "bochsrc"), "-rc", str(t / "cont")],
                             stdin=slave, stdout=slave, stderr=slave,
                             env=dict(os.environ, TERM="vt100"))
        os.close(slave)
        end = time.time() + a.timeout
        while p.poll() is None and time.time() < end:
            if select.select([master], [], [], 0.5)[0]:
                try:
                    os.read(master, 65536)
                except OSError:
                    pass
            if serial.exists() and "SUMMARY" in serial.read_text(errors="replace"):
                time.sleep(1)
                break
        if p.poll() is None:
            p.kill()
            p.wait()
        out = serial.read_text(errors="replace") if serial.exists() else ""
        sys.stdout.write(out.replace("\r", ""))
        for ln in (t / "bochs.log").read_text(errors="replace").splitlines():
            if "e[" in ln or "p[" in ln:
                print("bochs:", ln)
        return 0 if "SUMMARY" in out else 1


if __name__ == "__main__":
    sys.exit(main())
