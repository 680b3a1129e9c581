# hv/load: guest image loaders (bzImage, multiboot1, flat).
HV_SRCS += $(sort $(wildcard hv/load/*.c))
