# Boot path (boot/*.asm: multiboot2 header, 32->64-bit entry, AP trampoline)
# and hv/arch/x86: CPU, traps, paging, LAPIC, SMP, ACPI, serial, TSC, PMU.
HV_SRCS += $(sort $(wildcard boot/*.asm hv/arch/x86/*.asm hv/arch/x86/*.c))
