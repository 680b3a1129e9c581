# Repeatable runs (issue 17; docs/running.md "Repeatable runs"): the same
# hvrun command twice at once, byte-identical serial logs, same Bochs count.
# Both are in make test:
#   test-determinism        two multiboot VMs, 6 vCPUs on 2 pCPUs (~25 s)
#   test-linux-determinism  the issue's 2-vCPU Linux bartest command, twice
#                           (~1 min on a loaded 2-core machine)
# The Linux one boots the guest kernel with an initramfs that holds only what
# that command runs (/init, busybox, bartest, tscstamp: 3.5 MB, not 11 MB),
# which saves a quarter of the Bochs instructions (GRUB's reads and the
# kernel's unpacking). Measured, not worth it: a shorter kernel command line
# (no_timer_check, lpj=, cryptomgr.notests, quiet), --ips 50000000 (more
# ticks), 256 MiB of host RAM.
DET_INITRD := $(BUILD)/linux/initramfs-det.cpio
DET_LINUX_HV ?=
test-determinism: guest-images all
	@$(PYTHON) test/determinism/run_twice.py smp4+ipi2 -- --emu bochs --cpus 2 \
		--vm 'kind=multiboot vcpus=4 mem=32M' --image $(BUILD)/guest/smp.elf \
		--vm 'kind=multiboot vcpus=2 mem=32M' --image $(BUILD)/guest/ipi.elf

$(DET_INITRD): $(BUILD)/linux/bin/bartest $(BUILD)/linux/bin/tscstamp guest-shim/linux/init \
		tools/linux/mkinitramfs.py
	@$(PYTHON) tools/linux/mkinitramfs.py -o $@ --init guest-shim/linux/init \
		--busybox $(LINUX_BUSYBOX) $(addprefix --bin ,$(filter %/bartest %/tscstamp,$^))

# DET_LINUX_HV: hypervisor options for both runs (guest_rdrand=on must fail).
test-linux-determinism: linux-guest all $(DET_INITRD)
	@$(PYTHON) test/determinism/run_twice.py linux-bartest -- --emu bochs --cpus 2 \
		--mem 512M $(if $(DET_LINUX_HV),--cmdline '$(DET_LINUX_HV)') \
		--vm 'kind=linux vcpus=2 mem=128M cmdline="console=ttyS0,115200 hv.run=bartest,2,100,futex"' \
		--image $(BUILD)/linux/bzImage --initrd $(DET_INITRD)

TEST_TARGETS += test-determinism test-linux-determinism
.PHONY: test-determinism test-linux-determinism
