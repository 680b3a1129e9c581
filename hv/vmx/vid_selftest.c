/* The VID self-test's throw-away guest (vid_selftest.h, docs/vmx.md "The VID
 * gate's self-test"). One real-mode page at guest-physical 0 under its own
 * small EPT (ept.c) and its own VMCS, entered once by vid_selftest_launch
 * (vid_selftest_entry.asm): RFLAGS.IF = 0, RVI = VID_SELFTEST_VECTOR above
 * PPR (VTPR 0, SVI 0), external-interrupt exiting, and a self-IPI left
 * pending in the host's local APIC before VMLAUNCH. A correct CPU exits at
 * once for the host interrupt (SDM vol. 3C "Other Causes of VM Exits":
 * external interrupts with external-interrupt exiting, whatever RFLAGS.IF)
 * and does not deliver the virtual interrupt (§30.2.1-30.2.2: only with
 * IF = 1 and no STI/MOV-SS blocking, and with lower priority than the
 * external interrupt's VM exit). Bochs 2.7 delivers it (InterruptAcknowledge()
 * prefers a pending virtual interrupt to the VM exit once the host interrupt
 * unmasked the branch) and exits one instruction boundary later, in the
 * handler. Bounded by the VMX-preemption timer ("VMX-Preemption Timer");
 * everything is cleared and freed before the line is printed. */
#include "vmx/vid_selftest.h"
#include "vmx/vmcs.h"
#include "vmx/vmcs_setup.h"
#include "vmx/caps.h"
#include "vmx/ept.h"
#include "vmx/exit_reasons.h"
#include "arch/x86/apic.h"
#include "arch/x86/cpu.h"
#include "arch/x86/time.h"
#include "arch/x86/trap.h"
#include "mm/pmm.h"
#include "memory.h"
#include "lib/string.h"
#include "lib/fmt.h"
#include "errno.h"
#include "log.h"

int vid_selftest_launch(void);   /* vid_selftest_entry.asm */

/* One block: VMCS, virtual-APIC page, guest page, four EPT table pages. */
enum { PG_VMCS, PG_VAPIC, PG_GUEST, PG_EPT, PG_COUNT = PG_EPT + 4 };

struct pool { uint8_t *next, *end; };

static void *pool_page(void *ctx)
{
	struct pool *p = ctx;
	void *pg = p->next < p->end ? p->next : NULL;

	if (pg)
		p->next += PAGE_SIZE;
	return pg;   /* zeroed by page_alloc_zeroed */
}

static paddr_t ident_v2p(void *ctx, void *v)
{
	return (paddr_t)(uintptr_t)v;
}

static void *ident_p2v(void *ctx, paddr_t pa)
{
	return (void *)(uintptr_t)pa;
}

/* Real-mode guest: IVT entry VECTOR -> 0000:HANDLER (VMCALL, then jmp $);
 * at LOOP, where it starts, `1: cli; jmp 1b`. The CLI leaves IF = 0 as it
 * was: it is there for Bochs, which computes its interrupt masks at VM entry
 * as if in root operation (host interrupts masked by IF = 0) and notices
 * that external-interrupt exiting unmasks them only when the guest writes
 * IF (as the Linux guest's `cli` did in the kvm_wait() hang). */
static void guest_code(uint8_t *g)
{
	static const uint8_t handler[] = { 0x0f, 0x01, 0xc1, 0xeb, 0xfe };   /* vmcall; jmp $ */
	static const uint8_t loop[] = { 0xfa, 0xeb, 0xfd };                  /* 1: cli; jmp 1b */
	uint16_t *ivt = (uint16_t *)g;

	_Static_assert(sizeof(handler) <= VID_SELFTEST_HANDLER_LEN, "handler size");
	_Static_assert(sizeof(loop) == VID_SELFTEST_LOOP_LEN, "loop size");
	ivt[VID_SELFTEST_VECTOR * 2] = VID_SELFTEST_HANDLER;   /* offset */
	ivt[VID_SELFTEST_VECTOR * 2 + 1] = 0;                  /* segment */
	memcpy(g + VID_SELFTEST_HANDLER, handler, sizeof(handler));
	memcpy(g + VID_SELFTEST_LOOP, loop, sizeof(loop));
}

/* Controls (each (wanted | must-be-one) & may-be-one, caps.h); the ones
 * the test needs must all be there (SDM §26.2.1.1: VID needs the TPR shadow
 * and external-interrupt exiting; real mode needs unrestricted guest, which
 * needs EPT). */
static const char *controls(uint64_t eptp, uint8_t *vapic)
{
	const struct vmx_caps *c = &vmx_caps;
	uint32_t pin_want = PIN_EXTINT_EXIT | PIN_NMI_EXIT | PIN_PREEMPT_TIMER;
	uint32_t proc_want = PROC_TPR_SHADOW | PROC_SECONDARY | PROC_HLT_EXIT | PROC_UNCOND_IO_EXIT;
	uint32_t proc2_want = PROC2_EPT | PROC2_UNRESTRICTED | PROC2_VIRT_INTR_DELIV;
	uint64_t budget = (tsc_hz ? tsc_hz / 1000 : 1000000) >> c->preempt_timer_shift;
	int err = 0;

	if (!vmx_ctl_has(&c->pin, PIN_PREEMPT_TIMER))
		return "no VMX-preemption timer to bound it";
	if (!vmx_ctl_has(&c->proc, PROC_TPR_SHADOW | PROC_SECONDARY) ||
	    !vmx_ctl_has(&c->proc2, PROC2_VIRT_INTR_DELIV))
		return "no virtual-interrupt delivery";
	if (!vmx_ctl_has(&c->proc2, PROC2_EPT | PROC2_UNRESTRICTED))
		return "no EPT or unrestricted guest for its real-mode guest";
	err |= vmcs_write32(VMCS_PIN_CTLS, vmx_ctl_adjust(&c->pin, pin_want));
	err |= vmcs_write32(VMCS_PROC_CTLS, vmx_ctl_adjust(&c->proc, proc_want));
	err |= vmcs_write32(VMCS_PROC_CTLS2, vmx_ctl_adjust(&c->proc2, proc2_want));
	err |= vmcs_write32(VMCS_EXIT_CTLS, vmx_ctl_adjust(&c->exit, EXIT_HOST_ADDR64 |
							   EXIT_LOAD_EFER | EXIT_LOAD_PAT));
	/* vmcs_guest_entry() reads the entry controls back. */
	err |= vmcs_write32(VMCS_ENTRY_CTLS, vmx_ctl_adjust(&c->entry, ENTRY_LOAD_EFER |
							    ENTRY_LOAD_PAT));
	err |= vmcs_write32(VMCS_EXCEPTION_BITMAP, ~0u);   /* any fault exits, visibly */
	err |= vmcs_write32(VMCS_PF_ERR_MASK, 0);
	err |= vmcs_write32(VMCS_PF_ERR_MATCH, 0);
	err |= vmcs_write32(VMCS_CR3_TARGET_COUNT, 0);
	err |= vmcs_write32(VMCS_EXIT_MSR_STORE_COUNT, 0);
	err |= vmcs_write32(VMCS_EXIT_MSR_LOAD_COUNT, 0);
	err |= vmcs_write32(VMCS_ENTRY_MSR_LOAD_COUNT, 0);
	err |= vmcs_writenat(VMCS_CR0_MASK, 0);
	err |= vmcs_writenat(VMCS_CR4_MASK, 0);
	err |= vmcs_write64(VMCS_LINK_POINTER, ~0ull);
	err |= vmcs_write64(VMCS_EPT_POINTER, eptp);
	err |= vmcs_write64(VMCS_VIRTUAL_APIC_PAGE, (uint64_t)(uintptr_t)vapic);
	err |= vmcs_write32(VMCS_TPR_THRESHOLD, 0);
	for (unsigned i = 0; i < 4; i++)
		err |= vmcs_vmwrite(VMCS_EOI_EXIT_BITMAP0 + 2 * i, 0);
	err |= vmcs_write32(VMCS_PREEMPT_TIMER, budget > 0xffffffffull ? 0xffffffffu :
			    budget ? (uint32_t)budget : 1);
	return err ? "a VMWRITE failed" : NULL;
}

/* The guest's state: real mode at LOOP with IF = 0, RVI = VECTOR in the
 * guest interrupt status and VIRR (§30.1.1), VTPR = 0 so VPPR = 0. */
static int guest_state(uint8_t *vapic)
{
	struct guest_entry ge = {
		.mode = GUEST_MODE_REAL16, .rip = VID_SELFTEST_LOOP, .rsp = 0xff0,
		.rflags = 2, .cr0 = CR0_ET, .gdt_limit = 0xffff,
	};
	unsigned v = VID_SELFTEST_VECTOR;

	vmcs_guest_entry(&ge);
	((uint32_t *)vapic)[(0x200 + (v / 32) * 16) / 4] |= 1u << (v % 32);   /* VIRR */
	return vmcs_write16(VMCS_GUEST_INTR_STATUS, v);
}

static void invept(uint64_t eptp)
{
	struct { uint64_t eptp, rsvd; } __packed desc = { eptp, 0 };
	uint64_t type = (vmx_caps.ept_vpid & EPTCAP_INVEPT_SINGLE) ? 1 : 2;

	if (vmx_caps.ept_vpid & EPTCAP_INVEPT)
		__asm__ volatile("invept %0, %1" : : "m"(desc), "r"(type) : "cc", "memory");
}

/* Enter once with the self-IPI pending; interrupts off throughout, then
 * on for one instruction so the IPI (if the exit did not take it: no
 * "acknowledge interrupt on exit") reaches its host handler (VEC_WAKE:
 * an EOI, main.c) instead of the scheduler's first idle loop. */
static int enter_once(struct vid_selftest_exit *e)
{
	bool was_on = irq_enabled();
	int r;

	irq_disable();
	apic_send_ipi(apic_id(), VEC_WAKE);
	r = vid_selftest_launch();
	if (r == 0) {
		e->reason = vmcs_read32(VMCS_EXIT_REASON);
		e->rip = vmcs_readnat(VMCS_GUEST_RIP);
		e->intr_status = vmcs_read16(VMCS_GUEST_INTR_STATUS);
	} else {
		r = (int)vmcs_read32(VMCS_INSN_ERROR);
	}
	irq_enable();
	__asm__ volatile("nop");
	if (!was_on)
		irq_disable();
	return r;
}

enum vid_selftest_result vid_selftest_run(struct vid_selftest_exit *e, const char **why)
{
	static char msg[64];
	uint8_t *blk = page_alloc_zeroed(PG_COUNT);
	struct pool pool;
	struct ept ept = { .alloc_page = pool_page, .virt_to_phys = ident_v2p,
			   .phys_to_virt = ident_p2v, .ctx = &pool };
	paddr_t vmcs;
	int r;

	memset(e, 0, sizeof(*e));
	*why = NULL;
	if (!blk) {
		*why = "no memory for its pages";
		return VID_SELFTEST_NOT_RUN;
	}
	pool = (struct pool){ blk + PG_EPT * PAGE_SIZE, blk + PG_COUNT * PAGE_SIZE };
	vmcs = (paddr_t)(uintptr_t)(blk + PG_VMCS * PAGE_SIZE);
	*(uint32_t *)(uintptr_t)vmcs = vmx_caps.revision;
	guest_code(blk + PG_GUEST * PAGE_SIZE);
	if (ept_init(&ept) || ept_map(&ept, 0, (paddr_t)(uintptr_t)(blk + PG_GUEST * PAGE_SIZE),
				      PAGE_SIZE, EPT_RWX)) {
		*why = "its EPT could not be built";
	} else if (vmcs_clear(vmcs) || vmcs_load(vmcs)) {
		*why = "VMCLEAR/VMPTRLD of its VMCS failed";
	} else {
		vmcs_host_refresh();
		if (!(*why = controls(ept_pointer(&ept), blk + PG_VAPIC * PAGE_SIZE)) &&
		    guest_state(blk + PG_VAPIC * PAGE_SIZE))
			*why = "a VMWRITE failed";
		if (!*why && (r = enter_once(e))) {
			fmt_snprintf(msg, sizeof(msg), "VMLAUNCH failed, VM-instruction error %d", r);
			*why = msg;
		}
		vmcs_clear(vmcs);   /* no current VMCS is left behind */
		invept(ept_pointer(&ept));   /* its root page may become a VM's EPT root */
	}
	pmm_free_pages((paddr_t)(uintptr_t)blk, PG_COUNT);
	return *why ? VID_SELFTEST_NOT_RUN : vid_selftest_classify(e);
}

bool vid_selftest_gate_at_boot(enum vid_gate_mode mode, const char *skip)
{
	struct vid_selftest_exit e = { 0 };
	enum vid_selftest_result r = VID_SELFTEST_NOT_RUN;
	const char *why = skip;
	bool gate;

	if (mode != VID_GATE_AUTO) {
		gate = vid_selftest_gate(mode, r);
		pr_info("apicv: VID gate %s (apicv_vid_gate=%s, no self-test)\n", gate ? "on" : "off",
			vid_gate_mode_names[mode]);
		return gate;
	}
	if (!why)
		r = vid_selftest_run(&e, &why);
	gate = vid_selftest_gate(mode, r);
	switch (r) {
	case VID_SELFTEST_BUG:
		pr_info("apicv: virtual-interrupt delivery self-test: IF=0 delivery seen "
			"(Bochs 2.7 bug): VID gate %s\n", gate ? "on" : "off");
		break;
	case VID_SELFTEST_CORRECT:
		pr_info("apicv: virtual-interrupt delivery self-test: correct: VID gate %s\n",
			gate ? "on" : "off");
		break;
	case VID_SELFTEST_UNCLEAR:
		pr_warn("apicv: virtual-interrupt delivery self-test: inconclusive (exit reason %#x, "
			"guest rip %#lx, interrupt status %#x): VID gate %s\n", e.reason, e.rip,
			e.intr_status, gate ? "on" : "off");
		return gate;
	default:
		pr_info("apicv: virtual-interrupt delivery self-test not run (%s): VID gate %s\n",
			why, gate ? "on" : "off");
		return gate;
	}
	pr_debug("apicv: self-test exit: reason %#x, guest rip %#lx, interrupt status %#x "
		 "(vector %#x pending with IF=0 at rip %#x)\n", e.reason, e.rip, e.intr_status,
		 VID_SELFTEST_VECTOR, VID_SELFTEST_LOOP);
	return gate;
}
