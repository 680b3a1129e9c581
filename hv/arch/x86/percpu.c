/* Per-CPU areas: GDT with a 64-bit TSS (VMX needs a non-null TR for the host
 * state, SDM vol. 3 §27.2.3), IST stack, and the GS base pointing at the area. */
#include "arch/x86/percpu.h"
#include "arch/x86/cpu.h"
#include "arch/x86/msr.h"
#include "lib/string.h"

struct percpu percpu_area[MAX_CPUS] __aligned(4096);
unsigned nr_cpus_online;

#define SEL_CODE 0x08
#define SEL_DATA 0x10
#define SEL_TSS  0x18

unsigned this_cpu_id(void)
{
	/* Early in boot (or in a panic before GS is set) there is no area yet. */
	if (!rdmsr(MSR_IA32_GS_BASE))
		return 0;
	return this_cpu()->id;
}

static void gdt_build(struct percpu *p)
{
	uint64_t t = (uint64_t)&p->tss;
	uint64_t lim = sizeof(p->tss) - 1;

	p->gdt[0] = 0;
	p->gdt[1] = 0x00af9a000000ffffull;   /* code64: P, DPL0, L */
	p->gdt[2] = 0x00cf92000000ffffull;   /* data */
	/* 16-byte available 64-bit TSS descriptor (SDM §8.2.3, type 9). */
	p->gdt[3] = (lim & 0xffff) | ((t & 0xffffff) << 16) | (0x89ull << 40) |
		    ((lim >> 16) & 0xf) << 48 | ((t >> 24) & 0xff) << 56;
	p->gdt[4] = t >> 32;
	p->tss.ist[0] = (uint64_t)p->ist_stack + sizeof(p->ist_stack);
	p->tss.iomap_base = sizeof(p->tss);
}

void percpu_init(unsigned id, uint32_t apic_id)
{
	struct percpu *p = &percpu_area[id];
	struct { uint16_t limit; uint64_t base; } __packed gdtr;

	p->self = p;
	p->id = id;
	p->apic_id = apic_id;
	gdt_build(p);
	gdtr.limit = sizeof(p->gdt) - 1;
	gdtr.base = (uint64_t)p->gdt;
	__asm__ volatile(
		"lgdt %0\n\t"
		"pushq %1\n\t"
		"leaq 1f(%%rip), %%rax\n\t"
		"pushq %%rax\n\t"
		"lretq\n"
		"1:\n\t"
		"movw %w2, %%ax\n\t"
		"movw %%ax, %%ds\n\t"
		"movw %%ax, %%es\n\t"
		"movw %%ax, %%ss\n\t"
		"xorl %%eax, %%eax\n\t"
		"movw %%ax, %%fs\n\t"
		"movw %%ax, %%gs\n\t"
		"ltr %w3"
		: : "m"(gdtr), "i"(SEL_CODE), "r"(SEL_DATA), "r"(SEL_TSS) : "rax", "memory");
	wrmsr(MSR_IA32_GS_BASE, (uint64_t)p);
}
