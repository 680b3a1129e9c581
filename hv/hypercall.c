/* Hypercall dispatch and the core calls. Unknown numbers return -ENOSYS and
 * never disturb the hypervisor; only the calls hv/abi.h marks CPL3-safe are
 * accepted from guest user space (-EPERM otherwise). */
#include "hypercall.h"
#include "abi.h"
#include "vm/vm.h"
#include "vm/gmem.h"
#include "arch/x86/time.h"
#include "errno.h"
#include "log.h"

/* Per-VM budgets of hypercall console output (unprivileged VMs): 64 lines at
 * once and 10 per second after; 8 vProfile starts at once and 1 per second
 * after (each profile's stop dumps it once). */
#define HC_CONSOLE_BURST     64
#define HC_CONSOLE_INTERVAL  (100 * 1000000ll)
#define HC_VPROF_BURST       8
#define HC_VPROF_INTERVAL    (1000 * 1000000ll)

HV_SECTION_BOUNDS(const struct hcall_desc, hcall);

#define HV_ABI_VERSION 1

int64_t hcall_dispatch(struct vcpu *v, unsigned cpl, uint64_t nr, uint64_t a0, uint64_t a1,
		       uint64_t a2, uint64_t a3)
{
	const struct hcall_desc *d;

	if (cpl == 3 && !HC_IS_CPL3_OK(nr))
		return -EPERM;
	for (d = __start_hv_hcall; d < __stop_hv_hcall; d++)
		if (d->nr == nr)
			return d->fn(v, a0, a1, a2, a3);
	return -ENOSYS;
}

void hcall_limits_init(struct vm *vm)
{
	stime_t now = time_now();

	ratelimit_init(&vm->rl_console, HC_CONSOLE_BURST, HC_CONSOLE_INTERVAL, now);
	ratelimit_init(&vm->rl_vprof, HC_VPROF_BURST, HC_VPROF_INTERVAL, now);
}

bool hcall_output_allowed(struct vm *vm, struct ratelimit *rl, const char *what)
{
	uint64_t n;

	if (vm->p.priv)
		return true;
	if (!ratelimit_take(rl, time_now()))
		return false;
	if ((n = ratelimit_unreported(rl)))
		pr_warn("%s: %lu %s dropped by the hypercall output rate limit\n", vm->p.name, n,
			what);
	return true;
}

void hcall_limits_report(struct vm *vm)
{
	uint64_t c = ratelimit_unreported(&vm->rl_console), p = ratelimit_unreported(&vm->rl_vprof);

	if (c || p)
		pr_info("summary:   %s hypercall output dropped by the rate limit: %lu console "
			"messages, %lu vProfile starts\n", vm->p.name, c, p);
}

static int64_t hc_version(struct vcpu *v, uint64_t a0, uint64_t a1, uint64_t a2, uint64_t a3)
{
	return HV_ABI_VERSION;
}
HCALL_REGISTER(HC_VERSION, hc_version);

static int64_t hc_test_result(struct vcpu *v, uint64_t a0, uint64_t a1, uint64_t a2, uint64_t a3)
{
	struct vm *vm = v->vm;

	spin_lock(&vm->lock);
	if (hcall_output_allowed(vm, &vm->rl_console, "console messages"))
		pr_info("%s: vcpu%u reports test status %ld\n", vm->p.name, v->vmx.id, (long)a0);
	spin_unlock(&vm->lock);
	return 0;
}
HCALL_REGISTER(HC_TEST_RESULT, hc_test_result);

static int64_t hc_console_puts(struct vcpu *v, uint64_t gva, uint64_t len, uint64_t a2,
			       uint64_t a3)
{
	struct vm *vm = v->vm;
	char buf[256];
	int64_t r = (int64_t)len;

	if (len > sizeof(buf))
		return -E2BIG;
	/* One copy, then only buf is used: the guest can change its string
	 * meanwhile without effect on what is printed. */
	if (guest_read_linear(v, gva, buf, len))
		return -EFAULT;
	/* The line buffer is shared with the UART model (under vm->lock too). */
	spin_lock(&vm->lock);
	if (hcall_output_allowed(vm, &vm->rl_console, "console messages"))
		vm->devs.host.console_write(vm, buf, len);
	else
		r = -EAGAIN;
	spin_unlock(&vm->lock);
	return r;
}
HCALL_REGISTER(HC_CONSOLE_PUTS, hc_console_puts);
