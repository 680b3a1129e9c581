# Guest side: multiboot1/flat loaders (hv/load) and the guest test images
# (guest-shim/lib + guest-shim/tests, built by the rules below).
UNIT_TESTS += test_loaders
test_loaders_SRCS := test/unit/test_loaders.c hv/load/layout.c hv/load/mb1.c \
                     hv/load/mb1_info.c hv/load/flat.c

# ---------------------------------------------------------------- guest images
# Every test kernel in guest-shim/tests/<t>.c is built as
#   build/guest/<t>.elf     32-bit multiboot1 ELF32 (loaded by program headers)
#   build/guest/<t>-64.elf  64-bit kernel in an ELF32 container (objcopy)
#   build/guest/<t>-64.bin  64-bit flat binary with the a.out-kludge header
#                           (load_multiboot1 by the header fields, or load_flat)
# except those in GUEST_ONLY64 (no 32-bit build). No libgcc: lib/libgcc.c.
# A test split by topic keeps its other parts in guest-shim/tests/<t>/*.c
# (with their header there), linked after <t>.o (GUEST_PARTS).
GUEST_DIR    := guest-shim
GUEST_OUT    := $(BUILD)/guest
GUEST_TESTS  := $(sort $(basename $(notdir $(wildcard $(GUEST_DIR)/tests/*.c))))
GUEST_ONLY64 := eptfar mmiorace idtmmio live fpuswitch
GUEST_LIB_C  := $(wildcard $(GUEST_DIR)/lib/*.c) hv/lib/fmt.c hv/lib/string.c
GUEST_LIB_S  := $(GUEST_DIR)/lib/isr.S
GUEST_HDRS   := $(wildcard $(GUEST_DIR)/lib/*.h $(GUEST_DIR)/tests/*/*.h) hv/abi.h hv/lib/fmt.h
GUEST_CFLAGS := -std=gnu11 -O2 -g -ffreestanding -fno-builtin -nostdinc -fno-pic -fno-pie \
                -fno-stack-protector -fno-common -fno-delete-null-pointer-checks \
                -fno-asynchronous-unwind-tables -mgeneral-regs-only \
                -isystem $(shell $(CC) -print-file-name=include) \
                -I$(GUEST_DIR)/lib -Ihv -Wall -Wextra -Werror -Wno-unused-parameter
GUEST_C32    := -m32 -march=i686
GUEST_C64    := -m64 -march=x86-64 -mno-red-zone -mcmodel=small
GUEST_LD     := ld --no-warn-rwx-segments -nostdlib -static -z max-page-size=0x1000 -z noexecstack --build-id=none \
                -T $(GUEST_DIR)/lib/guest.ld

GUEST_IMAGES := $(foreach t,$(filter-out $(GUEST_ONLY64),$(GUEST_TESTS)),$(GUEST_OUT)/$(t).elf) \
                $(foreach t,$(GUEST_TESTS),$(GUEST_OUT)/$(t)-64.elf $(GUEST_OUT)/$(t)-64.bin)

# $(1) = 32|64, $(2) = extra flags: objects of the library for one word size.
define guest_lib_rule
$(GUEST_OUT)/obj$(1)/%.o: %.c $(GUEST_HDRS)
	@mkdir -p $$(dir $$@)
	$$(CC) $$(GUEST_CFLAGS) $(2) -c $$< -o $$@
$(GUEST_OUT)/obj$(1)/%.o: %.S $(GUEST_DIR)/lib/asm.h
	@mkdir -p $$(dir $$@)
	$$(CC) $(2) -I$(GUEST_DIR)/lib -c $$< -o $$@
$(GUEST_OUT)/obj$(1)/entry-aout.o: $(GUEST_DIR)/lib/entry.S $(GUEST_DIR)/lib/asm.h
	@mkdir -p $$(dir $$@)
	$$(CC) $(2) -DGUEST_AOUT -I$(GUEST_DIR)/lib -c $$< -o $$@
GUEST_LIB$(1) := $(patsubst %,$(GUEST_OUT)/obj$(1)/%.o,$(basename $(GUEST_LIB_C) $(GUEST_LIB_S)))
endef
$(eval $(call guest_lib_rule,32,$(GUEST_C32)))
$(eval $(call guest_lib_rule,64,$(GUEST_C64)))

GUEST_ENTRY32 := $(GUEST_OUT)/obj32/$(GUEST_DIR)/lib/entry.o
GUEST_ENTRY64 := $(GUEST_OUT)/obj64/$(GUEST_DIR)/lib/entry.o

# $(1) = 32|64, $(2) = test: the objects of guest-shim/tests/<t>/*.c.
GUEST_PARTS = $(patsubst %.c,$(GUEST_OUT)/obj$(1)/%.o,$(wildcard $(GUEST_DIR)/tests/$(2)/*.c))
$(foreach t,$(GUEST_TESTS),$(if $(call GUEST_PARTS,32,$(t)),\
  $(eval $(GUEST_OUT)/$(t).elf: $(call GUEST_PARTS,32,$(t)))\
  $(eval $(GUEST_OUT)/$(t)-64.elf64 $(GUEST_OUT)/$(t)-64.bin: $(call GUEST_PARTS,64,$(t)))))

$(GUEST_OUT)/%.elf: $(GUEST_OUT)/obj32/$(GUEST_DIR)/tests/%.o $(GUEST_ENTRY32) $(GUEST_LIB32) $(GUEST_DIR)/lib/guest.ld
	$(GUEST_LD) -m elf_i386 -o $@ $(GUEST_ENTRY32) $(GUEST_LIB32) $< $(call GUEST_PARTS,32,$*)
	@grub-file --is-x86-multiboot $@ || { echo "error: $@ is not multiboot1"; exit 1; }

$(GUEST_OUT)/%-64.elf64: $(GUEST_OUT)/obj64/$(GUEST_DIR)/tests/%.o $(GUEST_ENTRY64) $(GUEST_LIB64) $(GUEST_DIR)/lib/guest.ld
	$(GUEST_LD) -m elf_x86_64 -o $@ $(GUEST_ENTRY64) $(GUEST_LIB64) $< $(call GUEST_PARTS,64,$*)

$(GUEST_OUT)/%-64.elf: $(GUEST_OUT)/%-64.elf64
	objcopy -O elf32-i386 $< $@
	@grub-file --is-x86-multiboot $@ || { echo "error: $@ is not multiboot1"; exit 1; }

$(GUEST_OUT)/%-64.bin: $(GUEST_OUT)/obj64/$(GUEST_DIR)/tests/%.o $(GUEST_OUT)/obj64/entry-aout.o $(GUEST_LIB64) $(GUEST_DIR)/lib/guest.ld
	$(GUEST_LD) -m elf_x86_64 -o $@.elf64 $(GUEST_OUT)/obj64/entry-aout.o $(GUEST_LIB64) $< $(call GUEST_PARTS,64,$*)
	objcopy -O binary $@.elf64 $@
	@grub-file --is-x86-multiboot $@ || { echo "error: $@ is not multiboot1"; exit 1; }

# Benchmark guests (guest-shim/bench/<b>.c, 64-bit only): build/guest/bench/<b>-64.elf.
GUEST_BENCH := $(patsubst $(GUEST_DIR)/bench/%.c,$(GUEST_OUT)/bench/%-64.elf,$(wildcard $(GUEST_DIR)/bench/*.c))

$(GUEST_OUT)/bench/%-64.elf64: $(GUEST_OUT)/obj64/$(GUEST_DIR)/bench/%.o $(GUEST_ENTRY64) $(GUEST_LIB64) $(GUEST_DIR)/lib/guest.ld
	@mkdir -p $(dir $@)
	$(GUEST_LD) -m elf_x86_64 -o $@ $(GUEST_ENTRY64) $(GUEST_LIB64) $<

$(GUEST_OUT)/bench/%-64.elf: $(GUEST_OUT)/bench/%-64.elf64
	objcopy -O elf32-i386 $< $@
	@grub-file --is-x86-multiboot $@ || { echo "error: $@ is not multiboot1"; exit 1; }

.SECONDARY: $(GUEST_BENCH:.elf=.elf64)

.SECONDARY: $(patsubst %.elf,%.elf64,$(filter %-64.elf,$(GUEST_IMAGES)))

guest-images: $(GUEST_IMAGES)

# Bare QEMU (TCG, no hypervisor) run of every image; see docs/guest-tests.md.
TEST_TARGETS += test-guest-bare
test-guest-bare: guest-images
	@$(PYTHON) $(GUEST_DIR)/tests/run_bare.py $(GUEST_OUT)

# The hypervisor's loaders (host build) on every real image: RAM at 1 MiB
# must equal the image's flat bytes; entry state and info block checked.
GUEST_LOADCHECK := $(BUILD)/guest/loadcheck
$(GUEST_LOADCHECK): $(GUEST_DIR)/tests/host/loadcheck.c $(test_loaders_SRCS) test/unit/shim.c
	@mkdir -p $(dir $@)
	$(HOSTCC) $(HOST_CFLAGS) -o $@ $< $(filter hv/%,$(test_loaders_SRCS)) test/unit/shim.c

TEST_TARGETS += test-guest-load
test-guest-load: guest-images $(GUEST_LOADCHECK)
	@set -e; args=""; \
	for f in $(filter %.elf,$(GUEST_IMAGES)); do \
		objcopy -O binary $$f $$f.flat; args="$$args mb1 $$f $$f.flat"; done; \
	for f in $(filter %.bin,$(GUEST_IMAGES)); do \
		args="$$args mb1 $$f $$f flat $$f $$f"; done; \
	ASAN_OPTIONS=detect_leaks=1 $(GUEST_LOADCHECK) $$args | tail -1

# Under the hypervisor (tools/hvrun, Bochs): every image, each VM ending as
# expected, once with APIC virtualization and once without (apicv=on,off).
# The cases: guest-shim/tests/guest_cases.py, run by the system-test runner.
# GUEST_HV_ARGS e.g. --all, --cmdline "...", -k smp, -j 2; GUEST_HV_APICV=on.
GUEST_HV_APICV ?= on,off
test-guest-hv: guest-images $(GUEST_BENCH) all
	@$(PYTHON) test/system/run.py --suite guest-hv --apicv $(GUEST_HV_APICV) $(GUEST_HV_ARGS)
TEST_TARGETS += test-guest-hv

.PHONY: guest-images test-guest-bare test-guest-load test-guest-hv
