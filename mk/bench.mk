# Exit-cost figures (make bench): the exitbench guest under the hypervisor in
# Bochs with APIC virtualization on and off; tools/bench/exitbench.py prints
# the table and the commands. Image: build/guest/bench/exitbench-64.elf (mk/guest.mk).
BENCH_TARGETS += bench-exits
bench-exits: all $(BUILD)/guest/bench/exitbench-64.elf
	@$(PYTHON) tools/bench/exitbench.py --hv $(BUILD)/hv.elf \
		--image $(BUILD)/guest/bench/exitbench-64.elf $(BENCH_EXITS_ARGS)
.PHONY: bench-exits
