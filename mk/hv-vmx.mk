# hv/vmx: VMX core (VMCS, EPT, exit decoding, injection, APICv, filters).
HV_SRCS += $(sort $(wildcard hv/vmx/*.asm hv/vmx/*.c))
