# APIC virtualization in the VMX core (hv/vmx/apicv*.c, docs/vmx.md).
UNIT_TESTS += test_apicv
test_apicv_SRCS := test/unit/test_apicv.c hv/vmx/apicv_calc.c
