/* VMX instruction wrappers with checked results (SDM vol. 3 §31.2: VMfailInvalid
 * sets CF, VMfailValid sets ZF and leaves the error in VMCS_INSN_ERROR). */
#include "vmx/vmcs.h"
#include "log.h"

static int vmx_result(uint8_t cf, uint8_t zf)
{
	if (cf)
		return -1;
	if (zf)
		return (int)vmcs_vmread(VMCS_INSN_ERROR);
	return 0;
}

/* Slow half of the inline VMWRITE: with no current VMCS (VMfailInvalid) the
 * VMREAD of the error field fails too (CF); else it holds the error. */
int vmcs_vmwrite_failed(void)
{
	uint64_t err = 0;
	uint8_t cf;

	__asm__ volatile("vmread %2, %0; setc %1"
			 : "+r"(err), "=q"(cf) : "r"((unsigned long)VMCS_INSN_ERROR) : "cc");
	return cf ? -1 : (int)err;
}

int vmcs_clear(paddr_t pa)
{
	uint8_t cf, zf;

	__asm__ volatile("vmclear %2; setc %0; setz %1" : "=q"(cf), "=q"(zf) : "m"(pa) : "cc", "memory");
	return vmx_result(cf, zf);
}

int vmcs_load(paddr_t pa)
{
	uint8_t cf, zf;

	__asm__ volatile("vmptrld %2; setc %0; setz %1" : "=q"(cf), "=q"(zf) : "m"(pa) : "cc", "memory");
	return vmx_result(cf, zf);
}

void vmcs_write_failed(unsigned long field, uint64_t v, int err)
{
	pr_err("vmx: VMWRITE field %#lx value %#lx failed: VM-instruction error %d\n",
	       field, v, err);
}

void vmcs_dump(void)
{
	static const struct { const char *name; unsigned long f; } fields[] = {
		{ "exit reason", VMCS_EXIT_REASON }, { "qualification", VMCS_EXIT_QUAL },
		{ "guest RIP", VMCS_GUEST_RIP }, { "guest RSP", VMCS_GUEST_RSP },
		{ "guest RFLAGS", VMCS_GUEST_RFLAGS }, { "guest CR0", VMCS_GUEST_CR0 },
		{ "guest CR3", VMCS_GUEST_CR3 }, { "guest CR4", VMCS_GUEST_CR4 },
		{ "guest EFER", VMCS_GUEST_EFER }, { "guest CS sel", VMCS_GUEST_CS_SEL },
		{ "guest CS base", VMCS_GUEST_CS_BASE }, { "guest CS AR", VMCS_GUEST_CS_AR },
		{ "guest phys addr", VMCS_GUEST_PHYS_ADDR }, { "guest linear", VMCS_GUEST_LINEAR_ADDR },
		{ "intr info", VMCS_EXIT_INTR_INFO }, { "IDT vectoring", VMCS_IDT_VECT_INFO },
		{ "interruptibility", VMCS_GUEST_INTERRUPTIBILITY },
		{ "activity", VMCS_GUEST_ACTIVITY }, { "insn error", VMCS_INSN_ERROR },
	};
	for (unsigned i = 0; i < ARRAY_SIZE(fields); i++)
		pr_err("  vmcs %-16s = %#lx\n", fields[i].name, vmcs_vmread(fields[i].f));
}
