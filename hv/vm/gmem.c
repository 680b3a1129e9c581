/* Guest memory copies through the current VMCS's paging state. */
#include "vm/gmem.h"
#include "vm/vm.h"
#include "vmx/vmcs.h"
#include "lib/string.h"
#include "errno.h"

void *gpa_to_hva(struct vm *vm, uint64_t gpa, uint64_t len)
{
	if (gpa >= vm->ram_size || len > vm->ram_size - gpa)
		return NULL;
	return vm->ram + gpa;
}

static void paging_now(struct gpaging *pg)
{
	pg->cr0 = vmcs_readnat(VMCS_GUEST_CR0);
	pg->cr3 = vmcs_readnat(VMCS_GUEST_CR3);
	pg->cr4 = vmcs_readnat(VMCS_GUEST_CR4);
	pg->efer = vmcs_read64(VMCS_GUEST_EFER);
}

static int copy_linear(struct vcpu *v, uint64_t la, void *buf, size_t n, bool write)
{
	struct gpaging pg;
	uint8_t *b = buf;

	paging_now(&pg);
	while (n) {
		size_t chunk = MIN(n, (size_t)(PAGE_SIZE - (la & (PAGE_SIZE - 1))));
		uint64_t gpa;
		uint8_t *h;

		if (gwalk(&pg, v->vm->ram, v->vm->ram_size, la, write, &gpa) ||
		    !(h = gpa_to_hva(v->vm, gpa, chunk)))
			return -EFAULT;
		write ? memcpy(h, b, chunk) : memcpy(b, h, chunk);
		la += chunk;
		b += chunk;
		n -= chunk;
	}
	return 0;
}

int guest_read_linear(struct vcpu *v, uint64_t la, void *buf, size_t n)
{
	return copy_linear(v, la, buf, n, false);
}

int guest_write_linear(struct vcpu *v, uint64_t la, const void *buf, size_t n)
{
	return copy_linear(v, la, (void *)buf, n, true);
}
