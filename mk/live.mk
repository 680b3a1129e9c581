# Issue 16: run-time policy switch (hv/sched/switch.c, hv/vm/sched_hcall.c
# HC_SCHED_SWITCH, hvctl, console key; docs/sched.md "Run-time policy switch").
UNIT_TESTS += test_sched_switch
test_sched_switch_SRCS = test/unit/test_sched_switch.c $(SCHED_SRCS) $(SIM_LIB_SRCS)
UNIT_TESTS += test_vm_policy
test_vm_policy_SRCS = test/unit/test_vm_policy.c $(SCHED_SRCS) $(SIM_LIB_SRCS)

# hvctl (guest-shim/linux/src/hvctl.c) goes into the Linux initramfs as
# mk/steal.mk adds its tools; its request encoding is checked on the host.
$(BUILD)/linux/initramfs.cpio: $(BUILD)/linux/bin/hvctl
$(BUILD)/linux/initramfs.cpio: LINUX_BINS += $(BUILD)/linux/bin/hvctl

$(BUILD)/live/hvctl-host: guest-shim/linux/src/hvctl.c guest-shim/linux/src/hvcall.h hv/abi.h
	@mkdir -p $(dir $@)
	$(HOSTCC) -O2 -Wall -Wextra -Werror -o $@ $<

test-hvctl: $(BUILD)/live/hvctl-host
	@$(PYTHON) test/sched/hvctl_dry.py $(BUILD)/live/hvctl-host

TEST_TARGETS += test-hvctl
.PHONY: test-hvctl

# A Linux guest drives the switch with hvctl (about 30 s of Bochs; not in
# make test).
test-linux-hvctl: linux-guest $(BUILD)/hv.elf
	@$(PYTHON) tools/linux/hvctltest.py --hv $(BUILD)/hv.elf
.PHONY: test-linux-hvctl
