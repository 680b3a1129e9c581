# Guest side: multiboot1/flat loaders (hv/load) and the guest test images
# (guest-shim/lib + guest-shim/tests, built by guest-shim/Makefile).
HV_SRCS += hv/load/layout.c hv/load/mb1.c hv/load/mb1_info.c hv/load/flat.c
UNIT_TESTS += test_loaders
test_loaders_SRCS := test/unit/test_loaders.c hv/load/layout.c hv/load/mb1.c \
                     hv/load/mb1_info.c hv/load/flat.c
