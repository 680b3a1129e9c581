# hv/dev: device models (each registers itself with DEV_REGISTER) and the
# guest ACPI/MP tables. Unit tests: mk/devices.mk, mk/intc.mk.
HV_SRCS += $(sort $(wildcard hv/dev/*.c))
