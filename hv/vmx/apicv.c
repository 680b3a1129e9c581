/* APIC virtualization (see apicv.h). SDM vol. 3C ch. 30; VM-entry checks of
 * §26.2.1.1 decide the combinations: "virtualize x2APIC mode" excludes
 * "virtualize APIC accesses"; register virtualization, VID and x2APIC mode
 * need the TPR shadow; VID needs external-interrupt exiting.
 * Lock: apicv_lock guards slot allocation only; per-vCPU state is touched by
 * the pCPU running that vCPU. */
#include "vmx/apicv.h"
#include "vmx/vcpu.h"
#include "vmx/exit.h"
#include "load/loader.h"   /* GUEST_LAPIC_BASE */
#include "vm_limits.h"
#include "vmx/apicv_calc.h"
#include "vmx/vid_selftest.h"
#include "vmx/vmcs.h"
#include "vmx/caps.h"
#include "cmdline.h"
#include "memory.h"
#include "lib/string.h"
#include "errno.h"
#include "log.h"

static bool opt_apicv = true;
CMDLINE_BOOL(apicv, opt_apicv, "APIC virtualization where the CPU has it (virtual-APIC page, "
	     "APIC-access page, x2APIC mode, virtual-interrupt delivery)");
static bool opt_apicv_vid = true;
CMDLINE_BOOL(apicv_vid, opt_apicv_vid, "with apicv: use virtual-interrupt delivery "
	     "(off: TPR shadow and TPR threshold, interrupts injected)");

/* The gate in force: on until apicv_host_init() decides (vid_selftest.c). */
static bool opt_apicv_vid_gate = true;
static int opt_vid_gate_mode = VID_GATE_AUTO;
CMDLINE_ENUM(apicv_vid_gate, opt_vid_gate_mode, vid_gate_mode_names, "with virtual-interrupt "
	     "delivery: never enter with a virtual interrupt the guest cannot take at once (Bochs "
	     "2.7 delivers it with IF=0 when a host interrupt arrives; docs/vmx.md \"The VID gate\"); "
	     "auto: on only if the boot self-test sees that bug");

enum apicv_mode { AV_NONE = 0, AV_XAPIC, AV_X2APIC, AV_DISABLED };

struct apicv_vcpu {
	uint8_t mode;          /* enum apicv_mode programmed in the VMCS */
	bool vid;              /* virtual-interrupt delivery on */
	bool eoi_dirty;        /* recompute the EOI-exit bitmap before entry */
	uint8_t last_rvi;      /* RVI the EOI-exit bitmap was computed for */
	uint32_t proc2;        /* cached secondary controls */
	uint64_t eoi[4];       /* EOI-exit bitmap last written */
	uint64_t level[4];     /* level-triggered IOAPIC vectors, as of IOAPIC gen level_gen */
	uint32_t level_gen;
	bool level_valid;
	bool extra_on;         /* extra[] is in the EOI-exit bitmap */
	uint64_t extra[4];     /* EOI exits of apicv_calc_gated_status() */
};

struct apicv_vm {
	const struct vmx_vm *vm;
	void *access_page;     /* APIC-access page, mapped at GUEST_LAPIC_BASE */
	uint8_t *x2_bitmap;    /* MSR bitmap for vCPUs in x2APIC mode */
	struct apicv_vcpu vcpu[VM_MAX_VCPUS];
};

static struct apicv_vm slots[VM_MAX];
static spinlock_t apicv_lock;

static bool cpu_has(uint32_t proc2_bits)
{
	return vmx_ctl_has(&vmx_caps.proc, PROC_TPR_SHADOW | PROC_SECONDARY) &&
	       vmx_ctl_has(&vmx_caps.proc2, proc2_bits);
}

void apicv_host_init(void)
{
	const char *skip = !opt_apicv ? "apicv=off" : !opt_apicv_vid ? "apicv_vid=off" :
		!cpu_has(PROC2_VIRT_INTR_DELIV) ? "the CPU has no virtual-interrupt delivery" : NULL;

	opt_apicv_vid_gate = vid_selftest_gate_at_boot(opt_vid_gate_mode, skip);
}

bool apicv_vm_enabled(const struct vmx_vm *vm)
{
	return opt_apicv && vm->apicv && cpu_has(PROC2_VIRT_APIC_ACCESS);
}

static struct apicv_vm *slot_find(const struct vmx_vm *vm)
{
	for (unsigned i = 0; i < VM_MAX; i++)
		if (READ_ONCE(slots[i].vm) == vm)
			return &slots[i];
	return NULL;
}

/* First vCPU of a VM: the APIC-access page (its contents are never used,
 * SDM §30.4) mapped in EPT, and the x2APIC MSR bitmap. */
static struct apicv_vm *slot_get(struct vmx_vm *vm)
{
	struct apicv_vm *s;

	spin_lock(&apicv_lock);
	s = slot_find(vm);
	for (unsigned i = 0; !s && i < VM_MAX; i++)
		if (!slots[i].vm || vmx_vm_ops.vm_dead(slots[i].vm))
			s = &slots[i];
	if (s && s->vm != vm) {
		memset(s, 0, sizeof(*s));
		s->access_page = page_alloc_zeroed(1);
		s->x2_bitmap = page_alloc_zeroed(1);
		if (!s->access_page || !s->x2_bitmap ||
		    ept_map(&vm->ept, GUEST_LAPIC_BASE, (paddr_t)s->access_page, PAGE_SIZE, EPT_RWX)) {
			spin_unlock(&apicv_lock);
			return NULL;
		}
		memcpy(s->x2_bitmap, vm->msr_bitmap, PAGE_SIZE);
		apicv_calc_x2apic_bitmap(s->x2_bitmap, cpu_has(PROC2_APIC_REG_VIRT),
					 cpu_has(PROC2_VIRT_INTR_DELIV) && opt_apicv_vid,
					 !opt_apicv_vid_gate);
		WRITE_ONCE(s->vm, vm);
	}
	spin_unlock(&apicv_lock);
	return s;
}

/* EOI-exit bitmap word i (fields 0x201c + 2i, SDM App. B.2), failure reported. */
static void eoi_exit_write(unsigned i, uint64_t val)
{
	unsigned long f = VMCS_EOI_EXIT_BITMAP0 + 2 * i;
	int e = vmcs_vmwrite(f, val);

	if (unlikely(e))
		vmcs_write_failed(f, val, e);
}

static struct apicv_vcpu *vcpu_state(struct vmx_vcpu *v)
{
	struct apicv_vm *s = slot_find(v->vm);

	return s ? &s->vcpu[v->id] : NULL;
}

int apicv_vmcs_setup(struct vmx_vcpu *v, uint32_t *proc, uint32_t *proc2)
{
	struct apicv_vm *s;
	struct apicv_vcpu *a;
	uint32_t want = PROC2_VIRT_APIC_ACCESS | PROC2_APIC_REG_VIRT;

	v->vid_ungated = false;
	if (!apicv_vm_enabled(v->vm) || !(*proc & PROC_SECONDARY))
		return 0;
	if (!(s = slot_get(v->vm)))
		return -ENOMEM;
	a = &s->vcpu[v->id];
	if (opt_apicv_vid)
		want |= PROC2_VIRT_INTR_DELIV;
	*proc = vmx_ctl_adjust(&vmx_caps.proc, *proc | PROC_TPR_SHADOW);
	*proc2 = vmx_ctl_adjust(&vmx_caps.proc2, *proc2 | want);
	a->mode = AV_XAPIC;       /* power-on state of the vLAPIC (SDM §11.4.7.1) */
	a->proc2 = *proc2;
	a->vid = *proc2 & PROC2_VIRT_INTR_DELIV;
	/* apicv_entry() then writes RVI at every slow entry, and the gate
	 * never holds it back: apicv_rvi_deliverable() may read it. */
	v->vid_ungated = a->vid && !opt_apicv_vid_gate;
	a->eoi_dirty = true;
	a->level_valid = false;
	vmcs_write64(VMCS_VIRTUAL_APIC_PAGE, (uint64_t)v->apic_page);
	vmcs_write64(VMCS_APIC_ACCESS_PAGE, (uint64_t)s->access_page);
	vmcs_write32(VMCS_TPR_THRESHOLD, 0);
	if (a->vid) {
		vmcs_write16(VMCS_GUEST_INTR_STATUS, 0);
		for (unsigned i = 0; i < 4; i++)
			eoi_exit_write(i, 0);
	}
	return 0;
}

void apicv_config_changed(struct vmx_vcpu *v)
{
	struct apicv_vcpu *a = vcpu_state(v);

	if (a)
		a->eoi_dirty = true;
}

/* xAPIC: APIC-access page; x2APIC: virtualize x2APIC mode and its MSR bitmap;
 * APIC disabled: neither (SDM §30.2, §30.5). */
static __attribute__((noinline)) void mode_switch(struct vmx_vcpu *v, struct apicv_vcpu *a,
						  uint8_t mode)
{
	struct apicv_vm *s = slot_find(v->vm);
	uint32_t p2 = a->proc2 & ~(PROC2_VIRT_APIC_ACCESS | PROC2_VIRT_X2APIC);

	if (mode == AV_XAPIC)
		p2 |= PROC2_VIRT_APIC_ACCESS;
	else if (mode == AV_X2APIC && cpu_has(PROC2_VIRT_X2APIC))
		p2 |= PROC2_VIRT_X2APIC;
	p2 = vmx_ctl_adjust(&vmx_caps.proc2, p2);
	vmcs_write32(VMCS_PROC_CTLS2, p2);
	vmcs_write64(VMCS_MSR_BITMAP, (uint64_t)(p2 & PROC2_VIRT_X2APIC ? s->x2_bitmap :
						v->vm->msr_bitmap));
	a->proc2 = p2;
	a->mode = mode;
}

static uint8_t lapic_mode(const struct vmx_vcpu *v)
{
	switch (READ_ONCE(v->lapic.mode)) {
	case VLAPIC_XAPIC:
		/* A relocated APIC base leaves the page at 0xFEE00000 unvirtualized. */
		return (v->lapic.apic_base & APIC_BASE_ADDR) == GUEST_LAPIC_BASE ?
			AV_XAPIC : AV_DISABLED;
	case VLAPIC_X2APIC:
		return AV_X2APIC;
	default:
		return AV_DISABLED;
	}
}

static __attribute__((noinline)) void eoi_bitmap_update(struct vmx_vcpu *v, struct apicv_vcpu *a)
{
	const struct vioapic *io = &v->vm->intc->ioapic;
	uint32_t gen = __atomic_load_n(&io->gen, __ATOMIC_ACQUIRE);
	uint64_t bm[4];

	/* The IOAPIC's level vectors only change with an RTE write (gen): the
	 * 24-entry scan ran at every newly delivered vector before (issue 19,
	 * make bench-blockpath "inject"). */
	if (!a->level_valid || a->level_gen != gen) {
		apicv_calc_level_vectors(io->rte, VIOAPIC_PINS, a->level);
		a->level_gen = gen;
		a->level_valid = true;
	}
	apicv_calc_eoi_from_level(v->apic_page, a->level, bm);
	for (unsigned i = 0; i < 4; i++) {
		if (a->extra_on)
			bm[i] |= a->extra[i];
		if (bm[i] != a->eoi[i]) {
			eoi_exit_write(i, bm[i]);
			a->eoi[i] = bm[i];
		}
	}
	a->eoi_dirty = false;
}

void apicv_hold_rvi(struct vmx_vcpu *v)
{
	uint16_t st;

	if (!opt_apicv_vid_gate)
		return;
	st = vmcs_read16(VMCS_GUEST_INTR_STATUS);
	if (st & 0xff) {
		vmcs_write16(VMCS_GUEST_INTR_STATUS, st & 0xff00);
		v->vid_window = true;
	}
}

/* Whether the guest can take an interrupt at this entry, for the VID gate. */
enum gate_can { GATE_CAN_READ, GATE_CAN_YES };

/* RVI/SVI from the page and, with the gate, what it holds back; the
 * EOI-exit bitmap when a new vector is about to be delivered. Returns the
 * guest interrupt status entered. */
static inline __attribute__((always_inline)) uint16_t vid_update(struct vmx_vcpu *v,
								 struct apicv_vcpu *a,
								 enum gate_can how)
{
	uint8_t rvi;
	uint16_t st;
	bool extra_changed = false;

	/* RVI from the page: another pCPU may have set IRR (no posted interrupts).
	 * Compared with the VMCS, not a cached copy: the CPU changes RVI/SVI itself. */
	st = apicv_calc_intr_status(v->apic_page);
	rvi = (uint8_t)st;
	v->vid_window = false;
	if (opt_apicv_vid_gate && (rvi || a->extra_on)) {
		/* Issue 17 (apicv_calc.h): enter only with a virtual interrupt the
		 * CPU delivers at once (SDM §30.2.1: RFLAGS.IF and no STI/MOV-SS
		 * blocking); read the guest state only when a vector waits and
		 * the caller does not know it. */
		uint64_t extra[4];
		bool can = rvi && (how == GATE_CAN_YES ||
				   ((vmcs_readnat(VMCS_GUEST_RFLAGS) & BIT(9)) &&
				    !(vmcs_read32(VMCS_GUEST_INTERRUPTIBILITY) &
				      (INTERRUPTIBILITY_STI | INTERRUPTIBILITY_MOVSS))));
		bool on;

		st = apicv_calc_gated_status(v->apic_page, st, can, &v->vid_window, extra);
		if (unlikely(v->vid_window))
			v->vid_held++;
		on = (extra[0] | extra[1] | extra[2] | extra[3]) != 0;
		if (on != a->extra_on || (on && memcmp(extra, a->extra, sizeof(extra)))) {
			memcpy(a->extra, extra, sizeof(extra));
			a->extra_on = on;
			extra_changed = true;
		}
	}
	if (st != vmcs_read16(VMCS_GUEST_INTR_STATUS))
		vmcs_write16(VMCS_GUEST_INTR_STATUS, st);
	/* A new vector to deliver: its trigger mode (TMR, IOAPIC entry) is known now. */
	if ((rvi && (rvi != a->last_rvi || a->eoi_dirty)) || extra_changed) {
		eoi_bitmap_update(v, a);
		a->last_rvi = rvi;
	}
	return st;
}

bool apicv_entry(struct vmx_vcpu *v)
{
	struct apicv_vcpu *a;
	uint8_t mode;

	if (!v->vm->apicv || !opt_apicv || !(a = vcpu_state(v)) || !a->mode)
		return false;
	mode = lapic_mode(v);
	if (unlikely(mode != a->mode))
		mode_switch(v, a, mode);
	if (!a->vid) {
		vmcs_write32(VMCS_TPR_THRESHOLD, apicv_calc_tpr_threshold(v->apic_page));
		return false;
	}
	vid_update(v, a, GATE_CAN_READ);
	return true;
}

int apicv_gate_release(struct vmx_vcpu *v)
{
	struct apicv_vcpu *a;

	if (!opt_apicv_vid_gate || !v->vid_window || !(a = vcpu_state(v)) || !a->vid ||
	    lapic_mode(v) != a->mode)
		return -1;
	/* With the guest able to take it, the gate enters RVI only when its
	 * class is above VTPR's and SVI's (apicv_calc_gated_status): nonzero
	 * means the entry delivers it, and no window is asked for. */
	return (uint8_t)vid_update(v, a, GATE_CAN_YES);
}
