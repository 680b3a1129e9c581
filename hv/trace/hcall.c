/* vProfile hypercalls (hv/abi.h HC_VPROF_*, seed 001 §2 and §2.3). Pure
 * handlers: the VMCALL exit path passes the caller's ids and RBX and puts the
 * result in RAX. All four are allowed from CPL 3 (HC_IS_CPL3_OK). */
#include "trace/internal.h"
#include "abi.h"
#include "errno.h"

int64_t vprof_hcall(unsigned pcpu, uint16_t vm, uint16_t vcpu, uint32_t nr, uint64_t rbx,
		    stime_t now)
{
	if (!vp_acct_get(vm, vcpu))
		return -EINVAL;
	switch (nr) {
	case HC_VPROF_START:
		return vprof_vm_start(pcpu, vm, now);
	case HC_VPROF_STOP:
		return vprof_vm_stop(pcpu, vm, now, VPD_STOP);
	case HC_VPROF_DEDICATED:
		if (rbx > VPROF_DEDICATED_MAX_EPOCHS)
			return -EINVAL;
		return vprof_dedicated_request(pcpu, vm, vcpu, (uint32_t)rbx, now);
	case HC_VPROF_MARK:
		vprof_event(pcpu, vm, vcpu, VPE_MARK, now, rbx);
		return 0;
	default:
		return -ENOSYS;
	}
}
