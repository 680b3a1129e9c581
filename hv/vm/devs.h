/* The virtual PC of one VM: which device models it has and how port I/O and
 * MMIO reach them. The devices themselves live in hv/dev/. */
#ifndef HV_VM_DEVS_H
#define HV_VM_DEVS_H
#include "dev/dev.h"
#include "dev/pcdev.h"
#include "dev/intc.h"

struct vm;

struct vm_devs {
	struct dev_host host;
	struct pcdev pc;        /* UART, debug-exit, fw_cfg, PIT, RTC, ACPI PM, 0x80, 0x64 */
	struct vintc intc;      /* PICs, IOAPIC, local APICs */
	uint64_t absent_pio, absent_mmio;   /* accesses to nothing */
};

int vm_devs_init(struct vm *vm);
/* Port I/O: reads of absent ports return all ones, writes are dropped (PC). */
void vm_devs_pio(struct vm *vm, unsigned vcpu, uint16_t port, unsigned size, bool write,
		 uint32_t *val);
/* MMIO below 4 GiB outside RAM: the LAPIC/IOAPIC pages reach the vintc; the
 * rest reads all ones and drops writes. Returns -EFAULT above 4 GiB. */
int vm_devs_mmio(struct vm *vm, unsigned vcpu, uint64_t gpa, unsigned size, bool write,
		 uint64_t *val);
stime_t vm_devs_next_deadline(struct vm *vm, unsigned vcpu);
void vm_devs_advance(struct vm *vm, unsigned vcpu, stime_t now);
#endif
