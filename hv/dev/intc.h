/* Interrupt routing of one VM: owns the vLAPICs (one per vCPU), the vIOAPIC
 * and the 8259 pair, routes device IRQ lines, IPIs and EOIs between them, and
 * answers the VMX layer's "what to inject" questions.
 * Locking: one spinlock per VM (vintc.lock) taken by every vintc_* entry point;
 * the dev_host callbacks (kick_vcpu, start_vcpu, now) run under it and must not
 * call back into vintc_*. The vlapic_/vioapic_/vpic_ functions are unlocked. */
#ifndef HV_DEV_INTC_H
#define HV_DEV_INTC_H
#include "dev/dev.h"
#include "dev/vlapic.h"
#include "dev/vioapic.h"
#include "dev/vpic.h"
#include "spinlock.h"

#define VINTC_MAX_VCPUS 64
/* The IOAPIC's ID is the vCPU count (after the LAPIC IDs 0..n-1), as the
 * guest's MADT and MP table say (acpi_tables.h); its GSI base is 0. */
#define VINTC_IOAPIC_GSI_BASE 0

typedef stime_t (*vintc_tsc_to_ns_fn)(void *ctx, uint64_t guest_tsc);

struct vintc {
	spinlock_t lock;
	const struct dev_host *host;
	vintc_tsc_to_ns_fn tsc_to_ns;   /* IA32_TSC_DEADLINE conversion */
	void *tsc_ctx;
	struct vlapic_ops lapic_ops;
	struct vioapic_ops ioapic_ops;
	struct vlapic *lapic[VINTC_MAX_VCPUS];
	unsigned nr_vcpus;              /* lapic[0..nr_vcpus-1] are attached */
	struct vioapic ioapic;
	struct vpic pic;
	gpa_t ioapic_base;
	unsigned maxphyaddr;            /* the guest's, for IA32_APIC_BASE (0: 52) */
	uint64_t ipis, irqs;            /* statistics */
};

/* tsc_to_ns converts a guest TSC value to host ns (it knows the TSC offset and
 * frequency); NULL means the guest TSC counts ns since boot. */
void vintc_init(struct vintc *ic, const struct dev_host *host,
		vintc_tsc_to_ns_fn tsc_to_ns, void *tsc_ctx);
/* Attach vCPU `vcpu` (vCPUs are attached in order 0, 1, ...): the vLAPIC and
 * its 4 KiB aligned register page (later the virtual-APIC page). 0 or -EINVAL.
 * Also sets the IOAPIC ID to the new vCPU count. */
int vintc_add_vcpu(struct vintc *ic, unsigned vcpu, struct vlapic *l, void *apic_page);

/* irq_line_fn for devices: ISA IRQ n -> PIC input n and IOAPIC pin n, except
 * IRQ0 -> pin 2 (MADT interrupt source override 0 -> GSI 2); 16..23 IOAPIC only. */
void vintc_irq_set(void *intc, unsigned gsi, bool level);

/* Device accesses; 0 handled or -ENOENT (not ours). Ports: 0x20/0x21,
 * 0xa0/0xa1, 0x4d0/0x4d1. MMIO: the IOAPIC page and vcpu's xAPIC page. */
int vintc_pio(struct vintc *ic, uint16_t port, unsigned size, bool write, uint32_t *val);
int vintc_mmio(struct vintc *ic, unsigned vcpu, gpa_t gpa, unsigned size, bool write,
	       uint64_t *val);
/* RDMSR/WRMSR of IA32_APIC_BASE, IA32_TSC_DEADLINE, 0x800-0x8ff:
 * 0, -ENOENT (not an APIC MSR) or -EINVAL (inject #GP). */
int vintc_msr_read(struct vintc *ic, unsigned vcpu, uint32_t msr, uint64_t *val);
int vintc_msr_write(struct vintc *ic, unsigned vcpu, uint32_t msr, uint64_t val);

/* Injection (no virtual-interrupt delivery): NMI first, then pending() gives
 * the vector an INTA would return (8259 ExtINT before the vLAPIC), -1 if none;
 * once the guest can take it, ack() commits it and returns the vector to inject. */
bool vintc_nmi_take(struct vintc *ic, unsigned vcpu, bool blocked);   /* vlapic_nmi_take */
int vintc_pending(struct vintc *ic, unsigned vcpu);
/* vintc_pending() that writes nothing in the vLAPIC page: for wake-up tests
 * of a vCPU another pCPU may be running (vlapic_pending_peek). */
int vintc_wake_pending(struct vintc *ic, unsigned vcpu);
int vintc_ack(struct vintc *ic, unsigned vcpu);
uint8_t vintc_tpr_threshold(struct vintc *ic, unsigned vcpu);

/* Virtual-interrupt delivery (SDM §30.1-30.2). */
uint16_t vintc_intr_status(struct vintc *ic, unsigned vcpu);        /* SVI << 8 | RVI */
void vintc_eoi_exit_bitmap(struct vintc *ic, unsigned vcpu, uint64_t out[4]);
void vintc_eoi_exit(struct vintc *ic, unsigned vcpu, uint8_t vector);
int vintc_apic_write_exit(struct vintc *ic, unsigned vcpu, unsigned offset);

/* LAPIC timers, pull model (host ns). */
stime_t vintc_timer_next(struct vintc *ic, unsigned vcpu);
void vintc_timer_advance(struct vintc *ic, unsigned vcpu, stime_t now);
#endif
