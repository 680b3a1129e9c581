/* Virtual local APIC (one per vCPU): xAPIC MMIO, x2APIC MSRs, timer, IPIs.
 * Register state lives in a caller-supplied 4 KiB page laid out as the xAPIC
 * MMIO page, so the VMX layer can use it as the virtual-APIC page
 * (SDM vol. 3C ch. 30 "APIC Virtualization and Virtual Interrupts").
 * Not locked: callers serialise (hv/dev/intc.c holds the VM's intc lock);
 * only IRR bits are set atomically, because with virtual-interrupt delivery
 * the CPU updates the same page while the guest runs. */
#ifndef HV_DEV_VLAPIC_H
#define HV_DEV_VLAPIC_H
#include "compiler.h"
#include "dev/dev.h"

/* Register offsets in the xAPIC page (SDM vol. 3A §11.4.1, Table 11-1). */
#define APIC_ID        0x020
#define APIC_VERSION   0x030
#define APIC_TPR       0x080
#define APIC_APR       0x090
#define APIC_PPR       0x0a0
#define APIC_EOI       0x0b0
#define APIC_RRD       0x0c0
#define APIC_LDR       0x0d0
#define APIC_DFR       0x0e0
#define APIC_SVR       0x0f0
#define APIC_ISR       0x100
#define APIC_TMR       0x180
#define APIC_IRR       0x200
#define APIC_ESR       0x280
#define APIC_LVT_CMCI  0x2f0
#define APIC_ICR_LO    0x300
#define APIC_ICR_HI    0x310
#define APIC_ICR_X2HI  0x304  /* x2APIC: ICR is one 64-bit field at 0x300 (SDM §30.5) */
#define APIC_LVT_TIMER 0x320
#define APIC_LVT_THERM 0x330
#define APIC_LVT_PERF  0x340
#define APIC_LVT_LINT0 0x350
#define APIC_LVT_LINT1 0x360
#define APIC_LVT_ERROR 0x370
#define APIC_TMICT     0x380
#define APIC_TMCCT     0x390
#define APIC_TDCR      0x3e0
#define APIC_SELF_IPI  0x3f0  /* x2APIC only (SDM §11.12.11) */

/* MSRs (SDM vol. 3A §11.4.4, §11.5.4.1, §11.12.1.2). */
#define MSR_IA32_APIC_BASE    0x1b
#define MSR_IA32_TSC_DEADLINE 0x6e0
#define MSR_X2APIC_FIRST      0x800
#define MSR_X2APIC_LAST       0x8ff
#define MSR_X2APIC_ICR        0x830

#define APIC_BASE_BSP   BIT(8)
#define APIC_BASE_EXTD  BIT(10)
#define APIC_BASE_EN    BIT(11)
#define APIC_BASE_ADDR  0x000ffffffffff000ULL   /* MAXPHYADDR 52; vlapic.base_addr narrows it */

#define APIC_SVR_ENABLE BIT(8)
#define APIC_LVT_MASKED BIT(16)
#define APIC_LVT_LEVEL  BIT(15)   /* trigger mode: 1 = level */
#define APIC_LVT_REMOTE_IRR BIT(14)

/* ICR / LVT delivery modes (SDM §11.6.1). */
enum apic_dm { APIC_DM_FIXED = 0, APIC_DM_LOWEST = 1, APIC_DM_SMI = 2,
	       APIC_DM_NMI = 4, APIC_DM_INIT = 5, APIC_DM_SIPI = 6, APIC_DM_EXTINT = 7 };
enum apic_shorthand { APIC_SH_NONE = 0, APIC_SH_SELF = 1, APIC_SH_ALL = 2, APIC_SH_OTHERS = 3 };
enum apic_timer_mode { APIC_TIMER_ONESHOT = 0, APIC_TIMER_PERIODIC = 1, APIC_TIMER_TSCDL = 2 };

/* ESR bits (SDM §11.5.3). */
#define APIC_ESR_SEND_ILLEGAL BIT(5)
#define APIC_ESR_RECV_ILLEGAL BIT(6)
#define APIC_ESR_ILLEGAL_REG  BIT(7)

/* Guest-visible timer input clock: 1 GHz, so one count is one ns at divide-by-1
 * (the same choice KVM makes). CPUID 0x15/0x16 or calibration tell the guest. */
#define VLAPIC_BUS_HZ 1000000000ULL
/* Shortest re-arm of a periodic timer, ns (KVM: min_timer_period_us = 200). */
#define VLAPIC_MIN_PERIOD 100000

/* The version register: integrated APIC (0x14), 6 LVT entries (max LVT 5: no CMCI),
 * no EOI-broadcast suppression (SDM §11.4.8). */
#define VLAPIC_VERSION 0x00050014u

enum vlapic_mode { VLAPIC_DISABLED, VLAPIC_XAPIC, VLAPIC_X2APIC };

/* A decoded interrupt message: an IPI from an ICR, an IOAPIC redirection entry
 * or an LVT entry. dest is 8-bit (xAPIC format) unless x2apic_dest. */
struct apic_msg {
	uint32_t dest;
	uint8_t vector;
	uint8_t mode;        /* enum apic_dm */
	uint8_t shorthand;   /* enum apic_shorthand (IPIs only) */
	bool logical;
	bool level_trig;     /* trigger mode: sets TMR, EOI is broadcast */
	bool assert;         /* ICR level bit; INIT with !assert is "INIT level de-assert" */
	bool x2apic_dest;
};

struct vlapic;

/* What a vLAPIC needs from the layer that owns all vLAPICs of a VM. */
struct vlapic_ops {
	/* deliver an IPI written to src's ICR (destinations resolved by the owner) */
	void (*ipi)(void *ctx, struct vlapic *src, const struct apic_msg *m);
	/* a level-triggered vector was EOI'd: broadcast to the IOAPIC (SDM §11.8.5) */
	void (*eoi)(void *ctx, uint8_t vector);
	/* guest TSC value -> host ns (for IA32_TSC_DEADLINE); the caller owns the TSC offset/scale */
	stime_t (*tsc_to_ns)(void *ctx, uint64_t guest_tsc);
	/* a new interrupt may be deliverable to vCPU `vcpu` (-> dev_host.kick_vcpu) */
	void (*kick)(void *ctx, unsigned vcpu);
	/* INIT (sipi_vector -1) or SIPI arrived (-> dev_host.start_vcpu) */
	void (*start)(void *ctx, unsigned vcpu, int sipi_vector);
	stime_t (*now)(void *ctx);
	void *ctx;
};

struct vlapic {
	uint32_t *regs;          /* the 4 KiB register / virtual-APIC page */
	const struct vlapic_ops *ops;
	unsigned vcpu;           /* index in the VM; also the initial APIC ID */
	uint64_t apic_base;      /* IA32_APIC_BASE */
	uint64_t base_addr;      /* writable address bits: 12..MAXPHYADDR-1 (SDM §11.4.4) */
	enum vlapic_mode mode;
	uint32_t esr_pending;    /* errors collected since the last ESR write */
	uint8_t nmi_pending;     /* NMIs latched, at most 2 (vlapic_nmi_raise) */
	bool sipi_armed;         /* in wait-for-SIPI: the next SIPI starts the vCPU */
	/* timer (SDM §11.5.4): pull model, host ns */
	stime_t timer_deadline;  /* STIME_NEVER when not armed */
	stime_t timer_start;     /* when the current count was (re)loaded */
	stime_t timer_period;    /* ns per count period (init count * divide) */
	unsigned timer_div;      /* divide value latched when the count was loaded */
	uint8_t timer_mode;      /* enum apic_timer_mode last written to LVT timer */
	uint64_t tscdl;          /* IA32_TSC_DEADLINE as last written (0 = disarmed) */
	uint64_t timer_fired;    /* statistics: timer interrupts raised */
	uint64_t tscdl_ignored;  /* IA32_TSC_DEADLINE writes outside TSC-deadline mode (watchdog) */
};

/* Initialise at power-up: xAPIC mode, ID = vcpu, BSP flag for vcpu 0, all LVTs
 * masked; APs start in wait-for-SIPI (SDM §11.4.7.1, §8.4). page is 4 KiB aligned. */
void vlapic_init(struct vlapic *l, void *page, unsigned vcpu, const struct vlapic_ops *ops);
/* INIT signal: registers to their INIT state, ID and mode kept (SDM §11.4.7.3). */
void vlapic_init_signal(struct vlapic *l);
/* The guest's MAXPHYADDR (CPUID 0x80000008.EAX[7:0]): IA32_APIC_BASE bits
 * from it up to 63 are reserved (#GP on WRMSR). Default 52. */
void vlapic_set_maxphyaddr(struct vlapic *l, unsigned bits);

/* xAPIC MMIO at offset 0..0xfff of the APIC page. Reads of size 1/2/4 inside
 * one register, writes of size 4. 0 or -EINVAL (malformed access; ignored by
 * the caller). Returns -ENOENT when the APIC is not in xAPIC mode. */
int vlapic_mmio_read(struct vlapic *l, unsigned off, unsigned size, uint32_t *val);
int vlapic_mmio_write(struct vlapic *l, unsigned off, unsigned size, uint32_t val);

/* RDMSR/WRMSR for IA32_APIC_BASE, IA32_TSC_DEADLINE and 0x800-0x8ff.
 * 0, -ENOENT (not an APIC MSR), or -EINVAL: the caller injects #GP. */
int vlapic_msr_read(struct vlapic *l, uint32_t msr, uint64_t *val);
int vlapic_msr_write(struct vlapic *l, uint32_t msr, uint64_t val);
int vlapic_base_write(struct vlapic *l, uint64_t val);

/* Interrupt acceptance (SDM §11.8.4): set IRR (and TMR per trigger), kick.
 * Used for fixed/lowest-priority messages; NMI/INIT/SIPI/ExtINT through accept_msg. */
void vlapic_accept_msg(struct vlapic *l, const struct apic_msg *m);
bool vlapic_match_dest(const struct vlapic *l, const struct apic_msg *m);
uint32_t vlapic_id(const struct vlapic *l);   /* xAPIC: 8-bit ID; x2APIC: 32-bit */
bool vlapic_hw_enabled(const struct vlapic *l);
bool vlapic_sw_enabled(const struct vlapic *l);

/* Injection without virtual-interrupt delivery: highest IRR vector whose
 * priority class beats PPR, -1 if none (SDM §11.8.3.1); ack moves it to ISR. */
int vlapic_pending(struct vlapic *l);
/* The same answer without storing PPR in the page (the vCPU may be running). */
int vlapic_pending_peek(const struct vlapic *l);
int vlapic_ack(struct vlapic *l, uint8_t vector);
/* NMI latch (SDM vol. 3 §6.7.1, §11.5.1): one NMI can be in service and one
 * pending; further NMIs coalesce. Before the vCPU runs, two may be latched
 * (one is delivered, one waits for IRET); once the vCPU is seen blocked by
 * NMI, take(blocked) trims the latch to one and returns false. */
void vlapic_nmi_raise(struct vlapic *l);
bool vlapic_nmi_take(struct vlapic *l, bool blocked);
/* LINT0 configured for ExtINT and unmasked (or the APIC globally disabled:
 * LINT0 then is the CPU's INTR pin), i.e. the 8259 output reaches this vCPU. */
bool vlapic_accepts_extint(const struct vlapic *l);
/* TPR threshold for a TPR shadow without virtual-interrupt delivery (SDM §30.1.2). */
uint8_t vlapic_tpr_threshold(struct vlapic *l);

/* Virtual-interrupt delivery (SDM §30.1, §30.2): guest interrupt status = SVI << 8 | RVI. */
uint16_t vlapic_intr_status(struct vlapic *l);
/* EOI-induced exit: the CPU already cleared VISR; broadcast if level (SDM §30.1.4). */
void vlapic_eoi_exit(struct vlapic *l, uint8_t vector);
/* APIC-write exit: the CPU wrote the page at off; perform the side effects (SDM §30.4.3.3). */
int vlapic_apic_write_exit(struct vlapic *l, unsigned off);
/* EOI (non-virtualised): clear the highest ISR bit; broadcast if it was level. */
void vlapic_eoi(struct vlapic *l);
/* KVM PV EOI (Linux Documentation/virt/kvm/x86/msr.rst, MSR_KVM_PV_EOI_EN): the
 * vector whose EOI the guest may signal in memory instead of by a register
 * write, or -1. Only when nothing waits in IRR (an EOI that does not exit must
 * not strand a pending interrupt) and the highest ISR vector is edge-triggered
 * (a level EOI has to reach the IOAPIC). */
int vlapic_pv_eoi_vector(const struct vlapic *l);

/* Timer, pull model. next: earliest deadline in host ns or STIME_NEVER.
 * advance: fire if now >= deadline (periodic reloads; late periods coalesce). */
stime_t vlapic_timer_next(const struct vlapic *l);
void vlapic_timer_advance(struct vlapic *l, stime_t now);

/* Raw register page helpers (also for tests). */
static inline uint32_t vlapic_reg(const struct vlapic *l, unsigned off)
{
	return l->regs[off >> 2];
}
static inline bool vlapic_vec_test(const struct vlapic *l, unsigned base, uint8_t v)
{
	return (l->regs[(base + ((unsigned)v >> 5) * 16) >> 2] >> (v & 31)) & 1;
}
#endif
