/* bareload_main: build the VM's initial RAM image in bare Bochs's own RAM
 * with the hypervisor's code (vm.c: vm_memory/vm_firmware/vm_load), then
 * enter Linux as vmx_enter() would enter vCPU 0, printing the TSC first. */
#include "bareload.h"
#include "arch/x86/cpu.h"
#include "arch/x86/msr.h"
#include "dev/acpi_tables.h"
#include "load/loader.h"
#include "errno.h"
#include "log.h"
#include "lib/string.h"

void bareload_main(uint32_t magic, uint32_t mbi);

extern char __image_end[];

static struct boot_info bl_bi;
static char bl_cmdline[BL_CMDLINE_MAX];
static struct bl_jump bl_j;

/* Physical memory through the alias at 4 GiB (entry.asm): never NULL. */
static uint8_t *bl_phys(uint64_t pa)
{
	return (uint8_t *)(uintptr_t)(BL_ALIAS_BASE + pa);
}

static __noreturn void bl_fail(const char *what, int err)
{
	panic("%s failed (%d)", what, err);
}

static void bl_mods_move(const struct bl_mods *m)
{
	for (unsigned k = 0; k < BL_MOD_NR; k++)
		if (m->start[k] != m->src[k])
			memmove(bl_phys(m->start[k]), bl_phys(m->src[k]), m->len[k]);
}

/* vm.c clears the VM's first MiB (its firmware area included); here the
 * legacy VGA window and option ROMs at 0xA0000-0xDFFFF stay. */
static void bl_low_clear(void)
{
	memset(bl_phys(0), 0, 0xa0000);
	memset(bl_phys(GUEST_BIOS_START), 0, GUEST_BIOS_END - GUEST_BIOS_START);
}

static void bl_tables_build(unsigned vcpus)
{
	struct acpi_tables_cfg cfg;
	struct acpi_tables_info info;
	int rc;

	acpi_tables_cfg_default(&cfg, vcpus);
	rc = acpi_tables_build(bl_phys(GUEST_BIOS_START), ACPI_TABLES_AREA_SIZE, &cfg, &info);
	if (rc)
		bl_fail("acpi_tables_build", rc);
	if (memcmp(bl_phys(info.rsdp), "RSD PTR ", 8))
		panic("the RSDP did not stick at 0x%llx", (unsigned long long)info.rsdp);
	pr_info("bareload: guest ACPI/MP tables for %u CPUs, RSDP 0x%llx, MADT 0x%llx\n",
		vcpus, (unsigned long long)info.rsdp, (unsigned long long)info.madt);
}

static void bl_jump_fill(const struct guest_entry *e)
{
	bl_j.cr3 = e->cr3;
	bl_j.rip = e->rip;
	bl_j.rsi = e->rsi;
	bl_j.rsp = e->rsp;
	bl_j.cr0 = e->cr0;
	bl_j.cr4 = e->cr4;
	bl_j.gdt_limit = e->gdt_limit;
	bl_j.gdt_base = e->gdt_base;
	bl_j.cs = e->cs;
	bl_j.ds = e->ds;
	/* Only LME/LMA of the boot protocol's EFER: drop what GRUB may have set. */
	if (rdmsr(MSR_IA32_EFER) & ~e->efer)
		wrmsr(MSR_IA32_EFER, rdmsr(MSR_IA32_EFER) & e->efer);
}

static void bl_load(const struct bl_cfg *c, const struct bl_mods *m)
{
	struct guest_ram ram = { bl_phys(0), c->mem, c->vcpus };
	struct guest_image img = {
		.data = bl_phys(m->start[BL_MOD_KERNEL]), .size = m->len[BL_MOD_KERNEL],
		.cmdline = bl_cmdline,
		.initrd = bl_phys(m->start[BL_MOD_INITRD]), .initrd_size = m->len[BL_MOD_INITRD],
	};
	struct guest_entry e;
	int rc;

	bl_platform_prepare();
	bl_low_clear();
	bl_tables_build(c->vcpus);
	rc = load_bzimage(&ram, &img, &e);
	if (rc)
		bl_fail("load_bzimage", rc);
	bl_jump_fill(&e);
}

void bareload_main(uint32_t magic, uint32_t mbi)
{
	struct bl_cfg cfg;
	struct bl_mods mods;
	int rc;

	bl_serial_init();
	rc = bootinfo_parse(magic, (const void *)(uintptr_t)mbi, &bl_bi);
	if (rc)
		bl_fail("bootinfo_parse", rc);
	if ((rc = bl_args_parse(bl_bi.cmdline, &cfg)) || (rc = bl_mods_find(&bl_bi, &mods)) ||
	    (rc = bl_mods_place(&bl_bi, &mods, cfg.mem, (uint64_t)(uintptr_t)__image_end)))
		bl_fail("module set-up", rc);
	bl_mods_move(&mods);
	rc = bl_cmdline_copy((const char *)bl_phys(mods.start[BL_MOD_CMDLINE]),
			     mods.len[BL_MOD_CMDLINE], bl_cmdline, sizeof(bl_cmdline));
	if (rc)
		bl_fail("command line", rc);
	pr_info("bareload: %u CPUs, %llu MiB, kernel %llu B, initrd %llu B\n", cfg.vcpus,
		(unsigned long long)(cfg.mem >> 20), (unsigned long long)mods.len[BL_MOD_KERNEL],
		(unsigned long long)mods.len[BL_MOD_INITRD]);
	bl_load(&cfg, &mods);
	/* The stamp the hypervisor prints at vCPU 0's first VM entry
	 * (vm/vcpu.c): both sides then count guest TSC cycles to /init. */
	pr_info("bareload: kernel entry tsc=%llu\n", (unsigned long long)rdtsc());
	bareload_jump(&bl_j);
}
