/* Host exceptions and interrupts: the IDT, the saved frame and vector handlers. */
#ifndef HV_ARCH_X86_TRAP_H
#define HV_ARCH_X86_TRAP_H
#include "compiler.h"

/* Host interrupt vectors. */
#define VEC_TIMER     0xf0   /* LAPIC timer: per-CPU one-shot timers */
#define VEC_KICK      0xf1   /* IPI: reschedule / re-evaluate this CPU */
#define VEC_STOP      0xf2   /* IPI: stop (panic, shutdown) */
#define VEC_WAKE      0xf3   /* IPI: APs halted at boot, go on */
#define VEC_SPURIOUS  0xff

/* Layout pushed by isr.asm; fields in stack order (lowest address first). */
struct trap_frame {
	uint64_t r15, r14, r13, r12, r11, r10, r9, r8;
	uint64_t rbp, rdi, rsi, rdx, rcx, rbx, rax;
	uint64_t vector, error;
	uint64_t rip, cs, rflags, rsp, ss;
};
_Static_assert(sizeof(struct trap_frame) == 22 * 8, "must match isr.asm");

typedef void (*irq_handler_fn)(struct trap_frame *f);

void idt_init(void);          /* build the shared IDT (BSP) */
void idt_load(void);          /* load it on this CPU */
void irq_register(unsigned vector, irq_handler_fn fn);
void trap_dispatch(struct trap_frame *f);
#endif
