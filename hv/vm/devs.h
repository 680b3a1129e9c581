/* The virtual PC of one VM: which device models it has and how port I/O and
 * MMIO reach them. The devices themselves live in hv/dev/. */
#ifndef HV_VM_DEVS_H
#define HV_VM_DEVS_H
#include "dev/dev.h"
#include "dev/pcdev.h"
#include "dev/intc.h"
#include "dev/pci_absent.h"

struct vm;

struct vm_devs {
	struct dev_host host;
	struct pcdev pc;        /* the DEV_REGISTER models: UART, PIT, RTC, ACPI PM, ... */
	struct vintc intc;      /* PICs, IOAPIC, local APICs */
	uint64_t absent_pio, absent_mmio;   /* accesses to nothing */
	const struct rtc *rtc;  /* the wall clock kvmclock reports */
};

int vm_devs_init(struct vm *vm);
/* Port I/O to the interrupt controllers, PCI config space or nothing: reads
 * of absent ports return all ones, writes are dropped (PC). */
void vm_devs_pio_other(struct vm_devs *d, uint16_t port, unsigned size, bool write,
		       uint32_t *val);
/* Port I/O; the simple PC devices first. Inline: one call less on the
 * exit path (the caller holds the VM lock). */
static inline void vm_devs_pio(struct vm_devs *d, uint16_t port, unsigned size, bool write,
			       uint32_t *val)
{
	if (pcdev_pio(&d->pc, port, size, write, val))
		vm_devs_pio_other(d, port, size, write, val);
}
/* MMIO below 4 GiB outside RAM: the LAPIC/IOAPIC pages reach the vintc; the
 * rest reads all ones and drops writes. Returns -EFAULT above 4 GiB. */
int vm_devs_mmio(struct vm *vm, unsigned vcpu, uint64_t gpa, unsigned size, bool write,
		 uint64_t *val);
/* Whether a port access may have moved a device deadline or the 8259's
 * output, which the vCPU's preemption timer and injection must then follow
 * (the run loop re-arms both; an interrupt raised meanwhile kicks anyway):
 * the flags of the model's DEV_REGISTER line; unclaimed ports (the interrupt
 * controllers) on write. */
static inline bool vm_devs_pio_retimes(uint16_t port, bool write)
{
	return pcdev_pio_retimes(port, write);
}
stime_t vm_devs_next_deadline(struct vm *vm, unsigned vcpu);
void vm_devs_advance(struct vm *vm, unsigned vcpu, stime_t now);
#endif
