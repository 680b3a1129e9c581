/* Per-CPU data, reached through the GS base (one page-aligned block per CPU). */
#ifndef HV_ARCH_X86_PERCPU_H
#define HV_ARCH_X86_PERCPU_H
#include "compiler.h"

#define MAX_CPUS 256
#define CPU_STACK_SIZE (32 * 1024)

struct tss64 {
	uint32_t rsvd0;
	uint64_t rsp[3];
	uint64_t rsvd1;
	uint64_t ist[7];
	uint64_t rsvd2;
	uint16_t rsvd3;
	uint16_t iomap_base;
} __packed;
_Static_assert(sizeof(struct tss64) == 104, "TSS layout (SDM §8.7)");

struct cpu;

struct percpu {
	struct percpu *self;      /* gs:0, so this_cpu() is one load */
	struct cpu *cpu;          /* gs:8, the core's per-CPU object (hv/cpu.h cpu_this()) */
	unsigned id;              /* dense index 0..n-1 */
	uint32_t apic_id;
	volatile bool online;
	uint64_t stack_top;
	uint64_t gdt[8] __aligned(16);
	struct tss64 tss __aligned(16);
	uint8_t ist_stack[4096] __aligned(16);   /* NMI/#DF/#MC stack */
	void *vmxon_region;       /* hv/vmx: non-NULL while in VMX operation */
};

extern struct percpu percpu_area[MAX_CPUS];
extern unsigned nr_cpus_online;

static inline struct percpu *this_cpu(void)
{
	struct percpu *p;
	__asm__ volatile("movq %%gs:0, %0" : "=r"(p));
	return p;
}

unsigned this_cpu_id(void);
void percpu_init(unsigned id, uint32_t apic_id);
#endif
