# Top-level build: the freestanding hypervisor image, host unit tests, the
# simulator, ISO images and the test/benchmark entry points.
#
# Each subsystem owns a fragment mk/<area>.mk that appends to these lists:
#   HV_SRCS      C/NASM sources linked into build/hv.elf (freestanding); each
#                hv/ folder adds all its sources by wildcard (mk/hv-<folder>.mk)
#   UNIT_TESTS   names of check-based host unit tests; for each NAME define
#                NAME_SRCS (test file + the real hv sources it links)
#   TEST_TARGETS extra phony targets that `make test` runs after unit tests
#   BENCH_TARGETS targets that `make bench` runs
# Every commit must build and pass `make test`.
#
# The image is linked and run identity-mapped at 2 MiB (hence -mcmodel=small):
# the hypervisor keeps a 1:1 map of all RAM anyway, so a higher-half alias
# would buy nothing but a second address space to reason about.

.DEFAULT_GOAL := all
SHELL := /bin/bash

BUILD     ?= build
CC        ?= gcc
HOSTCC    ?= gcc
NASM      ?= nasm
PYTHON    ?= python3
VERSION   := $(shell git describe --always --dirty 2>/dev/null || echo unknown)

HV_SRCS       :=
UNIT_TESTS    :=
TEST_TARGETS  :=
BENCH_TARGETS :=

include $(sort $(wildcard mk/*.mk))

# Each source once, in first-listed order: the per-folder wildcards
# (mk/hv-*.mk) and any explicit HV_SRCS line a fragment still has may overlap.
uniq = $(if $(1),$(firstword $(1)) $(call uniq,$(filter-out $(firstword $(1)),$(1))))
HV_SRCS := $(call uniq,$(HV_SRCS))

# ---------------------------------------------------------------- hypervisor
WARN     := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
            -Wpointer-arith -Wundef -Wvla -Wno-unused-parameter
HV_CFLAGS := -std=gnu11 -O2 -g -ffreestanding -fno-builtin -nostdinc -fno-pic -fno-pie \
            -fno-stack-protector -fno-common -fno-strict-aliasing -mno-red-zone \
            -mgeneral-regs-only -mcmodel=small -m64 -march=x86-64 \
            -isystem $(shell $(CC) -print-file-name=include) -Ihv \
            -DHV_VERSION='"$(VERSION)"' -DHV_FREESTANDING=1 $(WARN)
HV_LDFLAGS := -nostdlib -static -no-pie -Wl,--no-dynamic-linker -Wl,-z,max-page-size=0x1000 \
            -Wl,-z,noexecstack -Wl,--build-id=none -T linker.ld

HV_OBJS := $(patsubst %,$(BUILD)/obj/%.o,$(HV_SRCS))

$(BUILD)/obj/%.c.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(HV_CFLAGS) -MMD -MP -c $< -o $@

$(BUILD)/obj/%.asm.o: %.asm
	@mkdir -p $(dir $@)
	$(NASM) -f elf64 -g -Iboot/ -MD $(@:.o=.d) -MP $< -o $@

$(BUILD)/hv.elf: $(HV_OBJS) linker.ld
	$(CC) $(HV_CFLAGS) $(HV_LDFLAGS) -o $@ $(HV_OBJS) -lgcc
	@grub-file --is-x86-multiboot2 $@ || { echo "error: $@ is not multiboot2"; exit 1; }

all: $(BUILD)/hv.elf

-include $(HV_OBJS:.o=.d)

# ---------------------------------------------------------------- host unit tests
HOST_CFLAGS := -std=gnu11 -O1 -g -Ihv -Itest/unit -DHV_HOST=1 -fsanitize=address,undefined -fno-sanitize-recover=all \
               -fno-omit-frame-pointer -Wall -Wextra -Werror -Wno-unused-parameter \
               -Wno-missing-field-initializers
HOST_LIBS   := $(shell pkg-config --libs check 2>/dev/null || echo -lcheck -lsubunit -lm -lrt -lpthread)

define unit_test_rule
$(BUILD)/unit/$(1): $$($(1)_SRCS) test/unit/shim.c $$(wildcard hv/*.h hv/*/*.h hv/*/*/*.h test/unit/*.h)
	@mkdir -p $$(dir $$@)
	$$(HOSTCC) $$(HOST_CFLAGS) -o $$@ $$($(1)_SRCS) test/unit/shim.c $$(HOST_LIBS)
endef
$(foreach t,$(UNIT_TESTS),$(eval $(call unit_test_rule,$(t))))

# tools/check_layers.py: no new dependency cycle between hv/ files, no more
# hv/vmx -> hv/vm includes than today (issue 11); it reads the image's objects.
unit: $(addprefix $(BUILD)/unit/,$(UNIT_TESTS)) $(BUILD)/hv.elf
	@$(PYTHON) tools/run_unit.py $(addprefix $(BUILD)/unit/,$(UNIT_TESTS))
	@$(PYTHON) tools/check_layers.py --obj $(BUILD)/obj $(filter $(BUILD)/obj/hv/%,$(HV_OBJS))

# ---------------------------------------------------------------- entry points
deps:
	@bash tools/deps.sh

test: deps
	@$(MAKE) --no-print-directory all
	@$(MAKE) --no-print-directory unit
	@set -e; for t in $(TEST_TARGETS); do $(MAKE) --no-print-directory $$t; done
	@echo "make test: all suites passed"

bench: deps all
	@set -e; for t in $(BENCH_TARGETS); do $(MAKE) --no-print-directory $$t; done

# The default demo: two VMs sharing two emulated CPUs.
RUN_CMDLINE ?= loglvl=info
RUN_ARGS ?= --vm "kind=multiboot vcpus=4 mem=32M name=smp4" --image $(BUILD)/guest/smp.elf \
	    --vm "kind=multiboot vcpus=2 mem=32M name=ipi2" --image $(BUILD)/guest/ipi.elf

run: deps
	@$(MAKE) --no-print-directory all guest-images
	@$(PYTHON) tools/hvrun --emu bochs --cpus 2 --cmdline "$(RUN_CMDLINE)" $(RUN_ARGS)

# A bootable hybrid ISO (GRUB for BIOS and UEFI) of the same configuration,
# for a USB stick or a real machine: build/hv.iso.
iso: deps
	@$(MAKE) --no-print-directory all guest-images
	@$(PYTHON) tools/hvrun --iso-only $(BUILD)/hv.iso --cmdline "$(RUN_CMDLINE)" $(RUN_ARGS)
	@echo "iso: $(BUILD)/hv.iso"

clean:
	rm -rf $(BUILD)

.PHONY: all unit deps test bench run iso clean
