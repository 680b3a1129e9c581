"""Seed 002 (Ding & Shan): where multi-threaded guests lose time. The APICv
headline runs the hypervisor in Bochs (small scale, `--bochs`): the IPI test
guest (2 vCPUs exchanging IPIs) with APIC virtualization on and off, counting
the VM's exits from the hypervisor's summary."""
from ..registry import headline, pct_faster, bochs

IPI_VM = """--vm kind=multiboot vcpus=2 mem=32M name=ipi2
--image {root}/build/guest/ipi.elf
"""


# Interrupt-controller exits (SDM Vol. 3 App. C): 44 APIC access, 45 EOI
# induced, 48 EPT violation (the LAPIC page with apicv off, the IOAPIC page
# always: docs/vmx.md), 56 APIC write.
APIC_REASONS = (44, 45, 48, 56)


def _exits(r, run):
    return sum(r[run].vm["ipi2"].by_reason.get(k, 0) for k in APIC_REASONS)


headline(seed="002", key="apicv_exits",
         claim="APICv on vs off: APIC-related VM exits (reasons 44, 45, 48, 56) of a 2-vCPU "
               "guest exchanging IPIs (Bochs)",
         paper=52.0, unit="% fewer exits",
         paper_text="APICv cuts APIC-access VM exits by 52% (dedup), Fig. 4",
         runs={"off": bochs(IPI_VM, cmdline="apicv=off"), "on": bochs(IPI_VM, cmdline="apicv=on")},
         value=lambda r: pct_faster(_exits(r, "off"), _exits(r, "on")),
         figure=lambda r: {"apicv off": 1.0, "apicv on": _exits(r, "on") / _exits(r, "off")})

headline(seed="002", key="mt_overhead",
         claim="virtualization overhead of multi-threaded computation, host not over-committed",
         paper=150.0, unit="% longer", paper_text="execution time up to +150% in a VM",
         landed=False, pending="a bare-metal vs VM run of the same parallel guest workload "
                               "(tools/linux/bareload exists for Linux boots only)")
