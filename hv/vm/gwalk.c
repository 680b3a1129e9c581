/* Guest page-table walk for the three paging modes (SDM vol. 3 §5.3-§5.5):
 * 32-bit (with 4 MiB pages under CR4.PSE), PAE and 4-level. Pure C. */
#include "vm/gmem.h"
#include "compiler.h"
#include "errno.h"

#define PG_P   BIT(0)
#define PG_W   BIT(1)
#define PG_U   BIT(2)
#define X_CR0_WP  BIT(16)
#define PG_PS  BIT(7)
#define X_CR0_PG  BIT(31)
#define X_CR4_PSE BIT(4)
#define X_CR4_PAE BIT(5)
#define X_EFER_LMA BIT(10)
#define ADDR_MASK 0x000ffffffffff000ull

/* One paging-structure entry of w (4 or 8) bytes, read with one load as the
 * CPU reads it (an entry another vCPU rewrites meanwhile is seen old or new,
 * never torn; x86 is little-endian). A byte loop here cost ~35 instructions
 * per level on every MMIO exit (make bench-exits, apicv=off rows). */
static int rd(const uint8_t *ram, uint64_t size, uint64_t gpa, unsigned w, uint64_t *v)
{
	if (gpa + w > size || gpa + w < gpa)
		return -EFAULT;
	if (w == 8) {
		uint64_t e;

		__builtin_memcpy(&e, ram + gpa, 8);
		*v = e;
	} else {
		uint32_t e;

		__builtin_memcpy(&e, ram + gpa, 4);
		*v = e;
	}
	return 0;
}

/* acc: the R/W and U/S bits ANDed over every level (SDM vol. 3 §5.6). */
static int walk32(const struct gpaging *pg, const uint8_t *ram, uint64_t size, uint64_t la,
		  uint64_t *gpa, uint64_t *acc)
{
	uint64_t pde, pte;

	if (rd(ram, size, (pg->cr3 & 0xfffff000) + ((la >> 22) & 0x3ff) * 4, 4, &pde) ||
	    !(pde & PG_P))
		return -EFAULT;
	*acc &= pde;
	if ((pde & PG_PS) && (pg->cr4 & X_CR4_PSE)) {
		/* 4 MiB page; bits 20:13 give physical address bits 39:32 (§5.3). */
		*gpa = (pde & 0xffc00000) | ((pde & 0x1fe000) << 19) | (la & 0x3fffff);
		return 0;
	}
	if (rd(ram, size, (pde & 0xfffff000) + ((la >> 12) & 0x3ff) * 4, 4, &pte) ||
	    !(pte & PG_P))
		return -EFAULT;
	*acc &= pte;
	*gpa = (pte & 0xfffff000) | (la & 0xfff);
	return 0;
}

static int walk_long(const struct gpaging *pg, const uint8_t *ram, uint64_t size, uint64_t la,
		     uint64_t *gpa, uint64_t *acc)
{
	bool lm = pg->efer & X_EFER_LMA;
	int level = lm ? 3 : 2;     /* 3 = PML4, 2 = PDPT, 1 = PD, 0 = PT */
	uint64_t table = lm ? pg->cr3 & ADDR_MASK : pg->cr3 & 0xffffffe0;
	uint64_t e;

	if (!lm) {
		/* PAE: the PDPTE is selected by bits 31:30 from a 32-byte table. */
		if (rd(ram, size, table + ((la >> 30) & 3) * 8, 8, &e) || !(e & PG_P))
			return -EFAULT;
		table = e & ADDR_MASK;
		level = 1;
	}
	if (lm && (int64_t)(la << 16) >> 16 != (int64_t)la)
		return -EFAULT;   /* not canonical: no translation (#GP for the CPU) */
	for (; level >= 0; level--) {
		unsigned shift = 12 + 9 * (unsigned)level;
		if (rd(ram, size, table + ((la >> shift) & 511) * 8, 8, &e) || !(e & PG_P))
			return -EFAULT;
		*acc &= e;   /* PAE PDPTEs have no R/W, U/S: not ANDed (read above) */
		if (level == 0 || (level <= 2 && (e & PG_PS))) {
			uint64_t span = 1ull << shift;
			*gpa = (e & ADDR_MASK & ~(span - 1)) | (la & (span - 1));
			return 0;
		}
		table = e & ADDR_MASK;
	}
	return -EFAULT;
}

int gwalk(const struct gpaging *pg, const uint8_t *ram, uint64_t ram_size, uint64_t la,
	  bool write, uint64_t *gpa)
{
	uint64_t acc = PG_W | PG_U;
	int r;

	if (!(pg->cr0 & X_CR0_PG)) {
		*gpa = la & 0xffffffffull;
		return 0;
	}
	if (!(pg->cr4 & X_CR4_PAE))
		r = walk32(pg, ram, ram_size, la & 0xffffffffull, gpa, &acc);
	else
		r = walk_long(pg, ram, ram_size, la, gpa, &acc);
	if (r)
		return r;
	/* Access rights (SDM vol. 3 §5.6): a user access needs U/S at every
	 * level; a write needs R/W at every level if it is a user write or
	 * CR0.WP is set. What the guest's CPL could not touch, the hypervisor
	 * does not touch for it (a CPL-3 hypercall buffer, a CPL-3 REP INS). */
	if (pg->user && !(acc & PG_U))
		return -EACCES;
	if (write && (pg->user || (pg->cr0 & X_CR0_WP)) && !(acc & PG_W))
		return -EACCES;
	/* SMAP (§5.6.1): a supervisor data access to a user page with
	 * CR4.SMAP set and RFLAGS.AC clear faults (REP INS/OUTS, MOVS on
	 * MMIO, hypercall buffers of a CPL-0 caller). */
	if (pg->smap && !pg->user && (acc & PG_U))
		return -EACCES;
	return 0;
}
