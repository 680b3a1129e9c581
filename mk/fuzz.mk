# Fuzzing the parsers a guest or the boot loader feeds (docs/security.md,
# "Fuzzing"): libFuzzer harnesses test/fuzz/fuzz_<name>.c built with clang
# (-fsanitize=fuzzer,address,undefined) against the same hv/ sources and host
# shim as their unit tests.
#   make fuzz-host [FUZZ_SECONDS=300] [FUZZ_RUNS=10000000] [FUZZ_ONLY="acpi gwalk"]
#   make test-fuzz-host   (part of make test: FUZZ_TEST_RUNS executions each with
#                         FUZZ_TEST_SEED on the corpus, FUZZ_TEST_SECONDS at most)
# Corpora: build/fuzz/corpus/<name> (seeded by test/fuzz/seeds.py), crashing
# inputs: build/fuzz/crashes/<name>-crash-*, replayed by build/fuzz/fuzz_<name> FILE.
FUZZ_CC      ?= clang
FUZZ_SECONDS ?= 300
FUZZ_RUNS    ?= 0
FUZZ_TEST_SECONDS ?= 10
# make test repeats: a fixed libFuzzer seed and execution count (the time is
# only a cap for a very slow machine), so a failure there replays exactly.
FUZZ_TEST_RUNS ?= 20000
FUZZ_TEST_SEED ?= 1
FUZZ_CFLAGS  := -std=gnu11 -O1 -g -Ihv -Itest/unit -Itest/fuzz -DHV_HOST=1 \
                -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
                -fno-omit-frame-pointer -Wall -Wextra -Werror -Wno-unused-parameter \
                -Wno-missing-field-initializers
FUZZ_OUT     := $(BUILD)/fuzz

# The hv/ sources each harness links (those of the unit test of that parser).
fuzz_decode_SRCS   := hv/vmx/decode.c
fuzz_cmdline_SRCS  := hv/cmdline.c hv/lib/fmt.c
fuzz_modstr_SRCS   := hv/vm/modstr.c hv/cmdline.c hv/lib/fmt.c
fuzz_bootinfo_SRCS := hv/bootinfo.c hv/lib/fmt.c
fuzz_acpi_SRCS     := hv/arch/x86/acpi.c hv/arch/x86/mptable.c hv/arch/x86/discover.c hv/lib/fmt.c
fuzz_mptable_SRCS  := $(fuzz_acpi_SRCS)
fuzz_mb1_SRCS      := hv/load/layout.c hv/load/mb1.c hv/load/mb1_info.c hv/load/flat.c hv/lib/fmt.c
fuzz_bzimage_SRCS  := hv/load/bzimage.c hv/load/layout.c hv/lib/fmt.c
fuzz_gwalk_SRCS    := hv/vm/gwalk.c
FUZZ_NAMES := decode cmdline modstr bootinfo acpi mptable mb1 bzimage gwalk
FUZZ_ONLY  ?= $(FUZZ_NAMES)
FUZZ_BINS  := $(addprefix $(FUZZ_OUT)/fuzz_,$(FUZZ_NAMES))

define fuzz_rule
$(FUZZ_OUT)/fuzz_$(1): test/fuzz/fuzz_$(1).c $$(fuzz_$(1)_SRCS) test/unit/shim.c \
		$$(wildcard test/fuzz/*.h hv/*.h hv/*/*.h hv/*/*/*.h)
	@mkdir -p $$(dir $$@)
	$$(FUZZ_CC) $$(FUZZ_CFLAGS) -o $$@ $$< $$(fuzz_$(1)_SRCS) test/unit/shim.c
endef
$(foreach f,$(FUZZ_NAMES),$(eval $(call fuzz_rule,$(f))))

fuzz-bins: $(FUZZ_BINS)

fuzz-seeds:
	@$(PYTHON) test/fuzz/seeds.py $(FUZZ_OUT)/corpus $(wildcard $(BUILD)/guest)

fuzz-host: fuzz-bins fuzz-seeds
	@$(PYTHON) test/fuzz/run.py --seconds $(FUZZ_SECONDS) --runs $(FUZZ_RUNS) \
		--corpus $(FUZZ_OUT)/corpus --artifacts $(FUZZ_OUT)/crashes \
		$(addprefix $(FUZZ_OUT)/fuzz_,$(FUZZ_ONLY))

TEST_TARGETS += test-fuzz-host
test-fuzz-host: fuzz-bins fuzz-seeds
	@$(PYTHON) test/fuzz/run.py --seconds $(FUZZ_TEST_SECONDS) --runs $(FUZZ_TEST_RUNS) \
		--seed $(FUZZ_TEST_SEED) --corpus $(FUZZ_OUT)/corpus \
		--artifacts $(FUZZ_OUT)/crashes $(FUZZ_BINS)

.PHONY: fuzz-bins fuzz-seeds fuzz-host test-fuzz-host

# ---------------------------------------------------------------- make fuzz
# The hostile guest's fuzz mode (guest-shim/tests/hvfuzz.c, 2 vCPUs) beside a
# victim VM in Bochs, one seed after another for FUZZ_MINUTES; prints exits
# handled per second and every hypervisor failure with the command that
# reproduces it (guest-shim/tests/run_fuzz.py). FUZZ_JOBS Bochs runs at once.
FUZZ_MINUTES ?= 20
FUZZ_SEED    ?= 1
FUZZ_OPS     ?= 4000
FUZZ_JOBS    ?= 1
fuzz: all guest-images
	@$(PYTHON) $(GUEST_DIR)/tests/run_fuzz.py --minutes $(FUZZ_MINUTES) --seed $(FUZZ_SEED) \
		--ops $(FUZZ_OPS) -j $(FUZZ_JOBS)

# Part of make test: two seeds (32-bit with apicv=off, 64-bit with apicv=on,
# the page-table race and the final triple fault), about 40 s.
TEST_TARGETS += test-fuzz-guest
test-fuzz-guest: all guest-images
	@$(PYTHON) $(GUEST_DIR)/tests/run_fuzz.py --seed 3 --count 2 --ops 800 -j 2

.PHONY: fuzz test-fuzz-guest
