/* Privileged-instruction wrappers and control-register bits (SDM vol. 3 §2.5). */
#ifndef HV_ARCH_X86_CPU_H
#define HV_ARCH_X86_CPU_H
#include "compiler.h"
#include "spinlock.h"   /* cpu_relax() */

#define CR0_PE BIT(0)
#define CR0_MP BIT(1)
#define CR0_EM BIT(2)
#define CR0_TS BIT(3)
#define CR0_ET BIT(4)
#define CR0_NE BIT(5)
#define CR0_WP BIT(16)
#define CR0_NW BIT(29)
#define CR0_CD BIT(30)
#define CR0_PG BIT(31)

#define CR4_VME BIT(0)
#define CR4_PSE BIT(4)
#define CR4_PAE BIT(5)
#define CR4_MCE BIT(6)
#define CR4_PGE BIT(7)
#define CR4_OSFXSR BIT(9)
#define CR4_OSXMMEXCPT BIT(10)
#define CR4_VMXE BIT(13)
#define CR4_FSGSBASE BIT(16)
#define CR4_PCIDE BIT(17)
#define CR4_OSXSAVE BIT(18)
#define CR4_SMEP BIT(20)

#define RFLAGS_IF BIT(9)

/* struct cpuid_regs is shared with the guest CPUID policy. */
#include "vmx/cpuid_filter.h"

static inline void cpuid_count(uint32_t leaf, uint32_t sub, struct cpuid_regs *r)
{
	__asm__ volatile("cpuid" : "=a"(r->eax), "=b"(r->ebx), "=c"(r->ecx), "=d"(r->edx)
			 : "a"(leaf), "c"(sub));
}

static inline uint64_t rdmsr(uint32_t msr)
{
	uint32_t lo, hi;
	__asm__ volatile("rdmsr" : "=a"(lo), "=d"(hi) : "c"(msr));
	return ((uint64_t)hi << 32) | lo;
}

static inline void wrmsr(uint32_t msr, uint64_t v)
{
	__asm__ volatile("wrmsr" : : "c"(msr), "a"((uint32_t)v), "d"((uint32_t)(v >> 32))
			 : "memory");
}

static inline uint64_t rdtsc(void)
{
	uint32_t lo, hi;
	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return ((uint64_t)hi << 32) | lo;
}

#define DEFINE_CR(n) \
	static inline uint64_t read_cr##n(void) \
	{ uint64_t v; __asm__ volatile("mov %%cr" #n ", %0" : "=r"(v)); return v; } \
	static inline void write_cr##n(uint64_t v) \
	{ __asm__ volatile("mov %0, %%cr" #n : : "r"(v) : "memory"); }
DEFINE_CR(0)
DEFINE_CR(2)
DEFINE_CR(3)
DEFINE_CR(4)
#undef DEFINE_CR

static inline uint64_t read_rflags(void)
{
	uint64_t f;
	__asm__ volatile("pushfq; popq %0" : "=r"(f));
	return f;
}

static inline void irq_enable(void)  { __asm__ volatile("sti" ::: "memory"); }
static inline void irq_disable(void) { __asm__ volatile("cli" ::: "memory"); }
static inline bool irq_enabled(void) { return read_rflags() & RFLAGS_IF; }
static inline void cpu_halt(void)    { __asm__ volatile("hlt" ::: "memory"); }
/* Enable interrupts and halt atomically (STI's one-instruction shadow). */
static inline void cpu_safe_halt(void) { __asm__ volatile("sti; hlt" ::: "memory"); }

static inline void outb(uint16_t p, uint8_t v)  { __asm__ volatile("outb %0, %1" : : "a"(v), "Nd"(p)); }
static inline void outw(uint16_t p, uint16_t v) { __asm__ volatile("outw %0, %1" : : "a"(v), "Nd"(p)); }
static inline void outl(uint16_t p, uint32_t v) { __asm__ volatile("outl %0, %1" : : "a"(v), "Nd"(p)); }
static inline uint8_t inb(uint16_t p)  { uint8_t v;  __asm__ volatile("inb %1, %0" : "=a"(v) : "Nd"(p)); return v; }
static inline uint16_t inw(uint16_t p) { uint16_t v; __asm__ volatile("inw %1, %0" : "=a"(v) : "Nd"(p)); return v; }
static inline uint32_t inl(uint16_t p) { uint32_t v; __asm__ volatile("inl %1, %0" : "=a"(v) : "Nd"(p)); return v; }

static inline uint32_t mmio_read32(uint64_t a) { return *(volatile uint32_t *)(uintptr_t)a; }
static inline void mmio_write32(uint64_t a, uint32_t v) { *(volatile uint32_t *)(uintptr_t)a = v; }

static inline bool cpu_has(uint32_t leaf, int reg, int bit)
{
	struct cpuid_regs r;
	uint32_t *v = &r.eax;

	cpuid_count(leaf, 0, &r);
	return (v[reg] >> bit) & 1;
}
enum { CPUID_EAX, CPUID_EBX, CPUID_ECX, CPUID_EDX };
#endif
