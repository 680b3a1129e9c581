# hv core foundations: command line, multiboot2 boot info, physical page
# allocator and heap, ACPI/MP-table platform discovery.
UNIT_TESTS += test_cmdline
test_cmdline_SRCS := test/unit/test_cmdline.c hv/cmdline.c hv/lib/fmt.c
UNIT_TESTS += test_bootinfo
test_bootinfo_SRCS := test/unit/test_bootinfo.c hv/bootinfo.c hv/lib/fmt.c
PMM_SRCS := hv/mm/pmm.c hv/mm/pmm_range.c hv/mm/pmm_alloc.c hv/mm/pmm_boot.c
UNIT_TESTS += test_pmm
test_pmm_SRCS := test/unit/test_pmm.c $(PMM_SRCS) hv/lib/fmt.c
UNIT_TESTS += test_heap
test_heap_SRCS := test/unit/test_heap.c hv/mm/heap.c $(PMM_SRCS) hv/lib/fmt.c
PLATFORM_SRCS := hv/arch/x86/acpi.c hv/arch/x86/mptable.c hv/arch/x86/discover.c
UNIT_TESTS += test_acpi
test_acpi_SRCS := test/unit/test_acpi.c $(PLATFORM_SRCS) hv/lib/fmt.c $(wildcard hv/lib/checksum.c)
UNIT_TESTS += test_mptable
test_mptable_SRCS := test/unit/test_mptable.c $(PLATFORM_SRCS) hv/lib/fmt.c $(wildcard hv/lib/checksum.c)
