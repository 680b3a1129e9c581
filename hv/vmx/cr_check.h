/* Which MOV-to-CR0/CR4 values raise #GP (SDM vol. 3 §2.5, vol. 2 MOV CR):
 * pure, checked before the hypervisor loads a guest's control register. */
#ifndef HV_VMX_CR_CHECK_H
#define HV_VMX_CR_CHECK_H
#include "compiler.h"

#define CRC_CR0_PE  BIT(0)
#define CRC_CR0_NW  BIT(29)
#define CRC_CR0_CD  BIT(30)
#define CRC_CR0_PG  BIT(31)
#define CRC_CR4_PAE BIT(5)
#define CRC_CR4_VMXE BIT(13)
#define CRC_CR4_PCIDE BIT(17)
/* Bit 15 and 26-63 are reserved; VMXE because VMX is not offered. */
#define CRC_CR4_RESERVED (BIT(15) | BIT(13) | ~0x3ffffffull)

/* lma: the guest is in IA-32e mode (EFER.LMA). */
static inline bool cr0_write_ok(uint64_t v, bool lma)
{
	if (v >> 32)
		return false;
	if ((v & CRC_CR0_NW) && !(v & CRC_CR0_CD))
		return false;
	if ((v & CRC_CR0_PG) && !(v & CRC_CR0_PE))
		return false;
	return !(lma && !(v & CRC_CR0_PG));   /* paging off inside IA-32e mode */
}

static inline bool cr4_write_ok(uint64_t v, bool lma)
{
	if (v & CRC_CR4_RESERVED)
		return false;
	if ((v & CRC_CR4_PCIDE) && !lma)   /* PCIDE outside IA-32e mode (SDM MOV CR) */
		return false;
	return !(lma && !(v & CRC_CR4_PAE));
}

/* Setting PG with EFER.LME=1 activates IA-32e mode, which needs CR4.PAE: a
 * MOV to CR0 doing it with PAE clear is #GP (SDM vol. 2 MOV CR, §10.8.5);
 * letting it through would fail the next VM entry. */
static inline bool cr0_pg_enable_ok(uint64_t old, uint64_t v, bool lme, bool pae)
{
	return (old & CRC_CR0_PG) || !(v & CRC_CR0_PG) || !lme || pae;
}

/* The value a guest reads from CR0/CR4 (SDM §25.6.6): bits set in the
 * guest/host mask come from the read shadow, the others (the guest-owned
 * ones: PG, PE, TS, OSXSAVE, PKE, ...) from the guest-state field. The
 * shadow alone is stale for every guest-owned bit. */
static inline uint64_t cr_guest_view(uint64_t hw, uint64_t shadow, uint64_t mask)
{
	return (hw & ~mask) | (shadow & mask);
}

#define CRC_EFER_SCE BIT(0)
#define CRC_EFER_LME BIT(8)
#define CRC_EFER_LMA BIT(10)
#define CRC_EFER_NXE BIT(11)

/* WRMSR IA32_EFER (SDM vol. 4 Table 2-2, vol. 3 §10.8.5): only SCE, LME,
 * NXE (allowed: the bits the guest may set) are writable; LMA is read-only
 * (the written bit is ignored, the current one kept); changing LME while
 * paging is on raises #GP. Returns the new EFER, LMA recomputed as LME && PG,
 * or false in *ok for a #GP. */
static inline uint64_t efer_write_value(uint64_t old, uint64_t val, bool pg, uint64_t allowed,
					bool *ok)
{
	uint64_t nv = val & ~CRC_EFER_LMA;

	*ok = !(nv & ~allowed) && !(pg && ((nv ^ old) & CRC_EFER_LME));
	if (pg && (nv & CRC_EFER_LME))
		nv |= CRC_EFER_LMA;
	return nv;
}
#endif
