/* Deliberate triple fault: an empty IDT makes the #UD undeliverable, the
 * resulting #GP and #DF too, so the CPU shuts down (SDM Vol. 3 6.15 #DF).
 * The hypervisor must end this VM only; run it beside a second VM that
 * must keep running. Expected output ends with the "triple:" line. */
#include "guest.h"

const char test_name[] = "triple";

void test_main(void)
{
	struct { uint16_t limit; uintptr_t base; } __attribute__((packed)) empty = { 0, 0 };

	con_printf("triple: loading an empty IDT and raising #UD; this VM must end now\n");
	cli();
	__asm__ volatile("lidt %0\n\tud2" :: "m"(empty));
	test_check("shutdown", false, "still running after a triple fault");
}
