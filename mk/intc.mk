# hv/dev interrupt controllers: vLAPIC, vIOAPIC, 8259 pair and their routing.
VLAPIC_SRCS := $(sort $(wildcard hv/dev/vlapic*.c))   # vlapic.c, vlapic_regs.c, vlapic_timer.c
INTC_SRCS := $(VLAPIC_SRCS) hv/dev/vioapic.c hv/dev/vpic.c hv/dev/intc.c
UNIT_TESTS += test_vlapic test_vioapic test_vpic test_intc
test_vlapic_SRCS := test/unit/test_vlapic.c test/unit/vlapic_timer_cases.c test/unit/vlapic_regs_cases.c $(VLAPIC_SRCS)
test_vioapic_SRCS := test/unit/test_vioapic.c hv/dev/vioapic.c
test_vpic_SRCS := test/unit/test_vpic.c hv/dev/vpic.c
test_intc_SRCS := test/unit/test_intc.c $(INTC_SRCS)
