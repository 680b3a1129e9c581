# Issue 16: sched=auto's per-VM choices (hv/sched/auto.c; docs/sched.md
# "sched=auto"): PMU sample without vProfile, PLE, SA, balloon, spin signal.
UNIT_TESTS += test_auto
test_auto_SRCS = test/unit/test_auto.c $(SCHED_SRCS) $(SIM_LIB_SRCS)
