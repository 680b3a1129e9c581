# bareload: the guest Linux booted natively in bare Bochs by the hypervisor's
# own loader and guest tables (tools/linux/bareload/), the bare side of
# `make bench-linux-boot` (mk/linux.mk, tools/linux/boot-bare.py --emu bareload).
#   make bareload   build/linux/bareload.elf (a Multiboot2 ELF GRUB loads)

BARELOAD_DIR  := tools/linux/bareload
BARELOAD_ELF  := $(BUILD)/linux/bareload.elf
BARELOAD_SRCS := $(BARELOAD_DIR)/entry.asm $(BARELOAD_DIR)/main.c $(BARELOAD_DIR)/hw.c \
                 $(BARELOAD_DIR)/plan.c hv/bootinfo.c hv/load/bzimage.c hv/load/layout.c \
                 hv/dev/acpi_tables.c hv/dev/acpi_area.c hv/dev/mptable.c hv/lib/checksum.c \
                 hv/lib/string.c hv/lib/fmt.c
BARELOAD_OBJS := $(patsubst %,$(BUILD)/bareload/%.o,$(BARELOAD_SRCS))

$(BUILD)/bareload/%.c.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(HV_CFLAGS) -I$(BARELOAD_DIR) -MMD -MP -c $< -o $@

$(BUILD)/bareload/%.asm.o: %.asm
	@mkdir -p $(dir $@)
	$(NASM) -f elf64 -g -Iboot/ -MD $(@:.o=.d) -MP $< -o $@

$(BARELOAD_ELF): $(BARELOAD_OBJS) $(BARELOAD_DIR)/bareload.ld
	@mkdir -p $(dir $@)
	$(CC) $(HV_CFLAGS) -nostdlib -static -no-pie -Wl,--no-dynamic-linker \
		-Wl,-z,max-page-size=0x1000 -Wl,-z,noexecstack -Wl,--build-id=none \
		-T $(BARELOAD_DIR)/bareload.ld -o $@ $(BARELOAD_OBJS) -lgcc
	@grub-file --is-x86-multiboot2 $@ || { echo "error: $@ is not multiboot2"; exit 1; }

bareload: $(BARELOAD_ELF)

all: $(BARELOAD_ELF)

-include $(BARELOAD_OBJS:.o=.d)

UNIT_TESTS += test_bareload
test_bareload_SRCS := test/unit/test_bareload.c $(BARELOAD_DIR)/plan.c hv/bootinfo.c hv/lib/fmt.c
$(BUILD)/unit/test_bareload: HOST_CFLAGS += -I$(BARELOAD_DIR)

.PHONY: bareload
