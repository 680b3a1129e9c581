# hv/*.c: init order, command line, console, hypercall table, memory, platform.
# Image sources of each hv/ folder come from its own mk/hv-<folder>.mk by
# wildcard: a new source file needs no mk line (docs/CONVENTIONS.md).
HV_SRCS += $(sort $(wildcard hv/*.c))
