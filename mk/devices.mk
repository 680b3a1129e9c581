# hv/dev simple guest devices, guest ACPI/MP tables, and the hv/vmx MMIO
# decoder and CPUID/MSR policy filters (pure C, host-testable). See docs/devices.md.
DEV_SRCS := hv/dev/uart.c hv/dev/debugexit.c hv/dev/fwcfg.c hv/dev/pci_absent.c

UNIT_TESTS += test_uart test_debugexit test_fwcfg test_pci_absent
test_uart_SRCS := test/unit/test_uart.c hv/dev/uart.c
test_debugexit_SRCS := test/unit/test_debugexit.c hv/dev/debugexit.c
test_fwcfg_SRCS := test/unit/test_fwcfg.c hv/dev/fwcfg.c
test_pci_absent_SRCS := test/unit/test_pci_absent.c hv/dev/pci_absent.c

VMXPOL_SRCS := hv/vmx/cpuid_filter.c hv/vmx/msr_filter.c
UNIT_TESTS += test_cpuid_filter test_msr_filter
test_cpuid_filter_SRCS := test/unit/test_cpuid_filter.c hv/vmx/cpuid_filter.c
test_msr_filter_SRCS := test/unit/test_msr_filter.c hv/vmx/msr_filter.c

UNIT_TESTS += test_decode
test_decode_SRCS := test/unit/test_decode.c hv/vmx/decode.c

UNIT_TESTS += test_acpi_tables
test_acpi_tables_SRCS := test/unit/test_acpi_tables.c hv/dev/acpi_tables.c hv/dev/acpi_area.c hv/dev/mptable.c hv/lib/checksum.c

UNIT_TESTS += test_acpipm
test_acpipm_SRCS := test/unit/test_acpipm.c hv/dev/acpipm.c

UNIT_TESTS += test_pit
test_pit_SRCS := test/unit/test_pit.c hv/dev/pit.c

UNIT_TESTS += test_rtc
test_rtc_SRCS := test/unit/test_rtc.c hv/dev/rtc.c hv/dev/rtc_time.c

# Every hv/dev file with a DEV_REGISTER line (found, not listed: a new model
# is checked against the others without an edit here), plus the registry, the
# port dispatch and the models' helpers.
PCDEV_MODEL_SRCS := $(sort hv/dev/pcdev.c hv/dev/registry.c hv/dev/rtc_time.c \
	$(shell grep -l '^DEV_REGISTER' hv/dev/*.c))
UNIT_TESTS += test_pcdev test_dev_registry
test_pcdev_SRCS := test/unit/test_pcdev.c $(PCDEV_MODEL_SRCS)
test_dev_registry_SRCS := test/unit/test_dev_registry.c $(PCDEV_MODEL_SRCS)
