/* C entry of every test kernel (from entry.S on the boot CPU): console,
 * boot information, IDT, 8259 masked, LAPIC on, TSC calibrated, then the
 * test's test_main() and the SUMMARY line. */
#include "guest.h"

void lib_start(uint32_t magic, uint32_t info);

void lib_start(uint32_t magic, uint32_t info)
{
	con_init();
	boot_parse(magic, info);
	idt_init();
	pic_disable();
	apic_init();
	tsc_calibrate();
	sti();
	con_printf("guest %s: %u-bit, RAM to 0x%llx, %u CPUs, TSC %llu kHz, loader '%s', "
		   "cmdline '%s'\n", test_name, (unsigned)sizeof(void *) * 8,
		   (unsigned long long)boot.ram_top, smp_nr_cpus(),
		   (unsigned long long)tsc_khz, boot.loader, boot.cmdline);
	test_check("boot", magic == MB1_BOOT_MAGIC && (boot.info_flags & 1) &&
		   boot.mem_lower_kb && boot.ram_top > 0x100000,
		   "magic 0x%x flags 0x%x mem_lower %u KiB mem_upper %u KiB mmap %u",
		   magic, boot.info_flags, boot.mem_lower_kb, boot.mem_upper_kb,
		   boot.mmap_entries);
	test_main();
	cli();
	test_finish();
}
