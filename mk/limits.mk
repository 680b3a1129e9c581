# Big-machine limits (issue 17). test-highmem (not in make test: about 75 s
# under load): Bochs with 5 GiB, a guest whose RAM the allocator places
# above 4 GiB, which must pass. The 128-CPU / 8 GiB QEMU boot is in
# test-qemu (test/system/qemu-bios-128cpu.toml).
test-highmem: guest-images all
	@$(PYTHON) tools/hvrun --emu bochs --cpus 1 --mem 2G --quiet \
		--bochs-line "memory: guest=5120, host=2048" --timeout 300 \
		--expect '^mm: RAM above 4 GiB in use: probe of page 0x1[0-9a-f]{8} ok$$' \
		--expect '^vm0: 1 vCPU, 64 MiB at host 0x1[0-9a-f]{8},' \
		--vm 'kind=multiboot vcpus=1 mem=64M cmdline="test=hypercall"' \
		--image $(BUILD)/guest/hypercall-64.elf

.PHONY: test-highmem
