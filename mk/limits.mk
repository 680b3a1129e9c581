# Big-machine limits (issue 17). test-highmem (not in make test: about 75 s
# under load): Bochs with 5 GiB, a guest whose RAM the allocator places
# above 4 GiB, which must pass (test/system/limits/highmem.toml). The 128-CPU
# / 8 GiB QEMU boot is in test-qemu (test/system/qemu-bios-128cpu.toml).
test-highmem: guest-images all
	@$(PYTHON) test/system/run.py test/system/limits/highmem.toml

.PHONY: test-highmem
