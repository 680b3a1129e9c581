#!/usr/bin/env python3
"""Boot the guest kernel + initramfs in a bare emulator (no hypervisor) and
check what /init printed: the CPU count, one RESULT line per workload (bartest
with ok=1) and the final "HVLINUX DONE ... failed=0" marker.

QEMU TCG boots the bzImage directly (-kernel/-initrd); Bochs needs a BIOS, so
it boots a GRUB ISO. "--emu hv" boots the kernel as a VM under the
hypervisor in Bochs through tools/hvrun. "--emu bareload" boots it in bare
Bochs through tools/linux/bareload (GRUB loads it with the kernel, initrd and
command line as modules; it runs the hypervisor's own load_bzimage() and guest
table builder natively and jumps to the kernel): the like-for-like bare side
of --bench-ratio. "--emu direct" is the hypervisor's own path without VT-x:
tools/linux/bzload runs load_bzimage() and the guest ACPI/MP table builder on
the host, and QEMU starts from that RAM image through romstub (no firmware). The run ends when the guest resets (QEMU -no-reboot) or,
at the latest, a few seconds after the DONE marker (Bochs loops on reset).
Prints one "TEST <name> PASS|FAIL" line per boot; exit 1 if any failed.
"""
import argparse
import fcntl
import os
import pty
import re
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import termios
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from hvrun_lib.bochsrc import bochsrc  # noqa: E402

BASE_CMDLINE = ("console=ttyS0,115200 earlyprintk=serial,ttyS0,115200 no_timer_check "
                "tsc=reliable lpj=10000000 idle=halt panic=-1 quiet")


def default_runs(cpus):
    """Short runs of every workload, sized for TCG (a few seconds in all)."""
    return [f"bartest {cpus} 100 spin", f"bartest {cpus} 200 futex",
            f"bartest {cpus} 200 mutex", "hog 50", "interfere periodic 60",
            "interfere intermittent 60", "latprobe 1000 20"]


def cmdline_for(runs, extra, commas=False):
    """Commas instead of quotes where the cmdline sits in a module string."""
    if commas:
        runs = ["hv.run=" + r.replace(" ", ",") for r in runs]
    else:
        runs = [f'hv.run="{r}"' for r in runs]
    return " ".join([BASE_CMDLINE] + runs + extra)


def qemu_argv(a, cpus, cmdline, serial):
    return ["qemu-system-x86_64", "-smp", str(cpus), "-m", str(a.mem), "-display", "none",
            "-monitor", "none", "-serial", f"file:{serial}", "-no-reboot",
            "-kernel", a.kernel, "-initrd", a.initrd, "-append", cmdline]


def bochsrc_text(mem, model, cpus, iso, serial, log):
    return bochsrc(mem=mem, iso=iso, serial=serial, log=log, model=model, cpus=cpus,
                   ips=50000000, triple_fault_reset=True, ignore_bad_msrs=True,
                   info="ignore")


def bochs_iso(a, cmdline, work):
    root = work / "iso"
    (root / "boot" / "grub").mkdir(parents=True)
    shutil.copyfile(a.kernel, root / "boot" / "bzImage")
    shutil.copyfile(a.initrd, root / "boot" / "initramfs.cpio")
    (root / "boot" / "grub" / "grub.cfg").write_text(
        "set timeout=0\nset default=0\nmenuentry linux {\n"
        f"  linux /boot/bzImage {cmdline}\n  initrd /boot/initramfs.cpio\n}}\n")
    iso = work / "linux.iso"
    subprocess.run(["grub-mkrescue", "-o", str(iso), str(root)], check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return iso


def host_tsc_khz():
    """TCG's TSC is the host's; without firmware-enabled HPET/PM timer Linux
    cannot calibrate it and falls back to jiffies, so tell it."""
    with open("/proc/cpuinfo") as f:
        m = re.search(r"^cpu MHz\s*:\s*([\d.]+)", f.read(), re.M)
    return int(float(m[1]) * 1000) if m else 0


def direct_argv(a, cpus, cmdline, serial, work):
    """QEMU with RAM and tables exactly as the hypervisor's loader leaves them.
    Its FADT ports are not QEMU's, and with PCI=n Linux cannot load the DSDT
    anyway, so the guest ends by reset (hv.off=reboot)."""
    khz = host_tsc_khz()
    cmdline += " hv.off=reboot" + (f" tsc_early_khz={khz}" if khz else "")
    res = subprocess.run([a.bzload, a.romstub, str(cpus), str(a.mem), a.kernel, a.initrd,
                          cmdline, str(work)],
                         capture_output=True, text=True, check=True)
    print("  " + res.stderr.strip().replace("\n", "\n  "))
    return ["qemu-system-x86_64", "-smp", str(cpus), "-m", str(a.mem), "-display", "none",
            "-monitor", "none", "-serial", f"file:{serial}", "-no-reboot"] + res.stdout.split()


def hv_argv(a, cpus, cmdline, serial, work):
    """The guest as vm0 under build/hv.elf in Bochs; hvrun ends the run when
    the VM does. Host RAM 512M: a 128M guest needs contiguous host memory."""
    vm = f'kind=linux vcpus={cpus} mem={a.guest_mem}M' + "".join(f" {o}" for o in a.vm_opt) + \
        f' cmdline="{cmdline}"'
    return [sys.executable, "tools/hvrun", "--emu", "bochs", "--cpus", str(cpus),
            "--mem", "512M", "--bochs-cpu", a.bochs_cpu, "--ips", "50000000",
            "--hv", a.hv, "--quiet", "--serial-log", str(serial), "--timeout",
            str(int(a.timeout)), "--workdir", str(work / "hvrun"), "--vm", vm,
            "--image", a.kernel, "--initrd", a.initrd] + \
        (["--cmdline", a.hv_cmdline] if a.hv_cmdline else [])


BARELOAD_MEGS = 512   # bareload.elf sits at 256 MiB, the modules above it


def bareload_iso(a, cpus, cmdline, work):
    """GRUB hands bareload the three modules by name (tools/linux/bareload);
    the command line travels as a file so that GRUB cannot requote it."""
    root = work / "iso"
    (root / "boot" / "grub").mkdir(parents=True)
    shutil.copyfile(a.bareload, root / "boot" / "bareload.elf")
    shutil.copyfile(a.kernel, root / "boot" / "bzImage")
    shutil.copyfile(a.initrd, root / "boot" / "initramfs.cpio")
    (root / "boot" / "cmdline.txt").write_text(cmdline)
    (root / "boot" / "grub" / "grub.cfg").write_text(
        "set timeout=0\nset default=0\nmenuentry bareload {\n"
        f"  multiboot2 /boot/bareload.elf vcpus={cpus} mem={a.guest_mem}M\n"
        "  module2 /boot/bzImage bzImage\n  module2 /boot/initramfs.cpio initrd\n"
        "  module2 /boot/cmdline.txt cmdline\n}\n")
    iso = work / "bareload.iso"
    subprocess.run(["grub-mkrescue", "-o", str(iso), str(root)], check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return iso


def bochs_argv(a, cpus, cmdline, serial, work):
    if a.emu == "bareload":
        iso, mem = bareload_iso(a, cpus, cmdline, work), max(a.mem, BARELOAD_MEGS)
    else:
        iso, mem = bochs_iso(a, cmdline, work), a.mem
    rc = work / "bochsrc"
    rc.write_text(bochsrc_text(mem, a.bochs_cpu, cpus, iso, serial, work / "bochs.log"))
    (work / "cont.rc").write_text("c\n")
    return ["bochs", "-q", "-f", str(rc), "-rc", str(work / "cont.rc")]


def spawn(argv, emu, work):
    """Start the emulator; Bochs's term display gets a private pty."""
    if emu not in ("bochs", "bareload"):
        with open(work / "stderr.log", "wb") as err:
            return subprocess.Popen(argv, stdin=subprocess.DEVNULL,
                                    stdout=subprocess.DEVNULL, stderr=err), None
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 25, 80, 0, 0))
    os.set_blocking(master, False)
    p = subprocess.Popen(argv, stdin=slave, stdout=slave, stderr=slave,
                         env=dict(os.environ, TERM="vt100"), start_new_session=True)
    os.close(slave)
    return p, master


def drain(fd):
    while fd is not None:
        try:
            if not os.read(fd, 65536):
                return
        except OSError:
            return


def wait_done(p, master, serial, timeout, grace=5):
    """Wait for the emulator to exit, or stop it `grace` s after the marker."""
    start, done_at = time.monotonic(), None
    while p.poll() is None:
        drain(master)
        text = serial.read_text(errors="replace") if serial.exists() else ""
        if done_at is None and "HVLINUX DONE" in text:
            done_at = time.monotonic()
        now = time.monotonic()
        if (done_at and now - done_at > grace) or now - start > timeout + 30:
            p.send_signal(signal.SIGTERM)
            try:
                p.wait(5)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
            break
        time.sleep(0.1)
    return time.monotonic() - start, done_at is not None


def check(text, cpus, runs, strict=False):
    """Return the list of problems in the serial output (empty = pass)."""
    errs = []
    m = re.search(r"HVLINUX BOOT cpus=(\d+) uptime_s=([\d.]+)", text)
    if not m:
        errs.append("no HVLINUX BOOT line (kernel did not reach /init)")
    elif int(m[1]) != cpus:
        errs.append(f"guest saw {m[1]} CPUs, wanted {cpus}")
    results = re.findall(r"^RESULT (\S+) (.*)$", text, re.M)
    for r in runs:
        name = r.replace(",", " ").split()[0]
        if not any(n == name for n, _ in results):
            errs.append(f"no RESULT line for '{r}'")
    for n, rest in results:
        if n == "bartest" and "ok=1" not in rest:
            errs.append(f"bartest failed: {rest}")
    if strict:
        # A kernel the hypervisor shows a wrong CPU warns and taints itself
        # (e.g. "XSAVE consistency problem"): both fail a strict boot.
        t = re.search(r"^HVLINUX TAINT (\d+)", text, re.M)
        if not t:
            errs.append("no HVLINUX TAINT line")
        elif int(t[1]):
            errs.append(f"kernel tainted (mask {t[1]})")
        errs += [f"kernel warning: {w}" for w in re.findall(r"^HVLINUX KWARN (.*)$", text, re.M)]
    d = re.search(r"HVLINUX DONE runs=(\d+) failed=(\d+)", text)
    if not d:
        errs.append("no HVLINUX DONE marker")
    elif int(d[1]) != len(runs) or int(d[2]) != 0:
        errs.append(f"DONE says runs={d[1]} failed={d[2]}, wanted runs={len(runs)} failed=0")
    return errs


def boot_one(a, cpus, work):
    runs = a.run or default_runs(cpus)
    # Both sides of --bench-ratio give the kernel the same bytes.
    cmdline = cmdline_for(runs, a.append, commas=a.emu in ("hv", "bareload"))
    serial = work / "serial.log"
    if a.emu == "qemu":
        argv = qemu_argv(a, cpus, cmdline, serial)
    elif a.emu == "direct":
        argv = direct_argv(a, cpus, cmdline, serial, work)
    elif a.emu == "hv":
        argv = hv_argv(a, cpus, cmdline, serial, work)
    else:
        argv = bochs_argv(a, cpus, cmdline, serial, work)
    p, master = spawn(argv, a.emu, work)
    wall, _ = wait_done(p, master, serial, a.timeout, 60 if a.emu == "hv" else 5)
    if master is not None:
        os.close(master)
    text = serial.read_text(errors="replace") if serial.exists() else ""
    if a.emu == "hv":   # the hypervisor prefixes guest lines with "[vm0] "
        text = re.sub(r"^\[vm\d+\] ", "", text, flags=re.M)
        if p.returncode:
            print(f"  hvrun exit status {p.returncode}")
    errs = check(text, cpus, runs, a.strict)
    errs += [f"no line matching '{e}'" for e in a.expect if not re.search(e, text, re.M)]
    if a.emu == "bareload" and not boot_cycles(text, a.emu):
        errs.append("no 'bareload: kernel entry tsc=' / 'tsc-init' stamps in order")
    return text, errs, wall


def report(a, cpus, text, errs, wall):
    name = {"qemu": "linux-bare-qemu", "bochs": "linux-bare-bochs",
            "direct": "linux-direct-qemu", "hv": "linux-hv-bochs",
            "bareload": "linux-bareload-bochs"}[a.emu] if not a.name else a.name
    name += f"-smp{cpus}"
    for line in text.splitlines():
        if line.startswith(("RESULT", "HVLINUX")) or (a.verbose and line):
            print(f"  {line}")
    up = re.search(r"HVLINUX BOOT cpus=\d+ uptime_s=([\d.]+)", text)
    fin = re.search(r"HVLINUX DONE .*uptime_s=([\d.]+)", text)
    print(f"  {name}: wall {wall:.1f} s, guest uptime at /init "
          f"{up[1] if up else '?'} s, at DONE {fin[1] if fin else '?'} s")
    if errs:
        print("  --- last serial lines ---")
        for line in text.splitlines()[-25:]:
            print(f"  | {line}")
    if up and not errs:
        # Guest seconds to /init: in Bochs (clock: sync=none) these are
        # instructions / ips, a repeatable cost figure for `make bench`.
        cyc = boot_cycles(text, a.emu) if a.emu in ENTRY_STAMP else None
        print(f"BENCH linux-boot emu={a.emu} cpus={cpus} guest_s_to_init={up[1]} "
              f"guest_s_to_done={fin[1] if fin else '?'} wall_s={wall:.1f}" +
              (f" tsc_entry_to_init={cyc}" if cyc else ""))
    print(f"TEST {name} {'FAIL' if errs else 'PASS'}" +
          (": " + "; ".join(errs) if errs else ""))


def run_all(a):
    """Boot once per --cpus; return (failures, {cpus: serial text of a passing boot})."""
    failed, texts = 0, {}
    for cpus in a.cpus or [2]:
        work = Path(tempfile.mkdtemp(prefix=f"linux-{a.emu}-{cpus}-"))
        try:
            text, errs, wall = boot_one(a, cpus, work)
            report(a, cpus, text, errs, wall)
            failed += bool(errs)
            if not errs:
                texts[cpus] = text
        finally:
            if a.keep:
                Path(a.keep).mkdir(parents=True, exist_ok=True)
                for f in ("serial.log", "bochs.log", "stderr.log"):
                    if (work / f).exists():
                        shutil.copyfile(work / f, Path(a.keep) / f"{a.emu}-smp{cpus}-{f}")
            shutil.rmtree(work, ignore_errors=True)
    return failed, texts


ENTRY_STAMP = {"bareload": r"^bareload: kernel entry tsc=(\d+)",
               "hv": r"^\S+: vcpu0 first entry tsc=(\d+)"}
LOADER_LINE = r"^bzimage: protocol .*$"


def boot_cycles(text, emu):
    """TSC cycles from the kernel's entry to /init's first instruction of
    tscstamp (first stamps only: a bare Bochs run reboots into bareload)."""
    entry = re.search(ENTRY_STAMP[emu], text, re.M)
    init = re.search(r"^tsc-init (\d+)", text, re.M)
    if not entry or not init or int(init[1]) <= int(entry[1]):
        return None
    return int(init[1]) - int(entry[1])


def bench_ratio(a):
    """Kernel entry to /init in TSC cycles under the hypervisor over bare
    Bochs. Both sides load with load_bzimage() and the guest tables, with the
    same command line, RAM and CPUs; with clock: sync=none Bochs's TSC counts
    emulated instructions, so the counts repeat exactly. The hypervisor side
    runs twice: as users run it (KVM PV clock on) and with kvm=off."""
    a.emu = "bareload"
    failed, bare = run_all(a)
    results = []
    for opt in ([], ["kvm=off"]):
        a.emu, a.vm_opt = "hv", a.vm_opt + opt
        f, hv = run_all(a)
        failed += f
        results.append((" ".join(opt) or "default", hv))
        a.vm_opt = a.vm_opt[:len(a.vm_opt) - len(opt)]
    bad = 0
    for cpus in sorted(bare):
        b = boot_cycles(bare[cpus], "bareload")
        lb = re.search(LOADER_LINE, bare[cpus], re.M)
        for name, hv in results:
            h = boot_cycles(hv.get(cpus, ""), "hv")
            lh = re.search(LOADER_LINE, hv.get(cpus, ""), re.M)
            if not b or not h:
                print(f"  cpus={cpus} vm={name}: missing TSC stamps (bare={b}, hv={h})")
                bad += 1
                continue
            if not lb or not lh or lb[0] != lh[0]:
                print(f"  cpus={cpus}: loaders differ:\n    bare: {lb and lb[0]}\n"
                      f"    hv:   {lh and lh[0]}")
                bad += 1
            print(f"BENCH linux-boot-cycles cpus={cpus} vm={name} hv={h} bare={b} "
                  f"hv/bare={h / b:.3f}")
            rb, rh = hog_rate(bare[cpus]), hog_rate(hv.get(cpus, ""))
            if rb and rh:
                print(f"BENCH linux-cpu-bound cpus={cpus} vm={name} loops_per_ms hv={rh:.3f} "
                      f"bare={rb:.3f} hv/bare={rh / rb:.4f}")
    return 1 if failed or bad or not bare else 0


def per_iter(text):
    """{workload key: ns per iteration} from the RESULT lines that carry
    per_iter_ns (bartest, blockbench); the key names the program, its mode
    and what sizes it (threads, sleep length)."""
    out = {}
    for name, rest in re.findall(r"^RESULT (\S+) (.*)$", text, re.M):
        kv = dict(w.split("=", 1) for w in rest.split() if "=" in w)
        if "per_iter_ns" not in kv:
            continue
        key = " ".join([name, kv.get("mode", "")] +
                       [f"{k}={kv[k]}" for k in ("threads", "us") if k in kv])
        out[key] = int(kv["per_iter_ns"])
    return out


def bench_block(a):
    """Blocking and wake-up workloads per iteration under the hypervisor over
    bare Bochs (issue 19), both loaded by load_bzimage() with the same bytes.
    Guest nanoseconds come from the guest's own clock, which in Bochs with
    clock: sync=none advances with emulated instructions: the ratios repeat."""
    a.emu = "bareload"
    failed, bare = run_all(a)
    a.emu = "hv"
    f, hv = run_all(a)
    failed += f
    for cpus in sorted(bare):
        b, h = per_iter(bare[cpus]), per_iter(hv.get(cpus, ""))
        for key in b:
            if key not in h or not b[key]:
                print(f"  cpus={cpus} {key}: no result under the hypervisor")
                failed += 1
                continue
            print(f"BENCH linux-block cpus={cpus} {key.replace(' ', '-').rstrip('-')} "
                  f"per_iter_ns hv={h[key]} bare={b[key]} hv/bare={h[key] / b[key]:.3f}")
    return 1 if failed or not bare else 0


def hog_rate(text):
    """Work per guest ms of the `hog` workload (a CPU-bound loop): what the
    guest gets done per unit of its own time, bare and under the hypervisor."""
    m = re.search(r"RESULT hog threads=\d+ ms=\d+ elapsed_ns=(\d+) cpu_ns=\d+ loops=(\d+)", text)
    return int(m[2]) / (int(m[1]) / 1e6) if m and int(m[1]) else None


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--emu", choices=["qemu", "direct", "bochs", "hv", "bareload"],
                    default="qemu")
    ap.add_argument("--bareload", default="build/linux/bareload.elf")
    ap.add_argument("--hv", default="build/hv.elf")
    ap.add_argument("--hv-cmdline", default="", help="hypervisor options, --emu hv")
    ap.add_argument("--guest-mem", type=int, default=128, help="MiB, --emu hv/bareload")
    ap.add_argument("--vm-opt", action="append", default=[],
                    help="extra word for the --emu hv module string (e.g. kvm=off)")
    ap.add_argument("--bzload", default="build/linux/bzload")
    ap.add_argument("--romstub", default="build/linux/romstub.bin")
    ap.add_argument("--cpus", type=int, action="append")
    ap.add_argument("--mem", type=int, default=256, help="MiB")
    ap.add_argument("--kernel", default="build/linux/bzImage")
    ap.add_argument("--initrd", default="build/linux/initramfs.cpio")
    ap.add_argument("--run", action="append", help="workload command (repeatable)")
    ap.add_argument("--append", action="append", default=[], help="extra cmdline words")
    ap.add_argument("--bochs-cpu", default="corei7_haswell_4770")
    ap.add_argument("--timeout", type=float, default=None)
    ap.add_argument("--keep", help="directory to keep serial logs in")
    ap.add_argument("--bench-ratio", action="store_true",
                    help="boot in bare Bochs and under the hypervisor, print the ratio")
    ap.add_argument("--bench-block", action="store_true",
                    help="per-iteration cost of the --run workloads, hypervisor / bare Bochs")
    ap.add_argument("--strict", action="store_true",
                    help="also fail on a tainted kernel or any kernel warning")
    ap.add_argument("--expect", action="append", default=[],
                    help="regex the serial log must match, e.g. a hypervisor line (repeatable)")
    ap.add_argument("--name", default=None, help="test name prefix (default from --emu)")
    ap.add_argument("-v", "--verbose", action="store_true")
    a = ap.parse_args()
    bench = a.bench_ratio or a.bench_block   # these boot Bochs whatever --emu says
    a.timeout = a.timeout or (120 if a.emu in ("qemu", "direct") and not bench else 600)
    if a.bench_ratio:
        return bench_ratio(a)
    if a.bench_block:
        return bench_block(a)
    failed, _ = run_all(a)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
