"""Constants of the vProfile dump format; mirrors hv/trace/vprof.h, record.h
and frame.h (docs/vprofile.md has the byte layouts)."""

MARKER = "@VP1"
VERSION = 1
HDR_SIZE = 8
REC_SIZE = 24
REC_FMT = "<qQHHBBH"
VM_NONE = 0xFFFF

STATES = ["running", "runnable", "blocked", "offline"]
RUNNING, RUNNABLE, BLOCKED, OFFLINE = range(4)

EVENTS = [None, "YIELD", "PREEMPT", "WAKE", "BLOCK", "IDLE_BEGIN", "IDLE_END",
          "PLE", "SPIN_BEGIN", "SPIN_END", "MIGRATE", "SA_UPCALL", "SA_ACK",
          "SA_TIMEOUT", "DELAY_PREEMPT", "BALLOON_SLEEP", "BALLOON_WAKE",
          "BALLOON_MODE", "COSCHED_SIGNAL", "VMEXIT", "DEDICATED_BEGIN",
          "DEDICATED_END", "PROFILE_START", "PROFILE_STOP", "MARK", "DP_DELAY",
          "SA_STALE", "SCHED_SWITCH", "AUTO_DECISION"]
EV = {name: i for i, name in enumerate(EVENTS) if name}


def event_name(code):
    return EVENTS[code] if 0 < code < len(EVENTS) else f"EVENT_{code}"

DETECTORS = ["unknown", "ple", "pmu"]
PMU_COUNTERS = ["instructions", "cycles", "branches", "branch_misses",
                "llc_refs", "llc_misses", "offcore_stall"]
OFFCORE_STALL = PMU_COUNTERS.index("offcore_stall")

FRAME_TYPES = {1: "BEGIN", 2: "VCPU", 3: "PMU", 4: "EXITS", 5: "PCPU", 6: "RECS", 7: "END"}
BEGIN, VCPU, PMU, EXITS, PCPU, RECS, END = range(1, 8)

REC_STATE, REC_EVENT, REC_PMU = 1, 2, 3

DUMP_REASONS = {1: "stop hypercall", 2: "VM end", 3: "shutdown", 4: "serial key"}

# Intel SDM Vol. 3 Appendix C, basic exit reasons.
EXIT_NAMES = {
    0: "EXCEPTION_NMI", 1: "EXTERNAL_INTERRUPT", 2: "TRIPLE_FAULT", 3: "INIT",
    4: "SIPI", 5: "IO_SMI", 6: "OTHER_SMI", 7: "INTERRUPT_WINDOW", 8: "NMI_WINDOW",
    9: "TASK_SWITCH", 10: "CPUID", 11: "GETSEC", 12: "HLT", 13: "INVD", 14: "INVLPG",
    15: "RDPMC", 16: "RDTSC", 17: "RSM", 18: "VMCALL", 19: "VMCLEAR", 20: "VMLAUNCH",
    21: "VMPTRLD", 22: "VMPTRST", 23: "VMREAD", 24: "VMRESUME", 25: "VMWRITE",
    26: "VMXOFF", 27: "VMXON", 28: "CR_ACCESS", 29: "DR_ACCESS", 30: "IO_INSTRUCTION",
    31: "RDMSR", 32: "WRMSR", 33: "ENTRY_FAIL_GUEST_STATE", 34: "ENTRY_FAIL_MSR_LOAD",
    36: "MWAIT", 37: "MONITOR_TRAP_FLAG", 39: "MONITOR", 40: "PAUSE",
    41: "ENTRY_FAIL_MCE", 43: "TPR_BELOW_THRESHOLD", 44: "APIC_ACCESS",
    45: "VIRTUALIZED_EOI", 46: "GDTR_IDTR", 47: "LDTR_TR", 48: "EPT_VIOLATION",
    49: "EPT_MISCONFIG", 50: "INVEPT", 51: "RDTSCP", 52: "PREEMPTION_TIMER",
    53: "INVVPID", 54: "WBINVD", 55: "XSETBV", 56: "APIC_WRITE", 57: "RDRAND",
    58: "INVPCID", 59: "VMFUNC", 60: "ENCLS", 61: "RDSEED", 62: "PML_FULL",
    63: "XSAVES", 64: "XRSTORS", 66: "SPP", 67: "UMWAIT", 68: "TPAUSE",
}


def exit_name(reason):
    if reason == "other":
        return "OTHER(>=80)"
    return EXIT_NAMES.get(reason, f"REASON_{reason}")
