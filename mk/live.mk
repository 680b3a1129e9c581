# Issue 16: run-time policy switch (hv/sched/switch.c, hv/vm/sched_hcall.c
# HC_SCHED_SWITCH, hvctl, console key; docs/sched.md "Run-time policy switch").
UNIT_TESTS += test_sched_switch
test_sched_switch_SRCS = test/unit/test_sched_switch.c $(SCHED_SRCS) $(SIM_LIB_SRCS)
