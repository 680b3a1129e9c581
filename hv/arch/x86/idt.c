/* The host IDT (SDM vol. 3 §6.10, §6.14.1): one interrupt gate per vector,
 * pointing at isr.asm's stub, which calls trap_dispatch (trap.c). Kept apart
 * from the dispatcher so that the stubs and the dispatcher do not form a
 * cycle (tools/check_layers.py): idt.c -> isr.asm -> trap.c. */
#include "arch/x86/trap.h"

struct idt_entry {
	uint16_t off0, sel;
	uint8_t ist, type;
	uint16_t off1;
	uint32_t off2, rsvd;
} __packed;
_Static_assert(sizeof(struct idt_entry) == 16, "IDT gate layout (SDM §6.14.1)");

extern const uint64_t isr_table[256];
static struct idt_entry idt[256] __aligned(16);

void idt_init(void)
{
	for (int v = 0; v < 256; v++) {
		uint64_t a = isr_table[v];
		idt[v] = (struct idt_entry){
			.off0 = (uint16_t)a, .sel = 0x08, .type = 0x8e,
			.off1 = (uint16_t)(a >> 16), .off2 = (uint32_t)(a >> 32),
			/* NMI, #DF and #MC run on a known-good stack (IST1). */
			.ist = (v == 2 || v == 8 || v == 18) ? 1 : 0,
		};
	}
}

void idt_load(void)
{
	struct { uint16_t limit; uint64_t base; } __packed d = { sizeof(idt) - 1, (uint64_t)idt };
	__asm__ volatile("lidt %0" : : "m"(d));
}
