/* Inline x86 instructions for guest tests, 32- and 64-bit. The *_safe forms
 * catch a fault through the exception table (idt.c): they return 0, or the
 * vector + 1 of the fault they caught (e.g. 14 for #GP). */
#ifndef GUEST_X86_H
#define GUEST_X86_H
#include <stdint.h>
#include <stdbool.h>
#include <stddef.h>

#ifdef __x86_64__
#define EX_PTR ".quad"
#else
#define EX_PTR ".long"
#endif
/* Record (faulting instruction, resume address) in section ex_table. */
#define EX_ENTRY(insn, fixup) \
	".pushsection ex_table, \"a\"\n\t" EX_PTR " " #insn ", " #fixup "\n\t.popsection\n\t"

#define X86_GP 13
#define X86_UD 6
#define X86_PF 14
#define FAULT(vec) ((vec) + 1)   /* what a *_safe op returns for a caught fault */

static inline void outb(uint16_t p, uint8_t v) { __asm__ volatile("outb %0, %1" :: "a"(v), "Nd"(p)); }
static inline void outw(uint16_t p, uint16_t v) { __asm__ volatile("outw %0, %1" :: "a"(v), "Nd"(p)); }
static inline void outl(uint16_t p, uint32_t v) { __asm__ volatile("outl %0, %1" :: "a"(v), "Nd"(p)); }
static inline uint8_t inb(uint16_t p) { uint8_t v; __asm__ volatile("inb %1, %0" : "=a"(v) : "Nd"(p)); return v; }
static inline uint16_t inw(uint16_t p) { uint16_t v; __asm__ volatile("inw %1, %0" : "=a"(v) : "Nd"(p)); return v; }
static inline uint32_t inl(uint16_t p) { uint32_t v; __asm__ volatile("inl %1, %0" : "=a"(v) : "Nd"(p)); return v; }

static inline void outsb(uint16_t p, const void *buf, size_t n)
{
	__asm__ volatile("rep outsb" : "+S"(buf), "+c"(n) : "d"(p) : "memory");
}
static inline void insb(uint16_t p, void *buf, size_t n)
{
	__asm__ volatile("rep insb" : "+D"(buf), "+c"(n) : "d"(p) : "memory");
}
static inline void insw(uint16_t p, void *buf, size_t n)
{
	__asm__ volatile("rep insw" : "+D"(buf), "+c"(n) : "d"(p) : "memory");
}

struct cpuid_regs { uint32_t a, b, c, d; };
static inline struct cpuid_regs cpuid(uint32_t leaf, uint32_t sub)
{
	struct cpuid_regs r;
	__asm__ volatile("cpuid" : "=a"(r.a), "=b"(r.b), "=c"(r.c), "=d"(r.d) : "a"(leaf), "c"(sub));
	return r;
}

static inline uint64_t rdtsc(void)
{
	uint32_t lo, hi;
	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return ((uint64_t)hi << 32) | lo;
}

static inline int rdmsr_safe(uint32_t msr, uint64_t *val)
{
	uint32_t lo = 0, hi = 0;
	uintptr_t fault = 0;
	__asm__ volatile("1: rdmsr\n2:\n\t" EX_ENTRY(1b, 2b)
			 : "=a"(lo), "=d"(hi), "+D"(fault) : "c"(msr) : "memory");
	*val = ((uint64_t)hi << 32) | lo;
	return (int)fault;
}

static inline int wrmsr_safe(uint32_t msr, uint64_t val)
{
	uintptr_t fault = 0;
	__asm__ volatile("1: wrmsr\n2:\n\t" EX_ENTRY(1b, 2b)
			 : "+D"(fault) : "c"(msr), "a"((uint32_t)val), "d"((uint32_t)(val >> 32))
			 : "memory");
	return (int)fault;
}

/* Plain rdmsr/wrmsr: a fault is unexpected and reported as a failed check. */
void msr_fault_report(uint32_t msr, int fault, bool write);
static inline uint64_t rdmsr(uint32_t msr)
{
	uint64_t v;
	int f = rdmsr_safe(msr, &v);

	if (f)
		msr_fault_report(msr, f, false);
	return v;
}
static inline void wrmsr(uint32_t msr, uint64_t v)
{
	int f = wrmsr_safe(msr, v);

	if (f)
		msr_fault_report(msr, f, true);
}

/* VMCALL with RAX = nr, args RBX, RCX, RDX, RSI (hv/abi.h); #UD when no
 * hypervisor handles it. */
static inline int vmcall_safe(unsigned long nr, unsigned long a0, unsigned long a1,
			      unsigned long a2, unsigned long a3, long *ret)
{
	uintptr_t fault = 0;
	unsigned long ax = nr;
	__asm__ volatile("1: vmcall\n2:\n\t" EX_ENTRY(1b, 2b)
			 : "+a"(ax), "+D"(fault), "+b"(a0), "+c"(a1), "+d"(a2), "+S"(a3)
			 :: "memory");
	*ret = (long)ax;
	return (int)fault;
}

/* Read a 32-bit word of memory, catching a fault. */
static inline int read32_safe(uintptr_t addr, uint32_t *val)
{
	uintptr_t fault = 0;
	uint32_t v = 0;
	__asm__ volatile("1: movl (%2), %0\n2:\n\t" EX_ENTRY(1b, 2b)
			 : "+r"(v), "+D"(fault) : "r"(addr) : "memory");
	*val = v;
	return (int)fault;
}

/* Write CR0 / CR4, catching the #GP of an illegal value: 0, or 1 if it faulted. */
static inline int write_cr0_safe(unsigned long v)
{
	uintptr_t fault = 0;
	__asm__ volatile("1: mov %1, %%cr0\n2:\n\t" EX_ENTRY(1b, 2b) : "+D"(fault) : "r"(v) : "memory");
	return (int)fault;
}

static inline int write_cr4_safe(unsigned long v)
{
	uintptr_t fault = 0;
	__asm__ volatile("1: mov %1, %%cr4\n2:\n\t" EX_ENTRY(1b, 2b) : "+D"(fault) : "r"(v) : "memory");
	return (int)fault;
}

static inline void cli(void) { __asm__ volatile("cli" ::: "memory"); }
static inline void sti(void) { __asm__ volatile("sti" ::: "memory"); }
static inline void hlt(void) { __asm__ volatile("hlt" ::: "memory"); }
/* STI's one-instruction shadow makes "sti; hlt" race-free (SDM Vol. 2 STI). */
static inline void sti_hlt(void) { __asm__ volatile("sti; hlt" ::: "memory"); }
static inline void cpu_pause(void) { __asm__ volatile("pause" ::: "memory"); }

static inline uint32_t mmio_read32(uintptr_t a) { return *(volatile uint32_t *)a; }
static inline void mmio_write32(uintptr_t a, uint32_t v) { *(volatile uint32_t *)a = v; }

static inline unsigned long read_cr0(void) { unsigned long v; __asm__ volatile("mov %%cr0, %0" : "=r"(v)); return v; }
static inline unsigned long read_cr4(void) { unsigned long v; __asm__ volatile("mov %%cr4, %0" : "=r"(v)); return v; }
static inline unsigned long read_flags(void) { unsigned long v; __asm__ volatile("pushf; pop %0" : "=r"(v)); return v; }
#endif
