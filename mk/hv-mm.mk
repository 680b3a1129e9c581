# hv/mm: physical page allocator and heap.
HV_SRCS += $(sort $(wildcard hv/mm/*.c))
