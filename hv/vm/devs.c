/* Per-VM device composition and the dev_host services the models call back. */
#include "vm/vm.h"
#include "vm/sched_platform.h"
#include "console.h"
#include "lib/fmt.h"
#include "lib/string.h"
#include "dev/pci_absent.h"
#include "arch/x86/time.h"
#include "arch/x86/cpu.h"
#include "errno.h"
#include "log.h"

static stime_t host_now(void *ctx)
{
	return time_now();
}

/* Guest console bytes become whole lines prefixed "[<name>] ". */
static void host_console_write(void *ctx, const char *s, size_t n)
{
	struct vm *vm = ctx;

	for (size_t i = 0; i < n; i++) {
		char c = s[i];
		bool flush = c == '\n' || vm->line_len + 1 >= sizeof(vm->line);

		if (c != '\n' && c != '\r')
			vm->line[vm->line_len++] = c;
		if (flush) {
			char out[sizeof(vm->line) + 24];
			int k = fmt_snprintf(out, sizeof(out), "[%s] %.*s\n", vm->p.name,
					     (int)vm->line_len, vm->line);
			console_write(out, (size_t)MIN(k, (int)sizeof(out) - 1));
			vm->line_len = 0;
		}
	}
}

static void host_vm_stop(void *ctx, int status, const char *why)
{
	vm_stop(ctx, status, why);
}

static void host_kick_vcpu(void *ctx, unsigned vcpu)
{
	struct vm *vm = ctx;

	if (vcpu < vm->nr_vcpus && vm->vcpu[vcpu])
		vm_kick_vcpu(vm->vcpu[vcpu]);
}

static void host_start_vcpu(void *ctx, unsigned vcpu, int sipi)
{
	struct vm *vm = ctx;
	struct vcpu *v;

	if (vcpu >= vm->nr_vcpus || !(v = vm->vcpu[vcpu]))
		return;
	if (sipi < 0) {
		WRITE_ONCE(v->init_pending, true);
		vm_kick_vcpu(v);
	} else if (READ_ONCE(v->wait_sipi)) {
		WRITE_ONCE(v->sipi_vector, sipi);
		sched_plat_vcpu_start(v);
	}
}

/* The guest's MAXPHYADDR: leaf 0x80000008 passes through the CPUID filter. */
static unsigned guest_maxphyaddr(void)
{
	struct cpuid_regs r;

	cpuid_count(0x80000000u, 0, &r);
	if (r.eax < 0x80000008u)
		return 36;   /* SDM vol. 3 §4.1.4 */
	cpuid_count(0x80000008u, 0, &r);
	return r.eax & 0xff;
}

static stime_t tsc_to_ns(void *ctx, uint64_t guest_tsc)
{
	/* Guests see the host TSC (offset 0), so the host conversion applies. */
	return time_tsc_to_ns(guest_tsc);
}

int vm_devs_init(struct vm *vm)
{
	struct vm_devs *d = &vm->devs;
	struct dev_cfg cfg = {
		.irq = vintc_irq_set, .irqctx = &d->intc, .ram_size = vm->ram_size,
		.nr_vcpus = vm->nr_vcpus,
		/* A fixed wall-clock epoch keeps runs repeatable (2026-01-01 00:00 UTC). */
		.epoch_secs = 1767225600,
	};

	d->host = (struct dev_host){
		.ctx = vm, .now = host_now, .console_write = host_console_write,
		.vm_stop = host_vm_stop, .kick_vcpu = host_kick_vcpu,
		.start_vcpu = host_start_vcpu,
	};
	cfg.host = &d->host;
	vintc_init(&d->intc, &d->host, tsc_to_ns, vm);
	d->intc.maxphyaddr = guest_maxphyaddr();
	pcdev_init(&d->pc, &cfg);
	if (!(d->rtc = pcdev_find(&d->pc, "rtc")))
		return -ENODEV;
	return 0;
}

void vm_devs_pio_other(struct vm_devs *d, uint16_t port, unsigned size, bool write,
		       uint32_t *val)
{
	if (!vintc_pio(&d->intc, port, size, write, val) ||
	    !pci_absent_pio(port, size, write, val))
		return;
	d->absent_pio++;
	if (!write)
		*val = size == 4 ? 0xffffffffu : (1u << (size * 8)) - 1;
}

int vm_devs_mmio(struct vm *vm, unsigned vcpu, uint64_t gpa, unsigned size, bool write,
		 uint64_t *val)
{
	if (gpa >= GiB(4))
		return -EFAULT;
	if (!vintc_mmio(&vm->devs.intc, vcpu, gpa, size, write, val) ||
	    !pcdev_mmio(&vm->devs.pc, gpa, size, write, val))
		return 0;
	vm->devs.absent_mmio++;
	if (!write)
		*val = size >= 8 ? ~0ull : (1ull << (size * 8)) - 1;
	return 0;
}

/* Platform devices are advanced by the boot vCPU's pCPU. */
stime_t vm_devs_next_deadline(struct vm *vm, unsigned vcpu)
{
	stime_t t = vintc_timer_next(&vm->devs.intc, vcpu), p;

	if (vcpu != 0)
		return t;
	p = pcdev_next_deadline(&vm->devs.pc);   /* once: MIN() evaluates twice */
	return MIN(t, p);
}

void vm_devs_advance(struct vm *vm, unsigned vcpu, stime_t now)
{
	vintc_timer_advance(&vm->devs.intc, vcpu, now);
	if (vcpu == 0)
		pcdev_advance(&vm->devs.pc, now);
}
