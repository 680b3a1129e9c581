/* IDT for all 256 vectors (stubs in isr.S). Exceptions: a fault at an
 * instruction listed in ex_table resumes at its fixup with the vector + 1 in
 * the DI register (the *_safe ops of x86.h); any other exception is counted,
 * reported as a failed check and ends the test. Vectors >= 32 are counted,
 * passed to a registered handler and acknowledged with a LAPIC EOI. */
#include "guest.h"

struct isr_frame {
#ifdef __x86_64__
	uint64_t r15, r14, r13, r12, r11, r10, r9, r8, di, si, bp, bx, dx, cx, ax;
#else
	uint32_t di, si, bp, sp_unused, bx, dx, cx, ax;   /* PUSHAD order, SDM Vol. 2 */
#endif
	uintptr_t vector, error, ip, cs, flags;
};

#ifdef __x86_64__
struct idt_gate { uint16_t off0, sel; uint8_t ist, type; uint16_t off1; uint32_t off2, rsvd; };
_Static_assert(sizeof(struct idt_gate) == 16, "64-bit IDT gate (SDM Vol. 3 6.14.1)");
#define GATE_SEL SEL_CODE64
#else
struct idt_gate { uint16_t off0, sel; uint8_t zero, type; uint16_t off1; };
_Static_assert(sizeof(struct idt_gate) == 8, "32-bit IDT gate (SDM Vol. 3 6.11)");
#define GATE_SEL SEL_CODE32
#endif
#define GATE_INTR 0x8e                 /* present, DPL 0, interrupt gate */

struct ex_entry { uintptr_t insn, fixup; };
extern const struct ex_entry __start_ex_table[], __stop_ex_table[];
extern const char isr_stubs[];

static struct idt_gate idt[256] __attribute__((aligned(16)));
static irq_handler_t handlers[256];
volatile uint32_t irq_counts[256];
volatile uint32_t exc_counts[32];

static void idt_set(unsigned v, uintptr_t fn)
{
	struct idt_gate *g = &idt[v];

	g->off0 = (uint16_t)fn;
	g->sel = GATE_SEL;
	g->type = GATE_INTR;
	g->off1 = (uint16_t)(fn >> 16);
#ifdef __x86_64__
	g->off2 = (uint32_t)(fn >> 32);
#endif
}

void idt_load(void)
{
	struct { uint16_t limit; uintptr_t base; } __attribute__((packed)) d = {
		sizeof(idt) - 1, (uintptr_t)idt };

	__asm__ volatile("lidt %0" :: "m"(d));
}

void idt_init(void)
{
	for (unsigned v = 0; v < 256; v++)
		idt_set(v, (uintptr_t)isr_stubs + v * 16);
	idt_load();
}

void irq_set_handler(unsigned vector, irq_handler_t fn)
{
	handlers[vector & 0xff] = fn;
}

static bool exc_fixup(struct isr_frame *f)
{
	for (const struct ex_entry *e = __start_ex_table; e < __stop_ex_table; e++) {
		if (e->insn == f->ip) {
			f->ip = e->fixup;
			f->di = f->vector + 1;
			if (f->vector == 1)   /* a single-step trap caught: stop stepping */
				f->flags &= ~(uintptr_t)0x100;
			return true;
		}
	}
	return false;
}

bool (*exc_hook)(unsigned vector);

volatile uintptr_t exc_last_flags;

static void exc_handle(struct isr_frame *f)
{
	__atomic_fetch_add(&exc_counts[f->vector], 1, __ATOMIC_RELAXED);
	exc_last_flags = f->flags;
	/* An NMI is an interrupt, not the fault of the instruction it arrived
	 * before: fuzz seed 69 took one at a guarded RDMSR, "caught" it as
	 * that RDMSR's fault and skipped the RDMSR. */
	if (f->vector != 2 && exc_fixup(f))
		return;
	if (exc_hook && exc_hook((unsigned)f->vector))
		return;
	test_check("unexpected_exception", false, "vector %lu error 0x%lx ip 0x%lx cpu %u",
		   (unsigned long)f->vector, (unsigned long)f->error, (unsigned long)f->ip,
		   cpu_id());
	test_finish();
}

void msr_fault_report(uint32_t msr, int fault, bool write)
{
	test_check("unexpected_msr_fault", false, "%s 0x%x -> vector %d on cpu %u",
		   write ? "wrmsr" : "rdmsr", msr, fault - 1, cpu_id());
}

void isr_dispatch(struct isr_frame *f);
void isr_dispatch(struct isr_frame *f)
{
	unsigned v = (unsigned)f->vector;

	if (v < 32) {
		exc_handle(f);
		return;
	}
	__atomic_fetch_add(&irq_counts[v], 1, __ATOMIC_RELAXED);
	if (handlers[v])
		handlers[v](v);
	/* The spurious vector needs no EOI, but a fixed interrupt at the same
	 * vector (a guest that programs an RTE, LVT or IPI with 0xff) is in
	 * service: EOI it, or ISR bit 255 blocks every vector (PPR 0xf0) for
	 * good, as Linux's spurious_interrupt() knows (SDM vol. 3 §11.9). */
	if (v != VEC_SPURIOUS || (apic_read(0x170) & (1u << 31)))
		apic_eoi();
}
