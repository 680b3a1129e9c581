/* Device-model contract. Device models are pure C (host-buildable): they see an
 * access "size N at port/address A with value V" and call back into the host
 * through struct dev_host; they never touch VMCS, LAPIC or ports. */
#ifndef HV_DEV_DEV_H
#define HV_DEV_DEV_H
#include "types.h"
#include "compiler.h"

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

/* What every device model is given at VM creation. */
struct dev_cfg {
	const struct dev_host *host;
	irq_line_fn irq;          /* ISA IRQ lines: 0 PIT, 4 COM1, 8 RTC, 9 SCI */
	void *irqctx;
	uint64_t ram_size;
	unsigned nr_vcpus;
	int64_t epoch_secs;       /* guest wall clock (Unix seconds) at init */
};

/*
 * DEV_REGISTER: one registration next to each device model, in the hv_dev
 * linker section. It names the model's port and MMIO ranges, the size of its
 * per-VM state, and its operations; hv/dev/registry.c checks the set once
 * (overlapping ranges or duplicate names stop the boot with a message naming
 * both models) and hv/dev/pcdev.c routes accesses and sweeps the timers of
 * the models that have next_deadline/advance ("timed"). Adding a model is its
 * own .c/.h plus, if its folder's mk fragment has no wildcard, one mk line.
 *
 * Port range flags say whether an access may move a device deadline or an
 * interrupt output, which the vCPU's preemption timer and injection must then
 * follow (hv/vmx/exit_io.c). Ports no model claims (the interrupt
 * controllers, absent hardware) count as timed on write.
 */
#define DEV_PIO_TIMED       0x40   /* a write may move a deadline or an IRQ output */
#define DEV_PIO_TIMED_READ  0x80   /* a read may too (RTC register C) */

struct dev_pio_range {
	uint16_t first, last;     /* inclusive */
	uint8_t flags;            /* DEV_PIO_* */
};

struct dev_mmio_range {
	uint64_t first, last;     /* guest-physical, inclusive */
};

typedef int (*dev_pio_fn)(void *dev, uint16_t port, unsigned size, bool write, uint32_t *val);
typedef stime_t (*dev_deadline_fn)(const void *dev);
typedef void (*dev_advance_fn)(void *dev, stime_t now);

struct dev_model {
	const char *name;
	size_t size;              /* per-VM state in bytes (0: stateless) */
	void (*init)(void *dev, const struct dev_cfg *cfg);
	/* 0 handled, -ENOENT not this model after all (the access goes on to the
	 * interrupt controllers and then reads as all ones). */
	dev_pio_fn pio;
	int (*mmio)(void *dev, uint64_t gpa, unsigned size, bool write, uint64_t *val);
	/* Timed models: earliest deadline (STIME_NEVER if none) and catch-up. */
	dev_deadline_fn next_deadline;
	dev_advance_fn advance;
	const struct dev_pio_range *pio_ranges;
	const struct dev_mmio_range *mmio_ranges;
	uint8_t nr_pio, nr_mmio;
};

/* A model's own typed operation in a slot: its state pointer is the slot's
 * void *, which the x86-64 ABI passes the same way, so the exit path calls
 * the model directly (no adapter). The choice fails to compile unless fn has
 * the slot's signature with `type *` for the state. */
#define DEV_TYPED_OP(slot_t, typed_t, fn) \
	__builtin_choose_expr(__builtin_types_compatible_p(__typeof__(&(fn)), typed_t), \
			      (slot_t)(fn), (void)0)
#define DEV_PIO_OP(type, fn) \
	DEV_TYPED_OP(dev_pio_fn, int (*)(type *, uint16_t, unsigned, bool, uint32_t *), fn)
#define DEV_DEADLINE_OP(type, fn) DEV_TYPED_OP(dev_deadline_fn, stime_t (*)(const type *), fn)
#define DEV_ADVANCE_OP(type, fn) DEV_TYPED_OP(dev_advance_fn, void (*)(type *, stime_t), fn)

#define DEV_PIO_RANGES(...) \
	.pio_ranges = (const struct dev_pio_range[]){ __VA_ARGS__ }, \
	.nr_pio = sizeof((const struct dev_pio_range[]){ __VA_ARGS__ }) / sizeof(struct dev_pio_range)
#define DEV_MMIO_RANGES(...) \
	.mmio_ranges = (const struct dev_mmio_range[]){ __VA_ARGS__ }, \
	.nr_mmio = sizeof((const struct dev_mmio_range[]){ __VA_ARGS__ }) / sizeof(struct dev_mmio_range)
#define DEV_REGISTER(id, ...) \
	static const struct dev_model dev_model_##id HV_REGISTER(dev) = { .name = #id, __VA_ARGS__ }

/* Access result: 0 handled, -ENOENT no device here. Reads of absent ports
 * return all ones (as on a PC); that is the caller's policy, not a device's. */
#endif
