# VMX core (VMCS, EPT, exits), VMs and vCPUs, hypercalls.
HV_SRCS += hv/vmx/vmcs.c hv/vmx/vmcs_setup.c hv/vmx/ept.c hv/vmx/entry.asm hv/vmx/exit.c \
	hv/vmx/fpu.c hv/vmx/exit_io.c hv/vmx/exit_mmio.c hv/vmx/exit_misc.c hv/hypercall.c \
	hv/vm/vm.c hv/vm/vcpu.c hv/vm/vcpu_exit.c hv/vm/devs.c hv/vm/modstr.c hv/vm/sched_glue.c hv/vm/sched_hcall.c hv/vm/gmem.c \
	hv/vm/gwalk.c hv/memory.c hv/platform.c
UNIT_TESTS += test_ept test_modstr test_gwalk test_xcr0 test_cr_check
test_cr_check_SRCS := test/unit/test_cr_check.c
test_xcr0_SRCS := test/unit/test_xcr0.c
test_ept_SRCS := test/unit/test_ept.c hv/vmx/ept.c
test_modstr_SRCS := test/unit/test_modstr.c hv/vm/modstr.c hv/cmdline.c hv/lib/fmt.c
test_gwalk_SRCS := test/unit/test_gwalk.c hv/vm/gwalk.c
