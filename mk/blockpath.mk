# Issue 19, the blocking and wake-up path: halt polling (hv/sched/haltpoll.c,
# hv/vm/halt_poll.c), its unit test, and `make bench-blockpath`: the
# exitbench guest under a hypervisor built with per-stage TSC stamps
# (hv/vm/bstamp.h; build/stamps/hv.elf), with halt polling off and on,
# printing the stage breakdown of a wake-up of a halted vCPU (docs/vmx.md).
ifeq ($(BENCH_STAMPS),1)
$(BUILD)/obj/%: HV_CFLAGS += -DHV_BENCH_STAMPS=1
endif

UNIT_TESTS += test_haltpoll
test_haltpoll_SRCS = test/unit/test_haltpoll.c $(SCHED_SRCS) tools/sim/vprof_stub.c \
                      hv/cmdline.c hv/lib/fmt.c

BENCH_TARGETS += bench-blockpath
bench-blockpath: $(BUILD)/guest/bench/exitbench-64.elf
	@$(MAKE) --no-print-directory BUILD=build/stamps BENCH_STAMPS=1 build/stamps/hv.elf
	@$(PYTHON) tools/bench/blockpath.py --hv build/stamps/hv.elf \
		--image $(BUILD)/guest/bench/exitbench-64.elf $(BENCH_BLOCKPATH_ARGS)
.PHONY: bench-blockpath
