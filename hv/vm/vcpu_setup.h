/* A vCPU's setup (vm/vcpu_setup.c): what vcpu_load() (vm/vcpu.c) calls
 * the first time it makes v's VMCS current. vcpu_create() is in vm/vcpu.h. */
#ifndef HV_VM_VCPU_SETUP_H
#define HV_VM_VCPU_SETUP_H

#include "vm/vm.h"

int vcpu_vmcs_setup(struct vcpu *v);
void vcpu_load_entry(struct vcpu *v, const struct guest_entry *e);

#endif
