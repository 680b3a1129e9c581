# hv/vm: VM and vCPU objects, run loop, routing of exits, scheduler platform.
HV_SRCS += $(sort $(wildcard hv/vm/*.c))
