# hv/lib: freestanding string and formatting routines.
HV_SRCS += hv/lib/string.c hv/lib/fmt.c hv/lib/checksum.c
UNIT_TESTS += test_fmt
test_fmt_SRCS := test/unit/test_fmt.c hv/lib/fmt.c
