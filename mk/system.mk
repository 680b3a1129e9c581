# tools/hvrun self-tests and the system tests (test/system/*.toml booted
# through tools/hvrun; see docs/running.md).
#   test-hvrun   hvrun's own tests: Python unit tests, then the self-test kernel
#                booted in QEMU (BIOS, UEFI) and Bochs for every exit status
#   test-system  every system-test spec against build/hv.elf (2 in parallel)
#   test-qemu / test-bochs   only the specs for that emulator
# SYSTEM_ARGS passes options to the harness, e.g. SYSTEM_ARGS="-k bochs -j 1".

HVRUN_TESTKERNEL := $(BUILD)/hvrun/testkernel.bin
SYSTEM_ARGS ?=

$(HVRUN_TESTKERNEL): test/hvrun/testkernel.asm
	@mkdir -p $(dir $@)
	$(NASM) -f bin -o $@ $<
	@grub-file --is-x86-multiboot2 $@ || { echo "error: $@ is not multiboot2"; exit 1; }

test-hvrun: $(HVRUN_TESTKERNEL)
	@$(PYTHON) -m unittest discover -s test/hvrun -p 'test_*.py'
	@nice $(PYTHON) test/hvrun/smoke.py $(HVRUN_TESTKERNEL)
	@nice $(PYTHON) test/system/run.py --hv $(HVRUN_TESTKERNEL) \
		--out $(BUILD)/hvrun/system-selftest test/hvrun/specs/*.toml

test-system: $(BUILD)/hv.elf
	@nice $(PYTHON) test/system/run.py $(SYSTEM_ARGS)

test-qemu: $(BUILD)/hv.elf
	@nice $(PYTHON) test/system/run.py --emu qemu $(SYSTEM_ARGS)

test-bochs: $(BUILD)/hv.elf
	@nice $(PYTHON) test/system/run.py --emu bochs $(SYSTEM_ARGS)

# test-system passed 3 runs in a row against a clean build of fbe9c3a+.
TEST_TARGETS += test-hvrun test-system

.PHONY: test-hvrun test-system test-qemu test-bochs
