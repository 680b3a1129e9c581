/* Guest memory access: guest-physical through the VM's RAM block, and guest
 * linear through the guest's own page tables (SDM vol. 3 ch. 5). */
#ifndef HV_VM_GMEM_H
#define HV_VM_GMEM_H
#include "types.h"

struct vm;
struct vcpu;

/* Host pointer for [gpa, gpa+len) if it lies in RAM, else NULL. */
void *gpa_to_hva(struct vm *vm, uint64_t gpa, uint64_t len);

/* Paging state needed to walk the guest's tables. */
struct gpaging {
	uint64_t cr0, cr3, cr4, efer;
	bool user;                 /* the access is made for CPL 3 (checks U/S) */
	bool smap;                 /* a supervisor data access under SMAP: CR4.SMAP
				    * and RFLAGS.AC clear (SDM vol. 3 §5.6.1) */
};
#define X86_CR4_SMAP (1ull << 21)
/* pg->smap for a CPL<3 data access with this CR4 and RFLAGS (AC = bit 18). */
static inline bool gpaging_smap(uint64_t cr4, uint64_t rflags)
{
	return (cr4 & X86_CR4_SMAP) && !(rflags & (1ull << 18));
}
/* The current VMCS's paging state, for a data access at the guest's CPL. */
void guest_paging(struct gpaging *pg);
/* Translate a linear address; returns 0, -EFAULT (not present, a table
 * outside RAM, not canonical) or -EACCES (U/S, R/W or SMAP forbid the access;
 * write = the access is a write). Pure given the RAM block: unit-testable. */
int gwalk(const struct gpaging *pg, const uint8_t *ram, uint64_t ram_size, uint64_t la,
	  bool write, uint64_t *gpa);

/* Guest-physical address of a linear one, by the current VMCS's paging
 * state: 0 or -EFAULT (not mapped). The address may lie outside RAM (MMIO). */
int guest_linear_to_gpa(struct vcpu *v, uint64_t la, bool write, uint64_t *gpa);
/* Copy to/from guest linear memory using the current VMCS's paging state:
 * 0, -ENOENT (a page is not mapped) or -EFAULT (mapped outside RAM). */
int guest_read_linear(struct vcpu *v, uint64_t la, void *buf, size_t n);
int guest_write_linear(struct vcpu *v, uint64_t la, const void *buf, size_t n);

/* Fetch up to max instruction bytes at linear address la, page by page:
 * never writes more than max bytes to buf, whatever the guest's page tables
 * do meanwhile. Returns the number of bytes fetched (a second page that is
 * not mapped shortens the fetch), or, for the first byte's page, -ENOENT
 * (not mapped) or -EFAULT (mapped outside RAM). */
int guest_fetch_insn(struct vcpu *v, uint64_t la, uint8_t *buf, size_t max);
#endif
