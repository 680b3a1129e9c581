/* Segmentation of the memory operands the hypervisor emulates for a guest
 * (REP INS/OUTS, MOVS/STOS/LODS on MMIO): the linear address and the limit
 * and type checks the CPU makes (SDM vol. 3 §5.3 limit checking, §3.4.5.1
 * descriptor types, §5.4.1 null selectors; vol. 1 §3.4.2.1 64-bit bases).
 * Pure: the caller reads the segment's cached base, limit and access rights
 * from the VMCS once per exit (vmx/seg.c); unit test test_seg_check. */
#ifndef HV_VMX_SEG_CHECK_H
#define HV_VMX_SEG_CHECK_H
#include "types.h"
#include "compiler.h"
#include "vmx/decode.h"
#include "arch/x86/exc.h"

/* VMCS guest-segment access-rights format (SDM vol. 3 §25.4.1 Table 25-2):
 * the descriptor's type, S, DPL, P, AVL, L, D/B, G, plus "unusable". */
#define SEG_AR_TYPE(ar)    ((ar) & 0xfu)
#define SEG_AR_S           BIT(4)      /* code or data (not system) */
#define SEG_AR_DB          BIT(14)
#define SEG_AR_UNUSABLE    BIT(16)     /* null selector loaded (§25.4.1) */
#define SEG_TYPE_CODE      BIT(3)
#define SEG_TYPE_DATA_W    BIT(1)      /* data: writable */
#define SEG_TYPE_CODE_R    BIT(1)      /* code: readable */
#define SEG_TYPE_DATA_DOWN BIT(2)      /* data: expand-down */

enum seg_mode {
	SEG_MODE_REAL,   /* real or virtual-8086 mode: limit checks only */
	SEG_MODE_PROT,   /* protected or compatibility mode: limit and type */
	SEG_MODE_64,     /* 64-bit mode: no checks, base 0 but FS/GS */
};

struct seg_view {
	uint64_t base;
	uint32_t limit;          /* byte granular (the VMCS field is scaled) */
	uint32_t ar;             /* VMCS access-rights format */
	uint8_t seg;             /* SEG_ES .. SEG_GS (decode.h) */
	uint8_t mode;            /* enum seg_mode */
};

/* Linear address of an access of size bytes (1..8) at offset off (already
 * truncated to the address size) through segment s; write: the access is a
 * write. Returns 0 with *la set, or the vector of the fault the CPU raises,
 * with error code 0: X86_EXC_SS for SS, X86_EXC_GP for the others. */
static inline int seg_linear(const struct seg_view *s, uint64_t off, unsigned size, bool write,
			     uint64_t *la)
{
	unsigned type = SEG_AR_TYPE(s->ar);
	int fault = s->seg == SEG_SS ? X86_EXC_SS : X86_EXC_GP;
	uint64_t last = off + size - 1, upper = s->limit;

	if (s->mode == SEG_MODE_64) {
		*la = (s->seg == SEG_FS || s->seg == SEG_GS ? s->base : 0) + off;
		return 0;
	}
	if (s->mode == SEG_MODE_PROT) {
		/* A null selector makes the register unusable: any access
		 * through it faults (§5.4.1). A code segment is never
		 * writable and readable only with R; a data segment is
		 * writable only with W (§3.4.5.1, MOVS/INS "#GP(0) if the
		 * destination is located in a non-writable segment"). */
		if ((s->ar & SEG_AR_UNUSABLE) || !(s->ar & SEG_AR_S))
			return fault;
		if (type & SEG_TYPE_CODE) {
			if (write || !(type & SEG_TYPE_CODE_R))
				return fault;
		} else if (write && !(type & SEG_TYPE_DATA_W)) {
			return fault;
		}
	}
	if (!(type & SEG_TYPE_CODE) && (type & SEG_TYPE_DATA_DOWN)) {
		/* Expand-down (§5.3): valid offsets are limit+1 up to 0xFFFF
		 * or, with B set, 0xFFFFFFFF. */
		if (off <= s->limit)
			return fault;
		upper = (s->ar & SEG_AR_DB) ? 0xffffffffull : 0xffff;
	}
	/* Every byte of the access lies within the limit. A 4 GiB segment
	 * wraps at 2^32 instead (as KVM's emulator treats it). */
	if (upper != 0xffffffffull && last > upper)
		return fault;
	*la = (s->base + off) & 0xffffffffull;
	return 0;
}

/* vmx/seg.c: segment seg (SEG_ES .. SEG_GS) of the current VMCS's guest
 * state, with the mode from CR0.PE, RFLAGS.VM, EFER.LMA and CS.L. */
void seg_view_read(unsigned seg, struct seg_view *s);
#endif
