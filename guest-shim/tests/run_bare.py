#!/usr/bin/env python3
"""Run every guest test image on bare QEMU (TCG, no hypervisor) and check it.

Bare QEMU is not our hypervisor: checks listed in BARE_FAIL are expected to
FAIL there (HV = needs this hypervisor, TCG = QEMU 7.2 TCG lacks the feature,
see docs/guest-tests.md). Everything else must PASS, the SUMMARY line must
agree with the TEST lines, and the exit status must be isa-debug-exit's
(code << 1) | 1. triple must end QEMU by shutdown (-no-reboot => status 0).

usage: run_bare.py BUILD_GUEST_DIR [image-name-glob ...]
"""
import fnmatch
import os
import re
import subprocess
import sys
import time

QEMU = ["qemu-system-x86_64", "-device", "isa-debug-exit,iobase=0xf4,iosize=0x04",
        "-serial", "stdio", "-display", "none", "-smp", "4", "-m", "128",
        "-no-reboot", "-append", "bare=1"]
TIMEOUT = 30

# check-name patterns (without the "<test>_" prefix) expected to FAIL bare.
BARE_FAIL = {
    "cpuid": {"signature": "HV", "x2apic": "TCG", "tsc_deadline": "TCG"},
    "msr": {"tsc": "TCG", "unknown_read_gp": "TCG", "unknown_write_gp": "TCG",
            "efer_reserved_gp": "TCG", "x2apic_msr_in_xapic_gp": "TCG",
            "pat_reserved_gp": "TCG"},
    "pio": {"no_pci": "HV"},
    # TCG: no #GP for unknown MSRs, LME changes under paging or APIC-base
    # bits above MAXPHYADDR; qemu64's max basic leaf is 0xd (no leaf 0x15).
    "conform": {"efer_lme_clear_gp": "TCG", "rf_*": "TCG", "apic_base_maxphyaddr_gp": "TCG",
                "lapic_rate_cpuid15": "TCG", "cr0_pg_lme_without_pae_gp": "TCG"},
    "timer": {"tsc_deadline": "TCG"},
    "ipi": {"x2apic_self": "TCG"},
    "ept": {"hole_*": "HV"},
    "eptfar": {"stopped": "HV"},
    "hypercall": {"signature": "HV", "version": "HV", "unknown_*": "HV",
                  "regs_preserved": "HV", "still_alive": "HV", "sched_*": "HV"},
    # wall-clock latency under TCG follows the host's load (the bound is for the hypervisor)
    "devcross": {"round*": "TCG", "all_rounds_fast": "TCG"},
    "kvmyield": {"kvm_signature": "HV", "feature_bit": "HV", "bad_target": "HV",
                 "self_target": "HV", "directed_yield_*": "HV", "yield_lets_target_run": "HV"},
    "kvmipi": {"kvm_signature": "HV", "feature_bit": "HV", "icr0_sends_nothing": "HV",
               "fixed_*": "HV", "nmi_*": "HV", "invalid_only": "HV", "*_target_*": "HV",
               "word_size_cluster": "HV",
               "logical_einval": "HV"},
    # QEMU 7.2 TCG accepts reserved PAT types and CR4.PCIDE outside long mode.
    "guestsec": {"pat_type2_gp": "TCG", "pat_type8_gp": "TCG",
                 "pcide_outside_long_mode_gp": "TCG"},
}
# Images that only make sense under this hypervisor: hostile's random port
# and MMIO writes reach real QEMU devices (floppy/IDE DMA, resets) there.
BARE_SKIP = {"hostile", "idtmmio", "hvfuzz", "pvabi", "timerwake", "taskswitch", "live",
             "tscdl", "fpuswitch", "kickwake"}   # idtmmio: a triple fault by design there;
# pvabi: nothing but this hypervisor's PV ABI (its upcalls never come on bare QEMU);
# timerwake, tscdl: the hypervisor's timer path; QEMU TCG's CPU has no TSC-deadline mode
# taskswitch: the task switch it tests is carried out there (the VM must stop here)
# live: this hypervisor's run-time policy switch hypercalls (VMCALL is #UD on bare QEMU)
# fpuswitch: the hypervisor's switch between two VMs on one pCPU; QEMU TCG's
# default CPU has no XSAVE, so its first check fails there by design
# kickwake: the hypervisor's kick to a pCPU shared with a hog VM (pcpus=)
# Images skipped by name: QEMU 7.2 TCG checks no segment limit or type, and
# its UART asserts on the 32-bit seglimit's 2-byte INSW at port 0x3ff (bare
# Bochs passes it: run_bochs_bare.py build/guest/seglimit.elf).
BARE_SKIP_IMAGES = {"seglimit.elf"}
LINE = re.compile(r"^TEST (\S+) (PASS|FAIL)(?: (.*))?$")
SUMMARY = re.compile(r"^SUMMARY (\S+) passed=(\d+) failed=(\d+)")


def test_of(image):
    base = os.path.basename(image).split(".")[0]
    return base[:-3] if base.endswith("-64") else base


def expected_fail(test, check):
    for pat in BARE_FAIL.get(test, {}):
        if fnmatch.fnmatch(check, pat):
            return True
    return False


def judge(test, out, rc):
    """Return a list of problems (empty = as expected)."""
    lines = [l.rstrip("\r") for l in out.splitlines()]
    tests = [m.groups() for m in map(LINE.match, lines) if m]
    summ = [m for m in map(SUMMARY.match, lines) if m]
    if test == "triple":
        bad = [] if rc == 0 else [f"QEMU status {rc}, want 0 (shutdown)"]
        if not any(l.startswith("triple:") for l in lines):
            bad.append("no 'triple:' line")
        return bad + [f"{n} {r}" for n, r, _ in tests if n != "triple_boot"]
    bad = []
    for name, res, detail in tests:
        check = name[len(test) + 1:] if name.startswith(test + "_") else name
        if res == "FAIL" and not expected_fail(test, check):
            bad.append(f"unexpected FAIL {name} {detail or ''}")
    if len(summ) != 1:
        return bad + ["no SUMMARY line"]
    npass = sum(r == "PASS" for _, r, _ in tests)
    nfail = len(tests) - npass
    if (int(summ[0][2]), int(summ[0][3])) != (npass, nfail):
        bad.append(f"SUMMARY says {summ[0][2]}/{summ[0][3]}, lines say {npass}/{nfail}")
    want_rc = 3 if nfail else 1
    if rc != want_rc:
        bad.append(f"QEMU status {rc}, want {want_rc}")
    return bad


def run(image):
    t0 = time.time()
    try:
        p = subprocess.run(QEMU + ["-kernel", image], capture_output=True, text=True,
                           timeout=TIMEOUT, stdin=subprocess.DEVNULL)
        out, rc = p.stdout, p.returncode
    except subprocess.TimeoutExpired as e:
        out = e.stdout.decode() if isinstance(e.stdout, bytes) else (e.stdout or "")
        return out, None, time.time() - t0
    return out, rc, time.time() - t0


def main(argv):
    d = argv[1]
    pats = argv[2:] or ["*"]
    images = sorted(f for f in os.listdir(d)
                    if (f.endswith(".elf") or f.endswith(".bin"))
                    and any(fnmatch.fnmatch(f, p) for p in pats)
                    and test_of(f) not in BARE_SKIP and f not in BARE_SKIP_IMAGES)
    failed = 0
    for f in images:
        test = test_of(f)
        for attempt in range(2):          # one retry: timing checks on a loaded host
            out, rc, secs = run(os.path.join(d, f))
            bad = ["timeout"] if rc is None else judge(test, out, rc)
            if not bad:
                break
            if attempt == 0:
                print(f"  {f}: retrying after: {'; '.join(bad)}")
        xfail = sum(1 for l in out.splitlines() if " FAIL" in l and l.startswith("TEST"))
        if bad:
            print(f"  {f:24s} BAD {secs:5.1f}s")
        else:
            print(f"  {f:24s} ok  {secs:5.1f}s ({xfail} expected bare failures)")
        for b in bad:
            print(f"      {b}")
        if bad:
            failed += 1
            sys.stdout.write("".join("      | " + l + "\n" for l in out.splitlines()[-30:]))
    print(f"guest-bare: {len(images) - failed} images ok, {failed} bad")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
