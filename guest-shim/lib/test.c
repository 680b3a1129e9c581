/* Test reporting: "TEST <image>_<check> PASS|FAIL [detail]" lines, the final
 * "SUMMARY <image> passed=N failed=M" line, and exit through isa-debug-exit. */
#include "guest.h"
#include "abi.h"

#define DEBUG_EXIT_PORT 0xf4
#define BOCHS_SHUTDOWN  0x8900         /* bare Bochs: "Shutdown" ends the emulator */
#define COM1_LSR        0x3fd
#define LSR_TEMT        0x40

static volatile uint32_t passed, failed;

void test_count(bool ok)
{
	__atomic_fetch_add(ok ? &passed : &failed, 1, __ATOMIC_RELAXED);
}

bool test_check(const char *check, bool ok, const char *fmt, ...)
{
	char detail[160] = "";
	va_list ap;

	if (fmt) {
		va_start(ap, fmt);
		fmt_vsnprintf(detail, sizeof(detail), fmt, ap);
		va_end(ap);
	}
	con_printf("TEST %s_%s %s%s%s\n", test_name, check, ok ? "PASS" : "FAIL",
		   detail[0] ? " " : "", detail);
	test_count(ok);
	return ok;
}

/* Let the UART drain first (Bochs drops bytes still in the shift register). */
__noreturn void guest_exit(unsigned code)
{
	for (int i = 0; i < 100000 && !(inb(COM1_LSR) & LSR_TEMT); i++)
		cpu_pause();
	outb(DEBUG_EXIT_PORT, (uint8_t)code);
	con_printf("EXIT: isa-debug-exit did not stop the VM; halting\n");
	for (const char *s = "Shutdown"; *s; s++)
		outb(BOCHS_SHUTDOWN, (uint8_t)*s);
	cpu_halt_forever();
}

/* Report to our hypervisor too (HC_TEST_RESULT, rbx = failures), only when
 * its signature is present so bare runs stay quiet. */
__noreturn void test_finish(void)
{
	long ret;

	con_printf("SUMMARY %s passed=%u failed=%u\n", test_name, passed, failed);
	if (hv_is_ours())
		hv_call(HC_TEST_RESULT, failed, 0, &ret);
	guest_exit(failed ? 1 : 0);
}
