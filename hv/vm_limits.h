/* How many VMs and vCPUs per VM the hypervisor holds. A core header: hv/vm
 * sizes its objects with them, hv/vmx its per-VM APICv slots (issue 11:
 * hv/vmx includes no hv/vm header). */
#ifndef HV_VM_LIMITS_H
#define HV_VM_LIMITS_H

#define VM_MAX 8
#define VM_MAX_VCPUS 16
#endif
