# Host PMU for vProfile (issue 5, seed 001 §2.2): CPUID.0AH decode and counter
# arithmetic (pure, host-tested), detection with fault-safe MSR probes, the
# exception table behind rdmsr_safe/wrmsr_safe, the per-vCPU sample
# accumulator and the glue that gates counting to guest time.
PMU_CALC_SRCS := hv/arch/x86/pmu_calc.c

UNIT_TESTS += test_pmu_calc test_pmu_acc
# "=": VPROF_SRCS is set by mk/vprof.mk, included after this file.
test_pmu_calc_SRCS := test/unit/test_pmu_calc.c $(PMU_CALC_SRCS) hv/lib/fmt.c
test_pmu_acc_SRCS = test/unit/test_pmu_acc.c hv/trace/pmu_acc.c $(PMU_CALC_SRCS) \
	$(VPROF_SRCS) hv/lib/fmt.c
