/* Tiny library for guest test kernels: console, test reporting, exit,
 * interrupts, LAPIC/IOAPIC, ACPI, fw_cfg, timing and SMP. Built 32-bit
 * (-m32) or 64-bit; see docs/guest-tests.md for the conventions. */
#ifndef GUEST_GUEST_H
#define GUEST_GUEST_H
#include <stdint.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdarg.h>
#include "x86.h"
#include "asm.h"

#define __noreturn __attribute__((noreturn))
#define __fmt(a, b) __attribute__((format(printf, a, b)))
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* --- provided by each test kernel --- */
extern const char test_name[];        /* prefix of its TEST lines, SUMMARY name */
void test_main(void);

/* --- console (COM1, polled LSR.THRE) and reporting (test.c) --- */
void con_init(void);
void con_write(const char *s, size_t n);
void con_printf(const char *fmt, ...) __fmt(1, 2);
/* Prints "TEST <test_name>_<check> PASS|FAIL [detail]"; returns ok. */
bool test_check(const char *check, bool ok, const char *fmt, ...) __fmt(3, 4);
void test_count(bool ok);             /* count a TEST line printed by other means */
__noreturn void test_finish(void);    /* SUMMARY line, then guest_exit() */
/* isa-debug-exit (port 0xf4): QEMU ends with status (code << 1) | 1. */
__noreturn void guest_exit(unsigned code);
__noreturn void cpu_halt_forever(void);

/* --- boot information (boot.c) --- */
struct boot_params {
	uint32_t magic, info_flags;
	uint64_t ram_top;                 /* end of the RAM run starting at 1 MiB */
	uint32_t mem_lower_kb, mem_upper_kb, mmap_entries;
	char cmdline[256];
	char loader[64];
};
extern struct boot_params boot;
void boot_parse(uint32_t magic, uint32_t info);
/* The decimal value of "key=N" on the command line (a word of its own), else def. */
unsigned long boot_arg_num(const char *key, unsigned long def);

/* --- interrupts (idt.c); vectors 0x20-0xfe are free for tests --- */
struct isr_frame;
typedef void (*irq_handler_t)(unsigned vector);
void idt_init(void);
void idt_load(void);                  /* on APs */
void irq_set_handler(unsigned vector, irq_handler_t fn);
extern volatile uint32_t irq_counts[256];
extern volatile uint32_t exc_counts[32];
extern volatile uintptr_t exc_last_flags;  /* RFLAGS pushed by the last exception */
/* What the boot loader left at the kernel entry (entry.S). */
struct gdtr32 { uint16_t limit; uint32_t base; } __attribute__((packed));
extern struct gdtr32 boot_entry_gdtr;
extern uint16_t boot_entry_cs, boot_entry_ds;
/* Called for a vector 0-31 event no exception-table entry catches (an NMI,
 * an interrupt sent at a low vector); true = handled, return to the guest. */
extern bool (*exc_hook)(unsigned vector);
#define VEC_SPURIOUS 0xff
#define VEC_KICK     0xf0             /* wakes an idle AP to run posted work */
#define VEC_WATCHDOG 0xef             /* hlt_until()'s PIT watchdog */

/* --- local APIC (apic.c): xAPIC MMIO or x2APIC MSRs, whichever is on --- */
#define APIC_ID      0x20
#define APIC_VERSION 0x30
#define APIC_TPR     0x80
#define APIC_EOI     0xb0
#define APIC_SVR     0xf0
#define APIC_ESR     0x280
#define APIC_ICR_LO  0x300
#define APIC_ICR_HI  0x310
#define APIC_LVT_TIMER 0x320
#define APIC_LVT_LINT0 0x350
#define APIC_LVT_LINT1 0x360
#define APIC_LVT_ERROR 0x370
#define APIC_TMICT   0x380
#define APIC_TMCCT   0x390
#define APIC_TDCR    0x3e0
#define APIC_SELF_IPI 0x3f0           /* x2APIC only */
#define APIC_LVT_MASKED     (1u << 16)
#define APIC_TIMER_PERIODIC (1u << 17)
#define APIC_TIMER_TSCDL    (2u << 17)
#define ICR_INIT     0x00000500u
#define ICR_SIPI     0x00000600u
#define ICR_ASSERT   0x00004000u
#define ICR_SELF     0x00040000u
#define ICR_ALL      0x00080000u
#define ICR_OTHERS   0x000c0000u
#define MSR_APIC_BASE   0x1b
#define APIC_BASE_BSP   (1u << 8)
#define APIC_BASE_X2    (1u << 10)
#define APIC_BASE_EN    (1u << 11)
#define MSR_TSC_DEADLINE 0x6e0
extern bool apic_x2_mode;             /* mode apic_init() puts a CPU in */
void apic_init(void);
bool apic_x2_supported(void);
int apic_x2_enable(void);
uint32_t apic_read(unsigned reg);
void apic_write(unsigned reg, uint32_t v);
unsigned apic_id(void);
void apic_eoi(void);
/* Send an IPI: icr_lo holds vector/mode/shorthand; returns -1 on timeout. */
int apic_send_ipi(unsigned dest, uint32_t icr_lo);
void apic_timer_stop(void);

/* --- IOAPIC (ioapic.c) --- */
uint32_t ioapic_read(unsigned reg);
void ioapic_write(unsigned reg, uint32_t v);
unsigned ioapic_nr_pins(void);
void ioapic_route(unsigned pin, unsigned vector, unsigned dest, bool level, bool low);
void ioapic_mask(unsigned pin);

/* --- ACPI (acpi.c) --- */
const void *acpi_find(const char sig[4]);
unsigned acpi_isa_to_gsi(unsigned irq);   /* via MADT overrides; identity default */
uintptr_t acpi_ioapic_base(void);
unsigned acpi_nr_lapics(void);
uint16_t acpi_pm_timer_port(void);        /* 0 if no FADT */

/* --- fw_cfg (fwcfg.c): QEMU's 0x510/0x511 interface --- */
bool fwcfg_present(void);
unsigned fwcfg_nr_cpus(void);             /* 0 if unknown */

/* --- time (time.c) --- */
extern uint64_t tsc_khz;                  /* TSC ticks per ms */
extern bool tsc_calibrated;               /* false: PIT channel 2 did not count */
void tsc_calibrate(void);
void pic_disable(void);
void delay_us(uint64_t us);
static inline uint64_t tsc_after_ms(uint64_t ms) { return rdtsc() + ms * tsc_khz; }
static inline bool tsc_passed(uint64_t t) { return (int64_t)(rdtsc() - t) >= 0; }
/* Spin (interrupts on) until *p >= want or ms pass; true if reached. */
bool wait_count(volatile uint32_t *p, uint32_t want, unsigned ms);
/* HLT until *p >= want or ms pass. hlt_until() runs a 20 Hz PIT watchdog
 * (IOAPIC, VEC_WATCHDOG) meanwhile so a missing interrupt cannot hang the
 * test; hlt_until_raw() has none (for tests of the PIT itself). BSP only. */
bool hlt_until(volatile uint32_t *p, uint32_t want, unsigned ms);
bool hlt_until_raw(volatile uint32_t *p, uint32_t want, unsigned ms);

/* --- SMP (smp.c); CPU index == APIC ID (0..GUEST_MAX_CPUS-1) --- */
typedef void (*cpu_fn)(unsigned cpu);
unsigned smp_nr_cpus(void);
unsigned cpu_id(void);
/* INIT, 10 ms, one SIPI (vector = trampoline page); waits up to 2 s for
 * the AP to check in. fn runs on the AP before it idles in HLT. */
int smp_start_ap(unsigned apic, uint8_t sipi_vector, cpu_fn fn);
int smp_start_all(cpu_fn fn);             /* every AP, trampoline at 0x8000 */
/* Run fn on an idle AP (posted, woken by VEC_KICK); waits up to ms. */
int smp_run_on(unsigned cpu, cpu_fn fn, unsigned ms);
extern volatile uint32_t smp_online;      /* APs that checked in */
extern volatile uint32_t smp_online_mask;

/* --- spinlock --- */
typedef struct { volatile uint32_t locked; } glock_t;
static inline void glock_lock(glock_t *l)
{
	while (__atomic_exchange_n(&l->locked, 1, __ATOMIC_ACQUIRE))
		while (__atomic_load_n(&l->locked, __ATOMIC_RELAXED))
			cpu_pause();
}
static inline void glock_unlock(glock_t *l)
{
	__atomic_store_n(&l->locked, 0, __ATOMIC_RELEASE);
}

/* --- this hypervisor (hv.c) --- */
bool hv_is_ours(void);                    /* CPUID signature of hv/abi.h */
/* VMCALL; returns 0 and *ret, or FAULT(vector) if it faulted (#UD bare). */
int hv_call(unsigned long nr, unsigned long a0, unsigned long a1, long *ret);
/* Run-time policy switch (HC_SCHED_SWITCH, privileged VMs only) and the
 * current policy (HC_SCHED_POLICY): see hv.c. */
long hv_sched_switch(const char *req);
long hv_sched_policy(char *name, size_t n);

/* --- string helpers (hv/lib/string.c, hv/lib/fmt.c) --- */
void *memcpy(void *d, const void *s, size_t n);
void *memset(void *d, int c, size_t n);
int memcmp(const void *a, const void *b, size_t n);
size_t strlen(const char *s);
int strncmp(const char *a, const char *b, size_t n);
int fmt_vsnprintf(char *buf, size_t size, const char *fmt, va_list ap);
int fmt_snprintf(char *buf, size_t size, const char *fmt, ...) __fmt(3, 4);
#endif
