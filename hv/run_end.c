/* Ending a run (hv_exit; a VM exit is hv/vmx/exit.c's): the HVRUN-EXIT line
 * the runner reads, then the exit= mechanism. */
#include "hv.h"
#include "cmdline.h"
#include "console.h"
#include "log.h"
#include "lib/fmt.h"
#include "lib/string.h"
#include "arch/x86/cpu.h"
#include "arch/x86/apic.h"
#include "arch/x86/serial.h"
#include "arch/x86/percpu.h"
#include "vmx/caps.h"

static const char *const exit_names[] = { "halt", "qemu", "bochs", "acpi", NULL };
static int opt_exit = HV_EXIT_HALT;
CMDLINE_ENUM(exit, opt_exit, exit_names,
	     "how a finished run ends: halt | qemu (isa-debug-exit 0xf4) | bochs (port 0x8900)");

void hv_exit(int status, const char *reason)
{
	char line[96];
	int n;

	irq_disable();
	apic_stop_others();   /* they leave VMX operation in their stop handler */
	vmx_cpu_off();
	n = fmt_snprintf(line, sizeof(line), "HVRUN-EXIT status=%d reason=%s\n", status, reason);
	console_write_unlocked(line, (size_t)n);
	serial_drain(COM1_PORT);   /* the emulator must not end before the last byte */
	switch (opt_exit) {
	case HV_EXIT_QEMU:
		/* QEMU exits with (value << 1) | 1. */
		outb(0xf4, (uint8_t)status);
		break;
	case HV_EXIT_BOCHS:
		/* Bochs's power-off port: writing "Shutdown" ends the simulation. */
		for (const char *s = "Shutdown"; *s; s++)
			outb(0x8900, (uint8_t)*s);
		break;
	default:
		break;
	}
	for (;;)
		cpu_halt();
}

/* Stop every other CPU, print why and where, end the run (panic is only for
 * corrupted host state; guests can never reach it). Here rather than in
 * console.c, so that the console does not depend on ending the run. */
void panic_at(const char *file, int line, const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	int me = (int)this_cpu_id();

	irq_disable();
	if (!console_panic_claim())
		for (;;)
			cpu_halt();
	apic_stop_others();
	va_start(ap, fmt);
	fmt_vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	console_write_unlocked("\nPANIC on cpu", 13);
	char hdr[128];
	int n = fmt_snprintf(hdr, sizeof(hdr), "%d at %s:%d: ", me, file, line);
	console_write_unlocked(hdr, (size_t)n);
	console_write_unlocked(buf, strlen(buf));
	console_write_unlocked("\n", 1);
	hv_exit(2, "panic");
}
