# hv/sched: scheduler framework and policies (image + host), the hvsim
# simulator (make sim), its scenarios (make test-sim), unit/conformance tests
# and the per-decision cost benchmark (make bench-sched). See docs/sched.md.
SCHED_SRCS   := $(sort $(wildcard hv/sched/*.c))
SIM_LIB_SRCS := tools/sim/eventq.c tools/sim/engine.c tools/sim/guest.c tools/sim/guest_balance.c tools/sim/guest_prog.c tools/sim/guest_pv.c \
                tools/sim/workload.c tools/sim/report.c tools/sim/vprof_stub.c \
                tools/sim/pvglue.c
HV_SRCS      += $(SCHED_SRCS)

UNIT_TESTS += test_sched_core test_sched_credit test_sched_conform test_sched_sim test_sched_cosched \
              test_sched_preempt test_sched_wakerun
test_sched_preempt_SRCS := test/unit/test_sched_preempt.c test/unit/sched_preempt_adaptive.c $(SCHED_SRCS) \
                           tools/sim/vprof_stub.c
test_sched_core_SRCS    := test/unit/test_sched_core.c test/unit/sched_core_sa.c test/unit/sched_core_balloon.c \
                           test/unit/sched_core_opts.c $(SCHED_SRCS) tools/sim/vprof_stub.c \
                           hv/cmdline.c hv/lib/fmt.c
test_sched_credit_SRCS  := test/unit/test_sched_credit.c $(SCHED_SRCS) $(SIM_LIB_SRCS)
test_sched_wakerun_SRCS := test/unit/test_sched_wakerun.c $(SCHED_SRCS) tools/sim/vprof_stub.c
test_sched_conform_SRCS := test/unit/test_sched_conform.c $(SCHED_SRCS) $(SIM_LIB_SRCS)
test_sched_sim_SRCS     := test/unit/test_sched_sim.c $(SCHED_SRCS) $(SIM_LIB_SRCS)
test_sched_cosched_SRCS := test/unit/test_sched_cosched.c $(SCHED_SRCS) $(SIM_LIB_SRCS)

SIM_CFLAGS := -std=gnu11 -O2 -g -Ihv -Itools/sim -DHV_HOST=1 -Wall -Wextra -Werror \
              -Wno-unused-parameter -Wno-missing-field-initializers
SIM_DEPS   := $(wildcard hv/*.h hv/sched/*.h hv/trace/*.h tools/sim/*.h)

# hvsim links the real vProfile recorder (hv/trace); the unit tests use the stub.
HVSIM_SRCS := $(SCHED_SRCS) $(filter-out tools/sim/vprof_stub.c,$(SIM_LIB_SRCS)) \
              tools/sim/main.c tools/sim/hostlog.c $(wildcard hv/trace/*.c) hv/lib/fmt.c
$(BUILD)/sim/hvsim: $(HVSIM_SRCS) $(SIM_DEPS)
	@mkdir -p $(dir $@)
	$(HOSTCC) $(SIM_CFLAGS) -o $@ $(filter %.c,$^)

$(BUILD)/sim/hvsched-bench: $(SCHED_SRCS) tools/sim/bench.c tools/sim/hostlog.c tools/sim/vprof_stub.c $(SIM_DEPS)
	@mkdir -p $(dir $@)
	$(HOSTCC) $(SIM_CFLAGS) -o $@ $(filter %.c,$^)

sim: $(BUILD)/sim/hvsim

test-sim: $(BUILD)/sim/hvsim
	@$(PYTHON) test/sim/check.py --hvsim $(BUILD)/sim/hvsim test/sim/*.wl
	@$(PYTHON) tools/sim/repro_preempt.py --hvsim $(BUILD)/sim/hvsim --check
	@$(PYTHON) tools/sim/repro_pv.py --hvsim $(BUILD)/sim/hvsim --check --quick | \
		grep -E '^(FAIL|XPASS|repro_pv)'; test $${PIPESTATUS[0]} -eq 0
	@$(PYTHON) tools/sim/predict_sim.py --hvsim $(BUILD)/sim/hvsim --max-mape 5
	@$(BUILD)/sim/hvsim -t $(BUILD)/sim/basic-4.vprof test/sim/basic-4.wl >/dev/null
	@$(PYTHON) tools/vprof check $(BUILD)/sim/basic-4.vprof >/dev/null && \
		echo 'test-sim: vProfile trace of basic-4.wl decodes'
	@$(PYTHON) test/sim/cosched.py --hvsim $(BUILD)/sim/hvsim
	@$(PYTHON) test/sim/trace_check.py --hvsim $(BUILD)/sim/hvsim test/sim/*.wl

# Issues 14/15 on the simulator: IRS three arms (seed 000 §5) and the CPU
# balloon (seed 004 §6) with the guest model, 5 seeds (docs/sched.md).
exp-irs-sim: $(BUILD)/sim/hvsim
	@$(PYTHON) tools/sim/repro_pv.py --hvsim $(BUILD)/sim/hvsim --only irs --check
exp-balloon-sim: $(BUILD)/sim/hvsim
	@$(PYTHON) tools/sim/repro_pv.py --hvsim $(BUILD)/sim/hvsim --only balloon --check

bench-sched: $(BUILD)/sim/hvsched-bench
	@$(PYTHON) tools/sim/bench_sched.py $(BUILD)/sim/hvsched-bench

# Seed 003 dual-CON in Bochs (issue 12): minutes per policy, not in make test.
exp-cosched: all $(BUILD)/guest/bench/spinbar-64.elf
	@$(PYTHON) tools/bench/exp_cosched.py --hv $(BUILD)/hv.elf \
		--image $(BUILD)/guest/bench/spinbar-64.elf $(EXP_COSCHED_ARGS)

# Issue 12: a Linux guest as one 2-vCPU CON VM on 2 emulated pCPUs passes
# bartest (spin and futex barriers) under sched=pcs and sched=bcs, and the
# hypervisor's shutdown summary shows co-scheduling operations (about 50 s of
# Bochs per policy; the kernel comes from the cache, see docs/linux-guest.md).
COSCHED_LINUX_POLICIES ?= pcs bcs
test-linux-cosched: linux-guest $(BUILD)/hv.elf
	@for s in $(COSCHED_LINUX_POLICIES); do \
		$(PYTHON) tools/linux/boot-bare.py --emu hv --cpus 2 --hv $(BUILD)/hv.elf \
			--hv-cmdline sched=$$s --vm-opt type=con --name linux-hv-$$s \
			--run "bartest 2 100 spin" --run "bartest 2 100 futex" \
			--expect "^sched: policy '$$s'" --expect "^vm0: .* type con" \
			--expect "^summary: cosched ops [1-9]" \
			--kernel $(LINUX_OUT)/bzImage --initrd $(LINUX_OUT)/initramfs.cpio || exit 1; \
	done

TEST_TARGETS  += test-sim test-linux-cosched
BENCH_TARGETS += bench-sched
.PHONY: sim test-sim test-linux-cosched bench-sched exp-cosched exp-irs-sim exp-balloon-sim

# Issue 13 in Bochs (about 40 s, three hvrun boots on one pCPU): a guest sees
# its wake-up preemptions delayed (DELAY_PREEMPT with sched_dp_us, none
# without) and its PAUSE-loop exits yield to the preempted sibling, in its
# own vProfile trace (guest-shim/bench/preempt.c, test/sched/bochs_preempt.py).
PREEMPT_GUEST := $(GUEST_OUT)/bench/preempt-64.elf
test-preempt-bochs: $(PREEMPT_GUEST) all
	@$(PYTHON) test/sched/bochs_preempt.py --image $(PREEMPT_GUEST)
TEST_TARGETS += test-preempt-bochs

# The whole issue-13 experiment: Bochs checks, then the simulator's seed 001
# Fig. 9 / Fig. 10 / PLE tables, Fig. 9 per testbed variant (--dp-why), Fig. 9
# with the delay on one side's wake-ups (--dp-sides) and the slowdown-prediction MAPE.
exp-preempt: test-preempt-bochs $(BUILD)/sim/hvsim
	@$(PYTHON) tools/sim/repro_preempt.py --hvsim $(BUILD)/sim/hvsim
	@$(PYTHON) tools/sim/repro_preempt.py --hvsim $(BUILD)/sim/hvsim --dp-why
	@$(PYTHON) tools/sim/repro_preempt.py --hvsim $(BUILD)/sim/hvsim --dp-sides --seeds 1,2,3,4,5,6
	@$(PYTHON) tools/sim/repro_preempt.py --hvsim $(BUILD)/sim/hvsim --dp-readings
	@$(PYTHON) tools/sim/predict_sim.py --hvsim $(BUILD)/sim/hvsim
.PHONY: test-preempt-bochs exp-preempt
