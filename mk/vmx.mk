# VMX core (VMCS, EPT, exits), VMs and vCPUs, hypercalls.
UNIT_TESTS += test_ept test_modstr test_gwalk test_xcr0 test_cr_check
test_cr_check_SRCS := test/unit/test_cr_check.c
test_xcr0_SRCS := test/unit/test_xcr0.c
test_ept_SRCS := test/unit/test_ept.c hv/vmx/ept.c
test_modstr_SRCS := test/unit/test_modstr.c hv/vm/modstr.c hv/cmdline.c hv/lib/fmt.c
test_gwalk_SRCS := test/unit/test_gwalk.c hv/vm/gwalk.c
