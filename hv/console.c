/* Console output and the log/panic front end for the image. */
#include "console.h"
#include "log.h"
#include "spinlock.h"
#include "lib/fmt.h"
#include "arch/x86/cpu.h"
#include "arch/x86/serial.h"
#include "arch/x86/percpu.h"
#include "arch/x86/apic.h"
#include "lib/string.h"

int log_level = LOG_INFO;
static bool use_e9;
static spinlock_t console_lk = SPINLOCK_INIT;
static volatile int panicking = -1;  /* CPU that panicked, or -1 */

void console_init(void)
{
	serial_init(COM1_PORT);
}

void console_set_e9(bool on)
{
	use_e9 = on;
}

void console_write_unlocked(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '\n')
			serial_putc(COM1_PORT, '\r');
		serial_putc(COM1_PORT, s[i]);
		if (use_e9)
			outb(0xe9, (uint8_t)s[i]);
	}
}

void console_lock(void)
{
	/* Another CPU panicked: stay out of its way. */
	if (panicking >= 0 && panicking != (int)this_cpu_id())
		for (;;)
			cpu_halt();
	spin_lock(&console_lk);
}

void console_unlock(void)
{
	spin_unlock(&console_lk);
}

void console_write(const char *s, size_t n)
{
	uint64_t f = read_rflags();

	irq_disable();
	console_lock();
	console_write_unlocked(s, n);
	console_unlock();
	if (f & RFLAGS_IF)
		irq_enable();
}

void log_vprintf(int level, const char *fmt, va_list ap)
{
	char buf[512];
	int n;

	if (level > log_level)
		return;
	n = fmt_vsnprintf(buf, sizeof(buf), fmt, ap);
	if (n >= (int)sizeof(buf))
		n = sizeof(buf) - 1;
	console_write(buf, (size_t)n);
}

void log_printf(int level, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_vprintf(level, fmt, ap);
	va_end(ap);
}

/* The panic path (hv/exit.c) claims the console: true on the one CPU that
 * panics first (and again on that CPU), false on any other. */
bool console_panic_claim(void)
{
	int me = (int)this_cpu_id();

	return __atomic_compare_exchange_n(&panicking, &(int){ -1 }, me, false,
					   __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST) || panicking == me;
}
