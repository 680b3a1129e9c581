/* Device-model contract. Device models are pure C (host-buildable): they see an
 * access "size N at port/address A with value V" and call back into the host
 * through struct dev_host; they never touch VMCS, LAPIC or ports. */
#ifndef HV_DEV_DEV_H
#define HV_DEV_DEV_H
#include "types.h"

/* Services the hypervisor (or a unit-test fake) gives device models. */
struct dev_host {
	void *ctx;
	stime_t (*now)(void *ctx);                                  /* ns since boot */
	void (*console_write)(void *ctx, const char *s, size_t n);  /* guest UART bytes */
	void (*vm_stop)(void *ctx, int status, const char *why);    /* debug-exit, poweroff, reset */
	void (*kick_vcpu)(void *ctx, unsigned vcpu);                /* an interrupt became pending */
	void (*start_vcpu)(void *ctx, unsigned vcpu, int sipi_vector); /* -1 = INIT, else SIPI */
};

/* Interrupt line output of a device: level-triggered semantics; edge devices
 * pulse (set true then false). gsi follows the ISA numbering (0 PIT, 4 COM1, 8 RTC, 9 SCI). */
typedef void (*irq_line_fn)(void *irqctx, unsigned gsi, bool level);

/* Timer-bearing devices follow a pull model: the owner asks for the earliest
 * deadline (STIME_NEVER if none) and calls advance(now) when it has passed. */
#define STIME_NEVER INT64_MAX

/* Access result: 0 handled, -ENOENT no device here. Reads of absent ports
 * return all ones (as on a PC); that is the caller's policy, not a device's. */
#endif
