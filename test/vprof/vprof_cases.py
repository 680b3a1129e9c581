#!/usr/bin/env python3
"""vProfile system test under Bochs: the cases of `test/system/run.py --suite
vprof` (make test-vprof-system; test/vprof/system_test.py calls it).

Boots the hypervisor with test/vprof/guest_pattern.c as a one-vCPU VM; the
guest runs a profile with busy, halt and PAUSE phases separated by marks and
stops it, which dumps the trace over serial. The decoded phases must match
the pattern within the stated tolerances:
  busy  phase: running >= 85% of the phase
  halt  phase: blocked >= 70% (the guest's 20 Hz watchdog wakes it briefly)
  pause phase: running >= 85%, and spinning >= 50% unless --no-spin
               (spinning needs PAUSE-loop exiting and vprof_spin_set_ple)
Dedicated-mode scenario (seed 001 §2.3): two one-vCPU VMs share one pCPU;
vm0 (module key vprof=dedicated) runs a phase competing with vm1, then asks
for a dedicated period and runs a second phase; vm1 (no permission) must be
refused, and its own profile must show the time it spent frozen:
  shared phase:    vm0 steal >= 25% (fair share is 50%)
  dedicated phase: vm0 running >= 90%, steal <= 5%
  vm0 owned the machine >= 250 ms, vm1 was frozen >= 250 ms (phase: 300 ms)
Serial dump-key scenario (issue 5): one VM profiles until hvrun --send-key
types "?v" on COM1 after the guest's marker line; the log must then hold the
key list, exactly one complete dump whose reason is "serial key" taken while
the profile ran (each vCPU's states adding up to its window), decodable by
tools/vprof, followed by the guest's own stop dump. With console_keys=off the
same keys must do nothing (no key dump, no pause seen by the guest).
PMU (seed 001 §2.2): the "pmu: ..." boot line must say absent and the dump
must report every PMU counter of the vCPU as absent, never as zero (Bochs
advertises a PMU whose MSRs fault; hv/arch/x86/pmu.c). On a CPU with a
working PMU pass --pmu present: instructions and cycles must then be counted.
PMU sampling path (scenario pmu_tsc, pmu=tsc-test): "cycles" is the TSC cut
to 22 bits, read around every guest run like a counter, so the path from the
run loop to the dump runs without a PMU: only cycles may be present, it must
wrap (22 bits at 10 MHz: every 0.42 s) without harm, and cycles / TSC rate
must be 80-100% of the running time (the rest: scheduling outside vcpu_run).
Each scenario is one case (vprof-pattern, vprof-pmu_tsc, vprof-dedicated,
vprof-key, vprof-key_off); its judge prints the TEST lines of its checks.
Options of this suite: --image, --no-spin, --pmu, --timeout (600).
"""
import os
import re
import subprocess
import sys
import tempfile
import threading

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "tools"))
from vprof_lib import analysis, fmt, frames, report  # noqa: E402
from hvrun_lib.systest import Case, Vm  # noqa: E402

RESULTS = []   # (name, ok, detail) of the running judge's checks
JUDGE_LOCK = threading.Lock()   # one judge at a time (run.py -j 2)


def check(name, ok, detail):
    RESULTS.append((name, ok, detail))


def frac(ph, key):
    return ph.get(key, 0) / ph.length if ph.length else 0.0


def judge_pmu(text, d, want):
    m = re.search(r"^pmu: (.*)$", text, re.M)
    line = m[1] if m else None
    v = d.vcpus.get(0)
    if want == "absent":
        check("pmu_bootline", bool(m) and line.startswith("absent ("), f"boot line {line!r}")
        vals = {n: v.pmu_value(n) for n in fmt.PMU_COUNTERS} if v else {}
        check("pmu_absent_not_zero", v is not None and v.pmu_present == 0 and
              all(x is None for x in vals.values()),
              f"present mask {v.pmu_present if v else None:#x}, samples "
              f"{v.pmu_samples if v else None}, values {vals}" if v else "no vCPU 0 in the dump")
        lines = report._pmu_lines(d)
        check("pmu_report_absent", bool(lines) and all("absent" in x for x in lines),
              "; ".join(x.strip() for x in lines) or "no PMU lines")
        return
    check("pmu_bootline", bool(m) and not line.startswith("absent"), f"boot line {line!r}")
    ins = v.pmu_value("instructions") if v else None
    cyc = v.pmu_value("cycles") if v else None
    check("pmu_counted", v is not None and v.pmu_samples > 0 and bool(ins) and bool(cyc),
          f"samples {v.pmu_samples if v else None}, instructions {ins}, cycles {cyc}")


def judge_pmu_tsc(log):
    text = open(log, errors="replace").read()
    check("tsc_bootline", "pmu: TSC test mode" in text, "pmu=tsc-test boot line")
    dumps, problems = frames.extract(text.splitlines(keepends=True))
    check("tsc_dump_valid", bool(dumps) and not problems and dumps[-1].complete,
          f"{len(dumps)} dumps, problems: {'; '.join(map(str, problems[:3])) or 'none'}")
    mhz = re.search(r"^time: TSC ([\d.]+) MHz", text, re.M)
    if not dumps or not mhz or 0 not in dumps[-1].vcpus:
        check("tsc_inputs", False, f"TSC rate {mhz[1] if mhz else None}, dumps {len(dumps)}")
        return
    v = dumps[-1].vcpus[0]
    others = [n for n in fmt.PMU_COUNTERS if n != "cycles" and v.pmu_value(n) is not None]
    check("tsc_present_mask", v.pmu_value("cycles") is not None and not others,
          f"present {v.pmu_present:#x}, present besides cycles: {others or 'none'}")
    running = v.state_ns[0]
    cyc_ns = (v.pmu_value("cycles") or 0) * 1000.0 / float(mhz[1])
    ratio = cyc_ns / running if running else 0.0
    check("tsc_cycles_match_running", 0.80 <= ratio <= 1.0,
          f"{v.pmu_samples} samples, cycles {v.pmu_value('cycles')} = {cyc_ns / 1e6:.1f} ms, "
          f"running {running / 1e6:.1f} ms, ratio {ratio:.3f}")
    check("tsc_samples_bounded", 10 <= v.pmu_samples <= running / 1e6 + 50,
          f"{v.pmu_samples} samples for {running / 1e6:.1f} ms running (1 ms period)")


def judge(log, want_spin, want_pmu="absent"):
    text = open(log, errors="replace").read()
    guest = re.search(r"SUMMARY vprof_pattern passed=(\d+) failed=(\d+)", text)
    check("guest", bool(guest) and guest[2] == "0",
          f"guest summary {guest[0] if guest else 'missing'}")
    dumps, problems = frames.extract(text.splitlines(keepends=True))
    check("dump_valid", bool(dumps) and not problems and dumps[-1].complete,
          f"{len(dumps)} dumps, problems: {'; '.join(map(str, problems[:3])) or 'none'}")
    if not dumps:
        return
    d = dumps[-1]
    ps = {p.mark: p for p in analysis.phases(d) if p.mark in (1, 2, 3)}
    check("phases", len(ps) == 3, f"marks seen: {sorted(ps)}")
    if len(ps) != 3:
        return
    busy, halt, pause = ps[1], ps[2], ps[3]
    check("busy_running", frac(busy, "running") >= 0.85, f"running {frac(busy, 'running'):.3f}")
    check("halt_blocked", frac(halt, "blocked") >= 0.70, f"blocked {frac(halt, 'blocked'):.3f}")
    check("pause_running", frac(pause, "running") >= 0.85, f"running {frac(pause, 'running'):.3f}")
    if want_spin:
        check("pause_spinning", frac(pause, "spin") >= 0.5, f"spin {frac(pause, 'spin'):.3f}, "
              f"PLE exits {d.vcpus[0].events.get('PLE', 0) if 0 in d.vcpus else 0}")
    check("busy_not_spinning", frac(busy, "spin") <= 0.1, f"spin {frac(busy, 'spin'):.3f}")
    judge_pmu(text, d, want_pmu)


def judge_dedicated(log):
    text = open(log, errors="replace").read()
    sums = re.findall(r"SUMMARY vprof_pattern passed=(\d+) failed=(\d+)", text)
    check("ded_guests", len(sums) == 2 and all(f == "0" for _, f in sums), f"guest summaries {sums}")
    dumps, problems = frames.extract(text.splitlines(keepends=True))
    by_vm = {d.vm: d for d in dumps if d.complete}
    check("ded_dumps_valid", not problems and sorted(by_vm) == [0, 1],
          f"{len(dumps)} dumps of VMs {sorted(by_vm)}, problems: "
          f"{'; '.join(map(str, problems[:3])) or 'none'}")
    if sorted(by_vm) != [0, 1]:
        return
    d0, d1 = by_vm[0], by_vm[1]
    ps = {p.mark: p for p in analysis.phases(d0) if p.mark in (1, 2)}
    check("ded_phases", len(ps) == 2, f"marks seen: {sorted(ps)}")
    if len(ps) != 2:
        return
    shared, ded = ps[1], ps[2]
    check("ded_shared_steal", frac(shared, "steal") >= 0.25, f"steal {frac(shared, 'steal'):.3f}")
    check("ded_dedicated_running", frac(ded, "running") >= 0.90 and frac(ded, "steal") <= 0.05,
          f"running {frac(ded, 'running'):.3f} steal {frac(ded, 'steal'):.3f}")
    check("ded_owned", d0.ded_ns >= 250_000_000, f"vm0 dedicated {d0.ded_ns / 1e6:.1f} ms")
    check("ded_frozen", d1.frozen_ns >= 250_000_000, f"vm1 frozen {d1.frozen_ns / 1e6:.1f} ms")


KEY_MARKER = "vprof_pattern: profiling until the dump key"
VPD_STOP, VPD_KEY = 1, 4


def judge_key(log, tag, want_dump):
    text = open(log, errors="replace").read()
    guest = re.search(r"SUMMARY vprof_pattern passed=(\d+) failed=(\d+)", text)
    check(f"{tag}_guest", bool(guest) and guest[2] == "0",
          f"guest summary {guest[0] if guest else 'missing'}")
    dumps, problems = frames.extract(text.splitlines(keepends=True))
    keyd = [d for d in dumps if d.reason == VPD_KEY]
    stopd = [d for d in dumps if d.reason == VPD_STOP and d.complete]
    check(f"{tag}_dumps_valid", not problems and bool(stopd),
          f"{len(dumps)} dumps, problems: {'; '.join(map(str, problems[:3])) or 'none'}")
    if not want_dump:
        check(f"{tag}_ignored", not keyd and "console: key" not in text,
              f"{len(keyd)} key dumps with console_keys=off")
        return
    check(f"{tag}_help", "console: keys: v = " in text, "'?' printed the key list")
    check(f"{tag}_one_dump", len(keyd) == 1 and keyd[0].complete and keyd[0].active
          and "console: key v: 1 vProfile dump written" in text,
          f"{len(keyd)} key dumps, complete {[d.complete for d in keyd]}, "
          f"active {[d.active for d in keyd]}")
    if len(keyd) != 1 or not stopd:
        return
    k, st = keyd[0], stopd[-1]
    check(f"{tag}_before_stop", k.t0 == st.t0 and k.t1 < st.t1 and k.dump_id != st.dump_id,
          f"key window {k.t0}..{k.t1}, stop window {st.t0}..{st.t1}")
    sums = {i: sum(v.state_ns) for i, v in k.vcpus.items()}
    check(f"{tag}_consistent", bool(sums) and all(x == k.window_ns for x in sums.values()),
          f"state sums {sums} vs window {k.window_ns}")
    rep = subprocess.run([sys.executable, os.path.join(ROOT, "tools", "vprof"), "report", log],
                         capture_output=True, text=True)
    check(f"{tag}_decoded", rep.returncode == 0 and "serial key" in rep.stdout,
          f"tools/vprof report exit {rep.returncode}")


def judged(fn, *args):
    """A systest judge: run fn(log, *args) on the serial text, print its TEST
    lines, return the failed ones."""
    def judge(serial, status):
        with JUDGE_LOCK, tempfile.TemporaryDirectory(prefix="vprof-system-") as tmp:
            log = os.path.join(tmp, "serial.log")
            with open(log, "w") as f:
                f.write(serial)
            del RESULTS[:]
            fn(log, *args)
            out = []
            for name, ok, detail in RESULTS:
                print(f"TEST vprof_system_{name} {'PASS' if ok else 'FAIL'} ({detail})", flush=True)
                out += [] if ok else [f"vprof_system_{name}: {detail}"]
            return out
    return judge


def add_arguments(g):
    g.add_argument("--image", default=os.path.join(ROOT, "build", "guest", "vprof",
                                                   "vprof_pattern-64.elf"),
                   help="vprof: the pattern guest")
    g.add_argument("--no-spin", action="store_true", help="vprof: do not require PLE spinning")
    g.add_argument("--pmu", choices=("absent", "present"), default="absent",
                   help="vprof: what the host PMU must be (Bochs: absent)")


def cases(opts):
    """The five scenarios; opts.cmdline goes before each case's own options."""
    def case(tag, vms, cmdline="", judge=None, extra=()):
        return Case(name=f"vprof-{tag}", emu="bochs", cpus=1, cmdline=cmdline,
                    timeout=opts.timeout or 600, vms=[Vm(v, opts.image) for v in vms],
                    hvrun_args=list(extra), status=None, judge=judge)
    one = ['kind=multiboot vcpus=1 mem=32M ple=on cmdline="test=vprof_pattern"']
    out = [case("pattern", one, judge=judged(judge, not opts.no_spin, opts.pmu)),
           case("pmu_tsc", one, "pmu=tsc-test", judged(judge_pmu_tsc)),
           case("dedicated", [
               'kind=multiboot vcpus=1 mem=32M ple=on vprof=dedicated '
               'cmdline="test=vprof_pattern mode=dedicated"',
               'kind=multiboot vcpus=1 mem=32M ple=on cmdline="test=vprof_pattern mode=noise"'],
               judge=judged(judge_dedicated))]
    for tag, mode, cmdline in (("key", "key", ""), ("key_off", "nokey", "console_keys=off")):
        out.append(case(tag, [f'kind=multiboot vcpus=1 mem=32M ple=on '
                              f'cmdline="test=vprof_pattern mode={mode}"'], cmdline,
                        judged(judge_key, tag, mode == "key"),
                        ["--send-key", f"{re.escape(KEY_MARKER)}=?v"]))
    return out
