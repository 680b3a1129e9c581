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
#endif
