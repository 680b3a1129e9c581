/* What hv/vmx keeps of a vCPU and of a VM (issue 11): the parts its exit
 * handlers, APICv and the VMCS setup read and write. hv/vm embeds them in
 * its objects (`struct vcpu`'s first member `vmx`, `struct vm`'s `vmx`) and
 * hands hv/vmx a `struct vmx_vcpu *`; hv/vmx never sees struct vcpu or
 * struct vm and needs no container_of. What it asks of hv/vm beyond these
 * (stop the VM, device models, the VID gate's re-entry) goes through
 * `vmx_vm_ops` (vmx/exit.h). */
#ifndef HV_VMX_VCPU_H
#define HV_VMX_VCPU_H
#include "compiler.h"
#include "dev/vlapic.h"
#include "dev/intc.h"
#include "spinlock.h"
#include "vmx/entry.h"
#include "vmx/ept.h"
#include "vmx/fpu.h"
#include "vmx/cpuid_filter.h"
#include "vmx/cpuid_cache.h"
#include "vmx/msr_filter.h"

/* A VM as hv/vmx sees it: EPT, the exit bitmaps, the CPUID and MSR
 * policies (set up by hv/vm at VM creation, vm/vm.c). */
struct vmx_vm {
	const char *name;                 /* for log lines: the VM's name (vm->p.name) */
	bool apicv;                       /* the VM's apicv= (vm->p.apicv) */
	struct ept ept;
	uint8_t *io_bitmap;               /* 8 KiB: bitmaps A and B */
	uint8_t *msr_bitmap;              /* 4 KiB */
	struct cpuid_policy cpuid;
	struct cpuid_cache cpuid_cache;   /* filtered answers of the static leaves */
	struct msr_policy msrs;
	unsigned msr_gp_logged;           /* refused MSR accesses reported */
	/* The VM's interrupt controller (hv/dev/intc.h, in hv/vm's struct
	 * vm_devs) and the lock hv/vm takes around device accesses: the MSR
	 * emulation reaches the vLAPIC's MSRs through them (IA32_APIC_BASE,
	 * x2APIC, TSC deadline; vmx/exit_misc.c) and APICv reads the IOAPIC's
	 * level-triggered entries for the EOI-exit bitmap (vmx/apicv.c).
	 * Pointers, not calls through vmx_vm_ops: a call would add about a
	 * dozen instructions to every such MSR exit (make bench-exits). */
	struct vintc *intc;
	spinlock_t *lock;
};

/* A vCPU as hv/vmx sees it: guest GPRs, the vLAPIC and its virtual-APIC
 * page, FPU state, what a handler queues for the next entry and the
 * NMI/interrupt windows. */
struct vmx_vcpu {
	struct guest_regs regs;            /* first: entry.asm gets &vcpu->vmx.regs */
	struct vmx_vm *vm;
	unsigned id;                       /* index in the VM */
	void *apic_page;                   /* vLAPIC registers = virtual-APIC page */
	struct vlapic lapic;
	struct fpu_state fpu;              /* x87/SSE/AVX state and XCR0 */
	bool nmi_window;                   /* NMI-window exiting is on in the VMCS */
	bool vid_window;                   /* apicv held RVI back: interrupt window (vmx/apicv.c) */
	bool vid_ungated;                  /* virtual-interrupt delivery on, VID gate off: the
					    * VMCS's RVI is what the CPU delivers (vmx/apicv.c) */
	struct {                           /* exception a handler queued for the next entry */
		bool valid, has_err;
		uint8_t vector;
		uint32_t err;
	} pending_exc;
	uint64_t misc_enable;              /* IA32_MISC_ENABLE as the guest last wrote it */
	uint64_t ple_exits;
	uint64_t vid_held;                 /* VID gate: entries holding a vector for an
					    * interrupt window (issue 18) */
};
_Static_assert(offsetof(struct vmx_vcpu, regs) == 0, "entry.asm gets &vmx_vcpu->regs");
#endif
