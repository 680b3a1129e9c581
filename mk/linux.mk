# Linux guest: kernel (cached per machine), initramfs, bzImage loader tests.
#   make linux-guest       build/linux/bzImage + build/linux/initramfs.cpio
#   make test-linux-bare   boot them in bare QEMU TCG (2 and 4 CPUs), check results
#   make test-linux-direct boot them in QEMU TCG from the RAM image load_bzimage()
#                          and the guest ACPI/MP builder produce (no firmware)
#   make test-linux-bochs  one boot in bare Bochs (slow; not in `make test`)
#   make test-linux-hv     boot them as a 2-vCPU VM under build/hv.elf in Bochs
#   make test-linux        all of the above plus 1- and 4-vCPU VMs
#   make test-linux-bareload  one boot in bare Bochs through tools/linux/bareload
#   make bench-linux-boot  cycles from kernel entry to /init, hypervisor / bare Bochs
# The kernel is built once per machine into $(HV_CACHE)/linux/<key> by
# tools/linux/build-kernel.sh (key = fragment + patches + linux-source version).
# Guest-kernel changes live in guest-shim/linux/patches/NNNN-name.patch, applied
# in name order (0001-0099 shared, 0100-0199 IRS, 0200-0299 balloon).

LINUX_OUT     := $(BUILD)/linux
LINUX_FRAG    := guest-shim/linux/guest.config
# Other areas add their own guest tools by appending to LINUX_BINS (mk/kvm.mk).
LINUX_PROGS   := balloon bartest blockbench hog interfere latprobe tscstamp
LINUX_BINS    := $(addprefix $(LINUX_OUT)/bin/,$(LINUX_PROGS))
LINUX_WL_CC   := $(shell command -v musl-gcc >/dev/null 2>&1 && echo musl-gcc || echo $(HOSTCC))
LINUX_BUSYBOX ?= /bin/busybox

# bzimage.c calls guest_e820() from layout.c (another area): link it into the
# image once that exists, so `make all` never breaks on an undefined symbol.
UNIT_TESTS += test_bzimage
test_bzimage_SRCS := test/unit/test_bzimage.c hv/load/bzimage.c $(wildcard hv/load/layout.c)

# The real kernel, if built, is also checked by the unit test (skipped otherwise).
$(BUILD)/unit/test_bzimage: HOST_CFLAGS += -DTEST_BZIMAGE_PATH='"$(CURDIR)/$(LINUX_OUT)/bzImage"'

LINUX_PATCHES := $(sort $(wildcard guest-shim/linux/patches/*.patch))
$(LINUX_OUT)/bzImage: $(LINUX_FRAG) $(LINUX_PATCHES) tools/linux/build-kernel.sh
	@mkdir -p $(dir $@)
	@img=$$(tools/linux/build-kernel.sh $(LINUX_FRAG)) && cp "$$img" $@
	@echo "linux: $@ ($$(stat -c %s $@) B)"

$(LINUX_OUT)/bin/%: guest-shim/linux/src/%.c guest-shim/linux/src/wl.h guest-shim/linux/src/hvcall.h
	@mkdir -p $(dir $@)
	$(LINUX_WL_CC) -static -O2 -s -Wall -Wextra -Werror -pthread -o $@ $<

$(LINUX_OUT)/initramfs.cpio: $(LINUX_BINS) guest-shim/linux/init tools/linux/mkinitramfs.py
	@$(PYTHON) tools/linux/mkinitramfs.py -o $@ --init guest-shim/linux/init \
		--busybox $(LINUX_BUSYBOX) $(addprefix --bin ,$(LINUX_BINS))

linux-guest: $(LINUX_OUT)/bzImage $(LINUX_OUT)/initramfs.cpio

test-linux-bare: linux-guest
	@$(PYTHON) tools/linux/boot-bare.py --emu qemu --cpus 2 --cpus 4 \
		--kernel $(LINUX_OUT)/bzImage --initrd $(LINUX_OUT)/initramfs.cpio

# Host build of the hypervisor's loader + table builder for the direct boot.
LINUX_BZLOAD_SRCS := tools/linux/bzload.c hv/load/bzimage.c hv/load/layout.c \
                     hv/dev/acpi_tables.c hv/dev/acpi_area.c hv/dev/mptable.c hv/lib/checksum.c tools/sim/hostlog.c
$(LINUX_OUT)/bzload: $(LINUX_BZLOAD_SRCS) $(wildcard hv/*.h hv/*/*.h)
	@mkdir -p $(dir $@)
	$(HOSTCC) -std=gnu11 -O1 -g -Ihv -DHV_HOST=1 -Wall -Wextra -Werror \
		-Wno-unused-parameter -o $@ $(LINUX_BZLOAD_SRCS)

$(LINUX_OUT)/romstub.bin: tools/linux/romstub.asm
	@mkdir -p $(dir $@)
	$(NASM) -f bin -o $@ $<

test-linux-direct: linux-guest $(LINUX_OUT)/bzload $(LINUX_OUT)/romstub.bin
	@$(PYTHON) tools/linux/boot-bare.py --emu direct --cpus 1 --cpus 4 \
		--kernel $(LINUX_OUT)/bzImage --initrd $(LINUX_OUT)/initramfs.cpio

test-linux-bochs: linux-guest
	@$(PYTHON) tools/linux/boot-bare.py --emu bochs --cpus 1 \
		--kernel $(LINUX_OUT)/bzImage --initrd $(LINUX_OUT)/initramfs.cpio

LINUX_IMGS := --kernel $(LINUX_OUT)/bzImage --initrd $(LINUX_OUT)/initramfs.cpio

test-linux-hv: linux-guest $(BUILD)/hv.elf
	@$(PYTHON) tools/linux/boot-bare.py --emu hv --cpus 2 --hv $(BUILD)/hv.elf $(LINUX_IMGS)

test-linux: test-linux-bare test-linux-direct test-linux-bochs test-linux-hv test-linux-bareload
	@$(PYTHON) tools/linux/boot-bare.py --emu hv --cpus 1 --cpus 4 --hv $(BUILD)/hv.elf \
		$(LINUX_IMGS)

# Cycles from kernel entry to /init, hypervisor / bare Bochs, both booted by
# load_bzimage() (bare: tools/linux/bareload, mk/bareload.mk); docs/linux-guest.md.
bench-linux-boot: linux-guest $(BUILD)/hv.elf $(BARELOAD_ELF)
	@$(PYTHON) tools/linux/boot-bare.py --bench-ratio --cpus 1 --cpus 2 --run "hog 1000" \
		--hv $(BUILD)/hv.elf --bareload $(BARELOAD_ELF) $(LINUX_IMGS)

# The bare side of the benchmark alone (about 15 s of Bochs).
test-linux-bareload: linux-guest $(BARELOAD_ELF)
	@$(PYTHON) tools/linux/boot-bare.py --emu bareload --cpus 1 --run "hog 10" \
		--bareload $(BARELOAD_ELF) $(LINUX_IMGS)

# In `make test`: the first kernel build takes about 2.5 min on an idle
# 2-core machine (docs/linux-guest.md), later runs only the ~10 s of boots.
# test-linux-hv (about 30 s of Bochs) is the Linux boot the issue asks of `make test`.
TEST_TARGETS += test-linux-bare test-linux-direct test-linux-hv

BENCH_TARGETS += bench-linux-boot

.PHONY: linux-guest test-linux-bare test-linux-direct test-linux-bochs test-linux-hv \
	test-linux bench-linux-boot test-linux-bareload

# Debian's stock kernel (linux-image-amd64's current package, fetched from the
# Debian archive once and cached by tools/linux/distro-kernel.sh) with the
# project's initramfs under the hypervisor, 1 and 2 vCPUs, on Bochs's Ice Lake
# model: the boot must leave the kernel untainted and without a warning.
DISTRO_RUNS := --run "bartest 2 100 futex" --run "bartest 2 100 spin" --run "hog 20"
test-distro: linux-guest $(BUILD)/hv.elf
	@k=$$(tools/linux/distro-kernel.sh) && \
	$(PYTHON) tools/linux/boot-bare.py --emu hv --cpus 1 --cpus 2 --hv $(BUILD)/hv.elf \
		--strict --name linux-distro --bochs-cpu corei7_icelake_u \
		--kernel "$$k" --initrd $(LINUX_OUT)/initramfs.cpio \
		--append cryptomgr.notests $(DISTRO_RUNS)
# In make test: about 50 s (1 vCPU) + 100 s (2 vCPUs) of Bochs on an idle
# 2-core machine; the first run also fetches the package (70 MB, cached).
TEST_TARGETS += test-distro
.PHONY: test-distro

# The blocking and wake-up path (issue 19): futex barrier, mutex, pipe
# ping-pong across CPUs and a 1 ms sleep loop, per iteration, under the
# hypervisor over bare Bochs (both through load_bzimage()), 1, 2 and 4 vCPUs.
BLOCK_CPUS ?= 1 2 4
bench-linux-block: linux-guest $(BUILD)/hv.elf $(BARELOAD_ELF)
	@set -e; for c in $(BLOCK_CPUS); do \
	$(PYTHON) tools/linux/boot-bare.py --bench-block --cpus $$c \
		--run "bartest $$c 2000 futex" --run "bartest $$c 2000 mutex" \
		--run "blockbench pipe 2000" --run "blockbench sleep 200 1000" \
		--hv $(BUILD)/hv.elf --bareload $(BARELOAD_ELF) $(LINUX_IMGS); done
BENCH_TARGETS += bench-linux-block
.PHONY: bench-linux-block
