/* Hypercall dispatch and the core calls. Unknown numbers return -ENOSYS and
 * never disturb the hypervisor; only the calls hv/abi.h marks CPL3-safe are
 * accepted from guest user space (-EPERM otherwise). */
#include "hypercall.h"
#include "abi.h"
#include "vm/vm.h"
#include "vm/gmem.h"
#include "errno.h"
#include "log.h"

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

static int64_t hc_version(struct vcpu *v, uint64_t a0, uint64_t a1, uint64_t a2, uint64_t a3)
{
	return HV_ABI_VERSION;
}
HCALL_REGISTER(HC_VERSION, hc_version);

static int64_t hc_test_result(struct vcpu *v, uint64_t a0, uint64_t a1, uint64_t a2, uint64_t a3)
{
	pr_info("%s: vcpu%u reports test status %ld\n", v->vm->p.name, v->id, (long)a0);
	return 0;
}
HCALL_REGISTER(HC_TEST_RESULT, hc_test_result);

static int64_t hc_console_puts(struct vcpu *v, uint64_t gva, uint64_t len, uint64_t a2,
			       uint64_t a3)
{
	char buf[256];

	if (len > sizeof(buf))
		return -E2BIG;
	if (guest_read_linear(v, gva, buf, len))
		return -EFAULT;
	v->vm->devs.host.console_write(v->vm, buf, len);
	return (int64_t)len;
}
HCALL_REGISTER(HC_CONSOLE_PUTS, hc_console_puts);
