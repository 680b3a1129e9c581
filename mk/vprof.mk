# vProfile (issue 5): recorder and serial encoder in hv/trace, host decoder
# tools/vprof, guest tool guest-shim/vprofctl, tests under test/vprof.
# Every hv/trace file but the PMU accumulator (it needs hv/arch's pmu_calc.c;
# test_pmu_acc adds both): a new file needs no line here.
VPROF_SRCS := $(filter-out hv/trace/pmu_acc.c,$(sort $(wildcard hv/trace/*.c)))

UNIT_TESTS += test_vprof test_vprof_dump test_vprof_ded test_vprof_spin test_vprof_mt
test_vprof_SRCS      := test/unit/test_vprof.c $(VPROF_SRCS) hv/lib/fmt.c
test_vprof_dump_SRCS := test/unit/test_vprof_dump.c $(VPROF_SRCS) hv/lib/fmt.c
test_vprof_ded_SRCS  := test/unit/test_vprof_ded.c $(VPROF_SRCS) hv/lib/fmt.c
test_vprof_spin_SRCS := test/unit/test_vprof_spin.c $(VPROF_SRCS) hv/lib/fmt.c
test_vprof_mt_SRCS   := test/unit/test_vprof_mt.c $(VPROF_SRCS) hv/lib/fmt.c
# The serial-key dump taken while other pCPUs record (hv/console_keys.c's `v`).
UNIT_TESTS += test_vprof_keydump
test_vprof_keydump_SRCS := test/unit/test_vprof_keydump.c $(VPROF_SRCS) hv/lib/fmt.c

# Round-trip generator: the real recorder and encoder built for the host.
$(BUILD)/vprof/rt_gen: test/vprof/rt_gen.c $(VPROF_SRCS) hv/lib/fmt.c test/unit/shim.c \
		$(wildcard hv/trace/*.h hv/*.h)
	@mkdir -p $(dir $@)
	$(HOSTCC) $(HOST_CFLAGS) -o $@ test/vprof/rt_gen.c $(VPROF_SRCS) hv/lib/fmt.c test/unit/shim.c

# Guest user-space tool: static, so it runs in a busybox initramfs.
# -iquote: only "abi.h" comes from hv/, <errno.h> stays the C library's.
$(BUILD)/vprof/vprofctl: guest-shim/vprofctl/vprofctl.c hv/abi.h
	@mkdir -p $(dir $@)
	$(HOSTCC) -static -O2 -Wall -Wextra -Werror -iquote hv -o $@ $<

vprofctl: $(BUILD)/vprof/vprofctl

VPROF_FUZZ_RUNS ?= 1000
test-vprof: $(BUILD)/vprof/rt_gen $(BUILD)/vprof/vprofctl
	@PYTHON=$(PYTHON) bash test/vprof/setup.sh
	@$(PYTHON) test/vprof/run_tests.py --gen $(BUILD)/vprof/rt_gen \
		--vprofctl $(BUILD)/vprof/vprofctl --fuzz-runs $(VPROF_FUZZ_RUNS)

TEST_TARGETS += test-vprof
.PHONY: test-vprof vprofctl

# Host micro-benchmark of the recorder's hot paths (no sanitizers).
$(BUILD)/vprof/bench: test/vprof/bench.c $(VPROF_SRCS) hv/lib/fmt.c test/unit/shim.c
	@mkdir -p $(dir $@)
	$(HOSTCC) -std=gnu11 -O2 -Ihv -Itest/unit -DHV_HOST=1 -o $@ $^

bench-vprof: $(BUILD)/vprof/bench
	@$(BUILD)/vprof/bench

BENCH_TARGETS += bench-vprof
.PHONY: bench-vprof

# System test (Bochs, about 12 s): a guest runs busy / halt / PAUSE phases in
# one profile and the decoded phases must match (hv/vm/vprof_platform.c wires the
# hypercalls, the sink and the exits; docs/vprofile.md, Integration); the
# dedicated-mode scenario; and the serial dump key (hvrun --send-key "?v"
# after the guest's marker: a "serial key" dump, and none with console_keys=off).
ifdef GUEST_LD
VPROF_GUEST := $(GUEST_OUT)/vprof/vprof_pattern-64.elf
$(GUEST_OUT)/vprof/vprof_pattern-64.elf64: $(GUEST_OUT)/obj64/test/vprof/guest_pattern.o \
		$(GUEST_ENTRY64) $(GUEST_LIB64) $(GUEST_DIR)/lib/guest.ld
	@mkdir -p $(dir $@)
	$(GUEST_LD) -m elf_x86_64 -o $@ $(GUEST_ENTRY64) $(GUEST_LIB64) $<
$(VPROF_GUEST): $(GUEST_OUT)/vprof/vprof_pattern-64.elf64
	objcopy -O elf32-i386 $< $@
	@grub-file --is-x86-multiboot $@ || { echo "error: $@ is not multiboot1"; exit 1; }
vprof-guest: $(VPROF_GUEST)
test-vprof-system: $(VPROF_GUEST) all
	@$(PYTHON) test/system/run.py --suite vprof --image $(VPROF_GUEST) --timeout 120 $(VPROF_SYSTEM_ARGS)
TEST_TARGETS += test-vprof-system
.PHONY: vprof-guest test-vprof-system
endif

# Glue into the hypervisor (init, sink, hypercalls, exits, endings).
UNIT_TESTS += test_vprof_modstr
test_vprof_modstr_SRCS := test/unit/test_vprof_modstr.c hv/vm/modstr.c hv/cmdline.c hv/lib/fmt.c
