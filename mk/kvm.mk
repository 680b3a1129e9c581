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
# apicv=off: PV EOI only saves exits without virtual-interrupt delivery (with
# it the bit is never set), so this run checks that the guest's in-memory
# EOIs are taken (the hypervisor's per-vCPU "pv-eois" count).
KVM_PV_LINUX_CMDLINE := console=ttyS0,115200 no_timer_check tsc=reliable lpj=10000000 \
	idle=halt panic=-1 noxsave hv.run=kvmcheck,0,ipi hv.run=bartest,2,200,spin
test-kvm-pv: linux-guest $(BUILD)/hv.elf
	@$(PYTHON) tools/hvrun --emu bochs --cpus 2 --mem 512M --bochs-cpu corei7_haswell_4770 \
		--ips 50000000 --timeout 600 --quiet --hv $(BUILD)/hv.elf --cmdline apicv=off \
		--vm 'kind=linux vcpus=2 mem=128M cmdline="$(KVM_PV_LINUX_CMDLINE)"' \
		--image $(BUILD)/linux/bzImage --initrd $(BUILD)/linux/initramfs.cpio \
		--expect 'TEST kvm-clock-msrs PASS' --expect 'TEST kvm-clock-monotonic PASS' \
		--expect 'vcpu0: KVM PV EOI at gpa' --expect 'vcpu0 kvm-pv .* pv-eois [1-9]' \
		--expect 'vcpu1 kvm-pv .* pv-eois [1-9]'
TEST_TARGETS += test-kvm-pv
.PHONY: test-kvm-pv
