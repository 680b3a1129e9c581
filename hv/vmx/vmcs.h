/* VMCS field encodings (SDM vol. 3 App. B) and width-typed accessors: the
 * width in encoding bits 14:13 is checked at compile time, every VMX
 * instruction's failure is reported with the VM-instruction error. */
#ifndef HV_VMX_VMCS_H
#define HV_VMX_VMCS_H
#include "compiler.h"

enum vmcs_field {
	/* 16-bit (B.1) */
	VMCS_VPID = 0x0000, VMCS_POSTED_INTR_NV = 0x0002,
	VMCS_GUEST_ES_SEL = 0x0800, VMCS_GUEST_CS_SEL = 0x0802, VMCS_GUEST_SS_SEL = 0x0804,
	VMCS_GUEST_DS_SEL = 0x0806, VMCS_GUEST_FS_SEL = 0x0808, VMCS_GUEST_GS_SEL = 0x080a,
	VMCS_GUEST_LDTR_SEL = 0x080c, VMCS_GUEST_TR_SEL = 0x080e, VMCS_GUEST_INTR_STATUS = 0x0810,
	VMCS_HOST_ES_SEL = 0x0c00, VMCS_HOST_CS_SEL = 0x0c02, VMCS_HOST_SS_SEL = 0x0c04,
	VMCS_HOST_DS_SEL = 0x0c06, VMCS_HOST_FS_SEL = 0x0c08, VMCS_HOST_GS_SEL = 0x0c0a,
	VMCS_HOST_TR_SEL = 0x0c0c,
	/* 64-bit (B.2) */
	VMCS_IO_BITMAP_A = 0x2000, VMCS_IO_BITMAP_B = 0x2002, VMCS_MSR_BITMAP = 0x2004,
	VMCS_EXIT_MSR_STORE = 0x2006, VMCS_EXIT_MSR_LOAD = 0x2008, VMCS_ENTRY_MSR_LOAD = 0x200a,
	VMCS_TSC_OFFSET = 0x2010, VMCS_VIRTUAL_APIC_PAGE = 0x2012, VMCS_APIC_ACCESS_PAGE = 0x2014,
	VMCS_POSTED_INTR_DESC = 0x2016, VMCS_EPT_POINTER = 0x201a,
	VMCS_EOI_EXIT_BITMAP0 = 0x201c, VMCS_EOI_EXIT_BITMAP1 = 0x201e,
	VMCS_EOI_EXIT_BITMAP2 = 0x2020, VMCS_EOI_EXIT_BITMAP3 = 0x2022,
	VMCS_GUEST_PHYS_ADDR = 0x2400,
	VMCS_LINK_POINTER = 0x2800, VMCS_GUEST_DEBUGCTL = 0x2802, VMCS_GUEST_PAT = 0x2804,
	VMCS_GUEST_EFER = 0x2806, VMCS_GUEST_PERF_GLOBAL_CTRL = 0x2808,
	VMCS_GUEST_PDPTE0 = 0x280a, VMCS_GUEST_PDPTE1 = 0x280c, VMCS_GUEST_PDPTE2 = 0x280e,
	VMCS_GUEST_PDPTE3 = 0x2810,
	VMCS_HOST_PAT = 0x2c00, VMCS_HOST_EFER = 0x2c02, VMCS_HOST_PERF_GLOBAL_CTRL = 0x2c04,
	/* 32-bit (B.3) */
	VMCS_PIN_CTLS = 0x4000, VMCS_PROC_CTLS = 0x4002, VMCS_EXCEPTION_BITMAP = 0x4004,
	VMCS_PF_ERR_MASK = 0x4006, VMCS_PF_ERR_MATCH = 0x4008, VMCS_CR3_TARGET_COUNT = 0x400a,
	VMCS_EXIT_CTLS = 0x400c, VMCS_EXIT_MSR_STORE_COUNT = 0x400e,
	VMCS_EXIT_MSR_LOAD_COUNT = 0x4010, VMCS_ENTRY_CTLS = 0x4012,
	VMCS_ENTRY_MSR_LOAD_COUNT = 0x4014, VMCS_ENTRY_INTR_INFO = 0x4016,
	VMCS_ENTRY_EXC_ERR = 0x4018, VMCS_ENTRY_INSN_LEN = 0x401a, VMCS_TPR_THRESHOLD = 0x401c,
	VMCS_PROC_CTLS2 = 0x401e, VMCS_PLE_GAP = 0x4020, VMCS_PLE_WINDOW = 0x4022,
	VMCS_INSN_ERROR = 0x4400, VMCS_EXIT_REASON = 0x4402, VMCS_EXIT_INTR_INFO = 0x4404,
	VMCS_EXIT_INTR_ERR = 0x4406, VMCS_IDT_VECT_INFO = 0x4408, VMCS_IDT_VECT_ERR = 0x440a,
	VMCS_EXIT_INSN_LEN = 0x440c, VMCS_EXIT_INSN_INFO = 0x440e,
	VMCS_GUEST_ES_LIMIT = 0x4800, VMCS_GUEST_CS_LIMIT = 0x4802, VMCS_GUEST_SS_LIMIT = 0x4804,
	VMCS_GUEST_DS_LIMIT = 0x4806, VMCS_GUEST_FS_LIMIT = 0x4808, VMCS_GUEST_GS_LIMIT = 0x480a,
	VMCS_GUEST_LDTR_LIMIT = 0x480c, VMCS_GUEST_TR_LIMIT = 0x480e,
	VMCS_GUEST_GDTR_LIMIT = 0x4810, VMCS_GUEST_IDTR_LIMIT = 0x4812,
	VMCS_GUEST_ES_AR = 0x4814, VMCS_GUEST_CS_AR = 0x4816, VMCS_GUEST_SS_AR = 0x4818,
	VMCS_GUEST_DS_AR = 0x481a, VMCS_GUEST_FS_AR = 0x481c, VMCS_GUEST_GS_AR = 0x481e,
	VMCS_GUEST_LDTR_AR = 0x4820, VMCS_GUEST_TR_AR = 0x4822,
	VMCS_GUEST_INTERRUPTIBILITY = 0x4824, VMCS_GUEST_ACTIVITY = 0x4826,
	VMCS_GUEST_SMBASE = 0x4828, VMCS_GUEST_SYSENTER_CS = 0x482a,
	VMCS_PREEMPT_TIMER = 0x482e,
	VMCS_HOST_SYSENTER_CS = 0x4c00,
	/* natural width (B.4) */
	VMCS_CR0_MASK = 0x6000, VMCS_CR4_MASK = 0x6002, VMCS_CR0_SHADOW = 0x6004,
	VMCS_CR4_SHADOW = 0x6006,
	VMCS_EXIT_QUAL = 0x6400, VMCS_GUEST_LINEAR_ADDR = 0x640a,
	VMCS_GUEST_CR0 = 0x6800, VMCS_GUEST_CR3 = 0x6802, VMCS_GUEST_CR4 = 0x6804,
	VMCS_GUEST_ES_BASE = 0x6806, VMCS_GUEST_CS_BASE = 0x6808, VMCS_GUEST_SS_BASE = 0x680a,
	VMCS_GUEST_DS_BASE = 0x680c, VMCS_GUEST_FS_BASE = 0x680e, VMCS_GUEST_GS_BASE = 0x6810,
	VMCS_GUEST_LDTR_BASE = 0x6812, VMCS_GUEST_TR_BASE = 0x6814,
	VMCS_GUEST_GDTR_BASE = 0x6816, VMCS_GUEST_IDTR_BASE = 0x6818,
	VMCS_GUEST_DR7 = 0x681a, VMCS_GUEST_RSP = 0x681c, VMCS_GUEST_RIP = 0x681e,
	VMCS_GUEST_RFLAGS = 0x6820, VMCS_GUEST_PENDING_DBG = 0x6822,
	VMCS_GUEST_SYSENTER_ESP = 0x6824, VMCS_GUEST_SYSENTER_EIP = 0x6826,
	VMCS_HOST_CR0 = 0x6c00, VMCS_HOST_CR3 = 0x6c02, VMCS_HOST_CR4 = 0x6c04,
	VMCS_HOST_FS_BASE = 0x6c06, VMCS_HOST_GS_BASE = 0x6c08, VMCS_HOST_TR_BASE = 0x6c0a,
	VMCS_HOST_GDTR_BASE = 0x6c0c, VMCS_HOST_IDTR_BASE = 0x6c0e,
	VMCS_HOST_SYSENTER_ESP = 0x6c10, VMCS_HOST_SYSENTER_EIP = 0x6c12,
	VMCS_HOST_RSP = 0x6c14, VMCS_HOST_RIP = 0x6c16,
};

#define VMCS_WIDTH(f) (((f) >> 13) & 3)
enum { VMCS_W16 = 0, VMCS_W64 = 1, VMCS_W32 = 2, VMCS_WNAT = 3 };

/* Raw accessors: return 0, or the VM-instruction error (>0), or -1 for
 * VMfailInvalid. Inline: they sit on every exit path (each instruction
 * counts in Bochs's cycle figures). */
#ifdef HV_HOST
int vmcs_vmwrite(unsigned long field, uint64_t v);
uint64_t vmcs_vmread(unsigned long field);
#else
int vmcs_vmwrite_failed(void);
/* No status check: every field read on the exit path exists (a failed
 * VMREAD would be a hypervisor bug, not something a guest can cause). */
static inline uint64_t vmcs_vmread(unsigned long field)
{
	uint64_t v;

	__asm__ volatile("vmread %1, %0" : "=r"(v) : "r"(field) : "cc");
	return v;
}

/* VMfailInvalid (CF) and VMfailValid (ZF) both branch out (JBE, §31.2);
 * vmcs_vmwrite_failed() tells them apart. */
static inline int vmcs_vmwrite(unsigned long field, uint64_t v)
{
	__asm__ goto("vmwrite %0, %1\n\tjbe %l[failed]"
		     : : "rm"(v), "r"(field) : "cc", "memory" : failed);
	return 0;
failed:
	return vmcs_vmwrite_failed();
}
#endif
int vmcs_clear(paddr_t pa);
int vmcs_load(paddr_t pa);
/* Failure hook: log the field, value and VM-instruction error (SDM §31.4). */
void vmcs_write_failed(unsigned long field, uint64_t v, int err);

#define VMCS__WRITE(W, f, v) ({ \
	_Static_assert(VMCS_WIDTH(f) == (W), "VMCS field width mismatch"); \
	int __e = vmcs_vmwrite((f), (uint64_t)(v)); \
	if (unlikely(__e)) \
		vmcs_write_failed((f), (uint64_t)(v), __e); \
	__e; })
#define VMCS__READ(W, T, f) ({ \
	_Static_assert(VMCS_WIDTH(f) == (W), "VMCS field width mismatch"); \
	(T)vmcs_vmread(f); })

#define vmcs_write16(f, v)  VMCS__WRITE(VMCS_W16, f, v)
#define vmcs_write32(f, v)  VMCS__WRITE(VMCS_W32, f, v)
#define vmcs_write64(f, v)  VMCS__WRITE(VMCS_W64, f, v)
#define vmcs_writenat(f, v) VMCS__WRITE(VMCS_WNAT, f, v)
#define vmcs_read16(f)      VMCS__READ(VMCS_W16, uint16_t, f)
#define vmcs_read32(f)      VMCS__READ(VMCS_W32, uint32_t, f)
#define vmcs_read64(f)      VMCS__READ(VMCS_W64, uint64_t, f)
#define vmcs_readnat(f)     VMCS__READ(VMCS_WNAT, uint64_t, f)

/* Interruption information (SDM §25.8.3, §26.2.1.2). */
#define INTR_INFO_VALID       BIT(31)
#define INTR_INFO_ERR_VALID   BIT(11)
#define INTR_TYPE_EXT         (0u << 8)
#define INTR_TYPE_NMI         (2u << 8)
#define INTR_TYPE_HW_EXC      (3u << 8)
#define INTR_TYPE_SW_INT      (4u << 8)
#define INTR_TYPE_PRIV_SW_EXC (5u << 8)
#define INTR_TYPE_SW_EXC      (6u << 8)

/* Guest interruptibility (SDM §25.4.2, Table 25-3). */
#define INTERRUPTIBILITY_STI     BIT(0)
#define INTERRUPTIBILITY_MOVSS   BIT(1)
#define INTERRUPTIBILITY_NMI     BIT(3)
/* Activity states (SDM §25.4.2). */
#define ACTIVITY_ACTIVE   0
#define ACTIVITY_HLT      1
#define ACTIVITY_SHUTDOWN 2
#define ACTIVITY_WAIT_SIPI 3

void vmcs_dump(void);
#endif
