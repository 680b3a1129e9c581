# IRS (seed 000, issue 14), guest half: the patched Linux guest
# (guest-shim/linux/patches/01xx-*.patch, CONFIG_HV_IRS), irsprobe, the Bochs
# test and the three-arm experiment (docs/sched.md "IRS").
#   make test-linux-irs   a 2-vCPU sa=on VM beside a hog: pinned task -> ack
#                         yield at once, unpinned spinner migrates within the
#                         grace period (tools/linux/irstest.py)
#   make exp-irs          vanilla / PV / IRS with bartest futex+spin beside
#                         1, 2, 4 hog vCPUs on 4 Bochs pCPUs (tools/linux/irsexp.py)
$(BUILD)/linux/initramfs.cpio: $(BUILD)/linux/bin/irsprobe
$(BUILD)/linux/initramfs.cpio: LINUX_BINS += $(BUILD)/linux/bin/irsprobe

IRS_EXP_ARGS ?=

test-linux-irs: linux-guest $(BUILD)/hv.elf
	@$(PYTHON) tools/linux/irstest.py --hv $(BUILD)/hv.elf

# An explicit rule: wins over mk/experiments.mk's exp-% pattern.
exp-irs: linux-guest $(BUILD)/hv.elf
	@$(PYTHON) tools/linux/irsexp.py --hv $(BUILD)/hv.elf --out $(EXP_OUT) $(IRS_EXP_ARGS)

.PHONY: test-linux-irs exp-irs
