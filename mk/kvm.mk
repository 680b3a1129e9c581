# KVM paravirtual interface for Linux guests (kvmclock, steal time, PV IPIs,
# PV unhalt, sched-yield, TLB-flush hint): docs/kvm-pv.md.
HV_SRCS += hv/vmx/kvm_pv.c hv/vmx/kvm_pv_vcpu.c hv/kvm_hcall.c
UNIT_TESTS += test_kvm_pv
test_kvm_pv_SRCS := test/unit/test_kvm_pv.c hv/vmx/kvm_pv.c \
	hv/dev/vlapic.c hv/dev/vioapic.c hv/dev/vpic.c hv/dev/intc.c
