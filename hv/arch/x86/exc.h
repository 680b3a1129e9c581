/* x86 exception vectors (SDM vol. 3 §6.3.1 Table 6-1), for the events the
 * hypervisor injects into guests or intercepts, and its own traps. */
#ifndef HV_ARCH_X86_EXC_H
#define HV_ARCH_X86_EXC_H
#include "compiler.h"

#define X86_EXC_DE   0    /* divide error */
#define X86_EXC_DB   1    /* debug */
#define X86_EXC_NMI  2    /* non-maskable interrupt */
#define X86_EXC_BP   3    /* breakpoint (INT3) */
#define X86_EXC_OF   4    /* overflow (INTO) */
#define X86_EXC_BR   5    /* BOUND range exceeded */
#define X86_EXC_UD   6    /* invalid opcode */
#define X86_EXC_NM   7    /* device not available */
#define X86_EXC_DF   8    /* double fault */
#define X86_EXC_TS   10   /* invalid TSS */
#define X86_EXC_NP   11   /* segment not present */
#define X86_EXC_SS   12   /* stack-segment fault */
#define X86_EXC_GP   13   /* general protection */
#define X86_EXC_PF   14   /* page fault */
#define X86_EXC_MF   16   /* x87 floating-point error */
#define X86_EXC_AC   17   /* alignment check */
#define X86_EXC_MC   18   /* machine check */
#define X86_EXC_XM   19   /* SIMD floating-point */
#define X86_EXC_VE   20   /* virtualization exception */
#define X86_EXC_CP   21   /* control protection */

/* #PF error code bits (SDM vol. 3 §5.7 / §4.7). */
#define X86_PF_PRESENT BIT(0)
#define X86_PF_WRITE   BIT(1)
#define X86_PF_USER    BIT(2)
#define X86_PF_FETCH   BIT(4)   /* instruction fetch (NX or SMEP) */
#endif
