"""The guest test images under the hypervisor (Bochs): the cases of
`test/system/run.py --suite guest-hv` (guest-shim/tests/run_hv.py and
`make test-guest-hv` call it), as tools/hvrun_lib/systest.py cases.

Each case boots hv.elf with one or two VMs and judges the serial output:
  normal images: a SUMMARY line with failed=0 and no TEST ... FAIL line;
  eptfar: the VM prints "eptfar: touching" and must be stopped there (no
          eptfar_stopped line, no SUMMARY from it);
  triple: VM 0 (triple) prints "triple:" and ends, VM 1 (timer) passes;
  hostile: VM 0 (hostile, seeded random privileged operations) reaches a
          passing SUMMARY, VM 1 (timer) on the other pCPU passes;
  exitbench (guest-shim/bench): like a normal image.
hvrun statuses 2 (panic), 124 (timeout), 125 (emulator) always fail.

With --apicv on,off (what `make test` does) the whole suite runs once per
value of the hypervisor's apicv= option: APIC virtualization (virtual-APIC
page, APIC-access page, x2APIC virtualization, virtual-interrupt delivery) and
the fully emulated path (EPT violations decoded, injection by VM entry).
Options of this suite (test/system/run.py): --all (also the -64.bin forms),
--seed N (the hostile image's seed), --timeout S (per case, 300).

A new guest test: its image name in TESTS (judged by its SUMMARY line), or
one cases() entry with its judgement in judge().
"""
import re
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
GUEST = REPO / "build" / "guest"
TESTS = ["cpuid", "msr", "pio", "timer", "ipi", "smp", "ioapic", "ept", "pause", "conform",
         "hypercall", "singlestep", "nmi", "mmio", "seglimit", "tscdl"]
VCPUS = {"cpuid": 2, "ipi": 2, "smp": 4}
FAIL = re.compile(r"TEST (\S+) FAIL")
sys.path.insert(0, str(REPO / "tools"))
from hvrun_lib.systest import Case, Vm  # noqa: E402


def case_table(all_forms, seed=1):
    """(name, pcpus, [(module string, image)], kind of judgement)."""
    forms = [(".elf", "multiboot"), ("-64.elf", "multiboot")]
    if all_forms:
        forms += [("-64.bin", "multiboot"), ("-64.bin", "flat")]
    out = []
    for t in TESTS:
        v = VCPUS.get(t, 1)
        for suffix, kind in forms:
            img = GUEST / f"{t}{suffix}"
            out.append((f"{t}{suffix}:{kind}", v,
                        [(f'kind={kind} vcpus={v} mem=32M cmdline="test={t}"', img)], t))
    out.append(("eptfar-64.elf", 1, [("kind=multiboot vcpus=1 mem=32M", GUEST / "eptfar-64.elf")],
                "eptfar"))
    # The exit-cost guest of make bench: its level-triggered EOI check (the
    # EOI-exit bitmap with APICv) and its figures must complete.
    out.append(("exitbench-64.elf", 2, [("kind=multiboot vcpus=2 mem=32M",
                                         GUEST / "bench" / "exitbench-64.elf")], "exitbench"))
    out.append(("triple+timer", 2, [("kind=multiboot vcpus=1 mem=32M", GUEST / "triple.elf"),
                                    ("kind=multiboot vcpus=1 mem=32M", GUEST / "timer.elf")],
                "triple"))
    # No guest action stops the hypervisor or another VM: the hostile image
    # (both builds) beside timer, one vCPU each on its own pCPU.
    for suffix in (".elf", "-64.elf"):
        out.append((f"hostile{suffix}+timer", 2,
                    [(f'kind=multiboot vcpus=1 mem=32M pcpus=0 cmdline="seed={seed}"',
                      GUEST / f"hostile{suffix}"),
                     ("kind=multiboot vcpus=1 mem=32M pcpus=1", GUEST / "timer.elf")],
                    "hostile"))
    # Issue 10: vCPU 1 toggles the PTE of the page whose MMIO instruction
    # vCPU 0's exits make the hypervisor fetch; ipi (2 vCPUs) beside it.
    out.append(("mmiorace-64.elf+ipi", 2,
                [("kind=multiboot vcpus=2 mem=32M pcpus=0,1", GUEST / "mmiorace-64.elf"),
                 ("kind=multiboot vcpus=2 mem=32M pcpus=1,0", GUEST / "ipi.elf")],
                "mmiorace"))
    # Issue 10's other findings (PAT, PCIDE, INVD, 64 KiB REP I/O, the
    # hypercall output rate limit) beside timer.
    out.append(("guestsec.elf+timer", 2,
                [("kind=multiboot vcpus=2 mem=32M pcpus=0,1", GUEST / "guestsec.elf"),
                 ("kind=multiboot vcpus=1 mem=32M pcpus=1", GUEST / "timer.elf")],
                "guestsec"))
    # A #PF delivered through an IDT in an MMIO hole: the VM must be stopped
    # for that reason (not the instruction at RIP emulated); timer passes.
    out.append(("idtmmio-64.elf+timer", 2,
                [("kind=multiboot vcpus=1 mem=32M pcpus=0", GUEST / "idtmmio-64.elf"),
                 ("kind=multiboot vcpus=1 mem=32M pcpus=1", GUEST / "timer.elf")],
                "idtmmio"))
    # Hardware task switches are not emulated: a JMP to a TSS and an INT
    # through a task gate (during event delivery) stop that VM with a line
    # naming it; timer beside it passes.
    for gate, how in ((0, "jmp"), (1, "gate")):
        out.append((f"taskswitch.elf {how}+timer", 2,
                    [(f'kind=multiboot vcpus=1 mem=32M pcpus=0 cmdline="gate={gate}"',
                      GUEST / "taskswitch.elf"),
                     ("kind=multiboot vcpus=1 mem=32M pcpus=1", GUEST / "timer.elf")],
                    f"taskswitch-{how}"))
    if all_forms:   # every MMIO kind, read-modify-write and strings included (~35 s)
        out.append(("hostile-64.elf rmw=1", 1,
                    [(f'kind=multiboot vcpus=1 mem=32M cmdline="seed={seed} rmw=1"',
                      GUEST / "hostile-64.elf")], "hostile-alone"))
    # A platform timer (RTC) started by vCPU 1 for vCPU 0 halted on another pCPU.
    out.append(("devcross-64.elf", 2, [("kind=multiboot vcpus=2 mem=32M pcpus=0,1",
                                        GUEST / "devcross-64.elf")], "devcross"))
    # KVM PV sched-yield: two vCPUs on one pCPU (kvm=on offers the KVM ABI).
    out.append(("kvmyield-64.elf", 1, [("kind=multiboot vcpus=2 mem=32M kvm=on",
                                        GUEST / "kvmyield-64.elf")], "kvmyield"))
    # PV ABI v1 (docs/pv-abi.md): SA upcalls, acks by seq, a grace period
    # that ends in a counted timeout, balloon sleep; two vCPUs on one pCPU.
    out.append(("pvabi-64.elf", 1, [("kind=multiboot vcpus=2 mem=32M sa=on",
                                     GUEST / "pvabi-64.elf")], "pvabi"))
    # KVM PV send-IPI: counts, skipped destinations, ICR 0 (KVM's ABI).
    for img in ("kvmipi.elf", "kvmipi-64.elf"):
        out.append((img, 2, [("kind=multiboot vcpus=2 mem=32M kvm=on", GUEST / img)], "kvmipi"))
    # Issue 17: 4 vCPUs arm short TSC-deadline timers and halt for them
    # (NMIs every 20 ms), beside timer, 5 vCPUs on 2 pCPUs: a lost timer fails
    # timerwake_timer_lost (tests/timerwake.c) instead of hanging.
    out.append(("timerwake4+timer (5 on 2)", 2,
                [(f'kind=multiboot vcpus=4 mem=32M cmdline="seed={seed} nmi=20"',
                  GUEST / "timerwake-64.elf"),
                 ("kind=multiboot vcpus=1 mem=32M", GUEST / "timer.elf")], "timerwake"))
    # Issue 19: a blocked vCPU's VMCS stays current on its idle pCPU (vmcs_park);
    # vmcs_park_bounce moves each parked vCPU's affinity to the other pCPU, so
    # every wake-up loads it there and the owner must be asked to VMCLEAR it
    # (vcpu_load's handshake: without it this run hangs).
    out.append(("timerwake4 vmcs_park_bounce", 2,
                [(f'kind=multiboot vcpus=4 mem=32M cmdline="seed={seed} nmi=20"',
                  GUEST / "timerwake-64.elf"),
                 ("kind=multiboot vcpus=1 mem=32M", GUEST / "timer.elf")], "parkbounce"))
    # Issue 16: the privileged VM (3 busy vCPUs) switches the host credit ->
    # pcs -> credit through HC_SCHED_SWITCH beside timer, 4 vCPUs on 2 pCPUs.
    out.append(("live-64.elf+timer", 2,
                [("kind=multiboot vcpus=3 mem=32M priv=on", GUEST / "live-64.elf"),
                 ("kind=multiboot vcpus=1 mem=32M", GUEST / "timer.elf")], "live"))
    # The serial console's key sequence: `s` once the APs run, then `8`
    # (rr, the menu's key for it) switches the host before the guest's own
    # switches (CASE_HVRUN_ARGS); keywait=1 makes the guest wait for it, so
    # a loaded host's late typing cannot reorder them.
    out.append(("live-64.elf serial keys", 2,
                [('kind=multiboot vcpus=3 mem=32M priv=on cmdline="keywait=1"', GUEST / "live-64.elf")],
                "livekey"))
    # Issue 15: two VMs on one pCPU keep their x87/SSE/AVX/AVX-512 registers,
    # CR2 and SYSCALL MSRs across the switches between them (hv/vmx/fpu.c).
    out.append(("fpuswitch-64.elf x2 (2 on 1)", 1,
                [('kind=multiboot vcpus=1 mem=32M cmdline="seed=1 ms=800"',
                  GUEST / "fpuswitch-64.elf"),
                 ('kind=multiboot vcpus=1 mem=32M cmdline="seed=2 ms=800"',
                  GUEST / "fpuswitch-64.elf")], "fpuswitch"))
    # Issue 18: the ipi guest without the VID gate (what a correct CPU runs):
    # a held IPI ends `sti; hlt` at the HLT exit (hv/vm/vcpu_exit.c), one
    # masked by TPR must not; the summary shows the fast path was taken.
    out.append(("ipi-64.elf nogate", 2, [('kind=multiboot vcpus=2 mem=32M cmdline="test=ipi"',
                                          GUEST / "ipi-64.elf")], "ipinogate"))
    # apicv_vid_gate=auto (CASE_CMDLINE): the boot self-test must see Bochs
    # 2.7's IF=0 virtual-interrupt delivery and keep the VID gate on.
    out.append(("apicv-selftest timer-64.elf", 1,
                [("kind=multiboot vcpus=1 mem=32M", GUEST / "timer-64.elf")], "apicvtest"))
    # The lost kick (5ddd985): a remote IPI wakes a vCPU that shares pCPU 0
    # with a hog VM spinning without exits; a kick taken between vcpu_run()'s
    # need_resched test and the VM entry must still preempt the hog within
    # the rate limit (tests/kickwake.c; without the re-raise about a third
    # of the wake-ups wait for the 10 ms tick).
    out.append(("kickwake-64.elf+hog (3 on 2)", 2,
                [("kind=multiboot vcpus=2 mem=32M pcpus=1,0", GUEST / "kickwake-64.elf"),
                 ('kind=multiboot vcpus=1 mem=32M pcpus=0 weight=16 cmdline="hog=1"',
                  GUEST / "kickwake-64.elf")], "kickwake"))
    # Overcommit: two VMs, 6 vCPUs on 2 pCPUs under the scheduler; both pass
    # and the scheduler's summary shows every vCPU ran.
    out.append(("smp4+ipi2 (6 on 2)", 2, [("kind=multiboot vcpus=4 mem=32M", GUEST / "smp.elf"),
                                          ("kind=multiboot vcpus=2 mem=32M", GUEST / "ipi.elf")],
                "overcommit"))
    return out


def pvabi_vprof(serial):
    """The pvabi guest's vProfile dump: vCPU 0's SA events as tools/vprof sa
    decodes them (docs/pv-abi.md)."""
    sys.path.insert(0, str(REPO / "tools"))
    from vprof_lib import analysis, frames
    dumps, problems = frames.extract(serial.splitlines())
    if problems or not dumps:
        return [f"vprof dump: {len(dumps)} dumps, problems {problems[:2]}"]
    s = analysis.pv_events(dumps[-1]).get(0)
    if not s:
        return ["vprof: no PV events for vcpu0"]
    if not (s["upcalls"] >= 3 and s["acks"].get("yield", 0) >= 1 and
            s["acks"].get("block", 0) >= 1 and s["stale"] >= 3 and
            s["timeouts"] >= 1 and s["ack_ns"] and s["sleep_cancels"] >= 1 and s["sleeps"] >= 1):
        return [f"vprof pv events for vcpu0: {s}"]
    return []


def judge(kind, serial, status):
    """Problems of a run that ended with a status other than 2, 124, 125
    (systest reports those and does not call the judge)."""
    fails = FAIL.findall(serial)
    if kind == "eptfar":
        bad = [] if "eptfar: touching" in serial else ["no 'eptfar: touching' line"]
        return bad + (["VM not stopped"] if "eptfar_stopped" in serial or
                      "SUMMARY eptfar" in serial else [])
    if kind == "overcommit":
        bad = [f"FAIL {n}" for n in fails]
        for t in ("smp", "ipi"):
            if not re.search(rf"SUMMARY {t} passed=\d+ failed=0", serial):
                bad.append(f"{t} VM did not pass")
        ran = re.findall(r"vcpu\d+ ms running (\d+)", serial)
        if len(ran) != 6 or not all(int(r) > 0 for r in ran):
            bad.append(f"not every vCPU ran: {ran}")
        return bad
    if kind == "fpuswitch":
        bad = [f"FAIL {n}" for n in fails]
        n = len(re.findall(r"SUMMARY fpuswitch passed=\d+ failed=0", serial))
        return bad + ([] if n == 2 else [f"{n} of 2 fpuswitch VMs passed"])
    if kind == "ipinogate":
        bad = [f"FAIL {n}" for n in fails]
        if not re.search(r"SUMMARY ipi passed=\d+ failed=0", serial):
            bad.append("no passing SUMMARY line")
        # apicv=off passes (run_hv --apicv) have no virtual-interrupt delivery.
        if "apicv=off" not in serial and \
                not re.search(r"vcpu0 hlt ended at exit by rvi [1-9]", serial):
            bad.append("no HLT ended at its exit by a deliverable RVI")
        return bad
    if kind == "pvabi":
        bad = [f"FAIL {n}" for n in fails]
        if not re.search(r"SUMMARY pvabi passed=\d+ failed=0", serial):
            bad.append("pvabi did not pass")
        m = re.search(r"vcpu0 pv sa_upcall (\d+) ack_yield (\d+) ack_block \d+ stale (\d+) "
                      r"timeout (\d+)", serial)
        if not m:
            bad.append("no pv summary line for vcpu0")
        elif not (int(m[2]) >= 1 and int(m[3]) >= 3 and int(m[4]) >= 1):
            bad.append(f"pv counts: upcalls {m[1]} acks {m[2]} stale {m[3]} timeouts {m[4]} "
                       "(want >= 1 ack, 3 stale, 1 timeout)")
        return bad + pvabi_vprof(serial)
    if kind == "livekey":
        bad = [f"FAIL {n}" for n in fails]
        if not re.search(r"SUMMARY live passed=\d+ failed=0", serial):
            bad.append("live VM did not pass")
        m = re.search(r"press a key to switch:.* 8=rr ", serial)
        if not m:
            bad.append("no console menu naming 8=rr")
        for want in ("console: key m: vm0 now 'credit'", "sched: vm0 now 'credit' (host 'credit'",
                     "console: key s: switching to 'rr'", "sched: policy 'rr' installed (was 'credit')",
                     "sched: policy 'pcs' installed (was 'rr')"):
            if want not in serial:
                bad.append(f"no line: {want}")
        return bad
    if kind == "live":
        bad = [f"FAIL {n}" for n in fails]
        for t in ("live", "timer"):
            if not re.search(rf"SUMMARY {t} passed=\d+ failed=0", serial):
                bad.append(f"{t} VM did not pass")
        for new, old in (("pcs", "credit"), ("credit", "pcs")):
            if not re.search(rf"sched: policy '{new}' installed \(was '{old}'\)", serial):
                bad.append(f"no '{old}' -> '{new}' install line")
        for want in ("sched: vm1 now 'credit' (host 'pcs'; dp own 2000 us",
                     "sched: vm1 now 'pcs' (host 'pcs'; dp host"):
            if want not in serial:
                bad.append(f"no line: {want}")
        return bad
    if kind == "apicvtest":
        bad = [f"FAIL {n}" for n in fails]
        if not re.search(r"SUMMARY timer passed=\d+ failed=0", serial):
            bad.append("timer VM did not pass")
        want = ("apicv: virtual-interrupt delivery self-test: IF=0 delivery seen "
                "(Bochs 2.7 bug): VID gate on")
        return bad + ([] if want in serial else [f"no line: {want}"])
    if kind == "triple":
        bad = [] if "triple:" in serial else ["no 'triple:' line"]
        bad += [] if re.search(r"SUMMARY timer passed=\d+ failed=0", serial) else \
            ["second VM (timer) did not pass"]
        return bad + ([] if "triple_shutdown" not in serial else ["triple VM kept running"])
    if kind == "hostile-alone":
        bad = [f"FAIL {n}" for n in fails]
        return bad + ([] if re.search(r"SUMMARY hostile passed=\d+ failed=0", serial) else
                      ["hostile VM did not pass"])
    if kind == "parkbounce":
        bad = judge("timerwake", serial, status)
        n = sum(int(x) for x in re.findall(r"unparked for another pcpu (\d+)", serial))
        return bad + ([] if n > 0 else ["no parked VMCS was handed to another pCPU"])
    if kind == "timerwake":
        bad = [f"FAIL {n}" for n in fails]
        for t in ("timerwake", "timer"):
            if not re.search(rf"SUMMARY {t} passed=\d+ failed=0", serial):
                bad.append(f"{t} VM did not pass")
        return bad
    if kind == "kickwake":   # the test VM and the hog VM
        bad = [f"FAIL {n}" for n in fails]
        n = len(re.findall(r"SUMMARY kickwake passed=\d+ failed=0", serial))
        return bad + ([] if n == 2 else [f"{2 - n} of 2 VMs did not pass"])
    if kind == "hostile":
        bad = [f"FAIL {n}" for n in fails]
        for t in ("hostile", "timer"):
            if not re.search(rf"SUMMARY {t} passed=\d+ failed=0", serial):
                bad.append(f"{t} VM did not pass")
        return bad
    if kind == "idtmmio":
        bad = [] if "idtmmio: #PF through" in serial else ["no 'idtmmio: #PF through' line"]
        if "MMIO access while delivering an event" not in serial:
            bad.append("VM not stopped for the access during event delivery")
        if "idtmmio_stopped" in serial or "SUMMARY idtmmio" in serial:
            bad.append("the VM kept running (the #PF was lost)")
        if not re.search(r"SUMMARY timer passed=\d+ failed=0", serial):
            bad.append("second VM (timer) did not pass")
        return bad
    if kind.startswith("taskswitch"):
        gate = kind.endswith("gate")
        bad = [] if "taskswitch: " in serial else ["no 'taskswitch:' line"]
        want = ("task switch during event delivery (not emulated)" if gate else
                "task switch (not emulated)")
        if want not in serial:
            bad.append(f"VM not stopped with '{want}'")
        if not re.search(r"task switch by " + ("a task gate in the IDT" if gate else "JMP") +
                         r" to TSS selector 0x28" + (" at rip \S+ while delivering vector 128"
                                                     if gate else ""), serial):
            bad.append("no line naming the source, selector (and vector)")
        if "taskswitch_kept_running" in serial or "SUMMARY taskswitch" in serial:
            bad.append("the VM kept running")
        if not re.search(r"SUMMARY timer passed=\d+ failed=0", serial):
            bad.append("second VM (timer) did not pass")
        return bad
    if kind == "guestsec":
        # Both pass; the guest's 300 HC_TEST_RESULT calls print far fewer
        # lines, and the drops are counted in a line and in the summary.
        bad = [f"FAIL {n}" for n in fails]
        for t in ("guestsec", "timer"):
            if not re.search(rf"SUMMARY {t} passed=\d+ failed=0", serial):
                bad.append(f"{t} VM did not pass")
        lines = len(re.findall(r"vm0: vcpu\d+ reports test status", serial))
        if not 1 <= lines <= 150:
            bad.append(f"{lines} test-status lines from the flooding VM (want 1..150 of 301)")
        if not re.search(r"vm0: \d+ console messages dropped by the hypercall output rate limit",
                         serial) and not re.search(r"vm0 hypercall output dropped", serial):
            bad.append("no line counting the dropped messages")
        # Two 64 KiB REPs at 16 elements per exit: at least 8192 I/O exits.
        io = re.search(r"summary:\s+vm0 vcpu0 exits by reason:.* 30:(\d+)", serial)
        if not io or int(io.group(1)) < 8192:
            bad.append(f"REP I/O not bounded per exit: vm0 vcpu0 I/O exits "
                       f"{io.group(1) if io else '?'} (want >= 8192)")
        return bad
    if kind == "mmiorace":
        # The victim passes; the attacker passes or was stopped by the
        # hypervisor (never a wrong value, never a hung or crashed run).
        bad = [f"FAIL {n}" for n in fails]
        if not re.search(r"SUMMARY ipi passed=\d+ failed=0", serial):
            bad.append("victim VM (ipi) did not pass")
        if not (re.search(r"SUMMARY mmiorace passed=\d+ failed=0", serial) or
                re.search(r"stopping the VM", serial)):
            bad.append("attacker neither finished nor was stopped")
        return bad
    bad = [f"FAIL {n}" for n in fails]
    if not re.search(rf"SUMMARY {kind} passed=\d+ failed=0", serial):
        bad.append("no passing SUMMARY line")
    if kind == "pause":
        # One vCPU: nothing to yield to, so no PAUSE(-loop) exits (reason 40).
        lines = re.findall(r"vm0 vcpu0 exits by reason:(.*)", serial)
        if not lines:
            bad.append("no 'vm0 vcpu0 exits by reason' line")
        for line in lines:
            if re.search(r"(^|\s)40:", line):
                bad.append(f"PAUSE exits in a 1-vCPU VM:{line}")
    return bad


# Hypervisor options a case needs beyond its pass's: nmi names vnmi=on, the
# default, itself. (The hostile guest's NMI-window "livelock" with virtual
# NMIs was its own PIT-as-NMI storm; hostile.c now quenches it,
# docs/interrupts.md.) pvabi: a 10 ms grace period (Bochs runs 100k
# instructions, hypervisor's included, in it: measurable against exit handling).
# kickwake: no halt polling, so that every round's sleeper blocks.
CASE_CMDLINE = {"nmi": "vnmi=on", "pvabi": "sched_sa_limit_us=10000",
                "apicvtest": "apicv=on apicv_vid_gate=auto",
                "parkbounce": "vmcs_park_bounce=1",
                "ipinogate": "apicv_vid_gate=off",
                "kickwake": "halt_poll_ns=0"}
# hvrun arguments a case needs: livekey types the console's policy-switch keys.
# First 'm' '0' '3': the VM alone to credit (the host's policy, key 3: the
# key door of hv/sched/vmpolicy.c), then 's' '8': the host to rr.
CASE_HVRUN_ARGS = {"livekey": ["--send-key", "live_aps_started=m",
                               "--send-key", "press the VM id=0",
                               "--send-key", "vm0 runs 'credit' \\(host 'credit', key 3\\); press=3",
                               "--send-key", "key m: vm0 now 'credit'=s",
                               "--send-key", "press a key to switch=8"]}


def add_arguments(g):
    g.add_argument("--all", action="store_true", help="guest-hv: also the -64.bin forms")
    g.add_argument("--seed", type=int, default=1, help="guest-hv: seed= of the hostile image")


def cases(opts):
    """The suite for test/system/run.py: opts.all, opts.seed, opts.timeout,
    opts.emu (default bochs)."""
    out = []
    for name, pcpus, vms, kind in case_table(opts.all, opts.seed):
        out.append(Case(name=name, emu=opts.emu or "bochs", cpus=pcpus,
                        cmdline=CASE_CMDLINE.get(kind, ""), timeout=opts.timeout or 300,
                        vms=[Vm(string, str(img)) for string, img in vms],
                        hvrun_args=list(CASE_HVRUN_ARGS.get(kind, [])), status=None,
                        judge=lambda serial, status, kind=kind: judge(kind, serial, status)))
    return out
