#!/usr/bin/env python3
"""The hang watchdog (hv/vm/watchdog.c) and hvrun's timeout dump, provoked.

stall:   2 pCPUs, two 1-vCPU test VMs pinned to pCPU 1; watchdog_stall_ms
         makes pCPU 1 spin 400 ms with interrupts off at its first guest.
         With watchdog_ms=100 the log must name the stalled pCPU, the vCPU
         left runnable behind it and the VMs without progress, hold one
         state dump, and both VMs must still pass afterwards.
timeout: a flat guest that arms a 1 ms LAPIC timer and does `cli; hlt`
         forever (a VM nothing can wake), a flat guest that arms a 100 us
         periodic LAPIC timer and spins with interrupts off (it takes a
         preemption-timer exit every period and never a guest instruction
         exit: the livelock signature), and a test VM; the watchdog reports
         the hung VM once, its vCPU as halted with IF=0 and vector 0x40 in
         IRR, the spinner as a livelock (one dump for all of it), hvrun's
         timeout types `w` and the key's dump, with the halted vCPU's state,
         is in the log before Bochs is stopped.
vprofdump: pvabi's 2 vCPUs pinned to pCPU 1, whose HC_VPROF_STOP dump keeps
         pCPU 1 in one exit for longer than watchdog_ms=100: one line names
         it busy writing the dump, and nothing is reported or dumped (before
         issue 17's fix: "pcpu1 has not scheduled", the other vCPU "runnable
         without running", the VM "no progress" and a state dump). The stall
         case above checks that a real stall is still reported and dumped.
`make test-watchdog` (in `make test`) runs all three, about 45 s (the hang
lasts until the 25 s timeout, long enough for a slow boot on a loaded machine).
"""
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
GUEST = REPO / "build" / "guest"
# 32-bit flat guests (hv/load/flat.c: protected mode, paging off).
APIC_ON = (b"\xc7\x05\xf0\x00\xe0\xfe\xff\x01\x00\x00"    # SVR = 0x1ff: APIC on
           b"\xc7\x05\xe0\x03\xe0\xfe\x0b\x00\x00\x00")   # TDCR: divide by 1
HANG = (APIC_ON +
        b"\xc7\x05\x20\x03\xe0\xfe\x40\x00\x00\x00"       # LVT timer: one-shot, vector 0x40
        b"\xc7\x05\x80\x03\xe0\xfe\x40\x42\x0f\x00"       # TMICT: 1 ms (1 GHz bus)
        b"\xfa\xf4\xeb\xfd")                                  # cli; hlt; jmp back to the hlt
SPIN = (APIC_ON +
        b"\xc7\x05\x20\x03\xe0\xfe\x40\x00\x02\x00"       # LVT timer: periodic, vector 0x40
        b"\xc7\x05\x80\x03\xe0\xfe\xa0\x86\x01\x00"       # TMICT: 100 us
        b"\xfa\xeb\xfe")                                      # cli; jmp $


def hvrun(cmdline, vms, timeout, log):
    argv = [sys.executable, str(REPO / "tools" / "hvrun"), "--emu", "bochs", "--cpus", "2",
            "--quiet", "--serial-log", str(log), "--timeout", str(timeout),
            "--cmdline", cmdline]
    for string, img in vms:
        argv += ["--vm", string, "--image", str(img)]
    p = subprocess.run(argv, capture_output=True, text=True)
    return p.returncode, log.read_text(errors="replace") if log.exists() else "", p.stderr


def need(serial, what, rx, bad, count=None):
    n = len(re.findall(rx, serial, re.M))
    if (count is None and n == 0) or (count is not None and n != count):
        bad.append(f"{what}: {n} line(s) matching {rx!r}" +
                   (f", want {count}" if count is not None else ""))


def case_stall(tmp):
    status, s, err = hvrun("watchdog_ms=100 watchdog_stall_ms=400", [
        ('kind=multiboot vcpus=1 mem=32M pcpus=1 cmdline="test=hypercall"',
         GUEST / "hypercall-64.elf"),
        ('kind=multiboot vcpus=1 mem=32M pcpus=1 cmdline="test=msr"', GUEST / "msr-64.elf")],
        120, tmp / "stall.log")
    bad = [] if status == 0 else [f"hvrun status {status} (want 0)"]
    need(s, "stall provoked", r"^watchdog: debug: pcpu1 stalls 400 ms", bad)
    need(s, "pCPU report", r"^watchdog: pcpu1 has not scheduled for \d+ ms", bad, 1)
    need(s, "starved vCPU", r"^watchdog: \S+ vcpu0 \(vm\d\.v0\) runnable for \d+ ms "
         r"without running, on pcpu1", bad, 1)
    need(s, "VM without progress", r"^watchdog: \S+ \(vm\d\) has made no progress", bad)
    need(s, "one dump", r"^watchdog: ==== state dump \(watchdog\)", bad, 1)
    need(s, "scheduler state", r"^sched: pcpu1 curr=vm\d\.v0 ", bad)
    need(s, "runqueue", r"^sched: vm\d\.v0 RUNNABLE for \d+ms pcpu=1", bad)
    need(s, "pending interrupts", r"^watchdog: vm\d\.v0 guest=\S+ .*irr_top=", bad, 2)
    need(s, "dump end", r"^watchdog: ==== end of state dump", bad, 1)
    for t in ("hypercall", "msr"):
        need(s, f"{t} passes", rf"SUMMARY {t} passed=\d+ failed=0", bad)
    return bad, s + err


def case_timeout(tmp):
    img, spin = tmp / "hang.bin", tmp / "spin.bin"
    img.write_bytes(HANG)
    spin.write_bytes(SPIN)
    status, s, err = hvrun("watchdog_ms=300", [
        ("kind=flat vcpus=1 mem=16M name=hang pcpus=0", img),
        ('kind=multiboot vcpus=1 mem=32M pcpus=0 cmdline="test=msr"', GUEST / "msr-64.elf"),
        ("kind=flat vcpus=1 mem=16M name=spin pcpus=1", spin)],
        25, tmp / "timeout.log")
    bad = [] if status == 124 else [f"hvrun status {status} (want 124, timeout)"]
    need(s, "hung VM reported once", r"^watchdog: hang \(vm0\) has made no progress", bad, 1)
    need(s, "one watchdog dump", r"^watchdog: ==== state dump \(watchdog\)", bad, 1)
    need(s, "timeout dump", r"^watchdog: ==== state dump \(key w\)", bad, 1)
    need(s, "halted vCPU named", r"^watchdog: vm0\.v0 guest=halted halt_if=0 .*timer=never "
         r".*timer_fired=1 tscdl_ignored=0 wait=halted-if0$", bad, 2)
    need(s, "halted with IF=0 and the timer's vector pending",
         r"^watchdog: hang vcpu0 \(vm0\.v0\) blocked halted-if0 for \d+ ms: timer=never "
         r"timer_fired=1 irr_top=64 ", bad, 1)
    need(s, "livelock named", r"^watchdog: spin vcpu0 \(vm2\.v0\) livelock: \d+ exits in \d+ ms, "
         r"\d+ retiring no guest instruction, most preemption-timer", bad, 1)
    need(s, "no other vCPU report", r"^watchdog: msr\S* vcpu0 .*(livelock|blocked|running) ", bad, 0)
    need(s, "dump ends", r"^watchdog: ==== end of state dump", bad, 2)
    need(s, "other VM passes", r"SUMMARY msr passed=\d+ failed=0", bad)
    if "typing `w`" not in err:
        bad.append("hvrun did not say it typed the dump key")
    return bad, s + err


def case_vprof_dump(tmp):
    """A vProfile dump (pvabi's HC_VPROF_STOP) keeps pCPU 1 in one exit for
    longer than watchdog_ms=100: busy, not stalled; nothing else reported."""
    status, s, err = hvrun("watchdog_ms=100 sched_sa_limit_us=10000", [
        ("kind=multiboot vcpus=2 mem=32M sa=on pcpus=1,1", GUEST / "pvabi-64.elf")],
        120, tmp / "vprofdump.log")
    bad = [] if status == 0 else [f"hvrun status {status} (want 0)"]
    need(s, "dump written", r"^@VP1 0 ", bad)
    need(s, "busy pCPU named", r"^watchdog: pcpu1 busy writing a vProfile dump for \d+ ms "
         r"\(no poll, no exit of vm0; \d+ lines so far\): not a stall", bad, 1)
    need(s, "no stall report", r"^watchdog: pcpu\d has not scheduled", bad, 0)
    need(s, "no vCPU or VM report", r"^watchdog: \S+ (vcpu\d|\(vm\d\)) ", bad, 0)
    need(s, "no dump", r"^watchdog: ==== state dump", bad, 0)
    need(s, "pvabi passes", r"SUMMARY pvabi passed=\d+ failed=0", bad)
    return bad, s + err


def main():
    ok = True
    with tempfile.TemporaryDirectory(prefix="watchdog-") as d:
        for name, fn in (("stall", case_stall), ("timeout", case_timeout),
                         ("vprofdump", case_vprof_dump)):
            t0 = time.time()
            bad, text = fn(Path(d))
            print(f"  watchdog {name:8s} {'ok ' if not bad else 'BAD'} {time.time() - t0:5.1f}s",
                  flush=True)
            for b in bad:
                print(f"      {b}")
            if bad:
                ok = False
                for ln in text.splitlines()[-40:]:
                    print(f"      | {ln}")
    print(f"watchdog: {'all cases ok' if ok else 'FAILED'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
