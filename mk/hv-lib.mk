# hv/lib: freestanding string, formatting, checksums, rate limits.
HV_SRCS += $(sort $(wildcard hv/lib/*.c))
