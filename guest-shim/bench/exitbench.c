/* Exit-cost benchmark (make bench): round trips of the common exits measured
 * with RDTSC inside a 2-vCPU guest; also a check (run in make test) that the
 * EOI of a level-triggered IOAPIC interrupt reaches the IOAPIC (with APICv:
 * the EOI-exit bitmap). Under Bochs with "clock: sync=none" the
 * TSC advances one tick per instruction, so the figures are deterministic
 * instruction counts ("cycles"). Prints "BENCH <name> <median> <min> <n>"
 * with the RDTSC pair overhead already subtracted; tools/bench/exitbench.py
 * turns the lines of an apicv=on and an apicv=off run into a table. */
#include "guest.h"

const char test_name[] = "exitbench";

#define N          64
#define VEC_PING   0x50
#define VEC_PONG   0x51
#define VEC_SELF   0x52
#define VEC_TIMER  0x53
#define VEC_LEVEL  0x54
#define VEC_HELD   0x55
#define PIT_HZ     1193182u
#define MSR_TSCDL  0x6e0

static uint64_t rdtsc_cost;
static volatile uint32_t pongs, selfs, timers, spin_stop;
static volatile uint64_t eoi_cost, timer_tsc, level_eoi_cost, ping_tsc;
static volatile uint32_t levels;

/* Pseudo-random phases for the timer samples (fixed seed: runs repeat
 * exactly). A sample loop with a fixed period (a PIT at 100 Hz, a deadline
 * 20 ms after the last wake) puts every sample at one phase of the host's
 * periodic work, which the boot's instruction count sets, so the figure moved
 * with code that is not on the exit path. The IPI samples need none: each
 * starts from the same state of both vCPUs (a random spin before the ICR
 * write, 0-63 loops, catches the peer on its way into HLT instead: 2400 ->
 * 3040 for "ICR write -> halted peer"). */
static uint32_t rng = 0x2545f491;

static unsigned rnd(unsigned n)
{
	rng ^= rng << 13;    /* xorshift32 (Marsaglia 2003) */
	rng ^= rng >> 17;
	rng ^= rng << 5;
	return rng % n;
}

static void sort(uint64_t *a, unsigned n)
{
	for (unsigned i = 1; i < n; i++)
		for (unsigned j = i; j && a[j - 1] > a[j]; j--) {
			uint64_t t = a[j];
			a[j] = a[j - 1];
			a[j - 1] = t;
		}
}

/* Sample k of n (sorted) and the minimum, net of the RDTSC pair. */
static void report_at(const char *name, uint64_t *s, unsigned n, unsigned k)
{
	sort(s, n);
	for (unsigned i = 0; i < n; i++)
		s[i] = s[i] > rdtsc_cost ? s[i] - rdtsc_cost : 0;
	con_printf("BENCH %s %llu %llu %u\n", name, (unsigned long long)s[k],
		   (unsigned long long)s[0], n);
}

/* The median. */
static void report(const char *name, uint64_t *s, unsigned n)
{
	report_at(name, s, n, n / 2);
}

static void bench_rdtsc(void)
{
	uint64_t s[N];

	for (unsigned i = 0; i < N; i++) {
		uint64_t t0 = rdtsc();
		s[i] = rdtsc() - t0;
	}
	sort(s, N);
	rdtsc_cost = s[N / 2];
	con_printf("BENCH rdtsc_pair %llu %llu %u\n", (unsigned long long)s[N / 2],
		   (unsigned long long)s[0], N);
}

static void bench_cpuid(void)
{
	uint64_t s[N];

	for (unsigned i = 0; i < N; i++) {
		uint64_t t0 = rdtsc();
		cpuid(0, 0);
		s[i] = rdtsc() - t0;
	}
	report("cpuid", s, N);
}

/* re-arming the TSC-deadline timer 100 ms ahead (Linux does so from every
 * tick): WRMSR round trip, the timer never firing (issue 17's fast re-entry,
 * hv/vm/vcpu_exit.c vcpu_tscdl_lower; fast_tscdl=off for the run loop). */
static void bench_wrmsr_tscdl(void)
{
	uint64_t s[N];

	if (!(cpuid(1, 0).c & (1u << 24))) {
		con_printf("BENCH wrmsr_tscdl - - 0\n");
		return;
	}
	apic_write(APIC_LVT_TIMER, APIC_TIMER_TSCDL | APIC_LVT_MASKED | VEC_TIMER);
	for (unsigned i = 0; i < N; i++) {
		uint64_t dl = rdtsc() + 100 * tsc_khz, t0 = rdtsc();

		wrmsr(MSR_TSCDL, dl);
		s[i] = rdtsc() - t0;
	}
	wrmsr(MSR_TSCDL, 0);
	apic_timer_stop();
	report("wrmsr_tscdl", s, N);
}

static void bench_uart(void)
{
	uint64_t s[N];

	for (unsigned i = 0; i < N; i++) {
		uint64_t t0 = rdtsc();
		outb(0x3ff, (uint8_t)i);          /* COM1 scratch register: no output */
		s[i] = rdtsc() - t0;
	}
	report("uart_out", s, N);
}

static void on_timer(unsigned v)
{
	timer_tsc = rdtsc();
	timers++;
}

/* HLT woken by the LAPIC timer in TSC-deadline mode: TSC from the deadline
 * to the handler's first instruction (the exact expiry is known). */
static void bench_hlt_timer(void)
{
	uint64_t s[N / 4];

	if (!(cpuid(1, 0).c & (1u << 24))) {
		con_printf("BENCH hlt_timer_wake - - 0\n");
		return;
	}
	apic_write(APIC_LVT_TIMER, APIC_TIMER_TSCDL | VEC_TIMER);
	for (unsigned i = 0; i < N / 4; i++) {
		uint32_t want = timers + 1;
		uint64_t dl = rdtsc() + 200000 + rnd(100000);   /* 20-30 ms */

		cli();
		wrmsr(MSR_TSCDL, dl);
		while (timers < want) {
			sti_hlt();
			cli();
		}
		sti();
		s[i] = timer_tsc - dl + rdtsc_cost;   /* report() subtracts it again */
	}
	apic_timer_stop();
	report("hlt_timer_wake", s, N / 4);
}

static void on_ping(unsigned v)
{
	ping_tsc = rdtsc();
	apic_send_ipi(0, VEC_PONG);
}

static void on_pong(unsigned v)
{
	pongs++;
}

static void ap_spin(unsigned cpu)
{
	while (!spin_stop)
		__asm__ volatile("" ::: "memory");
}

/* Fixed IPI BSP -> AP, whose handler sends one back: two IPIs, two EOIs.
 * Also one way (issue 19): from before the ICR write to the AP handler's
 * first instruction (one TSC for all CPUs in Bochs and one TSC offset per VM). */
static void ipi_rtt(const char *name, const char *oneway, unsigned gap_us, const char *send)
{
	uint64_t s[N / 2], w[N / 2], c[N / 2];

	for (unsigned i = 0; i < N / 2; i++) {
		uint32_t want = pongs + 1;
		uint64_t t0;

		if (gap_us)
			delay_us(gap_us);   /* the AP is back in HLT: blocked or polling */
		t0 = rdtsc();
		apic_send_ipi(1, VEC_PING);
		c[i] = rdtsc() - t0;   /* the sender's own cost of the ICR write */
		while (pongs < want)
			__asm__ volatile("" ::: "memory");
		s[i] = rdtsc() - t0;
		w[i] = ping_tsc - t0 + rdtsc_cost;   /* report() subtracts it again */
	}
	if (name)
		report(name, s, N / 2);
	report(oneway, w, N / 2);
	if (send)
		report(send, c, N / 2);
}

static volatile uint32_t helds, held_sent;
static volatile uint64_t held_tsc;

static void on_held(unsigned v)
{
	held_tsc = rdtsc();
	helds++;
}

static void send_held(unsigned cpu)
{
	apic_send_ipi(0, VEC_HELD);
	held_sent++;
}

/* An IPI that reached this vCPU while it ran with IF = 0, taken at its
 * `sti; hlt` (hlt = true) or right after `sti; nop`: from before the STI to
 * the handler. The CPUID after the IPI is an exit with IF = 0 after it, so
 * under the hypervisor the run loop has seen the vector: with APICv the VID
 * gate holds it then (issue 17/18, hv/vmx/apicv.c), without the gate the
 * CPU delivers it at the STI, with apicv=off the interrupt window brings
 * it. */
static void bench_held(const char *name, bool hlt)
{
	uint64_t s[N / 4];

	for (unsigned i = 0; i < N / 4; i++) {
		uint32_t want = helds + 1, sent = held_sent;
		uint64_t t0;

		cli();
		smp_run_on(1, send_held, 0);   /* posted: the AP sends while IF = 0 here */
		while (held_sent == sent)
			__asm__ volatile("" ::: "memory");
		cpuid(0, 0);
		delay_us(200);
		t0 = rdtsc();
		if (hlt)
			sti_hlt();
		else
			__asm__ volatile("sti; nop" ::: "memory");
		while (helds < want)
			__asm__ volatile("" ::: "memory");
		s[i] = held_tsc - t0 + rdtsc_cost;   /* report() subtracts it again */
	}
	report(name, s, N / 4);
}

static void on_self(unsigned v)
{
	uint64_t t0 = rdtsc();

	apic_eoi();
	eoi_cost = rdtsc() - t0;
	selfs++;
}

/* Self IPI (shorthand / SELF IPI MSR) until its handler ran; the handler
 * times its own EOI (the library's second EOI finds ISR empty). */
static void bench_self(const char *ipi_name, const char *eoi_name)
{
	uint64_t s[N], e[N];

	for (unsigned i = 0; i < N; i++) {
		uint32_t want = selfs + 1;
		uint64_t t0 = rdtsc();

		if (apic_x2_mode)
			wrmsr(0x83f, VEC_SELF);
		else
			apic_send_ipi(0, ICR_SELF | VEC_SELF);
		while (selfs < want)
			__asm__ volatile("" ::: "memory");
		s[i] = rdtsc() - t0;
		e[i] = eoi_cost;
	}
	report(ipi_name, s, N);
	report(eoi_name, e, N);
}

static void on_level(unsigned v)
{
	uint64_t t0 = rdtsc();

	apic_eoi();
	level_eoi_cost = rdtsc() - t0;
	levels++;
}

/* The PIT (rate generator, pulsed line) routed as a level-triggered IOAPIC
 * entry: each delivery sets remote IRR, and only an EOI broadcast to the
 * IOAPIC clears it, so more than one interrupt means the EOI got there (with
 * virtual-interrupt delivery: the vector is in the EOI-exit bitmap). A new
 * count after each interrupt restarts the period (hv/dev/pit.c) at a
 * pseudo-random 2.5-7.5 ms. The samples then take the EOI's own cost or, at
 * some phases, 115 (most often) or 350 cycles more from host-side work; the
 * figure is their first quartile, the EOI's own cost. At a fixed 100 Hz
 * every sample had one phase: the EOI's cost or 350 above, set by the boot. */
#define NLEVEL 32

static void pit_count(uint16_t count)
{
	outb(0x40, count & 0xff);
	outb(0x40, count >> 8);
}

static void check_level_eoi(const char *sfx)
{
	unsigned gsi = acpi_isa_to_gsi(0);
	uint64_t s[NLEVEL];
	char name[40];
	bool ok;

	levels = 0;
	ioapic_route(gsi, VEC_LEVEL, apic_id(), true, false);
	outb(0x43, 0x34);                      /* channel 0, lo/hi, mode 2 */
	pit_count(PIT_HZ / 400 + rnd(PIT_HZ / 200));
	for (unsigned i = 0; i < NLEVEL; i++) {
		ok = wait_count(&levels, i + 1, 500);
		s[i] = level_eoi_cost + rdtsc_cost;   /* report() subtracts it again */
		if (!ok)
			break;
		pit_count(PIT_HZ / 400 + rnd(PIT_HZ / 200));
	}
	ioapic_mask(gsi);
	outb(0x43, 0x30);                      /* channel 0 mode 0, no reload */
	fmt_snprintf(name, sizeof(name), "level_eoi%s", sfx);
	test_check(name, ok, "%u level-triggered PIT interrupts (need %u)", levels, NLEVEL);
	fmt_snprintf(name, sizeof(name), "eoi_level%s", sfx);
	if (ok)
		report_at(name, s, NLEVEL, NLEVEL / 4);   /* first quartile */
}

static void follow_x2(unsigned cpu)
{
	apic_init();
}

static void bench_ipis(const char *sfx)
{
	char a[40], b[40], c[40], d[40], e[40], f[40], g[40];

	fmt_snprintf(a, sizeof(a), "ipi_rtt_halted%s", sfx);
	fmt_snprintf(b, sizeof(b), "ipi_rtt_running%s", sfx);
	fmt_snprintf(c, sizeof(c), "self_ipi%s", sfx);
	fmt_snprintf(d, sizeof(d), "eoi%s", sfx);
	fmt_snprintf(e, sizeof(e), "ipi_wake_halted%s", sfx);
	fmt_snprintf(f, sizeof(f), "ipi_wake_running%s", sfx);
	fmt_snprintf(g, sizeof(g), "ipi_send%s", sfx);
	ipi_rtt(a, e, 0, NULL);
	/* An idle peer: woken 100 us after its HLT (a halt poll window grows to
	 * catch it) and 1 ms after (longer than the largest window: it blocks). */
	fmt_snprintf(e, sizeof(e), "ipi_wake_idle100us%s", sfx);
	ipi_rtt(NULL, e, 100, NULL);
	fmt_snprintf(e, sizeof(e), "ipi_wake_idle1ms%s", sfx);
	ipi_rtt(NULL, e, 1000, NULL);                       /* the AP idles in HLT (ap_main) */
	spin_stop = 0;
	smp_run_on(1, ap_spin, 0);        /* posted, not waited for: the AP spins */
	delay_us(1000);
	ipi_rtt(b, f, 0, g);                       /* ... with interrupts on, no exits */
	spin_stop = 1;
	delay_us(1000);
	if (!*sfx) {
		bench_held("ipi_held_hlt", true);
		bench_held("ipi_held_sti", false);
	}
	bench_self(c, d);
}

void test_main(void)
{
	irq_set_handler(VEC_PING, on_ping);
	irq_set_handler(VEC_PONG, on_pong);
	irq_set_handler(VEC_SELF, on_self);
	irq_set_handler(VEC_TIMER, on_timer);
	irq_set_handler(VEC_LEVEL, on_level);
	irq_set_handler(VEC_HELD, on_held);
	bench_rdtsc();
	bench_cpuid();
	bench_wrmsr_tscdl();
	bench_uart();
	bench_hlt_timer();
	if (smp_nr_cpus() < 2 || smp_start_all(NULL)) {
		test_check("ap_started", false, "the IPI figures need 2 vCPUs");
		return;
	}
	bench_ipis("");
	check_level_eoi("");
	if (!apic_x2_enable() && !smp_run_on(1, follow_x2, 500)) {
		bench_ipis("_x2apic");
		check_level_eoi("_x2apic");
	}
	test_check("done", true, "all figures printed");
}
