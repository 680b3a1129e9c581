# Two Linux VMs sharing the pCPUs: guest /proc/stat steal against the
# hypervisor's vProfile RUNNABLE time (issue 6; tools/linux/stealtest.py).
# stealcheck and vprofctl go into the Linux owner's initramfs the way
# mk/kvm.mk adds kvmcheck: a prerequisite plus a target-specific append.
$(BUILD)/linux/initramfs.cpio: $(BUILD)/linux/bin/stealcheck $(BUILD)/vprof/vprofctl
$(BUILD)/linux/initramfs.cpio: LINUX_BINS += $(BUILD)/linux/bin/stealcheck $(BUILD)/vprof/vprofctl

# 4-vCPU parallel VM + 4-vCPU hog VM on 4 emulated pCPUs, credit scheduler.
test-linux-steal: linux-guest $(BUILD)/hv.elf
	@$(PYTHON) tools/linux/stealtest.py --hv $(BUILD)/hv.elf

TEST_TARGETS += test-linux-steal
.PHONY: test-linux-steal
