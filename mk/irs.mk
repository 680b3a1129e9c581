# IRS (seed 000, issue 14), guest half: the patched Linux guest
# (guest-shim/linux/patches/01xx-*.patch, CONFIG_HV_IRS), irsprobe, the Bochs
# test and the three-arm experiment (docs/sched.md "IRS").
#   make test-linux-irs   a 2-vCPU sa=on VM beside a hog: pinned task -> ack
#                         yield at once, unpinned spinner migrates within the
#                         grace period (tools/linux/irstest.py; in make test)
#   make test-linux-irs-off   the same VM booted with irs=off: no upcall at all
#   make exp-irs          vanilla / PV / IRS with bartest futex, spin and
#                         futex-coarse beside 1, 2, 4 hog vCPUs on 4 Bochs
#                         pCPUs, two timing samples, and issue 14's checks:
#                         IRS beats both baselines for futex-coarse at 1-inter,
#                         IRS at most 5% below vanilla at 4-inter
#                         (tools/linux/irsexp.py --check; 18 Bochs runs, about
#                         30-60 min on a quiet machine)
$(BUILD)/linux/initramfs.cpio: $(BUILD)/linux/bin/irsprobe
$(BUILD)/linux/initramfs.cpio: LINUX_BINS += $(BUILD)/linux/bin/irsprobe

IRS_EXP_ARGS ?=
# Later options win: IRS_EXP_ARGS="--inter 1 --modes futex-coarse" narrows it.
IRS_EXP_DEFAULTS = --delay-s 1,2.003 --check

# In `make test`: about 25 s wall on an idle machine (95-135 s at load 20).
test-linux-irs: linux-guest $(BUILD)/hv.elf
	@$(PYTHON) tools/linux/irstest.py --hv $(BUILD)/hv.elf

test-linux-irs-off: linux-guest $(BUILD)/hv.elf
	@$(PYTHON) tools/linux/irstest.py --hv $(BUILD)/hv.elf --irs-off

TEST_TARGETS += test-linux-irs

# An explicit rule: wins over mk/experiments.mk's exp-% pattern.
exp-irs: linux-guest $(BUILD)/hv.elf
	@$(PYTHON) tools/linux/irsexp.py --hv $(BUILD)/hv.elf --out $(EXP_OUT) $(IRS_EXP_DEFAULTS) $(IRS_EXP_ARGS)

.PHONY: test-linux-irs test-linux-irs-off exp-irs
