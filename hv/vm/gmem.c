/* Guest memory copies through the current VMCS's paging state. */
#include "vm/gmem.h"
#include "vm/vm.h"
#include "vmx/vmcs.h"
#include "vmx/vcpu_state.h"
#include "lib/string.h"
#include "errno.h"

void *gpa_to_hva(struct vm *vm, uint64_t gpa, uint64_t len)
{
	if (gpa >= vm->ram_size || len > vm->ram_size - gpa)
		return NULL;
	return vm->ram + gpa;
}

void guest_paging(struct gpaging *pg)
{
	pg->cr0 = vmx_guest_cr0();
	pg->cr3 = vmx_guest_cr3();
	pg->cr4 = vmx_guest_cr4();
	pg->efer = vmx_guest_efer();
	pg->user = vmx_guest_cpl() == 3;   /* CPL = SS.DPL */
	/* RFLAGS only read under CR4.SMAP: no extra VMREAD on the MMIO path
	 * of a guest without SMAP (make bench-exits). */
	pg->smap = !pg->user && (pg->cr4 & X86_CR4_SMAP) &&
		   gpaging_smap(pg->cr4, vmx_guest_rflags());
}

int guest_linear_to_gpa(struct vcpu *v, uint64_t la, bool write, uint64_t *gpa)
{
	struct gpaging pg;

	guest_paging(&pg);
	return gwalk(&pg, v->vm->ram, v->vm->ram_size, la, write, gpa);
}

/* fetch: an instruction fetch, not subject to SMAP. */
static int copy_linear(struct vcpu *v, uint64_t la, void *buf, size_t n, bool write, bool fetch)
{
	struct gpaging pg;
	uint8_t *b = buf;

	guest_paging(&pg);
	if (fetch)
		pg.smap = false;
	while (n) {
		size_t chunk = MIN(n, (size_t)(PAGE_SIZE - (la & (PAGE_SIZE - 1))));
		uint64_t gpa;
		uint8_t *h;

		if (gwalk(&pg, v->vm->ram, v->vm->ram_size, la, write, &gpa))
			return -ENOENT;   /* not mapped or not allowed: the guest's #PF */
		if (!(h = gpa_to_hva(v->vm, gpa, chunk)))
			return -EFAULT;   /* mapped outside RAM */
		write ? memcpy(h, b, chunk) : memcpy(b, h, chunk);
		la += chunk;
		b += chunk;
		n -= chunk;
	}
	return 0;
}

/* Bytes of [la, la+max) that lie on la's page. */
static size_t fetch_first_chunk(uint64_t la, size_t max)
{
	return MIN(max, (size_t)(PAGE_SIZE - (la & (PAGE_SIZE - 1))));
}

int guest_read_linear(struct vcpu *v, uint64_t la, void *buf, size_t n)
{
	return copy_linear(v, la, buf, n, false, false);
}

int guest_write_linear(struct vcpu *v, uint64_t la, const void *buf, size_t n)
{
	return copy_linear(v, la, (void *)buf, n, true, false);
}

int guest_fetch_insn(struct vcpu *v, uint64_t la, uint8_t *buf, size_t max)
{
	size_t first = fetch_first_chunk(la, max);

	/* Each copy is bounded by max on its own: a page that a sibling vCPU
	 * maps or unmaps between the two reads changes how much is fetched,
	 * never how much is written (issue 10: the retry used to read up to the
	 * page end into a 15-byte buffer). */
	int r = copy_linear(v, la, buf, first, false, true);

	if (r)
		return r;
	if (first < max && copy_linear(v, la + first, buf + first, max - first, false, true))
		return (int)first;
	return (int)max;
}
