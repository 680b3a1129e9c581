# Repeatable runs (issue 17; docs/running.md "Repeatable runs"): the same
# hvrun command twice at once, byte-identical serial logs, same Bochs count.
#   test-determinism        two multiboot VMs, 6 vCPUs on 2 pCPUs (in make test, ~25 s)
#   test-linux-determinism  the 2-vCPU Linux bartest run (1.5-3 min, not in make test)
test-determinism: guest-images all
	@$(PYTHON) test/determinism/run_twice.py smp4+ipi2 -- --emu bochs --cpus 2 \
		--vm 'kind=multiboot vcpus=4 mem=32M' --image $(BUILD)/guest/smp.elf \
		--vm 'kind=multiboot vcpus=2 mem=32M' --image $(BUILD)/guest/ipi.elf

test-linux-determinism: linux-guest all
	@$(PYTHON) test/determinism/run_twice.py linux-bartest -- --emu bochs --cpus 2 \
		--mem 512M --vm 'kind=linux vcpus=2 mem=128M cmdline="console=ttyS0,115200 hv.run=bartest,2,100,futex"'

TEST_TARGETS += test-determinism
.PHONY: test-determinism test-linux-determinism
