# KVM paravirtual interface for Linux guests (kvmclock, steal time, PV IPIs,
# PV unhalt, sched-yield, TLB-flush hint): docs/kvm-pv.md.
UNIT_TESTS += test_kvm_pv
test_kvm_pv_SRCS := test/unit/test_kvm_pv.c hv/vmx/kvm_pv.c \
	$(wildcard hv/dev/vlapic*.c) hv/dev/vioapic.c hv/dev/vpic.c hv/dev/intc.c

# Guest-side check (guest-shim/linux/src/kvmcheck.c), run by /init with
# hv.run=kvmcheck[,MIN_STEAL_TICKS[,spin]]. Added to the Linux owner's
# initramfs without editing mk/linux.mk (read after this file): an extra
# prerequisite built by its bin/% rule, and a target-specific append to the
# --bin list its recipe expands.
$(BUILD)/linux/initramfs.cpio: $(BUILD)/linux/bin/kvmcheck
$(BUILD)/linux/initramfs.cpio: LINUX_BINS += $(BUILD)/linux/bin/kvmcheck

# Linux (2 vCPUs) under the hypervisor in Bochs runs kvmcheck; about 15 s.
# The run and its checks: test/system/linux/kvm-pv.toml.
test-kvm-pv: linux-guest $(BUILD)/hv.elf
	@$(PYTHON) test/system/run.py test/system/linux/kvm-pv.toml
TEST_TARGETS += test-kvm-pv
.PHONY: test-kvm-pv
