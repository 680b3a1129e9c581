/* An event delivered through an IDT placed in an MMIO hole: a load from an
 * unmapped page raises #PF, whose gate the CPU reads from 0xD0000000 (a hole),
 * so the EPT violation comes during event delivery (IDT-vectoring information
 * valid, SDM vol. 3 28.2.4), not from the load. A hypervisor that decodes the
 * instruction at RIP instead emulates the load (all ones), advances RIP and
 * loses the #PF; this one stops the VM (hardware would read a garbage gate
 * and end in a triple fault). Expected output ends at the "idtmmio:" line.
 * 64-bit only (needs a page that is not present). */
#include "guest.h"

const char test_name[] = "idtmmio";

#define HOLE_IDT   0xd0000000ull
#define UNMAPPED   (6ull << 30)        /* PDPT slot 6: not present */

struct __attribute__((packed)) dtr { uint16_t limit; uint64_t base; };

void test_main(void)
{
	struct dtr hole = { 0xfff, HOLE_IDT }, saved;
	uint32_t val = 0;
	unsigned long flags;

	con_printf("idtmmio: #PF through an IDT at %#llx; the hypervisor must stop this VM now\n",
		   HOLE_IDT);
	__asm__ volatile("pushf; pop %0; cli; sidt %1" : "=r"(flags), "=m"(saved));
	/* Two identical loads: Bochs reports the RIP after the faulting one
	 * for this exit, hardware the faulting one; either is a MOV load. */
	__asm__ volatile("lidt %1\n\tmovl (%2), %0\n\tmovl (%2), %0\n\tlidt %3"
			 : "=&a"(val) : "m"(hole), "r"(UNMAPPED), "m"(saved) : "memory");
	__asm__ volatile("push %0; popf" :: "r"(flags) : "memory", "cc");
	test_check("stopped", false, "still running: the #PF was lost, the load gave %#x", val);
}
