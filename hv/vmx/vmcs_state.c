/* The VMCS's host- and guest-state areas (SDM vol. 3 §25.4-25.5): the host
 * state of this pCPU, the guest state of an entry a loader describes or of
 * INIT + SIPI, and CR0/CR4 through their read shadows. Apart from the
 * controls (vmcs_setup.c), which the APIC virtualization extends, since the
 * VID self-test (vid_selftest.c) builds its own VMCS from these. */
#include "vmx/vmcs_setup.h"
#include "vmx/vmcs.h"
#include "vmx/caps.h"
#include "vmx/cr_check.h"
#include "arch/x86/cpu.h"
#include "arch/x86/msr.h"
#include "arch/x86/percpu.h"

extern char vmx_exit_entry[];

void vmcs_host_refresh(void)
{
	struct percpu *p = this_cpu();
	struct { uint16_t limit; uint64_t base; } __packed idtr;

	__asm__ volatile("sidt %0" : "=m"(idtr));
	vmcs_writenat(VMCS_HOST_CR0, read_cr0());
	vmcs_writenat(VMCS_HOST_CR3, read_cr3());
	vmcs_writenat(VMCS_HOST_CR4, read_cr4());
	vmcs_write16(VMCS_HOST_CS_SEL, 0x08);
	vmcs_write16(VMCS_HOST_SS_SEL, 0x10);
	vmcs_write16(VMCS_HOST_DS_SEL, 0x10);
	vmcs_write16(VMCS_HOST_ES_SEL, 0x10);
	vmcs_write16(VMCS_HOST_FS_SEL, 0);
	vmcs_write16(VMCS_HOST_GS_SEL, 0);
	vmcs_write16(VMCS_HOST_TR_SEL, 0x18);
	vmcs_writenat(VMCS_HOST_FS_BASE, 0);
	vmcs_writenat(VMCS_HOST_GS_BASE, (uint64_t)p);
	vmcs_writenat(VMCS_HOST_TR_BASE, (uint64_t)&p->tss);
	vmcs_writenat(VMCS_HOST_GDTR_BASE, (uint64_t)p->gdt);
	vmcs_writenat(VMCS_HOST_IDTR_BASE, idtr.base);
	vmcs_write32(VMCS_HOST_SYSENTER_CS, 0);
	vmcs_writenat(VMCS_HOST_SYSENTER_ESP, 0);
	vmcs_writenat(VMCS_HOST_SYSENTER_EIP, 0);
	vmcs_write64(VMCS_HOST_EFER, rdmsr(MSR_IA32_EFER));
	vmcs_write64(VMCS_HOST_PAT, rdmsr(MSR_IA32_PAT));
	vmcs_writenat(VMCS_HOST_RIP, (uint64_t)vmx_exit_entry);
}

/* Segment access rights (SDM §25.4.1, Table 25-2). */
#define AR_CODE16  0x009b
#define AR_DATA16  0x0093
#define AR_CODE32  0xc09b
#define AR_DATA32  0xc093
#define AR_CODE64  0xa09b
#define AR_TSS     0x008b
#define AR_LDT_UNUSABLE 0x10000

static void set_seg(unsigned sel_field, uint16_t sel, uint64_t base, uint32_t limit, uint32_t ar)
{
	/* Selector, limit, AR and base fields are laid out at fixed strides. */
	unsigned i = (sel_field - VMCS_GUEST_ES_SEL) / 2;
	vmcs_vmwrite(VMCS_GUEST_ES_SEL + 2 * i, sel);
	vmcs_vmwrite(VMCS_GUEST_ES_LIMIT + 2 * i, limit);
	vmcs_vmwrite(VMCS_GUEST_ES_AR + 2 * i, ar);
	vmcs_vmwrite(VMCS_GUEST_ES_BASE + 2 * i, base);
}

static void guest_common(void)
{
	set_seg(VMCS_GUEST_LDTR_SEL, 0, 0, 0, AR_LDT_UNUSABLE);
	set_seg(VMCS_GUEST_TR_SEL, 0, 0, 0xffff, AR_TSS);
	vmcs_writenat(VMCS_GUEST_IDTR_BASE, 0);
	vmcs_write32(VMCS_GUEST_IDTR_LIMIT, 0xffff);
	vmcs_writenat(VMCS_GUEST_DR7, 0x400);
	vmcs_write64(VMCS_GUEST_DEBUGCTL, 0);
	vmcs_write64(VMCS_GUEST_PAT, 0x0007040600070406ull);   /* power-on PAT */
	vmcs_write32(VMCS_GUEST_INTERRUPTIBILITY, 0);
	vmcs_write32(VMCS_GUEST_ACTIVITY, ACTIVITY_ACTIVE);
	vmcs_writenat(VMCS_GUEST_PENDING_DBG, 0);
	vmcs_write32(VMCS_GUEST_SYSENTER_CS, 0);
	vmcs_writenat(VMCS_GUEST_SYSENTER_ESP, 0);
	vmcs_writenat(VMCS_GUEST_SYSENTER_EIP, 0);
	vmcs_write32(VMCS_ENTRY_INTR_INFO, 0);
}

void vmcs_guest_set_cr0(uint64_t val)
{
	uint64_t hw = (val | vmx_caps.cr0_fixed0) & vmx_caps.cr0_fixed1;

	/* Unrestricted guest lets PE and PG follow the guest (§26.3.1.1). */
	hw = (hw & ~(CR0_PE | CR0_PG)) | (val & (CR0_PE | CR0_PG));
	hw &= ~(CR0_CD | CR0_NW);   /* caching stays on under the guest */
	vmcs_writenat(VMCS_GUEST_CR0, hw);
	vmcs_writenat(VMCS_CR0_SHADOW, val);
}

uint64_t vmcs_guest_cr0(void)
{
	return cr_guest_view(vmcs_readnat(VMCS_GUEST_CR0), vmcs_readnat(VMCS_CR0_SHADOW),
			     VMCS_CR0_HOST_OWNED);
}

uint64_t vmcs_guest_cr4(void)
{
	return cr_guest_view(vmcs_readnat(VMCS_GUEST_CR4), vmcs_readnat(VMCS_CR4_SHADOW),
			     VMCS_CR4_HOST_OWNED);
}

void vmcs_guest_set_cr4(uint64_t val)
{
	vmcs_writenat(VMCS_GUEST_CR4, (val | vmx_caps.cr4_fixed0) & vmx_caps.cr4_fixed1);
	vmcs_writenat(VMCS_CR4_SHADOW, val);
}

void vmcs_guest_entry(const struct guest_entry *e)
{
	bool lm = e->mode == GUEST_MODE_LONG64;
	uint32_t code = e->mode == GUEST_MODE_REAL16 ? AR_CODE16 : lm ? AR_CODE64 : AR_CODE32;
	uint32_t data = e->mode == GUEST_MODE_REAL16 ? AR_DATA16 : AR_DATA32;
	uint32_t lim = e->mode == GUEST_MODE_REAL16 ? 0xffff : 0xffffffff;
	uint32_t entry = vmcs_read32(VMCS_ENTRY_CTLS);

	guest_common();
	set_seg(VMCS_GUEST_CS_SEL, e->cs, 0, lim, code);
	for (unsigned f = VMCS_GUEST_ES_SEL; f <= VMCS_GUEST_GS_SEL; f += 2)
		if (f != VMCS_GUEST_CS_SEL)
			set_seg(f, e->ds, 0, lim, data);
	vmcs_writenat(VMCS_GUEST_GDTR_BASE, e->gdt_base);
	vmcs_write32(VMCS_GUEST_GDTR_LIMIT, e->gdt_limit);
	vmcs_guest_set_cr0(e->cr0 | CR0_ET);
	vmcs_guest_set_cr4(e->cr4);
	vmcs_writenat(VMCS_GUEST_CR3, e->cr3);
	vmcs_write64(VMCS_GUEST_EFER, e->efer);
	vmcs_write32(VMCS_ENTRY_CTLS, lm ? entry | ENTRY_IA32E_GUEST : entry & ~ENTRY_IA32E_GUEST);
	vmcs_writenat(VMCS_GUEST_RIP, e->rip);
	vmcs_writenat(VMCS_GUEST_RSP, e->rsp);
	vmcs_writenat(VMCS_GUEST_RFLAGS, e->rflags | 2);
}

void vmcs_guest_sipi(uint8_t vector)
{
	struct guest_entry e = {
		.mode = GUEST_MODE_REAL16, .rip = 0, .cr0 = CR0_ET, .rflags = 2,
		.gdt_limit = 0xffff,
	};

	vmcs_guest_entry(&e);
	/* CS = vector << 8, base vector << 12 (§9.4.4.2); data segments base 0. */
	set_seg(VMCS_GUEST_CS_SEL, (uint16_t)(vector << 8), (uint64_t)vector << 12, 0xffff,
		AR_CODE16);
}
