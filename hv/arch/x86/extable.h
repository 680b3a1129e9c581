/* Exception fixups: an instruction that may fault in the hypervisor (RDMSR or
 * WRMSR of an MSR the CPU might not implement) is listed in section
 * hv_extable with the address to resume at; trap_dispatch() resumes there
 * instead of panicking (the idea of Linux's exception tables). */
#ifndef HV_ARCH_X86_EXTABLE_H
#define HV_ARCH_X86_EXTABLE_H
#include "compiler.h"
#include "errno.h"

struct extable_entry {
	uint64_t insn;     /* address of the instruction that may fault */
	uint64_t fixup;    /* where execution continues if it does */
};
_Static_assert(sizeof(struct extable_entry) == 16, "must match the .quad pairs below");

struct trap_frame;
/* trap_dispatch(): true (and f->rip moved to the fixup) if the faulting
 * instruction has an entry. Counts the fixups taken. */
bool extable_fixup(struct trap_frame *f);
uint64_t extable_fixups_taken(void);

/* RDMSR that returns -EIO instead of taking the hypervisor down on #GP
 * (SDM vol. 2 RDMSR: #GP(0) for a reserved or unimplemented MSR). err starts
 * at -EIO; only the instruction after a successful RDMSR clears it. */
static inline int rdmsr_safe(uint32_t msr, uint64_t *val)
{
	uint32_t lo = 0, hi = 0;
	int err = -EIO;

	__asm__ volatile("1: rdmsr\n\t"
			 "xorl %[err], %[err]\n"
			 "2:\n\t"
			 ".pushsection hv_extable, \"a\"\n\t"
			 ".balign 8\n\t"
			 ".quad 1b, 2b\n\t"
			 ".popsection"
			 : "+a"(lo), "+d"(hi), [err] "+r"(err)
			 : "c"(msr)
			 : "memory");
	*val = ((uint64_t)hi << 32) | lo;
	return err;
}

static inline int wrmsr_safe(uint32_t msr, uint64_t val)
{
	int err = -EIO;

	__asm__ volatile("1: wrmsr\n\t"
			 "xorl %[err], %[err]\n"
			 "2:\n\t"
			 ".pushsection hv_extable, \"a\"\n\t"
			 ".balign 8\n\t"
			 ".quad 1b, 2b\n\t"
			 ".popsection"
			 : [err] "+r"(err)
			 : "c"(msr), "a"((uint32_t)val), "d"((uint32_t)(val >> 32))
			 : "memory");
	return err;
}
/* Does a hypervisor write to *p fault (#PF on a read-only page, SDM vol. 3
 * §4.6.1 with CR0.WP = 1)? The probe writes back the byte it read, so a
 * writable *p keeps its value (the caller makes sure nobody else writes
 * it meanwhile). */
static inline bool write_faults(volatile uint8_t *p)
{
	bool faulted = true;
	uint8_t b = *p;

	__asm__ volatile("1: movb %[b], %[m]\n\t"
			 "movb $0, %[f]\n"
			 "2:\n\t"
			 ".pushsection hv_extable, \"a\"\n\t"
			 ".balign 8\n\t"
			 ".quad 1b, 2b\n\t"
			 ".popsection"
			 : [f] "+q"(faulted), [m] "=m"(*p)
			 : [b] "q"(b)
			 : "memory");
	return faulted;
}
#endif
