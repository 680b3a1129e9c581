# hv/trace: vProfile (accounting, events, PMU sampling, dump).
HV_SRCS += $(sort $(wildcard hv/trace/*.c))
